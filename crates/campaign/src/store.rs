//! The results database: every test run on a device, with its observed
//! outcomes and the model's judgement of each, in one SQLite file
//! (embedded: `rusqlite`'s bundled library, no server), so that a lab can
//! compare devices, drivers and dates (as GPUHarbor's database does,
//! Levine et al., ASPLOS'23).
//!
//! Two tables: `runs`, one row per (test, device, driver, parameters,
//! date) with the run's totals, and `outcomes`, one row per observed final
//! state of a run with its count, the model's judgement and whether it
//! satisfies the test's condition (for a test made from a cycle, the
//! cycle's weak outcome). A run is added from the report `gpumc run`
//! prints (`--json`), directly (`gpumc run --db`) or from earlier JSON
//! results (`gpumc results import`).

use crate::report::{Status, TestReport};
use rusqlite::{params, Connection};
use serde::Serialize;
use std::path::Path;

/// The schema's version (`PRAGMA user_version`).
const VERSION: i64 = 1;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    date TEXT NOT NULL,
    backend TEXT NOT NULL,
    device TEXT NOT NULL,
    driver TEXT NOT NULL,
    test TEXT NOT NULL,
    family TEXT NOT NULL,
    file TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    iterations INTEGER NOT NULL,
    instances INTEGER NOT NULL,
    preset TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    condition TEXT,
    validated INTEGER,
    rate_per_s REAL NOT NULL,
    elapsed_s REAL NOT NULL,
    source TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS outcomes (
    run INTEGER NOT NULL REFERENCES runs(id),
    state TEXT NOT NULL,
    count INTEGER NOT NULL,
    judgement TEXT NOT NULL,
    condition INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS outcomes_run ON outcomes(run);
CREATE INDEX IF NOT EXISTS runs_test ON runs(test, device);
";

/// An open results database.
pub struct Store {
    conn: Connection,
}

/// Where a run came from and when.
#[derive(Clone, Debug)]
pub struct Provenance<'a> {
    /// The device's driver (name and version), or `unknown`.
    pub driver: &'a str,
    /// `YYYY-MM-DD HH:MM UTC`.
    pub date: &'a str,
    /// `gpumc run`, or the file a run was imported from.
    pub source: &'a str,
}

/// What a summary row is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// Backend, device and driver.
    Device,
    /// Test family (the name before its first `+`) and device.
    Family,
    /// Test and device.
    Test,
}

/// One row of a summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The device (`backend device (driver)`).
    pub device: String,
    /// The family or test (empty when grouping by device).
    pub group: String,
    /// Runs (tests run, counting repeats).
    pub runs: u64,
    /// Test instances observed.
    pub instances: u64,
    /// Instances whose final state satisfies the test's condition (for
    /// a test made from a cycle, the weak outcome).
    pub weak: u64,
    /// `weak / instances`.
    pub weak_rate: f64,
    /// Instances in states the model forbids (conformance violations).
    pub violations: u64,
    /// Runs with at least one violation.
    pub violating_runs: u64,
    /// Latest date.
    pub last: String,
}

/// A test's family: its name up to the first `+` (`MP+membar.gls` → MP),
/// the whole name of `2+2W` families kept (`2+2W+…` → 2+2W), without a
/// configuration after `@` (`SB@cta-01_reg-gg` → SB).
pub fn family(test: &str) -> String {
    let test = test.split('@').next().unwrap_or(test);
    let mut parts = test.split('+');
    let first = parts.next().unwrap_or("");
    if first.chars().all(|c| c.is_ascii_digit()) && !first.is_empty() {
        if let Some(second) = parts.next() {
            return format!("{first}+{second}");
        }
    }
    first.to_string()
}

fn err(e: rusqlite::Error) -> String {
    e.to_string()
}

impl Store {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<Store, String> {
        let conn = Connection::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if version > VERSION {
            return Err(format!(
                "{}: a results database of a newer gpumc (schema {version}; this one reads {VERSION})",
                path.display()
            ));
        }
        conn.execute_batch(SCHEMA)
            .and_then(|()| conn.execute_batch(&format!("PRAGMA user_version = {VERSION}")))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Store { conn })
    }

    /// Adds one run (a test's report); returns its id.
    pub fn add(&mut self, r: &TestReport, from: &Provenance) -> Result<i64, String> {
        let tx = self.conn.transaction().map_err(err)?;
        let status = match r.status {
            Status::Ok => "ok",
            Status::Violation => "violation",
            Status::Unsupported => "unsupported",
            Status::Error => "error",
        };
        tx.execute(
            "INSERT INTO runs (date, backend, device, driver, test, family, file, model, status,
                 iterations, instances, preset, params, seed, condition, validated, rate_per_s,
                 elapsed_s, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
            params![
                from.date,
                r.backend,
                r.device,
                from.driver,
                r.name,
                family(&r.name),
                r.file,
                r.model,
                status,
                r.iterations as i64,
                r.instances as i64,
                r.preset,
                serde_json::to_string(&r.params).unwrap_or_default(),
                r.seed as i64,
                r.condition,
                r.validated,
                r.rate_per_s,
                r.elapsed_s,
                from.source,
            ],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        for e in &r.histogram {
            tx.execute(
                "INSERT INTO outcomes (run, state, count, judgement, condition) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, e.state, e.count as i64, e.judgement, e.condition],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(id)
    }

    /// Adds every report of a JSON-lines file (`gpumc run --json`, a
    /// campaign's `results.jsonl`); returns how many. A line that is not
    /// a report is an error naming its line.
    pub fn import(&mut self, path: &Path, from: &Provenance) -> Result<usize, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut n = 0;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            // A campaign journal's lines hold the report under `report`
            // (null in the line that marks a test as started).
            let value: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), i + 1))?;
            let report = match (value.get("key"), value.get("report")) {
                (Some(_), Some(serde_json::Value::Null)) => continue,
                (Some(_), Some(r)) => r.clone(),
                _ => value,
            };
            let r: TestReport = serde_json::from_value(report).map_err(|e| {
                format!(
                    "{}:{}: not a `gpumc run` report: {e}",
                    path.display(),
                    i + 1
                )
            })?;
            self.add(&r, from)?;
            n += 1;
        }
        Ok(n)
    }

    /// Runs in the database.
    pub fn runs(&self) -> Result<u64, String> {
        self.conn
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(err)
    }

    /// Totals per device, family or test (and device), optionally of one
    /// test or family only; in name order.
    pub fn summary(&self, by: By, only: Option<&str>) -> Result<Vec<Row>, String> {
        let group = match by {
            By::Device => "''",
            By::Family => "r.family",
            By::Test => "r.test",
        };
        let sql = format!(
            "SELECT r.backend || ' ' || r.device || ' (' || r.driver || ')' AS dev, {group} AS grp,
                    COUNT(DISTINCT r.id),
                    COALESCE(SUM(o.count), 0),
                    COALESCE(SUM(CASE WHEN o.condition THEN o.count ELSE 0 END), 0),
                    COALESCE(SUM(CASE WHEN o.judgement = 'forbidden' THEN o.count ELSE 0 END), 0),
                    COUNT(DISTINCT CASE WHEN o.judgement = 'forbidden' AND o.count > 0 THEN r.id END),
                    MAX(r.date)
             FROM runs r LEFT JOIN outcomes o ON o.run = r.id
             WHERE ?1 IS NULL OR r.test = ?1 OR r.family = ?1
             GROUP BY dev, grp ORDER BY grp, dev"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(err)?;
        let rows = stmt
            .query_map(params![only], |r| {
                let instances = r.get::<_, i64>(3)? as u64;
                let weak = r.get::<_, i64>(4)? as u64;
                Ok(Row {
                    device: r.get(0)?,
                    group: r.get(1)?,
                    runs: r.get::<_, i64>(2)? as u64,
                    instances,
                    weak,
                    weak_rate: if instances == 0 {
                        0.0
                    } else {
                        weak as f64 / instances as f64
                    },
                    violations: r.get::<_, i64>(5)? as u64,
                    violating_runs: r.get::<_, i64>(6)? as u64,
                    last: r.get(7)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Entry, Observation};

    fn report(name: &str, device: &str, weak: u64, forbidden: u64) -> TestReport {
        let mut r = TestReport::failed("t.litmus", Status::Ok, String::new());
        r.name = name.into();
        r.device = device.into();
        r.backend = "vulkan".into();
        r.histogram = vec![
            Entry {
                state: "P1:r0=1; P1:r1=0;".into(),
                values: vec![1, 0],
                count: weak,
                allowed: Some(forbidden == 0),
                judgement: if forbidden == 0 {
                    "allowed"
                } else {
                    "forbidden"
                }
                .into(),
                condition: true,
            },
            Entry {
                state: "P1:r0=1; P1:r1=1;".into(),
                values: vec![1, 1],
                count: 100 - weak,
                allowed: Some(true),
                judgement: "allowed".into(),
                condition: false,
            },
        ];
        r.observation = Some(Observation {
            kind: "Sometimes".into(),
            positive: weak,
            negative: 100 - weak,
        });
        r
    }

    #[test]
    fn runs_are_summed_per_device_family_and_test() {
        let dir = std::env::temp_dir().join(format!("gpumc-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.db");
        let _ = std::fs::remove_file(&path);
        let mut s = Store::open(&path).unwrap();
        let from = Provenance {
            driver: "d1",
            date: "2026-11-29 10:00 UTC",
            source: "test",
        };
        s.add(&report("MP+membar.gls", "gpu A", 0, 0), &from)
            .unwrap();
        s.add(&report("MP", "gpu A", 7, 0), &from).unwrap();
        s.add(&report("SB", "gpu B", 3, 3), &from).unwrap();
        drop(s);
        // Reopened: the rows persist.
        let s = Store::open(&path).unwrap();
        assert_eq!(s.runs().unwrap(), 3);
        let by_dev = s.summary(By::Device, None).unwrap();
        assert_eq!(by_dev.len(), 2);
        assert_eq!(by_dev[0].device, "vulkan gpu A (d1)");
        assert_eq!((by_dev[0].instances, by_dev[0].weak), (200, 7));
        assert_eq!((by_dev[1].violations, by_dev[1].violating_runs), (3, 1));
        let fam = s.summary(By::Family, Some("MP")).unwrap();
        assert_eq!(fam.len(), 1);
        assert_eq!((fam[0].group.as_str(), fam[0].runs), ("MP", 2));
        let test = s.summary(By::Test, Some("SB")).unwrap();
        assert_eq!(test[0].weak_rate, 0.03);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn families_keep_two_plus_two_w() {
        assert_eq!(family("MP+membar.cta+addr"), "MP");
        assert_eq!(family("2+2W+membar.gls"), "2+2W");
        assert_eq!(family("IRIW"), "IRIW");
        assert_eq!(family("SB@cta-01_reg-gg"), "SB");
        assert_eq!(family("2+2W@cta-00_reg-gs"), "2+2W");
    }
}
