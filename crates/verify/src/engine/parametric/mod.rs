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
use crate::engine::bound_free::{across_barrier_race, two_alone_race, Alone};
use crate::engine::loops::Cfg;
use crate::engine::races::RacePair;
use crate::engine::symbolic::bv::{self, Bv};
use crate::engine::symbolic::guarded::{dag, mux_over};
use crate::engine::symbolic::sat::{Lit, Sat, FALSE, TRUE};
use crate::frontend::generic::{BufKind, Contents, GenericParts};
use crate::ir::{Instr, InstrKind, Location, Operand, Placement, Program};
use std::collections::{BTreeMap, HashMap, HashSet};
use thread::{Env, Run};

/// Reads of one shared-memory region per copy up to which the reads of a
/// block are kept consistent (a comparison per pair of reads).
const MAX_SHARED_LOOKUPS: usize = 64;

/// Bytes up to which a region with initial contents is read by value
/// (one comparison of the offset per element a load may read).
const MAX_KNOWN_LOOKUP: u64 = 1024;

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
    /// Barrier divergence found, and whether it is confirmed.
    pub divergence: Option<(String, bool)>,
    /// What the answer assumes, in words.
    pub assumptions: Vec<String>,
    /// The program's assumptions (`Infeasible`) leave no thread a way to
    /// run: no end, cut or undefined behaviour is reachable.
    pub vacuous: bool,
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
    // Small regions with initial contents (a `__device__` table of
    // function addresses, a lookup table): a load of one that nobody
    // writes reads those bytes, wherever its offset points.
    let known: Vec<Option<thread::KnownContents>> = regions
        .iter()
        .map(|b| match (&b.contents, b.size) {
            (Contents::Bytes(bytes), Some(size)) if size <= MAX_KNOWN_LOOKUP => {
                Some((size, bytes, b.name.as_str()))
            }
            _ => None,
        })
        .collect();
    let cfg = Cfg::new(program, 0)?;
    let dag = dag(program, 0, &cfg, opts.bound)?;
    // Loads of each region in one copy's unrolling: keeping a block's
    // reads of its shared memory consistent costs a comparison per pair
    // of them, so it is done only for regions read a few times.
    let mut loads = vec![0usize; regions.len()];
    for key in &dag.keys {
        if let Some(InstrKind::Load {
            addr: crate::ir::Addr::Region(r),
            ..
        }) = program.threads[0].instrs.get(key.0).map(|i| &i.kind)
        {
            loads[r.region] += 1;
        }
    }
    let consistent: Vec<bool> = regions
        .iter()
        .zip(&loads)
        .map(|(b, &n)| match b.kind {
            BufKind::Global | BufKind::Const => true,
            BufKind::Shared => n <= MAX_SHARED_LOOKUPS,
            _ => false,
        })
        .collect();
    // Arbitrary contents whose reads are kept consistent are the
    // launch's, not invented: what depends on them is confirmed (each
    // block's copy of shared memory starts arbitrary too).
    let arbitrary: Vec<bool> = regions
        .iter()
        .zip(&consistent)
        .map(|(b, &c)| {
            b.contents == Contents::Arbitrary
                && c
                && matches!(b.kind, BufKind::Global | BufKind::Shared)
        })
        .collect();

    let mut sat = Sat::new();
    // Inputs: the launch's arguments and read-only cells, one value for
    // every thread; the ids, one per copy.
    // The ids the thread reads, and one more per dimension it does not
    // read (under an index past the program's inputs, which no thread
    // reads): the two copies must be able to differ there too.
    let mut id_inputs: BTreeMap<usize, (&str, u32, usize)> = parts
        .ids
        .iter()
        .map(|g| (g.input, (g.name.as_str(), g.extent, g.level)))
        .collect();
    let mut all_parts = parts.clone();
    for (name, extent, level) in &parts.dims {
        if !parts.ids.iter().any(|g| &g.name == name) {
            let input = program.inputs.len() + all_parts.ids.len();
            id_inputs.insert(input, (name.as_str(), *extent, *level));
            all_parts.ids.push(crate::frontend::generic::GenericId {
                input,
                name: name.clone(),
                extent: *extent,
                level: *level,
            });
        }
    }
    let parts = &all_parts;
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
        for (&k, &(_, extent, _)) in &id_inputs {
            let v = bv::free(&mut sat, crate::ir::ValueType::Int(32));
            let inside = bv::ult(&mut sat, &v, &bv::constant(i64::from(extent)));
            sat.clause(&[inside]);
            copy.insert(k, v);
        }
    }
    // Per id level: the copies' ids at that level agree; distinct: some
    // id differs; same block: every id at the block level and above agree.
    let top = parts
        .ids
        .iter()
        .map(|g| g.level)
        .max()
        .unwrap_or(0)
        .max(parts.block_level);
    let mut eq_at: Vec<Vec<Lit>> = vec![Vec::new(); top + 1];
    let mut differ = Vec::new();
    for (&k, &(_, _, level)) in &id_inputs {
        let e = bv::eq(&mut sat, &ids[0][&k], &ids[1][&k]);
        eq_at[level].push(e);
        differ.push(-e);
    }
    let eq_level: Vec<Lit> = eq_at.iter().map(|v| sat.and(v)).collect();
    let same_block = sat.and(&eq_level[parts.block_level..]);
    let distinct = sat.or(&differ);
    // Split `s`: the copies' highest differing level is `s` (their
    // placements differ at entry `s - 1`; `s = 0`: one innermost group).
    let splits: Vec<Lit> = (0..=top)
        .map(|s| {
            let above = sat.and(&eq_level[s + 1..]);
            if s == 0 {
                above
            } else {
                sat.and2(above, -eq_level[s])
            }
        })
        .collect();
    // A thread that may stop in a spinning iteration compares its live
    // registers between iterations: every value may decide that.
    let spin_stops = !program.threads[0]
        .instrs
        .iter()
        .any(|i| matches!(i.kind, InstrKind::Barrier { .. }));
    let decisive = (!spin_stops).then(|| decisive_registers(program));
    let env = Env {
        program,
        inputs: &inputs,
        written: &written,
        zero: &zero,
        known: &known,
        arbitrary: &arbitrary,
        block_threads: parts.block_threads,
        // A thread that spins forever keeps the others of its block at
        // their next barrier; with barriers a spinning path stays a cut.
        spin_stops,
        decisive: decisive.as_ref(),
    };
    let runs: [Run; 2] = [
        thread::run(&mut sat, &env, &cfg, &dag, &ids[0])?,
        thread::run(&mut sat, &env, &cfg, &dag, &ids[1])?,
    ];
    let warps = WarpSync {
        same: if runs[0].warp_sync.is_empty() {
            FALSE
        } else {
            same_warp(&mut sat, parts, &id_inputs, &ids, &eq_level, same_block)
        },
        ends: [0, 1].map(|c| {
            let (guards, vals): (Vec<Lit>, Vec<&Bv>) =
                runs[c].warp_ends.iter().map(|(g, w)| (*g, w)).unzip();
            // (no way to the end: every path cut or undefined)
            if guards.is_empty() || runs[c].warp_sync.is_empty() {
                bv::constant(0)
            } else {
                mux_over(&mut sat, &guards, &vals)
            }
        }),
        may_cut: runs.iter().any(|r| !r.cut.is_empty()),
    };

    // Region contents nobody writes: equal offsets read equal values
    // where the two reads see one copy of the memory — global memory
    // always (every thread shares it), a block's shared memory when the
    // two copies are in one block (regions read a few times: `consistent`).
    let lookups: Vec<(usize, &thread::Lookup)> = runs
        .iter()
        .enumerate()
        .flat_map(|(k, r)| r.lookups.iter().map(move |l| (k, l)))
        .collect();
    for (a, &(ka, x)) in lookups.iter().enumerate() {
        for &(kb, y) in &lookups[a + 1..] {
            if x.region != y.region
                || x.bytes != y.bytes
                || !consistent[x.region]
                || !(x.decisive && y.decisive)
            {
                continue;
            }
            let one_copy = match regions[x.region].kind {
                BufKind::Shared if ka != kb => same_block,
                _ => TRUE,
            };
            crate::guard::check()?;
            let same_off = bv::eq(&mut sat, &x.offset, &y.offset);
            let same_val = bv::eq(&mut sat, &x.value, &y.value);
            sat.clause(&[-one_copy, -same_off, same_val]);
        }
    }
    let kinds: Vec<BufKind> = regions.iter().map(|b| b.kind).collect();
    tickets(
        &mut sat,
        program,
        &runs,
        (&zero, &kinds, same_block),
        (&parts.grid, &parts.block),
    )?;
    let mut out = Outcome {
        complete: true,
        ..Outcome::default()
    };
    // Per way of giving the size (`--shared-bytes` for dynamic shared
    // memory, the kernel's for its arguments), the buffers it would size.
    let mut unknown_size: Vec<(String, Vec<&str>)> = Vec::new();
    for (k, b) in regions.iter().enumerate() {
        if b.size.is_none()
            && runs[0].accesses.iter().any(|a| a.region == k)
            && shared_region(b.kind).is_some()
        {
            let hint = (b.size_hint.as_deref())
                .filter(|_| b.kind == BufKind::Shared)
                .map(|h| {
                    h.trim()
                        .trim_start_matches('(')
                        .trim_end_matches(')')
                        .to_string()
                })
                .unwrap_or_else(|| parts.size_hint.clone());
            match unknown_size.iter_mut().find(|(h, _)| *h == hint) {
                Some((_, names)) => names.push(&b.name),
                None => unknown_size.push((hint, vec![&b.name])),
            }
        }
    }
    for (hint, names) in unknown_size {
        out.assumptions.push(format!(
            "{} {} large enough for every access ({hint})",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if names.len() == 1 { "is" } else { "are" },
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
                u.cause(&sat),
                thread_name(&sat, parts, &ids[0])
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
    if program.has_assumptions() {
        let ways: Vec<Lit> = (runs[0].ends.iter().map(|e| e.0))
            .chain(runs[0].cut.iter().copied())
            .chain(runs[0].ub.iter().map(|u| u.guard))
            .collect();
        let any = sat.or(&ways);
        out.vacuous = !solve(&mut sat, &[any])?;
    }
    // Barrier divergence: two threads of one block end having passed
    // different numbers of block barriers. Confirmed when neither way
    // depends on an arbitrary value (the ways are then the threads' paths
    // in every execution with the witness's ids and inputs); a confirmed
    // one is sought first.
    'div: for confirmed_only in [true, false] {
        for (g0, b0, t0) in &runs[0].ends {
            for (g1, b1, t1) in &runs[1].ends {
                crate::guard::check()?;
                let confirmed = !t0 && !t1;
                if confirmed_only && !confirmed {
                    continue;
                }
                let e = bv::eq(&mut sat, b0, b1);
                if solve(&mut sat, &[*g0, *g1, -e, same_block, distinct])? {
                    let mut what = format!(
                        "threads {} and {} of one block {} different numbers of barriers (barrier divergence)",
                        thread_name(&sat, parts, &ids[0]),
                        thread_name(&sat, parts, &ids[1]),
                        if confirmed { "pass" } else { "may pass" },
                    );
                    let inputs = witness_inputs(&sat, program, parts, &values, &runs);
                    if confirmed && !inputs.is_empty() {
                        what.push_str(&format!(", with {}", inputs.join(" ")));
                    }
                    out.divergence = Some((what, confirmed));
                    break 'div;
                }
            }
        }
    }
    if !opts.check_races {
        return Ok(out);
    }
    let ignored: Vec<usize> = runs[0].ignored_sync.iter().copied().collect();
    if !ignored.is_empty() {
        let t = &program.threads[0];
        // (An unrolled loop repeats an instruction: each is named once.)
        let mut named: Vec<String> = Vec::new();
        for &k in &ignored {
            let n = format!(
                "`{}` at {}",
                crate::diag::excerpt(&t.instrs[k].text),
                t.instrs[k].pos
            );
            if !named.contains(&n) {
                named.push(n);
            }
        }
        named.truncate(3);
        out.unconfirmed_why.push(format!(
            "the kernel synchronises other than by block barriers ({}), which the two-thread abstraction does not take as ordering",
            named.join(", ")
        ));
    }
    races(
        &mut sat,
        program,
        parts,
        model,
        opts,
        &runs,
        (&splits, distinct),
        values,
        ignored.is_empty(),
        &warps,
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
/// A counter in shared memory is one per block: the two copies' additions
/// are distinct only when the copies share a block; in a thread's own
/// memory, only one copy's additions are.
fn tickets(
    sat: &mut Sat,
    program: &Program,
    runs: &[Run; 2],
    (zero, kinds, same_block): (&[bool], &[BufKind], Lit),
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
            // Additions per thread: its unrolling's; the threads that
            // share the counter: a block's for shared memory.
            let n = runs[0].rmws.iter().filter(|x| x.region == r).count() as u128;
            let sharing = match kinds[r] {
                BufKind::Shared => crate::frontend::ptx::launch::thread_count([1, 1, 1], *block),
                _ => threads,
            };
            let total = sharing.saturating_mul(n).saturating_mul(m);
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
    // (copy, addition)
    let all: Vec<(usize, &thread::Rmw)> = (runs.iter().enumerate())
        .flat_map(|(c, r)| r.rmws.iter().map(move |x| (c, x)))
        .filter(|(_, r)| eligible.contains(&r.region))
        .collect();
    for (a, &(cx, x)) in all.iter().enumerate() {
        for &(cy, y) in &all[a + 1..] {
            if x.region != y.region {
                continue;
            }
            // Whether the two additions can reach one counter.
            let one_counter = if cx == cy {
                TRUE
            } else {
                match kinds[x.region] {
                    BufKind::Global | BufKind::Const => TRUE,
                    BufKind::Shared => same_block,
                    BufKind::Private | BufKind::Param | BufKind::LocalMemory => FALSE,
                }
            };
            if one_counter == FALSE {
                continue;
            }
            crate::guard::check()?;
            let same = bv::eq(sat, &x.offset, &y.offset);
            let equal = bv::eq(sat, &x.old, &y.old);
            sat.clause(&[-x.guard, -y.guard, -same, -equal, -one_counter]);
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

/// `t3@b5`, `P13@wg3`: a copy's ids in the current model.
fn thread_name(sat: &Sat, parts: &GenericParts, ids: &HashMap<usize, Bv>) -> String {
    parts.thread_name(|k| ids.get(&k).map_or(0, |v| bv::value(sat, v)))
}

/// The copies' ids (input index → name and extent; per copy, input index
/// → value) and the values of the inputs they share.
struct Values<'a> {
    id_inputs: &'a BTreeMap<usize, (&'a str, u32, usize)>,
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
    let mut named: HashSet<String> = HashSet::new();
    // Decisive reads first: two reads of one cell whose values decide
    // nothing need not agree (`decisive_registers`), and any value of
    // such a cell is a witness, so it is named once, after the others.
    for decisive in [true, false] {
        for l in runs.iter().flat_map(|r| &r.lookups) {
            if l.decisive != decisive || !sat.value(l.guard) {
                continue;
            }
            let name = parts.cell_name(l.region, bv::value(sat, &l.offset), l.bytes);
            if !decisive && named.contains(&name) {
                continue;
            }
            let cell = format!("{name}={}", shown_value(bv::value(sat, &l.value), l.bytes));
            if !inputs.contains(&cell) {
                inputs.push(cell);
            }
            named.insert(name);
        }
    }
    inputs
}

/// A cell's value as a witness shows it: a byte or a half-word whose top
/// bit is set in hexadecimal (`0xfe`), since the cell does not say
/// whether the kernel reads it as signed (`-2`) or unsigned (`254`);
/// wider cells in decimal, negative as signed (`-1` for an `int`).
fn shown_value(v: i64, bytes: u32) -> String {
    if bytes < 4 && v < 0 {
        let mask = (1u64 << (8 * bytes.max(1))) - 1;
        format!("{:#x}", v as u64 & mask)
    } else {
        v.to_string()
    }
}

/// The registers whose values may decide something the check reads:
/// a branch, an address or an array index, a barrier's id or count, a
/// division's divisor (undefined behaviour), and whatever register
/// computes one of those (flow-insensitive, so a superset). The value
/// of a read from a region nobody writes that reaches none of them only
/// flows into stored values or into other such registers; stores'
/// values are never read back (loads of written regions are fresh
/// values), so two reads of one cell with different values in a solver
/// model can be made equal without changing any guard, address,
/// barrier count or undefined behaviour: dropping their agreement
/// neither hides a race nor invents one (docs/PTX-KERNELS.md, item 3).
fn decisive_registers(program: &Program) -> HashSet<String> {
    let mut seeds: Vec<&Operand> = Vec::new();
    for ins in &program.threads[0].instrs {
        if let Some(addr) = ins.kind.addr() {
            seeds.extend(addr.index());
            seeds.extend(addr.bound_indices());
        }
        match &ins.kind {
            InstrKind::Branch { a, b, .. } => seeds.extend([a, b]),
            InstrKind::Barrier { id, count, .. } => {
                seeds.push(id);
                seeds.extend(count);
            }
            InstrKind::Local {
                op:
                    crate::ir::BinOp::Div
                    | crate::ir::BinOp::Rem
                    | crate::ir::BinOp::Udiv
                    | crate::ir::BinOp::Urem,
                a,
                b,
                ..
            } => seeds.extend([a, b]),
            _ => {}
        }
    }
    let mut decisive: HashSet<String> = seeds
        .into_iter()
        .filter_map(|o| match o {
            Operand::Reg(r) => Some(r.clone()),
            Operand::Const(_) => None,
        })
        .collect();
    loop {
        let before = decisive.len();
        for ins in &program.threads[0].instrs {
            if let InstrKind::Local { dst, a, b, .. } = &ins.kind {
                if decisive.contains(dst) {
                    for o in [a, b] {
                        if let Operand::Reg(r) = o {
                            decisive.insert(r.clone());
                        }
                    }
                }
            }
        }
        if decisive.len() == before {
            return decisive;
        }
    }
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
    (splits, distinct): (&[Lit], Lit),
    values: Values,
    barriers_only: bool,
    warps: &WarpSync,
    out: &mut Outcome,
) -> Result<()> {
    let Values { ids, .. } = values;
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
    // split level of the two threads.
    let mut judged: HashMap<(String, String, usize), Option<String>> = HashMap::new();
    // Whether the block barriers order two accesses of one block in
    // different barrier intervals: the model's judgement too (below).
    let bars = block_barriers(program, parts.block_threads);
    let mut across: HashMap<(String, String, usize), Across> = HashMap::new();
    let mut across_unordered = false;
    // Whether the warp barriers order two accesses of one warp in
    // different warp-barrier intervals (first, second): the model's
    // judgement, as for block barriers; only where every two of them do
    // is the order taken.
    let wbars = warp_barriers(program, &runs[0].warp_sync);
    let mut warp_across: HashMap<(String, String), bool> = HashMap::new();
    let mut warp_unsure = false;
    let mut found: Vec<Found> = Vec::new();
    // Unrolled copies of one access usually share their offset (an index
    // computed before the loop) and their barrier counters: the overlap
    // and interval comparisons of a pair depend on those bits alone, so
    // they are built once per distinct pair of bit-vectors, not once per
    // pair of copies (quadratic in the iterations).
    let mut cmp = Comparisons::default();
    // Each access's offset and barrier count, as operand numbers.
    let numbered: [Vec<(usize, usize)>; 2] = [0, 1].map(|c| {
        runs[c]
            .accesses
            .iter()
            .map(|a| (cmp.id(&a.offset), cmp.id(&a.interval)))
            .collect()
    });
    let mut shapes: HashMap<usize, String> = HashMap::new();
    let mut shape_of = |i: usize| -> String {
        shapes
            .entry(i)
            .or_insert_with(|| shape(&t.instrs[i]))
            .clone()
    };
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
                    let ((oa, ia), (ob, ib)) = (numbered[0][i], numbered[1][j]);
                    let overlap = cmp.overlap(sat, (oa, a.bytes), (ob, b.bytes));
                    let mut flags = Vec::new();
                    // Splits where the model finds the two, on one
                    // location, no race (morally strong accesses).
                    let mut silent = Vec::new();
                    for (split, &lit) in splits.iter().enumerate() {
                        // (a split no two threads of the launch have, or a
                        // block's own memory seen from another block)
                        if lit == FALSE || (space == "shared" && split >= parts.block_level) {
                            continue;
                        }
                        let key = (shape_of(a.instr), shape_of(b.instr), split);
                        let flag = match judged.get(&key) {
                            Some(f) => f.clone(),
                            None => {
                                let f =
                                    judge(program, parts, model, [a.instr, b.instr], split, None)?;
                                judged.insert(key, f.clone());
                                f
                            }
                        };
                        match flag {
                            Some(f) => flags.push((split, lit, f)),
                            None => silent.push(lit),
                        }
                    }
                    if !silent.is_empty() {
                        let some = sat.or(&silent);
                        let pairable = sat.and2(some, distinct);
                        partial_overlap(
                            sat,
                            &mut cmp,
                            program,
                            [a, b],
                            [oa, ob],
                            overlap,
                            pairable,
                        )?;
                    }
                    if flags.is_empty() {
                        continue;
                    }
                    let together = sat.and(&[a.guard, b.guard, overlap]);
                    let confirmed = barriers_only && !a.tainted && !b.tainted;
                    for (split, lit, flag) in flags {
                        let base = sat.and2(together, lit);
                        if split >= parts.block_level {
                            // Threads of two blocks: no barrier orders them.
                            ways.push(Way {
                                lit: base,
                                confirmed,
                                flag,
                                accesses: (i, j),
                            });
                            continue;
                        }
                        // One block: the same barrier interval, or
                        // intervals the model says the barriers between
                        // them do not order (where it cannot say, they
                        // do not: only races are added). Either way not
                        // ordered by the warp barriers, in one warp.
                        let (unordered_in_warp, warp_sure) = {
                            let mut judged_warp = |first: usize, second: usize| -> Result<bool> {
                                let key = (shape_of(first), shape_of(second));
                                if let Some(&o) = warp_across.get(&key) {
                                    return Ok(o);
                                }
                                let o = matches!(
                                    barrier_kinds_ordering(
                                        program,
                                        parts,
                                        model,
                                        &wbars,
                                        [first, second],
                                        0
                                    )?,
                                    Across::Ordered
                                );
                                warp_across.insert(key, o);
                                Ok(o)
                            };
                            if warps.same == FALSE {
                                (TRUE, true)
                            } else {
                                let ab = judged_warp(a.instr, b.instr)?;
                                let ba = judged_warp(b.instr, a.instr)?;
                                let ordered = warps.orders(sat, [a, b], [ab, ba]);
                                (-ordered, ab && ba && !warps.may_cut)
                            }
                        };
                        let base = sat.and2(base, unordered_in_warp);
                        // In one warp across warp barriers, a race is only
                        // possible where the engine cannot tell whether
                        // the barriers order the pair.
                        let apart = if warp_sure {
                            FALSE
                        } else {
                            let same_count = bv::eq(sat, &a.warp, &b.warp);
                            sat.and2(warps.same, -same_count)
                        };
                        let ways_before = ways.len();
                        let iv = cmp.eq_ids(sat, ia, ib);
                        ways.push(Way {
                            lit: sat.and2(base, iv),
                            confirmed,
                            flag: flag.clone(),
                            accesses: (i, j),
                        });
                        for (first, second, earlier) in [
                            (a, b, cmp.ult_ids(sat, ia, ib)),
                            (b, a, cmp.ult_ids(sat, ib, ia)),
                        ] {
                            if earlier == FALSE {
                                continue;
                            }
                            let key = (shape_of(first.instr), shape_of(second.instr), split);
                            let ordered = match across.get(&key) {
                                Some(o) => o.clone(),
                                None => {
                                    let o = barrier_kinds_ordering(
                                        program,
                                        parts,
                                        model,
                                        &bars,
                                        [first.instr, second.instr],
                                        split,
                                    )?;
                                    across.insert(key, o.clone());
                                    o
                                }
                            };
                            let (lit, rest_unordered) = match &ordered {
                                Across::Ordered => continue,
                                // A barrier of a kind that orders them on
                                // its own lies between them: ordered.
                                // Otherwise only barriers of other kinds.
                                Across::By(kinds, rest) => {
                                    let mut parts_lit = vec![base, earlier];
                                    for k in kinds {
                                        let zero = bv::constant(0);
                                        let c1 = first.by_kind.get(k).unwrap_or(&zero);
                                        let c2 = second.by_kind.get(k).unwrap_or(&zero);
                                        parts_lit.push(-cmp.ult(sat, c1, c2));
                                    }
                                    (sat.and(&parts_lit), *rest)
                                }
                            };
                            across_unordered |= !rest_unordered;
                            ways.push(Way {
                                lit,
                                // Only barriers that do not order them
                                // lie between them; unless every two of
                                // those kinds are known not to order
                                // them, a sequence of them might.
                                confirmed: confirmed && rest_unordered,
                                flag: flag.clone(),
                                accesses: (i, j),
                            });
                        }
                        if apart != FALSE {
                            // Each way apart in one warp: not confirmed.
                            let split_off: Vec<Way> = ways[ways_before..]
                                .iter_mut()
                                .filter(|w| w.confirmed)
                                .map(|w| {
                                    let lit = w.lit;
                                    w.lit = sat.and2(lit, -apart);
                                    Way {
                                        lit: sat.and2(lit, apart),
                                        confirmed: false,
                                        flag: w.flag.clone(),
                                        accesses: w.accesses,
                                    }
                                })
                                .collect();
                            warp_unsure |= !split_off.is_empty();
                            ways.extend(split_off);
                        }
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
                    thread_name(sat, parts, &ids[copy]),
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
                    location: Some(race_location(parts, a, off, b, bv::value(sat, &b.offset))),
                    kind: kind.into(),
                    space: shared_region(buf.kind).map(str::to_string),
                    source: (s.4, u.4),
                    positions: (s.3, u.3),
                    in_witness: false,
                    inputs: inputs.clone(),
                },
                confirmed,
                inputs,
            });
        }
    }
    if warp_unsure && found.iter().any(|f| !f.confirmed) {
        out.unconfirmed_why.push(
            "two threads of one warp may be ordered by warp barriers in a way the two-thread abstraction does not take (a barrier the model does not take as ordering on its own, or a thread cut by the bound)".into(),
        );
    }
    if across_unordered {
        out.unconfirmed_why.push(
            "the model does not take a block barrier as ordering some pair of accesses, so pairs in different barrier intervals may race, unless other synchronisation between them orders them".into(),
        );
    }
    found.sort_by_key(|f| !f.confirmed);
    if found.len() > opts.max_races {
        out.complete = false;
        found.truncate(opts.max_races);
    }
    out.races = found;
    Ok(())
}

/// Where accesses `a` (at byte `off_a` of its region) and `b` race: one
/// cell's name, or, when they overlap without being the same cell (a
/// byte of a record and the word around it), both in bytes
/// (`sp+44:4 and sp+46:1`), which the first's element name would hide.
fn race_location(
    parts: &GenericParts,
    a: &thread::Access,
    off_a: i64,
    b: &thread::Access,
    off_b: i64,
) -> String {
    if (off_a, a.bytes) == (off_b, b.bytes) {
        return parts.cell_name(a.region, off_a, a.bytes);
    }
    let name = &parts.buffers[a.region].name;
    format!("{name}+{off_a}:{} and {name}+{off_b}:{}", a.bytes, b.bytes)
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

/// Comparisons of bit-vectors, each built once per pair of operands.
/// Operands are interned first: the pairs of accesses are quadratic in
/// the unrolled accesses, the distinct bit-vectors are not, and hashing
/// 64 literals per operand per pair cost more than the comparisons.
#[derive(Default)]
struct Comparisons {
    ids: HashMap<Bv, usize>,
    bvs: Vec<Bv>,
    ult: HashMap<(usize, usize), Lit>,
    eq: HashMap<(usize, usize), Lit>,
    /// `(offset, bytes)` → `offset + bytes`'s id.
    ends: HashMap<(usize, u32), usize>,
}

impl Comparisons {
    /// The number of `b` among the operands.
    fn id(&mut self, b: &Bv) -> usize {
        if let Some(&k) = self.ids.get(b) {
            return k;
        }
        self.bvs.push(b.clone());
        self.ids.insert(b.clone(), self.bvs.len() - 1);
        self.bvs.len() - 1
    }

    /// Whether `[a, a + m)` and `[b, b + n)` overlap (operand numbers).
    /// Accesses of one power-of-two size at offsets that are multiples of
    /// it (their low bits constant zero) overlap exactly when their
    /// offsets are equal: one equality instead of two adders and two
    /// comparators (a loop of 100 iterations with an access each makes
    /// 10^4 such pairs).
    fn overlap(&mut self, sat: &mut Sat, (a, m): (usize, u32), (b, n): (usize, u32)) -> Lit {
        let aligned = |o: &Bv| {
            o.iter()
                .take(m.trailing_zeros() as usize)
                .all(|&l| l == FALSE)
        };
        if m == n && m.is_power_of_two() && aligned(&self.bvs[a]) && aligned(&self.bvs[b]) {
            return self.eq_ids(sat, a, b);
        }
        let b_end = self.end(sat, b, n);
        let a_end = self.end(sat, a, m);
        let o1 = self.ult_ids(sat, a, b_end);
        let o2 = self.ult_ids(sat, b, a_end);
        sat.and2(o1, o2)
    }

    /// `o + k`'s number.
    fn end(&mut self, sat: &mut Sat, o: usize, k: u32) -> usize {
        if let Some(&e) = self.ends.get(&(o, k)) {
            return e;
        }
        let sum = bv::add(sat, &self.bvs[o], &bv::constant(i64::from(k)));
        let e = self.id(&sum);
        self.ends.insert((o, k), e);
        e
    }

    fn ult(&mut self, sat: &mut Sat, a: &Bv, b: &Bv) -> Lit {
        let (x, y) = (self.id(a), self.id(b));
        self.ult_ids(sat, x, y)
    }

    fn ult_ids(&mut self, sat: &mut Sat, a: usize, b: usize) -> Lit {
        if let Some(&l) = self.ult.get(&(a, b)) {
            return l;
        }
        let l = bv::ult(sat, &self.bvs[a], &self.bvs[b]);
        self.ult.insert((a, b), l);
        l
    }

    /// (one literal for both orders of the operands)
    fn eq_ids(&mut self, sat: &mut Sat, a: usize, b: usize) -> Lit {
        let key = (a.min(b), a.max(b));
        if let Some(&l) = self.eq.get(&key) {
            return l;
        }
        let l = bv::eq(sat, &self.bvs[a], &self.bvs[b]);
        self.eq.insert(key, l);
        l
    }
}

/// What decides the model's judgement of an access run alone: its kind
/// (and operation) and its tags, not its registers or address.
fn shape(i: &crate::ir::Instr) -> String {
    let kind = match &i.kind {
        InstrKind::Load { .. } => "load".to_string(),
        InstrKind::Store { .. } => "store".to_string(),
        InstrKind::Rmw { op, .. } => format!("rmw {op:?}"),
        // (a barrier's instance does not matter, only its kind)
        InstrKind::Barrier { count, arrive, .. } => format!("barrier {count:?} {arrive}"),
        other => format!("{other:?}"),
    };
    format!(
        "{kind} {:?} {:?} {:?} {:?}",
        i.tags, i.halves.read, i.halves.write, i.failed
    )
}

/// How the block barriers between two accesses of one block in different
/// barrier intervals order them, by the model's judgement.
#[derive(Clone)]
enum Across {
    /// Whatever barriers lie between them.
    Ordered,
    /// Whenever a barrier of one of these kinds (`shape`) lies between
    /// them; with only barriers of the other kinds they may race, and
    /// `.1`: every two of the other kinds leave them unordered.
    By(Vec<String>, bool),
}

/// The model's judgement of a pair across every two barrier kinds (each
/// instance contributes the same `po; sync; po` pattern, and one
/// po-later on one side adds no order the first does not, so two kinds
/// cover any sequence of them — with a single kind, a pair left unordered
/// across it is unordered across any number of its barriers); where some
/// pair of kinds leaves them unordered, the kinds that order them on their
/// own (two instances of the kind between them). A kind that orders alone
/// orders with any other barriers around it too: the models are monotone
/// in the synchronisation they are given.
fn barrier_kinds_ordering(
    program: &Program,
    parts: &GenericParts,
    model: &Model,
    bars: &[usize],
    pair: [usize; 2],
    split: usize,
) -> Result<Across> {
    let n = bars.len();
    let mut ordered = vec![vec![false; n]; n];
    for (x, &b0) in bars.iter().enumerate() {
        for (y, &b1) in bars.iter().enumerate() {
            ordered[x][y] = matches!(
                judge(program, parts, model, pair, split, Some([b0, b1])),
                Ok(None)
            );
        }
    }
    if n > 0 && ordered.iter().flatten().all(|&o| o) {
        return Ok(Across::Ordered);
    }
    let t = &program.threads[0];
    let alone: Vec<bool> = (0..n).map(|x| ordered[x][x]).collect();
    let kinds = (0..n)
        .filter(|&x| alone[x])
        .map(|x| shape(&t.instrs[bars[x]]))
        .collect();
    let rest_unordered = (0..n)
        .filter(|&x| !alone[x])
        .all(|x| (0..n).filter(|&y| !alone[y]).all(|y| !ordered[x][y]));
    Ok(Across::By(kinds, rest_unordered))
}

/// The model's judgement of instructions `a` and `b` of the generic
/// thread run alone by two threads whose highest differing id level is
/// `split`: the name of the flag that fires, if any. With `bars`, the
/// first thread passes barrier `bars[0]` after `a`, the second barrier
/// `bars[1]` before `b` (one barrier instance: they synchronise).
fn judge(
    program: &Program,
    parts: &GenericParts,
    model: &Model,
    [a, b]: [usize; 2],
    split: usize,
    bars: Option<[usize; 2]>,
) -> Result<Option<String>> {
    let t = &program.threads[0];
    let p0 = Placement {
        ids: vec![0; parts.placement_len],
        warp: None,
    };
    let mut p1 = p0.clone();
    if split >= 1 {
        if let Some(x) = p1.ids.get_mut(split - 1) {
            *x = 1;
        }
    }
    let loc = Location {
        name: "x".into(),
        phys: 0,
        virt: 0,
        init: 0,
        init_arbitrary: None,
        space: None,
    };
    let two = [
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
    ];
    match bars {
        None => two_alone_race(program, model, two, vec![loc]),
        Some([b0, b1]) => across_barrier_race(
            program,
            model,
            two,
            [&t.instrs[b0], &t.instrs[b1]],
            vec![loc],
        ),
    }
}

/// Refuses two accesses of the copies (`pair`, at operand numbers
/// `offsets`) that the model judges not to race on one location (morally
/// strong: atomics of a common scope) but that may overlap in part —
/// different sizes, or one size at different offsets — where `pairable`
/// lets the copies meet: operations that overlap in part are never
/// morally strong (PTX ISA, memory consistency model: morally strong
/// operations overlap completely), which the judgement on one location
/// cannot see. (Pairs the model finds racing are races on any overlap;
/// the concrete engines refuse mixed sizes too.)
fn partial_overlap(
    sat: &mut Sat,
    cmp: &mut Comparisons,
    program: &Program,
    [a, b]: [&thread::Access; 2],
    [oa, ob]: [usize; 2],
    overlap: Lit,
    pairable: Lit,
) -> Result<()> {
    let partial = match a.bytes == b.bytes {
        true => {
            let same = cmp.eq_ids(sat, oa, ob);
            sat.and2(overlap, -same)
        }
        false => overlap,
    };
    if partial == FALSE || !solve(sat, &[a.guard, b.guard, partial, pairable])? {
        return Ok(());
    }
    let t = &program.threads[0];
    Err(Error::new(
        ErrorKind::Unsupported,
        format!(
            "unsupported: mixed-size access: a {}-byte access (`{}`) and a {}-byte one (`{}`) of two threads may overlap in part, and one of them writes",
            b.bytes, t.instrs[b.instr].text, a.bytes, t.instrs[a.instr].text
        ),
    )
    .at(t.instrs[b.instr].pos))
}

/// Whether `i` may be a barrier of every thread of a block (the
/// convention of `frontend::generic`; an id held in a register is checked
/// where the thread runs): the barriers barrier divergence counts.
pub(crate) fn block_barrier_form(i: &Instr, block_threads: u64) -> bool {
    usize::try_from(block_threads).is_ok_and(|n| crate::engine::divergence::is_full_barrier(i, n))
}

/// A warp's (PTX `bar.warp.sync`) or a subgroup's (SPIR-V subgroup
/// `OpControlBarrier`) barrier: not arrive-only, for every thread of the
/// warp (no thread count, or a constant one); the caller checks that its
/// id is at or above `ir::WARP_BARRIER_IDS`.
pub(crate) fn warp_barrier_form(i: &Instr) -> bool {
    matches!(
        &i.kind,
        InstrKind::Barrier {
            arrive: false,
            count: None | Some(Operand::Const(_)),
            ..
        }
    )
}

/// The warp barriers of the generic thread (`sync`), one per shape.
fn warp_barriers(program: &Program, sync: &std::collections::BTreeSet<usize>) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    sync.iter()
        .copied()
        .filter(|&k| seen.insert(shape(&program.threads[0].instrs[k])))
        .collect()
}

/// What orders two threads of one warp: the k-th arrival of each at a
/// warp barrier is one barrier (as the concrete engines match them).
struct WarpSync {
    /// The two copies are in one warp (subgroup).
    same: Lit,
    /// Per copy, the warp barriers it passed by its end.
    ends: [Bv; 2],
    /// Some path of a copy is cut by the bound (its end is not known).
    may_cut: bool,
}

impl WarpSync {
    /// Whether the warp barriers order access `a` of copy 0 and `b` of
    /// copy 1 (`ab`, `ba`: the model says a barrier orders them in that
    /// direction): one passed fewer warp barriers before its access than
    /// the other and passes another after it, the barrier the other
    /// passed before its own — one instance, as in the judged pattern.
    /// An exited thread does not hold the others up, so without the
    /// second condition the two would not meet at a barrier.
    fn orders(&self, sat: &mut Sat, [a, b]: [&thread::Access; 2], [ab, ba]: [bool; 2]) -> Lit {
        let mut ways = Vec::new();
        for (first, second, end, ok) in [(a, b, &self.ends[0], ab), (b, a, &self.ends[1], ba)] {
            if !ok {
                continue;
            }
            let earlier = bv::ult(sat, &first.warp, &second.warp);
            let goes_on = bv::ult(sat, &first.warp, end);
            ways.push(sat.and2(earlier, goes_on));
        }
        let any = sat.or(&ways);
        sat.and2(self.same, any)
    }
}

/// Whether the two copies are in one warp: for PTX (blocks at id
/// level 1), their linear thread ids in the block (`x + y·X + z·X·Y`)
/// agree but for the low 5 bits; for SPIR-V, every id above the
/// subgroup-local one agrees (one subgroup of one workgroup).
fn same_warp(
    sat: &mut Sat,
    parts: &GenericParts,
    id_inputs: &BTreeMap<usize, (&str, u32, usize)>,
    ids: &[HashMap<usize, Bv>; 2],
    eq_level: &[Lit],
    same_block: Lit,
) -> Lit {
    if parts.block_level != 1 {
        return sat.and(&eq_level[1..]);
    }
    let linear = |sat: &mut Sat, copy: &HashMap<usize, Bv>| -> Bv {
        let mut acc = bv::constant(0);
        for (&k, &(name, _, level)) in id_inputs {
            if level != 0 {
                continue;
            }
            let scale = match name.rsplit('.').next() {
                Some("y") => i64::from(parts.block[0]),
                Some("z") => i64::from(parts.block[0]) * i64::from(parts.block[1]),
                _ => 1,
            };
            let term = bv::mul(sat, &copy[&k], &bv::constant(scale));
            acc = bv::add(sat, &acc, &term);
        }
        acc
    };
    let l0 = linear(sat, &ids[0]);
    let l1 = linear(sat, &ids[1]);
    let warp = bv::eq(sat, &l0[5..], &l1[5..]);
    sat.and2(same_block, warp)
}

/// The block barriers of the generic thread, one per shape.
fn block_barriers(program: &Program, block_threads: u64) -> Vec<usize> {
    let mut seen = std::collections::HashSet::new();
    program.threads[0]
        .instrs
        .iter()
        .enumerate()
        .filter(|(_, i)| block_barrier_form(i, block_threads) && seen.insert(shape(i)))
        .map(|(k, _)| k)
        .collect()
}
