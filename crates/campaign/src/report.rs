//! One hardware run of one test, as `gpumc run` reports it: the litmus7-
//! style histogram, each state judged by the model, the observation, the
//! rate, the device and every parameter needed to repeat the run. The same
//! struct is the JSON object (`--json`, `docs/JSON.md`) and a line of a
//! campaign journal (`campaign`).

use crate::conform::Judgement;
use gpumc_hw::params::Params;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// How a test's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Ran; every observed state is allowed (or undefined, unknown).
    Ok,
    /// Ran; some observed state is forbidden by the model.
    Violation,
    /// The backend or the harness cannot run this test as written.
    Unsupported,
    /// The test could not be read or run (parse error, driver failure,
    /// watchdog, lost device).
    Error,
}

/// One histogram line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// `P1:r0=1; P1:r1=0;` (litmus7's spelling).
    pub state: String,
    pub values: Vec<i64>,
    pub count: u64,
    /// `true`: the model allows it; `false`: it forbids it (a violation,
    /// or undefined behaviour in a racy test); `null`: not judged
    /// (filtered) or undecided.
    pub allowed: Option<bool>,
    pub judgement: String,
    /// Whether the state satisfies the test's condition.
    pub condition: bool,
}

/// `Observation <name> Never|Sometimes|Always <positive> <negative>`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub kind: String,
    pub positive: u64,
    pub negative: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub state: String,
    pub count: u64,
}

/// The report of one test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestReport {
    pub file: String,
    pub name: String,
    pub status: Status,
    pub backend: String,
    pub device: String,
    pub model: String,
    /// Launches run.
    pub iterations: u64,
    /// Test instances per launch.
    pub instances: u64,
    pub histogram: Vec<Entry>,
    pub violations: Vec<Violation>,
    /// Instances in states the model forbids in a racy test (undefined
    /// behaviour), and in states it could not decide.
    pub undefined: u64,
    pub undecided: u64,
    /// Instances the `filter` excluded.
    pub filtered: u64,
    /// Instances where a loop ran out of fuel (no final state).
    pub unfinished: u64,
    /// Instances that indexed out of bounds (undefined behaviour).
    pub out_of_bounds: u64,
    /// Instances in which some thread never reported although the launch
    /// completed (the driver stopped it): no final state.
    #[serde(default)]
    pub lost: u64,
    /// States the model allows that were never observed.
    pub unseen: Vec<String>,
    /// Whether `unseen` is the model's complete list (no loop was cut).
    pub unseen_complete: bool,
    /// States of the condition that the model forbids and that were
    /// never observed: what a conformance run established (only when the
    /// model's list of allowed states is complete).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_unseen: Vec<String>,
    pub observation: Option<Observation>,
    /// The condition as written, and whether the observed outcomes
    /// validate it (`exists`: some instance satisfies it; `~exists`: none;
    /// `forall`: all).
    pub condition: Option<String>,
    pub validated: Option<bool>,
    pub rate_per_s: f64,
    pub elapsed_s: f64,
    pub device_time_s: Option<f64>,
    pub preset: String,
    pub params: Option<Params>,
    /// The run's `--seed`; each test's random choices follow from it and
    /// the test's file name.
    pub seed: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub message: Option<String>,
}

impl TestReport {
    /// A report for a test that did not run.
    pub fn failed(file: &str, status: Status, message: String) -> TestReport {
        TestReport {
            file: file.to_string(),
            name: String::new(),
            status,
            backend: String::new(),
            device: String::new(),
            model: String::new(),
            iterations: 0,
            instances: 0,
            histogram: Vec::new(),
            violations: Vec::new(),
            undefined: 0,
            undecided: 0,
            filtered: 0,
            unfinished: 0,
            out_of_bounds: 0,
            lost: 0,
            unseen: Vec::new(),
            unseen_complete: false,
            forbidden_unseen: Vec::new(),
            observation: None,
            condition: None,
            validated: None,
            rate_per_s: 0.0,
            elapsed_s: 0.0,
            device_time_s: None,
            preset: String::new(),
            params: None,
            seed: 0,
            message: Some(message),
        }
    }

    /// Instances counted: histogram, filtered, unfinished, out of bounds,
    /// lost (`iterations * instances` for a complete run).
    pub fn total(&self) -> u64 {
        self.histogram.iter().map(|e| e.count).sum::<u64>()
            + self.filtered
            + self.unfinished
            + self.out_of_bounds
            + self.lost
    }
}

/// litmus7's spelling of a state.
pub fn state_text(names: &[String], values: &[i64]) -> String {
    let mut s = String::new();
    for (n, v) in names.iter().zip(values) {
        let _ = write!(s, "{n}={v}; ");
    }
    s.trim_end().to_string()
}

pub fn judgement_name(j: Judgement) -> &'static str {
    match j {
        Judgement::Allowed => "allowed",
        Judgement::Forbidden => "forbidden",
        Judgement::Undefined => "undefined (data race)",
        Judgement::Filtered => "filtered",
        Judgement::Unknown => "undecided",
    }
}

/// The text `gpumc run` prints for a test.
pub fn render_text(r: &TestReport) -> String {
    let mut s = String::new();
    match r.status {
        Status::Unsupported | Status::Error => {
            let word = if r.status == Status::Unsupported {
                "UNSUPPORTED"
            } else {
                "ERROR"
            };
            let _ = writeln!(
                s,
                "{}: {word}: {}",
                r.file,
                r.message.as_deref().unwrap_or("")
            );
            return s;
        }
        Status::Ok | Status::Violation => {}
    }
    let _ = writeln!(s, "Test {} ({})", r.name, r.file);
    let n = r.histogram.len();
    let _ = writeln!(s, "Histogram ({n} state{})", if n == 1 { "" } else { "s" });
    let width = r
        .histogram
        .iter()
        .map(|e| e.count.to_string().len())
        .max()
        .unwrap_or(1);
    for e in &r.histogram {
        let mark = if e.condition { "*>" } else { ":>" };
        let note = match e.allowed {
            Some(true) => String::new(),
            _ => format!("   <- {}", e.judgement),
        };
        let note = if e.judgement == "forbidden" {
            format!("   <- VIOLATION: forbidden by {}", r.model)
        } else {
            note
        };
        let _ = writeln!(s, "{:<width$} {mark} {}{note}", e.count, e.state);
    }
    if r.unfinished > 0 {
        let _ = writeln!(
            s,
            "{} instances did not finish (a loop ran out of fuel; no final state)",
            r.unfinished
        );
    }
    if r.lost > 0 {
        let _ = writeln!(
            s,
            "{} instances lost: a thread never reported although the launch completed (the driver stopped it; no final state)",
            r.lost
        );
    }
    if r.filtered > 0 {
        let _ = writeln!(s, "{} instances excluded by the filter", r.filtered);
    }
    if r.out_of_bounds > 0 {
        let _ = writeln!(
            s,
            "{} instances indexed out of bounds (undefined behaviour)",
            r.out_of_bounds
        );
    }
    if let (Some(c), Some(v)) = (&r.condition, r.validated) {
        let _ = writeln!(s, "{}", if v { "Ok" } else { "No" });
        if let Some(o) = &r.observation {
            let _ = writeln!(s, "Witnesses");
            let _ = writeln!(s, "Positive: {}, Negative: {}", o.positive, o.negative);
        }
        let _ = writeln!(
            s,
            "Condition {c} is {}validated",
            if v { "" } else { "NOT " }
        );
    }
    if let Some(o) = &r.observation {
        let _ = writeln!(
            s,
            "Observation {} {} {} {}",
            r.name, o.kind, o.positive, o.negative
        );
    }
    if !r.unseen.is_empty() {
        let _ = writeln!(
            s,
            "Allowed by {} but not observed{}: {}",
            r.model,
            if r.unseen_complete {
                ""
            } else {
                " (among the states found within the loop bound)"
            },
            r.unseen.join(" | ")
        );
    }
    if !r.forbidden_unseen.is_empty() {
        let _ = writeln!(
            s,
            "Forbidden by {}, never observed: {}",
            r.model,
            r.forbidden_unseen.join(" | ")
        );
    }
    if r.undecided > 0 {
        let _ = writeln!(
            s,
            "{} instances in states the model could not decide",
            r.undecided
        );
    }
    let verdict = match r.status {
        Status::Violation => {
            let n: u64 = r.violations.iter().map(|v| v.count).sum();
            format!(
                "VIOLATION: {n} instances in {} state(s) {} forbids",
                r.violations.len(),
                r.model
            )
        }
        _ if r.undefined > 0 => format!(
            "OK (the test races, so {} instances in states {} forbids are undefined behaviour, not violations)",
            r.undefined, r.model
        ),
        _ => format!("OK: every observed state is allowed by {}", r.model),
    };
    let _ = writeln!(s, "Conformance {}", verdict);
    let _ = writeln!(
        s,
        "Time {} {:.2} s: {} instances ({} launches x {}), {:.0} instances/s",
        r.name,
        r.elapsed_s,
        r.total(),
        r.iterations,
        r.instances,
        r.rate_per_s
    );
    let _ = writeln!(
        s,
        "Device {} ({}), preset {}, seed {} (`--seed {}` repeats the harness's choices)",
        r.device, r.backend, r.preset, r.seed, r.seed
    );
    if let Some(p) = &r.params {
        let _ = writeln!(s, "Parameters {}", params_text(p));
    }
    if let Some(m) = &r.message {
        let _ = writeln!(s, "Note: {m}");
    }
    s
}

/// `key=value` pairs of a parameter set, by name (what `--set` takes).
pub fn params_text(p: &Params) -> String {
    match serde_json::to_value(p) {
        Ok(serde_json::Value::Object(m)) => m
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    }
}
