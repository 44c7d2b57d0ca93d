//! The litmus printers against our front-end: every PTX and Vulkan test of
//! the corpus and of `examples/` is printed and parsed again
//! (`print::litmus` compares the two programs itself), and printing is
//! idempotent on the text.

use gpumc_compile::print;
use gpumc_frontend::litmus;
use gpumc_testutil::{litmus_files, repo_root, shared_corpus};
use std::collections::BTreeMap;
use std::path::Path;

/// `Ok(false)`: the file is not a test our front-end reads.
fn roundtrip(path: &Path) -> Result<bool, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let Ok(p) = litmus::parse(&src, path) else {
        return Ok(false);
    };
    let text = print::litmus(&p, &[]).map_err(|e| e.to_string())?;
    let again = litmus::parse(&text, Path::new("again")).map_err(|e| format!("{e}\n{text}"))?;
    if let Some(d) = print::difference(&p, &again) {
        return Err(format!("{d}\n{text}"));
    }
    let text2 = print::litmus(&again, &[]).map_err(|e| e.to_string())?;
    if text != text2 {
        return Err(format!("printing is not idempotent:\n{text}\n---\n{text2}"));
    }
    Ok(true)
}

#[test]
fn examples_print_and_parse_back() {
    for f in litmus_files(&repo_root().join("examples")) {
        if f.components().any(|c| c.as_os_str() == "thesis") {
            continue; // GPU_PTX tests: warps and cache operators
        }
        roundtrip(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }
}

/// herd7's GPU_PTX tests (Sorensen's thesis) are PTX programs with warps
/// and cache operators the Dat3M dialect cannot write: each is printed
/// faithfully or refused with a reason, never printed wrongly.
#[test]
fn gpu_ptx_tests_print_faithfully_or_are_refused() {
    let mut refused = 0;
    let mut printed = 0;
    for f in litmus_files(&repo_root().join("examples/thesis")) {
        let src = std::fs::read_to_string(&f).unwrap();
        if !src.trim_start().starts_with("GPU_PTX") {
            continue;
        }
        let p = litmus::parse(&src, &f).unwrap();
        match print::litmus(&p, &[]) {
            Ok(_) => printed += 1,
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.contains("unsupported"), "{}: {msg}", f.display());
                refused += 1;
            }
        }
    }
    assert!(refused > 0, "no GPU_PTX test refused ({printed} printed)");
}

#[test]
fn corpus_prints_and_parses_back() {
    let root = shared_corpus().join("dat3m/litmus");
    if !root.exists() {
        eprintln!("skipped: no corpus at {}", root.display());
        return;
    }
    let mut printed = 0;
    let mut unread = 0;
    let mut refused: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in litmus_files(&root) {
        match roundtrip(&f) {
            Ok(true) => printed += 1,
            Ok(false) => unread += 1,
            Err(e) => refused
                .entry(e.lines().next().unwrap_or("").to_string())
                .or_default()
                .push(f.display().to_string()),
        }
    }
    assert!(
        refused.is_empty(),
        "{printed} printed; refused: {refused:#?}"
    );
    eprintln!(
        "{printed} corpus tests printed and parsed back ({unread} not read by the front-end)"
    );
    assert!(printed > 1000, "only {printed} corpus tests printed");
}
