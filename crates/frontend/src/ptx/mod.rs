//! PTX kernels: the text `nvcc -ptx` and `clang --cuda-device-only -S`
//! write (`*.ptx`), as opposed to the PTX litmus dialect of
//! `crate::litmus`. `ast` is the syntax tree, `parse` reads it, `launch`
//! is the launch configuration, `lower` translates a kernel and a launch
//! to an IR program with one thread per thread of the launch; see
//! docs/PTX-KERNELS.md.

pub mod ast;
#[cfg(test)]
mod call_tests;
pub mod demangle;
pub mod launch;
mod lex;
pub mod lower;
pub mod parse;
#[cfg(test)]
mod parse_tests;

use crate::diag::{Error, Result};
use crate::ir::Program;
use std::path::Path;

/// The source name of a kernel whose PTX name is an Itanium-mangled C++
/// name (`_Z6kernelPi` → `kernel`); `None` for an unmangled one.
pub fn cuda_name(name: &str) -> Option<String> {
    demangle::source_name(name).map(|n| n.base)
}

/// A kernel name as a user may write it (`ns::scale`, `reduce<256>`)
/// without its qualifiers and template arguments (`scale`, `reduce`).
pub fn unqualified(name: &str) -> &str {
    let name = name.split('<').next().unwrap_or(name);
    name.rsplit("::").next().unwrap_or(name)
}

/// Parses a PTX file and translates one of its kernels for a launch:
/// `launch` (the command line) over the file's `// gpumc-launch:` lines.
/// Errors carry `path` and `line:col`.
pub fn parse_kernel(src: &str, path: &Path, launch: &launch::Launch) -> Result<Program> {
    (|| {
        let header = launch::from_header(src)?;
        let launch = launch.over(&header);
        let module = parse::parse_module(src)?;
        lower::lower(&module, &launch).map_err(|e| at_source_line(e, &module, path))
    })()
    .map_err(|e| e.in_file(path))
}

/// An error at a line of the PTX gpumc compiled from a CUDA source
/// (`path`, a `.cu` file; with debug lines, `.file` and `.loc`) is
/// reported at the source line of the instruction there — for a line
/// without one (a parameter load before the function's first `.loc`), of
/// the nearest instruction before it that has one, else after it — naming
/// the compiled line too: the user wrote the CUDA file, not the PTX. (A
/// `.ptx` file the user gives keeps its own positions.)
fn at_source_line(mut e: Error, module: &ast::Module, path: &Path) -> Error {
    let Some(pos) = e.pos else { return e };
    let compiled = path.extension().is_some_and(|x| x == "cu");
    if !compiled || e.file.is_some() || module.files.is_empty() {
        return e;
    }
    fn collect(body: &[ast::Stmt], out: &mut Vec<(u32, ast::SrcLoc)>) {
        for st in body {
            match st {
                ast::Stmt::Instr(i) => {
                    if let Some(src) = i.src.filter(|s| s.line > 0) {
                        out.push((i.pos.line, src));
                    }
                }
                ast::Stmt::Block { body, .. } => collect(body, out),
                _ => {}
            }
        }
    }
    let mut lines = Vec::new();
    for f in &module.functions {
        collect(f.body.as_deref().unwrap_or_default(), &mut lines);
    }
    let before = (lines.iter())
        .filter(|(l, _)| *l <= pos.line)
        .max_by_key(|(l, _)| *l);
    let after = || {
        lines
            .iter()
            .filter(|(l, _)| *l > pos.line)
            .min_by_key(|(l, _)| *l)
    };
    let Some((_, src)) = before.or_else(after) else {
        return e;
    };
    let Some((_, file)) = module.files.iter().find(|(n, _)| *n == src.file) else {
        return e;
    };
    e.message = format!(
        "{} (at line {} of the compiled program)",
        e.message, pos.line
    );
    e.file = Some(std::path::PathBuf::from(file));
    e.pos = Some(crate::ir::Pos {
        line: src.line,
        col: src.col.max(1),
    });
    e
}

/// [`parse_kernel`] for the parametric engine: the kernel's generic
/// thread ([`lower::lower_generic`]) instead of every thread.
pub fn parse_generic_kernel(
    src: &str,
    path: &Path,
    launch: &launch::Launch,
) -> Result<(Program, lower::GenericParts)> {
    (|| {
        let header = launch::from_header(src)?;
        let launch = launch.over(&header);
        let module = parse::parse_module(src)?;
        lower::lower_generic(&module, &launch).map_err(|e| at_source_line(e, &module, path))
    })()
    .map_err(|e| e.in_file(path))
}

/// Whether a text looks like a PTX module: its first line that is not a
/// comment starts with a directive such as `.version` or `.target`.
pub fn looks_like_ptx(src: &str) -> bool {
    src.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//"))
        .is_some_and(|l| l.starts_with(".version") || l.starts_with(".target"))
}
