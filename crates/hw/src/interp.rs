//! A reference backend with no GPU: it runs the harness of `abi` on the
//! CPU, one memory operation at a time, the invocations interleaved at
//! random — a sequentially consistent machine. Every state it reaches is
//! one every model allows (sequential consistency is the strongest
//! behaviour), so it tests everything around the kernel generators (the
//! lowering, the plan, the decoding, the conformance check) end to end,
//! and it is the executable definition the SPIR-V and PTX generators are
//! compared with. Stress loops are skipped: their memory is never observed.

use crate::abi::{self, KernelConfig};
use crate::backend::{Backend, DeviceInfo, KernelId, Launch, LaunchError, LaunchOutput};
use crate::rng::Rng;
use crate::spec::{
    Address, Block, End, KernelSpec, Op, PhaseBarrier, Region, RmwKind, Value, VkScope,
};
use gpumc_core::diag::Result;
use gpumc_core::ir::BinOp;
use std::collections::HashMap;
use std::time::Duration;

/// The interpreter backend (`--backend interp`).
pub struct Interp {
    info: DeviceInfo,
    kernels: HashMap<u64, (KernelSpec, KernelConfig)>,
    next: u64,
    seed: u64,
}

impl Interp {
    /// `seed` and each launch's contents drive its interleaving, so the
    /// same launch interleaves the same way whatever ran before it.
    pub fn new(seed: u64) -> Interp {
        Interp {
            info: DeviceInfo {
                backend: "interp".into(),
                name: "gpumc reference interpreter (sequentially consistent)".into(),
                driver: env!("CARGO_PKG_VERSION").into(),
                subgroup_size: 4,
                max_workgroup_size: 256,
                max_workgroups: 4096,
                compute_units: None,
                max_shared_words: 4096,
                loop_limit: None,
            },
            kernels: HashMap::new(),
            next: 0,
            seed,
        }
    }
}

/// 32-bit `Op::Local` semantics (spec.rs).
pub fn local(op: BinOp, a: i32, b: i32) -> i32 {
    let (ua, ub) = (a as u32, b as u32);
    let shift = |f: fn(u32, u32) -> u32| if ub >= 32 { None } else { Some(f(ua, ub)) };
    let r: u32 = match op {
        BinOp::Add => ua.wrapping_add(ub),
        BinOp::Sub => ua.wrapping_sub(ub),
        BinOp::Mul => ua.wrapping_mul(ub),
        BinOp::Div => {
            if b == 0 {
                0
            } else {
                a.wrapping_div(b) as u32
            }
        }
        BinOp::Rem => {
            if b == 0 {
                0
            } else {
                a.wrapping_rem(b) as u32
            }
        }
        BinOp::And => ua & ub,
        BinOp::Or => ua | ub,
        BinOp::Xor => ua ^ ub,
        BinOp::Shl => shift(|x, y| x << y).unwrap_or(0),
        BinOp::Lshr => shift(|x, y| x >> y).unwrap_or(0),
        BinOp::Shr => {
            if ub >= 32 {
                if a < 0 {
                    u32::MAX
                } else {
                    0
                }
            } else {
                (a >> ub) as u32
            }
        }
        BinOp::Udiv => ua.checked_div(ub).unwrap_or(0),
        BinOp::Urem => ua.checked_rem(ub).unwrap_or(0),
        BinOp::Eq => u32::from(a == b),
        BinOp::Ne => u32::from(a != b),
        BinOp::Lt => u32::from(a < b),
        BinOp::Le => u32::from(a <= b),
        BinOp::Gt => u32::from(a > b),
        BinOp::Ge => u32::from(a >= b),
        BinOp::Ult => u32::from(ua < ub),
        BinOp::Ule => u32::from(ua <= ub),
        BinOp::Ugt => u32::from(ua > ub),
        BinOp::Uge => u32::from(ua >= ub),
    };
    r as i32
}

/// Where an invocation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pc {
    /// Start barrier: the atomic add is next.
    Arrive,
    /// Start barrier: `n` loads made.
    Spin(u32),
    /// Operation `op` of block `block` of phase `phase`.
    Code {
        phase: usize,
        block: usize,
        op: usize,
    },
    /// Waiting at phase barrier `k`.
    Barrier(usize),
    Done,
}

struct Inv {
    slot: usize,
    role: u32,
    pc: Pc,
    regs: Vec<i32>,
    back_edges: u32,
    status: u32,
    stopped: bool,
}

struct Memory<'a> {
    mem: Vec<u32>,
    shared: Vec<Vec<u32>>,
    sync: Vec<u32>,
    results: Vec<u32>,
    table: &'a [u32],
    row_words: usize,
    wg_size: usize,
}

impl Memory<'_> {
    fn row(&self, slot: usize) -> &[u32] {
        &self.table[slot * self.row_words..(slot + 1) * self.row_words]
    }

    fn cell(
        &mut self,
        spec: &KernelSpec,
        slot: usize,
        loc: usize,
    ) -> std::result::Result<&mut u32, String> {
        let a = self.row(slot)[abi::ROW_LOC0 + loc] as usize;
        let wg = slot / self.wg_size;
        let v = match spec.locations[loc].region {
            Region::Global => &mut self.mem,
            Region::Shared => &mut self.shared[wg],
        };
        let n = v.len();
        v.get_mut(a).ok_or_else(|| {
            format!(
                "address word {a} of `{}` is outside its buffer ({n} words)",
                spec.locations[loc].name
            )
        })
    }
}

fn val(regs: &[i32], v: &Value) -> i32 {
    match v {
        Value::Reg(r) => regs[*r],
        Value::Const(c) => *c,
    }
}

fn rmw(op: &RmwKind, regs: &[i32], old: i32, operand: i32) -> i32 {
    match op {
        RmwKind::Exch => operand,
        RmwKind::Add => old.wrapping_add(operand),
        RmwKind::Sub => old.wrapping_sub(operand),
        RmwKind::And => old & operand,
        RmwKind::Or => old | operand,
        RmwKind::Xor => old ^ operand,
        RmwKind::Min => old.min(operand),
        RmwKind::Max => old.max(operand),
        RmwKind::Cas { expected } => {
            if old == val(regs, expected) {
                operand
            } else {
                old
            }
        }
    }
}

/// The location an address reaches for the current registers; `None`:
/// out of bounds.
fn target(addr: &Address, regs: &[i32]) -> Option<usize> {
    match addr {
        Address::Fixed(l) => Some(*l),
        Address::Indexed { index, cells } => usize::try_from(val(regs, index))
            .ok()
            .and_then(|k| cells.get(k).copied()),
    }
}

impl Inv {
    /// One step; returns an error for a harness failure.
    fn step(
        &mut self,
        spec: &KernelSpec,
        m: &mut Memory<'_>,
        fuel: u32,
        spin_limit: u32,
    ) -> std::result::Result<(), String> {
        let t = (self.role - abi::ROLE_THREAD0) as usize;
        match self.pc {
            Pc::Arrive => {
                let b = m.row(self.slot)[abi::ROW_SYNC] as usize;
                let c = m
                    .sync
                    .get_mut(b)
                    .ok_or("sync index outside the sync buffer")?;
                *c += 1;
                self.pc = Pc::Spin(0);
            }
            Pc::Spin(n) => {
                let row = m.row(self.slot);
                let (b, want) = (row[abi::ROW_SYNC] as usize, row[abi::ROW_SYNC_N]);
                if m.sync[b] >= want || n + 1 >= spin_limit {
                    self.pc = Pc::Code {
                        phase: 0,
                        block: 0,
                        op: 0,
                    };
                } else {
                    self.pc = Pc::Spin(n + 1);
                }
            }
            Pc::Code { phase, block, op } => {
                let blocks: &[Block] = &spec.threads[t].phases[phase].blocks;
                if self.stopped || block >= blocks.len() {
                    self.pc = self.after_phase(spec, phase);
                    return Ok(());
                }
                let b = &blocks[block];
                if op < b.ops.len() {
                    self.exec(spec, m, &b.ops[op])?;
                    self.pc = Pc::Code {
                        phase,
                        block,
                        op: op + 1,
                    };
                    return Ok(());
                }
                let next = match &b.end {
                    End::Exit => None,
                    End::Goto(n) => Some(*n),
                    End::Branch {
                        cmp,
                        a,
                        b: bb,
                        then,
                        otherwise,
                    } => {
                        let taken = cmp.eval(
                            i64::from(val(&self.regs, a)),
                            i64::from(val(&self.regs, bb)),
                        );
                        Some(if taken { *then } else { *otherwise })
                    }
                };
                self.pc = match next {
                    None => self.after_phase(spec, phase),
                    Some(n) => {
                        if End::is_back(block, n) {
                            if self.back_edges >= fuel {
                                self.stopped = true;
                                self.status = abi::STATUS_OUT_OF_FUEL;
                                return Ok(());
                            }
                            self.back_edges += 1;
                        }
                        Pc::Code {
                            phase,
                            block: n,
                            op: 0,
                        }
                    }
                };
            }
            Pc::Barrier(_) | Pc::Done => {}
        }
        Ok(())
    }

    fn after_phase(&self, spec: &KernelSpec, phase: usize) -> Pc {
        if phase < spec.barriers.len() {
            Pc::Barrier(phase)
        } else {
            Pc::Done
        }
    }

    fn exec(
        &mut self,
        spec: &KernelSpec,
        m: &mut Memory<'_>,
        op: &Op,
    ) -> std::result::Result<(), String> {
        let oob = |s: &mut Inv| {
            if s.status == abi::STATUS_DONE {
                s.status = abi::STATUS_OUT_OF_BOUNDS;
            }
        };
        match op {
            Op::Load { dst, addr, .. } => match target(addr, &self.regs) {
                Some(l) => self.regs[*dst] = *m.cell(spec, self.slot, l)? as i32,
                None => {
                    self.regs[*dst] = 0;
                    oob(self);
                }
            },
            Op::Store { addr, value, .. } => {
                let v = val(&self.regs, value);
                match target(addr, &self.regs) {
                    Some(l) => *m.cell(spec, self.slot, l)? = v as u32,
                    None => oob(self),
                }
            }
            Op::Rmw {
                dst,
                addr,
                op,
                value,
                ..
            } => {
                let operand = val(&self.regs, value);
                match target(addr, &self.regs) {
                    Some(l) => {
                        let regs = self.regs.clone();
                        let c = m.cell(spec, self.slot, l)?;
                        let old = *c as i32;
                        *c = rmw(op, &regs, old, operand) as u32;
                        if let Some(d) = dst {
                            self.regs[*d] = old;
                        }
                    }
                    None => {
                        if let Some(d) = dst {
                            self.regs[*d] = 0;
                        }
                        oob(self);
                    }
                }
            }
            Op::Fence(_) => {}
            Op::Local { dst, op, a, b } => {
                self.regs[*dst] = local(*op, val(&self.regs, a), val(&self.regs, b));
            }
        }
        Ok(())
    }
}

/// FNV-1a over a launch's inputs, mixed with the backend's seed.
fn launch_hash(seed: u64, l: &Launch<'_>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for w in l
        .table
        .iter()
        .chain(l.mem)
        .chain(l.params.iter())
        .chain(l.shared_io)
    {
        h ^= u64::from(*w);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Backend for Interp {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn compile(&mut self, spec: &KernelSpec, cfg: &KernelConfig) -> Result<KernelId> {
        self.next += 1;
        self.kernels.insert(self.next, (spec.clone(), *cfg));
        Ok(KernelId(self.next))
    }

    fn launch(
        &mut self,
        kernel: KernelId,
        l: &Launch<'_>,
        _watchdog: Duration,
    ) -> std::result::Result<LaunchOutput, LaunchError> {
        let (spec, cfg) = self
            .kernels
            .get(&kernel.0)
            .ok_or_else(|| LaunchError::Failed("no such kernel".into()))?;
        let wg_size = cfg.workgroup_size as usize;
        let sw = cfg.shared_words as usize;
        let total = l.workgroups as usize * wg_size;
        let row_words = spec.row_words();
        if l.table.len() < total * row_words {
            return Err(LaunchError::Failed(format!(
                "the table has {} words, {} needed",
                l.table.len(),
                total * row_words
            )));
        }
        let mut m = Memory {
            mem: l.mem.to_vec(),
            shared: (0..l.workgroups as usize)
                .map(|w| {
                    if sw == 0 {
                        Vec::new()
                    } else {
                        l.shared_io[w * sw..(w + 1) * sw].to_vec()
                    }
                })
                .collect(),
            sync: vec![0; l.sync_words],
            results: vec![0; l.results_words],
            table: l.table,
            row_words,
            wg_size,
        };
        let mut invs: Vec<Inv> = (0..total)
            .map(|slot| {
                let row = m.row(slot);
                // A role naming no thread of the kernel is idle (abi.rs).
                let role = match row[abi::ROW_ROLE] {
                    r if r >= abi::ROLE_THREAD0 + spec.threads.len() as u32 => abi::ROLE_IDLE,
                    r => r,
                };
                let pc = if role < abi::ROLE_THREAD0 {
                    if spec.barriers.is_empty() {
                        Pc::Done
                    } else {
                        Pc::Barrier(0)
                    }
                } else if row[abi::ROW_SYNC_N] != 0 {
                    Pc::Arrive
                } else {
                    Pc::Code {
                        phase: 0,
                        block: 0,
                        op: 0,
                    }
                };
                let regs = if role >= abi::ROLE_THREAD0 {
                    spec.threads[(role - abi::ROLE_THREAD0) as usize]
                        .regs
                        .iter()
                        .map(|r| r.init)
                        .collect()
                } else {
                    Vec::new()
                };
                Inv {
                    slot,
                    role,
                    pc,
                    regs,
                    back_edges: 0,
                    status: abi::STATUS_DONE,
                    stopped: false,
                }
            })
            .collect();
        let (fuel, spin) = (l.params[abi::P_FUEL], l.params[abi::P_SPIN_LIMIT]);
        let mut rng = Rng::new(launch_hash(self.seed, l));
        let s = self.info.subgroup_size as usize;
        let blocked = |pc: Pc| matches!(pc, Pc::Done | Pc::Barrier(_));
        let mut runnable: Vec<usize> = (0..total).filter(|&i| !blocked(invs[i].pc)).collect();
        loop {
            if runnable.is_empty() {
                // Release every barrier whose group has fully arrived.
                for k in 0..spec.barriers.len() {
                    let sub = matches!(
                        spec.barriers[k],
                        PhaseBarrier::Vulkan {
                            execution: VkScope::Subgroup,
                            ..
                        }
                    );
                    let group = |slot: usize| if sub { slot / s } else { slot / wg_size };
                    let mut waiting: HashMap<usize, (usize, usize)> = HashMap::new();
                    for inv in &invs {
                        let e = waiting.entry(group(inv.slot)).or_default();
                        e.1 += 1;
                        if inv.pc == Pc::Barrier(k) {
                            e.0 += 1;
                        }
                    }
                    for inv in invs.iter_mut() {
                        let (at, all) = waiting[&group(inv.slot)];
                        if inv.pc == Pc::Barrier(k) && at == all {
                            inv.pc = if inv.role >= abi::ROLE_THREAD0 {
                                Pc::Code {
                                    phase: k + 1,
                                    block: 0,
                                    op: 0,
                                }
                            } else if k + 1 < spec.barriers.len() {
                                Pc::Barrier(k + 1)
                            } else {
                                Pc::Done
                            };
                        }
                    }
                }
                runnable = (0..total).filter(|&i| !blocked(invs[i].pc)).collect();
                if runnable.is_empty() {
                    break;
                }
                continue;
            }
            let j = rng.below(runnable.len() as u64) as usize;
            let i = runnable[j];
            invs[i]
                .step(spec, &mut m, fuel, spin)
                .map_err(LaunchError::Failed)?;
            if blocked(invs[i].pc) {
                runnable.swap_remove(j);
            }
        }
        if let Some(inv) = invs.iter().find(|i| i.pc != Pc::Done) {
            return Err(LaunchError::Failed(format!(
                "invocation {} is stuck at {:?}",
                inv.slot, inv.pc
            )));
        }
        for inv in &invs {
            if inv.role < abi::ROLE_THREAD0 {
                continue;
            }
            let row = m.row(inv.slot);
            let base = row[abi::ROW_RESULT];
            if base == abi::DISCARD {
                continue;
            }
            let code = &spec.threads[(inv.role - abi::ROLE_THREAD0) as usize];
            let mut rec = vec![inv.status, inv.back_edges];
            rec.extend(code.recorded.iter().map(|&r| inv.regs[r] as u32));
            let b = base as usize;
            let dst = m.results.get_mut(b..b + rec.len()).ok_or_else(|| {
                LaunchError::Failed("a result record outside the results buffer".into())
            })?;
            dst.copy_from_slice(&rec);
        }
        Ok(LaunchOutput {
            mem: m.mem,
            results: m.results,
            shared_io: m.shared.concat(),
            device_time: None,
        })
    }

    fn release(&mut self, kernel: KernelId) {
        self.kernels.remove(&kernel.0);
    }

    fn reset(&mut self) -> std::result::Result<(), String> {
        self.kernels.clear();
        Ok(())
    }
}
