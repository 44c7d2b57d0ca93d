//! Under `--engine auto` with the CLI's default limits and process
//! isolation, no corpus row and no corpus file answers `ERROR`: where one
//! engine refuses a test, the other decides it. Run through the `gpumc`
//! binary (`suite` per expectations CSV with the settings the conformance
//! suites use, and `check` on every corpus file). Skipped (with a
//! message) without `../shared/corpus`.

use std::process::Command;

// The corpus helpers of the verification suites (crates/verify/tests).
#[path = "../crates/verify/tests/common/mod.rs"]
mod common;
use common::corpus;

/// Each CSV with the settings of tests/corpus_suites.rs,
/// tests/liveness_suites.rs and tests/spirv_suite.rs: model, property,
/// bound, progress (the SPIR-V rows carry their own).
const CSVS: [(&str, &str, &str, &str, &str); 14] = [
    ("PTXv6_0-expected.csv", "ptx-v6.0", "safety", "1", "fair"),
    ("PTXv7_5-expected.csv", "ptx-v7.5", "safety", "1", "fair"),
    ("VULKAN-expected.csv", "vulkan", "safety", "1", "fair"),
    (
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-nochains",
        "safety",
        "1",
        "fair",
    ),
    ("VULKAN-DR-expected.csv", "vulkan", "races", "1", "fair"),
    (
        "VULKAN-DR-NOCHAINS-expected.csv",
        "vulkan-nochains",
        "races",
        "1",
        "fair",
    ),
    (
        "PTXv6_0-Liveness-expected.csv",
        "ptx-v6.0",
        "liveness",
        "1",
        "fair",
    ),
    (
        "PTXv7_5-Liveness-expected.csv",
        "ptx-v7.5",
        "liveness",
        "1",
        "fair",
    ),
    (
        "VULKAN-Liveness-Fair-expected.csv",
        "vulkan",
        "liveness",
        "4",
        "fair",
    ),
    (
        "VULKAN-Liveness-HSA-expected.csv",
        "vulkan",
        "liveness",
        "4",
        "hsa",
    ),
    (
        "VULKAN-Liveness-OBE-expected.csv",
        "vulkan",
        "liveness",
        "4",
        "obe",
    ),
    (
        "VULKAN-Liveness-HSA_OBE-expected.csv",
        "vulkan",
        "liveness",
        "4",
        "hsa_obe",
    ),
    (
        "VULKAN-Liveness-LOBE-expected.csv",
        "vulkan",
        "liveness",
        "4",
        "lobe",
    ),
    ("SPIRV-VULKAN-expected.csv", "", "", "", ""),
];

/// The `ERROR` lines among `gpumc --json` output, and how many reports.
fn errors(stdout: &[u8]) -> (Vec<String>, usize) {
    let out = String::from_utf8_lossy(stdout);
    let mut bad = Vec::new();
    let mut n = 0;
    for l in out.lines().filter(|l| l.starts_with('{')) {
        let v: serde_json::Value = serde_json::from_str(l).expect("a JSON report");
        n += 1;
        // A CSV row whose file the corpus lacks is `missing`, not an
        // answer (docs/KNOWN-DIFFERENCES.md, "Rows not run").
        let exists = v["file"]
            .as_str()
            .is_some_and(|f| std::path::Path::new(f).exists());
        if v["verdict"] == "ERROR" && exists {
            bad.push(format!("{} {}", v["file"], v["message"]));
        }
    }
    (bad, n)
}

#[test]
fn no_corpus_row_answers_error_under_auto() {
    let Some(root) = corpus() else { return };
    let mut bad = Vec::new();
    for (csv, model, property, bound, progress) in CSVS {
        let path = root.join("expected").join(csv);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpumc"));
        cmd.args(["suite", "--json", "--include-disabled", "--engine", "auto"]);
        cmd.arg("--expected").arg(&path);
        if !model.is_empty() {
            cmd.args(["--model", model, "--property", property]);
            cmd.args(["--bound", bound, "--progress", progress]);
        }
        let o = cmd.output().expect("run gpumc suite");
        let (errs, n) = errors(&o.stdout);
        assert!(
            n > 0,
            "{csv}: no reports\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        eprintln!("{csv}: {n} rows, {} ERROR", errs.len());
        bad.extend(errs.into_iter().map(|e| format!("{csv}: {e}")));
    }
    assert!(
        bad.is_empty(),
        "{} rows answer ERROR:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn no_corpus_file_answers_error_under_auto() {
    let Some(root) = corpus() else { return };
    let o = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(["check", "--json", "--engine", "auto"])
        .arg(root.join("litmus"))
        .arg(root.join("spirv"))
        .output()
        .expect("run gpumc check");
    let (bad, n) = errors(&o.stdout);
    assert!(n > 1500, "{n} reports");
    assert!(
        bad.is_empty(),
        "{} files answer ERROR:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
