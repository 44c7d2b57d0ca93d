use super::*;
use gpumc_core::models;
use std::path::Path;

fn program(src: &str) -> Program {
    gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).unwrap()
}

fn judge_all(src: &str, states: &[&[i64]]) -> Vec<Judgement> {
    let p = program(src);
    let model = models::load(p.arch.default_model()).unwrap();
    let mut j = ModelJudge::new(&p, &model, Limits::none(), 8);
    states.iter().map(|s| j.judge(s, 0)).collect()
}

const MP_RELACQ: &str = r#"Vulkan MP
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0                           | P1@sg 0,wg 1, qf 0                          ;
 st.atom.dv.sc0 x, 1                           | ld.atom.acq.dv.sc0.semsc0 r0, y             ;
 st.atom.rel.dv.sc0.semsc0 y, 1                | ld.atom.dv.sc0 r1, x                        ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;

#[test]
fn release_acquire_message_passing_forbids_the_weak_state() {
    let j = judge_all(MP_RELACQ, &[&[1, 0], &[1, 1], &[0, 0], &[0, 1], &[7, 7]]);
    use Judgement::*;
    assert_eq!(j, vec![Forbidden, Allowed, Allowed, Allowed, Forbidden]);
}

#[test]
fn relaxed_message_passing_allows_it() {
    let src = MP_RELACQ.replace(
        "st.atom.rel.dv.sc0.semsc0 y, 1",
        "st.atom.dv.sc0 y, 1          ",
    );
    let j = judge_all(&src, &[&[1, 0]]);
    assert_eq!(j, vec![Judgement::Allowed]);
}

#[test]
fn forbidden_states_of_racy_vulkan_tests_are_undefined_not_violations() {
    // Plain (non-atomic) accesses race: undefined behaviour in Vulkan.
    let src = r#"Vulkan R
{ x=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0 ;
 st.sc0 x, 1          | ld.sc0 r0, x       ;
exists (P1:r0 == 1)
"#;
    let j = judge_all(src, &[&[1], &[0], &[5]]);
    use Judgement::*;
    assert_eq!(j, vec![Allowed, Allowed, Undefined]);
}

#[test]
fn ptx_races_are_not_undefined() {
    let src = r#"PTX R
{ x=0; }
 P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;
 st.weak x, 1   | ld.weak r0, x  ;
exists (P1:r0 == 1)
"#;
    let j = judge_all(src, &[&[1], &[5]]);
    assert_eq!(j, vec![Judgement::Allowed, Judgement::Forbidden]);
}

#[test]
fn filtered_states_are_not_judged() {
    let src = r#"Vulkan F
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | ld.atom.dv.sc0 r0, x ;
                      | ld.atom.dv.sc0 r1, y ;
filter (P1:r1 == 0)
exists (P1:r0 == 1)
"#;
    let p = program(src);
    let model = models::load("vulkan").unwrap();
    let mut j = ModelJudge::new(&p, &model, Limits::none(), 8);
    // State: P1:r0, then the filter-only P1:r1.
    assert_eq!(j.terms().len(), 2);
    assert_eq!(j.observables(), 1);
    assert_eq!(j.judge(&[1, 0], 0), Judgement::Allowed);
    assert_eq!(j.judge(&[9, 3], 0), Judgement::Filtered);
}

#[test]
fn loops_are_unrolled_further_when_a_state_needs_it() {
    // r0 counts the iterations: 3 needs a bound of at least 3.
    let src = r#"VULKAN count
{ x=0; }
 P0@sg 0,wg 0, qf 0        ;
 LC00:                     ;
 add r0, r0, 1             ;
 ld.atom.dv.sc0 r1, x      ;
 bne r0, 3, LC00           ;
exists (P0:r0 == 3)
"#;
    let p = program(src);
    let model = models::load("vulkan").unwrap();
    let mut j = ModelJudge::new(&p, &model, Limits::none(), 8);
    // The hardware took 2 back edges to get there: bound 3 explains it.
    assert_eq!(j.judge(&[3], 2), Judgement::Allowed);
    // A count the loop cannot produce within the iterations run.
    assert_eq!(j.judge(&[5], 2), Judgement::Forbidden);
    // Beyond --max-bound: undecided.
    assert_eq!(j.judge(&[3], 20), Judgement::Unknown);
}

#[test]
fn truncation_matches_32_bit_hardware() {
    assert_eq!(truncate(1 << 32), 0);
    assert_eq!(truncate(-1), -1);
    assert_eq!(truncate(0xffff_ffff), -1);
}
