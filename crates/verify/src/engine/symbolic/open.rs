//! Open encodings: the executions of a straight-line event structure whose
//! events may be optional and whose tags are literals chosen by the
//! caller, under a `.cat` model, in a formula the caller shares between
//! several structures and adds its own constraints to.
//!
//! The mapping checker (gpumc-mapping) encodes a source program with its
//! memory orders and scopes left open and the program it compiles to (the
//! fences a mapping emits for some orders only are optional events), links
//! the two executions (rf, coherence) and asks for a target-consistent
//! execution whose source counterpart violates an axiom. Everything else
//! is the symbolic engine's: rf, co, the model's units, axioms. `sr` (scope
//! inclusion) and `sync_fence` follow the scope tags' literals; the other
//! static relations come from the events' threads, locations and the
//! program's placement. Values play no part: every read may read every
//! write of its location.

use super::encode::Enc;
use super::rel::{RelAcc, SetAcc, SymRel, SymVal};
use super::sat::{Sat, FALSE, TRUE};
use super::unroll::{SymEvent, ThreadUnroll, Unrolled};
use crate::cat::{BaseKind, Model};
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::exec::{Event, EventKind, Vocabulary, BASE_TAGS};
use crate::ir::{LocId, Program};
use crate::rel::Relation;

pub use super::sat::Lit;
/// The literal that always holds / never holds.
pub const LIT_TRUE: Lit = TRUE;
pub const LIT_FALSE: Lit = FALSE;

/// A propositional formula shared by several encodings.
pub struct Formula {
    /// `None` only while an encoding holds it.
    sat: Option<Sat>,
}

impl Default for Formula {
    fn default() -> Self {
        Self::new()
    }
}

impl Formula {
    pub fn new() -> Formula {
        Formula {
            sat: Some(Sat::new()),
        }
    }

    fn sat(&mut self) -> &mut Sat {
        self.sat
            .as_mut()
            .expect("the formula is back from its encoding")
    }

    /// A fresh variable.
    pub fn var(&mut self) -> Lit {
        self.sat().var()
    }

    pub fn clause(&mut self, lits: &[Lit]) {
        self.sat().clause(lits);
    }

    pub fn exactly_one(&mut self, lits: &[Lit]) {
        self.sat().exactly_one(lits);
    }

    /// A literal equivalent to the conjunction.
    pub fn and(&mut self, lits: &[Lit]) -> Lit {
        self.sat().and(lits)
    }

    /// A literal equivalent to the disjunction.
    pub fn or(&mut self, lits: &[Lit]) -> Lit {
        self.sat().or(lits)
    }

    /// Satisfiable? `Err` when the resource guard stopped the solver.
    pub fn solve(&mut self) -> Result<bool> {
        match self.sat().solve(&[]) {
            Some(b) => Ok(b),
            None => Err(self.sat().gave_up()),
        }
    }

    /// A literal's value in the last model.
    pub fn value(&self, l: Lit) -> bool {
        self.sat.as_ref().expect("formula").value(l)
    }

    pub fn num_vars(&self) -> usize {
        self.sat.as_ref().expect("formula").num_vars()
    }

    pub fn num_clauses(&self) -> usize {
        self.sat.as_ref().expect("formula").num_clauses()
    }
}

/// One event of an open structure.
#[derive(Clone, Debug)]
pub struct OpenEvent {
    /// `None` for an initial write.
    pub thread: Option<usize>,
    /// The program instruction it stands for (for the static relations
    /// that look at instructions; none do today).
    pub instr: Option<usize>,
    pub kind: EventKind,
    /// Physical location of a memory event.
    pub loc: Option<LocId>,
    /// Whether the event takes place.
    pub exec: Lit,
    /// Tag name → whether the event carries it (absent: it does not). The
    /// kind tags (`R`, `W`, `M`, `F`, `IW`, `I`, `RMW`) are the caller's
    /// too.
    pub tags: Vec<(String, Lit)>,
}

/// A straight-line event structure: initial writes (one per physical
/// location of `program`) and the events of each thread in program order.
pub struct OpenStructure<'p> {
    /// Placement, locations and architecture.
    pub program: &'p Program,
    pub events: Vec<OpenEvent>,
    /// RMW pairs (read, write).
    pub rmw: Vec<(usize, usize)>,
    /// Control dependencies (read, later event of its thread, literal):
    /// the pair is in `ctrl` iff the literal holds.
    pub ctrl: Vec<(usize, usize, Lit)>,
    /// Placement left open: `shares[k][t][u]` holds iff threads `t` and
    /// `u` share their scope instance at level `k` (innermost first, as
    /// [`Program::scope_levels`]); `None`: the program's placement.
    pub shares: Option<Vec<Vec<Vec<Lit>>>>,
}

impl OpenStructure<'_> {
    /// Whether threads `t` and `u` share their instance at `level` (as
    /// `Skeleton`'s `same_instance`).
    fn share(&self, level: usize, t: usize, u: usize) -> Lit {
        if t == u {
            return TRUE;
        }
        match &self.shares {
            Some(sh) => sh.get(level).map_or(TRUE, |m| m[t][u]),
            None => {
                let (pa, pb) = (
                    &self.program.threads[t].placement.ids,
                    &self.program.threads[u].placement.ids,
                );
                let l = level.min(pa.len()).min(pb.len());
                if pa[l..] == pb[l..] {
                    TRUE
                } else {
                    FALSE
                }
            }
        }
    }
}

/// What an encoding gives back: the choices of its executions as
/// literals over its events, and a literal per requested axiom test.
pub struct Encoded {
    /// (write, read, literal).
    pub rf: Vec<(usize, usize, Lit)>,
    /// (write, write, literal): coherence between non-initial writes (an
    /// initial write is before every write of its location).
    pub co: Vec<(usize, usize, Lit)>,
    /// (fence, fence, literal).
    pub sync_fence: Vec<(usize, usize, Lit)>,
    /// Per requested test, a literal that implies its outcome.
    pub tests: Vec<Lit>,
}

/// Encodes the executions of `s` under `model` into `f`: every
/// consistency axiom of the model asserted when `consistent`; `tests`:
/// axioms (flags included) whose test must hold (`true`) or fail
/// (`false`), each given back as a literal that implies it (not asserted).
pub fn encode(
    f: &mut Formula,
    s: &OpenStructure<'_>,
    model: &Model,
    consistent: bool,
    tests: &[(usize, bool)],
) -> Result<Encoded> {
    let n = s.events.len();
    let p = s.program;
    // Vocabulary: the base tags and every tag the caller names.
    let mut vocab = Vocabulary::default();
    for t in BASE_TAGS {
        vocab.intern(t);
    }
    for e in &s.events {
        for (t, _) in &e.tags {
            vocab.intern(t);
        }
    }
    let mut init_of = vec![None; p.locations.len()];
    let mut events = Vec::with_capacity(n);
    let mut thread_events: Vec<Vec<usize>> = vec![Vec::new(); p.threads.len()];
    for (i, e) in s.events.iter().enumerate() {
        if e.kind == EventKind::Init {
            let l = e
                .loc
                .ok_or_else(|| bad("an initial write without a location"))?;
            init_of[l] = Some(i);
        }
        if let Some(t) = e.thread {
            thread_events
                .get_mut(t)
                .ok_or_else(|| bad("an event of no thread of the program"))?
                .push(i);
        }
        // Tags that hold for sure are static (the pseudo skeleton's).
        let mut tags: Vec<usize> = e
            .tags
            .iter()
            .filter(|(_, l)| *l == TRUE)
            .map(|(t, _)| vocab.index(t).expect("interned"))
            .collect();
        tags.sort_unstable();
        events.push(SymEvent {
            ev: Event {
                thread: e.thread,
                index: i,
                instr: e.instr,
                kind: e.kind,
                loc: e.loc,
                phys: e.loc,
                value: 0,
                tags,
                barrier: None,
                stuck: false,
            },
            exec: e.exec,
            values: vec![(0, TRUE)],
            bits: Vec::new(),
            barrier_ids: Vec::new(),
            barrier_counts: Vec::new(),
            arrive: false,
            stuck: FALSE,
            failed: None,
        });
    }
    let mut po = Relation::empty(n);
    for ids in &thread_events {
        for (a, &x) in ids.iter().enumerate() {
            for &y in &ids[a + 1..] {
                po.insert(x, y);
            }
        }
    }
    let threads = thread_events
        .iter()
        .map(|ids| ThreadUnroll {
            paths: Vec::new(),
            sel: Vec::new(),
            path_events: Vec::new(),
            events: ids.clone(),
            done: TRUE,
            cut: FALSE,
            spinning: FALSE,
            paused: FALSE,
            ub: FALSE,
            sym: None,
            guarded: None,
        })
        .collect();
    let mut sat = f.sat.take().expect("the formula is not lent twice");
    let mut ctrl = RelAcc::new(n);
    for &(a, b, l) in &s.ctrl {
        ctrl.add(a, b, l);
    }
    let rels = [
        SymRel::sure(po),
        SymRel::empty(n),
        SymRel::empty(n),
        ctrl.finish(&mut sat),
        SymRel::sure(Relation::from_pairs(n, s.rmw.iter().copied())),
    ];
    let u = Unrolled::assemble(p, 1, vocab, events, threads, init_of, rels);
    let mut enc = Enc::new(sat, u, model.partial_co(p.arch));
    let result = (|| {
        enc.sat.check()?;
        // Tag sets.
        for (name, kind) in model.inputs() {
            if *kind != BaseKind::Set {
                continue;
            }
            let mut acc = SetAcc::new(n);
            for (i, e) in s.events.iter().enumerate() {
                for (t, l) in &e.tags {
                    if t == name {
                        acc.add(i, *l);
                    }
                }
            }
            let set = acc.finish(&mut enc.sat);
            enc.overrides.insert(name.clone(), SymVal::Set(set));
        }
        let sr = scope_inclusion(&mut enc, s)?;
        if model.inputs().iter().any(|(n, _)| n == "sync_fence") {
            let sf = sync_fence(&mut enc, s, &sr);
            enc.overrides.insert("sync_fence".into(), SymVal::Rel(sf));
        }
        enc.overrides.insert("sr".into(), SymVal::Rel(sr));
        if s.shares.is_some() {
            // The same-instance relations (as `Skeleton::static_relation`).
            for (name, level) in [("scta", 0), ("ssg", 0), ("swg", 1), ("sqf", 2)] {
                let mut acc = RelAcc::new(n);
                for (a, ea) in s.events.iter().enumerate() {
                    for (b, eb) in s.events.iter().enumerate() {
                        if let (Some(x), Some(y)) = (ea.thread, eb.thread) {
                            acc.add(a, b, s.share(level, x, y));
                        }
                    }
                }
                let r = acc.finish(&mut enc.sat);
                enc.overrides.insert(name.into(), SymVal::Rel(r));
            }
        }
        let mut needed: Vec<usize> = tests.iter().map(|&(a, _)| a).collect();
        let mut wants: Vec<bool> = tests.iter().map(|&(_, w)| w).collect();
        if consistent {
            for (i, ax) in model.axioms().iter().enumerate() {
                if !ax.flag && !needed.contains(&i) {
                    needed.push(i);
                    wants.push(true);
                }
            }
        }
        enc.encode_model_wants(model, &needed, Some(&wants))?;
        if consistent {
            for (i, ax) in model.axioms().iter().enumerate() {
                if !ax.flag {
                    enc.assert_axiom(model, i)?;
                }
            }
        }
        let mut lits = Vec::with_capacity(tests.len());
        for &(a, holds) in tests {
            lits.push(enc.test_lit(model, a, holds)?);
        }
        let sync_fence = match enc.overrides.get("sync_fence") {
            Some(SymVal::Rel(r)) => r.entries(),
            _ => Vec::new(),
        };
        enc.sat.check()?;
        Ok(Encoded {
            rf: enc.rf.clone(),
            co: enc.co_pairs.clone(),
            sync_fence,
            tests: lits,
        })
    })();
    f.sat = Some(enc.into_sat());
    result
}

fn bad(msg: &str) -> Error {
    Error::new(
        ErrorKind::Semantic,
        format!("internal: open structure: {msg}"),
    )
}

/// The events' scope tags (the architecture's scope names) with their
/// literals and levels.
fn scope_tags(enc: &Enc<'_>, s: &OpenStructure<'_>) -> Vec<Vec<(usize, Lit)>> {
    let sk = enc.u.pseudo_skeleton();
    let vocab = &enc.u.vocab;
    s.events
        .iter()
        .map(|e| {
            e.tags
                .iter()
                .filter_map(|(t, l)| {
                    let idx = vocab.index(t)?;
                    let probe = Event {
                        tags: vec![idx],
                        ..sk.events[0].clone()
                    };
                    sk.scope_level(&probe, vocab).map(|lv| (lv, *l))
                })
                .collect()
        })
        .collect()
}

/// `sr` over symbolic scope tags: `a` and `b` each carry a scope whose
/// instance around its thread contains the other's thread (as the static
/// relation, `Skeleton::static_relation("sr")`, with one scope tag per
/// event).
fn scope_inclusion(enc: &mut Enc<'_>, s: &OpenStructure<'_>) -> Result<SymRel> {
    let n = s.events.len();
    if n == 0 {
        return Ok(SymRel::empty(n));
    }
    let scopes = scope_tags(enc, s);
    let top = s.program.scope_levels().len();
    // `b`'s thread lies in the instance at `level` around `a`'s.
    let within = |a: usize, b: usize, level: usize| -> Lit {
        if level >= top {
            return TRUE;
        }
        match (s.events[a].thread, s.events[b].thread) {
            (Some(x), Some(y)) => s.share(level, x, y),
            _ => FALSE,
        }
    };
    let mut acc = RelAcc::new(n);
    for a in 0..n {
        for b in 0..n {
            for &(la, xa) in &scopes[a] {
                for &(lb, xb) in &scopes[b] {
                    acc.add_and(a, b, &[xa, xb, within(a, b, la), within(b, a, lb)]);
                }
            }
        }
    }
    Ok(acc.finish(&mut enc.sat))
}

/// `sync_fence`: a total order of the events that may be SC fences,
/// oriented on their `sr` pairs.
fn sync_fence(enc: &mut Enc<'_>, s: &OpenStructure<'_>, sr: &SymRel) -> SymRel {
    let n = s.events.len();
    let fences: Vec<(usize, Lit)> = s
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == EventKind::Fence)
        .filter_map(|(i, e)| {
            e.tags
                .iter()
                .find(|(t, l)| t == "SC" && *l != FALSE)
                .map(|(_, l)| (i, *l))
        })
        .collect();
    let m = fences.len();
    let mut acc = RelAcc::new(n);
    if m >= 2 {
        let mut ord = vec![FALSE; m * m];
        for a in 0..m {
            for b in a + 1..m {
                let x = enc.sat.var();
                ord[a * m + b] = x;
                ord[b * m + a] = -x;
            }
        }
        for a in 0..m {
            for b in 0..m {
                for c in 0..m {
                    if a != b && b != c && a != c {
                        enc.sat
                            .clause(&[-ord[a * m + b], -ord[b * m + c], ord[a * m + c]]);
                    }
                }
            }
        }
        for a in 0..m {
            for b in 0..m {
                if a == b {
                    continue;
                }
                let (fa, la) = fences[a];
                let (fb, lb) = fences[b];
                let r = sr.get(fa, fb);
                acc.add_and(fa, fb, &[ord[a * m + b], la, lb, r]);
            }
        }
    }
    acc.finish(&mut enc.sat)
}
