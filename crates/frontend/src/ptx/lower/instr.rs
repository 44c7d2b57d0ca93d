//! Non-memory instructions: operands, predicates, and the integer
//! arithmetic, logic, comparison and conversion instructions. Floating
//! point values are not modelled: an instruction computing one gives an
//! arbitrary value (as the ILA checker of Xing et al., ICCAD 2018, treats
//! them as uninterpreted).

use super::arith::{Arg, V};
use super::tx::{Cond, IfCond, Tx, TxResult};
use super::value::{sext, zext, Slot, State};
use crate::diag::Error;
use crate::ir::{BinOp, CmpOp, InstrKind, Operand as IrOp};
use crate::ptx::ast::{Guard, Instr, Operand, Type, TypeKind};

/// The fundamental types among an instruction's modifiers, in order.
pub(super) fn types(i: &Instr) -> Vec<Type> {
    i.mods.iter().filter_map(|m| Type::from_word(m)).collect()
}

pub(super) fn has(i: &Instr, m: &str) -> bool {
    i.mods.iter().any(|x| x == m)
}

/// Special registers whose value depends on nothing the model knows:
/// each read is an arbitrary value.
const ARBITRARY_SREGS: &[&str] = &[
    "%smid",
    "%nsmid",
    "%gridid",
    "%clock",
    "%clock_hi",
    "%clock64",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%total_smem_size",
    "%aggr_smem_size",
    "%nwarpid",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
];

impl<'m> Tx<'_, 'm> {
    pub fn fid(&self, fr: usize) -> u32 {
        self.frames[fr].id
    }

    /// The declared width of a register (`.reg .b64 %rd<8>` declares
    /// `%rd0` … `%rd7`), searching the frame's declarations.
    pub fn reg_bits(&self, fr: usize, name: &str) -> Option<u32> {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.frames[fr]
            .cfg
            .decls
            .iter()
            .chain(self.frames[fr].func.params.iter().filter_map(|_| None))
            .find(|d| {
                d.space == crate::ptx::ast::Space::Reg
                    && (d.name == name || (d.range.is_some() && d.name == stem))
            })
            .map(|d| d.ty.bits * d.vector.unwrap_or(1))
    }

    /// Reads an operand as a value of type `ty`.
    pub fn read(&mut self, fr: usize, st: &mut State, op: &Operand, ty: Type) -> TxResult<V> {
        Ok(match op {
            Operand::Reg { name, .. } => {
                if let Some(v) = self.special(name)? {
                    v
                } else {
                    let s = Slot::Reg(self.fid(fr), name.clone());
                    self.load_slot(st, &s, ty.bits)
                }
            }
            Operand::Imm { value, .. } => V::Int(Arg::K(sext(*value, ty.bits))),
            Operand::Float { bits, .. } => V::Int(Arg::K(sext(*bits as i64, ty.bits))),
            Operand::Sym { name, .. } => self.symbol(fr, name, 0)?,
            Operand::SymOffset { name, offset, .. } => self.symbol(fr, name, *offset)?,
            Operand::Not { reg, .. } => {
                let s = Slot::Reg(self.fid(fr), reg.clone());
                let v = self.load_slot(st, &s, 1);
                let a = self.int(v, "a negated predicate")?;
                V::Int(self.bin(BinOp::Xor, &a, &Arg::K(1)))
            }
            _ => {
                return Err(Error::syntax(
                    op.pos(),
                    format!("unexpected operand in `{}`", self.text),
                )
                .into())
            }
        })
    }

    /// Reads an integer operand (an address is refused, or makes a free
    /// argument an integer).
    pub fn read_int(&mut self, fr: usize, st: &mut State, op: &Operand, ty: Type) -> TxResult<Arg> {
        let v = self.read(fr, st, op, ty)?;
        self.int(v, "arithmetic")
    }

    /// Writes a destination operand (`_` discards).
    pub fn write(&mut self, fr: usize, st: &mut State, op: &Operand, v: V) -> TxResult<()> {
        match op {
            Operand::Reg { name, .. } => {
                if self.special(name)?.is_some() {
                    return Err(Error::semantic(
                        op.pos(),
                        format!("`{name}` is a read-only special register"),
                    )
                    .into());
                }
                let s = Slot::Reg(self.fid(fr), name.clone());
                self.store_slot(st, s, v);
                Ok(())
            }
            Operand::Sink { .. } => Ok(()),
            _ => Err(Error::syntax(
                op.pos(),
                format!("`{}`: the destination must be a register", self.text),
            )
            .into()),
        }
    }

    /// The address of a variable, parameter or private buffer.
    pub fn symbol(&mut self, fr: usize, name: &str, offset: i64) -> TxResult<V> {
        match self.frames[fr].bufs.get(name) {
            Some(&buf) => Ok(V::Ptr {
                buf,
                off: Arg::K(offset),
            }),
            None => self.symbol_address(name, offset),
        }
    }

    /// The address of a module variable (or of a kernel's parameter).
    pub fn symbol_address(&mut self, name: &str, offset: i64) -> TxResult<V> {
        if let Some(&buf) = self.sh.mem.named.get(name) {
            return Ok(V::Ptr {
                buf,
                off: Arg::K(offset),
            });
        }
        if let Some(e) = self.sh.mem.broken.get(name) {
            return Err(e.clone().into());
        }
        if let Some(&a) = self.code.fn_addr.get(name) {
            // A function's address: a number an indirect call recognises.
            return Ok(V::Int(Arg::K(a.wrapping_add(offset))));
        }
        let pos = self.pos;
        Err(if self.code.declared.contains(name) {
            Error::unsupported(pos, format!("the address of function `{name}`"))
        } else {
            Error::semantic(pos, format!("unknown symbol `{name}`"))
        }
        .into())
    }

    /// The generic thread's ids: `%tid`/`%ctaid` components are inputs
    /// (named so the parametric engine can tell them apart), `%laneid` and
    /// `%warpid` follow from the linear id; the lane masks are arbitrary.
    /// `None`: the register is the same in every thread (`%ntid`, …).
    fn generic_special(&mut self, base: &str, d: Option<usize>) -> TxResult<Option<V>> {
        let th = self.th;
        match (base, d) {
            ("%tid" | "%ctaid", Some(d)) => {
                // A dimension of extent 1 has id 0 in every thread.
                let extent = if base == "%tid" {
                    th.ntid[d]
                } else {
                    th.nctaid[d]
                };
                if extent == 1 {
                    return Ok(Some(V::Int(Arg::K(0))));
                }
                Ok(Some(V::Int(
                    self.id_input(&format!("{base}.{}", ["x", "y", "z"][d])),
                )))
            }
            ("%laneid" | "%warpid", _) => {
                let linear = self.generic_linear();
                Ok(Some(V::Int(if base == "%laneid" {
                    self.bin(BinOp::And, &linear, &Arg::K(31))
                } else {
                    self.bin(BinOp::Lshr, &linear, &Arg::K(5))
                })))
            }
            (b, _) if b.starts_with("%lanemask") => {
                // From the lane, as in a concrete thread.
                let linear = self.generic_linear();
                let lane = self.bin(BinOp::And, &linear, &Arg::K(31));
                let eq = self.bin(BinOp::Shl, &Arg::K(1), &lane);
                let lt = self.bin(BinOp::Sub, &eq, &Arg::K(1));
                let le = self.bin(BinOp::Or, &lt, &eq);
                let m = match b {
                    "%lanemask_eq" => eq,
                    "%lanemask_lt" => lt,
                    "%lanemask_le" => le,
                    "%lanemask_gt" => self.bin(BinOp::Xor, &le, &Arg::K(-1)),
                    "%lanemask_ge" => self.bin(BinOp::Xor, &lt, &Arg::K(-1)),
                    _ => return Ok(None),
                };
                Ok(Some(V::Int(self.sext(&m, 32))))
            }
            _ => Ok(None),
        }
    }

    /// The generic thread's linear index in its block (`%tid.x` +
    /// `%ntid.x` × (`%tid.y` + `%ntid.y` × `%tid.z`)).
    pub(super) fn generic_linear(&mut self) -> Arg {
        let th = self.th;
        let mut linear = Arg::K(0);
        for d in (0..3).rev() {
            let scaled = self.bin(BinOp::Mul, &linear, &Arg::K(i64::from(th.ntid[d])));
            let id = match th.ntid[d] {
                1 => Arg::K(0),
                _ => self.id_input(&format!("%tid.{}", ["x", "y", "z"][d])),
            };
            linear = self.bin(BinOp::Add, &scaled, &id);
        }
        linear
    }

    /// The input that holds the generic thread's special register `name`.
    fn id_input(&mut self, name: &str) -> Arg {
        let idx = match self.sh.ids.get(name) {
            Some(&i) => i,
            None => {
                self.sh.inputs.push(crate::ir::Input {
                    name: name.to_string(),
                    ty: crate::ir::ValueType::Int(32),
                    value: None,
                });
                let i = self.sh.inputs.len() - 1;
                self.sh.ids.insert(name.to_string(), i);
                i
            }
        };
        let t = self.temp();
        self.emit(
            crate::ir::InstrKind::Input {
                dst: t.clone(),
                input: idx,
            },
            vec![],
        );
        Arg::R(t)
    }

    /// A special register's value (`None`: not a special register).
    fn special(&mut self, name: &str) -> TxResult<Option<V>> {
        let th = self.th;
        let (base, comp) = match name.split_once('.') {
            Some((b, c)) => (b, Some(c)),
            None => (name, None),
        };
        let dim = |c: Option<&str>| -> Option<usize> {
            match c {
                Some("x") => Some(0),
                Some("y") => Some(1),
                Some("z") => Some(2),
                _ => None,
            }
        };
        let lane = th.linear % 32;
        let k = |v: u32| Some(V::Int(Arg::K(i64::from(v))));
        if th.generic {
            if let Some(v) = self.generic_special(base, dim(comp))? {
                return Ok(Some(v));
            }
        }
        let v = match base {
            "%tid" | "%ntid" | "%ctaid" | "%nctaid" => {
                let Some(d) = dim(comp) else {
                    return Err(Error::unsupported(
                        self.pos,
                        format!("special register `{name}` (a component .x, .y or .z is needed)"),
                    )
                    .into());
                };
                let arr = match base {
                    "%tid" => th.tid,
                    "%ntid" => th.ntid,
                    "%ctaid" => th.ctaid,
                    _ => th.nctaid,
                };
                k(arr[d])
            }
            "%laneid" => k(lane),
            "%warpid" => k(th.linear / 32),
            "%lanemask_eq" => k(1u32 << lane),
            "%lanemask_lt" => k((1u32 << lane) - 1),
            "%lanemask_le" => k(((1u64 << (lane + 1)) - 1) as u32),
            "%lanemask_gt" => k(!(((1u64 << (lane + 1)) - 1) as u32)),
            "%lanemask_ge" => k(!((1u32 << lane) - 1)),
            // At most 227 KiB (`launch::check_shared_bytes`).
            "%dynamic_smem_size" => k(u32::try_from(th.shared_bytes).unwrap_or(u32::MAX)),
            b if ARBITRARY_SREGS.contains(&b)
                || b.starts_with("%envreg")
                || b.starts_with("%pm") =>
            {
                let bits = if b.ends_with("64") { 64 } else { 32 };
                Some(V::Int(self.havoc(bits)))
            }
            _ => None,
        };
        // Sign-extended like every 32-bit value.
        Ok(v.map(|v| match v {
            V::Int(Arg::K(c)) => V::Int(Arg::K(sext(c, 32))),
            other => other,
        }))
    }

    /// A guard's value.
    pub fn guard_value(&mut self, fr: usize, st: &mut State, g: &Guard) -> TxResult<Cond> {
        let s = Slot::Reg(self.fid(fr), g.reg.clone());
        let v = self.load_slot(st, &s, 1);
        Ok(match self.int(v, "a predicate")? {
            Arg::K(c) => Cond::Known((c != 0) != g.negated),
            Arg::R(reg) => Cond::Run(IfCond {
                reg,
                negated: g.negated,
            }),
        })
    }

    /// One instruction (not a terminator), under its guard.
    pub fn instr(&mut self, fr: usize, st: &mut State, i: &'m Instr) -> TxResult<()> {
        self.at(Some(i));
        if let Some(g) = &i.guard {
            match self.guard_value(fr, st, g)? {
                Cond::Known(false) => return Ok(()),
                Cond::Known(true) => {}
                Cond::Run(c) => return self.predicated(fr, st, i, c),
            }
        }
        self.exec(fr, st, i)
    }

    /// An instruction whose guard is known at run time only: executed on
    /// one side of an IR branch, the states merged after it.
    fn predicated(&mut self, fr: usize, st: &mut State, i: &'m Instr, c: IfCond) -> TxResult<()> {
        let skip = self.label();
        let join = self.label();
        // Skip when the guard is false.
        self.emit(
            InstrKind::Branch {
                op: if c.negated { CmpOp::Ne } else { CmpOp::Eq },
                a: IrOp::Reg(c.reg),
                b: IrOp::Const(0),
                target: skip.clone(),
            },
            vec![],
        );
        let before = st.clone();
        self.exec(fr, st, i)?;
        let merged = self.join_states(st, &before, i.pos)?;
        self.emit_moves(st, &merged);
        self.emit_goto(&join);
        self.emit_label(skip);
        self.emit_moves(&before, &merged);
        self.emit_label(join);
        *st = merged;
        Ok(())
    }

    fn exec(&mut self, fr: usize, st: &mut State, i: &'m Instr) -> TxResult<()> {
        let tys = types(i);
        let float = tys.iter().any(|t| t.kind == TypeKind::Float);
        match i.opcode.as_str() {
            "ld" | "ldu" | "st" | "atom" | "red" => self.memory(fr, st, i),
            "bar" | "barrier" => self.barrier(fr, st, i),
            "membar" | "fence" => self.fence(i),
            "prefetch" | "prefetchu" | "nanosleep" | "pmevent" | "discard" | "applypriority" => {
                Ok(())
            }
            "mov" => self.mov(fr, st, i),
            "cvta" => {
                let [d, a] = self.ops::<2>(i)?;
                let v = self.read(fr, st, a, self.addr_type())?;
                self.write(fr, st, d, v)
            }
            "cvt" => self.cvt(fr, st, i),
            "setp" => self.setp(fr, st, i),
            "set" => self.set(fr, st, i),
            "selp" => self.selp(fr, st, i),
            "slct" => self.slct(fr, st, i),
            _ if float || FLOAT_ONLY.contains(&i.opcode.as_str()) => self.arbitrary_dst(fr, st, i),
            "shfl" | "vote" | "match" | "redux" | "activemask" => self.collective(fr, st, i),
            "createpolicy" => self.arbitrary_dst(fr, st, i),
            "isspacep" => self.isspacep(fr, st, i),
            _ => self.alu(fr, st, i),
        }
    }

    /// Exactly `N` operands.
    pub fn ops<'i, const N: usize>(&self, i: &'i Instr) -> TxResult<[&'i Operand; N]> {
        let v: Vec<&Operand> = i.operands.iter().collect();
        v.try_into().map_err(|_| {
            Error::syntax(
                i.pos,
                format!(
                    "`{}` takes {N} operands, not {}",
                    i.opcode,
                    i.operands.len()
                ),
            )
            .into()
        })
    }

    pub fn addr_type(&self) -> Type {
        Type {
            kind: TypeKind::Unsigned,
            bits: self.sh.address_bits,
        }
    }

    fn one_type(&self, i: &Instr) -> TxResult<Type> {
        types(i).last().copied().ok_or_else(|| {
            Error::syntax(
                i.pos,
                format!("`{}` needs a type (`.u32`, `.b64`, …)", i.opcode),
            )
            .into()
        })
    }

    /// Gives every register destination an arbitrary value of its type.
    pub(super) fn arbitrary_dst(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let bits = types(i).first().map_or(32, |t| t.bits);
        let dsts: Vec<&Operand> = match i.operands.first() {
            Some(Operand::Vector { elems, .. }) => elems.iter().collect(),
            Some(Operand::PredPair { .. }) => vec![],
            Some(d) => vec![d],
            None => vec![],
        };
        if let Some(Operand::PredPair { a, b, pos }) = i.operands.first() {
            for r in [a, b] {
                let v = self.havoc(1);
                let d = Operand::Reg {
                    name: r.clone(),
                    pos: *pos,
                };
                self.write(fr, st, &d, V::Int(v))?;
            }
        }
        for d in dsts {
            let v = self.havoc(bits);
            self.write(fr, st, d, V::Int(v))?;
        }
        Ok(())
    }

    fn mov(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let ty = self.one_type(i)?;
        let [d, a] = self.ops::<2>(i)?;
        match (d, a) {
            // Unpack: `mov.b64 {lo, hi}, d`.
            (Operand::Vector { elems, .. }, src) => {
                let x = self.read_int(fr, st, src, ty)?;
                let w = ty.bits / elems.len() as u32;
                for (k, e) in elems.iter().enumerate() {
                    let sh = self.bin(BinOp::Lshr, &x, &Arg::K(i64::from(w) * k as i64));
                    let part = self.sext(&sh, w);
                    self.write(fr, st, e, V::Int(part))?;
                }
                Ok(())
            }
            // Pack: `mov.b64 d, {lo, hi}`.
            (dst, Operand::Vector { elems, .. }) => {
                let w = ty.bits / elems.len() as u32;
                let part_ty = Type {
                    kind: TypeKind::Bits,
                    bits: w,
                };
                let mut acc = Arg::K(0);
                for (k, e) in elems.iter().enumerate() {
                    let p = self.read_int(fr, st, e, part_ty)?;
                    let p = self.zext(&p, w);
                    let p = self.bin(BinOp::Shl, &p, &Arg::K(i64::from(w) * k as i64));
                    acc = self.bin(BinOp::Or, &acc, &p);
                }
                let acc = self.sext(&acc, ty.bits);
                self.write(fr, st, dst, V::Int(acc))
            }
            (dst, src) => {
                let v = self.read(fr, st, src, ty)?;
                self.write(fr, st, dst, v)
            }
        }
    }

    fn cvt(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let tys = types(i);
        let [d, a] = self.ops::<2>(i)?;
        let (Some(&dt), Some(&st_ty)) = (tys.first(), tys.get(1)) else {
            return Err(Error::syntax(i.pos, "`cvt` needs a destination and a source type").into());
        };
        if dt.kind == TypeKind::Float || st_ty.kind == TypeKind::Float {
            let v = self.havoc(dt.bits);
            return self.write(fr, st, d, V::Int(v));
        }
        let v = self.read(fr, st, a, st_ty)?;
        if let V::Ptr { .. } = v {
            // An address widened or narrowed (32-bit shared windows).
            return self.write(fr, st, d, v);
        }
        let x = self.int(v, "cvt")?;
        let x = if st_ty.kind == TypeKind::Signed {
            self.sext(&x, st_ty.bits)
        } else {
            self.zext(&x, st_ty.bits)
        };
        let r = if has(i, "sat") {
            self.saturate(&x, dt)
        } else {
            self.sext(&x, dt.bits)
        };
        self.write(fr, st, d, V::Int(r))
    }

    /// Clamps `x` (a 64-bit integer) to the range of `t`.
    fn saturate(&mut self, x: &Arg, t: Type) -> Arg {
        let (lo, hi) = match t.kind {
            TypeKind::Signed => (
                sext(1 << (t.bits - 1).min(62), t.bits),
                (1i64 << (t.bits - 1).min(62)) - 1,
            ),
            _ => (0, zext(-1, t.bits.min(63))),
        };
        match x {
            Arg::K(c) => Arg::K(sext((*c).clamp(lo, hi), t.bits)),
            Arg::R(_) => {
                let below = self.bin(BinOp::Lt, x, &Arg::K(lo));
                let y = self.select(&below, &Arg::K(lo), x);
                let above = self.bin(BinOp::Gt, &y, &Arg::K(hi));
                let y = self.select(&above, &Arg::K(hi), &y);
                self.sext(&y, t.bits)
            }
        }
    }

    fn isspacep(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let [d, a] = self.ops::<2>(i)?;
        let space = i.mods.first().map(String::as_str).unwrap_or("");
        let v = self.read(fr, st, a, self.addr_type())?;
        let r = match v {
            V::Ptr { buf, .. } => Arg::K(i64::from(self.sh.mem.buffers[buf].space() == space)),
            V::Int(_) => self.havoc(1),
        };
        self.write(fr, st, d, V::Int(r))
    }

    /// Integer comparison `a op b` of type `t` (0 or 1); `None` for a
    /// floating-point or unknown comparison.
    fn compare(&mut self, op: &str, t: Type, a: V, b: V) -> TxResult<Option<Arg>> {
        let signed = t.kind == TypeKind::Signed;
        let Some(bop) = crate::ptx::ast::int_compare(op, signed) else {
            return Ok(None);
        };
        let (x, y) = match (a, b) {
            (V::Int(x), V::Int(y)) => (x, y),
            (V::Ptr { buf: p, off: x }, V::Ptr { buf: q, off: y }) if p == q => (x, y),
            // An address is never null, and addresses of different
            // buffers differ.
            (V::Ptr { buf, .. }, V::Int(Arg::K(0)))
            | (V::Int(Arg::K(0)), V::Ptr { buf, .. })
            | (V::Ptr { buf, .. }, V::Ptr { .. })
                if matches!(bop, BinOp::Eq | BinOp::Ne) =>
            {
                let _ = buf;
                return Ok(Some(Arg::K(i64::from(bop == BinOp::Ne))));
            }
            (V::Ptr { buf, .. }, _) | (_, V::Ptr { buf, .. }) => {
                return Err(self.ptr_as_int(buf, "a comparison"))
            }
        };
        Ok(Some(self.bin(bop, &x, &y)))
    }

    fn setp(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let t = self.one_type(i)?;
        let cmp = i.mods.first().map(String::as_str).unwrap_or("");
        let combine = i
            .mods
            .iter()
            .find(|m| matches!(m.as_str(), "and" | "or" | "xor"))
            .cloned();
        let (p, q, a, b, c) = match i.operands.as_slice() {
            [d, a, b] => (d, None, a, b, None),
            [d, a, b, c] => (d, None, a, b, Some(c)),
            _ => return Err(Error::syntax(i.pos, "`setp` takes 3 or 4 operands").into()),
        };
        let (p, q) = match p {
            Operand::PredPair { a: x, b: y, pos } => (
                Operand::Reg {
                    name: x.clone(),
                    pos: *pos,
                },
                Some(Operand::Reg {
                    name: y.clone(),
                    pos: *pos,
                }),
            ),
            other => (other.clone(), q),
        };
        let r = if t.kind == TypeKind::Float {
            None
        } else {
            let va = self.read(fr, st, a, t)?;
            let vb = self.read(fr, st, b, t)?;
            match self.compare(cmp, t, va, vb)? {
                Some(r) => Some(r),
                None => {
                    return Err(Error::unsupported(
                        i.pos,
                        format!("comparison `.{cmp}` of `{}`", i.opcode),
                    )
                    .into())
                }
            }
        };
        let r = match r {
            Some(r) => r,
            None => self.havoc(1),
        };
        let pred = Type {
            kind: TypeKind::Pred,
            bits: 1,
        };
        let (rp, rq) = match (&combine, c) {
            (Some(op), Some(c)) => {
                let cv = self.read_int(fr, st, c, pred)?;
                let bop = match op.as_str() {
                    "and" => BinOp::And,
                    "or" => BinOp::Or,
                    _ => BinOp::Xor,
                };
                let nr = self.bin(BinOp::Xor, &r, &Arg::K(1));
                (self.bin(bop, &r, &cv), self.bin(bop, &nr, &cv))
            }
            (None, None) => {
                let nr = self.bin(BinOp::Xor, &r, &Arg::K(1));
                (r, nr)
            }
            _ => {
                return Err(Error::syntax(
                    i.pos,
                    "`setp` with a fourth operand needs `.and`, `.or` or `.xor`",
                )
                .into())
            }
        };
        self.write(fr, st, &p, V::Int(rp))?;
        if let Some(q) = q {
            self.write(fr, st, &q, V::Int(rq))?;
        }
        Ok(())
    }

    fn set(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let tys = types(i);
        let cmp = i.mods.first().map(String::as_str).unwrap_or("");
        let (Some(&dt), Some(&stt)) = (tys.first(), tys.get(1)) else {
            return Err(Error::syntax(i.pos, "`set` needs a destination and a source type").into());
        };
        let [d, a, b] = match i.operands.as_slice() {
            [d, a, b] => [d, a, b],
            _ => return Err(Error::unsupported(i.pos, "`set` with a predicate operand").into()),
        };
        if dt.kind == TypeKind::Float || stt.kind == TypeKind::Float {
            let v = self.havoc(dt.bits);
            return self.write(fr, st, d, V::Int(v));
        }
        let va = self.read(fr, st, a, stt)?;
        let vb = self.read(fr, st, b, stt)?;
        let Some(r) = self.compare(cmp, stt, va, vb)? else {
            return Err(Error::unsupported(i.pos, format!("comparison `.{cmp}` of `set`")).into());
        };
        // 0xFFFFFFFF for true: 0 - r.
        let v = self.bin(BinOp::Sub, &Arg::K(0), &r);
        self.write(fr, st, d, V::Int(v))
    }

    fn selp(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let t = self.one_type(i)?;
        let [d, a, b, c] = self.ops::<4>(i)?;
        let pred = Type {
            kind: TypeKind::Pred,
            bits: 1,
        };
        let cv = self.read_int(fr, st, c, pred)?;
        let va = self.read(fr, st, a, t)?;
        let vb = self.read(fr, st, b, t)?;
        let v = match (cv, va, vb) {
            (Arg::K(c), va, vb) => {
                if c != 0 {
                    va
                } else {
                    vb
                }
            }
            (c, V::Int(x), V::Int(y)) => V::Int(self.select(&c, &x, &y)),
            (c, V::Ptr { buf: p, off: x }, V::Ptr { buf: q, off: y }) if p == q => V::Ptr {
                buf: p,
                off: self.select(&c, &x, &y),
            },
            (_, V::Ptr { buf, .. }, _) | (_, _, V::Ptr { buf, .. }) => {
                return Err(
                    self.ptr_as_int(buf, "a selection between addresses of different buffers")
                )
            }
        };
        self.write(fr, st, d, v)
    }

    fn slct(&mut self, fr: usize, st: &mut State, i: &Instr) -> TxResult<()> {
        let tys = types(i);
        let [d, a, b, c] = self.ops::<4>(i)?;
        let (Some(&dt), Some(&ct)) = (tys.first(), tys.get(1)) else {
            return Err(Error::syntax(i.pos, "`slct` needs two types").into());
        };
        if ct.kind == TypeKind::Float {
            let v = self.havoc(dt.bits);
            return self.write(fr, st, d, V::Int(v));
        }
        let cv = self.read_int(fr, st, c, ct)?;
        let x = self.read_int(fr, st, a, dt)?;
        let y = self.read_int(fr, st, b, dt)?;
        let ge = self.bin(BinOp::Ge, &cv, &Arg::K(0));
        let v = self.select(&ge, &x, &y);
        self.write(fr, st, d, V::Int(v))
    }
}

/// Opcodes that only compute floating-point values.
const FLOAT_ONLY: &[&str] = &[
    "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
];
