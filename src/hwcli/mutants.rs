//! `gpumc mutants`: the mutation score of the harness on a device —
//! mutants of conformance tests (`gpumc_campaign::mutants`) run on the
//! hardware; a mutant is killed when its weak outcome shows.

use super::{backends, run_options, usage_error, HwOpts};
use gpumc::bar::Bar;
use gpumc::driver::{self, ModelCache};
use gpumc_campaign::mutants::mutants;
use gpumc_campaign::report::Status;
use gpumc_campaign::runner::{run_program, InProcess};
use gpumc_campaign::tune::weak_count;
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct MutantsArgs {
    #[command(flatten)]
    pub hw: HwOpts,
    /// Write each mutant as a litmus file into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Only generate (and write) the mutants; run nothing.
    #[arg(long)]
    pub list: bool,
    /// One JSON object per mutant, then the score.
    #[arg(long)]
    pub json: bool,
    /// Conformance tests (files or directories).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
}

pub fn run(args: &MutantsArgs) -> u8 {
    let files = match driver::expand_paths(&args.paths) {
        Ok(f) if !f.is_empty() => f,
        Ok(_) => return usage_error("no litmus tests in the given paths"),
        Err(e) => return usage_error(&e.to_string()),
    };
    let cache = ModelCache::default();
    let limits = gpumc::guard::Limits {
        timeout_s: (args.hw.timeout > 0.0).then_some(args.hw.timeout),
        max_memory_mb: (args.hw.max_memory > 0).then_some(args.hw.max_memory),
        ..gpumc::guard::Limits::none()
    };
    let mut all = Vec::new();
    for f in &files {
        let src = match gpumc::diag::read_text(f) {
            Ok(s) => s,
            Err(e) => return usage_error(&e.to_string()),
        };
        let arch = match driver::load_program(f) {
            Ok(p) => p.arch,
            Err(e) => return usage_error(&e.to_string()),
        };
        let model_name = args
            .hw
            .model
            .clone()
            .unwrap_or_else(|| arch.default_model().to_string());
        let model = match cache.get(&model_name) {
            Ok(m) => m,
            Err(e) => return usage_error(&e.to_string()),
        };
        for m in mutants(f, &src, &model, limits) {
            all.push((f.clone(), m));
        }
    }
    if let Some(dir) = &args.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return usage_error(&format!("{}: {e}", dir.display()));
        }
        for (_, m) in &all {
            let p = dir.join(format!("{}.litmus", m.name));
            if let Err(e) = std::fs::write(&p, &m.text) {
                return usage_error(&format!("{}: {e}", p.display()));
            }
        }
    }
    let mut out = std::io::stdout().lock();
    if args.list {
        for (f, m) in &all {
            let _ = writeln!(out, "{} {}: {}", f.display(), m.name, m.change);
        }
        let _ = writeln!(out, "{} mutants of {} tests", all.len(), files.len());
        return 0;
    }
    if all.is_empty() {
        return usage_error("no mutants: none of the tests has a weak outcome the model forbids (conformance tests)");
    }
    let mut bs = backends::Backends::new(args.hw.backend, args.hw.device);
    let bar = Bar::new(all.len() as u64, !args.json);
    let (mut killed, mut ran, mut errors) = (0usize, 0usize, 0usize);
    let mut device = String::new();
    for (f, m) in &all {
        bar.set_message(&m.name);
        let backend = match bs.for_test(f, &m.program) {
            Ok(b) => b,
            Err((_, e)) => return usage_error(&e),
        };
        device = format!("{} ({})", backend.info().name, backend.info().backend);
        let opts = match run_options(&args.hw, backend.info()) {
            Ok(o) => o,
            Err(e) => return usage_error(&e),
        };
        let file = format!("{}#{}", f.display(), m.name);
        let r = run_program(
            &file,
            &m.program,
            backend,
            &opts,
            &cache,
            &InProcess,
            &mut |n| bar.set_sub(n, opts.iterations),
        );
        bar.inc();
        let weak = weak_count(&m.program, &r);
        let ok = matches!(r.status, Status::Ok | Status::Violation);
        if ok {
            ran += 1;
            killed += usize::from(weak > 0);
        } else {
            errors += 1;
        }
        let line = if args.json {
            serde_json::json!({
                "mutant": m.name, "of": f.display().to_string(), "change": m.change,
                "status": r.status, "killed": ok && weak > 0, "weak": weak,
                "instances": r.total(), "rate_per_s": r.rate_per_s, "message": r.message,
            })
            .to_string()
        } else if ok {
            format!(
                "{}: {} — {} ({} weak of {} instances)",
                m.name,
                m.change,
                if weak > 0 { "killed" } else { "survived" },
                weak,
                r.total()
            )
        } else {
            format!(
                "{}: {} — not run: {}",
                m.name,
                m.change,
                r.message.unwrap_or_default()
            )
        };
        bar.suspend(|| {
            let _ = writeln!(out, "{line}");
        });
    }
    bar.finish();
    let pct = if ran > 0 {
        100.0 * killed as f64 / ran as f64
    } else {
        0.0
    };
    if args.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::json!({"device": device, "mutants": all.len(), "ran": ran, "killed": killed, "score": pct / 100.0, "errors": errors})
        );
    } else {
        let _ = writeln!(
            out,
            "Mutation score on {device}: {killed}/{ran} killed ({pct:.1}%){}",
            if errors > 0 {
                format!(", {errors} mutants not run")
            } else {
                String::new()
            }
        );
    }
    u8::from(errors > 0) * 2
}
