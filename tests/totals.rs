//! Every verdict is in a total: NONE (a test without a condition) in
//! `check`'s totals and the HTML badges, and `suite` says why rows that
//! expect a verdict from such a test mismatch.

use std::path::PathBuf;

const GPUMC: &str = env!("CARGO_BIN_EXE_gpumc");

/// A Vulkan test with a filter and no condition: no question under
/// --property safety (NONE).
const FILTER_ONLY: &str = r#"Vulkan filter-only
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | ld.atom.dv.sc0 r0, x ;
filter (P1:r0 == 1)
"#;

const SB: &str = r#"Vulkan SB
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | st.atom.dv.sc0 y, 1  ;
 ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-totals-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("tests")).unwrap();
    std::fs::write(d.join("tests/filter-only.litmus"), FILTER_ONLY).unwrap();
    std::fs::write(d.join("tests/sb.litmus"), SB).unwrap();
    d
}

#[test]
fn check_counts_tests_without_a_condition() {
    let d = dir("check");
    let html = d.join("report.html");
    let (code, out, err) = gpumc_testutil::run(
        GPUMC,
        &[
            "check",
            &d.join("tests").display().to_string(),
            "--html",
            &html.display().to_string(),
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("filter-only.litmus: no condition"), "{out}");
    assert!(
        out.contains("2 tests: 1 PASS, 0 FAIL, 0 UNKNOWN, 0 ERROR, 1 NONE in "),
        "{out}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("verdict:NONE"),
        "no NONE filter/badge in the HTML"
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn suite_explains_mismatches_of_tests_without_a_condition() {
    let d = dir("suite");
    std::fs::create_dir_all(d.join("csv")).unwrap();
    let csv = d.join("csv/races.csv");
    std::fs::write(&csv, "tests/filter-only.litmus,1\ntests/sb.litmus,1\n").unwrap();
    let (code, out, err) = gpumc_testutil::run(
        GPUMC,
        &["suite", "--expected", &csv.display().to_string()],
        None,
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("mismatch: tests/filter-only.litmus expected PASS got NONE"),
        "{out}"
    );
    assert!(
        err.contains(
            "1 mismatched rows are tests without a condition (NONE under --property safety)"
        ) && err.contains("run it with --property races"),
        "{err}"
    );
    std::fs::remove_dir_all(&d).unwrap();
}
