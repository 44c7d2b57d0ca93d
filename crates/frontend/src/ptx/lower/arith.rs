//! Values as operands: known integers, IR registers, addresses — and the
//! arithmetic on them that folds what is known and emits IR for the rest.

use super::tx::{Assume, Tx, TxErr, TxResult};
use super::value::{sext, zext, BufId, Slot, State, Val};
use crate::diag::Error;
use crate::ir::{BinOp, InstrKind, Operand as IrOp, ValueType};

/// An integer operand: known, or in an IR register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Arg {
    K(i64),
    R(String),
}

impl Arg {
    pub fn ir(&self) -> IrOp {
        match self {
            Arg::K(c) => IrOp::Const(*c),
            Arg::R(r) => IrOp::Reg(r.clone()),
        }
    }

    pub fn known(&self) -> Option<i64> {
        match self {
            Arg::K(c) => Some(*c),
            Arg::R(_) => None,
        }
    }
}

/// A value read from an operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum V {
    Int(Arg),
    /// An address: a buffer and a byte offset into it.
    Ptr {
        buf: BufId,
        off: Arg,
    },
}

impl<'m> Tx<'_, 'm> {
    /// The value in a slot, as an operand (an uninitialised slot gets an
    /// arbitrary value).
    pub fn load_slot(&mut self, st: &mut State, s: &Slot, bits: u32) -> V {
        match st.get(s) {
            Val::Known(c) => V::Int(Arg::K(c)),
            Val::Dyn => V::Int(Arg::R(self.slot_reg(s))),
            Val::Ptr { buf, off: Some(o) } => V::Ptr {
                buf,
                off: Arg::K(o),
            },
            Val::Ptr { buf, off: None } => V::Ptr {
                buf,
                off: Arg::R(self.slot_reg(s)),
            },
            Val::Undef => {
                let r = self.slot_reg(s);
                self.emit(
                    InstrKind::Havoc {
                        dst: r.clone(),
                        ty: ValueType::Int(bits.clamp(1, 64)),
                    },
                    vec![],
                );
                st.set(s.clone(), Val::Dyn);
                V::Int(Arg::R(r))
            }
        }
    }

    /// Stores a value into a slot (moving a run-time value into the
    /// slot's register).
    pub fn store_slot(&mut self, st: &mut State, s: Slot, v: V) {
        let reg = self.slot_reg(&s);
        let val = match v {
            V::Int(Arg::K(c)) => Val::Known(c),
            V::Int(Arg::R(r)) => {
                if r != reg {
                    self.emit_move(reg, IrOp::Reg(r));
                }
                Val::Dyn
            }
            V::Ptr {
                buf,
                off: Arg::K(o),
            } => Val::Ptr { buf, off: Some(o) },
            V::Ptr {
                buf,
                off: Arg::R(r),
            } => {
                if r != reg {
                    self.emit_move(reg, IrOp::Reg(r));
                }
                Val::Ptr { buf, off: None }
            }
        };
        st.set(s, val);
    }

    /// A fresh arbitrary `bits`-bit value.
    pub fn havoc(&mut self, bits: u32) -> Arg {
        let t = self.temp();
        self.emit(
            InstrKind::Havoc {
                dst: t.clone(),
                ty: ValueType::Int(bits.clamp(1, 64)),
            },
            vec![],
        );
        Arg::R(t)
    }

    /// `a op b` on 64-bit values, folded when both are known.
    pub fn bin(&mut self, op: BinOp, a: &Arg, b: &Arg) -> Arg {
        if let (Arg::K(x), Arg::K(y)) = (a, b) {
            if let Some(v) = op.eval(*x, *y) {
                return Arg::K(v);
            }
            // Division by zero is left to the engines, which report it as
            // undefined behaviour where an execution reaches it
            // (docs/SEMANTICS.md: the CUDA source divided by zero).
        }
        // Identities that save an instruction.
        match (op, a, b) {
            (
                BinOp::Add
                | BinOp::Sub
                | BinOp::Or
                | BinOp::Xor
                | BinOp::Shl
                | BinOp::Shr
                | BinOp::Lshr,
                x,
                Arg::K(0),
            )
            | (BinOp::Add | BinOp::Or | BinOp::Xor, Arg::K(0), x)
            | (BinOp::Mul | BinOp::Div | BinOp::Udiv, x, Arg::K(1))
            | (BinOp::Mul, Arg::K(1), x)
            | (BinOp::And, x, Arg::K(-1))
            | (BinOp::And, Arg::K(-1), x) => return x.clone(),
            (BinOp::Mul | BinOp::And, _, Arg::K(0)) | (BinOp::Mul | BinOp::And, Arg::K(0), _) => {
                return Arg::K(0)
            }
            _ => {}
        }
        let t = self.temp();
        self.emit(
            InstrKind::Local {
                dst: t.clone(),
                op,
                a: a.ir(),
                b: b.ir(),
            },
            vec![],
        );
        Arg::R(t)
    }

    /// The low `bits` bits of `a`, sign-extended (the form every value of
    /// that width is kept in).
    pub fn sext(&mut self, a: &Arg, bits: u32) -> Arg {
        if bits >= 64 {
            return a.clone();
        }
        if let Arg::K(c) = a {
            return Arg::K(sext(*c, bits));
        }
        let s = Arg::K(i64::from(64 - bits));
        let t = self.bin(BinOp::Shl, a, &s);
        self.bin(BinOp::Shr, &t, &s)
    }

    /// The low `bits` bits of `a`, zero-extended.
    pub fn zext(&mut self, a: &Arg, bits: u32) -> Arg {
        if bits >= 64 {
            return a.clone();
        }
        if let Arg::K(c) = a {
            return Arg::K(zext(*c, bits));
        }
        self.bin(BinOp::And, a, &Arg::K(zext(-1, bits)))
    }

    /// `c ? x : y` for `c` in {0, 1}, without a branch.
    pub fn select(&mut self, c: &Arg, x: &Arg, y: &Arg) -> Arg {
        match c {
            Arg::K(0) => return y.clone(),
            Arg::K(_) => return x.clone(),
            Arg::R(_) => {}
        }
        if x == y {
            return x.clone();
        }
        // y ^ ((x ^ y) & -c)
        let m = self.bin(BinOp::Sub, &Arg::K(0), c);
        let d = self.bin(BinOp::Xor, x, y);
        let d = self.bin(BinOp::And, &d, &m);
        self.bin(BinOp::Xor, y, &d)
    }

    /// An integer operand from a value; an address used as an integer
    /// either means a free argument is an integer after all (a new
    /// translation) or is unsupported.
    pub fn int(&self, v: V, what: &str) -> TxResult<Arg> {
        match v {
            V::Int(a) => Ok(a),
            V::Ptr { buf, .. } => Err(self.ptr_as_int(buf, what)),
        }
    }

    pub fn ptr_as_int(&self, buf: BufId, what: &str) -> TxErr {
        if let Some(&(k, o)) = self.sh.free_ptr_param.get(&buf) {
            return TxErr::Restart(Assume::IntParam(k, o));
        }
        Error::unsupported(
            self.pos,
            format!(
                "the address of `{}` used as an integer ({what})",
                self.sh.mem.buffers[buf].name
            ),
        )
        .into()
    }
}
