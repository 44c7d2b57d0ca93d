//! The termination oracle: "is the test guaranteed to terminate under model
//! M?", decided exactly on the state graph ([`super::lts`]).
//!
//! * **Weak fairness** (Sorensen et al., OOPSLA'21 Listing 1, Lemma 9.1): the test can fail to
//!   terminate iff some cycle keeps a non-empty fair set `F` constant and
//!   contains a step by every thread of `F`. Inside a strongly connected
//!   component a closed walk can use every internal edge, so it suffices to
//!   check, for each SCC with at least one internal edge, whether its `F` is
//!   non-empty and included in the set of threads labelling its internal
//!   edges. (`F` is constant on an SCC: steps only grow `aux`, and a
//!   termination never lies on a cycle.)
//! * **Strong fairness** (Listing 2, Lemma 9.2): the test passes iff from
//!   every reachable state some path of steps by threads in the current `F`
//!   reaches a state whose `F` is empty (a final state, or a state where
//!   nobody is guaranteed progress, so the scheduler must pick someone and
//!   the model's `F` changes). Computed as a backward closure from the
//!   `F = ∅` states along edges whose thread is in the source state's `F`.
//! * **Unfair**: no thread is ever guaranteed to run, so the test passes iff
//!   the reachable graph is acyclic. (Applying the two formulas above with
//!   `F = ∅` would give PASS for every test — the pitfall of the original
//!   MCL encoding, whose CADP log reports PASS/PASS for unfair.)

use super::ast::Test;
use super::lts::{explore, Lts};
use super::models::{Base, Fairness, Model};
use crate::diag::Result;
use serde::Serialize;
use std::fmt;

/// PASS = guaranteed to terminate under the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    Fail,
}

impl Verdict {
    pub fn from_pass(pass: bool) -> Verdict {
        if pass {
            Verdict::Pass
        } else {
            Verdict::Fail
        }
    }

    pub fn is_pass(self) -> bool {
        self == Verdict::Pass
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
        })
    }
}

/// The verdicts of one test under all 11 models, indexed like [`Model::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdicts(pub [Verdict; 11]);

impl Verdicts {
    pub fn get(&self, m: Model) -> Verdict {
        self.0[m.index()]
    }

    pub fn pass(&self, m: Model) -> bool {
        self.get(m).is_pass()
    }
}

/// Strongly connected components (iterative Tarjan). Returns the component
/// id of every state.
pub fn scc(lts: &Lts) -> (Vec<u32>, usize) {
    const UNSEEN: u32 = u32::MAX;
    let n = lts.num_states();
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    // Call stack frames: (state, next edge offset).
    let mut calls: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut ncomp = 0usize;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        calls.push((root as u32, lts.first[root]));
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut e)) = calls.last_mut() {
            let v = v as usize;
            if *e < lts.first[v + 1] {
                let (w, _) = lts.edges[*e as usize];
                *e += 1;
                let w = w as usize;
                if index[w] == UNSEEN {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    calls.push((w as u32, lts.first[w]));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    let u = u as usize;
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = ncomp as u32;
                        if w as usize == v {
                            break;
                        }
                    }
                    ncomp += 1;
                }
            }
        }
    }
    (comp, ncomp)
}

/// Per component: the threads labelling internal edges, and whether the
/// component has an internal edge at all.
fn internal_threads(lts: &Lts, comp: &[u32], ncomp: usize) -> (Vec<u8>, Vec<bool>) {
    let mut threads = vec![0u8; ncomp];
    let mut cyclic = vec![false; ncomp];
    for s in 0..lts.num_states() {
        for &(d, t) in lts.succ(s) {
            let c = comp[s] as usize;
            if comp[d as usize] as usize == c {
                threads[c] |= 1 << t;
                cyclic[c] = true;
            }
        }
    }
    (threads, cyclic)
}

/// True iff the graph has a cycle (self-loops included).
pub fn has_cycle(lts: &Lts) -> bool {
    let (comp, ncomp) = scc(lts);
    internal_threads(lts, &comp, ncomp).1.into_iter().any(|c| c)
}

/// Weak-fairness verdict on the graph (uses `lts.fair`).
pub fn weak_pass(lts: &Lts) -> bool {
    let (comp, ncomp) = scc(lts);
    let (threads, cyclic) = internal_threads(lts, &comp, ncomp);
    let mut fair: Vec<Option<u8>> = vec![None; ncomp];
    for (&c, &f) in comp.iter().zip(&lts.fair) {
        let c = c as usize;
        debug_assert!(fair[c].is_none_or(|g| g == f), "F not constant on an SCC");
        fair[c] = Some(f);
    }
    !(0..ncomp).any(|c| {
        let f = fair[c].unwrap_or(0);
        cyclic[c] && f != 0 && f & !threads[c] == 0
    })
}

/// Strong-fairness verdict on the graph (uses `lts.fair`).
pub fn strong_pass(lts: &Lts) -> bool {
    let n = lts.num_states();
    // Reverse adjacency restricted to steps by fair threads.
    let mut count = vec![0u32; n + 1];
    for s in 0..n {
        for &(d, t) in lts.succ(s) {
            if lts.fair[s] & (1 << t) != 0 {
                count[d as usize + 1] += 1;
            }
        }
    }
    for i in 0..n {
        count[i + 1] += count[i];
    }
    let mut fill = count.clone();
    let mut preds = vec![0u32; count[n] as usize];
    for s in 0..n {
        for &(d, t) in lts.succ(s) {
            if lts.fair[s] & (1 << t) != 0 {
                preds[fill[d as usize] as usize] = s as u32;
                fill[d as usize] += 1;
            }
        }
    }
    let mut good: Vec<bool> = lts.fair.iter().map(|&f| f == 0).collect();
    let mut work: Vec<u32> = (0..n as u32).filter(|&s| good[s as usize]).collect();
    let mut reached = work.len();
    while let Some(d) = work.pop() {
        let d = d as usize;
        for &p in &preds[count[d] as usize..count[d + 1] as usize] {
            if !good[p as usize] {
                good[p as usize] = true;
                reached += 1;
                work.push(p);
            }
        }
    }
    reached == n
}

/// The verdict of `model` on an explored graph of the model's base.
pub fn verdict_on(lts: &Lts, model: Model) -> Verdict {
    debug_assert_eq!(lts.base, model.base);
    Verdict::from_pass(match model.fairness {
        None => !has_cycle(lts),
        Some(Fairness::Weak) => weak_pass(lts),
        Some(Fairness::Strong) => strong_pass(lts),
    })
}

/// Decides one model.
pub fn decide(test: &Test, model: Model) -> Result<Verdict> {
    let lts = explore(test, model.base)?;
    Ok(verdict_on(&lts, model))
}

/// Decides all 11 models (one graph per base model; unfair, fair and HSA
/// share a graph shape, but each is explored with its own `F`).
pub fn decide_all(test: &Test) -> Result<Verdicts> {
    let mut out = [Verdict::Fail; 11];
    for base in Base::ALL {
        let lts = explore(test, base)?;
        for m in Model::ALL.into_iter().filter(|m| m.base == base) {
            out[m.index()] = verdict_on(&lts, m);
        }
    }
    Ok(Verdicts(out))
}
