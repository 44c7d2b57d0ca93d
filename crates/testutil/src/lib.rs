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

#[cfg(test)]
mod tests {
    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        let m = std::fs::read_to_string(super::repo_root().join("Cargo.toml")).unwrap();
        assert!(m.contains("[workspace]"));
    }
}
