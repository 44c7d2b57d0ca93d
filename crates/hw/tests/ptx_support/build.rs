//! Terse constructors for hand-written kernel specs.

use gpumc_core::ir::{BinOp, CmpOp};
use gpumc_hw::spec::*;

pub fn acc(sem: PtxSem, scope: Option<PtxScope>) -> Access {
    Access::Ptx(PtxAccess {
        sem,
        scope,
        cache: None,
    })
}

pub fn weak() -> Access {
    acc(PtxSem::Weak, None)
}

pub fn cached(cache: &str) -> Access {
    Access::Ptx(PtxAccess {
        sem: PtxSem::Weak,
        scope: None,
        cache: Some(cache.into()),
    })
}

pub fn relaxed(scope: PtxScope) -> Access {
    acc(PtxSem::Relaxed, Some(scope))
}

pub fn global(name: &str, init: i32) -> LocSlot {
    LocSlot {
        name: name.into(),
        region: Region::Global,
        init,
    }
}

pub fn shared(name: &str, init: i32) -> LocSlot {
    LocSlot {
        name: name.into(),
        region: Region::Shared,
        init,
    }
}

pub fn r(i: usize) -> Value {
    Value::Reg(i)
}

pub fn c(v: i32) -> Value {
    Value::Const(v)
}

pub fn ld(dst: usize, loc: usize, access: Access) -> Op {
    Op::Load {
        dst,
        addr: Address::Fixed(loc),
        access,
    }
}

pub fn st(loc: usize, value: Value, access: Access) -> Op {
    Op::Store {
        addr: Address::Fixed(loc),
        value,
        access,
    }
}

pub fn rmw(dst: Option<usize>, loc: usize, op: RmwKind, value: Value, access: Access) -> Op {
    Op::Rmw {
        dst,
        addr: Address::Fixed(loc),
        op,
        value,
        access,
    }
}

pub fn local(dst: usize, op: BinOp, a: Value, b: Value) -> Op {
    Op::Local { dst, op, a, b }
}

pub fn block(ops: Vec<Op>, end: End) -> Block {
    Block { ops, end }
}

pub fn exit(ops: Vec<Op>) -> Block {
    block(ops, End::Exit)
}

pub fn branch(cmp: CmpOp, a: Value, b: Value, then: usize, otherwise: usize) -> End {
    End::Branch {
        cmp,
        a,
        b,
        then,
        otherwise,
    }
}

/// Registers `r0..` with the given initial values.
pub fn regs(inits: &[i32]) -> Vec<Reg> {
    inits
        .iter()
        .enumerate()
        .map(|(k, init)| Reg {
            name: format!("r{k}"),
            init: *init,
        })
        .collect()
}

/// A thread with one phase per entry of `phases`, recording every register.
pub fn thread(name: &str, inits: &[i32], phases: Vec<Vec<Block>>) -> ThreadCode {
    ThreadCode {
        name: name.into(),
        regs: regs(inits),
        phases: phases.into_iter().map(|blocks| Phase { blocks }).collect(),
        recorded: (0..inits.len()).collect(),
    }
}

pub fn spec(name: &str, locations: Vec<LocSlot>, threads: Vec<ThreadCode>) -> KernelSpec {
    KernelSpec {
        name: name.into(),
        dialect: Dialect::Ptx,
        locations,
        threads,
        barriers: vec![],
    }
}
