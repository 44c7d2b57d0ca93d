//! Liveness on the symbolic engine: the stuck configurations of
//! [`crate::engine::liveness::axiomatic`], found by the SAT solver instead
//! of enumerated.
//!
//! The liveness unrolling ([`guarded::Pausing`]) lets every thread stop in
//! one of five ways, each a literal: terminated, spinning (stopped at the
//! back-edge of a spinning iteration whose reads read co-maximal writes,
//! [`Enc::encode_spinning`]), blocked at a barrier whose group lacks its
//! quorum, paused (where the progress model may starve it), or cut by the
//! bound. The progress model's condition on the threads' statuses is
//! checked lazily: the solver proposes a consistent execution with its
//! statuses, and a status vector the model rejects is blocked by one
//! clause. An accepted execution is rebuilt explicitly, re-checked by the
//! `.cat` evaluator and then by the explicit engine's own stuck-configuration
//! observer, so a reported violation is exactly one the explicit engine
//! would report.

use super::guarded::{LiveStatus, Pausing};
use super::sat::Lit;
use super::{build, consistency_axioms, evaluator, reject, Stats};
use crate::cat::Model;
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::liveness::axiomatic::{end_state, Masks, Obs, Outcome, Status};
use crate::engine::liveness::interp::{Code, Local};
use crate::engine::liveness::{Hierarchy, ProgressModel, ProgressSpec};
use crate::engine::paths::ThreadPath;
use crate::engine::symmetry::{self, Group};
use crate::engine::{Observer, Options};
use crate::ir::Program;

/// A thread's status literals: terminated, spinning, blocked, paused
/// before its first step, paused after some.
struct StatusLits {
    lits: [Lit; 5],
}

const STATUSES: [(Status, bool); 5] = [
    (Status::Terminated, true),
    (Status::Spinning, true),
    (Status::Blocked, true),
    (Status::Paused, false),
    (Status::Paused, true),
];

fn internal(msg: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported: internal error: {msg}"),
    )
}

/// Searches the stuck configurations of `p` (whose loops are all
/// side-effect free) under `model` and the progress model `spec`.
pub fn stuck(
    p: &Program,
    model: &Model,
    opts: &Options,
    codes: &[Code],
    hier: &Hierarchy,
    spec: &ProgressSpec,
) -> Result<Outcome> {
    let pausing = Pausing {
        starve: spec.may_starve(p.arch),
        starve_started: spec.may_starve_started(p.arch),
    };
    let needed = consistency_axioms(model);
    let mut enc = build(p, model, opts, &needed, Some(pausing), false)?;
    if opts.symmetry {
        // An exchange permutes the children of one scope instance (see
        // `Group::level`): it maps stuck configurations to stuck ones only
        // where the progress model scheduling those children ignores ids.
        let inner: Vec<ProgressModel> = spec.chain(p.arch).into_iter().rev().collect();
        let groups: Vec<Group> = symmetry::groups(p, &[])
            .into_iter()
            .filter(|g| {
                let level = g.level.map_or(0, |l| l + 1);
                inner.get(level).is_some_and(|m| m.ignores_ids())
            })
            .collect();
        super::symmetry::break_groups(&mut enc, p, &groups, None);
    }
    let debug = std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some();
    let mut status_lits = Vec::new();
    let mut cuts = Vec::new();
    for t in &enc.u.threads {
        let live: &LiveStatus = t
            .guarded
            .as_ref()
            .and_then(|g| g.live.as_ref())
            .ok_or_else(|| internal("a liveness unrolling without thread statuses"))?;
        cuts.push(t.cut);
        let (paused, stepped) = (live.paused, live.stepped);
        let lits = [
            live.terminated,
            live.spinning,
            live.blocked,
            paused,
            stepped,
        ];
        status_lits.push(lits);
    }
    let status_lits: Vec<StatusLits> = status_lits
        .into_iter()
        .map(|[t, s, b, paused, stepped]| StatusLits {
            lits: [
                t,
                s,
                b,
                enc.sat.and2(paused, -stepped),
                enc.sat.and2(paused, stepped),
            ],
        })
        .collect();
    // A thread cut by the bound is not in a stuck configuration.
    let assumptions: Vec<Lit> = cuts.iter().map(|&c| -c).collect();
    let mut stats = Stats::default();
    let mut executions = 0u64;
    let mut incomplete = None;
    let mut rejected = 0usize;
    loop {
        stats.solver_calls += 1;
        match enc.sat.solve(&assumptions) {
            Some(true) => {}
            Some(false) => break,
            None => return Err(enc.sat.gave_up()),
        }
        // The statuses the solver chose.
        let mut picks = Vec::with_capacity(status_lits.len());
        for s in &status_lits {
            let k = s
                .lits
                .iter()
                .position(|&l| enc.sat.value(l))
                .ok_or_else(|| internal("a thread without a status"))?;
            picks.push(k);
        }
        let statuses: Vec<Status> = picks.iter().map(|&k| STATUSES[k].0).collect();
        let paused_stepped = picks
            .iter()
            .enumerate()
            .filter(|(_, &k)| k == 4)
            .fold(0u64, |a, (t, _)| a | 1 << t);
        let m = Masks::of(&statuses, paused_stepped);
        if !m.fair_ok(hier) {
            // The progress model rejects every execution with these
            // statuses.
            rejected += 1;
            let block: Vec<Lit> = picks
                .iter()
                .zip(&status_lits)
                .map(|(&k, s)| -s.lits[k])
                .collect();
            enc.sat.clause(&block);
            continue;
        }
        let c = enc.concrete()?;
        let mut ev = evaluator(model, &c, &enc.u.vocab);
        let consistent = ev.first_violation().is_none();
        if consistent {
            executions += 1;
            let ends: Vec<Option<Local>> = statuses
                .iter()
                .zip(&c.paths)
                .zip(codes)
                .map(|((st, path), code)| match st {
                    Status::Spinning => end_state(code, path),
                    _ => None,
                })
                .collect();
            let refs: Vec<&ThreadPath> = c.paths.iter().collect();
            let cand = c.candidate(&refs);
            let fair = hier.fair_set(m.stepped, m.terminated);
            let mut obs = Obs::new(
                codes,
                ends.iter().map(Option::as_ref).collect(),
                &statuses,
                m.stepped,
                fair,
            );
            obs.consistent(&cand, &mut ev);
            if obs.too_long {
                incomplete.get_or_insert_with(|| {
                    "a spinning thread runs too long to tell whether it cycles".to_string()
                });
            }
            if let Some(f) = obs.found {
                if debug {
                    eprintln!(
                        "symbolic liveness: found after {} solver calls ({rejected} status vectors rejected)",
                        stats.solver_calls
                    );
                }
                return Ok(Outcome {
                    found: Some(f),
                    executions,
                    incomplete,
                });
            }
        }
        // The re-check disagrees with the encoding: block this execution.
        reject(&mut enc, &mut stats, "the explicit liveness re-check")?;
    }
    if debug {
        eprintln!(
            "symbolic liveness: no stuck configuration ({} solver calls, {rejected} status vectors rejected, {} mismatches)",
            stats.solver_calls, stats.mismatches
        );
    }
    // No stuck configuration within the bound; one beyond it may exist if
    // some consistent execution is cut.
    if incomplete.is_none() {
        let any_cut = enc.sat.or(&cuts);
        if super::solve_checked(&mut enc, model, &[any_cut], &mut stats)? {
            let th = cuts
                .iter()
                .position(|&l| enc.sat.value(l))
                .unwrap_or_default();
            incomplete = Some(format!(
                "a loop of thread {} runs past the bound {}",
                p.threads[th].name, opts.bound
            ));
        }
    }
    Ok(Outcome {
        found: None,
        executions,
        incomplete,
    })
}
