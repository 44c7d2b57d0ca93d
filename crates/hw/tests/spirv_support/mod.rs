//! Helpers the SPIR-V and Vulkan tests share: building specs by hand,
//! running `spirv-val`/`spirv-dis`, opening lavapipe. Missing tools or
//! drivers make the calling test print why it skips and return.
#![allow(dead_code)]

use gpumc_hw::abi::KernelConfig;
use gpumc_hw::spec::*;
use std::path::PathBuf;
use std::process::Command;

pub fn relaxed(scope: VkScope) -> Access {
    Access::Vulkan(VkAccess {
        atomic: true,
        scope: Some(scope),
        semantics: 0,
        unequal_semantics: 0,
        make_available: false,
        make_visible: false,
        non_private: false,
    })
}

pub fn atomic(scope: VkScope, semantics: u32) -> Access {
    Access::Vulkan(VkAccess {
        atomic: true,
        scope: Some(scope),
        semantics,
        unequal_semantics: semantics
            & !(semantics::RELEASE | semantics::MAKE_AVAILABLE | semantics::ACQUIRE_RELEASE)
            | if semantics & semantics::ACQUIRE_RELEASE != 0 {
                semantics::ACQUIRE
            } else {
                0
            },
        make_available: false,
        make_visible: false,
        non_private: false,
    })
}

/// A private (plain) access.
pub fn plain() -> Access {
    Access::Vulkan(VkAccess {
        atomic: false,
        scope: None,
        semantics: 0,
        unequal_semantics: 0,
        make_available: false,
        make_visible: false,
        non_private: false,
    })
}

pub fn non_private() -> Access {
    match plain() {
        Access::Vulkan(a) => Access::Vulkan(VkAccess {
            non_private: true,
            ..a
        }),
        p => p,
    }
}

/// `st.av.<scope>` / `ld.vis.<scope>`.
pub fn avvis(scope: VkScope, load: bool) -> Access {
    Access::Vulkan(VkAccess {
        atomic: false,
        scope: Some(scope),
        semantics: 0,
        unequal_semantics: 0,
        make_available: !load,
        make_visible: load,
        non_private: true,
    })
}

pub fn loc(name: &str, region: Region, init: i32) -> LocSlot {
    LocSlot {
        name: name.into(),
        region,
        init,
    }
}

pub fn regs(names: &[&str]) -> Vec<Reg> {
    names
        .iter()
        .map(|n| Reg {
            name: n.to_string(),
            init: 0,
        })
        .collect()
}

/// A thread of one straight-line phase per entry of `phases`.
pub fn thread(
    name: &str,
    regs: Vec<Reg>,
    phases: Vec<Vec<Op>>,
    recorded: Vec<RegIdx>,
) -> ThreadCode {
    ThreadCode {
        name: name.into(),
        regs,
        phases: phases
            .into_iter()
            .map(|ops| Phase {
                blocks: if ops.is_empty() {
                    vec![]
                } else {
                    vec![Block {
                        ops,
                        end: End::Exit,
                    }]
                },
            })
            .collect(),
        recorded,
    }
}

pub fn spec(name: &str, locations: Vec<LocSlot>, threads: Vec<ThreadCode>) -> KernelSpec {
    KernelSpec {
        name: name.into(),
        dialect: Dialect::Vulkan,
        locations,
        threads,
        barriers: vec![],
    }
}

/// Message passing: P0 stores x (plain, or relaxed) then releases y; P1
/// acquires y then reads x. `x` in shared memory when `x_shared`.
pub fn mp(x_shared: bool) -> KernelSpec {
    let rel = semantics::RELEASE | semantics::UNIFORM_MEMORY | semantics::WORKGROUP_MEMORY;
    let acq = semantics::ACQUIRE | semantics::UNIFORM_MEMORY | semantics::WORKGROUP_MEMORY;
    let x_region = if x_shared {
        Region::Shared
    } else {
        Region::Global
    };
    spec(
        "MP",
        vec![loc("x", x_region, 0), loc("y", Region::Global, 0)],
        vec![
            thread(
                "P0",
                vec![],
                vec![vec![
                    Op::Store {
                        addr: Address::Fixed(0),
                        value: Value::Const(1),
                        access: relaxed(VkScope::Workgroup),
                    },
                    Op::Store {
                        addr: Address::Fixed(1),
                        value: Value::Const(1),
                        access: atomic(VkScope::Workgroup, rel),
                    },
                ]],
                vec![],
            ),
            thread(
                "P1",
                regs(&["r0", "r1"]),
                vec![vec![
                    Op::Load {
                        dst: 0,
                        addr: Address::Fixed(1),
                        access: atomic(VkScope::Workgroup, acq),
                    },
                    Op::Load {
                        dst: 1,
                        addr: Address::Fixed(0),
                        access: relaxed(VkScope::Workgroup),
                    },
                ]],
                vec![0, 1],
            ),
        ],
    )
}

pub fn cfg(workgroup_size: u32, shared_words: u32) -> KernelConfig {
    KernelConfig {
        workgroup_size,
        shared_words,
    }
}

/// Whether a SPIR-V tool is installed; prints why a test skips if not.
pub fn have_tool(tool: &str) -> bool {
    match Command::new(tool).arg("--version").output() {
        Ok(o) if o.status.success() => true,
        _ => {
            // CI installs spirv-tools with lavapipe (.ci/run).
            assert!(
                std::env::var_os("GPUMC_REQUIRE_VULKAN").is_none(),
                "GPUMC_REQUIRE_VULKAN is set but {tool} is missing"
            );
            eprintln!("SKIP: {tool} not found (install spirv-tools: apt-get install spirv-tools)");
            false
        }
    }
}

fn temp_path(tag: &str) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "gpumc-hw-{}-{}-{tag}.spv",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Runs `spirv-val --target-env vulkan1.3` on the module: `Err` carries
/// the validator's message.
pub fn spirv_val(words: &[u32]) -> Result<(), String> {
    let path = temp_path("val");
    std::fs::write(&path, bytes(words)).map_err(|e| e.to_string())?;
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| format!("spirv-val: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The module as `spirv-dis` prints it (no header comment, raw ids
/// replaced by the names the generator gave).
pub fn spirv_dis(words: &[u32]) -> String {
    let path = temp_path("dis");
    if std::fs::write(&path, bytes(words)).is_err() {
        return String::new();
    }
    let out = Command::new("spirv-dis")
        .args(["--no-header", "--no-color"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(_) => String::new(),
    }
}
