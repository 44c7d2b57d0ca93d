//! The litmus front-end must turn any input into a program or an error,
//! never a panic; a parsed program must then check without panicking
//! (under a small inline model and the explicit engine's size limit).
#![no_main]

use gpumc::cat::Model;
use gpumc::engine::{safety, Options};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};

fn none(_: &str, _: &Path) -> Option<(PathBuf, String)> {
    None
}

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let Ok(p) = gpumc::frontend::litmus::parse(&src, Path::new("fuzz.litmus")) else {
        return;
    };
    let base = |n: &str| gpumc::engine::exec::base_kind(n, None);
    let model = Model::parse(
        "sc\nlet fr = rf^-1;co\nacyclic po | rf | co | fr\n",
        Path::new("sc.cat"),
        &none,
        &base,
    )
    .expect("inline model");
    let opts = Options {
        max_combinations: 10_000,
        ..Options::default()
    };
    let _ = safety::check(&p, &model, &opts);
});
