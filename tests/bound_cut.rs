//! A race check whose loop bound cuts an execution and whose race search
//! then runs out of time says both: UNKNOWN because of the bound (so a
//! larger `--bound` is needed whatever the race search would say), and
//! that the search for a race within the bound was stopped. The kernel is
//! the corpus's test-and-test-and-set lock with six contenders: at bound 4
//! a contender can fail its exchange four times (each time another one
//! takes the lock), which the solver finds at once, while proving that no
//! two contenders race takes it minutes — when every failed attempt counts
//! (`--no-futile-drop`). Dropping futile iterations (docs/SEMANTICS.md,
//! "Futile iterations") decides the same kernel at bound 1.

use std::path::Path;
use std::process::Command;

/// The corpus's test-and-test-and-set lock kernel with six contenders
/// (three invocations per workgroup, two workgroups), written to a file;
/// `None` (skipped) without the corpus.
fn six_contenders() -> Option<std::path::PathBuf> {
    let kernel =
        gpumc_testutil::shared_corpus().join("dat3m/spirv/vulkan/benchmarks/ttaslock-2.1.1.spvasm");
    let src = match std::fs::read_to_string(&kernel) {
        Ok(s) => s,
        Err(_) => {
            eprintln!(
                "skipped: {} not found (the Dat3M corpus is not beside the repository)",
                kernel.display()
            );
            return None;
        }
    };
    // Three invocations per workgroup, two workgroups; the output buffer
    // one element per invocation.
    let grown = src
        .replace("; @Config: 2, 1, 1", "; @Config: 3, 1, 2")
        .replace(
            "; @Input: %19 = {{-1, -1}}",
            "; @Input: %19 = {{-1, -1, -1, -1, -1, -1}}",
        );
    assert!(grown.contains("@Config: 3, 1, 2") && grown.contains("-1, -1, -1, -1, -1, -1"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bound_cut");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ttaslock-3.2.spvasm");
    std::fs::write(&file, grown).unwrap();
    Some(file)
}

/// `gpumc check --property races --engine symbolic --json ARGS FILE`: the
/// report, and stdout for messages.
fn races_json(file: &Path, args: &[&str]) -> (serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args([
            "check",
            "--property",
            "races",
            "--engine",
            "symbolic",
            "--json",
        ])
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let r = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    (r, stdout)
}

#[test]
fn a_cut_execution_and_a_stopped_race_search_are_both_reported() {
    let Some(file) = six_contenders() else { return };
    let args = ["--bound", "4", "--timeout", "8", "--no-futile-drop"];
    let (r, stdout) = races_json(&file, &args);
    assert_eq!(r["verdict"], "UNKNOWN", "{stdout}");
    assert_eq!(r["bound_hit"], true, "{stdout}");
    assert_eq!(r["races_complete"], false, "{stdout}");
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("the loop bound (--bound 4) cut an execution")
            && msg.contains(
                "the search for a race among the executions within the bound was stopped"
            ),
        "{msg}"
    );
}

#[test]
fn dropping_futile_iterations_decides_the_lock_at_bound_one() {
    let Some(file) = six_contenders() else { return };
    let (r, stdout) = races_json(&file, &["--bound", "1"]);
    assert_eq!(r["verdict"], "PASS", "{stdout}");
    assert_eq!(r["bound_hit"], false, "{stdout}");
}
