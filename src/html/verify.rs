//! The page of `gpumc check --html` and `gpumc suite --html`: one row per
//! checked test, from the JSON object each test's report already is
//! (`report::json`; `suite` adds `expected` and `agrees`). Every field is
//! read defensively: a field that is absent or of another shape is left
//! out, and fields this page does not know are shown as they are.

use super::escape::{esc, E};
use super::table::{self, Cell, Column, Filter, Row};
use super::{distinct, fmt_ms, Meta};
use serde_json::Value;
use std::fmt::Write;

/// Reachable states listed per test; the rest is counted.
const MAX_STATES: usize = 256;

/// A witness with more events than this shows its event table folded.
const FOLD_EVENTS: usize = 40;

/// Fields this page shows in their own place.
const KNOWN: &[&str] = &[
    "file",
    "verdict",
    "model",
    "engine",
    "engine_note",
    "property",
    "time_ms",
    "executions",
    "observables",
    "states",
    "witness",
    "races",
    "races_complete",
    "races_note",
    "liveness",
    "message",
    "expected",
    "agrees",
    "condition",
    "observation",
    "positive",
    "negative",
];

/// Every verdict a row can have; NONE (a test without a condition) and
/// MISSING (a suite's absent file) get a badge only when present.
const VERDICTS: [&str; 6] = ["PASS", "FAIL", "UNKNOWN", "ERROR", "NONE", "MISSING"];

pub fn page(meta: &Meta, tests: &[Value], graph: &dyn Fn(&Value) -> Option<String>) -> String {
    let suite = tests.iter().any(|t| t.get("expected").is_some());
    let mut columns = vec![
        Column {
            key: "file",
            label: "test",
            numeric: false,
            width: "minmax(16em,1fr)",
        },
        Column {
            key: "verdict",
            label: "verdict",
            numeric: false,
            width: "6.5em",
        },
    ];
    if suite {
        columns.push(Column {
            key: "expected",
            label: "expected",
            numeric: false,
            width: "6.5em",
        });
        columns.push(Column {
            key: "agrees",
            label: "agrees",
            numeric: false,
            width: "4.5em",
        });
    }
    // A CSV whose rows ask different questions of the same file.
    let properties = distinct(tests, "property").len() > 1;
    if properties {
        columns.push(Column {
            key: "property",
            label: "property",
            numeric: false,
            width: "6em",
        });
    }
    columns.extend([
        Column {
            key: "time",
            label: "time (ms)",
            numeric: true,
            width: "6.5em",
        },
        Column {
            key: "engine",
            label: "engine",
            numeric: false,
            width: "5.5em",
        },
        Column {
            key: "executions",
            label: "executions",
            numeric: true,
            width: "6.5em",
        },
        Column {
            key: "states",
            label: "states",
            numeric: true,
            width: "4.5em",
        },
    ]);
    let prefix = super::common_dir(tests);
    let rows: Vec<Row> = tests
        .iter()
        .map(|t| row(t, &prefix, suite, properties, graph))
        .collect();

    let verdict = |t: &Value| str_of(t, "verdict").unwrap_or("ERROR").to_string();
    let mut totals = Vec::new();
    for v in VERDICTS {
        let n = tests.iter().filter(|t| verdict(t) == v).count();
        if n > 0 || !matches!(v, "MISSING" | "NONE") {
            totals.push(super::page::Total {
                key: v.into(),
                label: v.into(),
                count: n,
            });
        }
    }
    let mut filters: Vec<Filter> = VERDICTS
        .iter()
        .filter(|v| tests.iter().any(|t| verdict(t) == **v))
        .map(|v| Filter {
            tag: format!("verdict:{v}"),
            label: (*v).to_string(),
        })
        .collect();
    if suite {
        let agree = |b: bool| {
            tests
                .iter()
                .filter(|t| t.get("agrees").and_then(Value::as_bool) == Some(b))
                .count()
        };
        totals.push(super::page::Total {
            key: "agree".into(),
            label: "agree with the expectations".into(),
            count: agree(true),
        });
        totals.push(super::page::Total {
            key: "disagree".into(),
            label: "disagree".into(),
            count: agree(false),
        });
        filters.push(Filter {
            tag: "agrees:no".into(),
            label: "disagrees with the expectation".into(),
        });
    }
    let mut facts = vec![("command".to_string(), meta.command.clone())];
    let models = distinct(tests, "model");
    if !models.is_empty() {
        let label = if models.len() == 1 { "model" } else { "models" };
        facts.push((label.into(), models.join(", ")));
    }
    let props = distinct(tests, "property");
    if !props.is_empty() {
        facts.push(("property".into(), props.join(", ")));
    }
    if !prefix.is_empty() {
        facts.push(("tests under".into(), prefix.clone()));
    }
    facts.extend(meta.facts.iter().cloned());
    facts.extend(meta.common_facts(tests.len()));
    let header = super::page::Header {
        title: meta.title.clone(),
        facts,
        totals,
    };
    super::page::document(&header, &table::render(&columns, &rows, &filters))
}

fn row(
    t: &Value,
    prefix: &str,
    suite: bool,
    properties: bool,
    graph: &dyn Fn(&Value) -> Option<String>,
) -> Row {
    let file = str_of(t, "file").unwrap_or("?");
    let verdict = str_of(t, "verdict").unwrap_or("ERROR");
    let mut cells = vec![Cell::file(file, prefix), Cell::word(verdict)];
    let mut tags = vec![format!("verdict:{}", tag_word(verdict))];
    let mut bad = false;
    if suite {
        cells.push(match str_of(t, "expected") {
            Some(e) => Cell::word(e),
            None => Cell::text(""),
        });
        match t.get("agrees").and_then(Value::as_bool) {
            Some(a) => {
                cells.push(Cell::word(if a { "yes" } else { "no" }));
                tags.push(format!("agrees:{}", if a { "yes" } else { "no" }));
                bad = !a;
            }
            None => cells.push(Cell::text("–")),
        }
    }
    if properties {
        cells.push(Cell::text(str_of(t, "property").unwrap_or("")));
    }
    let time = num_of(t, "time_ms");
    cells.push(Cell::num(
        time,
        &time.map(fmt_ms).unwrap_or_else(|| "–".into()),
    ));
    cells.push(Cell::text(str_of(t, "engine").unwrap_or("")));
    let execs = t.get("executions").and_then(Value::as_u64);
    cells.push(Cell::num(
        execs.map(|x| x as f64),
        &execs.map(|x| x.to_string()).unwrap_or_else(|| "–".into()),
    ));
    // Reachable states are listed for safety only (races and liveness
    // stop at the first violation).
    let states = t
        .get("states")
        .and_then(Value::as_array)
        .map(Vec::len)
        .filter(|n| *n > 0 || str_of(t, "property").is_none_or(|p| p == "safety"));
    cells.push(Cell::num(
        states.map(|x| x as f64),
        &states.map(|x| x.to_string()).unwrap_or_else(|| "–".into()),
    ));
    let search = [
        file,
        verdict,
        str_of(t, "model").unwrap_or(""),
        str_of(t, "engine").unwrap_or(""),
        str_of(t, "message").unwrap_or(""),
    ]
    .join(" ");
    Row {
        cells,
        tags,
        search,
        bad,
        body: body(t, graph),
    }
}

/// A verdict as one filter word (no spaces).
fn tag_word(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect()
}

fn str_of<'a>(t: &'a Value, k: &str) -> Option<&'a str> {
    t.get(k).and_then(Value::as_str)
}

fn num_of(t: &Value, k: &str) -> Option<f64> {
    t.get(k).and_then(Value::as_f64)
}

/// A JSON value as text: strings as they are, the rest as compact JSON.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A field's value, absent when missing or `null` (a race or liveness
/// report has no condition or observation).
fn present<'a>(t: &'a Value, k: &str) -> Option<&'a Value> {
    t.get(k).filter(|v| !v.is_null())
}

/// A field this page has no place for, as HTML a reader can scan:
/// strings and numbers as they are, `yes`/`no`, a list of strings one per
/// line, anything else as compact JSON in monospace.
fn readable(v: &Value) -> String {
    match v {
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
        Value::String(x) => E(x).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(a) if a.iter().all(Value::is_string) => a
            .iter()
            .map(|x| E(&plain(x)).to_string())
            .collect::<Vec<_>>()
            .join("<br>"),
        other => format!("<code>{}</code>", E(&other.to_string())),
    }
}

/// The expanded view of one test.
fn body(t: &Value, graph: &dyn Fn(&Value) -> Option<String>) -> String {
    let mut s = String::new();
    s.push_str("<dl>\n");
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(s, "<dt>{}</dt><dd>{}</dd>", E(k), v);
    };
    if let Some(f) = str_of(t, "file") {
        fact("file", format!("<code>{}</code>", E(f)));
    }
    for (k, label) in [
        ("property", "property"),
        ("model", "model"),
        ("engine", "engine"),
    ] {
        if let Some(v) = present(t, k) {
            fact(label, E(&plain(v)).to_string());
        }
    }
    if let Some(v) = present(t, "condition") {
        fact("condition", format!("<code>{}</code>", E(&plain(v))));
    }
    if let Some(v) = present(t, "observation") {
        let mut o = E(&plain(v)).to_string();
        for k in ["positive", "negative"] {
            if let Some(x) = present(t, k) {
                let _ = write!(o, ", {k} {}", E(&plain(x)));
            }
        }
        fact("observation", o);
    } else {
        for k in ["positive", "negative"] {
            if let Some(x) = present(t, k) {
                fact(k, E(&plain(x)).to_string());
            }
        }
    }
    if let Some(v) = present(t, "expected") {
        fact("expected", E(&plain(v)).to_string());
    }
    if let Some(v) = present(t, "engine_note") {
        fact("engine note", E(&plain(v)).to_string());
    }
    if let Some(v) = present(t, "message") {
        fact(
            "message",
            format!("<span class=\"mono\">{}</span>", E(&plain(v))),
        );
    }
    s.push_str("</dl>\n");

    // What answers the question first: the racing pairs and the
    // liveness account, then their picture, then the execution's details.
    if let Some(r) = t.get("races").and_then(Value::as_array) {
        races(&mut s, r);
    }
    if t.get("races_complete") == Some(&Value::Bool(false)) {
        let why = t.get("races_note").map(plain);
        let _ = writeln!(
            s,
            "<p class=\"note\">Not every racing pair is listed{}.</p>",
            why.map(|w| format!(": {}", E(&w))).unwrap_or_default()
        );
    }
    if let Some(l) = t.get("liveness").filter(|l| !l.is_null()) {
        s.push_str("<h3>Liveness violation</h3>\n");
        if let Some(d) = l.get("description").and_then(Value::as_str) {
            let _ = writeln!(s, "<pre>{}</pre>", E(d));
        }
        let _ = writeln!(
            s,
            "<details><summary class=\"note\">details (JSON)</summary><pre>{}</pre></details>",
            E(&serde_json::to_string_pretty(l).unwrap_or_default())
        );
    }
    if let Some(svg) = graph(t) {
        // The graph helper's SVG, made by our own code from the witness.
        let _ = writeln!(
            s,
            "<h3>Execution graph</h3>\n<figure class=\"graph\">{svg}</figure>"
        );
    }
    // States and witness side by side where the page is wide enough.
    s.push_str("<div class=\"cols\">\n<section>\n");
    states(&mut s, t);
    s.push_str("</section>\n<section>\n");
    if let Some(w) = t.get("witness").filter(|w| w.is_object()) {
        witness(&mut s, w);
    }
    s.push_str("</section>\n</div>\n");
    if let Some(obj) = t.as_object() {
        let other: Vec<_> = obj
            .iter()
            .filter(|(k, v)| !KNOWN.contains(&k.as_str()) && !v.is_null())
            .collect();
        if !other.is_empty() {
            s.push_str("<h3>More about this check</h3>\n<dl>\n");
            for (k, v) in other {
                let _ = writeln!(
                    s,
                    "<dt>{}</dt><dd>{}</dd>",
                    E(&k.replace('_', " ")),
                    readable(v)
                );
            }
            s.push_str("</dl>\n");
        }
    }
    s
}

fn states(s: &mut String, t: &Value) {
    let Some(states) = t.get("states").and_then(Value::as_array) else {
        return;
    };
    let names: Vec<String> = t
        .get("observables")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(plain).collect())
        .unwrap_or_default();
    if states.is_empty() {
        if t.get("property").and_then(Value::as_str) == Some("safety") {
            s.push_str("<h3>Reachable states</h3>\n<p class=\"note\">none</p>\n");
        }
        return;
    }
    let _ = writeln!(
        s,
        "<h3>Reachable states ({})</h3>\n<table>\n<tr>",
        states.len()
    );
    for n in &names {
        let _ = write!(s, "<th class=\"mono\">{}</th>", E(n));
    }
    s.push_str("</tr>\n");
    for st in states.iter().take(MAX_STATES) {
        s.push_str("<tr>");
        match st.as_array() {
            Some(vals) => {
                for v in vals {
                    let _ = write!(s, "<td class=\"n\">{}</td>", E(&plain(v)));
                }
            }
            None => {
                let _ = write!(s, "<td>{}</td>", E(&plain(st)));
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
    if states.len() > MAX_STATES {
        let _ = writeln!(
            s,
            "<p class=\"note\">… and {} more (the JSON report lists them all)</p>",
            states.len() - MAX_STATES
        );
    }
}

fn witness(s: &mut String, w: &Value) {
    s.push_str("<h3>Witness execution</h3>\n");
    if let Some(inputs) = w.get("inputs").and_then(Value::as_object) {
        if !inputs.is_empty() {
            let v: Vec<String> = inputs
                .iter()
                .map(|(k, v)| format!("{}={}", k, plain(v)))
                .collect();
            let _ = writeln!(s, "<p>free values: <code>{}</code></p>", E(&v.join(" ")));
        }
    }
    if let Some(events) = w.get("events").and_then(Value::as_array) {
        // A kernel's witness has hundreds of events: folded, so that what
        // follows stays in view.
        let folded = events.len() > FOLD_EVENTS;
        if folded {
            let _ = writeln!(
                s,
                "<details><summary class=\"note\">{} events</summary>",
                events.len()
            );
        }
        s.push_str(
            "<table>\n<tr><th>event</th><th>thread</th><th>line</th><th>instruction</th><th>kind</th><th>location</th><th>value</th></tr>\n",
        );
        for e in events {
            let f = |k: &str| {
                e.get(k)
                    .filter(|v| !v.is_null())
                    .map(plain)
                    .unwrap_or_default()
            };
            let line = match e.get("line").and_then(Value::as_u64) {
                Some(0) | None => String::new(),
                Some(l) => l.to_string(),
            };
            let _ = writeln!(
                s,
                "<tr><td class=\"mono\">e{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"mono\">{}</td><td>{}</td><td class=\"mono\">{}</td><td class=\"n\">{}</td></tr>",
                E(&f("id")),
                E(&f("thread")),
                E(&line),
                E(&f("instr")),
                E(&f("kind")),
                E(&f("location")),
                E(&f("value"))
            );
        }
        s.push_str("</table>\n");
        if folded {
            s.push_str("</details>\n");
        }
    }
    for rel in ["rf", "co"] {
        if let Some(pairs) = w.get(rel).and_then(Value::as_array) {
            let text: Vec<String> = pairs
                .iter()
                .map(|p| match p.as_array().map(Vec::as_slice) {
                    Some([a, b]) => format!("e{} → e{}", plain(a), plain(b)),
                    _ => plain(p),
                })
                .collect();
            let _ = writeln!(
                s,
                "<p><b>{rel}</b>: <code>{}</code></p>",
                if text.is_empty() {
                    "(none)".to_string()
                } else {
                    esc(&text.join(", "))
                }
            );
        }
    }
    if let Some(state) = w.get("state").and_then(Value::as_array) {
        if !state.is_empty() {
            let text: Vec<String> = state
                .iter()
                .map(|p| match p.as_array().map(Vec::as_slice) {
                    Some([n, v]) => format!("{}={}", plain(n), plain(v)),
                    _ => plain(p),
                })
                .collect();
            let _ = writeln!(
                s,
                "<p><b>final state</b>: <code>{}</code></p>",
                E(&text.join("  "))
            );
        }
    }
}

/// The racing instruction pairs: kind, both sides (thread, `line:col`,
/// instruction, and the compiled source's position where known), the
/// location with its space. Reports without the newer fields (kind,
/// positions, source) show what they have.
fn races(s: &mut String, races: &[Value]) {
    if races.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "<h3>Data races ({})</h3>\n<table>\n<tr><th>flag</th><th>kind</th><th>first</th><th>second</th><th>location</th></tr>",
        races.len()
    );
    for r in races {
        let pair = |k: &str, i: usize| {
            r.get(k)
                .and_then(Value::as_array)
                .and_then(|a| a.get(i))
                .filter(|v| !v.is_null())
                .map(plain)
        };
        let side = |i: usize| {
            let at = pair("positions", i)
                .or_else(|| pair("lines", i).map(|l| format!("l.{l}")))
                .unwrap_or_default();
            let source = pair("source", i)
                .map(|src| format!("<br><span class=\"mono\">{}</span>", E(&src)))
                .unwrap_or_default();
            format!(
                "{} {} <code>{}</code>{source}",
                E(&pair("threads", i).unwrap_or_default()),
                E(&at),
                E(&pair("instrs", i).unwrap_or_default())
            )
        };
        let text = |k: &str| r.get(k).filter(|v| !v.is_null()).map(plain);
        let location = match (text("location"), text("space")) {
            (Some(l), Some(sp)) => format!("{l} ({sp})"),
            (Some(l), None) => l,
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td></tr>",
            E(&text("flag").unwrap_or_default()),
            E(&text("kind").unwrap_or_else(|| "-".into())),
            side(0),
            side(1),
            E(&location)
        );
    }
    s.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta {
        Meta {
            title: "gpumc check".into(),
            command: "gpumc check x".into(),
            date: "2025-01-01 00:00 UTC".into(),
            wall_s: 1.0,
            facts: vec![],
        }
    }

    fn report(file: &str, verdict: &str, time: f64) -> Value {
        json!({"file": file, "verdict": verdict, "model": "ptx-v7.5", "engine": "explicit",
               "property": "safety", "time_ms": time, "executions": 4,
               "observables": ["P1:r0", "P1:r1"], "states": [[0, 0], [1, 1]]})
    }

    #[test]
    fn one_row_per_test_and_the_totals() {
        let tests = vec![
            report("a.litmus", "PASS", 1.0),
            report("b.litmus", "FAIL", 2.0),
            report("c.litmus", "PASS", 0.5),
            json!({"file": "d.litmus", "verdict": "ERROR", "message": "d.litmus:1:2: syntax"}),
        ];
        let h = page(&meta(), &tests, &|_| None);
        assert_eq!(h.matches("<details class=\"test").count(), 4);
        assert!(h.contains("data-total=\"PASS\"><b>2</b>"));
        assert!(h.contains("data-total=\"FAIL\"><b>1</b>"));
        assert!(h.contains("data-total=\"UNKNOWN\"><b>0</b>"));
        assert!(h.contains("data-total=\"ERROR\"><b>1</b>"));
        assert!(!h.contains("data-total=\"MISSING\""));
        assert!(h.contains("<dt>model</dt><dd>ptx-v7.5</dd>"));
        assert!(h.contains("d.litmus:1:2: syntax"));
        // No suite columns without expectations.
        assert!(!h.contains("data-key=\"agrees\""));
        assert!(h.contains("<h3>Reachable states (2)</h3>"));
    }

    #[test]
    fn suite_rows_show_the_expectation_and_whether_it_agrees() {
        let mut a = report("a.litmus", "PASS", 1.0);
        a["expected"] = json!("PASS");
        a["agrees"] = json!(true);
        let mut b = report("b.litmus", "PASS", 1.0);
        b["expected"] = json!("FAIL");
        b["agrees"] = json!(false);
        let c = json!({"file": "c.litmus", "verdict": "MISSING", "expected": "PASS",
                       "agrees": null, "message": "not found"});
        let h = page(&meta(), &[a, b, c], &|_| None);
        assert!(h.contains("data-key=\"agrees\""));
        assert!(h.contains("data-total=\"agree\"><b>1</b>"));
        assert!(h.contains("data-total=\"disagree\"><b>1</b>"));
        assert!(h.contains("data-total=\"MISSING\"><b>1</b>"));
        assert_eq!(h.matches("<details class=\"test bad\"").count(), 1);
        assert!(h.contains("<option value=\"agrees:no\">"));
        assert!(
            !h.contains("data-key=\"property\""),
            "one property: no column"
        );
    }

    #[test]
    fn a_property_column_when_rows_ask_different_questions() {
        let a = report("k.spvasm", "PASS", 1.0);
        let mut b = report("k.spvasm", "FAIL", 1.0);
        b["property"] = json!("races");
        let h = page(&meta(), &[a, b], &|_| None);
        assert!(h.contains("data-key=\"property\""));
        assert!(h.contains("data-property=\"races\""));
        assert!(h.contains("<dt>property</dt><dd>races, safety</dd>"));
    }

    #[test]
    fn races_show_kind_positions_source_and_an_incomplete_list() {
        let mut t = report("k.ptx", "FAIL", 1.0);
        t["property"] = json!("races");
        t["races"] = json!([{"flag": "dr", "kind": "RAW", "events": [3, 5], "in_witness": true,
            "threads": ["t1@b0", "t0@b0"], "lines": [12, 20], "positions": ["12:2", "20:2"],
            "instrs": ["st.shared.u32 [%rd9], %r3", "ld.shared.u32 %r6, [%rd4]"],
            "source": ["k.cu:5:8", null], "location": "s[4]", "space": "shared"}]);
        t["races_complete"] = json!(false);
        t["races_note"] = json!("the search stopped at --max-races 1");
        let h = page(&meta(), &[t], &|_| None);
        assert!(h.contains("<th>kind</th>"));
        assert!(h.contains("<td>RAW</td>"));
        assert!(h.contains("t1@b0 12:2 <code>st.shared.u32 [%rd9], %r3</code><br><span class=\"mono\">k.cu:5:8</span>"));
        // No source for the second side: nothing after its instruction.
        assert!(h.contains("t0@b0 20:2 <code>ld.shared.u32 %r6, [%rd4]</code></td>"));
        assert!(h.contains("s[4] (shared)"));
        assert!(h.contains("Not every racing pair is listed: the search stopped at --max-races 1."));
        // Shown in their place, not again among the unknown fields.
        assert_eq!(h.matches("races_note").count(), 0);
    }

    #[test]
    fn names_instructions_and_messages_cannot_inject_markup() {
        let evil = "<script>document.body.dataset.pwned=1</script>";
        let mut t = report(&format!("{evil}.litmus"), "FAIL", 1.0);
        t["message"] = json!(format!("bad {evil}"));
        t["observables"] = json!([format!("P0:{evil}")]);
        t["witness"] = json!({"events": [{"id": 0, "thread": evil, "line": 3,
            "instr": "<img src=x onerror=alert(1)>", "kind": "W", "location": "x\"y", "value": 1}],
            "rf": [], "co": [[0, 0]], "state": [[evil, 1]], "inputs": {evil: 2}});
        t["races"] = json!([{"flag": evil, "threads": [evil, "P1"], "lines": [1, 2],
            "instrs": [evil, "st x"], "location": evil, "kind": evil, "space": evil,
            "positions": [evil, "2:1"], "source": [evil, null]}]);
        t["races_note"] = json!(evil);
        t["races_complete"] = json!(false);
        t["liveness"] = json!({"description": evil});
        t["condition"] = json!(evil);
        t["some_new_field"] = json!(evil);
        let h = page(&meta(), &[t], &|_| None);
        assert_eq!(
            h.matches("<script").count(),
            1,
            "only the page's own script"
        );
        assert!(!h.contains("<img"));
        assert!(h.contains("&lt;script&gt;document.body.dataset.pwned=1&lt;/script&gt;"));
        assert!(h.contains("x&quot;y"));
    }

    #[test]
    fn optional_fields_are_read_defensively() {
        // Absent, null and oddly shaped fields: shown or skipped, no panic.
        let odd = json!({"file": 3, "verdict": null, "states": "many", "witness": [1],
            "races": {"x": 1}, "time_ms": "slow", "executions": -1,
            "condition": {"quantifier": "exists"}, "observation": "Sometimes",
            "positive": 2, "negative": 5});
        let h = page(&meta(), &[odd, json!(null), json!({})], &|_| None);
        assert_eq!(h.matches("<details class=\"test").count(), 3);
        assert!(h.contains("Sometimes, positive 2, negative 5"));
        assert!(h.contains("{&quot;quantifier&quot;:&quot;exists&quot;}"));
    }

    #[test]
    fn the_graph_hook_fills_the_slot() {
        let t = report("a.litmus", "PASS", 1.0);
        let h = page(&meta(), std::slice::from_ref(&t), &|v| {
            Some(format!(
                "<svg data-for=\"{}\"></svg>",
                esc(v["file"].as_str()?)
            ))
        });
        assert!(h.contains("<figure class=\"graph\"><svg data-for=\"a.litmus\"></svg></figure>"));
        let h = page(&meta(), &[t], &super::super::no_graph);
        assert!(!h.contains("<figure class=\"graph\">"));
    }
}
