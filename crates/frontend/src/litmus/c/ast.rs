//! The syntax tree of a C litmus test (offsets are byte offsets into the
//! source; `end` is exclusive).

/// A parsed test up to its final part.
pub(super) struct Test<'a> {
    pub name: String,
    /// The header word was `OpenCL` (or `OPENCL`), not `C`.
    pub opencl: bool,
    /// herdtools' `Key=Value` header lines.
    pub header: Vec<(String, String)>,
    pub inits: Vec<Init<'a>>,
    pub threads: Vec<ThreadDef<'a>>,
    /// Where the final part (`exists`, `filter`, `locations`…) starts.
    pub tail: usize,
}

/// One item of the initial state.
pub(super) enum Init<'a> {
    /// `x = 1`, `[x] = 1`, `int x = 1`, `atomic_int x;` (value 0),
    /// `local atomic_int y;` (with its region).
    Loc {
        name: &'a str,
        off: usize,
        value: i64,
        region: Option<&'static str>,
    },
    /// `0:r0 = 1` / `P0:r0 = 1`: a local's initial value.
    Reg {
        thread: usize,
        thread_off: usize,
        name: &'a str,
        off: usize,
        value: i64,
    },
}

/// A thread function `P0@cta 0,gpu 0(atomic_int* x) { ... }`.
pub(super) struct ThreadDef<'a> {
    /// `[cta, gpu]` when a placement is written.
    pub placement: Option<Vec<i64>>,
    /// Where the `@` placement starts.
    pub placement_off: usize,
    pub params: Vec<Param<'a>>,
    pub body: Vec<Stmt<'a>>,
}

/// A pointer parameter `global atomic_int* x`.
pub(super) struct Param<'a> {
    pub name: &'a str,
    pub off: usize,
    /// `global` or `shared` (OpenCL's `local`) when the type says.
    pub region: Option<&'static str>,
}

pub(super) struct Stmt<'a> {
    pub kind: StmtKind<'a>,
    pub off: usize,
    pub end: usize,
}

pub(super) enum StmtKind<'a> {
    /// `int r0 = e;` (one declarator; `int a, b;` gives several).
    Decl {
        name: &'a str,
        name_off: usize,
        init: Option<Expr>,
    },
    /// `r0 = e;`, `*x = e;`, `r0 += e;` (`op`: the compound operator).
    Assign {
        target: Expr,
        op: Option<BOp>,
        value: Expr,
    },
    /// An expression evaluated for its effects (`atomic_store(x, 1);`).
    Expr(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt<'a>>,
        els: Vec<Stmt<'a>>,
    },
    Block(Vec<Stmt<'a>>),
    /// `B1: barrier(…);` — a barrier with its number (Dat3M's OpenCL
    /// litmus tests write them so).
    Labeled {
        id: i64,
        call: Expr,
    },
}

/// Binary operators (without the short-circuit ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UOp {
    Neg,
    Not,
    BitNot,
}

pub(super) struct Expr {
    pub kind: ExprKind,
    pub off: usize,
    pub end: usize,
}

pub(super) enum ExprKind {
    Int(i64),
    /// A name, possibly qualified (`cuda::thread_scope_block`).
    Name(String),
    /// `*e`
    Deref(Box<Expr>),
    /// `&e`
    AddrOf(Box<Expr>),
    Unary(UOp, Box<Expr>),
    Binary(BOp, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Call {
        name: String,
        name_off: usize,
        args: Vec<Expr>,
    },
}
