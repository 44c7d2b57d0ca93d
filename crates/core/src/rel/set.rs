//! Sets of events as bit vectors.

use std::fmt;

/// A set of events drawn from `0..n`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EventSet {
    n: usize,
    bits: Vec<u64>,
}

impl EventSet {
    pub fn empty(n: usize) -> Self {
        EventSet {
            n,
            bits: vec![0; n.div_ceil(64)],
        }
    }

    /// All events `0..n`.
    pub fn full(n: usize) -> Self {
        let mut s = Self::empty(n);
        for i in 0..n {
            s.insert(i);
        }
        s
    }

    pub fn from_iter(n: usize, it: impl IntoIterator<Item = usize>) -> Self {
        let mut s = Self::empty(n);
        for i in it {
            s.insert(i);
        }
        s
    }

    pub(crate) fn from_words(n: usize, bits: Vec<u64>) -> Self {
        EventSet { n, bits }
    }

    pub fn universe(&self) -> usize {
        self.n
    }

    pub fn words(&self) -> &[u64] {
        &self.bits
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(&mut self, i: usize) {
        self.bits[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.bits[i / 64] &= !(1 << (i % 64));
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    pub fn len(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        super::iter_bits(&self.bits)
    }

    pub fn union_with(&mut self, o: &EventSet) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a |= b;
        }
    }

    pub fn intersect_with(&mut self, o: &EventSet) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a &= b;
        }
    }

    pub fn subtract(&mut self, o: &EventSet) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a &= !b;
        }
    }

    pub fn union(&self, o: &EventSet) -> EventSet {
        let mut s = self.clone();
        s.union_with(o);
        s
    }

    pub fn intersection(&self, o: &EventSet) -> EventSet {
        let mut s = self.clone();
        s.intersect_with(o);
        s
    }

    pub fn difference(&self, o: &EventSet) -> EventSet {
        let mut s = self.clone();
        s.subtract(o);
        s
    }

    /// Complement within `0..n`.
    pub fn complement(&self) -> EventSet {
        EventSet::full(self.n).difference(self)
    }
}

impl fmt::Debug for EventSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}
