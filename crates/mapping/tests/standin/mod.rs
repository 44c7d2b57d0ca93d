//! TEMPORARY stand-ins for the C model and the compiler of issue 15 (other
//! branches), so that the checker can be tested before they are merged.

use gpumc_core::ir::{InstrKind, Operand, Program};
use gpumc_mapping::{Lowered, Result};
use std::path::Path;

pub fn c11() -> gpumc_core::cat::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/standin/c11.cat");
    gpumc_core::models::load(path.to_str().unwrap()).expect("stand-in model")
}

/// Which variant of Fig. 11 to compile with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Fig11,
    /// RMW SC -> fence.sc; atom.acquire (Fig. 12's flaw).
    RmwScNoRelease,
    /// Acquire load -> ld.relaxed.
    AcquireLoadRelaxed,
}

/// Compiles by printing PTX litmus text per Fig. 11 and parsing it.
pub fn compile(p: &Program, v: Variant) -> Result<Lowered> {
    let mut cols: Vec<Vec<String>> = Vec::new();
    let mut origin = Vec::new();
    for th in &p.threads {
        let mut lines = Vec::new();
        let mut orig = Vec::new();
        let mut reg = 0;
        for (k, ins) in th.instrs.iter().enumerate() {
            let has = |t: &str| ins.all_tags().any(|x| x == t);
            let scope = ["CTA", "GPU", "SYS"]
                .iter()
                .find(|s| has(s))
                .map(|s| s.to_lowercase());
            let sc = has("SC");
            let order = if has("NA") {
                "na"
            } else if sc {
                "sc"
            } else if has("ACQ_REL") || (has("ACQ") && has("REL")) {
                "acq_rel"
            } else if has("ACQ") {
                "acq"
            } else if has("REL") {
                "rel"
            } else {
                "rlx"
            };
            let s = scope.unwrap_or_default();
            let loc = |a: &gpumc_core::ir::Addr| p.locations[a.fixed().unwrap()].name.clone();
            let val = |o: &Operand| match o {
                Operand::Const(v) => *v,
                _ => 0,
            };
            let mut push = |l: String, lines: &mut Vec<String>| {
                lines.push(l);
                orig.push(Some(k));
            };
            match &ins.kind {
                InstrKind::Load { addr, .. } => {
                    let r = format!("r{reg}");
                    reg += 1;
                    let x = loc(addr);
                    match order {
                        "na" => push(format!("ld.weak {r}, {x}"), &mut lines),
                        "rlx" => push(format!("ld.relaxed.{s} {r}, {x}"), &mut lines),
                        "acq" if v == Variant::AcquireLoadRelaxed => {
                            push(format!("ld.relaxed.{s} {r}, {x}"), &mut lines)
                        }
                        "acq" => push(format!("ld.acquire.{s} {r}, {x}"), &mut lines),
                        _ => {
                            push(format!("fence.sc.{s}"), &mut lines);
                            push(format!("ld.acquire.{s} {r}, {x}"), &mut lines);
                        }
                    }
                }
                InstrKind::Store { addr, value } => {
                    let (x, v) = (loc(addr), val(value));
                    match order {
                        "na" => push(format!("st.weak {x}, {v}"), &mut lines),
                        "rlx" => push(format!("st.relaxed.{s} {x}, {v}"), &mut lines),
                        "rel" => push(format!("st.release.{s} {x}, {v}"), &mut lines),
                        _ => {
                            push(format!("fence.sc.{s}"), &mut lines);
                            push(format!("st.release.{s} {x}, {v}"), &mut lines);
                        }
                    }
                }
                InstrKind::Rmw { addr, operand, .. } => {
                    let r = format!("r{reg}");
                    reg += 1;
                    let (x, val) = (loc(addr), val(operand));
                    let sem = match order {
                        "rlx" => "relaxed",
                        "acq" => "acquire",
                        "rel" => "release",
                        _ => "acq_rel",
                    };
                    if sc {
                        push(format!("fence.sc.{s}"), &mut lines);
                        let sem = if v == Variant::RmwScNoRelease {
                            "acquire"
                        } else {
                            "acq_rel"
                        };
                        push(format!("atom.{sem}.{s}.exch {r}, {x}, {val}"), &mut lines);
                    } else {
                        push(format!("atom.{sem}.{s}.exch {r}, {x}, {val}"), &mut lines);
                    }
                }
                InstrKind::Fence => {
                    let sem = if sc { "sc" } else { "acq_rel" };
                    push(format!("fence.{sem}.{s}"), &mut lines);
                }
                _ => {}
            }
        }
        cols.push(lines);
        origin.push(orig);
    }
    let mut text = String::from("PTX compiled\n{\n");
    for l in &p.locations {
        text.push_str(&format!("{}=0;\n", l.name));
    }
    text.push_str("}\n");
    let heads: Vec<String> = p
        .threads
        .iter()
        .map(|t| {
            format!(
                "P{}@cta {},gpu {}",
                &t.name[1..],
                t.placement.ids[0],
                t.placement.ids[1]
            )
        })
        .collect();
    text.push_str(&format!(" {} ;\n", heads.join(" | ")));
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    for r in 0..rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| c.get(r).cloned().unwrap_or_default())
            .collect();
        text.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    let program = gpumc_frontend::litmus::parse(&text, Path::new("compiled.litmus"))
        .unwrap_or_else(|e| panic!("stand-in compile produced bad PTX: {e}\n{text}"));
    Ok(Lowered { program, origin })
}
