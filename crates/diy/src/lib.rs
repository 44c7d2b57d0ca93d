//! gpumc-diy: litmus tests from relaxation cycles, as herdtools' `diy`
//! makes them for CPUs (Alglave, Maranget, Sarkar, Sewell, CAV'10),
//! extended for GPUs the way Sorensen's thesis (University of Utah,
//! 2014, chapter 5) generated its PTX tests: each test is one cycle of
//! diy's edges ([`edge`]), its threads placed in a scope configuration
//! (different warps of one CTA, or different CTAs), its locations in
//! shared or global memory, its fences and dependencies written as the
//! thesis writes them, named as diy and the thesis name them
//! ([`name`]), and carrying the model's verdict ([`verdicts`]).
//!
//! One cycle at a time (`gpumc diy --cycle "PodWW Rfe PodRR Fre"`), or
//! every critical cycle up to a size in every configuration
//! ([`enumerate`]); in herd's `GPU_PTX` ([`ptx`]), Dat3M's Vulkan
//! ([`vulkan`]), scoped C or Dat3M's PTX ([`dialects`]).

pub mod cycle;
pub mod dialects;
pub mod edge;
pub mod enumerate;
pub mod name;
pub mod ptx;
pub mod vulkan;

use gpumc_core::diag::{Error, Result};
use std::path::Path;

/// Where the threads run: each thread in its own warp, the warps in
/// CTAs as given (the thesis's configurations, sec. 2.5.1, are the two
/// extremes; others are its "configurations beyond the three basic
/// ones").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// D-warp:S-cta: every thread in one CTA.
    Warp,
    /// D-cta:S-ker: each thread in its own CTA.
    Cta,
    /// Thread `t` in CTA `ctas[t]`.
    Ctas(Vec<usize>),
}

impl Placement {
    /// The CTA of each of `n` threads, numbered by first appearance.
    pub fn ctas(&self, n: usize) -> Vec<usize> {
        let raw: Vec<usize> = match self {
            Placement::Warp => vec![0; n],
            Placement::Cta => (0..n).collect(),
            Placement::Ctas(c) => (0..n).map(|t| c.get(t).copied().unwrap_or(t + n)).collect(),
        };
        let mut seen: Vec<usize> = Vec::new();
        raw.iter()
            .map(|c| match seen.iter().position(|x| x == c) {
                Some(i) => i,
                None => {
                    seen.push(*c);
                    seen.len() - 1
                }
            })
            .collect()
    }

    /// The configuration's name: the thesis's for its two (`D-warp:S-cta`,
    /// `D-cta:S-ker`), otherwise the CTA of each thread (`ctas:0.0.1`).
    pub fn describe(&self, n: usize) -> String {
        let c = self.ctas(n);
        if c.iter().all(|&x| x == 0) {
            "D-warp:S-cta".into()
        } else if (0..n).all(|t| c[t] == t) {
            "D-cta:S-ker".into()
        } else {
            format!(
                "ctas:{}",
                c.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(".")
            )
        }
    }
}

/// The dialect of the generated test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// herd's `GPU_PTX`, as Sorensen's thesis writes its tests.
    Ptx,
    /// Dat3M's Vulkan dialect, translated as `examples/thesis/` translates
    /// the thesis's tests.
    Vulkan,
    /// Scoped C (docs/C.md): relaxed device-scope atomics.
    C,
    /// Dat3M's PTX dialect: `.weak` accesses.
    Dat3mPtx,
}

impl Arch {
    /// The model that judges tests of this dialect by default.
    pub fn default_model(self) -> &'static str {
        match self {
            Arch::Ptx | Arch::Dat3mPtx => "ptx-v7.5",
            Arch::Vulkan => "vulkan",
            Arch::C => "scoped-c11",
        }
    }
}

/// A location's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Global,
    Shared,
}

impl Region {
    pub fn word(self) -> &'static str {
        match self {
            Region::Global => "global",
            Region::Shared => "shared",
        }
    }
}

/// How to make a test of a cycle.
#[derive(Clone, Debug)]
pub struct Options {
    pub arch: Arch,
    pub placement: Placement,
    /// Region of every location, or of some by name (`x=shared`); the
    /// others global.
    pub region: Region,
    pub regions: Vec<(String, Region)>,
    /// The fence of diy's generic `Fenced**` edges.
    pub fence: String,
    /// Appended to the test's name after `@` (an enumeration names each
    /// test's configuration so that results of one cycle in several
    /// configurations stay apart: `SB@cta-01_reg-gg`).
    pub name_suffix: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            arch: Arch::Ptx,
            placement: Placement::Warp,
            region: Region::Global,
            regions: Vec::new(),
            fence: "membar.gl".into(),
            name_suffix: None,
        }
    }
}

/// How a test is laid out, whatever its dialect: its name, each thread's
/// CTA (workgroup), each location's region, the fence of `Fenced**`
/// edges, and the `Key=value` header lines after the doc string.
pub struct Layout<'a> {
    pub name: &'a str,
    pub ctas: &'a [usize],
    pub regions: &'a [Region],
    pub fence: &'a str,
    pub extra: &'a [String],
}

/// A generated test.
#[derive(Clone, Debug)]
pub struct Generated {
    pub name: String,
    /// The test's text (`GPU_PTX` or Vulkan).
    pub text: String,
    pub test: cycle::Test,
}

/// The test of one cycle (`PodWW Rfe PodRR Fre`). Errors name the
/// column of the offending edge.
pub fn generate(cycle_text: &str, opts: &Options) -> Result<Generated> {
    let edges = edge::parse_cycle(cycle_text)?;
    if !edge::PTX_FENCES.contains(&opts.fence.as_str()) {
        return Err(Error::new(
            gpumc_core::diag::ErrorKind::Usage,
            format!(
                "unknown fence `{}` (expected one of {})",
                opts.fence,
                edge::PTX_FENCES.join(", ")
            ),
        ));
    }
    let test = cycle::build(&edges)?;
    let mut regions = vec![opts.region; test.locs];
    for (n, r) in &opts.regions {
        match (0..test.locs).find(|&l| ptx::loc_name(l) == *n) {
            Some(l) => regions[l] = *r,
            None => {
                return Err(Error::new(
                    gpumc_core::diag::ErrorKind::Usage,
                    format!(
                        "--region {n}=…: the test has no location `{n}` (it has {})",
                        (0..test.locs)
                            .map(ptx::loc_name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        }
    }
    // Shared memory belongs to one CTA: every thread that accesses a
    // shared location must be in one.
    let ctas = opts.placement.ctas(test.threads.len());
    for l in (0..test.locs).filter(|&l| regions[l] == Region::Shared) {
        let users: Vec<usize> = (0..test.threads.len())
            .filter(|&t| test.threads[t].iter().any(|e| e.loc == l))
            .collect();
        if users.iter().any(|&t| ctas[t] != ctas[users[0]]) {
            return Err(Error::new(
                gpumc_core::diag::ErrorKind::Usage,
                format!(
                    "`{}` in shared memory: shared memory belongs to one CTA, and the threads that access it are in different CTAs",
                    ptx::loc_name(l)
                ),
            ));
        }
    }
    let mut name = name::name(&test, &opts.fence);
    if let Some(sfx) = &opts.name_suffix {
        name = format!("{name}@{sfx}");
    }
    let cycle: Vec<String> = test.cycle.iter().map(|e| e.name()).collect();
    let extra = vec![
        format!("Cycle={}", cycle.join(" ")),
        format!(
            "Config={} {}",
            opts.placement.describe(test.threads.len()),
            (0..test.locs)
                .map(|l| format!("{}:{}", ptx::loc_name(l), regions[l].word()))
                .collect::<Vec<_>>()
                .join(",")
        ),
        "Generator=gpumc diy".to_string(),
    ];
    let layout = Layout {
        name: &name,
        ctas: &ctas,
        regions: &regions,
        fence: &opts.fence,
        extra: &extra,
    };
    let text = match opts.arch {
        Arch::Ptx => ptx::render(&test, &layout),
        Arch::Vulkan => vulkan::render(&test, &layout)?,
        Arch::C => dialects::render_c(&test, &layout)?,
        Arch::Dat3mPtx => dialects::render_dat3m_ptx(&test, &layout)?,
    };
    Ok(Generated { name, text, test })
}

/// A model's verdict on a generated test: whether the cycle's outcome
/// (the `exists` condition) is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub model: String,
    /// `Some(true)`: allowed (some consistent execution satisfies the
    /// condition); `Some(false)`: forbidden; `None`: not decided (the
    /// message says why).
    pub allowed: Option<bool>,
    pub message: Option<String>,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self.allowed {
            Some(true) => "Allowed",
            Some(false) => "Forbidden",
            None => "Unknown",
        }
    }
}

/// Checks `g` under each model (by name or `.cat` path).
pub fn verdicts(g: &Generated, models: &[String]) -> Vec<Verdict> {
    use gpumc_verify::driver::{check_source, Config, ModelCache};
    let cache = ModelCache::default();
    let name = format!("{}.litmus", g.name);
    models
        .iter()
        .map(|m| {
            let cfg = Config {
                model: Some(m.clone()),
                max_states: Some(0),
                ..Config::default()
            };
            let r = check_source(&g.text, Path::new(&name), &cfg, &cache);
            // `exists`: PASS when some execution satisfies it.
            let allowed = match r.verdict.as_str() {
                "PASS" => Some(true),
                "FAIL" => Some(false),
                _ => None,
            };
            Verdict {
                model: m.clone(),
                allowed,
                message: r.message.clone(),
            }
        })
        .collect()
}

/// `g`'s text with a `Verdict=MODEL WORD` line per model after the
/// generator line, so the file carries what the models say.
pub fn with_verdicts(g: &Generated, verdicts: &[Verdict]) -> String {
    let lines: String = verdicts
        .iter()
        .map(|v| format!("Verdict={} {}\n", v.model, v.word()))
        .collect();
    g.text.replacen(
        "Generator=gpumc diy\n",
        &format!("Generator=gpumc diy\n{lines}"),
        1,
    )
}

#[cfg(test)]
mod tests;
