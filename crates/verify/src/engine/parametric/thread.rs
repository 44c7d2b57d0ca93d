//! One copy of the generic thread, executed symbolically: every path of
//! its unrolled control flow at once (the DAG of `symbolic::guarded`),
//! registers as bit-vectors over the copy's ids and the shared inputs.
//!
//! Memory is abstracted as the parametric engine's soundness argument
//! says (docs/PTX-KERNELS.md, "Any launch size"): a load from a region
//! some thread writes and an atomic's old value are fresh arbitrary
//! values (*adversarial*: other threads may have written anything); a
//! load from a region nobody writes reads the region's contents, one
//! function of the offset shared by both copies (the caller adds its
//! consistency constraints). Whatever such an adversarial value decides
//! (a branch, an address) is *tainted*: a race found through it may need
//! values no execution produces. Undefined values and values gpumc does
//! not compute (float results, under the assumption the report states)
//! are free too, but not tainted: the concrete engines take them alike.

use crate::diag::Result;
use crate::engine::loops::Cfg;
use crate::engine::symbolic::bv::{self, Bv};
use crate::engine::symbolic::guarded::{mux_over, spinning, Dag, Succ};
use crate::engine::symbolic::sat::{Lit, Sat, FALSE, TRUE};
use crate::ir::{Addr, InstrKind, Operand, Program, ValueType};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// A memory access of one copy.
pub struct Access {
    /// The IR instruction.
    pub instr: usize,
    pub guard: Lit,
    pub region: usize,
    pub offset: Bv,
    pub bytes: u32,
    pub write: bool,
    /// Block-wide barriers the copy passed before it.
    pub interval: Bv,
    /// The same, per kind of barrier (`super::shape`): whether a barrier
    /// of a given kind lies between two accesses of one copy each.
    pub by_kind: BTreeMap<String, Bv>,
    /// Warp (subgroup) barriers the copy passed before it.
    pub warp: Bv,
    /// Its guard or offset depends on an arbitrary value.
    pub tainted: bool,
}

/// An undefined-behaviour point the copy may reach.
pub struct Ub {
    pub guard: Lit,
    pub cause: String,
    pub tainted: bool,
    /// An index out of its array's bounds: its value, shown in the
    /// cause, and the array's length.
    pub index: Option<(Bv, u64)>,
}

impl Ub {
    /// The cause, with the index of the solver's current model.
    pub fn cause(&self, sat: &Sat) -> String {
        match &self.index {
            Some((ix, len)) => format!(
                "{}, index {} (length {len})",
                self.cause,
                bv::value(sat, ix)
            ),
            None => self.cause.clone(),
        }
    }
}

/// A load from a region nobody writes: its value is the region's
/// contents at `offset`.
pub struct Lookup {
    pub guard: Lit,
    pub region: usize,
    pub offset: Bv,
    pub bytes: u32,
    pub value: Bv,
    /// Its value may decide a path, an address, a barrier or undefined
    /// behaviour ([`super::decisive_registers`]); otherwise no two reads
    /// of one cell need to agree.
    pub decisive: bool,
}

/// An atomic read-modify-write: where, and the old value it returned.
pub struct Rmw {
    pub guard: Lit,
    pub region: usize,
    pub offset: Bv,
    pub old: Bv,
}

/// What one copy does.
#[derive(Default)]
pub struct Run {
    pub accesses: Vec<Access>,
    pub ub: Vec<Ub>,
    /// Guards of the paths the loop bound cut.
    pub cut: Vec<Lit>,
    /// Per way of reaching the end: its guard, the barriers passed, and
    /// whether the way depends on an arbitrary value.
    pub ends: Vec<(Lit, Bv, bool)>,
    /// Per way of reaching the end (as `ends`): the warp barriers passed.
    pub warp_ends: Vec<(Lit, Bv)>,
    /// The warp (subgroup) barriers of the thread: they order two threads
    /// of one warp where the model says so (`super::races`).
    pub warp_sync: BTreeSet<usize>,
    pub lookups: Vec<Lookup>,
    pub rmws: Vec<Rmw>,
    /// Instructions whose synchronisation the abstraction ignores
    /// (fences, warp and partial barriers): they can only order, so
    /// ignoring them keeps every race but may add false ones.
    pub ignored_sync: BTreeSet<usize>,
}

/// A region's size, initial non-zero bytes by offset, and name.
pub type KnownContents<'a> = (u64, &'a BTreeMap<u64, u8>, &'a str);

/// What both copies share.
pub struct Env<'a> {
    pub program: &'a Program,
    /// Values of the program's inputs (a copy's ids replace theirs).
    pub inputs: &'a [Bv],
    /// Region → some instruction writes it.
    pub written: &'a [bool],
    /// Region → its initial contents are all zero (a `zeros:` argument, a
    /// `.global` without initialiser).
    pub zero: &'a [bool],
    /// Region → its size and initial bytes, where it is small enough to
    /// be read by value (`super::MAX_KNOWN_LOOKUP`).
    pub known: &'a [Option<KnownContents<'a>>],
    /// Region → its contents are arbitrary (an argument's buffer):
    /// lookups of a region nobody writes are then inputs, not tainted.
    pub arbitrary: &'a [bool],
    /// Threads of a block: the quorum of a block barrier.
    pub block_threads: u64,
    /// Whether a path stops in a spinning iteration (instead of being
    /// cut by the bound): only in kernels without barriers, where no
    /// other thread waits for it.
    pub spin_stops: bool,
    /// Registers whose values may decide what the check reads
    /// ([`super::decisive_registers`]); `None`: all of them.
    pub decisive: Option<&'a HashSet<String>>,
}

#[derive(Clone)]
struct St {
    regs: BTreeMap<String, Bv>,
    tainted: BTreeSet<String>,
    /// The branches on an arbitrary value whose paths have not all met
    /// again (DAG nodes): the path condition depends on those values.
    gtaint: BTreeSet<usize>,
    /// Paths of such a branch met again having passed different numbers
    /// of barriers: the barrier counts depend on that value for good.
    counts_tainted: bool,
    bar: Bv,
    /// Block barriers passed, per kind (absent: none).
    by_kind: BTreeMap<String, Bv>,
    /// Warp (subgroup) barriers passed.
    wbar: Bv,
    /// Loop header → the current iteration of that loop: its live
    /// registers' values at its start and the guards of its effects.
    iter: BTreeMap<usize, (Vec<Bv>, Vec<Lit>)>,
}

impl St {
    /// Whether the path condition (or the barriers passed) depends on an
    /// arbitrary value.
    fn guard_tainted(&self) -> bool {
        self.counts_tainted || !self.gtaint.is_empty()
    }

    /// No registers, no barrier passed, no iteration: a thread's start,
    /// or a path about to end (it needs only its taint).
    fn empty(gtaint: BTreeSet<usize>) -> St {
        St {
            regs: BTreeMap::new(),
            tainted: BTreeSet::new(),
            gtaint,
            counts_tainted: false,
            bar: bv::constant(0),
            by_kind: BTreeMap::new(),
            wbar: bv::constant(0),
            iter: BTreeMap::new(),
        }
    }
}

/// Executes the thread of `env.program` over `dag` with the copy's ids
/// (`ids`: input index → value).
pub fn run(
    sat: &mut Sat,
    env: &Env,
    cfg: &Cfg,
    dag: &Dag,
    ids: &HashMap<usize, Bv>,
) -> Result<Run> {
    let t = &env.program.threads[0];
    let n = t.instrs.len();
    let mut incoming: Vec<Vec<(Lit, St)>> = (0..dag.keys.len()).map(|_| Vec::new()).collect();
    incoming[0].push((TRUE, St::empty(BTreeSet::new())));
    let mut out = Run::default();
    let pdom = post_dominators(dag, cfg, &t.instrs, env.spin_stops);
    for &node in &dag.order {
        crate::guard::check()?;
        let arrivals = std::mem::take(&mut incoming[node]);
        if arrivals.is_empty() {
            continue;
        }
        let (guard, mut st, counts_agree) = merge(sat, arrivals);
        if guard == FALSE {
            continue;
        }
        // Where every path of a branch on an arbitrary value has met
        // again, and the branch's ways passed the same barriers, reaching
        // here no longer depends on that value (the registers its ways
        // set differently are tainted by `merge`).
        if counts_agree {
            st.gtaint.retain(|&b| !pdom.post_dominates(node, b));
        } else if st.guard_tainted() {
            st.counts_tainted = true;
        }
        let pc = dag.keys[node].0;
        if pc >= n {
            out.ends.push((guard, st.bar.clone(), st.guard_tainted()));
            out.warp_ends.push((guard, st.wbar.clone()));
            continue;
        }
        // A new iteration of the loops with this header starts here.
        if let Some(live) = cfg.live.get(&pc) {
            let vals: Vec<Bv> = live
                .iter()
                .map(|r| st.regs.get(r).cloned().unwrap_or_else(|| bv::constant(0)))
                .collect();
            st.iter.insert(pc, (vals, Vec::new()));
        }
        let ins = &t.instrs[pc];
        // What makes an iteration more than a spin: memory it changes, a
        // barrier it passes.
        if matches!(
            ins.kind,
            InstrKind::Store { .. } | InstrKind::Rmw { .. } | InstrKind::Barrier { .. }
        ) {
            for (_, effects) in st.iter.values_mut() {
                effects.push(guard);
            }
        }
        let val = |st: &St, o: &Operand| -> (Bv, bool) {
            match o {
                Operand::Const(c) => (bv::constant(*c), false),
                Operand::Reg(r) => (
                    st.regs.get(r).cloned().unwrap_or_else(|| bv::constant(0)),
                    st.tainted.contains(r),
                ),
            }
        };
        let set = |st: &mut St, r: &str, v: Bv, taint: bool| {
            st.regs.insert(r.to_string(), v);
            if taint {
                st.tainted.insert(r.to_string());
            } else {
                st.tainted.remove(r);
            }
        };
        // Release/acquire accesses order other threads' accesses: the
        // abstraction ignores that order (it keeps every race).
        if ins.kind.addr().is_some()
            && ins
                .all_tags()
                .any(|t| matches!(t, "ACQ" | "REL" | "ACQ_REL" | "SC"))
        {
            out.ignored_sync.insert(pc);
        }
        // Every access, with its region, offset and size.
        let access = match ins.kind.addr() {
            Some(addr) => {
                let (region, offset, bytes, otaint) = region_of(addr, &st, &val, ins)?;
                // An index past its array's length: undefined behaviour.
                if let crate::ir::Addr::Region(r) = addr {
                    for b in &r.bounds {
                        let (ix, itaint) = val(&st, &b.index);
                        let len = i64::try_from(b.len).unwrap_or(i64::MAX);
                        let inside = bv::ult(sat, &ix, &bv::constant(len));
                        let g = sat.and2(guard, -inside);
                        if g != FALSE {
                            out.ub.push(Ub {
                                guard: g,
                                cause: format!(
                                    "out-of-bounds access to {} at {}",
                                    b.array, ins.pos
                                ),
                                tainted: st.guard_tainted() || itaint,
                                index: Some((ix, b.len)),
                            });
                        }
                    }
                }
                out.accesses.push(Access {
                    instr: pc,
                    guard,
                    region,
                    offset: offset.clone(),
                    bytes,
                    write: !matches!(ins.kind, InstrKind::Load { .. }),
                    interval: st.bar.clone(),
                    by_kind: st.by_kind.clone(),
                    warp: st.wbar.clone(),
                    tainted: st.guard_tainted() || otaint,
                });
                Some((region, offset, bytes, otaint))
            }
            None => None,
        };
        // (guard of the taken branch, of the fall-through)
        let mut branch: Option<(Lit, Lit, bool)> = None;
        match (&ins.kind, access) {
            (InstrKind::Load { dst, .. }, Some((region, offset, bytes, otaint))) => {
                let (v, vtaint) = if !env.written[region] && env.zero[region] {
                    (bv::constant(0), false)
                } else if let (false, Some((size, init, name))) =
                    (env.written[region], env.known[region])
                {
                    // Its bytes, at an offset that is a multiple of the
                    // access's size inside the region; any other offset
                    // is undefined behaviour (out of bounds, misaligned).
                    let (v, inside) = known_lookup(sat, &offset, bytes, size, init);
                    let g = sat.and2(guard, -inside);
                    if g != FALSE {
                        out.ub.push(Ub {
                            guard: g,
                            cause: format!(
                                "out-of-bounds or misaligned read of {name} ({size} bytes) at {}",
                                ins.pos
                            ),
                            tainted: st.guard_tainted() || otaint,
                            index: None,
                        });
                    }
                    (v, false)
                } else if !env.written[region] {
                    let v = bv::free(sat, ValueType::Int(bytes * 8));
                    out.lookups.push(Lookup {
                        guard,
                        region,
                        offset,
                        bytes,
                        value: v.clone(),
                        decisive: env.decisive.is_none_or(|d| d.contains(dst)),
                    });
                    (v, !env.arbitrary[region])
                } else {
                    (bv::free(sat, ValueType::Int(bytes * 8)), true)
                };
                set(&mut st, dst, v, vtaint);
            }
            (InstrKind::Rmw { dst, .. }, Some((region, offset, bytes, _))) => {
                let old = bv::free(sat, ValueType::Int(bytes * 8));
                out.rmws.push(Rmw {
                    guard,
                    region,
                    offset,
                    old: old.clone(),
                });
                if let Some(d) = dst {
                    set(&mut st, d, old, true);
                }
            }
            (InstrKind::Load { .. } | InstrKind::Store { .. } | InstrKind::Rmw { .. }, _) => {}
            (InstrKind::Fence, _) => {
                out.ignored_sync.insert(pc);
            }
            (InstrKind::Barrier { id, .. }, _) => {
                let (idv, _) = val(&st, id);
                // Block barriers (`bar.sync n`, a workgroup's
                // `OpControlBarrier`: every thread of the block) have ids
                // below 2^40; warp and subgroup barriers above
                // (`frontend::generic`).
                let block = super::block_barrier_form(ins, env.block_threads)
                    && idv[40..].iter().all(|&l| l == FALSE);
                if block {
                    st.bar = bv::add(sat, &st.bar, &bv::constant(1));
                    let kind = super::shape(ins);
                    let n = st
                        .by_kind
                        .get(&kind)
                        .cloned()
                        .unwrap_or_else(|| bv::constant(0));
                    st.by_kind.insert(kind, bv::add(sat, &n, &bv::constant(1)));
                } else if super::warp_barrier_form(ins) && idv[40] == TRUE {
                    st.wbar = bv::add(sat, &st.wbar, &bv::constant(1));
                    out.warp_sync.insert(pc);
                } else {
                    out.ignored_sync.insert(pc);
                }
            }
            (InstrKind::Local { dst, op, a, b }, _) => {
                let (x, tx) = val(&st, a);
                let (y, ty) = val(&st, b);
                let (v, defined) = bv::binop(sat, *op, &x, &y);
                if defined != TRUE {
                    let g = sat.and2(guard, -defined);
                    out.ub.push(Ub {
                        guard: g,
                        cause: format!("division by zero in `{}`", ins.text),
                        tainted: st.guard_tainted() || tx || ty,
                        index: None,
                    });
                }
                set(&mut st, dst, v, tx || ty);
            }
            (InstrKind::Havoc { dst, ty }, _) => {
                // Not tainted: an undefined value really is arbitrary,
                // and a value gpumc does not compute (a float result) is
                // free under the assumption the front-end states in the
                // report, as in the concrete engines — neither is made up
                // by the abstraction of the other threads.
                let v = bv::free(sat, *ty);
                set(&mut st, dst, v, false);
            }
            (InstrKind::Input { dst, input }, _) => {
                let v = ids
                    .get(input)
                    .cloned()
                    .unwrap_or_else(|| env.inputs[*input].clone());
                set(&mut st, dst, v, false);
            }
            // A failed assumption: no execution has this copy here.
            (InstrKind::Infeasible, _) => sat.clause(&[-guard]),
            (InstrKind::Unreachable { cause }, _) => {
                out.ub.push(Ub {
                    guard,
                    cause: env.program.cause_at(
                        &cause.clone().unwrap_or_else(|| {
                            format!("unreachable code reached (`{}`)", ins.text)
                        }),
                        ins,
                    ),
                    tainted: st.guard_tainted(),
                    index: None,
                });
            }
            (InstrKind::Branch { op, a, b, .. }, _) => {
                let (x, tx) = val(&st, a);
                let (y, ty) = val(&st, b);
                let c = bv::cmp(sat, *op, &x, &y);
                let taken = sat.and2(guard, c);
                let fall = sat.and2(guard, -c);
                branch = Some((taken, fall, tx || ty));
            }
            (InstrKind::Goto(_) | InstrKind::Label(_), _) => {}
        }
        let edges: Vec<(&Option<Succ>, Lit, bool)> = match branch {
            Some((taken, fall, ct)) => {
                vec![(&dag.taken[node], taken, ct), (&dag.next[node], fall, ct)]
            }
            None => vec![
                (&dag.taken[node], guard, false),
                (&dag.next[node], guard, false),
            ],
        };
        let mut targets: Vec<(usize, Lit, bool)> = Vec::new();
        for (k, (succ, mut g, ct)) in edges.into_iter().enumerate() {
            let Some(s) = succ else { continue };
            // A back-edge (the taken edge of a jump to a header): a
            // spinning iteration stops here instead.
            if k == 0 && g != FALSE && env.spin_stops {
                // (Not in a loop entered other than through its header:
                // its iteration's start is not known there.)
                if let Some(&h) = cfg.back_edges.get(&pc).filter(|h| !cfg.open.contains(h)) {
                    // A path in a spinning iteration (no write, atomic
                    // or barrier, the live registers as the iteration
                    // found them) stops: the next iteration would start
                    // in the same state, so every access and undefined
                    // behaviour after it is reached with one iteration
                    // fewer (docs/PTX-KERNELS.md). Neither an end nor a
                    // cut.
                    let spin = spin_lit(sat, cfg, h, &st);
                    g = sat.and2(g, -spin);
                }
            }
            if g == FALSE {
                continue;
            }
            match s {
                Succ::To(j) => targets.push((*j, g, ct)),
                Succ::Cut => out.cut.push(g),
            }
        }
        // A branch to undefined behaviour or to a failed assumption
        // (every checked access has one) ends there: that path needs its
        // guard and taint, not the registers (a copy of every register per
        // access made long unrolled kernels quadratic).
        targets.retain(|&(k, h, kt)| {
            let ends = t.instrs.get(dag.keys[k].0).is_some_and(|i| {
                matches!(
                    i.kind,
                    InstrKind::Unreachable { .. } | InstrKind::Infeasible
                )
            });
            if ends {
                let mut end = St {
                    counts_tainted: st.counts_tainted,
                    ..St::empty(st.gtaint.clone())
                };
                if kt {
                    end.gtaint.insert(node);
                }
                incoming[k].push((h, end));
            }
            !ends
        });
        // The state moves along the last edge (a copy per other edge: a
        // thread's state is large, and most nodes have one successor).
        if let Some(((j, g, ct), rest)) = targets.split_last() {
            for &(k, h, kt) in rest {
                let mut s2 = st.clone();
                if kt {
                    s2.gtaint.insert(node);
                }
                incoming[k].push((h, s2));
            }
            if *ct {
                st.gtaint.insert(node);
            }
            incoming[*j].push((*g, st));
        }
    }
    Ok(out)
}

/// The region, offset, size and offset taint of a generic-thread access.
fn region_of(
    addr: &Addr,
    st: &St,
    val: &impl Fn(&St, &Operand) -> (Bv, bool),
    ins: &crate::ir::Instr,
) -> Result<(usize, Bv, u32, bool)> {
    match addr {
        Addr::Region(r) => {
            let (v, t) = val(st, &r.offset);
            Ok((r.region, v, r.bytes, t))
        }
        // The generic translation makes every memory access a region
        // address.
        _ => Err(crate::diag::Error::unsupported(
            ins.pos,
            format!(
                "the parametric engine: `{}` has no region address",
                crate::diag::excerpt(&ins.text)
            ),
        )),
    }
}

/// Whether the current iteration of the loop headed at `h` is spinning.
fn spin_lit(sat: &mut Sat, cfg: &Cfg, h: usize, st: &St) -> Lit {
    match st.iter.get(&h) {
        Some((start, effects)) => spinning(sat, &cfg.live[&h], start, effects, &st.regs),
        None => FALSE,
    }
}

/// Merges the states of a node's incoming edges (exclusive guards), and
/// says whether they passed the same barriers. A register the incoming
/// states hold different values in is tainted where some of them came
/// through a branch on an arbitrary value: which value it holds depends
/// on that branch.
fn merge(sat: &mut Sat, incoming: Vec<(Lit, St)>) -> (Lit, St, bool) {
    let guards: Vec<Lit> = incoming.iter().map(|(g, _)| *g).collect();
    let guard = sat.or(&guards);
    if incoming.len() == 1 {
        let (_, st) = incoming.into_iter().next().expect("one edge");
        return (guard, st, true);
    }
    let branched = incoming.iter().any(|(_, s)| !s.gtaint.is_empty());
    let mut newly_tainted = Vec::new();
    let mut names: Vec<&String> = incoming.iter().flat_map(|(_, s)| s.regs.keys()).collect();
    names.sort();
    names.dedup();
    let zero = bv::constant(0);
    let mut regs = BTreeMap::new();
    for r in names {
        let vals: Vec<&Bv> = incoming
            .iter()
            .map(|(_, s)| s.regs.get(r).unwrap_or(&zero))
            .collect();
        if branched && vals.iter().any(|v| *v != vals[0]) {
            newly_tainted.push(r.clone());
        }
        regs.insert(r.clone(), mux_over(sat, &guards, &vals));
    }
    let bars: Vec<&Bv> = incoming.iter().map(|(_, s)| &s.bar).collect();
    let mut counts_agree = bars.iter().all(|b| *b == bars[0]);
    let bar = mux_over(sat, &guards, &bars);
    let mut kinds: Vec<&String> = incoming
        .iter()
        .flat_map(|(_, s)| s.by_kind.keys())
        .collect();
    kinds.sort();
    kinds.dedup();
    let mut by_kind = BTreeMap::new();
    for k in kinds {
        let vals: Vec<&Bv> = incoming
            .iter()
            .map(|(_, s)| s.by_kind.get(k).unwrap_or(&zero))
            .collect();
        counts_agree &= vals.iter().all(|v| *v == vals[0]);
        by_kind.insert(k.clone(), mux_over(sat, &guards, &vals));
    }
    let wbars: Vec<&Bv> = incoming.iter().map(|(_, s)| &s.wbar).collect();
    counts_agree &= wbars.iter().all(|b| *b == wbars[0]);
    let wbar = mux_over(sat, &guards, &wbars);
    // Iterations: headers every incoming state is inside.
    let mut iter = BTreeMap::new();
    for (&h, (start0, _)) in &incoming[0].1.iter {
        if !incoming.iter().all(|(_, s)| s.iter.contains_key(&h)) {
            continue;
        }
        let start: Vec<Bv> = (0..start0.len())
            .map(|j| {
                let vals: Vec<&Bv> = incoming.iter().map(|(_, s)| &s.iter[&h].0[j]).collect();
                mux_over(sat, &guards, &vals)
            })
            .collect();
        let mut effects: Vec<Lit> = incoming
            .iter()
            .flat_map(|(_, s)| s.iter[&h].1.iter().copied())
            .collect();
        effects.sort_unstable();
        effects.dedup();
        iter.insert(h, (start, effects));
    }
    let mut tainted: BTreeSet<String> = incoming
        .iter()
        .flat_map(|(_, s)| s.tainted.iter().cloned())
        .collect();
    tainted.extend(newly_tainted);
    let st = St {
        iter,
        regs,
        tainted,
        gtaint: incoming
            .iter()
            .flat_map(|(_, s)| s.gtaint.iter().copied())
            .collect(),
        counts_tainted: incoming.iter().any(|(_, s)| s.counts_tainted),
        bar,
        by_kind,
        wbar,
    };
    (guard, st, counts_agree)
}

/// The immediate post-dominators of the DAG's nodes, where a path may
/// also stop at a node: the thread's end, a cut by the bound, a back-edge
/// (a spinning iteration stops there) — those lead to a virtual exit. A
/// path into undefined behaviour or a failed assumption is no way round
/// a node: a failed assumption is no execution, and an execution that
/// reaches undefined behaviour is reported for that (every checked access
/// has such a branch, which would otherwise keep every access after a
/// branch on an arbitrary value from being confirmed).
struct PostDom {
    /// Per node: its immediate post-dominator, `None` for the exit.
    ipdom: Vec<Option<usize>>,
    /// Per node: its position in the DAG's topological order.
    pos: Vec<usize>,
}

impl PostDom {
    /// Whether every path from `b` passes `m` before it may stop.
    fn post_dominates(&self, m: usize, b: usize) -> bool {
        let mut x = Some(b);
        while let Some(y) = x {
            if y == m {
                return true;
            }
            if self.pos[y] >= self.pos[m] {
                return false;
            }
            x = self.ipdom[y];
        }
        false
    }
}

fn post_dominators(dag: &Dag, cfg: &Cfg, instrs: &[crate::ir::Instr], spin_stops: bool) -> PostDom {
    let n = dag.keys.len();
    let mut pos = vec![usize::MAX; n];
    for (k, &node) in dag.order.iter().enumerate() {
        pos[node] = k;
    }
    let mut ipdom: Vec<Option<usize>> = vec![None; n];
    let mut dead = vec![false; n];
    let intersect = |ipdom: &[Option<usize>], a: Option<usize>, b: Option<usize>| {
        let (mut a, mut b) = (a, b);
        while let (Some(x), Some(y)) = (a, b) {
            if x == y {
                return a;
            }
            if pos[x] < pos[y] {
                a = ipdom[x];
            } else {
                b = ipdom[y];
            }
        }
        None
    };
    for &node in dag.order.iter().rev() {
        let pc = dag.keys[node].0;
        if instrs.get(pc).is_some_and(|i| {
            matches!(
                i.kind,
                InstrKind::Unreachable { .. } | InstrKind::Infeasible
            )
        }) {
            dead[node] = true;
            continue;
        }
        let stops = pc >= instrs.len() || spin_stops && cfg.back_edges.contains_key(&pc);
        let succs = [&dag.next[node], &dag.taken[node]];
        if stops || succs.iter().any(|s| matches!(s, Some(Succ::Cut))) {
            continue;
        }
        let mut dom: Option<Option<usize>> = None;
        for s in succs.into_iter().flatten() {
            let Succ::To(j) = s else { continue };
            if dead[*j] {
                continue;
            }
            dom = Some(match dom {
                None => Some(*j),
                Some(d) => intersect(&ipdom, d, Some(*j)),
            });
        }
        match dom {
            Some(d) => ipdom[node] = d,
            // (Every way on ends in undefined behaviour.)
            None => dead[node] = true,
        }
    }
    PostDom { ipdom, pos }
}

/// The value a load of `bytes` bytes at `offset` reads from a region of
/// `size` bytes nobody writes whose initial non-zero bytes are `init`:
/// the element at each aligned offset (little-endian), selected by the
/// offset; free at any other offset. With the literal "the offset is one
/// of those".
fn known_lookup(
    sat: &mut Sat,
    offset: &Bv,
    bytes: u32,
    size: u64,
    init: &BTreeMap<u64, u8>,
) -> (Bv, Lit) {
    let v = bv::free(sat, ValueType::Int(bytes * 8));
    let step = u64::from(bytes.max(1));
    let mut inside = Vec::new();
    let mut at = 0;
    while at + step <= size {
        let here = bv::eq(sat, offset, &bv::constant(at as i64));
        // (sign-extended from the access's width, as `bv::free` makes it)
        let word = crate::frontend::generic::read_le(init, at as i64, bytes);
        let same = bv::eq(sat, &v, &bv::constant(word));
        sat.clause(&[-here, same]);
        inside.push(here);
        at += step;
    }
    let inside = sat.or(&inside);
    (v, inside)
}
