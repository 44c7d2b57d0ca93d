//! Resource guards, engine fallback and process isolation, through the
//! `gpumc` binary: a loop that writes forever under a memory limit,
//! `--timeout`, runs in which one test times out or its process dies,
//! `--engine auto` falling back from either engine.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GPUMC: &str = env!("CARGO_BIN_EXE_gpumc");

/// A thread that writes forever: every unrolled iteration adds a write,
/// and coherence over n writes is cubic in n.
const WRITING_LOOP: &str = r#"PTX writing-loop
"A thread that writes forever; another reads."
{
x=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0       ;
 LC00:                  | ld.relaxed.gpu r0, x ;
 st.relaxed.gpu x, 1    |                      ;
 goto LC00              |                      ;
exists
(P1:r0 == 1)
"#;

/// Eight writes to one location in four threads: few threads and memory
/// instructions (so `auto` picks the explicit engine), but 4.3e8 partial
/// coherence orders for the explicit engine to enumerate.
const EIGHT_WRITES: &str = r#"PTX eight-writes
"Eight relaxed writes to one location"
{
x=0;
}
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0        | P2@cta 2,gpu 0        | P3@cta 3,gpu 0        ;
 st.relaxed.gpu x, 1   | st.relaxed.gpu x, 3   | st.relaxed.gpu x, 5   | st.relaxed.gpu x, 7   ;
 st.relaxed.gpu x, 2   | st.relaxed.gpu x, 4   | st.relaxed.gpu x, 6   | st.relaxed.gpu x, 8   ;
exists
(x == 2)
"#;

/// Store buffering with three bystander threads: five threads, so `auto`
/// picks the symbolic engine.
const SB_FIVE_THREADS: &str = r#"PTX SB-five
"Store buffering, three more threads reading z"
{
x=0;
y=0;
z=0;
}
 P0@cta 0,gpu 0         | P1@cta 1,gpu 0         | P2@cta 2,gpu 0         | P3@cta 3,gpu 0         | P4@cta 4,gpu 0         ;
 st.relaxed.gpu x, 1    | st.relaxed.gpu y, 1    | ld.relaxed.gpu r2, z   | ld.relaxed.gpu r3, z   | ld.relaxed.gpu r4, z   ;
 ld.relaxed.gpu r0, y   | ld.relaxed.gpu r1, x   |                        |                        |                        ;
exists
(P0:r0 == 0 /\ P1:r1 == 0)
"#;

/// Sequential consistency with the communication order as a recursive
/// definition (written for these tests): its symbolic fixpoint does not
/// settle, so the symbolic engine refuses it.
const SC_RECURSIVE: &str = r#""SC, communication order by let rec"
let fr = rf^-1 ; co
let rec com = rf | co | fr | (com ; com)
acyclic po | com as sc
"#;

const MP: &str = r#"PTX MP
"Message passing, relaxed"
{
x=0;
flag=0;
}
 P0@cta 0,gpu 0          | P1@cta 1,gpu 0           ;
 st.relaxed.gpu x, 1     | ld.relaxed.gpu r0, flag  ;
 st.relaxed.gpu flag, 1  | ld.relaxed.gpu r1, x     ;
exists
(P1:r0 == 1 /\ P1:r1 == 0)
"#;

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-guards-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(d: &std::path::Path, name: &str, text: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

struct Run {
    code: i32,
    out: String,
    err: String,
    secs: f64,
}

fn run(cmd: &mut Command) -> Run {
    let t = Instant::now();
    let o = cmd.output().expect("run gpumc");
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        secs: t.elapsed().as_secs_f64(),
    }
}

fn gpumc(args: &[&str]) -> Run {
    run(Command::new(GPUMC).args(args))
}

fn json_lines(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn one_json(r: &Run) -> serde_json::Value {
    let v = json_lines(&r.out);
    assert_eq!(v.len(), 1, "{}\n{}", r.out, r.err);
    v.into_iter().next().unwrap()
}

#[test]
fn writing_loop_at_bound_1000_stops_under_ulimit() {
    let d = dir("ulimit");
    let f = write(&d, "loop.litmus", WRITING_LOOP);
    for extra in ["", "--no-isolate", "--engine symbolic"] {
        let script =
            format!("ulimit -v 4000000; exec \"$0\" check --json --bound 1000 {extra} \"$1\"");
        let r = run(Command::new("bash").args(["-c", &script, GPUMC, &f]));
        assert!(r.secs < 60.0, "{extra}: took {} s", r.secs);
        assert!(
            (0..=2).contains(&r.code),
            "{extra}: exit {}\n{}",
            r.code,
            r.err
        );
        let v = one_json(&r);
        let msg = v["message"].as_str().unwrap_or("");
        match v["verdict"].as_str() {
            Some("UNKNOWN") => assert!(msg.contains("out of memory"), "{extra}: {msg}"),
            // (only where no worker contains it: an abort of the process)
            Some("ERROR") if extra == "--no-isolate" => {
                assert!(msg.starts_with("out of memory"), "{extra}: {msg}")
            }
            other => panic!("{extra}: verdict {other:?}: {msg}"),
        }
    }
}

#[test]
fn timeout_gives_unknown_with_the_reason() {
    let d = dir("timeout");
    let f = write(&d, "loop.litmus", WRITING_LOOP);
    // Some 10-30 s of solving without a limit.
    for extra in [None, Some("--no-isolate")] {
        let mut args = vec!["check", "--engine", "symbolic", "--bound", "200"];
        args.extend(["--timeout", "1"]);
        args.extend(extra);
        args.push(&f);
        let r = gpumc(&args);
        assert!(
            r.out.contains("Unknown because: symbolic engine: timeout"),
            "{}",
            r.out
        );
        args.push("--json");
        let r = gpumc(&args);
        assert_eq!(r.code, 0, "{}", r.err);
        assert!(r.secs < 10.0, "took {} s", r.secs);
        let v = one_json(&r);
        assert_eq!(v["verdict"], "UNKNOWN", "{v}");
        let msg = v["message"].as_str().unwrap();
        assert!(msg.starts_with("symbolic engine: timeout:"), "{msg}");
    }
}

#[test]
fn one_test_timing_out_does_not_lose_the_others() {
    let d = dir("suite");
    write(&d, "a-mp.litmus", MP);
    write(&d, "b-loop.litmus", WRITING_LOOP);
    write(&d, "c-sb.litmus", SB_FIVE_THREADS);
    let ds = d.display().to_string();
    let r = gpumc(&["check", "--json", "--bound", "200", "--timeout", "2", &ds]);
    assert_eq!(r.code, 0, "{}", r.err);
    let v = json_lines(&r.out);
    let verdicts: Vec<&str> = v.iter().map(|x| x["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["PASS", "UNKNOWN", "PASS"], "{}", r.out);
    assert!(
        v[1]["message"].as_str().unwrap().contains("timeout"),
        "{}",
        r.out
    );

    // The same through `suite`: the late row is a mismatch with its
    // reason, the others agree.
    let csv = write(
        &d,
        "expected.csv",
        "a-mp.litmus,1\nb-loop.litmus,1\nc-sb.litmus,1\n",
    );
    let r = gpumc(&[
        "suite",
        "--expected",
        &csv,
        "--root",
        &ds,
        "--bound",
        "200",
        "--timeout",
        "2",
    ]);
    assert_eq!(r.code, 1, "{}\n{}", r.out, r.err);
    assert!(
        r.out.contains(
            "mismatch: b-loop.litmus expected PASS got UNKNOWN (symbolic engine: timeout"
        ),
        "{}",
        r.out
    );
    assert!(r.out.contains("2 passed, 1 failed"), "{}", r.out);
}

/// Worker processes of the `gpumc` process `parent` (Linux `/proc`), with
/// the CPU time each has used (clock ticks).
#[cfg(target_os = "linux")]
fn workers(parent: u32) -> Vec<(i32, u64)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.get(1).and_then(|p| p.parse::<u32>().ok()) != Some(parent) {
            continue;
        }
        let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmd).contains("worker") {
            out.push((pid, f[11].parse().unwrap_or(0)));
        }
    }
    out
}

/// Sends `signal` to the worker of `child` that is busy: the one that has
/// used half a second of CPU (waiting at most a minute from `t`).
#[cfg(target_os = "linux")]
fn signal_busy_worker(child: &std::process::Child, t: Instant, signal: i32) {
    let busy = loop {
        assert!(t.elapsed() < Duration::from_secs(60), "no busy worker");
        std::thread::sleep(Duration::from_millis(100));
        if let Some(&(pid, _)) = workers(child.id()).iter().find(|w| w.1 >= 50) {
            break pid;
        }
    };
    // SAFETY: a signal to our own grandchild, by its id.
    assert_eq!(unsafe { libc::kill(busy, signal) }, 0);
}

/// Runs `gpumc check` on MP, the writing loop (bound 200: many seconds)
/// and SB, and sends `signal` to the worker busy with the loop.
#[cfg(target_os = "linux")]
fn signal_the_busy_worker(name: &str, signal: i32, timeout: &str) -> Run {
    let d = dir(name);
    write(&d, "a-mp.litmus", MP);
    write(&d, "b-loop.litmus", WRITING_LOOP);
    write(&d, "c-sb.litmus", SB_FIVE_THREADS);
    let t = Instant::now();
    let child = Command::new(GPUMC)
        .args(["check", "--json", "--engine", "symbolic", "--bound", "200"])
        .args(["--timeout", timeout, &d.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_busy_worker(&child, t, signal);
    let o = child.wait_with_output().unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        secs: t.elapsed().as_secs_f64(),
    }
}

/// A worker killed as the out-of-memory killer would: that test's line
/// says so (a resource limit: `UNKNOWN`), the others are checked.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_worker_is_that_tests_unknown_only() {
    let r = signal_the_busy_worker("kill", libc::SIGKILL, "120");
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let v = json_lines(&r.out);
    let verdicts: Vec<&str> = v.iter().map(|x| x["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["PASS", "UNKNOWN", "PASS"], "{}", r.out);
    let msg = v[1]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("out of memory") && msg.contains("SIGKILL"),
        "{msg}"
    );
}

/// A ring of `n` threads, each writing two locations and reading a third:
/// thousands of distinct states in a few launches, each judged alone by
/// the symbolic engine (seconds of judging).
fn ring(n: usize) -> String {
    let row = |f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(" | ") + " ;\n";
    let mut t = format!("PTX ring{n}\n\"A ring of stores and loads\"\n{{\n");
    for i in 0..n {
        t += &format!("x{i}=0;\n");
    }
    t += "}\n";
    t += &row(&|i| format!("P{i}@cta {i},gpu 0"));
    t += &row(&|i| format!("st.relaxed.gpu x{i}, 1"));
    t += &row(&|i| format!("st.relaxed.gpu x{}, 2", (i + 1) % n));
    t += &row(&|i| format!("ld.relaxed.gpu r0, x{}", (i + 2) % n));
    let cond: Vec<String> = (0..n).map(|i| format!("P{i}:r0 == 0")).collect();
    t + &format!("exists\n({})\n", cond.join(" /\\ "))
}

/// `gpumc run` judges each test's observed states in a worker process: a
/// worker killed while judging (as the out-of-memory killer would) loses
/// that test's verdicts only. Its observed states are still reported, the
/// report says why they are unjudged, and the other tests are judged.
#[cfg(target_os = "linux")]
#[test]
fn a_judgement_killed_in_run_keeps_the_observed_states() {
    let d = dir("run-kill");
    write(&d, "a-mp.litmus", MP);
    write(&d, "b-ring.litmus", &ring(14));
    write(&d, "c-sb.litmus", SB_FIVE_THREADS);
    let t = Instant::now();
    let child = Command::new(GPUMC)
        .args(["run", "--json", "--backend", "interp", "--iterations", "10"])
        .args(["--seed", "1", &d.display().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_busy_worker(&child, t, libc::SIGKILL);
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let v: Vec<serde_json::Value> = json_lines(&out)
        .into_iter()
        .filter(|x| x.get("file").is_some())
        .collect();
    let status: Vec<&str> = v.iter().map(|x| x["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["ok", "error", "ok"], "{}", v[1]["message"]);
    let msg = v[1]["message"].as_str().unwrap();
    assert!(
        msg.contains("could not judge the observed states") && msg.contains("SIGKILL"),
        "{msg}"
    );
    let seen = v[1]["histogram"].as_array().unwrap();
    assert!(
        seen.len() > 100,
        "the observed states are kept: {}",
        seen.len()
    );
    assert!(seen.iter().all(|e| e["judgement"] == "undecided"));
    assert_eq!(v[1]["undecided"], v[1]["observation"]["negative"]);
    let judged = v[2]["histogram"].as_array().unwrap();
    assert!(
        judged.iter().all(|e| e["judgement"] == "allowed"),
        "{}",
        v[2]
    );
}

/// A worker that stops answering (here: stopped by a signal) is killed
/// shortly after the deadline; its test is UNKNOWN, the others checked.
#[cfg(target_os = "linux")]
#[test]
fn a_worker_past_its_deadline_is_stopped() {
    let r = signal_the_busy_worker("stop", libc::SIGSTOP, "3");
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    assert!(r.secs < 30.0, "took {} s", r.secs);
    let v = json_lines(&r.out);
    let verdicts: Vec<&str> = v.iter().map(|x| x["verdict"].as_str().unwrap()).collect();
    assert_eq!(verdicts, ["PASS", "UNKNOWN", "PASS"], "{}", r.out);
    let msg = v[1]["message"].as_str().unwrap();
    assert!(msg.starts_with("timeout: no answer after"), "{msg}");
}

#[test]
fn auto_falls_back_when_the_symbolic_engine_refuses() {
    let d = dir("fallback-symbolic");
    let f = write(&d, "sb.litmus", SB_FIVE_THREADS);
    let m = write(&d, "sc-rec.cat", SC_RECURSIVE);
    let r = gpumc(&["check", "--json", "--engine", "symbolic", "--model", &m, &f]);
    assert_eq!(r.code, 2, "the symbolic engine refuses: {}", r.out);
    assert!(one_json(&r)["message"]
        .as_str()
        .unwrap()
        .contains("unsupported: a `let rec`"));
    let r = gpumc(&["check", "--json", "--model", &m, &f]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let v = one_json(&r);
    // Store buffering is not sequentially consistent.
    assert_eq!(v["verdict"], "FAIL", "{v}");
    assert_eq!(v["engine"], "explicit", "{v}");
    let note = v["engine_note"].as_str().unwrap();
    assert!(
        note.starts_with("the symbolic engine gave up (unsupported: a `let rec`"),
        "{note}"
    );
    let r = gpumc(&["check", "--model", &m, &f]);
    assert!(r.out.contains("explicit engine,"), "{}", r.out);
    assert!(
        r.out.contains("  Engine: the symbolic engine gave up"),
        "{}",
        r.out
    );
}

#[test]
fn auto_falls_back_when_the_explicit_engine_refuses() {
    let d = dir("fallback-explicit");
    let f = write(&d, "w8.litmus", EIGHT_WRITES);
    let r = gpumc(&["check", "--json", "--engine", "explicit", &f]);
    assert_eq!(r.code, 2, "the explicit engine refuses: {}", r.out);
    let msg = one_json(&r)["message"].as_str().unwrap().to_string();
    assert!(
        msg.contains("unsupported: too large for the explicit engine"),
        "{msg}"
    );
    let r = gpumc(&["check", "--json", &f]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    let v = one_json(&r);
    assert_eq!(v["verdict"], "PASS", "{v}");
    assert_eq!(v["engine"], "symbolic", "{v}");
    let note = v["engine_note"].as_str().unwrap();
    assert!(
        note.starts_with("the explicit engine gave up (unsupported: too large"),
        "{note}"
    );
}

#[test]
fn the_deciding_engine_is_named_and_input_errors_are_not_retried() {
    let d = dir("plain");
    let f = write(&d, "mp.litmus", MP);
    let v = one_json(&gpumc(&["check", "--json", &f]));
    assert_eq!(v["engine"], "explicit", "{v}");
    assert!(v.get("engine_note").is_none(), "{v}");
    let v = one_json(&gpumc(&["check", "--json", "--engine", "symbolic", &f]));
    assert_eq!(v["engine"], "symbolic", "{v}");

    let bad = write(
        &d,
        "bad.litmus",
        &MP.replace("st.relaxed.gpu x, 1", "st.bogus x, 1"),
    );
    let r = gpumc(&["check", "--json", &bad]);
    assert_eq!(r.code, 2);
    let v = one_json(&r);
    assert_eq!(v["verdict"], "ERROR");
    assert!(
        v.get("engine").is_none() && v.get("engine_note").is_none(),
        "{v}"
    );
    let msg = v["message"].as_str().unwrap();
    // A front-end error, even `unsupported`, is not an engine refusal.
    assert!(
        msg.starts_with(&format!("{bad}:8:4: unsupported:")),
        "{msg}"
    );
}

#[test]
fn isolated_and_in_process_runs_agree() {
    let root = env!("CARGO_MANIFEST_DIR");
    let ex = format!("{root}/examples");
    let strip = |r: Run| -> Vec<(String, String, String)> {
        json_lines(&r.out)
            .iter()
            .map(|v| {
                (
                    v["file"].to_string(),
                    v["verdict"].to_string(),
                    v["engine"].to_string(),
                )
            })
            .collect()
    };
    let a = strip(gpumc(&["check", "--json", &ex]));
    let b = strip(gpumc(&["check", "--json", "--no-isolate", &ex]));
    assert!(a.len() >= 3);
    assert_eq!(a, b);
}

#[test]
fn bad_limits_are_usage_errors() {
    let r = gpumc(&["check", "--timeout=-1", "examples/MP-weak.litmus"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("--timeout"), "{}", r.err);
    let r = gpumc(&["check", "--max-memory", "lots", "examples/MP-weak.litmus"]);
    assert_eq!(r.code, 2);
}

/// A timeout too long to represent as a duration is no limit, not a panic
/// (exit status 101), both in the worker and in the process itself.
#[test]
fn huge_timeouts_are_no_limit() {
    for isolate in [true, false] {
        for t in ["1e20", "18446744073709551615", "1e300"] {
            let mut args = vec!["check", "--json", "--timeout", t];
            if !isolate {
                args.push("--no-isolate");
            }
            args.push("examples/MP-weak.litmus");
            let r = gpumc(&args);
            assert_eq!(r.code, 0, "--timeout {t}: {}", r.err);
            assert_eq!(one_json(&r)["verdict"], "PASS", "--timeout {t}");
        }
    }
}

/// One thread path that grows without end (`--bound 10^8` on a writing
/// loop) is stopped by the memory guard before its events outgrow the
/// budget, in the worker and in-process: `UNKNOWN` naming the path, not
/// an allocation failure (an abort, or a worker's `internal error`).
#[test]
fn one_huge_path_is_stopped_by_the_guard() {
    let d = dir("hugepath");
    let f = write(&d, "loop.litmus", WRITING_LOOP);
    for extra in ["--engine explicit", "--engine symbolic --no-isolate"] {
        let script = format!(
            "ulimit -v 4000000; exec \"$0\" check --json --max-memory 256 --bound 100000000 {extra} \"$1\""
        );
        let r = run(Command::new("bash").args(["-c", &script, GPUMC, &f]));
        assert_eq!(r.code, 0, "{extra}: {}", r.err);
        let v = one_json(&r);
        assert_eq!(v["verdict"], "UNKNOWN", "{extra}: {v}");
        let msg = v["message"].as_str().unwrap();
        assert!(
            msg.contains("out of memory: a path of thread P0"),
            "{extra}: {msg}"
        );
    }
}

/// Six threads storing to `x` and to `y` or reading it: tens of millions
/// of executions for the explicit engine (over 5 s), racing from the
/// first ones.
fn many_racing_stores() -> String {
    let mut s = String::from("PTX many-racing-stores\n{ x=0; y=0; }\n");
    let cells = |f: &dyn Fn(usize) -> String| (0..6).map(f).collect::<Vec<_>>().join(" | ");
    s += &format!(" {} ;\n", cells(&|i| format!("P{i}@cta {i},gpu 0")));
    s += &format!(" {} ;\n", cells(&|i| format!("st.weak x, {}", i + 1)));
    s += &format!(
        " {} ;\n",
        cells(&|i| match i % 2 {
            0 => format!("st.weak y, {}", i + 1),
            _ => "ld.weak r1, y".to_string(),
        })
    );
    s + "exists (x=1)\n"
}

#[test]
fn a_timeout_keeps_the_races_and_states_found() {
    let d = dir("partial");
    let f = write(&d, "many.litmus", &many_racing_stores());
    // Races: found in the first executions; the timeout leaves the list
    // incomplete but the verdict decided.
    let r = gpumc(&[
        "check",
        "--json",
        "--engine",
        "explicit",
        "--property",
        "races",
        "--timeout",
        "1",
        &f,
    ]);
    assert_eq!(r.code, 0, "{}", r.err);
    let v = one_json(&r);
    assert_eq!(v["verdict"], "FAIL", "{v}");
    assert_eq!(v["races_complete"], false, "{v}");
    assert!(!v["races"].as_array().expect("races").is_empty(), "{v}");
    let note = v["races_note"].as_str().expect("a note");
    assert!(
        note.contains("stopped") && note.contains("timeout"),
        "{note}"
    );
    // Safety: the `exists` state is reached early; the states found so far
    // are listed and marked incomplete.
    let r = gpumc(&[
        "check",
        "--json",
        "--engine",
        "explicit",
        "--timeout",
        "1",
        &f,
    ]);
    let v = one_json(&r);
    assert_eq!(v["verdict"], "PASS", "{v}");
    assert_eq!(v["states_complete"], false, "{v}");
    assert!(!v["states"].as_array().expect("states").is_empty(), "{v}");
    assert!(
        v["states_note"].as_str().expect("note").contains("timeout"),
        "{v}"
    );
}

/// One thread of 16,000 stores (256 kB): its program order alone has 128
/// million pairs. The check estimates them before building them and
/// answers UNKNOWN (out of memory) in a few seconds, in a worker and
/// without one, instead of a failed allocation (ERROR); `run` still judges
/// what it observed.
#[test]
fn a_thread_of_sixteen_thousand_stores_is_estimated_not_allocated() {
    let d = dir("po");
    let mut src = String::from("PTX big\n{ x=0; }\n P0@cta 0,gpu 0 ;\n");
    for i in 0..16_000 {
        src += &format!(" st.weak x, {} ;\n", i % 7 + 1);
    }
    src += "exists (x=1)\n";
    let f = write(&d, "big.litmus", &src);
    for extra in [None, Some("--no-isolate")] {
        let mut args = vec!["check", "--json"];
        args.extend(extra);
        args.push(&f);
        let r = gpumc(&args);
        assert_eq!(r.code, 0, "{extra:?}: {}", r.err);
        let v = one_json(&r);
        assert_eq!(v["verdict"], "UNKNOWN", "{extra:?}: {v}");
        let msg = v["message"].as_str().expect("message");
        assert!(
            msg.contains("the program order of a thread of 16000 events"),
            "{msg}"
        );
    }
    let r = gpumc(&["run", "--backend", "interp", "--iterations", "2", &f]);
    assert_eq!(r.code, 0, "{}\n{}", r.out, r.err);
    assert!(r.out.contains("1 conform"), "{}", r.out);
}

/// Loading a model keeps `--timeout`, in the parent (which loads it once
/// to warn about it) and in the check: a model whose loading is long
/// (many flags over a long chain of definitions: each flag lists every
/// unit it needs, quadratic in all) ends the test UNKNOWN with the reason.
/// Unguarded, loading it would list 1.8·10⁹ unit indices (7 GB). (Should
/// its loading ever become fast, this test needs a slower model.)
#[test]
fn a_model_that_loads_slowly_keeps_the_timeout() {
    const N: usize = 60_000;
    let d = dir("model-timeout");
    let mut text = String::from("\"slow\"\nlet r0 = po\n");
    for i in 1..N {
        text.push_str(&format!("let r{i} = r{} ; po\n", i - 1));
    }
    for i in 0..N {
        text.push_str(&format!("flag ~empty r{i} as f{i}\n"));
    }
    let m = write(&d, "slow.cat", &text);
    for extra in [None, Some("--no-isolate")] {
        let mut args = vec!["check", "--json", "--timeout", "1", "--model", &m];
        args.extend(extra);
        args.push("examples/MP-weak.litmus");
        let r = gpumc(&args);
        assert_eq!(r.code, 0, "{extra:?}: {}", r.err);
        assert!(r.secs < 15.0, "{extra:?}: took {} s", r.secs);
        let v = one_json(&r);
        assert_eq!(v["verdict"], "UNKNOWN", "{extra:?}: {v}");
        let msg = v["message"].as_str().unwrap_or("");
        assert!(msg.starts_with("timeout:"), "{extra:?}: {msg}");
    }
    let _ = std::fs::remove_dir_all(&d);
}
