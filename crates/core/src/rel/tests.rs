use super::*;

fn rel(n: usize, p: &[(usize, usize)]) -> Relation {
    Relation::from_pairs(n, p.iter().copied())
}

#[test]
fn compose_and_closure() {
    let r = rel(70, &[(0, 1), (1, 65), (65, 69)]);
    let c = r.compose(&r);
    assert_eq!(c.pairs().collect::<Vec<_>>(), vec![(0, 65), (1, 69)]);
    let t = r.transitive_closure();
    assert!(t.contains(0, 69) && t.contains(1, 69) && !t.contains(69, 0));
    assert_eq!(t.len(), 6);
    assert!(t.is_acyclic());
    assert!(t.is_irreflexive());
}

#[test]
fn closure_through_a_subset_takes_only_its_events_as_intermediates() {
    let r = rel(70, &[(0, 1), (1, 65), (65, 69), (0, 2), (2, 3)]);
    let none = r.closure_through(&EventSet::empty(70));
    assert_eq!(none, r);
    let via = r.closure_through(&EventSet::from_iter(70, [1, 3]));
    // 0→1→65 joins; 1→65→69 needs 65; 0→2→3 needs 2.
    assert!(via.contains(0, 65) && !via.contains(1, 69) && !via.contains(0, 3));
    assert_eq!(via.len(), r.len() + 1);
    assert_eq!(
        r.closure_through(&EventSet::full(70)),
        r.transitive_closure()
    );
}

#[test]
fn cycles_are_found() {
    let r = rel(5, &[(0, 1), (1, 2), (2, 3), (3, 1), (4, 0)]);
    let cyc = r.find_cycle().expect("cycle");
    assert_eq!(cyc.len(), 3);
    for k in 0..cyc.len() {
        assert!(r.contains(cyc[k], cyc[(k + 1) % cyc.len()]));
    }
    assert!(!r.transitive_closure().is_irreflexive());
    assert!(rel(3, &[(0, 1), (1, 2), (0, 2)]).find_cycle().is_none());
    assert_eq!(rel(2, &[(1, 1)]).find_cycle(), Some(vec![1]));
}

#[test]
fn complement_masks_tail_and_domain_range() {
    let r = rel(3, &[(0, 1)]);
    let c = r.complement();
    assert_eq!(c.len(), 8);
    assert!(!c.contains(0, 1));
    assert_eq!(r.domain().iter().collect::<Vec<_>>(), vec![0]);
    assert_eq!(r.range().iter().collect::<Vec<_>>(), vec![1]);
    assert_eq!(r.inverse().pairs().collect::<Vec<_>>(), vec![(1, 0)]);
}

#[test]
fn product_and_restrict() {
    let a = EventSet::from_iter(4, [0, 1]);
    let b = EventSet::from_iter(4, [2, 3]);
    let p = Relation::product(&a, &b);
    assert_eq!(p.len(), 4);
    let r = Relation::product(&EventSet::full(4), &EventSet::full(4)).restrict(&b, &a);
    assert_eq!(
        r.pairs().collect::<Vec<_>>(),
        vec![(2, 0), (2, 1), (3, 0), (3, 1)]
    );
    assert_eq!(Relation::identity_on(&a).len(), 2);
}

#[test]
fn blocks_transpose() {
    let mut a = [0u64; 64];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for w in a.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *w = x;
    }
    let mut t = a;
    transpose64(&mut t);
    for (i, row) in a.iter().enumerate() {
        for (j, col) in t.iter().enumerate() {
            assert_eq!(row >> j & 1, col >> i & 1, "({i}, {j})");
        }
    }
}

/// Relations over more than `ALL_WORDS_UP_TO` events store only a band of
/// each row: every operation must agree with the plain set of pairs.
mod banded {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    type Pairs = BTreeSet<(usize, usize)>;

    fn of(r: &Relation) -> Pairs {
        r.pairs().collect()
    }

    /// Mostly near-diagonal pairs (bands), a few anywhere.
    fn pairs(n: usize) -> impl Strategy<Value = Vec<(usize, usize)>> {
        proptest::collection::vec((0..n, -70i64..70, any::<bool>(), 0..n), 0..300).prop_map(
            move |v| {
                v.into_iter()
                    .map(|(a, d, far, b)| {
                        let near = (a as i64 + d).clamp(0, n as i64 - 1) as usize;
                        (a, if far { b } else { near })
                    })
                    .collect()
            },
        )
    }

    type Case = (usize, Vec<(usize, usize)>, Vec<(usize, usize)>);

    fn case() -> impl Strategy<Value = Case> {
        (ALL_WORDS_UP_TO + 1..ALL_WORDS_UP_TO + 400)
            .prop_flat_map(|n| (Just(n), pairs(n), pairs(n)))
    }

    fn compose(a: &Pairs, b: &Pairs) -> Pairs {
        let mut r = Pairs::new();
        for &(x, y) in a {
            for &(_, z) in b.range((y, 0)..(y + 1, 0)) {
                r.insert((x, z));
            }
        }
        r
    }

    fn plus(a: &Pairs) -> Pairs {
        let mut r = a.clone();
        loop {
            let next: Pairs = r.union(&compose(&r, &r)).copied().collect();
            if next.len() == r.len() {
                return r;
            }
            r = next;
        }
    }

    proptest! {
        #[test]
        fn operations_agree_with_pair_sets((n, p, q) in case()) {
            let (a, b) = (Relation::from_pairs(n, p.iter().copied()), Relation::from_pairs(n, q.iter().copied()));
            let (pa, pb): (Pairs, Pairs) = (p.iter().copied().collect(), q.iter().copied().collect());
            prop_assert_eq!(of(&a), pa.clone());
            prop_assert_eq!(a.len(), pa.len());
            prop_assert_eq!(a.is_empty(), pa.is_empty());
            prop_assert_eq!(of(&a.union(&b)), pa.union(&pb).copied().collect::<Pairs>());
            prop_assert_eq!(of(&a.intersection(&b)), pa.intersection(&pb).copied().collect::<Pairs>());
            prop_assert_eq!(of(&a.difference(&b)), pa.difference(&pb).copied().collect::<Pairs>());
            prop_assert_eq!(of(&a.compose(&b)), compose(&pa, &pb));
            prop_assert_eq!(of(&a.inverse()), pa.iter().map(|&(x, y)| (y, x)).collect::<Pairs>());
            let tc = plus(&pa);
            prop_assert_eq!(of(&a.transitive_closure()), tc.clone());
            let mut rtc = tc;
            rtc.extend((0..n).map(|i| (i, i)));
            prop_assert_eq!(of(&a.reflexive_transitive_closure()), rtc);
            let c = a.complement();
            prop_assert_eq!(c.len(), n * n - pa.len());
            prop_assert!(pa.iter().all(|&(x, y)| !c.contains(x, y)));
            prop_assert_eq!(a.domain().iter().collect::<BTreeSet<_>>(), pa.iter().map(|p| p.0).collect::<BTreeSet<_>>());
            prop_assert_eq!(a.range().iter().collect::<BTreeSet<_>>(), pa.iter().map(|p| p.1).collect::<BTreeSet<_>>());
            let (sa, sb) = (b.domain(), b.range());
            prop_assert_eq!(
                of(&a.restrict(&sa, &sb)),
                pa.iter().filter(|&&(x, y)| sa.contains(x) && sb.contains(y)).copied().collect::<Pairs>()
            );
            prop_assert_eq!(Relation::product(&sa, &sb).len(), sa.len() * sb.len());
            prop_assert_eq!(of(&Relation::identity_on(&sa)), sa.iter().map(|i| (i, i)).collect::<Pairs>());
            // Equal relations built differently are equal and hash alike.
            let mut e = Relation::empty(n);
            for &(x, y) in pa.iter().rev() {
                e.insert(x, y);
            }
            e.union_with(&b);
            e.subtract(&b.difference(&a));
            prop_assert_eq!(&e, &a.union(&b).difference(&b.difference(&a)));
            let h = |r: &Relation| {
                use std::hash::{BuildHasher, BuildHasherDefault};
                BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(r)
            };
            prop_assert_eq!(h(&e), h(&a.union(&b).difference(&b.difference(&a))));
            let mut f = a.union(&b);
            for &(x, y) in &pa {
                f.remove(x, y);
            }
            prop_assert_eq!(of(&f), pb.difference(&pa).copied().collect::<Pairs>());
            // Dense words, cycles and reflexive pairs.
            let words = a.words();
            let w = n.div_ceil(64);
            prop_assert!(pa.iter().all(|&(x, y)| words[x * w + y / 64] >> (y % 64) & 1 == 1));
            prop_assert_eq!(words.iter().map(|x| x.count_ones() as usize).sum::<usize>(), pa.len());
            let cyclic = plus(&pa).iter().any(|&(x, y)| x == y);
            prop_assert_eq!(a.find_cycle().is_some(), cyclic);
            if let Some(cyc) = a.find_cycle() {
                for k in 0..cyc.len() {
                    prop_assert!(a.contains(cyc[k], cyc[(k + 1) % cyc.len()]));
                }
            }
            prop_assert_eq!(a.is_irreflexive(), pa.iter().all(|&(x, y)| x != y));
        }
    }
}

#[test]
fn dense_relations_over_many_events_close_like_the_kernel() {
    let n = ALL_WORDS_UP_TO + 44;
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut r = Relation::empty(n);
    for _ in 0..n * 400 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let (a, b) = ((x % n as u64) as usize, ((x >> 32) % n as u64) as usize);
        if a < b || x.is_multiple_of(97) {
            r.insert(a, b);
        }
    }
    assert!(r.len() >= n * 64, "the Warshall branch");
    let mut out = vec![0u64; n * n.div_ceil(64)];
    crate::cat::kernel::plus(n, &r.words(), &mut out);
    assert_eq!(*r.transitive_closure().words(), out[..]);
    crate::cat::kernel::compose(n, &r.words(), &r.words(), &mut out);
    assert_eq!(*r.compose(&r).words(), out[..]);
    crate::cat::kernel::inverse(n, &r.words(), &mut out);
    assert_eq!(*r.inverse().words(), out[..]);
}
