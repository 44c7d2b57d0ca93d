//! How a model's relations change when an execution loses some of its
//! events: the check behind the symbolic engine's futile-iteration
//! reduction (docs/SEMANTICS.md, "Futile iterations").
//!
//! Let `E'` be `E` restricted to a set `K` of its events such that every
//! read of `K` reads a write of `K`. Then every base set and relation of
//! `E'` is that of `E` restricted to `K` (`rf`, `co`, `fr`, `po`, scopes,
//! tags: each pair depends on its two events only). A derived value is
//! *exact* when it keeps that property, *monotone* when its value on `E'`
//! is contained in its value on `E` restricted to `K` (a sequence or a
//! closure loses the paths through dropped events), *antitone* when it
//! contains it (a difference that subtracts a monotone value). If every
//! consistency axiom (`acyclic`, `irreflexive`, `empty`) tests a monotone
//! value, `E'` is consistent whenever `E` is; if a flag's relation is
//! antitone, a pair it relates in `E` is still related in `E'` when both
//! events are kept (a `flag empty` needs a monotone one).

use super::compile::{Op, OpCode, Prog, Slot, Unit};
use super::{AxiomKind, Model};

#[derive(Clone, Copy, Default, PartialEq, Eq)]
struct Shape {
    mono: bool,
    anti: bool,
    /// A subset of the identity: composing with it adds no intermediate.
    diag: bool,
    /// `X \ (X; X+)` for an exact `X` (the immediate pairs of an order):
    /// `E'` adds the pairs whose every intermediate was dropped.
    imm: bool,
    /// `I; [RMW]` for such an `I`: every added pair is a chain of pairs
    /// of `E` through dropped events, which are RMW writes, so a closure
    /// of it is monotone.
    imm_rmw: bool,
}

const EXACT: Shape = Shape {
    mono: true,
    anti: true,
    diag: false,
    imm: false,
    imm_rmw: false,
};

const MONO: Shape = Shape {
    mono: true,
    anti: false,
    diag: false,
    imm: false,
    imm_rmw: false,
};

const NONE_OF: Shape = Shape {
    mono: false,
    anti: false,
    diag: false,
    imm: false,
    imm_rmw: false,
};

impl Model {
    /// Whether dropping the events of futile iterations (reads, fences,
    /// and RMW writes that no kept event reads) from a consistent
    /// execution leaves it consistent and keeps every pair that the flag
    /// axioms `flags` relate: `Err` names the first axiom for which that is
    /// not shown.
    pub fn restriction_stable(&self, flags: &[usize]) -> Result<(), String> {
        let rmw = self.input_index("RMW").map(|i| self.prog.input_slots[i]);
        let mut shape = vec![NONE_OF; self.prog.kinds.len()];
        for unit in &self.prog.units {
            match unit {
                Unit::Input(i) => shape[self.prog.input_slots[*i] as usize] = EXACT,
                Unit::Op(op) => shape[op.dst as usize] = of_op(op, &shape, &self.prog, rmw),
                Unit::Fix(fix) => {
                    // A least fixpoint of monotone operations is monotone
                    // (its variables start empty on both executions).
                    for &v in &fix.vars {
                        shape[v as usize] = MONO;
                    }
                    for op in &fix.body {
                        shape[op.dst as usize] = of_op(op, &shape, &self.prog, rmw);
                    }
                    let mono = fix.body.iter().all(|op| shape[op.dst as usize].mono);
                    for (&v, &r) in fix.vars.iter().zip(&fix.results) {
                        let m = mono && shape[r as usize].mono;
                        shape[v as usize] = if m { MONO } else { NONE_OF };
                    }
                }
            }
        }
        let unshown = self.first_unshown(flags, |flag, kind, slot| {
            let s = shape[slot as usize];
            match (flag, kind) {
                // A non-empty value on `E` may lose all its pairs.
                (false, AxiomKind::NotEmpty) => false,
                (false, _) => s.mono,
                (true, AxiomKind::NotEmpty) => s.anti,
                (true, AxiomKind::Empty) => s.mono,
                (true, _) => false,
            }
        });
        if let Some(what) = unshown {
            return Err(format!("{what} may change when events are dropped"));
        }
        Ok(())
    }
}

impl Model {
    /// The first consistency axiom, or flag among `flags`, for which `ok`
    /// (given whether it is a flag, its kind and its slot) fails, named
    /// as "the axiom NAME" or "the flag NAME".
    pub(super) fn first_unshown(
        &self,
        flags: &[usize],
        ok: impl Fn(bool, AxiomKind, Slot) -> bool,
    ) -> Option<String> {
        self.axioms.iter().enumerate().find_map(|(i, ax)| {
            let asked = !ax.flag || flags.contains(&i);
            if !asked || ok(ax.flag, ax.kind, self.axiom_slots[i]) {
                return None;
            }
            let what = if ax.flag { "flag" } else { "axiom" };
            let name = if ax.name.is_empty() {
                "(unnamed)"
            } else {
                &ax.name
            };
            Some(format!("the {what} {name}"))
        })
    }
}

fn of_op(op: &Op, shape: &[Shape], prog: &Prog, rmw: Option<Slot>) -> Shape {
    use OpCode::*;
    let get = |s: Slot| shape.get(s as usize).copied().unwrap_or(EXACT);
    let (a, b) = (get(op.a), get(op.b));
    let meet = |diag: bool| Shape {
        mono: a.mono && b.mono,
        anti: a.anti && b.anti,
        diag,
        ..NONE_OF
    };
    match op.code {
        EmptySet | FullSet | EmptyRel | FullRel => EXACT,
        Id => Shape {
            diag: true,
            ..EXACT
        },
        IdOn => Shape { diag: true, ..a },
        SetUnion | RelUnion | Prod => meet(false),
        SetInter | RelInter => meet(a.diag || b.diag),
        SetDiff => Shape {
            mono: a.mono && b.anti,
            anti: a.anti && b.mono,
            ..NONE_OF
        },
        RelDiff => {
            // `X \ (X; X+)`
            let imm = a.mono
                && a.anti
                && producer(prog, op.b).is_some_and(|s| {
                    s.code == Seq
                        && s.a == op.a
                        && producer(prog, s.b).is_some_and(|p| p.code == Plus && p.a == op.a)
                });
            Shape {
                mono: a.mono && b.anti,
                anti: a.anti && b.mono,
                diag: a.diag,
                imm,
                imm_rmw: false,
            }
        }
        SetCompl | RelCompl => Shape {
            mono: a.anti,
            anti: a.mono,
            ..NONE_OF
        },
        Inv => Shape {
            imm: false,
            imm_rmw: false,
            ..a
        },
        Opt => Shape {
            diag: a.diag,
            imm: false,
            imm_rmw: false,
            ..a
        },
        Seq if a.imm
            && producer(prog, op.b).is_some_and(|s| s.code == IdOn && Some(s.a) == rmw) =>
        {
            Shape {
                imm_rmw: true,
                ..NONE_OF
            }
        }
        Plus | Star if a.imm_rmw => MONO,
        // A composition with a part of the identity passes through no
        // other event; any other loses the paths through dropped events.
        Seq if a.diag || b.diag => meet(a.diag && b.diag),
        Seq | Plus | Star | Domain | Range => Shape {
            mono: a.mono && b.mono,
            ..NONE_OF
        },
    }
}

/// The operation that produces `slot` outside every fixpoint.
fn producer(prog: &Prog, slot: Slot) -> Option<&Op> {
    match prog
        .units
        .get(*prog.producer.get(slot as usize)? as usize)?
    {
        Unit::Op(op) if op.dst == slot => Some(op),
        _ => None,
    }
}
