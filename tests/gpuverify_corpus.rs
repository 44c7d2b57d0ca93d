//! GPUVerify's OpenCL test suite (`../shared/corpus/gpuverify/OpenCL`,
//! 486 kernels; GPUVerify's expectation on each one's first line, its
//! launch on the second): every kernel compiled and checked for races at
//! that launch. GPUVerify's verdicts are not ground truth (Betts et al.,
//! OOPSLA'12 assume OpenCL 1.x semantics and tolerate "benign" races), so
//! the test asserts what must hold of gpumc itself:
//!
//! * every kernel gets an answer (a verdict, or an error with a message)
//!   and exit status 0 or 2 — no crash, no hang past the time limit;
//! * every decided verdict that disagrees with GPUVerify's `pass` /
//!   `xfail:NOT_ALL_VERIFIED` is argued in docs/KNOWN-DIFFERENCES.md
//!   (listed there by the kernel's folder);
//! * at least `MIN_DECIDED` kernels are decided (a regression guard).
//!
//! It prints the table docs/BENCHMARKS.md shows (`bench/gpuverify.sh`).
//! Skips when the corpus or the OpenCL tools are absent (the tools are
//! required when `GPUMC_REQUIRE_OPENCL` is set, as CI does).
//! `GPUMC_GPUVERIFY_TIMEOUT` (seconds, default 5) is each check's limit;
//! `GPUMC_GPUVERIFY_OUT=FILE` writes every kernel's outcome there (tab
//! separated: kernel, expectation, verdict, seconds, message).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const CORPUS: &str = "../shared/corpus/gpuverify/OpenCL";
const MIN_DECIDED: usize = 390;

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Expect {
    Pass,
    Fail,
    /// GPUVerify's own refusal (`xfail:BUGLE_ERROR`, a bad option, …):
    /// about the tool, not the kernel.
    ToolError,
}

struct Outcome {
    kernel: String,
    expect: Expect,
    verdict: String,
    message: String,
    seconds: f64,
}

fn kernels(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            kernels(&p, out);
        } else if p.extension().is_some_and(|e| e == "cl") {
            out.push(p);
        }
    }
}

/// GPUVerify's expectation and the launch options gpumc takes from the
/// second line (`--local_size=`, `--num_groups=`, `--global_size=`).
fn header(text: &str) -> (Expect, Vec<String>) {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").trim().to_ascii_lowercase();
    let expect = if first.starts_with("//pass") {
        Expect::Pass
    } else if first.starts_with("//xfail:not_all_verified") {
        Expect::Fail
    } else {
        Expect::ToolError
    };
    let launch = lines
        .next()
        .unwrap_or("")
        .trim_start_matches('/')
        .split_whitespace()
        .filter(|w| {
            ["--local_size=", "--num_groups=", "--global_size="]
                .iter()
                .any(|p| w.starts_with(p))
        })
        .map(str::to_string)
        .collect();
    (expect, launch)
}

fn run(path: &Path, root: &Path, timeout: &str) -> Outcome {
    let text = std::fs::read_to_string(path).unwrap();
    let (expect, launch) = header(&text);
    let mut args: Vec<String> = [
        "check",
        "--property",
        "races",
        "--json",
        "--timeout",
        timeout,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(["--max-bound".into(), "128".into()]);
    args.push(path.display().to_string());
    args.extend(launch);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let start = std::time::Instant::now();
    let (code, out, err) = gpumc_testutil::run_env(env!("CARGO_BIN_EXE_gpumc"), &argv, &[]);
    let seconds = start.elapsed().as_secs_f64();
    let kernel = path
        .parent()
        .unwrap()
        .strip_prefix(root)
        .unwrap()
        .display()
        .to_string();
    assert!(
        code == 0 || code == 2,
        "{kernel}: exit status {code}: {out}{err}"
    );
    let (verdict, message) = match serde_json::from_str::<serde_json::Value>(&out) {
        Ok(v) => {
            let r = v.get("results").and_then(|r| r.get(0)).unwrap_or(&v);
            (
                r["verdict"].as_str().unwrap_or("?").to_string(),
                r["message"].as_str().unwrap_or("").to_string(),
            )
        }
        // A usage error (a launch gpumc refuses) is printed, not JSON.
        Err(_) => (
            "ERROR".to_string(),
            format!("{out}{err}").trim().to_string(),
        ),
    };
    assert!(
        ["PASS", "FAIL", "UNKNOWN", "ERROR"].contains(&verdict.as_str()),
        "{kernel}: {out}{err}"
    );
    if verdict == "ERROR" {
        assert!(
            !message.is_empty(),
            "{kernel}: an error without a message: {out}{err}"
        );
    }
    Outcome {
        kernel,
        expect,
        verdict,
        message,
        seconds,
    }
}

/// `work` on every file, two at a time (the machines have two cores).
fn on_two_workers<T: Send>(files: Vec<PathBuf>, work: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    let queue = Mutex::new(files);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(f) = queue.lock().unwrap().pop() else {
                    break;
                };
                let r = work(&f);
                results.lock().unwrap().push(r);
            });
        }
    });
    results.into_inner().unwrap()
}

/// The corpus folder, or `None` (the test skips, saying why) when it or
/// the OpenCL tools are absent.
fn corpus() -> Option<&'static Path> {
    let root = Path::new(CORPUS);
    if !root.is_dir() {
        eprintln!("skipping: {CORPUS} not found (the GPUVerify corpus)");
        return None;
    }
    gpumc_testutil::tools_or_skip(
        &["clang", "opt-14", "llvm-spirv-14", "spirv-dis"],
        "GPUMC_REQUIRE_OPENCL",
        "the `clang`, `llvm-14`, `llvm-spirv-14` and `spirv-tools` packages",
    )
    .then_some(root)
}

/// The reason of a refusal, without the file and position.
fn reason(message: &str) -> String {
    let m = message.rsplit(".cl:").next().unwrap_or(message);
    let m = m.split_once(": ").map_or(m, |(pos, rest)| {
        if pos.chars().all(|c| c.is_ascii_digit() || c == ':') {
            rest
        } else {
            m
        }
    });
    let m = m.split(" (in the compiled SPIR-V").next().unwrap_or(m);
    let m = m.split(" (its ").next().unwrap_or(m);
    let cut: String = m.trim().chars().take(70).collect();
    cut.replace('|', "/")
}

#[test]
fn gpuverify_opencl_kernels_are_decided_or_refused_with_reasons() {
    let Some(root) = corpus() else { return };
    let timeout = std::env::var("GPUMC_GPUVERIFY_TIMEOUT").unwrap_or_else(|_| "5".into());
    let mut files = Vec::new();
    kernels(root, &mut files);
    assert!(files.len() > 400, "{} kernels", files.len());
    let mut results = on_two_workers(files, |f| run(f, root, &timeout));
    results.sort_by(|a, b| a.kernel.cmp(&b.kernel));
    // Every kernel's outcome, one line each, for whoever studies the run.
    if let Ok(out) = std::env::var("GPUMC_GPUVERIFY_OUT") {
        let lines: String = results
            .iter()
            .map(|o| {
                let msg = o.message.replace(['\t', '\n'], " ");
                format!(
                    "{}\t{:?}\t{}\t{:.2}\t{msg}\n",
                    o.kernel, o.expect, o.verdict, o.seconds
                )
            })
            .collect();
        std::fs::write(&out, lines).unwrap();
    }
    let known = std::fs::read_to_string("docs/KNOWN-DIFFERENCES.md").unwrap();
    let mut table: BTreeMap<(Expect, String), usize> = BTreeMap::new();
    let mut unargued = Vec::new();
    let mut refusals: BTreeMap<String, usize> = BTreeMap::new();
    let mut times: Vec<f64> = Vec::new();
    for o in &results {
        *table.entry((o.expect, o.verdict.clone())).or_default() += 1;
        let decided = o.verdict == "PASS" || o.verdict == "FAIL";
        if decided {
            times.push(o.seconds);
        }
        let disagrees = match o.expect {
            Expect::Pass => o.verdict == "FAIL",
            Expect::Fail => o.verdict == "PASS",
            Expect::ToolError => false,
        };
        if disagrees && !known.contains(&format!("`{}`", o.kernel)) {
            unargued.push(format!(
                "{} ({:?} expected, {})",
                o.kernel, o.expect, o.verdict
            ));
        }
        if o.verdict == "ERROR" {
            *refusals.entry(reason(&o.message)).or_default() += 1;
        }
    }
    let decided = times.len();
    times.sort_by(f64::total_cmp);
    let pct = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize];
    println!("| GPUVerify expects | gpumc | kernels |\n|---|---|---|");
    for ((e, v), n) in &table {
        println!("| {e:?} | {v} | {n} |");
    }
    println!(
        "\ndecided: {decided} of {}; seconds per decided kernel: median {:.2}, 90th percentile {:.2}, max {:.2}; over 5 s: {}",
        results.len(),
        pct(0.5),
        pct(0.9),
        pct(1.0),
        times.iter().filter(|&&t| t > 5.0).count()
    );
    println!("\n| refused because | kernels |\n|---|---|");
    let mut by_count: Vec<(&String, &usize)> = refusals.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (r, n) in by_count {
        println!("| {r} | {n} |");
    }
    assert!(
        unargued.is_empty(),
        "decided disagreements with GPUVerify not argued in docs/KNOWN-DIFFERENCES.md:\n{}",
        unargued.join("\n")
    );
    assert!(decided >= MIN_DECIDED, "only {decided} kernels decided");
}

/// A small launch of the kernel's dimensionality (work-groups of four
/// work-items, two work-groups), which the concrete engine takes.
fn small_launch(text: &str) -> Vec<String> {
    let (_, launch) = header(text);
    let dims = launch
        .iter()
        .find_map(|w| w.strip_prefix("--local_size="))
        .map_or(1, |v| v.trim_matches(['[', ']']).split(',').count());
    match dims {
        1 => vec!["--local_size=4".into(), "--num_groups=2".into()],
        2 => vec!["--local_size=2,2".into(), "--num_groups=2,1".into()],
        _ => vec!["--local_size=2,2,1".into(), "--num_groups=2,1,1".into()],
    }
}

/// The verdict of `gpumc check --property races --engine ENGINE` at a
/// small launch (`?` when the output is not a report).
fn verdict_with(path: &Path, engine: &str, launch: &[String]) -> String {
    let p = path.display().to_string();
    let mut args = vec![
        "check",
        "--property",
        "races",
        "--json",
        "--timeout",
        "10",
        "--engine",
        engine,
        &p,
    ];
    args.extend(launch.iter().map(String::as_str));
    let (_, out, _) = gpumc_testutil::run_env(env!("CARGO_BIN_EXE_gpumc"), &args, &[]);
    serde_json::from_str::<serde_json::Value>(&out)
        .ok()
        .and_then(|v| {
            let r = v
                .get("results")
                .and_then(|r| r.get(0))
                .unwrap_or(&v)
                .clone();
            r["verdict"].as_str().map(str::to_string)
        })
        .unwrap_or_else(|| "?".into())
}

/// The two-thread (parametric) engine against the concrete (symbolic)
/// one on GPUVerify's kernels at a small launch both take: where both
/// decide, they agree. Every sixth kernel (all with
/// `GPUMC_GPUVERIFY_ALL`; 279 of 486 decided by both, 0 disagreements,
/// 2026-11-29).
#[test]
fn the_two_thread_engine_agrees_with_the_concrete_one_on_gpuverify_kernels() {
    let Some(root) = corpus() else { return };
    let mut files = Vec::new();
    kernels(root, &mut files);
    let step = if std::env::var_os("GPUMC_GPUVERIFY_ALL").is_some() {
        1
    } else {
        6
    };
    let files: Vec<PathBuf> = files.into_iter().step_by(step).collect();
    let results = on_two_workers(files, |f| {
        let launch = small_launch(&std::fs::read_to_string(f).unwrap());
        let a = verdict_with(f, "parametric", &launch);
        let b = verdict_with(f, "symbolic", &launch);
        (f.to_path_buf(), a, b)
    });
    let decided = |v: &str| v == "PASS" || v == "FAIL";
    let both: Vec<_> = results
        .iter()
        .filter(|(_, a, b)| decided(a) && decided(b))
        .collect();
    let differ: Vec<String> = both
        .iter()
        .filter(|(_, a, b)| a != b)
        .map(|(f, a, b)| format!("{}: parametric {a}, symbolic {b}", f.display()))
        .collect();
    eprintln!(
        "{} kernels, {} decided by both engines, {} disagree",
        results.len(),
        both.len(),
        differ.len()
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(
        both.len() * 3 > results.len(),
        "too few kernels decided by both"
    );
}
