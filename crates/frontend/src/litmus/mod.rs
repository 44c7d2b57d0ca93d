//! PTX and Vulkan litmus front-end: the Dat3M dialects (below) and
//! herd7's `GPU_PTX` dialect of Sorensen's GPU litmus tests (header
//! `GPU_PTX name`; see `gpu_ptx/mod.rs`).
//!
//! A Dat3M test reads:
//!
//! ```text
//! PTX MP                                  header: dialect (`PTX`, `VULKAN`
//! "optional comment strings"              or `Vulkan`) and the test name
//! { x=0; P1:r0=0; y @ texture aliases x; } initial state
//! { ssw 0 1; }                            (Vulkan only, optional)
//!  P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;      thread header row
//!  st.weak x, 1   | ld.weak r0, x  ;      one row per line, `|` between
//!                 | LC00:          ;      threads, `;` at the end
//! filter (...)                            optional
//! exists (P1:r0 == 1)                     or `~exists`, `not exists`,
//! locations [x; P1:r0;]                   `forall`; all optional
//! ```
//!
//! Details:
//!
//! * Comment strings run from a `"` to a `"` that ends its line (so a
//!   comment may span lines and contain quotes).
//! * Initial state: `x=0`, `P0:r0=0` (also `0:r0=0`), `y @ generic aliases
//!   x` (proxies `generic surface texture constant`), `y aliases x`;
//!   separated by `;` (the last may lack it). An alias must follow its
//!   target; its physical location is the root of the alias chain and its
//!   initial value the root's.
//! * **Undeclared locations**: a location used by an instruction but not
//!   declared is added (after the declared ones, in order of first use, row
//!   by row) with initial value 0 and no alias. A location named in a
//!   condition must be declared or used.
//! * Placement: PTX `P0@cta 0,gpu 0` → ids `[cta, gpu]`; Vulkan `P0@sg
//!   0,wg 0,qf 0` → `[sg, wg, qf]` (any order, every level required). A bare
//!   `P0` is placed at all zeros. Threads must be numbered `P0, P1, …`.
//! * Rows must each fit on one line. A cell may hold labels `L:` followed by
//!   at most one instruction. Registers are `r<digits>`.
//! * Barrier operands (`bar.cta.sync`, `cbar`): `id`, `a, id` (the first is
//!   ignored), or `a, id, count` (count = the quorum). Ids are integers
//!   (so `00` is barrier 0 — no test mixes `0` and `00`) or registers.
//! * Conditions: see `cond.rs`. `P1:r0 = 1` means `==`.
//!
//! Instruction forms and tags: `ptx.rs`, `vulkan.rs` and `docs/EVENTS.md`.

mod c;
mod cond;
mod gpu_ptx;
mod instr;
mod ptx;
mod source;
#[cfg(test)]
mod tests;
mod vulkan;

use crate::diag::{Error, Result};
use crate::ir::{
    Arch, Assertion, Cond, Instr, InstrKind, LocId, Location, Placement, Program, Quantifier, Term,
    Thread,
};
use source::{
    is_ident, is_register, lex, lex_with, parse_usize, thread_index, Cursor, Source, Tok,
};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Parses a litmus test; the dialect is the first word: `PTX`,
/// `VULKAN`/`Vulkan`, herd7's `GPU_PTX`, or herd7's `C` and `OpenCL`
/// (`c/mod.rs`).
///
/// Locations used by instructions but not declared in the initial state
/// are added with initial value 0 (see the module documentation). Errors
/// carry `path` and the exact `line:col`: [`Error::syntax`] for malformed
/// text, [`Error::unsupported`] for well-formed constructs gpumc does not
/// handle, [`Error::semantic`] for unknown labels, locations or threads.
pub fn parse(src: &str, path: &Path) -> Result<Program> {
    let first = src.split_whitespace().next();
    let result = if matches!(first, Some("C" | "OpenCL" | "OPENCL")) {
        c::parse(src)
    } else {
        Parser::new(src).run()
    };
    result.map_err(|e| e.in_file(path))
}

/// The location table; undeclared locations are added on first use.
#[derive(Default)]
pub(super) struct Locs {
    list: Vec<Location>,
    index: HashMap<String, LocId>,
}

impl Locs {
    pub fn get(&self, name: &str) -> Option<LocId> {
        self.index.get(name).copied()
    }

    fn add(
        &mut self,
        name: &str,
        phys: Option<LocId>,
        virt: Option<LocId>,
        init: i64,
        space: Option<String>,
    ) -> LocId {
        let id = self.list.len();
        self.list.push(Location {
            name: name.to_string(),
            phys: phys.unwrap_or(id),
            virt: virt.unwrap_or(id),
            init,
            init_arbitrary: None,
            space,
        });
        self.index.insert(name.to_string(), id);
        id
    }

    /// The id of `name`, declaring it (initially 0) if needed.
    pub fn use_loc(&mut self, name: &str) -> LocId {
        match self.get(name) {
            Some(id) => id,
            None => self.add(name, None, None, 0, None),
        }
    }
}

/// A row: its cells (trimmed, with offsets) and the offset after its `;`.
struct Row<'a> {
    cells: Vec<(usize, &'a str)>,
    end: usize,
}

/// A register initialisation, checked once the thread count is known.
struct RegInit<'a> {
    thread: usize,
    name: &'a str,
    off: usize,
    reg: String,
    value: i64,
}

struct Parser<'a> {
    src: Source<'a>,
    arch: Arch,
    /// herd7's `GPU_PTX` dialect (`arch` is then PTX).
    gpu: bool,
    locs: Locs,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            src: Source::new(text),
            arch: Arch::Ptx,
            gpu: false,
            locs: Locs::default(),
        }
    }

    fn run(mut self) -> Result<Program> {
        let (name, off) = self.header()?;
        let (open, header) = self.preamble(off)?;
        if self.gpu {
            let mut p = self.run_gpu_ptx(name, open)?;
            p.header = header;
            return Ok(p);
        }
        let (reg_inits, mut off) = self.init_block(open)?;
        off = self.src.skip_ws(off);
        let mut ssw = Vec::new();
        if self.src.byte(off) == Some(b'{') {
            let (pairs, after) = self.ssw_block(off)?;
            ssw = pairs;
            off = self.src.skip_ws(after);
        }
        let (placements, after) = self.thread_row(off)?;
        let n = placements.len();
        let (instrs, tail) = self.rows(after, n)?;
        let (filter, assertion, observed) = self.tail(tail, n)?;

        // Checks that need the thread count.
        let mut init_regs: Vec<Vec<(String, i64)>> = vec![Vec::new(); n];
        for r in reg_inits {
            if r.thread >= n {
                return Err(self.no_such_thread(r.off, r.name, n));
            }
            if init_regs[r.thread].iter().any(|(g, _)| *g == r.reg) {
                return Err(self.src.err_semantic(
                    r.off,
                    format!("register `{}:{}` is initialised twice", r.name, r.reg),
                ));
            }
            init_regs[r.thread].push((r.reg, r.value));
        }
        let ssw = ssw
            .into_iter()
            .map(|((a, a_off, a_name), (b, b_off, b_name))| {
                for (t, o, nm) in [(a, a_off, a_name), (b, b_off, b_name)] {
                    if t >= n {
                        return Err(self.no_such_thread(o, nm, n));
                    }
                }
                Ok((a, b))
            })
            .collect::<Result<Vec<_>>>()?;
        for (t, list) in instrs.iter().enumerate() {
            check_labels(&format!("P{t}"), list)?;
        }

        let threads = placements
            .into_iter()
            .zip(instrs)
            .zip(init_regs)
            .enumerate()
            .map(|(i, ((placement, instrs), init_regs))| Thread {
                name: format!("P{i}"),
                placement,
                instrs,
                init_regs,
            })
            .collect();
        Ok(Program {
            kernel: false,
            name,
            arch: self.arch,
            threads,
            locations: self.locs.list,
            ssw,
            filter,
            assertion,
            observed,
            // Litmus initial values are all defined (unlisted ones are 0).
            inputs: Vec::new(),
            source_map: Default::default(),
            assumptions: Vec::new(),
            header,
            default_model: None,
        })
    }

    fn no_such_thread(&self, off: usize, name: &str, n: usize) -> Error {
        self.src.err_semantic(
            off,
            format!(
                "thread `{name}` does not exist (the test has {n} thread{})",
                if n == 1 { "" } else { "s" }
            ),
        )
    }

    /// `PTX name` / `VULKAN name`; returns the name and the end of the line.
    fn header(&mut self) -> Result<(String, usize)> {
        let src = &self.src;
        let off = src.skip_ws(0);
        if off >= src.len() {
            return Err(src.err_syntax(
                off,
                "empty input: expected a litmus header such as `PTX name`, `VULKAN name` or `GPU_PTX name`",
            ));
        }
        let word_len = src.text[off..]
            .find(char::is_whitespace)
            .unwrap_or(src.len() - off);
        let word = &src.text[off..off + word_len];
        self.arch = match word {
            "PTX" => Arch::Ptx,
            "VULKAN" | "Vulkan" => Arch::Vulkan,
            "GPU_PTX" => {
                self.gpu = true;
                Arch::Ptx
            }
            w if is_ident(w) => {
                return Err(src.err_unsupported(
                    off,
                    format!(
                    "litmus dialect `{w}` (expected `PTX`, `VULKAN`, `GPU_PTX`, `C` or `OpenCL`)"
                ),
                ))
            }
            w => {
                return Err(src.err_syntax(
                    off,
                    format!("expected a litmus header such as `PTX name`, found `{w}`"),
                ))
            }
        };
        let word_end = off + word_len;
        let line_end = src.text[word_end..]
            .find('\n')
            .map_or(src.len(), |i| word_end + i);
        let name = src.text[word_end..line_end].trim();
        if name.is_empty() {
            return Err(src.err_syntax(word_end, format!("missing test name after `{word}`")));
        }
        Ok((name.to_string(), line_end))
    }

    /// Skips comment strings and herdtools' `Key=Value` header lines;
    /// returns the offset of the initial-state `{` and those lines.
    fn preamble(&self, mut off: usize) -> Result<(usize, Vec<(String, String)>)> {
        let src = &self.src;
        let mut header = Vec::new();
        loop {
            off = src.skip_ws(off);
            match src.byte(off) {
                None => {
                    return Err(src.err_syntax(
                        off,
                        "expected `{` to open the initial state, found end of input",
                    ))
                }
                Some(b'{') => return Ok((off, header)),
                Some(b'"') => off = self.skip_string(off)?,
                Some(_) => {
                    if let Some((k, v, end)) = src.key_value_line(off) {
                        header.push((k.to_string(), v.to_string()));
                        off = end;
                        continue;
                    }
                    let c = src.text[off..].chars().next().unwrap_or('?');
                    return Err(src.err_syntax(
                        off,
                        format!(
                            "expected `{{` to open the initial state, found `{c}` \
                             (comments must be in double quotes)"
                        ),
                    ));
                }
            }
        }
    }

    /// A comment string opened at `open` ends at a `"` that follows an even
    /// number of quotes inside the string (quoted words may nest) and is
    /// followed only by blanks up to the end of its line (or by `{`); returns
    /// the offset after it.
    fn skip_string(&self, open: usize) -> Result<usize> {
        let src = &self.src;
        let mut inner = 0usize;
        let mut i = open + 1;
        loop {
            match src.byte(i) {
                None => return Err(src.err_syntax(open, "unterminated comment string")),
                Some(b'"') => {
                    let mut j = i + 1;
                    while matches!(src.byte(j), Some(b' ' | b'\t' | b'\r')) {
                        j += 1;
                    }
                    if inner.is_multiple_of(2) && matches!(src.byte(j), None | Some(b'\n' | b'{')) {
                        return Ok(i + 1);
                    }
                    inner += 1;
                }
                Some(_) => {}
            }
            i += 1;
        }
    }

    /// The offset of the `}` closing the block opened at `open`.
    fn block_end(&self, open: usize, what: &str) -> Result<usize> {
        let bytes = self.src.text.as_bytes();
        let unclosed = || {
            self.src
                .err_syntax(open, format!("unterminated {what}: missing `}}`"))
        };
        for (i, &b) in bytes.iter().enumerate().skip(open + 1) {
            match b {
                b'}' => return Ok(i),
                b'{' => return Err(unclosed()),
                _ => {}
            }
        }
        Err(unclosed())
    }

    /// The initial-state block at `open`; returns the register
    /// initialisations and the offset after the block.
    fn init_block(&mut self, open: usize) -> Result<(Vec<RegInit<'a>>, usize)> {
        let close = self.block_end(open, "initial-state block")?;
        let toks = lex(&self.src, open + 1, close)?;
        // The cursor borrows the source; collect items first.
        let mut regs = Vec::new();
        let mut decls = Vec::new();
        {
            let mut cur = Cursor::new(&self.src, toks);
            loop {
                if cur.eat_punct(";") {
                    continue;
                }
                if cur.peek() == Tok::Eof {
                    break;
                }
                init_item(&mut cur, &mut regs, &mut decls)?;
                if !cur.eat_punct(";") && cur.peek() != Tok::Eof {
                    return Err(cur.unexpected("`;`"));
                }
            }
        }
        for d in decls {
            self.declare(d)?;
        }
        Ok((regs, close + 1))
    }

    fn declare(&mut self, d: Decl<'a>) -> Result<()> {
        if self.locs.get(d.name).is_some() {
            return Err(self
                .src
                .err_semantic(d.off, format!("location `{}` is declared twice", d.name)));
        }
        if is_register(d.name) {
            return Err(self.src.err_semantic(
                d.off,
                format!(
                    "`{0}` is a register name; initialise registers as `P0:{0}=0`",
                    d.name
                ),
            ));
        }
        match d.target {
            None => {
                self.locs.add(d.name, None, None, d.init, None);
            }
            Some((target, t_off)) => {
                let Some(t) = self.locs.get(target) else {
                    return Err(self.src.err_semantic(
                        t_off,
                        format!("alias target `{target}` is not declared before this alias"),
                    ));
                };
                let root = self.locs.list[t].phys;
                let init = self.locs.list[root].init;
                // A non-generic proxy alias is a virtual synonym of its
                // target (docs/EVENTS.md, `vloc`).
                let virt = match d.space {
                    Some("surface" | "texture" | "constant") => Some(self.locs.list[t].virt),
                    _ => None,
                };
                self.locs
                    .add(d.name, Some(root), virt, init, d.space.map(str::to_string));
            }
        }
        Ok(())
    }

    /// The Vulkan `{ ssw i j; ... }` block.
    #[allow(clippy::type_complexity)]
    fn ssw_block(
        &self,
        open: usize,
    ) -> Result<(
        Vec<((usize, usize, &'a str), (usize, usize, &'a str))>,
        usize,
    )> {
        if self.arch == Arch::Ptx {
            return Err(self
                .src
                .err_unsupported(open, "a second `{ ... }` (ssw) block in a PTX test"));
        }
        let close = self.block_end(open, "ssw block")?;
        let mut cur = Cursor::new(&self.src, lex(&self.src, open + 1, close)?);
        let mut pairs = Vec::new();
        loop {
            if cur.eat_punct(";") {
                continue;
            }
            match cur.peek() {
                Tok::Eof => break,
                Tok::Ident("ssw") => {
                    cur.bump();
                }
                _ => return Err(cur.unexpected("`ssw`")),
            }
            let a = thread_ref(&mut cur)?;
            let b = thread_ref(&mut cur)?;
            pairs.push((a, b));
            if !cur.eat_punct(";") && cur.peek() != Tok::Eof {
                return Err(cur.unexpected("`;`"));
            }
        }
        Ok((pairs, close + 1))
    }

    /// Splits the row starting at `start`. `Err(off)`: no `;` before the end
    /// of the line; `off` is just after the row's last character.
    fn split_row(&self, start: usize) -> std::result::Result<Row<'a>, usize> {
        let text = self.src.text;
        let bytes = text.as_bytes();
        let mut cells = Vec::new();
        let mut cell_start = start;
        let mut i = start;
        loop {
            match bytes.get(i) {
                None | Some(b'\n') => return Err(self.src.end_of_content(i, start)),
                Some(&b) if b == b'|' || b == b';' => {
                    let raw = &text[cell_start..i];
                    let trimmed = raw.trim();
                    let off = cell_start + (raw.len() - raw.trim_start().len());
                    cells.push((off, trimmed));
                    if b == b';' {
                        return Ok(Row { cells, end: i + 1 });
                    }
                    cell_start = i + 1;
                }
                Some(_) => {}
            }
            i += 1;
        }
    }

    /// `P0@cta 0,gpu 0 | P1@... ;` → placements and the offset after `;`.
    fn thread_row(&self, off: usize) -> Result<(Vec<Placement>, usize)> {
        let src = &self.src;
        if off >= src.len() {
            return Err(src.err_syntax(
                off,
                "expected the thread header row (`P0@... | P1@... ;`), found end of input",
            ));
        }
        let row = self
            .split_row(off)
            .map_err(|at| src.err_syntax(at, "missing `;` at the end of the thread header row"))?;
        let levels: &[&str] = match self.arch {
            Arch::Ptx | Arch::C => &["cta", "gpu"],
            Arch::Vulkan => &["sg", "wg", "qf"],
        };
        let mut placements = Vec::new();
        for (col, &(cell_off, text)) in row.cells.iter().enumerate() {
            if text.is_empty() {
                if col + 1 == row.cells.len() && col > 0 {
                    break; // a trailing `|` before `;`
                }
                return Err(src.err_syntax(cell_off, "empty cell in the thread header row"));
            }
            let mut cur = Cursor::new(src, lex(src, cell_off, cell_off + text.len())?);
            let (name, name_off) = cur.expect_ident("a thread name like `P0`")?;
            match thread_index(name) {
                Some(d) if parse_usize(src, name_off, d)? == col => {}
                _ => {
                    return Err(src.err_semantic(
                        name_off,
                        format!(
                            "expected thread `P{col}` in column {}, found `{name}`",
                            col + 1
                        ),
                    ))
                }
            }
            let mut ids: Vec<Option<i64>> = vec![None; levels.len()];
            let placed = cur.eat_punct("@");
            if placed {
                loop {
                    let (level, level_off) = cur.expect_ident("a scope level")?;
                    let Some(k) = levels.iter().position(|l| *l == level) else {
                        return Err(src.err_syntax(
                            level_off,
                            format!(
                                "unknown scope level `{level}` (expected {})",
                                levels
                                    .iter()
                                    .map(|l| format!("`{l}`"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    };
                    if ids[k].is_some() {
                        return Err(
                            src.err_syntax(level_off, format!("scope level `{level}` given twice"))
                        );
                    }
                    let (v, v_off) = cur.expect_int("a scope index")?;
                    if v < 0 {
                        return Err(src.err_syntax(v_off, "scope indices must be non-negative"));
                    }
                    ids[k] = Some(v);
                    if !cur.eat_punct(",") {
                        break;
                    }
                }
            }
            if cur.peek() != Tok::Eof {
                return Err(cur.unexpected(if placed { "`,` or `|`" } else { "`@` or `|`" }));
            }
            if let (true, Some(k)) = (placed, ids.iter().position(Option::is_none)) {
                return Err(src.err_syntax(
                    name_off,
                    format!("placement of `{name}` lacks `{}`", levels[k]),
                ));
            }
            placements.push(Placement {
                ids: ids.into_iter().map(|v| v.unwrap_or(0)).collect(),
                warp: None,
            });
        }
        if placements.is_empty() {
            return Err(src.err_syntax(off, "the thread header row declares no thread"));
        }
        Ok((placements, row.end))
    }

    /// Is the text at `off` the start of the final part of the test?
    fn at_tail(&self, off: usize) -> bool {
        if self.src.byte(off) == Some(b'~') {
            return true;
        }
        let Some(word) = self.src.ident_at(off) else {
            return false;
        };
        let after = self.src.skip_ws(off + word.len());
        matches!(word, "exists" | "forall" | "filter" | "locations" | "not")
            && self.src.byte(after) != Some(b':')
    }

    /// Instruction rows; returns each thread's instructions and the offset
    /// where the final part starts.
    fn rows(&mut self, mut off: usize, n: usize) -> Result<(Vec<Vec<Instr>>, usize)> {
        let mut threads: Vec<Vec<Instr>> = vec![Vec::new(); n];
        loop {
            off = self.src.skip_ws(off);
            if off >= self.src.len() || self.at_tail(off) {
                return Ok((threads, off));
            }
            let row = self.split_row(off).map_err(|at| self.row_error(off, at))?;
            for (col, &(cell_off, text)) in row.cells.iter().enumerate() {
                if text.is_empty() {
                    continue;
                }
                if col >= n {
                    return Err(self.src.err_syntax(
                        cell_off,
                        format!(
                            "this row has more columns than the {n} declared thread{}",
                            if n == 1 { "" } else { "s" }
                        ),
                    ));
                }
                let parsed = instr::parse_cell(&self.src, &mut self.locs, self.arch, text)?;
                threads[col].extend(parsed);
            }
            off = row.end;
        }
    }

    /// The error for a row with no `;`: a missing `;` if the row starts
    /// like an instruction, otherwise an unexpected word.
    fn row_error(&self, start: usize, at: usize) -> Error {
        let text = &self.src.text[start..];
        let word_len = text
            .find(|c: char| c.is_whitespace() || c == '|' || c == ';')
            .unwrap_or(text.len());
        let word = &text[..word_len];
        let head = word.split('.').next().unwrap_or("");
        let heads = match self.arch {
            Arch::Ptx | Arch::C => ptx::HEADS,
            Arch::Vulkan => vulkan::HEADS,
        };
        let label_like = self
            .src
            .ident_at(start)
            .is_some_and(|id| self.src.byte(self.src.skip_ws(start + id.len())) == Some(b':'));
        if heads.contains(&head) || label_like || word.is_empty() {
            self.src.err_syntax(at, "missing `;` at the end of the row")
        } else {
            self.src.err_syntax(
                start,
                format!(
                    "expected an instruction row or a final condition \
                     (`exists`, `~exists`, `forall`, `filter`), found `{word}`"
                ),
            )
        }
    }

    /// `filter`, the final assertion and `locations`, each at most once.
    #[allow(clippy::type_complexity)]
    fn tail(&self, off: usize, n: usize) -> Result<(Option<Cond>, Option<Assertion>, Vec<Term>)> {
        let names = if self.gpu {
            cond::Names::GpuPtx
        } else {
            cond::Names::Dat3m
        };
        tail(&self.src, &self.locs, off, n, &names)
    }
}

/// The final part of a test from `off` on: `filter`, the final assertion
/// and `locations`, each at most once, with the register and thread names
/// of `names`.
#[allow(clippy::type_complexity)]
fn tail(
    src: &Source,
    locs: &Locs,
    off: usize,
    n: usize,
    names: &cond::Names,
) -> Result<(Option<Cond>, Option<Assertion>, Vec<Term>)> {
    let extra: &[&'static str] = match names {
        cond::Names::GpuPtx => &["&"],
        _ => &[],
    };
    let mut cur = Cursor::new(src, lex_with(src, off, src.len(), extra)?);
    let mut filter = None;
    let mut assertion = None;
    let mut observed = None;
    loop {
        let kw_off = cur.off();
        let quantifier = match (cur.peek(), cur.nth(1)) {
            (Tok::Eof, _) => break,
            (Tok::Ident("exists"), _) => {
                cur.bump();
                Some(Quantifier::Exists)
            }
            (Tok::Ident("forall"), _) => {
                cur.bump();
                Some(Quantifier::Forall)
            }
            (Tok::Punct("~"), Tok::Ident("exists")) | (Tok::Ident("not"), Tok::Ident("exists")) => {
                cur.bump();
                cur.bump();
                Some(Quantifier::NotExists)
            }
            (Tok::Ident("filter"), _) => {
                cur.bump();
                if filter.is_some() {
                    return Err(src.err_syntax(kw_off, "a second `filter`"));
                }
                filter = Some(cond::CondParser::new(&mut cur, n, locs, names).cond()?);
                None
            }
            (Tok::Ident("locations"), _) => {
                cur.bump();
                if observed.is_some() {
                    return Err(src.err_syntax(kw_off, "a second `locations` clause"));
                }
                observed = Some(locations(&mut cur, locs, n, names)?);
                None
            }
            _ => {
                return Err(cur.unexpected("`exists`, `~exists`, `forall`, `filter` or `locations`"))
            }
        };
        if let Some(quantifier) = quantifier {
            if assertion.is_some() {
                return Err(src.err_syntax(kw_off, "a test has at most one final assertion"));
            }
            let cond = cond::CondParser::new(&mut cur, n, locs, names).cond()?;
            assertion = Some(Assertion { quantifier, cond });
        }
    }
    Ok((filter, assertion, observed.unwrap_or_default()))
}

/// `[ term ; term ; ... ]` (`,` also separates).
fn locations(
    cur: &mut Cursor<'_, '_>,
    locs: &Locs,
    n: usize,
    names: &cond::Names,
) -> Result<Vec<Term>> {
    cur.expect_punct("[")?;
    let mut terms = Vec::new();
    loop {
        if cur.eat_punct("]") {
            return Ok(terms);
        }
        if cur.eat_punct(";") || cur.eat_punct(",") {
            continue;
        }
        terms.push(cond::CondParser::new(cur, n, locs, names).term()?);
        if !(cur.at_punct(";") || cur.at_punct(",") || cur.at_punct("]")) {
            return Err(cur.unexpected("`;` or `]`"));
        }
    }
}

/// A location declaration from the initial state.
struct Decl<'a> {
    name: &'a str,
    off: usize,
    init: i64,
    /// `(target, offset)` for an alias.
    target: Option<(&'a str, usize)>,
    space: Option<&'a str>,
}

/// One item of the initial state (without its `;`).
fn init_item<'a>(
    cur: &mut Cursor<'a, '_>,
    regs: &mut Vec<RegInit<'a>>,
    decls: &mut Vec<Decl<'a>>,
) -> Result<()> {
    let src = cur.src;
    let is_reg_init = match (cur.peek(), cur.nth(1)) {
        (Tok::Ident(s), Tok::Punct(":")) => thread_index(s).is_some(),
        (Tok::Int(_), Tok::Punct(":")) => true,
        _ => false,
    };
    if is_reg_init {
        let (thread, off, name) = thread_ref(cur)?;
        cur.expect_punct(":")?;
        let (reg, reg_off) = cur.expect_ident("a register name like `r0`")?;
        if !is_register(reg) {
            return Err(src.err_syntax(
                reg_off,
                format!("expected a register name like `r0`, found `{reg}`"),
            ));
        }
        cur.expect_punct("=")?;
        let (value, _) = cur.expect_int("an integer")?;
        regs.push(RegInit {
            thread,
            name,
            off,
            reg: reg.to_string(),
            value,
        });
        return Ok(());
    }
    let (name, off) = cur.expect_ident("a location or register initialisation")?;
    if cur.eat_punct("=") {
        let (init, _) = cur.expect_int("an integer")?;
        decls.push(Decl {
            name,
            off,
            init,
            target: None,
            space: None,
        });
        return Ok(());
    }
    let mut space = None;
    if cur.eat_punct("@") {
        let (s, s_off) =
            cur.expect_ident("a proxy (`generic`, `surface`, `texture`, `constant`)")?;
        if !matches!(s, "generic" | "surface" | "texture" | "constant") {
            return Err(src.err_unsupported(
                s_off,
                format!("proxy `{s}` (expected `generic`, `surface`, `texture` or `constant`)"),
            ));
        }
        space = Some(s);
    }
    match cur.peek() {
        Tok::Ident("aliases") => {
            cur.bump();
        }
        _ if space.is_some() => return Err(cur.unexpected("`aliases`")),
        _ => return Err(cur.unexpected("`=`, `@` or `aliases`")),
    }
    let (target, t_off) = cur.expect_ident("a location")?;
    decls.push(Decl {
        name,
        off,
        init: 0,
        target: Some((target, t_off)),
        space,
    });
    Ok(())
}

/// `P3` or `3` → (3, offset, text).
fn thread_ref<'a>(cur: &mut Cursor<'a, '_>) -> Result<(usize, usize, &'a str)> {
    let off = cur.off();
    let (name, digits) = match cur.peek() {
        Tok::Ident(s) => match thread_index(s) {
            Some(d) => (s, d),
            None => return Err(cur.unexpected("a thread like `P0`")),
        },
        Tok::Int(d) => (d, d),
        _ => return Err(cur.unexpected("a thread like `P0`")),
    };
    let t = parse_usize(cur.src, off, digits)?;
    cur.bump();
    Ok((t, off, name))
}

/// Labels are unique per thread and every jump target exists.
fn check_labels(thread: &str, instrs: &[Instr]) -> Result<()> {
    let mut labels: HashSet<&str> = HashSet::new();
    for i in instrs {
        if let InstrKind::Label(l) = &i.kind {
            if !labels.insert(l) {
                return Err(Error::semantic(
                    i.pos,
                    format!("label `{l}` is defined twice in thread {thread}"),
                ));
            }
        }
    }
    for i in instrs {
        let target = match &i.kind {
            InstrKind::Branch { target, .. } | InstrKind::Goto(target) => target,
            _ => continue,
        };
        if !labels.contains(target.as_str()) {
            // The target is the last operand; rows are single lines.
            let idx = i.text.rfind(target.as_str()).unwrap_or(0);
            let mut pos = i.pos;
            pos.col = pos
                .col
                .saturating_add(u32::try_from(i.text[..idx].chars().count()).unwrap_or(0));
            return Err(Error::semantic(
                pos,
                format!("unknown label `{target}` in thread {thread}"),
            ));
        }
    }
    Ok(())
}
