use super::ast::{ExprKind, Stmt, Test};
use super::lexer::{lex, Kw, Tok};
use super::parser::{parse_expr, parse_file};
use super::*;
use crate::diag::{Error, ErrorKind};
use crate::ir::{Arch, Coherence};
use std::collections::HashMap;

// ---------- helpers ----------

const SETS: &[&str] = &[
    "R", "W", "M", "F", "IW", "A", "B", "ACQ", "REL", "SC", "X", "RMW",
];
const RELS: &[&str] = &[
    "po", "rf", "co", "fr", "loc", "r", "s", "t", "ext", "int", "rmw", "vloc", "sr",
];

fn base(name: &str) -> Option<BaseKind> {
    if SETS.contains(&name) {
        Some(BaseKind::Set)
    } else if RELS.contains(&name) {
        Some(BaseKind::Relation)
    } else {
        None
    }
}

fn no_includes(_: &str, _: &Path) -> Option<(PathBuf, String)> {
    None
}

fn model(src: &str) -> Model {
    match Model::parse(src, Path::new("test.cat"), &no_includes, &base) {
        Ok(m) => m,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn err(src: &str) -> Error {
    match Model::parse(src, Path::new("test.cat"), &no_includes, &base) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(e) => e,
    }
}

/// Asserts an error's kind, `line:col` and a fragment of its message.
fn assert_err(src: &str, kind: ErrorKind, line: u32, col: u32, msg: &str) {
    let e = err(src);
    assert_eq!(e.kind, kind, "{e}");
    assert_eq!(e.pos, Some(Pos { line, col }), "{e}");
    assert_eq!(e.file.as_deref(), Some(Path::new("test.cat")), "{e}");
    assert!(
        e.message.contains(msg),
        "message {:?} lacks {msg:?}",
        e.message
    );
}

fn p(s: &str) -> String {
    match parse_expr(s) {
        Ok(e) => e.to_string(),
        Err(e) => panic!("{s}: {e}"),
    }
}

fn rel(n: usize, ps: &[(usize, usize)]) -> Value {
    Value::Rel(Relation::from_pairs(n, ps.iter().copied()))
}

fn set(n: usize, xs: &[usize]) -> Value {
    Value::Set(EventSet::from_iter(n, xs.iter().copied()))
}

fn set_named(m: &Model, ev: &mut Evaluator<'_>, name: &str, v: Value) {
    let i = m
        .input_index(name)
        .unwrap_or_else(|| panic!("no input {name}"));
    ev.set_input(i, v);
}

fn as_rel(v: Option<Value>) -> Relation {
    match v {
        Some(Value::Rel(r)) => r,
        other => panic!("expected a relation, got {other:?}"),
    }
}

// ---------- lexer ----------

#[test]
fn lexer_tokens_and_comments() {
    let src = "let po-loc = (* a (* nested *) comment *) po & loc // tail\n\
               r^-1;co* | 0 _ \"s.cat\" non-rmw-reads v7.5 /* c */ ~";
    let toks: Vec<Tok> = lex(src)
        .unwrap()
        .tokens
        .into_iter()
        .map(|t| t.tok)
        .collect();
    let id = |s: &str| Tok::Ident(s.to_string());
    assert_eq!(
        toks,
        vec![
            Tok::Kw(Kw::Let),
            id("po-loc"),
            Tok::Eq,
            id("po"),
            Tok::Amp,
            id("loc"),
            id("r"),
            Tok::Hat,
            Tok::MinusOne,
            Tok::Semi,
            id("co"),
            Tok::Star,
            Tok::Bar,
            Tok::Zero,
            Tok::Underscore,
            Tok::Str("s.cat".into()),
            id("non-rmw-reads"),
            id("v7.5"),
            Tok::Tilde,
            Tok::Eof,
        ]
    );
    let lexed = lex("a // gpumc: partial-co\nb").unwrap();
    assert_eq!(
        lexed.line_comments,
        vec![(Pos { line: 1, col: 3 }, " gpumc: partial-co".to_string())]
    );
    let t = &lex("\n  (* x *) foo").unwrap().tokens[0];
    assert_eq!(t.pos, Pos { line: 2, col: 11 });
}

#[test]
fn lexer_errors() {
    let e = lex("a (* never (* closed *)").unwrap_err();
    assert_eq!(e.pos, Some(Pos { line: 1, col: 3 }));
    assert!(e.message.contains("unterminated comment"));
    let e = lex("x\n  \"abc").unwrap_err();
    assert_eq!(e.pos, Some(Pos { line: 2, col: 3 }));
    let e = lex("a $ b").unwrap_err();
    assert_eq!(e.pos, Some(Pos { line: 1, col: 3 }));
    assert!(e.message.contains("`$`"));
}

// ---------- parser ----------

#[test]
fn precedence() {
    assert_eq!(
        p("a | b ; c \\ d & e * f"),
        "(a | (b ; (c \\ (d & (e * f)))))"
    );
    assert_eq!(
        p("a * b & c \\ d ; e | f"),
        "(((((a * b) & c) \\ d) ; e) | f)"
    );
    assert_eq!(p("a ; b | c"), "((a ; b) | c)");
    assert_eq!(p("a | b | c"), "(a | b | c)");
    assert_eq!(p("a \\ b \\ c"), "(a \\ b \\ c)");
    assert_eq!(p("a & b \\ c"), "((a & b) \\ c)");
    assert_eq!(p("~a * b"), "((~a) * b)");
    assert_eq!(p("~r+"), "(~(r+))");
    assert_eq!(p("~r^-1"), "(~(r^-1))");
    assert_eq!(p("(~r)+"), "((~r)+)");
    assert_eq!(p("~a | b"), "((~a) | b)");
    assert_eq!(p("[W]; po; [R]"), "([W] ; po ; [R])");
    assert_eq!(p("[W \\ IW]"), "[(W \\ IW)]");
    assert_eq!(p("f(a, b | c)"), "f(a, (b | c))");
    assert_eq!(p("domain(r) * range(r)"), "(domain(r) * range(r))");
    assert_eq!(p("begin a | b end ; c"), "((a | b) ; c)");
}

#[test]
fn postfix_versus_binary_star() {
    assert_eq!(p("r*"), "(r*)");
    assert_eq!(p("r* | s"), "((r*) | s)");
    assert_eq!(p("r*;s"), "((r*) ; s)");
    assert_eq!(p("A * B"), "(A * B)");
    assert_eq!(p("A*B"), "(A * B)");
    assert_eq!(p("r * (s)"), "(r * s)");
    assert_eq!(p("r* [W]"), "(r * [W])");
    assert_eq!(p("A * ~B"), "(A * (~B))");
    assert_eq!(p("A * _"), "(A * _)");
    assert_eq!(p("_ * 0"), "(_ * 0)");
    assert_eq!(p("r**"), "((r*)*)");
    assert_eq!(p("r** s"), "((r*) * s)");
    assert_eq!(p("(r)*"), "(r*)");
    assert_eq!(p("r^*"), "(r*)");
    assert_eq!(p("r^+"), "(r+)");
    assert_eq!(p("r^-1^+?"), "(((r^-1)+)?)");
    assert_eq!(p("r+*?"), "(((r+)*)?)");
    // The Vulkan model writes a product across two lines.
    assert_eq!(p("(M | F) *\n  (M | F)"), "((M | F) * (M | F))");
}

#[test]
fn statements() {
    let src = "\"Vulkan\"\n\
        (* comment *)\n\
        let a = po and b = rf\n\
        let rec t = r | (t ; r) and u = t\n\
        let f(x, y) = x ; y\n\
        let g x = x+\n\
        show a, b as bee\n\
        unshow a\n\
        acyclic a as ax1\n\
        irreflexive b\n\
        empty a \\ b\n\
        ~empty a\n\
        flag ~empty b as race\n\
        include \"x.cat\"\n";
    let f = parse_file(src).unwrap();
    assert_eq!(f.name.as_deref(), Some("Vulkan"));
    assert_eq!(f.coherence, None);
    assert_eq!(f.stmts.len(), 10);
    match &f.stmts[0] {
        Stmt::Let(bs) => {
            assert_eq!(bs.len(), 2);
            assert_eq!(bs[1].name, "b");
            assert_eq!(bs[1].pos, Pos { line: 3, col: 16 });
        }
        s => panic!("{s:?}"),
    }
    assert!(matches!(&f.stmts[1], Stmt::LetRec(bs) if bs.len() == 2));
    match &f.stmts[2] {
        Stmt::Let(bs) => {
            let ps = bs[0].params.as_ref().unwrap();
            assert_eq!(
                ps.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
                ["x", "y"]
            );
        }
        s => panic!("{s:?}"),
    }
    assert!(matches!(&f.stmts[3], Stmt::Let(bs) if bs[0].params.as_ref().unwrap().len() == 1));
    let axioms: Vec<_> = f.stmts[4..9]
        .iter()
        .map(|s| match s {
            Stmt::Axiom {
                flag,
                negated,
                test,
                name,
                text,
                pos,
                ..
            } => (*flag, *negated, *test, name.clone(), text.clone(), *pos),
            s => panic!("{s:?}"),
        })
        .collect();
    assert_eq!(
        axioms[0],
        (
            false,
            false,
            Test::Acyclic,
            Some("ax1".into()),
            "a".into(),
            Pos { line: 9, col: 1 }
        )
    );
    assert_eq!(axioms[2].4, "a \\ b");
    assert!(axioms[3].1);
    assert_eq!(
        axioms[4],
        (
            true,
            true,
            Test::Empty,
            Some("race".into()),
            "b".into(),
            Pos { line: 13, col: 1 }
        )
    );
    assert!(
        matches!(&f.stmts[9], Stmt::Include { file, pos } if file == "x.cat" && pos.line == 14)
    );
}

#[test]
fn headers() {
    let name = |s: &str| parse_file(s).unwrap().name;
    assert_eq!(name("PTX\nlet a = po"), Some("PTX".into()));
    assert_eq!(
        name("PTX v7.5 (mixed proxies)\nlet a = po"),
        Some("PTX v7.5 (mixed proxies)".into())
    );
    assert_eq!(
        name("PTX \"ptx-v7.5\"\nlet a = po"),
        Some("ptx-v7.5".into())
    );
    assert_eq!(name("let a = po"), None);
    assert_eq!(name("(* c *) acyclic po"), None);
    assert_eq!(name(""), None);
    assert_eq!(name("Name\n\"long name\"\nacyclic po"), Some("Name".into()));
    assert_eq!(parse_file("X\nlet a = po").unwrap().stmts.len(), 1);
    assert_eq!(name("Name\nOther\nacyclic po"), Some("Name".into()));
    // Words after the name are statements: a misspelt axiom is an error,
    // not part of the name (which would drop the axiom).
    let e = parse_file("\"SC\"\nacylic po | rf").unwrap_err();
    assert_eq!((e.pos.unwrap().line, e.pos.unwrap().col), (2, 1), "{e}");
    assert!(parse_file("\"SC\"\nsubset po po").is_err());
    assert!(parse_file("PTX\n\"long\"\nacylic po").is_err());
}

/// herd7 applies a function by juxtaposition (`domain 0` in its own
/// library, `fencerel F`): the same call as with parentheses.
#[test]
fn application_by_juxtaposition() {
    let same = |a: &str, b: &str| assert_eq!(p(a), p(b), "{a} vs {b}");
    same("fencerel F", "fencerel(F)");
    same("domain 0", "domain(0)");
    same("range [W]", "range([W])");
    same("domain rmw ; po | rf", "(domain(rmw) ; po) | rf");
    same("fencerel F^-1", "(fencerel(F))^-1");
    // The statement after an expression still starts a new statement.
    assert_eq!(
        parse_file("\"m\"\nlet x = po\nacyclic x")
            .unwrap()
            .stmts
            .len(),
        2
    );
}

/// herd7's lexer: `#` starts a line comment like `//`, and a name may end
/// with a prime (`com'`).
#[test]
fn herd_comments_and_primed_names() {
    let f = parse_file("\"m\" # title\n# comment\nlet com' = rf # rest\nacyclic po | com' as sc")
        .unwrap();
    assert_eq!(f.name, Some("m".into()));
    assert_eq!(f.stmts.len(), 2);
    assert!(matches!(&f.stmts[0], Stmt::Let(b) if b[0].name == "com'"));
    // A quote that starts a token is still a tag literal.
    let e = parse_file("\"m\"\nlet x = 'foo").unwrap_err();
    assert!(e.message.contains("tag literals"), "{e}");
}

/// Runs `f` on a thread with a 2 MiB stack (the test-thread default).
fn on_small_stack(f: impl FnOnce() + Send + 'static) -> bool {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .is_ok()
}

#[test]
fn deep_models_fit_a_small_stack() {
    // Maximal bracket nesting.
    let k = super::parser::MAX_DEPTH as usize - 1;
    let src = format!(
        "let x = {}po{}\nacyclic x",
        "(po | ".repeat(k),
        ")".repeat(k)
    );
    assert!(on_small_stack(move || {
        let m = Model::parse(&src, Path::new("t.cat"), &no_includes, &base).unwrap();
        let mut ev = m.evaluator(2);
        assert_eq!(ev.first_violation(), None);
    }));
    // Functions nesting deep expressions in each other: an error, not a
    // stack overflow.
    let mut src = String::from("let f0(x) = x\n");
    for i in 1..60 {
        src.push_str(&format!(
            "let f{i}(x) = {}f{}(x){}\n",
            "(po | ".repeat(150),
            i - 1,
            ")".repeat(150)
        ));
    }
    src.push_str("acyclic f59(po)");
    assert!(on_small_stack(move || {
        let e = Model::parse(&src, Path::new("t.cat"), &no_includes, &base).unwrap_err();
        assert!(
            e.message
                .contains("nested too deeply once functions are expanded"),
            "{e}"
        );
    }));
}

#[test]
fn exponential_function_expansion_is_bounded() {
    let mut src = String::from("let f0(x) = x ; po\n");
    for i in 1..40 {
        src.push_str(&format!(
            "let f{i}(x) = f{}(x) | f{}(x ; rf)\n",
            i - 1,
            i - 1
        ));
    }
    src.push_str("acyclic f39(po)");
    let start = std::time::Instant::now();
    let e = err(&src);
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("model too large"), "{e}");
    assert!(start.elapsed().as_secs() < 30);
}

#[test]
fn depth_limits_are_errors() {
    let deep = format!("let x = {}po{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = err(&deep);
    assert_eq!(e.kind, ErrorKind::Syntax);
    assert!(e.message.contains("nested too deeply"));
    let tildes = format!("let x = {}po", "~".repeat(10_000));
    assert!(err(&tildes).message.contains("nested too deeply"));
    let posts = format!("let x = po{}", "?".repeat(10_000));
    assert!(err(&posts).message.contains("nested too deeply"));
    // Long flat chains are fine.
    let wide = format!("let x = po{}\nacyclic x", " | po".repeat(50_000));
    model(&wide);
}

// ---------- errors with positions ----------

#[test]
fn syntax_errors() {
    assert_err(
        "let x = po |",
        ErrorKind::Syntax,
        1,
        13,
        "expected an expression, found end of file",
    );
    assert_err(
        "let x = (po | rf\nacyclic x",
        ErrorKind::Syntax,
        2,
        1,
        "expected `)` to close the `(` at 1:9",
    );
    assert_err(
        "let x = [W\n",
        ErrorKind::Syntax,
        2,
        1,
        "to close the `[` at 1:9",
    );
    assert_err(
        "let = po",
        ErrorKind::Syntax,
        1,
        5,
        "expected a name to bind",
    );
    assert_err(
        "let x po",
        ErrorKind::Syntax,
        1,
        9,
        "expected `=` in a `let` binding, found end of file",
    );
    // herd7 reads two names in a row as an application `po(rf)`.
    assert_err(
        "acyclic po rf",
        ErrorKind::Semantic,
        1,
        9,
        "`po` is not a function (an operator missing after it?)",
    );
    assert_err(
        "acyclic rf | co ; po rf",
        ErrorKind::Semantic,
        1,
        19,
        "`po` is not a function",
    );
    assert_err(
        "acyclic (po | rf) co",
        ErrorKind::Syntax,
        1,
        19,
        "expected an operator or the start of a statement",
    );
    assert_err(
        "X\n\n   = po",
        ErrorKind::Syntax,
        3,
        4,
        "expected a statement",
    );
    assert_err(
        "let x = r^2",
        ErrorKind::Syntax,
        1,
        11,
        "expected `-1`, `+` or `*` after `^`",
    );
    assert_err(
        "acyclic po as",
        ErrorKind::Syntax,
        1,
        14,
        "expected an axiom name after `as`",
    );
    assert_err(
        "flag acyclic",
        ErrorKind::Syntax,
        1,
        13,
        "expected an expression",
    );
    assert_err(
        "flag let",
        ErrorKind::Syntax,
        1,
        6,
        "expected `acyclic`, `irreflexive` or `empty`",
    );
    assert_err(
        "include po",
        ErrorKind::Syntax,
        1,
        9,
        "expected a file name string",
    );
    assert_err(
        "let x = po (* open",
        ErrorKind::Syntax,
        1,
        12,
        "unterminated comment",
    );
}

#[test]
fn unsupported_constructs() {
    assert_err(
        "procedure p() = acyclic po end",
        ErrorKind::Unsupported,
        1,
        1,
        "`procedure` statements",
    );
    assert_err(
        "let x = po\ncall p(x)",
        ErrorKind::Unsupported,
        2,
        1,
        "`call`",
    );
    assert_err("with co from x", ErrorKind::Unsupported, 1, 1, "`with`");
    assert_err("~acyclic po", ErrorKind::Unsupported, 1, 2, "negated");
    assert_err(
        "let x = po in x",
        ErrorKind::Unsupported,
        1,
        12,
        "`let ... in`",
    );
    assert_err("let x = {}", ErrorKind::Unsupported, 1, 9, "explicit sets");
    assert_err("let x = W ++ R", ErrorKind::Unsupported, 1, 11, "`++`");
    assert_err("let x = (po, rf)", ErrorKind::Unsupported, 1, 12, "tuples");
    assert_err(
        "let rec f(x) = x",
        ErrorKind::Unsupported,
        1,
        9,
        "recursive functions",
    );
    assert_err(
        "requires empty po",
        ErrorKind::Unsupported,
        1,
        1,
        "undefined-behaviour",
    );
    assert_err("let x = 'tag", ErrorKind::Unsupported, 1, 9, "tag literals");
    assert_err(
        "let rec x = po \\ x",
        ErrorKind::Unsupported,
        1,
        16,
        "non-monotone recursion",
    );
    assert_err(
        "let rec x = ~x | po",
        ErrorKind::Unsupported,
        1,
        13,
        "non-monotone",
    );
    // Through a function, too.
    assert_err(
        "let neg(a) = ~a\nlet rec x = neg(x) | po",
        ErrorKind::Unsupported,
        1,
        14,
        "non-monotone",
    );
}

#[test]
fn type_errors() {
    assert_err(
        "let x = W | po",
        ErrorKind::Semantic,
        1,
        11,
        "`|` needs two sets or two relations",
    );
    assert_err(
        "let x = po & W",
        ErrorKind::Semantic,
        1,
        12,
        "left operand is a relation and its right operand a set",
    );
    assert_err("let x = W \\ po", ErrorKind::Semantic, 1, 11, "`\\`");
    assert_err(
        "let x = W ; po",
        ErrorKind::Semantic,
        1,
        11,
        "the left operand of `;` expects a relation, but its operand is a set",
    );
    assert_err(
        "let x = po * W",
        ErrorKind::Semantic,
        1,
        12,
        "product `*` expects a set",
    );
    assert_err(
        "let x = [po]",
        ErrorKind::Semantic,
        1,
        9,
        "`[...]` expects a set",
    );
    assert_err(
        "let x = W+",
        ErrorKind::Semantic,
        1,
        10,
        "`+` expects a relation",
    );
    assert_err(
        "let x = W^-1",
        ErrorKind::Semantic,
        1,
        10,
        "`^-1` expects a relation",
    );
    assert_err(
        "let x = domain(W)",
        ErrorKind::Semantic,
        1,
        9,
        "`domain` expects a relation",
    );
    assert_err(
        "\nacyclic  W | R",
        ErrorKind::Semantic,
        2,
        10,
        "`acyclic` expects a relation",
    );
    assert_err("irreflexive [W] ; W", ErrorKind::Semantic, 1, 17, "`;`");
    assert_err(
        "let s = W\nlet x = s | po",
        ErrorKind::Semantic,
        2,
        11,
        "`|`",
    );
    assert_err(
        "let f(a) = a | W\nlet x = f(po)",
        ErrorKind::Semantic,
        1,
        14,
        "`|`",
    );
    assert_err(
        "let rec x = W | y and y = x ; po",
        ErrorKind::Semantic,
        1,
        15,
        "`|`",
    );
    // `_` and `0` adapt to either kind.
    model("let a = W | 0\nlet b = po | 0 | _\nlet c = (_ \\ 0) & W\nlet d = [_] ; po ; [0]\nlet e = _ * _ \\ po\nlet f = ~0 & po\nacyclic e");
}

#[test]
fn name_errors() {
    assert_err(
        "let x = po | foo",
        ErrorKind::Semantic,
        1,
        14,
        "unknown identifier `foo`",
    );
    assert_err(
        "let x = po\nacyclic x | y",
        ErrorKind::Semantic,
        2,
        13,
        "unknown identifier `y`",
    );
    assert_err(
        "let f(a) = a\nlet x = f",
        ErrorKind::Semantic,
        2,
        9,
        "`f` is a function",
    );
    assert_err(
        "let x = po\nlet y = x(po)",
        ErrorKind::Semantic,
        2,
        9,
        "`x` is not a function",
    );
    assert_err(
        "let y = nofun(po)",
        ErrorKind::Semantic,
        1,
        9,
        "unknown function `nofun`",
    );
    assert_err(
        "let f(a, b) = a\nlet y = f(po)",
        ErrorKind::Semantic,
        2,
        9,
        "takes 2 arguments, but 1 were given",
    );
    assert_err(
        "let y = domain(po, rf)",
        ErrorKind::Semantic,
        1,
        9,
        "takes 1 argument",
    );
    assert_err(
        "let f(a, a) = a",
        ErrorKind::Semantic,
        1,
        10,
        "appears twice",
    );
    assert_err(
        "let rec a = po and a = rf",
        ErrorKind::Semantic,
        1,
        20,
        "defined twice",
    );
    // A function does not see itself nor later definitions.
    assert_err(
        "let f(a) = f(a)",
        ErrorKind::Semantic,
        1,
        12,
        "unknown function `f`",
    );
    assert_err(
        "let f(a) = a | later\nlet later = po\nlet x = f(po)",
        ErrorKind::Semantic,
        1,
        16,
        "unknown identifier `later`",
    );
}

// ---------- evaluation ----------

#[test]
fn let_rec_computes_transitive_closure() {
    let m = model("let rec t = r | (t ; r)\nlet p = r+\nempty t \\ p\nempty p \\ t");
    let mut ev = m.evaluator(6);
    set_named(
        &m,
        &mut ev,
        "r",
        rel(6, &[(0, 1), (1, 2), (2, 3), (3, 1), (4, 5)]),
    );
    assert_eq!(ev.first_violation(), None);
    let t = as_rel(ev.binding("t"));
    let p = as_rel(ev.binding("p"));
    assert_eq!(t, p);
    assert!(t.contains(0, 3) && t.contains(1, 1) && !t.contains(4, 0));
}

#[test]
fn mutual_recursion_and_sets() {
    // even / odd path lengths, and a recursive set (reachability from A).
    let src = "let rec ev = id | (od ; r) and od = ev ; r\n\
               let rec reach = A | range([reach] ; r)\n\
               let rec z = z";
    let m = model(src);
    let mut ev = m.evaluator(5);
    set_named(&m, &mut ev, "r", rel(5, &[(0, 1), (1, 2), (2, 3)]));
    set_named(&m, &mut ev, "A", set(5, &[1]));
    let e = as_rel(ev.binding("ev"));
    let o = as_rel(ev.binding("od"));
    assert!(e.contains(0, 2) && e.contains(4, 4) && !e.contains(0, 1));
    assert!(o.contains(0, 1) && o.contains(0, 3) && !o.contains(0, 2));
    assert_eq!(ev.binding("reach"), Some(set(5, &[1, 2, 3])));
    assert_eq!(ev.binding("z"), Some(rel(5, &[])));
}

#[test]
fn operators_evaluate_correctly() {
    let n = 4;
    let src = "let u = r | s\nlet i = r & s\nlet d = r \\ s\nlet c = ~r\nlet q = r ; s\n\
               let inv = r^-1\nlet pl = r+\nlet st = r*\nlet op = r?\nlet idw = [W]\n\
               let pr = W * R\nlet dm = domain(r)\nlet rg = range(r)\nlet sc = ~W\n\
               let su = W | R\nlet si = W & R\nlet sd = W \\ R\nlet full = _ * _\nlet un = _\n\
               let ti = toid(W)\nlet emp = 0\nlet rid = id";
    let m = model(src);
    let r = Relation::from_pairs(n, [(0, 1), (1, 2), (2, 2)]);
    let s = Relation::from_pairs(n, [(1, 2), (2, 3)]);
    let w = EventSet::from_iter(n, [0, 2]);
    let rr = EventSet::from_iter(n, [2, 3]);
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "r", Value::Rel(r.clone()));
    set_named(&m, &mut ev, "s", Value::Rel(s.clone()));
    set_named(&m, &mut ev, "W", Value::Set(w.clone()));
    set_named(&m, &mut ev, "R", Value::Set(rr.clone()));
    let full = Relation::identity(n)
        .complement()
        .union(&Relation::identity(n));
    let expect: Vec<(&str, Value)> = vec![
        ("u", Value::Rel(r.union(&s))),
        ("i", Value::Rel(r.intersection(&s))),
        ("d", Value::Rel(r.difference(&s))),
        ("c", Value::Rel(r.complement())),
        ("q", Value::Rel(r.compose(&s))),
        ("inv", Value::Rel(r.inverse())),
        ("pl", Value::Rel(r.transitive_closure())),
        ("st", Value::Rel(r.reflexive_transitive_closure())),
        ("op", Value::Rel(r.reflexive_closure())),
        ("idw", Value::Rel(Relation::identity_on(&w))),
        ("pr", Value::Rel(Relation::product(&w, &rr))),
        ("dm", Value::Set(r.domain())),
        ("rg", Value::Set(r.range())),
        ("sc", Value::Set(w.complement())),
        ("su", Value::Set(w.union(&rr))),
        ("si", Value::Set(w.intersection(&rr))),
        ("sd", Value::Set(w.difference(&rr))),
        ("full", Value::Rel(full.clone())),
        ("un", Value::Rel(full)),
        ("ti", Value::Rel(Relation::identity_on(&w))),
        ("emp", Value::Rel(Relation::empty(n))),
        ("rid", Value::Rel(Relation::identity(n))),
    ];
    for (name, v) in expect {
        assert_eq!(ev.binding(name), Some(v), "{name}");
    }
    assert_eq!(ev.binding("nope"), None);
    assert_eq!(ev.binding("r"), Some(Value::Rel(r)));
}

#[test]
fn axioms_and_first_violation() {
    let src = "PTX\n\
               acyclic po as ax-po\n\
               irreflexive r\n\
               empty s\n\
               ~empty t\n\
               flag ~empty s as race\n\
               flag empty t";
    let m = model(src);
    assert_eq!(m.name(), "PTX");
    let kinds: Vec<_> = m
        .axioms()
        .iter()
        .map(|a| (a.name.as_str(), a.kind, a.flag))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("ax-po", AxiomKind::Acyclic, false),
            ("r", AxiomKind::Irreflexive, false),
            ("s", AxiomKind::Empty, false),
            ("t", AxiomKind::NotEmpty, false),
            ("race", AxiomKind::NotEmpty, true),
            ("t", AxiomKind::Empty, true),
        ]
    );
    assert_eq!(m.axioms()[1].pos, Pos { line: 3, col: 1 });
    let n = 3;
    let mut ev = m.evaluator(n);
    // Everything empty: `~empty t` fails.
    assert_eq!(ev.first_violation(), Some(3));
    set_named(&m, &mut ev, "t", rel(n, &[(0, 1)]));
    assert_eq!(ev.first_violation(), None);
    assert_eq!(ev.flag(4), None);
    assert_eq!(ev.flag(5), None);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1), (1, 0)]));
    assert_eq!(ev.first_violation(), Some(0));
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1)]));
    set_named(&m, &mut ev, "r", rel(n, &[(2, 2)]));
    assert_eq!(ev.first_violation(), Some(1));
    set_named(&m, &mut ev, "r", rel(n, &[(2, 1)]));
    set_named(&m, &mut ev, "s", rel(n, &[(2, 1)]));
    assert_eq!(ev.first_violation(), Some(2));
    assert_eq!(ev.flag(4), Some(rel(n, &[(2, 1)])));
    set_named(&m, &mut ev, "t", rel(n, &[]));
    assert_eq!(ev.flag(5), Some(rel(n, &[])));
    // Out-of-range axioms are not a panic.
    assert_eq!(ev.flag(99), None);
}

#[test]
fn shadowing_uses_the_base_value_first() {
    let m = model("let co = co+\nlet fr = rf^-1 ; co\nlet co = co | fr\nacyclic co");
    let names: Vec<_> = m.inputs().iter().map(|(n, k)| (n.as_str(), *k)).collect();
    assert_eq!(
        names,
        vec![("co", BaseKind::Relation), ("rf", BaseKind::Relation)]
    );
    let n = 4;
    let mut ev = m.evaluator(n);
    ev.set_input(0, rel(n, &[(0, 1), (1, 2)]));
    ev.set_input(1, rel(n, &[(0, 3)]));
    assert_eq!(ev.first_violation(), None);
    let fr = as_rel(ev.binding("fr"));
    assert_eq!(fr, Relation::from_pairs(n, [(3, 1), (3, 2)]));
    let co = as_rel(ev.binding("co"));
    assert!(co.contains(0, 2) && co.contains(3, 1));
}

/// Names are found through an index by name (a scan per lookup was
/// quadratic): a later `let` still shadows, a function still sees only
/// the definitions before it, and a `let rec`'s trial rounds and a
/// function's check, both rolled back, leave no name behind.
#[test]
fn the_name_index_keeps_shadowing_and_function_scopes() {
    let src = "let a = po\n\
               let f(x) = a | x\n\
               let a = rf\n\
               let g(x) = a | x\n\
               let fa = f(0)\n\
               let ga = g(0)\n\
               let rec r = a | r ; a\n\
               let a = a | co\n\
               let ra = r\n\
               let aa = a\n\
               acyclic aa";
    let m = model(src);
    let n = 3;
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1)]));
    set_named(&m, &mut ev, "rf", rel(n, &[(1, 2)]));
    set_named(&m, &mut ev, "co", rel(n, &[(2, 1)]));
    assert_eq!(ev.first_violation(), Some(0));
    assert_eq!(as_rel(ev.binding("fa")), Relation::from_pairs(n, [(0, 1)]));
    assert_eq!(as_rel(ev.binding("ga")), Relation::from_pairs(n, [(1, 2)]));
    // `r` is the closure of the second `a` (rf), before `a | co`.
    assert_eq!(as_rel(ev.binding("ra")), Relation::from_pairs(n, [(1, 2)]));
    assert_eq!(
        as_rel(ev.binding("aa")),
        Relation::from_pairs(n, [(1, 2), (2, 1)])
    );
    // A parameter shadows a definition of the same name; the definition
    // is seen again after the call.
    let m = model("let x = po\nlet h(x) = x\nlet hx = h(rf)\nlet xx = x\nacyclic hx | xx");
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1)]));
    set_named(&m, &mut ev, "rf", rel(n, &[(1, 2)]));
    assert_eq!(as_rel(ev.binding("hx")), Relation::from_pairs(n, [(1, 2)]));
    assert_eq!(as_rel(ev.binding("xx")), Relation::from_pairs(n, [(0, 1)]));
    // A name of a failed trial (a `let rec` group whose kinds are
    // learned in rounds) is not visible once it is rolled back: `y` is
    // defined only by the last, real round.
    let e = err("let rec y = y | z and z = po\nlet w = y\nacyclic w | q");
    assert!(e.message.contains("unknown identifier `q`"), "{e}");
}

#[test]
fn caching_recomputes_only_dirty_units() {
    // `stat` depends only on static inputs; `dyn` on rf.
    let src = "let stat = (po ; loc)+ ; [W]\n\
               let dyn = rf ; stat\n\
               acyclic stat\n\
               acyclic dyn | stat";
    let m = model(src);
    let n = 8;
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1), (1, 2), (3, 4)]));
    set_named(&m, &mut ev, "loc", rel(n, &[(1, 1), (2, 2), (4, 4)]));
    set_named(&m, &mut ev, "W", set(n, &[1, 2, 4]));
    assert_eq!(ev.first_violation(), None);
    let after_first = ev.units_run();
    assert!(after_first > 0);
    // Same inputs again: nothing to do.
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1), (1, 2), (3, 4)]));
    assert_eq!(ev.first_violation(), None);
    assert_eq!(ev.units_run(), after_first);
    // A new rf recomputes only rf's dependents: `rf;stat` and the union.
    set_named(&m, &mut ev, "rf", rel(n, &[(2, 0)]));
    assert_eq!(ev.first_violation(), Some(1));
    assert_eq!(ev.units_run(), after_first + 2);
    set_named(&m, &mut ev, "rf", rel(n, &[(4, 5)]));
    assert_eq!(ev.first_violation(), None);
    assert_eq!(ev.units_run(), after_first + 4);
}

#[test]
fn evaluation_is_lazy_in_axiom_order() {
    let src = "let cheap = po\nlet costly = (rf ; co)+ ; (fr ; co)+\nacyclic cheap\nacyclic costly";
    let m = model(src);
    let n = 3;
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 0)]));
    assert_eq!(ev.first_violation(), Some(0));
    // Only the input `po` was needed: no operation ran.
    assert_eq!(ev.units_run(), 0);
    set_named(&m, &mut ev, "po", rel(n, &[]));
    assert_eq!(ev.first_violation(), None);
    assert!(ev.units_run() >= 5);
}

#[test]
fn sharing_identical_subexpressions() {
    let a = model("let x = [W] ; po ; [W]\nlet y = [W] ; po ; [W]\nacyclic x | y");
    let b = model("let x = [W] ; po ; [W]\nacyclic x");
    // `x | y` collapses to `x`: the same units.
    assert_eq!(a.size(), b.size());
    let c = model("let x = po | rf\nlet y = rf | po\nempty x \\ y");
    let d = model("let x = po | rf\nempty x \\ x");
    assert_eq!(c.size(), d.size());
}

#[test]
fn functions_expand_in_their_definition_scope() {
    let src = "let fencerel(S) = (po & (_ * S)) ; po\n\
               let po = po ; po\n\
               let twice(r) = r ; r\n\
               let x = fencerel(F)\n\
               let y = twice(twice(rf))\n\
               let z = twice(_)\n\
               acyclic x | y | z";
    let m = model(src);
    let n = 5;
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1), (1, 2), (2, 3)]));
    set_named(&m, &mut ev, "F", set(n, &[1]));
    set_named(&m, &mut ev, "rf", rel(n, &[(0, 1), (1, 2), (2, 3), (3, 4)]));
    // fencerel sees the *base* po (defined before the rebinding).
    assert_eq!(as_rel(ev.binding("x")), Relation::from_pairs(n, [(0, 2)]));
    assert_eq!(as_rel(ev.binding("y")), Relation::from_pairs(n, [(0, 4)]));
    assert_eq!(
        as_rel(ev.binding("po")),
        Relation::from_pairs(n, [(0, 2), (1, 3)])
    );
}

#[test]
fn simultaneous_let_does_not_see_siblings() {
    let m = model("let po = rf and x = po\nacyclic x");
    let mut ev = m.evaluator(2);
    set_named(&m, &mut ev, "po", rel(2, &[(0, 1)]));
    set_named(&m, &mut ev, "rf", rel(2, &[(1, 0)]));
    assert_eq!(as_rel(ev.binding("x")), Relation::from_pairs(2, [(0, 1)]));
}

#[test]
fn coherence_directive_and_default_name() {
    let m = model("(* no header *)\n// gpumc: partial-co\nacyclic po");
    assert_eq!(m.coherence_override(), Some(Coherence::Partial));
    assert!(m.partial_co(Arch::Vulkan));
    assert_eq!(m.name(), "test");
    let m = model("X\n// gpumc: partial-co is not this\nacyclic po");
    assert_eq!(m.coherence_override(), Some(Coherence::Partial));
    let m = model("X\n// gpumc: total-co\nacyclic po");
    assert_eq!(m.coherence_override(), Some(Coherence::Total));
    assert!(!m.partial_co(Arch::Ptx));
    // Only a line comment is a directive; without one the architecture
    // decides (PTX partial, Vulkan total).
    let m = model("X\n(* gpumc: partial-co *)\nacyclic po");
    assert_eq!(m.coherence_override(), None);
    assert!(m.partial_co(Arch::Ptx));
    assert!(!m.partial_co(Arch::Vulkan));
    // Contradicting directives are an error at the second one.
    let e = err("X\n// gpumc: total-co\nacyclic po\n  // gpumc: partial-co\n");
    assert_eq!(e.pos, Some(Pos { line: 4, col: 3 }));
    assert!(e.message.contains("contradicts"), "{e}");
}

#[test]
fn zero_events() {
    let m = model(
        "let rec t = r | t;r\nacyclic t\nirreflexive po\nempty W\n~empty _\nflag ~empty [W];po",
    );
    let mut ev = m.evaluator(0);
    assert_eq!(ev.first_violation(), Some(3));
}

#[test]
fn large_universes() {
    let n = 150;
    let m = model("let rec t = r | (t ; r)\nacyclic t\nempty t \\ r+");
    let mut ev = m.evaluator(n);
    let chain: Vec<_> = (0..n - 1).map(|i| (i, i + 1)).collect();
    set_named(&m, &mut ev, "r", rel(n, &chain));
    assert_eq!(ev.first_violation(), None);
    let mut cyc = chain.clone();
    cyc.push((n - 1, 0));
    set_named(&m, &mut ev, "r", rel(n, &cyc));
    assert_eq!(ev.first_violation(), Some(0));
}

// ---------- includes ----------

fn with_files(files: &[(&str, &str)]) -> impl Fn(&str, &Path) -> Option<(PathBuf, String)> {
    let map: HashMap<String, String> = files
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name: &str, _: &Path| {
        map.get(name)
            .map(|t| (PathBuf::from(format!("lib/{name}")), t.clone()))
    }
}

#[test]
fn includes_are_inlined_in_order() {
    let res = with_files(&[
        (
            "cos.cat",
            "\"cos\"\nlet fr = rf^-1 ; co\n// gpumc: partial-co\n",
        ),
        ("extra.cat", "include \"cos.cat\"\nacyclic fr as inc-ax"),
    ]);
    let src = "Main\nacyclic po\ninclude \"extra.cat\"\nempty fr";
    let m = Model::parse(src, Path::new("nowhere/main.cat"), &res, &base).unwrap();
    assert_eq!(m.name(), "Main");
    assert_eq!(m.coherence_override(), Some(Coherence::Partial));
    let names: Vec<_> = m.axioms().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["po", "inc-ax", "fr"]);
    assert_eq!(m.axioms()[1].file, PathBuf::from("lib/extra.cat"));
    assert_eq!(m.axioms()[1].pos, Pos { line: 2, col: 1 });
    let inputs: Vec<_> = m.inputs().iter().map(|i| i.0.as_str()).collect();
    assert_eq!(inputs, ["po", "rf", "co"]);
}

#[test]
fn include_errors() {
    let res = with_files(&[
        ("a.cat", "include \"b.cat\""),
        ("b.cat", "let x = po\ninclude \"a.cat\""),
        ("bad.cat", "let x = po |"),
        ("typed.cat", "let x = W | po"),
    ]);
    let parse = |src: &str| Model::parse(src, Path::new("main.cat"), &res, &base).unwrap_err();
    let e = parse("include \"a.cat\"");
    assert_eq!(e.kind, ErrorKind::Semantic);
    assert!(e.message.contains("include cycle"), "{e}");
    assert_eq!(e.file, Some(PathBuf::from("lib/b.cat")));
    assert_eq!(e.pos, Some(Pos { line: 2, col: 1 }));
    let e = parse("let y = po\n  include \"missing.cat\"");
    assert_eq!(
        e.to_string(),
        "main.cat:2:3: cannot find included file \"missing.cat\""
    );
    let e = parse("include \"bad.cat\"");
    assert_eq!(e.file, Some(PathBuf::from("lib/bad.cat")));
    assert_eq!(e.kind, ErrorKind::Syntax);
    let e = parse("include \"typed.cat\"");
    assert_eq!(e.to_string(), "lib/typed.cat:1:11: type error: `|` needs two sets or two relations, but its left operand is a set and its right operand a relation");
    // A self-include is a cycle too.
    let e = Model::parse(
        "include \"main.cat\"",
        Path::new("main.cat"),
        &|n: &str, _: &Path| {
            (n == "main.cat").then(|| {
                (
                    PathBuf::from("main.cat"),
                    "include \"main.cat\"".to_string(),
                )
            })
        },
        &base,
    )
    .unwrap_err();
    assert!(
        e.message.contains("include cycle: main.cat -> main.cat"),
        "{e}"
    );
}

#[test]
fn includes_from_the_file_system() {
    let dir = std::env::temp_dir().join(format!("gpumc-cat-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/lib.cat"), "let hb = po | rf\n").unwrap();
    std::fs::write(dir.join("loop1.cat"), "include \"loop2.cat\"").unwrap();
    std::fs::write(dir.join("loop2.cat"), "include \"loop1.cat\"").unwrap();
    let main = dir.join("main.cat");
    let m = Model::parse(
        "include \"sub/lib.cat\"\nacyclic hb",
        &main,
        &no_includes,
        &base,
    )
    .unwrap();
    assert_eq!(m.inputs().len(), 2);
    let e = Model::parse("include \"loop1.cat\"", &main, &no_includes, &base).unwrap_err();
    assert!(e.message.contains("include cycle"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn model_is_thread_safe() {
    fn check<T: Send + Sync>() {}
    check::<Model>();
    fn check_send<T: Send>() {}
    check_send::<Evaluator<'static>>();
}

#[test]
fn expr_kinds_in_ast() {
    let e = parse_expr("f(x)").unwrap();
    assert!(matches!(e.kind, ExprKind::Call(ref n, ref a) if n == "f" && a.len() == 1));
}

// ---------- property tests ----------

mod props {
    use super::*;
    use proptest::prelude::*;

    const VOCAB: &[&str] = &[
        "let",
        "rec",
        "and",
        "=",
        "|",
        "&",
        "\\",
        ";",
        "*",
        "+",
        "?",
        "^-1",
        "^",
        "~",
        "(",
        ")",
        "[",
        "]",
        ",",
        "0",
        "_",
        "id",
        "po",
        "rf",
        "W",
        "R",
        "x",
        "f",
        "acyclic",
        "irreflexive",
        "empty",
        "flag",
        "as",
        "include",
        "\"a.cat\"",
        "show",
        "domain",
        "range",
        "(*",
        "*)",
        "//",
        "\n",
        "-1",
        "{",
        "}",
        "'t",
        "++",
        "in",
        "procedure",
        "begin",
        "end",
        "\"",
        "$",
        "é",
    ];

    fn quiet_parse(src: &str) {
        let res = |n: &str, _: &Path| {
            (n == "a.cat").then(|| (PathBuf::from("a.cat"), "let x = po\nacyclic x".to_string()))
        };
        if let Ok(m) = Model::parse(src, Path::new("fuzz.cat"), &res, &base) {
            let mut ev = m.evaluator(3);
            for (i, (_, k)) in m.inputs().iter().enumerate() {
                let v = match k {
                    BaseKind::Set => set(3, &[0, 2]),
                    BaseKind::Relation => rel(3, &[(0, 1), (1, 2)]),
                };
                ev.set_input(i, v);
            }
            let _ = ev.first_violation();
            for k in 0..m.axioms().len() {
                let _ = ev.flag(k);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let s = String::from_utf8_lossy(&bytes);
            quiet_parse(&s);
        }

        #[test]
        fn token_soup_never_panics(toks in proptest::collection::vec(0..VOCAB.len(), 0..60)) {
            let s: Vec<&str> = toks.iter().map(|&i| VOCAB[i]).collect();
            quiet_parse(&s.join(" "));
            quiet_parse(&s.concat());
        }
    }

    /// Random well-typed relation expressions, with a reference value.
    #[derive(Clone, Debug)]
    enum E {
        Base(usize),
        Set(usize),
        Bin(&'static str, Box<E>, Box<E>),
        Post(&'static str, Box<E>),
        Compl(Box<E>),
        Prod(usize, usize),
    }

    fn arb_e() -> impl Strategy<Value = E> {
        let leaf = prop_oneof![
            (0usize..3).prop_map(E::Base),
            (0usize..2).prop_map(E::Set),
            ((0usize..2), (0usize..2)).prop_map(|(a, b)| E::Prod(a, b)),
        ];
        leaf.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (
                    prop::sample::select(vec!["|", "&", "\\", ";"]),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(o, a, b)| E::Bin(o, Box::new(a), Box::new(b))),
                (
                    prop::sample::select(vec!["+", "*", "?", "^-1"]),
                    inner.clone()
                )
                    .prop_map(|(o, a)| E::Post(o, Box::new(a))),
                inner.prop_map(|a| E::Compl(Box::new(a))),
            ]
        })
    }

    const RN: [&str; 3] = ["po", "rf", "co"];
    const SN: [&str; 2] = ["W", "R"];

    fn text(e: &E) -> String {
        match e {
            E::Base(i) => RN[*i].to_string(),
            E::Set(i) => format!("[{}]", SN[*i]),
            E::Prod(a, b) => format!("({} * {})", SN[*a], SN[*b]),
            E::Bin(o, a, b) => format!("({} {o} {})", text(a), text(b)),
            E::Post(o, a) => format!("({}){o}", text(a)),
            E::Compl(a) => format!("~({})", text(a)),
        }
    }

    fn eval(e: &E, rels: &[Relation], sets: &[EventSet]) -> Relation {
        match e {
            E::Base(i) => rels[*i].clone(),
            E::Set(i) => Relation::identity_on(&sets[*i]),
            E::Prod(a, b) => Relation::product(&sets[*a], &sets[*b]),
            E::Bin(o, a, b) => {
                let (x, y) = (eval(a, rels, sets), eval(b, rels, sets));
                match *o {
                    "|" => x.union(&y),
                    "&" => x.intersection(&y),
                    "\\" => x.difference(&y),
                    _ => x.compose(&y),
                }
            }
            E::Post(o, a) => {
                let x = eval(a, rels, sets);
                match *o {
                    "+" => x.transitive_closure(),
                    "*" => x.reflexive_transitive_closure(),
                    "?" => x.reflexive_closure(),
                    _ => x.inverse(),
                }
            }
            E::Compl(a) => eval(a, rels, sets).complement(),
        }
    }

    fn arb_rel(n: usize) -> impl Strategy<Value = Relation> {
        proptest::collection::vec((0..n, 0..n), 0..2 * n)
            .prop_map(move |ps| Relation::from_pairs(n, ps))
    }

    fn sets_of(n: usize, bits: &[Vec<bool>]) -> Vec<EventSet> {
        bits.iter()
            .map(|b| EventSet::from_iter(n, (0..n).filter(|&i| b[i])))
            .collect()
    }

    /// The model `let e<k> = <e>` plus `axioms` (with `{k}` for the index)
    /// for every expression.
    fn model_of(es: &[E], axioms: &str) -> Model {
        let mut src = String::new();
        for (k, e) in es.iter().enumerate() {
            src.push_str(&format!("let e{k} = {}\n", text(e)));
            src.push_str(&axioms.replace("{k}", &k.to_string()));
        }
        model(&src)
    }

    fn set_inputs(m: &Model, ev: &mut Evaluator<'_>, rels: &[Relation], sets: &[EventSet]) {
        for (i, name) in RN.iter().enumerate() {
            if let Some(k) = m.input_index(name) {
                ev.set_input(k, Value::Rel(rels[i].clone()));
            }
        }
        for (i, name) in SN.iter().enumerate() {
            if let Some(k) = m.input_index(name) {
                ev.set_input(k, Value::Set(sets[i].clone()));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        #[test]
        fn evaluator_matches_reference(
            es in proptest::collection::vec(arb_e(), 1..4),
            rels in proptest::collection::vec(arb_rel(7), 3),
            sets in proptest::collection::vec(proptest::collection::vec(any::<bool>(), 7), 2),
            rels2 in proptest::collection::vec(arb_rel(7), 3),
        ) {
            let n = 7;
            let sets = sets_of(n, &sets);
            let m = model_of(&es, "flag ~empty e{k}\n");
            let mut ev = m.evaluator(n);
            // Evaluate twice with different relations to exercise caching.
            for rs in [&rels, &rels2, &rels] {
                set_inputs(&m, &mut ev, rs, &sets);
                prop_assert_eq!(ev.first_violation(), None);
                for (k, e) in es.iter().enumerate() {
                    let want = eval(e, rs, &sets);
                    prop_assert_eq!(as_rel(ev.binding(&format!("e{k}"))), want.clone());
                    let fired = ev.flag(k).map(|v| match v { Value::Rel(r) => r, _ => unreachable!() });
                    prop_assert_eq!(fired, (!want.is_empty()).then_some(want));
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// Over more than `ALL_WORDS_UP_TO` events the evaluator keeps
        /// banded values: the same bindings and flags as the word kernels.
        #[test]
        fn banded_storage_matches_bit_buffers(
            es in proptest::collection::vec(arb_e(), 1..4),
            rels in proptest::collection::vec(arb_rel(crate::rel::ALL_WORDS_UP_TO + 40), 3),
            sets in proptest::collection::vec(
                proptest::collection::vec(any::<bool>(), crate::rel::ALL_WORDS_UP_TO + 40), 2),
        ) {
            let n = crate::rel::ALL_WORDS_UP_TO + 40;
            let sets = sets_of(n, &sets);
            let m = model_of(&es, "flag ~empty e{k}\nacyclic e{k}\n");
            let mut banded = Evaluator::with_storage(&m, n, true);
            let mut plain = Evaluator::with_storage(&m, n, false);
            set_inputs(&m, &mut banded, &rels, &sets);
            set_inputs(&m, &mut plain, &rels, &sets);
            prop_assert_eq!(banded.first_violation(), plain.first_violation());
            for (k, e) in es.iter().enumerate() {
                let want = eval(e, &rels, &sets);
                let name = format!("e{k}");
                prop_assert_eq!(as_rel(banded.binding(&name)), want.clone());
                prop_assert_eq!(as_rel(plain.binding(&name)), want);
                prop_assert_eq!(banded.flag(2 * k), plain.flag(2 * k));
                prop_assert_eq!(banded.test(2 * k + 1), plain.test(2 * k + 1));
            }
        }
    }
}

/// Every embedded model, evaluated with banded values and with bit buffers
/// on the same random execution of more than `ALL_WORDS_UP_TO` events:
/// every binding and every axiom agree.
#[test]
fn embedded_models_evaluate_alike_in_both_storages() {
    let n = crate::rel::ALL_WORDS_UP_TO + 20;
    let mut x = 0x5851_F42D_4C95_7F2Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for (name, _) in crate::models::EMBEDDED {
        let m = crate::models::load(name).expect("embedded model");
        let mut banded = Evaluator::with_storage(&m, n, true);
        let mut plain = Evaluator::with_storage(&m, n, false);
        for round in 0..2 {
            for (i, (_, kind)) in m.inputs().iter().enumerate() {
                let v = match kind {
                    BaseKind::Set => {
                        Value::Set(EventSet::from_iter(n, (0..n).filter(|_| next() % 3 == 0)))
                    }
                    BaseKind::Relation => Value::Rel(Relation::from_pairs(
                        n,
                        (0..n / 2 + round * 50).map(|_| {
                            let a = (next() % n as u64) as usize;
                            let d = (next() % 9) as usize;
                            (a, (a + d) % n)
                        }),
                    )),
                };
                banded.set_input(i, v.clone());
                plain.set_input(i, v);
            }
            assert_eq!(banded.first_violation(), plain.first_violation(), "{name}");
            for k in 0..m.axioms().len() {
                assert_eq!(banded.test(k), plain.test(k), "{name}: axiom {k}");
            }
            for (b, _) in m.bindings.clone() {
                assert_eq!(banded.binding(&b), plain.binding(&b), "{name}: {b}");
            }
        }
    }
}

/// herd7's `undefined_unless`: a flag, marked undefined, that fires where
/// its test fails — `irreflexive` and `acyclic` through `r & id` and
/// `r+ & id`, so that the value is the failing part. Documentation blocks
/// `{% … %}` are skipped.
#[test]
fn undefined_unless_is_a_flag_that_fires_where_its_test_fails() {
    let src = "\"m\"\n{% documentation, with `let` and (* in it %}\n\
               undefined_unless empty r as e\n\
               undefined_unless ~empty s as ne\n\
               undefined_unless irreflexive t as irr\n\
               undefined_unless acyclic po as acy\n\
               acyclic po as sc";
    let m = model(src);
    let kinds: Vec<_> = m
        .axioms()
        .iter()
        .map(|a| (a.name.as_str(), a.kind, a.flag, a.undefined))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("e", AxiomKind::NotEmpty, true, true),
            ("ne", AxiomKind::Empty, true, true),
            ("irr", AxiomKind::NotEmpty, true, true),
            ("acy", AxiomKind::NotEmpty, true, true),
            ("sc", AxiomKind::Acyclic, false, false),
        ]
    );
    assert_eq!(m.axioms()[0].pos, Pos { line: 3, col: 1 });
    let n = 3;
    let mut ev = m.evaluator(n);
    set_named(&m, &mut ev, "s", rel(n, &[(0, 1)]));
    assert_eq!(ev.first_violation(), None);
    for i in 0..4 {
        assert_eq!(ev.flag(i), None, "axiom {i}");
    }
    set_named(&m, &mut ev, "r", rel(n, &[(1, 2)]));
    set_named(&m, &mut ev, "s", rel(n, &[]));
    set_named(&m, &mut ev, "t", rel(n, &[(0, 1), (2, 2)]));
    assert_eq!(ev.flag(0), Some(rel(n, &[(1, 2)])));
    assert!(ev.flag(1).is_some());
    assert_eq!(ev.flag(2), Some(rel(n, &[(2, 2)])));
    // A cycle of po: the consistency axiom fails, and the check fires on
    // the events of the cycle.
    set_named(&m, &mut ev, "po", rel(n, &[(0, 1), (1, 0)]));
    assert_eq!(ev.flag(3), Some(rel(n, &[(0, 0), (1, 1)])));
    assert_eq!(ev.first_violation(), Some(4));
    // Unterminated, the block is an error at its start.
    assert_err(
        "\"m\"\nlet a = r\n  {% no end",
        ErrorKind::Syntax,
        3,
        3,
        "unterminated documentation block",
    );
    // `requires` stays unsupported, with its position.
    assert_err(
        "\"m\"\nrequires empty r",
        ErrorKind::Unsupported,
        2,
        1,
        "`requires`",
    );
}

/// An input only an untested binding uses is not read by the axioms.
#[test]
fn axioms_read_only_the_inputs_their_tests_reach() {
    let m = model("\"m\"\nlet unused = s | t\nacyclic po | r as a\nflag ~empty X as f\n");
    assert!(m.axioms_read("po") && m.axioms_read("r") && m.axioms_read("X"));
    assert!(!m.axioms_read("s") && !m.axioms_read("t"));
    assert!(!m.axioms_read("no-such-input"));
}

/// The futile-iteration check (`restrict.rs`): which axioms keep holding,
/// and which flagged pairs stay flagged, when events are dropped.
#[test]
fn restriction_stability_of_axioms_and_flags() {
    let flags = |m: &Model| -> Vec<usize> {
        (0..m.axioms().len())
            .filter(|&i| m.axioms()[i].flag)
            .collect()
    };
    let stable = |src: &str| {
        let m = model(src);
        m.restriction_stable(&flags(&m))
    };
    // Compositions and closures only lose pairs: monotone.
    assert!(stable("let hb = (po | rf)+\nacyclic hb | co | fr as c\n").is_ok());
    // A race flag subtracting a monotone order gains pairs: antitone.
    assert!(stable("let hb = (po | rf)+\nflag ~empty (loc \\ hb) as race\n").is_ok());
    // Composing with a part of the identity keeps exactness.
    assert!(stable("empty ([W]; loc; [W]) \\ (co | co^-1) as total\n").is_ok());
    // Subtracting a composition from a consistency axiom's relation may
    // add pairs.
    let e = stable("acyclic po \\ (po; po) as c\n").unwrap_err();
    assert!(e.contains("axiom c"), "{e}");
    // A flag that needs a path may lose it.
    let e = stable("flag ~empty (po; rf) as r\n").unwrap_err();
    assert!(e.contains("flag r"), "{e}");
    // A consistency axiom that needs pairs present may lose them.
    assert!(stable("~empty rf as c\n").is_err());
    // Immediate pairs of an exact order: only through a closure of steps
    // into RMW events (Vulkan's release sequences).
    let imm = "let i = co \\ (co; co+)\n";
    assert!(stable(&format!("{imm}acyclic ([W]; (i; [RMW])*) | po as c\n")).is_ok());
    assert!(stable(&format!("{imm}acyclic i | po as c\n")).is_err());
    assert!(stable(&format!("{imm}acyclic (i; [W])* | po as c\n")).is_err());
    // Flags other than those checked are not asked about.
    let m = model("flag ~empty (po; rf) as r\n");
    assert!(m.restriction_stable(&[]).is_ok());
}

/// The split of scope instances (`monotone.rs`): which axioms keep
/// holding, and which flagged pairs stay flagged, when scope relations
/// (here `sr`) lose pairs.
#[test]
fn loosening_as_scope_relations_shrink() {
    let loosens = |src: &str, fixed: &[Slot]| {
        let m = model(src);
        let flags: Vec<usize> = (0..m.axioms().len())
            .filter(|&i| m.axioms()[i].flag)
            .collect();
        m.loosens_as_shrunk(&["sr"], &flags, fixed)
    };
    // Synchronisation within a scope: fewer pairs, smaller hb, fewer
    // cycles; the race flag subtracts hb, so it gains pairs.
    let sync = "let hb = (po | (rf & sr))+\n";
    assert!(loosens(&format!("{sync}acyclic hb | co | fr as c\n"), &[]).is_ok());
    assert!(loosens(&format!("{sync}flag ~empty (loc \\ hb) as race\n"), &[]).is_ok());
    // A consistency axiom that subtracts a scope term may tighten.
    let e = loosens("acyclic (po | rf) \\ sr as c\n", &[]).unwrap_err();
    assert!(e.contains("axiom c"), "{e}");
    // A flag that needs a scope term may lose its pairs.
    let e = loosens("flag ~empty (rf & sr) as r\n", &[]).unwrap_err();
    assert!(e.contains("flag r"), "{e}");
    // `~empty` as a consistency axiom needs a shrinking value.
    assert!(loosens("~empty (rf \\ sr) as c\n", &[]).is_ok());
    assert!(loosens("~empty (rf & sr) as c\n", &[]).is_err());
    // Immediate successors of a scoped order move either way, unless the
    // caller has shown the order unmoved for its program.
    let src = "let o = co & sr\nlet i = o \\ (o; o+)\nacyclic i | po as c\n";
    assert!(loosens(src, &[]).is_err());
    let m = model(src);
    let all: Vec<Slot> = (0..m.slot_kinds().len() as Slot).collect();
    assert!(loosens(src, &all).is_ok());
    // Inputs not named do not move.
    assert!(loosens("acyclic (po | rf) \\ loc as c\n", &[]).is_ok());
}
