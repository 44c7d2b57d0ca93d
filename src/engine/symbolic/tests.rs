//! Unit tests of the encodings on tiny hand-made inputs: every gate and
//! relational operation is compared with its concrete meaning on every
//! assignment of its inputs.

use super::rel::{Ctx, SymRel, SymSet};
use super::sat::{Lit, Sat, FALSE, TRUE};
use crate::rel::{EventSet, Relation};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Solves with `inputs` fixed to `bits` and returns the model's value of `l`.
fn eval(sat: &mut Sat, inputs: &[Lit], bits: u64, ls: &[Lit]) -> Vec<bool> {
    let a: Vec<Lit> = inputs
        .iter()
        .enumerate()
        .map(|(i, &v)| if bits >> i & 1 == 1 { v } else { -v })
        .collect();
    assert_eq!(sat.solve(&a), Some(true));
    ls.iter().map(|&l| sat.value(l)).collect()
}

#[test]
fn gates_fold_constants_and_match_truth_tables() {
    let mut sat = Sat::new();
    let (a, b) = (sat.var(), sat.var());
    assert_eq!(sat.and(&[a, TRUE]), a);
    assert_eq!(sat.and(&[a, FALSE]), FALSE);
    assert_eq!(sat.and(&[a, -a]), FALSE);
    assert_eq!(sat.or(&[a, -a]), TRUE);
    assert_eq!(sat.and(&[a, b]), sat.and(&[b, a]), "structural hashing");
    let g = sat.and2(a, b);
    let h = sat.or2(a, b);
    for bits in 0..4u64 {
        let v = eval(&mut sat, &[a, b], bits, &[g, h]);
        assert_eq!(v, vec![bits == 3, bits != 0]);
    }
}

#[test]
fn cardinality_counters() {
    let mut sat = Sat::new();
    let xs: Vec<Lit> = (0..5).map(|_| sat.var()).collect();
    let ge = sat.at_least(&xs, 5);
    for bits in 0..32u64 {
        let v = eval(&mut sat, &xs, bits, &ge);
        let c = bits.count_ones() as usize;
        for (k, &b) in v.iter().enumerate() {
            assert_eq!(b, c > k, "at least {} of {bits:05b}", k + 1);
        }
    }
    let mut sat = Sat::new();
    let ys: Vec<Lit> = (0..8).map(|_| sat.var()).collect();
    sat.exactly_one(&ys);
    for bits in 0..256u64 {
        let a: Vec<Lit> = ys
            .iter()
            .enumerate()
            .map(|(i, &v)| if bits >> i & 1 == 1 { v } else { -v })
            .collect();
        assert_eq!(sat.solve(&a), Some(bits.count_ones() == 1), "{bits:08b}");
    }
}

/// A random symbolic relation over `n` events whose symbolic pairs are
/// fresh variables (returned).
fn random_rel(sat: &mut Sat, r: &mut Rng, n: usize, vars: &mut Vec<Lit>) -> SymRel {
    let mut rel = SymRel::empty(n);
    for a in 0..n {
        for b in 0..n {
            match r.below(5) {
                0 => rel.sure.insert(a, b),
                1 => {
                    let v = sat.var();
                    vars.push(v);
                    rel.sym.push((a as u32, b as u32, v));
                }
                _ => {}
            }
        }
    }
    rel
}

/// The concrete relation (restricted to executed events).
fn concrete(rel: &SymRel, sat: &Sat, exec: &[bool]) -> Relation {
    let n = exec.len();
    let mut out = Relation::empty(n);
    for (a, b, l) in rel.entries() {
        if exec[a] && exec[b] && sat.value(l) {
            out.insert(a, b);
        }
    }
    out
}

#[test]
fn relational_operations_match_their_concrete_meaning() {
    let mut r = Rng(0x1234_5678);
    for _round in 0..30 {
        let n = 4;
        let mut sat = Sat::new();
        let mut inputs = Vec::new();
        let exec: Vec<Lit> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    TRUE
                } else {
                    let v = sat.var();
                    inputs.push(v);
                    v
                }
            })
            .collect();
        let ctx = Ctx::new(exec.clone());
        let x = random_rel(&mut sat, &mut r, n, &mut inputs);
        let y = random_rel(&mut sat, &mut r, n, &mut inputs);
        let ops = [
            x.union(&y, &mut sat),
            x.inter(&y, &mut sat),
            x.diff(&y, &mut sat),
            x.compl(),
            x.inv(),
            x.seq(&y, &ctx, &mut sat, None),
            x.plus(&ctx, &mut sat, None, false),
        ];
        let dom = x.domain(&ctx, &mut sat);
        let mut all: Vec<Lit> = Vec::new();
        for o in &ops {
            all.extend(o.entries().iter().map(|e| e.2));
        }
        all.extend(dom.entries().iter().map(|e| e.1));
        if inputs.len() > 16 {
            continue;
        }
        for _ in 0..40 {
            let bits = r.next() & ((1u64 << inputs.len()) - 1);
            eval(&mut sat, &inputs, bits, &all);
            let ex: Vec<bool> = exec.iter().map(|&l| sat.value(l)).collect();
            let live = EventSet::from_iter(n, (0..n).filter(|&i| ex[i]));
            let full = Relation::product(&live, &live);
            let cx = concrete(&x, &sat, &ex);
            let cy = concrete(&y, &sat, &ex);
            let want = [
                cx.union(&cy),
                cx.intersection(&cy),
                cx.difference(&cy),
                full.difference(&cx),
                cx.inverse(),
                cx.compose(&cy),
                cx.transitive_closure(),
            ];
            for (k, (o, w)) in ops.iter().zip(&want).enumerate() {
                assert_eq!(&concrete(o, &sat, &ex), w, "operation {k}");
            }
            let mut d: Vec<usize> = dom
                .entries()
                .into_iter()
                .filter(|&(a, l)| ex[a] && sat.value(l))
                .map(|(a, _)| a)
                .collect();
            d.sort_unstable();
            let dw: Vec<usize> = cx.domain().iter().collect();
            assert_eq!(d, dw, "domain");
        }
    }
}

#[test]
fn set_operations() {
    let mut sat = Sat::new();
    let (a, b) = (sat.var(), sat.var());
    let s = SymSet {
        sure: EventSet::from_iter(3, [0]),
        sym: vec![(1, a)],
    };
    let t = SymSet {
        sure: EventSet::from_iter(3, [1]),
        sym: vec![(2, b)],
    };
    let u = s.union(&t, &mut sat);
    assert!(u.sure.contains(0) && u.sure.contains(1));
    assert_eq!(u.get(2), b);
    let i = s.inter(&t, &mut sat);
    assert_eq!(i.get(1), a);
    assert_eq!(i.get(0), FALSE);
    let d = s.diff(&t, &mut sat);
    assert_eq!(d.get(0), TRUE);
    assert_eq!(d.get(1), FALSE);
    let c = s.compl();
    assert_eq!(c.get(1), -a);
    assert_eq!(c.get(2), TRUE);
}
