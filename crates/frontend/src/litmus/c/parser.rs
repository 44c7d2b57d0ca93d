//! The parser: header, comments, initial state and thread functions of a
//! C litmus test (the final part is `litmus::tail`'s).

use super::ast::{BOp, Expr, ExprKind, Init, Param, Stmt, StmtKind, Test, ThreadDef, UOp};
use super::lexer::{at_tail, int_value, skip_blank, token, Tok};
use crate::diag::{Error, Result};
use crate::litmus::source::{thread_index, Source};

/// Deeper nesting (blocks, parentheses, unary operators) is refused, which
/// keeps recursion bounded on hostile input.
const MAX_DEPTH: usize = 200;

/// Words that make up a C type (qualifiers and OpenCL/CUDA address
/// spaces included; OpenCL's `global`/`local` give a location its region).
const TYPE_WORDS: &[&str] = &[
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "bool",
    "_Bool",
    "volatile",
    "const",
    "_Atomic",
    "atomic_int",
    "atomic_uint",
    "atomic_long",
    "atomic_ulong",
    "atomic_llong",
    "atomic_ullong",
    "atomic_bool",
    "atomic_char",
    "atomic_schar",
    "atomic_uchar",
    "atomic_short",
    "atomic_ushort",
    "atomic_intptr_t",
    "atomic_uintptr_t",
    "atomic_size_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "intptr_t",
    "uintptr_t",
    "size_t",
    "__global",
    "global",
    "__local",
    "local",
    "__device__",
    "__shared__",
];

/// Types gpumc does not model.
const UNSUPPORTED_TYPES: &[&str] = &[
    "float",
    "double",
    "struct",
    "union",
    "enum",
    // herd's 128-bit tests: gpumc's values are 64 bits wide.
    "__int128",
    "__int128_t",
    "__uint128_t",
];

/// Statements that need loops or jumps.
const JUMPS: &[&str] = &[
    "while", "for", "do", "goto", "switch", "break", "continue", "return", "case", "default",
];

pub(super) struct Parser<'s, 'a> {
    pub src: &'s Source<'a>,
    off: usize,
    /// The end of the last token consumed.
    prev_end: usize,
    depth: usize,
}

impl<'s, 'a> Parser<'s, 'a> {
    pub fn new(src: &'s Source<'a>) -> Self {
        Parser {
            src,
            off: 0,
            prev_end: 0,
            depth: 0,
        }
    }

    // ----- tokens -----

    fn peek(&self) -> Result<Tok<'a>> {
        Ok(token(self.src, self.off)?.0)
    }

    /// The token `n` places ahead (0: the next one).
    fn peek_nth(&self, n: usize) -> Result<Tok<'a>> {
        let mut off = self.off;
        for _ in 0..n {
            off = token(self.src, off)?.2;
        }
        Ok(token(self.src, off)?.0)
    }

    /// The offset of the next token.
    fn here(&self) -> Result<usize> {
        Ok(token(self.src, self.off)?.1)
    }

    fn bump(&mut self) -> Result<(Tok<'a>, usize)> {
        let (t, start, end) = token(self.src, self.off)?;
        self.off = end;
        if t != Tok::Eof {
            self.prev_end = end;
        }
        Ok((t, start))
    }

    fn at(&self, p: &str) -> Result<bool> {
        Ok(matches!(self.peek()?, Tok::Punct(q) if q == p))
    }

    fn eat(&mut self, p: &str) -> Result<bool> {
        let yes = self.at(p)?;
        if yes {
            self.bump()?;
        }
        Ok(yes)
    }

    /// "expected WHAT, found <next token>" at the next token.
    fn unexpected(&self, what: &str) -> Error {
        match token(self.src, self.off) {
            Ok((t, start, _)) => self
                .src
                .err_syntax(start, format!("expected {what}, found {}", t.describe())),
            Err(e) => e,
        }
    }

    fn expect(&mut self, p: &str) -> Result<usize> {
        if self.at(p)? {
            Ok(self.bump()?.1)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<(&'a str, usize)> {
        match self.peek()? {
            Tok::Ident(s) => Ok((s, self.bump()?.1)),
            _ => Err(self.unexpected(what)),
        }
    }

    fn deeper(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self
                .src
                .err_syntax(self.here()?, "the program is nested too deeply"));
        }
        self.depth += 1;
        Ok(())
    }

    // ----- the test -----

    /// Everything up to the final part.
    pub fn test(mut self) -> Result<Test<'a>> {
        let (name, opencl) = self.header()?;
        let header = self.preamble()?;
        let inits = self.init_block()?;
        let mut threads = Vec::new();
        loop {
            let off = skip_blank(self.src, self.off)?;
            self.off = off;
            if off >= self.src.len() || at_tail(self.src, off)? || at_scope_tree(self.src, off) {
                break;
            }
            threads.push(self.thread(threads.len())?);
        }
        if threads.is_empty() {
            return Err(self.unexpected("a thread function like `P0(atomic_int* x) { ... }`"));
        }
        Ok(Test {
            name,
            opencl,
            header,
            inits,
            threads,
            tail: self.off,
        })
    }

    /// `C name` or `OpenCL name`: the rest of the first line is the name;
    /// returns it and whether the test is OpenCL.
    fn header(&mut self) -> Result<(String, bool)> {
        let src = self.src;
        let off = src.skip_ws(0);
        // The caller dispatched on the word (`C`, `OpenCL`, `OPENCL`).
        let word = src.ident_at(off).unwrap_or("C");
        let after = off + word.len();
        let line_end = src.text[after..]
            .find('\n')
            .map_or(src.len(), |i| after + i);
        let name = src.text[after..line_end].trim();
        if name.is_empty() {
            return Err(src.err_syntax(after, format!("missing test name after `{word}`")));
        }
        self.off = line_end;
        Ok((name.to_string(), word != "C"))
    }

    /// Doc strings `"..."`, OCaml comments `(* ... *)` (nested) and
    /// herdtools' `Key=Value` header lines before the initial state; returns
    /// those lines.
    fn preamble(&mut self) -> Result<Vec<(String, String)>> {
        let src = self.src;
        let mut header = Vec::new();
        loop {
            let off = skip_blank(src, self.off)?;
            let rest = &src.text[off..];
            if let Some((k, v, end)) = src.key_value_line(off) {
                header.push((k.to_string(), v.to_string()));
                self.off = end;
            } else if let Some(body) = rest.strip_prefix('"') {
                let Some(close) = body.find('"') else {
                    return Err(src.err_syntax(off, "unterminated doc string"));
                };
                self.off = off + 1 + close + 1;
            } else if rest.starts_with("(*") {
                let mut level = 0usize;
                let mut i = off;
                loop {
                    let r = &src.text[i..];
                    if r.is_empty() {
                        return Err(src.err_syntax(off, "unterminated comment `(*`"));
                    } else if r.starts_with("(*") {
                        level += 1;
                        i += 2;
                    } else if r.starts_with("*)") {
                        level -= 1;
                        i += 2;
                        if level == 0 {
                            break;
                        }
                    } else {
                        i += r.chars().next().map_or(1, char::len_utf8);
                    }
                }
                self.off = i;
            } else {
                self.off = off;
                return Ok(header);
            }
        }
    }

    /// `{ x = 0; [y] = 1; atomic_int z; 0:r0 = 2; }`.
    fn init_block(&mut self) -> Result<Vec<Init<'a>>> {
        if !self.at("{")? {
            return Err(self.unexpected("`{` to open the initial state"));
        }
        self.bump()?;
        let mut items = Vec::new();
        loop {
            if self.eat(";")? {
                continue;
            }
            if self.eat("}")? {
                return Ok(items);
            }
            if self.peek()? == Tok::Eof {
                return Err(self.unexpected("`}` to close the initial state"));
            }
            items.push(self.init_item()?);
            if !self.at(";")? && !self.at("}")? {
                return Err(self.unexpected("`;`"));
            }
        }
    }

    fn init_item(&mut self) -> Result<Init<'a>> {
        let src = self.src;
        // `0:r0 = 1` / `P0:r0 = 1`
        let thread = match (self.peek()?, self.peek_nth(1)?) {
            (Tok::Int(d), Tok::Punct(":")) => Some(d),
            (Tok::Ident(s), Tok::Punct(":")) => thread_index(s),
            _ => None,
        };
        if let Some(digits) = thread {
            let (_, thread_off) = self.bump()?;
            let thread = digits
                .parse::<usize>()
                .map_err(|_| src.err_syntax(thread_off, "thread number out of range"))?;
            self.expect(":")?;
            let (name, off) = self.expect_ident("a local variable")?;
            self.expect("=")?;
            let value = self.init_value()?;
            return Ok(Init::Reg {
                thread,
                thread_off,
                name,
                off,
                value,
            });
        }
        if self.eat("[")? {
            let (name, off) = self.expect_ident("a location")?;
            self.expect("]")?;
            self.expect("=")?;
            let value = self.init_value()?;
            return Ok(Init::Loc {
                name,
                off,
                value,
                region: None,
            });
        }
        let typed = self.type_start()?;
        let mut region = None;
        if typed {
            region = self.type_words(false)?.1;
            if self.at("*")? {
                return Err(src.err_unsupported(
                    self.here()?,
                    "pointer variables (a location is an integer; threads take pointers to it)",
                ));
            }
        }
        self.unsupported_type()?;
        let (name, off) = self.expect_ident("a location")?;
        if typed && (self.at(";")? || self.at("}")?) {
            return Ok(Init::Loc {
                name,
                off,
                value: 0,
                region,
            });
        }
        self.expect("=")?;
        let value = self.init_value()?;
        Ok(Init::Loc {
            name,
            off,
            value,
            region,
        })
    }

    /// An initial value: an integer with an optional sign.
    fn init_value(&mut self) -> Result<i64> {
        let neg = self.eat("-")?;
        match self.peek()? {
            Tok::Int(d) => {
                let (_, off) = self.bump()?;
                let v = int_value(self.src, off, d)?;
                Ok(if neg { v.wrapping_neg() } else { v })
            }
            Tok::Punct("&") => Err(self.src.err_unsupported(
                self.here()?,
                "pointer initial values (a location holds an integer)",
            )),
            _ => Err(self.unexpected("an integer")),
        }
    }

    fn is_type_word(t: Tok) -> bool {
        matches!(t, Tok::Ident(w) if TYPE_WORDS.contains(&w))
    }

    /// Does a type start here (a type word followed by a name, `*` or
    /// another type word)?
    fn type_start(&self) -> Result<bool> {
        Ok(Self::is_type_word(self.peek()?)
            && matches!(self.peek_nth(1)?, Tok::Ident(_) | Tok::Punct("*")))
    }

    /// A refused type at the next token.
    fn unsupported_type(&self) -> Result<()> {
        if let Tok::Ident(w) = self.peek()? {
            if UNSUPPORTED_TYPES.contains(&w)
                && matches!(self.peek_nth(1)?, Tok::Ident(_) | Tok::Punct("*"))
            {
                let why = if w.contains("128") {
                    "values are at most 64 bits wide in gpumc"
                } else {
                    "only integer types are supported"
                };
                return Err(self
                    .src
                    .err_unsupported(self.here()?, format!("type `{w}` ({why})")));
            }
        }
        Ok(())
    }

    /// Type words (each followed by a name, `*`, another type word, or —
    /// in a cast — `)`); returns how many, and the memory region an
    /// OpenCL address-space qualifier among them names.
    fn type_words(&mut self, cast: bool) -> Result<(usize, Option<&'static str>)> {
        let mut n = 0;
        let mut region = None;
        while let Tok::Ident(w) = self.peek()? {
            if !TYPE_WORDS.contains(&w) {
                break;
            }
            let next = self.peek_nth(1)?;
            let more = matches!(next, Tok::Ident(_) | Tok::Punct("*"))
                || (cast && next == Tok::Punct(")"));
            if !more {
                break;
            }
            let (_, off) = self.bump()?;
            n += 1;
            if let Some(r) = address_space(w) {
                if region.is_some_and(|old| old != r) {
                    return Err(self
                        .src
                        .err_semantic(off, "two different address spaces in one type"));
                }
                region = Some(r);
            }
            // `unsigned __int128 w`: a refused type after a type word.
            self.unsupported_type()?;
        }
        Ok((n, region))
    }

    /// `P<k>`, an optional placement, parameters, body.
    fn thread(&mut self, index: usize) -> Result<ThreadDef<'a>> {
        let src = self.src;
        let (name, off) = self.expect_ident("a thread function like `P0(...)`")?;
        match thread_index(name).map(str::parse::<usize>) {
            Some(Ok(k)) if k == index => {}
            _ => {
                return Err(src.err_semantic(
                    off,
                    format!(
                    "expected thread `P{index}`, found `{name}` (threads are P0, P1, … in order)"
                ),
                ))
            }
        }
        let placement_off = self.here()?;
        let placement = if self.eat("@")? {
            Some(self.placement(name, off)?)
        } else {
            None
        };
        self.expect("(")?;
        let params = self.params()?;
        if !self.at("{")? {
            return Err(self.unexpected("`{` to open the thread's body"));
        }
        self.bump()?;
        let body = self.block_rest()?;
        Ok(ThreadDef {
            placement,
            placement_off,
            params,
            body,
        })
    }

    /// `cta 0, gpu 1` (both levels, any order; OpenCL's `wg 0, dev 1`
    /// too) → `[cta, gpu]`.
    fn placement(&mut self, thread: &str, thread_off: usize) -> Result<Vec<i64>> {
        let src = self.src;
        let levels = ["cta", "gpu"];
        let mut ids: [Option<i64>; 2] = [None, None];
        loop {
            let (level, level_off) =
                self.expect_ident("a scope level (`cta`, `gpu`; OpenCL: `wg`, `dev`)")?;
            let k = match level {
                "cta" | "wg" => 0,
                "gpu" | "dev" => 1,
                _ => {
                    return Err(src.err_syntax(
                        level_off,
                        format!(
                            "unknown scope level `{level}` (expected `cta` and `gpu`, or `wg` and `dev`)"
                        ),
                    ))
                }
            };
            if ids[k].is_some() {
                return Err(src.err_syntax(level_off, format!("scope level `{level}` given twice")));
            }
            match self.peek()? {
                Tok::Int(d) => {
                    let (_, d_off) = self.bump()?;
                    ids[k] = Some(int_value(src, d_off, d)?);
                }
                Tok::Punct("-") => {
                    return Err(src.err_syntax(self.here()?, "scope indices must be non-negative"))
                }
                _ => return Err(self.unexpected("a scope index")),
            }
            if !self.eat(",")? {
                break;
            }
        }
        if let Some(k) = ids.iter().position(Option::is_none) {
            return Err(src.err_syntax(
                thread_off,
                format!("placement of `{thread}` lacks `{}`", levels[k]),
            ));
        }
        Ok(ids.iter().map(|v| v.unwrap_or(0)).collect())
    }

    /// Parameters after `(`, through `)`: pointers `atomic_int* x`.
    fn params(&mut self) -> Result<Vec<Param<'a>>> {
        let src = self.src;
        let mut params = Vec::new();
        if self.eat(")")? {
            return Ok(params);
        }
        if self.peek()? == Tok::Ident("void") && self.peek_nth(1)? == Tok::Punct(")") {
            self.bump()?;
            self.bump()?;
            return Ok(params);
        }
        loop {
            self.unsupported_type()?;
            let ty_off = self.here()?;
            let (words, region) = self.type_words(false)?;
            if words == 0 {
                return Err(self.unexpected("a parameter type like `atomic_int*`"));
            }
            let mut stars = 0;
            while self.eat("*")? {
                stars += 1;
            }
            let (name, off) = self.expect_ident("a parameter name")?;
            match stars {
                1 => {}
                0 => {
                    return Err(src.err_unsupported(
                        ty_off,
                        format!("parameter `{name}` is not a pointer (threads take their locations as pointers, `atomic_int* {name}`)"),
                    ))
                }
                _ => {
                    return Err(src.err_unsupported(ty_off, "pointers to pointers"));
                }
            }
            params.push(Param { name, off, region });
            if self.eat(")")? {
                return Ok(params);
            }
            if !self.eat(",")? {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    // ----- statements -----

    /// Statements after `{`, through the matching `}`.
    fn block_rest(&mut self) -> Result<Vec<Stmt<'a>>> {
        self.deeper()?;
        let mut out = Vec::new();
        loop {
            if self.eat("}")? {
                self.depth -= 1;
                return Ok(out);
            }
            if self.peek()? == Tok::Eof {
                return Err(self.unexpected("`}`"));
            }
            self.stmt(&mut out)?;
        }
    }

    /// One statement (a declaration of several names gives several).
    fn stmt(&mut self, out: &mut Vec<Stmt<'a>>) -> Result<()> {
        let src = self.src;
        let off = self.here()?;
        match (self.peek()?, self.peek_nth(1)?) {
            (Tok::Punct(";"), _) => {
                self.bump()?;
            }
            (Tok::Punct("{"), _) => {
                self.bump()?;
                let body = self.block_rest()?;
                out.push(Stmt {
                    kind: StmtKind::Block(body),
                    off,
                    end: self.prev_end,
                });
            }
            (Tok::Ident("if"), _) => {
                self.bump()?;
                self.expect("(")?;
                let cond = self.expr()?;
                self.expect(")")?;
                let head_end = self.prev_end;
                let then = self.branch_body()?;
                let els = if self.peek()? == Tok::Ident("else") {
                    self.bump()?;
                    self.branch_body()?
                } else {
                    Vec::new()
                };
                out.push(Stmt {
                    kind: StmtKind::If { cond, then, els },
                    off,
                    end: head_end,
                });
            }
            (Tok::Ident(w), _) if JUMPS.contains(&w) => {
                return Err(src.err_unsupported(
                    off,
                    format!("`{w}` (loops and jumps: a C litmus test is loop-free straight-line code with `if`)"),
                ));
            }
            (Tok::Ident(w), Tok::Punct(":")) => {
                let Some(id) = barrier_label(w) else {
                    return Err(src.err_unsupported(off, format!("label `{w}` (no jumps)")));
                };
                self.bump()?;
                self.bump()?;
                let call = self.expr()?;
                let is_barrier =
                    matches!(&call.kind, ExprKind::Call { name, .. } if is_barrier(name));
                if !is_barrier {
                    return Err(src.err_unsupported(
                        off,
                        format!("label `{w}` on something other than a barrier (no jumps)"),
                    ));
                }
                self.expect(";")?;
                out.push(Stmt {
                    kind: StmtKind::Labeled { id, call },
                    off,
                    end: self.prev_end,
                });
            }
            _ if self.type_start()? => self.decls(out)?,
            (Tok::Punct(p @ ("++" | "--")), _) => {
                self.bump()?;
                let target = self.unary()?;
                self.expect(";")?;
                let one = Expr {
                    kind: ExprKind::Int(1),
                    off,
                    end: off + 2,
                };
                let op = if p == "++" { BOp::Add } else { BOp::Sub };
                out.push(Stmt {
                    kind: StmtKind::Assign {
                        target,
                        op: Some(op),
                        value: one,
                    },
                    off,
                    end: self.prev_end,
                });
            }
            _ => {
                self.unsupported_type()?;
                let e = self.expr()?;
                let kind = match self.peek()? {
                    Tok::Punct("=") => {
                        self.bump()?;
                        StmtKind::Assign {
                            target: e,
                            op: None,
                            value: self.expr()?,
                        }
                    }
                    Tok::Punct(p) if compound(p).is_some() => {
                        self.bump()?;
                        StmtKind::Assign {
                            target: e,
                            op: compound(p),
                            value: self.expr()?,
                        }
                    }
                    Tok::Punct(p @ ("++" | "--")) => {
                        let (_, p_off) = self.bump()?;
                        StmtKind::Assign {
                            target: e,
                            op: Some(if p == "++" { BOp::Add } else { BOp::Sub }),
                            value: Expr {
                                kind: ExprKind::Int(1),
                                off: p_off,
                                end: p_off + 2,
                            },
                        }
                    }
                    _ => StmtKind::Expr(e),
                };
                self.expect(";")?;
                out.push(Stmt {
                    kind,
                    off,
                    end: self.prev_end,
                });
            }
        }
        Ok(())
    }

    /// The body of an `if` or `else`: a block or one statement.
    fn branch_body(&mut self) -> Result<Vec<Stmt<'a>>> {
        self.deeper()?;
        let mut out = Vec::new();
        if self.eat("{")? {
            out = self.block_rest()?;
        } else {
            if self.peek()? == Tok::Eof {
                return Err(self.unexpected("a statement"));
            }
            self.stmt(&mut out)?;
        }
        self.depth -= 1;
        Ok(out)
    }

    /// `int a = e, b;` → one `Decl` per name.
    fn decls(&mut self, out: &mut Vec<Stmt<'a>>) -> Result<()> {
        let src = self.src;
        let off = self.here()?;
        self.type_words(false)?;
        loop {
            if self.at("*")? {
                return Err(src.err_unsupported(
                    self.here()?,
                    "pointer variables (only the thread's parameters are pointers)",
                ));
            }
            let (name, name_off) = self.expect_ident("a variable name")?;
            if self.at("[")? {
                return Err(src.err_unsupported(self.here()?, "arrays"));
            }
            let init = if self.eat("=")? {
                Some(self.expr()?)
            } else {
                None
            };
            out.push(Stmt {
                kind: StmtKind::Decl {
                    name,
                    name_off,
                    init,
                },
                off,
                end: self.prev_end,
            });
            if self.eat(";")? {
                return Ok(());
            }
            if !self.eat(",")? {
                return Err(self.unexpected("`;`, `,` or `=`"));
            }
        }
    }

    // ----- expressions -----

    pub fn expr(&mut self) -> Result<Expr> {
        self.binary(1)
    }

    fn binary(&mut self, min: u8) -> Result<Expr> {
        self.deeper()?;
        let mut lhs = self.unary()?;
        while let Tok::Punct(p) = self.peek()? {
            if p == "?" {
                return Err(self.src.err_unsupported(
                    self.here()?,
                    "the conditional operator `?:` (write an `if`)",
                ));
            }
            let Some((prec, op)) = binop(p) else { break };
            if prec < min {
                break;
            }
            self.bump()?;
            let rhs = self.binary(prec + 1)?;
            let (off, end) = (lhs.off, rhs.end);
            let kind = match op {
                Op::Bin(b) => ExprKind::Binary(b, Box::new(lhs), Box::new(rhs)),
                Op::And => ExprKind::And(Box::new(lhs), Box::new(rhs)),
                Op::Or => ExprKind::Or(Box::new(lhs), Box::new(rhs)),
            };
            lhs = Expr { kind, off, end };
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr> {
        self.deeper()?;
        let e = self.unary_inner();
        self.depth -= 1;
        e
    }

    fn unary_inner(&mut self) -> Result<Expr> {
        let src = self.src;
        let off = self.here()?;
        let wrap = |kind: fn(Box<Expr>) -> ExprKind, inner: Expr| Expr {
            end: inner.end,
            kind: kind(Box::new(inner)),
            off,
        };
        match self.peek()? {
            Tok::Punct("-") => {
                self.bump()?;
                Ok(wrap(|e| ExprKind::Unary(UOp::Neg, e), self.unary()?))
            }
            Tok::Punct("+") => {
                self.bump()?;
                self.unary()
            }
            Tok::Punct("!") => {
                self.bump()?;
                Ok(wrap(|e| ExprKind::Unary(UOp::Not, e), self.unary()?))
            }
            Tok::Punct("~") => {
                self.bump()?;
                Ok(wrap(|e| ExprKind::Unary(UOp::BitNot, e), self.unary()?))
            }
            Tok::Punct("*") => {
                self.bump()?;
                Ok(wrap(ExprKind::Deref, self.unary()?))
            }
            Tok::Punct("&") => {
                self.bump()?;
                Ok(wrap(ExprKind::AddrOf, self.unary()?))
            }
            Tok::Punct("++" | "--") => Err(src.err_unsupported(
                off,
                "increments inside expressions (write `r += 1;` as a statement)",
            )),
            Tok::Punct("(") => {
                self.bump()?;
                // A cast to an integer type (or `void`) changes nothing.
                let is_void = self.peek()? == Tok::Ident("void");
                if is_void || self.type_words(true)?.0 > 0 {
                    if is_void {
                        self.bump()?;
                    }
                    if self.at("*")? {
                        return Err(src.err_unsupported(self.here()?, "pointer casts"));
                    }
                    self.expect(")")?;
                    let inner = self.unary()?;
                    return Ok(Expr {
                        end: inner.end,
                        kind: inner.kind,
                        off,
                    });
                }
                let inner = self.expr()?;
                self.expect(")")?;
                Ok(Expr {
                    kind: inner.kind,
                    off,
                    end: self.prev_end,
                })
            }
            Tok::Ident("sizeof") => Err(src.err_unsupported(off, "`sizeof`")),
            _ => self.postfix(),
        }
    }

    /// A primary expression and what may follow it (a call's arguments).
    fn postfix(&mut self) -> Result<Expr> {
        let src = self.src;
        let off = self.here()?;
        let e = match self.peek()? {
            Tok::Int(d) => {
                self.bump()?;
                Expr {
                    kind: ExprKind::Int(int_value(src, off, d)?),
                    off,
                    end: self.prev_end,
                }
            }
            Tok::Ident(first) => {
                self.bump()?;
                let mut name = first.to_string();
                while self.at("::")? {
                    self.bump()?;
                    let (part, _) = self.expect_ident("a name after `::`")?;
                    name.push_str("::");
                    name.push_str(part);
                }
                if self.at("<")? && name.starts_with("cuda::") {
                    return Err(src.err_unsupported(
                        self.here()?,
                        "C++ templates (use the C functions with a scope argument)",
                    ));
                }
                if self.eat("(")? {
                    let mut args = Vec::new();
                    if !self.eat(")")? {
                        loop {
                            args.push(self.expr()?);
                            if self.eat(")")? {
                                break;
                            }
                            if !self.eat(",")? {
                                return Err(self.unexpected("`,` or `)`"));
                            }
                        }
                    }
                    Expr {
                        kind: ExprKind::Call {
                            name,
                            name_off: off,
                            args,
                        },
                        off,
                        end: self.prev_end,
                    }
                } else {
                    Expr {
                        kind: ExprKind::Name(name),
                        off,
                        end: self.prev_end,
                    }
                }
            }
            _ => return Err(self.unexpected("an expression")),
        };
        match self.peek()? {
            Tok::Punct("[") => {
                Err(src.err_unsupported(self.here()?, "array indexing (pointer arithmetic)"))
            }
            Tok::Punct("." | "->") => Err(src.err_unsupported(self.here()?, "struct members")),
            _ => Ok(e),
        }
    }
}

enum Op {
    Bin(BOp),
    And,
    Or,
}

/// Precedence (higher binds tighter) and operator of a binary token.
fn binop(p: &str) -> Option<(u8, Op)> {
    Some(match p {
        "||" => (1, Op::Or),
        "&&" => (2, Op::And),
        "|" => (3, Op::Bin(BOp::BitOr)),
        "^" => (4, Op::Bin(BOp::BitXor)),
        "&" => (5, Op::Bin(BOp::BitAnd)),
        "==" => (6, Op::Bin(BOp::Eq)),
        "!=" => (6, Op::Bin(BOp::Ne)),
        "<" => (7, Op::Bin(BOp::Lt)),
        "<=" => (7, Op::Bin(BOp::Le)),
        ">" => (7, Op::Bin(BOp::Gt)),
        ">=" => (7, Op::Bin(BOp::Ge)),
        "<<" => (8, Op::Bin(BOp::Shl)),
        ">>" => (8, Op::Bin(BOp::Shr)),
        "+" => (9, Op::Bin(BOp::Add)),
        "-" => (9, Op::Bin(BOp::Sub)),
        "*" => (10, Op::Bin(BOp::Mul)),
        "/" => (10, Op::Bin(BOp::Div)),
        "%" => (10, Op::Bin(BOp::Rem)),
        _ => return None,
    })
}

/// The operator of a compound assignment (`+=` → `+`).
fn compound(p: &str) -> Option<BOp> {
    Some(match p {
        "+=" => BOp::Add,
        "-=" => BOp::Sub,
        "*=" => BOp::Mul,
        "/=" => BOp::Div,
        "%=" => BOp::Rem,
        "&=" => BOp::BitAnd,
        "|=" => BOp::BitOr,
        "^=" => BOp::BitXor,
        "<<=" => BOp::Shl,
        ">>=" => BOp::Shr,
        _ => return None,
    })
}

/// The memory region an OpenCL address-space word names (`shared`: the
/// work-group's memory, OpenCL's `local`).
fn address_space(word: &str) -> Option<&'static str> {
    match word {
        "global" | "__global" => Some("global"),
        "local" | "__local" => Some("shared"),
        _ => None,
    }
}

/// `B<n>` labels a barrier in Dat3M's OpenCL litmus tests.
fn barrier_label(w: &str) -> Option<i64> {
    let digits = w.strip_prefix('B')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// OpenCL C's work-group barriers.
pub(super) fn is_barrier(name: &str) -> bool {
    matches!(name, "barrier" | "work_group_barrier")
}

/// Is the word at `off` herd's `scopeTree` keyword (any case)?
pub(super) fn at_scope_tree(src: &Source, off: usize) -> bool {
    src.ident_at(off)
        .is_some_and(|w| w.eq_ignore_ascii_case("scopetree"))
}
