//! `gpumc check` on PTX kernels (`*.ptx`): launch options and the file's
//! `// gpumc-launch:` line, exit statuses (0 when checked, race or not, as
//! for every test; 2 for bad input, with `file:line:col`), the race report
//! (text and JSON), standard input.

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

/// `gpumc check --property races ARGS…`.
fn races(args: &[&str]) -> (i32, String, String) {
    let all: Vec<&str> = ["check", "--property", "races"]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    gpumc(&all)
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-ptx-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const EXAMPLE: &str = "examples/ptx-kernels/shared-race.ptx";

/// A kernel in which every thread stores to `a[tid]` and reads
/// `a[tid ^ 1]`, with nothing between: two racing instruction pairs per
/// neighbour pair, both on shared memory of one block.
const SMALL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry k(
	.param .u32 k_param_0
)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 s[64];
	.loc 1 3 5
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u64 %rd1, s;
	cvt.u64.u32 %rd2, %r2;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 4 5
	st.shared.u32 [%rd3], %r1;
	xor.b32 %r3, %r2, 4;
	cvt.u64.u32 %rd2, %r3;
	add.s64 %rd3, %rd1, %rd2;
	.loc 1 5 9
	ld.shared.u32 %r4, [%rd3];
	ret;
}
.file 1 "small.cu"
"#;

#[test]
fn the_example_races_with_the_launch_of_its_header() {
    let (code, out, err) = races(&[EXAMPLE]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("FAIL"), "{out}");
    assert!(out.contains("Data races (1, flag dr)"), "{out}");
    assert!(out.contains("examples/cuda/basic_shared.cu:17:10"), "{out}");
    assert!(out.contains("examples/cuda/basic_shared.cu:18:14"), "{out}");
    assert!(out.contains("(shared)"), "{out}");
}

#[test]
fn the_race_report_in_json_names_kinds_spaces_and_cuda_lines() {
    let f = scratch("report.ptx", SMALL);
    let (code, out, err) = races(&["--json", "--block", "2", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let r: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(r["verdict"], "FAIL");
    assert_eq!(r["test"], "k");
    let races = r["races"].as_array().unwrap();
    assert_eq!(races.len(), 1, "one pair of instructions: {out}");
    let x = &races[0];
    // (`RW`: the parametric engine, which decides this launch under
    // `auto`, builds no execution to order the two.)
    assert!(
        ["RAW", "WAR", "RW"].contains(&x["kind"].as_str().unwrap()),
        "{x}"
    );
    assert_eq!(x["space"], "shared");
    let src: Vec<&str> = x["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let mut lines = src.clone();
    lines.sort();
    assert_eq!(lines, ["small.cu:4:5", "small.cu:5:9"]);
    let threads: Vec<&str> = x["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let mut t = threads.clone();
    t.sort();
    assert_eq!(t, ["t0@b0", "t1@b0"]);
    assert_eq!(r["races_complete"], true);
}

#[test]
fn a_barrier_or_separate_blocks_remove_the_race() {
    let fixed = SMALL.replace("\txor.b32", "\tbar.sync 0;\n\txor.b32");
    let f = scratch("fixed.ptx", &fixed);
    let (code, out, err) = races(&["--block", "2", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS"), "{out}");
    // One thread per block: each block has its own shared memory.
    let f = scratch("small2.ptx", SMALL);
    let (code, out, _) = races(&["--grid", "2", "--block", "1", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": PASS"), "{out}");
}

#[test]
fn kernels_read_from_standard_input_are_told_apart_by_content() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(["check", "--property", "races", "--block", "2", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), SMALL.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("<stdin>: FAIL"), "{text}");
}

#[test]
fn bad_launches_are_usage_errors() {
    let f = scratch("small3.ptx", SMALL);
    let p = f.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&[], "needs a launch configuration"),
        (&["--block", "0"], "bad --block"),
        (&["--block", "2", "--grid", "1,2,3,4"], "bad --grid"),
        (&["--block", "2", "--param", "x"], "bad --param"),
        (&["--block", "2", "--param", "n=3"], "has no parameter `n`"),
        (&["--block", "2", "--kernel", "nope"], "no kernel `nope`"),
        // CUDA's limits, checked before the sizes multiply.
        (&["--block", "2048"], "CUDA allows at most 1024"),
        (&["--block", "32,32,2"], "a block of 2048 threads"),
        (
            &["--block", "2", "--grid", "1,65536"],
            "CUDA allows at most 65535",
        ),
        (&["--block", "2", "--shared-bytes", "232449"], "227 KiB"),
        (&["--block", "2", "--param", "0=buf:0x10000000001"], "1 TiB"),
    ];
    // Every thread of 8,192 is too many for the concrete engines: the
    // parametric engine checks them, for undefined behaviour (the 64-byte
    // shared array is indexed by a thread id up to 1,023) as for races.
    let (code, out, err) = gpumc(&[
        "check",
        "--property",
        "safety",
        "--block",
        "1024",
        "--grid",
        "8",
        p,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(": FAIL  (model ptx-v7.5, parametric engine"),
        "{out}"
    );
    assert!(out.contains("past the 64 bytes of `s`"), "{out}");
    let (code, out, err) = gpumc(&[
        "check",
        "--property",
        "races",
        "--block",
        "1024",
        "--grid",
        "8",
        p,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("parametric engine"), "{out}{err}");
    for (args, want) in cases {
        let mut a = vec!["check", "--property", "races"];
        a.extend_from_slice(args);
        a.push(p);
        let (code, out, err) = gpumc(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            out.contains(want) || err.contains(want),
            "{args:?}: {out}{err}"
        );
    }
}

/// Found by fuzzing: 65536² blocks of 65536² threads are 2^64 threads,
/// which wrapped to 0 in u64, slipped under the launch limit and were
/// checked as a kernel of no threads: PASS, one execution.
#[test]
fn a_launch_whose_thread_count_wraps_is_refused_not_passed() {
    let huge = ["--grid", "65536,65536", "--block", "65536,65536"];
    let mut args: Vec<&str> = huge.to_vec();
    args.push(EXAMPLE);
    let (code, out, err) = races(&args);
    assert_eq!(code, 2, "{out}{err}");
    assert!(!out.contains("PASS"), "{out}");
    assert!(err.contains("bad --grid"), "{err}");
    // The same launch in the file's header: refused at its position.
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    let header = format!("// gpumc-launch: {}\n{text}", huge.join(" "));
    let f = scratch("wraps.ptx", &header);
    let (code, out, err) = races(&[f.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(!out.contains("PASS"), "{out}");
    assert!(out.contains("wraps.ptx:1:17"), "{out}");
    assert!(out.contains("CUDA allows at most 65535"), "{out}");
}

#[test]
fn malformed_and_unsupported_ptx_is_reported_at_its_position() {
    let cases = [
        // A syntax error: an offset without its number.
        (
            SMALL.replace("[%rd3], %r1", "[%rd3+], %r1"),
            "expected an integer offset",
            "19:22",
        ),
        // An instruction the translation does not know.
        (
            SMALL.replace(
                "\txor.b32 %r3, %r2, 4;",
                "\tcp.async.ca.shared.global [%rd3], [%rd1], 4;",
            ),
            "unsupported",
            "20:2",
        ),
        // A label that does not exist.
        (
            SMALL.replace("\tret;", "\tbra LNOWHERE;\n\tret;"),
            "unknown label `LNOWHERE`",
            "25:2",
        ),
    ];
    for (k, (text, want, pos)) in cases.iter().enumerate() {
        // A name of its own: the tests run in parallel.
        let name = format!("bad{k}.ptx");
        let f = scratch(&name, text);
        let (code, out, err) = races(&["--block", "2", f.to_str().unwrap()]);
        assert_eq!(code, 2, "case {k}: {out}{err}");
        assert!(out.contains("ERROR"), "case {k}: {out}");
        assert!(out.contains(want), "case {k}: {out}");
        assert!(out.contains(&format!("{name}:{pos}")), "case {k}: {out}");
        let _ = std::fs::remove_file(&f);
    }
}

#[test]
fn two_kernels_need_a_choice() {
    let two = format!(
        "{SMALL}\n{}",
        &SMALL[SMALL.find(".visible").unwrap()..]
            .replace("entry k(", "entry k2(")
            .replace("k_param_0", "k2_param_0")
            .replace(".file 1 \"small.cu\"", "")
    );
    let f = scratch("two.ptx", &two);
    let (code, out, _) = races(&["--block", "2", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("choose one with `--kernel NAME`") && out.contains("k, k2"),
        "{out}"
    );
    let (code, out, _) = races(&["--block", "2", "--kernel", "k2", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("FAIL"), "{out}");
}

// (Compiled without line tables, unlike the examples.)
const SCATTER: &str = "tests/data/scatter-unsized.ptx";

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out.lines().next().unwrap_or("")).unwrap()
}

/// `B[A[tid]]` with buffers of no size, at 262,144 threads (the parametric
/// engine): atomics PASS with the assumption that the buffers are large
/// enough; a plain `++` races, with the witness's threads and inputs.
#[test]
fn a_scatter_through_unsized_buffers_is_checked_at_a_real_launch() {
    let (code, out, err) = races(&["--json", "--kernel", "scatter_add", SCATTER]);
    assert_eq!(code, 0, "{out}{err}");
    let r = json_of(&out);
    assert_eq!(r["verdict"], "PASS", "{out}");
    assert_eq!(r["engine"], "parametric", "{out}");
    let assumed = r["assumptions"].to_string();
    assert!(assumed.contains("large enough"), "{out}");
    let (code, out, err) = races(&["--kernel", "scatter_add", SCATTER]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("assumed: `param_0`, `param_1` are large enough"),
        "{out}"
    );

    let (code, out, err) = races(&["--json", "--kernel", "scatter_plain", SCATTER]);
    assert_eq!(code, 0, "{out}{err}");
    let r = json_of(&out);
    assert_eq!(r["verdict"], "FAIL", "{out}");
    let kinds: Vec<&str> = r["races"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"WAW"), "{out}");
    assert!(r["races_complete"] == true, "{out}");
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("witness of the first race: threads t"),
        "{out}"
    );
    assert!(msg.contains("param_0["), "the index read: {out}");
    // One thread has nobody to race with.
    let (code, out, err) = races(&[
        "--kernel",
        "scatter_plain",
        "--grid",
        "1",
        "--block",
        "1",
        SCATTER,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS"), "{out}");
}

/// With a size, a free index is out of bounds: undefined behaviour, with
/// the index value that reaches past the buffer.
#[test]
fn a_free_index_into_a_sized_buffer_is_out_of_bounds_with_its_value() {
    let (code, out, err) = races(&[
        "--json",
        "--kernel",
        "scatter_add",
        "--param",
        "1=buf:16",
        SCATTER,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let r = json_of(&out);
    assert_eq!(r["verdict"], "FAIL", "{out}");
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("undefined behaviour: out-of-bounds access"),
        "{out}"
    );
    assert!(msg.contains("past the 16 bytes of `param_1`"), "{out}");
    assert!(msg.contains("with param_0["), "the index value: {out}");
    // `param_0` still has no size: assumed large enough.
    assert!(
        r["assumptions"]
            .to_string()
            .contains("`param_0` is large enough"),
        "{out}"
    );
}

/// A safety check (undefined behaviour) of the scatter: the concrete
/// engine cannot take an address into a buffer of unknown size, so `auto`
/// asks the parametric engine, which finds no undefined behaviour for
/// buffers large enough (saying so), at a small launch as at a large one;
/// with a size for `B`, a free index is out of bounds, with its value.
#[test]
fn a_safety_check_of_unsized_buffers_assumes_them_large_enough() {
    for launch in [&["--grid", "1", "--block", "2"][..], &[][..]] {
        let mut args = vec!["check", "--json", "--kernel", "scatter_plain"];
        args.extend_from_slice(launch);
        args.push(SCATTER);
        let (code, out, err) = gpumc(&args);
        assert_eq!(code, 0, "{out}{err}");
        let r = json_of(&out);
        assert_eq!(r["verdict"], "NONE", "{out}");
        assert_eq!(r["engine"], "parametric", "{out}");
        assert!(
            r["assumptions"].to_string().contains("large enough"),
            "{out}"
        );
        assert!(
            r["states_note"]
                .as_str()
                .unwrap()
                .contains("undefined behaviour"),
            "{out}"
        );
    }
    let (code, out, err) = gpumc(&["check", "--kernel", "scatter_add", SCATTER]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("no condition, no undefined behaviour"),
        "{out}"
    );
    assert!(
        out.contains("assumed: `param_0`, `param_1` are large enough"),
        "{out}"
    );

    let (code, out, err) = gpumc(&[
        "check",
        "--json",
        "--kernel",
        "scatter_plain",
        "--param",
        "1=buf:16",
        SCATTER,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let r = json_of(&out);
    assert_eq!(r["verdict"], "FAIL", "{out}");
    let msg = r["message"].as_str().unwrap();
    assert!(msg.contains("out-of-bounds access"), "{out}");
    assert!(msg.contains("past the 16 bytes of `param_1`"), "{out}");
    assert!(msg.contains("with param_0["), "the index value: {out}");
}

/// `--engine parametric` is for races and safety of PTX kernels: anything else is a
/// usage error, not a silent change of engine.
#[test]
fn the_parametric_engine_refuses_what_it_does_not_check() {
    let (code, out, err) = gpumc(&[
        "check",
        "--engine",
        "parametric",
        "--property",
        "liveness",
        SCATTER,
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        (out.clone() + &err).contains("--engine parametric checks races and safety"),
        "{out}{err}"
    );
    let (code, out, err) = gpumc(&[
        "check",
        "--engine",
        "parametric",
        "--property",
        "races",
        "examples/MP-weak.litmus",
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        (out.clone() + &err).contains("--engine parametric checks races and safety"),
        "{out}{err}"
    );
}
