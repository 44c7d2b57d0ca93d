//! The `gpumc` binary: exit codes, JSON lines, error positions.

use std::path::Path;

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("gpumc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn check_example_human_and_json() {
    let (code, out, _) = gpumc(&["check", "examples/MP-relacq.litmus"]);
    assert_eq!(code, 0);
    assert!(out.contains("PASS"), "{out}");
    assert!(out.contains("States 3"), "{out}");

    let (code, out, _) = gpumc(&["check", "--json", "examples/MP-weak.litmus"]);
    assert_eq!(code, 0);
    let v = json_of(&out);
    for key in [
        "file",
        "verdict",
        "model",
        "time_ms",
        "executions",
        "states",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {out}");
    }
    assert_eq!(v["verdict"], "PASS");
    assert_eq!(v["model"], "ptx-v7.5");
    assert_eq!(v["executions"], 4);
    // exists that holds: the witness reaches the state.
    assert!(v["witness"]["events"].as_array().unwrap().len() >= 4);
}

/// The shipped GPUVerify-style kernel: the race needs the unset push
/// constant `n` to be non-zero, and the witness says which `n` it chose
/// (the concrete engine's witness; under `auto` the parametric engine
/// confirms the race first and names `n` in its message).
#[test]
fn example_race_needs_a_free_input() {
    let (code, out, _) = gpumc(&[
        "check",
        "--property",
        "races",
        "--engine",
        "symbolic",
        "--json",
        "examples/race-if-n.spvasm",
    ]);
    assert_eq!(code, 0, "{out}");
    let v = json_of(&out);
    assert_eq!(v["verdict"], "FAIL", "{out}");
    assert_eq!(v["engine"], "symbolic", "{out}");
    let n = v["witness"]["inputs"]["n"]
        .as_i64()
        .expect("the witness names n");
    assert_ne!(n, 0, "{out}");
    let (code, out, _) = gpumc(&[
        "check",
        "--property",
        "races",
        "--json",
        "examples/race-if-n.spvasm",
    ]);
    assert_eq!(code, 0, "{out}");
    let v = json_of(&out);
    assert_eq!(v["verdict"], "FAIL", "{out}");
    assert_eq!(v["engine"], "parametric", "{out}");
    let msg = v["message"].as_str().unwrap_or_default();
    let n: i64 = msg
        .split("n=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit() && c != '-').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert_ne!(n, 0, "{out}");
}

#[test]
fn explicit_model_choice() {
    let (code, out, _) = gpumc(&[
        "check",
        "--json",
        "--model",
        "ptx-v6.0",
        "examples/MP-relacq.litmus",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("\"model\":\"ptx-v6.0\""), "{out}");
    let (code, _, err) = gpumc(&[
        "check",
        "--model",
        "no-such-model",
        "examples/MP-relacq.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown model"), "{err}");
}

#[test]
fn malformed_litmus_gives_position_and_exit_2() {
    let f = temp(
        "bad.litmus",
        "PTX bad\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n frobnicate x, 1 ;\nexists (x == 1)\n",
    );
    let (code, out, _) = gpumc(&["check", &f]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("bad.litmus:6:"), "{out}");
    assert!(out.contains("ERROR"), "{out}");
}

#[test]
fn malformed_cat_gives_position_and_exit_2() {
    let m = temp("bad.cat", "bad\nlet x = po |\n");
    let (code, _, err) = gpumc(&["check", "--model", &m, "examples/MP-weak.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.cat:"), "{err}");
}

fn temp_bytes(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("gpumc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.display().to_string()
}

/// Found by fuzzing: a file that is not UTF-8 was reported without a
/// position ("stream did not contain valid UTF-8"). Every input format
/// the driver reads, the model and a mapping: the line and column of the
/// first bad byte.
#[test]
fn invalid_utf8_is_reported_at_the_first_bad_byte() {
    // `\xff` at line 2, column 4 of each (after three characters, one of
    // them two bytes long where the format allows it).
    let cases: &[(&str, &[u8], &[&str])] = &[
        ("u.litmus", b"PTX u\nab\xc3\xa9\xff\n", &["check"]),
        ("u.spvasm", b"; SPIR-V\n; \xc3\xa9\xff\n", &["check"]),
        (
            "u.ptx",
            b".version 7.0\n// \xff\n",
            &["check", "--block", "1"],
        ),
        ("u", b"C u\n{ x\xff\n", &["check"]),
    ];
    for (name, bytes, args) in cases {
        let f = temp_bytes(name, bytes);
        let mut a = args.to_vec();
        a.push(&f);
        let (code, out, err) = gpumc(&a);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(
            out.contains(&format!("{name}:2:4: invalid UTF-8")),
            "{name}: {out}{err}"
        );
    }
    // Standard input, named `<stdin>`.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(["check", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"PTX u\n{ x=0; }\n\xfe\n");
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("<stdin>:3:1: invalid UTF-8 (byte 0xFE)"),
        "{err}"
    );
    // A model, and a file it includes.
    let m = temp_bytes("u.cat", b"\"u\"\nlet a\xff = po\n");
    let (code, _, err) = gpumc(&["check", "--model", &m, "examples/MP-weak.litmus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("u.cat:2:6: invalid UTF-8"), "{err}");
    temp_bytes("u-inc.cat", b"let b = po\n\xff\n");
    let m = temp("u-top.cat", "\"t\"\ninclude \"u-inc.cat\"\nacyclic po\n");
    let (code, _, err) = gpumc(&["check", "--model", &m, "examples/MP-weak.litmus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("u-inc.cat:2:1: invalid UTF-8"), "{err}");
    // A mapping file.
    let map = temp_bytes("u.map", b"target ptx\nload rlx -> ld\xff\n");
    let (code, _, err) = gpumc(&["compile", "--check-mapping", &map]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("u.map:2:15: invalid UTF-8"), "{err}");
}

/// Found by fuzzing: a 50 MB token was echoed whole in its error (52 MB
/// of output). Every format quotes a short excerpt; here 5 MB tokens.
#[test]
fn a_huge_token_is_quoted_short_in_every_format() {
    let big = "x".repeat(5_000_000);
    let files = [
        (
            "big.litmus",
            format!("PTX big\n{{ x=0; }}\n P0 ;\n {big} ;\nexists (0:r0=0)\n"),
        ),
        (
            "bigc.litmus",
            format!("C big\n{{ x=0; }}\nP0(atomic_int* x) {{\n {big};\n}}\nexists (0:r0=0)\n"),
        ),
        ("big.ptx", format!(".version 7.0\n.target sm_70\n{big}\n")),
        ("big.spvasm", format!("; SPIR-V\n%a = Op{big}\n")),
    ];
    for (name, text) in &files {
        let f = temp(name, text);
        let (code, out, err) = gpumc(&["check", "--block", "1", &f]);
        assert_eq!(code, 2, "{name}: {}", &out[..out.len().min(300)]);
        assert!(
            out.len() + err.len() < 1000,
            "{name}: {} bytes",
            out.len() + err.len()
        );
        assert!(out.contains("xxxx…`"), "{name}: {out}");
    }
    let m = temp("big.cat", &format!("\"big\"\nacyclic {big}\n"));
    let (code, out, err) = gpumc(&["check", "--model", &m, "examples/MP-weak.litmus"]);
    assert_eq!(code, 2);
    assert!(
        out.len() + err.len() < 1000,
        "{} bytes",
        out.len() + err.len()
    );
    assert!(err.contains("unknown identifier `xxxx"), "{err}");
    let map = temp("big.map", &format!("target ptx\nload rlx -> {big}\n"));
    let (code, out, err) = gpumc(&["compile", "--check-mapping", &map]);
    assert_eq!(code, 2);
    assert!(
        out.len() + err.len() < 1000,
        "{} bytes",
        out.len() + err.len()
    );
}

#[test]
fn missing_file_and_bad_usage_exit_2() {
    // A missing path is that path's ERROR; the other files are still
    // checked and reported, and the exit status says something failed.
    let (code, out, _) = gpumc(&[
        "check",
        "does/not/exist.litmus",
        "examples/MP-relacq.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(
        out.contains("does/not/exist.litmus: ERROR") && out.contains("No such file"),
        "{out}"
    );
    assert!(out.contains("examples/MP-relacq.litmus: PASS"), "{out}");
    let (code, _, _) = gpumc(&["check", "--property", "nonsense", "examples/MP-weak.litmus"]);
    assert_eq!(code, 2);
}

#[test]
fn suite_reports_mismatches_and_exit_1() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let csv = temp(
        "suite.csv",
        "// comment\nexamples/MP-relacq.litmus,1\nexamples/MP-weak.litmus,0\n",
    );
    let (code, out, _) = gpumc(&[
        "suite",
        "--expected",
        &csv,
        "--root",
        root.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("mismatch: examples/MP-weak.litmus expected FAIL got PASS"),
        "{out}"
    );
    assert!(out.lines().any(|l| l == "1 passed, 1 failed"), "{out}");
}

#[test]
fn generated_family_checks() {
    let f = temp("mp4.litmus", "");
    let (code, _, _) = gpumc(&["gen", "mp", "--threads", "4", "--arch", "ptx", "--out", &f]);
    assert_eq!(code, 0);
    let (code, out, _) = gpumc(&["check", "--json", &f]);
    assert_eq!(code, 0);
    // Release/acquire chains forbid the stale read: `exists` does not hold.
    assert!(out.contains("\"verdict\":\"FAIL\""), "{out}");
}

/// A thread increments x until it has done so twice: x is 2 only after
/// the loop's second iteration.
const COUNT_TWICE: &str = "PTX count\n\"A thread increments x until it has done so twice\"\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n atom.relaxed.gpu.add r0, x, 1 ;\n bne r0, 0, LC01 ;\n goto LC00 ;\n LC01: ;\nexists\n(x == 2)\n";

/// The one JSON object of a `--json` run on one file.
fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out.trim()).expect("one JSON object")
}

/// An `UNKNOWN` verdict always says why: here the loop bound cut the only
/// executions that could reach the state (x is 2 only after the second
/// iteration), on either engine, in text and JSON.
#[test]
fn unknown_by_the_bound_names_the_bound() {
    let f = temp("count.litmus", COUNT_TWICE);
    for engine in ["explicit", "symbolic"] {
        let (code, out, err) = gpumc(&["check", "--bound", "1", "--engine", engine, &f]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("UNKNOWN"), "{out}");
        assert!(
            out.contains("Unknown because: the loop bound (--bound 1) cut"),
            "{engine}: {out}"
        );
        let (_, out, _) = gpumc(&["check", "--json", "--bound", "1", "--engine", engine, &f]);
        let v = json_of(&out);
        assert!(
            v["message"].as_str().unwrap().contains("--bound 1"),
            "{out}"
        );
        // With room for the second iteration the state is reached.
        let (_, out, _) = gpumc(&["check", "--bound", "2", "--engine", engine, &f]);
        assert!(out.contains("PASS"), "{engine}: {out}");
    }
}

/// `--max-bound` raises the bound until the cut executions no longer
/// leave the verdict open, and says so; it stops at its maximum with the
/// bound's reason, and may not be below `--bound`.
#[test]
fn max_bound_raises_the_bound_until_the_verdict_is_decided() {
    let f = temp("count-grow.litmus", COUNT_TWICE);
    for engine in ["explicit", "symbolic"] {
        let (code, out, err) = gpumc(&[
            "check",
            "--json",
            "--max-bound",
            "5",
            "--engine",
            engine,
            &f,
        ]);
        assert_eq!(code, 0, "{err}");
        let v = json_of(&out);
        assert_eq!(v["verdict"], "PASS", "{engine}: {out}");
        assert_eq!(v["bound"], 2, "{engine}: {out}");
        assert!(
            v["bound_note"]
                .as_str()
                .unwrap()
                .contains("from --bound 1 to 2"),
            "{out}"
        );
        let (_, out, _) = gpumc(&["check", "--max-bound", "5", "--engine", engine, &f]);
        assert!(out.contains("  Bound: raised from --bound 1 to 2"), "{out}");
        // No room to grow: the bound's reason, and no note.
        let (_, out, _) = gpumc(&[
            "check",
            "--json",
            "--max-bound",
            "1",
            "--engine",
            engine,
            &f,
        ]);
        let v = json_of(&out);
        assert_eq!(v["verdict"], "UNKNOWN", "{out}");
        assert_eq!(v["bound"], 1, "{out}");
        assert!(v.get("bound_note").is_none(), "{out}");
        assert!(
            v["message"].as_str().unwrap().contains("--bound 1"),
            "{out}"
        );
    }
    let (code, _, err) = gpumc(&["check", "--bound", "3", "--max-bound", "2", &f]);
    assert_eq!(code, 2);
    assert!(err.contains("--max-bound 2 is below --bound 3"), "{err}");
}

/// Message passing through a spin loop: the waiting thread's failed reads
/// are spinning iterations, so no execution reaches bound 1.
const SPIN_MP: &str = "PTX spin-mp\n\"P1 waits for the flag, then reads the data\"\n{\nx=0; y=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n st.relaxed.gpu x, 1 | LC10: ;\n st.release.gpu y, 1 | ld.acquire.gpu r0, y ;\n | beq r0, 0, LC10 ;\n | ld.relaxed.gpu r1, x ;\nexists\n(P1:r1 == 0)\n";

/// A check asked at `--bound 4` is first tried at bound 1, and that answer
/// is kept, with a note, only where no execution reached bound 1: the
/// spin loop's answer is bound 4's; the counting loop is cut at bound 1,
/// so it is checked at the bound asked; a loop-free test gets no note.
#[test]
fn a_larger_bound_is_tried_at_bound_one_first() {
    let spin = temp("spin-mp.litmus", SPIN_MP);
    let count = temp("count-first.litmus", COUNT_TWICE);
    for engine in ["explicit", "symbolic"] {
        let run = |f: &str, bound: &str| {
            let (code, out, err) =
                gpumc(&["check", "--json", "--bound", bound, "--engine", engine, f]);
            assert_eq!(code, 0, "{err}");
            json_of(&out)
        };
        let (one, four) = (run(&spin, "1"), run(&spin, "4"));
        assert_eq!(four["verdict"], "FAIL", "{engine}: {four}");
        assert_eq!(four["states"], one["states"], "{engine}: {four}");
        assert_eq!(four["bound"], 1, "{engine}: {four}");
        let note = four["bound_note"].as_str().unwrap();
        assert!(
            note.contains("decided at bound 1 (asked: --bound 4)"),
            "{note}"
        );
        assert!(one.get("bound_note").is_none(), "{one}");
        // Cut at bound 1: bound 3 itself decides, and says nothing of 1.
        let v = run(&count, "3");
        assert_eq!(v["verdict"], "PASS", "{engine}: {v}");
        assert_eq!(v["bound"], 3, "{engine}: {v}");
        assert!(v.get("bound_note").is_none(), "{v}");
        // Without a condition the states are the answer, and bound 1 cut
        // the only complete execution: bound 3 lists it.
        let states = temp(
            "count-states.litmus",
            COUNT_TWICE.split("exists").next().unwrap(),
        );
        let v = run(&states, "3");
        assert_eq!(v["verdict"], "NONE", "{engine}: {v}");
        assert_eq!(v["bound"], 3, "{engine}: {v}");
        assert_eq!(v["states"].as_array().unwrap().len(), 1, "{engine}: {v}");
        let v = run("examples/MP-weak.litmus", "3");
        assert_eq!(v["bound"], 3, "{engine}: {v}");
        assert!(v.get("bound_note").is_none(), "{v}");
    }
    let (_, out, _) = gpumc(&["check", "--bound", "4", &spin]);
    assert!(
        out.contains("  Bound: decided at bound 1 (asked: --bound 4)"),
        "{out}"
    );
}

/// A directory with a symbolic link back to itself is walked once: each
/// test is checked once, not once per `loop/loop/…` spelling.
#[cfg(unix)]
#[test]
fn a_symlink_cycle_is_walked_once() {
    let dir = std::env::temp_dir().join(format!("gpumc-cli-cycle-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/MP-weak.litmus"),
        dir.join("MP-weak.litmus"),
    )
    .unwrap();
    std::os::unix::fs::symlink(".", dir.join("loop")).unwrap();
    let (code, out, err) = gpumc(&["check", "--json", &dir.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// C tests: the paper's expectations pass as a suite; a malformed C test
/// and an unsupported construct are errors at their position (exit 2);
/// a C test does not run on hardware before it is compiled.
#[test]
fn c_tests_check_and_fail_with_positions() {
    let (code, out, err) = gpumc(&["suite", "--expected", "examples/c/expected.csv"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(" 0 failed"), "{out}");
    let (code, out, _) = gpumc(&["check", "examples/c/MP.litmus"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("FAIL") && out.contains("model scoped-c11"),
        "{out}"
    );
    let f = temp(
        "loop.litmus",
        "C loop\n{ x = 0; }\nP0(atomic_int* x) {\n  int r = 0;\n  while (r == 0) { r = atomic_load(x); }\n}\nexists (x = 1)\n",
    );
    let (code, out, _) = gpumc(&["check", &f]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("loop.litmus:5:3: unsupported: `while`"),
        "{out}"
    );
    let f = temp(
        "syntax.litmus",
        "C syntax\n{ x = 0; }\nP0(atomic_int* x) {\n  atomic_store(x, 1)\n}\nexists (x = 1)\n",
    );
    let (code, out, _) = gpumc(&["check", &f]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("syntax.litmus:5:1: expected `;`"), "{out}");
    let (code, out, err) = gpumc(&["run", "--backend", "interp", "examples/c/MP.litmus"]);
    assert_ne!(code, 0, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("MP.litmus:9:3: unsupported: on hardware: a C litmus test"),
        "{out}{err}"
    );
}

/// `--property races` lists each racing pair of instructions once, one
/// line each, up to `--max-races` (through the worker processes, and in
/// `suite` too), and says when the list was cut.
#[test]
fn races_per_instruction_pair_and_max_races() {
    // P0 writes x or y depending on the flag; P1 writes both: two pairs,
    // never in the same execution.
    let t = temp(
        "two-paths.litmus",
        "PTX two-paths\n{ x=0; y=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n ld.relaxed.gpu r0, f | st.relaxed.gpu f, 1 ;\n beq r0, 0, LC00 | st.weak x, 2 ;\n st.weak x, 1 | st.weak y, 2 ;\n goto LC01 | ;\n LC00: | ;\n st.weak y, 1 | ;\n LC01: | ;\nexists (x == 1)\n",
    );
    for engine in ["explicit", "symbolic"] {
        let (code, out, err) = gpumc(&["check", "--property", "races", "--engine", engine, &t]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("  Data races (2, flag dr):"), "{out}");
        assert!(
            out.contains(
                "    WAW on x: st.weak x, 1 (6:2) in thread P0 → st.weak x, 2 (5:20) in thread P1"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "    WAW on y: st.weak y, 1 (9:2) in thread P0 → st.weak y, 2 (6:17) in thread P1"
            ),
            "{out}"
        );
        let (code, out, err) = gpumc(&[
            "check",
            "--property",
            "races",
            "--engine",
            engine,
            "--max-races",
            "1",
            "--json",
            &t,
        ]);
        assert_eq!(code, 0, "{err}");
        let v = json_of(&out);
        assert_eq!(v["verdict"], "FAIL");
        assert_eq!(v["races"].as_array().map(Vec::len), Some(1), "{out}");
        assert_eq!(v["races_complete"], false, "{out}");
        assert_eq!(v["races_note"], "the search stopped at --max-races 1");
        assert_eq!(v["races"][0]["kind"], "WAW");
        assert_eq!(v["races"][0]["in_witness"], true);
    }
    let (_, out, _) = gpumc(&["check", "--property", "races", "--max-races", "1", &t]);
    assert!(
        out.contains("  Data races (1, flag dr; the search stopped at --max-races 1):"),
        "{out}"
    );
    let (_, out, _) = gpumc(&["check", "--property", "races", "--max-races", "0", &t]);
    assert!(
        out.contains("FAIL")
            && out.contains("  Data races: none listed (the search stopped at --max-races 0)"),
        "{out}"
    );
    let csv = temp("races.csv", &format!("{t},0\n"));
    let (code, out, err) = gpumc(&[
        "suite",
        "--expected",
        &csv,
        "--root",
        "/",
        "--property",
        "races",
        "--max-races",
        "1",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let row: serde_json::Value =
        serde_json::from_str(out.lines().next().unwrap_or("")).expect("a row");
    assert_eq!(row["races_complete"], false, "{out}");
    // Race-free (no location shared): no list, and it is complete.
    let free = temp(
        "disjoint.litmus",
        "PTX disjoint\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | ld.weak r0, y ;\nexists (x == 1)\n",
    );
    let (code, out, _) = gpumc(&["check", "--property", "races", "--json", &free]);
    assert_eq!(code, 0);
    let v = json_of(&out);
    assert_eq!(v["verdict"], "PASS");
    assert!(v.get("races").is_none());
    assert_eq!(v["races_complete"], true);
}
