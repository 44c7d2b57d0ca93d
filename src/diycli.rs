//! `gpumc diy`: the litmus test of one relaxation cycle (diy's edges
//! with GPU placements, regions and fences; `gpumc_diy`), with each
//! model's verdict on its outcome.

use gpumc::diy::{self, Arch, Options, Placement, Region};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DiyArgs {
    /// The cycle, diy's edges separated by spaces: "PodWW Rfe PodRR Fre",
    /// "Membar.ctadWW Rfe DpAddrdR Fre" (docs/DIY.md lists the edges).
    #[arg(
        long,
        required_unless_present = "enumerate",
        conflicts_with = "enumerate"
    )]
    cycle: Option<String>,
    /// Every critical cycle up to --max-edges edges, in every placement
    /// of its threads in CTAs and every region of its locations, once up
    /// to symmetry, each verified; written to --out DIR/CONFIG/NAME.litmus
    /// with an index (DIR/index.tsv).
    #[arg(long, requires = "out")]
    enumerate: bool,
    /// Enumeration: edges per cycle, at most.
    #[arg(long, default_value_t = 4, requires = "enumerate")]
    max_edges: usize,
    /// Enumeration: threads per cycle, at most.
    #[arg(long, default_value_t = 4, requires = "enumerate")]
    max_threads: usize,
    /// Enumeration: the orderings of program-order edges, comma-separated
    /// (po, addr, data, ctrl, or PTX fences such as membar.cta). Default:
    /// po,membar.cta,membar.gl,addr,data (ptx), without addr (vulkan).
    #[arg(long, requires = "enumerate")]
    orderings: Option<String>,
    /// Enumeration: only the thesis's two placements (all threads in one
    /// CTA, each in its own), not every partition into CTAs.
    #[arg(long, requires = "enumerate")]
    basic_placements: bool,
    /// Enumeration: every location in global memory.
    #[arg(long, requires = "enumerate")]
    global_only: bool,
    /// The test's dialect: `ptx` (herd's GPU_PTX, as Sorensen's thesis
    /// writes its tests), `vulkan` (Dat3M's dialect, relaxed device-scope
    /// atomics for the weak accesses), `c` (scoped C, the same atomics) or
    /// `ptx-dat3m` (Dat3M's PTX dialect, `.weak` accesses).
    #[arg(long, default_value = "ptx")]
    arch: String,
    /// Where the threads run: `warp` (each in its own warp of one CTA,
    /// the thesis's D-warp:S-cta), `cta` (each in its own CTA,
    /// D-cta:S-ker), or each thread's CTA (`0,0,1`).
    #[arg(long, default_value = "warp", conflicts_with = "enumerate")]
    placement: String,
    /// Memory of the locations: `global`, `shared`, or per location
    /// (`x=shared,y=global`; the others global).
    #[arg(long, default_value = "global", conflicts_with = "enumerate")]
    region: String,
    /// The fence of diy's generic `Fenced**` edges.
    #[arg(long, default_value = "membar.gl", conflicts_with = "enumerate")]
    fence: String,
    /// Models whose verdict the test carries (repeatable; names or .cat
    /// files). Default: ptx-v7.5 (ptx), vulkan (vulkan).
    #[arg(long = "model")]
    models: Vec<String>,
    /// Write the test to DIR/NAME.litmus instead of printing it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print a JSON object (name, cycle, verdicts, file or text).
    #[arg(long)]
    json: bool,
}

/// `--arch`.
fn arch(a: &DiyArgs) -> Result<Arch, String> {
    match a.arch.as_str() {
        "ptx" => Ok(Arch::Ptx),
        "vulkan" => Ok(Arch::Vulkan),
        "c" => Ok(Arch::C),
        "ptx-dat3m" => Ok(Arch::Dat3mPtx),
        other => Err(format!(
            "--arch {other}: expected `ptx`, `vulkan`, `c` or `ptx-dat3m`"
        )),
    }
}

/// The models to judge by: `--model`s, or the dialect's.
fn models(a: &DiyArgs, arch: Arch) -> Vec<String> {
    if a.models.is_empty() {
        vec![arch.default_model().to_string()]
    } else {
        a.models.clone()
    }
}

fn options(a: &DiyArgs) -> Result<Options, String> {
    let arch = arch(a)?;
    let placement = match a.placement.as_str() {
        "warp" => Placement::Warp,
        "cta" => Placement::Cta,
        p => match p
            .split(',')
            .map(|x| x.trim().parse::<usize>())
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(v) => Placement::Ctas(v),
            Err(_) => {
                return Err(format!(
                    "--placement {p}: expected `warp`, `cta` or each thread's CTA (`0,0,1`)"
                ))
            }
        },
    };
    let region_word = |w: &str| match w {
        "global" => Ok(Region::Global),
        "shared" => Ok(Region::Shared),
        r => Err(format!("--region: `{r}` is not `global` or `shared`")),
    };
    let mut opts = Options {
        arch,
        placement,
        fence: a.fence.clone(),
        ..Options::default()
    };
    if a.region.contains('=') {
        for item in a.region.split(',') {
            let Some((loc, r)) = item.split_once('=') else {
                return Err(format!("--region: `{item}` is not LOCATION=REGION"));
            };
            opts.regions
                .push((loc.trim().to_string(), region_word(r.trim())?));
        }
    } else {
        opts.region = region_word(&a.region)?;
    }
    Ok(opts)
}

pub fn run(a: &DiyArgs) -> u8 {
    // (a closed pipe ends the output, not the program)
    let mut out = std::io::stdout().lock();
    if a.enumerate {
        return enumerate(a);
    }
    let cycle = a.cycle.clone().unwrap_or_default();
    let opts = match options(a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gpumc: {e}");
            return 2;
        }
    };
    let g = match diy::generate(&cycle, &opts) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gpumc: --cycle \"{cycle}\": {e}");
            return 2;
        }
    };
    let verdicts = diy::verdicts(&g, &models(a, opts.arch));
    let text = diy::with_verdicts(&g, &verdicts);
    let file = match &a.out {
        Some(dir) => {
            let path = dir.join(format!("{}.litmus", g.name));
            let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, &text));
            if let Err(e) = written {
                eprintln!("gpumc: {}: {e}", path.display());
                return 2;
            }
            Some(path)
        }
        None => None,
    };
    if a.json {
        let v: Vec<serde_json::Value> = verdicts
            .iter()
            .map(|v| {
                serde_json::json!({
                    "model": v.model,
                    "verdict": v.word(),
                    "message": v.message,
                })
            })
            .collect();
        let mut obj = serde_json::json!({
            "name": g.name,
            "cycle": g.test.cycle.iter().map(|e| e.name()).collect::<Vec<_>>().join(" "),
            "verdicts": v,
        });
        match &file {
            Some(p) => obj["file"] = serde_json::json!(p.display().to_string()),
            None => obj["text"] = serde_json::json!(text),
        }
        let _ = writeln!(out, "{obj}");
    } else if let Some(p) = &file {
        let says: Vec<String> = verdicts
            .iter()
            .map(|v| format!("{} {}", v.model, v.word()))
            .collect();
        let _ = writeln!(out, "{}: {}", p.display(), says.join(", "));
    } else {
        let _ = write!(out, "{text}");
    }
    // A verdict that could not be computed is an error of the test.
    if verdicts.iter().any(|v| v.allowed.is_none()) {
        for v in verdicts.iter().filter(|v| v.allowed.is_none()) {
            eprintln!(
                "gpumc: {} under {}: no verdict ({})",
                g.name,
                v.model,
                v.message.as_deref().unwrap_or("unknown")
            );
        }
        return 2;
    }
    0
}

/// The orderings of `--orderings`.
fn orderings(text: &str) -> Result<Vec<diy::edge::Via>, String> {
    use diy::edge::Via;
    text.split(',')
        .map(|w| match w.trim() {
            "po" => Ok(Via::Plain),
            "addr" => Ok(Via::Addr),
            "data" => Ok(Via::Data),
            "ctrl" => Ok(Via::Ctrl),
            f if diy::edge::PTX_FENCES.contains(&f) => Ok(Via::Fence(Some(f.to_string()))),
            other => Err(format!(
                "--orderings: `{other}` is not po, addr, data, ctrl or a PTX fence ({})",
                diy::edge::PTX_FENCES.join(", ")
            )),
        })
        .collect()
}

/// One enumerated test: cycle, configuration, name, verdicts.
type Row = (String, String, String, Vec<diy::Verdict>);

/// `gpumc diy --enumerate`: every (cycle, configuration), generated,
/// verified in parallel and written with an index.
fn enumerate(a: &DiyArgs) -> u8 {
    use rayon::prelude::*;
    let mut out = std::io::stdout().lock();
    let fail = |e: String| {
        eprintln!("gpumc: {e}");
        2
    };
    let arch = match arch(a) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let models = models(a, arch);
    let default_orderings = match arch {
        Arch::Ptx => "po,membar.cta,membar.gl,addr,data",
        Arch::Vulkan | Arch::C => "po,membar.cta,membar.gl,data",
        Arch::Dat3mPtx => "po,membar.cta,membar.gl",
    };
    let space = diy::enumerate::Space {
        arch,
        max_edges: a.max_edges,
        max_threads: a.max_threads,
        orderings: match orderings(a.orderings.as_deref().unwrap_or(default_orderings)) {
            Ok(o) => o,
            Err(e) => return fail(e),
        },
        all_placements: !a.basic_placements,
        // (scoped C and Dat3M's PTX have no shared memory)
        shared: !a.global_only && matches!(arch, Arch::Ptx | Arch::Vulkan),
    };
    let Some(dir) = a.out.clone() else {
        return fail("--enumerate needs --out DIR".into());
    };
    let start = std::time::Instant::now();
    let items = diy::enumerate::items(&space);
    let cycles = items
        .iter()
        .map(|i| i.cycle.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let bar = gpumc::bar::Bar::new(items.len() as u64, !a.json);
    bar.set_message("generating and verifying");
    let rows: Vec<Result<Row, String>> = items
        .par_iter()
        .map(|it| {
            let g = diy::generate(&it.cycle, &it.options)
                .map_err(|e| format!("{} ({}): {e}", it.cycle, it.config))?;
            let v = diy::verdicts(&g, &models);
            let text = diy::with_verdicts(&g, &v);
            let sub = dir.join(&it.config);
            // (the file is named without the configuration, which is its
            // directory)
            let base = g.name.split('@').next().unwrap_or(&g.name).to_string();
            let path = sub.join(format!("{base}.litmus"));
            std::fs::create_dir_all(&sub)
                .and_then(|()| std::fs::write(&path, text))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            bar.inc();
            Ok((it.cycle.clone(), it.config.clone(), base, v))
        })
        .collect();
    bar.finish();
    let mut index = String::from("cycle\tconfig\tname");
    for m in &models {
        index.push_str(&format!("\t{m}"));
    }
    index.push('\n');
    let mut counts: Vec<[usize; 3]> = vec![[0; 3]; models.len()];
    let mut errors = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for r in rows {
        match r {
            Ok((cycle, config, name, v)) => {
                if !names.insert((config.clone(), name.clone())) {
                    errors.push(format!("{config}/{name}: two cycles give this name"));
                }
                index.push_str(&format!("{cycle}\t{config}\t{name}"));
                for (k, x) in v.iter().enumerate() {
                    index.push_str(&format!("\t{}", x.word()));
                    counts[k][match x.allowed {
                        Some(true) => 0,
                        Some(false) => 1,
                        None => 2,
                    }] += 1;
                }
                index.push('\n');
            }
            Err(e) => errors.push(e),
        }
    }
    if let Err(e) = std::fs::write(dir.join("index.tsv"), &index) {
        return fail(format!("{}: {e}", dir.join("index.tsv").display()));
    }
    let secs = start.elapsed().as_secs_f64();
    if a.json {
        let per_model: Vec<serde_json::Value> = models
            .iter()
            .zip(&counts)
            .map(|(m, c)| {
                serde_json::json!({"model": m, "allowed": c[0], "forbidden": c[1], "unknown": c[2]})
            })
            .collect();
        let _ = writeln!(
            out,
            "{}",
            serde_json::json!({
                "cycles": cycles,
                "tests": items.len(),
                "seconds": secs,
                "models": per_model,
                "index": dir.join("index.tsv").display().to_string(),
                "errors": errors,
            })
        );
    } else {
        let _ = writeln!(
            out,
            "{} tests ({cycles} cycles × their configurations) in {:.1} s, written to {}",
            items.len(),
            secs,
            dir.display()
        );
        for (m, c) in models.iter().zip(&counts) {
            let _ = writeln!(
                out,
                "  {m}: {} allowed, {} forbidden, {} unknown",
                c[0], c[1], c[2]
            );
        }
        for e in &errors {
            eprintln!("gpumc: {e}");
        }
    }
    if errors.is_empty() && counts.iter().all(|c| c[2] == 0) {
        0
    } else {
        2
    }
}
