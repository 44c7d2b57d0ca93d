//! Fuzz target `litmus_c`: a litmus test in herd7's C dialect (also compiled with the built-in mappings).
//! What one input goes through is `gpumc::fuzzing::one` (shared with
//! `tests/fuzz_smoke.rs`); seeds in `fuzz/seeds/litmus_c/`.
#![no_main]

use gpumc::fuzzing::{one, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one(Format::LitmusC, data);
});
