//! Splitting scope instances: the program with every thread alone in
//! its scope instances below the outermost level (its own workgroup and
//! subgroup, its own CTA), checked for races in place of the program as
//! placed when the model allows (docs/SYMBOLIC.md, "Splitting scope
//! instances").
//!
//! The split changes no candidate execution — events, program order,
//! values, `rf` and `co` do not depend on the placement once the program
//! has no barrier — only the model's scope inputs, each of which loses
//! pairs: `scta`/`ssg` and `swg` (and every level below the outermost)
//! relate a thread to itself only, `sr` keeps the pairs of the outermost
//! instance, and `sync_fence` (the order of SC fences over `sr`) keeps
//! its pairs there. If the model's judgement only loosens when those
//! inputs shrink ([`gpumc_core::cat::Model::loosens_as_shrunk`]), every
//! execution of the program that is consistent and racy is consistent and
//! racy with the split placement too, so a split program without races
//! is a program without races. The converse does not hold — a kernel that
//! relies on workgroup-scope synchronisation races once split — so only a
//! PASS of the split program is taken; anything else leaves the check to
//! the program as placed.
//!
//! What it buys is symmetry: threads with one code in different
//! workgroups become interchangeable (`engine::symmetry`), which the
//! placement did not let the engine show.

use crate::cat::{BaseKind, Model, OpCode, Slot, Unit, Value, NONE};
use crate::engine::exec::{Skeleton, Vocabulary};
use crate::engine::symmetry;
use crate::ir::{InstrKind, Program};
use crate::rel::EventSet;

/// The model inputs that lose pairs under the split of a program whose
/// placements have `levels` levels (all but the outermost are split).
pub fn shrunk_inputs(levels: usize) -> Vec<&'static str> {
    // Level 0: a CTA (PTX) or a subgroup (Vulkan); 1: a workgroup; 2: a
    // queue family.
    let per_level: [&[&'static str]; 3] = [&["scta", "ssg"], &["swg"], &["sqf"]];
    let mut names: Vec<&'static str> = per_level
        .iter()
        .take(levels.saturating_sub(1))
        .flat_map(|n| n.iter().copied())
        .collect();
    names.extend(["sr", "sync_fence"]);
    names
}

/// The program with each thread alone in every scope instance below the
/// outermost level; `None` when that changes nothing or the program has
/// a barrier (whose matching depends on the placement).
pub fn split_instances(p: &Program) -> Option<Program> {
    let levels = p.threads.first()?.placement.ids.len();
    if levels < 2 || p.threads.iter().any(|t| t.placement.ids.len() != levels) {
        return None;
    }
    let barrier = p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .any(|i| matches!(i.kind, InstrKind::Barrier { .. }));
    if barrier {
        return None;
    }
    // Thread `t` in instance `t` of the level below the outermost and in
    // instance 0 of each level below that (an instance is named by its
    // index and those of the instances around it).
    let mut q = p.clone();
    for (t, th) in q.threads.iter_mut().enumerate() {
        let ids = &mut th.placement.ids;
        ids[levels - 2] = t as i64;
        for id in &mut ids[..levels - 2] {
            *id = 0;
        }
    }
    let changed = q
        .threads
        .iter()
        .zip(&p.threads)
        .any(|(a, b)| a.placement.ids != b.placement.ids);
    changed.then_some(q)
}

/// How much symmetry reduction a program's groups give: the logarithm of
/// the number of orders among interchangeable units they remove.
pub fn symmetry_order(p: &Program) -> f64 {
    symmetry::groups(p, &[])
        .iter()
        .map(|g| (2..=g.units.len()).map(|k| (k as f64).ln()).sum::<f64>())
        .sum()
}

/// The split of `p` when it is worth checking: it has more symmetry than
/// `p`.
pub fn worth_splitting(p: &Program) -> Option<Program> {
    let q = split_instances(p)?;
    (symmetry_order(&q) > symmetry_order(p) + 1e-9).then_some(q)
}

/// The slots of `model` whose values are the same for the program as
/// placed (`sk`, the skeleton of its potential events) and for its split
/// (`split`, the same events) in every execution: the values computed
/// from static inputs only — scope relations, the other static relations
/// of [`Skeleton::static_relation`], and the tag sets of `static_tags` —
/// by operations that commute with restricting the events (so that a
/// value over the executed events is the value over all potential events
/// restricted to them), evaluated both ways and compared.
pub fn fixed_slots(
    model: &Model,
    sk: &Skeleton<'_>,
    split: &Skeleton<'_>,
    vocab: &Vocabulary,
    static_tags: &dyn Fn(&str) -> bool,
) -> Vec<Slot> {
    let n = sk.n();
    let kinds = model.slot_kinds();
    // Per slot: computed from static inputs by restriction-exact
    // operations, and whether it is a part of the identity.
    let mut exact = vec![false; kinds.len()];
    let mut diag = vec![false; kinds.len()];
    let (mut ev, mut ev_split) = (model.evaluator(n), model.evaluator(n));
    for (i, (name, kind)) in model.inputs().iter().enumerate() {
        let value = |sk: &Skeleton<'_>| -> Option<Value> {
            Some(match kind {
                BaseKind::Set if static_tags(name) => Value::Set(match vocab.index(name) {
                    Some(t) => sk.tagged(t),
                    None => EventSet::empty(n),
                }),
                BaseKind::Set => return None,
                _ if DYNAMIC.contains(&name.as_str()) => return None,
                _ => Value::Rel(sk.static_relation(name, vocab)?),
            })
        };
        if let (Some(a), Some(b)) = (value(sk), value(split)) {
            ev.set_input(i, a);
            ev_split.set_input(i, b);
            let s = model.input_slot(i) as usize;
            exact[s] = true;
            diag[s] = name == "id";
        }
    }
    let mut fixed = Vec::new();
    for unit in model.units() {
        let Unit::Op(op) = unit else {
            continue;
        };
        let get = |v: &[bool], s: Slot| s == NONE || v.get(s as usize).copied().unwrap_or(false);
        let (a, b) = (get(&exact, op.a), get(&exact, op.b));
        let (da, db) = (
            op.a != NONE && get(&diag, op.a),
            op.b != NONE && get(&diag, op.b),
        );
        use OpCode::*;
        let (is_exact, is_diag) = match op.code {
            EmptySet | FullSet | EmptyRel | FullRel => (true, false),
            Id => (true, true),
            IdOn => (a, true),
            SetUnion | SetDiff | RelUnion | RelDiff | Prod => (a && b, false),
            SetInter | RelInter => (a && b, da || db),
            SetCompl | RelCompl | Opt => (a, false),
            Inv => (a, da),
            // A composition with a part of the identity has no
            // intermediate event to lose.
            Seq => (a && b && (da || db), da && db),
            Plus | Star | Domain | Range => (false, false),
        };
        let dst = op.dst as usize;
        exact[dst] = is_exact;
        diag[dst] = is_diag;
        if is_exact && ev.slot_value(op.dst) == ev_split.slot_value(op.dst) {
            fixed.push(op.dst);
        }
    }
    fixed
}

/// Inputs that depend on the execution, not only on the program.
const DYNAMIC: &[&str] = &[
    "rf",
    "co",
    "fr",
    "po",
    "addr",
    "data",
    "ctrl",
    "rmw",
    "sync_fence",
    "sync_barrier",
    "syncbar",
];
