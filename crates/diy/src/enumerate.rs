//! Every critical cycle up to a number of edges, in every placement of
//! its threads in CTAs and every assignment of its locations to global
//! or shared memory, each once up to symmetry.
//!
//! Critical cycles (Shasha and Snir, TOPLAS 1988; diy's default): program-order edges
//! go to a different location and no two follow each other (a thread
//! has one or two accesses), communication edges are external, a
//! location is accessed at most three times (two communication edges in
//! a row at most, and neither `Ws;Ws` nor `Fr;Ws`, whose composition is
//! a single edge), and there are two locations at least. A cycle is kept
//! in its least rotation (by edge names), so rotations — renumberings of
//! the threads — give it once. A placement and a region assignment are
//! kept once up to the cycle's own rotations (`SB`'s two threads may be
//! exchanged: "x shared, y global" is "x global, y shared").

use crate::cycle::{self, Test};
use crate::edge::{Com, Dir, Edge, Via};
use crate::{Arch, Options, Placement, Region};

/// What to enumerate.
#[derive(Clone, Debug)]
pub struct Space {
    /// The tests' dialect.
    pub arch: Arch,
    /// Edges per cycle, at most.
    pub max_edges: usize,
    /// Threads per cycle, at most (communication edges).
    pub max_threads: usize,
    /// Orderings a program-order edge may have (a dependency only from
    /// a read; `data` only to a write).
    pub orderings: Vec<Via>,
    /// Place threads in every partition into CTAs (or only all in one
    /// CTA and each in its own).
    pub all_placements: bool,
    /// Put locations in shared memory too (where the threads accessing
    /// one share a CTA).
    pub shared: bool,
}

impl Default for Space {
    fn default() -> Self {
        Space {
            arch: Arch::Ptx,
            max_edges: 4,
            max_threads: 4,
            orderings: vec![
                Via::Plain,
                Via::Fence(Some("membar.cta".into())),
                Via::Fence(Some("membar.gl".into())),
                Via::Addr,
                Via::Data,
            ],
            all_placements: true,
            shared: true,
        }
    }
}

/// The edges a cycle may use.
fn vocabulary(space: &Space) -> Vec<Edge> {
    let mut v = vec![
        Edge::Com {
            com: Com::Rf,
            external: true,
        },
        Edge::Com {
            com: Com::Fr,
            external: true,
        },
        Edge::Com {
            com: Com::Ws,
            external: true,
        },
    ];
    for from in [Dir::R, Dir::W] {
        for to in [Dir::R, Dir::W] {
            for via in &space.orderings {
                let ok = match via {
                    Via::Addr | Via::Ctrl => from == Dir::R,
                    Via::Data => from == Dir::R && to == Dir::W,
                    _ => true,
                };
                if ok {
                    v.push(Edge::Po {
                        via: via.clone(),
                        same_loc: false,
                        from,
                        to,
                    });
                }
            }
        }
    }
    v
}

/// Whether `b` may follow `a` in a critical cycle.
fn may_follow(a: &Edge, b: &Edge) -> bool {
    if a.dirs().1 != b.dirs().0 {
        return false;
    }
    match (a, b) {
        (Edge::Po { .. }, Edge::Po { .. }) => false,
        (Edge::Com { com: x, .. }, Edge::Com { com: y, .. }) => {
            !matches!((x, y), (Com::Ws, Com::Ws) | (Com::Fr, Com::Ws))
        }
        _ => true,
    }
}

/// Whether `c` is a critical cycle in its least rotation.
fn keep(c: &[Edge], space: &Space) -> bool {
    let n = c.len();
    if !(0..n).all(|k| may_follow(&c[k], &c[(k + 1) % n])) {
        return false;
    }
    let coms = c.iter().filter(|e| e.external()).count();
    let pos = n - coms;
    if pos < 2 || coms < 2 || coms > space.max_threads {
        return false;
    }
    // At most two communication edges in a row (three accesses).
    if (0..n).any(|k| (0..3).all(|d| c[(k + d) % n].external())) {
        return false;
    }
    least_rotation(c)
}

fn least_rotation(c: &[Edge]) -> bool {
    let n = c.len();
    (1..n).all(|r| {
        let rotated = (0..n).map(|i| &c[(i + r) % n]);
        c.iter().cmp(rotated) != std::cmp::Ordering::Greater
    })
}

/// Every critical cycle of `space`, each in its least rotation.
pub fn cycles(space: &Space) -> Vec<Vec<Edge>> {
    let vocab = vocabulary(space);
    let mut out = Vec::new();
    let mut cur: Vec<Edge> = Vec::new();
    fn go(vocab: &[Edge], space: &Space, cur: &mut Vec<Edge>, out: &mut Vec<Vec<Edge>>) {
        if cur.len() >= 4 && keep(cur, space) {
            out.push(cur.clone());
        }
        if cur.len() == space.max_edges {
            return;
        }
        for e in vocab {
            if cur.last().is_some_and(|l| !may_follow(l, e)) {
                continue;
            }
            // The least rotation starts with its least edge.
            if cur.first().is_some_and(|f| e < f) {
                continue;
            }
            cur.push(e.clone());
            go(vocab, space, cur, out);
            cur.pop();
        }
    }
    go(&vocab, space, &mut cur, &mut out);
    out
}

/// The partitions of `n` threads into CTAs, as restricted growth strings
/// (thread 0 in CTA 0, each next thread in a used CTA or the next new
/// one).
fn partitions(n: usize) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for _ in 0..n {
        out = out
            .into_iter()
            .flat_map(|p| {
                let next = p.iter().map(|c| c + 1).max().unwrap_or(0);
                (0..=next).map(move |c| {
                    let mut q = p.clone();
                    q.push(c);
                    q
                })
            })
            .collect();
    }
    out
}

/// A configuration's key after moving it along rotation `r` of the
/// cycle (one that maps the cycle to itself): CTAs numbered by first
/// appearance, regions by location.
fn key_after(test: &Test, ctas: &[usize], regions: &[Region], r: usize) -> (Vec<usize>, Vec<bool>) {
    let n = test.cycle.len();
    let threads = test.threads.len();
    let mut new_ctas = vec![usize::MAX; threads];
    let mut new_regions = vec![false; test.locs];
    for k in 0..n {
        let (t, i) = test.event_at[k];
        let (t2, i2) = test.event_at[(k + r) % n];
        new_ctas[t] = ctas[t2];
        new_regions[test.threads[t][i].loc] = regions[test.threads[t2][i2].loc] == Region::Shared;
    }
    let mut seen: Vec<usize> = Vec::new();
    let relabelled = new_ctas
        .iter()
        .map(|c| match seen.iter().position(|x| x == c) {
            Some(i) => i,
            None => {
                seen.push(*c);
                seen.len() - 1
            }
        })
        .collect();
    (relabelled, new_regions)
}

/// The configurations of `test` (placement, regions), once each up to
/// the cycle's own rotations.
pub fn configurations(test: &Test, space: &Space) -> Vec<(Vec<usize>, Vec<Region>)> {
    let n = test.cycle.len();
    let threads = test.threads.len();
    let autos: Vec<usize> = (0..n)
        .filter(|&r| (0..n).all(|i| test.cycle[i] == test.cycle[(i + r) % n]))
        .collect();
    let placements: Vec<Vec<usize>> = if space.all_placements {
        partitions(threads)
    } else {
        vec![vec![0; threads], (0..threads).collect()]
    };
    let region_sets: Vec<Vec<Region>> = (0..1usize << test.locs)
        .filter(|m| space.shared || *m == 0)
        .map(|m| {
            (0..test.locs)
                .map(|l| {
                    if m >> l & 1 == 1 {
                        Region::Shared
                    } else {
                        Region::Global
                    }
                })
                .collect()
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for p in &placements {
        for regions in &region_sets {
            // Shared memory only among threads of one CTA.
            let ok = (0..test.locs)
                .filter(|&l| regions[l] == Region::Shared)
                .all(|l| {
                    let users: Vec<usize> = (0..threads)
                        .filter(|&t| test.threads[t].iter().any(|e| e.loc == l))
                        .collect();
                    users.iter().all(|&t| p[t] == p[users[0]])
                });
            if !ok {
                continue;
            }
            let key = autos
                .iter()
                .map(|&r| key_after(test, p, regions, r))
                .min()
                .unwrap_or_default();
            if seen.insert(key) {
                out.push((p.clone(), regions.clone()));
            }
        }
    }
    out
}

/// One test of the enumeration.
pub struct Item {
    /// The cycle's edge names.
    pub cycle: String,
    pub options: Options,
    /// The configuration's name, for a directory: `cta-01_reg-gs`.
    pub config: String,
}

/// Every (cycle, configuration) of `space`.
pub fn items(space: &Space) -> Vec<Item> {
    let mut out = Vec::new();
    for c in cycles(space) {
        // (threads in the order the family's name lists them)
        let c = crate::name::family_form(&c);
        let with_cols: Vec<(Edge, u32)> = c.iter().map(|e| (e.clone(), 1)).collect();
        // (`keep` made it a valid cycle: directions that meet, an external
        // edge, two locations at least)
        let Ok(test) = cycle::build(&with_cols) else {
            continue;
        };
        let names: Vec<String> = c.iter().map(Edge::name).collect();
        for (ctas, regions) in configurations(&test, space) {
            let config = format!(
                "cta-{}_reg-{}",
                ctas.iter().map(|c| c.to_string()).collect::<String>(),
                regions
                    .iter()
                    .map(|r| match r {
                        Region::Global => 'g',
                        Region::Shared => 's',
                    })
                    .collect::<String>()
            );
            let regions_named = regions
                .iter()
                .enumerate()
                .map(|(l, r)| (crate::ptx::loc_name(l), *r))
                .collect();
            out.push(Item {
                cycle: names.join(" "),
                options: Options {
                    arch: space.arch,
                    placement: Placement::Ctas(ctas),
                    region: Region::Global,
                    regions: regions_named,
                    fence: "membar.gl".into(),
                    name_suffix: Some(config.clone()),
                },
                config,
            });
        }
    }
    out
}
