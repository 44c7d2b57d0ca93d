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
//! In the `GPU_PTX` dialect ([`CondParser::gpu_ptx`]) `&` is also a
//! conjunction, threads may be named `T<n>` and registers `p<k>`.

use super::gpu_ptx;
use super::source::{is_register, parse_usize, thread_index, Cursor, Tok};
use super::Locs;
use crate::diag::Result;
use crate::ir::{CmpOp, Cond, Term};

/// Deeper nesting is rejected (keeps recursion bounded on hostile input).
const MAX_DEPTH: usize = 256;

pub(super) struct CondParser<'c, 'a, 's> {
    pub cur: &'c mut Cursor<'a, 's>,
    pub n_threads: usize,
    pub locs: &'c Locs,
    depth: usize,
    /// The `GPU_PTX` dialect's names (see the module documentation).
    gpu: bool,
}

impl<'c, 'a, 's> CondParser<'c, 'a, 's> {
    pub fn new(cur: &'c mut Cursor<'a, 's>, n_threads: usize, locs: &'c Locs) -> Self {
        CondParser {
            cur,
            n_threads,
            locs,
            depth: 0,
            gpu: false,
        }
    }

    /// Reads the `GPU_PTX` dialect's thread and register names too.
    pub fn gpu_ptx(mut self) -> Self {
        self.gpu = true;
        self
    }

    fn thread_digits<'t>(&self, name: &'t str) -> Option<&'t str> {
        match thread_index(name) {
            Some(d) => Some(d),
            None if self.gpu => gpu_ptx::thread_index(name),
            None => None,
        }
    }

    fn is_reg(&self, name: &str) -> bool {
        is_register(name) || (self.gpu && gpu_ptx::is_register(name))
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
            Tok::Ident(_) | Tok::Int(_) | Tok::Punct("-") => {
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
                    self.cur.bump();
                    Ok(Term::Reg(t, r.to_string()))
                }
                _ => Err(self.cur.unexpected("a register name like `r0`")),
            };
        }
        match self.cur.peek() {
            Tok::Int(_) | Tok::Punct("-") => {
                let (v, _) = self.cur.expect_int("an integer")?;
                Ok(Term::Const(v))
            }
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
            _ => Err(self
                .cur
                .unexpected("a register (`P0:r0`), a location or an integer")),
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
