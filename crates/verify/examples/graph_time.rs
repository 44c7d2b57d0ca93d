//! Times the graph renderers on reports read from JSON lines (stdin), as
//! `gpumc check --json --graph svg --graph-out DIR` prints them: for the
//! `N` drawings with the most events (default 6), the events and edges,
//! the time of `report::graph::dot` and `report::graph::svg` (best of 5),
//! and, when Graphviz is installed, of `dot -Tsvg` on the DOT text (one
//! run; `failed` when Graphviz fails). Used by `bench/graphs.sh`.
//!
//! `cargo run --release -p gpumc-verify --example graph_time [N] < reports.jsonl`

use gpumc_verify::driver::FileReport;
use gpumc_verify::report::graph::{dot, drawings, svg};
use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Best of five runs of `f`, in milliseconds.
fn best_ms(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

/// `dot -Tsvg` on `text`: milliseconds, or `None` when it fails.
fn graphviz_ms(text: &str) -> Option<f64> {
    let t = Instant::now();
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let ok = child.wait().ok()?.success();
    ok.then(|| t.elapsed().as_secs_f64() * 1e3)
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(6);
    let graphviz = Command::new("dot").arg("-V").output().is_ok();
    let mut all = Vec::new();
    for line in std::io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let Ok(r) = serde_json::from_str::<FileReport>(&line) else {
            continue;
        };
        for d in drawings(&r, false) {
            all.push((r.file.clone(), d));
        }
    }
    all.sort_by_key(|(f, d)| (std::cmp::Reverse(d.witness.events.len()), f.clone()));
    println!(
        "{:<48} {:>6} {:>6} {:>9} {:>9} {:>12}",
        "test", "events", "edges", "dot ms", "svg ms", "graphviz ms"
    );
    for (file, d) in all.iter().take(n) {
        let w = &d.witness;
        let edges = dot(w, &d.options).matches(" -> ").count();
        let t_dot = best_ms(|| {
            std::hint::black_box(dot(w, &d.options));
        });
        let t_svg = best_ms(|| {
            std::hint::black_box(svg(w, &d.options));
        });
        let gv = if graphviz {
            graphviz_ms(&dot(w, &d.options)).map_or("failed".to_string(), |t| format!("{t:.0}"))
        } else {
            "-".to_string()
        };
        let name = std::path::Path::new(file)
            .file_name()
            .map_or(file.clone(), |f| f.to_string_lossy().into_owned());
        println!(
            "{name:<48} {:>6} {edges:>6} {t_dot:>9.2} {t_svg:>9.2} {gv:>12}",
            w.events.len()
        );
    }
}
