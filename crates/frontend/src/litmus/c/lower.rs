//! Lowering a thread function to IR instructions: expressions to locals
//! (temporaries `__t<k>`), memory accesses to `Load`/`Store`/`Rmw`/`Fence`
//! with their tags, `if` to branches (labels `L<k>`).

use super::ast::{BOp, Expr, ExprKind, Stmt, StmtKind, UOp};
use super::names::{self, Atomic, Order, Scope};
use crate::diag::Result;
use crate::ir::{Addr, Arch, BinOp, CmpOp, Instr, InstrKind, LocId, Operand, RmwOp};
use crate::litmus::source::Source;
use std::collections::{HashMap, HashSet};

/// What every thread of a test lowers against.
pub(super) struct Env {
    /// Per location: in work-group (OpenCL `local`) memory.
    pub shared: Vec<bool>,
    /// An `OpenCL` test: atomics without a scope are at device scope
    /// (OpenCL C 2.0, 6.13.11.1), not at system scope as in C.
    pub opencl: bool,
}

/// One thread being lowered.
pub(super) struct Thread<'s, 'a> {
    src: &'s Source<'a>,
    env: &'s Env,
    name: String,
    /// Pointer parameters: the locations they point to.
    params: HashMap<&'a str, LocId>,
    /// Declared local variables.
    pub locals: HashSet<String>,
    pub instrs: Vec<Instr>,
    temps: usize,
    labels: usize,
    /// Barriers so far: an unlabelled barrier's number.
    barriers: i64,
}

/// Where a compare-exchange's expected value lives.
enum Expected {
    /// `&r`: a local variable.
    Local(String),
    /// A location parameter (herd7's form): read before, written back on
    /// failure.
    Shared(LocId, String),
}

impl<'s, 'a> Thread<'s, 'a> {
    pub fn new(
        src: &'s Source<'a>,
        env: &'s Env,
        name: String,
        params: HashMap<&'a str, LocId>,
    ) -> Self {
        Thread {
            src,
            env,
            name,
            params,
            locals: HashSet::new(),
            instrs: Vec::new(),
            temps: 0,
            labels: 0,
            barriers: 0,
        }
    }

    fn text(&self, off: usize, end: usize) -> String {
        let raw = self.src.text.get(off..end).unwrap_or("");
        raw.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn push(&mut self, kind: InstrKind, mut tags: Vec<String>, off: usize, end: usize) {
        let loc = match kind.addr() {
            Some(Addr::Fixed(l)) => Some(*l),
            _ => None,
        };
        self.decorate(loc, &mut tags);
        let mut ins = Instr::new(kind, tags, self.src.pos(off), self.text(off, end));
        crate::tagging::finish(Arch::C, &mut ins);
        self.instrs.push(ins);
    }

    /// A local (work-group) location's accesses carry `SC1`; the other
    /// tags the `opencl` model reads are `tagging::finish`'s.
    fn decorate(&self, loc: Option<LocId>, tags: &mut Vec<String>) {
        if loc.is_some_and(|l| self.env.shared.get(l).copied().unwrap_or(false)) {
            tags.push("SC1".to_string());
        }
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        format!("__t{}", self.temps - 1)
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels - 1)
    }

    fn place_label(&mut self, l: String, off: usize, end: usize) {
        self.push(InstrKind::Label(l), Vec::new(), off, end);
    }

    // ----- statements -----

    pub fn stmts(&mut self, list: &[Stmt<'a>]) -> Result<()> {
        for s in list {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt<'a>) -> Result<()> {
        let src = self.src;
        match &s.kind {
            StmtKind::Decl {
                name,
                name_off,
                init,
            } => {
                if self.params.contains_key(name) {
                    return Err(src.err_semantic(
                        *name_off,
                        format!("`{name}` is already a parameter of {}", self.name),
                    ));
                }
                if !self.locals.insert(name.to_string()) {
                    return Err(src.err_unsupported(
                        *name_off,
                        format!("a second declaration of `{name}` in {} (one variable per name and thread)", self.name),
                    ));
                }
                if let Some(e) = init {
                    self.value(e, Some(name))?;
                }
            }
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value, s)?,
            StmtKind::Expr(e) => self.effect(e)?,
            StmtKind::If { cond, then, els } => {
                let else_l = self.label();
                self.branch(cond, &else_l, false)?;
                self.stmts(then)?;
                if els.is_empty() {
                    self.place_label(else_l, s.off, s.end);
                } else {
                    let end_l = self.label();
                    self.push(InstrKind::Goto(end_l.clone()), Vec::new(), s.off, s.end);
                    self.place_label(else_l, s.off, s.end);
                    self.stmts(els)?;
                    self.place_label(end_l, s.off, s.end);
                }
            }
            StmtKind::Block(list) => self.stmts(list)?,
            StmtKind::Labeled { id, call } => self.barrier(call, Some(*id))?,
        }
        Ok(())
    }

    fn assign(&mut self, target: &Expr, op: Option<BOp>, value: &Expr, s: &Stmt<'a>) -> Result<()> {
        let src = self.src;
        match &target.kind {
            ExprKind::Name(n) if self.locals.contains(n) => {
                let n = n.clone();
                match op {
                    None => {
                        self.value(value, Some(&n))?;
                    }
                    Some(op) => {
                        let v = self.value(value, None)?;
                        self.local(op, Operand::Reg(n.clone()), v, Some(&n), s.off, s.end)?;
                    }
                }
                Ok(())
            }
            ExprKind::Deref(inner) => {
                let loc = self.location(inner)?;
                let v = match op {
                    None => self.value(value, None)?,
                    Some(op) => {
                        // `*x op= e` reads and writes `*x`, two plain accesses.
                        let old = self.temp();
                        self.push(
                            InstrKind::Load {
                                dst: old.clone(),
                                addr: Addr::Fixed(loc),
                            },
                            vec!["NA".into()],
                            target.off,
                            target.end,
                        );
                        let v = self.value(value, None)?;
                        self.local(op, Operand::Reg(old), v, None, s.off, s.end)?
                    }
                };
                self.push(
                    InstrKind::Store {
                        addr: Addr::Fixed(loc),
                        value: v,
                    },
                    vec!["NA".into()],
                    s.off,
                    s.end,
                );
                Ok(())
            }
            _ => {
                self.name_error(target)?;
                Err(src.err_syntax(
                    target.off,
                    "expected a local variable or `*pointer` to assign to",
                ))
            }
        }
    }

    /// An error for a name that is not a local variable (or `Ok` for
    /// anything else).
    fn name_error(&self, e: &Expr) -> Result<()> {
        let ExprKind::Name(n) = &e.kind else {
            return Ok(());
        };
        let src = self.src;
        Err(if self.params.contains_key(n.as_str()) {
            src.err_semantic(
                e.off,
                format!(
                    "`{n}` is a pointer to a location: write `*{n}` or use an atomic operation"
                ),
            )
        } else if names::order(n).is_some() || names::scope(n).is_some() {
            src.err_semantic(
                e.off,
                format!("`{n}` is only an argument of an atomic operation"),
            )
        } else {
            src.err_semantic(
                e.off,
                format!(
                    "unknown variable `{}` in {} (declare it, or take it as a parameter)",
                    crate::diag::excerpt(n),
                    self.name
                ),
            )
        })
    }

    /// An expression evaluated for its effects only.
    fn effect(&mut self, e: &Expr) -> Result<()> {
        match &e.kind {
            ExprKind::Call { .. } => self.call(e, None, false).map(|_| ()),
            _ => self.value(e, None).map(|_| ()),
        }
    }

    // ----- expressions -----

    /// Computes `e`; with `dst`, into that local (returned as its
    /// register), else into whatever operand holds it.
    fn value(&mut self, e: &Expr, dst: Option<&str>) -> Result<Operand> {
        let src = self.src;
        match &e.kind {
            ExprKind::Int(v) => self.put(dst, Operand::Const(*v), e),
            ExprKind::Name(n) if self.locals.contains(n) => {
                self.put(dst, Operand::Reg(n.clone()), e)
            }
            ExprKind::Name(_) => {
                self.name_error(e)?;
                Err(src.err_semantic(e.off, "not a value"))
            }
            ExprKind::Deref(inner) => {
                let loc = self.location(inner)?;
                let d = dst.map_or_else(|| self.temp(), str::to_string);
                self.push(
                    InstrKind::Load {
                        dst: d.clone(),
                        addr: Addr::Fixed(loc),
                    },
                    vec!["NA".into()],
                    e.off,
                    e.end,
                );
                Ok(Operand::Reg(d))
            }
            ExprKind::AddrOf(_) => Err(src.err_unsupported(
                e.off,
                "taking an address with `&` (only as a compare-exchange's expected argument, `&local`)",
            )),
            ExprKind::Unary(op, a) => {
                let av = self.value(a, None)?;
                let (bop, x, y) = match op {
                    UOp::Neg => (BinOp::Sub, Operand::Const(0), av),
                    UOp::Not => (BinOp::Eq, av, Operand::Const(0)),
                    UOp::BitNot => (BinOp::Xor, av, Operand::Const(-1)),
                };
                self.emit_local(bop, x, y, dst, e)
            }
            ExprKind::Binary(op, a, b) => {
                let av = self.value(a, None)?;
                let bv = self.value(b, None)?;
                self.local(*op, av, bv, dst, e.off, e.end)
            }
            ExprKind::And(..) | ExprKind::Or(..) => {
                // 0 or 1, by branching (the right side may not run).
                let t = self.temp();
                let end_l = self.label();
                self.emit_local(BinOp::Add, Operand::Const(0), Operand::Const(0), Some(&t), e)?;
                self.branch(e, &end_l, false)?;
                self.emit_local(BinOp::Add, Operand::Const(1), Operand::Const(0), Some(&t), e)?;
                self.place_label(end_l, e.off, e.end);
                self.put(dst, Operand::Reg(t), e)
            }
            ExprKind::Call { name, name_off, .. } => match self.call(e, dst, true)? {
                Some(v) => Ok(v),
                None => Err(src.err_semantic(
                    *name_off,
                    format!("`{name}` gives no value"),
                )),
            },
        }
    }

    /// `op` in C applied to two operands, folded when both are constant.
    fn local(
        &mut self,
        op: BOp,
        a: Operand,
        b: Operand,
        dst: Option<&str>,
        off: usize,
        end: usize,
    ) -> Result<Operand> {
        let bop = match op {
            BOp::Mul => BinOp::Mul,
            BOp::Div => BinOp::Div,
            BOp::Rem => BinOp::Rem,
            BOp::Add => BinOp::Add,
            BOp::Sub => BinOp::Sub,
            BOp::Shl => BinOp::Shl,
            BOp::Shr => BinOp::Shr,
            BOp::Lt => BinOp::Lt,
            BOp::Le => BinOp::Le,
            BOp::Gt => BinOp::Gt,
            BOp::Ge => BinOp::Ge,
            BOp::Eq => BinOp::Eq,
            BOp::Ne => BinOp::Ne,
            BOp::BitAnd => BinOp::And,
            BOp::BitXor => BinOp::Xor,
            BOp::BitOr => BinOp::Or,
        };
        if let (Operand::Const(x), Operand::Const(y)) = (&a, &b) {
            // A constant division by zero is left to the engines: it is
            // undefined behaviour only in the executions that reach it.
            if let Some(v) = bop.eval(*x, *y) {
                return self.put_at(dst, Operand::Const(v), off, end);
            }
        }
        let d = dst.map_or_else(|| self.temp(), str::to_string);
        self.push(
            InstrKind::Local {
                dst: d.clone(),
                op: bop,
                a,
                b,
            },
            Vec::new(),
            off,
            end,
        );
        Ok(Operand::Reg(d))
    }

    fn emit_local(
        &mut self,
        op: BinOp,
        a: Operand,
        b: Operand,
        dst: Option<&str>,
        e: &Expr,
    ) -> Result<Operand> {
        if let (Operand::Const(x), Operand::Const(y)) = (&a, &b) {
            if let Some(v) = op.eval(*x, *y) {
                return self.put_at(dst, Operand::Const(v), e.off, e.end);
            }
        }
        let d = dst.map_or_else(|| self.temp(), str::to_string);
        self.push(
            InstrKind::Local {
                dst: d.clone(),
                op,
                a,
                b,
            },
            Vec::new(),
            e.off,
            e.end,
        );
        Ok(Operand::Reg(d))
    }

    /// `v`, copied into `dst` when there is one.
    fn put(&mut self, dst: Option<&str>, v: Operand, e: &Expr) -> Result<Operand> {
        self.put_at(dst, v, e.off, e.end)
    }

    fn put_at(&mut self, dst: Option<&str>, v: Operand, off: usize, end: usize) -> Result<Operand> {
        let Some(d) = dst else { return Ok(v) };
        if v == Operand::Reg(d.to_string()) {
            return Ok(v);
        }
        self.push(
            InstrKind::Local {
                dst: d.to_string(),
                op: BinOp::Add,
                a: v,
                b: Operand::Const(0),
            },
            Vec::new(),
            off,
            end,
        );
        Ok(Operand::Reg(d.to_string()))
    }

    /// Jumps to `target` when `e` is `when` (true: non-zero).
    fn branch(&mut self, e: &Expr, target: &str, when: bool) -> Result<()> {
        let cmp = |op: BOp| {
            Some(match op {
                BOp::Eq => CmpOp::Eq,
                BOp::Ne => CmpOp::Ne,
                BOp::Lt => CmpOp::Lt,
                BOp::Le => CmpOp::Le,
                BOp::Gt => CmpOp::Gt,
                BOp::Ge => CmpOp::Ge,
                _ => return None,
            })
        };
        match &e.kind {
            ExprKind::Unary(UOp::Not, a) => self.branch(a, target, !when),
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                // `a && b` is false when a is; `a || b` is true when a is.
                let and = matches!(e.kind, ExprKind::And(..));
                if when != and {
                    self.branch(a, target, when)?;
                    self.branch(b, target, when)
                } else {
                    let skip = self.label();
                    self.branch(a, &skip, !when)?;
                    self.branch(b, target, when)?;
                    self.place_label(skip, e.off, e.end);
                    Ok(())
                }
            }
            ExprKind::Binary(op, a, b) if cmp(*op).is_some() => {
                let av = self.value(a, None)?;
                let bv = self.value(b, None)?;
                let c = cmp(*op).unwrap_or(CmpOp::Eq);
                let c = if when { c } else { negate(c) };
                self.jump(c, av, bv, target, e);
                Ok(())
            }
            _ => {
                let v = self.value(e, None)?;
                let c = if when { CmpOp::Ne } else { CmpOp::Eq };
                self.jump(c, v, Operand::Const(0), target, e);
                Ok(())
            }
        }
    }

    /// `if a c b goto target`, decided statically when both are constant.
    fn jump(&mut self, c: CmpOp, a: Operand, b: Operand, target: &str, e: &Expr) {
        let kind = match (&a, &b) {
            (Operand::Const(x), Operand::Const(y)) => {
                if !c.eval(*x, *y) {
                    return;
                }
                InstrKind::Goto(target.to_string())
            }
            _ => InstrKind::Branch {
                op: c,
                a,
                b,
                target: target.to_string(),
            },
        };
        self.push(kind, Vec::new(), e.off, e.end);
    }

    /// The location a pointer expression denotes: a parameter.
    fn location(&self, e: &Expr) -> Result<LocId> {
        let src = self.src;
        match &e.kind {
            ExprKind::Name(n) => match self.params.get(n.as_str()) {
                Some(&l) => Ok(l),
                None if self.locals.contains(n) => Err(src.err_unsupported(
                    e.off,
                    format!("`{n}` is an integer variable; pointers other than the thread's parameters are not supported"),
                )),
                None => Err(src.err_semantic(
                    e.off,
                    format!("`{n}` is not a parameter of {}", self.name),
                )),
            },
            ExprKind::AddrOf(_) => Err(src.err_unsupported(
                e.off,
                "`&` of a location (pass the pointer parameter itself)",
            )),
            ExprKind::Deref(_) => Err(src.err_unsupported(e.off, "pointers to pointers")),
            _ => Err(src.err_unsupported(
                e.off,
                "pointer arithmetic (an access's pointer must be a parameter)",
            )),
        }
    }

    // ----- atomics -----

    /// An atomic operation; its value when it has one (`want`: the value
    /// is used, so an RMW keeps its old value).
    fn call(&mut self, e: &Expr, dst: Option<&str>, want: bool) -> Result<Option<Operand>> {
        let src = self.src;
        let ExprKind::Call {
            name,
            name_off,
            args,
        } = &e.kind
        else {
            return self.value(e, dst).map(Some);
        };
        if super::parser::is_barrier(name) {
            if dst.is_some() || want {
                return Err(src.err_semantic(*name_off, format!("`{name}` has no value")));
            }
            self.barrier(e, None)?;
            return Ok(None);
        }
        let Some((op, explicit)) = names::atomic(name) else {
            return Err(src.err_unsupported(
                *name_off,
                format!("a call to `{name}` (only the C11 and OpenCL C atomic operations are supported: docs/C.md)"),
            ));
        };
        let base = op.base_args();
        let orders = if explicit { op.orders() } else { 0 };
        let max = base + orders + usize::from(explicit);
        if args.len() < base + orders || args.len() > max {
            let count = if max == base + orders {
                format!("{max}")
            } else {
                format!("{} or {max} (with a scope)", base + orders)
            };
            return Err(src.err_semantic(
                *name_off,
                format!("`{name}` takes {count} arguments, found {}", args.len()),
            ));
        }
        let mut order_list = Vec::new();
        for (k, a) in args[base..base + orders].iter().enumerate() {
            let o = self.order_arg(a)?;
            if !names::order_allowed(&op, o, k == 1) {
                return Err(src.err_semantic(
                    a.off,
                    format!(
                        "`{}` is not a valid order for `{name}`{}",
                        o.spelling(),
                        if k == 1 { "'s failure" } else { "" }
                    ),
                ));
            }
            order_list.push(o);
        }
        let order = order_list.first().copied().unwrap_or(Order::SeqCst);
        let scope = match args.get(base + orders) {
            Some(a) => self.scope_arg(a)?,
            None if self.env.opencl => "GPU",
            None => "SYS",
        };
        let tags = vec![order.tag().to_string(), scope.to_string()];
        match op {
            Atomic::ThreadFence | Atomic::WorkItemFence => {
                // The regions the fence orders: its flags (OpenCL), or all.
                let (global, local) = match op {
                    Atomic::WorkItemFence => self.fence_flags(&args[0])?,
                    _ => (true, true),
                };
                // A relaxed fence has no effect (C11 7.17.4.1), nor one
                // whose flags name no region.
                if order != Order::Relaxed && (global || local) {
                    let mut t = vec!["F".to_string()];
                    t.extend(tags);
                    region_semantics(&mut t, global, local);
                    self.push(InstrKind::Fence, t, e.off, e.end);
                }
                Ok(None)
            }
            Atomic::Load => {
                let loc = self.location(&args[0])?;
                let d = dst.map_or_else(|| self.temp(), str::to_string);
                self.push(
                    InstrKind::Load {
                        dst: d.clone(),
                        addr: Addr::Fixed(loc),
                    },
                    tags,
                    e.off,
                    e.end,
                );
                Ok(Some(Operand::Reg(d)))
            }
            Atomic::Store => {
                let loc = self.location(&args[0])?;
                let v = self.value(&args[1], None)?;
                self.push(
                    InstrKind::Store {
                        addr: Addr::Fixed(loc),
                        value: v,
                    },
                    tags,
                    e.off,
                    e.end,
                );
                Ok(None)
            }
            Atomic::Rmw(rop) => {
                let loc = self.location(&args[0])?;
                let v = self.value(&args[1], None)?;
                let d = want.then(|| dst.map_or_else(|| self.temp(), str::to_string));
                self.push(
                    InstrKind::Rmw {
                        dst: d.clone(),
                        addr: Addr::Fixed(loc),
                        op: rop,
                        operand: v,
                    },
                    tags,
                    e.off,
                    e.end,
                );
                Ok(d.map(Operand::Reg))
            }
            Atomic::Cas => {
                // A failed compare-exchange is a read with the failure order
                // (seq_cst when not written), at the same scope.
                let fail = order_list.get(1).copied().unwrap_or(Order::SeqCst);
                let failed = vec![fail.tag().to_string(), scope.to_string()];
                self.cas(e, &args[0], &args[1], &args[2], (tags, failed), dst, want)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn cas(
        &mut self,
        e: &Expr,
        obj: &Expr,
        expected: &Expr,
        desired: &Expr,
        (tags, failed): (Vec<String>, Vec<String>),
        dst: Option<&str>,
        want: bool,
    ) -> Result<Option<Operand>> {
        let src = self.src;
        let loc = self.location(obj)?;
        let exp = match &expected.kind {
            ExprKind::AddrOf(inner) => match &inner.kind {
                ExprKind::Name(n) if self.locals.contains(n) => Expected::Local(n.clone()),
                _ => {
                    self.name_error(inner)?;
                    return Err(src.err_unsupported(
                        expected.off,
                        "a compare-exchange's expected argument other than `&local` or a pointer parameter",
                    ));
                }
            },
            ExprKind::Name(n) if self.params.contains_key(n.as_str()) => {
                let l = self.location(expected)?;
                let t = self.temp();
                self.push(
                    InstrKind::Load {
                        dst: t.clone(),
                        addr: Addr::Fixed(l),
                    },
                    vec!["NA".into()],
                    expected.off,
                    expected.end,
                );
                Expected::Shared(l, t)
            }
            _ => return Err(src.err_unsupported(
                expected.off,
                "a compare-exchange's expected argument other than `&local` or a pointer parameter",
            )),
        };
        let exp_reg = match &exp {
            Expected::Local(r) | Expected::Shared(_, r) => r.clone(),
        };
        let new = self.value(desired, None)?;
        let old = self.temp();
        self.push(
            InstrKind::Rmw {
                dst: Some(old.clone()),
                addr: Addr::Fixed(loc),
                op: RmwOp::Cas {
                    expected: Operand::Reg(exp_reg.clone()),
                },
                operand: new,
            },
            tags,
            e.off,
            e.end,
        );
        let mut failed = failed;
        self.decorate(Some(loc), &mut failed);
        if let Some(cas) = self.instrs.last_mut() {
            crate::tagging::set_failed(Arch::C, cas, failed);
        }
        // Success: the old value was the expected one.
        let ok = if want {
            Some(self.emit_local(
                BinOp::Eq,
                Operand::Reg(old.clone()),
                Operand::Reg(exp_reg.clone()),
                dst,
                e,
            )?)
        } else {
            None
        };
        // Failure writes the value read back to the expected object.
        let skip = self.label();
        self.jump(
            CmpOp::Eq,
            Operand::Reg(old.clone()),
            Operand::Reg(exp_reg.clone()),
            &skip,
            e,
        );
        match exp {
            Expected::Local(r) => {
                self.put_at(Some(&r), Operand::Reg(old), e.off, e.end)?;
            }
            Expected::Shared(l, _) => self.push(
                InstrKind::Store {
                    addr: Addr::Fixed(l),
                    value: Operand::Reg(old),
                },
                vec!["NA".into()],
                expected.off,
                expected.end,
            ),
        }
        self.place_label(skip, e.off, e.end);
        Ok(ok)
    }

    /// OpenCL C's `barrier(flags)` / `work_group_barrier(flags[, scope])`:
    /// every work-item of the work-group waits for the others at its
    /// barrier of the same number — the `B<n>:` label's, else its
    /// ordinal among the thread's barriers in the text. With flags it is
    /// also an acq_rel fence for their regions at its scope (work-group
    /// by default; OpenCL C 2.0, 6.13.8).
    fn barrier(&mut self, e: &Expr, label: Option<i64>) -> Result<()> {
        let src = self.src;
        let ExprKind::Call {
            name,
            name_off,
            args,
        } = &e.kind
        else {
            return Err(src.err_semantic(e.off, "expected a barrier call"));
        };
        let max = if name == "barrier" { 1 } else { 2 };
        if args.is_empty() || args.len() > max {
            let count = if max == 1 {
                "1".to_string()
            } else {
                "1 or 2 (with a scope)".to_string()
            };
            return Err(src.err_semantic(
                *name_off,
                format!(
                    "`{name}` takes {count} argument{}, found {}",
                    if max == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let (global, local) = self.fence_flags(&args[0])?;
        let scope = match args.get(1) {
            Some(a) => self.scope_arg(a)?,
            None => "CTA",
        };
        let mut tags: Vec<String> = vec!["B".into(), "CBAR".into()];
        if global || local {
            tags.extend(["F".to_string(), "ACQ_REL".to_string(), scope.to_string()]);
            region_semantics(&mut tags, global, local);
        }
        let id = label.unwrap_or(self.barriers);
        self.barriers += 1;
        self.push(
            InstrKind::Barrier {
                id: Operand::Const(id),
                count: None,
                arrive: false,
            },
            tags,
            e.off,
            e.end,
        );
        Ok(())
    }

    /// A fence's or barrier's flags: `CLK_GLOBAL_MEM_FENCE`,
    /// `CLK_LOCAL_MEM_FENCE` (either or both with `|`), or `0`; returns
    /// whether they name global and local memory.
    fn fence_flags(&self, a: &Expr) -> Result<(bool, bool)> {
        let src = self.src;
        match &a.kind {
            ExprKind::Int(0) => Ok((false, false)),
            ExprKind::Name(n) => match n.as_str() {
                "CLK_GLOBAL_MEM_FENCE" => Ok((true, false)),
                "CLK_LOCAL_MEM_FENCE" => Ok((false, true)),
                "CLK_IMAGE_MEM_FENCE" => Err(src.err_unsupported(a.off, "images (`CLK_IMAGE_MEM_FENCE`)")),
                _ => Err(src.err_semantic(
                    a.off,
                    format!("expected fence flags (`CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE`), found `{n}`"),
                )),
            },
            ExprKind::Binary(BOp::BitOr, l, r) => {
                let (g1, l1) = self.fence_flags(l)?;
                let (g2, l2) = self.fence_flags(r)?;
                Ok((g1 || g2, l1 || l2))
            }
            _ => Err(src.err_semantic(
                a.off,
                "expected fence flags (`CLK_GLOBAL_MEM_FENCE`, `CLK_LOCAL_MEM_FENCE`, joined by `|`)",
            )),
        }
    }

    fn order_arg(&self, a: &Expr) -> Result<Order> {
        match &a.kind {
            ExprKind::Name(n) => names::order(n).ok_or_else(|| {
                self.src.err_semantic(
                    a.off,
                    format!("expected a memory order like `memory_order_acquire`, found `{n}`"),
                )
            }),
            _ => Err(self
                .src
                .err_semantic(a.off, "expected a memory order like `memory_order_acquire`")),
        }
    }

    fn scope_arg(&self, a: &Expr) -> Result<&'static str> {
        let src = self.src;
        let what = "a memory scope (`memory_scope_work_group`, `memory_scope_device`, `memory_scope_all_svm_devices`, `cuda::thread_scope_block`, …)";
        match &a.kind {
            ExprKind::Name(n) => match names::scope(n) {
                Some(Scope::Tag(t)) => Ok(t),
                Some(Scope::Unsupported(why)) => Err(src.err_unsupported(a.off, why)),
                None => Err(src.err_semantic(a.off, format!("expected {what}, found `{n}`"))),
            },
            _ => Err(src.err_semantic(a.off, format!("expected {what}"))),
        }
    }
}

fn negate(c: CmpOp) -> CmpOp {
    match c {
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
    }
}

/// The region semantics of a fence or barrier (`SEMSC0` global, `SEMSC1`
/// local, as the SPIR-V front-end tags OpenCL's flags).
fn region_semantics(tags: &mut Vec<String>, global: bool, local: bool) {
    if global {
        tags.push("SEMSC0".to_string());
    }
    if local {
        tags.push("SEMSC1".to_string());
    }
}
