//! `gpumc check --graph dot|svg --graph-out DIR`: execution graphs of the
//! checked tests, written by this (parent) process from the drawings the
//! checks return (`gpumc::report::graph`), whether they ran here or in a
//! worker process.

use gpumc::engine::witness::GraphRequest;
use gpumc::isolate::Rendered;
use gpumc::report::graph::{dot, svg, Drawing};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Dot,
    Svg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// gpumc's own deterministic column layout (no Graphviz needed).
    Gpumc,
    /// Graphviz: the DOT text piped to `dot -Tsvg` (must be installed).
    Dot,
}

#[derive(clap::Args, Clone, Debug)]
pub struct GraphOpts {
    /// Write an execution graph per test: dot, svg, or both (dot,svg).
    /// The witness; a forbidden outcome's rejected candidate with the
    /// violated axiom's cycle; else an allowed execution.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "FORMAT",
        requires = "graph_out"
    )]
    pub graph: Vec<Format>,
    /// Directory for the graphs (created if missing): DIR/<file-stem>.dot|svg.
    #[arg(long, value_name = "DIR", requires = "graph")]
    pub graph_out: Option<PathBuf>,
    /// Draw every execution the model allows (DIR/<stem>-1.svg, -2, …; the
    /// rejected candidate of a forbidden outcome as <stem>-rejected).
    #[arg(long, requires = "graph")]
    pub graph_all: bool,
    /// Draw a kernel's race witness with every thread of the launch (by
    /// default only the two racing threads are drawn).
    #[arg(long, requires = "graph")]
    pub graph_full: bool,
    /// At most N executions per test with --graph-all.
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub graph_max: usize,
    /// Also draw these relations of the model (herd7's -doshow), e.g.
    /// --show cause,sw; an unknown name is an error listing the model's.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "REL,...",
        requires = "graph"
    )]
    pub show: Vec<String>,
    /// SVG layout: gpumc (own, default) or dot (Graphviz's `dot -Tsvg`).
    #[arg(long, value_enum, default_value = "gpumc", value_name = "LAYOUT")]
    pub graph_layout: Layout,
}

impl GraphOpts {
    /// What the engines must record; `None` without `--graph`.
    pub fn request(&self) -> Option<GraphRequest> {
        (!self.graph.is_empty()).then(|| GraphRequest {
            relations: self.show.clone(),
            all: self.graph_all,
            max: self.graph_max,
            full: self.graph_full,
        })
    }
}

/// The stem of each input's graph files: the file stem, with `.2`, `.3`
/// … for later inputs whose stem an earlier one already took.
fn stems(files: &[PathBuf]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    files
        .iter()
        .map(|f| {
            let stem = f
                .file_stem()
                .map_or_else(|| "graph".into(), |s| s.to_string_lossy().into_owned());
            let k = seen.entry(stem.clone()).or_insert(0);
            *k += 1;
            match *k {
                1 => stem,
                k => format!("{stem}.{k}"),
            }
        })
        .collect()
}

/// The SVG of a DOT text by Graphviz.
fn graphviz_svg(dot_text: &str) -> Result<String, String> {
    use std::io::Write;
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("--graph-layout dot: cannot run Graphviz `dot` ({e}); install graphviz or use --graph-layout gpumc"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let text = dot_text.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("--graph-layout dot: {e}"))?;
    let _ = feeder.join();
    if !out.status.success() {
        // Graphviz can print thousands of lines (its rank dumps): the last
        // few say what failed.
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        let tail = lines[lines.len().saturating_sub(3)..].join("; ");
        return Err(format!(
            "--graph-layout dot: `dot -Tsvg` failed ({tail}); --graph-layout gpumc lays out every graph"
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("--graph-layout dot: {e}"))
}

fn render(d: &Drawing, f: Format, layout: Layout) -> Result<String, String> {
    Ok(match (f, layout) {
        (Format::Dot, _) => dot(&d.witness, &d.options),
        (Format::Svg, Layout::Gpumc) => svg(&d.witness, &d.options),
        (Format::Svg, Layout::Dot) => graphviz_svg(&dot(&d.witness, &d.options))?,
    })
}

/// Writes the graphs of every report (`reports[i]` checked `files[i]`)
/// into `--graph-out`; the number of files written, or the first error.
pub fn write(opts: &GraphOpts, files: &[PathBuf], reports: &[Rendered]) -> Result<usize, String> {
    let Some(dir) = &opts.graph_out else {
        return Ok(0);
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("--graph-out {}: {e}", dir.display()))?;
    let mut written = 0;
    for (stem, r) in stems(files).iter().zip(reports) {
        for d in &r.drawings {
            for &f in &opts.graph {
                let ext = match f {
                    Format::Dot => "dot",
                    Format::Svg => "svg",
                };
                let path: PathBuf = dir.join(format!("{stem}{}.{ext}", d.suffix));
                let text = render(d, f, opts.graph_layout)?;
                write_file(&path, &text)?;
                written += 1;
            }
        }
    }
    Ok(written)
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
