//! The AXB parser and printers: both corpus forms round-trip byte for byte
//! and agree; malformed files give `file:line:col` errors and exit 2.

#[path = "progress_util.rs"]
mod util;

use clap::{CommandFactory, Parser};
use gpumc::progress::ast::{Axb, Test};
use gpumc::progress::cli::{run, run_captured, ProgressArgs, ProgressCmd};
use gpumc::progress::parse::{parse, parse_file};
use gpumc::progress::print::{to_simple, to_txt};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

#[derive(Parser)]
struct Top {
    #[command(flatten)]
    progress: ProgressArgs,
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpumc-progress-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn corpus_round_trips_in_both_forms() {
    let Some(root) = util::progress_corpus("corpus_round_trips_in_both_forms") else {
        return;
    };
    let mut n = 0;
    for cfg in util::CONFIGS {
        let dir = root.join(cfg);
        let mut ids: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter_map(|f| f.strip_suffix("_simple.txt").map(str::to_string))
            .collect();
        ids.sort();
        for id in ids {
            let txt_path = dir.join(format!("{id}.txt"));
            let simple_path = dir.join(format!("{id}_simple.txt"));
            let txt = parse_file(&txt_path).unwrap();
            let simple = parse_file(&simple_path).unwrap();
            assert_eq!(txt, simple, "{cfg}/{id}: the two forms differ");
            assert_eq!(
                to_txt(&txt),
                std::fs::read_to_string(&txt_path).unwrap(),
                "{cfg}/{id}.txt"
            );
            assert_eq!(
                to_simple(&simple),
                std::fs::read_to_string(&simple_path).unwrap(),
                "{cfg}/{id}_simple.txt"
            );
            n += 1;
        }
    }
    assert_eq!(n, 483);
}

#[test]
fn directory_loading_counts_each_test_once() {
    let Some(root) = util::progress_corpus("directory_loading_counts_each_test_once") else {
        return;
    };
    let tests = gpumc::progress::corpus::load(&[root]).unwrap();
    assert_eq!(tests.len(), 483);
    let per_cfg = |t: usize, i: usize| tests.iter().filter(|x| x.config == Some((t, i))).count();
    assert_eq!(
        [
            per_cfg(2, 2),
            per_cfg(2, 3),
            per_cfg(2, 4),
            per_cfg(3, 3),
            per_cfg(3, 4)
        ],
        [8, 176, 173, 21, 105]
    );
}

/// (file contents, expected `line:col`, expected message fragment).
const MALFORMED: &[(&str, &str, &str)] = &[
    ("THREAD0\natomic_store(0,1\n", "2:17", "expected `)`"),
    (
        "THREAD0\natomic_stor(0,1)\n",
        "2:1",
        "unknown instruction `atomic_stor`",
    ),
    ("THREAD 1\n0: Mem[0] = 1;\n", "1:8", "expected THREAD 0"),
    ("atomic_store(0,1)\n", "1:1", "before the first `THREAD`"),
    (
        "THREAD0\natomic_chk_branch(0,0,5)\n",
        "2:23",
        "out of range",
    ),
    (
        "THREAD 0\n1: Mem[0] = 1;\n",
        "2:1",
        "expected instruction label 0",
    ),
    (
        "THREAD 0\n0: if (Mem[0] == 0) goto ;\n",
        "2:26",
        "branch target",
    ),
    (
        "THREAD 0\n0: if (Mem[0] = 0) goto 0;\n",
        "2:15",
        "expected `==`",
    ),
    (
        "THREAD 0\n0: if (Exch(Mem[0]) == 0) goto 0;\n",
        "2:19",
        "expected `,`",
    ),
    ("", "1:1", "no `THREAD` block"),
    (
        "THREAD0\n\nTHREAD1\natomic_store(0,1)\n",
        "1:1",
        "thread 0 has no instructions",
    ),
    ("THREAD0\natomic_store(12,1)\n", "2:14", "location 12"),
    (
        "THREAD0\natomic_store(0,1) junk\n",
        "2:19",
        "unexpected `junk`",
    ),
    (
        "THREAD0\natomic_store(0,99999999999)\n",
        "2:16",
        "too large",
    ),
    (
        "THREAD0\r\natomic_exch_branch(0,1,0)\r\n",
        "2:25",
        "expected `,`",
    ),
];

#[test]
fn malformed_files_report_file_line_col() {
    let dir = scratch_dir("malformed");
    for (i, (text, pos, fragment)) in MALFORMED.iter().enumerate() {
        let path = dir.join(format!("bad{i}.txt"));
        std::fs::write(&path, text).unwrap();
        let err = parse_file(&path).expect_err(text).to_string();
        let prefix = format!("{}:{pos}: ", path.display());
        assert!(
            err.starts_with(&prefix),
            "case {i}: `{err}` should start with `{prefix}`"
        );
        assert!(
            err.contains(fragment),
            "case {i}: `{err}` should mention `{fragment}`"
        );
    }
    // Invalid UTF-8 on line 2.
    let path = dir.join("binary.txt");
    std::fs::write(&path, b"THREAD0\nato\xffmic\n").unwrap();
    let err = parse_file(&path).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:2:4: ", path.display())),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `gpumc progress ARGS...` in process: (exit status, stdout).
fn cli_out(args: &[&str]) -> (i32, String) {
    let mut argv = vec!["progress"];
    argv.extend_from_slice(args);
    run_captured(&Top::parse_from(argv).progress)
}

fn cli(args: &[&str]) -> i32 {
    cli_out(args).0
}

#[test]
fn cli_exit_codes() {
    Top::command().debug_assert();
    let dir = scratch_dir("cli");
    let good = dir.join("good.txt");
    std::fs::write(
        &good,
        "THREAD0\natomic_store(0,1)\n\nTHREAD1\natomic_chk_branch(0,0,0)\n",
    )
    .unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "THREAD0\natomic_store(0,\n").unwrap();
    let (g, b) = (good.to_str().unwrap(), bad.to_str().unwrap());
    let (status, text) = cli_out(&["check", g]);
    assert_eq!(status, 0);
    assert!(
        text.contains("weak-hsa PASS") && text.contains("weak-obe FAIL"),
        "{text}"
    );
    let (status, json) = cli_out(&["check", "--json", g]);
    assert_eq!(status, 0);
    let records: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 11, "one object per (test, model)");
    for r in &records {
        assert_eq!(r["file"], g);
        assert!(r["verdict"] == "PASS" || r["verdict"] == "FAIL");
    }
    let unfair = records.iter().find(|r| r["model"] == "unfair").unwrap();
    assert_eq!(unfair["verdict"], "FAIL");
    assert_eq!(cli(&["check", "--json", "--model", "weak-hsa", g]), 0);
    assert_eq!(cli(&["check", b]), 2);
    assert_eq!(cli(&["check", "--model", "weak-hsb", g]), 2);
    assert_eq!(
        cli(&["check", dir.join("missing.txt").to_str().unwrap()]),
        2
    );
    assert_eq!(cli(&["print", "--form", "both", g]), 0);
    assert_eq!(cli(&["print", "--json", b]), 2);
    assert_eq!(cli(&["table", b]), 2);
    let out = dir.join("out");
    assert_eq!(cli(&["export", "--out", out.to_str().unwrap(), g]), 0);
    assert!(out.join("VULKAN").is_dir() && out.join("PTX").is_dir());
    // The artifact origin needs a configuration directory.
    assert_eq!(
        cli(&[
            "export",
            "--origin",
            "artifact",
            "--out",
            out.to_str().unwrap(),
            g
        ]),
        2
    );
    assert_eq!(cli(&["synth", "--threads", "3", "--instructions", "2"]), 2);
    assert_eq!(
        cli(&["synth", "--threads", "4", "--instructions", "8"]),
        2,
        "search too large"
    );
    let (status, report) = cli_out(&["synth", "--threads", "2", "--instructions", "2"]);
    assert_eq!(status, 0);
    assert!(report.starts_with("2t_2i: 8 tests"), "{report}");
    // A directly constructed command works too.
    let args = ProgressArgs {
        cmd: ProgressCmd::Check {
            model: "all".into(),
            json: true,
            paths: vec![Path::new(g).to_path_buf()],
        },
    };
    assert_eq!(run_captured(&args).0, 0);
    let args = ProgressArgs {
        cmd: ProgressCmd::Print {
            form: gpumc::progress::cli::Form::Txt,
            json: false,
            paths: vec![Path::new(b).to_path_buf()],
        },
    };
    assert_eq!(run(&args), 2);
    std::fs::remove_dir_all(&dir).ok();
}

fn arb_test() -> impl Strategy<Value = Test> {
    let thread = (1usize..=4).prop_flat_map(|len| {
        prop::collection::vec(
            (
                0u8..10,
                0u8..=255,
                prop::option::of(0u8..=255),
                0..=len as u8,
            )
                .prop_map(|(loc, check, exch, target)| Axb {
                    loc,
                    check,
                    exch,
                    target,
                }),
            len,
        )
    });
    prop::collection::vec(thread, 1..=4).prop_map(|threads| Test { threads })
}

proptest! {
    /// Both printers are inverse to the parser on arbitrary tests.
    #[test]
    fn print_parse_round_trip(t in arb_test()) {
        prop_assert_eq!(parse(&to_txt(&t)).unwrap(), t.clone());
        prop_assert_eq!(parse(&to_simple(&t)).unwrap(), t);
    }
}
