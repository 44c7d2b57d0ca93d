//! Test names as diy and Sorensen's thesis (sec. 5.1) write them: the
//! family the cycle's shape is known by (`MP`, `SB`, `IRIW`, …), then
//! `+` and the ordering of each thread that has a program-order edge
//! (`membar.cta`, `addr`, `data`, `po` for none), written once in the
//! plural when every such thread has the same (`MP+membar.gls`).

use crate::cycle::Test;
use crate::edge::{Edge, Via};

/// Families by their cycle, program-order edges written `Po`+directions
/// whatever orders them (diy's names; the thesis calls LB "LD").
const FAMILIES: &[(&str, &str)] = &[
    ("MP", "PodWW Rfe PodRR Fre"),
    ("SB", "PodWR Fre PodWR Fre"),
    ("LB", "PodRW Rfe PodRW Rfe"),
    ("S", "PodWW Rfe PodRW Wse"),
    ("R", "PodWW Wse PodWR Fre"),
    ("2+2W", "PodWW Wse PodWW Wse"),
    ("IRIW", "Rfe PodRR Fre Rfe PodRR Fre"),
    ("WRC", "Rfe PodRW Rfe PodRR Fre"),
    ("RWC", "Rfe PodRR Fre PodWR Fre"),
    ("ISA2", "PodWW Rfe PodRW Rfe PodRR Fre"),
    ("WWC", "Rfe PodRW Wse PodWR Fre"),
    ("W+RWC", "PodWW Rfe PodRR Fre PodWR Fre"),
    ("Z6.0", "PodWW Rfe PodRW Wse PodWR Fre"),
    ("3.SB", "PodWR Fre PodWR Fre PodWR Fre"),
    ("3.LB", "PodRW Rfe PodRW Rfe PodRW Rfe"),
    ("3.2W", "PodWW Wse PodWW Wse PodWW Wse"),
    ("CoRR", "Rfe PosRR Fre"),
    ("CoRW", "Rfe PosRW Wse"),
    ("CoWR", "PosWR Fre Wse"),
    ("CoWW", "PosWW Wse"),
];

/// An edge with its ordering forgotten (`Membar.ctadWW` → `PodWW`).
fn shape(e: &Edge) -> String {
    match e {
        Edge::Po {
            same_loc, from, to, ..
        } => Edge::Po {
            via: Via::Plain,
            same_loc: *same_loc,
            from: *from,
            to: *to,
        }
        .name(),
        Edge::Com { .. } => e.name(),
    }
}

/// The family name of a cycle, if its shape is known (up to rotation),
/// and the rotation that writes it as the family's cycle is written
/// (`Rfe PodRR Fre PodWW` is MP rotated by 3). Of several (a family
/// with symmetries: SB, IRIW), the one whose edges come first by name,
/// so that one test always gets one name.
pub fn family_rotation(cycle: &[Edge]) -> Option<(&'static str, usize)> {
    let words: Vec<String> = cycle.iter().map(shape).collect();
    let n = words.len();
    FAMILIES.iter().find_map(|(name, c)| {
        let known: Vec<&str> = c.split(' ').collect();
        if known.len() != n {
            return None;
        }
        (0..n)
            .filter(|&r| (0..n).all(|i| words[(i + r) % n] == known[i]))
            .min_by_key(|&r| {
                (0..n)
                    .map(|i| cycle[(i + r) % n].clone())
                    .collect::<Vec<_>>()
            })
            .map(|r| (*name, r))
    })
}

/// The family name of a cycle, if its shape is known (up to rotation).
pub fn family(cycle: &[Edge]) -> Option<&'static str> {
    family_rotation(cycle).map(|(n, _)| n)
}

/// The cycle as its family writes it (the rotation of
/// [`family_rotation`]); unchanged when the family is not known.
pub fn family_form(cycle: &[Edge]) -> Vec<Edge> {
    let r = family_rotation(cycle).map_or(0, |(_, r)| r);
    (0..cycle.len())
        .map(|i| cycle[(i + r) % cycle.len()].clone())
        .collect()
}

/// The label of one program-order ordering in a name.
fn label(via: &Via, default_fence: &str) -> String {
    match via {
        Via::Plain => "po".into(),
        Via::Fence(Some(f)) => f.clone(),
        Via::Fence(None) => default_fence.into(),
        Via::Addr => "addr".into(),
        Via::Data => "data".into(),
        Via::Ctrl => "ctrl".into(),
    }
}

/// The test's name: its family (or the cycle's edges joined by `+`
/// when the shape has no name), then the threads' orderings.
pub fn name(test: &Test, default_fence: &str) -> String {
    let (base, first) = match family_rotation(&test.cycle) {
        // (the threads named from the one holding the family's first edge)
        Some((f, r)) => (f.to_string(), test.event_at[r].0),
        None => {
            return test
                .cycle
                .iter()
                .map(|e| match e {
                    Edge::Po {
                        via: Via::Fence(None),
                        ..
                    } => e.name().replacen("Fence", &fence_word(default_fence), 1),
                    _ => e.name(),
                })
                .collect::<Vec<_>>()
                .join("+")
        }
    };
    // One label per thread with program-order edges.
    let k = test.threads.len();
    let labels: Vec<String> = (0..k)
        .map(|i| &test.threads[(first + i) % k])
        .filter(|t| t.len() > 1)
        .map(|t| {
            t.iter()
                .filter_map(|e| e.via.as_ref())
                .map(|v| label(v, default_fence))
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect();
    if labels.iter().all(|l| l == "po") {
        return base;
    }
    if labels.len() > 1 && labels.iter().all(|l| *l == labels[0]) {
        return format!("{base}+{}s", labels[0]);
    }
    format!("{base}+{}", labels.join("+"))
}

/// `membar.gl` → `Membar.gl` (as in an edge name).
fn fence_word(f: &str) -> String {
    let mut c = f.chars();
    c.next()
        .map(|h| h.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}
