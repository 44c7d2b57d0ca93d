//! The outcome histogram of one hardware run (`gpumc run`) as inline SVG
//! bars drawn here: one bar per observed state, coloured by the model's
//! judgement (allowed, forbidden = a violation, undefined, undecided),
//! then the instances without a judged state (excluded by the filter, did
//! not finish, out of bounds, lost), then the states the model allows that
//! were never observed. Counts and percentages of all instances are
//! written beside each bar; a state that satisfies the test's condition is
//! marked `*` (litmus7's `*>`).

use super::escape::{esc, E};
use serde_json::Value;
use std::fmt::Write;

/// One bar.
pub struct Bar {
    pub label: String,
    pub count: u64,
    /// CSS class suffix: allowed, forbidden, undefined, undecided,
    /// filtered, unseen.
    pub kind: &'static str,
    /// What the kind means, in words.
    pub judgement: String,
    pub condition: bool,
}

/// The class of a histogram entry's judgement (`campaign::report::Entry`).
fn kind_of(entry: &Value) -> &'static str {
    let j = entry.get("judgement").and_then(Value::as_str).unwrap_or("");
    match j {
        "allowed" => "allowed",
        "forbidden" => "forbidden",
        "filtered" => "filtered",
        "undecided" => "undecided",
        _ if j.starts_with("undefined") => "undefined",
        _ => match entry.get("allowed").and_then(Value::as_bool) {
            Some(true) => "allowed",
            Some(false) => "forbidden",
            None => "undecided",
        },
    }
}

fn count(t: &Value, k: &str) -> u64 {
    t.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// Every instance counted (`TestReport::total`).
pub fn total(t: &Value) -> u64 {
    let hist: u64 = t
        .get("histogram")
        .and_then(Value::as_array)
        .map(|h| h.iter().map(|e| count(e, "count")).sum())
        .unwrap_or(0);
    hist + ["filtered", "unfinished", "out_of_bounds", "lost"]
        .iter()
        .map(|k| count(t, k))
        .sum::<u64>()
}

/// The bars of a test's report, in the order they are drawn.
pub fn bars(t: &Value) -> Vec<Bar> {
    let model = t
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("the model");
    let mut out = Vec::new();
    for e in t
        .get("histogram")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = kind_of(e);
        out.push(Bar {
            label: e
                .get("state")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            count: count(e, "count"),
            kind,
            judgement: match kind {
                "forbidden" => format!("forbidden by {model}: a violation"),
                _ => e
                    .get("judgement")
                    .and_then(Value::as_str)
                    .unwrap_or(kind)
                    .to_string(),
            },
            condition: e.get("condition").and_then(Value::as_bool) == Some(true),
        });
    }
    for (k, label, kind) in [
        ("filtered", "(excluded by the filter)", "filtered"),
        ("unfinished", "(did not finish)", "filtered"),
        ("out_of_bounds", "(indexed out of bounds)", "undefined"),
        ("lost", "(lost: a thread never reported)", "filtered"),
    ] {
        let n = count(t, k);
        if n > 0 {
            out.push(Bar {
                label: label.into(),
                count: n,
                kind,
                judgement: label.trim_matches(|c| c == '(' || c == ')').into(),
                condition: false,
            });
        }
    }
    for s in t
        .get("unseen")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(Bar {
            label: s.as_str().map_or_else(|| s.to_string(), str::to_string),
            count: 0,
            kind: "unseen",
            judgement: format!("allowed by {model}, not observed"),
            condition: false,
        });
    }
    out
}

/// Labels longer than this are cut (the full text is the bar's tooltip).
const LABEL_CHARS: usize = 60;
/// Width of one character of the 12px monospace labels.
const CHAR_W: f64 = 7.3;
const ROW: f64 = 21.0;
const BAR_W: f64 = 340.0;

fn pct(n: u64, total: u64) -> String {
    if total == 0 {
        return "–".into();
    }
    let p = 100.0 * n as f64 / total as f64;
    if p > 0.0 && p < 0.01 {
        "<0.01%".into()
    } else {
        format!("{p:.2}%")
    }
}

/// The histogram as an SVG bar chart with its legend ("" when there is
/// nothing to draw).
pub fn chart(t: &Value) -> String {
    let bars = bars(t);
    if bars.is_empty() {
        return String::new();
    }
    let total = total(t);
    let max = bars.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let label = |b: &Bar| {
        let mark = if b.condition { "* " } else { "  " };
        let text: String = if b.label.chars().count() > LABEL_CHARS {
            b.label.chars().take(LABEL_CHARS - 1).collect::<String>() + "…"
        } else {
            b.label.clone()
        };
        format!("{mark}{text}")
    };
    let label_w = bars
        .iter()
        .map(|b| label(b).chars().count())
        .max()
        .unwrap_or(0) as f64
        * CHAR_W
        + 12.0;
    let width = label_w + BAR_W + 150.0;
    let height = ROW * bars.len() as f64 + 6.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg class=\"hist\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" role=\"img\" aria-label=\"outcome histogram\">"
    );
    for (i, b) in bars.iter().enumerate() {
        let y = 3.0 + ROW * i as f64;
        let w = if b.count == 0 {
            0.0
        } else {
            (BAR_W * b.count as f64 / max as f64).max(2.0)
        };
        let _ = writeln!(
            s,
            "<g class=\"bar\" data-judgement=\"{kind}\" data-count=\"{n}\"><title>{title}</title>\
             <text x=\"{tx:.1}\" y=\"{ty:.1}\">{lab}</text>\
             <rect class=\"j-{kind}\" x=\"{label_w:.1}\" y=\"{ry:.1}\" width=\"{rw:.1}\" height=\"15\" rx=\"2\"></rect>\
             <text class=\"pct\" x=\"{px:.1}\" y=\"{ty:.1}\">{n} ({p})</text></g>",
            kind = b.kind,
            n = b.count,
            title = E(&format!(
                "{} — {}: {} ({})",
                b.label,
                b.judgement,
                b.count,
                pct(b.count, total)
            )),
            tx = 4.0,
            ty = y + 13.0,
            lab = E(&label(b)),
            ry = y + 1.5,
            rw = if b.kind == "unseen" { 8.0 } else { w },
            px = label_w + w.max(if b.kind == "unseen" { 8.0 } else { 0.0 }) + 6.0,
            p = pct(b.count, total),
        );
    }
    s.push_str("</svg>\n");
    s.push_str("<div class=\"legend\">");
    let mut seen: Vec<&str> = Vec::new();
    for b in &bars {
        if !seen.contains(&b.kind) {
            seen.push(b.kind);
        }
    }
    for (kind, words) in [
        ("allowed", "allowed by the model"),
        ("forbidden", "forbidden: a violation"),
        ("undefined", "undefined behaviour"),
        ("undecided", "undecided"),
        ("filtered", "no judged state"),
        ("unseen", "allowed, never observed"),
    ] {
        if seen.contains(&kind) {
            let _ = write!(s, "<i class=\"j-{kind}\"></i>{}", esc(words));
        }
    }
    if bars.iter().any(|b| b.condition) {
        s.push_str(" &nbsp; * satisfies the condition");
    }
    let _ = writeln!(s, " &nbsp; ({total} instances)</div>");
    s
}

/// A thin stacked bar of the same outcomes for the table row; its sort
/// key is the share of instances in states the model does not allow.
pub fn strip(t: &Value) -> (String, f64) {
    let bars = bars(t);
    let total = total(t);
    if total == 0 {
        return (String::new(), f64::NAN);
    }
    let mut s = String::from(
        "<svg class=\"strip\" viewBox=\"0 0 1000 10\" preserveAspectRatio=\"none\" aria-hidden=\"true\">",
    );
    let mut x = 0.0;
    let mut bad = 0u64;
    for b in bars.iter().filter(|b| b.count > 0) {
        let w = 1000.0 * b.count as f64 / total as f64;
        let _ = write!(
            s,
            "<rect class=\"j-{}\" x=\"{x:.2}\" y=\"0\" width=\"{w:.2}\" height=\"10\"></rect>",
            b.kind
        );
        x += w;
        if matches!(b.kind, "forbidden" | "undefined") {
            bad += b.count;
        }
    }
    s.push_str("</svg>");
    (s, 100.0 * bad as f64 / total as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({"model": "vulkan", "histogram": [
            {"state": "P1:r0=0; P1:r1=0;", "count": 30, "judgement": "allowed", "allowed": true, "condition": false},
            {"state": "P1:r0=1; P1:r1=0;", "count": 10, "judgement": "forbidden", "allowed": false, "condition": true},
            {"state": "P1:r0=<b>;", "count": 5, "judgement": "undefined (data race)", "allowed": false, "condition": false}],
            "filtered": 5, "unfinished": 0, "out_of_bounds": 0, "lost": 0,
            "unseen": ["P1:r0=1; P1:r1=1;"]})
    }

    #[test]
    fn bars_follow_the_judgements_and_counts() {
        let t = report();
        assert_eq!(total(&t), 50);
        let b = bars(&t);
        let kinds: Vec<&str> = b.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            ["allowed", "forbidden", "undefined", "filtered", "unseen"]
        );
        let c = chart(&t);
        assert!(c.contains("data-judgement=\"forbidden\" data-count=\"10\""));
        assert!(c.contains("10 (20.00%)"));
        assert!(c.contains("30 (60.00%)"));
        assert!(c.contains("* P1:r0=1; P1:r1=0;"));
        assert!(c.contains("P1:r0=&lt;b&gt;;"));
        assert!(!c.contains("<b>"));
        // The longest bar is the most frequent state.
        assert!(c.contains("width=\"340.0\""));
        assert!(c.contains("forbidden: a violation"));
        let (strip, bad) = strip(&t);
        assert_eq!(bad, 30.0);
        assert_eq!(strip.matches("<rect").count(), 4);
    }

    #[test]
    fn an_empty_report_draws_nothing() {
        assert_eq!(chart(&json!({})), "");
        assert!(strip(&json!({"histogram": "x"})).1.is_nan());
        assert_eq!(pct(1, 100_000), "<0.01%");
    }
}
