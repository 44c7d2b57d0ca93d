//! Reports: human-readable text, JSON lines, herd7's result block, and
//! execution graphs ([`graph`]).

pub mod graph;

use crate::driver::{FileReport, Property, NO_CONDITION};
use crate::engine::safety::Observation;
use crate::engine::witness::Witness;
use std::fmt::Write;

/// `N executions`, or `executions not counted`.
fn executions_text(n: Option<u64>) -> String {
    match n {
        Some(1) => "1 execution".into(),
        Some(n) => format!("{n} executions"),
        None => "executions not counted".into(),
    }
}

/// `N`, or `at least N` when the list of states is not complete.
fn states_count(r: &FileReport) -> String {
    if r.states_complete {
        r.states.len().to_string()
    } else {
        format!("at least {}", r.states.len())
    }
}

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
    // Executions are counted by an engine that ran to the end.
    let executions = match r.engine {
        Some(_) => format!("{}, ", executions_text(r.executions)),
        None => String::new(),
    };
    let verdict = if r.verdict == NO_CONDITION && r.states.is_empty() && r.states_note.is_some() {
        // (why: on the States line)
        "no condition, no undefined behaviour".to_string()
    } else if r.verdict == NO_CONDITION {
        let n = states_count(r);
        let plural = if n == "1" { "" } else { "s" };
        format!("no condition: {n} reachable state{plural}")
    } else {
        r.verdict.clone()
    };
    let _ = writeln!(
        s,
        "{}: {verdict}  (model {}, {engine}{executions}{:.2} ms)",
        r.file, r.model, r.time_ms
    );
    if let Some(n) = &r.engine_note {
        let _ = writeln!(s, "  Engine: {n}");
    }
    if let Some(n) = &r.bound_note {
        let _ = writeln!(s, "  Bound: {n}");
    }
    if let Some(n) = &r.launch_note {
        let _ = writeln!(s, "  Launch: {n}");
    }
    // Which coherence, where it is not the architecture's (which our
    // embedded models use): a model file gets herd7's total `co`.
    if let (Some(co), Some(why)) = (r.co, &r.co_note) {
        let co = match co {
            crate::ir::Coherence::Total => "total",
            crate::ir::Coherence::Partial => "partial",
        };
        let _ = writeln!(s, "  Coherence: {co} per location ({why})");
    }
    for a in &r.assumptions {
        let _ = writeln!(s, "  assumed: {a}");
    }
    if let Some(v) = &r.vacuous {
        let _ = writeln!(s, "  Vacuous: {v}");
    }
    // Why a verdict is UNKNOWN (the bound, a resource limit, liveness
    // with loops that write).
    if let (true, Some(m)) = (r.verdict == "UNKNOWN", &r.message) {
        let _ = writeln!(s, "  Unknown because: {m}");
    }
    // A FAIL for a reason other than the property (undefined behaviour),
    // or how a PASS was reached (a split of scope instances).
    if let (Some(m), "FAIL" | "PASS") = (&r.message, r.verdict.as_str()) {
        let _ = writeln!(s, "  {m}");
    }
    for u in &r.undefined_unless {
        let _ = writeln!(
            s,
            "  Undefined: the model's check `{u}` (`undefined_unless`) fails in some execution, which is undefined (herd7: Undef)"
        );
    }
    for f in &r.flags {
        let _ = writeln!(
            s,
            "  Flag {f}: the model flags some execution{}",
            if r.flags_undefined {
                " (racy: C and OpenCL make a data race undefined behaviour, so the safety verdict is meaningless)"
            } else {
                ""
            }
        );
    }
    s.push_str(&races_text(r));
    if let Some(l) = &r.liveness {
        let _ = writeln!(s, "  Liveness violation: {}", l.description);
    }
    if r.property != Property::Safety || r.engine.is_none() {
        if let Some(w) = &r.witness {
            s.push_str(&witness_text(w));
        }
        return s;
    }
    if let Some(c) = &r.condition {
        let _ = writeln!(s, "  Condition {c}");
    }
    if let Some(o) = r.observation {
        let counts = match (r.positive, r.negative) {
            (Some(p), Some(n)) => format!("{p} positive, {n} negative executions"),
            _ => "executions not counted".into(),
        };
        let _ = writeln!(s, "  Observation {o} ({counts})");
    }
    let _ = match (&r.states_note, r.bound_hit) {
        (Some(why), _) if r.states.is_empty() => writeln!(s, "  States not listed ({why})"),
        (Some(why), _) => writeln!(s, "  States {} ({why})", states_count(r)),
        (None, true) => writeln!(
            s,
            "  States {} (executions cut by the loop bound are not covered)",
            r.states.len()
        ),
        (None, false) => writeln!(s, "  States {}", r.states.len()),
    };
    for st in &r.states {
        let line: Vec<String> = r
            .observables
            .iter()
            .zip(st)
            .map(|(n, v)| format!("{n}={v};"))
            .collect();
        let _ = writeln!(s, "    {}", line.join(" "));
    }
    if let (Some(n), Some(_)) = (&r.values_note, &r.witness) {
        let _ = writeln!(s, "  Values: {n}");
    }
    if let Some(w) = &r.witness {
        s.push_str(&witness_text(w));
    }
    s.push_str(&graph_text(r));
    s
}

/// The `Data races` block: one line per racing pair of instructions, as a
/// programmer reads it: the kind, the location (and its state space), each
/// instruction with its `line:col` (and the compiled source's position)
/// and its thread, in the kind's order (`RAW`: the write first). The flag
/// is named once when every pair has the same one.
fn races_text(r: &FileReport) -> String {
    let mut s = String::new();
    let incomplete = match (&r.races_note, r.races_complete) {
        (Some(n), Some(false)) => Some(n.as_str()),
        (None, Some(false)) => Some("incomplete"),
        _ => None,
    };
    if r.races.is_empty() {
        // A race found but no pair listed (`--max-races 0`); undefined
        // behaviour says so in its own message.
        if let (Some(n), "FAIL", None) = (incomplete, r.verdict.as_str(), &r.message) {
            let _ = writeln!(s, "  Data races: none listed ({n})");
        }
        return s;
    }
    let one_flag = r.races.iter().all(|x| x.flag == r.races[0].flag);
    let mut head = r.races.len().to_string();
    if one_flag {
        let _ = write!(head, ", flag {}", r.races[0].flag);
    }
    if let Some(n) = incomplete {
        let _ = write!(head, "; {n}");
    }
    let _ = writeln!(s, "  Data races ({head}):");
    for x in &r.races {
        let side = |instr: &str, pos: &str, src: &Option<String>, thread: &str| {
            let at = match src {
                Some(src) => format!("{pos}, {src}"),
                None => pos.to_string(),
            };
            format!("{instr} ({at}) in thread {thread}")
        };
        let location = match (&x.location, &x.space) {
            (Some(l), Some(sp)) => format!(" on {l} ({sp})"),
            (Some(l), None) => format!(" on {l}"),
            _ => String::new(),
        };
        let flag = if one_flag {
            String::new()
        } else {
            format!("[{}] ", x.flag)
        };
        let _ = writeln!(
            s,
            "    {flag}{}{location}: {} → {}",
            x.kind,
            side(&x.instrs.0, &x.positions.0, &x.source.0, &x.threads.0),
            side(&x.instrs.1, &x.positions.1, &x.source.1, &x.threads.1),
        );
    }
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

/// A witness with more events than this is summarised in the text
/// report (the JSON report has it whole, `--graph` draws it).
pub const WITNESS_TEXT_EVENTS: usize = 200;

/// A witness execution: events, rf and co; a summary over
/// [`WITNESS_TEXT_EVENTS`] events.
pub fn witness_text(w: &Witness) -> String {
    let mut s = String::new();
    if w.events.len() > WITNESS_TEXT_EVENTS {
        let threads: std::collections::BTreeSet<&str> = w
            .events
            .iter()
            .filter(|e| e.thread != "init")
            .map(|e| e.thread.as_str())
            .collect();
        let _ = writeln!(
            s,
            "  Witness execution: {} events of {} threads, {} rf and {} co pairs (over {WITNESS_TEXT_EVENTS} events: --json has it whole, --graph draws it)",
            w.events.len(),
            threads.len(),
            w.rf.len(),
            w.co.len()
        );
        return s;
    }
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

/// herd7's result block for one test (`Test`, `States`, `Ok`/`No`,
/// `Witnesses`, `Condition`, `Observation`, `Time`), as herd7 prints it:
/// registers as `THREAD:REG`, a test without a condition as `forall
/// (true)`, `Loop` before `Ok`/`No` when the loop bound cut executions,
/// `Undef` for undefined behaviour. Where executions are not counted (the
/// symbolic engine), `Positive`/`Negative` and the observation's numbers
/// count the listed states instead. An incomplete list of states is
/// followed by a `Warning:` line. Reports without a safety result
/// (errors, limits, races, liveness) are printed as [`text`] prints them.
pub fn herd(r: &FileReport) -> String {
    let Some(h) = r
        .herd
        .as_ref()
        .filter(|_| r.property == Property::Safety && r.engine.is_some() && r.verdict != "ERROR")
    else {
        return text(r);
    };
    let mut s = String::new();
    let name = &r.test;
    let _ = writeln!(s, "Test {name} {}", h.kind);
    let _ = writeln!(s, "States {}", r.states.len());
    for st in &r.states {
        let line: Vec<String> = h
            .observables
            .iter()
            .zip(st)
            .map(|(n, v)| format!("{n}={v};"))
            .collect();
        let _ = writeln!(s, "{}", line.join(" "));
    }
    // herd's `pos`/`neg` are w.r.t. the proposition.
    let (pos, neg) = match (r.positive, r.negative, &r.condition) {
        (Some(p), Some(n), _) => (p, n),
        (_, _, Some(_)) => h.state_counts,
        // No condition (`forall (true)`): every execution is positive.
        (_, _, None) => (r.executions.unwrap_or(r.states.len() as u64), 0),
    };
    let ok = match h.kind {
        "Allowed" => r.verdict == "PASS",
        // Not found (UNKNOWN: only the bound stopped a claim).
        _ => r.verdict != "FAIL",
    };
    let _ = writeln!(
        s,
        "{}{}",
        if r.bound_hit { "Loop " } else { "" },
        if h.undefined {
            "Undef"
        } else if ok {
            "Ok"
        } else {
            "No"
        }
    );
    let (wp, wn) = if h.kind == "Forbidden" {
        (neg, pos)
    } else {
        (pos, neg)
    };
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {wp} Negative: {wn}");
    // herd7 names every failed `undefined_unless` check `*undef*`, first.
    if !r.undefined_unless.is_empty() {
        let _ = writeln!(s, "Flag *undef*");
    }
    for f in &r.flags {
        let _ = writeln!(s, "Flag {f}");
    }
    let _ = writeln!(s, "Condition {}", h.condition);
    let obs = match (&r.condition, r.observation) {
        (Some(_), Some(o)) => o,
        _ => Observation::of(pos > 0, neg > 0),
    };
    let _ = writeln!(s, "Observation {name} {obs} {pos} {neg}");
    let _ = writeln!(s, "Time {name} {:.2}", r.time_ms / 1e3);
    if let Some(h) = &h.hash {
        let _ = writeln!(s, "Hash={h}");
    }
    // herd7 has no incomplete list of states: say it in herd7's way of
    // warning (its own warnings go to stderr; this one stays with its block).
    if let (false, Some(why)) = (r.states_complete, &r.states_note) {
        let _ = writeln!(
            s,
            "Warning: File \"{}\": the list of states is incomplete ({why}).",
            r.file
        );
    }
    s.push('\n');
    s
}

/// One JSON object (single line).
pub fn json(r: &FileReport) -> String {
    serde_json::to_string(r).expect("reports serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::Config;
    use crate::engine::races::RacePair;

    fn pair(flag: &str, source: (Option<&str>, Option<&str>), space: Option<&str>) -> RacePair {
        RacePair {
            flag: flag.into(),
            events: (3, 5),
            threads: ("t1@b0".into(), "t0@b0".into()),
            lines: (12, 20),
            instrs: (
                "st.shared.u32 [%rd9], %r3".into(),
                "ld.shared.u32 %r6, [%rd4]".into(),
            ),
            location: Some("s[4]".into()),
            kind: "RAW".into(),
            space: space.map(str::to_string),
            source: (source.0.map(str::to_string), source.1.map(str::to_string)),
            positions: ("12:2".into(), "20:2".into()),
            in_witness: true,
            inputs: vec![],
        }
    }

    fn report(races: Vec<RacePair>, complete: bool, note: Option<&str>) -> FileReport {
        let cfg = Config {
            property: Property::Races,
            ..Config::default()
        };
        let mut r = FileReport::new(std::path::Path::new("k.ptx"), &cfg);
        r.verdict = "FAIL".into();
        r.races = races;
        r.races_complete = Some(complete);
        r.races_note = note.map(str::to_string);
        r
    }

    #[test]
    fn a_race_line_names_kind_space_positions_sources_and_threads() {
        let r = report(
            vec![pair(
                "dr",
                (Some("k.cu:5:8"), Some("k.cu:7:21")),
                Some("shared"),
            )],
            true,
            None,
        );
        assert_eq!(
            races_text(&r),
            "  Data races (1, flag dr):\n    RAW on s[4] (shared): st.shared.u32 [%rd9], %r3 (12:2, k.cu:5:8) in thread t1@b0 → ld.shared.u32 %r6, [%rd4] (20:2, k.cu:7:21) in thread t0@b0\n"
        );
        // Without a source map or a space, and with two flags: each line
        // names its flag.
        let r = report(
            vec![
                pair("dr", (None, None), None),
                pair("other", (None, None), None),
            ],
            false,
            Some("the search stopped at --max-races 2"),
        );
        let t = races_text(&r);
        assert!(
            t.starts_with("  Data races (2; the search stopped at --max-races 2):\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "    [other] RAW on s[4]: st.shared.u32 [%rd9], %r3 (12:2) in thread t1@b0 → "
            ),
            "{t}"
        );
    }

    #[test]
    fn no_block_for_a_race_free_test_or_undefined_behaviour() {
        let mut r = report(vec![], true, None);
        r.verdict = "PASS".into();
        assert_eq!(races_text(&r), "");
        let mut r = report(
            vec![],
            false,
            Some("undefined behaviour decided the verdict"),
        );
        r.message = Some("thread P0 reaches undefined behaviour".into());
        assert_eq!(races_text(&r), "");
    }

    #[test]
    fn a_large_witness_is_summarised_in_text() {
        use crate::engine::witness::WitnessEvent;
        let ev = |id: usize| WitnessEvent {
            id,
            thread: format!("P{}", id % 4),
            line: 3,
            instr: "ld.weak r0, x".into(),
            kind: "R".into(),
            location: Some("x".into()),
            value: Some(0),
            tags: vec![],
        };
        let small = Witness {
            events: (0..WITNESS_TEXT_EVENTS).map(ev).collect(),
            ..Witness::default()
        };
        assert_eq!(
            witness_text(&small).lines().count(),
            WITNESS_TEXT_EVENTS + 3
        );
        let large = Witness {
            events: (0..=WITNESS_TEXT_EVENTS).map(ev).collect(),
            ..Witness::default()
        };
        let t = witness_text(&large);
        assert_eq!(t.lines().count(), 1, "{t}");
        assert!(t.contains("201 events of 4 threads"), "{t}");
    }
}
