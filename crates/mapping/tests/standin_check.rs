//! The checker against TEMPORARY stand-ins of the C model and compiler.

mod standin;

use gpumc_core::ir::Arch;
use gpumc_mapping::enumerate::Space;
use gpumc_mapping::search::{run, Engine, Outcome, Problem};
use standin::Variant;

fn check(events: usize, axiom: &str, v: Variant, engine: Engine, descoped: bool) -> Outcome {
    let c11 = standin::c11();
    let ptx = gpumc_core::models::load("ptx-v6.0").unwrap();
    let problem = Problem {
        source_model: &c11,
        target_model: &ptx,
        source_arch: Arch::Ptx,
        axiom: axiom.into(),
    };
    let mut space = Space::new(events);
    space.normalize_scopes = engine == Engine::Explicit;
    space.descoped = descoped;
    let compile = move |p: &gpumc_core::ir::Program| standin::compile(p, v);
    let out = run(&problem, &compile, &space, engine, &|_, _| {}).unwrap();
    eprintln!(
        "{engine:?} {axiom} {events}: {:?} {:?} in {:?}",
        out.stats, out.sym, out.elapsed
    );
    if let Some(cx) = &out.counterexample {
        eprintln!(
            "{}",
            gpumc_mapping::source::c_litmus(&cx.source, "cx", None)
        );
        eprintln!(
            "{:?}",
            cx.target
                .program
                .threads
                .iter()
                .map(|t| t.instrs.iter().map(|i| i.text.clone()).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        );
        eprintln!(
            "rf {:?} mo {:?} tco {:?}",
            cx.source_rf, cx.source_mo, cx.target_co
        );
    }
    out
}

#[test]
fn fig11_sound_small() {
    for engine in [Engine::Symbolic, Engine::Explicit] {
        for ax in ["coherence", "atomicity", "sc"] {
            let out = check(3, ax, Variant::Fig11, engine, false);
            assert!(out.counterexample.is_none());
        }
    }
}

#[test]
fn acquire_as_relaxed_is_unsound() {
    for engine in [Engine::Symbolic, Engine::Explicit] {
        let out = check(4, "coherence", Variant::AcquireLoadRelaxed, engine, true);
        assert!(out.counterexample.is_some());
    }
}

#[test]
#[ignore]
fn sym_bench() {
    let n: usize = std::env::var("N").map(|v| v.parse().unwrap()).unwrap_or(4);
    let ax = std::env::var("AX").unwrap_or("coherence".into());
    let de = std::env::var("DE").is_ok();
    let v = match std::env::var("V").as_deref() {
        Ok("rmw") => Variant::RmwScNoRelease,
        Ok("acq") => Variant::AcquireLoadRelaxed,
        _ => Variant::Fig11,
    };
    check(n, &ax, v, Engine::Symbolic, de);
}
