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
use crate::engine::paths::{thread_paths, value_domains, PathEnd, PathEventKind, ThreadPath};
use crate::ir::{InstrKind, Location, Program};
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
    /// Memory events of a guarded unrolling: the value as a bit-vector
    /// (then `values` is empty).
    pub bits: Vec<Lit>,
    /// Barriers: runtime ids and quorums, relative to `exec`.
    pub barrier_ids: Vec<(i64, Lit)>,
    pub barrier_counts: Vec<(Option<i64>, Lit)>,
    pub arrive: bool,
    /// The selected path waits forever at this barrier.
    pub stuck: Lit,
    /// The read of a compare-and-swap with failure tags of its own
    /// ([`crate::ir::Instr::failed`]): the literal that holds when its
    /// comparison fails, and its tags then (`ev.tags`: when it succeeds).
    pub failed: Option<(Lit, Vec<usize>)>,
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
    /// The thread stops at the back-edge of a spinning iteration
    /// ([`PathEnd::Spinning`]): no final state, but a prefix in which
    /// another thread may be cut by the bound or reach undefined
    /// behaviour, as in the explicit engine.
    pub spinning: Lit,
    /// The thread stops early in a race-prefix unrolling (before an
    /// iteration, or after a futile one): an execution prefix, replayed
    /// as [`PathEnd::Paused`].
    pub paused: Lit,
    /// The thread reaches undefined behaviour (`Unreachable`, an address
    /// out of bounds); it then counts as done.
    pub ub: Lit,
    /// A straight-line thread encoded with read-value variables instead
    /// of one path per combination of read values (see [`straight_line`]).
    pub sym: Option<SymThread>,
    /// A thread of a guarded unrolling (then `paths` is empty).
    pub guarded: Option<super::guarded::GuardedThread>,
}

/// A straight-line thread: one path whose values are literals.
pub struct SymThread {
    /// The path's events (values unset) with their value literals.
    pub values: Vec<Vec<(i64, Lit)>>,
    /// Final registers.
    pub regs: Vec<(String, Vec<(i64, Lit)>)>,
}

/// Paths above which a straight-line thread is encoded symbolically.
const SYMBOLIC_THREAD_PATHS: f64 = 256.0;

/// Above this many read-value combinations in one straight-line thread,
/// the explicit value domains are not computed.
const HUGE_THREAD_PATHS: f64 = 50_000.0;

/// The number of read-value combinations of a thread (its paths, when it
/// is straight-line).
fn read_combinations(
    p: &Program,
    t: &crate::ir::Thread,
    dom: &crate::engine::paths::Domains,
) -> f64 {
    t.instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Load { addr, .. } | InstrKind::Rmw { addr, .. } => Some(
                addr.cells()
                    .iter()
                    .filter_map(|&c| dom.get(&p.locations[c].phys))
                    .map(|d| d.len() as f64)
                    .sum::<f64>(),
            ),
            _ => None,
        })
        .product()
}

/// Whether `t` has no control flow, barriers, compare-and-swap, division
/// or run-time addresses (each thread path differs from the others only
/// in values).
fn straight_line(t: &crate::ir::Thread) -> bool {
    use crate::ir::{BinOp, RmwOp};
    t.instrs.iter().all(|i| match &i.kind {
        k if k.addr().is_some_and(|a| a.index().is_some()) => false,
        InstrKind::Branch { .. }
        | InstrKind::Goto(_)
        | InstrKind::Barrier { .. }
        | InstrKind::Havoc { .. }
        | InstrKind::Input { .. }
        | InstrKind::Unreachable { .. }
        | InstrKind::Infeasible => false,
        InstrKind::Rmw { op, .. } => !matches!(op, RmwOp::Cas { .. }),
        InstrKind::Local { op, .. } => !matches!(op, BinOp::Div | BinOp::Rem),
        _ => true,
    })
}

/// Symbolic value of an operand.
fn operand(o: &crate::ir::Operand, regs: &HashMap<String, Vec<(i64, Lit)>>) -> Vec<(i64, Lit)> {
    match o {
        crate::ir::Operand::Const(c) => vec![(*c, TRUE)],
        crate::ir::Operand::Reg(r) => regs.get(r).cloned().unwrap_or_else(|| vec![(0, TRUE)]),
    }
}

/// `f` applied to every pair of cases, grouped by result.
fn combine(
    sat: &mut Sat,
    a: &[(i64, Lit)],
    b: &[(i64, Lit)],
    f: impl Fn(i64, i64) -> i64,
) -> Vec<(i64, Lit)> {
    let mut groups: Vec<(i64, Vec<Lit>)> = Vec::new();
    for &(va, la) in a {
        for &(vb, lb) in b {
            let l = sat.and2(la, lb);
            if l == FALSE {
                continue;
            }
            let v = f(va, vb);
            match groups.iter_mut().find(|(x, _)| *x == v) {
                Some(g) => g.1.push(l),
                None => groups.push((v, vec![l])),
            }
        }
    }
    groups
        .into_iter()
        .map(|(v, ls)| {
            let l = sat.or(&ls);
            (v, l)
        })
        .collect()
}

/// Per physical location, an over-approximation of the values writes may
/// store: registers are value sets (flow-insensitive), iterated to a
/// fixpoint. Used when the explicit domains need too many paths; extra
/// values only add read guesses no execution can justify.
fn abstract_domains(p: &Program) -> Result<crate::engine::paths::Domains> {
    use crate::engine::paths::{eval_binop, rmw_value};
    use crate::ir::RmwOp;
    let mut dom: crate::engine::paths::Domains = HashMap::new();
    for l in &p.locations {
        dom.entry(l.phys).or_default().insert(l.init);
    }
    let too_many = || {
        crate::diag::Error::new(
            crate::diag::ErrorKind::Unsupported,
            "unsupported: more than 64 distinct values for one location",
        )
    };
    loop {
        let before = dom.clone();
        for t in &p.threads {
            let mut regs: HashMap<String, BTreeSet<i64>> = HashMap::new();
            for (r, v) in &t.init_regs {
                regs.entry(r.clone()).or_default().insert(*v);
            }
            loop {
                let snapshot = regs.clone();
                let val = |o: &crate::ir::Operand, regs: &HashMap<String, BTreeSet<i64>>| match o {
                    crate::ir::Operand::Const(c) => BTreeSet::from([*c]),
                    crate::ir::Operand::Reg(r) => {
                        let mut s = regs.get(r).cloned().unwrap_or_default();
                        s.insert(0);
                        s
                    }
                };
                for ins in &t.instrs {
                    match &ins.kind {
                        InstrKind::Load { dst, addr } => {
                            for &c in addr.cells() {
                                let d = dom.get(&p.locations[c].phys).cloned();
                                regs.entry(dst.clone())
                                    .or_default()
                                    .extend(d.unwrap_or_default());
                            }
                        }
                        // Free inputs are refused before (`Unrolled::new`).
                        InstrKind::Input { dst, input } => {
                            let v = p.inputs.get(*input).and_then(|i| i.value);
                            regs.entry(dst.clone()).or_default().extend(v);
                        }
                        InstrKind::Local { dst, op, a, b } => {
                            let (va, vb) = (val(a, &regs), val(b, &regs));
                            let mut out = BTreeSet::new();
                            for &x in &va {
                                for &y in &vb {
                                    if let Some(z) = eval_binop(*op, x, y) {
                                        out.insert(z);
                                    }
                                }
                            }
                            regs.entry(dst.clone()).or_default().extend(out);
                        }
                        InstrKind::Store { addr, value } => {
                            let v = val(value, &regs);
                            for &c in addr.cells() {
                                dom.entry(p.locations[c].phys).or_default().extend(&v);
                            }
                        }
                        InstrKind::Rmw {
                            dst,
                            addr,
                            op,
                            operand,
                        } => {
                            let v = val(operand, &regs);
                            for &c in addr.cells() {
                                let ph = p.locations[c].phys;
                                let old = dom.get(&ph).cloned().unwrap_or_default();
                                let mut new = BTreeSet::new();
                                for &o in &old {
                                    for &x in &v {
                                        new.insert(match op {
                                            RmwOp::Cas { .. } => x,
                                            other => rmw_value(other, o, x),
                                        });
                                    }
                                }
                                dom.entry(ph).or_default().extend(new);
                                if let Some(d) = dst {
                                    regs.entry(d.clone()).or_default().extend(old);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if regs.values().any(|s| s.len() > 64) || dom.values().any(|s| s.len() > 64) {
                    return Err(too_many());
                }
                if regs == snapshot {
                    break;
                }
            }
        }
        if dom == before {
            return Ok(dom);
        }
    }
}

pub struct Unrolled<'p> {
    pub program: &'p Program,
    pub bound: u32,
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
    /// The value of each input of the program (guarded unrollings; the
    /// path enumeration takes fixed inputs from the program).
    pub inputs: Vec<super::bv::Bv>,
}

/// (instruction, kind code, occurrence, location): the location keeps
/// accesses of one instruction to different cells (run-time addresses)
/// apart, so `loc` stays static per potential event.
type Key = (usize, u8, usize, usize);

fn kind_code(k: &PathEventKind) -> u8 {
    match k {
        PathEventKind::Read => 0,
        PathEventKind::Write => 1,
        PathEventKind::Fence => 2,
        PathEventKind::Barrier { .. } => 3,
    }
}

/// Merge keys of a path's events: (instruction, kind, occurrence,
/// location). The write half of an RMW takes the occurrence of its read
/// half, so `rmw` pairs are the same in every path.
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
        out.push((e.instr, code, occ, e.loc.unwrap_or(usize::MAX)));
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

/// An event's tags: its instruction's, plus `R`/`W`, `M` and `RMW` from
/// its kind (as [`Skeleton`] tags explicit events).
pub fn tags_of(vocab: &Vocabulary, ins: &crate::ir::Instr, kind: EventKind) -> Vec<usize> {
    with_kind_tags(vocab, ins, kind, ins.event_tags(kind == EventKind::Write))
}

/// The tags of the read of a compare-and-swap whose comparison fails.
pub fn failed_tags_of(vocab: &Vocabulary, ins: &crate::ir::Instr) -> Vec<usize> {
    with_kind_tags(vocab, ins, EventKind::Read, ins.failed_read_tags())
}

fn with_kind_tags<'a>(
    vocab: &Vocabulary,
    ins: &crate::ir::Instr,
    kind: EventKind,
    own: impl Iterator<Item = &'a str>,
) -> Vec<usize> {
    let tag = |t: &str| vocab.index(t).unwrap_or(0);
    let mut tags: Vec<usize> = own.map(tag).collect();
    match kind {
        EventKind::Read => tags.extend([tag("R"), tag("M")]),
        EventKind::Write => tags.extend([tag("W"), tag("M")]),
        _ => {}
    }
    if matches!(ins.kind, InstrKind::Rmw { .. }) {
        tags.push(tag("RMW"));
    }
    tags.sort_unstable();
    tags.dedup();
    tags
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
/// The initial writes, one per physical location, and per location the
/// index of its initial write; `value(location)` gives each one's
/// `values` and `bits`.
pub fn init_events(
    p: &Program,
    vocab: &Vocabulary,
    mut value: impl FnMut(&Location) -> (Vec<(i64, Lit)>, Vec<Lit>),
) -> (Vec<SymEvent>, Vec<Option<usize>>) {
    let tags: Vec<usize> = ["IW", "I", "W", "M"]
        .iter()
        .map(|t| vocab.index(t).unwrap_or(0))
        .collect();
    let mut events = Vec::new();
    let mut init_of = vec![None; p.locations.len()];
    for (li, l) in p.locations.iter().enumerate() {
        if l.phys == li {
            init_of[li] = Some(events.len());
            let (values, bits) = value(l);
            events.push(SymEvent {
                ev: Event::init(li, l.init, tags.clone()),
                exec: TRUE,
                values,
                bits,
                barrier_ids: vec![],
                barrier_counts: vec![],
                arrive: false,
                stuck: FALSE,
                failed: None,
            });
        }
    }
    (events, init_of)
}

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
        // Path enumeration draws values from finite domains: free values
        // need the guarded unrolling's bit-vectors.
        if p.has_free_values() {
            return Err(crate::diag::Error::new(
                crate::diag::ErrorKind::Unsupported,
                "unsupported: arbitrary values need the guarded unrolling (unset GPUMC_UNROLL)",
            ));
        }
        // Events here are shared by the paths through an instruction, so
        // their tags cannot depend on a compare-and-swap's outcome.
        if let Some(i) = p
            .threads
            .iter()
            .flat_map(|t| &t.instrs)
            .find(|i| i.failed.is_some())
        {
            return Err(crate::diag::Error::unsupported(
                i.pos,
                "a compare-exchange whose failure order differs from its success order, in a program whose barrier ids are computed at run time (the symbolic engine's path enumeration)",
            ));
        }
        let vocab = Vocabulary::for_program(p);
        // The explicit engine's domains, unless a straight-line thread
        // has so many read-value combinations that computing them (by
        // enumerating paths) is hopeless: then the over-approximation.
        let rough = abstract_domains(p).ok();
        let huge = rough.as_ref().is_some_and(|d| {
            p.threads
                .iter()
                .any(|t| straight_line(t) && read_combinations(p, t, d) > HUGE_THREAD_PATHS)
        });
        let dom = match (huge, rough) {
            (true, Some(d)) => d,
            (_, rough) => match value_domains(p, bound) {
                Ok(d) => d,
                Err(e) => match rough {
                    Some(d) if p.threads.iter().any(straight_line) => d,
                    _ => return Err(e),
                },
            },
        };
        let mut per_thread = Vec::new();
        let mut symbolic_threads = Vec::new();
        for (th, t) in p.threads.iter().enumerate() {
            // Paths of a straight-line thread: the product of its reads'
            // domain sizes.
            if straight_line(t) && read_combinations(p, t, &dom) > SYMBOLIC_THREAD_PATHS {
                per_thread.push(vec![]);
                symbolic_threads.push(true);
            } else {
                per_thread.push(thread_paths(p, th, bound, &dom)?);
                symbolic_threads.push(false);
            }
        }
        let (mut events, init_of) = init_events(p, &vocab, |l| (vec![(l.init, TRUE)], vec![]));
        let mut threads = Vec::new();
        // Pairs per relation: (a, b) -> global paths where it holds.
        let mut po_paths: PairPaths = HashMap::new();
        let mut dep_paths: [PairPaths; 4] = Default::default();
        let mut all_sel: Vec<Lit> = Vec::new();
        // Per event: global path indices containing it.
        let mut containing: Vec<Vec<usize>> = vec![Vec::new(); events.len()];
        for (ti, paths) in per_thread.into_iter().enumerate() {
            let th = &p.threads[ti];
            let mut sym_thread = None;
            let paths = if symbolic_threads[ti] {
                let (path, st) = symbolic_path(p, th, &dom, sat);
                sym_thread = Some(st);
                vec![path]
            } else {
                paths
            };
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
            for &(instr, code, _, at) in &order {
                let ins = &th.instrs[instr];
                let kind = match code {
                    0 => EventKind::Read,
                    1 => EventKind::Write,
                    2 => EventKind::Fence,
                    _ => EventKind::Barrier,
                };
                let tags = tags_of(&vocab, ins, kind);
                let loc = (at != usize::MAX).then_some(at);
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
                    bits: vec![],
                    barrier_ids: vec![],
                    barrier_counts: vec![],
                    arrive,
                    stuck: FALSE,
                    failed: None,
                });
                containing.push(Vec::new());
            }
            let mut path_events = Vec::new();
            let mut vals: HashMap<usize, Vec<(i64, Lit)>> = HashMap::new();
            let mut ids: HashMap<usize, Vec<(i64, Lit)>> = HashMap::new();
            let mut counts: HashMap<usize, Vec<(Option<i64>, Lit)>> = HashMap::new();
            let mut stuck: HashMap<usize, Vec<Lit>> = HashMap::new();
            let (mut done, mut cut, mut ub) = (Vec::new(), Vec::new(), Vec::new());
            let mut spinning = Vec::new();
            for (pi, path) in paths.iter().enumerate() {
                let gp = path_base + pi;
                let s = sel[pi];
                let evs: Vec<usize> = ks[pi].iter().map(|k| pos[k]).collect();
                for (k, e) in path.events.iter().enumerate() {
                    let g = evs[k];
                    containing[g].push(gp);
                    match &e.kind {
                        PathEventKind::Read | PathEventKind::Write => match &sym_thread {
                            Some(st) => vals.entry(g).or_default().extend(st.values[k].clone()),
                            None => vals.entry(g).or_default().push((e.value, s)),
                        },
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
                if path.ub.is_some() {
                    ub.push(s);
                }
                match path.end {
                    PathEnd::Done => done.push(s),
                    PathEnd::Cut => cut.push(s),
                    PathEnd::Stuck => {
                        if let Some(&last) = evs.last() {
                            stuck.entry(last).or_default().push(s);
                        }
                    }
                    PathEnd::Spinning => spinning.push(s),
                    // Liveness builds paused paths itself; the unrolling
                    // never produces them.
                    PathEnd::Paused => {}
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
                    events[g].values = if sym_thread.is_some() {
                        v.clone()
                    } else {
                        group(sat, v)
                    };
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
            let spinning = sat.or(&spinning);
            let ub = sat.or(&ub);
            threads.push(ThreadUnroll {
                paths,
                sel,
                path_events,
                events: (base..events.len()).collect(),
                done,
                cut,
                spinning,
                paused: FALSE,
                ub,
                sym: sym_thread,
                guarded: None,
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
        let rels = [
            rel_of(&po_paths, sat),
            rel_of(&dep_paths[0], sat),
            rel_of(&dep_paths[1], sat),
            rel_of(&dep_paths[2], sat),
            rel_of(&dep_paths[3], sat),
        ];
        Ok(Unrolled::assemble(
            p, bound, vocab, events, threads, init_of, rels,
        ))
    }

    /// Completes an unrolling: per-location writes and the reads.
    /// `rels`: `po`, `addr`, `data`, `ctrl`, `rmw`.
    pub fn assemble(
        program: &'p Program,
        bound: u32,
        vocab: Vocabulary,
        events: Vec<SymEvent>,
        threads: Vec<ThreadUnroll>,
        init_of: Vec<Option<usize>>,
        rels: [SymRel; 5],
    ) -> Self {
        let mut writes = vec![Vec::new(); program.locations.len()];
        let mut reads = Vec::new();
        for (i, e) in events.iter().enumerate() {
            match (e.ev.kind, e.ev.phys) {
                (EventKind::Write, Some(ph)) => writes[ph].push(i),
                (EventKind::Read, Some(_)) => reads.push(i),
                _ => {}
            }
        }
        let [po, addr, data, ctrl, rmw] = rels;
        Unrolled {
            program,
            bound,
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
            inputs: vec![],
        }
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
            ends: vec![super::super::paths::PathEnd::Done; self.threads.len()],
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
        if let Some(st) = &t.sym {
            return st
                .regs
                .iter()
                .find(|(n, _)| n == r)
                .map_or_else(|| vec![(fallback, TRUE)], |(_, v)| v.clone());
        }
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

/// The single path of a straight-line thread, with value literals: each
/// read gets a one-hot choice over its location's domain; registers and
/// written values are computed from them.
fn symbolic_path(
    p: &Program,
    t: &crate::ir::Thread,
    dom: &crate::engine::paths::Domains,
    sat: &mut Sat,
) -> (ThreadPath, SymThread) {
    use crate::engine::paths::{eval_binop, rmw_value, PathEvent};
    let mut regs: HashMap<String, Vec<(i64, Lit)>> = HashMap::new();
    let mut taint: HashMap<String, Vec<usize>> = HashMap::new();
    for (r, v) in &t.init_regs {
        regs.insert(r.clone(), vec![(*v, TRUE)]);
    }
    let mut events: Vec<PathEvent> = Vec::new();
    let mut values: Vec<Vec<(i64, Lit)>> = Vec::new();
    let deps = |o: &crate::ir::Operand, taint: &HashMap<String, Vec<usize>>| match o {
        crate::ir::Operand::Const(_) => vec![],
        crate::ir::Operand::Reg(r) => taint.get(r).cloned().unwrap_or_default(),
    };
    let ev = |kind, instr, loc| PathEvent {
        kind,
        instr,
        loc,
        value: 0,
        rmw_read: None,
        addr_deps: vec![],
        data_deps: vec![],
        ctrl_deps: vec![],
        spinning: false,
    };
    for (i, ins) in t.instrs.iter().enumerate() {
        // Straight-line threads have fixed addresses only.
        let fixed = |a: &crate::ir::Addr| a.fixed().expect("straight-line: fixed address");
        match &ins.kind {
            InstrKind::Load { dst, addr } => {
                let addr = &fixed(addr);
                let d: Vec<i64> = dom
                    .get(&p.locations[*addr].phys)
                    .map(|s| s.iter().copied().collect())
                    .unwrap_or_default();
                let v = one_hot(sat, &d);
                events.push(ev(PathEventKind::Read, i, Some(*addr)));
                values.push(v.clone());
                regs.insert(dst.clone(), v);
                taint.insert(dst.clone(), vec![events.len() - 1]);
            }
            InstrKind::Store { addr, value } => {
                let mut e = ev(PathEventKind::Write, i, Some(fixed(addr)));
                e.data_deps = deps(value, &taint);
                events.push(e);
                values.push(operand(value, &regs));
            }
            InstrKind::Rmw {
                dst,
                addr,
                op,
                operand: o,
            } => {
                let addr = &fixed(addr);
                let d: Vec<i64> = dom
                    .get(&p.locations[*addr].phys)
                    .map(|s| s.iter().copied().collect())
                    .unwrap_or_default();
                let old = one_hot(sat, &d);
                let opv = operand(o, &regs);
                let opd = deps(o, &taint);
                events.push(ev(PathEventKind::Read, i, Some(*addr)));
                values.push(old.clone());
                let r = events.len() - 1;
                let new = combine(sat, &old, &opv, |a, b| rmw_value(op, a, b));
                let mut w = ev(PathEventKind::Write, i, Some(*addr));
                w.rmw_read = Some(r);
                w.data_deps = opd;
                events.push(w);
                values.push(new);
                if let Some(d) = dst {
                    regs.insert(d.clone(), old);
                    taint.insert(d.clone(), vec![r]);
                }
            }
            InstrKind::Fence => {
                events.push(ev(PathEventKind::Fence, i, None));
                values.push(vec![]);
            }
            InstrKind::Local { dst, op, a, b } => {
                let (va, vb) = (operand(a, &regs), operand(b, &regs));
                let v = combine(sat, &va, &vb, |x, y| eval_binop(*op, x, y).unwrap_or(0));
                let mut d = deps(a, &taint);
                d.extend(deps(b, &taint));
                d.sort_unstable();
                d.dedup();
                regs.insert(dst.clone(), v);
                taint.insert(dst.clone(), d);
            }
            _ => {}
        }
    }
    let mut reg_list: Vec<(String, Vec<(i64, Lit)>)> = regs.into_iter().collect();
    reg_list.sort_by(|a, b| a.0.cmp(&b.0));
    let path = ThreadPath {
        events,
        regs: reg_list.iter().map(|(r, _)| (r.clone(), 0)).collect(),
        undefs: vec![],
        end: PathEnd::Done,
        ub: None,
    };
    (
        path,
        SymThread {
            values,
            regs: reg_list,
        },
    )
}

/// Fresh exactly-one literals over `values`.
fn one_hot(sat: &mut Sat, values: &[i64]) -> Vec<(i64, Lit)> {
    if values.len() == 1 {
        return vec![(values[0], TRUE)];
    }
    let lits: Vec<Lit> = values.iter().map(|_| sat.var()).collect();
    sat.exactly_one(&lits);
    values.iter().copied().zip(lits).collect()
}
