//! The explicit search for one source program: every execution of the
//! source that is race-free and violates the chosen axiom, then every
//! execution of the compiled program that lifts to one of them and that
//! the target model accepts.
//!
//! The lifting follows Lustig et al., ASPLOS'19, sec. 5.2: each source
//! access compiles to exactly one target access (`origin`), so a target
//! execution's rf is the source's rf (values identical), and its coherence
//! order lies inside the source's modification order (`co ⊆ map⁻¹; mo; map`;
//! a partial PTX `co` lifts to every total `mo` that contains it). We go
//! from the source side: the source executions are few and most are not
//! violations; the target is only compiled and enumerated for a program
//! with a race-free violating execution, and then only for the rf of such
//! an execution and the coherence orders inside one of its `mo`.

use crate::engine::exec::{EventKind, Skeleton};
use crate::engine::explicit::Prepared;
use crate::engine::orders::Order;
use crate::enumerate::{Branch, Source};
use crate::ir::{Arch, Program};
use crate::rel::Relation;
use crate::source;
use crate::{Compiled, Result};
use gpumc_core::diag::{Error, ErrorKind};
use gpumc_verify::engine::paths::ThreadPath;

/// What counts as a counterexample.
pub struct Setup<'m> {
    pub source: Prepared<'m>,
    pub target: Prepared<'m>,
    pub source_arch: Arch,
    /// The source axiom the lifted execution must violate.
    pub axiom: usize,
    /// Source flags (data races) none of which may fire.
    pub races: Vec<usize>,
}

/// Effort counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// Source programs checked.
    pub programs: u64,
    /// Source candidate executions evaluated.
    pub source_executions: u64,
    /// Source programs with a race-free violating execution (compiled).
    pub compiled: u64,
    /// Target candidate executions evaluated by the target model.
    pub target_executions: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.programs += o.programs;
        self.source_executions += o.source_executions;
        self.compiled += o.compiled;
        self.target_executions += o.target_executions;
    }
}

/// A counterexample: the source program, its compilation, and a target
/// execution the target model accepts whose lift violates the axiom.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub source: Source,
    pub source_program: Program,
    pub target: Compiled,
    /// Source execution: rf and mo as pairs of source events (indices into
    /// the source skeleton: initial writes first, then thread by thread).
    pub source_rf: Vec<(usize, usize)>,
    pub source_mo: Vec<(usize, usize)>,
    /// Target execution: rf, co and the `sync_fence` order as pairs of
    /// target events.
    pub target_rf: Vec<(usize, usize)>,
    pub target_co: Vec<(usize, usize)>,
    pub target_sync_fence: Vec<(usize, usize)>,
    /// For each target event, the source event it lifts to (fences and
    /// events of no source event: `None`).
    pub lift: Vec<Option<usize>>,
    /// The events of both executions, by id.
    pub source_events: Vec<EventInfo>,
    pub target_events: Vec<EventInfo>,
}

/// One event of a counterexample execution, for reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EventInfo {
    pub id: usize,
    /// `P0`, ..., or `init`.
    pub thread: String,
    /// `R`, `W`, `F` or `IW`.
    pub kind: String,
    pub location: Option<String>,
    /// The value read (that of the write it reads from) or written.
    pub value: Option<i64>,
    /// The instruction's text (empty for an initial write).
    pub instr: String,
    /// Its tags (docs/EVENTS.md), sorted.
    pub tags: Vec<String>,
    /// Thread and instruction indices (not reported).
    #[serde(skip)]
    pub at: Option<(usize, usize)>,
}

/// The events of `sk` with `rf`'s values.
fn event_infos(sk: &Skeleton<'_>, prep: &Prepared<'_>, rf: &Relation) -> Vec<EventInfo> {
    let p = sk.program;
    sk.events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let (kind, value) = match e.kind {
                EventKind::Init => ("IW", Some(e.value)),
                EventKind::Write => ("W", Some(e.value)),
                EventKind::Read => {
                    let w = (0..sk.n()).find(|&w| rf.contains(w, i));
                    ("R", w.map(|w| sk.events[w].value))
                }
                EventKind::Fence => ("F", None),
                EventKind::Barrier => ("B", None),
            };
            let mut tags: Vec<String> = e
                .tags
                .iter()
                .map(|&t| prep.vocab().tags[t].clone())
                .collect();
            tags.sort();
            EventInfo {
                id: i,
                thread: e
                    .thread
                    .map_or("init".into(), |t| p.threads[t].name.clone()),
                kind: kind.into(),
                location: e.loc.map(|l| p.locations[l].name.clone()),
                value,
                instr: match (e.thread, e.instr) {
                    (Some(t), Some(k)) => p.threads[t].instrs[k].text.clone(),
                    _ => String::new(),
                },
                tags,
                at: e.thread.zip(e.instr),
            }
        })
        .collect()
}

/// The order choices of one skeleton: per location with writes, its
/// writes and the orders to try.
struct CoChoices {
    locs: Vec<(usize, Vec<Order>)>,
}

impl CoChoices {
    fn new(sk: &Skeleton<'_>, partial: bool) -> CoChoices {
        CoChoices {
            locs: gpumc_verify::engine::explicit::co_options(sk, partial),
        }
    }

    fn sizes(&self) -> Vec<usize> {
        self.locs.iter().map(|(_, o)| o.len()).collect()
    }

    /// The relation for one choice: each initial write before the writes of
    /// its location, then the chosen orders.
    fn relation(&self, sk: &Skeleton<'_>, choice: &[usize]) -> Relation {
        let mut co = Relation::empty(sk.n());
        for (k, (l, orders)) in self.locs.iter().enumerate() {
            let ws = &sk.writes[*l];
            if let Some(i) = sk.init_of[*l] {
                for &w in ws {
                    co.insert(i, w);
                }
            }
            for (a, &row) in orders[choice[k]].iter().enumerate() {
                for (b, &wb) in ws.iter().enumerate() {
                    if row >> b & 1 == 1 {
                        co.insert(ws[a], wb);
                    }
                }
            }
        }
        co
    }
}

/// Odometer increment; false when it wrapped around.
fn advance(c: &mut [usize], sizes: &[usize]) -> bool {
    for i in (0..c.len()).rev() {
        c[i] += 1;
        if c[i] < sizes[i] {
            return true;
        }
        c[i] = 0;
    }
    false
}

/// A skeleton whose reads may read any write of their location (values
/// are not chosen: each write writes its own value, so rf decides them).
fn skeleton<'p>(p: &'p Program, prep: &Prepared<'_>, paths: &[ThreadPath]) -> Skeleton<'p> {
    let refs: Vec<&ThreadPath> = paths.iter().collect();
    let mut sk = Skeleton::new(p, prep.vocab(), &refs);
    let reads: Vec<(usize, Vec<usize>)> = sk
        .reads
        .iter()
        .map(|(r, _)| {
            let ph = sk.events[*r].phys.expect("a read has a location");
            let c = sk.init_of[ph]
                .iter()
                .chain(&sk.writes[ph])
                .copied()
                .collect();
            (*r, c)
        })
        .collect();
    sk.reads = reads;
    sk
}

/// Whether every tag of `p` is in the preparation's vocabulary (a
/// skeleton needs it).
pub fn covers(prep: &Prepared<'_>, p: &Program) -> bool {
    p.threads
        .iter()
        .flat_map(|t| &t.instrs)
        .flat_map(|i| i.all_tags())
        .all(|t| prep.vocab().index(t).is_some())
}

/// The mo of a source execution that is race-free and violates the axiom
/// (for the rf being tried).
struct Bad {
    mo: Relation,
}

/// Checks one source program; `compile` lowers it to the target.
pub fn check_program(
    setup: &Setup<'_>,
    compile: &crate::CompileFn<'_>,
    src: &Source,
    stats: &mut Stats,
) -> Result<Option<Counterexample>> {
    stats.programs += 1;
    let sp = source::to_program(src, setup.source_arch, "source");
    if !covers(&setup.source, &sp) {
        return Err(Error::new(
            ErrorKind::Semantic,
            "internal: a source tag is missing from the model's vocabulary",
        ));
    }
    let spaths = source::paths(&sp);
    let mut sk = skeleton(&sp, &setup.source, &spaths);
    // A branch that names a value lets its read read only writes of it.
    for (t, k, v) in source::pinned_reads(src) {
        let events = &sk.events;
        for (r, cands) in sk.reads.iter_mut() {
            if events[*r].thread == Some(t) && events[*r].instr == Some(k) {
                cands.retain(|&w| events[w].value == v);
                if cands.is_empty() {
                    return Ok(None);
                }
            }
        }
    }
    let n = sk.n();
    let mut ev = setup.source.evaluator(&sk);
    let mo_choices = CoChoices::new(&sk, setup.source.partial_co());
    let mo_sizes = mo_choices.sizes();
    let sf_orders = if setup.source.uses("sync_fence") {
        setup.source.sync_fence_orders(&sk)?
    } else {
        vec![Relation::empty(n)]
    };
    let empty = Relation::empty(n);
    let rf_sizes: Vec<usize> = sk.reads.iter().map(|(_, c)| c.len()).collect();
    let mut rf_choice = vec![0usize; rf_sizes.len()];
    let mut target: Option<TargetSide<'_>> = None;
    loop {
        let mut rf = Relation::empty(n);
        for (k, (r, c)) in sk.reads.iter().enumerate() {
            rf.insert(c[rf_choice[k]], *r);
        }
        let mut bad: Vec<Bad> = Vec::new();
        let mut mo_choice = vec![0usize; mo_sizes.len()];
        loop {
            let mo = mo_choices.relation(&sk, &mo_choice);
            for sf in &sf_orders {
                stats.source_executions += 1;
                setup.source.set_execution(&mut ev, &rf, &mo, sf, &empty);
                if ev.test(setup.axiom) {
                    continue;
                }
                if setup.races.iter().any(|&k| ev.flag(k).is_some()) {
                    continue;
                }
                bad.push(Bad { mo: mo.clone() });
                break;
            }
            if !advance(&mut mo_choice, &mo_sizes) {
                break;
            }
        }
        if !bad.is_empty() {
            if target.is_none() {
                stats.compiled += 1;
                target = Some(TargetSide::new(setup, compile, &sp, &sk)?);
            }
            let t = target.as_mut().expect("built above");
            if let Some(cx) = t.search(setup, &sk, &rf, &bad, stats)? {
                let srf = Relation::from_pairs(n, cx.source_rf.iter().copied());
                let source_events = event_infos(&sk, &setup.source, &srf);
                if let Some(pinned) = pin_branches(src, &source_events)? {
                    // The member of the family that this execution runs:
                    // re-checked, so the counterexample names its values.
                    return match check_program(setup, compile, &pinned, stats)? {
                        Some(cx) => Ok(Some(cx)),
                        None => Err(internal(
                            "a program with its branches pinned to the values read has no counterexample",
                        )),
                    };
                }
                return Ok(Some(Counterexample {
                    source: src.clone(),
                    source_program: sp.clone(),
                    source_events,
                    ..cx
                }));
            }
        }
        if !advance(&mut rf_choice, &rf_sizes) {
            break;
        }
    }
    Ok(None)
}

/// `src` with each [`Branch::AnyValue`] replaced by the value its read
/// reads in `events` (the source execution); `None` if it has none.
fn pin_branches(src: &Source, events: &[EventInfo]) -> Result<Option<Source>> {
    let mut out = src.clone();
    let mut any = false;
    for (t, th) in out.threads.iter_mut().enumerate() {
        let positions: Vec<usize> = (0..th.instrs.len())
            .map(|k| source::ir_index(th, k))
            .collect();
        for (k, i) in th.instrs.iter_mut().enumerate() {
            if i.branch == Some(Branch::AnyValue) {
                let value = events
                    .iter()
                    .find(|e| e.kind == "R" && e.at == Some((t, positions[k])))
                    .and_then(|e| e.value)
                    .ok_or_else(|| internal("a branch's read is not in the execution"))?;
                i.branch = Some(Branch::Value(value));
                any = true;
            }
        }
    }
    Ok(any.then_some(out))
}

/// The compiled program and the correspondence of its events.
struct TargetSide<'s> {
    lowered: Compiled,
    paths: Vec<ThreadPath>,
    /// Per source event, its target event (memory events only).
    down: Vec<Option<usize>>,
    /// Per target event, its source event.
    up: Vec<Option<usize>>,
    _p: std::marker::PhantomData<&'s ()>,
}

impl<'s> TargetSide<'s> {
    fn new(
        setup: &Setup<'_>,
        compile: &crate::CompileFn<'_>,
        sp: &Program,
        sk: &Skeleton<'_>,
    ) -> Result<TargetSide<'s>> {
        let lowered = compile(sp)?;
        let tp = &lowered.program;
        if !covers(&setup.target, tp) {
            return Err(Error::new(
                ErrorKind::Semantic,
                "internal: a target tag is missing from the model's vocabulary",
            ));
        }
        let paths = source::paths(tp);
        let refs: Vec<&ThreadPath> = paths.iter().collect();
        let tsk = Skeleton::new(tp, setup.target.vocab(), &refs);
        let (down, up) = correspondence(sp, sk, &lowered, &tsk)?;
        Ok(TargetSide {
            lowered,
            paths,
            down,
            up,
            _p: std::marker::PhantomData,
        })
    }

    fn search(
        &mut self,
        setup: &Setup<'_>,
        ssk: &Skeleton<'_>,
        rf: &Relation,
        bad: &[Bad],
        stats: &mut Stats,
    ) -> Result<Option<Counterexample>> {
        let tp = &self.lowered.program;
        let tsk = skeleton(tp, &setup.target, &self.paths);
        let n = tsk.n();
        let mut trf = Relation::empty(n);
        for (w, r) in rf.pairs() {
            let (Some(tw), Some(tr)) = (self.down[w], self.down[r]) else {
                return Err(internal("an rf edge has no target image"));
            };
            trf.insert(tw, tr);
        }
        let co = CoChoices::new(&tsk, setup.target.partial_co());
        let sizes = co.sizes();
        let sfs = setup.target.sync_fence_orders(&tsk)?;
        let empty = Relation::empty(n);
        let mut ev = setup.target.evaluator(&tsk);
        let mut choice = vec![0usize; sizes.len()];
        loop {
            let tco = co.relation(&tsk, &choice);
            // The lift of co must lie inside a violating mo.
            let fits = bad.iter().position(|b| {
                tco.pairs().all(|(a, c)| match (self.up[a], self.up[c]) {
                    (Some(sa), Some(sc)) => b.mo.contains(sa, sc),
                    _ => false,
                })
            });
            if let Some(k) = fits {
                for sf in &sfs {
                    stats.target_executions += 1;
                    setup.target.set_execution(&mut ev, &trf, &tco, sf, &empty);
                    if ev.first_violation().is_none() {
                        let pairs = |r: &Relation| r.pairs().collect::<Vec<_>>();
                        let _ = ssk;
                        return Ok(Some(Counterexample {
                            source: Source {
                                threads: Vec::new(),
                            },
                            source_program: tp.clone(),
                            target: self.lowered.clone(),
                            source_rf: pairs(rf),
                            source_mo: pairs(&bad[k].mo),
                            target_rf: pairs(&trf),
                            target_co: pairs(&tco),
                            target_sync_fence: pairs(sf),
                            lift: self.up.clone(),
                            source_events: Vec::new(),
                            target_events: event_infos(&tsk, &setup.target, &trf),
                        }));
                    }
                }
            }
            if !advance(&mut choice, &sizes) {
                break;
            }
        }
        Ok(None)
    }
}

/// Per event of one skeleton, the corresponding event of the other.
type EventMap = Vec<Option<usize>>;

fn internal(msg: &str) -> Error {
    Error::new(ErrorKind::Semantic, format!("internal: {msg}"))
}

/// The event correspondence of a source skeleton and its compilation:
/// initial writes by location name; a source read or write and the target
/// event of the same kind produced by an instruction whose `origin` is the
/// source instruction. Every source access must have exactly one image
/// (Lustig et al., ASPLOS'19, sec. 5.2), else the mapping cannot be
/// checked by lifting and this is an error.
fn correspondence(
    sp: &Program,
    ssk: &Skeleton<'_>,
    lowered: &Compiled,
    tsk: &Skeleton<'_>,
) -> Result<(EventMap, EventMap)> {
    let tp = &lowered.program;
    let mut down = vec![None; ssk.n()];
    let mut up = vec![None; tsk.n()];
    for (i, e) in tsk.events.iter().enumerate() {
        match e.kind {
            EventKind::Init => {
                let name = &tp.locations[e.phys.expect("init location")].name;
                let Some(sl) = sp.location_id(name) else {
                    return Err(mapping_error(format!(
                        "the compiled program has a location `{name}` the source lacks"
                    )));
                };
                up[i] = ssk.init_of[sp.locations[sl].phys];
            }
            EventKind::Read | EventKind::Write => {
                let t = e.thread.expect("thread event");
                let k = e.instr.expect("instruction");
                let Some(Some(si)) = lowered.origin.get(t).and_then(|o| o.get(k)) else {
                    return Err(mapping_error(format!(
                        "target instruction `{}` of thread {} comes from no source instruction",
                        tp.threads[t].instrs[k].text, tp.threads[t].name
                    )));
                };
                let found = ssk.thread_events.get(t).and_then(|ids| {
                    ids.iter()
                        .copied()
                        .find(|&s| ssk.events[s].instr == Some(*si) && ssk.events[s].kind == e.kind)
                });
                let Some(s) = found else {
                    return Err(mapping_error(format!(
                        "target access `{}` of thread {} comes from a source instruction without such an access",
                        tp.threads[t].instrs[k].text, tp.threads[t].name
                    )));
                };
                if down[s].is_some() {
                    return Err(mapping_error(format!(
                        "source instruction `{}` of thread {} compiles to more than one access",
                        sp.threads[t].instrs[*si].text, sp.threads[t].name
                    )));
                }
                down[s] = Some(i);
                up[i] = Some(s);
            }
            _ => {}
        }
    }
    // Initial writes downwards.
    for (i, u) in up.iter().enumerate() {
        if tsk.events[i].kind == EventKind::Init {
            if let Some(s) = u {
                down[*s] = Some(i);
            }
        }
    }
    for (s, e) in ssk.events.iter().enumerate() {
        if matches!(e.kind, EventKind::Read | EventKind::Write) && down[s].is_none() {
            let t = e.thread.expect("thread event");
            return Err(mapping_error(format!(
                "source instruction `{}` of thread {} compiles to no access of its kind",
                sp.threads[t].instrs[e.instr.expect("instr")].text,
                sp.threads[t].name
            )));
        }
        if e.kind == EventKind::Init && down[s].is_none() {
            // A location the target does not declare: fine only if unused.
            let used = ssk.writes[e.phys.expect("loc")].len()
                + ssk
                    .reads
                    .iter()
                    .filter(|(r, _)| ssk.events[*r].phys == e.phys)
                    .count();
            if used > 0 {
                return Err(mapping_error(
                    "the compiled program lacks a location of the source".to_string(),
                ));
            }
        }
    }
    Ok((down, up))
}

fn mapping_error(msg: String) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported mapping: {msg} (the checker lifts each target access to exactly one source access)"),
    )
}
