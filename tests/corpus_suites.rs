//! Conformance: the Dat3M expectation CSVs of `../shared/corpus`, run
//! through the library exactly as `gpumc suite` runs them.
//!
//! Skipped (with a message) when the corpus is absent. A row listed in
//! docs/KNOWN-DIFFERENCES.md is reported but does not fail the test; a
//! listed row that now agrees fails it, so the list stays true.

use gpumc::driver::{self, Config, ModelCache, Property};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: ../shared/corpus not found (conformance suites need it)");
        None
    }
}

/// How a listed row may differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Listed {
    /// We believe the expectation is wrong: any verdict is reported.
    WrongExpectation,
    /// gpumc cannot check it yet: only an `ERROR` (unsupported) is tolerated.
    NotCheckable,
}

/// Rows of docs/KNOWN-DIFFERENCES.md: lines `` - `csv` `path` … `` under
/// the headings "## Expected values we believe wrong" and "## Rows gpumc
/// cannot check yet".
fn known_differences() -> Vec<(String, String, Listed)> {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/KNOWN-DIFFERENCES.md"),
    )
    .unwrap_or_default();
    let mut section = None;
    let mut out = Vec::new();
    for l in doc.lines() {
        if l.starts_with("## ") {
            section = if l.contains("believe wrong") {
                Some(Listed::WrongExpectation)
            } else if l.contains("cannot check yet") {
                Some(Listed::NotCheckable)
            } else {
                None
            };
            continue;
        }
        let Some(kind) = section else { continue };
        let Some(l) = l.strip_prefix("- `") else {
            continue;
        };
        let Some((csv, rest)) = l.split_once("` `") else {
            continue;
        };
        let Some((path, _)) = rest.split_once('`') else {
            continue;
        };
        out.push((csv.to_string(), path.to_string(), kind));
    }
    out
}

fn run_suite(csv_name: &str, model: &str, property: Property, bound: u32) {
    let Some(root) = corpus() else { return };
    let csv = root.join("expected").join(csv_name);
    let src = std::fs::read_to_string(&csv).expect("csv");
    let rows = driver::parse_expected_csv(&src, &csv).expect("csv parses");
    let cfg = Config {
        model: Some(model.to_string()),
        bound,
        property,
        ignore_filter: false,
        progress: Default::default(),
        engine: gpumc::driver::Engine::Auto,
    };
    let cache = ModelCache::default();
    let known = known_differences();
    let results: Vec<_> = rows
        .par_iter()
        .filter(|r| !r.disabled)
        .filter_map(|row| {
            let path = root.join(&row.path);
            path.exists()
                .then(|| (row, driver::check_file(&path, &cfg, &cache)))
        })
        .collect();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let mut agreed = 0;
    for (row, r) in &results {
        let listed = known
            .iter()
            .find(|(c, p, _)| c == csv_name && *p == row.path)
            .map(|(_, _, k)| *k);
        let ok = r.verdict() == Some(row.expected);
        let tolerated = match listed {
            Some(Listed::WrongExpectation) => true,
            Some(Listed::NotCheckable) => r.verdict == "ERROR",
            None => false,
        };
        if ok {
            agreed += 1;
            if listed.is_some() {
                stale.push(row.path.clone());
            }
        } else if tolerated {
            eprintln!(
                "listed in docs/KNOWN-DIFFERENCES.md ({:?}): {} expected {} got {} {}",
                listed.unwrap(),
                row.path,
                row.expected,
                r.verdict,
                r.message.clone().unwrap_or_default()
            );
        } else {
            unexpected.push(format!(
                "{} expected {} got {} {}",
                row.path,
                row.expected,
                r.verdict,
                r.message.clone().unwrap_or_default()
            ));
        }
    }
    eprintln!("{csv_name}: {agreed}/{} agree", results.len());
    assert!(
        unexpected.is_empty(),
        "{} mismatches in {csv_name}:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed as known differences but now agree: {stale:?}"
    );
}

#[test]
fn ptx_v6_0_safety() {
    run_suite("PTXv6_0-expected.csv", "ptx-v6.0", Property::Safety, 1);
}

#[test]
fn ptx_v7_5_safety() {
    run_suite("PTXv7_5-expected.csv", "ptx-v7.5", Property::Safety, 1);
}

#[test]
fn vulkan_safety() {
    run_suite("VULKAN-expected.csv", "vulkan", Property::Safety, 1);
}

#[test]
fn vulkan_nochains_safety() {
    run_suite(
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Safety,
        1,
    );
}

#[test]
fn vulkan_races() {
    run_suite("VULKAN-DR-expected.csv", "vulkan", Property::Races, 1);
}

#[test]
fn vulkan_nochains_races() {
    run_suite(
        "VULKAN-DR-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Races,
        1,
    );
}
