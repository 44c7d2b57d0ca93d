//! Threads (and whole workgroups) that are interchangeable.
//!
//! A *group* is a list of *units* — single threads in one scope instance,
//! or all the threads of one workgroup / CTA — such that exchanging two
//! units (the `i`-th thread of one with the `i`-th of the other, and
//! their private locations with each other's) maps the program to itself:
//! the same instructions (kinds, tags, registers; label names may differ,
//! one to one), the same placement up to the exchanged level, locations
//! that correspond one to one, with the same initial values, and are used
//! by no thread outside the two units. A model cannot tell such units apart — its relations
//! are built from program order, locations and scope instances, all
//! preserved — so the exchange maps every candidate execution to one the
//! model equally accepts, and a property that names none of the exchanged
//! things (a race, a cut thread, undefined behaviour; a condition on
//! other locations) holds of both or of neither.
//!
//! The symbolic engine then needs to consider one execution per orbit
//! (`symbolic::symmetry_breaking`): the units of a group are sorted by the
//! coherence order of their first write to a location they share.

use crate::ir::{Addr, Instr, InstrKind, LocId, Program, Term, ThreadId};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Interchangeable units: each unit is threads in order; every unit of a
/// group has as many threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub units: Vec<Vec<ThreadId>>,
    /// Whether exchanged threads' instructions also have the same
    /// positions (kernels: one source); otherwise (litmus tests: one
    /// column per thread) an exchange maps a race between two positions
    /// to a race between two others, and only the verdict, not the list
    /// of racing pairs, may use the reduction.
    pub same_positions: bool,
    /// The placement level (an index into `Placement::ids`, innermost
    /// first) whose instances the units are; `None`: single threads of one
    /// innermost instance. An exchange permutes the children of one
    /// instance of the level above (what a progress model of that level
    /// schedules).
    pub level: Option<usize>,
}

/// The groups of a program. `kept`: the terms the check reads in final
/// states (safety: `safety::observables`, which is every location of a
/// test without condition or `locations`; races: none), which an
/// exchange must not move; the filter's terms are always kept.
pub fn groups(p: &Program, kept: &[Term]) -> Vec<Group> {
    if !p.ssw.is_empty() {
        // Vulkan `ssw` names particular threads.
        return vec![];
    }
    let users = location_users(p);
    let fixed_terms = terms(p, kept);
    let mut out = Vec::new();
    // Single threads with the same placement.
    let mut by_place: BTreeMap<(Vec<i64>, Option<i64>), Vec<ThreadId>> = BTreeMap::new();
    for (t, th) in p.threads.iter().enumerate() {
        by_place
            .entry((th.placement.ids.clone(), th.placement.warp))
            .or_default()
            .push(t);
    }
    for threads in by_place.values() {
        let units = threads.iter().map(|&t| vec![t]).collect();
        out.extend(classes(p, units, None, &users, &fixed_terms));
    }
    // Whole scope instances at each level but the outermost: a CTA of
    // the GPU (PTX), a subgroup of its workgroup or a workgroup of its
    // queue family (Vulkan).
    let levels = p.threads.first().map_or(0, |t| t.placement.ids.len());
    for level in 0..levels.saturating_sub(1) {
        // Instances under the same outer instances, each its threads in order.
        let mut inst: BTreeMap<Vec<i64>, BTreeMap<i64, Vec<ThreadId>>> = BTreeMap::new();
        for (t, th) in p.threads.iter().enumerate() {
            let ids = &th.placement.ids;
            inst.entry(ids[level + 1..].to_vec())
                .or_default()
                .entry(ids[level])
                .or_default()
                .push(t);
        }
        for units in inst.into_values() {
            let units: Vec<Vec<ThreadId>> = units.into_values().collect();
            if units.len() > 1 {
                out.extend(classes(p, units, Some(level), &users, &fixed_terms));
            }
        }
    }
    out
}

/// Threads that access each location (by virtual and physical id).
fn location_users(p: &Program) -> HashMap<LocId, HashSet<ThreadId>> {
    let mut users: HashMap<LocId, HashSet<ThreadId>> = HashMap::new();
    for (t, th) in p.threads.iter().enumerate() {
        for i in &th.instrs {
            if let Some(a) = i.kind.addr() {
                for &l in a.cells() {
                    users.entry(l).or_default().insert(t);
                    users.entry(p.locations[l].phys).or_default().insert(t);
                }
            }
        }
    }
    users
}

/// The locations and thread registers of the filter and of `kept`.
fn terms(p: &Program, kept: &[Term]) -> (HashSet<LocId>, HashSet<ThreadId>) {
    let mut locs = HashSet::new();
    let mut threads = HashSet::new();
    let filter = p.filter.iter().flat_map(|c| c.terms());
    for t in filter.chain(kept.iter().cloned()) {
        match t {
            Term::Loc(l) => {
                locs.insert(l);
            }
            Term::Reg(th, _) => {
                threads.insert(th);
            }
            Term::Const(_) => {}
        }
    }
    (locs, threads)
}

/// Splits `units` into groups of units interchangeable with the group's
/// first unit (and so with each other: exchanges with one unit generate
/// every permutation). `level`: the scope level whose instances the
/// units are (`None`: single threads).
fn classes(
    p: &Program,
    units: Vec<Vec<ThreadId>>,
    level: Option<usize>,
    users: &HashMap<LocId, HashSet<ThreadId>>,
    fixed: &(HashSet<LocId>, HashSet<ThreadId>),
) -> Vec<Group> {
    let mut left = units;
    let mut out = Vec::new();
    while let Some(first) = left.first().cloned() {
        let (same, rest): (Vec<_>, Vec<_>) = left
            .into_iter()
            .partition(|u| *u == first || exchangeable(p, &first, u, level, users, fixed));
        if same.len() > 1 {
            let same_positions = same[1..].iter().all(|u| {
                first.iter().zip(u).all(|(&a, &b)| {
                    let (x, y) = (&p.threads[a].instrs, &p.threads[b].instrs);
                    x.iter().zip(y).all(|(i, j)| i.pos == j.pos)
                })
            });
            out.push(Group {
                units: same,
                same_positions,
                level,
            });
        }
        left = rest;
    }
    out
}

/// Whether exchanging units `a` and `b` maps the program to itself.
fn exchangeable(
    p: &Program,
    a: &[ThreadId],
    b: &[ThreadId],
    level: Option<usize>,
    users: &HashMap<LocId, HashSet<ThreadId>>,
    fixed: &(HashSet<LocId>, HashSet<ThreadId>),
) -> bool {
    if a.len() != b.len() || a.iter().chain(b).any(|t| fixed.1.contains(t)) {
        return false;
    }
    let both: HashSet<ThreadId> = a.iter().chain(b).copied().collect();
    let mut map: HashMap<LocId, LocId> = HashMap::new();
    for (&ta, &tb) in a.iter().zip(b) {
        let (x, y) = (&p.threads[ta], &p.threads[tb]);
        if x.instrs.len() != y.instrs.len() || x.init_regs != y.init_regs {
            return false;
        }
        // The same place, but for the exchanged instance.
        let (px, py) = (&x.placement, &y.placement);
        let same_place = px.warp == py.warp
            && px.ids.len() == py.ids.len()
            && px
                .ids
                .iter()
                .zip(&py.ids)
                .enumerate()
                .all(|(k, (i, j))| Some(k) == level || i == j);
        if !same_place {
            return false;
        }
        // Labels are the thread's own: renamed one to one.
        let mut labels = Labels::default();
        for (i, j) in x.instrs.iter().zip(&y.instrs) {
            if !same_instr(i, j, &mut map, &mut labels) {
                return false;
            }
        }
    }
    // The map must exchange: a bijection between locations only the two
    // units use (the others map to themselves), alike in everything but
    // their names.
    let mut image = HashSet::new();
    for (&from, &to) in &map {
        if !image.insert(to) {
            return false;
        }
        if from == to {
            continue;
        }
        let (lf, lt) = (&p.locations[from], &p.locations[to]);
        let private = |l: LocId| users.get(&l).is_none_or(|u| u.is_subset(&both));
        if !private(from)
            || !private(to)
            || fixed.0.contains(&from)
            || fixed.0.contains(&to)
            || lf.phys != from
            || lt.phys != to
            || lf.virt != from
            || lt.virt != to
            || lf.init != lt.init
            || lf.init_arbitrary != lt.init_arbitrary
            || lf.space != lt.space
        {
            return false;
        }
        // Exchanged, not merely moved: `to` maps back to `from`.
        if map.get(&to).is_some_and(|&back| back != from) {
            return false;
        }
    }
    true
}

/// A one-to-one renaming of one thread's labels to another's.
#[derive(Default)]
struct Labels<'a> {
    to: HashMap<&'a str, &'a str>,
    from: HashMap<&'a str, &'a str>,
}

impl<'a> Labels<'a> {
    fn link(&mut self, x: &'a str, y: &'a str) -> bool {
        *self.to.entry(x).or_insert(y) == y && *self.from.entry(y).or_insert(x) == x
    }
}

/// Equal instructions, up to the locations (recorded in `map`) and the
/// thread's label names (`labels`).
fn same_instr<'a>(
    i: &'a Instr,
    j: &'a Instr,
    map: &mut HashMap<LocId, LocId>,
    labels: &mut Labels<'a>,
) -> bool {
    // Positions and texts may differ (litmus columns, location names).
    if i.tags != j.tags || i.halves != j.halves || i.failed != j.failed {
        return false;
    }
    let mut link = |x: &Addr, y: &Addr| -> bool {
        let (cx, cy) = (x.cells(), y.cells());
        if cx.len() != cy.len() || x.index() != y.index() {
            return false;
        }
        cx.iter()
            .zip(cy)
            .all(|(&l, &m)| *map.entry(l).or_insert(m) == m)
    };
    use InstrKind as K;
    match (&i.kind, &j.kind) {
        (K::Load { dst: d1, addr: a1 }, K::Load { dst: d2, addr: a2 }) => d1 == d2 && link(a1, a2),
        (
            K::Store {
                addr: a1,
                value: v1,
            },
            K::Store {
                addr: a2,
                value: v2,
            },
        ) => v1 == v2 && link(a1, a2),
        (
            K::Rmw {
                dst: d1,
                addr: a1,
                op: o1,
                operand: v1,
            },
            K::Rmw {
                dst: d2,
                addr: a2,
                op: o2,
                operand: v2,
            },
        ) => d1 == d2 && o1 == o2 && v1 == v2 && link(a1, a2),
        (K::Label(x), K::Label(y)) | (K::Goto(x), K::Goto(y)) => labels.link(x, y),
        (
            K::Branch {
                op: o1,
                a: a1,
                b: b1,
                target: t1,
            },
            K::Branch {
                op: o2,
                a: a2,
                b: b2,
                target: t2,
            },
        ) => o1 == o2 && a1 == a2 && b1 == b2 && labels.link(t1, t2),
        (x, y) => x == y,
    }
}

/// The first write of the units' common code to a location no exchange
/// moves, as (position in the unit, instruction index): its first
/// executed instance sorts the units.
pub fn sorting_write(p: &Program, g: &Group) -> Option<(usize, usize)> {
    let mut moved: HashSet<LocId> = HashSet::new();
    let first = &g.units[0];
    for u in &g.units[1..] {
        for (&ta, &tb) in first.iter().zip(u) {
            for (i, j) in p.threads[ta].instrs.iter().zip(&p.threads[tb].instrs) {
                if let (Some(x), Some(y)) = (i.kind.addr(), j.kind.addr()) {
                    for (&l, &m) in x.cells().iter().zip(y.cells()) {
                        if l != m {
                            moved.insert(l);
                            moved.insert(m);
                        }
                    }
                }
            }
        }
    }
    first.iter().enumerate().find_map(|(pos, &t)| {
        p.threads[t].instrs.iter().enumerate().find_map(|(k, i)| {
            let addr = match &i.kind {
                // A compare-and-swap's write is an event when it succeeds.
                InstrKind::Store { addr, .. } | InstrKind::Rmw { addr, .. } => addr,
                _ => return None,
            };
            match addr {
                Addr::Fixed(l) if !moved.contains(l) => Some((pos, k)),
                _ => None,
            }
        })
    })
}
