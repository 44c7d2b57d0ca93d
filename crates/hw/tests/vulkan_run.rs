//! Hand-built specs run on lavapipe through `VulkanBackend`, with exact
//! expected result records, final memory and workgroup memory.

mod spirv_support;
mod vulkan_support;

use gpumc_hw::abi::{self, STATUS_DONE};
use gpumc_hw::backend::Backend;
use spirv_support::*;
use vulkan_support::*;

#[test]
fn message_passing_with_a_shared_location() {
    let Some(mut b) = backend() else { return };
    println!("{:?}", b.info());
    let s = mp(true);
    let mut run = Run::new(&s, cfg(64, 8));
    // x: shared word 3, y: global word 5.
    run.rows = vec![
        (0, thread_row(0, 0, &[3, 5])),
        (9, thread_row(1, 10, &[3, 5])),
    ];
    run.shared_io[3] = 0;
    let out = run.launch(&mut b);
    assert_eq!(record(&out, 0, 0), vec![STATUS_DONE, 0]);
    let r = record(&out, 10, 2);
    assert_eq!(&r[..2], &[STATUS_DONE, 0]);
    assert_eq!(out.mem[5], 1);
    assert_eq!(out.shared_io[3], 1);
    let _ = abi::DISCARD;
}
