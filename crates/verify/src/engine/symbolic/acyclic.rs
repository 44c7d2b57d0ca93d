//! Acyclicity of one strongly connected component of a may-graph, by
//! vertex elimination (Rankooh and Rintanen, AAAI 2022): eliminating a
//! vertex `v` adds, for each path `u → v → w`, the implication
//! `e(u,v) ∧ e(v,w) ⇒ e(u,w)` (a new edge variable where `u → w` was
//! absent), and forbids `e(u,v) ∧ e(v,u)`. Every cycle is then refuted by
//! unit propagation alone, unlike rank (counter) encodings, where the
//! solver has to search over the rank bits. The fill-in depends on the
//! order; vertices are taken by fewest new paths first.

use super::sat::{Lit, Sat, FALSE};

/// The clauses vertex elimination needs for the edges `mat` (`m × m`,
/// row-major, `FALSE` where absent), in the greedy order; `None` once
/// they pass `budget`.
pub fn elimination_order(m: usize, mat: &[Lit], budget: usize) -> Option<Vec<usize>> {
    let mut has: Vec<bool> = mat.iter().map(|&l| l != FALSE).collect();
    let mut alive = vec![true; m];
    let mut order = Vec::with_capacity(m);
    let mut clauses = 0usize;
    for _ in 0..m {
        // The live vertex with the fewest paths through it.
        let cost = |v: usize, has: &[bool], alive: &[bool]| {
            let ins = (0..m)
                .filter(|&u| alive[u] && u != v && has[u * m + v])
                .count();
            let outs = (0..m)
                .filter(|&w| alive[w] && w != v && has[v * m + w])
                .count();
            ins * outs
        };
        let v = (0..m)
            .filter(|&v| alive[v])
            .min_by_key(|&v| cost(v, &has, &alive))
            .expect("a live vertex is left");
        clauses += cost(v, &has, &alive);
        if clauses > budget {
            return None;
        }
        let ins: Vec<usize> = (0..m)
            .filter(|&u| alive[u] && u != v && has[u * m + v])
            .collect();
        let outs: Vec<usize> = (0..m)
            .filter(|&w| alive[w] && w != v && has[v * m + w])
            .collect();
        for &u in &ins {
            for &w in &outs {
                has[u * m + w] = true;
            }
        }
        alive[v] = false;
        order.push(v);
    }
    Some(order)
}

/// Encodes "no cycle among the edges `mat`" by eliminating the vertices
/// in `order`. Each literal must be implied by its edge (present, both
/// ends executed) and constrained by nothing else: elimination forces the
/// literal of `u → w` along every path `u → v → w`.
pub fn eliminate(sat: &mut Sat, m: usize, mut mat: Vec<Lit>, order: &[usize]) {
    let mut alive = vec![true; m];
    for &v in order {
        let ins: Vec<usize> = (0..m)
            .filter(|&u| alive[u] && u != v && mat[u * m + v] != FALSE)
            .collect();
        let outs: Vec<usize> = (0..m)
            .filter(|&w| alive[w] && w != v && mat[v * m + w] != FALSE)
            .collect();
        for &u in &ins {
            let uv = mat[u * m + v];
            for &w in &outs {
                let vw = mat[v * m + w];
                if u == w {
                    sat.clause(&[-uv, -vw]);
                    continue;
                }
                if mat[u * m + w] == FALSE {
                    mat[u * m + w] = sat.var();
                }
                sat.clause(&[-uv, -vw, mat[u * m + w]]);
            }
        }
        alive[v] = false;
    }
}

/// Encodes "no cycle among the edges `mat`" by ranks: every present edge
/// increases a binary counter. Far fewer clauses than elimination on
/// large dense components; the solver searches over the rank bits.
pub fn ranks(sat: &mut Sat, m: usize, mat: &[Lit]) {
    let bits = (usize::BITS - (m.max(2) - 1).leading_zeros()) as usize;
    let ranks: Vec<Vec<Lit>> = (0..m)
        .map(|_| (0..bits).map(|_| sat.var()).collect())
        .collect();
    for a in 0..m {
        for b in 0..m {
            let l = mat[a * m + b];
            if l == FALSE || a == b {
                continue;
            }
            // 2-cycles directly: the solver sees them without the ranks.
            if a < b && mat[b * m + a] != FALSE {
                sat.clause(&[-l, -mat[b * m + a]]);
            }
            let g = less(sat, &ranks[a], &ranks[b]);
            sat.clause(&[-l, g]);
        }
    }
}

/// A literal `g` with `g ⇒ A < B` (bit vectors, most significant first).
fn less(sat: &mut Sat, a: &[Lit], b: &[Lit]) -> Lit {
    let g = sat.var();
    let mut cur = g;
    for k in 0..a.len() {
        sat.clause(&[-cur, -a[k], b[k]]);
        if k + 1 == a.len() {
            sat.clause(&[-cur, -a[k]]);
            sat.clause(&[-cur, b[k]]);
        } else {
            let next = sat.var();
            sat.clause(&[-cur, a[k], b[k], next]);
            sat.clause(&[-cur, -a[k], -b[k], next]);
            cur = next;
        }
    }
    g
}
