//! The GPU_PTX front-end on the thesis's tests (`examples/thesis`,
//! Sorensen, MS thesis, University of Utah, 2014): every file parses,
//! representative files render to the committed IR in `tests/golden/gpu_ptx`
//! (`GPUMC_BLESS=1` rewrites them), and damaged files never panic.

use gpumc_frontend::litmus::parse;
use gpumc_frontend::spirv::render;
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    gpumc_testutil::repo_root().join("examples/thesis")
}

fn gpu_ptx_files() -> Vec<PathBuf> {
    gpumc_testutil::litmus_files(&examples())
}

#[test]
fn every_thesis_example_parses() {
    let files = gpu_ptx_files();
    assert!(files.len() > 200, "only {} example files", files.len());
    let mut gpu = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable example");
        let p = parse(&text, f).unwrap_or_else(|e| panic!("{e}"));
        if text.starts_with("GPU_PTX") {
            gpu += 1;
            // Every thread is placed in a warp and every location mapped.
            assert!(p.threads.iter().all(|t| t.placement.warp.is_some()));
            assert!(p.locations.iter().all(|l| l.space.is_some()));
        }
    }
    assert!(gpu > 100, "only {gpu} GPU_PTX files");
}

/// Representative files: address and data dependencies, predication and
/// atomics, volatile and `.ca` accesses, four threads, mixed regions, a
/// condition on memory.
const GOLDEN: &[&str] = &[
    "D-warp_S-cta-Shared/MP+membar.cta+addr.litmus",
    "D-cta_S-ker-Global/CAS-SL+membar.gls.litmus",
    "D-cta_S-ker-Global/DLB-MP+membar.ctas.litmus",
    "D-cta_S-ker-Global/MP-L1+membar.syss.litmus",
    "D-warp_S-cta-Global/IRIW+addrs.litmus",
    "D-cta_S-ker-Global/S+membar.gl+data.litmus",
    "D-cta_S-ker-Global/2+2W+membar.gls.litmus",
    "D-warp_S-cta-Mixed/SB-x-shared-y-global.litmus",
];

#[test]
fn golden_renderings() {
    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/gpu_ptx");
    let bless = std::env::var_os("GPUMC_BLESS").is_some();
    let mut changed = Vec::new();
    for rel in GOLDEN {
        let path = examples().join(rel);
        let text = std::fs::read_to_string(&path).expect("readable example");
        let got = render(&parse(&text, &path).unwrap_or_else(|e| panic!("{e}")));
        let file = golden_dir.join(rel.replace('/', "__").replace(".litmus", ".ir"));
        if bless {
            std::fs::write(&file, &got).expect("writable golden file");
        }
        let want = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("{}: {e} (GPUMC_BLESS=1 writes it)", file.display()));
        if got != want {
            changed.push(format!("{rel}:\n{got}"));
        }
    }
    assert!(
        changed.is_empty(),
        "renderings changed:\n{}",
        changed.join("\n")
    );
}

/// Truncations and byte edits of every thesis example yield a program or
/// a positioned error, never a panic.
#[test]
fn damaged_examples_never_panic() {
    const ALPHABET: &[u8] = b"()[]{}|;:@!.,=~&/\\\n -0xrpTP";
    for f in gpu_ptx_files() {
        let bytes = std::fs::read(&f).expect("readable file");
        for b in gpumc_testutil::damaged_copies(&bytes, ALPHABET, 8, 4, 0x2545_f491_4f6c_dd1d) {
            let text = String::from_utf8_lossy(&b);
            if let Err(e) = parse(&text, &f) {
                assert!(
                    e.pos.is_some(),
                    "{}: error without position: {e}",
                    f.display()
                );
            }
        }
    }
}
