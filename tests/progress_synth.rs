//! Synthesis: exact published sets for 2/2 and 2/3, supersets (up to
//! location renaming) for 3/3, 2/4 and 3/4, and the enumerator agrees with
//! a brute-force filter through the constraint checker.

#[path = "progress_util.rs"]
mod util;

use gpumc::progress::ast::{Axb, Test};
use gpumc::progress::cli::compare;
use gpumc::progress::corpus::load;
use gpumc::progress::synth::{check, splits, synthesize, Scope};
use std::collections::HashSet;

fn published(cfg: &str, test: &str) -> Option<Vec<gpumc::progress::corpus::TestFile>> {
    let root = util::progress_corpus(test)?;
    Some(load(&[root.join(cfg)]).unwrap())
}

fn synth_vs_published(t: usize, i: usize, cfg: &str, test: &str) -> Option<(usize, usize, bool)> {
    let published = published(cfg, test)?;
    let scope = Scope::paper(t, i);
    let tests = synthesize(t, i, scope);
    let cmp = compare(&published, &tests, scope);
    assert!(
        cmp.missing.is_empty(),
        "{cfg}: published tests not synthesized: {:?}",
        cmp.missing
    );
    assert_eq!(cmp.contained, cmp.published_distinct);
    Some((tests.len(), cmp.published_distinct, cmp.identical))
}

#[test]
fn synth_2t_2i_is_exactly_the_published_set() {
    let Some((n, distinct, identical)) = synth_vs_published(
        2,
        2,
        "2_threads_2_instructions",
        "synth_2t_2i_is_exactly_the_published_set",
    ) else {
        return;
    };
    assert_eq!((n, distinct), (8, 8));
    assert!(identical);
}

#[test]
fn synth_2t_3i_is_exactly_the_published_set() {
    let Some((n, distinct, identical)) = synth_vs_published(
        2,
        3,
        "2_threads_3_instructions",
        "synth_2t_3i_is_exactly_the_published_set",
    ) else {
        return;
    };
    assert_eq!((n, distinct), (176, 176));
    assert!(identical);
}

#[test]
fn synth_3t_3i_contains_the_published_set() {
    let Some((n, distinct, _)) = synth_vs_published(
        3,
        3,
        "3_threads_3_instructions",
        "synth_3t_3i_contains_the_published_set",
    ) else {
        return;
    };
    assert_eq!(distinct, 21);
    assert_eq!(
        n, 60,
        "the complete space (our reading notes on Sorensen et al., OOPSLA'21, §6.7)"
    );
}

/// Every published 2t_4i and 3t_4i test, canonicalised, meets every
/// constraint within the paper's scope (checked test by test, independently
/// of the enumerator).
#[test]
fn published_4_instruction_tests_meet_the_constraints() {
    for (t, i, cfg, distinct_expected) in [
        (2, 4, "2_threads_4_instructions", 159),
        (3, 4, "3_threads_4_instructions", 99),
    ] {
        let Some(tests) = published(cfg, "published_4_instruction_tests_meet_the_constraints")
        else {
            return;
        };
        let mut distinct = HashSet::new();
        for tf in &tests {
            let canon = tf.test.canonical_locations();
            assert_eq!(
                check(&canon, Scope::paper(t, i)),
                Ok(()),
                "{}",
                tf.path.display()
            );
            distinct.insert(canon);
        }
        assert_eq!(distinct.len(), distinct_expected, "{cfg}");
    }
}

/// The complete 2t_4i and 3t_4i spaces contain every published test; their
/// sizes (paper scopes, up to location renaming) agree with the independent
/// enumeration of our reading notes on Sorensen et al., OOPSLA'21, §6.7.
#[test]
fn synth_2t_4i_and_3t_4i_contain_the_published_sets() {
    for (t, i, cfg, size) in [
        (2, 4, "2_threads_4_instructions", 6187),
        (3, 4, "3_threads_4_instructions", 1050),
    ] {
        let Some((n, _, _)) = synth_vs_published(
            t,
            i,
            cfg,
            "synth_2t_4i_and_3t_4i_contain_the_published_sets",
        ) else {
            return;
        };
        assert_eq!(n, size, "{cfg}");
    }
}

/// All instructions over 2 locations and values {0,1} at index `idx` of a
/// thread of length `len`, with no constraint at all.
fn raw_alphabet(len: usize) -> Vec<Axb> {
    let mut out = Vec::new();
    for loc in 0..2 {
        for check in 0..2 {
            for exch in [None, Some(0), Some(1)] {
                for target in 0..=len as u8 {
                    out.push(Axb {
                        loc,
                        check,
                        exch,
                        target,
                    });
                }
            }
        }
    }
    out
}

fn all_programs(lens: &[usize]) -> Vec<Test> {
    let mut progs: Vec<Vec<Vec<Axb>>> = vec![Vec::new()];
    for &len in lens {
        let mut threads: Vec<Vec<Axb>> = vec![Vec::new()];
        for _ in 0..len {
            threads = threads
                .into_iter()
                .flat_map(|p| {
                    raw_alphabet(len).into_iter().map(move |ins| {
                        let mut q = p.clone();
                        q.push(ins);
                        q
                    })
                })
                .collect();
        }
        progs = progs
            .into_iter()
            .flat_map(|p| {
                threads.iter().map(move |th| {
                    let mut q = p.clone();
                    q.push(th.clone());
                    q
                })
            })
            .collect();
    }
    progs.into_iter().map(|threads| Test { threads }).collect()
}

/// The enumerator (with its pruning and symmetry reduction) finds exactly
/// the programs that pass the constraint checker, in the small configurations.
#[test]
fn enumeration_equals_brute_force_filter() {
    for (t, i) in [(2, 2), (2, 3), (3, 3)] {
        for scope in [Scope::paper(t, i), Scope::UNBOUNDED] {
            let mut brute: Vec<Test> = splits(i, t)
                .iter()
                .flat_map(|lens| all_programs(lens))
                .filter(|p| check(p, scope).is_ok())
                .collect();
            let mut enumerated = synthesize(t, i, scope);
            let n = enumerated.len();
            enumerated.sort();
            enumerated.dedup();
            assert_eq!(enumerated.len(), n, "{t}/{i}: duplicates");
            brute.sort();
            assert_eq!(enumerated, brute, "{t}/{i} {scope:?}");
        }
    }
}

#[test]
fn splits_are_ordered_compositions() {
    assert_eq!(splits(4, 2), vec![vec![1, 3], vec![2, 2], vec![3, 1]]);
    assert_eq!(
        splits(4, 3),
        vec![vec![1, 1, 2], vec![1, 2, 1], vec![2, 1, 1]]
    );
    assert!(splits(2, 3).is_empty());
}

/// The paper found no strong-OBE distinguishing test (Table 4); the
/// complete 2t_4i space has some, e.g. the one of our reading notes on Sorensen et al., OOPSLA'21, §6.7.
#[test]
fn strong_obe_distinguishing_tests_exist_in_2t_4i() {
    use gpumc::progress::cli::{synth_report, SynthOpts};
    use gpumc::progress::parse::parse;
    use gpumc::progress::{decide_all, Base, Model};
    let example = parse(
        "THREAD 0\n0: if (Mem[0] == 1) goto 0;\n1: if (Exch(Mem[0],1) == 0) goto 1;\n\n\
         THREAD 1\n0: Mem[0] = 1;\n1: if (Exch(Mem[0],0) == 1) goto 1;\n",
    )
    .unwrap();
    let v = decide_all(&example).unwrap();
    assert!(!v.pass(Model::weak(Base::Fair)), "a strong test");
    assert!(v.pass(Model::strong(Base::Obe)) && !v.pass(Model::strong(Base::Hsa)));
    let (report, tests) = synth_report(2, 4, &SynthOpts::default()).unwrap();
    let id = tests
        .iter()
        .position(|t| *t == example)
        .expect("example synthesized");
    assert!(report.strong_obe_distinguishing.contains(&id));
    assert!(!report.strong_obe_distinguishing.is_empty());
    for &k in &report.strong_obe_distinguishing {
        let v = decide_all(&tests[k]).unwrap();
        assert!(!v.pass(Model::weak(Base::Fair)) && v.pass(Model::strong(Base::Obe)));
        assert!(!v.pass(Model::strong(Base::Hsa)));
    }
}

#[test]
fn search_sizes() {
    use gpumc::progress::synth::{search_size, MAX_CANDIDATES};
    for (t, i) in gpumc::progress::synth::PAPER_CONFIGS {
        let (n, _) = search_size(t, i);
        assert!(n > 0 && n < 3_000_000, "{t}/{i}: {n}");
    }
    // Splits (1,1): 16 one-instruction programs per thread.
    assert_eq!(search_size(2, 2), (256, 16));
    assert!(search_size(4, 8).0 > MAX_CANDIDATES);
}

/// The progress callback of synthesis (the CLI's bar) counts every
/// candidate of `search_size` exactly once, and does not change the result.
#[test]
fn synthesis_progress_adds_up_to_the_search_size() {
    use gpumc::progress::synth::{search_size, synthesize_observed};
    use std::sync::atomic::{AtomicU64, Ordering};
    for (t, i) in [(2, 2), (2, 3), (3, 3)] {
        let scope = Scope::paper(t, i);
        let seen = AtomicU64::new(0);
        let calls = AtomicU64::new(0);
        let tests = synthesize_observed(t, i, scope, &|n| {
            seen.fetch_add(n, Ordering::Relaxed);
            calls.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(tests, synthesize(t, i, scope), "{t}/{i}");
        assert_eq!(
            seen.load(Ordering::Relaxed) as u128,
            search_size(t, i).0,
            "{t}/{i}"
        );
        assert!(
            calls.load(Ordering::Relaxed) > 1,
            "{t}/{i}: progress in steps"
        );
    }
}
