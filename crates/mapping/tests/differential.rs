//! The symbolic search against the explicit one, shape by shape: a shape
//! has a counterexample (some orders, scopes and placement) exactly when
//! one of the programs of that shape has one, on mappings broken in
//! several ways, up to 3 events.

use gpumc_compile::{Mapping, BUILTIN};
use gpumc_mapping::enumerate::{programs, Op, Source, Space};
use gpumc_mapping::search::Engine;
use gpumc_mapping::{verdicts, Models};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The built-in PTX mapping with one rule's sequence replaced.
fn ptx_with(rule: &str, sequence: &str) -> Mapping {
    let text = BUILTIN.iter().find(|(n, _)| *n == "ptx").unwrap().1;
    let edited: String = text
        .lines()
        .map(|l| {
            let head = l.split("->").next().unwrap_or("");
            if !l.trim_start().starts_with('#')
                && head.split_whitespace().collect::<Vec<_>>().join(" ") == rule
            {
                format!("{head}-> {sequence}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_ne!(edited.trim(), text.trim(), "no rule `{rule}`");
    Mapping::parse(&edited, Path::new("edited.map")).unwrap()
}

type Key = Vec<Vec<(Op, u8)>>;

/// A shape's key: kinds and locations per thread, least over thread
/// orders with locations renamed in order of first use.
fn key(p: &Source) -> Key {
    let k = p.threads.len();
    let mut best: Option<Key> = None;
    let mut perm: Vec<usize> = (0..k).collect();
    fn go(i: usize, perm: &mut Vec<usize>, p: &Source, best: &mut Option<Key>) {
        if i == perm.len() {
            let mut names: BTreeMap<u8, u8> = BTreeMap::new();
            let key: Key = perm
                .iter()
                .map(|&t| {
                    p.threads[t]
                        .instrs
                        .iter()
                        .map(|x| {
                            let l = if x.op == Op::Fence {
                                0
                            } else {
                                let n = names.len() as u8;
                                *names.entry(x.loc).or_insert(n)
                            };
                            (x.op.shape_kind(), l)
                        })
                        .collect()
                })
                .collect();
            if best.as_ref().is_none_or(|b| key < *b) {
                *best = Some(key);
            }
            return;
        }
        for j in i..perm.len() {
            perm.swap(i, j);
            go(i + 1, perm, p, best);
            perm.swap(i, j);
        }
    }
    go(0, &mut perm, p, &mut best);
    best.unwrap()
}

#[test]
fn symbolic_and_explicit_agree_shape_by_shape() {
    let c11 = gpumc_core::models::load("scoped-c11").unwrap();
    let ptx6 = gpumc_core::models::load("ptx-v6.0").unwrap();
    let models = Models {
        source: &c11,
        target: &ptx6,
    };
    let mut found = 0;
    for (events, descoped, cases) in [
        (
            3,
            false,
            vec![
                (ptx_with("load rlx $s", "ld.weak"), "coherence"),
                (ptx_with("store rlx $s", "st.weak"), "coherence"),
                (ptx_with("store rel $s", "st.relaxed.$s"), "coherence"),
                (ptx_with("rmw rlx $s", "atom.relaxed.cta"), "atomicity"),
                // A failing acquire compare-exchange read relaxed.
                (ptx_with("rmw acq $s", "atom.relaxed.$s"), "coherence"),
                (Mapping::builtin("ptx").unwrap(), "sc"),
            ],
        ),
        (
            4,
            true,
            vec![
                (ptx_with("load acq $s", "ld.relaxed.$s"), "coherence"),
                (ptx_with("load sc $s", "ld.acquire.$s"), "sc"),
                (
                    ptx_with("rmw sc $s", "fence.sc.$s ; atom.acquire.$s"),
                    "coherence",
                ),
            ],
        ),
    ] {
        found += differential(models, events, descoped, true, &cases);
    }
    // Vulkan: its model reads scope tags themselves (DV, QF, ...), so
    // every scope of every program, none normalised away.
    let vulkan = gpumc_core::models::load("vulkan").unwrap();
    let models = Models {
        source: &c11,
        target: &vulkan,
    };
    let text = BUILTIN.iter().find(|(n, _)| *n == "vulkan").unwrap().1;
    let weak_rlx = text.replace(
        "load  rlx  $s   -> ld.atom.$s.sc0",
        "load  rlx  $s   -> ld.nonpriv.sc0",
    );
    assert_ne!(weak_rlx, text);
    let weak_rlx = Mapping::parse(&weak_rlx, Path::new("weak.map")).unwrap();
    found += differential(
        models,
        3,
        false,
        false,
        &[
            (weak_rlx.clone(), "coherence"),
            (Mapping::builtin("vulkan").unwrap(), "coherence"),
        ],
    );
    found += differential(
        models,
        4,
        true,
        false,
        &[
            (weak_rlx, "coherence"),
            (Mapping::builtin("vulkan").unwrap(), "sc"),
        ],
    );
    // Not vacuous: 8 of the 13 cases have counterexamples at their bound.
    assert!(found >= 8, "{found}");
}

/// Branches on read values, with a source model that only they can
/// violate (`tests/models/c-ctrl-order.cat`): Vulkan ignores control
/// dependencies (a counterexample: load buffering through two branches),
/// PTX keeps them (its no-thin-air axiom; no counterexample). De-scoped, 4
/// events, loads and stores (a branch follows a load): every
/// program of the explicit search, every shape of the symbolic one.
#[test]
fn branches_agree_shape_by_shape() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/c-ctrl-order.cat");
    let ctrl = gpumc_core::models::load(path.to_str().unwrap()).unwrap();
    let mut found = 0;
    for (target, mapping) in [("vulkan", "vulkan"), ("ptx-v6.0", "ptx")] {
        let model = gpumc_core::models::load(target).unwrap();
        let models = Models {
            source: &ctrl,
            target: &model,
        };
        let cases = [(Mapping::builtin(mapping).unwrap(), "ctrl-order")];
        let ops = vec![Op::Load, Op::Store];
        found += differential_in(models, 4, true, false, true, ops, &cases);
    }
    assert_eq!(found, 1, "Vulkan has the counterexample, PTX not");
}

fn differential(
    models: Models<'_>,
    events: usize,
    descoped: bool,
    normalize: bool,
    cases: &[(Mapping, &str)],
) -> usize {
    // Every program (scopes normalised: the PTX models see scopes through
    // scope inclusion only, and these mappings treat every scope alike),
    // and every shape.
    // Failing compare-exchanges at 3 events; the 4-event runs keep the
    // other four kinds (the explicit search's programs grow fivefold per
    // event with them).
    let ops: Vec<Op> = if events <= 3 {
        Op::ALL.to_vec()
    } else {
        Op::ALL.into_iter().filter(|&o| o != Op::CasFail).collect()
    };
    differential_in(models, events, descoped, normalize, false, ops, cases)
}

/// [`differential`] with the instruction kinds and branches chosen.
fn differential_in(
    models: Models<'_>,
    events: usize,
    descoped: bool,
    normalize: bool,
    branches: bool,
    ops: Vec<Op>,
    cases: &[(Mapping, &str)],
) -> usize {
    let mut all = Space::new(events);
    all.normalize_scopes = normalize;
    all.descoped = descoped;
    all.branches = branches;
    all.ops = ops.clone();
    let mut progs = Vec::new();
    programs(&all, &mut |p| {
        progs.push(p.clone());
        true
    });
    let mut shape_space = Space::new(events);
    shape_space.branches = branches;
    shape_space.ops = ops;
    shape_space.descoped = descoped;
    shape_space.shapes = true;
    shape_space.open_placement = true;
    let mut shapes = Vec::new();
    programs(&shape_space, &mut |p| {
        shapes.push(p.clone());
        true
    });
    let keys: BTreeSet<Key> = shapes.iter().map(key).collect();
    assert_eq!(keys.len(), shapes.len(), "shapes are distinct");
    assert_eq!(
        keys,
        progs.iter().map(key).collect::<BTreeSet<_>>(),
        "every program has its shape"
    );
    let mut found_some = 0;
    for (m, axiom) in cases {
        let ex = verdicts(models, m, axiom, &all, Engine::Explicit, &progs).unwrap();
        let bad: BTreeSet<Key> = progs
            .iter()
            .zip(&ex)
            .filter(|(_, b)| **b)
            .map(|(p, _)| key(p))
            .collect();
        let sy = verdicts(models, m, axiom, &all, Engine::Symbolic, &shapes).unwrap();
        let sbad: BTreeSet<Key> = shapes
            .iter()
            .zip(&sy)
            .filter(|(_, b)| **b)
            .map(|(p, _)| key(p))
            .collect();
        assert_eq!(bad, sbad, "{} {axiom}", m.name);
        eprintln!(
            "{} {axiom} at {events}: {} of {} shapes with a counterexample",
            m.name,
            bad.len(),
            shapes.len()
        );
        found_some += usize::from(!bad.is_empty());
    }
    found_some
}
