//! Work-group and sub-group collectives with their values: `OpGroupIAdd`,
//! `OpGroupSMin` … `OpGroupUMax` (reduce, inclusive and exclusive scan),
//! `OpGroupBroadcast`, `OpGroupAll`, `OpGroupAny` — OpenCL C 2.0's
//! `work_group_reduce_add`, `work_group_broadcast`, `sub_group_any`, …
//! (docs/SPIRV.md, "Collectives").
//!
//! Every invocation of the scope must reach the instruction (SPIR-V:
//! "all invocations of this module within Execution must reach this
//! point"); it orders no memory. Model, as the PTX warp collectives
//! (`ptx/lower/collective.rs`): each participant stores its value in its
//! own slot of a hidden Workgroup array (`declare_exchange`), tagged with
//! the instance of the exchange (the scope's barrier counter, from 1),
//! passes a control barrier *without* memory semantics — the engines
//! match it like any barrier, so an invocation that does not reach the
//! collective is barrier divergence, and it adds no order (the models
//! order memory across a barrier only through its semantics) — then loads
//! the slots it needs, assuming each holds this exchange: a load that
//! reads an older one (no happens-before makes the stores visible) is an
//! execution ruled out. The slots are relaxed atomics at workgroup scope:
//! never a race. The generic invocation (the parametric engine) stores
//! and loads its own slot: a value other invocations write, arbitrary to
//! that engine, which confirms nothing that depends on it.

use super::super::lex::{self, Line};
use super::super::module::Class;
use super::super::tags::{self, Access, Tags};
use super::super::value::{Ptr, Region, Val};
use super::address::PtrArg;
use super::{Lowerer, Op2, State, R};
use crate::diag::{Error, Result};
use crate::ir::{BinOp, CmpOp, Instr, InstrKind, Operand};
use std::rc::Rc;

/// The collectives gpumc computes.
pub(in super::super) const OPS: &[&str] = &[
    "OpGroupIAdd",
    "OpGroupFAdd",
    "OpGroupSMin",
    "OpGroupUMin",
    "OpGroupFMin",
    "OpGroupSMax",
    "OpGroupUMax",
    "OpGroupFMax",
    "OpGroupBroadcast",
    "OpGroupAll",
    "OpGroupAny",
];

/// The hidden slot arrays' ids: one for work-group, one for sub-group
/// exchanges (the invocations of a subgroup are consecutive local ids).
const SLOTS: [&str; 2] = ["gpumc.exchange.workgroup", "gpumc.exchange.subgroup"];

/// The prefix of the slot arrays' ids (their cells are named with
/// [`crate::ir::HIDDEN_PREFIX`], not listed in final states).
pub(in super::super) const HIDDEN_ID_PREFIX: &str = "gpumc.exchange.";

/// Declares the slot arrays, one 8-byte slot per invocation of a
/// workgroup of `wg_size`, zero-initialised, before the first function,
/// when the module uses a collective.
pub(in super::super) fn declare_exchange(mut lines: Vec<Line>, wg_size: u32) -> Result<Vec<Line>> {
    if !lines.iter().any(|l| OPS.contains(&l.opcode.as_str())) {
        return Ok(lines);
    }
    let Some(at) = lines.iter().position(|l| l.opcode == "OpFunction") else {
        return Ok(lines);
    };
    let mut text = format!(
        "%gpumc.u32 = OpTypeInt 32 0\n\
         %gpumc.u64 = OpTypeInt 64 0\n\
         %gpumc.n = OpConstant %gpumc.u32 {wg_size}\n\
         %gpumc.slots = OpTypeArray %gpumc.u64 %gpumc.n\n\
         %gpumc.ptr = OpTypePointer Workgroup %gpumc.slots\n\
         %gpumc.zero = OpConstantNull %gpumc.slots\n"
    );
    for s in SLOTS {
        text.push_str(&format!(
            "%{s} = OpVariable %gpumc.ptr Workgroup %gpumc.zero\n"
        ));
    }
    let line_no = lines[at].line;
    let mut extra = lex::lex(&text)?;
    for l in &mut extra {
        l.line = line_no;
    }
    lines.splice(at..at, extra);
    Ok(lines)
}

/// What a collective computes from the participants' values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Combine {
    /// An arithmetic operation: reduce, inclusive or exclusive scan.
    Fold(Op2, Scan),
    /// The value of the participant a local id names.
    Broadcast,
    /// A float operation: not computed (an arbitrary value, as every
    /// float result).
    Float,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    Reduce,
    Inclusive,
    Exclusive,
}

impl Lowerer<'_, '_> {
    /// `OpGroup…` at line `li`.
    pub(super) fn group_op(
        &mut self,
        st: &mut State,
        li: usize,
        op: &str,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let m = self.m;
        let pos = self.pos();
        let exec = self.known(st, li, 1, "execution scope")?;
        let g = m.settings.grid;
        let (level, size, first) = match exec {
            2 => (0, g.wg_size(), 0),
            3 => (1, g.threads_per_sg, self.inv.sg * g.threads_per_sg),
            _ => {
                return Err(Error::unsupported(
                    m.arg_pos(li, 1),
                    format!(
                        "`{op}` with execution scope {exec} (Workgroup and Subgroup are supported)"
                    ),
                )
                .into())
            }
        };
        let rty = m.arg_id(li, 0)?;
        let (w, lanes) = self.elem_width(rty, pos)?;
        if lanes.is_some() || w > 32 {
            return Err(Error::unsupported(
                pos,
                format!("`{op}` of a vector or of more than 32 bits"),
            )
            .into());
        }
        let scan = |k: usize| -> R<Scan> {
            match m.arg_word(li, k)?.as_str() {
                "Reduce" => Ok(Scan::Reduce),
                "InclusiveScan" => Ok(Scan::Inclusive),
                "ExclusiveScan" => Ok(Scan::Exclusive),
                other => Err(Error::unsupported(
                    m.arg_pos(li, k),
                    format!("group operation `{other}`"),
                )
                .into()),
            }
        };
        let (combine, value_at) = match op {
            "OpGroupIAdd" => (Combine::Fold(Op2::IAdd, scan(2)?), 3),
            "OpGroupSMin" => (Combine::Fold(Op2::SMin, scan(2)?), 3),
            "OpGroupUMin" => (Combine::Fold(Op2::UMin, scan(2)?), 3),
            "OpGroupSMax" => (Combine::Fold(Op2::SMax, scan(2)?), 3),
            "OpGroupUMax" => (Combine::Fold(Op2::UMax, scan(2)?), 3),
            "OpGroupFAdd" | "OpGroupFMin" | "OpGroupFMax" => {
                scan(2)?;
                (Combine::Float, 3)
            }
            "OpGroupAll" => (Combine::Fold(Op2::And, Scan::Reduce), 2),
            "OpGroupAny" => (Combine::Fold(Op2::Or, Scan::Reduce), 2),
            _ => (Combine::Broadcast, 2),
        };
        let value = self.arg(st, li, value_at)?;
        let source = match combine {
            Combine::Broadcast => {
                let id = self.arg(st, li, 3)?;
                if matches!(id, Val::Comp(_)) {
                    return Err(Error::unsupported(
                        m.arg_pos(li, 3),
                        "a broadcast from a local id of several dimensions",
                    )
                    .into());
                }
                Some(id)
            }
            _ => None,
        };
        // A local id outside the scope is undefined behaviour (in the
        // generic translation too: both engines report it).
        if let Some(id) = &source {
            let t = self.fresh_tmp();
            let inside = self.local(out, &t, BinOp::Ult, id, &Val::Int(i64::from(size)))?;
            let cause =
                format!("a broadcast from a local id outside the {size} invocations of its scope");
            self.unless(&inside, InstrKind::Unreachable { cause: Some(cause) }, out)?;
        }
        // The instance: this scope's barrier counter, from 1.
        let counter = st.bar[level].clone();
        let t = self.fresh_tmp();
        let tag = self.local(out, &t, BinOp::Add, &counter, &Val::Int(1))?;
        let var = m
            .lookup(SLOTS[level])
            .ok_or_else(|| Error::semantic(pos, "the exchange slots were not declared"))?;
        let generic = self.generic.is_some();
        let me = if generic { 0 } else { self.inv.local };
        let low = self.fresh_tmp();
        let low = self.zext_v(out, &low, value, 32)?;
        let t = self.fresh_tmp();
        let high = self.local(out, &t, BinOp::Shl, &tag, &Val::Int(32))?;
        let t = self.fresh_tmp();
        let word = self.local(out, &t, BinOp::Or, &high, &low)?;
        let addr = self.slot_addr(var, me, out)?;
        let value = self.opnd(&word)?;
        self.push(
            out,
            InstrKind::Store { addr, value },
            slot_tags(Access::Store, pos)?,
        )?;
        // (not `CBAR`: no fence synchronises through it)
        self.barrier_instance(st, level, size, vec!["B".into()], out)?;
        if combine == Combine::Float {
            return self.free_result(st, li, out);
        }
        let result = if generic {
            // (Not the others' values: one a copy of the thread can see.)
            let w64 = self.slot_load(var, me, out)?;
            let d = self.fresh_tmp();
            let v = self.sext_v(out, &d, w64, 32)?;
            if w == 1 {
                let d = self.fresh_tmp();
                self.local(out, &d, BinOp::And, &v, &Val::Int(1))?
            } else {
                v
            }
        } else {
            // The participants in this invocation's order.
            let lane = me - first;
            let wanted: Vec<u32> = match (combine, &source) {
                (Combine::Fold(_, Scan::Inclusive), _) => (0..=lane).collect(),
                (Combine::Fold(_, Scan::Exclusive), _) => (0..lane).collect(),
                (Combine::Broadcast, Some(Val::Int(k))) => u32::try_from(*k)
                    .ok()
                    .filter(|&k| k < size)
                    .into_iter()
                    .collect(),
                _ => (0..size).collect(),
            };
            let mut values = Vec::new();
            for &j in &wanted {
                let word = self.slot_load(var, first + j, out)?;
                let t = self.fresh_tmp();
                let got = self.local(out, &t, BinOp::Lshr, &word, &Val::Int(32))?;
                let t = self.fresh_tmp();
                let here = self.local(out, &t, BinOp::Eq, &got, &tag)?;
                self.unless(&here, InstrKind::Infeasible, out)?;
                let t = self.fresh_tmp();
                values.push(self.sext_v(out, &t, word, 32)?);
            }
            match (combine, source) {
                (Combine::Fold(op, scan), _) => {
                    let mut acc = if scan == Scan::Exclusive {
                        identity(op, w)
                    } else {
                        values.remove(0)
                    };
                    for v in values {
                        let d = self.fresh_tmp();
                        acc = self.scalar2(out, &d, op, &acc, &v, w)?;
                    }
                    acc
                }
                (_, Some(id)) => self.broadcast(id, &wanted, values, out)?,
                _ => unreachable!("a broadcast has a source"),
            }
        };
        let d = self.fresh(m.result(li)?);
        self.mov(out, &d, &result)?;
        self.bind(st, li, Val::Reg(d))
    }

    /// The value of the participant local id `id` names (`values` are
    /// those of `wanted`; an id outside the scope was ruled out).
    fn broadcast(
        &mut self,
        id: Val,
        wanted: &[u32],
        values: Vec<Val>,
        out: &mut Vec<Instr>,
    ) -> R<Val> {
        if let Val::Int(_) = id {
            return Ok(values.into_iter().next().unwrap_or(Val::Int(0)));
        }
        let mut acc = Val::Int(0);
        for (&j, v) in wanted.iter().zip(values) {
            let t = self.fresh_tmp();
            let is = self.local(out, &t, BinOp::Eq, &id, &Val::Int(i64::from(j)))?;
            let d = self.fresh_tmp();
            acc = self.select(out, &d, &is, &v, &acc, 0)?;
        }
        Ok(acc)
    }

    /// `kind` (a stop: undefined behaviour, or an execution ruled out)
    /// where `c` is 0.
    fn unless(&mut self, c: &Val, kind: InstrKind, out: &mut Vec<Instr>) -> R<()> {
        match c {
            Val::Int(0) => self.push(out, kind, vec![]),
            Val::Int(_) => Ok(()),
            _ => {
                self.edges += 1;
                let ok = format!("E{}", self.edges);
                let a = self.opnd(c)?;
                let branch = InstrKind::Branch {
                    op: CmpOp::Ne,
                    a,
                    b: Operand::Const(0),
                    target: ok.clone(),
                };
                self.push(out, branch, vec![])?;
                self.push(out, kind, vec![])?;
                self.push(out, InstrKind::Label(ok), vec![])
            }
        }
    }

    /// The address of slot `k` of the hidden array `var` (this
    /// invocation's workgroup's copy).
    fn slot_addr(&mut self, var: u32, k: u32, out: &mut Vec<Instr>) -> R<crate::ir::Addr> {
        let p = PtrArg::Static(Ptr {
            region: Region::Shared {
                var,
                copy: self.inv.wg,
            },
            offset: 8 * u64::from(k),
        });
        self.mem_addr(&p, 0, 64, out)
    }

    /// The 64-bit word in slot `k` of `var`.
    fn slot_load(&mut self, var: u32, k: u32, out: &mut Vec<Instr>) -> R<Val> {
        let addr = self.slot_addr(var, k, out)?;
        let dst: Rc<str> = self.fresh_tmp();
        let tags = slot_tags(Access::Load, self.pos())?;
        self.push(
            out,
            InstrKind::Load {
                dst: dst.to_string(),
                addr,
            },
            tags,
        )?;
        Ok(Val::Reg(dst))
    }
}

/// The tags of a slot access: a relaxed atomic at workgroup scope on
/// Workgroup storage.
fn slot_tags(acc: Access, pos: crate::ir::Pos) -> Result<Vec<String>> {
    let sem = tags::semantics(0, pos)?;
    let mut t = Tags::default();
    t.extend(&["ATOM", "A", "NONPRIV"]);
    tags::order_tags(&mut t, sem, acc);
    if let Some(s) = tags::scope_tag(2, pos)? {
        t.add(s);
    }
    t.add(tags::class_tag(Class::Workgroup));
    tags::sem_tags(&mut t, sem);
    Ok(t.0)
}

/// The identity of `op` at width `w` (an exclusive scan's first value:
/// SPIR-V's, 0 for an addition, the largest value for a minimum, …).
fn identity(op: Op2, w: u32) -> Val {
    let top = 1i64 << (w.clamp(2, 32) - 1);
    Val::Int(match op {
        Op2::SMin => top - 1,
        Op2::SMax => -top,
        // (all ones, sign-extended)
        Op2::UMin => -1,
        _ => 0,
    })
}
