//! Memory, barrier and fence instructions: `ld`, `st`, `atom`, `red`,
//! `bar`/`barrier`, `membar`/`fence`. Global and shared accesses become
//! IR memory events tagged as the PTX litmus front-ends tag them
//! (docs/EVENTS.md); private memory (`.local`, call `.param`s) and kernel
//! arguments are kept by the translation.

use super::arith::{Arg, V};
use super::instr::types;
use super::memory::BufKind;
use super::tx::{Assume, Tx, TxErr, TxResult};
use super::value::{sext, BufId, Slot, State};
use crate::diag::Error;
use crate::ir::{
    Addr, BinOp, CmpOp, Indexed, InstrKind, Operand as IrOp, RegionAddr, RmwOp, ValueType,
};
use crate::ptx::ast::{Instr, Operand, Space, Type, TypeKind};
use crate::ptx::launch::ParamValue;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
}

/// What an access's modifiers say.
struct Mods {
    space: Option<Space>,
    order: Option<Order>,
    scope: Option<&'static str>,
    /// Cache operators as tags (`CA`, `CG`, … and `NC` for `.nc`).
    cache: Vec<String>,
    vec: u32,
    ty: Type,
    op: Option<String>,
}

fn order_tags(o: Order) -> &'static [&'static str] {
    match o {
        Order::Weak => &["WEAK"],
        Order::Volatile => &["RLX", "SYS", "VOLATILE"],
        Order::Relaxed => &["RLX"],
        Order::Acquire => &["ACQ"],
        Order::Release => &["REL"],
        Order::AcqRel => &["ACQ_REL", "ACQ", "REL"],
    }
}

fn scope_tag(w: &str) -> Option<&'static str> {
    match w {
        "cta" => Some("CTA"),
        "gpu" => Some("GPU"),
        "sys" => Some("SYS"),
        _ => None,
    }
}

const RMW_OPS: &[&str] = &[
    "add", "inc", "dec", "min", "max", "and", "or", "xor", "cas", "exch",
];

impl<'m> Tx<'_, 'm> {
    fn mods(&self, i: &Instr) -> TxResult<Mods> {
        let mut m = Mods {
            space: None,
            order: None,
            scope: None,
            cache: Vec::new(),
            vec: 1,
            ty: Type {
                kind: TypeKind::Bits,
                bits: 32,
            },
            op: None,
        };
        let mut ty = None;
        let unsupported = |q: &str| -> super::tx::TxErr {
            Error::unsupported(i.pos, format!("qualifier `.{q}` of `{}`", i.opcode)).into()
        };
        for q in &i.mods {
            let q = q.as_str();
            if let Some(t) = Type::from_word(q) {
                ty = Some(t);
                continue;
            }
            match q {
                "global" | "shared" | "shared::cta" | "local" | "const" | "param"
                | "param::entry" | "param::func" => {
                    m.space =
                        Space::from_word(q.split("::").next().unwrap_or(q)).or(Some(Space::Param));
                    if q.starts_with("shared") {
                        m.space = Some(Space::Shared);
                    }
                }
                "weak" => m.order = Some(Order::Weak),
                "volatile" => m.order = Some(Order::Volatile),
                "relaxed" => m.order = Some(Order::Relaxed),
                "acquire" => m.order = Some(Order::Acquire),
                "release" => m.order = Some(Order::Release),
                "acq_rel" => m.order = Some(Order::AcqRel),
                "cta" | "gpu" | "sys" => m.scope = scope_tag(q),
                "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc" => {
                    m.cache.push(q.to_uppercase())
                }
                "v2" | "v4" | "v8" => m.vec = q[1..].parse().unwrap_or(1),
                "noftz" | "unified" | "aligned" => {}
                _ if q.starts_with("L1::") || q.starts_with("L2::") => {}
                _ if RMW_OPS.contains(&q) && matches!(i.opcode.as_str(), "atom" | "red") => {
                    m.op = Some(q.to_string())
                }
                _ => return Err(unsupported(q)),
            }
        }
        m.ty = ty.ok_or_else(|| {
            super::tx::TxErr::from(Error::syntax(
                i.pos,
                format!("`{}` needs a type (`.u32`, `.b64`, …)", i.opcode),
            ))
        })?;
        Ok(m)
    }

    /// The tags of a global or shared access (docs/EVENTS.md, the PTX
    /// and GPU_PTX front-ends).
    fn access_tags(&self, i: &Instr, m: &Mods, rmw: bool) -> TxResult<Vec<String>> {
        let order = match (m.order, rmw) {
            (Some(Order::Weak) | Some(Order::Volatile), true) => {
                return Err(Error::syntax(
                    i.pos,
                    format!("`{}` cannot be weak or volatile", i.opcode),
                )
                .into())
            }
            (Some(o), _) => o,
            (None, true) => Order::Relaxed,
            (None, false) => Order::Weak,
        };
        let scope = match (order, m.scope) {
            (Order::Weak | Order::Volatile, Some(_)) => {
                return Err(Error::syntax(i.pos, "weak and volatile accesses take no scope").into())
            }
            (Order::Weak | Order::Volatile, None) => None,
            (_, Some(s)) => Some(s),
            (_, None) if rmw => Some("GPU"),
            (_, None) => {
                return Err(Error::syntax(
                    i.pos,
                    format!("`{}` needs a scope (`.cta`, `.gpu` or `.sys`)", i.text),
                )
                .into())
            }
        };
        let mut tags: Vec<String> = order_tags(order).iter().map(|t| t.to_string()).collect();
        if let Some(s) = scope {
            tags.push(s.to_string());
        }
        if order == Order::Weak {
            tags.extend(m.cache.iter().cloned());
        }
        tags.push("GEN".into());
        Ok(tags)
    }

    /// The buffer and byte offset an address operand `[base+imm]` names.
    fn address(&mut self, fr: usize, st: &mut State, a: &Operand) -> TxResult<(BufId, Arg)> {
        let Operand::Mem { base, offset, .. } = a else {
            return Err(Error::syntax(a.pos(), "expected an address `[…]`").into());
        };
        let t = self.addr_type();
        match self.read(fr, st, base, t)? {
            V::Ptr { buf, off } => {
                let off = self.bin(BinOp::Add, &off, &Arg::K(*offset));
                Ok((buf, off))
            }
            V::Int(_) => Err(Error::unsupported(
                a.pos(),
                "an address not derived from a kernel argument or a variable (computed from integers, or loaded from memory)",
            )
            .into()),
        }
    }

    /// Checks an access's state space against the buffer it reaches.
    fn check_space(&self, i: &Instr, m: &Mods, buf: BufId) -> TxResult<()> {
        let b = &self.sh.mem.buffers[buf];
        let ok = matches!(
            (m.space, b.kind),
            (None, _)
                | (Some(Space::Global), BufKind::Global)
                | (Some(Space::Shared), BufKind::Shared)
                | (Some(Space::Const), BufKind::Const)
                | (
                    Some(Space::Local | Space::Param),
                    BufKind::Private | BufKind::LocalMemory
                )
                | (Some(Space::Param), BufKind::Param)
        );
        if ok {
            Ok(())
        } else {
            Err(Error::semantic(
                i.pos,
                format!(
                    "`{}` reaches `{}`, which is {} memory",
                    i.text,
                    b.name,
                    b.space()
                ),
            )
            .into())
        }
    }

    /// The IR address of `size` bytes at `off` in `buf`; `None` when the
    /// access is out of bounds (then undefined behaviour is emitted).
    pub(super) fn cell_addr(
        &mut self,
        buf: BufId,
        off: &Arg,
        size: u32,
        write: bool,
    ) -> TxResult<Option<Addr>> {
        let b = &self.sh.mem.buffers[buf];
        let copy = if b.kind == BufKind::Shared {
            self.th.cta
        } else {
            0
        };
        let pos = self.pos;
        match off {
            Arg::K(o) => {
                // The offset is the program's: its end may not fit in
                // i64 (then it is past every buffer).
                let end = o.checked_add(i64::from(size));
                let past = b
                    .size
                    .is_some_and(|n| end.is_none_or(|e| i128::from(e) > i128::from(n)));
                if *o < 0 || past {
                    let bytes = |n: u64| format!("{n} byte{}", if n == 1 { "" } else { "s" });
                    let decl = b.decl.clone().unwrap_or_else(|| format!(".{}", b.space()));
                    let has = b
                        .size
                        .map(|n| format!(", which has {} ({decl})", bytes(n)))
                        .unwrap_or_default();
                    let what = if *o == 0 {
                        // The access is wider than the buffer (a 4-byte
                        // atomic on a `char`).
                        format!(
                            "`{}` at {pos} accesses {} of `{}`{has}",
                            crate::diag::excerpt(&self.text),
                            bytes(size.into()),
                            b.name
                        )
                    } else {
                        format!(
                            "out-of-bounds access: `{}` at {pos} reaches bytes {}..{} of `{}`{has}",
                            crate::diag::excerpt(&self.text),
                            o,
                            i128::from(*o) + i128::from(size),
                            b.name,
                        )
                    };
                    self.emit(InstrKind::Unreachable { cause: Some(what) }, vec![]);
                    return Ok(None);
                }
                if *o % i64::from(size) != 0 {
                    // PTX requires naturally aligned addresses.
                    let cause = format!(
                        "misaligned access: `{}` at {pos} accesses {size} bytes at offset {o} of `{}`",
                        crate::diag::excerpt(&self.text),
                        b.name
                    );
                    self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                    return Ok(None);
                }
                if self.th.generic {
                    return Ok(Some(self.region(buf, off, size)));
                }
                Ok(Some(Addr::Fixed(
                    self.sh.mem.cell(buf, copy, *o, size, write, pos),
                )))
            }
            Arg::R(_) => {
                if size > 1 {
                    // A run-time offset that is not a multiple of the size
                    // is a misaligned address (undefined): checked here, as
                    // the index below drops the low bits.
                    let low = self.bin(BinOp::And, off, &Arg::K(i64::from(size) - 1));
                    let cause = format!(
                        "misaligned access: `{}` at {pos} accesses {size} bytes of `{}` at an offset computed at run time that is not a multiple of {size}",
                        crate::diag::excerpt(&self.text),
                        self.sh.mem.buffers[buf].name
                    );
                    match low {
                        Arg::K(0) => {}
                        Arg::K(_) => {
                            self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                            return Ok(None);
                        }
                        Arg::R(_) => {
                            let ok = self.label();
                            self.emit(
                                InstrKind::Branch {
                                    op: CmpOp::Eq,
                                    a: low.ir(),
                                    b: IrOp::Const(0),
                                    target: ok.clone(),
                                },
                                vec![],
                            );
                            self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
                            self.emit_label(ok);
                        }
                    }
                }
                if self.th.generic {
                    return Ok(Some(self.bounded_region(buf, off, size)));
                }
                let index = if size.is_power_of_two() {
                    self.bin(BinOp::Shr, off, &Arg::K(i64::from(size.trailing_zeros())))
                } else {
                    self.bin(BinOp::Div, off, &Arg::K(i64::from(size)))
                };
                let cells = self.sh.mem.array(buf, copy, size, write, pos)?;
                let array = self.sh.mem.buffers[buf].name.clone();
                Ok(Some(Addr::Indexed(Box::new(Indexed {
                    index: index.ir(),
                    cells,
                    array,
                }))))
            }
        }
    }

    /// The generic thread's address of `size` bytes at `off` in `buf`.
    fn region(&self, buf: BufId, off: &Arg, size: u32) -> Addr {
        Addr::Region(Box::new(RegionAddr {
            region: buf,
            offset: off.ir(),
            bytes: size,
            bounds: Vec::new(),
        }))
    }

    /// [`Self::region`] at an offset computed at run time: where the
    /// buffer's size is known, an offset past it is undefined behaviour
    /// (checked by a branch); a buffer of unknown size is large enough.
    fn bounded_region(&mut self, buf: BufId, off: &Arg, size: u32) -> Addr {
        if let Some(n) = self.sh.mem.buffers[buf].size {
            let last = i64::try_from(n).unwrap_or(i64::MAX) - i64::from(size);
            let b = &self.sh.mem.buffers[buf];
            let cause = format!(
                "out-of-bounds access: `{}` at {} reaches past the {n} bytes of `{}`{}",
                crate::diag::excerpt(&self.text),
                self.pos,
                b.name,
                b.decl
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            );
            let ok = self.label();
            if last >= 0 {
                let inside = self.bin(BinOp::Ule, off, &Arg::K(last));
                self.emit(
                    InstrKind::Branch {
                        op: CmpOp::Ne,
                        a: inside.ir(),
                        b: IrOp::Const(0),
                        target: ok.clone(),
                    },
                    vec![],
                );
            }
            self.emit(InstrKind::Unreachable { cause: Some(cause) }, vec![]);
            self.emit_label(ok);
        }
        self.region(buf, off, size)
    }

    /// `ld`, `ldu`, `st`, `atom`, `red`.
    pub(super) fn memory(&mut self, fr: usize, st: &mut State, i: &'m Instr) -> TxResult<()> {
        let m = self.mods(i)?;
        match i.opcode.as_str() {
            "ld" | "ldu" => self.load(fr, st, i, &m),
            "st" => self.store(fr, st, i, &m),
            _ => self.rmw(fr, st, i, &m),
        }
    }

    fn elems<'o>(&self, i: &Instr, op: &'o Operand, m: &Mods) -> TxResult<Vec<&'o Operand>> {
        let v: Vec<&Operand> = match op {
            Operand::Vector { elems, .. } => elems.iter().collect(),
            other => vec![other],
        };
        if v.len() as u32 != m.vec {
            return Err(Error::syntax(
                i.pos,
                format!(
                    "`{}`: {} registers for a `.v{}` access",
                    i.opcode,
                    v.len(),
                    m.vec
                ),
            )
            .into());
        }
        Ok(v)
    }

    /// A value loaded as type `t` into register `dst`: unsigned loads
    /// narrower than the register are zero-extended (PTX ISA, `ld`).
    fn widen(&mut self, fr: usize, dst: &Operand, t: Type, v: V) -> V {
        let V::Int(a) = v else { return v };
        let reg_bits = match dst {
            Operand::Reg { name, .. } => self.reg_bits(fr, name).unwrap_or(t.bits),
            _ => t.bits,
        };
        if t.kind != TypeKind::Signed && t.bits < reg_bits {
            V::Int(self.zext(&a, t.bits))
        } else {
            V::Int(a)
        }
    }

    /// The registers of a (vector) access and, for each, the buffer and
    /// byte offset it reaches.
    fn accesses<'o>(
        &mut self,
        fr: usize,
        st: &mut State,
        i: &Instr,
        m: &Mods,
        addr: &Operand,
        regs: &'o Operand,
    ) -> TxResult<(BufId, Vec<(&'o Operand, Arg)>)> {
        let regs = self.elems(i, regs, m)?;
        let (buf, off) = self.address(fr, st, addr)?;
        self.check_space(i, m, buf)?;
        let size = i64::from(m.ty.bytes());
        let mut out = Vec::with_capacity(regs.len());
        for (k, r) in regs.into_iter().enumerate() {
            let o = self.bin(BinOp::Add, &off, &Arg::K(k as i64 * size));
            out.push((r, o));
        }
        Ok((buf, out))
    }

    fn load(&mut self, fr: usize, st: &mut State, i: &'m Instr, m: &Mods) -> TxResult<()> {
        let [d, a] = self.ops::<2>(i)?;
        let (buf, each) = self.accesses(fr, st, i, m, a, d)?;
        let size = m.ty.bytes();
        let kind = self.sh.mem.buffers[buf].kind;
        for (dst, o) in each {
            let v = match kind {
                BufKind::Private => self.priv_read(st, buf, &o, size)?,
                BufKind::Param => {
                    let k = self.sh.kparam_buf[&buf];
                    self.param_read(k, &o, size)?
                }
                BufKind::Const
                    if o.known().is_some()
                        && self
                            .sh
                            .mem
                            .known(buf, o.known().unwrap_or(0), size)
                            .is_some() =>
                {
                    let c = self
                        .sh
                        .mem
                        .known(buf, o.known().unwrap_or(0), size)
                        .unwrap_or(0);
                    V::Int(Arg::K(c))
                }
                BufKind::Global if !self.is_memory(buf) => self.read_only(buf, &o, size)?,
                BufKind::LocalMemory if self.local_address(st, buf, &o, size)?.is_some() => {
                    let s = self.local_address(st, buf, &o, size)?.expect("checked");
                    self.load_slot(st, &s, size * 8)
                }
                _ => {
                    let tags = self.access_tags(i, m, false)?;
                    match self.cell_addr(buf, &o, size, false)? {
                        Some(addr) => {
                            let t = self.temp();
                            self.emit(
                                InstrKind::Load {
                                    dst: t.clone(),
                                    addr,
                                },
                                tags,
                            );
                            V::Int(Arg::R(t))
                        }
                        None => V::Int(self.havoc(size * 8)),
                    }
                }
            };
            let v = self.widen(fr, dst, m.ty, v);
            self.write(fr, st, dst, v)?;
        }
        Ok(())
    }

    fn store(&mut self, fr: usize, st: &mut State, i: &'m Instr, m: &Mods) -> TxResult<()> {
        let [a, s] = self.ops::<2>(i)?;
        let (buf, each) = self.accesses(fr, st, i, m, a, s)?;
        let size = m.ty.bytes();
        let kind = self.sh.mem.buffers[buf].kind;
        for (src, o) in each {
            let v = self.read(fr, st, src, m.ty)?;
            match kind {
                BufKind::Private => self.priv_write(st, buf, &o, size, v)?,
                BufKind::Param | BufKind::Const => {
                    return Err(Error::semantic(
                        i.pos,
                        format!(
                            "`{}` writes read-only {} memory",
                            i.text,
                            self.sh.mem.buffers[buf].space()
                        ),
                    )
                    .into())
                }
                BufKind::LocalMemory if matches!(v, V::Ptr { .. }) => {
                    // Addresses stay with the translation (IR memory holds
                    // integers).
                    self.priv_write(st, buf, &o, size, v)?
                }
                BufKind::Global | BufKind::Shared | BufKind::LocalMemory => {
                    self.written(buf)?;
                    if kind == BufKind::LocalMemory {
                        self.local_address(st, buf, &o, size)?;
                        if let Some(k) = o.known() {
                            for s in st.overlapping(buf, k, size) {
                                st.slots.remove(&s);
                            }
                            st.slots.remove(&Slot::Priv(buf, k, size));
                        }
                    }
                    let x = self.int(v, "a value stored to memory")?;
                    let x = self.sext(&x, size * 8);
                    let tags = self.access_tags(i, m, false)?;
                    if let Some(addr) = self.cell_addr(buf, &o, size, true)? {
                        self.emit(
                            InstrKind::Store {
                                addr,
                                value: x.ir(),
                            },
                            tags,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    fn rmw(&mut self, fr: usize, st: &mut State, i: &'m Instr, m: &Mods) -> TxResult<()> {
        let red = i.opcode == "red";
        let Some(opname) = m.op.clone() else {
            return Err(Error::syntax(
                i.pos,
                format!(
                    "`{}` needs an operation (`.add`, `.cas`, `.exch`, …)",
                    i.opcode
                ),
            )
            .into());
        };
        let cas = opname == "cas";
        let (dst, a, b, c) = match (red, cas, i.operands.as_slice()) {
            (true, false, [a, b]) => (None, a, b, None),
            (false, false, [d, a, b]) => (Some(d), a, b, None),
            (false, true, [d, a, b, c]) => (Some(d), a, b, Some(c)),
            _ => {
                return Err(Error::syntax(
                    i.pos,
                    format!("wrong number of operands for `{}`", i.text),
                )
                .into())
            }
        };
        if m.vec != 1 {
            return Err(Error::unsupported(i.pos, "vector atomics").into());
        }
        let (buf, off) = self.address(fr, st, a)?;
        self.check_space(i, m, buf)?;
        let kind = self.sh.mem.buffers[buf].kind;
        if !matches!(
            kind,
            BufKind::Global | BufKind::Shared | BufKind::LocalMemory
        ) {
            return Err(Error::unsupported(
                i.pos,
                format!(
                    "`{}` on {} memory",
                    i.opcode,
                    self.sh.mem.buffers[buf].space()
                ),
            )
            .into());
        }
        self.written(buf)?;
        let t = m.ty;
        let size = t.bytes();
        let float = t.kind == TypeKind::Float;
        let x = self.read_int(fr, st, b, t)?;
        let signed = t.kind == TypeKind::Signed;
        let (op, operand) = match opname.as_str() {
            // Floating-point arithmetic is not modelled: the write stores
            // an arbitrary value.
            _ if float && opname != "exch" && opname != "cas" => {
                (RmwOp::Exch, self.havoc(size * 8))
            }
            "add" => (RmwOp::Add, x),
            "inc" => (RmwOp::Inc, x),
            "dec" => (RmwOp::Dec, x),
            "min" => (if signed { RmwOp::Min } else { RmwOp::UMin }, x),
            "max" => (if signed { RmwOp::Max } else { RmwOp::UMax }, x),
            "and" => (RmwOp::And, x),
            "or" => (RmwOp::Or, x),
            "xor" => (RmwOp::Xor, x),
            "exch" => (RmwOp::Exch, x),
            _ => {
                let Some(c) = c else {
                    unreachable!("cas has four operands")
                };
                let nv = self.read_int(fr, st, c, t)?;
                (RmwOp::Cas { expected: x.ir() }, nv)
            }
        };
        let tags = self.access_tags(i, m, true)?;
        let Some(addr) = self.cell_addr(buf, &off, size, true)? else {
            if let Some(d) = dst {
                let v = self.havoc(size * 8);
                self.write(fr, st, d, V::Int(v))?;
            }
            return Ok(());
        };
        let t_dst = dst.map(|_| self.temp());
        self.emit(
            InstrKind::Rmw {
                dst: t_dst.clone(),
                addr,
                op,
                operand: operand.ir(),
            },
            tags,
        );
        if let (Some(d), Some(r)) = (dst, t_dst) {
            let v = self.widen(fr, d, t, V::Int(Arg::R(r)));
            self.write(fr, st, d, v)?;
        }
        Ok(())
    }

    /// Whether a global buffer is memory (written, or indexed at run
    /// time, by some thread of the launch).
    fn is_memory(&self, buf: BufId) -> bool {
        self.sh
            .learned
            .memory
            .contains(&self.sh.mem.buffers[buf].name)
    }

    /// A write to a global buffer: it is memory, which the translations so
    /// far may have assumed it is not.
    fn written(&mut self, buf: BufId) -> TxResult<()> {
        let b = &self.sh.mem.buffers[buf];
        if b.kind == BufKind::Global && !self.is_memory(buf) {
            return Err(TxErr::Restart(Assume::Memory(b.name.clone())));
        }
        Ok(())
    }

    /// A load from a global buffer no thread writes: its initial
    /// contents, the same in every thread and every execution — known, or
    /// one free input per cell. No write can race with it.
    fn read_only(&mut self, buf: BufId, off: &Arg, size: u32) -> TxResult<V> {
        let Some(o) = off.known() else {
            if self.sh.mem.known(buf, 0, size).is_some() {
                // Known contents: the cells hold them, any index reads them.
                let addr = self.cell_addr(buf, off, size, false)?;
                return Ok(V::Int(match addr {
                    Some(addr) => {
                        let t = self.temp();
                        self.emit(
                            InstrKind::Load {
                                dst: t.clone(),
                                addr,
                            },
                            vec!["WEAK".into(), "GEN".into()],
                        );
                        Arg::R(t)
                    }
                    None => self.havoc(size * 8),
                }));
            }
            // Free inputs cannot be indexed at run time: memory it is.
            return Err(TxErr::Restart(Assume::Memory(
                self.sh.mem.buffers[buf].name.clone(),
            )));
        };
        let b = &self.sh.mem.buffers[buf];
        if o < 0 || b.size.is_some_and(|n| o + i64::from(size) > n as i64) {
            // Out of bounds: `cell_addr` emits the undefined behaviour.
            self.cell_addr(buf, off, size, false)?;
            return Ok(V::Int(self.havoc(size * 8)));
        }
        let stored = b
            .pointers
            .iter()
            .find(|p| p.0 < o + i64::from(size) && o < p.0 + i64::from(p.1))
            .cloned();
        if let Some((at, bytes, sym, off)) = stored {
            // An address the initialiser stored, read whole: the pointer.
            if (at, bytes) != (o, size) {
                return Err(Error::unsupported(
                    self.pos,
                    format!(
                        "a partial read of the address of `{sym}` stored in `{}`",
                        b.name
                    ),
                )
                .into());
            }
            return self.symbol_address(&sym, off);
        }
        if let Some(c) = self.sh.mem.known(buf, o, size) {
            return Ok(V::Int(Arg::K(c)));
        }
        let idx = match self.sh.cell_input.get(&(buf, o, size)) {
            Some(&i) => i,
            None => {
                let name = self.sh.mem.cell_name(buf, o, size);
                self.sh.inputs.push(crate::ir::Input {
                    name,
                    ty: ValueType::Int(size * 8),
                    value: None,
                });
                let i = self.sh.inputs.len() - 1;
                self.sh.cell_input.insert((buf, o, size), i);
                i
            }
        };
        let t = self.temp();
        self.emit(
            InstrKind::Input {
                dst: t.clone(),
                input: idx,
            },
            vec![],
        );
        Ok(V::Int(Arg::R(t)))
    }

    /// A private array in IR memory keeps the addresses stored into it at
    /// known offsets with the translation: the slot of such an address
    /// (`None`: the access goes to memory). A run-time offset into an
    /// array that holds an address is unsupported.
    fn local_address(
        &self,
        st: &State,
        buf: BufId,
        off: &Arg,
        size: u32,
    ) -> TxResult<Option<Slot>> {
        let holds = |s: &Slot| matches!(st.get(s), super::value::Val::Ptr { .. });
        match off.known() {
            Some(o) => {
                let s = Slot::Priv(buf, o, size);
                Ok(holds(&s).then_some(s))
            }
            None => {
                let any = st
                    .slots
                    .keys()
                    .any(|s| matches!(s, Slot::Priv(b, _, _) if *b == buf) && holds(s));
                if any {
                    return Err(Error::unsupported(
                        self.pos,
                        format!(
                            "an address computed at run time into `{}`, which also holds an address",
                            self.sh.mem.buffers[buf].name
                        ),
                    )
                    .into());
                }
                Ok(None)
            }
        }
    }

    /// An address into a private buffer computed at run time: the
    /// translation starts again with the buffer in IR memory.
    fn local_memory(&self, buf: BufId) -> TxErr {
        match self.sh.private_owner.get(&buf) {
            Some((f, v)) => TxErr::Restart(Assume::LocalMemory(f.clone(), v.clone())),
            None => Error::unsupported(
                self.pos,
                format!(
                    "an address into `{}` computed at run time",
                    self.sh.mem.buffers[buf].name
                ),
            )
            .into(),
        }
    }

    fn priv_read(&mut self, st: &mut State, buf: BufId, off: &Arg, size: u32) -> TxResult<V> {
        let Some(o) = off.known() else {
            return Err(self.local_memory(buf));
        };
        Ok(self.load_slot(st, &Slot::Priv(buf, o, size), size * 8))
    }

    fn priv_write(
        &mut self,
        st: &mut State,
        buf: BufId,
        off: &Arg,
        size: u32,
        v: V,
    ) -> TxResult<()> {
        let Some(o) = off.known() else {
            return Err(self.local_memory(buf));
        };
        // Bytes another cell held are that cell's no more.
        for s in st.overlapping(buf, o, size) {
            st.slots.remove(&s);
        }
        let v = match v {
            V::Int(a) => V::Int(self.sext(&a, size * 8)),
            p => p,
        };
        self.store_slot(st, Slot::Priv(buf, o, size), v);
        Ok(())
    }

    /// `size` bytes at `off` of kernel argument `k`.
    fn param_read(&mut self, k: usize, off: &Arg, size: u32) -> TxResult<V> {
        let Some(o) = off.known() else {
            return Err(Error::unsupported(
                self.pos,
                "a kernel argument read at an offset computed at run time",
            )
            .into());
        };
        let addr_bytes = self.sh.address_bits / 8;
        let p = &self.sh.params[k];
        let whole = o == 0 && size == addr_bytes && p.bytes == u64::from(size);
        match p.given.clone() {
            Some(ParamValue::Int(v)) => {
                let shifted = if (0..8).contains(&o) { v >> (8 * o) } else { 0 };
                Ok(V::Int(Arg::K(sext(shifted, size * 8))))
            }
            Some(ParamValue::Buffer { .. }) if whole => Ok(V::Ptr {
                buf: self.sh.param_buf[&k],
                off: Arg::K(0),
            }),
            Some(ParamValue::Buffer { .. }) => Err(Error::semantic(
                self.pos,
                format!(
                    "parameter `{}` is given as a buffer but read as {size} bytes at offset {o}",
                    p.name
                ),
            )
            .into()),
            None if whole
                && p.ty.kind != TypeKind::Float
                && !self.sh.learned.int_params.contains(&(k, 0)) =>
            {
                let buf = self.free_pointer(k, None);
                Ok(V::Ptr {
                    buf,
                    off: Arg::K(0),
                })
            }
            // A pointer-sized, aligned field of a struct argument (a
            // `.b8` array): a pointer too, until used as an integer.
            None if p.bytes > u64::from(size)
                && size == addr_bytes
                && o % i64::from(addr_bytes) == 0
                && !self.sh.learned.int_params.contains(&(k, o)) =>
            {
                let buf = self.free_pointer(k, Some(o));
                Ok(V::Ptr {
                    buf,
                    off: Arg::K(0),
                })
            }
            None => {
                let idx = self.input(k, o, size);
                let t = self.temp();
                self.emit(
                    InstrKind::Input {
                        dst: t.clone(),
                        input: idx,
                    },
                    vec![],
                );
                if self.sh.learned.fn_params.contains(&(k, o)) {
                    self.function_pointer_argument(k, &t);
                }
                Ok(V::Int(Arg::R(t)))
            }
        }
    }

    /// A called argument nobody gave (register `t`) holds the address of
    /// a function whose address the module takes — the host can only
    /// have obtained it from the module (`cudaMemcpyFromSymbol` of a
    /// `__device__` pointer): an assumption the report states. Other
    /// values are ruled out rather than reported as calls to no function.
    fn function_pointer_argument(&mut self, k: usize, t: &str) {
        let taken: Vec<(&str, i64)> = self
            .code
            .taken
            .iter()
            .map(|f| (*f, self.code.fn_addr[f]))
            .collect();
        if taken.is_empty() {
            return;
        }
        let mut any = Arg::K(0);
        for &(_, a) in &taken {
            let is = self.bin(BinOp::Eq, &Arg::R(t.to_string()), &Arg::K(a));
            any = self.bin(BinOp::Or, &any, &is);
        }
        let ok = self.label();
        self.emit(
            InstrKind::Branch {
                op: CmpOp::Ne,
                a: any.ir(),
                b: IrOp::Const(0),
                target: ok.clone(),
            },
            vec![],
        );
        self.emit(InstrKind::Infeasible, vec![]);
        self.emit_label(ok);
        let prefix = format!("{}_", self.code.kernel.name);
        let name = super::display_param(&self.sh.params[k].name, &prefix);
        let names: Vec<String> = taken
            .iter()
            .map(|(f, _)| {
                let shown = crate::ptx::demangle::source_name(f).map_or(f.to_string(), |n| n.full);
                format!("`{shown}`")
            })
            .collect();
        let a = format!(
            "the function pointer argument `{name}` holds the address of a function whose address the module takes ({})",
            names.join(", ")
        );
        if !self.sh.assumptions.contains(&a) {
            self.sh.assumptions.push(a);
        }
    }

    /// The buffer a pointer argument nobody gave points to, or (`field`)
    /// the one the pointer-sized field at that byte offset of a struct
    /// argument points to: each its own buffer, as separate pointer
    /// arguments are.
    fn free_pointer(&mut self, k: usize, field: Option<i64>) -> BufId {
        let known = match field {
            None => self.sh.param_buf.get(&k),
            Some(o) => self.sh.field_buf.get(&(k, o)),
        };
        if let Some(&b) = known {
            return b;
        }
        let prefix = format!("{}_", self.code.kernel.name);
        let name = super::display_param(&self.sh.params[k].name, &prefix);
        let (name, size_hint) = match field {
            None => (
                name.clone(),
                format!(" (give it with `--param {name}=buf:BYTES`)"),
            ),
            Some(o) => (
                format!("{name}+{o}"),
                " (a pointer in a struct argument: its size cannot be given)".to_string(),
            ),
        };
        let b = self.sh.mem.add(super::memory::Buffer {
            name,
            kind: BufKind::Global,
            size: None,
            contents: super::memory::Contents::Arbitrary,
            decl: None,
            size_hint: Some(size_hint),
            pointers: Vec::new(),
        });
        match field {
            None => self.sh.param_buf.insert(k, b),
            Some(o) => self.sh.field_buf.insert((k, o), b),
        };
        self.sh.free_ptr_param.insert(b, (k, field.unwrap_or(0)));
        b
    }

    /// The program input of bytes `[off, off+size)` of argument `k`.
    fn input(&mut self, k: usize, off: i64, size: u32) -> usize {
        if let Some(&i) = self.sh.input_of.get(&(k, off, size)) {
            return i;
        }
        let prefix = format!("{}_", self.code.kernel.name);
        let mut name = super::display_param(&self.sh.params[k].name, &prefix);
        if off != 0 {
            name = format!("{name}+{off}");
        }
        self.sh.inputs.push(crate::ir::Input {
            name,
            ty: ValueType::Int(size * 8),
            value: None,
        });
        let i = self.sh.inputs.len() - 1;
        self.sh.input_of.insert((k, off, size), i);
        i
    }

    /// `bar.sync`, `bar.arrive`, `bar.red`, `barrier.*`, `bar.warp.sync`.
    pub(super) fn barrier(&mut self, fr: usize, st: &mut State, i: &'m Instr) -> TxResult<()> {
        let words: Vec<&str> = i
            .mods
            .iter()
            .map(String::as_str)
            .filter(|w| *w != "cta" && *w != "aligned")
            .collect();
        let u32t = Type {
            kind: TypeKind::Unsigned,
            bits: 32,
        };
        if words.first() == Some(&"warp") {
            // bar.warp.sync mask: the threads of the warp.
            // (The generic thread's warp is not known: its warp
            // barriers share one resource, which the parametric engine
            // does not take as ordering.)
            let warp = if self.th.generic {
                0
            } else {
                self.th.linear / 32
            };
            let base = crate::ir::WARP_BARRIER_IDS | (i64::from(warp) << 20);
            let id = self.barrier_instance(st, base);
            self.emit(
                InstrKind::Barrier {
                    id,
                    count: None,
                    arrive: false,
                },
                vec!["B".into(), "CBAR".into(), "CTA".into(), "GEN".into()],
            );
            return Ok(());
        }
        let (mode, rest) = match words.as_slice() {
            ["sync"] => ("sync", &i.operands[..]),
            ["arrive"] => ("arrive", &i.operands[..]),
            ["red", ..] => ("red", &i.operands[1..]),
            _ => return Err(self.unsupported_instr(i)),
        };
        let (a, b) = match (mode, rest) {
            ("red", [a, _]) => (a, None),
            ("red", [a, b, _]) => (a, Some(b)),
            ("sync", [a]) => (a, None),
            ("sync" | "arrive", [a, b]) => (a, Some(b)),
            _ => {
                return Err(Error::syntax(i.pos, format!("wrong operands for `{}`", i.text)).into())
            }
        };
        let Some(n) = self.read_int(fr, st, a, u32t)?.known() else {
            return Err(Error::unsupported(i.pos, "a barrier number computed at run time").into());
        };
        if !(0..16).contains(&n) {
            return Err(Error::semantic(i.pos, format!("barrier number {n} (0 to 15)")).into());
        }
        let count = match b {
            Some(b) => Some(self.read_int(fr, st, b, u32t)?.ir()),
            None => None,
        };
        let id = self.barrier_instance(st, n << 32);
        // `bar.red` without a thread count: its predicates are exchanged
        // (`collective.rs`), stored before the barrier.
        let red = match (mode, b) {
            ("red", None) => {
                let p = i.operands.last().expect("bar.red has three operands");
                let p = self.read_int(
                    fr,
                    st,
                    p,
                    Type {
                        kind: TypeKind::Pred,
                        bits: 1,
                    },
                )?;
                let p = self.bin(BinOp::Ne, &p, &Arg::K(0));
                let arrival = match &id {
                    IrOp::Const(c) => Arg::K(c - (n << 32)),
                    IrOp::Reg(r) => self.bin(BinOp::Sub, &Arg::R(r.clone()), &Arg::K(n << 32)),
                };
                self.bar_red_store(n, &arrival, &p)?.map(|tag| (tag, p))
            }
            _ => None,
        };
        let mut tags: Vec<String> = ["B", "CBAR", "CTA"].iter().map(|t| t.to_string()).collect();
        if mode == "arrive" {
            tags.push("ARRIVE".into());
        }
        tags.push("GEN".into());
        self.emit(
            InstrKind::Barrier {
                id,
                count,
                arrive: mode == "arrive",
            },
            tags,
        );
        if mode == "red" {
            let v = match &red {
                Some((tag, p)) => self.bar_red_result(i, n, tag, p)?,
                None => {
                    // With a thread count, the reduction is not modelled.
                    let a = "results of `bar.red` with a thread count are arbitrary values in each thread".to_string();
                    if !self.sh.assumptions.contains(&a) {
                        self.sh.assumptions.push(a);
                    }
                    let bits = types(i).first().map_or(32, |t| t.bits);
                    self.havoc(bits)
                }
            };
            self.write(fr, st, &i.operands[0], V::Int(v))?;
        }
        Ok(())
    }

    /// The id of this arrival at barrier resource `base`: the `k`-th
    /// arrival of each thread meets the others' `k`-th.
    fn barrier_instance(&mut self, st: &mut State, base: i64) -> IrOp {
        let slot = Slot::Bar(base as u64);
        match self.load_slot_known(st, &slot) {
            Some(k) => {
                st.set(slot, super::value::Val::Known(k + 1));
                IrOp::Const(base + k)
            }
            None => {
                let r = self.slot_reg(&slot);
                let t = self.bin(BinOp::Add, &Arg::R(r.clone()), &Arg::K(base));
                let n = self.bin(BinOp::Add, &Arg::R(r.clone()), &Arg::K(1));
                self.emit_move(r, n.ir());
                t.ir()
            }
        }
    }

    fn load_slot_known(&self, st: &State, s: &Slot) -> Option<i64> {
        match st.get(s) {
            super::value::Val::Known(k) => Some(k),
            super::value::Val::Undef => Some(0),
            _ => None,
        }
    }

    /// `membar.{cta,gl,sys}`, `fence.{sc,acq_rel}.{cta,gpu,sys}`.
    pub(super) fn fence(&mut self, i: &'m Instr) -> TxResult<()> {
        let words: Vec<&str> = i.mods.iter().map(String::as_str).collect();
        let (order, scope) = match (i.opcode.as_str(), words.as_slice()) {
            ("membar", ["cta"]) => ("sc", "CTA"),
            ("membar", ["gl"]) => ("sc", "GPU"),
            ("membar", ["sys"]) => ("sc", "SYS"),
            ("fence", [o @ ("sc" | "acq_rel"), s]) if scope_tag(s).is_some() => {
                (*o, scope_tag(s).unwrap_or("GPU"))
            }
            _ => return Err(self.unsupported_instr(i)),
        };
        let mut tags: Vec<String> = vec!["F".into()];
        if order == "sc" {
            tags.push("SC".into());
        }
        tags.extend(
            ["ACQ_REL", "ACQ", "REL", scope, "GEN"]
                .iter()
                .map(|t| t.to_string()),
        );
        self.emit(InstrKind::Fence, tags);
        Ok(())
    }
}
