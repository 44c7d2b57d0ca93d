//! Loading tests from files and directories laid out like the corpus:
//! `<T>_threads_<I>_instructions/<id>.txt` and `<id>_simple.txt`.
//!
//! A file named on the command line is always read. A directory is walked
//! recursively for `*.txt` files; there, `<id>_simple.txt` is skipped when
//! `<id>.txt` exists beside it (both forms hold the same test), so each test
//! is counted once.

use super::ast::Test;
use super::parse::parse_file;
use crate::diag::{Error, Result};
use std::path::{Path, PathBuf};

/// A parsed test and where it came from.
#[derive(Clone, Debug)]
pub struct TestFile {
    pub path: PathBuf,
    pub test: Test,
    /// `(threads, instructions)` when the parent directory is named
    /// `<T>_threads_<I>_instructions`.
    pub config: Option<(usize, usize)>,
    /// The file stem without a `_simple` suffix (the corpus id).
    pub id: String,
}

impl TestFile {
    /// `2t_3i` style configuration label, or `-`.
    pub fn config_label(&self) -> String {
        match self.config {
            Some((t, i)) => config_label(t, i),
            None => "-".to_string(),
        }
    }
}

/// `2t_3i`.
pub fn config_label(threads: usize, instructions: usize) -> String {
    format!("{threads}t_{instructions}i")
}

/// `2_threads_3_instructions`.
pub fn config_dir_name(threads: usize, instructions: usize) -> String {
    format!("{threads}_threads_{instructions}_instructions")
}

/// Parses `<T>_threads_<I>_instructions`.
pub fn parse_config_dir(name: &str) -> Option<(usize, usize)> {
    let rest = name.strip_suffix("_instructions")?;
    let (t, i) = rest.split_once("_threads_")?;
    Some((t.parse().ok()?, i.parse().ok()?))
}

/// The corpus id of a test file (`12` for `12.txt` and `12_simple.txt`).
pub fn test_id(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem.strip_suffix("_simple").unwrap_or(stem).to_string()
}

/// Sort key: numeric ids in numeric order, then names.
fn sort_key(path: &Path) -> (PathBuf, u64, String) {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let id = test_id(path);
    let num = id.parse::<u64>().unwrap_or(u64::MAX);
    let name = path
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or("")
        .to_string();
    (dir, num, name)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?;
    let mut files = Vec::new();
    let mut subdirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let path = entry.path();
        if path.is_dir() {
            subdirs.push(path);
        } else if path.extension().is_some_and(|e| e == "txt") {
            files.push(path);
        }
    }
    subdirs.sort();
    files.retain(|f| {
        let stem = f.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        match stem.strip_suffix("_simple") {
            Some(id) => !dir.join(format!("{id}.txt")).is_file(),
            None => true,
        }
    });
    files.sort_by_key(|p| sort_key(p));
    out.extend(files);
    for sub in subdirs {
        walk(&sub, out)?;
    }
    Ok(())
}

/// Expands directories into test files (see the module documentation).
pub fn collect_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Error::io(
                p,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
    }
    Ok(out)
}

/// Reads one test file.
pub fn load_file(path: &Path) -> Result<TestFile> {
    let test = parse_file(path)?;
    let config = path
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .and_then(parse_config_dir);
    Ok(TestFile {
        path: path.to_path_buf(),
        test,
        config,
        id: test_id(path),
    })
}

/// Reads every test under `paths`; the first malformed file is an error.
pub fn load(paths: &[PathBuf]) -> Result<Vec<TestFile>> {
    collect_paths(paths)?.iter().map(|p| load_file(p)).collect()
}
