//! The thesis's tests (`examples/thesis`, Sorensen, MS thesis, University
//! of Utah, 2014) under the PTX models and their Vulkan translations
//! under `vulkan`: every verdict and final-state set against the committed
//! table `examples/thesis/expected.txt` (`GPUMC_BLESS=1` rewrites it), and
//! the verdicts the README derives from the models by hand.

use gpumc_verify::driver::{check_file, Config, Engine, ModelCache};
use rayon::prelude::*;
use std::path::PathBuf;

fn root() -> PathBuf {
    gpumc_testutil::repo_root().join("examples/thesis")
}

/// The models a file is checked under: the Vulkan translations under
/// `vulkan`, the GPU_PTX tests under both PTX models.
fn models(rel: &str) -> &'static [&'static str] {
    if rel.starts_with("vulkan/") {
        &["vulkan"]
    } else {
        &["ptx-v6.0", "ptx-v7.5"]
    }
}

/// `file model VERDICT state state ...`, states as `T1:r1=1,T1:r2=0`,
/// sorted, from `engine`.
fn check_all(engine: Engine) -> Vec<String> {
    let root = root();
    let files = gpumc_testutil::litmus_files(&root);
    let jobs: Vec<(String, &str)> = files
        .iter()
        .flat_map(|f| {
            let rel = f
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            models(&rel).iter().map(move |m| (rel.clone(), *m))
        })
        .collect();
    let cache = ModelCache::default();
    jobs.par_iter()
        .map(|(rel, model)| {
            let cfg = Config {
                model: Some(model.to_string()),
                engine,
                ..Config::default()
            };
            let r = check_file(&root.join(rel), &cfg, &cache);
            let mut states: Vec<String> = r
                .states
                .iter()
                .map(|s| {
                    r.observables
                        .iter()
                        .zip(s)
                        .map(|(o, v)| format!("{o}={v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect();
            states.sort();
            let verdict = match &r.message {
                Some(m) if r.verdict == "ERROR" => format!("ERROR({m})"),
                _ => r.verdict.clone(),
            };
            format!("{rel} {model} {verdict} {}", states.join(" "))
        })
        .collect()
}

#[test]
fn every_thesis_example_matches_the_expectation_table() {
    let got = check_all(Engine::Auto);
    assert!(
        got.len() > 300,
        "only {} checks: examples missing?",
        got.len()
    );
    let table = root().join("expected.txt");
    if std::env::var_os("GPUMC_BLESS").is_some() {
        std::fs::write(&table, got.join("\n") + "\n").expect("writable table");
    }
    let text = std::fs::read_to_string(&table).expect("examples/thesis/expected.txt");
    let expected: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut diffs = Vec::new();
    for line in &got {
        let key = line.splitn(3, ' ').take(2).collect::<Vec<_>>();
        match expected
            .iter()
            .find(|e| e.splitn(3, ' ').take(2).collect::<Vec<_>>() == key)
        {
            Some(e) if *e == line => {}
            Some(e) => diffs.push(format!("expected: {e}\n     got: {line}")),
            None => diffs.push(format!("not in the table: {line}")),
        }
    }
    for e in &expected {
        let key = e.splitn(3, ' ').take(2).collect::<Vec<_>>();
        if !got
            .iter()
            .any(|l| l.splitn(3, ' ').take(2).collect::<Vec<_>>() == key)
        {
            diffs.push(format!("no such check any more: {e}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences from examples/thesis/expected.txt:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// The SAT engine reaches the explicit engine's verdicts (it lists no
/// final states). The address dependencies are run-time addresses, which
/// the engines handle differently: resolved on each path by the explicit
/// engine, one potential event per cell in the SAT encoding.
#[test]
fn both_engines_agree() {
    let verdicts = |engine| -> Vec<String> {
        check_all(engine)
            .iter()
            .map(|l| l.splitn(4, ' ').take(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    let explicit = verdicts(Engine::Explicit);
    let symbolic = verdicts(Engine::Symbolic);
    let differ: Vec<String> = explicit
        .iter()
        .zip(&symbolic)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("explicit: {a}\nsymbolic: {b}"))
        .collect();
    assert_eq!(explicit.len(), symbolic.len());
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

/// Verdicts derived from the models by hand (README.md, "Verdicts"): `true`
/// = the weak outcome is allowed (`exists` holds). Independent of the
/// table above, so that blessing a wrong table still fails here.
const REASONED: &[(&str, bool)] = &[
    // No synchronisation at all: every weak outcome is allowed.
    ("D-cta_S-ker-Global/MP.litmus", true),
    ("D-warp_S-cta-Shared/SB.litmus", true),
    // fence.sc (= membar) at a scope holding both threads orders them:
    // the fences are sync_fence-ordered either way and close a causality
    // cycle.
    ("D-cta_S-ker-Global/MP+membar.gls.litmus", false),
    ("D-warp_S-cta-Shared/MP+membar.ctas.litmus", false),
    ("D-warp_S-cta-Global/SB+membar.ctas.litmus", false),
    ("D-cta_S-ker-Global/2+2W+membar.gls.litmus", false),
    // membar.cta in different CTAs: the fences are not in each other's
    // scope (no sr), so they do not synchronise.
    ("D-cta_S-ker-Global/MP+membar.ctas.litmus", true),
    ("D-cta_S-ker-Global/LD+membar.ctas.litmus", true),
    ("D-cta_S-ker-Global/MP+membar.gl+membar.cta.litmus", true),
    // Dependencies only feed No-Thin-Air: LD (load buffering) with
    // dependencies on both sides is an rf|dep cycle, forbidden ...
    ("D-cta_S-ker-Global/LD+datas.litmus", false),
    ("D-warp_S-cta-Shared/LD+addrs.litmus", false),
    // ... but a dependency is no acquire: MP with a reader address
    // dependency stays allowed.
    ("D-warp_S-cta-Global/MP+membar.cta+addr.litmus", true),
    ("D-cta_S-ker-Global/S+membar.gl+data.litmus", true),
    // Weak writes are never observed morally strongly, so reader fences
    // alone cannot forbid IRIW, and weak reads need not be coherent.
    ("D-cta_S-ker-Global/IRIW+membar.gls.litmus", true),
    ("D-warp_S-cta-Shared/CoRR+membar.gl.litmus", true),
    // Volatile = relaxed at system scope: morally strong, so a release
    // fence / acquire fence pair at a common scope synchronises.
    ("D-cta_S-ker-Global/MP-volatile+membar.gls.litmus", false),
    ("D-cta_S-ker-Global/DLB-MP+membar.gls.litmus", false),
    ("D-cta_S-ker-Global/DLB-MP+membar.ctas.litmus", true),
    // The lock's atomics are relaxed at .gpu: with membar.gl on both
    // sides the lock hands T0's data over.
    ("D-cta_S-ker-Global/CAS-SL+membar.gls.litmus", false),
    ("D-cta_S-ker-Global/EXCH-SL.litmus", true),
    // The PTX models have no L1: .ca loads are weak loads.
    ("D-cta_S-ker-Global/MP-L1+membar.syss.litmus", false),
    // Vulkan: relaxed atomics are coherent (CoRR forbidden), acq_rel
    // fences are no SC fences (SB allowed), no No-Thin-Air axiom (LD with
    // data dependencies allowed).
    ("vulkan/D-warp_S-cta-Global/CoRR.litmus", false),
    ("vulkan/D-cta_S-ker-Global/SB+membar.gls.litmus", true),
    ("vulkan/D-cta_S-ker-Global/LD+datas.litmus", true),
    ("vulkan/D-cta_S-ker-Global/MP+membar.gls.litmus", false),
    ("vulkan/D-cta_S-ker-Global/MP+membar.ctas.litmus", true),
];

#[test]
fn hand_derived_verdicts_hold() {
    let root = root();
    let cache = ModelCache::default();
    let mut wrong = Vec::new();
    for &(rel, allowed) in REASONED {
        for model in models(rel) {
            let cfg = Config {
                model: Some(model.to_string()),
                ..Config::default()
            };
            let r = check_file(&root.join(rel), &cfg, &cache);
            let want = if allowed { "PASS" } else { "FAIL" };
            if r.verdict != want {
                wrong.push(format!(
                    "{rel} under {model}: {} (expected {want}){}",
                    r.verdict,
                    r.message.map(|m| format!(": {m}")).unwrap_or_default()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
