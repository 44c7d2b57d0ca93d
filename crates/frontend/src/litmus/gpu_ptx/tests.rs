//! Unit tests of the `GPU_PTX` dialect: one group per construct, and
//! exact error positions for malformed inputs.

use super::super::parse;
use crate::diag::{Error, ErrorKind};
use crate::ir::{
    Addr, Arch, BinOp, CmpOp, Cond, Instr, InstrKind, Operand, Placement, Pos, Program, Quantifier,
    RmwOp, Term,
};
use std::path::Path;

fn ok(src: &str) -> Program {
    parse(src, Path::new("t.litmus")).unwrap_or_else(|e| panic!("unexpected error: {e}\n{src}"))
}

fn err(src: &str) -> Error {
    match parse(src, Path::new("t.litmus")) {
        Ok(p) => panic!("expected an error, got {p:#?}"),
        Err(e) => e,
    }
}

/// Asserts the error kind, `line:col` and a fragment of the message.
fn err_at(src: &str, kind: ErrorKind, line: u32, col: u32, needle: &str) {
    let e = err(src);
    assert_eq!(e.kind, kind, "{e}\n{src}");
    assert_eq!(e.pos, Some(Pos { line, col }), "{e}\n{src}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
}

/// A two-thread test: `r1` holds `x` in T0 and `y` in T1; `rows` from
/// line 7 on, then an intra-CTA scope tree and `tail`.
fn two(rows: &str, tail: &str) -> String {
    format!(
        "GPU_PTX t\n{{\n0: .reg .b64 r1 = x;\n1: .reg .b64 r1 = y;\n}}\n T0 | T1 ;\n{rows}\
         ScopeTree\n(device (cta (warp T0) (warp T1)))\n{tail}"
    )
}

/// T0's instructions when its only cell row is `cell`.
fn t0(cell: &str) -> Vec<Instr> {
    ok(&two(&format!(" {cell} | ;\n"), "")).threads[0]
        .instrs
        .clone()
}

/// The single instruction of T0's cell `cell`.
fn one(cell: &str) -> Instr {
    let v = t0(cell);
    assert_eq!(v.len(), 1, "{cell}: {v:#?}");
    v[0].clone()
}

fn tags(i: &Instr) -> String {
    let mut s = i.tags.join(",");
    if !i.halves.read.is_empty() || !i.halves.write.is_empty() {
        s = format!(
            "{s} r:{} w:{}",
            i.halves.read.join(","),
            i.halves.write.join(",")
        );
    }
    s
}

fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

const FIG_3_2: &str = "GPU_PTX SB
{
0: .reg .s32 r0;
0: .reg .s32 r2;
0: .reg .b64 r1 = x;
0: .reg .b64 r3 = y;
1: .reg .s32 r0;
1: .reg .s32 r2;
1: .reg .b64 r1 = y;
1: .reg .b64 r3 = x;
}

T0                | T1                ;
mov.s32 r0,1      | mov.s32 r0,1      ;
st.cg.s32 [r1],r0 | st.cg.s32 [r1],r0 ;
ld.cg.s32 r2,[r3] | ld.cg.s32 r2,[r3] ;

ScopeTree
(device (cta (warp T0) (warp T1)))

y: global, x: shared

exists
(0:r2=0 /\\ 1:r2=0)
";

#[test]
fn the_thesis_figure_parses() {
    let p = ok(FIG_3_2);
    assert_eq!(p.arch, Arch::Ptx);
    assert_eq!(p.name, "SB");
    let names: Vec<_> = p.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["T0", "T1"]);
    let placements: Vec<_> = p.threads.iter().map(|t| t.placement.clone()).collect();
    assert_eq!(
        placements,
        [
            Placement {
                ids: vec![0, 0],
                warp: Some(0)
            },
            Placement {
                ids: vec![0, 0],
                warp: Some(1)
            }
        ]
    );
    let spaces: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.space.as_deref(), l.init))
        .collect();
    assert_eq!(spaces, [("x", Some("shared"), 0), ("y", Some("global"), 0)]);
    let t1 = &p.threads[1].instrs;
    assert_eq!(
        t1[0].kind,
        InstrKind::Local {
            dst: "r0".into(),
            op: BinOp::Add,
            a: Operand::Const(1),
            b: Operand::Const(0)
        }
    );
    // T1's r1 holds y, its r3 holds x.
    assert_eq!(
        t1[1].kind,
        InstrKind::Store {
            addr: Addr::Fixed(1),
            value: reg("r0")
        }
    );
    assert_eq!(
        t1[2].kind,
        InstrKind::Load {
            dst: "r2".into(),
            addr: Addr::Fixed(0)
        }
    );
    assert_eq!(tags(&t1[2]), "WEAK,CG,GEN");
    assert_eq!(t1[2].pos, Pos { line: 16, col: 21 });
    let a = p.assertion.expect("an assertion");
    assert_eq!(a.quantifier, Quantifier::Exists);
    assert_eq!(
        a.cond,
        Cond::And(
            Box::new(Cond::Cmp(
                CmpOp::Eq,
                Term::Reg(0, "r2".into()),
                Term::Const(0)
            )),
            Box::new(Cond::Cmp(
                CmpOp::Eq,
                Term::Reg(1, "r2".into()),
                Term::Const(0)
            ))
        )
    );
}

#[test]
fn tags_of_memory_instructions() {
    for (cell, want) in [
        ("ld.s32 r0,[r1]", "WEAK,GEN"),
        ("ld.weak.global.u32 r0,[r1]", "WEAK,GEN"),
        ("ld.ca.s32 r0,[r1]", "WEAK,CA,GEN"),
        ("ld.cg.s32 r0,[x]", "WEAK,CG,GEN"),
        ("ld.cs.s32 r0,[r1]", "WEAK,CS,GEN"),
        ("ld.lu.s32 r0,[r1]", "WEAK,LU,GEN"),
        ("ld.cv.s32 r0,[r1]", "WEAK,CV,GEN"),
        ("st.wb.s32 [r1],1", "WEAK,WB,GEN"),
        ("st.wt.s32 [r1],1", "WEAK,WT,GEN"),
        ("st.cs.s32 [r1],1", "WEAK,CS,GEN"),
        ("ld.volatile.u32 r0,[r1]", "RLX,SYS,VOLATILE,GEN"),
        ("st.volatile.global.s32 [r1],r0", "RLX,SYS,VOLATILE,GEN"),
        ("ld.relaxed.gpu.s32 r0,[r1]", "RLX,GPU,GEN"),
        ("ld.acquire.cta.s32 r0,[r1]", "ACQ,CTA,GEN"),
        ("st.release.sys.s32 [r1],1", "REL,SYS,GEN"),
        ("atom.cas.b32 r0,[r1],0,1", "GPU,GEN r:RLX w:RLX"),
        ("atom.acq_rel.sys.add.u32 r0,[r1],1", "SYS,GEN r:ACQ w:REL"),
        ("atom.acquire.gpu.exch.b32 r0,[r1],1", "GPU,GEN r:ACQ w:RLX"),
        ("red.release.gpu.add.u32 [r1],1", "GPU,GEN r:RLX w:REL"),
        ("membar.cta", "F,SC,ACQ_REL,ACQ,REL,CTA,GEN"),
        ("membar.gl", "F,SC,ACQ_REL,ACQ,REL,GPU,GEN"),
        ("membar.sys", "F,SC,ACQ_REL,ACQ,REL,SYS,GEN"),
        ("fence.acq_rel.gpu", "F,ACQ_REL,ACQ,REL,GPU,GEN"),
        ("bar.sync 0", "B,CBAR,CTA,GEN"),
    ] {
        assert_eq!(tags(&one(cell)), want, "{cell}");
    }
}

#[test]
fn atomic_forms() {
    assert_eq!(
        one("atom.cas.b32 r0,[r1],0,1").kind,
        InstrKind::Rmw {
            dst: Some("r0".into()),
            addr: Addr::Fixed(0),
            op: RmwOp::Cas {
                expected: Operand::Const(0)
            },
            operand: Operand::Const(1)
        }
    );
    assert_eq!(
        one("red.global.or.b32 [x],r2").kind,
        InstrKind::Rmw {
            dst: None,
            addr: Addr::Fixed(0),
            op: RmwOp::Or,
            operand: reg("r2")
        }
    );
}

#[test]
fn address_dependency_becomes_an_indexed_access() {
    let p = ok(&two(
        " ld.cg.s32 r0,[r1]        | ;\n and.b32 r8,r0,0xffff0000 | ;\n cvt.u64.u32 r9,r8        | ;\n \
         add.s64 r9,r1,r9         | ;\n ld.cg.s32 r2,[r9]        | ;\n",
        "",
    ));
    let t = &p.threads[0].instrs;
    assert_eq!(
        t[1].kind,
        InstrKind::Local {
            dst: "r8".into(),
            op: BinOp::And,
            a: reg("r0"),
            b: Operand::Const(0xffff_0000)
        }
    );
    assert_eq!(
        t[3].kind,
        InstrKind::Local {
            dst: "r9".into(),
            op: BinOp::Add,
            a: reg("r1"),
            b: reg("r9")
        }
    );
    let InstrKind::Load { addr, .. } = &t[4].kind else {
        panic!("{:?}", t[4].kind)
    };
    let Addr::Indexed(ix) = addr else {
        panic!("{addr:?}")
    };
    assert_eq!(ix.index, reg("r9"));
    assert_eq!(ix.cells, [0]);
    assert_eq!(ix.array, "x");
    // Offset 0 in bounds, anything else undefined.
    assert_eq!(addr.resolve(0), Some(0));
    assert_eq!(addr.resolve(4), None);
}

#[test]
fn addresses_through_mov_sub_and_constant_offsets() {
    // `mov r, y` points at y; adding 0 keeps the offset known.
    let t = t0("mov.b64 r5,y");
    assert_eq!(
        t[0].kind,
        InstrKind::Local {
            dst: "r5".into(),
            op: BinOp::Add,
            a: Operand::Const(0),
            b: Operand::Const(0)
        }
    );
    let p = ok(&two(
        " mov.b64 r5,y | ;\n add.s64 r6,r5,0 | ;\n st.s32 [r6],1 | ;\n sub.s64 r7,r5,r0 | ;\n \
         ld.s32 r2,[r7] | ;\n mov.b64 r1,r7 | ;\n ld.s32 r3,[r1] | ;\n",
        "",
    ));
    let t = &p.threads[0].instrs;
    assert_eq!(t[2].kind.addr(), Some(&Addr::Fixed(1)));
    assert!(matches!(t[4].kind.addr(), Some(Addr::Indexed(ix)) if ix.cells == [1]));
    assert!(matches!(t[6].kind.addr(), Some(Addr::Indexed(ix)) if ix.index == reg("r1")));
}

#[test]
fn predication_branches_around_the_instruction() {
    let t = t0("@r2 membar.gl");
    assert_eq!(
        t[0].kind,
        InstrKind::Branch {
            op: CmpOp::Eq,
            a: reg("r2"),
            b: Operand::Const(0),
            target: "%skip0".into()
        }
    );
    assert_eq!(t[1].kind, InstrKind::Fence);
    assert_eq!(t[2].kind, InstrKind::Label("%skip0".into()));
    assert_eq!(t[0].pos, Pos { line: 7, col: 2 });
    assert_eq!(t[1].pos, Pos { line: 7, col: 6 });
    let t = t0("@!p0 st.cg.s32 [r1],1");
    assert!(matches!(
        &t[0].kind,
        InstrKind::Branch { op: CmpOp::Ne, a, .. } if *a == reg("p0")
    ));
    // Two predicated cells get two labels.
    let p = ok(&two(
        " @p1 ld.s32 r0,[r1] | ;\n @p1 ld.s32 r2,[r1] | ;\n",
        "",
    ));
    let labels: Vec<_> = p.threads[0]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Label(l) => Some(l.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(labels, ["%skip0", "%skip1"]);
}

#[test]
fn labels_and_branches() {
    let p = ok(&two(
        " L0: ld.cg.s32 r0,[r1] | ;\n setp.eq.s32 p0,r0,0 | ;\n @p0 bra L0 | ;\n @!p0 bra.uni L1 | ;\n \
         bra L1 | ;\n L1: | ;\n",
        "",
    ));
    let t = &p.threads[0].instrs;
    assert_eq!(t[0].kind, InstrKind::Label("L0".into()));
    assert!(
        matches!(&t[3].kind, InstrKind::Branch { op: CmpOp::Ne, target, .. } if target == "L0")
    );
    assert!(
        matches!(&t[4].kind, InstrKind::Branch { op: CmpOp::Eq, target, .. } if target == "L1")
    );
    assert_eq!(t[5].kind, InstrKind::Goto("L1".into()));
    assert_eq!(t[6].kind, InstrKind::Label("L1".into()));
}

#[test]
fn arithmetic_and_comparisons() {
    let local = |cell: &str| match one(cell).kind {
        InstrKind::Local { op, a, b, .. } => (op, a, b),
        k => panic!("{cell}: {k:?}"),
    };
    let c = Operand::Const;
    assert_eq!(local("setp.lt.u32 p0,r0,1"), (BinOp::Ult, reg("r0"), c(1)));
    assert_eq!(local("setp.lt.s32 p0,r0,1"), (BinOp::Lt, reg("r0"), c(1)));
    assert_eq!(local("setp.hs.b32 p0,r0,1"), (BinOp::Uge, reg("r0"), c(1)));
    assert_eq!(local("setp.ne.u32 p0,r0,0"), (BinOp::Ne, reg("r0"), c(0)));
    assert_eq!(local("shr.u32 r0,r0,16"), (BinOp::Lshr, reg("r0"), c(16)));
    assert_eq!(local("shr.s32 r0,r0,16"), (BinOp::Shr, reg("r0"), c(16)));
    assert_eq!(local("mul.lo.s32 r0,r0,3"), (BinOp::Mul, reg("r0"), c(3)));
    assert_eq!(local("div.u32 r0,r0,3"), (BinOp::Udiv, reg("r0"), c(3)));
    assert_eq!(local("rem.s64 r0,r0,3"), (BinOp::Rem, reg("r0"), c(3)));
    assert_eq!(
        local("xor.b32 r0,r0,-0x10"),
        (BinOp::Xor, reg("r0"), c(-16))
    );
    assert_eq!(local("not.pred p1,p0"), (BinOp::Xor, reg("p0"), c(1)));
    assert_eq!(local("not.b32 r1,r0"), (BinOp::Xor, reg("r0"), c(-1)));
    assert_eq!(local("neg.s32 r1,r0"), (BinOp::Sub, c(0), reg("r0")));
    assert_eq!(local("cvt.u64.u32 r1,r0"), (BinOp::Add, reg("r0"), c(0)));
}

#[test]
fn initial_values() {
    let p = ok(
        "GPU_PTX t\n\"a comment\"\n{\ny=1;\n0: .reg .s32 r2 = 5;\n0: .reg .u32 r3, r4 = -2;\n\
         1:r3=7;\nT1:r4=x;\n}\n T0 | T1 ;\n ld.s32 r0,[y] | ld.s32 r0,[r4] ;\nScopeTree\n\
         (device (cta T0 T1))\nexists (T1:r0=1 & y=1)\n",
    );
    let l: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(l, [("y", 1), ("x", 0)]);
    assert_eq!(
        p.threads[0].init_regs,
        [("r2".to_string(), 5), ("r4".to_string(), -2)]
    );
    assert_eq!(p.threads[1].init_regs, [("r3".to_string(), 7)]);
    assert_eq!(p.threads[1].instrs[0].kind.addr(), Some(&Addr::Fixed(1)));
    // No memory map: every location is global.
    assert!(p
        .locations
        .iter()
        .all(|l| l.space.as_deref() == Some("global")));
    assert!(matches!(p.assertion.unwrap().cond, Cond::And(..)));
}

#[test]
fn scope_trees() {
    let placements = |tree: &str, n: usize| -> Vec<(Vec<i64>, Option<i64>)> {
        let header: Vec<String> = (0..n).map(|t| format!("T{t}")).collect();
        let cells = vec![""; n].join("|");
        let src = format!(
            "GPU_PTX t\n{{ }}\n {} ;\n {cells} ;\nScopeTree\n{tree}\nexists (x=0)\n",
            header.join(" | ")
        );
        let src = src.replace("exists (x=0)", "x: global\nexists (x=0)");
        ok(&src)
            .threads
            .iter()
            .map(|t| (t.placement.ids.clone(), t.placement.warp))
            .collect()
    };
    assert_eq!(
        placements("(device (cta (warp T0) (warp T1)) (cta (warp T2)))", 3),
        [
            (vec![0, 0], Some(0)),
            (vec![0, 0], Some(1)),
            (vec![1, 0], Some(0))
        ]
    );
    // Missing levels: a warp each under a cta, a cta each under device.
    assert_eq!(
        placements("(device (cta T0 T1) T2)", 3),
        [
            (vec![0, 0], Some(0)),
            (vec![0, 0], Some(1)),
            (vec![1, 0], Some(0))
        ]
    );
    // Two threads of one warp; herd's spellings and names.
    assert_eq!(
        placements("(grid (block (warp P0 P1)))", 2),
        [(vec![0, 0], Some(0)), (vec![0, 0], Some(0))]
    );
    assert_eq!(
        placements("(device(kernel(cta(warp T1)) (cta (warp T0))))", 2),
        [(vec![1, 0], Some(0)), (vec![0, 0], Some(0))]
    );
}

#[test]
fn conditions_in_herd_style() {
    let p = ok(&two(
        " ld.s32 r0,[r1] | ld.s32 r0,[r1] ;\n",
        "x: global, y: global\n~exists (T0:r0=1 & 1:r0=1 \\/ ~(x=1))\nlocations [P1:r0; y]\n",
    ));
    let a = p.assertion.unwrap();
    assert_eq!(a.quantifier, Quantifier::NotExists);
    assert!(matches!(a.cond, Cond::Or(..)));
    assert_eq!(p.observed, [Term::Reg(1, "r0".into()), Term::Loc(1)]);
    let p = ok(&two(" ld.s32 r0,[r1] | ;\n", "forall (0:r0=0)\n"));
    assert_eq!(p.assertion.unwrap().quantifier, Quantifier::Forall);
}

#[test]
fn joins_of_address_facts() {
    // A predicated offset keeps the base: an indexed access.
    let p = ok(&two(" @p0 add.s64 r1,r1,r0 | ;\n ld.s32 r2,[r1] | ;\n", ""));
    assert!(matches!(
        p.threads[0].instrs[3].kind.addr(),
        Some(Addr::Indexed(ix)) if ix.cells == [0]
    ));
    // A predicated change of base: refused where it is used.
    err_at(
        &two(" @p0 mov.b64 r1,y | ;\n ld.s32 r2,[r1] | ;\n", ""),
        ErrorKind::Unsupported,
        8,
        12,
        "different locations",
    );
    // A loop must not change what a register points at.
    err_at(
        &two(
            " L: ld.s32 r2,[r1] | ;\n mov.b64 r1,y | ;\n bra L | ;\n",
            "",
        ),
        ErrorKind::Unsupported,
        9,
        2,
        "loop",
    );
}

/// Every malformed input gets a positioned error of the right kind.
#[test]
fn error_positions() {
    use ErrorKind::{Semantic, Syntax, Unsupported};
    let tree = "(device (cta (warp T0) (warp T1)))";
    let row = |cell: &str| two(&format!(" {cell} | ;\n"), "");
    for (src, kind, line, col, needle) in [
        (row("ld.cg.s32 r0,[r2]"), Semantic, 7, 15, "does not hold an address"),
        (row("ld.ca.relaxed.gpu.s32 r0,[r1]"), Syntax, 7, 4, "only to weak"),
        (row("st.ca.s32 [r1],1"), Syntax, 7, 4, "load cache operator"),
        (row("ld.relaxed.s32 r0,[r1]"), Syntax, 7, 2, "needs a scope"),
        (row("ld.cg.gpu.s32 r0,[r1]"), Syntax, 7, 7, "take no scope"),
        (row("ld.volatile.sys.s32 r0,[r1]"), Syntax, 7, 13, "take no scope"),
        (row("st.acquire.gpu.s32 [r1],1"), Syntax, 7, 4, "not a memory order"),
        (row("ld.s16 r0,[r1]"), Unsupported, 7, 4, "`.s16`"),
        (row("ld.local.s32 r0,[r1]"), Unsupported, 7, 4, "`.local`"),
        (row("ld.cg.cg.s32 r0,[r1]"), Syntax, 7, 7, "more than one cache"),
        (row("foo.bar r1"), Unsupported, 7, 2, "`foo.bar`"),
        (row("atom.inc.u32 r0,[r1],5"), Unsupported, 7, 6, "`.inc`"),
        (row("atom.u32 r0,[r1],5"), Syntax, 7, 2, "needs an operation"),
        (row("red.cas.b32 [r1],0"), Syntax, 7, 5, "cannot perform"),
        (row("atom.cas.b32 r0,[r1],0"), Syntax, 7, 2, "takes 4 operands"),
        (row("ld.s32 r0,x"), Syntax, 7, 12, "expected an address"),
        (row("ld.s32 1,[r1]"), Syntax, 7, 9, "expected a register"),
        (row("ld.s32 r0,[r1+4]"), Unsupported, 7, 12, "address offsets"),
        (row("ld.s32 r0,[r1"), Syntax, 7, 12, "missing `]`"),
        (row("ld.s32 r0,,[r1]"), Syntax, 7, 12, "missing operand"),
        (row("ld.s32 r0,[r1],"), Syntax, 7, 17, "missing operand"),
        (row("ld.s32 r0,0x"), Syntax, 7, 12, "invalid operand"),
        (row("mov.s32 r0,0x1ffffffffffffffff"), Syntax, 7, 13, "out of range"),
        (row("ld..s32 r0,[r1]"), Syntax, 7, 4, "malformed mnemonic"),
        (row("ld.s32$ r0,[r1]"), Syntax, 7, 8, "unexpected character `$`"),
        (row("add.s64 r2,r1,r1"), Unsupported, 7, 13, "as a value"),
        (row("and.b64 r2,r1,7"), Unsupported, 7, 13, "as a value"),
        (row("st.s32 [r1],r1"), Unsupported, 7, 14, "as a value"),
        (row("setp.eq.s32 p0,r1,0"), Unsupported, 7, 17, "as a value"),
        (row("setp.xx.s32 p0,r0,0"), Unsupported, 7, 6, "`.xx`"),
        (row("mul.wide.s32 r0,r0,2"), Unsupported, 7, 5, "`.wide`"),
        (row("cvt.rn.f32.s32 r0,r0"), Unsupported, 7, 5, "`.rn`"),
        (row("@r1 ld.s32 r0,[x]"), Unsupported, 7, 2, "not a predicate"),
        (row("@ ld.s32 r0,[x]"), Syntax, 7, 4, "predicate register"),
        (row("@p0"), Syntax, 7, 5, "an instruction after"),
        (row("bra 5"), Syntax, 7, 6, "expected a label"),
        (row("bra.far L"), Unsupported, 7, 5, "`.far`"),
        (row("bra L9"), Semantic, 7, 6, "unknown label `L9` in thread T0"),
        (row("membar.cluster"), Unsupported, 7, 8, "`.cluster`"),
        (row("membar.gl r0"), Syntax, 7, 2, "takes no operand"),
        (row("membar.gl [r1]"), Syntax, 7, 12, "address operand"),
        // Initial block.
        (
            "GPU_PTX t\n{\n0: .reg .s32 r1 = x;\n}\n T0 ;\n ld.s32 r0,[r1] ;\nScopeTree (device T0)\n"
                .into(),
            Semantic,
            3,
            9,
            "64-bit type",
        ),
        (
            "GPU_PTX t\n{\n5: .reg .b64 r1 = x;\n}\n T0 | T1 ;\n".into(),
            Semantic,
            3,
            1,
            "thread `5` does not exist",
        ),
        (
            "GPU_PTX t\n{\n0: .reg .f32 r1;\n}\n T0 ;\n".into(),
            Unsupported,
            3,
            9,
            "`.f32`",
        ),
        (
            "GPU_PTX t\n{\n0: .reg .s32 r1;\n0: .reg .s32 r1;\n}\n T0 ;\n".into(),
            Semantic,
            4,
            14,
            "declared twice",
        ),
        (
            "GPU_PTX t\n{\n0:r1=1;\n0: .reg .s32 r1 = 2;\n}\n T0 ;\n".into(),
            Semantic,
            4,
            14,
            "initialised twice",
        ),
        (
            "GPU_PTX t\n{\n0: reg .s32 r1;\n}\n T0 ;\n".into(),
            Syntax,
            3,
            4,
            "register name",
        ),
        (
            "GPU_PTX t\n{\n0: .s32 r1;\n}\n T0 ;\n".into(),
            Syntax,
            3,
            5,
            "expected `reg`",
        ),
        (
            "GPU_PTX t\n{\nx: .reg .s32 r1;\n}\n T0 ;\n".into(),
            Syntax,
            3,
            1,
            "expected a thread",
        ),
        (
            "GPU_PTX t\n{\nr1=1;\n}\n T0 ;\n".into(),
            Semantic,
            3,
            1,
            "register name",
        ),
        (
            "GPU_PTX t\n{\nx=1; x=2;\n}\n T0 ;\n".into(),
            Semantic,
            3,
            6,
            "declared twice",
        ),
        (
            "GPU_PTX t\n{\n0: .reg .s32 r1 = r2;\n}\n T0 ;\n".into(),
            Syntax,
            3,
            19,
            "found register",
        ),
        // Header row and rows.
        (
            "GPU_PTX t\n{ }\n T0 | T2 ;\n".into(),
            Semantic,
            3,
            7,
            "expected thread `T1`",
        ),
        (
            "GPU_PTX t\n{ }\n T0 | T1\n".into(),
            Syntax,
            3,
            9,
            "missing `;`",
        ),
        (
            "GPU_PTX t\n{ }\n T0 ;\n ld.s32 r0,[x] | ld.s32 r0,[x] ;\n".into(),
            Syntax,
            4,
            18,
            "more columns",
        ),
        (
            "GPU_PTX t\n{ }\n T0 ;\n ld.s32 r0,[x]\nScopeTree (device T0)\n".into(),
            Syntax,
            4,
            15,
            "missing `;`",
        ),
        (
            "GPU_PTX t\n{ }\n T0 ;\n ld.s32 r0,[x] ;\nexists (0:r0=0)\n".into(),
            Syntax,
            5,
            1,
            "expected `ScopeTree`",
        ),
        // Scope trees.
        (
            two("", "").replace(tree, "(device (cta (warp T0) (warp T0)))"),
            Semantic,
            8,
            30,
            "appears twice",
        ),
        (
            two("", "").replace(tree, "(device (cta (warp T0)))"),
            Semantic,
            7,
            1,
            "`T1` is not in the scope tree",
        ),
        (
            two("", "").replace(tree, "(device (warp (cta T0 T1)))"),
            Syntax,
            8,
            16,
            "cannot be inside",
        ),
        (
            two("", "").replace(tree, "(device (sm T0 T1))"),
            Syntax,
            8,
            10,
            "unknown scope level `sm`",
        ),
        (
            two("", "").replace(tree, "(device (cta T0 T7))"),
            Semantic,
            8,
            17,
            "`T7` does not exist",
        ),
        (
            two("", "").replace(tree, "(device (cta T0 x))"),
            Syntax,
            8,
            17,
            "expected a thread",
        ),
        (
            two("", "").replace(tree, "(device (cta T0 T1)"),
            Syntax,
            8,
            1,
            "unclosed",
        ),
        (
            two("", "").replace(tree, "device"),
            Syntax,
            8,
            1,
            "expected a scope tree",
        ),
        (
            two("", "").replace(tree, "(device (kernel (cta T0)) (kernel (cta T1)))"),
            Unsupported,
            8,
            28,
            "more than one kernel",
        ),
        (
            two("", "").replace(tree, "(device (cta T0)) (device (cta T1))"),
            Unsupported,
            8,
            19,
            "more than one device",
        ),
        // Memory maps.
        (
            two(" ld.s32 r0,[r1] | ;\n", "x: local\n"),
            Unsupported,
            10,
            4,
            "region `local`",
        ),
        (
            two(" ld.s32 r0,[r1] | ;\n", "x: global, x: shared\n"),
            Semantic,
            10,
            12,
            "mapped twice",
        ),
        (
            two(" ld.s32 r0,[r1] | ;\n", "z: global\n"),
            Semantic,
            7,
            2,
            "`x` is not in the memory map",
        ),
        (
            two(" ld.shared.s32 r0,[r1] | ;\n", "x: global y: global\n"),
            Semantic,
            7,
            2,
            "`.shared` access to `x`",
        ),
        (
            two(" ld.s32 r0,[r1] | ;\n", "x: shared, y: global\n")
                .replace(tree, "(device (cta T0) (cta T1))")
                .replace(" ld.s32 r0,[r1] | ;", " ld.s32 r0,[r1] | ld.s32 r0,[x] ;"),
            Semantic,
            7,
            19,
            "shared location `x`",
        ),
        // Conditions.
        (
            two(" ld.s32 r0,[r1] | ;\n", "exists (T5:r0=1)\n"),
            Semantic,
            10,
            9,
            "`T5` does not exist",
        ),
        (
            two(" ld.s32 r0,[r1] | ;\n", "exists (0:r0=1 && 1:r0=1)\n"),
            Syntax,
            10,
            17,
            "expected a condition, found `&`",
        ),
    ] {
        err_at(&src, kind, line, col, needle);
    }
}

/// Damaged versions of the thesis figure never panic, and every error
/// has a position.
#[test]
fn truncations_and_edits_never_panic() {
    let text = FIG_3_2;
    for cut in 0..=text.len() {
        if !text.is_char_boundary(cut) {
            continue;
        }
        if let Err(e) = parse(&text[..cut], Path::new("t.litmus")) {
            assert!(e.pos.is_some(), "cut {cut}: {e}");
        }
    }
    for (i, _) in text.char_indices() {
        for b in [
            "(", ")", "[", "]", "@", "!", ".", ",", ";", "|", ":", "=", "x", "0x", "-",
        ] {
            let damaged = format!("{}{b}{}", &text[..i], &text[i..]);
            if let Err(e) = parse(&damaged, Path::new("t.litmus")) {
                assert!(e.pos.is_some(), "insert {b:?} at {i}: {e}");
            }
        }
    }
}

/// herd7 users' layout: `0:.reg` without a space, `P` thread names,
/// lowercase `scopeTree`, a `kernel` level, empty rows, and a mapped
/// location no instruction uses (it still exists, for the condition).
#[test]
fn herd_layout() {
    let p = ok(
        "GPU_PTX t\n{\n0:.reg .b64 r1 = x;\n1:.reg .s32 r2;\n}\n P0 | P1 ;\n    |    ;\n \
         ld.cg.s32 r0,[r1] | mov.s32 r2,3 ;\n    |    ;\nscopeTree\n\
         (device(kernel(cta(warp P0)) (cta (warp P1))))\nx: global, z:global\n\
         exists (0:r0=0 /\\ z=0)\n",
    );
    let names: Vec<_> = p.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["P0", "P1"]);
    assert_eq!(p.threads[1].placement.ids, [1, 0]);
    let locs: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.space.as_deref()))
        .collect();
    assert_eq!(locs, [("x", Some("global")), ("z", Some("global"))]);
}
