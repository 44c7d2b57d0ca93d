//! Helpers shared by the `progress_*` integration tests (included with
//! `#[path]`; this file has no tests of its own).
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/corpus/progress`, or `None` (with a message) when absent.
pub fn progress_corpus(test: &str) -> Option<PathBuf> {
    let p = gpumc_testutil::shared_corpus().join("progress");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "SKIPPED {test}: progress corpus not found at {}",
            p.display()
        );
        None
    }
}

/// `../shared/corpus/dat3m`, or `None` (with a message) when absent.
pub fn dat3m_corpus(test: &str) -> Option<PathBuf> {
    let p = gpumc_testutil::shared_corpus().join("dat3m");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("SKIPPED {test}: Dat3M corpus not found at {}", p.display());
        None
    }
}

/// The five corpus configurations, as directory names.
pub const CONFIGS: [&str; 5] = [
    "2_threads_2_instructions",
    "2_threads_3_instructions",
    "2_threads_4_instructions",
    "3_threads_3_instructions",
    "3_threads_4_instructions",
];
