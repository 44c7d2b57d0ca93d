//! Fuzz target `spirv`: SPIR-V assembly.
//! What one input goes through is `gpumc::fuzzing::one` (shared with
//! `tests/fuzz_smoke.rs`); seeds in `fuzz/seeds/spirv/`.
#![no_main]

use gpumc::fuzzing::{one, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one(Format::Spirv, data);
});
