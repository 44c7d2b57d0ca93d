//! Recursive-descent parser for `.cat` files.
//!
//! Operator precedence, lowest to highest (herd7's `modelParser.mly`
//! precedence declarations; Dat3M's `Cat.g4` orders the binary operators
//! the same way):
//!
//! | level | operators | associativity |
//! |---|---|---|
//! | 1 | `a \| b` | associative (n-ary) |
//! | 2 | `a ; b` | associative (n-ary) |
//! | 3 | `a \ b` | left |
//! | 4 | `a & b` | associative (n-ary) |
//! | 5 | `A * B` (cartesian product) | left (herd: non-associative) |
//! | 6 | `~a` (prefix) | |
//! | 7 | `a+` `a*` `a?` `a^-1` `a^+` `a^*` (postfix) | |
//!
//! A `*` is the postfix closure unless an operand (`name`, `0`, `_`, `(`,
//! `[`, `~`, …) follows it, in which case it is the binary product.

use super::ast::{BinOp, Binding, Expr, ExprKind, File, Stmt, Test, UnOp};
use super::lexer::{lex, Kw, Tok, Token};
use crate::diag::{Error, Result};
use crate::ir::{Coherence, Pos};

/// Maximum height of an expression tree and maximum nesting of brackets.
pub const MAX_DEPTH: u32 = 200;

/// Parses one file.
pub fn parse_file(src: &str) -> Result<File> {
    let lexed = lex(src)?;
    let coherence = coherence_directive(&lexed.line_comments)?;
    let mut p = Parser {
        src,
        toks: lexed.tokens,
        i: 0,
        nest: 0,
    };
    let name = p.header();
    let mut stmts = Vec::new();
    let mut after_expr = false;
    while !p.at(&Tok::Eof) {
        // A model's length is the user's: `--timeout` holds while it loads.
        crate::guard::check()?;
        match p.statement(after_expr)? {
            Some((s, ends_with_expr)) => {
                after_expr = ends_with_expr;
                stmts.push(s);
            }
            None => after_expr = true,
        }
    }
    Ok(File {
        name,
        stmts,
        coherence,
    })
}

/// The `// gpumc: partial-co` / `// gpumc: total-co` line comment, if any
/// (a comment, so herd7 and Dat3M ignore it). Both in one file is an error.
fn coherence_directive(comments: &[(Pos, String)]) -> Result<Option<(Coherence, Pos)>> {
    let mut found: Option<(Coherence, Pos)> = None;
    for (pos, c) in comments {
        let c = c.trim();
        let this = if c.starts_with("gpumc: partial-co") {
            Coherence::Partial
        } else if c.starts_with("gpumc: total-co") {
            Coherence::Total
        } else {
            continue;
        };
        match found {
            Some((other, at)) if other != this => {
                return Err(Error::semantic(
                    *pos,
                    format!("contradicts the coherence directive at {at}"),
                ))
            }
            Some(_) => {}
            None => found = Some((this, *pos)),
        }
    }
    Ok(found)
}

/// Parses a single expression (the whole input). For tests and tools.
pub fn parse_expr(src: &str) -> Result<Expr> {
    let lexed = lex(src)?;
    let mut p = Parser {
        src,
        toks: lexed.tokens,
        i: 0,
        nest: 0,
    };
    let e = p.expr()?;
    if !p.at(&Tok::Eof) {
        let t = p.peek();
        return Err(Error::syntax(
            t.pos,
            format!("expected an operator or end of input, found {}", t.tok),
        ));
    }
    Ok(e)
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    /// Current bracket / prefix nesting.
    nest: u32,
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof and we never move past it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, k: usize) -> &Token {
        &self.toks[(self.i + k).min(self.toks.len() - 1)]
    }

    fn at(&self, t: &Tok) -> bool {
        &self.peek().tok == t
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if t.tok != Tok::Eof {
            self.i += 1;
        }
        t
    }

    fn prev_end(&self) -> usize {
        if self.i == 0 {
            0
        } else {
            self.toks[self.i - 1].end
        }
    }

    fn expect(&mut self, t: Tok, what: &str) -> Result<Token> {
        if self.at(&t) {
            Ok(self.bump())
        } else {
            let found = self.peek();
            Err(Error::syntax(
                found.pos,
                format!("expected {t} {what}, found {}", found.tok),
            ))
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<(String, Pos)> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Ident(s) => {
                self.bump();
                Ok((s, t.pos))
            }
            other => Err(Error::syntax(
                t.pos,
                format!("expected {what}, found {other}"),
            )),
        }
    }

    /// The model name: the tokens of the first line up to a keyword (a
    /// string's contents if there is one), and, after a first line that is
    /// a single name, one name or string on a later line (herd7's `VAR
    /// STRING` / `VAR VAR`). Nothing more: a word after that is a
    /// statement, so a misspelt keyword (`acylic po`) is an error rather
    /// than part of the name (which would drop the axiom silently).
    fn header(&mut self) -> Option<String> {
        let first = self.peek().clone();
        if !matches!(first.tok, Tok::Ident(_) | Tok::Str(_)) {
            return None;
        }
        let mut last_end = first.end;
        let mut string = None;
        let mut taken = 0;
        while !matches!(self.peek().tok, Tok::Kw(_) | Tok::Tilde | Tok::Eof)
            && self.peek().pos.line == first.pos.line
        {
            let t = self.bump();
            if let Tok::Str(s) = &t.tok {
                string = Some(s.clone());
            }
            last_end = t.end;
            taken += 1;
        }
        if taken == 1
            && matches!(first.tok, Tok::Ident(_))
            && matches!(self.peek().tok, Tok::Ident(_) | Tok::Str(_))
        {
            self.bump();
        }
        Some(string.unwrap_or_else(|| collapse_ws(&self.src[first.start..last_end])))
    }

    /// One statement; `None` for ignored ones (`show`, `unshow`). The flag
    /// says whether the statement ended with an expression.
    fn statement(&mut self, after_expr: bool) -> Result<Option<(Stmt, bool)>> {
        let t = self.peek().clone();
        match &t.tok {
            Tok::Kw(Kw::Let) => self.let_stmt().map(|s| Some((s, true))),
            Tok::Kw(Kw::Include) => {
                self.bump();
                let f = self.peek().clone();
                match f.tok {
                    Tok::Str(file) => {
                        self.bump();
                        Ok(Some((Stmt::Include { file, pos: t.pos }, false)))
                    }
                    other => Err(Error::syntax(
                        f.pos,
                        format!("expected a file name string after `include`, found {other}"),
                    )),
                }
            }
            Tok::Kw(Kw::Show) | Tok::Kw(Kw::Unshow) => {
                self.bump();
                loop {
                    self.expr()?;
                    if self.at(&Tok::Kw(Kw::As)) {
                        self.bump();
                        self.expect_ident("a name after `as`")?;
                    }
                    if !self.at(&Tok::Comma) {
                        break;
                    }
                    self.bump();
                }
                Ok(None)
            }
            Tok::Kw(Kw::Flag)
            | Tok::Tilde
            | Tok::Kw(Kw::Acyclic)
            | Tok::Kw(Kw::Irreflexive)
            | Tok::Kw(Kw::Empty) => self.axiom().map(|s| Some((s, true))),
            Tok::Kw(Kw::If) => Err(Error::unsupported(
                t.pos,
                "`if` statements (herd7 model variants)",
            )),
            Tok::Kw(Kw::UndefinedUnless) => {
                self.bump();
                self.axiom_after(t.pos, false, true)
                    .map(|s| Some((s, true)))
            }
            Tok::Kw(k @ Kw::Requires) => Err(Error::unsupported(
                t.pos,
                format!("`{}` checks (undefined-behaviour axioms)", k.as_str()),
            )),
            Tok::Kw(
                k @ (Kw::Procedure
                | Kw::Call
                | Kw::Forall
                | Kw::With
                | Kw::Enum
                | Kw::Debug
                | Kw::Match
                | Kw::Cut
                | Kw::Instructions
                | Kw::Default),
            ) => Err(Error::unsupported(
                t.pos,
                format!("`{}` statements", k.as_str()),
            )),
            other => {
                let msg = if after_expr {
                    format!("expected an operator or the start of a statement, found {other}")
                } else {
                    format!(
                        "expected a statement (`let`, `include`, `acyclic`, `irreflexive`, \
                         `empty`, `flag`), found {other}"
                    )
                };
                Err(Error::syntax(t.pos, msg))
            }
        }
    }

    fn let_stmt(&mut self) -> Result<Stmt> {
        self.bump(); // let
        let rec = if self.at(&Tok::Kw(Kw::Rec)) {
            self.bump();
            true
        } else {
            false
        };
        let mut bindings = vec![self.binding(rec)?];
        while self.at(&Tok::Kw(Kw::And)) {
            self.bump();
            bindings.push(self.binding(rec)?);
        }
        if self.at(&Tok::Kw(Kw::In)) {
            return Err(Error::unsupported(
                self.peek().pos,
                "`let ... in` expressions",
            ));
        }
        if self.at(&Tok::Kw(Kw::When)) {
            return Err(Error::unsupported(self.peek().pos, "`let rec ... when`"));
        }
        Ok(if rec {
            Stmt::LetRec(bindings)
        } else {
            Stmt::Let(bindings)
        })
    }

    fn binding(&mut self, rec: bool) -> Result<Binding> {
        if self.at(&Tok::LParen) {
            return Err(Error::unsupported(
                self.peek().pos,
                "tuple patterns in `let`",
            ));
        }
        let (name, pos) = self.expect_ident("a name to bind")?;
        let params = match &self.peek().tok {
            Tok::LParen => {
                self.bump();
                let mut ps = Vec::new();
                if !self.at(&Tok::RParen) {
                    loop {
                        ps.push(self.expect_ident("a parameter name")?);
                        if !self.at(&Tok::Comma) {
                            break;
                        }
                        self.bump();
                    }
                }
                self.expect(Tok::RParen, "to close the parameter list")?;
                Some(ps)
            }
            Tok::Ident(_) => Some(vec![self.expect_ident("a parameter name")?]),
            _ => None,
        };
        if rec && params.is_some() {
            return Err(Error::unsupported(pos, "recursive functions"));
        }
        self.expect(Tok::Eq, "in a `let` binding")?;
        let body = self.expr()?;
        Ok(Binding {
            name,
            pos,
            params,
            body,
        })
    }

    fn axiom(&mut self) -> Result<Stmt> {
        let pos = self.peek().pos;
        let flag = if self.at(&Tok::Kw(Kw::Flag)) {
            self.bump();
            true
        } else {
            false
        };
        self.axiom_after(pos, flag, false)
    }

    /// The test of an axiom, after its `flag` or `undefined_unless`
    /// keyword (if any): `[~]acyclic|irreflexive|empty e [as name]`.
    fn axiom_after(&mut self, pos: Pos, flag: bool, undefined: bool) -> Result<Stmt> {
        let negated = if self.at(&Tok::Tilde) {
            self.bump();
            true
        } else {
            false
        };
        let t = self.bump();
        let test = match t.tok {
            Tok::Kw(Kw::Acyclic) => Test::Acyclic,
            Tok::Kw(Kw::Irreflexive) => Test::Irreflexive,
            Tok::Kw(Kw::Empty) => Test::Empty,
            other => {
                return Err(Error::syntax(
                    t.pos,
                    format!("expected `acyclic`, `irreflexive` or `empty`, found {other}"),
                ))
            }
        };
        if negated && test != Test::Empty {
            return Err(Error::unsupported(
                t.pos,
                "negated `acyclic` / `irreflexive` tests (only `~empty` is supported)",
            ));
        }
        let start = self.peek().start;
        let expr_pos = self.peek().pos;
        let expr = self.expr()?;
        let text = collapse_ws(self.src.get(start..self.prev_end()).unwrap_or(""));
        let name = if self.at(&Tok::Kw(Kw::As)) {
            self.bump();
            Some(self.expect_ident("an axiom name after `as`")?.0)
        } else {
            None
        };
        Ok(Stmt::Axiom {
            flag,
            undefined,
            negated,
            test,
            expr,
            expr_pos,
            name,
            text,
            pos,
        })
    }

    // ---- expressions ----
    //
    // Frames are kept small (error paths are out of line) because nesting
    // recurses through these functions.

    fn expr(&mut self) -> Result<Expr> {
        self.nest += 1;
        if self.nest > MAX_DEPTH {
            return Err(too_deep(self.peek().pos));
        }
        let r = self.binary(0);
        self.nest -= 1;
        r
    }

    /// Binary operators of precedence at least `min` (precedence climbing;
    /// a run of the same operator becomes one n-ary node).
    fn binary(&mut self, min: u8) -> Result<Expr> {
        let mut lhs = self.product()?;
        while let Some((op, prec)) = binop(&self.peek().tok) {
            if prec < min {
                break;
            }
            let pos = self.peek().pos;
            let mut items = vec![lhs];
            while binop(&self.peek().tok).is_some_and(|(o, _)| o == op) {
                self.bump();
                items.push(self.binary(prec + 1)?);
            }
            lhs = mk(ExprKind::Nary(op, items), pos)?;
        }
        Ok(lhs)
    }

    fn product(&mut self) -> Result<Expr> {
        let mut e = self.unary()?;
        while self.at(&Tok::Star) {
            let pos = self.bump().pos;
            let rhs = self.unary()?;
            e = mk(ExprKind::Nary(BinOp::Prod, vec![e, rhs]), pos)?;
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr> {
        if !self.at(&Tok::Tilde) {
            return self.postfix();
        }
        let pos = self.bump().pos;
        self.nest += 1;
        if self.nest > MAX_DEPTH {
            return Err(too_deep(pos));
        }
        let e = self.unary();
        self.nest -= 1;
        mk(ExprKind::Unary(UnOp::Compl, Box::new(e?)), pos)
    }

    fn starts_operand(t: &Tok) -> bool {
        matches!(
            t,
            Tok::Ident(_)
                | Tok::Zero
                | Tok::Underscore
                | Tok::LParen
                | Tok::LBrack
                | Tok::LBrace
                | Tok::Tilde
                | Tok::Tag(_)
                | Tok::Kw(Kw::Begin)
        )
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            let pos = self.peek().pos;
            let op = match self.peek().tok {
                Tok::Plus => UnOp::Plus,
                Tok::Question => UnOp::Opt,
                Tok::Star if Self::starts_operand(&self.peek_at(1).tok) => break,
                Tok::Star => UnOp::Star,
                Tok::Hat => {
                    self.bump();
                    match self.peek().tok {
                        Tok::MinusOne => UnOp::Inv,
                        Tok::Plus => UnOp::Plus,
                        Tok::Star => UnOp::Star,
                        _ => return Err(self.bad_hat()),
                    }
                }
                Tok::PlusPlus => return Err(Error::unsupported(pos, "the `++` operator")),
                _ => break,
            };
            self.bump();
            e = mk(ExprKind::Unary(op, Box::new(e)), pos)?;
        }
        Ok(e)
    }

    #[cold]
    #[inline(never)]
    fn bad_hat(&self) -> Error {
        let n = self.peek();
        Error::syntax(
            n.pos,
            format!("expected `-1`, `+` or `*` after `^`, found {}", n.tok),
        )
    }

    fn primary(&mut self) -> Result<Expr> {
        let pos = self.peek().pos;
        match &self.peek().tok {
            Tok::Ident(_) => {
                let Tok::Ident(name) = self.bump().tok else {
                    unreachable!("peeked an identifier")
                };
                if self.at(&Tok::LParen) {
                    self.call(name, pos)
                } else if matches!(
                    self.peek().tok,
                    Tok::Ident(_) | Tok::Zero | Tok::Underscore | Tok::LBrack
                ) {
                    // herd7's application by juxtaposition, `f arg` for
                    // `f(arg)` (its own library: `domain 0`, and
                    // `fencerel F`): an argument is a name or a simple
                    // expression. Two operands in a row mean nothing else.
                    let arg = match &self.peek().tok {
                        Tok::Ident(_) => {
                            let t = self.bump();
                            let Tok::Ident(a) = t.tok else {
                                unreachable!("peeked an identifier")
                            };
                            Expr::leaf(ExprKind::Name(a), t.pos)
                        }
                        _ => self.primary()?,
                    };
                    mk(ExprKind::Call(name, vec![arg]), pos)
                } else {
                    Ok(Expr::leaf(ExprKind::Name(name), pos))
                }
            }
            Tok::Zero => {
                self.bump();
                Ok(Expr::leaf(ExprKind::Empty, pos))
            }
            Tok::Underscore => {
                self.bump();
                Ok(Expr::leaf(ExprKind::Universe, pos))
            }
            Tok::LParen | Tok::Kw(Kw::Begin) => self.group(),
            Tok::LBrack => {
                self.bump();
                let e = self.expr()?;
                if !self.at(&Tok::RBrack) {
                    return Err(self.unclosed(Tok::RBrack, "`[`", pos));
                }
                self.bump();
                mk(ExprKind::Unary(UnOp::IdOn, Box::new(e)), pos)
            }
            _ => Err(self.not_an_expression()),
        }
    }

    /// `( e )` or `begin e end`.
    fn group(&mut self) -> Result<Expr> {
        let open = self.bump();
        let close = if open.tok == Tok::LParen {
            Tok::RParen
        } else {
            Tok::Kw(Kw::End)
        };
        if close == Tok::RParen && self.at(&Tok::RParen) {
            return Err(Error::unsupported(open.pos, "the empty tuple `()`"));
        }
        let e = self.expr()?;
        if self.at(&Tok::Comma) {
            return Err(Error::unsupported(self.peek().pos, "tuples"));
        }
        if !self.at(&close) {
            let what = open.tok.to_string();
            return Err(self.unclosed(close, &what, open.pos));
        }
        self.bump();
        Ok(e)
    }

    /// `name(args)`, the name already consumed.
    fn call(&mut self, name: String, pos: Pos) -> Result<Expr> {
        self.bump(); // (
        let mut args = Vec::new();
        if !self.at(&Tok::RParen) {
            loop {
                args.push(self.expr()?);
                if !self.at(&Tok::Comma) {
                    break;
                }
                self.bump();
            }
        }
        if !self.at(&Tok::RParen) {
            return Err(self.unclosed(Tok::RParen, "argument list", pos));
        }
        self.bump();
        mk(ExprKind::Call(name, args), pos)
    }

    #[cold]
    #[inline(never)]
    fn unclosed(&self, close: Tok, what: &str, open: Pos) -> Error {
        let found = self.peek();
        Error::syntax(
            found.pos,
            format!(
                "expected {close} to close the {what} at {open}, found {}",
                found.tok
            ),
        )
    }

    #[cold]
    #[inline(never)]
    fn not_an_expression(&self) -> Error {
        let t = self.peek();
        match &t.tok {
            Tok::LBrace => Error::unsupported(t.pos, "explicit sets `{...}`"),
            Tok::Tag(_) => Error::unsupported(t.pos, "tag literals"),
            Tok::Kw(Kw::Let) => Error::unsupported(t.pos, "`let ... in` expressions"),
            Tok::Kw(k @ (Kw::Fun | Kw::If | Kw::Match | Kw::Try)) => {
                Error::unsupported(t.pos, format!("`{}` expressions", k.as_str()))
            }
            other => Error::syntax(t.pos, format!("expected an expression, found {other}")),
        }
    }
}

fn binop(t: &Tok) -> Option<(BinOp, u8)> {
    Some(match t {
        Tok::Bar => (BinOp::Union, 1),
        Tok::Semi => (BinOp::Seq, 2),
        Tok::Backslash => (BinOp::Diff, 3),
        Tok::Amp => (BinOp::Inter, 4),
        _ => return None,
    })
}

#[cold]
#[inline(never)]
fn too_deep(pos: Pos) -> Error {
    Error::syntax(pos, "expression nested too deeply")
}

fn check_depth(depth: u32, pos: Pos) -> Result<()> {
    if depth > MAX_DEPTH {
        Err(too_deep(pos))
    } else {
        Ok(())
    }
}

fn mk(kind: ExprKind, pos: Pos) -> Result<Expr> {
    let depth = 1 + match &kind {
        ExprKind::Nary(_, es) | ExprKind::Call(_, es) => {
            es.iter().map(|e| e.depth).max().unwrap_or(0)
        }
        ExprKind::Unary(_, e) => e.depth,
        _ => 0,
    };
    check_depth(depth, pos)?;
    Ok(Expr { kind, pos, depth })
}
