//! Hand-built specs run through `VulkanBackend` (lavapipe here and in CI),
//! checked against exact result records, final memory and final
//! workgroup memory. Every module is also validated (`Run::launch`).

mod spirv_support;
mod vulkan_support;

use gpumc_core::ir::{BinOp, CmpOp};
use gpumc_hw::abi::{self, STATUS_DONE, STATUS_OUT_OF_BOUNDS, STATUS_OUT_OF_FUEL};
use gpumc_hw::backend::{Backend, Launch, LaunchError};
use gpumc_hw::spec::semantics as sem;
use gpumc_hw::spec::*;
use spirv_support::*;
use std::time::Duration;
use vulkan_support::*;

fn reg(name: &str, init: i32) -> Reg {
    Reg {
        name: name.into(),
        init,
    }
}

fn fixed(l: usize) -> Address {
    Address::Fixed(l)
}

const ALL_BINOPS: [BinOp; 23] = BinOp::ALL;

/// Operand pairs covering division by 0 and -1, `INT_MIN`, negative
/// operands and shifts by 0, 31, 32, more, and negative amounts.
const PAIRS: [(i32, i32); 12] = [
    (7, 3),
    (-7, 3),
    (7, -3),
    (5, 0),
    (i32::MIN, -1),
    (-9, -1),
    (1, 31),
    (-8, 32),
    (-8, 33),
    (12345, -1),
    (-1, 4),
    (0, 0),
];

#[test]
fn registers_compute_every_binop_as_specified() {
    let Some(mut b) = backend() else { return };
    // Operands come from registers (initialised) so nothing is folded
    // at generation time; constants are checked too, on one pair.
    let mut regs = vec![];
    let mut ops = vec![];
    let mut expected = vec![];
    for (i, &(a, c)) in PAIRS.iter().enumerate() {
        regs.push(reg(&format!("a{i}"), a));
        regs.push(reg(&format!("b{i}"), c));
    }
    let mut recorded = vec![];
    for (i, &(a, c)) in PAIRS.iter().enumerate() {
        for op in ALL_BINOPS {
            let dst = regs.len();
            regs.push(reg(&format!("d{i}_{op:?}"), 0x5555));
            ops.push(Op::Local {
                dst,
                op,
                a: Value::Reg(2 * i),
                b: Value::Reg(2 * i + 1),
            });
            recorded.push(dst);
            expected.push(gpumc_hw::interp::local(op, a, c) as u32);
        }
    }
    for op in ALL_BINOPS {
        let dst = regs.len();
        regs.push(reg(&format!("k_{op:?}"), 0));
        ops.push(Op::Local {
            dst,
            op,
            a: Value::Const(-7),
            b: Value::Const(0),
        });
        recorded.push(dst);
        expected.push(gpumc_hw::interp::local(op, -7, 0) as u32);
    }
    let s = spec(
        "binops",
        vec![],
        vec![thread("P0", regs, vec![ops], recorded.clone())],
    );
    let mut run = Run::new(&s, cfg(8, 0));
    run.rows = vec![(0, thread_row(0, 0, &[]))];
    run.results_words = abi::RES_REGS + recorded.len();
    let out = run.launch(&mut b);
    assert_eq!(&out.results[..2], &[STATUS_DONE, 0]);
    let got = &out.results[abi::RES_REGS..];
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        let (pair, op) = (k / ALL_BINOPS.len(), ALL_BINOPS[k % ALL_BINOPS.len()]);
        let (a, c) = PAIRS.get(pair).copied().unwrap_or((-7, 0));
        assert_eq!(*g as i32, *e as i32, "{a} {op:?} {c}");
    }
    // The documented special cases, spelled out.
    let at = |pair: usize, op: BinOp| {
        let k = pair * ALL_BINOPS.len() + ALL_BINOPS.iter().position(|&o| o == op).unwrap();
        got[k] as i32
    };
    assert_eq!(at(3, BinOp::Div), 0, "5 / 0");
    assert_eq!(at(3, BinOp::Rem), 0, "5 % 0");
    assert_eq!(at(3, BinOp::Udiv), 0, "5 /u 0");
    assert_eq!(at(4, BinOp::Div), i32::MIN, "INT_MIN / -1");
    assert_eq!(at(4, BinOp::Rem), 0, "INT_MIN % -1");
    assert_eq!(at(1, BinOp::Rem), -1, "-7 % 3 takes the dividend's sign");
    assert_eq!(at(6, BinOp::Shl), i32::MIN, "1 << 31");
    assert_eq!(at(7, BinOp::Shl), 0, "<< 32");
    assert_eq!(at(7, BinOp::Shr), -1, "-8 >> 32 is the sign");
    assert_eq!(at(8, BinOp::Lshr), 0, ">>> 33");
    assert_eq!(at(9, BinOp::Shl), 0, "a negative amount is 32 or more");
    assert_eq!(
        at(10, BinOp::Lshr),
        0x0fff_ffff,
        "-1 >>> 4 on the 32-bit pattern"
    );
    assert_eq!(at(2, BinOp::Ult), 1, "7 <u -3");
}

#[test]
fn loads_and_stores_of_global_and_shared_locations() {
    let Some(mut b) = backend() else { return };
    let acq = sem::ACQUIRE | sem::UNIFORM_MEMORY | sem::WORKGROUP_MEMORY;
    let rel = sem::RELEASE | sem::UNIFORM_MEMORY | sem::WORKGROUP_MEMORY;
    // g0 g1 global, s0 s1 shared; every access kind.
    let s = spec(
        "ldst",
        vec![
            loc("g0", Region::Global, 10),
            loc("g1", Region::Global, -20),
            loc("s0", Region::Shared, 30),
            loc("s1", Region::Shared, -40),
        ],
        vec![thread(
            "P0",
            regs(&["r0", "r1", "r2", "r3", "r4", "r5"]),
            vec![vec![
                Op::Load {
                    dst: 0,
                    addr: fixed(0),
                    access: plain(),
                },
                Op::Load {
                    dst: 1,
                    addr: fixed(1),
                    access: avvis(VkScope::Device, true),
                },
                Op::Load {
                    dst: 2,
                    addr: fixed(2),
                    access: non_private(),
                },
                Op::Load {
                    dst: 3,
                    addr: fixed(3),
                    access: atomic(VkScope::Workgroup, acq),
                },
                Op::Store {
                    addr: fixed(0),
                    value: Value::Const(11),
                    access: avvis(VkScope::Device, false),
                },
                Op::Store {
                    addr: fixed(1),
                    value: Value::Reg(0),
                    access: atomic(VkScope::Device, rel),
                },
                Op::Store {
                    addr: fixed(2),
                    value: Value::Const(-33),
                    access: plain(),
                },
                Op::Store {
                    addr: fixed(3),
                    value: Value::Reg(3),
                    access: relaxed(VkScope::Subgroup),
                },
                Op::Load {
                    dst: 4,
                    addr: fixed(2),
                    access: plain(),
                },
                Op::Load {
                    dst: 5,
                    addr: fixed(1),
                    access: relaxed(VkScope::QueueFamily),
                },
            ]],
            vec![0, 1, 2, 3, 4, 5],
        )],
    );
    let mut run = Run::new(&s, cfg(16, 8));
    // g0 at word 2, g1 at word 7; s0 at shared word 1, s1 at 6.
    run.rows = vec![(5, thread_row(0, 0, &[2, 7, 1, 6]))];
    run.mem[2] = 10;
    run.mem[7] = -20i32 as u32;
    run.shared_io = vec![100, 30, 102, 103, 104, 105, (-40i32) as u32, 107];
    let out = run.launch(&mut b);
    let r: Vec<i32> = out.results[..8].iter().map(|&w| w as i32).collect();
    assert_eq!(r, vec![STATUS_DONE as i32, 0, 10, -20, 30, -40, -33, 10]);
    assert_eq!(out.mem[2], 11);
    assert_eq!(out.mem[7], 10);
    // Untouched words keep their values, in memory and workgroup memory.
    assert_eq!(out.mem[3], 0);
    assert_eq!(
        out.shared_io,
        vec![
            100,
            30u32.wrapping_sub(63),
            102,
            103,
            104,
            105,
            (-40i32) as u32,
            107
        ]
    );
}

#[test]
fn every_read_modify_write_kind() {
    let Some(mut b) = backend() else { return };
    let acq_rel = sem::ACQUIRE_RELEASE | sem::UNIFORM_MEMORY | sem::WORKGROUP_MEMORY;
    // (kind, initial, operand, expected final); old value = initial.
    let cases: Vec<(RmwKind, i32, i32, i32)> = vec![
        (RmwKind::Exch, 5, 9, 9),
        (RmwKind::Add, 5, -9, -4),
        (RmwKind::Sub, 5, 9, -4),
        (RmwKind::And, 0b1100, 0b1010, 0b1000),
        (RmwKind::Or, 0b1100, 0b1010, 0b1110),
        (RmwKind::Xor, 0b1100, 0b1010, 0b0110),
        (RmwKind::Min, -5, 3, -5),
        (RmwKind::Min, 5, -3, -3),
        (RmwKind::Max, -5, 3, 3),
        (RmwKind::Max, 5, -3, 5),
        (
            RmwKind::Cas {
                expected: Value::Const(7),
            },
            5,
            9,
            5,
        ),
        (
            RmwKind::Cas {
                expected: Value::Const(5),
            },
            5,
            9,
            9,
        ),
    ];
    for region in [Region::Global, Region::Shared] {
        let n = cases.len();
        let locations = (0..n)
            .map(|i| loc(&format!("x{i}"), region, cases[i].1))
            .collect();
        let ops = cases
            .iter()
            .enumerate()
            .map(|(i, (kind, _, operand, _))| Op::Rmw {
                dst: Some(i),
                addr: fixed(i),
                op: kind.clone(),
                value: Value::Const(*operand),
                access: if i % 2 == 0 {
                    atomic(VkScope::Device, acq_rel)
                } else {
                    relaxed(VkScope::Workgroup)
                },
            })
            .collect();
        let names: Vec<String> = (0..n).map(|i| format!("r{i}")).collect();
        let names: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let s = spec(
            "rmw",
            locations,
            vec![thread("P0", regs(&names), vec![ops], (0..n).collect())],
        );
        let mut run = Run::new(&s, cfg(8, 16));
        let addrs: Vec<u32> = (0..n as u32).map(|i| i + 1).collect();
        run.rows = vec![(3, thread_row(0, 0, &addrs))];
        for (i, c) in cases.iter().enumerate() {
            match region {
                Region::Global => run.mem[i + 1] = c.1 as u32,
                Region::Shared => run.shared_io[i + 1] = c.1 as u32,
            }
        }
        let out = run.launch(&mut b);
        let rec = record(&out, 0, n);
        assert_eq!(&rec[..2], &[STATUS_DONE, 0], "{region:?}");
        let finals = match region {
            Region::Global => &out.mem,
            Region::Shared => &out.shared_io,
        };
        for (i, (kind, init, operand, fin)) in cases.iter().enumerate() {
            assert_eq!(
                rec[2 + i] as i32,
                *init,
                "{region:?} {kind:?} {init} {operand}: old value"
            );
            assert_eq!(
                finals[i + 1] as i32,
                *fin,
                "{region:?} {kind:?} {init} {operand}: final"
            );
        }
    }
}

fn block(ops: Vec<Op>, end: End) -> Block {
    Block { ops, end }
}

fn add(dst: RegIdx, a: Value, k: i32) -> Op {
    Op::Local {
        dst,
        op: BinOp::Add,
        a,
        b: Value::Const(k),
    }
}

/// One thread: a loop on block 0 (r0 += 1 forever), then (after a phase
/// barrier) a store that must not happen once fuel ran out.
#[test]
fn a_loop_that_runs_out_of_fuel_stops_the_thread() {
    let Some(mut b) = backend() else { return };
    let mut t = thread("P0", regs(&["r0"]), vec![vec![], vec![]], vec![0]);
    t.phases[0].blocks = vec![block(vec![add(0, Value::Reg(0), 1)], End::Goto(0))];
    t.phases[1].blocks = vec![block(
        vec![Op::Store {
            addr: fixed(0),
            value: Value::Const(1),
            access: plain(),
        }],
        End::Exit,
    )];
    let mut s = spec("fuel", vec![loc("x", Region::Global, 0)], vec![t]);
    s.barriers = vec![PhaseBarrier::Vulkan {
        execution: VkScope::Workgroup,
        memory: VkScope::Workgroup,
        semantics: sem::ACQUIRE_RELEASE | sem::UNIFORM_MEMORY,
    }];
    let mut run = Run::new(&s, cfg(8, 0));
    run.rows = vec![(0, thread_row(0, 0, &[4]))];
    run.params = params(5);
    let out = run.launch(&mut b);
    // Block 0 ran once, then 5 paid back edges; the 6th stops the thread.
    assert_eq!(record(&out, 0, 1), vec![STATUS_OUT_OF_FUEL, 5, 6]);
    assert_eq!(out.mem[4], 0, "the later phase was skipped");
}

#[test]
fn a_loop_that_exits_counts_its_back_edges() {
    let Some(mut b) = backend() else { return };
    // 0: r1 = 10; 1: r0 += 1; if r0 < 3 goto 1 else 2; 2: if r1 >= 10
    // goto 3 else 0 (forward edges are free); 3: exit.
    let mut t = thread("P0", regs(&["r0", "r1"]), vec![vec![]], vec![0, 1]);
    t.phases[0].blocks = vec![
        block(vec![add(1, Value::Const(0), 10)], End::Goto(1)),
        block(
            vec![add(0, Value::Reg(0), 1)],
            End::Branch {
                cmp: CmpOp::Lt,
                a: Value::Reg(0),
                b: Value::Const(3),
                then: 1,
                otherwise: 2,
            },
        ),
        block(
            vec![],
            End::Branch {
                cmp: CmpOp::Ge,
                a: Value::Reg(1),
                b: Value::Const(10),
                then: 3,
                otherwise: 0,
            },
        ),
        block(vec![add(1, Value::Reg(1), 5)], End::Exit),
    ];
    let s = spec("loop", vec![], vec![t]);
    let mut run = Run::new(&s, cfg(8, 0));
    run.rows = vec![(1, thread_row(0, 8, &[]))];
    let out = run.launch(&mut b);
    assert_eq!(record(&out, 8, 2), vec![STATUS_DONE, 2, 3, 15]);
    // Exactly as much fuel as needed is enough.
    run.params = params(2);
    let out = run.launch(&mut b);
    assert_eq!(record(&out, 8, 2), vec![STATUS_DONE, 2, 3, 15]);
    run.params = params(1);
    let out = run.launch(&mut b);
    assert_eq!(record(&out, 8, 2), vec![STATUS_OUT_OF_FUEL, 1, 2, 10]);
}

#[test]
fn an_out_of_bounds_index_skips_the_access() {
    let Some(mut b) = backend() else { return };
    let idx = |r: RegIdx| Address::Indexed {
        index: Value::Reg(r),
        cells: vec![0, 1],
    };
    let ops = vec![
        // In bounds: index 1 reads cell 1, writes cell 1.
        Op::Load {
            dst: 2,
            addr: idx(0),
            access: plain(),
        },
        Op::Store {
            addr: idx(0),
            value: Value::Const(77),
            access: relaxed(VkScope::Device),
        },
        // Out of bounds (2, then -1): no load (0), no store, no RMW.
        Op::Load {
            dst: 3,
            addr: idx(1),
            access: relaxed(VkScope::Device),
        },
        Op::Store {
            addr: idx(1),
            value: Value::Const(88),
            access: plain(),
        },
        Op::Rmw {
            dst: Some(4),
            addr: idx(5),
            op: RmwKind::Add,
            value: Value::Const(1),
            access: relaxed(VkScope::Device),
        },
    ];
    let regs = vec![
        reg("i", 1),
        reg("j", 2),
        reg("r0", 9),
        reg("r1", 9),
        reg("r2", 9),
        reg("k", -1),
    ];
    let s = spec(
        "oob",
        vec![loc("a", Region::Global, 0), loc("b", Region::Global, 0)],
        vec![thread("P0", regs, vec![ops], vec![2, 3, 4])],
    );
    let mut run = Run::new(&s, cfg(8, 0));
    run.rows = vec![(0, thread_row(0, 0, &[10, 11]))];
    run.mem[10] = 5;
    run.mem[11] = 6;
    let out = run.launch(&mut b);
    assert_eq!(record(&out, 0, 3), vec![STATUS_OUT_OF_BOUNDS, 0, 6, 0, 0]);
    assert_eq!((out.mem[10], out.mem[11]), (5, 77));
    assert!(out.mem.iter().all(|&w| w != 88 && w != 1));
}

/// P0 writes before a phase barrier, P1 reads after it, in 16 workgroups
/// at once, one instance each; the acquire-release barrier (with
/// availability and visibility) makes the writes visible.
#[test]
fn a_phase_barrier_orders_a_write_before_a_later_read() {
    let Some(mut b) = backend() else { return };
    let st = |l, v| Op::Store {
        addr: fixed(l),
        value: Value::Const(v),
        access: plain(),
    };
    let ld = |d, l| Op::Load {
        dst: d,
        addr: fixed(l),
        access: plain(),
    };
    let mut s = spec(
        "phases",
        vec![loc("x", Region::Global, 0), loc("y", Region::Shared, 0)],
        vec![
            thread("P0", vec![], vec![vec![st(0, 1), st(1, 2)], vec![]], vec![]),
            thread(
                "P1",
                regs(&["r0", "r1"]),
                vec![vec![], vec![ld(0, 0), ld(1, 1)]],
                vec![0, 1],
            ),
        ],
    );
    s.barriers = vec![PhaseBarrier::Vulkan {
        execution: VkScope::Workgroup,
        memory: VkScope::Workgroup,
        semantics: sem::ACQUIRE_RELEASE
            | sem::UNIFORM_MEMORY
            | sem::WORKGROUP_MEMORY
            | sem::MAKE_AVAILABLE
            | sem::MAKE_VISIBLE,
    }];
    let mut run = Run::new(&s, cfg(32, 4));
    run.workgroups = 16;
    run.shared_io = vec![0; 16 * 4];
    for w in 0..16usize {
        let x = 2 * w as u32;
        run.rows
            .push((w * 32 + 3, thread_row(0, abi::DISCARD, &[x, 1])));
        run.rows
            .push((w * 32 + 30, thread_row(1, 4 * w as u32, &[x, 1])));
    }
    for _ in 0..5 {
        let out = run.launch(&mut b);
        for w in 0..16 {
            assert_eq!(
                record(&out, 4 * w, 2),
                vec![STATUS_DONE, 0, 1, 2],
                "workgroup {w}"
            );
            assert_eq!(out.mem[2 * w], 1);
            assert_eq!(out.shared_io[4 * w + 1], 2);
        }
    }
}

/// Two threads meeting at the start barrier (in one workgroup and across
/// two); a barrier nobody completes ends at the spin limit.
#[test]
fn the_start_barrier_waits_for_its_count_and_is_bounded() {
    let Some(mut b) = backend() else { return };
    let st = |v| Op::Store {
        addr: fixed(0),
        value: Value::Const(v),
        access: relaxed(VkScope::Device),
    };
    let s = spec(
        "start",
        vec![loc("x", Region::Global, 0)],
        vec![
            thread("P0", vec![], vec![vec![st(1)]], vec![]),
            thread("P1", vec![], vec![vec![st(2)]], vec![]),
        ],
    );
    let mut run = Run::new(&s, cfg(8, 0));
    run.workgroups = 2;
    run.rows = vec![
        (0, row(abi::ROLE_THREAD0, 0, 3, 2, 0, &[5])),
        (6, row(abi::ROLE_THREAD0 + 1, 2, 3, 2, 0, &[6])),
        (9, row(abi::ROLE_THREAD0, 4, 4, 2, 0, &[7])),
        (15, row(abi::ROLE_THREAD0 + 1, 6, 4, 2, 0, &[8])),
        // Waits for 3 that never come: released by the spin limit.
        (12, row(abi::ROLE_THREAD0, 8, 5, 3, 0, &[9])),
    ];
    run.params[abi::P_SPIN_LIMIT] = 20_000;
    let out = run.launch(&mut b);
    for base in [0, 2, 4, 6, 8] {
        assert_eq!(record(&out, base, 0), vec![STATUS_DONE, 0], "record {base}");
    }
    assert_eq!(&out.mem[5..10], &[1, 2, 1, 2, 1]);
}

/// A one-thread program's results do not change when stress rows, a
/// stress workgroup and pre-stress run beside it, in every pattern.
#[test]
fn stress_and_pre_stress_do_not_disturb_results() {
    let Some(mut b) = backend() else { return };
    let ops = vec![
        Op::Load {
            dst: 0,
            addr: fixed(0),
            access: plain(),
        },
        add(1, Value::Reg(0), 5),
        Op::Store {
            addr: fixed(1),
            value: Value::Reg(1),
            access: plain(),
        },
        Op::Rmw {
            dst: Some(2),
            addr: fixed(1),
            op: RmwKind::Add,
            value: Value::Const(1),
            access: relaxed(VkScope::Device),
        },
    ];
    let s = spec(
        "stressed",
        vec![loc("x", Region::Global, 0), loc("y", Region::Shared, 0)],
        vec![thread(
            "P0",
            regs(&["r0", "r1", "r2"]),
            vec![ops],
            vec![0, 1, 2],
        )],
    );
    for pattern in 0..4 {
        let mut run = Run::new(&s, cfg(16, 4));
        run.workgroups = 2;
        run.shared_io = vec![0; 8];
        run.mem[3] = 37;
        run.rows = vec![(
            2,
            row(abi::ROLE_THREAD0, 0, 0, 0, abi::FLAG_PRE_STRESS, &[3, 2]),
        )];
        for slot in (4..16).chain(16..32) {
            run.rows
                .push((slot, row(abi::ROLE_STRESS, abi::DISCARD, 0, 0, 0, &[0, 0])));
        }
        let p = &mut run.params;
        p[abi::P_STRESS_ITERS] = 200;
        p[abi::P_STRESS_PATTERN] = pattern;
        p[abi::P_STRESS_LINE_WORDS] = 16;
        p[abi::P_STRESS_LINES] = 8;
        p[abi::P_STRESS_OFFSET] = 3;
        p[abi::P_PRE_ITERS] = 50;
        p[abi::P_PRE_PATTERN] = 3 - pattern;
        let out = run.launch(&mut b);
        assert_eq!(
            record(&out, 0, 3),
            vec![STATUS_DONE, 0, 37, 42, 42],
            "pattern {pattern}"
        );
        assert_eq!(out.shared_io[2], 43, "pattern {pattern}");
        assert_eq!(out.mem[3], 37);
    }
}

#[test]
fn a_discarded_row_writes_no_record_but_runs() {
    let Some(mut b) = backend() else { return };
    let ops = vec![Op::Store {
        addr: fixed(0),
        value: Value::Const(9),
        access: plain(),
    }];
    let s = spec(
        "discard",
        vec![loc("x", Region::Global, 0)],
        vec![thread("P0", regs(&["r"]), vec![ops], vec![0])],
    );
    let mut run = Run::new(&s, cfg(8, 0));
    run.rows = vec![(1, thread_row(0, abi::DISCARD, &[6]))];
    let out = run.launch(&mut b);
    assert!(out.results.iter().all(|&w| w == 0), "{:?}", out.results);
    assert_eq!(out.mem[6], 9);
}

/// 64 workgroups of 64 invocations, every slot a test thread with its
/// own addresses: slot `s` reads `mem[s]` and writes `mem[4096 + s]`.
#[test]
fn many_workgroups_each_slot_its_own_row() {
    let Some(mut b) = backend() else { return };
    let ops = vec![
        Op::Load {
            dst: 0,
            addr: fixed(0),
            access: plain(),
        },
        add(1, Value::Reg(0), 1),
        Op::Store {
            addr: fixed(1),
            value: Value::Reg(1),
            access: relaxed(VkScope::Device),
        },
    ];
    let s = spec(
        "many",
        vec![loc("x", Region::Global, 0), loc("y", Region::Global, 0)],
        vec![thread("P0", regs(&["r0", "r1"]), vec![ops], vec![0])],
    );
    let mut run = Run::new(&s, cfg(64, 0));
    run.workgroups = 64;
    let n = 64 * 64;
    run.mem = (0..2 * n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    run.rows = (0..n)
        .map(|slot| {
            (
                slot,
                thread_row(0, 3 * slot as u32, &[slot as u32, (n + slot) as u32]),
            )
        })
        .collect();
    run.results_words = 3 * n;
    let t = std::time::Instant::now();
    let out = run.launch(&mut b);
    println!(
        "64x64 compile+launch: {:?}, device time {:?}",
        t.elapsed(),
        out.device_time
    );
    for slot in 0..n {
        let x = run.mem[slot];
        assert_eq!(
            record(&out, 3 * slot, 1),
            vec![STATUS_DONE, 0, x],
            "slot {slot}"
        );
        assert_eq!(out.mem[n + slot], x.wrapping_add(1), "slot {slot}");
    }
}

/// A start barrier that never fills, with a huge spin limit, outlives a
/// 1 ms watchdog; after `reset` the backend runs kernels again.
#[test]
fn the_watchdog_times_out_and_reset_recovers() {
    let Some(mut b) = backend() else { return };
    let s = spec(
        "hang",
        vec![],
        vec![thread("P0", vec![], vec![vec![]], vec![])],
    );
    // Whole subgroups: 8 invocations on lavapipe, 32 on NVIDIA.
    let size = 8u32.div_ceil(b.info().subgroup_size.max(1)) * b.info().subgroup_size.max(1);
    let cfg = cfg(size, 0);
    let k = b.compile(&s, &cfg).expect("compile");
    let mut table = row(abi::ROLE_THREAD0, 0, 0, 2, 0, &[]);
    table.extend((1..size).flat_map(|_| idle_row(0)));
    let mut p = params(0);
    p[abi::P_SPIN_LIMIT] = 3_000_000;
    let l = Launch {
        workgroups: 1,
        mem: &[0; 4],
        table: &table,
        results_words: 4,
        sync_words: 4,
        stress_words: 4,
        params: &p,
        shared_io: &[],
    };
    let t = std::time::Instant::now();
    let timed = b.launch(k, &l, Duration::from_millis(1));
    let spun = t.elapsed();
    match timed {
        Err(LaunchError::Timeout(d)) => assert_eq!(d, Duration::from_millis(1)),
        Ok(_) => {
            eprintln!(
                "note: the spin finished within 1 ms ({spun:?}); the timeout path was not provoked"
            );
            return;
        }
        Err(e) => panic!("{e}"),
    }
    b.reset().expect("reset");
    assert!(
        b.launch(k, &l, Duration::from_secs(5)).is_err(),
        "kernels are gone after reset"
    );
    let k = b.compile(&s, &cfg).expect("compile after reset");
    let mut quick = p;
    quick[abi::P_SPIN_LIMIT] = 10;
    let l = Launch {
        params: &quick,
        ..l
    };
    let out = b
        .launch(k, &l, Duration::from_secs(20))
        .expect("launch after reset");
    assert_eq!(&out.results[..2], &[STATUS_DONE, 0]);
}

#[test]
fn devices_are_listed_and_bad_indices_refused() {
    let list = match gpumc_hw::vulkan::devices() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("SKIP: no Vulkan loader: {e}");
            return;
        }
    };
    for d in &list {
        assert_eq!(d.backend, "vulkan");
        assert!(
            d.subgroup_size > 0 && d.max_workgroup_size >= d.subgroup_size,
            "{d:?}"
        );
        assert!(
            d.max_shared_words >= 4096,
            "Vulkan guarantees 16 KiB: {d:?}"
        );
    }
    let Err(e) = gpumc_hw::vulkan::VulkanBackend::new(Some(list.len())) else {
        panic!("device {} should not exist", list.len());
    };
    assert!(
        e.contains(&format!("no Vulkan device {}", list.len())),
        "{e}"
    );
}
