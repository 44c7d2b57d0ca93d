//! The initial block of a `GPU_PTX` test:
//!
//! ```text
//! item := tid ':' '.reg' '.'type reg ['=' value] (',' reg ['=' value])*
//!       | tid ':' reg '=' value            (herd style; `P0:` / `T0:` too)
//!       | location '=' integer
//! value := ['-'] integer | location        (a location: its address)
//! ```
//!
//! Items end with `;` (the last may lack it). Types: `.pred`, `.b`/`.s`/
//! `.u` with 16, 32 or 64 bits; an address needs a 64-bit one.

use super::super::source::{lex_with, parse_usize, Cursor, Source, Tok};
use super::super::{Decl, Locs};
use super::flow::{Fact, Facts, Flow};
use super::instr::ThreadState;
use super::{is_register, thread_index, PUNCTS};
use crate::diag::Result;
use std::collections::HashSet;

/// What the block declares.
pub(super) struct Block<'a> {
    /// Memory initialisers, in order.
    pub decls: Vec<Decl<'a>>,
    /// Register declarations and initialisations, checked once the
    /// thread count is known.
    pub regs: Vec<RegItem<'a>>,
}

/// One register named in the block.
pub(super) struct RegItem<'a> {
    pub thread: usize,
    /// The thread as written, and where.
    pub thread_text: &'a str,
    pub thread_off: usize,
    pub reg: &'a str,
    pub reg_off: usize,
    /// `Some((type, offset))` for a `.reg` declaration.
    pub ty: Option<(&'a str, usize)>,
    pub value: Option<Value<'a>>,
}

#[derive(Clone, Copy)]
pub(super) enum Value<'a> {
    Int(i64),
    /// The address of a location.
    Loc(&'a str),
}

/// Parses the block between `open` (`{`) and `close` (`}`).
pub(super) fn parse<'a>(src: &Source<'a>, open: usize, close: usize) -> Result<Block<'a>> {
    let mut cur = Cursor::new(src, lex_with(src, open + 1, close, PUNCTS)?);
    let mut block = Block {
        decls: Vec::new(),
        regs: Vec::new(),
    };
    loop {
        if cur.eat_punct(";") {
            continue;
        }
        if cur.peek() == Tok::Eof {
            return Ok(block);
        }
        item(&mut cur, &mut block)?;
        if !cur.eat_punct(";") && cur.peek() != Tok::Eof {
            return Err(cur.unexpected("`;`"));
        }
    }
}

fn item<'a>(cur: &mut Cursor<'a, '_>, block: &mut Block<'a>) -> Result<()> {
    let src = cur.src;
    let thread = match (cur.peek(), cur.nth(1)) {
        (Tok::Int(d), Tok::Punct(":")) => Some((d, d)),
        (Tok::Ident(s), Tok::Punct(":")) => match thread_index(s) {
            Some(d) => Some((s, d)),
            None => {
                return Err(src.err_syntax(
                    cur.off(),
                    format!("expected a thread like `0` or `T0` before `:`, found `{s}`"),
                ))
            }
        },
        _ => None,
    };
    let Some((thread_text, digits)) = thread else {
        // `x = 1`
        let (name, off) = cur.expect_ident("a location, or a thread like `0:`")?;
        if is_register(name) {
            return Err(src.err_semantic(
                off,
                format!("`{name}` is a register name; initialise registers as `0:{name}=1`"),
            ));
        }
        cur.expect_punct("=")?;
        let (init, _) = cur.expect_int("an integer")?;
        block.decls.push(Decl {
            name,
            off,
            init,
            target: None,
            space: None,
        });
        return Ok(());
    };
    let thread_off = cur.off();
    let thread = parse_usize(src, thread_off, digits)?;
    cur.bump();
    cur.bump();
    let ty = if cur.eat_punct(".") {
        match cur.peek() {
            Tok::Ident("reg") => {
                cur.bump();
            }
            _ => return Err(cur.unexpected("`reg` (a declaration `0: .reg .s32 r0;`)")),
        }
        cur.expect_punct(".")?;
        let (ty, ty_off) = cur.expect_ident("a register type such as `s32`")?;
        if width(ty).is_none() {
            return Err(src.err_unsupported(
                ty_off.saturating_sub(1),
                format!(
                    "register type `.{ty}` (expected `.pred`, or `.b`, `.s`, `.u` \
                     with 16, 32 or 64 bits)"
                ),
            ));
        }
        Some((ty, ty_off))
    } else {
        None
    };
    loop {
        let (reg, reg_off) = cur.expect_ident("a register name like `r0`")?;
        if !is_register(reg) {
            return Err(src.err_syntax(
                reg_off,
                format!("expected a register name like `r0` or `p0`, found `{reg}`"),
            ));
        }
        let value = if cur.eat_punct("=") {
            Some(match cur.peek() {
                Tok::Ident(name) => {
                    let off = cur.bump().off;
                    if is_register(name) {
                        return Err(src.err_syntax(
                            off,
                            format!("expected an integer or a location, found register `{name}`"),
                        ));
                    }
                    Value::Loc(name)
                }
                _ => Value::Int(cur.expect_int("an integer or a location")?.0),
            })
        } else if ty.is_none() {
            return Err(cur.unexpected("`=`"));
        } else {
            None
        };
        block.regs.push(RegItem {
            thread,
            thread_text,
            thread_off,
            reg,
            reg_off,
            ty,
            value,
        });
        // More registers of one declaration: `0: .reg .s32 r0, r1;`.
        if ty.is_none() || !cur.eat_punct(",") {
            return Ok(());
        }
    }
}

/// The width in bits of a register type (`pred`: 1), if it is one.
pub(super) fn width(ty: &str) -> Option<u32> {
    if ty == "pred" {
        return Some(1);
    }
    let bits = ty.strip_prefix(['b', 's', 'u'])?;
    match bits {
        "16" => Some(16),
        "32" => Some(32),
        "64" => Some(64),
        _ => None,
    }
}

/// Each thread's registers at its start: initial values and the
/// addresses registers hold. Adds the locations whose address a register
/// is given.
pub(super) fn thread_states(
    src: &Source,
    locs: &mut Locs,
    regs: &[RegItem],
    n: usize,
) -> Result<Vec<ThreadState>> {
    let mut values: Vec<Vec<(String, i64)>> = vec![Vec::new(); n];
    let mut facts: Vec<Facts> = vec![Facts::default(); n];
    let mut declared: HashSet<(usize, &str)> = HashSet::new();
    let mut initialised: HashSet<(usize, &str)> = HashSet::new();
    for r in regs {
        if r.thread >= n {
            return Err(src.err_semantic(
                r.thread_off,
                format!(
                    "thread `{}` does not exist (the test has {n} thread{})",
                    r.thread_text,
                    if n == 1 { "" } else { "s" }
                ),
            ));
        }
        if r.ty.is_some() && !declared.insert((r.thread, r.reg)) {
            return Err(src.err_semantic(
                r.reg_off,
                format!(
                    "register `{}` of thread {} is declared twice",
                    r.reg, r.thread
                ),
            ));
        }
        let Some(value) = r.value else { continue };
        if !initialised.insert((r.thread, r.reg)) {
            return Err(src.err_semantic(
                r.reg_off,
                format!(
                    "register `{}` of thread {} is initialised twice",
                    r.reg, r.thread
                ),
            ));
        }
        match value {
            Value::Int(v) => values[r.thread].push((r.reg.to_string(), v)),
            Value::Loc(name) => {
                if let Some((ty, ty_off)) = r.ty {
                    if width(ty) != Some(64) {
                        return Err(src.err_semantic(
                            ty_off.saturating_sub(1),
                            format!(
                                "register `{}` holds the address of `{name}`, which needs a \
                                 64-bit type such as `.b64`, not `.{ty}`",
                                r.reg
                            ),
                        ));
                    }
                }
                let base = locs.use_loc(name);
                facts[r.thread].set(r.reg, Some(Fact::Addr { base, zero: true }));
            }
        }
    }
    Ok(values
        .into_iter()
        .zip(facts)
        .map(|(init_regs, facts)| ThreadState::new(init_regs, Flow::new(facts)))
        .collect())
}
