//! `gpumc` command-line interface: a thin layer over the library.

mod compilecli;
mod diycli;
mod graphcli;
mod hwcli;
mod mappingcli;
mod resultscli;
mod shardcli;

use clap::{Parser, Subcommand};
use gpumc::bar::Bar;
use gpumc::driver::{self, Config, ModelCache, Property};
use gpumc::isolate::Rendered;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
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
    /// Loop bound: a loop body runs at most N times. Above 1, bound 1 is
    /// tried first (a tenth of --timeout, at most 5 s); its answer stands
    /// where no execution reached it (docs/SEMANTICS.md).
    #[arg(long, default_value_t = 1)]
    bound: u32,
    /// Property: safety | races | liveness (Dat3M aliases: program_spec, cat_spec, termination).
    #[arg(long, default_value = "safety")]
    property: String,
    /// Progress model for liveness (weakly fair, Sorensen et al., OOPSLA'21):
    /// fair | hsa | obe | hsa-obe | lobe | unfair, or one per scope level, e.g.
    /// "default=fair;QF=obe;SG=unfair" (levels SG/WG/QF/DV for Vulkan, CTA/GPU/SYS for PTX).
    /// Names as in `gpumc progress` (docs/PROGRESS.md; `weak-obe` is `obe`).
    #[arg(long, default_value = "fair")]
    progress: String,
    /// Engine: explicit | symbolic | auto (symbolic for large tests; liveness: its stuck-configuration search;
    /// races of PTX kernels over 4,096 threads: parametric) | parametric (PTX kernel races for any launch size, docs/PTX-KERNELS.md).
    #[arg(long, default_value = "auto")]
    engine: String,
    /// Ignore the tests' `filter` clauses.
    #[arg(long)]
    ignore_filter: bool,
    /// JSON lines: one report object per test (`suite`: then the totals);
    /// the same as `--format json`; docs/JSON.md.
    #[arg(long)]
    json: bool,
    /// Output: text | json (one object per test per line) | herd (herd7's
    /// result block per test: States, Ok/No, Witnesses, Observation).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Safety: the most final states the symbolic engine lists per test
    /// (0: none; the observation is still decided); a longer list is cut
    /// and marked "at least".
    /// The explicit engine always lists every state. Without this option
    /// the list is also cut after 1 s of listing (a large test's verdict
    /// is not held up by its states); with it, only N cuts it.
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Races: the most racing instruction pairs listed per test (each pair
    /// of instructions once, with one execution in which it races); a
    /// longer list is cut and says so.
    #[arg(long, default_value_t = driver::DEFAULT_MAX_RACES, value_name = "N")]
    max_races: usize,
    /// Raise the loop bound one at a time from --bound up to N while an
    /// execution cut by the bound leaves the verdict UNKNOWN; the report
    /// gives the bound that decided (all attempts share --timeout).
    #[arg(long, value_name = "N")]
    max_bound: Option<u32>,
    /// Coherence (`co`) per location: `total` (herd7's) or `partial`
    /// (PTX's, as Dat3M has it), over what the model and the program's
    /// architecture give (docs/MODELS.md, "Coherence").
    #[arg(long, value_name = "total|partial", value_parser = parse_co)]
    co: Option<gpumc::ir::Coherence>,
    /// Symbolic engine: consider every execution, not one per orbit of
    /// interchangeable threads and workgroups (symmetry reduction, on by
    /// default; docs/SYMBOLIC.md, "Symmetry").
    #[arg(long)]
    no_symmetry: bool,
    /// Symbolic race checks: count every futile iteration of a loop (one
    /// whose only writes are RMWs, not CAS, writing the value they read) towards
    /// the bound instead of dropping those nothing needs (on by default;
    /// docs/SEMANTICS.md, "Futile iterations").
    #[arg(long)]
    no_futile_drop: bool,
    /// Symbolic race checks: check the program only as placed, not first
    /// with every thread alone in its workgroup (or CTA), where threads of
    /// one code are interchangeable (on by default where the model allows;
    /// docs/SYMBOLIC.md, "Splitting scope instances").
    #[arg(long)]
    no_scope_split: bool,
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
    /// Also write a self-contained HTML report (sortable, filterable table;
    /// each test expands to its states and witness) to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Kernels (PTX, CUDA `.cu`, OpenCL `.cl`): the kernel to check, when
    /// a file defines several.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Kernels: blocks (OpenCL: work-groups) in the grid (default 1;
    /// CUDA's limits: X below 2^31, Y and Z at most 65535).
    #[arg(long, value_name = "X[,Y[,Z]]")]
    grid: Option<String>,
    /// Kernels: threads per block (OpenCL: work-items per work-group;
    /// needed, here or in the file's `// gpumc-launch:` line; CUDA's
    /// limits: X and Y at most 1024, Z at most 64, 1024 in all). Races are
    /// checked for every thread of the launch.
    #[arg(long, value_name = "X[,Y[,Z]]")]
    block: Option<String>,
    /// Kernels: a kernel argument, named by position (0, 1, …) or name
    /// (PTX: also without the `KERNEL_` prefix, `param_1`): an integer,
    /// `buf:BYTES` (a pointer to a fresh buffer, arbitrary contents; not
    /// OpenCL) or `zeros:BYTES` (zero-filled; at most 1 TiB). Repeatable.
    /// Arguments not given are free: any value (the same in every thread),
    /// pointers to distinct buffers.
    #[arg(long, value_name = "NAME=VALUE")]
    param: Vec<String>,
    /// PTX kernels: bytes of dynamic (`extern __shared__`) shared memory
    /// per block (at most 227 KiB, CUDA's per-block limit).
    #[arg(long, value_name = "N")]
    shared_bytes: Option<u64>,
    /// OpenCL kernels, GPUVerify's spelling of --block: work-items per
    /// work-group (`64`, `[64,64]`).
    #[arg(long = "local_size", alias = "local-size", value_name = "X[,Y[,Z]]")]
    local_size: Option<String>,
    /// OpenCL kernels, GPUVerify's spelling of --grid: work-groups.
    #[arg(long = "num_groups", alias = "num-groups", value_name = "X[,Y[,Z]]")]
    num_groups: Option<String>,
    /// OpenCL kernels, GPUVerify's --global_size: work-items in all (the
    /// grid is this over the work-group size).
    #[arg(long = "global_size", alias = "global-size", value_name = "X[,Y[,Z]]")]
    global_size: Option<String>,
}

#[derive(clap::ValueEnum, Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    Herd,
}

impl CheckOpts {
    fn format(&self) -> Format {
        if self.json {
            Format::Json
        } else {
            self.format
        }
    }
}

/// A report in the chosen format.
fn rendered(r: &Rendered, f: Format) -> String {
    match f {
        Format::Text => r.text.clone(),
        Format::Json => r.json.clone() + "\n",
        Format::Herd => r.herd.clone(),
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Check litmus tests, SPIR-V kernels and PTX kernels (files,
    /// directories searched recursively for *.litmus, *.spvasm and *.ptx,
    /// or `-` for standard input).
    Check {
        #[command(flatten)]
        opts: CheckOpts,
        #[command(flatten)]
        graph: graphcli::GraphOpts,
        /// Test files, directories, or `-`: one test read from standard
        /// input (reported as `<stdin>`; litmus, SPIR-V assembly or PTX,
        /// told apart by content).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        shard: shardcli::ShardOpts,
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
        #[command(flatten)]
        shard: shardcli::ShardOpts,
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
    /// Compile a scoped C/C++ litmus test to PTX or Vulkan with a mapping
    /// file (docs/MAPPING.md; built-in ptx: Lustig et al., ASPLOS'19 Fig. 11),
    /// writing the compiled litmus test.
    Compile(compilecli::CompileArgs),
    /// Mapping soundness: `gpumc mapping check` searches every scoped C
    /// program up to a number of events for an execution of its compilation
    /// whose lift violates the source model (Lustig et al., ASPLOS'19).
    Mapping(mappingcli::MappingArgs),
    /// The litmus test of one relaxation cycle (herdtools' diy edges with
    /// GPU placements, memory regions and fences, as Sorensen's thesis
    /// generated its tests), carrying each model's verdict.
    Diy(diycli::DiyArgs),
    /// The results database (SQLite): import the JSON results of `gpumc run`,
    /// totals per device, family or test, an HTML page comparing devices.
    Results(resultscli::ResultsArgs),
    /// Combine the journals of a sharded `check`, `suite` or `mapping
    /// check` (`--shard K/N --shard-out DIR`) into what the unsharded run
    /// would have printed and written; names missing or unfinished shards.
    Merge(shardcli::MergeArgs),
    /// Internal: a worker process of `check`/`suite` (gpumc::isolate).
    #[command(hide = true)]
    Worker,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Check {
            opts,
            graph,
            paths,
            shard,
        } => run_check(&opts, &graph, &paths, &shard),
        Cmd::Suite {
            expected,
            root,
            include_disabled,
            opts,
            shard,
        } => run_suite(&opts, &expected, root, include_disabled, &shard),
        Cmd::Merge(a) => shardcli::merge(&a),
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
        Cmd::Compile(a) => compilecli::run(&a),
        Cmd::Mapping(a) => mappingcli::run(&a),
        Cmd::Diy(a) => diycli::run(&a),
        Cmd::Results(a) => resultscli::run(&a),
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
            "unknown engine `{}` (expected explicit, symbolic, auto or parametric)",
            opts.engine
        )
    })?;
    if opts.bound == 0 {
        // The engines unroll at least once (`bound.max(1)`): 0 would
        // silently mean 1.
        return Err(
            "--bound 0: a loop body runs at most N times, and N must be at least 1".to_string(),
        );
    }
    if let Some(m) = opts.max_bound.filter(|&m| m < opts.bound) {
        return Err(format!(
            "--max-bound {m} is below --bound {}: the bound only grows",
            opts.bound
        ));
    }
    if !(opts.timeout >= 0.0 && opts.timeout.is_finite()) {
        return Err(format!(
            "bad --timeout `{}` (expected seconds, 0 for none)",
            opts.timeout
        ));
    }
    if let Some(m) = &opts.model {
        // Loading keeps `--timeout`. Past it, nothing is said here: each
        // test loads the model again under its own deadline and ends
        // UNKNOWN with the reason, as any check that runs out of time.
        let limits = gpumc::guard::Limits {
            timeout_s: (opts.timeout > 0.0).then_some(opts.timeout),
            ..gpumc::guard::Limits::none()
        };
        let _loading = gpumc::guard::enter(gpumc::guard::Guard::new(&limits, Instant::now()));
        match load_model(m) {
            Ok(model) => {
                for w in model_warnings(m, &model, property) {
                    warn(&w);
                }
            }
            Err(e) if e.kind == gpumc::diag::ErrorKind::Limit => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    if opts.timeout > 0.0 && opts.timeout < MIN_SENSIBLE_TIMEOUT_S {
        warn(&format!(
            "--timeout {} s is very short (the unit is seconds; 0 means no limit): a check that takes longer ends UNKNOWN",
            opts.timeout
        ));
    }
    if opts.max_memory > 0 && opts.max_memory < MIN_SENSIBLE_MEMORY_MB {
        warn(&format!(
            "--max-memory {} MiB is very little (the unit is MiB; 0 means no limit): most checks will end out of memory",
            opts.max_memory
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
        max_states: Some(opts.max_states.unwrap_or(driver::DEFAULT_MAX_STATES)),
        states_time_s: opts
            .max_states
            .is_none()
            .then_some(driver::DEFAULT_STATES_TIME_S),
        graph: None,
        max_races: opts.max_races,
        symmetry: !opts.no_symmetry,
        futile_drop: !opts.no_futile_drop,
        split_scopes: !opts.no_scope_split,
        max_bound: opts.max_bound,
        co: opts.co,
        launch: launch(opts)?,
        // herd7 prints a `Flag` line for each flag axiom that fires.
        flags: opts.format() == Format::Herd,
    })
}

/// The PTX kernel launch the options give.
fn launch(opts: &CheckOpts) -> Result<gpumc::frontend::ptx::launch::Launch, String> {
    use gpumc::frontend::ptx::launch::{
        check_shared_bytes, parse_block, parse_dims, parse_grid, parse_param, Launch,
    };
    type Parse = fn(&str) -> Result<[u32; 3], String>;
    let dims = |flag: &str, parse: Parse, v: &Option<String>| {
        v.as_deref()
            .map(parse)
            .transpose()
            .map_err(|e| format!("bad --{flag} {e}"))
    };
    if let Some(n) = opts.shared_bytes {
        check_shared_bytes(n).map_err(|e| format!("bad --shared-bytes: {e}"))?;
    }
    let mut params = Vec::new();
    for p in &opts.param {
        let (k, v) = parse_param(p).map_err(|e| format!("bad --param {e}"))?;
        params.retain(|(b, _): &(String, _)| *b != k);
        params.push((k, v));
    }
    // GPUVerify's spellings (`--local_size=[64,64]`) of the same sizes.
    let unbracket = |v: &Option<String>| {
        v.as_deref().map(|s| {
            s.trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string()
        })
    };
    let either = |a: &Option<String>, fa: &str, b: Option<String>, fb: &str| match (a, b) {
        (Some(_), Some(_)) => Err(format!("--{fa} and --{fb} give the same size: give one")),
        (Some(x), None) => Ok(Some(x.clone())),
        (None, y) => Ok(y),
    };
    // The grid first (its errors before the block's, as they always were).
    let grid_text = either(
        &opts.grid,
        "grid",
        unbracket(&opts.num_groups),
        "num_groups",
    )?;
    let mut grid = dims("grid", parse_grid, &grid_text)?;
    either(
        &opts.block,
        "block",
        unbracket(&opts.local_size),
        "local_size",
    )?;
    // OpenCL has no fixed work-group limit (the device's
    // CL_DEVICE_MAX_WORK_GROUP_SIZE): CUDA's is not applied to it.
    let block = match (&opts.block, unbracket(&opts.local_size)) {
        (Some(_), _) => dims("block", parse_block, &opts.block)?,
        (None, Some(l)) => Some(parse_dims(&l).map_err(|e| format!("bad --local_size {e}"))?),
        (None, None) => None,
    };
    if let Some(global) = unbracket(&opts.global_size) {
        if grid.is_some() {
            return Err(
                "--global_size and --grid/--num_groups give the same size: give one".into(),
            );
        }
        let g = parse_dims(&global).map_err(|e| format!("bad --global_size {e}"))?;
        let b = block.ok_or("--global_size needs the work-group size (--local_size or --block)")?;
        let mut groups = [1u32; 3];
        for k in 0..3 {
            if g[k] % b[k] != 0 {
                return Err(format!(
                    "bad --global_size: {} work-items is not a multiple of the work-group's {}",
                    g[k], b[k]
                ));
            }
            groups[k] = g[k] / b[k];
        }
        gpumc::frontend::ptx::launch::check_grid(groups)
            .map_err(|e| format!("bad --global_size: {e}"))?;
        grid = Some(groups);
    }
    Ok(Launch {
        kernel: opts.kernel.clone(),
        grid,
        block,
        params,
        shared_bytes: opts.shared_bytes,
    })
}

/// Below these, `--timeout` and `--max-memory` are almost certainly a
/// mistake (a unit confused): a warning says so.
const MIN_SENSIBLE_TIMEOUT_S: f64 = 0.05;
const MIN_SENSIBLE_MEMORY_MB: u64 = 16;

fn warn(msg: &str) {
    eprintln!("gpumc: warning: {msg}");
}

/// Loads `--model`; a model file with nothing in it (no title, no
/// statement: an empty or truncated file, or the wrong one) is an error at
/// its first position.
fn load_model(m: &str) -> Result<gpumc::cat::Model, gpumc::diag::Error> {
    let path = std::path::Path::new(m);
    let embedded = gpumc::models::EMBEDDED.iter().any(|(n, _)| *n == m);
    if !embedded && path.is_file() {
        let text = gpumc::diag::read_text(path)?;
        if let Ok(lexed) = gpumc::cat::lexer::lex(&text) {
            if lexed.tokens.len() <= 1 {
                let end = lexed
                    .tokens
                    .last()
                    .map(|t| t.pos)
                    .unwrap_or(gpumc::ir::Pos { line: 1, col: 1 });
                return Err(gpumc::diag::Error::syntax(
                    end,
                    "empty model: expected a title, definitions and axioms (`acyclic`, `irreflexive`, `empty`)",
                )
                .in_file(path));
            }
        }
    }
    gpumc::models::load(m)
}

/// What a model without the axioms a property needs means, said before
/// every verdict depends on it.
fn model_warnings(m: &str, model: &gpumc::cat::Model, property: Property) -> Vec<String> {
    let consistency = model.axioms().iter().filter(|a| !a.flag).count();
    let flags = model.axioms().len() - consistency;
    let mut out = Vec::new();
    if consistency == 0 && property != Property::Races {
        out.push(format!(
            "model {m} has no axioms: every candidate execution is consistent"
        ));
    }
    if flags == 0 && property == Property::Races {
        out.push(format!(
            "model {m} has no `flag` axioms: --property races can find no race"
        ));
    }
    out
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

    /// Checks the program in `file`, reported as `name`.
    fn check(&self, file: &Path, name: &Path, cfg: &Config) -> Rendered {
        match &self.pool {
            Some(p) => p.check_as(file, name, cfg, &self.cache),
            None => Rendered::of(&driver::check_file_as(file, name, cfg, &self.cache), cfg),
        }
    }
}

fn usage_error(msg: &str) -> u8 {
    eprintln!("gpumc: {msg}");
    2
}

/// Standard input (`gpumc check -`) spooled to a temporary file, so that a
/// worker process can read it like any file; removed when dropped.
struct Spooled(PathBuf);

impl Spooled {
    fn stdin() -> Result<Spooled, String> {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .map_err(|e| format!("{}: {e}", driver::STDIN_NAME))?;
        // Checked here, so that the position of a bad byte is reported
        // once, not by every worker.
        let text = gpumc::diag::text(bytes)
            .map_err(|e| e.in_file(Path::new(driver::STDIN_NAME)).to_string())?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // No extension: the front-end is chosen by the name `<stdin>`'s
        // absence of one, i.e. by content.
        let path = std::env::temp_dir().join(format!("gpumc-stdin-{}-{nanos}", std::process::id()));
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Spooled(path))
    }
}

impl Drop for Spooled {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The paths `check` was given, expanded: each test as (file to read,
/// name to report). A directory with no test in it is an error, reported
/// without stopping the others.
fn check_inputs(
    paths: &[PathBuf],
    stdin: Option<&Spooled>,
) -> (Vec<(PathBuf, PathBuf)>, Vec<String>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            if let Some(s) = stdin {
                files.push((s.0.clone(), PathBuf::from(driver::STDIN_NAME)));
            }
            continue;
        }
        match driver::expand_paths(std::slice::from_ref(p)) {
            Ok(found) if found.is_empty() && p.is_dir() => errors.push(format!(
                "no .litmus/.spvasm/.ptx/.comp files under {}",
                p.display()
            )),
            Ok(found) => files.extend(found.into_iter().map(|f| (f.clone(), f))),
            Err(e) => errors.push(e.to_string()),
        }
    }
    (files, errors)
}

fn run_check(
    opts: &CheckOpts,
    graph: &graphcli::GraphOpts,
    paths: &[PathBuf],
    shard: &shardcli::ShardOpts,
) -> u8 {
    let start = Instant::now();
    let sharding = match shard.resolve() {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    if sharding.is_some() && graph.request().is_some() {
        return usage_error(
            "--graph is not available with --shard (draw the tests of interest alone)",
        );
    }
    let cfg = match config(opts) {
        Ok(c) => Config {
            graph: graph
                .request()
                .or_else(|| opts.html.is_some().then(gpumc::html::graph_request)),
            ..c
        },
        Err(e) => return usage_error(&e),
    };
    if cfg.property != Property::Liveness && cfg.progress.text != "fair" {
        // (`suite` rows carry their own property: this is `check`'s alone.)
        warn(&format!(
            "--progress {} has no effect without --property liveness",
            cfg.progress.text
        ));
    }
    let dashes = paths.iter().filter(|p| p.as_os_str() == "-").count();
    if dashes > 1 {
        return usage_error("`-` (standard input) given more than once");
    }
    if dashes == 1 && sharding.is_some() {
        return usage_error("`-` (standard input) cannot be sharded: give files");
    }
    let stdin = if dashes == 1 {
        match Spooled::stdin() {
            Ok(s) => Some(s),
            Err(e) => return usage_error(&e),
        }
    } else {
        None
    };
    let html = match opts.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    let (files, errors) = check_inputs(paths, stdin.as_ref());
    let many = files.len() > 1 || paths.iter().any(|p| p.is_dir());
    let checker = Checker::new(opts);
    let json = opts.format() == Format::Json;
    let checked: Vec<(PathBuf, Rendered)> = match &sharding {
        None => {
            let bar = Bar::new(files.len() as u64, !json && files.len() > 1);
            let reports = files
                .par_iter()
                .map(|(file, name)| {
                    let r = checker.check(file, name, &cfg);
                    bar.inc();
                    (name.clone(), r)
                })
                .collect();
            bar.finish();
            reports
        }
        Some(sh) => {
            // Cost estimate: the file's size (threads × instructions).
            let costs: Vec<u64> = files
                .iter()
                .map(|(f, _)| std::fs::metadata(f).map_or(1, |m| m.len().max(1)))
                .collect();
            let context = serde_json::json!({ "errors": errors, "many": many });
            let check = |_: usize, (file, name): &(PathBuf, PathBuf)| {
                let r = checker.check(file, name, &cfg);
                Ok(serde_json::json!({ "name": name, "report": r }))
            };
            match shardcli::run(sh, "check", context, &files, &costs, &check) {
                Ok(records) => match records
                    .into_iter()
                    .map(|(_, v)| check_record(&v))
                    .collect::<Result<Vec<_>, String>>()
                {
                    Ok(r) => r,
                    Err(e) => return usage_error(&e),
                },
                Err(e) => return usage_error(&e),
            }
        }
    };
    let code = finish_check(
        &checked,
        &errors,
        many,
        opts.format(),
        html.map(|f| (f, opts.html.as_deref().expect("--html"))),
        start.elapsed().as_secs_f64(),
    );
    if graph.request().is_some() {
        let (names, reports): (Vec<PathBuf>, Vec<Rendered>) = checked.into_iter().unzip();
        if let Err(e) = graphcli::write(graph, &names, &reports) {
            return usage_error(&e);
        }
    }
    // A shard's status says whether it finished (for the job engine's
    // retries); the verdicts' status is the merge's.
    if sharding.is_some() {
        0
    } else {
        code
    }
}

/// `1 test`, `3 tests`.
pub(crate) fn count_of(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// A `check` shard's record: the test's name and its report.
fn check_record(v: &serde_json::Value) -> Result<(PathBuf, Rendered), String> {
    let name = v["name"]
        .as_str()
        .ok_or("a check record without its test's name")?;
    let r: Rendered = serde_json::from_value(v["report"].clone())
        .map_err(|e| format!("an unreadable check record: {e}"))?;
    Ok((PathBuf::from(name), r))
}

/// What `check` prints and writes once its tests are checked (also the
/// merge of a sharded `check`): the reports in `format`, the totals, the
/// HTML page; the exit status.
fn finish_check(
    checked: &[(PathBuf, Rendered)],
    errors: &[String],
    many: bool,
    format: Format,
    html: Option<(std::fs::File, &Path)>,
    wall_s: f64,
) -> u8 {
    for e in errors {
        eprintln!("gpumc: {e}");
    }
    let json = format == Format::Json;
    let mut out = std::io::stdout().lock();
    let mut count = std::collections::BTreeMap::<&str, usize>::new();
    for (_, r) in checked {
        *count.entry(r.verdict.as_str()).or_default() += 1;
        let _ = out.write_all(rendered(r, format).as_bytes());
    }
    // Totals of a run over several tests end the output on stdout, as
    // for `suite` and `run` (docs/CLI.md, "Output streams"); `--json`
    // keeps stdout to one report per line, and `--format herd` to herd7's
    // own format, so there they go to stderr (herd) or nowhere (JSON).
    if many && !json && !checked.is_empty() {
        let n = |v: &str| count.get(v).copied().unwrap_or(0);
        // NONE: tests without a condition (no question to answer under
        // --property safety), counted so that every test is in a total.
        let none = match n("NONE") {
            0 => String::new(),
            k => format!(", {k} NONE"),
        };
        let line = format!(
            "{}: {} PASS, {} FAIL, {} UNKNOWN, {} ERROR{none} in {:.2} s",
            count_of(checked.len(), "test"),
            n("PASS"),
            n("FAIL"),
            n("UNKNOWN"),
            n("ERROR"),
            wall_s
        );
        if format == Format::Herd {
            eprintln!("{line}");
        } else {
            let _ = writeln!(out, "{line}");
        }
    }
    let _ = out.flush();
    drop(out);
    if let Some((file, path)) = html {
        let tests: Vec<serde_json::Value> = checked.iter().map(|(_, r)| report_value(r)).collect();
        let meta = gpumc::html::Meta::now("gpumc check", wall_s);
        let page = gpumc::html::verify_report(&meta, &tests, &gpumc::html::execution_graphs());
        if let Err(e) = gpumc::html::finish(file, path, &page) {
            return usage_error(&e);
        }
    }
    if count.contains_key("ERROR") || !errors.is_empty() || checked.is_empty() {
        2
    } else {
        0
    }
}

/// `gpumc merge` of a sharded `check` (its time: the slowest shard's).
fn merge_check(m: &gpumc_scale::Merged, a: &shardcli::MergeArgs) -> u8 {
    let checked = match m
        .records
        .iter()
        .map(check_record)
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    let errors: Vec<String> = m.header.context["errors"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|e| e.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let many = m.header.context["many"].as_bool().unwrap_or(true);
    let html = match a.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    finish_check(
        &checked,
        &errors,
        many,
        a.format(),
        html.map(|f| (f, a.html.as_deref().expect("--html"))),
        m.wall_s,
    )
}

fn run_suite(
    opts: &CheckOpts,
    csv: &Path,
    root: Option<PathBuf>,
    include_disabled: bool,
    shard: &shardcli::ShardOpts,
) -> u8 {
    let sharding = match shard.resolve() {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    let cfg = match config(opts) {
        Ok(c) => Config {
            graph: opts.html.is_some().then(gpumc::html::graph_request),
            ..c
        },
        Err(e) => return usage_error(&e),
    };
    let src = match gpumc::diag::read_text(csv) {
        Ok(s) => s,
        Err(e) => return usage_error(&e.to_string()),
    };
    let rows = match driver::parse_expected_csv(&src, csv) {
        Ok(r) => r,
        Err(e) => return usage_error(&e.to_string()),
    };
    let given_root = root.is_some();
    let root = root.unwrap_or_else(|| {
        csv.parent()
            .and_then(|p| p.parent())
            .map(PathBuf::from)
            .unwrap_or_default()
    });
    // `""`: the current directory (a CSV given as a bare file name).
    let root_shown = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root.as_path()
    };
    if !root_shown.is_dir() {
        return usage_error(&format!(
            "{}: no such directory{} (the CSV's paths are relative to it)",
            root_shown.display(),
            if given_root {
                " (--root)"
            } else {
                " (the default root, the CSV's parent's parent; give --root)"
            }
        ));
    }
    let total_rows = rows.len();
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| include_disabled || !r.disabled)
        .collect();
    let html = match opts.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    if rows.is_empty() {
        return usage_error(&if total_rows == 0 {
            format!("{}: no rows to run (an empty CSV)", csv.display())
        } else {
            format!(
                "{}: no rows to run (all {total_rows} rows are disabled with `; `; --include-disabled runs them)",
                csv.display()
            )
        });
    }
    let ctx = SuiteContext {
        csv: csv.display().to_string(),
        root: root.display().to_string(),
        root_shown: root_shown.display().to_string(),
    };
    let checker = Checker::new(opts);
    let start = Instant::now();
    let json = opts.format() == Format::Json;
    let check_row = |row: &driver::ExpectedRow| -> SuiteResult {
        let path = root.join(&row.path);
        let report = path
            .is_file()
            .then(|| checker.check(&path, &path, &row.config(&cfg)));
        SuiteResult {
            path: row.path.clone(),
            line: row.line,
            expected: row.expected.to_string(),
            report,
        }
    };
    let results: Vec<SuiteResult> = match &sharding {
        None => {
            let bar = Bar::new(rows.len() as u64, !json);
            let results = rows
                .par_iter()
                .map(|row| {
                    let r = check_row(row);
                    bar.inc();
                    r
                })
                .collect();
            bar.finish();
            results
        }
        Some(sh) => {
            // Cost estimate: the test's size times its loop bound.
            let costs: Vec<u64> = rows
                .iter()
                .map(|row| {
                    let size =
                        std::fs::metadata(root.join(&row.path)).map_or(1, |m| m.len().max(1));
                    size * u64::from(row.config(&cfg).bound.max(1))
                })
                .collect();
            let context = serde_json::to_value(&ctx).expect("serialisable");
            let check = |_: usize, row: &driver::ExpectedRow| {
                serde_json::to_value(check_row(row)).map_err(|e| e.to_string())
            };
            match shardcli::run(sh, "suite", context, &rows, &costs, &check) {
                Ok(records) => match records
                    .into_iter()
                    .map(|(_, v)| serde_json::from_value(v))
                    .collect::<Result<Vec<SuiteResult>, _>>()
                {
                    Ok(r) => r,
                    Err(e) => return usage_error(&format!("an unreadable suite record: {e}")),
                },
                Err(e) => return usage_error(&e),
            }
        }
    };
    let wall = start.elapsed().as_secs_f64();
    let html = html.map(|f| (f, opts.html.as_deref().expect("--html")));
    let code = finish_suite(&results, &ctx, opts.format(), html, wall);
    // As for `check`: a finished shard succeeds; the merge gives the status.
    if sharding.is_some() {
        0
    } else {
        code
    }
}

/// What a suite's printed results need beside its rows.
#[derive(serde::Serialize, serde::Deserialize)]
struct SuiteContext {
    csv: String,
    root: String,
    root_shown: String,
}

/// One row of a suite: where it is, what it expects, and its report
/// (`None`: the file is missing).
#[derive(serde::Serialize, serde::Deserialize)]
struct SuiteResult {
    path: String,
    line: usize,
    expected: String,
    report: Option<Rendered>,
}

/// What `suite` prints and writes once its rows are checked (also the
/// merge of a sharded `suite`); the exit status.
fn finish_suite(
    results: &[SuiteResult],
    ctx: &SuiteContext,
    format: Format,
    html: Option<(std::fs::File, &Path)>,
    wall: f64,
) -> u8 {
    let json = format == Format::Json;
    let root = Path::new(&ctx.root);
    let mut html_tests: Vec<serde_json::Value> = Vec::new();
    let (mut passed, mut failed, mut missing) = (0, 0, 0);
    // Rows that expect a verdict from a test without a condition.
    let mut unasked = 0;
    let mut times: Vec<f64> = Vec::new();
    let mut out = std::io::stdout().lock();
    for row in results {
        let Some(r) = &row.report else {
            missing += 1;
            let why = format!(
                "missing: {} (CSV line {}): no such file under {}",
                row.path, row.line, ctx.root_shown
            );
            if json {
                // The row is not lost to a JSON reader: an ERROR object.
                let v = serde_json::json!({
                    "file": root.join(&row.path).display().to_string(),
                    "verdict": "ERROR",
                    "message": why,
                    "expected": row.expected,
                    "agrees": false,
                });
                let _ = writeln!(out, "{v}");
            } else {
                let _ = writeln!(out, "{why}");
            }
            if html.is_some() {
                html_tests.push(serde_json::json!({
                    "file": root.join(&row.path).display().to_string(),
                    "verdict": "MISSING",
                    "expected": row.expected,
                    "agrees": null,
                    "message": why,
                }));
            }
            continue;
        };
        times.push(r.time_ms);
        let ok = r.verdict == row.expected;
        if ok {
            passed += 1;
        } else {
            failed += 1;
            if r.verdict == "NONE" {
                unasked += 1;
            }
        }
        if html.is_some() {
            let mut v = report_value(r);
            v["expected"] = serde_json::Value::String(row.expected.clone());
            v["agrees"] = serde_json::Value::Bool(ok);
            html_tests.push(v);
        }
        if format == Format::Herd {
            let _ = out.write_all(r.herd.as_bytes());
        }
        if format == Format::Json {
            let mut v: serde_json::Value = serde_json::from_str(&r.json).expect("a report");
            v["expected"] = serde_json::Value::String(row.expected.clone());
            v["agrees"] = serde_json::Value::Bool(ok);
            let _ = writeln!(out, "{v}");
        } else if !ok {
            let _ = writeln!(
                out,
                "mismatch: {} expected {} got {}{}",
                row.path,
                row.expected,
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
    // The totals: stdout, but stderr under `--format herd`, whose stdout
    // is herd7's format only (as for `check`).
    let _ = out.flush();
    let mut herd_err = std::io::stderr();
    let out: &mut dyn Write = if format == Format::Herd {
        &mut herd_err
    } else {
        &mut out
    };
    if format != Format::Json {
        let _ = writeln!(
            out,
            "suite {}: {} in {:.2} s wall, median {:.2} ms per test",
            ctx.csv,
            count_of(results.len(), "row"),
            wall,
            median
        );
    }
    if json {
        // JSON lines to the end: the totals are the last object.
        let v = serde_json::json!({
            "suite": ctx.csv,
            "rows": results.len(),
            "passed": passed,
            "failed": failed,
            "missing": missing,
            "wall_s": wall,
            "median_ms": median,
        });
        let _ = writeln!(out, "{v}");
    } else if missing > 0 {
        let _ = writeln!(out, "{passed} passed, {failed} failed, {missing} skipped");
    } else {
        let _ = writeln!(out, "{passed} passed, {failed} failed");
    }
    if let Some((file, path)) = html {
        let mut meta = gpumc::html::Meta::now("gpumc suite", wall);
        meta.facts.push(("expectations".into(), ctx.csv.clone()));
        let page = gpumc::html::verify_report(&meta, &html_tests, &gpumc::html::execution_graphs());
        if let Err(e) = gpumc::html::finish(file, path, &page) {
            return usage_error(&e);
        }
    }
    let _ = out.flush();
    if unasked > 0 {
        eprintln!(
            "gpumc: {unasked} mismatched rows are tests without a condition (NONE under --property safety); if {} expects race verdicts, run it with --property races",
            ctx.csv
        );
    }
    if missing > 0 {
        eprintln!(
            "gpumc: {missing} of {} files named in {} are missing under {}",
            results.len(),
            ctx.csv,
            ctx.root_shown
        );
        2
    } else if failed > 0 {
        1
    } else {
        0
    }
}

/// `gpumc merge` of a sharded `suite` (its wall time: the slowest shard's).
fn merge_suite(m: &gpumc_scale::Merged, a: &shardcli::MergeArgs) -> u8 {
    let ctx: SuiteContext = match serde_json::from_value(m.header.context.clone()) {
        Ok(c) => c,
        Err(e) => return usage_error(&format!("an unreadable suite journal header: {e}")),
    };
    let results = match m
        .records
        .iter()
        .map(|v| serde_json::from_value(v.clone()))
        .collect::<Result<Vec<SuiteResult>, _>>()
    {
        Ok(r) => r,
        Err(e) => return usage_error(&format!("an unreadable suite record: {e}")),
    };
    let html = match a.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    let html = html.map(|f| (f, a.html.as_deref().expect("--html")));
    finish_suite(&results, &ctx, a.format(), html, m.wall_s)
}

/// A report's JSON object for the HTML page (an unreadable one, as an
/// `ERROR` row that says so).
fn report_value(r: &Rendered) -> serde_json::Value {
    serde_json::from_str(&r.json).unwrap_or_else(|e| {
        serde_json::json!({
            "file": r.file,
            "verdict": "ERROR",
            "time_ms": r.time_ms,
            "message": format!("internal error: unreadable report ({e})"),
        })
    })
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

/// `--co total|partial`.
fn parse_co(s: &str) -> Result<gpumc::ir::Coherence, String> {
    match s {
        "total" => Ok(gpumc::ir::Coherence::Total),
        "partial" => Ok(gpumc::ir::Coherence::Partial),
        _ => Err(format!("expected `total` or `partial`, found `{s}`")),
    }
}
