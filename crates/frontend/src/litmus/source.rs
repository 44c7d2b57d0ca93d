//! Source text helpers: offset → `line:col` mapping and a small tokenizer
//! for the free-form parts of a litmus test (initial state, thread header
//! row, final condition). Instruction cells are split by [`super::row`].

use crate::diag::{Error, Result};
use crate::ir::Pos;

/// The whole input with a line index.
pub(super) struct Source<'a> {
    pub text: &'a str,
    line_starts: Vec<usize>,
    /// Columns are byte offsets when the whole text is ASCII.
    ascii: bool,
}

impl<'a> Source<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Source {
            text,
            line_starts,
            ascii: text.is_ascii(),
        }
    }

    /// Byte length of the input.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// The 1-based position of byte offset `off` (columns count characters).
    pub fn pos(&self, off: usize) -> Pos {
        let off = off.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= off).max(1) - 1;
        let start = self.line_starts[line];
        let col = match self.text.get(start..off) {
            Some(s) if !self.ascii => s.chars().count(),
            _ => off - start,
        };
        Pos {
            line: to_u32(line + 1),
            col: to_u32(col + 1),
        }
    }

    /// Byte offset of `sub`, which must be a slice of [`Source::text`].
    pub fn offset_of(&self, sub: &str) -> usize {
        (sub.as_ptr() as usize)
            .wrapping_sub(self.text.as_ptr() as usize)
            .min(self.text.len())
    }

    pub fn byte(&self, off: usize) -> Option<u8> {
        self.text.as_bytes().get(off).copied()
    }

    /// A herdtools header line at `off` (`Hash=5d…`, `Generator=diy7
    /// (version 7.57)`, `Com=Rf Fr`): a key of letters, digits and `_`
    /// directly followed by `=`, the value up to the end of the line.
    /// Returns the key, the trimmed value and the offset of the line's end.
    pub fn key_value_line(&self, off: usize) -> Option<(&'a str, &'a str, usize)> {
        let rest = &self.text[off..];
        let key_len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        if key_len == 0
            || !rest.as_bytes()[0].is_ascii_alphabetic()
            || rest.as_bytes().get(key_len) != Some(&b'=')
        {
            return None;
        }
        let end = rest.find('\n').map_or(self.text.len(), |i| off + i);
        let value = self.text[off + key_len + 1..end].trim();
        Some((&self.text[off..off + key_len], value, end))
    }

    /// The first offset at or after `off` that is not whitespace.
    pub fn skip_ws(&self, mut off: usize) -> usize {
        while self.byte(off).is_some_and(|b| b.is_ascii_whitespace()) {
            off += 1;
        }
        off
    }

    /// The offset just after the last non-whitespace byte before `off`
    /// (or `floor` if there is none after it).
    pub fn end_of_content(&self, mut off: usize, floor: usize) -> usize {
        while off > floor && self.byte(off - 1).is_some_and(|b| b.is_ascii_whitespace()) {
            off -= 1;
        }
        off
    }

    /// The identifier starting at `off`, if any.
    pub fn ident_at(&self, off: usize) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        let first = *bytes.get(off)?;
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return None;
        }
        let mut end = off + 1;
        while bytes
            .get(end)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            end += 1;
        }
        self.text.get(off..end)
    }

    pub fn err_syntax(&self, off: usize, msg: impl Into<String>) -> Error {
        Error::syntax(self.pos(off), msg)
    }

    pub fn err_semantic(&self, off: usize, msg: impl Into<String>) -> Error {
        Error::semantic(self.pos(off), msg)
    }

    pub fn err_unsupported(&self, off: usize, msg: impl Into<String>) -> Error {
        Error::unsupported(self.pos(off), msg)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Is `s` an identifier (`[A-Za-z_][A-Za-z0-9_]*`)?
pub(super) fn is_ident(s: &str) -> bool {
    let mut bytes = s.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Is `s` a register name (`r` followed by digits)?
pub(super) fn is_register(s: &str) -> bool {
    s.len() > 1 && s.starts_with('r') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The thread index of a thread name `P<n>`.
pub(super) fn thread_index(s: &str) -> Option<&str> {
    let digits = s.strip_prefix('P')?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

/// Parses an unsigned decimal number (leading zeros allowed).
pub(super) fn parse_usize(src: &Source, off: usize, digits: &str) -> Result<usize> {
    digits
        .parse::<usize>()
        .map_err(|_| src.err_syntax(off, format!("number `{digits}` is out of range")))
}

/// Parses a decimal integer with an optional leading `-`.
pub(super) fn parse_i64(src: &Source, off: usize, text: &str) -> Result<i64> {
    text.parse::<i64>().map_err(|_| {
        src.err_syntax(
            off,
            format!("integer `{}` is out of range", crate::diag::excerpt(text)),
        )
    })
}

/// A token of the free-form parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    Ident(&'a str),
    /// Decimal digits (the sign is a separate `-` token).
    Int(&'a str),
    Punct(&'static str),
    Eof,
}

impl Tok<'_> {
    /// For error messages: "`x`" or "end of input".
    pub fn describe(&self) -> String {
        match self {
            // Input text: quoted short.
            Tok::Ident(s) | Tok::Int(s) => format!("`{}`", crate::diag::excerpt(s)),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of input".to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub tok: Tok<'a>,
    pub off: usize,
}

const PUNCTS: [&str; 24] = [
    "==", "!=", "<>", "<=", ">=", "/\\", "\\/", "{", "}", ";", "|", ",", ":", "@", "(", ")", "=",
    "<", ">", "~", "!", "-", "[", "]",
];

/// Tokenizes `src.text[start..end]`; the result ends with [`Tok::Eof`] at
/// `end`.
pub(super) fn lex<'a>(src: &Source<'a>, start: usize, end: usize) -> Result<Vec<Token<'a>>> {
    lex_with(src, start, end, &[])
}

/// [`lex`], with `extra` punctuation on top of the common set (the
/// `GPU_PTX` dialect's `.` in `.reg .s32` and `&` in conditions, which the
/// Dat3M dialects reject as unexpected characters).
pub(super) fn lex_with<'a>(
    src: &Source<'a>,
    start: usize,
    end: usize,
    extra: &[&'static str],
) -> Result<Vec<Token<'a>>> {
    let text = src.text;
    let bytes = text.as_bytes();
    let end = end.min(bytes.len());
    let mut toks = Vec::new();
    let mut i = start;
    while i < end {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let mut j = i + 1;
            while j < end && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
                j += 1;
            }
            toks.push(Token {
                tok: Tok::Ident(&text[i..j]),
                off: i,
            });
            i = j;
        } else if b.is_ascii_digit() {
            let mut j = i + 1;
            while j < end && bytes[j].is_ascii_digit() {
                j += 1;
            }
            toks.push(Token {
                tok: Tok::Int(&text[i..j]),
                off: i,
            });
            i = j;
        } else if let Some(p) = PUNCTS
            .iter()
            .chain(extra)
            .find(|p| text.get(i..end).is_some_and(|rest| rest.starts_with(**p)))
        {
            toks.push(Token {
                tok: Tok::Punct(p),
                off: i,
            });
            i += p.len();
        } else {
            let c = text.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
            return Err(src.err_syntax(i, crate::diag::unexpected_char(c)));
        }
    }
    toks.push(Token {
        tok: Tok::Eof,
        off: end,
    });
    Ok(toks)
}

/// A cursor over a token list.
pub(super) struct Cursor<'a, 's> {
    pub src: &'s Source<'a>,
    toks: Vec<Token<'a>>,
    i: usize,
}

impl<'a, 's> Cursor<'a, 's> {
    pub fn new(src: &'s Source<'a>, toks: Vec<Token<'a>>) -> Self {
        Cursor { src, toks, i: 0 }
    }

    pub fn peek(&self) -> Tok<'a> {
        self.nth(0)
    }

    pub fn nth(&self, n: usize) -> Tok<'a> {
        self.toks
            .get(self.i + n)
            .or(self.toks.last())
            .map_or(Tok::Eof, |t| t.tok)
    }

    /// Offset of the next token.
    pub fn off(&self) -> usize {
        self.toks
            .get(self.i)
            .or(self.toks.last())
            .map_or(self.src.len(), |t| t.off)
    }

    pub fn bump(&mut self) -> Token<'a> {
        let t = self
            .toks
            .get(self.i)
            .or(self.toks.last())
            .copied()
            .unwrap_or(Token {
                tok: Tok::Eof,
                off: self.src.len(),
            });
        if self.i < self.toks.len() {
            self.i += 1;
        }
        t
    }

    pub fn at_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if q == p)
    }

    pub fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.at_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    /// An error "expected WHAT, found <next token>" at the next token.
    pub fn unexpected(&self, what: &str) -> Error {
        self.src.err_syntax(
            self.off(),
            format!("expected {what}, found {}", self.peek().describe()),
        )
    }

    pub fn expect_punct(&mut self, p: &str) -> Result<usize> {
        if self.at_punct(p) {
            Ok(self.bump().off)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    pub fn expect_ident(&mut self, what: &str) -> Result<(&'a str, usize)> {
        match self.peek() {
            Tok::Ident(s) => Ok((s, self.bump().off)),
            _ => Err(self.unexpected(what)),
        }
    }

    /// A decimal integer with an optional leading `-`.
    pub fn expect_int(&mut self, what: &str) -> Result<(i64, usize)> {
        let off = self.off();
        let neg = self.eat_punct("-");
        match self.peek() {
            Tok::Int(digits) => {
                self.bump();
                let text = if neg {
                    format!("-{digits}")
                } else {
                    digits.to_string()
                };
                Ok((parse_i64(self.src, off, &text)?, off))
            }
            _ => Err(self.unexpected(what)),
        }
    }
}
