//! Safety: final states, the `exists`/`~exists`/`forall` verdict, witness.

use super::paths::{PathEnd, ThreadPath};
use super::witness::{GraphData, GraphRequest, Violation, Witness};
use super::{explicit, Candidate, Observer, Options};
use crate::cat::{Evaluator, Model};
use crate::diag::{ErrorKind, Result};
use crate::ir::{Assertion, CmpOp, Cond, Program, Quantifier, Term};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    Fail,
    Unknown,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Unknown => "UNKNOWN",
        })
    }
}

/// How often the proposition of a test's condition holds over its
/// reachable final states (herd's `Observation`): in none, in some but not
/// all, in all (herd says `Never` also when nothing is reachable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observation {
    Never,
    Sometimes,
    Always,
}

impl Observation {
    /// From whether some reachable state satisfies the proposition and
    /// whether some does not.
    pub fn of(some_satisfy: bool, some_violate: bool) -> Observation {
        if !some_satisfy {
            Observation::Never
        } else if some_violate {
            Observation::Sometimes
        } else {
            Observation::Always
        }
    }
}

impl std::fmt::Display for Observation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Observation::Never => "Never",
            Observation::Sometimes => "Sometimes",
            Observation::Always => "Always",
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SafetyResult {
    pub verdict: Verdict,
    /// Consistent, complete executions that pass the filter (explicit
    /// engine); the symbolic engine counts the executions it produced.
    pub executions: u64,
    /// Names of the observed values, in state order.
    pub observables: Vec<String>,
    /// The allowed final states (values aligned with `observables`):
    /// every final state of the complete executions within the loop bound,
    /// unless `states_incomplete` says why not.
    pub states: Vec<Vec<i64>>,
    /// Why `states` may lack reachable states (a cap on the enumeration,
    /// undefined behaviour that stopped it, a resource limit); `None`: the
    /// list is complete.
    pub states_incomplete: Option<String>,
    /// Executions (filter applied) whose final state satisfies the
    /// condition's proposition, and those whose state does not (herd's
    /// `pos`/`neg`); `None` where not counted (the symbolic engine, no
    /// condition, an enumeration stopped early).
    pub positive: Option<u64>,
    pub negative: Option<u64>,
    /// Whether the proposition holds in no, some or every reachable final
    /// state; `None` without a condition or when not decided.
    pub observation: Option<Observation>,
    /// For `exists`: an execution reaching the state (PASS); for
    /// `~exists`/`forall`: one violating the assertion (FAIL).
    pub witness: Option<Witness>,
    /// Some consistent execution prefix was cut by the loop bound.
    pub bound_hit: bool,
    /// Why the verdict is what it is, when the assertion is not the reason
    /// (undefined behaviour).
    pub note: Option<String>,
    /// What a graph needs besides the witness (only with
    /// `Options::graph`).
    pub graph: Option<GraphData>,
}

/// The observables of a program: the assertion's terms (not the filter's), then
/// `locations`; if none, every location (one name per physical location).
pub fn observables(p: &Program) -> Vec<Term> {
    fn add(out: &mut Vec<Term>, t: Term) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    let mut out: Vec<Term> = Vec::new();
    if let Some(a) = &p.assertion {
        for t in a.cond.terms() {
            add(&mut out, t);
        }
    }
    for t in &p.observed {
        add(&mut out, t.clone());
    }
    if out.is_empty() {
        for (i, l) in p.locations.iter().enumerate() {
            if l.phys == i && !l.name.starts_with(crate::ir::HIDDEN_PREFIX) {
                add(&mut out, Term::Loc(i));
            }
        }
    }
    out
}

pub fn term_name(p: &Program, t: &Term) -> String {
    match t {
        Term::Reg(th, r) => format!("{}:{}", p.threads.get(*th).map_or("P?", |t| &t.name), r),
        Term::Loc(l) => p.locations[*l].name.clone(),
        Term::Const(c) => c.to_string(),
    }
}

/// Whether a final state (values of [`observables`]) satisfies the
/// proposition of `p`'s condition (true without one, as herd reads a test
/// without a condition: `forall (true)`).
pub fn state_satisfies(p: &Program, state: &[i64]) -> bool {
    let obs = observables(p);
    let val = |t: &Term| match t {
        Term::Const(k) => *k,
        t => obs.iter().position(|o| o == t).map_or(0, |i| state[i]),
    };
    p.assertion.as_ref().is_none_or(|a| a.cond.eval(&val))
}

/// A term as herd7 prints it: registers as `THREAD-INDEX:REG` (`1:r0`).
pub fn herd_term_name(p: &Program, t: &Term) -> String {
    match t {
        Term::Reg(th, r) => format!("{th}:{r}"),
        t => term_name(p, t),
    }
}

/// A test's condition with its quantifier, in herd's syntax
/// (`exists (P1:r0=1 /\ P1:r1=0)`, `~exists (…)`, `forall (…)`); `herd`:
/// registers named as herd7 names them ([`herd_term_name`]).
pub fn condition_text(p: &Program, a: &Assertion, herd: bool) -> String {
    let q = match a.quantifier {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    format!("{q} ({})", prop_text(p, &a.cond, herd, 0))
}

/// `level`: 0 at the top or under `\/`, 1 under `/\`, 2 under `~`
/// (herd's precedence: `~` binds tightest, then `/\`, then `\/`).
fn prop_text(p: &Program, c: &Cond, herd: bool, level: u8) -> String {
    let term = |t: &Term| {
        if herd {
            herd_term_name(p, t)
        } else {
            term_name(p, t)
        }
    };
    let paren = |s: String, needed: bool| if needed { format!("({s})") } else { s };
    match c {
        Cond::True => "true".into(),
        Cond::False => "false".into(),
        Cond::Cmp(op, x, y) => {
            let op = match op {
                CmpOp::Eq => "=",
                other => other.symbol(),
            };
            paren(format!("{}{op}{}", term(x), term(y)), level == 2)
        }
        Cond::Not(x) => format!("~{}", prop_text(p, x, herd, 2)),
        Cond::And(x, y) => paren(
            format!(
                "{} /\\ {}",
                prop_text(p, x, herd, 1),
                prop_text(p, y, herd, 1)
            ),
            level == 2,
        ),
        Cond::Or(x, y) => paren(
            format!(
                "{} \\/ {}",
                prop_text(p, x, herd, 0),
                prop_text(p, y, herd, 0)
            ),
            level > 0,
        ),
    }
}

struct SafetyObserver<'p> {
    program: &'p Program,
    filter: Option<&'p Cond>,
    observables: Vec<Term>,
    executions: u64,
    states: BTreeSet<Vec<i64>>,
    /// Executions whose state satisfies the proposition, and the others.
    positive: u64,
    negative: u64,
    satisfied: bool,
    violated: bool,
    witness: Option<Witness>,
    bound_hit: bool,
    /// The first consistent execution with undefined behaviour: its note
    /// and witness.
    ub: Option<(String, Witness)>,
    /// The threads that must pass the same barriers ([`divergence`]).
    barrier_groups: Vec<Vec<usize>>,
    /// What to record for graphs, and what was recorded.
    graph: Option<&'p GraphRequest>,
    drawn: GraphData,
}

/// The note of the first thread of `paths` whose path ends in undefined
/// behaviour.
pub fn ub_note(p: &Program, paths: &[&ThreadPath]) -> Option<String> {
    paths
        .iter()
        .enumerate()
        .find_map(|(th, path)| path.ub.as_ref().map(|u| u.describe(p, th)))
}

/// Records `c` in `slot` if it is the first consistent execution reaching
/// undefined behaviour. Such an execution fails every property whatever
/// the other threads do afterwards (cut by the bound, waiting at a
/// barrier the stopped thread never reaches), so it need not be complete.
pub(super) fn note_ub(
    p: &Program,
    c: &Candidate<'_, '_>,
    ev: &mut Evaluator<'_>,
    graph: Option<&GraphRequest>,
    slot: &mut Option<(String, Witness)>,
) {
    if slot.is_none() {
        if let Some(note) = ub_note(p, c.paths) {
            *slot = Some((note, Witness::for_graph(c, vec![], &[], ev, graph)));
        }
    }
}

/// Whether `c` is complete: every thread done, no one waiting at a
/// barrier (only such executions have a final state).
fn complete(c: &Candidate<'_, '_>) -> bool {
    !c.barrier_stuck && c.paths.iter().all(|p| p.end == PathEnd::Done)
}

impl SafetyObserver<'_> {
    /// Whether the assertion's target (the state `exists`/`~exists` ask
    /// about, or a state violating `forall`) holds in the final state
    /// `val`.
    fn target(&self, val: &dyn Fn(&Term) -> i64) -> bool {
        match &self.program.assertion {
            Some(a) => a.cond.eval(val) != (a.quantifier == Quantifier::Forall),
            None => false,
        }
    }

    /// Whether some consistent execution reached the target.
    fn target_reached(&self) -> bool {
        match self.program.assertion.as_ref().map(|a| a.quantifier) {
            Some(Quantifier::Forall) => self.violated,
            Some(_) => self.satisfied,
            None => true,
        }
    }

    fn named_state(&self, state: &[i64]) -> Vec<(String, i64)> {
        self.observables
            .iter()
            .zip(state)
            .map(|(t, v)| (term_name(self.program, t), *v))
            .collect()
    }
}

impl Observer for SafetyObserver<'_> {
    /// One cut execution decides that the bound was hit.
    fn wants_cut(&self) -> bool {
        !self.bound_hit
    }

    fn wants_inconsistent(&self) -> bool {
        self.graph.is_some() && self.drawn.rejected.is_none() && !self.target_reached()
    }

    /// A rejected candidate reaching the target: the picture of a
    /// forbidden outcome.
    fn inconsistent(&mut self, c: &Candidate<'_, '_>, ev: &mut Evaluator<'_>, axiom: usize) {
        if !complete(c) {
            return;
        }
        let p = self.program;
        for mem in final_memories(p, c) {
            let val = |t: &Term| final_value(p, c, &mem, t);
            if self.filter.is_some_and(|f| !f.eval(&val)) || !self.target(&val) {
                continue;
            }
            let state: Vec<i64> = self.observables.iter().map(val).collect();
            let mut w = Witness::for_graph(c, self.named_state(&state), &[], ev, self.graph);
            w.violation = Some(Violation::of(ev, axiom));
            self.drawn.rejected = Some(w);
            return;
        }
    }

    fn consistent(&mut self, c: &Candidate<'_, '_>, ev: &mut Evaluator<'_>) {
        note_ub(self.program, c, ev, self.graph, &mut self.ub);
        if c.paths.iter().any(|p| p.ub.is_some()) {
            // Undefined behaviour decides the verdict; such an execution
            // has no final state. The enumeration goes on: the states of
            // the executions without it are listed, as the symbolic engine
            // lists them.
            return;
        }
        if c.paths.iter().any(|p| p.end == PathEnd::Cut) {
            self.bound_hit = true;
            return;
        }
        let p = self.program;
        // Barrier divergence is undefined behaviour too, whether the
        // threads end (PTX) or wait forever (SPIR-V): no final state.
        let ended = c
            .paths
            .iter()
            .all(|p| matches!(p.end, PathEnd::Done | PathEnd::Stuck));
        if ended {
            if let Some(note) = super::divergence::note(p, &self.barrier_groups, c.paths) {
                if self.ub.is_none() {
                    self.ub = Some((note, Witness::for_graph(c, vec![], &[], ev, self.graph)));
                }
                return;
            }
        }
        if c.barrier_stuck || c.paths.iter().any(|p| p.end != PathEnd::Done) {
            // Non-terminating (deadlocked) executions have no final state.
            return;
        }
        let mut drawn = false;
        for mem in final_memories(p, c) {
            let val = |t: &Term| final_value(p, c, &mem, t);
            if let Some(f) = self.filter {
                if !f.eval(&val) {
                    continue;
                }
            }
            self.executions += 1;
            let state: Vec<i64> = self.observables.iter().map(val).collect();
            self.states.insert(state.clone());
            if let (Some(g), false) = (self.graph, drawn) {
                // One picture per candidate (partial coherence may give
                // it several final states: the first is shown).
                drawn = true;
                let room = if g.all { g.max } else { 1 };
                if self.drawn.executions.len() < room {
                    let w = Witness::for_graph(c, self.named_state(&state), &[], ev, self.graph);
                    self.drawn.executions.push(w);
                } else if g.all {
                    self.drawn.capped = true;
                }
            }
            if let Some(a) = &p.assertion {
                let sat = a.cond.eval(&val);
                let interesting = match a.quantifier {
                    Quantifier::Exists => sat && !self.satisfied,
                    Quantifier::NotExists => sat && !self.violated,
                    Quantifier::Forall => !sat && !self.violated,
                };
                if sat {
                    self.satisfied = true;
                    self.positive += 1;
                } else {
                    self.violated = true;
                    self.negative += 1;
                }
                if interesting && self.witness.is_none() {
                    let named = self.named_state(&state);
                    self.witness = Some(Witness::for_graph(c, named, &[], ev, self.graph));
                }
            }
        }
    }
}

/// Final memories of a complete candidate: one value per physical
/// location, from its co-maximal write; every combination of co-maximal
/// writes when coherence is partial (several maximal writes).
pub fn final_memories(p: &Program, c: &Candidate<'_, '_>) -> Vec<Vec<i64>> {
    let sk = c.skeleton;
    let nloc = p.locations.len();
    let mut out = vec![vec![0i64; nloc]];
    for l in 0..nloc {
        let Some(init) = sk.init_of[l] else { continue };
        let ws: Vec<usize> = std::iter::once(init)
            .chain(sk.writes[l].iter().copied())
            .collect();
        let mut vals: Vec<i64> = ws
            .iter()
            .copied()
            .filter(|&w| !ws.iter().any(|&x| c.co.contains(w, x)))
            .map(|w| sk.events[w].value)
            .collect();
        vals.sort_unstable();
        vals.dedup();
        out = out
            .into_iter()
            .flat_map(|m| {
                vals.iter().map(move |&v| {
                    let mut m = m.clone();
                    m[l] = v;
                    m
                })
            })
            .collect();
    }
    out
}

/// The final value of `t` in a complete candidate with final memory `mem`
/// (registers never written keep their initial value).
pub fn final_value(p: &Program, c: &Candidate<'_, '_>, mem: &[i64], t: &Term) -> i64 {
    match t {
        Term::Reg(th, r) => c.paths.get(*th).map_or(0, |path| {
            path.regs
                .iter()
                .find(|(n, _)| n == r)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| init_reg(p, *th, r))
        }),
        Term::Loc(l) => mem[p.locations[*l].phys],
        Term::Const(k) => *k,
    }
}

fn init_reg(p: &Program, th: usize, r: &str) -> i64 {
    p.threads
        .get(th)
        .and_then(|t| t.init_regs.iter().find(|(n, _)| n == r))
        .map_or(0, |(_, v)| *v)
}

/// Checks the program's final-state assertion.
pub fn check(p: &Program, model: &Model, opts: &Options) -> Result<SafetyResult> {
    let observables = observables(p);
    let mut obs = SafetyObserver {
        program: p,
        filter: if opts.ignore_filter {
            None
        } else {
            p.filter.as_ref()
        },
        observables: observables.clone(),
        executions: 0,
        states: BTreeSet::new(),
        positive: 0,
        negative: 0,
        satisfied: false,
        violated: false,
        witness: None,
        bound_hit: false,
        ub: None,
        barrier_groups: super::divergence::groups(p),
        graph: opts.graph.as_ref(),
        drawn: GraphData::default(),
    };
    // A resource limit ends the enumeration; what was found before it may
    // still decide the verdict (undefined behaviour, a reachable `exists`
    // state, a violation of `~exists`/`forall`), with the states marked
    // incomplete. Otherwise the limit is the answer (UNKNOWN).
    let stopped = match explicit::enumerate(p, model, opts, &mut obs) {
        Ok(()) => None,
        Err(e)
            if e.kind == ErrorKind::Limit
                && (obs.ub.is_some() || (p.assertion.is_some() && obs.target_reached())) =>
        {
            Some(format!("the enumeration was stopped: {}", e.message))
        }
        Err(e) => return Err(e),
    };
    if obs.target_reached() {
        obs.drawn.rejected = None;
    }
    let mut graph = opts.graph.as_ref().map(|_| std::mem::take(&mut obs.drawn));
    if let Some((note, w)) = obs.ub {
        return Ok(SafetyResult {
            verdict: Verdict::Fail,
            executions: obs.executions,
            observables: observables.iter().map(|t| term_name(p, t)).collect(),
            states: obs.states.into_iter().collect(),
            states_incomplete: stopped,
            positive: None,
            negative: None,
            observation: None,
            witness: Some(w),
            bound_hit: obs.bound_hit,
            note: Some(note),
            graph,
        });
    }
    let holds = match p.assertion.as_ref().map(|a| a.quantifier) {
        Some(Quantifier::Exists) => obs.satisfied,
        Some(Quantifier::NotExists) => !obs.satisfied,
        Some(Quantifier::Forall) => !obs.violated,
        None => true,
    };
    // A violation found is definite; an unreached state or an unviolated
    // universal claim may depend on paths the bound cut.
    let definite_fail = match p.assertion.as_ref().map(|a| a.quantifier) {
        Some(Quantifier::Exists) => false,
        _ => !holds,
    };
    let verdict = if holds
        && matches!(
            p.assertion.as_ref().map(|a| a.quantifier),
            Some(Quantifier::Exists)
        ) {
        Verdict::Pass
    } else if definite_fail {
        Verdict::Fail
    } else if obs.bound_hit {
        Verdict::Unknown
    } else if holds {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    if verdict != Verdict::Fail
        && !matches!(
            p.assertion.as_ref().map(|a| a.quantifier),
            Some(Quantifier::Exists)
        )
    {
        obs.witness = None;
    }
    if let Some(g) = &mut graph {
        g.keep_example(opts.graph.as_ref(), obs.witness.is_some());
    }
    Ok(SafetyResult {
        verdict,
        executions: obs.executions,
        observables: observables.iter().map(|t| term_name(p, t)).collect(),
        states: obs.states.into_iter().collect(),
        positive: p
            .assertion
            .as_ref()
            .map(|_| obs.positive)
            .filter(|_| stopped.is_none()),
        negative: p
            .assertion
            .as_ref()
            .map(|_| obs.negative)
            .filter(|_| stopped.is_none()),
        observation: p
            .assertion
            .as_ref()
            .filter(|_| stopped.is_none())
            .map(|_| Observation::of(obs.positive > 0, obs.negative > 0)),
        states_incomplete: stopped,
        witness: obs.witness,
        bound_hit: obs.bound_hit,
        note: None,
        graph,
    })
}

/// Why the states of a test with undefined behaviour are not all listed.
pub const UB_STOPS: &str = "undefined behaviour decided the verdict";
