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
