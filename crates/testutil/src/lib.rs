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
    files_with_extension(root, "litmus")
}

/// Every file below `root` whose extension is `ext`, sorted (none if
/// `root` is missing).
pub fn files_with_extension(root: &Path, ext: &str) -> Vec<PathBuf> {
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
            } else if p.extension().is_some_and(|x| x == ext) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Deterministically damaged copies of an input, for tests that a parser
/// never panics: `rounds` copies, every `truncate_every`-th truncated at a
/// random point, the others with a few bytes replaced, inserted (from
/// `alphabet`) or removed. xorshift64* from `seed`.
pub fn damaged_copies(
    bytes: &[u8],
    alphabet: &[u8],
    rounds: usize,
    truncate_every: usize,
    seed: u64,
) -> Vec<Vec<u8>> {
    let mut state = seed | 1;
    let mut next = move |n: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    };
    (0..rounds)
        .map(|round| {
            let mut b = bytes.to_vec();
            if round % truncate_every.max(1) == 0 {
                b.truncate(next(b.len() + 1));
            } else {
                for _ in 0..1 + next(4) {
                    let i = next(b.len() + 1);
                    let byte = alphabet[next(alphabet.len())];
                    match next(3) {
                        0 if i < b.len() => b[i] = byte,
                        1 => b.insert(i, byte),
                        _ if i < b.len() => {
                            b.remove(i);
                        }
                        _ => b.push(byte),
                    }
                }
            }
            b
        })
        .collect()
}

/// Runs a program built by the tests (`env!("CARGO_BIN_EXE_gpumc")`) in
/// the repository root, with `input` on its standard input (none: an empty
/// one); returns its exit status (-1 when a signal ended it), standard
/// output and standard error.
pub fn run(bin: &str, args: &[&str], input: Option<&str>) -> (i32, String, String) {
    run_with(bin, args, input, &[])
}

/// [`run`] with extra environment variables (`CLANG=…`), no input.
pub fn run_env(bin: &str, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    run_with(bin, args, None, env)
}

/// Whether every one of `tools` runs (`TOOL --version`); when one does
/// not, the test skips with a message naming `what`, unless the
/// environment variable `require` is set (CI sets it where it installs
/// them): then that is a failure.
pub fn tools_or_skip(tools: &[&str], require: &str, what: &str) -> bool {
    let ok = tools.iter().all(|t| {
        std::process::Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !ok {
        assert!(
            std::env::var_os(require).is_none(),
            "{require} is set but {} did not run",
            tools.join(" or ")
        );
        eprintln!("skipping: {} not found ({what})", tools.join(" or "));
    }
    ok
}

fn run_with(
    bin: &str,
    args: &[&str],
    input: Option<&str>,
    env: &[(&str, &str)],
) -> (i32, String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(bin)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(repo_root())
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("run {bin}: {e}"));
    if let Some(text) = input {
        // The program may exit before reading (a usage error): a closed
        // pipe is fine.
        let _ = child
            .stdin
            .take()
            .expect("piped")
            .write_all(text.as_bytes());
    }
    let out = child.wait_with_output().expect("the program ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
    fn damaged_copies_are_deterministic_and_damaged() {
        let a = super::damaged_copies(b"hello world", b"xyz", 6, 3, 7);
        assert_eq!(a, super::damaged_copies(b"hello world", b"xyz", 6, 3, 7));
        assert_eq!(a.len(), 6);
        assert!(a.iter().all(|c| c.as_slice() != b"hello world"));
        assert!(a[0].len() <= 11 && b"hello world".starts_with(&a[0]));
    }

    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        let m = std::fs::read_to_string(super::repo_root().join("Cargo.toml")).unwrap();
        assert!(m.contains("[workspace]"));
    }
}
