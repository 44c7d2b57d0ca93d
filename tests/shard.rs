//! `--shard K/N` and `gpumc merge`: every shard of a batch run one after
//! the other, merged, prints what the unsharded run prints (times masked)
//! with its exit status — for `check` on a directory (a diy set too),
//! `suite` on every corpus CSV and a `mapping check` — and a shard killed
//! part-way resumes from its journal.

use std::path::{Path, PathBuf};

const GPUMC: &str = env!("CARGO_BIN_EXE_gpumc");

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(GPUMC, args, None)
}

/// `text` with every duration (`0.12 s`, `3 ms`, `"time_ms":4.5`,
/// `"wall_s":0.1`, herd's `Time NAME 0.01`) replaced by `T`: the only
/// thing a merge may change.
fn mask_times(text: &str) -> String {
    let herd: String = text
        .split_inclusive('\n')
        .map(
            |l| match l.strip_prefix("Time ").and_then(|r| r.rsplit_once(' ')) {
                Some((name, _)) => format!("Time {name} T\n"),
                None => l.to_string(),
            },
        )
        .collect();
    let c: Vec<char> = herd.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        let starts_number = c[i].is_ascii_digit() && (i == 0 || !c[i - 1].is_alphanumeric());
        if starts_number {
            let mut j = i;
            while j < c.len()
                && (c[j].is_ascii_digit() || c[j] == '.' || c[j] == 'e' || c[j] == '-')
            {
                j += 1;
            }
            let mut k = j;
            if k < c.len() && c[k] == ' ' {
                k += 1;
            }
            let unit = |u: &str| {
                let end = k + u.len();
                end <= c.len()
                    && c[k..end].iter().copied().eq(u.chars())
                    && (end == c.len() || !c[end].is_alphanumeric())
            };
            // A JSON number after a key ending `_ms":` or `_s":`.
            let before: String = c[..i]
                .iter()
                .rev()
                .take(6)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let timed_key = before.ends_with("_ms\":") || before.ends_with("_s\":");
            if unit("ms") || unit("s") || timed_key {
                out.push('T');
                i = if timed_key {
                    j
                } else {
                    k + if unit("ms") { 2 } else { 1 }
                };
                continue;
            }
            out.extend(&c[i..j]);
            i = j;
            continue;
        }
        out.push(c[i]);
        i += 1;
    }
    out
}

/// Runs every one of `n` shards of `args` into `dir` (emptied first),
/// one after the other; each must finish (exit status 0).
fn run_shards(args: &[&str], n: usize, dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
    let d = dir.display().to_string();
    for k in 0..n {
        let shard = format!("{k}/{n}");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard, "--shard-out", &d]);
        let (c, _, err) = gpumc(&a);
        assert_eq!(c, 0, "shard {shard} of {args:?}: {err}");
    }
}

/// Runs `args` unsharded, then as `n` shards into a fresh directory and
/// merged with `merge_args`; asserts the same output and status.
fn same_when_sharded(args: &[&str], n: usize, merge_args: &[&str], dir: &Path) {
    let (code, out, _) = gpumc(args);
    run_shards(args, n, dir);
    let d = dir.display().to_string();
    let mut m = vec!["merge", d.as_str()];
    m.extend(merge_args);
    let (mcode, mout, merr) = gpumc(&m);
    assert_eq!(mcode, code, "merge of {args:?}: {merr}");
    assert_eq!(mask_times(&mout), mask_times(&out), "merge of {args:?}");
    assert!(!out.is_empty(), "{args:?} printed nothing");
    let _ = std::fs::remove_dir_all(dir);
}

fn scratch(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("gpumc-shard-{name}-{}", std::process::id()))
}

#[test]
fn masking_touches_durations_only() {
    assert_eq!(
        mask_times("51 tests in 0.02 s, 3 ms; 1896 shapes; (x; 4.1 s)\n{\"time_ms\":1.5,\"rows\":3,\"wall_s\":2e-3}\nTime MP+x 0.01\n"),
        "51 tests in T, T; 1896 shapes; (x; T)\n{\"time_ms\":T,\"rows\":3,\"wall_s\":T}\nTime MP+x T\n"
    );
}

#[test]
fn a_sharded_check_of_a_directory_merges_into_the_unsharded_output() {
    let dir = gpumc_testutil::repo_root().join("examples/thesis");
    let d = dir.display().to_string();
    same_when_sharded(&["check", &d], 3, &[], &scratch("check"));
    same_when_sharded(
        &["check", &d, "--json"],
        4,
        &["--json"],
        &scratch("check-json"),
    );
    same_when_sharded(
        &["check", &d, "--format", "herd"],
        2,
        &["--format", "herd"],
        &scratch("check-herd"),
    );
}

#[test]
fn a_sharded_check_of_a_diy_set_merges_into_the_unsharded_output() {
    let set = scratch("diy-set");
    let _ = std::fs::remove_dir_all(&set);
    let s = set.display().to_string();
    let (code, _, err) = gpumc(&["diy", "--enumerate", "--max-edges", "4", "--out", &s]);
    assert_eq!(code, 0, "{err}");
    same_when_sharded(&["check", &s], 5, &[], &scratch("diy-check"));
    std::fs::remove_dir_all(&set).unwrap();
}

#[test]
fn every_corpus_csv_sharded_merges_into_the_unsharded_suite() {
    let root = gpumc_testutil::shared_corpus().join("dat3m/expected");
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("SKIPPED: {} not found (the shared corpus)", root.display());
        return;
    };
    let mut csvs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    csvs.sort();
    assert!(!csvs.is_empty());
    for csv in &csvs {
        let c = csv.display().to_string();
        same_when_sharded(&["suite", "--expected", &c], 3, &[], &scratch("suite"));
    }
    // JSON lines, on the first.
    let c = csvs[0].display().to_string();
    same_when_sharded(
        &["suite", "--expected", &c, "--json"],
        2,
        &["--json"],
        &scratch("suite-json"),
    );
}

#[test]
fn a_sharded_mapping_check_merges_into_the_unsharded_report() {
    // Sound at 5 events (every shape checked by every shard's part).
    same_when_sharded(
        &[
            "mapping",
            "check",
            "--to",
            "ptx-v7.5",
            "--events",
            "5",
            "--axiom",
            "coherence",
        ],
        4,
        &[],
        &scratch("mapping"),
    );
}

#[test]
fn a_sharded_mapping_check_reports_the_unsharded_counterexample() {
    // An unsound mapping: the counterexample that comes first in the
    // enumeration is the one the merge prints (the shards' effort counts
    // differ from the unsharded one's, which stops at it: compared are
    // the verdict lines' heads and the counterexample).
    let map = gpumc_testutil::repo_root().join("examples/mappings/ptx-rmw-sc-no-release.map");
    let m = map.display().to_string();
    let args = [
        "mapping",
        "check",
        "--to",
        "ptx-v7.5",
        "--mapping",
        &m,
        "--events",
        "4",
        "--axiom",
        "coherence",
    ];
    let (code, out, _) = gpumc(&args);
    assert_eq!(code, 1);
    let dir = scratch("mapping-cx");
    run_shards(&args, 3, &dir);
    let d = dir.display().to_string();
    let (mcode, mout, _) = gpumc(&["merge", &d]);
    assert_eq!(mcode, 1);
    let body = |s: &str| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    let head = |s: &str| {
        s.lines()
            .next()
            .unwrap_or("")
            .split(" (")
            .next()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(head(&mout), head(&out));
    assert!(
        head(&out).starts_with("coherence: COUNTEREXAMPLE with "),
        "{out}"
    );
    assert_eq!(body(&mout), body(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_killed_shard_resumes_and_the_merge_names_what_is_missing() {
    let dir = scratch("resume");
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    let tests = gpumc_testutil::repo_root().join("examples/thesis/D-cta_S-ker-Global");
    let t = tests.display().to_string();
    let (code, out, _) = gpumc(&["check", &t]);
    assert_eq!(
        gpumc(&["check", &t, "--shard", "0/2", "--shard-out", &d]).0,
        0
    );
    // Nothing of shard 1 yet.
    let (c, _, err) = gpumc(&["merge", &d]);
    assert_eq!(c, 2);
    assert!(err.contains("missing shards: 1/2 (no journal)"), "{err}");
    assert_eq!(
        gpumc(&["check", &t, "--shard", "1/2", "--shard-out", &d]).0,
        0
    );
    // Shard 1 killed after two tests: its journal cut after the header
    // and two records, the third torn.
    let journal = dir.join("shard-1-of-2.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 4, "shard 1 did more than two tests");
    let cut = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..10]
    );
    std::fs::write(&journal, cut).unwrap();
    let (c, _, err) = gpumc(&["merge", &d]);
    assert_eq!(c, 2);
    assert!(
        err.contains("unfinished shards: 1/2 (2 items done)"),
        "{err}"
    );
    let (c, _, err) = gpumc(&["check", &t, "--shard", "1/2", "--shard-out", &d]);
    assert_eq!(c, 0);
    assert!(err.contains("shard 1/2: resuming, 2 of its"), "{err}");
    let (mcode, mout, _) = gpumc(&["merge", &d]);
    assert_eq!(mcode, code);
    assert_eq!(mask_times(&mout), mask_times(&out));
    // Another run's journal is not resumed.
    let (c, _, err) = gpumc(&[
        "check",
        &t,
        "--bound",
        "2",
        "--shard",
        "1/2",
        "--shard-out",
        &d,
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("written by another run"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shard_options_are_checked() {
    let (c, _, err) = gpumc(&[
        "check",
        "examples/MP-weak.litmus",
        "--shard",
        "2/2",
        "--shard-out",
        "/tmp/x",
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("K must be below N"), "{err}");
    let (c, _, err) = gpumc(&["check", "examples/MP-weak.litmus", "--shard", "0/2"]);
    assert_eq!(c, 2);
    assert!(err.contains("--shard needs --shard-out"), "{err}");
    let (c, _, err) = gpumc(&["merge", "/nonexistent/dir"]);
    assert_eq!(c, 2);
    assert!(err.contains("no such file or directory"), "{err}");
}

#[test]
fn a_sharded_campaign_on_the_interpreter_merges_into_the_unsharded_run() {
    // The reference interpreter is deterministic for a seed: the merged
    // histograms are the unsharded ones (each test's seed derives from
    // the campaign's and the file). Rates and times are left out.
    let tests = gpumc_testutil::repo_root().join("examples/thesis/vulkan/D-cta_S-ker-Global");
    let t = tests.display().to_string();
    let args = [
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--seed",
        "7",
        &t,
    ];
    let (code, out, _) = gpumc(&args);
    let dir = scratch("run");
    run_shards(&args, 3, &dir);
    let d = dir.display().to_string();
    let db = dir.join("results.db");
    let (mcode, mout, merr) = gpumc(&["merge", &d, "--db", &db.display().to_string()]);
    assert_eq!(mcode, code, "{merr}");
    let timeless = |s: &str| {
        mask_times(
            &s.lines()
                .filter(|l| !l.starts_with("Time "))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    };
    assert_eq!(timeless(&mout), timeless(&out));
    assert!(out.contains("Histogram"), "{out}");
    // The merge filed every test the shards ran.
    let (c, totals, err) = gpumc(&[
        "results",
        "--db",
        &db.display().to_string(),
        "--by",
        "device",
        "--json",
    ]);
    assert_eq!(c, 0, "{err}");
    let runs = out.matches("\nTest ").count() + usize::from(out.starts_with("Test "));
    assert!(
        totals.contains(&format!("\"runs\":{runs}")),
        "{runs} runs: {totals}"
    );
    // Without a seed a campaign cannot be split reproducibly.
    let (c, _, err) = gpumc(&[
        "run",
        "--backend",
        "interp",
        &t,
        "--shard",
        "0/2",
        "--shard-out",
        &d,
    ]);
    assert_eq!(c, 2);
    assert!(err.contains("--shard needs --seed"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
