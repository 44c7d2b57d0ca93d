//! Is what the hardware did allowed? Every observed final state is judged
//! against the model: the explicit engine enumerates the model's final
//! states (at a growing loop bound while loops were cut and a state is
//! still unexplained); where it gives up, the symbolic engine is asked
//! about each observed state alone.
//!
//! A state the model forbids is a violation — unless the model flags a
//! data race in the test and the model's language makes races undefined
//! behaviour (Vulkan: Tong et al., ASPLOS 2024, §3.5; the PTX model has no
//! `flag` axiom, racy PTX programs keep their semantics), in which case
//! the state is reported as undefined behaviour, not as a violation.

use gpumc_core::cat::Model;
use gpumc_core::diag::{ErrorKind, Result};
use gpumc_core::guard::{self, Guard, Limits};
use gpumc_core::ir::{Assertion, CmpOp, Cond, Program, Quantifier, Term};
use gpumc_verify::engine::safety::{self, Verdict};
use gpumc_verify::engine::{races, symbolic, Options};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::time::Instant;

/// What the model says of one observed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    Allowed,
    /// The model forbids it and the test is race-free (or races are not
    /// undefined): a violation.
    Forbidden,
    /// The model forbids it, but the test has a data race the model flags:
    /// its behaviour is undefined, anything goes.
    Undefined,
    /// The `filter` excludes it: not judged.
    Filtered,
    /// The model could not decide (loops cut by the bound, or a resource
    /// limit): reported, not a violation.
    Unknown,
}

/// Whether some execution the model allows ends in a state satisfying
/// `cond` (filter applied): the explicit engine, the symbolic one when the
/// explicit refuses; `None` when neither decides (loops cut, limits).
pub fn reachable(p: &Program, model: &Model, cond: &Cond, limits: Limits) -> Option<bool> {
    let mut q = p.clone();
    q.assertion = Some(Assertion {
        quantifier: Quantifier::Exists,
        cond: cond.clone(),
    });
    let opts = Options::default();
    let run = |symbolic: bool| {
        let _scope = guard::enter(Guard::new(&limits, Instant::now()));
        if symbolic {
            symbolic::check_safety(&q, model, &opts)
        } else {
            safety::check(&q, model, &opts)
        }
    };
    let verdict = match run(false) {
        Ok(r) => r.verdict,
        Err(_) => run(true).ok()?.verdict,
    };
    match verdict {
        Verdict::Pass => Some(true),
        Verdict::Fail => Some(false),
        Verdict::Unknown => None,
    }
}

/// The model's side of a test, computed once per test.
pub struct ModelJudge<'a> {
    program: &'a Program,
    model: &'a Model,
    /// Observables (the state) followed by filter-only terms.
    terms: Vec<Term>,
    observables: usize,
    /// Allowed states per loop bound tried, values truncated to 32 bits.
    enumerated: Vec<(u32, BTreeSet<Vec<i64>>, bool)>,
    /// Why enumeration was impossible (the symbolic engine decides per
    /// state then).
    refused: Option<String>,
    /// Race checks made, per loop bound.
    racy: Vec<(u32, Option<bool>)>,
    limits: Limits,
    max_bound: u32,
}

/// The terms whose values a run records for `program`: its state's (the
/// observables), then the filter's; and how many are the state's.
pub fn state_terms(program: &Program) -> (Vec<Term>, usize) {
    let mut terms = safety::observables(program);
    let observables = terms.len();
    if let Some(f) = &program.filter {
        for t in f.terms() {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
    }
    (terms, observables)
}

/// The names of state terms, as reports print them.
pub fn state_names(program: &Program, terms: &[Term]) -> Vec<String> {
    terms
        .iter()
        .map(|t| safety::term_name(program, t))
        .collect()
}

/// What the model says of a test's observed states
/// ([`ModelJudge::judge_all`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdicts {
    /// One per observed state, in the order asked.
    pub judgements: Vec<Judgement>,
    /// The model's states at the smallest bound, when they could be
    /// enumerated, and whether that list is complete.
    pub allowed: Option<(Vec<Vec<i64>>, bool)>,
    /// Why the explicit engine could not enumerate them.
    pub refusal: Option<String>,
}

/// Values as the 32-bit hardware holds them.
pub fn truncate(v: i64) -> i64 {
    i64::from(v as i32)
}

impl<'a> ModelJudge<'a> {
    /// `limits` bound each model check (`--timeout`); loops are unrolled up
    /// to `max_bound`.
    pub fn new(
        program: &'a Program,
        model: &'a Model,
        limits: Limits,
        max_bound: u32,
    ) -> ModelJudge<'a> {
        let (terms, observables) = state_terms(program);
        let mut j = ModelJudge {
            program,
            model,
            terms,
            observables,
            enumerated: Vec::new(),
            refused: None,
            racy: Vec::new(),
            limits,
            max_bound: max_bound.max(1),
        };
        // Enumerating every state pays where the explicit engine is the
        // right one (what `--engine auto` would pick); for a test it
        // would find large, each observed state is asked about alone.
        if gpumc_verify::driver::Engine::Auto.resolve(program)
            == gpumc_verify::driver::Engine::Explicit
        {
            j.enumerate(1);
        } else {
            j.refused = Some(
                "the test is large for the explicit engine, so the symbolic engine judged each observed state alone".into(),
            );
        }
        j
    }

    /// Every term whose value a run must record: the state's, then the
    /// filter's.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// How many leading terms form the state.
    pub fn observables(&self) -> usize {
        self.observables
    }

    /// The state's names (`P1:r0`, `x`).
    pub fn names(&self) -> Vec<String> {
        state_names(self.program, &self.terms[..self.observables])
    }

    /// Judges every observed state (values of [`Self::terms`], with the
    /// loop back edges the hardware reported for it), and says what the
    /// model allows: what a test's report needs from the model, in one
    /// answer that can travel from a worker process.
    pub fn judge_all(&mut self, states: &[(Vec<i64>, u32)]) -> Verdicts {
        let judgements = states
            .iter()
            .map(|(s, back_edges)| self.judge(s, *back_edges))
            .collect();
        Verdicts {
            judgements,
            allowed: self
                .allowed_states()
                .map(|(set, complete)| (set.iter().cloned().collect(), complete)),
            refusal: self.refusal().map(str::to_string),
        }
    }

    /// The model's states at the smallest bound, when they could be
    /// enumerated, and whether that set is complete (no loop was cut).
    pub fn allowed_states(&self) -> Option<(&BTreeSet<Vec<i64>>, bool)> {
        self.enumerated.first().map(|(_, s, hit)| (s, !*hit))
    }

    /// Why the explicit engine could not enumerate the model's states.
    pub fn refusal(&self) -> Option<&str> {
        self.refused.as_deref()
    }

    fn guarded<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let _scope = guard::enter(Guard::new(&self.limits, Instant::now()));
        f()
    }

    fn enumerate(&mut self, bound: u32) -> bool {
        let opts = Options {
            bound,
            ..Options::default()
        };
        match self.guarded(|| safety::check(self.program, self.model, &opts)) {
            Ok(r) => {
                let states = r
                    .states
                    .iter()
                    .map(|s| s.iter().map(|&v| truncate(v)).collect())
                    .collect();
                self.enumerated.push((bound, states, r.bound_hit));
                true
            }
            Err(e) => {
                self.refused = Some(e.to_string());
                false
            }
        }
    }

    /// Judges one observed state (values of [`Self::terms`]) that the
    /// hardware reached with at most `back_edges` loop back edges in any
    /// thread (`abi::RES_BACK_EDGES`).
    ///
    /// A state among the model's states at loop bound 1 is allowed.
    /// Otherwise the hardware's own iteration count says how far to
    /// unroll: every loop of that run iterated at most `back_edges + 1`
    /// times, so if no execution within that bound reaches the state, the
    /// run the hardware made is one the model forbids. Beyond `max_bound`
    /// the state is undecided.
    pub fn judge(&mut self, state: &[i64], back_edges: u32) -> Judgement {
        if let Some(f) = &self.program.filter {
            let val = |t: &Term| match t {
                Term::Const(c) => *c,
                _ => self
                    .terms
                    .iter()
                    .position(|x| x == t)
                    .map_or(0, |k| state[k]),
            };
            if !f.eval(&val) {
                return Judgement::Filtered;
            }
        }
        let proj = state[..self.observables].to_vec();
        if let Some((_, states, _)) = self.enumerated.first() {
            if states.contains(&proj) {
                return Judgement::Allowed;
            }
        }
        // Not among the states at bound 1: ask about this state at the
        // bound the hardware's run needs, even when the enumeration cut
        // no loop — its spinning-iteration reasoning is the verifier's,
        // and the question here must stand on the run's own iterations.
        let bound = back_edges.saturating_add(1);
        if bound > self.max_bound {
            return Judgement::Unknown;
        }
        match self.reachable_within(&proj, bound) {
            Some(true) => Judgement::Allowed,
            Some(false) => self.forbidden(bound),
            None => Judgement::Unknown,
        }
    }

    /// A state outside the model: a violation, or undefined behaviour in a
    /// racy test.
    fn forbidden(&mut self, bound: u32) -> Judgement {
        match self.is_racy(bound) {
            Some(false) => Judgement::Forbidden,
            Some(true) => Judgement::Undefined,
            None => Judgement::Unknown,
        }
    }

    /// Whether some execution with at most `bound` iterations per loop
    /// reaches `proj`: the symbolic engine, or the explicit one (its
    /// states at that bound) when the symbolic engine refuses; `None`
    /// when neither decides within the limits.
    fn reachable_within(&mut self, proj: &[i64], bound: u32) -> Option<bool> {
        let mut cond = Cond::True;
        for (t, &v) in self.terms[..self.observables].iter().zip(proj) {
            let c = Cond::Cmp(CmpOp::Eq, t.clone(), Term::Const(v));
            cond = match cond {
                Cond::True => c,
                prev => Cond::And(Box::new(prev), Box::new(c)),
            };
        }
        let mut p = self.program.clone();
        p.assertion = Some(Assertion {
            quantifier: Quantifier::Exists,
            cond,
        });
        let opts = Options {
            bound,
            ..Options::default()
        };
        match self.guarded(|| symbolic::check_safety(&p, self.model, &opts)) {
            // Not found within the bound the hardware stayed in: no
            // execution like the hardware's reaches it.
            Ok(r) => return Some(r.verdict == Verdict::Pass),
            Err(e) if e.kind == ErrorKind::Limit => return None,
            Err(_) => {}
        }
        if !self.enumerated.iter().any(|(b, _, _)| *b == bound) && !self.enumerate(bound) {
            return None;
        }
        let (_, states, _) = self.enumerated.iter().find(|(b, _, _)| *b == bound)?;
        Some(states.contains(proj))
    }

    /// Whether the test's behaviour is undefined because the model flags
    /// a data race and the language makes races undefined
    /// (`Arch::races_are_undefined`): `Some(false)` also when the model
    /// has no `flag` axiom (no notion of race), `None` when the race check
    /// cannot decide. Races are looked for up to loop bound `bound` (the
    /// executions like the one the hardware ran); a race only in longer
    /// executions does not excuse a state reached within the bound.
    pub fn is_racy(&mut self, bound: u32) -> Option<bool> {
        if !self.program.arch.races_are_undefined() {
            return Some(false);
        }
        if let Some(&(_, r)) = self.racy.iter().find(|(b, _)| *b == bound) {
            return r;
        }
        let opts = Options {
            bound,
            // Whether the test races is all that is asked here.
            max_races: 0,
            ..Options::default()
        };
        let decide = |v: Verdict| match v {
            Verdict::Fail => Some(true),
            Verdict::Pass => Some(false),
            Verdict::Unknown => None,
        };
        let r = match self.guarded(|| races::check(self.program, self.model, &opts)) {
            Ok(r) if r.verdict != Verdict::Unknown => decide(r.verdict),
            Err(e) if e.kind == ErrorKind::Usage => Some(false),
            // Loops cut, or the explicit engine refused: the symbolic one.
            _ => match self.guarded(|| symbolic::check_races(self.program, self.model, &opts)) {
                Ok(r) => Some(r.verdict == Verdict::Fail),
                Err(e) if e.kind == ErrorKind::Usage => Some(false),
                Err(_) => None,
            },
        };
        self.racy.push((bound, r));
        r
    }
}

#[cfg(test)]
mod tests;
