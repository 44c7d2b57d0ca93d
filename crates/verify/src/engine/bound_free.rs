//! Race verdicts the loop bound cannot change (docs/SEMANTICS.md,
//! "Race verdicts independent of the bound").
//!
//! A race check whose executions were cut by the bound is `UNKNOWN`:
//! a longer run of a loop might lead to a race no bounded execution
//! shows. For some loops it cannot. [`races_bound_free`] decides, before
//! the verdict is given, that every loop of the program is *repeatable*:
//!
//! 1. its iterations start alike: no register live at its header is
//!    written in its body (each iteration computes from values it reads
//!    itself, so the last iteration of a long run behaves as a first one
//!    that read the same values);
//! 2. its body writes nothing new to memory: its memory accesses are
//!    loads, or RMWs that store back the value they read (`atomicMax(p,
//!    0u)`, `atomicAdd(p, 0)`, `atom.or … 0`), and it has no barrier;
//! 3. none of its accesses can race: for each, and each access of
//!    another thread that may touch the same location with a write among
//!    the two, the model's `flag` axioms do not fire on the execution of
//!    those two accesses alone (where nothing orders them).
//!
//! Then an execution in which a loop runs longer than the bound has its
//! races outside the loop's earlier iterations (3), and dropping those
//! iterations leaves an execution the bound covers with the same race
//! (1, 2; for models whose axioms only get easier to satisfy with fewer
//! events and whose races only get more numerous with less order: every
//! model we ship). So a race check that found no race at the bound has
//! none at any bound.

use super::loops::Cfg;
use super::races;
use super::safety::Verdict;
use super::Options;
use crate::cat::Model;
use crate::diag::Result;
use crate::ir::{Addr, Instr, InstrKind, LocId, Location, Operand, Program, RmwOp, Thread};
use std::collections::HashMap;

/// Why the race verdict of `p` holds for every bound, when every loop of
/// `p` is repeatable (module docs); `None` when some loop is not, or `p`
/// has none.
pub fn races_bound_free(p: &Program, model: &Model) -> Result<Option<String>> {
    let mut loops = 0usize;
    // Pairs already judged, by the two instructions and how their threads
    // are placed relative to each other (kernels repeat one code).
    let mut judged: HashMap<String, bool> = HashMap::new();
    for (th, t) in p.threads.iter().enumerate() {
        let cfg = Cfg::new(p, th)?;
        if cfg.loop_end.is_empty() {
            continue;
        }
        if !cfg.open.is_empty() {
            return Ok(None);
        }
        for (&h, &end) in &cfg.loop_end {
            loops += 1;
            let body = &t.instrs[h..=end];
            let live = cfg.live.get(&h).map(Vec::as_slice).unwrap_or(&[]);
            if body
                .iter()
                .any(|i| writes_register(i).is_some_and(|r| live.contains(&r)))
            {
                return Ok(None);
            }
            for s in body {
                crate::guard::check()?;
                match &s.kind {
                    InstrKind::Barrier { .. } | InstrKind::Store { .. } => return Ok(None),
                    InstrKind::Rmw { op, operand, .. } if !stores_back(op, operand) => {
                        return Ok(None)
                    }
                    _ => {}
                }
                let Some(Addr::Fixed(loc)) = s.kind.addr() else {
                    if s.kind.addr().is_some() {
                        // A run-time address: its cells are not one place.
                        return Ok(None);
                    }
                    continue;
                };
                for (u, other) in p.threads.iter().enumerate().filter(|&(u, _)| u != th) {
                    for c in &other.instrs {
                        let Some(a) = c.kind.addr() else { continue };
                        let shared = a
                            .cells()
                            .iter()
                            .any(|&x| p.locations[x].phys == p.locations[*loc].phys);
                        if !shared || !(writes(c) || writes(s)) {
                            continue;
                        }
                        let key = format!(
                            "{:?}|{:?}|{:?}|{:?}|{:?}",
                            s,
                            c,
                            relation(t, other),
                            loc,
                            a.cells()
                        );
                        let racy = match judged.get(&key) {
                            Some(&r) => r,
                            None => {
                                let r = pair_races(p, model, (th, s, *loc), (u, c))?;
                                judged.insert(key, r);
                                r
                            }
                        };
                        if racy {
                            return Ok(None);
                        }
                    }
                }
            }
        }
    }
    let which = match loops {
        1 => "its loop repeats".to_string(),
        n => format!("each of its {n} loops repeats"),
    };
    Ok((loops > 0).then(|| {
        format!(
            "no bound can change the race verdict: {which} iterations that start alike, store nothing new and contain no access that can race (docs/SEMANTICS.md)"
        )
    }))
}

/// The register an instruction writes.
fn writes_register(i: &Instr) -> Option<String> {
    match &i.kind {
        InstrKind::Load { dst, .. }
        | InstrKind::Local { dst, .. }
        | InstrKind::Havoc { dst, .. }
        | InstrKind::Input { dst, .. } => Some(dst.clone()),
        InstrKind::Rmw { dst, .. } => dst.clone(),
        _ => None,
    }
}

fn writes(i: &Instr) -> bool {
    matches!(i.kind, InstrKind::Store { .. } | InstrKind::Rmw { .. })
}

/// Whether an RMW stores back the value it read, whatever that is.
fn stores_back(op: &RmwOp, operand: &Operand) -> bool {
    let Operand::Const(k) = *operand else {
        return false;
    };
    match op {
        RmwOp::Add | RmwOp::Sub | RmwOp::Or | RmwOp::Xor | RmwOp::UMax => k == 0,
        RmwOp::And | RmwOp::UMin => k == -1,
        RmwOp::Max => k == i64::MIN,
        RmwOp::Min => k == i64::MAX,
        RmwOp::Exch | RmwOp::Inc | RmwOp::Dec | RmwOp::Cas { .. } => false,
    }
}

/// At which scope levels two threads share an instance.
fn relation(a: &Thread, b: &Thread) -> Vec<bool> {
    let n = a.placement.ids.len().min(b.placement.ids.len());
    (0..n)
        .map(|k| a.placement.ids[k..n] == b.placement.ids[k..n])
        .collect()
}

/// Whether `s` (of thread `ts`, at `loc`) and `c` (of thread `tc`, at
/// its cell of the same physical location) race in the execution of the
/// two of them alone.
fn pair_races(
    p: &Program,
    model: &Model,
    (ts, s, loc): (usize, &Instr, LocId),
    (tc, c): (usize, &Instr),
) -> Result<bool> {
    let phys = p.locations[loc].phys;
    let cell = c
        .kind
        .addr()
        .and_then(|a| {
            a.cells()
                .iter()
                .copied()
                .find(|&x| p.locations[x].phys == phys)
        })
        .unwrap_or(loc);
    // The few locations involved, renumbered: the physical root first.
    let mut keep: Vec<LocId> = vec![phys];
    for l in [loc, cell] {
        if !keep.contains(&l) {
            keep.push(l);
        }
    }
    let new_id = |l: LocId| keep.iter().position(|&k| k == l);
    let locations: Vec<Location> = keep
        .iter()
        .enumerate()
        .map(|(k, &l)| {
            let mut x = p.locations[l].clone();
            x.phys = 0;
            x.virt = new_id(x.virt).unwrap_or(k);
            x.init_arbitrary = None;
            x
        })
        .collect();
    let alone = |th: usize, instr, at: LocId| Alone {
        name: &p.threads[th].name,
        placement: &p.threads[th].placement,
        instr,
        loc: new_id(at).unwrap_or(0),
    };
    Ok(two_alone_race(p, model, [alone(ts, s, loc), alone(tc, c, cell)], locations)?.is_some())
}

/// One access of a thread, run alone at location `loc`.
pub(crate) struct Alone<'a> {
    pub name: &'a str,
    pub placement: &'a crate::ir::Placement,
    pub instr: &'a Instr,
    pub loc: LocId,
}

/// Whether the model's `flag` axioms fire on the execution of the two
/// accesses alone (each thread runs its one instruction; nothing orders
/// them), over `locations`. `p` gives the architecture and name.
pub(crate) fn two_alone_race(
    p: &Program,
    model: &Model,
    two: [Alone; 2],
    locations: Vec<Location>,
) -> Result<Option<String>> {
    let [a, b] = two;
    let threads = vec![alone_thread(&a, vec![]), alone_thread(&b, vec![])];
    flag_of(p, model, threads, locations)
}

/// Whether the model's `flag` axioms fire on the execution where thread
/// 0 runs its access and then barrier `bars[0]`, and thread 1 barrier
/// `bars[1]` and then its access: both barriers of one instance (they
/// synchronise each other), the instructions' tags kept. `None`: the
/// barrier orders the two accesses, as far as the model is concerned.
pub(crate) fn across_barrier_race(
    p: &Program,
    model: &Model,
    two: [Alone; 2],
    bars: [&Instr; 2],
    locations: Vec<Location>,
) -> Result<Option<String>> {
    let bar = |b: &Instr| {
        let mut i = b.clone();
        i.kind = InstrKind::Barrier {
            id: Operand::Const(0),
            count: None,
            arrive: false,
        };
        i
    };
    let [a, b] = two;
    let mut t0 = alone_thread(&a, vec![]);
    t0.instrs.push(bar(bars[0]));
    let t1 = alone_thread(&b, vec![bar(bars[1])]);
    flag_of(p, model, vec![t0, t1], locations)
}

/// The thread of `a`: the instructions `before`, then its access at its
/// location.
fn alone_thread(a: &Alone, before: Vec<Instr>) -> Thread {
    let mut i = a.instr.clone();
    match &mut i.kind {
        InstrKind::Load { addr, .. }
        | InstrKind::Store { addr, .. }
        | InstrKind::Rmw { addr, .. } => *addr = Addr::Fixed(a.loc),
        _ => {}
    }
    let mut instrs = before;
    instrs.push(i);
    Thread {
        name: a.name.to_string(),
        placement: a.placement.clone(),
        instrs,
        init_regs: vec![],
    }
}

/// The first `flag` that fires in some execution of `threads`.
fn flag_of(
    p: &Program,
    model: &Model,
    threads: Vec<Thread>,
    locations: Vec<Location>,
) -> Result<Option<String>> {
    let q = Program {
        kernel: p.kernel,
        name: p.name.clone(),
        arch: p.arch,
        threads,
        locations,
        ssw: vec![],
        filter: None,
        assertion: None,
        observed: vec![],
        inputs: vec![],
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: Vec::new(),
        default_model: p.default_model.clone(),
    };
    let opts = Options {
        max_races: 1,
        ..Options::default()
    };
    let r = races::check(&q, model, &opts)?;
    Ok((r.verdict != Verdict::Pass).then(|| {
        r.races
            .first()
            .map_or_else(|| "race".to_string(), |x| x.flag.clone())
    }))
}
