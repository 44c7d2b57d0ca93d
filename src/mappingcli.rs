//! `gpumc mapping check`: bounded soundness of a compilation mapping
//! (docs/MAPPING.md, "Soundness checking"): every scoped C program up to
//! `--events` events compiled with the mapping, every execution the target
//! model allows lifted back, a race-free lift that violates the source
//! axiom reported as a pair of litmus tests.

use gpumc::bar::Bar;
use gpumc::compile::Mapping;
use gpumc::mapping::enumerate::Space;
use gpumc::mapping::report::{self, Header};
use gpumc::mapping::search::{self, Engine};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(clap::Args)]
pub struct MappingArgs {
    #[command(subcommand)]
    cmd: MappingCmd,
}

#[derive(clap::Subcommand)]
enum MappingCmd {
    /// Bounded soundness (Lustig et al., ASPLOS'19, sec. 5.2 and 6.1): for
    /// every source program up to --events events, every execution of its
    /// compilation that the target model allows, lifted back to the source,
    /// must not be a race-free violation of the source axiom. Exit status 0:
    /// no counterexample; 1: a counterexample; 2: bad input.
    Check(CheckArgs),
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The source model: scoped-c11 (Lustig et al., ASPLOS'19 Fig. 10) or
    /// a .cat file over the C dialect's events.
    #[arg(long, default_value = "scoped-c11", value_name = "MODEL")]
    from: String,
    /// The target model: ptx-v6.0, ptx-v7.5, vulkan (or a .cat file for
    /// the mapping's target dialect).
    #[arg(long, value_name = "MODEL")]
    to: String,
    /// The mapping: a built-in name (ptx: Lustig et al., ASPLOS'19 Fig. 11;
    /// vulkan: ours) or a .map file. Default: the built-in of the target.
    #[arg(long, value_name = "NAME|FILE")]
    mapping: Option<String>,
    /// The bound: source programs with at most this many events (reads,
    /// writes and fences; an RMW is two).
    #[arg(long, value_name = "N")]
    events: usize,
    /// The source axiom to check (coherence, atomicity, sc, ...), or all
    /// (every axiom but no-thin-air, each checked on its own).
    #[arg(long, default_value = "all", value_name = "AXIOM")]
    axiom: String,
    /// De-scoped (the paper's Fig. 17b): every atomic and fence at system
    /// scope.
    #[arg(long)]
    descoped: bool,
    /// No seq_cst loads and stores (seq_cst RMWs and fences remain): the
    /// space of Lustig et al.'s Alloy check, whose Theorem 3 rewrites an
    /// SC access as an SC fence and an acquire/release access first.
    #[arg(long)]
    no_sc_accesses: bool,
    /// symbolic (one SAT query per program shape, orders, scopes and
    /// placement open) or explicit (every program, every execution).
    #[arg(long, default_value = "symbolic", value_name = "ENGINE")]
    engine: String,
    /// Write each counterexample as DIR/AXIOM-source.litmus and
    /// DIR/AXIOM-target.litmus.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// One JSON object per axiom (docs/JSON.md).
    #[arg(long)]
    json: bool,
}

pub fn run(a: &MappingArgs) -> u8 {
    match &a.cmd {
        MappingCmd::Check(c) => check(c),
    }
}

fn fail(msg: impl std::fmt::Display) -> u8 {
    eprintln!("gpumc: {msg}");
    2
}

/// The dialect an embedded target model is written for.
fn model_dialect(name: &str) -> Option<gpumc::compile::Target> {
    let stem = std::path::Path::new(name)
        .file_name()
        .and_then(|s| s.to_str())
        .unwrap_or(name);
    if stem.starts_with("ptx") {
        Some(gpumc::compile::Target::Ptx)
    } else if stem.starts_with("vulkan") {
        Some(gpumc::compile::Target::Vulkan)
    } else {
        None
    }
}

fn check(a: &CheckArgs) -> u8 {
    let engine = match a.engine.as_str() {
        "symbolic" => Engine::Symbolic,
        "explicit" => Engine::Explicit,
        e => {
            return fail(format!(
                "unknown engine `{e}` (expected symbolic or explicit)"
            ))
        }
    };
    if a.events == 0 {
        return fail("--events must be at least 1");
    }
    if a.events > 8 {
        return fail(format!(
            "--events {} is beyond what the search can enumerate (at most 8)",
            a.events
        ));
    }
    let source_model = match gpumc::models::load(&a.from) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let target_model = match gpumc::models::load(&a.to) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let mapping = match &a.mapping {
        Some(m) => match Mapping::load(m) {
            Ok(m) => m,
            Err(e) => return fail(e),
        },
        None => match model_dialect(&a.to) {
            Some(t) => Mapping::default_for(t),
            None => {
                return fail(format!(
                    "--to {}: name the mapping (--mapping) for a target model of no known dialect",
                    a.to
                ))
            }
        },
    };
    if let Some(t) = model_dialect(&a.to) {
        if t != mapping.target {
            return fail(format!(
                "mapping {} compiles to {}, but the target model {} is for {}",
                mapping.describe(),
                mapping.target,
                a.to,
                t
            ));
        }
    }
    let uncovered = mapping.uncovered();
    if !uncovered.is_empty() {
        return fail(format!(
            "mapping {} covers no rule for {} operation(s) (see gpumc compile --check-mapping)",
            mapping.describe(),
            uncovered.len()
        ));
    }
    let axioms = match gpumc::mapping::axioms(&source_model, &a.axiom) {
        Ok(v) => v,
        Err(e) => return fail(e),
    };
    if let Some(dir) = &a.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(format!("{}: {e}", dir.display()));
        }
    }
    let mut space = Space::new(a.events);
    space.descoped = a.descoped;
    space.sc_accesses = !a.no_sc_accesses;
    // Scope normalisation only where it is exact for every mapping: never.
    space.normalize_scopes = false;
    let header = Header {
        from: a.from.clone(),
        to: a.to.clone(),
        mapping: mapping.describe(),
        events: a.events,
        descoped: a.descoped,
        engine,
    };
    if !a.json {
        eprintln!(
            "gpumc mapping check: {} -> {} with mapping {}, up to {} events{} ({} engine)",
            header.from,
            header.to,
            header.mapping,
            header.events,
            if a.descoped { ", de-scoped" } else { "" },
            engine.name()
        );
    }
    let mut code = 0u8;
    for axiom in &axioms {
        let bar = Bar::new(0, !a.json);
        if bar.is_drawn() {
            bar.set_length(search::units(&space, engine));
            bar.set_message(axiom);
        }
        let done = AtomicU64::new(0);
        let progress = |s: &gpumc::mapping::explicit::Stats,
                        y: &gpumc::mapping::symbolic::SymStats| {
            let now = match engine {
                Engine::Symbolic => y.shapes,
                Engine::Explicit => s.programs,
            };
            let before = done.swap(now, Ordering::Relaxed);
            bar.inc_by(now.saturating_sub(before));
        };
        let models = gpumc::mapping::Models {
            source: &source_model,
            target: &target_model,
        };
        let out =
            match gpumc::mapping::check_axiom(models, &mapping, axiom, &space, engine, &progress) {
                Ok(o) => o,
                Err(e) => {
                    bar.finish();
                    return fail(e);
                }
            };
        bar.finish();
        if let (Some(dir), Some(cx)) = (&a.out, &out.counterexample) {
            let src = dir.join(format!("{axiom}-source.litmus"));
            let tgt = dir.join(format!("{axiom}-target.litmus"));
            let target = report::target_litmus(
                cx,
                &format!("{axiom}-target"),
                &format!(
                    "Compiled from {axiom}-source.litmus by mapping {} (gpumc mapping check)",
                    header.mapping
                ),
            );
            let written =
                std::fs::write(&src, report::source_litmus(cx, &format!("{axiom}-source")))
                    .and_then(|_| std::fs::write(&tgt, target.unwrap_or_default()));
            if let Err(e) = written {
                return fail(format!("{}: {e}", dir.display()));
            }
            if !a.json {
                eprintln!("wrote {} and {}", src.display(), tgt.display());
            }
        }
        if out.counterexample.is_some() {
            code = 1;
        }
        let text = if a.json {
            format!("{}\n", report::json(&header, axiom, &out))
        } else {
            report::text(&header, axiom, &out)
        };
        // A closed pipe (`| head`) ends the run quietly.
        let mut stdout = std::io::stdout().lock();
        if stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush())
            .is_err()
        {
            return code;
        }
    }
    code
}
