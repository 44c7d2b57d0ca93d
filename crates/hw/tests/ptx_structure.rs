//! Every hand-built spec emits a kernel that passes the structural
//! checker, and the kernel has the parts `abi` requires.

mod ptx_support;

use gpumc_hw::abi::KernelConfig;
use gpumc_hw::ptx::{self, lint, PtxTarget};
use ptx_support::specs;

fn emit(spec: &gpumc_hw::spec::KernelSpec, cfg: &KernelConfig) -> String {
    let target = PtxTarget::lowest_for(spec);
    ptx::emit(spec, cfg, &target).unwrap_or_else(|e| panic!("{}: {e}", spec.name))
}

#[test]
fn every_hand_built_kernel_is_well_formed() {
    let mut all = specs::all();
    all.push(("cluster", specs::cluster_scope(), specs::cfg(32, 0)));
    for (name, spec, cfg) in all {
        let text = emit(&spec, &cfg);
        let problems = lint::check(&text);
        assert!(
            problems.is_empty(),
            "{name}:\n{}\n{text}",
            problems.join("\n")
        );
    }
}

#[test]
fn the_kernel_has_the_abi_structure() {
    let spec = specs::mp_release_acquire_shared();
    let text = emit(&spec, &specs::cfg(64, 8));
    for needle in [
        ".version 6.0",
        ".target sm_70",
        ".visible .entry gpumc_MP_rel_acq_shared(",
        ".shared .align 4 .b32 shared_words[8];",
        "mad.lo.u32 %slot, %cta, %cta_size, %local_id;",
        // row_words = 5 header words + 2 locations
        "mul.wide.u32 %row, %slot, 28;",
        "atom.relaxed.gpu.global.add.u32",
        "ld.relaxed.gpu.global.u32",
        "st.release.cta.shared.u32",
        "ld.acquire.cta.shared.u32",
        "st.volatile.global.u32",
        "ld.volatile.global.u32",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // The shared copy-in and copy-out barriers, and no fence in the start
    // barrier (the test has none either).
    assert_eq!(text.matches("barrier.sync 0;").count(), 2, "{text}");
    assert!(
        !text.contains("fence") && !text.contains("membar"),
        "{text}"
    );
    // Parameters in binding order.
    let params: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".param .u64 "))
        .collect();
    assert_eq!(
        params,
        [
            "param_mem,",
            "param_table,",
            "param_results,",
            "param_sync,",
            "param_stress,",
            "param_params,",
            "param_shared_io"
        ]
    );
}

#[test]
fn no_shared_memory_means_no_shared_array_or_copies() {
    let text = emit(&specs::loops_with_fuel(), &specs::cfg(32, 0));
    assert!(!text.contains(".shared"), "{text}");
    assert!(!text.contains("barrier.sync"), "{text}");
}

#[test]
fn phase_barriers_are_at_top_level_with_their_id() {
    let text = emit(&specs::two_phases(), &specs::cfg(64, 1));
    assert!(text.contains("\tbarrier.sync 1;"), "{text}");
    // The barrier sits between P0's phase 0 and P1's phase 1.
    let barrier = text.find("barrier.sync 1;").unwrap();
    let p0 = text.find("$t0_p0_b0:").unwrap();
    let p1 = text.find("$t1_p1_b0:").unwrap();
    assert!(p0 < barrier && barrier < p1);
}

#[test]
fn back_edges_spend_fuel() {
    let text = emit(&specs::loops_with_fuel(), &specs::cfg(32, 0));
    // Both loops check the fuel before taking their back edge.
    assert_eq!(
        text.matches("setp.ge.u32 %p_fuel, %back_edges, %fuel;")
            .count(),
        2,
        "{text}"
    );
    assert!(text.contains("mov.u32 %status, 2;"), "{text}");
}

#[test]
fn every_scenario_kernel_is_well_formed() {
    for s in ptx_support::scenarios::all() {
        let text = emit(&s.spec, &s.cfg);
        let problems = lint::check(&text);
        assert!(problems.is_empty(), "{}:\n{}", s.name, problems.join("\n"));
    }
}
