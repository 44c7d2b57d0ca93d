//! The page of `gpumc run --html`: one row per test from its hardware
//! report (`campaign::report::TestReport` as JSON), each expanding to the
//! outcome histogram drawn by `histogram.rs`, the condition and
//! observation, the states the model allows but the run never showed, and
//! everything needed to repeat the run (backend, device, preset, seed,
//! parameters).

use super::escape::E;
use super::histogram;
use super::table::{self, Cell, Column, Filter, Row};
use super::{distinct, Meta};
use serde_json::Value;
use std::fmt::Write;

const STATUSES: [(&str, &str); 4] = [
    ("ok", "conform"),
    ("violation", "violation"),
    ("unsupported", "unsupported"),
    ("error", "error"),
];

pub fn page(meta: &Meta, tests: &[Value]) -> String {
    let col = |key, label, numeric, width| Column {
        key,
        label,
        numeric,
        width,
    };
    let columns = [
        col("file", "test", false, "minmax(14em,1fr)"),
        col("status", "status", false, "6.5em"),
        col("condition", "condition", false, "5.5em"),
        col("instances", "instances", true, "6.5em"),
        col("states", "states", true, "4em"),
        col("violations", "violations", true, "5.5em"),
        col("rate", "instances/s", true, "7em"),
        col("time", "time (s)", true, "5em"),
        col("outcomes", "outcomes", true, "9em"),
    ];
    let prefix = super::common_dir(tests);
    let rows: Vec<Row> = tests.iter().map(|t| row(t, &prefix)).collect();
    let status = |t: &Value| str_of(t, "status").unwrap_or("error").to_string();
    let totals = STATUSES
        .iter()
        .map(|(k, label)| super::page::Total {
            key: (*k).into(),
            label: (*label).into(),
            count: tests.iter().filter(|t| status(t) == *k).count(),
        })
        .collect();
    let mut filters: Vec<Filter> = STATUSES
        .iter()
        .filter(|(k, _)| tests.iter().any(|t| status(t) == *k))
        .map(|(k, label)| Filter {
            tag: format!("status:{k}"),
            label: (*label).into(),
        })
        .collect();
    for (v, label) in [
        ("yes", "condition validated"),
        ("no", "condition not validated"),
    ] {
        filters.push(Filter {
            tag: format!("validated:{v}"),
            label: label.into(),
        });
    }
    let mut facts = vec![("command".to_string(), meta.command.clone())];
    for (k, one, many) in [
        ("model", "model", "models"),
        ("backend", "backend", "backends"),
        ("device", "device", "devices"),
        ("preset", "preset", "presets"),
    ] {
        let v = distinct(tests, k);
        if !v.is_empty() {
            facts.push((
                if v.len() == 1 { one } else { many }.to_string(),
                v.join(", "),
            ));
        }
    }
    let seeds = distinct_num(tests, "seed");
    if !seeds.is_empty() {
        facts.push(("seed".into(), seeds.join(", ")));
    }
    let launches = distinct_num(tests, "iterations");
    if !launches.is_empty() {
        facts.push(("launches per test".into(), launches.join(", ")));
    }
    let instances: u64 = tests.iter().map(histogram::total).sum();
    facts.push(("instances".into(), instances.to_string()));
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

fn str_of<'a>(t: &'a Value, k: &str) -> Option<&'a str> {
    t.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn distinct_num(tests: &[Value], k: &str) -> Vec<String> {
    let mut v: Vec<String> = tests
        .iter()
        .filter(|t| str_of(t, "status").is_some_and(|s| s == "ok" || s == "violation"))
        .filter_map(|t| t.get(k).and_then(Value::as_u64))
        .map(|x| x.to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

fn row(t: &Value, prefix: &str) -> Row {
    let file = str_of(t, "file").unwrap_or("?");
    let status = str_of(t, "status").unwrap_or("error");
    let validated = t.get("validated").and_then(Value::as_bool);
    let total = histogram::total(t);
    let ran = matches!(status, "ok" | "violation");
    let violations: u64 = t
        .get("violations")
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(|x| x.get("count").and_then(Value::as_u64))
                .sum()
        })
        .unwrap_or(0);
    let states = t.get("histogram").and_then(Value::as_array).map(Vec::len);
    let rate = t.get("rate_per_s").and_then(Value::as_f64);
    let time = t.get("elapsed_s").and_then(Value::as_f64);
    let (strip, bad_share) = histogram::strip(t);
    let num = |x: Option<f64>, shown: String| {
        if ran {
            Cell::num(x, &shown)
        } else {
            Cell::num(None, "–")
        }
    };
    let cells = vec![
        Cell::file(file, prefix),
        Cell::word(status),
        // Neither good nor bad: `exists` tests hope for a yes, `~exists` ones
        // are validated when the weak outcome never shows.
        Cell::text(match validated {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        }),
        num(Some(total as f64), total.to_string()),
        num(
            states.map(|x| x as f64),
            states.map_or("–".into(), |x| x.to_string()),
        ),
        num(Some(violations as f64), violations.to_string()),
        num(rate, rate.map_or("–".into(), |r| format!("{r:.0}"))),
        num(time, time.map_or("–".into(), |s| format!("{s:.2}"))),
        Cell::html(
            strip,
            if bad_share.is_finite() {
                bad_share.to_string()
            } else {
                String::new()
            },
        ),
    ];
    let mut tags = vec![format!("status:{status}")];
    if let Some(v) = validated {
        tags.push(format!("validated:{}", if v { "yes" } else { "no" }));
    }
    let search = [
        file,
        str_of(t, "name").unwrap_or(""),
        status,
        str_of(t, "message").unwrap_or(""),
    ]
    .join(" ");
    Row {
        cells,
        tags,
        search,
        bad: status == "violation",
        body: body(t),
    }
}

fn body(t: &Value) -> String {
    let mut s = String::new();
    if let Some(m) = str_of(t, "message") {
        let _ = writeln!(s, "<p class=\"mono\">{}</p>", E(m));
    }
    let chart = histogram::chart(t);
    if !chart.is_empty() {
        let _ = writeln!(
            s,
            "<h3>Outcomes ({} observed)</h3>\n{chart}",
            match t
                .get("histogram")
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
            {
                1 => "1 state".to_string(),
                n => format!("{n} states"),
            }
        );
    }
    s.push_str("<dl>\n");
    let mut fact = |k: &str, v: String| {
        let _ = writeln!(s, "<dt>{}</dt><dd>{v}</dd>", E(k));
    };
    if let Some(n) = str_of(t, "name") {
        fact("test", E(n).to_string());
    }
    if let Some(f) = str_of(t, "file") {
        fact("file", format!("<code>{}</code>", E(f)));
    }
    if let Some(c) = str_of(t, "condition") {
        let v = match t.get("validated").and_then(Value::as_bool) {
            Some(true) => " — validated",
            Some(false) => " — NOT validated",
            None => "",
        };
        fact("condition", format!("<code>{}</code>{v}", E(c)));
    }
    if let Some(o) = t.get("observation").filter(|o| o.is_object()) {
        let n = |k: &str| o.get(k).and_then(Value::as_u64).unwrap_or(0);
        fact(
            "observation",
            format!(
                "{} (positive {}, negative {})",
                E(o.get("kind").and_then(Value::as_str).unwrap_or("?")),
                n("positive"),
                n("negative")
            ),
        );
    }
    if let Some(m) = str_of(t, "model") {
        fact("model", E(m).to_string());
    }
    if let Some(v) = t.get("violations").and_then(Value::as_array) {
        if !v.is_empty() {
            let list: Vec<String> = v
                .iter()
                .map(|x| {
                    format!(
                        "{} ×{}",
                        x.get("state").and_then(Value::as_str).unwrap_or("?"),
                        x.get("count").and_then(Value::as_u64).unwrap_or(0)
                    )
                })
                .collect();
            fact(
                "violations",
                format!("<code>{}</code>", E(&list.join(" | "))),
            );
        }
    }
    if let Some(u) = t.get("forbidden_unseen").and_then(Value::as_array) {
        if !u.is_empty() {
            let list: Vec<String> = u
                .iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect();
            fact(
                "forbidden, never observed",
                format!("<code>{}</code>", E(&list.join(" | "))),
            );
        }
    }
    if let Some(u) = t.get("unseen").and_then(Value::as_array) {
        if !u.is_empty() {
            let list: Vec<String> = u
                .iter()
                .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                .collect();
            let complete = t.get("unseen_complete").and_then(Value::as_bool) == Some(true);
            fact(
                "allowed, not observed",
                format!(
                    "<code>{}</code>{}",
                    E(&list.join(" | ")),
                    if complete {
                        ""
                    } else {
                        " <span class=\"note\">(among the states found within the loop bound)</span>"
                    }
                ),
            );
        }
    }
    for (k, label) in [
        ("undefined", "instances in undefined states"),
        ("undecided", "instances the model could not decide"),
        ("filtered", "instances excluded by the filter"),
        ("unfinished", "instances that did not finish"),
        ("out_of_bounds", "instances out of bounds"),
        ("lost", "instances lost"),
    ] {
        if let Some(n) = t.get(k).and_then(Value::as_u64).filter(|n| *n > 0) {
            fact(label, n.to_string());
        }
    }
    let u = |k: &str| t.get(k).and_then(Value::as_u64);
    if let (Some(i), Some(n)) = (u("iterations"), u("instances")) {
        if i > 0 {
            fact(
                "run",
                format!(
                    "{i} launches × {n} instances in {:.2} s ({:.0} instances/s{})",
                    t.get("elapsed_s").and_then(Value::as_f64).unwrap_or(0.0),
                    t.get("rate_per_s").and_then(Value::as_f64).unwrap_or(0.0),
                    t.get("device_time_s")
                        .and_then(Value::as_f64)
                        .map(|d| format!("; device time {d:.3} s"))
                        .unwrap_or_default()
                ),
            );
        }
    }
    if let (Some(b), Some(d)) = (str_of(t, "backend"), str_of(t, "device")) {
        fact("device", format!("{} ({})", E(d), E(b)));
    }
    if let Some(p) = str_of(t, "preset") {
        fact("preset", E(p).to_string());
    }
    if let (Some(seed), true) = (u("seed"), str_of(t, "backend").is_some()) {
        fact(
            "seed",
            format!("{seed} (<code>--seed {seed}</code> repeats the harness's choices)"),
        );
    }
    s.push_str("</dl>\n");
    if let Some(p) = t.get("params").and_then(Value::as_object) {
        s.push_str("<h3>Parameters</h3>\n<div class=\"params mono\">");
        for (k, v) in p {
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            let _ = write!(s, "<span><b>{}</b>={}</span>", E(k), E(&v));
        }
        s.push_str("</div>\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Meta {
        Meta {
            title: "gpumc run".into(),
            command: "gpumc run --backend interp x".into(),
            date: "2025-01-01 00:00 UTC".into(),
            wall_s: 1.0,
            facts: vec![],
        }
    }

    fn ran(name: &str, status: &str, forbidden: u64) -> Value {
        json!({"file": format!("{name}.litmus"), "name": name, "status": status,
            "backend": "interp", "device": "ref", "model": "vulkan", "iterations": 2,
            "instances": 50, "histogram": [
                {"state": "r0=0;", "values": [0], "count": 100 - forbidden, "allowed": true,
                 "judgement": "allowed", "condition": false},
                {"state": "r0=1;", "values": [1], "count": forbidden, "allowed": false,
                 "judgement": "forbidden", "condition": true}],
            "violations": [{"state": "r0=1;", "count": forbidden}],
            "undefined": 0, "undecided": 0, "filtered": 0, "unfinished": 0, "out_of_bounds": 0,
            "lost": 0, "unseen": [], "unseen_complete": true,
            "observation": {"kind": "Sometimes", "positive": forbidden, "negative": 100 - forbidden},
            "condition": "exists (r0 == 1)", "validated": forbidden > 0, "rate_per_s": 1000.0,
            "elapsed_s": 0.1, "device_time_s": null, "preset": "parallel",
            "params": {"workgroup_size": 64}, "seed": 7})
    }

    #[test]
    fn rows_totals_and_histograms() {
        let tests = [
            ran("a", "ok", 0),
            ran("b<i>", "violation", 20),
            json!({"file": "c.litmus", "status": "unsupported", "message": "no <barrier>"}),
        ];
        let h = page(&meta(), &tests);
        assert_eq!(h.matches("<details class=\"test").count(), 3);
        assert!(h.contains("data-total=\"ok\"><b>1</b>"));
        assert!(h.contains("data-total=\"violation\"><b>1</b>"));
        assert!(h.contains("data-total=\"unsupported\"><b>1</b>"));
        assert!(h.contains("data-total=\"error\"><b>0</b>"));
        assert!(h.contains("<dt>backend</dt><dd>interp</dd>"));
        assert!(h.contains("<dt>seed</dt><dd>7</dd>"));
        assert!(h.contains("<dt>instances</dt><dd>200</dd>"));
        assert!(h.contains("data-judgement=\"forbidden\" data-count=\"20\""));
        assert!(h.contains("20 (20.00%)"));
        assert!(h.contains("no &lt;barrier&gt;"));
        assert!(h.contains("b&lt;i&gt;.litmus"));
        assert!(!h.contains("<i>"));
        assert!(h.contains("<span><b>workgroup_size</b>=64</span>"));
        assert_eq!(h.matches("<details class=\"test bad\"").count(), 1);
        assert!(h.contains("data-outcomes=\"20\""));
    }
}
