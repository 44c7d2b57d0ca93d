//! The PTX corpus on a CUDA device: every `dat3m/litmus/PTX` test that
//! lowers is planned for the device, JIT-compiled, and run for a few
//! launches with every instance counted (no watchdog, no lost device, no
//! unwritten record). Whether the observed states are allowed is the
//! campaign's question; this checks the backend runs them all. Skipped
//! without a driver, a device or the shared corpus.

mod ptx_support;

use gpumc_core::diag::ErrorKind;
use gpumc_core::ir::Term;
use gpumc_hw::backend::Backend;
use gpumc_hw::cuda::CudaBackend;
use gpumc_hw::lower::lower;
use gpumc_hw::params::Preset;
use gpumc_hw::plan::Plan;
use gpumc_hw::run::{run, RunConfig};
use std::time::Duration;

#[test]
fn every_ptx_corpus_test_that_lowers_runs_on_the_device() {
    let root = gpumc_testutil::shared_corpus().join("dat3m/litmus/PTX");
    if !root.exists() {
        eprintln!("SKIPPED: {} not found", root.display());
        return;
    }
    let mut b = match CudaBackend::new(None) {
        Ok(b) => b,
        Err(e) if gpumc_hw::cuda::is_unavailable(&e) => {
            eprintln!("SKIPPED: {e}");
            return;
        }
        Err(e) => panic!("a CUDA driver is present but unusable: {e}"),
    };
    let files = gpumc_testutil::litmus_files(&root);
    let params = Preset::Parallel.for_device(b.info());
    let (mut ran, mut refused) = (0, 0);
    let mut failures = vec![];
    for f in &files {
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(p) = gpumc_frontend::litmus::parse(&src, f) else {
            continue;
        };
        let terms: Vec<Term> = p
            .assertion
            .as_ref()
            .map(|a| a.cond.terms())
            .unwrap_or_default();
        let Ok(lowered) = lower(&p, &terms) else {
            continue;
        };
        let plan = match Plan::new(&lowered, &params, b.info()) {
            Ok(plan) => plan,
            Err(e) => {
                failures.push(format!("{name}: plan: {e}"));
                continue;
            }
        };
        let kernel = match b.compile(&lowered.spec, &plan.config) {
            Ok(k) => k,
            Err(e) if e.kind == ErrorKind::Unsupported => {
                eprintln!("{name}: {e}");
                refused += 1;
                continue;
            }
            Err(e) => {
                failures.push(format!("{name}: compile: {e}"));
                continue;
            }
        };
        let cfg = RunConfig {
            launches: 3,
            seed: 11,
            watchdog: Duration::from_secs(10),
        };
        let r = run(&mut b, kernel, &lowered, &plan, &cfg, &mut |_| {});
        b.release(kernel);
        if let Some(e) = &r.error {
            failures.push(format!("{name}: run: {e}"));
            if b.reset().is_err() {
                break;
            }
            continue;
        }
        if r.counts.total() != 3 * plan.instances() as u64 {
            failures.push(format!(
                "{name}: {} of {} instances counted",
                r.counts.total(),
                3 * plan.instances()
            ));
            continue;
        }
        ran += 1;
    }
    eprintln!(
        "PTX corpus on {}: {ran} ran, {refused} refused",
        b.info().name
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran > 0);
}
