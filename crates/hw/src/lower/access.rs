//! Instruction tags (`docs/EVENTS.md`) decoded back into the dialect's
//! operations: a Vulkan access's atomicity, scope, semantics and
//! availability/visibility operands; a PTX access's order, scope and cache
//! operator; fences and control barriers.

use super::refuse;
use crate::spec::{
    semantics as sem, Access, Fence, PhaseBarrier, PtxAccess, PtxScope, PtxSem, Region, VkAccess,
    VkScope,
};
use gpumc_core::diag::Result;
use gpumc_core::ir::{Instr, InstrKind};

fn has(tags: &[&str], t: &str) -> bool {
    tags.contains(&t)
}

/// Every tag of an instruction (both halves of an RMW).
fn all(ins: &Instr) -> Vec<&str> {
    // The tags of a compare-exchange that fails are read apart (its
    // `Unequal` semantics).
    ins.event_tags(false)
        .chain(ins.halves.write.iter().map(String::as_str))
        .collect()
}

/// The storage class of a Vulkan access: `sc0` device memory (storage
/// buffers), `sc1` workgroup memory; no class is `sc0`.
pub(super) fn vulkan_region(ins: &Instr) -> Result<Region> {
    let tags = all(ins);
    if has(&tags, "SC2") || has(&tags, "SC3") {
        return Err(refuse(
            ins,
            "storage classes `sc2`/`sc3` (only `sc0`, device memory, and `sc1`, workgroup memory, exist on a GPU)",
        ));
    }
    Ok(if has(&tags, "SC1") {
        Region::Shared
    } else {
        Region::Global
    })
}

fn vk_scope(tags: &[&str]) -> Option<VkScope> {
    [
        ("SG", VkScope::Subgroup),
        ("WG", VkScope::Workgroup),
        ("QF", VkScope::QueueFamily),
        ("DV", VkScope::Device),
    ]
    .iter()
    .find(|(t, _)| has(tags, t))
    .map(|&(_, s)| s)
}

/// Storage-class semantics bits (`semsc0` → uniform (storage-buffer)
/// memory, `semsc1` → workgroup memory).
fn class_bits(ins: &Instr, tags: &[&str]) -> Result<u32> {
    if has(tags, "SEMSC2") || has(tags, "SEMSC3") {
        return Err(refuse(ins, "storage-class semantics `semsc2`/`semsc3`"));
    }
    let mut bits = 0;
    if has(tags, "SEMSC0") {
        bits |= sem::UNIFORM_MEMORY;
    }
    if has(tags, "SEMSC1") {
        bits |= sem::WORKGROUP_MEMORY;
    }
    Ok(bits)
}

/// The `MemorySemantics` of a fence, barrier or atomic with orders
/// `acq`/`rel`. Storage-class bits without an order are dropped: in the
/// Vulkan model they only say which classes an acquire or release (or an
/// `semav`/`semvis` operation) covers, so alone they mean nothing, and
/// SPIR-V has no encoding for them without an order. `semav` needs a
/// release and `semvis` an acquire in SPIR-V; a test asking otherwise is
/// refused rather than given a different meaning.
fn semantics(ins: &Instr, tags: &[&str], acq: bool, rel: bool) -> Result<u32> {
    let mut bits = match (acq, rel) {
        (true, true) => sem::ACQUIRE_RELEASE,
        (true, false) => sem::ACQUIRE,
        (false, true) => sem::RELEASE,
        (false, false) => 0,
    };
    let av = has(tags, "SEMAV");
    let vis = has(tags, "SEMVIS");
    if av && !rel {
        return Err(refuse(
            ins,
            "`semav` without a release order (SPIR-V's MakeAvailable needs Release)",
        ));
    }
    if vis && !acq {
        return Err(refuse(
            ins,
            "`semvis` without an acquire order (SPIR-V's MakeVisible needs Acquire)",
        ));
    }
    if av {
        bits |= sem::MAKE_AVAILABLE;
    }
    if vis {
        bits |= sem::MAKE_VISIBLE;
    }
    if bits != 0 {
        bits |= class_bits(ins, tags)?;
    }
    Ok(bits)
}

/// A Vulkan memory access (load, store or RMW).
pub(super) fn vulkan(ins: &Instr) -> Result<Access> {
    let tags = all(ins);
    let rmw = matches!(ins.kind, InstrKind::Rmw { .. });
    let atomic = has(&tags, "ATOM") || rmw;
    let scope = vk_scope(&tags);
    let mut a = VkAccess {
        atomic,
        scope,
        semantics: 0,
        unequal_semantics: 0,
        make_available: false,
        make_visible: false,
        non_private: false,
    };
    if atomic {
        if scope.is_none() {
            return Err(refuse(ins, "an atomic access without a scope"));
        }
        // Atomics are implicitly available/visible (their AV/VIS tags say
        // so); only the order and the semantics are operands.
        let (acq, rel) = if rmw {
            let read: Vec<&str> = ins.halves.read.iter().map(String::as_str).collect();
            let write: Vec<&str> = ins.halves.write.iter().map(String::as_str).collect();
            (has(&read, "ACQ"), has(&write, "REL"))
        } else {
            (has(&tags, "ACQ"), has(&tags, "REL"))
        };
        a.semantics = semantics(ins, &tags, acq, rel)?;
        if matches!(
            ins.kind,
            InstrKind::Rmw {
                op: gpumc_core::ir::RmwOp::Cas { .. },
                ..
            }
        ) {
            // A failed compare-exchange only reads: its own tags where it
            // has them; otherwise the success's without release and
            // availability (SPIR-V forbids both on the Unequal semantics).
            if let Some(f) = &ins.failed {
                let f: Vec<&str> = f.iter().map(String::as_str).collect();
                a.unequal_semantics = semantics(ins, &f, has(&f, "ACQ"), false)?;
                return Ok(Access::Vulkan(a));
            }
            let mut u = a.semantics & !(sem::RELEASE | sem::MAKE_AVAILABLE);
            if u & sem::ACQUIRE_RELEASE != 0 {
                u = (u & !sem::ACQUIRE_RELEASE) | sem::ACQUIRE;
            }
            if u & (sem::ACQUIRE | sem::MAKE_VISIBLE) == 0 {
                u = 0;
            }
            a.unequal_semantics = u;
        }
    } else {
        a.make_available = has(&tags, "AV");
        a.make_visible = has(&tags, "VIS");
        a.non_private = has(&tags, "NONPRIV") || a.make_available || a.make_visible;
        if (a.make_available || a.make_visible) && scope.is_none() {
            return Err(refuse(ins, "`av`/`vis` without a scope"));
        }
        if !a.make_available && !a.make_visible {
            // The scope of a plain access has no SPIR-V operand.
            a.scope = None;
        }
    }
    Ok(Access::Vulkan(a))
}

/// A Vulkan fence (`membar`).
pub(super) fn vulkan_fence(ins: &Instr) -> Result<Fence> {
    let tags = all(ins);
    if has(&tags, "AVDEVICE") || has(&tags, "VISDEVICE") {
        return Err(refuse(
            ins,
            "`avdevice`/`visdevice` (device-domain availability and visibility happen on the host side of a submission)",
        ));
    }
    let scope = vk_scope(&tags).ok_or_else(|| refuse(ins, "a fence without a scope"))?;
    let semantics = semantics(ins, &tags, has(&tags, "ACQ"), has(&tags, "REL"))?;
    Ok(Fence::Vulkan { scope, semantics })
}

/// A Vulkan control barrier (`cbar`): the stated memory scope and
/// semantics; it waits for the workgroup, or for the subgroup when its
/// scope is `sg` (Khronos's `noncohmpbarsg`).
pub(super) fn vulkan_barrier(ins: &Instr) -> Result<PhaseBarrier> {
    let tags = all(ins);
    let memory = vk_scope(&tags).unwrap_or(VkScope::Workgroup);
    let execution = if memory == VkScope::Subgroup {
        VkScope::Subgroup
    } else {
        VkScope::Workgroup
    };
    let semantics = semantics(ins, &tags, has(&tags, "ACQ"), has(&tags, "REL"))?;
    Ok(PhaseBarrier::Vulkan {
        execution,
        memory,
        semantics,
    })
}

fn ptx_scope(tags: &[&str]) -> Option<PtxScope> {
    [
        ("CTA", PtxScope::Cta),
        ("CLUSTER", PtxScope::Cluster),
        ("GPU", PtxScope::Gpu),
        ("SYS", PtxScope::Sys),
    ]
    .iter()
    .find(|(t, _)| has(tags, t))
    .map(|&(_, s)| s)
}

/// Cache-operator tags (the `GPU_PTX` front-end's) and their spelling.
const CACHE_OPS: &[(&str, &str)] = &[
    ("CA", "ca"),
    ("CG", "cg"),
    ("CS", "cs"),
    ("CV", "cv"),
    ("LU", "lu"),
    ("WB", "wb"),
    ("WT", "wt"),
];

fn refuse_proxies(ins: &Instr, tags: &[&str]) -> Result<()> {
    for p in ["SUR", "TEX", "CON", "ALIAS", "PROXY"] {
        if has(tags, p) {
            return Err(refuse(
                ins,
                "surface, texture and constant proxies (the harness has no surfaces or textures)",
            ));
        }
    }
    Ok(())
}

/// A PTX memory access.
pub(super) fn ptx(ins: &Instr) -> Result<Access> {
    let tags = all(ins);
    refuse_proxies(ins, &tags)?;
    let rmw = matches!(ins.kind, InstrKind::Rmw { .. });
    let scope = ptx_scope(&tags);
    let cache = CACHE_OPS
        .iter()
        .find(|(t, _)| has(&tags, t))
        .map(|&(_, s)| s.to_string());
    let sem = if has(&tags, "VOLATILE") {
        PtxSem::Volatile
    } else if rmw {
        let read = ins.halves.read.iter().any(|t| t == "ACQ");
        let write = ins.halves.write.iter().any(|t| t == "REL");
        match (read, write) {
            (true, true) => PtxSem::AcqRel,
            (true, false) => PtxSem::Acquire,
            (false, true) => PtxSem::Release,
            (false, false) => PtxSem::Relaxed,
        }
    } else if has(&tags, "WEAK") {
        PtxSem::Weak
    } else if has(&tags, "ACQ") {
        PtxSem::Acquire
    } else if has(&tags, "REL") {
        PtxSem::Release
    } else {
        PtxSem::Relaxed
    };
    let scope = match sem {
        PtxSem::Weak | PtxSem::Volatile if !rmw => None,
        _ => Some(scope.unwrap_or(PtxScope::Gpu)),
    };
    if cache.is_some() && !matches!(sem, PtxSem::Weak) {
        return Err(refuse(
            ins,
            "a cache operator on a non-weak access (PTX has none)",
        ));
    }
    Ok(Access::Ptx(PtxAccess { sem, scope, cache }))
}

/// A PTX fence: `membar.*` as written, else `fence.sc`/`fence.acq_rel`.
pub(super) fn ptx_fence(ins: &Instr) -> Result<Fence> {
    let tags = all(ins);
    refuse_proxies(ins, &tags)?;
    let scope = ptx_scope(&tags).ok_or_else(|| refuse(ins, "a fence without a scope"))?;
    if ins.text.trim_start().starts_with("membar") {
        return Ok(Fence::PtxMembar { scope });
    }
    Ok(Fence::PtxFence {
        sc: has(&tags, "SC"),
        scope,
    })
}
