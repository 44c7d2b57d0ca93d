//! Unit tests for the litmus front-end: one group per construct, and exact
//! error positions for damaged inputs.

use super::parse;
use crate::diag::{Error, ErrorKind};
use crate::ir::{
    Addr, Arch, BinOp, CmpOp, Cond, Instr, InstrKind, Operand, Pos, Program, Quantifier, RmwOp,
    Term,
};
use std::path::{Path, PathBuf};

const FILE: &str = "t.litmus";

fn ok(src: &str) -> Program {
    parse(src, Path::new(FILE)).unwrap_or_else(|e| panic!("unexpected error: {e}\n{src}"))
}

fn err(src: &str) -> Error {
    match parse(src, Path::new(FILE)) {
        Ok(p) => panic!("expected an error, got {p:#?}"),
        Err(e) => {
            assert_eq!(e.file, Some(PathBuf::from(FILE)), "{e}");
            e
        }
    }
}

/// Asserts the error kind, `line:col` and a fragment of the message.
fn err_at(src: &str, kind: ErrorKind, line: u32, col: u32, needle: &str) {
    let e = err(src);
    assert_eq!(e.kind, kind, "{e}");
    assert_eq!(e.pos, Some(Pos { line, col }), "{e}");
    assert!(e.message.contains(needle), "`{needle}` not in: {e}");
}

/// A two-thread PTX test with `body` as its rows and tail.
fn ptx(body: &str) -> String {
    format!("PTX t\n{{ x=0; y=0; }}\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n{body}")
}

/// A two-thread Vulkan test with `body` as its rows and tail.
fn vk(body: &str) -> String {
    format!("VULKAN t\n{{ x=0; y=0; }}\n P0@sg 0,wg 0,qf 0 | P1@sg 1,wg 0,qf 0 ;\n{body}")
}

/// The single instruction of a one-cell PTX (`arch` = Ptx) or Vulkan row.
fn one(arch: Arch, cell: &str) -> Instr {
    let src = match arch {
        Arch::Ptx => ptx(&format!(" {cell} | ;\n")),
        Arch::Vulkan => vk(&format!(" {cell} | ;\n")),
        Arch::C => panic!("C tests have no rows (see litmus/c/tests.rs)"),
    };
    let p = ok(&src);
    assert_eq!(p.threads[0].instrs.len(), 1, "{cell}");
    p.threads[0].instrs[0].clone()
}

fn one_err(arch: Arch, cell: &str) -> Error {
    let src = match arch {
        Arch::Ptx => ptx(&format!(" {cell} | ;\n")),
        Arch::Vulkan => vk(&format!(" {cell} | ;\n")),
        Arch::C => panic!("C tests have no rows (see litmus/c/tests.rs)"),
    };
    err(&src)
}

fn tags(i: &Instr) -> Vec<&str> {
    i.tags.iter().map(String::as_str).collect()
}

/// The tags of an RMW's read and write events (tagging.rs, Dat3M's split).
fn halves(i: &Instr) -> (Vec<&str>, Vec<&str>) {
    (i.event_tags(false).collect(), i.event_tags(true).collect())
}

fn reg(r: &str) -> Operand {
    Operand::Reg(r.to_string())
}

// ---------------------------------------------------------------------------
// Header and comments

#[test]
fn header_dialects_and_name() {
    let p = ok("PTX MP+fences\n{}\n P0@cta 0,gpu 0 ;\n");
    assert_eq!((p.arch, p.name.as_str()), (Arch::Ptx, "MP+fences"));
    for word in ["VULKAN", "Vulkan"] {
        let p = ok(&format!("{word} mp\n{{}}\n P0@sg 0,wg 0,qf 0 ;\n"));
        assert_eq!((p.arch, p.name.as_str()), (Arch::Vulkan, "mp"));
    }
    assert!(p.assertion.is_none() && p.filter.is_none() && p.observed.is_empty());
}

#[test]
fn comment_strings() {
    let p = ok(concat!(
        "PTX t\n",
        "\"one\"\n",
        "\"two with \"nested\" quotes\"\n",
        "\"multi\nline // \"quoted\"\n\"\n",
        "{ x=1; }\n P0@cta 0,gpu 0 ;\n"
    ));
    assert_eq!(p.locations[0].init, 1);
}

#[test]
fn header_errors() {
    err_at("", ErrorKind::Syntax, 1, 1, "empty input");
    err_at("\n  \n", ErrorKind::Syntax, 3, 1, "empty input");
    err_at(
        "AArch64 MP\n{}\n",
        ErrorKind::Unsupported,
        1,
        1,
        "dialect `AArch64`",
    );
    err_at(
        "{ x=0; }\n",
        ErrorKind::Syntax,
        1,
        1,
        "expected a litmus header",
    );
    err_at("PTX\n{}\n", ErrorKind::Syntax, 1, 4, "missing test name");
    err_at(
        "PTX t\nno quotes\n{}\n",
        ErrorKind::Syntax,
        2,
        1,
        "double quotes",
    );
    err_at(
        "PTX t\n \"open\n{}\n",
        ErrorKind::Syntax,
        2,
        2,
        "unterminated comment",
    );
    err_at("PTX t\n\"c\"\n", ErrorKind::Syntax, 3, 1, "expected `{`");
}

// ---------------------------------------------------------------------------
// Initial state

#[test]
fn init_locations_and_registers() {
    let p = ok(concat!(
        "PTX t\n{\n",
        "x=0; y = -3;z=7\n",
        ";P0:r0=1; P1: r2 = 5; 1:r3=-1;\n",
        "}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n"
    ));
    let names: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(names, [("x", 0), ("y", -3), ("z", 7)]);
    assert!(p
        .locations
        .iter()
        .enumerate()
        .all(|(i, l)| l.phys == i && l.space.is_none()));
    assert_eq!(p.threads[0].init_regs, [("r0".to_string(), 1)]);
    assert_eq!(
        p.threads[1].init_regs,
        [("r2".to_string(), 5), ("r3".to_string(), -1)]
    );
}

#[test]
fn init_aliases_follow_chain_to_root() {
    let p = ok(concat!(
        "PTX t\n{\n",
        "x=4;\ny @ generic aliases x;\nt @ texture aliases y;\ns@surface aliases x;\n",
        "rd2 @ constant aliases t;\n",
        "}\n P0@cta 0,gpu 0 ;\n"
    ));
    let got: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.phys, l.virt, l.init, l.space.as_deref()))
        .collect();
    // Proxy aliases are virtual synonyms of their target; generic aliases
    // are new virtual addresses of the same physical location.
    assert_eq!(
        got,
        [
            ("x", 0, 0, 4, None),
            ("y", 0, 1, 4, Some("generic")),
            ("t", 0, 1, 4, Some("texture")),
            ("s", 0, 0, 4, Some("surface")),
            ("rd2", 0, 1, 4, Some("constant")),
        ]
    );
    let p = ok("Vulkan t\n{ a=2; b aliases a; }\n P0@sg 0,wg 0,qf 0 ;\n");
    assert_eq!((p.locations[1].phys, p.locations[1].init), (0, 2));
    assert_eq!(p.locations[1].virt, 1);
    assert_eq!(p.locations[1].space, None);
}

#[test]
fn init_errors() {
    err_at(
        "PTX t\n{ x=0;\n P0@cta 0,gpu 0 ;\n",
        ErrorKind::Syntax,
        2,
        1,
        "unterminated initial-state block",
    );
    err_at(
        "VULKAN t\n{ x=0;\n{ ssw 0 1; }\n",
        ErrorKind::Syntax,
        2,
        1,
        "missing `}`",
    );
    err_at(
        "PTX t\n{ x=0; x=1; }\n",
        ErrorKind::Semantic,
        2,
        8,
        "declared twice",
    );
    err_at(
        "PTX t\n{ y aliases x; x=0; }\n",
        ErrorKind::Semantic,
        2,
        13,
        "alias target `x`",
    );
    err_at(
        "PTX t\n{ r1=0; }\n",
        ErrorKind::Semantic,
        2,
        3,
        "register name",
    );
    err_at("PTX t\n{ x 0; }\n", ErrorKind::Syntax, 2, 5, "expected `=`");
    err_at(
        "PTX t\n{ x=0 y=0; }\n",
        ErrorKind::Syntax,
        2,
        7,
        "expected `;`",
    );
    err_at(
        "PTX t\n{ x=a; }\n",
        ErrorKind::Syntax,
        2,
        5,
        "expected an integer",
    );
    err_at(
        "PTX t\n{ x=0; P0:x=0; }\n",
        ErrorKind::Syntax,
        2,
        11,
        "register name",
    );
    err_at(
        "PTX t\n{ x=0; y @ shared aliases x; }\n",
        ErrorKind::Unsupported,
        2,
        12,
        "proxy `shared`",
    );
    err_at(
        "PTX t\n{ x=0; y @ generic x; }\n",
        ErrorKind::Syntax,
        2,
        20,
        "`aliases`",
    );
    err_at(
        "PTX t\n{ x=0. }\n",
        ErrorKind::Syntax,
        2,
        6,
        "unexpected character `.`",
    );
    err_at(
        "PTX t\n{ x=99999999999999999999; }\n",
        ErrorKind::Syntax,
        2,
        5,
        "out of range",
    );
    err_at(
        "PTX t\n{ P2:r0=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n",
        ErrorKind::Semantic,
        2,
        3,
        "thread `P2` does not exist",
    );
    err_at(
        "PTX t\n{ P0:r0=0; P0:r0=1; }\n P0@cta 0,gpu 0 ;\n",
        ErrorKind::Semantic,
        2,
        12,
        "initialised twice",
    );
}

#[test]
fn ssw_block() {
    let p = ok(concat!(
        "VULKAN t\n{ x=0; }\n{\nssw 0 1;\nssw P1 P2\n}\n",
        " P0@sg 0,wg 0,qf 0 | P1@sg 1,wg 0,qf 0 | P2@sg 2,wg 0,qf 0 ;\n"
    ));
    assert_eq!(p.ssw, [(0, 1), (1, 2)]);
    err_at(
        "PTX t\n{ x=0; }\n{ ssw 0 1; }\n",
        ErrorKind::Unsupported,
        3,
        1,
        "ssw",
    );
    err_at(
        "VULKAN t\n{}\n{ ssw 0 3; }\n P0@sg 0,wg 0,qf 0 | P1@sg 1,wg 0,qf 0 ;\n",
        ErrorKind::Semantic,
        3,
        9,
        "thread `3` does not exist",
    );
    err_at(
        "VULKAN t\n{}\n{ sw 0 1; }\n",
        ErrorKind::Syntax,
        3,
        3,
        "expected `ssw`",
    );
}

// ---------------------------------------------------------------------------
// Thread header row

#[test]
fn placements() {
    let p = ok("PTX t\n{}\nP0@cta 0,gpu 0|P1@cta 1, gpu 0 | P2@gpu 1,cta 2;\n");
    let ids: Vec<_> = p.threads.iter().map(|t| t.placement.ids.clone()).collect();
    assert_eq!(ids, [vec![0, 0], vec![1, 0], vec![2, 1]]);
    let names: Vec<_> = p.threads.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["P0", "P1", "P2"]);
    let p = ok("Vulkan t\n{}\n P0@sg 0, wg 1, qf 2 | P1@sg 3,wg 4,qf 5 ;\n");
    assert_eq!(p.threads[0].placement.ids, [0, 1, 2]);
    assert_eq!(p.threads[1].placement.ids, [3, 4, 5]);
    let p = ok("PTX t\n{}\n P0 | P1 ;\n");
    assert_eq!(p.threads[1].placement.ids, [0, 0]);
}

#[test]
fn placement_errors() {
    err_at(
        "PTX t\n{}\n P0@wg 0,gpu 0 ;\n",
        ErrorKind::Syntax,
        3,
        5,
        "unknown scope level `wg`",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0 ;\n",
        ErrorKind::Syntax,
        3,
        2,
        "lacks `gpu`",
    );
    err_at(
        "PTX t\n{}\n P0@cta x,gpu 0 ;\n",
        ErrorKind::Syntax,
        3,
        9,
        "expected a scope index",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0 gpu 0 ;\n",
        ErrorKind::Syntax,
        3,
        11,
        "expected `,` or `|`",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0,cta 1 ;\n",
        ErrorKind::Syntax,
        3,
        11,
        "given twice",
    );
    err_at(
        "PTX t\n{}\n P0@cta -1,gpu 0 ;\n",
        ErrorKind::Syntax,
        3,
        9,
        "non-negative",
    );
    err_at(
        "Vulkan t\n{}\n P0@cta 0,gpu 0 ;\n",
        ErrorKind::Syntax,
        3,
        5,
        "expected `sg`, `wg`, `qf`",
    );
    err_at(
        "PTX t\n{}\n P1@cta 0,gpu 0 ;\n",
        ErrorKind::Semantic,
        3,
        2,
        "expected thread `P0`",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0,gpu 0 | | P2 ;\n",
        ErrorKind::Syntax,
        3,
        19,
        "empty cell",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0\n st.weak x, 1 | ;\n",
        ErrorKind::Syntax,
        3,
        33,
        "missing `;` at the end of the thread header row",
    );
    err_at("PTX t\n{}\n", ErrorKind::Syntax, 3, 1, "thread header row");
    err_at("PTX t\n{}\n ; \n", ErrorKind::Syntax, 3, 2, "empty cell");
}

// ---------------------------------------------------------------------------
// Rows

#[test]
fn rows_columns_positions_and_text() {
    let p = ok(&ptx(concat!(
        " st.weak x, 1   |                ;\n",
        "                | ld.weak r0, x  ;\n",
        " LC00: ld.weak r1, y |           ;\n",
        "\n",
        " goto LC00      |                ;\n",
    )));
    let t0 = &p.threads[0].instrs;
    let t1 = &p.threads[1].instrs;
    assert_eq!(t0.len(), 4);
    assert_eq!(t1.len(), 1);
    assert_eq!(t0[0].pos, Pos { line: 4, col: 2 });
    assert_eq!(t0[0].text, "st.weak x, 1");
    assert_eq!(t1[0].pos, Pos { line: 5, col: 19 });
    assert_eq!(t1[0].text, "ld.weak r0, x");
    assert_eq!(t0[1].kind, InstrKind::Label("LC00".into()));
    assert_eq!(t0[1].text, "LC00:");
    assert_eq!(t0[2].pos, Pos { line: 6, col: 8 });
    assert_eq!(t0[2].text, "ld.weak r1, y");
    assert_eq!(t0[3].kind, InstrKind::Goto("LC00".into()));
    assert_eq!(t0[3].pos.line, 8);
}

#[test]
fn crlf_and_tabs() {
    let p = ok("PTX t\r\n{\r\nx=0;\r\n}\r\n P0@cta 0,gpu 0\t| P1@cta 0,gpu 0 ;\r\n\tst.weak x, 1 | ;\r\nexists\r\n(x == 1)\r\n");
    assert_eq!(p.threads[0].instrs[0].pos, Pos { line: 6, col: 2 });
    assert_eq!(p.threads[0].instrs[0].text, "st.weak x, 1");
    assert!(p.assertion.is_some());
}

#[test]
fn columns_count_characters() {
    err_at(
        "PTX t\n\"h\u{e9}llo\"\n{}\n P0@cta 0,gpu 0 ;\n \u{e9} st.weak x, \u{fc} ;\n",
        ErrorKind::Syntax,
        5,
        2,
        "unexpected character `\u{e9}`",
    );
    err_at(
        "PTX t\n{}\n P0@cta 0,gpu 0 ;\n st.weak \u{e9}, \u{fc} ;\n",
        ErrorKind::Syntax,
        4,
        10,
        "invalid operand `\u{e9}`",
    );
}

#[test]
fn undeclared_locations_are_added_with_zero() {
    let p = ok(&ptx(
        " st.weak w, 1 | ld.weak r0, v ;\n ld.weak r1, x | st.weak w, 2 ;\n",
    ));
    let got: Vec<_> = p
        .locations
        .iter()
        .map(|l| (l.name.as_str(), l.phys, l.init))
        .collect();
    assert_eq!(got, [("x", 0, 0), ("y", 1, 0), ("w", 2, 0), ("v", 3, 0)]);
}

#[test]
fn row_errors() {
    // Missing `;`: reported just after the row's last character.
    err_at(
        &ptx(" st.weak x, 1 | ld.weak r0, x\n st.weak y, 1 | ;\n"),
        ErrorKind::Syntax,
        4,
        30,
        "missing `;`",
    );
    err_at(
        &ptx(" LC00: | goto LC00   \n"),
        ErrorKind::Syntax,
        4,
        19,
        "missing `;`",
    );
    // Truncated file in the middle of a row.
    err_at(
        &ptx(" st.weak x, 1 | ld.we"),
        ErrorKind::Syntax,
        4,
        22,
        "missing `;`",
    );
    // A misspelt keyword is not reported as a missing `;`.
    err_at(
        &ptx(" st.weak x, 1 | ;\nexist (x == 1)\n"),
        ErrorKind::Syntax,
        5,
        1,
        "found `exist`",
    );
    err_at(
        &ptx(" st.weak x, 1 | ld.weak r0, x | st.weak y, 1 ;\n"),
        ErrorKind::Syntax,
        4,
        33,
        "more columns than the 2 declared threads",
    );
    // Empty extra cells are fine.
    ok(&ptx(" st.weak x, 1 | ld.weak r0, x | ;\n"));
}

// ---------------------------------------------------------------------------
// PTX instructions

#[test]
fn ptx_loads_and_stores() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str])] = &[
        ("ld.weak r0, x", &["WEAK", "GEN"]),
        ("ld r0, x", &["WEAK", "GEN"]),
        ("ld.relaxed.gpu r0, x", &["RLX", "GPU", "GEN"]),
        ("ld.rlx.sys r0, x", &["RLX", "SYS", "GEN"]),
        ("ld.acquire.cta r0, x", &["ACQ", "CTA", "GEN"]),
        ("ld.acq.gpu r0, x", &["ACQ", "GPU", "GEN"]),
        ("st.weak x, 1", &["WEAK", "GEN"]),
        ("st.relaxed.sys x, r1", &["RLX", "SYS", "GEN"]),
        ("st.release.cta x, 1", &["REL", "CTA", "GEN"]),
        ("st.rel.gpu x, -2", &["REL", "GPU", "GEN"]),
    ];
    for (cell, want) in cases {
        let i = one(Arch::Ptx, cell);
        assert_eq!(tags(&i), *want, "{cell}");
        assert_eq!(i.text, *cell);
    }
    assert_eq!(
        one(Arch::Ptx, "ld.acquire.sys r3, y").kind,
        InstrKind::Load {
            dst: "r3".into(),
            addr: Addr::Fixed(1)
        }
    );
    assert_eq!(
        one(Arch::Ptx, "st.weak x, r1").kind,
        InstrKind::Store {
            addr: Addr::Fixed(0),
            value: reg("r1")
        }
    );
    assert_eq!(
        one(Arch::Ptx, "st.rel.gpu x, -2").kind,
        InstrKind::Store {
            addr: Addr::Fixed(0),
            value: Operand::Const(-2)
        }
    );
}

#[test]
fn ptx_register_assignment() {
    let i = one(Arch::Ptx, "ld r0, 1");
    assert!(i.tags.is_empty());
    assert_eq!(
        i.kind,
        InstrKind::Local {
            dst: "r0".into(),
            op: BinOp::Add,
            a: Operand::Const(1),
            b: Operand::Const(0)
        }
    );
    let i = one(Arch::Ptx, "mov r0, r4");
    assert_eq!(
        i.kind,
        InstrKind::Local {
            dst: "r0".into(),
            op: BinOp::Add,
            a: reg("r4"),
            b: Operand::Const(0)
        }
    );
}

#[test]
fn ptx_atomics() {
    // The order is split over the two events as Dat3M does: the read is
    // the acquire, the write the release, the other half relaxed.
    let i = one(Arch::Ptx, "atom.acq_rel.gpu.add r1, x, 1");
    assert_eq!(tags(&i), ["GPU", "GEN"]);
    assert_eq!(
        halves(&i),
        (vec!["GPU", "GEN", "ACQ"], vec!["GPU", "GEN", "REL"])
    );
    assert_eq!(
        i.kind,
        InstrKind::Rmw {
            dst: Some("r1".into()),
            addr: Addr::Fixed(0),
            op: RmwOp::Add,
            operand: Operand::Const(1)
        }
    );
    let i = one(Arch::Ptx, "atom.relaxed.gpu.cas r1, y, 1, r2");
    assert_eq!(
        halves(&i),
        (vec!["GPU", "GEN", "RLX"], vec!["GPU", "GEN", "RLX"])
    );
    assert_eq!(
        i.kind,
        InstrKind::Rmw {
            dst: Some("r1".into()),
            addr: Addr::Fixed(1),
            op: RmwOp::Cas {
                expected: Operand::Const(1)
            },
            operand: reg("r2")
        }
    );
    // No order: relaxed; no scope: gpu.
    assert_eq!(
        halves(&one(Arch::Ptx, "atom.exch r0, x, 1")),
        (vec!["GPU", "GEN", "RLX"], vec!["GPU", "GEN", "RLX"])
    );
    assert_eq!(
        halves(&one(Arch::Ptx, "atom.acquire.sys.sub r0, x, 1")),
        (vec!["SYS", "GEN", "ACQ"], vec!["SYS", "GEN", "RLX"])
    );
    assert_eq!(
        halves(&one(Arch::Ptx, "atom.release.cta.add r0, x, 1")),
        (vec!["CTA", "GEN", "RLX"], vec!["CTA", "GEN", "REL"])
    );
    for (q, op) in [
        ("exch", RmwOp::Exch),
        ("sub", RmwOp::Sub),
        ("and", RmwOp::And),
        ("or", RmwOp::Or),
        ("xor", RmwOp::Xor),
        ("min", RmwOp::Min),
        ("max", RmwOp::Max),
    ] {
        match one(Arch::Ptx, &format!("atom.release.cta.{q} r0, x, 1")).kind {
            InstrKind::Rmw { op: got, .. } => assert_eq!(got, op),
            other => panic!("{other:?}"),
        }
    }
    let i = one(Arch::Ptx, "red.acq_rel.sys.sub x, r3");
    assert_eq!(
        halves(&i),
        (vec!["SYS", "GEN", "ACQ"], vec!["SYS", "GEN", "REL"])
    );
    assert_eq!(
        i.kind,
        InstrKind::Rmw {
            dst: None,
            addr: Addr::Fixed(0),
            op: RmwOp::Sub,
            operand: reg("r3")
        }
    );
}

#[test]
fn ptx_proxy_accesses() {
    let p = ok(concat!(
        "PTX t\n{ x=0; s @ surface aliases x; t @ texture aliases x; c @ constant aliases x; }\n",
        " P0@cta 0,gpu 0 ;\n",
        " sust.weak s, 1 ;\n suld.weak r0, s ;\n tld.weak r1, t ;\n cold.weak r2, c ;\n"
    ));
    let got: Vec<_> = p.threads[0].instrs.iter().map(tags).collect();
    assert_eq!(
        got,
        [
            ["WEAK", "SUR"],
            ["WEAK", "SUR"],
            ["WEAK", "TEX"],
            ["WEAK", "CON"]
        ]
    );
    assert_eq!(
        p.threads[0].instrs[0].kind,
        InstrKind::Store {
            addr: Addr::Fixed(1),
            value: Operand::Const(1)
        }
    );
    assert_eq!(
        p.threads[0].instrs[3].kind,
        InstrKind::Load {
            dst: "r2".into(),
            addr: Addr::Fixed(3)
        }
    );
}

#[test]
fn ptx_fences() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str])] = &[
        ("fence.sc.cta", &["F", "SC", "ACQ_REL", "ACQ", "REL", "CTA", "GEN"]),
        ("fence.sc.gpu", &["F", "SC", "ACQ_REL", "ACQ", "REL", "GPU", "GEN"]),
        ("fence.acq_rel.sys", &["F", "ACQ_REL", "ACQ", "REL", "SYS", "GEN"]),
        ("membar.gl", &["F", "SC", "ACQ_REL", "ACQ", "REL", "GPU", "GEN"]),
        ("fence.proxy.alias", &["F", "ALIAS"]),
        ("fence.proxy.surface", &["F", "PROXY", "SUR"]),
        ("fence.proxy.texture", &["F", "PROXY", "TEX"]),
        ("fence.proxy.constant", &["F", "PROXY", "CON"]),
    ];
    for (cell, want) in cases {
        let i = one(Arch::Ptx, cell);
        assert_eq!(i.kind, InstrKind::Fence, "{cell}");
        assert_eq!(tags(&i), *want, "{cell}");
    }
}

#[test]
fn ptx_barriers() {
    let bar = |cell: &str| match one(Arch::Ptx, cell) {
        Instr {
            kind: InstrKind::Barrier { id, count, arrive },
            tags,
            ..
        } => (id, count, arrive, tags.join(",")),
        other => panic!("{other:?}"),
    };
    let c = Operand::Const;
    assert_eq!(
        bar("bar.cta.sync 1"),
        (c(1), None, false, "B,CBAR,CTA,GEN".into())
    );
    assert_eq!(
        bar("bar.cta.sync r2"),
        (reg("r2"), None, false, "B,CBAR,CTA,GEN".into())
    );
    assert_eq!(bar("bar.cta.sync 1, 2").0, c(2));
    assert_eq!(bar("bar.cta.sync 1, r2").0, reg("r2"));
    assert_eq!(
        bar("bar.cta.sync 0, 1, 3"),
        (c(1), Some(c(3)), false, "B,CBAR,CTA,GEN".into())
    );
    assert_eq!(
        bar("bar.cta.arrive 1, 1, 2"),
        (c(1), Some(c(2)), true, "B,CBAR,CTA,ARRIVE,GEN".into())
    );
    assert_eq!(bar("bar.sync 3").0, c(3));
}

#[test]
fn locals_and_branches() {
    let p = ok(&ptx(concat!(
        " LC00:            | add r2, r2, 1   ;\n",
        " beq r0, r1, LC01 | sub r3, 1, 0    ;\n",
        " bne r0, 1, LC00  | xor r4, r2, r3  ;\n",
        " blt r0, 2, LC01  | mul r5, r4, -1  ;\n",
        " goto LC00        |                 ;\n",
        " LC01:            |                 ;\n",
    )));
    let t0: Vec<_> = p.threads[0].instrs.iter().map(|i| i.kind.clone()).collect();
    assert_eq!(
        t0[1],
        InstrKind::Branch {
            op: CmpOp::Eq,
            a: reg("r0"),
            b: reg("r1"),
            target: "LC01".into()
        }
    );
    assert_eq!(
        t0[2],
        InstrKind::Branch {
            op: CmpOp::Ne,
            a: reg("r0"),
            b: Operand::Const(1),
            target: "LC00".into()
        }
    );
    assert!(matches!(t0[3], InstrKind::Branch { op: CmpOp::Lt, .. }));
    assert_eq!(t0[4], InstrKind::Goto("LC00".into()));
    let t1: Vec<_> = p.threads[1].instrs.iter().map(|i| i.kind.clone()).collect();
    assert_eq!(
        t1[0],
        InstrKind::Local {
            dst: "r2".into(),
            op: BinOp::Add,
            a: reg("r2"),
            b: Operand::Const(1)
        }
    );
    assert!(matches!(t1[1], InstrKind::Local { op: BinOp::Sub, .. }));
    assert!(matches!(t1[2], InstrKind::Local { op: BinOp::Xor, .. }));
    assert!(matches!(
        t1[3],
        InstrKind::Local {
            op: BinOp::Mul,
            b: Operand::Const(-1),
            ..
        }
    ));
    assert!(p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .filter(|i| !matches!(i.kind, InstrKind::Label(_)))
        .all(|i| i.tags.is_empty()));
}

#[test]
fn ptx_instruction_errors() {
    // (cell, kind, column of the error, message fragment); cells start at column 2.
    #[rustfmt::skip]
    let cases: &[(&str, ErrorKind, u32, &str)] = &[
        ("foo r0, x", ErrorKind::Unsupported, 2, "PTX instruction `foo`"),
        ("ld.volatile r0, x", ErrorKind::Unsupported, 4, "qualifier `.volatile`"),
        ("atom.relaxed.gpu.inc r0, x, 1", ErrorKind::Unsupported, 18, "`.inc`"),
        ("bar.cta.red 1", ErrorKind::Unsupported, 9, "`.red`"),
        ("suld.b32 r0, x", ErrorKind::Unsupported, 6, "`.b32`"),
        ("add.s32 r0, r0, 1", ErrorKind::Unsupported, 5, "`.s32`"),
        ("ld.release.gpu r0, x", ErrorKind::Syntax, 4, "not a valid memory order for `ld`"),
        ("st.acquire.gpu x, 1", ErrorKind::Syntax, 4, "not a valid memory order for `st`"),
        ("atom.weak.add r0, x, 1", ErrorKind::Syntax, 6, "not a valid memory order"),
        ("ld.relaxed r0, x", ErrorKind::Syntax, 2, "needs a scope"),
        ("ld.weak.gpu r0, x", ErrorKind::Syntax, 9, "no scope"),
        ("ld.acquire.relaxed.gpu r0, x", ErrorKind::Syntax, 12, "more than one memory order"),
        ("ld.weak x, r0", ErrorKind::Syntax, 10, "expected a register"),
        ("st.weak r1, 1", ErrorKind::Syntax, 10, "expected a memory location, found register"),
        ("st.weak 3, 1", ErrorKind::Syntax, 10, "expected a memory location"),
        ("st.weak x, y", ErrorKind::Syntax, 13, "expected a register or an integer"),
        ("st.weak x", ErrorKind::Syntax, 2, "takes 2 operands, found 1"),
        ("st.weak x, 1, 2", ErrorKind::Syntax, 2, "takes 2 operands, found 3"),
        ("st.weak x,, 1", ErrorKind::Syntax, 12, "missing operand"),
        ("st.weak x, 1+2", ErrorKind::Syntax, 13, "invalid operand `1+2`"),
        ("atom.relaxed.gpu r0, x, 1", ErrorKind::Syntax, 2, "needs an operation"),
        ("atom.relaxed.gpu.cas r0, x, 1", ErrorKind::Syntax, 2, "takes 4 operands"),
        ("red.relaxed.gpu.exch x, 1", ErrorKind::Syntax, 17, "cannot perform `.exch`"),
        ("fence.sc r0", ErrorKind::Syntax, 2, "takes no operands"),
        ("fence.sc", ErrorKind::Syntax, 2, "needs an order"),
        ("fence.relaxed.gpu", ErrorKind::Syntax, 7, "unexpected `.relaxed`"),
        ("fence.proxy.generic", ErrorKind::Unsupported, 13, "`.generic`"),
        ("bar.cta.sync", ErrorKind::Syntax, 2, "takes 1, 2 or 3 operands, found 0"),
        ("bar.cta.sync x", ErrorKind::Syntax, 15, "expected a register or an integer"),
        ("ld..weak r0, x", ErrorKind::Syntax, 4, "malformed mnemonic"),
        ("ld.weak$ r0, x", ErrorKind::Syntax, 9, "unexpected character `$`"),
        ("goto 3", ErrorKind::Syntax, 7, "expected a label"),
    ];
    for &(cell, kind, col, needle) in cases {
        let e = one_err(Arch::Ptx, cell);
        assert_eq!(e.kind, kind, "{cell}: {e}");
        assert_eq!(e.pos, Some(Pos { line: 4, col }), "{cell}: {e}");
        assert!(e.message.contains(needle), "{cell}: `{needle}` not in {e}");
    }
}

#[test]
fn label_errors() {
    err_at(
        &ptx(" LC00:     | LC10:        ;\n goto LC01 | bne r0, 0, LC00 ;\n"),
        ErrorKind::Semantic,
        5,
        7,
        "unknown label `LC01` in thread P0",
    );
    // A label of another thread is not a target.
    err_at(
        &ptx(" LC00:     | LC10:        ;\n goto LC00 | bne r0, 0, LC00 ;\n"),
        ErrorKind::Semantic,
        5,
        25,
        "unknown label `LC00` in thread P1",
    );
    err_at(
        &ptx(" LC00: |  ;\n LC00: | ;\n"),
        ErrorKind::Semantic,
        5,
        2,
        "defined twice",
    );
}

// ---------------------------------------------------------------------------
// Vulkan instructions

#[test]
fn vulkan_accesses() {
    #[rustfmt::skip]
    let cases: &[(&str, &[&str])] = &[
        // Atomics are implicitly visible (loads) / available (stores).
        ("ld.atom.wg.sc0 r0, x", &["ATOM", "A", "NONPRIV", "WG", "SC0", "VIS"]),
        ("ld.atom.acq.dv.sc1.semsc0.semsc1.semvis r0, x", &["ATOM", "A", "NONPRIV", "ACQ", "DV", "SC1", "SEMSC0", "SEMSC1", "SEMVIS", "VIS"]),
        ("ld.vis.qf.sc0 r0, x", &["VIS", "NONPRIV", "QF", "SC0"]),
        ("ld.nonpriv.sc0 r0, x", &["NONPRIV", "SC0"]),
        ("ld.sc1 r0, x", &["SC1"]),
        ("st.av.sg.sc2 x, 1", &["AV", "NONPRIV", "SG", "SC2"]),
        ("st.atom.rel.wg.sc3.semsc0.semsc3.semav x, r1", &["ATOM", "A", "NONPRIV", "REL", "WG", "SC3", "SEMSC0", "SEMSC3", "SEMAV", "AV"]),
        ("st.atom.wg.sc0 x, r1", &["ATOM", "A", "NONPRIV", "WG", "SC0", "AV"]),
    ];
    for (cell, want) in cases {
        assert_eq!(tags(&one(Arch::Vulkan, cell)), *want, "{cell}");
    }
    // RMWs: the read is the acquire and visible, the write the release and
    // available; storage-class semantics go with the order they qualify.
    #[rustfmt::skip]
    let rmws: &[(&str, &[&str], &[&str])] = &[
        ("rmw.atom.wg.sc0 r0, x, 1",
         &["ATOM", "A", "NONPRIV", "WG", "SC0", "VIS"],
         &["ATOM", "A", "NONPRIV", "WG", "SC0", "AV"]),
        ("rmw.atom.acq_rel.dv.sc0.semsc0.add r0, x, 1",
         &["ATOM", "A", "NONPRIV", "DV", "SC0", "ACQ", "SEMSC0", "VIS"],
         &["ATOM", "A", "NONPRIV", "DV", "SC0", "REL", "SEMSC0", "AV"]),
        ("rmw.atom.acq.wg.sc0.semsc1.semvis r0, x, 1",
         &["ATOM", "A", "NONPRIV", "WG", "SC0", "ACQ", "SEMSC1", "VIS", "SEMVIS"],
         &["ATOM", "A", "NONPRIV", "WG", "SC0", "AV"]),
        ("rmw.atom.rel.qf.sc1.semsc0.semav r0, x, 1",
         &["ATOM", "A", "NONPRIV", "QF", "SC1", "VIS"],
         &["ATOM", "A", "NONPRIV", "QF", "SC1", "REL", "SEMSC0", "AV", "SEMAV"]),
    ];
    for (cell, read, write) in rmws {
        assert_eq!(
            halves(&one(Arch::Vulkan, cell)),
            (read.to_vec(), write.to_vec()),
            "{cell}"
        );
    }
    assert_eq!(
        one(Arch::Vulkan, "rmw.atom.wg.sc0 r0, y, 1").kind,
        InstrKind::Rmw {
            dst: Some("r0".into()),
            addr: Addr::Fixed(1),
            op: RmwOp::Exch,
            operand: Operand::Const(1)
        }
    );
    assert!(matches!(
        one(
            Arch::Vulkan,
            "rmw.atom.rel.wg.sc0.semsc0.semav.add r0, x, 1"
        )
        .kind,
        InstrKind::Rmw { op: RmwOp::Add, .. }
    ));
    assert!(matches!(
        one(Arch::Vulkan, "rmw.atom.wg.sc0.cas r0, x, 0, 1").kind,
        InstrKind::Rmw {
            op: RmwOp::Cas {
                expected: Operand::Const(0)
            },
            operand: Operand::Const(1),
            ..
        }
    ));
    let i = one(Arch::Vulkan, "ld.sc0 r3, 1");
    assert!(i.tags.is_empty());
    assert!(matches!(
        i.kind,
        InstrKind::Local {
            a: Operand::Const(1),
            b: Operand::Const(0),
            ..
        }
    ));
}

#[test]
fn vulkan_fences_and_barriers() {
    let i = one(Arch::Vulkan, "membar.acq.dv.semsc0.semvis");
    assert_eq!(i.kind, InstrKind::Fence);
    assert_eq!(tags(&i), ["F", "ACQ", "DV", "SEMSC0", "SEMVIS"]);
    let i = one(Arch::Vulkan, "membar.acq_rel.wg.semsc0.semsc1");
    assert_eq!(
        tags(&i),
        ["F", "ACQ", "REL", "ACQ_REL", "WG", "SEMSC0", "SEMSC1"]
    );
    for (cell, tag) in [("avdevice", "AVDEVICE"), ("visdevice", "VISDEVICE")] {
        let i = one(Arch::Vulkan, cell);
        assert_eq!(i.kind, InstrKind::Fence);
        assert_eq!(tags(&i), [tag]);
    }
    let i = one(Arch::Vulkan, "cbar.wg 0");
    assert_eq!(tags(&i), ["B", "CBAR", "WG"]);
    assert_eq!(
        i.kind,
        InstrKind::Barrier {
            id: Operand::Const(0),
            count: None,
            arrive: false
        }
    );
    let i = one(Arch::Vulkan, "cbar.acq_rel.sg.semsc0.semav.semvis 1, 1, 3");
    assert_eq!(
        tags(&i),
        ["B", "CBAR", "F", "ACQ", "REL", "ACQ_REL", "SG", "SEMSC0", "SEMAV", "SEMVIS"]
    );
    assert_eq!(
        i.kind,
        InstrKind::Barrier {
            id: Operand::Const(1),
            count: Some(Operand::Const(3)),
            arrive: false
        }
    );
    // Ids are numbers: `00` is barrier 0, `10` and `21` are 10 and 21.
    for (cell, id) in [("cbar.wg 00", 0), ("cbar.wg 10", 10), ("cbar.wg 21", 21)] {
        match one(Arch::Vulkan, cell).kind {
            InstrKind::Barrier { id: got, .. } => assert_eq!(got, Operand::Const(id)),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn vulkan_instruction_errors() {
    #[rustfmt::skip]
    let cases: &[(&str, ErrorKind, u32, &str)] = &[
        ("foo r0, x", ErrorKind::Unsupported, 2, "Vulkan instruction `foo`"),
        ("fence.sc.wg", ErrorKind::Unsupported, 2, "Vulkan instruction `fence.sc.wg`"),
        ("ld.atom.wg.sc9 r0, x", ErrorKind::Unsupported, 12, "`.sc9`"),
        ("ld.atom.wg.private r0, x", ErrorKind::Unsupported, 12, "`.private`"),
        ("ld.atom.wg.sc0.add r0, x", ErrorKind::Unsupported, 16, "`.add`"),
        ("ld.atom.rel.wg.sc0 r0, x", ErrorKind::Syntax, 9, "not allowed on `ld`"),
        ("st.atom.acq.wg.sc0 x, 1", ErrorKind::Syntax, 9, "not allowed on `st`"),
        ("ld.av.wg.sc0 r0, x", ErrorKind::Syntax, 4, "`.av` is not allowed on `ld`"),
        ("st.vis.wg.sc0 x, 1", ErrorKind::Syntax, 4, "`.vis` is not allowed on `st`"),
        ("ld.acq.wg.sc0 r0, x", ErrorKind::Syntax, 4, "needs `.atom`"),
        ("rmw.wg.sc0 r0, x, 1", ErrorKind::Syntax, 2, "needs `.atom`"),
        ("ld.atom.sc0 r0, x", ErrorKind::Syntax, 4, "needs a scope"),
        ("st.av.sc0 x, 1", ErrorKind::Syntax, 4, "needs a scope"),
        ("ld.atom.wg.dv.sc0 r0, x", ErrorKind::Syntax, 12, "more than one scope"),
        ("ld.atom.wg.sc0.sc1 r0, x", ErrorKind::Syntax, 16, "more than one storage class"),
        ("ld.atom.atom.wg r0, x", ErrorKind::Syntax, 9, "duplicate flag `.atom`"),
        ("membar.wg.semsc0", ErrorKind::Syntax, 2, "needs a memory order"),
        ("membar.acq.semsc0", ErrorKind::Syntax, 2, "needs a scope"),
        ("membar.acq.wg.sc0", ErrorKind::Syntax, 15, "`.sc0` is not allowed on `membar`"),
        ("cbar.acq_rel.semsc0 0", ErrorKind::Syntax, 2, "needs a scope"),
        ("cbar.atom.wg 0", ErrorKind::Syntax, 6, "`.atom` is not allowed on `cbar`"),
        ("cbar.wg", ErrorKind::Syntax, 2, "takes 1, 2 or 3 operands"),
        ("avdevice 1", ErrorKind::Syntax, 2, "takes no operands"),
        ("visdevice.dv", ErrorKind::Unsupported, 11, "`.dv`"),
        ("rmw.atom.wg.sc0 r0, x", ErrorKind::Syntax, 2, "takes 3 operands"),
    ];
    for &(cell, kind, col, needle) in cases {
        let e = one_err(Arch::Vulkan, cell);
        assert_eq!(e.kind, kind, "{cell}: {e}");
        assert_eq!(e.pos, Some(Pos { line: 4, col }), "{cell}: {e}");
        assert!(e.message.contains(needle), "{cell}: `{needle}` not in {e}");
    }
}

// ---------------------------------------------------------------------------
// Final conditions

fn assertion(tail: &str) -> (Quantifier, Cond) {
    let p = ok(&ptx(&format!(" ld.weak r0, x | ld.weak r1, y ;\n{tail}")));
    let a = p.assertion.expect("assertion");
    (a.quantifier, a.cond)
}

fn cmp(op: CmpOp, a: Term, b: Term) -> Cond {
    Cond::Cmp(op, a, b)
}

fn r(t: usize, name: &str) -> Term {
    Term::Reg(t, name.to_string())
}

#[test]
fn conditions() {
    let c = Term::Const;
    assert_eq!(
        assertion("exists 0==0"),
        (Quantifier::Exists, cmp(CmpOp::Eq, c(0), c(0)))
    );
    assert_eq!(
        assertion("~exists\n(P1:r1 = 1)"),
        (Quantifier::NotExists, cmp(CmpOp::Eq, r(1, "r1"), c(1)))
    );
    assert_eq!(assertion("not exists (x != -1)").0, Quantifier::NotExists);
    assert_eq!(assertion("~ exists (x != -1)").0, Quantifier::NotExists);
    assert_eq!(
        assertion("forall(P0:r0 == P1:r1)"),
        (Quantifier::Forall, cmp(CmpOp::Eq, r(0, "r0"), r(1, "r1")))
    );
    assert_eq!(
        assertion("exists (1:r1 == 1 /\\ y == 2)").1,
        Cond::And(
            Box::new(cmp(CmpOp::Eq, r(1, "r1"), c(1))),
            Box::new(cmp(CmpOp::Eq, Term::Loc(1), c(2)))
        )
    );
    // `/\` binds tighter than `\/`; `~` and `not` negate; parentheses group.
    let a = cmp(CmpOp::Eq, r(0, "r0"), c(1));
    let b = cmp(CmpOp::Ne, r(0, "r0"), c(2));
    let d = cmp(CmpOp::Lt, Term::Loc(0), c(3));
    assert_eq!(
        assertion("exists P0:r0 == 1 \\/ P0:r0 != 2 /\\ x < 3").1,
        Cond::Or(
            Box::new(a.clone()),
            Box::new(Cond::And(Box::new(b.clone()), Box::new(d.clone())))
        )
    );
    assert_eq!(
        assertion("exists (P0:r0 == 1 \\/ P0:r0 != 2) /\\ ~x < 3").1,
        Cond::And(
            Box::new(Cond::Or(Box::new(a.clone()), Box::new(b))),
            Box::new(Cond::Not(Box::new(d)))
        )
    );
    assert_eq!(
        assertion("exists not (true /\\ false)").1,
        Cond::Not(Box::new(Cond::And(
            Box::new(Cond::True),
            Box::new(Cond::False)
        )))
    );
    assert_eq!(
        assertion("exists P0:r0<=1 \\/ P0:r0>=1 \\/ P0:r0>1 \\/ P0: r0 <> 1")
            .1
            .terms(),
        [r(0, "r0")]
    );
}

#[test]
fn filter_locations_and_no_assertion() {
    let p = ok(&ptx(concat!(
        " ld.weak r0, x | ;\n",
        "filter (P0:r0 == 0)\nexists (x == 1)\nlocations [x; P0:r0; 1:r2;]\n"
    )));
    assert!(p.filter.is_some());
    assert_eq!(p.assertion.unwrap().quantifier, Quantifier::Exists);
    assert_eq!(p.observed, [Term::Loc(0), r(0, "r0"), r(1, "r2")]);
    let p = ok(&ptx(" ld.weak r0, x | ;\nfilter\n(P0:r0 == 0)\n"));
    assert!(p.filter.is_some() && p.assertion.is_none());
    let p = ok(&ptx(" ld.weak r0, x | ;\n"));
    assert!(p.filter.is_none() && p.assertion.is_none());
}

#[test]
fn condition_errors() {
    let body = " ld.weak r0, x | ;\n";
    let at = |tail: &str, kind, line, col, needle: &str| {
        err_at(&ptx(&format!("{body}{tail}")), kind, line, col, needle)
    };
    at(
        "exists (z == 1)",
        ErrorKind::Semantic,
        5,
        9,
        "unknown location `z`",
    );
    at(
        "exists (P2:r0 == 1)",
        ErrorKind::Semantic,
        5,
        9,
        "thread `P2` does not exist",
    );
    at(
        "exists (5:r0 == 1)",
        ErrorKind::Semantic,
        5,
        9,
        "thread `5` does not exist",
    );
    at(
        "exists (P0:x == 1)",
        ErrorKind::Syntax,
        5,
        12,
        "register name",
    );
    at(
        "exists (Q0:r0 == 1)",
        ErrorKind::Syntax,
        5,
        9,
        "thread name",
    );
    at(
        "exists (P0:r0 == 1",
        ErrorKind::Syntax,
        5,
        19,
        "expected `)`, found end of input",
    );
    at(
        "exists (P0:r0 ==",
        ErrorKind::Syntax,
        5,
        17,
        "found end of input",
    );
    at("exists", ErrorKind::Syntax, 5, 7, "expected a condition");
    at(
        "exists (P0:r0 1)",
        ErrorKind::Syntax,
        5,
        15,
        "expected a comparison",
    );
    at(
        "exists (x == 1) junk",
        ErrorKind::Syntax,
        5,
        17,
        "found `junk`",
    );
    at(
        "exists 0==0\nforall 0==0",
        ErrorKind::Syntax,
        6,
        1,
        "at most one final assertion",
    );
    at(
        "filter 0==0\nfilter 0==0",
        ErrorKind::Syntax,
        6,
        1,
        "a second `filter`",
    );
    at(
        "exists x == 1 #",
        ErrorKind::Syntax,
        5,
        15,
        "unexpected character `#`",
    );
    at(
        "locations [x P0:r0]",
        ErrorKind::Syntax,
        5,
        14,
        "expected `;` or `]`",
    );
    // Long chains are balanced; deep nesting is an error, not a stack overflow.
    fn depth(c: &Cond) -> usize {
        match c {
            Cond::Not(c) => 1 + depth(c),
            Cond::And(a, b) | Cond::Or(a, b) => 1 + depth(a).max(depth(b)),
            _ => 1,
        }
    }
    let long = vec!["P0:r0 == 1"; 100_000].join(" /\\ ");
    let (_, chain) = assertion(&format!("exists {long} \\/ {long}"));
    assert!(depth(&chain) <= 20, "depth {}", depth(&chain));
    let c = Term::Const;
    assert_eq!(
        assertion("exists 0==1 /\\ 0==2 /\\ 0==3 /\\ 0==4").1,
        Cond::And(
            Box::new(Cond::And(
                Box::new(cmp(CmpOp::Eq, c(0), c(1))),
                Box::new(cmp(CmpOp::Eq, c(0), c(2)))
            )),
            Box::new(Cond::And(
                Box::new(cmp(CmpOp::Eq, c(0), c(3))),
                Box::new(cmp(CmpOp::Eq, c(0), c(4)))
            ))
        )
    );
    let deep = format!("exists {}0==0", "(".repeat(100_000));
    at(&deep, ErrorKind::Syntax, 5, 264, "nested too deeply");
    let negs = format!("exists {}0==0", "~".repeat(100_000));
    at(&negs, ErrorKind::Syntax, 5, 264, "nested too deeply");
}

// ---------------------------------------------------------------------------
// Truncation: every prefix of a valid test either parses or fails cleanly.

#[test]
fn every_prefix_fails_cleanly() {
    let full = concat!(
        "PTX t\n\"c\"\n{ x=0; P0:r0=0; y @ generic aliases x; }\n",
        " P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n",
        " LC00:          | st.release.gpu x, 1 ;\n",
        " ld.acquire.gpu r0, y | bar.cta.sync 1, r1, 2 ;\n",
        " bne r0, 1, LC00 | ;\n",
        "exists (P0:r0 == 1 /\\ x == 1)\n"
    );
    ok(full);
    for cut in 0..full.len() {
        let prefix = &full[..cut];
        if let Err(e) = parse(prefix, Path::new(FILE)) {
            let pos = e.pos.expect("position");
            assert!(pos.line as usize <= prefix.split('\n').count(), "{e}");
        }
    }
    // Truncated inside the initial state, the header row and the condition.
    err_at(
        &full[..30],
        ErrorKind::Syntax,
        3,
        1,
        "unterminated initial-state block",
    );
    err_at(&full[..70], ErrorKind::Syntax, 4, 20, "missing `;`");
    err_at(
        &full[..full.len() - 8],
        ErrorKind::Syntax,
        8,
        23,
        "found end of input",
    );
}
