use super::*;
use crate::spec::{
    semantics as sem, Access, Address, End, Fence, Op, PhaseBarrier, PtxScope, PtxSem, RmwKind,
    Value, VkScope,
};
use std::path::Path;

fn parse(src: &str) -> Program {
    gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).expect("test parses")
}

fn lower_all(src: &str) -> Result<Lowered> {
    let p = parse(src);
    let terms: Vec<Term> = p
        .assertion
        .as_ref()
        .map(|a| a.cond.terms())
        .unwrap_or_default();
    lower(&p, &terms)
}

fn vk(op: &Op) -> &crate::spec::VkAccess {
    match op {
        Op::Load { access, .. } | Op::Store { access, .. } | Op::Rmw { access, .. } => match access
        {
            Access::Vulkan(a) => a,
            Access::Ptx(_) => panic!("a PTX access"),
        },
        _ => panic!("not an access: {op:?}"),
    }
}

const MP_VK: &str = r#"Vulkan MP
{ x=0; y=0; P1:r0=0; P1:r1=0; }
 P0@sg 0, wg 0, qf 0            | P1@sg 0,wg 1, qf 0              ;
 st.sc0 x, 1                    | ld.atom.acq.dv.sc0.semsc0 r0, y ;
 st.atom.rel.dv.sc0.semsc0 y, 1 | ld.vis.dv.sc0 r1, x             ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;

#[test]
fn vulkan_mp_decodes_atomics_semantics_and_visibility() {
    let l = lower_all(MP_VK).unwrap();
    assert_eq!(l.spec.dialect, Dialect::Vulkan);
    assert_eq!(l.spec.locations.len(), 2);
    assert!(l.spec.locations.iter().all(|s| s.region == Region::Global));
    assert!(l.spec.barriers.is_empty());
    let p0 = &l.spec.threads[0].phases[0].blocks;
    assert_eq!(p0.len(), 1);
    assert_eq!(p0[0].end, End::Exit);
    let plain = vk(&p0[0].ops[0]);
    assert!(!plain.atomic && !plain.non_private && plain.scope.is_none());
    let rel = vk(&p0[0].ops[1]);
    assert!(rel.atomic);
    assert_eq!(rel.scope, Some(VkScope::Device));
    assert_eq!(rel.semantics, sem::RELEASE | sem::UNIFORM_MEMORY);
    let p1 = &l.spec.threads[1].phases[0].blocks[0].ops;
    assert_eq!(vk(&p1[0]).semantics, sem::ACQUIRE | sem::UNIFORM_MEMORY);
    let vis = vk(&p1[1]);
    assert!(!vis.atomic && vis.make_visible && vis.non_private);
    assert_eq!(vis.scope, Some(VkScope::Device));
    // P1:r0 and P1:r1 are recorded in condition order.
    assert_eq!(
        l.sources,
        vec![
            Source::Reg { thread: 1, slot: 0 },
            Source::Reg { thread: 1, slot: 1 }
        ]
    );
    assert_eq!(l.spec.threads[1].recorded.len(), 2);
    // Different workgroups, each thread its own subgroup class.
    assert_ne!(l.places[0].group, l.places[1].group);
}

#[test]
fn relaxed_atomics_drop_class_bits_that_mean_nothing_without_an_order() {
    let src = r#"Vulkan R
{ x=0; }
 P0@sg 0, wg 0, qf 0       ;
 st.atom.wg.sc0.semsc0 x, 1 ;
exists (x == 1)
"#;
    let l = lower_all(src).unwrap();
    assert_eq!(
        vk(&l.spec.threads[0].phases[0].blocks[0].ops[0]).semantics,
        0
    );
    assert_eq!(l.sources, vec![Source::Loc(0)]);
}

#[test]
fn cas_unequal_semantics_drop_the_release() {
    let src = r#"Vulkan C
{ x=0; }
 P0@sg 0, wg 0, qf 0                        ;
 rmw.atom.acq_rel.dv.sc0.semsc0.cas r0, x, 0, 1 ;
exists (P0:r0 == 0)
"#;
    let l = lower_all(src).unwrap();
    let op = &l.spec.threads[0].phases[0].blocks[0].ops[0];
    let a = vk(op);
    assert_eq!(a.semantics, sem::ACQUIRE_RELEASE | sem::UNIFORM_MEMORY);
    assert_eq!(a.unequal_semantics, sem::ACQUIRE | sem::UNIFORM_MEMORY);
    assert!(matches!(
        op,
        Op::Rmw {
            op: RmwKind::Cas {
                expected: Value::Const(0)
            },
            value: Value::Const(1),
            ..
        }
    ));
}

#[test]
fn loops_become_blocks_with_back_edges() {
    let src = r#"VULKAN spin
{ flag=0; P0:r0=0; }
 P0@sg 0,wg 0, qf 0        | P1@sg 0,wg 1, qf 0     ;
 LC00:                     | st.atom.dv.sc0 flag, 1 ;
 ld.atom.dv.sc0 r1, flag   |                        ;
 bne r1, 0, LC01           |                        ;
 goto LC00                 |                        ;
 LC01:                     |                        ;
 add r0, 1, 0              |                        ;
exists (P0:r0 == 1)
"#;
    let l = lower_all(src).unwrap();
    let b = &l.spec.threads[0].phases[0].blocks;
    assert_eq!(b.len(), 3, "{b:?}");
    assert!(matches!(
        b[0].end,
        End::Branch {
            then: 2,
            otherwise: 1,
            ..
        }
    ));
    assert_eq!(b[1].end, End::Goto(0));
    assert!(End::is_back(1, 0));
    assert_eq!(b[2].end, End::Exit);
    assert!(matches!(b[2].ops[0], Op::Local { .. }));
}

#[test]
fn barriers_cut_phases_and_must_agree() {
    let src = r#"Vulkan B
{ x=0; }
 P0@sg 0, wg 0, qf 0      | P1@sg 1, wg 0, qf 0      ;
 st.av.wg.sc0 x, 1        | cbar.acq_rel.wg.semsc0 1 ;
 cbar.acq_rel.wg.semsc0 1 | ld.vis.wg.sc0 r0, x      ;
forall (P1:r0 == 1)
"#;
    let l = lower_all(src).unwrap();
    assert_eq!(
        l.spec.barriers,
        vec![PhaseBarrier::Vulkan {
            execution: VkScope::Workgroup,
            memory: VkScope::Workgroup,
            semantics: sem::ACQUIRE_RELEASE | sem::UNIFORM_MEMORY
        }]
    );
    let t0 = &l.spec.threads[0];
    assert_eq!(t0.phases.len(), 2);
    assert_eq!(t0.phases[0].blocks[0].ops.len(), 1);
    assert!(t0.phases[1].blocks.is_empty());
    assert!(l.spec.threads[1].phases[0].blocks.is_empty());
    // Same workgroup, different subgroups.
    assert_eq!(l.places[0].group, l.places[1].group);
    assert_ne!(l.places[0].subgroup, l.places[1].subgroup);
}

fn refused(src: &str, needle: &str) {
    let e = lower_all(src).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains(needle), "{e}");
}

#[test]
fn refusals_name_the_reason_and_position() {
    refused(
        r#"Vulkan Q
{ x=0; }
 P0@sg 0, wg 0, qf 0            | P1@sg 1, wg 0, qf 0            ;
 cbar.acq_rel.dv.semsc0 1, 1, 4 | cbar.acq_rel.dv.semsc0 1, 1, 4 ;
exists (x == 0)
"#,
        "quorum",
    );
    refused(
        r#"Vulkan P
{ x=0; }
 P0@sg 0, wg 0, qf 0      | P1@sg 1, wg 0, qf 0 ;
 cbar.acq_rel.wg.semsc0 1 | st.atom.wg.sc0 x, 1 ;
exists (x == 0)
"#,
        "partial participation",
    );
    refused(
        r#"Vulkan S
{ x=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0, wg 1, qf 0  ;
 st.atom.wg.sc1 x, 1  | ld.atom.wg.sc1 r0, x ;
exists (P1:r0 == 0)
"#,
        "4:25: unsupported: on hardware: `x` is in workgroup (shared) memory",
    );
    refused(
        r#"Vulkan F
{ x=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0, wg 0, qf 1  ;
 st.atom.wg.sc0 x, 1  | ld.atom.wg.sc0 r0, x ;
exists (P1:r0 == 0)
"#,
        "queue families",
    );
    refused(
        r#"Vulkan D
{ x=0; }
 P0@sg 0, wg 0, qf 0 ;
 avdevice            ;
exists (x == 0)
"#,
        "avdevice",
    );
    refused(
        r#"Vulkan L
{ x=0; }
 P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;
 LC0:                | LC1:                ;
 cbar.acq_rel.wg 1   | cbar.acq_rel.wg 1   ;
 goto LC0            | goto LC1            ;
exists (x == 0)
"#,
        "across a control barrier",
    );
}

#[test]
fn ptx_orders_scopes_fences_and_rmw_halves() {
    let src = r#"PTX T
{ x=0; y=0; }
 P0@cta 0,gpu 0        | P1@cta 1,gpu 0                   ;
 st.weak x, 1          | atom.acq_rel.gpu.exch r0, y, 2   ;
 membar.gl             | fence.acq_rel.cta                ;
 st.release.sys y, 1   | ld.relaxed.cta r1, x             ;
 bar.cta.sync 0        | bar.cta.sync 0                   ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;
    let l = lower_all(src).unwrap();
    assert_eq!(l.spec.dialect, Dialect::Ptx);
    assert_eq!(l.spec.barriers, vec![PhaseBarrier::Ptx { id: 0 }]);
    let ptx = |op: &Op| match op {
        Op::Load {
            access: Access::Ptx(a),
            ..
        }
        | Op::Store {
            access: Access::Ptx(a),
            ..
        }
        | Op::Rmw {
            access: Access::Ptx(a),
            ..
        } => (a.sem, a.scope),
        _ => panic!("{op:?}"),
    };
    let t0 = &l.spec.threads[0].phases[0].blocks[0].ops;
    assert_eq!(ptx(&t0[0]), (PtxSem::Weak, None));
    assert_eq!(
        t0[1],
        Op::Fence(Fence::PtxMembar {
            scope: PtxScope::Gpu
        })
    );
    assert_eq!(ptx(&t0[2]), (PtxSem::Release, Some(PtxScope::Sys)));
    let t1 = &l.spec.threads[1].phases[0].blocks[0].ops;
    assert_eq!(ptx(&t1[0]), (PtxSem::AcqRel, Some(PtxScope::Gpu)));
    assert_eq!(
        t1[1],
        Op::Fence(Fence::PtxFence {
            sc: false,
            scope: PtxScope::Cta
        })
    );
    assert_eq!(ptx(&t1[2]), (PtxSem::Relaxed, Some(PtxScope::Cta)));
    assert!(matches!(
        &t1[0],
        Op::Rmw {
            addr: Address::Fixed(1),
            ..
        }
    ));
    // PTX without warps: any subgroup.
    assert_eq!(l.places[0].subgroup, None);
}

#[test]
fn ptx_proxies_are_refused() {
    refused(
        r#"PTX P
{ x=0; s @ surface aliases x; }
 P0@cta 0,gpu 0 ;
 st.weak x, 1   ;
exists (x == 1)
"#,
        "aliases",
    );
}

#[test]
fn every_vulkan_corpus_test_lowers_or_says_why() {
    let root = gpumc_testutil::shared_corpus().join("dat3m/litmus/VULKAN");
    if !root.exists() {
        eprintln!(
            "skipped: {} not found (the shared corpus is not beside the repository)",
            root.display()
        );
        return;
    }
    let files = gpumc_testutil::litmus_files(&root);
    let (mut ok, mut refused) = (0, 0);
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let Ok(p) = gpumc_frontend::litmus::parse(&src, f) else {
            continue;
        };
        let terms: Vec<Term> = p
            .assertion
            .as_ref()
            .map(|a| a.cond.terms())
            .unwrap_or_default();
        match lower(&p, &terms) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!(e.kind, ErrorKind::Unsupported, "{}: {e}", f.display());
                if std::env::var_os("GPUMC_SHOW_REFUSALS").is_some() {
                    eprintln!("{}: {e}", f.display());
                }
                refused += 1;
            }
        }
    }
    eprintln!("VULKAN corpus: {ok} lower, {refused} refused");
    // Most of the suite is plain atomics, fences, loops and barriers.
    assert!(ok > 600, "only {ok} of {} lower", files.len());
}

#[test]
fn a_c_test_is_refused_at_its_first_statement() {
    let src = "C MP\n{ x = 0; }\n\nP0(atomic_int* x) {\n  atomic_store(x, 1);\n}\nexists (x = 1)\n";
    let e = lower_all(src).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((5, 3)), "{e}");
    assert!(
        e.message
            .contains("compile it to PTX or Vulkan first (gpumc compile)"),
        "{e}"
    );
}
