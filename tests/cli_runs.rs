//! The `gpumc` binary on runs that used to look fine and were not:
//! suites and directories with nothing checked, arguments that mean
//! nothing, standard input, progress-model names, help texts.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs gpumc in the repository root: (exit status, stdout, stderr).
fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_in(args, None)
}

/// Runs gpumc with `input` on its standard input.
fn gpumc_in(args: &[&str], input: Option<&str>) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, input)
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpumc-runs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

// ---- 1. Honest runs -------------------------------------------------------

#[test]
fn a_suite_under_a_wrong_root_is_an_error() {
    let dir = scratch("wrong-root");
    let csv = dir.join("x.csv");
    std::fs::write(&csv, "examples/MP-relacq.litmus,1\n").unwrap();
    let wrong = dir.join("no-such-dir");
    let (code, out, err) = gpumc(&["suite", "--expected", &s(&csv), "--root", &s(&wrong)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("no-such-dir: no such directory"), "{err}");
    assert!(!out.contains("0 passed, 0 failed"), "{out}");
}

#[test]
fn a_suite_with_nothing_to_run_is_an_error() {
    let dir = scratch("empty-csv");
    let csv = dir.join("empty.csv");
    std::fs::write(&csv, "// only a comment\n\n").unwrap();
    let (code, _, err) = gpumc(&["suite", "--expected", &s(&csv), "--root", ROOT]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no rows to run"), "{err}");
    // Every row disabled: the message says how to run them.
    std::fs::write(&csv, "; examples/MP-relacq.litmus,1\n").unwrap();
    let (code, _, err) = gpumc(&["suite", "--expected", &s(&csv), "--root", ROOT]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--include-disabled"), "{err}");
}

/// A missing file makes the run an error, but every file that exists is
/// still checked and reported, in text and in JSON.
#[test]
fn a_suite_with_a_missing_file_checks_the_rest_and_fails() {
    let dir = scratch("missing-row");
    let csv = dir.join("x.csv");
    std::fs::write(
        &csv,
        "examples/MP-relacq.litmus,1\nexamples/not-there.litmus,1\n",
    )
    .unwrap();
    let (code, out, err) = gpumc(&["suite", "--expected", &s(&csv), "--root", ROOT]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("missing: examples/not-there.litmus (CSV line 2)"),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l == "1 passed, 0 failed, 1 skipped"),
        "{out}"
    );
    assert!(err.contains("1 of 2 files named in"), "{err}");
    let (code, out, _) = gpumc(&["suite", "--json", "--expected", &s(&csv), "--root", ROOT]);
    assert_eq!(code, 2);
    let mut objects: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines only"))
        .collect();
    let totals = objects.pop().expect("the totals last");
    assert_eq!(totals["missing"], 1, "{out}");
    assert_eq!(totals["passed"], 1, "{out}");
    assert_eq!(objects.len(), 2, "{out}");
    let missing = objects
        .iter()
        .find(|v| v["file"].as_str().unwrap().ends_with("not-there.litmus"))
        .expect("the missing row has its line");
    assert_eq!(missing["verdict"], "ERROR");
    assert_eq!(missing["agrees"], false);
}

#[test]
fn checking_an_empty_directory_is_an_error() {
    let dir = scratch("empty-dir");
    let (code, out, err) = gpumc(&["check", &s(&dir)]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("no .litmus/.spvasm/.ptx/.comp files under"),
        "{err}"
    );
    // With a test beside it, the test is still checked.
    let (code, out, err) = gpumc(&["check", &s(&dir), "examples/MP-relacq.litmus"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.contains("examples/MP-relacq.litmus: PASS"), "{out}");
}

/// Totals end a run over several tests, on stdout as for `suite` and
/// `run`; `--json` output is only report lines; `--format herd` keeps
/// stdout herd7's own, the totals on stderr.
#[test]
fn a_directory_run_ends_with_totals() {
    let dir = scratch("totals");
    for f in ["MP-relacq.litmus", "MP-weak.litmus"] {
        std::fs::copy(Path::new(ROOT).join("examples").join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("bad.litmus"), "PTX bad\n").unwrap();
    let (code, out, err) = gpumc(&["check", &s(&dir)]);
    assert_eq!(code, 2, "{err}");
    let totals = out
        .lines()
        .last()
        .filter(|l| l.starts_with("3 tests: "))
        .unwrap_or_else(|| panic!("no totals at the end of stdout: {out}"));
    assert!(
        totals.contains("2 PASS, 0 FAIL, 0 UNKNOWN, 1 ERROR in "),
        "{totals}"
    );
    assert!(!err.contains("3 tests:"), "{err}");
    let (_, out, err) = gpumc(&["check", "--format", "herd", &s(&dir)]);
    assert!(!out.contains("3 tests:"), "{out}");
    assert!(err.contains("3 tests: 2 PASS"), "{err}");
    let (_, out, err) = gpumc(&["check", "--json", &s(&dir)]);
    assert!(!err.contains("3 tests:"), "{err}");
    assert_eq!(out.lines().count(), 3, "{out}");
    // One file: its report is the whole answer.
    let (_, out, err) = gpumc(&["check", "examples/MP-relacq.litmus"]);
    assert!(
        !err.contains("tests:") && !out.contains("tests:"),
        "{out}{err}"
    );
}

#[test]
fn bound_zero_is_a_usage_error() {
    let (code, out, err) = gpumc(&["check", "--bound", "0", "examples/MP-weak.litmus"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--bound 0"), "{err}");
    assert!(out.is_empty(), "{out}");
}

#[test]
fn an_empty_model_is_an_error_and_one_without_axioms_a_warning() {
    let dir = scratch("models");
    let empty = dir.join("empty.cat");
    std::fs::write(&empty, "(* nothing but a comment *)\n").unwrap();
    let (code, _, err) = gpumc(&["check", "--model", &s(&empty), "examples/MP-weak.litmus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty.cat:2:1: empty model"), "{err}");
    let no_axioms = dir.join("noax.cat");
    std::fs::write(&no_axioms, "\"no axioms\"\nlet hb = po | rf\n").unwrap();
    let (code, out, err) = gpumc(&[
        "check",
        "--model",
        &s(&no_axioms),
        "examples/MP-weak.litmus",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: model")
            && err.contains("has no axioms: every candidate execution is consistent"),
        "{err}"
    );
    assert!(out.contains("PASS"), "{out}");
    // Races under a model without `flag` axioms cannot find any.
    let (_, _, err2) = gpumc(&[
        "check",
        "--property",
        "races",
        "--model",
        &s(&no_axioms),
        "examples/MP-weak.litmus",
    ]);
    assert!(err2.contains("no `flag` axioms"), "{err2}");
    let (_, _, err3) = gpumc(&[
        "check",
        "--property",
        "races",
        "examples/MP-weak.litmus",
        "--model",
        "ptx-v7.5",
    ]);
    assert!(!err3.contains("warning"), "{err3}");
    // An unreadable model (a directory) is an error too.
    let (code, _, err) = gpumc(&["check", "--model", &s(&dir), "examples/MP-weak.litmus"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_tiny_timeout_is_warned_about() {
    let (code, _, err) = gpumc(&["check", "--timeout", "0.001", "examples/MP-weak.litmus"]);
    assert!(code == 0 || code == 2, "{err}");
    assert!(err.contains("warning: --timeout 0.001"), "{err}");
    let (_, _, err) = gpumc(&["check", "--timeout", "30", "examples/MP-weak.litmus"]);
    assert!(!err.contains("warning"), "{err}");
    // A progress model for a safety check means nothing.
    let (code, _, err) = gpumc(&["check", "--progress", "obe", "examples/MP-weak.litmus"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: --progress obe has no effect"),
        "{err}"
    );
}

// ---- 3. Standard input -----------------------------------------------------

/// `check -` reads one test from stdin, chooses the front-end by content
/// and names it `<stdin>`, in a worker process and in this one.
#[test]
fn check_reads_standard_input() {
    let litmus = std::fs::read_to_string(Path::new(ROOT).join("examples/MP-weak.litmus")).unwrap();
    let spirv = std::fs::read_to_string(Path::new(ROOT).join("examples/race-if-n.spvasm")).unwrap();
    for isolate in [true, false] {
        let mut args = vec!["check", "--json"];
        if !isolate {
            args.push("--no-isolate");
        }
        args.push("-");
        let (code, out, err) = gpumc_in(&args, Some(&litmus));
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        assert_eq!(v["file"], "<stdin>");
        assert_eq!(v["verdict"], "PASS");
        assert_eq!(v["model"], "ptx-v7.5");
        // SPIR-V assembly, told apart by its `;` header.
        let mut races = args.clone();
        races.splice(1..1, ["--property", "races"]);
        let (code, out, err) = gpumc_in(&races, Some(&spirv));
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        assert_eq!(v["verdict"], "FAIL", "{out}");
        assert_eq!(v["model"], "vulkan", "{out}");
        // An error in the input has its position in `<stdin>`.
        let bad = "PTX bad\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n frobnicate x, 1 ;\nexists (x == 1)\n";
        let text_args: Vec<&str> = args.iter().copied().filter(|a| *a != "--json").collect();
        let (code, out, _) = gpumc_in(&text_args, Some(bad));
        assert_eq!(code, 2, "{out}");
        assert!(out.contains("<stdin>: ERROR: <stdin>:6:2:"), "{out}");
    }
    // Beside files, and only once.
    let (code, out, _) = gpumc_in(&["check", "examples/MP-relacq.litmus", "-"], Some(&litmus));
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("examples/MP-relacq.litmus: PASS") && out.contains("<stdin>: PASS"),
        "{out}"
    );
    let (code, _, err) = gpumc_in(&["check", "-", "-"], Some(&litmus));
    assert_eq!(code, 2, "{err}");
    // Nothing on stdin: the litmus parser says what it expected.
    let (code, out, _) = gpumc_in(&["check", "-"], Some(""));
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("<stdin>:1:1: empty input"), "{out}");
}

#[test]
fn progress_check_reads_standard_input() {
    let test = "THREAD0\natomic_exch_branch(0,1,0,0)\n\nTHREAD1\natomic_exch_branch(0,0,1,0)\n";
    let (code, out, err) = gpumc_in(
        &["progress", "check", "--model", "weak-fair", "-"],
        Some(test),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("<stdin>: weak-fair "), "{out}");
    let (code, _, err) = gpumc_in(&["progress", "check", "-"], Some("frobnicate\n"));
    assert_eq!(code, 2);
    assert!(err.starts_with("<stdin>:1:"), "{err}");
}

// ---- 2. Progress bars --------------------------------------------------------

/// Runs `gpumc ARGS` with stderr on a terminal (a pseudo-terminal made by
/// util-linux `script`) and stdout discarded; returns what the terminal
/// showed, or `None` where `script` is missing.
fn on_a_terminal(args: &str) -> Option<String> {
    let have = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        eprintln!("skipped: util-linux `script` is not installed (no pseudo-terminal)");
        return None;
    }
    let cmd = format!("{} {args} > /dev/null", env!("CARGO_BIN_EXE_gpumc"));
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .expect("run script");
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A bar is drawn while several tests run, on a terminal only: never when
/// stderr is piped, never with `--json`.
#[test]
fn progress_bars_on_a_terminal_only() {
    let dir = scratch("bars");
    for k in 0..5 {
        std::fs::copy(
            Path::new(ROOT).join("examples/MP-weak.litmus"),
            dir.join(format!("t{k}.litmus")),
        )
        .unwrap();
    }
    let csv = dir.join("x.csv");
    let rows: String = (0..5).map(|k| format!("t{k}.litmus,1\n")).collect();
    std::fs::write(&csv, rows).unwrap();
    let Some(tty) = on_a_terminal(&format!("check {}", s(&dir))) else {
        return;
    };
    assert!(tty.contains("/5 "), "no bar over 5 tests: {tty:?}");
    // Before the first test ends there is no rate: `eta ?`, not `eta 0s`.
    for (at, _) in tty.match_indices("] 0/5 ") {
        let rest = &tty[at..];
        let eta = &rest[rest.find("eta ").unwrap_or(0)..];
        assert!(eta.starts_with("eta ?"), "{rest:?}");
    }
    let tty = on_a_terminal(&format!("check --json {}", s(&dir))).unwrap();
    assert!(!tty.contains("/5 "), "a bar with --json: {tty:?}");
    let tty = on_a_terminal(&format!("suite --expected {} --root {}", s(&csv), s(&dir))).unwrap();
    assert!(tty.contains("/5 "), "no bar in suite: {tty:?}");
    let tty = on_a_terminal("progress synth --threads 2 --instructions 3").unwrap();
    assert!(
        tty.contains("2t_3i: candidate programs"),
        "no synthesis bar: {tty:?}"
    );
    // A hardware run (on the reference interpreter): tests and launches.
    let tty = on_a_terminal(&format!(
        "run --backend interp --iterations 3 --seed 1 {}/t0.litmus {}/t1.litmus",
        s(&dir),
        s(&dir)
    ))
    .unwrap();
    assert!(
        tty.contains("/2 ") && tty.contains("launch "),
        "no run bar: {tty:?}"
    );
    // A mapping check: shapes of the bound.
    let tty = on_a_terminal("mapping check --to ptx-v6.0 --events 4 --axiom coherence").unwrap();
    assert!(tty.contains("/1896 "), "no mapping check bar: {tty:?}");
    // Piped: nothing but the totals on stderr.
    let (_, _, err) = gpumc(&["check", &s(&dir)]);
    assert!(!err.contains("/5 ") && !err.contains('\u{1b}'), "{err:?}");
    let (_, _, err) = gpumc(&["progress", "synth", "--threads", "2", "--instructions", "3"]);
    assert!(err.is_empty(), "{err:?}");
}

// ---- 4. One naming of progress models ------------------------------------------

const SPIN: &str = "PTX spin\n\"P0 waits for x to be 1; no one writes it\"\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n ld.relaxed.gpu r0, x ;\n beq r0, 0, LC00 ;\nexists\n(x == 0)\n";

/// `check --progress` takes the canonical names, the `gpumc progress`
/// names of the weak variants and the old spellings, and prints only the
/// canonical name.
#[test]
fn check_progress_names_are_canonical_and_aliases_are_accepted() {
    let dir = scratch("spin");
    let f = dir.join("spin.litmus");
    std::fs::write(&f, SPIN).unwrap();
    for name in [
        "hsa-obe",
        "HSA_OBE",
        "hsa_obe",
        "HSA+OBE",
        "hsaobe",
        "weak-hsa-obe",
        "Weak_HSA_OBE",
    ] {
        let (code, out, err) = gpumc(&[
            "check",
            "--json",
            "--property",
            "liveness",
            "--progress",
            name,
            &s(&f),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
        assert_eq!(v["verdict"], "FAIL", "{name}: {out}");
        assert_eq!(v["liveness"]["progress"], "hsa-obe", "{name}: {out}");
        assert!(
            !out.contains("HSA_OBE") && !out.contains("hsa_obe"),
            "{out}"
        );
    }
    // Per level: canonical names in the report too.
    let (_, out, _) = gpumc(&[
        "check",
        "--json",
        "--property",
        "liveness",
        "--progress",
        "default=FAIR;CTA=HSA_OBE",
        &s(&f),
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(
        v["liveness"]["progress"], "default=fair;CTA=hsa-obe",
        "{out}"
    );
    // Strong fairness is the toolkit's, and the error says where.
    let (code, _, err) = gpumc(&[
        "check",
        "--property",
        "liveness",
        "--progress",
        "strong-obe",
        &s(&f),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("gpumc progress check --model strong-obe"),
        "{err}"
    );
}

#[test]
fn progress_tool_names_are_canonical_and_aliases_are_accepted() {
    let test = "THREAD0\natomic_exch_branch(0,1,0,0)\n\nTHREAD1\natomic_exch_branch(0,0,1,0)\n";
    let (_, expected, _) = gpumc_in(
        &["progress", "check", "--model", "weak-hsa-obe", "-"],
        Some(test),
    );
    assert!(expected.starts_with("<stdin>: weak-hsa-obe "), "{expected}");
    for alias in [
        "hsa-obe",
        "HSA_OBE",
        "weak_hsa_obe",
        "WEAK-HSA+OBE",
        "weak-hsaobe",
    ] {
        let (code, out, err) = gpumc_in(&["progress", "check", "--model", alias, "-"], Some(test));
        assert_eq!(code, 0, "{alias}: {err}");
        assert_eq!(out, expected, "{alias}");
    }
    let (_, out, _) = gpumc_in(
        &["progress", "check", "--model", "strong_hsa_obe", "-"],
        Some(test),
    );
    assert!(out.starts_with("<stdin>: strong-hsa-obe "), "{out}");
    let (code, _, err) = gpumc_in(
        &["progress", "check", "--model", "medium-obe", "-"],
        Some(test),
    );
    assert_eq!(code, 2);
    assert!(err.contains("weak-hsa-obe"), "{err}");
}

/// Help texts name the models canonically.
#[test]
fn help_names_progress_models_canonically() {
    for args in [&["check", "--help"][..], &["progress", "check", "--help"]] {
        let (_, out, _) = gpumc(args);
        assert!(out.contains("hsa-obe"), "{args:?}: {out}");
        for old in ["hsa_obe", "HSA_OBE", "FAIR", "OBE;"] {
            assert!(!out.contains(old), "{args:?} mentions {old}: {out}");
        }
    }
}

// ---- 5. JSON lines everywhere ------------------------------------------------

/// Every `gpumc progress … --json` prints JSON lines, one object per line,
/// as `check`, `suite` and `run` do (docs/JSON.md).
#[test]
fn progress_json_is_json_lines() {
    let dir = scratch("progress-json");
    for (name, t) in [
        (
            "0.txt",
            "THREAD0\natomic_exch_branch(0,1,0,0)\n\nTHREAD1\natomic_exch_branch(0,0,1,0)\n",
        ),
        ("1.txt", "THREAD0\natomic_exch_branch(0,0,0,0)\n"),
    ] {
        std::fs::write(dir.join(name), t).unwrap();
    }
    let lines = |args: &[&str]| -> Vec<serde_json::Value> {
        let (code, out, err) = gpumc(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out.lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("{args:?}: not a JSON line ({e}): {l}"))
            })
            .collect()
    };
    let d = s(&dir);
    let check = lines(&[
        "progress",
        "check",
        "--json",
        "--model",
        "weak-obe,strong-obe",
        &d,
    ]);
    assert_eq!(check.len(), 4);
    assert!(check
        .iter()
        .all(|v| v["verdict"] == "PASS" || v["verdict"] == "FAIL"));
    assert_eq!(lines(&["progress", "table", "--json", &d]).len(), 1);
    assert_eq!(lines(&["progress", "print", "--json", &d]).len(), 2);
    let out = dir.join("out");
    assert_eq!(
        lines(&["progress", "export", "--json", "--out", &s(&out), &d]).len(),
        4
    );
    let synth = lines(&[
        "progress",
        "synth",
        "--json",
        "--threads",
        "2",
        "--instructions",
        "2",
    ]);
    assert_eq!(synth.len(), 1);
    assert_eq!(synth[0]["tests"], 8);
}

// ---- 6. Citations ------------------------------------------------------------

/// The help of every command and subcommand, walked from `gpumc --help`.
fn all_help() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    while let Some(cmd) = todo.pop() {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let (code, text, err) = gpumc(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        let subcommands = text
            .split("Commands:\n")
            .nth(1)
            .map(|rest| rest.split("\n\n").next().unwrap_or(""))
            .unwrap_or("");
        for line in subcommands.lines() {
            let name = line.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && name != "help" {
                let mut sub = cmd.clone();
                sub.push(name.to_string());
                todo.push(sub);
            }
        }
        out.push((cmd.join(" "), text));
    }
    out
}

/// Help texts cite papers by author, venue and year, never by a seed
/// number of the project's reading list.
#[test]
fn help_texts_cite_papers_not_seeds() {
    let helps = all_help();
    let names: Vec<&str> = helps.iter().map(|(c, _)| c.as_str()).collect();
    for expected in [
        "check",
        "suite",
        "progress",
        "progress synth",
        "run",
        "tune",
        "mutants",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} not walked: {names:?}"
        );
    }
    for (cmd, text) in &helps {
        let lower = text.to_lowercase();
        for bad in ["seed 0", "seed 00", "seeds/", "shared/notes"] {
            assert!(
                !lower.contains(bad),
                "`gpumc {cmd} --help` says {bad:?}:\n{text}"
            );
        }
    }
    // And the papers are cited where the help leans on them.
    let progress = &helps.iter().find(|(c, _)| c == "progress").unwrap().1;
    assert!(
        progress.contains("Sorensen et al., OOPSLA'21"),
        "{progress}"
    );
}

// ---- 7. SPIR-V names from OpName ---------------------------------------------

/// `examples/race-if-n.spvasm` with its buffer renamed to the numeric id
/// `%14`, the way `spirv-dis --raw-id` prints it, and an `OpName`.
fn numbered_race(opname: &str, header_name: &str) -> String {
    let src = std::fs::read_to_string(Path::new(ROOT).join("examples/race-if-n.spvasm")).unwrap();
    let mut out = String::new();
    for line in src.lines() {
        let line = if line.starts_with("; @Input:") {
            line.replace("%out", header_name)
        } else {
            line.replace("%out", "%14")
        };
        out.push_str(&line);
        out.push('\n');
        if line.contains("OpMemberName %PC 0") {
            out.push_str(opname);
            out.push('\n');
        }
    }
    out
}

/// Witnesses, races and states name SPIR-V variables by their `OpName`,
/// not by a numeric id; without a usable `OpName` (none, or one two ids
/// share) the id stays.
#[test]
fn spirv_locations_are_named_by_opname() {
    let dir = scratch("opname");
    let run = |text: &str| -> serde_json::Value {
        let f = dir.join("k.spvasm");
        std::fs::write(&f, text).unwrap();
        let (code, out, err) = gpumc(&["check", "--json", "--property", "races", &s(&f)]);
        assert_eq!(code, 0, "{err}{out}");
        serde_json::from_str(out.trim()).expect("one JSON object")
    };
    let named = run(&numbered_race("               OpName %14 \"out\"", "%14"));
    assert_eq!(named["verdict"], "FAIL");
    let text = named.to_string();
    assert!(text.contains("%out[0][0]"), "{text}");
    assert!(!text.contains("%14["), "{text}");
    // The header may use the OpName too.
    let by_name = run(&numbered_race("               OpName %14 \"out\"", "%out"));
    assert_eq!(by_name["verdict"], "FAIL");
    assert!(by_name.to_string().contains("%out[0][0]"));
    // No OpName: the id.
    let plain = run(&numbered_race("", "%14"));
    assert!(plain.to_string().contains("%14[0][0]"), "{plain}");
    // Two ids with one name: neither takes it, names stay unique.
    let twice = run(&numbered_race(
        "               OpName %14 \"pc\"\n               OpName %main \"pc\"",
        "%14",
    ));
    assert!(twice.to_string().contains("%14[0][0]"), "{twice}");
    // A name that is another id's: not taken either.
    let clash = run(&numbered_race("               OpName %14 \"pc\"", "%14"));
    assert!(clash.to_string().contains("%14[0][0]"), "{clash}");
}
