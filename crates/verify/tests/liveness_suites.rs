//! Liveness: the Dat3M liveness CSVs of `../shared/corpus` (active and
//! `; `-disabled rows), run through the library exactly as `gpumc suite`
//! runs them, plus unit tests of progress specs, fairness decisions and
//! small inline programs.
//!
//! The corpus tests are skipped (with a message) when the corpus is
//! absent. A row listed in docs/KNOWN-DIFFERENCES.md is reported but does
//! not fail the test; a listed row that now agrees fails it, so the list
//! stays true.

use gpumc_core::cat::Model;
use gpumc_verify::driver::{self, Config, ModelCache, Property};
use gpumc_verify::engine::liveness::{self, Hierarchy, ProgressModel, ProgressSpec};
use gpumc_verify::engine::safety::Verdict;
use gpumc_verify::engine::Options;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

mod common;
use common::{corpus, run_csv};

fn run_suite(csv_name: &str, model: &str, progress: &str, bound: u32, disabled: bool) {
    let cfg = Config {
        model: Some(model.to_string()),
        bound,
        property: Property::Liveness,
        ignore_filter: false,
        progress: ProgressSpec::parse(progress).expect("progress"),
        engine: Default::default(),
        limits: Default::default(),
        ..Config::default()
    };
    run_csv(csv_name, &cfg, disabled);
}

#[test]
fn ptx_v6_0_liveness() {
    run_suite(
        "PTXv6_0-Liveness-expected.csv",
        "ptx-v6.0",
        "fair",
        1,
        false,
    );
}

#[test]
fn ptx_v7_5_liveness() {
    run_suite(
        "PTXv7_5-Liveness-expected.csv",
        "ptx-v7.5",
        "fair",
        1,
        false,
    );
}

const VULKAN: [(&str, &str); 5] = [
    ("Fair", "fair"),
    ("HSA", "hsa"),
    ("OBE", "obe"),
    ("HSA_OBE", "hsa_obe"),
    ("LOBE", "lobe"),
];

#[test]
fn vulkan_liveness_active_rows() {
    for (f, m) in VULKAN {
        run_suite(
            &format!("VULKAN-Liveness-{f}-expected.csv"),
            "vulkan",
            m,
            4,
            false,
        );
    }
}

/// The rows Dat3M comments out (spinloops with exchanges): expected
/// values are the Sorensen et al., OOPSLA'21 oracle's.
#[test]
fn vulkan_liveness_disabled_rows() {
    for (f, m) in VULKAN {
        run_suite(
            &format!("VULKAN-Liveness-{f}-expected.csv"),
            "vulkan",
            m,
            4,
            true,
        );
    }
}

/// Sorensen et al., OOPSLA'21 §5.5: no CADP test is guaranteed to terminate without
/// fairness (every one has a reachable cycle).
#[test]
fn vulkan_cadp_all_fail_when_unfair() {
    let Some(root) = corpus() else { return };
    let files = driver::expand_paths(&[root.join("litmus/VULKAN/CADP")]).expect("cadp");
    assert_eq!(files.len(), 483);
    let cfg = Config {
        model: Some("vulkan".into()),
        bound: 4,
        property: Property::Liveness,
        ignore_filter: false,
        progress: ProgressSpec::parse("unfair").unwrap(),
        engine: Default::default(),
        limits: Default::default(),
        ..Config::default()
    };
    let cache = ModelCache::default();
    let bad: Vec<String> = files
        .par_iter()
        .map(|f| driver::check_file(f, &cfg, &cache))
        .filter(|r| r.verdict() != Some(Verdict::Fail))
        .map(|r| format!("{} {}", r.file, r.verdict))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

// ---------------------------------------------------------------------
// Progress specs.

#[test]
fn progress_spec_parses_uniform_models() {
    for (s, m) in [
        ("fair", ProgressModel::Fair),
        ("FAIR", ProgressModel::Fair),
        ("hsa", ProgressModel::Hsa),
        ("obe", ProgressModel::Obe),
        ("hsa_obe", ProgressModel::HsaObe),
        ("HSA-OBE", ProgressModel::HsaObe),
        ("lobe", ProgressModel::Lobe),
        ("unfair", ProgressModel::Unfair),
        (" Obe ", ProgressModel::Obe),
    ] {
        let spec = ProgressSpec::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(spec.default, m, "{s}");
        assert!(spec.levels.is_empty());
    }
}

#[test]
fn progress_spec_parses_per_level_models() {
    let s = ProgressSpec::parse("default=FAIR;QF=OBE;SG=UNFAIR").unwrap();
    assert_eq!(s.default, ProgressModel::Fair);
    assert_eq!(
        s.levels,
        vec![
            ("QF".to_string(), ProgressModel::Obe),
            ("SG".to_string(), ProgressModel::Unfair)
        ]
    );
    assert_eq!(
        s.chain(gpumc_core::ir::Arch::Vulkan),
        vec![
            ProgressModel::Fair,   // DV: queue families
            ProgressModel::Obe,    // QF: workgroups
            ProgressModel::Fair,   // WG: subgroups
            ProgressModel::Unfair, // SG: threads
        ]
    );
    // No default: FAIR. Lower-case names and a trailing `;`.
    let s = ProgressSpec::parse("qf=hsa;").unwrap();
    assert_eq!(s.default, ProgressModel::Fair);
    assert_eq!(s.levels, vec![("QF".to_string(), ProgressModel::Hsa)]);
    let s = ProgressSpec::parse("default=LOBE;GPU=HSA").unwrap();
    assert_eq!(
        s.chain(gpumc_core::ir::Arch::Ptx),
        vec![ProgressModel::Lobe, ProgressModel::Hsa, ProgressModel::Lobe]
    );
    assert!(s.check_arch(gpumc_core::ir::Arch::Ptx).is_ok());
    assert!(s.check_arch(gpumc_core::ir::Arch::Vulkan).is_err());
}

#[test]
fn progress_spec_rejects_bad_strings() {
    for bad in [
        "",
        "   ",
        "bogus",
        "fair;obe",
        "default=FAIR;XX=OBE",
        "QF=OBE;QF=HSA",
        "default=fair;default=obe",
        "default=FAIR;;SG=OBE",
        ";",
        "QF=",
        "=OBE",
        "QF=nope",
        "CTA=OBE;QF=HSA",
        "QF:OBE",
    ] {
        let r = ProgressSpec::parse(bad);
        assert!(r.is_err(), "`{bad}` should be rejected, got {r:?}");
        assert!(!r.unwrap_err().is_empty());
    }
}

// ---------------------------------------------------------------------
// Fairness decisions (Sorensen et al., OOPSLA'21 Table 1 and §4.2).

fn fair(m: ProgressModel, stepped: &[bool], terminated: &[bool]) -> Vec<usize> {
    m.fair(stepped, terminated)
        .iter()
        .enumerate()
        .filter(|(_, f)| **f)
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn fairness_per_model() {
    use ProgressModel::*;
    let none = [false; 4];
    // Nothing has stepped or terminated.
    assert_eq!(fair(Fair, &none, &none), vec![0, 1, 2, 3]);
    assert_eq!(fair(Hsa, &none, &none), vec![0]);
    assert_eq!(fair(Obe, &none, &none), Vec::<usize>::new());
    assert_eq!(fair(HsaObe, &none, &none), vec![0]);
    assert_eq!(fair(Lobe, &none, &none), Vec::<usize>::new());
    assert_eq!(fair(Unfair, &none, &none), Vec::<usize>::new());
    // Thread 2 has stepped; thread 0 has terminated.
    let st = [true, false, true, false];
    let term = [true, false, false, false];
    assert_eq!(fair(Fair, &st, &term), vec![1, 2, 3]);
    assert_eq!(fair(Hsa, &st, &term), vec![1]);
    assert_eq!(fair(Obe, &st, &term), vec![2]);
    assert_eq!(fair(HsaObe, &st, &term), vec![1, 2]);
    assert_eq!(fair(Lobe, &st, &term), vec![1, 2]);
    assert_eq!(fair(Unfair, &st, &term), Vec::<usize>::new());
    // Everything terminated: nobody is owed anything.
    let all = [true; 4];
    for m in ProgressModel::ALL {
        assert!(fair(m, &all, &all).is_empty(), "{m}");
    }
}

/// Every thread the weaker model guarantees, the stronger one guarantees
/// too (Sorensen et al., OOPSLA'21 §4.3: HSA, OBE ⊆ HSA_OBE ⊆ LOBE ⊆ FAIR), on every
/// combination of stepped/terminated flags of 4 threads (a thread that
/// terminated has stepped).
#[test]
fn fairness_models_are_ordered() {
    use ProgressModel::*;
    let pairs = [
        (Unfair, Hsa),
        (Unfair, Obe),
        (Hsa, HsaObe),
        (Obe, HsaObe),
        (HsaObe, Lobe),
        (Lobe, Fair),
    ];
    for bits in 0..256u32 {
        let term: Vec<bool> = (0..4).map(|i| bits >> i & 1 == 1).collect();
        let st: Vec<bool> = (0..4)
            .map(|i| bits >> (i + 4) & 1 == 1 || term[i])
            .collect();
        for (weak, strong) in pairs {
            let w = weak.fair(&st, &term);
            let s = strong.fair(&st, &term);
            // When LOBE guarantees nobody (no live thread at or below a
            // stepped one), the next step makes every lower thread fair:
            // the order holds on verdicts (Sorensen et al., OOPSLA'21 §4.3), pointwise
            // only when LOBE guarantees someone.
            if strong == Lobe && !s.contains(&true) {
                continue;
            }
            for i in 0..4 {
                assert!(!w[i] || s[i], "{weak} ⊄ {strong} at {st:?} {term:?}");
            }
        }
    }
}

fn program(src: &str) -> gpumc_core::ir::Program {
    gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).expect("test parses")
}

/// Four threads: P0 (sg 0, wg 0), P1 (sg 1, wg 0), P2 and P3 (sg 0, wg 1).
const HIER: &str = "VULKAN hier\n{ x=0; }\n P0@sg 0,wg 0, qf 0 | P1@sg 1,wg 0, qf 0 | P2@sg 0,wg 1, qf 0 | P3@sg 0,wg 1, qf 0 ;\n ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, x ;\nexists (0 == 0)\n";

fn fair_set(spec: &str, stepped: u64, terminated: u64) -> u64 {
    let p = program(HIER);
    Hierarchy::new(&p, &ProgressSpec::parse(spec).unwrap()).fair_set(stepped, terminated)
}

#[test]
fn fairness_per_scope_level() {
    // Uniform FAIR: every live thread.
    assert_eq!(fair_set("fair", 0, 0), 0b1111);
    assert_eq!(fair_set("fair", 0b1111, 0b0101), 0b1010);
    // Workgroups under HSA: the lowest live workgroup (wg 0) only, until
    // both its threads terminate.
    assert_eq!(fair_set("QF=HSA", 0, 0), 0b0011);
    assert_eq!(fair_set("QF=HSA", 0b0001, 0b0001), 0b0010);
    assert_eq!(fair_set("QF=HSA", 0b0011, 0b0011), 0b1100);
    // Workgroups under OBE: a workgroup is fair once one of its threads
    // has stepped.
    assert_eq!(fair_set("QF=OBE", 0, 0), 0);
    assert_eq!(fair_set("QF=OBE", 0b0100, 0), 0b1100);
    // Threads of a subgroup under HSA: P2 before P3; P0 and P1 are alone
    // in their subgroups.
    assert_eq!(fair_set("SG=HSA", 0, 0), 0b0111);
    assert_eq!(fair_set("SG=HSA", 0b0100, 0b0100), 0b1011);
    // Subgroups of a workgroup under LOBE: sg 1 stepping makes sg 0 fair.
    // (wg 1 has one subgroup, which has not stepped: unfair.)
    assert_eq!(fair_set("WG=LOBE", 0b0010, 0), 0b0011);
    assert_eq!(fair_set("WG=LOBE", 0b0001, 0) & 0b0011, 0b0001);
    assert_eq!(fair_set("WG=LOBE", 0b0010, 0) & 0b0011, 0b0011);
    // Unfair anywhere above a thread starves it.
    assert_eq!(fair_set("default=FAIR;DV=UNFAIR", 0b1111, 0), 0);
    // Uniform OBE: only threads that stepped (every level has one group
    // that stepped as soon as one of its threads did).
    assert_eq!(fair_set("obe", 0b0110, 0), 0b0110);
}

// ---------------------------------------------------------------------
// Small programs under small inline models.

fn model(src: &str) -> Model {
    let none = |_: &str, _: &Path| -> Option<(PathBuf, String)> { None };
    let base = |n: &str| gpumc_verify::engine::exec::base_kind(n, None);
    Model::parse(src, Path::new("test.cat"), &none, &base).expect("model parses")
}

// Written for total coherence; the tests are PTX (partial by default).
const SC: &str = "SC\n// gpumc: total-co\nlet fr = rf^-1 ; co\nacyclic po | rf | co | fr as sc\n";
const COHERENCE_ONLY: &str =
    "coh\n// gpumc: total-co\nlet fr = rf^-1 ; co\nacyclic (po & loc) | rf | co | fr as coherence\n";

fn live(src: &str, cat: &str, progress: &str, bound: u32) -> liveness::LivenessResult {
    live_in(src, &model(cat), progress, bound)
}

/// Liveness of `src` on both engines, which must agree; the explicit
/// engine's result.
fn live_in(src: &str, m: &Model, progress: &str, bound: u32) -> liveness::LivenessResult {
    let p = program(src);
    let opts = Options {
        bound,
        liveness: true,
        ..Options::default()
    };
    let spec = ProgressSpec::parse(progress).unwrap();
    let explicit = liveness::check(&p, m, &opts, &spec, false).expect("check runs");
    // The symbolic engine finds the same verdict (its own violation may
    // be another one).
    let symbolic = liveness::check(&p, m, &opts, &spec, true).expect("symbolic check runs");
    assert_eq!(
        explicit.verdict, symbolic.verdict,
        "explicit vs symbolic under {progress}: {:?} / {:?}",
        explicit.note, symbolic.note
    );
    explicit
}

/// Message passing into a spin: P1 waits for y, then spins forever
/// locally if it sees the stale x. Only weak executions get stuck.
const MP_SPIN: &str = "PTX mp-spin\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.weak x, 1 | L1: ;\n st.weak y, 1 | ld.weak r0, y ;\n | beq r0, 0, L1 ;\n | ld.weak r1, x ;\n | L2: ;\n | beq r1, 0, L2 ;\nexists (0 == 0)\n";

#[test]
fn weak_execution_gets_stuck() {
    let r = live(MP_SPIN, SC, "fair", 1);
    assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.note);
    let r = live(MP_SPIN, COHERENCE_ONLY, "fair", 1);
    assert_eq!(r.verdict, Verdict::Fail);
    let v = r.violation.expect("a violation");
    assert_eq!(v.method, "executions");
    assert_eq!(v.threads[0].state, "terminated");
    assert_eq!(v.threads[1].state, "spinning");
    assert!(r.witness.is_some());
}

/// One-way producer/consumer with increasing id (Sorensen et al., OOPSLA'21 Fig. 3): the
/// consumer P1 waits for the producer P0.
const PROD_CONS: &str = "PTX pc\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | L: ;\n | ld.relaxed.gpu r0, x ;\n | beq r0, 0, L ;\nexists (0 == 0)\n";

#[test]
fn producer_consumer_under_progress_models() {
    // Sorensen et al., OOPSLA'21 §2.4: fails under unfair and OBE (P0 need never start),
    // passes under HSA (P0 has the lowest id) and fair models.
    for (m, v) in [
        ("fair", Verdict::Pass),
        ("hsa", Verdict::Pass),
        ("lobe", Verdict::Pass),
        ("hsa_obe", Verdict::Pass),
        ("obe", Verdict::Fail),
        ("unfair", Verdict::Fail),
    ] {
        let r = live(PROD_CONS, SC, m, 1);
        assert_eq!(r.verdict, v, "{m}");
        if v == Verdict::Fail {
            let t = &r.violation.unwrap().threads;
            assert_eq!(t[0].state, "paused");
            assert!(!t[0].stepped);
            assert_eq!(t[1].state, "spinning");
        }
    }
    // The same with decreasing id: P1 produces, P0 consumes; HSA fails.
    let swapped = "PTX pc2\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L: | st.relaxed.gpu x, 1 ;\n ld.relaxed.gpu r0, x | ;\n beq r0, 0, L | ;\nexists (0 == 0)\n";
    assert_eq!(live(swapped, SC, "hsa", 1).verdict, Verdict::Fail);
    assert_eq!(live(swapped, SC, "lobe", 1).verdict, Verdict::Fail);
    assert_eq!(live(swapped, SC, "fair", 1).verdict, Verdict::Pass);
}

/// The Sorensen et al., OOPSLA'21 mutex (Fig. 2): a spin-lock acquire loop with an exchange.
const MUTEX: &str = "PTX mutex\n{ m=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L0: | L1: ;\n atom.relaxed.gpu.exch r0, m, 1 | atom.relaxed.gpu.exch r0, m, 1 ;\n beq r0, 1, L0 | beq r0, 1, L1 ;\n st.relaxed.gpu m, 0 | st.relaxed.gpu m, 0 ;\nexists (0 == 0)\n";

#[test]
fn mutex_with_exchange_loops() {
    // Sorensen et al., OOPSLA'21: passes under fair, OBE, HSA_OBE, LOBE; fails under HSA
    // and unfair. One location, coherent accesses: under our PTX model the
    // interleavings are all the executions.
    let ptx = gpumc_core::models::load("ptx-v7.5").unwrap();
    for (m, v) in [
        ("fair", Verdict::Pass),
        ("obe", Verdict::Pass),
        ("hsa_obe", Verdict::Pass),
        ("lobe", Verdict::Pass),
        ("hsa", Verdict::Fail),
        ("unfair", Verdict::Fail),
    ] {
        let r = live_in(MUTEX, &ptx, m, 1);
        assert_eq!(r.verdict, v, "{m}: {:?}", r.note);
    }
    // Under a model gpumc knows nothing about, a PASS is not established.
    assert_eq!(live(MUTEX, SC, "fair", 1).verdict, Verdict::Unknown);
    let r = live(MUTEX, SC, "hsa", 1);
    let v = r.violation.unwrap();
    assert_eq!(v.method, "interleaving");
    assert!(v.cycle_start.is_some());
    assert!(!v.trace.is_empty());
}

/// Dining philosophers (Sorensen et al., OOPSLA'21 2t_2i #0): a livelock of two exchange
/// loops.
const LIVELOCK: &str = "PTX dp\n{ m=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L0: | L1: ;\n atom.relaxed.gpu.exch r0, m, 0 | atom.relaxed.gpu.exch r1, m, 1 ;\n beq r0, 1, L0 | beq r1, 0, L1 ;\nexists (0 == 0)\n";

#[test]
fn livelock_is_found() {
    let r = live(LIVELOCK, SC, "fair", 1);
    assert_eq!(r.verdict, Verdict::Fail);
    let v = r.violation.unwrap();
    assert!(v.threads.iter().all(|t| t.state == "looping"));
}

/// Lock then flag (Dat3M's 2t_4i #84, Vulkan): an exchange loop and a
/// flag over two locations. Termination is proved for every memory model.
const LOCK_FLAG: &str = "PTX lf\n{ m=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n L0: | L1: ;\n atom.relaxed.gpu.exch r0, m, 1 | ld.relaxed.gpu r1, f ;\n beq r0, 0, L0 | beq r1, 0, L1 ;\n st.relaxed.gpu f, 1 | atom.relaxed.gpu.exch r2, m, 0 ;\n | beq r2, 1, L1 ;\nexists (0 == 0)\n";

#[test]
fn termination_proof_for_every_memory_model() {
    for cat in [SC, COHERENCE_ONLY] {
        let r = live(LOCK_FLAG, cat, "fair", 1);
        assert_eq!(r.verdict, Verdict::Pass, "{:?}", r.note);
        assert!(r.note.unwrap().contains("every memory model"));
    }
}

/// A stale read leads into a silent exchange loop: non-terminating in weak
/// executions only. The interleavings have no fair cycle, and neither
/// termination argument applies: UNKNOWN.
const WEAK_LOOP: &str = "PTX wl\n{ x=0; y=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, y ;\n st.relaxed.gpu y, 1 | bne r0, 1, E ;\n | ld.relaxed.gpu r1, x ;\n | bne r1, 0, E ;\n | L: ;\n | atom.relaxed.gpu.exch r2, y, 1 ;\n | beq r2, 1, L ;\n | E: ;\nexists (0 == 0)\n";

#[test]
fn weak_only_livelock_is_unknown() {
    let r = live(WEAK_LOOP, COHERENCE_ONLY, "fair", 1);
    assert_eq!(r.verdict, Verdict::Unknown);
    assert!(r.note.unwrap().contains("weak executions"));
}

/// A spinloop that counts: the register carried across iterations makes
/// the first-iteration analysis incomplete.
const COUNTER: &str = "PTX cnt\n{ x=0; }\n P0@cta 0,gpu 0 ;\n mov r1, 0 ;\n L: ;\n ld.relaxed.gpu r0, x ;\n add r1, r1, 1 ;\n bne r1, 3, L ;\nexists (0 == 0)\n";

#[test]
fn carried_registers_make_the_verdict_unknown() {
    let r = live(COUNTER, SC, "fair", 1);
    assert_ne!(r.verdict, Verdict::Fail);
}

/// A thread that loops forever without memory accesses.
const LOCAL_LOOP: &str = "PTX ll\n{ x=0; }\n P0@cta 0,gpu 0 ;\n L: ;\n goto L ;\nexists (0 == 0)\n";

#[test]
fn local_divergence_is_a_violation() {
    let r = live(LOCAL_LOOP, SC, "fair", 1);
    assert_eq!(r.verdict, Verdict::Fail);
}

#[test]
fn progress_level_of_the_other_architecture_is_an_error() {
    let p = program(PROD_CONS);
    let opts = Options {
        liveness: true,
        ..Options::default()
    };
    let spec = ProgressSpec::parse("QF=OBE").unwrap();
    let e = liveness::check(&p, &model(SC), &opts, &spec, false).unwrap_err();
    assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Usage);
}

/// The per-thread states of a result's violation.
fn states(r: liveness::LivenessResult) -> Vec<String> {
    let v = r.violation.expect("a violation");
    v.threads.into_iter().map(|t| t.state).collect()
}

/// A deadlock between a barrier and a spinloop: P0 waits at the barrier
/// for P1, which spins until P0 writes x after the barrier.
const BARRIER_SPIN: &str = "PTX bs\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n bar.cta.sync 0, 0, 2 | L: ;\n st.relaxed.gpu x, 1 | ld.relaxed.gpu r0, x ;\n | beq r0, 0, L ;\n | bar.cta.sync 0, 0, 2 ;\nexists (0 == 0)\n";

#[test]
fn barrier_against_spinloop_deadlocks() {
    let r = live(BARRIER_SPIN, SC, "fair", 1);
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(states(r), ["blocked", "spinning"]);
}

/// A barrier with quorum 2 in CTA 0, and P2 (CTA 1) waiting for what P0
/// writes after it. Under the unfair model P0 need never be scheduled
/// while P2 spins (the scheduler always runs *some* thread): P1 waits at
/// the barrier forever. Fair scheduling runs P0.
const BARRIER_STARVED: &str = "PTX bst\n{ y=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 1,gpu 0 ;\n bar.cta.sync 0, 0, 2 | bar.cta.sync 0, 0, 2 | L: ;\n st.relaxed.gpu y, 1 | | ld.relaxed.gpu r0, y ;\n | | beq r0, 0, L ;\nexists (0 == 0)\n";

#[test]
fn a_starved_thread_blocks_a_barrier() {
    assert_eq!(live(BARRIER_STARVED, SC, "fair", 1).verdict, Verdict::Pass);
    // OBE: CTA 0 need never start at all.
    assert_eq!(live(BARRIER_STARVED, SC, "obe", 1).verdict, Verdict::Fail);
    let r = live(BARRIER_STARVED, SC, "unfair", 1);
    assert_eq!(r.verdict, Verdict::Fail);
    let mut st = states(r);
    // P0 or P1 is the one starved.
    st[..2].sort();
    assert_eq!(st, ["blocked", "paused", "spinning"]);
}

/// Irreducible control flow (Dat3M's CADP 2_threads_4_instructions #132):
/// a loop whose body is re-entered by a jump from outside it. The
/// symbolic unrolling keeps such a loop's count until its header is
/// entered afresh, as the explicit one does.
const IRREDUCIBLE: &str = "PTX irr\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n A: | st.relaxed.gpu x, 1 ;\n ld.relaxed.gpu r0, x | ;\n bne r0, 0, B | ;\n goto C | ;\n B: | ;\n ld.relaxed.gpu r1, x | ;\n bne r1, 0, C | ;\n goto A | ;\n C: | ;\n ld.relaxed.gpu r2, x | ;\n bne r2, 0, D | ;\n goto B | ;\n D: | ;\nexists (0 == 0)\n";

#[test]
fn irreducible_loops_on_both_engines() {
    for m in ["fair", "hsa", "obe", "unfair"] {
        let r = live(IRREDUCIBLE, SC, m, 4);
        assert_ne!(r.verdict, Verdict::Unknown, "{m}: {:?}", r.note);
    }
}

/// A spin-lock of three interchangeable threads (the mutex above), placed
/// in one CTA (the threads are exchanged: the CTA level schedules them)
/// or in three CTAs of one GPU (the CTAs are exchanged: the GPU level
/// schedules them). Symmetry is used only where the level's progress model
/// ignores ids; under every model and mix, the symbolic engine with and
/// without it and the explicit engine agree.
#[test]
fn symmetric_threads_under_every_progress_model() {
    let ptx = gpumc_core::models::load("ptx-v7.5").unwrap();
    // Each column its own label name, as herd-style tests write them.
    let thread =
        " L{i}: ;\n atom.relaxed.gpu.exch r0, m, 1 ;\n beq r0, 1, L{i} ;\n st.relaxed.gpu m, 0 ;\n";
    for places in [
        ["cta 0,gpu 0"; 3],
        ["cta 0,gpu 0", "cta 1,gpu 0", "cta 2,gpu 0"],
    ] {
        let cols: Vec<Vec<String>> = (0..3)
            .map(|i| {
                std::iter::once(format!("P{i}@{}", places[i]))
                    .chain(
                        thread
                            .replace("{i}", &i.to_string())
                            .lines()
                            .map(|l| l.trim().trim_end_matches(';').trim().to_string()),
                    )
                    .filter(|l| !l.is_empty())
                    .collect()
            })
            .collect();
        let mut src = "PTX mutex3\n{ m=0; }\n".to_string();
        for r in 0..cols[0].len() {
            let row: Vec<&str> = cols.iter().map(|c| c[r].as_str()).collect();
            src.push_str(&format!(" {} ;\n", row.join(" | ")));
        }
        src.push_str("exists (0 == 0)\n");
        let p = program(&src);
        let groups = gpumc_verify::engine::symmetry::groups(&p, &[]);
        assert_eq!(groups.len(), 1, "{places:?}: {groups:?}");
        assert_eq!(groups[0].units.len(), 3);
        for progress in [
            "fair",
            "obe",
            "hsa",
            "hsa_obe",
            "lobe",
            "unfair",
            "default=fair;CTA=hsa",
            "default=hsa;CTA=obe",
            "default=obe;GPU=lobe",
        ] {
            let r = live_in(&src, &ptx, progress, 1);
            let spec = ProgressSpec::parse(progress).unwrap();
            let plain = Options {
                bound: 1,
                liveness: true,
                symmetry: false,
                ..Options::default()
            };
            let without = liveness::check(&p, &ptx, &plain, &spec, true).expect("runs");
            assert_eq!(r.verdict, without.verdict, "{progress} at {places:?}");
        }
    }
}
