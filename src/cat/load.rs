//! Reading a model and the files it includes into one statement list.

use super::ast::Stmt;
use super::parser::parse_file;
use crate::diag::{Error, Result};
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
    pub partial_co: bool,
}

pub type Resolver<'a> = &'a dyn Fn(&str, &Path) -> Option<(PathBuf, String)>;

pub fn load(src: &str, file: &Path, resolve: Resolver<'_>) -> Result<Loaded> {
    let mut l = Loaded {
        files: Vec::new(),
        stmts: Vec::new(),
        name: None,
        partial_co: false,
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
    l.partial_co |= parsed.partial_co;
    stack.push(identity(path));
    for stmt in parsed.stmts {
        let Stmt::Include { file, pos } = &stmt else {
            l.stmts.push((id, stmt));
            continue;
        };
        let local = path.parent().map(|d| d.join(file)).and_then(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            Some((p, text))
        });
        let Some((inc_path, text)) = local.or_else(|| resolve(file, path)) else {
            return Err(
                Error::semantic(*pos, format!("cannot find included file \"{file}\""))
                    .in_file(path),
            );
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
