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

/// A compiler or tool the source front-ends run: the environment variable
/// that chooses another, its default name, the package that provides it.
pub struct Tool {
    pub env_var: &'static str,
    pub default: &'static str,
    pub package: &'static str,
}

pub const SPIRV_DIS: Tool = Tool {
    env_var: "SPIRV_DIS",
    default: "spirv-dis",
    package: "spirv-tools",
};

/// Runs `tool` on `args` to compile `what` (`GLSL`, `OpenCL C`) from
/// `name`; a missing tool names the package that provides it.
pub fn run_tool(
    what: &str,
    tool: &Tool,
    args: &[&str],
    name: &Path,
) -> Result<std::process::Output> {
    let exe = std::env::var(tool.env_var).unwrap_or_else(|_| tool.default.into());
    match Command::new(&exe).args(args).output() {
        Ok(o) => Ok(o),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::new(
            ErrorKind::Io,
            format!(
                "cannot compile {what}: `{exe}` not found (install the `{}` package; {}=PATH chooses another)",
                tool.package, tool.env_var
            ),
        )
        .in_file(name)),
        Err(e) => Err(Error::io(Path::new(&exe), e).in_file(name)),
    }
}

/// [`run_tool`], whose failure is an error of `kind`: `failed` and the
/// first lines the tool wrote to standard error.
pub fn run_tool_ok(
    what: &str,
    tool: &Tool,
    args: &[&str],
    name: &Path,
    kind: ErrorKind,
    failed: &str,
) -> Result<std::process::Output> {
    let out = run_tool(what, tool, args, name)?;
    if out.status.success() {
        return Ok(out);
    }
    let head: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .map(str::to_string)
        .collect();
    Err(Error::new(kind, format!("{failed}: {}", head.join(" / "))).in_file(name))
}

/// The text of the SPIR-V module `spv` (`spirv-dis`), compiled from `name`.
pub fn disassemble(what: &str, spv: &str, name: &Path) -> Result<String> {
    let dis = run_tool_ok(
        what,
        &SPIRV_DIS,
        &[spv],
        name,
        ErrorKind::Io,
        "spirv-dis failed",
    )?;
    Ok(String::from_utf8_lossy(&dis.stdout).into_owned())
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
