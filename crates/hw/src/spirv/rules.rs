//! The rules of SPIR-V and of its Vulkan environment that a stated
//! access, fence or barrier can break. Scopes and semantics are whatever
//! the test says; when SPIR-V for Vulkan cannot express them, the
//! generator refuses (naming the rule) rather than run something else.
//! Each rule here was confirmed against `spirv-val --target-env
//! vulkan1.3` (the `spirv_rules` test sweeps every combination and
//! compares), except [`NEWER_RULE`]s: rules of the current Vulkan
//! specification that spirv-val enforces only from its 2025 releases on
//! (the installed one may be older), refused here too so a module never
//! depends on the validator's age.
//!
//! One encoding is adjusted without changing meaning ([`encoded`]): the
//! storage-class bits of a *relaxed* atomic or control barrier are
//! dropped. Storage-class bits only say which memory an acquire or
//! release orders; with no order they order nothing, and the current
//! Vulkan specification forbids them there
//! (VUID-StandaloneSpirv-MemorySemantics-10871).

use crate::spec::semantics as sem;
use crate::spec::{VkAccess, VkScope};

/// The semantics bits the generator knows (`spec::semantics`).
const KNOWN: u32 = sem::ACQUIRE
    | sem::RELEASE
    | sem::ACQUIRE_RELEASE
    | sem::UNIFORM_MEMORY
    | sem::WORKGROUP_MEMORY
    | sem::MAKE_AVAILABLE
    | sem::MAKE_VISIBLE;
const ORDER: u32 = sem::ACQUIRE | sem::RELEASE | sem::ACQUIRE_RELEASE;
const STORAGE: u32 = sem::UNIFORM_MEMORY | sem::WORKGROUP_MEMORY;

/// Marks refusals under rules newer than some validators (see the
/// module documentation).
pub const NEWER_RULE: &str = "Vulkan specification; spirv-val enforces it from its 2025 releases";

/// The semantics operand actually emitted for `s` (already checked):
/// `s` without its storage-class bits when it has no memory order.
pub fn encoded(s: u32) -> u32 {
    if s & ORDER == 0 {
        s & !STORAGE
    } else {
        s
    }
}

/// Which instruction a semantics operand belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemanticsOf {
    AtomicLoad,
    AtomicStore,
    /// Exchange, arithmetic, bitwise, and a compare-exchange's `Equal`.
    AtomicRmw,
    /// A compare-exchange's `Unequal` semantics.
    CompareExchangeUnequal,
    MemoryBarrier,
    ControlBarrier,
}

/// Checks one `MemorySemantics` operand; `Err` names the rule broken.
pub fn semantics(of: SemanticsOf, s: u32) -> Result<(), String> {
    if s & !KNOWN != 0 {
        return Err(format!(
            "memory semantics bits {:#x} (of {s:#x}) are not ones the generator knows",
            s & !KNOWN
        ));
    }
    let order = s & ORDER;
    if order.count_ones() > 1 {
        return Err(format!(
            "memory semantics {s:#x}: SPIR-V allows at most one of Acquire, Release, AcquireRelease"
        ));
    }
    let acquires = order & (sem::ACQUIRE | sem::ACQUIRE_RELEASE) != 0;
    let releases = order & (sem::RELEASE | sem::ACQUIRE_RELEASE) != 0;
    if s & sem::MAKE_AVAILABLE != 0 && !releases {
        return Err(format!(
            "memory semantics {s:#x}: SPIR-V requires Release or AcquireRelease with MakeAvailable"
        ));
    }
    if s & sem::MAKE_VISIBLE != 0 && !acquires {
        return Err(format!(
            "memory semantics {s:#x}: SPIR-V requires Acquire or AcquireRelease with MakeVisible"
        ));
    }
    if order != 0 && s & STORAGE == 0 && of != SemanticsOf::MemoryBarrier {
        return Err(format!(
            "memory semantics {s:#x}: an Acquire, Release or AcquireRelease order needs at least \
             one storage-class bit (UniformMemory, WorkgroupMemory) to order anything ({NEWER_RULE})"
        ));
    }
    match of {
        SemanticsOf::AtomicLoad if releases => {
            return Err(format!(
            "memory semantics {s:#x}: Vulkan forbids Release and AcquireRelease on OpAtomicLoad \
                 (VUID-StandaloneSpirv-OpAtomicLoad-04731)"
        ))
        }
        SemanticsOf::AtomicStore if acquires => {
            return Err(format!(
            "memory semantics {s:#x}: Vulkan forbids Acquire and AcquireRelease on OpAtomicStore \
                 (VUID-StandaloneSpirv-OpAtomicStore-04730)"
        ))
        }
        SemanticsOf::CompareExchangeUnequal if releases => {
            return Err(format!(
                "memory semantics {s:#x}: SPIR-V forbids Release and AcquireRelease as the Unequal \
                 semantics of OpAtomicCompareExchange"
            ))
        }
        SemanticsOf::MemoryBarrier if order == 0 => {
            return Err(format!(
                "memory semantics {s:#x}: Vulkan requires OpMemoryBarrier to have Acquire, Release \
                 or AcquireRelease (VUID-StandaloneSpirv-OpMemoryBarrier-04732)"
            ))
        }
        SemanticsOf::MemoryBarrier if s & STORAGE == 0 => {
            return Err(format!(
                "memory semantics {s:#x}: Vulkan requires OpMemoryBarrier to name a storage class \
                 (UniformMemory, WorkgroupMemory) (VUID-StandaloneSpirv-OpMemoryBarrier-04733)"
            ))
        }
        _ => {}
    }
    Ok(())
}

/// An atomic instruction's semantics (`unequal`: a compare-exchange's).
pub fn atomic(of: SemanticsOf, s: u32, unequal: Option<u32>) -> Result<(), String> {
    semantics(of, s)?;
    if let Some(u) = unequal {
        semantics(SemanticsOf::CompareExchangeUnequal, u)?;
    }
    Ok(())
}

/// `OpMemoryBarrier(scope, semantics)`.
pub fn memory_barrier(_scope: VkScope, s: u32) -> Result<(), String> {
    semantics(SemanticsOf::MemoryBarrier, s)
}

/// `OpControlBarrier(execution, memory, semantics)` in a compute shader.
pub fn control_barrier(execution: VkScope, _memory: VkScope, s: u32) -> Result<(), String> {
    if !matches!(execution, VkScope::Workgroup | VkScope::Subgroup) {
        return Err(format!(
            "execution scope {execution:?}: Vulkan allows only Workgroup and Subgroup execution \
             scope for OpControlBarrier in a compute shader (VUID-StandaloneSpirv-None-04636)"
        ));
    }
    semantics(SemanticsOf::ControlBarrier, s)
}

/// A non-atomic `OpLoad` (`load`) or `OpStore`'s memory operands.
pub fn plain(load: bool, a: &VkAccess) -> Result<(), String> {
    if load && a.make_available {
        return Err(
            "MakePointerAvailable on a load: SPIR-V allows it only on OpStore (and copies)".into(),
        );
    }
    if !load && a.make_visible {
        return Err(
            "MakePointerVisible on a store: SPIR-V allows it only on OpLoad (and copies)".into(),
        );
    }
    Ok(())
}
