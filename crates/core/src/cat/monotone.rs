//! Whether a model's judgement only loosens when some of its inputs
//! shrink: the check behind the symbolic engine's split of scope
//! instances (docs/SYMBOLIC.md, "Splitting scope instances").
//!
//! Each derived value is classified by how it moves when the named
//! inputs lose pairs (the execution otherwise the same): *increasing*
//! (it can only lose pairs too: unions, intersections, compositions,
//! closures, inverses, products, domains and ranges of increasing
//! values, and the left side of a difference whose right side is
//! decreasing), *decreasing* (the reverse: a complement, or a difference
//! that subtracts an increasing value), both (it does not read them) or
//! neither. If every consistency axiom (`acyclic`, `irreflexive`,
//! `empty`) tests an increasing value, an execution consistent with the
//! larger inputs is consistent with the smaller; if a flag's relation
//! (`flag ~empty`) is decreasing, a pair it relates with the larger
//! inputs it still relates with the smaller (a `flag empty` needs an
//! increasing one).
//!
//! The caller may name slots whose values it has shown equal under both
//! inputs (`fixed`: static values computed both ways for one program):
//! a syntactic reading misses that a union with a larger term absorbs a
//! shrinking one (`inscope` of two device-scope atomics), and a value
//! such as `asmo \ (asmo; asmo+)` is neither increasing nor decreasing in
//! general yet does not move where `asmo` does not.

use super::compile::{OpCode, Slot, Unit};
use super::{AxiomKind, Model};

/// How a value moves when the inputs shrink.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Moves {
    /// It can only shrink too.
    inc: bool,
    /// It can only grow.
    dec: bool,
}

const FIXED: Moves = Moves {
    inc: true,
    dec: true,
};
const INC: Moves = Moves {
    inc: true,
    dec: false,
};
const ANY: Moves = Moves {
    inc: false,
    dec: false,
};

impl Model {
    /// Whether shrinking the inputs `names` keeps every consistent
    /// execution consistent and keeps every pair that the flag axioms
    /// `flags` relate: `Err` names the first axiom for which that is not
    /// shown.
    pub fn loosens_as_shrunk(
        &self,
        names: &[&str],
        flags: &[usize],
        fixed: &[Slot],
    ) -> Result<(), String> {
        let mut moves = vec![FIXED; self.prog.kinds.len()];
        let pin = |moves: &mut [Moves], s: Slot| {
            if fixed.contains(&s) {
                moves[s as usize] = FIXED;
            }
        };
        for unit in &self.prog.units {
            match unit {
                Unit::Input(i) => {
                    let shrunk = names.contains(&self.inputs[*i].0.as_str());
                    let s = self.prog.input_slots[*i];
                    moves[s as usize] = if shrunk { INC } else { FIXED };
                    pin(&mut moves, s);
                }
                Unit::Op(op) => {
                    moves[op.dst as usize] = of_op(op.code, op.a, op.b, &moves);
                    pin(&mut moves, op.dst);
                }
                Unit::Fix(fix) => {
                    // A least fixpoint of operations increasing in the
                    // inputs and in its variables (which start empty
                    // either way) is increasing; one that reads no shrunk
                    // input is fixed.
                    for &v in &fix.vars {
                        moves[v as usize] = INC;
                    }
                    for op in &fix.body {
                        moves[op.dst as usize] = of_op(op.code, op.a, op.b, &moves);
                    }
                    let inc = fix.body.iter().all(|op| moves[op.dst as usize].inc);
                    for &v in &fix.vars {
                        moves[v as usize] = FIXED;
                    }
                    for op in &fix.body {
                        moves[op.dst as usize] = of_op(op.code, op.a, op.b, &moves);
                    }
                    let fixed = fix.body.iter().all(|op| moves[op.dst as usize] == FIXED);
                    let m = match (fixed, inc) {
                        (true, _) => FIXED,
                        (false, true) => INC,
                        (false, false) => ANY,
                    };
                    for op in &fix.body {
                        moves[op.dst as usize] = m;
                    }
                    for &v in &fix.vars {
                        moves[v as usize] = m;
                    }
                }
            }
        }
        let unshown = self.first_unshown(flags, |flag, kind, slot| {
            let m = moves[slot as usize];
            match (flag, kind) {
                (false, AxiomKind::NotEmpty) => m.dec,
                (false, _) => m.inc,
                (true, AxiomKind::NotEmpty) => m.dec,
                (true, AxiomKind::Empty) => m.inc,
                (true, _) => false,
            }
        });
        if let Some(what) = unshown {
            return Err(format!(
                "{what} may tighten when {} lose pairs",
                names.join(", ")
            ));
        }
        Ok(())
    }
}

fn of_op(code: OpCode, a: u32, b: u32, moves: &[Moves]) -> Moves {
    use OpCode::*;
    let get = |s: u32| moves.get(s as usize).copied().unwrap_or(FIXED);
    let (a, b) = (get(a), get(b));
    match code {
        EmptySet | FullSet | EmptyRel | FullRel | Id => FIXED,
        SetDiff | RelDiff => Moves {
            inc: a.inc && b.dec,
            dec: a.dec && b.inc,
        },
        SetCompl | RelCompl => Moves {
            inc: a.dec,
            dec: a.inc,
        },
        SetUnion | SetInter | RelUnion | RelInter | Seq | Prod => Moves {
            inc: a.inc && b.inc,
            dec: a.dec && b.dec,
        },
        Inv | Plus | Star | Opt | IdOn | Domain | Range => a,
    }
}
