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
    /// no counterexample; 1: a counterexample; 2: bad input; 3: no
    /// counterexample, but --timeout stopped some axiom's search.
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
    /// Straight-line programs only (the space of Lustig et al.'s Alloy
    /// model). By default, where the source or the target model reads
    /// `ctrl`, each read that is not its thread's last may be followed by
    /// a branch on the value it read (a control dependency).
    #[arg(long)]
    no_branches: bool,
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
    /// Stop each axiom's search after this many seconds (0: no limit). An
    /// axiom stopped without a counterexample is reported as undecided,
    /// with how far the search got; exit status 3 when no axiom had a
    /// counterexample but some was undecided.
    #[arg(long, default_value_t = 0.0, value_name = "SECONDS")]
    timeout: f64,
    #[command(flatten)]
    shard: crate::shardcli::ShardOpts,
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
    let sharding = match a.shard.resolve() {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if sharding.is_some() && a.timeout > 0.0 {
        return fail("--timeout is not available with --shard: a shard stopped early would leave its part unchecked; give the job engine's time limit instead (Slurm --time, a Job's activeDeadlineSeconds), and a shard that did not finish is named by `gpumc merge`");
    }
    if !(a.timeout >= 0.0 && a.timeout.is_finite()) {
        return fail(format!(
            "--timeout {}: expected seconds, 0 or more",
            a.timeout
        ));
    }
    if sharding.is_some() && a.out.is_some() {
        return fail("--out is not available with --shard: give it to `gpumc merge`, which writes the counterexample that the unsharded run would");
    }
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
    space.branches = !a.no_branches
        && (gpumc::mapping::uses_ctrl(&source_model) || gpumc::mapping::uses_ctrl(&target_model));
    // Scope normalisation only where it is exact for every mapping: never.
    space.normalize_scopes = false;
    let header = Header {
        from: a.from.clone(),
        to: a.to.clone(),
        mapping: mapping.describe(),
        events: a.events,
        descoped: a.descoped,
        branches: space.branches,
        engine,
    };
    if !a.json {
        eprintln!("{}", header.banner());
    }
    if let Some(sh) = &sharding {
        return check_shard(
            a,
            sh,
            &header,
            &axioms,
            &space,
            &source_model,
            &target_model,
            &mapping,
        );
    }
    let mut code = 0u8;
    let mut undecided = false;
    for axiom in &axioms {
        let deadline = (a.timeout > 0.0)
            .then(|| std::time::Instant::now() + std::time::Duration::from_secs_f64(a.timeout));
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
        let out = match gpumc::mapping::check_axiom_selected(
            models,
            &mapping,
            axiom,
            &space,
            engine,
            &progress,
            &|_| true,
            deadline,
        ) {
            Ok(o) => o,
            Err(e) => {
                bar.finish();
                return fail(e);
            }
        };
        undecided |= out.timed_out;
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
        if !print(&text) {
            return code;
        }
    }
    // A counterexample is an answer; an axiom stopped by --timeout is not.
    if code == 0 && undecided {
        3
    } else {
        code
    }
}

/// Prints `text`; false when stdout is closed (`| head`), which ends the
/// run quietly.
fn print(text: &str) -> bool {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .is_ok()
}

/// One shard of a mapping check: for each axiom, the search over this
/// shard's programs (or shapes), as one journal record — its effort, and
/// its first counterexample with that counterexample's place in the whole
/// enumeration, so that the merge picks the one the unsharded search finds.
#[allow(clippy::too_many_arguments)]
fn check_shard(
    a: &CheckArgs,
    sh: &crate::shardcli::Sharding,
    header: &Header,
    axioms: &[String],
    space: &Space,
    source_model: &gpumc::cat::Model,
    target_model: &gpumc::cat::Model,
    mapping: &Mapping,
) -> u8 {
    let engine = header.engine;
    let costs = search::unit_costs(space, engine);
    let mine: std::collections::HashSet<u64> = gpumc_scale::select(&costs, sh.shard)
        .into_iter()
        .map(|i| i as u64)
        .collect();
    // Items: (axiom, shard) pairs, so that each shard holds its own
    // record of every axiom.
    let n = sh.shard.count;
    let items: Vec<(usize, usize)> = (0..axioms.len())
        .flat_map(|x| (0..n).map(move |k| (x, k)))
        .collect();
    let context = serde_json::json!({
        "from": header.from,
        "to": header.to,
        "mapping": header.mapping,
        "events": header.events,
        "descoped": header.descoped,
        "branches": header.branches,
        "engine": engine.name(),
        "axioms": axioms,
        "units": costs.len(),
    });
    let models = gpumc::mapping::Models {
        source: source_model,
        target: target_model,
    };
    let check = |_: usize, &(x, _): &(usize, usize)| -> Result<serde_json::Value, String> {
        let axiom = &axioms[x];
        let keep = |i: u64| mine.contains(&i);
        gpumc::mapping::check_axiom_selected(
            models,
            mapping,
            axiom,
            space,
            engine,
            &|_, _| {},
            &keep,
            None,
        )
        .map(|out| shard_record(header, axiom, &out))
        .map_err(|e| e.to_string())
    };
    // The shard's own items are (x, K) for its K: the programs were
    // split by cost above, the records are one per axiom and shard.
    let own: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].1 == sh.shard.index)
        .collect();
    let selected = crate::shardcli::run_items(sh, "mapping check", context, &items, own, &check);
    let records = match selected {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    // A finished shard succeeds whatever it found; the merge gives the
    // status of the whole check.
    for (_, r) in &records {
        if !a.json {
            eprintln!(
                "{}: shard {}: {}",
                r["axiom"].as_str().unwrap_or("?"),
                sh.shard,
                if r["found_at"].is_u64() {
                    "a counterexample"
                } else {
                    "no counterexample"
                }
            );
        }
    }
    0
}

/// A shard's journal record for one axiom.
fn shard_record(h: &Header, axiom: &str, out: &search::Outcome) -> serde_json::Value {
    let cx = out.counterexample.as_ref().map(|cx| {
        serde_json::json!({
            "events": cx.source.events(),
            "text": report::counterexample_text(h, axiom, cx),
            "json": report::counterexample_json(h, axiom, cx),
            "source_litmus": report::source_litmus(cx, &format!("{axiom}-source")),
            "target_litmus": report::target_litmus(
                cx,
                &format!("{axiom}-target"),
                &format!(
                    "Compiled from {axiom}-source.litmus by mapping {} (gpumc mapping check)",
                    h.mapping
                ),
            ).unwrap_or_default(),
        })
    });
    serde_json::json!({
        "axiom": axiom,
        "stats": out.stats,
        "sym": out.sym,
        "elapsed_s": out.elapsed.as_secs_f64(),
        "found_at": out.found_at,
        "counterexample": cx,
    })
}

/// `gpumc merge` of a sharded mapping check: per axiom, the shards'
/// efforts added up and the counterexample that comes first in the
/// enumeration order (the one the unsharded search reports).
pub fn merge(m: &gpumc_scale::Merged, a: &crate::shardcli::MergeArgs) -> u8 {
    let c = &m.header.context;
    let engine = match c["engine"].as_str() {
        Some("explicit") => Engine::Explicit,
        _ => Engine::Symbolic,
    };
    let header = Header {
        from: c["from"].as_str().unwrap_or_default().to_string(),
        to: c["to"].as_str().unwrap_or_default().to_string(),
        mapping: c["mapping"].as_str().unwrap_or_default().to_string(),
        events: c["events"].as_u64().unwrap_or(0) as usize,
        descoped: c["descoped"].as_bool().unwrap_or(false),
        branches: c["branches"].as_bool().unwrap_or(false),
        engine,
    };
    let json = a.json;
    if !json {
        eprintln!("{}", header.banner());
    }
    if let Some(dir) = &a.out {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(format!("{}: {e}", dir.display()));
        }
    }
    let axioms: Vec<String> = c["axioms"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let shards = m.header.shards;
    let mut code = 0;
    for (x, axiom) in axioms.iter().enumerate() {
        let recs = &m.records[x * shards..(x + 1) * shards];
        let mut total = search::Outcome {
            stats: Default::default(),
            sym: Default::default(),
            counterexample: None,
            found_at: None,
            elapsed: std::time::Duration::ZERO,
            timed_out: false,
        };
        let mut first: Option<(u64, &serde_json::Value)> = None;
        for r in recs {
            let stats: gpumc::mapping::explicit::Stats =
                serde_json::from_value(r["stats"].clone()).unwrap_or_default();
            let sym: gpumc::mapping::symbolic::SymStats =
                serde_json::from_value(r["sym"].clone()).unwrap_or_default();
            total.stats.add(&stats);
            total.sym.add(&sym);
            total.elapsed +=
                std::time::Duration::from_secs_f64(r["elapsed_s"].as_f64().unwrap_or(0.0));
            if let Some(at) = r["found_at"].as_u64() {
                if first.is_none_or(|(f, _)| at < f) {
                    first = Some((at, &r["counterexample"]));
                }
            }
        }
        let cx = first.map(|(_, v)| v);
        if let (Some(dir), Some(cx)) = (&a.out, cx) {
            let src = dir.join(format!("{axiom}-source.litmus"));
            let tgt = dir.join(format!("{axiom}-target.litmus"));
            let written = std::fs::write(&src, cx["source_litmus"].as_str().unwrap_or_default())
                .and_then(|_| {
                    std::fs::write(&tgt, cx["target_litmus"].as_str().unwrap_or_default())
                });
            if let Err(e) = written {
                return fail(format!("{}: {e}", dir.display()));
            }
            if !json {
                eprintln!("wrote {} and {}", src.display(), tgt.display());
            }
        }
        if cx.is_some() {
            code = 1;
        }
        let text = if json {
            format!(
                "{}\n",
                report::json_of(&header, axiom, &total, cx.map(|c| &c["json"]))
            )
        } else {
            let body = cx.map(|c| {
                (
                    c["events"].as_u64().unwrap_or(0) as usize,
                    c["text"].as_str().unwrap_or_default(),
                )
            });
            report::text_of(&header, axiom, &total, body)
        };
        if !print(&text) {
            return code;
        }
    }
    code
}
