//! Export of AXB tests to Dat3M litmus tests with spinloops, in the form of
//! the corpus translations `litmus/{VULKAN,PTX}/CADP/<cfg>/<id>_simple.litmus`
//! (byte-identical on all 483 corpus tests, see `tests/progress_export.rs`).
//!
//! Thread `t`'s instruction `i` gets the label `LC<t><i>` and the end of the
//! thread `LC<t><len>`. Instructions that read get a fresh register `r<k>`
//! (numbered across threads in program order), initialised to 0:
//!
//! | AXB form                      | Vulkan                                   | PTX                                  |
//! |-------------------------------|------------------------------------------|--------------------------------------|
//! | `Mem[l] = v`                  | `st.atom.wg.sc0 Mem<l>, v`               | `st.relaxed.gpu Mem<l>, v`           |
//! | `if (Mem[l] == c) goto j`     | `ld.atom.wg.sc0 r, Mem<l>`               | `ld.relaxed.gpu r, Mem<l>`           |
//! | `if (Exch(Mem[l],x) == c) ..` | `rmw.atom.wg.sc0 r, Mem<l>, x`           | `atom.relaxed.gpu.exch r, Mem<l>, x` |
//!
//! and each branch continues with `bne r, c, LC<t><i+1>` then `goto LC<t><j>`.
//!
//! **Loops.** With [`LoopStyle::SingleBackEdge`], a target reached by two or
//! more backward jumps gets a single back edge: the jumps go to a trampoline
//! `LC<t><len+k>: goto LC<t><j>` placed after the code (one per such target,
//! by increasing target; the corpus has at most one per thread), and the
//! end label moves to `LC<t><len+#trampolines>`. A thread ending in a store
//! then gets an explicit `goto` to the end (no corpus test has one).
//! [`LoopStyle::Direct`] jumps straight to the target. The corpus uses
//! single back edges in every PTX file, and in the Vulkan files of tests
//! without exchanges ([`corpus_loop_style`]); Dat3M does not run the Vulkan
//! tests with exchanges, and their files were left direct.
//! Every thread sits in the same workgroup / CTA, as in the corpus files, and
//! the final condition is the trivial `exists 0==0`: the property of
//! interest is termination.

use super::ast::{Shape, Test};
use std::fmt::Write;

/// The dialects an AXB test exports to: those of Dat3M's corpus
/// translations (a C litmus test cannot spell an AXB test's loops).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Vulkan,
    Ptx,
}

impl Dialect {
    /// The architecture of the exported test.
    pub fn arch(self) -> crate::ir::Arch {
        match self {
            Dialect::Vulkan => crate::ir::Arch::Vulkan,
            Dialect::Ptx => crate::ir::Arch::Ptx,
        }
    }
}

/// The `"..."` origin line the corpus translations carry.
pub fn artifact_origin(threads: usize, instructions: usize, id: &str) -> String {
    format!(
        "https://github.com/tyler-utah/AlloyForwardProgress/blob/master/artifact/cadp/\
         {threads}_threads_{instructions}_instructions/alloy_output/{id}/{id}_simple.txt"
    )
}

/// The architecture keyword of the first line.
pub fn arch_keyword(arch: Dialect) -> &'static str {
    arch.arch().litmus_header()
}

/// How jumps back to a loop head are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopStyle {
    /// Every jump goes straight to its target.
    Direct,
    /// Several backward jumps to one target share a trampoline block.
    SingleBackEdge,
}

/// The loop style of the corpus translations: single back edges in PTX, and
/// in Vulkan for tests without exchange instructions.
pub fn corpus_loop_style(arch: Dialect, test: &Test) -> LoopStyle {
    let has_exchange = test.threads.iter().any(|t| {
        t.iter()
            .enumerate()
            .any(|(i, ins)| matches!(ins.shape(i), Shape::ExchBranch { .. }))
    });
    if arch == Dialect::Ptx || !has_exchange {
        LoopStyle::SingleBackEdge
    } else {
        LoopStyle::Direct
    }
}

/// [`to_litmus_with`] in the corpus loop style.
pub fn to_litmus(test: &Test, arch: Dialect, name: &str, origin: &str) -> String {
    to_litmus_with(test, arch, name, origin, corpus_loop_style(arch, test))
}

/// Renders `test` as a litmus test named `name` (corpus: `<id>_simple`),
/// with `origin` as its quoted second line. There is no final newline, as
/// in the corpus files.
pub fn to_litmus_with(
    test: &Test,
    arch: Dialect,
    name: &str,
    origin: &str,
    loops: LoopStyle,
) -> String {
    let mut columns: Vec<Vec<String>> = Vec::new();
    let mut registers: Vec<(usize, usize)> = Vec::new(); // (thread, register)
    for (t, thread) in test.threads.iter().enumerate() {
        let len = thread.len();
        // Targets that get a trampoline (see the module documentation).
        let mut trampolines: Vec<u8> = Vec::new();
        if loops == LoopStyle::SingleBackEdge {
            for target in 0..len as u8 {
                let back = thread
                    .iter()
                    .enumerate()
                    .filter(|(i, ins)| {
                        !ins.is_store_like(*i) && ins.target == target && target as usize <= *i
                    })
                    .count();
                if back >= 2 {
                    trampolines.push(target);
                }
            }
        }
        let end = len + trampolines.len();
        let label = |j: usize| {
            if j >= len {
                format!("LC{t}{end}")
            } else {
                format!("LC{t}{j}")
            }
        };
        let mut col = vec![match arch {
            Dialect::Vulkan => format!("P{t}@sg 0,wg 0, qf 0"),
            Dialect::Ptx => format!("P{t}@cta 0,gpu 0"),
        }];
        for (i, ins) in thread.iter().enumerate() {
            col.push(format!("LC{t}{i}:"));
            let (read, check, target) = match ins.shape(i) {
                Shape::Store { loc, val } => {
                    col.push(match arch {
                        Dialect::Vulkan => format!("st.atom.wg.sc0 Mem{loc}, {val}"),
                        Dialect::Ptx => format!("st.relaxed.gpu Mem{loc}, {val}"),
                    });
                    if i + 1 == len && !trampolines.is_empty() {
                        // Do not fall through into the trampolines.
                        col.push(format!("goto {}", label(len)));
                    }
                    continue;
                }
                Shape::ChkBranch { loc, check, target } => {
                    let r = registers.len();
                    let read = match arch {
                        Dialect::Vulkan => format!("ld.atom.wg.sc0 r{r}, Mem{loc}"),
                        Dialect::Ptx => format!("ld.relaxed.gpu r{r}, Mem{loc}"),
                    };
                    (read, check, target as usize)
                }
                Shape::ExchBranch {
                    loc,
                    check,
                    exch,
                    target,
                } => {
                    let r = registers.len();
                    let read = match arch {
                        Dialect::Vulkan => format!("rmw.atom.wg.sc0 r{r}, Mem{loc}, {exch}"),
                        Dialect::Ptx => format!("atom.relaxed.gpu.exch r{r}, Mem{loc}, {exch}"),
                    };
                    (read, check, target as usize)
                }
            };
            let r = registers.len();
            registers.push((t, r));
            col.push(read);
            col.push(format!("bne r{r}, {check}, {}", label(i + 1)));
            let goto = match trampolines.iter().position(|&j| j as usize == target) {
                Some(k) if target <= i => format!("LC{t}{}", len + k),
                _ => label(target),
            };
            col.push(format!("goto {goto}"));
        }
        for (k, &j) in trampolines.iter().enumerate() {
            col.push(format!("LC{t}{}:", len + k));
            col.push(format!("goto LC{t}{j}"));
        }
        col.push(format!("{}:", label(len)));
        columns.push(col);
    }

    let mut out = String::new();
    let _ = writeln!(out, "{} {name}", arch_keyword(arch));
    let _ = writeln!(out, "\"{origin}\"");
    out.push_str("{\n");
    for loc in test.locations() {
        let _ = writeln!(out, "Mem{loc}=0;");
    }
    for (t, r) in &registers {
        let _ = writeln!(out, "P{t}:r{r}=0;");
    }
    out.push_str("}\n");
    let width = columns.iter().flatten().map(String::len).max().unwrap_or(0) + 6;
    let rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    for row in 0..rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|col| format!("{:<width$}", col.get(row).map(String::as_str).unwrap_or("")))
            .collect();
        out.push_str(&cells.join("| "));
        out.push_str(";\n");
    }
    out.push_str("exists 0==0");
    out
}
