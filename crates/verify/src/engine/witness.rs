//! Witness executions in a printable, serialisable form.
//!
//! A witness always carries its events, `rf`, `co`, the final state and
//! the free values it chose. When a graph is requested
//! ([`GraphRequest`], `gpumc check --graph`), it also carries what a
//! picture needs: each event's tags, each thread's place in the scope
//! hierarchy, the model's relations the user asked to see (`--show`) and,
//! for a candidate the model rejects, the violated axiom with a cycle
//! ([`Violation`]). Those fields are left out of the JSON when empty, so
//! reports without graphs read as before.

use super::exec::EventKind;
use super::Candidate;
use crate::cat::{AxiomKind, BaseKind, Evaluator, OpCode, Slot, Unit, Value};
use crate::rel::Relation;
use serde::{Deserialize, Serialize};

/// What a graph needs the engines to record (`engine::Options::graph`,
/// `driver::Config::graph`). `None` there: nothing is recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphRequest {
    /// Named relations of the model to record on each drawn execution
    /// (`--show`; checked against the model by the driver).
    pub relations: Vec<String>,
    /// Record every consistent complete execution (`--graph-all`), not
    /// only the witness.
    pub all: bool,
    /// At most this many executions with `all` (`--graph-max`).
    pub max: usize,
    /// Draw a kernel's race witness with every thread, not only the two
    /// racing ones (`--graph-full`). Changes the drawing, not what is
    /// recorded.
    #[serde(default)]
    pub full: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct WitnessEvent {
    pub id: usize,
    /// `init` or the thread name.
    pub thread: String,
    /// Source line of the instruction (0 for initial writes).
    pub line: u32,
    pub instr: String,
    /// `R`, `W`, `F`, `B` or `IW`.
    pub kind: String,
    pub location: Option<String>,
    pub value: Option<i64>,
    /// The instruction's tags on this event (docs/EVENTS.md: memory order,
    /// scope, proxy, …; the kind tags `R`/`W`/`M` left out). Graphs only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// One level of a thread's place in the scope hierarchy.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ScopeId {
    /// `gpu`, `cta` (PTX), `qf`, `wg`, `sg` (Vulkan), or `warp` (the
    /// `GPU_PTX` dialect's warps, which the models do not see).
    pub level: String,
    pub id: i64,
}

/// A thread of the execution and where it runs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct WitnessThread {
    pub name: String,
    /// Outermost level first: PTX `gpu 0 / cta 1`, Vulkan
    /// `qf 0 / wg 1 / sg 0`.
    pub scopes: Vec<ScopeId>,
}

impl WitnessThread {
    /// `gpu 0 / cta 1`.
    pub fn scope_path(&self) -> String {
        self.scopes
            .iter()
            .map(|s| format!("{} {}", s.level, s.id))
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// A relation of the model on the events of one execution.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct NamedRelation {
    pub name: String,
    pub pairs: Vec<(usize, usize)>,
}

/// Why the model rejects a candidate execution: its first violated
/// consistency axiom, in file order, and the part of the axiom's relation
/// that shows it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Violation {
    /// The axiom's `as` name, or its source text.
    pub axiom: String,
    /// `acyclic`, `irreflexive`, `empty` or `~empty`.
    pub kind: String,
    /// The events of the cycle, in order (the last leads back to the
    /// first): for `acyclic`, a shortest cycle of the axiom's relation;
    /// for `irreflexive`, the event related to itself (and the events
    /// its loop passes through, when [`Violation::steps`] explain it);
    /// for `empty`, the events of its pairs; for `~empty`, none.
    pub cycle: Vec<usize>,
    /// The pairs of the axiom's relation to highlight: the cycle's edges,
    /// the loop edge, or (for `empty`) the relation's pairs (at most
    /// [`Violation::MAX_PAIRS`]).
    pub edges: Vec<(usize, usize)>,
    /// The same cycle through the model's named relations and base
    /// relations, where the axiom's expression can be followed (unions,
    /// sequences, closures, `[S]` filters): `e5 -fr-> e2 -cause-> e5`.
    /// Empty when it cannot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
}

/// One edge of an explained cycle.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Step {
    pub from: usize,
    pub to: usize,
    /// The named relation (a `let` of the model, or a base relation)
    /// that holds the pair; the axiom's name where none does.
    pub rel: String,
}

impl Violation {
    /// At most this many pairs of a non-empty `empty` relation are kept.
    pub const MAX_PAIRS: usize = 32;

    /// The violation of axiom `k`, which `ev` (loaded with the candidate)
    /// found violated.
    pub fn of(ev: &mut Evaluator<'_>, k: usize) -> Violation {
        let model = ev.model();
        let ax = &model.axioms()[k];
        let (axiom, kind) = (ax.name.clone(), ax.kind);
        let slot = model.axiom_slot(k);
        let rel = match ev.axiom_value(k) {
            Some(Value::Rel(r)) => r,
            // A set (`empty S`): each member as a loop.
            Some(Value::Set(s)) => Relation::from_pairs(s.universe(), s.iter().map(|i| (i, i))),
            None => Relation::empty(ev.universe()),
        };
        let (mut cycle, edges) = match kind {
            AxiomKind::Acyclic => {
                let c = shortest_cycle(&rel).unwrap_or_default();
                let edges = (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect();
                (c, edges)
            }
            AxiomKind::Irreflexive => match rel.reflexive_witness() {
                Some(e) => (vec![e], vec![(e, e)]),
                None => (vec![], vec![]),
            },
            AxiomKind::Empty => {
                let edges: Vec<(usize, usize)> = rel.pairs().take(Self::MAX_PAIRS).collect();
                let mut evs: Vec<usize> = edges.iter().flat_map(|&(a, b)| [a, b]).collect();
                evs.sort_unstable();
                evs.dedup();
                (evs, edges)
            }
            AxiomKind::NotEmpty => (vec![], vec![]),
        };
        let mut steps = Vec::new();
        if matches!(kind, AxiomKind::Acyclic | AxiomKind::Irreflexive)
            && matches!(model.slot_kinds()[slot as usize], BaseKind::Relation)
        {
            let mut budget = 256;
            for &(a, b) in &edges {
                match explain(ev, slot, a, b, 0, &axiom, &mut budget) {
                    Some(s) => steps.extend(s),
                    None => {
                        steps.clear();
                        break;
                    }
                }
            }
            if !steps.is_empty() && steps.windows(2).all(|w| w[0].to == w[1].from) {
                cycle = steps.iter().map(|s| s.from).collect();
            } else {
                steps.clear();
            }
        }
        Violation {
            axiom,
            kind: match kind {
                AxiomKind::Acyclic => "acyclic",
                AxiomKind::Irreflexive => "irreflexive",
                AxiomKind::Empty => "empty",
                AxiomKind::NotEmpty => "~empty",
            }
            .to_string(),
            cycle,
            edges,
            steps,
        }
    }

    /// `cycle e5 -fr-> e2 -cause-> e5`, `cycle e4 -> e4`, or the pairs of
    /// an `empty` axiom.
    pub fn describe(&self) -> String {
        match self.kind.as_str() {
            _ if !self.steps.is_empty() => {
                let mut s = format!("cycle e{}", self.steps[0].from);
                for st in &self.steps {
                    s.push_str(&format!(" -{}-> e{}", st.rel, st.to));
                }
                s
            }
            "acyclic" | "irreflexive" if !self.cycle.is_empty() => {
                let mut s: Vec<String> = self.cycle.iter().map(|e| format!("e{e}")).collect();
                s.push(format!("e{}", self.cycle[0]));
                format!("cycle {}", s.join(" -> "))
            }
            "empty" => {
                let p: Vec<String> = self
                    .edges
                    .iter()
                    .map(|(a, b)| format!("e{a}->e{b}"))
                    .collect();
                format!("pairs {}", p.join(" "))
            }
            _ => "its relation is empty".to_string(),
        }
    }
}

/// The pair `(a, b)` of slot `slot` as a path of steps through the
/// model's named relations: unions, sequences, `+`/`*`/`?` closures,
/// differences (their first operand) and `[S]` filters are followed; a
/// slot with a name (below the axiom itself) or anything else is one
/// step labelled with its name, or `fallback`. `None` when the budget of
/// steps runs out or the value does not hold the pair.
fn explain(
    ev: &mut Evaluator<'_>,
    slot: Slot,
    a: usize,
    b: usize,
    depth: usize,
    fallback: &str,
    budget: &mut usize,
) -> Option<Vec<Step>> {
    *budget = budget.checked_sub(1)?;
    let model = ev.model();
    let holds = |ev: &mut Evaluator<'_>, s: Slot, x: usize, y: usize| match ev.slot_value(s) {
        Value::Rel(r) => r.contains(x, y),
        Value::Set(_) => false,
    };
    if !holds(ev, slot, a, b) {
        return None;
    }
    let name = model.slot_name(slot);
    let one = |rel: &str| {
        Some(vec![Step {
            from: a,
            to: b,
            rel: rel.to_string(),
        }])
    };
    if let (Some(n), true) = (name, depth > 0) {
        return one(n);
    }
    let label = name.unwrap_or(fallback).to_string();
    let Unit::Op(op) = *model.producer(slot) else {
        return match model.producer(slot) {
            Unit::Input(i) => one(&model.inputs()[*i].0),
            _ => one(&label),
        };
    };
    let next = depth + 1;
    match op.code {
        OpCode::RelUnion => {
            for s in [op.a, op.b] {
                if holds(ev, s, a, b) {
                    return explain(ev, s, a, b, next, &label, budget);
                }
            }
            None
        }
        OpCode::RelDiff => explain(ev, op.a, a, b, next, &label, budget),
        OpCode::IdOn if a == b => Some(vec![]),
        OpCode::Opt | OpCode::Star if a == b => Some(vec![]),
        OpCode::Opt => explain(ev, op.a, a, b, next, &label, budget),
        OpCode::Seq => {
            let (Value::Rel(x), Value::Rel(y)) = (ev.slot_value(op.a), ev.slot_value(op.b)) else {
                return one(&label);
            };
            // The middle event: prefer one that is neither end (a real
            // step on both sides).
            let mids: Vec<usize> = x
                .successors(a)
                .iter()
                .filter(|&z| y.contains(z, b))
                .collect();
            let z = mids
                .iter()
                .copied()
                .find(|&z| z != a && z != b)
                .or(mids.first().copied())?;
            let mut out = explain(ev, op.a, a, z, next, &label, budget)?;
            out.extend(explain(ev, op.b, z, b, next, &label, budget)?);
            Some(out)
        }
        OpCode::Plus | OpCode::Star => {
            let Value::Rel(x) = ev.slot_value(op.a) else {
                return one(&label);
            };
            let path = path_in(&x, a, b)?;
            let mut out = Vec::new();
            for w in path.windows(2) {
                out.extend(explain(ev, op.a, w[0], w[1], next, &label, budget)?);
            }
            Some(out)
        }
        _ => one(&label),
    }
}

/// A shortest path from `a` to `b` (at least one step) in `r`.
fn path_in(r: &Relation, a: usize, b: usize) -> Option<Vec<usize>> {
    let n = r.universe();
    let mut prev = vec![usize::MAX; n];
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::from([a]);
    while let Some(v) = queue.pop_front() {
        for u in r.successors(v).iter() {
            if u == b {
                let mut path = vec![b, v];
                let mut x = v;
                while x != a {
                    x = prev[x];
                    path.push(x);
                }
                path.reverse();
                return Some(path);
            }
            if !seen[u] {
                seen[u] = true;
                prev[u] = v;
                queue.push_back(u);
            }
        }
    }
    None
}

/// A shortest cycle of `r` (events in order, the last leading back to the
/// first), if it has one: a breadth-first search from each event of some
/// cycle, keeping the shortest way back.
fn shortest_cycle(r: &Relation) -> Option<Vec<usize>> {
    let some = r.find_cycle()?;
    let n = r.universe();
    let mut best = some.clone();
    for &start in &some {
        if best.len() == 1 {
            break;
        }
        let mut prev = vec![usize::MAX; n];
        let mut queue = std::collections::VecDeque::from([start]);
        let mut seen = vec![false; n];
        seen[start] = true;
        'bfs: while let Some(v) = queue.pop_front() {
            for u in r.successors(v).iter() {
                if u == start {
                    let mut cyc = vec![v];
                    let mut x = v;
                    while x != start {
                        x = prev[x];
                        cyc.push(x);
                    }
                    cyc.reverse();
                    if cyc.len() < best.len() {
                        best = cyc;
                    }
                    break 'bfs;
                }
                if !seen[u] {
                    seen[u] = true;
                    prev[u] = v;
                    queue.push_back(u);
                }
            }
        }
    }
    Some(best)
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Witness {
    pub events: Vec<WitnessEvent>,
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<(usize, usize)>,
    /// Final values of the observables, as `name = value`.
    pub state: Vec<(String, i64)>,
    /// The values this execution chose for the program's free values
    /// (docs/SEMANTICS.md): its inputs by source name, the arbitrary
    /// initial values it reads by location name, and its undefined values
    /// as `thread:register` (`#k` for the `k`-th of one instruction).
    /// Serialised as a JSON object.
    #[serde(
        default,
        serialize_with = "as_map",
        deserialize_with = "from_map",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub inputs: Vec<(String, i64)>,
    /// The threads, in program order, with their placement. Graphs only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<WitnessThread>,
    /// The model's relations asked for (`--show`), on this execution.
    /// Graphs only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<NamedRelation>,
    /// Set on a candidate execution the model rejects (the forbidden
    /// outcome's picture): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub violation: Option<Violation>,
}

/// What a check recorded for graphs besides its witness
/// (`driver::FileReport::graph`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct GraphData {
    /// Consistent complete executions that pass the filter, in the order
    /// found: all of them with [`GraphRequest::all`] (at most `max`);
    /// otherwise one, kept only when the check has no witness and no
    /// rejected candidate to draw.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executions: Vec<Witness>,
    /// More executions existed than [`GraphRequest::max`].
    #[serde(default)]
    pub capped: bool,
    /// When the condition's state is reachable by no consistent execution
    /// (`exists` fails, `~exists` holds): a candidate execution reaching
    /// it that the model rejects, with its [`Witness::violation`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<Witness>,
}

impl GraphData {
    /// Without `--graph-all`, the example execution is only kept when
    /// there is nothing else to draw (no witness, no rejected candidate).
    pub fn keep_example(&mut self, req: Option<&GraphRequest>, has_witness: bool) {
        if req.is_some_and(|r| !r.all) && (has_witness || self.rejected.is_some()) {
            self.executions.clear();
        }
    }
}

fn as_map<S: serde::Serializer>(v: &[(String, i64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, x) in v {
        m.serialize_entry(k, x)?;
    }
    m.end()
}

/// The inverse of [`as_map`], keeping the object's order.
fn from_map<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<(String, i64)>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<(String, i64)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object of integers")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = m.next_entry::<String, i64>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    d.deserialize_map(V)
}

impl Witness {
    pub fn from_candidate(c: &Candidate<'_, '_>, state: Vec<(String, i64)>) -> Self {
        Self::from_execution(c, state, &[])
    }

    /// [`Witness::from_candidate`], where `input_values` gives the
    /// value of each input of the program that the program does not fix.
    pub fn from_execution(
        c: &Candidate<'_, '_>,
        state: Vec<(String, i64)>,
        input_values: &[i64],
    ) -> Self {
        let sk = c.skeleton;
        let p = sk.program;
        let events = sk
            .events
            .iter()
            .enumerate()
            .map(|(id, e)| {
                let (thread, line, instr) = match (e.thread, e.instr) {
                    (Some(t), Some(i)) => {
                        let ins = &p.threads[t].instrs[i];
                        (p.threads[t].name.clone(), ins.pos.line, ins.text.clone())
                    }
                    _ => ("init".to_string(), 0, String::new()),
                };
                let kind = match e.kind {
                    EventKind::Init => "IW",
                    EventKind::Read => "R",
                    EventKind::Write => "W",
                    EventKind::Fence => "F",
                    EventKind::Barrier => "B",
                };
                WitnessEvent {
                    id,
                    thread,
                    line,
                    instr,
                    kind: kind.to_string(),
                    location: e.loc.map(|l| p.locations[l].name.clone()),
                    value: e.loc.map(|_| e.value),
                    tags: vec![],
                }
            })
            .collect();
        // co: only the covering edges keep the output short.
        let co_all: Vec<(usize, usize)> = c.co.pairs().collect();
        let co = co_all
            .iter()
            .copied()
            .filter(|&(a, b)| {
                !co_all
                    .iter()
                    .any(|&(x, y)| x == a && y != b && c.co.contains(y, b))
            })
            .collect();
        Witness {
            events,
            rf: c.rf.pairs().collect(),
            co,
            state,
            inputs: chosen_values(c, input_values),
            threads: vec![],
            relations: vec![],
            violation: None,
        }
    }

    /// [`Witness::from_execution`] with what a graph needs
    /// ([`Witness::add_graph_info`]) when `graph` asks for it.
    pub fn for_graph(
        c: &Candidate<'_, '_>,
        state: Vec<(String, i64)>,
        input_values: &[i64],
        ev: &mut Evaluator<'_>,
        graph: Option<&GraphRequest>,
    ) -> Self {
        let mut w = Self::from_execution(c, state, input_values);
        if let Some(g) = graph {
            w.add_graph_info(c, Some(ev), &g.relations);
        }
        w
    }

    /// Adds the threads' placement and each event's tags from the program
    /// alone, for witnesses built without a graph request (liveness): an
    /// event's instruction is found by thread, line and text.
    pub fn add_program_info(&mut self, p: &crate::ir::Program) {
        self.threads = threads_of(p);
        for e in &mut self.events {
            let Some(t) = p.threads.iter().find(|t| t.name == e.thread) else {
                continue;
            };
            if let Some(ins) = t
                .instrs
                .iter()
                .find(|i| i.pos.line == e.line && i.text == e.instr)
            {
                e.tags = kept_tags(ins.event_tags(e.kind == "W"));
            }
        }
    }

    /// Adds each event's tags, the threads' placement and, from `ev`
    /// (loaded with this candidate), the model's relations `names`
    /// restricted to the candidate's events (unknown names are skipped:
    /// the driver checks them against the model first).
    pub fn add_graph_info(
        &mut self,
        c: &Candidate<'_, '_>,
        ev: Option<&mut Evaluator<'_>>,
        names: &[String],
    ) {
        let sk = c.skeleton;
        let p = sk.program;
        for (k, (we, e)) in self.events.iter_mut().zip(&sk.events).enumerate() {
            if let (Some(t), Some(i)) = (e.thread, e.instr) {
                let ins = &p.threads[t].instrs[i];
                let write = e.kind == EventKind::Write;
                // A compare-and-swap's read no write completes failed.
                let failed = !write && ins.failed.is_some() && !sk.rmw.iter().any(|&(r, _)| r == k);
                we.tags = if failed {
                    kept_tags(ins.failed_read_tags())
                } else {
                    kept_tags(ins.event_tags(write))
                };
            }
        }
        self.threads = threads_of(p);
        if let Some(ev) = ev {
            self.relations = names
                .iter()
                .filter_map(|n| match ev.binding(n)? {
                    Value::Rel(r) => Some(NamedRelation {
                        name: n.clone(),
                        pairs: r.pairs().collect(),
                    }),
                    Value::Set(_) => None,
                })
                .collect();
        }
    }
}

/// An event's tags as a witness shows them: the kind tags left out.
fn kept_tags<'a>(tags: impl Iterator<Item = &'a str>) -> Vec<String> {
    tags.filter(|t| !matches!(*t, "R" | "W" | "M" | "F" | "B"))
        .map(str::to_string)
        .collect()
}

/// Each thread of `p` with its placement, outermost scope level first.
fn threads_of(p: &crate::ir::Program) -> Vec<WitnessThread> {
    let levels = p.scope_levels();
    p.threads
        .iter()
        .map(|t| {
            let mut scopes: Vec<ScopeId> = t
                .placement
                .warp
                .map(|w| ScopeId {
                    level: "warp".into(),
                    id: w,
                })
                .into_iter()
                .chain(levels.iter().zip(&t.placement.ids).map(|(l, &id)| ScopeId {
                    level: l.to_string(),
                    id,
                }))
                .collect();
            scopes.reverse();
            WitnessThread {
                name: t.name.clone(),
                scopes,
            }
        })
        .collect()
}

/// The free values of the execution `c` (see [`Witness::inputs`]).
fn chosen_values(c: &Candidate<'_, '_>, input_values: &[i64]) -> Vec<(String, i64)> {
    let sk = c.skeleton;
    let p = sk.program;
    let mut out: Vec<(String, i64)> = p
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(k, i)| Some((i.name.clone(), i.value.or(input_values.get(k).copied())?)))
        .collect();
    for (ph, init) in sk.init_of.iter().enumerate() {
        let Some(init) = *init else { continue };
        if p.locations[ph].init_arbitrary.is_some() && c.rf.pairs().any(|(w, _)| w == init) {
            out.push((p.locations[ph].name.clone(), sk.events[init].value));
        }
    }
    for (th, path) in c.paths.iter().enumerate() {
        let t = &p.threads[th];
        let mut seen: std::collections::HashMap<usize, usize> = Default::default();
        for &(i, v) in &path.undefs {
            let dst = match &t.instrs[i].kind {
                crate::ir::InstrKind::Havoc { dst, .. } => dst.as_str(),
                _ => "?",
            };
            let k = seen.entry(i).or_insert(0);
            *k += 1;
            let name = match *k {
                1 => format!("{}:{dst}", t.name),
                k => format!("{}:{dst}#{k}", t.name),
            };
            out.push((name, v));
        }
    }
    out
}
