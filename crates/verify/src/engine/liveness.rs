//! Liveness (`--property liveness`): can the program run forever under the
//! progress model? A violation is a reachable configuration in which some
//! thread runs forever without making progress, or every thread that can
//! still run is blocked at a barrier, and every thread the progress model
//! guarantees to be scheduled is one of those (docs/LIVENESS.md).
//!
//! Two methods, chosen by the loops of the program:
//!
//! * every loop is a side-effect-free spinloop: stuck configurations over
//!   the model's executions ([`axiomatic`]; Tong et al., ASPLOS'24 §6.4 with progress
//!   models). Sound and complete under the assumptions of docs/LIVENESS.md.
//! * some loop writes memory (or contains a barrier): weakly fair cycles of
//!   the interleaving graph ([`sc`]; Sorensen et al., OOPSLA'21 §4–5) find violations; a PASS
//!   needs a termination proof, either valid for every memory model with
//!   fair memory ([`eventual`]) or, for a program with one location and
//!   coherent accesses, the interleaving graph itself ([`coherence`]).
//!   Otherwise the verdict is UNKNOWN.

pub mod axiomatic;
pub mod coherence;
pub mod eventual;
pub mod interp;
pub mod progress;
pub mod sc;
pub mod validate;

pub use progress::{Hierarchy, ProgressModel, ProgressSpec};

use super::safety::Verdict;
use super::witness::Witness;
use super::Options;
use crate::cat::Model;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{InstrKind, Program};
use axiomatic::Status;
use interp::Code;
use serde::Serialize;
use std::fmt::Write;

/// Interleaving states explored at most.
const MAX_STATES: usize = 200_000;

/// A thread in a violating configuration.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct ThreadState {
    pub thread: String,
    /// `spinning` (a side-effect-free iteration repeating forever),
    /// `looping` (stepping forever on the cycle of an interleaving),
    /// `blocked` (at a barrier), `terminated` or `paused` (never scheduled
    /// again).
    pub state: String,
    /// Guaranteed to be scheduled by the progress model.
    pub fair: bool,
    /// Has taken a step.
    pub stepped: bool,
    /// Line of the loop (spinning) or barrier (blocked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Values the spinning iteration reads (`location=value`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
}

/// One step of an interleaving witness.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct TraceStep {
    pub thread: String,
    pub line: u32,
    pub instr: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<i64>,
}

/// What a liveness violation looks like.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct LivenessViolation {
    /// Human-readable account (several lines).
    pub description: String,
    /// `executions` (a stuck configuration of a consistent execution; the
    /// report's witness is that execution) or `interleaving` (a lasso of
    /// the interleaving graph: `trace`, repeating from `cycle_start`).
    pub method: String,
    /// The progress model.
    pub progress: String,
    pub threads: Vec<ThreadState>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle_start: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LivenessResult {
    pub verdict: Verdict,
    /// Consistent executions examined, or interleaving states explored.
    pub executions: u64,
    pub violation: Option<LivenessViolation>,
    /// The consistent execution of an `executions` violation.
    pub witness: Option<Witness>,
    /// Why the verdict is UNKNOWN, or which proof gave PASS.
    pub note: Option<String>,
}

/// The loops (thread, back-edge instruction) whose body writes memory or
/// contains a barrier; the body of a back-edge is the instructions from
/// its target label to it (as in `paths.rs`).
fn side_effect_loops(p: &Program) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        for (i, ins) in th.instrs.iter().enumerate() {
            let target = match &ins.kind {
                InstrKind::Branch { target, .. } | InstrKind::Goto(target) => target,
                _ => continue,
            };
            let Some(ti) = th
                .instrs
                .iter()
                .position(|x| matches!(&x.kind, InstrKind::Label(l) if l == target))
            else {
                continue;
            };
            if ti <= i
                && th.instrs[ti..=i].iter().any(|x| {
                    matches!(
                        x.kind,
                        InstrKind::Store { .. } | InstrKind::Rmw { .. } | InstrKind::Barrier { .. }
                    )
                })
            {
                out.push((t, i));
            }
        }
    }
    out
}

fn names(p: &Program, mask: u64) -> String {
    let v: Vec<&str> = (0..p.threads.len())
        .filter(|t| mask >> t & 1 == 1)
        .map(|t| p.threads[t].name.as_str())
        .collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Checks whether `p` can run forever under `progress`. `symbolic`: find
/// stuck configurations with the SAT solver rather than by enumeration
/// (programs whose loops are all side-effect free; the other method has
/// one implementation). Free inputs are fixed one valuation at a time
/// (`engine::inputs`: finite sets of representatives, else unsupported).
pub fn check(
    p: &Program,
    model: &Model,
    opts: &Options,
    progress: &ProgressSpec,
    symbolic: bool,
) -> Result<LivenessResult> {
    let Some(valuations) = super::inputs::valuations(p, super::inputs::Use::Liveness)? else {
        return check_fixed(p, model, opts, progress, symbolic);
    };
    let mut executions = 0;
    let mut unknown = None;
    for q in &valuations {
        let mut r = check_fixed(q, model, opts, progress, symbolic)?;
        executions += r.executions;
        match r.verdict {
            Verdict::Fail => {
                let chosen: Vec<String> = q
                    .inputs
                    .iter()
                    .zip(&p.inputs)
                    .filter(|(_, free)| free.value.is_none())
                    .filter_map(|(i, _)| Some(format!("{}={}", i.name, i.value?)))
                    .collect();
                if let Some(v) = &mut r.violation {
                    v.description = format!("{} (inputs: {})", v.description, chosen.join(" "));
                }
                r.executions = executions;
                return Ok(r);
            }
            Verdict::Unknown if unknown.is_none() => unknown = Some(r.note),
            _ => {}
        }
    }
    let (verdict, note) = match unknown {
        Some(note) => (Verdict::Unknown, note),
        None => (Verdict::Pass, None),
    };
    Ok(LivenessResult {
        verdict,
        executions,
        violation: None,
        witness: None,
        note,
    })
}

/// [`check`] for a program whose inputs are all fixed.
fn check_fixed(
    p: &Program,
    model: &Model,
    opts: &Options,
    progress: &ProgressSpec,
    symbolic: bool,
) -> Result<LivenessResult> {
    progress
        .check_arch(p.arch)
        .map_err(|m| Error::new(ErrorKind::Usage, m))?;
    if p.threads.len() > 64 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "unsupported: liveness checks programs of at most 64 threads",
        ));
    }
    let codes: Vec<Code> = p
        .threads
        .iter()
        .map(|t| Code::compile(p, t))
        .collect::<Result<_>>()?;
    let hier = Hierarchy::new(p, progress);
    let fx = side_effect_loops(p);
    if fx.is_empty() {
        let ax = if symbolic {
            crate::engine::symbolic::stuck_configurations(p, model, opts, &codes, &hier, progress)?
        } else {
            axiomatic::check(
                p,
                model,
                opts.bound,
                opts.max_combinations,
                &codes,
                &hier,
                progress,
            )?
        };
        if let Some(f) = ax.found {
            let v = describe_stuck(p, progress, &f);
            return Ok(LivenessResult {
                verdict: Verdict::Fail,
                executions: ax.executions,
                violation: Some(v),
                witness: Some(f.witness),
                note: None,
            });
        }
        let (verdict, note) = match ax.incomplete {
            Some(why) => (Verdict::Unknown, Some(why)),
            None => (Verdict::Pass, None),
        };
        return Ok(LivenessResult {
            verdict,
            executions: ax.executions,
            violation: None,
            witness: None,
            note,
        });
    }
    // Loops with side effects.
    let (t, i) = fx[0];
    let where_ = format!(
        "thread {} has a loop with side effects (line {})",
        p.threads[t].name, p.threads[t].instrs[i].pos.line
    );
    let mut states = 0u64;
    let sc_reason = match sc::explore(p, &codes, &hier, MAX_STATES)? {
        sc::Outcome::Explored {
            states: n,
            lasso: Some(l),
        } if validate::lasso_consistent(p, model, &codes, &l)? => {
            let v = describe_lasso(p, progress, &codes, &l);
            return Ok(LivenessResult {
                verdict: Verdict::Fail,
                executions: n as u64,
                violation: Some(v),
                witness: None,
                note: None,
            });
        }
        sc::Outcome::Explored {
            states: n,
            lasso: Some(_),
        } => {
            states = n as u64;
            Some("the model rejects the execution of its fair cycle".to_string())
        }
        sc::Outcome::Explored { states: n, .. } => {
            states = n as u64;
            None
        }
        sc::Outcome::Unsupported(why) => Some(why),
    };
    let total_co: Vec<bool> = (0..p.locations.len())
        .map(|x| !model.partial_co(p.arch) || coherence::coherent_location(p, model, x).is_ok())
        .collect();
    let ev_reason = match eventual::proves_termination(p, &codes, &hier, progress, &total_co)? {
        None => {
            return Ok(LivenessResult {
                verdict: Verdict::Pass,
                executions: states,
                violation: None,
                witness: None,
                note: Some("termination proved for every memory model with fair memory".into()),
            });
        }
        Some(why) => why,
    };
    let why = match sc_reason {
        Some(why) => format!(
            "{where_}; the interleaving graph does not decide ({why}) and termination is not proved ({ev_reason})"
        ),
        None => match coherence::single_location_coherent(p, model) {
            Ok(()) => {
                return Ok(LivenessResult {
                    verdict: Verdict::Pass,
                    executions: states,
                    violation: None,
                    witness: None,
                    note: Some(
                        "no fair cycle among the interleavings, which are all the executions (one location, coherent accesses)"
                            .into(),
                    ),
                });
            }
            Err(e) => format!(
                "{where_}: no fair cycle among the interleavings, but weak executions are not covered: termination is not proved ({ev_reason}) and the interleavings are not all the executions ({e})"
            ),
        },
    };
    Ok(LivenessResult {
        verdict: Verdict::Unknown,
        executions: states,
        violation: None,
        witness: None,
        note: Some(why),
    })
}

fn describe_stuck(p: &Program, spec: &ProgressSpec, f: &axiomatic::Found) -> LivenessViolation {
    let mut threads = Vec::new();
    let mut s = String::new();
    for (t, st) in f.statuses.iter().enumerate() {
        let stepped = match st {
            Status::Paused => f.stepped >> t & 1 == 1,
            _ => true,
        };
        let spin = f.spins.iter().find(|(x, _, _)| *x == t);
        let state = match st {
            Status::Terminated => "terminated",
            Status::Spinning => "spinning",
            Status::Blocked => "blocked",
            Status::Paused => "paused",
        };
        let line = match st {
            Status::Spinning => spin.map(|(_, l, _)| *l),
            Status::Blocked => f
                .witness
                .events
                .iter()
                .rev()
                .find(|e| e.thread == p.threads[t].name && e.kind == "B")
                .map(|e| e.line),
            _ => None,
        };
        let reads = spin.map(|(_, _, r)| r.clone()).unwrap_or_default();
        let fair = f.fair >> t & 1 == 1;
        let name = &p.threads[t].name;
        let _ =
            match st {
                Status::Spinning => writeln!(
                s,
                "    {name} spins forever in the loop at line {} reading co-maximal values ({}){}",
                line.unwrap_or(0),
                if reads.is_empty() {
                    "no reads".to_string()
                } else {
                    reads.join(", ")
                },
                if fair { "" } else { " [not guaranteed to be scheduled]" }
            ),
                Status::Blocked => writeln!(
                    s,
                    "    {name} waits forever at the barrier at line {}",
                    line.unwrap_or(0)
                ),
                Status::Terminated => writeln!(s, "    {name} terminated"),
                Status::Paused => writeln!(
                    s,
                    "    {name} is never scheduled again {} (not guaranteed under {})",
                    if stepped {
                        "after some steps"
                    } else {
                        "before its first step"
                    },
                    spec.text
                ),
            };
        threads.push(ThreadState {
            thread: name.clone(),
            state: state.into(),
            fair,
            stepped,
            line,
            reads,
        });
    }
    let head = if f.statuses.contains(&Status::Spinning) {
        "a thread spins forever in a side-effect-free loop"
    } else {
        "threads wait forever at a barrier"
    };
    let tail = if f.statuses.contains(&Status::Spinning) {
        "    (the witness execution ends with an iteration that repeats forever)"
    } else {
        "    (the witness execution ends where the threads wait)"
    };
    LivenessViolation {
        description: format!(
            "{head} (progress model {}; fair threads: {}):\n{s}{tail}",
            spec.text,
            names(p, f.fair),
        ),
        method: "executions".into(),
        progress: spec.text.clone(),
        threads,
        trace: vec![],
        cycle_start: None,
    }
}

fn describe_lasso(
    p: &Program,
    spec: &ProgressSpec,
    codes: &[Code],
    l: &sc::Lasso,
) -> LivenessViolation {
    let step = |st: &sc::Step| -> TraceStep {
        let t = st.thread;
        let (line, instr) = match st.instr {
            Some(i) => (codes[t].pos[i].line, codes[t].texts[i].clone()),
            None => (0, "(local loop)".to_string()),
        };
        TraceStep {
            thread: p.threads[t].name.clone(),
            line,
            instr,
            location: st.effect.loc.map(|x| p.locations[x].name.clone()),
            read: st.effect.read,
            written: st.effect.written,
        }
    };
    let trace: Vec<TraceStep> = l.prefix.iter().chain(&l.cycle).map(step).collect();
    let mut threads = Vec::new();
    let mut stepped = 0u64;
    for st in l.prefix.iter().chain(&l.cycle) {
        stepped |= 1 << st.thread;
    }
    for (t, th) in p.threads.iter().enumerate() {
        let state = if l.terminated >> t & 1 == 1 {
            "terminated"
        } else if l.looping >> t & 1 == 1 {
            "looping"
        } else {
            "paused"
        };
        threads.push(ThreadState {
            thread: th.name.clone(),
            state: state.into(),
            fair: l.fair >> t & 1 == 1,
            stepped: stepped >> t & 1 == 1,
            line: None,
            reads: vec![],
        });
    }
    let mut s = String::new();
    let fmt = |s: &mut String, x: &TraceStep| {
        let mut eff = String::new();
        if let Some(loc) = &x.location {
            eff.push_str(loc);
            if let Some(r) = x.read {
                let _ = write!(eff, " read {r}");
            }
            if let Some(w) = x.written {
                let _ = write!(eff, "{} wrote {w}", if x.read.is_some() { "," } else { "" });
            }
        }
        let _ = writeln!(
            s,
            "      {:<4} l.{:<3} {:<32} {}",
            x.thread, x.line, x.instr, eff
        );
    };
    for x in &trace[..l.prefix.len()] {
        fmt(&mut s, x);
    }
    let _ = writeln!(s, "      -- repeat forever from here --");
    for x in &trace[l.prefix.len()..] {
        fmt(&mut s, x);
    }
    let looping = names(p, l.looping);
    LivenessViolation {
        description: format!(
            "an interleaving runs forever (progress model {}): {} step forever, fair threads: {}, terminated: {}, never scheduled again: {}\n    interleaving:\n{}",
            spec.text,
            looping,
            names(p, l.fair),
            names(p, l.terminated),
            names(p, !l.looping & !l.terminated),
            s.trim_end()
        ),
        method: "interleaving".into(),
        progress: spec.text.clone(),
        threads,
        trace,
        cycle_start: Some(l.prefix.len()),
    }
}
