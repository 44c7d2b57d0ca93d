//! Free values in the explicit engine: finite sets of representatives
//! that change no verdict.
//!
//! The explicit engine enumerates values, so an arbitrary value (a free
//! program input, or an undefined value: `Havoc`) needs a finite set of
//! values that together behave like all of them:
//!
//! * a type with at most [`SMALL_TYPE`] values (a boolean): every value;
//! * a value that only meets comparisons with constants (`n > 0`, the
//!   GPUVerify-style guard): one value per class of the partition those
//!   constants induce — each constant, 0, and one value strictly between
//!   consecutive ones. Two values of one class compare alike with every
//!   constant in the signed order, and have the same sign, hence compare
//!   alike in the unsigned order too; the program cannot tell them apart.
//!
//! Anything else (an input that flows into arithmetic, memory or an
//! observed register) is `unsupported` here: the symbolic engine, whose
//! values are bit-vectors, checks it (`--engine auto` picks it for every
//! program with free values).

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{BinOp, InstrKind, Operand, Program, Term, ValueType};
use std::collections::BTreeSet;

/// Types with at most this many values are enumerated completely.
pub const SMALL_TYPE: u128 = 16;
/// Valuations of a program's inputs the explicit engine checks at most.
pub const MAX_VALUATIONS: usize = 256;

/// Who fixes the inputs one valuation at a time: the explicit engine
/// (the symbolic one could check the program instead), or liveness on
/// either engine (then nothing can: the advice must not name an engine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    Explicit,
    Liveness,
}

fn unsupported(what: String, by: Use) -> Error {
    let msg = match by {
        Use::Explicit => format!("unsupported: {what} in the explicit engine (values it cannot enumerate; the symbolic engine checks it: --engine symbolic)"),
        Use::Liveness => format!("unsupported: {what} in a liveness check (liveness fixes free inputs one valuation at a time, on either engine, and these values cannot be enumerated)"),
    };
    Error::new(ErrorKind::Unsupported, msg)
}

/// Each valuation of the program's free inputs, as a copy of `p` with
/// those inputs fixed; `None` when no input is free.
pub fn valuations(p: &Program, by: Use) -> Result<Option<Vec<Program>>> {
    let (free, domains) = free_domains(p, by)?;
    if free.is_empty() {
        return Ok(None);
    }
    let total = domains.iter().map(Vec::len).product();
    let mut out = Vec::with_capacity(total);
    let mut choice = vec![0usize; free.len()];
    loop {
        let mut q = p.clone();
        for (j, &k) in free.iter().enumerate() {
            q.inputs[k].value = Some(domains[j][choice[j]]);
        }
        out.push(q);
        let mut j = 0;
        loop {
            if j == choice.len() {
                return Ok(Some(out));
            }
            choice[j] += 1;
            if choice[j] < domains[j].len() {
                break;
            }
            choice[j] = 0;
            j += 1;
        }
    }
}

/// Why the explicit engine cannot take `p` at all, known before it runs:
/// an arbitrary initial value, or a free input or undefined value without
/// exact representatives. `--engine auto` then gives the symbolic engine
/// the whole time budget rather than half of it.
pub fn explicit_refusal(p: &Program) -> Option<Error> {
    if let Err(e) = crate::engine::paths::arbitrary_initial_values(p) {
        return Some(e);
    }
    if let Err(e) = free_domains(p, Use::Explicit) {
        return Some(e);
    }
    for (th, t) in p.threads.iter().enumerate() {
        for (i, ins) in t.instrs.iter().enumerate() {
            if matches!(ins.kind, InstrKind::Havoc { .. }) {
                if let Err(e) = havoc_domain(p, th, i) {
                    return Some(e);
                }
            }
        }
    }
    None
}

/// The free inputs of `p` and their representatives, or the refusal when
/// they have none or too many valuations together.
fn free_domains(p: &Program, by: Use) -> Result<(Vec<usize>, Vec<Vec<i64>>)> {
    let free: Vec<usize> = (0..p.inputs.len())
        .filter(|&k| p.inputs[k].value.is_none())
        .collect();
    let mut domains = Vec::new();
    let mut total = 1usize;
    for &k in &free {
        let d = input_domain(p, k, by)?;
        total = total.saturating_mul(d.len());
        domains.push(d);
    }
    if total > MAX_VALUATIONS {
        return Err(unsupported(
            format!("{total} valuations of the free inputs (at most {MAX_VALUATIONS})"),
            by,
        ));
    }
    Ok((free, domains))
}

/// Representatives of the free input `k` (see the module docs).
pub fn input_domain(p: &Program, k: usize, by: Use) -> Result<Vec<i64>> {
    let input = &p.inputs[k];
    if input.ty.count() <= SMALL_TYPE {
        return Ok(every_value(input.ty));
    }
    let mut regs = Vec::new();
    let mut first = None;
    for (th, t) in p.threads.iter().enumerate() {
        for ins in &t.instrs {
            if let InstrKind::Input { dst, input } = &ins.kind {
                if *input == k {
                    regs.push((th, dst.as_str()));
                    first.get_or_insert(ins.pos);
                }
            }
        }
    }
    comparison_classes(p, &regs, input.ty).ok_or_else(|| {
        let e = unsupported(
            format!(
                "the free input `{}` (used other than in comparisons with constants)",
                input.name
            ),
            by,
        );
        // The `Input` instruction's position (SPIR-V: the variable).
        match first {
            Some(pos) => e.at(pos),
            None => e,
        }
    })
}

/// Representatives of the `Havoc` at instruction `i` of thread `th`.
pub fn havoc_domain(p: &Program, th: usize, i: usize) -> Result<Vec<i64>> {
    let ins = &p.threads[th].instrs[i];
    let InstrKind::Havoc { dst, ty } = &ins.kind else {
        return Err(Error::new(ErrorKind::Semantic, "not an undefined value"));
    };
    if ty.count() <= SMALL_TYPE {
        return Ok(every_value(*ty));
    }
    comparison_classes(p, &[(th, dst.as_str())], *ty).ok_or_else(|| {
        Error::unsupported(
            ins.pos,
            format!(
                "the undefined value `{dst}` (used other than in comparisons with constants) in the explicit engine; the symbolic engine checks it: --engine symbolic"
            ),
        )
    })
}

fn every_value(ty: ValueType) -> Vec<i64> {
    let (lo, hi) = ty.range();
    let mut out: Vec<i64> = (lo..=hi).collect();
    witness_order(&mut out);
    out
}

/// Small non-negative values first (the first valuation that shows a
/// violation gives the witness: `n = 1` reads better than `n = -1`, the
/// all-ones pattern of a `uint`).
fn witness_order(v: &mut [i64]) {
    v.sort_by_key(|&x| (x < 0, x.unsigned_abs()));
}

/// One value per class of the partition of `ty`'s values induced by the
/// constants the registers `regs` are compared with, provided each
/// register has no other definition than its free value and is used only
/// in comparisons with constants (and never observed).
fn comparison_classes(p: &Program, regs: &[(usize, &str)], ty: ValueType) -> Option<Vec<i64>> {
    let (lo, hi) = ty.range();
    let mut points: BTreeSet<i64> = BTreeSet::from([0]);
    let observed = |th: usize, r: &str| {
        let mut terms: Vec<Term> = p.observed.clone();
        for c in p.filter.iter().chain(p.assertion.iter().map(|a| &a.cond)) {
            terms.extend(c.terms());
        }
        terms
            .iter()
            .any(|t| matches!(t, Term::Reg(x, y) if *x == th && y == r))
    };
    for &(th, r) in regs {
        let t = &p.threads[th];
        if observed(th, r) || t.init_regs.iter().any(|(x, _)| x == r) {
            return None;
        }
        let is = |o: &Operand| matches!(o, Operand::Reg(x) if x == r);
        let mut defs = 0;
        for ins in &t.instrs {
            let (uses, def): (Vec<&Operand>, Option<&str>) = match &ins.kind {
                InstrKind::Local { dst, op, a, b } => {
                    if is_comparison(*op) && (is(a) || is(b)) {
                        match (a, b) {
                            (Operand::Const(c), _) | (_, Operand::Const(c)) => {
                                points.insert(*c);
                            }
                            _ => return None,
                        }
                        (vec![], Some(dst))
                    } else {
                        (vec![a, b], Some(dst))
                    }
                }
                InstrKind::Branch { a, b, .. } => {
                    if is(a) || is(b) {
                        match (a, b) {
                            (Operand::Const(c), _) | (_, Operand::Const(c)) => {
                                points.insert(*c);
                            }
                            _ => return None,
                        }
                    }
                    (vec![], None)
                }
                InstrKind::Store { value, .. } => (vec![value], None),
                InstrKind::Rmw {
                    dst, op, operand, ..
                } => {
                    let mut u = vec![operand];
                    if let crate::ir::RmwOp::Cas { expected } = op {
                        u.push(expected);
                    }
                    (u, dst.as_deref())
                }
                InstrKind::Barrier { id, count, .. } => {
                    let mut u = vec![id];
                    u.extend(count.iter());
                    (u, None)
                }
                InstrKind::Load { dst, .. }
                | InstrKind::Havoc { dst, .. }
                | InstrKind::Input { dst, .. } => (vec![], Some(dst)),
                InstrKind::Fence
                | InstrKind::Label(_)
                | InstrKind::Goto(_)
                | InstrKind::Unreachable { .. }
                | InstrKind::Infeasible => (vec![], None),
            };
            // The index of a run-time address is a use too: its cells are
            // not told apart by the comparison classes.
            let index = ins.kind.addr().and_then(|a| a.index());
            if uses.into_iter().chain(index).any(is) {
                return None;
            }
            if def == Some(r) {
                defs += 1;
            }
        }
        if defs != 1 {
            return None;
        }
    }
    let points: Vec<i64> = points.into_iter().filter(|&c| lo <= c && c <= hi).collect();
    let mut out = Vec::new();
    if points[0] > lo {
        out.push(points[0] - 1);
    }
    for (i, &c) in points.iter().enumerate() {
        out.push(c);
        let next = points.get(i + 1).copied();
        if c < hi && next.is_none_or(|n| c + 1 < n) {
            out.push(c + 1);
        }
    }
    witness_order(&mut out);
    Some(out)
}

fn is_comparison(op: BinOp) -> bool {
    use BinOp::*;
    matches!(op, Eq | Ne | Lt | Le | Gt | Ge | Ult | Ule | Ugt | Uge)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::ir::{Instr, Pos};

    fn ins(kind: InstrKind) -> Instr {
        Instr::new(kind, vec![], Pos::default(), String::new())
    }

    fn classes(consts: &[i64], ty: ValueType) -> Vec<i64> {
        let instrs = consts
            .iter()
            .map(|&c| {
                ins(InstrKind::Local {
                    dst: "b".into(),
                    op: BinOp::Ult,
                    a: Operand::Reg("n".into()),
                    b: Operand::Const(c),
                })
            })
            .collect();
        input_domain(&reading_n(instrs, ty), 0, Use::Explicit).unwrap()
    }

    /// One thread that reads the free input `n` of type `ty`, then runs
    /// `instrs`.
    fn reading_n(mut instrs: Vec<Instr>, ty: ValueType) -> Program {
        use crate::ir::Thread;
        instrs.insert(
            0,
            ins(InstrKind::Input {
                dst: "n".into(),
                input: 0,
            }),
        );
        Program {
            kernel: false,
            name: "t".into(),
            arch: crate::ir::Arch::Vulkan,
            threads: vec![Thread {
                name: "P0".into(),
                placement: crate::ir::Placement {
                    ids: vec![0, 0, 0],
                    warp: None,
                },
                instrs,
                init_regs: vec![],
            }],
            locations: vec![],
            ssw: vec![],
            filter: None,
            assertion: None,
            observed: vec![],
            inputs: vec![crate::ir::Input {
                name: "n".into(),
                ty,
                value: None,
            }],
            source_map: Default::default(),
            assumptions: Vec::new(),
            header: Vec::new(),
            default_model: None,
        }
    }

    /// An input that indexes memory is not only compared with constants:
    /// the representatives of its comparisons would skip cells.
    #[test]
    fn an_input_used_as_an_index_is_not_enumerated_by_classes() {
        use crate::ir::{Addr, Indexed};
        let store = ins(InstrKind::Store {
            addr: Addr::Indexed(Box::new(Indexed {
                index: Operand::Reg("n".into()),
                cells: vec![],
                array: "%a".into(),
            })),
            value: Operand::Const(1),
        });
        let p = reading_n(vec![store], ValueType::Int(32));
        assert!(input_domain(&p, 0, Use::Explicit).is_err());
    }

    /// Every value of the type compares with each constant (signed and
    /// unsigned) like some representative.
    #[test]
    fn representatives_cover_every_class() {
        let ty = ValueType::Int(8);
        let consts = [-3, 0, 1, 5, 127, 300];
        let reps = classes(&consts, ty);
        let sig = |v: i64| -> Vec<(bool, bool, bool, bool)> {
            consts
                .iter()
                .map(|&c| (v < c, v == c, (v as u64) < (c as u64), v > c))
                .collect()
        };
        for v in -128..=127 {
            assert!(
                reps.iter().any(|&r| sig(r) == sig(v)),
                "{v} has no representative in {reps:?}"
            );
        }
        assert!(reps.iter().all(|&r| ty.contains(r)));
        assert_eq!(classes(&[0], ValueType::Int(32)), vec![0, 1, -1]);
    }

    #[test]
    fn small_types_are_enumerated() {
        assert_eq!(classes(&[], ValueType::Bool), vec![0, 1]);
        assert_eq!(classes(&[], ValueType::Int(2)), vec![0, 1, -1, -2]);
    }
}
