//! Where every test instance runs and lives, launch after launch.
//!
//! A [`Plan`] packs as many instances of a test as the parameters allow
//! into a *template*: instance `i`'s thread `t` runs at (testing-workgroup
//! slot, subgroup slot, lane), its shared locations in cells of its
//! workgroup's shared array, its result record at a fixed offset. Threads
//! of one test workgroup share a hardware workgroup, of one test subgroup a
//! hardware subgroup; different ones differ — the only facts the model
//! sees. Every launch ([`Plan::launch`]) then draws, from the run's seed,
//! bijections that keep those facts and change everything else
//! (`Params::shuffle_threads`: which hardware workgroups test, which
//! subgroups and lanes the threads use; `permute_memory`: which words hold
//! which instance's locations), the bank-conflict shadows, and which
//! instances take the start barrier or pre-stress. The result is the
//! buffers of `abi` and what [`crate::run`] needs to read the results back.

use crate::abi::{self, KernelConfig, PARAM_WORDS};
use crate::backend::DeviceInfo;
use crate::lower::Lowered;
use crate::params::Params;
use crate::rng::Rng;
use crate::spec::{Address, KernelSpec, LocIdx, Op, Region};
use gpumc_core::diag::{Error, ErrorKind, Result};

/// Where one thread of one instance runs, in template coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seat {
    wg: u32,
    sub: u32,
    lane: u32,
}

/// A packed instance.
#[derive(Clone, Debug)]
struct Instance {
    seats: Vec<Seat>,
    /// Testing-workgroup slot and shared-array cell of each location in
    /// workgroup memory.
    shared: Vec<Option<(u32, u32)>>,
    /// Word offset of each thread's result record.
    result_base: Vec<u32>,
}

/// Where the final value of a location of an instance is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LocAt {
    /// A word of `mem`.
    Mem(u32),
    /// A word of the shared array of hardware workgroup `wg`.
    Shared { wg: u32, word: u32 },
}

/// What one launch needs and how to read it back.
#[derive(Clone, Debug)]
pub struct LaunchData {
    pub table: Vec<u32>,
    pub mem: Vec<u32>,
    pub shared_io: Vec<u32>,
    pub params: [u32; PARAM_WORDS],
    /// Per instance: each location's word (results are read through it).
    pub locs: Vec<Vec<LocAt>>,
}

/// The packing of a test for one parameter set on one device.
#[derive(Clone, Debug)]
pub struct Plan {
    params: Params,
    subgroup: u32,
    pub config: KernelConfig,
    /// Workgroups per launch (testing, then stress, before shuffling).
    pub workgroups: u32,
    testing: u32,
    instances: Vec<Instance>,
    /// Words per global-memory cell (a location copy and its padding).
    cell: u32,
    /// Words per shared-memory cell.
    shared_cell: u32,
    pub results_words: usize,
    pub stress_words: usize,
    /// Per thread, per location: whether the thread writes it (bank
    /// conflicts may broadcast only locations a thread only reads).
    writes: Vec<Vec<bool>>,
    row_words: usize,
    /// Whether the test has control barriers (a workgroup then hosts one
    /// test workgroup's threads only).
    barriers: bool,
}

/// Lanes of a subgroup still free, per testing workgroup and subgroup.
#[derive(Clone)]
struct Occupancy {
    lanes: Vec<Vec<u32>>,
    shared_used: Vec<u32>,
    host_group: Vec<Option<usize>>,
}

impl Plan {
    /// Packs `lowered` for `params` on `device`. Raises the workgroup size
    /// and the number of testing workgroups to what one instance needs;
    /// refuses a test whose subgroup holds more threads than the device's
    /// subgroups have lanes, or whose workgroup memory does not fit.
    pub fn new(lowered: &Lowered, params: &Params, device: &DeviceInfo) -> Result<Plan> {
        let spec = &lowered.spec;
        let mut params = params.clone();
        params.fit(device);
        let s = device.subgroup_size.max(1);
        let groups = group_classes(lowered);
        for classes in &groups {
            if let Some(big) = classes.iter().find(|c| c.len() as u32 > s) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!(
                        "unsupported: on this device: {} threads in one subgroup, but its subgroups have {s} invocations",
                        big.len()
                    ),
                ));
            }
        }
        let need_subgroups = groups
            .iter()
            .map(|c| c.len() as u32)
            .max()
            .unwrap_or(1)
            .max(1);
        let wg_size = params.workgroup_size.max(need_subgroups * s);
        if wg_size > device.max_workgroup_size {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: on this device: a workgroup needs {need_subgroups} subgroups of {s}, more than its {} invocations",
                    device.max_workgroup_size
                ),
            ));
        }
        params.workgroup_size = wg_size;
        let testing = params.testing_workgroups.max(groups.len() as u32);
        params.testing_workgroups = testing;
        let workgroups = testing + params.stress_workgroups;
        if workgroups > device.max_workgroups {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "{workgroups} workgroups per launch, more than the device's {}",
                    device.max_workgroups
                ),
            ));
        }
        fit_loop_limit(&mut params, spec, device);
        // Bank-conflict shadows reach 32 words per lane past a location.
        let pad = if params.bank_conflicts { 32 * s } else { 1 };
        let cell = params.mem_stride.max(pad);
        let shared_cell = if params.bank_conflicts { pad } else { 1 };
        let shared_of = shared_locations(spec, lowered);
        let subs = wg_size / s;
        let mut occ = Occupancy {
            lanes: vec![vec![s; subs as usize]; testing as usize],
            shared_used: vec![0; testing as usize],
            host_group: vec![None; testing as usize],
        };
        let barriers = !spec.barriers.is_empty();
        let limit = if params.max_instances == 0 {
            u32::MAX
        } else {
            params.max_instances
        };
        let mut instances = Vec::new();
        let mut results = 0u32;
        while (instances.len() as u32) < limit {
            let i = instances.len() as u32;
            let Some((inst, next)) = place(
                i,
                &groups,
                &shared_of,
                lowered,
                &occ,
                barriers,
                shared_cell,
                device.max_shared_words,
                s,
            ) else {
                break;
            };
            occ = next;
            let mut inst = inst;
            for t in 0..spec.threads.len() {
                inst.result_base.push(results);
                results += spec.result_words(t) as u32;
            }
            instances.push(inst);
        }
        if instances.is_empty() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: on this device: not even one instance fits (its workgroup memory needs more than {} words)",
                    device.max_shared_words
                ),
            ));
        }
        let shared_words = if spec.uses_shared() {
            occ.shared_used.iter().copied().max().unwrap_or(0).max(1)
        } else {
            0
        };
        let writes = spec
            .threads
            .iter()
            .map(|t| {
                let mut w = vec![false; spec.locations.len()];
                for op in t.phases.iter().flat_map(|p| &p.blocks).flat_map(|b| &b.ops) {
                    if let Op::Store { addr, .. } | Op::Rmw { addr, .. } = op {
                        for l in cells(addr) {
                            w[l] = true;
                        }
                    }
                }
                w
            })
            .collect();
        Ok(Plan {
            stress_words: (params.stress_lines * params.stress_line_words).max(1) as usize,
            config: KernelConfig {
                workgroup_size: wg_size,
                shared_words,
            },
            workgroups,
            testing,
            instances,
            cell,
            shared_cell,
            results_words: results.max(1) as usize,
            writes,
            row_words: spec.row_words(),
            barriers,
            subgroup: s,
            params,
        })
    }

    /// Test instances per launch.
    pub fn instances(&self) -> usize {
        self.instances.len()
    }

    /// The parameters after fitting (what the run really used).
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Word offsets of an instance's result records, per thread.
    pub fn result_base(&self, instance: usize) -> &[u32] {
        &self.instances[instance].result_base
    }

    /// Whether the kernel runs phase barriers (a hardware workgroup then
    /// hosts one test workgroup's threads only).
    pub fn has_barriers(&self) -> bool {
        self.barriers
    }

    /// The buffers of one launch, with every random choice drawn from `rng`.
    pub fn launch(&self, spec: &KernelSpec, rng: &mut Rng) -> LaunchData {
        let p = &self.params;
        let s = self.subgroup;
        let wg_size = self.config.workgroup_size;
        let subs = wg_size / s;
        let n = self.instances.len();
        // Hardware workgroup of each testing slot; the rest stress.
        let order: Vec<u32> = if p.shuffle_threads {
            rng.permutation(self.workgroups as usize)
                .into_iter()
                .map(|x| x as u32)
                .collect()
        } else {
            (0..self.workgroups).collect()
        };
        let sub_perm: Vec<Vec<u32>> = (0..self.testing)
            .map(|_| perm_or_id(rng, subs as usize, p.shuffle_threads))
            .collect();
        let lane_perm: Vec<Vec<Vec<u32>>> = (0..self.testing)
            .map(|_| {
                (0..subs)
                    .map(|_| perm_or_id(rng, s as usize, p.shuffle_threads))
                    .collect()
            })
            .collect();
        let slot = |seat: &Seat| -> usize {
            let w = order[seat.wg as usize];
            let sub = sub_perm[seat.wg as usize][seat.sub as usize];
            let lane = lane_perm[seat.wg as usize][seat.sub as usize][seat.lane as usize];
            (w * wg_size + sub * s + lane) as usize
        };
        // Memory: global location l of instance i in region l at cell
        // perm_l(i); shared locations in their workgroup's cells.
        let globals: Vec<LocIdx> = (0..spec.locations.len())
            .filter(|&l| spec.locations[l].region == Region::Global)
            .collect();
        let region_words = n as u32 * self.cell;
        let mut mem = vec![0u32; (globals.len().max(1) as u32 * region_words) as usize + 1];
        let shared_words = self.config.shared_words;
        let mut shared_io = vec![0u32; (self.workgroups * shared_words) as usize];
        let shared_cells = if shared_words == 0 {
            0
        } else {
            shared_words / self.shared_cell
        };
        let shared_perm: Vec<Vec<u32>> = (0..self.testing)
            .map(|_| perm_or_id(rng, shared_cells as usize, p.permute_memory))
            .collect();
        let mut locs: Vec<Vec<LocAt>> = Vec::with_capacity(n);
        let mem_perm: Vec<Vec<u32>> = globals
            .iter()
            .map(|_| perm_or_id(rng, n, p.permute_memory))
            .collect();
        for (i, inst) in self.instances.iter().enumerate() {
            let mut at = Vec::with_capacity(spec.locations.len());
            for (l, slot_l) in spec.locations.iter().enumerate() {
                let a = match (slot_l.region, inst.shared[l]) {
                    (Region::Shared, Some((twg, c))) => LocAt::Shared {
                        wg: order[twg as usize],
                        word: shared_perm[twg as usize][c as usize] * self.shared_cell,
                    },
                    _ => {
                        let g = globals.iter().position(|&x| x == l).unwrap_or(0) as u32;
                        LocAt::Mem(g * region_words + mem_perm[g as usize][i] * self.cell)
                    }
                };
                match a {
                    LocAt::Mem(w) => mem[w as usize] = slot_l.init as u32,
                    LocAt::Shared { wg, word } => {
                        shared_io[(wg * shared_words + word) as usize] = slot_l.init as u32
                    }
                }
                at.push(a);
            }
            locs.push(at);
        }
        // Table rows.
        let rw = self.row_words;
        let total = (self.workgroups * wg_size) as usize;
        let mut table = vec![0u32; total * rw];
        let stress_role = if p.stress_iterations > 0 {
            abi::ROLE_STRESS
        } else {
            abi::ROLE_IDLE
        };
        for &w in &order[self.testing as usize..] {
            for k in 0..wg_size {
                table[(w * wg_size + k) as usize * rw + abi::ROW_ROLE] = stress_role;
            }
        }
        let word = |a: LocAt| match a {
            LocAt::Mem(w) => w,
            LocAt::Shared { word, .. } => word,
        };
        let mut occupied = vec![false; total];
        for (i, inst) in self.instances.iter().enumerate() {
            let barrier = rng.percent(p.barrier_pct);
            for (t, seat) in inst.seats.iter().enumerate() {
                let sl = slot(seat);
                occupied[sl] = true;
                let row = &mut table[sl * rw..(sl + 1) * rw];
                row[abi::ROW_ROLE] = abi::ROLE_THREAD0 + t as u32;
                row[abi::ROW_RESULT] = inst.result_base[t];
                row[abi::ROW_SYNC] = i as u32;
                row[abi::ROW_SYNC_N] = if barrier { inst.seats.len() as u32 } else { 0 };
                row[abi::ROW_FLAGS] = if rng.percent(p.pre_stress_pct) {
                    abi::FLAG_PRE_STRESS
                } else {
                    0
                };
                for (l, &a) in locs[i].iter().enumerate() {
                    row[abi::ROW_LOC0 + l] = word(a);
                }
            }
        }
        if p.bank_conflicts {
            self.add_shadows(spec, rng, &locs, &slot, &occupied, &mut table);
        }
        let pattern = |rng: &mut Rng, x: u32| if x >= 4 { rng.range(0, 3) } else { x };
        let mut params = [0u32; PARAM_WORDS];
        params[abi::P_STRESS_ITERS] = p.stress_iterations;
        params[abi::P_STRESS_PATTERN] = pattern(rng, p.stress_pattern);
        params[abi::P_STRESS_LINE_WORDS] = p.stress_line_words;
        params[abi::P_STRESS_LINES] = p.stress_lines;
        params[abi::P_STRESS_OFFSET] = rng.below(u64::from(p.stress_lines)) as u32;
        params[abi::P_PRE_ITERS] = p.pre_stress_iterations;
        params[abi::P_PRE_PATTERN] = pattern(rng, p.pre_stress_pattern);
        params[abi::P_SPIN_LIMIT] = p.spin_limit;
        params[abi::P_FUEL] = p.fuel;
        LaunchData {
            table,
            mem,
            shared_io,
            params,
            locs,
        }
    }

    /// Sorensen's general bank conflicts: every free lane of a subgroup
    /// that runs test threads runs one of them (drawn per subgroup) on
    /// dummy addresses, with a pattern drawn per location.
    fn add_shadows(
        &self,
        spec: &KernelSpec,
        rng: &mut Rng,
        locs: &[Vec<LocAt>],
        slot: &dyn Fn(&Seat) -> usize,
        occupied: &[bool],
        table: &mut [u32],
    ) {
        let s = self.subgroup;
        let rw = self.row_words;
        // (instance, thread, lane) of the test threads per (workgroup
        // slot, subgroup slot).
        type Hosted = Vec<(usize, usize, u32)>;
        let mut hosted: std::collections::BTreeMap<(u32, u32), Hosted> = Default::default();
        for (i, inst) in self.instances.iter().enumerate() {
            for (t, seat) in inst.seats.iter().enumerate() {
                hosted
                    .entry((seat.wg, seat.sub))
                    .or_default()
                    .push((i, t, seat.lane));
            }
        }
        for ((wg, sub), threads) in hosted {
            let (i, t, lane) = threads[rng.below(threads.len() as u64) as usize];
            // 0 parallel, 1 conflict, 2 broadcast (reads only).
            let patterns: Vec<u32> = (0..spec.locations.len())
                .map(|l| {
                    let choices = if self.writes[t][l] { 2 } else { 3 };
                    rng.below(choices) as u32
                })
                .collect();
            for other in 0..s {
                let seat = Seat {
                    wg,
                    sub,
                    lane: other,
                };
                let sl = slot(&seat);
                if occupied[sl] {
                    continue;
                }
                let d = (other + s - lane) % s;
                let row = &mut table[sl * rw..(sl + 1) * rw];
                row[abi::ROW_ROLE] = abi::ROLE_THREAD0 + t as u32;
                row[abi::ROW_RESULT] = abi::DISCARD;
                row[abi::ROW_SYNC_N] = 0;
                for (l, &a) in locs[i].iter().enumerate() {
                    let base = match a {
                        LocAt::Mem(w) => w,
                        LocAt::Shared { word, .. } => word,
                    };
                    row[abi::ROW_LOC0 + l] = match patterns[l] {
                        0 => base + d,
                        1 => base + 32 * d,
                        _ => base,
                    };
                }
            }
        }
    }
}

/// Keeps every loop of the kernel within the driver's loop limit
/// (`DeviceInfo::loop_limit`): a subgroup runs the pre-stress loop, the
/// start barrier's spin and its thread's code, whose loops cost at most
/// two driver iterations per block visited (the block-dispatch loop and
/// the switch inside it) — so fuel is what is left, divided by twice the
/// largest phase's blocks.
fn fit_loop_limit(params: &mut Params, spec: &KernelSpec, device: &DeviceInfo) {
    let Some(limit) = device.loop_limit else {
        return;
    };
    let limit = u32::try_from(limit).unwrap_or(u32::MAX);
    params.stress_iterations = params.stress_iterations.min(limit / 2);
    params.spin_limit = params.spin_limit.min(limit / 8);
    params.pre_stress_iterations = params.pre_stress_iterations.min(limit / 8);
    let blocks = spec
        .threads
        .iter()
        .flat_map(|t| &t.phases)
        .map(|p| p.blocks.len() as u32)
        .max()
        .unwrap_or(1)
        .max(1);
    // The shared-memory copies, the phases' own loop entries and slack.
    let slack = 4096 + 8 * (spec.barriers.len() as u32 + 1) * blocks;
    let left = limit
        .saturating_sub(slack)
        .saturating_sub(params.spin_limit)
        .saturating_sub(params.pre_stress_iterations);
    params.fuel = params.fuel.min(left / (2 * blocks)).max(1);
}

fn perm_or_id(rng: &mut Rng, n: usize, shuffle: bool) -> Vec<u32> {
    if shuffle {
        rng.permutation(n).into_iter().map(|x| x as u32).collect()
    } else {
        (0..n as u32).collect()
    }
}

/// The locations an `Address` may reach.
fn cells(a: &Address) -> Vec<LocIdx> {
    match a {
        Address::Fixed(l) => vec![*l],
        Address::Indexed { cells, .. } => cells.clone(),
    }
}

/// Per test workgroup: its subgroup classes (threads that share a
/// subgroup); a thread placed in no particular subgroup is a class alone.
fn group_classes(lowered: &Lowered) -> Vec<Vec<Vec<usize>>> {
    let ngroups = lowered
        .places
        .iter()
        .map(|p| p.group + 1)
        .max()
        .unwrap_or(0);
    let mut groups: Vec<Vec<(Option<usize>, Vec<usize>)>> = vec![Vec::new(); ngroups];
    for (t, place) in lowered.places.iter().enumerate() {
        let g = &mut groups[place.group];
        match place
            .subgroup
            .and_then(|k| g.iter().position(|(c, _)| *c == Some(k)))
        {
            Some(c) => g[c].1.push(t),
            None => g.push((place.subgroup, vec![t])),
        }
    }
    groups
        .into_iter()
        .map(|g| g.into_iter().map(|(_, ts)| ts).collect())
        .collect()
}

/// The test workgroup (group) of each location in workgroup memory: the
/// group of the threads that access it (the lowering checked there is one);
/// group 0 for one no thread accesses.
fn shared_locations(spec: &KernelSpec, lowered: &Lowered) -> Vec<Option<usize>> {
    let mut of = vec![None; spec.locations.len()];
    for (t, code) in spec.threads.iter().enumerate() {
        for op in code
            .phases
            .iter()
            .flat_map(|p| &p.blocks)
            .flat_map(|b| &b.ops)
        {
            let addr = match op {
                Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Rmw { addr, .. } => addr,
                _ => continue,
            };
            for l in cells(addr) {
                if spec.locations[l].region == Region::Shared {
                    of[l] = Some(lowered.places[t].group);
                }
            }
        }
    }
    for (l, slot) in spec.locations.iter().enumerate() {
        if slot.region == Region::Shared && of[l].is_none() {
            of[l] = Some(0);
        }
    }
    of
}

/// Places instance `i` on `occ` (tried in a rotating order so instances
/// spread over the testing workgroups); `None` when it does not fit.
#[allow(clippy::too_many_arguments)]
fn place(
    i: u32,
    groups: &[Vec<Vec<usize>>],
    shared_of: &[Option<usize>],
    lowered: &Lowered,
    occ: &Occupancy,
    barriers: bool,
    shared_cell: u32,
    max_shared_words: u32,
    s: u32,
) -> Option<(Instance, Occupancy)> {
    let nthreads = lowered.places.len();
    let testing = occ.lanes.len() as u32;
    let mut occ = occ.clone();
    let mut seats = vec![
        Seat {
            wg: 0,
            sub: 0,
            lane: 0
        };
        nthreads
    ];
    let mut shared_cell_of = vec![None; shared_of.len()];
    let mut used_wgs: Vec<u32> = Vec::new();
    let ng = groups.len() as u32;
    for (g, classes) in groups.iter().enumerate() {
        let shared_here: Vec<usize> = (0..shared_of.len())
            .filter(|&l| shared_of[l] == Some(g))
            .collect();
        let start = (i * ng + g as u32) % testing;
        let mut done = false;
        for k in 0..testing {
            let w = (start + k) % testing;
            if used_wgs.contains(&w) {
                continue;
            }
            if barriers && occ.host_group[w as usize].is_some_and(|h| h != g) {
                continue;
            }
            let need = shared_here.len() as u32 * shared_cell;
            if occ.shared_used[w as usize] + need > max_shared_words {
                continue;
            }
            // Distinct subgroups for the classes, largest first.
            let mut order: Vec<usize> = (0..classes.len()).collect();
            order.sort_by_key(|&c| std::cmp::Reverse(classes[c].len()));
            let mut lanes = occ.lanes[w as usize].clone();
            let mut taken: Vec<u32> = Vec::new();
            let mut ok = true;
            let mut chosen: Vec<(usize, u32, u32)> = Vec::new();
            for c in order {
                let size = classes[c].len() as u32;
                let found = (0..lanes.len() as u32)
                    .find(|&sb| !taken.contains(&sb) && lanes[sb as usize] >= size);
                match found {
                    Some(sb) => {
                        let first = s - lanes[sb as usize];
                        lanes[sb as usize] -= size;
                        taken.push(sb);
                        chosen.push((c, sb, first));
                    }
                    None => {
                        ok = false;
                        break;
                    }
                }
            }
            if !ok {
                continue;
            }
            for (c, sb, first) in chosen {
                for (k, &t) in classes[c].iter().enumerate() {
                    seats[t] = Seat {
                        wg: w,
                        sub: sb,
                        lane: first + k as u32,
                    };
                }
            }
            occ.lanes[w as usize] = lanes;
            for &l in &shared_here {
                shared_cell_of[l] = Some((w, occ.shared_used[w as usize] / shared_cell));
                occ.shared_used[w as usize] += shared_cell;
            }
            occ.host_group[w as usize] = Some(g);
            used_wgs.push(w);
            done = true;
            break;
        }
        if !done {
            return None;
        }
    }
    Some((
        Instance {
            seats,
            shared: shared_cell_of,
            result_base: Vec::new(),
        },
        occ,
    ))
}

#[cfg(test)]
mod tests;
