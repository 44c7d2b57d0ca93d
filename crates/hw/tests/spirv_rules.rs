//! The Vulkan rules `spirv::rules` enforces, checked against the
//! validator: for every scope and every combination of the semantics bits
//! the specs use, a one-instruction shader is assembled and validated
//! (`spirv-as`, `spirv-val --target-env vulkan1.3`); the generator must
//! accept exactly what the validator accepts.

mod spirv_support;

use gpumc_hw::spec::semantics as sem;
use gpumc_hw::spec::{VkAccess, VkScope};
use gpumc_hw::spirv::rules::{self, SemanticsOf};
use spirv_support::have_tool;
use std::process::Command;

const SCOPES: [VkScope; 4] = [
    VkScope::Device,
    VkScope::Workgroup,
    VkScope::Subgroup,
    VkScope::QueueFamily,
];
const BITS: [u32; 7] = [
    sem::ACQUIRE,
    sem::RELEASE,
    sem::ACQUIRE_RELEASE,
    sem::UNIFORM_MEMORY,
    sem::WORKGROUP_MEMORY,
    sem::MAKE_AVAILABLE,
    sem::MAKE_VISIBLE,
];

/// Every semantics value made of the known bits.
fn all_semantics() -> Vec<u32> {
    (0..1u32 << BITS.len())
        .map(|m| {
            BITS.iter()
                .enumerate()
                .filter(|(i, _)| m & (1 << i) != 0)
                .map(|(_, b)| b)
                .sum()
        })
        .collect()
}

/// A shader whose body is `instr`, where `%p` is a storage-buffer word,
/// `%s1`/`%s2` the scopes and `%m1`/`%m2` the semantics as the generator
/// encodes them (`rules::encoded`).
fn shader(instr: &str, s1: VkScope, s2: VkScope, m1: u32, m2: u32) -> String {
    format!(
        "OpCapability Shader
OpCapability GroupNonUniform
OpCapability VulkanMemoryModel
OpCapability VulkanMemoryModelDeviceScope
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\" %buf
OpExecutionMode %main LocalSize 64 1 1
OpDecorate %rta ArrayStride 4
OpDecorate %blk Block
OpMemberDecorate %blk 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%u = OpTypeInt 32 0
%rta = OpTypeRuntimeArray %u
%blk = OpTypeStruct %rta
%pblk = OpTypePointer StorageBuffer %blk
%pu = OpTypePointer StorageBuffer %u
%c0 = OpConstant %u 0
%c1 = OpConstant %u 1
%s1 = OpConstant %u {}
%s2 = OpConstant %u {}
%m1 = OpConstant %u {}
%m2 = OpConstant %u {}
%buf = OpVariable %pblk StorageBuffer
%main = OpFunction %void None %fn
%l = OpLabel
%p = OpAccessChain %pu %buf %c0 %c0
{instr}
OpReturn
OpFunctionEnd
",
        s1 as u32,
        s2 as u32,
        rules::encoded(m1),
        rules::encoded(m2)
    )
}

/// `Ok` or the validator's message.
fn validate(asm: &str, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir();
    let base = format!("gpumc-hw-rules-{}-{tag}", std::process::id());
    let (src, bin) = (
        dir.join(format!("{base}.spvasm")),
        dir.join(format!("{base}.spv")),
    );
    std::fs::write(&src, asm).map_err(|e| e.to_string())?;
    let assembled = Command::new("spirv-as")
        .args(["--target-env", "spv1.5", "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .map_err(|e| e.to_string())?;
    if !assembled.status.success() {
        return Err(format!(
            "spirv-as: {}",
            String::from_utf8_lossy(&assembled.stderr)
        ));
    }
    let out = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.3"])
        .arg(&bin)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&bin);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

struct Case {
    what: String,
    asm: String,
    ours: Result<(), String>,
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let all = all_semantics();
    let relaxed_acqrel = sem::ACQUIRE_RELEASE | sem::UNIFORM_MEMORY;
    for &s in &SCOPES {
        for &m in &all {
            let mut push = |what: &str, instr: &str, ours| {
                v.push(Case {
                    what: format!("{what} scope {s:?} semantics {m:#x}"),
                    asm: shader(instr, s, VkScope::Workgroup, m, relaxed_acqrel),
                    ours,
                })
            };
            push(
                "OpAtomicLoad",
                "%r = OpAtomicLoad %u %p %s1 %m1",
                rules::atomic(SemanticsOf::AtomicLoad, m, None),
            );
            push(
                "OpAtomicStore",
                "OpAtomicStore %p %s1 %m1 %c1",
                rules::atomic(SemanticsOf::AtomicStore, m, None),
            );
            push(
                "OpAtomicIAdd",
                "%r = OpAtomicIAdd %u %p %s1 %m1 %c1",
                rules::atomic(SemanticsOf::AtomicRmw, m, None),
            );
            push(
                "OpAtomicCompareExchange (Equal)",
                "%r = OpAtomicCompareExchange %u %p %s1 %m1 %c0 %c1 %c0",
                rules::atomic(SemanticsOf::AtomicRmw, m, Some(0)),
            );
            push(
                "OpAtomicCompareExchange (Unequal, Equal acq_rel)",
                "%r = OpAtomicCompareExchange %u %p %s1 %m2 %m1 %c1 %c0",
                rules::atomic(SemanticsOf::AtomicRmw, relaxed_acqrel, Some(m)),
            );
            push(
                "OpMemoryBarrier",
                "OpMemoryBarrier %s1 %m1",
                rules::memory_barrier(s, m),
            );
            push(
                "OpControlBarrier (execution Workgroup)",
                "OpControlBarrier %s2 %s1 %m1",
                rules::control_barrier(VkScope::Workgroup, s, m),
            );
        }
        // Non-atomic accesses: the memory operands the generator writes
        // (availability/visibility imply NonPrivatePointer).
        for load in [true, false] {
            for (avail, vis, non_private) in (0..8).map(|m| (m & 1 != 0, m & 2 != 0, m & 4 != 0)) {
                let a = VkAccess {
                    atomic: false,
                    scope: (avail || vis).then_some(s),
                    semantics: 0,
                    unequal_semantics: 0,
                    make_available: avail,
                    make_visible: vis,
                    non_private,
                };
                let mut mask = Vec::new();
                if avail {
                    mask.push("MakePointerAvailable");
                }
                if vis {
                    mask.push("MakePointerVisible");
                }
                if avail || vis || non_private {
                    mask.push("NonPrivatePointer");
                }
                let mut operands = mask.join("|");
                if avail || vis {
                    operands += " %s1";
                }
                let instr = if load {
                    format!("%r = OpLoad %u %p {operands}")
                } else {
                    format!("OpStore %p %c1 {operands}")
                };
                v.push(Case {
                    what: format!("{instr} scope {s:?}"),
                    asm: shader(&instr, s, s, 0, 0),
                    ours: rules::plain(load, &a),
                });
            }
        }
        for &e in &SCOPES {
            v.push(Case {
                what: format!("OpControlBarrier execution {e:?} memory {s:?}"),
                asm: shader("OpControlBarrier %s1 %s2 %m1", e, s, relaxed_acqrel, 0),
                ours: rules::control_barrier(e, s, relaxed_acqrel),
            });
        }
    }
    v
}

#[test]
fn rules_agree_with_spirv_val() {
    if !have_tool("spirv-as") || !have_tool("spirv-val") {
        return;
    }
    let cases = cases();
    let results: Vec<Result<(), String>> = std::thread::scope(|sc| {
        let chunks: Vec<_> = cases
            .chunks(cases.len().div_ceil(4))
            .enumerate()
            .map(|(k, chunk)| {
                sc.spawn(move || {
                    chunk
                        .iter()
                        .enumerate()
                        .map(|(i, c)| validate(&c.asm, &format!("{k}-{i}")))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut disagreements = Vec::new();
    let mut rejected = std::collections::BTreeSet::new();
    let mut newer_only = std::collections::BTreeSet::new();
    for (c, val) in cases.iter().zip(&results) {
        if let Err(e) = val {
            rejected.insert(first_line(e));
        }
        let newer = matches!(&c.ours, Err(m) if m.contains(rules::NEWER_RULE));
        if newer && val.is_ok() {
            newer_only.insert(first_line(c.ours.as_ref().err().map_or("", |m| m)));
            continue;
        }
        if c.ours.is_ok() != val.is_ok() {
            disagreements.push(format!(
                "{}: generator {:?}, spirv-val {:?}",
                c.what,
                c.ours,
                val.as_ref().map_err(|e| first_line(e))
            ));
        }
    }
    for r in &rejected {
        println!("spirv-val rejects: {r}");
    }
    for r in &newer_only {
        println!("refused under a newer rule only: {r}");
    }
    assert!(
        disagreements.is_empty(),
        "{} of {} cases disagree, e.g.:\n{}",
        disagreements.len(),
        cases.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
}

fn first_line(e: &str) -> String {
    e.lines().next().unwrap_or("").to_string()
}
