//! Diagnostics: every user-facing error carries `file:line:col` when it
//! comes from an input file, and maps to exit status 2.

use crate::ir::Pos;
use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong, coarsely (for JSON output and exit codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// Malformed input text.
    Syntax,
    /// Well-formed input using something gpumc does not support yet.
    Unsupported,
    /// Input that parses but is inconsistent (unknown label, register…).
    Semantic,
    /// File-system errors.
    Io,
    /// Bad command-line usage.
    Usage,
    /// A resource guard tripped (`--timeout`, `--max-memory`): the check
    /// stopped without an answer (`crate::guard`).
    Limit,
}

/// An error with an optional source location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub file: Option<PathBuf>,
    pub pos: Option<Pos>,
    pub message: String,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            file: None,
            pos: None,
            message: message.into(),
        }
    }

    pub fn syntax(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Syntax, message).at(pos)
    }

    pub fn unsupported(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(
            ErrorKind::Unsupported,
            format!("unsupported: {}", message.into()),
        )
        .at(pos)
    }

    pub fn semantic(pos: Pos, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Semantic, message).at(pos)
    }

    pub fn io(path: &Path, err: std::io::Error) -> Self {
        Self::new(ErrorKind::Io, err.to_string()).in_file(path)
    }

    pub fn at(mut self, pos: Pos) -> Self {
        self.pos = Some(pos);
        self
    }

    /// Attaches a file name unless one is already set.
    pub fn in_file(mut self, path: &Path) -> Self {
        if self.file.is_none() {
            self.file = Some(path.to_path_buf());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, &self.pos) {
            (Some(file), Some(pos)) => write!(f, "{}:{}: ", file.display(), pos)?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            (None, Some(pos)) => write!(f, "{}: ", pos)?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
