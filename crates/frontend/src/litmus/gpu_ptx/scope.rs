//! The `ScopeTree` S-expression and the memory map that follows it.
//!
//! ```text
//! tree  := '(' level (tree | thread)* ')'
//! level := device | kernel | grid | cta | block | warp   (outermost first)
//! map   := (location ':' region [','|';'])*              region: global | shared
//! ```
//!
//! The C and OpenCL litmus dialects (`c/mod.rs`) read the same tree with
//! OpenCL's level names as well (`work_group` = `cta`, `sub_group` =
//! `warp`) and their own region names ([`Regions`]).
//!
//! A level inside another must be a lower one. A level left out gives
//! each thread (or warp) below it an instance of its own.

use super::super::source::{parse_usize, Cursor, Tok};
use super::{is_tail_word, thread_index};
use crate::diag::Result;
use crate::ir::Placement;

/// Rank of a scope level: a child's must be lower than its parent's.
fn rank(level: &str) -> Option<u8> {
    Some(match level {
        "device" => 3,
        "kernel" | "grid" => 2,
        "cta" | "block" | "work_group" | "workgroup" => 1,
        "warp" | "sub_group" | "subgroup" => 0,
        _ => return None,
    })
}

/// Assigns CTA and warp numbers while the tree is read.
struct Walk<'n> {
    names: &'n [String],
    /// Warps so far in each CTA.
    ctas: Vec<i64>,
    placed: Vec<Option<(usize, i64)>>,
    kernels: usize,
}

impl Walk<'_> {
    fn new_cta(&mut self) -> usize {
        self.ctas.push(0);
        self.ctas.len() - 1
    }

    fn new_warp(&mut self, cta: usize) -> i64 {
        let w = self.ctas[cta];
        self.ctas[cta] += 1;
        w
    }

    /// The list opened by the next `(`, inside a level of rank `parent`.
    fn node(
        &mut self,
        cur: &mut Cursor,
        parent: u8,
        mut cta: Option<usize>,
        mut warp: Option<i64>,
    ) -> Result<()> {
        let src = cur.src;
        let open = cur.expect_punct("(")?;
        let (level, level_off) =
            cur.expect_ident("a scope level (`device`, `kernel`, `cta`, `warp`)")?;
        let Some(r) = rank(level) else {
            return Err(src.err_syntax(
                level_off,
                format!(
                    "unknown scope level `{level}` (expected `device`, `kernel`, `grid`, \
                     `cta`, `block`, `work_group`, `warp` or `sub_group`)"
                ),
            ));
        };
        if r >= parent {
            return Err(src.err_syntax(
                level_off,
                format!("a `{level}` cannot be inside this level (levels go device > kernel > cta > warp)"),
            ));
        }
        match r {
            2 => {
                self.kernels += 1;
                if self.kernels > 1 {
                    return Err(src.err_unsupported(
                        level_off,
                        "threads in more than one kernel (concurrent kernels)",
                    ));
                }
            }
            1 => {
                cta = Some(self.new_cta());
                warp = None;
            }
            0 => {
                let c = cta.unwrap_or_else(|| self.new_cta());
                cta = Some(c);
                warp = Some(self.new_warp(c));
            }
            _ => {}
        }
        loop {
            match cur.peek() {
                Tok::Punct("(") => self.node(cur, r, cta, warp)?,
                Tok::Punct(")") => {
                    cur.bump();
                    return Ok(());
                }
                Tok::Ident(name) => {
                    let off = cur.bump().off;
                    self.thread(cur, name, off, cta, warp)?;
                }
                Tok::Eof => return Err(src.err_syntax(open, "unclosed `(` in the scope tree")),
                _ => return Err(cur.unexpected("a thread like `T0`, `(` or `)`")),
            }
        }
    }

    fn thread(
        &mut self,
        cur: &Cursor,
        name: &str,
        off: usize,
        cta: Option<usize>,
        warp: Option<i64>,
    ) -> Result<()> {
        let src = cur.src;
        let n = self.names.len();
        let Some(digits) = thread_index(name) else {
            return Err(src.err_syntax(
                off,
                format!("expected a thread like `T0` or a `(`, found `{name}`"),
            ));
        };
        let t = parse_usize(src, off, digits)?;
        if t >= n {
            return Err(src.err_semantic(
                off,
                format!(
                    "thread `{name}` does not exist (the test has {n} thread{})",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        if self.placed[t].is_some() {
            return Err(src.err_semantic(
                off,
                format!("thread `{name}` appears twice in the scope tree"),
            ));
        }
        let c = cta.unwrap_or_else(|| self.new_cta());
        let w = warp.unwrap_or_else(|| self.new_warp(c));
        self.placed[t] = Some((c, w));
        Ok(())
    }
}

/// The tree at the cursor (just after the `ScopeTree` keyword at
/// `keyword`); one placement per thread of `names`.
pub(crate) fn tree(cur: &mut Cursor, names: &[String], keyword: usize) -> Result<Vec<Placement>> {
    let src = cur.src;
    if !cur.at_punct("(") {
        return Err(cur.unexpected("a scope tree `(device (cta (warp T0) ...))`"));
    }
    let mut walk = Walk {
        names,
        ctas: Vec::new(),
        placed: vec![None; names.len()],
        kernels: 0,
    };
    walk.node(cur, u8::MAX, None, None)?;
    if cur.at_punct("(") {
        return Err(src.err_unsupported(
            cur.off(),
            "a second scope tree (threads on more than one device)",
        ));
    }
    walk.placed
        .iter()
        .zip(names)
        .map(|(p, name)| match p {
            Some((c, w)) => Ok(Placement {
                ids: vec![*c as i64, 0],
                warp: Some(*w),
            }),
            None => {
                Err(src.err_semantic(keyword, format!("thread `{name}` is not in the scope tree")))
            }
        })
        .collect()
}

/// The region names a dialect's memory map accepts, each with the region
/// it means (`global` or `shared`: work-group memory).
pub(crate) type Regions = &'static [(&'static str, &'static str)];

/// PTX's names (`.local` is thread-private memory there, never a map's).
pub(crate) const PTX_REGIONS: Regions = &[("global", "global"), ("shared", "shared")];

/// `x: global, y: shared`.
pub(crate) struct MemoryMap<'a> {
    /// (location, its offset, region).
    pub entries: Vec<(&'a str, usize, &'static str)>,
    /// Offset of the first entry.
    pub off: usize,
}

/// The map at the cursor (which is at `name :`), with the region names of
/// `regions`.
pub(crate) fn memory_map<'a>(cur: &mut Cursor<'a, '_>, regions: Regions) -> Result<MemoryMap<'a>> {
    let src = cur.src;
    let mut map = MemoryMap {
        entries: Vec::new(),
        off: cur.off(),
    };
    while let (Tok::Ident(name), Tok::Punct(":")) = (cur.peek(), cur.nth(1)) {
        if is_tail_word(name) {
            break;
        }
        let off = cur.bump().off;
        cur.bump();
        let names = regions
            .iter()
            .map(|(n, _)| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let (region, r_off) = cur.expect_ident(&format!("a memory region ({names})"))?;
        let Some(&(_, region)) = regions.iter().find(|(n, _)| *n == region) else {
            return Err(src.err_unsupported(
                r_off,
                format!("memory region `{region}` (expected {names})"),
            ));
        };
        if map.entries.iter().any(|(n, _, _)| *n == name) {
            return Err(src.err_semantic(off, format!("location `{name}` is mapped twice")));
        }
        map.entries.push((name, off, region));
        if !cur.eat_punct(",") {
            cur.eat_punct(";");
        }
    }
    Ok(map)
}
