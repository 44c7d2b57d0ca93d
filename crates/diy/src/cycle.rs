//! From a cycle to the abstract test diy builds from it (Alglave et
//! al., "Fences in weak memory models", CAV'10, sec. 6; the herdtools
//! `diy` documentation): one event per edge source, threads cut at the
//! external communication edges, a new location after each
//! different-location program-order edge, values in coherence order
//! along each location's stretch of the cycle, and the final condition
//! that holds exactly when the execution follows the cycle.

use crate::edge::{Com, Dir, Edge, Via};
use gpumc_core::diag::{Error, Result};
use gpumc_core::ir::Pos;

/// One access of the test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub dir: Dir,
    /// Location number: 0 is `x`, in order of first access (thread 0
    /// first).
    pub loc: usize,
    /// A write's value; a read's value in the final condition (`None`:
    /// unconstrained — a read that no communication edge touches).
    pub value: Option<i64>,
    /// How it is ordered after the thread's previous event (`None` for
    /// the first event of a thread).
    pub via: Option<Via>,
}

/// The abstract test of a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    pub threads: Vec<Vec<Event>>,
    /// Locations in all.
    pub locs: usize,
    /// Final values of locations that the condition states (every
    /// written location's coherence-last value, when the cycle has a
    /// coherence edge: the thesis's tests state them all).
    pub finals: Vec<(usize, i64)>,
    /// The cycle, as given.
    pub cycle: Vec<Edge>,
    /// Where each edge's source event went: (thread, index in thread).
    pub event_at: Vec<(usize, usize)>,
}

/// Builds the test of `cycle` (edges with their columns, for errors).
/// Thread 0 is the one holding the cycle's first edge.
pub fn build(cycle: &[(Edge, u32)]) -> Result<Test> {
    let n = cycle.len();
    let at = |k: usize| Pos {
        line: 1,
        col: cycle[k].1,
    };
    let edges: Vec<&Edge> = cycle.iter().map(|(e, _)| e).collect();
    // Event k is edge k's source (and edge k-1's target).
    for k in 0..n {
        let prev = edges[(k + n - 1) % n].dirs().1;
        let here = edges[k].dirs().0;
        if prev != here {
            return Err(Error::semantic(
                at(k),
                format!(
                    "`{}` starts at a {} but `{}` before it ends at a {}",
                    edges[k].name(),
                    word(here),
                    edges[(k + n - 1) % n].name(),
                    word(prev)
                ),
            ));
        }
    }
    let dirs: Vec<Dir> = (0..n).map(|k| edges[k].dirs().0).collect();
    // Threads: each starts at the target of an external edge. Thread 0
    // is the one holding edge 0: it starts after the last external edge
    // before (cyclically) edge 0.
    let Some(start) = (0..n)
        .map(|d| (n - d) % n)
        .find(|&k| edges[(k + n - 1) % n].external())
    else {
        return Err(Error::semantic(
            at(0),
            "the cycle has no external communication edge (Rfe, Fre, Wse): it needs two threads at least",
        ));
    };
    let order: Vec<usize> = (0..n).map(|i| (start + i) % n).collect();
    // Locations: a stretch per different-location po edge.
    let changes = edges.iter().filter(|e| e.changes_loc()).count();
    if changes == 1 {
        let k = (0..n).find(|&k| edges[k].changes_loc()).unwrap_or(0);
        return Err(Error::semantic(
            at(k),
            format!(
                "`{}` is the cycle's only edge to a different location, so the cycle could not come back to its first one",
                edges[k].name()
            ),
        ));
    }
    // Walk each stretch from its first event: after a `d` edge, or (one
    // location in all) after the first edge into a write that is
    // coherence-first — the target of a from-read or coherence edge.
    let walk_start = match (0..n).find(|&k| edges[k].changes_loc()) {
        Some(k) => (k + 1) % n,
        None => match (0..n).find(|&k| {
            matches!(
                edges[k],
                Edge::Com {
                    com: Com::Fr | Com::Ws,
                    ..
                }
            )
        }) {
            Some(k) => (k + 1) % n,
            None => {
                return Err(Error::semantic(
                    at(0),
                    "a cycle on one location needs a from-read or coherence edge (Fre, Wse, …)",
                ))
            }
        },
    };
    let mut stretch = vec![0usize; n];
    let mut values: Vec<Option<i64>> = vec![None; n];
    // Per stretch: its writes in coherence order.
    let mut writes: Vec<Vec<usize>> = vec![Vec::new()];
    let mut s = 0;
    for i in 0..n {
        let k = (walk_start + i) % n;
        stretch[k] = s;
        if dirs[k] == Dir::W {
            writes[s].push(k);
            values[k] = Some(writes[s].len() as i64);
        }
        if edges[k].changes_loc() && i + 1 < n {
            s += 1;
            writes.push(Vec::new());
        }
    }
    // Reads: the value of the write they read from (`Rf` into them), or
    // of the write coherence-before the one they are `Fr` to (0: the
    // initial value).
    for k in 0..n {
        if dirs[k] != Dir::R {
            continue;
        }
        let into = edges[(k + n - 1) % n];
        let out = edges[k];
        if matches!(into, Edge::Com { com: Com::Rf, .. }) {
            values[k] = values[(k + n - 1) % n];
        } else if matches!(out, Edge::Com { com: Com::Fr, .. }) {
            let target = (k + 1) % n;
            let w = &writes[stretch[target]];
            let i = w.iter().position(|&x| x == target).unwrap_or(0);
            // (values are 1, 2, … in coherence order)
            values[k] = Some(i as i64);
        }
    }
    // Location numbers by first access, thread 0 first.
    let mut loc_of_stretch: Vec<Option<usize>> = vec![None; writes.len()];
    let mut locs = 0;
    for &k in &order {
        if loc_of_stretch[stretch[k]].is_none() {
            loc_of_stretch[stretch[k]] = Some(locs);
            locs += 1;
        }
    }
    let loc = |k: usize| loc_of_stretch[stretch[k]].unwrap_or(0);
    let mut threads: Vec<Vec<Event>> = Vec::new();
    let mut event_at = vec![(0, 0); n];
    for (i, &k) in order.iter().enumerate() {
        let prev = (k + n - 1) % n;
        let new_thread = i == 0 || edges[prev].external();
        let via = match edges[prev] {
            Edge::Po { via, .. } if !new_thread => Some(via.clone()),
            // An internal communication edge: program order, nothing
            // more (the events are on one location).
            _ if !new_thread => Some(Via::Plain),
            _ => None,
        };
        if new_thread {
            threads.push(Vec::new());
        }
        event_at[k] = (threads.len() - 1, threads.last().map_or(0, Vec::len));
        if let Some(t) = threads.last_mut() {
            t.push(Event {
                dir: dirs[k],
                loc: loc(k),
                value: values[k],
                via,
            });
        }
    }
    let mut finals = Vec::new();
    if edges
        .iter()
        .any(|e| matches!(e, Edge::Com { com: Com::Ws, .. }))
    {
        for (st, w) in writes.iter().enumerate() {
            if let (Some(&last), Some(l)) = (w.last(), loc_of_stretch[st]) {
                finals.push((l, values[last].unwrap_or(0)));
            }
        }
        finals.sort();
    }
    Ok(Test {
        threads,
        locs,
        finals,
        cycle: edges.into_iter().cloned().collect(),
        event_at,
    })
}

fn word(d: Dir) -> &'static str {
    match d {
        Dir::R => "read",
        Dir::W => "write",
    }
}
