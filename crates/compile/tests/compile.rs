//! `compile`: C programs (built by hand, tagged as the C front-end tags
//! them) to PTX and Vulkan with the built-in mappings; the printed tests
//! against golden text, the compiled programs against our front-end's
//! reading of that text, and `origin`.

mod common;
use common::*;
use gpumc_compile::{compile, print, Mapping, Target};
use gpumc_core::ir::{BinOp, CmpOp, Instr, InstrKind, Operand, RmwOp};
use gpumc_frontend::litmus;
use std::path::Path;

fn compiled(p: &gpumc_core::ir::Program, to: Target) -> (String, gpumc_compile::Compiled) {
    let c = compile(p, &Mapping::default_for(to), to).unwrap();
    let text = print::litmus(&c.program, &[]).unwrap();
    // The compiled program is exactly what our front-end reads from it.
    let back = litmus::parse(&text, Path::new("compiled.litmus")).unwrap();
    assert!(print::difference(&c.program, &back).is_none(), "{text}");
    (text, c)
}

#[test]
fn mp_release_acquire_to_ptx() {
    let (text, c) = compiled(&mp("REL", "ACQ", "GPU"), Target::Ptx);
    assert_eq!(
        text,
        "PTX MP
{
x=0;
y=0;
}
 P0@cta 0,gpu 0      | P1@cta 1,gpu 0       ;
 st.weak x, 1        | ld.acquire.gpu r0, y ;
 st.release.gpu y, 1 | ld.weak r1, x        ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"
    );
    assert_eq!(
        c.origin,
        vec![vec![Some(0), Some(1)], vec![Some(0), Some(1)]]
    );
}

#[test]
fn seq_cst_accesses_get_a_leading_fence_in_ptx() {
    let (text, c) = compiled(&mp("SC", "SC", "SYS"), Target::Ptx);
    assert!(
        text.contains(
            " st.weak x, 1        | fence.sc.sys         ;
 fence.sc.sys        | ld.acquire.sys r0, y ;
 st.release.sys y, 1 | ld.weak r1, x        ;
"
        ),
        "{text}"
    );
    // fence and access both come from the SC access.
    assert_eq!(
        c.origin,
        vec![
            vec![Some(0), Some(1), Some(1)],
            vec![Some(0), Some(0), Some(1)]
        ]
    );
    let f = &c.program.threads[0].instrs[1];
    let mut tags = f.tags.clone();
    tags.sort();
    assert_eq!(tags, ["ACQ", "ACQ_REL", "F", "GEN", "REL", "SC", "SYS"]);
}

#[test]
fn mp_release_acquire_to_vulkan() {
    let (text, c) = compiled(&mp("REL", "ACQ", "CTA"), Target::Vulkan);
    assert_eq!(
        text,
        "VULKAN MP
{
x=0;
y=0;
}
 P0@sg 0,wg 0,qf 0                    | P1@sg 0,wg 1,qf 0                      ;
 st.nonpriv.sc0 x, 1                  | ld.atom.acq.wg.sc0.semsc0.semvis r0, y ;
 st.atom.rel.wg.sc0.semsc0.semav y, 1 | ld.nonpriv.sc0 r1, x                   ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
"
    );
    assert_eq!(c.program.arch, gpumc_core::ir::Arch::Vulkan);
}

/// Lustig et al., ASPLOS'19 Fig. 12: the ISA2-like test whose SC RMW
/// needs `.release`. Built-in: `fence.sc; atom.acq_rel`; the flawed
/// example mapping: `fence.sc; atom.acquire`.
fn fig12() -> gpumc_core::ir::Program {
    program(
        "Fig12",
        &["x", "y"],
        vec![
            (
                (0, 0),
                vec![st(1, 0, 1, "NA", None), st(2, 1, 1, "REL", Some("GPU"))],
            ),
            (
                (1, 0),
                vec![
                    rmw(1, Some("r0"), 1, RmwOp::Exch, 2, "SC", "GPU"),
                    st(2, 1, 3, "RLX", Some("GPU")),
                ],
            ),
            (
                (2, 0),
                vec![
                    ld(1, "r0", 1, "ACQ", Some("GPU")),
                    ld(2, "r1", 0, "NA", None),
                ],
            ),
        ],
        Some(and(
            and(reg_eq(1, "r0", 1), reg_eq(2, "r0", 3)),
            reg_eq(2, "r1", 0),
        )),
    )
}

#[test]
fn fig12_rmw_sc_keeps_release_in_the_builtin_and_loses_it_in_the_flawed_example() {
    let (text, c) = compiled(&fig12(), Target::Ptx);
    assert!(text.contains("atom.acq_rel.gpu.exch r0, y, 2"), "{text}");
    let rmw = &c.program.threads[1].instrs[1];
    assert_eq!(rmw.halves.read, ["ACQ"]);
    assert_eq!(rmw.halves.write, ["REL"]);
    assert_eq!(c.origin[1], [Some(0), Some(0), Some(1)]);
    assert_eq!(c.image(1, 0).collect::<Vec<_>>(), [0, 1]);
    assert_eq!(c.access(1, 0), Some(1));
    assert_eq!(c.access(1, 1), Some(2));
    assert_eq!(c.access(0, 5), None);

    let flawed = Mapping::load(
        gpumc_testutil::repo_root()
            .join("examples/mappings/ptx-rmw-sc-no-release.map")
            .to_str()
            .unwrap(),
    )
    .unwrap();
    assert!(flawed.uncovered().is_empty());
    let c = compile(&fig12(), &flawed, Target::Ptx).unwrap();
    let text = print::litmus(&c.program, &[]).unwrap();
    assert!(text.contains("fence.sc.gpu"), "{text}");
    assert!(text.contains("atom.acquire.gpu.exch r0, y, 2"), "{text}");
    let rmw = &c.program.threads[1].instrs[1];
    assert_eq!(rmw.halves.write, ["RLX"]);
}

#[test]
fn rmw_without_destination_gets_a_fresh_register_and_keeps_its_operation() {
    let p = program(
        "rmws",
        &["x"],
        vec![(
            (0, 0),
            vec![
                rmw(1, None, 0, RmwOp::Add, 2, "RLX", "CTA"),
                rmw(
                    2,
                    Some("r0"),
                    0,
                    RmwOp::Cas {
                        expected: Operand::Const(2),
                    },
                    5,
                    "ACQ_REL",
                    "SYS",
                ),
            ],
        )],
        None,
    );
    let (text, _) = compiled(&p, Target::Ptx);
    assert!(text.contains("atom.relaxed.cta.add r1, x, 2"), "{text}");
    assert!(text.contains("atom.acq_rel.sys.cas r0, x, 2, 5"), "{text}");
    let (text, _) = compiled(&p, Target::Vulkan);
    assert!(text.contains("rmw.atom.wg.sc0.add r1, x, 2"), "{text}");
    assert!(
        text.contains("rmw.atom.acq_rel.dv.sc0.semsc0.semav.semvis.cas r0, x, 2, 5"),
        "{text}"
    );
}

#[test]
fn fences_compile_per_order_and_relaxed_fences_vanish() {
    let p = program(
        "fences",
        &["x"],
        vec![(
            (0, 0),
            vec![
                fence(1, "RLX", "GPU"),
                fence(2, "ACQ", "GPU"),
                fence(3, "REL", "CTA"),
                fence(4, "ACQ_REL", "SYS"),
                fence(5, "SC", "GPU"),
            ],
        )],
        None,
    );
    let (text, c) = compiled(&p, Target::Ptx);
    let body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("P0@"))
        .skip(1)
        .map(|l| l.trim().trim_end_matches(';').trim())
        .collect();
    assert_eq!(
        body,
        [
            "fence.acq_rel.gpu",
            "fence.acq_rel.cta",
            "fence.acq_rel.sys",
            "fence.sc.gpu"
        ]
    );
    assert_eq!(c.origin[0], [Some(1), Some(2), Some(3), Some(4)]);
    let (text, _) = compiled(&p, Target::Vulkan);
    assert!(text.contains("membar.acq.qf.semsc0.semvis"), "{text}");
    assert!(text.contains("membar.rel.wg.semsc0.semav"), "{text}");
    assert!(
        text.contains("membar.acq_rel.dv.semsc0.semav.semvis"),
        "{text}"
    );
}

/// Control flow, register names a litmus test cannot write, comparisons
/// into registers (lowered to a branch).
#[test]
fn control_flow_and_registers_are_kept() {
    let local = |dst: &str, op: BinOp, a: Operand, b: Operand| {
        Instr::new(
            InstrKind::Local {
                dst: dst.into(),
                op,
                a,
                b,
            },
            Vec::new(),
            gpumc_core::ir::Pos { line: 9, col: 1 },
            String::new(),
        )
    };
    let plain = |kind: InstrKind| {
        Instr::new(
            kind,
            Vec::new(),
            gpumc_core::ir::Pos::default(),
            String::new(),
        )
    };
    let mut p = program(
        "if",
        &["x", "y"],
        vec![(
            (0, 0),
            vec![
                ld(1, "tmp", 0, "ACQ", Some("GPU")),
                local(
                    "is1",
                    BinOp::Eq,
                    Operand::Reg("tmp".into()),
                    Operand::Const(1),
                ),
                plain(InstrKind::Branch {
                    op: CmpOp::Ne,
                    a: Operand::Reg("is1".into()),
                    b: Operand::Const(1),
                    target: "else".into(),
                }),
                st(3, 1, 1, "NA", None),
                plain(InstrKind::Label("else".into())),
            ],
        )],
        None,
    );
    p.threads[0].init_regs.push(("r0".into(), 7));
    p.assertion = Some(gpumc_core::ir::Assertion {
        quantifier: gpumc_core::ir::Quantifier::Exists,
        cond: reg_eq(0, "tmp", 1),
    });
    let (text, c) = compiled(&p, Target::Ptx);
    // `r0` is taken by the initial state: `tmp` and `is1` become r1, r2.
    assert!(text.contains("P0:r0=7;"), "{text}");
    assert!(text.contains("ld.acquire.gpu r1, x"), "{text}");
    assert!(text.contains("beq r1, 1, LC00"), "{text}");
    assert!(text.contains("mov r2, 0"), "{text}");
    assert!(text.contains("LC00: mov r2, 1"), "{text}");
    assert!(text.contains("bne r2, 1, else"), "{text}");
    assert!(text.contains("else:"), "{text}");
    assert!(text.contains("exists (P0:r1 == 1)"), "{text}");
    assert_eq!(
        c.origin[0],
        [0, 1, 1, 1, 1, 1, 1, 2, 3, 4].map(Some).to_vec()
    );
}

#[test]
fn placement_becomes_workgroups_and_queue_families_in_vulkan() {
    let p = program(
        "place",
        &["x"],
        vec![
            ((0, 0), vec![ld(1, "r0", 0, "RLX", Some("GPU"))]),
            ((0, 0), vec![ld(1, "r0", 0, "RLX", Some("GPU"))]),
            ((1, 0), vec![ld(1, "r0", 0, "RLX", Some("GPU"))]),
            ((0, 1), vec![ld(1, "r0", 0, "RLX", Some("SYS"))]),
        ],
        None,
    );
    let (_, c) = compiled(&p, Target::Vulkan);
    let ids: Vec<Vec<i64>> = c
        .program
        .threads
        .iter()
        .map(|t| t.placement.ids.clone())
        .collect();
    assert_eq!(
        ids,
        [vec![0, 0, 0], vec![1, 0, 0], vec![0, 1, 0], vec![0, 0, 1]]
    );
    let (_, c) = compiled(&p, Target::Ptx);
    assert_eq!(c.program.threads[3].placement.ids, [0, 1]);
}

#[test]
fn an_operation_without_a_rule_is_an_error_at_the_source_instruction() {
    let m = Mapping::parse(
        "target ptx\nload na -> ld.weak\nstore na -> st.weak\nstore rel $s -> st.release.$s\n",
        Path::new("partial.map"),
    )
    .unwrap();
    let e = compile(&mp("REL", "ACQ", "GPU"), &m, Target::Ptx).unwrap_err();
    assert_eq!(e.pos, Some(gpumc_core::ir::Pos { line: 1, col: 3 }));
    assert!(
        e.message
            .contains("partial.map has no rule for `load acq gpu`"),
        "{}",
        e.message
    );
}

#[test]
fn a_mapping_for_another_target_is_refused() {
    let e = compile(
        &mp("REL", "ACQ", "GPU"),
        &Mapping::default_for(Target::Vulkan),
        Target::Ptx,
    )
    .unwrap_err();
    assert!(
        e.message.contains("compiles to vulkan, not to ptx"),
        "{}",
        e.message
    );
}

#[test]
fn only_c_programs_compile() {
    let src =
        std::fs::read_to_string(gpumc_testutil::repo_root().join("examples/MP-relacq.litmus"))
            .unwrap();
    let p = litmus::parse(&src, Path::new("MP-relacq.litmus")).unwrap();
    let e = compile(&p, &Mapping::default_for(Target::Ptx), Target::Ptx).unwrap_err();
    assert!(
        e.message
            .contains("compiling a PTX test: `gpumc compile` compiles C litmus tests"),
        "{}",
        e.message
    );
}

/// Every C litmus test of the repository compiles to PTX and Vulkan with
/// the built-in mappings, and the printed test parses back to the compiled
/// program (`compiled` checks it).
#[test]
fn every_c_example_compiles_to_both_targets() {
    let root = gpumc_testutil::repo_root();
    let mut n = 0;
    for dir in ["examples", "tests/compile"] {
        for f in gpumc_testutil::litmus_files(&root.join(dir)) {
            let src = std::fs::read_to_string(&f).unwrap();
            if !src.trim_start().starts_with("C ") {
                continue;
            }
            let p = litmus::parse(&src, &f).unwrap_or_else(|e| panic!("{e}"));
            if has_barrier(&p) {
                // Refused by name (`barriers_are_refused_by_name`).
                continue;
            }
            for to in [Target::Ptx, Target::Vulkan] {
                let (_, c) = compiled(&p, to);
                assert_eq!(c.origin.len(), p.threads.len());
                for (t, o) in c.origin.iter().enumerate() {
                    assert_eq!(o.len(), c.program.threads[t].instrs.len());
                    // Origins run in program order.
                    assert!(o.windows(2).all(|w| w[0] <= w[1]), "{}", f.display());
                }
            }
            n += 1;
        }
    }
    assert!(n >= 6, "only {n} C tests");
}

fn has_barrier(p: &gpumc_core::ir::Program) -> bool {
    p.threads
        .iter()
        .flat_map(|t| &t.instrs)
        .any(|i| matches!(i.kind, InstrKind::Barrier { .. }))
}

/// A barrier has no mapping rule: compiling one is an `unsupported` error
/// at its position, to either target.
#[test]
fn barriers_are_refused_by_name() {
    let f = gpumc_testutil::repo_root().join("examples/c/MP+barrier.same-cta.litmus");
    let p = litmus::parse(&std::fs::read_to_string(&f).unwrap(), &f).unwrap();
    assert!(has_barrier(&p));
    for to in [Target::Ptx, Target::Vulkan] {
        let e = compile(&p, &Mapping::default_for(to), to).unwrap_err();
        assert!(
            e.message
                .contains("unsupported: compiling the control barrier"),
            "{e}"
        );
        assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((10, 3)), "{e}");
    }
}

/// A compare-exchange whose failure order is not its success order's read
/// part is compiled with the join of the two (one order per mapping rule).
#[test]
fn compare_exchange_failure_orders_join_the_success_order() {
    for (succ, fail, want) in [
        ("relaxed", "acquire", "atom.acquire.gpu.cas"),
        ("release", "acquire", "atom.acq_rel.gpu.cas"),
        ("acquire", "relaxed", "atom.acquire.gpu.cas"),
        ("acq_rel", "relaxed", "atom.acq_rel.gpu.cas"),
        ("relaxed", "relaxed", "atom.relaxed.gpu.cas"),
    ] {
        let src = format!(
            "C cas\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n  int e = 0;\n  int ok = atomic_compare_exchange_strong_explicit(x, &e, 1, memory_order_{succ}, memory_order_{fail}, memory_scope_device);\n}}\nexists (x = 1)\n"
        );
        let p = litmus::parse(&src, Path::new("cas.litmus")).unwrap();
        let (text, _) = compiled(&p, Target::Ptx);
        assert!(text.contains(want), "{succ}/{fail}: {text}");
    }
}
