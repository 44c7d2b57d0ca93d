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
    if p.arch == gpumc_core::ir::Arch::C {
        return Ok(false); // compiled and printed in compile.rs
    }
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

/// Conditions of every shape print so that they parse back to the same
/// tree: chains print flat when the parser rebuilds them, in parentheses
/// otherwise.
#[test]
fn conditions_parse_back_to_the_same_tree() {
    use gpumc_core::ir::{Assertion, CmpOp, Cond, Quantifier, Term};
    let src = "PTX t\n{ x=0; }\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\n";
    let mut p = litmus::parse(src, Path::new("t.litmus")).unwrap();
    let leaf = |k: i64| Cond::Cmp(CmpOp::Eq, Term::Reg(0, "r0".into()), Term::Const(k));
    let and = |a: Cond, b: Cond| Cond::And(Box::new(a), Box::new(b));
    let or = |a: Cond, b: Cond| Cond::Or(Box::new(a), Box::new(b));
    // Left- and right-leaning chains, the parser's balanced ones (from
    // text), mixtures and negations.
    let mut conds = vec![leaf(0), Cond::True, Cond::Not(Box::new(leaf(1)))];
    for n in 2..8 {
        let mut l = leaf(0);
        let mut r = leaf(0);
        for k in 1..n {
            l = and(l, leaf(k));
            r = or(leaf(k), r);
        }
        conds.push(l);
        conds.push(r);
        let text: Vec<String> = (0..n).map(|k| format!("P0:r0 == {k}")).collect();
        let t = format!("{src}exists ({})\n", text.join(" /\\ "));
        conds.push(
            litmus::parse(&t, Path::new("t"))
                .unwrap()
                .assertion
                .unwrap()
                .cond,
        );
    }
    conds.push(or(
        and(leaf(1), leaf(2)),
        Cond::Not(Box::new(or(leaf(3), leaf(4)))),
    ));
    conds.push(and(
        or(leaf(1), leaf(2)),
        and(leaf(3), or(leaf(4), leaf(5))),
    ));
    let mut flat = 0;
    for c in conds {
        p.assertion = Some(Assertion {
            quantifier: Quantifier::Exists,
            cond: c.clone(),
        });
        let text = print::litmus(&p, &[]).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let back = litmus::parse(&text, Path::new("back")).unwrap();
        assert_eq!(back.assertion.unwrap().cond, c, "{text}");
        if text.contains("== 0 /\\ P0:r0 == 1 /\\ P0:r0 == 2") {
            flat += 1;
        }
    }
    assert!(flat >= 5, "balanced chains print flat");
}
