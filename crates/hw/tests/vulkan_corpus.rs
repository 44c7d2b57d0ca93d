//! Every test of the Dat3M VULKAN litmus corpus that lowers: its module
//! passes spirv-val, and [`LAUNCHES`] launches (planned by `plan`, run by `run`) on
//! the Vulkan device finishes with every result record written.

mod spirv_support;
mod vulkan_support;

use gpumc_core::diag::ErrorKind;
use gpumc_core::ir::Term;
use gpumc_hw::backend::Backend;
use gpumc_hw::params::Preset;
use gpumc_hw::plan::Plan;
use gpumc_hw::run::{run, RunConfig};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = gpumc_testutil::shared_corpus().join("dat3m/litmus/VULKAN");
    if !root.exists() {
        eprintln!(
            "SKIP: {} not found (the shared corpus is not beside the repository)",
            root.display()
        );
        return None;
    }
    let files = gpumc_testutil::litmus_files(&root);
    Some(files)
}

/// Launches per test: lavapipe now and then loses every record of one
/// launch of a spin-loop test (docs/HARDWARE.md); a harness that never
/// writes them fails in every launch.
const LAUNCHES: u64 = 3;

#[test]
fn every_lowered_vulkan_corpus_test_validates_and_runs() {
    let Some(files) = corpus_files() else { return };
    let have_val = spirv_support::have_tool("spirv-val");
    let mut backend = vulkan_support::backend();
    let (mut lowered_n, mut emitted, mut ran) = (0, 0, 0);
    let mut refused = Vec::new();
    let mut compile_time = Duration::ZERO;
    let mut lost: Vec<String> = Vec::new();
    let start = Instant::now();
    for f in &files {
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
        let Ok(l) = gpumc_hw::lower::lower(&p, &terms) else {
            continue;
        };
        lowered_n += 1;
        let name = f.display();
        let Some(b) = backend.as_mut() else {
            // No device: still generate and validate with a lavapipe-like
            // configuration.
            match gpumc_hw::spirv::emit(
                &l.spec,
                &gpumc_hw::abi::KernelConfig {
                    workgroup_size: 64,
                    shared_words: 64,
                },
            ) {
                Ok(words) => {
                    emitted += 1;
                    if have_val {
                        spirv_support::spirv_val(&words).unwrap_or_else(|e| panic!("{name}: {e}"));
                    }
                }
                Err(e) => {
                    assert_eq!(e.kind, ErrorKind::Unsupported, "{name}: {e}");
                    refused.push(format!("{name}: {e}"));
                }
            }
            continue;
        };
        let mut params = Preset::Parallel.for_device(b.info());
        params.testing_workgroups = 2;
        params.stress_workgroups = 1;
        params.stress_iterations = 16;
        params.pre_stress_iterations = 4;
        let plan = Plan::new(&l, &params, b.info()).unwrap_or_else(|e| panic!("{name}: plan: {e}"));
        let words = match gpumc_hw::spirv::emit(&l.spec, &plan.config) {
            Ok(w) => w,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Unsupported, "{name}: {e}");
                refused.push(format!("{name}: {e}"));
                continue;
            }
        };
        emitted += 1;
        if have_val {
            spirv_support::spirv_val(&words).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let t = Instant::now();
        let k = b
            .compile(&l.spec, &plan.config)
            .unwrap_or_else(|e| panic!("{name}: compile: {e}"));
        compile_time += t.elapsed();
        let cfg = RunConfig {
            launches: LAUNCHES,
            seed: 7,
            watchdog: Duration::from_secs(30),
        };
        let r = run(b, k, &l, &plan, &cfg, &mut |_| {});
        // Instances whose records the driver never wrote are counted as
        // lost (docs/HARDWARE.md, lavapipe); every instance is counted.
        if let Some(e) = &r.error {
            panic!("{name}: {e}");
        }
        assert_eq!(
            r.counts.total(),
            LAUNCHES * plan.instances() as u64,
            "{name}: every instance counted"
        );
        if r.counts.lost > 0 {
            lost.push(format!(
                "{name}: {} of {} instances lost",
                r.counts.lost,
                plan.instances()
            ));
        }
        b.release(k);
        ran += 1;
    }
    for r in &refused {
        eprintln!("refused: {r}");
    }
    for r in &lost {
        eprintln!("lost: {r}");
    }
    eprintln!(
        "VULKAN corpus: {} files, {lowered_n} lower, {emitted} generate, {ran} ran {LAUNCHES} launches \
         ({} refused by the generator); pipelines {:?} in all, {:?} wall",
        files.len(),
        refused.len(),
        compile_time,
        start.elapsed()
    );
    assert!(lowered_n > 600, "only {lowered_n} lower");
    assert_eq!(emitted + refused.len(), lowered_n);
}
