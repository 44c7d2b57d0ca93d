//! Registers and register arithmetic: `spec::Op::Local` with exactly the
//! documented 32-bit results, including the cases SPIR-V leaves
//! undefined (division by zero, `INT_MIN / -1`, shifts by 32 or more),
//! which are guarded here so the hardware never sees them.

use super::kernel::Kernel;
use super::{op, usage};
use crate::spec::{RegIdx, Value};
use gpumc_core::diag::Result;
use gpumc_core::ir::{BinOp, CmpOp};

impl Kernel<'_> {
    fn reg_var(&self, t: usize, r: RegIdx) -> Result<u32> {
        self.regs[t].get(r).copied().ok_or_else(|| {
            usage(format!(
                "{}: thread {} uses register {r} of {}",
                self.spec.name,
                self.spec.threads[t].name,
                self.regs[t].len()
            ))
        })
    }

    /// The current value of a register or constant.
    pub fn value(&mut self, t: usize, v: &Value) -> Result<u32> {
        match v {
            Value::Reg(r) => {
                let var = self.reg_var(t, *r)?;
                Ok(self.b.load(var))
            }
            Value::Const(c) => Ok(self.b.ci(*c)),
        }
    }

    pub fn set_reg(&mut self, t: usize, r: RegIdx, value: u32) -> Result<()> {
        let var = self.reg_var(t, r)?;
        self.b.store(var, value);
        Ok(())
    }

    /// The signed comparison `a cmp b` (a `bool`).
    pub fn compare(&mut self, cmp: CmpOp, a: u32, b: u32) -> u32 {
        let opcode = match cmp {
            CmpOp::Eq => op::I_EQUAL,
            CmpOp::Ne => op::I_NOT_EQUAL,
            CmpOp::Lt => op::S_LESS_THAN,
            CmpOp::Le => op::S_LESS_THAN_EQUAL,
            CmpOp::Gt => op::S_GREATER_THAN,
            CmpOp::Ge => op::S_GREATER_THAN_EQUAL,
        };
        self.b.b(opcode, &[a, b])
    }

    /// `a op b` as `spec::Op::Local` defines it.
    pub fn binop(&mut self, bop: BinOp, a: u32, b: u32) -> u32 {
        // Wrapping arithmetic and bit operations: SPIR-V's are exact.
        let direct = match bop {
            BinOp::Add => Some(op::I_ADD),
            BinOp::Sub => Some(op::I_SUB),
            BinOp::Mul => Some(op::I_MUL),
            BinOp::And => Some(op::BITWISE_AND),
            BinOp::Or => Some(op::BITWISE_OR),
            BinOp::Xor => Some(op::BITWISE_XOR),
            _ => None,
        };
        if let Some(opcode) = direct {
            return self.b.u(opcode, &[a, b]);
        }
        let compare = match bop {
            BinOp::Eq => Some(op::I_EQUAL),
            BinOp::Ne => Some(op::I_NOT_EQUAL),
            BinOp::Lt => Some(op::S_LESS_THAN),
            BinOp::Le => Some(op::S_LESS_THAN_EQUAL),
            BinOp::Gt => Some(op::S_GREATER_THAN),
            BinOp::Ge => Some(op::S_GREATER_THAN_EQUAL),
            BinOp::Ult => Some(op::U_LESS_THAN),
            BinOp::Ule => Some(op::U_LESS_THAN_EQUAL),
            BinOp::Ugt => Some(op::U_GREATER_THAN),
            BinOp::Uge => Some(op::U_GREATER_THAN_EQUAL),
            _ => None,
        };
        if let Some(opcode) = compare {
            let holds = self.b.b(opcode, &[a, b]);
            let (one, zero) = (self.b.c(1), self.b.c(0));
            return self.b.select(holds, one, zero);
        }
        match bop {
            BinOp::Div | BinOp::Rem => self.signed_division(bop == BinOp::Div, a, b),
            BinOp::Udiv | BinOp::Urem => {
                let opcode = if bop == BinOp::Udiv {
                    op::U_DIV
                } else {
                    op::U_MOD
                };
                let (zero, one) = (self.b.c(0), self.b.c(1));
                let by_zero = self.b.b(op::I_EQUAL, &[b, zero]);
                let safe = self.b.select(by_zero, one, b);
                let r = self.b.u(opcode, &[a, safe]);
                self.b.select(by_zero, zero, r)
            }
            // The amount is the unsigned 32-bit pattern: "32 or more"
            // includes every negative amount.
            BinOp::Shl | BinOp::Lshr => {
                let opcode = if bop == BinOp::Shl {
                    op::SHIFT_LEFT_LOGICAL
                } else {
                    op::SHIFT_RIGHT_LOGICAL
                };
                let (zero, w) = (self.b.c(0), self.b.c(32));
                let too_far = self.b.b(op::U_GREATER_THAN_EQUAL, &[b, w]);
                let safe = self.b.select(too_far, zero, b);
                let r = self.b.u(opcode, &[a, safe]);
                self.b.select(too_far, zero, r)
            }
            // Shifting by 31 leaves the sign in every bit: 0 or -1.
            BinOp::Shr => {
                let (w, max) = (self.b.c(32), self.b.c(31));
                let too_far = self.b.b(op::U_GREATER_THAN_EQUAL, &[b, w]);
                let safe = self.b.select(too_far, max, b);
                self.b.u(op::SHIFT_RIGHT_ARITHMETIC, &[a, safe])
            }
            // Every other operator returned above.
            _ => self.b.c(0),
        }
    }

    /// Signed `/` or `%`: by 0 gives 0; by -1 gives `-a` (wrapping, so
    /// `INT_MIN / -1 == INT_MIN`, as the 64-bit result truncated) and 0,
    /// where SPIR-V's `OpSDiv`/`OpSRem` would overflow.
    fn signed_division(&mut self, div: bool, a: u32, b: u32) -> u32 {
        let (zero, one, minus_one) = (self.b.c(0), self.b.c(1), self.b.ci(-1));
        let by_zero = self.b.b(op::I_EQUAL, &[b, zero]);
        let by_minus_one = self.b.b(op::I_EQUAL, &[b, minus_one]);
        let special = self.b.b(op::LOGICAL_OR, &[by_zero, by_minus_one]);
        let safe = self.b.select(special, one, b);
        if div {
            let q = self.b.u(op::S_DIV, &[a, safe]);
            let neg = self.b.u(op::I_SUB, &[zero, a]);
            let q = self.b.select(by_minus_one, neg, q);
            self.b.select(by_zero, zero, q)
        } else {
            // The remainder takes the dividend's sign, as Rust's `%` (and
            // `BinOp::eval`) does. Not `OpSRem`: Vulkan's SPIR-V
            // environment leaves it undefined for negative operands (and
            // NVIDIA's driver gives -7 % 3 == 0); `OpUMod` of the
            // magnitudes is defined (|INT_MIN| is 2^31 read unsigned).
            let magnitude = |this: &mut Self, x: u32| {
                let negative = this.b.b(op::S_LESS_THAN, &[x, zero]);
                let minus = this.b.u(op::I_SUB, &[zero, x]);
                this.b.select(negative, minus, x)
            };
            let (abs_a, abs_b) = (magnitude(self, a), magnitude(self, safe));
            let r = self.b.u(op::U_MOD, &[abs_a, abs_b]);
            let a_negative = self.b.b(op::S_LESS_THAN, &[a, zero]);
            let minus_r = self.b.u(op::I_SUB, &[zero, r]);
            let r = self.b.select(a_negative, minus_r, r);
            self.b.select(special, zero, r)
        }
    }
}
