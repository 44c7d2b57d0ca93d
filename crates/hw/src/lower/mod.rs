//! A litmus test (`ir::Program`) → what the hardware runs: a
//! [`KernelSpec`] for the kernel generators, where each observed value
//! comes from ([`Source`]), and which threads must share a workgroup or a
//! subgroup ([`ThreadPlace`]).
//!
//! The instruction tags the front-ends attached (`docs/EVENTS.md`) are
//! decoded back into the dialect's own operations (`access.rs`); the
//! control flow is cut into phases at control barriers and into basic
//! blocks (`cfg.rs`). Whatever a GPU cannot run as the test states it is
//! refused as `unsupported`, with the position of the instruction, never
//! approximated: virtual aliases and proxies, `ssw`, free values, threads
//! in different queue families or GPUs, workgroup memory shared across
//! workgroups, barrier quorums and arrive-only barriers, barriers inside
//! branches or loops, and `avdevice`/`visdevice`.

mod access;
mod cfg;
#[cfg(test)]
mod tests;

use crate::spec::{Dialect, KernelSpec, LocIdx, LocSlot, Reg, Region, ThreadCode};
use gpumc_core::diag::{Error, ErrorKind, Result};
use gpumc_core::ir::{Arch, Instr, InstrKind, Pos, Program, Term};

/// A test ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    pub spec: KernelSpec,
    /// Where each requested term's value comes from (same order as the
    /// terms given to [`lower`]).
    pub sources: Vec<Source>,
    /// Placement constraints, one per thread.
    pub places: Vec<ThreadPlace>,
}

/// Where an observed value is read after a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Register `recorded[slot]` of thread `thread`'s result record.
    Reg {
        thread: usize,
        slot: usize,
    },
    /// The final value of a location of the instance.
    Loc(LocIdx),
    Const(i64),
}

/// Where a thread must run relative to the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPlace {
    /// Threads with equal `group` run in one workgroup (CTA); different
    /// groups in different workgroups.
    pub group: usize,
    /// `Some(k)`: threads of a group with equal `k` share a subgroup
    /// (warp), different `k` use different subgroups. `None`: any
    /// subgroup of the group's workgroup.
    pub subgroup: Option<usize>,
}

/// Lowers `p`, recording the values of `terms` (registers and locations;
/// constants pass through).
pub fn lower(p: &Program, terms: &[Term]) -> Result<Lowered> {
    let dialect = match p.arch {
        Arch::Vulkan => Dialect::Vulkan,
        Arch::Ptx => Dialect::Ptx,
        Arch::C => return Err(refuse_c(p)),
    };
    refuse_program_features(p)?;
    let places = places(p)?;
    let locations = locations(p, &places)?;
    let (threads_code, barriers) = cfg::threads(p)?;
    let mut threads: Vec<ThreadCode> = threads_code;
    let mut sources = Vec::with_capacity(terms.len());
    for t in terms {
        sources.push(match t {
            Term::Const(c) => Source::Const(*c),
            Term::Loc(l) => Source::Loc(*l),
            Term::Reg(th, name) => {
                let code = threads.get_mut(*th).ok_or_else(|| {
                    Error::new(ErrorKind::Semantic, format!("no thread {th} in the test"))
                })?;
                let reg = match code.regs.iter().position(|r| &r.name == name) {
                    Some(r) => r,
                    None => {
                        // Observed but never written: its initial value.
                        code.regs.push(Reg {
                            name: name.clone(),
                            init: 0,
                        });
                        code.regs.len() - 1
                    }
                };
                let slot = match code.recorded.iter().position(|&r| r == reg) {
                    Some(s) => s,
                    None => {
                        code.recorded.push(reg);
                        code.recorded.len() - 1
                    }
                };
                Source::Reg { thread: *th, slot }
            }
        });
    }
    Ok(Lowered {
        spec: KernelSpec {
            name: p.name.clone(),
            dialect,
            locations,
            threads,
            barriers,
        },
        sources,
        places,
    })
}

/// Program-level features no GPU run can reproduce.
fn refuse_program_features(p: &Program) -> Result<()> {
    let hw = |what: String| {
        Error::new(
            ErrorKind::Unsupported,
            format!("unsupported: on hardware: {what}"),
        )
    };
    if !p.ssw.is_empty() {
        return Err(hw(
            "`ssw` (system-synchronizes-with) orders threads through the host, which a single launch cannot".into(),
        ));
    }
    if p.has_free_values() || !p.inputs.is_empty() {
        return Err(hw(
            "free values (unset inputs, undefined values, uninitialised memory)".into(),
        ));
    }
    for (i, l) in p.locations.iter().enumerate() {
        if l.phys != i || l.virt != i {
            return Err(hw(format!(
                "`{}` aliases another location (virtual aliases and proxies)",
                l.name
            )));
        }
        if let Some(sp) = &l.space {
            if !matches!(sp.as_str(), "global" | "shared" | "generic") {
                return Err(hw(format!("`{}` is in the {sp} proxy", l.name)));
            }
        }
    }
    Ok(())
}

/// Workgroup and subgroup classes from the placements.
fn places(p: &Program) -> Result<Vec<ThreadPlace>> {
    let mut groups: Vec<i64> = Vec::new();
    let mut subs: Vec<(i64, i64)> = Vec::new();
    let index = |v: &mut Vec<i64>, x: i64| match v.iter().position(|&y| y == x) {
        Some(i) => i,
        None => {
            v.push(x);
            v.len() - 1
        }
    };
    let outermost = p
        .threads
        .first()
        .and_then(|t| t.placement.ids.last().copied());
    let mut out = Vec::new();
    for t in &p.threads {
        let ids = &t.placement.ids;
        if ids.last().copied() != outermost {
            let level = p.scope_levels().last().copied().unwrap_or("device");
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: on hardware: threads in different {}s (one launch runs on one queue and one device)",
                    if level == "qf" { "queue familie" } else { level }
                ),
            ));
        }
        let (group_id, sub) = match p.arch {
            // [sg, wg, qf]
            Arch::Vulkan => (ids[1], Some(ids[0])),
            // [cta, gpu]; the warp only where the dialect states it.
            Arch::Ptx | Arch::C => (ids[0], t.placement.warp),
        };
        let group = index(&mut groups, group_id);
        let subgroup = sub.map(|s| match subs.iter().position(|&x| x == (group_id, s)) {
            Some(i) => i,
            None => {
                subs.push((group_id, s));
                subs.len() - 1
            }
        });
        out.push(ThreadPlace { group, subgroup });
    }
    Ok(out)
}

/// The location slots: one per location, in the region its accesses (or
/// its declaration) put it; workgroup memory must stay in one workgroup.
fn locations(p: &Program, places: &[ThreadPlace]) -> Result<Vec<LocSlot>> {
    let mut slots: Vec<LocSlot> = p
        .locations
        .iter()
        .map(|l| {
            let init = i32::try_from(l.init).map_err(|_| {
                Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "unsupported: on hardware: the initial value {} of `{}` does not fit in 32 bits",
                        l.init, l.name
                    ),
                )
            })?;
            Ok(LocSlot {
                name: l.name.clone(),
                region: if l.space.as_deref() == Some("shared") {
                    Region::Shared
                } else {
                    Region::Global
                },
                init,
            })
        })
        .collect::<Result<_>>()?;
    // Vulkan: the storage class of the accesses decides; all must agree.
    let mut decided: Vec<Option<(Region, &Instr)>> = vec![None; slots.len()];
    let mut group_of: Vec<Option<usize>> = vec![None; slots.len()];
    for (th, t) in p.threads.iter().enumerate() {
        for ins in &t.instrs {
            let Some(addr) = ins.kind.addr() else {
                continue;
            };
            let region = match p.arch {
                Arch::Vulkan => Some(access::vulkan_region(ins)?),
                Arch::Ptx | Arch::C => None,
            };
            for &l in addr.cells() {
                if let Some(r) = region {
                    match decided[l] {
                        Some((prev, first)) if prev != r => {
                            return Err(Error::unsupported(
                                ins.pos,
                                format!(
                                    "on hardware: `{}` is accessed in two storage classes (here and at {})",
                                    slots[l].name, first.pos
                                ),
                            ))
                        }
                        _ => decided[l] = Some((r, ins)),
                    }
                    slots[l].region = r;
                }
                if slots[l].region == Region::Shared {
                    let g = places[th].group;
                    match group_of[l] {
                        Some(prev) if prev != g => {
                            return Err(Error::unsupported(
                                ins.pos,
                                format!(
                                    "on hardware: `{}` is in workgroup (shared) memory but threads of different {} access it",
                                    slots[l].name,
                                    if p.arch == Arch::Ptx { "CTAs" } else { "workgroups" }
                                ),
                            ))
                        }
                        _ => group_of[l] = Some(g),
                    }
                }
            }
        }
    }
    Ok(slots)
}

/// The position-carrying refusal every lowering step uses.
/// A C program runs on a GPU only once compiled to a GPU dialect; refused
/// at its first instruction (or at the top of the file).
pub fn refuse_c(p: &Program) -> Error {
    let pos = p
        .threads
        .iter()
        .find_map(|t| t.instrs.first())
        .map_or(Pos { line: 1, col: 1 }, |i| i.pos);
    Error::unsupported(
        pos,
        "on hardware: a C litmus test; compile it to PTX or Vulkan first (gpumc compile)",
    )
}

pub(crate) fn refuse(ins: &Instr, what: impl std::fmt::Display) -> Error {
    Error::unsupported(
        ins.pos,
        format!("on hardware: {what} (`{}`)", ins.text.trim()),
    )
}

/// Whether an instruction's kind is one the hardware can run at all.
pub(crate) fn check_kind(ins: &Instr) -> Result<()> {
    match &ins.kind {
        InstrKind::Havoc { .. } | InstrKind::Input { .. } => Err(refuse(ins, "a free value")),
        InstrKind::Unreachable { .. } => Err(refuse(ins, "`OpUnreachable`")),
        // Hardware cannot discard the executions an assumption excludes.
        InstrKind::Infeasible => Err(refuse(ins, "an assumption")),
        _ => Ok(()),
    }
}
