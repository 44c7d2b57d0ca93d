//! Per-thread path enumeration: unrolling under the loop bound.
//!
//! Each thread is executed on its own with *guessed* read values: every
//! read may return any value of its location's value domain (see
//! [`value_domains`]). The result is the set of thread paths, each a list
//! of events with concrete values, final registers, and how it ended.
//! Matching reads to writes of the same value (rf) happens later, per
//! combination of paths, so a guessed value nobody writes just yields no
//! execution.
//!
//! Loops ([`super::loops`], docs/SEMANTICS.md). A jump to an earlier label
//! is a back-edge. A loop body may run at most `bound` times per entry:
//! taking a back-edge for the `bound`-th time cuts the path
//! ([`PathEnd::Cut`]). A *spinning* iteration (no write or barrier, the
//! registers live at the header unchanged; Tong et al., ASPLOS'24 §6.4)
//! changes nothing the next iteration could build on, so its back-edge is
//! never taken: the path stops there as [`PathEnd::Spinning`], with that
//! iteration's events marked. Such a path has no final state; it stands
//! for a thread that is still waiting, which liveness asks about, and
//! which final-state questions need only as the partner of another
//! thread's cut or undefined behaviour: a thread waiting for a thread the
//! bound cuts has no other path to combine with it.

use super::loops::Cfg;
use crate::diag::{Error, Result};
use crate::ir::{Addr, BinOp, CmpOp, Instr, InstrKind, LocId, Operand, Program, RmwOp, Thread};
use std::collections::{BTreeSet, HashMap};

/// What an event of a path does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathEventKind {
    Read,
    Write,
    Fence,
    Barrier {
        id: i64,
        count: Option<i64>,
        arrive: bool,
    },
}

/// One event of a thread path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathEvent {
    pub kind: PathEventKind,
    /// Index of the producing instruction in `Thread::instrs`.
    pub instr: usize,
    /// Virtual address accessed (memory events).
    pub loc: Option<LocId>,
    /// Value read or written.
    pub value: i64,
    /// For the write half of an RMW: index (in the path) of its read half.
    pub rmw_read: Option<usize>,
    /// Reads (path indices) this event's address depends on (empty for
    /// fixed addresses: every litmus access).
    pub addr_deps: Vec<usize>,
    /// Reads whose values flow into the value written.
    pub data_deps: Vec<usize>,
    /// Reads that decided a branch taken before this event.
    pub ctrl_deps: Vec<usize>,
    /// Part of the final, non-exiting spinning iteration (only in
    /// [`PathEnd::Spinning`] paths).
    pub spinning: bool,
}

/// How a path ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathEnd {
    /// Ran to the end of the thread.
    Done,
    /// A back-edge would exceed the loop bound.
    Cut,
    /// Waits forever at its last event, a barrier.
    Stuck,
    /// Stopped at the back-edge of a spinning iteration: the path's last
    /// iteration is a complete non-exiting one that changed nothing, and
    /// every later one would repeat it. No final state.
    Spinning,
    /// (Liveness) a strict prefix of a path: the thread is not scheduled
    /// again. Never produced by [`thread_paths`]; the liveness check builds
    /// such paths for threads the progress model may starve.
    Paused,
}

#[derive(Clone, Debug)]
pub struct ThreadPath {
    pub events: Vec<PathEvent>,
    /// Final register values (sorted by name).
    pub regs: Vec<(String, i64)>,
    /// The value each executed `Havoc` chose: (instruction, value), in
    /// program order (for witnesses).
    pub undefs: Vec<(usize, i64)>,
    pub end: PathEnd,
    /// The undefined behaviour that ended the path (then `end` is
    /// [`PathEnd::Done`]).
    pub ub: Option<Ub>,
}

/// Undefined behaviour: every property fails on an execution that reaches
/// it (docs/SEMANTICS.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ub {
    /// The instruction is `Unreachable`.
    Unreachable { instr: usize },
    /// The instruction's run-time address has index `index`, out of
    /// bounds.
    OutOfBounds { instr: usize, index: i64 },
    /// The instruction divides (or takes the remainder) by zero, or
    /// divides the least signed value by -1 (`divisor` tells which).
    /// `origin`: the instructions of the reads the divisor's value came
    /// from, in program order (empty: a constant or a free value).
    Division {
        instr: usize,
        divisor: i64,
        origin: Vec<usize>,
    },
}

impl Ub {
    /// The verdict's note for thread `th` of `p`.
    pub fn describe(&self, p: &Program, th: usize) -> String {
        let t = &p.threads[th];
        match *self {
            Ub::Unreachable { instr } => match t.instrs.get(instr) {
                // The cause names its position (and quotes in excerpts).
                Some(
                    i @ Instr {
                        kind: InstrKind::Unreachable { cause: Some(cause) },
                        ..
                    },
                ) => format!(
                    "undefined behaviour: {} (thread {})",
                    p.cause_at(cause, i),
                    t.name
                ),
                i => format!(
                    "undefined behaviour: thread {} reaches unreachable code (line {})",
                    t.name,
                    i.map_or(0, |i| i.pos.line)
                ),
            },
            Ub::OutOfBounds { instr, index } => {
                let ins = &t.instrs[instr];
                let array = match ins.kind.addr() {
                    Some(Addr::Indexed(x)) => x.array.as_str(),
                    _ => "?",
                };
                format!(
                    "undefined behaviour: out-of-bounds access to {array} at {}, index {index} (thread {})",
                    ins.pos, t.name
                )
            }
            Ub::Division {
                instr,
                divisor,
                ref origin,
            } => {
                let ins = &t.instrs[instr];
                let rem = matches!(
                    ins.kind,
                    InstrKind::Local {
                        op: BinOp::Rem | BinOp::Urem,
                        ..
                    }
                );
                let what = match (divisor, rem) {
                    (0, false) => "division by zero",
                    (0, true) => "remainder by zero",
                    (_, false) => "division overflow (the least value divided by -1)",
                    (_, true) => "remainder overflow (the least value divided by -1)",
                };
                let operand = match &ins.kind {
                    // Front-ends name their temporaries with a `#`.
                    InstrKind::Local {
                        b: Operand::Reg(r), ..
                    } if !r.contains('#') => format!("`{r}` = {divisor}"),
                    _ => format!("is {divisor}"),
                };
                let from: Vec<String> = origin
                    .iter()
                    .filter_map(|&k| t.instrs.get(k))
                    .map(|r| format!("`{}` at {}", crate::diag::excerpt(&r.text), r.pos))
                    .collect();
                let from = match from.is_empty() {
                    true => String::new(),
                    false => format!(", read by {}", from.join(" and ")),
                };
                format!(
                    "undefined behaviour: {what} at {} (`{}`, thread {}): the divisor {operand}{from}",
                    ins.pos,
                    crate::diag::excerpt(&ins.text),
                    t.name
                )
            }
        }
    }
}

impl ThreadPath {
    pub fn reg(&self, name: &str) -> i64 {
        self.regs
            .iter()
            .find(|(r, _)| r == name)
            .map(|(_, v)| *v)
            .unwrap_or(0)
    }
}

/// Limits that keep enumeration finite and fast.
const MAX_DOMAIN: usize = 64;
const MAX_PATHS: usize = 200_000;

/// Per physical location, the values a read may return.
pub type Domains = HashMap<LocId, BTreeSet<i64>>;

/// Per physical location, the values some write may store.
///
/// A written value is computed from values read, which were written
/// before in a causal chain; a chain has at most one step per write event
/// of the program. So `rounds` = (number of write instructions × bound)
/// rounds of "run every thread with reads returning known values, collect
/// the values written" reach every value of every execution without
/// out-of-thin-air cycles. Values justified only by themselves (thin air)
/// can only arise where the model allows such cycles; the domains are
/// seeded with every constant the filter and the assertion mention, so a
/// thin-air execution producing a value the test asks about is found
/// (docs/SEMANTICS.md).
pub fn value_domains(p: &Program, bound: u32) -> Result<Domains> {
    value_domains_within(p, bound, MAX_PATHS)
}

/// What the explicit engine's refusal of an arbitrary initial value
/// advises; left out where the symbolic engine has already run
/// (`driver`, under `--engine auto`).
pub const USE_SYMBOLIC: &str =
    " (an arbitrary initial value needs the symbolic engine: --engine symbolic)";

/// The explicit engine enumerates values: a location with an arbitrary
/// initial value is refused (`unsupported`, at its first access).
pub fn arbitrary_initial_values(p: &Program) -> Result<()> {
    if let Some(l) = p.locations.iter().find(|l| l.init_arbitrary.is_some()) {
        let e = Error::new(
            crate::diag::ErrorKind::Unsupported,
            format!("unsupported: `{}` is uninitialised{USE_SYMBOLIC}", l.name),
        );
        // Point at the first access that may reach it, if any.
        let access = p.threads.iter().flat_map(|t| &t.instrs).find(|i| {
            i.kind
                .addr()
                .is_some_and(|a| a.cells().iter().any(|&c| p.locations[c].phys == l.phys))
        });
        return Err(match access {
            Some(i) => e.at(i.pos),
            None => e,
        });
    }
    Ok(())
}

/// [`value_domains`], refused (`unsupported`) once the rounds together
/// explore more than `max_paths` thread paths.
pub fn value_domains_within(p: &Program, bound: u32, max_paths: usize) -> Result<Domains> {
    let mut budget = max_paths;
    arbitrary_initial_values(p)?;
    let mut dom: Domains = HashMap::new();
    let mut asked: Vec<i64> = Vec::new();
    for c in p.filter.iter().chain(p.assertion.iter().map(|a| &a.cond)) {
        c.constants(&mut asked);
    }
    for l in &p.locations {
        let d = dom.entry(l.phys).or_default();
        d.insert(l.init);
        d.extend(asked.iter().copied());
    }
    let writers: usize = p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .filter(|i| matches!(i.kind, InstrKind::Store { .. } | InstrKind::Rmw { .. }))
        .count();
    // `--bound` is the user's: a product that cannot wrap.
    let rounds = writers.saturating_mul(bound.max(1) as usize);
    for _ in 0..rounds {
        let mut next = dom.clone();
        for th in 0..p.threads.len() {
            let reads = Reads::Domains(&dom);
            let paths = explore(p, th, bound, reads, true, budget)?;
            budget -= paths.len().min(budget);
            for path in paths {
                for e in &path.events {
                    if e.kind == PathEventKind::Write {
                        let phys = p.locations[e.loc.unwrap()].phys;
                        next.entry(phys).or_default().insert(e.value);
                    }
                }
            }
        }
        if next.values().any(|s| s.len() > MAX_DOMAIN) {
            return Err(Error::new(
                crate::diag::ErrorKind::Unsupported,
                format!("unsupported: more than {MAX_DOMAIN} distinct values for one location"),
            ));
        }
        if next == dom {
            break;
        }
        dom = next;
    }
    Ok(dom)
}

/// All paths of thread `th` under `bound`, reads drawing from `dom`.
pub fn thread_paths(p: &Program, th: usize, bound: u32, dom: &Domains) -> Result<Vec<ThreadPath>> {
    explore(p, th, bound, Reads::Domains(dom), false, MAX_PATHS)
}

/// The paths of thread `th` whose reads return `reads`, whose undefined
/// values are `havocs`, in order, and whose free inputs are `inputs`
/// (one path, plus the prefixes that wait
/// forever at a barrier). Reaching `Unreachable` ends a path as `Done`; a
/// path about to produce event number `limit` (counting from 0) ends
/// there as `Paused`. Used to rebuild the exact path (events,
/// dependencies, registers) behind a symbolic model.
pub fn replay_paths(
    p: &Program,
    th: usize,
    bound: u32,
    forced: Forced<'_>,
) -> Result<Vec<ThreadPath>> {
    explore(p, th, bound, Reads::Forced(forced), false, MAX_PATHS)
}

/// The values a replayed path reads, in order, and where it stops.
#[derive(Clone, Copy)]
pub struct Forced<'a> {
    pub reads: &'a [i64],
    pub havocs: &'a [i64],
    /// The value of every input of [`Program::inputs`], by index (a value
    /// fixed there wins).
    pub inputs: &'a [i64],
    /// Events the path produces at most before it is paused.
    pub limit: usize,
}

/// Where read values come from.
#[derive(Clone, Copy)]
enum Reads<'a> {
    /// Every value of the location's domain (one path each).
    Domains(&'a Domains),
    /// Given values, in order.
    Forced(Forced<'a>),
}

#[derive(Clone)]
struct State {
    pc: usize,
    regs: HashMap<String, i64>,
    /// Reads (path indices) each register's value depends on.
    taint: HashMap<String, Vec<usize>>,
    ctrl: Vec<usize>,
    events: Vec<PathEvent>,
    undefs: Vec<(usize, i64)>,
    /// Loop header → back-edges to it taken since the loop was entered.
    back_edges: HashMap<usize, u32>,
    /// The last step was a back-edge.
    via_back: bool,
    /// Header → (events so far, live registers' values) at the start of
    /// the current iteration.
    iter_start: HashMap<usize, (usize, Vec<i64>)>,
    /// Forced mode: reads and undefined values consumed.
    forced: (usize, usize),
    ub: Option<Ub>,
}

impl State {
    fn blank() -> State {
        State {
            pc: 0,
            regs: HashMap::new(),
            taint: HashMap::new(),
            ctrl: vec![],
            events: vec![],
            undefs: vec![],
            back_edges: HashMap::new(),
            via_back: false,
            iter_start: HashMap::new(),
            forced: (0, 0),
            ub: None,
        }
    }
    fn new(t: &Thread) -> State {
        let mut s = State::blank();
        for (r, v) in &t.init_regs {
            s.regs.insert(r.clone(), *v);
        }
        s
    }
    fn val(&self, o: &Operand) -> i64 {
        match o {
            Operand::Const(c) => *c,
            Operand::Reg(r) => self.reg(r),
        }
    }
    fn reg(&self, r: &str) -> i64 {
        self.regs.get(r).copied().unwrap_or(0)
    }
    fn deps(&self, o: &Operand) -> Vec<usize> {
        match o {
            Operand::Const(_) => vec![],
            Operand::Reg(r) => self.taint.get(r).cloned().unwrap_or_default(),
        }
    }
    /// The location `a` reaches in this state and the reads it depends
    /// on; `Err(index)` when the index is out of bounds.
    fn address(&self, a: &Addr) -> std::result::Result<(LocId, Vec<usize>), i64> {
        match a.index() {
            None => Ok((a.cells()[0], vec![])),
            Some(ix) => {
                let v = self.val(ix);
                a.resolve(v).map(|l| (l, self.deps(ix))).ok_or(v)
            }
        }
    }
    fn push(&mut self, kind: PathEventKind, instr: usize, loc: Option<LocId>, value: i64) -> usize {
        self.events.push(PathEvent {
            kind,
            instr,
            loc,
            value,
            rmw_read: None,
            addr_deps: vec![],
            data_deps: vec![],
            ctrl_deps: self.ctrl.clone(),
            spinning: false,
        });
        self.events.len() - 1
    }
    fn finish(self, end: PathEnd) -> ThreadPath {
        let mut regs: Vec<(String, i64)> = self.regs.into_iter().collect();
        regs.sort();
        ThreadPath {
            events: self.events,
            regs,
            undefs: self.undefs,
            end,
            ub: self.ub,
        }
    }
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The values a read of `phys` may return in this state: the domain, or
/// the next forced value (none when the forced values ran out).
fn read_values(reads: Reads<'_>, s: &mut State, phys: LocId) -> Vec<i64> {
    match reads {
        Reads::Domains(dom) => dom[&phys].iter().copied().collect(),
        Reads::Forced(f) => {
            let v = f.reads.get(s.forced.0).copied();
            s.forced.0 += 1;
            v.into_iter().collect()
        }
    }
}

/// Depth-first exploration. `domain_pass` is the cheap mode used by
/// [`value_domains`]: it never discards paths for reasons other than the
/// bound.
fn explore(
    p: &Program,
    th: usize,
    bound: u32,
    reads: Reads<'_>,
    domain_pass: bool,
    max_paths: usize,
) -> Result<Vec<ThreadPath>> {
    let t = &p.threads[th];
    let cfg = Cfg::new(p, th)?;
    // Representatives of each undefined value (`engine::inputs`).
    let mut havoc_values: HashMap<usize, Vec<i64>> = HashMap::new();
    let mut out = Vec::new();
    let mut stack = vec![State::new(t)];
    'paths: while let Some(mut s) = stack.pop() {
        if out.len() + stack.len() > max_paths {
            return Err(Error::new(
                crate::diag::ErrorKind::Unsupported,
                format!(
                    "unsupported: thread {} has more than {max_paths} paths under this bound",
                    t.name
                ),
            ));
        }
        crate::guard::check()?;
        let mut steps = 0u32;
        loop {
            // One path can be long (a writing loop under `--bound 10^8`):
            // the guard is checked along it too, and before its events
            // outgrow the memory budget (growing the vector needs the old
            // and the new buffer at once), rather than the allocation
            // aborting the process.
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(4096) {
                crate::guard::check()?;
            }
            if s.events.len() == s.events.capacity() && s.events.capacity() >= 4096 {
                let bytes = 3 * s.events.capacity() * std::mem::size_of::<PathEvent>();
                crate::guard::check_estimate(
                    bytes as u64,
                    &format!(
                        "a path of thread {} with over {} events (is --bound {bound} too large?)",
                        t.name,
                        s.events.len()
                    ),
                )?;
            }
            let Some(ins) = t.instrs.get(s.pc) else {
                out.push(s.finish(PathEnd::Done));
                break;
            };
            let i = s.pc;
            s.pc += 1;
            if cfg.headers.contains_key(&i) {
                if !s.via_back {
                    s.back_edges.remove(&i);
                }
                let live: Vec<i64> = cfg.live[&i].iter().map(|r| s.reg(r)).collect();
                s.iter_start.insert(i, (s.events.len(), live));
            }
            s.via_back = false;
            if let Reads::Forced(f) = reads {
                let visible = matches!(
                    ins.kind,
                    InstrKind::Load { .. }
                        | InstrKind::Store { .. }
                        | InstrKind::Rmw { .. }
                        | InstrKind::Fence
                        | InstrKind::Barrier { .. }
                );
                if visible && s.events.len() >= f.limit {
                    out.push(s.finish(PathEnd::Paused));
                    break;
                }
            }
            // An address out of bounds ends the path (undefined behaviour).
            if let Some(Err(index)) = ins.kind.addr().map(|a| s.address(a)) {
                s.ub = Some(Ub::OutOfBounds { instr: i, index });
                out.push(s.finish(PathEnd::Done));
                break;
            }
            match &ins.kind {
                InstrKind::Label(_) => {}
                InstrKind::Havoc { dst, .. } => {
                    let values = match reads {
                        Reads::Forced(f) => {
                            let v = f.havocs.get(s.forced.1).copied();
                            s.forced.1 += 1;
                            v.into_iter().collect()
                        }
                        Reads::Domains(_) => match havoc_values.get(&i) {
                            Some(v) => v.clone(),
                            None => {
                                let v = super::inputs::havoc_domain(p, th, i)?;
                                havoc_values.insert(i, v.clone());
                                v
                            }
                        },
                    };
                    let Some((&last, rest)) = values.split_last() else {
                        continue 'paths;
                    };
                    for &v in rest {
                        let mut s2 = s.clone();
                        s2.regs.insert(dst.clone(), v);
                        s2.taint.insert(dst.clone(), vec![]);
                        s2.undefs.push((i, v));
                        stack.push(s2);
                    }
                    s.regs.insert(dst.clone(), last);
                    s.taint.insert(dst.clone(), vec![]);
                    s.undefs.push((i, last));
                }
                InstrKind::Input { dst, input } => {
                    let v = match (p.inputs.get(*input), reads) {
                        (Some(crate::ir::Input { value: Some(v), .. }), _) => *v,
                        (Some(_), Reads::Forced(f)) if *input < f.inputs.len() => f.inputs[*input],
                        (Some(x), _) => {
                            return Err(Error::unsupported(
                                ins.pos,
                                format!(
                                    "the free input `{}` is not fixed (the explicit engine checks one valuation of the inputs at a time)",
                                    x.name
                                ),
                            ))
                        }
                        (None, _) => {
                            return Err(Error::semantic(
                                ins.pos,
                                format!("input {input} is not declared"),
                            ))
                        }
                    };
                    s.regs.insert(dst.clone(), v);
                    s.taint.insert(dst.clone(), vec![]);
                }
                // A failed assumption: no execution takes this path. Its
                // writes so far still count towards the value domains: an
                // assumption on a value another thread writes (a warp
                // collective's exchange) fails until that thread's write
                // is in the domain, and that thread's may in turn wait
                // for this one's.
                InstrKind::Infeasible => {
                    if domain_pass {
                        out.push(s.finish(PathEnd::Paused));
                    }
                    break;
                }
                InstrKind::Unreachable { .. } => {
                    s.ub = Some(Ub::Unreachable { instr: i });
                    out.push(s.finish(PathEnd::Done));
                    break;
                }
                InstrKind::Local { dst, op, a, b } => {
                    let Some(v) = eval_binop(*op, s.val(a), s.val(b)) else {
                        // Undefined behaviour: the thread stops here.
                        let origin = s.deps(b).iter().map(|&e| s.events[e].instr).collect();
                        s.ub = Some(Ub::Division {
                            instr: i,
                            divisor: s.val(b),
                            origin,
                        });
                        out.push(s.finish(PathEnd::Done));
                        break;
                    };
                    let d = union(&s.deps(a), &s.deps(b));
                    s.regs.insert(dst.clone(), v);
                    s.taint.insert(dst.clone(), d);
                }
                InstrKind::Fence => {
                    s.push(PathEventKind::Fence, i, None, 0);
                }
                InstrKind::Barrier { id, count, arrive } => {
                    let kind = PathEventKind::Barrier {
                        id: s.val(id),
                        count: count.as_ref().map(|c| s.val(c)),
                        arrive: *arrive,
                    };
                    s.push(kind, i, None, 0);
                    if !*arrive && !domain_pass {
                        // The thread may also wait here forever; whether it
                        // does is decided per execution (barrier matching).
                        let mut stuck = s.clone();
                        stuck.pc = usize::MAX;
                        out.push(stuck.finish(PathEnd::Stuck));
                    }
                }
                InstrKind::Load { dst, addr } => {
                    let (loc, ad) = s.address(addr).expect("in bounds");
                    let phys = p.locations[loc].phys;
                    let values = read_values(reads, &mut s, phys);
                    let Some((&last, rest)) = values.split_last() else {
                        continue 'paths;
                    };
                    for &v in rest {
                        let mut s2 = s.clone();
                        let e = s2.push(PathEventKind::Read, i, Some(loc), v);
                        s2.events[e].addr_deps = ad.clone();
                        s2.regs.insert(dst.clone(), v);
                        s2.taint.insert(dst.clone(), vec![e]);
                        stack.push(s2);
                    }
                    let e = s.push(PathEventKind::Read, i, Some(loc), last);
                    s.events[e].addr_deps = ad;
                    s.regs.insert(dst.clone(), last);
                    s.taint.insert(dst.clone(), vec![e]);
                }
                InstrKind::Store { addr, value } => {
                    let (loc, ad) = s.address(addr).expect("in bounds");
                    let v = s.val(value);
                    let d = s.deps(value);
                    let e = s.push(PathEventKind::Write, i, Some(loc), v);
                    s.events[e].data_deps = d;
                    s.events[e].addr_deps = ad;
                }
                InstrKind::Rmw {
                    dst,
                    addr,
                    op,
                    operand,
                } => {
                    let (loc, ad) = s.address(addr).expect("in bounds");
                    let phys = p.locations[loc].phys;
                    let values = read_values(reads, &mut s, phys);
                    let opv = s.val(operand);
                    let opd = s.deps(operand);
                    let mut branches = Vec::new();
                    for &old in &values {
                        let mut s2 = s.clone();
                        let r = s2.push(PathEventKind::Read, i, Some(loc), old);
                        s2.events[r].addr_deps = ad.clone();
                        if let Some(d) = dst {
                            s2.regs.insert(d.clone(), old);
                            s2.taint.insert(d.clone(), vec![r]);
                        }
                        let new = match op {
                            RmwOp::Cas { expected } => {
                                if old == s2.val(expected) {
                                    Some(opv)
                                } else {
                                    None
                                }
                            }
                            other => Some(rmw_value(other, old, opv)),
                        };
                        // A failed CAS is a plain read.
                        if let Some(new) = new {
                            let w = s2.push(PathEventKind::Write, i, Some(loc), new);
                            s2.events[w].rmw_read = Some(r);
                            s2.events[w].data_deps = opd.clone();
                            s2.events[w].addr_deps = ad.clone();
                        }
                        branches.push(s2);
                    }
                    let Some(last) = branches.pop() else {
                        continue 'paths;
                    };
                    s = last;
                    stack.extend(branches);
                }
                InstrKind::Branch { op, a, b, target } => {
                    let taken = cmp(*op, s.val(a), s.val(b));
                    let d = union(&s.deps(a), &s.deps(b));
                    s.ctrl = union(&s.ctrl, &d);
                    if taken && !jump(&mut s, &cfg, i, target, bound, domain_pass, &mut out) {
                        break;
                    }
                }
                InstrKind::Goto(target) => {
                    if !jump(&mut s, &cfg, i, target, bound, domain_pass, &mut out) {
                        break;
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Whether the iteration of the loop with header `ti` that ends now is a
/// spinning one: no write or barrier since it started, and every register
/// live at the header has the value it had then.
fn spinning_iteration(s: &State, cfg: &Cfg, ti: usize) -> Option<usize> {
    let (start, live_vals) = s.iter_start.get(&ti)?;
    let quiet = s.events[*start..]
        .iter()
        .all(|e| matches!(e.kind, PathEventKind::Read | PathEventKind::Fence));
    let same = cfg.live[&ti]
        .iter()
        .zip(live_vals)
        .all(|(r, v)| s.reg(r) == *v);
    (quiet && same).then_some(*start)
}

/// Performs a jump; returns false when the path ended (pushed to `out`).
fn jump(
    s: &mut State,
    cfg: &Cfg,
    at: usize,
    target: &str,
    bound: u32,
    domain_pass: bool,
    out: &mut Vec<ThreadPath>,
) -> bool {
    let ti = cfg.labels[target];
    if ti > at {
        s.pc = ti;
        return true;
    }
    if !domain_pass {
        if let Some(start) = spinning_iteration(s, cfg, ti) {
            // The iteration just completed did not exit and changed
            // nothing: later iterations would repeat it, so the path
            // stops here. It is kept, not dropped: liveness decides
            // whether the thread can stay so, and a final-state check
            // needs it as the partner of a cut in another thread (which
            // this thread may be waiting for) to see the bound hit.
            let mut done = std::mem::replace(s, State::blank());
            for e in done.events[start..].iter_mut() {
                e.spinning = true;
            }
            out.push(done.finish(PathEnd::Spinning));
            return false;
        }
    }
    let n = s.back_edges.entry(ti).or_insert(0);
    *n += 1;
    if *n >= bound.max(1) {
        let cut = std::mem::replace(s, State::blank());
        out.push(cut.finish(PathEnd::Cut));
        return false;
    }
    s.pc = ti;
    s.via_back = true;
    true
}

fn cmp(op: CmpOp, a: i64, b: i64) -> bool {
    op.eval(a, b)
}

/// The value of a local operation; `None` for division by zero.
pub fn eval_binop(op: BinOp, a: i64, b: i64) -> Option<i64> {
    op.eval(a, b)
}

pub(crate) fn rmw_value(op: &RmwOp, old: i64, v: i64) -> i64 {
    debug_assert!(!matches!(op, RmwOp::Cas { .. }), "handled by the caller");
    op.apply(old, v)
}
