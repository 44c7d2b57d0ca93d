//! Termination-oracle verdicts on the 483 corpus tests against the
//! published data: Dat3M's `VULKAN-Liveness-*` rows (weak fairness, one row
//! per CADP translation, disabled `; ` rows included) and Sorensen et al., OOPSLA'21's
//! published figures for the strong and unfair models.

#[path = "progress_util.rs"]
mod util;

use gpumc::progress::ast::{Axb, Test};
use gpumc::progress::cli::decide_paths;
use gpumc::progress::corpus::TestFile;
use gpumc::progress::lts::explore;
use gpumc::progress::parse::parse;
use gpumc::progress::{decide, decide_all, Base, Model, Verdicts};
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};

fn corpus_verdicts(test: &str) -> Option<Vec<(TestFile, Verdicts)>> {
    let root = util::progress_corpus(test)?;
    let decided = decide_paths(&[root]).expect("corpus parses");
    assert_eq!(decided.len(), 483, "the corpus has 483 tests");
    Some(decided)
}

fn key(tf: &TestFile) -> String {
    let dir = tf
        .path
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap();
    format!("{dir}/{}", tf.id)
}

fn by_key(decided: &[(TestFile, Verdicts)]) -> HashMap<String, Verdicts> {
    decided.iter().map(|(tf, v)| (key(tf), *v)).collect()
}

/// Every weak verdict equals Dat3M's expected liveness result (1 = PASS),
/// active and `; `-disabled rows alike.
#[test]
fn weak_verdicts_match_dat3m_liveness_rows() {
    let Some(decided) = corpus_verdicts("weak_verdicts_match_dat3m_liveness_rows") else {
        return;
    };
    let Some(dat3m) = util::dat3m_corpus("weak_verdicts_match_dat3m_liveness_rows") else {
        return;
    };
    let verdicts = by_key(&decided);
    let files = [
        ("Fair", Base::Fair),
        ("HSA", Base::Hsa),
        ("OBE", Base::Obe),
        ("HSA_OBE", Base::HsaObe),
        ("LOBE", Base::Lobe),
    ];
    for (name, base) in files {
        let path = dat3m.join(format!("expected/VULKAN-Liveness-{name}-expected.csv"));
        let text = std::fs::read_to_string(&path).unwrap();
        let model = Model::weak(base);
        let (mut rows, mut disabled, mut mismatches) = (0, 0, Vec::new());
        for line in text.lines() {
            let (row, is_disabled) = match line.strip_prefix("; ") {
                Some(rest) => (rest, true),
                None => (line, false),
            };
            let Some(rest) = row.strip_prefix("litmus/VULKAN/CADP/") else {
                continue;
            };
            let (file, expected) = rest.rsplit_once(',').unwrap();
            let (cfg, name) = file.split_once('/').unwrap();
            let id = name.strip_suffix("_simple.litmus").unwrap();
            let expected_pass = match expected.trim() {
                "1" => true,
                "0" => false,
                other => panic!("{path:?}: unexpected value {other}"),
            };
            let v = verdicts[&format!("{cfg}/{id}")];
            rows += 1;
            disabled += is_disabled as usize;
            if v.pass(model) != expected_pass {
                mismatches.push(format!(
                    "{cfg}/{id}: expected {expected_pass}, oracle {}",
                    v.get(model)
                ));
            }
        }
        assert_eq!(rows, 483, "{name}: one row per corpus test");
        assert!(
            disabled > 0,
            "{name}: the disabled rows are part of the check"
        );
        assert!(
            mismatches.is_empty(),
            "{model} disagrees with {name}: {mismatches:#?}"
        );
    }
}

/// Sorensen et al., OOPSLA'21: "by construction, none of our tests are guaranteed to
/// terminate under the unfair model", and all pass strong fair (the
/// synthesis constraints require possible termination).
#[test]
fn unfair_fails_and_strong_fair_passes_everywhere() {
    let Some(decided) = corpus_verdicts("unfair_fails_and_strong_fair_passes_everywhere") else {
        return;
    };
    for (tf, v) in &decided {
        assert!(
            !v.pass(Model::UNFAIR),
            "{}: unfair must FAIL",
            tf.path.display()
        );
        assert!(
            v.pass(Model::strong(Base::Fair)),
            "{}: strong fair must PASS",
            tf.path.display()
        );
    }
}

/// Literal pass counts and the verdict-vector histogram published for the
/// suite (our reading notes on Sorensen et al., OOPSLA'21, §7.3, from the artifact's per-test CADP CSVs).
#[test]
fn strong_and_weak_counts_match_published_figures() {
    let Some(decided) = corpus_verdicts("strong_and_weak_counts_match_published_figures") else {
        return;
    };
    let count = |m: Model| decided.iter().filter(|(_, v)| v.pass(m)).count();
    let published = [
        (Model::weak(Base::Hsa), 90),
        (Model::weak(Base::Obe), 24),
        (Model::weak(Base::Lobe), 122),
        (Model::weak(Base::Fair), 323),
        (Model::strong(Base::Hsa), 184),
        (Model::strong(Base::Obe), 113),
        (Model::strong(Base::Lobe), 232),
        (Model::strong(Base::Fair), 483),
    ];
    for (m, n) in published {
        assert_eq!(count(m), n, "pass count of {m}");
    }
    // (weak,strong) for HSA, OBE, LOBE, fair.
    let mut histogram: BTreeMap<String, usize> = BTreeMap::new();
    for (_, v) in &decided {
        let pf = |m: Model| if v.pass(m) { 'P' } else { 'F' };
        let vec: Vec<String> = [Base::Hsa, Base::Obe, Base::Lobe, Base::Fair]
            .iter()
            .map(|&b| format!("{}{}", pf(Model::weak(b)), pf(Model::strong(b))))
            .collect();
        *histogram.entry(vec.join(",")).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [
        ("FF,FF,FF,PP", 201),
        ("FP,FP,FP,FP", 89),
        ("PP,FF,PP,PP", 78),
        ("FF,FF,FF,FP", 50),
        ("FF,FF,PP,PP", 20),
        ("FF,FF,FP,FP", 16),
        ("PP,PP,PP,PP", 12),
        ("FF,PP,PP,PP", 12),
        ("FP,FF,FP,FP", 5),
    ]
    .into_iter()
    .map(|(k, n)| (k.to_string(), n))
    .collect();
    assert_eq!(histogram, expected);
}

/// Per-test vectors published for named tests (our reading notes on Sorensen et al., OOPSLA'21, §13 and
/// §9.3–9.4): (weak,strong) for HSA, OBE, LOBE, fair.
#[test]
fn published_vectors_of_named_tests() {
    let Some(decided) = corpus_verdicts("published_vectors_of_named_tests") else {
        return;
    };
    let verdicts = by_key(&decided);
    let cases = [
        ("2_threads_2_instructions/0", "FP,FP,FP,FP"),
        ("2_threads_2_instructions/1", "FP,FP,FP,FP"),
        ("2_threads_2_instructions/2", "FF,FF,FF,PP"),
        ("2_threads_2_instructions/3", "PP,FF,PP,PP"),
        ("2_threads_2_instructions/4", "FF,FF,FF,PP"),
        ("2_threads_2_instructions/5", "PP,FF,PP,PP"),
        ("2_threads_2_instructions/6", "PP,FF,PP,PP"),
        ("2_threads_2_instructions/7", "FF,FF,FF,PP"),
        ("2_threads_3_instructions/22", "FF,PP,PP,PP"),
        ("3_threads_3_instructions/16", "FF,FF,PP,PP"),
        ("3_threads_3_instructions/4", "FF,FF,FF,PP"),
    ];
    for (k, expected) in cases {
        let v = verdicts[k];
        let pf = |m: Model| if v.pass(m) { "P" } else { "F" };
        let got: Vec<String> = [Base::Hsa, Base::Obe, Base::Lobe, Base::Fair]
            .iter()
            .map(|&b| format!("{}{}", pf(Model::weak(b)), pf(Model::strong(b))))
            .collect();
        assert_eq!(got.join(","), expected, "{k}");
        assert!(!v.pass(Model::UNFAIR), "{k}: unfair");
    }
}

fn mutex() -> Test {
    // Sorensen et al., OOPSLA'21 Fig. 2: while(Exch(m,1)==1); Exch(m,0); in both threads.
    parse(
        "THREAD0\natomic_exch_branch(0,1,1,0)\natomic_store(0,0)\n\
         THREAD1\natomic_exch_branch(0,1,1,0)\natomic_store(0,0)\n",
    )
    .unwrap()
}

/// Fig. 2's mutex: 8 states and 10 actions; fails HSA and unfair, passes
/// OBE, HSA+OBE, LOBE and fair (weak and strong).
#[test]
fn fig2_mutex() {
    let t = mutex();
    let lts = explore(&t, Base::Unfair).unwrap();
    assert_eq!((lts.num_states(), lts.num_edges()), (8, 10));
    let v = decide_all(&t).unwrap();
    let expect = [
        (Model::UNFAIR, false),
        (Model::weak(Base::Hsa), false),
        (Model::strong(Base::Hsa), false),
    ];
    for (m, pass) in expect {
        assert_eq!(v.pass(m), pass, "{m}");
    }
    for b in [Base::Obe, Base::HsaObe, Base::Lobe, Base::Fair] {
        assert!(v.pass(Model::weak(b)) && v.pass(Model::strong(b)), "{b:?}");
    }
}

/// Table 3's LTS sizes (program graph, no model state): one-way
/// producer-consumer 3/3, bidirectional producer-consumer (2t_4i #67) 7/5,
/// simplified mutex (2t_3i #22) 7/6, dining philosophers (2t_2i #0) 8/8.
#[test]
fn table3_lts_sizes() {
    let Some(root) = util::progress_corpus("table3_lts_sizes") else {
        return;
    };
    for (file, actions, states) in [
        ("2_threads_2_instructions/5.txt", 3, 3),
        ("2_threads_2_instructions/4.txt", 3, 3),
        ("2_threads_4_instructions/67.txt", 7, 5),
        ("2_threads_3_instructions/22.txt", 7, 6),
        ("2_threads_2_instructions/0.txt", 8, 8),
    ] {
        let t = gpumc::progress::parse::parse_file(&root.join(file)).unwrap();
        let lts = explore(&t, Base::Unfair).unwrap();
        assert_eq!(
            (lts.num_edges(), lts.num_states()),
            (actions, states),
            "{file}"
        );
    }
}

/// The model hierarchy holds on every corpus test: weak ⇒ strong,
/// HSA ⇒ HSA+OBE, OBE ⇒ HSA+OBE, HSA+OBE ⇒ LOBE ⇒ fair, unfair ⇒ all;
/// and deciding one model alone agrees with deciding all of them.
#[test]
fn hierarchy_and_single_model_agreement() {
    let Some(decided) = corpus_verdicts("hierarchy_and_single_model_agreement") else {
        return;
    };
    for (tf, v) in &decided {
        check_hierarchy(v, &tf.path.display().to_string());
        for m in Model::ALL {
            assert_eq!(
                decide(&tf.test, m).unwrap(),
                v.get(m),
                "{} {m}",
                tf.path.display()
            );
        }
    }
}

pub fn check_hierarchy(v: &Verdicts, what: &str) {
    let implies = |a: Model, b: Model| {
        assert!(!v.pass(a) || v.pass(b), "{what}: {a} passes but {b} fails");
    };
    for b in [Base::Fair, Base::Hsa, Base::Obe, Base::HsaObe, Base::Lobe] {
        implies(Model::weak(b), Model::strong(b));
        implies(Model::UNFAIR, Model::weak(b));
    }
    for mk in [Model::weak, Model::strong] {
        implies(mk(Base::Hsa), mk(Base::HsaObe));
        implies(mk(Base::Obe), mk(Base::HsaObe));
        implies(mk(Base::HsaObe), mk(Base::Lobe));
        implies(mk(Base::Lobe), mk(Base::Fair));
    }
}

/// The largest product graph over the suite has 23 states (our reading notes on Sorensen et al., OOPSLA'21,
/// §5.6, termination folded into the last step).
#[test]
fn largest_product_graph() {
    let Some(root) = util::progress_corpus("largest_product_graph") else {
        return;
    };
    let tests = gpumc::progress::corpus::load(&[root]).unwrap();
    let max = tests
        .iter()
        .flat_map(|tf| Base::ALL.map(|b| explore(&tf.test, b).unwrap().num_states()))
        .max();
    assert_eq!(max, Some(23));
}

/// Example from the prose (Fig. 3): one-way producer-consumer with
/// increasing id passes HSA and fails OBE and unfair.
#[test]
fn prodcons_increasing_id() {
    let prodcons_inc = Test {
        threads: vec![
            vec![Axb::store(0, 0, 1)],
            vec![Axb {
                loc: 0,
                check: 0,
                exch: None,
                target: 0,
            }],
        ],
    };
    let v = decide_all(&prodcons_inc).unwrap();
    assert!(v.pass(Model::weak(Base::Hsa)));
    assert!(!v.pass(Model::weak(Base::Obe)) && !v.pass(Model::strong(Base::Obe)));
    assert!(!v.pass(Model::UNFAIR));
}

fn arb_test() -> impl Strategy<Value = Test> {
    let thread = (1usize..=3).prop_flat_map(|len| {
        prop::collection::vec(
            (0u8..2, 0u8..3, prop::option::of(0u8..3), 0..=len as u8).prop_map(
                |(loc, check, exch, target)| Axb {
                    loc,
                    check,
                    exch,
                    target,
                },
            ),
            len,
        )
    });
    prop::collection::vec(thread, 1..=3).prop_map(|threads| Test { threads })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The hierarchy holds on arbitrary small programs (not only on the
    /// synthesized space), and the single-model and all-model entry points agree.
    #[test]
    fn hierarchy_on_random_programs(t in arb_test()) {
        let v = decide_all(&t).unwrap();
        check_hierarchy(&v, &format!("{t:?}"));
        for m in Model::ALL {
            prop_assert_eq!(decide(&t, m).unwrap(), v.get(m));
        }
    }
}
