//! Paths the tests of every gpumc crate share. `CARGO_MANIFEST_DIR` differs
//! per crate, so the tests ask here rather than joining relative paths
//! themselves.

use std::path::{Path, PathBuf};

/// The repository root (the workspace directory holding `docs/`, `examples/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared corpus checked out beside the repository
/// (`<repo>/../shared/corpus`); it may be absent, callers skip then.
pub fn shared_corpus() -> PathBuf {
    repo_root().join("../shared/corpus")
}

/// Every `*.litmus` file below `root`, sorted (none if `root` is missing).
pub fn litmus_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    #[test]
    fn litmus_files_are_found_below_a_directory_and_sorted() {
        let f = super::litmus_files(&super::repo_root().join("examples"));
        assert!(f.iter().any(|p| p.ends_with("MP-relacq.litmus")));
        assert!(f
            .iter()
            .any(|p| p.ends_with("thesis/vulkan/D-cta_S-ker-Global/SB.litmus")));
        assert!(f.windows(2).all(|w| w[0] <= w[1]));
        assert!(f
            .iter()
            .all(|p| p.extension().is_some_and(|x| x == "litmus")));
        assert!(super::litmus_files(std::path::Path::new("/nonexistent/x")).is_empty());
    }

    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        let m = std::fs::read_to_string(super::repo_root().join("Cargo.toml")).unwrap();
        assert!(m.contains("[workspace]"));
    }
}
