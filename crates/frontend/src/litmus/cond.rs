//! Final-state conditions and `locations [...]` terms.
//!
//! ```text
//! cond  := conj ('\/' conj)*          (chains become balanced trees)
//! conj  := unary ('/\' unary)*
//! unary := ('~' | '!' | 'not') unary | '(' cond ')' | 'true' | 'false'
//!        | term op term            op: == = != <> < <= > >=
//! term  := P<n>:r<k> | <n>:r<k> | location | ['-']integer
//! ```
//!
//! In the `GPU_PTX` dialect ([`Names::GpuPtx`]) `&` is also a
//! conjunction, threads may be named `T<n>` and registers `p<k>`. In the C
//! dialect ([`Names::C`]) a register is any local variable the thread
//! declares, and a location may also be written `[x]`.

use super::gpu_ptx;
use super::source::{is_register, parse_usize, thread_index, Cursor, Tok};
use super::Locs;
use crate::diag::Result;
use crate::ir::{CmpOp, Cond, Term};
use std::collections::HashSet;

/// The thread and register names a condition may use.
pub(super) enum Names {
    /// Dat3M's PTX and Vulkan dialects: `P<n>:r<k>`.
    Dat3m,
    /// herd7's `GPU_PTX` dialect (see the module documentation).
    GpuPtx,
    /// herd7's C dialect: per thread, the local variables it declares.
    C(Vec<HashSet<String>>),
}

/// Deeper nesting is rejected (keeps recursion bounded on hostile input).
const MAX_DEPTH: usize = 256;

pub(super) struct CondParser<'c, 'a, 's> {
    pub cur: &'c mut Cursor<'a, 's>,
    pub n_threads: usize,
    pub locs: &'c Locs,
    depth: usize,
    names: &'c Names,
}

impl<'c, 'a, 's> CondParser<'c, 'a, 's> {
    pub fn new(
        cur: &'c mut Cursor<'a, 's>,
        n_threads: usize,
        locs: &'c Locs,
        names: &'c Names,
    ) -> Self {
        CondParser {
            cur,
            n_threads,
            locs,
            depth: 0,
            names,
        }
    }

    fn thread_digits<'t>(&self, name: &'t str) -> Option<&'t str> {
        match (thread_index(name), self.names) {
            (Some(d), _) => Some(d),
            (None, Names::GpuPtx) => gpu_ptx::thread_index(name),
            (None, _) => None,
        }
    }

    fn is_reg(&self, name: &str) -> bool {
        match self.names {
            Names::Dat3m => is_register(name),
            Names::GpuPtx => is_register(name) || gpu_ptx::is_register(name),
            Names::C(_) => true,
        }
    }

    pub fn cond(&mut self) -> Result<Cond> {
        let mut items = vec![self.conj()?];
        while self.cur.eat_punct("\\/") {
            items.push(self.conj()?);
        }
        Ok(balanced(items, Cond::Or))
    }

    fn conj(&mut self) -> Result<Cond> {
        let mut items = vec![self.unary()?];
        // `&` is only a token in the GPU_PTX dialect (`source::lex_with`).
        while self.cur.eat_punct("/\\") || self.cur.eat_punct("&") {
            items.push(self.unary()?);
        }
        Ok(balanced(items, Cond::And))
    }

    fn unary(&mut self) -> Result<Cond> {
        if self.depth >= MAX_DEPTH {
            return Err(self
                .cur
                .src
                .err_syntax(self.cur.off(), "condition is nested too deeply"));
        }
        self.depth += 1;
        let r = self.unary_inner();
        self.depth -= 1;
        r
    }

    fn next_is_cmp(&self) -> bool {
        matches!(self.cur.nth(1), Tok::Punct(p) if cmp_op(p).is_some())
    }

    fn unary_inner(&mut self) -> Result<Cond> {
        match self.cur.peek() {
            Tok::Punct("~") | Tok::Punct("!") => {
                self.cur.bump();
                Ok(Cond::Not(Box::new(self.unary()?)))
            }
            Tok::Ident("not") if !self.next_is_cmp() => {
                self.cur.bump();
                Ok(Cond::Not(Box::new(self.unary()?)))
            }
            Tok::Punct("(") => {
                self.cur.bump();
                let c = self.cond()?;
                self.cur.expect_punct(")")?;
                Ok(c)
            }
            Tok::Ident("true") if !self.next_is_cmp() => {
                self.cur.bump();
                Ok(Cond::True)
            }
            Tok::Ident("false") if !self.next_is_cmp() => {
                self.cur.bump();
                Ok(Cond::False)
            }
            Tok::Punct("[") if !matches!(self.names, Names::C(_)) => {
                Err(self.cur.unexpected("a condition"))
            }
            Tok::Ident(_) | Tok::Int(_) | Tok::Punct("-") | Tok::Punct("[") => {
                let a = self.term()?;
                let op = match self.cur.peek() {
                    Tok::Punct(p) => cmp_op(p),
                    _ => None,
                };
                let Some(op) = op else {
                    return Err(self.cur.unexpected("a comparison (`==`, `!=`, `<`, …)"));
                };
                self.cur.bump();
                let b = self.term()?;
                Ok(Cond::Cmp(op, a, b))
            }
            _ => Err(self.cur.unexpected("a condition")),
        }
    }

    /// `P1:r0`, `1:r0`, a location, or an integer.
    pub fn term(&mut self) -> Result<Term> {
        let off = self.cur.off();
        let thread = match (self.cur.peek(), self.cur.nth(1)) {
            (Tok::Ident(s), Tok::Punct(":")) => match self.thread_digits(s) {
                Some(d) => Some((s, d)),
                None => {
                    return Err(self.cur.src.err_syntax(
                        off,
                        format!("expected a thread name like `P0`, found `{s}`"),
                    ))
                }
            },
            (Tok::Int(d), Tok::Punct(":")) => Some((d, d)),
            _ => None,
        };
        if let Some((name, digits)) = thread {
            let t = parse_usize(self.cur.src, off, digits)?;
            if t >= self.n_threads {
                return Err(self.cur.src.err_semantic(
                    off,
                    format!(
                        "thread `{name}` does not exist (the test has {} thread{})",
                        self.n_threads,
                        if self.n_threads == 1 { "" } else { "s" }
                    ),
                ));
            }
            self.cur.bump();
            self.cur.bump();
            return match self.cur.peek() {
                Tok::Ident(r) if self.is_reg(r) => {
                    if let Names::C(locals) = self.names {
                        if !locals.get(t).is_some_and(|l| l.contains(r)) {
                            return Err(self.cur.src.err_semantic(
                                self.cur.off(),
                                format!("thread `P{t}` declares no local variable `{r}`"),
                            ));
                        }
                    }
                    self.cur.bump();
                    Ok(Term::Reg(t, r.to_string()))
                }
                _ if matches!(self.names, Names::C(_)) => {
                    Err(self.cur.unexpected("a local variable of the thread"))
                }
                _ => Err(self.cur.unexpected("a register name like `r0`")),
            };
        }
        if matches!(self.names, Names::C(_)) && self.cur.at_punct("[") {
            // herd7's `[x]`: the location x.
            self.cur.bump();
            let term = self.location()?;
            self.cur.expect_punct("]")?;
            return Ok(term);
        }
        match self.cur.peek() {
            Tok::Int(_) | Tok::Punct("-") => {
                let (v, _) = self.cur.expect_int("an integer")?;
                Ok(Term::Const(v))
            }
            Tok::Ident(_) => self.location(),
            _ => Err(self
                .cur
                .unexpected("a register (`P0:r0`), a location or an integer")),
        }
    }

    /// A location name.
    fn location(&mut self) -> Result<Term> {
        let off = self.cur.off();
        match self.cur.peek() {
            Tok::Ident(name) => match self.locs.get(name) {
                Some(id) => {
                    self.cur.bump();
                    Ok(Term::Loc(id))
                }
                None => Err(self
                    .cur
                    .src
                    .err_semantic(off, format!("unknown location `{name}`"))),
            },
            _ => Err(self.cur.unexpected("a location")),
        }
    }
}

/// Joins `items` (in order) with a connective as a balanced tree, so that
/// long chains such as `c1 /\ c2 /\ ... /\ cN` stay shallow (depth log N)
/// for the recursive consumers of [`Cond`]. Up to three items this is the
/// usual left-nested form.
fn balanced(mut items: Vec<Cond>, join: fn(Box<Cond>, Box<Cond>) -> Cond) -> Cond {
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => join(Box::new(a), Box::new(b)),
                None => a,
            });
        }
        items = next;
    }
    items.pop().unwrap_or(Cond::True)
}

fn cmp_op(p: &str) -> Option<CmpOp> {
    Some(match p {
        "==" | "=" => CmpOp::Eq,
        "!=" | "<>" => CmpOp::Ne,
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        _ => return None,
    })
}
