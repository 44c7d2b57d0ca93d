//! The parametric race checker: a PTX kernel's races for a launch of any
//! size, from two arbitrary distinct threads with symbolic ids
//! (docs/PTX-KERNELS.md, "Any launch size").
//!
//! The kernel is translated once, for its *generic thread*
//! (`frontend::ptx::lower::lower_generic`): ids are inputs, global and
//! shared accesses are byte offsets into regions, computed as terms. Two
//! copies of that thread (`thread.rs`) get ids constrained to the launch
//! and to differ; every other thread is abstracted away: what it may have
//! written is an arbitrary value to the copies' loads. Two accesses of the
//! copies race when, in one solver model, both are reached, their bytes
//! overlap, they are not ordered by a block barrier (same block, same
//! barrier interval; different blocks are never ordered by barriers), and
//! the model's `flag` axioms fire on the two accesses alone (so atomics
//! and scopes are judged by the `.cat` model, not here).
//!
//! The abstraction keeps every race (it only adds behaviours), so *no
//! race* holds for the whole launch. A race is *confirmed* when nothing an
//! abstracted value decides reaches it (neither branch conditions nor
//! offsets depend on adversarial values) and the kernel synchronises only
//! with block barriers: then the two threads reach the two accesses in
//! every execution, unordered, with the witness's ids and inputs. A race
//! that is not confirmed is *possible*: the caller re-checks the launch
//! with the concrete engine where it can.

mod thread;

use crate::cat::Model;
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::bound_free::{two_alone_race, Alone};
use crate::engine::loops::Cfg;
use crate::engine::races::RacePair;
use crate::engine::symbolic::bv::{self, Bv};
use crate::engine::symbolic::guarded::dag;
use crate::engine::symbolic::sat::{Lit, Sat};
use crate::frontend::ptx::lower::memory::{BufKind, Contents};
use crate::frontend::ptx::lower::GenericParts;
use crate::ir::{InstrKind, Location, Placement, Program};
use std::collections::{BTreeMap, HashMap};
use thread::{Env, Run};

/// The parametric check's answer.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// Racing pairs found (confirmed ones first), at most `max_races`.
    pub races: Vec<Found>,
    /// Whether `races` lists every racing pair (`max_races` not reached).
    pub complete: bool,
    /// Undefined behaviour one thread may reach: the cause and whether
    /// it is confirmed (its path depends on no abstracted value).
    pub ub: Option<(String, bool)>,
    /// Some path was cut by the loop bound.
    pub bound_hit: bool,
    /// Two threads of one block may pass different numbers of barriers.
    pub divergence: Option<String>,
    /// What the answer assumes, in words.
    pub assumptions: Vec<String>,
    /// Why a race is only possible, in words.
    pub unconfirmed_why: Vec<String>,
}

/// A racing pair of PTX instructions.
#[derive(Clone, Debug)]
pub struct Found {
    pub race: RacePair,
    /// Confirmed (module docs), or only possible.
    pub confirmed: bool,
    /// The values of the witness that the pair's threads do not show:
    /// the launch's free arguments and the input cells the two threads
    /// read (`param_2=512`, `param_0[17]=3`).
    pub inputs: Vec<String>,
}

/// Options of a parametric check.
pub struct ParamOptions {
    pub bound: u32,
    pub max_races: usize,
    /// Look for racing pairs (`--property races`); without, only
    /// undefined behaviour, cuts and barrier divergence are sought
    /// (`--property safety`).
    pub check_races: bool,
}

/// Which region an access may share with the other copy's.
fn shared_region(kind: BufKind) -> Option<&'static str> {
    match kind {
        BufKind::Global | BufKind::Const => Some("global"),
        BufKind::Shared => Some("shared"),
        BufKind::Private | BufKind::Param | BufKind::LocalMemory => None,
    }
}

/// Checks the races of `program`, the generic thread of a kernel, for
/// the launch in `parts`.
pub fn check(
    program: &Program,
    parts: &GenericParts,
    model: &Model,
    opts: &ParamOptions,
) -> Result<Outcome> {
    if program.threads.len() != 1 {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "the parametric engine checks the generic thread of a kernel",
        ));
    }
    let regions = &parts.buffers;
    let mut written = vec![false; regions.len()];
    for ins in &program.threads[0].instrs {
        if let InstrKind::Store { addr, .. } | InstrKind::Rmw { addr, .. } = &ins.kind {
            if let crate::ir::Addr::Region(r) = addr {
                written[r.region] = true;
            }
        }
    }
    let zero: Vec<bool> = regions
        .iter()
        .map(|b| b.contents == Contents::Zero)
        .collect();
    let arbitrary: Vec<bool> = regions
        .iter()
        .map(|b| b.contents == Contents::Arbitrary && b.kind == BufKind::Global)
        .collect();
    let cfg = Cfg::new(program, 0)?;
    let dag = dag(program, 0, &cfg, opts.bound)?;

    let mut sat = Sat::new();
    // Inputs: the launch's arguments and read-only cells, one value for
    // every thread; the ids, one per copy.
    let id_inputs: BTreeMap<usize, (&str, u32)> = parts
        .ids
        .iter()
        .map(|(name, &k)| {
            let d = match name.rsplit('.').next() {
                Some("y") => 1,
                Some("z") => 2,
                _ => 0,
            };
            let extent = if name.starts_with("%tid") {
                parts.block[d]
            } else {
                parts.grid[d]
            };
            (k, (name.as_str(), extent))
        })
        .collect();
    let inputs: Vec<Bv> = program
        .inputs
        .iter()
        .map(|i| match i.value {
            Some(v) => bv::constant(v),
            None => bv::free(&mut sat, i.ty),
        })
        .collect();
    let mut ids: [HashMap<usize, Bv>; 2] = [HashMap::new(), HashMap::new()];
    for copy in &mut ids {
        for (&k, &(_, extent)) in &id_inputs {
            let v = bv::free(&mut sat, crate::ir::ValueType::Int(32));
            let inside = bv::ult(&mut sat, &v, &bv::constant(i64::from(extent)));
            sat.clause(&[inside]);
            copy.insert(k, v);
        }
    }
    // Same block: every block id equal; distinct: some id differs.
    let mut same_block_parts = Vec::new();
    let mut differ = Vec::new();
    for (&k, &(name, _)) in &id_inputs {
        let e = bv::eq(&mut sat, &ids[0][&k], &ids[1][&k]);
        if name.starts_with("%ctaid") {
            same_block_parts.push(e);
        }
        differ.push(-e);
    }
    let same_block = sat.and(&same_block_parts);
    let distinct = sat.or(&differ);
    let env = Env {
        program,
        inputs: &inputs,
        written: &written,
        zero: &zero,
        arbitrary: &arbitrary,
    };
    let runs: [Run; 2] = [
        thread::run(&mut sat, &env, &dag, &ids[0])?,
        thread::run(&mut sat, &env, &dag, &ids[1])?,
    ];

    // Region contents nobody writes: equal offsets read equal values —
    // in global memory, which every thread shares (each block has its own
    // shared memory, each thread its own local memory).
    let lookups: Vec<&thread::Lookup> = runs
        .iter()
        .flat_map(|r| &r.lookups)
        .filter(|l| matches!(regions[l.region].kind, BufKind::Global | BufKind::Const))
        .collect();
    for (a, x) in lookups.iter().enumerate() {
        for y in &lookups[a + 1..] {
            if x.region != y.region || x.bytes != y.bytes {
                continue;
            }
            crate::guard::check()?;
            let same_off = bv::eq(&mut sat, &x.offset, &y.offset);
            let same_val = bv::eq(&mut sat, &x.value, &y.value);
            sat.clause(&[-same_off, same_val]);
        }
    }
    tickets(&mut sat, program, &runs, &zero, (&parts.grid, &parts.block))?;
    let mut out = Outcome {
        complete: true,
        ..Outcome::default()
    };
    let unknown_size: Vec<&str> = regions
        .iter()
        .enumerate()
        .filter(|(k, b)| {
            b.size.is_none()
                && runs[0].accesses.iter().any(|a| a.region == *k)
                && shared_region(b.kind).is_some()
        })
        .map(|(_, b)| b.name.as_str())
        .collect();
    if !unknown_size.is_empty() {
        out.assumptions.push(format!(
            "{} {} large enough for every access (no size given: `--param NAME=buf:BYTES` makes out-of-bounds accesses checked)",
            unknown_size.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
            if unknown_size.len() == 1 { "is" } else { "are" }
        ));
    }
    // Undefined behaviour of one thread (any thread: copy 0).
    let values = Values {
        id_inputs: &id_inputs,
        ids: &ids,
        inputs: &inputs,
    };
    for u in &runs[0].ub {
        crate::guard::check()?;
        if solve(&mut sat, &[u.guard])? {
            let mut cause = format!(
                "{} (thread {}",
                u.cause,
                thread_name(&sat, &id_inputs, &ids[0])
            );
            let inputs = witness_inputs(&sat, program, parts, &values, &runs[..1]);
            if !inputs.is_empty() {
                cause.push_str(&format!(", with {}", inputs.join(" ")));
            }
            cause.push(')');
            out.ub = Some((cause, !u.tainted));
            if !u.tainted {
                break;
            }
        }
    }
    let cut = sat.or(&runs[0].cut);
    out.bound_hit = solve(&mut sat, &[cut])?;
    // Barrier divergence: two threads of one block end having passed
    // different numbers of block barriers.
    'div: for (g0, b0) in &runs[0].ends {
        for (g1, b1) in &runs[1].ends {
            crate::guard::check()?;
            let e = bv::eq(&mut sat, b0, b1);
            if solve(&mut sat, &[*g0, *g1, -e, same_block, distinct])? {
                out.divergence = Some(format!(
                    "threads {} and {} of one block may pass different numbers of barriers (barrier divergence)",
                    thread_name(&sat, &id_inputs, &ids[0]),
                    thread_name(&sat, &id_inputs, &ids[1]),
                ));
                break 'div;
            }
        }
    }
    if !opts.check_races {
        return Ok(out);
    }
    let ignored: Vec<usize> = runs[0].ignored_sync.iter().copied().collect();
    if !ignored.is_empty() {
        let t = &program.threads[0];
        out.unconfirmed_why.push(format!(
            "the kernel synchronises other than by block barriers ({}), which the two-thread abstraction does not take as ordering",
            ignored
                .iter()
                .take(3)
                .map(|&k| format!("`{}` at {}", crate::diag::excerpt(&t.instrs[k].text), t.instrs[k].pos))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    races(
        &mut sat,
        program,
        parts,
        model,
        opts,
        &runs,
        (same_block, distinct),
        values,
        ignored.is_empty(),
        &mut out,
    )?;
    Ok(out)
}

/// Atomic counters: where every write to a region is an `add` of a
/// positive constant, the values the additions return at one offset are
/// pairwise distinct: each addition sees the sum of the ones before it in
/// the location's modification order, and the total of all threads'
/// additions stays below the type's range. Each thread makes at most as
/// many additions as its unrolling has (when no path is cut by the bound;
/// a cut makes the answer `UNKNOWN` or a list of races marked incomplete,
/// so the constraint never makes a claim it cannot back). Scatters
/// through `pos = atomicAdd(&count, 1)` need this to be race-free.
fn tickets(
    sat: &mut Sat,
    program: &Program,
    runs: &[Run; 2],
    zero: &[bool],
    (grid, block): (&[u32; 3], &[u32; 3]),
) -> Result<()> {
    let t = &program.threads[0];
    let threads = crate::frontend::ptx::launch::thread_count(*grid, *block);
    // Region → (largest increment, smallest width); `None` once some
    // write disqualifies it.
    let mut regions: BTreeMap<usize, Option<(u128, u32)>> = BTreeMap::new();
    for ins in &t.instrs {
        let (addr, ok) = match &ins.kind {
            InstrKind::Rmw {
                addr,
                op: crate::ir::RmwOp::Add,
                operand: crate::ir::Operand::Const(c),
                ..
            } if *c > 0 => (addr, Some(*c as u128)),
            InstrKind::Rmw { addr, .. } | InstrKind::Store { addr, .. } => (addr, None),
            _ => continue,
        };
        let crate::ir::Addr::Region(r) = addr else {
            continue;
        };
        let e = regions.entry(r.region).or_insert(Some((0, 64)));
        *e = match (*e, ok) {
            (Some((m, w)), Some(c)) => Some((m.max(c), w.min(r.bytes * 8))),
            _ => None,
        };
    }
    // Region → the sum of every thread's additions, where it fits below
    // 2^(w-1).
    let totals: BTreeMap<usize, u128> = regions
        .into_iter()
        .filter_map(|(r, e)| {
            let (m, w) = e?;
            // Additions per thread: its unrolling's.
            let n = runs[0].rmws.iter().filter(|x| x.region == r).count() as u128;
            let total = threads.saturating_mul(n).saturating_mul(m);
            (total < (1u128 << (w - 1))).then_some((r, total))
        })
        .collect();
    let eligible: Vec<usize> = totals.keys().copied().collect();
    // A counter that starts at zero returns less than that sum.
    for r in runs.iter().flat_map(|r| &r.rmws) {
        if let (Some(&total), true) = (totals.get(&r.region), zero[r.region]) {
            let below = bv::ult(sat, &r.old, &bv::constant(total as i64));
            sat.clause(&[-r.guard, below]);
        }
    }
    let all: Vec<&thread::Rmw> = runs
        .iter()
        .flat_map(|r| &r.rmws)
        .filter(|r| eligible.contains(&r.region))
        .collect();
    for (a, x) in all.iter().enumerate() {
        for y in &all[a + 1..] {
            if x.region != y.region {
                continue;
            }
            crate::guard::check()?;
            let same = bv::eq(sat, &x.offset, &y.offset);
            let equal = bv::eq(sat, &x.old, &y.old);
            sat.clause(&[-x.guard, -y.guard, -same, -equal]);
        }
    }
    Ok(())
}

/// Solves under assumptions; a tripped guard is an error.
fn solve(sat: &mut Sat, assumptions: &[Lit]) -> Result<bool> {
    crate::guard::check()?;
    match sat.solve(assumptions) {
        Some(r) => Ok(r),
        None => Err(sat.gave_up()),
    }
}

/// `t3@b5`, `t(3,1)@b(5,0)`: a copy's ids in the current model.
fn thread_name(
    sat: &Sat,
    id_inputs: &BTreeMap<usize, (&str, u32)>,
    ids: &HashMap<usize, Bv>,
) -> String {
    let comp = |base: &str| -> String {
        let vals: Vec<i64> = ["x", "y", "z"]
            .iter()
            .map(|c| {
                id_inputs
                    .iter()
                    .find(|(_, (n, _))| *n == format!("{base}.{c}"))
                    .map_or(0, |(k, _)| bv::value(sat, &ids[k]))
            })
            .collect();
        let used = id_inputs
            .values()
            .filter(|(n, _)| n.starts_with(base))
            .map(|(n, _)| match n.rsplit('.').next() {
                Some("y") => 2,
                Some("z") => 3,
                _ => 1,
            })
            .max()
            .unwrap_or(1);
        if used == 1 {
            vals[0].to_string()
        } else {
            let v: Vec<String> = vals[..used].iter().map(i64::to_string).collect();
            format!("({})", v.join(","))
        }
    };
    format!("t{}@b{}", comp("%tid"), comp("%ctaid"))
}

/// The copies' ids (input index → name and extent; per copy, input index
/// → value) and the values of the inputs they share.
struct Values<'a> {
    id_inputs: &'a BTreeMap<usize, (&'a str, u32)>,
    ids: &'a [HashMap<usize, Bv>; 2],
    inputs: &'a [Bv],
}

/// The values of the current solver model that the threads' ids do not
/// show: the launch's free arguments, and the input cells the copies of
/// `runs` read on their paths (`param_2=512`, `param_0[17]=3`).
fn witness_inputs(
    sat: &Sat,
    program: &Program,
    parts: &GenericParts,
    values: &Values,
    runs: &[Run],
) -> Vec<String> {
    let mut inputs: Vec<String> = program
        .inputs
        .iter()
        .enumerate()
        .filter(|(k, i)| !values.id_inputs.contains_key(k) && i.value.is_none())
        .map(|(k, i)| format!("{}={}", i.name, bv::value(sat, &values.inputs[k])))
        .collect();
    for l in runs.iter().flat_map(|r| &r.lookups) {
        if sat.value(l.guard) {
            let cell = format!(
                "{}[{}]={}",
                parts.buffers[l.region].name,
                bv::value(sat, &l.offset) / i64::from(l.bytes.max(1)),
                bv::value(sat, &l.value)
            );
            if !inputs.contains(&cell) {
                inputs.push(cell);
            }
        }
    }
    inputs
}

/// Queries every pair of static accesses; fills `out.races`.
#[allow(clippy::too_many_arguments)]
fn races(
    sat: &mut Sat,
    program: &Program,
    parts: &GenericParts,
    model: &Model,
    opts: &ParamOptions,
    runs: &[Run; 2],
    (same_block, distinct): (Lit, Lit),
    values: Values,
    barriers_only: bool,
    out: &mut Outcome,
) -> Result<()> {
    let Values { id_inputs, ids, .. } = values;
    let t = &program.threads[0];
    // Static accesses by source position (unrolled copies of one PTX
    // instruction are one).
    let mut by_pos: BTreeMap<(u32, u32), [Vec<usize>; 2]> = BTreeMap::new();
    for (c, run) in runs.iter().enumerate() {
        for (k, a) in run.accesses.iter().enumerate() {
            let p = t.instrs[a.instr].pos;
            by_pos.entry((p.line, p.col)).or_default()[c].push(k);
        }
    }
    let keys: Vec<(u32, u32)> = by_pos.keys().copied().collect();
    // The model's judgement of two accesses alone, per shape of the two
    // instructions (unrolled copies of one PTX instruction share it) and
    // block relation.
    let mut judged: HashMap<(String, String, bool), Option<String>> = HashMap::new();
    let mut found: Vec<Found> = Vec::new();
    for (x, kx) in keys.iter().enumerate() {
        for ky in &keys[x..] {
            crate::guard::check()?;
            let mut ways: Vec<Way> = Vec::new();
            for &i in &by_pos[kx][0] {
                for &j in &by_pos[ky][1] {
                    let (a, b) = (&runs[0].accesses[i], &runs[1].accesses[j]);
                    if a.region != b.region || !(a.write || b.write) {
                        continue;
                    }
                    let Some(space) = shared_region(parts.buffers[a.region].kind) else {
                        continue;
                    };
                    let mut flags = Vec::new();
                    for same in [true, false] {
                        if space == "shared" && !same {
                            continue;
                        }
                        let key = (shape(&t.instrs[a.instr]), shape(&t.instrs[b.instr]), same);
                        let flag = match judged.get(&key) {
                            Some(f) => f.clone(),
                            None => {
                                let f = judge(program, model, a.instr, b.instr, same)?;
                                judged.insert(key, f.clone());
                                f
                            }
                        };
                        if let Some(f) = flag {
                            flags.push((same, f));
                        }
                    }
                    if flags.is_empty() {
                        continue;
                    }
                    let end_a = bv::add(sat, &a.offset, &bv::constant(i64::from(a.bytes)));
                    let end_b = bv::add(sat, &b.offset, &bv::constant(i64::from(b.bytes)));
                    let o1 = bv::ult(sat, &a.offset, &end_b);
                    let o2 = bv::ult(sat, &b.offset, &end_a);
                    let together = sat.and(&[a.guard, b.guard, o1, o2]);
                    for (same, flag) in flags {
                        let rel = if same {
                            let iv = bv::eq(sat, &a.interval, &b.interval);
                            sat.and2(same_block, iv)
                        } else {
                            -same_block
                        };
                        ways.push(Way {
                            lit: sat.and2(together, rel),
                            confirmed: barriers_only && !a.tainted && !b.tainted,
                            flag,
                            accesses: (i, j),
                        });
                    }
                }
            }
            // A pair is confirmed if one of its confirmed ways holds.
            let mut hit = None;
            for confirmed_only in [true, false] {
                let lits: Vec<Lit> = ways
                    .iter()
                    .filter(|w| w.confirmed || !confirmed_only)
                    .map(|w| w.lit)
                    .collect();
                if lits.is_empty() {
                    continue;
                }
                let any = sat.or(&lits);
                if solve(sat, &[distinct, any])? {
                    hit = Some(confirmed_only);
                    break;
                }
            }
            let Some(confirmed) = hit else { continue };
            // The way the solver's model takes (one holds: the query's
            // disjunction does).
            let Some(way) = ways
                .iter()
                .find(|w| sat.value(w.lit) && (w.confirmed || !confirmed))
            else {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    "unsupported: the parametric engine lost the racing accesses of a solver model",
                ));
            };
            let flag = way.flag.clone();
            let (a, b) = (
                &runs[0].accesses[way.accesses.0],
                &runs[1].accesses[way.accesses.1],
            );
            let buf = &parts.buffers[a.region];
            let side = |acc: &thread::Access, copy: usize| {
                let ins = &t.instrs[acc.instr];
                (
                    thread_name(sat, id_inputs, &ids[copy]),
                    ins.pos.line,
                    ins.text.clone(),
                    ins.pos.to_string(),
                    program.source_of(ins).map(|s| s.to_string()),
                )
            };
            let (s, u) = (side(a, 0), side(b, 1));
            let off = bv::value(sat, &a.offset);
            let kind = match (a.write, b.write) {
                (true, true) => "WAW",
                _ => "RW",
            };
            let inputs = witness_inputs(sat, program, parts, &values, runs);
            found.push(Found {
                race: RacePair {
                    flag,
                    events: (0, 0),
                    threads: (s.0, u.0),
                    lines: (s.1, u.1),
                    instrs: (s.2, u.2),
                    location: Some(format!("{}[{}]", buf.name, off / i64::from(a.bytes.max(1)))),
                    kind: kind.into(),
                    space: shared_region(buf.kind).map(str::to_string),
                    source: (s.4, u.4),
                    positions: (s.3, u.3),
                    in_witness: false,
                },
                confirmed,
                inputs,
            });
        }
    }
    found.sort_by_key(|f| !f.confirmed);
    if found.len() > opts.max_races {
        out.complete = false;
        found.truncate(opts.max_races);
    }
    out.races = found;
    Ok(())
}

/// One way a pair of static accesses may race: the literal that it
/// does, whether that would be confirmed, the model's flag, and the two
/// accesses (of copy 0 and copy 1).
struct Way {
    lit: Lit,
    confirmed: bool,
    flag: String,
    accesses: (usize, usize),
}

/// What decides the model's judgement of an access run alone: its kind
/// (and operation) and its tags, not its registers or address.
fn shape(i: &crate::ir::Instr) -> String {
    let kind = match &i.kind {
        InstrKind::Load { .. } => "load".to_string(),
        InstrKind::Store { .. } => "store".to_string(),
        InstrKind::Rmw { op, .. } => format!("rmw {op:?}"),
        other => format!("{other:?}"),
    };
    format!(
        "{kind} {:?} {:?} {:?}",
        i.tags, i.halves.read, i.halves.write
    )
}

/// The model's judgement of instructions `a` and `b` of the generic
/// thread run alone by two threads of one block (`same`) or of two
/// blocks: the name of the flag that fires, if any.
fn judge(
    program: &Program,
    model: &Model,
    a: usize,
    b: usize,
    same: bool,
) -> Result<Option<String>> {
    let t = &program.threads[0];
    let p0 = Placement {
        ids: vec![0, 0],
        warp: None,
    };
    let p1 = Placement {
        ids: vec![if same { 0 } else { 1 }, 0],
        warp: None,
    };
    let loc = Location {
        name: "x".into(),
        phys: 0,
        virt: 0,
        init: 0,
        init_arbitrary: None,
        space: None,
    };
    two_alone_race(
        program,
        model,
        [
            Alone {
                name: "t0",
                placement: &p0,
                instr: &t.instrs[a],
                loc: 0,
            },
            Alone {
                name: "t1",
                placement: &p1,
                instr: &t.instrs[b],
                loc: 0,
            },
        ],
        vec![loc],
    )
}
