//! Bitset sets and relations over the events of one execution.
//!
//! Events are numbered `0..n`. A relation is `n` rows of `w = n.div_ceil(64)`
//! bit words, so composition and closure are word-parallel. Litmus tests
//! have tens to a few hundred events: their relations store every word of
//! every row, in one allocation (a plain bit matrix). Programs of thousands
//! of events (the symbolic engine's scaling families, PTX kernel launches)
//! have relations whose rows are narrow bands — the identity, program order
//! within one thread, one workgroup's scope — so a row of a relation over
//! more than [`ALL_WORDS_UP_TO`] events stores only the words from its
//! first to its last non-zero one (its *band*): an identity over 4,224
//! events is 34 KiB instead of 2.2 MiB. Every operation checks (in debug
//! builds) that both operands range over the same `n`.

mod set;
pub use set::EventSet;

use std::borrow::Cow;
use std::fmt;
use std::hash::{Hash, Hasher};

/// Relations over at most this many events store every word of every row.
pub const ALL_WORDS_UP_TO: usize = 256;

/// Where a row's band lives: words `lo..lo + len` of the row are
/// `data[at..at + len]`; every other word of the row is zero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Band {
    at: u32,
    lo: u32,
    len: u32,
}

/// A binary relation over events `0..n`, as rows of bits (see the module
/// documentation for which words are stored).
pub struct Relation {
    n: usize,
    /// Words per row.
    w: usize,
    band: Vec<Band>,
    data: Vec<u64>,
    /// Words of `data` that no band points at any more.
    dead: usize,
}

#[inline]
fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// The words of `row` from its first to its last non-zero one, as
/// `(offset, words)`; `None` if all are zero.
fn trim(row: &[u64]) -> Option<(usize, &[u64])> {
    let lo = row.iter().position(|&x| x != 0)?;
    let hi = row.len() - row.iter().rev().position(|&x| x != 0).unwrap_or(0);
    Some((lo, &row[lo..hi]))
}

impl Relation {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Self {
        let w = words(n);
        if n <= ALL_WORDS_UP_TO {
            Relation {
                n,
                w,
                band: (0..n)
                    .map(|i| Band {
                        at: (i * w) as u32,
                        lo: 0,
                        len: w as u32,
                    })
                    .collect(),
                data: vec![0; n * w],
                dead: 0,
            }
        } else {
            Relation {
                n,
                w,
                band: vec![Band::default(); n],
                data: Vec::new(),
                dead: 0,
            }
        }
    }

    /// An empty relation whose row `i` has room for words `spans[i]`
    /// (`(lo, hi)`, empty when `lo == hi`), so that filling it moves nothing.
    fn with_spans(n: usize, spans: &[(usize, usize)]) -> Self {
        let mut r = Self::empty(n);
        if r.full() {
            return r;
        }
        let total = spans.iter().map(|&(lo, hi)| hi - lo).sum();
        r.data = vec![0; total];
        let mut at = 0;
        for (b, &(lo, hi)) in r.band.iter_mut().zip(spans) {
            if hi > lo {
                *b = Band {
                    at: at as u32,
                    lo: lo as u32,
                    len: (hi - lo) as u32,
                };
                at += hi - lo;
            }
        }
        r
    }

    /// The identity relation over all `n` events.
    pub fn identity(n: usize) -> Self {
        Self::identity_on(&EventSet::full(n))
    }

    /// The identity restricted to `s`: the relation `[S]` of cat.
    pub fn identity_on(s: &EventSet) -> Self {
        let n = s.universe();
        let spans: Vec<(usize, usize)> = (0..n)
            .map(|i| {
                if s.contains(i) {
                    (i / 64, i / 64 + 1)
                } else {
                    (0, 0)
                }
            })
            .collect();
        let mut r = Self::with_spans(n, &spans);
        for i in s.iter() {
            r.insert(i, i);
        }
        r
    }

    /// Cartesian product `a × b`.
    pub fn product(a: &EventSet, b: &EventSet) -> Self {
        debug_assert_eq!(a.universe(), b.universe());
        let n = a.universe();
        let Some((lo, row)) = trim(b.words()) else {
            return Self::empty(n);
        };
        let hi = lo + row.len();
        let spans: Vec<(usize, usize)> = (0..n)
            .map(|i| if a.contains(i) { (lo, hi) } else { (0, 0) })
            .collect();
        let mut r = Self::with_spans(n, &spans);
        r.insert_product(a, b);
        r
    }

    /// Adds `a × b`.
    pub fn insert_product(&mut self, a: &EventSet, b: &EventSet) {
        debug_assert_eq!(a.universe(), self.n);
        let Some((lo, row)) = trim(b.words()) else {
            return;
        };
        for i in a.iter() {
            for (x, y) in self.span_mut(i, lo, lo + row.len()).iter_mut().zip(row) {
                *x |= y;
            }
        }
    }

    /// Builds a relation from a pair list.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let pairs: Vec<(usize, usize)> = pairs.into_iter().collect();
        let mut spans = vec![(usize::MAX, 0); n];
        for &(a, b) in &pairs {
            let s = &mut spans[a];
            *s = (s.0.min(b / 64), s.1.max(b / 64 + 1));
        }
        for s in &mut spans {
            if s.0 == usize::MAX {
                *s = (0, 0);
            }
        }
        let mut r = Self::with_spans(n, &spans);
        for (a, b) in pairs {
            r.insert(a, b);
        }
        r
    }

    /// Number of events the relation ranges over.
    pub fn universe(&self) -> usize {
        self.n
    }

    /// Every row's band is all `w` words, at `i * w` (few events; the
    /// operands of a binary operation range over the same events, so both
    /// or neither are stored so).
    #[inline]
    fn full(&self) -> bool {
        self.n <= ALL_WORDS_UP_TO
    }

    /// Row `i`'s band: the offset of its first stored word, and the words.
    #[inline]
    fn band_of(&self, i: usize) -> (usize, &[u64]) {
        let b = self.band[i];
        let at = b.at as usize;
        (b.lo as usize, &self.data[at..at + b.len as usize])
    }

    /// Word `j` of row `i`.
    #[inline]
    fn word(&self, i: usize, j: usize) -> u64 {
        let b = self.band[i];
        match j.checked_sub(b.lo as usize) {
            Some(k) if k < b.len as usize => self.data[b.at as usize + k],
            _ => 0,
        }
    }

    /// Words `lo..hi` of row `i`, writable: the band is widened (moved to
    /// the end of `data`) if it does not cover them.
    fn span_mut(&mut self, i: usize, lo: usize, hi: usize) -> &mut [u64] {
        let b = self.band[i];
        let (blo, bhi) = (b.lo as usize, (b.lo + b.len) as usize);
        if b.len == 0 || lo < blo || hi > bhi {
            let (nlo, nhi) = if b.len == 0 {
                (lo, hi)
            } else {
                (lo.min(blo), hi.max(bhi))
            };
            if self.dead > 4096 && self.dead > self.data.len() / 2 {
                self.compact();
            }
            let b = self.band[i];
            let at = self.data.len();
            // Offsets are `u32`: 32 GiB of words, far beyond any budget.
            assert!(at + nhi - nlo <= u32::MAX as usize, "relation too large");
            self.data.resize(at + nhi - nlo, 0);
            let old = b.at as usize;
            let off = at + (b.lo as usize).saturating_sub(nlo);
            self.data.copy_within(old..old + b.len as usize, off);
            self.dead += b.len as usize;
            self.band[i] = Band {
                at: at as u32,
                lo: nlo as u32,
                len: (nhi - nlo) as u32,
            };
        }
        let b = self.band[i];
        let at = b.at as usize + lo - b.lo as usize;
        &mut self.data[at..at + hi - lo]
    }

    /// Row `i`'s stored words, writable (no widening).
    #[inline]
    fn band_mut(&mut self, i: usize) -> &mut [u64] {
        let b = self.band[i];
        let at = b.at as usize;
        &mut self.data[at..at + b.len as usize]
    }

    /// The live bands, copied into fresh storage.
    fn live(&self) -> (Vec<Band>, Vec<u64>) {
        let mut band = self.band.clone();
        let mut data = Vec::with_capacity(self.data.len() - self.dead);
        for b in &mut band {
            let at = b.at as usize;
            let start = data.len();
            data.extend_from_slice(&self.data[at..at + b.len as usize]);
            b.at = start as u32;
        }
        (band, data)
    }

    /// Drops the dead words.
    fn compact(&mut self) {
        if self.full() || self.dead == 0 {
            return;
        }
        (self.band, self.data) = self.live();
        self.dead = 0;
    }

    /// Replaces row `i` by `row` placed at word `lo`, stored trimmed.
    fn set_row(&mut self, i: usize, lo: usize, row: &[u64]) {
        if self.full() {
            let dst = self.band_mut(i);
            dst.fill(0);
            dst[lo..lo + row.len()].copy_from_slice(row);
            return;
        }
        let old = self.band[i];
        match trim(row) {
            None => {
                self.dead += old.len as usize;
                self.band[i] = Band::default();
            }
            Some((off, t)) => {
                if t.len() <= old.len as usize {
                    let at = old.at as usize;
                    self.data[at..at + t.len()].copy_from_slice(t);
                    self.dead += old.len as usize - t.len();
                    self.band[i] = Band {
                        at: old.at,
                        lo: (lo + off) as u32,
                        len: t.len() as u32,
                    };
                } else {
                    self.dead += old.len as usize;
                    self.band[i] = Band::default();
                    self.span_mut(i, lo + off, lo + off + t.len())
                        .copy_from_slice(t);
                }
            }
        }
    }

    /// The rows with a stored band (a superset of the domain).
    fn stored(&self) -> impl Iterator<Item = usize> + '_ {
        self.band
            .iter()
            .enumerate()
            .filter(|(_, b)| b.len != 0)
            .map(|(i, _)| i)
    }

    /// The successors of `i` as a set.
    pub fn successors(&self, i: usize) -> EventSet {
        let mut v = vec![0u64; self.w];
        let (lo, row) = self.band_of(i);
        v[lo..lo + row.len()].copy_from_slice(row);
        EventSet::from_words(self.n, v)
    }

    /// The successors of `i`, in increasing order.
    pub fn successors_iter(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (lo, row) = self.band_of(i);
        iter_bits(row).map(move |j| j + lo * 64)
    }

    /// Whether `i` has a successor in `s`.
    pub fn row_meets_set(&self, i: usize, s: &EventSet) -> bool {
        let (lo, row) = self.band_of(i);
        row.iter().zip(&s.words()[lo..]).any(|(x, y)| x & y != 0)
    }

    /// Whether `i` (in `self`) and `j` (in `o`) have a common successor.
    pub fn rows_meet(&self, i: usize, o: &Relation, j: usize) -> bool {
        let (alo, a) = self.band_of(i);
        let (blo, b) = o.band_of(j);
        let lo = alo.max(blo);
        let hi = (alo + a.len()).min(blo + b.len());
        (lo..hi).any(|k| a[k - alo] & b[k - blo] != 0)
    }

    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.word(a, b / 64) >> (b % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(&mut self, a: usize, b: usize) {
        self.span_mut(a, b / 64, b / 64 + 1)[0] |= 1 << (b % 64);
    }

    #[inline]
    pub fn remove(&mut self, a: usize, b: usize) {
        if self.contains(a, b) {
            self.span_mut(a, b / 64, b / 64 + 1)[0] &= !(1 << (b % 64));
        }
    }

    pub fn is_empty(&self) -> bool {
        if self.full() {
            return self.data.iter().all(|&x| x == 0);
        }
        self.stored()
            .all(|i| self.band_of(i).1.iter().all(|&x| x == 0))
    }

    pub fn len(&self) -> usize {
        if self.full() {
            return self.data.iter().map(|x| x.count_ones() as usize).sum();
        }
        self.stored()
            .map(|i| {
                let row = self.band_of(i).1;
                row.iter().map(|x| x.count_ones() as usize).sum::<usize>()
            })
            .sum()
    }

    /// All pairs, in row-major order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.stored()
            .flat_map(move |i| self.successors_iter(i).map(move |j| (i, j)))
    }

    pub fn union_with(&mut self, o: &Relation) {
        debug_assert_eq!(self.n, o.n);
        if self.full() {
            for (a, b) in self.data.iter_mut().zip(&o.data) {
                *a |= b;
            }
            return;
        }
        for i in o.stored() {
            let Some((off, row)) = trim(o.band_of(i).1) else {
                continue;
            };
            let lo = o.band[i].lo as usize + off;
            for (a, b) in self.span_mut(i, lo, lo + row.len()).iter_mut().zip(row) {
                *a |= b;
            }
        }
    }

    /// Applies `f(word of self, word of o)` to every stored word of `self`.
    fn combine_with(&mut self, o: &Relation, f: impl Fn(u64, u64) -> u64) {
        debug_assert_eq!(self.n, o.n);
        if self.full() {
            for (a, &b) in self.data.iter_mut().zip(&o.data) {
                *a = f(*a, b);
            }
            return;
        }
        for i in 0..self.n {
            let lo = self.band[i].lo as usize;
            let len = self.band[i].len as usize;
            for k in 0..len {
                let y = o.word(i, lo + k);
                let at = self.band[i].at as usize + k;
                self.data[at] = f(self.data[at], y);
            }
            self.shrink(i);
        }
    }

    /// Narrows row `i`'s band to its non-zero words, in place.
    fn shrink(&mut self, i: usize) {
        let b = self.band[i];
        let row = &self.data[b.at as usize..(b.at + b.len) as usize];
        let (off, len) = match trim(row) {
            Some((off, t)) => (off, t.len()),
            None => (0, 0),
        };
        if len as u32 != b.len {
            self.dead += b.len as usize - len;
            self.band[i] = if len == 0 {
                Band::default()
            } else {
                Band {
                    at: b.at + off as u32,
                    lo: b.lo + off as u32,
                    len: len as u32,
                }
            };
        }
    }

    pub fn intersect_with(&mut self, o: &Relation) {
        self.combine_with(o, |x, y| x & y);
    }

    pub fn subtract(&mut self, o: &Relation) {
        self.combine_with(o, |x, y| x & !y);
    }

    pub fn union(&self, o: &Relation) -> Relation {
        let mut r = self.clone();
        r.union_with(o);
        r
    }

    pub fn intersection(&self, o: &Relation) -> Relation {
        self.combined(o, |x, y| x & y)
    }

    pub fn difference(&self, o: &Relation) -> Relation {
        self.combined(o, |x, y| x & !y)
    }

    /// A new relation of `f(word of self, word of o)` over the stored words
    /// of `self` (`f(0, _)` must be 0), each row stored trimmed.
    fn combined(&self, o: &Relation, f: impl Fn(u64, u64) -> u64) -> Relation {
        if self.full() {
            let mut r = self.clone();
            r.combine_with(o, f);
            return r;
        }
        let mut r = Relation::empty(self.n);
        let mut row = Vec::with_capacity(self.w);
        for i in self.stored() {
            let (lo, src) = self.band_of(i);
            row.clear();
            row.extend(
                src.iter()
                    .enumerate()
                    .map(|(k, &x)| f(x, o.word(i, lo + k))),
            );
            r.set_row(i, lo, &row);
        }
        r
    }

    /// Complement with respect to all pairs of `0..n`.
    pub fn complement(&self) -> Relation {
        if self.full() {
            let mut r = Relation::empty(self.n);
            crate::cat::kernel::compl_rel(self.n, &self.data, &mut r.data);
            return r;
        }
        let mut r = Relation::with_spans(self.n, &vec![(0, self.w); self.n]);
        for i in 0..self.n {
            let (lo, row) = self.band_of(i);
            let dst = r.span_mut(i, 0, self.w);
            dst.fill(u64::MAX);
            for (d, x) in dst[lo..].iter_mut().zip(row) {
                *d = !x;
            }
            mask_tail(dst, self.n);
        }
        r
    }

    /// `self ; o` (sequential composition).
    pub fn compose(&self, o: &Relation) -> Relation {
        debug_assert_eq!(self.n, o.n);
        let mut r = Relation::empty(self.n);
        if self.full() {
            crate::cat::kernel::compose(self.n, &self.data, &o.data, &mut r.data);
            return r;
        }
        // Row `i` of the result is the union of the rows of `o` at the
        // successors of `i`: summed into `acc` over their bands only.
        let mut acc = vec![0u64; self.w];
        for i in self.stored() {
            let (mut lo, mut hi) = (usize::MAX, 0);
            for k in self.successors_iter(i) {
                let (blo, brow) = o.band_of(k);
                if brow.is_empty() {
                    continue;
                }
                lo = lo.min(blo);
                hi = hi.max(blo + brow.len());
                for (d, x) in acc[blo..].iter_mut().zip(brow) {
                    *d |= x;
                }
            }
            if lo < hi {
                r.set_row(i, lo, &acc[lo..hi]);
                acc[lo..hi].fill(0);
            }
        }
        r
    }

    /// `self⁻¹`, by transposing 64 × 64 blocks of bits (a full relation
    /// over thousands of events has millions of pairs).
    pub fn inverse(&self) -> Relation {
        let n = self.n;
        if self.full() {
            let mut r = Relation::empty(n);
            crate::cat::kernel::inverse(n, &self.data, &mut r.data);
            return r;
        }
        // The non-zero blocks, transposed: (column block, row block, block).
        let mut blocks: Vec<(usize, usize, [u64; 64])> = Vec::new();
        for rb in 0..self.w {
            let rows = rb * 64..n.min(rb * 64 + 64);
            let (mut lo, mut hi) = (usize::MAX, 0);
            for i in rows.clone() {
                let b = self.band[i];
                if b.len != 0 {
                    lo = lo.min(b.lo as usize);
                    hi = hi.max((b.lo + b.len) as usize);
                }
            }
            for cb in lo..hi {
                let mut blk = [0u64; 64];
                let mut any = false;
                for i in rows.clone() {
                    let x = self.word(i, cb);
                    blk[i - rb * 64] = x;
                    any |= x != 0;
                }
                if any {
                    transpose64(&mut blk);
                    blocks.push((cb, rb, blk));
                }
            }
        }
        let mut spans = vec![(usize::MAX, 0); n];
        for (cb, rb, blk) in &blocks {
            for (t, &x) in blk.iter().enumerate() {
                if x != 0 {
                    let s = &mut spans[cb * 64 + t];
                    *s = (s.0.min(*rb), s.1.max(rb + 1));
                }
            }
        }
        for s in &mut spans {
            if s.0 == usize::MAX {
                *s = (0, 0);
            }
        }
        let mut r = Relation::with_spans(n, &spans);
        for (cb, rb, blk) in &blocks {
            for (t, &x) in blk.iter().enumerate() {
                if x != 0 {
                    r.span_mut(cb * 64 + t, *rb, rb + 1)[0] |= x;
                }
            }
        }
        r
    }

    /// Transitive closure `r+`.
    pub fn transitive_closure(&self) -> Relation {
        if self.full() {
            let mut r = Relation::empty(self.n);
            crate::cat::kernel::plus(self.n, &self.data, &mut r.data);
            return r;
        }
        let mut r = self.compacted();
        if self.len() < self.n * 64 {
            // Sparse: square until nothing changes, each step visiting only
            // the bands.
            loop {
                let step = r.compose(&r);
                let before = r.len();
                r.union_with(&step);
                if r.len() == before {
                    return r;
                }
            }
        }
        // Dense: Warshall's algorithm on rows.
        r.closure_through(&EventSet::full(self.n))
    }

    /// The pairs joined by a path of `r` whose intermediate events are
    /// all in `via` (`r+` when `via` holds every event): Warshall's
    /// algorithm over the events of `via` only.
    pub fn closure_through(&self, via: &EventSet) -> Relation {
        let mut r = self.compacted();
        for k in via.iter() {
            let (klo, krow) = r.band_of(k);
            let Some((off, krow)) = trim(krow) else {
                continue;
            };
            let krow = krow.to_vec();
            let klo = klo + off;
            for i in 0..self.n {
                if i != k && r.contains(i, k) {
                    for (d, x) in r.span_mut(i, klo, klo + krow.len()).iter_mut().zip(&krow) {
                        *d |= x;
                    }
                }
            }
        }
        r
    }

    /// Reflexive-transitive closure `r*` over all `n` events.
    pub fn reflexive_transitive_closure(&self) -> Relation {
        let mut r = self.transitive_closure();
        r.add_identity();
        r
    }

    /// `r?` over all `n` events.
    pub fn reflexive_closure(&self) -> Relation {
        let mut r = self.clone();
        r.add_identity();
        r
    }

    fn add_identity(&mut self) {
        for i in 0..self.n {
            self.insert(i, i);
        }
    }

    /// Events with at least one successor.
    pub fn domain(&self) -> EventSet {
        EventSet::from_iter(
            self.n,
            self.stored()
                .filter(|&i| self.band_of(i).1.iter().any(|&x| x != 0)),
        )
    }

    /// Events with at least one predecessor.
    pub fn range(&self) -> EventSet {
        let mut acc = vec![0u64; self.w];
        for i in self.stored() {
            let (lo, row) = self.band_of(i);
            for (a, b) in acc[lo..].iter_mut().zip(row) {
                *a |= b;
            }
        }
        EventSet::from_words(self.n, acc)
    }

    /// `[a] ; self ; [b]`.
    pub fn restrict(&self, a: &EventSet, b: &EventSet) -> Relation {
        let mut r = Relation::empty(self.n);
        let mut row = Vec::with_capacity(self.w);
        for i in a.iter() {
            let (lo, src) = self.band_of(i);
            if src.is_empty() {
                continue;
            }
            row.clear();
            row.extend(src.iter().zip(&b.words()[lo..]).map(|(s, m)| s & m));
            r.set_row(i, lo, &row);
        }
        r
    }

    pub fn is_irreflexive(&self) -> bool {
        self.reflexive_witness().is_none()
    }

    /// First event `i` with `(i, i)` in the relation.
    pub fn reflexive_witness(&self) -> Option<usize> {
        self.stored().find(|&i| self.contains(i, i))
    }

    pub fn is_acyclic(&self) -> bool {
        self.find_cycle().is_none()
    }

    /// A cycle (as a list of events, first not repeated at the end), if any.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        // Iterative DFS with colours: 0 white, 1 grey (on stack), 2 black.
        let mut colour = vec![0u8; self.n];
        let mut parent = vec![usize::MAX; self.n];
        for root in self.stored() {
            if colour[root] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            colour[root] = 1;
            while let Some(&mut (v, ref mut next)) = stack.last_mut() {
                let (lo, row) = self.band_of(v);
                let found = next_bit(row, next.saturating_sub(lo * 64)).map(|j| j + lo * 64);
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

    /// The rows as `n × w` row-major words (`universe().div_ceil(64)` words
    /// a row): borrowed when every word is stored, built otherwise.
    pub fn words(&self) -> Cow<'_, [u64]> {
        if self.full() {
            return Cow::Borrowed(&self.data);
        }
        let mut v = vec![0u64; self.n * self.w];
        for i in self.stored() {
            let (lo, row) = self.band_of(i);
            let at = i * self.w + lo;
            v[at..at + row.len()].copy_from_slice(row);
        }
        Cow::Owned(v)
    }

    /// A copy without dead words.
    fn compacted(&self) -> Relation {
        let (band, data) = if self.dead == 0 {
            (self.band.clone(), self.data.clone())
        } else {
            self.live()
        };
        Relation {
            n: self.n,
            w: self.w,
            band,
            data,
            dead: 0,
        }
    }
}

impl Clone for Relation {
    fn clone(&self) -> Self {
        self.compacted()
    }
}

/// Transposes a 64 × 64 bit matrix in place (bit `j` of word `i` becomes
/// bit `i` of word `j`): swaps the off-diagonal quadrants, then recurses
/// into all four at once.
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// The first set bit of `row` at or after `from`.
fn next_bit(row: &[u64], from: usize) -> Option<usize> {
    let mut wi = from / 64;
    if wi >= row.len() {
        return None;
    }
    let mut word = row[wi] & (u64::MAX << (from % 64));
    loop {
        if word != 0 {
            return Some(wi * 64 + word.trailing_zeros() as usize);
        }
        wi += 1;
        if wi >= row.len() {
            return None;
        }
        word = row[wi];
    }
}

impl PartialEq for Relation {
    fn eq(&self, o: &Relation) -> bool {
        if self.n != o.n {
            return false;
        }
        if self.full() {
            return self.data == o.data;
        }
        (0..self.n).all(|i| {
            let (a, b) = (self.band[i], o.band[i]);
            let lo = a.lo.min(b.lo) as usize;
            let hi = (a.lo + a.len).max(b.lo + b.len) as usize;
            (lo..hi).all(|j| self.word(i, j) == o.word(i, j))
        })
    }
}

impl Eq for Relation {}

impl Hash for Relation {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.n.hash(h);
        for i in self.stored() {
            let (lo, row) = self.band_of(i);
            for (k, &x) in row.iter().enumerate() {
                if x != 0 {
                    (i, lo + k, x).hash(h);
                }
            }
        }
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
