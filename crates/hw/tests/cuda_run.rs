//! The CUDA backend on a real device: the scenarios' exact results, the
//! watchdog, a faulting kernel, reset, and refusals. Every test skips with
//! a message when no driver or device is present (this crate must build
//! and test without CUDA); on a GPU machine they run unchanged.

mod ptx_support;

use gpumc_hw::abi::PARAM_WORDS;
use gpumc_hw::backend::{Backend, Launch, LaunchError};
use gpumc_hw::cuda::{self, loader, CudaBackend};
use gpumc_hw::ptx::{self, PtxTarget};
use ptx_support::{scenarios, specs};
use std::time::Duration;

fn device() -> Option<CudaBackend> {
    match CudaBackend::new(None) {
        Ok(b) => {
            eprintln!("running on {} ({})", b.info().name, b.info().driver);
            Some(b)
        }
        // Only a machine without a driver or a device skips; a driver
        // that refuses a context (a process poisoned by an earlier fault,
        // say) is a failure, not a reason to pass silently.
        Err(e) if cuda::is_unavailable(&e) => {
            eprintln!("SKIPPED: {e}");
            None
        }
        Err(e) => panic!("a CUDA driver is present but unusable: {e}"),
    }
}

/// Whether a driver library could be on this machine at all: a candidate
/// path, `$GPUMC_LIBCUDA`, a `LD_LIBRARY_PATH` directory or the loader's
/// cache has one.
fn driver_may_exist() -> bool {
    let in_dirs = std::env::var_os("LD_LIBRARY_PATH").is_some_and(|dirs| {
        std::env::split_paths(&dirs)
            .any(|d| d.join("libcuda.so.1").exists() || d.join("libcuda.so").exists())
    });
    let in_cache = std::process::Command::new("/sbin/ldconfig")
        .arg("-p")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so"))
        .unwrap_or(false);
    in_dirs
        || in_cache
        || std::env::var_os(loader::LIBCUDA_VAR).is_some()
        || loader::candidates()
            .iter()
            .any(|p| p.is_absolute() && p.exists())
}

#[test]
fn a_missing_driver_is_the_clear_error() {
    if driver_may_exist() {
        eprintln!(
            "SKIPPED: a libcuda may be present; the missing-driver message is not checked here"
        );
        return;
    }
    assert_eq!(cuda::devices().unwrap_err(), loader::NO_DRIVER);
    assert_eq!(CudaBackend::new(None).err().unwrap(), loader::NO_DRIVER);
}

#[test]
fn devices_describe_themselves() {
    let list = match cuda::devices() {
        Ok(list) => list,
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            return;
        }
    };
    for d in &list {
        eprintln!("{d:?}");
        assert_eq!(d.backend, "cuda");
        assert!(!d.name.is_empty());
        assert_eq!(d.subgroup_size, 32);
        assert!(d.max_workgroup_size >= 1024);
        assert!(d.max_workgroups >= 65535);
        assert!(d.compute_units.is_some_and(|n| n > 0));
        assert!(d.max_shared_words >= 12 * 1024);
    }
    if let Some(b) = device() {
        let (major, _) = b.compute_capability();
        assert!(major >= 7, "the PTX memory model needs sm_70");
        assert!(b.driver_version() >= 9000);
    }
}

#[test]
fn every_scenario_gives_its_exact_results_on_the_device() {
    let Some(mut b) = device() else { return };
    let mut failures = vec![];
    for s in scenarios::all() {
        // The harness races: run it repeatedly (message passing must
        // hold every time).
        let runs = if s.message_passing { 50 } else { 1 };
        for _ in 0..runs {
            if let Err(e) = scenarios::run(&mut b, &s) {
                failures.push(e);
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_jit_accepts_every_hand_built_kernel() {
    let Some(mut b) = device() else { return };
    let mut all = specs::all();
    let (major, _) = b.compute_capability();
    if major >= 9 {
        all.push(("cluster", specs::cluster_scope(), specs::cfg(32, 0)));
    }
    for (name, spec, cfg) in all {
        let target = PtxTarget::for_device(&spec, b.compute_capability(), b.driver_version())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = ptx::emit(&spec, &cfg, &target).unwrap();
        b.jit_check(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn jit_errors_carry_the_log() {
    let Some(mut b) = device() else { return };
    let bad = ".version 6.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\tbogus.instruction %r1;\n\tret;\n}\n";
    let e = b.jit_check(bad).unwrap_err();
    eprintln!("{e}");
    assert!(
        e.starts_with("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX"),
        "{e}"
    );
    assert!(e.contains("JIT error log"), "{e}");
}

#[test]
fn device_time_is_measured() {
    let Some(mut b) = device() else { return };
    let s = scenarios::fuel();
    let k = b.compile(&s.spec, &s.cfg).unwrap();
    let out = b
        .launch(k, &launch_of(&s), Duration::from_secs(20))
        .unwrap();
    assert!(out.device_time.is_some_and(|t| t > Duration::ZERO));
}

fn launch_of(s: &scenarios::Scenario) -> Launch<'_> {
    Launch {
        workgroups: s.workgroups,
        mem: &s.mem,
        table: &s.table,
        results_words: s.results_words,
        sync_words: s.sync_words,
        stress_words: s.stress_words,
        params: &s.params,
        shared_io: &s.shared_io,
    }
}

#[test]
fn a_kernel_past_the_watchdog_times_out_and_reset_recovers() {
    let Some(mut b) = device() else { return };
    let mut s = scenarios::fuel();
    // The spin loop now has millions of back edges to take.
    s.params[gpumc_hw::abi::P_FUEL] = 5_000_000;
    let k = b.compile(&s.spec, &s.cfg).unwrap();
    let limit = Duration::from_millis(20);
    match b.launch(k, &launch_of(&s), limit) {
        Err(LaunchError::Timeout(d)) => assert_eq!(d, limit),
        other => panic!("expected a timeout, got {other:?}"),
    }
    b.reset().unwrap();
    // The kernel is gone with the context; a new one runs.
    assert!(matches!(
        b.launch(k, &launch_of(&s), limit),
        Err(LaunchError::Failed(_))
    ));
    scenarios::run(&mut b, &scenarios::fuel()).unwrap();
}

#[test]
fn a_faulting_kernel_loses_the_device_and_reset_recovers_or_says_why() {
    let Some(mut b) = device() else { return };
    let mut s = scenarios::fuel();
    // Location word far past `mem`: the spin thread's load faults.
    let row_words = s.spec.row_words();
    s.table[gpumc_hw::abi::ROW_LOC0] = 0x3FFF_FFF0;
    assert_eq!(s.table.len() % row_words, 0);
    let k = b.compile(&s.spec, &s.cfg).unwrap();
    match b.launch(k, &launch_of(&s), Duration::from_secs(20)) {
        Err(LaunchError::DeviceLost(m)) => eprintln!("device lost as expected: {m}"),
        other => panic!("expected a lost device, got {other:?}"),
    }
    // Drivers differ: some recover on a reset, others keep the fault for
    // the life of the process (580 on an H200), and then the reset must
    // say so rather than fail obscurely.
    match b.reset() {
        Ok(()) => scenarios::run(&mut b, &scenarios::rmws()).unwrap(),
        Err(e) => {
            assert!(e.ends_with(cuda::PROCESS_LOST), "{e}");
            eprintln!("the driver keeps the fault for the process: {e}");
        }
    }
}

#[test]
fn launches_that_do_not_match_the_kernel_are_refused() {
    let Some(mut b) = device() else { return };
    let s = scenarios::fuel();
    let k = b.compile(&s.spec, &s.cfg).unwrap();
    let short = &s.table[..s.table.len() - 1];
    let mut l = launch_of(&s);
    l.table = short;
    assert!(matches!(
        b.launch(k, &l, Duration::from_secs(5)),
        Err(LaunchError::Failed(m)) if m.contains("the table has")
    ));
    let params = [0u32; PARAM_WORDS];
    let mut l = launch_of(&s);
    l.params = &params;
    l.workgroups = 0;
    assert!(b.launch(k, &l, Duration::from_secs(5)).is_err());
    // Too large a workgroup is refused at compile time.
    let big = specs::cfg(b.info().max_workgroup_size * 2, 0);
    let e = b.compile(&s.spec, &big).unwrap_err();
    assert!(e.message.starts_with("unsupported:"), "{e}");
}

#[test]
fn buffers_grow_across_launches() {
    let Some(mut b) = device() else { return };
    // A small launch, then a bigger one, then the small one again.
    for s in [scenarios::fuel(), scenarios::harness(), scenarios::fuel()] {
        scenarios::run(&mut b, &s).unwrap();
    }
}
