//! The journal of a campaign (`gpumc run --out DIR`): one JSON line per
//! finished test in `DIR/results.jsonl`, appended and flushed to disk as
//! each test ends, so a campaign killed at any moment loses at most the
//! test it was running. Run again with the same options, it skips the
//! tests the journal already holds (same file contents, backend, device,
//! model, parameters, launches and seed) and reports their results from
//! it: nothing lost, nothing repeated.

use crate::report::TestReport;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The file name inside the campaign directory.
pub const RESULTS: &str = "results.jsonl";

#[derive(Serialize, Deserialize)]
struct Line {
    key: String,
    /// `None` on the line that says the test started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    report: Option<TestReport>,
}

pub struct Journal {
    path: PathBuf,
    file: File,
    done: HashMap<String, TestReport>,
    /// Starts of tests that have no result (yet).
    started: HashMap<String, usize>,
    /// Lines that could not be read (a line cut by a kill), skipped.
    pub torn: usize,
}

impl Journal {
    /// Opens (creating) `dir/results.jsonl` and reads what it holds.
    pub fn open(dir: &Path) -> std::io::Result<Journal> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(RESULTS);
        let mut done = HashMap::new();
        let mut started: HashMap<String, usize> = HashMap::new();
        let mut torn = 0;
        let mut text = String::new();
        if path.exists() {
            text = std::fs::read_to_string(&path)?;
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                match serde_json::from_str::<Line>(line) {
                    Ok(Line {
                        key,
                        report: Some(r),
                    }) => {
                        started.remove(&key);
                        done.insert(key, r);
                    }
                    Ok(Line { key, report: None }) => *started.entry(key).or_default() += 1,
                    Err(_) => torn += 1,
                }
            }
        }
        let mut file = OpenOptions::new().create(true).append(true).open(&path)?;
        // A kill in the middle of a line leaves it without its newline:
        // end it, so the next line starts clean.
        if !text.is_empty() && !text.ends_with('\n') {
            file.write_all(b"\n")?;
        }
        Ok(Journal {
            path,
            file,
            done,
            started,
            torn,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The recorded result of a test run with this key.
    pub fn get(&self, key: &str) -> Option<&TestReport> {
        self.done.get(key)
    }

    /// How many times a test with this key started in earlier runs
    /// without finishing.
    pub fn unfinished_starts(&self, key: &str) -> usize {
        self.started.get(key).copied().unwrap_or(0)
    }

    /// Records that a test starts.
    pub fn start(&mut self, key: &str) -> std::io::Result<()> {
        self.write(&Line {
            key: key.to_string(),
            report: None,
        })
    }

    /// Records a finished test: one line, written whole and synced.
    pub fn append(&mut self, key: &str, report: &TestReport) -> std::io::Result<()> {
        self.write(&Line {
            key: key.to_string(),
            report: Some(report.clone()),
        })?;
        self.started.remove(key);
        self.done.insert(key.to_string(), report.clone());
        Ok(())
    }

    fn write(&mut self, line: &Line) -> std::io::Result<()> {
        let text = serde_json::to_string(line).map_err(std::io::Error::other)?;
        self.file.write_all(format!("{text}\n").as_bytes())?;
        self.file.sync_data()
    }
}

/// The identity of a test run: what must be equal for a recorded result
/// to stand for a new run (FNV-1a over the parts, hex).
pub fn key(file: &Path, parts: &[&str]) -> String {
    let contents = std::fs::read(file).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    mix(&contents);
    for p in parts {
        mix(p.as_bytes());
    }
    format!("{}#{h:016x}", file.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Status;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gpumc-journal-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn recorded_tests_survive_reopening_and_torn_lines_are_skipped() {
        let d = tmp("reopen");
        let mut j = Journal::open(&d).unwrap();
        let r = TestReport::failed("a.litmus", Status::Ok, "m".into());
        j.append("k1", &r).unwrap();
        drop(j);
        // A kill in the middle of the second line.
        let mut f = OpenOptions::new()
            .append(true)
            .open(d.join(RESULTS))
            .unwrap();
        f.write_all(br#"{"key":"k2","report":{"fi"#).unwrap();
        f.write_all(b"\n").unwrap();
        drop(f);
        let mut j = Journal::open(&d).unwrap();
        assert_eq!(j.torn, 1);
        assert_eq!(j.get("k1"), Some(&r));
        assert!(j.get("k2").is_none());
        j.append("k3", &r).unwrap();
        let j = Journal::open(&d).unwrap();
        assert_eq!(j.torn, 1);
        assert!(j.get("k3").is_some(), "a line after a torn one is read");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_test_that_started_twice_without_finishing_is_known() {
        let d = tmp("starts");
        let mut j = Journal::open(&d).unwrap();
        j.start("k").unwrap();
        drop(j);
        let mut j = Journal::open(&d).unwrap();
        assert_eq!(j.unfinished_starts("k"), 1);
        j.start("k").unwrap();
        drop(j);
        let mut j = Journal::open(&d).unwrap();
        assert_eq!(j.unfinished_starts("k"), 2);
        j.append(
            "k",
            &TestReport::failed("a", Status::Error, "crashed".into()),
        )
        .unwrap();
        let j = Journal::open(&d).unwrap();
        assert_eq!(j.unfinished_starts("k"), 0);
        assert!(j.get("k").is_some());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn keys_change_with_contents_and_options() {
        let d = tmp("key");
        std::fs::create_dir_all(&d).unwrap();
        let f = d.join("t.litmus");
        std::fs::write(&f, "a").unwrap();
        let k1 = key(&f, &["vulkan", "100"]);
        assert_eq!(k1, key(&f, &["vulkan", "100"]));
        assert_ne!(k1, key(&f, &["vulkan", "200"]));
        assert_ne!(key(&f, &["ab", "c"]), key(&f, &["a", "bc"]));
        std::fs::write(&f, "b").unwrap();
        assert_ne!(k1, key(&f, &["vulkan", "100"]));
        let _ = std::fs::remove_dir_all(&d);
    }
}
