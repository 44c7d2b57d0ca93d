//! `GPU_PTX` instructions: their IR and their tags (`docs/EVENTS.md`,
//! "Tags from the GPU_PTX front-end").
//!
//! | form | IR |
//! |---|---|
//! | `ld{.sem}{.scope}{.ss}{.cop}{.type} r, [a]` | `Load` |
//! | `st{.sem}{.scope}{.ss}{.cop}{.type} [a], v` | `Store` |
//! | `atom{.sem}{.scope}{.ss}.op.type r, [a], v` (`.cas`: `r, [a], cmp, new`) | `Rmw` |
//! | `red{.sem}{.scope}{.ss}.op.type [a], v` | `Rmw` with no destination |
//! | `membar.{cta,gl,sys}`, `fence.{sc,acq_rel}.{cta,gpu,sys}`, `bar.sync id` | as the Dat3M PTX dialect (`ptx.rs`) |
//! | `mov`, `cvt.t.t`, `add`, `sub`, `mul{.lo}`, `div`, `rem`, `and`, `or`, `xor`, `not`, `neg`, `shl`, `shr` (`.type`) | `Local` |
//! | `setp.cmp.type p, a, b` (`eq ne lt le gt ge lo ls hi hs`) | `Local` (0 or 1) |
//! | `bra{.uni} L` | `Goto` (guarded: `Branch`) |
//!
//! `a` is `[r]` (a register holding an address, `flow`) or `[x]`; `v` a
//! register or an immediate. Orders (`.sem`): `ld` `.weak` (the default),
//! `.relaxed`, `.acquire`, `.volatile`; `st` `.weak`, `.relaxed`,
//! `.release`, `.volatile`; `atom` `.relaxed` (the default, at `.gpu`
//! scope), `.acquire`, `.release`, `.acq_rel`; `red` `.relaxed`,
//! `.release`. Relaxed, acquire and release `ld`/`st` need a scope
//! (`.cta`, `.gpu`, `.sys`); weak and volatile ones take none. Cache
//! operators (`ld`: `.ca .cg .cs .lu .cv`; `st`: `.wb .cg .cs .wt`) only
//! on weak accesses, as in the PTX ISA. State spaces `.global`, `.shared`
//! must agree with the memory map. Types: `.b`/`.s`/`.u` with 32 or 64
//! bits on memory accesses (narrower ones are mixed-size accesses, not
//! modelled); the signedness chooses signed or unsigned `shr`, `div`,
//! `rem` and `setp` orderings.

use super::super::instr::{assign, Arg as DatArg, Cx, Opnd, Tags};
use super::super::ptx::{self, scope_tag, Order};
use super::super::source::Source;
use super::super::Locs;
use super::cell::{Arg, Cell, Guard, Ins, Opd};
use super::flow::{Fact, Flow};
use crate::diag::{Error, Result};
use crate::ir::{Addr, Arch, BinOp, CmpOp, Indexed, Instr, InstrKind, Operand, RmwOp};

/// One thread while its rows are read.
pub(super) struct ThreadState {
    pub instrs: Vec<Instr>,
    pub init_regs: Vec<(String, i64)>,
    flow: Flow,
    /// Labels made for predicated instructions so far.
    skips: usize,
    /// Instructions with a `.global` / `.shared` qualifier (index into
    /// `instrs`, region), checked against the memory map.
    pub spaces: Vec<(usize, &'static str)>,
}

impl ThreadState {
    pub fn new(init_regs: Vec<(String, i64)>, flow: Flow) -> Self {
        ThreadState {
            instrs: Vec::new(),
            init_regs,
            flow,
            skips: 0,
            spaces: Vec::new(),
        }
    }
}

/// Appends the instructions of one cell to its thread.
pub(super) fn lower(
    src: &Source,
    locs: &mut Locs,
    th: &mut ThreadState,
    cell: &Cell,
) -> Result<()> {
    for &(l, off) in &cell.labels {
        th.flow.label(l);
        th.instrs.push(Instr::new(
            InstrKind::Label(l.to_string()),
            Vec::new(),
            src.pos(off),
            format!("{l}:"),
        ));
    }
    let Some(ins) = &cell.ins else { return Ok(()) };
    let at = At { src, ins };
    match cell.guard {
        Some(g) if ins.parts[0] == "bra" => {
            let target = at.branch_target()?;
            guard_value(src, th, &g)?;
            th.flow.jump(&target, false, src.pos(g.off))?;
            th.instrs.push(Instr::new(
                InstrKind::Branch {
                    // `@p bra L` jumps when p is non-zero.
                    op: if g.negated { CmpOp::Eq } else { CmpOp::Ne },
                    a: Operand::Reg(g.reg.to_string()),
                    b: Operand::Const(0),
                    target,
                },
                Vec::new(),
                src.pos(g.off),
                format!("{} {}", g.text, ins.text),
            ));
            Ok(())
        }
        Some(g) => {
            // `@p ins` skips `ins` when p is zero.
            guard_value(src, th, &g)?;
            let skip = format!("%skip{}", th.skips);
            th.skips += 1;
            th.flow.jump(&skip, false, src.pos(g.off))?;
            th.instrs.push(Instr::new(
                InstrKind::Branch {
                    op: if g.negated { CmpOp::Ne } else { CmpOp::Eq },
                    a: Operand::Reg(g.reg.to_string()),
                    b: Operand::Const(0),
                    target: skip.clone(),
                },
                Vec::new(),
                src.pos(g.off),
                g.text.to_string(),
            ));
            instruction(&at, locs, th)?;
            th.flow.label(&skip);
            th.instrs.push(Instr::new(
                InstrKind::Label(skip),
                Vec::new(),
                src.pos(ins.off),
                String::new(),
            ));
            Ok(())
        }
        None => instruction(&at, locs, th),
    }
}

/// The guard's register must hold a value.
fn guard_value(src: &Source, th: &ThreadState, g: &Guard) -> Result<()> {
    match th.flow.facts().get(g.reg) {
        None => Ok(()),
        Some(_) => Err(src.err_unsupported(
            g.off,
            format!("`{}` holds an address, not a predicate", g.reg),
        )),
    }
}

/// The instruction being lowered, for positions and messages.
struct At<'s, 'a> {
    src: &'s Source<'a>,
    ins: &'s Ins<'a>,
}

impl At<'_, '_> {
    fn pos(&self) -> crate::ir::Pos {
        self.src.pos(self.ins.off)
    }

    fn unsupported(&self) -> Error {
        self.src.err_unsupported(
            self.ins.off,
            format!(
                "PTX instruction `{}`",
                crate::diag::excerpt(self.ins.mnemonic)
            ),
        )
    }

    fn qual_off(&self, q: &str) -> usize {
        self.src.offset_of(q).saturating_sub(1).max(self.ins.off)
    }

    fn qual_unsupported(&self, q: &str) -> Error {
        self.src.err_unsupported(
            self.qual_off(q),
            format!(
                "qualifier `.{}` in PTX instruction `{}`",
                crate::diag::excerpt(q),
                crate::diag::excerpt(self.ins.mnemonic)
            ),
        )
    }

    fn qual_syntax(&self, q: &str, msg: impl Into<String>) -> Error {
        self.src.err_syntax(self.qual_off(q), msg)
    }

    fn syntax(&self, msg: impl Into<String>) -> Error {
        self.src.err_syntax(self.ins.off, msg)
    }

    fn arity(&self, allowed: usize) -> Result<()> {
        let n = self.ins.args.len();
        if n == allowed {
            return Ok(());
        }
        Err(self.syntax(format!(
            "`{}` takes {allowed} operand{}, found {n}",
            self.ins.mnemonic,
            if allowed == 1 { "" } else { "s" }
        )))
    }

    fn reg<'b>(&self, a: &Arg<'b>) -> Result<&'b str> {
        match a.v {
            Opd::Reg(r) => Ok(r),
            _ => Err(self
                .src
                .err_syntax(a.off, format!("expected a register, found `{}`", a.text))),
        }
    }

    fn branch_target(&self) -> Result<String> {
        let ins = self.ins;
        if let Some(q) = ins.parts.get(1) {
            if *q != "uni" || ins.parts.len() > 2 {
                return Err(self.qual_unsupported(ins.parts[ins.parts.len() - 1]));
            }
        }
        self.arity(1)?;
        match ins.args[0].v {
            Opd::Name(l) => Ok(l.to_string()),
            _ => Err(self.src.err_syntax(
                ins.args[0].off,
                format!("expected a label, found `{}`", ins.args[0].text),
            )),
        }
    }
}

/// A register or immediate holding a value (an address is refused).
fn value(at: &At, th: &ThreadState, a: &Arg) -> Result<Operand> {
    match a.v {
        Opd::Imm(v) => Ok(Operand::Const(v)),
        Opd::Reg(r) => {
            if th.flow.facts().get(r).is_some() {
                return Err(at.src.err_unsupported(
                    a.off,
                    format!(
                        "`{}` uses the address in `{r}` as a value (only `add`, `sub`, \
                         `mov` and `cvt` may compute with addresses)",
                        at.ins.mnemonic
                    ),
                ));
            }
            Ok(Operand::Reg(r.to_string()))
        }
        _ => Err(at.src.err_syntax(
            a.off,
            format!("expected a register or an integer, found `{}`", a.text),
        )),
    }
}

/// The location an address operand reaches.
fn address(at: &At, locs: &mut Locs, th: &ThreadState, a: &Arg) -> Result<Addr> {
    match a.v {
        Opd::AtLoc(name) => Ok(Addr::Fixed(locs.use_loc(name))),
        Opd::AtReg(r) => match th.flow.facts().get(r) {
            Some(Fact::Addr { base, zero: true }) => Ok(Addr::Fixed(base)),
            Some(Fact::Addr { base, zero: false }) => Ok(Addr::Indexed(Box::new(Indexed {
                index: Operand::Reg(r.to_string()),
                cells: vec![base],
                array: locs.list[base].name.clone(),
            }))),
            Some(Fact::Mixed) => Err(at.src.err_unsupported(
                a.off,
                format!("`{r}` may hold the addresses of different locations here"),
            )),
            None => Err(at.src.err_semantic(
                a.off,
                format!(
                    "`{r}` does not hold an address here (give it one in the initial \
                     block: `0: .reg .b64 {r} = x;`)"
                ),
            )),
        },
        Opd::Name(n) => Err(at.src.err_syntax(
            a.off,
            format!("expected an address `[r1]` or `[{n}]`, found `{n}`"),
        )),
        _ => Err(at.src.err_syntax(
            a.off,
            format!("expected an address `[r1]` or `[x]`, found `{}`", a.text),
        )),
    }
}

fn push(at: &At, th: &mut ThreadState, kind: InstrKind, tags: Vec<String>) {
    let mut ins = Instr::new(kind, tags, at.pos(), at.ins.text.to_string());
    crate::tagging::finish(Arch::Ptx, &mut ins);
    th.instrs.push(ins);
}

fn instruction(at: &At, locs: &mut Locs, th: &mut ThreadState) -> Result<()> {
    let ins = at.ins;
    match ins.parts[0] {
        "ld" | "st" | "atom" | "red" => memory(at, locs, th),
        "membar" | "fence" | "bar" | "barrier" => {
            let args = ins
                .args
                .iter()
                .map(|a| {
                    let v = match a.v {
                        Opd::Reg(r) => Opnd::Reg(r),
                        Opd::Imm(v) => Opnd::Int(v),
                        Opd::Name(n) => Opnd::Name(n),
                        Opd::AtReg(_) | Opd::AtLoc(_) => {
                            return Err(at.src.err_syntax(
                                a.off,
                                format!("unexpected address operand `{}`", a.text),
                            ))
                        }
                    };
                    Ok(DatArg {
                        v,
                        off: a.off,
                        text: a.text,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let mut cx = Cx {
                src: at.src,
                locs,
                arch: Arch::Ptx,
                mnemonic: ins.mnemonic,
                off: ins.off,
            };
            let (kind, tags) = ptx::instr(&mut cx, &ins.parts, &args)?;
            push(at, th, kind, tags);
            Ok(())
        }
        "bra" => {
            let target = at.branch_target()?;
            th.flow.jump(&target, true, at.pos())?;
            push(at, th, InstrKind::Goto(target), Vec::new());
            Ok(())
        }
        "setp" => setp(at, th),
        _ => local(at, locs, th),
    }
}

/// Qualifiers of a memory instruction, by kind.
#[derive(Default)]
struct MemQuals<'q> {
    /// `None` for `.volatile`.
    order: Option<(Option<Order>, &'q str)>,
    scope: Option<(&'static str, &'q str)>,
    space: Option<(&'static str, &'q str)>,
    cache: Option<(&'static str, &'q str)>,
    ty: Option<&'q str>,
    op: Option<(RmwOp, &'q str)>,
}

fn cache_tag(q: &str) -> Option<&'static str> {
    Some(match q {
        "ca" => "CA",
        "cg" => "CG",
        "cs" => "CS",
        "cv" => "CV",
        "lu" => "LU",
        "wb" => "WB",
        "wt" => "WT",
        _ => return None,
    })
}

/// Atomic operations of the PTX ISA (`inc`/`dec` wrap around a bound the
/// IR has no operation for).
fn rmw_op(q: &str) -> Option<RmwOp> {
    Some(match q {
        "exch" => RmwOp::Exch,
        "cas" => RmwOp::Cas {
            expected: Operand::Const(0),
        },
        "add" => RmwOp::Add,
        "and" => RmwOp::And,
        "or" => RmwOp::Or,
        "xor" => RmwOp::Xor,
        "min" => RmwOp::Min,
        "max" => RmwOp::Max,
        _ => return None,
    })
}

fn mem_quals<'q>(at: &At, parts: &[&'q str], rmw: bool) -> Result<MemQuals<'q>> {
    let mut m = MemQuals::default();
    let mn = at.ins.mnemonic;
    let twice = |q: &str, what: &str| at.qual_syntax(q, format!("more than one {what} in `{mn}`"));
    for &q in parts {
        let order = match q {
            "weak" => Some(Some(Order::Weak)),
            "relaxed" => Some(Some(Order::Relaxed)),
            "acquire" => Some(Some(Order::Acquire)),
            "release" => Some(Some(Order::Release)),
            "acq_rel" => Some(Some(Order::AcqRel)),
            "volatile" => Some(None),
            _ => None,
        };
        if let Some(o) = order {
            if m.order.is_some() {
                return Err(twice(q, "memory order"));
            }
            m.order = Some((o, q));
        } else if let Some(s) = scope_tag(q) {
            if m.scope.is_some() {
                return Err(twice(q, "scope"));
            }
            m.scope = Some((s, q));
        } else if matches!(q, "global" | "shared") {
            if m.space.is_some() {
                return Err(twice(q, "state space"));
            }
            m.space = Some((if q == "global" { "global" } else { "shared" }, q));
        } else if let (false, Some(c)) = (rmw, cache_tag(q)) {
            if m.cache.is_some() {
                return Err(twice(q, "cache operator"));
            }
            m.cache = Some((c, q));
        } else if matches!(q, "b32" | "s32" | "u32" | "b64" | "s64" | "u64") {
            if m.ty.is_some() {
                return Err(twice(q, "type"));
            }
            m.ty = Some(q);
        } else if let (true, Some(op)) = (rmw, rmw_op(q)) {
            if m.op.is_some() {
                return Err(twice(q, "operation"));
            }
            m.op = Some((op, q));
        } else {
            return Err(at.qual_unsupported(q));
        }
    }
    Ok(m)
}

/// `ld`, `st`, `atom`, `red`.
fn memory(at: &At, locs: &mut Locs, th: &mut ThreadState) -> Result<()> {
    let ins = at.ins;
    let head = ins.parts[0];
    let rmw = matches!(head, "atom" | "red");
    let q = mem_quals(at, &ins.parts[1..], rmw)?;
    let allowed: &[Option<Order>] = match head {
        "ld" => &[
            Some(Order::Weak),
            Some(Order::Relaxed),
            Some(Order::Acquire),
            None,
        ],
        "st" => &[
            Some(Order::Weak),
            Some(Order::Relaxed),
            Some(Order::Release),
            None,
        ],
        "atom" => &[
            Some(Order::Relaxed),
            Some(Order::Acquire),
            Some(Order::Release),
            Some(Order::AcqRel),
        ],
        _ => &[Some(Order::Relaxed), Some(Order::Release)],
    };
    let order = match q.order {
        Some((o, w)) if !allowed.contains(&o) => {
            return Err(at.qual_syntax(w, format!("`.{w}` is not a memory order of `{head}`")))
        }
        Some((o, _)) => o,
        None if rmw => Some(Order::Relaxed),
        None => Some(Order::Weak),
    };
    let strong_scope = matches!(
        order,
        Some(Order::Relaxed | Order::Acquire | Order::Release | Order::AcqRel)
    );
    let scope = match (q.scope, strong_scope) {
        (Some((_, w)), false) => {
            return Err(at.qual_syntax(w, "weak and volatile accesses take no scope"))
        }
        (Some((s, _)), true) => Some(s),
        (None, true) if rmw => Some("GPU"),
        (None, true) => {
            return Err(at.syntax(format!(
                "`{}` needs a scope (`.cta`, `.gpu` or `.sys`)",
                ins.mnemonic
            )))
        }
        (None, false) => None,
    };
    if let Some((_, w)) = q.cache {
        if order != Some(Order::Weak) {
            return Err(at.qual_syntax(
                w,
                "cache operators apply only to weak accesses (PTX ISA: `ld{.weak}{.ss}{.cop}`)",
            ));
        }
        let ok = match head {
            "ld" => matches!(w, "ca" | "cg" | "cs" | "lu" | "cv"),
            _ => matches!(w, "wb" | "cg" | "cs" | "wt"),
        };
        if !ok {
            let kind = if head == "ld" { "store" } else { "load" };
            return Err(at.qual_syntax(w, format!("`.{w}` is a {kind} cache operator")));
        }
    }
    let mut tags = Tags::default();
    match order {
        // PTX ISA, memory consistency model: a volatile operation is a
        // relaxed one at system scope.
        None => tags.extend(&["RLX", "SYS", "VOLATILE"]),
        Some(o) => tags.extend(o.tags()),
    }
    if let Some(s) = scope {
        tags.add(s);
    }
    if let Some((c, _)) = q.cache {
        tags.add(c);
    }
    tags.add("GEN");
    let kind = match head {
        "ld" => {
            at.arity(2)?;
            let dst = at.reg(&ins.args[0])?;
            let addr = address(at, locs, th, &ins.args[1])?;
            th.flow.set(dst, None);
            InstrKind::Load {
                dst: dst.to_string(),
                addr,
            }
        }
        "st" => {
            at.arity(2)?;
            let addr = address(at, locs, th, &ins.args[0])?;
            InstrKind::Store {
                addr,
                value: value(at, th, &ins.args[1])?,
            }
        }
        _ => {
            let Some((op, w)) = q.op else {
                return Err(at.syntax(format!(
                    "`{}` needs an operation (`.add`, `.exch`, `.cas`, …)",
                    ins.mnemonic
                )));
            };
            let cas = matches!(op, RmwOp::Cas { .. });
            if head == "red" && (cas || op == RmwOp::Exch) {
                return Err(at.qual_syntax(w, format!("`red` cannot perform `.{w}`")));
            }
            let (dst, rest) = if head == "atom" {
                at.arity(if cas { 4 } else { 3 })?;
                (Some(at.reg(&ins.args[0])?), &ins.args[1..])
            } else {
                at.arity(2)?;
                (None, &ins.args[..])
            };
            let addr = address(at, locs, th, &rest[0])?;
            let (op, operand) = if cas {
                (
                    RmwOp::Cas {
                        expected: value(at, th, &rest[1])?,
                    },
                    value(at, th, &rest[2])?,
                )
            } else {
                (op, value(at, th, &rest[1])?)
            };
            if let Some(d) = dst {
                th.flow.set(d, None);
            }
            InstrKind::Rmw {
                dst: dst.map(str::to_string),
                addr,
                op,
                operand,
            }
        }
    };
    if let Some((space, _)) = q.space {
        th.spaces.push((th.instrs.len(), space));
    }
    push(at, th, kind, tags.into_vec());
    Ok(())
}

/// Signedness of an integer type qualifier.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sign {
    Signed,
    /// `.u*`, `.b*`, `.pred`.
    Unsigned,
}

fn int_type(q: &str) -> Option<Sign> {
    if q == "pred" {
        return Some(Sign::Unsigned);
    }
    let sign = match q.as_bytes().first() {
        Some(b's') => Sign::Signed,
        Some(b'u' | b'b') => Sign::Unsigned,
        _ => return None,
    };
    matches!(&q[1..], "8" | "16" | "32" | "64").then_some(sign)
}

/// The type qualifiers of `parts` (after any `skip`ped modifiers), at most
/// `max` of them; anything else is refused.
fn types<'q>(at: &At, parts: &[&'q str], max: usize) -> Result<Vec<(Sign, &'q str)>> {
    let mut out = Vec::new();
    for &q in parts {
        let Some(s) = int_type(q) else {
            return Err(at.qual_unsupported(q));
        };
        if out.len() == max {
            return Err(at.qual_syntax(q, format!("too many types in `{}`", at.ins.mnemonic)));
        }
        out.push((s, q));
    }
    Ok(out)
}

/// `setp.cmp.type p, a, b`.
fn setp(at: &At, th: &mut ThreadState) -> Result<()> {
    let ins = at.ins;
    let Some(&cmp) = ins.parts.get(1) else {
        return Err(at.syntax("`setp` needs a comparison (`.eq`, `.ne`, `.lt`, …) and a type"));
    };
    let ty = types(at, &ins.parts[2..], 1)?;
    let signed = ty.first().is_none_or(|(s, _)| *s == Sign::Signed);
    let Some(op) = crate::ptx::ast::int_compare(cmp, signed) else {
        return Err(at.qual_unsupported(cmp));
    };
    at.arity(3)?;
    let dst = at.reg(&ins.args[0])?;
    let a = value(at, th, &ins.args[1])?;
    let b = value(at, th, &ins.args[2])?;
    th.flow.set(dst, None);
    push(
        at,
        th,
        InstrKind::Local {
            dst: dst.to_string(),
            op,
            a,
            b,
        },
        Vec::new(),
    );
    Ok(())
}

/// Register arithmetic, `mov` and `cvt`.
fn local(at: &At, locs: &mut Locs, th: &mut ThreadState) -> Result<()> {
    let ins = at.ins;
    let head = ins.parts[0];
    let mut quals = &ins.parts[1..];
    // `mul.lo` is the low half of the product: the product itself here.
    match (head, quals.first()) {
        ("mul", Some(&"lo")) => quals = &quals[1..],
        ("mul", Some(&q @ ("hi" | "wide"))) => return Err(at.qual_unsupported(q)),
        _ => {}
    }
    let binop = |s: Sign| {
        Some(match head {
            "add" => BinOp::Add,
            "sub" => BinOp::Sub,
            "mul" => BinOp::Mul,
            "div" if s == Sign::Signed => BinOp::Div,
            "div" => BinOp::Udiv,
            "rem" if s == Sign::Signed => BinOp::Rem,
            "rem" => BinOp::Urem,
            "and" => BinOp::And,
            "or" => BinOp::Or,
            "xor" => BinOp::Xor,
            "shl" => BinOp::Shl,
            "shr" if s == Sign::Signed => BinOp::Shr,
            "shr" => BinOp::Lshr,
            _ => return None,
        })
    };
    let unary = matches!(head, "mov" | "cvt" | "not" | "neg");
    if !unary && binop(Sign::Signed).is_none() {
        return Err(at.unsupported());
    }
    let ty = types(at, quals, if head == "cvt" { 2 } else { 1 })?;
    at.arity(if unary { 2 } else { 3 })?;
    let dst = at.reg(&ins.args[0])?.to_string();
    let fact = |a: &Arg| match a.v {
        Opd::Reg(r) => th.flow.facts().get(r),
        _ => None,
    };
    let (kind, dst_fact) = match head {
        "mov" | "cvt" => match ins.args[1].v {
            // `mov r, x`: the address of location `x`, offset 0.
            Opd::Name(x) if head == "mov" => (
                assign(dst.clone(), Operand::Const(0)),
                Some(Fact::Addr {
                    base: locs.use_loc(x),
                    zero: true,
                }),
            ),
            // A copy keeps what the register holds, address or value.
            Opd::Reg(r) => (
                assign(dst.clone(), Operand::Reg(r.to_string())),
                fact(&ins.args[1]),
            ),
            _ => (assign(dst.clone(), value(at, th, &ins.args[1])?), None),
        },
        "neg" => (
            InstrKind::Local {
                dst: dst.clone(),
                op: BinOp::Sub,
                a: Operand::Const(0),
                b: value(at, th, &ins.args[1])?,
            },
            None,
        ),
        "not" => {
            // A predicate's complement is 1 - p; a word's flips every bit.
            let pred = ty.first().is_some_and(|(_, t)| *t == "pred");
            (
                InstrKind::Local {
                    dst: dst.clone(),
                    op: BinOp::Xor,
                    a: value(at, th, &ins.args[1])?,
                    b: Operand::Const(if pred { 1 } else { -1 }),
                },
                None,
            )
        }
        _ => {
            let sign = ty.first().map_or(Sign::Signed, |(s, _)| *s);
            let op = binop(sign).ok_or_else(|| at.unsupported())?;
            let (x, y) = (&ins.args[1], &ins.args[2]);
            // Address arithmetic: an address plus a value (either order)
            // or minus a value; the IR computes the offset (`flow`).
            let dst_fact = match (op, fact(x), fact(y)) {
                (BinOp::Add | BinOp::Sub, Some(f), None) => Some(offset_fact(f, y)),
                (BinOp::Add, None, Some(f)) => Some(offset_fact(f, x)),
                (_, None, None) => None,
                // The operand that may not be an address says why.
                (_, Some(_), _) => {
                    value(at, th, x)?;
                    value(at, th, y)?;
                    None
                }
                (_, None, Some(_)) => {
                    value(at, th, y)?;
                    None
                }
            };
            let operand = |a: &Arg| match a.v {
                Opd::Reg(r) => Ok(Operand::Reg(r.to_string())),
                _ => value(at, th, a),
            };
            (
                InstrKind::Local {
                    dst: dst.clone(),
                    op,
                    a: operand(x)?,
                    b: operand(y)?,
                },
                dst_fact,
            )
        }
    };
    th.flow.set(&dst, dst_fact);
    push(at, th, kind, Vec::new());
    Ok(())
}

/// The fact for an address plus or minus `other` (a value).
fn offset_fact(f: Fact, other: &Arg) -> Fact {
    match f {
        Fact::Addr { base, zero } => Fact::Addr {
            base,
            zero: zero && matches!(other.v, Opd::Imm(0)),
        },
        Fact::Mixed => Fact::Mixed,
    }
}
