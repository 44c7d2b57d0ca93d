//! Conformance: the Dat3M expectation CSVs of `../shared/corpus`, run
//! through the library exactly as `gpumc suite` runs them.
//!
//! Skipped (with a message) when the corpus is absent. A row listed in
//! docs/KNOWN-DIFFERENCES.md is reported but does not fail the test; a
//! listed row that now agrees fails it, so the list stays true.

use gpumc::driver::{self, Config, ModelCache, Property};
use rayon::prelude::*;

mod common;
use common::{corpus, known_differences, Listed};

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
