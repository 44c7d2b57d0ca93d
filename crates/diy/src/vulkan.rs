//! The abstract test in Dat3M's Vulkan litmus dialect, translated the
//! way `examples/thesis/README.md` translates the thesis's tests: weak
//! `.cg` accesses become relaxed device-scope atomics (plain Vulkan
//! accesses that race make the program undefined), a CTA is a workgroup
//! and a warp a subgroup, a shared location is storage class 1 (`sc1`),
//! `membar.cta`/`membar.gl` become acquire-release fences at workgroup
//! and device scope over the storage classes the test uses, and a data
//! dependency is the same register arithmetic, a control dependency a
//! branch over the access on it (`bne r8, 0, LC…`). Address dependencies
//! (addresses are fixed in the dialect) and sequentially consistent
//! fences (Vulkan has none) have no translation and are refused.

use crate::cycle::{Event, Test};
use crate::edge::{Dir, Via};
use crate::ptx::loc_name;
use crate::{Layout, Region};
use gpumc_core::diag::{Error, ErrorKind, Result};

/// The `k`-th load's register of a thread.
fn load_reg(k: usize) -> String {
    format!("r{}", k + 1)
}

/// The Vulkan fence of a PTX one, over the semantics `sems`
/// (`semsc0.semsc1`).
fn fence(f: &str, sems: &str) -> Result<String> {
    let scope = match f {
        "membar.cta" | "fence.acq_rel.cta" => "wg",
        "membar.gl" | "membar.sys" | "fence.acq_rel.gpu" | "fence.acq_rel.sys" => "dv",
        other => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("unsupported: `{other}` has no Vulkan translation (Vulkan's fences are acquire-release, not sequentially consistent)"),
            ))
        }
    };
    Ok(format!("membar.acq_rel.{scope}.{sems}"))
}

/// A thread's lines, and its reads' registers with the values the
/// condition wants.
type Code = (Vec<String>, Vec<(String, i64)>);

fn thread_code(
    thread: usize,
    events: &[Event],
    regions: &[Region],
    sems: &str,
    default_fence: &str,
) -> Result<Code> {
    let mut lines = Vec::new();
    let mut reads = Vec::new();
    let mut loads = 0;
    let mut last_load: Option<String> = None;
    for e in events {
        let sc = match regions.get(e.loc).copied().unwrap_or(Region::Global) {
            Region::Global => "sc0",
            Region::Shared => "sc1",
        };
        let x = loc_name(e.loc);
        let via = e.via.clone().unwrap_or(Via::Plain);
        match &via {
            Via::Fence(f) => lines.push(fence(f.as_deref().unwrap_or(default_fence), sems)?),
            Via::Addr => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "unsupported: address dependencies in a Vulkan test (Dat3M's dialect has fixed addresses)",
                ))
            }
            _ => {}
        }
        // A control dependency: a branch over the access on the high bits
        // (never taken, for the tests' values).
        let label = (via == Via::Ctrl).then(|| {
            let src = last_load.clone().unwrap_or_else(|| "r1".into());
            let l = format!("LC{thread}{}", lines.len());
            lines.push(format!("and r8, {src}, 4294901760"));
            lines.push(format!("bne r8, 0, {l}"));
            l
        });
        let value = e.value.unwrap_or(0);
        match e.dir {
            Dir::W if via == Via::Data => {
                let src = last_load.clone().unwrap_or_else(|| "r1".into());
                lines.push(format!("and r8, {src}, 4294901760"));
                lines.push(format!("add r8, r8, {value}"));
                lines.push(format!("st.atom.dv.{sc} {x}, r8"));
            }
            Dir::W => lines.push(format!("st.atom.dv.{sc} {x}, {value}")),
            Dir::R => {
                let r = load_reg(loads);
                loads += 1;
                lines.push(format!("ld.atom.dv.{sc} {r}, {x}"));
                if let Some(v) = e.value {
                    reads.push((r.clone(), v));
                }
                last_load = Some(r);
            }
        }
        if let Some(l) = label {
            lines.push(format!("{l}:"));
        }
    }
    Ok((lines, reads))
}

/// The test's text (`ctas`: each thread's workgroup; `extra`: header
/// lines after the doc string).
pub fn render(test: &Test, layout: &Layout) -> Result<String> {
    let Layout {
        name,
        ctas,
        regions,
        fence: default_fence,
        extra,
    } = *layout;
    // Fences order the storage classes the test uses.
    let mut sems = Vec::new();
    if regions.contains(&Region::Global) || regions.is_empty() {
        sems.push("semsc0");
    }
    if regions.contains(&Region::Shared) {
        sems.push("semsc1");
    }
    let sems = sems.join(".");
    let mut codes = Vec::new();
    for (k, t) in test.threads.iter().enumerate() {
        codes.push(thread_code(k, t, regions, &sems, default_fence)?);
    }
    let mut out = crate::ptx::header("Vulkan", test, name, extra);
    let init: Vec<String> = (0..test.locs)
        .map(|l| format!("{}=0;", loc_name(l)))
        .collect();
    out.push_str(&format!("{{ {} }}\n", init.join(" ")));
    // Each thread in its own subgroup of its CTA's workgroup.
    let heads: Vec<String> = (0..codes.len())
        .map(|t| {
            let sg = (0..t).filter(|&u| ctas[u] == ctas[t]).count();
            format!("P{t}@sg {sg},wg {},qf 0", ctas[t])
        })
        .collect();
    let lines: Vec<&[String]> = codes.iter().map(|c| c.0.as_slice()).collect();
    out.push_str(&crate::ptx::code_table(&heads, &lines));
    let mut conj: Vec<String> = test
        .finals
        .iter()
        .map(|(l, v)| format!("{} == {v}", loc_name(*l)))
        .collect();
    for (t, c) in codes.iter().enumerate() {
        for (r, v) in &c.1 {
            conj.push(format!("P{t}:{r} == {v}"));
        }
    }
    out.push_str(&format!("exists\n({})\n", conj.join(" /\\ ")));
    Ok(out)
}
