//! `gpumc mapping check` end to end: exit statuses (0 sound, 1
//! counterexample, 2 bad input), the counterexample's litmus files checked
//! again with `gpumc check`, JSON lines, errors with positions.

use std::path::PathBuf;

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-mapping-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_ptx_mapping_has_no_counterexample_up_to_3_events() {
    let (code, out, err) = gpumc(&["mapping", "check", "--to", "ptx-v7.5", "--events", "3"]);
    assert_eq!(code, 0, "{out}{err}");
    for axiom in ["coherence", "atomicity", "sc"] {
        assert!(
            out.contains(&format!("{axiom}: no counterexample up to 3 events")),
            "{out}"
        );
    }
    assert!(!out.contains("no-thin-air"), "{out}");
    assert!(
        err.contains("scoped-c11 -> ptx-v7.5 with mapping ptx (built-in)"),
        "{err}"
    );
}

#[test]
fn the_flawed_rmw_sc_mapping_gives_litmus_tests_that_show_it() {
    let dir = scratch("fig12");
    let d = dir.to_str().unwrap();
    let (code, out, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v6.0",
        "--mapping",
        "examples/mappings/ptx-rmw-sc-no-release.map",
        "--events",
        "4",
        "--axiom",
        "coherence",
        "--out",
        d,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("coherence: COUNTEREXAMPLE with 4 events"),
        "{out}"
    );
    assert!(out.contains("atom.acquire"), "{out}");
    let src = dir.join("coherence-source.litmus");
    let tgt = dir.join("coherence-target.litmus");
    // The outcome is forbidden in C (scoped-c11) and allowed by PTX.
    let (_, o, e) = gpumc(&["check", src.to_str().unwrap()]);
    assert!(o.contains("Observation Never"), "{o}{e}");
    let (c, o, e) = gpumc(&["check", "--model", "ptx-v6.0", tgt.to_str().unwrap()]);
    assert_eq!(c, 0, "{o}{e}");
    assert!(o.contains("Observation Sometimes"), "{o}");
    // The built-in mapping compiles the same test so that PTX forbids it.
    let fixed = dir.join("fixed.litmus");
    let (c, o, e) = gpumc(&[
        "compile",
        "--to",
        "ptx",
        src.to_str().unwrap(),
        "--out",
        fixed.to_str().unwrap(),
    ]);
    assert_eq!(c, 0, "{o}{e}");
    let (_, o, e) = gpumc(&["check", "--model", "ptx-v6.0", fixed.to_str().unwrap()]);
    assert!(o.contains("Observation Never"), "{o}{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_lines_one_per_axiom() {
    let (code, out, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "vulkan",
        "--events",
        "4",
        "--json",
        "--descoped",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    let get = |i: usize, k: &str| lines[i][k].clone();
    assert_eq!(get(0, "axiom"), "coherence");
    assert_eq!(get(0, "result"), "sound");
    assert_eq!(get(0, "descoped"), true);
    // Vulkan has no seq_cst: store buffering with seq_cst atomics.
    assert_eq!(get(2, "axiom"), "sc");
    assert_eq!(get(2, "result"), "counterexample");
    let cx = &lines[2]["counterexample"];
    assert!(cx["source"].as_str().unwrap().starts_with("C sc-source"));
    assert!(cx["target"]
        .as_str()
        .unwrap()
        .starts_with("VULKAN sc-target"));
    assert!(!cx["source_rf"].as_array().unwrap().is_empty());
    assert!(err.is_empty(), "no bar, no banner with --json: {err}");
}

#[test]
fn bad_input_is_exit_status_2() {
    let dir = scratch("bad");
    let bad = dir.join("bad.map");
    std::fs::write(
        &bad,
        "target ptx\nload na -> ld.weak\nload rlx $s -> ld.bogus.$s\n",
    )
    .unwrap();
    let b = bad.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--to", "ptx-v6.0", "--events", "3", "--axiom", "nope"],
            "no axiom `nope`",
        ),
        (vec!["--to", "ptx-v6.0", "--events", "0"], "at least 1"),
        (
            vec!["--to", "ptx-v6.0", "--events", "3", "--engine", "x"],
            "unknown engine",
        ),
        (vec!["--to", "nomodel", "--events", "3"], "unknown model"),
        (
            vec!["--to", "vulkan", "--mapping", "ptx", "--events", "3"],
            "compiles to ptx",
        ),
        (
            vec!["--to", "ptx-v6.0", "--mapping", b, "--events", "3"],
            "bad.map:3:",
        ),
    ];
    for (args, msg) in cases {
        let mut all = vec!["mapping", "check"];
        all.extend(&args);
        let (code, out, err) = gpumc(&all);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found by fuzzing: a rule line with nothing before `->` panicked (an
/// index past the words of the left side) in every command that reads a
/// mapping. Now an error at its position, exit status 2.
#[test]
fn a_rule_without_its_operation_is_an_error_in_every_mapping_command() {
    let dir = scratch("arrow");
    let f = dir.join("arrow.map");
    std::fs::write(&f, "target ptx\n->\n").unwrap();
    let m = f.to_str().unwrap();
    let commands: [&[&str]; 3] = [
        &["compile", "--check-mapping", m],
        &[
            "compile",
            "--to",
            "ptx",
            "--mapping",
            m,
            "examples/c/CoRR.litmus",
        ],
        &[
            "mapping",
            "check",
            "--to",
            "ptx-v7.5",
            "--events",
            "2",
            "--mapping",
            m,
        ],
    ];
    for args in commands {
        let (code, out, err) = gpumc(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("arrow.map:2:1: missing the operation before `->`"),
            "{args:?}: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--timeout` stops each axiom's search: without a counterexample the
/// axiom is UNDECIDED (JSON `"result": "undecided"`) and the status is 3;
/// a counterexample found in time is still the answer (status 1).
#[test]
fn timeout_leaves_an_axiom_undecided_with_exit_status_3() {
    // A millisecond: the first batch of 5-event shapes takes longer.
    let (code, out, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v6.0",
        "--events",
        "5",
        "--axiom",
        "coherence",
        "--timeout",
        "0.001",
        "--json",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["result"], "undecided");
    assert!(v["shapes"].as_u64().unwrap() > 0);
    let (code, out, _) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v6.0",
        "--events",
        "5",
        "--axiom",
        "coherence",
        "--timeout",
        "0.001",
    ]);
    assert_eq!(code, 3);
    assert!(
        out.starts_with("coherence: UNDECIDED: --timeout stopped the search"),
        "{out}"
    );
    // The flawed RMW_SC mapping's counterexample comes in the first batch.
    let (code, out, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v6.0",
        "--events",
        "4",
        "--axiom",
        "coherence",
        "--mapping",
        "examples/mappings/ptx-rmw-sc-no-release.map",
        "--timeout",
        "600",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let (code, _, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v6.0",
        "--events",
        "3",
        "--timeout",
        "5",
        "--shard",
        "0/2",
        "--shard-out",
        "/tmp",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--timeout is not available with --shard"),
        "{err}"
    );
}

/// Failing compare-exchanges are in the searched programs: an acquire
/// compare-exchange compiled relaxed is found at 4 events with a failing
/// one (a read with its failure order), and the written tests say so
/// again under `gpumc check` (the C test's outcome forbidden, the PTX
/// test's allowed).
#[test]
fn a_failing_compare_exchange_is_searched_and_its_tests_recheck() {
    let dir = scratch("casfail");
    let text = std::fs::read_to_string("crates/compile/mappings/ptx.map").unwrap();
    let weak = text.replace(
        "rmw   acq     $s -> atom.acquire.$s",
        "rmw   acq     $s -> atom.relaxed.$s",
    );
    assert_ne!(weak, text);
    let map = dir.join("cas-relaxed.map");
    std::fs::write(&map, weak).unwrap();
    let (code, out, err) = gpumc(&[
        "mapping",
        "check",
        "--to",
        "ptx-v7.5",
        "--events",
        "4",
        "--axiom",
        "coherence",
        "--mapping",
        map.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let src = std::fs::read_to_string(dir.join("coherence-source.litmus")).unwrap();
    assert!(
        src.contains("atomic_compare_exchange_strong_explicit(x, &r0, -1, memory_order_acquire, memory_order_acquire"),
        "{src}"
    );
    for (file, verdict) in [
        ("coherence-source.litmus", "FAIL"),
        ("coherence-target.litmus", "PASS"),
    ] {
        let (_, out, err) = gpumc(&["check", dir.join(file).to_str().unwrap()]);
        assert!(out.contains(&format!(": {verdict} ")), "{file}: {out}{err}");
    }
}

/// Branches on read values: a source model that keeps control dependencies
/// (`crates/mapping/tests/models/c-ctrl-order.cat`) is violated on Vulkan
/// by load buffering through two branches (4 events), not on PTX (whose
/// no-thin-air axiom keeps them); straight-line programs cannot violate
/// it. The written tests say so again, the branches' values included.
#[test]
fn branches_on_read_values_are_searched_and_their_tests_recheck() {
    let dir = scratch("branches");
    let model = "crates/mapping/tests/models/c-ctrl-order.cat";
    let check = |to: &str, extra: &[&str]| {
        let mut args = vec![
            "mapping", "check", "--from", model, "--to", to, "--events", "4",
        ];
        args.extend_from_slice(extra);
        gpumc(&args)
    };
    let (code, out, err) = check("vulkan", &["--out", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("branches on read values"), "{err}");
    let src = std::fs::read_to_string(dir.join("ctrl-order-source.litmus")).unwrap();
    assert_eq!(src.matches("if (r0 == ").count(), 2, "{src}");
    let (_, out, err) = gpumc(&[
        "check",
        "--model",
        model,
        dir.join("ctrl-order-source.litmus").to_str().unwrap(),
    ]);
    assert!(out.contains(": FAIL "), "{out}{err}");
    let (_, out, err) = gpumc(&[
        "check",
        dir.join("ctrl-order-target.litmus").to_str().unwrap(),
    ]);
    assert!(out.contains(": PASS "), "{out}{err}");
    let (code, out, err) = check("vulkan", &["--no-branches"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("straight-line"), "{err}");
    let (code, out, err) = check("ptx-v7.5", &[]);
    assert_eq!(code, 0, "{out}{err}");
}
