//! Splitting scope instances (`engine::split`, docs/SYMBOLIC.md
//! "Splitting scope instances"), tested against the explicit engine on
//! generated Vulkan tests: wherever the symbolic engine would take a
//! race-free split for a race-free program, every racing pair of the
//! program as placed must also race once split (the claim the reduction
//! rests on), and the symbolic engine's verdict with the split must equal
//! the explicit engine's without it. Also: the corpus's lock kernel at
//! twice the paper's threads is decided through the split.

mod common;

use gpumc_core::ir::Program;
use gpumc_verify::engine::races::{self, RaceResult};
use gpumc_verify::engine::safety::Verdict;
use gpumc_verify::engine::split::split_instances;
use gpumc_verify::engine::{symbolic, Options};
use std::collections::BTreeSet;
use std::path::Path;

/// A small deterministic generator (no dependency for one test).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// One instruction of thread `t` (its `k`-th), over data `x` and flag `f`.
fn instr(rng: &mut Rng, t: usize, k: usize) -> String {
    let scope = rng.pick(&["wg", "dv"]);
    let loc = rng.pick(&["x", "f"]);
    let v = t + 1;
    let r = format!("r{k}");
    match rng.below(8) {
        0 => format!("st.nonpriv.sc0 {loc}, {v}"),
        1 => format!("ld.nonpriv.sc0 {r}, {loc}"),
        2 => format!("st.atom.{scope}.sc0 {loc}, {v}"),
        3 => format!("ld.atom.{scope}.sc0 {r}, {loc}"),
        4 => format!("rmw.atom.{scope}.sc0 {r}, {loc}, {v}"),
        5 => format!("st.av.{scope}.sc0 {loc}, {v}"),
        6 => format!("ld.vis.{scope}.sc0 {r}, {loc}"),
        _ => format!("membar.{}.{scope}.semsc0", rng.pick(&["rel", "acq"])),
    }
}

/// Message passing from P0 to P1 (one workgroup) through flag `f`, P1
/// reading the data only when it sees the flag, with scopes, kinds of
/// access and availability/visibility drawn at random; P2 (another
/// workgroup) does two random things.
fn generate(seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Synchronisation mostly at device scope (workgroup-scope atomics
    // change which atomics are mutually ordered, and the model's release
    // sequences do not move one way: no split then).
    let (s1, s4) = (rng.pick(&["wg", "dv"]), rng.pick(&["wg", "dv"]));
    let (s2, s3) = (rng.pick(&["wg", "dv", "dv"]), rng.pick(&["wg", "dv", "dv"]));
    let write = [
        "st.nonpriv.sc0 x, 1".to_string(),
        format!("st.av.{s1}.sc0 x, 1"),
        format!("st.atom.{s1}.sc0 x, 1"),
    ];
    let read = [
        "ld.nonpriv.sc0 r1, x".to_string(),
        format!("ld.vis.{s4}.sc0 r1, x"),
        format!("ld.atom.{s4}.sc0 r1, x"),
    ];
    let release = [
        format!("st.atom.rel.{s2}.sc0.semsc0 f, 1"),
        format!("st.atom.rel.{s2}.sc0.semsc0.semav f, 1"),
        format!("rmw.atom.rel.{s2}.sc0.semsc0 r0, f, 1"),
    ];
    let acquire = [
        format!("ld.atom.acq.{s3}.sc0.semsc0 r0, f"),
        format!("ld.atom.acq.{s3}.sc0.semsc0.semvis r0, f"),
        format!("rmw.atom.acq.{s3}.sc0.semsc0 r0, f, 2"),
    ];
    let p0 = [
        write[rng.below(3)].clone(),
        release[rng.below(3)].clone(),
        String::new(),
        String::new(),
    ];
    let p1 = [
        acquire[rng.below(3)].clone(),
        "bne r0, 1, LC1E".to_string(),
        read[rng.below(3)].clone(),
        "LC1E:".to_string(),
    ];
    let p2 = [
        instr(&mut rng, 2, 0),
        instr(&mut rng, 2, 1),
        String::new(),
        String::new(),
    ];
    let mut s = format!("Vulkan gen{seed}\n{{\nx=0;\nf=0;\n}}\n");
    s += " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 0, wg 1, qf 0 ;\n";
    for k in 0..4 {
        s += &format!(" {} | {} | {} ;\n", p0[k], p1[k], p2[k]);
    }
    s += "exists (x == 0)\n";
    s
}

/// Generated tests.
const SEEDS: u64 = 200;

fn pairs(r: &RaceResult) -> BTreeSet<(String, String)> {
    common::race_positions(r)
}

/// Checks every generated test under `model`: where the split applies,
/// every racing pair as placed races when split, and the symbolic verdict
/// (split where worth it) is the explicit one. Returns how many splits
/// apply and how many of those race at more pairs.
fn against_explicit(model: &gpumc_core::cat::Model) -> (usize, usize) {
    let opts = Options {
        max_races: 1000,
        ..Options::default()
    };
    let flags = races::flag_axioms(model, &opts).expect("flags");
    let (mut applied, mut gained) = (0, 0);
    for seed in 0..SEEDS {
        let src = generate(seed);
        let p: Program = gpumc_frontend::litmus::parse(&src, Path::new("gen.litmus"))
            .unwrap_or_else(|e| panic!("{src}\n{e}"));
        let q = split_instances(&p).expect("two threads share a workgroup");
        let placed = races::check(&p, model, &opts).expect("explicit");
        if symbolic::split_applies(&p, &q, model, &opts, &flags).is_ok() {
            applied += 1;
            let split = races::check(&q, model, &opts).expect("explicit, split");
            let (a, b) = (pairs(&placed), pairs(&split));
            assert!(a.is_subset(&b), "{src}\nplaced {a:?}\nsplit {b:?}");
            gained += (a != b) as usize;
        }
        let (r, st) = symbolic::check_races_stats(&p, model, &opts).expect("symbolic");
        assert_eq!(st.mismatches, 0);
        assert_eq!(r.verdict, placed.verdict, "{src}");
    }
    (applied, gained)
}

#[test]
fn split_programs_race_wherever_the_placed_ones_do() {
    let model = gpumc_core::models::load("vulkan").expect("model");
    let (applied, gained) = against_explicit(&model);
    eprintln!("vulkan: {applied} of {SEEDS} splits apply; {gained} of them race at more pairs");
    // Not vacuous: the model allows many splits, and some of them add
    // races (availability and visibility within a workgroup lost).
    assert!(applied >= SEEDS as usize / 4, "{applied}");
    assert!(gained >= 4, "{gained}");
    // A model whose races are within workgroups only: a split removes
    // races, and must never apply (were it taken, the subset check above
    // would fail on the tests whose two workgroup mates conflict).
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/models/races-within-workgroups.cat"
    );
    let model = gpumc_core::models::load(path).expect("test model");
    let (applied, _) = against_explicit(&model);
    assert_eq!(applied, 0);
}

/// Threads of one code in three workgroups of two: the split puts each in
/// a workgroup of its own, where all six are interchangeable.
#[test]
fn a_lock_across_workgroups_is_decided_through_the_split() {
    let lock = "Vulkan lock\n{\nl=0;\nx=0;\n}\n";
    let mut s = lock.to_string();
    let n = 6;
    let heads: Vec<String> = (0..n)
        .map(|t| format!("P{t}@sg 0, wg {}, qf 0", t / 2))
        .collect();
    s += &format!(" {} ;\n", heads.join(" | "));
    let body = [
        "LC00:",
        "rmw.atom.acq.dv.sc0.semsc0.semvis r0, l, 1",
        "bne r0, 0, LC00",
        "ld.nonpriv.sc0 r1, x",
        "st.nonpriv.sc0 x, 1",
        "st.atom.rel.dv.sc0.semsc0.semav l, 0",
    ];
    for line in body {
        let row: Vec<String> = (0..n)
            .map(|t| line.replace("LC00", &format!("LC{t}0")))
            .collect();
        s += &format!(" {} ;\n", row.join(" | "));
    }
    s += "exists (x == 0)\n";
    let p = gpumc_frontend::litmus::parse(&s, Path::new("lock.litmus"))
        .unwrap_or_else(|e| panic!("{s}\n{e}"));
    let model = gpumc_core::models::load("vulkan").expect("model");
    let opts = Options::default();
    let flags = races::flag_axioms(&model, &opts).expect("flags");
    // Worth it (one group of six instead of three of two and one of
    // three workgroups), allowed by the model, and race-free once split.
    let q = gpumc_verify::engine::split::worth_splitting(&p).expect("more symmetry once split");
    symbolic::split_applies(&p, &q, &model, &opts, &flags).expect("the model allows it");
    let split_opts = Options {
        split_scopes: false,
        ..Options::default()
    };
    let (r, _) = symbolic::check_races_stats(&q, &model, &split_opts).expect("check");
    assert_eq!(r.verdict, Verdict::Pass, "{s}");
    // As placed: the same verdict.
    let (r, _) = symbolic::check_races_stats(&p, &model, &split_opts).expect("check");
    assert_eq!(r.verdict, Verdict::Pass);
}

/// The corpus's `caslock` at twice the paper's threads per workgroup
/// (grid 4.3, as `bench/table7.sh` makes it): the program as placed is
/// not decided within its first attempt (it takes about 30 s), the split
/// is, and the report says so.
#[test]
fn caslock_at_twice_the_grid_is_decided_through_the_split() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let path = corpus.join("spirv/vulkan/benchmarks/caslock-2.1.1.spvasm");
    let src = std::fs::read_to_string(path).expect("corpus file");
    let src = src
        .lines()
        .map(|l| {
            if l.starts_with("; @Config") {
                "; @Config: 4, 1, 3".to_string()
            } else if l.starts_with("; @Input") && l.contains("{{-1, -1}}") {
                // One output slot per invocation.
                l.replace("{{-1, -1}}", &format!("{{{{{}}}}}", ["-1"; 12].join(", ")))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let p = gpumc_frontend::spirv::parse(&src, Path::new("caslock-4.3.spvasm")).expect("parses");
    let model = gpumc_core::models::load("vulkan").expect("model");
    let (r, _) = symbolic::check_races_stats(&p, &model, &Options::default()).expect("check");
    assert_eq!(r.verdict, Verdict::Pass);
    let note = r.note.unwrap_or_default();
    assert!(note.contains(symbolic::SPLIT_NOTE), "{note}");
}

/// Which embedded models allow the split on their own (no static value
/// shown unchanged): the PTX ones do; the Vulkan ones need the static
/// values (device scope absorbing workgroup scope in `inscope`).
#[test]
fn which_models_loosen_as_scopes_shrink() {
    let opts = Options::default();
    for (name, levels, ok) in [
        ("ptx-v7.5", 2, true),
        ("ptx-v6.0", 2, true),
        ("vulkan", 3, false),
    ] {
        let model = gpumc_core::models::load(name).expect("model");
        let flags = races::flag_axioms(&model, &opts).expect("flags");
        let shrunk = gpumc_verify::engine::split::shrunk_inputs(levels);
        let r = model.loosens_as_shrunk(&shrunk, &flags, &[]);
        assert_eq!(r.is_ok(), ok, "{name}: {r:?}");
    }
}
