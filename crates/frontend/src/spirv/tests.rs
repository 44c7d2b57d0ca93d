//! Unit tests of the SPIR-V front-end: headers, tags, phi lowering, loops,
//! barriers, widths and error positions.

use super::header::{parse_cond, parse_headers, Grid, HCond, HTerm, HValue};
use super::{parse, render};
use crate::diag::{Error, ErrorKind};
use crate::ir::{Addr, CmpOp, Cond, InstrKind, Operand, Pos, Program, Quantifier, Term};
use std::path::Path;

/// A module around a body: common types, constants and variables.
/// `%buf`: StorageBuffer struct { uint[] }; `%x`, `%y`: StorageBuffer
/// uints; `%wgv`: Workgroup uint; `%priv`: Private uint; `%ids`:
/// GlobalInvocationId.
fn kernel(headers: &str, body: &str) -> String {
    kernel_with(headers, "", body)
}

/// [`kernel`] with extra module-level declarations `globals` (after the
/// variables).
fn kernel_with(headers: &str, globals: &str, body: &str) -> String {
    format!(
        "{headers}
               OpCapability Shader
               OpCapability VulkanMemoryModel
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %ids
               OpDecorate %ids BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %st 0 Offset 0
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
         %rt = OpTypeRuntimeArray %uint
         %st = OpTypeStruct %rt
         %fn = OpTypeFunction %void
     %p_sbst = OpTypePointer StorageBuffer %st
       %p_sb = OpTypePointer StorageBuffer %uint
       %p_wg = OpTypePointer Workgroup %uint
       %p_pr = OpTypePointer Private %uint
       %p_in = OpTypePointer Input %uint
     %p_in3 = OpTypePointer Input %v3uint
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c2 = OpConstant %uint 2
         %c3 = OpConstant %uint 3
         %c5 = OpConstant %uint 5
        %c66 = OpConstant %uint 66
        %c68 = OpConstant %uint 68
        %c72 = OpConstant %uint 72
       %c258 = OpConstant %uint 258
       %c264 = OpConstant %uint 264
        %ids = OpVariable %p_in3 Input
        %buf = OpVariable %p_sbst StorageBuffer
          %x = OpVariable %p_sb StorageBuffer
          %y = OpVariable %p_sb StorageBuffer
        %wgv = OpVariable %p_wg Workgroup
       %priv = OpVariable %p_pr Private
{globals}
       %main = OpFunction %void None %fn
      %entry = OpLabel
{body}
               OpFunctionEnd
"
    )
}

fn ok(src: &str) -> Program {
    match parse(src, Path::new("t.spvasm")) {
        Ok(p) => p,
        Err(e) => panic!("unexpected error: {e}\n{src}"),
    }
}

fn err(src: &str) -> Error {
    match parse(src, Path::new("t.spvasm")) {
        Ok(p) => panic!("expected an error, got\n{}", render(&p)),
        Err(e) => e,
    }
}

/// Line number (1-based) of the last line of `src` containing `needle`,
/// and the column where `needle` starts.
fn at(src: &str, needle: &str) -> Pos {
    for (i, l) in src
        .lines()
        .enumerate()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        if let Some(c) = l.find(needle) {
            return Pos {
                line: i as u32 + 1,
                col: c as u32 + 1,
            };
        }
    }
    panic!("`{needle}` not in source");
}

fn tags_of(p: &Program, t: usize, text: &str) -> Vec<String> {
    p.threads[t]
        .instrs
        .iter()
        .find(|i| i.text.contains(text) && !matches!(i.kind, InstrKind::Local { .. }))
        .unwrap_or_else(|| panic!("no instruction `{text}`"))
        .tags
        .clone()
}

// ----- headers ---------------------------------------------------------

#[test]
fn headers_are_read() {
    let h = parse_headers(
        "; @Input: %a = 7, %b={{1, -2}, {}}\n\
         ;   @Output: forall (%a == 7 and %b[0][1] != -2)\n\
         ; @Output: not exists (%a == 1)\n\
         ; @Filter: %b[0][0] >= 0\n\
         ; @Config: 2, 3, 4\n\
         ; plain comment\n",
    )
    .unwrap();
    assert_eq!(h.inputs.len(), 2);
    assert_eq!(h.inputs[0].name, "a");
    assert!(matches!(h.inputs[0].value, HValue::Int(7, _)));
    match &h.inputs[1].value {
        HValue::List(xs, _) => {
            assert_eq!(xs.len(), 2);
            assert!(matches!(&xs[0], HValue::List(ys, _) if ys.len() == 2));
            assert!(matches!(&xs[1], HValue::List(ys, _) if ys.is_empty()));
        }
        v => panic!("{v:?}"),
    }
    assert_eq!(h.outputs.len(), 2);
    assert_eq!(h.outputs[0].0, Quantifier::Forall);
    assert_eq!(h.outputs[0].2, Pos { line: 2, col: 5 });
    assert_eq!(h.outputs[1].0, Quantifier::NotExists);
    assert_eq!(h.filters.len(), 1);
    assert_eq!(
        h.config.unwrap().0,
        Grid {
            threads_per_sg: 2,
            sgs_per_wg: 3,
            wgs: 4,
            dims: None,
        }
    );
    let h = parse_headers("; @Output: ~exists (1 == 1)").unwrap();
    assert_eq!(h.outputs[0].0, Quantifier::NotExists);
    let h = parse_headers("; @Output: exists (0 == 1)").unwrap();
    assert_eq!(h.outputs[0].0, Quantifier::Exists);
    assert_eq!(parse_headers("").unwrap().config, None);
}

#[test]
fn condition_syntax() {
    let c = parse_cond("(%x[1] = 2 \\/ %y < 3) /\\ not %z >= -4").unwrap();
    let HCond::And(a, b) = c else { panic!() };
    assert!(matches!(*a, HCond::Or(..)));
    let HCond::Not(b) = *b else { panic!() };
    let HCond::Cmp(op, HTerm::Var { name, path, .. }, HTerm::Int(v, _)) = *b else {
        panic!()
    };
    assert_eq!((op, name.as_str(), path.len(), v), (CmpOp::Ge, "z", 0, -4));
    assert!(matches!(
        parse_cond("true && !false").unwrap(),
        HCond::And(..)
    ));
}

#[test]
fn header_errors_have_positions() {
    let e = parse_headers("; @Config: 1, 0, 1").unwrap_err();
    assert_eq!(
        (e.kind, e.pos),
        (ErrorKind::Semantic, Some(Pos { line: 1, col: 15 }))
    );
    let e = parse_headers("\n; @Output: maybe (1 == 1)").unwrap_err();
    assert_eq!(
        (e.kind, e.pos),
        (ErrorKind::Syntax, Some(Pos { line: 2, col: 12 }))
    );
    let e = parse_headers("; @Input: %a = {1, 2").unwrap_err();
    assert_eq!(
        (e.kind, e.pos),
        (ErrorKind::Syntax, Some(Pos { line: 1, col: 21 }))
    );
    let e = parse_headers("; @Bound: 3").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("`@Bound`"), "{}", e.message);
    // Not a refusal about size: the generic translation refuses it too.
    assert!(!e.scale && !super::generic_may_take(&e));
    // The grid's limit: the concrete translation's, and the generic
    // one's (below 2^31 invocations).
    use super::header::GridLimit;
    let grid = |src: &str, max: u128| {
        super::header::grid_within(&parse_headers(src).unwrap(), GridLimit::Invocations(max))
            .map(|g| g.threads())
    };
    let ids = |src: &str| {
        super::header::grid_within(
            &parse_headers(src).unwrap(),
            GridLimit::Ids(super::header::MAX_GENERIC_ID),
        )
    };
    // `@Dims` must match `@Config`'s products; its coordinates go x first.
    let dims = ids;
    let g = dims("; @Config: 4, 1, 6\n; @Dims: 2, 2, 1, 1, 2, 3").unwrap();
    assert_eq!(g.dims, Some(([2, 2, 1], [1, 2, 3])));
    assert_eq!(super::header::coordinates(5, [1, 2, 3]), [0, 1, 2]);
    assert_eq!(super::header::coordinates(3, [2, 2, 1]), [1, 1, 0]);
    let e = dims("; @Config: 4, 1, 6\n; @Dims: 2, 2, 1, 2, 2, 1").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert_eq!(e.pos.map(|p| p.line), Some(2));
    assert!(
        e.message.contains("does not match `@Config`"),
        "{}",
        e.message
    );
    let e = parse_headers("; @Dims: 2, 2, 1, 1, 2").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Syntax);
    let e = grid("; @Config: 64, 64, 64", 1024).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert_eq!(e.pos, Some(Pos { line: 1, col: 3 }));
    assert!(super::generic_may_take(&e), "a refusal about size: {e}");
    assert_eq!(
        grid("; @Config: 64, 64, 64", (1 << 31) - 1).ok(),
        Some(262_144)
    );
    // 2^31 · 2^31 · 4 is 0 in u64: a grid that wrapped under the limit
    // was checked as no invocations at all.
    for wraps in [
        "; @Config: 2147483648, 2147483648, 4",
        "; @Config: 4294967295, 4294967295, 4294967295",
    ] {
        let e = grid(wraps, 1024).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported, "{wraps}");
        assert!(e.message.contains("at most 1024"), "{wraps}: {}", e.message);
        assert!(grid(wraps, (1 << 31) - 1).is_err(), "{wraps}");
        assert!(ids(wraps).is_err(), "{wraps}");
    }
    // The generic translation bounds each id, not the invocations in all:
    // 512 × 512 invocations per workgroup, 256 × 256 workgroups (2^34
    // invocations) has global ids below 2^17 in each dimension.
    let big = "; @Config: 262144, 1, 65536\n; @Dims: 512, 512, 1, 256, 256, 1";
    assert_eq!(ids(big).map(|g| g.threads()).ok(), Some(1 << 34));
    assert!(grid(big, 1024).is_err());
    // One dimension: the global id is the invocation's number.
    let e = ids("; @Config: 262144, 1, 65536").unwrap_err();
    assert!(
        e.message.contains("17179869184 invocations"),
        "{}",
        e.message
    );
    // A dimension whose global ids reach 2^31.
    let e = ids("; @Config: 1024, 1, 2097152\n; @Dims: 1024, 1, 1, 2097152, 1, 1").unwrap_err();
    assert!(e.message.contains("in dimension 0"), "{}", e.message);
    assert!(super::generic_may_take(&e) && e.pos.map(|p| p.line) == Some(2));
    let e = parse_cond("%a == ").unwrap_err();
    assert_eq!(e.pos, Some(Pos { line: 1, col: 7 }));
    let e = parse_cond("%a[-1] == 0").unwrap_err();
    assert_eq!(e.pos, Some(Pos { line: 1, col: 4 }));
}

// ----- program structure -----------------------------------------------

#[test]
fn grid_placement_and_builtins() {
    let src = kernel(
        "; @Config: 2, 2, 2",
        "       %gp = OpAccessChain %p_in %ids %c0
        %g = OpLoad %uint %gp
        %a = OpAccessChain %p_sb %buf %c0 %g
             OpStore %a %g
             OpReturn",
    );
    let p = ok(&src);
    assert_eq!(p.threads.len(), 8);
    let places: Vec<Vec<i64>> = p.threads.iter().map(|t| t.placement.ids.clone()).collect();
    assert_eq!(places[0], vec![0, 0, 0]);
    assert_eq!(places[3], vec![1, 0, 0]);
    assert_eq!(places[5], vec![0, 1, 0]);
    // Thread 5 stores its global id into %buf[0][5].
    let t5 = &p.threads[5].instrs;
    assert_eq!(t5.len(), 1);
    match &t5[0].kind {
        InstrKind::Store { addr, value } => {
            assert_eq!(*addr, Addr::Fixed(p.location_id("%buf[0][5]").unwrap()));
            assert_eq!(*value, Operand::Const(5));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn assertion_constants_take_the_location_width() {
    let src = kernel(
        "; @Input: %x = 4294967295\n; @Output: forall (%x == -1 and %y == 4294967295)",
        "             OpReturn",
    );
    let p = ok(&src);
    let x = p.location_id("%x").unwrap();
    assert_eq!(p.locations[x].init, -1);
    let a = p.assertion.unwrap();
    let Cond::And(l, r) = a.cond else { panic!() };
    assert_eq!(*l, Cond::Cmp(CmpOp::Eq, Term::Loc(x), Term::Const(-1)));
    assert!(matches!(
        *r,
        Cond::Cmp(CmpOp::Eq, Term::Loc(_), Term::Const(-1))
    ));
}

#[test]
fn outputs_combine() {
    let src = kernel(
        "; @Output: not exists (%x == 1)\n; @Output: not exists (%y == 1)",
        "             OpReturn",
    );
    let a = ok(&src).assertion.unwrap();
    assert_eq!(a.quantifier, Quantifier::NotExists);
    assert!(matches!(a.cond, Cond::Or(..)));
    let src = kernel(
        "; @Output: forall (%x == 1)\n; @Output: exists (%y == 1)",
        "             OpReturn",
    );
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert_eq!(e.pos.unwrap().line, 2);
}

// ----- tags ------------------------------------------------------------

#[test]
fn atomic_and_barrier_tags() {
    let src = kernel(
        "; @Config: 2, 1, 1",
        "        %a = OpAtomicLoad %uint %x %c1 %c66
             OpAtomicStore %y %c1 %c68 %a
        %w = OpAtomicLoad %uint %wgv %c2 %c258
        %r = OpAtomicIAdd %uint %x %c5 %c72 %c1
             OpControlBarrier %c2 %c2 %c264
             OpMemoryBarrier %c1 %c72
        %l = OpLoad %uint %y MakePointerVisible|NonPrivatePointer %c1
             OpStore %x %l Aligned|MakePointerAvailable|NonPrivatePointer 4 %c2
             OpStore %y %w NonPrivatePointer
             OpReturn",
    );
    let p = ok(&src);
    let t = |s: &str| tags_of(&p, 0, s).join(" ");
    // Atomics are implicitly visible / available; an RMW's order and
    // semantics are split over its read and write (frontend::tagging).
    assert_eq!(
        t("OpAtomicLoad %uint %x"),
        "ATOM A NONPRIV ACQ DV SC0 SEMSC0 VIS"
    );
    assert_eq!(t("OpAtomicStore"), "ATOM A NONPRIV REL DV SC0 SEMSC0 AV");
    assert_eq!(t("%wgv"), "ATOM A NONPRIV ACQ WG SC1 SEMSC1 VIS");
    assert_eq!(t("OpAtomicIAdd"), "ATOM A NONPRIV QF SC0");
    let add = p.threads[0]
        .instrs
        .iter()
        .find(|i| i.text.contains("OpAtomicIAdd"))
        .unwrap();
    assert_eq!(add.halves.read, ["ACQ", "SEMSC0", "VIS"]);
    assert_eq!(add.halves.write, ["REL", "SEMSC0", "AV"]);
    assert_eq!(t("OpControlBarrier"), "B CBAR F ACQ REL ACQ_REL WG SEMSC1");
    assert_eq!(t("OpMemoryBarrier"), "F ACQ REL ACQ_REL DV SEMSC0");
    assert_eq!(t("OpLoad"), "DV SC0 VIS NONPRIV");
    assert_eq!(t("OpStore %x"), "WG SC0 AV NONPRIV");
    assert_eq!(t("OpStore %y %w"), "SC0 NONPRIV");
    let bar = p.threads[1]
        .instrs
        .iter()
        .find(|i| matches!(i.kind, InstrKind::Barrier { .. }))
        .unwrap();
    assert_eq!(
        bar.kind,
        InstrKind::Barrier {
            id: Operand::Const(0),
            count: Some(Operand::Const(2)),
            arrive: false
        }
    );
}

#[test]
fn compare_exchange_failure_semantics_tag_the_failed_read() {
    // Equal = AcquireRelease, Unequal = relaxed: a failed exchange is a
    // relaxed read (no ACQ, no VIS semantics of its own).
    let src = kernel(
        "; @Config: 1, 1, 1",
        "        %r = OpAtomicCompareExchange %uint %x %c1 %c72 %c0 %c1 %c0
        %s = OpAtomicCompareExchange %uint %y %c1 %c72 %c66 %c1 %c0
             OpReturn",
    );
    let p = ok(&src);
    let cas = |text: &str| {
        p.threads[0]
            .instrs
            .iter()
            .find(|i| i.text.contains(text))
            .unwrap()
            .clone()
    };
    let relaxed = cas("%x %c1 %c72 %c0");
    assert_eq!(relaxed.halves.read, ["ACQ", "SEMSC0", "VIS"]);
    let mut failed = relaxed.failed.expect("failure tags of its own");
    failed.sort();
    assert_eq!(failed, ["A", "ATOM", "DV", "NONPRIV", "SC0", "VIS"]);
    // Unequal = Acquire | UniformMemory: the read part of the success.
    assert_eq!(cas("%y %c1 %c72 %c66").failed, None);
    // Unequal semantics cannot release.
    let src = kernel(
        "",
        "        %r = OpAtomicCompareExchange %uint %x %c1 %c72 %c68 %c1 %c0\n             OpReturn",
    );
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert!(e.message.contains("Unequal"), "{e}");
}

#[test]
fn bad_semantics_are_reported() {
    let src = kernel(
        "",
        "        %a = OpAtomicLoad %uint %x %c1 %c68\n             OpReturn",
    );
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert_eq!(e.pos, Some(at(&src, "%c68")));
    let src = kernel(
        "",
        "       %c6 = OpConstant %uint 6\n        %a = OpAtomicLoad %uint %x %c1 %c6\n             OpReturn",
    );
    let e = err(&src);
    assert!(e.message.contains("more than one memory order"), "{e}");
    let src = kernel(
        "",
        "        %a = OpAtomicLoad %uint %x %c5 %c3\n             OpReturn",
    );
    // 3 = Acquire | bit 0x1 (not a semantics bit).
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported);
}

// ----- control flow -----------------------------------------------------

#[test]
fn known_loops_are_unrolled() {
    // for (i = 0; i < 3; i++) buf[i] = i;
    let src = kernel(
        "",
        "             OpBranch %head
     %head = OpLabel
        %i = OpPhi %uint %c0 %entry %n %body
       %lt = OpULessThan %bool %i %c3
             OpLoopMerge %exit %body None
             OpBranchConditional %lt %body %exit
     %body = OpLabel
        %a = OpAccessChain %p_sb %buf %c0 %i
             OpStore %a %i
        %n = OpIAdd %uint %i %c1
             OpBranch %head
     %exit = OpLabel
             OpReturn",
    );
    let p = ok(&src);
    let stores: Vec<(String, Operand)> = p.threads[0]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Store { addr, value } => {
                Some((p.locations[addr.cells()[0]].name.clone(), value.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        stores,
        vec![
            ("%buf[0][0]".to_string(), Operand::Const(0)),
            ("%buf[0][1]".to_string(), Operand::Const(1)),
            ("%buf[0][2]".to_string(), Operand::Const(2)),
        ]
    );
    assert!(!p.threads[0]
        .instrs
        .iter()
        .any(|i| matches!(i.kind, InstrKind::Goto(_) | InstrKind::Branch { .. })));
}

/// A spin loop with a counter phi and two swapping phis: the phis are
/// generalised into registers, assigned on the entry edge and (through
/// temporaries, as a parallel copy) on the back edge.
#[test]
fn phis_become_moves_on_edges() {
    let src = kernel(
        "",
        "             OpBranch %head
     %head = OpLabel
        %i = OpPhi %uint %c0 %entry %next %head
        %a = OpPhi %uint %c0 %entry %b %head
        %b = OpPhi %uint %c1 %entry %a %head
        %v = OpLoad %uint %x
     %next = OpIAdd %uint %i %c1
     %done = OpINotEqual %bool %v %c0
             OpLoopMerge %exit %head None
             OpBranchConditional %done %exit %head
     %exit = OpLabel
      %sum = OpIAdd %uint %next %a
             OpStore %y %sum
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    let body: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("    ") || l.starts_with("  L"))
        .map(|l| l.split("  ;").next().unwrap().trim())
        .collect();
    assert_eq!(
        body,
        vec![
            "%i := 0",
            "%a := 0",
            "%b := 1",
            "L1:",
            "load %v = %x  {SC0}",
            "%next := Add %i 1",
            "%next := Shl %next 32",
            "%next := Shr %next 32",
            "if %v != 0 goto L2",
            "tmp#1 := %next",
            "tmp#2 := %b",
            "tmp#3 := %a",
            "%i := tmp#1",
            "%a := tmp#2",
            "%b := tmp#3",
            "goto L1",
            "L2:",
            "%sum := Add %next %a",
            "%sum := Shl %sum 32",
            "%sum := Shr %sum 32",
            "store %y = %sum  {SC0}",
        ],
        "{text}"
    );
}

/// A barrier inside a loop whose exit depends on a load: the barrier
/// counter becomes a register incremented per barrier.
#[test]
fn barrier_in_a_spin_loop_counts_dynamic_instances() {
    let src = kernel(
        "; @Config: 2, 1, 1",
        "             OpBranch %head
     %head = OpLabel
             OpControlBarrier %c2 %c2 %c264
        %v = OpLoad %uint %x
     %done = OpINotEqual %bool %v %c0
             OpLoopMerge %exit %head None
             OpBranchConditional %done %exit %head
     %exit = OpLabel
             OpControlBarrier %c2 %c2 %c264
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    assert!(text.contains("bar.wg := 0"), "{text}");
    assert!(text.contains("barrier id bar.wg count 2"), "{text}");
    assert!(text.contains("bar.wg := Add bar.wg 1"), "{text}");
}

#[test]
fn non_uniform_branches_become_ir_branches() {
    // if (x != 0) y = 1; else y = 2; (phi at the merge)
    let src = kernel(
        "",
        "        %v = OpLoad %uint %x
        %c = OpINotEqual %bool %v %c0
             OpSelectionMerge %m None
             OpBranchConditional %c %t %f
        %t = OpLabel
             OpBranch %m
        %f = OpLabel
             OpBranch %m
        %m = OpLabel
        %r = OpPhi %uint %c1 %t %c2 %f
             OpStore %y %r
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    assert!(text.contains("if %v != 0 goto"), "{text}");
    let stores = text.matches("store %y = ").count();
    assert_eq!(stores, 2, "{text}");
}

#[test]
fn function_calls_are_inlined() {
    let src = "
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
         %fn = OpTypeFunction %void
        %fn2 = OpTypeFunction %uint %uint
       %p_sb = OpTypePointer StorageBuffer %uint
         %c1 = OpConstant %uint 1
         %c4 = OpConstant %uint 4
          %x = OpVariable %p_sb StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
          %r = OpFunctionCall %uint %inc %c4
               OpStore %x %r
               OpReturn
               OpFunctionEnd
        %inc = OpFunction %uint None %fn2
          %a = OpFunctionParameter %uint
         %l2 = OpLabel
          %s = OpIAdd %uint %a %c1
               OpReturnValue %s
               OpFunctionEnd
";
    let p = ok(src);
    assert_eq!(p.threads[0].instrs.len(), 1);
    assert_eq!(
        p.threads[0].instrs[0].kind,
        InstrKind::Store {
            addr: Addr::Fixed(0),
            value: Operand::Const(5)
        }
    );
}

#[test]
fn integer_arithmetic_wraps_at_the_type_width() {
    let src = kernel(
        "; @Output: forall (%y == 1)",
        "     %m1 = OpConstant %uint 4294967295
        %s = OpIAdd %uint %m1 %c2
        %d = OpUDiv %uint %m1 %c2
        %h = OpShiftRightLogical %uint %m1 %c1
        %k = OpShiftRightArithmetic %uint %m1 %c1
       %lt = OpSLessThan %bool %m1 %c0
       %ul = OpULessThan %bool %m1 %c0
       %a0 = OpAccessChain %p_sb %buf %c0 %c0
             OpStore %a0 %s
       %a1 = OpAccessChain %p_sb %buf %c0 %c1
             OpStore %a1 %d
       %a2 = OpAccessChain %p_sb %buf %c0 %c2
             OpStore %a2 %h
       %a3 = OpAccessChain %p_sb %buf %c0 %c3
             OpStore %a3 %k
       %sl = OpSelect %uint %lt %c1 %c0
       %su = OpSelect %uint %ul %c1 %c0
       %a5 = OpAccessChain %p_sb %buf %c0 %c5
             OpStore %a5 %sl
             OpStore %y %su
             OpReturn",
    );
    let p = ok(&src);
    let vals: Vec<Operand> = p.threads[0]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Store { value, .. } => Some(value.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        vals,
        vec![
            Operand::Const(1),
            Operand::Const(2147483647),
            Operand::Const(2147483647),
            Operand::Const(-1),
            Operand::Const(1),
            Operand::Const(0),
        ]
    );
}

#[test]
fn private_variables_are_registers() {
    let src = kernel(
        "",
        "        %v = OpLoad %uint %x
             OpStore %priv %v
        %w = OpLoad %uint %priv
        %o = OpAtomicIIncrement %uint %priv %c3 %c72
        %z = OpLoad %uint %priv
             OpStore %y %z
             OpReturn",
    );
    let p = ok(&src);
    let loads = p.threads[0]
        .instrs
        .iter()
        .filter(|i| matches!(i.kind, InstrKind::Load { .. }))
        .count();
    assert_eq!(loads, 1);
    assert!(!p.locations.iter().any(|l| l.name.contains("priv")));
    assert!(render(&p).contains(":= Add %v 1"));
}

// ----- errors ------------------------------------------------------------

#[test]
fn malformed_input_positions() {
    let cases: &[(&str, &str, ErrorKind, &str)] = &[
        (
            "        %q = OpPtrDiff %uint %x %x",
            "OpPtrDiff",
            ErrorKind::Unsupported,
            "opcode `OpPtrDiff`",
        ),
        (
            "        %q = OpIAdd %uint %c1 12abc",
            "12abc",
            ErrorKind::Syntax,
            "malformed number",
        ),
        (
            "        %q = OpIAdd %uint %c1 %nope",
            "%nope",
            ErrorKind::Semantic,
            "`%nope` is not defined",
        ),
        (
            "             OpStore %x \"str",
            "\"str",
            ErrorKind::Syntax,
            "unterminated string",
        ),
        (
            "        %q OpIAdd %uint %c1 %c1",
            "OpIAdd",
            ErrorKind::Syntax,
            "expected `=`",
        ),
        (
            "        %q = %uint",
            "%uint",
            ErrorKind::Syntax,
            "expected an opcode",
        ),
        (
            "             OpStore %x # 1",
            "#",
            ErrorKind::Syntax,
            "unexpected character",
        ),
        (
            "             OpKill",
            "OpKill",
            ErrorKind::Unsupported,
            "opcode `OpKill`",
        ),
        (
            "        %entry = OpLabel",
            "%entry",
            ErrorKind::Semantic,
            "already defined",
        ),
    ];
    for (line, needle, kind, msg) in cases {
        let src = kernel("", &format!("{line}\n             OpReturn"));
        let e = err(&src);
        assert_eq!(e.kind, *kind, "{line}: {e}");
        assert!(e.message.contains(msg), "{line}: {e}");
        assert_eq!(e.pos, Some(at(&src, needle)), "{line}: {e}");
        assert_eq!(e.file.as_deref(), Some(Path::new("t.spvasm")));
    }
}

/// An opcode gpumc does not model is refused where the checked entry
/// point reaches it, not in a function it never calls (one kernel of an
/// OpenCL module using `work_group_reduce_add` leaves the others
/// checkable).
#[test]
fn unmodelled_opcodes_are_refused_only_where_reached() {
    let other = "             OpReturn
             OpFunctionEnd
     %other = OpFunction %void None %fn
        %e2 = OpLabel
         %q = OpGroupFrobINTEL %uint %c2 %c1
             OpReturn";
    let p = ok(&kernel("", other));
    assert_eq!(p.threads.len(), 1);
    let reached = kernel(
        "",
        "         %q = OpGroupFrobINTEL %uint %c2 %c1\n             OpReturn",
    );
    let e = err(&reached);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("opcode `OpGroupFrobINTEL`"), "{e}");
    assert_eq!(e.pos, Some(at(&reached, "OpGroupFrobINTEL")));
    // Not spelt like an opcode: refused where it stands, reached or not.
    let bad = kernel("", &other.replace("OpGroupFrobINTEL", "Opfrob"));
    assert_eq!(err(&bad).kind, ErrorKind::Unsupported);
}

// ----- addresses computed at run time --------------------------------------

fn indexed(p: &Program, t: usize, line: u32) -> crate::ir::Indexed {
    let i = p.threads[t]
        .instrs
        .iter()
        .find(|i| i.pos.line == line && i.kind.addr().is_some())
        .unwrap_or_else(|| panic!("no access at line {line}:\n{}", render(p)));
    match i.kind.addr() {
        Some(Addr::Indexed(x)) => (**x).clone(),
        other => panic!("not indexed: {other:?}"),
    }
}

fn names(p: &Program, cells: &[usize]) -> Vec<String> {
    cells.iter().map(|&c| p.locations[c].name.clone()).collect()
}

/// `buf[x]`: an access over the cells of `buf`'s runtime array, as many
/// as `@Input` gives, chosen by the loaded register.
#[test]
fn loaded_index_is_a_run_time_address() {
    let body = "        %v = OpLoad %uint %x
        %a = OpAccessChain %p_sb %buf %c0 %v
             OpStore %a %c1
             OpReturn";
    let src = kernel("; @Input: %buf = {{0, 0, 0}}", body);
    let p = ok(&src);
    let x = indexed(&p, 0, at(&src, "OpStore %a").line);
    assert_eq!(x.index, reg("%v"));
    assert_eq!(x.array, "%buf");
    assert_eq!(
        names(&p, &x.cells),
        ["%buf[0][0]", "%buf[0][1]", "%buf[0][2]"]
    );
    assert!(render(&p).contains("store %buf[%v: %buf[0][0] %buf[0][1] %buf[0][2]] = 1"));
    // Without `@Input` the runtime array has no known length.
    let src = kernel("", body);
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message
            .contains("`%buf` is indexed at run time but its length is unknown"),
        "{e}"
    );
    assert!(super::generic_may_take(&e), "a refusal about size: {e}");
    assert_eq!(
        e.pos.map(|p| p.line),
        Some(at(&src, "OpAccessChain %p_sb %buf").line)
    );
}

/// An `OpUndef` index is an arbitrary one (a `Havoc`): the engines report
/// the out-of-bounds values.
#[test]
fn undefined_index_is_an_arbitrary_run_time_index() {
    let src = kernel(
        "; @Input: %buf = {{0, 0}}",
        "        %u = OpUndef %uint
        %a = OpAccessChain %p_sb %buf %c0 %u
             OpStore %a %c1
             OpReturn",
    );
    let p = ok(&src);
    assert_eq!(kinds(&p, 0)[0], havoc("%u"));
    let x = indexed(&p, 0, at(&src, "OpStore %a").line);
    assert_eq!(x.index, reg("%u"));
    assert_eq!(x.cells.len(), 2);
}

/// What stays unsupported says exactly what.
#[test]
fn run_time_addresses_that_stay_unsupported() {
    let two_d = "         %a2 = OpTypeArray %uint %c2
        %a22 = OpTypeArray %a2 %c2
      %p_wg22 = OpTypePointer Workgroup %a22
         %w2 = OpVariable %p_wg22 Workgroup
      %p_fnu = OpTypePointer Function %a2
       %p_fu = OpTypePointer Function %uint";
    let cases: &[(&str, &str)] = &[
        (
            "        %v = OpLoad %uint %x
        %a = OpAccessChain %p_wg %w2 %v %v
             OpStore %a %c1",
            "a second index computed at run time in one address",
        ),
        (
            "        %f = OpVariable %p_fnu Function
        %v = OpLoad %uint %x
        %a = OpAccessChain %p_fu %f %v
             OpStore %a %c1",
            "(Function storage) indexed by a value computed at run time",
        ),
        (
            "        %v = OpLoad %uint %x
        %c = OpIEqual %bool %v %c0
        %a = OpAccessChain %p_sb %buf %c0 %v
        %p = OpSelect %p_sb %c %a %y
             OpStore %p %c1",
            "pointer selected at run time between pointers that are not both known",
        ),
        (
            "        %v = OpLoad %uint %x
        %c = OpIEqual %bool %v %c0
        %p = OpSelect %p_sb %c %x %wgv
             OpStore %p %c1",
            "between different storage classes",
        ),
    ];
    for (body, msg) in cases {
        let src = kernel_with(
            "; @Input: %buf = {{0, 0}}",
            two_d,
            &format!("{body}\n             OpReturn"),
        );
        let e = err(&src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{body}: {e}");
        assert!(e.message.contains(msg), "{body}: {e}");
        assert!(e.pos.is_some(), "{e}");
    }
}

/// `OpSelect` of two pointers on a register: target 1 when the condition
/// holds.
#[test]
fn selected_pointer_is_a_run_time_address() {
    let src = kernel(
        "",
        "        %v = OpLoad %uint %x
        %c = OpIEqual %bool %v %c0
        %p = OpSelect %p_sb %c %x %y
             OpStore %p %c1
             OpReturn",
    );
    let p = ok(&src);
    let x = indexed(&p, 0, at(&src, "OpStore %p").line);
    assert_eq!(names(&p, &x.cells), ["%y", "%x"]);
    assert_eq!(x.array, "%y or %x");
}

#[test]
fn structural_errors() {
    let src = kernel("", "        %v = OpLoad %uint %x");
    let e = err(&src);
    assert!(e.message.contains("terminator"), "{e}");
    let src = "OpCapability Shader\n";
    let e = err(src);
    assert!(e.message.contains("OpEntryPoint"), "{e}");
    let src = kernel("; @Input: %nope = 1", "             OpReturn");
    let e = err(&src);
    assert_eq!(e.pos, Some(Pos { line: 1, col: 11 }));
    let src = kernel("; @Input: %buf = {1}", "             OpReturn");
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Semantic);
    let src = kernel("; @Output: forall (%priv == 0)", "             OpReturn");
    let e = err(&src);
    assert!(e.message.contains("Private"), "{e}");
    let src = kernel("; @Output: forall (%buf == 0)", "             OpReturn");
    let e = err(&src);
    assert!(e.message.contains("not a scalar"), "{e}");
}

#[test]
fn mixed_size_writes_are_unsupported() {
    let src = "; @Input: %v = {0, {0, 0, 0, 0}}
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\"
               OpMemberDecorate %s 0 Offset 0
               OpMemberDecorate %s 1 Offset 4
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %uchar = OpTypeInt 8 0
         %c0 = OpConstant %uint 0
         %c1 = OpConstant %uint 1
         %c4 = OpConstant %uint 4
         %a4 = OpTypeArray %uchar %c4
          %s = OpTypeStruct %uint %a4
         %fn = OpTypeFunction %void
       %p_sb = OpTypePointer StorageBuffer %uint
       %p_s = OpTypePointer StorageBuffer %s
          %v = OpVariable %p_s StorageBuffer
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %p_sb %v %c0
         %p1 = OpPtrAccessChain %p_sb %p0 %c1
          %r = OpLoad %uint %p1
               OpStore %p0 %r
               OpStore %p1 %c1
               OpReturn
               OpFunctionEnd
";
    let e = err(src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("mixed-size access"), "{e}");
    assert_eq!(
        e.pos,
        Some(at(src, "OpStore %p1")).map(|p| Pos {
            line: p.line,
            col: p.col
        })
    );
    // Reading the uchar bytes as one uint is fine while nobody writes them.
    let ro = src.replace("               OpStore %p1 %c1\n", "");
    let p = ok(&ro);
    assert!(
        p.locations.iter().any(|l| l.name == "%v+4"),
        "{}",
        render(&p)
    );
}

#[test]
fn pointer_casts_keep_the_pointer_and_integer_casts_are_unsupported() {
    // OpenCL's `(uchar *)p`: the same bytes through another type.
    let src = kernel(
        "",
        "        %p = OpBitcast %p_wg %x\n             OpStore %p %c1\n             OpReturn",
    );
    let p = parse(&src, Path::new("t.spvasm")).unwrap();
    assert!(
        kinds(&p, 0).contains(&store_to(&p, "%x", Operand::Const(1))),
        "{}",
        render(&p)
    );
    let src = kernel("", "        %p = OpBitcast %uint %x\n             OpReturn");
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert_eq!(e.pos, Some(at(&src, "OpBitcast")));
}

// ----- undefined values and unreachable code -----------------------------

/// The instruction kinds of thread `t`, labels left out.
fn kinds(p: &Program, t: usize) -> Vec<InstrKind> {
    p.threads[t]
        .instrs
        .iter()
        .filter(|i| !matches!(i.kind, InstrKind::Label(_)))
        .map(|i| i.kind.clone())
        .collect()
}

/// A `Havoc` of a 32-bit integer (every undefined value below is a `uint`).
fn havoc(r: &str) -> InstrKind {
    InstrKind::Havoc {
        dst: r.to_string(),
        ty: crate::ir::ValueType::Int(32),
    }
}

fn store_to(p: &Program, loc: &str, value: Operand) -> InstrKind {
    InstrKind::Store {
        addr: Addr::Fixed(p.location_id(loc).unwrap_or_else(|| panic!("no `{loc}`"))),
        value,
    }
}

fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

/// Each `OpUndef` scalar a thread reads is one register assigned by a
/// `Havoc` at the start of the invocation (in every invocation); an undef
/// composite has one register per component; `OpConstantNull` stays 0.
#[test]
fn undef_values_are_havocked_per_invocation() {
    let src = kernel_with(
        "; @Config: 2, 1, 1",
        "         %ug = OpUndef %uint
         %uv = OpUndef %v3uint
         %cc = OpConstantComposite %v3uint %c1 %ug %c2
       %null = OpConstantNull %uint",
        "        %u = OpUndef %uint
             OpStore %x %u
        %s = OpIAdd %uint %u %c1
       %a0 = OpAccessChain %p_sb %buf %c0 %c0
             OpStore %a0 %s
        %e = OpCompositeExtract %uint %uv 1
       %a1 = OpAccessChain %p_sb %buf %c0 %c1
             OpStore %a1 %e
        %f = OpCompositeExtract %uint %cc 1
       %a2 = OpAccessChain %p_sb %buf %c0 %c2
             OpStore %a2 %f
        %g = OpCompositeExtract %uint %cc 0
       %a3 = OpAccessChain %p_sb %buf %c0 %c3
             OpStore %a3 %g
             OpStore %y %null
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    for t in 0..2 {
        let k = kinds(&p, t);
        // Havocs first, ordered by the line of their `OpUndef`.
        assert_eq!(
            k[..3],
            [havoc("%ug"), havoc("%uv[1]"), havoc("%u")],
            "{text}"
        );
        assert_eq!(
            k.iter()
                .filter(|i| matches!(i, InstrKind::Havoc { .. }))
                .count(),
            3,
            "{text}"
        );
        assert!(k.contains(&store_to(&p, "%x", reg("%u"))), "{text}");
        assert!(
            k.contains(&store_to(&p, "%buf[0][1]", reg("%uv[1]"))),
            "{text}"
        );
        assert!(
            k.contains(&store_to(&p, "%buf[0][2]", reg("%ug"))),
            "{text}"
        );
        assert!(
            k.contains(&store_to(&p, "%buf[0][3]", Operand::Const(1))),
            "{text}"
        );
        assert!(k.contains(&store_to(&p, "%y", Operand::Const(0))), "{text}");
    }
    assert!(text.contains("%u := undef"), "{text}");
}

/// A load of a Private or Function cell never written in this invocation
/// (no initialiser, no store yet) is a `Havoc` of its result; the cell
/// keeps that value, and a store replaces it.
#[test]
fn uninitialised_local_reads_are_havocked() {
    let src = kernel(
        "",
        "     %p_fn = OpTypePointer Function %uint
       %fv = OpVariable %p_fn Function
        %w = OpLoad %uint %priv
             OpStore %x %w
       %w2 = OpLoad %uint %priv
             OpStore %y %w2
       %f1 = OpLoad %uint %fv
       %a0 = OpAccessChain %p_sb %buf %c0 %c0
             OpStore %a0 %f1
             OpStore %fv %c5
       %f2 = OpLoad %uint %fv
       %a1 = OpAccessChain %p_sb %buf %c0 %c1
             OpStore %a1 %f2
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    assert_eq!(
        kinds(&p, 0),
        vec![
            havoc("%w"),
            store_to(&p, "%x", reg("%w")),
            store_to(&p, "%y", reg("%w")),
            havoc("%f1"),
            store_to(&p, "%buf[0][0]", reg("%f1")),
            store_to(&p, "%buf[0][1]", Operand::Const(5)),
        ],
        "{text}"
    );
}

/// Initialised Private variables (also when the initialiser is `OpUndef`)
/// and cells stored before they are read are not havocked at the read.
#[test]
fn initialised_private_reads_stay_known() {
    let src = kernel_with(
        "",
        "         %ug = OpUndef %uint
      %privi = OpVariable %p_pr Private %c5
      %privu = OpVariable %p_pr Private %ug",
        "        %a = OpLoad %uint %privi
             OpStore %x %a
             OpStore %priv %c3
        %b = OpLoad %uint %priv
             OpStore %y %b
        %c = OpLoad %uint %privu
       %a0 = OpAccessChain %p_sb %buf %c0 %c0
             OpStore %a0 %c
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    assert_eq!(
        kinds(&p, 0),
        vec![
            havoc("%ug"),
            store_to(&p, "%x", Operand::Const(5)),
            store_to(&p, "%y", Operand::Const(3)),
            store_to(&p, "%buf[0][0]", reg("%ug")),
        ],
        "{text}"
    );
}

/// A never-written Private cell carried around a loop that a loaded value
/// may leave: its loop register starts arbitrary (not 0).
#[test]
fn uninitialised_cell_in_a_loop_starts_arbitrary() {
    let src = kernel(
        "",
        "             OpBranch %head
     %head = OpLabel
        %p = OpLoad %uint %priv
        %n = OpIAdd %uint %p %c1
             OpStore %priv %n
        %v = OpLoad %uint %x
     %done = OpINotEqual %bool %v %c0
             OpLoopMerge %exit %head None
             OpBranchConditional %done %exit %head
     %exit = OpLabel
        %q = OpLoad %uint %priv
             OpStore %y %q
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    let k = kinds(&p, 0);
    assert!(!text.contains("%priv+0 := 0"), "{text}");
    assert_eq!(
        k.iter()
            .filter(|i| matches!(i, InstrKind::Havoc { .. }))
            .count(),
        1,
        "{text}"
    );
    assert!(text.contains("%priv+0 := %n"), "{text}");
    assert_eq!(k[0], havoc("%priv+0"), "{text}");
    assert_eq!(
        p.threads[0].instrs[0].pos.line,
        at(&src, "%priv = OpVariable").line
    );
}

/// `OpVectorShuffle` component 0xFFFFFFFF is undefined: a `Havoc`.
#[test]
fn undefined_shuffle_component_is_havocked() {
    let src = kernel(
        "",
        "      %idv = OpLoad %v3uint %ids
        %s = OpVectorShuffle %v3uint %idv %idv 0 4294967295 5
        %e = OpCompositeExtract %uint %s 1
             OpStore %x %e
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    assert_eq!(
        kinds(&p, 0),
        vec![havoc("%s.1"), store_to(&p, "%x", reg("%s.1"))],
        "{text}"
    );
}

/// `OpUnreachable` is the `Unreachable` terminator: nothing follows it in
/// its block, and the invocation does not jump to its end.
#[test]
fn op_unreachable_is_lowered_to_unreachable() {
    let src = kernel(
        "",
        "        %v = OpLoad %uint %x
        %c = OpINotEqual %bool %v %c0
             OpSelectionMerge %m None
             OpBranchConditional %c %t %m
        %t = OpLabel
             OpStore %y %c1
             OpUnreachable
        %m = OpLabel
             OpStore %y %c2
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    let instrs = &p.threads[0].instrs;
    let k = instrs
        .iter()
        .position(|i| i.kind == InstrKind::Unreachable { cause: None })
        .unwrap_or_else(|| panic!("no unreachable:\n{text}"));
    assert_eq!(instrs[k].pos, at(&src, "OpUnreachable"));
    assert_eq!(
        instrs[k - 1].kind,
        store_to(&p, "%y", Operand::Const(1)),
        "{text}"
    );
    assert!(
        matches!(
            instrs.get(k + 1).map(|i| &i.kind),
            None | Some(InstrKind::Label(_))
        ),
        "{text}"
    );
    assert!(
        instrs
            .iter()
            .all(|i| !matches!(&i.kind, InstrKind::Goto(l) if l == "END")),
        "{text}"
    );
    assert!(text.contains("    unreachable  ; line"), "{text}");
    // Reached on a known path: the whole invocation is store; unreachable.
    let src = kernel(
        "",
        "             OpStore %y %c1
             OpUnreachable",
    );
    let p = ok(&src);
    assert_eq!(
        kinds(&p, 0),
        vec![
            store_to(&p, "%y", Operand::Const(1)),
            InstrKind::Unreachable { cause: None }
        ]
    );
}

/// What cannot be lowered stays a clear error: a scope from an undefined
/// value, an undefined pointer, an undefined initial value of read-only
/// memory.
#[test]
fn undefined_values_where_known_values_are_needed_are_unsupported() {
    let src = kernel(
        "",
        "        %u = OpUndef %uint
             OpMemoryBarrier %u %c72
             OpReturn",
    );
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("undefined value"), "{e}");
    // (A store through an undefined pointer is undefined behaviour:
    // `undefined_pointers_have_arbitrary_addresses`.)
    let src = kernel_with(
        "",
        "         %ug = OpUndef %uint
      %inpu = OpVariable %p_in Input %ug",
        "             OpReturn",
    );
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(e.message.contains("undefined"), "{e}");
}

/// Renderings of the corpus files on undefined values and unreachable
/// code (skipped without `../shared/corpus`).
#[test]
fn corpus_undef_and_unreachable_renderings() {
    let root = gpumc_testutil::shared_corpus().join("dat3m/spirv/vulkan/basic");
    if !root.is_dir() {
        return;
    }
    let body = |name: &str| -> String {
        let f = root.join(name);
        let text = std::fs::read_to_string(&f).expect("readable corpus file");
        let p = parse(&text, &f).unwrap_or_else(|e| panic!("{e}"));
        render(&p)
            .lines()
            .filter(|l| l.starts_with("thread") || l.starts_with("    "))
            .map(|l| l.split("  ;").next().unwrap_or(l).trim())
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (f, reg) in [
        ("undef-exists.spvasm", "%undef"),
        ("undef-forall.spvasm", "%undef"),
        ("uninitialized-private-exists.spvasm", "%value"),
        ("uninitialized-private-forall.spvasm", "%value"),
    ] {
        assert_eq!(
            body(f),
            format!(
                "thread P0 @ [0, 0, 0]\n{reg} := undef int32  {{undefined-value}}\n\
                 store %out[0] = {reg}  {{SC0}}\n\
                 thread P1 @ [0, 0, 0]\n{reg} := undef int32  {{undefined-value}}\n\
                 store %out[1] = {reg}  {{SC0}}"
            ),
            "{f}"
        );
    }
    assert_eq!(
        body("unreachable-2.1.1.spvasm"),
        "thread P0 @ [0, 0, 0]\nthread P1 @ [0, 0, 0]"
    );
    assert_eq!(
        body("unreachable-3.1.1.spvasm"),
        "thread P0 @ [0, 0, 0]\nthread P1 @ [0, 0, 0]\nthread P2 @ [0, 0, 0]\n\
         store %out[0][2] = 1  {SC0}\nunreachable"
    );
    // A buffer without `@Input` starts arbitrary, a `uint` per cell.
    let f = root.join("uninitialized-forall.spvasm");
    let p = parse(&std::fs::read_to_string(&f).expect("corpus file"), &f).unwrap();
    assert!(p
        .locations
        .iter()
        .all(|l| l.init_arbitrary == Some(crate::ir::ValueType::Int(32))));
}

/// An `OpUndef` entering a loop phi and deciding a branch: the loop still
/// closes, and the undefined value is havocked once, before the loop.
#[test]
fn undef_in_a_loop_phi_and_a_branch() {
    let src = kernel(
        "",
        "        %u = OpUndef %uint
       %ub = OpUndef %bool
             OpBranch %head
     %head = OpLabel
        %i = OpPhi %uint %u %entry %n %head
        %n = OpIAdd %uint %i %c1
        %v = OpLoad %uint %x
     %done = OpINotEqual %bool %v %c0
             OpLoopMerge %exit %head None
             OpBranchConditional %done %exit %head
     %exit = OpLabel
             OpSelectionMerge %m None
             OpBranchConditional %ub %t %m
        %t = OpLabel
             OpStore %y %n
             OpBranch %m
        %m = OpLabel
             OpReturn",
    );
    let p = ok(&src);
    let text = render(&p);
    let k = kinds(&p, 0);
    let ub = InstrKind::Havoc {
        dst: "%ub".into(),
        ty: crate::ir::ValueType::Bool,
    };
    assert_eq!(k[..2], [havoc("%u"), ub], "{text}");
    assert_eq!(
        k.iter()
            .filter(|i| matches!(i, InstrKind::Havoc { .. }))
            .count(),
        2,
        "{text}"
    );
    assert!(text.contains("%i := %u"), "{text}");
    assert!(text.contains("if %ub != 0 goto"), "{text}");
}

// ----- OpenCL kernels ----------------------------------------------------

/// An OpenCL kernel as llvm-spirv writes one: its entry point takes a
/// global pointer and a scalar.
const OPENCL_KERNEL: &str = "; @Config: 2, 1, 1
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpName %p \"p\"
               OpName %n \"n\"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
    %ulong_1 = OpConstant %ulong 1
        %ptr = OpTypePointer CrossWorkgroup %uint
         %fn = OpTypeFunction %void %ptr %uint
          %k = OpFunction %void None %fn
          %p = OpFunctionParameter %ptr
          %n = OpFunctionParameter %uint
          %e = OpLabel
          %q = OpInBoundsPtrAccessChain %ptr %p %ulong_1
               OpStore %q %n
               OpReturn
               OpFunctionEnd
";

#[test]
fn opencl_kernel_arguments_become_a_buffer_and_a_free_input() {
    let p = parse(OPENCL_KERNEL, Path::new("k.spvasm")).unwrap();
    assert_eq!(p.default_model.as_deref(), Some("opencl"));
    assert_eq!(p.threads.len(), 2);
    let names: Vec<&str> = p.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["%n"], "{}", render(&p));
    assert!(p.location_id("%p[1]").is_some(), "{}", render(&p));
    // Each invocation stores the argument's value into p[1].
    assert!(
        kinds(&p, 1).iter().any(|k| matches!(
            k,
            InstrKind::Store {
                value: Operand::Reg(_),
                ..
            }
        )),
        "{}",
        render(&p)
    );
    // `@Kernel` names an entry point that does not exist.
    let e = err(&format!("; @Kernel: nope\n{OPENCL_KERNEL}"));
    assert!(e.message.contains("no kernel `nope`"), "{e}");
}

#[test]
fn opencl_kernels_cut_or_shuffled_are_errors_not_panics() {
    let lines: Vec<&str> = OPENCL_KERNEL.lines().collect();
    for i in 0..lines.len() {
        let mut v = lines.clone();
        v.remove(i);
        let _ = parse(&v.join("\n"), Path::new("k.spvasm"));
        let mut v = lines.clone();
        v.push(lines[i]);
        let _ = parse(&v.join("\n"), Path::new("k.spvasm"));
    }
    // Names after the function (the entry's lines found again).
    let (names, rest): (Vec<&str>, Vec<&str>) = lines.iter().partition(|l| l.contains("OpName"));
    let moved = [rest, names.clone(), names].concat().join("\n");
    let p = parse(&moved, Path::new("k.spvasm"));
    assert!(p.is_ok(), "{:?}", p.err());
}

/// The null pointer converts to 0 and a pointer to a variable to some
/// other integer; an access through the null pointer is undefined
/// behaviour (`Unreachable` with its cause), with no memory event.
#[test]
fn null_pointers_convert_to_zero_and_accesses_through_them_are_undefined() {
    let src = OPENCL_KERNEL
        .replace(
            "    %ptr = OpTypePointer CrossWorkgroup %uint\n",
            "    %ptr = OpTypePointer CrossWorkgroup %uint\n       %null = OpConstantNull %ptr\n",
        )
        .replace(
            "          %q = OpInBoundsPtrAccessChain %ptr %p %ulong_1\n               OpStore %q %n\n",
            "         %a0 = OpConvertPtrToU %ulong %null\n         %a1 = OpConvertPtrToU %ulong %p\n               OpStore %p %n\n          %z = OpConvertUToPtr %ptr %a0\n          %q = OpInBoundsPtrAccessChain %ptr %z %ulong_1\n          %v = OpLoad %uint %q\n",
        );
    let p = parse(&src, Path::new("k.spvasm")).unwrap();
    let text = render(&p);
    let ks = kinds(&p, 0);
    let loads = ks
        .iter()
        .filter(|k| matches!(k, InstrKind::Load { .. }))
        .count();
    assert_eq!(loads, 0, "{text}");
    assert!(
        ks.iter().any(|k| matches!(
            k,
            InstrKind::Unreachable { cause: Some(c) } if c.contains("load through a null pointer")
        )),
        "{text}"
    );
    // A conversion of an integer other than 0 is refused by name.
    let bad = src.replace(
        "%z = OpConvertUToPtr %ptr %a0",
        "%z = OpConvertUToPtr %ptr %a1",
    );
    let e = err(&bad);
    assert!(e.message.contains("`OpConvertUToPtr`"), "{e}");
}

/// An undefined pointer's address is an undefined value (tagged so: it
/// really is arbitrary), and an access through it is undefined behaviour.
#[test]
fn undefined_pointers_have_arbitrary_addresses() {
    let src = OPENCL_KERNEL
        .replace(
            "    %ptr = OpTypePointer CrossWorkgroup %uint\n",
            "    %ptr = OpTypePointer CrossWorkgroup %uint\n      %undef = OpUndef %ptr\n",
        )
        .replace(
            "          %q = OpInBoundsPtrAccessChain %ptr %p %ulong_1\n               OpStore %q %n\n",
            "         %a0 = OpConvertPtrToU %ulong %undef\n          %t = OpUConvert %uint %a0\n               OpStore %p %t\n               OpStore %undef %n\n",
        );
    let p = parse(&src, Path::new("k.spvasm")).unwrap();
    let text = render(&p);
    let t = &p.threads[0];
    assert!(
        t.instrs
            .iter()
            .any(|i| matches!(i.kind, InstrKind::Havoc { .. })
                && i.tags.iter().any(|t| t == crate::ir::UNDEFINED_VALUE)),
        "{text}"
    );
    assert!(
        kinds(&p, 0).iter().any(|k| matches!(
            k,
            InstrKind::Unreachable { cause: Some(c) } if c.contains("store through an undefined pointer")
        )),
        "{text}"
    );
}
