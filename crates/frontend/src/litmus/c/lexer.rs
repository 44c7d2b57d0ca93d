//! Tokens of the C part of a test (initial state and thread functions),
//! lexed on demand from a byte offset: the final conditions use the other
//! dialects' tokenizer (`source::lex_with`), whose `/\` is no C token.
//! `//` and `/* */` comments are blanks.

use super::super::source::Source;
use crate::diag::Result;

/// A C token: the litmus front-ends' token (`Int` also holds `0x`
/// hexadecimal here; the sign is a separate token).
pub(super) use super::super::source::Tok;

/// Longest first, so that `<<=` wins over `<<` and `<`.
const PUNCTS: [&str; 48] = [
    "<<=", ">>=", "...", "::", "->", "++", "--", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "{", "}", "(", ")", "[", "]", ";", ",", ":",
    "@", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ".",
];

/// Words that only start the final part of a test (never C code).
const TAIL_WORDS: [&str; 4] = ["exists", "forall", "filter", "locations"];

/// The offset of the next token at or after `off` (comments skipped).
pub(super) fn skip_blank(src: &Source, mut off: usize) -> Result<usize> {
    let bytes = src.text.as_bytes();
    loop {
        while bytes.get(off).is_some_and(|b| b.is_ascii_whitespace()) {
            off += 1;
        }
        match (bytes.get(off), bytes.get(off + 1)) {
            (Some(b'/'), Some(b'/')) => {
                while bytes.get(off).is_some_and(|&b| b != b'\n') {
                    off += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                let Some(end) = src.text[off + 2..].find("*/") else {
                    return Err(src.err_syntax(off, "unterminated comment `/*`"));
                };
                off += 2 + end + 2;
            }
            _ => return Ok(off),
        }
    }
}

/// The token at `off` (after blanks) and the offset after it.
pub(super) fn token<'a>(src: &Source<'a>, off: usize) -> Result<(Tok<'a>, usize, usize)> {
    let start = skip_blank(src, off)?;
    let text = src.text;
    let bytes = text.as_bytes();
    let Some(&b) = bytes.get(start) else {
        return Ok((Tok::Eof, start, start));
    };
    if b.is_ascii_alphabetic() || b == b'_' {
        let mut j = start + 1;
        while bytes
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            j += 1;
        }
        return Ok((Tok::Ident(&text[start..j]), start, j));
    }
    if b.is_ascii_digit() {
        let mut j = start + 1;
        while bytes
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            j += 1;
        }
        return Ok((Tok::Int(&text[start..j]), start, j));
    }
    if let Some(p) = PUNCTS.iter().find(|p| text[start..].starts_with(**p)) {
        return Ok((Tok::Punct(p), start, start + p.len()));
    }
    let c = text[start..].chars().next().unwrap_or('?');
    Err(src.err_syntax(start, format!("unexpected character `{c}`")))
}

/// Whether the token at `off` starts the final part of the test
/// (`exists`, `~exists`, `not exists`, `forall`, `filter`, `locations`).
pub(super) fn at_tail(src: &Source, off: usize) -> Result<bool> {
    let (t, _, end) = token(src, off)?;
    Ok(match t {
        Tok::Ident(w) if TAIL_WORDS.contains(&w) => true,
        Tok::Punct("~") | Tok::Ident("not") => {
            matches!(token(src, end)?.0, Tok::Ident("exists"))
        }
        _ => false,
    })
}

/// The value of an integer literal token (decimal or `0x` hexadecimal,
/// with an optional `u`/`l` suffix).
pub(super) fn int_value(src: &Source, off: usize, digits: &str) -> Result<i64> {
    let body = digits.trim_end_matches(['u', 'U', 'l', 'L']);
    let parsed = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok().map(|v| v as i64),
        None => body.parse::<i64>().ok(),
    };
    parsed
        .ok_or_else(|| src.err_syntax(off, format!("malformed or out-of-range integer `{digits}`")))
}
