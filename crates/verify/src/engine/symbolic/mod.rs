//! The symbolic engine: bounded model checking to SAT (CaDiCaL).
//!
//! Where the explicit engine enumerates every candidate execution, this
//! engine builds one propositional formula whose models are exactly the
//! candidates the explicit engine would accept, and asks a SAT solver for
//! one with the property's violation (see `docs/SYMBOLIC.md`):
//!
//! 1. [`unroll`]: each thread's paths (the explicit engine's unrolling,
//!    reused), a one-hot path selector per thread, potential events merged
//!    across paths, with execution and value literals.
//! 2. [`encode`]: rf (one same-location same-value write per executed
//!    read), co (total, or a strict partial order for PTX programs),
//!    `sync_fence`, barrier matching with quorums; then every unit of the
//!    compiled `.cat` model over symbolic sets and relations ([`rel`]) and
//!    the consistency axioms, eagerly (acyclicity by ranks).
//! 3. Queries under assumptions: a complete execution reaching the
//!    property's target; failing that, a consistent execution cut by the
//!    bound (verdict `UNKNOWN`).
//!
//! Every execution the solver returns is rebuilt as an explicit candidate
//! and re-checked with the `.cat` evaluator before it is reported (a
//! mismatch would be an encoding bug: it is blocked and counted in
//! [`Stats::mismatches`]).
//!
//! Results use the explicit engine's types. `executions` counts the
//! executions the engine actually produced (0 or 1), not all of them (the
//! driver reports it as not counted); `states` lists the reachable final
//! states only when asked (`Options::max_states`: blocking clauses, each
//! state re-checked on its replayed execution), and says when the list is
//! incomplete.

mod acyclic;
pub(crate) mod bv;
mod demand;
mod encode;
pub(crate) mod guarded;
mod liveness;
pub mod open;
mod prefix;
mod rel;
pub(crate) mod sat;
mod symmetry;
mod unroll;

#[cfg(test)]
mod tests;

use super::exec::{Skeleton, Vocabulary};
use super::paths::ThreadPath;
use super::races::RaceResult;
use super::safety::{observables, term_name, SafetyResult, Verdict};
use super::witness::{GraphData, GraphRequest, Violation, Witness};
use super::{Candidate, Options};
use crate::cat::{BaseKind, Model, Value};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Program, Quantifier};
use crate::rel::{EventSet, Relation};
use encode::Enc;
use sat::{Lit, Sat, TRUE};
use std::collections::HashMap;
use unroll::Unrolled;

pub use liveness::stuck as stuck_configurations;

/// Size and effort figures of one check.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub events: usize,
    pub vars: usize,
    pub clauses: usize,
    pub solver_calls: usize,
    /// Solver models the `.cat` evaluator rejected (encoding bugs; 0).
    pub mismatches: usize,
}

/// Upper bound on solver models rejected by the re-check before giving up.
const MAX_MISMATCHES: usize = 64;

/// A concrete execution read off a solver model.
struct Concrete<'p> {
    sk: Skeleton<'p>,
    paths: Vec<ThreadPath>,
    rf: Relation,
    co: Relation,
    sf: Relation,
    bar: Relation,
    bar_stuck: bool,
    /// The value of each input of the program.
    inputs: Vec<i64>,
}

impl<'p> Concrete<'p> {
    /// The explicit candidate of this execution; `refs` are its paths
    /// (`self.paths` by reference).
    fn candidate<'a>(&'a self, refs: &'a [&'a ThreadPath]) -> Candidate<'a, 'p> {
        Candidate {
            skeleton: &self.sk,
            paths: refs,
            rf: &self.rf,
            co: &self.co,
            barrier_stuck: self.bar_stuck,
        }
    }
}

/// The unrolling of `p` at `opts.bound` into `sat`: the guarded one,
/// unless asked otherwise or it cannot express the program (barrier ids
/// computed at run time): then the paths.
fn unroll<'p>(
    p: &'p Program,
    opts: &Options,
    pausing: Option<guarded::Pausing>,
    prefixes: bool,
    sat: &mut Sat,
) -> Result<Unrolled<'p>> {
    let paths_only = pausing.is_none() && std::env::var("GPUMC_UNROLL").is_ok_and(|v| v == "paths");
    if paths_only {
        return Unrolled::new(p, opts.bound, sat);
    }
    match guarded::unroll(p, opts.bound, pausing, prefixes, sat) {
        Ok(u) => Ok(u),
        Err(e)
            if e.kind == ErrorKind::Unsupported
                && !has_arbitrary_values(p)
                && pausing.is_none() =>
        {
            if std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some() {
                eprintln!("symbolic: guarded unrolling refused ({e}); enumerating paths");
            }
            *sat = Sat::new();
            Unrolled::new(p, opts.bound, sat)
        }
        Err(e) => Err(e),
    }
}

/// The encoding of `p` under `model` with the axioms `needed` (the
/// consistency axioms among them asserted; none: every candidate
/// execution); `pausing` makes it a liveness unrolling (guarded only).
fn build<'p>(
    p: &'p Program,
    model: &Model,
    opts: &Options,
    needed: &[usize],
    pausing: Option<guarded::Pausing>,
    prefixes: bool,
) -> Result<Enc<'p>> {
    let debug = std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some();
    let t0 = std::time::Instant::now();
    let mut sat = Sat::new();
    let u = unroll(p, opts, pausing, prefixes, &mut sat)?;
    let t1 = t0.elapsed();
    if debug {
        eprintln!(
            "symbolic: unrolled {} vars, {} clauses",
            sat.num_vars(),
            sat.num_clauses()
        );
        if std::env::var("GPUMC_SYMBOLIC_DEBUG").is_ok_and(|v| v == "3") {
            for (i, e) in u.events.iter().enumerate() {
                eprintln!(
                    "  e{i}: thread {:?} instr {:?} {:?} loc {:?} exec {}",
                    e.ev.thread, e.ev.instr, e.ev.kind, e.ev.phys, e.exec
                );
            }
        }
    }
    sat.check()?;
    crate::guard::check_estimate(
        sat.estimated_bytes() + execution_estimate(&u, model.partial_co(p.arch)),
        "the formula of rf and co",
    )?;
    let mut enc = Enc::new(sat, u, model.partial_co(p.arch));
    enc.sat.check()?;
    enc.encode_spinning();
    let t2 = t0.elapsed();
    if debug {
        eprintln!(
            "symbolic: execution {} vars, {} clauses",
            enc.sat.num_vars(),
            enc.sat.num_clauses()
        );
    }
    enc.encode_model(model, needed)?;
    let t3 = t0.elapsed();
    for (i, ax) in model.axioms().iter().enumerate() {
        if !ax.flag && needed.contains(&i) {
            enc.sat.check()?;
            enc.assert_axiom(model, i)?;
        }
    }
    enc.sat.check()?;
    if debug {
        eprintln!(
            "symbolic: {} events, {} vars, {} clauses, estimated {} MiB; unroll {:?}, execution {:?}, model {:?}, axioms {:?}",
            enc.u.n(),
            enc.sat.num_vars(),
            enc.sat.num_clauses(),
            enc.sat.estimated_bytes() >> 20,
            t1,
            t2 - t1,
            t3 - t2,
            t0.elapsed() - t3
        );
    }
    Ok(enc)
}

/// Bytes the rf and co clauses of `u` will take, estimated before they
/// are built: coherence is cubic in the writes to one location (a loop
/// that writes, unrolled a thousand times, would need gigabytes).
fn execution_estimate(u: &Unrolled<'_>, partial_co: bool) -> u64 {
    let mut reads = vec![0u64; u.writes.len()];
    for &r in &u.reads {
        if let Some(ph) = u.events[r].ev.phys {
            reads[ph] += 1;
        }
    }
    let (mut vars, mut clauses) = (0u64, 0u64);
    for (ws, r) in u.writes.iter().zip(&reads) {
        let m = ws.len() as u64;
        let cubic = m.saturating_mul(m).saturating_mul(m);
        vars = vars.saturating_add(m * m + r * (m + 1));
        clauses = clauses
            .saturating_add(if partial_co { cubic } else { cubic / 3 })
            .saturating_add(r * (m + 1) * 4);
    }
    let to = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
    Sat::estimate(to(vars), to(clauses), to(clauses.saturating_mul(3)))
}

/// Free values (undefined values, arbitrary initial values, free inputs)
/// or unreachable code: only the guarded unrolling (bit-vector values)
/// can check such a program.
fn has_arbitrary_values(p: &Program) -> bool {
    use crate::ir::InstrKind;
    p.has_free_values()
        || p.threads
            .iter()
            .flat_map(|t| &t.instrs)
            .any(|i| matches!(i.kind, InstrKind::Unreachable { .. }))
}

fn consistency_axioms(model: &Model) -> Vec<usize> {
    model
        .axioms()
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.flag)
        .map(|(i, _)| i)
        .collect()
}

impl<'p> Enc<'p> {
    fn concrete(&self) -> Result<Concrete<'p>> {
        let u = &self.u;
        let p = u.program;
        let inputs: Vec<i64> = u.inputs.iter().map(|b| bv::value(&self.sat, b)).collect();
        let mut paths: Vec<ThreadPath> = Vec::new();
        // Per thread: the potential events of its path, in order.
        let mut chosen_events: Vec<Vec<usize>> = Vec::new();
        let pick = |vals: &[(i64, Lit)]| -> i64 {
            vals.iter()
                .find(|(_, l)| self.sat.value(*l))
                .map_or(0, |(v, _)| *v)
        };
        for (ti, t) in u.threads.iter().enumerate() {
            if let Some(g) = &t.guarded {
                let (path, evs) = self.replay(ti, t, g, &inputs)?;
                paths.push(path);
                chosen_events.push(evs);
                continue;
            }
            let k = t.sel.iter().position(|&s| self.sat.value(s)).unwrap_or(0);
            chosen_events.push(t.path_events.get(k).cloned().unwrap_or_default());
            let mut path = t.paths[k].clone();
            if let Some(st) = &t.sym {
                for (e, vals) in path.events.iter_mut().zip(&st.values) {
                    e.value = pick(vals);
                }
                for ((_, v), (_, vals)) in path.regs.iter_mut().zip(&st.regs) {
                    *v = pick(vals);
                }
            }
            paths.push(path);
        }
        let refs: Vec<&ThreadPath> = paths.iter().collect();
        let mut sk = Skeleton::new(p, &u.vocab, &refs);
        // The initial values the model chose for uninitialised locations.
        for (ph, i) in u.init_of.iter().enumerate() {
            if let (Some(i), Some(s)) = (i, sk.init_of[ph]) {
                if p.locations[ph].init_arbitrary.is_some() {
                    sk.events[s].value = bv::value(&self.sat, &u.events[*i].bits);
                }
            }
        }
        let mut map = vec![None; u.n()];
        for (ph, i) in u.init_of.iter().enumerate() {
            if let (Some(i), Some(s)) = (i, sk.init_of[ph]) {
                map[*i] = Some(s);
            }
        }
        for (ti, evs) in chosen_events.iter().enumerate() {
            for (k, &g) in evs.iter().enumerate() {
                map[g] = sk.thread_events[ti].get(k).copied();
            }
        }
        let n = sk.n();
        let pair = |a: usize, b: usize| -> Option<(usize, usize)> { Some((map[a]?, map[b]?)) };
        let mut rf = Relation::empty(n);
        for &(w, r, x) in &self.rf {
            if self.sat.value(x) {
                if let Some((a, b)) = pair(w, r) {
                    rf.insert(a, b);
                }
            }
        }
        let mut co = Relation::empty(n);
        for ph in 0..u.writes.len() {
            if let Some(i) = u.init_of[ph].and_then(|i| map[i]) {
                for &w in &u.writes[ph] {
                    if let Some(b) = map[w] {
                        co.insert(i, b);
                    }
                }
            }
        }
        for &(a, b, l) in &self.co_pairs {
            if self.sat.value(l) {
                if let Some((x, y)) = pair(a, b) {
                    co.insert(x, y);
                }
            }
        }
        let lift = |r: &rel::SymRel| -> Relation {
            let mut out = Relation::empty(n);
            for (a, b, l) in r.entries() {
                if self.sat.value(l) {
                    if let Some((x, y)) = pair(a, b) {
                        out.insert(x, y);
                    }
                }
            }
            out
        };
        let sf = lift(&self.sf_rel);
        let bar = lift(&self.bar_rel);
        Ok(Concrete {
            sk,
            paths,
            rf,
            co,
            sf,
            bar,
            bar_stuck: self.sat.value(self.bar_stuck),
            inputs,
        })
    }

    /// The explicit path of a guarded thread under the current model: the
    /// thread replayed with the model's read and undefined values, checked
    /// event by event against the model's executed events.
    fn replay(
        &self,
        ti: usize,
        t: &unroll::ThreadUnroll,
        g: &guarded::GuardedThread,
        inputs: &[i64],
    ) -> Result<(ThreadPath, Vec<usize>)> {
        use super::exec::EventKind;
        use super::paths::{replay_paths, Forced, PathEnd, PathEventKind};
        let u = &self.u;
        let executed: Vec<usize> = t
            .events
            .iter()
            .copied()
            .filter(|&e| self.sat.value(u.events[e].exec))
            .collect();
        let reads: Vec<i64> = executed
            .iter()
            .filter(|&&e| u.events[e].ev.kind == EventKind::Read)
            .map(|&e| bv::value(&self.sat, &u.events[e].bits))
            .collect();
        let havocs: Vec<i64> = g
            .havocs
            .iter()
            .filter(|(l, _)| self.sat.value(*l))
            .map(|(_, b)| bv::value(&self.sat, b))
            .collect();
        let stuck = executed
            .last()
            .is_some_and(|&e| self.sat.value(u.events[e].stuck));
        let live = g.live.as_ref();
        let end = if stuck {
            PathEnd::Stuck
        } else if self.sat.value(t.cut) {
            PathEnd::Cut
        } else if live.is_some_and(|l| self.sat.value(l.paused)) || self.sat.value(t.paused) {
            PathEnd::Paused
        } else if self.sat.value(t.spinning) {
            PathEnd::Spinning
        } else {
            PathEnd::Done
        };
        let same = |path: &ThreadPath| -> bool {
            path.end == end
                && path.events.len() == executed.len()
                && path.events.iter().zip(&executed).all(|(pe, &e)| {
                    let ev = &u.events[e].ev;
                    let kind = match pe.kind {
                        PathEventKind::Read => EventKind::Read,
                        PathEventKind::Write => EventKind::Write,
                        PathEventKind::Fence => EventKind::Fence,
                        PathEventKind::Barrier { .. } => EventKind::Barrier,
                    };
                    ev.instr == Some(pe.instr) && ev.kind == kind && ev.loc == pe.loc
                })
        };
        let forced = Forced {
            reads: &reads,
            havocs: &havocs,
            inputs,
            limit: match end {
                PathEnd::Paused => executed.len(),
                _ => usize::MAX,
            },
        };
        // A race-prefix stop after a futile iteration at the bound: the
        // replay takes that back-edge once more before it pauses.
        let early = self.sat.value(t.paused);
        let bound = u.bound + u32::from(early);
        let candidates = replay_paths(u.program, ti, bound, forced)?;
        let found = candidates.into_iter().find_map(|mut c| {
            // A race prefix stops wherever its events end.
            if early && c.events.len() == executed.len() {
                c.end = PathEnd::Paused;
            }
            // Paused right after a spinning iteration.
            if end == PathEnd::Paused && c.end == PathEnd::Spinning {
                c.end = PathEnd::Paused;
                for e in &mut c.events {
                    e.spinning = false;
                }
            }
            same(&c).then_some(c)
        });
        match found {
            Some(path) => Ok((path, executed)),
            None => Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: internal error: the symbolic unrolling of thread {} disagrees with its replay",
                    u.program.threads[ti].name
                ),
            )),
        }
    }

    /// Literals whose current values identify the current execution.
    fn blocking_clause(&self) -> Vec<Lit> {
        let mut lits: Vec<Lit> = Vec::new();
        for t in &self.u.threads {
            lits.extend(&t.sel);
            if let Some(g) = &t.guarded {
                lits.extend(&g.ident);
            }
        }
        lits.extend(self.u.inputs.iter().flatten());
        lits.extend(self.rf.iter().map(|x| x.2));
        lits.extend(self.co_pairs.iter().map(|x| x.2));
        for r in [&self.sf_rel, &self.bar_rel] {
            lits.extend(r.sym.iter().map(|x| x.2));
        }
        lits.retain(|&l| l != TRUE && l != -TRUE);
        lits.into_iter()
            .map(|l| if self.sat.value(l) { -l } else { l })
            .collect()
    }
}

/// Loads a concrete execution into a fresh evaluator, as the explicit
/// engine would.
fn evaluator<'m>(
    model: &'m Model,
    c: &Concrete<'_>,
    vocab: &Vocabulary,
) -> crate::cat::Evaluator<'m> {
    let n = c.sk.n();
    let mut ev = model.evaluator(n);
    for (i, (name, kind)) in model.inputs().iter().enumerate() {
        let v = match (name.as_str(), kind) {
            (_, BaseKind::Set) => Value::Set(match vocab.index(name) {
                Some(t) => c.sk.tagged(t),
                None => EventSet::empty(n),
            }),
            ("rf", _) => Value::Rel(c.rf.clone()),
            ("co", _) => Value::Rel(c.co.clone()),
            ("fr", _) => Value::Rel(c.rf.inverse().compose(&c.co)),
            ("sync_fence", _) => Value::Rel(c.sf.clone()),
            ("sync_barrier" | "syncbar", _) => Value::Rel(c.bar.clone()),
            (other, _) => Value::Rel(
                c.sk.static_relation(other, vocab)
                    .unwrap_or_else(|| Relation::empty(n)),
            ),
        };
        ev.set_input(i, v);
    }
    ev
}

/// Solves under `assumptions`, re-checking each model with the evaluator;
/// returns whether a (checked) model exists.
fn solve_checked(
    enc: &mut Enc<'_>,
    model: &Model,
    assumptions: &[Lit],
    stats: &mut Stats,
) -> Result<bool> {
    solve_checked_by(enc, model, assumptions, stats, |_, _| true)
}

/// [`solve_checked`] with a further re-check `accept` of the rebuilt
/// execution; a model either rejects is blocked as an encoding bug.
fn solve_checked_by(
    enc: &mut Enc<'_>,
    model: &Model,
    assumptions: &[Lit],
    stats: &mut Stats,
    mut accept: impl FnMut(&Enc<'_>, &Concrete<'_>) -> bool,
) -> Result<bool> {
    loop {
        stats.solver_calls += 1;
        let t = std::time::Instant::now();
        let res = enc.sat.solve(assumptions);
        if std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some() {
            eprintln!("symbolic: solve {:?} -> {res:?}", t.elapsed());
        }
        match res {
            Some(true) => {}
            Some(false) => return Ok(false),
            None => return Err(enc.sat.gave_up()),
        }
        let ok = {
            let c = enc.concrete()?;
            let mut ev = evaluator(model, &c, &enc.u.vocab);
            ev.first_violation().is_none() && accept(enc, &c)
        };
        if ok {
            return Ok(true);
        }
        reject(enc, stats, "the re-check of its models")?;
    }
}

/// Blocks the current solver model, which the re-check by `checker`
/// rejected (an encoding bug), and counts it; gives up after
/// [`MAX_MISMATCHES`].
fn reject(enc: &mut Enc<'_>, stats: &mut Stats, checker: &str) -> Result<()> {
    stats.mismatches += 1;
    if stats.mismatches > MAX_MISMATCHES {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!("unsupported: the symbolic encoding disagrees with {checker}"),
        ));
    }
    let block = enc.blocking_clause();
    enc.sat.clause(&block);
    Ok(())
}

fn fill_stats(enc: &Enc<'_>, stats: &mut Stats) {
    stats.events = enc.u.n();
    stats.vars = enc.sat.num_vars();
    stats.clauses = enc.sat.num_clauses();
}

/// Checks the program's final-state assertion (same verdicts as
/// [`crate::engine::safety::check`]). With `opts.max_states`, also lists
/// the reachable final states (at most that many, by blocking clauses)
/// and decides herd's observation; otherwise `states` is left empty.
pub fn check_safety(p: &Program, model: &Model, opts: &Options) -> Result<SafetyResult> {
    check_safety_stats(p, model, opts).map(|(r, _)| r)
}

/// Why the symbolic engine's states are not listed when nobody asked.
pub const STATES_NOT_ASKED: &str = "the symbolic engine enumerates final states only when asked";

/// [`check_safety`] with size and effort figures.
pub fn check_safety_stats(
    p: &Program,
    model: &Model,
    opts: &Options,
) -> Result<(SafetyResult, Stats)> {
    let mut stats = Stats::default();
    let needed = consistency_axioms(model);
    let mut enc = build(p, model, opts, &needed, None, false)?;
    let obs = observables(p);
    if opts.symmetry {
        // The states list reads every observable: no exchange may move one.
        symmetry::break_symmetry(&mut enc, p, &obs, None);
    }
    let names: Vec<String> = obs.iter().map(|t| term_name(p, t)).collect();
    let complete = complete_lit(&mut enc);
    let graph = opts.graph.as_ref();
    if let Some((note, w)) = undefined_behaviour(&mut enc, model, graph, &mut stats)? {
        // Undefined behaviour decides the verdict; the states of the
        // executions without it are still listed when asked (as the
        // explicit engine lists them).
        let any = any_ub(&mut enc);
        let complete = enc.sat.and2(complete, -any);
        let states = ub_states(&mut enc, p, model, opts, complete, &mut stats)?;
        fill_stats(&enc, &mut stats);
        let (states, states_incomplete) = states;
        return Ok((
            SafetyResult {
                verdict: Verdict::Fail,
                executions: 1,
                observables: names,
                states,
                states_incomplete,
                positive: None,
                negative: None,
                observation: None,
                witness: Some(w),
                bound_hit: false,
                note: Some(note),
                graph: graph.map(|_| GraphData::default()),
            },
            stats,
        ));
    }
    let mut finals = HashMap::new();
    let (filter_cond, filter, obs_vals) = filter_and_values(&mut enc, p, opts, &obs, &mut finals);
    let prop = p
        .assertion
        .as_ref()
        .map(|a| enc.cond(&a.cond, &mut finals, false));
    let quant = p.assertion.as_ref().map(|a| a.quantifier);
    let mut witness = None;
    let mut found = false;
    if let (Some(q), Some(c)) = (quant, prop) {
        let target = match q {
            Quantifier::Exists | Quantifier::NotExists => c,
            Quantifier::Forall => -c,
        };
        if solve_checked(&mut enc, model, &[complete, filter, target], &mut stats)? {
            found = true;
            let state: Vec<(String, i64)> = names
                .iter()
                .zip(&obs_vals)
                .map(|(n, vals)| (n.clone(), vals.value(&enc.sat)))
                .collect();
            let c = enc.concrete()?;
            witness = Some(witness_of(&c, state, model, &enc.u.vocab, graph));
        }
    }
    let mut bound_hit = None;
    if !found {
        bound_hit = Some(some_thread_cut(&mut enc, model, &mut stats)?);
    }
    let verdict = match (quant, found) {
        (Some(Quantifier::Exists), true) => Verdict::Pass,
        (Some(_), true) => Verdict::Fail,
        _ if bound_hit == Some(true) => Verdict::Unknown,
        (Some(Quantifier::Exists), false) => Verdict::Fail,
        _ => Verdict::Pass,
    };
    // The verdict is decided; what follows only lists. A resource limit
    // reached here leaves the list incomplete, not the verdict unknown.
    let mut listed = Listing {
        states: Default::default(),
        exhausted: false,
        observation: None,
        time_s: opts.states_time_s,
        out_of_time: false,
    };
    let states_incomplete = match opts.max_states {
        None => Some(STATES_NOT_ASKED.to_string()),
        Some(cap) => {
            let q = Queries {
                complete,
                filter,
                prop,
                quant,
                found,
                filter_cond,
                obs: &obs,
                obs_vals: &obs_vals,
            };
            let r = list_states(
                &mut enc,
                model,
                &mut stats,
                &q,
                cap,
                &mut bound_hit,
                &mut listed,
            );
            listing_note(r, &listed, cap)?
        }
    };
    fill_stats(&enc, &mut stats);
    let graph = match graph {
        Some(g) => {
            let mut d = GraphData::default();
            // Last: the blocking clauses change the formula.
            let want = if g.all {
                g.max
            } else {
                usize::from(witness.is_none())
            };
            graph_executions(
                &mut enc,
                model,
                &obs,
                [complete, filter],
                want,
                g,
                &mut d,
                &mut stats,
            )?;
            if !found && p.assertion.is_some() {
                d.rejected = rejected_candidate(p, model, opts, g, &obs)?;
            }
            d.keep_example(Some(g), witness.is_some());
            Some(d)
        }
        None => None,
    };
    Ok((
        SafetyResult {
            verdict,
            executions: u64::from(found),
            observables: names,
            states: listed.states.into_iter().collect(),
            states_incomplete,
            positive: None,
            negative: None,
            observation: listed.observation,
            witness,
            bound_hit: bound_hit.unwrap_or(false),
            note: None,
            graph,
        },
        stats,
    ))
}

/// The literals and facts the listing of states works with.
struct Queries<'q> {
    complete: Lit,
    filter: Lit,
    /// The condition's proposition, if the test has one.
    prop: Option<Lit>,
    quant: Option<Quantifier>,
    /// Whether the verdict's query found its target.
    found: bool,
    filter_cond: Option<&'q crate::ir::Cond>,
    obs: &'q [crate::ir::Term],
    obs_vals: &'q [encode::TermVal],
}

/// What [`list_states`] found so far.
struct Listing {
    states: std::collections::BTreeSet<Vec<i64>>,
    /// Every reachable final state is in `states`.
    exhausted: bool,
    observation: Option<super::safety::Observation>,
    /// Stop listing after this many seconds (`Options::states_time_s`).
    time_s: Option<f64>,
    /// The listing stopped because `time_s` ran out.
    out_of_time: bool,
}

/// Whether a cut thread exists (if not known yet), herd's observation,
/// then the reachable final states, at most `cap`: solve, read the
/// observables, re-check the state on the replayed execution, block it
/// (under an activation literal, so that the other queries are not
/// restricted), until unsatisfiable.
fn list_states(
    enc: &mut Enc<'_>,
    model: &Model,
    stats: &mut Stats,
    q: &Queries<'_>,
    cap: u64,
    bound_hit: &mut Option<bool>,
    out: &mut Listing,
) -> Result<()> {
    use super::safety::Observation;
    if bound_hit.is_none() {
        *bound_hit = Some(some_thread_cut(enc, model, stats)?);
    }
    // Whether some reachable state satisfies the proposition, and whether
    // some violates it: the verdict's query answered one of the two.
    let mut some_sat = None;
    let mut some_viol = None;
    if let (Some(c), Some(quant)) = (q.prop, q.quant) {
        let (known, other, other_lit) = match quant {
            Quantifier::Forall => (&mut some_viol, &mut some_sat, c),
            _ => (&mut some_sat, &mut some_viol, -c),
        };
        *known = Some(q.found);
        *other = Some(solve_checked(
            enc,
            model,
            &[q.complete, q.filter, other_lit],
            stats,
        )?);
        out.observation = Some(Observation::of(
            some_sat.unwrap_or(false),
            some_viol.unwrap_or(false),
        ));
    }
    let p = enc.u.program;
    if cap == 0 {
        // Nothing to list; the list (empty) is complete when the
        // observation's queries found no reachable state at all.
        out.exhausted = q.prop.is_some() && some_sat == Some(false) && some_viol == Some(false);
        return Ok(());
    }
    let act = enc.sat.var();
    let assumptions = [q.complete, q.filter, act];
    let (mut seen_sat, mut seen_viol) = (false, false);
    let started = std::time::Instant::now();
    loop {
        let mut state = Vec::new();
        let reached = |enc: &Enc<'_>, c: &Concrete<'_>| -> bool {
            let s: Vec<i64> = q.obs_vals.iter().map(|v| v.value(&enc.sat)).collect();
            let ok = state_reached(p, c, q.obs, &s, q.filter_cond);
            state = s;
            ok
        };
        if !solve_checked_by(enc, model, &assumptions, stats, reached)? {
            out.exhausted = true;
            break;
        }
        if out.states.len() as u64 >= cap {
            break;
        }
        let mut block = vec![-act];
        for (v, &x) in q.obs_vals.iter().zip(&state) {
            block.extend(v.differs(x, &mut enc.sat));
        }
        enc.sat.clause(&block);
        if let Some(a) = &p.assertion {
            let val = |t: &crate::ir::Term| match t {
                crate::ir::Term::Const(k) => *k,
                t => q.obs.iter().position(|o| o == t).map_or(0, |i| state[i]),
            };
            if a.cond.eval(&val) {
                seen_sat = true;
            } else {
                seen_viol = true;
            }
        }
        if !out.states.insert(state) {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "unsupported: internal error: the enumeration of final states found a state twice",
            ));
        }
        // Each state of a large test costs a solve and a replay: the
        // default listing stops after its time (docs/SYMBOLIC.md).
        if out
            .time_s
            .is_some_and(|t| started.elapsed().as_secs_f64() >= t)
        {
            out.out_of_time = true;
            break;
        }
    }
    // Every state listed: the verdict's and the observation's queries
    // must agree with the list.
    if out.exhausted
        && q.prop.is_some()
        && (some_sat != Some(seen_sat) || some_viol != Some(seen_viol))
    {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "unsupported: internal error: the listed final states disagree with the condition's queries",
        ));
    }
    Ok(())
}

/// Up to `want` consistent executions under `assume` (complete, passing
/// the filter) for graphs, each blocked once found; `capped` when one
/// more exists with `--graph-all`.
#[allow(clippy::too_many_arguments)]
fn graph_executions(
    enc: &mut Enc<'_>,
    model: &Model,
    obs: &[crate::ir::Term],
    assume: [Lit; 2],
    want: usize,
    g: &GraphRequest,
    out: &mut GraphData,
    stats: &mut Stats,
) -> Result<()> {
    let p = enc.u.program;
    let mut finals = HashMap::new();
    let vals: Vec<encode::TermVal> = obs
        .iter()
        .map(|t| enc.term(t, &mut finals, false))
        .collect();
    while out.executions.len() < want || (g.all && !out.capped) {
        if !solve_checked(enc, model, &assume, stats)? {
            break;
        }
        if out.executions.len() == want {
            out.capped = true;
            break;
        }
        let state = obs
            .iter()
            .zip(&vals)
            .map(|(t, v)| (term_name(p, t), v.value(&enc.sat)))
            .collect();
        let c = enc.concrete()?;
        out.executions
            .push(witness_of(&c, state, model, &enc.u.vocab, Some(g)));
        let block = enc.blocking_clause();
        enc.sat.clause(&block);
    }
    Ok(())
}

/// Whether the replayed execution `c` is complete and ends, for some
/// choice among its co-maximal writes, in `state` (the values of `obs`)
/// with the filter satisfied: the explicit engine's own reading of a final
/// state, applied to the solver's model.
fn state_reached(
    p: &Program,
    c: &Concrete<'_>,
    obs: &[crate::ir::Term],
    state: &[i64],
    filter: Option<&crate::ir::Cond>,
) -> bool {
    use super::paths::PathEnd;
    use super::safety::{final_memories, final_value};
    if c.bar_stuck || c.paths.iter().any(|t| t.end != PathEnd::Done) {
        return false;
    }
    let refs: Vec<&ThreadPath> = c.paths.iter().collect();
    let cand = c.candidate(&refs);
    final_memories(p, &cand).iter().any(|mem| {
        let val = |t: &crate::ir::Term| final_value(p, &cand, mem, t);
        filter.is_none_or(|f| f.eval(&val)) && obs.iter().zip(state).all(|(t, v)| val(t) == *v)
    })
}

/// A candidate execution reaching the assertion's target that the model
/// rejects (the picture of a forbidden outcome): the program encoded
/// again without the consistency axioms, each solution re-checked by the
/// evaluator for its first violated axiom.
fn rejected_candidate(
    p: &Program,
    model: &Model,
    opts: &Options,
    g: &GraphRequest,
    obs: &[crate::ir::Term],
) -> Result<Option<Witness>> {
    let Some(a) = &p.assertion else {
        return Ok(None);
    };
    let mut enc = build(p, model, opts, &[], None, false)?;
    let complete = complete_lit(&mut enc);
    let mut finals = HashMap::new();
    let filter = match (&p.filter, opts.ignore_filter) {
        (Some(f), false) => enc.cond(f, &mut finals, false),
        _ => TRUE,
    };
    let c = enc.cond(&a.cond, &mut finals, false);
    let target = match a.quantifier {
        Quantifier::Exists | Quantifier::NotExists => c,
        Quantifier::Forall => -c,
    };
    let vals: Vec<encode::TermVal> = obs
        .iter()
        .map(|t| enc.term(t, &mut finals, false))
        .collect();
    for _ in 0..MAX_MISMATCHES {
        match enc.sat.solve(&[complete, filter, target]) {
            Some(true) => {}
            Some(false) => return Ok(None),
            None => return Err(enc.sat.gave_up()),
        }
        let state = obs
            .iter()
            .zip(&vals)
            .map(|(t, v)| (term_name(p, t), v.value(&enc.sat)))
            .collect();
        let c = enc.concrete()?;
        let mut ev = evaluator(model, &c, &enc.u.vocab);
        if let Some(k) = ev.first_violation() {
            let refs: Vec<&ThreadPath> = c.paths.iter().collect();
            let cand = c.candidate(&refs);
            let mut w = Witness::from_execution(&cand, state, &c.inputs);
            w.add_graph_info(&cand, Some(&mut ev), &g.relations);
            w.violation = Some(Violation::of(&mut ev, k));
            return Ok(Some(w));
        }
        // Consistent under the evaluator with these barrier and fence
        // choices: look for another candidate.
        let block = enc.blocking_clause();
        enc.sat.clause(&block);
    }
    Ok(None)
}

/// A consistent execution in which some thread reaches undefined
/// behaviour (`Unreachable`, an address out of bounds): the note naming
/// it, and the witness. The other threads need not be done (as in the
/// explicit engine, `safety::note_ub`).
fn undefined_behaviour(
    enc: &mut Enc<'_>,
    model: &Model,
    graph: Option<&GraphRequest>,
    stats: &mut Stats,
) -> Result<Option<(String, Witness)>> {
    let any = any_ub(enc);
    if any == sat::FALSE {
        return Ok(None);
    }
    if !solve_checked(enc, model, &[any], stats)? {
        return Ok(None);
    }
    let c = enc.concrete()?;
    let refs: Vec<&ThreadPath> = c.paths.iter().collect();
    let p = enc.u.program;
    let note = super::safety::ub_note(p, &refs)
        .or_else(|| super::divergence::note(p, &super::divergence::groups(p), &refs))
        .ok_or_else(|| {
            Error::new(
                ErrorKind::Unsupported,
                "unsupported: internal error: the replayed execution has no undefined behaviour",
            )
        })?;
    Ok(Some((
        note,
        witness_of(&c, vec![], model, &enc.u.vocab, graph),
    )))
}

/// The filter a check applies (`None` under `--ignore-filter`), its
/// literal, and the values of the observables, for the verdict's queries
/// and the states.
fn filter_and_values<'c>(
    enc: &mut Enc<'_>,
    p: &'c Program,
    opts: &Options,
    obs: &[crate::ir::Term],
    finals: &mut HashMap<usize, Vec<(usize, Lit)>>,
) -> (Option<&'c crate::ir::Cond>, Lit, Vec<encode::TermVal>) {
    let filter_cond = p.filter.as_ref().filter(|_| !opts.ignore_filter);
    let filter = match filter_cond {
        Some(f) => enc.cond(f, finals, false),
        None => TRUE,
    };
    let vals = obs.iter().map(|t| enc.term(t, finals, false)).collect();
    (filter_cond, filter, vals)
}

/// Why a listing of states (`r`, what [`list_states`] answered) is
/// incomplete, if it is; a limit reached while listing leaves the list
/// incomplete, any other error is the check's.
fn listing_note(r: Result<()>, listed: &Listing, cap: u64) -> Result<Option<String>> {
    Ok(match r {
        Ok(()) if listed.exhausted => None,
        Ok(()) if cap == 0 => Some("--max-states 0".into()),
        Ok(()) if listed.out_of_time => Some(format!(
            "the listing stopped after {} s; --max-states N lists up to N states however long it takes",
            listed.time_s.unwrap_or(0.0)
        )),
        Ok(()) => Some(format!("the enumeration stopped at --max-states {cap}")),
        Err(e) if e.kind == ErrorKind::Limit => Some(format!(
            "the enumeration of states was stopped: {}",
            e.message
        )),
        Err(e) => return Err(e),
    })
}

/// Some thread reaches undefined behaviour, or a complete execution has
/// barrier divergence (`FALSE` when neither can happen).
fn any_ub(enc: &mut Enc<'_>) -> Lit {
    let mut lits: Vec<Lit> = enc
        .u
        .threads
        .iter()
        .map(|t| t.ub)
        .filter(|&l| l != sat::FALSE)
        .collect();
    let div = divergence_lit(enc);
    if div != sat::FALSE {
        lits.push(div);
    }
    match lits.is_empty() {
        true => sat::FALSE,
        false => enc.sat.or(&lits),
    }
}

/// Barrier divergence (`engine::divergence`): an execution in which every
/// thread ended (done, or waiting forever at a barrier) and two threads
/// of one block or workgroup arrive at some barrier a different number of
/// times. The counts are 16-bit sums of the barrier
/// events' literals (a thread passes a barrier at most bound × its
/// events times, far below 2^16).
fn divergence_lit(enc: &mut Enc<'_>) -> Lit {
    use super::divergence;
    let p = enc.u.program;
    let groups = divergence::groups(p);
    if groups.is_empty() {
        return sat::FALSE;
    }
    let mut differ = Vec::new();
    for g in &groups {
        // Per thread of the group: each barrier's events, by line.
        let per_thread: Vec<std::collections::BTreeMap<u32, Vec<Lit>>> = g
            .iter()
            .map(|&t| {
                let mut m: std::collections::BTreeMap<u32, Vec<Lit>> = Default::default();
                for &e in &enc.u.threads[t].events {
                    let ev = &enc.u.events[e];
                    let Some(i) = ev.ev.instr else { continue };
                    if ev.ev.kind == crate::engine::exec::EventKind::Barrier
                        && divergence::is_full_barrier(&p.threads[t].instrs[i], g.len())
                        && (ev.barrier_ids.iter()).all(|&(id, _)| id < crate::ir::WARP_BARRIER_IDS)
                    {
                        m.entry(divergence::barrier_line(p, t, i))
                            .or_default()
                            .push(ev.exec);
                    }
                }
                m
            })
            .collect();
        let lines: std::collections::BTreeSet<u32> =
            per_thread.iter().flat_map(|m| m.keys().copied()).collect();
        for line in lines {
            // Unary counts ("at least j arrivals", j = 1..): a thread
            // arrives at a barrier a few times at most, and equal counts
            // are equal vectors.
            let max = per_thread
                .iter()
                .map(|m| m.get(&line).map_or(0, Vec::len))
                .max()
                .unwrap_or(0);
            let count = |t: usize, sat: &mut Sat| -> Vec<Lit> {
                let lits = per_thread[t].get(&line).cloned().unwrap_or_default();
                sat.at_least(&lits, max)
            };
            let first = count(0, &mut enc.sat);
            for t in 1..per_thread.len() {
                let other = count(t, &mut enc.sat);
                let same = bv::eq(&mut enc.sat, &first, &other);
                if same != TRUE {
                    differ.push(-same);
                }
            }
        }
    }
    if differ.is_empty() {
        return sat::FALSE;
    }
    let some = enc.sat.or(&differ);
    // Every thread ended: run to its end, or waiting forever at a barrier.
    let mut ended = Vec::new();
    for t in 0..enc.u.threads.len() {
        let mut ways = barrier_waits(enc, t);
        ways.push(enc.u.threads[t].done);
        ended.push(enc.sat.or(&ways));
    }
    ended.push(some);
    enc.sat.and(&ended)
}

/// The final states of the complete executions `complete` admits (those
/// without undefined behaviour), at most `--max-states`, for a result
/// whose verdict undefined behaviour decided: the list and why it may be
/// incomplete.
fn ub_states(
    enc: &mut Enc<'_>,
    p: &Program,
    model: &Model,
    opts: &Options,
    complete: Lit,
    stats: &mut Stats,
) -> Result<(Vec<Vec<i64>>, Option<String>)> {
    let Some(cap) = opts.max_states else {
        return Ok((vec![], Some(STATES_NOT_ASKED.to_string())));
    };
    let obs = observables(p);
    let mut finals = HashMap::new();
    let (filter_cond, filter, obs_vals) = filter_and_values(enc, p, opts, &obs, &mut finals);
    let q = Queries {
        complete,
        filter,
        prop: None,
        quant: None,
        found: false,
        filter_cond,
        obs: &obs,
        obs_vals: &obs_vals,
    };
    let mut listed = Listing {
        states: Default::default(),
        exhausted: false,
        observation: None,
        time_s: opts.states_time_s,
        out_of_time: false,
    };
    // Whether a thread is cut does not matter here: the verdict is FAIL.
    let mut bound_hit = Some(false);
    let r = list_states(enc, model, stats, &q, cap, &mut bound_hit, &mut listed);
    let why = listing_note(r, &listed, cap)?;
    Ok((listed.states.into_iter().collect(), why))
}

/// Every thread done, spinning (stopped in a spinning iteration), stopped
/// early or waiting at a barrier that another thread holds up: an
/// execution, or a prefix of every longer one.
fn ended_lit(enc: &mut Enc<'_>) -> Lit {
    let mut parts: Vec<Lit> = Vec::new();
    for t in 0..enc.u.threads.len() {
        let mut ways = barrier_waits(enc, t);
        let th = &enc.u.threads[t];
        ways.extend([th.done, th.spinning, th.paused]);
        parts.push(enc.sat.or(&ways));
    }
    enc.sat.and(&parts)
}

/// Per barrier event of thread `t` that may wait for ever: the literal of
/// its thread waiting there.
fn barrier_waits(enc: &mut Enc<'_>, t: usize) -> Vec<Lit> {
    let waits: Vec<(Lit, Lit)> = (enc.u.threads[t].events.iter())
        .map(|&e| &enc.u.events[e])
        .filter(|ev| {
            ev.ev.kind == crate::engine::exec::EventKind::Barrier && ev.stuck != sat::FALSE
        })
        .map(|ev| (ev.exec, ev.stuck))
        .collect();
    waits
        .into_iter()
        .map(|(exec, stuck)| enc.sat.and2(exec, stuck))
        .collect()
}

/// Whether a consistent execution has a thread cut by the bound.
fn some_thread_cut(enc: &mut Enc<'_>, model: &Model, stats: &mut Stats) -> Result<bool> {
    let cut = any_cut(enc);
    solve_checked(enc, model, &[cut], stats)
}

/// Some thread is cut by the bound.
fn any_cut(enc: &mut Enc<'_>) -> Lit {
    let cuts: Vec<Lit> = enc.u.threads.iter().map(|t| t.cut).collect();
    enc.sat.or(&cuts)
}

fn complete_lit(enc: &mut Enc<'_>) -> Lit {
    let mut parts: Vec<Lit> = enc.u.threads.iter().map(|t| t.done).collect();
    parts.push(-enc.bar_stuck);
    enc.sat.and(&parts)
}

/// The witness of `c`; with a graph request, with what a picture needs
/// (the model evaluated on `c` for the relations asked for).
fn witness_of(
    c: &Concrete<'_>,
    state: Vec<(String, i64)>,
    model: &Model,
    vocab: &Vocabulary,
    graph: Option<&GraphRequest>,
) -> Witness {
    let refs: Vec<&ThreadPath> = c.paths.iter().collect();
    let cand = c.candidate(&refs);
    let mut w = Witness::from_execution(&cand, state, &c.inputs);
    if let Some(g) = graph {
        let mut ev = evaluator(model, c, vocab);
        w.add_graph_info(&cand, Some(&mut ev), &g.relations);
    }
    w
}

/// Checks the model's `flag` axioms (same verdicts as
/// [`crate::engine::races::check`]).
pub fn check_races(p: &Program, model: &Model, opts: &Options) -> Result<RaceResult> {
    check_races_stats(p, model, opts).map(|(r, _)| r)
}

/// Why a PASS came from the split program (`engine::split`).
pub const SPLIT_NOTE: &str = "decided with every thread alone in its workgroup (or CTA), \
where threads of one code are interchangeable: the model only loosens as scope relations \
shrink, so no race there means none as placed (docs/SYMBOLIC.md, \"Splitting scope instances\")";

/// The budget of each of the two short attempts made before the full
/// check of a program that may be split: a share of the time left (at
/// least `ATTEMPT_FLOOR` within a quarter of it: the attempts may be made
/// within the short attempt at bound 1 of `driver::bound_one_first`), and
/// at most `ATTEMPT_CAP`. Most checks end within the first (the program
/// as placed); the split pays where it is much faster than the placed
/// program (a lock across workgroups: 0.2 s against 30 s), and costs two
/// such budgets where it is not.
const ATTEMPT_SHARE: f64 = 0.05;
const ATTEMPT_FLOOR: std::time::Duration = std::time::Duration::from_millis(500);
const ATTEMPT_CAP: std::time::Duration = std::time::Duration::from_secs(2);

/// For a program whose split (`engine::split`) is worth trying: the
/// program as placed within a short budget, then, if the model allows
/// the split, the split program within another. `Some`: the placed program's answer within
/// its budget, or a PASS of the split program; `None`: the full check of
/// the program as placed is left to do.
fn split_first(
    p: &Program,
    model: &Model,
    opts: &Options,
    flags: &[usize],
) -> Option<Result<(RaceResult, Stats)>> {
    if !opts.split_scopes || !opts.symmetry {
        return None;
    }
    let q = super::split::worth_splitting(p)?;
    let debug = std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some();
    let inner = Options {
        split_scopes: false,
        ..opts.clone()
    };
    let attempt = |prog: &Program| {
        let _budget = crate::guard::enter(crate::guard::share_current(
            ATTEMPT_SHARE,
            ATTEMPT_FLOOR,
            ATTEMPT_CAP,
        ));
        check_races_stats(prog, model, &inner)
    };
    let t0 = std::time::Instant::now();
    match attempt(p) {
        Err(e) if crate::guard::is_timeout(&e) => {}
        // A race found, but its listing perhaps cut by the short budget:
        // the full check lists them (a split cannot turn a FAIL around).
        Ok((r, _)) if r.verdict == Verdict::Fail && !r.races_complete => return None,
        decided => return Some(decided),
    }
    if let Err(why) = split_applies(p, &q, model, opts, flags) {
        if debug {
            eprintln!("symbolic: scope instances not split: {why}");
        }
        return None;
    }
    let r = attempt(&q);
    if debug {
        let v = r.as_ref().map(|(r, _)| format!("{:?}", r.verdict));
        eprintln!(
            "symbolic: split scope instances: {v:?} ({:?} with the first attempt)",
            t0.elapsed()
        );
    }
    match r {
        Ok((r, st)) if r.verdict == Verdict::Pass && !r.bound_hit => {
            let note = match r.note {
                Some(n) => format!("{n}; {SPLIT_NOTE}"),
                None => SPLIT_NOTE.to_string(),
            };
            Some(Ok((
                RaceResult {
                    note: Some(note),
                    ..r
                },
                st,
            )))
        }
        _ => None,
    }
}

/// Whether a race-free `split` (`engine::split::split_instances` of `p`)
/// shows `p` race-free under `model` and the flags `flags`: the model
/// only loosens as the split's scope inputs shrink, given the static
/// values the split leaves alone (computed over the potential events of
/// `p`'s unrolling). `Err` says why not.
pub fn split_applies(
    p: &Program,
    split: &Program,
    model: &Model,
    opts: &Options,
    flags: &[usize],
) -> std::result::Result<(), String> {
    let levels = p.threads.first().map_or(0, |t| t.placement.ids.len());
    let shrunk = super::split::shrunk_inputs(levels);
    // (Only the events: no relation is encoded.)
    let u = unroll(p, opts, None, false, &mut Sat::new()).map_err(|e| e.to_string())?;
    let sk = u.pseudo_skeleton();
    let mut sk_split = u.pseudo_skeleton();
    sk_split.program = split;
    let vocab = &u.vocab;
    // A tag set is static unless a compare-and-swap's outcome decides
    // whether its read carries the tag.
    let static_tags = |name: &str| {
        vocab.index(name).is_none_or(|t| {
            u.events.iter().all(|e| {
                e.failed
                    .as_ref()
                    .is_none_or(|(_, tags)| tags.contains(&t) == e.ev.tags.contains(&t))
            })
        })
    };
    let fixed = super::split::fixed_slots(model, &sk, &sk_split, vocab, &static_tags);
    model.loosens_as_shrunk(&shrunk, flags, &fixed)
}

/// [`check_races`] with size and effort figures.
pub fn check_races_stats(
    p: &Program,
    model: &Model,
    opts: &Options,
) -> Result<(RaceResult, Stats)> {
    use super::races::{cap_note, Collected};
    let flags = super::races::flag_axioms(model, opts)?;
    if let Some(decided) = split_first(p, model, opts, &flags) {
        return decided;
    }
    let mut stats = Stats::default();
    let mut needed = consistency_axioms(model);
    needed.extend(&flags);
    // Futile iterations are dropped where every thread may stop early
    // (no filter reads a final state) and the model keeps consistency and
    // flagged pairs when events are dropped.
    let filtered = p.filter.is_some() && !opts.ignore_filter;
    let stable = model.restriction_stable(&flags);
    if std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some() {
        eprintln!("symbolic: futile iterations dropped: {stable:?}");
    }
    let prefixes = opts.futile_drop && !filtered && stable.is_ok();
    let mut enc = build(p, model, opts, &needed, None, prefixes)?;
    if prefixes {
        prefix::encode_justification(&mut enc, model, &flags)?;
    }
    // Symmetry breaking between threads at different positions holds only
    // for the verdict's query, not for the listing of racing pairs.
    let sym = enc.sat.var();
    if opts.symmetry {
        symmetry::break_symmetry(&mut enc, p, &[], Some(sym));
    }
    // A race in an execution where a thread spins is a race of every
    // longer execution (docs/SEMANTICS.md, "Loops"); only a filter, which
    // reads final states, needs every thread done.
    let complete = match (&p.filter, opts.ignore_filter) {
        (Some(_), false) => complete_lit(&mut enc),
        _ => ended_lit(&mut enc),
    };
    if let Some((note, w)) = undefined_behaviour(&mut enc, model, opts.graph.as_ref(), &mut stats)?
    {
        fill_stats(&enc, &mut stats);
        return Ok((
            RaceResult {
                verdict: Verdict::Fail,
                executions: 1,
                races: vec![],
                races_complete: false,
                races_note: Some(super::safety::UB_STOPS.into()),
                witness: Some(w),
                bound_hit: false,
                note: Some(note),
            },
            stats,
        ));
    }
    let mut finals = HashMap::new();
    let filter = match (&p.filter, opts.ignore_filter) {
        (Some(f), false) => enc.cond(f, &mut finals, true),
        _ => TRUE,
    };
    let mut fires = Vec::new();
    for &i in &flags {
        fires.push(enc.flag_fires(model, i)?);
    }
    let fire = enc.sat.or(&fires);
    let mut collected = Collected::new(opts.max_races);
    let mut witness = None;
    // One query first asks for a race or a cut thread: when neither
    // exists (the usual PASS), one unsatisfiability proof settles both.
    // A cut model only says the bound was hit; the race query goes on.
    let race = enc.sat.and(&[complete, filter, fire]);
    let cut = any_cut(&mut enc);
    let either = enc.sat.or2(race, cut);
    let mut bound_hit = None;
    let mut assumptions = vec![either, sym];
    // After a cut, the verdict is UNKNOWN unless a race is found: a
    // resource limit on the race query then stops that search, and the
    // report says both (the bound was hit; no race within it so far).
    let mut stopped = None;
    // The re-check also requires a flag to fire on the rebuilt execution.
    loop {
        match solve_checked(&mut enc, model, &assumptions, &mut stats) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) if e.kind == ErrorKind::Limit && bound_hit == Some(true) => {
                stopped = Some(e.message);
                break;
            }
            Err(e) => return Err(e),
        }
        if !enc.sat.value(race) {
            bound_hit = Some(true);
            assumptions = vec![race, sym];
            continue;
        }
        let c = enc.concrete()?;
        let mut ev = evaluator(model, &c, &enc.u.vocab);
        if !flags.iter().any(|&i| ev.flag(i).is_some()) {
            // No flag fires on the rebuilt execution: an encoding bug.
            reject(&mut enc, &mut stats, "the model evaluator")?;
            continue;
        }
        let refs: Vec<&ThreadPath> = c.paths.iter().collect();
        let cand = c.candidate(&refs);
        let fresh = collected.fresh(&cand, &mut ev, &flags);
        collected.add(&cand, model, fresh, true);
        witness = Some(witness_of(
            &c,
            vec![],
            model,
            &enc.u.vocab,
            opts.graph.as_ref(),
        ));
        break;
    }
    let found = witness.is_some();
    // The verdict is decided; what follows only lists further racing
    // instruction pairs. A resource limit reached here leaves the list
    // incomplete, not the verdict unknown.
    let mut races_note = None;
    if found && !collected.capped {
        match more_races(
            &mut enc,
            model,
            &flags,
            [complete, filter],
            &mut collected,
            &mut stats,
        ) {
            Ok(()) => {}
            Err(e) if e.kind == ErrorKind::Limit => {
                races_note = Some(format!(
                    "the search for further racing pairs was stopped: {}",
                    e.message
                ));
            }
            Err(e) => return Err(e),
        }
    }
    if collected.capped {
        races_note = Some(cap_note(opts.max_races));
    }
    // (A note also keeps the driver from trying to show the verdict
    // bound-independent: no race within the bound is not established.)
    let note = stopped.map(|why| {
        races_note = Some(format!("the search for races was stopped: {why}"));
        format!(
            "the loop bound (--bound {}) cut an execution, so a larger --bound is needed to decide; the search for a race among the executions within the bound was stopped before it finished ({why})",
            enc.u.bound
        )
    });
    let bound_hit = !found && bound_hit.unwrap_or(false);
    let verdict = if found {
        Verdict::Fail
    } else if bound_hit {
        Verdict::Unknown
    } else {
        Verdict::Pass
    };
    fill_stats(&enc, &mut stats);
    Ok((
        RaceResult {
            verdict,
            executions: u64::from(found),
            races: collected.races,
            races_complete: races_note.is_none(),
            races_note,
            witness,
            bound_hit,
            note,
        },
        stats,
    ))
}

/// After the first racy execution: further executions, each racing on
/// some instruction pair not listed yet, until none is left or the cap
/// of `collected` is reached. The flag relations' entries are grouped by
/// the static instruction pair of their potential events, one literal per
/// pair; each query asks for the disjunction of the pairs not yet listed.
/// The pairs listed are those the evaluator finds on the rebuilt
/// execution, never the solver's word alone: a model with no new pair
/// there is rejected as an encoding bug.
fn more_races(
    enc: &mut Enc<'_>,
    model: &Model,
    flags: &[usize],
    assume: [Lit; 2],
    collected: &mut super::races::Collected,
    stats: &mut Stats,
) -> Result<()> {
    use super::races::{instr_pos, pair_key, PairKey};
    let p = enc.u.program;
    let mut entries: std::collections::BTreeMap<PairKey, Vec<Lit>> = Default::default();
    for &i in flags {
        for (a, b, l) in enc.flag_entries(model, i)? {
            let pos = |e: usize| {
                let ev = &enc.u.events[e].ev;
                instr_pos(p, ev.thread, ev.instr)
            };
            let key = pair_key(i, pos(a), pos(b));
            entries.entry(key).or_default().push(l);
        }
    }
    let pairs: Vec<(PairKey, Lit)> = entries
        .into_iter()
        .map(|(k, ls)| (k, enc.sat.or(&ls)))
        .collect();
    loop {
        enc.sat.check()?;
        let pending: Vec<Lit> = pairs
            .iter()
            .filter(|(k, _)| !collected.found.contains(k))
            .map(|&(_, l)| l)
            .collect();
        if pending.is_empty() {
            return Ok(());
        }
        let want = enc.sat.or(&pending);
        // Listed from within the re-check, on the execution it rebuilt.
        let list_new = |e: &Enc<'_>, c: &Concrete<'_>| -> bool {
            let refs: Vec<&ThreadPath> = c.paths.iter().collect();
            let cand = c.candidate(&refs);
            let mut ev = evaluator(model, c, &e.u.vocab);
            let fresh = collected.fresh(&cand, &mut ev, flags);
            if fresh.is_empty() {
                return false;
            }
            collected.add(&cand, model, fresh, false);
            true
        };
        if !solve_checked_by(enc, model, &[assume[0], assume[1], want], stats, list_new)? {
            return Ok(());
        }
        if collected.capped {
            return Ok(());
        }
    }
}

/// The `--engine auto` rule: the symbolic engine where the explicit
/// enumeration (a product over threads of paths, rf and co choices)
/// explodes or cannot go: many threads, many memory instructions, loops
/// that write or wait at barriers (each iteration multiplies the paths),
/// much branching or branching around barriers, undefined values or
/// unreachable code.
pub fn prefer_symbolic(p: &Program) -> bool {
    use crate::ir::InstrKind;
    let instrs = || p.threads.iter().flat_map(|t| &t.instrs);
    // An access at a run-time address counts once per cell it may reach.
    let mem: usize = instrs()
        .filter_map(|i| i.kind.addr())
        .map(|a| a.cells().len())
        .sum();
    let branches = instrs()
        .filter(|i| matches!(i.kind, InstrKind::Branch { .. }))
        .count();
    // Each barrier may also block forever, which multiplies the paths.
    let barriers = instrs().any(|i| matches!(i.kind, InstrKind::Barrier { .. }));
    // A loop whose body (header to last back-edge) writes or waits.
    let busy_loop = (0..p.threads.len()).any(|th| {
        let Ok(cfg) = crate::engine::loops::Cfg::new(p, th) else {
            return false;
        };
        let instrs = &p.threads[th].instrs;
        cfg.loop_end.iter().any(|(&h, &end)| {
            instrs[h..=end].iter().any(|y| {
                matches!(
                    y.kind,
                    InstrKind::Store { .. } | InstrKind::Rmw { .. } | InstrKind::Barrier { .. }
                )
            })
        })
    });
    p.threads.len() > 4
        || mem > 8
        || branches > 2
        || (branches > 0 && barriers)
        || busy_loop
        || has_arbitrary_values(p)
}
