//! What kernels cost on the Vulkan device: pipeline creation per kernel
//! and launch overhead (wall clock and device timestamps) for 1 workgroup
//! and for 64 workgroups of 64 invocations. A measurement, so ignored by
//! default:
//! `cargo test --release -p gpumc-hw --test vulkan_cost -- --ignored --nocapture`.
//! It still checks every launch's records.

mod spirv_support;
mod vulkan_support;

use gpumc_hw::abi::{self, STATUS_DONE};
use gpumc_hw::backend::{Backend, Launch};
use gpumc_hw::spec::*;
use spirv_support::*;
use std::time::{Duration, Instant};
use vulkan_support::*;

#[test]
#[ignore = "a measurement; run with --ignored --nocapture"]
fn pipeline_creation_and_launch_overhead() {
    let Some(mut b) = backend() else { return };
    println!("device: {} ({})", b.info().name, b.info().driver);
    let s = mp(true);
    let n = 20;
    let t = Instant::now();
    for wg in 0..n {
        // Distinct modules (workgroup sizes), so no driver cache helps.
        let k = b.compile(&s, &cfg(8 * (wg + 1), 16)).expect("compile");
        b.release(k);
    }
    println!(
        "pipeline creation (MP, shared x): {:?} per kernel",
        t.elapsed() / n
    );

    for (workgroups, wg_size) in [(1u32, 64u32), (64, 64)] {
        let ops = vec![
            Op::Load {
                dst: 0,
                addr: Address::Fixed(0),
                access: plain(),
            },
            Op::Store {
                addr: Address::Fixed(1),
                value: Value::Reg(0),
                access: relaxed(VkScope::Device),
            },
        ];
        let one = spec(
            "copy",
            vec![loc("x", Region::Global, 0), loc("y", Region::Global, 0)],
            vec![thread("P0", regs(&["r0"]), vec![ops], vec![0])],
        );
        let c = cfg(wg_size, 0);
        let k = b.compile(&one, &c).expect("compile");
        let slots = (workgroups * wg_size) as usize;
        let table: Vec<u32> = (0..slots)
            .flat_map(|s| thread_row(0, 3 * s as u32, &[s as u32, (slots + s) as u32]))
            .collect();
        let mem: Vec<u32> = (0..2 * slots as u32).collect();
        let p = params(0);
        let l = Launch {
            workgroups,
            mem: &mem,
            table: &table,
            results_words: 3 * slots,
            sync_words: 1,
            stress_words: 1,
            params: &p,
            shared_io: &[],
        };
        // Warm up (first launches grow buffers, fault pages in; a driver
        // may finish compiling at the first dispatch).
        let t = Instant::now();
        b.launch(k, &l, Duration::from_secs(10)).expect("launch");
        println!("first launch, {workgroups} x {wg_size}: {:?}", t.elapsed());
        for _ in 0..5 {
            b.launch(k, &l, Duration::from_secs(10)).expect("launch");
        }
        let launches = 200;
        let mut device = Duration::ZERO;
        let t = Instant::now();
        for _ in 0..launches {
            let out = b.launch(k, &l, Duration::from_secs(10)).expect("launch");
            device += out.device_time.unwrap_or_default();
            assert_eq!(out.results[..abi::RES_REGS], [STATUS_DONE, 0]);
            assert_eq!(out.mem[slots + slots - 1], slots as u32 - 1);
        }
        println!(
            "launch, {workgroups} x {wg_size}: {:?} wall, {:?} device per launch",
            t.elapsed() / launches,
            device / launches
        );
    }
}
