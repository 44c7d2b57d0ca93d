//! Shared by the corpus test files: locating `../shared/corpus`, and the
//! two lists of docs/KNOWN-DIFFERENCES.md.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m");
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
    /// `unsupported:` reason; liveness also `UNKNOWN`) is tolerated.
    NotCheckable,
}

/// Rows of docs/KNOWN-DIFFERENCES.md: lines `` - `csv` `path` … `` under
/// the headings "## Expected values we believe wrong" and "## Rows gpumc
/// cannot check yet".
pub fn known_differences() -> Vec<(String, String, Listed)> {
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
