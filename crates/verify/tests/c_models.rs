//! C litmus tests under the scoped RC11 models (`scoped-c11`,
//! `scoped-rc11`): the expectations of `examples/c/expected.csv` (the
//! tests of Lustig et al., ASPLOS'19 in scoped C and PTX, and classic RC11
//! tests) on both engines, data races with their racing pair, each axiom
//! of the model necessary for the outcomes it is meant to forbid, and
//! errors with their file positions.

use gpumc_core::cat::AxiomKind;
use gpumc_verify::driver::{self, Config, Engine, ModelCache, Property};
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    gpumc_testutil::repo_root().join("examples")
}

fn check(path: &Path, model: &str, property: Property, engine: Engine) -> driver::FileReport {
    let cfg = Config {
        model: Some(model.to_string()),
        property,
        engine,
        ..Config::default()
    };
    driver::check_file(path, &cfg, &ModelCache::default())
}

/// Every row of the expectations CSV, on the explicit and the symbolic
/// engine.
#[test]
fn asplos19_and_rc11_expectations_hold_on_both_engines() {
    let csv = examples().join("c/expected.csv");
    let src = std::fs::read_to_string(&csv).expect("examples/c/expected.csv");
    let rows = driver::parse_expected_csv(&src, &csv).expect("the CSV parses");
    assert!(rows.len() >= 60, "{} rows", rows.len());
    let cache = ModelCache::default();
    let mut wrong = Vec::new();
    for row in &rows {
        for engine in [Engine::Explicit, Engine::Symbolic] {
            let base = Config {
                engine,
                ..Config::default()
            };
            let r = driver::check_file(&examples().join(&row.path), &row.config(&base), &cache);
            if r.verdict() != Some(row.expected) {
                wrong.push(format!(
                    "{} ({}, {:?}, {engine:?}): expected {}, got {} {}",
                    row.path,
                    r.model,
                    r.property,
                    row.expected,
                    r.verdict,
                    r.message.clone().unwrap_or_default()
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every C example runs under its default model, `scoped-c11`.
#[test]
fn c_tests_default_to_scoped_c11() {
    let cfg = Config::default();
    let r = driver::check_file(
        &examples().join("c/MP.litmus"),
        &cfg,
        &ModelCache::default(),
    );
    assert_eq!(r.model, "scoped-c11");
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
}

/// A racy test fails the race check and names the racing pair.
#[test]
fn races_name_the_racing_accesses() {
    let r = check(
        &examples().join("c/rc11/MP+rel+acq+na.litmus"),
        "scoped-c11",
        Property::Races,
        Engine::Explicit,
    );
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    let pair = r
        .races
        .iter()
        .find(|p| p.flag == "race")
        .unwrap_or_else(|| panic!("no `race` pair: {:?}", r.races));
    let mut instrs = [pair.instrs.0.as_str(), pair.instrs.1.as_str()];
    instrs.sort_unstable();
    assert_eq!(instrs, ["*x", "*x = 1;"], "{pair:?}");
    assert_eq!(pair.location.as_deref(), Some("x"));
    // Scope-exclusive atomics race too (a heterogeneous race).
    let r = check(
        &examples().join("c/rc11/MP+rel+acq.wgs.litmus"),
        "scoped-c11",
        Property::Races,
        Engine::Symbolic,
    );
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    // ... and guarding the plain read by the flag removes the race.
    let r = check(
        &examples().join("c/MP.litmus"),
        "scoped-c11",
        Property::Races,
        Engine::Symbolic,
    );
    assert_eq!(r.verdict, "PASS", "{:?}", r.message);
}

/// The axioms the mapping checker selects by name, and the race flag.
#[test]
fn the_models_name_their_axioms() {
    let c11 = gpumc_core::models::load("scoped-c11").expect("scoped-c11 loads");
    let names: Vec<(&str, AxiomKind, bool)> = c11
        .axioms()
        .iter()
        .map(|a| (a.name.as_str(), a.kind, a.flag))
        .collect();
    assert_eq!(
        names,
        [
            ("coherence", AxiomKind::Irreflexive, false),
            ("atomicity", AxiomKind::Empty, false),
            ("sc", AxiomKind::Acyclic, false),
            ("race", AxiomKind::NotEmpty, true),
        ]
    );
    let rc11 = gpumc_core::models::load("scoped-rc11").expect("scoped-rc11 loads");
    let names: Vec<&str> = rc11.axioms().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        ["coherence", "atomicity", "sc", "race", "no-thin-air"]
    );
}

/// Each axiom of scoped-c11 is what forbids the outcomes of the tests
/// meant for it: without that axiom (and only then) the outcome becomes
/// reachable.
#[test]
fn each_axiom_is_necessary_for_its_tests() {
    let text = gpumc_core::models::EMBEDDED
        .iter()
        .find(|(n, _)| *n == "scoped-c11")
        .map(|(_, t)| *t)
        .expect("embedded");
    let dir = std::env::temp_dir().join(format!("gpumc-c-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let without = |axiom: &str| -> String {
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_end().ends_with(&format!(" as {axiom}")))
            .collect();
        assert_eq!(
            kept.len() + 1,
            text.lines().count(),
            "one `as {axiom}` line"
        );
        let path = dir.join(format!("no-{axiom}.cat"));
        std::fs::write(&path, kept.join("\n")).expect("write the model");
        path.display().to_string()
    };
    let cases: &[(&str, &[&str])] = &[
        (
            "coherence",
            &[
                "c/MP.litmus",
                "c/CoRR.litmus",
                "c/CoRW.litmus",
                "c/ISA2+rmw-sc.litmus",
            ],
        ),
        ("atomicity", &["c/rc11/RMW-atomicity.litmus"]),
        (
            "sc",
            &[
                "c/SB+fences.litmus",
                "c/rc11/SB+scs.litmus",
                "c/rc11/IRIW+scs.litmus",
            ],
        ),
    ];
    for (axiom, tests) in cases {
        let model = without(axiom);
        for t in *tests {
            let path = examples().join(t);
            let full = check(&path, "scoped-c11", Property::Safety, Engine::Explicit);
            assert_eq!(full.verdict, "FAIL", "{t}: {:?}", full.message);
            let ablated = check(&path, &model, Property::Safety, Engine::Explicit);
            assert_eq!(
                ablated.verdict, "PASS",
                "{t} without `{axiom}`: {:?}",
                ablated.message
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A malformed C test is an error with `file:line:col`.
#[test]
fn errors_carry_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("gpumc-c-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases = [
        (
            "loop.litmus",
            "C loop\n{}\nP0(atomic_int* x) {\n  while (1) { }\n}\n",
            ":4:3: unsupported: `while`",
        ),
        (
            "syntax.litmus",
            "C syntax\n{ x = 0 }\nP0(atomic_int* x) {\n  int r = atomic_load(x)\n}\n",
            ":5:1: expected `;`",
        ),
    ];
    for (name, src, needle) in cases {
        let path = dir.join(name);
        std::fs::write(&path, src).expect("write");
        let r = check(&path, "scoped-c11", Property::Safety, Engine::Auto);
        assert_eq!(r.verdict, "ERROR");
        let msg = r.message.unwrap_or_default();
        assert!(
            msg.contains(&format!("{name}{needle}")),
            "`{needle}` not in {msg}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
