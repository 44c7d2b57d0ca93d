//! Allocation-free bit kernels on the evaluator's slots.
//!
//! A set over `n` events is `w = n.div_ceil(64)` words; a relation is `n`
//! rows of `w` words, row-major (the layout of [`crate::rel::Relation`]).
//! Bits past `n` in a row are always zero. Every function writes its whole
//! output, so outputs need no clearing beforehand.

/// Words per row for `n` events.
#[inline]
pub fn words(n: usize) -> usize {
    n.div_ceil(64)
}

/// Mask of the valid bits of word `j` of a row of `n` bits.
#[inline]
fn word_mask(n: usize, j: usize) -> u64 {
    let lo = j * 64;
    if n >= lo + 64 {
        u64::MAX
    } else if n <= lo {
        0
    } else {
        (1u64 << (n - lo)) - 1
    }
}

pub fn zero(out: &mut [u64]) {
    out.fill(0);
}

pub fn full_set(n: usize, out: &mut [u64]) {
    for (j, o) in out.iter_mut().enumerate() {
        *o = word_mask(n, j);
    }
}

pub fn full_rel(n: usize, out: &mut [u64]) {
    let w = words(n);
    for row in out.chunks_exact_mut(w.max(1)).take(n) {
        full_set(n, row);
    }
}

#[inline]
fn set_bit(v: &mut [u64], i: usize) {
    v[i / 64] |= 1 << (i % 64);
}

#[inline]
fn get_bit(v: &[u64], i: usize) -> bool {
    v[i / 64] >> (i % 64) & 1 == 1
}

pub fn identity(n: usize, out: &mut [u64]) {
    out.fill(0);
    add_diag(n, out);
}

/// Adds `(i, i)` for every event.
pub fn add_diag(n: usize, out: &mut [u64]) {
    let w = words(n);
    for i in 0..n {
        set_bit(&mut out[i * w..], i);
    }
}

pub fn or(a: &[u64], b: &[u64], out: &mut [u64]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x | y;
    }
}

pub fn and(a: &[u64], b: &[u64], out: &mut [u64]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x & y;
    }
}

pub fn andnot(a: &[u64], b: &[u64], out: &mut [u64]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x & !y;
    }
}

pub fn compl_set(n: usize, a: &[u64], out: &mut [u64]) {
    for (j, (o, x)) in out.iter_mut().zip(a).enumerate() {
        *o = !x & word_mask(n, j);
    }
}

pub fn compl_rel(n: usize, a: &[u64], out: &mut [u64]) {
    let w = words(n).max(1);
    for (orow, arow) in out.chunks_exact_mut(w).zip(a.chunks_exact(w)) {
        compl_set(n, arow, orow);
    }
}

/// `out = a ; b`.
pub fn compose(n: usize, a: &[u64], b: &[u64], out: &mut [u64]) {
    let w = words(n);
    out.fill(0);
    // The non-zero words of each row of `b`: relations of many events are
    // mostly made of narrow bands (program order within a thread, one
    // location's accesses), so most of a row need not be visited.
    let span: Vec<(usize, usize)> = (0..n)
        .map(|k| {
            let row = &b[k * w..(k + 1) * w];
            match row.iter().position(|&x| x != 0) {
                None => (0, 0),
                Some(lo) => (lo, w - row.iter().rev().position(|&x| x != 0).unwrap_or(0)),
            }
        })
        .collect();
    for i in 0..n {
        let orow = &mut out[i * w..(i + 1) * w];
        for (wi, &word) in a[i * w..(i + 1) * w].iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let k = wi * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                let (lo, hi) = span[k];
                let brow = &b[k * w..(k + 1) * w];
                for (o, x) in orow[lo..hi].iter_mut().zip(&brow[lo..hi]) {
                    *o |= x;
                }
            }
        }
    }
}

/// `out = a^-1`.
pub fn inverse(n: usize, a: &[u64], out: &mut [u64]) {
    let w = words(n);
    out.fill(0);
    for i in 0..n {
        for (wi, &word) in a[i * w..(i + 1) * w].iter().enumerate() {
            let mut word = word;
            while word != 0 {
                let j = wi * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                set_bit(&mut out[j * w..], i);
            }
        }
    }
}

/// `out = a+` (Warshall on bit rows).
pub fn plus(n: usize, a: &[u64], out: &mut [u64]) {
    out.copy_from_slice(a);
    let set: u64 = a.iter().map(|x| u64::from(x.count_ones())).sum();
    // Sparse relations (a few pairs per event: program order, one
    // location's accesses) close by squaring, whose compositions only
    // visit the bands of non-zero words; dense ones by Warshall's
    // algorithm, whose cost does not depend on the density.
    if n >= 256 && set < (n as u64) * 64 {
        let mut step = vec![0u64; a.len()];
        loop {
            compose(n, out, out, &mut step);
            let mut changed = false;
            for (o, s) in out.iter_mut().zip(&step) {
                let v = *o | *s;
                if v != *o {
                    *o = v;
                    changed = true;
                }
            }
            if !changed {
                return;
            }
        }
    }
    let w = words(n);
    for k in 0..n {
        let (kw, kb) = (k / 64, 1u64 << (k % 64));
        for i in 0..n {
            if out[i * w + kw] & kb != 0 && i != k {
                for j in 0..w {
                    let v = out[k * w + j];
                    out[i * w + j] |= v;
                }
            }
        }
    }
}

/// `out = [s]`.
pub fn id_on(n: usize, s: &[u64], out: &mut [u64]) {
    let w = words(n);
    out.fill(0);
    for i in 0..n {
        if get_bit(s, i) {
            set_bit(&mut out[i * w..], i);
        }
    }
}

/// `out = a × b`.
pub fn product(n: usize, a: &[u64], b: &[u64], out: &mut [u64]) {
    let w = words(n);
    for i in 0..n {
        let row = &mut out[i * w..(i + 1) * w];
        if get_bit(a, i) {
            row.copy_from_slice(b);
        } else {
            row.fill(0);
        }
    }
}

pub fn domain(n: usize, r: &[u64], out: &mut [u64]) {
    let w = words(n);
    out.fill(0);
    for i in 0..n {
        if r[i * w..(i + 1) * w].iter().any(|&x| x != 0) {
            set_bit(out, i);
        }
    }
}

pub fn range(n: usize, r: &[u64], out: &mut [u64]) {
    let w = words(n);
    out.fill(0);
    for i in 0..n {
        for (o, x) in out.iter_mut().zip(&r[i * w..(i + 1) * w]) {
            *o |= x;
        }
    }
}

pub fn is_zero(a: &[u64]) -> bool {
    a.iter().all(|&x| x == 0)
}

pub fn is_irreflexive(n: usize, a: &[u64]) -> bool {
    let w = words(n);
    (0..n).all(|i| !get_bit(&a[i * w..], i))
}

/// Reusable buffers for [`is_acyclic`].
#[derive(Default, Debug)]
pub struct DfsScratch {
    colour: Vec<u8>,
    /// (node, word index, bits of that word still to visit)
    stack: Vec<(usize, usize, u64)>,
}

/// Whether the relation has no cycle (iterative depth-first search).
pub fn is_acyclic(n: usize, a: &[u64], s: &mut DfsScratch) -> bool {
    let w = words(n);
    s.colour.clear();
    s.colour.resize(n, 0);
    s.stack.clear();
    for root in 0..n {
        if s.colour[root] != 0 {
            continue;
        }
        s.colour[root] = 1;
        s.stack.push((root, 0, a[root * w]));
        while let Some(top) = s.stack.last_mut() {
            let (v, wi, bits) = *top;
            if bits != 0 {
                top.2 = bits & (bits - 1);
                let u = wi * 64 + bits.trailing_zeros() as usize;
                match s.colour[u] {
                    0 => {
                        s.colour[u] = 1;
                        s.stack.push((u, 0, a[u * w]));
                    }
                    1 => return false,
                    _ => {}
                }
            } else if wi + 1 < w {
                top.1 = wi + 1;
                top.2 = a[v * w + wi + 1];
            } else {
                s.colour[v] = 2;
                s.stack.pop();
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rel::{EventSet, Relation};
    use proptest::prelude::*;

    fn rel_strategy() -> impl Strategy<Value = Relation> {
        (0usize..140).prop_flat_map(|n| {
            let max = if n == 0 { 0 } else { 3 * n };
            proptest::collection::vec((0..n.max(1), 0..n.max(1)), 0..=max).prop_map(move |ps| {
                Relation::from_pairs(n, ps.into_iter().filter(|&(a, b)| a < n && b < n))
            })
        })
    }

    fn from_words(n: usize, v: &[u64]) -> Relation {
        let w = words(n);
        let mut r = Relation::empty(n);
        for i in 0..n {
            for j in 0..n {
                if get_bit(&v[i * w..], j) {
                    r.insert(i, j);
                }
            }
        }
        r
    }

    fn set_of(n: usize, v: &[u64]) -> EventSet {
        EventSet::from_iter(n, (0..n).filter(|&i| get_bit(v, i)))
    }

    proptest! {
        #[test]
        fn kernels_agree_with_rel(r in rel_strategy(), seed in any::<u64>()) {
            let n = r.universe();
            let w = words(n);
            let mut out = vec![0u64; n * w];
            let mut sout = vec![0u64; w];
            // A second relation derived from the first.
            let s = Relation::from_pairs(n, r.pairs().map(|(a, b)| {
                ((a + seed as usize % 7) % n.max(1), b)
            }));
            compose(n, &r.words(), &s.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), r.compose(&s));
            inverse(n, &r.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), r.inverse());
            plus(n, &r.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), r.transitive_closure());
            add_diag(n, &mut out);
            prop_assert_eq!(from_words(n, &out), r.reflexive_transitive_closure());
            compl_rel(n, &r.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), r.complement());
            domain(n, &r.words(), &mut sout);
            prop_assert_eq!(set_of(n, &sout), r.domain());
            range(n, &r.words(), &mut sout);
            prop_assert_eq!(set_of(n, &sout), r.range());
            let dom = r.domain();
            let rng = r.range();
            product(n, dom.words(), rng.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), Relation::product(&dom, &rng));
            id_on(n, dom.words(), &mut out);
            prop_assert_eq!(from_words(n, &out), Relation::identity_on(&dom));
            compl_set(n, dom.words(), &mut sout);
            prop_assert_eq!(set_of(n, &sout), dom.complement());
            prop_assert_eq!(is_irreflexive(n, &r.words()), r.is_irreflexive());
            let mut scratch = DfsScratch::default();
            prop_assert_eq!(is_acyclic(n, &r.words(), &mut scratch), r.find_cycle().is_none());
            prop_assert_eq!(is_zero(&r.words()), r.is_empty());
        }
    }

    #[test]
    fn constants() {
        for n in [0, 1, 63, 64, 65, 130] {
            let w = words(n);
            let mut v = vec![0u64; n * w];
            full_rel(n, &mut v);
            assert_eq!(
                from_words(n, &v),
                Relation::identity(n)
                    .complement()
                    .union(&Relation::identity(n))
            );
            identity(n, &mut v);
            assert_eq!(from_words(n, &v), Relation::identity(n));
            let mut s = vec![0u64; w];
            full_set(n, &mut s);
            assert_eq!(set_of(n, &s), EventSet::full(n));
        }
    }
}
