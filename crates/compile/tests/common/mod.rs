//! C programs built by hand, tagged as the C front-end tags them
//! (docs/EVENTS.md, "Tags from the C litmus front-end").
#![allow(dead_code)]

use gpumc_core::ir::{
    Addr, Arch, Assertion, CmpOp, Cond, HalfTags, Instr, InstrKind, Location, Operand, Placement,
    Pos, Program, Quantifier, RmwOp, Term, Thread,
};

/// The architecture of the hand-built source programs.
pub const SRC: Arch = Arch::C;

fn tags(order: &str, scope: Option<&str>) -> Vec<String> {
    let mut v = vec![order.to_string()];
    if let Some(s) = scope {
        v.push(s.to_string());
    }
    v
}

fn at(line: u32) -> Pos {
    Pos { line, col: 3 }
}

pub fn ld(line: u32, dst: &str, loc: usize, order: &str, scope: Option<&str>) -> Instr {
    Instr::new(
        InstrKind::Load {
            dst: dst.into(),
            addr: Addr::Fixed(loc),
        },
        tags(order, scope),
        at(line),
        format!("{dst} = load_{order}(#{loc})"),
    )
}

pub fn st(line: u32, loc: usize, v: i64, order: &str, scope: Option<&str>) -> Instr {
    Instr::new(
        InstrKind::Store {
            addr: Addr::Fixed(loc),
            value: Operand::Const(v),
        },
        tags(order, scope),
        at(line),
        format!("store_{order}(#{loc}, {v})"),
    )
}

/// An RMW with its order split over its halves as the C front-end does.
pub fn rmw(
    line: u32,
    dst: Option<&str>,
    loc: usize,
    op: RmwOp,
    v: i64,
    order: &str,
    scope: &str,
) -> Instr {
    let (r, w) = match order {
        "SC" => ("SC", "SC"),
        "ACQ_REL" => ("ACQ", "REL"),
        "ACQ" => ("ACQ", "RLX"),
        "REL" => ("RLX", "REL"),
        _ => ("RLX", "RLX"),
    };
    let mut i = Instr::new(
        InstrKind::Rmw {
            dst: dst.map(str::to_string),
            addr: Addr::Fixed(loc),
            op,
            operand: Operand::Const(v),
        },
        vec![scope.to_string()],
        at(line),
        format!("rmw_{order}(#{loc}, {v})"),
    );
    i.halves = HalfTags {
        read: vec![r.into()],
        write: vec![w.into()],
    };
    i
}

pub fn fence(line: u32, order: &str, scope: &str) -> Instr {
    Instr::new(
        InstrKind::Fence,
        vec!["F".into(), order.into(), scope.into()],
        at(line),
        format!("fence_{order}_{scope}"),
    )
}

pub fn loc(name: &str, k: usize) -> Location {
    Location {
        name: name.into(),
        phys: k,
        virt: k,
        init: 0,
        init_arbitrary: None,
        space: None,
    }
}

pub fn reg_eq(t: usize, r: &str, v: i64) -> Cond {
    Cond::Cmp(CmpOp::Eq, Term::Reg(t, r.into()), Term::Const(v))
}

pub fn and(a: Cond, b: Cond) -> Cond {
    Cond::And(Box::new(a), Box::new(b))
}

/// A C program: threads with `(cta, gpu)` placements.
pub fn program(
    name: &str,
    locs: &[&str],
    threads: Vec<((i64, i64), Vec<Instr>)>,
    exists: Option<Cond>,
) -> Program {
    Program {
        kernel: false,
        name: name.into(),
        arch: SRC,
        threads: threads
            .into_iter()
            .enumerate()
            .map(|(t, ((cta, gpu), instrs))| Thread {
                name: format!("P{t}"),
                placement: Placement {
                    ids: vec![cta, gpu],
                    warp: None,
                },
                instrs,
                init_regs: Vec::new(),
            })
            .collect(),
        locations: locs.iter().enumerate().map(|(k, n)| loc(n, k)).collect(),
        ssw: Vec::new(),
        filter: None,
        assertion: exists.map(|cond| Assertion {
            quantifier: Quantifier::Exists,
            cond,
        }),
        observed: Vec::new(),
        inputs: Vec::new(),
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: Vec::new(),
        default_model: None,
    }
}

/// Message passing: a plain payload, a flag written with `rel` and read
/// with `acq` at `scope`, threads in different CTAs.
pub fn mp(rel: &str, acq: &str, scope: &str) -> Program {
    program(
        "MP",
        &["x", "y"],
        vec![
            (
                (0, 0),
                vec![st(1, 0, 1, "NA", None), st(2, 1, 1, rel, Some(scope))],
            ),
            (
                (1, 0),
                vec![ld(1, "r0", 1, acq, Some(scope)), ld(2, "r1", 0, "NA", None)],
            ),
        ],
        Some(and(reg_eq(1, "r0", 1), reg_eq(1, "r1", 0))),
    )
}
