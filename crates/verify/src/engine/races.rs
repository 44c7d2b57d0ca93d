//! Data races (`--property races`): a test FAILs when some consistent
//! execution that passes the filter makes one of the model's
//! `flag ~empty` relations non-empty (Tong et al., ASPLOS'24 §4.2: Vulkan's `dr`).

use super::paths::PathEnd;
use super::safety::{final_memories, final_value, Verdict};
use super::witness::Witness;
use super::{explicit, Candidate, Observer, Options};
use crate::cat::{AxiomKind, Evaluator, Model, Value};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Program, Term};
use serde::Serialize;

/// One flagged pair of events.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct RacePair {
    /// Name of the flag (`as name`, or the axiom's position).
    pub flag: String,
    /// Event ids in the witness execution.
    pub events: (usize, usize),
    pub threads: (String, String),
    pub lines: (u32, u32),
    pub instrs: (String, String),
    pub location: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaceResult {
    pub verdict: Verdict,
    /// Consistent complete executions examined (after the filter).
    pub executions: u64,
    /// The racing pairs of the first racy execution.
    pub races: Vec<RacePair>,
    pub witness: Option<Witness>,
    pub bound_hit: bool,
    /// Why the verdict is what it is, when no race is the reason
    /// (undefined behaviour).
    pub note: Option<String>,
}

struct RaceObserver<'p> {
    program: &'p Program,
    model: &'p Model,
    ignore_filter: bool,
    flags: Vec<usize>,
    executions: u64,
    races: Vec<RacePair>,
    witness: Option<Witness>,
    bound_hit: bool,
    ub: Option<(String, Witness)>,
    graph: Option<&'p super::witness::GraphRequest>,
}

impl Observer for RaceObserver<'_> {
    /// Undefined behaviour decides the verdict: no need to go on.
    fn wants_more(&self) -> bool {
        self.ub.is_none()
    }

    /// One cut execution decides that the bound was hit.
    fn wants_cut(&self) -> bool {
        !self.bound_hit
    }

    fn consistent(&mut self, c: &Candidate<'_, '_>, ev: &mut Evaluator<'_>) {
        super::safety::note_ub(self.program, c, ev, self.graph, &mut self.ub);
        if c.paths.iter().any(|p| p.end == PathEnd::Cut) {
            self.bound_hit = true;
            return;
        }
        if c.barrier_stuck || c.paths.iter().any(|p| p.end != PathEnd::Done) {
            return;
        }
        let p = self.program;
        if !self.ignore_filter {
            if let Some(f) = &p.filter {
                let passes = final_memories(p, c)
                    .iter()
                    .any(|mem| f.eval(&|t: &Term| final_value(p, c, mem, t)));
                if !passes {
                    return;
                }
            }
        }
        self.executions += 1;
        if !self.races.is_empty() {
            return;
        }
        // Flags are cached by the evaluator: asking twice costs nothing,
        // and the witness is only built for a racy execution.
        if self.flags.iter().any(|&i| ev.flag(i).is_some()) {
            let w = Witness::for_graph(c, vec![], &[], ev, self.graph);
            self.races = racing_pairs(ev, self.model, &self.flags, &w);
            self.witness = Some(w);
        }
    }
}

/// The model's `flag` axioms (indices into `Model::axioms`); an error if
/// it has none, since then it has no notion of data race.
pub fn flag_axioms(model: &Model) -> Result<Vec<usize>> {
    let flags: Vec<usize> = model
        .axioms()
        .iter()
        .enumerate()
        .filter(|(_, a)| a.flag && matches!(a.kind, AxiomKind::NotEmpty | AxiomKind::Empty))
        .map(|(i, _)| i)
        .collect();
    if flags.is_empty() {
        return Err(Error::new(
            ErrorKind::Usage,
            format!(
                "model `{}` defines no `flag` axiom, so it has no notion of data race",
                model.name()
            ),
        ));
    }
    Ok(flags)
}

/// The pairs the fired flags relate in the execution `ev` holds, described
/// with the events of its witness `w` (a symmetric pair is listed once).
pub fn racing_pairs(
    ev: &mut Evaluator<'_>,
    model: &Model,
    flags: &[usize],
    w: &Witness,
) -> Vec<RacePair> {
    let mut out = Vec::new();
    for &i in flags {
        let Some(v) = ev.flag(i) else { continue };
        let ax = &model.axioms()[i];
        let name = if ax.name.is_empty() {
            format!("flag at {}", ax.pos)
        } else {
            ax.name.clone()
        };
        let pairs: Vec<(usize, usize)> = match v {
            Value::Rel(r) => r
                .pairs()
                .filter(|(a, b)| a <= b || !r.contains(*b, *a))
                .collect(),
            Value::Set(s) => s.iter().map(|e| (e, e)).collect(),
        };
        for (a, b) in pairs {
            let (ea, eb) = (&w.events[a], &w.events[b]);
            out.push(RacePair {
                flag: name.clone(),
                events: (a, b),
                threads: (ea.thread.clone(), eb.thread.clone()),
                lines: (ea.line, eb.line),
                instrs: (ea.instr.clone(), eb.instr.clone()),
                location: ea.location.clone().or_else(|| eb.location.clone()),
            });
        }
    }
    out
}

/// Checks the model's `flag` axioms over every execution.
pub fn check(p: &Program, model: &Model, opts: &Options) -> Result<RaceResult> {
    let flags = flag_axioms(model)?;
    let mut obs = RaceObserver {
        program: p,
        model,
        ignore_filter: opts.ignore_filter,
        flags,
        executions: 0,
        races: vec![],
        witness: None,
        bound_hit: false,
        ub: None,
        graph: opts.graph.as_ref(),
    };
    explicit::enumerate(p, model, opts, &mut obs)?;
    if let Some((note, w)) = obs.ub {
        return Ok(RaceResult {
            verdict: Verdict::Fail,
            executions: obs.executions,
            races: vec![],
            witness: Some(w),
            bound_hit: obs.bound_hit,
            note: Some(note),
        });
    }
    let verdict = if !obs.races.is_empty() {
        Verdict::Fail
    } else if obs.bound_hit {
        Verdict::Unknown
    } else {
        Verdict::Pass
    };
    Ok(RaceResult {
        verdict,
        executions: obs.executions,
        races: obs.races,
        witness: obs.witness,
        bound_hit: obs.bound_hit,
        note: None,
    })
}
