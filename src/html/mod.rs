//! Self-contained HTML reports: `gpumc check|suite|run … --html FILE`.
//!
//! One file with its CSS and script inline and nothing fetched (docs/REPORTS.md).
//! The pages are built from the JSON object each test's report already is
//! — `report::json` for `check`/`suite` (with `expected`/`agrees` added
//! by `suite`), `campaign::report::TestReport` for `run` — so they show
//! what `--json` shows, and read every field defensively.
//!
//! * [`verify_report`]: the `check`/`suite` page; its `graph` hook may
//!   return an SVG execution graph per test (placed in the expanded row).
//! * [`run_report`]: the `run` page, with a bar chart of each outcome
//!   histogram coloured by the model's judgement.
//!
//! Layout: `page.rs` (document, CSS, script), `table.rs` (sortable,
//! filterable rows), `verify.rs`, `run.rs`, `histogram.rs` (SVG bars),
//! `escape.rs` (every report string is escaped).

mod escape;
mod histogram;
mod page;
mod results;
mod run;
mod table;
mod verify;

pub use escape::esc;

use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// What ran: the header's facts besides those read from the reports.
pub struct Meta {
    /// `gpumc check`, `gpumc suite`, `gpumc run`.
    pub title: String,
    /// The command line.
    pub command: String,
    /// When the report was written (UTC).
    pub date: String,
    /// Wall-clock time of the whole command, seconds.
    pub wall_s: f64,
    /// Further facts (label, text), e.g. the expectations CSV.
    pub facts: Vec<(String, String)>,
}

impl Meta {
    /// `title` with this process's command line and the current date.
    pub fn now(title: &str, wall_s: f64) -> Meta {
        Meta {
            title: title.to_string(),
            command: command_line(),
            date: utc_now(),
            wall_s,
            facts: Vec::new(),
        }
    }

    /// Date, version, test count and wall time, after the page's own facts.
    fn common_facts(&self, tests: usize) -> Vec<(String, String)> {
        vec![
            ("date".into(), self.date.clone()),
            ("gpumc version".into(), env!("CARGO_PKG_VERSION").into()),
            ("tests".into(), tests.to_string()),
            ("wall time".into(), format!("{:.2} s", self.wall_s)),
        ]
    }
}

/// The `check`/`suite` page. `tests`: one report JSON object per test, in
/// the order the command printed them. `graph`: an SVG execution graph for
/// a test, or `None` (pass [`no_graph`] for none); its SVG is written as
/// is, so it must come from our own code with its text escaped.
pub fn verify_report(
    meta: &Meta,
    tests: &[Value],
    graph: &dyn Fn(&Value) -> Option<String>,
) -> String {
    verify::page(meta, tests, graph)
}

/// The graph hook that draws no graph.
pub fn no_graph(_: &Value) -> Option<String> {
    None
}

/// The graph hook that draws each test's execution graph (the witness, or
/// a forbidden outcome's rejected candidate with the violated axiom's
/// cycle) with gpumc's own SVG layout (`report::graph`). The report must
/// have been checked with a graph request ([`graph_request`]) for the
/// picture to carry tags, scopes and the cycle. Each SVG gets its own id
/// prefix, since one page holds many.
pub fn execution_graphs() -> impl Fn(&Value) -> Option<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    move |v: &Value| {
        let r: crate::driver::FileReport = serde_json::from_value(v.clone()).ok()?;
        let d = crate::report::graph::drawings(&r, false)
            .into_iter()
            .next()?;
        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut o = d.options;
        o.id_prefix = format!("t{k}-");
        Some(crate::report::graph::svg(&d.witness, &o))
    }
}

/// What the engines record for the page's execution graphs: the witness
/// (or rejected candidate) with its tags, scopes and violated cycle.
pub fn graph_request() -> crate::engine::witness::GraphRequest {
    crate::engine::witness::GraphRequest {
        relations: vec![],
        all: false,
        max: 1,
        full: false,
    }
}

/// The `run` page. `tests`: one `TestReport` JSON object per test.
pub fn run_report(meta: &Meta, tests: &[Value]) -> String {
    run::page(meta, tests)
}

/// The `gpumc results --html` page: the database's rows (by test or
/// family, per device) as one table with a column per device.
pub fn results_report(meta: &Meta, rows: &[gpumc_campaign::store::Row], what: &str) -> String {
    results::page(meta, rows, what)
}

/// Opens the report file before the work starts, so that a path that
/// cannot be written is a usage error at once, not after a long run.
pub fn create(path: &Path) -> Result<std::fs::File, String> {
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes the page into the file [`create`] opened.
pub fn finish(mut file: std::fs::File, path: &Path, html: &str) -> Result<(), String> {
    file.write_all(html.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The distinct non-empty string values of field `k`, sorted.
fn distinct(tests: &[Value], k: &str) -> Vec<String> {
    let mut v: Vec<String> = tests
        .iter()
        .filter_map(|t| t.get(k).and_then(Value::as_str))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The directory prefix (ending in `/`) every test's `file` shares, so
/// the table can show the rest; "" when there is none or a single test.
fn common_dir(tests: &[Value]) -> String {
    let files: Vec<&str> = tests
        .iter()
        .filter_map(|t| t.get("file").and_then(Value::as_str))
        .collect();
    if files.len() < 2 || files.len() != tests.len() {
        return String::new();
    }
    let mut prefix: &str = files[0];
    for f in &files[1..] {
        let n = prefix
            .char_indices()
            .zip(f.chars())
            .find(|((_, a), b)| a != b)
            .map_or(prefix.len().min(f.len()), |((i, _), _)| i);
        prefix = &prefix[..n];
    }
    match prefix.rfind('/') {
        Some(i) => prefix[..=i].to_string(),
        None => String::new(),
    }
}

/// Milliseconds as the table shows them.
fn fmt_ms(ms: f64) -> String {
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else {
        format!("{ms:.2}")
    }
}

/// This process's command line, the program shown as `gpumc`, arguments
/// with spaces or shell characters single-quoted.
pub fn command_line() -> String {
    let mut parts = vec!["gpumc".to_string()];
    for a in std::env::args().skip(1) {
        let plain = !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        parts.push(if plain {
            a
        } else {
            format!("'{}'", a.replace('\'', "'\\''"))
        });
    }
    parts.join(" ")
}

/// The current time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc_text(secs)
}

fn utc_text(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_date(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60
    )
}

/// Year, month, day of a day count since 1970-01-01 (proleptic
/// Gregorian), counting in 400-year eras that start on 1 March.
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of the era, 0..146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of the era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the year from 1 March
    let mp = (5 * doy + 2) / 153; // month from March, 0..11
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = era * 400 + yoe + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_text(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_text(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_text(1_709_251_199), "2024-02-29 23:59 UTC");
        assert_eq!(utc_text(1_735_689_600 + 3_660), "2025-01-01 01:01 UTC");
        assert_eq!(civil_date(-1), (1969, 12, 31));
    }

    #[test]
    fn common_directories() {
        use serde_json::json;
        let t = |f: &[&str]| -> Vec<Value> { f.iter().map(|f| json!({ "file": f })).collect() };
        assert_eq!(common_dir(&t(&["a/b/c.litmus", "a/b/d/e.litmus"])), "a/b/");
        assert_eq!(common_dir(&t(&["a/bc.litmus", "a/bd.litmus"])), "a/");
        assert_eq!(common_dir(&t(&["x.litmus", "y.litmus"])), "");
        assert_eq!(common_dir(&t(&["a/x.litmus"])), "");
        assert_eq!(common_dir(&[json!({"file": "a/x"}), json!({})]), "");
    }

    #[test]
    fn milliseconds() {
        assert_eq!(fmt_ms(0.5), "0.50");
        assert_eq!(fmt_ms(1234.4), "1234");
    }
}
