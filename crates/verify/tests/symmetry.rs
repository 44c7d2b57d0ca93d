//! Symmetry reduction (`engine::symmetry`, docs/SYMBOLIC.md "Symmetry"):
//! which threads and workgroups are found interchangeable, and the
//! symbolic engine's answers with the reduction equal to those without it
//! (verdicts and racing instruction pairs) on PTX kernels and on the
//! corpus's lock and barrier kernels at larger grids.

mod common;

use gpumc_core::ir::Program;
use gpumc_frontend::ptx::launch::{Launch, ParamValue};
use gpumc_verify::engine::races::RaceResult;
use gpumc_verify::engine::safety::Verdict;
use gpumc_verify::engine::symmetry::{groups, Group};
use gpumc_verify::engine::{symbolic, Options};
use std::collections::BTreeSet;
use std::path::Path;

fn kernel(body: &str, grid: u32, block: u32, params: Vec<(String, ParamValue)>) -> Program {
    let src = format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmad.lo.s32 %r4, %r2, %r3, %r1;\n\tmul.wide.u32 %rd3, %r4, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n{body}\n\tret;\n}}\n"
    );
    let launch = Launch {
        grid: Some([grid, 1, 1]),
        block: Some([block, 1, 1]),
        params,
        ..Launch::default()
    };
    gpumc_frontend::ptx::parse_kernel(&src, Path::new("k.ptx"), &launch).expect("kernel")
}

fn buffers() -> Vec<(String, ParamValue)> {
    vec![
        (
            "0".into(),
            ParamValue::Buffer {
                bytes: 4,
                zero: true,
            },
        ),
        (
            "1".into(),
            ParamValue::Buffer {
                bytes: 64,
                zero: false,
            },
        ),
    ]
}

/// A spin lock on `lock` (argument 0) around an increment of a counter
/// in the same buffer; each thread stores what it read in its own slot
/// of argument 1 (`%rd4`).
const LOCK: &str = "L1:\n\tatom.global.cas.b32 %r5, [%rd1], 0, 1;\n\tsetp.ne.s32 %p1, %r5, 0;\n\t@%p1 bra L1;\n\tmembar.gl;\n\tld.global.u32 %r6, [%rd1+4];\n\tadd.s32 %r7, %r6, 1;\n\tst.global.u32 [%rd1+4], %r7;\n\tmembar.gl;\n\tatom.global.exch.b32 %r8, [%rd1], 0;\n\tst.global.u32 [%rd4], %r6;";

fn units(g: &Group) -> Vec<Vec<usize>> {
    g.units.clone()
}

#[test]
fn identical_threads_and_blocks_are_grouped() {
    let mut params = buffers();
    params[0].1 = ParamValue::Buffer {
        bytes: 8,
        zero: true,
    };
    let p = kernel(LOCK, 2, 3, params);
    let gs = groups(&p, &[]);
    let mut found: Vec<Vec<Vec<usize>>> = gs.iter().map(units).collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            vec![vec![0], vec![1], vec![2]],
            vec![vec![0, 1, 2], vec![3, 4, 5]],
            vec![vec![3], vec![4], vec![5]],
        ]
    );
}

#[test]
fn a_thread_that_differs_or_reads_another_slot_breaks_the_group() {
    // Thread 0 alone skips the store: it differs from the others.
    let body = "\tsetp.eq.s32 %p2, %r1, 0;\n\t@%p2 bra L9;\n\tst.global.u32 [%rd4], 7;\nL9:";
    let p = kernel(body, 1, 3, buffers());
    let gs = groups(&p, &[]);
    assert_eq!(
        gs.iter().map(units).collect::<Vec<_>>(),
        vec![vec![vec![1], vec![2]]]
    );
    // Every thread also reads slot 0: slot 0 is not private to thread 0.
    let body = "\tst.global.u32 [%rd4], 7;\n\tld.global.u32 %r9, [%rd2];";
    let p = kernel(body, 1, 3, buffers());
    let gs = groups(&p, &[]);
    assert_eq!(
        gs.iter().map(units).collect::<Vec<_>>(),
        vec![vec![vec![1], vec![2]]]
    );
}

fn races(p: &Program, symmetry: bool, bound: u32) -> RaceResult {
    let model = gpumc_core::models::load(p.arch.default_model()).expect("model");
    let opts = Options {
        bound,
        symmetry,
        max_races: 1000,
        ..Options::default()
    };
    let (r, st) = symbolic::check_races_stats(p, &model, &opts).expect("check");
    assert_eq!(st.mismatches, 0);
    r
}

fn pairs(r: &RaceResult) -> BTreeSet<(String, String)> {
    common::race_positions(r)
}

#[test]
fn kernels_get_the_same_answers_with_and_without_the_reduction() {
    let mut params = buffers();
    params[0].1 = ParamValue::Buffer {
        bytes: 8,
        zero: true,
    };
    let fenced = kernel(LOCK, 2, 2, params.clone());
    let unfenced = kernel(&LOCK.replace("\tmembar.gl;\n", ""), 2, 2, params);
    for (p, want) in [(&fenced, Verdict::Pass), (&unfenced, Verdict::Fail)] {
        let on = races(p, true, 1);
        let off = races(p, false, 1);
        assert_eq!(on.verdict, want);
        assert_eq!(off.verdict, want);
        assert_eq!(pairs(&on), pairs(&off));
        assert!(on.races_complete && off.races_complete);
    }
}

/// A lock never released: one thread takes it and writes the counter,
/// the others spin for ever on it after reading the counter unlocked —
/// a race that only executions with threads stopped in a spinning
/// iteration (no write to the lock, so sorted after every unit that
/// wrote it) contain.
#[test]
fn races_beside_threads_spinning_for_ever_are_found_with_the_reduction() {
    let mut params = buffers();
    params[0].1 = ParamValue::Buffer {
        bytes: 8,
        zero: true,
    };
    let body = "\tld.global.u32 %r9, [%rd1+4];\nL1:\n\tatom.global.cas.b32 %r5, [%rd1], 0, 1;\n\tsetp.ne.s32 %p1, %r5, 0;\n\t@%p1 bra L1;\n\tmembar.gl;\n\tld.global.u32 %r6, [%rd1+4];\n\tadd.s32 %r7, %r6, 1;\n\tst.global.u32 [%rd1+4], %r7;\n\tst.global.u32 [%rd4], %r9;";
    let p = kernel(body, 2, 2, params);
    assert!(!groups(&p, &[]).is_empty());
    let on = races(&p, true, 1);
    let off = races(&p, false, 1);
    assert_eq!(on.verdict, Verdict::Fail);
    assert_eq!(off.verdict, Verdict::Fail);
    assert_eq!(pairs(&on), pairs(&off));
    assert!(!pairs(&on).is_empty());
}

#[test]
fn corpus_locks_at_larger_grids_agree_with_and_without_the_reduction() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = corpus.join("spirv/vulkan/benchmarks");
    // (file, grid X.Y, bound, expected race verdict)
    let rows = [
        ("caslock-2.1.1", (2, 3), 2, Verdict::Pass),
        ("caslock-acq2rx", (3, 2), 1, Verdict::Fail),
        ("ticketlock-2.1.1", (2, 3), 1, Verdict::Pass),
        ("ticketlock-rel2rx", (3, 2), 1, Verdict::Fail),
        ("ttaslock-dv2wg-2.1.1", (3, 2), 1, Verdict::Fail),
    ];
    for (name, (x, y), bound, want) in rows {
        let src = std::fs::read_to_string(dir.join(format!("{name}.spvasm"))).unwrap();
        let n = x * y;
        // One output slot per invocation; the grid of the row.
        let src = src
            .lines()
            .map(|l| {
                if l.starts_with("; @Config") {
                    format!("; @Config: {x}, 1, {y}")
                } else if l.starts_with("; @Input") && l.contains("{{-1, -1}}") {
                    l.replace(
                        "{{-1, -1}}",
                        &format!("{{{{{}}}}}", vec!["-1"; n].join(", ")),
                    )
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let p = gpumc_frontend::spirv::parse(&src, Path::new("k.spvasm")).expect("parses");
        assert!(
            !groups(&p, &[]).is_empty(),
            "{name}: no interchangeable threads found"
        );
        let on = races(&p, true, bound);
        let off = races(&p, false, bound);
        assert_eq!(on.verdict, want, "{name} {x}.{y}");
        assert_eq!(off.verdict, want, "{name} {x}.{y}");
        assert_eq!(pairs(&on), pairs(&off), "{name} {x}.{y}");
    }
}

/// A test without a condition lists every location's final value: two
/// threads that write their own location the value of a shared counter
/// they incremented are not exchangeable for the states list (each order
/// of the increments gives its own state), only for races.
#[test]
fn the_states_of_a_test_without_condition_are_all_listed() {
    let src = "PTX who-first\n{\nc=0;\nx0=0;\nx1=0;\n}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n atom.relaxed.gpu.add r0, c, 1 | atom.relaxed.gpu.add r0, c, 1 ;\n st.relaxed.gpu x0, r0 | st.relaxed.gpu x1, r0 ;\n";
    let p = gpumc_frontend::litmus::parse(src, Path::new("who-first.litmus")).expect("parses");
    let obs = gpumc_verify::engine::safety::observables(&p);
    assert!(groups(&p, &obs).is_empty());
    assert_eq!(
        groups(&p, &[]).len(),
        1,
        "for races the threads are exchangeable"
    );
    let opts = Options {
        max_states: Some(100),
        ..Options::default()
    };
    let r = symbolic::check_safety(
        &p,
        &gpumc_core::models::load("ptx-v7.5").expect("model"),
        &opts,
    )
    .expect("checks");
    assert_eq!(r.states.len(), 2, "{:?}", r.states);
}

/// Labels belong to their thread: loops written with each column's own
/// label names are interchangeable when the names correspond one to one,
/// and not when a branch goes elsewhere.
#[test]
fn label_names_are_renamed_one_to_one() {
    let parse = |target: &str| {
        let src = format!(
            "PTX spin\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n LA: | LB: ;\n ld.relaxed.gpu r0, x | ld.relaxed.gpu r0, x ;\n beq r0, 0, LA | beq r0, 0, {target} ;\n LC: | LD: ;\n st.relaxed.gpu y, 1 | st.relaxed.gpu y, 1 ;\n"
        );
        gpumc_frontend::litmus::parse(&src, Path::new("spin.litmus")).expect("parses")
    };
    // P1's loop `LB: … beq …, LB` is P0's `LA: … beq …, LA`.
    assert_eq!(groups(&parse("LB"), &[]).len(), 1);
    // P1's branch goes forward to `LD`, not back to where its loop starts.
    assert!(groups(&parse("LD"), &[]).is_empty());
}
