//! Explicit vs symbolic engine on every corpus litmus test of the safety
//! CSVs (PTX v6.0, PTX v7.5, Vulkan, Vulkan without chains), of the
//! Vulkan data-race CSV (and the PTX v7.5 tests for races; for races the
//! two engines must list the same racing instruction pairs) and of the
//! seven liveness CSVs (their `; `-disabled
//! rows included), each with its CSV's model, progress model and bound. The engines must agree
//! with each other (whether or not they agree with the CSV: rows where the
//! model is still being fixed are compared all the same). Rows the explicit
//! engine refuses as too large are compared with the CSV instead.
//!
//! Skipped, with a message, when `../shared/corpus` is absent. Set
//! `GPUMC_TEST_VULKAN_CAT` to a `.cat` file to use instead of the embedded
//! Vulkan model (its `-nochains` sibling is taken from the same folder).

use gpumc_verify::driver::{self, Config, Engine, ModelCache, Property};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = gpumc_testutil::shared_corpus().join("dat3m");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: ../shared/corpus not found (the engine diff needs it)");
        None
    }
}

fn model_name(m: &str) -> String {
    match std::env::var("GPUMC_TEST_VULKAN_CAT") {
        Ok(path) if m.starts_with("vulkan") => {
            let p = Path::new(&path);
            let file = format!("{m}.cat");
            p.with_file_name(file).display().to_string()
        }
        _ => m.to_string(),
    }
}

/// The racing instruction pairs of a report, by flag and positions.
fn race_pairs(r: &driver::FileReport) -> std::collections::BTreeSet<(String, String, String)> {
    r.races
        .iter()
        .map(|x| {
            let (a, b) = &x.positions;
            let (a, b) = if a <= b { (a, b) } else { (b, a) };
            (x.flag.clone(), a.clone(), b.clone())
        })
        .collect()
}

fn diff(csv_name: &str, model: &str, property: Property) {
    diff_with(csv_name, model, property, "fair", 1);
}

fn diff_with(csv_name: &str, model: &str, property: Property, progress: &str, bound: u32) {
    let Some(root) = corpus() else { return };
    let model = model_name(model);
    if let Err(e) = gpumc_core::models::load(&model) {
        eprintln!("skipped {csv_name}: model {model} does not load: {e}");
        return;
    }
    let csv = root.join("expected").join(csv_name);
    let src = std::fs::read_to_string(&csv).expect("csv");
    let rows = driver::parse_expected_csv(&src, &csv).expect("csv parses");
    let cfg = |engine| Config {
        model: Some(model.clone()),
        bound,
        property,
        ignore_filter: false,
        progress: gpumc_verify::engine::liveness::ProgressSpec::parse(progress).expect("progress"),
        engine,
        limits: Default::default(),
        // Verdicts only here (tests/engine_states.rs compares the states).
        max_states: None,
        states_time_s: None,
        graph: None,
        max_races: driver::DEFAULT_MAX_RACES,
        symmetry: true,
        futile_drop: true,
        split_scopes: true,
        max_bound: None,
        launch: Default::default(),
        flags: false,
        co: None,
    };
    let (ce, cs) = (cfg(Engine::Explicit), cfg(Engine::Symbolic));
    let cache = ModelCache::default();
    let racy = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<_> = rows
        .par_iter()
        .filter(|r| (!r.disabled || property == Property::Liveness) && r.path.ends_with(".litmus"))
        .filter_map(|row| {
            let path = root.join(&row.path);
            path.exists().then(|| {
                let e = driver::check_file(&path, &ce, &cache);
                let s = driver::check_file(&path, &cs, &cache);
                // Too large for the explicit engine: compare with the CSV.
                let too_large = e
                    .message
                    .as_deref()
                    .is_some_and(|m| m.contains("too large for the explicit engine"));
                let reference = if too_large {
                    format!("{} (CSV; explicit: too large)", row.expected)
                } else {
                    e.verdict.clone()
                };
                let mut agree = if too_large {
                    s.verdict() == Some(row.expected)
                } else {
                    e.verdict == s.verdict
                };
                let mut reference = reference;
                let mut symbolic = s.verdict.clone();
                // Races: the same racing instruction pairs, every one of
                // them listed by both (the default cap is not reached on
                // the corpus), none for a race-free row.
                if property == Property::Races && agree && !too_large {
                    let (pe, ps) = (race_pairs(&e), race_pairs(&s));
                    let complete = |r: &driver::FileReport| {
                        r.races_complete == Some(true) || r.message.is_some()
                    };
                    let empty_iff_pass = e.verdict != "PASS" || pe.is_empty();
                    if pe != ps || !complete(&e) || !complete(&s) || !empty_iff_pass {
                        agree = false;
                        reference = format!("{} {pe:?} ({:?})", e.verdict, e.races_note);
                        symbolic = format!("{} {ps:?} ({:?})", s.verdict, s.races_note);
                    }
                    if e.verdict == "FAIL" && e.message.is_none() {
                        racy.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        assert!(!pe.is_empty(), "{}: FAIL without a pair", row.path);
                    }
                }
                (row.path.clone(), reference, symbolic, agree, too_large)
            })
        })
        .collect();
    let bad: Vec<String> = results
        .iter()
        .filter(|r| !r.3)
        .map(|(p, e, s, _, _)| format!("{p}: explicit {e}, symbolic {s}"))
        .collect();
    let large = results.iter().filter(|r| r.4).count();
    let racy = racy.into_inner();
    eprintln!(
        "{csv_name}: {} rows, {} agree ({large} too large for the explicit engine, checked against the CSV; {racy} racy rows compared pair by pair)",
        results.len(),
        results.len() - bad.len()
    );
    if property == Property::Races {
        assert!(racy > 10, "too few racy rows compared: {racy}");
    }
    assert!(bad.is_empty(), "engines disagree:\n{}", bad.join("\n"));
}

#[test]
fn ptx_v6_0() {
    diff("PTXv6_0-expected.csv", "ptx-v6.0", Property::Safety);
}

#[test]
fn ptx_v7_5() {
    diff("PTXv7_5-expected.csv", "ptx-v7.5", Property::Safety);
}

#[test]
fn vulkan() {
    diff("VULKAN-expected.csv", "vulkan", Property::Safety);
}

#[test]
fn vulkan_nochains() {
    diff(
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Safety,
    );
}

#[test]
fn vulkan_races() {
    diff("VULKAN-DR-expected.csv", "vulkan", Property::Races);
}

/// Races under PTX v7.5 on the PTX v7.5 safety tests (most of them race:
/// PTX litmus tests use weak accesses freely).
#[test]
fn ptx_v7_5_races() {
    diff("PTXv7_5-expected.csv", "ptx-v7.5", Property::Races);
}

#[test]
fn ptx_v6_0_liveness() {
    diff_with(
        "PTXv6_0-Liveness-expected.csv",
        "ptx-v6.0",
        Property::Liveness,
        "fair",
        1,
    );
}

#[test]
fn ptx_v7_5_liveness() {
    diff_with(
        "PTXv7_5-Liveness-expected.csv",
        "ptx-v7.5",
        Property::Liveness,
        "fair",
        1,
    );
}

#[test]
fn vulkan_liveness() {
    for (f, m) in [
        ("Fair", "fair"),
        ("HSA", "hsa"),
        ("OBE", "obe"),
        ("HSA_OBE", "hsa_obe"),
        ("LOBE", "lobe"),
    ] {
        diff_with(
            &format!("VULKAN-Liveness-{f}-expected.csv"),
            "vulkan",
            Property::Liveness,
            m,
            4,
        );
    }
}
