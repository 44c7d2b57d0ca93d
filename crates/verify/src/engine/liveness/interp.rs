//! A small interpreter for IR threads with concrete values, shared by the
//! interleaving state graph (`sc`), the eventual-behaviour analysis
//! (`eventual`) and the replay check of spinning iterations.
//!
//! A thread's *visible* instructions are its memory accesses, fences and
//! barriers; labels, register operations and jumps are *local*. A thread
//! state is its pc and registers; [`Code::run_local`] runs local
//! instructions up to the next visible one, [`Code::exec`] executes one
//! visible instruction.

use crate::diag::{Error, Result};
use crate::ir::{BinOp, CmpOp, InstrKind, Operand, Pos, Program, RmwOp, Thread};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opnd {
    Reg(usize),
    Const(i64),
}

#[derive(Clone, Debug)]
pub enum RmwKind {
    Exch,
    Bin(fn(i64, i64) -> i64),
    Cas(Opnd),
}

#[derive(Clone, Debug)]
pub enum Op {
    Nop,
    Local {
        dst: usize,
        op: BinOp,
        a: Opnd,
        b: Opnd,
    },
    Load {
        dst: usize,
        loc: usize,
    },
    Store {
        loc: usize,
        val: Opnd,
    },
    Rmw {
        dst: Option<usize>,
        loc: usize,
        kind: RmwKind,
        operand: Opnd,
    },
    Fence,
    Barrier,
    Branch {
        op: CmpOp,
        a: Opnd,
        b: Opnd,
        target: usize,
    },
    Goto(usize),
}

impl Op {
    pub fn visible(&self) -> bool {
        matches!(
            self,
            Op::Load { .. } | Op::Store { .. } | Op::Rmw { .. } | Op::Fence | Op::Barrier
        )
    }
    /// The physical location accessed, if any.
    pub fn loc(&self) -> Option<usize> {
        match self {
            Op::Load { loc, .. } | Op::Store { loc, .. } | Op::Rmw { loc, .. } => Some(*loc),
            _ => None,
        }
    }
    pub fn reads(&self) -> bool {
        matches!(self, Op::Load { .. } | Op::Rmw { .. })
    }
}

/// A thread's local state: pc and registers. `pc == len` is terminated;
/// `pc == DIVERGED` means the thread loops forever on local instructions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Local {
    pub pc: usize,
    pub regs: Vec<i64>,
}

pub const DIVERGED: usize = usize::MAX;

/// What executing a visible instruction did to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Effect {
    pub loc: Option<usize>,
    pub read: Option<i64>,
    pub written: Option<i64>,
}

/// One thread compiled for the interpreter.
#[derive(Clone, Debug)]
pub struct Code {
    pub ops: Vec<Op>,
    pub reg_names: Vec<String>,
    pub init: Local,
    /// Source position and text of each instruction.
    pub pos: Vec<Pos>,
    pub texts: Vec<String>,
}

/// Local steps allowed between two visible instructions before a local
/// loop that never repeats a state is given up on.
const MAX_LOCAL_STEPS: usize = 100_000;

fn binop(op: BinOp, a: i64, b: i64) -> Option<i64> {
    crate::engine::paths::eval_binop(op, a, b)
}

impl Code {
    pub fn compile(p: &Program, t: &Thread) -> Result<Code> {
        let mut regs: Vec<String> = Vec::new();
        let mut reg = |r: &str| -> usize {
            match regs.iter().position(|x| x == r) {
                Some(i) => i,
                None => {
                    regs.push(r.to_string());
                    regs.len() - 1
                }
            }
        };
        let mut labels = HashMap::new();
        for (i, ins) in t.instrs.iter().enumerate() {
            if let InstrKind::Label(l) = &ins.kind {
                labels.insert(l.clone(), i);
            }
        }
        let mut ops = Vec::with_capacity(t.instrs.len());
        for ins in &t.instrs {
            let mut opnd = |o: &Operand| match o {
                Operand::Const(c) => Opnd::Const(*c),
                Operand::Reg(r) => Opnd::Reg(reg(r)),
            };
            let target = |l: &str| {
                labels
                    .get(l)
                    .copied()
                    .ok_or_else(|| Error::semantic(ins.pos, format!("unknown label `{l}`")))
            };
            // The interleaving methods keep one location per access.
            let phys = |a: &crate::ir::Addr| match a.fixed() {
                Some(l) => Ok(p.locations[l].phys),
                None => Err(Error::unsupported(
                    ins.pos,
                    "addresses computed at run time in liveness checks",
                )),
            };
            let op = match &ins.kind {
                InstrKind::Havoc { .. } | InstrKind::Unreachable { .. } => {
                    return Err(Error::unsupported(
                        ins.pos,
                        "undefined values and unreachable code in liveness checks",
                    ))
                }
                InstrKind::Infeasible => {
                    return Err(Error::unsupported(
                        ins.pos,
                        "assumptions (`__assume`, `__requires`) in liveness checks",
                    ))
                }
                // `liveness::check` fixes the inputs (one valuation at a
                // time) before compiling.
                InstrKind::Input { dst, input } => match p.inputs.get(*input).and_then(|i| i.value)
                {
                    Some(v) => Op::Local {
                        dst: reg(dst),
                        op: crate::ir::BinOp::Add,
                        a: Opnd::Const(v),
                        b: Opnd::Const(0),
                    },
                    None => {
                        return Err(Error::unsupported(
                            ins.pos,
                            "free inputs in liveness checks",
                        ))
                    }
                },
                InstrKind::Label(_) => Op::Nop,
                InstrKind::Local { dst, op, a, b } => {
                    let (a, b) = (opnd(a), opnd(b));
                    Op::Local {
                        dst: reg(dst),
                        op: *op,
                        a,
                        b,
                    }
                }
                InstrKind::Load { dst, addr } => Op::Load {
                    dst: reg(dst),
                    loc: phys(addr)?,
                },
                InstrKind::Store { addr, value } => Op::Store {
                    loc: phys(addr)?,
                    val: opnd(value),
                },
                InstrKind::Rmw {
                    dst,
                    addr,
                    op,
                    operand,
                } => {
                    let kind = match op {
                        RmwOp::Exch => RmwKind::Exch,
                        RmwOp::Add => RmwKind::Bin(i64::wrapping_add),
                        RmwOp::Sub => RmwKind::Bin(i64::wrapping_sub),
                        RmwOp::And => RmwKind::Bin(|a, b| a & b),
                        RmwOp::Or => RmwKind::Bin(|a, b| a | b),
                        RmwOp::Xor => RmwKind::Bin(|a, b| a ^ b),
                        RmwOp::Min => RmwKind::Bin(i64::min),
                        RmwOp::Max => RmwKind::Bin(i64::max),
                        RmwOp::UMin => RmwKind::Bin(|a, b| RmwOp::UMin.apply(a, b)),
                        RmwOp::UMax => RmwKind::Bin(|a, b| RmwOp::UMax.apply(a, b)),
                        RmwOp::Inc => RmwKind::Bin(|a, b| RmwOp::Inc.apply(a, b)),
                        RmwOp::Dec => RmwKind::Bin(|a, b| RmwOp::Dec.apply(a, b)),
                        RmwOp::Cas { expected } => RmwKind::Cas(opnd(expected)),
                    };
                    let operand = opnd(operand);
                    Op::Rmw {
                        dst: dst.as_deref().map(&mut reg),
                        loc: phys(addr)?,
                        kind,
                        operand,
                    }
                }
                InstrKind::Fence => Op::Fence,
                InstrKind::Barrier { .. } => Op::Barrier,
                InstrKind::Branch {
                    op,
                    a,
                    b,
                    target: l,
                } => {
                    let (a, b) = (opnd(a), opnd(b));
                    Op::Branch {
                        op: *op,
                        a,
                        b,
                        target: target(l)?,
                    }
                }
                InstrKind::Goto(l) => Op::Goto(target(l)?),
            };
            ops.push(op);
        }
        let mut init = Local {
            pc: 0,
            regs: vec![0; regs.len()],
        };
        for (r, v) in &t.init_regs {
            if let Some(i) = regs.iter().position(|x| x == r) {
                init.regs[i] = *v;
            }
        }
        Ok(Code {
            ops,
            reg_names: regs,
            init,
            pos: t.instrs.iter().map(|i| i.pos).collect(),
            texts: t.instrs.iter().map(|i| i.text.clone()).collect(),
        })
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn terminated(&self, l: &Local) -> bool {
        l.pc == self.ops.len()
    }

    fn val(l: &Local, o: Opnd) -> i64 {
        match o {
            Opnd::Const(c) => c,
            Opnd::Reg(r) => l.regs[r],
        }
    }

    /// Executes the local instruction at the pc.
    pub fn step_local(&self, l: &mut Local) -> Result<()> {
        let pc = l.pc;
        match &self.ops[pc] {
            Op::Local { dst, op, a, b } => {
                let v = binop(*op, Self::val(l, *a), Self::val(l, *b))
                    .ok_or_else(|| Error::semantic(self.pos[pc], "division by zero"))?;
                l.regs[*dst] = v;
                l.pc += 1;
            }
            Op::Branch { op, a, b, target } => {
                if op.eval(Self::val(l, *a), Self::val(l, *b)) {
                    l.pc = *target;
                } else {
                    l.pc += 1;
                }
            }
            Op::Goto(t) => l.pc = *t,
            _ => l.pc += 1,
        }
        Ok(())
    }

    /// Runs local instructions until the pc is at a visible instruction,
    /// the end, or a local loop that never reaches either ([`DIVERGED`]).
    pub fn run_local(&self, l: &mut Local) -> Result<()> {
        let mut seen: Option<HashSet<Local>> = None;
        let mut steps = 0usize;
        while l.pc < self.ops.len() && !self.ops[l.pc].visible() {
            let pc = l.pc;
            self.step_local(l)?;
            if l.pc <= pc {
                // A backward jump: watch for a local loop.
                steps += 1;
                let s = seen.get_or_insert_with(HashSet::new);
                if !s.insert(l.clone()) {
                    l.pc = DIVERGED;
                    return Ok(());
                }
                if steps > MAX_LOCAL_STEPS {
                    return Err(Error::unsupported(
                        self.pos[pc],
                        "a local loop runs too long without a memory access",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Registers an instruction reads.
    pub fn uses(&self, pc: usize) -> Vec<usize> {
        let r = |o: &Opnd| match o {
            Opnd::Reg(r) => Some(*r),
            Opnd::Const(_) => None,
        };
        match &self.ops[pc] {
            Op::Local { a, b, .. } | Op::Branch { a, b, .. } => {
                r(a).into_iter().chain(r(b)).collect()
            }
            Op::Store { val, .. } => r(val).into_iter().collect(),
            Op::Rmw { kind, operand, .. } => {
                let mut v: Vec<usize> = r(operand).into_iter().collect();
                if let RmwKind::Cas(e) = kind {
                    v.extend(r(e));
                }
                v
            }
            _ => vec![],
        }
    }

    /// The register an instruction writes.
    pub fn def(&self, pc: usize) -> Option<usize> {
        match &self.ops[pc] {
            Op::Local { dst, .. } | Op::Load { dst, .. } => Some(*dst),
            Op::Rmw { dst, .. } => *dst,
            _ => None,
        }
    }

    /// Executes the visible instruction at the pc; `read` supplies the
    /// value a read returns (location → value). Returns the effect.
    pub fn exec(&self, l: &mut Local, read: impl FnOnce(usize) -> i64) -> Effect {
        let pc = l.pc;
        l.pc += 1;
        match &self.ops[pc] {
            Op::Load { dst, loc } => {
                let v = read(*loc);
                l.regs[*dst] = v;
                Effect {
                    loc: Some(*loc),
                    read: Some(v),
                    written: None,
                }
            }
            Op::Store { loc, val } => Effect {
                loc: Some(*loc),
                read: None,
                written: Some(Self::val(l, *val)),
            },
            Op::Rmw {
                dst,
                loc,
                kind,
                operand,
            } => {
                let old = read(*loc);
                let opv = Self::val(l, *operand);
                let new = match kind {
                    RmwKind::Exch => Some(opv),
                    RmwKind::Bin(f) => Some(f(old, opv)),
                    RmwKind::Cas(e) => (old == Self::val(l, *e)).then_some(opv),
                };
                if let Some(d) = dst {
                    l.regs[*d] = old;
                }
                Effect {
                    loc: Some(*loc),
                    read: Some(old),
                    written: new,
                }
            }
            _ => Effect::default(),
        }
    }

    /// The location a visible instruction at `pc` reads, if it reads.
    pub fn read_loc(&self, pc: usize) -> Option<usize> {
        self.ops.get(pc).filter(|o| o.reads()).and_then(Op::loc)
    }
}
