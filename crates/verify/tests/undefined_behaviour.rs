//! One semantics of undefined behaviour in both engines
//! (docs/SEMANTICS.md, "Undefined behaviour"): a division or remainder by
//! zero is undefined behaviour wherever an execution reaches it, in C
//! litmus tests, SPIR-V kernels and PTX kernels. Both engines give the
//! same verdict (FAIL), the same note naming the operation and its
//! operands, and the same states (those of the executions without
//! undefined behaviour); an execution that never reaches the division is
//! unaffected.

use gpumc_core::ir::Program;
use gpumc_frontend::ptx::launch::Launch;
use gpumc_verify::driver::{parse_program, parse_program_launched};
use gpumc_verify::engine::safety::{SafetyResult, Verdict};
use gpumc_verify::engine::{races, safety, symbolic, Options};
use std::path::Path;

fn opts() -> Options {
    Options {
        max_states: Some(100),
        ..Options::default()
    }
}

/// Safety under both engines: verdict, note and states must agree.
fn safety_both(p: &Program) -> SafetyResult {
    let m = gpumc_core::models::load(p.arch.default_model()).expect("model");
    let e = safety::check(p, &m, &opts()).expect("explicit");
    let (s, stats) = symbolic::check_safety_stats(p, &m, &opts()).expect("symbolic");
    assert_eq!(stats.mismatches, 0);
    assert_eq!(e.verdict, s.verdict, "explicit {e:?}\nsymbolic {s:?}");
    assert_eq!(e.note, s.note);
    assert_eq!(e.states, s.states, "states");
    assert_eq!(e.states_incomplete, s.states_incomplete);
    e
}

fn c_test(body: &str, cond: &str) -> Program {
    let src = format!(
        "C ub\n{{ x = 0; }}\n\nP0@cta 0,gpu 0(atomic_int* x) {{\n  atomic_store_explicit(x, 2, memory_order_relaxed, memory_scope_device);\n}}\n\n\
         P1@cta 1,gpu 0(atomic_int* x) {{\n  int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);\n{body}\n}}\n\n{cond}\n"
    );
    parse_program(&src, Path::new("ub.litmus")).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

#[test]
fn c_division_by_a_loaded_zero_fails_in_both_engines() {
    let r = safety_both(&c_test("  int r1 = 4 / r0;", "exists (1:r1 = 2)"));
    assert_eq!(r.verdict, Verdict::Fail);
    let note = r.note.expect("a note");
    assert!(
        note.starts_with("undefined behaviour: division by zero at 10:12 (`4 / r0`, thread P1): the divisor `r0` = 0, read by `atomic_load_explicit"),
        "{note}"
    );
    // The execution that read 2 has a final state; the one that divided
    // by zero has none.
    assert_eq!(r.states, vec![vec![2]]);
    assert!(r.witness.is_some());
}

#[test]
fn c_remainder_by_zero_is_named_as_such() {
    let r = safety_both(&c_test("  int r1 = 4 % r0;", "exists (1:r1 = 0)"));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.note.expect("note").contains("remainder by zero"));
    assert_eq!(r.states, vec![vec![0]]);
}

#[test]
fn a_guarded_division_is_defined() {
    let body = "  int r1 = 0;\n  if (r0 != 0) { r1 = 4 / r0; }";
    let r = safety_both(&c_test(body, "exists (1:r1 = 2)"));
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(r.note.is_none());
    assert_eq!(r.states, vec![vec![0], vec![2]]);
}

#[test]
fn a_constant_division_by_zero_counts_only_where_it_is_reached() {
    // Never reached: r0 is never 5.
    let body = "  int r1 = 0;\n  if (r0 == 5) { r1 = 1 / 0; }";
    let r = safety_both(&c_test(body, "exists (1:r1 = 0)"));
    assert_eq!(r.verdict, Verdict::Pass);
    // Reached when r0 reads 2.
    let body = "  int r1 = 0;\n  if (r0 == 2) { r1 = 1 / 0; }";
    let r = safety_both(&c_test(body, "exists (1:r1 = 0)"));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.note.expect("note").contains("the divisor is 0"));
    assert_eq!(r.states, vec![vec![0]]);
}

/// Invocation 0 stores 2 into `out[0]`; invocation 1 loads it and
/// divides 4 by what it read (`op`), storing into `out[2]`.
/// A SPIR-V kernel over one storage buffer `%out` of `uint`s and the
/// invocation ids `%ids`: `headers` (the `; @` lines), extra constants, and
/// the entry point's body after its label.
fn spirv_kernel(headers: &str, constants: &str, body: &str, name: &str) -> Program {
    let src = format!(
        "{headers}
; SPIR-V
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %out %ids
               OpDecorate %ids BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpDecorate %Buf Block
               OpMemberDecorate %Buf 0 Offset 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
         %rt = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rt
      %p_buf = OpTypePointer StorageBuffer %Buf
       %p_sb = OpTypePointer StorageBuffer %uint
      %p_ids = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c2 = OpConstant %uint 2
{constants}
        %out = OpVariable %p_buf StorageBuffer
        %ids = OpVariable %p_ids Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idv = OpLoad %v3uint %ids
        %gid = OpCompositeExtract %uint %idv 0
{body}
               OpFunctionEnd
"
    );
    parse_program(&src, Path::new(name)).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn spirv_division(op: &str, expect: i64) -> Program {
    spirv_kernel(
        &format!(
            "; @Input: %out = {{{{0, 0, 0}}}}\n; @Output: forall (%out[0][2] == {expect})\n; @Config: 2, 1, 1"
        ),
        "         %c4 = OpConstant %uint 4",
        &format!(
            "        %is0 = OpIEqual %bool %gid %c0
         %o0 = OpAccessChain %p_sb %out %c0 %c0
               OpSelectionMerge %end None
               OpBranchConditional %is0 %then %else
       %then = OpLabel
               OpStore %o0 %c2
               OpBranch %end
       %else = OpLabel
          %r = OpLoad %uint %o0
          %q = {op} %uint %c4 %r
         %o2 = OpAccessChain %p_sb %out %c0 %c2
               OpStore %o2 %q
               OpBranch %end
        %end = OpLabel
               OpReturn"
        ),
        "k.spvasm",
    )
}

#[test]
fn spirv_divisions_by_zero_fail_in_both_engines() {
    for (op, expect, what) in [
        ("OpUDiv", 2, "division by zero"),
        ("OpSDiv", 2, "division by zero"),
        ("OpUMod", 0, "remainder by zero"),
        ("OpSRem", 0, "remainder by zero"),
    ] {
        let r = safety_both(&spirv_division(op, expect));
        assert_eq!(r.verdict, Verdict::Fail, "{op}");
        let note = r.note.expect("note");
        assert!(note.contains(what) && note.contains(op), "{op}: {note}");
        assert!(note.contains("read by `%r = OpLoad"), "{note}");
        assert_eq!(r.states, vec![vec![expect]], "{op}");
    }
}

/// `out[tid] = 100 / in[tid]` (signed), as clang -O1 writes it.
const PTX_DIVIDE: &str = "
.version 7.0
.target sm_70
.address_size 64

.visible .entry divide(
	.param .u64 divide_param_0,
	.param .u64 divide_param_1
)
{
	.reg .b32 	%r<5>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [divide_param_0];
	ld.param.u64 	%rd2, [divide_param_1];
	cvta.to.global.u64 	%rd3, %rd2;
	cvta.to.global.u64 	%rd4, %rd1;
	mov.u32 	%r1, %tid.x;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	ld.global.u32 	%r2, [%rd6];
	div.s32 	%r4, 100, %r2;
	add.s64 	%rd7, %rd3, %rd5;
	st.global.u32 	[%rd7], %r4;
	ret;
}
";

fn ptx_launch(input: &str) -> Program {
    let mut l = Launch::empty();
    l.grid = Some([1, 1, 1]);
    l.block = Some([2, 1, 1]);
    for (k, v) in [("0", input), ("1", "zeros:8")] {
        l.params
            .push(gpumc_frontend::ptx::launch::parse_param(&format!("{k}={v}")).expect("param"));
    }
    parse_program_launched(PTX_DIVIDE, Path::new("k.ptx"), &l).expect("parse")
}

#[test]
fn ptx_division_by_zero_fails_every_property_in_both_engines() {
    let p = ptx_launch("zeros:8");
    let r = safety_both(&p);
    assert_eq!(r.verdict, Verdict::Fail);
    let note = r.note.expect("note");
    assert!(
        note.contains("division by zero at 22:2 (`div.s32"),
        "{note}"
    );
    let m = gpumc_core::models::load("ptx-v7.5").expect("model");
    let e = races::check(&p, &m, &opts()).expect("explicit");
    let s = symbolic::check_races(&p, &m, &opts()).expect("symbolic");
    assert_eq!((e.verdict, s.verdict), (Verdict::Fail, Verdict::Fail));
    assert_eq!(e.note, s.note);
}

#[test]
fn ptx_free_divisor_fails_only_in_the_engine_that_takes_free_values() {
    // Arbitrary contents: some input divides by zero (the symbolic engine;
    // the explicit engine refuses such a free value).
    let p = ptx_launch("buf:8");
    let m = gpumc_core::models::load("ptx-v7.5").expect("model");
    let (s, _) = symbolic::check_safety_stats(&p, &m, &opts()).expect("symbolic");
    assert_eq!(s.verdict, Verdict::Fail);
    let w = s.witness.expect("witness");
    assert!(
        w.inputs
            .iter()
            .any(|(n, v)| n.starts_with("param_0") && *v == 0),
        "{:?}",
        w.inputs
    );
}

/// A SPIR-V kernel of one workgroup of two invocations in which the
/// invocations for which `cond` holds (`%gid`: the invocation's id, `%r`:
/// the value it read from `%out[1]`, 0 or 1 as the other invocation
/// stored it or not) pass a control barrier.
fn spirv_barrier(cond: &str) -> Program {
    spirv_kernel(
        "; @Input: %out = {{0, 0}}\n; @Output: forall (%out[0][0] == 0)\n; @Config: 2, 1, 1",
        "         %c1 = OpConstant %uint 1\n       %c264 = OpConstant %uint 264",
        &format!(
            "         %o1 = OpAccessChain %p_sb %out %c0 %c1
               OpAtomicStore %o1 %c2 %c0 %gid
          %r = OpAtomicLoad %uint %o1 %c2 %c0
          %b = {cond}
               OpSelectionMerge %end None
               OpBranchConditional %b %then %end
       %then = OpLabel
               OpControlBarrier %c2 %c2 %c264
               OpBranch %end
        %end = OpLabel
               OpReturn"
        ),
        "bar.spvasm",
    )
}

/// Barrier divergence (docs/SEMANTICS.md, "Barrier divergence") is
/// undefined behaviour, with one note in both engines; a barrier every
/// invocation passes is none; a barrier only some executions make
/// divergent fails through them.
#[test]
fn barrier_divergence_fails_in_both_engines() {
    let by_id = safety_both(&spirv_barrier("OpIEqual %bool %gid %c0"));
    assert_eq!(by_id.verdict, Verdict::Fail);
    let note = by_id.note.expect("a note");
    assert!(
        note.starts_with(
            "undefined behaviour: barrier divergence: thread P0 arrives at the barrier at line "
        ) && note.contains("(`OpControlBarrier %c2 %c2 %c264`) once and thread P1 0 times"),
        "{note}"
    );
    assert!(by_id.states.is_empty(), "{:?}", by_id.states);
    // Every invocation passes it.
    let uniform = safety_both(&spirv_barrier("OpULessThan %bool %gid %c2"));
    assert_eq!(uniform.verdict, Verdict::Pass, "{:?}", uniform.note);
    // On the value read: divergent where the two invocations read
    // different values (each its own store, or one the other's).
    let by_value = safety_both(&spirv_barrier("OpIEqual %bool %r %c1"));
    assert_eq!(by_value.verdict, Verdict::Fail);
    assert!(by_value.note.unwrap().contains("barrier divergence"));
    // Executions where both read the same value have final states.
    assert!(!by_value.states.is_empty());
}
