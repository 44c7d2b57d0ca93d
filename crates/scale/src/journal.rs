//! A shard's journal, `DIR/shard-K-of-N.jsonl`: a header line naming the
//! command and what it was asked, one line per finished item, and a last
//! line once the shard is complete. Lines are appended and flushed as
//! items finish, so a shard killed part-way (a pre-empted Slurm task, a
//! restarted pod) loses at most the item it was doing: run again, it
//! resumes after the items already there.

use crate::Shard;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

/// What every shard of one sharded run agrees on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The command (`check`, `suite`, `mapping check`).
    pub command: String,
    /// What decides its results: the inputs and options, minus the
    /// sharding and output options (the merge can print any format).
    pub fingerprint: Vec<String>,
    /// This shard, counted from 0.
    pub shard: usize,
    /// Shards in all.
    pub shards: usize,
    /// Items in all the shards (the batch before it was split).
    pub items: usize,
    /// What the command needs beside the records to print the merged
    /// output (the same in every shard).
    #[serde(default)]
    pub context: Value,
}

impl Header {
    /// Whether `other` belongs to the same sharded run.
    pub fn same_run(&self, other: &Header) -> bool {
        self.command == other.command
            && self.fingerprint == other.fingerprint
            && self.shards == other.shards
            && self.items == other.items
            && self.context == other.context
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Header(Header),
    Item {
        index: usize,
        record: Value,
    },
    Complete {
        items: usize,
        #[serde(default)]
        wall_s: f64,
    },
}

/// A shard's journal, open for appending.
pub struct Journal {
    path: PathBuf,
    file: File,
}

/// What a journal held when opened: its header, the records by item
/// index, and whether the shard had finished.
#[derive(Debug)]
pub struct Contents {
    pub header: Header,
    pub records: BTreeMap<usize, Value>,
    pub complete: bool,
    /// The seconds the shard's last run took (0 if unfinished).
    pub wall_s: f64,
}

impl Journal {
    /// Opens (or creates) `dir`'s journal for `header`'s shard; returns
    /// the records already there. A journal of another run (other inputs
    /// or options) is refused, not overwritten.
    pub fn open(dir: &Path, header: &Header) -> Result<(Journal, BTreeMap<usize, Value>), String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let shard = Shard::new(header.shard, header.shards)?;
        let path = dir.join(shard.file_name());
        let mut done = BTreeMap::new();
        if path.exists() {
            let c = read(&path)?;
            if !c.header.same_run(header) {
                return Err(format!(
                    "{}: written by another run (command `{}` with {:?}); remove it or give another --shard-out",
                    path.display(),
                    c.header.command,
                    c.header.fingerprint
                ));
            }
            done = c.records;
        }
        // Rewritten from what was read: drops a line torn by a kill and an
        // earlier completion line (the shard completes again at its end).
        let mut file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut text = line(&Line::Header(header.clone()));
        for (&index, record) in &done {
            text.push_str(&line(&Line::Item {
                index,
                record: record.clone(),
            }));
        }
        file.write_all(text.as_bytes())
            .and_then(|_| file.flush())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        drop(file);
        let file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((Journal { path, file }, done))
    }

    /// Records item `index` as done.
    pub fn append(&mut self, index: usize, record: &Value) -> Result<(), String> {
        self.write(&Line::Item {
            index,
            record: record.clone(),
        })
    }

    /// Marks the shard complete (`items`: how many items it did, in
    /// `wall_s` seconds this time).
    pub fn finish(&mut self, items: usize, wall_s: f64) -> Result<(), String> {
        self.write(&Line::Complete { items, wall_s })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, l: &Line) -> Result<(), String> {
        self.file
            .write_all(line(l).as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

fn line(l: &Line) -> String {
    serde_json::to_string(l).expect("serialisable") + "\n"
}

/// Reads a journal. A last line without its newline (a kill during the
/// write) is ignored; any other unreadable line is an error.
pub fn read(path: &Path) -> Result<Contents, String> {
    let f = File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut header: Option<Header> = None;
    let mut records = BTreeMap::new();
    let mut complete = false;
    let mut wall = 0.0;
    let mut reader = BufReader::new(f);
    let mut buf = String::new();
    let mut number = 0;
    loop {
        buf.clear();
        let n = reader
            .read_line(&mut buf)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        number += 1;
        if !buf.ends_with('\n') {
            break; // torn by a kill
        }
        let parsed: Line = serde_json::from_str(buf.trim_end())
            .map_err(|e| format!("{}:{number}: not a journal line: {e}", path.display()))?;
        match (parsed, &header) {
            (Line::Header(h), None) => header = Some(h),
            (_, None) => {
                return Err(format!(
                    "{}:{number}: a journal starts with its header",
                    path.display()
                ))
            }
            (Line::Header(_), Some(_)) => {
                return Err(format!("{}:{number}: a second header", path.display()))
            }
            (Line::Item { index, record }, Some(_)) => {
                records.insert(index, record);
            }
            (Line::Complete { wall_s, .. }, Some(_)) => {
                complete = true;
                wall = wall_s;
            }
        }
    }
    let header = header.ok_or_else(|| format!("{}: empty journal", path.display()))?;
    Ok(Contents {
        header,
        records,
        complete,
        wall_s: wall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn header(shard: usize) -> Header {
        Header {
            command: "check".into(),
            fingerprint: vec!["a.litmus".into()],
            shard,
            shards: 2,
            items: 3,
            context: Value::Null,
        }
    }

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("gpumc-scale-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_killed_shard_resumes_after_its_finished_items() {
        let dir = tmp("resume");
        let (mut j, done) = Journal::open(&dir, &header(1)).unwrap();
        assert!(done.is_empty());
        j.append(0, &json!({"v": "PASS"})).unwrap();
        j.append(2, &json!({"v": "FAIL"})).unwrap();
        drop(j);
        // A kill in the middle of the next line.
        let path = dir.join("shard-1-of-2.jsonl");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"item\":{\"index\":5,\"rec").unwrap();
        drop(f);
        let (mut j, done) = Journal::open(&dir, &header(1)).unwrap();
        assert_eq!(done.keys().copied().collect::<Vec<_>>(), vec![0, 2]);
        j.finish(2, 0.5).unwrap();
        let c = read(&path).unwrap();
        assert!(c.complete);
        assert_eq!(c.records[&2], json!({"v": "FAIL"}));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_journal_of_another_run_is_refused() {
        let dir = tmp("other");
        Journal::open(&dir, &header(0)).unwrap();
        let mut other = header(0);
        other.fingerprint = vec!["b.litmus".into()];
        let e = Journal::open(&dir, &other).err().unwrap();
        assert!(e.contains("written by another run"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
