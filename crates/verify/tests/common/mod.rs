//! Shared by the corpus test files: locating `../shared/corpus`, and the
//! two lists of docs/KNOWN-DIFFERENCES.md; the racing positions of a
//! result.
#![allow(dead_code)]

use gpumc_verify::driver::{self, Config, ModelCache};
use rayon::prelude::*;
use std::path::PathBuf;

pub fn corpus() -> Option<PathBuf> {
    let p = gpumc_testutil::shared_corpus().join("dat3m");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped: ../shared/corpus not found (the corpus suites need it)");
        None
    }
}

/// How a listed row may differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Listed {
    /// We believe the expectation is wrong: any verdict is reported.
    WrongExpectation,
    /// gpumc cannot check it yet: only an undecided verdict (`ERROR` with an
    /// `unsupported:` reason, or `UNKNOWN`) is tolerated.
    NotCheckable,
}

/// Rows of docs/KNOWN-DIFFERENCES.md: lines `` - `csv` `path` … `` under
/// the headings "## Expected values we believe wrong" and "## Rows gpumc
/// cannot check yet".
pub fn known_differences() -> Vec<(String, String, Listed)> {
    let doc =
        std::fs::read_to_string(gpumc_testutil::repo_root().join("docs/KNOWN-DIFFERENCES.md"))
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

/// Runs the rows of an expectation CSV (`disabled`: the `; ` rows instead
/// of the active ones) with `cfg` and asserts that every verdict agrees,
/// except rows listed in docs/KNOWN-DIFFERENCES.md: a row whose expected
/// value we believe wrong may differ; a row gpumc cannot check yet may
/// only be undecided (`ERROR` or `UNKNOWN`). A listed row that agrees fails
/// the test, so the lists stay true.
pub fn run_csv(csv_name: &str, cfg: &Config, disabled: bool) {
    let Some(root) = corpus() else { return };
    let csv = root.join("expected").join(csv_name);
    let src = std::fs::read_to_string(&csv).expect("csv");
    let rows = driver::parse_expected_csv(&src, &csv).expect("csv parses");
    let cache = ModelCache::default();
    let known = known_differences();
    let results: Vec<_> = rows
        .par_iter()
        .filter(|r| r.disabled == disabled)
        .filter_map(|row| {
            let path = root.join(&row.path);
            path.exists()
                .then(|| (row, driver::check_file(&path, &row.config(cfg), &cache)))
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
            Some(Listed::NotCheckable) => r.verdict == "ERROR" || r.verdict == "UNKNOWN",
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
    eprintln!(
        "{csv_name} ({} rows): {agreed}/{} agree",
        if disabled { "disabled" } else { "active" },
        results.len()
    );
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

/// The racing instruction pairs of a result, by position, the smaller
/// first.
pub fn race_positions(
    r: &gpumc_verify::engine::races::RaceResult,
) -> std::collections::BTreeSet<(String, String)> {
    r.races
        .iter()
        .map(|x| {
            let (a, b) = x.positions.clone();
            (a.clone().min(b.clone()), a.max(b))
        })
        .collect()
}
