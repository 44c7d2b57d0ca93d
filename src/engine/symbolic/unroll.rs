//! From thread paths to symbolic events.
//!
//! Each thread is unrolled exactly as the explicit engine does it
//! ([`thread_paths`]: value domains, loop bound, side-effect-free
//! spinloops, barrier waits, dependencies), so the two engines agree on
//! what a thread can do by construction. The symbolic engine then picks one
//! path per thread with a one-hot *selector*, and merges the events of all
//! paths of a thread that come from the same dynamic instance of an
//! instruction (same instruction, same kind, same occurrence number) into
//! one *potential event*, executed iff a path containing it is selected.
//! Its value, barrier id, `po`, dependencies… are literals over the
//! selectors (constants whenever every path agrees).

use super::rel::{RelAcc, SymRel};
use super::sat::{Lit, Sat, FALSE, TRUE};
use crate::diag::Result;
use crate::engine::exec::{Event, EventKind, Skeleton, Vocabulary};
use crate::engine::paths::{
    thread_paths, value_domains, PathEnd, PathEventKind, PathMode, ThreadPath,
};
use crate::ir::{InstrKind, Program};
use crate::rel::Relation;
use std::collections::{BTreeSet, HashMap};

/// A potential event.
#[derive(Clone, Debug)]
pub struct SymEvent {
    /// The static description (value, barrier and stuck fields unused).
    pub ev: Event,
    pub exec: Lit,
    /// Memory events: the possible values, each with its literal (relative
    /// to `exec`: exactly one holds when the event is executed).
    pub values: Vec<(i64, Lit)>,
    /// Barriers: runtime ids and quorums, relative to `exec`.
    pub barrier_ids: Vec<(i64, Lit)>,
    pub barrier_counts: Vec<(Option<i64>, Lit)>,
    pub arrive: bool,
    /// The selected path waits forever at this barrier.
    pub stuck: Lit,
}

impl SymEvent {
    pub fn value_lit(&self, v: i64) -> Lit {
        self.values
            .iter()
            .find(|(x, _)| *x == v)
            .map_or(FALSE, |(_, l)| *l)
    }
}

pub struct ThreadUnroll {
    pub paths: Vec<ThreadPath>,
    /// One selector per path (exactly one holds).
    pub sel: Vec<Lit>,
    /// Per path, the potential event of each of its events.
    pub path_events: Vec<Vec<usize>>,
    /// The thread's potential events, in a program-order-compatible order.
    pub events: Vec<usize>,
    pub done: Lit,
    pub cut: Lit,
}

pub struct Unrolled<'p> {
    pub program: &'p Program,
    pub vocab: Vocabulary,
    pub events: Vec<SymEvent>,
    pub threads: Vec<ThreadUnroll>,
    /// Per physical location: its initial write.
    pub init_of: Vec<Option<usize>>,
    /// Per physical location: the potential non-initial writes.
    pub writes: Vec<Vec<usize>>,
    pub reads: Vec<usize>,
    pub po: SymRel,
    pub addr: SymRel,
    pub data: SymRel,
    pub ctrl: SymRel,
    pub rmw: SymRel,
}

type Key = (usize, u8, usize);

fn kind_code(k: &PathEventKind) -> u8 {
    match k {
        PathEventKind::Read => 0,
        PathEventKind::Write => 1,
        PathEventKind::Fence => 2,
        PathEventKind::Barrier { .. } => 3,
    }
}

/// Merge keys of a path's events: (instruction, kind, occurrence). The
/// write half of an RMW takes the occurrence of its read half, so `rmw`
/// pairs are the same in every path.
fn keys(path: &ThreadPath) -> Vec<Key> {
    let mut count: HashMap<(usize, u8), usize> = HashMap::new();
    let mut out: Vec<Key> = Vec::with_capacity(path.events.len());
    for e in &path.events {
        let code = kind_code(&e.kind);
        let occ = match e.rmw_read {
            Some(r) if r < out.len() => out[r].2,
            _ => {
                let c = count.entry((e.instr, code)).or_insert(0);
                *c += 1;
                *c - 1
            }
        };
        out.push((e.instr, code, occ));
    }
    out
}

/// Orders keys consistently with every path where possible (Kahn's
/// algorithm over consecutive pairs, ties by first appearance).
fn order_keys(all: &[Vec<Key>]) -> Vec<Key> {
    let mut first: Vec<Key> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    for ks in all {
        for k in ks {
            if !index.contains_key(k) {
                index.insert(*k, first.len());
                first.push(*k);
            }
        }
    }
    let m = first.len();
    let mut succ: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); m];
    for ks in all {
        for w in ks.windows(2) {
            succ[index[&w[0]]].insert(index[&w[1]]);
        }
    }
    let mut indeg = vec![0usize; m];
    for s in &succ {
        for &b in s {
            indeg[b] += 1;
        }
    }
    let mut out = Vec::with_capacity(m);
    let mut done = vec![false; m];
    let mut ready: BTreeSet<usize> = (0..m).filter(|&i| indeg[i] == 0).collect();
    while out.len() < m {
        let next = match ready.pop_first() {
            Some(i) => i,
            // A cycle (paths disagree on the order): take the first left.
            None => match (0..m).find(|&i| !done[i]) {
                Some(i) => i,
                None => break,
            },
        };
        if done[next] {
            continue;
        }
        done[next] = true;
        out.push(first[next]);
        for &s in &succ[next] {
            indeg[s] = indeg[s].saturating_sub(1);
            if indeg[s] == 0 && !done[s] {
                ready.insert(s);
            }
        }
    }
    out
}

pub fn init_reg(p: &Program, th: usize, r: &str) -> i64 {
    p.threads
        .get(th)
        .and_then(|t| t.init_regs.iter().find(|(n, _)| n == r))
        .map_or(0, |(_, v)| *v)
}

/// Groups `(value, selector)` pairs into one literal per value. A value
/// shared by every listed path becomes `TRUE` (values are relative to the
/// event being executed).
pub fn group<T: PartialEq + Clone>(sat: &mut Sat, items: &[(T, Lit)]) -> Vec<(T, Lit)> {
    let mut groups: Vec<(T, Vec<Lit>)> = Vec::new();
    for (v, l) in items {
        match groups.iter_mut().find(|(x, _)| x == v) {
            Some(g) => g.1.push(*l),
            None => groups.push((v.clone(), vec![*l])),
        }
    }
    if groups.len() == 1 {
        return vec![(groups[0].0.clone(), TRUE)];
    }
    groups
        .into_iter()
        .map(|(v, ls)| {
            let l = sat.or(&ls);
            (v, l)
        })
        .collect()
}

type PairPaths = HashMap<(usize, usize), Vec<usize>>;

impl<'p> Unrolled<'p> {
    pub fn new(p: &'p Program, bound: u32, sat: &mut Sat) -> Result<Self> {
        let vocab = Vocabulary::for_program(p);
        let dom = value_domains(p, bound)?;
        let mut per_thread = Vec::new();
        for t in &p.threads {
            per_thread.push(thread_paths(p, t, bound, &dom, PathMode::Safety)?);
        }
        let tag = |t: &str| vocab.index(t).unwrap_or(0);
        let (iw, i_tag, w_tag, m_tag, r_tag, rmw_tag) = (
            tag("IW"),
            tag("I"),
            tag("W"),
            tag("M"),
            tag("R"),
            tag("RMW"),
        );
        let nloc = p.locations.len();
        let mut events: Vec<SymEvent> = Vec::new();
        let mut init_of = vec![None; nloc];
        for (li, l) in p.locations.iter().enumerate() {
            if l.phys == li {
                init_of[li] = Some(events.len());
                events.push(SymEvent {
                    ev: Event {
                        thread: None,
                        index: li,
                        instr: None,
                        kind: EventKind::Init,
                        loc: Some(li),
                        phys: Some(li),
                        value: l.init,
                        tags: vec![iw, i_tag, w_tag, m_tag],
                        barrier: None,
                        stuck: false,
                    },
                    exec: TRUE,
                    values: vec![(l.init, TRUE)],
                    barrier_ids: vec![],
                    barrier_counts: vec![],
                    arrive: false,
                    stuck: FALSE,
                });
            }
        }
        let mut threads = Vec::new();
        // Pairs per relation: (a, b) -> global paths where it holds.
        let mut po_paths: PairPaths = HashMap::new();
        let mut dep_paths: [PairPaths; 4] = Default::default();
        let mut all_sel: Vec<Lit> = Vec::new();
        // Per event: global path indices containing it.
        let mut containing: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
        for (ti, paths) in per_thread.into_iter().enumerate() {
            let th = &p.threads[ti];
            let ks: Vec<Vec<Key>> = paths.iter().map(keys).collect();
            let order = order_keys(&ks);
            let base = events.len();
            let pos: HashMap<Key, usize> = order
                .iter()
                .enumerate()
                .map(|(i, k)| (*k, base + i))
                .collect();
            let sel: Vec<Lit> = if paths.len() == 1 {
                vec![TRUE]
            } else {
                (0..paths.len()).map(|_| sat.var()).collect()
            };
            sat.exactly_one(&sel);
            let path_base = all_sel.len();
            all_sel.extend(&sel);
            for &(instr, code, _) in &order {
                let ins = &th.instrs[instr];
                let mut tags: Vec<usize> = ins.tags.iter().map(|t| tag(t)).collect();
                let kind = match code {
                    0 => {
                        tags.extend([r_tag, m_tag]);
                        EventKind::Read
                    }
                    1 => {
                        tags.extend([w_tag, m_tag]);
                        EventKind::Write
                    }
                    2 => EventKind::Fence,
                    _ => EventKind::Barrier,
                };
                if matches!(ins.kind, InstrKind::Rmw { .. }) {
                    tags.push(rmw_tag);
                }
                tags.sort_unstable();
                tags.dedup();
                let loc = match &ins.kind {
                    InstrKind::Load { addr, .. }
                    | InstrKind::Store { addr, .. }
                    | InstrKind::Rmw { addr, .. } => Some(*addr),
                    _ => None,
                };
                let arrive = matches!(ins.kind, InstrKind::Barrier { arrive: true, .. });
                let index = events.len() - base;
                events.push(SymEvent {
                    ev: Event {
                        thread: Some(ti),
                        index,
                        instr: Some(instr),
                        kind,
                        loc,
                        phys: loc.map(|l| p.locations[l].phys),
                        value: 0,
                        tags,
                        barrier: None,
                        stuck: false,
                    },
                    exec: FALSE,
                    values: vec![],
                    barrier_ids: vec![],
                    barrier_counts: vec![],
                    arrive,
                    stuck: FALSE,
                });
                containing.push(Vec::new());
            }
            let mut path_events = Vec::new();
            let mut vals: HashMap<usize, Vec<(i64, Lit)>> = HashMap::new();
            let mut ids: HashMap<usize, Vec<(i64, Lit)>> = HashMap::new();
            let mut counts: HashMap<usize, Vec<(Option<i64>, Lit)>> = HashMap::new();
            let mut stuck: HashMap<usize, Vec<Lit>> = HashMap::new();
            let (mut done, mut cut) = (Vec::new(), Vec::new());
            for (pi, path) in paths.iter().enumerate() {
                let gp = path_base + pi;
                let s = sel[pi];
                let evs: Vec<usize> = ks[pi].iter().map(|k| pos[k]).collect();
                for (k, e) in path.events.iter().enumerate() {
                    let g = evs[k];
                    containing[g].push(gp);
                    match &e.kind {
                        PathEventKind::Read | PathEventKind::Write => {
                            vals.entry(g).or_default().push((e.value, s));
                        }
                        PathEventKind::Barrier { id, count, .. } => {
                            ids.entry(g).or_default().push((*id, s));
                            counts.entry(g).or_default().push((*count, s));
                        }
                        PathEventKind::Fence => {}
                    }
                    for &h in &evs[k + 1..] {
                        po_paths.entry((g, h)).or_default().push(gp);
                    }
                    for (d, list) in [&e.addr_deps, &e.data_deps, &e.ctrl_deps]
                        .into_iter()
                        .enumerate()
                    {
                        for &src in list {
                            if let Some(&s_ev) = evs.get(src) {
                                dep_paths[d].entry((s_ev, g)).or_default().push(gp);
                            }
                        }
                    }
                    if let Some(r) = e.rmw_read {
                        if let Some(&r_ev) = evs.get(r) {
                            dep_paths[3].entry((r_ev, g)).or_default().push(gp);
                        }
                    }
                }
                match path.end {
                    PathEnd::Done => done.push(s),
                    PathEnd::Cut => cut.push(s),
                    PathEnd::Stuck => {
                        if let Some(&last) = evs.last() {
                            stuck.entry(last).or_default().push(s);
                        }
                    }
                    PathEnd::Spinning => {}
                }
                path_events.push(evs);
            }
            for g in base..events.len() {
                let c = &containing[g];
                events[g].exec = if c.len() == paths.len() {
                    TRUE
                } else {
                    let ls: Vec<Lit> = c.iter().map(|&gp| all_sel[gp]).collect();
                    sat.or(&ls)
                };
                if let Some(v) = vals.get(&g) {
                    events[g].values = group(sat, v);
                }
                if let Some(v) = ids.get(&g) {
                    events[g].barrier_ids = group(sat, v);
                }
                if let Some(v) = counts.get(&g) {
                    events[g].barrier_counts = group(sat, v);
                }
                if let Some(v) = stuck.get(&g) {
                    events[g].stuck = sat.or(v);
                }
            }
            let done = sat.or(&done);
            let cut = sat.or(&cut);
            threads.push(ThreadUnroll {
                paths,
                sel,
                path_events,
                events: (base..events.len()).collect(),
                done,
                cut,
            });
        }
        let n = events.len();
        for c in containing.iter_mut() {
            c.sort_unstable();
            c.dedup();
        }
        let rel_of = |map: &PairPaths, sat: &mut Sat| -> SymRel {
            let mut acc = RelAcc::new(n);
            for (&(a, b), holds) in map {
                // Paths containing both events.
                let both = containing[a]
                    .iter()
                    .filter(|x| containing[b].binary_search(x).is_ok())
                    .count();
                let mut holds = holds.clone();
                holds.sort_unstable();
                holds.dedup();
                let lit = if holds.len() == both {
                    TRUE
                } else {
                    let ls: Vec<Lit> = holds.iter().map(|&gp| all_sel[gp]).collect();
                    sat.or(&ls)
                };
                acc.add(a, b, lit);
            }
            acc.finish(sat)
        };
        let po = rel_of(&po_paths, sat);
        let addr = rel_of(&dep_paths[0], sat);
        let data = rel_of(&dep_paths[1], sat);
        let ctrl = rel_of(&dep_paths[2], sat);
        let rmw = rel_of(&dep_paths[3], sat);
        let mut writes = vec![Vec::new(); nloc];
        let mut reads = Vec::new();
        for (i, e) in events.iter().enumerate() {
            match (e.ev.kind, e.ev.phys) {
                (EventKind::Write, Some(ph)) => writes[ph].push(i),
                (EventKind::Read, Some(_)) => reads.push(i),
                _ => {}
            }
        }
        Ok(Unrolled {
            program: p,
            vocab,
            events,
            threads,
            init_of,
            writes,
            reads,
            po,
            addr,
            data,
            ctrl,
            rmw,
        })
    }

    pub fn n(&self) -> usize {
        self.events.len()
    }

    pub fn exec(&self) -> Vec<Lit> {
        self.events.iter().map(|e| e.exec).collect()
    }

    /// A skeleton over the potential events, for the static relations
    /// ([`Skeleton::static_relation`] only reads event descriptions).
    pub fn pseudo_skeleton(&self) -> Skeleton<'p> {
        let n = self.n();
        Skeleton {
            program: self.program,
            events: self.events.iter().map(|e| e.ev.clone()).collect(),
            init_of: self.init_of.clone(),
            writes: self.writes.clone(),
            reads: vec![],
            rmw: vec![],
            thread_events: self.threads.iter().map(|t| t.events.clone()).collect(),
            po: Relation::empty(n),
            addr: Relation::empty(n),
            data: Relation::empty(n),
            ctrl: Relation::empty(n),
        }
    }

    /// The final value of register `r` of thread `th`, per value
    /// (`fallback`: the value of a register no path assigns).
    pub fn final_reg(&self, th: usize, r: &str, fallback: i64, sat: &mut Sat) -> Vec<(i64, Lit)> {
        let Some(t) = self.threads.get(th) else {
            return vec![(0, TRUE)];
        };
        let items: Vec<(i64, Lit)> = t
            .paths
            .iter()
            .zip(&t.sel)
            .map(|(path, &s)| {
                let v = path
                    .regs
                    .iter()
                    .find(|(n, _)| n == r)
                    .map_or(fallback, |(_, v)| *v);
                (v, s)
            })
            .collect();
        if items.is_empty() {
            return vec![(fallback, TRUE)];
        }
        group(sat, &items)
    }
}
