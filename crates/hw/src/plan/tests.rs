use super::*;
use crate::lower::lower;
use crate::params::Preset;
use gpumc_core::ir::Term;
use std::collections::HashSet;
use std::path::Path;

fn device(subgroup: u32) -> DeviceInfo {
    DeviceInfo {
        backend: "test".into(),
        name: "test device".into(),
        driver: "test".into(),
        subgroup_size: subgroup,
        max_workgroup_size: 1024,
        max_workgroups: 65535,
        compute_units: None,
        max_shared_words: 8192,
        loop_limit: None,
    }
}

fn lowered(src: &str) -> Lowered {
    let p = gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).unwrap();
    let terms: Vec<Term> = p.assertion.as_ref().map(|a| a.cond.terms()).unwrap();
    lower(&p, &terms).unwrap()
}

const MP: &str = r#"Vulkan MP
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0               | P1@sg 0,wg 1, qf 0              ;
 st.atom.dv.sc0 x, 1               | ld.atom.acq.dv.sc0.semsc0 r0, y ;
 st.atom.rel.dv.sc0.semsc0 y, 1    | ld.atom.dv.sc0 r1, x            ;
exists (P1:r0 == 1 /\ P1:r1 == 0)
"#;

/// (slot, row) of every invocation that runs a test thread.
fn test_rows(plan: &Plan, d: &LaunchData) -> Vec<(usize, Vec<u32>)> {
    let rw = (d.table.len() / (plan.workgroups * plan.config.workgroup_size) as usize).max(1);
    d.table
        .chunks(rw)
        .enumerate()
        .filter(|(_, r)| r[abi::ROW_ROLE] >= abi::ROLE_THREAD0)
        .map(|(i, r)| (i, r.to_vec()))
        .collect()
}

#[test]
fn parallel_mp_places_each_instance_across_two_workgroups() {
    let l = lowered(MP);
    let params = Preset::Parallel.base();
    let plan = Plan::new(&l, &params, &device(8)).unwrap();
    let wg = plan.config.workgroup_size as usize;
    assert_eq!(
        plan.instances(),
        (64 * 64) / 2,
        "every lane of 64 testing workgroups"
    );
    assert_eq!(plan.config.shared_words, 0);
    let d = plan.launch(&l.spec, &mut Rng::new(1));
    let rows = test_rows(&plan, &d);
    assert_eq!(rows.len(), plan.instances() * 2);
    // Result records are distinct, and each instance's two threads sit in
    // different workgroups.
    let mut by_record = std::collections::HashMap::new();
    for (slot, r) in &rows {
        assert!(by_record.insert(r[abi::ROW_RESULT], *slot).is_none());
    }
    for i in 0..plan.instances() {
        let base = plan.result_base(i);
        let w0 = by_record[&base[0]] / wg;
        let w1 = by_record[&base[1]] / wg;
        assert_ne!(w0, w1, "instance {i}");
        // Locations: instance i's x and y words agree in both threads'
        // rows and are used by no other instance.
        assert_eq!(d.locs[i].len(), 2);
    }
    let words: HashSet<_> = d.locs.iter().flatten().collect();
    assert_eq!(
        words.len(),
        plan.instances() * 2,
        "no two copies share a word"
    );
    // Stress workgroups stress.
    let stress = d
        .table
        .chunks(l.spec.row_words())
        .filter(|r| r[abi::ROW_ROLE] == abi::ROLE_STRESS)
        .count();
    assert_eq!(stress, 16 * wg);
    assert_eq!(d.params[abi::P_FUEL], params.fuel);
    assert!(d.params[abi::P_STRESS_PATTERN] < 4);
}

#[test]
fn launches_are_deterministic_in_the_seed_and_vary_with_it() {
    let l = lowered(MP);
    let plan = Plan::new(&l, &Preset::Parallel.base(), &device(8)).unwrap();
    let a = plan.launch(&l.spec, &mut Rng::new(5));
    let b = plan.launch(&l.spec, &mut Rng::new(5));
    let c = plan.launch(&l.spec, &mut Rng::new(6));
    assert_eq!(a.table, b.table);
    assert_eq!(a.locs, b.locs);
    assert_ne!(a.table, c.table);
    // Without shuffling or permuting, every launch is the same.
    let plain = Plan::new(&l, &Preset::Plain.base(), &device(8)).unwrap();
    let x = plain.launch(&l.spec, &mut Rng::new(1));
    let y = plain.launch(&l.spec, &mut Rng::new(2));
    assert_eq!(x.locs, y.locs);
    let rows = |d: &LaunchData| {
        d.table
            .chunks(l.spec.row_words())
            .map(|r| r[abi::ROW_ROLE])
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&x), rows(&y));
}

#[test]
fn threads_of_one_subgroup_share_a_hardware_subgroup() {
    let src = r#"Vulkan S
{ x=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0, wg 0, qf 0  | P2@sg 1, wg 0, qf 0  ;
 st.atom.wg.sc1 x, 1  | ld.atom.wg.sc1 r0, x | ld.atom.wg.sc1 r1, x ;
exists (P1:r0 == 1 /\ P2:r1 == 0)
"#;
    let l = lowered(src);
    let plan = Plan::new(&l, &Preset::Parallel.base(), &device(8)).unwrap();
    assert!(plan.config.shared_words > 0);
    let wg = plan.config.workgroup_size as usize;
    for seed in 0..4 {
        let d = plan.launch(&l.spec, &mut Rng::new(seed));
        let rows = test_rows(&plan, &d);
        let mut slot_of = std::collections::HashMap::new();
        for (slot, r) in &rows {
            slot_of.insert(r[abi::ROW_RESULT], *slot);
        }
        let mut shared_words = HashSet::new();
        for i in 0..plan.instances() {
            let s: Vec<usize> = plan.result_base(i).iter().map(|b| slot_of[b]).collect();
            assert_eq!(s[0] / wg, s[1] / wg);
            assert_eq!(s[0] / wg, s[2] / wg);
            assert_eq!(s[0] / 8, s[1] / 8, "P0 and P1 share a subgroup");
            assert_ne!(s[0] / 8, s[2] / 8, "P2 is in another subgroup");
            let LocAt::Shared { wg: w, word } = d.locs[i][0] else {
                panic!("x is in workgroup memory")
            };
            assert_eq!(w as usize, s[0] / wg, "x lives in the threads' workgroup");
            assert!(shared_words.insert((w, word)));
            assert!(word < plan.config.shared_words);
        }
    }
}

#[test]
fn sorensen_mode_runs_one_instance_with_bank_conflict_shadows() {
    let l = lowered(MP);
    let plan = Plan::new(&l, &Preset::Sorensen.base(), &device(8)).unwrap();
    assert_eq!(plan.instances(), 1);
    let d = plan.launch(&l.spec, &mut Rng::new(9));
    let rw = l.spec.row_words();
    let shadows: Vec<&[u32]> = d
        .table
        .chunks(rw)
        .filter(|r| r[abi::ROW_ROLE] >= abi::ROLE_THREAD0 && r[abi::ROW_RESULT] == abi::DISCARD)
        .collect();
    // Each of the two testing subgroups: 7 shadows.
    assert_eq!(shadows.len(), 14);
    let real: HashSet<u32> = d
        .locs
        .iter()
        .flatten()
        .map(|a| match a {
            LocAt::Mem(w) => *w,
            LocAt::Shared { word, .. } => *word,
        })
        .collect();
    for r in shadows {
        assert_eq!(r[abi::ROW_SYNC_N], 0);
        for l in 0..2 {
            let a = r[abi::ROW_LOC0 + l];
            assert!((a as usize) < d.mem.len(), "shadow address {a} inside mem");
            // A shadow touches a real location only by broadcast of a
            // location its thread only reads.
            if real.contains(&a) {
                let t = (r[abi::ROW_ROLE] - abi::ROLE_THREAD0) as usize;
                assert!(!plan.writes[t][l], "shadow of P{t} writes a real location");
            }
        }
    }
}

#[test]
fn barrier_tests_keep_workgroups_to_one_test_workgroup() {
    let src = r#"Vulkan B
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0      | P1@sg 1, wg 0, qf 0      | P2@sg 0, wg 1, qf 0 ;
 st.av.wg.sc0 x, 1        | cbar.acq_rel.wg.semsc0 1 | st.atom.dv.sc0 y, 1 ;
 cbar.acq_rel.wg.semsc0 1 | ld.vis.wg.sc0 r0, x      |                     ;
exists (P1:r0 == 0)
"#;
    let l = lowered(src);
    let plan = Plan::new(&l, &Preset::Parallel.base(), &device(8)).unwrap();
    assert!(plan.has_barriers());
    let d = plan.launch(&l.spec, &mut Rng::new(3));
    let wg = plan.config.workgroup_size as usize;
    let mut kinds: std::collections::HashMap<usize, HashSet<u32>> = Default::default();
    for (slot, r) in test_rows(&plan, &d) {
        let t = r[abi::ROW_ROLE] - abi::ROLE_THREAD0;
        // P0, P1: group 0; P2: group 1.
        kinds
            .entry(slot / wg)
            .or_default()
            .insert(u32::from(t == 2));
    }
    assert!(
        kinds.values().all(|k| k.len() == 1),
        "a workgroup mixes test workgroups"
    );
}

#[test]
fn too_many_threads_in_one_subgroup_is_refused() {
    let src = r#"Vulkan W
{ x=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0, wg 0, qf 0  | P2@sg 0, wg 0, qf 0  ;
 st.atom.wg.sc0 x, 1  | st.atom.wg.sc0 x, 2  | st.atom.wg.sc0 x, 3  ;
exists (x == 1)
"#;
    let l = lowered(src);
    let e = Plan::new(&l, &Preset::Parallel.base(), &device(2)).unwrap_err();
    assert!(e.message.contains("3 threads in one subgroup"), "{e}");
    assert!(Plan::new(&l, &Preset::Parallel.base(), &device(4)).is_ok());
}

#[test]
fn max_instances_caps_the_packing() {
    let l = lowered(MP);
    let params = Params {
        max_instances: 10,
        ..Preset::Parallel.base()
    };
    let plan = Plan::new(&l, &params, &device(8)).unwrap();
    assert_eq!(plan.instances(), 10);
    // Spread over the testing workgroups rather than crammed into two.
    let d = plan.launch(&l.spec, &mut Rng::new(0));
    let wgs: HashSet<usize> = test_rows(&plan, &d)
        .iter()
        .map(|(s, _)| s / plan.config.workgroup_size as usize)
        .collect();
    assert!(wgs.len() >= 10, "{wgs:?}");
}
