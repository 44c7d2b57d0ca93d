//! A test thread's operations: memory accesses exactly as the test states
//! them (`spec::VkAccess`), fences, register arithmetic; addresses from
//! the row, an `Address::Indexed` checked against its cells.

use super::kernel::Kernel;
use super::rules::{self, SemanticsOf};
use super::{op, unsupported, usage};
use crate::abi;
use crate::spec::{Access, Address, Fence, Op, RegIdx, Region, RmwKind, VkAccess};
use gpumc_core::diag::Result;

/// Where an access goes: a pointer, computed inside the bounds check
/// when there is one.
struct Target {
    region: Region,
    /// The address word.
    word: u32,
    /// For `Address::Indexed`: whether the index is in bounds.
    in_bounds: Option<u32>,
}

/// What to do with the pointer.
enum Action<'s> {
    Load {
        dst: RegIdx,
    },
    Store {
        value: u32,
    },
    Rmw {
        dst: Option<RegIdx>,
        kind: &'s RmwKind,
        value: u32,
        expected: Option<u32>,
    },
}

impl Kernel<'_> {
    /// One operation of thread `t`.
    pub fn operation(&mut self, t: usize, o: &Op) -> Result<()> {
        match o {
            Op::Load { dst, addr, access } => {
                let a = self.vk(access)?;
                self.access(t, addr, a, Action::Load { dst: *dst })
            }
            Op::Store {
                addr,
                value,
                access,
            } => {
                let a = self.vk(access)?;
                let value = self.value(t, value)?;
                self.access(t, addr, a, Action::Store { value })
            }
            Op::Rmw {
                dst,
                addr,
                op: kind,
                value,
                access,
            } => {
                let a = self.vk(access)?;
                let value = self.value(t, value)?;
                let expected = match kind {
                    RmwKind::Cas { expected } => Some(self.value(t, expected)?),
                    _ => None,
                };
                let act = Action::Rmw {
                    dst: *dst,
                    kind,
                    value,
                    expected,
                };
                self.access(t, addr, a, act)
            }
            Op::Fence(Fence::Vulkan { scope, semantics }) => {
                rules::memory_barrier(*scope, *semantics)
                    .map_err(|rule| self.refuse(t, "fence", rule))?;
                let ops = [self.b.c(*scope as u32), self.b.c(*semantics)];
                self.b.op(op::MEMORY_BARRIER, &ops);
                Ok(())
            }
            Op::Fence(f) => Err(usage(format!(
                "{}: thread {} has a PTX fence {f:?} in a Vulkan spec",
                self.spec.name, self.spec.threads[t].name
            ))),
            Op::Local { dst, op: bop, a, b } => {
                let (a, b) = (self.value(t, a)?, self.value(t, b)?);
                let r = self.binop(*bop, a, b);
                self.set_reg(t, *dst, r)
            }
        }
    }

    fn vk<'s>(&self, access: &'s Access) -> Result<&'s VkAccess> {
        match access {
            Access::Vulkan(a) => Ok(a),
            Access::Ptx(p) => Err(usage(format!(
                "{}: a PTX access {p:?} in a Vulkan spec",
                self.spec.name
            ))),
        }
    }

    fn refuse(&self, t: usize, what: &str, rule: String) -> gpumc_core::diag::Error {
        unsupported(format!(
            "{}: thread {}: {what}: {rule}",
            self.spec.name, self.spec.threads[t].name
        ))
    }

    fn target(&mut self, t: usize, addr: &Address) -> Result<Target> {
        let spec = self.spec;
        let slot = |l: usize| {
            spec.locations.get(l).ok_or_else(|| {
                usage(format!(
                    "{}: thread {} accesses location {l} of {}",
                    spec.name,
                    spec.threads[t].name,
                    spec.locations.len()
                ))
            })
        };
        match addr {
            Address::Fixed(l) => Ok(Target {
                region: slot(*l)?.region,
                word: self.loc_words[*l],
                in_bounds: None,
            }),
            Address::Indexed { index, cells } => {
                let index = self.value(t, index)?;
                let Some((&first, rest)) = cells.split_first() else {
                    // No cell: every index is out of bounds.
                    return Ok(Target {
                        region: Region::Global,
                        word: self.b.c(0),
                        in_bounds: Some(self.b.bool_const(false)),
                    });
                };
                let region = slot(first)?.region;
                let mut word = self.loc_words[first];
                for (k, &l) in rest.iter().enumerate() {
                    if slot(l)?.region != region {
                        return Err(unsupported(format!(
                            "{}: thread {}: an indexed access whose cells live in different \
                             memories (global and shared)",
                            spec.name, spec.threads[t].name
                        )));
                    }
                    // The address word is data-dependent on the index (an
                    // address dependency), not control-dependent.
                    let k = self.b.c(k as u32 + 1);
                    let is_k = self.b.b(op::I_EQUAL, &[index, k]);
                    word = self.b.select(is_k, self.loc_words[l], word);
                }
                let n = self.b.c(cells.len() as u32);
                // Unsigned: negative indices are out of bounds too.
                let in_bounds = self.b.b(op::U_LESS_THAN, &[index, n]);
                Ok(Target {
                    region,
                    word,
                    in_bounds: Some(in_bounds),
                })
            }
        }
    }

    /// Checks `a` for the action, then performs it on `addr` (inside the
    /// bounds check for an indexed address: out of bounds, a destination
    /// register gets 0 and the status becomes `STATUS_OUT_OF_BOUNDS`).
    fn access(&mut self, t: usize, addr: &Address, a: &VkAccess, act: Action) -> Result<()> {
        self.check(t, a, &act)?;
        let target = self.target(t, addr)?;
        let Some(in_bounds) = target.in_bounds else {
            let ptr = self.region_ptr(target.region, target.word)?;
            return self.perform(t, ptr, a, &act);
        };
        let mut i = self.b.begin_if(in_bounds);
        let ptr = self.region_ptr(target.region, target.word)?;
        self.perform(t, ptr, a, &act)?;
        self.b.begin_else(&mut i);
        let dst = match act {
            Action::Load { dst } => Some(dst),
            Action::Rmw { dst, .. } => dst,
            Action::Store { .. } => None,
        };
        if let Some(dst) = dst {
            let zero = self.b.c(0);
            self.set_reg(t, dst, zero)?;
        }
        // Only a running thread gets here, so its status is DONE or
        // already OUT_OF_BOUNDS.
        let oob = self.b.c(abi::STATUS_OUT_OF_BOUNDS);
        self.b.store(self.status, oob);
        self.b.end_if(i);
        Ok(())
    }

    /// The Vulkan rules for this access (see [`rules`]).
    fn check(&self, t: usize, a: &VkAccess, act: &Action) -> Result<()> {
        let what = match act {
            Action::Load { .. } => "load",
            Action::Store { .. } => "store",
            Action::Rmw { .. } => "read-modify-write",
        };
        let atomic = a.atomic || matches!(act, Action::Rmw { .. });
        if atomic {
            if a.scope.is_none() {
                return Err(usage(format!(
                    "{}: thread {}: an atomic {what} without a scope",
                    self.spec.name, self.spec.threads[t].name
                )));
            }
            let (of, unequal) = match act {
                Action::Load { .. } => (SemanticsOf::AtomicLoad, None),
                Action::Store { .. } => (SemanticsOf::AtomicStore, None),
                Action::Rmw { expected, .. } => (
                    SemanticsOf::AtomicRmw,
                    expected.map(|_| a.unequal_semantics),
                ),
            };
            rules::atomic(of, a.semantics, unequal).map_err(|r| self.refuse(t, what, r))
        } else {
            let load = matches!(act, Action::Load { .. });
            rules::plain(load, a).map_err(|r| self.refuse(t, what, r))?;
            let avis = a.make_available || a.make_visible;
            if avis != a.scope.is_some() {
                return Err(usage(format!(
                    "{}: thread {}: a non-atomic {what} has a scope iff it makes the pointer \
                     available or visible",
                    self.spec.name, self.spec.threads[t].name
                )));
            }
            Ok(())
        }
    }

    /// The instruction itself, on `ptr`.
    fn perform(&mut self, t: usize, ptr: u32, a: &VkAccess, act: &Action) -> Result<()> {
        let atomic = a.atomic || matches!(act, Action::Rmw { .. });
        if !atomic {
            let operands = self.memory_operands(a);
            match act {
                Action::Load { dst } => {
                    let mut ops = vec![ptr];
                    ops.extend(operands);
                    let v = self.b.u(op::LOAD, &ops);
                    return self.set_reg(t, *dst, v);
                }
                Action::Store { value } => {
                    let mut ops = vec![ptr, *value];
                    ops.extend(operands);
                    self.b.op(op::STORE, &ops);
                    return Ok(());
                }
                Action::Rmw { .. } => {}
            }
        }
        // `check` made sure atomics have a scope.
        let scope = self.b.c(a.scope.map_or(0, |s| s as u32));
        let semantics = self.b.c(rules::encoded(a.semantics));
        match act {
            Action::Load { dst } => {
                let v = self.b.u(op::ATOMIC_LOAD, &[ptr, scope, semantics]);
                self.set_reg(t, *dst, v)
            }
            Action::Store { value } => {
                self.b
                    .op(op::ATOMIC_STORE, &[ptr, scope, semantics, *value]);
                Ok(())
            }
            Action::Rmw {
                dst,
                kind,
                value,
                expected,
            } => {
                let old = if let Some(expected) = expected {
                    let unequal = self.b.c(rules::encoded(a.unequal_semantics));
                    self.b.u(
                        op::ATOMIC_COMPARE_EXCHANGE,
                        &[ptr, scope, semantics, unequal, *value, *expected],
                    )
                } else {
                    let opcode = match kind {
                        RmwKind::Exch => op::ATOMIC_EXCHANGE,
                        RmwKind::Add => op::ATOMIC_I_ADD,
                        RmwKind::Sub => op::ATOMIC_I_SUB,
                        RmwKind::And => op::ATOMIC_AND,
                        RmwKind::Or => op::ATOMIC_OR,
                        RmwKind::Xor => op::ATOMIC_XOR,
                        RmwKind::Min => op::ATOMIC_S_MIN,
                        RmwKind::Max => op::ATOMIC_S_MAX,
                        RmwKind::Cas { .. } => op::ATOMIC_COMPARE_EXCHANGE,
                    };
                    self.b.u(opcode, &[ptr, scope, semantics, *value])
                };
                match dst {
                    Some(d) => self.set_reg(t, *d, old),
                    None => Ok(()),
                }
            }
        }
    }

    /// `OpLoad`/`OpStore` memory operands: `MakePointerAvailable` /
    /// `MakePointerVisible` (with their scope) imply `NonPrivatePointer`.
    fn memory_operands(&mut self, a: &VkAccess) -> Vec<u32> {
        let mut mask = 0;
        if a.make_available {
            mask |= op::MA_MAKE_POINTER_AVAILABLE;
        }
        if a.make_visible {
            mask |= op::MA_MAKE_POINTER_VISIBLE;
        }
        if mask != 0 || a.non_private {
            mask |= op::MA_NON_PRIVATE_POINTER;
        }
        match (mask, a.scope) {
            (0, _) => Vec::new(),
            (m, Some(s)) if m & !op::MA_NON_PRIVATE_POINTER != 0 => vec![m, self.b.c(s as u32)],
            (m, _) => vec![m],
        }
    }
}
