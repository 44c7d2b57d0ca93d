//! Enumerated source programs as IR ([`to_program`]), their thread paths
//! with every branch taken ([`paths`]), and as C litmus text
//! ([`c_litmus`]).

use crate::enumerate::{Branch, MemOrder, Op, Scope, Source};
use crate::frontend::tagging;
use crate::ir::{
    Addr, Arch, CmpOp, Instr, InstrKind, Location, Operand, Placement, Pos, Program, RmwOp, Thread,
};
use gpumc_verify::engine::paths::{PathEnd, PathEvent, PathEventKind, ThreadPath};
use std::collections::BTreeMap;

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

/// The label a thread's branches skip to (its end).
const SKIP: &str = "skip";

/// The value a [`Branch::AnyValue`] names in the IR: a placeholder that
/// nothing reads (paths take every branch, and a counterexample is pinned
/// to [`Branch::Value`] before it is printed or re-checked by the verifier).
const ANY_VALUE_PLACEHOLDER: i64 = 0;

/// The index in the IR thread of source instruction `k` of `th` (each
/// branch is an IR instruction of its own).
pub fn ir_index(th: &crate::enumerate::Thread, k: usize) -> usize {
    k + th.instrs[..k].iter().filter(|i| i.branch.is_some()).count()
}

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
/// thread; a branch after a read is `if r != v goto skip`, `skip` the
/// thread's end. `arch` is the source architecture (`Arch::C`).
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
            let mut instrs: Vec<Instr> = Vec::new();
            for (k, i) in th.instrs.iter().enumerate() {
                let pos = Pos {
                    line: (k + 1) as u32,
                    col: 1,
                };
                let ins = {
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
                    let mut ins =
                        Instr::new(kind, tags, pos, c_statement(i, &mut text_reg, vals[t][k]));
                    tagging::finish(arch, &mut ins);
                    ins
                };
                let dst = match &ins.kind {
                    InstrKind::Load { dst, .. } | InstrKind::Rmw { dst: Some(dst), .. } => {
                        Some(dst.clone())
                    }
                    _ => None,
                };
                instrs.push(ins);
                if let (Some(b), Some(r)) = (i.branch, dst) {
                    let v = branch_value(b);
                    instrs.push(Instr::new(
                        InstrKind::Branch {
                            op: CmpOp::Ne,
                            a: Operand::Reg(r.clone()),
                            b: Operand::Const(v),
                            target: SKIP.to_string(),
                        },
                        Vec::new(),
                        pos,
                        format!("if ({r} == {v})"),
                    ));
                }
            }
            if th.instrs.iter().any(|i| i.branch.is_some()) {
                instrs.push(Instr::new(
                    InstrKind::Label(SKIP.to_string()),
                    Vec::new(),
                    Pos {
                        line: (th.instrs.len() + 1) as u32,
                        col: 1,
                    },
                    String::new(),
                ));
            }
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

fn branch_value(b: Branch) -> i64 {
    match b {
        Branch::Value(v) => v,
        Branch::AnyValue => ANY_VALUE_PLACEHOLDER,
    }
}

/// The thread paths of a program of [`to_program`] or its compilation (one
/// per thread, every branch taken), as the explicit engine's unrolling
/// gives them: every event after a branch is control-dependent on the
/// reads its registers come from (through register copies and arithmetic
/// too). Read values are 0 (the checker chooses rf itself, and pins a
/// branch's value by rf: [`pinned_reads`]).
pub fn paths(p: &Program) -> Vec<ThreadPath> {
    p.threads
        .iter()
        .map(|th| {
            let mut events = Vec::new();
            // Per register, the reads (path indices) its value comes from;
            // the reads every later event is control-dependent on.
            let mut from: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
            let mut ctrl: Vec<usize> = Vec::new();
            for (k, ins) in th.instrs.iter().enumerate() {
                let ctrl_now = ctrl.clone();
                let ev = |kind, loc, value, rmw_read| PathEvent {
                    kind,
                    instr: k,
                    loc,
                    value,
                    rmw_read,
                    addr_deps: Vec::new(),
                    data_deps: Vec::new(),
                    ctrl_deps: ctrl_now.clone(),
                    spinning: false,
                };
                let reads = |o: &Operand, from: &BTreeMap<&str, Vec<usize>>| match o {
                    Operand::Reg(r) => from.get(r.as_str()).cloned().unwrap_or_default(),
                    Operand::Const(_) => Vec::new(),
                };
                let first = events.len();
                let konst = |o: &Operand| match o {
                    Operand::Const(v) => *v,
                    Operand::Reg(_) => 0,
                };
                match &ins.kind {
                    InstrKind::Load { addr, dst } => {
                        events.push(ev(PathEventKind::Read, addr.fixed(), 0, None));
                        from.insert(dst, vec![first]);
                    }
                    InstrKind::Local { dst, a, b, .. } => {
                        let mut d = reads(a, &from);
                        d.extend(reads(b, &from));
                        d.sort_unstable();
                        d.dedup();
                        from.insert(dst, d);
                    }
                    InstrKind::Branch { a, b, .. } => {
                        ctrl.extend(reads(a, &from));
                        ctrl.extend(reads(b, &from));
                        ctrl.sort_unstable();
                        ctrl.dedup();
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
                        events.push(ev(PathEventKind::Read, addr.fixed(), 0, None));
                        events.push(ev(
                            PathEventKind::Write,
                            addr.fixed(),
                            konst(operand),
                            Some(first),
                        ));
                    }
                    InstrKind::Fence => events.push(ev(PathEventKind::Fence, None, 0, None)),
                    _ => {}
                }
                if let InstrKind::Rmw { dst: Some(d), .. } = &ins.kind {
                    from.insert(d, vec![first]);
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

/// The reads whose value a [`Branch::Value`] pins: (thread, IR
/// instruction, the value it must read), for the explicit check's rf.
pub fn pinned_reads(src: &Source) -> Vec<(usize, usize, i64)> {
    let mut out = Vec::new();
    for (t, th) in src.threads.iter().enumerate() {
        for (k, i) in th.instrs.iter().enumerate() {
            if let Some(Branch::Value(v)) = i.branch {
                out.push((t, ir_index(th, k), v));
            }
        }
    }
    out
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
        let mut indent = "  ".to_string();
        for (k, i) in th.instrs.iter().enumerate() {
            let read_reg = reg;
            out.push_str(&format!(
                "{indent}{}\n",
                c_statement(i, &mut reg, vals[t][k])
            ));
            match i.branch {
                Some(Branch::Value(v)) => {
                    out.push_str(&format!("{indent}if (r{read_reg} == {v}) {{\n"));
                    indent.push_str("  ");
                }
                // Never printed by a report (counterexamples are pinned);
                // a debugging print says what it stands for.
                Some(Branch::AnyValue) => {
                    out.push_str(&format!(
                        "{indent}if (r{read_reg} == /* any value */ r{read_reg}) {{\n"
                    ));
                    indent.push_str("  ");
                }
                None => {}
            }
        }
        while indent.len() > 2 {
            indent.truncate(indent.len() - 2);
            out.push_str(&format!("{indent}}}\n"));
        }
        out.push_str("}\n");
    }
    if let Some(c) = cond {
        out.push_str(&format!("\nexists ({c})\n"));
    }
    out
}
