//! Every emitted kernel assembles with `ptxas` (sm_70, and sm_90 for the
//! cluster scope) when a CUDA toolkit is installed; skipped otherwise.

mod ptx_support;

use gpumc_hw::ptx::{self, PtxTarget};
use ptx_support::{ptxas, specs};

#[test]
fn every_hand_built_kernel_assembles() {
    let Some(ptxas) = ptxas::find() else {
        eprintln!("SKIPPED: no ptxas (set GPUMC_PTXAS, put it on PATH or install CUDA under /usr/local/cuda)");
        return;
    };
    let mut all = specs::all();
    all.push(("cluster", specs::cluster_scope(), specs::cfg(32, 0)));
    for (name, spec, cfg) in all {
        let target = PtxTarget::lowest_for(&spec);
        let text = ptx::emit(&spec, &cfg, &target).unwrap();
        match ptxas::assemble(&ptxas, &text, target.sm, name) {
            Ok(arch) => eprintln!("{name}: ptxas -arch={arch} ok"),
            Err(out) => panic!("{name}: ptxas failed:\n{out}\n{text}"),
        }
    }
}

#[test]
fn every_binop_kernel_assembles_for_edge_operands() {
    let Some(ptxas) = ptxas::find() else {
        eprintln!("SKIPPED: no ptxas");
        return;
    };
    // Constants rather than registers as operands: immediates in every
    // position.
    for (a, b) in [(i32::MIN, -1), (5, 0), (-7, 40)] {
        let mut spec = specs::every_binop(a, b);
        for op in &mut spec.threads[0].phases[0].blocks[0].ops {
            if let gpumc_hw::spec::Op::Local { a: x, b: y, .. } = op {
                *x = gpumc_hw::spec::Value::Const(a);
                *y = gpumc_hw::spec::Value::Const(b);
            }
        }
        let text = ptx::emit(&spec, &specs::cfg(32, 0), &PtxTarget::BASE).unwrap();
        if let Err(out) = ptxas::assemble(&ptxas, &text, 70, "binop_consts") {
            panic!("ptxas failed:\n{out}\n{text}");
        }
    }
}

#[test]
fn every_scenario_kernel_assembles() {
    let Some(ptxas) = ptxas::find() else {
        eprintln!("SKIPPED: no ptxas");
        return;
    };
    for s in ptx_support::scenarios::all() {
        let target = PtxTarget::lowest_for(&s.spec);
        let text = ptx::emit(&s.spec, &s.cfg, &target).unwrap();
        if let Err(out) = ptxas::assemble(&ptxas, &text, target.sm, &s.name) {
            panic!("{}: ptxas failed:\n{out}", s.name);
        }
    }
}

#[test]
fn every_known_target_assembles() {
    let Some(ptxas) = ptxas::find() else {
        eprintln!("SKIPPED: no ptxas");
        return;
    };
    // The ISA version paired with each sm_ must be one ptxas accepts for
    // it (a device gets its own target: PtxTarget::for_device).
    let (_, spec, cfg) = &specs::all()[0];
    for &(sm, isa_major, isa_minor) in &gpumc_hw::ptx::KNOWN_TARGETS {
        let target = PtxTarget {
            sm,
            isa_major,
            isa_minor,
        };
        let text = ptx::emit(spec, cfg, &target).unwrap();
        match ptxas::assemble_exact(&ptxas, &text, sm, "target") {
            Ok(()) => eprintln!("{target}: ok"),
            Err(out) if out.contains("is not defined for option") => {
                eprintln!("{target}: this ptxas does not know sm_{sm}")
            }
            Err(out) => panic!("{target}: ptxas failed:\n{out}"),
        }
    }
}
