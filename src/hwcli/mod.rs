//! `gpumc run` and `gpumc devices`: litmus tests on GPU hardware
//! (`gpumc_hw`), judged by the model (`gpumc_campaign`).

mod backends;
pub mod mutants;
mod params;
pub mod tune;

use gpumc::bar::Bar;
use gpumc::driver::{self, ModelCache};
use gpumc_campaign::journal::{self, Journal};
use gpumc_campaign::report::{render_text, Status, TestReport};
use gpumc_campaign::runner::{run_program, InProcess, Judging, RunOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

pub use backends::BackendChoice;

/// Options shared by `run`, `tune` and `mutants`.
#[derive(clap::Args, Clone, Debug)]
pub struct HwOpts {
    /// Backend: vulkan (any Vulkan 1.2+ GPU with the Vulkan memory model, or Mesa's lavapipe on the CPU),
    /// cuda (NVIDIA), or interp (gpumc's sequentially consistent reference
    /// interpreter of the harness, no GPU). Default: vulkan for Vulkan
    /// tests, cuda for PTX tests.
    #[arg(long)]
    pub backend: Option<BackendChoice>,
    /// Device index (`gpumc devices` lists them).
    #[arg(long)]
    pub device: Option<usize>,
    /// Launches per test; each launch runs many test instances.
    #[arg(long, default_value_t = 100)]
    pub iterations: u64,
    /// Parameter preset: parallel (many instances, every incantation),
    /// sorensen (one instance per launch, Sorensen's incantations), plain
    /// (many instances, no incantation), tuned (the best `gpumc tune`
    /// saved for the device).
    #[arg(long, default_value = "parallel")]
    pub preset: String,
    /// Parameters from a JSON file (as `--json` reports print them); they
    /// replace the preset's.
    #[arg(long, value_name = "FILE.json")]
    pub params: Option<PathBuf>,
    /// Set one parameter, e.g. `--set stress_iterations=256` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Seed of every random choice (default: from the clock; reported).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Longest one launch may take before it is abandoned, seconds.
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub watchdog: f64,
    /// Model the observed states are judged by (default: ptx-v7.5 for PTX,
    /// vulkan for Vulkan).
    #[arg(long)]
    pub model: Option<String>,
    /// Time limit of each model check, seconds (a state it cannot decide in
    /// time is reported as undecided).
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Memory budget of each model check, MiB (0: none).
    #[arg(long, default_value_t = 2048, value_name = "MB")]
    pub max_memory: u64,
    /// Largest loop bound the model check unrolls to when an observed
    /// state needs more iterations.
    #[arg(long, default_value_t = 4)]
    pub max_bound: u32,
}

#[derive(clap::Args, Clone, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub hw: HwOpts,
    /// JSON lines: one report object per test (docs/JSON.md).
    #[arg(long)]
    pub json: bool,
    /// Campaign directory: results are appended to DIR/results.jsonl as
    /// they arrive; running again resumes, skipping finished tests.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run every test on each of these backends in turn (a campaign
    /// across devices: `--backends vulkan,interp`); with `--out DIR`, each
    /// backend's journal is DIR/BACKEND. Compare them with `gpumc results`.
    #[arg(long, value_delimiter = ',', conflicts_with = "backend")]
    pub backends: Vec<BackendChoice>,
    /// Also add every test's result to this results database (SQLite,
    /// created if absent; `gpumc results` queries it).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Report unsupported tests without making the exit status 2.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// Also write each test's generated kernel into DIR (NAME.spv for
    /// Vulkan — `spirv-dis` shows it —, NAME.ptx for PTX).
    #[arg(long, value_name = "DIR")]
    pub emit: Option<PathBuf>,
    /// Also write a self-contained HTML report to FILE: per test a bar
    /// chart of the outcomes coloured by the model's judgement.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Litmus files or directories (recursively *.litmus).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub shard: crate::shardcli::ShardOpts,
}

#[derive(clap::Args, Clone, Debug)]
pub struct DevicesArgs {
    /// Only this backend.
    #[arg(long)]
    pub backend: Option<BackendChoice>,
    /// JSON lines: one object per device.
    #[arg(long)]
    pub json: bool,
}

fn usage_error(msg: &str) -> u8 {
    eprintln!("gpumc: {msg}");
    2
}

/// The options of a run, from the command line (and the device, for
/// `--preset tuned`).
pub fn run_options(
    hw: &HwOpts,
    device: &gpumc_hw::backend::DeviceInfo,
) -> Result<RunOptions, String> {
    if !(hw.watchdog > 0.0 && hw.watchdog.is_finite()) {
        return Err(format!(
            "bad --watchdog `{}` (expected seconds > 0)",
            hw.watchdog
        ));
    }
    if !(hw.timeout >= 0.0 && hw.timeout.is_finite()) {
        return Err(format!(
            "bad --timeout `{}` (expected seconds, 0 for none)",
            hw.timeout
        ));
    }
    if let Some(m) = &hw.model {
        gpumc::models::load(m).map_err(|e| e.to_string())?;
    }
    let (params, preset) = params::resolve(hw, device)?;
    Ok(RunOptions {
        model: hw.model.clone(),
        iterations: hw.iterations,
        params,
        preset,
        seed: hw.seed.unwrap_or_else(clock_seed),
        watchdog: Duration::from_secs_f64(hw.watchdog),
        model_limits: gpumc::guard::Limits {
            timeout_s: (hw.timeout > 0.0).then_some(hw.timeout),
            max_memory_mb: (hw.max_memory > 0).then_some(hw.max_memory),
            ..gpumc::guard::Limits::none()
        },
        max_bound: hw.max_bound.max(1),
        emit: None,
    })
}

fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `gpumc run`.
pub fn run(args: &RunArgs) -> u8 {
    if !args.backends.is_empty() && (args.shard.shard.is_some() || args.shard.shard_out.is_some()) {
        return usage_error("--backends with --shard: shard one backend at a time (--backend B)");
    }
    if !args.backends.is_empty() {
        if args.html.is_some() {
            return usage_error(
                "--html with --backends: one page per run; `gpumc results --html` compares the devices of a results database",
            );
        }
        // The worst exit status of the backends' runs.
        let mut code = 0;
        for b in &args.backends {
            let mut one = args.clone();
            one.backends.clear();
            one.hw.backend = Some(*b);
            one.out = args.out.as_ref().map(|d| d.join(b.name()));
            code = code.max(run(&one));
        }
        return code;
    }
    let sharding = match args.shard.resolve() {
        Ok(s) => s,
        Err(e) => return usage_error(&e),
    };
    if sharding.is_some() && args.hw.seed.is_none() {
        return usage_error(
            "--shard needs --seed S, the same for every shard (each test's seed derives from it and the file)",
        );
    }
    let files = match driver::expand_paths(&args.paths) {
        Ok(f) => f,
        Err(e) => return usage_error(&e.to_string()),
    };
    if files.is_empty() {
        return usage_error("no litmus tests in the given paths");
    }
    // A shard runs its part of the files (balanced by size) and journals
    // each report; run again, it skips the reports already there.
    let mut shard_journal = None;
    let mut shard_done = std::collections::BTreeMap::new();
    let mut mine: Option<std::collections::BTreeSet<usize>> = None;
    if let Some(sh) = &sharding {
        let costs: Vec<u64> = files
            .iter()
            .map(|f| std::fs::metadata(f).map_or(1, |m| m.len().max(1)))
            .collect();
        let header = gpumc_scale::Header {
            command: "run".into(),
            fingerprint: crate::shardcli::fingerprint(),
            shard: sh.shard.index,
            shards: sh.shard.count,
            items: files.len(),
            context: serde_json::json!({ "skip_unsupported": args.skip_unsupported }),
        };
        match gpumc_scale::Journal::open(&sh.dir, &header) {
            Ok((j, done)) => {
                shard_journal = Some(j);
                shard_done = done;
            }
            Err(e) => return usage_error(&e),
        }
        mine = Some(gpumc_scale::select(&costs, sh.shard).into_iter().collect());
    }
    let html = match args.html.as_deref().map(gpumc::html::create).transpose() {
        Ok(h) => h,
        Err(e) => return usage_error(&e),
    };
    let start = std::time::Instant::now();
    let mut journal = match &args.out {
        Some(dir) => match Journal::open(dir) {
            Ok(j) => Some(j),
            Err(e) => return usage_error(&format!("{}: {e}", dir.display())),
        },
        None => None,
    };
    let seed = args.hw.seed.unwrap_or_else(clock_seed);
    let hw = HwOpts {
        seed: Some(seed),
        ..args.hw.clone()
    };
    let mut store = match &args.db {
        Some(p) => match gpumc_campaign::store::Store::open(p) {
            Ok(s) => Some(s),
            Err(e) => return usage_error(&e),
        },
        None => None,
    };
    let date = gpumc::html::utc_now();
    let mut backends = backends::Backends::new(hw.backend, hw.device);
    let cache = ModelCache::default();
    // Observed states are judged in worker processes (gpumc::isolate), so
    // that a model check that aborts loses one test's verdicts only.
    let pool = std::env::current_exe()
        .ok()
        .filter(|_| cfg!(unix))
        .map(gpumc::isolate::Pool::new);
    let judging: &dyn Judging = match &pool {
        Some(p) => p,
        None => &InProcess,
    };
    let bar = Bar::new(
        mine.as_ref().map_or(files.len(), |m| m.len()) as u64,
        !args.json,
    );
    let mut reports: Vec<TestReport> = Vec::new();
    let mut out = std::io::stdout().lock();
    for (index, f) in files.iter().enumerate() {
        if mine.as_ref().is_some_and(|m| !m.contains(&index)) {
            continue;
        }
        if let Some(record) = shard_done.get(&index) {
            // Done by an earlier run of this shard.
            match serde_json::from_value::<TestReport>(record["report"].clone()) {
                Ok(r) => {
                    bar.inc();
                    print_report(&r, args.json, &bar, &mut out);
                    reports.push(r);
                    continue;
                }
                Err(e) => return usage_error(&format!("an unreadable run record: {e}")),
            }
        }
        let file = f.display().to_string();
        bar.set_message(short(&file));
        // Read once: the dialect picks the backend, the program runs.
        let program = driver::load_program(f);
        let mut ran_now = false;
        let report = match program
            .as_ref()
            .map_err(|e| (Status::Error, e.to_string()))
            .and_then(|p| backends.for_test(f, p).map(|b| (p, b)))
        {
            Err(e) => TestReport::failed(&file, e.0, e.1),
            Ok((p, backend)) => match run_options(&hw, backend.info()) {
                Err(e) => return usage_error(&e),
                Ok(mut opts) => {
                    opts.emit = args.emit.clone();
                    let key = journal::key(
                        f,
                        &[
                            &backend.info().backend,
                            &backend.info().name,
                            opts.model.as_deref().unwrap_or(""),
                            &serde_json::to_string(&opts.params).unwrap_or_default(),
                            &opts.iterations.to_string(),
                            &opts.seed.to_string(),
                            &opts.max_bound.to_string(),
                        ],
                    );
                    let crashed = journal
                        .as_ref()
                        .is_some_and(|j| j.unfinished_starts(&key) >= 2);
                    match journal.as_ref().and_then(|j| j.get(&key)) {
                        Some(done) => done.clone(),
                        None if crashed => {
                            let r = TestReport::failed(
                                &file,
                                Status::Error,
                                format!(
                                    "{file}: this test stopped gpumc twice in earlier runs of this campaign (e.g. a model check out of memory); not run again"
                                ),
                            );
                            if let Some(j) = journal.as_mut() {
                                if let Err(e) = j.append(&key, &r) {
                                    bar.finish();
                                    return usage_error(&format!("{}: {e}", j.path().display()));
                                }
                            }
                            r
                        }
                        None => {
                            if let Some(j) = journal.as_mut() {
                                if let Err(e) = j.start(&key) {
                                    bar.finish();
                                    return usage_error(&format!("{}: {e}", j.path().display()));
                                }
                            }
                            // (a report from the journal is already in the
                            // database: only this one is added)
                            ran_now = true;
                            let total = opts.iterations;
                            let r =
                                run_program(&file, p, backend, &opts, &cache, judging, &mut |n| {
                                    bar.set_sub(n, total)
                                });
                            if let Some(j) = journal.as_mut() {
                                if let Err(e) = j.append(&key, &r) {
                                    bar.finish();
                                    return usage_error(&format!("{}: {e}", j.path().display()));
                                }
                            }
                            r
                        }
                    }
                }
            },
        };
        bar.inc();
        if let Some(s) = store.as_mut() {
            // (a test that did not run has no device to file it under)
            if ran_now && matches!(report.status, Status::Ok | Status::Violation) {
                let driver = backends.driver_of(&report.backend).unwrap_or_default();
                let from = gpumc_campaign::store::Provenance {
                    driver: &driver,
                    date: &date,
                    source: "gpumc run",
                };
                if let Err(e) = s.add(&report, &from) {
                    bar.finish();
                    return usage_error(&e);
                }
            }
        }
        if let Some(j) = shard_journal.as_mut() {
            let driver = backends.driver_of(&report.backend).unwrap_or_default();
            let record = serde_json::json!({ "report": report, "driver": driver, "ran": ran_now });
            if let Err(e) = j.append(index, &record) {
                bar.finish();
                return usage_error(&e);
            }
        }
        print_report(&report, args.json, &bar, &mut out);
        reports.push(report);
    }
    bar.finish();
    let code = summarize(&reports, args.json, args.skip_unsupported, &mut out);
    if let Some(j) = shard_journal.as_mut() {
        if let Err(e) = j.finish(reports.len(), start.elapsed().as_secs_f64()) {
            return usage_error(&e);
        }
    }
    if let (Some(file), Some(path)) = (html, &args.html) {
        let tests: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or_default())
            .collect();
        let meta = gpumc::html::Meta::now("gpumc run", start.elapsed().as_secs_f64());
        if let Err(e) = gpumc::html::finish(file, path, &gpumc::html::run_report(&meta, &tests)) {
            return usage_error(&e);
        }
    }
    // A finished shard succeeds; `gpumc merge` gives the campaign's status.
    if sharding.is_some() {
        0
    } else {
        code
    }
}

/// One test's report on stdout, past the progress bar.
fn print_report(r: &TestReport, json: bool, bar: &Bar, out: &mut impl Write) {
    let text = if json {
        serde_json::to_string(r).unwrap_or_default() + "\n"
    } else {
        render_text(r) + "\n"
    };
    bar.suspend(|| {
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    });
}

/// `gpumc merge` of a sharded `run`: every report in file order, the
/// totals and status, `--html`, and with `--db` the reports of the tests
/// the shards ran added to the results database.
pub fn merge_run(m: &gpumc_scale::Merged, a: &crate::shardcli::MergeArgs) -> u8 {
    let mut reports = Vec::new();
    let mut drivers = Vec::new();
    for v in &m.records {
        match serde_json::from_value::<TestReport>(v["report"].clone()) {
            Ok(r) => {
                drivers.push((
                    v["driver"].as_str().unwrap_or_default().to_string(),
                    v["ran"].as_bool().unwrap_or(false),
                ));
                reports.push(r);
            }
            Err(e) => return usage_error(&format!("an unreadable run record: {e}")),
        }
    }
    let json = a.format() == crate::Format::Json;
    let bar = Bar::new(0, false);
    let mut out = std::io::stdout().lock();
    for r in &reports {
        print_report(r, json, &bar, &mut out);
    }
    let skip = m.header.context["skip_unsupported"]
        .as_bool()
        .unwrap_or(false);
    let code = summarize(&reports, json, skip, &mut out);
    if let Some(path) = &a.db {
        let mut store = match gpumc_campaign::store::Store::open(path) {
            Ok(s) => s,
            Err(e) => return usage_error(&e),
        };
        let date = gpumc::html::utc_now();
        for (r, (driver, ran)) in reports.iter().zip(&drivers) {
            if *ran && matches!(r.status, Status::Ok | Status::Violation) {
                let from = gpumc_campaign::store::Provenance {
                    driver,
                    date: &date,
                    source: "gpumc run (sharded)",
                };
                if let Err(e) = store.add(r, &from) {
                    return usage_error(&e);
                }
            }
        }
    }
    if let Some(path) = &a.html {
        let file = match gpumc::html::create(path) {
            Ok(f) => f,
            Err(e) => return usage_error(&e),
        };
        let tests: Vec<serde_json::Value> = reports
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or_default())
            .collect();
        let meta = gpumc::html::Meta::now("gpumc run", m.wall_s);
        if let Err(e) = gpumc::html::finish(file, path, &gpumc::html::run_report(&meta, &tests)) {
            return usage_error(&e);
        }
    }
    code
}

fn short(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// Totals, and the exit status: 1 for a violation, 2 for an error (or an
/// unsupported test without `--skip-unsupported`), else 0.
fn summarize(
    reports: &[TestReport],
    json: bool,
    skip_unsupported: bool,
    out: &mut impl Write,
) -> u8 {
    let count = |s: Status| reports.iter().filter(|r| r.status == s).count();
    let (ok, viol, unsup, err) = (
        count(Status::Ok),
        count(Status::Violation),
        count(Status::Unsupported),
        count(Status::Error),
    );
    if !json {
        let instances: u64 = reports.iter().map(TestReport::total).sum();
        let secs: f64 = reports.iter().map(|r| r.elapsed_s).sum();
        let _ = writeln!(
            out,
            "{}: {ok} conform, {viol} with violations, {unsup} unsupported, {err} errors; {instances} instances in {secs:.1} s",
            crate::count_of(reports.len(), "test")
        );
    }
    if viol > 0 {
        1
    } else if err > 0 || (unsup > 0 && !skip_unsupported) {
        2
    } else {
        0
    }
}

/// `gpumc devices`.
pub fn devices(args: &DevicesArgs) -> u8 {
    let mut out = std::io::stdout().lock();
    let mut any = false;
    for (choice, list) in backends::list(args.backend) {
        match list {
            Ok(devs) => {
                for (i, d) in devs.iter().enumerate() {
                    any = true;
                    if args.json {
                        let mut v = serde_json::to_value(d).unwrap_or_default();
                        v["index"] = i.into();
                        let _ = writeln!(out, "{v}");
                    } else {
                        let _ = writeln!(
                            out,
                            "{} {i}: {} (driver {}, subgroup {}, workgroups of up to {}{})",
                            choice.name(),
                            d.name,
                            d.driver,
                            d.subgroup_size,
                            d.max_workgroup_size,
                            d.compute_units
                                .map(|c| format!(", {c} compute units"))
                                .unwrap_or_default()
                        );
                    }
                }
            }
            Err(e) => {
                if !args.json {
                    let _ = writeln!(out, "{}: {e}", choice.name());
                }
            }
        }
    }
    if any {
        0
    } else {
        2
    }
}
