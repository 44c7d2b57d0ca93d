//! Barrier divergence (docs/SEMANTICS.md, "Barrier divergence"): in a
//! kernel, every thread of a block (PTX CTA) or workgroup (SPIR-V) must
//! pass the same barriers; a barrier some of them pass fewer times than
//! others — inside a branch only some take, or a loop they leave after
//! different numbers of iterations — is undefined behaviour (CUDA:
//! `__syncthreads()` in conditional code "only if the conditional
//! evaluates identically across the entire thread block"; OpenCL and
//! Vulkan: a control barrier must be reached by every invocation of the
//! work-group, or by none). GPUVerify (Betts et al., OOPSLA'12) checks it
//! beside data races.
//!
//! gpumc compares, in an execution where every thread has ended (run to
//! its end, or waiting forever at a barrier), how many times each thread
//! arrives at each barrier of the source (by its line: the threads of a
//! kernel run one code); both engines use this one definition. It covers
//! both ways divergence shows: PTX's `bar.sync` without a count releases
//! the threads that arrive (the others having exited), SPIR-V's control
//! barrier waits for the whole workgroup and so deadlocks — either way an
//! execution without a final state, which must not pass for a correct
//! kernel. Barriers that count fewer threads than the group (`bar.sync
//! a, b`) and arrive-only barriers are left out: they are meant for a
//! subset.

use super::paths::{PathEventKind, ThreadPath};
use crate::ir::{InstrKind, Operand, Program};
use std::collections::BTreeMap;

/// The threads that must pass the same barriers, in groups (one per
/// block or workgroup that has a barrier for all its threads). Empty for
/// a litmus test (its threads are columns of different code).
pub fn groups(p: &Program) -> Vec<Vec<usize>> {
    if !p.kernel {
        return Vec::new();
    }
    let mut by_instance: BTreeMap<Vec<i64>, Vec<usize>> = BTreeMap::new();
    for (th, _) in p.threads.iter().enumerate() {
        by_instance
            .entry(super::exec::barrier_instance(p, th))
            .or_default()
            .push(th);
    }
    by_instance
        .into_values()
        .filter(|g| {
            g.len() > 1
                && g.iter().any(|&t| {
                    p.threads[t]
                        .instrs
                        .iter()
                        .any(|i| is_full_barrier(i, g.len()))
                })
        })
        .collect()
}

/// A barrier every thread of its group of `size` threads waits at: no
/// thread count, or the group's size; not arrive-only, and not a warp's or
/// subgroup's (`__syncwarp` in one warp of a block is no divergence; an id
/// computed at run time, in a loop, is told by its value where it runs).
pub fn is_full_barrier(i: &crate::ir::Instr, size: usize) -> bool {
    match &i.kind {
        InstrKind::Barrier {
            id,
            count,
            arrive: false,
        } => {
            let warp = matches!(id, Operand::Const(c) if *c >= crate::ir::WARP_BARRIER_IDS);
            !warp
                && match count {
                    None => true,
                    Some(Operand::Const(c)) => *c == size as i64,
                    Some(_) => false,
                }
        }
        _ => false,
    }
}

/// The line that names barrier instruction `instr` of thread `th`: the
/// same barrier of the source in every thread of the kernel.
pub fn barrier_line(p: &Program, th: usize, instr: usize) -> u32 {
    p.threads[th].instrs[instr].pos.line
}

/// How many times thread `th` of a group of `size` arrives at each
/// barrier (by line) in `path`.
fn counts(p: &Program, th: usize, size: usize, path: &ThreadPath) -> BTreeMap<u32, u64> {
    let mut out = BTreeMap::new();
    for e in &path.events {
        if matches!(e.kind, PathEventKind::Barrier { id, .. } if id < crate::ir::WARP_BARRIER_IDS)
            && is_full_barrier(&p.threads[th].instrs[e.instr], size)
        {
            *out.entry(barrier_line(p, th, e.instr)).or_insert(0) += 1;
        }
    }
    out
}

/// The note of a barrier divergence in the execution of `paths` (one per
/// thread, every one ended: done or waiting forever at a barrier), if
/// there is one: the first group, barrier and pair of threads that
/// disagree.
pub fn note(p: &Program, groups: &[Vec<usize>], paths: &[&ThreadPath]) -> Option<String> {
    for g in groups {
        let all: Vec<BTreeMap<u32, u64>> =
            g.iter().map(|&t| counts(p, t, g.len(), paths[t])).collect();
        let lines: std::collections::BTreeSet<u32> =
            all.iter().flat_map(|c| c.keys().copied()).collect();
        for line in lines {
            let n = |k: usize| all[k].get(&line).copied().unwrap_or(0);
            if let Some(k) = (1..g.len()).find(|&k| n(k) != n(0)) {
                let (a, b) = (g[0], g[k]);
                return Some(format!(
                    "undefined behaviour: barrier divergence: thread {} arrives at the barrier at {} {} and thread {} {} (the threads of a block or workgroup must pass the same barriers)",
                    p.threads[a].name,
                    where_(p, line, g.len()),
                    times(n(0)),
                    p.threads[b].name,
                    times(n(k)),
                ));
            }
        }
    }
    None
}

fn times(n: u64) -> String {
    match n {
        1 => "once".to_string(),
        n => format!("{n} times"),
    }
}

/// The barrier at assembly line `line`, with its source position when the
/// program maps it (a CUDA or GLSL line). Any thread's copy names it: a
/// thread whose translation folded the barrier away has none.
fn where_(p: &Program, line: u32, size: usize) -> String {
    let ins = p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .find(|i| is_full_barrier(i, size) && i.pos.line == line);
    match ins {
        Some(i) => match p.source_of(i) {
            Some(src) => format!("{src} (`{}`, line {line})", crate::diag::excerpt(&i.text)),
            None => format!("line {line} (`{}`)", crate::diag::excerpt(&i.text)),
        },
        None => format!("line {line}"),
    }
}
