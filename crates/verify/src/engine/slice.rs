//! Values a race check does not need.
//!
//! Whether two accesses race depends on which events exist (control flow,
//! addresses, barrier ids and quorums, whether a compare-and-swap writes),
//! on the relations between them, and on nothing else a value decides: a
//! `.cat` model reads no values, and a read may read from any write of
//! the value it guessed. A value that flows only into data (stored values,
//! other such values) is therefore free to be anything. Kernels compute a
//! lot of such data — the bit-level encoding of one 64-bit multiplication
//! is thousands of gates — so [`for_races`] replaces the expensive
//! operations (multiplication, division by a non-zero constant, shifts by
//! a register, sums of two registers) whose results decide nothing by an
//! `xor` of the same
//! operands: cheap, and with the same data dependencies (`data`, `addr`,
//! `ctrl` are taken from the operands), which out-of-thin-air axioms read.
//!
//! "Decide" is computed as a least fixpoint over registers (per thread)
//! and locations: the operands of branches, run-time address indices,
//! barrier ids and quorums, compare-and-swap expectations, the filter's
//! and the condition's terms decide; a register whose value flows into a
//! deciding register decides; a load into a deciding register makes its
//! locations decide; every value stored (or combined by an RMW) into a
//! deciding location decides.

use crate::ir::{BinOp, InstrKind, Operand, Program, Term};
use std::collections::HashSet;

/// `p` with the operations whose results decide nothing made cheap, and
/// how many were replaced.
pub fn for_races(p: &Program) -> (Program, usize) {
    let (regs, _) = deciding(p);
    let mut out = p.clone();
    let mut replaced = 0;
    for (t, th) in out.threads.iter_mut().enumerate() {
        for ins in &mut th.instrs {
            let InstrKind::Local { dst, op, a, b } = &mut ins.kind else {
                continue;
            };
            if regs[t].contains(dst.as_str()) || !expensive(*op, a, b) {
                continue;
            }
            *op = BinOp::Xor;
            replaced += 1;
        }
    }
    (out, replaced)
}

/// Operations whose bit-level encoding is large, and which never make an
/// execution impossible (division by a register may divide by zero).
fn expensive(op: BinOp, a: &Operand, b: &Operand) -> bool {
    match op {
        BinOp::Mul => true,
        // An adder of two unknown values (one with a constant folds much).
        BinOp::Add | BinOp::Sub => matches!((a, b), (Operand::Reg(_), Operand::Reg(_))),
        BinOp::Div | BinOp::Rem | BinOp::Udiv | BinOp::Urem => {
            matches!(b, Operand::Const(c) if *c != 0)
        }
        BinOp::Shl | BinOp::Shr | BinOp::Lshr => matches!(b, Operand::Reg(_)),
        _ => false,
    }
}

fn reg(o: &Operand) -> Option<&str> {
    match o {
        Operand::Reg(r) => Some(r),
        Operand::Const(_) => None,
    }
}

/// The deciding registers of each thread and the deciding (physical)
/// locations.
fn deciding<'p>(p: &'p Program) -> (Vec<HashSet<&'p str>>, HashSet<usize>) {
    let n = p.threads.len();
    let mut regs: Vec<HashSet<&str>> = vec![HashSet::new(); n];
    let mut locs: HashSet<usize> = HashSet::new();
    let phys = |l: usize| p.locations[l].phys;
    // Seeds.
    for (t, th) in p.threads.iter().enumerate() {
        for ins in &th.instrs {
            let set = &mut regs[t];
            let mut seed = |o: &'p Operand| {
                if let Some(r) = reg(o) {
                    set.insert(r);
                }
            };
            // Run-time addresses: an index, a region's offset and bounds.
            if let Some(a) = ins.kind.addr() {
                if let Some(ix) = a.index() {
                    seed(ix);
                }
                for ix in a.bound_indices() {
                    seed(ix);
                }
            }
            match &ins.kind {
                InstrKind::Branch { a, b, .. } => {
                    seed(a);
                    seed(b);
                }
                InstrKind::Barrier { id, count, .. } => {
                    seed(id);
                    if let Some(c) = count {
                        seed(c);
                    }
                }
                InstrKind::Rmw {
                    op: crate::ir::RmwOp::Cas { expected },
                    ..
                } => seed(expected),
                _ => {}
            }
        }
    }
    let mut terms: Vec<&Term> = p.observed.iter().collect();
    let cond_terms: Vec<Term> = p
        .filter
        .iter()
        .chain(p.assertion.as_ref().map(|a| &a.cond))
        .flat_map(|c| c.terms())
        .collect();
    terms.extend(&cond_terms);
    for term in terms {
        match term {
            Term::Reg(thread, r) => {
                // A condition's register names the thread's own register.
                if let Some(th) = p.threads.get(*thread) {
                    if let Some(name) = th.instrs.iter().find_map(|i| defines(i, r)) {
                        regs[*thread].insert(name);
                    }
                }
            }
            Term::Loc(l) => {
                if let Some(loc) = p.locations.get(*l) {
                    locs.insert(loc.phys);
                }
            }
            Term::Const(_) => {}
        }
    }
    // Propagate to a fixpoint (every step only adds).
    loop {
        let mut changed = false;
        for (t, th) in p.threads.iter().enumerate() {
            for ins in &th.instrs {
                match &ins.kind {
                    InstrKind::Local { dst, a, b, .. } if regs[t].contains(dst.as_str()) => {
                        for o in [a, b] {
                            if let Some(r) = reg(o) {
                                changed |= regs[t].insert(r);
                            }
                        }
                    }
                    InstrKind::Load { dst, addr } if regs[t].contains(dst.as_str()) => {
                        for &l in addr.cells() {
                            changed |= locs.insert(phys(l));
                        }
                    }
                    InstrKind::Rmw {
                        dst, addr, operand, ..
                    } => {
                        if dst.as_deref().is_some_and(|d| regs[t].contains(d)) {
                            for &l in addr.cells() {
                                changed |= locs.insert(phys(l));
                            }
                        }
                        if addr.cells().iter().any(|&l| locs.contains(&phys(l))) {
                            if let Some(r) = reg(operand) {
                                changed |= regs[t].insert(r);
                            }
                        }
                    }
                    InstrKind::Store { addr, value }
                        if addr.cells().iter().any(|&l| locs.contains(&phys(l))) =>
                    {
                        if let Some(r) = reg(value) {
                            changed |= regs[t].insert(r);
                        }
                    }
                    _ => {}
                }
            }
        }
        if !changed {
            return (regs, locs);
        }
    }
}

/// The register `r` as an instruction of the thread names it (so that
/// the sets borrow from the program).
fn defines<'p>(i: &'p crate::ir::Instr, r: &str) -> Option<&'p str> {
    let d = match &i.kind {
        InstrKind::Local { dst, .. }
        | InstrKind::Load { dst, .. }
        | InstrKind::Havoc { dst, .. }
        | InstrKind::Input { dst, .. } => Some(dst.as_str()),
        InstrKind::Rmw { dst, .. } => dst.as_deref(),
        _ => None,
    };
    d.filter(|d| *d == r)
}
