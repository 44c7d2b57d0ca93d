//! Translation-time values and integer canonical forms.
//!
//! Integers of width `w` are kept *sign-extended*: the `w`-bit pattern,
//! read as a signed `w`-bit number, as an `i64` (so signedness of the
//! SPIR-V type never matters, as in SPIR-V itself). Booleans are 0 or 1.
//! A value known while translating is folded; one that depends on a value
//! loaded from shared memory lives in an IR register.

use crate::ir::{BinOp, ValueType};
use std::rc::Rc;

/// A memory region a pointer points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Region {
    /// A variable in shared memory (StorageBuffer, Uniform, Output,
    /// CrossWorkgroup: `copy` 0; Workgroup: `copy` = workgroup index).
    Shared { var: u32, copy: u32 },
    /// A Private or Function variable of the current invocation.
    Local { var: u32 },
    /// A read-only variable (Input, PushConstant, UniformConstant) whose
    /// contents are known while translating.
    ReadOnly { var: u32 },
    /// The null pointer (`OpConstantNull`, a cast of 0): no object; an
    /// access through it, at any offset, is undefined behaviour.
    Null,
    /// An undefined pointer (`OpUndef`): no object either; converted to
    /// an integer it is an arbitrary value.
    Undefined,
}

impl Region {
    /// The variable pointed into (`u32::MAX` for the null pointer, which
    /// names none).
    pub fn var(self) -> u32 {
        match self {
            Region::Shared { var, .. } | Region::Local { var } | Region::ReadOnly { var } => var,
            Region::Null | Region::Undefined => u32::MAX,
        }
    }

    /// A pointer to no object (null or undefined): every access through
    /// it is undefined behaviour.
    pub fn is_dangling(self) -> bool {
        matches!(self, Region::Null | Region::Undefined)
    }
}

/// A pointer: region and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Ptr {
    pub region: Region,
    pub offset: u64,
}

/// A pointer chosen at run time: `targets[k]` when the register `index`
/// holds `k`; any other value makes an access through it out of bounds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct DynPtr {
    pub index: Rc<str>,
    pub targets: Rc<[Ptr]>,
    /// Bytes between consecutive targets when they are the elements of
    /// one array (pointer arithmetic with that stride moves the index).
    pub step: Option<u64>,
    /// A region of the targets' storage class (they share one), for tags.
    pub region: Region,
    /// What is indexed, for messages (`%buf`).
    pub what: Rc<str>,
    /// The generic translation (`targets` is the element the index 0
    /// denotes): the indices of arrays of known length and those
    /// lengths; an index past its length is out of bounds.
    pub bounds: Rc<[(Rc<str>, u64)]>,
}

impl DynPtr {
    /// `targets[index]` as `base + index · step` of the integers `at`
    /// gives the targets: one array's elements (`step` bytes apart), or an
    /// `OpSelect`'s two targets. `None` for targets spaced otherwise.
    pub fn spacing(&self, at: impl Fn(&Ptr) -> i64) -> Option<(i64, i64)> {
        match (&*self.targets, self.step) {
            ([t, ..], Some(s)) => Some((at(t), s as i64)),
            ([t0, t1], None) => Some((at(t0), at(t1).wrapping_sub(at(t0)))),
            _ => None,
        }
    }

    /// Whether every target lies in one variable.
    pub fn one_variable(&self) -> bool {
        self.targets
            .iter()
            .all(|t| t.region.var() == self.targets[0].region.var())
    }
}

/// A value while translating.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Val {
    /// A known scalar (canonical form, see the module docs).
    Int(i64),
    /// A scalar held in an IR register.
    Reg(Rc<str>),
    /// Vector, array or struct.
    Comp(Rc<[Val]>),
    Ptr(Ptr),
    /// A pointer that depends on a value computed at run time.
    DynPtr(Rc<DynPtr>),
}

impl Val {
    pub fn int(&self) -> Option<i64> {
        match self {
            Val::Int(v) => Some(*v),
            _ => None,
        }
    }
}

/// The values a scalar of width `w` takes: width 1 is a boolean (0 or 1;
/// the module refuses 1-bit integer types), others sign-extended integers.
pub(super) fn value_type(w: u32) -> ValueType {
    match w {
        1 => ValueType::Bool,
        w => ValueType::Int(w),
    }
}

/// Sign-extends the low `w` bits of `v` (`w` in 1..=64).
pub(super) fn sext(v: i64, w: u32) -> i64 {
    if w >= 64 || w == 0 {
        v
    } else {
        let s = 64 - w;
        (v << s) >> s
    }
}

/// The low `w` bits of `v`, zero-extended (for `w` < 64; else `v`).
#[cfg(test)]
pub(super) fn zext(v: i64, w: u32) -> i64 {
    if w >= 64 || w == 0 {
        v
    } else {
        v & ((1i64 << w) - 1)
    }
}

/// Canonical form of a literal of width `w` (literals may be written
/// signed or unsigned: `-1` and `4294967295` are the same 32-bit value).
pub(super) fn canon_lit(v: i128, w: u32) -> i64 {
    sext(v as i64, w)
}

/// Folds one IR operation exactly as the engine evaluates it
/// ([`BinOp::eval`]); `None` for division by zero.
pub(super) fn fold(op: BinOp, a: i64, b: i64) -> Option<i64> {
    op.eval(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(canon_lit(4294967295, 32), -1);
        assert_eq!(canon_lit(-1, 32), -1);
        assert_eq!(canon_lit(255, 8), -1);
        assert_eq!(canon_lit(127, 8), 127);
        assert_eq!(canon_lit(18446744073709551615, 64), -1);
        assert_eq!(zext(-1, 32), 4294967295);
        assert_eq!(sext(0x8000_0000, 32), -2147483648);
    }

    #[test]
    fn unsigned_order_survives_sign_extension() {
        // 0xFFFF_FFFB (umax) vs 3 as 32-bit patterns.
        let a = canon_lit(4294967291, 32);
        assert_eq!(fold(BinOp::Ugt, a, 3), Some(1));
        assert_eq!(fold(BinOp::Gt, a, 3), Some(0));
        assert_eq!(fold(BinOp::Udiv, 7, 0), None);
    }
}
