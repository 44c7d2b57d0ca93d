//! Reading a model and the files it includes into one statement list.

use super::ast::Stmt;
use super::parser::parse_file;
use super::prelude;
use crate::diag::{Error, Result};
use crate::ir::{Coherence, Pos};
use std::path::{Path, PathBuf};

/// Include nesting beyond this is reported as an error (it can only come
/// from a resolver that invents new paths forever).
const MAX_INCLUDE_DEPTH: usize = 64;

/// The statements of a model with its includes inlined, each tagged with
/// the index (into `files`) of the file it comes from.
pub struct Loaded {
    pub files: Vec<PathBuf>,
    pub stmts: Vec<(usize, Stmt)>,
    pub name: Option<String>,
    /// The coherence directive of the model or an include, with the file
    /// (index into `files`) and position where it was given.
    pub coherence: Option<(Coherence, usize, Pos)>,
}

pub type Resolver<'a> = &'a dyn Fn(&str, &Path) -> Option<(PathBuf, String)>;

pub fn load(src: &str, file: &Path, resolve: Resolver<'_>) -> Result<Loaded> {
    let mut l = Loaded {
        files: Vec::new(),
        stmts: Vec::new(),
        name: None,
        coherence: None,
    };
    let mut stack = Vec::new();
    load_file(&mut l, src, file, resolve, &mut stack, true)?;
    Ok(l)
}

fn identity(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn load_file(
    l: &mut Loaded,
    src: &str,
    path: &Path,
    resolve: Resolver<'_>,
    stack: &mut Vec<PathBuf>,
    top: bool,
) -> Result<()> {
    let parsed = parse_file(src).map_err(|e| e.in_file(path))?;
    let id = l.files.len();
    l.files.push(path.to_path_buf());
    if top {
        l.name = parsed.name;
    }
    if let Some((c, pos)) = parsed.coherence {
        match l.coherence {
            Some((other, f, at)) if other != c => {
                return Err(Error::semantic(
                    pos,
                    format!(
                        "contradicts the coherence directive at {}:{at}",
                        l.files[f].display()
                    ),
                )
                .in_file(path))
            }
            Some(_) => {}
            None => l.coherence = Some((c, id, pos)),
        }
    }
    stack.push(identity(path));
    for stmt in parsed.stmts {
        crate::guard::check()?;
        let Stmt::Include { file, pos } = &stmt else {
            l.stmts.push((id, stmt));
            continue;
        };
        // A file next to the includer that cannot be read is looked for
        // elsewhere; one that is not UTF-8 is an error at its bad byte.
        let local = match path.parent().map(|d| d.join(file)) {
            Some(p) => match std::fs::read(&p) {
                Ok(bytes) => {
                    let text = crate::diag::text(bytes).map_err(|e| e.in_file(&p))?;
                    Some((p, text))
                }
                Err(_) => None,
            },
            None => None,
        };
        let found = local.or_else(|| resolve(file, path));
        if found.is_none() && prelude::is_standard_include(file) {
            // herd7's / Dat3M's own library file: its definitions are the
            // built-in standard library, which every model already sees.
            continue;
        }
        let Some((inc_path, text)) = found else {
            return Err(Error::semantic(
                *pos,
                format!(
                    "cannot find included file \"{}\"",
                    crate::diag::excerpt(file)
                ),
            )
            .in_file(path));
        };
        let inc_id = identity(&inc_path);
        if let Some(k) = stack.iter().position(|p| *p == inc_id) {
            let mut chain: Vec<String> =
                stack[k..].iter().map(|p| p.display().to_string()).collect();
            chain.push(inc_path.display().to_string());
            return Err(
                Error::semantic(*pos, format!("include cycle: {}", chain.join(" -> ")))
                    .in_file(path),
            );
        }
        if stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(Error::semantic(*pos, "includes nested too deeply").in_file(path));
        }
        load_file(l, &text, &inc_path, resolve, stack, false)?;
    }
    stack.pop();
    Ok(())
}
