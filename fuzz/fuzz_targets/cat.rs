//! Fuzz target `cat`: a `.cat` model (then asked about small programs).
//! What one input goes through is `gpumc::fuzzing::one` (shared with
//! `tests/fuzz_smoke.rs`); seeds in `fuzz/seeds/cat/`.
#![no_main]

use gpumc::fuzzing::{one, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one(Format::Cat, data);
});
