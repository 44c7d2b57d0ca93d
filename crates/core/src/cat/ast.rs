//! Syntax trees of `.cat` files.

use crate::ir::{Coherence, Pos};
use std::fmt;

/// Binary operators. `Union`, `Seq` and `Inter` are associative and parsed
/// into n-ary nodes; `Diff` is left-associative (also n-ary, folded left);
/// `Prod` is the cartesian product `A * B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Union,
    Seq,
    Diff,
    Inter,
    Prod,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Union => "|",
            BinOp::Seq => ";",
            BinOp::Diff => "\\",
            BinOp::Inter => "&",
            BinOp::Prod => "*",
        }
    }
}

/// Unary operators: prefix `~`, postfix closures and inverse, and `[S]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Compl,
    Plus,
    Star,
    Opt,
    Inv,
    IdOn,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Name(String),
    /// `0`
    Empty,
    /// `_`
    Universe,
    /// An operator applied to two or more operands, left to right.
    Nary(BinOp, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Call(String, Vec<Expr>),
}

/// An expression. `pos` is where it starts, except for operators, whose
/// `pos` is the (first) operator symbol: that is where type errors point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
    /// Height of the tree (a leaf is 1); bounded by the parser.
    pub depth: u32,
}

impl Expr {
    pub fn leaf(kind: ExprKind, pos: Pos) -> Expr {
        Expr {
            kind,
            pos,
            depth: 1,
        }
    }
}

/// Fully parenthesised rendering, used by tests and debug output:
/// `a | b;c+` renders as `(a | (b ; (c+)))`.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Empty => f.write_str("0"),
            ExprKind::Universe => f.write_str("_"),
            ExprKind::Nary(op, es) => {
                f.write_str("(")?;
                for (i, e) in es.iter().enumerate() {
                    if i > 0 {
                        write!(f, " {} ", op.symbol())?;
                    }
                    write!(f, "{e}")?;
                }
                f.write_str(")")
            }
            ExprKind::Unary(op, e) => match op {
                UnOp::Compl => write!(f, "(~{e})"),
                UnOp::Plus => write!(f, "({e}+)"),
                UnOp::Star => write!(f, "({e}*)"),
                UnOp::Opt => write!(f, "({e}?)"),
                UnOp::Inv => write!(f, "({e}^-1)"),
                UnOp::IdOn => write!(f, "[{e}]"),
            },
            ExprKind::Call(name, args) => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// One `name = expr` (or `name(params) = expr`) of a `let`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    pub name: String,
    pub pos: Pos,
    /// `Some` for a function definition.
    pub params: Option<Vec<(String, Pos)>>,
    pub body: Expr,
}

/// The test of an axiom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    Acyclic,
    Irreflexive,
    Empty,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// `let a = e and b = f`: simultaneous, non-recursive.
    Let(Vec<Binding>),
    /// `let rec a = e and b = f`: least fixpoint.
    LetRec(Vec<Binding>),
    Axiom {
        flag: bool,
        /// `undefined_unless TEST e`: herd's definedness check. A
        /// consistent execution in which the test fails is undefined (it
        /// stays an execution; herd7 prints `Undef`).
        undefined: bool,
        negated: bool,
        test: Test,
        expr: Expr,
        /// Where the expression starts.
        expr_pos: Pos,
        name: Option<String>,
        /// The expression's source text, whitespace collapsed (a default name).
        text: String,
        pos: Pos,
    },
    Include {
        file: String,
        pos: Pos,
    },
}

/// A parsed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// The model name from the header, if there is one.
    pub name: Option<String>,
    pub stmts: Vec<Stmt>,
    /// A `// gpumc: partial-co` or `// gpumc: total-co` line comment, which
    /// overrides the architecture's coherence, with its position.
    pub coherence: Option<(Coherence, Pos)>,
}
