//! Line lexer for SPIR-V assembly (the text `spirv-dis` prints).
//!
//! One instruction per line: `[%result =] OpName operand*`. Operands are
//! ids (`%name`), integer literals (decimal, optionally negative, or `0x`
//! hexadecimal), floating-point literals, strings (`"..."`, with `\"` and
//! `\\` escapes) and enumerant words (`Logical`, `Aligned|NonPrivatePointer`).
//! A `;` outside a string starts a comment. Blank and comment-only lines
//! produce no instruction (the `; @` harness headers are read separately,
//! see `header.rs`).

use crate::diag::{Error, Result};
use crate::ir::Pos;

/// What an operand token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// `%name`, stored without the `%`.
    Id(String),
    /// An integer literal (wide enough for any 64-bit value, either sign).
    Int(i128),
    /// A floating-point literal (kept as text; gpumc has no floats).
    Float(String),
    /// A string literal, unescaped.
    Str(String),
    /// An enumerant or mask (`None`, `Aligned|MakePointerVisible`).
    Word(String),
}

/// An operand with its 1-based column.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Tok {
    pub kind: Kind,
    pub col: u32,
}

/// One instruction line.
#[derive(Clone, Debug)]
pub(super) struct Line {
    pub line: u32,
    /// Result id (without `%`) and its column.
    pub result: Option<(String, u32)>,
    pub opcode: String,
    pub op_col: u32,
    pub args: Vec<Tok>,
    /// The instruction text, trimmed, without a trailing comment.
    pub text: String,
}

impl Line {
    pub fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.op_col,
        }
    }
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '|')
}

/// Lexes every instruction line of `src`.
pub(super) fn lex(src: &str) -> Result<Vec<Line>> {
    let mut out = Vec::new();
    for (i, text) in src.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if let Some(l) = lex_line(text, line_no)? {
            out.push(l);
        }
    }
    Ok(out)
}

/// Raw tokens of one line: `(token text start col, token)`.
enum Raw {
    Tok(Tok),
    Eq(u32),
}

fn lex_line(text: &str, line: u32) -> Result<Option<Line>> {
    let chars: Vec<char> = text.chars().collect();
    let pos = |i: usize| Pos {
        line,
        col: u32::try_from(i + 1).unwrap_or(u32::MAX),
    };
    let mut raws: Vec<Raw> = Vec::new();
    let mut i = 0;
    let mut end = chars.len();
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let col = pos(i).col;
        if c == ';' {
            end = i;
            break;
        }
        if c == '=' {
            raws.push(Raw::Eq(col));
            i += 1;
            continue;
        }
        if c == '%' {
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && is_id_char(chars[j]) {
                j += 1;
            }
            if j == start {
                return Err(Error::syntax(pos(i), "expected an id name after `%`"));
            }
            let name: String = chars[start..j].iter().collect();
            raws.push(Raw::Tok(Tok {
                kind: Kind::Id(name),
                col,
            }));
            i = j;
            continue;
        }
        if c == '"' {
            let mut s = String::new();
            let mut j = i + 1;
            let mut closed = false;
            while j < chars.len() {
                match chars[j] {
                    '\\' if j + 1 < chars.len() => {
                        s.push(chars[j + 1]);
                        j += 2;
                    }
                    '"' => {
                        closed = true;
                        j += 1;
                        break;
                    }
                    ch => {
                        s.push(ch);
                        j += 1;
                    }
                }
            }
            if !closed {
                return Err(Error::syntax(pos(i), "unterminated string literal"));
            }
            raws.push(Raw::Tok(Tok {
                kind: Kind::Str(s),
                col,
            }));
            i = j;
            continue;
        }
        if c.is_ascii_digit() || c == '-' || c == '+' {
            let mut j = i + 1;
            while j < chars.len()
                && (chars[j].is_ascii_alphanumeric() || matches!(chars[j], '.' | '+' | '-'))
            {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            // The dimensionalities of `OpTypeImage` (`1D`, `2D`, `3D`) are
            // words that start with a digit.
            if matches!(word.as_str(), "1D" | "2D" | "3D") {
                raws.push(Raw::Tok(Tok {
                    kind: Kind::Word(word),
                    col,
                }));
                i = j;
                continue;
            }
            raws.push(Raw::Tok(Tok {
                kind: number(&word).ok_or_else(|| {
                    Error::syntax(
                        pos(i),
                        format!("malformed number `{}`", crate::diag::excerpt(&word)),
                    )
                })?,
                col,
            }));
            i = j;
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let mut j = i + 1;
            while j < chars.len() && is_word_char(chars[j]) {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            raws.push(Raw::Tok(Tok {
                kind: Kind::Word(word),
                col,
            }));
            i = j;
            continue;
        }
        return Err(Error::syntax(pos(i), crate::diag::unexpected_char(c)));
    }
    if raws.is_empty() {
        return Ok(None);
    }
    let text_s: String = chars[..end].iter().collect::<String>().trim().to_string();
    let mut it = raws.into_iter().peekable();
    let mut result = None;
    // `%id = Op...`
    let first = it.next().expect("non-empty");
    let op_tok = match first {
        Raw::Tok(Tok {
            kind: Kind::Id(name),
            col,
        }) => {
            match it.next() {
                Some(Raw::Eq(_)) => {}
                Some(Raw::Tok(t)) => {
                    return Err(Error::syntax(
                        Pos { line, col: t.col },
                        "expected `=` after the result id",
                    ))
                }
                None => {
                    return Err(Error::syntax(
                        Pos { line, col },
                        "expected `= Op...` after the result id",
                    ))
                }
            }
            result = Some((name, col));
            match it.next() {
                Some(Raw::Tok(t)) => t,
                Some(Raw::Eq(c)) => {
                    return Err(Error::syntax(Pos { line, col: c }, "unexpected `=`"))
                }
                None => {
                    return Err(Error::syntax(
                        Pos { line, col },
                        "expected an opcode after `=`",
                    ))
                }
            }
        }
        Raw::Tok(t) => t,
        Raw::Eq(c) => return Err(Error::syntax(Pos { line, col: c }, "unexpected `=`")),
    };
    let opcode = match &op_tok.kind {
        Kind::Word(w) if w.starts_with("Op") && w.len() > 2 => w.clone(),
        _ => {
            return Err(Error::syntax(
                Pos {
                    line,
                    col: op_tok.col,
                },
                "expected an opcode (`Op...`)",
            ))
        }
    };
    let mut args = Vec::new();
    for r in it {
        match r {
            Raw::Tok(t) => args.push(t),
            Raw::Eq(c) => return Err(Error::syntax(Pos { line, col: c }, "unexpected `=`")),
        }
    }
    Ok(Some(Line {
        line,
        result,
        opcode,
        op_col: op_tok.col,
        args,
        text: text_s,
    }))
}

/// Parses an integer (decimal or `0x` hex, optional sign) or recognises a
/// floating-point literal.
fn number(w: &str) -> Option<Kind> {
    if let Some(v) = parse_int(w) {
        return Some(Kind::Int(v));
    }
    let body = w.strip_prefix(['-', '+']).unwrap_or(w);
    let looks_float = body.starts_with(|c: char| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && body.contains(['.', 'e', 'E']);
    let hex_float = body.starts_with("0x") && body.contains(['p', 'P', '.']);
    if looks_float || hex_float {
        return Some(Kind::Float(w.to_string()));
    }
    None
}

/// Integer literal in the range of `i64` ∪ `u64`.
pub(super) fn parse_int(w: &str) -> Option<i128> {
    let (neg, body) = match w.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, w.strip_prefix('+').unwrap_or(w)),
    };
    if body.is_empty() {
        return None;
    }
    let v: u128 = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u128::from_str_radix(h, 16).ok()?
    } else {
        if !body.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        body.parse::<u128>().ok()?
    };
    if v > u128::from(u64::MAX) {
        return None;
    }
    let v = v as i128;
    Some(if neg { -v } else { v })
}
