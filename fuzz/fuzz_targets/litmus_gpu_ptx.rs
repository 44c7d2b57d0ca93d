//! Fuzz target `litmus_gpu_ptx`: a litmus test in herd7's GPU_PTX dialect.
//! What one input goes through is `gpumc::fuzzing::one` (shared with
//! `tests/fuzz_smoke.rs`); seeds in `fuzz/seeds/litmus_gpu_ptx/`.
#![no_main]

use gpumc::fuzzing::{one, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one(Format::LitmusGpuPtx, data);
});
