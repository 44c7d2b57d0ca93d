//! Demand analysis: which elements of each derived set and relation of a
//! `.cat` model can affect the axioms being encoded.
//!
//! `empty (rf; [R \ AT]) & X` only looks at the pairs of `X` that end in a
//! non-atomic read; encoding the rest of `X` (and of what `X` is built
//! from) only slows the solver down. Two static passes over the compiled
//! model, on plain bit matrices:
//!
//! 1. forward, *may* and *must* values: a superset and a subset of each
//!    slot's value in every execution (from the encoded inputs' symbolic
//!    and sure parts);
//! 2. backward, *demands*: an axiom demands all of its slot; an operator
//!    passes on the part of its operands that its demanded part depends on
//!    (an intersection needs an operand only where the other may hold, a
//!    sequence `a;b` needs `a` only towards events that `b` may lead to a
//!    demanded end from, and so on).
//!
//! The encoder then computes each slot only on its demand (sequence and
//! closure operators skip undemanded results before creating gates) and
//! drops the rest. Fixpoints (`let rec`) are demanded and computed whole.

use crate::cat::{AxiomKind, Model, OpCode, Unit, NONE};
use crate::rel::{EventSet, Relation};

/// A plain value: which elements a slot may (or must) contain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mask {
    Set(EventSet),
    Rel(Relation),
}

/// A boolean operator on masks.
#[derive(Clone, Copy)]
enum Bool {
    Union,
    Inter,
    Diff,
}

impl Mask {
    /// `self op o` (both of one kind; `self` if not).
    fn zip(&self, o: &Mask, op: Bool) -> Mask {
        match (self, o, op) {
            (Mask::Set(a), Mask::Set(b), Bool::Union) => Mask::Set(a.union(b)),
            (Mask::Set(a), Mask::Set(b), Bool::Inter) => Mask::Set(a.intersection(b)),
            (Mask::Set(a), Mask::Set(b), Bool::Diff) => Mask::Set(a.difference(b)),
            (Mask::Rel(a), Mask::Rel(b), Bool::Union) => Mask::Rel(a.union(b)),
            (Mask::Rel(a), Mask::Rel(b), Bool::Inter) => Mask::Rel(a.intersection(b)),
            (Mask::Rel(a), Mask::Rel(b), Bool::Diff) => Mask::Rel(a.difference(b)),
            _ => self.clone(),
        }
    }

    fn complement(&self) -> Mask {
        match self {
            Mask::Set(a) => Mask::Set(a.complement()),
            Mask::Rel(a) => Mask::Rel(a.complement()),
        }
    }

    fn union_with(&mut self, o: &Mask) {
        match (self, o) {
            (Mask::Set(a), Mask::Set(b)) => a.union_with(b),
            (Mask::Rel(a), Mask::Rel(b)) => a.union_with(b),
            _ => {}
        }
    }

    fn intersect_with(&mut self, o: &Mask) {
        match (self, o) {
            (Mask::Set(a), Mask::Set(b)) => a.intersect_with(b),
            (Mask::Rel(a), Mask::Rel(b)) => a.intersect_with(b),
            _ => {}
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Mask::Set(a) => a.is_empty(),
            Mask::Rel(a) => a.is_empty(),
        }
    }

    /// `None` for the empty mask: absent slots read as empty, and dense
    /// empty relations are megabytes each in large programs.
    fn non_empty(self) -> Option<Mask> {
        (!self.is_empty()).then_some(self)
    }

    pub fn rel(&self) -> Option<&Relation> {
        match self {
            Mask::Rel(r) => Some(r),
            Mask::Set(_) => None,
        }
    }
}

/// `mask ∩ (a ; b_inv⁻¹)`: the pairs `(x, y)` of `mask` with some `z`
/// such that `a(x, z)` and `b_inv(y, z)`. Tested pair by pair when
/// `mask` is smaller than `a` (demand masks of axioms are full relations,
/// whose composition costs n² rows), composed otherwise.
fn within_compose(mask: &Relation, a: &Relation, b_inv: &Relation) -> Relation {
    let n = mask.universe();
    if mask.len() <= a.len() {
        let mut r = Relation::empty(n);
        for (x, y) in mask.pairs() {
            if a.rows_meet(x, b_inv, y) {
                r.insert(x, y);
            }
        }
        r
    } else {
        mask.intersection(&a.compose(&b_inv.inverse()))
    }
}

fn full_rel(n: usize) -> Relation {
    Relation::product(&EventSet::full(n), &EventSet::full(n))
}

/// Slot `s` of `v`, or `empty` where absent or not computed.
fn pick<'a>(v: &'a [Option<Mask>], s: u32, empty: &'a Mask) -> &'a Mask {
    match v.get(s as usize) {
        Some(Some(m)) => m,
        _ => empty,
    }
}

fn pick_rel<'a>(v: &'a [Option<Mask>], s: u32, empty: &'a Relation) -> &'a Relation {
    match v.get(s as usize) {
        Some(Some(Mask::Rel(r))) => r,
        _ => empty,
    }
}

fn pick_set<'a>(v: &'a [Option<Mask>], s: u32, empty: &'a EventSet) -> &'a EventSet {
    match v.get(s as usize) {
        Some(Some(Mask::Set(x))) => x,
        _ => empty,
    }
}

/// May values of every needed slot (must values are computed on the way,
/// for differences and complements, and dropped after their last reader).
/// `inputs[s]`: (may, must) of each input slot.
pub fn may_values(
    model: &Model,
    need_unit: &[bool],
    inputs: Vec<Option<(Mask, Mask)>>,
    n: usize,
) -> Vec<Option<Mask>> {
    use OpCode::*;
    let slots = model.slot_kinds().len();
    let mut may: Vec<Option<Mask>> = vec![None; slots];
    let mut must: Vec<Option<Mask>> = vec![None; slots];
    for (s, v) in inputs.into_iter().enumerate() {
        if let Some((a, b)) = v {
            may[s] = Some(a);
            must[s] = Some(b);
        }
    }
    // The last op reading each slot's must value.
    let mut last_must_read = vec![usize::MAX; slots];
    for (ui, unit) in model.units().iter().enumerate() {
        if let (true, Unit::Op(op)) = (need_unit[ui], unit) {
            for s in op.operands() {
                last_must_read[s as usize] = ui;
            }
        }
    }
    let full_set = EventSet::full(n);
    let id = Relation::identity(n);
    let (empty_set, empty_rel) = (Mask::Set(EventSet::empty(n)), Mask::Rel(Relation::empty(n)));
    let empty_r = Relation::empty(n);
    let empty_s = EventSet::empty(n);
    for (ui, unit) in model.units().iter().enumerate() {
        if !need_unit[ui] {
            continue;
        }
        let op = match unit {
            Unit::Input(_) => continue,
            Unit::Op(op) => op,
            Unit::Fix(f) => {
                let kinds = model.slot_kinds();
                for s in f
                    .vars
                    .iter()
                    .chain(&f.results)
                    .copied()
                    .chain(f.body.iter().map(|o| o.dst))
                {
                    let (m, u) = match kinds[s as usize] {
                        crate::cat::BaseKind::Set => {
                            (Mask::Set(full_set.clone()), Mask::Set(EventSet::empty(n)))
                        }
                        _ => (Mask::Rel(full_rel(n)), Mask::Rel(Relation::empty(n))),
                    };
                    may[s as usize] = Some(m);
                    must[s as usize] = Some(u);
                }
                continue;
            }
        };
        // Operands (empty where absent or not computed), as masks of the
        // result's kind for the boolean operators; borrowed, not copied.
        let empty = match model.slot_kinds()[op.dst as usize] {
            crate::cat::BaseKind::Set => &empty_set,
            _ => &empty_rel,
        };
        let rb = pick_rel(&may, op.b, &empty_r);
        let (ma, mb) = (pick(&may, op.a, empty), pick(&may, op.b, empty));
        let (ua, ub) = (pick(&must, op.a, empty), pick(&must, op.b, empty));
        let (m, u) = match op.code {
            EmptySet => (Mask::Set(EventSet::empty(n)), Mask::Set(EventSet::empty(n))),
            FullSet => (Mask::Set(full_set.clone()), Mask::Set(full_set.clone())),
            EmptyRel => (Mask::Rel(Relation::empty(n)), Mask::Rel(Relation::empty(n))),
            FullRel => (Mask::Rel(full_rel(n)), Mask::Rel(full_rel(n))),
            Id => (Mask::Rel(id.clone()), Mask::Rel(id.clone())),
            SetUnion | RelUnion => (ma.zip(mb, Bool::Union), ua.zip(ub, Bool::Union)),
            SetInter | RelInter => (ma.zip(mb, Bool::Inter), ua.zip(ub, Bool::Inter)),
            SetDiff | RelDiff => (ma.zip(ub, Bool::Diff), ua.zip(mb, Bool::Diff)),
            SetCompl | RelCompl => (ua.complement(), ma.complement()),
            Seq => (
                Mask::Rel(pick_rel(&may, op.a, &empty_r).compose(rb)),
                Mask::Rel(Relation::empty(n)),
            ),
            Inv => (
                Mask::Rel(pick_rel(&may, op.a, &empty_r).inverse()),
                Mask::Rel(pick_rel(&must, op.a, &empty_r).inverse()),
            ),
            Plus => (
                Mask::Rel(pick_rel(&may, op.a, &empty_r).transitive_closure()),
                Mask::Rel(pick_rel(&must, op.a, &empty_r).clone()),
            ),
            Star => (
                Mask::Rel(pick_rel(&may, op.a, &empty_r).reflexive_transitive_closure()),
                Mask::Rel(pick_rel(&must, op.a, &empty_r).union(&id)),
            ),
            Opt => (
                Mask::Rel(pick_rel(&may, op.a, &empty_r).union(&id)),
                Mask::Rel(pick_rel(&must, op.a, &empty_r).union(&id)),
            ),
            IdOn => (
                Mask::Rel(Relation::identity_on(pick_set(&may, op.a, &empty_s))),
                Mask::Rel(Relation::identity_on(pick_set(&must, op.a, &empty_s))),
            ),
            Prod => (
                Mask::Rel(Relation::product(
                    pick_set(&may, op.a, &empty_s),
                    pick_set(&may, op.b, &empty_s),
                )),
                Mask::Rel(Relation::product(
                    pick_set(&must, op.a, &empty_s),
                    pick_set(&must, op.b, &empty_s),
                )),
            ),
            Domain => (
                Mask::Set(pick_rel(&may, op.a, &empty_r).domain()),
                Mask::Set(EventSet::empty(n)),
            ),
            Range => (
                Mask::Set(pick_rel(&may, op.a, &empty_r).range()),
                Mask::Set(EventSet::empty(n)),
            ),
        };
        may[op.dst as usize] = m.non_empty();
        must[op.dst as usize] = u.non_empty();
        for s in op.operands() {
            if last_must_read[s as usize] == ui {
                must[s as usize] = None;
            }
        }
    }
    may
}

/// The demand of every needed slot (`None`: nothing demanded, the slot's
/// value is never read).
pub fn demands(
    model: &Model,
    needed: &[usize],
    need_unit: &[bool],
    may: &[Option<Mask>],
    n: usize,
) -> Vec<Option<Mask>> {
    use OpCode::*;
    let mut dem: Vec<Option<Mask>> = vec![None; model.slot_kinds().len()];
    // Empty demands stay `None` (nothing demanded).
    // A demand beyond a slot's may value asks for elements the slot never
    // holds: it is cut to the may value (the demands of axioms are full
    // relations, n² pairs, and would otherwise flow down every union).
    let add = |dem: &mut Vec<Option<Mask>>, s: u32, mut m: Mask| {
        if s == NONE {
            return;
        }
        let Some(may_s) = &may[s as usize] else {
            return;
        };
        m.intersect_with(may_s);
        if m.is_empty() {
            return;
        }
        match &mut dem[s as usize] {
            Some(d) => d.union_with(&m),
            slot => *slot = Some(m),
        }
    };
    let full_of = |s: u32| -> Mask {
        match model.slot_kinds()[s as usize] {
            crate::cat::BaseKind::Set => Mask::Set(EventSet::full(n)),
            _ => Mask::Rel(full_rel(n)),
        }
    };
    for &a in needed {
        let s = model.axiom_slot(a);
        let m = match (model.axioms()[a].kind, full_of(s)) {
            (AxiomKind::Irreflexive, Mask::Rel(_)) => Mask::Rel(Relation::identity(n)),
            (_, m) => m,
        };
        add(&mut dem, s, m);
    }
    let units = model.units();
    let (empty_r, empty_s) = (Relation::empty(n), EventSet::empty(n));
    for (ui, unit) in units.iter().enumerate().rev() {
        if !need_unit[ui] {
            continue;
        }
        let op = match unit {
            Unit::Input(_) => continue,
            Unit::Op(op) => op,
            Unit::Fix(f) => {
                for o in &f.body {
                    for s in o.operands().chain([o.dst]) {
                        let m = full_of(s);
                        add(&mut dem, s, m);
                    }
                }
                for &s in f.vars.iter().chain(&f.results) {
                    let m = full_of(s);
                    add(&mut dem, s, m);
                }
                continue;
            }
        };
        // Taken out while its operands' demands are added (an operand is
        // never the op's own destination), put back after.
        let Some(d) = dem[op.dst as usize].take() else {
            continue;
        };
        let (a, b) = (op.a, op.b);
        let may_rel = |s: u32| pick_rel(may, s, &empty_r);
        let may_set = |s: u32| pick_set(may, s, &empty_s);
        match (op.code, &d) {
            (SetUnion | SetInter | SetDiff | SetCompl, Mask::Set(ds)) => {
                let (da, db) = match op.code {
                    SetInter => (ds.intersection(may_set(b)), ds.intersection(may_set(a))),
                    SetDiff => (ds.clone(), ds.intersection(may_set(a))),
                    _ => (ds.clone(), ds.clone()),
                };
                add(&mut dem, a, Mask::Set(da));
                add(&mut dem, b, Mask::Set(db));
            }
            (RelUnion | RelInter | RelDiff | RelCompl, Mask::Rel(dr)) => {
                let (da, db) = match op.code {
                    RelInter => (dr.intersection(may_rel(b)), dr.intersection(may_rel(a))),
                    RelDiff => (dr.clone(), dr.intersection(may_rel(a))),
                    _ => (dr.clone(), dr.clone()),
                };
                add(&mut dem, a, Mask::Rel(da));
                add(&mut dem, b, Mask::Rel(db));
            }
            (Seq, Mask::Rel(dr)) => {
                let (ma, mb) = (may_rel(a), may_rel(b));
                // da = ma ∩ (dr ; mb⁻¹), db = mb ∩ (ma⁻¹ ; dr).
                let da = within_compose(ma, dr, mb);
                let db = within_compose(mb, &ma.inverse(), &dr.inverse());
                add(&mut dem, a, Mask::Rel(da));
                add(&mut dem, b, Mask::Rel(db));
            }
            (Inv, Mask::Rel(dr)) => add(&mut dem, a, Mask::Rel(dr.inverse())),
            (Plus | Star, Mask::Rel(dr)) => {
                // The edges of `a` on a path between the ends of a
                // demanded pair: ma ∩ (back ; dr ; back), back = (ma*)⁻¹.
                let ma = may_rel(a);
                let reach = ma.reflexive_transitive_closure();
                let back = reach.inverse();
                let da = within_compose(ma, &back.compose(dr), &reach);
                add(&mut dem, a, Mask::Rel(da));
            }
            (Opt, Mask::Rel(dr)) => add(&mut dem, a, Mask::Rel(dr.clone())),
            (IdOn, Mask::Rel(dr)) => {
                let s = EventSet::from_iter(n, (0..n).filter(|&x| dr.contains(x, x)));
                add(&mut dem, a, Mask::Set(s));
            }
            (Prod, Mask::Rel(dr)) => {
                let (sa, sb) = (may_set(a), may_set(b));
                let rows = EventSet::from_iter(n, (0..n).filter(|&x| dr.row_meets_set(x, sb)));
                let mut cols = EventSet::empty(n);
                for x in sa.iter() {
                    cols.union_with(&dr.successors(x));
                }
                add(&mut dem, a, Mask::Set(rows));
                add(&mut dem, b, Mask::Set(cols));
            }
            (Domain | Range, Mask::Set(ds)) => {
                let all = EventSet::full(n);
                let r = match op.code {
                    Domain => Relation::product(ds, &all),
                    _ => Relation::product(&all, ds),
                };
                add(&mut dem, a, Mask::Rel(r));
            }
            // Constants, or a kind mismatch the encoder reports: whole.
            _ => {
                for s in op.operands() {
                    let m = full_of(s);
                    add(&mut dem, s, m);
                }
            }
        }
        dem[op.dst as usize] = Some(d);
    }
    dem
}

/// Per slot, the strict order of every execution (0: `co`, 1: `po`) its
/// value is contained in, if the operators show one: intersections and
/// differences keep their operand's, sequences and unions of parts of one
/// transitive order stay in it, and so do closures; a sequence with a
/// part of the identity keeps the other side's.
pub fn sub_orders(model: &Model, need_unit: &[bool]) -> Vec<Option<u8>> {
    use OpCode::*;
    let slots = model.slot_kinds().len();
    let mut ord: Vec<Option<u8>> = vec![None; slots];
    let mut sub_id = vec![false; slots];
    for (i, (name, _)) in model.inputs().iter().enumerate() {
        let s = model.input_slot(i) as usize;
        ord[s] = match name.as_str() {
            "co" => Some(0),
            "po" => Some(1),
            _ => None,
        };
    }
    for (ui, unit) in model.units().iter().enumerate() {
        let Unit::Op(op) = unit else { continue };
        if !need_unit[ui] {
            continue;
        }
        let get = |v: &Vec<Option<u8>>, s: u32| if s == NONE { None } else { v[s as usize] };
        let id = |s: u32| s != NONE && sub_id[s as usize];
        let (oa, ob) = (get(&ord, op.a), get(&ord, op.b));
        let (o, i) = match op.code {
            Id | IdOn => (None, true),
            RelInter => (oa.or(ob), id(op.a) || id(op.b)),
            RelDiff => (oa, id(op.a)),
            RelUnion => (if oa == ob { oa } else { None }, id(op.a) && id(op.b)),
            Seq if id(op.a) => (ob, id(op.b)),
            Seq if id(op.b) => (oa, false),
            Seq => (if oa == ob { oa } else { None }, false),
            Plus => (oa, id(op.a)),
            _ => (None, false),
        };
        ord[op.dst as usize] = o;
        sub_id[op.dst as usize] = i;
    }
    ord
}
