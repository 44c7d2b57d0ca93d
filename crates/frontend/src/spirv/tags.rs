//! SPIR-V scopes, memory semantics and storage classes → Vulkan-model tags
//! (`docs/EVENTS.md`; the table is in `docs/SPIRV.md`).
//!
//! | SPIR-V | tags |
//! |---|---|
//! | scope CrossDevice (0), Device (1) | `DV` |
//! | scope QueueFamily (5) | `QF` |
//! | scope Workgroup (2) | `WG` |
//! | scope Subgroup (3) | `SG` |
//! | scope Invocation (4) | none (in scope with no other invocation) |
//! | semantics Acquire (0x2) | `ACQ` |
//! | semantics Release (0x4) | `REL` |
//! | semantics AcquireRelease (0x8), SequentiallyConsistent (0x10) | `ACQ REL ACQ_REL` (loads keep `ACQ`, stores `REL`); 0x10 also `SEQCST` |
//! | semantics UniformMemory (0x40), CrossWorkgroupMemory (0x200), OutputMemory (0x1000) | `SEMSC0` |
//! | semantics WorkgroupMemory (0x100) | `SEMSC1` |
//! | semantics MakeAvailable (0x2000) / MakeVisible (0x4000) | `SEMAV` / `SEMVIS` |
//! | semantics Volatile (0x8000), SubgroupMemory (0x80), AtomicCounterMemory (0x400), ImageMemory (0x800) | none |
//! | pointer in StorageBuffer, Uniform, Output, CrossWorkgroup | `SC0` |
//! | pointer in Workgroup | `SC1` |

use super::module::Class;
use crate::diag::{Error, Result};
use crate::ir::Pos;

/// Tag list in insertion order without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Tags(pub Vec<String>);

impl Tags {
    pub fn add(&mut self, t: &str) {
        if !self.0.iter().any(|x| x == t) {
            self.0.push(t.to_string());
        }
    }
    pub fn extend(&mut self, ts: &[&str]) {
        for t in ts {
            self.add(t);
        }
    }
}

/// The tag of a scope operand's value (`None` for Invocation).
pub(super) fn scope_tag(scope: i64, pos: Pos) -> Result<Option<&'static str>> {
    Ok(match scope {
        0 | 1 => Some("DV"),
        5 => Some("QF"),
        2 => Some("WG"),
        3 => Some("SG"),
        4 => None,
        _ => return Err(Error::unsupported(pos, format!("scope {scope}"))),
    })
}

/// Decoded memory-semantics operand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Sem {
    pub acq: bool,
    pub rel: bool,
    pub sc0: bool,
    pub sc1: bool,
    pub av: bool,
    pub vis: bool,
    /// SequentiallyConsistent (0x10): also `ACQ REL`; the `SEQCST` tag
    /// lets a model tell it from AcquireRelease (our `opencl` does; the
    /// Vulkan model has no such order and reads it as AcquireRelease).
    pub seq_cst: bool,
}

impl Sem {
    pub fn ordered(&self) -> bool {
        self.acq || self.rel
    }
}

/// Decodes a memory-semantics mask.
pub(super) fn semantics(bits: i64, pos: Pos) -> Result<Sem> {
    const KNOWN: i64 = 0x2
        | 0x4
        | 0x8
        | 0x10
        | 0x40
        | 0x80
        | 0x100
        | 0x200
        | 0x400
        | 0x800
        | 0x1000
        | 0x2000
        | 0x4000
        | 0x8000;
    if bits & !KNOWN != 0 || bits < 0 {
        return Err(Error::unsupported(
            pos,
            format!("memory-semantics bits {:#x}", bits & !KNOWN),
        ));
    }
    let orders = [0x2, 0x4, 0x8, 0x10]
        .iter()
        .filter(|&&b| bits & b != 0)
        .count();
    if orders > 1 {
        return Err(Error::semantic(
            pos,
            format!("memory semantics {bits:#x} name more than one memory order"),
        ));
    }
    let full = bits & (0x8 | 0x10) != 0;
    Ok(Sem {
        acq: bits & 0x2 != 0 || full,
        rel: bits & 0x4 != 0 || full,
        sc0: bits & (0x40 | 0x200 | 0x1000) != 0,
        sc1: bits & 0x100 != 0,
        av: bits & 0x2000 != 0,
        vis: bits & 0x4000 != 0,
        seq_cst: bits & 0x10 != 0,
    })
}

/// What kind of instruction the semantics are attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    Load,
    Store,
    Rmw,
    Fence,
}

/// Adds the order tags for `sem` on an instruction of kind `acc`.
pub(super) fn order_tags(t: &mut Tags, sem: Sem, acc: Access) {
    let acq = sem.acq && acc != Access::Store;
    let rel = sem.rel && acc != Access::Load;
    if acq {
        t.add("ACQ");
    }
    if rel {
        t.add("REL");
    }
    if acq && rel {
        t.add("ACQ_REL");
    }
    if sem.seq_cst {
        t.add("SEQCST");
    }
}

/// Adds the storage-class-semantics and availability tags of `sem`.
pub(super) fn sem_tags(t: &mut Tags, sem: Sem) {
    if sem.sc0 {
        t.add("SEMSC0");
    }
    if sem.sc1 {
        t.add("SEMSC1");
    }
    if sem.av {
        t.add("SEMAV");
    }
    if sem.vis {
        t.add("SEMVIS");
    }
}

/// Tag of the storage class an access goes to.
pub(super) fn class_tag(c: Class) -> &'static str {
    match c {
        Class::Workgroup => "SC1",
        _ => "SC0",
    }
}

/// Checks that an atomic's semantics fit its kind (SPIR-V: loads cannot
/// release, stores cannot acquire; SequentiallyConsistent is allowed).
pub(super) fn check_access(bits: i64, acc: Access, pos: Pos) -> Result<()> {
    let bad = match acc {
        Access::Load => bits & (0x4 | 0x8) != 0,
        Access::Store => bits & (0x2 | 0x8) != 0,
        _ => false,
    };
    if bad {
        let what = if acc == Access::Load {
            "an atomic load cannot have Release or AcquireRelease semantics"
        } else {
            "an atomic store cannot have Acquire or AcquireRelease semantics"
        };
        return Err(Error::semantic(pos, what));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> Pos {
        Pos { line: 1, col: 1 }
    }

    #[test]
    fn scopes() {
        assert_eq!(scope_tag(1, p()).unwrap(), Some("DV"));
        assert_eq!(scope_tag(0, p()).unwrap(), Some("DV"));
        assert_eq!(scope_tag(5, p()).unwrap(), Some("QF"));
        assert_eq!(scope_tag(2, p()).unwrap(), Some("WG"));
        assert_eq!(scope_tag(3, p()).unwrap(), Some("SG"));
        assert_eq!(scope_tag(4, p()).unwrap(), None);
        assert!(scope_tag(6, p()).is_err());
    }

    #[test]
    fn semantics_bits() {
        // 66 = Acquire | UniformMemory (clspv acquire loads).
        let s = semantics(66, p()).unwrap();
        assert!(s.acq && !s.rel && s.sc0 && !s.sc1);
        // 264 = AcquireRelease | WorkgroupMemory.
        let s = semantics(264, p()).unwrap();
        assert!(s.acq && s.rel && s.sc1 && !s.sc0);
        // 0x6004 = Release | MakeAvailable | MakeVisible.
        let s = semantics(0x6004, p()).unwrap();
        assert!(s.rel && s.av && s.vis);
        assert!(semantics(0x6, p()).is_err());
        assert!(semantics(0x10000, p()).is_err());
        let mut t = Tags::default();
        order_tags(&mut t, semantics(0x10, p()).unwrap(), Access::Load);
        assert_eq!(t.0, vec!["ACQ", "SEQCST"]);
        let mut t = Tags::default();
        order_tags(&mut t, semantics(0x8, p()).unwrap(), Access::Rmw);
        assert_eq!(t.0, vec!["ACQ", "REL", "ACQ_REL"]);
        assert!(check_access(68, Access::Load, p()).is_err());
        assert!(check_access(66, Access::Store, p()).is_err());
        assert!(check_access(0x50, Access::Store, p()).is_ok());
        assert_eq!(class_tag(Class::Workgroup), "SC1");
        assert_eq!(class_tag(Class::StorageBuffer), "SC0");
    }
}
