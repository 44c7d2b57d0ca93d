//! The interleaving (sequentially consistent) state graph of a program and
//! its weakly fair cycles (Sorensen et al., OOPSLA'21 §4–5, generalised to registers and
//! scope hierarchies).
//!
//! A state holds every thread's pc and registers, the memory, and which
//! threads have taken a step. A step of thread `t` executes its next
//! visible instruction (memory access or fence) against the memory, then
//! the local instructions up to the following visible one. The fair set
//! of a state is a function of (stepped, terminated), so it is constant on
//! a cycle. A strongly connected component with an internal edge whose
//! internal edges include a step of every fair thread is a weakly fair
//! infinite run: a liveness violation.

use super::interp::{Code, Effect, Local, Op, DIVERGED};
use super::progress::Hierarchy;
use crate::diag::Result;
use crate::ir::Program;
use std::collections::{HashMap, VecDeque};

/// One step of an interleaving.
#[derive(Clone, Debug)]
pub struct Step {
    pub thread: usize,
    /// The visible instruction executed (`None`: a local loop step).
    pub instr: Option<usize>,
    pub effect: Effect,
}

/// A weakly fair lasso: `prefix` leads from the initial state to a state
/// on the cycle; `cycle` returns to it.
#[derive(Clone, Debug)]
pub struct Lasso {
    pub prefix: Vec<Step>,
    pub cycle: Vec<Step>,
    /// Fair threads on the cycle.
    pub fair: u64,
    /// Threads that step on the cycle.
    pub looping: u64,
    /// Terminated threads on the cycle.
    pub terminated: u64,
}

pub enum Outcome {
    /// The graph was explored completely; `lasso` is a violation if any.
    Explored { states: usize, lasso: Option<Lasso> },
    /// Not applicable (barriers) or too large.
    Unsupported(String),
}

struct Edge {
    from: u32,
    to: u32,
    step: Step,
}

/// Explores the interleavings of `p` (threads compiled to `codes`).
pub fn explore(
    p: &Program,
    codes: &[Code],
    hier: &Hierarchy,
    max_states: usize,
) -> Result<Outcome> {
    let n = codes.len();
    if let Some(l) = p.locations.iter().find(|l| l.init_arbitrary.is_some()) {
        return Ok(Outcome::Unsupported(format!(
            "`{}` has an arbitrary initial value, which the interleaving graph does not enumerate",
            l.name
        )));
    }
    if codes
        .iter()
        .any(|c| c.ops.iter().any(|o| matches!(o, Op::Barrier)))
    {
        return Ok(Outcome::Unsupported(
            "control barriers are not modelled by the interleaving graph".into(),
        ));
    }
    let nloc = p.locations.len();
    let reg_off: Vec<usize> = {
        let mut off = Vec::with_capacity(n);
        let mut k = n;
        for c in codes {
            off.push(k);
            k += c.reg_names.len();
        }
        off
    };
    let mem_off = n + codes.iter().map(|c| c.reg_names.len()).sum::<usize>();
    let key_len = mem_off + nloc + 1;
    let encode = |locals: &[Local], mem: &[i64], stepped: u64| -> Vec<i64> {
        let mut k = Vec::with_capacity(key_len);
        for l in locals {
            k.push(if l.pc == DIVERGED { -1 } else { l.pc as i64 });
        }
        for l in locals {
            k.extend_from_slice(&l.regs);
        }
        k.extend_from_slice(mem);
        k.push(stepped as i64);
        k
    };
    let decode = |k: &[i64]| -> (Vec<Local>, Vec<i64>, u64) {
        let locals = (0..n)
            .map(|t| Local {
                pc: if k[t] < 0 { DIVERGED } else { k[t] as usize },
                regs: k[reg_off[t]..reg_off[t] + codes[t].reg_names.len()].to_vec(),
            })
            .collect();
        (
            locals,
            k[mem_off..mem_off + nloc].to_vec(),
            k[key_len - 1] as u64,
        )
    };
    let mut mem = vec![0i64; nloc];
    for (i, l) in p.locations.iter().enumerate() {
        if l.phys == i {
            mem[i] = l.init;
        }
    }
    let mut init_locals = Vec::with_capacity(n);
    for c in codes {
        let mut l = c.init.clone();
        if let Some(o) = local(c.run_local(&mut l))? {
            return Ok(o);
        }
        init_locals.push(l);
    }
    let mut index: HashMap<Vec<i64>, u32> = HashMap::new();
    let mut keys: Vec<Vec<i64>> = Vec::new();
    let mut parent: Vec<Option<u32>> = Vec::new(); // edge index
    let mut edges: Vec<Edge> = Vec::new();
    let k0 = encode(&init_locals, &mem, 0);
    index.insert(k0.clone(), 0);
    keys.push(k0);
    parent.push(None);
    let mut queue = VecDeque::from([0u32]);
    while let Some(s) = queue.pop_front() {
        crate::guard::check()?;
        let (locals, mem, stepped) = decode(&keys[s as usize]);
        for t in 0..n {
            let c = &codes[t];
            let mut l = locals[t].clone();
            if c.terminated(&l) {
                continue;
            }
            let mut m = mem.clone();
            let step = if l.pc == DIVERGED {
                Step {
                    thread: t,
                    instr: None,
                    effect: Effect::default(),
                }
            } else {
                let pc = l.pc;
                let eff = c.exec(&mut l, |loc| m[loc]);
                if let (Some(loc), Some(w)) = (eff.loc, eff.written) {
                    m[loc] = w;
                }
                if let Some(o) = local(c.run_local(&mut l))? {
                    return Ok(o);
                }
                Step {
                    thread: t,
                    instr: Some(pc),
                    effect: eff,
                }
            };
            let mut ls = locals.clone();
            ls[t] = l;
            let k = encode(&ls, &m, stepped | 1 << t);
            let to = match index.get(&k) {
                Some(&i) => i,
                None => {
                    if keys.len() >= max_states {
                        return Ok(Outcome::Unsupported(format!(
                            "more than {max_states} interleaving states"
                        )));
                    }
                    let i = keys.len() as u32;
                    index.insert(k.clone(), i);
                    keys.push(k);
                    parent.push(Some(edges.len() as u32));
                    queue.push_back(i);
                    i
                }
            };
            edges.push(Edge { from: s, to, step });
        }
    }
    let nstates = keys.len();
    let terminated_of = |k: &[i64]| -> u64 {
        let mut m = 0u64;
        for (t, c) in codes.iter().enumerate() {
            if k[t] >= 0 && k[t] as usize == c.len() {
                m |= 1 << t;
            }
        }
        m
    };
    // Adjacency.
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); nstates];
    for (i, e) in edges.iter().enumerate() {
        out[e.from as usize].push(i as u32);
    }
    let comp = tarjan(nstates, &out, &edges);
    // Per component: internal edges' threads.
    let ncomp = comp.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut threads_in = vec![0u64; ncomp];
    let mut has_edge = vec![false; ncomp];
    for e in &edges {
        let (a, b) = (comp[e.from as usize], comp[e.to as usize]);
        if a == b {
            threads_in[a as usize] |= 1 << e.step.thread;
            has_edge[a as usize] = true;
        }
    }
    // The violating component whose state is reached first (BFS order).
    let mut best: Option<(u32, u64, u64)> = None;
    for s in 0..nstates {
        let c = comp[s] as usize;
        if !has_edge[c] {
            continue;
        }
        let k = &keys[s];
        let stepped = k[key_len - 1] as u64;
        let term = terminated_of(k);
        if hier.fair_ok(stepped, term, threads_in[c], 0) {
            best = Some((s as u32, stepped, term));
            break;
        }
    }
    let Some((s0, stepped0, term0)) = best else {
        return Ok(Outcome::Explored {
            states: nstates,
            lasso: None,
        });
    };
    let c0 = comp[s0 as usize];
    // Prefix: parent edges back to the initial state.
    let mut prefix = Vec::new();
    let mut cur = s0;
    while let Some(e) = parent[cur as usize] {
        let e = &edges[e as usize];
        prefix.push(e.step.clone());
        cur = e.from;
    }
    prefix.reverse();
    // Cycle: visit an internal edge of a thread of every guaranteed
    // entity, then return.
    let (entities, fair) = hier.fair_entities(stepped0, term0);
    let inside = threads_in[c0 as usize];
    let mut required: Vec<usize> = Vec::new();
    for m in entities {
        if m & !term0 == 0 || (0..n).any(|t| required.contains(&t) && m >> t & 1 == 1) {
            continue;
        }
        if let Some(t) = (0..n).find(|t| (m & inside) >> t & 1 == 1) {
            required.push(t);
        }
    }
    let mut cycle: Vec<Step> = Vec::new();
    let mut looping = 0u64;
    let mut at = s0;
    for &t in &required {
        if let Some(path) = path_in_comp(at, c0, &comp, &out, &edges, |e| e.step.thread == t) {
            for &ei in &path {
                let e = &edges[ei as usize];
                looping |= 1 << e.step.thread;
                cycle.push(e.step.clone());
                at = e.to;
            }
        }
    }
    if at != s0 || cycle.is_empty() {
        let back = path_in_comp(at, c0, &comp, &out, &edges, |e| e.to == s0).unwrap_or_default();
        for &ei in &back {
            let e = &edges[ei as usize];
            looping |= 1 << e.step.thread;
            cycle.push(e.step.clone());
        }
    }
    Ok(Outcome::Explored {
        states: nstates,
        lasso: Some(Lasso {
            prefix,
            cycle,
            fair,
            looping,
            terminated: terminated_of(&keys[s0 as usize]),
        }),
    })
}

/// A local run that is too long makes the graph unsupported; other errors
/// (division by zero in an SC execution) are errors of the program.
fn local(r: Result<()>) -> Result<Option<Outcome>> {
    match r {
        Ok(()) => Ok(None),
        Err(e) if e.kind == crate::diag::ErrorKind::Unsupported => {
            Ok(Some(Outcome::Unsupported(e.message)))
        }
        Err(e) => Err(e),
    }
}

/// Shortest path of internal edges of component `c` from `from`, ending
/// with an edge satisfying `goal` (edge indices).
fn path_in_comp(
    from: u32,
    c: u32,
    comp: &[u32],
    out: &[Vec<u32>],
    edges: &[Edge],
    goal: impl Fn(&Edge) -> bool,
) -> Option<Vec<u32>> {
    let mut prev: HashMap<u32, u32> = HashMap::new(); // state -> edge into it
    let mut queue = VecDeque::from([from]);
    let mut seen = std::collections::HashSet::from([from]);
    while let Some(s) = queue.pop_front() {
        for &ei in &out[s as usize] {
            let e = &edges[ei as usize];
            if comp[e.to as usize] != c {
                continue;
            }
            if goal(e) {
                let mut path = vec![ei];
                let mut cur = s;
                while cur != from {
                    let pe = prev[&cur];
                    path.push(pe);
                    cur = edges[pe as usize].from;
                }
                path.reverse();
                return Some(path);
            }
            if seen.insert(e.to) {
                prev.insert(e.to, ei);
                queue.push_back(e.to);
            }
        }
    }
    None
}

/// Tarjan's strongly connected components, iteratively.
fn tarjan(n: usize, out: &[Vec<u32>], edges: &[Edge]) -> Vec<u32> {
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut next = 0u32;
    let mut ncomp = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != UNSEEN {
            continue;
        }
        let mut call: Vec<(u32, usize)> = vec![(root, 0)];
        index[root as usize] = next;
        low[root as usize] = next;
        next += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < out[v as usize].len() {
                let w = edges[out[v as usize][*i] as usize].to;
                *i += 1;
                if index[w as usize] == UNSEEN {
                    index[w as usize] = next;
                    low[w as usize] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = ncomp;
                        if w == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}
