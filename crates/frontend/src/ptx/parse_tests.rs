//! Tests of the PTX kernel parser: clang's output as it comes (test data
//! in `tests/data/ptx/`, see its README), an nvcc-style sample, every
//! operand form, error positions and kinds, and damaged inputs.

use super::ast::*;
use super::parse::parse_module;
use crate::diag::{Error, ErrorKind};
use crate::ir::Pos;

fn data(name: &str) -> String {
    let path = format!("{}/tests/data/ptx/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(name: &str) -> Module {
    parse_module(&data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn func<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

fn body(f: &Function) -> &[Stmt] {
    f.body.as_deref().expect("a body")
}

/// Every instruction of a body, blocks flattened, in order.
fn instrs(stmts: &[Stmt]) -> Vec<&Instr> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Instr(i) => out.push(i),
            Stmt::Block { body, .. } => out.extend(instrs(body)),
            _ => {}
        }
    }
    out
}

fn instr<'f>(f: &'f Function, text: &str) -> &'f Instr {
    instrs(body(f))
        .into_iter()
        .find(|i| i.text == text)
        .unwrap_or_else(|| panic!("no `{text}` in {}", f.name))
}

fn labels(stmts: &[Stmt]) -> Vec<&str> {
    stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Label { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect()
}

fn vars(stmts: &[Stmt]) -> Vec<&VarDecl> {
    stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::Var(v) => Some(v),
            _ => None,
        })
        .collect()
}

fn pos(line: u32, col: u32) -> Pos {
    Pos { line, col }
}

fn ty(w: &str) -> Type {
    Type::from_word(w).unwrap()
}

/// An operand without positions, compactly: `%r1` for a register, `sym`
/// for a name, `#5` for an integer, `[%rd1-4]`, `{%r1, _}`, `(a, b)`.
fn shape(o: &Operand) -> String {
    let list = |elems: &[Operand]| elems.iter().map(shape).collect::<Vec<_>>().join(", ");
    match o {
        Operand::Reg { name, .. } => name.clone(),
        Operand::Imm { value, .. } => format!("#{value}"),
        Operand::Float { bits, double, .. } => {
            format!("{}:{bits:#x}", if *double { "f64" } else { "f32" })
        }
        Operand::Sym { name, .. } => format!("sym:{name}"),
        Operand::SymOffset { name, offset, .. } => format!("sym:{name}{offset:+}"),
        Operand::Mem { base, offset, .. } => format!("[{}{offset:+}]", shape(base)),
        Operand::Vector { elems, .. } => format!("{{{}}}", list(elems)),
        Operand::List { elems, .. } => format!("({})", list(elems)),
        Operand::Not { reg, .. } => format!("!{reg}"),
        Operand::PredPair { a, b, .. } => format!("{a}|{b}"),
        Operand::Sink { .. } => "_".into(),
    }
}

fn shapes(i: &Instr) -> String {
    i.operands.iter().map(shape).collect::<Vec<_>>().join("; ")
}

fn loc(file: u32, line: u32, col: u32) -> Option<SrcLoc> {
    Some(SrcLoc { file, line, col })
}

#[test]
fn clang_o0_module_header_and_variables() {
    let m = parse("kernels-O0.ptx");
    assert_eq!(m.version, Some((6, 0)));
    assert_eq!(m.target, ["sm_70"]);
    assert_eq!(m.address_size, Some(64));
    assert!(m.files.is_empty());
    let names: Vec<_> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "_Z4add2ii",
            "_Z9mp_writerPViS0_",
            "_Z9mp_readerPViS0_Pi",
            "_Z8shared_kPii",
            "_Z7atomicsPiS_",
            "_Z4sfun1SPi",
            "_Z5byval1SPiPl"
        ]
    );
    let [g, c, gp, dynamic] = &m.vars[..] else {
        panic!("{:?}", m.vars)
    };
    assert_eq!(
        (g.space, &g.linkage[..], g.align, g.ty, g.name.as_str()),
        (
            Space::Global,
            &["visible".to_string()][..],
            Some(4),
            ty("u32"),
            "g"
        )
    );
    assert_eq!(g.pos, pos(10, 32));
    assert_eq!(
        (c.space, c.ty, &c.dims[..]),
        (Space::Const, ty("b8"), &[Some(16)][..])
    );
    let Some(Init::List(bytes)) = &c.init else {
        panic!("{:?}", c.init)
    };
    assert_eq!(bytes.len(), 16);
    assert_eq!((&bytes[0], &bytes[4]), (&Init::Int(1), &Init::Int(2)));
    assert_eq!(
        gp.init,
        Some(Init::Addr {
            sym: "g".into(),
            offset: 0,
            generic: true
        })
    );
    assert_eq!(
        (dynamic.space, &dynamic.linkage[..], &dynamic.dims[..]),
        (Space::Shared, &["extern".to_string()][..], &[None][..])
    );
}

#[test]
fn clang_o0_functions_params_and_depot() {
    let m = parse("kernels-O0.ptx");
    let add2 = func(&m, "_Z4add2ii");
    assert_eq!(
        (add2.kind, &add2.linkage[..]),
        (FnKind::Func, &["visible".to_string()][..])
    );
    assert_eq!(add2.rets.len(), 1);
    assert_eq!(
        (add2.rets[0].name.as_str(), add2.rets[0].ty),
        ("func_retval0", ty("b32"))
    );
    assert_eq!(add2.params.len(), 2);
    assert_eq!(add2.params[1].name, "_Z4add2ii_param_1");
    assert_eq!(add2.params[1].space, Space::Param);

    let writer = func(&m, "_Z9mp_writerPViS0_");
    assert_eq!(writer.kind, FnKind::Entry);
    assert!(writer.rets.is_empty() && writer.directives.is_empty());
    let decls = vars(body(writer));
    let depot = decls[0];
    assert_eq!(
        (
            depot.space,
            depot.align,
            depot.name.as_str(),
            &depot.dims[..]
        ),
        (Space::Local, Some(8), "__local_depot1", &[Some(16)][..])
    );
    assert_eq!((decls[1].name.as_str(), decls[1].range), ("%SP", None));
    assert_eq!(
        (decls[3].name.as_str(), decls[3].range, decls[3].ty),
        ("%r", Some(3), ty("b32"))
    );
    let spl = instr(writer, "mov.u64 %SPL, __local_depot1");
    assert_eq!(shapes(spl), "%SPL; sym:__local_depot1");
    assert_eq!(
        shapes(instr(writer, "st.u64 [%SP+8], %rd4")),
        "[%SP+8]; %rd4"
    );
    let st = instr(writer, "st.volatile.u32 [%rd7], %r1");
    assert_eq!(
        (st.opcode.as_str(), &st.mods[..]),
        ("st", &["volatile".to_string(), "u32".into()][..])
    );
    assert_eq!(st.src, None);
    assert!(instrs(body(writer)).iter().any(|i| i.text == "membar.gl"));

    let byval = func(&m, "_Z5byval1SPiPl");
    let p0 = &byval.params[0];
    assert_eq!((p0.align, p0.ty, p0.array), (Some(8), ty("b8"), Some(16)));
    assert_eq!(
        shapes(instr(byval, "mul.rn.f32 %f2, %f1, 0f3FC00000")),
        "%f2; %f1; f32:0x3fc00000"
    );
    assert_eq!(
        shapes(instr(byval, "div.rn.f64 %fd2, %fd1, 0d4008000000000000")),
        "%fd2; %fd1; f64:0x4008000000000000"
    );
    assert_eq!(
        shapes(instr(
            byval,
            "ld.param.u64 %rd8, [_Z5byval1SPiPl_param_0+8]"
        )),
        "%rd8; [sym:_Z5byval1SPiPl_param_0+8]"
    );
}

#[test]
fn clang_o0_call_sequence_is_a_block_with_its_own_declarations() {
    let m = parse("kernels-O0.ptx");
    let k = func(&m, "_Z8shared_kPii");
    let b = body(k);
    assert_eq!(labels(b), ["LBB3_1", "LBB3_2", "LBB3_3", "LBB3_4"]);
    let demoted = vars(b)
        .into_iter()
        .find(|v| v.space == Space::Shared)
        .unwrap();
    assert_eq!(
        (demoted.name.as_str(), &demoted.dims[..]),
        ("_ZZ8shared_kPiiE1s", &[Some(256)][..])
    );
    let Some(Stmt::Block {
        body: call,
        pos: at,
    }) = b.iter().find(|s| matches!(s, Stmt::Block { .. }))
    else {
        panic!("no call block")
    };
    assert_eq!(*at, pos(194, 2));
    let decls = vars(call);
    let names: Vec<_> = decls.iter().map(|v| (v.space, v.name.as_str())).collect();
    assert_eq!(
        names,
        [
            (Space::Reg, "temp_param_reg"),
            (Space::Param, "param0"),
            (Space::Param, "param1"),
            (Space::Param, "retval0")
        ]
    );
    let call = instr(k, "call.uni (retval0), _Z4add2ii, (param0, param1)");
    assert_eq!(call.mods, ["uni"]);
    assert_eq!(
        shapes(call),
        "(sym:retval0); sym:_Z4add2ii; (sym:param0, sym:param1)"
    );
    assert_eq!(call.pos, pos(201, 2));
    assert_eq!(shapes(instr(k, "bar.sync 0")), "#0");
    assert_eq!(shapes(instr(k, "mov.u32 %r12, %ctaid.x")), "%r12; %ctaid.x");
    let guard = instr(k, "@%p1 bra LBB3_4");
    assert_eq!(
        guard.guard,
        Some(Guard {
            reg: "%p1".into(),
            negated: false,
            pos: guard.pos
        })
    );
    assert_eq!(shapes(guard), "sym:LBB3_4");
}

#[test]
fn clang_o0_g_has_files_locations_and_skips_debug_sections() {
    let plain = parse("kernels-O0.ptx");
    let m = parse("kernels-O0-g.ptx");
    assert_eq!(m.target, ["sm_70", "debug"]);
    assert_eq!(m.files, [(1, "/src/kernels.cu".to_string())]);
    assert_eq!(m.vars.len(), plain.vars.len());
    for (f, p) in m.functions.iter().zip(&plain.functions) {
        let texts = |f: &Function| {
            instrs(body(f))
                .iter()
                .map(|i| i.text.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(f), texts(p), "{}", f.name);
    }
    let writer = func(&m, "_Z9mp_writerPViS0_");
    assert_eq!(
        labels(body(writer)),
        ["Lfunc_begin1", "Ltmp2", "Ltmp3", "Lfunc_end1"]
    );
    assert_eq!(
        instr(writer, "mov.u64 %SPL, __local_depot1").src,
        loc(1, 12, 0)
    );
    assert_eq!(
        instr(writer, "st.volatile.u32 [%rd7], %r1").src,
        loc(1, 13, 11)
    );
    assert_eq!(instr(writer, "membar.gl").src, loc(1, 14, 3));
    assert_eq!(instr(writer, "ret").src, loc(1, 16, 1));
}

#[test]
fn clang_o1_line_tables() {
    let m = parse("kernels-O1-lines.ptx");
    assert_eq!(m.files, [(1, "/src/kernels.cu".to_string())]);
    let reader = func(&m, "_Z9mp_readerPViS0_Pi");
    let b = body(reader);
    assert!(b
        .iter()
        .any(|s| matches!(s, Stmt::Pragma { text, .. } if text == "nounroll")));
    let spin = instr(reader, "@%p1 bra LBB2_1");
    assert_eq!(spin.src, loc(1, 20, 3));
    assert_eq!(
        instr(reader, "ld.volatile.global.u32 %r1, [%rd2]").src,
        loc(1, 20, 15)
    );
    let atomics = func(&m, "_Z7atomicsPiS_");
    assert_eq!(
        shapes(instr(atomics, "atom.global.cas.b32 %r3, [%rd3], 0, %r2")),
        "%r3; [%rd3+0]; #0; %r2"
    );
    let asm = instr(atomics, "ld.global.cg.u32 %r1, [%rd1]");
    assert_eq!((asm.src, asm.pos), (loc(1, 43, 3), pos(242, 2)));
    assert_eq!(
        shapes(instr(atomics, "ld.global.u64 %rd5, [gp]")),
        "%rd5; [sym:gp+0]"
    );
}

#[test]
fn clang_warp_kernels_vectors_shuffles_and_inline_asm_blocks() {
    let m = parse("warp-O1-lines.ptx");
    assert_eq!(
        (m.version, &m.target[..]),
        (Some((7, 0)), &["sm_80".to_string()][..])
    );
    let vec = func(&m, "_Z3vecPKDv4_fPS_PDv2_iPx");
    assert_eq!(
        shapes(instr(vec, "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd10]")),
        "{%f1, %f2, %f3, %f4}; [%rd10+0]"
    );
    assert_eq!(
        shapes(instr(vec, "st.global.v2.u32 [%rd13], {%r9, %r14}")),
        "[%rd13+0]; {%r9, %r14}"
    );
    assert_eq!(
        shapes(instr(vec, "shfl.sync.down.b32 %r10, %r14, %r13, 31, -1")),
        "%r10; %r14; %r13; #31; #-1"
    );
    assert_eq!(
        shapes(instr(vec, "vote.sync.ballot.b32 %r6, %p2, -1")),
        "%r6; %p2; #-1"
    );
    assert_eq!(shapes(instr(vec, "mov.u32 %r11, %laneid")), "%r11; %laneid");

    let fences = func(&m, "_Z6fencesPjS_");
    let Some(Stmt::Block { body: asm, .. }) = body(fences)
        .iter()
        .find(|s| matches!(s, Stmt::Block { .. }))
    else {
        panic!("no inline asm block")
    };
    assert_eq!(
        (vars(asm)[0].name.as_str(), vars(asm)[0].ty),
        ("p", ty("pred"))
    );
    // `p` is declared with `.reg`, so it is a register without a `%`.
    assert_eq!(shapes(instr(fences, "setp.ne.u32 p, %r2, 0")), "p; %r2; #0");
    let red = instr(fences, "@p red.global.add.u32 [%rd4], 1");
    assert_eq!(red.guard.as_ref().map(|g| g.reg.as_str()), Some("p"));
    assert_eq!((red.pos, red.src), (pos(133, 41), loc(1, 34, 3)));
    assert_eq!(instr(fences, "fence.acq_rel.gpu").mods, ["acq_rel", "gpu"]);
    assert_eq!(
        instr(fences, "st.release.sys.global.u32 [%rd4], %r2").mods,
        ["release", "sys", "global", "u32"]
    );
    // `.loc 1 0 7`: line 0 is kept as written.
    assert_eq!(
        instr(fences, "cvta.to.global.u64 %rd1, %rd4").src,
        loc(1, 0, 7)
    );
    assert_eq!(
        shapes(instr(fences, "mov.u64 %rd5, %clock64")),
        "%rd5; %clock64"
    );
    assert_eq!(instr(fences, "trap").operands, []);

    let o0 = parse("warp-O0-g.ptx");
    assert_eq!(o0.files, [(1, "/src/warp.cu".to_string())]);
    assert_eq!(o0.functions.len(), 4);
}

#[test]
fn nvcc_style_module() {
    let m = parse("nvcc-style.ptx");
    assert_eq!(
        (m.version, &m.target[..], m.address_size),
        (Some((7, 8)), &["sm_80".to_string()][..], Some(64))
    );
    let vprintf = func(&m, "vprintf");
    assert_eq!(
        (vprintf.kind, &vprintf.linkage[..], vprintf.body.is_none()),
        (FnKind::Func, &["extern".to_string()][..], true)
    );
    assert_eq!((vprintf.rets.len(), vprintf.params.len()), (1, 2));

    let var = |n: &str| {
        m.vars
            .iter()
            .find(|v| v.name == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    let s = var("$str");
    let hello = [104, 101, 108, 108, 111, 0].map(Init::Int).to_vec();
    assert_eq!(
        (s.align, &s.dims[..], &s.init),
        (Some(1), &[Some(6)][..], &Some(Init::List(hello)))
    );
    assert_eq!(
        (var("weak_flag").linkage[0].as_str(), &var("weak_flag").init),
        ("weak", &Some(Init::Int(1)))
    );
    assert_eq!(var("common_word").linkage, ["common"]);
    assert_eq!(
        var("table").init,
        Some(Init::List(vec![
            Init::Addr {
                sym: "$str".into(),
                offset: 0,
                generic: true
            },
            Init::Addr {
                sym: "counter".into(),
                offset: 4,
                generic: true
            }
        ]))
    );
    assert_eq!(
        var("scale").init,
        Some(Init::Float {
            bits: 0x3f80_0000,
            double: false
        })
    );
    let grid = var("grid");
    assert_eq!(grid.dims, [Some(2), Some(3)]);
    let Some(Init::List(rows)) = &grid.init else {
        panic!()
    };
    assert_eq!(
        rows[1],
        Init::List(vec![Init::Int(4), Init::Int(5), Init::Int(-6)])
    );
    assert_eq!(
        (var("sdata").align, &var("sdata").dims[..]),
        (Some(16), &[None][..])
    );

    let k = func(&m, "_Z6kernelPiS_i");
    assert_eq!(k.params[0].ptr, Some((Some(Space::Global), Some(4))));
    assert_eq!((k.params[0].align, k.params[0].ty), (None, ty("u64")));
    assert_eq!((k.params[3].align, k.params[3].array), (Some(8), Some(16)));
    assert_eq!(
        k.directives,
        [
            ("maxntid".to_string(), vec![256, 1, 1], pos(37, 1)),
            ("minnctapersm".to_string(), vec![2], pos(38, 1))
        ]
    );
    assert_eq!(labels(body(k)), ["$L__BB0_2", "$L__BB0_3"]);
    assert_eq!(
        shapes(instr(k, "mad.lo.s32 %r5, %r3, %r4, %r2")),
        "%r5; %r3; %r4; %r2"
    );
    assert_eq!(shapes(instr(k, "@%p1 bra $L__BB0_3")), "sym:$L__BB0_3");
    assert_eq!(
        shapes(instr(k, "atom.global.add.u32 %r7, [counter], 1")),
        "%r7; [sym:counter+0]; #1"
    );
    assert_eq!(
        shapes(instr(k, "red.global.add.u32 [%rd5], 1")),
        "[%rd5+0]; #1"
    );
    assert_eq!(
        shapes(instr(k, "ld.volatile.global.u32 %r8, [%rd5+4]")),
        "%r8; [%rd5+4]"
    );
    assert_eq!(
        shapes(instr(k, "call.uni (retval0), vprintf, (param0, param1)")),
        "(sym:retval0); sym:vprintf; (sym:param0, sym:param1)"
    );
    assert!(instrs(body(k)).iter().all(|i| i.src.is_none()));

    let abort = func(&m, "_Z5abortv");
    assert_eq!(
        (abort.params.len(), &abort.directives[..]),
        (0, &[("noreturn".to_string(), vec![], pos(96, 1))][..])
    );
    assert_eq!(instrs(body(abort))[0].text, "trap");
}

#[test]
fn clang_o2_prototypes_printf_and_struct_returns() {
    let m = parse("misc-O2.ptx");
    let names: Vec<_> = m
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.body.is_some()))
        .collect();
    // clang declares `twice` before its use in an initialiser, then
    // defines it: both are kept, in file order.
    assert_eq!(
        names,
        [
            ("_Z5twicei", false),
            ("vprintf", false),
            ("_Z2mki", true),
            ("_Z3reci", true),
            ("_Z5twicei", true),
            ("_Z4miscPiPxPfPdi", true)
        ]
    );
    let mk = func(&m, "_Z2mki");
    assert_eq!((mk.rets[0].align, mk.rets[0].array), (Some(4), Some(8)));
    let fptr = m.vars.iter().find(|v| v.name == "fptr").unwrap();
    assert_eq!(
        fptr.init,
        Some(Init::Addr {
            sym: "_Z5twicei".into(),
            offset: 0,
            generic: false
        })
    );
    assert_eq!(m.vars[1].name, "_$_str");
    let k = func(&m, "_Z4miscPiPxPfPdi");
    assert_eq!(
        shapes(instr(
            k,
            "fma.rn.f64 %fd2, %fd1, 0d3FE0000000000000, 0d3F50624DD2F1A9FC"
        )),
        "%fd2; %fd1; f64:0x3fe0000000000000; f64:0x3f50624dd2f1a9fc"
    );
    assert_eq!(
        shapes(instr(k, "atom.global.add.f32 %f1, [%rd2], 0f3F800000")),
        "%f1; [%rd2+0]; f32:0x3f800000"
    );
    assert_eq!(shapes(instr(k, "add.s32 %r6, %r45, -1")), "%r6; %r45; #-1");
    assert_eq!(
        shapes(instr(k, "mov.u64 %rd22, _$_str")),
        "%rd22; sym:_$_str"
    );
    assert_eq!(labels(body(k)).len(), 10);
}

/// The `.callprototype` and `.calltargets` statements of a body.
fn call_specs(stmts: &[Stmt]) -> Vec<&CallSpec> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::CallSpec(c) => out.push(c),
            Stmt::Block { body, .. } => out.extend(call_specs(body)),
            _ => {}
        }
    }
    out
}

#[test]
fn clang_indirect_calls_and_their_prototypes() {
    let m = parse("indirect-O2.ptx");
    let k = func(&m, "_Z8indirectPi");
    let specs = call_specs(body(k));
    assert_eq!(specs.len(), 1);
    assert_eq!(
        (specs[0].name.as_str(), specs[0].pos),
        ("prototype_0", pos(46, 2))
    );
    let CallSpecKind::Prototype {
        rets,
        params,
        noreturn,
    } = &specs[0].kind
    else {
        panic!("{:?}", specs[0])
    };
    let shape = |ps: &[Param]| -> Vec<(Space, u32, String)> {
        ps.iter()
            .map(|p| (p.space, p.ty.bits, p.name.clone()))
            .collect()
    };
    assert_eq!(shape(rets), [(Space::Param, 32, "_".to_string())]);
    assert_eq!(shape(params), [(Space::Param, 32, "_".to_string())]);
    assert!(!noreturn);
    assert_eq!(
        shapes(instr(k, "call (retval0), %rd3, (param0), prototype_0")),
        "(sym:retval0); %rd3; (sym:param0); sym:prototype_0"
    );
    // The other forms: no parameters, `.noreturn`, arrays, target lists.
    let text = "{\n\tp1: .callprototype _ .noreturn;\n\tp2: .callprototype (.param .align 8 .b8 _[16]) _ ;\n\tt: .calltargets f, g;\n\tret;\n}";
    let src =
        format!(".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{text}\n");
    let m = parse_module(&src).unwrap_or_else(|e| panic!("{e}"));
    let specs = call_specs(body(&m.functions[0]));
    assert!(
        matches!(&specs[0].kind, CallSpecKind::Prototype { rets, params, noreturn: true } if rets.is_empty() && params.is_empty())
    );
    assert!(
        matches!(&specs[1].kind, CallSpecKind::Prototype { rets, params, .. } if rets[0].array == Some(16) && params.is_empty())
    );
    let CallSpecKind::Targets(ts) = &specs[2].kind else {
        panic!("{:?}", specs[2])
    };
    let names: Vec<&str> = ts.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["f", "g"]);
    // What is not a prototype is refused where it is.
    let e = parse_module(&src.replace(".noreturn", ".abi_preserve 4")).unwrap_err();
    assert_eq!((e.kind, e.pos), (ErrorKind::Unsupported, Some(pos(6, 23))));
    let e = parse_module(&src.replace("_ .noreturn", "f .noreturn")).unwrap_err();
    assert_eq!(
        (e.kind, e.pos),
        (ErrorKind::Syntax, Some(pos(6, 21))),
        "{e}"
    );
}

/// Parses `lines` as the body of a kernel that declares the usual
/// registers.
fn parse_body(lines: &str) -> Vec<Instr> {
    let src = format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.global .u32 sym;\n.visible .entry k()\n{{\n\
         .reg .pred %p<4>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n.reg .f32 %f<4>;\n{lines}\n}}\n"
    );
    let m = parse_module(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    instrs(body(&m.functions[0])).into_iter().cloned().collect()
}

#[test]
fn every_operand_form() {
    // (as written, normalised text, opcode, modifiers, operand shapes)
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        ("ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];", "ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2]", "ld", "global v4 u32", "{%r1, %r2, %r3, %r4}; [%rd2+0]"),
        ("ld.global.v2.u32 {%r1, _}, [%rd2];", "ld.global.v2.u32 {%r1, _}, [%rd2]", "ld", "global v2 u32", "{%r1, _}; [%rd2+0]"),
        ("mov.b64 {%r1, %r2}, %rd1;", "mov.b64 {%r1, %r2}, %rd1", "mov", "b64", "{%r1, %r2}; %rd1"),
        ("setp.lt.s32 %p1|%p2, %r1, %r2;", "setp.lt.s32 %p1|%p2, %r1, %r2", "setp", "lt s32", "%p1|%p2; %r1; %r2"),
        ("selp.b32 %r1, %r2, %r3, !%p1;", "selp.b32 %r1, %r2, %r3, !%p1", "selp", "b32", "%r1; %r2; %r3; !%p1"),
        ("shfl.sync.down.b32 %r2|%p1, %r1, 16, 31, -1;", "shfl.sync.down.b32 %r2|%p1, %r1, 16, 31, -1", "shfl", "sync down b32", "%r2|%p1; %r1; #16; #31; #-1"),
        ("mul.wide.u32 %rd1, %r1, 4;", "mul.wide.u32 %rd1, %r1, 4", "mul", "wide u32", "%rd1; %r1; #4"),
        ("mov.u32 %r1, %tid.y;", "mov.u32 %r1, %tid.y", "mov", "u32", "%r1; %tid.y"),
        ("mov.u32 %r1, %nctaid.z;", "mov.u32 %r1, %nctaid.z", "mov", "u32", "%r1; %nctaid.z"),
        ("mov.u32 %r1, %lanemask_lt;", "mov.u32 %r1, %lanemask_lt", "mov", "u32", "%r1; %lanemask_lt"),
        ("mov.f32 %f1, 0f3F800000;", "mov.f32 %f1, 0f3F800000", "mov", "f32", "%f1; f32:0x3f800000"),
        ("mov.f64 %fd1, 0d3FF0000000000000;", "mov.f64 %fd1, 0d3FF0000000000000", "mov", "f64", "%fd1; f64:0x3ff0000000000000"),
        ("mov.f32 %f1, -0f3F800000;", "mov.f32 %f1, -0f3F800000", "mov", "f32", "%f1; f32:0xbf800000"),
        ("mov.f64 %fd1, 1.5;", "mov.f64 %fd1, 1.5", "mov", "f64", "%fd1; f64:0x3ff8000000000000"),
        ("mov.b32 %r1, 0xFFFFFFFF;", "mov.b32 %r1, 0xFFFFFFFF", "mov", "b32", "%r1; #4294967295"),
        ("mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;", "mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF", "mov", "b64", "%rd1; #-1"),
        ("mov.s32 %r1, -42;", "mov.s32 %r1, -42", "mov", "s32", "%r1; #-42"),
        ("mov.u32 %r1, 017;", "mov.u32 %r1, 017", "mov", "u32", "%r1; #15"),
        ("mov.u32 %r1, 0b101U;", "mov.u32 %r1, 0b101U", "mov", "u32", "%r1; #5"),
        ("ld.u32 %r1, [%rd1+-4];", "ld.u32 %r1, [%rd1+-4]", "ld", "u32", "%r1; [%rd1-4]"),
        ("ld.u32 %r1, [%rd1-4];", "ld.u32 %r1, [%rd1-4]", "ld", "u32", "%r1; [%rd1-4]"),
        ("ld.u32 %r1, [ %rd1 + 0x10 ];", "ld.u32 %r1, [%rd1+0x10]", "ld", "u32", "%r1; [%rd1+16]"),
        ("ld.global.u32 %r1, [sym+8];", "ld.global.u32 %r1, [sym+8]", "ld", "global u32", "%r1; [sym:sym+8]"),
        ("ld.global.u32 %r1, [100];", "ld.global.u32 %r1, [100]", "ld", "global u32", "%r1; [#100+0]"),
        ("mov.u64 %rd1, sym+4;", "mov.u64 %rd1, sym+4", "mov", "u64", "%rd1; sym:sym+4"),
        ("mov.u64 %rd1, sym-4;", "mov.u64 %rd1, sym-4", "mov", "u64", "%rd1; sym:sym-4"),
        ("ld.param.u64 %rd1, [k_param_0];", "ld.param.u64 %rd1, [k_param_0]", "ld", "param u64", "%rd1; [sym:k_param_0+0]"),
        ("cvta.to.global.u64 %rd2, %rd1;", "cvta.to.global.u64 %rd2, %rd1", "cvta", "to global u64", "%rd2; %rd1"),
        ("ld.global.nc.f32 %f1, [%rd1];", "ld.global.nc.f32 %f1, [%rd1]", "ld", "global nc f32", "%f1; [%rd1+0]"),
        ("ld.relaxed.gpu.global.u32 %r1, [%rd1];", "ld.relaxed.gpu.global.u32 %r1, [%rd1]", "ld", "relaxed gpu global u32", "%r1; [%rd1+0]"),
        ("ld.shared::cta.u32 %r1, [%rd1];", "ld.shared::cta.u32 %r1, [%rd1]", "ld", "shared::cta u32", "%r1; [%rd1+0]"),
        ("atom.acquire.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3;", "atom.acquire.gpu.global.cas.b32 %r1, [%rd1], %r2, %r3", "atom", "acquire gpu global cas b32", "%r1; [%rd1+0]; %r2; %r3"),
        ("red.global.add.u32 [%rd1], 1;", "red.global.add.u32 [%rd1], 1", "red", "global add u32", "[%rd1+0]; #1"),
        ("vote.sync.ballot.b32 %r1, %p1, -1;", "vote.sync.ballot.b32 %r1, %p1, -1", "vote", "sync ballot b32", "%r1; %p1; #-1"),
        ("bar.red.popc.u32 %r1, 0, %p1;", "bar.red.popc.u32 %r1, 0, %p1", "bar", "red popc u32", "%r1; #0; %p1"),
        ("fence.sc.cta;", "fence.sc.cta", "fence", "sc cta", ""),
        ("bar.sync 1, 64;", "bar.sync 1, 64", "bar", "sync", "#1; #64"),
        ("barrier.sync.aligned 0;", "barrier.sync.aligned 0", "barrier", "sync aligned", "#0"),
        ("bar.warp.sync -1;", "bar.warp.sync -1", "bar", "warp sync", "#-1"),
        ("@!%p1 bra.uni L1;", "@!%p1 bra.uni L1", "bra", "uni", "sym:L1"),
        ("call.uni (retval0), f, (param0, param1);", "call.uni (retval0), f, (param0, param1)", "call", "uni", "(sym:retval0); sym:f; (sym:param0, sym:param1)"),
        ("call f, ();", "call f, ()", "call", "", "sym:f; ()"),
        ("exit;", "exit", "exit", "", ""),
        ("/* a */ add.s32 /* b */ %r1,\n\t%r2 ,  %r3 ; // c", "add.s32 %r1, %r2, %r3", "add", "s32", "%r1; %r2; %r3"),
    ];
    let src: String = cases.iter().map(|c| format!("{}\n", c.0)).collect();
    let got = parse_body(&src);
    assert_eq!(got.len(), cases.len());
    for (i, (line, text, opcode, mods, operands)) in got.iter().zip(cases) {
        assert_eq!(i.text, *text, "{line}");
        assert_eq!(i.opcode, *opcode, "{line}");
        assert_eq!(i.mods.join(" "), *mods, "{line}");
        assert_eq!(shapes(i), *operands, "{line}");
    }
}

#[test]
fn positions_of_instructions_guards_and_operands() {
    let got = parse_body("\t@!%p1 ld.global.u32 %r1, [%rd1+-4];\n  setp.lt.s32 %p1|%p2, -5, !%p3;");
    let ld = &got[0];
    assert_eq!(ld.pos, pos(11, 2));
    assert_eq!(
        ld.guard,
        Some(Guard {
            reg: "%p1".into(),
            negated: true,
            pos: pos(11, 2)
        })
    );
    assert_eq!(ld.operands[0].pos(), pos(11, 22));
    let Operand::Mem { base, pos: at, .. } = &ld.operands[1] else {
        panic!()
    };
    assert_eq!((*at, base.pos()), (pos(11, 27), pos(11, 28)));
    let setp = &got[1];
    assert_eq!(setp.pos, pos(12, 3));
    let at: Vec<_> = setp.operands.iter().map(Operand::pos).collect();
    // A negative immediate starts at its `-`; `!%p` at its `!`.
    assert_eq!(at, [pos(12, 15), pos(12, 24), pos(12, 28)]);
}

#[test]
fn declarations_with_commas_ranges_and_vectors() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .global .v4 .f32 quad;\n\
               .entry k(.param .u64 .ptr .align 8 a, .param .u64 .ptr b)\n{\n\
               .reg .b32 %a, %b<3>, t;\n.local .align 4 .b8 buf[4][2];\n\
               mov.u32 t, 1;\n}\n";
    let m = parse_module(src).unwrap();
    assert_eq!((m.vars[0].vector, m.vars[0].ty), (Some(4), ty("f32")));
    let k = &m.functions[0];
    assert_eq!(k.params[0].ptr, Some((None, Some(8))));
    assert_eq!(k.params[1].ptr, Some((None, None)));
    let decls = vars(body(k));
    let regs: Vec<_> = decls
        .iter()
        .map(|v| (v.name.as_str(), v.range, v.pos))
        .collect();
    assert_eq!(
        regs[..3],
        [
            ("%a", None, pos(7, 11)),
            ("%b", Some(3), pos(7, 15)),
            ("t", None, pos(7, 22))
        ]
    );
    assert_eq!(decls[3].dims, [Some(4), Some(2)]);
    assert_eq!(shapes(instrs(body(k))[0]), "t; #1");
}

#[test]
fn function_headers_prototypes_and_tuning_directives() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .weak .func (.param .b64 r) w(.param .b64 a) .noreturn;\n\
               .visible .entry k() .reqntid 32, 1, 1 .maxnreg 64 { ret; }\n\
               .func f\n{\nret;\n}\n";
    let m = parse_module(src).unwrap();
    let [w, k, f] = &m.functions[..] else {
        panic!("{:?}", m.functions)
    };
    assert_eq!(
        (&w.linkage[..], w.body.is_none()),
        (&["weak".to_string()][..], true)
    );
    assert_eq!(
        (w.rets[0].name.as_str(), w.params[0].name.as_str()),
        ("r", "a")
    );
    assert_eq!(w.directives, [("noreturn".to_string(), vec![], pos(4, 46))]);
    let tuning: Vec<_> = k
        .directives
        .iter()
        .map(|(d, a, _)| (d.as_str(), &a[..]))
        .collect();
    assert_eq!(
        tuning,
        [("reqntid", &[32, 1, 1][..]), ("maxnreg", &[64][..])]
    );
    assert_eq!((k.pos, instrs(body(k))[0].pos), (pos(5, 17), pos(5, 53)));
    assert_eq!(
        (f.kind, f.params.len(), body(f).len()),
        (FnKind::Func, 0, 1)
    );
}

#[test]
fn names_declared_with_reg_are_registers_in_their_scope() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .func (.reg .b32 out) f(.reg .b32 in)\n{\n\
               .reg .b32 r<20>, q1<5>, t;\n\
               add.s32 r12, q13, r20;\n\
               add.s32 out, in, r05;\n\
               { .reg .pred p; @p mov.b32 t, 1; }\n\
               mov.b32 t, p;\n}\n";
    let m = parse_module(src).unwrap();
    let f = &m.functions[0];
    assert_eq!(
        (f.rets[0].space, f.params[0].space),
        (Space::Reg, Space::Reg)
    );
    let is = instrs(body(f));
    assert_eq!(shapes(is[0]), "r12; q13; sym:r20");
    // `r05` is not how `r<20>` names its sixth register.
    assert_eq!(shapes(is[1]), "out; in; sym:r05");
    assert_eq!(is[2].guard.as_ref().unwrap().reg, "p");
    assert_eq!(shapes(is[3]), "t; sym:p");
}

#[test]
fn loc_with_inlining_keeps_the_innermost_position() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .file 1 \"/src/k.cu\", 1700000000, 1234\n.file 2 \"/src/h.h\"\n\
               .entry k()\n{\n\
               .loc 2 5 10, function_name $L__info_string0, inlined_at 1 20 5\n\
               ret;\n\
               .loc 1 21 3, function_name $L__info_string1+4, inlined_at 1 2 3\n\
               exit;\n}\n";
    let m = parse_module(src).unwrap();
    assert_eq!(
        m.files,
        [(1, "/src/k.cu".to_string()), (2, "/src/h.h".to_string())]
    );
    let is = instrs(body(&m.functions[0]));
    assert_eq!((is[0].src, is[1].src), (loc(2, 5, 10), loc(1, 21, 3)));
}

#[test]
fn a_loc_does_not_leak_into_the_next_function() {
    let src = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .entry a()\n{\n.loc 1 3 1\nret;\n}\n.entry b()\n{\nret;\n}\n";
    let m = parse_module(src).unwrap();
    assert_eq!(instrs(body(&m.functions[0]))[0].src, loc(1, 3, 1));
    assert_eq!(instrs(body(&m.functions[1]))[0].src, None);
}

#[test]
fn nested_debug_sections_are_skipped_whatever_they_hold() {
    let src = ".version 7.8\n.target sm_80, debug\n.address_size 64\n\
               .section .debug_str\n{\n$L__info_string0:\n.b8 107,0\n{ .b32 .debug_abbrev } # ~\n.b64 Lfunc_end0-Lfunc_begin0\n}\n\
               .section .debug_loc { }\n.entry k()\n{\nret;\n}\n";
    let m = parse_module(src).unwrap();
    assert_eq!(m.functions.len(), 1);
}

#[test]
fn a_register_beyond_its_declared_range_is_named() {
    let head = ".version 7.8\n.target sm_80\n.address_size 64\n.entry k()\n{\n.reg .b32 %r<4>;\n";
    let e = fails(&format!("{head}add.s32 %r1, %r7, 1;\n}}\n"));
    assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((7, 14)), "{e}");
    assert!(
        e.message
            .contains("register `%r7` is not declared: `%r<4>` declares %r0 … %r3"),
        "{e}"
    );
    // Within the range, and special registers, are fine.
    parse_module(&format!("{head}mov.u32 %r3, %tid.x;\nret;\n}}\n")).unwrap();
}

/// Parses `src` expecting an error, and returns it.
fn fails(src: &str) -> Error {
    match parse_module(src) {
        Ok(m) => panic!("parsed:\n{src}\n{m:?}"),
        Err(e) => e,
    }
}

#[test]
fn malformed_text_is_a_syntax_error_at_the_offending_token() {
    const HEAD: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";
    let body = |lines: &str| {
        format!("{HEAD}.entry k()\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{lines}\n}}\n")
    };
    // (source, line:col, a piece of the message)
    #[rustfmt::skip]
    let cases: Vec<(String, &str, &str)> = vec![
        (".version 7\n".into(), "1:10", "malformed version"),
        (format!("{HEAD}add.s32 %r1, %r2, %r3;"), "4:1", "expected a directive"),
        (body("add.s32 %r1, %r2, %r3\nexit;"), "9:1", "expected `,` or `;`"),
        (body("add.s32 %r1 %r2, %r3;"), "8:13", "expected `,` or `;`"),
        (body("ld.u32 %r1, [%rd1+%rd2];"), "8:19", "expected an integer offset"),
        (body("ld.u32 %r1, [%rd1;"), "8:18", "expected `]`"),
        (body("mov.f32 %r1, 0f3F80;"), "8:14", "malformed number `0f3F80`"),
        (body("mov.u32 %r1, 08;"), "8:14", "malformed integer `08`"),
        (body("mov.u64 %rd1, 99999999999999999999;"), "8:15", "does not fit in 64 bits"),
        (body("@ bra L;"), "8:3", "expected a predicate register"),
        (body("  # ret;"), "8:3", "unexpected character `#`"),
        (body("mov.u32 %r1, % ;"), "8:14", "expected a name after `%`"),
        (body("/* never closed\nret;"), "8:1", "unterminated `/*` comment"),
        (body("ret;\nfoo.bar: ret;"), "9:1", "expected a label name"),
        (body("%r1 = 1;"), "8:1", "expected an opcode"),
        (body("mov.u32 %r1, foo.bar;"), "8:14", "expected an operand"),
        (body("st.u32 [0f3F800000], %r1;"), "8:9", "expected a register, a name or an integer"),
        (format!("{HEAD}.entry k()\n{{\nret;\n"), "7:1", "found the end of the input"),
        (format!("{HEAD}.entry k()\n{{\nret;\n.visible .entry j()\n{{\n}}\n"), "7:1", "`.entry` inside a function body"),
        (format!("{HEAD}.entry k()\n{{\nret;\n.file 1 \"k.cu\"\n"), "7:1", "`.file` inside a function body"),
        (format!("{HEAD}.entry k(.global .u32 x)\n{{\n}}\n"), "4:10", "expected `.param` or `.reg`"),
        (format!("{HEAD}.entry k(.param .u64 .ptr .ptr x)\n{{\n}}\n"), "4:27", "`.ptr` given twice"),
        (format!("{HEAD}.global .u32 .b32 x;\n"), "4:14", "type given twice"),
        (format!("{HEAD}.global .align 4 x;\n"), "4:18", "expected a type"),
        (format!("{HEAD}.extern .u32 x;\n"), "4:9", "expected a state space"),
        (format!("{HEAD}.global .u64 .ptr x;\n"), "4:1", "only allowed on kernel parameters"),
        (format!("{HEAD}.global .u32 x = ;\n"), "4:18", "expected an initial value"),
        (format!("{HEAD}.global .u32 x[2] = {{1, 2;\n"), "4:26", "expected `,` or `}`"),
        (format!("{HEAD}.file 1 k.cu\n"), "4:9", "expected a file name string"),
        (format!("{HEAD}.file 1 \"k.cu\nret;\n"), "4:9", "unterminated string"),
        (format!("{HEAD}.section .debug_info {{\n.b8 1\n"), "6:1", "section opened at 4:22 is not closed"),
        (format!("{HEAD}.entry k()\n{{\n.loc 1 2\nret;\n}}\n"), "7:1", "expected a column number"),
        (format!("{HEAD}.entry k()\n{{\n.loc 1 2 3, function_name f, 1 2 3\n}}\n"), "6:30", "expected `inlined_at`"),
        (format!("{HEAD}.entry k()\n{{\n.pragma nounroll;\n}}\n"), "6:9", "expected a pragma string"),
    ];
    for (src, at, msg) in &cases {
        let e = fails(src);
        assert_eq!(e.kind, ErrorKind::Syntax, "{src}\n{e}");
        assert_eq!(
            e.pos.map(|p| p.to_string()).as_deref(),
            Some(*at),
            "{src}\n{e}"
        );
        assert!(e.message.contains(msg), "{src}\n{e}");
    }
}

#[test]
fn unknown_directives_and_forms_are_reported_unsupported() {
    const HEAD: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";
    #[rustfmt::skip]
    let cases: Vec<(String, &str, &str)> = vec![
        (format!("{HEAD}.alias fa, fb;\n"), "4:1", "directive `.alias`"),
        (format!("{HEAD}.global .texref t;\n"), "4:9", "directive `.texref`"),
        (format!("{HEAD}.global .attribute(.managed) .u32 x;\n"), "4:9", "directive `.attribute`"),
        (format!("{HEAD}.entry k()\n{{\nprototype_0 : .callprototype _ .abi_preserve 4;\n}}\n"), "6:32", "directive `.abi_preserve` in a `.callprototype`"),
        (format!("{HEAD}.entry k()\n{{\nts: .branchtargets L1, L2;\n}}\n"), "6:5", "directive `.branchtargets`"),
        (format!("{HEAD}.entry k()\n{{\n.calltargets f;\n}}\n"), "6:1", "directive `.calltargets`"),
        (format!("{HEAD}.entry k()\n.maxntid 1\n.blocksareclusters\n{{\n}}\n"), "6:1", "directive `.blocksareclusters`"),
        (format!("{HEAD}.entry k(.param .v2 .u32 p)\n{{\n}}\n"), "4:10", "vector parameters"),
        (format!("{HEAD}.entry k(.param .b8 p[2][2])\n{{\n}}\n"), "4:25", "multi-dimensional"),
        (format!("{HEAD}.entry k()\n{{\n.reg .b32 %r1;\ntex.1d.v4.s32.s32 {{%r1, %r1, %r1, %r1}}, [tex, {{%r1}}];\n}}\n"), "7:45", "texture"),
        (format!("{HEAD}.entry k()\n{{\n{}\n", "{".repeat(200)), "6:65", "nesting deeper than 64"),
        (format!("{HEAD}.global .u32 x[1] = {};\n", "{".repeat(200)), "4:85", "nesting deeper than 64"),
    ];
    for (src, at, msg) in &cases {
        let e = fails(src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{src}\n{e}");
        assert_eq!(
            e.pos.map(|p| p.to_string()).as_deref(),
            Some(*at),
            "{src}\n{e}"
        );
        assert!(e.message.contains(msg), "{src}\n{e}");
    }
}

#[test]
fn damaged_inputs_never_panic() {
    let alphabet = b"{}[]()<>;:,.%@!|+-_$\"/*\n \t0123456789abcdefxXLr.#";
    let mut seen_ok = 0;
    for (k, name) in [
        "kernels-O1-lines.ptx",
        "warp-O1-lines.ptx",
        "nvcc-style.ptx",
        "kernels-O0.ptx",
    ]
    .iter()
    .enumerate()
    {
        let text = data(name);
        for copy in gpumc_testutil::damaged_copies(text.as_bytes(), alphabet, 300, 5, 17 + k as u64)
        {
            let src = String::from_utf8_lossy(&copy);
            match parse_module(&src) {
                Ok(_) => seen_ok += 1,
                // Every error says where.
                Err(e) => assert!(e.pos.is_some(), "{e}"),
            }
        }
    }
    // Some damage (inside comments, in a name) leaves valid PTX.
    assert!(seen_ok > 0);
}

#[test]
fn pathological_nesting_and_odd_text_end_quickly() {
    for src in [
        "{".repeat(100_000),
        format!(".entry k()\n{}", "{".repeat(100_000)),
        format!(".global .u32 x = {}", "{".repeat(100_000)),
        format!(".entry k()\n{{\n{}", "ret ".repeat(10_000)),
        ".section .debug_info {".repeat(10_000),
        "\u{feff}.version 7.8 é ∀".into(),
        String::new(),
        "/*".into(),
        "\"".into(),
        ".".into(),
        "%".into(),
        "0x".into(),
    ] {
        let _ = parse_module(&src);
    }
    assert_eq!(parse_module("").unwrap(), Module::default());
}
