//! The explicit engine: enumerate every candidate execution and evaluate
//! the model on each.
//!
//! Order of enumeration, outermost first: one path per thread (cartesian
//! product), barrier matching, the `sync_fence` order, rf (per read, a
//! write of the same location and value), co (per location). The `.cat`
//! evaluator caches every binding that does not depend on what changed, so
//! the inner loops only recompute the dynamic part of the model.

use super::exec::{base_kind, EventKind, Skeleton, Vocabulary};
use super::orders::{partial_orders, total_orders, Order};
use super::paths::{thread_paths, value_domains, PathEnd, ThreadPath};
use super::{Candidate, Observer, Options};
use crate::cat::{BaseKind, Model, Value};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Program;
use crate::rel::{EventSet, Relation};
use std::collections::HashSet;

/// How a model input is computed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    Static,
    Rf,
    Co,
    Fr,
    SyncFence,
    SyncBarrier,
}

/// A model checked against the engine's vocabulary for one program, ready
/// to evaluate combinations of thread paths ([`run_combination`]).
pub struct Prepared<'m> {
    model: &'m Model,
    vocab: Vocabulary,
    sources: Vec<Source>,
    partial: bool,
}

/// Checks that the engine provides every input of `model` for `p`.
pub fn prepare<'m>(p: &Program, model: &'m Model) -> Result<Prepared<'m>> {
    let vocab = Vocabulary::for_program(p);
    for (name, kind) in model.inputs() {
        if base_kind(name, Some(&vocab)) != Some(*kind) {
            return Err(Error::new(
                ErrorKind::Semantic,
                format!("model input `{name}` is not provided by the engine"),
            ));
        }
    }
    let sources: Vec<Source> = model
        .inputs()
        .iter()
        .map(|(n, _)| match n.as_str() {
            "rf" => Source::Rf,
            "co" => Source::Co,
            "fr" => Source::Fr,
            "sync_fence" => Source::SyncFence,
            "sync_barrier" | "syncbar" => Source::SyncBarrier,
            _ => Source::Static,
        })
        .collect();
    Ok(Prepared {
        model,
        vocab,
        sources,
        partial: model.partial_co(p.arch),
    })
}

impl<'m> Prepared<'m> {
    /// The model.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The tag vocabulary skeletons for this preparation must use.
    pub fn vocab(&self) -> &Vocabulary {
        &self.vocab
    }

    /// Whether `co` is a partial order (else total) for the program.
    pub fn partial_co(&self) -> bool {
        self.partial
    }

    /// Whether the model reads base input `name` (`rf`, `sync_fence`, ...).
    pub fn uses(&self, name: &str) -> bool {
        self.model.inputs().iter().any(|(n, _)| n == name)
    }

    /// An evaluator over the events of `sk` with every static input set,
    /// for callers that choose the execution themselves
    /// ([`Prepared::set_execution`]; the mapping checker).
    pub fn evaluator(&self, sk: &Skeleton<'_>) -> crate::cat::Evaluator<'m> {
        let mut ev = self.model.evaluator(sk.n());
        set_static_inputs(&mut ev, sk, self.model, &self.vocab, &self.sources);
        ev
    }

    /// Sets the choices of one candidate: `rf`, `co` (and `fr` = rf⁻¹;co),
    /// `sync_fence` and the barrier relation.
    pub fn set_execution(
        &self,
        ev: &mut crate::cat::Evaluator<'_>,
        rf: &Relation,
        co: &Relation,
        sync_fence: &Relation,
        sync_barrier: &Relation,
    ) {
        let fr = self
            .sources
            .contains(&Source::Fr)
            .then(|| rf.inverse().compose(co));
        for (i, s) in self.sources.iter().enumerate() {
            let v = match s {
                Source::Static => continue,
                Source::Rf => rf,
                Source::Co => co,
                Source::Fr => fr.as_ref().expect("fr computed"),
                Source::SyncFence => sync_fence,
                Source::SyncBarrier => sync_barrier,
            };
            ev.set_input_ref(i, &Value::Rel(v.clone()));
        }
    }

    /// Every `sync_fence` candidate of `sk` (as the engine enumerates them).
    pub fn sync_fence_orders(&self, sk: &Skeleton<'_>) -> Result<Vec<Relation>> {
        sync_fence_orders(sk, &self.vocab)
    }
}

/// Enumerates the candidates of one combination of thread paths (one path
/// per thread), reporting the consistent ones to `obs`.
pub fn run_combination(
    p: &Program,
    prep: &Prepared<'_>,
    paths: &[&ThreadPath],
    obs: &mut dyn Observer,
) -> Result<()> {
    combination(
        p,
        prep.model,
        &prep.vocab,
        &prep.sources,
        prep.partial,
        paths,
        obs,
    )
}

/// Runs the explicit enumeration, reporting each candidate that satisfies
/// the model's consistency axioms to `obs`. A program with free inputs is
/// enumerated once per valuation of them (`engine::inputs`: finite sets
/// of representatives, or `unsupported`).
pub fn enumerate(p: &Program, model: &Model, opts: &Options, obs: &mut dyn Observer) -> Result<()> {
    let Some(valuations) = super::inputs::valuations(p, super::inputs::Use::Explicit)? else {
        return enumerate_fixed(p, model, opts, obs);
    };
    for q in &valuations {
        enumerate_fixed(q, model, opts, obs)?;
        if !obs.wants_more() {
            break;
        }
    }
    Ok(())
}

/// [`enumerate`] for a program whose inputs are all fixed.
///
/// Final-state questions (safety, races) go in two phases. First the
/// combinations without a spinning path ([`PathEnd::Spinning`]): the
/// complete executions and those cut by the bound or stopped at a barrier.
/// Then the prefixes in which some thread is still spinning, which have no
/// final state but matter where another thread is cut by the bound (the
/// spinning thread may be waiting for what the cut thread would do after
/// the bound: without them such a cut is never seen and the verdict is
/// wrongly definite) or reaches undefined behaviour; they are enumerated
/// only where they can tell the observer something new ([`informative`]).
fn enumerate_fixed(
    p: &Program,
    model: &Model,
    opts: &Options,
    obs: &mut dyn Observer,
) -> Result<()> {
    let prep = prepare(p, model)?;
    let dom = value_domains(p, opts.bound)?;
    let mut per_thread: Vec<Vec<ThreadPath>> = Vec::new();
    for th in 0..p.threads.len() {
        per_thread.push(thread_paths(p, th, opts.bound, &dom)?);
    }
    let all: Vec<Vec<&ThreadPath>> = per_thread.iter().map(|v| v.iter().collect()).collect();
    if opts.liveness {
        check_combinations(combinations(&all), opts)?;
        return product(p, &prep, &all, &|_, _| true, obs);
    }
    let settled: Vec<Vec<&ThreadPath>> = all
        .iter()
        .map(|v| {
            v.iter()
                .copied()
                .filter(|x| x.end != PathEnd::Spinning)
                .collect()
        })
        .collect();
    let first = combinations(&settled);
    check_combinations(first, opts)?;
    product(p, &prep, &settled, &informative, obs)?;
    if !obs.wants_more() {
        return Ok(());
    }
    // The prefixes with a spinning thread that can be informative now:
    // per thread, its paths split into spinning ones, the partners they
    // need (cut, if the observer still wants a cut, or undefined
    // behaviour) and the rest; every pattern of these classes with at
    // least one spinning path and one partner.
    let wants_cut = obs.wants_cut();
    // (A race checker wants every prefix with a spinning thread: any
    // other path is a partner, and none is needed.)
    let wants_spinning = obs.wants_spinning();
    let partner =
        |x: &ThreadPath| wants_spinning || x.ub.is_some() || (wants_cut && x.end == PathEnd::Cut);
    let classes: Vec<[Vec<&ThreadPath>; 3]> = all
        .iter()
        .map(|v| {
            let mut c: [Vec<&ThreadPath>; 3] = Default::default();
            for &x in v {
                let k = if x.end == PathEnd::Spinning {
                    0
                } else if partner(x) {
                    1
                } else {
                    2
                };
                c[k].push(x);
            }
            c
        })
        .collect();
    let mut patterns = Vec::new();
    spinning_patterns(
        &classes,
        &mut Vec::new(),
        [false, wants_spinning],
        &mut patterns,
    );
    let second: f64 = patterns.iter().map(|l| combinations(l)).sum();
    check_combinations(first + second, opts)?;
    for lists in &patterns {
        product(p, &prep, lists, &informative, obs)?;
        if !obs.wants_more() {
            break;
        }
    }
    Ok(())
}

/// Whether a combination of paths can tell a final-state observer
/// anything: a complete execution (or one stopped at a barrier), a cut by
/// the bound while the observer still wants one, undefined behaviour, or
/// a prefix with a spinning thread for an observer that wants those.
/// A combination with a spinning path and nothing else to show has no
/// final state and no cut.
fn informative(paths: &[&ThreadPath], obs: &dyn Observer) -> bool {
    let cut = paths.iter().any(|x| x.end == PathEnd::Cut);
    let spinning = paths.iter().any(|x| x.end == PathEnd::Spinning);
    paths.iter().any(|x| x.ub.is_some())
        || (cut && obs.wants_cut())
        || !(cut || spinning)
        || (!cut && obs.wants_spinning())
}

/// Every choice, per thread, of one class of its paths (`classes`: the
/// spinning paths, their partners, the rest; empty classes skipped) with
/// at least one spinning path and one partner, as the lists of paths to
/// combine. `has`: a spinning path, a partner chosen so far.
fn spinning_patterns<'a>(
    classes: &[[Vec<&'a ThreadPath>; 3]],
    chosen: &mut Vec<Vec<&'a ThreadPath>>,
    has: [bool; 2],
    out: &mut Vec<Vec<Vec<&'a ThreadPath>>>,
) {
    let Some((first, rest)) = classes.split_first() else {
        if has == [true, true] {
            out.push(chosen.clone());
        }
        return;
    };
    for (k, list) in first.iter().enumerate() {
        if list.is_empty() {
            continue;
        }
        let mut h = has;
        if k < 2 {
            h[k] = true;
        }
        chosen.push(list.clone());
        spinning_patterns(rest, chosen, h, out);
        chosen.pop();
    }
}

/// The number of combinations of one path per thread from `lists`.
fn combinations(lists: &[Vec<&ThreadPath>]) -> f64 {
    lists.iter().fold(1f64, |acc, v| acc * v.len() as f64)
}

/// Refuses `combos` combinations of thread paths over the limit.
fn check_combinations(combos: f64, opts: &Options) -> Result<()> {
    if combos > opts.max_combinations as f64 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "unsupported: too large for the explicit engine ({combos:.2e} combinations of thread paths, limit {:.0e}); use the symbolic engine",
                opts.max_combinations as f64
            ),
        ));
    }
    Ok(())
}

/// Runs every combination of one path per thread from `lists` that
/// `keep` accepts (asked just before it runs).
fn product(
    p: &Program,
    prep: &Prepared<'_>,
    lists: &[Vec<&ThreadPath>],
    keep: &dyn Fn(&[&ThreadPath], &dyn Observer) -> bool,
    obs: &mut dyn Observer,
) -> Result<()> {
    if lists.iter().any(|v| v.is_empty()) {
        return Ok(());
    }
    let sizes: Vec<usize> = lists.iter().map(Vec::len).collect();
    let mut choice = vec![0usize; lists.len()];
    loop {
        let paths: Vec<&ThreadPath> = choice.iter().zip(lists).map(|(&c, v)| v[c]).collect();
        if !obs.wants_more() {
            return Ok(());
        }
        crate::guard::check()?;
        if keep(&paths, &*obs) {
            run_combination(p, prep, &paths, obs)?;
        }
        if !advance(&mut choice, &sizes) {
            return Ok(());
        }
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

fn combination(
    p: &Program,
    model: &Model,
    vocab: &Vocabulary,
    sources: &[Source],
    partial: bool,
    paths: &[&ThreadPath],
    obs: &mut dyn Observer,
) -> Result<()> {
    let sk = Skeleton::new(p, vocab, paths);
    // Every read needs a write of its value.
    if sk.reads.iter().any(|(_, c)| c.is_empty()) {
        return Ok(());
    }
    orders_within_limits(&sk, vocab, Some(partial))?;
    let barrier_options = barrier_matchings(&sk);
    if barrier_options.is_empty() {
        return Ok(());
    }
    // An order of SC fences no axiom reads would only repeat every
    // execution (herd7, whose models define their own, counts each once).
    let fence_options = if model.axioms_read("sync_fence") {
        sync_fence_orders(&sk, vocab)?
    } else {
        vec![Relation::empty(sk.n())]
    };
    let n = sk.n();
    let mut ev = model.evaluator(n);
    set_static_inputs(&mut ev, &sk, model, vocab, sources);
    let co_options = co_options(&sk, partial);
    let set_dyn = |ev: &mut crate::cat::Evaluator<'_>, src: Source, v: &Relation| {
        if sources.contains(&src) {
            let v = Value::Rel(v.clone());
            for (i, s) in sources.iter().enumerate() {
                if *s == src {
                    ev.set_input_ref(i, &v);
                }
            }
        }
    };
    for bar in &barrier_options {
        set_dyn(&mut ev, Source::SyncBarrier, &bar.relation);
        for sf in &fence_options {
            set_dyn(&mut ev, Source::SyncFence, sf);
            let rf_sizes: Vec<usize> = sk.reads.iter().map(|(_, c)| c.len()).collect();
            let mut rf_choice = vec![0usize; rf_sizes.len()];
            loop {
                let mut rf = Relation::empty(n);
                for (k, (r, c)) in sk.reads.iter().enumerate() {
                    rf.insert(c[rf_choice[k]], *r);
                }
                set_dyn(&mut ev, Source::Rf, &rf);
                let co_sizes: Vec<usize> = co_options.iter().map(|(_, o)| o.len()).collect();
                let mut co_choice = vec![0usize; co_sizes.len()];
                loop {
                    let co = build_co(&sk, &co_options, &co_choice);
                    set_dyn(&mut ev, Source::Co, &co);
                    if sources.contains(&Source::Fr) {
                        let fr = rf.inverse().compose(&co);
                        set_dyn(&mut ev, Source::Fr, &fr);
                    }
                    crate::guard::check()?;
                    let cand = Candidate {
                        skeleton: &sk,
                        paths,
                        rf: &rf,
                        co: &co,
                        barrier_stuck: bar.stuck,
                    };
                    match ev.first_violation() {
                        None => {
                            obs.consistent(&cand, &mut ev);
                            if !obs.wants_more() {
                                return Ok(());
                            }
                        }
                        Some(k) if obs.wants_inconsistent() => obs.inconsistent(&cand, &mut ev, k),
                        Some(_) => {}
                    }
                    if !advance(&mut co_choice, &co_sizes) {
                        break;
                    }
                }
                if !advance(&mut rf_choice, &rf_sizes) {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The coherence choices of a skeleton: for each physical location with
/// writes, every order of its writes (partial orders where the
/// architecture's coherence is partial).
pub fn co_options(sk: &Skeleton<'_>, partial: bool) -> Vec<(usize, Vec<Order>)> {
    sk.writes
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.is_empty())
        .map(|(l, w)| {
            let orders = if partial {
                partial_orders(w.len())
            } else {
                total_orders(w.len())
            };
            (l, orders)
        })
        .collect()
}

fn set_static_inputs(
    ev: &mut crate::cat::Evaluator<'_>,
    sk: &Skeleton<'_>,
    model: &Model,
    vocab: &Vocabulary,
    sources: &[Source],
) {
    for (i, (name, kind)) in model.inputs().iter().enumerate() {
        if sources[i] != Source::Static {
            continue;
        }
        let v = match kind {
            BaseKind::Set => Value::Set(static_set(sk, vocab, name)),
            BaseKind::Relation => Value::Rel(
                sk.static_relation(name, vocab)
                    .expect("static relation names are checked by base_kind"),
            ),
        };
        ev.set_input(i, v);
    }
}

/// Is one fully specified candidate consistent? `choose` gives its `rf`
/// and `co` over the events of the skeleton built from `paths`; barrier
/// matchings and `sync_fence` orders are enumerated (true if some choice
/// of them makes the candidate consistent).
pub fn consistent_with(
    p: &Program,
    prep: &Prepared<'_>,
    paths: &[&ThreadPath],
    choose: &dyn Fn(&Skeleton<'_>) -> (Relation, Relation),
) -> Result<bool> {
    let sk = Skeleton::new(p, &prep.vocab, paths);
    orders_within_limits(&sk, &prep.vocab, None)?;
    let (rf, co) = choose(&sk);
    let sources = &prep.sources;
    let mut ev = prep.model.evaluator(sk.n());
    set_static_inputs(&mut ev, &sk, prep.model, &prep.vocab, sources);
    let set_dyn = |ev: &mut crate::cat::Evaluator<'_>, src: Source, v: &Relation| {
        for (i, s) in sources.iter().enumerate() {
            if *s == src {
                ev.set_input(i, Value::Rel(v.clone()));
            }
        }
    };
    set_dyn(&mut ev, Source::Rf, &rf);
    set_dyn(&mut ev, Source::Co, &co);
    set_dyn(&mut ev, Source::Fr, &rf.inverse().compose(&co));
    for bar in &barrier_matchings(&sk) {
        set_dyn(&mut ev, Source::SyncBarrier, &bar.relation);
        for sf in &sync_fence_orders(&sk, &prep.vocab)? {
            set_dyn(&mut ev, Source::SyncFence, sf);
            if ev.first_violation().is_none() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn static_set(sk: &Skeleton<'_>, vocab: &Vocabulary, name: &str) -> EventSet {
    match vocab.index(name) {
        Some(t) => sk.tagged(t),
        None => EventSet::empty(sk.n()),
    }
}

/// The co relation for one choice: init first, then the chosen order.
fn build_co(sk: &Skeleton<'_>, options: &[(usize, Vec<Order>)], choice: &[usize]) -> Relation {
    let mut co = Relation::empty(sk.n());
    for (k, (l, orders)) in options.iter().enumerate() {
        let ws = &sk.writes[*l];
        if let Some(i) = sk.init_of[*l] {
            for &w in ws {
                co.insert(i, w);
            }
        }
        let order = &orders[choice[k]];
        for (a, &row) in order.iter().enumerate() {
            for (b, &wb) in ws.iter().enumerate() {
                if row >> b & 1 == 1 {
                    co.insert(ws[a], wb);
                }
            }
        }
    }
    co
}

/// One way the barriers of an execution synchronise.
pub struct BarrierMatching {
    /// `sync_barrier` / `syncbar`.
    pub relation: Relation,
    /// Some thread waits forever at a barrier.
    pub stuck: bool,
}

/// Barrier semantics (docs/SEMANTICS.md): barrier events of one scope
/// instance (PTX: CTA; Vulkan: workgroup) with the same runtime id form a
/// group. Without a quorum, every arrival is released together. With a
/// quorum `c`, fewer than `c` arrivals wait forever (every one of them must
/// end its path there), and otherwise some `c` arrivals release the
/// barrier and every other arrival passes after them; no one waits.
/// The relation links each releasing arrival to each event that passed.
fn barrier_matchings(sk: &Skeleton<'_>) -> Vec<BarrierMatching> {
    let n = sk.n();
    let mut groups: Vec<(Vec<i64>, i64, Vec<usize>)> = Vec::new();
    for (i, e) in sk.events.iter().enumerate() {
        if e.kind != EventKind::Barrier {
            continue;
        }
        let (id, _, _) = e.barrier.unwrap();
        let key = super::exec::barrier_instance(sk.program, e.thread.unwrap());
        match groups
            .iter_mut()
            .find(|(k, gid, _)| *k == key && *gid == id)
        {
            Some(g) => g.2.push(i),
            None => groups.push((key, id, vec![i])),
        }
    }
    // Per group: the list of (releasing set, stuck?) options.
    let mut per_group: Vec<Vec<(Vec<usize>, bool)>> = Vec::new();
    for (key, id, members) in &groups {
        let quorum = members
            .iter()
            .find_map(|&m| sk.events[m].barrier.unwrap().1);
        let any_stuck = members.iter().any(|&m| sk.events[m].stuck);
        let waiting: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&m| !sk.events[m].barrier.unwrap().2)
            .collect();
        // A kernel's barrier without a count waits for the threads of its
        // block (or warp) that have not exited: while one of them has not
        // arrived, every arrival waits (here: for ever).
        let blocked = quorum.is_none()
            && super::exec::waits_for_block(sk.program)
            && sk.ends.iter().any(|&e| e != PathEnd::Done)
            && super::exec::barrier_threads(sk.program, key, *id)
                .into_iter()
                .any(|v| {
                    sk.ends[v] != PathEnd::Done
                        && !members.iter().any(|&m| sk.events[m].thread == Some(v))
                });
        let options = match quorum {
            None if blocked => {
                if waiting.iter().all(|&m| sk.events[m].stuck) {
                    vec![(vec![], true)]
                } else {
                    vec![]
                }
            }
            None => {
                if any_stuck {
                    vec![]
                } else {
                    vec![(members.clone(), false)]
                }
            }
            Some(c) if (members.len() as i64) < c => {
                if waiting.iter().all(|&m| sk.events[m].stuck) {
                    vec![(vec![], true)]
                } else {
                    vec![]
                }
            }
            Some(c) => {
                if any_stuck {
                    vec![]
                } else {
                    subsets(members, c.max(0) as usize)
                        .into_iter()
                        .map(|s| (s, false))
                        .collect()
                }
            }
        };
        if options.is_empty() {
            return vec![];
        }
        per_group.push(options);
    }
    let sizes: Vec<usize> = per_group.iter().map(Vec::len).collect();
    let mut choice = vec![0; sizes.len()];
    let mut out = Vec::new();
    loop {
        let mut relation = Relation::empty(n);
        let mut stuck = false;
        for (g, opts) in per_group.iter().enumerate() {
            let (release, st) = &opts[choice[g]];
            stuck |= *st;
            for &a in release {
                for &b in &groups[g].2 {
                    let arrive_only = sk.events[b].barrier.unwrap().2;
                    if a != b && !arrive_only {
                        relation.insert(a, b);
                    }
                }
            }
        }
        out.push(BarrierMatching { relation, stuck });
        if !advance(&mut choice, &sizes) {
            break;
        }
    }
    out
}

fn subsets(items: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn go(
        items: &[usize],
        k: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            cur.push(items[i]);
            go(items, k, i + 1, cur, out);
            cur.pop();
        }
    }
    go(items, k, 0, &mut cur, &mut out);
    out
}

/// The most orders (coherence of one location, or `sync_fence`) the
/// explicit engine materialises: beyond, it refuses the test, which the
/// symbolic engine encodes with a quadratic number of variables instead.
const MAX_ORDERS: f64 = 2e7;

/// Labelled posets on k elements (OEIS A001035), k = 0..=10.
const POSETS: [f64; 11] = [
    1.0,
    1.0,
    3.0,
    19.0,
    219.0,
    4231.0,
    130023.0,
    6129859.0,
    431723379.0,
    44511042511.0,
    6611065248783.0,
];

/// Refuses (`unsupported`) a combination whose coherence orders (when
/// enumerated: `co` says whether partial) or `sync_fence` orders are too
/// many to enumerate, and checks their memory against the resource guard.
fn orders_within_limits(sk: &Skeleton<'_>, vocab: &Vocabulary, co: Option<bool>) -> Result<()> {
    let factorial = |k: usize| (1..=k).fold(1f64, |a, i| a * i as f64);
    let posets = |k: usize| POSETS.get(k).copied().unwrap_or(f64::INFINITY);
    let fences = vocab.index("SC").map_or(0, |sc| {
        (0..sk.n())
            .filter(|&i| sk.events[i].kind == EventKind::Fence && sk.events[i].tags.contains(&sc))
            .count()
    });
    let co = co
        .into_iter()
        .flat_map(|partial| sk.writes.iter().map(move |w| (w.len(), partial)));
    for (k, partial) in co.chain([(fences, false)]) {
        let count = if partial { posets(k) } else { factorial(k) };
        if count > MAX_ORDERS {
            // Beyond the table (or f64), the count is at least 1e13.
            let shown = match count.is_finite() {
                true => format!("{count:.2e}"),
                false => "over 1e13".into(),
            };
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: too large for the explicit engine ({shown} {} orders of {k} events, limit {MAX_ORDERS:.0e}); use the symbolic engine",
                    if partial { "partial" } else { "total" }
                ),
            ));
        }
        crate::guard::check_estimate(count as u64 * (4 * k as u64 + 48), "the orders")?;
    }
    // Each distinct `sync_fence` candidate is kept as a relation over every
    // event, and there are as many as orders when all the fences are
    // `sr`-related.
    let n = sk.n() as u64;
    let relation = n * (12 + 8 * n.div_ceil(64)) + 96;
    crate::guard::check_estimate(
        factorial(fences) as u64 * relation,
        "the sync_fence candidates",
    )?;
    Ok(())
}

/// Every `sync_fence` candidate: orientations of the `sr`-related pairs of
/// SC fences induced by some total order of them (so acyclic), deduplicated,
/// in the order of their first total order.
fn sync_fence_orders(sk: &Skeleton<'_>, vocab: &Vocabulary) -> Result<Vec<Relation>> {
    let n = sk.n();
    let Some(sc) = vocab.index("SC") else {
        return Ok(vec![Relation::empty(n)]);
    };
    let fences: Vec<usize> = (0..n)
        .filter(|&i| sk.events[i].kind == EventKind::Fence && sk.events[i].tags.contains(&sc))
        .collect();
    if fences.len() < 2 {
        return Ok(vec![Relation::empty(n)]);
    }
    let sr = sk.static_relation("sr", vocab).expect("sr");
    // Per fence, the fences it is `sr`-related to, as a bit row like an
    // order's (orders_within_limits keeps them to at most 10).
    let related: Vec<u32> = fences
        .iter()
        .map(|&fa| {
            (fences.iter().enumerate())
                .filter(|&(_, &fb)| sr.contains(fa, fb))
                .fold(0, |m, (b, _)| m | 1 << b)
        })
        .collect();
    // Many orders orient the related pairs alike: the orientations seen
    // are hashed, since comparing each order's relation with every one
    // kept before took seconds from 8 fences on (40,320 orders).
    let mut seen: HashSet<Order> = HashSet::new();
    let mut out: Vec<Relation> = Vec::new();
    for (k, order) in total_orders(fences.len()).into_iter().enumerate() {
        if k % 1024 == 0 {
            crate::guard::check()?;
        }
        let oriented: Order = order.iter().zip(&related).map(|(row, m)| row & m).collect();
        if !seen.insert(oriented.clone()) {
            continue;
        }
        let mut r = Relation::empty(n);
        for (a, &row) in oriented.iter().enumerate() {
            for (b, &fb) in fences.iter().enumerate() {
                if row >> b & 1 == 1 {
                    r.insert(fences[a], fb);
                }
            }
        }
        out.push(r);
    }
    Ok(out)
}
