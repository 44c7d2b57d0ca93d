//! Enumerated source programs as IR ([`to_program`]), their straight-line
//! thread paths ([`paths`]), and as C litmus text ([`c_litmus`]).

use crate::enumerate::{MemOrder, Op, Scope, Source};
use crate::frontend::tagging;
use crate::ir::{
    Addr, Arch, Instr, InstrKind, Location, Operand, Placement, Pos, Program, RmwOp, Thread,
};
use gpumc_verify::engine::paths::{PathEnd, PathEvent, PathEventKind, ThreadPath};

/// Location names in order of first use.
pub fn loc_name(l: usize) -> String {
    const NAMES: [&str; 4] = ["x", "y", "z", "w"];
    NAMES
        .get(l)
        .map_or_else(|| format!("l{l}"), |s| s.to_string())
}

/// The expected value of a compare-exchange that fails ([`Op::CasFail`]):
/// no write writes it (writes write 1, 2, …, initial values are 0).
pub const NEVER_WRITTEN: i64 = -1;

/// The value written by the `k`-th write of the program (1, 2, ...: every
/// write its own value, so a read names the write it reads from).
fn values(src: &Source) -> Vec<Vec<i64>> {
    let mut next = 0;
    src.threads
        .iter()
        .map(|t| {
            t.instrs
                .iter()
                .map(|i| match i.op {
                    Op::Store | Op::Rmw => {
                        next += 1;
                        next
                    }
                    _ => 0,
                })
                .collect()
        })
        .collect()
}

/// The IR of a source program in the C dialect's conventions (docs/EVENTS.md,
/// C section): a plain access is tagged `NA`; an atomic or a fence its
/// order and its scope; an RMW's halves as the front-end splits them
/// (`tagging::finish`). Thread `t` is `Pt` at its CTA and GPU; every
/// location starts at 0; loads write registers `r0`, `r1`, ... of their
/// thread. `arch` is the source architecture (`Arch::C`).
pub fn to_program(src: &Source, arch: Arch, name: &str) -> Program {
    let vals = values(src);
    let locations = (0..src.locations())
        .map(|l| Location {
            name: loc_name(l),
            phys: l,
            virt: l,
            init: 0,
            init_arbitrary: None,
            space: None,
        })
        .collect();
    let threads = src
        .threads
        .iter()
        .enumerate()
        .map(|(t, th)| {
            let mut reg = 0;
            let mut text_reg = 0;
            let mut fresh = || {
                let r = format!("r{reg}");
                reg += 1;
                r
            };
            let instrs = th
                .instrs
                .iter()
                .enumerate()
                .map(|(k, i)| {
                    let addr = Addr::Fixed(i.loc as usize);
                    let kind = match i.op {
                        Op::Load => InstrKind::Load { dst: fresh(), addr },
                        Op::Store => InstrKind::Store {
                            addr,
                            value: Operand::Const(vals[t][k]),
                        },
                        Op::Rmw => InstrKind::Rmw {
                            dst: Some(fresh()),
                            addr,
                            op: RmwOp::Exch,
                            operand: Operand::Const(vals[t][k]),
                        },
                        Op::Fence => InstrKind::Fence,
                        // Its desired value is never written either.
                        Op::CasFail => InstrKind::Rmw {
                            dst: Some(fresh()),
                            addr,
                            op: RmwOp::Cas {
                                expected: Operand::Const(NEVER_WRITTEN),
                            },
                            operand: Operand::Const(NEVER_WRITTEN),
                        },
                    };
                    let mut tags = vec![i.order.tag().to_string()];
                    if i.op == Op::Fence {
                        tags.insert(0, "F".to_string());
                    }
                    if let Some(s) = i.scope {
                        tags.push(s.tag().to_string());
                    }
                    let mut ins = Instr::new(
                        kind,
                        tags,
                        Pos {
                            line: (k + 1) as u32,
                            col: 1,
                        },
                        c_statement(i, &mut text_reg, vals[t][k]),
                    );
                    tagging::finish(arch, &mut ins);
                    ins
                })
                .collect();
            Thread {
                name: format!("P{t}"),
                placement: Placement {
                    ids: vec![th.cta as i64, th.gpu as i64],
                    warp: None,
                },
                instrs,
                init_regs: Vec::new(),
            }
        })
        .collect();
    Program {
        kernel: false,
        name: name.to_string(),
        arch,
        threads,
        locations,
        ssw: Vec::new(),
        filter: None,
        assertion: None,
        observed: Vec::new(),
        inputs: Vec::new(),
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: Vec::new(),
        default_model: None,
    }
}

/// The thread paths of a straight-line program (one per thread), as the
/// explicit engine's unrolling gives them; read values are 0 (the checker
/// chooses rf itself).
pub fn paths(p: &Program) -> Vec<ThreadPath> {
    p.threads
        .iter()
        .map(|th| {
            let mut events = Vec::new();
            for (k, ins) in th.instrs.iter().enumerate() {
                let ev = |kind, loc, value, rmw_read| PathEvent {
                    kind,
                    instr: k,
                    loc,
                    value,
                    rmw_read,
                    addr_deps: Vec::new(),
                    data_deps: Vec::new(),
                    ctrl_deps: Vec::new(),
                    spinning: false,
                };
                let konst = |o: &Operand| match o {
                    Operand::Const(v) => *v,
                    Operand::Reg(_) => 0,
                };
                match &ins.kind {
                    InstrKind::Load { addr, .. } => {
                        events.push(ev(PathEventKind::Read, addr.fixed(), 0, None))
                    }
                    InstrKind::Store { addr, value } => {
                        events.push(ev(PathEventKind::Write, addr.fixed(), konst(value), None))
                    }
                    // A compare-exchange that expects a value no write
                    // writes fails: its read alone.
                    InstrKind::Rmw {
                        addr,
                        op:
                            RmwOp::Cas {
                                expected: Operand::Const(e),
                            },
                        ..
                    } if *e == NEVER_WRITTEN => {
                        events.push(ev(PathEventKind::Read, addr.fixed(), 0, None))
                    }
                    InstrKind::Rmw { addr, operand, .. } => {
                        let r = events.len();
                        events.push(ev(PathEventKind::Read, addr.fixed(), 0, None));
                        events.push(ev(
                            PathEventKind::Write,
                            addr.fixed(),
                            konst(operand),
                            Some(r),
                        ));
                    }
                    InstrKind::Fence => events.push(ev(PathEventKind::Fence, None, 0, None)),
                    _ => {}
                }
            }
            ThreadPath {
                events,
                regs: Vec::new(),
                undefs: Vec::new(),
                end: PathEnd::Done,
                ub: None,
            }
        })
        .collect()
}

fn c_scope(s: Scope) -> &'static str {
    match s {
        Scope::Cta => "memory_scope_work_group",
        Scope::Gpu => "memory_scope_device",
        Scope::Sys => "memory_scope_all_svm_devices",
    }
}

/// One instruction as a C statement (OpenCL C spelling of scopes).
fn c_statement(i: &crate::enumerate::Instr, reg: &mut usize, value: i64) -> String {
    let loc = loc_name(i.loc as usize);
    let mut fresh = || {
        let r = format!("r{reg}");
        *reg += 1;
        r
    };
    let args = |i: &crate::enumerate::Instr| match i.scope {
        Some(s) => format!("{}, {}", i.order.c_name(), c_scope(s)),
        None => i.order.c_name().to_string(),
    };
    match (i.op, i.order) {
        (Op::Load, MemOrder::Na) => format!("int {} = *{loc};", fresh()),
        (Op::Store, MemOrder::Na) => format!("*{loc} = {value};"),
        (Op::Load, _) => format!(
            "int {} = atomic_load_explicit({loc}, {});",
            fresh(),
            args(i)
        ),
        (Op::Store, _) => format!("atomic_store_explicit({loc}, {value}, {});", args(i)),
        (Op::Rmw, _) => format!(
            "int {} = atomic_exchange_explicit({loc}, {value}, {});",
            fresh(),
            args(i)
        ),
        (Op::Fence, _) => format!("atomic_thread_fence({});", args(i)),
        // The expected value's variable receives the value read when the
        // comparison fails: it is the register the condition names.
        (Op::CasFail, _) => {
            let r = fresh();
            let o = i.order.c_name();
            let scope = i
                .scope
                .map_or(String::new(), |s| format!(", {}", c_scope(s)));
            format!(
                "int {r} = {NEVER_WRITTEN}; atomic_compare_exchange_strong_explicit({loc}, &{r}, {NEVER_WRITTEN}, {o}, {o}{scope});"
            )
        }
    }
}

/// The program as a C litmus test (herd7's `C` format with OpenCL C scopes
/// and our thread placement `P0@cta 0,gpu 0`), with `exists` clause
/// `cond` if given.
pub fn c_litmus(src: &Source, name: &str, cond: Option<&str>) -> String {
    let vals = values(src);
    let nloc = src.locations();
    let mut out = format!("C {name}\n\n{{\n");
    for l in 0..nloc {
        out.push_str(&format!("  {} = 0;\n", loc_name(l)));
    }
    out.push_str("}\n");
    for (t, th) in src.threads.iter().enumerate() {
        let used: Vec<usize> = (0..nloc)
            .filter(|&l| {
                th.instrs
                    .iter()
                    .any(|i| i.op != Op::Fence && i.loc as usize == l)
            })
            .collect();
        let params: Vec<String> =
            used.iter()
                .map(|&l| {
                    let atomic = th.instrs.iter().any(|i| {
                        i.op != Op::Fence && i.loc as usize == l && i.order != MemOrder::Na
                    });
                    let ty = if atomic { "atomic_int" } else { "int" };
                    format!("{ty}* {}", loc_name(l))
                })
                .collect();
        out.push_str(&format!(
            "\nP{t}@cta {},gpu {} ({}) {{\n",
            th.cta,
            th.gpu,
            params.join(", ")
        ));
        let mut reg = 0;
        for (k, i) in th.instrs.iter().enumerate() {
            out.push_str(&format!("  {}\n", c_statement(i, &mut reg, vals[t][k])));
        }
        out.push_str("}\n");
    }
    if let Some(c) = cond {
        out.push_str(&format!("\nexists ({c})\n"));
    }
    out
}
