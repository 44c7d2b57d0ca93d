//! CUDA sources (`.cu`) in: compiled to PTX by clang's NVPTX back-end,
//! which needs no CUDA toolkit, then read as any PTX module
//! ([`crate::ptx`]). Our header (`examples/cuda/gpumc_cuda.h`: the CUDA
//! built-in variables, qualifiers, atomics and fences, written as macros
//! so that every memory instruction keeps the line of the `.cu` file) is
//! included first, so a kernel needs no `#include` of its own. Line tables
//! (`-gline-tables-only`) give every PTX instruction its CUDA line, which
//! the reports show. The source's `// gpumc-launch:` lines are kept, as
//! in a `.ptx` file; `--kernel` takes the CUDA name of a kernel that is not
//! `extern "C"` (its mangled PTX name is matched).
//!
//! The compiler is `$CLANG`, else `clang`; `$GPUMC_CUDA_FLAGS` adds flags
//! (split at white space), after ours, so it can change the optimisation
//! level (`-O0`; ours is `-O1`) or the GPU architecture.

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Pos;
use crate::scratch::Scratch;
use std::path::Path;
use std::process::Command;

/// Our CUDA header, included before the kernel.
pub const HEADER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/cuda/gpumc_cuda.h"
));

/// The flags every compilation gets (before `$GPUMC_CUDA_FLAGS`).
pub const FLAGS: &[&str] = &[
    "-x",
    "cuda",
    "--cuda-device-only",
    "-nocudainc",
    "-nocudalib",
    "--cuda-gpu-arch=sm_70",
    // PTX ISA 6.4: the warp primitives of the header (`shfl.sync`,
    // `vote.sync`, `bar.warp.sync`) need 6.0 or later, which clang does not
    // assume without a CUDA installation.
    "-Xclang",
    "-target-feature",
    "-Xclang",
    "+ptx64",
    "-S",
    "-O1",
    "-gline-tables-only",
];

/// Whether `name` is a CUDA source, by extension.
pub fn is_cuda(name: &Path) -> bool {
    name.extension().is_some_and(|e| e == "cu")
}

/// Compiles the CUDA source `src`, named `name` (its folder is searched
/// for `#include "…"` files), to PTX text whose line tables name `name`.
/// A compile error is a syntax error at clang's position in `name`; a
/// missing clang says which package provides it.
pub fn compile(src: &str, name: &Path, kernel: Option<&str>) -> Result<String> {
    let dir = Scratch::new("cuda")?;
    let copy = dir.copy_of(name, "kernel.cu");
    let header = dir.path().join("gpumc_cuda.h");
    let out = dir.path().join("kernel.ptx");
    for (path, text) in [(&copy, src), (&header, HEADER)] {
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let mut cmd = Command::new(&clang);
    cmd.args(FLAGS).arg("-include").arg(&header);
    if let Some(parent) = name.parent().filter(|p| !p.as_os_str().is_empty()) {
        cmd.arg("-I").arg(parent);
    }
    if let Ok(extra) = std::env::var("GPUMC_CUDA_FLAGS") {
        cmd.args(extra.split_whitespace());
    }
    cmd.arg(&copy).arg("-o").arg(&out);
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::new(
                ErrorKind::Io,
                format!(
                    "cannot compile CUDA: `{clang}` not found (install the `clang` package: its NVPTX back-end compiles CUDA to PTX without the CUDA toolkit; CLANG=PATH chooses another compiler)"
                ),
            )
            .in_file(name));
        }
        Err(e) => return Err(Error::io(Path::new(&clang), e).in_file(name)),
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(clang_error(&stderr, &copy, name, "the CUDA source"));
    }
    let ptx = std::fs::read_to_string(&out).map_err(|e| Error::io(&out, e))?;
    // `--param in=…` and the witnesses use the source's parameter names.
    let ptx = crate::cuda_params::rename(&ptx, src);
    // The line tables name the scratch copy: name the user's file instead.
    let copy_text = copy.display().to_string();
    let shown = name.display().to_string();
    // The source's launch lines, which a PTX module reads as its own:
    // those for the whole file, and those of the kernel chosen.
    let launch_lines = launch_lines(src, kernel).into_iter();
    Ok(launch_lines
        .chain(ptx.lines().map(str::to_string))
        .map(|l| {
            if l.trim_start().starts_with(".file") {
                l.replace(&copy_text, &shown)
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The `// gpumc-launch:` lines of `src` that apply to `kernel` (its CUDA
/// or PTX name; `None`: the file's only kernel). A line belongs to the
/// kernel whose `__global__` declaration follows it after comment lines
/// only (no blank line, no code): such lines are kept for that kernel
/// alone, the others for every kernel.
fn launch_lines(src: &str, kernel: Option<&str>) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        if !t.starts_with("// gpumc-launch:") {
            continue;
        }
        let owner = lines[i + 1..]
            .iter()
            .map(|l| l.trim_start())
            .find(|l| !l.starts_with("//"))
            .filter(|l| l.contains("__global__"))
            .and_then(|l| crate::cuda_params::declared_name(&l[..l.find('(')?]));
        let applies = match (&owner, kernel) {
            (None, _) => true,
            (Some(o), Some(k)) => {
                o == k
                    || crate::ptx::cuda_name(k).is_some_and(|base| base == *o)
                    || crate::ptx::unqualified(k) == o
            }
            // No kernel named: the file must have one, whose lines apply.
            (Some(_), None) => true,
        };
        if applies {
            out.push(t.to_string());
        }
    }
    out
}

/// clang's first error, at its position when it is in the compiled file
/// (`FILE:LINE:COL: error: …`), else the first lines of its output
/// (`what`: what was compiled, for that message).
pub(crate) fn clang_error(stderr: &str, copy: &Path, name: &Path, what: &str) -> Error {
    let prefix = format!("{}:", copy.display());
    for line in stderr.lines() {
        let Some(rest) = line.strip_prefix(&prefix) else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(l), Some(c), Some(msg)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(line_no), Ok(col)) = (l.parse::<u32>(), c.parse::<u32>()) else {
            continue;
        };
        let Some(msg) = msg.trim_start().strip_prefix("error:") else {
            continue;
        };
        return Error::syntax(Pos { line: line_no, col }, format!("clang: {}", msg.trim()))
            .in_file(name);
    }
    let head: Vec<&str> = stderr.lines().take(5).collect();
    Error::new(
        ErrorKind::Syntax,
        format!("clang could not compile {what}: {}", head.join(" / ")),
    )
    .in_file(name)
}
