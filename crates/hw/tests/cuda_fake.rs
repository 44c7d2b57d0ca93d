//! The CUDA backend's host logic against a stand-in driver
//! (`cuda_fake_driver.c`, built here with `cc`, loaded through
//! `GPUMC_LIBCUDA`): device description, JIT errors with their log,
//! uploads and downloads, zeroed results, the seven parameters, the
//! watchdog, a sticky fault, reset, release, growth and cleanup. It checks
//! the backend, not CUDA: `cuda_run` does that on a GPU. Skipped when no C
//! compiler is found.

mod ptx_support;

use gpumc_hw::abi::PARAM_WORDS;
use gpumc_hw::backend::{Backend, Launch, LaunchError};
use gpumc_hw::cuda::{self, loader, CudaBackend};
use libloading::Library;
use ptx_support::specs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Builds the fake driver; `None` without a C compiler. A compiler that
/// rejects the file fails the test (it must not pass by skipping).
fn build_fake() -> Option<PathBuf> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cuda_fake_driver.c");
    let dir = std::env::temp_dir().join(format!("gpumc-fake-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let lib = dir.join("libcuda.so.1");
    for cc in ["cc", "gcc", "clang"] {
        let Ok(out) = Command::new(cc)
            .args(["-shared", "-fPIC", "-O1", "-Wall", "-o"])
            .arg(&lib)
            .arg(&src)
            .output()
        else {
            continue;
        };
        assert!(
            out.status.success(),
            "{cc} cannot build the stand-in driver:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return Some(lib);
    }
    None
}

/// The fake's counters, read through its own exported functions.
struct Fake {
    lib: Library,
}

impl Fake {
    fn get(&self, name: &str) -> i64 {
        // SAFETY: the fake exports these as `int f(void)` / `unsigned f(void)`.
        unsafe {
            let f = self
                .lib
                .get::<unsafe extern "C" fn() -> i32>(name.as_bytes())
                .unwrap();
            i64::from(f())
        }
    }
}

fn launch_of<'a>(
    workgroups: u32,
    mem: &'a [u32],
    table: &'a [u32],
    results_words: usize,
    params: &'a [u32; PARAM_WORDS],
    shared_io: &'a [u32],
) -> Launch<'a> {
    Launch {
        workgroups,
        mem,
        table,
        results_words,
        sync_words: 4,
        stress_words: 16,
        params,
        shared_io,
    }
}

fn named(mut spec: gpumc_hw::spec::KernelSpec, name: &str) -> gpumc_hw::spec::KernelSpec {
    spec.name = name.into();
    spec
}

// One test: the fake is process-wide state, and GPUMC_LIBCUDA is set once.
#[test]
fn the_backend_drives_the_driver_api_correctly() {
    let Some(lib) = build_fake() else {
        eprintln!("SKIPPED: no C compiler to build the stand-in driver");
        return;
    };
    // SAFETY: set before any thread of this test binary reads it.
    unsafe { std::env::set_var(loader::LIBCUDA_VAR, &lib) };
    // SAFETY: the fake's initialisers do nothing.
    let fake = Fake {
        lib: unsafe { Library::new(&lib) }.unwrap(),
    };

    // Devices, as the fake describes its one device.
    let devices = cuda::devices().unwrap();
    assert_eq!(devices.len(), 1);
    let d = &devices[0];
    assert_eq!(d.name, "gpumc fake device");
    assert_eq!(d.driver, "CUDA 13.0 driver, compute capability 9.0");
    assert_eq!(
        (
            d.subgroup_size,
            d.max_workgroup_size,
            d.max_workgroups,
            d.compute_units,
            d.max_shared_words
        ),
        (32, 1024, i32::MAX as u32, Some(132), 12288)
    );
    assert_eq!(
        CudaBackend::new(Some(1)).err().unwrap(),
        "there is no CUDA device 1 (the driver sees 1)"
    );

    let mut b = CudaBackend::new(None).unwrap();
    assert_eq!(b.compute_capability(), (9, 0));
    assert_eq!(fake.get("fake_retained"), 1);

    // A JIT failure carries the call, the error and the log verbatim.
    let spec = specs::mp_release_acquire_shared();
    let cfg = specs::cfg(64, 2);
    let e = b
        .compile(&named(spec.clone(), "fake_jit_error"), &cfg)
        .unwrap_err();
    assert!(
        e.message.contains("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218): a PTX JIT compilation failed (fake)"),
        "{e}"
    );
    assert!(
        e.message
            .contains("JIT error log:\nptxas fatal   : fake failure on line 1"),
        "{e}"
    );
    assert_eq!(fake.get("fake_modules"), 0);

    // A launch: everything uploaded, results zeroed first, the outputs
    // downloaded, the grid and block as asked.
    let k = b.compile(&spec, &cfg).unwrap();
    assert_eq!(fake.get("fake_modules"), 1);
    // The device's own target (sm_90 on a CUDA 13.0 driver).
    assert_eq!(
        b.kernel_target(k),
        Some(gpumc_hw::ptx::PtxTarget {
            sm: 90,
            isa_major: 7,
            isa_minor: 8
        })
    );
    // The JIT is told the block size, so it limits registers to fit.
    assert_eq!(fake.get("fake_jit_threads"), 64);
    // A kernel whose registers do not allow the block size is refused.
    let e = b
        .compile(&named(spec.clone(), "fake_regs"), &specs::cfg(512, 2))
        .unwrap_err();
    assert_eq!(
        e.message,
        "unsupported: workgroups of 512: with 255 registers per thread the kernel runs at most 256 threads per block"
    );
    assert_eq!(
        fake.get("fake_modules"),
        1,
        "the refused module is unloaded"
    );
    let rows = 2 * 64 * spec.row_words();
    let table = vec![0u32; rows];
    let params = [3u32; PARAM_WORDS];
    let mem = [1u32, 2, 3];
    let shared_io = [5u32, 6, 7, 8];
    let out = b
        .launch(
            k,
            &launch_of(2, &mem, &table, 3, &params, &shared_io),
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(out.mem, vec![2, 3, 4]);
    assert_eq!(out.results, vec![100, 101, 102]);
    assert_eq!(out.shared_io, vec![10, 12, 14, 16]);
    assert_eq!(out.device_time, Some(Duration::from_micros(250)));
    assert_eq!(
        (fake.get("fake_last_grid"), fake.get("fake_last_block")),
        (2, 64)
    );
    // Again on the same buffers: results zeroed again, mem uploaded again.
    let out = b
        .launch(
            k,
            &launch_of(2, &mem, &table, 3, &params, &shared_io),
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!((out.mem, out.results), (vec![2, 3, 4], vec![100, 101, 102]));
    // A bigger launch grows the buffers; their number stays seven.
    let big_mem = vec![7u32; 5000];
    let out = b
        .launch(
            k,
            &launch_of(2, &big_mem, &table, 3000, &params, &shared_io),
            Duration::from_secs(5),
        )
        .unwrap();
    assert_eq!(out.mem, vec![8; 5000]);
    assert_eq!(out.results[2999], 3099);
    assert_eq!(fake.get("fake_live_allocations"), 7);
    // A table that does not match the kernel never reaches the driver.
    let launches = fake.get("fake_launches");
    let r = b.launch(
        k,
        &launch_of(2, &mem, &table[1..], 3, &params, &shared_io),
        Duration::from_secs(5),
    );
    assert!(matches!(r, Err(LaunchError::Failed(m)) if m.contains("the table has")));
    assert_eq!(fake.get("fake_launches"), launches);

    // The watchdog: a kernel that never finishes times out; reset
    // recreates the context, and the old kernel is gone.
    let hang = b.compile(&named(spec.clone(), "fake_hang"), &cfg).unwrap();
    let limit = Duration::from_millis(30);
    let r = b.launch(
        hang,
        &launch_of(2, &mem, &table, 3, &params, &shared_io),
        limit,
    );
    assert_eq!(r.unwrap_err(), LaunchError::Timeout(limit));
    b.reset().unwrap();
    assert_eq!(fake.get("fake_resets"), 1);
    assert_eq!(fake.get("fake_modules"), 0, "reset unloads every module");
    assert_eq!(
        fake.get("fake_live_allocations"),
        0,
        "reset frees every buffer"
    );
    assert_eq!(fake.get("fake_retained"), 1);
    let r = b.launch(
        k,
        &launch_of(2, &mem, &table, 3, &params, &shared_io),
        limit,
    );
    assert!(matches!(r, Err(LaunchError::Failed(m)) if m.contains("not compiled")));

    // A fault is a lost device, named by the driver; reset recovers.
    let fault = b.compile(&named(spec.clone(), "fake_fault"), &cfg).unwrap();
    let r = b.launch(
        fault,
        &launch_of(2, &mem, &table, 3, &params, &shared_io),
        limit,
    );
    match r {
        Err(LaunchError::DeviceLost(m)) => assert_eq!(
            m,
            "cuStreamQuery failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered (fake)"
        ),
        other => panic!("expected a lost device: {other:?}"),
    }
    // Until the reset, the driver refuses everything.
    assert!(b.compile(&spec, &cfg).is_err());
    b.reset().unwrap();
    let k = b.compile(&spec, &cfg).unwrap();
    let out = b
        .launch(
            k,
            &launch_of(2, &mem, &table, 3, &params, &shared_io),
            limit,
        )
        .unwrap();
    assert_eq!(out.results, vec![100, 101, 102]);

    // Release unloads; dropping the backend frees and releases the rest.
    b.release(k);
    assert_eq!(fake.get("fake_modules"), 0);

    // A fault the driver keeps for the life of the process: the reset
    // fails and says to run again; every later call names the reason.
    let poison = b
        .compile(&named(spec.clone(), "fake_poison"), &cfg)
        .unwrap();
    let r = b.launch(
        poison,
        &launch_of(2, &mem, &table, 3, &params, &shared_io),
        limit,
    );
    assert!(
        matches!(&r, Err(LaunchError::DeviceLost(m)) if m.contains("CUDA_ERROR_INVALID_ADDRESS_SPACE (717)")),
        "{r:?}"
    );
    let e = b.reset().unwrap_err();
    assert!(
        e.starts_with("cuDevicePrimaryCtxRetain failed: CUDA_ERROR_INVALID_ADDRESS_SPACE (717)"),
        "{e}"
    );
    assert!(e.ends_with(cuda::PROCESS_LOST), "{e}");
    let e = b.compile(&spec, &cfg).unwrap_err().to_string();
    assert!(e.contains(cuda::PROCESS_LOST), "{e}");
    drop(b);
    assert_eq!(fake.get("fake_live_allocations"), 0);
    assert_eq!(fake.get("fake_retained"), 0);
}
