//! Conformance: the Dat3M expectation CSVs of `../shared/corpus`, run
//! through the library exactly as `gpumc suite` runs them.
//!
//! Skipped (with a message) when the corpus is absent. A row listed in
//! docs/KNOWN-DIFFERENCES.md is reported but does not fail the test; a
//! listed row that now agrees fails it, so the list stays true.

use gpumc_verify::driver::{Config, Property};

mod common;
use common::run_csv;

fn run_suite(csv_name: &str, model: &str, property: Property, bound: u32) {
    let cfg = Config {
        model: Some(model.to_string()),
        bound,
        property,
        ignore_filter: false,
        progress: Default::default(),
        engine: gpumc_verify::driver::Engine::Auto,
        limits: Default::default(),
        graph: None,
    };
    run_csv(csv_name, &cfg, false);
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
