//! Addresses of memory instructions: a location fixed before the program
//! runs, or one chosen at run time by an index register.

use super::{LocId, Operand};

/// Where a `Load`, `Store` or `Rmw` accesses memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Addr {
    /// A location known before the program runs (every litmus access).
    Fixed(LocId),
    /// A location chosen by a value computed at run time (SPIR-V
    /// `a[b[tid]]`).
    Indexed(Box<Indexed>),
    /// A byte offset into a memory region that is not split into cells:
    /// the generic thread of a kernel (`frontend::ptx::generic`), whose
    /// addresses are terms over symbolic thread ids, for the parametric
    /// engine. The explicit and symbolic engines refuse programs with
    /// such addresses ([`Addr::is_region`]).
    Region(Box<RegionAddr>),
}

/// An access of `bytes` bytes at byte `offset` of region `region`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionAddr {
    /// Index into the regions of the program that made it (the generic
    /// kernel's `regions`).
    pub region: usize,
    pub offset: Operand,
    pub bytes: u32,
    /// Indices the access is undefined behaviour outside of (SPIR-V
    /// arrays of known length indexed at run time): each `index` must be
    /// below `len`, read as unsigned. Empty: the region is large enough.
    pub bounds: Vec<RegionBound>,
}

/// One array index of a region access and the array's length.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionBound {
    pub index: Operand,
    pub len: u64,
    /// What is indexed, for messages (`%buf`).
    pub array: String,
}

/// An access to one cell of an array, chosen by an index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed {
    /// The access reaches `cells[k]` when the index is `k`; any other
    /// value is an out-of-bounds access, which is undefined behaviour.
    pub index: Operand,
    pub cells: Vec<LocId>,
    /// What is indexed, for messages (`%buf[0]`).
    pub array: String,
}

impl Addr {
    /// The locations the access may reach.
    pub fn cells(&self) -> &[LocId] {
        match self {
            Addr::Fixed(l) => std::slice::from_ref(l),
            Addr::Indexed(x) => &x.cells,
            Addr::Region(_) => &[],
        }
    }

    /// The location, when it is fixed.
    pub fn fixed(&self) -> Option<LocId> {
        match self {
            Addr::Fixed(l) => Some(*l),
            Addr::Indexed(_) | Addr::Region(_) => None,
        }
    }

    /// Whether this is an offset into a region ([`Addr::Region`]).
    pub fn is_region(&self) -> bool {
        matches!(self, Addr::Region(_))
    }

    /// The index operands of the bounds of a region address (none for
    /// the other addresses).
    pub fn bound_indices(&self) -> impl Iterator<Item = &Operand> {
        match self {
            Addr::Region(r) => r.bounds.as_slice(),
            Addr::Fixed(_) | Addr::Indexed(_) => &[],
        }
        .iter()
        .map(|b| &b.index)
    }

    /// The index operand of a run-time address (a region's offset).
    pub fn index(&self) -> Option<&Operand> {
        match self {
            Addr::Fixed(_) => None,
            Addr::Indexed(x) => Some(&x.index),
            Addr::Region(r) => Some(&r.offset),
        }
    }

    /// The location reached when the index has value `v` (a fixed address
    /// ignores it); `None`: out of bounds.
    pub fn resolve(&self, v: i64) -> Option<LocId> {
        match self {
            Addr::Fixed(l) => Some(*l),
            Addr::Indexed(x) => usize::try_from(v)
                .ok()
                .and_then(|k| x.cells.get(k).copied()),
            Addr::Region(_) => None,
        }
    }

    /// Renames every location through `f`.
    pub fn map(&mut self, f: impl Fn(LocId) -> LocId) {
        match self {
            Addr::Fixed(l) => *l = f(*l),
            Addr::Indexed(x) => {
                for c in &mut x.cells {
                    *c = f(*c);
                }
            }
            Addr::Region(_) => {}
        }
    }
}

impl From<LocId> for Addr {
    fn from(l: LocId) -> Addr {
        Addr::Fixed(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_in_and_out_of_bounds() {
        let a = Addr::Indexed(Box::new(Indexed {
            index: Operand::Reg("r".into()),
            cells: vec![4, 7],
            array: "a".into(),
        }));
        assert_eq!(a.resolve(0), Some(4));
        assert_eq!(a.resolve(1), Some(7));
        assert_eq!(a.resolve(2), None);
        assert_eq!(a.resolve(-1), None);
        assert_eq!(a.cells(), &[4, 7]);
        assert_eq!(Addr::Fixed(3).resolve(99), Some(3));
        assert_eq!(Addr::Fixed(3).cells(), &[3]);
    }
}
