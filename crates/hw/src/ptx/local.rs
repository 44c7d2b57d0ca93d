//! `Op::Local`: register arithmetic with the 32-bit semantics of
//! `spec::Op::Local`. PTX leaves division by zero (and `i32::MIN / -1`)
//! unspecified, so those cases never reach `div`/`rem`: they are
//! predicated off and the documented value is set instead. Shifts by 32 or
//! more are clamped by PTX already; the guard states the documented value
//! explicitly rather than relying on that.

use super::asm::Asm;
use gpumc_core::ir::BinOp;

/// `dst := a op b`; `a` and `b` are `.b32` registers. The result goes
/// through a scratch register, so `dst` may be `a` or `b`.
pub(crate) fn emit(asm: &mut Asm, op: BinOp, dst: &str, a: &str, b: &str) {
    let x = asm.b32("x");
    match op {
        BinOp::Add => asm.ins(format!("add.u32 {dst}, {a}, {b}")),
        BinOp::Sub => asm.ins(format!("sub.u32 {dst}, {a}, {b}")),
        BinOp::Mul => asm.ins(format!("mul.lo.u32 {dst}, {a}, {b}")),
        BinOp::And => asm.ins(format!("and.b32 {dst}, {a}, {b}")),
        BinOp::Or => asm.ins(format!("or.b32 {dst}, {a}, {b}")),
        BinOp::Xor => asm.ins(format!("xor.b32 {dst}, {a}, {b}")),
        BinOp::Div | BinOp::Rem => {
            // b == 0 gives 0; b == -1 gives -a (Div, wrapping at i32::MIN
            // as the 64-bit quotient truncated does) or 0 (Rem).
            let zero = asm.pred("p_div0");
            let minus_one = asm.pred("p_divm1");
            let special = asm.pred("p_divx");
            asm.ins(format!("setp.eq.u32 {zero}, {b}, 0"));
            asm.ins(format!("setp.eq.u32 {minus_one}, {b}, 0xFFFFFFFF"));
            asm.ins(format!("or.pred {special}, {zero}, {minus_one}"));
            if op == BinOp::Div {
                asm.ins(format!("@!{special} div.s32 {x}, {a}, {b}"));
                asm.ins(format!("@{minus_one} neg.s32 {x}, {a}"));
            } else {
                asm.ins(format!("@!{special} rem.s32 {x}, {a}, {b}"));
                asm.ins(format!("@{minus_one} mov.b32 {x}, 0"));
            }
            asm.ins(format!("@{zero} mov.b32 {x}, 0"));
            asm.ins(format!("mov.b32 {dst}, {x}"));
        }
        BinOp::Udiv | BinOp::Urem => {
            let zero = asm.pred("p_div0");
            let opcode = if op == BinOp::Udiv { "div" } else { "rem" };
            asm.ins(format!("setp.eq.u32 {zero}, {b}, 0"));
            asm.ins(format!("@!{zero} {opcode}.u32 {x}, {a}, {b}"));
            asm.ins(format!("@{zero} mov.b32 {x}, 0"));
            asm.ins(format!("mov.b32 {dst}, {x}"));
        }
        BinOp::Shl | BinOp::Shr | BinOp::Lshr => {
            // The amount is the unsigned 32-bit pattern of b: a negative b
            // is a shift by 32 or more.
            let wide = asm.pred("p_shift32");
            asm.ins(format!("setp.hi.u32 {wide}, {b}, 31"));
            let (shift, overflow) = match op {
                BinOp::Shl => (format!("shl.b32 {x}, {a}, {b}"), format!("mov.b32 {x}, 0")),
                BinOp::Shr => (
                    format!("shr.s32 {x}, {a}, {b}"),
                    format!("shr.s32 {x}, {a}, 31"),
                ),
                _ => (format!("shr.u32 {x}, {a}, {b}"), format!("mov.b32 {x}, 0")),
            };
            asm.ins(format!("@!{wide} {shift}"));
            asm.ins(format!("@{wide} {overflow}"));
            asm.ins(format!("mov.b32 {dst}, {x}"));
        }
        BinOp::Eq
        | BinOp::Ne
        | BinOp::Lt
        | BinOp::Le
        | BinOp::Gt
        | BinOp::Ge
        | BinOp::Ult
        | BinOp::Ule
        | BinOp::Ugt
        | BinOp::Uge => {
            let holds = asm.pred("p_cmp");
            let (cmp, ty) = compare(op);
            asm.ins(format!("setp.{cmp}.{ty} {holds}, {a}, {b}"));
            asm.ins(format!("selp.u32 {dst}, 1, 0, {holds}"));
        }
    }
}

/// The `setp` comparison and type of a comparison operator.
fn compare(op: BinOp) -> (&'static str, &'static str) {
    match op {
        BinOp::Eq => ("eq", "s32"),
        BinOp::Ne => ("ne", "s32"),
        BinOp::Lt => ("lt", "s32"),
        BinOp::Le => ("le", "s32"),
        BinOp::Gt => ("gt", "s32"),
        BinOp::Ge => ("ge", "s32"),
        BinOp::Ult => ("lo", "u32"),
        BinOp::Ule => ("ls", "u32"),
        BinOp::Ugt => ("hi", "u32"),
        _ => ("hs", "u32"),
    }
}

/// The `setp` comparison of a branch condition (signed 32-bit).
pub(crate) fn branch_compare(cmp: gpumc_core::ir::CmpOp) -> &'static str {
    use gpumc_core::ir::CmpOp;
    match cmp {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
    }
}
