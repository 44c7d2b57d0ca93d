//! Representative hand-built specs: the snapshot tests pin their PTX, the
//! structure and ptxas tests check it, the device tests run it.

use super::build::*;
use gpumc_core::ir::{BinOp, CmpOp};
use gpumc_hw::abi::KernelConfig;
use gpumc_hw::spec::*;

pub fn cfg(workgroup_size: u32, shared_words: u32) -> KernelConfig {
    KernelConfig {
        workgroup_size,
        shared_words,
    }
}

/// Message passing: `x` in global memory, the flag `y` in shared memory;
/// a release store and an acquire load at CTA scope.
pub fn mp_release_acquire_shared() -> KernelSpec {
    use PtxScope::Cta;
    use PtxSem::*;
    spec(
        "MP+rel+acq-shared",
        vec![global("x", 0), shared("y", 0)],
        vec![
            thread(
                "P0",
                &[],
                vec![vec![exit(vec![
                    st(0, c(1), weak()),
                    st(1, c(1), acc(Release, Some(Cta))),
                ])]],
            ),
            thread(
                "P1",
                &[0, 0],
                vec![vec![exit(vec![
                    ld(0, 1, acc(Acquire, Some(Cta))),
                    ld(1, 0, weak()),
                ])]],
            ),
        ],
    )
}

/// A spin loop on `flag` (never set: the loop runs out of fuel) and a
/// counting loop that ends by itself with 3 back edges.
pub fn loops_with_fuel() -> KernelSpec {
    spec(
        "loops",
        vec![global("flag", 0)],
        vec![
            thread(
                "spin",
                &[0],
                vec![vec![
                    block(vec![], End::Goto(1)),
                    block(
                        vec![ld(0, 0, relaxed(PtxScope::Gpu))],
                        branch(CmpOp::Eq, r(0), c(0), 1, 2),
                    ),
                    exit(vec![st(0, c(2), weak())]),
                ]],
            ),
            thread(
                "count",
                &[0],
                vec![vec![
                    block(
                        vec![local(0, BinOp::Add, r(0), c(1))],
                        branch(CmpOp::Lt, r(0), c(4), 0, 1),
                    ),
                    exit(vec![]),
                ]],
            ),
        ],
    )
}

/// Every RMW kind, with and without a destination, at several semantics,
/// scopes and regions.
pub fn every_rmw() -> KernelSpec {
    use PtxScope::*;
    use PtxSem::*;
    let kinds = [
        RmwKind::Exch,
        RmwKind::Add,
        RmwKind::Sub,
        RmwKind::And,
        RmwKind::Or,
        RmwKind::Xor,
        RmwKind::Min,
        RmwKind::Max,
        RmwKind::Cas { expected: c(5) },
        RmwKind::Cas { expected: r(0) },
    ];
    let sems = [
        acc(Weak, None),
        acc(Relaxed, Some(Gpu)),
        acc(Acquire, Some(Cta)),
        acc(Release, Some(Sys)),
        acc(AcqRel, Some(Gpu)),
    ];
    let mut ops = vec![];
    for (k, kind) in kinds.iter().enumerate() {
        let access = sems[k % sems.len()].clone();
        ops.push(rmw(
            Some(k),
            k % 2,
            kind.clone(),
            c(k as i32 + 1),
            access.clone(),
        ));
        ops.push(rmw(None, 2, kind.clone(), r(k), access));
    }
    spec(
        "every-rmw",
        vec![global("x", 5), global("y", 7), shared("s", 3)],
        vec![thread("P0", &[0; 10], vec![vec![exit(ops)]])],
    )
}

/// An indexed load and store over two global cells (an address
/// dependency), with a fence of every kind in between.
pub fn indexed_with_fences() -> KernelSpec {
    use PtxScope::*;
    spec(
        "indexed",
        vec![global("a0", 10), global("a1", 11), global("z", 0)],
        vec![thread(
            "P0",
            &[1, 0, -1],
            vec![vec![exit(vec![
                Op::Load {
                    dst: 1,
                    addr: Address::Indexed {
                        index: r(0),
                        cells: vec![0, 1],
                    },
                    access: cached("cg"),
                },
                Op::Fence(Fence::PtxFence {
                    sc: true,
                    scope: Gpu,
                }),
                Op::Fence(Fence::PtxFence {
                    sc: false,
                    scope: Cta,
                }),
                Op::Fence(Fence::PtxMembar { scope: Gpu }),
                Op::Fence(Fence::PtxMembar { scope: Sys }),
                Op::Fence(Fence::PtxMembar { scope: Cta }),
                Op::Store {
                    addr: Address::Indexed {
                        index: r(2),
                        cells: vec![0, 1],
                    },
                    value: c(7),
                    access: acc(PtxSem::Volatile, None),
                },
                st(2, r(1), acc(PtxSem::Relaxed, Some(Sys))),
            ])]],
        )],
    )
}

/// Two phases separated by `barrier.sync 1`: P0 stores in phase 0, P1
/// loads in phase 1.
pub fn two_phases() -> KernelSpec {
    let mut s = spec(
        "two-phases",
        vec![shared("x", 0)],
        vec![
            thread(
                "P0",
                &[],
                vec![vec![exit(vec![st(0, c(42), weak())])], vec![]],
            ),
            thread("P1", &[0], vec![vec![], vec![exit(vec![ld(0, 0, weak())])]]),
        ],
    );
    s.barriers = vec![PhaseBarrier::Ptx { id: 1 }];
    s
}

/// A fence and accesses at cluster scope (sm_90, PTX ISA 7.8).
pub fn cluster_scope() -> KernelSpec {
    use PtxScope::Cluster;
    use PtxSem::*;
    spec(
        "cluster",
        vec![global("x", 0)],
        vec![thread(
            "P0",
            &[0],
            vec![vec![exit(vec![
                st(0, c(1), acc(Release, Some(Cluster))),
                Op::Fence(Fence::PtxFence {
                    sc: true,
                    scope: Cluster,
                }),
                ld(0, 0, acc(Acquire, Some(Cluster))),
                rmw(None, 0, RmwKind::Add, c(1), acc(Relaxed, Some(Cluster))),
            ])]],
        )],
    )
}

/// Every `BinOp` applied to the pair `(a, b)` of registers 0 and 1; the
/// results land in registers 2…
pub fn every_binop(a: i32, b: i32) -> KernelSpec {
    let ops = all_binops();
    let mut inits = vec![a, b];
    inits.extend(std::iter::repeat_n(0, ops.len()));
    let body = ops
        .iter()
        .enumerate()
        .map(|(k, op)| local(k + 2, *op, r(0), r(1)))
        .collect();
    spec(
        "every-binop",
        vec![],
        vec![thread("P0", &inits, vec![vec![exit(body)]])],
    )
}

pub fn all_binops() -> Vec<BinOp> {
    use BinOp::*;
    vec![
        Add, Sub, Mul, Div, Rem, And, Or, Xor, Shl, Shr, Lshr, Udiv, Urem, Eq, Ne, Lt, Le, Gt, Ge,
        Ult, Ule, Ugt, Uge,
    ]
}

/// What `Op::Local` must compute (spec::Op::Local's definition).
pub fn expected_binop(op: BinOp, a: i32, b: i32) -> i32 {
    use BinOp::*;
    match op {
        Div | Rem | Udiv | Urem if b == 0 => 0,
        Shl | Lshr if b as u32 >= 32 => 0,
        Shr if b as u32 >= 32 => {
            if a < 0 {
                -1
            } else {
                0
            }
        }
        Lshr => ((a as u32) >> (b as u32)) as i32,
        Udiv => ((a as u32) / (b as u32)) as i32,
        Urem => ((a as u32) % (b as u32)) as i32,
        Ult => i32::from((a as u32) < (b as u32)),
        Ule => i32::from((a as u32) <= (b as u32)),
        Ugt => i32::from((a as u32) > (b as u32)),
        Uge => i32::from((a as u32) >= (b as u32)),
        _ => op.eval(i64::from(a), i64::from(b)).unwrap_or(0) as i32,
    }
}

/// Every spec above with its configuration and a name for files.
pub fn all() -> Vec<(&'static str, KernelSpec, KernelConfig)> {
    vec![
        (
            "mp_release_acquire_shared",
            mp_release_acquire_shared(),
            cfg(64, 8),
        ),
        ("loops_with_fuel", loops_with_fuel(), cfg(32, 0)),
        ("every_rmw", every_rmw(), cfg(32, 4)),
        ("indexed_with_fences", indexed_with_fences(), cfg(32, 0)),
        ("two_phases", two_phases(), cfg(64, 1)),
        ("every_binop", every_binop(7, -3), cfg(32, 0)),
    ]
}
