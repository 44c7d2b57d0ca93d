//! A thread's instruction list → phases (cut at control barriers) of basic
//! blocks with explicit edges, and the phase barriers every thread agrees
//! on.
//!
//! A GPU control barrier must be reached by every invocation of the
//! workgroup in uniform control flow, so the generated kernel executes the
//! test's barriers at its top level (`spec::KernelSpec::barriers`). That
//! is faithful only when each barrier is unconditionally executed once by
//! its thread — no jump crosses it, no loop contains it — and when the
//! threads that share a workgroup execute the same barriers in the same
//! order. Tests outside that shape are refused.

use super::{access, check_kind, refuse};
use crate::spec::{
    Address, Block, BlockIdx, End, Op, Phase, PhaseBarrier, Reg, RegIdx, RmwKind, ThreadCode,
    Value, VkScope,
};
use gpumc_core::diag::{Error, ErrorKind, Result};
use gpumc_core::ir::{Addr, Arch, Instr, InstrKind, Operand, Program, RmwOp, Thread};
use std::collections::HashMap;

/// Every thread's code, and the phase barriers.
pub(super) fn threads(p: &Program) -> Result<(Vec<ThreadCode>, Vec<PhaseBarrier>)> {
    let mut codes = Vec::new();
    let mut barrier_lists: Vec<Vec<(PhaseBarrier, &Instr)>> = Vec::new();
    for t in &p.threads {
        let (code, bars) = thread(p.arch, t)?;
        codes.push(code);
        barrier_lists.push(bars);
    }
    let barriers = agree_on_barriers(p, &barrier_lists)?;
    for code in &mut codes {
        code.phases.resize_with(barriers.len() + 1, Phase::default);
    }
    Ok((codes, barriers))
}

/// The barriers all threads execute, in order: the k-th barriers of all
/// threads that have one must be the same; threads of a workgroup that
/// runs barriers must all run the same number.
fn agree_on_barriers(
    p: &Program,
    lists: &[Vec<(PhaseBarrier, &Instr)>],
) -> Result<Vec<PhaseBarrier>> {
    let mut out: Vec<(PhaseBarrier, &Instr)> = Vec::new();
    for list in lists {
        for (k, (b, ins)) in list.iter().enumerate() {
            match out.get(k) {
                Some((prev, first)) if prev != b => {
                    return Err(refuse(
                        ins,
                        format!(
                            "a control barrier that differs from the one other threads execute at the same point (at {}); the kernel runs one barrier instruction for all",
                            first.pos
                        ),
                    ))
                }
                Some(_) => {}
                None => out.push((b.clone(), ins)),
            }
        }
    }
    // Threads a barrier waits for together must run the same number:
    // those of one workgroup, or of one subgroup when every barrier either
    // runs is a subgroup barrier.
    let ids = |t: &Thread| match p.arch {
        Arch::Vulkan => (t.placement.ids[1], Some(t.placement.ids[0])),
        Arch::Ptx | Arch::C => (t.placement.ids[0], None),
    };
    let subgroup_only = |l: &[(PhaseBarrier, &Instr)]| {
        l.iter().all(|(b, _)| {
            matches!(
                b,
                PhaseBarrier::Vulkan {
                    execution: VkScope::Subgroup,
                    ..
                }
            )
        })
    };
    for (i, a) in p.threads.iter().enumerate() {
        for (j, b) in p.threads.iter().enumerate().skip(i + 1) {
            let ((ga, sa), (gb, sb)) = (ids(a), ids(b));
            let together =
                ga == gb && (sa == sb || !subgroup_only(&lists[i]) || !subgroup_only(&lists[j]));
            if !together {
                continue;
            }
            // Barriers that wait for each other must be the same barrier.
            let id = |i: &Instr| match &i.kind {
                InstrKind::Barrier { id, .. } => Some(id.clone()),
                _ => None,
            };
            for ((_, x), (_, y)) in lists[i].iter().zip(&lists[j]) {
                if id(x) != id(y) {
                    return Err(refuse(
                        y,
                        format!(
                            "a control barrier whose id differs from the one {} executes at the same point (at {}); the kernel runs one barrier for the workgroup",
                            a.name, x.pos
                        ),
                    ));
                }
            }
            if lists[i].len() != lists[j].len() {
                let (more, fewer) = if lists[i].len() > lists[j].len() {
                    (i, j)
                } else {
                    (j, i)
                };
                let ins = lists[more][lists[fewer].len()].1;
                return Err(refuse(
                    ins,
                    format!(
                        "a control barrier that {} does not execute although the barrier waits for it (partial participation: it would wait forever)",
                        p.threads[fewer].name
                    ),
                ));
            }
        }
    }
    Ok(out.into_iter().map(|(b, _)| b).collect())
}

/// Register table of one thread.
#[derive(Default)]
struct Regs {
    list: Vec<Reg>,
    index: HashMap<String, RegIdx>,
}

impl Regs {
    fn get(&mut self, name: &str) -> RegIdx {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.list.push(Reg {
            name: name.to_string(),
            init: 0,
        });
        self.index.insert(name.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }
}

/// A constant as a 32-bit register holds it: a signed value, or an
/// unsigned bit pattern (`0xffff0000`, which masks the same bits in 32 as
/// in 64 bits; results are compared truncated to 32 bits).
fn constant(ins: &Instr, v: i64) -> Result<i32> {
    if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) {
        Ok(v as u32 as i32)
    } else {
        Err(refuse(
            ins,
            format!("the constant {v}, which does not fit in 32 bits"),
        ))
    }
}

fn value(ins: &Instr, regs: &mut Regs, o: &Operand) -> Result<Value> {
    Ok(match o {
        Operand::Reg(r) => Value::Reg(regs.get(r)),
        Operand::Const(c) => Value::Const(constant(ins, *c)?),
    })
}

fn address(ins: &Instr, regs: &mut Regs, a: &Addr) -> Result<Address> {
    Ok(match a {
        Addr::Fixed(l) => Address::Fixed(*l),
        Addr::Indexed(x) => Address::Indexed {
            index: value(ins, regs, &x.index)?,
            cells: x.cells.clone(),
        },
        Addr::Region(_) => {
            return Err(Error::unsupported(
                ins.pos,
                "running an access into memory of unknown size on hardware",
            ))
        }
    })
}

/// One thread: its phases and the barriers that end them.
fn thread(arch: Arch, t: &Thread) -> Result<(ThreadCode, Vec<(PhaseBarrier, &Instr)>)> {
    let mut regs = Regs::default();
    for (r, v) in &t.init_regs {
        let i = regs.get(r);
        regs.list[i].init = i32::try_from(*v).map_err(|_| {
            Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: on hardware: the initial value {v} of {}:{r} does not fit in 32 bits",
                    t.name
                ),
            )
        })?;
    }
    // Cut at barriers; a label belongs to the phase it is in.
    let mut cuts: Vec<usize> = Vec::new();
    let mut bars = Vec::new();
    for (i, ins) in t.instrs.iter().enumerate() {
        check_kind(ins)?;
        if let InstrKind::Barrier { id, count, arrive } = &ins.kind {
            if *arrive {
                return Err(refuse(ins, "an arrive-only barrier"));
            }
            if count.is_some() {
                return Err(refuse(
                    ins,
                    "a barrier quorum (a thread count): the kernel's barrier waits for the whole workgroup",
                ));
            }
            let b = match arch {
                Arch::C => return Err(refuse(ins, "a C statement (compile the test first)")),
                Arch::Vulkan => access::vulkan_barrier(ins)?,
                Arch::Ptx => {
                    let Operand::Const(id) = id else {
                        return Err(refuse(ins, "a barrier id held in a register"));
                    };
                    let id = u32::try_from(*id)
                        .ok()
                        .filter(|&i| i < 16)
                        .ok_or_else(|| refuse(ins, "a barrier id outside 0..15"))?;
                    PhaseBarrier::Ptx { id }
                }
            };
            cuts.push(i);
            bars.push((b, ins));
        }
    }
    let phase_of = |i: usize| cuts.iter().filter(|&&c| c < i).count();
    let mut labels: HashMap<&str, usize> = HashMap::new();
    for (i, ins) in t.instrs.iter().enumerate() {
        if let InstrKind::Label(l) = &ins.kind {
            labels.insert(l.as_str(), i);
        }
    }
    for (i, ins) in t.instrs.iter().enumerate() {
        let target = match &ins.kind {
            InstrKind::Branch { target, .. } | InstrKind::Goto(target) => target,
            _ => continue,
        };
        let Some(&j) = labels.get(target.as_str()) else {
            return Err(Error::semantic(ins.pos, format!("no label `{target}`")));
        };
        if phase_of(i) != phase_of(j) {
            return Err(refuse(
                ins,
                "a jump across a control barrier (the barrier would be conditional or inside a loop)",
            ));
        }
    }
    let mut phases = Vec::new();
    let mut start = 0;
    for &c in cuts.iter().chain(std::iter::once(&t.instrs.len())) {
        phases.push(phase(arch, &t.instrs[start..c], &mut regs)?);
        start = c + 1;
    }
    Ok((
        ThreadCode {
            name: t.name.clone(),
            regs: regs.list,
            phases,
            recorded: Vec::new(),
        },
        bars,
    ))
}

/// Basic blocks of one phase's instructions (no barriers among them).
fn phase(arch: Arch, instrs: &[Instr], regs: &mut Regs) -> Result<Phase> {
    // Leaders: the first instruction, every label, every instruction after
    // a jump. Block k starts at leaders[k].
    let mut leaders: Vec<usize> = vec![0];
    for (i, ins) in instrs.iter().enumerate() {
        match &ins.kind {
            InstrKind::Label(_) => leaders.push(i),
            InstrKind::Branch { .. } | InstrKind::Goto(_) => leaders.push(i + 1),
            _ => {}
        }
    }
    leaders.retain(|&i| i < instrs.len());
    leaders.sort_unstable();
    leaders.dedup();
    if instrs.is_empty() {
        return Ok(Phase::default());
    }
    let block_at = |i: usize| leaders.iter().position(|&l| l == i);
    let mut label_block: HashMap<&str, BlockIdx> = HashMap::new();
    for (i, ins) in instrs.iter().enumerate() {
        if let InstrKind::Label(l) = &ins.kind {
            // A label is a leader, so it starts a block.
            label_block.insert(l.as_str(), block_at(i).unwrap_or(0));
        }
    }
    let nblocks = leaders.len();
    // Falling off the last block leaves the phase.
    let next = |b: BlockIdx| {
        if b + 1 < nblocks {
            End::Goto(b + 1)
        } else {
            End::Exit
        }
    };
    let target = |ins: &Instr, l: &str| {
        label_block
            .get(l)
            .copied()
            .ok_or_else(|| Error::semantic(ins.pos, format!("no label `{l}`")))
    };
    let mut blocks = Vec::with_capacity(nblocks);
    for (b, &from) in leaders.iter().enumerate() {
        let to = leaders.get(b + 1).copied().unwrap_or(instrs.len());
        let mut ops = Vec::new();
        let mut end = next(b);
        for ins in &instrs[from..to] {
            match &ins.kind {
                InstrKind::Label(_) => {}
                InstrKind::Goto(l) => end = End::Goto(target(ins, l)?),
                InstrKind::Branch {
                    op,
                    a,
                    b: bb,
                    target: l,
                } => {
                    end = End::Branch {
                        cmp: *op,
                        a: value(ins, regs, a)?,
                        b: value(ins, regs, bb)?,
                        then: target(ins, l)?,
                        otherwise: match next(b) {
                            End::Goto(n) => n,
                            // A branch at the very end: both ways leave,
                            // through an empty block.
                            _ => nblocks,
                        },
                    };
                }
                _ => ops.push(op(arch, ins, regs)?),
            }
        }
        blocks.push(Block { ops, end });
    }
    // A conditional branch in the last block needs a block to fall into.
    if blocks
        .iter()
        .any(|bl| matches!(bl.end, End::Branch { otherwise, .. } if otherwise == nblocks))
    {
        blocks.push(Block {
            ops: Vec::new(),
            end: End::Exit,
        });
    }
    Ok(Phase { blocks })
}

fn rmw_kind(ins: &Instr, regs: &mut Regs, op: &RmwOp) -> Result<RmwKind> {
    Ok(match op {
        RmwOp::Exch => RmwKind::Exch,
        RmwOp::Add => RmwKind::Add,
        RmwOp::Sub => RmwKind::Sub,
        RmwOp::And => RmwKind::And,
        RmwOp::Or => RmwKind::Or,
        RmwOp::Xor => RmwKind::Xor,
        RmwOp::Min => RmwKind::Min,
        RmwOp::Max => RmwKind::Max,
        RmwOp::UMin | RmwOp::UMax | RmwOp::Inc | RmwOp::Dec => {
            return Err(refuse(
                ins,
                "an unsigned min/max or wrapping increment/decrement atomic",
            ))
        }
        RmwOp::Cas { expected } => RmwKind::Cas {
            expected: value(ins, regs, expected)?,
        },
    })
}

/// One non-control instruction.
fn op(arch: Arch, ins: &Instr, regs: &mut Regs) -> Result<Op> {
    let access = |ins: &Instr| match arch {
        Arch::Vulkan => access::vulkan(ins),
        Arch::Ptx => access::ptx(ins),
        Arch::C => Err(refuse(ins, "a C statement (compile the test first)")),
    };
    Ok(match &ins.kind {
        InstrKind::Load { dst, addr } => Op::Load {
            dst: regs.get(dst),
            addr: address(ins, regs, addr)?,
            access: access(ins)?,
        },
        InstrKind::Store { addr, value: v } => Op::Store {
            addr: address(ins, regs, addr)?,
            value: value(ins, regs, v)?,
            access: access(ins)?,
        },
        InstrKind::Rmw {
            dst,
            addr,
            op,
            operand,
        } => Op::Rmw {
            dst: dst.as_ref().map(|d| regs.get(d)),
            addr: address(ins, regs, addr)?,
            op: rmw_kind(ins, regs, op)?,
            value: value(ins, regs, operand)?,
            access: access(ins)?,
        },
        InstrKind::Fence => Op::Fence(match arch {
            Arch::Vulkan => access::vulkan_fence(ins)?,
            Arch::Ptx => access::ptx_fence(ins)?,
            Arch::C => return Err(refuse(ins, "a C statement (compile the test first)")),
        }),
        InstrKind::Local { dst, op, a, b } => Op::Local {
            dst: regs.get(dst),
            op: *op,
            a: value(ins, regs, a)?,
            b: value(ins, regs, b)?,
        },
        _ => {
            check_kind(ins)?;
            return Err(refuse(ins, "this instruction"));
        }
    })
}
