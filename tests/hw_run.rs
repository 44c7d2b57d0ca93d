//! `gpumc run` end to end on the reference interpreter (no GPU needed):
//! text and JSON reports, exit statuses, violations against a model, and
//! campaigns that survive being killed.

mod hw;

use hw::gpumc;
use std::path::{Path, PathBuf};
use std::process::Output;

fn run(args: &[&str]) -> Output {
    gpumc().args(args).output().expect("gpumc runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-hwrun-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SB: &str = r#"Vulkan SB
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | st.atom.dv.sc0 y, 1  ;
 ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn text_report_has_the_histogram_the_observation_and_the_verdict() {
    let d = tmp("text");
    let f = write(&d, "sb.litmus", SB);
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "3",
        "--seed",
        "5",
        f.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("Histogram (3 states)"), "{out}");
    assert!(out.contains("Observation SB Never 0 "), "{out}");
    assert!(
        out.contains("Condition exists (P0:r0 == 0 /\\ P1:r1 == 0) is NOT validated"),
        "{out}"
    );
    assert!(
        out.contains("Allowed by vulkan but not observed: P0:r0=0; P1:r1=0;"),
        "{out}"
    );
    assert!(out.contains("Conformance OK"), "{out}");
    assert!(out.contains("seed 5"), "{out}");
    assert!(out.contains("1 test: 1 conform"), "{out}");
}

#[test]
fn json_reports_carry_every_field_and_histograms_sum_to_launches_times_instances() {
    let d = tmp("json");
    let f = write(&d, "sb.litmus", SB);
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "4",
        "--seed",
        "1",
        "--json",
        f.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let line = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON object");
    for k in [
        "file",
        "backend",
        "device",
        "iterations",
        "instances",
        "histogram",
        "violations",
        "observation",
        "rate_per_s",
        "params",
        "seed",
    ] {
        assert!(v.get(k).is_some(), "missing {k}: {v}");
    }
    let sum: u64 = v["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["count"].as_u64().unwrap())
        .sum();
    assert_eq!(
        sum,
        v["iterations"].as_u64().unwrap() * v["instances"].as_u64().unwrap()
    );
    for e in v["histogram"].as_array().unwrap() {
        assert_eq!(e["allowed"], true);
        assert!(e["state"].is_string() && e["condition"].is_boolean());
    }
    assert_eq!(v["observation"]["kind"], "Never");
}

#[test]
fn a_state_the_model_forbids_is_a_violation_with_exit_status_1() {
    let d = tmp("viol");
    let f = write(&d, "sb.litmus", SB);
    // A model in which no thread may read another thread's write: the
    // interleavings the interpreter runs break it.
    let m = write(&d, "isolated.cat", "isolated\nempty rf & ext as isolated\n");
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--seed",
        "3",
        "--model",
        m.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("VIOLATION: forbidden by"), "{out}");
    assert!(out.contains("1 with violations"), "{out}");
}

#[test]
fn unsupported_tests_say_why_and_exit_2_unless_skipped() {
    let d = tmp("unsup");
    let f = write(
        &d,
        "ssw.litmus",
        "Vulkan S\n{ x=0; }\n{ ssw 0 1; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, x ;\nexists (P1:r0 == 1)\n",
    );
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        f.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("UNSUPPORTED") && out.contains("ssw"), "{out}");
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--skip-unsupported",
        f.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_options_are_usage_errors() {
    let d = tmp("usage");
    let f = write(&d, "sb.litmus", SB);
    let f = f.to_str().unwrap();
    for args in [
        vec!["run", "--backend", "interp", "--preset", "nope", f],
        vec!["run", "--backend", "interp", "--set", "nope=1", f],
        vec!["run", "--backend", "interp", "--set", "fuel", f],
        vec!["run", "--backend", "interp", "--watchdog", "0", f],
        vec![
            "run",
            "--backend",
            "interp",
            d.join("empty-dir-none").to_str().unwrap(),
        ],
    ] {
        let o = run(&args);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(!o.stderr.is_empty() || !o.stdout.is_empty());
    }
}

/// Totals of a campaign journal: (tests, instances, per-state counts).
fn totals(dir: &Path) -> (usize, u64, std::collections::BTreeMap<String, u64>) {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut states = std::collections::BTreeMap::new();
    let mut n = 0;
    let mut inst = 0;
    for line in text.lines().filter(|l| !l.is_empty()) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let r = &v["report"];
        if r.is_null() {
            // The line that says a test started.
            continue;
        }
        n += 1;
        for e in r["histogram"].as_array().unwrap() {
            inst += e["count"].as_u64().unwrap();
            *states
                .entry(format!("{}|{}", r["file"], e["state"]))
                .or_default() += e["count"].as_u64().unwrap();
        }
    }
    (n, inst, states)
}

#[test]
fn a_killed_campaign_resumes_and_ends_with_the_same_totals() {
    let d = tmp("campaign");
    let tests = d.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    for k in 0..8 {
        write(
            &tests,
            &format!("sb{k}.litmus"),
            &SB.replace("Vulkan SB", &format!("Vulkan SB{k}")),
        );
    }
    let args = |out: &Path| {
        vec![
            "run".to_string(),
            "--backend".into(),
            "interp".into(),
            "--iterations".into(),
            "40".into(),
            "--seed".into(),
            "11".into(),
            "--out".into(),
            out.display().to_string(),
            tests.display().to_string(),
        ]
    };
    // Uninterrupted.
    let whole = d.join("whole");
    let o = gpumc().args(args(&whole)).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    // Killed after the second result, then resumed.
    let part = d.join("part");
    let mut child = gpumc()
        .args(args(&part))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let journal = part.join("results.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 2 || std::time::Instant::now() > deadline {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    let (before, _, _) = totals(&part);
    assert!(
        before < 8,
        "the campaign was killed before it ended ({before} tests done)"
    );
    let o = gpumc().args(args(&part)).output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let (n_whole, i_whole, s_whole) = totals(&whole);
    let (n_part, i_part, s_part) = totals(&part);
    assert_eq!(n_whole, 8);
    assert_eq!(n_part, 8, "nothing repeated, nothing lost");
    assert_eq!(i_whole, i_part);
    assert_eq!(s_whole, s_part, "the same outcomes, state by state");
    // A third run repeats nothing.
    let o = gpumc().args(args(&part)).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(totals(&part).0, 8);
}

/// Every test the harness runs, run on the sequentially consistent
/// interpreter: every state it reaches must be allowed by the model (SC is
/// the strongest behaviour), so a violation here is a bug in gpumc — in
/// the lowering, the plan, the decoding or the judgement.
fn conforms_on_the_interpreter(dir: &Path, at_least: usize) {
    if !dir.exists() {
        eprintln!("SKIP: {} not found", dir.display());
        return;
    }
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--seed",
        "4",
        "--skip-unsupported",
        "--json",
        dir.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let mut ok = 0;
    for line in out.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        match r["status"].as_str().unwrap() {
            "ok" => ok += 1,
            "unsupported" => assert!(r["message"].as_str().unwrap().contains("unsupported")),
            s => panic!("{}: {s}: {} {}", r["file"], r["violations"], r["message"]),
        }
        hw::assert_complete(&r);
        let n = |k: &str| r[k].as_u64().unwrap_or(0);
        assert_eq!(n("lost"), 0, "{}: the interpreter loses nothing", r["file"]);
    }
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(ok >= at_least, "{ok} tests of {} ran", dir.display());
}

#[test]
fn the_ptx_corpus_conforms_on_the_interpreter() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m/litmus/PTX");
    conforms_on_the_interpreter(&root, 580);
}

#[test]
fn the_vulkan_corpus_conforms_on_the_interpreter() {
    let root =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m/litmus/VULKAN");
    conforms_on_the_interpreter(&root, 630);
}

#[test]
fn the_thesis_tests_conform_on_the_interpreter() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/thesis");
    // 119 GPU_PTX tests and 99 Vulkan translations: every one runs.
    conforms_on_the_interpreter(&root, 218);
}

#[test]
fn emit_writes_the_generated_kernels() {
    let d = tmp("emit");
    let f = write(&d, "sb.litmus", SB);
    let out = d.join("kernels");
    let ptx = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("examples/thesis/D-cta_S-ker-Global/MP.litmus");
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--emit",
        out.to_str().unwrap(),
        f.to_str().unwrap(),
        ptx.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let spv = std::fs::read(out.join("SB.spv")).unwrap();
    assert_eq!(
        &spv[..4],
        &0x0723_0203u32.to_le_bytes(),
        "SPIR-V magic number"
    );
    let text = std::fs::read_to_string(out.join("MP.ptx")).unwrap();
    assert!(
        text.contains(".visible .entry") && text.contains("ld.global.cg"),
        "{text}"
    );
}

/// `tune` saves nothing when no trial showed the weak outcome: the
/// sequentially consistent interpreter never shows SB's.
#[test]
fn tuning_that_saw_no_weak_outcome_saves_nothing() {
    let dir = tmp("tune-none");
    let t = write(&dir, "sb.litmus", SB);
    let saved = dir.join("best.json");
    let o = run(&[
        "tune",
        "--backend",
        "interp",
        "--trials",
        "1",
        "--iterations",
        "1",
        "--seed",
        "1",
        "--out",
        saved.to_str().unwrap(),
        t.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("no trial showed a weak outcome"), "{err}");
    assert!(!saved.exists());
}

/// A conformance run says what it established: the condition's state,
/// forbidden by the model, never observed (text, JSON, HTML).
#[test]
fn a_run_lists_the_forbidden_states_it_never_observed() {
    let mp = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/thesis/vulkan/D-cta_S-ker-Global/MP+membar.gls.litmus");
    let mp = mp.to_str().unwrap();
    let dir = tmp("forbidden");
    let html = dir.join("run.html");
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--seed",
        "1",
        "--html",
        html.to_str().unwrap(),
        mp,
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("Forbidden by vulkan, never observed: P1:r1=1; P1:r2=0;"),
        "{out}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("forbidden, never observed"));
    let o = run(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--seed",
        "1",
        "--json",
        mp,
    ]);
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().next().unwrap()).unwrap();
    assert_eq!(
        v["forbidden_unseen"],
        serde_json::json!(["P1:r1=1; P1:r2=0;"])
    );
}
