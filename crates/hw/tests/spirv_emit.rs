//! The generator's output: a snapshot of one representative module (MP
//! with acquire/release atomics and a shared location), its structure,
//! and the errors it gives instead of a module.

mod spirv_support;

use gpumc_core::diag::ErrorKind;
use gpumc_hw::spec::semantics as sem;
use gpumc_hw::spec::*;
use gpumc_hw::spirv::emit;
use spirv_support::*;
use std::path::PathBuf;

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name)
}

/// `spirv-dis` of MP must equal the stored snapshot; `GPUMC_BLESS=1`
/// rewrites it (review the diff).
#[test]
fn message_passing_matches_its_snapshot() {
    if !have_tool("spirv-dis") || !have_tool("spirv-val") {
        return;
    }
    let words = emit(&mp(true), &cfg(64, 16)).expect("emit");
    spirv_val(&words).expect("valid");
    let text = spirv_dis(&words);
    let path = snapshot_path("mp_shared.spvasm");
    if std::env::var_os("GPUMC_BLESS").is_some() {
        std::fs::write(&path, &text).expect("write snapshot");
    }
    let stored = std::fs::read_to_string(&path).expect("snapshot (GPUMC_BLESS=1 writes it)");
    if stored != text {
        let first = stored
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(stored.lines().count().min(text.lines().count()));
        panic!(
            "the module differs from {} from line {}: now `{}`, stored `{}` (GPUMC_BLESS=1 rewrites it)",
            path.display(),
            first + 1,
            text.lines().nth(first).unwrap_or(""),
            stored.lines().nth(first).unwrap_or("")
        );
    }
}

fn count(text: &str, needle: &str) -> usize {
    text.lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn message_passing_has_the_abi_structure() {
    if !have_tool("spirv-dis") {
        return;
    }
    let words = emit(&mp(true), &cfg(64, 16)).expect("emit");
    assert_eq!(words[0], 0x0723_0203);
    assert_eq!(words[1], 0x0001_0500, "SPIR-V 1.5");
    let t = spirv_dis(&words);
    for needle in [
        "OpCapability Shader",
        "OpCapability GroupNonUniform",
        "OpCapability VulkanMemoryModel",
        "OpCapability VulkanMemoryModelDeviceScope",
        "OpMemoryModel Logical Vulkan",
        "OpEntryPoint GLCompute %main \"main\"",
        "OpExecutionMode %main LocalSize 64 1 1",
        "BuiltIn SubgroupId",
        "BuiltIn SubgroupLocalInvocationId",
        "BuiltIn SubgroupSize",
        "BuiltIn WorkgroupId",
        "%shared = OpVariable %_ptr_Workgroup__arr_uint_uint_16 Workgroup",
    ] {
        assert!(t.contains(needle), "missing `{needle}`");
    }
    for (binding, name) in [
        "mem",
        "table",
        "results",
        "sync",
        "stress",
        "params",
        "shared_io",
    ]
    .iter()
    .enumerate()
    {
        assert!(
            t.contains(&format!("OpDecorate %{name} Binding {binding}")),
            "{name}"
        );
    }
    // The test's own accesses: a relaxed workgroup store of x (shared),
    // a release store of y (0x144 = Release|Uniform|Workgroup), an
    // acquire load of y (0x142), a relaxed load of x.
    assert!(t.contains("OpAtomicStore %") && t.contains("%uint_324 %uint_1"));
    assert!(t.contains("%uint_322\n") || t.contains("%uint_322"));
    assert_eq!(
        count(&t, "OpAtomicLoad"),
        3,
        "2 test loads + the start barrier's spin"
    );
    assert_eq!(count(&t, "OpAtomicStore"), 2);
    assert_eq!(count(&t, "OpAtomicIAdd"), 1, "the start barrier's arrival");
    // Loops: stress, pre-stress, the start barrier's spin, the two shared
    // copies. One-block phases need none.
    assert_eq!(count(&t, "OpLoopMerge"), 5);
    // Barriers: the two around the shared copies (0x6108).
    assert_eq!(count(&t, "OpControlBarrier %uint_2 %uint_2 %uint_24840"), 2);
    assert_eq!(count(&t, "OpControlBarrier"), 2);
    // Volatile stress accesses: a store and a load for each of the two
    // accesses of a round, in the stress and the pre-stress loop.
    assert_eq!(count(&t, "Volatile"), 8);
}

#[test]
fn without_shared_locations_there_is_no_workgroup_memory() {
    if !have_tool("spirv-dis") {
        return;
    }
    let t = spirv_dis(&emit(&mp(false), &cfg(32, 0)).expect("emit"));
    assert!(
        !t.lines()
            .any(|l| l.contains("OpVariable") && l.contains("Workgroup")),
        "no workgroup variable"
    );
    assert_eq!(count(&t, "OpControlBarrier"), 0);
    assert_eq!(count(&t, "OpLoopMerge"), 3);
}

#[test]
fn a_multi_block_phase_is_a_loop_around_a_switch() {
    if !have_tool("spirv-dis") || !have_tool("spirv-val") {
        return;
    }
    let mut t = thread("P0", regs(&["r0"]), vec![vec![]], vec![0]);
    t.phases[0].blocks = vec![
        Block {
            ops: vec![],
            end: End::Goto(1),
        },
        Block {
            ops: vec![],
            end: End::Branch {
                cmp: gpumc_core::ir::CmpOp::Lt,
                a: Value::Reg(0),
                b: Value::Const(1),
                then: 0,
                otherwise: 2,
            },
        },
        Block {
            ops: vec![],
            end: End::Exit,
        },
    ];
    let s = spec("cfg", vec![], vec![t]);
    let words = emit(&s, &cfg(8, 0)).expect("emit");
    spirv_val(&words).expect("valid");
    let text = spirv_dis(&words);
    assert!(text.contains("OpSwitch %"), "{text}");
    assert!(text.contains(" 0 %") && text.contains(" 1 %") && text.contains(" 2 %"));
    assert_eq!(
        count(&text, "OpLoopMerge"),
        4,
        "3 harness loops + the phase"
    );
}

fn thread_with(op: Op) -> KernelSpec {
    spec(
        "t",
        vec![loc("x", Region::Global, 0), loc("s", Region::Shared, 0)],
        vec![thread("P0", regs(&["r0"]), vec![vec![op]], vec![0])],
    )
}

fn err(s: &KernelSpec) -> (ErrorKind, String) {
    match emit(s, &cfg(8, 4)) {
        Ok(_) => panic!("{} should be refused", s.name),
        Err(e) => (e.kind, e.message),
    }
}

#[test]
fn refusals_name_the_rule() {
    let load = |access| Op::Load {
        dst: 0,
        addr: Address::Fixed(0),
        access,
    };
    // Acquire without a storage class.
    let (k, m) = err(&thread_with(load(atomic(VkScope::Device, sem::ACQUIRE))));
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("storage-class bit") && m.contains("P0"), "{m}");
    // A release load.
    let (k, m) = err(&thread_with(load(atomic(
        VkScope::Device,
        sem::RELEASE | sem::UNIFORM_MEMORY,
    ))));
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("OpAtomicLoad-04731"), "{m}");
    // A relaxed fence.
    let (k, m) = err(&thread_with(Op::Fence(Fence::Vulkan {
        scope: VkScope::Device,
        semantics: sem::UNIFORM_MEMORY,
    })));
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("OpMemoryBarrier-04732"), "{m}");
    // Make-visible on a store.
    let (k, m) = err(&thread_with(Op::Store {
        addr: Address::Fixed(0),
        value: Value::Const(1),
        access: avvis(VkScope::Device, true),
    }));
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("MakePointerVisible"), "{m}");
    // A device-scope control barrier.
    let mut s = thread_with(load(plain()));
    s.threads[0].phases.push(Phase::default());
    s.barriers = vec![PhaseBarrier::Vulkan {
        execution: VkScope::Device,
        memory: VkScope::Device,
        semantics: 0,
    }];
    let (k, m) = err(&s);
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("04636"), "{m}");
    // Cells in both memories.
    let (k, m) = err(&thread_with(load_indexed(vec![0, 1])));
    assert_eq!(k, ErrorKind::Unsupported);
    assert!(m.contains("different memories"), "{m}");
}

fn load_indexed(cells: Vec<LocIdx>) -> Op {
    Op::Load {
        dst: 0,
        addr: Address::Indexed {
            index: Value::Const(0),
            cells,
        },
        access: plain(),
    }
}

#[test]
fn inconsistent_specs_are_usage_errors() {
    let mut ptx = mp(false);
    ptx.dialect = Dialect::Ptx;
    assert_eq!(err(&ptx).0, ErrorKind::Usage);
    // Phases must be barriers + 1.
    let mut s = mp(false);
    s.barriers = vec![PhaseBarrier::Ptx { id: 0 }];
    assert_eq!(err(&s).0, ErrorKind::Usage);
    // Registers, locations and blocks out of range.
    let bad_reg = thread_with(Op::Local {
        dst: 5,
        op: gpumc_core::ir::BinOp::Add,
        a: Value::Const(1),
        b: Value::Const(1),
    });
    assert_eq!(err(&bad_reg).0, ErrorKind::Usage);
    let bad_loc = thread_with(Op::Load {
        dst: 0,
        addr: Address::Fixed(9),
        access: plain(),
    });
    assert_eq!(err(&bad_loc).0, ErrorKind::Usage);
    let mut bad_block = thread_with(Op::Fence(Fence::PtxMembar {
        scope: PtxScope::Cta,
    }));
    assert_eq!(err(&bad_block).0, ErrorKind::Usage, "a PTX fence");
    bad_block.threads[0].phases[0].blocks[0].ops.clear();
    bad_block.threads[0].phases[0].blocks[0].end = End::Goto(3);
    assert_eq!(err(&bad_block).0, ErrorKind::Usage);
    // A shared location with no shared words.
    assert_eq!(
        emit(&mp(true), &cfg(8, 0)).map_err(|e| e.kind),
        Err(ErrorKind::Usage)
    );
}

#[test]
fn empty_and_weird_specs_still_validate() {
    if !have_tool("spirv-val") {
        return;
    }
    // No threads at all; a thread with no blocks; an indexed access with
    // no cells; a register-only thread; many barriers.
    let empty = spec("empty", vec![], vec![]);
    spirv_val(&emit(&empty, &cfg(8, 0)).expect("emit")).expect("valid");
    let mut s = thread_with(load_indexed(vec![]));
    s.threads.push(thread("P1", vec![], vec![vec![]], vec![]));
    spirv_val(&emit(&s, &cfg(8, 4)).expect("emit")).expect("valid");
    let mut b = spec(
        "barriers",
        vec![],
        vec![thread("P0", vec![], vec![vec![]; 4], vec![])],
    );
    b.barriers = vec![
        PhaseBarrier::Vulkan {
            execution: VkScope::Subgroup,
            memory: VkScope::Subgroup,
            semantics: 0,
        };
        3
    ];
    spirv_val(&emit(&b, &cfg(8, 0)).expect("emit")).expect("valid");
}
