//! Printers for the two corpus forms. On the 483 corpus tests both are
//! byte-identical to the published files (checked by `tests/progress_parse.rs`).

use super::ast::{Shape, Test};
use std::fmt::Write;

fn target_text(target: u8, len: usize) -> String {
    if target as usize == len {
        "END".to_string()
    } else {
        target.to_string()
    }
}

/// The instruction form (`<id>.txt`): `THREAD<t>`, then one instruction per
/// line, each followed by a blank line, and one more blank line per thread.
pub fn to_txt(test: &Test) -> String {
    let mut out = String::new();
    for (t, thread) in test.threads.iter().enumerate() {
        let _ = writeln!(out, "THREAD{t}");
        for (i, ins) in thread.iter().enumerate() {
            match ins.shape(i) {
                Shape::Store { loc, val } => {
                    let _ = write!(out, "atomic_store({loc},{val})");
                }
                Shape::ChkBranch { loc, check, target } => {
                    let tgt = target_text(target, thread.len());
                    let _ = write!(out, "atomic_chk_branch({loc},{check},{tgt})");
                }
                Shape::ExchBranch {
                    loc,
                    check,
                    exch,
                    target,
                } => {
                    let tgt = target_text(target, thread.len());
                    let _ = write!(out, "atomic_exch_branch({loc},{check},{exch},{tgt})");
                }
            }
            out.push_str("\n\n");
        }
        out.push('\n');
    }
    out
}

/// The pseudo-code form (`<id>_simple.txt`): `THREAD <t>`, then one
/// `i: ...;` line per instruction, and a blank line per thread.
pub fn to_simple(test: &Test) -> String {
    let mut out = String::new();
    for (t, thread) in test.threads.iter().enumerate() {
        let _ = writeln!(out, "THREAD {t}");
        for (i, ins) in thread.iter().enumerate() {
            let _ = writeln!(
                out,
                "{i}: {}",
                simple_instruction(ins.shape(i), thread.len())
            );
        }
        out.push('\n');
    }
    out
}

/// One instruction in pseudo-code, without its label.
pub fn simple_instruction(shape: Shape, len: usize) -> String {
    match shape {
        Shape::Store { loc, val } => format!("Mem[{loc}] = {val};"),
        Shape::ChkBranch { loc, check, target } => {
            format!(
                "if (Mem[{loc}] == {check}) goto {};",
                target_text(target, len)
            )
        }
        Shape::ExchBranch {
            loc,
            check,
            exch,
            target,
        } => format!(
            "if (Exch(Mem[{loc}],{exch}) == {check}) goto {};",
            target_text(target, len)
        ),
    }
}

/// A one-line summary, `T0: ...; ... | T1: ...`, for reports.
pub fn one_line(test: &Test) -> String {
    test.threads
        .iter()
        .enumerate()
        .map(|(t, thread)| {
            let body: Vec<String> = thread
                .iter()
                .enumerate()
                .map(|(i, ins)| format!("{i}: {}", simple_instruction(ins.shape(i), thread.len())))
                .collect();
            format!("T{t}: {}", body.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" | ")
}
