//! The C litmus dialect on the repository's C tests (`examples/c`): every
//! file parses to a C program, and damaged copies of each never panic —
//! they parse or fail with a positioned error.

use gpumc_core::ir::Arch;
use gpumc_frontend::litmus::parse;

fn c_tests() -> Vec<std::path::PathBuf> {
    let files = gpumc_testutil::litmus_files(&gpumc_testutil::repo_root().join("examples/c"));
    assert!(
        files.len() >= 20,
        "only {} C tests in examples/c",
        files.len()
    );
    files
}

#[test]
fn every_c_example_parses() {
    for f in c_tests() {
        let text = std::fs::read_to_string(&f).expect("readable");
        let p = parse(&text, &f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.arch, Arch::C, "{}", f.display());
        assert!(p.assertion.is_some(), "{}: no condition", f.display());
        assert!(!p.threads.is_empty());
    }
}

#[test]
fn damaged_c_tests_never_panic() {
    const ALPHABET: &[u8] = b"{}()[];:,*&=!<>+-/\\|~\"\n P01xr_@.?#";
    let mut errors = 0usize;
    let mut total = 0usize;
    for f in c_tests() {
        let bytes = std::fs::read(&f).expect("readable");
        for b in gpumc_testutil::damaged_copies(&bytes, ALPHABET, 60, 4, 0x51_7cc1_b727_220a) {
            total += 1;
            let text = String::from_utf8_lossy(&b);
            if let Err(e) = parse(&text, &f) {
                errors += 1;
                assert!(
                    e.pos.is_some(),
                    "{}: error without position: {e}",
                    f.display()
                );
            }
        }
    }
    // The damage must reach the parser's error paths, not only comments.
    assert!(
        errors * 2 > total,
        "{errors} errors in {total} damaged copies"
    );
}
