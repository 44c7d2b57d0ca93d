use super::*;
use crate::backend::Backend;
use crate::interp::Interp;
use crate::lower::lower;
use crate::params::{Params, Preset};
use gpumc_core::ir::Term;
use std::path::Path;

fn lowered(src: &str) -> Lowered {
    let p = gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).unwrap();
    let terms: Vec<Term> = p.assertion.as_ref().map(|a| a.cond.terms()).unwrap();
    lower(&p, &terms).unwrap()
}

fn small(preset: Preset) -> Params {
    Params {
        testing_workgroups: 4,
        stress_workgroups: 1,
        workgroup_size: 8,
        ..preset.base()
    }
}

fn run_on_interp(src: &str, params: &Params, launches: u64, seed: u64) -> (RunResult, Plan) {
    let l = lowered(src);
    let mut b = Interp::new(seed);
    let plan = Plan::new(&l, params, b.info()).unwrap();
    let k = b.compile(&l.spec, &plan.config).unwrap();
    let cfg = RunConfig {
        launches,
        seed,
        watchdog: Duration::from_secs(10),
    };
    let mut seen = 0;
    let r = run(&mut b, k, &l, &plan, &cfg, &mut |n| seen = n);
    assert_eq!(seen, launches);
    (r, plan)
}

const SB: &str = r#"Vulkan SB
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | st.atom.dv.sc0 y, 1  ;
 ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

#[test]
fn a_sequentially_consistent_machine_never_shows_store_buffering() {
    let (r, plan) = run_on_interp(SB, &small(Preset::Parallel), 20, 1);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.launches, 20);
    assert_eq!(r.counts.total(), 20 * plan.instances() as u64);
    assert!(!r.counts.states.contains_key(&vec![0, 0]));
    // The three interleaving outcomes all show up.
    for s in [vec![0, 1], vec![1, 0], vec![1, 1]] {
        assert!(
            r.counts.states.contains_key(&s),
            "{s:?} never seen: {:?}",
            r.counts.states
        );
    }
    assert!(r.rate() > 0.0);
}

#[test]
fn runs_repeat_exactly_from_their_seed() {
    let (a, _) = run_on_interp(SB, &small(Preset::Parallel), 5, 42);
    let (b, _) = run_on_interp(SB, &small(Preset::Parallel), 5, 42);
    assert_eq!(a.counts, b.counts);
}

#[test]
fn spin_loops_that_never_end_are_counted_as_unfinished() {
    let src = r#"VULKAN hang
{ flag=0; }
 P0@sg 0,wg 0, qf 0        ;
 LC00:                     ;
 ld.atom.dv.sc0 r1, flag   ;
 beq r1, 0, LC00           ;
exists (P0:r1 == 1)
"#;
    let params = Params {
        fuel: 5,
        ..small(Preset::Plain)
    };
    let (r, plan) = run_on_interp(src, &params, 3, 1);
    assert!(r.counts.states.is_empty());
    assert_eq!(r.counts.unfinished, 3 * plan.instances() as u64);
}

#[test]
fn barriers_order_what_the_test_says_and_final_memory_is_read_back() {
    let src = r#"Vulkan barrier-inscope
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0      | P1@sg 1, wg 0, qf 0      ;
 st.av.dv.sc1 x, 1        | cbar.acq_rel.dv.semsc1 1 ;
 cbar.acq_rel.dv.semsc1 1 | ld.vis.dv.sc1 r0, x      ;
 st.nonpriv.sc1 y, 2      |                          ;
forall (P1:r0 == 1 /\ y == 2)
"#;
    let (r, plan) = run_on_interp(src, &small(Preset::Parallel), 10, 3);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.counts.states.len(), 1, "{:?}", r.counts.states);
    assert_eq!(r.counts.states[&vec![1, 2]], 10 * plan.instances() as u64);
}

#[test]
fn sorensen_mode_with_shadows_keeps_results_exact() {
    let (r, plan) = run_on_interp(SB, &small(Preset::Sorensen), 30, 7);
    assert_eq!(plan.instances(), 1);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.counts.total(), 30);
    assert!(!r.counts.states.contains_key(&vec![0, 0]));
}
