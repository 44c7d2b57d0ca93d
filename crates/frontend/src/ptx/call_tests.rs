//! Calls through registers (`.callprototype`, `.calltargets`) and calls
//! to functions without a body, on small hand-written kernels.

use super::launch::{Launch, ParamValue};
use super::parse_kernel;
use crate::diag::{Error, ErrorKind};
use crate::ir::{Addr, InstrKind, Program};
use std::path::Path;

/// Two functions of one prototype whose address the module takes
/// (`f_own` stores `p[i]`, `f_first` stores `p[0]`), `f_other` of another
/// prototype (its address taken too), `nondet` and `malloc` without a
/// body, a table of addresses, and kernel `k(p, which)` that runs `body`
/// (with `%rd1` = p, `%r1` = tid.x), then calls `%rd5` with (p, tid.x).
fn module(body: &str) -> String {
    format!(
        r#".version 7.0
.target sm_70
.address_size 64
.extern .func (.param .b32 func_retval0) nondet
()
;
.extern .func (.param .b64 func_retval0) malloc
(.param .b64 malloc_param_0)
;
.visible .func f_own(.param .b64 f_own_param_0, .param .b32 f_own_param_1)
{{
	.reg .b32 %r<2>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [f_own_param_0];
	ld.param.u32 %r1, [f_own_param_1];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.u32 [%rd3], 1;
	ret;
}}
.visible .func f_first(.param .b64 f_first_param_0, .param .b32 f_first_param_1)
{{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [f_first_param_0];
	st.u32 [%rd1], 2;
	ret;
}}
.visible .func (.param .b32 f_other_ret) f_other(.param .b32 f_other_param_0)
{{
	.reg .b32 %r<2>;
	ld.param.u32 %r1, [f_other_param_0];
	st.param.b32 [f_other_ret], %r1;
	ret;
}}
.global .align 8 .u64 table[2] = {{f_own, f_first}};
.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{{
	.reg .pred %p<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [k_param_0];
	mov.u32 %r1, %tid.x;
	mov.u64 %rd7, f_other;
{body}
	{{
	.param .b64 param0;
	st.param.b64 [param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 [param1+0], %r1;
	prototype_0 : .callprototype ()_ (.param .b64 _, .param .b32 _);
	Ftargets : .calltargets f_own;
	call %rd5, (param0, param1), prototype_0;
	}}
	ret;
}}
"#
    )
}

fn launch(threads: u32) -> Launch {
    Launch {
        grid: Some([1, 1, 1]),
        block: Some([threads, 1, 1]),
        params: vec![(
            "0".into(),
            ParamValue::Buffer {
                bytes: 16,
                zero: false,
            },
        )],
        ..Launch::default()
    }
}

fn lower(src: &str, threads: u32) -> Program {
    parse_kernel(src, Path::new("k.ptx"), &launch(threads)).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn error(src: &str) -> Error {
    match parse_kernel(src, Path::new("k.ptx"), &launch(2)) {
        Ok(_) => panic!("translated:\n{src}"),
        Err(e) => e,
    }
}

fn stores(p: &Program, t: usize) -> Vec<String> {
    p.threads[t]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Store {
                addr: Addr::Fixed(l),
                ..
            } => Some(p.locations[*l].name.clone()),
            _ => None,
        })
        .collect()
}

fn count(p: &Program, t: usize, f: impl Fn(&InstrKind) -> bool) -> usize {
    p.threads[t].instrs.iter().filter(|i| f(&i.kind)).count()
}

fn causes(p: &Program, t: usize) -> Vec<String> {
    p.threads[t]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Unreachable { cause } => cause.clone(),
            _ => None,
        })
        .collect()
}

const CALL: &str = "`call %rd5, (param0, param1), prototype_0`";

#[test]
fn a_known_target_is_inlined() {
    let p = lower(&module("\tmov.u64 %rd5, f_first;"), 2);
    for t in 0..2 {
        assert_eq!(stores(&p, t), ["param_0[0]"]);
        assert_eq!(count(&p, t, |k| matches!(k, InstrKind::Branch { .. })), 0);
    }
    assert!(p.assumptions.is_empty(), "{:?}", p.assumptions);
    // Through the table, indexed by tid % 2: each thread's entry is known.
    let table = "\tand.b32 %r2, %r1, 1;\n\tmul.wide.u32 %rd2, %r2, 8;\n\tmov.u64 %rd3, table;\n\tadd.s64 %rd4, %rd3, %rd2;\n\tld.global.u64 %rd5, [%rd4];";
    let p = lower(&module(table), 4);
    let all: Vec<Vec<String>> = (0..4).map(|t| stores(&p, t)).collect();
    assert_eq!(
        all,
        [
            ["param_0[0]"],
            ["param_0[0]"],
            ["param_0[2]"],
            ["param_0[0]"]
        ]
    );
    assert_eq!(count(&p, 1, |k| matches!(k, InstrKind::Branch { .. })), 0);
}

#[test]
fn a_target_known_at_run_time_is_a_branch_per_candidate() {
    // which ? f_own : f_first, `which` free: f_own and f_first fit the
    // prototype; f_other's address is taken too, but it does not fit.
    let body = "\tld.param.u32 %r3, [k_param_1];\n\tsetp.eq.s32 %p1, %r3, 0;\n\tmov.u64 %rd2, f_own;\n\tmov.u64 %rd3, f_first;\n\tselp.b64 %rd5, %rd3, %rd2, %p1;";
    let p = lower(&module(body), 2);
    assert_eq!(stores(&p, 1), ["param_0[1]", "param_0[0]"]);
    assert_eq!(count(&p, 1, |k| matches!(k, InstrKind::Branch { .. })), 2);
    assert_eq!(
        causes(&p, 1),
        [format!("{CALL} at 56:2 calls an address computed at run time that is not the address of `f_own` or `f_first`")]
    );
}

#[test]
fn an_address_that_is_no_functions_is_undefined_behaviour() {
    let p = lower(&module("\tmov.u64 %rd5, 12345;"), 1);
    assert_eq!(
        causes(&p, 0),
        [format!(
            "{CALL} at 52:2 calls address 0x3039, which is no function's"
        )]
    );
    assert!(stores(&p, 0).is_empty());
    let p = lower(&module("\tmov.u64 %rd5, table;"), 1);
    assert_eq!(
        causes(&p, 0),
        [format!(
            "{CALL} at 52:2 calls the address of `table`, which is not a function"
        )]
    );
    // A `.calltargets` list that leaves the target out.
    let src = module("\tmov.u64 %rd5, f_first;").replace("), prototype_0;", "), Ftargets;");
    let p = lower(&src, 1);
    assert_eq!(
        causes(&p, 0),
        ["`call %rd5, (param0, param1), Ftargets` at 52:2 calls `f_first`: `.calltargets` `Ftargets` does not list `f_first`"]
    );
    let p = lower(
        &module("\tmov.u64 %rd5, f_own;").replace("), prototype_0;", "), Ftargets;"),
        2,
    );
    assert_eq!(stores(&p, 1), ["param_0[1]"]);
}

#[test]
fn a_target_or_call_that_does_not_match_the_prototype_is_an_error() {
    let e = error(&module("\tmov.u64 %rd5, f_other;"));
    assert_eq!(e.kind, ErrorKind::Semantic, "{e}");
    assert_eq!(
        e.message,
        "the call reaches `f_other`, which does not match its prototype: prototype `prototype_0` is () _ (.b64, .b32), `f_other` is (.b32) _ (.b32)"
    );
    assert_eq!(e.pos.map(|p| (p.line, p.col)), Some((52, 2)), "{e}");
    assert_eq!(e.file.as_deref(), Some(Path::new("k.ptx")));
    let e = error(&module("\tmov.u64 %rd5, f_own;").replace("(param0, param1)", "(param0)"));
    assert!(
        e.message
            .contains("the call gives 0 return values and 1 argument; prototype `prototype_0` declares 0 and 2"),
        "{e}"
    );
    let e = error(&module("\tmov.u64 %rd5, f_own;").replace("), prototype_0;", "), nowhere;"));
    assert!(
        e.message.contains("`nowhere` is not a `.callprototype`"),
        "{e}"
    );
    assert!(e.pos.is_some(), "{e}");
    let e = error(&module("\tmov.u64 %rd5, f_own;").replace("), prototype_0;", ");"));
    assert!(e.message.contains("needs a `.callprototype`"), "{e}");
}

/// `nondet()` twice; a store to p[0] when the first is not zero.
const NONDET: &str = "\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), nondet, ();\n\tld.param.b32 %r4, [retval0+0];\n\t}\n\t{\n\t.param .b32 retval0;\n\tcall.uni (retval0), nondet, ();\n\tld.param.b32 %r5, [retval0+0];\n\t}\n\tsetp.ne.s32 %p2, %r4, 0;\n\t@%p2 st.u32 [%rd1], 1;\n\tmov.u64 %rd5, f_own;";

#[test]
fn a_function_without_a_body_returns_fresh_arbitrary_values_and_is_an_assumption() {
    let p = lower(&module(NONDET), 2);
    assert_eq!(
        p.assumptions,
        ["calls to `nondet` (no body in this file) return arbitrary values and touch no memory the kernel's threads share"]
    );
    // A fresh value at each call, in each thread.
    assert_eq!(count(&p, 1, |k| matches!(k, InstrKind::Havoc { .. })), 2);
    // The store depends on it: a run-time branch.
    assert_eq!(count(&p, 1, |k| matches!(k, InstrKind::Branch { .. })), 1);
    assert_eq!(stores(&p, 1), ["param_0[0]", "param_0[1]"]);
}

#[test]
fn the_device_heap_is_refused_with_its_function_named() {
    let call = "\t{\n\t.param .b64 param9;\n\tst.param.b64 [param9+0], 16;\n\t.param .b64 retval0;\n\tcall.uni (retval0), malloc, (param9);\n\tld.param.b64 %rd6, [retval0+0];\n\t}\n\tmov.u64 %rd5, f_own;";
    let e = error(&module(call));
    assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
    assert!(
        e.message
            .contains("call to `malloc`: device-side heap memory is not modelled"),
        "{e}"
    );
    assert_eq!(e.pos.map(|p| p.line), Some(48), "{e}");
    // A call to a name the file does not declare.
    let e = error(&module(&call.replace("malloc", "mystery")));
    assert!(
        e.message
            .contains("call to `mystery`, which this file does not declare"),
        "{e}"
    );
}

#[test]
fn recursion_through_a_register_is_refused() {
    let src = module("\tmov.u64 %rd5, f_own;").replace(
        "\tst.u32 [%rd3], 1;\n\tret;",
        "\tst.u32 [%rd3], 1;\n\tmov.u64 %rd2, f_own;\n\t{\n\t.param .b64 q0;\n\tst.param.b64 [q0+0], %rd1;\n\t.param .b32 q1;\n\tst.param.b32 [q1+0], %r1;\n\tproto : .callprototype ()_ (.param .b64 _, .param .b32 _);\n\tcall %rd2, (q0, q1), proto;\n\t}\n\tret;",
    );
    let e = error(&src);
    assert!(e.message.contains("recursive call to `f_own`"), "{e}");
}
