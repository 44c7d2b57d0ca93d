//! Enumeration of the orders an execution chooses: coherence per location
//! (total, or strict partial for PTX programs: `Model::partial_co`) and
//! the `sync_fence` order on SC fences.

/// A strict order on `k` elements as bit rows: `rows[a] >> b & 1` iff a < b.
pub type Order = Vec<u32>;

/// Every total order on `k` elements, as strict orders.
pub fn total_orders(k: usize) -> Vec<Order> {
    let mut out = Vec::new();
    let mut perm: Vec<usize> = (0..k).collect();
    permute(&mut perm, 0, &mut |p| {
        let mut rows = vec![0u32; k];
        for i in 0..k {
            for j in i + 1..k {
                rows[p[i]] |= 1 << p[j];
            }
        }
        out.push(rows);
    });
    out
}

fn permute(p: &mut [usize], i: usize, f: &mut dyn FnMut(&[usize])) {
    if i == p.len() {
        f(p);
        return;
    }
    for j in i..p.len() {
        p.swap(i, j);
        permute(p, i + 1, f);
        p.swap(i, j);
    }
}

/// Every strict partial order on `k` elements (labelled posets: 1, 1, 3,
/// 19, 219, 4231, … for k = 0, 1, 2, …).
///
/// Elements are added one at a time; element `x` is placed by choosing the
/// set `D` of earlier elements below it and `U` above it. `D` must be
/// down-closed, `U` up-closed, disjoint, and every `d ∈ D` already below
/// every `u ∈ U` (transitivity through `x`).
pub fn partial_orders(k: usize) -> Vec<Order> {
    assert!(k <= 16, "partial orders on more than 16 writes");
    let mut out = Vec::new();
    let mut rows = vec![0u32; k];
    extend(&mut rows, 0, k, &mut out);
    out
}

fn extend(rows: &mut Vec<u32>, x: usize, k: usize, out: &mut Vec<Order>) {
    if x == k {
        out.push(rows.clone());
        return;
    }
    let all = (1u32 << x) - 1;
    // Predecessor masks: pred[b] = elements below b.
    let mut pred = vec![0u32; x];
    for (a, &row) in rows.iter().enumerate().take(x) {
        for (b, p) in pred.iter_mut().enumerate() {
            if row >> b & 1 == 1 {
                *p |= 1 << a;
            }
        }
    }
    for d in 0..=all {
        // D down-closed: every predecessor of a member is a member.
        let down_closed = (0..x).all(|b| d >> b & 1 == 0 || pred[b] & !d == 0);
        if !down_closed {
            continue;
        }
        let rest = all & !d;
        // U ranges over subsets of `rest`.
        let mut u = rest;
        loop {
            let up_closed = (0..x).all(|a| u >> a & 1 == 0 || rows[a] & !u == 0);
            let linked = (0..x).all(|a| d >> a & 1 == 0 || rows[a] & u == u);
            if up_closed && linked {
                for (a, row) in rows.iter_mut().enumerate().take(x) {
                    if d >> a & 1 == 1 {
                        *row |= 1 << x;
                    }
                }
                rows[x] = u;
                extend(rows, x + 1, k, out);
                for row in rows.iter_mut().take(x) {
                    *row &= !(1 << x);
                }
                rows[x] = 0;
            }
            if u == 0 {
                break;
            }
            u = (u - 1) & rest;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_known_sequences() {
        assert_eq!(total_orders(3).len(), 6);
        let expected = [1, 1, 3, 19, 219, 4231];
        for (k, &n) in expected.iter().enumerate() {
            let orders = partial_orders(k);
            assert_eq!(orders.len(), n, "posets on {k}");
            for o in &orders {
                // irreflexive and transitive
                for a in 0..k {
                    assert_eq!(o[a] >> a & 1, 0);
                    for b in 0..k {
                        if o[a] >> b & 1 == 1 {
                            assert_eq!(o[b] & !o[a], 0, "transitive");
                        }
                    }
                }
            }
            let mut sorted = orders.clone();
            sorted.sort();
            sorted.dedup();
            assert_eq!(sorted.len(), n, "distinct");
        }
    }
}
