//! Complete synthesis of progress litmus tests (Sorensen et al., OOPSLA'21 §5).
//!
//! The paper's Alloy run searched, for a fixed number of threads `T` and a
//! fixed total number of instructions `I`, programs over 2 locations and
//! the values {0, 1} whose state graph meets the constraints below, within
//! a bound on states (`S`) and actions (`A`). The search space is small, so
//! this module enumerates it exhaustively instead:
//!
//! 1. every thread has at least one instruction; the lengths sum to `I`;
//! 2. instructions: location ∈ {0,1}, comparison value ∈ {0,1}, exchange ∈
//!    {none, 0, 1}, target ∈ {0, …, len} (len = END);
//! 3. *meaningful comparisons*: a store-like instruction (target = next,
//!    END counting as next for the last instruction) has comparison value 0
//!    and an exchange;
//! 4. *inter-thread influence*: every non-store instruction has an
//!    instruction of another thread on its location, and every instruction
//!    with an exchange has a non-store instruction of another thread on its
//!    location (the published suite was produced without the extra "some
//!    execution changes the value" clause of the Alloy file, our reading notes on Sorensen et al., OOPSLA'21,
//!    §6.3);
//! 5. the reachable state graph has at most `S` states and `A` actions;
//! 6. *possible termination*: from every reachable state a final state
//!    (every thread terminated) is reachable;
//! 7. *non-termination cycle*: the graph has a cycle (self-loops count);
//! 8. *all branches possible*: every non-store instruction executes at
//!    least once with the comparison succeeding and once with it failing.
//!
//! **Canonical form.** Location renaming is the only symmetry of the
//! space (memory starts at 0, so values are not symmetric, and thread ids
//! matter to HSA and LOBE): a test is canonical when its locations are
//! numbered in order of first use, i.e. its first instruction uses
//! location 0. Each canonical program is generated exactly once, so no
//! textual deduplication is needed. Tests are numbered in enumeration
//! order: thread-length splits in lexicographic order, then programs in
//! lexicographic order of (thread 0, thread 1, …), each instruction ordered
//! by (location, target, exchange, comparison value).

use super::ast::{Axb, Test};
use super::lts::{explore_bounded, Lts, Overflow};
use super::models::Base;
use super::oracle::has_cycle;
use rayon::prelude::*;

/// Locations and values of the paper's space.
pub const LOCATIONS: u8 = 2;
pub const VALUES: u8 = 2;

/// The five configurations of the paper (Table 2), as (threads, instructions).
pub const PAPER_CONFIGS: [(usize, usize); 5] = [(2, 2), (2, 3), (2, 4), (3, 3), (3, 4)];

/// Bounds on the state graph (`None` = unbounded).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Scope {
    pub max_states: Option<usize>,
    pub max_actions: Option<usize>,
}

impl Scope {
    pub const UNBOUNDED: Scope = Scope {
        max_states: None,
        max_actions: None,
    };

    /// The scopes of the artifact's Alloy commands (`S`, `A`): 8/8 for
    /// 2t_2i, 14/14 for 2t_3i and 16/24 for 2t_4i, 3t_3i and 3t_4i; other
    /// configurations are unbounded.
    pub fn paper(threads: usize, instructions: usize) -> Scope {
        let (s, a) = match (threads, instructions) {
            (2, 2) => (8, 8),
            (2, 3) => (14, 14),
            (2, 4) | (3, 3) | (3, 4) => (16, 24),
            _ => return Scope::UNBOUNDED,
        };
        Scope {
            max_states: Some(s),
            max_actions: Some(a),
        }
    }
}

/// Why a test is outside the synthesis space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reject {
    /// More than 2 locations, a value other than 0/1, or an empty thread.
    OutsideSpace,
    /// Constraint 3.
    MeaninglessComparison,
    /// Constraint 4.
    NoInfluence,
    /// Constraint 5.
    TooManyStates,
    TooManyActions,
    /// Constraint 6.
    CannotTerminate,
    /// Constraint 7.
    NoCycle,
    /// Constraint 8.
    DeadBranch,
    /// Locations not numbered in order of first use.
    NotCanonical,
}

impl Reject {
    pub fn describe(self) -> &'static str {
        match self {
            Reject::OutsideSpace => {
                "outside the space (locations 0/1, values 0/1, non-empty threads)"
            }
            Reject::MeaninglessComparison => {
                "store-like instruction with a comparison value or no exchange"
            }
            Reject::NoInfluence => "inter-thread influence violated",
            Reject::TooManyStates => "more states than the scope allows",
            Reject::TooManyActions => "more actions than the scope allows",
            Reject::CannotTerminate => "some state cannot reach termination",
            Reject::NoCycle => "no non-termination cycle",
            Reject::DeadBranch => "some branch outcome never happens",
            Reject::NotCanonical => "locations not numbered in order of first use",
        }
    }
}

/// Per-thread location summaries for constraint 4.
#[derive(Clone, Copy, Default)]
struct Influence {
    any: u8,
    nonstore: u8,
    need_any: u8,
    need_nonstore: u8,
}

fn influence(thread: &[Axb]) -> Influence {
    let mut inf = Influence::default();
    for (i, ins) in thread.iter().enumerate() {
        let bit = 1 << ins.loc;
        inf.any |= bit;
        if !ins.is_store_like(i) {
            inf.nonstore |= bit;
            inf.need_any |= bit;
        }
        if ins.exch.is_some() {
            inf.need_nonstore |= bit;
        }
    }
    inf
}

fn influence_ok(infs: &[Influence]) -> bool {
    (0..infs.len()).all(|t| {
        let (mut any, mut nonstore) = (0u8, 0u8);
        for (u, inf) in infs.iter().enumerate() {
            if u != t {
                any |= inf.any;
                nonstore |= inf.nonstore;
            }
        }
        infs[t].need_any & !any == 0 && infs[t].need_nonstore & !nonstore == 0
    })
}

fn comparisons_ok(thread: &[Axb]) -> bool {
    thread
        .iter()
        .enumerate()
        .all(|(i, ins)| !ins.is_store_like(i) || (ins.check == 0 && ins.exch.is_some()))
}

/// Constraints 6–8 on an explored graph.
fn graph_ok(test: &Test, lts: &Lts) -> Result<(), Reject> {
    if !has_cycle(lts) {
        return Err(Reject::NoCycle);
    }
    // Possible termination: backward reachability from final states.
    let n = lts.num_states();
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for s in 0..n {
        for &(d, _) in lts.succ(s) {
            preds[d as usize].push(s as u32);
        }
    }
    let mut ok = vec![false; n];
    let mut work: Vec<u32> = (0..n as u32)
        .filter(|&s| lts.live[s as usize] == 0)
        .collect();
    for &s in &work {
        ok[s as usize] = true;
    }
    while let Some(d) = work.pop() {
        for &p in &preds[d as usize] {
            if !ok[p as usize] {
                ok[p as usize] = true;
                work.push(p);
            }
        }
    }
    if ok.iter().any(|&b| !b) {
        return Err(Reject::CannotTerminate);
    }
    // All branches possible: bit 0 = comparison succeeded, bit 1 = failed.
    let mut seen: Vec<Vec<u8>> = test.threads.iter().map(|t| vec![0u8; t.len()]).collect();
    for s in 0..n {
        for (t, thread) in test.threads.iter().enumerate() {
            if lts.live[s] & (1 << t) == 0 {
                continue;
            }
            let pc = lts.pc(s, t);
            let ins = thread[pc];
            seen[t][pc] |= if lts.mem(s, ins.loc) == ins.check {
                1
            } else {
                2
            };
        }
    }
    for (t, thread) in test.threads.iter().enumerate() {
        for (i, ins) in thread.iter().enumerate() {
            if !ins.is_store_like(i) && seen[t][i] != 3 {
                return Err(Reject::DeadBranch);
            }
        }
    }
    Ok(())
}

fn explore_scoped(test: &Test, scope: Scope) -> Result<Lts, Reject> {
    explore_bounded(
        test,
        Base::Unfair,
        scope.max_states.unwrap_or(usize::MAX),
        scope.max_actions.unwrap_or(usize::MAX),
    )
    .map_err(|o| match o {
        Overflow::States => Reject::TooManyStates,
        Overflow::Edges => Reject::TooManyActions,
    })
}

/// True when locations are numbered in order of first use.
pub fn is_canonical(test: &Test) -> bool {
    test.canonical_locations() == *test
}

/// Checks every synthesis constraint (and canonicity) on one test. A test
/// with `threads` threads and `instructions` instructions is produced by
/// [`synthesize`] iff this returns `Ok`.
pub fn check(test: &Test, scope: Scope) -> Result<(), Reject> {
    let in_space =
        test.validate().is_ok()
            && test.threads.iter().flatten().all(|i| {
                i.loc < LOCATIONS && i.check < VALUES && i.exch.is_none_or(|v| v < VALUES)
            });
    if !in_space {
        return Err(Reject::OutsideSpace);
    }
    if !test.threads.iter().all(|t| comparisons_ok(t)) {
        return Err(Reject::MeaninglessComparison);
    }
    let infs: Vec<Influence> = test.threads.iter().map(|t| influence(t)).collect();
    if !influence_ok(&infs) {
        return Err(Reject::NoInfluence);
    }
    let lts = explore_scoped(test, scope)?;
    graph_ok(test, &lts)?;
    if !is_canonical(test) {
        return Err(Reject::NotCanonical);
    }
    Ok(())
}

/// All instructions allowed at index `idx` of a thread of length `len`
/// (constraints 2–3), in enumeration order.
fn alphabet(idx: usize, len: usize) -> Vec<Axb> {
    let mut out = Vec::new();
    for loc in 0..LOCATIONS {
        for target in 0..=len as u8 {
            for exch in std::iter::once(None).chain((0..VALUES).map(Some)) {
                for check in 0..VALUES {
                    let ins = Axb {
                        loc,
                        check,
                        exch,
                        target,
                    };
                    if !ins.is_store_like(idx) || (check == 0 && exch.is_some()) {
                        out.push(ins);
                    }
                }
            }
        }
    }
    out
}

/// All programs of one thread of length `len`.
fn thread_programs(len: usize) -> Vec<Vec<Axb>> {
    let mut progs: Vec<Vec<Axb>> = vec![Vec::new()];
    for idx in 0..len {
        let alpha = alphabet(idx, len);
        progs = progs
            .into_iter()
            .flat_map(|p| {
                alpha.iter().map(move |&ins| {
                    let mut q = p.clone();
                    q.push(ins);
                    q
                })
            })
            .collect();
    }
    progs
}

/// Ordered splits of `total` into `parts` positive lengths, lexicographic.
pub fn splits(total: usize, parts: usize) -> Vec<Vec<usize>> {
    if parts == 0 {
        return if total == 0 {
            vec![Vec::new()]
        } else {
            Vec::new()
        };
    }
    let mut out = Vec::new();
    for first in 1..=total.saturating_sub(parts - 1) {
        for mut rest in splits(total - first, parts - 1) {
            rest.insert(0, first);
            out.push(rest);
        }
    }
    out
}

/// Largest per-thread program list [`synthesize`] materialises.
pub const MAX_THREAD_PROGRAMS: u128 = 4_000_000;
/// Largest number of candidate programs [`synthesize`] accepts to visit.
pub const MAX_CANDIDATES: u128 = 300_000_000;

/// The size of the search: (candidate programs before pruning, largest
/// per-thread program list). The paper's five configurations have at most
/// 2.7 million candidates.
pub fn search_size(threads: usize, instructions: usize) -> (u128, u128) {
    let programs =
        |len: usize| -> u128 { (0..len).map(|i| alphabet(i, len).len() as u128).product() };
    let mut total = 0u128;
    let mut widest = 0u128;
    for split in splits(instructions, threads) {
        let sizes: Vec<u128> = split.iter().map(|&l| programs(l)).collect();
        widest = widest.max(sizes.iter().copied().max().unwrap_or(0));
        total = total.saturating_add(sizes.iter().fold(1u128, |a, &b| a.saturating_mul(b)));
    }
    (total, widest)
}

/// Every canonical test with `threads` threads and `instructions`
/// instructions that meets the constraints within `scope`, in the order
/// described in the module documentation. (Callers should bound the work
/// with [`search_size`] first; the CLI refuses searches beyond
/// [`MAX_CANDIDATES`] / [`MAX_THREAD_PROGRAMS`].)
pub fn synthesize(threads: usize, instructions: usize, scope: Scope) -> Vec<Test> {
    synthesize_observed(threads, instructions, scope, &|_| {})
}

/// [`synthesize`], telling `visited(n)` as each batch of `n` candidate
/// programs has been looked at (from several threads at once). The
/// batches add up to the candidate count of [`search_size`], so a caller
/// can draw a progress bar over it.
pub fn synthesize_observed(
    threads: usize,
    instructions: usize,
    scope: Scope,
    visited: &(dyn Fn(u64) + Sync),
) -> Vec<Test> {
    if threads == 0 || threads > super::ast::MAX_THREADS || instructions < threads {
        return Vec::new();
    }
    let programs =
        |len: usize| -> u128 { (0..len).map(|i| alphabet(i, len).len() as u128).product() };
    let to_u64 = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
    let mut out = Vec::new();
    for split in splits(instructions, threads) {
        // This split's share of `search_size`: what is not told per
        // program of thread 0 below (programs the canonical form drops,
        // or a split too long to run) is told at its end.
        let share = split
            .iter()
            .fold(1u128, |a, &l| a.saturating_mul(programs(l)));
        let told = std::sync::atomic::AtomicU64::new(0);
        let finish = |told: &std::sync::atomic::AtomicU64| {
            let done = told.load(std::sync::atomic::Ordering::Relaxed);
            visited(to_u64(share).saturating_sub(done));
        };
        if split.iter().any(|&l| l > super::ast::MAX_INSTRS) {
            finish(&told);
            continue;
        }
        let mut lists: Vec<Vec<(Vec<Axb>, Influence)>> = Vec::new();
        for (t, &len) in split.iter().enumerate() {
            let list = thread_programs(len)
                .into_iter()
                // Canonical form: the first instruction uses location 0.
                .filter(|p| t != 0 || p[0].loc == 0)
                .map(|p| {
                    let inf = influence(&p);
                    (p, inf)
                })
                .collect();
            lists.push(list);
        }
        // Candidates per program of thread 0.
        let per_first = to_u64(
            lists[1..]
                .iter()
                .fold(1u128, |a, l| a.saturating_mul(l.len() as u128)),
        );
        // Parallel over thread 0's programs; order is preserved.
        let found: Vec<Vec<Test>> = lists[0]
            .par_iter()
            .map(|first| {
                let mut found = Vec::new();
                let mut choice = vec![0usize; threads];
                let mut infs = vec![first.1; threads];
                'outer: loop {
                    for t in 1..threads {
                        infs[t] = lists[t][choice[t]].1;
                    }
                    if influence_ok(&infs) {
                        let mut progs = vec![first.0.clone()];
                        progs.extend((1..threads).map(|t| lists[t][choice[t]].0.clone()));
                        let test = Test { threads: progs };
                        if let Ok(lts) = explore_scoped(&test, scope) {
                            if graph_ok(&test, &lts).is_ok() {
                                found.push(test);
                            }
                        }
                    }
                    // Next combination of threads 1.. (last thread fastest).
                    let mut t = threads - 1;
                    loop {
                        if t == 0 {
                            break 'outer;
                        }
                        choice[t] += 1;
                        if choice[t] < lists[t].len() {
                            break;
                        }
                        choice[t] = 0;
                        t -= 1;
                    }
                }
                told.fetch_add(per_first, std::sync::atomic::Ordering::Relaxed);
                visited(per_first);
                found
            })
            .collect();
        finish(&told);
        out.extend(found.into_iter().flatten());
    }
    out
}
