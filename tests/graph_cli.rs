//! `gpumc check --graph`: the files it writes, with and without worker
//! processes, and its errors (exit status 2).

use std::path::{Path, PathBuf};
use std::process::Command;

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-graph-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn writes_one_graph_per_test_and_format_in_workers_and_in_process() {
    for isolate in [true, false] {
        let dir = scratch(if isolate { "workers" } else { "inproc" });
        let d = dir.to_str().unwrap();
        let mut args = vec![
            "check",
            "examples/MP-weak.litmus",
            "examples/MP-relacq.litmus",
            "examples/mp-vulkan.litmus",
            "--graph",
            "dot,svg",
            "--graph-out",
            d,
        ];
        if !isolate {
            args.push("--no-isolate");
        }
        let (code, out, err) = gpumc(&args);
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            names(&dir),
            [
                "MP-relacq.dot",
                "MP-relacq.svg",
                "MP-weak.dot",
                "MP-weak.svg",
                "mp-vulkan.dot",
                "mp-vulkan.svg"
            ]
        );
        // The text report names the violated axiom of the forbidden outcome.
        assert!(
            out.contains("violates axiom `causality` (irreflexive): cycle e5 -fr-> e2 -cause-> e5"),
            "{out}"
        );
        assert!(
            out.contains("violates axiom `consistency` (acyclic)"),
            "{out}"
        );
        let svg = std::fs::read_to_string(dir.join("MP-relacq.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("edge rel-cause cycle"));
        let dot = std::fs::read_to_string(dir.join("MP-weak.dot")).unwrap();
        assert!(dot.starts_with("digraph") && dot.contains("class=\"edge rel-rf\""));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn graph_all_suffixes_and_the_cap() {
    let dir = scratch("all");
    let d = dir.to_str().unwrap();
    let (code, out, err) = gpumc(&[
        "check",
        "examples/MP-weak.litmus",
        "examples/MP-relacq.litmus",
        "--graph",
        "svg",
        "--graph-out",
        d,
        "--graph-all",
        "--graph-max",
        "3",
        "--show",
        "cause",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        names(&dir),
        [
            "MP-relacq-1.svg",
            "MP-relacq-2.svg",
            "MP-relacq-3.svg",
            "MP-relacq-rejected.svg",
            "MP-weak-1.svg",
            "MP-weak-2.svg",
            "MP-weak-3.svg"
        ]
    );
    // MP-weak has 4 executions: the cap cut one, and the report says so.
    assert!(out.contains("--graph-max cut the rest"), "{out}");
    let s = std::fs::read_to_string(dir.join("MP-weak-1.svg")).unwrap();
    assert!(s.contains("legend-entry rel-cause"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_reports_carry_the_graph_data() {
    let dir = scratch("json");
    let (code, out, _) = gpumc(&[
        "check",
        "--json",
        "examples/MP-relacq.litmus",
        "--graph",
        "dot",
        "--graph-out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let rej = &v["graph"]["rejected"];
    assert_eq!(rej["violation"]["axiom"], "causality");
    assert!(rej["threads"][1]["scopes"].is_array());
    assert!(rej["events"][3]["tags"].is_array());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unknown_show_name_is_an_error_listing_the_models_relations() {
    let dir = scratch("show");
    let (code, out, _) = gpumc(&[
        "check",
        "examples/MP-weak.litmus",
        "--graph",
        "svg",
        "--graph-out",
        dir.to_str().unwrap(),
        "--show",
        "caus",
    ]);
    assert_eq!(code, 2);
    assert!(out.contains("no relation named `caus`"), "{out}");
    assert!(out.contains(" cause "), "{out}");
}

#[test]
fn unwritable_graph_out_is_an_error() {
    // --graph-out names a file.
    let dir = scratch("file");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) = gpumc(&[
        "check",
        "examples/MP-weak.litmus",
        "--graph",
        "svg",
        "--graph-out",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--graph-out"), "{err}");
    // A graph file that cannot be written (a directory is in the way).
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("MP-weak.svg")).unwrap();
    let (code, _, err) = gpumc(&[
        "check",
        "examples/MP-weak.litmus",
        "--graph",
        "svg",
        "--graph-out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot write") && err.contains("MP-weak.svg"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn graph_needs_an_output_directory() {
    let (code, _, err) = gpumc(&["check", "examples/MP-weak.litmus", "--graph", "svg"]);
    assert_eq!(code, 2);
    assert!(err.contains("--graph-out"), "{err}");
    let (code, _, err) = gpumc(&["check", "examples/MP-weak.litmus", "--graph", "png"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn graphviz_layout_when_installed() {
    if Command::new("dot").arg("-V").output().is_err() {
        eprintln!("skipped: Graphviz `dot` is not installed");
        return;
    }
    let dir = scratch("graphviz");
    let (code, out, err) = gpumc(&[
        "check",
        "examples/MP-relacq.litmus",
        "--graph",
        "svg",
        "--graph-layout",
        "dot",
        "--graph-out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let s = std::fs::read_to_string(dir.join("MP-relacq.svg")).unwrap();
    // Graphviz's SVG, with our edge classes copied.
    assert!(s.contains("Generated by graphviz"), "not Graphviz output");
    assert!(s.contains("cycle"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The width the SVG declares on its root element.
fn svg_width(svg: &str) -> f64 {
    let at = svg.find("width=\"").expect("a width") + 7;
    svg[at..at + svg[at..].find('"').unwrap()].parse().unwrap()
}

/// A race picture marks the reported pair: a red (`cycle`) edge from the
/// first racing event to the second, labelled with the kind, and a
/// kernel's picture shows only the two racing threads unless
/// `--graph-full`. The stencil without its barrier, 16 threads, checked
/// by the concrete symbolic engine (a witness execution with every
/// thread) and by the parametric engine (no execution: the two accesses).
#[test]
fn race_pictures_mark_the_pair_and_fit_a_kernel_in_1600_px() {
    if !gpumc_testutil::tools_or_skip(&["clang"], "GPUMC_REQUIRE_CLANG", "CUDA race pictures") {
        return;
    }
    let launch = [
        "check",
        "examples/cuda/stencil.cu",
        "--kernel",
        "stencil_1d_no_barrier",
        "--grid",
        "4",
        "--block",
        "4",
        "--param",
        "in=buf:72",
        "--param",
        "out=buf:64",
        "--property",
        "races",
    ];
    for engine in ["symbolic", "parametric"] {
        let dir = scratch(&format!("race-{engine}"));
        let d = dir.to_str().unwrap();
        let mut args = launch.to_vec();
        args.extend([
            "--engine",
            engine,
            "--json",
            "--graph",
            "svg",
            "--graph-out",
            d,
        ]);
        let (code, out, err) = gpumc(&args);
        assert_eq!(code, 0, "{engine}: {out}{err}");
        assert!(out.contains("\"verdict\":\"FAIL\""), "{engine}: {out}");
        let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        let race = &report["races"][0];
        let svg = std::fs::read_to_string(dir.join("stencil.svg")).unwrap();
        let (a, b) = if race["in_witness"] == true {
            (
                race["events"][0].as_u64().unwrap(),
                race["events"][1].as_u64().unwrap(),
            )
        } else {
            (0, 1)
        };
        let kind = race["kind"].as_str().unwrap();
        let edge = format!("data-from=\"e{a}\" data-to=\"e{b}\"");
        let red = svg
            .lines()
            .find(|l| l.contains(&edge) && l.contains(" cycle\""))
            .unwrap_or_else(|| panic!("{engine}: no red edge e{a} -> e{b} in\n{svg}"));
        assert!(red.contains("#d50000"), "{red}");
        assert!(
            svg.contains(&format!(">race {kind}</text>")),
            "{engine}: kind label"
        );
        for side in [0, 1] {
            let thread = race["threads"][side].as_str().unwrap();
            assert!(
                svg.contains(&format!("data-thread=\"{thread}\"")),
                "{engine}: {thread}"
            );
            let src = race["source"][side].as_str().unwrap();
            assert!(svg.contains(src), "{engine}: caption names {src}");
        }
        // Only the two racing threads.
        assert_eq!(svg.matches("class=\"thread\"").count(), 2, "{engine}");
        let w = svg_width(&svg);
        assert!(w <= 1600.0, "{engine}: {w} px wide");
        if engine == "symbolic" {
            // Every thread on request.
            let full = scratch("race-full");
            let f = full.to_str().unwrap();
            let mut args = launch.to_vec();
            args.extend([
                "--engine",
                engine,
                "--graph",
                "svg",
                "--graph-full",
                "--graph-out",
                f,
            ]);
            let (code, out, err) = gpumc(&args);
            assert_eq!(code, 0, "{out}{err}");
            let svg = std::fs::read_to_string(full.join("stencil.svg")).unwrap();
            assert_eq!(svg.matches("class=\"thread\"").count(), 16);
            assert!(svg.contains(&edge), "the same pair in the full picture");
            let _ = std::fs::remove_dir_all(&full);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A liveness FAIL found as an interleaving lasso (no execution) is drawn
/// with the steps that repeat, not as "nothing to draw": CADP's
/// `132_simple` under OBE (a thread spins reading 0 while the one that
/// would write is never scheduled again).
#[test]
fn liveness_lasso_picture_shows_the_repeating_steps() {
    let dir = scratch("lasso");
    std::fs::create_dir_all(&dir).unwrap();
    // Our own spin test of the same shape: P0 would exchange Mem0 to 1, P1
    // waits for it; under OBE P0 need never run.
    let test = dir.join("wait-for-exchange.litmus");
    std::fs::write(
        &test,
        "VULKAN wait-for-exchange\n{ Mem0=0; }\n P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, Mem0, 1 | ld.atom.wg.sc0 r1, Mem0 ;\n bne r0, 0, LC00 | beq r1, 0, LC10 ;\nexists (0 == 0)\n",
    )
    .unwrap();
    let d = dir.join("g");
    let (code, out, err) = gpumc(&[
        "check",
        test.to_str().unwrap(),
        "--property",
        "liveness",
        "--progress",
        "obe",
        "--graph",
        "svg",
        "--graph-out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Liveness violation"), "{out}");
    let svg = std::fs::read_to_string(d.join("wait-for-exchange.svg")).unwrap();
    assert!(!svg.contains("Nothing to draw"), "{svg}");
    assert!(svg.contains("Liveness violation"), "caption");
    assert!(svg.contains(" cycle\""), "the repeating steps in red");
    assert!(svg.contains("in-cycle"), "the repeating events marked");
    let _ = std::fs::remove_dir_all(&dir);
}
