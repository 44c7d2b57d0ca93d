//! Checks a spec's indices and shape before any text is written, so the
//! generator can index without panicking and a malformed spec is an error
//! that names what is wrong.

use super::{malformed, unsupported};
use crate::abi::KernelConfig;
use crate::spec::{
    Address, Dialect, End, KernelSpec, Op, PhaseBarrier, RmwKind, ThreadCode, Value,
};
use gpumc_core::diag::Result;

/// Static shared memory (`.shared` arrays) is limited to 48 KiB per CTA.
pub(crate) const MAX_STATIC_SHARED_WORDS: u32 = 48 * 1024 / 4;
/// `barrier.sync` has 16 named barriers.
const BARRIER_IDS: u32 = 16;
/// Bounds that keep every offset the kernel computes within 32 bits.
const MAX_LOCATIONS: usize = 1 << 20;
const MAX_THREADS: usize = 1 << 20;
const MAX_REGS: usize = 1 << 20;

pub(crate) fn spec(spec: &KernelSpec, cfg: &KernelConfig) -> Result<()> {
    if spec.dialect != Dialect::Ptx {
        return Err(unsupported(
            "a Vulkan-dialect kernel spec cannot be compiled to PTX",
        ));
    }
    if cfg.workgroup_size == 0 {
        return Err(malformed("workgroup size 0"));
    }
    if spec.locations.len() > MAX_LOCATIONS || spec.threads.len() > MAX_THREADS {
        return Err(unsupported(format!(
            "{} locations and {} threads: at most {MAX_LOCATIONS} of each",
            spec.locations.len(),
            spec.threads.len()
        )));
    }
    if spec.uses_shared() {
        if cfg.shared_words == 0 {
            return Err(malformed(
                "a location is in shared memory but the configuration has 0 shared words",
            ));
        }
        if cfg.shared_words > MAX_STATIC_SHARED_WORDS {
            return Err(unsupported(format!(
                "{} words of shared memory: a CTA's static shared memory holds at most {MAX_STATIC_SHARED_WORDS}",
                cfg.shared_words
            )));
        }
    }
    for barrier in &spec.barriers {
        match barrier {
            PhaseBarrier::Ptx { id } if *id < BARRIER_IDS => {}
            PhaseBarrier::Ptx { id } => {
                return Err(unsupported(format!(
                    "barrier.sync {id}: PTX has barriers 0 to {}",
                    BARRIER_IDS - 1
                )))
            }
            PhaseBarrier::Vulkan { .. } => {
                return Err(unsupported("a Vulkan control barrier in a PTX kernel"))
            }
        }
    }
    for thread in &spec.threads {
        check_thread(spec, thread)?;
    }
    Ok(())
}

fn check_thread(spec: &KernelSpec, thread: &ThreadCode) -> Result<()> {
    let who = &thread.name;
    if thread.phases.len() != spec.barriers.len() + 1 {
        return Err(malformed(format!(
            "thread {who} has {} phases; {} barriers need {}",
            thread.phases.len(),
            spec.barriers.len(),
            spec.barriers.len() + 1
        )));
    }
    let regs = thread.regs.len();
    if regs > MAX_REGS || thread.recorded.len() > MAX_REGS {
        return Err(unsupported(format!(
            "thread {who} has {regs} registers and records {}: at most {MAX_REGS} of each",
            thread.recorded.len()
        )));
    }
    let reg = |r: usize| {
        if r < regs {
            Ok(())
        } else {
            Err(malformed(format!(
                "thread {who} uses register {r}; it has {regs}"
            )))
        }
    };
    let value = |v: &Value| match v {
        Value::Reg(r) => reg(*r),
        Value::Const(_) => Ok(()),
    };
    let loc = |l: usize| {
        if l < spec.locations.len() {
            Ok(())
        } else {
            Err(malformed(format!(
                "thread {who} accesses location {l}; the spec has {}",
                spec.locations.len()
            )))
        }
    };
    let address = |a: &Address| match a {
        Address::Fixed(l) => loc(*l),
        Address::Indexed { index, cells } => {
            value(index)?;
            cells.iter().try_for_each(|l| loc(*l))?;
            let regions: Vec<_> = cells.iter().map(|l| spec.locations[*l].region).collect();
            if regions.windows(2).any(|w| w[0] != w[1]) {
                return Err(unsupported(format!(
                    "thread {who}: an indexed access over cells in both global and shared memory"
                )));
            }
            Ok(())
        }
    };
    for &r in &thread.recorded {
        reg(r)?;
    }
    for phase in &thread.phases {
        let blocks = phase.blocks.len();
        let target = |b: usize| {
            if b < blocks {
                Ok(())
            } else {
                Err(malformed(format!(
                    "thread {who} jumps to block {b}; the phase has {blocks}"
                )))
            }
        };
        for block in &phase.blocks {
            for op in &block.ops {
                match op {
                    Op::Load { dst, addr, .. } => {
                        reg(*dst)?;
                        address(addr)?;
                    }
                    Op::Store { addr, value: v, .. } => {
                        address(addr)?;
                        value(v)?;
                    }
                    Op::Rmw {
                        dst,
                        addr,
                        op,
                        value: v,
                        ..
                    } => {
                        if let Some(d) = dst {
                            reg(*d)?;
                        }
                        address(addr)?;
                        value(v)?;
                        if let RmwKind::Cas { expected } = op {
                            value(expected)?;
                        }
                    }
                    Op::Fence(_) => {}
                    Op::Local { dst, a, b, .. } => {
                        reg(*dst)?;
                        value(a)?;
                        value(b)?;
                    }
                }
            }
            match &block.end {
                End::Goto(b) => target(*b)?,
                End::Branch {
                    a,
                    b,
                    then,
                    otherwise,
                    ..
                } => {
                    value(a)?;
                    value(b)?;
                    target(*then)?;
                    target(*otherwise)?;
                }
                End::Exit => {}
            }
        }
    }
    Ok(())
}
