//! The PTX corpus end to end: every `dat3m/litmus/PTX` test that lowers is
//! emitted as PTX, passes the structural checker (and ptxas when present),
//! and runs through the harness (`plan`, `run`) on the PTX interpreter of
//! these tests without any fault: every instance yields a state, runs out
//! of fuel, or indexes out of bounds, as the result records say. Skipped
//! when the shared corpus is not beside the repository. `GPUMC_DUMP_PTX=dir`
//! writes every kernel there.

mod ptx_support;

use gpumc_core::diag::ErrorKind;
use gpumc_core::ir::Term;
use gpumc_hw::backend::Backend;
use gpumc_hw::lower::lower;
use gpumc_hw::params::{Params, Preset};
use gpumc_hw::plan::Plan;
use gpumc_hw::ptx::{self, lint, PtxTarget};
use gpumc_hw::run::{run, RunConfig};
use ptx_support::interp::Interpreter;
use ptx_support::ptxas;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A small harness: two testing CTAs of 32, one stress CTA, short stress
/// loops — every feature of the table on, little to interpret.
fn small_params() -> Params {
    Params {
        workgroup_size: 32,
        testing_workgroups: 2,
        stress_workgroups: 1,
        stress_iterations: 4,
        pre_stress_iterations: 2,
        pre_stress_pct: 50,
        bank_conflicts: true,
        fuel: 20,
        ..Preset::Parallel.base()
    }
}

#[test]
fn every_ptx_corpus_test_that_lowers_emits_checks_and_runs() {
    let root = gpumc_testutil::shared_corpus().join("dat3m/litmus/PTX");
    if !root.exists() {
        eprintln!(
            "SKIPPED: {} not found (the shared corpus is not beside the repository)",
            root.display()
        );
        return;
    }
    let ptxas = ptxas::find();
    if ptxas.is_none() {
        eprintln!("no ptxas: the corpus kernels are checked structurally and interpreted only");
    }
    let files = gpumc_testutil::litmus_files(&root);
    let (mut parsed, mut lowered_n, mut emitted, mut planned, mut ran, mut assembled) =
        (0, 0, 0, 0, 0, 0);
    let mut refusals: Vec<String> = vec![];
    let mut failures: Vec<String> = vec![];
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(p) = gpumc_frontend::litmus::parse(&src, f) else {
            continue;
        };
        parsed += 1;
        let terms: Vec<Term> = p
            .assertion
            .as_ref()
            .map(|a| a.cond.terms())
            .unwrap_or_default();
        let lowered = match lower(&p, &terms) {
            Ok(l) => l,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Unsupported, "{name}: {e}");
                continue;
            }
        };
        lowered_n += 1;
        let mut backend = Interpreter::default();
        let plan = match Plan::new(&lowered, &small_params(), backend.info()) {
            Ok(plan) => plan,
            Err(e) => {
                refusals.push(format!("{name}: plan: {e}"));
                continue;
            }
        };
        planned += 1;
        let target = PtxTarget::lowest_for(&lowered.spec);
        let text = match ptx::emit(&lowered.spec, &plan.config, &target) {
            Ok(t) => t,
            Err(e) => {
                if e.kind == ErrorKind::Unsupported {
                    refusals.push(format!("{name}: {e}"));
                } else {
                    failures.push(format!("{name}: emit: {e}"));
                }
                continue;
            }
        };
        emitted += 1;
        if let Some(dir) = std::env::var_os("GPUMC_DUMP_PTX") {
            // For reading the kernels: GPUMC_DUMP_PTX=dir.
            let file = PathBuf::from(dir)
                .join(name.replace('/', "__"))
                .with_extension("ptx");
            let _ = std::fs::create_dir_all(file.parent().unwrap_or(Path::new(".")));
            let _ = std::fs::write(file, &text);
        }
        let problems = lint::check(&text);
        if !problems.is_empty() {
            failures.push(format!("{name}: structure: {}", problems.join("; ")));
            continue;
        }
        if let Some(ptxas) = &ptxas {
            match ptxas::assemble(ptxas, &text, target.sm, "corpus") {
                Ok(_) => assembled += 1,
                Err(out) => {
                    failures.push(format!("{name}: ptxas: {out}"));
                    continue;
                }
            }
        }
        let kernel = match backend.compile(&lowered.spec, &plan.config) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{name}: compile: {e}"));
                continue;
            }
        };
        let cfg = RunConfig {
            launches: 1,
            seed: 7,
            watchdog: Duration::from_secs(60),
        };
        let r = run(&mut backend, kernel, &lowered, &plan, &cfg, &mut |_| {});
        if let Some(e) = &r.error {
            failures.push(format!("{name}: run: {e}"));
            continue;
        }
        if r.counts.total() != plan.instances() as u64 {
            failures.push(format!(
                "{name}: {} of {} instances counted",
                r.counts.total(),
                plan.instances()
            ));
            continue;
        }
        ran += 1;
    }
    eprintln!(
        "PTX corpus: {} files, {parsed} parse, {lowered_n} lower, {planned} planned, {emitted} emit PTX, {assembled} assembled by ptxas, {ran} run on the PTX interpreter",
        files.len()
    );
    if std::env::var_os("GPUMC_SHOW_REFUSALS").is_some() {
        for r in &refusals {
            eprintln!("refused: {r}");
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Everything the lowering accepts, the generator emits (or refuses
    // with a reason, listed with GPUMC_SHOW_REFUSALS=1).
    assert!(
        emitted + refusals.len() == lowered_n,
        "{emitted} + {} != {lowered_n}",
        refusals.len()
    );
    assert!(emitted > 0, "no PTX corpus test was emitted");
}
