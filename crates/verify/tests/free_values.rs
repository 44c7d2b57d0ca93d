//! Free values in SPIR-V kernels (docs/SEMANTICS.md "Free values"): push
//! constants no `@Input` sets are uniform free inputs, undefined values and
//! uninitialised memory are arbitrary, both engines explore them, and
//! witnesses show the values chosen.

use gpumc_core::ir::{InstrKind, Program, ValueType};
use gpumc_verify::driver::{check_file, Config, Engine, ModelCache, Property};
use gpumc_verify::engine::safety::{self, Verdict};
use gpumc_verify::engine::{races, symbolic, Options};
use std::path::Path;

/// A glslang-style kernel: two invocations, a push-constant block `%pc`
/// whose member 0 is named `n`, a buffer `%out` (a runtime array of
/// `uint`), `%c0`, `%c1`, `%c4`, `%c5`, `%c7` constants, `%gid` the invocation index; `headers`
/// are the harness lines, `body` the entry point's code after its label.
fn kernel(headers: &str, globals: &str, body: &str) -> String {
    format!(
        "{headers}
; @Config: 2, 1, 1
; SPIR-V
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %out %pc %ids
               OpMemberName %PC 0 \"n\"
               OpDecorate %PC Block
               OpMemberDecorate %PC 0 Offset 0
               OpDecorate %ids BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpDecorate %Buf Block
               OpMemberDecorate %Buf 0 Offset 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
         %PC = OpTypeStruct %uint
      %p_pcs = OpTypePointer PushConstant %PC
       %p_pc = OpTypePointer PushConstant %uint
         %rt = OpTypeRuntimeArray %uint
        %Buf = OpTypeStruct %rt
      %p_buf = OpTypePointer StorageBuffer %Buf
       %p_sb = OpTypePointer StorageBuffer %uint
      %p_ids = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c4 = OpConstant %uint 4
         %c5 = OpConstant %uint 5
         %c7 = OpConstant %uint 7
         %pc = OpVariable %p_pcs PushConstant
        %out = OpVariable %p_buf StorageBuffer
        %ids = OpVariable %p_ids Input
{globals}
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idv = OpLoad %v3uint %ids
        %gid = OpCompositeExtract %uint %idv 0
{body}
               OpReturn
               OpFunctionEnd
"
    )
}

/// `if (n > 0) out[0] = 1;` in both invocations: a data race exactly when
/// the push constant `n` is not 0.
const RACE_IF_N: &str = "         %np = OpAccessChain %p_pc %pc %c0
          %n = OpLoad %uint %np
        %pos = OpUGreaterThan %bool %n %c0
               OpSelectionMerge %end None
               OpBranchConditional %pos %then %end
       %then = OpLabel
         %o0 = OpAccessChain %p_sb %out %c0 %c0
               OpStore %o0 %c1
               OpBranch %end
        %end = OpLabel";

/// `out[gid] = v` for the value `v` computed by `code`.
fn store_each(code: &str) -> String {
    format!(
        "{code}
         %og = OpAccessChain %p_sb %out %c0 %gid
               OpStore %og %v"
    )
}

fn parse(src: &str) -> Program {
    gpumc_frontend::spirv::parse(src, Path::new("t.spvasm")).unwrap_or_else(|e| panic!("{e}"))
}

fn vulkan() -> gpumc_core::cat::Model {
    gpumc_core::models::load("vulkan").expect("embedded model")
}

fn input(w: &gpumc_verify::engine::witness::Witness, name: &str) -> Option<i64> {
    w.inputs.iter().find(|(n, _)| n == name).map(|x| x.1)
}

#[test]
fn an_unset_push_constant_is_one_free_input() {
    let p = parse(&kernel("; @Input: %out = {{0, 0}}", "", RACE_IF_N));
    assert_eq!(p.inputs.len(), 1);
    assert_eq!(p.inputs[0].name, "n", "named by its `OpMemberName`");
    assert_eq!(p.inputs[0].ty, ValueType::Int(32));
    assert_eq!(p.inputs[0].value, None);
    // Each invocation reads the one input.
    for t in &p.threads {
        let reads: Vec<usize> = t
            .instrs
            .iter()
            .filter_map(|i| match &i.kind {
                InstrKind::Input { input, .. } => Some(*input),
                _ => None,
            })
            .collect();
        assert_eq!(reads, vec![0], "{}", t.name);
    }
}

/// GPUVerify-style guard: the race needs `n != 0`. Reading the push
/// constant as 0 (as gpumc did) made this PASS, unsoundly.
#[test]
fn a_race_that_needs_a_non_zero_push_constant_fails_in_both_engines() {
    let p = parse(&kernel("; @Input: %out = {{0, 0}}", "", RACE_IF_N));
    let m = vulkan();
    let opts = Options::default();
    let sym = symbolic::check_races(&p, &m, &opts).expect("symbolic check runs");
    assert_eq!(sym.verdict, Verdict::Fail);
    let w = sym.witness.expect("a race has a witness");
    let n = input(&w, "n").expect("the witness names `n`");
    assert_ne!(n, 0, "{:?}", w.inputs);
    // The explicit engine checks the representatives of `n`'s classes
    // (it is only compared with 0).
    let exp = races::check(&p, &m, &opts).expect("explicit check runs");
    assert_eq!(exp.verdict, Verdict::Fail);
    let w = exp.witness.expect("a race has a witness");
    assert_ne!(input(&w, "n"), Some(0), "{:?}", w.inputs);
    assert!(input(&w, "n").is_some(), "{:?}", w.inputs);
}

#[test]
fn an_input_fixed_by_the_harness_stays_fixed() {
    let src = kernel(
        "; @Input: %out = {{0, 0}}\n; @Input: %pc = {0}",
        "",
        RACE_IF_N,
    );
    let p = parse(&src);
    assert!(p.inputs.is_empty(), "{:?}", p.inputs);
    let m = vulkan();
    let opts = Options::default();
    assert_eq!(
        symbolic::check_races(&p, &m, &opts).unwrap().verdict,
        Verdict::Pass
    );
    assert_eq!(races::check(&p, &m, &opts).unwrap().verdict, Verdict::Pass);
    // Fixed to 3, the race is there, and no input is reported.
    let p = parse(&src.replace("%pc = {0}", "%pc = {3}"));
    let r = symbolic::check_races(&p, &m, &opts).unwrap();
    assert_eq!(r.verdict, Verdict::Fail);
    assert!(r.witness.unwrap().inputs.is_empty());
}

/// Inputs are uniform: both invocations read the same value, whatever it
/// is. The same kernel with an `OpUndef` (one value per invocation) fails.
#[test]
fn every_invocation_reads_the_same_input() {
    let header = "; @Input: %out = {{0, 0}}\n; @Output: forall (%out[0][0] == %out[0][1])";
    let uniform = kernel(
        header,
        "",
        &store_each(
            "         %np = OpAccessChain %p_pc %pc %c0
          %v = OpLoad %uint %np",
        ),
    );
    let p = parse(&uniform);
    let m = vulkan();
    let opts = Options::default();
    let r = symbolic::check_safety(&p, &m, &opts).unwrap();
    assert_eq!(r.verdict, Verdict::Pass);
    // The input flows into memory: no finite set of representatives.
    let e = safety::check(&p, &m, &opts).expect_err("the explicit engine refuses");
    assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("`n`"), "{e}");
    assert_eq!(Engine::Auto.resolve(&p), Engine::Symbolic);

    let per_invocation = kernel(
        header,
        "          %u = OpUndef %uint",
        &store_each("          %v = OpCopyObject %uint %u"),
    );
    let p = parse(&per_invocation);
    let r = symbolic::check_safety(&p, &m, &opts).unwrap();
    assert_eq!(r.verdict, Verdict::Fail);
    let w = r.witness.expect("a violated forall has a witness");
    let (a, b) = (input(&w, "P0:%u"), input(&w, "P1:%u"));
    assert!(a.is_some() && a != b, "{:?}", w.inputs);
}

/// `if (u == 5) out[0] = 7` for an undefined `u`: reachable, and the
/// witness shows the undefined value; the explicit engine agrees (`u` is
/// only compared with a constant).
#[test]
fn an_assertion_that_needs_an_undefined_value() {
    let body = "        %is5 = OpIEqual %bool %u %c5
               OpSelectionMerge %end None
               OpBranchConditional %is5 %then %end
       %then = OpLabel
         %o0 = OpAccessChain %p_sb %out %c0 %c0
               OpStore %o0 %c7
               OpBranch %end
        %end = OpLabel";
    let src = kernel(
        "; @Input: %out = {{0, 0}}\n; @Output: forall (%out[0][0] == 0)",
        "          %u = OpUndef %uint",
        body,
    );
    let p = parse(&src);
    let m = vulkan();
    let opts = Options::default();
    for r in [
        symbolic::check_safety(&p, &m, &opts).unwrap(),
        safety::check(&p, &m, &opts).unwrap(),
    ] {
        assert_eq!(r.verdict, Verdict::Fail);
        let w = r.witness.expect("a violated forall has a witness");
        let chose5 = input(&w, "P0:%u") == Some(5) || input(&w, "P1:%u") == Some(5);
        assert!(chose5, "{:?}", w.inputs);
    }
    let exists = parse(&src.replace("forall (%out[0][0] == 0)", "exists (%out[0][0] == 7)"));
    assert_eq!(
        symbolic::check_safety(&exists, &m, &opts).unwrap().verdict,
        Verdict::Pass
    );
    assert_eq!(
        safety::check(&exists, &m, &opts).unwrap().verdict,
        Verdict::Pass
    );
}

/// Uninitialised Workgroup memory is arbitrary (of its type: a `uint`
/// here), and a witness shows the initial value it read.
#[test]
fn uninitialised_workgroup_memory_is_arbitrary() {
    let src = kernel(
        "; @Input: %out = {{0, 0}}\n; @Output: exists (%out[0][0] == 4294967295)",
        "       %p_wg = OpTypePointer Workgroup %uint
         %wg = OpVariable %p_wg Workgroup",
        &store_each("          %v = OpLoad %uint %wg"),
    );
    let p = parse(&src);
    let wg = p.location_id("%wg").expect("a location");
    assert_eq!(p.locations[wg].init_arbitrary, Some(ValueType::Int(32)));
    let r = symbolic::check_safety(&p, &vulkan(), &Options::default()).unwrap();
    assert_eq!(r.verdict, Verdict::Pass);
    let w = r.witness.expect("exists has a witness");
    assert_eq!(input(&w, "%wg"), Some(-1), "{:?}", w.inputs);
    let init = w
        .events
        .iter()
        .find(|e| e.kind == "IW" && e.location.as_deref() == Some("%wg"));
    assert_eq!(init.and_then(|e| e.value), Some(-1));
}

/// A clspv kernel argument passed in a push constant is named by its
/// `ArgumentPodPushConstant` reflection; the CLI's text and JSON witness
/// show its value.
#[test]
fn witnesses_name_clspv_arguments_in_text_and_json() {
    let src = kernel("; @Input: %out = {{0, 0}}", "", RACE_IF_N)
        .replace(
            "               OpMemberName %PC 0 \"n\"\n",
            "       %refl = OpExtInstImport \"NonSemantic.ClspvReflection.5\"\n\
             %kname = OpString \"test\"\n\
             %aname = OpString \"count\"\n",
        )
        .replace(
            "               OpFunctionEnd\n",
            "               OpFunctionEnd\n\
             %kern = OpExtInst %void %refl Kernel %main %kname\n\
             %info = OpExtInst %void %refl ArgumentInfo %aname\n\
             %arg = OpExtInst %void %refl ArgumentPodPushConstant %kern %c0 %c0 %c4 %info\n",
        );
    let dir = std::env::temp_dir().join(format!("gpumc-free-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("race-if-count.spvasm");
    std::fs::write(&f, &src).unwrap();
    // (the concrete engine's witness; `auto` asks the parametric engine
    // first, whose message names the argument too)
    let cfg = Config {
        property: Property::Races,
        ..Config::default()
    };
    let r = check_file(&f, &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    assert!(
        r.message
            .as_deref()
            .is_some_and(|m| m.contains("with count=")),
        "{:?}",
        r.message
    );
    let cfg = Config {
        property: Property::Races,
        engine: Engine::Symbolic,
        ..Config::default()
    };
    let r = check_file(&f, &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    let text = gpumc_verify::report::text(&r);
    assert!(text.contains("inputs: count="), "{text}");
    let v: serde_json::Value = serde_json::from_str(&gpumc_verify::report::json(&r)).unwrap();
    let count = v["witness"]["inputs"]["count"].as_i64();
    assert!(count.is_some_and(|c| c != 0), "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Liveness fixes the inputs one valuation at a time: the spinloop only
/// runs forever when `n == 1`, and the violation says so.
#[test]
fn liveness_explores_each_valuation_of_the_inputs() {
    let body = "         %np = OpAccessChain %p_pc %pc %c0
          %n = OpLoad %uint %np
        %is1 = OpIEqual %bool %n %c1
               OpSelectionMerge %end None
               OpBranchConditional %is1 %spin %end
       %spin = OpLabel
               OpLoopMerge %end %spin None
         %f0 = OpAccessChain %p_sb %out %c0 %c0
          %f = OpAtomicLoad %uint %f0 %c1 %c0
       %zero = OpIEqual %bool %f %c0
               OpBranchConditional %zero %spin %end
        %end = OpLabel";
    let p = parse(&kernel("; @Input: %out = {{0, 0}}", "", body));
    let m = vulkan();
    let opts = Options {
        liveness: true,
        ..Options::default()
    };
    let fair = gpumc_verify::engine::liveness::ProgressSpec::parse("fair").unwrap();
    for symbolic in [false, true] {
        let r = gpumc_verify::engine::liveness::check(&p, &m, &opts, &fair, symbolic).unwrap();
        assert_eq!(r.verdict, Verdict::Fail, "symbolic: {symbolic}");
        let v = r.violation.expect("a violation");
        assert!(v.description.contains("n=1"), "{}", v.description);
    }
    let fixed = parse(&kernel(
        "; @Input: %out = {{0, 0}}\n; @Input: %pc = {2}",
        "",
        body,
    ));
    let r = gpumc_verify::engine::liveness::check(&fixed, &m, &opts, &fair, false).unwrap();
    assert_eq!(r.verdict, Verdict::Pass);
}

/// The explicit engine's refusal of uninitialised memory points at the
/// first access that may reach it (`file:line:col`), as other errors do.
#[test]
fn uninitialised_memory_refusal_has_a_position() {
    let src = kernel(
        "; @Output: forall (%out[0][0] == 0)",
        "",
        "         %o0 = OpAccessChain %p_sb %out %c0 %c0
          %v = OpLoad %uint %o0",
    );
    let line = src
        .lines()
        .position(|l| l.contains("OpLoad %uint %o0"))
        .unwrap()
        + 1;
    let e = safety::check(&parse(&src), &vulkan(), &Options::default())
        .expect_err("the explicit engine refuses");
    assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("`%out[0][0]` is uninitialised"), "{e}");
    assert_eq!(e.pos.map(|p| p.line), Some(line as u32), "{e}");
}

/// An input that liveness cannot enumerate (compared with a loaded value)
/// is refused on both engines, and the refusal does not send the user to
/// `--engine symbolic`, which refuses it too.
#[test]
fn liveness_refuses_inputs_it_cannot_enumerate_without_naming_an_engine() {
    let body = "         %np = OpAccessChain %p_pc %pc %c0
          %n = OpLoad %uint %np
         %f0 = OpAccessChain %p_sb %out %c0 %c0
               OpBranch %spin
       %spin = OpLabel
          %f = OpAtomicLoad %uint %f0 %c1 %c0
         %ne = OpINotEqual %bool %f %n
               OpLoopMerge %end %spin None
               OpBranchConditional %ne %spin %end
        %end = OpLabel";
    let p = parse(&kernel("; @Input: %out = {{0, 0}}", "", body));
    let opts = Options {
        liveness: true,
        ..Options::default()
    };
    let fair = gpumc_verify::engine::liveness::ProgressSpec::parse("fair").unwrap();
    for symbolic in [false, true] {
        let e = gpumc_verify::engine::liveness::check(&p, &vulkan(), &opts, &fair, symbolic)
            .expect_err("refused");
        assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Unsupported);
        assert!(e.message.contains("free input `n`"), "{e}");
        assert!(e.message.contains("liveness"), "{e}");
        assert!(!e.message.contains("--engine symbolic"), "{e}");
        assert!(e.pos.is_some(), "where `n` is read: {e}");
    }
    // Under `--engine auto` the shared reason is reported once, with its
    // position, not as two engines' refusals.
    let dir = std::env::temp_dir().join(format!("gpumc-free-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("spin-until-n.spvasm");
    std::fs::write(&f, kernel("; @Input: %out = {{0, 0}}", "", body)).unwrap();
    let cfg = Config {
        property: Property::Liveness,
        ..Config::default()
    };
    let r = check_file(&f, &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "ERROR");
    let msg = r.message.unwrap();
    assert!(
        msg.starts_with(&format!("{}:", f.display()))
            && msg.contains(": unsupported: the free input `n`"),
        "{msg}"
    );
    assert!(!msg.contains("both engines"), "{msg}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An undefined boolean has two values, which the explicit engine
/// enumerates per invocation: the invocations may disagree.
#[test]
fn undefined_booleans_are_enumerated_by_both_engines() {
    let body = "               OpSelectionMerge %end None
               OpBranchConditional %ub %then %end
       %then = OpLabel
         %og = OpAccessChain %p_sb %out %c0 %gid
               OpStore %og %c1
               OpBranch %end
        %end = OpLabel";
    let src = kernel(
        "; @Input: %out = {{0, 0}}\n; @Output: exists (%out[0][0] == 1 and %out[0][1] == 0)",
        "         %ub = OpUndef %bool",
        body,
    );
    let p = parse(&src);
    let ty = p.threads[0].instrs.iter().find_map(|i| match &i.kind {
        InstrKind::Havoc { ty, .. } => Some(*ty),
        _ => None,
    });
    assert_eq!(ty, Some(ValueType::Bool));
    let m = vulkan();
    let opts = Options::default();
    let exp = safety::check(&p, &m, &opts).unwrap();
    assert_eq!(exp.verdict, Verdict::Pass);
    assert_eq!(exp.states.len(), 4, "two invocations, two values each");
    assert_eq!(
        symbolic::check_safety(&p, &m, &opts).unwrap().verdict,
        Verdict::Pass
    );
}

/// Width 1 means a boolean: 1-bit integer types are refused.
#[test]
fn one_bit_integers_are_unsupported() {
    let src = kernel(
        "",
        "      %bit = OpTypeInt 1 0\n         %b1 = OpConstant %bit 1",
        &store_each("          %v = OpUConvert %uint %b1"),
    );
    let e = gpumc_frontend::spirv::parse(&src, Path::new("t.spvasm")).expect_err("refused");
    assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Unsupported, "{e}");
    assert!(e.to_string().contains("t.spvasm:"), "{e}");
}
