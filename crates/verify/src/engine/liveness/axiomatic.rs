//! Stuck configurations over the model's executions (Tong et al., ASPLOS'24 §6.4,
//! extended to progress models), for programs whose loops are all
//! side-effect-free spinloops.
//!
//! A configuration picks, per thread, one of: a complete path
//! (terminated), a path ending in a non-exiting spinloop iteration
//! (spinning), a path waiting forever at a barrier (blocked), or a prefix
//! of a path (paused: the scheduler never runs the thread again). It is a
//! violation when the explicit engine finds a consistent candidate for it
//! in which every read of every spinning iteration reads from a
//! co-maximal write and the thread, reading final values from there on,
//! never leaves the loop, and every entity the progress model guarantees
//! keeps running (a spinning thread) or waits (blocked threads); see
//! [`Hierarchy::fair_ok`] and docs/LIVENESS.md §3.

use super::interp::{Code, Local};
use super::progress::{Hierarchy, ProgressSpec};
use crate::cat::{Evaluator, Model};
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::exec::EventKind;
use crate::engine::explicit;
use crate::engine::paths::{
    thread_paths, value_domains, PathEnd, PathEvent, PathEventKind, ThreadPath,
};
use crate::engine::witness::Witness;
use crate::engine::{Candidate, Observer};
use crate::ir::Program;
use std::collections::HashSet;

/// What a thread does in a stuck configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Terminated,
    Spinning,
    Blocked,
    Paused,
}

pub struct Found {
    pub statuses: Vec<Status>,
    /// Whether each paused thread has taken a step.
    pub stepped: u64,
    pub fair: u64,
    pub witness: Witness,
    /// Per spinning thread: (line of the loop's first event, reads of the
    /// spinning iteration as `location=value`).
    pub spins: Vec<(usize, u32, Vec<String>)>,
}

pub struct Outcome {
    pub found: Option<Found>,
    /// Consistent candidates examined.
    pub executions: u64,
    /// Why a PASS would not be definite (registers carried across
    /// spinloop iterations, a spinning thread too long to follow).
    pub incomplete: Option<String>,
}

/// A configuration's threads as bit masks.
#[derive(Clone, Copy, Debug)]
pub struct Masks {
    /// Threads that took a step (every thread but a paused one that never
    /// started).
    pub stepped: u64,
    pub terminated: u64,
    pub spinning: u64,
    pub blocked: u64,
}

impl Masks {
    /// `paused_stepped`: the paused threads that took a step.
    pub fn of(statuses: &[Status], paused_stepped: u64) -> Masks {
        let mask = |st: Status| {
            (0..statuses.len())
                .filter(|&t| statuses[t] == st)
                .fold(0u64, |a, t| a | 1 << t)
        };
        let all = 1u64
            .checked_shl(statuses.len() as u32)
            .map_or(u64::MAX, |x| x - 1);
        Masks {
            stepped: !mask(Status::Paused) & all | paused_stepped,
            terminated: mask(Status::Terminated),
            spinning: mask(Status::Spinning),
            blocked: mask(Status::Blocked),
        }
    }

    /// The progress model's condition for a stuck configuration.
    pub fn fair_ok(&self, hier: &Hierarchy) -> bool {
        hier.fair_ok(self.stepped, self.terminated, self.spinning, self.blocked)
    }
}

/// One thing a thread may do in a configuration.
struct Choice {
    path: ThreadPath,
    status: Status,
    /// Spinning paths: the local state after the path's last back-edge.
    end: Option<Local>,
}

fn status_of(end: PathEnd) -> Option<Status> {
    match end {
        PathEnd::Done => Some(Status::Terminated),
        PathEnd::Spinning => Some(Status::Spinning),
        PathEnd::Stuck => Some(Status::Blocked),
        PathEnd::Paused => Some(Status::Paused),
        PathEnd::Cut => None,
    }
}

/// The thread's local state at the end of a spinning path: its reads
/// replayed, up to and including the back-edge that ends the path.
pub fn end_state(code: &Code, path: &ThreadPath) -> Option<Local> {
    let mut reads = path
        .events
        .iter()
        .filter(|e| e.kind == PathEventKind::Read)
        .map(|e| e.value);
    let total = path.events.len();
    let mut events = 0usize;
    let mut l: Local = code.init.clone();
    for _ in 0..1_000_000 {
        let pc = l.pc;
        if pc >= code.len() {
            return None;
        }
        if code.ops[pc].visible() {
            let mut short = false;
            let eff = code.exec(&mut l, |_| {
                reads.next().unwrap_or_else(|| {
                    short = true;
                    0
                })
            });
            if short {
                return None;
            }
            events += usize::from(eff.read.is_some())
                + usize::from(eff.written.is_some())
                + usize::from(eff.loc.is_none());
            continue;
        }
        code.step_local(&mut l).ok()?;
        if l.pc <= pc && events >= total {
            return Some(l);
        }
    }
    None
}

/// Runs the thread from `start` with every read returning `value(loc)`:
/// `Some(true)` if it runs forever without writing memory or reaching a
/// barrier, `Some(false)` if it terminates, writes or reaches a barrier,
/// `None` if it runs too long to tell.
pub fn spins_forever(code: &Code, start: &Local, value: &dyn Fn(usize) -> i64) -> Option<bool> {
    let mut l = start.clone();
    let mut seen: HashSet<Local> = HashSet::new();
    for _ in 0..100_000 {
        if code.run_local(&mut l).is_err() {
            return None;
        }
        if l.pc == super::interp::DIVERGED {
            return Some(true);
        }
        if code.terminated(&l) {
            return Some(false);
        }
        if matches!(
            code.ops[l.pc],
            super::interp::Op::Store { .. } | super::interp::Op::Barrier
        ) {
            return Some(false);
        }
        if !seen.insert(l.clone()) {
            return Some(true);
        }
        let eff = code.exec(&mut l, value);
        if eff.written.is_some() {
            return Some(false);
        }
    }
    None
}

/// Registers carried from one iteration of a spinloop to the next: live
/// at the loop head and written inside some spinloop. Without them,
/// dropping a non-exiting iteration changes nothing, so considering only
/// paths that spin in their first iteration is complete.
pub fn carried_registers(code: &Code) -> Vec<usize> {
    use super::interp::Op;
    let n = code.len();
    let succ = |i: usize| -> Vec<usize> {
        match &code.ops[i] {
            Op::Goto(t) => vec![*t],
            Op::Branch { target, .. } => vec![i + 1, *target],
            _ => vec![i + 1],
        }
    };
    let nregs = code.reg_names.len();
    // live[i]: registers live before instruction i.
    let mut live: Vec<Vec<bool>> = vec![vec![false; nregs]; n + 1];
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut out = vec![false; nregs];
            for s in succ(i) {
                if s <= n {
                    for r in 0..nregs {
                        out[r] |= live[s][r];
                    }
                }
            }
            if let Some(d) = code.def(i) {
                out[d] = false;
            }
            for u in code.uses(i) {
                out[u] = true;
            }
            if out != live[i] {
                live[i] = out;
                changed = true;
            }
        }
    }
    let mut written = vec![false; nregs];
    let mut heads = vec![];
    for i in 0..n {
        let t = match &code.ops[i] {
            Op::Goto(t) | Op::Branch { target: t, .. } => *t,
            _ => continue,
        };
        if t <= i {
            heads.push(t);
            for k in t..=i {
                if let Some(d) = code.def(k) {
                    written[d] = true;
                }
            }
        }
    }
    let mut out = vec![];
    for r in 0..nregs {
        if written[r] && heads.iter().any(|&h| live[h][r]) {
            out.push(r);
        }
    }
    out
}

/// Strict prefixes of `path` that do not split an RMW (and, for spinning
/// paths, the whole path), as paused paths.
fn prefixes(path: &ThreadPath, out: &mut Vec<ThreadPath>, seen: &mut HashSet<Vec<(usize, i64)>>) {
    let n = path.events.len();
    let last = if path.end == PathEnd::Spinning {
        n
    } else {
        n.saturating_sub(1)
    };
    for k in 0..=last.min(n) {
        if k < n && k > 0 {
            // Do not stop between the two halves of an RMW.
            if path.events[k].rmw_read == Some(k - 1) {
                continue;
            }
        }
        if k == n && path.end != PathEnd::Spinning {
            continue;
        }
        let key: Vec<(usize, i64)> = path.events[..k]
            .iter()
            .map(|e| (e.instr, e.value))
            .collect();
        if !seen.insert(key) {
            continue;
        }
        let events: Vec<PathEvent> = path.events[..k]
            .iter()
            .cloned()
            .map(|mut e| {
                e.spinning = false;
                e
            })
            .collect();
        out.push(ThreadPath {
            events,
            regs: vec![],
            undefs: vec![],
            end: PathEnd::Paused,
            ub: None,
        });
    }
}

/// Decides whether a consistent candidate of a configuration is a stuck
/// one (shared with the symbolic engine, which re-checks its models
/// with it).
pub struct Obs<'a> {
    codes: &'a [Code],
    /// Per thread: the local state at the end of its spinning path.
    ends: Vec<Option<&'a Local>>,
    /// A spinning thread ran too long to tell whether it cycles.
    pub too_long: bool,
    statuses: &'a [Status],
    stepped: u64,
    fair: u64,
    pub found: Option<Found>,
    pub executions: u64,
}

impl<'a> Obs<'a> {
    pub fn new(
        codes: &'a [Code],
        ends: Vec<Option<&'a Local>>,
        statuses: &'a [Status],
        stepped: u64,
        fair: u64,
    ) -> Self {
        Obs {
            codes,
            ends,
            too_long: false,
            statuses,
            stepped,
            fair,
            found: None,
            executions: 0,
        }
    }
}

impl Observer for Obs<'_> {
    fn consistent(&mut self, c: &Candidate<'_, '_>, _ev: &mut Evaluator<'_>) {
        self.executions += 1;
        if self.found.is_some() {
            return;
        }
        let sk = c.skeleton;
        let mut spins = Vec::new();
        for (t, path) in c.paths.iter().enumerate() {
            if self.statuses[t] != Status::Spinning {
                continue;
            }
            let mut reads = Vec::new();
            let mut line = 0;
            for (k, e) in path.events.iter().enumerate() {
                if !e.spinning {
                    continue;
                }
                if line == 0 {
                    line = sk.program.threads[t].instrs[e.instr].pos.line;
                }
                if e.kind != PathEventKind::Read {
                    continue;
                }
                let id = sk.thread_events[t][k];
                let Some(w) = (0..sk.n()).find(|&w| c.rf.contains(w, id)) else {
                    return;
                };
                let later = sk.events.iter().enumerate().any(|(x, ev)| {
                    matches!(ev.kind, EventKind::Write | EventKind::Init) && c.co.contains(w, x)
                });
                if later {
                    return;
                }
                let loc = e
                    .loc
                    .map(|l| sk.program.locations[l].name.clone())
                    .unwrap_or_default();
                reads.push(format!("{loc}={}", e.value));
            }
            // From the end of the path, reading the final values, the
            // thread must run forever.
            let Some(end) = self.ends[t] else { return };
            // Per physical location, the values it may keep returning: the
            // value the iteration read there, else those of its
            // co-maximal writes (several only under a partial co).
            let nloc = sk.program.locations.len();
            let mut finals: Vec<Vec<i64>> = vec![vec![]; nloc];
            for (loc, f) in finals.iter_mut().enumerate() {
                if let Some(e) = path.events.iter().find(|e| {
                    e.spinning
                        && e.kind == PathEventKind::Read
                        && e.loc.map(|l| sk.program.locations[l].phys) == Some(loc)
                }) {
                    f.push(e.value);
                    continue;
                }
                let ws: Vec<usize> = sk.init_of[loc]
                    .into_iter()
                    .chain(sk.writes[loc].iter().copied())
                    .collect();
                for &w in &ws {
                    let v = sk.events[w].value;
                    if !ws.iter().any(|&x| c.co.contains(w, x)) && !f.contains(&v) {
                        f.push(v);
                    }
                }
                if f.is_empty() {
                    f.push(0);
                }
            }
            // Every choice of final values (usually one).
            let choices = finals.iter().fold(1usize, |a, f| a.saturating_mul(f.len()));
            let mut stuck = false;
            for k in 0..choices.min(256) {
                let mut pick = vec![0i64; nloc];
                let mut r = k;
                for (loc, f) in finals.iter().enumerate() {
                    pick[loc] = f[r % f.len()];
                    r /= f.len();
                }
                match spins_forever(&self.codes[t], end, &|loc| pick[loc]) {
                    Some(true) => {
                        stuck = true;
                        break;
                    }
                    Some(false) => {}
                    None => self.too_long = true,
                }
            }
            if choices > 256 {
                self.too_long = true;
            }
            if !stuck {
                return;
            }
            spins.push((t, line, reads));
        }
        if self.statuses.contains(&Status::Blocked) && !c.barrier_stuck {
            return;
        }
        self.found = Some(Found {
            statuses: self.statuses.to_vec(),
            stepped: self.stepped,
            fair: self.fair,
            witness: Witness::from_candidate(c, vec![]),
            spins,
        });
    }
    fn wants_more(&self) -> bool {
        self.found.is_none()
    }
}

/// Searches the stuck configurations of `p` under `model`.
pub fn check(
    p: &Program,
    model: &Model,
    bound: u32,
    max_combinations: u64,
    codes: &[Code],
    hier: &Hierarchy,
    spec: &ProgressSpec,
) -> Result<Outcome> {
    let prep = explicit::prepare(p, model)?;
    let dom = value_domains(p, bound)?;
    let starve = spec.may_starve(p.arch);
    let starve_started = spec.may_starve_started(p.arch);
    let mut incomplete = None;
    let mut options: Vec<Vec<Choice>> = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        let paths = thread_paths(p, ti, bound, &dom)?;
        let mut opts = Vec::new();
        let mut seen = HashSet::new();
        let mut paused = Vec::new();
        if starve && !starve_started {
            paused.push(ThreadPath {
                events: vec![],
                regs: vec![],
                undefs: vec![],
                end: PathEnd::Paused,
                ub: None,
            });
        }
        for path in paths {
            if starve_started {
                prefixes(&path, &mut paused, &mut seen);
            }
            let Some(status) = status_of(path.end) else {
                incomplete = Some(format!(
                    "a loop of thread {} runs past the bound {bound}",
                    t.name
                ));
                continue;
            };
            let end = if status == Status::Spinning {
                match end_state(&codes[ti], &path) {
                    Some(l) => Some(l),
                    None => {
                        incomplete.get_or_insert_with(|| {
                            format!("cannot replay a spinning path of thread {}", t.name)
                        });
                        continue;
                    }
                }
            } else {
                None
            };
            opts.push(Choice { path, status, end });
        }
        for path in paused {
            opts.push(Choice {
                path,
                status: Status::Paused,
                end: None,
            });
        }
        let carried = carried_registers(&codes[ti]);
        if !carried.is_empty() {
            incomplete.get_or_insert_with(|| {
                format!(
                    "thread {} carries register {} from one spinloop iteration to the next",
                    t.name, codes[ti].reg_names[carried[0]]
                )
            });
        }
        options.push(opts);
    }
    let sizes: Vec<usize> = options.iter().map(Vec::len).collect();
    if sizes.contains(&0) {
        return Ok(Outcome {
            found: None,
            executions: 0,
            incomplete,
        });
    }
    let combos = sizes.iter().fold(1f64, |a, &s| a * s as f64);
    if combos > max_combinations as f64 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "unsupported: too many liveness configurations ({combos:.2e}, limit {:.0e})",
                max_combinations as f64
            ),
        ));
    }
    let n = options.len();
    let mut choice = vec![0usize; n];
    let mut executions = 0;
    loop {
        let statuses: Vec<Status> = (0..n).map(|t| options[t][choice[t]].status).collect();
        let paused_stepped = (0..n)
            .filter(|&t| !options[t][choice[t]].path.events.is_empty())
            .fold(0u64, |a, t| a | 1 << t);
        let m = Masks::of(&statuses, paused_stepped);
        let fair = hier.fair_set(m.stepped, m.terminated);
        if m.fair_ok(hier) {
            let stepped = m.stepped;
            let paths: Vec<&ThreadPath> = (0..n).map(|t| &options[t][choice[t]].path).collect();
            let ends = (0..n).map(|t| options[t][choice[t]].end.as_ref()).collect();
            let mut obs = Obs::new(codes, ends, &statuses, stepped, fair);
            explicit::run_combination(p, &prep, &paths, &mut obs)?;
            executions += obs.executions;
            if obs.too_long {
                incomplete.get_or_insert_with(|| {
                    "a spinning thread runs too long to tell whether it cycles".to_string()
                });
            }
            if let Some(f) = obs.found {
                return Ok(Outcome {
                    found: Some(f),
                    executions,
                    incomplete,
                });
            }
        }
        // Odometer.
        let mut i = n;
        loop {
            if i == 0 {
                return Ok(Outcome {
                    found: None,
                    executions,
                    incomplete,
                });
            }
            i -= 1;
            choice[i] += 1;
            if choice[i] < sizes[i] {
                break;
            }
            choice[i] = 0;
        }
    }
}
