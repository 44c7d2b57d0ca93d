//! Which PTX ISA version and `sm_` target a kernel is written for.
//!
//! The lowest target that has everything the spec uses keeps the text
//! portable: the driver JIT-compiles it for the actual device anyway. The
//! scoped memory model (`ld.relaxed`, `fence.sc`, `atom.acq_rel`, …) and
//! `barrier.sync` need sm_70 and PTX ISA 6.0; the `.cluster` scope needs
//! sm_90 and PTX ISA 7.8.

use super::unsupported;
use crate::spec::{Access, Fence, KernelSpec, Op, PtxScope};
use gpumc_core::diag::Result;

/// A PTX target: `.target sm_<sm>` and `.version <isa_major>.<isa_minor>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtxTarget {
    pub sm: u32,
    pub isa_major: u32,
    pub isa_minor: u32,
}

impl Default for PtxTarget {
    fn default() -> Self {
        PtxTarget::BASE
    }
}

impl PtxTarget {
    /// The lowest target with the PTX memory model: sm_70, PTX ISA 6.0.
    pub const BASE: PtxTarget = PtxTarget {
        sm: 70,
        isa_major: 6,
        isa_minor: 0,
    };
    /// The lowest target with the `.cluster` scope: sm_90, PTX ISA 7.8.
    pub const CLUSTER: PtxTarget = PtxTarget {
        sm: 90,
        isa_major: 7,
        isa_minor: 8,
    };

    /// The lowest target for `spec` ([`Self::CLUSTER`] when it uses the
    /// `.cluster` scope, else [`Self::BASE`]).
    pub fn lowest_for(spec: &KernelSpec) -> PtxTarget {
        if needs_cluster(spec) {
            PtxTarget::CLUSTER
        } else {
            PtxTarget::BASE
        }
    }

    /// The target for `spec` on a device of compute capability
    /// `(major, minor)` whose driver reports `driver_version`
    /// (`cuDriverGetVersion`: 1000 × major + 10 × minor): the device's own
    /// `sm_` (or the newest known one below it) with the PTX ISA version
    /// that introduced it, so the JIT never sees a target its toolkit has
    /// retired (CUDA 13 no longer compiles for sm_70 offline). It must
    /// have what the spec needs and be within the driver's PTX ISA.
    pub fn for_device(
        spec: &KernelSpec,
        compute_capability: (u32, u32),
        driver_version: i32,
    ) -> Result<PtxTarget> {
        let want = PtxTarget::lowest_for(spec);
        let (major, minor) = compute_capability;
        let device_sm = major * 10 + minor;
        if device_sm < want.sm {
            return Err(unsupported(format!(
                "{} needs sm_{} or later; the device is sm_{device_sm}",
                if want == PtxTarget::CLUSTER {
                    "the .cluster scope"
                } else {
                    "the PTX memory model"
                },
                want.sm
            )));
        }
        let driver_isa = driver_max_isa(driver_version);
        KNOWN_TARGETS
            .iter()
            .rev()
            .map(|&(sm, isa_major, isa_minor)| PtxTarget {
                sm,
                isa_major,
                isa_minor,
            })
            .find(|t| {
                t.sm <= device_sm
                    && t.sm >= want.sm
                    && t.isa_at_least(want.isa_major, want.isa_minor)
                    && (t.isa_major, t.isa_minor) <= driver_isa
            })
            .ok_or_else(|| {
                unsupported(format!(
                    "the kernel needs PTX ISA {}.{}; the CUDA driver ({}) compiles at most PTX ISA {}.{}",
                    want.isa_major,
                    want.isa_minor,
                    driver_version_text(driver_version),
                    driver_isa.0,
                    driver_isa.1
                ))
            })
    }

    fn isa_at_least(&self, major: u32, minor: u32) -> bool {
        (self.isa_major, self.isa_minor) >= (major, minor)
    }

    /// Refuses a target that lacks what `spec` uses.
    pub(crate) fn check(&self, spec: &KernelSpec) -> Result<()> {
        if self.sm < 70 || !self.isa_at_least(6, 0) {
            return Err(unsupported(format!(
                "PTX target {self}: the PTX memory model (ld.relaxed, fence.sc, barrier.sync) needs sm_70 and PTX ISA 6.0"
            )));
        }
        if needs_cluster(spec) && (self.sm < 90 || !self.isa_at_least(7, 8)) {
            return Err(unsupported(format!(
                "the .cluster scope needs sm_90 and PTX ISA 7.8; the target is {self}"
            )));
        }
        Ok(())
    }
}

impl std::fmt::Display for PtxTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sm_{}, PTX ISA {}.{}",
            self.sm, self.isa_major, self.isa_minor
        )
    }
}

/// `sm_` targets with the PTX memory model and the PTX ISA version that
/// introduced each (the PTX ISA release notes), oldest first.
/// Minor variants (sm_101, sm_103, sm_121) are left out: their major's
/// base target runs on them, and CUDA 13 renamed sm_101.
pub const KNOWN_TARGETS: [(u32, u32, u32); 10] = [
    (70, 6, 0),
    (72, 6, 1),
    (75, 6, 3),
    (80, 7, 0),
    (86, 7, 1),
    (87, 7, 4),
    (89, 7, 8),
    (90, 7, 8),
    (100, 8, 6),
    (120, 8, 7),
];

/// `13000` → `13.0`.
pub(crate) fn driver_version_text(version: i32) -> String {
    format!("CUDA {}.{}", version / 1000, (version % 1000) / 10)
}

/// The newest PTX ISA a driver of `cuDriverGetVersion` `version` surely
/// JIT-compiles (each CUDA release documents its PTX ISA: 9.0 → 6.0,
/// 10.0 → 6.3, 11.x → 7.x, 12.0 → 8.0, 13.0 → 9.0; later minor releases
/// only add to that, so the lower bound of the major release is used
/// where the mapping is not one-to-one).
pub fn driver_max_isa(version: i32) -> (u32, u32) {
    let major = (version / 1000).max(0) as u32;
    let minor = ((version % 1000) / 10).max(0) as u32;
    match major {
        0..=8 => (5, 0),
        9 => (6, minor.min(2)),
        10 => (6, 3 + minor.min(2)),
        11 => (7, minor.min(8)),
        12 => (8, 0),
        _ => (9, 0),
    }
}

/// Whether some access or fence of `spec` uses the `.cluster` scope.
pub fn needs_cluster(spec: &KernelSpec) -> bool {
    let is_cluster_access =
        |a: &Access| matches!(a, Access::Ptx(p) if p.scope == Some(PtxScope::Cluster));
    spec.threads
        .iter()
        .flat_map(|t| &t.phases)
        .flat_map(|p| &p.blocks)
        .flat_map(|b| &b.ops)
        .any(|op| match op {
            Op::Load { access, .. } | Op::Store { access, .. } | Op::Rmw { access, .. } => {
                is_cluster_access(access)
            }
            Op::Fence(Fence::PtxFence { scope, .. } | Fence::PtxMembar { scope }) => {
                *scope == PtxScope::Cluster
            }
            Op::Fence(Fence::Vulkan { .. }) | Op::Local { .. } => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_versions_map_to_the_isa_their_release_documents() {
        assert_eq!(driver_max_isa(9000), (6, 0));
        assert_eq!(driver_max_isa(10020), (6, 5));
        assert_eq!(driver_max_isa(11080), (7, 8));
        assert_eq!(driver_max_isa(11040), (7, 4));
        assert_eq!(driver_max_isa(12040), (8, 0));
        assert_eq!(driver_max_isa(13000), (9, 0));
        assert_eq!(driver_max_isa(8000), (5, 0));
        assert_eq!(driver_version_text(13000), "CUDA 13.0");
        assert_eq!(driver_version_text(12040), "CUDA 12.4");
    }

    fn empty_spec() -> KernelSpec {
        KernelSpec {
            name: "t".into(),
            dialect: crate::spec::Dialect::Ptx,
            locations: vec![],
            threads: vec![],
            barriers: vec![],
        }
    }

    fn t(sm: u32, isa_major: u32, isa_minor: u32) -> PtxTarget {
        PtxTarget {
            sm,
            isa_major,
            isa_minor,
        }
    }

    #[test]
    fn device_and_driver_decide_the_target() {
        let spec = empty_spec();
        // The H100 with a CUDA 13.0 driver: its own sm_90.
        assert_eq!(
            PtxTarget::for_device(&spec, (9, 0), 13000).unwrap(),
            t(90, 7, 8)
        );
        assert_eq!(
            PtxTarget::for_device(&spec, (7, 0), 10000).unwrap(),
            PtxTarget::BASE
        );
        // An sm_86 device on a CUDA 11.0 driver (PTX 7.0): the newest
        // target that driver compiles.
        assert_eq!(
            PtxTarget::for_device(&spec, (8, 6), 11000).unwrap(),
            t(80, 7, 0)
        );
        // A device newer than the table: the newest known target.
        assert_eq!(
            PtxTarget::for_device(&spec, (13, 0), 13000).unwrap(),
            t(120, 8, 7)
        );
        // The table is ordered and every entry has the memory model.
        assert!(KNOWN_TARGETS.windows(2).all(|w| w[0].0 < w[1].0));
        for &(sm, a, b) in &KNOWN_TARGETS {
            assert!(t(sm, a, b).check(&spec).is_ok());
        }
        let old_gpu = PtxTarget::for_device(&spec, (6, 1), 13000).unwrap_err();
        assert!(old_gpu.message.contains("sm_70"), "{old_gpu}");
        let old_driver = PtxTarget::for_device(&spec, (8, 0), 8000).unwrap_err();
        assert!(old_driver.message.contains("PTX ISA 6.0"), "{old_driver}");
    }

    #[test]
    fn low_targets_are_refused() {
        let spec = empty_spec();
        let t = PtxTarget {
            sm: 60,
            isa_major: 6,
            isa_minor: 0,
        };
        assert!(t.check(&spec).is_err());
        assert!(PtxTarget::BASE.check(&spec).is_ok());
    }
}
