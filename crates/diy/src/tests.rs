use super::*;
use crate::edge::{Dir, Via};

fn gen(cycle: &str) -> Generated {
    generate(cycle, &Options::default()).unwrap_or_else(|e| panic!("{cycle}: {e}"))
}

/// The condition line of a test.
fn condition(g: &Generated) -> String {
    g.text.lines().last().unwrap_or("").to_string()
}

#[test]
fn message_passing_has_a_writer_and_a_reader_and_its_outcome() {
    let g = gen("PodWW Rfe PodRR Fre");
    assert_eq!(g.name, "MP");
    let t = &g.test;
    assert_eq!(t.threads.len(), 2);
    assert_eq!(t.locs, 2);
    // T0: W x=1; W y=1. T1: R y (=1); R x (=0).
    let shape: Vec<Vec<(Dir, usize, Option<i64>)>> = t
        .threads
        .iter()
        .map(|th| th.iter().map(|e| (e.dir, e.loc, e.value)).collect())
        .collect();
    assert_eq!(
        shape,
        vec![
            vec![(Dir::W, 0, Some(1)), (Dir::W, 1, Some(1))],
            vec![(Dir::R, 1, Some(1)), (Dir::R, 0, Some(0))]
        ]
    );
    assert_eq!(condition(&g), "(1:r0=1 /\\ 1:r1=0)");
    assert!(g.text.contains("(device (cta (warp T0) (warp T1)))"));
    assert!(g.text.contains("x: global, y: global"));
}

#[test]
fn names_follow_the_threads_orderings() {
    assert_eq!(
        gen("Membar.ctadWW Rfe DpAddrdR Fre").name,
        "MP+membar.cta+addr"
    );
    assert_eq!(
        gen("Membar.gldWW Rfe Membar.gldRR Fre").name,
        "MP+membar.gls"
    );
    assert_eq!(gen("FencedWR Fre FencedWR Fre").name, "SB+membar.gls");
    assert_eq!(gen("DpDatadW Rfe DpDatadW Rfe").name, "LB+datas");
    assert_eq!(gen("PodWW Rfe DpAddrdR Fre").name, "MP+po+addr");
    assert_eq!(gen("Rfe DpAddrdR Fre Rfe DpAddrdR Fre").name, "IRIW+addrs");
    // Rotations name one family; an unknown shape is named by its edges.
    assert_eq!(gen("Rfe PodRR Fre PodWW").name, "MP");
    assert_eq!(gen("PodWR Fre PodWW Rfe PodRR Fre").name, "W+RWC");
    assert_eq!(
        gen("PodWW Rfe PodRR Fre PodWW Rfe PodRR Fre").name,
        "PodWW+Rfe+PodRR+Fre+PodWW+Rfe+PodRR+Fre"
    );
}

#[test]
fn values_follow_coherence_along_each_location() {
    // S: T1's write to x is coherence-before T0's (Wse into T0).
    let g = gen("PodWW Rfe PodRW Wse");
    assert_eq!(g.name, "S");
    assert_eq!(condition(&g), "(x=2 /\\ y=1 /\\ 1:r0=1)");
    // R: T0 writes y=1 before T1's y=2; T1's read of x reads 0.
    let g = gen("PodWW Wse PodWR Fre");
    assert_eq!(condition(&g), "(x=1 /\\ y=2 /\\ 1:r0=0)");
    let g = gen("PodWW Wse PodWW Wse");
    assert_eq!(g.name, "2+2W");
    assert_eq!(condition(&g), "(x=2 /\\ y=2)");
    // One location: the read after the first reads the initial value.
    let g = gen("Rfe PosRR Fre");
    assert_eq!(g.name, "CoRR");
    assert_eq!(g.test.locs, 1);
    assert_eq!(condition(&g), "(1:r0=1 /\\ 1:r1=0)");
    let g = gen("PodWR Fre PodWR Fre");
    assert_eq!(condition(&g), "(0:r0=0 /\\ 1:r0=0)");
}

#[test]
fn dependencies_are_written_robustly() {
    let g = gen("PodWW Rfe DpAddrdR Fre");
    for line in [
        "and.b32 r8,r0,0xffff0000",
        "cvt.u64.u32 r9,r8",
        "add.s64 r9,r6,r9",
        "ld.cg.s32 r1,[r9]",
    ] {
        assert!(g.text.contains(line), "{line}\n{}", g.text);
    }
    let g = gen("DpDatadW Rfe DpDatadW Rfe");
    assert!(g.text.contains("add.s32 r8,r8,1"), "{}", g.text);
    assert_eq!(
        g.test.threads[0][1].via,
        Some(Via::Data),
        "the write carries its dependency"
    );
}

#[test]
fn control_dependencies_guard_the_access_on_the_loaded_value() {
    let g = gen("DpCtrldW Rfe DpCtrldW Rfe");
    assert_eq!(g.name, "LB+ctrls");
    for line in [
        "and.b32 r8,r0,0xffff0000",
        "setp.eq.u32 p0,r8,0",
        "@p0 st.cg.s32 [r7],r3",
        ".reg .pred p0",
    ] {
        assert!(g.text.contains(line), "{line}\n{}", g.text);
    }
    // PTX's No-Thin-Air axiom forbids load buffering with control
    // dependencies; without them it is allowed.
    assert_eq!(verdicts(&g, &["ptx-v7.5".into()])[0].allowed, Some(false));
    let plain = gen("PodRW Rfe PodRW Rfe");
    assert_eq!(
        verdicts(&plain, &["ptx-v7.5".into()])[0].allowed,
        Some(true)
    );
}

#[test]
fn bad_cycles_are_refused_at_their_edge() {
    let err = |c: &str| generate(c, &Options::default()).unwrap_err();
    // Directions that do not meet: Rfe ends at a read, PodWR starts at
    // a write.
    let e = err("PodWW Rfe PodWR Fre");
    assert_eq!(e.pos.map(|p| p.col), Some(11), "{e}");
    assert!(e.message.contains("`PodWR` starts at a write"), "{e}");
    let e = err("PodWW Rfe Podx Fre");
    assert_eq!(e.pos.map(|p| p.col), Some(11), "{e}");
    assert!(e.message.contains("unknown edge `Podx`"), "{e}");
    let e = err("PodWR PodRW");
    assert!(e.message.contains("no external"), "{e}");
    let e = err("PodWW Rfe PosRR Fre");
    assert!(
        e.message.contains("only edge to a different location"),
        "{e}"
    );
    // A dependency starts at a read: after a write it does not meet.
    let e = err("DpAddrdW Rfe PodRR Fre");
    assert!(e.message.contains("`DpAddrdW` starts at a read"), "{e}");
    let e = err("DpDatadR Fre PodWR Fre");
    assert!(e.message.contains("ends at a write"), "{e}");
    // Dat3M's PTX dialect has no register arithmetic for a dependency.
    let dat3m = Options {
        arch: Arch::Dat3mPtx,
        ..Options::default()
    };
    let e = generate("PodWW Rfe DpCtrldR Fre", &dat3m).unwrap_err();
    assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Unsupported);
    // Shared memory across CTAs.
    let opts = Options {
        placement: Placement::Cta,
        region: Region::Shared,
        ..Options::default()
    };
    assert!(generate("PodWW Rfe PodRR Fre", &opts).is_err());
}

#[test]
fn every_generated_test_parses_and_the_models_judge_it() {
    // The thesis's verdicts for D-warp:S-cta (ptx-v7.5): MP is allowed
    // without fences and forbidden with membar.cta in both threads.
    let g = gen("PodWW Rfe PodRR Fre");
    let v = verdicts(&g, &["ptx-v7.5".into()]);
    assert_eq!(v[0].allowed, Some(true), "{:?}", v[0]);
    let g = gen("Membar.ctadWW Rfe Membar.ctadRR Fre");
    let v = verdicts(&g, &["ptx-v7.5".into(), "ptx-v6.0".into()]);
    assert!(v.iter().all(|v| v.allowed == Some(false)), "{v:?}");
    let text = with_verdicts(&g, &v);
    assert!(text.contains("Verdict=ptx-v7.5 Forbidden\nVerdict=ptx-v6.0 Forbidden\n"));
    // Threads in different CTAs: membar.cta no longer orders them.
    let opts = Options {
        placement: Placement::Cta,
        ..Options::default()
    };
    let g = generate("Membar.ctadWW Rfe Membar.ctadRR Fre", &opts).unwrap();
    assert!(g.text.contains("(device (cta (warp T0)) (cta (warp T1)))"));
    assert_eq!(verdicts(&g, &["ptx-v7.5".into()])[0].allowed, Some(true));
}
