//! What `gpumc check` says about a test's results, from either engine:
//! the engine and whether it counted executions, the reachable states and
//! whether the list is complete, herd's observation, tests without a
//! condition, and herd7's result block (`--format herd`, golden files in
//! `tests/golden/herd/`; `GPUMC_BLESS=1` rewrites them).

use std::path::{Path, PathBuf};

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["check", "--json"];
    all.extend(args);
    let (code, out, err) = gpumc(&all);
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(out.trim()).expect("one JSON object")
}

fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gpumc-results-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// herd7's block without its `Time` line (herd's own tests drop it too).
fn without_time(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn herd_format_matches_the_golden_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("tests/golden/herd");
    let bless = std::env::var_os("GPUMC_BLESS").is_some();
    // Our examples, and tests with herdtools' `Key=Value` header lines
    // (`Hash=` is repeated in the block).
    let mut examples: Vec<PathBuf> = ["examples", "tests/herd"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 5, "{examples:?}");
    for ex in &examples {
        let rel = ex.strip_prefix(root).unwrap().display().to_string();
        let want_file = golden.join(format!(
            "{}.herd",
            ex.file_stem().unwrap().to_string_lossy()
        ));
        // Both engines print the same block here: as many executions as
        // states in these tests, so the symbolic engine's state counts
        // equal the explicit engine's execution counts.
        for engine in ["explicit", "symbolic"] {
            let (code, out, err) = gpumc(&["check", "--format", "herd", "--engine", engine, &rel]);
            assert_eq!(code, 0, "{err}");
            assert!(
                out.lines()
                    .any(|l| l.starts_with("Time ") && l.split(' ').count() == 3),
                "{out}"
            );
            let got = without_time(&out);
            if bless && engine == "explicit" {
                std::fs::create_dir_all(&golden).unwrap();
                std::fs::write(&want_file, &got).unwrap();
            }
            let want = std::fs::read_to_string(&want_file).unwrap_or_else(|e| {
                panic!("{}: {e} (GPUMC_BLESS=1 writes it)", want_file.display())
            });
            assert_eq!(got, want, "{rel}, {engine} engine");
        }
    }
}

#[test]
fn both_engines_name_themselves_and_the_symbolic_one_counts_no_executions() {
    let e = json(&["--engine", "explicit", "examples/MP-weak.litmus"]);
    assert_eq!(e["engine"], "explicit");
    assert_eq!(e["executions"], 4);
    assert_eq!(e["positive"], 1);
    assert_eq!(e["negative"], 3);
    let s = json(&["--engine", "symbolic", "examples/MP-weak.litmus"]);
    assert_eq!(s["engine"], "symbolic");
    assert!(s["executions"].is_null(), "{s}");
    assert!(s["positive"].is_null() && s["negative"].is_null(), "{s}");
    for v in [&e, &s] {
        assert_eq!(v["test"], "MP-weak");
        assert_eq!(v["verdict"], "PASS");
        assert_eq!(v["condition"], "exists (P1:r0=1 /\\ P1:r1=0)");
        assert_eq!(v["observation"], "Sometimes");
        assert_eq!(v["states"].as_array().unwrap().len(), 4, "{v}");
        assert_eq!(v["states_complete"], true);
        assert_eq!(v["bound_hit"], false);
    }
    assert_eq!(e["states"], s["states"]);

    let (_, out, _) = gpumc(&["check", "--engine", "symbolic", "examples/MP-weak.litmus"]);
    assert!(
        out.contains("(model ptx-v7.5, symbolic engine, executions not counted,"),
        "{out}"
    );
    assert!(out.contains("  States 4\n"), "{out}");
    assert!(
        out.contains("  Observation Sometimes (executions not counted)"),
        "{out}"
    );
    let (_, out, _) = gpumc(&["check", "--engine", "explicit", "examples/MP-weak.litmus"]);
    assert!(
        out.contains("(model ptx-v7.5, explicit engine, 4 executions,"),
        "{out}"
    );
    assert!(
        out.contains("  Observation Sometimes (1 positive, 3 negative executions)"),
        "{out}"
    );
    assert!(
        out.contains("  Condition exists (P1:r0=1 /\\ P1:r1=0)"),
        "{out}"
    );

    // Races on the symbolic engine: not counted either (nor on the
    // parametric one, which `auto` tries first on a SPIR-V kernel).
    let r = json(&[
        "--property",
        "races",
        "--engine",
        "symbolic",
        "examples/race-if-n.spvasm",
    ]);
    assert_eq!(r["engine"], "symbolic", "{r}");
    assert!(r["executions"].is_null(), "{r}");
    let r = json(&["--property", "races", "examples/race-if-n.spvasm"]);
    assert_eq!(r["engine"], "parametric", "{r}");
    assert!(r["executions"].is_null(), "{r}");
}

#[test]
fn a_cut_list_of_states_says_so() {
    let v = json(&[
        "--engine",
        "symbolic",
        "--max-states",
        "2",
        "examples/MP-weak.litmus",
    ]);
    assert_eq!(v["states"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["states_complete"], false);
    assert!(
        v["states_note"]
            .as_str()
            .unwrap()
            .contains("--max-states 2"),
        "{v}"
    );
    // The verdict and the observation do not depend on the list.
    assert_eq!(v["verdict"], "PASS");
    assert_eq!(v["observation"], "Sometimes");
    let (_, out, _) = gpumc(&[
        "check",
        "--engine",
        "symbolic",
        "--max-states",
        "2",
        "examples/MP-weak.litmus",
    ]);
    assert!(out.contains("  States at least 2 ("), "{out}");
    let (_, out, _) = gpumc(&[
        "check",
        "--format",
        "herd",
        "--engine",
        "symbolic",
        "--max-states",
        "2",
        "examples/MP-weak.litmus",
    ]);
    assert!(out.contains("\nStates 2\n"), "{out}");
    assert!(
        out.contains("Warning: File \"examples/MP-weak.litmus\": the list of states is incomplete (the enumeration stopped at --max-states 2)."),
        "{out}"
    );

    // 0: the verdict only.
    let v = json(&[
        "--engine",
        "symbolic",
        "--max-states",
        "0",
        "examples/MP-weak.litmus",
    ]);
    assert_eq!(v["verdict"], "PASS");
    assert_eq!(v["states"].as_array().unwrap().len(), 0, "{v}");
    assert_eq!(v["states_complete"], false);
    // The explicit engine lists every state whatever the cap.
    let v = json(&[
        "--engine",
        "explicit",
        "--max-states",
        "2",
        "examples/MP-weak.litmus",
    ]);
    assert_eq!(v["states"].as_array().unwrap().len(), 4, "{v}");
    assert_eq!(v["states_complete"], true);
}

/// A test without `exists`/`~exists`/`forall`: its states, no PASS.
#[test]
fn a_test_without_a_condition_lists_its_states_and_claims_nothing() {
    let f = temp(
        "nocond.litmus",
        "PTX nocond\n\"Message passing without a condition\"\n{\nx=0;\nflag=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, flag ;\n st.weak flag, 1 | ld.weak r1, x ;\nlocations [P1:r0; P1:r1;]\n",
    );
    for engine in ["explicit", "symbolic"] {
        let (code, out, err) = gpumc(&["check", "--engine", engine, &f]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains(": no condition: 4 reachable states  ("),
            "{out}"
        );
        assert!(!out.contains("PASS"), "{out}");
        assert!(out.contains("  States 4\n"), "{out}");
        let v = json(&["--engine", engine, &f]);
        assert_eq!(v["verdict"], "NONE", "{v}");
        assert!(
            v["condition"].is_null() && v["observation"].is_null(),
            "{v}"
        );
        assert_eq!(v["states"].as_array().unwrap().len(), 4, "{v}");
        // herd7 reads a test without a condition as `forall (true)`.
        let (_, out, _) = gpumc(&["check", "--format", "herd", "--engine", engine, &f]);
        let out = without_time(&out);
        assert!(out.starts_with("Test nocond Required\nStates 4\n"), "{out}");
        assert!(
            // (weak accesses race: the PTX model's flag `dr` fires)
            out.contains("\nOk\nWitnesses\nPositive: 4 Negative: 0\nFlag dr\nCondition forall (true)\nObservation nocond Always 4 0\n"),
            "{out}"
        );
    }
    // A suite row expecting a verdict does not get one.
    let csv = temp("nocond.csv", &format!("{f},1\n"));
    let (code, out, _) = gpumc(&["suite", "--expected", &csv, "--root", "/"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("expected PASS got NONE"), "{out}");
}

/// herd's `Forbidden`/`Required` kinds, the witness counts swapped for
/// `~exists`, and `Loop` where the bound cut an execution.
#[test]
fn herd_block_kinds_and_loop() {
    let f = temp(
        "count.litmus",
        "PTX count\n\"A thread increments x until it has done so twice\"\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n atom.relaxed.gpu.add r0, x, 1 ;\n bne r0, 0, LC01 ;\n goto LC00 ;\n LC01: ;\nforall\n(x == 2)\n",
    );
    for engine in ["explicit", "symbolic"] {
        let (_, out, _) = gpumc(&[
            "check", "--format", "herd", "--engine", engine, "--bound", "1", &f,
        ]);
        let out = without_time(&out);
        // Within the bound no execution completes: nothing contradicts
        // `forall`, but the bound cut executions.
        assert!(
            out.starts_with("Test count Required\nStates 0\nLoop Ok\n"),
            "{engine}: {out}"
        );
        assert!(out.contains("Condition forall (x=2)\n"), "{out}");
        let (_, out, _) = gpumc(&[
            "check", "--format", "herd", "--engine", engine, "--bound", "2", &f,
        ]);
        let out = without_time(&out);
        assert!(
            out.starts_with(
                "Test count Required\nStates 1\nx=2;\nOk\nWitnesses\nPositive: 1 Negative: 0\n"
            ),
            "{engine}: {out}"
        );
        assert!(out.contains("Observation count Always 1 0\n"), "{out}");
    }
    let (_, out, _) = gpumc(&["check", "--format", "herd", "examples/MP-relacq.litmus"]);
    assert!(
        out.starts_with("Test MP-relacq Forbidden\nStates 3\n"),
        "{out}"
    );
    // herd counts `~exists` witnesses against the proposition.
    assert!(
        out.contains("Ok\nWitnesses\nPositive: 3 Negative: 0\n"),
        "{out}"
    );
    assert!(out.contains("Observation MP-relacq Never 0 3\n"), "{out}");
}

/// herd7's `Flag` lines: the model's flag axioms that fire in some
/// execution, in the herd block and (for C, where a race is undefined
/// behaviour) in the default output and the JSON; none for a race-free test.
#[test]
fn flagged_executions_are_reported_as_herd_does() {
    let racy = temp(
        "racy-mp.litmus",
        "C racy-mp\n{ }\nP0 (int* x, atomic_int* y) {\n  *x = 1;\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\nP1 (int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  int r1 = *x;\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
    );
    for engine in ["explicit", "symbolic"] {
        let (code, out, err) = gpumc(&["check", "--format", "herd", "--engine", engine, &racy]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("\nPositive: 1 Negative: 3\nFlag race\nCondition "),
            "{engine}: {out}"
        );
        let (_, out, _) = gpumc(&["check", "--engine", engine, &racy]);
        assert!(
            out.contains("  Flag race: the model flags some execution (racy: C and OpenCL make a data race undefined behaviour, so the safety verdict is meaningless)"),
            "{engine}: {out}"
        );
        let v = json(&["--engine", engine, &racy]);
        assert_eq!(v["flags"], serde_json::json!(["race"]), "{v}");
    }
    let v = json(&["tests/herd/SB+rlx-diy.litmus"]);
    assert!(v.get("flags").is_none(), "{v}");
    // A model in herd's dialect that excludes pairs of atomics by herd's
    // set `A`: relaxed atomics do not race, a plain access does.
    let model = "tests/herd/c-data-races.cat";
    let v = json(&["--model", model, &racy]);
    assert_eq!(v["flags"], serde_json::json!(["data-race"]), "{v}");
    let v = json(&["--model", model, "tests/herd/SB+rlx-diy.litmus"]);
    assert!(v.get("flags").is_none(), "{v}");
    let (_, out, _) = gpumc(&["check", "--format", "herd", "tests/herd/SB+rlx-diy.litmus"]);
    assert!(!out.contains("Flag"), "{out}");
}

/// herd7's `undefined_unless`: an execution in which the check fails stays
/// (the states and counts are those without the check), and is undefined:
/// the herd block says `Undef` instead of `Ok`/`No` and `Flag *undef*`;
/// the default output and the JSON name the check. A check that holds
/// everywhere (`acyclic hb`) changes nothing. `{% … %}` is skipped.
#[test]
fn undefined_unless_marks_executions_undefined_as_herd_does() {
    let racy = temp(
        "racy-mp-undef.litmus",
        "C racy-mp-undef\n{ }\nP0 (int* x, atomic_int* y) {\n  *x = 1;\n  atomic_store_explicit(y, 1, memory_order_relaxed);\n}\nP1 (int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n  int r1 = *x;\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
    );
    let model = "tests/herd/c-undefined-races.cat";
    let flags_model = "tests/herd/c-data-races.cat";
    for engine in ["explicit", "symbolic"] {
        let herd = |m: &str, test: &str| {
            let (code, out, err) = gpumc(&[
                "check", "--format", "herd", "--engine", engine, "--model", m, test,
            ]);
            assert_eq!(code, 0, "{err}");
            out
        };
        let out = herd(model, &racy);
        assert!(
            out.contains("\nUndef\nWitnesses\nPositive: 1 Negative: 3\nFlag *undef*\nCondition "),
            "{engine}: {out}"
        );
        // The same states and counts as under the model that only flags.
        let flagged = herd(flags_model, &racy);
        let states = |o: &str| {
            o.split("Witnesses")
                .next()
                .unwrap()
                .replace("Undef\n", "Ok\n")
        };
        assert_eq!(states(&out), states(&flagged), "{engine}");
        // Race-free: no mark at all.
        let out = herd(model, "tests/herd/SB+rlx-diy.litmus");
        assert!(
            !out.contains("Undef") && !out.contains("Flag"),
            "{engine}: {out}"
        );
        let (_, out, _) = gpumc(&["check", "--engine", engine, "--model", model, &racy]);
        assert!(
            out.contains("  Undefined: the model's check `data-race` (`undefined_unless`) fails in some execution"),
            "{engine}: {out}"
        );
        assert!(!out.contains("hb-order"), "{engine}: {out}");
        // A model file is checked with herd7's total `co`, and says so.
        assert!(
            out.contains(
                "  Coherence: total per location (herd7's, for a model given as a file)\n"
            ),
            "{engine}: {out}"
        );
        let v = json(&["--engine", engine, "--model", model, &racy]);
        assert_eq!(
            v["undefined_unless"],
            serde_json::json!(["data-race"]),
            "{v}"
        );
        assert!(v.get("flags").is_none(), "{v}");
        // The check's pairs are races too, as for a flag.
        let (_, out, _) = gpumc(&[
            "check",
            "--property",
            "races",
            "--engine",
            engine,
            "--model",
            model,
            &racy,
        ]);
        assert!(
            out.contains("FAIL") && out.contains("data-race"),
            "{engine}: {out}"
        );
    }
}

/// Execution counts as herd7's: an order between SC fences that no axiom
/// reads (a model without `sync_fence`, as herd's own are) is not
/// enumerated, so each execution counts once, not once per fence order.
/// Our PTX model reads the order, and keeps it.
#[test]
fn an_order_no_axiom_reads_does_not_multiply_executions() {
    let test = temp(
        "SB+fences-sc.litmus",
        "PTX SB+fences-sc\n{\nx=0;\ny=0;\n}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n fence.sc.gpu | fence.sc.gpu ;\n ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\nexists\n(P0:r0 == 0 /\\ P1:r1 == 0)\n",
    );
    let coherent = temp(
        "coherent-only.cat",
        "coherent-only\nacyclic po-loc | rf | co | fr\n",
    );
    let herd = |args: &[&str]| {
        let mut all = vec!["check", "--format", "herd", "--engine", "explicit", &test];
        all.extend_from_slice(args);
        let (code, out, err) = gpumc(&all);
        assert_eq!(code, 0, "{err}");
        out
    };
    // Four executions (one per pair of values read), not eight.
    let out = herd(&["--model", &coherent, "--co", "partial"]);
    assert!(out.contains("\nPositive: 1 Negative: 3\n"), "{out}");
    // The PTX model orders the fences (`sync_fence`): SB is forbidden.
    let out = herd(&["--model", "ptx-v7.5"]);
    assert!(out.contains("\nPositive: 0 Negative: 4\n"), "{out}");
}
