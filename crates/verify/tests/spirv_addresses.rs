//! Addresses computed at run time in SPIR-V kernels (docs/SPIRV.md,
//! "Addresses"): histograms, work queues, indirect writes, pointer
//! selection, pointer arithmetic, and out-of-bounds indexes, each checked
//! by both engines, which must agree.

use gpumc_core::cat::Model;
use gpumc_core::ir::Program;
use gpumc_verify::engine::safety::{SafetyResult, Verdict};
use gpumc_verify::engine::{races, safety, symbolic, Options};
use std::path::Path;

/// A compute shader around `body`, with `decls` (variables) after the
/// common types and constants: `%uint`, `%bool`, `%st` = struct {
/// uint[] } (`%p_sbst`), `%p_sb` (StorageBuffer uint), `%arr4` = uint[4]
/// (`%p_wga`: Workgroup), `%p_wg`, `%p_fn` (Function uint), `%c0`…`%c9`,
/// and `%tid` = the global invocation index.
fn kernel(headers: &str, decls: &str, body: &str) -> String {
    format!(
        "{headers}
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %ids
               OpDecorate %ids BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpDecorate %arr4 ArrayStride 4
               OpMemberDecorate %st 0 Offset 0
               OpDecorate %st Block
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
         %c3 = OpConstant %uint 3
         %c4 = OpConstant %uint 4
         %c9 = OpConstant %uint 9
       %c264 = OpConstant %uint 264
         %rt = OpTypeRuntimeArray %uint
       %arr4 = OpTypeArray %uint %c4
         %st = OpTypeStruct %rt
         %fn = OpTypeFunction %void
     %p_sbst = OpTypePointer StorageBuffer %st
       %p_sb = OpTypePointer StorageBuffer %uint
       %p_wg = OpTypePointer Workgroup %uint
      %p_wga = OpTypePointer Workgroup %arr4
       %p_fn = OpTypePointer Function %uint
      %p_fna = OpTypePointer Function %arr4
      %p_in3 = OpTypePointer Input %v3uint
       %p_in = OpTypePointer Input %uint
        %ids = OpVariable %p_in3 Input
{decls}
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idp = OpAccessChain %p_in %ids %c0
        %tid = OpLoad %uint %idp
{body}
               OpFunctionEnd
"
    )
}

fn parse(src: &str) -> Program {
    gpumc_frontend::spirv::parse(src, Path::new("k.spvasm"))
        .unwrap_or_else(|e| panic!("parse: {e}\n{src}"))
}

fn vulkan() -> Model {
    gpumc_core::models::load("vulkan").expect("vulkan model")
}

fn opts(bound: u32) -> Options {
    Options {
        bound,
        ..Options::default()
    }
}

/// Safety under both engines: their verdicts (and notes) must agree.
fn safety_both(src: &str, bound: u32) -> (SafetyResult, SafetyResult) {
    let p = parse(src);
    let m = vulkan();
    let e = safety::check(&p, &m, &opts(bound)).expect("explicit");
    let (s, stats) = symbolic::check_safety_stats(&p, &m, &opts(bound)).expect("symbolic");
    assert_eq!(stats.mismatches, 0);
    assert_eq!(e.verdict, s.verdict, "explicit {e:?}\nsymbolic {s:?}");
    assert_eq!(e.note, s.note);
    (e, s)
}

/// Races under both engines (agreeing); the explicit result.
fn races_both(src: &str) -> races::RaceResult {
    let p = parse(src);
    let m = vulkan();
    let e = races::check(&p, &m, &opts(1)).expect("explicit");
    let s = symbolic::check_races(&p, &m, &opts(1)).expect("symbolic");
    assert_eq!(e.verdict, s.verdict, "explicit {e:?}\nsymbolic {s:?}");
    assert_eq!(e.note, s.note);
    e
}

const BUFS: &str = "       %data = OpVariable %p_sbst StorageBuffer
       %hist = OpVariable %p_sbst StorageBuffer";

/// `atomicAdd(&hist[data[tid]], 1)`.
const HISTOGRAM: &str = "         %dp = OpAccessChain %p_sb %data %c0 %tid
          %d = OpLoad %uint %dp
         %hp = OpAccessChain %p_sb %hist %c0 %d
          %o = OpAtomicIAdd %uint %hp %c1 %c0 %c1
               OpReturn";

fn histogram(data: &str) -> String {
    kernel(
        &format!(
            "; @Input: %data = {{{{{data}}}}}, %hist = {{{{0, 0, 0, 0}}}}
; @Output: forall (%hist[0][0] == 1 and %hist[0][1] == 2 and %hist[0][2] == 0 and %hist[0][3] == 1)
; @Config: 4, 1, 1"
        ),
        BUFS,
        HISTOGRAM,
    )
}

#[test]
fn histogram_counts_every_element() {
    let (e, _) = safety_both(&histogram("1, 3, 1, 0"), 1);
    assert_eq!(e.verdict, Verdict::Pass);
    assert_eq!(e.states, vec![vec![1, 2, 0, 1]]);
    // Another histogram: the assertion fails, and both engines say so.
    let (e, s) = safety_both(&histogram("1, 3, 2, 0"), 1);
    assert_eq!(e.verdict, Verdict::Fail);
    assert!(e.note.is_none() && s.witness.is_some());
}

#[test]
fn histogram_out_of_bounds_index_is_undefined_behaviour() {
    let src = histogram("1, 3, 7, 0");
    let (e, s) = safety_both(&src, 1);
    assert_eq!(e.verdict, Verdict::Fail);
    let line = src
        .lines()
        .position(|l| l.contains("OpAtomicIAdd"))
        .expect("atomic")
        + 1;
    let note = e.note.expect("a note");
    assert_eq!(
        note,
        format!(
            "undefined behaviour: out-of-bounds access to %hist at {line}:16, index 7 (thread P2)"
        )
    );
    assert!(s.witness.is_some());
    // Every property fails: races too.
    let r = races_both(&src);
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.note.is_some_and(|n| n.contains("index 7")));
    // A negative index (the 32-bit pattern of -1) is out of bounds too.
    let (e, _) = safety_both(&histogram("1, 3, 4294967295, 0"), 1);
    assert!(e.note.expect("note").contains("index -1"), "sign-extended");
}

/// A thread that stops at an out-of-bounds access never reaches the
/// barrier the others wait at: no execution completes, yet the verdict is
/// FAIL (undefined behaviour), not a vacuous PASS.
#[test]
fn out_of_bounds_before_a_barrier_still_fails() {
    let src = kernel(
        "; @Input: %data = {{0, 5}}, %hist = {{0, 0}}
; @Output: forall (%hist[0][0] == 0)
; @Config: 2, 1, 1",
        BUFS,
        "         %dp = OpAccessChain %p_sb %data %c0 %tid
          %d = OpLoad %uint %dp
         %hp = OpAccessChain %p_sb %hist %c0 %d
               OpStore %hp %c1
               OpControlBarrier %c2 %c2 %c264
               OpReturn",
    );
    let (e, _) = safety_both(&src, 1);
    assert_eq!(e.verdict, Verdict::Fail);
    assert!(e.note.expect("note").contains("index 5 (thread P1)"));
}

/// `out[atomicAdd(&cnt, 1)] = tid`: every slot is written exactly once,
/// in every order.
#[test]
fn work_queue_writes_each_slot_once() {
    let decls = "        %out = OpVariable %p_sbst StorageBuffer
        %cnt = OpVariable %p_sb StorageBuffer";
    let body = "       %slot = OpAtomicIAdd %uint %cnt %c1 %c0 %c1
         %op = OpAccessChain %p_sb %out %c0 %slot
               OpStore %op %tid
               OpReturn";
    let all = "%cnt == 3 and %out[0][0] != 9 and %out[0][1] != 9 and %out[0][2] != 9 \
               and %out[0][0] != %out[0][1] and %out[0][0] != %out[0][2] and %out[0][1] != %out[0][2]";
    let src = kernel(
        &format!(
            "; @Input: %out = {{{{9, 9, 9}}}}, %cnt = 0\n; @Output: forall ({all})\n; @Config: 3, 1, 1"
        ),
        decls,
        body,
    );
    let (e, _) = safety_both(&src, 1);
    assert_eq!(e.verdict, Verdict::Pass);
    // Six orders of the three invocations.
    assert_eq!(e.states.len(), 6, "{:?}", e.states);
    // Any invocation may take the first slot.
    let src = kernel(
        "; @Input: %out = {{9, 9, 9}}, %cnt = 0\n; @Output: exists (%out[0][0] == 2)\n; @Config: 3, 1, 1",
        decls,
        body,
    );
    assert_eq!(safety_both(&src, 1).0.verdict, Verdict::Pass);
    // One slot too few: the third increment indexes past the end.
    let src = kernel(
        "; @Input: %out = {{9, 9}}, %cnt = 0\n; @Output: forall (%cnt == 3)\n; @Config: 3, 1, 1",
        decls,
        body,
    );
    let (e, _) = safety_both(&src, 1);
    assert!(e
        .note
        .expect("note")
        .contains("out-of-bounds access to %out"));
}

/// `a[idx[tid]] = tid`: two invocations writing one cell race.
#[test]
fn indirect_writes_race_only_when_they_collide() {
    let src = |idx: &str| {
        kernel(
            &format!("; @Input: %idx = {{{{{idx}}}}}, %a = {{{{0, 0}}}}\n; @Config: 2, 1, 1"),
            "        %idx = OpVariable %p_sbst StorageBuffer
          %a = OpVariable %p_sbst StorageBuffer",
            "         %ip = OpAccessChain %p_sb %idx %c0 %tid
          %i = OpLoad %uint %ip
         %ap = OpAccessChain %p_sb %a %c0 %i
               OpStore %ap %tid
               OpReturn",
        )
    };
    let r = races_both(&src("0, 0"));
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r
        .races
        .iter()
        .any(|x| x.location.as_deref() == Some("%a[0][0]")));
    assert_eq!(races_both(&src("0, 1")).verdict, Verdict::Pass);
    assert_eq!(races_both(&src("1, 0")).verdict, Verdict::Pass);
}

/// `OpSelect` of two pointers on a loaded condition, and a Workgroup
/// array indexed by a loaded value.
#[test]
fn pointers_selected_and_workgroup_arrays_indexed_at_run_time() {
    let src = |flag: u32, out: &str| {
        kernel(
            &format!("; @Input: %f = {flag}, %x = 0, %y = 0\n; @Output: forall ({out})\n; @Config: 1, 1, 1"),
            "          %f = OpVariable %p_sb StorageBuffer
          %x = OpVariable %p_sb StorageBuffer
          %y = OpVariable %p_sb StorageBuffer",
            "         %fv = OpLoad %uint %f
          %c = OpIEqual %bool %fv %c1
          %p = OpSelect %p_sb %c %x %y
               OpStore %p %c3
               OpReturn",
        )
    };
    assert_eq!(
        safety_both(&src(1, "%x == 3 and %y == 0"), 1).0.verdict,
        Verdict::Pass
    );
    assert_eq!(
        safety_both(&src(0, "%x == 0 and %y == 3"), 1).0.verdict,
        Verdict::Pass
    );
    assert_eq!(safety_both(&src(0, "%x == 3"), 1).0.verdict, Verdict::Fail);
    // Workgroup memory: each invocation writes the cell its input names,
    // then reads it back after a barrier.
    let src = kernel(
        "; @Input: %sel = {{2, 0}}, %res = {{0, 0}}\n; @Output: forall (%res[0][0] == 11 and %res[0][1] == 11)\n; @Config: 2, 1, 1",
        "        %sel = OpVariable %p_sbst StorageBuffer
        %res = OpVariable %p_sbst StorageBuffer
        %wga = OpVariable %p_wga Workgroup
        %c11 = OpConstant %uint 11",
        "         %sp = OpAccessChain %p_sb %sel %c0 %tid
          %s = OpLoad %uint %sp
         %wp = OpAccessChain %p_wg %wga %s
               OpStore %wp %c11
               OpControlBarrier %c2 %c2 %c264
          %v = OpLoad %uint %wp
         %rp = OpAccessChain %p_sb %res %c0 %tid
               OpStore %rp %v
               OpReturn",
    );
    // Workgroup memory starts arbitrary (docs/SEMANTICS.md "Free values"):
    // the explicit engine refuses it, the symbolic engine decides.
    let p = parse(&src);
    let m = vulkan();
    let e = safety::check(&p, &m, &opts(1)).expect_err("explicit refuses");
    assert!(e.message.contains("uninitialised"), "{e:?}");
    let (s, stats) = symbolic::check_safety_stats(&p, &m, &opts(1)).expect("symbolic");
    assert_eq!(stats.mismatches, 0);
    assert_eq!(s.verdict, Verdict::Pass);
}

/// clspv's pointer arithmetic: `OpPtrAccessChain` by a loaded element
/// index, then along the same array by a constant.
#[test]
fn pointer_access_chain_with_a_loaded_element() {
    let src = |k: u32| {
        kernel(
            &format!(
                "; @Input: %k = {k}, %b = {{{{0, 0, 0}}}}\n; @Output: forall (%b[0][2] == 5)\n; @Config: 1, 1, 1"
            ),
            "          %k = OpVariable %p_sb StorageBuffer
          %b = OpVariable %p_sbst StorageBuffer
         %c5 = OpConstant %uint 5",
            "         %kv = OpLoad %uint %k
         %b0 = OpAccessChain %p_sb %b %c0 %c0
         %bk = OpPtrAccessChain %p_sb %b0 %kv
         %bn = OpPtrAccessChain %p_sb %bk %c1
               OpStore %bn %c5
               OpReturn",
        )
    };
    assert_eq!(safety_both(&src(1), 1).0.verdict, Verdict::Pass);
    assert_eq!(safety_both(&src(0), 1).0.verdict, Verdict::Fail);
    // One past the end (element 3 of 3).
    let (e, _) = safety_both(&src(2), 1);
    assert!(
        e.note.expect("note").contains("out-of-bounds access to %b"),
        "index 3"
    );
}

/// A loop that a loaded value may leave keeps its counter in a register:
/// `for (i = 0; i < n; i++) out[i] = i + 1` with `n` loaded.
#[test]
fn loop_counter_indexes_an_array() {
    let src = |n: u32, bound: u32| {
        let s = kernel(
            &format!(
                "; @Input: %n = {n}, %out = {{{{0, 0, 0}}}}\n; @Output: forall (%out[0][0] == 1 and %out[0][1] == 2 and %out[0][2] == 0)\n; @Config: 1, 1, 1"
            ),
            "          %n = OpVariable %p_sb StorageBuffer
        %out = OpVariable %p_sbst StorageBuffer",
            "         %nv = OpLoad %uint %n
               OpBranch %head
       %head = OpLabel
          %i = OpPhi %uint %c0 %entry %i1 %body
         %lt = OpULessThan %bool %i %nv
               OpLoopMerge %exit %body None
               OpBranchConditional %lt %body %exit
       %body = OpLabel
         %i1 = OpIAdd %uint %i %c1
         %op = OpAccessChain %p_sb %out %c0 %i
               OpStore %op %i1
               OpBranch %head
       %exit = OpLabel
               OpReturn",
        );
        safety_both(&s, bound).0
    };
    assert_eq!(src(2, 3).verdict, Verdict::Pass);
    assert_eq!(src(2, 2).verdict, Verdict::Unknown);
    // Four iterations over three elements: the fourth is out of bounds.
    let r = src(4, 5);
    assert!(r.note.expect("note").contains("index 3"));
}

/// Liveness checks keep fixed addresses: a run-time one is refused,
/// naming the access.
#[test]
fn liveness_refuses_run_time_addresses() {
    let src = histogram("1, 3, 1, 0");
    let p = parse(&src);
    let progress = gpumc_verify::engine::liveness::ProgressSpec::parse("fair").expect("progress");
    for symbolic in [false, true] {
        let e = gpumc_verify::engine::liveness::check(&p, &vulkan(), &opts(1), &progress, symbolic)
            .expect_err("refused");
        assert!(
            e.to_string()
                .contains("unsupported: addresses computed at run time in liveness checks"),
            "{e}"
        );
        let line = src
            .lines()
            .position(|l| l.contains("OpAtomicIAdd"))
            .expect("atomic")
            + 1;
        assert_eq!(e.pos.map(|x| x.line as usize), Some(line));
    }
}

/// `addr` relates the read an index comes from to the access it chooses,
/// in both engines (a model flagging every address dependency).
#[test]
fn address_dependencies_reach_the_model() {
    let none = |_: &str, _: &Path| -> Option<(std::path::PathBuf, String)> { None };
    let base = |n: &str| gpumc_verify::engine::exec::base_kind(n, None);
    let m = Model::parse(
        "addr-only\nflag ~empty addr as address_dependency\n",
        Path::new("addr.cat"),
        &none,
        &base,
    )
    .expect("model parses");
    let check = |src: &str| {
        let p = parse(src);
        let e = races::check(&p, &m, &opts(1)).expect("explicit");
        let s = symbolic::check_races(&p, &m, &opts(1)).expect("symbolic");
        assert_eq!(e.verdict, s.verdict);
        e
    };
    let r = check(&histogram("1, 3, 1, 0"));
    assert_eq!(r.verdict, Verdict::Fail);
    let pair = &r.races[0];
    assert!(
        pair.instrs.0.contains("OpLoad") && pair.instrs.1.contains("OpAtomicIAdd"),
        "{pair:?}"
    );
    // The same bins computed while translating: fixed addresses, no
    // dependency.
    let fixed = histogram("1, 3, 1, 0").replace(
        "          %d = OpLoad %uint %dp",
        "          %d = OpUMod %uint %tid %c4",
    );
    assert_eq!(check(&fixed).verdict, Verdict::Pass);
}
