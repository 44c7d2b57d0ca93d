//! Reports: human-readable text, JSON lines and execution graphs
//! ([`graph`]).

pub mod graph;

use crate::driver::FileReport;
use crate::engine::witness::Witness;
use std::fmt::Write;

/// herd-style text for one checked file.
pub fn text(r: &FileReport) -> String {
    let mut s = String::new();
    if r.verdict == "ERROR" {
        let _ = writeln!(
            s,
            "{}: ERROR: {}",
            r.file,
            r.message.as_deref().unwrap_or("error")
        );
        return s;
    }
    let engine = r
        .engine
        .map(|e| format!("{e} engine, "))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "{}: {}  (model {}, {engine}{} execution{}, {:.2} ms)",
        r.file,
        r.verdict,
        r.model,
        r.executions,
        if r.executions == 1 { "" } else { "s" },
        r.time_ms
    );
    if let Some(n) = &r.engine_note {
        let _ = writeln!(s, "  Engine: {n}");
    }
    // Why a verdict is UNKNOWN (the bound, a resource limit, liveness
    // with loops that write).
    if let (true, Some(m)) = (r.verdict == "UNKNOWN", &r.message) {
        let _ = writeln!(s, "  Unknown because: {m}");
    }
    // A FAIL for a reason other than the property (undefined behaviour).
    if let (Some(m), "FAIL") = (&r.message, r.verdict.as_str()) {
        let _ = writeln!(s, "  {m}");
    }
    if !r.races.is_empty() {
        let _ = writeln!(s, "  Data races ({}):", r.races.len());
        for x in &r.races {
            let _ = writeln!(
                s,
                "    [{}] {} l.{} `{}`  <->  {} l.{} `{}`  on {}",
                x.flag,
                x.threads.0,
                x.lines.0,
                x.instrs.0,
                x.threads.1,
                x.lines.1,
                x.instrs.1,
                x.location.as_deref().unwrap_or("-")
            );
        }
    }
    if let Some(l) = &r.liveness {
        let _ = writeln!(s, "  Liveness violation: {}", l.description);
    }
    if r.property != crate::driver::Property::Safety {
        if let Some(w) = &r.witness {
            s.push_str(&witness_text(w));
        }
        return s;
    }
    let _ = writeln!(s, "  States {}", r.states.len());
    for st in &r.states {
        let line: Vec<String> = r
            .observables
            .iter()
            .zip(st)
            .map(|(n, v)| format!("{n}={v};"))
            .collect();
        let _ = writeln!(s, "    {}", line.join(" "));
    }
    if let Some(w) = &r.witness {
        s.push_str(&witness_text(w));
    }
    s.push_str(&graph_text(r));
    s
}

/// The lines a graph request adds: the violated axiom of a forbidden
/// outcome's picture, and whether `--graph-max` cut the executions.
fn graph_text(r: &FileReport) -> String {
    let mut s = String::new();
    let Some(g) = &r.graph else {
        return s;
    };
    if let Some(v) = g.rejected.as_ref().and_then(|w| w.violation.as_ref()) {
        let _ = writeln!(
            s,
            "  Forbidden: the candidate execution reaching the condition's state violates axiom `{}` ({}): {}",
            v.axiom,
            v.kind,
            v.describe()
        );
    }
    if g.capped {
        let _ = writeln!(
            s,
            "  Graphs: the first {} executions are drawn; --graph-max cut the rest",
            g.executions.len()
        );
    }
    s
}

/// A witness execution: events, rf and co.
pub fn witness_text(w: &Witness) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "  Witness execution:");
    if !w.inputs.is_empty() {
        let v: Vec<String> = w.inputs.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let _ = writeln!(s, "    inputs: {}", v.join(" "));
    }
    for e in &w.events {
        let what = match (&e.location, e.value) {
            (Some(l), Some(v)) => format!("{} {}={}", e.kind, l, v),
            _ => e.kind.clone(),
        };
        if e.thread == "init" {
            let _ = writeln!(s, "    e{:<3} init      {}", e.id, what);
        } else {
            let _ = writeln!(
                s,
                "    e{:<3} {:<4} l.{:<3} {:<14} {}",
                e.id, e.thread, e.line, what, e.instr
            );
        }
    }
    let pairs = |v: &[(usize, usize)]| {
        v.iter()
            .map(|(a, b)| format!("e{a}->e{b}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(s, "    rf: {}", pairs(&w.rf));
    let _ = writeln!(s, "    co: {}", pairs(&w.co));
    if !w.state.is_empty() {
        let st: Vec<String> = w.state.iter().map(|(n, v)| format!("{n}={v}")).collect();
        let _ = writeln!(s, "    final: {}", st.join(" "));
    }
    s
}

/// One JSON object (single line).
pub fn json(r: &FileReport) -> String {
    serde_json::to_string(r).expect("reports serialise")
}
