//! The C dialect: forms, tags, lowering, and errors with their positions.

use crate::diag::{Error, ErrorKind};
use crate::ir::{Addr, Arch, CmpOp, Instr, InstrKind, Operand, Program, RmwOp, Term};
use crate::tagging::{c_order, c_scope};
use std::path::Path;

fn parse(src: &str) -> Result<Program, Error> {
    crate::litmus::parse(src, Path::new("t.litmus"))
}

fn ok(src: &str) -> Program {
    parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn err(src: &str) -> Error {
    match parse(src) {
        Ok(_) => panic!("parsed:\n{src}"),
        Err(e) => e,
    }
}

/// A one-thread test whose body is `body` (parameters x, y; locals
/// declared by the body).
fn one(body: &str) -> Program {
    ok(&format!(
        "C t\n{{ x = 0; y = 0; }}\nP0(atomic_int* x, int* y) {{\n{body}\n}}\nexists (x = 0)\n"
    ))
}

/// The memory instructions and fences of thread 0.
fn accesses(p: &Program) -> Vec<&Instr> {
    p.threads[0]
        .instrs
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                InstrKind::Load { .. }
                    | InstrKind::Store { .. }
                    | InstrKind::Rmw { .. }
                    | InstrKind::Fence
            )
        })
        .collect()
}

/// Tags the `opencl` model reads besides C's own (tested in
/// `opencl_tests_have_regions_barriers_and_scope_trees`).
fn opencl_only(t: &str) -> bool {
    matches!(t, "SC0" | "SC1" | "SEQCST" | "SEMSC0" | "SEMSC1")
}

/// An instruction's tags in C's vocabulary.
fn tags(i: &Instr) -> Vec<&str> {
    i.tags
        .iter()
        .map(String::as_str)
        .filter(|t| !opencl_only(t))
        .collect()
}

fn halves(i: &Instr) -> (Vec<&str>, Vec<&str>) {
    let c = |t: &&str| !opencl_only(t);
    (
        i.event_tags(false).filter(c).collect(),
        i.event_tags(true).filter(c).collect(),
    )
}

/// The single access of a one-statement body.
fn single(body: &str) -> Instr {
    let p = one(body);
    let a = accesses(&p);
    assert_eq!(a.len(), 1, "{body}: {:?}", p.threads[0].instrs);
    a[0].clone()
}

/// `kind` at `line:col` with `needle` in the message.
fn at(e: &Error, kind: ErrorKind, line: u32, col: u32, needle: &str) {
    assert_eq!(e.kind, kind, "{e}");
    let pos = e.pos.unwrap_or_else(|| panic!("no position: {e}"));
    assert_eq!((pos.line, pos.col), (line, col), "{e}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
    assert!(e.to_string().starts_with("t.litmus:"), "{e}");
}

const MP: &str = r#"C MP
"doc string"
(* a (* nested *) comment *)
{ x = 0; [y] = 0; atomic_int z = 5; int w; }

P0@cta 0,gpu 0(int* x, atomic_int* y) {
  *x = 1; // plain
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);
}

P1@gpu 0,cta 1(int* x, atomic_int* y) {
  int r1 = atomic_load_explicit(y, memory_order_acquire, cuda::thread_scope_device);
  int r2 = 0;
  /* guarded */
  if (r1 == 1) {
    r2 = *x;
  }
}

P2(atomic_int* z) {
  int r0;
}

exists (1:r1 = 1 /\ P1:r2 = 0 /\ [z] = 5)
"#;

#[test]
fn message_passing_parses_with_placement_tags_and_condition() {
    let p = ok(MP);
    assert_eq!(p.name, "MP");
    assert_eq!(p.arch, Arch::C);
    let names: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(names, [("x", 0), ("y", 0), ("z", 5), ("w", 0)]);
    assert_eq!(p.threads.len(), 3);
    assert_eq!(p.threads[0].placement.ids, [0, 0]);
    assert_eq!(p.threads[1].placement.ids, [1, 0]);
    // Default placement: its own CTA.
    assert_eq!(p.threads[2].placement.ids, [2, 0]);
    let t0 = &p.threads[0].instrs;
    assert_eq!(t0.len(), 2);
    assert!(matches!(
        t0[0].kind,
        InstrKind::Store {
            addr: Addr::Fixed(0),
            value: Operand::Const(1)
        }
    ));
    assert_eq!(tags(&t0[0]), ["NA"]);
    assert_eq!(tags(&t0[1]), ["REL", "GPU", "A"]);
    assert_eq!((t0[1].pos.line, t0[1].pos.col), (8, 3));
    assert_eq!(
        t0[1].text,
        "atomic_store_explicit(y, 1, memory_order_release, memory_scope_device)"
    );
    let t1 = &p.threads[1].instrs;
    let InstrKind::Load { dst, addr } = &t1[0].kind else {
        panic!("{:?}", t1[0])
    };
    assert_eq!((dst.as_str(), addr), ("r1", &Addr::Fixed(1)));
    assert_eq!(tags(&t1[0]), ["ACQ", "GPU", "A"]);
    // `if (r1 == 1)` jumps over the read when r1 != 1.
    assert!(t1.iter().any(|i| matches!(
        &i.kind,
        InstrKind::Branch { op: CmpOp::Ne, a: Operand::Reg(r), b: Operand::Const(1), .. } if r == "r1"
    )));
    let plain = t1
        .iter()
        .find(|i| matches!(i.kind, InstrKind::Load { .. }) && tags(i) == ["NA"])
        .expect("the plain read");
    assert!(matches!(&plain.kind, InstrKind::Load { dst, .. } if dst == "r2"));
    assert!(p.threads[2].instrs.is_empty());
    let a = p.assertion.expect("exists");
    let terms = a.cond.terms();
    assert_eq!(
        terms,
        [
            Term::Reg(1, "r1".into()),
            Term::Reg(1, "r2".into()),
            Term::Loc(2)
        ]
    );
}

#[test]
fn orders_and_scopes_in_every_spelling() {
    let cases: &[(&str, &[&str])] = &[
        ("int r = atomic_load_explicit(x, memory_order_relaxed);", &["RLX", "SYS"]),
        ("int r = atomic_load_explicit(x, memory_order_consume);", &["ACQ", "SYS"]),
        ("int r = atomic_load_explicit(x, std::memory_order_acquire);", &["ACQ", "SYS"]),
        ("int r = atomic_load_explicit(x, cuda::std::memory_order::acquire);", &["ACQ", "SYS"]),
        ("int r = atomic_load_explicit(x, memory_order_seq_cst);", &["SC", "SYS"]),
        ("int r = atomic_load(x);", &["SC", "SYS"]),
        ("atomic_store(x, 2);", &["SC", "SYS"]),
        ("atomic_store_explicit(x, 2, memory_order_release, memory_scope_work_group);", &["REL", "CTA"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, memory_scope_device);", &["RLX", "GPU"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, memory_scope_all_svm_devices);", &["RLX", "SYS"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, memory_scope_all_devices);", &["RLX", "SYS"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, cuda::thread_scope_block);", &["RLX", "CTA"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, thread_scope_device);", &["RLX", "GPU"]),
        ("atomic_store_explicit(x, 2, memory_order_relaxed, cuda::thread_scope_system);", &["RLX", "SYS"]),
        ("atomic_thread_fence(memory_order_acq_rel);", &["F", "ACQ_REL", "SYS"]),
        ("atomic_thread_fence(memory_order_seq_cst, memory_scope_device);", &["F", "SC", "GPU"]),
        ("atomic_thread_fence(memory_order_acquire, cuda::thread_scope_block);", &["F", "ACQ", "CTA"]),
        (
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);",
            &["F", "REL", "CTA"],
        ),
    ];
    for (body, want) in cases {
        let i = single(body);
        // herd's `A`: on atomic accesses, not on fences.
        let all = tags(&i);
        assert_eq!(all.contains(&"A"), i.kind.addr().is_some(), "{body}");
        // The `opencl` model's: the region of an access (global here),
        // `SEQCST` beside `SC`.
        let has = |t: &str| i.tags.iter().any(|x| x == t);
        assert_eq!(has("SC0"), i.kind.addr().is_some(), "{body}");
        assert_eq!(has("SEQCST"), has("SC"), "{body}");
        let t: Vec<&str> = all.into_iter().filter(|t| *t != "A").collect();
        assert_eq!(t, *want, "{body}");
        assert_eq!(c_scope(&i), want.last().copied(), "{body}");
        let order = want
            .iter()
            .find(|t| !matches!(**t, "F" | "CTA" | "GPU" | "SYS"));
        assert_eq!(c_order(&i), order.copied(), "{body}");
    }
    // Plain accesses: `NA` only.
    let p = one("int r = *y; *y = r + 1;");
    for a in accesses(&p) {
        assert_eq!(tags(a), ["NA"]);
        assert_eq!((c_order(a), c_scope(a)), (None, None));
    }
}

#[test]
fn a_relaxed_fence_has_no_event() {
    assert!(accesses(&one("atomic_thread_fence(memory_order_relaxed);")).is_empty());
}

#[test]
fn rmw_orders_are_split_over_the_halves() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("memory_order_relaxed", "RLX", "RLX", "RLX"),
        ("memory_order_acquire", "ACQ", "RLX", "ACQ"),
        ("memory_order_consume", "ACQ", "RLX", "ACQ"),
        ("memory_order_release", "RLX", "REL", "REL"),
        ("memory_order_acq_rel", "ACQ", "REL", "ACQ_REL"),
        ("memory_order_seq_cst", "SC", "SC", "SC"),
    ];
    for &(order, read, write, written) in cases {
        let body =
            format!("int r = atomic_fetch_add_explicit(x, 2, {order}, memory_scope_device);");
        let i = single(&body);
        let InstrKind::Rmw {
            dst, op, operand, ..
        } = &i.kind
        else {
            panic!("{i:?}")
        };
        assert_eq!(
            (dst.as_deref(), op, operand),
            (Some("r"), &RmwOp::Add, &Operand::Const(2))
        );
        assert_eq!(tags(&i), ["GPU", "A"], "{order}");
        let (r, w) = halves(&i);
        assert_eq!(r, ["GPU", "A", read], "{order}");
        assert_eq!(w, ["GPU", "A", write], "{order}");
        assert_eq!(c_order(&i), Some(written), "{order}");
    }
    for (name, op) in [
        ("atomic_exchange", RmwOp::Exch),
        ("atomic_fetch_sub", RmwOp::Sub),
        ("atomic_fetch_and", RmwOp::And),
        ("atomic_fetch_or", RmwOp::Or),
        ("atomic_fetch_xor", RmwOp::Xor),
        ("atomic_fetch_min", RmwOp::Min),
        ("atomic_fetch_max", RmwOp::Max),
    ] {
        let i = single(&format!("{name}(x, 3);"));
        // A discarded result: no destination.
        assert!(
            matches!(&i.kind, InstrKind::Rmw { dst: None, op: o, .. } if *o == op),
            "{name}"
        );
        assert_eq!(c_order(&i), Some("SC"));
    }
}

#[test]
fn compare_exchange_with_a_local_expected_value() {
    let p = one(
        "int e = 0;\nint ok = atomic_compare_exchange_strong_explicit(x, &e, 1, memory_order_acq_rel, memory_order_acquire, memory_scope_device);",
    );
    let code = &p.threads[0].instrs;
    let rmw = code
        .iter()
        .find(|i| matches!(i.kind, InstrKind::Rmw { .. }))
        .expect("an RMW");
    let InstrKind::Rmw {
        dst: Some(old),
        op: RmwOp::Cas { expected },
        operand,
        ..
    } = &rmw.kind
    else {
        panic!("{rmw:?}")
    };
    assert_eq!(
        (expected, operand),
        (&Operand::Reg("e".into()), &Operand::Const(1))
    );
    assert_eq!(c_order(rmw), Some("ACQ_REL"));
    // ok = (old == e); on failure e = old.
    assert!(code.iter().any(|i| matches!(&i.kind, InstrKind::Local { dst, op: crate::ir::BinOp::Eq, a: Operand::Reg(a), b: Operand::Reg(b) } if dst == "ok" && a == old && b == "e")));
    assert!(code.iter().any(|i| matches!(&i.kind, InstrKind::Local { dst, a: Operand::Reg(a), .. } if dst == "e" && a == old)));
    // Its failure order is its success order's read part: no tags of its own.
    assert_eq!(rmw.failed, None);
    // Other failure orders give the read of a failed one its own tags.
    for (succ, fail, tags) in [
        ("acq_rel", "relaxed", vec!["A", "GPU", "RLX", "SC0"]),
        ("relaxed", "acquire", vec!["A", "ACQ", "GPU", "SC0"]),
        ("seq_cst", "acquire", vec!["A", "ACQ", "GPU", "SC0"]),
    ] {
        let p = one(&format!("int e = 0;\nint ok = atomic_compare_exchange_strong_explicit(x, &e, 1, memory_order_{succ}, memory_order_{fail}, memory_scope_device);"));
        let cas = accesses(&p)
            .into_iter()
            .find(|i| matches!(i.kind, InstrKind::Rmw { .. }))
            .expect("an RMW");
        let mut got = cas
            .failed
            .clone()
            .unwrap_or_else(|| panic!("{succ}/{fail}: no failure tags"));
        got.sort();
        assert_eq!(got, tags, "{succ}/{fail}");
    }
    // The weak form and the non-explicit forms are the same operation.
    let weak = one("int e = 0; atomic_compare_exchange_weak(x, &e, 1);");
    assert_eq!(accesses(&weak).len(), 1);
    assert_eq!(c_order(accesses(&weak)[0]), Some("SC"));
}

#[test]
fn compare_exchange_with_a_location_as_expected_value() {
    // herd7's form: the expected value is read from `y` (plainly) and
    // written back there on failure.
    let p = one("int ok = atomic_compare_exchange_strong(x, y, 1);");
    let a = accesses(&p);
    assert_eq!(a.len(), 3, "{a:?}");
    assert!(matches!(
        a[0].kind,
        InstrKind::Load {
            addr: Addr::Fixed(1),
            ..
        }
    ));
    assert_eq!(tags(a[0]), ["NA"]);
    assert!(matches!(
        a[1].kind,
        InstrKind::Rmw {
            addr: Addr::Fixed(0),
            ..
        }
    ));
    assert!(matches!(
        a[2].kind,
        InstrKind::Store {
            addr: Addr::Fixed(1),
            ..
        }
    ));
    assert_eq!(tags(a[2]), ["NA"]);
}

#[test]
fn expressions_locals_and_control_flow() {
    let p = one(
        "int a = 2 * 3 + 1;\nint b = -a;\nint c = (a > 1) && (b != 0);\nint d = !c || a;\na += 2;\nb++;\n--b;\nint s = (int) atomic_load(x) << 1;\nif (s) { *y = a; } else if (!(s >= 4)) *y = 2; else { *y = 3; }",
    );
    let code = &p.threads[0].instrs;
    // 2 * 3 + 1 is folded into a constant assignment.
    assert!(
        matches!(&code[0].kind, InstrKind::Local { dst, a: Operand::Const(7), b: Operand::Const(0), .. } if dst == "a")
    );
    let labels = code
        .iter()
        .filter(|i| matches!(i.kind, InstrKind::Label(_)))
        .count();
    let jumps = code
        .iter()
        .filter(|i| matches!(i.kind, InstrKind::Branch { .. } | InstrKind::Goto(_)))
        .count();
    assert!(labels >= 4 && jumps >= 4, "{code:#?}");
    assert_eq!(accesses(&p).len(), 4);
    // The locals are the condition's registers; temporaries are not.
    let src = "C t\n{}\nP0(atomic_int* x) { int a = atomic_load(x) + 1; }\nexists (0:a = 1)\n";
    assert!(ok(src).assertion.is_some());
    let e =
        err("C t\n{}\nP0(atomic_int* x) { int a = atomic_load(x) + 1; }\nexists (0:__t0 = 1)\n");
    at(&e, ErrorKind::Semantic, 4, 11, "no local variable `__t0`");
}

#[test]
fn initial_state_forms() {
    let p = ok(
        "C t\n{ x = -1; [y] = 0x10; atomic_int z; volatile int w = 3; 0:r = 4; P1:s = 5; }\nP0(int* x) { int r; *x = r; }\nP1(int* y) { int s; }\nlocations [x; 0:r; [w]]\nfilter (y = 16)\nforall (x = 4 \\/ true)\n",
    );
    let inits: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(inits, [("x", -1), ("y", 16), ("z", 0), ("w", 3)]);
    assert_eq!(p.threads[0].init_regs, [("r".to_string(), 4)]);
    assert_eq!(p.threads[1].init_regs, [("s".to_string(), 5)]);
    assert_eq!(
        p.observed,
        [Term::Loc(0), Term::Reg(0, "r".into()), Term::Loc(3)]
    );
    assert!(p.filter.is_some());
    // A location only a thread names is added, initially 0.
    let p = ok("C t\n{}\nP0(atomic_int* fresh) { atomic_store(fresh, 1); }\nexists (fresh = 1)\n");
    assert_eq!(p.locations[0].name, "fresh");
    // Threads without parameters, `void` parameters.
    ok("C t\n{}\nP0() { int a = 1; }\nP1(void) { }\nexists (0:a = 1)\n");
}

/// Errors, each with its kind and exact position.
#[test]
fn errors_have_kinds_and_positions() {
    use ErrorKind::{Semantic, Syntax, Unsupported};
    let head = "C t\n{ x = 0; }\nP0(atomic_int* x, int* y) {\n";
    let tail = "\n}\nexists (x = 0)\n";
    // (body on line 4, kind, column, message part)
    let cases: &[(&str, ErrorKind, u32, &str)] = &[
        ("  while (1) { }", Unsupported, 3, "`while`"),
        ("  for (;;) ;", Unsupported, 3, "`for`"),
        ("  return;", Unsupported, 3, "`return`"),
        ("  L: *y = 1;", Unsupported, 3, "label"),
        ("  foo(x);", Unsupported, 3, "a call to `foo`"),
        ("  READ_ONCE(*x);", Unsupported, 3, "a call to `READ_ONCE`"),
        ("  *(x + 1) = 2;", Unsupported, 4, "pointer arithmetic"),
        ("  int r = x[1];", Unsupported, 12, "array indexing"),
        ("  int *p = x;", Unsupported, 7, "pointer variables"),
        ("  int r = 1 ? 2 : 3;", Unsupported, 13, "conditional operator"),
        ("  float f = 1;", Unsupported, 3, "type `float`"),
        ("  unsigned __int128 w = 1;", Unsupported, 12, "at most 64 bits wide"),
        ("  int r = sizeof(int);", Unsupported, 11, "`sizeof`"),
        ("  int r = 1; int r = 2;", Unsupported, 18, "second declaration of `r`"),
        ("  int x = 1;", Semantic, 7, "already a parameter"),
        ("  r = 1;", Semantic, 3, "unknown variable `r`"),
        ("  int r = z;", Semantic, 11, "unknown variable `z`"),
        ("  int r = *z;", Semantic, 12, "`z` is not a parameter of P0"),
        ("  int r = x;", Semantic, 11, "`x` is a pointer"),
        ("  int r = atomic_load_explicit(x, memory_order_release);", Semantic, 35, "not a valid order"),
        ("  atomic_store_explicit(x, 1, memory_order_acquire);", Semantic, 31, "not a valid order"),
        ("  atomic_store_explicit(x, 1, 2);", Semantic, 31, "expected a memory order"),
        ("  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_sub_group);", Unsupported, 53, "sub-group"),
        ("  atomic_store_explicit(x, 1, memory_order_relaxed, cuda::thread_scope_thread);", Unsupported, 53, "single-thread scope"),
        ("  atomic_store_explicit(x, 1, memory_order_relaxed, memory_order_relaxed);", Semantic, 53, "expected a memory scope"),
        ("  atomic_store(x, 1, memory_order_relaxed);", Semantic, 3, "takes 2 arguments, found 3"),
        ("  atomic_load_explicit(x);", Semantic, 3, "takes 2 or 3 (with a scope) arguments"),
        ("  int e = 0; atomic_compare_exchange_strong_explicit(x, &e, 1, memory_order_relaxed, memory_order_release);", Semantic, 86, "failure"),
        ("  atomic_compare_exchange_strong(x, 0, 1);", Unsupported, 37, "expected argument"),
        ("  int r = atomic_store(x, 1);", Semantic, 11, "gives no value"),
        ("  int r = &r;", Unsupported, 11, "taking an address"),
        ("  int r = 1", Syntax, 1, "expected `;`"),
        ("  int r = ;", Syntax, 11, "expected an expression"),
        ("  int r = 1 $ 2;", Syntax, 13, "unexpected character `$`"),
        ("  /* never closed", Syntax, 3, "unterminated comment"),
        ("  int r = memory_order_relaxed;", Semantic, 11, "only an argument of an atomic"),
        ("  cuda::atomic<int> a;", Unsupported, 15, "templates"),
    ];
    for &(body, kind, col, needle) in cases {
        let src = format!("{head}{body}{tail}");
        let e = err(&src);
        // `int r = 1` lacks its `;`: found on the next line, `}`.
        let line = if needle == "expected `;`" { 5 } else { 4 };
        at(&e, kind, line, col, needle);
    }
}

#[test]
fn structural_errors_have_positions() {
    use ErrorKind::{Semantic, Syntax, Unsupported};
    let cases: &[(&str, ErrorKind, u32, u32, &str)] = &[
        ("C\n{}\n", Syntax, 1, 2, "missing test name"),
        (
            "C t\nP0() {}\n",
            Syntax,
            2,
            1,
            "`{` to open the initial state",
        ),
        ("C t\n\"open\n{}\n", Syntax, 2, 1, "unterminated doc string"),
        ("C t\n(* open\n{}\n", Syntax, 2, 1, "unterminated comment"),
        (
            "C t\n{ x = 0 y = 1; }\nP0() {}\n",
            Syntax,
            2,
            9,
            "expected `;`",
        ),
        (
            "C t\n{ x = 0; x = 1; }\nP0() {}\n",
            Semantic,
            2,
            10,
            "declared twice",
        ),
        (
            "C t\n{ int *p = &x; }\nP0() {}\n",
            Unsupported,
            2,
            7,
            "pointer variables",
        ),
        (
            "C t\n{ x = &y; }\nP0() {}\n",
            Unsupported,
            2,
            7,
            "pointer initial values",
        ),
        (
            "C t\n{ 3:r = 1; }\nP0() {}\n",
            Semantic,
            2,
            3,
            "does not exist",
        ),
        (
            "C t\n{ 0:r = 1; }\nP0() {}\n",
            Semantic,
            2,
            5,
            "no local variable `r`",
        ),
        ("C t\n{}\n", Syntax, 3, 1, "expected a thread function"),
        ("C t\n{}\nP1() {}\n", Semantic, 3, 1, "expected thread `P0`"),
        ("C t\n{}\nQ0() {}\n", Semantic, 3, 1, "expected thread `P0`"),
        ("C t\n{}\nP0@cta 0() {}\n", Syntax, 3, 1, "lacks `gpu`"),
        (
            "C t\n{}\nP0@warp 0() {}\n",
            Syntax,
            3,
            4,
            "unknown scope level `warp`",
        ),
        (
            "C t\n{}\nP0@cta 0,cta 1() {}\n",
            Syntax,
            3,
            10,
            "given twice",
        ),
        (
            "C t\n{}\nP0(int x) {}\n",
            Unsupported,
            3,
            4,
            "not a pointer",
        ),
        (
            "C t\n{}\nP0(int** x) {}\n",
            Unsupported,
            3,
            4,
            "pointers to pointers",
        ),
        (
            "C t\n{}\nP0(int* x, int* x) {}\n",
            Semantic,
            3,
            17,
            "given twice",
        ),
        ("C t\n{}\nP0(int* x) {\n", Syntax, 4, 1, "expected `}`"),
        (
            "C t\n{}\nP0() {}\nexists (0:r = 1)\n",
            Semantic,
            4,
            11,
            "no local variable `r`",
        ),
        (
            "C t\n{}\nP0() {}\nexists (1:r = 1)\n",
            Semantic,
            4,
            9,
            "does not exist",
        ),
        (
            "C t\n{}\nP0() {}\nexists (q = 1)\n",
            Semantic,
            4,
            9,
            "unknown location `q`",
        ),
        (
            "C t\n{}\nP0() { int r = 1; }\nexists (0:r = 1\n",
            Syntax,
            5,
            1,
            "expected `)`",
        ),
    ];
    for &(src, kind, line, col, needle) in cases {
        let e = err(src);
        assert_eq!(e.kind, kind, "{src}: {e}");
        let pos = e.pos.unwrap_or_else(|| panic!("{src}: no position: {e}"));
        assert_eq!((pos.line, pos.col), (line, col), "{src}: {e}");
        assert!(e.message.contains(needle), "{src}: `{needle}` not in {e}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let body = format!("int r = {}1{};", "(".repeat(5000), ")".repeat(5000));
    let src = format!("C t\n{{}}\nP0() {{ {body} }}\nexists (0:r = 1)\n");
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Syntax, "{e}");
    assert!(e.message.contains("nested too deeply"), "{e}");
    let ifs = format!("{}{}", "if (1) {".repeat(3000), "}".repeat(3000));
    let e = err(&format!("C t\n{{}}\nP0() {{ {ifs} }}\n"));
    assert!(e.message.contains("nested too deeply"), "{e}");
}

const OPENCL_MP: &str = r#"OpenCL MP+local
{ [x] = 0; global atomic_int y = 0; }
P0 (local int* x, global atomic_int* y) {
  *x = 1;
  atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_release, memory_scope_work_group);
  atomic_store(y, 1);
  B3: barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(0);
}
P1 (local int* x, global atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group);
  barrier(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_device);
}
P2 (global atomic_int* y) { }
scopeTree
(device (work_group P0 P1) (work_group P2))
x: local, y: global
exists (1:r0 = 1)
"#;

/// herd's and Dat3M's OpenCL tests: the header, OpenCL's default scope,
/// regions from qualifiers and the memory map (`SC0`/`SC1` on accesses,
/// `SEMSC0`/`SEMSC1` from flags), barriers and their numbers, placement
/// by `scopeTree` or `@wg, dev`, and the `opencl` model by default.
#[test]
fn opencl_tests_have_regions_barriers_and_scope_trees() {
    let p = ok(OPENCL_MP);
    assert_eq!(p.arch, Arch::C);
    assert_eq!(p.default_model.as_deref(), Some("opencl"));
    let ids: Vec<&[i64]> = p
        .threads
        .iter()
        .map(|t| t.placement.ids.as_slice())
        .collect();
    assert_eq!(ids, [&[0, 0][..], &[0, 0], &[1, 0]]);
    assert_eq!(p.locations[0].space.as_deref(), Some("shared"));
    assert_eq!(p.locations[1].space.as_deref(), Some("global"));
    fn all(i: &Instr) -> Vec<&str> {
        let mut t: Vec<&str> = i.tags.iter().map(String::as_str).collect();
        t.sort();
        t
    }
    let a = accesses(&p);
    assert_eq!(all(a[0]), ["NA", "SC1"]);
    assert_eq!(all(a[1]), ["CTA", "F", "REL", "SEMSC1"]);
    // Without a scope an OpenCL atomic is at device scope, seq_cst.
    assert_eq!(all(a[2]), ["A", "GPU", "SC", "SC0", "SEQCST"]);
    let barriers = |t: usize| -> Vec<(i64, Vec<&str>)> {
        p.threads[t]
            .instrs
            .iter()
            .filter_map(|i| match &i.kind {
                InstrKind::Barrier {
                    id: Operand::Const(id),
                    count: None,
                    arrive: false,
                } => Some((*id, all(i))),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        barriers(0),
        [
            (
                3,
                vec!["ACQ_REL", "B", "CBAR", "CTA", "F", "SEMSC0", "SEMSC1"]
            ),
            // Flags 0: a control barrier only.
            (1, vec!["B", "CBAR"]),
        ]
    );
    assert_eq!(
        barriers(1),
        [
            (0, vec!["ACQ_REL", "B", "CBAR", "CTA", "F", "SEMSC0"]),
            (1, vec!["ACQ_REL", "B", "CBAR", "F", "GPU", "SEMSC1"]),
        ]
    );
    // `@wg, dev` places as `@cta, gpu`; the `C` header keeps C's
    // default scope and model.
    let p = ok("OpenCL t\n{}\nP0@wg 2, dev 1 (global atomic_int* x) { atomic_store(x, 1); }\nexists (x = 1)\n");
    assert_eq!(p.threads[0].placement.ids, [2, 1]);
    let p = ok("C t\n{}\nP0 (atomic_int* x) { atomic_store(x, 1); }\nscopeTree (device (cta P0))\nexists (x = 1)\n");
    assert_eq!(p.default_model, None);
    assert!(accesses(&p)[0].tags.iter().any(|t| t == "SYS"));
    assert_eq!(p.locations[0].space, None);
}

#[test]
fn opencl_errors_have_positions() {
    use ErrorKind::{Semantic, Syntax, Unsupported};
    let t = "OpenCL t\n{ [x] = 0; }\n";
    let cases: &[(String, ErrorKind, u32, u32, &str)] = &[
        (
            format!("{t}P0 (local int* x) {{ *x = 1; }}\nP1 (local int* x) {{ int r = *x; }}\nscopeTree (device (work_group P0) (work_group P1))\nexists (x = 1)\n"),
            Semantic,
            4,
            29,
            "local location `x` is used by `P0` (work-group 0 of device 0) and by `P1` (work-group 1 of device 0)",
        ),
        (
            format!("{t}P0 (local int* x) {{ *x = 1; }}\nscopeTree (device (work_group P0))\nx: global\nexists (x = 1)\n"),
            Semantic,
            5,
            1,
            "`x` is in global memory here but in local memory on line 3",
        ),
        (
            format!("{t}P0 (local int* x) {{ *x = 1; }}\nscopeTree (device (work_group P0))\nx: private\nexists (x = 1)\n"),
            Unsupported,
            5,
            4,
            "memory region `private` (expected `global` or `local` or `shared`)",
        ),
        (
            format!("{t}P0@wg 0, dev 0 (int* x) {{ *x = 1; }}\nscopeTree (device (work_group P0))\nexists (x = 1)\n"),
            Semantic,
            3,
            3,
            "`P0` is placed twice",
        ),
        (
            format!("{t}P0 (int* x) {{ *x = 1; }}\nscopeTree (device (group P0))\nexists (x = 1)\n"),
            Syntax,
            4,
            20,
            "unknown scope level `group`",
        ),
        (
            format!("{t}P0@wg 0, node 0 (int* x) {{ *x = 1; }}\nexists (x = 1)\n"),
            Syntax,
            3,
            10,
            "unknown scope level `node`",
        ),
        (
            format!("{t}P0 (int* x) {{ B1: *x = 1; }}\nexists (x = 1)\n"),
            Unsupported,
            3,
            15,
            "label `B1` on something other than a barrier",
        ),
        (
            format!("{t}P0 (int* x) {{ barrier(CLK_IMAGE_MEM_FENCE); }}\nexists (x = 1)\n"),
            Unsupported,
            3,
            23,
            "images",
        ),
        (
            format!("{t}P0 (int* x) {{ barrier(CLK_LOCAL_MEM_FENCE, memory_scope_device); }}\nexists (x = 1)\n"),
            Semantic,
            3,
            15,
            "`barrier` takes 1 argument, found 2",
        ),
        (
            format!("{t}P0 (int* x) {{ atomic_work_item_fence(7, memory_order_release, memory_scope_device); }}\nexists (x = 1)\n"),
            Semantic,
            3,
            38,
            "expected fence flags",
        ),
        (
            format!("{t}P0 (global local int* x) {{ }}\nexists (x = 1)\n"),
            Semantic,
            3,
            12,
            "two different address spaces",
        ),
    ];
    for (src, kind, line, col, needle) in cases {
        at(&err(src), *kind, *line, *col, needle);
    }
}
