//! The PTX spelling of each access, fence and barrier, exactly as the
//! test states it; a combination PTX has no instruction for is refused.
//!
//! | spec | PTX |
//! |---|---|
//! | load `Weak`, cache `c` | `ld.<space>{.c}.u32` (`c` ∈ ca cg cs lu cv) |
//! | load `Volatile` | `ld.volatile.<space>.u32` |
//! | load `Relaxed`/`Acquire` + scope | `ld.relaxed/acquire.<scope>.<space>.u32` |
//! | store `Weak`, cache `c` | `st.<space>{.c}.u32` (`c` ∈ wb cg cs wt) |
//! | store `Volatile` | `st.volatile.<space>.u32` |
//! | store `Relaxed`/`Release` + scope | `st.relaxed/release.<scope>.<space>.u32` |
//! | RMW, sem `s`, scope `c` | `atom{.s}{.c}.<space>.<op>` (`Weak`: no `.s`) |
//! | RMW without destination, not exch/cas, `Weak`/`Relaxed`/`Release` | `red{.s}{.c}.<space>.<op>` |
//! | `Fence::PtxFence` | `fence.sc.<scope>` / `fence.acq_rel.<scope>` |
//! | `Fence::PtxMembar` cta/gpu/sys | `membar.cta` / `membar.gl` / `membar.sys` |
//! | `PhaseBarrier::Ptx { id }` | `barrier.sync id` |
//!
//! Refused: a Vulkan access or fence; `ld.release`, `ld.acq_rel`,
//! `st.acquire`, `st.acq_rel` (no such instructions); a scope on a weak or
//! volatile access or none on a relaxed/acquire/release one; a cache
//! operator on anything but a weak access, or one the instruction lacks
//! (`ld.wb`, `st.ca`); a volatile or cached RMW; `membar` at cluster scope
//! (there is no `membar.cluster`).

use super::unsupported;
use crate::spec::{Access, Fence, PtxAccess, PtxScope, PtxSem, Region, RmwKind};
use gpumc_core::diag::Result;

/// The state-space qualifier of a region.
pub(crate) fn space(region: Region) -> &'static str {
    match region {
        Region::Global => "global",
        Region::Shared => "shared",
    }
}

fn ptx(access: &Access, what: &str) -> Result<PtxAccess> {
    match access {
        Access::Ptx(a) => Ok(a.clone()),
        Access::Vulkan(_) => Err(unsupported(format!(
            "a Vulkan-dialect {what} in a PTX kernel"
        ))),
    }
}

fn sem_name(sem: PtxSem) -> &'static str {
    match sem {
        PtxSem::Weak => "weak",
        PtxSem::Relaxed => "relaxed",
        PtxSem::Acquire => "acquire",
        PtxSem::Release => "release",
        PtxSem::AcqRel => "acq_rel",
        PtxSem::Volatile => "volatile",
    }
}

/// `ld`/`st` opcode with its qualifiers up to the type: `ld.global.cg`,
/// `st.release.gpu.shared`.
fn plain(
    opcode: &str,
    access: &Access,
    region: Region,
    strong: [PtxSem; 2],
    caches: &[&str],
) -> Result<String> {
    let a = ptx(access, if opcode == "ld" { "load" } else { "store" })?;
    let ss = space(region);
    let sem = sem_name(a.sem);
    match a.sem {
        PtxSem::Weak | PtxSem::Volatile => {
            if let Some(scope) = a.scope {
                return Err(unsupported(format!(
                    "a scope (.{}) on a {sem} {opcode}: PTX scopes only relaxed, acquire and release accesses",
                    scope.suffix()
                )));
            }
        }
        _ => {
            if a.scope.is_none() {
                return Err(unsupported(format!(
                    "{opcode}.{sem} without a scope: PTX requires one"
                )));
            }
        }
    }
    if let Some(cache) = &a.cache {
        if a.sem != PtxSem::Weak {
            return Err(unsupported(format!(
                "a cache operator (.{cache}) on {opcode}.{sem}: PTX allows cache operators only on weak accesses"
            )));
        }
        if !caches.contains(&cache.as_str()) {
            return Err(unsupported(format!(
                "{opcode} has no cache operator .{cache} (it has .{})",
                caches.join(", .")
            )));
        }
    }
    Ok(match a.sem {
        PtxSem::Weak => match &a.cache {
            Some(c) => format!("{opcode}.{ss}.{c}"),
            None => format!("{opcode}.{ss}"),
        },
        PtxSem::Volatile => format!("{opcode}.volatile.{ss}"),
        s if strong.contains(&s) => {
            let scope = a.scope.map(PtxScope::suffix).unwrap_or_default();
            format!("{opcode}.{sem}.{scope}.{ss}")
        }
        _ => {
            return Err(unsupported(format!(
                "{opcode}.{sem} is not a PTX instruction"
            )))
        }
    })
}

/// `ld` with qualifiers, without the type (`ld.acquire.gpu.global`).
pub(crate) fn load(access: &Access, region: Region) -> Result<String> {
    plain(
        "ld",
        access,
        region,
        [PtxSem::Relaxed, PtxSem::Acquire],
        &["ca", "cg", "cs", "lu", "cv"],
    )
}

/// `st` with qualifiers, without the type (`st.release.cta.shared`).
pub(crate) fn store(access: &Access, region: Region) -> Result<String> {
    plain(
        "st",
        access,
        region,
        [PtxSem::Relaxed, PtxSem::Release],
        &["wb", "cg", "cs", "wt"],
    )
}

/// The `.op.type` suffix of an RMW, and whether it has a `red` form.
pub(crate) fn rmw_op(op: &RmwKind) -> (&'static str, bool) {
    match op {
        RmwKind::Exch => ("exch.b32", false),
        // Sub is an add of the negated operand (PTX has no atom.sub).
        RmwKind::Add | RmwKind::Sub => ("add.u32", true),
        RmwKind::And => ("and.b32", true),
        RmwKind::Or => ("or.b32", true),
        RmwKind::Xor => ("xor.b32", true),
        RmwKind::Min => ("min.s32", true),
        RmwKind::Max => ("max.s32", true),
        RmwKind::Cas { .. } => ("cas.b32", false),
    }
}

/// The RMW opcode with its qualifiers up to the operation
/// (`atom.acq_rel.gpu.global`, `red.release.cta.shared`). `red` is used when
/// the old value is not wanted and `red` has the operation and semantics.
pub(crate) fn rmw(
    access: &Access,
    region: Region,
    op: &RmwKind,
    wants_old: bool,
) -> Result<(String, bool)> {
    let a = ptx(access, "read-modify-write")?;
    if a.sem == PtxSem::Volatile {
        return Err(unsupported(
            "a volatile read-modify-write: PTX atom and red have no .volatile",
        ));
    }
    if let Some(cache) = &a.cache {
        return Err(unsupported(format!(
            "a cache operator (.{cache}) on a read-modify-write: atom and red have none"
        )));
    }
    let (_, has_red) = rmw_op(op);
    let use_red =
        !wants_old && has_red && matches!(a.sem, PtxSem::Weak | PtxSem::Relaxed | PtxSem::Release);
    let mut text = String::from(if use_red { "red" } else { "atom" });
    if a.sem != PtxSem::Weak {
        text.push('.');
        text.push_str(sem_name(a.sem));
    }
    if let Some(scope) = a.scope {
        text.push('.');
        text.push_str(scope.suffix());
    }
    text.push('.');
    text.push_str(space(region));
    Ok((text, use_red))
}

/// The fence instruction.
pub(crate) fn fence(f: &Fence) -> Result<String> {
    match f {
        Fence::PtxFence { sc, scope } => Ok(format!(
            "fence.{}.{}",
            if *sc { "sc" } else { "acq_rel" },
            scope.suffix()
        )),
        Fence::PtxMembar { scope } => match scope {
            PtxScope::Cta => Ok("membar.cta".into()),
            PtxScope::Gpu => Ok("membar.gl".into()),
            PtxScope::Sys => Ok("membar.sys".into()),
            PtxScope::Cluster => Err(unsupported(
                "membar at cluster scope: PTX has no membar.cluster (use fence.sc.cluster)",
            )),
        },
        Fence::Vulkan { .. } => Err(unsupported("a Vulkan memory barrier in a PTX kernel")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(sem: PtxSem, scope: Option<PtxScope>, cache: Option<&str>) -> Access {
        Access::Ptx(PtxAccess {
            sem,
            scope,
            cache: cache.map(String::from),
        })
    }

    #[test]
    fn loads_and_stores_are_spelled_as_written() {
        use PtxScope::*;
        use PtxSem::*;
        let g = Region::Global;
        let s = Region::Shared;
        assert_eq!(load(&acc(Weak, None, None), g).unwrap(), "ld.global");
        assert_eq!(
            load(&acc(Weak, None, Some("cg")), g).unwrap(),
            "ld.global.cg"
        );
        assert_eq!(
            load(&acc(Volatile, None, None), s).unwrap(),
            "ld.volatile.shared"
        );
        assert_eq!(
            load(&acc(Acquire, Some(Gpu), None), g).unwrap(),
            "ld.acquire.gpu.global"
        );
        assert_eq!(
            load(&acc(Relaxed, Some(Cta), None), s).unwrap(),
            "ld.relaxed.cta.shared"
        );
        assert_eq!(
            store(&acc(Release, Some(Sys), None), g).unwrap(),
            "st.release.sys.global"
        );
        assert_eq!(
            store(&acc(Weak, None, Some("wt")), g).unwrap(),
            "st.global.wt"
        );
    }

    #[test]
    fn combinations_ptx_lacks_are_refused() {
        use PtxScope::*;
        use PtxSem::*;
        let g = Region::Global;
        for (what, r) in [
            ("ld.release", load(&acc(Release, Some(Gpu), None), g)),
            ("ld.acq_rel", load(&acc(AcqRel, Some(Gpu), None), g)),
            ("st.acquire", store(&acc(Acquire, Some(Gpu), None), g)),
            ("relaxed no scope", load(&acc(Relaxed, None, None), g)),
            ("weak scoped", load(&acc(Weak, Some(Gpu), None), g)),
            ("volatile scoped", store(&acc(Volatile, Some(Cta), None), g)),
            (
                "cached relaxed",
                load(&acc(Relaxed, Some(Gpu), Some("cg")), g),
            ),
            ("cached volatile", load(&acc(Volatile, None, Some("cv")), g)),
            ("ld.wb", load(&acc(Weak, None, Some("wb")), g)),
            ("st.ca", store(&acc(Weak, None, Some("ca")), g)),
        ] {
            let e = r.expect_err(what);
            assert!(e.message.starts_with("unsupported: "), "{what}: {e}");
        }
        assert!(rmw(&acc(Volatile, None, None), g, &RmwKind::Add, true).is_err());
        assert!(rmw(&acc(Relaxed, Some(Gpu), Some("cg")), g, &RmwKind::Add, true).is_err());
        assert!(fence(&Fence::PtxMembar { scope: Cluster }).is_err());
    }

    #[test]
    fn rmws_use_red_only_when_it_exists() {
        use PtxScope::*;
        use PtxSem::*;
        let g = Region::Global;
        let r = |sem, op: &RmwKind, old| rmw(&acc(sem, Some(Gpu), None), g, op, old).unwrap().0;
        assert_eq!(r(Relaxed, &RmwKind::Add, false), "red.relaxed.gpu.global");
        assert_eq!(r(Release, &RmwKind::Add, false), "red.release.gpu.global");
        assert_eq!(r(Acquire, &RmwKind::Add, false), "atom.acquire.gpu.global");
        assert_eq!(r(Relaxed, &RmwKind::Exch, false), "atom.relaxed.gpu.global");
        assert_eq!(r(AcqRel, &RmwKind::Add, true), "atom.acq_rel.gpu.global");
        assert_eq!(
            rmw(&acc(Weak, None, None), Region::Shared, &RmwKind::Or, true)
                .unwrap()
                .0,
            "atom.shared"
        );
    }

    #[test]
    fn fences() {
        use PtxScope::*;
        assert_eq!(
            fence(&Fence::PtxFence {
                sc: true,
                scope: Gpu
            })
            .unwrap(),
            "fence.sc.gpu"
        );
        assert_eq!(
            fence(&Fence::PtxFence {
                sc: false,
                scope: Cluster
            })
            .unwrap(),
            "fence.acq_rel.cluster"
        );
        assert_eq!(
            fence(&Fence::PtxMembar { scope: Gpu }).unwrap(),
            "membar.gl"
        );
        assert_eq!(
            fence(&Fence::PtxMembar { scope: Cta }).unwrap(),
            "membar.cta"
        );
    }
}
