//! The text of one cell: labels, a predicate guard, a mnemonic and its
//! operands.
//!
//! ```text
//! cell    := (label ':')* [guard] [mnemonic operand (',' operand)*]
//! guard   := '@' ['!'] register
//! operand := register | '[' (register | location) ']' | integer | name
//! integer := ['-'] (digits | '0x' hexdigits)
//! ```

use super::super::source::{is_ident, Source};
use super::is_register;
use crate::diag::Result;

/// An operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opd<'a> {
    Reg(&'a str),
    Imm(i64),
    /// A location or a label.
    Name(&'a str),
    /// `[r]`: the address a register holds.
    AtReg(&'a str),
    /// `[x]`: location `x`.
    AtLoc(&'a str),
}

/// An operand with its text and offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arg<'a> {
    pub v: Opd<'a>,
    pub off: usize,
    pub text: &'a str,
}

/// `@p` / `@!p`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Guard<'a> {
    pub reg: &'a str,
    pub negated: bool,
    pub off: usize,
    pub text: &'a str,
}

/// An instruction as written.
#[derive(Debug)]
pub(super) struct Ins<'a> {
    pub mnemonic: &'a str,
    /// The mnemonic split at `.` (`parts[0]` is the opcode).
    pub parts: Vec<&'a str>,
    pub args: Vec<Arg<'a>>,
    pub off: usize,
    /// The instruction without its guard.
    pub text: &'a str,
}

#[derive(Debug, Default)]
pub(super) struct Cell<'a> {
    /// Labels with their offsets.
    pub labels: Vec<(&'a str, usize)>,
    pub guard: Option<Guard<'a>>,
    pub ins: Option<Ins<'a>>,
}

/// Parses a non-empty, trimmed cell (a slice of `src.text`).
pub(super) fn parse<'a>(src: &Source<'a>, mut text: &'a str) -> Result<Cell<'a>> {
    let mut cell = Cell::default();
    // Labels.
    loop {
        let id_len = text
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(text.len());
        let after = text[id_len..].trim_start();
        if id_len > 0 && is_ident(&text[..id_len]) && after.starts_with(':') {
            cell.labels.push((&text[..id_len], src.offset_of(text)));
            text = after[1..].trim_start();
        } else {
            break;
        }
    }
    if text.is_empty() {
        return Ok(cell);
    }
    if let Some(rest) = text.strip_prefix('@') {
        let off = src.offset_of(text);
        let rest = rest.trim_start();
        let (negated, rest) = match rest.strip_prefix('!') {
            Some(r) => (true, r.trim_start()),
            None => (false, rest),
        };
        let len = rest
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(rest.len());
        let reg = &rest[..len];
        if !is_register(reg) {
            return Err(src.err_syntax(
                src.offset_of(rest),
                "expected a predicate register after `@` (`@p0 ...`, `@!r1 ...`)",
            ));
        }
        let after = &rest[len..];
        let guard_text = &text[..text.len() - after.len()];
        cell.guard = Some(Guard {
            reg,
            negated,
            off,
            text: guard_text,
        });
        text = after.trim_start();
        if text.is_empty() || !after.starts_with(char::is_whitespace) {
            return Err(src.err_syntax(
                src.offset_of(after),
                "expected an instruction after the predicate guard",
            ));
        }
    }
    cell.ins = Some(instruction(src, text)?);
    Ok(cell)
}

/// A mnemonic and its operands (`text` trimmed, non-empty).
fn instruction<'a>(src: &Source<'a>, text: &'a str) -> Result<Ins<'a>> {
    let off = src.offset_of(text);
    let mn_len = text.find(char::is_whitespace).unwrap_or(text.len());
    let mnemonic = &text[..mn_len];
    if let Some((i, c)) = mnemonic
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
    {
        return Err(src.err_syntax(
            off + i,
            format!(
                "unexpected character `{c}` in instruction `{}`",
                crate::diag::excerpt(mnemonic)
            ),
        ));
    }
    let parts: Vec<&str> = mnemonic.split('.').collect();
    if let Some(i) = parts.iter().position(|p| p.is_empty()) {
        let at = if i == 0 {
            off
        } else {
            src.offset_of(parts[i]).saturating_sub(1)
        };
        return Err(src.err_syntax(at, format!("malformed mnemonic `{mnemonic}`")));
    }
    let rest = &text[mn_len..];
    let mut args = Vec::new();
    if !rest.trim().is_empty() {
        for part in rest.split(',') {
            args.push(operand(src, part.trim())?);
        }
    }
    Ok(Ins {
        mnemonic,
        parts,
        args,
        off,
        text,
    })
}

fn operand<'a>(src: &Source<'a>, text: &'a str) -> Result<Arg<'a>> {
    let off = src.offset_of(text);
    if text.is_empty() {
        return Err(src.err_syntax(off, "missing operand"));
    }
    let v = if let Some(inner) = text.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Err(src.err_syntax(off, format!("missing `]` in operand `{text}`")));
        };
        let name = inner.trim();
        if is_register(name) {
            Opd::AtReg(name)
        } else if is_ident(name) {
            Opd::AtLoc(name)
        } else if name.contains(['+', '-']) {
            return Err(src.err_unsupported(
                off,
                format!("address offsets (`{text}`): write the address into a register"),
            ));
        } else {
            return Err(src.err_syntax(
                off,
                format!("expected `[register]` or `[location]`, found `{text}`"),
            ));
        }
    } else if let Some(v) = integer(text) {
        match v {
            Some(v) => Opd::Imm(v),
            None => return Err(src.err_syntax(off, format!("integer `{text}` is out of range"))),
        }
    } else if is_register(text) {
        Opd::Reg(text)
    } else if is_ident(text) {
        Opd::Name(text)
    } else {
        return Err(src.err_syntax(off, format!("invalid operand `{text}`")));
    };
    Ok(Arg { v, off, text })
}

/// `Some(value)` for an integer literal (`None` inside: out of range);
/// `None` if `text` is not one.
fn integer(text: &str) -> Option<Option<i64>> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    let hex = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X"));
    let magnitude = match hex {
        Some(h) if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            i128::from_str_radix(h, 16).ok()
        }
        Some(_) => return None,
        None if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) => {
            body.parse::<i128>().ok()
        }
        None => return None,
    };
    Some(magnitude.and_then(|m| i64::try_from(if neg { -m } else { m }).ok()))
}
