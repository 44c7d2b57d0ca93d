//! The standard library (`stdlib.cat`, `prelude.rs`): each name means what
//! herd7 / Dat3M say on a small hand-built execution, shadowing and lazy
//! compilation, errors inside the library, standard includes.

use super::prelude::{prelude, STANDARD_INCLUDES, TEXT};
use super::*;
use crate::diag::ErrorKind;
use std::collections::HashMap;

fn engine_base(n: &str) -> Option<BaseKind> {
    crate::vocab::base_kind(n, None)
}

fn no_includes(_: &str, _: &Path) -> Option<(PathBuf, String)> {
    None
}

fn compile(src: &str) -> crate::diag::Result<Model> {
    Model::parse(src, Path::new("m.cat"), &no_includes, &engine_base)
}

/// The execution every test evaluates on (9 events):
///
/// ```text
/// 0: IW x    1: IW y
/// T0: 2: W x   3: R x (rf 2)   4: F   5: W y
/// T1: 6: R y (rf 5)   7: R x (rf 2)   8: W x      7-8 one RMW, ctrl 6 -> 7, 8
/// co: 0 -> 2 -> 8 (and 0 -> 8), 1 -> 5
/// ```
const N: usize = 9;

fn r(ps: &[(usize, usize)]) -> Relation {
    Relation::from_pairs(N, ps.iter().copied())
}

fn s(xs: &[usize]) -> EventSet {
    EventSet::from_iter(N, xs.iter().copied())
}

fn thread(e: usize) -> Option<usize> {
    match e {
        0 | 1 => None,
        2..=5 => Some(0),
        _ => Some(1),
    }
}

fn inputs() -> HashMap<&'static str, Value> {
    let all = |f: &dyn Fn(usize, usize) -> bool| {
        let mut out = Relation::empty(N);
        for a in 0..N {
            for b in 0..N {
                if f(a, b) {
                    out.insert(a, b);
                }
            }
        }
        out
    };
    let same_thread =
        |a: usize, b: usize| thread(a) == thread(b) && (thread(a).is_some() || a == b);
    let x = [0, 2, 3, 7, 8];
    let loc = all(&|a, b| x.contains(&a) == x.contains(&b) && a != 4 && b != 4);
    let po = r(&[
        (2, 3),
        (2, 4),
        (2, 5),
        (3, 4),
        (3, 5),
        (4, 5),
        (6, 7),
        (6, 8),
        (7, 8),
    ]);
    let rf = r(&[(2, 3), (5, 6), (2, 7)]);
    let co = r(&[(0, 2), (0, 8), (2, 8), (1, 5)]);
    let fr = rf.inverse().compose(&co);
    let mut m = HashMap::new();
    m.insert("po", Value::Rel(po));
    m.insert("loc", Value::Rel(loc));
    m.insert("int", Value::Rel(all(&same_thread)));
    m.insert("ext", Value::Rel(all(&|a, b| !same_thread(a, b))));
    m.insert("rf", Value::Rel(rf));
    m.insert("co", Value::Rel(co));
    m.insert("fr", Value::Rel(fr));
    m.insert("rmw", Value::Rel(r(&[(7, 8)])));
    m.insert("ctrl", Value::Rel(r(&[(6, 7), (6, 8)])));
    m.insert("W", Value::Set(s(&[0, 1, 2, 5, 8])));
    m.insert("R", Value::Set(s(&[3, 6, 7])));
    m.insert("M", Value::Set(s(&[0, 1, 2, 3, 5, 6, 7, 8])));
    m.insert("IW", Value::Set(s(&[0, 1])));
    m.insert("F", Value::Set(s(&[4])));
    m
}

/// The value of `expr` in a model made of `prefix` and `let out = expr`.
fn eval_in(prefix: &str, expr: &str) -> Value {
    let src = format!("t\n{prefix}\nlet out = {expr}\n");
    let m = compile(&src).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let vals = inputs();
    let mut ev = m.evaluator(N);
    for (i, (name, _)) in m.inputs().iter().enumerate() {
        let v = vals
            .get(name.as_str())
            .unwrap_or_else(|| panic!("no test value for input {name}"));
        ev.set_input(i, v.clone());
    }
    ev.binding("out").expect("out is bound")
}

fn eval(expr: &str) -> Value {
    eval_in("", expr)
}

fn rel_of(v: Value) -> Relation {
    match v {
        Value::Rel(r) => r,
        other => panic!("expected a relation, got {other:?}"),
    }
}

#[test]
fn stdlib_parses_into_lets_with_distinct_names() {
    let file = parser::parse_file(TEXT).expect("stdlib parses");
    assert!(file.stmts.iter().all(|s| matches!(s, ast::Stmt::Let(_))));
    let lets: usize = file
        .stmts
        .iter()
        .map(|s| match s {
            ast::Stmt::Let(bs) => bs.len(),
            _ => 0,
        })
        .sum();
    let names: Vec<&str> = prelude().names().collect();
    assert_eq!(names.len(), lets);
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len(), "a name is defined twice");
}

#[test]
fn stdlib_names_never_hide_a_base_name() {
    for name in prelude().names() {
        assert_eq!(engine_base(name), None, "`{name}` is also a base name");
        assert_ne!(name, "id");
    }
}

#[test]
fn every_stdlib_value_compiles_against_the_engine() {
    for name in prelude().names() {
        let (_, b) = prelude().get(name, usize::MAX).expect("defined");
        if b.params.is_none() {
            compile(&format!("t\nlet out = {name}\n")).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn communication_relations() {
    let rf = [(2, 3), (5, 6), (2, 7)];
    assert_eq!(rel_of(eval("po-loc")), r(&[(2, 3), (7, 8)]));
    assert_eq!(rel_of(eval("rfe")), r(&[(5, 6), (2, 7)]));
    assert_eq!(rel_of(eval("rfi")), r(&[(2, 3)]));
    // Initial writes are external to every thread.
    assert_eq!(rel_of(eval("coe")), r(&[(0, 2), (0, 8), (2, 8), (1, 5)]));
    assert_eq!(rel_of(eval("coi")), r(&[]));
    assert_eq!(rel_of(eval("fre")), r(&[(3, 8)]));
    assert_eq!(rel_of(eval("fri")), r(&[(7, 8)]));
    let inv: Vec<_> = rf.iter().map(|&(a, b)| (b, a)).collect();
    assert_eq!(rel_of(eval("invrf")), r(&inv));
    assert_eq!(
        rel_of(eval("ca")),
        r(&[(3, 8), (7, 8), (0, 2), (0, 8), (2, 8), (1, 5)])
    );
    assert_eq!(rel_of(eval("co0")), r(&[(0, 2), (0, 8), (1, 5), (2, 8)]));
    assert_eq!(rel_of(eval("amo")), r(&[(7, 8)]));
    assert_eq!(rel_of(eval("lxsx")), r(&[]));
}

#[test]
fn sets() {
    assert_eq!(eval("emptyset"), Value::Set(s(&[])));
    assert_eq!(eval("FW"), Value::Set(s(&[5, 8])));
    assert_eq!(eval("imply(R, W)"), Value::Set(s(&[0, 1, 2, 4, 5, 8])));
}

#[test]
fn functions() {
    assert_eq!(rel_of(eval("fencerel(F)")), r(&[(2, 5), (3, 5)]));
    assert_eq!(rel_of(eval("ctrlcfence(R)")), r(&[(6, 8)]));
    let imm = r(&[(2, 3), (3, 4), (4, 5), (6, 7), (7, 8)]);
    assert_eq!(rel_of(eval("nodetour(po, po, po)")), imm);
    assert_eq!(rel_of(eval("singlestep(po)")), imm);
    let noid = rel_of(eval("noid(loc)"));
    assert!(!noid.contains(2, 2) && noid.contains(2, 3));
    assert_eq!(rel_of(eval("WW(co)")), rel_of(eval("co")));
    assert_eq!(rel_of(eval("WR(rf)")), rel_of(eval("rf")));
    assert_eq!(rel_of(eval("RW(fr)")), rel_of(eval("fr")));
    assert_eq!(rel_of(eval("RR(po)")), r(&[(6, 7)]));
    assert_eq!(rel_of(eval("RM(po)")), r(&[(3, 5), (6, 7), (6, 8), (7, 8)]));
    assert_eq!(rel_of(eval("MR(po)")), r(&[(2, 3), (6, 7)]));
    assert_eq!(rel_of(eval("WM(po)")), r(&[(2, 3), (2, 5)]));
    assert_eq!(rel_of(eval("MW(po)")), r(&[(2, 5), (3, 5), (6, 8), (7, 8)]));
    let mm = r(&[(2, 3), (2, 5), (3, 5), (6, 7), (6, 8), (7, 8)]);
    assert_eq!(rel_of(eval("MM(po)")), mm);
}

#[test]
fn a_model_definition_shadows_the_library_from_where_it_is() {
    // The model's own rfe, after its definition only.
    assert_eq!(rel_of(eval_in("let rfe = po", "rfe")), rel_of(eval("po")));
    let v = eval_in("let early = rfe\nlet rfe = po", "early");
    assert_eq!(rel_of(v), r(&[(5, 6), (2, 7)]));
    // Library definitions see the base names, not the model's (herd7 loads
    // its library before the model).
    assert_eq!(rel_of(eval_in("let rf = 0", "rfe")), r(&[(5, 6), (2, 7)]));
    // A model function of a library name.
    let v = eval_in("let fencerel(S) = [S]", "fencerel(F)");
    assert_eq!(rel_of(v), r(&[(4, 4)]));
}

#[test]
fn only_used_library_names_become_inputs() {
    let m = compile("t\nacyclic po").unwrap();
    let names: Vec<_> = m.inputs().iter().map(|i| i.0.as_str()).collect();
    assert_eq!(names, ["po"]);
    let m = compile("t\nacyclic rfe | po-loc").unwrap();
    let mut names: Vec<_> = m.inputs().iter().map(|i| i.0.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["ext", "loc", "po", "rf"]);
}

#[test]
fn library_names_compile_inside_recursion_and_functions() {
    // First use inside a `let rec` (whose rounds are rolled back) and inside
    // a model function (checked once, then expanded).
    let src = "let rec hb = rfe | (hb; po-loc; hb)\nlet f(x) = x | fre\nlet out = f(hb)";
    let v = rel_of(eval_in(src, "out"));
    assert!(v.contains(5, 6) && v.contains(3, 8));
}

fn err(src: &str) -> crate::diag::Error {
    match compile(src) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(e) => e,
    }
}

#[test]
fn errors_inside_the_library_point_at_the_use() {
    // A base name the library needs is missing: reported where the model
    // uses the library name.
    let base = |n: &str| (n == "rf").then_some(BaseKind::Relation);
    let e = Model::parse("t\n\nacyclic  rfe", Path::new("m.cat"), &no_includes, &base)
        .expect_err("ext is missing");
    assert_eq!(e.pos, Some(Pos { line: 3, col: 10 }), "{e}");
    assert_eq!(e.file.as_deref(), Some(Path::new("m.cat")));
    assert!(e.message.contains("unknown identifier `ext`"), "{e}");
    assert!(e.message.contains("definition of `rfe`"), "{e}");
    // A wrong argument type inside a library function: at the call.
    let e = err("t\nacyclic fencerel(rf)");
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert_eq!(e.pos, Some(Pos { line: 2, col: 9 }), "{e}");
    assert!(
        e.message.contains("`fencerel`") && e.message.contains("type error"),
        "{e}"
    );
    // Arity, and values versus functions.
    assert!(err("t\nacyclic fencerel(F, F)")
        .message
        .contains("takes 1 argument"));
    assert!(err("t\nacyclic rfe(F)").message.contains("not a function"));
    assert!(err("t\nacyclic fencerel").message.contains("is a function"));
}

#[test]
fn herd_and_dat3m_builtins_we_lack_are_unsupported() {
    for (src, col) in [("t\nacyclic classes-loc(loc)", 9), ("t\nacyclic sdv", 9)] {
        let e = err(src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{e}");
        assert!(e.message.starts_with("unsupported: "), "{e}");
        assert_eq!(e.pos, Some(Pos { line: 2, col }), "{e}");
    }
    let e = err("t\nacyclic no-such-name");
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert!(e.message.contains("unknown identifier"), "{e}");
}

#[test]
fn standard_includes_resolve_to_the_library() {
    for f in STANDARD_INCLUDES {
        let m = compile(&format!("t\ninclude \"{f}\"\nacyclic fre | po-loc"))
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(m.axioms().len(), 1);
    }
    // A file that is really missing is still an error.
    let e = err("t\ninclude \"cross.cat\"\nacyclic po");
    assert_eq!(e.pos, Some(Pos { line: 2, col: 1 }));
    assert!(e.message.contains("cannot find included file"), "{e}");
    // A file the resolver supplies under a standard name wins.
    let res = |name: &str, _: &Path| {
        (name == "cos.cat").then(|| {
            (
                PathBuf::from("lib/cos.cat"),
                "c\nacyclic po as mine\n".into(),
            )
        })
    };
    let m = Model::parse(
        "t\ninclude \"cos.cat\"",
        Path::new("m.cat"),
        &res,
        &engine_base,
    )
    .expect("parses");
    assert_eq!(m.axioms()[0].name, "mine");
}
