//! Reading the shards' journals back as one batch, in item order.

use crate::journal::{self, Header};
use crate::Shard;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every shard's records, in item order.
#[derive(Debug)]
pub struct Merged {
    /// The run's header (its `shard` field is 0).
    pub header: Header,
    /// One record per item of the batch, in the batch's order.
    pub records: Vec<Value>,
    /// The slowest shard's seconds: the run's wall time when the shards
    /// ran side by side.
    pub wall_s: f64,
}

/// Merges the journals in `dirs` (each `shard-K-of-N.jsonl` found there,
/// or journal files given directly). Fails, naming them, when shards are
/// missing or unfinished, when journals of different runs are mixed, or
/// when an item is missing or done twice.
pub fn merge(paths: &[PathBuf]) -> Result<Merged, String> {
    let mut files: Vec<(Shard, PathBuf)> = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p).map_err(|e| format!("{}: {e}", p.display()))?;
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(s) = Shard::from_file_name(&name) {
                    files.push((s, e.path()));
                }
            }
        } else {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            match name.as_deref().and_then(Shard::from_file_name) {
                Some(s) => files.push((s, p.clone())),
                None if !p.exists() => {
                    return Err(format!("{}: no such file or directory", p.display()))
                }
                None => {
                    return Err(format!(
                        "{}: not a shard journal (shard-K-of-N.jsonl)",
                        p.display()
                    ))
                }
            }
        }
    }
    if files.is_empty() {
        return Err(format!(
            "no shard journals (shard-K-of-N.jsonl) in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    files.sort();
    let counts: std::collections::BTreeSet<usize> = files.iter().map(|(s, _)| s.count).collect();
    if counts.len() > 1 {
        return Err(format!(
            "journals of runs split different ways are mixed ({} shards)",
            counts
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let count = files[0].0.count;
    let mut header: Option<Header> = None;
    let mut records: BTreeMap<usize, Value> = BTreeMap::new();
    let mut unfinished = Vec::new();
    let mut wall_s: f64 = 0.0;
    let mut present = vec![false; count];
    for (s, path) in &files {
        if present[s.index] {
            return Err(format!("shard {s} is given twice ({})", path.display()));
        }
        present[s.index] = true;
        let c = journal::read(path)?;
        if c.header.shard != s.index || c.header.shards != s.count {
            return Err(format!(
                "{}: its header says shard {}/{}",
                path.display(),
                c.header.shard,
                c.header.shards
            ));
        }
        match &header {
            None => header = Some(c.header.clone()),
            Some(h) if !h.same_run(&c.header) => {
                return Err(format!(
                    "{}: from another run than {} (command `{}` with {:?}, not `{}` with {:?})",
                    path.display(),
                    files[0].1.display(),
                    c.header.command,
                    c.header.fingerprint,
                    h.command,
                    h.fingerprint
                ))
            }
            Some(_) => {}
        }
        wall_s = wall_s.max(c.wall_s);
        if !c.complete {
            unfinished.push(format!("{s} ({} items done)", c.records.len()));
        }
        for (i, r) in c.records {
            if records.insert(i, r).is_some() {
                return Err(format!("item {i} is in two shards' journals"));
            }
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|&k| !present[k])
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() || !unfinished.is_empty() {
        let mut why = Vec::new();
        if !missing.is_empty() {
            why.push(format!(
                "missing shards: {} (no journal)",
                missing.join(", ")
            ));
        }
        if !unfinished.is_empty() {
            why.push(format!(
                "unfinished shards: {} (failed or still running; run them again to resume)",
                unfinished.join(", ")
            ));
        }
        return Err(why.join("; "));
    }
    let mut header = header.expect("a journal");
    header.shard = 0;
    if records.len() != header.items
        || records
            .keys()
            .next_back()
            .is_some_and(|&k| k >= header.items)
    {
        return Err(format!(
            "the shards hold {} of the run's {} items",
            records.len(),
            header.items
        ));
    }
    Ok(Merged {
        header,
        records: records.into_values().collect(),
        wall_s,
    })
}

/// [`merge`] of one directory.
pub fn merge_dir(dir: &Path) -> Result<Merged, String> {
    merge(&[dir.to_path_buf()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Journal;
    use serde_json::json;

    fn header(shard: usize) -> Header {
        Header {
            command: "suite".into(),
            fingerprint: vec!["x.csv".into()],
            shard,
            shards: 3,
            items: 5,
            context: Value::Null,
        }
    }

    #[test]
    fn shards_merge_in_item_order_and_gaps_are_named() {
        let dir = std::env::temp_dir().join(format!("gpumc-scale-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let split = [vec![1, 4], vec![0, 3], vec![2]];
        for (k, items) in split.iter().enumerate() {
            let (mut j, _) = Journal::open(&dir, &header(k)).unwrap();
            for &i in items {
                j.append(i, &json!(i * 10)).unwrap();
            }
            if k != 2 {
                j.finish(items.len(), k as f64).unwrap();
            }
        }
        let e = merge_dir(&dir).unwrap_err();
        assert_eq!(
            e,
            "unfinished shards: 2/3 (1 items done) (failed or still running; run them again to resume)"
        );
        let (mut j, _) = Journal::open(&dir, &header(2)).unwrap();
        j.finish(1, 0.25).unwrap();
        let m = merge_dir(&dir).unwrap();
        assert_eq!(m.wall_s, 1.0);
        assert_eq!(
            m.records,
            vec![json!(0), json!(10), json!(20), json!(30), json!(40)]
        );
        std::fs::remove_file(dir.join("shard-1-of-3.jsonl")).unwrap();
        assert_eq!(
            merge_dir(&dir).unwrap_err(),
            "missing shards: 1/3 (no journal)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
