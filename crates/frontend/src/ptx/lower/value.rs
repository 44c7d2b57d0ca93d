//! What the translation knows about a value: a constant, an address into
//! a known buffer, or only "in an IR register at run time" — and the
//! translation state (registers, private memory, barrier counters) built
//! from such values, with its merge at join points.

use std::collections::BTreeMap;

/// Index of a buffer (`memory::Memory::buffers`).
pub type BufId = usize;

/// A value during translation. Integers of width `w` are kept
/// sign-extended to 64 bits (`sext`), as every gpumc front-end keeps
/// them; predicates are 0 or 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Val {
    /// Known while translating.
    Known(i64),
    /// An address into a buffer; the offset (bytes) is known, or held in
    /// the slot's IR register at run time.
    Ptr { buf: BufId, off: Option<i64> },
    /// Held in the slot's IR register at run time.
    Dyn,
    /// Never written: an uninitialised register or private cell.
    Undef,
}

/// Where a value lives during translation; each slot has one IR register
/// name (`Tx::slot_reg`) that holds its value when it is `Dyn` (or its
/// offset, for a pointer with an offset known only at run time).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// A register of call frame `frame` (0: the kernel).
    Reg(u32, String),
    /// Private memory (the `.local` stack, `.param` arguments of calls):
    /// buffer, byte offset, size.
    Priv(BufId, i64, u32),
    /// The number of times the thread has waited at a barrier resource
    /// (matching the `k`-th arrival of each thread).
    Bar(u64),
}

/// The translation state at one point of one thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub slots: BTreeMap<Slot, Val>,
}

impl State {
    pub fn get(&self, s: &Slot) -> Val {
        self.slots.get(s).cloned().unwrap_or(Val::Undef)
    }

    pub fn set(&mut self, s: Slot, v: Val) {
        self.slots.insert(s, v);
    }

    /// Private cells overlapping `[off, off+size)` of buffer `buf` other
    /// than exactly that one.
    pub fn overlapping(&self, buf: BufId, off: i64, size: u32) -> Vec<Slot> {
        let lo = Slot::Priv(buf, i64::MIN, 0);
        let hi = Slot::Priv(buf, i64::MAX, u32::MAX);
        self.slots
            .range(lo..=hi)
            .filter_map(|(s, _)| match s {
                Slot::Priv(_, o, z)
                    if (*o, *z) != (off, size)
                        && *o < off + i64::from(size)
                        && off < *o + i64::from(*z) =>
                {
                    Some(s.clone())
                }
                _ => None,
            })
            .collect()
    }
}

/// The join of two values (`None`: they cannot be joined — pointers into
/// different buffers, or a pointer and an integer).
pub fn join(a: &Val, b: &Val) -> Option<Val> {
    Some(match (a, b) {
        _ if a == b => a.clone(),
        // An uninitialised value may be anything: take the other one.
        (Val::Undef, x) | (x, Val::Undef) => x.clone(),
        (Val::Known(_) | Val::Dyn, Val::Known(_) | Val::Dyn) => Val::Dyn,
        (Val::Ptr { buf: x, .. }, Val::Ptr { buf: y, .. }) if x == y => {
            Val::Ptr { buf: *x, off: None }
        }
        _ => return None,
    })
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sext(v: i64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v
    } else {
        let s = 64 - bits;
        (v << s) >> s
    }
}

/// Zero-extends the low `bits` bits of `v`.
pub fn zext(v: i64, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        v
    } else {
        v & ((1i64 << bits) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        assert_eq!(sext(0xFFFF_FFFF, 32), -1);
        assert_eq!(sext(0x7FFF_FFFF, 32), 0x7FFF_FFFF);
        assert_eq!(zext(-1, 32), 0xFFFF_FFFF);
        assert_eq!(zext(-1, 64), -1);
        assert_eq!(sext(1, 1), -1);
    }

    #[test]
    fn joins() {
        let p = |o| Val::Ptr { buf: 1, off: o };
        assert_eq!(join(&Val::Known(1), &Val::Known(1)), Some(Val::Known(1)));
        assert_eq!(join(&Val::Known(1), &Val::Known(2)), Some(Val::Dyn));
        assert_eq!(join(&Val::Undef, &Val::Known(2)), Some(Val::Known(2)));
        assert_eq!(join(&p(Some(0)), &p(Some(4))), Some(p(None)));
        assert_eq!(join(&p(Some(0)), &p(Some(0))), Some(p(Some(0))));
        assert_eq!(
            join(
                &p(Some(0)),
                &Val::Ptr {
                    buf: 2,
                    off: Some(0)
                }
            ),
            None
        );
        assert_eq!(join(&p(Some(0)), &Val::Known(0)), None);
    }

    #[test]
    fn overlapping_private_cells() {
        let mut s = State::default();
        s.set(Slot::Priv(0, 0, 8), Val::Known(1));
        s.set(Slot::Priv(0, 8, 4), Val::Known(2));
        s.set(Slot::Priv(1, 0, 4), Val::Known(3));
        assert_eq!(s.overlapping(0, 4, 4), vec![Slot::Priv(0, 0, 8)]);
        assert_eq!(s.overlapping(0, 0, 8), vec![]);
        assert_eq!(
            s.overlapping(0, 0, 12),
            vec![Slot::Priv(0, 0, 8), Slot::Priv(0, 8, 4)]
        );
    }
}
