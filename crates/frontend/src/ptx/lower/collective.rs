//! Warp-level exchange (`vote.sync`, `shfl.sync`, `redux.sync`) and the
//! reduction of `bar.red` (`__syncthreads_or` and its kin), with their
//! values (docs/PTX-KERNELS.md, "Warp collectives").
//!
//! The threads of a *group* (the lanes a constant member mask names, or
//! a block at `bar.red` on one barrier) exchange values through hidden
//! shared memory, one 8-byte slot per thread: a participant stores its
//! value with a tag in the high half — how many exchanges of the group
//! it has made, from 1 — and loads the slots of the threads whose
//! values it needs, assuming each holds the same tag, or the tag of a
//! thread that exited before that exchange (stored at the thread's end:
//! an exited thread takes no part, as the PTX ISA says). An execution
//! where a load reads an older or a newer exchange is ruled out, so a
//! thread goes on only once every participant has stored its value:
//! `vote.sync`'s and `shfl.sync`'s waiting. The slots are relaxed atomic
//! accesses at CTA scope: morally strong, so never a race, and a relaxed
//! read-from does not make what either thread did before causally
//! ordered — these instructions do not order memory (only `bar.warp.sync`
//! and the block barriers do; `bar.red` is one, its stores come before
//! the barrier and its loads after).
//!
//! The generic thread (the parametric engine) stores and loads its own
//! slot without tags: a load of a region other threads write is an
//! arbitrary value to that engine, which confirms no race or divergence
//! that depends on it (the concrete engines decide such a launch).

use super::arith::{Arg, V};
use super::memory::{BufKind, Buffer, Contents};
use super::tx::{Tx, TxResult};
use super::value::{BufId, Slot, State, Val};
use crate::diag::Error;
use crate::ir::{BinOp, CmpOp, InstrKind, HIDDEN_PREFIX};
use crate::ptx::ast::{Function, Instr, Operand, Stmt, Type, TypeKind};

/// Who exchanges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// The lanes of a warp that a constant member mask names.
    Warp(u32),
    /// The threads of a block at `bar.red` on barrier `n`.
    Block(u32),
}

/// The tag bit of an exited thread's slot; the low bits count the
/// exchanges of the group it made.
const EXITED: i64 = 1 << 31;

/// The key of a warp group's exchange counter (`Slot::Bar`): above the
/// keys of barrier counters (`n << 32`, warp barriers below 2^62).
const WARP_COUNTER: u64 = 1 << 62;

/// The tags of a slot access: a relaxed atomic at CTA scope.
fn slot_tags() -> Vec<String> {
    ["RLX", "CTA", "GEN"]
        .iter()
        .map(|t| t.to_string())
        .collect()
}

const PRED: Type = Type {
    kind: TypeKind::Pred,
    bits: 1,
};
const B32: Type = Type {
    kind: TypeKind::Bits,
    bits: 32,
};

/// The groups `funcs` exchange in: the constant masks of their
/// `vote.sync`, `shfl.sync` and `redux.sync`, and the barriers of their
/// `bar.red` without a thread count.
pub(super) fn groups<'m>(funcs: impl Iterator<Item = &'m Function>) -> Vec<Group> {
    fn scan(body: &[Stmt], out: &mut Vec<Group>) {
        for s in body {
            match s {
                Stmt::Instr(i) => {
                    if let Some(g) = group_of(i) {
                        if !out.contains(&g) {
                            out.push(g);
                        }
                    }
                }
                Stmt::Block { body, .. } => scan(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for f in funcs {
        scan(f.body.as_deref().unwrap_or_default(), &mut out);
    }
    out
}

/// The group an instruction exchanges in, when gpumc models its values.
fn group_of(i: &Instr) -> Option<Group> {
    let has = |m: &str| i.mods.iter().any(|x| x == m);
    match i.opcode.as_str() {
        "vote" | "shfl" | "redux" if has("sync") => match i.operands.last() {
            Some(Operand::Imm { value, .. }) => Some(Group::Warp(*value as u32)),
            _ => None,
        },
        "bar" if has("red") && i.operands.len() == 3 => match &i.operands[1] {
            Operand::Imm { value, .. } if (0..16).contains(value) => {
                Some(Group::Block(*value as u32))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The hidden buffers of `groups` for blocks of `block_threads` threads.
pub(super) fn buffers(groups: &[Group], block_threads: u32) -> Vec<(Group, Buffer)> {
    let warps = block_threads.div_ceil(32);
    groups
        .iter()
        .map(|&g| {
            let (name, slots) = match g {
                Group::Warp(m) => (format!("{HIDDEN_PREFIX}exchange_mask_{m:#x}"), warps * 32),
                Group::Block(n) => (
                    format!("{HIDDEN_PREFIX}exchange_bar_red_{n}"),
                    block_threads,
                ),
            };
            let b = Buffer {
                name,
                kind: BufKind::Shared,
                size: Some(8 * u64::from(slots)),
                contents: Contents::Zero,
                size_hint: None,
                decl: Some(
                    "gpumc's exchange slots (docs/PTX-KERNELS.md, \"Warp collectives\")".into(),
                ),
                pointers: Vec::new(),
            };
            (g, b)
        })
        .collect()
}

impl Tx<'_, '_> {
    fn block_threads(&self) -> u32 {
        self.th.ntid.iter().product()
    }

    /// The lanes (thread indices in the block) of this thread's warp that
    /// warp group `mask` names and the launch has.
    fn lanes(&self, mask: u32) -> Vec<u32> {
        let warp = self.th.linear / 32;
        (0..32)
            .filter(|l| mask >> l & 1 == 1)
            .map(|l| warp * 32 + l)
            .filter(|&t| t < self.block_threads())
            .collect()
    }

    fn exchange_buffer(&self, g: Group) -> Option<BufId> {
        self.sh
            .exchange
            .iter()
            .find(|(h, _)| *h == g)
            .map(|&(_, b)| b)
    }

    /// The counter of a group's exchanges (a barrier's arrivals, for
    /// `bar.red`) as it stands.
    fn exchanges_so_far(&mut self, st: &State, key: u64) -> Arg {
        let slot = Slot::Bar(key);
        match st.get(&slot) {
            Val::Known(k) => Arg::K(k),
            Val::Undef => Arg::K(0),
            _ => Arg::R(self.slot_reg(&slot)),
        }
    }

    /// One more exchange of warp group `mask`: its tag (from 1).
    fn next_exchange(&mut self, st: &mut State, mask: u32) -> Arg {
        let slot = Slot::Bar(WARP_COUNTER | u64::from(mask));
        match st.get(&slot) {
            Val::Known(k) => {
                st.set(slot, Val::Known(k + 1));
                Arg::K(k + 1)
            }
            Val::Undef => {
                st.set(slot, Val::Known(1));
                Arg::K(1)
            }
            _ => {
                let r = self.slot_reg(&slot);
                let n = self.bin(BinOp::Add, &Arg::R(r.clone()), &Arg::K(1));
                self.emit_move(r, n.ir());
                n
            }
        }
    }

    /// Stores `value` (its low 32 bits) with `tag` in slot `slot` of `buf`.
    fn slot_store(&mut self, buf: BufId, slot: &Arg, tag: &Arg, value: &Arg) -> TxResult<()> {
        let low = self.zext(value, 32);
        let high = self.bin(BinOp::Shl, tag, &Arg::K(32));
        let word = self.bin(BinOp::Or, &high, &low);
        let off = self.bin(BinOp::Mul, slot, &Arg::K(8));
        if let Some(addr) = self.cell_addr(buf, &off, 8, true)? {
            self.emit(
                InstrKind::Store {
                    addr,
                    value: word.ir(),
                },
                slot_tags(),
            );
        }
        Ok(())
    }

    /// The 64-bit word in slot `slot` of `buf`.
    fn slot_load(&mut self, buf: BufId, slot: &Arg) -> TxResult<Arg> {
        let off = self.bin(BinOp::Mul, slot, &Arg::K(8));
        Ok(match self.cell_addr(buf, &off, 8, false)? {
            Some(addr) => {
                let t = self.temp();
                self.emit(
                    InstrKind::Load {
                        dst: t.clone(),
                        addr,
                    },
                    slot_tags(),
                );
                Arg::R(t)
            }
            None => self.havoc(64),
        })
    }

    /// Thread `slot`'s value at exchange `tag`: whether it took part (1)
    /// or had exited (0), and its value (sign-extended from 32 bits).
    /// Executions where the slot holds another exchange are ruled out.
    fn exchanged(&mut self, buf: BufId, slot: &Arg, tag: &Arg) -> TxResult<(Arg, Arg)> {
        self.exchanged_if(buf, slot, tag, &Arg::K(1))
    }

    /// [`Self::exchanged`] where thread `slot` takes part only if
    /// `exists` (a source lane computed at run time): otherwise nothing
    /// is assumed, and it counts as absent.
    fn exchanged_if(
        &mut self,
        buf: BufId,
        slot: &Arg,
        tag: &Arg,
        exists: &Arg,
    ) -> TxResult<(Arg, Arg)> {
        let w = self.slot_load(buf, slot)?;
        let got = self.bin(BinOp::Lshr, &w, &Arg::K(32));
        let here = self.bin(BinOp::Eq, &got, tag);
        let flag = self.bin(BinOp::And, &got, &Arg::K(EXITED));
        let exited = self.bin(BinOp::Ne, &flag, &Arg::K(0));
        let count = self.bin(BinOp::And, &got, &Arg::K(EXITED - 1));
        let before = self.bin(BinOp::Ult, &count, tag);
        let gone = self.bin(BinOp::And, &exited, &before);
        let ok = self.bin(BinOp::Or, &here, &gone);
        let absent = self.bin(BinOp::Xor, exists, &Arg::K(1));
        let ok = self.bin(BinOp::Or, &ok, &absent);
        self.assume(&ok);
        let value = self.sext(&w, 32);
        let here = self.bin(BinOp::And, &here, exists);
        Ok((here, value))
    }

    /// Rules out the executions where `c` is 0.
    fn assume(&mut self, c: &Arg) {
        match c {
            Arg::K(k) if *k != 0 => {}
            Arg::K(_) => self.emit(InstrKind::Infeasible, vec![]),
            Arg::R(_) => {
                let ok = self.label();
                self.emit(
                    InstrKind::Branch {
                        op: CmpOp::Ne,
                        a: c.ir(),
                        b: crate::ir::Operand::Const(0),
                        target: ok.clone(),
                    },
                    vec![],
                );
                self.emit(InstrKind::Infeasible, vec![]);
                self.emit_label(ok);
            }
        }
    }

    /// The generic thread's result of an exchange in `g`: an arbitrary
    /// value of a region other threads write (module docs).
    fn generic_exchange(&mut self, g: Group, value: &Arg) -> TxResult<Option<Arg>> {
        let Some(buf) = self.exchange_buffer(g) else {
            return Ok(None);
        };
        let linear = self.generic_linear();
        self.slot_store(buf, &linear, &Arg::K(0), value)?;
        let w = self.slot_load(buf, &linear)?;
        Ok(Some(self.sext(&w, 32)))
    }

    /// Marks this thread's slots as exited (before the thread's end).
    pub(super) fn exchange_exits(&mut self, st: &State) -> TxResult<()> {
        if self.th.generic {
            return Ok(());
        }
        for (g, buf) in self.sh.exchange.clone() {
            let key = match g {
                Group::Warp(m) => {
                    if !self.lanes(m).contains(&self.th.linear) {
                        continue;
                    }
                    WARP_COUNTER | u64::from(m)
                }
                Group::Block(n) => u64::from(n) << 32,
            };
            let count = self.exchanges_so_far(st, key);
            let tag = self.bin(BinOp::Or, &count, &Arg::K(EXITED));
            let me = Arg::K(i64::from(self.th.linear));
            self.slot_store(buf, &me, &tag, &Arg::K(0))?;
        }
        Ok(())
    }

    /// Marks this thread's slots as gone for every exchange, before it
    /// stops at undefined behaviour: the execution is undefined from
    /// there, and the others' exchanges must not rule it out by waiting
    /// for this thread (the report would miss the undefined behaviour).
    pub(super) fn exchange_gone(&mut self) {
        if self.th.generic || self.sh.exchange.is_empty() {
            return;
        }
        for (g, buf) in self.sh.exchange.clone() {
            if let Group::Warp(m) = g {
                if !self.lanes(m).contains(&self.th.linear) {
                    continue;
                }
            }
            let me = Arg::K(i64::from(self.th.linear));
            // (A constant slot in the buffer: its store emits no
            // undefined behaviour of its own.)
            let _ = self.slot_store(buf, &me, &Arg::K(EXITED), &Arg::K(0));
        }
    }

    /// `vote`, `shfl`, `redux`, `match`, `activemask`: modelled where the
    /// member mask is a constant; otherwise arbitrary results, an
    /// assumption the report states.
    pub(super) fn collective(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let Some(Group::Warp(mask)) = group_of(i) else {
            return self.unmodelled(fr, st, i);
        };
        if self.exchange_buffer(Group::Warp(mask)).is_none() {
            return self.unmodelled(fr, st, i);
        }
        match i.opcode.as_str() {
            "vote" => self.vote(fr, st, i, mask),
            "shfl" => self.shfl(fr, st, i, mask),
            _ => self.redux(fr, st, i, mask),
        }
    }

    fn unmodelled(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let a = format!(
            "results of `{}` are arbitrary values in each thread (gpumc models `vote.sync`, `shfl.sync` and `redux.sync` with a constant member mask, and `bar.red` without a thread count)",
            i.opcode
        );
        if !self.sh.assumptions.contains(&a) {
            self.sh.assumptions.push(a);
        }
        self.arbitrary_dst(fr, st, i)
    }

    /// This thread's lane must be in the member mask (PTX ISA: otherwise
    /// undefined); `false` when it is not (undefined behaviour emitted).
    fn in_mask(&mut self, i: &Instr, mask: u32) -> bool {
        if self.th.generic || self.lanes(mask).contains(&self.th.linear) {
            return true;
        }
        let cause = format!(
            "`{}` at {} is executed by lane {} of a warp, which its member mask {mask:#x} does not name",
            crate::diag::excerpt(&i.text),
            i.pos,
            self.th.linear % 32
        );
        self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
        false
    }

    /// The other participants' values at this exchange, as (took part,
    /// value) pairs, after storing this thread's `value`.
    fn exchange_all(
        &mut self,
        st: &mut State,
        mask: u32,
        value: &Arg,
    ) -> TxResult<Vec<(u32, Arg, Arg)>> {
        let buf = self
            .exchange_buffer(Group::Warp(mask))
            .expect("checked by collective");
        let tag = self.next_exchange(st, mask);
        let me = Arg::K(i64::from(self.th.linear));
        self.slot_store(buf, &me, &tag, value)?;
        let mut out = Vec::new();
        for t in self.lanes(mask) {
            if t == self.th.linear {
                continue;
            }
            let (here, v) = self.exchanged(buf, &Arg::K(i64::from(t)), &tag)?;
            out.push((t % 32, here, v));
        }
        Ok(out)
    }

    /// `vote.sync.{ballot.b32, any.pred, all.pred, uni.pred} d, {!}p, mask`.
    fn vote(&mut self, fr: usize, st: &mut State, i: &Instr, mask: u32) -> TxResult<()> {
        let mode = ["ballot", "any", "all", "uni"]
            .into_iter()
            .find(|m| i.mods.iter().any(|x| x == m));
        let [d, p, _] = self.ops::<3>(i)?;
        let (Some(mode), true) = (mode, self.in_mask(i, mask)) else {
            return match mode {
                None => self.unmodelled(fr, st, i),
                Some(_) => Ok(()),
            };
        };
        let p = self.read_int(fr, st, p, PRED)?;
        let p = self.bin(BinOp::Ne, &p, &Arg::K(0));
        if self.th.generic {
            let v = self
                .generic_exchange(Group::Warp(mask), &p)?
                .unwrap_or_else(|| self.havoc(32));
            let v = if mode == "ballot" {
                v
            } else {
                self.bin(BinOp::And, &v, &Arg::K(1))
            };
            return self.write(fr, st, d, V::Int(v));
        }
        let others = self.exchange_all(st, mask, &p)?;
        let lane = i64::from(self.th.linear % 32);
        let result = match mode {
            "ballot" => {
                let mut acc = self.bin(BinOp::Shl, &p, &Arg::K(lane));
                for (l, here, v) in &others {
                    let voted = self.bin(BinOp::And, here, v);
                    let bit = self.bin(BinOp::Shl, &voted, &Arg::K(i64::from(*l)));
                    acc = self.bin(BinOp::Or, &acc, &bit);
                }
                self.sext(&acc, 32)
            }
            _ => {
                // any: some participant's predicate holds; all: every
                // participant's does; uni: all or none.
                let (mut any, mut all) = (p.clone(), p.clone());
                for (_, here, v) in &others {
                    let voted = self.bin(BinOp::And, here, v);
                    any = self.bin(BinOp::Or, &any, &voted);
                    let absent = self.bin(BinOp::Xor, here, &Arg::K(1));
                    let holds = self.bin(BinOp::Or, &absent, v);
                    all = self.bin(BinOp::And, &all, &holds);
                }
                match mode {
                    "any" => any,
                    "all" => all,
                    _ => {
                        let none = self.bin(BinOp::Xor, &any, &Arg::K(1));
                        self.bin(BinOp::Or, &all, &none)
                    }
                }
            }
        };
        self.write(fr, st, d, V::Int(result))
    }

    /// `redux.sync.{add, min, max, and, or, xor}.{u32, s32, b32} d, a, mask`.
    fn redux(&mut self, fr: usize, st: &mut State, i: &Instr, mask: u32) -> TxResult<()> {
        let op = ["add", "min", "max", "and", "or", "xor"]
            .into_iter()
            .find(|m| i.mods.iter().any(|x| x == m));
        let signed = i.mods.iter().any(|x| x == "s32");
        let [d, a, _] = self.ops::<3>(i)?;
        let (Some(op), true) = (op, self.in_mask(i, mask)) else {
            return match op {
                None => self.unmodelled(fr, st, i),
                Some(_) => Ok(()),
            };
        };
        let a = self.read_int(fr, st, a, B32)?;
        let a = self.sext(&a, 32);
        if self.th.generic {
            let v = self
                .generic_exchange(Group::Warp(mask), &a)?
                .unwrap_or_else(|| self.havoc(32));
            return self.write(fr, st, d, V::Int(v));
        }
        let others = self.exchange_all(st, mask, &a)?;
        let mut acc = a;
        for (_, here, v) in &others {
            let combined = match op {
                "add" => {
                    let s = self.bin(BinOp::Add, &acc, v);
                    self.sext(&s, 32)
                }
                "and" => self.bin(BinOp::And, &acc, v),
                "or" => self.bin(BinOp::Or, &acc, v),
                "xor" => self.bin(BinOp::Xor, &acc, v),
                _ => {
                    // Sign-extended 32-bit values order as `s32` by a
                    // signed comparison and as `u32` by an unsigned one.
                    let lt = if signed { BinOp::Lt } else { BinOp::Ult };
                    let below = self.bin(lt, v, &acc);
                    if op == "min" {
                        self.select(&below, v, &acc)
                    } else {
                        self.select(&below, &acc, v)
                    }
                }
            };
            acc = self.select(here, &combined, &acc);
        }
        self.write(fr, st, d, V::Int(acc))
    }

    /// `shfl.sync.{up, down, bfly, idx}.b32 d[|p], a, b, c, mask` (PTX
    /// ISA: the source lane from `b`, the clamp and segment mask in `c`;
    /// `p` says whether the source lane was in range).
    fn shfl(&mut self, fr: usize, st: &mut State, i: &Instr, mask: u32) -> TxResult<()> {
        let mode = ["up", "down", "bfly", "idx"]
            .into_iter()
            .find(|m| i.mods.iter().any(|x| x == m));
        let [dst, a, b, c, _] = self.ops::<5>(i)?;
        let Some(mode) = mode else {
            return self.unmodelled(fr, st, i);
        };
        let (d, p) = match dst {
            Operand::PredPair { a, b, pos } => (
                Operand::Reg {
                    name: a.clone(),
                    pos: *pos,
                },
                Some(Operand::Reg {
                    name: b.clone(),
                    pos: *pos,
                }),
            ),
            other => (other.clone(), None),
        };
        let av = self.read_int(fr, st, a, B32)?;
        let av = self.sext(&av, 32);
        let bv = self.read_int(fr, st, b, B32)?;
        let cv = self.read_int(fr, st, c, B32)?;
        if !self.in_mask(i, mask) {
            return Ok(());
        }
        let lane = if self.th.generic {
            let l = self.generic_linear();
            self.bin(BinOp::And, &l, &Arg::K(31))
        } else {
            Arg::K(i64::from(self.th.linear % 32))
        };
        let bval = self.bin(BinOp::And, &bv, &Arg::K(31));
        let clamp = self.bin(BinOp::And, &cv, &Arg::K(31));
        let seg = self.bin(BinOp::Lshr, &cv, &Arg::K(8));
        let seg = self.bin(BinOp::And, &seg, &Arg::K(31));
        let not_seg = self.bin(BinOp::Xor, &seg, &Arg::K(31));
        let min_lane = self.bin(BinOp::And, &lane, &seg);
        let high = self.bin(BinOp::And, &clamp, &not_seg);
        let max_lane = self.bin(BinOp::Or, &min_lane, &high);
        let (j, in_range) = match mode {
            "up" => {
                let j = self.bin(BinOp::Sub, &lane, &bval);
                let ok = self.bin(BinOp::Ge, &j, &max_lane);
                (j, ok)
            }
            "down" => {
                let j = self.bin(BinOp::Add, &lane, &bval);
                let ok = self.bin(BinOp::Le, &j, &max_lane);
                (j, ok)
            }
            "bfly" => {
                let j = self.bin(BinOp::Xor, &lane, &bval);
                let ok = self.bin(BinOp::Le, &j, &max_lane);
                (j, ok)
            }
            _ => {
                let low = self.bin(BinOp::And, &bval, &not_seg);
                let j = self.bin(BinOp::Or, &min_lane, &low);
                let ok = self.bin(BinOp::Le, &j, &max_lane);
                (j, ok)
            }
        };
        let j = self.select(&in_range, &j, &lane);
        let value = if self.th.generic {
            self.generic_exchange(Group::Warp(mask), &av)?
                .unwrap_or_else(|| self.havoc(32))
        } else {
            let buf = self
                .exchange_buffer(Group::Warp(mask))
                .expect("checked by collective");
            let tag = self.next_exchange(st, mask);
            let me = Arg::K(i64::from(self.th.linear));
            self.slot_store(buf, &me, &tag, &av)?;
            let warp = i64::from(self.th.linear / 32 * 32);
            match j.known() {
                Some(jl) if jl == i64::from(self.th.linear % 32) => av.clone(),
                Some(jl) if !self.lanes(mask).contains(&((warp + jl) as u32)) => {
                    // A source lane that takes no part: undefined value.
                    self.havoc(32)
                }
                _ => {
                    // A source lane computed at run time: it takes part
                    // if the launch has it and the mask names it.
                    let lanes = self.block_threads().saturating_sub(warp as u32).min(32);
                    let has = self.bin(BinOp::Ult, &j, &Arg::K(i64::from(lanes)));
                    let named = self.bin(BinOp::Lshr, &Arg::K(i64::from(mask)), &j);
                    let named = self.bin(BinOp::And, &named, &Arg::K(1));
                    let exists = self.bin(BinOp::And, &has, &named);
                    let slot = self.bin(BinOp::Add, &j, &Arg::K(warp));
                    let (here, v) = self.exchanged_if(buf, &slot, &tag, &exists)?;
                    // An exited source lane: undefined value.
                    let any = self.havoc(32);
                    self.select(&here, &v, &any)
                }
            }
        };
        self.write(fr, st, &d, V::Int(value))?;
        if let Some(p) = p {
            self.write(fr, st, &p, V::Int(in_range))?;
        }
        Ok(())
    }

    /// `bar.red`'s stores of this thread's predicate `p` before the
    /// barrier (whose arrival index is `arrival`, from 0, on barrier `n`);
    /// `None` where its reduction is not modelled.
    pub(super) fn bar_red_store(
        &mut self,
        n: i64,
        arrival: &Arg,
        p: &Arg,
    ) -> TxResult<Option<Arg>> {
        let Some(buf) = self.exchange_buffer(Group::Block(n as u32)) else {
            return Ok(None);
        };
        let tag = self.bin(BinOp::Add, arrival, &Arg::K(1));
        let me = if self.th.generic {
            self.generic_linear()
        } else {
            Arg::K(i64::from(self.th.linear))
        };
        let tag_used = if self.th.generic {
            Arg::K(0)
        } else {
            tag.clone()
        };
        self.slot_store(buf, &me, &tag_used, p)?;
        Ok(Some(tag))
    }

    /// `bar.red.{popc.u32, and.pred, or.pred}`'s result after the barrier:
    /// the reduction of every thread's predicate (`p`: this thread's).
    pub(super) fn bar_red_result(
        &mut self,
        i: &Instr,
        n: i64,
        tag: &Arg,
        p: &Arg,
    ) -> TxResult<Arg> {
        let buf = self
            .exchange_buffer(Group::Block(n as u32))
            .expect("bar_red_store found it");
        if self.th.generic {
            let me = self.generic_linear();
            let w = self.slot_load(buf, &me)?;
            return Ok(self.sext(&w, 32));
        }
        let op = ["popc", "and", "or"]
            .into_iter()
            .find(|m| i.mods.iter().any(|x| x == m))
            .ok_or_else(|| Error::unsupported(i.pos, format!("`{}`", i.text)))?;
        let mut acc = p.clone();
        for t in 0..self.block_threads() {
            if t == self.th.linear {
                continue;
            }
            let (here, v) = self.exchanged(buf, &Arg::K(i64::from(t)), tag)?;
            let voted = self.bin(BinOp::And, &here, &v);
            acc = match op {
                "popc" => self.bin(BinOp::Add, &acc, &voted),
                "or" => self.bin(BinOp::Or, &acc, &voted),
                _ => {
                    let absent = self.bin(BinOp::Xor, &here, &Arg::K(1));
                    let holds = self.bin(BinOp::Or, &absent, &v);
                    self.bin(BinOp::And, &acc, &holds)
                }
            };
        }
        Ok(acc)
    }
}
