//! Race and safety checks of PTX and SPIR-V kernels by the parametric
//! engine (`engine::parametric`): with `--engine parametric`; under
//! `--engine auto`, races first, and safety (undefined behaviour) where
//! the concrete engine refuses the kernel (PTX: more than `MAX_THREADS`
//! threads, an address computed at run time into a buffer of unknown
//! size; SPIR-V: more than 1024 invocations, a runtime array without
//! `@Input` contents indexed at run time). What the engine cannot settle
//! goes to the concrete engine where it can take the kernel, and is
//! `UNKNOWN` with the reason otherwise (docs/PTX-KERNELS.md, "Any launch
//! size"; docs/SPIRV.md, "Any launch size").

use crate::diag::{Error, ErrorKind, Result};
use crate::driver::{bound_reason, load_model, Config, Engine, FileReport, ModelCache, Property};
use crate::engine::parametric::{self, ParamOptions};
use crate::engine::safety::Verdict;
use crate::frontend::ptx::launch::{thread_count, MAX_THREADS};
use std::path::Path;
use std::time::Duration;

/// The bound the parametric engine raises `--bound` to by itself.
pub const PARAMETRIC_MAX_BOUND: u32 = 4;
/// Without `--max-bound`, the bound the parametric engine goes on raising
/// to past PARAMETRIC_MAX_BOUND, within RAISE_SHARE of the time left and
/// at most RAISE_CAP_TIME in all.
pub const PARAMETRIC_RAISE_CAP: u32 = 64;
const RAISE_SHARE: f64 = 0.25;
const RAISE_CAP_TIME: Duration = Duration::from_secs(2);

/// The front-end of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Ptx,
    Spirv,
}

/// What the caller does next.
pub enum Step {
    /// `report` holds the answer.
    Decided,
    /// Check the launch concretely, with this note for the report.
    Concrete(Option<String>),
}

/// Checks kernel `src` (named `name`) by the parametric engine when
/// `cfg.engine` asks for it, when the launch is too large for the
/// concrete engine, or (`refused`) when the concrete translation refused
/// the kernel: for races (`--property races`) or undefined behaviour
/// (`--property safety`).
pub fn check(
    src: &str,
    name: &Path,
    kind: Kernel,
    cfg: &Config,
    cache: &ModelCache,
    report: &mut FileReport,
    refused: Option<&Error>,
) -> Result<Step> {
    let asked = cfg.engine == Engine::Parametric;
    let races = cfg.property == Property::Races;
    // The SPIR-V concrete translation's refusal of a kernel the generic
    // one may take (a grid over 1024 invocations, a runtime array of
    // unknown length indexed at run time).
    let spirv_refusal = || match crate::frontend::spirv::parse(src, name) {
        Err(e) if crate::frontend::spirv::generic_may_take(&e) => Some(e),
        _ => None,
    };
    let generic = match kind {
        Kernel::Ptx => crate::frontend::ptx::parse_generic_kernel(src, name, &cfg.launch),
        Kernel::Spirv => crate::frontend::spirv::parse_generic(src, name),
    };
    let (program, parts) = match generic {
        Ok(x) => x,
        Err(e) => {
            // The concrete translation's refusal says what stands in the
            // way; otherwise it reports the same error, or succeeds —
            // unless the launch is too large for it: then this error is
            // the one that says what stands in the way.
            if let Some(r) = refused {
                return Err(r.clone());
            }
            if asked {
                return Err(e);
            }
            let large = match kind {
                Kernel::Ptx => crate::frontend::ptx::launch::from_header(src)
                    .map(|h| cfg.launch.over(&h))
                    .ok()
                    .is_some_and(|l| l.threads() > u128::from(MAX_THREADS)),
                Kernel::Spirv => spirv_refusal().is_some(),
            };
            return if large {
                Err(e)
            } else {
                Ok(Step::Concrete(None))
            };
        }
    };
    let threads = thread_count(parts.grid, parts.block);
    // Whether the concrete translation refuses a SPIR-V kernel is known
    // only by translating every thread of the launch (seconds for long
    // loops at a thousand threads): asked only where the answer matters,
    // not when the parametric engine decides.
    let spirv_refused = std::cell::OnceCell::new();
    let refused_now = || -> Option<&Error> {
        refused.or_else(|| {
            spirv_refused
                .get_or_init(|| match kind {
                    Kernel::Spirv if threads <= u128::from(MAX_THREADS) => spirv_refusal(),
                    _ => None,
                })
                .as_ref()
        })
    };
    let concrete_ok = || threads <= u128::from(MAX_THREADS) && refused_now().is_none();
    // Why the concrete engine cannot check this launch, for an UNKNOWN.
    let no_concrete = || {
        match refused_now() {
        Some(e) => format!("the concrete engine cannot check this kernel ({})", e.message),
        None => format!(
            "the launch ({threads} threads) is too large for the concrete engine, which can check a smaller launch"
        ),
    }
    };
    report.test = program.name.clone();
    // Values that decide nothing a race depends on need not be computed
    // (undefined behaviour depends on them: a safety check keeps them).
    let program = if races {
        crate::engine::slice::for_races(&program).0
    } else {
        program
    };
    let model = load_model(cfg, &program, cache, report)?;
    // Its formula grows slowly with the bound: it raises the bound by
    // itself while it cuts an execution (up to `--max-bound`, or
    // PARAMETRIC_MAX_BOUND), so that races are listed completely too.
    // Without `--max-bound`, it goes on past PARAMETRIC_MAX_BOUND (up to
    // PARAMETRIC_RAISE_CAP) within a small time budget: a shared-memory
    // tile loop at a small block (`for (b = tid; b < 64; b += 8)`) needs
    // bound 8, while a loop whose trip count is an argument gpumc was not
    // given is cut at every bound, and must not cost much before the
    // concrete engine takes over. An attempt that runs out of that budget
    // leaves the answer of the bound before it.
    let max_bound = cfg
        .max_bound
        .unwrap_or_else(|| cfg.bound.max(PARAMETRIC_RAISE_CAP));
    let budgeted_from = match cfg.max_bound {
        Some(_) => u32::MAX,
        None => cfg.bound.max(PARAMETRIC_MAX_BOUND),
    };
    let mut raise_budget: Option<crate::guard::Guard> = None;
    let mut bound = cfg.bound;
    let check_at = |bound: u32| {
        let opts = ParamOptions {
            bound,
            max_races: cfg.max_races,
            check_races: races,
        };
        parametric::check(&program, &parts, &model, &opts)
    };
    let mut checked = check_at(bound);
    // Doubling: a loop of n iterations needs bound n + 1, reached in
    // log n checks (a larger bound than needed changes no verdict, only
    // the formula's size).
    while matches!(&checked, Ok(o) if o.bound_hit && o.divergence.is_none() && bound < max_bound) {
        let next = (bound * 2).min(max_bound);
        if next <= budgeted_from {
            checked = check_at(next);
        } else {
            let budget = raise_budget.get_or_insert_with(|| {
                crate::guard::share_current(RAISE_SHARE, Duration::ZERO, RAISE_CAP_TIME)
            });
            let _scope = crate::guard::enter(budget.clone());
            match check_at(next) {
                Err(e) if e.kind == ErrorKind::Limit => break,
                r => checked = r,
            }
        }
        bound = next;
    }
    report.bound = bound;
    if bound > cfg.bound {
        report.bound_note = Some(format!(
            "raised from --bound {} to {bound} by the parametric engine: the smaller bounds it tried cut an execution",
            cfg.bound
        ));
    }
    let out = match checked {
        Ok(o) => o,
        Err(e) if e.kind == ErrorKind::Unsupported && concrete_ok() => {
            report.bound = cfg.bound;
            report.bound_note = None;
            return Ok(Step::Concrete(asked.then(|| {
                format!(
                    "the parametric engine gave up ({e}); the concrete engine decided at this launch"
                )
            })));
        }
        Err(e) if e.kind == ErrorKind::Limit && !asked && concrete_ok() => {
            report.bound = cfg.bound;
            report.bound_note = None;
            return Ok(Step::Concrete(None));
        }
        Err(e) => return Err(e),
    };
    // Under `auto`, at a launch the concrete engine takes, the parametric
    // answer is kept only when it is complete: no path cut by the bound,
    // and no race or every race found confirmed.
    if !asked {
        let all_confirmed = out.races.iter().all(|f| f.confirmed) && out.complete;
        let settled = out.divergence.as_ref().is_none_or(|d| d.1)
            && all_confirmed
            && out.ub.as_ref().is_none_or(|u| u.1)
            && !out.bound_hit;
        if !settled && concrete_ok() {
            report.bound = cfg.bound;
            report.bound_note = None;
            return Ok(Step::Concrete(None));
        }
    }
    let first_confirmed = out.races.iter().find(|f| f.confirmed);
    let confirmed_div = out.divergence.as_ref().filter(|d| d.1).map(|d| d.0.clone());
    let confirmed_ub = out.ub.as_ref().is_some_and(|u| u.1) || confirmed_div.is_some();
    let mut notes: Vec<String> = Vec::new();
    report.assumptions = program.assumptions.clone();
    report.assumptions.extend(out.assumptions.iter().cloned());
    if out.vacuous {
        report.vacuous = Some(crate::driver::VACUOUS.into());
    }
    report.engine = Some(Engine::Parametric);
    report.bound_hit = out.bound_hit;
    report.executions = None;
    if first_confirmed.is_some() || confirmed_ub {
        let unconfirmed = out.races.iter().filter(|f| !f.confirmed).count();
        report.verdict = Verdict::Fail.to_string();
        report.races = out
            .races
            .iter()
            .filter(|f| f.confirmed)
            .map(|f| f.race.clone())
            .collect();
        if races {
            report.races_complete = Some(out.complete && unconfirmed == 0 && !out.bound_hit);
        }
        if unconfirmed > 0 {
            report.races_note = Some(format!(
                "{unconfirmed} more pair{} may race but {} not confirmed: {}",
                if unconfirmed == 1 { "" } else { "s" },
                if unconfirmed == 1 { "is" } else { "are" },
                why(&out)
            ));
        }
        if let Some((cause, true)) = &out.ub {
            notes.insert(0, format!("undefined behaviour: {cause}"));
        } else if let Some(d) = &confirmed_div {
            notes.insert(0, format!("undefined behaviour: {d}"));
        }
        if let Some(f) = first_confirmed {
            notes.push(format!(
                "witness of the first race: threads {} and {}{}",
                f.race.threads.0,
                f.race.threads.1,
                shown_inputs(&f.inputs)
            ));
        }
    } else if !out.races.is_empty() || out.ub.is_some() || out.divergence.is_some() {
        let what = match (&out.divergence, &out.ub, out.races.len()) {
            (Some((d, _)), _, _) => d.clone(),
            (_, Some((cause, _)), _) => format!("possible undefined behaviour: {cause}"),
            (_, _, n) => format!(
                "{n} pair{} of instructions may race",
                if n == 1 { "" } else { "s" }
            ),
        };
        if concrete_ok() {
            return Ok(Step::Concrete(Some(format!(
                "the parametric engine could not confirm what it found ({what}: {}); the concrete engine decided at this launch",
                why(&out)
            ))));
        }
        report.verdict = Verdict::Unknown.to_string();
        report.races = out.races.iter().map(|f| f.race.clone()).collect();
        if races {
            report.races_complete = Some(false);
        }
        notes.insert(
            0,
            format!(
                "{what}, not confirmed at this launch: {}; {}",
                why(&out),
                no_concrete()
            ),
        );
    } else {
        let verdict = if out.bound_hit {
            Verdict::Unknown
        } else {
            Verdict::Pass
        };
        report.verdict = verdict.to_string();
        if races {
            report.races_complete = Some(!out.bound_hit);
        } else if verdict == Verdict::Pass {
            // A kernel has no condition: what a safety check establishes
            // is that no thread reaches undefined behaviour.
            report.verdict = crate::driver::NO_CONDITION.into();
        }
        if let Some(b) = bound_reason(verdict, out.bound_hit, bound) {
            notes.insert(0, b);
            // Why a loop may be cut at every bound: its trip count is not
            // known, or it waits for another thread, which never ends for
            // the abstraction (it reads arbitrary values where others
            // write).
            notes.insert(
                1,
                format!(
                    "a loop whose trip count depends on an argument gpumc was not given (`--param NAME=VALUE`) is cut at every bound, and so is one that waits for another thread while it writes (a lock's compare-and-swap loop): the parametric engine reads arbitrary values where other threads write{}",
                    if concrete_ok() {
                        "; `--engine auto` checks this launch concretely".to_string()
                    } else if refused_now().is_some() {
                        format!("; {}", no_concrete())
                    } else {
                        format!(
                            "; a launch of at most {} threads is checked concretely",
                            match kind {
                                Kernel::Ptx => "4,096",
                                Kernel::Spirv => "1,024",
                            }
                        )
                    }
                ),
            );
        }
    }
    if !races {
        report.states_note = Some(
            "the parametric engine checks every thread of the launch for undefined behaviour at once; it does not enumerate final states"
                .into(),
        );
    }
    report.message = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(Step::Decided)
}

/// Why what the parametric engine found is not confirmed, in words.
fn why(out: &parametric::Outcome) -> String {
    let mut w = out.unconfirmed_why.clone();
    if w.is_empty() {
        w.push(
            "a value another thread may have written decides whether or where the accesses happen"
                .into(),
        );
    }
    w.join("; ")
}

/// Input cells named in the text of a race's witness; a kernel whose
/// threads read hundreds of cells (a tiled matrix product) gets the
/// first ones and a count, since JSON's `races[].inputs` has them all.
const SHOWN_INPUTS: usize = 12;

fn shown_inputs(inputs: &[String]) -> String {
    match inputs.len() {
        0 => String::new(),
        n if n <= SHOWN_INPUTS => format!(", with {}", inputs.join(" ")),
        n => format!(
            ", with {} and {} more input cells (the JSON report's races[].inputs lists all {n})",
            inputs[..SHOWN_INPUTS].join(" "),
            n - SHOWN_INPUTS
        ),
    }
}
