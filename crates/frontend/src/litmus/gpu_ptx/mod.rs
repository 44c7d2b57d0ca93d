//! herd7's `GPU_PTX` litmus dialect: the format of Sorensen's GPU litmus
//! tests (Sorensen, MS thesis, University of Utah, 2014, ch. 3; Alglave et
//! al., ASPLOS 2015). A test reads:
//!
//! ```text
//! GPU_PTX MP+membar.gls                   header
//! "optional comment strings"
//! {
//! x=0;                                    memory initialisers
//! 0: .reg .s32 r0;                        register declarations
//! 0: .reg .b64 r1 = x;                    r1 holds the address of x
//! 1: .reg .s32 r2 = 5;                    ... or an initial value
//! 1:r3=7;                                 herd style (`P1:r3=7` too)
//! }
//! T0                | T1                ; thread row (`P0 | P1` too)
//! mov.s32 r0,1      | ld.cg.s32 r0,[r1] ; one instruction per cell
//! st.cg.s32 [r1],r0 | membar.gl         ;
//! membar.gl         | ld.cg.s32 r2,[x]  ; `[x]`: a location directly
//! st.cg.s32 [r3],r0 |                   ;
//! ScopeTree                               (also `scopeTree`)
//! (device (cta (warp T0)) (cta (warp T1)))
//! x: global, y: global                    memory map
//! exists (1:r0=1 /\ 1:r2=0)               or `~exists`, `forall`;
//! ```                                     `filter`, `locations [...]`
//!
//! * **Registers** are `r<k>` or `p<k>` (predicates); declaring them is
//!   optional. A register declared `= x` (which needs a 64-bit type)
//!   holds the address of location `x`; other registers hold values
//!   (initially 0). Addresses are tracked statically ([`flow`]): the IR
//!   value of an address register is its offset from its location, so
//!   `[r]` is `x` when the offset is known to be 0, and otherwise an
//!   indexed access to the one cell `x` (offset 0 in bounds, anything else
//!   undefined behaviour) — the thesis's address dependencies (a loaded
//!   value masked to 0, converted, added to an address) give the model its
//!   `addr` edge this way. `add`/`sub` of an address and a value, `mov`
//!   and `cvt` of an address keep it an address; any other use of an
//!   address as a value is refused.
//! * **Scope tree** `(device (cta (warp T0) (warp T1)) (cta (warp T2)))`:
//!   levels `device` (also `kernel`, `grid`, which may also sit below
//!   `device`), `cta` (`block`), `warp`, then thread names. A level left
//!   out gives each thread (or warp) below it its own instance: `(device
//!   (cta T0 T1))` puts T0 and T1 in different warps of one CTA. Every
//!   thread appears exactly once. CTAs are numbered in order of
//!   appearance: placement `[cta, 0]`, and `warp` = the warp's index in
//!   its CTA (the models do not see warps; hardware runs do).
//! * **Memory map**: `x: global, y: shared` (commas optional). When there
//!   is a map every location must be in it; without one every location
//!   is global. The region is the location's `space`. A shared location
//!   accessed by threads of different CTAs, and a `.global`/`.shared`
//!   qualifier that contradicts the map, are semantic errors.
//! * **Instructions**: see [`instr`] for the forms. Tags (`docs/EVENTS.md`,
//!   "Tags from the GPU_PTX front-end"), each with `GEN`:
//!
//!   | access | tags |
//!   |---|---|
//!   | `ld`/`st` plain, `.weak`, or with a cache operator | `WEAK`, plus `CA` `CG` `CS` `CV` `LU` `WB` `WT` for `.ca` … `.wt` |
//!   | `.volatile` (a relaxed access at system scope, PTX ISA) | `RLX`, `SYS`, `VOLATILE` |
//!   | `.relaxed` / `.acquire` / `.release` + scope | `RLX` / `ACQ` / `REL`, `CTA` / `GPU` / `SYS` |
//!   | `atom`, `red` (`.relaxed` `.gpu` by default) | scope; order split over the read and the write (`tagging.rs`) |
//!   | `membar`, `fence`, `bar` | as the Dat3M PTX dialect (`membar.gl` = `fence.sc.gpu`) |
//!   `@p ins` / `@!p ins` runs `ins` when predicate `p` is non-zero /
//!   zero (lowered to a branch around it); a cell may start with labels
//!   `L:` for `bra L`.
//! * **Values** are 64-bit integers: arithmetic does not wrap at 32 bits
//!   and `cvt` does not truncate (litmus values are small).

mod cell;
mod check;
mod flow;
mod init;
mod instr;
pub(super) mod scope;
#[cfg(test)]
mod tests;

use super::source::{lex_with, parse_usize, Cursor, Tok};
use super::{check_labels, Parser};
use crate::diag::Result;
use crate::ir::{Instr, Placement, Program, Thread};

/// Is `s` a register of this dialect (`r<k>` or `p<k>`)?
pub(super) fn is_register(s: &str) -> bool {
    let digits = s.strip_prefix('r').or_else(|| s.strip_prefix('p'));
    digits.is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The thread index of `T<n>` (herd7 also writes `P<n>`, which the
/// callers accept through `source::thread_index`).
pub(super) fn thread_index(s: &str) -> Option<&str> {
    let digits = s.strip_prefix('T').or_else(|| s.strip_prefix('P'))?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// Extra punctuation of this dialect's free-form parts: `.` in `.reg`
/// declarations, `&` as a conjunction in conditions.
const PUNCTS: &[&str] = &[".", "&"];

impl<'a> Parser<'a> {
    /// Everything after the header and the comment strings of a `GPU_PTX`
    /// test; `open` is the offset of the initial block's `{`.
    pub(super) fn run_gpu_ptx(mut self, name: String, open: usize) -> Result<Program> {
        let close = self.block_end(open, "initial-state block")?;
        let block = init::parse(&self.src, open, close)?;
        for d in block.decls {
            self.declare(d)?;
        }
        let (names, after) = self.gpu_thread_row(self.src.skip_ws(close + 1))?;
        let n = names.len();
        let start = init::thread_states(&self.src, &mut self.locs, &block.regs, n)?;
        let (threads, off) = self.gpu_rows(after, start)?;
        let (placements, map, tail_off) = self.gpu_scope_and_map(off, &names)?;
        // A location only the map names may still appear in the condition.
        for &(name, _, _) in map.iter().flat_map(|m| &m.entries) {
            self.locs.use_loc(name);
        }
        let (filter, assertion, observed) = self.tail(tail_off, n)?;
        for (th, name) in threads.iter().zip(&names) {
            check_labels(name, &th.instrs)?;
        }
        check::memory_map(&self.src, &mut self.locs, map.as_ref(), &threads)?;
        check::regions(&self.locs, &threads, &placements, &names)?;
        let threads = threads
            .into_iter()
            .zip(placements)
            .zip(names)
            .map(|((th, placement), name)| Thread {
                name,
                placement,
                instrs: th.instrs,
                init_regs: th.init_regs,
            })
            .collect();
        Ok(Program {
            kernel: false,
            name,
            arch: self.arch,
            threads,
            locations: self.locs.list,
            ssw: Vec::new(),
            filter,
            assertion,
            observed,
            inputs: Vec::new(),
            source_map: Default::default(),
            assumptions: Vec::new(),
            header: Vec::new(),
            default_model: None,
        })
    }

    /// `T0 | T1 ;` → the thread names and the offset after the row.
    fn gpu_thread_row(&self, off: usize) -> Result<(Vec<String>, usize)> {
        let src = &self.src;
        if off >= src.len() {
            return Err(src.err_syntax(
                off,
                "expected the thread header row (`T0 | T1 ;`), found end of input",
            ));
        }
        let row = self
            .split_row(off)
            .map_err(|at| src.err_syntax(at, "missing `;` at the end of the thread header row"))?;
        let mut names = Vec::new();
        for (col, &(cell_off, text)) in row.cells.iter().enumerate() {
            if text.is_empty() && col + 1 == row.cells.len() && col > 0 {
                break; // a trailing `|` before `;`
            }
            match thread_index(text) {
                Some(d) if parse_usize(src, cell_off, d)? == col => names.push(text.to_string()),
                _ => {
                    return Err(src.err_semantic(
                        cell_off,
                        format!(
                            "expected thread `T{col}` in column {}, found `{text}`",
                            col + 1
                        ),
                    ))
                }
            }
        }
        Ok((names, row.end))
    }

    /// Is the text at `off` the `ScopeTree` keyword?
    fn at_scope_tree(&self, off: usize) -> bool {
        self.src
            .ident_at(off)
            .is_some_and(|w| w.eq_ignore_ascii_case("scopetree"))
    }

    /// The instruction rows, up to `ScopeTree`; returns each thread's state
    /// and the offset of the keyword.
    fn gpu_rows(
        &mut self,
        mut off: usize,
        mut threads: Vec<instr::ThreadState>,
    ) -> Result<(Vec<instr::ThreadState>, usize)> {
        let n = threads.len();
        loop {
            off = self.src.skip_ws(off);
            if self.at_scope_tree(off) {
                return Ok((threads, off));
            }
            // `not.pred p, q` is an instruction, `not exists` the end.
            let instruction = self
                .src
                .ident_at(off)
                .is_some_and(|w| self.src.byte(off + w.len()) == Some(b'.'));
            if off >= self.src.len() || (self.at_tail(off) && !instruction) {
                return Err(self.src.err_syntax(
                    off,
                    "expected `ScopeTree` after the program: a GPU_PTX test places its \
                     threads with `ScopeTree (device (cta (warp T0) ...))`",
                ));
            }
            let row = self.split_row(off).map_err(|at| {
                self.src
                    .err_syntax(at, "missing `;` at the end of the row (or `ScopeTree`)")
            })?;
            for (col, &(cell_off, text)) in row.cells.iter().enumerate() {
                if text.is_empty() {
                    continue;
                }
                let Some(th) = threads.get_mut(col) else {
                    return Err(self.src.err_syntax(
                        cell_off,
                        format!(
                            "this row has more columns than the {n} declared thread{}",
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                };
                let c = cell::parse(&self.src, text)?;
                instr::lower(&self.src, &mut self.locs, th, &c)?;
            }
            off = row.end;
        }
    }

    /// `ScopeTree` (at `off`), its tree and the optional memory map;
    /// returns the placements, the map and the offset of the final part.
    #[allow(clippy::type_complexity)]
    fn gpu_scope_and_map(
        &self,
        off: usize,
        names: &[String],
    ) -> Result<(Vec<Placement>, Option<scope::MemoryMap<'a>>, usize)> {
        let keyword_len = "ScopeTree".len();
        let toks = lex_with(&self.src, off + keyword_len, self.src.len(), PUNCTS)?;
        let mut cur = Cursor::new(&self.src, toks);
        let placements = scope::tree(&mut cur, names, off)?;
        let map = match (cur.peek(), cur.nth(1)) {
            (Tok::Ident(w), Tok::Punct(":")) if !is_tail_word(w) => {
                Some(scope::memory_map(&mut cur, scope::PTX_REGIONS)?)
            }
            _ => None,
        };
        Ok((placements, map, cur.off()))
    }
}

/// Words that start the final part of a test.
pub(super) fn is_tail_word(w: &str) -> bool {
    matches!(w, "exists" | "forall" | "filter" | "locations" | "not")
}

/// The instructions of one thread with their positions, for the checks
/// that need the whole program.
pub(super) fn memory_instrs(instrs: &[Instr]) -> impl Iterator<Item = (&Instr, &[usize])> {
    instrs
        .iter()
        .filter_map(|i| i.kind.addr().map(|a| (i, a.cells())))
}
