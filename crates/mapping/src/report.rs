//! What a check says: per axiom, the effort and either "no counterexample
//! up to N events" or the counterexample as two litmus tests (the source C
//! program and its compilation, each with the outcome of the execution as
//! its `exists` clause) and the execution itself (docs/MAPPING.md,
//! "Soundness checking"; JSON fields in docs/JSON.md).

use crate::explicit::{Counterexample, EventInfo};
use crate::ir::{Assertion, CmpOp, Cond, InstrKind, Program, Quantifier, Term};
use crate::search::{Engine, Outcome};
use crate::source;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// What was checked (the same for every axiom of a run).
#[derive(Clone, Debug)]
pub struct Header {
    pub from: String,
    pub to: String,
    /// The mapping as `Mapping::describe` gives it.
    pub mapping: String,
    pub events: usize,
    pub descoped: bool,
    /// The programs had branches on read values ([`crate::enumerate::Space::branches`]).
    pub branches: bool,
    pub engine: Engine,
}

impl Header {
    /// The line that says what is checked (stderr, before the results).
    pub fn banner(&self) -> String {
        format!(
            "gpumc mapping check: {} -> {} with mapping {}, up to {}{}{} ({} engine)",
            self.from,
            self.to,
            self.mapping,
            events(self.events),
            if self.descoped { ", de-scoped" } else { "" },
            if self.branches {
                ", branches on read values"
            } else {
                ", straight-line"
            },
            self.engine.name()
        )
    }
}

/// `1 event`, `5 events`.
fn events(n: usize) -> String {
    if n == 1 {
        "1 event".to_string()
    } else {
        format!("{n} events")
    }
}

impl Engine {
    pub fn name(self) -> &'static str {
        match self {
            Engine::Explicit => "explicit",
            Engine::Symbolic => "symbolic",
        }
    }
}

/// The register an event's instruction writes, if it is a read.
fn reg_of(p: &Program, e: &EventInfo) -> Option<(usize, String)> {
    if e.kind != "R" {
        return None;
    }
    let (t, k) = e.at?;
    match &p.threads[t].instrs[k].kind {
        InstrKind::Load { dst, .. } => Some((t, dst.clone())),
        InstrKind::Rmw { dst: Some(d), .. } => Some((t, d.clone())),
        _ => None,
    }
}

/// The outcome of the counterexample's source execution: the value of
/// every register a read writes, and the final value (the last write in
/// `mo`) of every location written more than once.
pub fn outcome(cx: &Counterexample) -> Vec<(Term, i64)> {
    let p = &cx.source_program;
    let mut out = Vec::new();
    for e in &cx.source_events {
        if let (Some((t, r)), Some(v)) = (reg_of(p, e), e.value) {
            out.push((Term::Reg(t, r), v));
        }
    }
    let mut writes: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for e in &cx.source_events {
        if e.kind == "W" {
            if let Some(l) = &e.location {
                writes.entry(l.clone()).or_default().push(e.id);
            }
        }
    }
    for (l, ws) in writes {
        if ws.len() < 2 {
            continue;
        }
        let last = ws
            .iter()
            .copied()
            .find(|&w| !cx.source_mo.iter().any(|&(a, _)| a == w));
        if let (Some(w), Some(li)) = (last, p.location_id(&l)) {
            if let Some(v) = cx.source_events[w].value {
                out.push((Term::Loc(li), v));
            }
        }
    }
    out
}

fn conjunction(items: Vec<Cond>) -> Cond {
    items
        .into_iter()
        .reduce(|a, b| Cond::And(Box::new(a), Box::new(b)))
        .unwrap_or(Cond::True)
}

/// The C litmus test of the counterexample's source program, `exists`
/// its outcome.
pub fn source_litmus(cx: &Counterexample, name: &str) -> String {
    let p = &cx.source_program;
    let parts: Vec<String> = outcome(cx)
        .into_iter()
        .map(|(t, v)| match t {
            Term::Reg(th, r) => format!("{th}:{r} = {v}"),
            Term::Loc(l) => format!("{} = {v}", p.locations[l].name),
            Term::Const(c) => format!("{c} = {v}"),
        })
        .collect();
    let cond = if parts.is_empty() {
        "true".to_string()
    } else {
        parts.join(" /\\ ")
    };
    source::c_litmus(&cx.source, name, Some(&cond))
}

/// The litmus test of the compiled program (PTX or Vulkan), `exists` the
/// same outcome.
pub fn target_litmus(cx: &Counterexample, name: &str, comment: &str) -> crate::Result<String> {
    let mut p = cx.target.program.clone();
    p.name = name.to_string();
    let sp = &cx.source_program;
    let renamed = |t: usize, r: &str| -> String {
        cx.target
            .renamed
            .get(t)
            .and_then(|v| v.iter().find(|(s, _)| s == r))
            .map_or_else(|| r.to_string(), |(_, n)| n.clone())
    };
    let conds: Vec<Cond> = outcome(cx)
        .into_iter()
        .filter_map(|(t, v)| {
            let term = match t {
                Term::Reg(th, r) => Term::Reg(th, renamed(th, &r)),
                Term::Loc(l) => Term::Loc(p.location_id(&sp.locations[l].name)?),
                c => c,
            };
            Some(Cond::Cmp(CmpOp::Eq, term, Term::Const(v)))
        })
        .collect();
    p.assertion = Some(Assertion {
        quantifier: Quantifier::Exists,
        cond: conjunction(conds),
    });
    gpumc_compile::print::litmus(&p, &[comment.to_string()])
}

fn event_line(e: &EventInfo) -> String {
    let what = match (&e.location, e.value) {
        (Some(l), Some(v)) => format!("{} {l}={v}", e.kind),
        _ => e.kind.clone(),
    };
    format!(
        "      e{:<3} {:<5} {:<12} {}",
        e.id,
        e.thread,
        what,
        if e.instr.is_empty() {
            String::new()
        } else {
            format!("{}  [{}]", e.instr, e.tags.join(" "))
        }
    )
}

fn pairs_line(name: &str, v: &[(usize, usize)]) -> String {
    let items: Vec<String> = v.iter().map(|(a, b)| format!("e{a}->e{b}")).collect();
    format!("      {name}: {}", items.join(" "))
}

/// Non-initial pairs only (the initial write is before every write).
fn without_init(events: &[EventInfo], v: &[(usize, usize)]) -> Vec<(usize, usize)> {
    v.iter()
        .copied()
        .filter(|&(a, _)| events.get(a).is_none_or(|e| e.kind != "IW"))
        .collect()
}

/// The human report of one axiom.
pub fn text(h: &Header, axiom: &str, out: &Outcome) -> String {
    let cx = out
        .counterexample
        .as_ref()
        .map(|cx| (cx.source.events(), counterexample_text(h, axiom, cx)));
    text_of(h, axiom, out, cx.as_ref().map(|(n, t)| (*n, t.as_str())))
}

/// [`text`] from its parts: the effort of `out` (its counterexample is not
/// read) and the counterexample's events and [`counterexample_text`] —
/// how `gpumc merge` puts the shards' reports together.
pub fn text_of(h: &Header, axiom: &str, out: &Outcome, cx: Option<(usize, &str)>) -> String {
    let effort = effort_text(h, out);
    match cx {
        None if out.timed_out => format!(
            "{axiom}: UNDECIDED: --timeout stopped the search before it went through every {} up to {}; no counterexample among those checked ({effort})\n",
            match h.engine {
                Engine::Symbolic => "shape",
                Engine::Explicit => "program",
            },
            events(h.events)
        ),
        None => format!(
            "{axiom}: no counterexample up to {} ({effort})\n",
            events(h.events)
        ),
        Some((n, body)) => {
            format!("{axiom}: COUNTEREXAMPLE with {} ({effort})\n{body}", events(n))
        }
    }
}

/// The lines of the human report that show a counterexample.
pub fn counterexample_text(h: &Header, axiom: &str, cx: &Counterexample) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "  An execution of the compiled program that {} allows lifts to a race-free execution of the source that violates `{axiom}` of {}.\n",
        h.to, h.from
    ));
    s.push_str("  Source:\n");
    for l in source_litmus(cx, &format!("{axiom}-source")).lines() {
        s.push_str(&format!("    {l}\n"));
    }
    s.push_str("  Compiled:\n");
    match target_litmus(cx, &format!("{axiom}-target"), &compiled_comment(h)) {
        Ok(t) => {
            for l in t.lines() {
                s.push_str(&format!("    {l}\n"));
            }
        }
        Err(e) => s.push_str(&format!("    (not printable: {e})\n")),
    }
    s.push_str("  Source execution:\n");
    for e in &cx.source_events {
        s.push_str(&event_line(e));
        s.push('\n');
    }
    s.push_str(&pairs_line("rf", &cx.source_rf));
    s.push('\n');
    s.push_str(&pairs_line(
        "mo",
        &without_init(&cx.source_events, &cx.source_mo),
    ));
    s.push('\n');
    s.push_str("  Target execution:\n");
    for e in &cx.target_events {
        let lift = cx.lift.get(e.id).copied().flatten();
        let mut line = event_line(e);
        if let Some(src) = lift {
            if e.kind != "IW" {
                line.push_str(&format!("  <- e{src}"));
            }
        }
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(&pairs_line("rf", &cx.target_rf));
    s.push('\n');
    s.push_str(&pairs_line(
        "co",
        &without_init(&cx.target_events, &cx.target_co),
    ));
    s.push('\n');
    if !cx.target_sync_fence.is_empty() {
        s.push_str(&pairs_line("sync_fence", &cx.target_sync_fence));
        s.push('\n');
    }
    s
}

fn compiled_comment(h: &Header) -> String {
    format!(
        "Compiled from the source program by mapping {} (gpumc mapping check)",
        h.mapping
    )
}

fn effort_text(h: &Header, out: &Outcome) -> String {
    let secs = out.elapsed.as_secs_f64();
    match h.engine {
        Engine::Symbolic => format!(
            "{} shapes, {} SAT queries, {} programs re-checked; {:.1} s",
            out.sym.shapes, out.sym.solver_calls, out.stats.programs, secs
        ),
        Engine::Explicit => format!(
            "{} programs, {} source and {} target executions; {:.1} s",
            out.stats.programs, out.stats.source_executions, out.stats.target_executions, secs
        ),
    }
}

fn events_json(v: &[EventInfo]) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The JSON line of one axiom (docs/JSON.md).
pub fn json(h: &Header, axiom: &str, out: &Outcome) -> Value {
    let cx = out
        .counterexample
        .as_ref()
        .map(|cx| counterexample_json(h, axiom, cx));
    json_of(h, axiom, out, cx.as_ref())
}

/// [`json`] from its parts, as [`text_of`].
pub fn json_of(h: &Header, axiom: &str, out: &Outcome, cx: Option<&Value>) -> Value {
    let mut v = json!({
        "from": h.from,
        "to": h.to,
        "mapping": h.mapping,
        "events": h.events,
        "descoped": h.descoped,
        "branches": h.branches,
        "engine": h.engine.name(),
        "axiom": axiom,
        "result": match (cx.is_some(), out.timed_out) {
            (true, _) => "counterexample",
            (false, true) => "undecided",
            (false, false) => "sound",
        },
        "programs": out.stats.programs,
        "shapes": out.sym.shapes,
        "solver_calls": out.sym.solver_calls,
        "source_executions": out.stats.source_executions,
        "target_executions": out.stats.target_executions,
        "time_ms": out.elapsed.as_secs_f64() * 1000.0,
    });
    if let Some(cx) = cx {
        v["counterexample"] = cx.clone();
    }
    v
}

/// The `counterexample` object of the JSON line.
pub fn counterexample_json(h: &Header, axiom: &str, cx: &Counterexample) -> Value {
    let target =
        target_litmus(cx, &format!("{axiom}-target"), &compiled_comment(h)).unwrap_or_default();
    json!({
        "events": cx.source.events(),
        "source": source_litmus(cx, &format!("{axiom}-source")),
        "target": target,
        "source_events": events_json(&cx.source_events),
        "source_rf": cx.source_rf,
        "source_mo": without_init(&cx.source_events, &cx.source_mo),
        "target_events": events_json(&cx.target_events),
        "target_rf": cx.target_rf,
        "target_co": without_init(&cx.target_events, &cx.target_co),
        "target_sync_fence": cx.target_sync_fence,
        "lift": cx.lift,
    })
}
