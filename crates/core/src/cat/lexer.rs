//! Tokens of the `.cat` language.
//!
//! Identifiers follow the herd/Dat3M convention: they start with a letter, a
//! digit or `_` and continue with letters, digits, `_`, `.` and `-`, so
//! `po-loc` and `non-rmw-reads` are single names. `0` and `_` on their own
//! are the polymorphic empty and universal constants. `-1` only exists as a
//! token after `^` (for `^-1`). Comments are `(* ... *)` (nestable),
//! `/* ... */`, `// ...` and `# ...` to the end of the line; `{% ... %}`
//! documentation blocks are skipped like comments.

use crate::diag::{excerpt, Error, Result};
use crate::ir::Pos;
use std::fmt;

/// Reserved words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    Let,
    Rec,
    And,
    As,
    Include,
    Show,
    Unshow,
    Acyclic,
    Irreflexive,
    Empty,
    Flag,
    Begin,
    End,
    // Reserved by herd; recognised only to report them as unsupported.
    Procedure,
    Call,
    Forall,
    With,
    Enum,
    Debug,
    Match,
    Requires,
    UndefinedUnless,
    Cut,
    In,
    Fun,
    If,
    Then,
    Else,
    Try,
    Do,
    From,
    When,
    Instructions,
    Default,
}

impl Kw {
    fn from_word(w: &str) -> Option<Kw> {
        Some(match w {
            "let" => Kw::Let,
            "rec" => Kw::Rec,
            "and" => Kw::And,
            "as" => Kw::As,
            "include" => Kw::Include,
            "show" => Kw::Show,
            "unshow" => Kw::Unshow,
            "acyclic" => Kw::Acyclic,
            "irreflexive" => Kw::Irreflexive,
            "empty" => Kw::Empty,
            "flag" => Kw::Flag,
            "begin" => Kw::Begin,
            "end" => Kw::End,
            "procedure" => Kw::Procedure,
            "call" => Kw::Call,
            "forall" => Kw::Forall,
            "with" => Kw::With,
            "enum" => Kw::Enum,
            "debug" => Kw::Debug,
            "match" => Kw::Match,
            "requires" => Kw::Requires,
            "undefined_unless" => Kw::UndefinedUnless,
            "cut" => Kw::Cut,
            "in" => Kw::In,
            "fun" => Kw::Fun,
            "if" => Kw::If,
            "then" => Kw::Then,
            "else" => Kw::Else,
            "try" => Kw::Try,
            "do" => Kw::Do,
            "from" => Kw::From,
            "when" => Kw::When,
            "instructions" => Kw::Instructions,
            "default" => Kw::Default,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kw::Let => "let",
            Kw::Rec => "rec",
            Kw::And => "and",
            Kw::As => "as",
            Kw::Include => "include",
            Kw::Show => "show",
            Kw::Unshow => "unshow",
            Kw::Acyclic => "acyclic",
            Kw::Irreflexive => "irreflexive",
            Kw::Empty => "empty",
            Kw::Flag => "flag",
            Kw::Begin => "begin",
            Kw::End => "end",
            Kw::Procedure => "procedure",
            Kw::Call => "call",
            Kw::Forall => "forall",
            Kw::With => "with",
            Kw::Enum => "enum",
            Kw::Debug => "debug",
            Kw::Match => "match",
            Kw::Requires => "requires",
            Kw::UndefinedUnless => "undefined_unless",
            Kw::Cut => "cut",
            Kw::In => "in",
            Kw::Fun => "fun",
            Kw::If => "if",
            Kw::Then => "then",
            Kw::Else => "else",
            Kw::Try => "try",
            Kw::Do => "do",
            Kw::From => "from",
            Kw::When => "when",
            Kw::Instructions => "instructions",
            Kw::Default => "default",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Str(String),
    Kw(Kw),
    /// `0`: the empty set / relation.
    Zero,
    /// `_`: the universal set (all pairs in a relation context).
    Underscore,
    Eq,
    Bar,
    Amp,
    Backslash,
    Semi,
    Star,
    Plus,
    Question,
    Hat,
    /// `-1` (only after `^`).
    MinusOne,
    Tilde,
    LParen,
    RParen,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    Comma,
    PlusPlus,
    Arrow,
    /// A herd tag literal `'name`.
    Tag(String),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Input text: quoted short (a 50 MB name is not echoed whole).
            Tok::Ident(s) => write!(f, "`{}`", excerpt(s)),
            Tok::Str(s) => write!(f, "string \"{}\"", excerpt(s)),
            Tok::Kw(k) => write!(f, "`{}`", k.as_str()),
            Tok::Zero => f.write_str("`0`"),
            Tok::Underscore => f.write_str("`_`"),
            Tok::Eq => f.write_str("`=`"),
            Tok::Bar => f.write_str("`|`"),
            Tok::Amp => f.write_str("`&`"),
            Tok::Backslash => f.write_str("`\\`"),
            Tok::Semi => f.write_str("`;`"),
            Tok::Star => f.write_str("`*`"),
            Tok::Plus => f.write_str("`+`"),
            Tok::Question => f.write_str("`?`"),
            Tok::Hat => f.write_str("`^`"),
            Tok::MinusOne => f.write_str("`-1`"),
            Tok::Tilde => f.write_str("`~`"),
            Tok::LParen => f.write_str("`(`"),
            Tok::RParen => f.write_str("`)`"),
            Tok::LBrack => f.write_str("`[`"),
            Tok::RBrack => f.write_str("`]`"),
            Tok::LBrace => f.write_str("`{`"),
            Tok::RBrace => f.write_str("`}`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::PlusPlus => f.write_str("`++`"),
            Tok::Arrow => f.write_str("`->`"),
            Tok::Tag(s) => write!(f, "tag `'{}`", excerpt(s)),
            Tok::Eof => f.write_str("end of file"),
        }
    }
}

/// A token with its position and byte span in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
    pub start: usize,
    pub end: usize,
}

/// The result of lexing one file.
#[derive(Debug)]
pub struct Lexed {
    /// Tokens, always ending with [`Tok::Eof`].
    pub tokens: Vec<Token>,
    /// Bodies of `//` comments (text after the slashes), with the position
    /// of the slashes.
    pub line_comments: Vec<(Pos, String)>,
}

fn ident_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-'
}

struct Cursor<'a> {
    src: &'a str,
    /// Byte offset.
    off: usize,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.off..].chars().next()
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.src[self.off..].chars();
        it.next();
        it.next()
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            col: self.col,
        }
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.off += c.len_utf8();
        if c == '\n' {
            self.line = self.line.saturating_add(1);
            self.col = 1;
        } else {
            self.col = self.col.saturating_add(1);
        }
        Some(c)
    }

    fn starts_with(&self, s: &str) -> bool {
        self.src[self.off..].starts_with(s)
    }
}

/// Splits `src` into tokens.
pub fn lex(src: &str) -> Result<Lexed> {
    let mut cur = Cursor {
        src,
        off: 0,
        line: 1,
        col: 1,
    };
    let mut tokens = Vec::new();
    let mut line_comments = Vec::new();
    while let Some(c) = cur.peek() {
        // Skip blanks and comments.
        if c.is_whitespace() {
            cur.bump();
            continue;
        }
        if cur.starts_with("(*") {
            let start = cur.pos();
            cur.bump();
            cur.bump();
            let mut depth = 1u32;
            while depth > 0 {
                if cur.starts_with("(*") {
                    cur.bump();
                    cur.bump();
                    depth += 1;
                } else if cur.starts_with("*)") {
                    cur.bump();
                    cur.bump();
                    depth -= 1;
                } else if cur.bump().is_none() {
                    return Err(Error::syntax(start, "unterminated comment `(*`"));
                }
            }
            continue;
        }
        if cur.starts_with("{%") {
            // A documentation block (`{% … %}`, not nested): text for a
            // model's rendered documentation, not part of the model.
            let start = cur.pos();
            cur.bump();
            cur.bump();
            loop {
                if cur.starts_with("%}") {
                    cur.bump();
                    cur.bump();
                    break;
                }
                if cur.bump().is_none() {
                    return Err(Error::syntax(
                        start,
                        "unterminated documentation block `{%`",
                    ));
                }
            }
            continue;
        }
        if cur.starts_with("/*") {
            let start = cur.pos();
            cur.bump();
            cur.bump();
            loop {
                if cur.starts_with("*/") {
                    cur.bump();
                    cur.bump();
                    break;
                }
                if cur.bump().is_none() {
                    return Err(Error::syntax(start, "unterminated comment `/*`"));
                }
            }
            continue;
        }
        if c == '#' {
            // herd7's other line comment (its lexer: `("//"|"#") [^'\n']*`);
            // not a place for `// gpumc:` directives.
            while cur.peek().is_some_and(|c| c != '\n') {
                cur.bump();
            }
            continue;
        }
        if cur.starts_with("//") {
            let start = cur.pos();
            cur.bump();
            cur.bump();
            let body_start = cur.off;
            while let Some(c) = cur.peek() {
                if c == '\n' {
                    break;
                }
                cur.bump();
            }
            line_comments.push((start, src[body_start..cur.off].to_string()));
            continue;
        }

        let pos = cur.pos();
        let start = cur.off;
        let tok = if ident_start(c) {
            while cur.peek().is_some_and(ident_continue) {
                cur.bump();
            }
            // herd7 names may end with one prime (`com'`); a quote that
            // starts a token is a tag literal instead.
            if cur.peek() == Some('\'') {
                cur.bump();
            }
            let word = &src[start..cur.off];
            match word {
                "0" => Tok::Zero,
                "_" => Tok::Underscore,
                _ => match Kw::from_word(word) {
                    Some(k) => Tok::Kw(k),
                    None => Tok::Ident(word.to_string()),
                },
            }
        } else if c == '"' {
            cur.bump();
            let body_start = cur.off;
            loop {
                match cur.peek() {
                    Some('"') => break,
                    Some('\n') | None => {
                        return Err(Error::syntax(pos, "unterminated string"));
                    }
                    Some(_) => {
                        cur.bump();
                    }
                }
            }
            let body = src[body_start..cur.off].to_string();
            cur.bump();
            Tok::Str(body)
        } else if c == '\'' {
            cur.bump();
            let body_start = cur.off;
            while cur.peek().is_some_and(ident_continue) {
                cur.bump();
            }
            Tok::Tag(src[body_start..cur.off].to_string())
        } else {
            let two = (c, cur.peek2());
            let (tok, len) = match two {
                ('+', Some('+')) => (Tok::PlusPlus, 2),
                ('-', Some('>')) => (Tok::Arrow, 2),
                ('-', Some('1')) => (Tok::MinusOne, 2),
                ('=', _) => (Tok::Eq, 1),
                ('|', _) => (Tok::Bar, 1),
                ('&', _) => (Tok::Amp, 1),
                ('\\', _) => (Tok::Backslash, 1),
                (';', _) => (Tok::Semi, 1),
                ('*', _) => (Tok::Star, 1),
                ('+', _) => (Tok::Plus, 1),
                ('?', _) => (Tok::Question, 1),
                ('^', _) => (Tok::Hat, 1),
                ('~', _) => (Tok::Tilde, 1),
                ('(', _) => (Tok::LParen, 1),
                (')', _) => (Tok::RParen, 1),
                ('[', _) => (Tok::LBrack, 1),
                (']', _) => (Tok::RBrack, 1),
                ('{', _) => (Tok::LBrace, 1),
                ('}', _) => (Tok::RBrace, 1),
                (',', _) => (Tok::Comma, 1),
                _ => {
                    let shown = if c.is_control() {
                        format!("{:?}", c)
                    } else {
                        format!("`{c}`")
                    };
                    return Err(Error::syntax(pos, format!("unexpected character {shown}")));
                }
            };
            for _ in 0..len {
                cur.bump();
            }
            tok
        };
        tokens.push(Token {
            tok,
            pos,
            start,
            end: cur.off,
        });
        if tokens.len().is_multiple_of(4096) {
            // `--timeout` holds while a model loads.
            crate::guard::check()?;
        }
    }
    tokens.push(Token {
        tok: Tok::Eof,
        pos: cur.pos(),
        start: cur.off,
        end: cur.off,
    });
    Ok(Lexed {
        tokens,
        line_comments,
    })
}
