//! `gpumc` command-line interface: a thin layer over the library.

mod graphcli;
mod hwcli;

use clap::{Parser, Subcommand};
use gpumc::driver::{self, Config, ModelCache, Property};
use gpumc::isolate::Rendered;
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "gpumc",
    version,
    about = "What may concurrent GPU code do? Litmus tests and kernels checked against PTX and Vulkan memory models, and GPU progress models."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(clap::Args, Clone)]
struct CheckOpts {
    /// Model: an embedded name (see `gpumc models`) or a .cat file. Default: ptx-v7.5 for PTX, vulkan for Vulkan.
    #[arg(long)]
    model: Option<String>,
    /// Loop bound: a loop body runs at most N times.
    #[arg(long, default_value_t = 1)]
    bound: u32,
    /// Property: safety | races | liveness (Dat3M aliases: program_spec, cat_spec, termination).
    #[arg(long, default_value = "safety")]
    property: String,
    /// Progress model for liveness: fair | hsa | obe | hsa_obe | lobe | unfair, or per scope
    /// level, e.g. "default=FAIR;QF=OBE;SG=UNFAIR" (levels SG/WG/QF/DV for Vulkan, CTA/GPU for PTX).
    #[arg(long, default_value = "fair")]
    progress: String,
    /// Engine: explicit | symbolic | auto (symbolic for large tests; liveness: its stuck-configuration search).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Ignore the tests' `filter` clauses.
    #[arg(long)]
    ignore_filter: bool,
    /// One JSON object per test per line.
    #[arg(long)]
    json: bool,
    /// Wall-clock limit per test, seconds (0: none); past it the verdict is UNKNOWN.
    #[arg(long, default_value_t = gpumc::guard::DEFAULT_TIMEOUT_S, value_name = "SECS")]
    timeout: f64,
    /// Memory budget per test, MiB (0: none); over it the verdict is UNKNOWN (or ERROR: out of memory).
    #[arg(long, default_value_t = gpumc::guard::DEFAULT_MAX_MEMORY_MB, value_name = "MB")]
    max_memory: u64,
    /// Check every test in this process instead of in worker processes
    /// (faster to start; a crash or an allocation failure then ends the run).
    #[arg(long)]
    no_isolate: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check litmus tests (files or directories, recursively *.litmus).
    Check {
        #[command(flatten)]
        opts: CheckOpts,
        #[command(flatten)]
        graph: graphcli::GraphOpts,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Run every row of a Dat3M-style expectations CSV (`path,0|1`, or the
    /// full format whose rows carry property, bound, progress and options).
    Suite {
        /// The CSV file.
        #[arg(long)]
        expected: PathBuf,
        /// Directory the CSV's paths are relative to (default: the CSV's parent's parent).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Also run `; `-disabled rows.
        #[arg(long)]
        include_disabled: bool,
        #[command(flatten)]
        opts: CheckOpts,
    },
    /// List the embedded models.
    Models,
    /// Generate litmus tests: the Tong et al., ASPLOS'24 Fig. 15 scaling families, or random tests.
    Gen {
        /// mp | sb | lb | iriw | random
        kind: String,
        /// Number of threads (families).
        #[arg(long, default_value_t = 2)]
        threads: usize,
        #[arg(long, value_enum, default_value = "ptx")]
        arch: gpumc::gen::GenArch,
        /// First seed (random).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// How many random tests.
        #[arg(long, default_value_t = 1)]
        count: u64,
        /// Output file (family) or directory (random); default: stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Progress-model toolkit (Sorensen et al., OOPSLA'21): AXB tests, 11 progress models,
    /// termination oracle, Table 4, synthesis, export to litmus.
    Progress(gpumc::progress::cli::ProgressArgs),
    /// Run litmus tests on a GPU (Vulkan, CUDA) many times under stress and
    /// judge every observed final state against the model (litmus7's job,
    /// with herd's verdict beside it).
    Run(hwcli::RunArgs),
    /// List the GPUs each backend can use.
    Devices(hwcli::DevicesArgs),
    /// Search the harness parameters that show the most weak outcomes per
    /// second on a device (and save the best for `--preset tuned`).
    Tune(hwcli::tune::TuneArgs),
    /// Mutation score of the harness on a device: weakened conformance
    /// tests whose weak outcome the model allows, run on the hardware.
    Mutants(hwcli::mutants::MutantsArgs),
    /// Internal: a worker process of `check`/`suite` (gpumc::isolate).
    #[command(hide = true)]
    Worker,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check { opts, graph, paths } => run_check(&opts, &graph, &paths),
        Cmd::Suite {
            expected,
            root,
            include_disabled,
            opts,
        } => run_suite(&opts, &expected, root, include_disabled),
        Cmd::Progress(a) => {
            let code = gpumc::progress::cli::run(&a);
            u8::try_from(code).unwrap_or(2)
        }
        Cmd::Gen {
            kind,
            threads,
            arch,
            seed,
            count,
            out,
        } => run_gen(&kind, threads, arch, seed, count, out),
        Cmd::Run(a) => hwcli::run(&a),
        Cmd::Devices(a) => hwcli::devices(&a),
        Cmd::Tune(a) => hwcli::tune::tune(&a),
        Cmd::Mutants(a) => hwcli::mutants::run(&a),
        Cmd::Worker => gpumc::isolate::worker_main(),
        Cmd::Models => {
            for (name, _) in gpumc::models::EMBEDDED {
                println!("{name}");
            }
            0
        }
    };
    ExitCode::from(code)
}

fn config(opts: &CheckOpts) -> Result<Config, String> {
    let property = Property::parse(&opts.property).ok_or_else(|| {
        format!(
            "unknown property `{}` (expected safety, races or liveness)",
            opts.property
        )
    })?;
    let progress = gpumc::engine::liveness::ProgressSpec::parse(&opts.progress)
        .map_err(|e| format!("bad --progress `{}`: {e}", opts.progress))?;
    let engine = driver::Engine::parse(&opts.engine).ok_or_else(|| {
        format!(
            "unknown engine `{}` (expected explicit, symbolic or auto)",
            opts.engine
        )
    })?;
    if let Some(m) = &opts.model {
        gpumc::models::load(m).map_err(|e| e.to_string())?;
    }
    if !(opts.timeout >= 0.0 && opts.timeout.is_finite()) {
        return Err(format!(
            "bad --timeout `{}` (expected seconds, 0 for none)",
            opts.timeout
        ));
    }
    Ok(Config {
        model: opts.model.clone(),
        bound: opts.bound,
        property,
        ignore_filter: opts.ignore_filter,
        progress,
        engine,
        limits: gpumc::guard::Limits {
            timeout_s: (opts.timeout > 0.0).then_some(opts.timeout),
            max_memory_mb: (opts.max_memory > 0).then_some(opts.max_memory),
            resident: false,
        },
        graph: None,
    })
}

/// Checks files in worker processes (`gpumc::isolate`), or in this one
/// with `--no-isolate` or where the executable cannot be found.
struct Checker {
    pool: Option<gpumc::isolate::Pool>,
    cache: ModelCache,
}

impl Checker {
    fn new(opts: &CheckOpts) -> Checker {
        let isolate = cfg!(unix) && !opts.no_isolate;
        Checker {
            pool: isolate
                .then(std::env::current_exe)
                .and_then(Result::ok)
                .map(gpumc::isolate::Pool::new),
            cache: ModelCache::default(),
        }
    }

    fn check(&self, path: &std::path::Path, cfg: &Config) -> Rendered {
        match &self.pool {
            Some(p) => p.check(path, cfg, &self.cache),
            None => Rendered::of(&driver::check_file(path, cfg, &self.cache), cfg),
        }
    }
}

fn usage_error(msg: &str) -> u8 {
    eprintln!("gpumc: {msg}");
    2
}

fn run_check(opts: &CheckOpts, graph: &graphcli::GraphOpts, paths: &[PathBuf]) -> u8 {
    let cfg = match config(opts) {
        Ok(c) => Config {
            graph: graph.request(),
            ..c
        },
        Err(e) => return usage_error(&e),
    };
    let files = match driver::expand_paths(paths) {
        Ok(f) => f,
        Err(e) => return usage_error(&e.to_string()),
    };
    let checker = Checker::new(opts);
    let progress = Progress::new(files.len(), !opts.json && files.len() > 1);
    let reports: Vec<_> = files
        .par_iter()
        .map(|f| {
            let r = checker.check(f, &cfg);
            progress.tick();
            r
        })
        .collect();
    progress.done();
    let mut out = std::io::stdout().lock();
    let mut any_error = false;
    for r in &reports {
        any_error |= r.verdict == "ERROR";
        let s = if opts.json {
            r.json.clone() + "\n"
        } else {
            r.text.clone()
        };
        let _ = out.write_all(s.as_bytes());
    }
    drop(out);
    if let Err(e) = graphcli::write(graph, &files, &reports) {
        return usage_error(&e);
    }
    if any_error {
        2
    } else {
        0
    }
}

fn run_suite(opts: &CheckOpts, csv: &PathBuf, root: Option<PathBuf>, include_disabled: bool) -> u8 {
    let cfg = match config(opts) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let src = match std::fs::read_to_string(csv) {
        Ok(s) => s,
        Err(e) => return usage_error(&gpumc::diag::Error::io(csv, e).to_string()),
    };
    let rows = match driver::parse_expected_csv(&src, csv) {
        Ok(r) => r,
        Err(e) => return usage_error(&e.to_string()),
    };
    let root = root.unwrap_or_else(|| {
        csv.parent()
            .and_then(|p| p.parent())
            .map(PathBuf::from)
            .unwrap_or_default()
    });
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| include_disabled || !r.disabled)
        .collect();
    let checker = Checker::new(opts);
    let start = Instant::now();
    let progress = Progress::new(rows.len(), !opts.json);
    let results: Vec<_> = rows
        .par_iter()
        .map(|row| {
            let path = root.join(&row.path);
            let r = if path.exists() {
                Some(checker.check(&path, &row.config(&cfg)))
            } else {
                None
            };
            progress.tick();
            (row, r)
        })
        .collect();
    progress.done();
    let wall = start.elapsed().as_secs_f64();
    let (mut passed, mut failed, mut missing) = (0, 0, 0);
    let mut times: Vec<f64> = Vec::new();
    let mut out = std::io::stdout().lock();
    for (row, r) in &results {
        let Some(r) = r else {
            missing += 1;
            let _ = writeln!(out, "missing: {} (CSV line {})", row.path, row.line);
            continue;
        };
        times.push(r.time_ms);
        let ok = r.verdict == row.expected.to_string();
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
        if opts.json {
            let mut v: serde_json::Value = serde_json::from_str(&r.json).expect("a report");
            v["expected"] = serde_json::Value::String(row.expected.to_string());
            v["agrees"] = serde_json::Value::Bool(ok);
            let _ = writeln!(out, "{v}");
        } else if !ok {
            let exp = row.expected.to_string();
            let _ = writeln!(
                out,
                "mismatch: {} expected {} got {}{}",
                row.path,
                exp,
                r.verdict,
                r.message
                    .as_ref()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default()
            );
        }
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    if !opts.json {
        let _ = writeln!(
            out,
            "suite {}: {} rows in {:.2} s wall, median {:.2} ms per test",
            csv.display(),
            results.len(),
            wall,
            median
        );
    }
    if missing > 0 {
        let _ = writeln!(out, "{passed} passed, {failed} failed, {missing} skipped");
    } else {
        let _ = writeln!(out, "{passed} passed, {failed} failed");
    }
    if failed > 0 {
        1
    } else {
        0
    }
}

fn run_gen(
    kind: &str,
    threads: usize,
    arch: gpumc::gen::GenArch,
    seed: u64,
    count: u64,
    out: Option<PathBuf>,
) -> u8 {
    use gpumc::gen::{family, random_test, Family};
    let fam = match kind {
        "mp" => Some(Family::Mp),
        "sb" => Some(Family::Sb),
        "lb" => Some(Family::Lb),
        "iriw" => Some(Family::Iriw),
        "random" => None,
        other => {
            return usage_error(&format!(
                "unknown generator `{other}` (expected mp, sb, lb, iriw or random)"
            ))
        }
    };
    let write = |path: &PathBuf, text: &str| -> Result<(), String> {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let result = match fam {
        Some(f) => family(f, threads, arch).and_then(|t| match &out {
            Some(p) => write(p, &t),
            None => {
                print!("{t}");
                Ok(())
            }
        }),
        None => (seed..seed.saturating_add(count)).try_for_each(|s| {
            let t = random_test(s, arch);
            match &out {
                Some(dir) => {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                    write(&dir.join(format!("rand-{s}.litmus")), &t)
                }
                None => {
                    println!("{t}");
                    Ok(())
                }
            }
        }),
    };
    match result {
        Ok(()) => 0,
        Err(e) => usage_error(&e),
    }
}

/// A progress counter on stderr when it is a terminal; silent otherwise.
struct Progress {
    total: usize,
    done: AtomicUsize,
    enabled: bool,
}

impl Progress {
    fn new(total: usize, wanted: bool) -> Self {
        Progress {
            total,
            done: AtomicUsize::new(0),
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }
    fn tick(&self) {
        let d = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if self.enabled && (d.is_multiple_of(8) || d == self.total) {
            let width = 30;
            let filled = width * d / self.total.max(1);
            eprint!(
                "\r[{}{}] {}/{}",
                "#".repeat(filled),
                " ".repeat(width - filled),
                d,
                self.total
            );
        }
    }
    fn done(&self) {
        if self.enabled {
            eprint!("\r{}\r", " ".repeat(50));
        }
    }
}
