//! Dense bitset sets and relations over the events of one execution.
//!
//! Events are numbered `0..n`. Litmus tests have tens to a few hundred
//! events, so a relation is an `n × n` bit matrix stored row-major in `u64`
//! words: composition and closure are word-parallel and allocation is one
//! `Vec` per relation. Every operation checks (in debug builds) that both
//! operands range over the same `n`.

mod set;
pub use set::EventSet;

use std::fmt;

/// A binary relation over events `0..n`, as a row-major bit matrix.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Relation {
    n: usize,
    /// Words per row.
    w: usize,
    bits: Vec<u64>,
}

#[inline]
fn words(n: usize) -> usize {
    n.div_ceil(64)
}

impl Relation {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Self {
        let w = words(n);
        Relation {
            n,
            w,
            bits: vec![0; w * n],
        }
    }

    /// The identity relation over all `n` events.
    pub fn identity(n: usize) -> Self {
        let mut r = Self::empty(n);
        for i in 0..n {
            r.insert(i, i);
        }
        r
    }

    /// The identity restricted to `s`: the relation `[S]` of cat.
    pub fn identity_on(s: &EventSet) -> Self {
        let mut r = Self::empty(s.universe());
        for i in s.iter() {
            r.insert(i, i);
        }
        r
    }

    /// Cartesian product `a × b`.
    pub fn product(a: &EventSet, b: &EventSet) -> Self {
        debug_assert_eq!(a.universe(), b.universe());
        let mut r = Self::empty(a.universe());
        for i in a.iter() {
            r.row_mut(i).copy_from_slice(b.words());
        }
        r
    }

    /// Adds `a × b`.
    pub fn insert_product(&mut self, a: &EventSet, b: &EventSet) {
        debug_assert_eq!(a.universe(), self.n);
        for i in a.iter() {
            for (x, y) in self.row_mut(i).iter_mut().zip(b.words()) {
                *x |= y;
            }
        }
    }

    /// Builds a relation from a pair list.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let mut r = Self::empty(n);
        for (a, b) in pairs {
            r.insert(a, b);
        }
        r
    }

    /// Number of events the relation ranges over.
    pub fn universe(&self) -> usize {
        self.n
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        &self.bits[i * self.w..(i + 1) * self.w]
    }

    #[inline]
    fn row_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.bits[i * self.w..(i + 1) * self.w]
    }

    /// The successors of `i` as a set.
    pub fn successors(&self, i: usize) -> EventSet {
        EventSet::from_words(self.n, self.row(i).to_vec())
    }

    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.w + b / 64] >> (b % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(&mut self, a: usize, b: usize) {
        self.bits[a * self.w + b / 64] |= 1 << (b % 64);
    }

    #[inline]
    pub fn remove(&mut self, a: usize, b: usize) {
        self.bits[a * self.w + b / 64] &= !(1 << (b % 64));
    }

    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&x| x == 0)
    }

    pub fn len(&self) -> usize {
        self.bits.iter().map(|x| x.count_ones() as usize).sum()
    }

    /// All pairs, in row-major order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |i| iter_bits(self.row(i)).map(move |j| (i, j)))
    }

    pub fn union_with(&mut self, o: &Relation) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a |= b;
        }
    }

    pub fn intersect_with(&mut self, o: &Relation) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a &= b;
        }
    }

    pub fn subtract(&mut self, o: &Relation) {
        debug_assert_eq!(self.n, o.n);
        for (a, b) in self.bits.iter_mut().zip(&o.bits) {
            *a &= !b;
        }
    }

    pub fn union(&self, o: &Relation) -> Relation {
        let mut r = self.clone();
        r.union_with(o);
        r
    }

    pub fn intersection(&self, o: &Relation) -> Relation {
        let mut r = self.clone();
        r.intersect_with(o);
        r
    }

    pub fn difference(&self, o: &Relation) -> Relation {
        let mut r = self.clone();
        r.subtract(o);
        r
    }

    /// Complement with respect to all pairs of `0..n`.
    pub fn complement(&self) -> Relation {
        let mut r = self.clone();
        for i in 0..self.n {
            let row = r.row_mut(i);
            for w in row.iter_mut() {
                *w = !*w;
            }
            mask_tail(row, self.n);
        }
        r
    }

    /// `self ; o` (sequential composition).
    pub fn compose(&self, o: &Relation) -> Relation {
        debug_assert_eq!(self.n, o.n);
        let mut r = Relation::empty(self.n);
        crate::cat::kernel::compose(self.n, &self.bits, &o.bits, &mut r.bits);
        r
    }

    pub fn inverse(&self) -> Relation {
        let mut r = Relation::empty(self.n);
        for (a, b) in self.pairs() {
            r.insert(b, a);
        }
        r
    }

    /// Transitive closure `r+` (`cat::kernel::plus`).
    pub fn transitive_closure(&self) -> Relation {
        let mut r = Relation::empty(self.n);
        crate::cat::kernel::plus(self.n, &self.bits, &mut r.bits);
        r
    }

    /// Reflexive-transitive closure `r*` over all `n` events.
    pub fn reflexive_transitive_closure(&self) -> Relation {
        let mut r = self.transitive_closure();
        r.union_with(&Relation::identity(self.n));
        r
    }

    /// `r?` over all `n` events.
    pub fn reflexive_closure(&self) -> Relation {
        let mut r = self.clone();
        r.union_with(&Relation::identity(self.n));
        r
    }

    /// Events with at least one successor.
    pub fn domain(&self) -> EventSet {
        let mut s = EventSet::empty(self.n);
        for i in 0..self.n {
            if self.row(i).iter().any(|&x| x != 0) {
                s.insert(i);
            }
        }
        s
    }

    /// Events with at least one predecessor.
    pub fn range(&self) -> EventSet {
        let mut acc = vec![0u64; self.w];
        for i in 0..self.n {
            for (a, b) in acc.iter_mut().zip(self.row(i)) {
                *a |= b;
            }
        }
        EventSet::from_words(self.n, acc)
    }

    /// `[a] ; self ; [b]`.
    pub fn restrict(&self, a: &EventSet, b: &EventSet) -> Relation {
        let mut r = Relation::empty(self.n);
        for i in a.iter() {
            let row = r.row_mut(i);
            for ((d, s), m) in row.iter_mut().zip(self.row(i)).zip(b.words()) {
                *d = s & m;
            }
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }

    /// First event `i` with `(i, i)` in the relation.
    pub fn reflexive_witness(&self) -> Option<usize> {
        (0..self.n).find(|&i| self.contains(i, i))
    }

    pub fn is_acyclic(&self) -> bool {
        self.find_cycle().is_none()
    }

    /// A cycle (as a list of events, first not repeated at the end), if any.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        // Iterative DFS with colours: 0 white, 1 grey (on stack), 2 black.
        let mut colour = vec![0u8; self.n];
        let mut parent = vec![usize::MAX; self.n];
        for root in 0..self.n {
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                let row = self.row(v);
                let mut found = None;
                let mut j = *next;
                while j < self.n {
                    if row[j / 64] >> (j % 64) & 1 == 1 {
                        found = Some(j);
                        break;
                    }
                    j += 1;
                }
                match found {
                    Some(u) => {
                        *next = u + 1;
                        match colour[u] {
                            0 => {
                                colour[u] = 1;
                                parent[u] = v;
                                stack.push((u, 0));
                            }
                            1 => {
                                let mut cyc = vec![v];
                                let mut x = v;
                                while x != u {
                                    x = parent[x];
                                    cyc.push(x);
                                }
                                cyc.reverse();
                                return Some(cyc);
                            }
                            _ => {}
                        }
                    }
                    None => {
                        colour[v] = 2;
                        stack.pop();
                    }
                }
            }
        }
        None
    }

    /// Raw words (row-major, `universe().div_ceil(64)` words a row).
    pub fn words(&self) -> &[u64] {
        &self.bits
    }
}

fn mask_tail(row: &mut [u64], n: usize) {
    if !n.is_multiple_of(64) {
        if let Some(last) = row.last_mut() {
            *last &= (1u64 << (n % 64)) - 1;
        }
    }
}

/// The indices of the set bits of a bitset row (also read by the SAT
/// engine's relations, in gpumc-verify).
pub fn iter_bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(wi, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                None
            } else {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            }
        })
    })
}

impl fmt::Debug for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests;
