//! What the `gpumc run` tests share: the binary, its JSON reports, and the
//! check that a report counts every instance.
#![allow(dead_code)]

use std::process::Command;

pub fn gpumc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gpumc"))
}

/// Runs `gpumc ARGS` and parses one JSON report per output line.
pub fn reports(args: &[&str]) -> (Option<i32>, Vec<serde_json::Value>) {
    let o = gpumc().args(args).output().expect("gpumc runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let rs = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (o.status.code(), rs)
}

/// Every instance is in the histogram or one of the counted buckets:
/// launches x instances in all.
pub fn assert_complete(r: &serde_json::Value) {
    let n = |k: &str| r[k].as_u64().unwrap_or(0);
    let hist: u64 = r["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    let total = hist + n("filtered") + n("unfinished") + n("out_of_bounds") + n("lost");
    assert_eq!(
        total,
        n("iterations") * n("instances"),
        "{}: the histogram does not count every instance",
        r["file"]
    );
}
