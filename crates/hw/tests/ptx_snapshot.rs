//! Golden files of the PTX emitted for the hand-built specs
//! (`tests/snapshots/ptx/<name>.ptx`). A change to the generator shows up
//! as a diff to review; after reviewing, bless the new text with
//! `GPUMC_BLESS=1 cargo test -p gpumc-hw --test ptx_snapshot`.

mod ptx_support;

use gpumc_hw::ptx::{self, PtxTarget};
use ptx_support::specs;
use std::path::PathBuf;

fn snapshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/ptx")
}

#[test]
fn emitted_ptx_matches_the_snapshots() {
    let bless = std::env::var_os("GPUMC_BLESS").is_some();
    let mut all = specs::all();
    all.push(("cluster", specs::cluster_scope(), specs::cfg(32, 0)));
    let mut stale = vec![];
    for (name, spec, cfg) in all {
        let text = ptx::emit(&spec, &cfg, &PtxTarget::lowest_for(&spec)).unwrap();
        let path = snapshot_dir().join(format!("{name}.ptx"));
        if bless {
            std::fs::create_dir_all(snapshot_dir()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        if golden != text {
            let line = golden
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(golden.lines().count().min(text.lines().count()));
            stale.push(format!(
                "{}: differs from line {} on (golden {:?}, emitted {:?})",
                path.display(),
                line + 1,
                golden.lines().nth(line),
                text.lines().nth(line)
            ));
        }
    }
    assert!(
        stale.is_empty(),
        "{}\nreview, then bless with GPUMC_BLESS=1 cargo test -p gpumc-hw --test ptx_snapshot",
        stale.join("\n")
    );
}
