//! `gpumc diy`: the litmus test of one relaxation cycle (diy's edges
//! with GPU placements, regions and fences; `gpumc_diy`), with each
//! model's verdict on its outcome.

use gpumc::diy::{self, Options, Placement, Region};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DiyArgs {
    /// The cycle, diy's edges separated by spaces: "PodWW Rfe PodRR Fre",
    /// "Membar.ctadWW Rfe DpAddrdR Fre" (docs/DIY.md lists the edges).
    #[arg(long)]
    cycle: String,
    /// The test's dialect (only `ptx`, herd's GPU_PTX, so far).
    #[arg(long, default_value = "ptx")]
    arch: String,
    /// Where the threads run: `warp` (each in its own warp of one CTA,
    /// the thesis's D-warp:S-cta) or `cta` (each in its own CTA,
    /// D-cta:S-ker).
    #[arg(long, default_value = "warp")]
    placement: String,
    /// Memory of the locations: `global`, `shared`, or per location
    /// (`x=shared,y=global`; the others global).
    #[arg(long, default_value = "global")]
    region: String,
    /// The fence of diy's generic `Fenced**` edges.
    #[arg(long, default_value = "membar.gl")]
    fence: String,
    /// Models whose verdict the test carries (repeatable; names or .cat
    /// files).
    #[arg(long = "model", default_values_t = ["ptx-v7.5".to_string()])]
    models: Vec<String>,
    /// Write the test to DIR/NAME.litmus instead of printing it.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print a JSON object (name, cycle, verdicts, file or text).
    #[arg(long)]
    json: bool,
}

fn options(a: &DiyArgs) -> Result<Options, String> {
    if a.arch != "ptx" {
        return Err(format!(
            "--arch {}: only `ptx` tests are generated so far",
            a.arch
        ));
    }
    let placement = match a.placement.as_str() {
        "warp" => Placement::Warp,
        "cta" => Placement::Cta,
        p => return Err(format!("--placement {p}: expected `warp` or `cta`")),
    };
    let region_word = |w: &str| match w {
        "global" => Ok(Region::Global),
        "shared" => Ok(Region::Shared),
        r => Err(format!("--region: `{r}` is not `global` or `shared`")),
    };
    let mut opts = Options {
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
    let opts = match options(a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gpumc: {e}");
            return 2;
        }
    };
    let g = match diy::generate(&a.cycle, &opts) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("gpumc: --cycle \"{}\": {e}", a.cycle);
            return 2;
        }
    };
    let verdicts = diy::verdicts(&g, &a.models);
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
        println!("{obj}");
    } else if let Some(p) = &file {
        let says: Vec<String> = verdicts
            .iter()
            .map(|v| format!("{} {}", v.model, v.word()))
            .collect();
        println!("{}: {}", p.display(), says.join(", "));
    } else {
        print!("{text}");
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
