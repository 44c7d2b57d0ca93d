//! Guarded unrolling: each thread's control flow unrolled once into a DAG,
//! with values as bit-vectors.
//!
//! Where [`super::unroll`] enumerates a thread's paths (one per combination
//! of read values, which explodes on real kernels), this unroller executes
//! the thread *symbolically*: a read returns fresh value bits, registers
//! are bit-vectors, and the thread's paths differ only at branches, whose
//! conditions are literals. The unrolled control flow is a DAG of nodes
//! `(instruction, loop counters)`; a node executes iff the literal *guard*
//! holds, and its registers are the merge (multiplexers over the incoming
//! guards) of its predecessors'. The loop semantics are those of
//! [`crate::engine::loops`], exactly as the explicit engine applies them:
//! per-entry back-edge counts (a back-edge taken `bound` times cuts the
//! path) and spinning iterations (no write or barrier, live registers
//! unchanged), whose back-edges are never taken: the thread stops there
//! (`spinning`, without a final state).
//!
//! Every potential event gets its value bits, execution literal,
//! dependencies and barrier data, so the shared encoder ([`super::encode`])
//! treats the result like any other unrolling. A solver model is turned
//! back into an explicit thread path by replaying the thread with the read
//! values the model chose ([`crate::engine::paths::replay_paths`]), so the
//! `.cat` re-check sees exactly what the explicit engine would.

use super::bv::{self, Bv};
use super::rel::RelAcc;
use super::sat::{Lit, Sat, FALSE, TRUE};
use super::unroll::{failed_tags_of, init_events, tags_of, SymEvent, ThreadUnroll, Unrolled};
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::exec::{Event, EventKind, Vocabulary};
use crate::engine::loops::Cfg;
use crate::ir::{Addr, InstrKind, LocId, Operand, Program, RmwOp};
use crate::rel::EventSet;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Nodes above which a thread's unrolling is refused.
const MAX_NODES: usize = 200_000;

/// What a guarded thread needs beyond [`ThreadUnroll`]'s common fields.
pub struct GuardedThread {
    /// Undefined values, in program order: (guard, bits).
    pub havocs: Vec<(Lit, Bv)>,
    /// Final registers (at the thread's end or its undefined behaviour).
    pub regs: Vec<(String, Bv)>,
    /// Literals that identify the thread's behaviour in a model.
    pub ident: Vec<Lit>,
    /// How the thread stops (liveness unrollings only).
    pub live: Option<LiveStatus>,
    /// Where a race-prefix unrolling lets the thread stop early.
    pub prefix: Option<PrefixStops>,
}

/// The stops a race-prefix unrolling adds (docs/SEMANTICS.md, "Futile
/// iterations"); event indices are the unrolling's.
#[derive(Default)]
pub struct PrefixStops {
    /// The thread stops before some iteration of a loop, or at the
    /// back-edge of a futile iteration that is not justified.
    pub halted: Lit,
    /// Per stop at the back-edge of a spinning or futile iteration: its
    /// literal and the iteration's events.
    pub stops: Vec<(Lit, Vec<usize>)>,
    /// Per futile iteration that may go on: the literal that lets it, and
    /// the iteration's writes, one of which some event must then read.
    pub justify: Vec<(Lit, Vec<usize>)>,
}

/// Which stops a liveness unrolling offers besides running to the end,
/// spinning and waiting at a barrier: the progress model may starve a
/// thread before its first step (`starve`) or at any point (`starve_started`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pausing {
    pub starve: bool,
    pub starve_started: bool,
}

/// How a thread of a liveness unrolling stops: exactly one of
/// `terminated`, `spinning`, `blocked`, `paused` and the thread's `cut`
/// holds in every model.
pub struct LiveStatus {
    pub terminated: Lit,
    pub spinning: Lit,
    pub blocked: Lit,
    pub paused: Lit,
    /// Some event of the thread is executed.
    pub stepped: Lit,
    /// Per spinning stop: its literal and the reads (potential events) of
    /// the spinning iteration, which must read co-maximal writes.
    pub spins: Vec<(Lit, Vec<usize>)>,
}

pub(crate) type Counters = Vec<(usize, u32)>;
pub(crate) type Key = (usize, Counters);

/// The symbolic state flowing along an edge.
#[derive(Clone, Default)]
struct St {
    regs: BTreeMap<String, Bv>,
    /// Register → reads its value depends on (literal: on this path).
    taint: BTreeMap<String, Vec<(usize, Lit)>>,
    /// Reads that decided a branch so far.
    ctrl: Vec<(usize, Lit)>,
    /// Loop header → the current iteration of that loop.
    iter: BTreeMap<usize, Iter>,
}

/// What the current iteration of a loop has done so far.
#[derive(Clone, Default)]
struct Iter {
    /// Live registers' values at the start of the iteration.
    live: Vec<Bv>,
    /// Execution literals of its writes and barriers.
    effects: Vec<Lit>,
    /// Its reads (thread-local event indices).
    reads: Vec<usize>,
    /// Race prefixes only: its events, and the literals of its effects
    /// that change memory (an RMW writing the value it read does not).
    events: Vec<usize>,
    changes: Vec<Lit>,
}

fn unsupported(msg: impl Into<String>) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported: {}", msg.into()),
    )
}

/// The loop counters on arriving at `pc` other than by a back-edge: a
/// loop whose header `pc` is starts afresh; so does a loop whose body was
/// left (it can only be entered again through its header, unless it is
/// an open one). A count no path from `pc` consults again (no back-edge
/// to its header is reachable) is dropped too, so that code after a loop
/// laid out inside its range is not copied once per iteration count.
fn canon(cfg: &Cfg, pc: usize, counters: &Counters) -> Counters {
    counters
        .iter()
        .filter(|(h, _)| {
            *h != pc
                && ((*h <= pc && pc <= cfg.loop_end[h]) || cfg.open.contains(h))
                && cfg.reaches_back[h].get(pc).copied().unwrap_or(false)
        })
        .copied()
        .collect()
}

/// A control-flow successor.
#[derive(Clone, Debug)]
pub(crate) enum Succ {
    /// Fall through or jump forward, or a back-edge within the bound.
    To(usize),
    /// A back-edge taken once too often: the path is cut.
    Cut,
}

pub(crate) struct Dag {
    pub keys: Vec<Key>,
    /// Per node: (successor of the fall-through/unconditional kind, of the
    /// taken branch). Branches have both; `Goto` only `taken`.
    pub next: Vec<Option<Succ>>,
    pub taken: Vec<Option<Succ>>,
    pub order: Vec<usize>,
}

/// Interns DAG nodes and queues the new ones.
struct Builder<'a> {
    ids: HashMap<Key, usize>,
    keys: Vec<Key>,
    work: Vec<usize>,
    cfg: &'a Cfg,
    bound: u32,
    thread: &'a str,
}

impl Builder<'_> {
    fn intern(&mut self, k: Key) -> Result<usize> {
        if let Some(&i) = self.ids.get(&k) {
            return Ok(i);
        }
        if self.keys.len() >= MAX_NODES {
            return Err(unsupported(format!(
                "thread {} unrolls to more than {MAX_NODES} instructions under this bound",
                self.thread
            )));
        }
        let i = self.keys.len();
        self.ids.insert(k.clone(), i);
        self.keys.push(k);
        self.work.push(i);
        Ok(i)
    }

    /// The successor reached by jumping from `pc` to `target`.
    fn jump(&mut self, pc: usize, counters: &Counters, target: usize) -> Result<Succ> {
        if target > pc {
            let k = (target, canon(self.cfg, target, counters));
            return Ok(Succ::To(self.intern(k)?));
        }
        let mut c = counters.clone();
        let count = match c.iter_mut().find(|(h, _)| *h == target) {
            Some(x) => {
                x.1 += 1;
                x.1
            }
            None => {
                c.push((target, 1));
                c.sort_unstable();
                1
            }
        };
        if count >= self.bound.max(1) {
            return Ok(Succ::Cut);
        }
        // Arriving by a back-edge: the target's own count stays.
        let mut k = canon(self.cfg, target, &c);
        k.push((target, count));
        k.sort_unstable();
        Ok(Succ::To(self.intern((target, k))?))
    }

    fn fall(&mut self, pc: usize, counters: &Counters) -> Result<Succ> {
        let k = (pc + 1, canon(self.cfg, pc + 1, counters));
        Ok(Succ::To(self.intern(k)?))
    }
}

/// The unrolled control flow of thread `th`.
pub(crate) fn dag(p: &Program, th: usize, cfg: &Cfg, bound: u32) -> Result<Dag> {
    let t = &p.threads[th];
    let n = t.instrs.len();
    let mut b = Builder {
        ids: HashMap::new(),
        keys: Vec::new(),
        work: Vec::new(),
        cfg,
        bound,
        thread: &t.name,
    };
    b.intern((0, vec![]))?;
    let mut next: Vec<Option<Succ>> = Vec::new();
    let mut taken: Vec<Option<Succ>> = Vec::new();
    while let Some(node) = b.work.pop() {
        crate::guard::check()?;
        let (pc, counters) = b.keys[node].clone();
        if pc >= n {
            continue;
        }
        let (nx, tk) = match &t.instrs[pc].kind {
            InstrKind::Unreachable { .. } | InstrKind::Infeasible => (None, None),
            InstrKind::Goto(l) => (None, Some(b.jump(pc, &counters, cfg.labels[l])?)),
            InstrKind::Branch { target, .. } => {
                let tk = b.jump(pc, &counters, cfg.labels[target])?;
                (Some(b.fall(pc, &counters)?), Some(tk))
            }
            _ => (Some(b.fall(pc, &counters)?), None),
        };
        next.resize(b.keys.len(), None);
        taken.resize(b.keys.len(), None);
        next[node] = nx;
        taken[node] = tk;
    }
    let keys = b.keys;
    next.resize(keys.len(), None);
    taken.resize(keys.len(), None);
    // Topological order (Kahn; ties by instruction, then counters, so
    // events come out in program order as far as possible).
    let m = keys.len();
    let mut indeg = vec![0usize; m];
    for i in 0..m {
        for s in [&next[i], &taken[i]].into_iter().flatten() {
            if let Succ::To(j) = s {
                indeg[*j] += 1;
            }
        }
    }
    let mut ready: std::collections::BTreeSet<(usize, Counters, usize)> = (0..m)
        .filter(|&i| indeg[i] == 0)
        .map(|i| (keys[i].0, keys[i].1.clone(), i))
        .collect();
    let mut order = Vec::with_capacity(m);
    while let Some((_, _, i)) = ready.pop_first() {
        order.push(i);
        for s in [&next[i], &taken[i]].into_iter().flatten() {
            if let Succ::To(j) = s {
                indeg[*j] -= 1;
                if indeg[*j] == 0 {
                    ready.insert((keys[*j].0, keys[*j].1.clone(), *j));
                }
            }
        }
    }
    if order.len() != m {
        return Err(unsupported(format!(
            "thread {}: irreducible control flow (a loop entered other than at its header)",
            t.name
        )));
    }
    Ok(Dag {
        keys,
        next,
        taken,
        order,
    })
}

/// The value `vals[k]` on the edge whose guard `guards[k]` holds (the
/// guards are exclusive and one holds): a multiplexer chain.
pub(crate) fn mux_over(sat: &mut Sat, guards: &[Lit], vals: &[&Bv]) -> Bv {
    if vals.iter().all(|v| *v == vals[0]) {
        return vals[0].clone();
    }
    let mut acc = vals[vals.len() - 1].clone();
    for k in (0..vals.len() - 1).rev() {
        acc = bv::ite(sat, guards[k], vals[k], &acc);
    }
    acc
}

/// Merges the states of a node's incoming edges.
fn merge(sat: &mut Sat, incoming: Vec<(Lit, St)>) -> (Lit, St) {
    let guards: Vec<Lit> = incoming.iter().map(|(g, _)| *g).collect();
    let guard = sat.or(&guards);
    if incoming.len() == 1 {
        let (_, st) = incoming.into_iter().next().expect("one edge");
        return (guard, st);
    }
    let mut out = St::default();
    // Registers: a multiplexer chain over the guards (exclusive).
    let mut names: Vec<&String> = incoming.iter().flat_map(|(_, s)| s.regs.keys()).collect();
    names.sort();
    names.dedup();
    let zero = bv::constant(0);
    for r in names {
        let vals: Vec<&Bv> = incoming
            .iter()
            .map(|(_, s)| s.regs.get(r).unwrap_or(&zero))
            .collect();
        out.regs.insert(r.clone(), mux_over(sat, &guards, &vals));
    }
    let merge_lists = |sat: &mut Sat, lists: Vec<&Vec<(usize, Lit)>>| -> Vec<(usize, Lit)> {
        if lists.iter().all(|l| *l == lists[0]) {
            return lists[0].clone();
        }
        let mut per: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
        for (k, list) in lists.iter().enumerate() {
            for &(e, l) in list.iter() {
                let x = sat.and2(guards[k], l);
                per.entry(e).or_default().push(x);
            }
        }
        per.into_iter().map(|(e, ls)| (e, sat.or(&ls))).collect()
    };
    let empty = Vec::new();
    let mut tnames: Vec<&String> = incoming.iter().flat_map(|(_, s)| s.taint.keys()).collect();
    tnames.sort();
    tnames.dedup();
    for r in tnames {
        let lists: Vec<&Vec<(usize, Lit)>> = incoming
            .iter()
            .map(|(_, s)| s.taint.get(r).unwrap_or(&empty))
            .collect();
        let l = merge_lists(sat, lists);
        out.taint.insert(r.clone(), l);
    }
    out.ctrl = merge_lists(sat, incoming.iter().map(|(_, s)| &s.ctrl).collect());
    // Iterations: headers every incoming state is inside.
    let heads: Vec<usize> = incoming[0]
        .1
        .iter
        .keys()
        .copied()
        .filter(|h| incoming.iter().all(|(_, s)| s.iter.contains_key(h)))
        .collect();
    for h in heads {
        let k = incoming[0].1.iter[&h].live.len();
        let mut live = Vec::with_capacity(k);
        for j in 0..k {
            let vals: Vec<&Bv> = incoming.iter().map(|(_, s)| &s.iter[&h].live[j]).collect();
            live.push(mux_over(sat, &guards, &vals));
        }
        let of =
            |f: fn(&Iter) -> &Vec<Lit>| sorted_union(incoming.iter().map(|(_, s)| f(&s.iter[&h])));
        let effects = of(|i| &i.effects);
        let changes = of(|i| &i.changes);
        let reads = sorted_union(incoming.iter().map(|(_, s)| &s.iter[&h].reads));
        let events = sorted_union(incoming.iter().map(|(_, s)| &s.iter[&h].events));
        out.iter.insert(
            h,
            Iter {
                live,
                effects,
                reads,
                events,
                changes,
            },
        );
    }
    (guard, out)
}

/// The sorted union of some lists.
fn sorted_union<'a, T: Ord + Copy + 'a>(lists: impl Iterator<Item = &'a Vec<T>>) -> Vec<T> {
    let mut v: Vec<T> = lists.flatten().copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn operand(st: &St, o: &Operand) -> Bv {
    match o {
        Operand::Const(c) => bv::constant(*c),
        Operand::Reg(r) => st.regs.get(r).cloned().unwrap_or_else(|| bv::constant(0)),
    }
}

fn taint(st: &St, o: &Operand) -> Vec<(usize, Lit)> {
    match o {
        Operand::Const(_) => vec![],
        Operand::Reg(r) => st.taint.get(r).cloned().unwrap_or_default(),
    }
}

/// The reads an address depends on (its index's).
fn taint_of_addr(st: &St, a: &Addr) -> Vec<(usize, Lit)> {
    a.index().map(|ix| taint(st, ix)).unwrap_or_default()
}

fn union_lists(a: &[(usize, Lit)], b: &[(usize, Lit)], sat: &mut Sat) -> Vec<(usize, Lit)> {
    let mut per: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
    for &(e, l) in a.iter().chain(b) {
        per.entry(e).or_default().push(l);
    }
    per.into_iter().map(|(e, ls)| (e, sat.or(&ls))).collect()
}

/// What one thread contributes.
struct ThreadOut {
    events: Vec<SymEvent>,
    /// Per relation (data, ctrl, rmw, addr): (from, to, literal),
    /// thread-local event indices.
    deps: [Vec<(usize, usize, Lit)>; 4],
    /// Program order: pairs of events on a common path.
    po: Vec<(usize, usize)>,
    done: Lit,
    cut: Lit,
    /// Stops at the back-edge of a spinning iteration.
    spinning: Lit,
    /// Reaches undefined behaviour.
    ub: Lit,
    guarded: GuardedThread,
}

/// A pause point of a liveness unrolling: the thread may stop for good
/// where `g` holds (recorded in `paused`); returns the guard of going on.
fn pause_point(sat: &mut Sat, g: Lit, paused: &mut Vec<Lit>, ident: &mut Vec<Lit>) -> Lit {
    let h = sat.var();
    ident.push(h);
    paused.push(sat.and2(g, h));
    sat.and2(g, -h)
}

/// Program-order pairs: `a` before `b` where `b`'s node is reachable from
/// `a`'s (events on different branches are never ordered, which keeps
/// every relation built from `po` small). Events of one node with
/// different `case`s (the cells of a run-time address) exclude each
/// other and are not ordered either.
fn program_order(dag: &Dag, event_node: &[usize], case: &[usize]) -> Result<Vec<(usize, usize)>> {
    let m = event_node.len();
    let nodes = dag.keys.len();
    // The pairs are quadratic in the events of one thread (a thread of
    // 16,000 stores has 128 million): estimated before they are built,
    // with what follows from them (the program's list of pairs, the
    // relation built from it).
    let pairs = (m as u64) * (m as u64).saturating_sub(1) / 2;
    crate::guard::check_estimate(
        pairs.saturating_mul(3 * std::mem::size_of::<(usize, usize)>() as u64),
        &format!("the program order of a thread of {m} events"),
    )?;
    if (nodes as f64) * (m as f64) > 4e8 {
        // Too big to track: every later event (sound, relative to both
        // being executed).
        let mut out = Vec::with_capacity(pairs as usize);
        out.extend((0..m).flat_map(|a| (a + 1..m).map(move |b| (a, b))));
        return Ok(out);
    }
    let mut at: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    for (e, &nd) in event_node.iter().enumerate() {
        at[nd].push(e);
    }
    let mut reach: Vec<EventSet> = vec![EventSet::empty(0); nodes];
    for &nd in dag.order.iter().rev() {
        let mut r = EventSet::from_iter(m, at[nd].iter().copied());
        for s in [&dag.next[nd], &dag.taken[nd]].into_iter().flatten() {
            if let Succ::To(j) = s {
                r.union_with(&reach[*j]);
            }
        }
        reach[nd] = r;
    }
    let mut out = Vec::new();
    for (a, &nd) in event_node.iter().enumerate() {
        out.extend(
            reach[nd]
                .iter()
                .filter(|&b| b > a && (event_node[b] != nd || case[b] == case[a]))
                .map(|b| (a, b)),
        );
    }
    Ok(out)
}

/// The cells a memory access at guard `g` may reach, each with the guard
/// of reaching it, and the guard of an out-of-bounds index: a fixed
/// address is one case; a run-time one is split on the index's value
/// (one potential event per cell, so `loc` stays static).
fn cases(sat: &mut Sat, st: &St, addr: &Addr, g: Lit) -> (Vec<(LocId, Lit)>, Lit) {
    let Addr::Indexed(x) = addr else {
        return (addr.cells().iter().map(|&c| (c, g)).collect(), FALSE);
    };
    let ix = operand(st, &x.index);
    let mut out = Vec::new();
    let mut hits = Vec::new();
    for (k, &c) in x.cells.iter().enumerate() {
        let hit = bv::eq(sat, &ix, &bv::constant(k as i64));
        if hit == FALSE {
            continue;
        }
        hits.push(hit);
        let gk = sat.and2(g, hit);
        if gk != FALSE {
            out.push((c, gk));
        }
    }
    let any = sat.or(&hits);
    (out, sat.and2(g, -any))
}

/// What an unrolling knows beforehand.
#[derive(Clone, Copy)]
struct Pass<'a> {
    /// Per location, the bits known constant (see [`unroll`]).
    known: &'a [Vec<Option<bool>>],
    /// A scratch unrolling, for the known bits only: exact values and
    /// execution literals do not matter, so an access at a run-time
    /// address reaches every cell under the node's guard and reads fresh
    /// bits (a sound over-approximation, linear in the cells).
    scratch: bool,
}

/// Fresh value bits for a read of `loc`, except the bits `known` fixes.
fn read_bits(sat: &mut Sat, known: &[Vec<Option<bool>>], loc: usize) -> Bv {
    match known.get(loc) {
        Some(k) => k
            .iter()
            .map(|b| match b {
                Some(true) => TRUE,
                Some(false) => FALSE,
                None => sat.var(),
            })
            .collect(),
        None => bv::fresh(sat),
    }
}

#[allow(clippy::too_many_arguments)]
fn unroll_thread(
    p: &Program,
    th: usize,
    bound: u32,
    vocab: &Vocabulary,
    pass: Pass<'_>,
    inputs: &[Bv],
    pausing: Option<Pausing>,
    futile: &Futile,
    sat: &mut Sat,
) -> Result<ThreadOut> {
    let prefixes = !futile.locs.is_empty();
    let futile_locs = &futile.locs;
    let known = pass.known;
    let t = &p.threads[th];
    let cfg = Cfg::new(p, th)?;
    let dag = dag(p, th, &cfg, bound)?;
    let mut pending: Vec<Vec<(Lit, St)>> = vec![Vec::new(); dag.keys.len()];
    let mut init = St::default();
    for (r, v) in &t.init_regs {
        init.regs.insert(r.clone(), bv::constant(*v));
    }
    let mut events: Vec<SymEvent> = Vec::new();
    let mut deps: [Vec<(usize, usize, Lit)>; 4] = Default::default();
    // Per event: which cell of its instruction's run-time address it is.
    let mut case: Vec<usize> = Vec::new();
    let (mut done, mut cut, mut ub) = (Vec::new(), Vec::new(), Vec::new());
    let mut finals: Vec<(Lit, St)> = Vec::new();
    let mut havocs = Vec::new();
    let mut ident = Vec::new();
    // Where the thread stops in a spinning iteration (with the
    // iteration's reads, for liveness), and for liveness where the
    // progress model stops it for good.
    let mut paused: Vec<Lit> = Vec::new();
    let mut spins: Vec<(Lit, Vec<usize>)> = Vec::new();
    let starve_started = pausing.is_some_and(|z| z.starve_started);
    // Race prefixes: loops whose futile iterations may stop the thread
    // (no register live at the header is assigned in the body, so
    // dropping an iteration changes no later event's dependencies).
    let empty = BTreeSet::new();
    let futile_loops = match prefixes {
        true => &futile.loops[th],
        false => &empty,
    };
    // Pauses before the iterations of loops that may read what a futile
    // iteration wrote (a stopped iteration of theirs may be dropped).
    let pause_at: BTreeSet<usize> = cfg
        .loop_end
        .iter()
        .filter(|(&h, &end)| {
            t.instrs[h..=end].iter().any(|ins| match &ins.kind {
                InstrKind::Load { addr, .. } | InstrKind::Rmw { addr, .. } => {
                    addr.cells().is_empty()
                        || addr
                            .cells()
                            .iter()
                            .any(|&c| futile_locs.contains(&p.locations[c].phys))
                }
                _ => false,
            })
        })
        .map(|(&h, _)| h)
        .collect();
    let mut halts: Vec<Lit> = Vec::new();
    let mut stops: Vec<(Lit, Vec<usize>)> = Vec::new();
    let mut justify: Vec<(Lit, Vec<usize>)> = Vec::new();
    // Starved before its first step: a thread that never starts.
    let root = match pausing {
        Some(z) if z.starve && !z.starve_started => {
            let h = sat.var();
            ident.push(h);
            paused.push(h);
            -h
        }
        _ => TRUE,
    };
    pending[0].push((root, init));
    let n = t.instrs.len();
    // (A kernel's barrier without a count waits while a thread of its
    // block has neither arrived nor exited: with loops, one may spin, be
    // cut or stop early.)
    let quorums = p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .any(|i| matches!(i.kind, InstrKind::Barrier { count: Some(_), .. }))
        || super::super::exec::waits_for_block(p) && !super::super::loops::loop_free(p);
    let mut event_node: Vec<usize> = Vec::new();
    let mut cur_node = 0;
    for &node in &dag.order {
        sat.check()?;
        event_node.resize(events.len(), cur_node);
        cur_node = node;
        let incoming = std::mem::take(&mut pending[node]);
        if incoming.is_empty() {
            continue;
        }
        let (mut g, mut st) = merge(sat, incoming);
        if g == FALSE {
            continue;
        }
        let pc = dag.keys[node].0;
        if pc >= n {
            done.push(g);
            finals.push((g, st));
            continue;
        }
        let visible = matches!(
            t.instrs[pc].kind,
            InstrKind::Load { .. }
                | InstrKind::Store { .. }
                | InstrKind::Rmw { .. }
                | InstrKind::Fence
                | InstrKind::Barrier { .. }
        );
        if visible && starve_started {
            g = pause_point(sat, g, &mut paused, &mut ident);
        }
        // A new iteration of the loops with this header starts here.
        if let Some(live) = cfg.live.get(&pc) {
            if pause_at.contains(&pc) {
                // A race may need only the events before this iteration.
                g = pause_point(sat, g, &mut halts, &mut ident);
            }
            let vals: Vec<Bv> = live
                .iter()
                .map(|r| st.regs.get(r).cloned().unwrap_or_else(|| bv::constant(0)))
                .collect();
            st.iter.insert(
                pc,
                Iter {
                    live: vals,
                    ..Iter::default()
                },
            );
        }
        let ins = &t.instrs[pc];
        let new_at =
            |events: &mut Vec<SymEvent>, kind: EventKind, exec: Lit, loc: Option<LocId>| {
                let index = events.len();
                events.push(SymEvent {
                    ev: Event {
                        thread: Some(th),
                        index,
                        instr: Some(pc),
                        kind,
                        loc,
                        phys: loc.map(|l| p.locations[l].phys),
                        value: 0,
                        tags: tags_of(vocab, ins, kind),
                        barrier: None,
                        stuck: false,
                    },
                    exec,
                    values: vec![],
                    bits: vec![],
                    barrier_ids: vec![],
                    barrier_counts: vec![],
                    arrive: false,
                    stuck: FALSE,
                    failed: None,
                });
                index
            };
        let new_event = |events: &mut Vec<SymEvent>, kind: EventKind, exec: Lit| {
            new_at(events, kind, exec, None)
        };
        let effect = |st: &mut St, l: Lit, change: Lit| {
            for it in st.iter.values_mut() {
                it.effects.push(l);
                if prefixes {
                    it.changes.push(change);
                }
            }
        };
        let member = |st: &mut St, e: usize| {
            if prefixes {
                for it in st.iter.values_mut() {
                    it.events.push(e);
                }
            }
        };
        let read = |st: &mut St, e: usize| {
            for it in st.iter.values_mut() {
                it.reads.push(e);
            }
        };
        let mut out_guard = g;
        // Guard of the jump (goto: always; branch: its condition).
        let mut taken_guard = g;
        match &ins.kind {
            InstrKind::Label(_) => {}
            InstrKind::Goto(_) => out_guard = FALSE,
            // An execution that gets here does not exist.
            InstrKind::Infeasible => {
                sat.clause(&[-g]);
                out_guard = FALSE;
            }
            InstrKind::Unreachable { .. } => {
                ub.push(g);
                finals.push((g, st.clone()));
                out_guard = FALSE;
            }
            InstrKind::Havoc { dst, ty } => {
                let v = bv::free(sat, *ty);
                ident.extend(v.iter().copied());
                havocs.push((g, v.clone()));
                st.regs.insert(dst.clone(), v);
                st.taint.remove(dst);
            }
            InstrKind::Input { dst, input } => {
                let v = inputs.get(*input).cloned().ok_or_else(|| {
                    Error::semantic(ins.pos, format!("input {input} is not declared"))
                })?;
                st.regs.insert(dst.clone(), v);
                st.taint.remove(dst);
            }
            InstrKind::Local { dst, op, a, b } => {
                let (x, y) = (operand(&st, a), operand(&st, b));
                let (v, ok) = bv::binop(sat, *op, &x, &y);
                if ok != TRUE {
                    // Division by zero (or MIN / -1): undefined behaviour,
                    // the thread stops here (as `paths` does).
                    let bad = sat.and2(g, -ok);
                    if bad != FALSE {
                        ub.push(bad);
                        finals.push((bad, st.clone()));
                    }
                    out_guard = sat.and2(g, ok);
                }
                let d = union_lists(&taint(&st, a), &taint(&st, b), sat);
                st.regs.insert(dst.clone(), v);
                st.taint.insert(dst.clone(), d);
            }
            InstrKind::Fence => {
                let e = new_event(&mut events, EventKind::Fence, g);
                for &(r, l) in &st.ctrl {
                    deps[1].push((r, e, l));
                }
            }
            InstrKind::Barrier { id, count, arrive } => {
                let idv = bv::as_const(&operand(&st, id)).ok_or_else(|| {
                    unsupported("barrier ids computed at run time (symbolic unrolling)")
                })?;
                let cv = match count {
                    Some(c) => Some(bv::as_const(&operand(&st, c)).ok_or_else(|| {
                        unsupported("barrier counts computed at run time (symbolic unrolling)")
                    })?),
                    None => None,
                };
                let e = new_event(&mut events, EventKind::Barrier, g);
                events[e].barrier_ids = vec![(idv, TRUE)];
                events[e].barrier_counts = vec![(cv, TRUE)];
                events[e].arrive = *arrive;
                for &(r, l) in &st.ctrl {
                    deps[1].push((r, e, l));
                }
                effect(&mut st, g, g);
                member(&mut st, e);
                ident.push(g);
                // Only a quorum lets an arrival wait forever: without one
                // anywhere in the program, no barrier blocks (and every
                // event after it keeps its guard, which keeps relations
                // sure).
                if !*arrive && quorums {
                    let s = sat.var();
                    sat.implies(s, g);
                    events[e].stuck = s;
                    ident.push(s);
                    out_guard = sat.and2(g, -s);
                }
            }
            InstrKind::Load { .. } | InstrKind::Store { .. } | InstrKind::Rmw { .. } => {
                let addr = ins.kind.addr().expect("a memory instruction");
                let (cells, oob) = match pass.scratch {
                    true => (addr.cells().iter().map(|&c| (c, g)).collect(), FALSE),
                    false => cases(sat, &st, addr, g),
                };
                if oob != FALSE {
                    // Undefined behaviour: the thread stops here.
                    ub.push(oob);
                    finals.push((oob, st.clone()));
                    out_guard = sat.and2(g, -oob);
                }
                let at = taint_of_addr(&st, addr);
                let first = events.len();
                type Deps = [Vec<(usize, usize, Lit)>; 4];
                let access = |events: &mut Vec<SymEvent>,
                              deps: &mut Deps,
                              case: &mut Vec<usize>,
                              kind,
                              exec,
                              (k, c): (usize, LocId)| {
                    let e = new_at(events, kind, exec, Some(c));
                    case.resize(events.len(), 0);
                    case[e] = k;
                    for &(r, l) in &st.ctrl {
                        deps[1].push((r, e, l));
                    }
                    for &(r, l) in &at {
                        deps[3].push((r, e, l));
                    }
                    e
                };
                // Reads, one per cell; the value read is theirs, chosen
                // by the cell's guard.
                let reading = matches!(ins.kind, InstrKind::Load { .. } | InstrKind::Rmw { .. });
                let mut reads: Vec<usize> = Vec::new();
                let mut olds: Vec<Bv> = Vec::new();
                for (k, &(c, gk)) in cells.iter().enumerate().filter(|_| reading) {
                    let r = access(
                        &mut events,
                        &mut deps,
                        &mut case,
                        EventKind::Read,
                        gk,
                        (k, c),
                    );
                    let v = read_bits(sat, known, p.locations[c].phys);
                    events[r].bits = v.clone();
                    ident.push(gk);
                    ident.extend(v.iter().copied());
                    reads.push(r);
                    olds.push(v);
                }
                let guards: Vec<Lit> = cells.iter().map(|x| x.1).collect();
                let old = match olds.len() {
                    0 => bv::constant(0),
                    1 => olds[0].clone(),
                    _ if pass.scratch => bv::fresh(sat),
                    _ => mux_over(sat, &guards, &olds.iter().collect::<Vec<_>>()),
                };
                // Writes, one per cell, all of the same value (only the
                // chosen cell's executes).
                let written = match &ins.kind {
                    InstrKind::Store { value, .. } => Some((operand(&st, value), value, TRUE)),
                    InstrKind::Rmw { op, operand: o, .. } => {
                        let v = operand(&st, o);
                        let ok = match op {
                            RmwOp::Cas { expected } => bv::eq(sat, &old, &operand(&st, expected)),
                            _ => TRUE,
                        };
                        if ins.failed.is_some() {
                            let tags = failed_tags_of(vocab, ins);
                            for &r in &reads {
                                events[r].failed = Some((-ok, tags.clone()));
                            }
                        }
                        Some((bv::rmw(sat, op, &old, &v), o, ok))
                    }
                    _ => None,
                };
                // Race prefixes: per write of an RMW, "it changes memory".
                let mut changes: Vec<(usize, Lit)> = Vec::new();
                if let Some((bits, from, ok)) = written {
                    let data = taint(&st, from);
                    for (k, &(c, gk)) in cells.iter().enumerate() {
                        let wexec = sat.and2(gk, ok);
                        let w = access(
                            &mut events,
                            &mut deps,
                            &mut case,
                            EventKind::Write,
                            wexec,
                            (k, c),
                        );
                        events[w].bits = bits.clone();
                        ident.push(wexec);
                        if prefixes && reads.get(k).is_some() && futile_rmw(ins) {
                            let same = bv::eq(sat, &bits, &old);
                            changes.push((w, sat.and2(wexec, -same)));
                        }
                        for &(d, l) in &data {
                            deps[0].push((d, w, l));
                        }
                        if let Some(&r) = reads.get(k) {
                            deps[2].push((r, w, TRUE));
                        }
                    }
                }
                // Iteration bookkeeping (after the cases above, which
                // borrow the state).
                for (e, ev) in events.iter().enumerate().skip(first) {
                    member(&mut st, e);
                    match ev.ev.kind {
                        EventKind::Read => read(&mut st, e),
                        _ => {
                            let change = changes.iter().find(|c| c.0 == e).map_or(ev.exec, |c| c.1);
                            effect(&mut st, ev.exec, change)
                        }
                    }
                }
                let dst = match &ins.kind {
                    InstrKind::Load { dst, .. } => Some(dst),
                    InstrKind::Rmw { dst, .. } => dst.as_ref(),
                    _ => None,
                };
                if let Some(d) = dst {
                    st.regs.insert(d.clone(), old);
                    st.taint
                        .insert(d.clone(), reads.iter().map(|&r| (r, TRUE)).collect());
                }
            }
            InstrKind::Branch { op, a, b, .. } => {
                let (x, y) = (operand(&st, a), operand(&st, b));
                let c = bv::cmp(sat, *op, &x, &y);
                let d = union_lists(&taint(&st, a), &taint(&st, b), sat);
                st.ctrl = union_lists(&st.ctrl, &d, sat);
                taken_guard = sat.and2(g, c);
                out_guard = sat.and2(g, -c);
            }
        }
        // The fall-through (or the only) successor gets the state last,
        // moved: cloning every register's bits at every node of a long
        // straight-line thread costs more than the rest of the unrolling.
        let fall = match &dag.next[node] {
            Some(Succ::To(j)) if out_guard != FALSE => Some(*j),
            _ => None,
        };
        if let Some(s) = &dag.taken[node] {
            let mut tg = taken_guard;
            if tg != FALSE {
                let target = match &ins.kind {
                    InstrKind::Goto(l) | InstrKind::Branch { target: l, .. } => cfg.labels[l],
                    _ => unreachable!("only jumps have a taken successor"),
                };
                if target <= pc {
                    // A spinning iteration's back-edge is never taken:
                    // the thread stops there, as the explicit unrolling's
                    // path does (`PathEnd::Spinning`). That stop has no
                    // final state, but a cut or undefined behaviour in
                    // another thread (which this one may be waiting for)
                    // still shows in an execution with it. In liveness
                    // the thread may spin forever there (if the
                    // iteration's reads read final values, see
                    // `encode_spinning`), or be paused.
                    let spin = spin_lit(sat, &cfg, target, &st);
                    let mut stop = sat.and2(tg, spin);
                    let iter_events = || {
                        st.iter
                            .get(&target)
                            .map(|i| i.events.clone())
                            .unwrap_or_default()
                    };
                    if prefixes && stop != FALSE {
                        stops.push((stop, iter_events()));
                    }
                    let tracked = st
                        .iter
                        .get(&target)
                        .filter(|_| futile_loops.contains(&target));
                    if let Some(it) = tracked {
                        // A futile iteration (its only writes are RMWs
                        // writing what they read) goes on only if some
                        // event reads one of its writes; otherwise the
                        // thread stops there, as after a spinning one.
                        let futile =
                            spinning(sat, &cfg.live[&target], &it.live, &it.changes, &st.regs);
                        let on = sat.var();
                        let halt = sat.and(&[tg, -spin, futile, -on]);
                        if halt != FALSE {
                            let evs = iter_events();
                            let writes: Vec<usize> = evs
                                .iter()
                                .copied()
                                .filter(|&e| events[e].ev.kind == EventKind::Write)
                                .collect();
                            ident.push(halt);
                            halts.push(halt);
                            stops.push((halt, evs));
                            justify.push((on, writes));
                            tg = sat.and2(tg, -halt);
                        }
                    }
                    if stop != FALSE {
                        if starve_started {
                            stop = pause_point(sat, stop, &mut paused, &mut ident);
                        }
                        ident.push(stop);
                        let reads = match pausing {
                            Some(_) => st.iter.get(&target).map(|i| i.reads.clone()),
                            None => None,
                        };
                        spins.push((stop, reads.unwrap_or_default()));
                    }
                    tg = sat.and2(tg, -spin);
                }
                match s {
                    Succ::To(j) => {
                        let taken_st = if fall.is_some() {
                            st.clone()
                        } else {
                            std::mem::take(&mut st)
                        };
                        pending[*j].push((tg, taken_st));
                    }
                    Succ::Cut => cut.push(tg),
                }
            }
        }
        if let Some(j) = fall {
            pending[j].push((out_guard, st));
        }
    }
    // Final registers: a multiplexer over the ends (exclusive guards).
    let mut regs: BTreeMap<String, Bv> = BTreeMap::new();
    let mut names: Vec<String> = finals
        .iter()
        .flat_map(|(_, s)| s.regs.keys().cloned())
        .collect();
    names.sort();
    names.dedup();
    for r in names {
        let init = t
            .init_regs
            .iter()
            .find(|(x, _)| *x == r)
            .map_or(0, |(_, v)| *v);
        let mut acc = bv::constant(init);
        for (g, s) in finals.iter().rev() {
            let v = s.regs.get(&r).cloned().unwrap_or_else(|| bv::constant(0));
            acc = bv::ite(sat, *g, &v, &acc);
        }
        regs.insert(r, acc);
    }
    event_node.resize(events.len(), cur_node);
    case.resize(events.len(), 0);
    let po = program_order(&dag, &event_node, &case)?;
    let ub = sat.or(&ub);
    let mut done_all = done;
    done_all.push(ub);
    let done = sat.or(&done_all);
    let spin_lits: Vec<Lit> = spins.iter().map(|x| x.0).collect();
    let spinning = sat.or(&spin_lits);
    let live = match pausing {
        None => None,
        Some(_) => {
            let stuck: Vec<Lit> = events.iter().map(|e| e.stuck).collect();
            let execs: Vec<Lit> = events.iter().map(|e| e.exec).collect();
            Some(LiveStatus {
                terminated: done,
                spinning,
                blocked: sat.or(&stuck),
                paused: sat.or(&paused),
                stepped: sat.or(&execs),
                spins,
            })
        }
    };
    Ok(ThreadOut {
        events,
        deps,
        po,
        done,
        cut: sat.or(&cut),
        spinning,
        ub,
        guarded: GuardedThread {
            havocs,
            regs: regs.into_iter().collect(),
            ident,
            live,
            prefix: prefixes.then(|| PrefixStops {
                halted: sat.or(&halts),
                stops,
                justify,
            }),
        },
    })
}

/// The loops of `t` whose futile iterations a race-prefix unrolling may
/// drop: no register live at the header is assigned in the body (so the
/// registers after a dropped iteration carry the same values *and* the
/// same dependencies as before it), and every location an RMW of the body
/// may write is written with one set of scope tags only (so that the
/// scoped order of its writes is transitive and dropping some of them
/// does not join two writes that no kept write separated before,
/// docs/SEMANTICS.md, "Futile iterations").
fn futile_loops(
    p: &Program,
    t: &crate::ir::Thread,
    cfg: &Cfg,
    uniform: &BTreeSet<LocId>,
) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for (&h, &end) in &cfg.loop_end {
        let live = &cfg.live[&h];
        let body = &t.instrs[h..=end];
        let assigned = body.iter().any(|ins| {
            crate::engine::loops::uses_defs(&ins.kind)
                .1
                .is_some_and(|d| live.contains(&d))
        });
        let scoped = body.iter().all(|ins| match &ins.kind {
            InstrKind::Rmw { addr, .. } => {
                !addr.cells().is_empty()
                    && addr
                        .cells()
                        .iter()
                        .all(|&c| uniform.contains(&p.locations[c].phys))
            }
            _ => true,
        });
        if !assigned && scoped {
            out.insert(h);
        }
    }
    out
}

/// An RMW whose write may be futile (write the value it read): any but a
/// compare-and-swap, whose failure writes nothing (a spinning iteration)
/// and whose success is counted.
fn futile_rmw(ins: &crate::ir::Instr) -> bool {
    matches!(&ins.kind, InstrKind::Rmw { op, .. } if !matches!(op, RmwOp::Cas { .. }))
}

/// Where a race-prefix unrolling drops futile iterations: per thread, the
/// loops [`futile_loops`] accepts, and the physical locations their
/// futile-capable RMWs may write (empty: nothing to drop, no early stops).
#[derive(Default)]
struct Futile {
    loops: Vec<BTreeSet<usize>>,
    locs: BTreeSet<LocId>,
}

impl Futile {
    fn of(p: &Program) -> Result<Futile> {
        let uniform = uniform_scope_locations(p);
        let mut out = Futile::default();
        for (th, t) in p.threads.iter().enumerate() {
            let cfg = Cfg::new(p, th)?;
            let loops = futile_loops(p, t, &cfg, &uniform);
            for &h in &loops {
                for ins in &t.instrs[h..=cfg.loop_end[&h]] {
                    if let (true, Some(addr)) = (futile_rmw(ins), ins.kind.addr()) {
                        out.locs
                            .extend(addr.cells().iter().map(|&c| p.locations[c].phys));
                    }
                }
            }
            out.loops.push(loops);
        }
        Ok(out)
    }
}

/// Tags naming a memory scope (PTX, Vulkan).
const SCOPE_TAGS: &[&str] = &["CTA", "GPU", "SYS", "SG", "WG", "QF", "DV"];

/// The physical locations every write instruction of the program that may
/// write them gives the same scope tags (none if some write's address is
/// not a list of cells).
fn uniform_scope_locations(p: &Program) -> BTreeSet<LocId> {
    let mut scopes: BTreeMap<LocId, Option<Vec<&str>>> = BTreeMap::new();
    for ins in p.threads.iter().flat_map(|t| &t.instrs) {
        let addr = match &ins.kind {
            InstrKind::Store { addr, .. } | InstrKind::Rmw { addr, .. } => addr,
            _ => continue,
        };
        if addr.cells().is_empty() {
            return BTreeSet::new();
        }
        let mut tags: Vec<&str> = ins
            .tags
            .iter()
            .map(String::as_str)
            .filter(|t| SCOPE_TAGS.contains(t))
            .collect();
        tags.sort_unstable();
        for &c in addr.cells() {
            let e = scopes
                .entry(p.locations[c].phys)
                .or_insert_with(|| Some(tags.clone()));
            if e.as_ref().is_some_and(|x| *x != tags) {
                *e = None;
            }
        }
    }
    scopes
        .into_iter()
        .filter(|(_, s)| s.is_some())
        .map(|(l, _)| l)
        .collect()
}

/// "The iteration of the loop with header `h` ending in state `st` is a
/// spinning one."
fn spin_lit(sat: &mut Sat, cfg: &Cfg, h: usize, st: &St) -> Lit {
    match st.iter.get(&h) {
        Some(it) => spinning(sat, &cfg.live[&h], &it.live, &it.effects, &st.regs),
        None => FALSE,
    }
}

/// Whether an iteration spins: none of its `effects` (writes, barriers)
/// happened and every register `live` at its header holds the value
/// (`start`) it held when the iteration began. Shared with the
/// parametric engine's unrolling.
pub(crate) fn spinning(
    sat: &mut Sat,
    live: &[String],
    start: &[Bv],
    effects: &[Lit],
    regs: &BTreeMap<String, Bv>,
) -> Lit {
    let mut parts: Vec<Lit> = effects.iter().map(|&l| -l).collect();
    for (r, v0) in live.iter().zip(start) {
        let v = regs.get(r).cloned().unwrap_or_else(|| bv::constant(0));
        parts.push(bv::eq(sat, &v, v0));
    }
    sat.and(&parts)
}

/// Passes of the known-bits analysis (each one an unrolling into a
/// scratch solver).
const KNOWN_BITS_PASSES: usize = 4;

/// Guarded unrolling of every thread.
///
/// Known bits first: a read returns the value of some write to its
/// location (or the initial value), so a bit that is the same constant in
/// the initial value and in every write of a location is that constant in
/// every read of it. Unrolling once with every read bit unknown gives the
/// written bits; fixing the reads' known bits and unrolling again may fix
/// more (a sound, increasing iteration). The final unrolling then creates
/// variables only for the unknown bits, which folds comparisons and lets
/// `encode_rf` drop writes of incompatible values.
///
/// `pausing`: a liveness unrolling (thread statuses, the reads of each
/// spinning stop, and the pauses the progress model allows).
pub fn unroll<'p>(
    p: &'p Program,
    bound: u32,
    pausing: Option<Pausing>,
    prefixes: bool,
    sat: &mut Sat,
) -> Result<Unrolled<'p>> {
    // Early stops only where some loop has futile iterations to drop.
    let futile = match prefixes {
        true => Futile::of(p)?,
        false => Futile::default(),
    };
    let mut known: Vec<Vec<Option<bool>>> = vec![];
    for _ in 0..KNOWN_BITS_PASSES {
        let mut scratch = Sat::new();
        let pass = Pass {
            known: &known,
            scratch: true,
        };
        let u = unroll_with(p, bound, pass, pausing, &futile, &mut scratch)?;
        let next = known_bits(p, &u);
        if next == known {
            break;
        }
        known = next;
    }
    let pass = Pass {
        known: &known,
        scratch: false,
    };
    let u = unroll_with(p, bound, pass, pausing, &futile, sat)?;
    restrict_to_domains(p, bound, &u, sat);
    Ok(u)
}

/// Thread paths (all rounds together) up to which [`restrict_to_domains`]
/// computes the value domains.
const DOMAIN_PATHS: usize = 1024;

/// Where the explicit engine's value domains (docs/SEMANTICS.md) are cheap
/// to compute, every read returns a value of its location's domain, as in
/// the explicit engine. This only matters for values justified by nothing
/// but a cycle (thin air), which free bit-vectors would allow with any
/// value. Larger programs keep free values (as Dartagnan's encoding does).
fn restrict_to_domains(p: &Program, bound: u32, u: &Unrolled<'_>, sat: &mut Sat) {
    if p.locations.iter().any(|l| l.init_arbitrary.is_some()) {
        return;
    }
    let Ok(dom) = crate::engine::paths::value_domains_within(p, bound, DOMAIN_PATHS) else {
        return;
    };
    for e in &u.events {
        let (EventKind::Read, Some(ph)) = (e.ev.kind, e.ev.phys) else {
            continue;
        };
        let Some(values) = dom.get(&ph) else {
            continue;
        };
        let mut any = Vec::with_capacity(values.len());
        for &v in values {
            any.push(bv::eq(sat, &e.bits, &bv::constant(v)));
        }
        sat.clause(&any);
    }
}

/// Per physical location, the bits that are one constant in its initial
/// value and all its potential writes.
fn known_bits(p: &Program, u: &Unrolled<'_>) -> Vec<Vec<Option<bool>>> {
    let nloc = p.locations.len();
    let mut out = vec![vec![None; bv::WIDTH]; nloc];
    for (ph, k) in out.iter_mut().enumerate() {
        let srcs: Vec<&Bv> = u.init_of[ph]
            .iter()
            .chain(&u.writes[ph])
            .map(|&e| &u.events[e].bits)
            .collect();
        if srcs.is_empty() {
            continue;
        }
        for (i, slot) in k.iter_mut().enumerate() {
            let b = srcs[0][i];
            if (b == TRUE || b == FALSE) && srcs.iter().all(|s| s[i] == b) {
                *slot = Some(b == TRUE);
            }
        }
    }
    out
}

fn unroll_with<'p>(
    p: &'p Program,
    bound: u32,
    pass: Pass<'_>,
    pausing: Option<Pausing>,
    futile: &Futile,
    sat: &mut Sat,
) -> Result<Unrolled<'p>> {
    let vocab = Vocabulary::for_program(p);
    let (mut events, init_of) = init_events(p, &vocab, |l| match l.init_arbitrary {
        Some(ty) => (vec![], bv::free(sat, ty)),
        None => (vec![], bv::constant(l.init)),
    });
    // One value per input, shared by every thread (inputs are uniform).
    let inputs: Vec<Bv> = p
        .inputs
        .iter()
        .map(|i| match i.value {
            Some(v) => bv::constant(v),
            None => bv::free(sat, i.ty),
        })
        .collect();
    let mut threads = Vec::new();
    let mut po = Vec::new();
    let mut dep_lists: [Vec<(usize, usize, Lit)>; 4] = Default::default();
    for th in 0..p.threads.len() {
        let mut out = unroll_thread(p, th, bound, &vocab, pass, &inputs, pausing, futile, sat)?;
        let base = events.len();
        if let Some(pre) = &mut out.guarded.prefix {
            for (_, evs) in pre.stops.iter_mut().chain(pre.justify.iter_mut()) {
                for e in evs.iter_mut() {
                    *e += base;
                }
            }
        }
        if let Some(live) = &mut out.guarded.live {
            for (_, reads) in &mut live.spins {
                for r in reads.iter_mut() {
                    *r += base;
                }
            }
        }
        let m = out.events.len();
        if po.is_empty() && base == 0 {
            // The first thread's pairs are the list (no copy of a
            // quadratic list).
            po = std::mem::take(&mut out.po);
        } else {
            po.extend(out.po.iter().map(|&(a, b)| (base + a, base + b)));
        }
        for (k, list) in out.deps.iter().enumerate() {
            for &(a, b, l) in list {
                dep_lists[k].push((base + a, base + b, l));
            }
        }
        events.extend(out.events);
        threads.push(ThreadUnroll {
            paths: vec![],
            sel: vec![],
            path_events: vec![],
            events: (base..base + m).collect(),
            done: out.done,
            cut: out.cut,
            spinning: out.spinning,
            paused: out.guarded.prefix.as_ref().map_or(FALSE, |x| x.halted),
            ub: out.ub,
            sym: None,
            guarded: Some(out.guarded),
        });
    }
    let n = events.len();
    let rel = |pairs: &[(usize, usize, Lit)], sat: &mut Sat| {
        let mut acc = RelAcc::new(n);
        for &(a, b, l) in pairs {
            acc.add(a, b, l);
        }
        acc.finish(sat)
    };
    let po_pairs: Vec<(usize, usize, Lit)> = po.into_iter().map(|(a, b)| (a, b, TRUE)).collect();
    let rels = [
        rel(&po_pairs, sat),
        rel(&dep_lists[3], sat),
        rel(&dep_lists[0], sat),
        rel(&dep_lists[1], sat),
        rel(&dep_lists[2], sat),
    ];
    let mut u = Unrolled::assemble(p, bound, vocab, events, threads, init_of, rels);
    u.inputs = inputs;
    Ok(u)
}
