//! Where a C or OpenCL test's threads run and where its locations live:
//! herd's `scopeTree` after the threads (as in `GPU_PTX` tests, with
//! OpenCL's level names), the memory map after it (`x: global, y:
//! local`), and the address-space qualifiers of declarations and
//! parameters (`local atomic_int* y`). Local memory belongs to one
//! work-group (CTA): a local location used by two is an error.

use super::super::gpu_ptx::{memory_instrs, scope};
use super::super::source::{lex_with, Cursor, Source, Tok};
use super::super::Locs;
use super::ast::{Init, Test};
use super::lexer::{at_tail, skip_blank};
use super::parser::at_scope_tree;
use crate::diag::{Error, Result};
use crate::ir::{Placement, Thread};
use std::collections::HashMap;

/// Region names of a C test's memory map: OpenCL's `local` and CUDA's
/// `shared` both name the work-group's memory.
const C_REGIONS: scope::Regions = &[
    ("global", "global"),
    ("local", "shared"),
    ("shared", "shared"),
];

/// The scope tree and memory map at `off` (where the threads end), each
/// optional; returns them and the offset of the final part.
#[allow(clippy::type_complexity)]
pub(super) fn scope_tree_and_map<'a>(
    src: &Source<'a>,
    off: usize,
    names: &[String],
) -> Result<(Option<Vec<Placement>>, Option<scope::MemoryMap<'a>>, usize)> {
    let off = skip_blank(src, off)?;
    if off >= src.len() || at_tail(src, off)? {
        return Ok((None, None, off));
    }
    let tree_kw = at_scope_tree(src, off);
    let start = if tree_kw {
        off + "scopeTree".len()
    } else {
        off
    };
    let toks = lex_with(src, start, src.len(), &[".", "&"])?;
    let mut cur = Cursor::new(src, toks);
    let tree = if tree_kw {
        Some(scope::tree(&mut cur, names, off)?)
    } else {
        None
    };
    let map = match (cur.peek(), cur.nth(1)) {
        (Tok::Ident(w), Tok::Punct(":")) if !super::super::gpu_ptx::is_tail_word(w) => {
            Some(scope::memory_map(&mut cur, C_REGIONS)?)
        }
        _ => None,
    };
    Ok((tree, map, cur.off()))
}

/// Each location's region from the qualifiers and the map, which must
/// agree; sets `space` where one is given and returns, per location,
/// whether it is in local (work-group) memory.
pub(super) fn regions(
    src: &Source,
    locs: &mut Locs,
    test: &Test,
    map: Option<&scope::MemoryMap>,
) -> Result<Vec<bool>> {
    let mut claims: Vec<(&str, usize, &'static str)> = Vec::new();
    for init in &test.inits {
        if let Init::Loc {
            name,
            off,
            region: Some(r),
            ..
        } = init
        {
            claims.push((name, *off, r));
        }
    }
    for def in &test.threads {
        claims.extend(
            def.params
                .iter()
                .filter_map(|p| Some((p.name, p.off, p.region?))),
        );
    }
    claims.extend(map.iter().flat_map(|m| m.entries.iter().copied()));
    let mut first: HashMap<&str, (usize, &'static str)> = HashMap::new();
    for (name, off, region) in claims {
        let (off0, region0) = *first.entry(name).or_insert((off, region));
        if region0 != region {
            let line = src.pos(off0).line;
            return Err(src.err_semantic(
                off,
                format!(
                    "`{name}` is in {} memory here but in {} memory on line {line}",
                    spelling(region),
                    spelling(region0)
                ),
            ));
        }
        let id = locs.use_loc(name);
        locs.list[id].space = Some(region.to_string());
    }
    Ok(locs
        .list
        .iter()
        .map(|l| l.space.as_deref() == Some("shared"))
        .collect())
}

fn spelling(region: &str) -> &str {
    if region == "shared" {
        "local"
    } else {
        region
    }
}

/// No local location is used by threads of two work-groups (each
/// work-group has its own local memory, so such a test has no meaning).
pub(super) fn check_local_memory(locs: &Locs, threads: &[Thread]) -> Result<()> {
    let mut owner: HashMap<usize, (usize, &[i64])> = HashMap::new();
    let name = |ids: &[i64]| match ids {
        [wg, dev, ..] => format!("work-group {wg} of device {dev}"),
        _ => format!("work-group {ids:?}"),
    };
    for (t, th) in threads.iter().enumerate() {
        // A work-group is its placement from the work-group level up.
        let wg = th.placement.ids.as_slice();
        for (ins, cells) in memory_instrs(&th.instrs) {
            for &c in cells {
                if locs.list[c].space.as_deref() != Some("shared") {
                    continue;
                }
                let (t0, wg0) = *owner.entry(c).or_insert((t, wg));
                if wg0 != wg {
                    return Err(Error::semantic(
                        ins.pos,
                        format!(
                            "local location `{}` is used by `{}` ({}) and by `{}` ({}): \
                             local memory belongs to one work-group",
                            locs.list[c].name,
                            threads[t0].name,
                            name(wg0),
                            th.name,
                            name(wg)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
