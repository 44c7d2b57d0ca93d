//! `gpumc results`: the results database (`campaign::store`) — import
//! earlier `gpumc run --json` results, sum them per device, family or
//! test, compare devices on an HTML page.

use gpumc_campaign::store::{By, Provenance, Store};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ResultsArgs {
    /// The database (SQLite, created if absent).
    #[arg(long, default_value = "gpumc-results.db", value_name = "FILE")]
    db: PathBuf,
    /// Add the results of JSON-lines files first (`gpumc run --json`
    /// output, or a campaign's `results.jsonl`); repeatable.
    #[arg(long, value_name = "FILE")]
    import: Vec<PathBuf>,
    /// The driver of imported results (their JSON does not say).
    #[arg(long, default_value = "unknown")]
    driver: String,
    /// The date of imported results (default: now).
    #[arg(long)]
    date: Option<String>,
    /// Rows per `device`, `family` (of the tests' names: MP, SB, …) or
    /// `test`, each per device.
    #[arg(long, default_value = "device")]
    by: String,
    /// Only this test or family.
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
    /// One JSON object per row.
    #[arg(long)]
    json: bool,
    /// Also write an HTML page comparing the devices (a row per test or
    /// family, a column per device).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

pub fn run(a: &ResultsArgs) -> u8 {
    let fail = |e: String| {
        eprintln!("gpumc: {e}");
        2
    };
    let by = match a.by.as_str() {
        "device" => By::Device,
        "family" => By::Family,
        "test" => By::Test,
        other => return fail(format!("--by {other}: expected device, family or test")),
    };
    let html = match a.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return fail(e),
    };
    let start = std::time::Instant::now();
    let mut store = match Store::open(&a.db) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let date = a.date.clone().unwrap_or_else(gpumc::html::utc_now);
    // (a closed pipe ends the output, not the program)
    let mut out = std::io::stdout().lock();
    for f in &a.import {
        let source = f.display().to_string();
        let from = Provenance {
            driver: &a.driver,
            date: &date,
            source: &source,
        };
        match store.import(f, &from) {
            Ok(n) if !a.json => {
                let _ = writeln!(out, "{source}: {n} runs imported");
            }
            Ok(_) => {}
            Err(e) => return fail(e),
        }
    }
    let rows = match store.summary(by, a.only.as_deref()) {
        Ok(r) => r,
        Err(e) => return fail(format!("{}: {e}", a.db.display())),
    };
    if a.json {
        for r in &rows {
            let _ = writeln!(out, "{}", serde_json::to_string(r).unwrap_or_default());
        }
    } else {
        let dev_w = rows
            .iter()
            .map(|r| r.device.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let grp_w = rows
            .iter()
            .map(|r| r.group.len())
            .max()
            .unwrap_or(0)
            .max(match by {
                By::Device => 0,
                By::Family => 6,
                By::Test => 4,
            });
        let _ = writeln!(
            out,
            "{:<dev_w$}  {:<grp_w$}  {:>6} {:>10} {:>9} {:>8} {:>10}",
            "device",
            match by {
                By::Device => "",
                By::Family => "family",
                By::Test => "test",
            },
            "runs",
            "instances",
            "weak",
            "weak %",
            "forbidden"
        );
        for r in &rows {
            let _ = writeln!(
                out,
                "{:<dev_w$}  {:<grp_w$}  {:>6} {:>10} {:>9} {:>8.3} {:>10}",
                r.device,
                r.group,
                r.runs,
                r.instances,
                r.weak,
                100.0 * r.weak_rate,
                r.violations
            );
        }
        if rows.is_empty() {
            let _ = writeln!(out, "(no runs in {})", a.db.display());
        }
    }
    if let (Some(file), Some(path)) = (html, &a.html) {
        // The page compares devices per test (or family).
        let (page_by, what) = match by {
            By::Family => (By::Family, "family"),
            _ => (By::Test, "test"),
        };
        let rows = match store.summary(page_by, a.only.as_deref()) {
            Ok(r) => r,
            Err(e) => return fail(e),
        };
        let meta = gpumc::html::Meta::now("gpumc results", start.elapsed().as_secs_f64());
        if let Err(e) =
            gpumc::html::finish(file, path, &gpumc::html::results_report(&meta, &rows, what))
        {
            return fail(e);
        }
    }
    0
}
