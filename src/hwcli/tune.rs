//! `gpumc tune`: the random parameter search of `gpumc_campaign::tune`,
//! its table, and the best set saved for the device (`--preset tuned`).

use super::{backends, params, run_options, usage_error, HwOpts};
use gpumc::bar::Bar;
use gpumc::driver::{self, ModelCache};
use gpumc_campaign::tune::{best, search};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct TuneArgs {
    #[command(flatten)]
    pub hw: HwOpts,
    /// Random parameter sets to try (after the presets).
    #[arg(long, default_value_t = 20)]
    pub trials: usize,
    /// Save the best set as the device's tuned parameters (`--preset tuned`).
    #[arg(long)]
    pub save: bool,
    /// Also write the best set to this file.
    #[arg(long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// One JSON object per trial, then the best.
    #[arg(long)]
    pub json: bool,
    /// Tests whose weak outcomes are counted (files or directories).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn tune(args: &TuneArgs) -> u8 {
    let files = match driver::expand_paths(&args.paths) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => return usage_error("no litmus tests in the given paths"),
        Err(e) => return usage_error(&e.to_string()),
    };
    let mut tests = Vec::new();
    for f in &files {
        match driver::load_program(f) {
            Ok(p) => tests.push((f.display().to_string(), p)),
            Err(e) => return usage_error(&e.to_string()),
        }
    }
    let mut bs = backends::Backends::new(args.hw.backend, args.hw.device);
    let backend = match bs.for_test(&files[0], &tests[0].1) {
        Ok(b) => b,
        Err((_, e)) => return usage_error(&e),
    };
    let seed = args.hw.seed.unwrap_or(0);
    let opts = match run_options(
        &HwOpts {
            seed: Some(seed),
            ..args.hw.clone()
        },
        backend.info(),
    ) {
        Ok(o) => o,
        Err(e) => return usage_error(&e),
    };
    let device = backend.info().clone();
    let bar = Bar::new(args.trials as u64 + 3, !args.json);
    let trials = search(
        &tests,
        backend,
        &opts,
        args.trials,
        seed,
        &ModelCache::default(),
        &mut |_, _, b| {
            bar.inc();
            bar.set_message(&format!(
                "best so far: {} ({:.0} weak/s)",
                b.name,
                b.score()
            ));
        },
    );
    bar.finish();
    let mut out = std::io::stdout().lock();
    for t in &trials {
        if args.json {
            let mut v = serde_json::to_value(t).unwrap_or_default();
            v["score"] = t.score().into();
            v["cautious_score"] = t.cautious_score().into();
            let _ = writeln!(out, "{v}");
        } else {
            let _ = writeln!(
                out,
                "{:<10} {:>10.1} weak/s  {:>8} weak of {:>9} instances in {:>6.2} s  {} tests weak{}{}",
                t.name,
                t.score(),
                t.weak,
                t.instances,
                t.seconds,
                t.tests_weak,
                if t.violations > 0 { format!(", {} VIOLATIONS", t.violations) } else { String::new() },
                if t.errors > 0 { format!(", {} errors", t.errors) } else { String::new() },
            );
        }
    }
    let Some(b) = best(&trials) else {
        return usage_error("every trial failed; nothing to save");
    };
    let text = serde_json::to_string_pretty(&b.params).unwrap_or_default();
    if !args.json {
        let _ = writeln!(
            out,
            "best on {} ({}): {} at {:.1} weak outcomes/s ({:.1}/s counting two standard deviations fewer, the ranking)",
            device.name,
            device.backend,
            b.name,
            b.score(),
            b.cautious_score()
        );
    }
    // A "best" among trials that all showed nothing is no tuning: saving
    // it would make `--preset tuned` look meaningful when it is not.
    if b.weak == 0 && (args.save || args.out.is_some()) {
        let _ = out.flush();
        eprintln!(
            "gpumc: no trial showed a weak outcome on {} ({} trials): nothing saved; try more --iterations or --trials, or tests whose weak outcome the device can show (docs/HARDWARE.md, \"Campaigns, tuning, mutants\")",
            device.name,
            trials.len()
        );
        return 2;
    }
    let mut targets: Vec<PathBuf> = args.out.iter().cloned().collect();
    if args.save {
        targets.push(params::tuned_file(&device));
    }
    for f in targets {
        if let Some(dir) = f.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&f, &text) {
            return usage_error(&format!("{}: {e}", f.display()));
        }
        if !args.json {
            let _ = writeln!(out, "saved to {}", f.display());
        }
    }
    if args.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::json!({"best": b.name, "score": b.score(), "params": b.params, "device": device.name})
        );
    }
    u8::from(trials.iter().any(|t| t.violations > 0))
}
