//! Loops and the bound (docs/SEMANTICS.md): a thread stopped in a spinning
//! iteration has no final state, but it is still a prefix of an execution.
//! When it waits for a thread that the bound cuts, that execution is the
//! only one showing the cut, so without it the verdict would claim a
//! complete exploration (`FAIL` for an unreached `exists`) where it must be
//! `UNKNOWN`; when it waits for a thread that reaches undefined behaviour,
//! that execution shows the behaviour. Both engines, and genuine spinloops
//! that must still never be cut.

use gpumc_core::cat::Model;
use gpumc_core::ir::{InstrKind, Program};
use gpumc_verify::engine::races::RaceResult;
use gpumc_verify::engine::safety::{self, SafetyResult, Verdict};
use gpumc_verify::engine::{races, symbolic, Options};
use std::path::Path;

fn parse(src: &str) -> Program {
    gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).expect("test parses")
}

fn vulkan() -> Model {
    gpumc_core::models::load("vulkan").expect("the embedded Vulkan model loads")
}

fn opts(bound: u32) -> Options {
    Options {
        bound,
        ..Options::default()
    }
}

/// The safety results of the explicit and the symbolic engine.
fn safety_both(p: &Program, bound: u32) -> [SafetyResult; 2] {
    let m = vulkan();
    [
        safety::check(p, &m, &opts(bound)).expect("explicit check runs"),
        symbolic::check_safety(p, &m, &opts(bound)).expect("symbolic check runs"),
    ]
}

fn races_both(p: &Program, bound: u32) -> [RaceResult; 2] {
    let m = vulkan();
    [
        races::check(p, &m, &opts(bound)).expect("explicit check runs"),
        symbolic::check_races(p, &m, &opts(bound)).expect("symbolic check runs"),
    ]
}

/// Asserts the verdict (and whether the bound was hit) of both engines.
fn expect(results: &[SafetyResult; 2], verdict: Verdict, bound_hit: bool, what: &str) {
    for (r, engine) in results.iter().zip(["explicit", "symbolic"]) {
        assert_eq!(r.verdict, verdict, "{what}, {engine} engine: {r:?}");
        assert_eq!(r.bound_hit, bound_hit, "{what}, {engine} engine: {r:?}");
    }
}

/// The smallest form of the bug. P1's loop always goes round once more
/// after its first iteration, which writes (`y` becomes 1, so the second
/// exchange reads 1 and leaves), so the bound 1 cuts every path of P1
/// before its store to `x`. P0 spins until it reads `x == 1`: its only
/// path that ends needs that store, and its spinning path was dropped, so
/// no combination of paths was left to show the cut.
const WAITS_FOR_CUT: &str = "VULKAN waits-for-cut
{
x=0;
y=0;
}
P0@sg 0,wg 0, qf 0         | P1@sg 0,wg 0, qf 0         ;
LC00:                      | LC10:                      ;
ld.atom.wg.sc0 r0, x       | rmw.atom.wg.sc0 r1, y, 1   ;
beq r0, 0, LC00            | beq r1, 0, LC10            ;
                           | st.atom.wg.sc0 x, 1        ;
exists (x == 1)
";

#[test]
fn a_thread_waiting_for_a_cut_thread_shows_the_bound_hit() {
    let p = parse(WAITS_FOR_CUT);
    expect(&safety_both(&p, 1), Verdict::Unknown, true, "bound 1");
    expect(&safety_both(&p, 2), Verdict::Pass, false, "bound 2");
}

/// The same for every quantifier: `~exists` and `forall` of an unreached
/// state are not proved either.
#[test]
fn no_quantifier_claims_a_complete_exploration_behind_a_cut() {
    for cond in ["~exists (x == 1)", "forall (x == 0)"] {
        let p = parse(&WAITS_FOR_CUT.replace("exists (x == 1)", cond));
        expect(&safety_both(&p, 1), Verdict::Unknown, true, cond);
        expect(&safety_both(&p, 2), Verdict::Fail, false, cond);
    }
}

/// Data races the same way: no execution completes at bound 1, so none
/// can be checked, and `PASS` would claim there is no race at all.
#[test]
fn races_behind_a_cut_are_unknown() {
    let p = parse(WAITS_FOR_CUT);
    for (r, engine) in races_both(&p, 1).iter().zip(["explicit", "symbolic"]) {
        assert_eq!(r.verdict, Verdict::Unknown, "{engine} engine: {r:?}");
        assert!(r.bound_hit, "{engine} engine: {r:?}");
    }
    for (r, engine) in races_both(&p, 2).iter().zip(["explicit", "symbolic"]) {
        assert_eq!(r.verdict, Verdict::Pass, "{engine} engine: {r:?}");
    }
}

/// Dat3M's CADP `2_threads_4_instructions/106_simple` with the final state
/// that real hardware showed. P1 loops like P1 above; P0's loop has two
/// back-edges to one header: the spin on `Mem0` and the `goto` after an
/// exchange that wrote (not a spinning iteration). At bound 1 every path
/// of P1 is cut, so P0 can only spin.
const CADP_106: &str = "VULKAN 106_simple
{
Mem0=0;
Mem1=0;
P0:r0=0;
P0:r1=0;
P1:r2=0;
}
P0@sg 0,wg 0, qf 0               | P1@sg 0,wg 0, qf 0               ;
LC00:                            | LC10:                            ;
ld.atom.wg.sc0 r0, Mem0          | rmw.atom.wg.sc0 r2, Mem1, 1      ;
bne r0, 0, LC01                  | bne r2, 0, LC11                  ;
goto LC00                        | goto LC10                        ;
LC01:                            | LC11:                            ;
rmw.atom.wg.sc0 r1, Mem1, 0      | st.atom.wg.sc0 Mem0, 1           ;
bne r1, 1, LC02                  | LC12:                            ;
goto LC00                        |                                  ;
LC02:                            |                                  ;
exists (Mem0 == 1 /\\ Mem1 == 0)
";

#[test]
fn cadp_106_state_needs_a_second_iteration() {
    let p = parse(CADP_106);
    expect(&safety_both(&p, 1), Verdict::Unknown, true, "bound 1");
    expect(&safety_both(&p, 2), Verdict::Pass, false, "bound 2");
}

/// Undefined behaviour is not hidden by a thread spinning for what the
/// stopped thread never does: P1 reaches unreachable code before its
/// store, so P0 can only spin, and `~exists` must fail with the note.
#[test]
fn undefined_behaviour_behind_a_spinning_thread() {
    let mut p = parse(
        "VULKAN ub-behind-spin
{
x=0;
y=0;
}
P0@sg 0,wg 0, qf 0         | P1@sg 0,wg 0, qf 0         ;
LC00:                      | ld.atom.wg.sc0 r1, y       ;
ld.atom.wg.sc0 r0, x       | st.atom.wg.sc0 x, 1        ;
beq r0, 0, LC00            |                            ;
~exists (x == 1)
",
    );
    // Litmus has no syntax for it: P1's load becomes unreachable code.
    let first = p.threads[1]
        .instrs
        .iter_mut()
        .find(|i| matches!(i.kind, InstrKind::Load { .. }))
        .expect("P1 loads");
    first.kind = InstrKind::Unreachable { cause: None };
    for (r, engine) in safety_both(&p, 1).iter().zip(["explicit", "symbolic"]) {
        assert_eq!(r.verdict, Verdict::Fail, "{engine} engine: {r:?}");
        let note = r.note.as_deref().unwrap_or("");
        assert!(
            note.contains("thread P1 reaches unreachable code"),
            "{engine} engine: {r:?}"
        );
    }
}

/// Genuine spinloops are still never cut: a read-only spin on a flag set
/// by a loop-free thread, and compare-and-swap lock loops whose failed
/// attempts write nothing, are decided at bound 1 without `UNKNOWN`.
#[test]
fn spinloops_are_still_never_cut() {
    let mp = "VULKAN mp-spin
{
x=0;
flag=0;
}
P0@sg 0,wg 0, qf 0         | P1@sg 0,wg 0, qf 0         ;
LC00:                      | st.atom.wg.sc0 x, 1        ;
ld.atom.wg.sc0 r0, flag    | st.atom.wg.sc0 flag, 1     ;
beq r0, 0, LC00            |                            ;
ld.atom.wg.sc0 r1, x       |                            ;
exists (P0:r1 == 1)
";
    expect(
        &safety_both(&parse(mp), 1),
        Verdict::Pass,
        false,
        "mp, exists",
    );
    let never = mp.replace("exists (P0:r1 == 1)", "~exists (P0:r0 == 0)");
    expect(
        &safety_both(&parse(&never), 1),
        Verdict::Pass,
        false,
        "mp, ~exists",
    );
    // Two threads take a CAS lock (acquire), increment `x` inside and
    // release it: the increments never overlap.
    let lock = "VULKAN cas-lock
{
l=0;
x=0;
}
P0@sg 0,wg 0, qf 0                         | P1@sg 0,wg 0, qf 0                         ;
LC00:                                      | LC10:                                      ;
rmw.atom.acq.wg.sc0.semsc0.cas r0, l, 0, 1 | rmw.atom.acq.wg.sc0.semsc0.cas r2, l, 0, 1 ;
bne r0, 0, LC00                            | bne r2, 0, LC10                            ;
ld.atom.wg.sc0 r1, x                       | ld.atom.wg.sc0 r3, x                       ;
add r1, r1, 1                              | add r3, r3, 1                              ;
st.atom.wg.sc0 x, r1                       | st.atom.wg.sc0 x, r3                       ;
st.atom.rel.wg.sc0.semsc0 l, 0             | st.atom.rel.wg.sc0.semsc0 l, 0             ;
~exists (x == 1)
";
    expect(
        &safety_both(&parse(lock), 1),
        Verdict::Pass,
        false,
        "cas lock",
    );
}
