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
