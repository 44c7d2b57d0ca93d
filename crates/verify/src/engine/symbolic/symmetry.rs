//! Symmetry breaking (`engine::symmetry`): of interchangeable units, only
//! the executions in which they are sorted are asked for — for units
//! `a < b` of a group, the first write of `b` to the shared location of
//! the group's sorting instruction is never coherence-before that of `a`,
//! and `b` makes such a write only if `a` does.
//! Any execution is exchanged into such a one (sort the units along a
//! linear extension of `co` on those writes, then the units without one),
//! and the exchange preserves the property asked, so a formula with the
//! clauses is satisfiable iff it is without.

use super::encode::Enc;
use super::sat::Lit;
use crate::engine::symmetry::{self, Group};
use crate::ir::{Program, Term};

/// Adds the clauses for every group of `p` that leaves the terms `kept`
/// in place (see [`symmetry::groups`]). The clauses of groups whose
/// exchanged threads have instructions at different positions hold only
/// under `guard` when one is given (a query that lists racing pairs by
/// position must not assume them).
pub fn break_symmetry(enc: &mut Enc<'_>, p: &Program, kept: &[Term], guard: Option<Lit>) {
    break_groups(enc, p, &symmetry::groups(p, kept), guard);
}

/// Adds the clauses for `groups` (a selection of [`symmetry::groups`]).
pub fn break_groups(enc: &mut Enc<'_>, p: &Program, groups: &[Group], guard: Option<Lit>) {
    for g in groups {
        let under = if g.same_positions { None } else { guard };
        breaking_clauses(enc, p, g, under);
    }
}

fn breaking_clauses(enc: &mut Enc<'_>, p: &Program, g: &Group, guard: Option<Lit>) -> bool {
    let Some((pos, instr)) = symmetry::sorting_write(p, g) else {
        return false;
    };
    // Per unit: its potential writes of that instruction, each with the
    // literal "the first of them that executes".
    let mut firsts: Vec<Vec<(usize, Lit)>> = Vec::new();
    for unit in &g.units {
        let t = unit[pos];
        let writes: Vec<usize> = (0..enc.u.events.len())
            .filter(|&e| {
                let ev = &enc.u.events[e].ev;
                ev.thread == Some(t)
                    && ev.instr == Some(instr)
                    && ev.kind == crate::engine::exec::EventKind::Write
            })
            .collect();
        let mut out = Vec::new();
        let mut earlier: Vec<Lit> = Vec::new();
        for w in writes {
            let x = enc.u.events[w].exec;
            let mut lits = vec![x];
            lits.extend(earlier.iter().map(|&l| -l));
            let f = enc.sat.and(&lits);
            earlier.push(x);
            out.push((w, f));
        }
        firsts.push(out);
    }
    if firsts.iter().any(Vec::is_empty) {
        return false;
    }
    // Units that write come first: if unit `a + 1` writes, so does `a`.
    for a in 0..firsts.len().saturating_sub(1) {
        for &(_, fb) in &firsts[a + 1] {
            let mut c = vec![-fb];
            c.extend(firsts[a].iter().map(|&(_, fa)| fa));
            c.extend(guard.map(|s| -s));
            enc.sat.clause(&c);
        }
    }
    for a in 0..firsts.len() {
        for b in a + 1..firsts.len() {
            for &(wa, fa) in &firsts[a] {
                for &(wb, fb) in &firsts[b] {
                    let co_ba = enc.co_rel.get(wb, wa);
                    let mut c = vec![-fa, -fb, -co_ba];
                    c.extend(guard.map(|s| -s));
                    enc.sat.clause(&c);
                }
            }
        }
    }
    true
}
