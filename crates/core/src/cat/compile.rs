//! Type checking and compilation of `.cat` statements into a flat program
//! over value slots.
//!
//! Every expression compiles to a [`Val`]: a slot (holding a set or a
//! relation) or a polymorphic constant (`0`, `_` and operations on them
//! only), which is materialised with the kind its context needs. Named
//! bindings are just names for slots, so `let` costs nothing at run time,
//! and identical operations on identical slots are shared (hash-consing).
//!
//! Functions (`let f(x, y) = e`) are expanded at each call, in the scope of
//! their definition. A `let rec` group becomes one [`Fix`] unit: the body
//! operations that depend on the group's variables are iterated from the
//! empty value until nothing changes; the rest is hoisted out as ordinary
//! units. Recursion must be monotone (no recursive variable under `~` or on
//! the right of `\`), so the iteration reaches the least fixpoint.
//!
//! A name no `let` binds is a standard-library definition (`prelude`),
//! compiled on first use in the library's own scope and cached (the cache
//! is rolled back with everything else when a trial compilation of a
//! `let rec` round or a function check is undone), else a base input.

use super::ast::{BinOp, Binding, Expr, ExprKind, Stmt, Test, UnOp};
use super::prelude::{self, prelude};
use super::{AxiomKind, BaseKind};
use crate::diag::{excerpt, Error, Result};
use crate::guard;
use crate::ir::Pos;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

pub type Slot = u32;
/// Operand placeholder for operations with fewer than two operands.
pub const NONE: Slot = u32::MAX;

/// Nested function calls beyond this depth are rejected.
const MAX_CALL_DEPTH: u32 = 64;
/// Bound on expression nesting once functions are expanded (each level is
/// a few stack frames; this keeps compilation within a 2 MiB stack).
const MAX_EXPR_DEPTH: u32 = 500;
/// Bound on compilation work (expression nodes visited, counting each
/// function expansion), against exponential expansion.
const BUDGET: usize = 2_000_000;
/// The deadline (`--timeout`) is tested every this many units of work.
const GUARD_PERIOD: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpCode {
    EmptySet,
    FullSet,
    EmptyRel,
    FullRel,
    Id,
    SetUnion,
    SetInter,
    SetDiff,
    SetCompl,
    RelUnion,
    RelInter,
    RelDiff,
    RelCompl,
    Seq,
    Inv,
    Plus,
    Star,
    Opt,
    IdOn,
    Prod,
    Domain,
    Range,
}

impl OpCode {
    pub fn result(self) -> BaseKind {
        use OpCode::*;
        match self {
            EmptySet | FullSet | SetUnion | SetInter | SetDiff | SetCompl | Domain | Range => {
                BaseKind::Set
            }
            _ => BaseKind::Relation,
        }
    }

    fn commutative(self) -> bool {
        use OpCode::*;
        matches!(self, SetUnion | SetInter | RelUnion | RelInter)
    }
}

/// `dst = code(a, b)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub code: OpCode,
    pub dst: Slot,
    pub a: Slot,
    pub b: Slot,
}

impl Op {
    pub fn operands(&self) -> impl Iterator<Item = Slot> {
        [self.a, self.b].into_iter().filter(|&s| s != NONE)
    }
}

/// A least fixpoint: `vars` start empty; `body` is run and `results` copied
/// into `vars` until no var changes.
#[derive(Clone, Debug)]
pub struct Fix {
    pub vars: Vec<Slot>,
    pub body: Vec<Op>,
    pub results: Vec<Slot>,
}

/// A unit of evaluation: what the evaluator caches and invalidates.
#[derive(Clone, Debug)]
pub enum Unit {
    /// The value of input `i`, written by `Evaluator::set_input`.
    Input(usize),
    Op(Op),
    Fix(Fix),
}

/// The compiled program. Units are in dependency order: a unit only reads
/// slots produced by earlier units (or, inside a fixpoint, by itself).
#[derive(Clone, Debug, Default)]
pub struct Prog {
    pub kinds: Vec<BaseKind>,
    /// The unit producing each slot.
    pub producer: Vec<u32>,
    pub units: Vec<Unit>,
    /// The slot of each input.
    pub input_slots: Vec<Slot>,
}

/// A compiled expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    Slot(Slot),
    /// A polymorphic constant: `_` (true) or `0` (false).
    Konst(bool),
}

struct FuncDef {
    params: Vec<String>,
    body: Expr,
    env_len: usize,
    file: usize,
}

#[derive(Clone)]
enum Entry {
    Val(Val),
    Func(Rc<FuncDef>),
}

/// The output of compilation.
pub struct Compiled {
    pub prog: Prog,
    pub inputs: Vec<(String, BaseKind)>,
    pub axioms: Vec<CompiledAxiom>,
    /// Top-level value bindings, in definition order.
    pub bindings: Vec<(String, Val)>,
}

pub struct CompiledAxiom {
    pub name: String,
    pub kind: AxiomKind,
    pub flag: bool,
    pub undefined: bool,
    pub pos: Pos,
    pub file: usize,
    pub slot: Slot,
}

/// A fixpoint under construction.
struct FixBuilder {
    variant: HashSet<Slot>,
    body: Vec<Op>,
}

/// The top-level bindings in definition order, indexed by name: a name is
/// found without scanning the bindings before it (a scan per lookup made
/// 160,000 `let`s take half a minute).
#[derive(Default)]
struct Globals {
    entries: Vec<(String, Entry)>,
    /// Per name, the indices of its entries, increasing.
    by_name: HashMap<String, Vec<usize>>,
}

impl Globals {
    fn len(&self) -> usize {
        self.entries.len()
    }

    fn push(&mut self, name: String, entry: Entry) {
        self.by_name
            .entry(name.clone())
            .or_default()
            .push(self.entries.len());
        self.entries.push((name, entry));
    }

    /// Forgets the entries from `len` on (a rolled-back trial).
    fn truncate(&mut self, len: usize) {
        while self.entries.len() > len {
            let Some((name, _)) = self.entries.pop() else {
                break;
            };
            // The popped entry is the last of its name's indices.
            if let Some(v) = self.by_name.get_mut(&name) {
                v.pop();
                if v.is_empty() {
                    self.by_name.remove(&name);
                }
            }
        }
    }

    /// The last entry named `name` among the first `before`: later `let`s
    /// shadow earlier ones, and a function sees only those before it.
    fn get(&self, name: &str, before: usize) -> Option<&Entry> {
        let v = self.by_name.get(name)?;
        let k = v.partition_point(|&i| i < before).checked_sub(1)?;
        Some(&self.entries[v[k]].1)
    }
}

struct Checkpoint {
    slots: usize,
    units: usize,
    inputs: usize,
    globals: usize,
    lib_vals: usize,
}

struct Compiler<'a> {
    base: &'a dyn Fn(&str) -> Option<BaseKind>,
    files: &'a [PathBuf],
    prog: Prog,
    cse: HashMap<(OpCode, Slot, Slot), Slot>,
    inputs: Vec<(String, BaseKind)>,
    input_index: HashMap<String, usize>,
    globals: Globals,
    /// Standard-library values compiled so far (on first use).
    lib_vals: Vec<(String, Val)>,
    fix: Option<FixBuilder>,
    work: usize,
    call_depth: u32,
    expr_depth: u32,
}

/// Where names are looked up: function parameters, then the first
/// `env_len` global entries, then the first `lib_len` definitions of the
/// standard library (`prelude`), then the engine's base names.
struct Scope<'s> {
    locals: &'s [(String, Entry)],
    env_len: usize,
    lib_len: usize,
}

/// Model code sees the whole standard library.
const ALL_LIB: usize = usize::MAX;

fn kind_name(k: BaseKind) -> &'static str {
    match k {
        BaseKind::Set => "set",
        BaseKind::Relation => "relation",
    }
}

pub fn compile(
    stmts: &[(usize, Stmt)],
    files: &[PathBuf],
    base: &dyn Fn(&str) -> Option<BaseKind>,
) -> Result<Compiled> {
    let mut c = Compiler {
        base,
        files,
        prog: Prog::default(),
        cse: HashMap::new(),
        inputs: Vec::new(),
        input_index: HashMap::new(),
        globals: Globals::default(),
        lib_vals: Vec::new(),
        fix: None,
        work: 0,
        call_depth: 0,
        expr_depth: 0,
    };
    let mut axioms = Vec::new();
    for (file, stmt) in stmts {
        guard::check()?;
        c.stmt(*file, stmt, &mut axioms)
            .map_err(|e| e.in_file(&files[*file]))?;
    }
    let mut bindings = Vec::new();
    for (name, e) in &c.globals.entries {
        if let Entry::Val(v) = e {
            bindings.push((name.clone(), *v));
        }
    }
    Ok(Compiled {
        prog: c.prog,
        inputs: c.inputs,
        axioms,
        bindings,
    })
}

impl Compiler<'_> {
    fn stmt(&mut self, file: usize, stmt: &Stmt, axioms: &mut Vec<CompiledAxiom>) -> Result<()> {
        match stmt {
            Stmt::Let(bs) => {
                let scope_len = self.globals.len();
                let mut new = Vec::new();
                for b in bs {
                    let entry = match &b.params {
                        Some(ps) => {
                            check_params(ps)?;
                            self.check_function(b, ps, scope_len)?;
                            Entry::Func(Rc::new(FuncDef {
                                params: ps.iter().map(|p| p.0.clone()).collect(),
                                body: b.body.clone(),
                                env_len: scope_len,
                                file,
                            }))
                        }
                        None => {
                            let scope = Scope {
                                locals: &[],
                                env_len: scope_len,
                                lib_len: ALL_LIB,
                            };
                            Entry::Val(self.expr(&b.body, &scope)?)
                        }
                    };
                    new.push((b.name.clone(), entry));
                }
                for (name, entry) in new {
                    self.globals.push(name, entry);
                }
                Ok(())
            }
            Stmt::LetRec(bs) => self.let_rec(bs),
            Stmt::Axiom {
                flag,
                undefined,
                negated,
                test,
                expr,
                expr_pos,
                name,
                text,
                pos,
            } => {
                let scope = Scope {
                    locals: &[],
                    env_len: self.globals.len(),
                    lib_len: ALL_LIB,
                };
                let v = self.expr(expr, &scope)?;
                let slot = match (test, v) {
                    (Test::Empty, Val::Slot(s)) => s,
                    (_, Val::Slot(s)) if self.prog.kinds[s as usize] == BaseKind::Relation => s,
                    (_, Val::Slot(_)) => {
                        let word = if *test == Test::Acyclic {
                            "acyclic"
                        } else {
                            "irreflexive"
                        };
                        return Err(Error::semantic(
                            *expr_pos,
                            format!("type error: `{word}` expects a relation, but this is a set"),
                        ));
                    }
                    (_, Val::Konst(full)) => self.materialize(full, BaseKind::Relation),
                };
                let kind = match (test, negated) {
                    (Test::Empty, false) => AxiomKind::Empty,
                    (Test::Empty, true) => AxiomKind::NotEmpty,
                    (Test::Irreflexive, _) => AxiomKind::Irreflexive,
                    (Test::Acyclic, _) => AxiomKind::Acyclic,
                };
                // `undefined_unless T e` is a flag that fires where `T e`
                // fails, written as an emptiness test so that every engine
                // finds the executions it fires in: `e` is reflexive where
                // `e & id` is not empty, cyclic where `e+ & id` is not.
                let (slot, kind) = if *undefined {
                    let id = self.emit(OpCode::Id, NONE, NONE);
                    match kind {
                        AxiomKind::Empty => (slot, AxiomKind::NotEmpty),
                        AxiomKind::NotEmpty => (slot, AxiomKind::Empty),
                        AxiomKind::Irreflexive => {
                            (self.emit(OpCode::RelInter, slot, id), AxiomKind::NotEmpty)
                        }
                        AxiomKind::Acyclic => {
                            let plus = self.emit(OpCode::Plus, slot, NONE);
                            (self.emit(OpCode::RelInter, plus, id), AxiomKind::NotEmpty)
                        }
                    }
                } else {
                    (slot, kind)
                };
                axioms.push(CompiledAxiom {
                    name: name.clone().unwrap_or_else(|| text.clone()),
                    kind,
                    flag: *flag || *undefined,
                    undefined: *undefined,
                    pos: *pos,
                    file,
                    slot,
                });
                Ok(())
            }
            // Includes were inlined by the loader.
            Stmt::Include { .. } => Ok(()),
        }
    }

    /// Checks a function body once at its definition, with every
    /// parameter standing for the polymorphic empty constant: this reports
    /// unknown names and type errors that do not depend on the arguments
    /// even if the function is never called.
    fn check_function(&mut self, b: &Binding, ps: &[(String, Pos)], env_len: usize) -> Result<()> {
        let cp = self.checkpoint();
        let locals: Vec<(String, Entry)> = ps
            .iter()
            .map(|(p, _)| (p.clone(), Entry::Val(Val::Konst(false))))
            .collect();
        let scope = Scope {
            locals: &locals,
            env_len,
            lib_len: ALL_LIB,
        };
        let r = self.expr(&b.body, &scope);
        self.rollback(&cp);
        r.map(|_| ())
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            slots: self.prog.kinds.len(),
            units: self.prog.units.len(),
            inputs: self.inputs.len(),
            globals: self.globals.len(),
            lib_vals: self.lib_vals.len(),
        }
    }

    fn rollback(&mut self, cp: &Checkpoint) {
        self.prog.kinds.truncate(cp.slots);
        self.prog.producer.truncate(cp.slots);
        self.prog.units.truncate(cp.units);
        for (name, _) in self.inputs.drain(cp.inputs..) {
            self.input_index.remove(&name);
        }
        self.prog.input_slots.truncate(cp.inputs);
        self.globals.truncate(cp.globals);
        self.lib_vals.truncate(cp.lib_vals);
        let limit = cp.slots as Slot;
        self.cse.retain(|_, s| *s < limit);
        self.fix = None;
    }

    fn let_rec(&mut self, bs: &[Binding]) -> Result<()> {
        let mut seen = HashSet::new();
        for b in bs {
            if !seen.insert(b.name.as_str()) {
                return Err(Error::semantic(
                    b.pos,
                    format!(
                        "`{}` is defined twice in the same `let rec`",
                        excerpt(&b.name)
                    ),
                ));
            }
        }
        // Infer the kind of each variable: compile with the unknown ones as
        // the (polymorphic) empty constant, learn kinds, repeat.
        let mut kinds: Vec<Option<BaseKind>> = vec![None; bs.len()];
        for _ in 0..=bs.len() {
            let cp = self.checkpoint();
            let results = self.rec_round(bs, &kinds);
            let results = match results {
                Ok(r) => r,
                Err(e) => {
                    self.rollback(&cp);
                    return Err(e);
                }
            };
            let mut learned = false;
            for (k, r) in kinds.iter_mut().zip(&results) {
                if k.is_none() && r.is_some() {
                    *k = *r;
                    learned = true;
                }
            }
            self.rollback(&cp);
            if !learned {
                break;
            }
        }
        let kinds: Vec<BaseKind> = kinds
            .into_iter()
            .map(|k| k.unwrap_or(BaseKind::Relation))
            .collect();
        let known: Vec<Option<BaseKind>> = kinds.iter().map(|&k| Some(k)).collect();
        let cp = self.checkpoint();
        let r = self.rec_round(bs, &known);
        if r.is_err() {
            self.rollback(&cp);
        }
        r?;
        Ok(())
    }

    /// Compiles a `let rec` group once. Variables with a known kind get a
    /// slot (a fixpoint variable), the others stand for the empty constant.
    /// When every kind is known this builds the real [`Fix`] unit and binds
    /// the names; otherwise the caller rolls everything back. Returns the
    /// kind of each body (`None`: polymorphic constant).
    fn rec_round(
        &mut self,
        bs: &[Binding],
        kinds: &[Option<BaseKind>],
    ) -> Result<Vec<Option<BaseKind>>> {
        let mut fb = FixBuilder {
            variant: HashSet::new(),
            body: Vec::new(),
        };
        let mut vars = Vec::new();
        for (b, k) in bs.iter().zip(kinds) {
            let v = match k {
                Some(k) => {
                    let s = self.new_slot(*k, u32::MAX);
                    fb.variant.insert(s);
                    vars.push(s);
                    Val::Slot(s)
                }
                None => Val::Konst(false),
            };
            self.globals.push(b.name.clone(), Entry::Val(v));
        }
        self.fix = Some(fb);
        let scope = Scope {
            locals: &[],
            env_len: self.globals.len(),
            lib_len: ALL_LIB,
        };
        let mut results = Vec::new();
        let mut out_kinds = Vec::new();
        for (b, k) in bs.iter().zip(kinds) {
            if b.params.is_some() {
                return Err(Error::unsupported(b.pos, "recursive functions"));
            }
            let v = self.expr(&b.body, &scope)?;
            let rk = match v {
                Val::Slot(s) => Some(self.prog.kinds[s as usize]),
                Val::Konst(_) => None,
            };
            if let (Some(k), Some(rk)) = (k, rk) {
                if *k != rk {
                    return Err(Error::semantic(
                        b.pos,
                        format!(
                            "type error: the definition of `{0}` is a {1}, but `{0}` is used as a {2}",
                            excerpt(&b.name),
                            kind_name(rk),
                            kind_name(*k)
                        ),
                    ));
                }
            }
            out_kinds.push(rk);
            results.push(v);
        }
        if vars.len() == bs.len() {
            let fb = self.fix.take().unwrap_or(FixBuilder {
                variant: HashSet::new(),
                body: Vec::new(),
            });
            let mut result_slots = Vec::new();
            for (v, k) in results.iter().zip(kinds) {
                let s = match *v {
                    Val::Slot(s) => s,
                    Val::Konst(full) => self.materialize(full, k.unwrap_or(BaseKind::Relation)),
                };
                result_slots.push(s);
            }
            let unit = self.prog.units.len() as u32;
            for &s in vars.iter().chain(fb.body.iter().map(|op| &op.dst)) {
                self.prog.producer[s as usize] = unit;
            }
            self.prog.units.push(Unit::Fix(Fix {
                vars,
                body: fb.body,
                results: result_slots,
            }));
        }
        self.fix = None;
        Ok(out_kinds)
    }

    fn new_slot(&mut self, kind: BaseKind, producer: u32) -> Slot {
        let s = self.prog.kinds.len() as Slot;
        self.prog.kinds.push(kind);
        self.prog.producer.push(producer);
        s
    }

    fn is_variant(&self, v: Val) -> bool {
        match (v, &self.fix) {
            (Val::Slot(s), Some(fb)) => fb.variant.contains(&s),
            _ => false,
        }
    }

    fn emit(&mut self, code: OpCode, a: Slot, b: Slot) -> Slot {
        let (a, b) = if code.commutative() && b < a {
            (b, a)
        } else {
            (a, b)
        };
        if let Some(&s) = self.cse.get(&(code, a, b)) {
            return s;
        }
        let op_variant = self
            .fix
            .as_ref()
            .is_some_and(|fb| [a, b].iter().any(|s| *s != NONE && fb.variant.contains(s)));
        let dst = self.new_slot(code.result(), u32::MAX);
        let op = Op { code, dst, a, b };
        match &mut self.fix {
            Some(fb) if op_variant => {
                fb.body.push(op);
                fb.variant.insert(dst);
            }
            _ => {
                self.prog.producer[dst as usize] = self.prog.units.len() as u32;
                self.prog.units.push(Unit::Op(op));
            }
        }
        self.cse.insert((code, a, b), dst);
        dst
    }

    fn materialize(&mut self, full: bool, kind: BaseKind) -> Slot {
        let code = match (full, kind) {
            (false, BaseKind::Set) => OpCode::EmptySet,
            (true, BaseKind::Set) => OpCode::FullSet,
            (false, BaseKind::Relation) => OpCode::EmptyRel,
            (true, BaseKind::Relation) => OpCode::FullRel,
        };
        self.emit(code, NONE, NONE)
    }

    fn kind(&self, s: Slot) -> BaseKind {
        self.prog.kinds[s as usize]
    }

    /// The slot of `v` as a `kind`, or a type error.
    fn want(&mut self, v: Val, kind: BaseKind, pos: Pos, what: &str) -> Result<Slot> {
        match v {
            Val::Konst(full) => Ok(self.materialize(full, kind)),
            Val::Slot(s) if self.kind(s) == kind => Ok(s),
            Val::Slot(s) => Err(Error::semantic(
                pos,
                format!(
                    "type error: {what} expects a {}, but its operand is a {}",
                    kind_name(kind),
                    kind_name(self.kind(s))
                ),
            )),
        }
    }

    fn input(&mut self, name: &str, pos: Pos) -> Result<Val> {
        if let Some(&i) = self.input_index.get(name) {
            return Ok(Val::Slot(self.prog.input_slots[i]));
        }
        let Some(kind) = (self.base)(name) else {
            if let Some(why) = prelude::not_provided(name) {
                return Err(Error::unsupported(
                    pos,
                    format!("the herd7/Dat3M built-in `{name}`: {why}"),
                ));
            }
            return Err(Error::semantic(
                pos,
                format!("unknown identifier `{}`", excerpt(name)),
            ));
        };
        let i = self.inputs.len();
        let unit = self.prog.units.len() as u32;
        let s = self.new_slot(kind, unit);
        self.prog.units.push(Unit::Input(i));
        self.prog.input_slots.push(s);
        self.inputs.push((name.to_string(), kind));
        self.input_index.insert(name.to_string(), i);
        Ok(Val::Slot(s))
    }

    fn lookup<'s>(&'s self, name: &str, scope: &'s Scope<'_>) -> Option<&'s Entry> {
        // Parameters: one function's few.
        match scope.locals.iter().rev().find(|(n, _)| n == name) {
            Some((_, e)) => Some(e),
            None => self.globals.get(name, scope.env_len),
        }
    }

    fn expr(&mut self, e: &Expr, scope: &Scope<'_>) -> Result<Val> {
        self.work += 1;
        if self.work.is_multiple_of(GUARD_PERIOD) {
            guard::check()?;
        }
        if self.work > BUDGET {
            return Err(Error::unsupported(
                e.pos,
                "model too large to compile (function expansion blew up)",
            ));
        }
        if self.expr_depth >= MAX_EXPR_DEPTH {
            return Err(Error::unsupported(
                e.pos,
                "expression nested too deeply once functions are expanded",
            ));
        }
        self.expr_depth += 1;
        let r = self.expr_inner(e, scope);
        self.expr_depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &Expr, scope: &Scope<'_>) -> Result<Val> {
        match &e.kind {
            ExprKind::Empty => Ok(Val::Konst(false)),
            ExprKind::Universe => Ok(Val::Konst(true)),
            ExprKind::Name(n) => match self.lookup(n, scope) {
                Some(Entry::Val(v)) => Ok(*v),
                Some(Entry::Func(_)) => Err(Error::semantic(
                    e.pos,
                    format!(
                        "`{0}` is a function: apply it to arguments, as in `{0}(...)`",
                        excerpt(n)
                    ),
                )),
                None => self.free_name(n, e.pos, scope),
            },
            ExprKind::Nary(op, es) => {
                let mut acc = self.expr(&es[0], scope)?;
                for x in &es[1..] {
                    let v = self.expr(x, scope)?;
                    acc = self.binary(*op, acc, v, e.pos)?;
                }
                Ok(acc)
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x, scope)?;
                self.unary(*op, v, e.pos)
            }
            ExprKind::Call(name, args) => self.call(name, args, e.pos, scope),
        }
    }

    fn binary(&mut self, op: BinOp, a: Val, b: Val, pos: Pos) -> Result<Val> {
        let sym = op.symbol();
        match op {
            BinOp::Union | BinOp::Inter | BinOp::Diff => {
                if op == BinOp::Diff && self.is_variant(b) {
                    return Err(non_monotone(pos, "the right of `\\`"));
                }
                let (sa, sb) = match (a, b) {
                    (Val::Konst(x), Val::Konst(y)) => {
                        return Ok(Val::Konst(match op {
                            BinOp::Union => x || y,
                            BinOp::Inter => x && y,
                            _ => x && !y,
                        }))
                    }
                    (Val::Konst(x), Val::Slot(s)) => (self.materialize(x, self.kind(s)), s),
                    (Val::Slot(s), Val::Konst(y)) => (s, self.materialize(y, self.kind(s))),
                    (Val::Slot(x), Val::Slot(y)) => (x, y),
                };
                let (ka, kb) = (self.kind(sa), self.kind(sb));
                if ka != kb {
                    return Err(Error::semantic(
                        pos,
                        format!(
                            "type error: `{sym}` needs two sets or two relations, \
                             but its left operand is a {} and its right operand a {}",
                            kind_name(ka),
                            kind_name(kb)
                        ),
                    ));
                }
                if sa == sb {
                    return Ok(match op {
                        BinOp::Diff => Val::Slot(self.materialize(false, ka)),
                        _ => Val::Slot(sa),
                    });
                }
                let code = match (op, ka) {
                    (BinOp::Union, BaseKind::Set) => OpCode::SetUnion,
                    (BinOp::Inter, BaseKind::Set) => OpCode::SetInter,
                    (BinOp::Diff, BaseKind::Set) => OpCode::SetDiff,
                    (BinOp::Union, _) => OpCode::RelUnion,
                    (BinOp::Inter, _) => OpCode::RelInter,
                    _ => OpCode::RelDiff,
                };
                Ok(Val::Slot(self.emit(code, sa, sb)))
            }
            BinOp::Seq => {
                let sa = self.want(a, BaseKind::Relation, pos, "the left operand of `;`")?;
                let sb = self.want(b, BaseKind::Relation, pos, "the right operand of `;`")?;
                Ok(Val::Slot(self.emit(OpCode::Seq, sa, sb)))
            }
            BinOp::Prod => {
                let sa = self.want(a, BaseKind::Set, pos, "the left operand of the product `*`")?;
                let sb = self.want(
                    b,
                    BaseKind::Set,
                    pos,
                    "the right operand of the product `*`",
                )?;
                Ok(Val::Slot(self.emit(OpCode::Prod, sa, sb)))
            }
        }
    }

    fn unary(&mut self, op: UnOp, v: Val, pos: Pos) -> Result<Val> {
        let rel = |c: &mut Self, what: &str| c.want(v, BaseKind::Relation, pos, what);
        let s = match op {
            UnOp::Compl => {
                if self.is_variant(v) {
                    return Err(non_monotone(pos, "`~`"));
                }
                match v {
                    Val::Konst(full) => return Ok(Val::Konst(!full)),
                    Val::Slot(s) => {
                        let code = match self.kind(s) {
                            BaseKind::Set => OpCode::SetCompl,
                            BaseKind::Relation => OpCode::RelCompl,
                        };
                        self.emit(code, s, NONE)
                    }
                }
            }
            UnOp::Plus => {
                let s = rel(self, "`+`")?;
                self.emit(OpCode::Plus, s, NONE)
            }
            UnOp::Star => {
                let s = rel(self, "`*`")?;
                self.emit(OpCode::Star, s, NONE)
            }
            UnOp::Opt => {
                let s = rel(self, "`?`")?;
                self.emit(OpCode::Opt, s, NONE)
            }
            UnOp::Inv => {
                let s = rel(self, "`^-1`")?;
                self.emit(OpCode::Inv, s, NONE)
            }
            UnOp::IdOn => {
                let s = self.want(v, BaseKind::Set, pos, "`[...]`")?;
                self.emit(OpCode::IdOn, s, NONE)
            }
        };
        Ok(Val::Slot(s))
    }

    /// A name no `let` in scope binds: a standard-library value, `id`, or
    /// a base name of the engine.
    fn free_name(&mut self, n: &str, pos: Pos, scope: &Scope<'_>) -> Result<Val> {
        if let Some((k, b)) = prelude().get(n, scope.lib_len) {
            if b.params.is_some() {
                return Err(Error::semantic(
                    pos,
                    format!(
                        "`{0}` is a function: apply it to arguments, as in `{0}(...)`",
                        excerpt(n)
                    ),
                ));
            }
            if let Some((_, v)) = self.lib_vals.iter().find(|(m, _)| m == n) {
                return Ok(*v);
            }
            let lib = Scope {
                locals: &[],
                env_len: 0,
                lib_len: k,
            };
            let v = self
                .expr(&b.body, &lib)
                .map_err(|e| in_library(e, n, pos))?;
            self.lib_vals.push((n.to_string(), v));
            return Ok(v);
        }
        if n == "id" {
            return Ok(Val::Slot(self.emit(OpCode::Id, NONE, NONE)));
        }
        self.input(n, pos)
    }

    fn call(&mut self, name: &str, args: &[Expr], pos: Pos, scope: &Scope<'_>) -> Result<Val> {
        let def = match self.lookup(name, scope) {
            Some(Entry::Func(f)) => Some(f.clone()),
            Some(Entry::Val(_)) => {
                return Err(Error::semantic(
                    pos,
                    format!("`{}` is not a function", excerpt(name)),
                ))
            }
            None => None,
        };
        let Some(def) = def else {
            let code = match name {
                "domain" => OpCode::Domain,
                "range" => OpCode::Range,
                "toid" => OpCode::IdOn,
                _ => return self.call_library(name, args, pos, scope),
            };
            if args.len() != 1 {
                return Err(Error::semantic(
                    pos,
                    format!("`{name}` takes 1 argument, but {} were given", args.len()),
                ));
            }
            let v = self.expr(&args[0], scope)?;
            let want = if code == OpCode::IdOn {
                BaseKind::Set
            } else {
                BaseKind::Relation
            };
            let s = self.want(v, want, pos, &format!("`{name}`"))?;
            return Ok(Val::Slot(self.emit(code, s, NONE)));
        };
        let callee = Callee {
            params: &def.params,
            body: &def.body,
            env_len: def.env_len,
            lib_len: ALL_LIB,
            file: def.file,
        };
        self.apply(name, callee, args, pos, scope)
    }

    /// A call of a standard-library function (or of an unknown one).
    fn call_library(
        &mut self,
        name: &str,
        args: &[Expr],
        pos: Pos,
        scope: &Scope<'_>,
    ) -> Result<Val> {
        let Some((k, b)) = prelude().get(name, scope.lib_len) else {
            if let Some(why) = prelude::not_provided(name) {
                return Err(Error::unsupported(
                    pos,
                    format!("the herd7/Dat3M built-in `{name}`: {why}"),
                ));
            }
            // A base name or a library value used as a function is most
            // likely a missing operator (`acyclic po rf`, read as herd7's
            // application `po(rf)`).
            if (self.base)(name).is_some() || prelude().get(name, ALL_LIB).is_some() {
                return Err(Error::semantic(
                    pos,
                    format!(
                        "`{}` is not a function (an operator missing after it?)",
                        excerpt(name)
                    ),
                ));
            }
            return Err(Error::semantic(
                pos,
                format!("unknown function `{}`", excerpt(name)),
            ));
        };
        let Some(params) = &b.params else {
            return Err(Error::semantic(
                pos,
                format!("`{}` is not a function", excerpt(name)),
            ));
        };
        let params: Vec<String> = params.iter().map(|p| p.0.clone()).collect();
        let callee = Callee {
            params: &params,
            body: &b.body,
            env_len: 0,
            lib_len: k,
            file: 0,
        };
        // Argument errors are the caller's; errors in the body are reported
        // at the call, naming the library function.
        self.apply(name, callee, args, pos, scope)
    }

    /// Expands a function body with its parameters bound to the arguments.
    fn apply(
        &mut self,
        name: &str,
        f: Callee<'_>,
        args: &[Expr],
        pos: Pos,
        scope: &Scope<'_>,
    ) -> Result<Val> {
        if args.len() != f.params.len() {
            return Err(Error::semantic(
                pos,
                format!(
                    "`{}` takes {} argument{}, but {} were given",
                    excerpt(name),
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
            ));
        }
        let mut locals = Vec::with_capacity(args.len());
        for (p, a) in f.params.iter().zip(args) {
            locals.push((p.clone(), Entry::Val(self.expr(a, scope)?)));
        }
        if self.call_depth >= MAX_CALL_DEPTH {
            return Err(Error::unsupported(pos, "function calls nested too deeply"));
        }
        self.call_depth += 1;
        let inner = Scope {
            locals: &locals,
            env_len: f.env_len,
            lib_len: f.lib_len,
        };
        let r = self.expr(f.body, &inner);
        self.call_depth -= 1;
        // Errors in the body belong to the file the function is defined in.
        r.map_err(|e| {
            if f.lib_len == ALL_LIB {
                e.in_file(&self.files[f.file])
            } else {
                in_library(e, name, pos)
            }
        })
    }
}

/// What a call expands.
#[derive(Clone, Copy)]
struct Callee<'a> {
    params: &'a [String],
    body: &'a Expr,
    env_len: usize,
    lib_len: usize,
    /// The defining file (model functions only).
    file: usize,
}

/// An error raised inside the standard library, moved to the model's use
/// site of `name` (the library text is not a file the user has).
fn in_library(e: Error, name: &str, pos: Pos) -> Error {
    if e.file.is_some() {
        return e;
    }
    Error {
        pos: Some(pos),
        message: format!(
            "{} (in the standard-library definition of `{name}`, {})",
            e.message,
            prelude::FILE
        ),
        ..e
    }
}

fn check_params(ps: &[(String, Pos)]) -> Result<()> {
    let mut seen = HashSet::new();
    for (p, pos) in ps {
        if !seen.insert(p.as_str()) {
            return Err(Error::semantic(
                *pos,
                format!("parameter `{}` appears twice", excerpt(p)),
            ));
        }
    }
    Ok(())
}

fn non_monotone(pos: Pos, place: &str) -> Error {
    Error::unsupported(
        pos,
        format!(
            "non-monotone recursion: a variable of the enclosing `let rec` occurs under {place}, \
             so the least fixpoint may not exist"
        ),
    )
}
