//! `gpumc compile` end to end: the C tests of `tests/compile/` compiled to
//! PTX and Vulkan (golden files in `tests/compile/golden/`;
//! `GPUMC_BLESS=1` rewrites them), the compiled tests checked under
//! `ptx-v6.0`, `ptx-v7.5` and `vulkan` with the outcomes the mappings
//! promise, run on the reference interpreter (`gpumc run --backend
//! interp`), and the CLI's errors.

use std::path::{Path, PathBuf};

fn gpumc_in(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, stdin)
}

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_in(args, None)
}

/// A directory of one test (tests run in parallel).
fn scratch(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-compile-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const FLAWED: &str = "examples/mappings/ptx-rmw-sc-no-release.map";
const VULKAN_RELEASE_WRITES: &str = "examples/mappings/vulkan-release-writes.map";

/// The verdict of `exists` (PASS: the outcome is reachable) per model.
fn verdict(file: &Path, model: &str) -> String {
    verdict_of(file, model, "safety")
}

fn verdict_of(file: &Path, model: &str, property: &str) -> String {
    let f = file.to_str().unwrap();
    let (code, out, err) = gpumc(&[
        "check",
        "--json",
        "--model",
        model,
        "--property",
        property,
        f,
    ]);
    assert_eq!(code, 0, "{f} under {model}: {out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    v["verdict"].as_str().unwrap().to_string()
}

/// Compiles `tests/compile/NAME.litmus` to `to` (optionally with a
/// mapping) into the scratch directory.
fn compile(dir: &Path, name: &str, to: &str, mapping: Option<&str>) -> PathBuf {
    let out = dir.join(format!(
        "{name}.{to}{}.litmus",
        if mapping.is_some() { ".m" } else { "" }
    ));
    let src = format!("tests/compile/{name}.litmus");
    let mut args = vec!["compile", "--to", to, "--out", out.to_str().unwrap()];
    if let Some(m) = mapping {
        args.extend(["--mapping", m]);
    }
    args.push(&src);
    let (code, stdout, err) = gpumc(&args);
    assert_eq!(code, 0, "compile {src} --to {to}: {err}");
    assert!(stdout.is_empty(), "{stdout}");
    out
}

/// Under the source model and each target model: does the test's
/// `exists` outcome happen? (`None`: not asserted — a racy C test, whose
/// behaviour is undefined.)
#[allow(clippy::type_complexity)]
const OUTCOMES: &[(&str, Option<bool>, bool, bool)] = &[
    // (test, scoped-c11, ptx-v6.0 and ptx-v7.5, vulkan)
    ("MP", Some(false), false, false),
    ("MP-cta", None, true, true),
    ("MP-fences", Some(false), false, false),
    ("SB-sc", Some(false), false, true),
    // Vulkan's release sequences are only RMW chains (C++20's), RC11's
    // include the relaxed store: allowed with the built-in Vulkan mapping
    // (docs/MAPPING.md; closed by examples/mappings/vulkan-release-writes.map).
    ("ISA2-rmw-sc", Some(false), false, true),
    ("locals", Some(true), true, true),
];

fn word(reachable: bool) -> &'static str {
    if reachable {
        "PASS"
    } else {
        "FAIL"
    }
}

#[test]
fn compiled_tests_check_under_the_target_models() {
    let dir = scratch("models");
    for &(name, c, ptx, vulkan) in OUTCOMES {
        let src = PathBuf::from(format!("tests/compile/{name}.litmus"));
        if let Some(c) = c {
            assert_eq!(
                verdict(&src, "scoped-c11"),
                word(c),
                "{name} under scoped-c11"
            );
        }
        // The tests whose C outcome is asserted are race-free; MP-cta races.
        let race_free = verdict_of(&src, "scoped-c11", "races");
        assert_eq!(
            race_free,
            word(c.is_some()),
            "{name}: races under scoped-c11"
        );
        let p = compile(&dir, name, "ptx", None);
        for model in ["ptx-v6.0", "ptx-v7.5"] {
            assert_eq!(
                verdict(&p, model),
                word(ptx),
                "{name} compiled to PTX, under {model}"
            );
        }
        let v = compile(&dir, name, "vulkan", None);
        assert_eq!(
            verdict(&v, "vulkan"),
            word(vulkan),
            "{name} compiled to Vulkan"
        );
    }
}

/// Lustig et al., ASPLOS'19 Fig. 12: the SC RMW compiled without
/// `.release` lets the final plain read miss the first write.
#[test]
fn the_flawed_rmw_sc_mapping_allows_fig_12s_outcome() {
    let p = compile(&scratch("flawed"), "ISA2-rmw-sc", "ptx", Some(FLAWED));
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains("atom.acquire.gpu.exch"), "{text}");
    for model in ["ptx-v6.0", "ptx-v7.5"] {
        assert_eq!(verdict(&p, model), "PASS", "flawed mapping under {model}");
    }
}

/// With every atomic write a release, the Vulkan release-sequence gap of
/// ISA2-rmw-sc closes; the other outcomes stay as with the built-in
/// mapping (SB-sc: Vulkan has no sequential consistency).
#[test]
fn the_release_writes_vulkan_mapping_closes_the_release_sequence_gap() {
    let dir = scratch("release-writes");
    for &(name, _, _, vulkan) in OUTCOMES {
        let v = compile(&dir, name, "vulkan", Some(VULKAN_RELEASE_WRITES));
        let want = vulkan && name != "ISA2-rmw-sc";
        assert_eq!(verdict(&v, "vulkan"), word(want), "{name}");
    }
}

#[test]
fn compiled_tests_match_the_golden_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("tests/compile/golden");
    let bless = std::env::var_os("GPUMC_BLESS").is_some();
    for &(name, ..) in OUTCOMES {
        for to in ["ptx", "vulkan"] {
            let src = format!("tests/compile/{name}.litmus");
            let (code, got, err) = gpumc(&["compile", "--to", to, &src]);
            assert_eq!(code, 0, "{err}");
            let want_file = golden.join(format!("{name}.{to}.litmus"));
            if bless {
                std::fs::create_dir_all(&golden).unwrap();
                std::fs::write(&want_file, &got).unwrap();
            }
            let want = std::fs::read_to_string(&want_file).unwrap_or_else(|e| {
                panic!("{}: {e} (GPUMC_BLESS=1 writes it)", want_file.display())
            });
            assert_eq!(got, want, "{src} --to {to}");
        }
    }
}

#[test]
fn the_header_names_the_source_and_the_mapping() {
    let (code, out, err) = gpumc(&["compile", "--to", "ptx", "tests/compile/MP.litmus"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("PTX MP"));
    assert_eq!(
        lines.next(),
        Some("\"Compiled by gpumc compile from tests/compile/MP.litmus (test MP) to ptx with mapping ptx (built-in)\"")
    );
    let (code, out, _) = gpumc(&[
        "compile",
        "--to",
        "ptx",
        "--mapping",
        FLAWED,
        "tests/compile/MP.litmus",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains(&format!("with mapping {FLAWED}")), "{out}");
}

#[test]
fn standard_input_compiles_too() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compile/MP.litmus"),
    )
    .unwrap();
    let (code, out, err) = gpumc_in(&["compile", "--to", "vulkan", "-"], Some(&text));
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("VULKAN MP\n\"Compiled by gpumc compile from <stdin>"),
        "{out}"
    );
    assert!(out.contains("ld.atom.acq.qf.sc0.semsc0.semvis"), "{out}");
}

#[test]
fn compiled_tests_run_on_the_interpreter() {
    let dir = scratch("interp");
    let mut files = Vec::new();
    for &(name, ..) in OUTCOMES {
        for to in ["ptx", "vulkan"] {
            files.push(compile(&dir, name, to, None).to_str().unwrap().to_string());
        }
    }
    let mut args = vec!["run", "--backend", "interp", "--iterations", "2", "--json"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = gpumc(&args);
    assert_eq!(code, 0, "{out}{err}");
    let reports: Vec<serde_json::Value> = out
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &serde_json::Value| v.get("histogram").is_some())
        .collect();
    assert_eq!(reports.len(), files.len(), "{out}");
    for r in &reports {
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["violations"].as_array().unwrap().is_empty(), "{r}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_name_the_position_and_exit_2() {
    let dir = scratch("errors");
    // An operation the mapping does not cover: at the C instruction.
    let partial = dir.join("partial.map");
    std::fs::write(
        &partial,
        "target ptx\nload na -> ld.weak\nstore na -> st.weak\n",
    )
    .unwrap();
    let (code, _, err) = gpumc(&[
        "compile",
        "--to",
        "ptx",
        "--mapping",
        partial.to_str().unwrap(),
        "tests/compile/MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("tests/compile/MP.litmus:9:3: mapping")
            && err.contains("has no rule for `store rel gpu`"),
        "{err}"
    );
    // A mapping error: at the mapping file.
    let bad = dir.join("bad.map");
    std::fs::write(&bad, "target ptx\nload acq $s -> ld.acquire.$s.gpu\n").unwrap();
    let (code, _, err) = gpumc(&[
        "compile",
        "--to",
        "ptx",
        "--mapping",
        bad.to_str().unwrap(),
        "tests/compile/MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.map:2:"), "{err}");
    // Mapping for another target; not a C test; no such file; bad target.
    let (code, _, err) = gpumc(&[
        "compile",
        "--to",
        "vulkan",
        "--mapping",
        "ptx",
        "tests/compile/MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("compiles to ptx, not to vulkan"), "{err}");
    let (code, _, err) = gpumc(&["compile", "--to", "ptx", "examples/MP-relacq.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("compiles C litmus tests"), "{err}");
    let (code, _, err) = gpumc(&["compile", "--to", "ptx", "no-such.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such.litmus"), "{err}");
    let (code, _, err) = gpumc(&["compile", "--to", "arm", "tests/compile/MP.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown target `arm`"), "{err}");
    let (code, _, err) = gpumc(&[
        "compile",
        "--to",
        "ptx",
        "--mapping",
        "nope",
        "tests/compile/MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a mapping is a built-in name: ptx, vulkan, or a .map file"),
        "{err}"
    );
}

#[test]
fn check_mapping_lists_uncovered_operations() {
    for m in ["ptx", "vulkan", FLAWED, VULKAN_RELEASE_WRITES] {
        let (code, out, err) = gpumc(&["compile", "--check-mapping", m]);
        assert_eq!(code, 0, "{m}: {err}");
        assert!(out.contains("50 of 50 operations covered"), "{out}");
    }
    let dir = scratch("check-mapping");
    let partial = dir.join("partial.map");
    std::fs::write(
        &partial,
        "target vulkan\nload na -> ld.nonpriv.sc0\nfence * * -> nop\n",
    )
    .unwrap();
    let (code, out, _) = gpumc(&["compile", "--check-mapping", partial.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("16 of 50 operations covered"), "{out}");
    assert!(out.contains("\n  store na\n"), "{out}");
    assert!(out.contains("\n  rmw sc sys\n"), "{out}");
    assert!(!out.contains("fence"), "{out}");
    let bad = dir.join("bad.map");
    std::fs::write(&bad, "target vulkan\nlod na -> ld.nonpriv.sc0\n").unwrap();
    let (code, _, err) = gpumc(&["compile", "--check-mapping", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.map:2:1: unknown operation `lod`"),
        "{err}"
    );
}

/// A one-thread test has the same final states in C and compiled: the
/// locals, comparisons and branches mean the same (the compiled test names
/// its registers `rN`; observables are listed in the same order).
#[test]
fn compiled_locals_have_the_c_final_states() {
    let dir = scratch("locals");
    let states = |file: &Path, model: &str| {
        let f = file.to_str().unwrap();
        let (code, out, err) = gpumc(&["check", "--json", "--model", model, f]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        (v["observables"].clone(), v["states"].clone())
    };
    let src = PathBuf::from("tests/compile/locals.litmus");
    let (names, want) = states(&src, "scoped-c11");
    assert_eq!(want.as_array().unwrap().len(), 1, "{want}");
    for (to, model) in [
        ("ptx", "ptx-v6.0"),
        ("ptx", "ptx-v7.5"),
        ("vulkan", "vulkan"),
    ] {
        let (got_names, got) = states(&compile(&dir, "locals", to, None), model);
        assert_eq!(got, want, "{to} under {model}: {got_names} vs {names}");
    }
    let (_, out, _) = gpumc(&["compile", "--to", "ptx", "tests/compile/locals.litmus"]);
    assert!(
        out.contains("\"Registers: P0:a is P0:r0, P0:c is P0:r4, P0:d is P0:r6, P0:e is P0:r7, P0:f is P0:r10\""),
        "{out}"
    );
}

/// Every C litmus test of the repository (`examples/c`, `tests/compile`),
/// compiled with each mapping, against the target models: a race-free C
/// test whose outcome scoped C/C++ forbids must stay forbidden once
/// compiled, unless the mapping is known not to keep it. PTX (Fig. 11):
/// no exception. Vulkan: only tests with seq_cst operations (Vulkan has
/// none), and with the built-in mapping also release sequences continued
/// by a relaxed write (docs/MAPPING.md) — the tests of the Fig. 12 shape.
#[test]
fn race_free_c_outcomes_stay_forbidden_once_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch("soundness");
    let mut files = Vec::new();
    for d in ["examples/c", "tests/compile"] {
        let mut stack = vec![root.join(d)];
        while let Some(p) = stack.pop() {
            for e in std::fs::read_dir(&p).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "litmus")
                    && !p.components().any(|c| c.as_os_str() == "golden")
                {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    // Is the condition's outcome reachable? (`None`: `forall`.)
    let reachable = |file: &Path, model: &str| -> Option<bool> {
        let text = std::fs::read_to_string(file).unwrap();
        let exists = if text.lines().any(|l| l.trim_start().starts_with("exists")) {
            true
        } else if text.lines().any(|l| {
            l.trim_start().starts_with("~exists") || l.trim_start().starts_with("not exists")
        }) {
            false
        } else {
            return None;
        };
        Some((verdict(file, model) == "PASS") == exists)
    };
    let mut checked = 0;
    let mut gaps: [Vec<String>; 2] = Default::default();
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        if verdict_of(f, "scoped-c11", "races") != "PASS"
            || reachable(f, "scoped-c11") != Some(false)
        {
            continue; // racy (undefined) or allowed in C: nothing to keep
        }
        if std::fs::read_to_string(f).unwrap().contains("barrier(") {
            // `gpumc compile` refuses barriers (docs/C.md, "OpenCL tests"),
            // which `compile_refuses_barriers_by_name` checks.
            continue;
        }
        checked += 1;
        let src = f.to_str().unwrap();
        let uses_sc = {
            let text = std::fs::read_to_string(f).unwrap();
            text.contains("seq_cst")
                || text.contains("atomic_load(")
                || text.contains("atomic_store(")
        };
        let out = |tag: &str| dir.join(format!("{name}.{tag}.litmus"));
        let run = |to: &str, mapping: Option<&str>, tag: &str| {
            let o = out(tag);
            let mut args = vec!["compile", "--to", to, "--out", o.to_str().unwrap()];
            if let Some(m) = mapping {
                args.extend(["--mapping", m]);
            }
            args.push(src);
            let (code, _, err) = gpumc(&args);
            assert_eq!(code, 0, "{src}: {err}");
            o
        };
        let ptx = run("ptx", None, "ptx");
        for model in ["ptx-v6.0", "ptx-v7.5"] {
            assert_eq!(
                reachable(&ptx, model),
                Some(false),
                "{name}: PTX under {model}"
            );
        }
        for (k, mapping) in [None, Some(VULKAN_RELEASE_WRITES)].into_iter().enumerate() {
            let vk = run("vulkan", mapping, &format!("vk{k}"));
            if reachable(&vk, "vulkan") == Some(true) {
                gaps[k].push(name.clone());
                if k == 1 {
                    assert!(
                        uses_sc,
                        "{name}: allowed on Vulkan without seq_cst operations"
                    );
                }
            }
        }
    }
    assert!(
        checked >= 15,
        "only {checked} race-free forbidden C outcomes"
    );
    let (builtin, release_writes) = (&gaps[0], &gaps[1]);
    // The release-writes mapping loses only what seq_cst gives...
    assert!(
        release_writes.iter().any(|n| n.starts_with("SB")),
        "{release_writes:?}"
    );
    assert!(
        release_writes.iter().all(|n| builtin.contains(n)),
        "{builtin:?} {release_writes:?}"
    );
    // ... the built-in one also the release sequences of Fig. 12's shape.
    let rs_only: Vec<&String> = builtin
        .iter()
        .filter(|n| !release_writes.contains(n))
        .collect();
    assert!(!rs_only.is_empty(), "{builtin:?}");
    assert!(rs_only.iter().all(|n| n.starts_with("ISA2")), "{rs_only:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A barrier has no rule in the mappings: compiling a test with one is an
/// error at its position (exit 2), not a test without it.
#[test]
fn compile_refuses_barriers_by_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("examples/c/MP+barrier.same-cta.litmus");
    for to in ["ptx", "vulkan"] {
        let (code, _, err) = gpumc(&["compile", "--to", to, src.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(
                "MP+barrier.same-cta.litmus:10:3: unsupported: compiling the control barrier"
            ),
            "{err}"
        );
    }
}
