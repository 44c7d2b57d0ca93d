//! Our embedded `scoped-rc11` against a model of RC11 in herd7's dialect
//! (`tests/herd/rc11-herd.cat`: herd's C event sets `A`, `RLX`, … `I`,
//! `undefined_unless` for races, read from a file and so with herd7's
//! total `co`) on generated C tests whose threads all share the system
//! scope, where the scoped model is RC11 (Lustig et al., ASPLOS'19,
//! sec. 4.1). Both must give the same verdict, the same final states, the
//! same execution counts, and find a race (ours: the `race` flag; the herd
//! model: its failed `undefined_unless`) on the same tests.
//!
//! `GPUMC_GEN_TESTS=N` (default 2000) and `GPUMC_GEN_SEED=S` choose how
//! many tests and which.

use gpumc::driver::{self, Config, Engine, FileReport, ModelCache};
use std::path::Path;

use gpumc::gen::random::Rng;

/// A number below `n` (a `usize`, as the generator counts).
fn below(r: &mut Rng, n: usize) -> usize {
    r.below(n.max(1) as u64) as usize
}

const ATOMICS: [&str; 2] = ["x", "y"];

/// One statement of thread `t`; `regs` counts the registers it defined.
fn statement(r: &mut Rng, regs: &mut usize) -> String {
    let loc = r.pick(&ATOMICS);
    let k = below(r, 100);
    let mut reg = || {
        *regs += 1;
        format!("r{}", *regs - 1)
    };
    if k < 24 {
        let o = r.pick(&["relaxed", "release", "seq_cst"]);
        format!(
            "atomic_store_explicit({loc}, {}, memory_order_{o});",
            1 + below(r, 2)
        )
    } else if k < 48 {
        let o = r.pick(&["relaxed", "acquire", "seq_cst"]);
        format!(
            "int {} = atomic_load_explicit({loc}, memory_order_{o});",
            reg()
        )
    } else if k < 58 {
        let o = r.pick(&["relaxed", "acquire", "release", "acq_rel", "seq_cst"]);
        format!(
            "int {} = atomic_fetch_add_explicit({loc}, 1, memory_order_{o});",
            reg()
        )
    } else if k < 64 {
        let o = r.pick(&["acquire", "release", "acq_rel", "seq_cst"]);
        format!("atomic_thread_fence(memory_order_{o});")
    } else if k < 72 {
        // A compare-exchange with any pair of orders C allows (the failure
        // order: not release or acq_rel); the expected local gets the
        // value read when it fails.
        let s = r.pick(&["relaxed", "acquire", "release", "acq_rel", "seq_cst"]);
        let f = r.pick(&["relaxed", "acquire", "seq_cst"]);
        let (e, ok) = (reg(), reg());
        format!(
            "int {e} = {}; int {ok} = atomic_compare_exchange_strong_explicit({loc}, &{e}, {}, memory_order_{s}, memory_order_{f});",
            below(r, 2),
            1 + below(r, 2)
        )
    } else if k < 84 {
        // The plain location: races unless ordered.
        format!("*z = {};", 1 + below(r, 2))
    } else {
        format!("int {} = *z;", reg())
    }
}

/// A C test of 2 or 3 threads of 1 to 3 statements, and a condition on
/// some of the registers read.
fn test(r: &mut Rng, n: usize) -> String {
    let threads = 2 + below(r, 2);
    let mut out = format!("C gen{n}\n{{ }}\n");
    let mut reads: Vec<(usize, usize)> = Vec::new();
    for t in 0..threads {
        let mut regs = 0;
        out.push_str(&format!("P{t} (atomic_int* x, atomic_int* y, int* z) {{\n"));
        let most = if threads == 3 { 2 } else { 3 };
        for _ in 0..1 + below(r, most) {
            out.push_str(&format!("  {}\n", statement(r, &mut regs)));
        }
        out.push_str("}\n");
        reads.extend((0..regs).map(|k| (t, k)));
    }
    let mut terms: Vec<String> = Vec::new();
    for &(t, k) in &reads {
        if below(r, 3) > 0 {
            terms.push(format!("{t}:r{k}={}", below(r, 3)));
        }
    }
    if terms.is_empty() {
        terms.push(format!("z={}", below(r, 3)));
    }
    out.push_str(&format!("exists ({})\n", terms.join(" /\\ ")));
    out
}

fn check(src: &str, model: &str, cache: &ModelCache) -> FileReport {
    check_with(src, model, Engine::Explicit, cache)
}

fn check_with(src: &str, model: &str, engine: Engine, cache: &ModelCache) -> FileReport {
    let cfg = Config {
        model: Some(model.to_string()),
        engine,
        flags: true,
        ..Config::default()
    };
    driver::check_source(src, Path::new("gen.litmus"), &cfg, cache)
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn herd_dialect_rc11_agrees_with_scoped_rc11_on_generated_c_tests() {
    let n = env("GPUMC_GEN_TESTS", 2000) as usize;
    let mut r = Rng(env("GPUMC_GEN_SEED", 0x7263_3131));
    let herd_model = gpumc_testutil::repo_root()
        .join("tests/herd/rc11-herd.cat")
        .display()
        .to_string();
    let cache = ModelCache::default();
    let (mut racy, mut allowed, mut skipped, mut differ) = (0, 0, 0, Vec::new());
    for k in 0..n {
        let src = test(&mut r, k);
        let ours = check(&src, "scoped-rc11", &cache);
        let herd = check(&src, &herd_model, &cache);
        // Too many paths for the explicit engine: both must say so.
        let too_large = |f: &FileReport| {
            f.verdict == "ERROR"
                && f.message
                    .as_deref()
                    .is_some_and(|m| m.contains("too large for the explicit engine"))
        };
        if too_large(&ours) || too_large(&herd) {
            assert!(too_large(&ours) && too_large(&herd), "{src}");
            skipped += 1;
            continue;
        }
        assert!(ours.verdict != "ERROR", "{src}\n{:?}", ours.message);
        assert!(herd.verdict != "ERROR", "{src}\n{:?}", herd.message);
        assert_eq!(
            herd.co_note.as_deref(),
            Some("herd7's, for a model given as a file")
        );
        let ours_racy = !ours.flags.is_empty();
        let herd_racy = !herd.undefined_unless.is_empty();
        racy += usize::from(ours_racy);
        allowed += usize::from(ours.verdict == "PASS");
        let same = ours.verdict == herd.verdict
            && ours.states == herd.states
            && (ours.positive, ours.negative) == (herd.positive, herd.negative)
            && ours_racy == herd_racy;
        if !same {
            differ.push(format!(
                "{src}ours: {} {:?} +{:?} -{:?} racy {ours_racy}\nherd: {} {:?} +{:?} -{:?} racy {herd_racy}\n",
                ours.verdict,
                ours.states,
                ours.positive,
                ours.negative,
                herd.verdict,
                herd.states,
                herd.positive,
                herd.negative
            ));
        }
    }
    eprintln!(
        "{n} generated C tests ({skipped} too large for the explicit engine): {allowed} with the condition reachable, {racy} racy; {} differ",
        differ.len()
    );
    assert!(skipped < n / 10, "{skipped} of {n} skipped");
    // The generator must reach both kinds, or the comparison says little.
    assert!(
        racy > n / 10 && racy < n * 9 / 10 && allowed > n / 10,
        "{racy} racy, {allowed} allowed of {n}"
    );
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ[..differ.len().min(3)].join("\n")
    );
}

/// The same generated tests (compare-exchanges with every pair of orders
/// included: a failed one reads with its failure order) on the explicit
/// and the symbolic engine under `scoped-rc11`: same verdict and final
/// states. `GPUMC_GEN_TESTS` as above (here a quarter of it).
#[test]
fn both_engines_agree_on_generated_c_tests_with_compare_exchanges() {
    let n = env("GPUMC_GEN_TESTS", 2000) as usize / 4;
    let mut r = Rng(env("GPUMC_GEN_SEED", 0x7263_3131) ^ 0xca5);
    let cache = ModelCache::default();
    let (mut cas, mut differ) = (0, Vec::new());
    for k in 0..n {
        let src = test(&mut r, k);
        cas += usize::from(src.contains("compare_exchange"));
        let explicit = check_with(&src, "scoped-rc11", Engine::Explicit, &cache);
        if explicit.verdict == "ERROR" {
            continue;
        }
        let symbolic = check_with(&src, "scoped-rc11", Engine::Symbolic, &cache);
        if (explicit.verdict.as_str(), &explicit.states)
            != (symbolic.verdict.as_str(), &symbolic.states)
        {
            differ.push(format!(
                "{src}explicit: {} {:?}\nsymbolic: {} {:?} {:?}\n",
                explicit.verdict,
                explicit.states,
                symbolic.verdict,
                symbolic.states,
                symbolic.message
            ));
        }
    }
    eprintln!(
        "{n} generated C tests, {cas} with a compare-exchange; {} differ",
        differ.len()
    );
    assert!(cas > n / 4, "{cas} of {n} with a compare-exchange");
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ[..differ.len().min(3)].join("\n")
    );
}
