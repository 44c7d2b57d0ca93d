//! Fuzz target `ptx_kernel`: a PTX module, launched.
//! What one input goes through is `gpumc::fuzzing::one` (shared with
//! `tests/fuzz_smoke.rs`); seeds in `fuzz/seeds/ptx_kernel/`.
#![no_main]

use gpumc::fuzzing::{one, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one(Format::PtxKernel, data);
});
