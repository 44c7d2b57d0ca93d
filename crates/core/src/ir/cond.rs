//! Final-state conditions (`exists`, `forall`, `filter`).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn eval(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A value observed in the final state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Term {
    /// `P1:r0` — thread index and register name.
    Reg(usize, String),
    /// `x` — final value of a location (by virtual-address index).
    Loc(usize),
    Const(i64),
}

/// A boolean condition over final values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    False,
    Cmp(CmpOp, Term, Term),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

impl Cond {
    /// Evaluates with `val` giving each term's final value.
    pub fn eval(&self, val: &dyn Fn(&Term) -> i64) -> bool {
        match self {
            Cond::True => true,
            Cond::False => false,
            Cond::Cmp(op, a, b) => op.eval(val(a), val(b)),
            Cond::Not(c) => !c.eval(val),
            Cond::And(a, b) => a.eval(val) && b.eval(val),
            Cond::Or(a, b) => a.eval(val) || b.eval(val),
        }
    }

    /// Appends every constant compared against in the condition.
    pub fn constants(&self, out: &mut Vec<i64>) {
        match self {
            Cond::True | Cond::False => {}
            Cond::Cmp(_, a, b) => {
                for t in [a, b] {
                    if let Term::Const(c) = t {
                        if !out.contains(c) {
                            out.push(*c);
                        }
                    }
                }
            }
            Cond::Not(c) => c.constants(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.constants(out);
                b.constants(out);
            }
        }
    }

    /// Every non-constant term, in first-occurrence order, without repeats.
    pub fn terms(&self) -> Vec<Term> {
        let mut out = Vec::new();
        self.collect_terms(&mut out);
        out
    }

    fn collect_terms(&self, out: &mut Vec<Term>) {
        match self {
            Cond::True | Cond::False => {}
            Cond::Cmp(_, a, b) => {
                for t in [a, b] {
                    if !matches!(t, Term::Const(_)) && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
            Cond::Not(c) => c.collect_terms(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.collect_terms(out);
                b.collect_terms(out);
            }
        }
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}
