//! Data races (`--property races`): a test FAILs when some consistent
//! execution that passes the filter makes one of the model's
//! `flag ~empty` relations non-empty (Tong et al., ASPLOS'24 §4.2: Vulkan's `dr`).
//!
//! A race is reported once per unordered pair of *static* instructions,
//! identified by their source positions: the threads of a kernel run the
//! same instruction, and a programmer fixes instructions, not events. Each
//! pair is described by one execution in which it races (the first the
//! engine found), with the kind of conflict in that execution.

use super::exec::EventKind;
use super::paths::PathEnd;
use super::safety::{final_memories, final_value, Verdict, UB_STOPS};
use super::witness::Witness;
use super::{explicit, Candidate, Observer, Options};
use crate::cat::{AxiomKind, Evaluator, Model, Value};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{Pos, Program, Term};
use serde::Serialize;
use std::collections::HashSet;

/// The default of [`Options::max_races`] (`--max-races`).
pub const DEFAULT_MAX_RACES: usize = 64;

/// One racing pair of static instructions, described by one execution in
/// which it races.
#[derive(Clone, Debug, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct RacePair {
    /// Name of the flag (`as name`, or the axiom's position).
    pub flag: String,
    /// Event ids in the execution in which the pair was found racing: the
    /// witness's when `in_witness`.
    pub events: (usize, usize),
    pub threads: (String, String),
    pub lines: (u32, u32),
    pub instrs: (String, String),
    pub location: Option<String>,
    /// `WAW` (two writes), `RAW` (the read reads from the write in that
    /// execution), `WAR` (the read saw another, older value), `RAR` (two
    /// reads, for a model that flags them) or `-` (a fence or barrier).
    /// The pair is ordered accordingly: for `RAW` the write first, for
    /// `WAR` the read first, otherwise the lower event id first. The
    /// parametric engine, which orders no events, says `RW` for a read and
    /// a write.
    #[serde(default)]
    pub kind: String,
    /// The racing location's state space (`ir::Location::space`).
    #[serde(default)]
    pub space: Option<String>,
    /// Where each instruction came from in the compiled source
    /// (`file:line:col`, `Program::source_of`); `None` for litmus tests.
    #[serde(default)]
    pub source: (Option<String>, Option<String>),
    /// Each instruction's `line:col` in the program file (`init` for an
    /// initial write): with `flag`, what identifies the pair.
    #[serde(default)]
    pub positions: (String, String),
    /// Whether `events` number the events of the report's witness (the
    /// first racy execution); otherwise those of another execution.
    #[serde(default)]
    pub in_witness: bool,
    /// The free values that let the pair race when no witness execution
    /// carries them (the parametric engine: the launch's free arguments
    /// and the input cells the two threads read, `param_0[17]=3`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaceResult {
    pub verdict: Verdict,
    /// Consistent complete executions examined (after the filter).
    pub executions: u64,
    /// One entry per racing pair of static instructions (at most
    /// [`Options::max_races`]), those of the witness first.
    pub races: Vec<RacePair>,
    /// Whether `races` lists every racing instruction pair of the
    /// executions within the loop bound (complete, or with threads
    /// spinning).
    pub races_complete: bool,
    /// Why `races` may be incomplete.
    pub races_note: Option<String>,
    pub witness: Option<Witness>,
    pub bound_hit: bool,
    /// Why the verdict is what it is, when no race is the reason
    /// (undefined behaviour).
    pub note: Option<String>,
}

/// What identifies a racing pair of static instructions: the flag (index
/// into `Model::axioms`) and the two instructions' positions (`None`: an
/// initial write), the smaller first.
pub(crate) type PairKey = (usize, Option<(u32, u32)>, Option<(u32, u32)>);

/// The key of a pair flagged by `flag` between instructions at `a` and `b`.
pub(crate) fn pair_key(flag: usize, a: Option<Pos>, b: Option<Pos>) -> PairKey {
    let (a, b) = (a.map(|p| (p.line, p.col)), b.map(|p| (p.line, p.col)));
    if a <= b {
        (flag, a, b)
    } else {
        (flag, b, a)
    }
}

/// The position of instruction `instr` of thread `thread` (`None` for an
/// initial write, which has neither).
pub(crate) fn instr_pos(p: &Program, thread: Option<usize>, instr: Option<usize>) -> Option<Pos> {
    Some(p.threads.get(thread?)?.instrs.get(instr?)?.pos)
}

/// Why the list of races stopped at the cap.
pub fn cap_note(cap: usize) -> String {
    format!("the search stopped at --max-races {cap}")
}

/// A flagged pair of events of one execution: its key, the flag and the
/// two event ids (as the flag's relation holds them).
pub(crate) type Flagged = (PairKey, usize, usize, usize);

/// The racing instruction pairs found so far (at most `cap`), shared by
/// both engines: each consumes racy executions until no new pair races or
/// the cap is reached.
pub(crate) struct Collected {
    pub cap: usize,
    pub found: HashSet<PairKey>,
    pub races: Vec<RacePair>,
    /// Some racing pair was left out because of the cap.
    pub capped: bool,
}

impl Collected {
    pub fn new(cap: usize) -> Collected {
        Collected {
            cap,
            found: HashSet::new(),
            races: Vec::new(),
            capped: false,
        }
    }

    /// The flagged pairs of the execution `c` (which `ev` holds) whose
    /// instruction pair is not listed yet, one per instruction pair: where
    /// an instruction pair races through several pairs of events (an RMW's
    /// two halves, loop iterations, several threads), the most telling
    /// kind (`WAW`, then `RAW`, then `WAR`), then the first in event order.
    pub fn fresh(
        &self,
        c: &Candidate<'_, '_>,
        ev: &mut Evaluator<'_>,
        flags: &[usize],
    ) -> Vec<Flagged> {
        let sk = c.skeleton;
        let pos = |e: usize| instr_pos(sk.program, sk.events[e].thread, sk.events[e].instr);
        // Key → index in `out` and the rank of the kind kept there.
        let mut seen: std::collections::HashMap<PairKey, (usize, usize)> = Default::default();
        let mut out: Vec<Flagged> = Vec::new();
        for &i in flags {
            let Some(v) = ev.flag(i) else { continue };
            let pairs: Vec<(usize, usize)> = match v {
                Value::Rel(r) => r.pairs().collect(),
                Value::Set(s) => s.iter().map(|e| (e, e)).collect(),
            };
            for (a, b) in pairs {
                let key = pair_key(i, pos(a), pos(b));
                if self.found.contains(&key) {
                    continue;
                }
                let (kind, x, y) = kind_of(c, a, b);
                let rank = KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len());
                match seen.get(&key) {
                    Some(&(_, r)) if r <= rank => {}
                    Some(&(at, _)) => {
                        out[at] = (key, i, x, y);
                        seen.insert(key, (at, rank));
                    }
                    None => {
                        seen.insert(key, (out.len(), rank));
                        out.push((key, i, x, y));
                    }
                }
            }
        }
        out
    }

    /// Lists `fresh` pairs of the execution `c` while the cap allows
    /// (`in_witness`: `c` is the report's witness).
    pub fn add(
        &mut self,
        c: &Candidate<'_, '_>,
        model: &Model,
        fresh: Vec<Flagged>,
        in_witness: bool,
    ) {
        for (key, i, a, b) in fresh {
            if !self.found.insert(key) {
                continue;
            }
            if self.races.len() >= self.cap {
                self.capped = true;
                return;
            }
            self.races.push(describe(c, model, i, a, b, in_witness));
        }
    }
}

/// The flag's name as reports print it.
fn flag_name(model: &Model, i: usize) -> String {
    let ax = &model.axioms()[i];
    if ax.name.is_empty() {
        format!("flag at {}", ax.pos)
    } else {
        ax.name.clone()
    }
}

/// The kinds of race, most telling first: where one instruction pair
/// races in several ways in one execution, the first of these is listed.
const KINDS: [&str; 5] = ["WAW", "RAW", "WAR", "RAR", "-"];

/// The kind of the race of events `a` and `b` of execution `c` (`RAW`
/// only if the read reads from that very write in `c`), and the two events
/// in the kind's order: for `RAW` the write first, for `WAR` the read
/// first, otherwise the lower id first.
fn kind_of(c: &Candidate<'_, '_>, a: usize, b: usize) -> (&'static str, usize, usize) {
    let sk = c.skeleton;
    let write = |e: usize| matches!(sk.events[e].kind, EventKind::Write | EventKind::Init);
    let read = |e: usize| sk.events[e].kind == EventKind::Read;
    let (lo, hi) = (a.min(b), a.max(b));
    match (write(a), write(b)) {
        (true, true) => ("WAW", lo, hi),
        (true, false) | (false, true) if read(a) || read(b) => {
            let (w, r) = if write(a) { (a, b) } else { (b, a) };
            if c.rf.contains(w, r) {
                ("RAW", w, r)
            } else {
                ("WAR", r, w)
            }
        }
        _ if read(a) && read(b) => ("RAR", lo, hi),
        _ => ("-", lo, hi),
    }
}

/// The race of events `x` and `y` of execution `c` (in the order
/// [`kind_of`] gives), flagged by axiom `i`.
fn describe(
    c: &Candidate<'_, '_>,
    model: &Model,
    i: usize,
    x: usize,
    y: usize,
    in_witness: bool,
) -> RacePair {
    let sk = c.skeleton;
    let p = sk.program;
    let (kind, _, _) = kind_of(c, x, y);
    let side = |e: usize| {
        let ev = &sk.events[e];
        match (ev.thread, ev.instr) {
            (Some(t), Some(k)) => {
                let ins = &p.threads[t].instrs[k];
                (
                    p.threads[t].name.clone(),
                    ins.pos.line,
                    ins.text.clone(),
                    ins.pos.to_string(),
                    p.source_of(ins).map(|s| s.to_string()),
                )
            }
            _ => ("init".into(), 0, String::new(), "init".into(), None),
        }
    };
    let (s, t) = (side(x), side(y));
    let loc = sk.events[x].loc.or(sk.events[y].loc);
    RacePair {
        flag: flag_name(model, i),
        events: (x, y),
        threads: (s.0, t.0),
        lines: (s.1, t.1),
        instrs: (s.2, t.2),
        location: loc.map(|l| p.locations[l].name.clone()),
        kind: kind.to_string(),
        space: loc.and_then(|l| p.locations[l].space.clone()),
        positions: (s.3, t.3),
        source: (s.4, t.4),
        in_witness,
        inputs: vec![],
    }
}

struct RaceObserver<'p> {
    program: &'p Program,
    model: &'p Model,
    ignore_filter: bool,
    flags: Vec<usize>,
    executions: u64,
    collected: Collected,
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

    /// A race in a prefix where a thread spins is a race; a filter reads
    /// final states, which such a prefix does not have.
    fn wants_spinning(&self) -> bool {
        self.ignore_filter || self.program.filter.is_none()
    }

    fn consistent(&mut self, c: &Candidate<'_, '_>, ev: &mut Evaluator<'_>) {
        super::safety::note_ub(self.program, c, ev, self.graph, &mut self.ub);
        if c.paths.iter().any(|p| p.end == PathEnd::Cut) {
            self.bound_hit = true;
            return;
        }
        // A race in an execution where a thread spins, or waits at a
        // barrier another thread holds up, is a race of every longer
        // execution (docs/SEMANTICS.md, "Loops"); only a filter, which
        // reads final states, needs every thread done.
        if c.paths
            .iter()
            .any(|p| !matches!(p.end, PathEnd::Done | PathEnd::Spinning | PathEnd::Stuck))
        {
            return;
        }
        let spinning = c.barrier_stuck
            || c.paths
                .iter()
                .any(|p| matches!(p.end, PathEnd::Spinning | PathEnd::Stuck));
        let p = self.program;
        if spinning && !self.ignore_filter && p.filter.is_some() {
            return;
        }
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
        if !spinning {
            self.executions += 1;
        }
        // Past the cap, with a pair already left out, nothing more can
        // be learnt (the executions are still counted).
        if self.collected.capped {
            return;
        }
        // Flags are cached by the evaluator: asking twice costs nothing,
        // and the witness is only built for a racy execution.
        if !self.flags.iter().any(|&i| ev.flag(i).is_some()) {
            return;
        }
        let first = self.witness.is_none();
        if first {
            self.witness = Some(Witness::for_graph(c, vec![], &[], ev, self.graph));
        }
        let fresh = self.collected.fresh(c, ev, &self.flags);
        self.collected.add(c, self.model, fresh, first);
    }
}

/// The model's `flag` axioms (indices into `Model::axioms`; only
/// `opts.only_flag` when set); an error if there is none, since then the
/// model has no notion of data race.
pub fn flag_axioms(model: &Model, opts: &Options) -> Result<Vec<usize>> {
    let flags: Vec<usize> = model
        .axioms()
        .iter()
        .enumerate()
        .filter(|(_, a)| a.flag && matches!(a.kind, AxiomKind::NotEmpty | AxiomKind::Empty))
        .map(|(i, _)| i)
        .filter(|&i| opts.only_flag.is_none_or(|o| o == i))
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

/// Checks the model's `flag` axioms over every execution, listing every
/// racing instruction pair (at most `opts.max_races`).
pub fn check(p: &Program, model: &Model, opts: &Options) -> Result<RaceResult> {
    let flags = flag_axioms(model, opts)?;
    let mut obs = RaceObserver {
        program: p,
        model,
        ignore_filter: opts.ignore_filter,
        flags,
        executions: 0,
        collected: Collected::new(opts.max_races),
        witness: None,
        bound_hit: false,
        ub: None,
        graph: opts.graph.as_ref(),
    };
    // A resource limit ends the enumeration; races (or undefined
    // behaviour) found before it still decide the verdict, with the list
    // marked incomplete.
    let stopped = match explicit::enumerate(p, model, opts, &mut obs) {
        Ok(()) => None,
        Err(e) if e.kind == ErrorKind::Limit && (obs.witness.is_some() || obs.ub.is_some()) => {
            Some(format!(
                "the enumeration was stopped ({}): more racing pairs may exist",
                e.message
            ))
        }
        Err(e) => return Err(e),
    };
    if let Some((note, w)) = obs.ub {
        return Ok(RaceResult {
            verdict: Verdict::Fail,
            executions: obs.executions,
            races: vec![],
            races_complete: false,
            races_note: Some(UB_STOPS.into()),
            witness: Some(w),
            bound_hit: obs.bound_hit,
            note: Some(note),
        });
    }
    // A flag that fires is a race, even one (`flag empty`) with no pair.
    let verdict = if obs.witness.is_some() {
        Verdict::Fail
    } else if obs.bound_hit {
        Verdict::Unknown
    } else {
        Verdict::Pass
    };
    let capped = obs.collected.capped;
    Ok(RaceResult {
        verdict,
        executions: obs.executions,
        races: obs.collected.races,
        races_complete: !capped && stopped.is_none(),
        races_note: stopped.or_else(|| capped.then(|| cap_note(opts.max_races))),
        witness: obs.witness,
        bound_hit: obs.bound_hit,
        note: None,
    })
}
