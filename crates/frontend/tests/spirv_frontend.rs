//! The SPIR-V front-end against the Dat3M corpus (`../shared/corpus`),
//! golden renderings of small programs, error positions, and robustness
//! under random damage.

use gpumc_core::diag::ErrorKind;
use gpumc_frontend::spirv::{parse, render};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus_root() -> Option<PathBuf> {
    let root = gpumc_testutil::shared_corpus().join("dat3m/spirv/vulkan");
    if root.is_dir() {
        Some(root)
    } else {
        println!("skipped: ../shared/corpus not found");
        None
    }
}

fn spvasm_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("readable corpus directory")
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            spvasm_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "spvasm") {
            out.push(p);
        }
    }
}

/// Corpus files gpumc reports as unsupported, with the construct named in
/// the message.
const UNSUPPORTED: &[(&str, &str)] = &[];

#[test]
fn every_corpus_file_parses_or_is_unsupported() {
    let Some(root) = corpus_root() else { return };
    let mut files = Vec::new();
    spvasm_files(&root, &mut files);
    assert!(
        files.len() >= 186,
        "only {} corpus files found",
        files.len()
    );
    let mut ok = 0;
    let mut unexpected = Vec::new();
    let mut unsupported = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable corpus file");
        let rel = f.strip_prefix(&root).unwrap().to_string_lossy().to_string();
        match parse(&text, f) {
            Ok(p) => {
                assert!(!p.threads.is_empty(), "{rel}: no threads");
                ok += 1;
                if UNSUPPORTED.iter().any(|(n, _)| *n == rel) {
                    unexpected.push(format!("{rel}: listed as unsupported but parses"));
                }
            }
            Err(e) if e.kind == ErrorKind::Unsupported => {
                let msg = e.to_string();
                match UNSUPPORTED.iter().find(|(n, _)| *n == rel) {
                    Some((_, what)) if msg.contains(what) => unsupported.push(rel),
                    _ => unexpected.push(msg),
                }
            }
            Err(e) => unexpected.push(e.to_string()),
        }
    }
    println!(
        "{ok} of {} corpus files parse; {} unsupported",
        files.len(),
        unsupported.len()
    );
    assert!(
        unexpected.is_empty(),
        "{} unexpected results:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
}

/// Golden renderings of small corpus programs (skipped without the corpus).
fn golden(rel: &str, expected: &str) {
    let Some(root) = corpus_root() else { return };
    let f = root.join(rel);
    let text = std::fs::read_to_string(&f).expect("readable corpus file");
    let p = parse(&text, &f).unwrap_or_else(|e| panic!("{e}"));
    let got = render(&p);
    assert_eq!(got.trim(), expected.trim(), "\n{got}");
}

#[test]
fn golden_push_constants() {
    golden(
        "basic/push-constants.spvasm",
        r"
program push-constants (Vulkan)
loc 0 %out[0][0] = 0 [StorageBuffer]
loc 1 %out[0][1] = 0 [StorageBuffer]
loc 2 %out[0][2] = 0 [StorageBuffer]
thread P0 @ [0, 0, 0]
    store %out[0][0] = 1  {SC0}  ; line 58
    store %out[0][1] = 0  {SC0}  ; line 59
    store %out[0][2] = 1  {SC0}  ; line 60
forall ((%out[0][0] == 1 /\ %out[0][1] == 0) /\ %out[0][2] == 1)
",
    );
}

#[test]
fn golden_message_passing() {
    golden(
        "patterns/mp.spvasm",
        r"
program mp (Vulkan)
loc 0 %17[0][0] = 0 [StorageBuffer]
loc 1 %18[0][0] = 0 [StorageBuffer]
loc 2 %19[0][0] = 0 [StorageBuffer]
loc 3 %20[0][0] = 0 [StorageBuffer]
thread P0 @ [0, 0, 0]
    store %18[0][0] = 1  {DV SC0 AV NONPRIV}  ; line 104
    store %17[0][0] = 1  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 105
thread P1 @ [0, 0, 0]
    load %45 = %17[0][0]  {ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS}  ; line 94
    store %19[0][0] = %45  {SC0}  ; line 95
    load %46 = %18[0][0]  {DV SC0 VIS NONPRIV}  ; line 96
    store %20[0][0] = %46  {SC0}  ; line 97
filter %19[0][0] == 1
forall (%19[0][0] != 1 \/ %20[0][0] == 1)
",
    );
}

#[test]
fn golden_cas_lock() {
    golden(
        "benchmarks/caslock-1.1.2.spvasm",
        r"
program caslock-1.1.2 (Vulkan)
loc 0 %17[0][0] = 0 [StorageBuffer]
loc 1 %18[0][0] = 0 [StorageBuffer]
loc 2 %19[0][0] = -1 [StorageBuffer]
loc 3 %19[0][1] = -1 [StorageBuffer]
thread P0 @ [0, 0, 0]
  L1:
    rmw.cas %32 = %17[0][0], expected 0, new 1  {ATOM A NONPRIV DV SC0} read {ACQ SEMSC0 VIS} write {AV}  ; line 76
    if %32 == 0 goto L2  ; line 79
    goto L1  ; line 79
  L2:
    load %38 = %18[0][0]  {DV SC0 VIS NONPRIV}  ; line 81
    %39 := Add %38 1  ; line 82
    %39 := Shl %39 32  ; line 82
    %39 := Shr %39 32  ; line 82
    store %18[0][0] = %39  {DV SC0 AV NONPRIV}  ; line 83
    store %17[0][0] = 0  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 84
    store %19[0][0] = %38  {SC0}  ; line 91
thread P1 @ [0, 1, 0]
  L1:
    rmw.cas %32 = %17[0][0], expected 0, new 1  {ATOM A NONPRIV DV SC0} read {ACQ SEMSC0 VIS} write {AV}  ; line 76
    if %32 == 0 goto L2  ; line 79
    goto L1  ; line 79
  L2:
    load %38 = %18[0][0]  {DV SC0 VIS NONPRIV}  ; line 81
    %39 := Add %38 1  ; line 82
    %39 := Shl %39 32  ; line 82
    %39 := Shr %39 32  ; line 82
    store %18[0][0] = %39  {DV SC0 AV NONPRIV}  ; line 83
    store %17[0][0] = 0  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 84
    store %19[0][1] = %38  {SC0}  ; line 91
forall ((%19[0][0] == -1 \/ %19[0][1] == -1) \/ %19[0][0] != %19[0][1])
",
    );
}

/// The loop's trip count is known: it is unrolled, and each iteration's
/// barrier gets its own dynamic-instance id.
#[test]
fn golden_barrier_in_a_known_loop() {
    golden(
        "barrier/loops/barrier-loop-4-exists.spvasm",
        r"
program barrier-loop-4-exists (Vulkan)
loc 0 %17[0][0] = 0 [StorageBuffer]
loc 1 %17[0][1] = 0 [StorageBuffer]
loc 2 %17[0][2] = 0 [StorageBuffer]
loc 3 %17[0][3] = 0 [StorageBuffer]
loc 4 %18[0][0] = 0 [StorageBuffer]
loc 5 %18[0][1] = 0 [StorageBuffer]
loc 6 %18[0][2] = 0 [StorageBuffer]
loc 7 %18[0][3] = 0 [StorageBuffer]
thread P0 @ [0, 0, 0]
    store %17[0][0] = 1  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 85
    barrier id 0 count 2  {B CBAR F ACQ REL ACQ_REL WG SEMSC0}  ; line 86
    load %52 = %17[0][1]  {ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS}  ; line 91
    store %18[0][0] = %52  {SC0}  ; line 95
    store %17[0][2] = 1  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 85
    barrier id 1 count 2  {B CBAR F ACQ REL ACQ_REL WG SEMSC0}  ; line 86
    load %52#1 = %17[0][3]  {ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS}  ; line 91
    store %18[0][2] = %52#1  {SC0}  ; line 95
thread P1 @ [1, 0, 0]
    store %17[0][1] = 1  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 85
    barrier id 0 count 2  {B CBAR F ACQ REL ACQ_REL WG SEMSC0}  ; line 86
    load %52 = %17[0][0]  {ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS}  ; line 91
    store %18[0][1] = %52  {SC0}  ; line 95
    store %17[0][3] = 1  {ATOM A NONPRIV REL DV SC0 SEMSC0 AV}  ; line 85
    barrier id 1 count 2  {B CBAR F ACQ REL ACQ_REL WG SEMSC0}  ; line 86
    load %52#1 = %17[0][2]  {ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS}  ; line 91
    store %18[0][3] = %52#1  {SC0}  ; line 95
exists ((%18[0][0] == 0 /\ %18[0][1] == 0) \/ (%18[0][2] == 0 /\ %18[0][3] == 0))
",
    );
}

/// A self-contained program used by the robustness tests.
const SAMPLE: &str = "; @Input: %buf = {{0, 0}}
; @Output: forall (%buf[0][0] == 1)
; @Config: 2, 1, 1
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %ids
               OpDecorate %ids BuiltIn LocalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %st 0 Offset 0
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
         %rt = OpTypeRuntimeArray %uint
         %st = OpTypeStruct %rt
         %fn = OpTypeFunction %void
       %p_st = OpTypePointer StorageBuffer %st
       %p_sb = OpTypePointer StorageBuffer %uint
      %p_in3 = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
        %c66 = OpConstant %uint 66
        %c68 = OpConstant %uint 68
       %c264 = OpConstant %uint 264
        %ids = OpVariable %p_in3 Input
        %buf = OpVariable %p_st StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %idv = OpLoad %v3uint %ids
         %id = OpCompositeExtract %uint %idv 0
       %mine = OpAccessChain %p_sb %buf %c0 %id
               OpAtomicStore %mine %c1 %c68 %c1
               OpControlBarrier %c2 %c2 %c264
               OpBranch %head
       %head = OpLabel
          %i = OpPhi %uint %c0 %entry %n %head
          %v = OpAtomicLoad %uint %mine %c1 %c66
          %n = OpIAdd %uint %i %c1
       %done = OpINotEqual %bool %v %c0
               OpLoopMerge %exit %head None
               OpBranchConditional %done %exit %head
       %exit = OpLabel
               OpStore %mine %n
               OpReturn
               OpFunctionEnd
";

#[test]
fn sample_parses() {
    let p = parse(SAMPLE, Path::new("sample.spvasm")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.threads.len(), 2);
    assert!(render(&p).contains("barrier id 0 count 2"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Truncated input never panics.
    #[test]
    fn truncation_never_panics(cut in 0usize..SAMPLE.len()) {
        let s: String = SAMPLE.chars().take(cut).collect();
        let _ = parse(&s, Path::new("t.spvasm"));
    }

    /// Random character edits never panic.
    #[test]
    fn mutation_never_panics(
        edits in proptest::collection::vec((0usize..SAMPLE.len(), proptest::char::range(' ', '~')), 1..6)
    ) {
        let mut chars: Vec<char> = SAMPLE.chars().collect();
        for (i, c) in edits {
            let i = i % chars.len();
            chars[i] = c;
        }
        let s: String = chars.into_iter().collect();
        let _ = parse(&s, Path::new("t.spvasm"));
    }

    /// Deleting, duplicating or swapping whole lines never panics.
    #[test]
    fn line_edits_never_panic(
        edits in proptest::collection::vec((0usize..64, 0usize..64, 0u8..3), 1..5)
    ) {
        let mut lines: Vec<&str> = SAMPLE.lines().collect();
        for (a, b, kind) in edits {
            let n = lines.len();
            if n == 0 { break; }
            let (a, b) = (a % n, b % n);
            match kind {
                0 => { lines.remove(a); }
                1 => { let l = lines[a]; lines.insert(b, l); }
                _ => lines.swap(a, b),
            }
        }
        let s = lines.join("\n");
        let _ = parse(&s, Path::new("t.spvasm"));
    }

    /// Replacing an operand token by another token of the file never panics.
    #[test]
    fn token_swaps_never_panic(
        swaps in proptest::collection::vec((0usize..400, 0usize..400), 1..4)
    ) {
        let mut toks: Vec<String> = SAMPLE.split(' ').map(str::to_string).collect();
        let n = toks.len();
        for (a, b) in swaps {
            let t = toks[b % n].clone();
            toks[a % n] = t;
        }
        let s = toks.join(" ");
        let _ = parse(&s, Path::new("t.spvasm"));
    }
}

/// Corpus files damaged by token swaps never panic the front-end.
#[test]
fn damaged_corpus_files_never_panic() {
    let Some(root) = corpus_root() else { return };
    let picks = [
        "benchmarks/xf-barrier-2.1.2.spvasm",
        "benchmarks/ticketlock-1.1.2.spvasm",
        "alignment/alignment5-struct-local.spvasm",
        "basic/min-max.spvasm",
        "basic/read-write-struct.spvasm",
        "termination/mp-wg_obe-t_obe.spvasm",
    ];
    let texts: Vec<String> = picks
        .iter()
        .map(|f| std::fs::read_to_string(root.join(f)).expect("readable corpus file"))
        .collect();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 300,
        ..ProptestConfig::default()
    });
    let strategy = (
        0usize..texts.len(),
        proptest::collection::vec((0usize..100_000, 0usize..100_000), 1..4),
    );
    runner
        .run(&strategy, |(k, swaps)| {
            let mut toks: Vec<&str> = texts[k].split(' ').collect();
            let n = toks.len();
            for (a, b) in swaps {
                toks[a % n] = toks[b % n];
            }
            let s = toks.join(" ");
            let _ = parse(&s, Path::new("t.spvasm"));
            Ok(())
        })
        .unwrap();
}

/// `SPV_DUMP=<file> cargo test --test spirv_frontend dump -- --nocapture`
/// prints a file's rendering (a debugging aid; does nothing otherwise).
#[test]
fn dump() {
    if let Ok(f) = std::env::var("SPV_DUMP") {
        let text = std::fs::read_to_string(&f).expect("readable file");
        match parse(&text, Path::new(&f)) {
            Ok(p) => println!("{}", render(&p)),
            Err(e) => println!("error: {e}"),
        }
    }
}
