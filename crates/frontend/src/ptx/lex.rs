//! The lexer of PTX kernel text: the whole file becomes one token list.
//!
//! PTX is free-form (newlines mean nothing), so the parser works on tokens
//! only. A word keeps its dotted suffixes (`ld.global.u32`, `%tid.x`,
//! `ld.shared::cta.u32`) because PTX names never contain a dot: a dot
//! inside a word always separates an opcode from its modifiers or a
//! special register from its component. A directive (`.reg`,
//! `.shared::cta`) is one token per dot.
//!
//! The lexer never fails: text it cannot read becomes a [`Kind::Bad`]
//! token, which the parser reports where it meets it. That keeps errors
//! in file order and lets the parser skip debug sections without caring
//! what is inside them.

use crate::ir::Pos;

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// A name, register, opcode or label, with any `.x`/`::x` suffixes:
    /// `_Z4add2ii`, `%r1`, `%tid.x`, `ld.global.u32`, `$L__BB0_1`, `_`.
    Word,
    /// `.name` (the text is without the dot): `reg`, `shared::cta`.
    Dir,
    /// A number as written: `42`, `0xFF`, `0f3F800000`, `1.5e-3`, `7.8`.
    Num,
    /// A string literal, unescaped.
    Str(String),
    /// One of `, ; : { } [ ] ( ) < > = + - ! | @`.
    Punct(char),
    /// Text the lexer could not read, with the reason.
    Bad(String),
    /// The end of the input.
    Eof,
}

/// A token: its kind, where it starts, and its byte span in the source.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Tok {
    pub kind: Kind,
    pub pos: Pos,
    pub start: usize,
    pub end: usize,
}

/// Characters that may continue a name (PTX's `followsym`).
fn is_follow(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn is_punct(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | ':'
            | '{'
            | '}'
            | '['
            | ']'
            | '('
            | ')'
            | '<'
            | '>'
            | '='
            | '+'
            | '-'
            | '!'
            | '|'
            | '@'
    )
}

/// A cursor over the source that tracks line and column (columns count
/// characters, as every other gpumc front-end does).
struct Cursor<'a> {
    src: &'a str,
    /// Byte offset of the next character.
    at: usize,
    line: u32,
    col: u32,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.src[self.at..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.src[self.at..].chars().nth(1)
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn bump_while(&mut self, f: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&f) {
            self.bump();
        }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.at..]
    }
}

/// Lexes all of `src`; the list always ends with one [`Kind::Eof`].
pub(super) fn lex(src: &str) -> Vec<Tok> {
    let mut c = Cursor {
        src,
        at: 0,
        line: 1,
        col: 1,
    };
    let mut toks = Vec::new();
    loop {
        if let Some(bad) = skip_space_and_comments(&mut c) {
            toks.push(bad);
        }
        let pos = c.pos();
        let start = c.at;
        let Some(ch) = c.peek() else {
            toks.push(Tok {
                kind: Kind::Eof,
                pos,
                start,
                end: start,
            });
            return toks;
        };
        let kind = token(&mut c, ch);
        toks.push(Tok {
            kind,
            pos,
            start,
            end: c.at,
        });
    }
}

/// Skips blanks, `// …` and `/* … */`; an unterminated block comment is
/// returned as a bad token (the cursor is then at the end).
fn skip_space_and_comments(c: &mut Cursor) -> Option<Tok> {
    loop {
        c.bump_while(char::is_whitespace);
        if c.rest().starts_with("//") {
            c.bump_while(|ch| ch != '\n');
        } else if c.rest().starts_with("/*") {
            let (pos, start) = (c.pos(), c.at);
            c.bump();
            c.bump();
            loop {
                if c.rest().starts_with("*/") {
                    c.bump();
                    c.bump();
                    break;
                }
                if c.bump().is_none() {
                    return Some(Tok {
                        kind: Kind::Bad("unterminated `/*` comment".into()),
                        pos,
                        start,
                        end: c.at,
                    });
                }
            }
        } else {
            return None;
        }
    }
}

/// Reads one token starting with `ch` (not a blank, not a comment).
fn token(c: &mut Cursor, ch: char) -> Kind {
    if ch.is_ascii_alphabetic() || matches!(ch, '_' | '$' | '%') {
        word(c, ch)
    } else if ch == '.' {
        directive(c)
    } else if ch.is_ascii_digit() {
        number(c);
        Kind::Num
    } else if ch == '"' {
        string(c)
    } else {
        c.bump();
        if is_punct(ch) {
            Kind::Punct(ch)
        } else {
            Kind::Bad(crate::diag::unexpected_char(ch))
        }
    }
}

/// A name with its `.x` and `::x` suffixes. PTX names are a letter
/// followed by `followsym`s, or `_`, `$`, `%` followed by at least one.
fn word(c: &mut Cursor, first: char) -> Kind {
    c.bump();
    let body_start = c.at;
    c.bump_while(is_follow);
    if matches!(first, '$' | '%') && c.at == body_start {
        return Kind::Bad(format!("expected a name after `{first}`"));
    }
    suffixes(c);
    Kind::Word
}

/// Dotted and `::` suffixes glued to a word or directive.
fn suffixes(c: &mut Cursor) {
    loop {
        if c.peek() == Some('.') && c.peek2().is_some_and(is_follow) {
            c.bump();
        } else if c.rest().starts_with("::") && c.rest()[2..].starts_with(is_follow) {
            c.bump();
            c.bump();
        } else {
            return;
        }
        c.bump_while(is_follow);
    }
}

/// `.name` or `.name::sub`; a second dot starts another directive.
fn directive(c: &mut Cursor) -> Kind {
    c.bump();
    if !c
        .peek()
        .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
    {
        return Kind::Bad("expected a directive name after `.`".into());
    }
    c.bump_while(is_follow);
    while c.rest().starts_with("::") && c.rest()[2..].starts_with(is_follow) {
        c.bump();
        c.bump();
        c.bump_while(is_follow);
    }
    Kind::Dir
}

/// A number's characters; its value is read by the parser. A sign is part
/// of the number only right after a decimal exponent (`1.5e-3`), so that
/// `[%rd1+0x1e-4]`-like address arithmetic keeps its `-`.
fn number(c: &mut Cursor) {
    let start = c.at;
    loop {
        match c.peek() {
            Some(ch) if ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' => {
                c.bump();
            }
            Some('+' | '-') if is_decimal_exponent(&c.src[start..c.at]) => {
                c.bump();
            }
            _ => return,
        }
    }
}

/// Whether `s` is a decimal mantissa followed by `e`/`E` (`1e`, `2.5E`).
fn is_decimal_exponent(s: &str) -> bool {
    let Some(m) = s.strip_suffix(['e', 'E']) else {
        return false;
    };
    !m.is_empty()
        && m.chars().all(|ch| ch.is_ascii_digit() || ch == '.')
        && m.starts_with(|ch: char| ch.is_ascii_digit())
}

/// `"…"` with C escapes (`\"`, `\\`, `\n`, `\t`; any other escaped
/// character stands for itself). Strings do not span lines.
fn string(c: &mut Cursor) -> Kind {
    c.bump();
    let mut s = String::new();
    loop {
        match c.peek() {
            None | Some('\n') => return Kind::Bad("unterminated string".into()),
            Some('"') => {
                c.bump();
                return Kind::Str(s);
            }
            Some('\\') => {
                c.bump();
                match c.peek() {
                    None | Some('\n') => return Kind::Bad("unterminated string".into()),
                    Some(e) => {
                        c.bump();
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                    }
                }
            }
            Some(ch) => {
                c.bump();
                s.push(ch);
            }
        }
    }
}
