//! SPIR-V kernels through the parametric engine (docs/SPIRV.md, "Any
//! launch size"): buffers of unknown size (assumed large enough, the
//! assumption reported), grids the concrete engine does not take, the
//! barrier judgement of the Vulkan model, out-of-bounds accesses into
//! sized buffers with the index in the witness, errors with
//! `file:line:col`; and a differential check against the concrete
//! engines on every SPIR-V test of the corpus and of the repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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

const DATA: &str = "tests/data/spirv-param";

fn data(name: &str) -> String {
    format!("{DATA}/{name}")
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-spirv-param-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The `@Config` line of `src` replaced by `config`.
fn with_config(src: &str, config: &str) -> String {
    src.lines()
        .map(|l| {
            if l.starts_with("; @Config:") {
                format!("; @Config: {config}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(gpumc_testutil::repo_root().join(data(name))).unwrap()
}

const ASSUMED: &str =
    "assumed: `%A`, `%B` are large enough for every access (a runtime array without `@Input` contents";

#[test]
fn atomic_scatter_into_unsized_buffers_is_race_free_with_the_assumption() {
    // 1024 workgroups of 256 invocations.
    let (code, out, err) = races(&[&data("scatter-atomic.spvasm")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": PASS"), "{out}");
    assert!(out.contains("parametric engine"), "{out}");
    assert!(out.contains(ASSUMED), "{out}");
    // The same in JSON: `assumptions`.
    let (code, out, _) = races(&["--json", &data("scatter-atomic.spvasm")]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["verdict"], "PASS");
    assert_eq!(v["engine"], "parametric");
    let a = v["assumptions"].as_array().unwrap();
    assert!(
        a.iter()
            .any(|x| x.as_str().unwrap().contains("`%A`, `%B` are large enough")),
        "{out}"
    );
}

/// The witness's `%A[0][i]=v` cells, by index.
fn a_cells(text: &str) -> BTreeMap<i64, i64> {
    let mut cells = BTreeMap::new();
    for w in text.split_whitespace() {
        let w = w.trim_end_matches([',', ')', ';']);
        if let Some(rest) = w.strip_prefix("%A[0][") {
            if let Some((i, v)) = rest.split_once("]=") {
                if let (Ok(i), Ok(v)) = (i.parse(), v.parse()) {
                    cells.insert(i, v);
                }
            }
        }
    }
    cells
}

/// `P<global>@wg<k>` → (global, workgroup).
fn invocations(text: &str) -> Vec<(i64, i64)> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter_map(|w| {
            let (g, k) = w.strip_prefix('P')?.split_once("@wg")?;
            Some((g.parse().ok()?, k.parse().ok()?))
        })
        .collect()
}

#[test]
fn plain_scatter_races_with_the_line_pair_and_a_witness() {
    for (config, per_wg) in [("32, 8, 1024", 256), ("2, 1, 1", 2)] {
        let src = with_config(&read("scatter-plain.spvasm"), config);
        let p = scratch("scatter-plain.spvasm", &src);
        let (code, out, err) = races(&[p.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(": FAIL"), "{config}: {out}");
        assert!(out.contains("parametric engine"), "{config}: {out}");
        assert!(out.contains(ASSUMED), "{out}");
        // The racing pair: the load at 39:16 and the store at 41:16.
        assert!(
            out.contains("RW on %B[")
                && out.contains("OpLoad %uint %pb (39:16)")
                && out.contains("OpStore %pb %v1 (41:16)"),
            "{out}"
        );
        assert!(out.contains("WAW on %B["), "{out}");
        // The witness: two invocations (global id and workgroup agree
        // with the grid) that read the same index from A.
        let w = out
            .lines()
            .find(|l| l.contains("witness of the first race"))
            .unwrap_or_else(|| panic!("{out}"));
        let inv = invocations(w);
        assert_eq!(inv.len(), 2, "{w}");
        assert_ne!(inv[0].0, inv[1].0, "{w}");
        for (g, k) in &inv {
            assert_eq!(g / per_wg, *k, "{w}");
        }
        let cells = a_cells(w);
        let (a0, a1) = (cells.get(&inv[0].0), cells.get(&inv[1].0));
        assert!(a0.is_some() && a0 == a1, "{w}");
    }
}

#[test]
fn a_free_index_into_a_sized_buffer_is_out_of_bounds_with_its_value() {
    let (code, out, err) = races(&[&data("scatter-sized.spvasm")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": FAIL"), "{out}");
    // `%A` still has no size; `%B` has 4 elements.
    assert!(out.contains("assumed: `%A` is large enough"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("undefined behaviour: out-of-bounds access to %B at 40:16, index "))
        .unwrap_or_else(|| panic!("{out}"));
    let index: i64 = line
        .split("index ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(!(0..4).contains(&index), "{line}");
    assert!(line.contains("(length 4)"), "{line}");
    // The index is the value the invocation read from A.
    let inv = invocations(line);
    assert_eq!(inv.len(), 1, "{line}");
    assert_eq!(a_cells(line).get(&inv[0].0), Some(&index), "{line}");
    // In bounds by construction (`A[gid] & 3`): no undefined behaviour,
    // and atomics do not race.
    let masked = read("scatter-sized.spvasm")
        .replace(
            "          %k = OpLoad %uint %pa\n",
            "         %k0 = OpLoad %uint %pa\n          %k = OpBitwiseAnd %uint %k0 %c3\n",
        )
        .replace(
            "         %c1 = OpConstant %uint 1\n",
            "         %c1 = OpConstant %uint 1\n         %c3 = OpConstant %uint 3\n",
        );
    assert!(masked.contains("OpBitwiseAnd"));
    let p = scratch("scatter-masked.spvasm", &masked);
    let (code, out, _) = races(&[p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": PASS"), "{out}");
}

/// `gpumc check` (safety, the default) of a kernel without a condition.
fn safety(args: &[&str]) -> (i32, String, String) {
    let all: Vec<&str> = ["check"].into_iter().chain(args.iter().copied()).collect();
    gpumc(&all)
}

#[test]
fn safety_of_unsized_scatters_holds_with_the_assumption() {
    for f in ["scatter-plain.spvasm", "scatter-atomic.spvasm"] {
        // 262,144 invocations, and the small grid the concrete engine
        // refuses for the unknown length of `%B`.
        for config in ["32, 8, 1024", "2, 1, 1"] {
            let p = scratch(f, &with_config(&read(f), config));
            let (code, out, err) = safety(&[p.to_str().unwrap()]);
            assert_eq!(code, 0, "{out}{err}");
            assert!(
                out.contains("no condition, no undefined behaviour")
                    && out.contains("parametric engine"),
                "{config}: {out}"
            );
            assert!(out.contains(ASSUMED), "{out}");
        }
    }
}

#[test]
fn safety_finds_the_out_of_bounds_index_at_any_grid() {
    // 4 elements of `%B` given by `@Input`, `%A` free: at 262,144
    // invocations the parametric engine, at 8 the concrete one.
    for (config, parametric) in [("32, 8, 1024", true), ("4, 1, 2", false)] {
        let p = scratch(
            "scatter-sized.spvasm",
            &with_config(&read("scatter-sized.spvasm"), config),
        );
        let (code, out, err) = safety(&[p.to_str().unwrap()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(": FAIL"), "{out}");
        assert_eq!(out.contains("parametric engine"), parametric, "{out}");
        let line = out
            .lines()
            .find(|l| {
                l.contains("undefined behaviour: out-of-bounds access to %B at 40:16, index ")
            })
            .unwrap_or_else(|| panic!("{out}"));
        let index: i64 = line
            .split("index ")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        assert!(!(0..4).contains(&index), "{line}");
        if parametric {
            let inv = invocations(line);
            assert_eq!(a_cells(line).get(&inv[0].0), Some(&index), "{line}");
        }
    }
    // A test with a condition is not the parametric engine's: the
    // concrete translation's refusal stands.
    let src = read("scatter-plain.spvasm").replace(
        "; @Config: 32, 8, 1024",
        "; @Config: 32, 8, 1024\n; @Output: forall (%B[0][0] == 0)",
    );
    let p = scratch("scatter-cond.spvasm", &src);
    let (code, out, _) = safety(&[p.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("scatter-cond.spvasm:2:3: unsupported: grid of 262144 invocations"),
        "{out}"
    );
}

#[test]
fn barriers_order_what_the_model_says_they_order() {
    // AcquireRelease|UniformMemory: the model orders the write before the
    // barrier and the read after it; 262,144 invocations.
    let (code, out, _) = races(&[&data("barrier-sem-large.spvasm")]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(": PASS") && out.contains("parametric engine"),
        "{out}"
    );
    // No memory semantics: the model orders nothing. The kernel's only
    // barrier orders no pair across it, so however many lie between the
    // two accesses, none does: the race is confirmed at any grid.
    let (code, out, _) = races(&[&data("barrier-nosem.spvasm")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": FAIL"), "{out}");
    let (code, out, _) = races(&[&data("barrier-nosem-large.spvasm")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": FAIL"), "{out}");
    assert!(out.contains("witness of the first race: threads"), "{out}");
    // A second barrier of another kind, with memory semantics, after the
    // read: only barriers that order nothing lie between the accesses
    // (each thread counts the barriers it passed per kind), and the two
    // kinds' judgement says so, so the race is still confirmed.
    let src = read("barrier-nosem-large.spvasm").replace(
        "               OpReturn\n",
        "               OpControlBarrier %uint_2 %uint_2 %uint_72\n               OpReturn\n",
    );
    let p = scratch("barrier-two-kinds.spvasm", &src);
    let (code, out, _) = races(&[p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": FAIL"), "{out}");
    assert!(out.contains("witness of the first race: threads"), "{out}");
    // The same barrier between the write and the read, beside the one
    // without semantics: one that orders them lies between them.
    let src = read("barrier-nosem-large.spvasm").replace(
        "               OpControlBarrier %uint_2 %uint_2 %uint_0\n",
        "               OpControlBarrier %uint_2 %uint_2 %uint_0\n               OpControlBarrier %uint_2 %uint_2 %uint_72\n",
    );
    let p = scratch("barrier-two-kinds-between.spvasm", &src);
    let (code, out, _) = races(&[p.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(": PASS") && out.contains("parametric engine"),
        "{out}"
    );
}

#[test]
fn refusals_are_errors_at_their_position() {
    // An opcode neither translation takes, at 262,144 invocations.
    let src =
        read("scatter-plain.spvasm").replace("OpIAdd %uint %v %c1", "OpUMulExtended %uint %v %c1");
    let p = scratch("umul.spvasm", &src);
    let (code, out, err) = races(&[p.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    let line = src
        .lines()
        .position(|l| l.contains("OpUMulExtended"))
        .map(|k| k + 1)
        .unwrap();
    assert!(
        out.contains(&format!("umul.spvasm:{line}:"))
            && out.contains("unsupported: opcode `OpUMulExtended`"),
        "{out}"
    );
    // The parametric engine checks races and safety only.
    let (code, out, err) = gpumc(&[
        "check",
        "--property",
        "liveness",
        "--engine",
        "parametric",
        &data("scatter-atomic.spvasm"),
    ]);
    assert_eq!(code, 2, "{out}{err}");
}

/// Every SPIR-V test of the corpus and of the repository, under `races`:
/// what the parametric engine decides by itself agrees with the concrete
/// engine (a PASS is a PASS, a confirmed race a race).
#[test]
fn parametric_never_contradicts_the_concrete_engine() {
    let mut files: Vec<PathBuf> = Vec::new();
    let corpus = gpumc_testutil::shared_corpus().join("dat3m/spirv");
    let have_corpus = corpus.is_dir();
    if !have_corpus {
        eprintln!(
            "skipping the corpus part: {} is absent (see ../shared/corpus/README.md)",
            corpus.display()
        );
    } else {
        collect(&corpus, &mut files);
    }
    let root = gpumc_testutil::repo_root();
    collect(&root.join("examples"), &mut files);
    // (small grids only: the concrete engine must take them)
    for f in ["barrier-nosem.spvasm", "scatter-sized.spvasm"] {
        files.push(root.join(DATA).join(f));
    }
    files.sort();
    let names: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let run = |engine: &str| -> BTreeMap<String, serde_json::Value> {
        let mut args = vec![
            "check",
            "--property",
            "races",
            "--engine",
            engine,
            "--json",
            "--timeout",
            "120",
        ];
        args.extend(&names);
        let (code, out, err) = gpumc(&args);
        assert!(code == 0 || code == 1, "{engine}: {err}");
        out.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["file"].as_str().unwrap().to_string(), v)
            })
            .collect()
    };
    let param = run("parametric");
    let concrete = run("symbolic");
    assert_eq!(param.len(), files.len());
    let (mut decided, mut agree) = (0, 0);
    let mut bad = Vec::new();
    for (f, p) in &param {
        let c = &concrete[f];
        if p["engine"] != "parametric" {
            continue;
        }
        let (pv, cv) = (
            p["verdict"].as_str().unwrap(),
            c["verdict"].as_str().unwrap(),
        );
        if pv == "PASS" || pv == "FAIL" {
            decided += 1;
        }
        match (pv, cv) {
            ("PASS", "PASS") | ("FAIL", "FAIL") => agree += 1,
            ("PASS", "FAIL") | ("FAIL", "PASS") => {
                bad.push(format!("{f}: parametric {pv}, concrete {cv}"))
            }
            _ => {}
        }
    }
    eprintln!(
        "the parametric engine decided {decided} of {} SPIR-V tests by itself ({agree} checked against a concrete verdict); the others went to the concrete engine or stayed UNKNOWN",
        files.len()
    );
    assert!(bad.is_empty(), "{bad:#?}");
    if have_corpus {
        assert!(decided >= 100, "decided only {decided}");
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "spvasm") {
            out.push(p);
        }
    }
}

/// An `@Input` value far into a runtime array (an `ArrayStride` of 2^31:
/// the second element sits 2 GiB in) costs what its text costs: the
/// generic translation once built every byte up to it: 2 GiB, past any
/// `--max-memory` (found by fuzzing, docs/TESTING.md).
#[test]
fn an_initialiser_far_into_an_array_is_not_spelled_out_byte_by_byte() {
    let src =
        std::fs::read_to_string(gpumc_testutil::repo_root().join("examples/race-if-n.spvasm"))
            .unwrap()
            .replace("ArrayStride 4", "ArrayStride 2147483648")
            .replace("@Input: %out = {{0, 0}}", "@Input: %out = {{0, 1}}");
    let p = scratch("far-input.spvasm", &src);
    let p = p.to_str().unwrap();
    for property in ["races", "safety"] {
        let (code, out, err) = gpumc(&[
            "check",
            p,
            "--engine",
            "parametric",
            "--property",
            property,
            "--max-memory",
            "256",
        ]);
        assert_eq!(code, 0, "{property}: {out}{err}");
        let want = if property == "races" {
            "FAIL"
        } else {
            "no condition, no undefined behaviour"
        };
        assert!(out.contains(want), "{property}: {out}{err}");
    }
}

/// Launch options meant for PTX kernels are not applied to a SPIR-V test
/// (its `; @Config:` line launches it) or a litmus test, and the report
/// says so instead of ignoring them in silence.
#[test]
fn launch_options_a_test_does_not_take_are_reported() {
    let (code, out, err) = races(&["examples/race-if-n.spvasm", "--grid", "4", "--block", "8"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  Launch: --grid, --block, --kernel, --param and --shared-bytes launch PTX kernels (not applied here: a SPIR-V test is launched as its `; @Config:` line says)"),
        "{out}"
    );
    let (_, out, _) = gpumc(&[
        "check",
        "--json",
        "examples/MP-relacq.litmus",
        "--block",
        "2",
    ]);
    assert!(out.contains("\"launch_note\""), "{out}");
    assert!(
        out.contains("a litmus test's threads are its columns"),
        "{out}"
    );
    let (_, out, _) = races(&["examples/race-if-n.spvasm"]);
    assert!(!out.contains("Launch:"), "{out}");
}
