//! Both engines list the same final states: every litmus test of the
//! corpus (`dat3m/litmus/PTX` and `VULKAN`, each with its dialect's default
//! model), safety, loop bound 1, checked by `--engine explicit` and by
//! `--engine symbolic` through the driver; the states, the verdicts, herd's
//! observation and whether the bound cut an execution must agree. A test
//! is skipped only where an engine gives no complete list (it refuses the
//! test, a resource limit stops it, undefined behaviour decides it); the
//! skips are printed and must stay few.
//!
//! Skipped, with a message, when `../shared/corpus` is absent.

use gpumc_verify::driver::{check_file, Config, Engine, FileReport, ModelCache};
use rayon::prelude::*;
use std::path::PathBuf;

/// Per check: a test past this is skipped (and counted as such).
const TIMEOUT_S: f64 = 20.0;

/// More skips than this fail the test (8 today: the `xf-barrier` tests,
/// too large for the explicit engine).
const MAX_SKIPS: usize = 12;

fn root() -> PathBuf {
    gpumc_testutil::shared_corpus().join("dat3m/litmus")
}

fn files() -> Option<Vec<PathBuf>> {
    let root = root();
    if !root.is_dir() {
        eprintln!("skipped: ../shared/corpus not found (the engine state diff needs it)");
        return None;
    }
    let mut files = gpumc_testutil::litmus_files(&root.join("PTX"));
    files.extend(gpumc_testutil::litmus_files(&root.join("VULKAN")));
    Some(files)
}

/// Why a report has no complete list of states, if it has none.
fn no_list(r: &FileReport) -> Option<String> {
    match r.verdict.as_str() {
        // The message repeats the path: its end says why.
        "ERROR" => Some(format!(
            "error: {}",
            r.message
                .as_deref()
                .map_or("", |m| m.rsplit(": ").next().unwrap_or(m))
        )),
        _ if r.engine.is_none() => {
            Some(format!("undecided: {}", r.message.as_deref().unwrap_or("")))
        }
        _ if !r.states_complete => Some(format!(
            "incomplete states: {}",
            r.states_note.as_deref().unwrap_or("")
        )),
        _ => None,
    }
}

#[test]
fn explicit_and_symbolic_list_the_same_states() {
    let Some(files) = files() else { return };
    let cfg = |engine| Config {
        engine,
        limits: gpumc_core::guard::Limits {
            timeout_s: Some(TIMEOUT_S),
            ..Default::default()
        },
        // Every state, whatever the test.
        max_states: Some(1 << 20),
        ..Config::default()
    };
    let (ce, cs) = (cfg(Engine::Explicit), cfg(Engine::Symbolic));
    let cache = ModelCache::default();
    let start = std::time::Instant::now();
    let results: Vec<(String, Result<Option<String>, String>)> = files
        .par_iter()
        .map(|f| {
            let name = f.strip_prefix(root()).unwrap_or(f).display().to_string();
            let e = check_file(f, &ce, &cache);
            if let Some(why) = no_list(&e) {
                return (name, Ok(Some(format!("explicit engine: {why}"))));
            }
            let s = check_file(f, &cs, &cache);
            if let Some(why) = no_list(&s) {
                return (name, Ok(Some(format!("symbolic engine: {why}"))));
            }
            let same = e.states == s.states
                && e.observables == s.observables
                && e.verdict == s.verdict
                && e.observation == s.observation
                && e.bound_hit == s.bound_hit;
            let outcome = if same {
                Ok(None)
            } else {
                Err(format!(
                    "explicit {} {:?} {:?} bound_hit {} states {:?}\n  symbolic {} {:?} {:?} bound_hit {} states {:?}",
                    e.verdict,
                    e.observables,
                    e.observation,
                    e.bound_hit,
                    e.states,
                    s.verdict,
                    s.observables,
                    s.observation,
                    s.bound_hit,
                    s.states
                ))
            };
            (name, outcome)
        })
        .collect();
    let skipped: Vec<String> = results
        .iter()
        .filter_map(|(f, r)| match r {
            Ok(Some(why)) => Some(format!("{f}: {why}")),
            _ => None,
        })
        .collect();
    let bad: Vec<String> = results
        .iter()
        .filter_map(|(f, r)| r.as_ref().err().map(|d| format!("{f}:\n  {d}")))
        .collect();
    let compared = results.len() - skipped.len();
    eprintln!(
        "{} tests: {compared} compared, {} skipped, {} differ ({:.1} s)",
        results.len(),
        skipped.len(),
        bad.len(),
        start.elapsed().as_secs_f64()
    );
    for s in &skipped {
        eprintln!("  skipped {s}");
    }
    assert!(
        bad.is_empty(),
        "engines list different states:\n{}",
        bad.join("\n")
    );
    assert!(
        skipped.len() <= MAX_SKIPS,
        "{} tests skipped (at most {MAX_SKIPS} expected)",
        skipped.len()
    );
    // Not vacuous: most of the corpus is compared, and some lists are long.
    assert!(compared > 1000, "only {compared} tests compared");
}

/// `states_time_s` (what `gpumc check` sets without `--max-states`) cuts
/// the listing after its time, with at least one state listed, and says
/// so; the verdict does not depend on it.
#[test]
fn the_listing_stops_after_its_time_and_says_so() {
    let test = gpumc_testutil::repo_root().join("examples/MP-weak.litmus");
    let full = check_file(
        &test,
        &Config {
            engine: Engine::Symbolic,
            ..Config::default()
        },
        &ModelCache::default(),
    );
    assert!(full.states_complete && full.states.len() > 1, "{full:?}");
    let cut = check_file(
        &test,
        &Config {
            engine: Engine::Symbolic,
            states_time_s: Some(0.0),
            ..Config::default()
        },
        &ModelCache::default(),
    );
    assert_eq!(cut.verdict, full.verdict);
    assert_eq!(cut.states.len(), 1, "{cut:?}");
    assert!(!cut.states_complete);
    let note = cut.states_note.as_deref().unwrap_or("");
    assert!(note.contains("the listing stopped after 0 s"), "{note}");
    assert!(full.states.contains(&cut.states[0]));
}
