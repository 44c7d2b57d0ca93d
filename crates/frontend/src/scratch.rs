//! A scratch folder for the compilers the source front-ends run
//! ([`crate::cuda`], [`crate::glsl`]): fresh per compilation, removed when
//! dropped.

use crate::diag::{Error, ErrorKind, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Scratch(PathBuf);

impl Scratch {
    /// A new empty folder under the temporary directory, named after
    /// `what`, the process and a counter.
    pub fn new(what: &str) -> Result<Scratch> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gpumc-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Scratch(dir))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Where the copy of the user's file `name` goes, under the same file
    /// name (compilers print it in their messages and line tables);
    /// `default` for a name without one.
    pub fn copy_of(&self, name: &Path, default: &str) -> PathBuf {
        let file = name
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| default.into());
        self.0.join(file)
    }
}

/// Runs `tool` (from `$env_var`, else `default`) on `args` to compile
/// `what` (`GLSL`, `OpenCL C`) from `name`; a missing tool names the
/// package that provides it.
pub fn run_tool(
    what: &str,
    env_var: &str,
    default: &str,
    package: &str,
    args: &[&str],
    name: &Path,
) -> Result<std::process::Output> {
    let tool = std::env::var(env_var).unwrap_or_else(|_| default.into());
    match Command::new(&tool).args(args).output() {
        Ok(o) => Ok(o),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::new(
            ErrorKind::Io,
            format!(
                "cannot compile {what}: `{tool}` not found (install the `{package}` package; {env_var}=PATH chooses another)"
            ),
        )
        .in_file(name)),
        Err(e) => Err(Error::io(Path::new(&tool), e).in_file(name)),
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
