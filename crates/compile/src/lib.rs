//! gpumc-compile: compilation as data. A scoped C/C++ litmus program
//! (`ir::Arch::C`) is compiled to PTX or Vulkan by a [`Mapping`] — a
//! readable file of rules from each source operation (kind × order ×
//! scope) to a target instruction sequence (`docs/MAPPING.md`) — and
//! printed back as a litmus test of that dialect ([`print`]).
//!
//! The built-in `ptx` mapping is Lustig et al., ASPLOS'19, Fig. 11; the
//! `vulkan` one is ours. [`compile`] keeps registers, control flow,
//! locations, placement and conditions; every source memory access becomes
//! exactly one target access (plus fences), and [`Compiled::origin`] says
//! which source instruction each target instruction came from.

use gpumc_core::{diag, ir};

pub mod mapping;
pub mod print;

pub use mapping::{Key, Mapping, OpKind, Order, Rule, Scope, Step, Target, Template, BUILTIN};

use diag::{Error, ErrorKind, Result};
use ir::{
    Addr, Assertion, BinOp, CmpOp, Cond, Instr, InstrKind, Operand, Placement, Program, RmwOp,
    Term, Thread,
};
use std::collections::{HashMap, HashSet};

/// A compiled program and where each of its instructions came from.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// A program of the target's architecture (PTX or Vulkan), with the
    /// tags our litmus front-end gives the same instructions.
    pub program: Program,
    /// `origin[t][k]`: the index of the source instruction (in thread `t`)
    /// that target instruction `k` of thread `t` came from. Every target
    /// instruction has one (`None` is reserved for instructions with no
    /// source, which the compiler does not emit today).
    pub origin: Vec<Vec<Option<usize>>>,
    /// Per thread, the source registers that got another name (C locals
    /// that are not litmus registers `r0`, `r1`, …): `(source, target)`,
    /// in order of first use.
    pub renamed: Vec<Vec<(String, String)>>,
}

impl Compiled {
    /// The target instructions of thread `t` that came from its source
    /// instruction `src`, in program order.
    pub fn image(&self, t: usize, src: usize) -> impl Iterator<Item = usize> + '_ {
        self.origin[t]
            .iter()
            .enumerate()
            .filter(move |(_, o)| **o == Some(src))
            .map(|(k, _)| k)
    }

    /// The one target memory access (load, store, RMW) compiled from the
    /// source access `src` of thread `t`; `None` for a source instruction
    /// that is not a memory access.
    pub fn access(&self, t: usize, src: usize) -> Option<usize> {
        let instrs = &self.program.threads[t].instrs;
        self.image(t, src).find(|&k| {
            matches!(
                instrs[k].kind,
                InstrKind::Load { .. } | InstrKind::Store { .. } | InstrKind::Rmw { .. }
            )
        })
    }
}

/// The operation a source instruction performs: `None` for instructions
/// that are not memory operations (registers, branches, labels). Reads the
/// C tags of `docs/EVENTS.md`: one order (`NA RLX ACQ REL ACQ_REL SC`; an
/// RMW's order may be split over its halves) and, on atomics, one scope
/// (`CTA GPU SYS`).
pub fn classify(ins: &Instr) -> Result<Option<Key>> {
    let kind = match ins.kind {
        InstrKind::Load { .. } => OpKind::Load,
        InstrKind::Store { .. } => OpKind::Store,
        InstrKind::Rmw { .. } => OpKind::Rmw,
        InstrKind::Fence => OpKind::Fence,
        _ => return Ok(None),
    };
    // The C front-end's reading of its own tags (one definition).
    let order = match gpumc_frontend::tagging::c_order(ins) {
        Some("SC") => Order::Sc,
        Some("ACQ_REL") => Order::AcqRel,
        Some("ACQ") => Order::Acq,
        Some("REL") => Order::Rel,
        Some(_) => Order::Rlx,
        None if ins.tags.iter().any(|t| t == "NA") => Order::Na,
        None => {
            return Err(Error::semantic(
                ins.pos,
                format!(
                    "`{}` has no C memory order (tags NA, RLX, ACQ, REL, ACQ_REL or SC)",
                    ins.text
                ),
            ))
        }
    };
    // A compare-exchange whose failure order is not its success order's
    // read part: a mapping rule gives an operation one order, so it is
    // compiled with the least order at least as strong as both (a sound
    // strengthening: the compiled read orders as much as either).
    let order = match ins.failed.as_deref().and_then(failure_order) {
        Some(fail) => join(order, fail),
        None => order,
    };
    let scope = match (order, gpumc_frontend::tagging::c_scope(ins)) {
        (Order::Na, _) => None,
        (_, Some(s)) => Scope::ALL.into_iter().find(|x| x.tag() == s),
        (_, None) => {
            return Err(Error::semantic(
                ins.pos,
                format!("atomic `{}` has no scope (tags CTA, GPU or SYS)", ins.text),
            ))
        }
    };
    Ok(Some(Key { kind, order, scope }))
}

/// The order of a compare-exchange's failure tags (`Instr::failed`).
fn failure_order(tags: &[String]) -> Option<Order> {
    tags.iter().find_map(|t| match t.as_str() {
        "SC" => Some(Order::Sc),
        "ACQ" => Some(Order::Acq),
        "RLX" => Some(Order::Rlx),
        _ => None,
    })
}

/// The least C order at least as strong as `a` and `b` (RLX < ACQ, REL <
/// ACQ_REL < SC).
fn join(a: Order, b: Order) -> Order {
    use Order::*;
    match (a, b) {
        (Sc, _) | (_, Sc) => Sc,
        (AcqRel, _) | (_, AcqRel) | (Acq, Rel) | (Rel, Acq) => AcqRel,
        (Acq, _) | (_, Acq) => Acq,
        (Rel, _) | (_, Rel) => Rel,
        (Rlx, _) | (_, Rlx) => Rlx,
        (Na, Na) => Na,
    }
}

/// Compiles a scoped C/C++ program with `m` to `to` (see the crate
/// documentation). Errors: a source operation no rule covers (at the
/// source instruction's position, naming the operation and the mapping),
/// a mapping for another target, constructs a litmus test cannot carry.
pub fn compile(p: &Program, m: &Mapping, to: Target) -> Result<Compiled> {
    if m.target != to {
        return Err(Error::new(
            ErrorKind::Usage,
            format!(
                "mapping {} compiles to {}, not to {to}",
                m.describe(),
                m.target
            ),
        ));
    }
    check_source(p)?;
    if !p.inputs.is_empty() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "unsupported: compiling a program with free inputs",
        ));
    }
    let mut locations = Vec::with_capacity(p.locations.len());
    for (k, l) in p.locations.iter().enumerate() {
        if l.phys != k || l.virt != k {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("unsupported: compiling the alias `{}`", l.name),
            ));
        }
        if l.init_arbitrary.is_some() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: compiling `{}`, which has no initial value",
                    l.name
                ),
            ));
        }
        let mut l = l.clone();
        l.space = None;
        locations.push(l);
    }
    let placements = placements(p, to)?;
    let mut regs: Vec<HashMap<String, String>> = Vec::new();
    let mut threads = Vec::new();
    let mut origin = Vec::new();
    let mut renamed = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        let names = Names::new(p, t);
        let mut cx = ThreadCx {
            m,
            names,
            out: Vec::new(),
            origin: Vec::new(),
        };
        for (k, ins) in th.instrs.iter().enumerate() {
            cx.instr(k, ins)?;
        }
        let init_regs = th
            .init_regs
            .iter()
            .map(|(r, v)| (cx.names.reg(r), *v))
            .collect();
        threads.push(Thread {
            name: th.name.clone(),
            placement: placements[t].clone(),
            instrs: cx.out,
            init_regs,
        });
        origin.push(cx.origin);
        renamed.push(
            cx.names
                .order
                .iter()
                .filter_map(|r| {
                    let to = &cx.names.regs[r];
                    (to != r).then(|| (r.clone(), to.clone()))
                })
                .collect(),
        );
        regs.push(cx.names.regs);
    }
    let rename = |c: &Cond| rename_cond(c, &regs);
    let mut program = Program {
        kernel: false,
        name: p.name.clone(),
        arch: to.arch(),
        threads,
        locations,
        ssw: Vec::new(),
        filter: p.filter.as_ref().map(rename),
        assertion: p.assertion.as_ref().map(|a| Assertion {
            quantifier: a.quantifier,
            cond: rename(&a.cond),
        }),
        observed: p.observed.iter().map(|t| rename_term(t, &regs)).collect(),
        inputs: Vec::new(),
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: Vec::new(),
        default_model: None,
    };
    // Instruction texts as the printer writes them.
    let mut texts = Vec::new();
    for th in &program.threads {
        let mut v = Vec::new();
        for i in &th.instrs {
            v.push(print::instr_text(&program, i)?);
        }
        texts.push(v);
    }
    for (th, v) in program.threads.iter_mut().zip(texts) {
        for (i, text) in th.instrs.iter_mut().zip(v) {
            i.text = text;
        }
    }
    Ok(Compiled {
        program,
        origin,
        renamed,
    })
}

/// The source must be a C program (its memory operations carry C tags).
fn check_source(p: &Program) -> Result<()> {
    if p.arch == ir::Arch::C {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        format!(
            "unsupported: compiling a {} test: `gpumc compile` compiles C litmus tests (header `C`)",
            p.arch.litmus_header()
        ),
    ))
}

/// Target placement: PTX keeps `[cta, gpu]`; Vulkan gets `[sg, wg, qf]`
/// with the CTA as workgroup, the GPU as queue family and each thread its
/// own subgroup.
fn placements(p: &Program, to: Target) -> Result<Vec<Placement>> {
    let mut out = Vec::new();
    let mut seen: HashMap<(i64, i64), i64> = HashMap::new();
    for th in &p.threads {
        let [cta, gpu] = th.placement.ids[..] else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: the placement of {} (expected a CTA and a GPU)",
                    th.name
                ),
            ));
        };
        out.push(match to {
            Target::Ptx => Placement {
                ids: vec![cta, gpu],
                warp: None,
            },
            Target::Vulkan => {
                let sg = seen.entry((cta, gpu)).or_insert(0);
                let ids = vec![*sg, cta, gpu];
                *sg += 1;
                Placement { ids, warp: None }
            }
        });
    }
    Ok(out)
}

fn rename_term(t: &Term, regs: &[HashMap<String, String>]) -> Term {
    match t {
        Term::Reg(th, r) => {
            let r = regs
                .get(*th)
                .and_then(|m| m.get(r))
                .cloned()
                .unwrap_or_else(|| r.clone());
            Term::Reg(*th, r)
        }
        other => other.clone(),
    }
}

fn rename_cond(c: &Cond, regs: &[HashMap<String, String>]) -> Cond {
    match c {
        Cond::True => Cond::True,
        Cond::False => Cond::False,
        Cond::Cmp(op, a, b) => Cond::Cmp(*op, rename_term(a, regs), rename_term(b, regs)),
        Cond::Not(x) => Cond::Not(Box::new(rename_cond(x, regs))),
        Cond::And(a, b) => Cond::And(
            Box::new(rename_cond(a, regs)),
            Box::new(rename_cond(b, regs)),
        ),
        Cond::Or(a, b) => Cond::Or(
            Box::new(rename_cond(a, regs)),
            Box::new(rename_cond(b, regs)),
        ),
    }
}

/// Register and label names of one thread, renamed to what a litmus test
/// can write (`r<digits>`, identifiers) where they are not already.
struct Names {
    regs: HashMap<String, String>,
    /// Source registers in order of first use.
    order: Vec<String>,
    used_regs: HashSet<String>,
    labels: HashMap<String, String>,
    used_labels: HashSet<String>,
    next_reg: usize,
    next_label: usize,
}

impl Names {
    fn new(p: &Program, t: usize) -> Names {
        let th = &p.threads[t];
        let mut regs_seen: Vec<String> = Vec::new();
        let mut labels_seen: Vec<String> = Vec::new();
        let note = |v: &mut Vec<String>, s: &str| {
            if !v.iter().any(|x| x == s) {
                v.push(s.to_string());
            }
        };
        for (r, _) in &th.init_regs {
            note(&mut regs_seen, r);
        }
        for i in &th.instrs {
            for r in instr_regs(i) {
                note(&mut regs_seen, r);
            }
            match &i.kind {
                InstrKind::Label(l) | InstrKind::Goto(l) => note(&mut labels_seen, l),
                InstrKind::Branch { target, .. } => note(&mut labels_seen, target),
                _ => {}
            }
        }
        let mut terms: Vec<Term> = Vec::new();
        for c in [p.filter.as_ref(), p.assertion.as_ref().map(|a| &a.cond)]
            .into_iter()
            .flatten()
        {
            terms.extend(c.terms());
        }
        terms.extend(p.observed.iter().cloned());
        for term in &terms {
            if let Term::Reg(th, r) = term {
                if *th == t {
                    note(&mut regs_seen, r);
                }
            }
        }
        let mut n = Names {
            regs: HashMap::new(),
            order: regs_seen.clone(),
            used_regs: HashSet::new(),
            labels: HashMap::new(),
            used_labels: HashSet::new(),
            next_reg: 0,
            next_label: 0,
        };
        for r in &regs_seen {
            if print::is_register(r) {
                n.regs.insert(r.clone(), r.clone());
                n.used_regs.insert(r.clone());
            }
        }
        for r in &regs_seen {
            if !n.regs.contains_key(r) {
                let fresh = n.fresh_reg();
                n.regs.insert(r.clone(), fresh);
            }
        }
        for l in &labels_seen {
            if print::is_ident(l) && !print::is_register(l) {
                n.labels.insert(l.clone(), l.clone());
                n.used_labels.insert(l.clone());
            }
        }
        for l in &labels_seen {
            if !n.labels.contains_key(l) {
                let fresh = n.fresh_label();
                n.labels.insert(l.clone(), fresh);
            }
        }
        n
    }

    fn fresh_reg(&mut self) -> String {
        loop {
            let r = format!("r{}", self.next_reg);
            self.next_reg += 1;
            if self.used_regs.insert(r.clone()) {
                return r;
            }
        }
    }

    fn fresh_label(&mut self) -> String {
        loop {
            let l = format!("LC{:02}", self.next_label);
            self.next_label += 1;
            if self.used_labels.insert(l.clone()) {
                return l;
            }
        }
    }

    fn reg(&self, r: &str) -> String {
        self.regs.get(r).cloned().unwrap_or_else(|| r.to_string())
    }

    fn label(&self, l: &str) -> String {
        self.labels.get(l).cloned().unwrap_or_else(|| l.to_string())
    }

    fn op(&self, o: &Operand) -> Operand {
        match o {
            Operand::Reg(r) => Operand::Reg(self.reg(r)),
            c => c.clone(),
        }
    }
}

/// The registers an instruction names.
fn instr_regs(i: &Instr) -> Vec<&str> {
    fn op(o: &Operand) -> Option<&str> {
        match o {
            Operand::Reg(r) => Some(r.as_str()),
            Operand::Const(_) => None,
        }
    }
    let v: Vec<Option<&str>> = match &i.kind {
        InstrKind::Load { dst, addr } => vec![Some(dst), addr.index().and_then(op)],
        InstrKind::Store { addr, value } => vec![addr.index().and_then(op), op(value)],
        InstrKind::Rmw {
            dst,
            addr,
            op: rop,
            operand,
        } => {
            let expected = match rop {
                RmwOp::Cas { expected } => op(expected),
                _ => None,
            };
            vec![
                dst.as_deref(),
                addr.index().and_then(op),
                expected,
                op(operand),
            ]
        }
        InstrKind::Local { dst, a, b, .. } => vec![Some(dst), op(a), op(b)],
        InstrKind::Branch { a, b, .. } => vec![op(a), op(b)],
        InstrKind::Barrier { id, count, .. } => vec![op(id), count.as_ref().and_then(op)],
        InstrKind::Havoc { dst, .. } | InstrKind::Input { dst, .. } => vec![Some(dst)],
        _ => Vec::new(),
    };
    v.into_iter().flatten().collect()
}

/// Compiles one thread.
struct ThreadCx<'m> {
    m: &'m Mapping,
    names: Names,
    out: Vec<Instr>,
    origin: Vec<Option<usize>>,
}

impl ThreadCx<'_> {
    fn push(&mut self, k: usize, src: &Instr, kind: InstrKind) {
        self.out
            .push(Instr::new(kind, Vec::new(), src.pos, String::new()));
        self.origin.push(Some(k));
    }

    fn instr(&mut self, k: usize, ins: &Instr) -> Result<()> {
        let fixed = |a: &Addr| -> Result<Addr> {
            match a {
                Addr::Fixed(l) => Ok(Addr::Fixed(*l)),
                Addr::Indexed(x) => Err(Error::unsupported(
                    ins.pos,
                    format!("compiling the run-time address `{}`", x.array),
                )),
                Addr::Region(_) => Err(Error::unsupported(
                    ins.pos,
                    "compiling an access into memory of unknown size",
                )),
            }
        };
        if let Some(key) = classify(ins)? {
            let Some(steps) = self.m.lookup(&key) else {
                return Err(Error::semantic(
                    ins.pos,
                    format!(
                        "mapping {} has no rule for `{key}` (source instruction `{}`)",
                        self.m.describe(),
                        ins.text
                    ),
                ));
            };
            for step in steps {
                let mut out = step.instr.clone();
                out.pos = ins.pos;
                if step.access {
                    out.kind = match (&ins.kind, &step.instr.kind) {
                        (InstrKind::Load { dst, addr }, InstrKind::Load { .. }) => {
                            InstrKind::Load {
                                dst: self.names.reg(dst),
                                addr: fixed(addr)?,
                            }
                        }
                        (InstrKind::Store { addr, value }, InstrKind::Store { .. }) => {
                            InstrKind::Store {
                                addr: fixed(addr)?,
                                value: self.names.op(value),
                            }
                        }
                        (
                            InstrKind::Rmw {
                                dst,
                                addr,
                                op,
                                operand,
                            },
                            InstrKind::Rmw { .. },
                        ) => InstrKind::Rmw {
                            dst: Some(match dst {
                                Some(d) => self.names.reg(d),
                                None => self.names.fresh_reg(),
                            }),
                            addr: fixed(addr)?,
                            op: match op {
                                RmwOp::Cas { expected } => RmwOp::Cas {
                                    expected: self.names.op(expected),
                                },
                                other => other.clone(),
                            },
                            operand: self.names.op(operand),
                        },
                        _ => unreachable!("the mapping checks each rule's access kind"),
                    };
                }
                self.out.push(out);
                self.origin.push(Some(k));
            }
            return Ok(());
        }
        match &ins.kind {
            InstrKind::Label(l) => self.push(k, ins, InstrKind::Label(self.names.label(l))),
            InstrKind::Goto(l) => self.push(k, ins, InstrKind::Goto(self.names.label(l))),
            InstrKind::Branch { op, a, b, target } => {
                let kind = InstrKind::Branch {
                    op: *op,
                    a: self.names.op(a),
                    b: self.names.op(b),
                    target: self.names.label(target),
                };
                self.push(k, ins, kind);
            }
            InstrKind::Local { dst, op, a, b } => {
                let (dst, a, b) = (self.names.reg(dst), self.names.op(a), self.names.op(b));
                let cmp = match op {
                    BinOp::Eq => Some(CmpOp::Eq),
                    BinOp::Ne => Some(CmpOp::Ne),
                    BinOp::Lt => Some(CmpOp::Lt),
                    BinOp::Le => Some(CmpOp::Le),
                    BinOp::Gt => Some(CmpOp::Gt),
                    BinOp::Ge => Some(CmpOp::Ge),
                    _ => None,
                };
                if let Some(cmp) = cmp {
                    // dst := a cmp b, with a branch (the litmus dialects have
                    // no comparison into a register).
                    let yes = self.names.fresh_label();
                    let end = self.names.fresh_label();
                    let set = |v: i64| InstrKind::Local {
                        dst: dst.clone(),
                        op: BinOp::Add,
                        a: Operand::Const(v),
                        b: Operand::Const(0),
                    };
                    self.push(
                        k,
                        ins,
                        InstrKind::Branch {
                            op: cmp,
                            a,
                            b,
                            target: yes.clone(),
                        },
                    );
                    self.push(k, ins, set(0));
                    self.push(k, ins, InstrKind::Goto(end.clone()));
                    self.push(k, ins, InstrKind::Label(yes));
                    self.push(k, ins, set(1));
                    self.push(k, ins, InstrKind::Label(end));
                } else if matches!(
                    op,
                    BinOp::Ult
                        | BinOp::Ule
                        | BinOp::Ugt
                        | BinOp::Uge
                        | BinOp::Lshr
                        | BinOp::Udiv
                        | BinOp::Urem
                ) {
                    return Err(Error::unsupported(
                        ins.pos,
                        format!(
                            "compiling `{}`: the litmus dialects have no unsigned operation {op:?}",
                            ins.text
                        ),
                    ));
                } else {
                    self.push(k, ins, InstrKind::Local { dst, op: *op, a, b });
                }
            }
            InstrKind::Barrier { .. } => {
                return Err(Error::unsupported(
                    ins.pos,
                    format!("compiling the control barrier `{}`", ins.text),
                ))
            }
            InstrKind::Havoc { .. }
            | InstrKind::Input { .. }
            | InstrKind::Unreachable { .. }
            | InstrKind::Infeasible => {
                return Err(Error::unsupported(
                    ins.pos,
                    format!(
                        "compiling `{}` (free values and unreachable code have no litmus form)",
                        ins.text
                    ),
                ))
            }
            InstrKind::Load { .. }
            | InstrKind::Store { .. }
            | InstrKind::Rmw { .. }
            | InstrKind::Fence => unreachable!("classified above"),
        }
        Ok(())
    }
}
