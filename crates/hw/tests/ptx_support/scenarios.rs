//! Launches with known outcomes: a spec, the buffers of one launch, and
//! the exact result records (and memory) it must leave. They run on any
//! [`Backend`]: the CUDA backend on a GPU (`cuda_run`), and the PTX
//! interpreter of these tests everywhere (`ptx_interp`).

use super::build::*;
use super::specs::{self, all_binops, cfg, expected_binop};
use gpumc_core::ir::CmpOp;
use gpumc_hw::abi::*;
use gpumc_hw::backend::{Backend, Launch};
use gpumc_hw::spec::*;
use std::time::Duration;

pub struct Scenario {
    pub name: String,
    pub spec: KernelSpec,
    pub cfg: KernelConfig,
    pub workgroups: u32,
    pub mem: Vec<u32>,
    pub table: Vec<u32>,
    pub results_words: usize,
    pub sync_words: usize,
    pub stress_words: usize,
    pub params: [u32; PARAM_WORDS],
    pub shared_io: Vec<u32>,
    /// `None`: a register whose value the scenario cannot predict (a
    /// race); it must be 0 or 1.
    pub expect_results: Vec<Option<u32>>,
    pub expect_mem: Option<Vec<u32>>,
    pub expect_shared_io: Option<Vec<u32>>,
    /// Records are message-passing readers (status, back edges, r0, r1):
    /// r0 = 1 must imply r1 = 1.
    pub message_passing: bool,
}

/// A table of idle rows to fill in.
pub struct Rows {
    row_words: usize,
    pub words: Vec<u32>,
}

impl Rows {
    pub fn new(invocations: usize, row_words: usize) -> Self {
        Rows {
            row_words,
            words: vec![0; invocations * row_words],
        }
    }

    /// Makes `slot` test thread `t`, writing results at `result`, with
    /// the given location words.
    pub fn thread(&mut self, slot: usize, t: u32, result: u32, locs: &[u32]) -> &mut Self {
        let row = &mut self.words[slot * self.row_words..(slot + 1) * self.row_words];
        row[ROW_ROLE] = ROLE_THREAD0 + t;
        row[ROW_RESULT] = result;
        row[ROW_LOC0..ROW_LOC0 + locs.len()].copy_from_slice(locs);
        self
    }

    pub fn sync(&mut self, slot: usize, counter: u32, n: u32) -> &mut Self {
        self.words[slot * self.row_words + ROW_SYNC] = counter;
        self.words[slot * self.row_words + ROW_SYNC_N] = n;
        self
    }

    pub fn flags(&mut self, slot: usize, flags: u32) -> &mut Self {
        self.words[slot * self.row_words + ROW_FLAGS] = flags;
        self
    }

    pub fn role(&mut self, slot: usize, role: u32) -> &mut Self {
        self.words[slot * self.row_words + ROW_ROLE] = role;
        self
    }
}

fn params(fuel: u32) -> [u32; PARAM_WORDS] {
    let mut p = [0; PARAM_WORDS];
    p[P_FUEL] = fuel;
    p[P_SPIN_LIMIT] = 1000;
    p
}

fn bits(values: &[i32]) -> Vec<u32> {
    values.iter().map(|v| *v as u32).collect()
}

/// A record: status, back edges, registers.
fn record(status: u32, back_edges: u32, regs: &[i32]) -> Vec<Option<u32>> {
    let mut r = vec![Some(status), Some(back_edges)];
    r.extend(regs.iter().map(|v| Some(*v as u32)));
    r
}

/// Every `BinOp` on operand pairs that hit each special case: one test
/// thread per pair, all in one CTA.
pub fn binops() -> Scenario {
    let pairs = [
        (7, -3),
        (-7, 3),
        (i32::MIN, -1),
        (i32::MIN, 1),
        (5, 0),
        (-5, 0),
        (1, 31),
        (-8, 31),
        (-1, 32),
        (-8, 40),
        (12345, -1),
        (0x1234_5678, 4),
        (-2, -3),
        (i32::MAX, i32::MIN),
    ];
    let template = specs::every_binop(0, 0);
    let mut spec = template.clone();
    spec.threads = pairs
        .iter()
        .map(|(a, b)| {
            let mut t = template.threads[0].clone();
            t.regs[0].init = *a;
            t.regs[1].init = *b;
            t
        })
        .collect();
    let rec = specs::all_binops().len() + 2;
    let mut rows = Rows::new(32, spec.row_words());
    let mut expect = vec![];
    for (t, (a, b)) in pairs.iter().enumerate() {
        rows.thread(t, t as u32, (t * (RES_REGS + rec)) as u32, &[]);
        let mut regs = vec![*a, *b];
        regs.extend(all_binops().iter().map(|op| expected_binop(*op, *a, *b)));
        expect.extend(record(STATUS_DONE, 0, &regs));
    }
    Scenario {
        name: "binops".into(),
        spec,
        cfg: cfg(32, 0),
        workgroups: 1,
        mem: vec![0],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(0),
        shared_io: vec![],
        expect_results: expect,
        expect_mem: None,
        expect_shared_io: None,
        message_passing: false,
    }
}

/// Loads and stores of global and shared locations with every access kind,
/// in one thread: values read back, final memory, final shared memory.
pub fn loads_and_stores() -> Scenario {
    use PtxScope::*;
    use PtxSem::*;
    let spec = spec(
        "loads-stores",
        vec![
            global("x", 0),
            global("y", 9),
            shared("s", 0),
            shared("u", 8),
        ],
        vec![thread(
            "P0",
            &[0, 0, 0, 0, 0, 0],
            vec![vec![exit(vec![
                st(0, c(5), cached("cg")),
                ld(0, 0, acc(Acquire, Some(Gpu))),
                st(2, c(-6), acc(Release, Some(Cta))),
                ld(1, 2, acc(Volatile, None)),
                ld(2, 1, cached("cv")),
                ld(3, 3, acc(Relaxed, Some(Sys))),
                st(1, r(3), acc(Volatile, None)),
                st(3, c(77), weak()),
                ld(4, 3, weak()),
                ld(5, 1, acc(Relaxed, Some(Cta))),
            ])]],
        )],
    );
    let mut rows = Rows::new(32, spec.row_words());
    // x at mem[3], y at mem[1]; s at shared word 2, u at shared word 0.
    rows.thread(5, 0, 4, &[3, 1, 2, 0]);
    let mut expect = vec![Some(0); 4];
    expect.extend(record(STATUS_DONE, 0, &[5, -6, 9, 8, 77, 8]));
    Scenario {
        name: "loads_and_stores".into(),
        spec,
        cfg: cfg(32, 4),
        workgroups: 1,
        mem: vec![100, 9, 102, 0, 104],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(0),
        shared_io: vec![8, 201, 0, 203],
        expect_results: expect,
        expect_mem: Some(vec![100, 8, 102, 5, 104]),
        expect_shared_io: Some(bits(&[77, 201, -6, 203])),
        message_passing: false,
    }
}

/// Every RMW kind in sequence on one location, in global memory (thread 0)
/// and in shared memory (thread 1): each old value, and the final value.
pub fn rmws() -> Scenario {
    use PtxScope::*;
    use PtxSem::*;
    let seq = |loc: usize| {
        vec![
            rmw(Some(0), loc, RmwKind::Exch, c(10), acc(Relaxed, Some(Gpu))), // 3 -> 10
            rmw(Some(1), loc, RmwKind::Add, c(5), acc(Acquire, Some(Cta))),   // 10 -> 15
            rmw(Some(2), loc, RmwKind::Sub, c(20), acc(Release, Some(Sys))),  // 15 -> -5
            rmw(Some(3), loc, RmwKind::Min, c(-9), acc(AcqRel, Some(Gpu))),   // -5 -> -9
            rmw(Some(4), loc, RmwKind::Max, c(6), weak()),                    // -9 -> 6
            rmw(Some(5), loc, RmwKind::Or, c(0x30), acc(Relaxed, Some(Cta))), // 6 -> 0x36
            rmw(Some(6), loc, RmwKind::And, c(0x1F), acc(Relaxed, Some(Gpu))), // -> 0x16
            rmw(Some(7), loc, RmwKind::Xor, c(0xFF), acc(Relaxed, Some(Gpu))), // -> 0xE9
            // Fails: expected 1, is 0xE9.
            rmw(
                Some(8),
                loc,
                RmwKind::Cas { expected: c(1) },
                c(50),
                acc(AcqRel, Some(Gpu)),
            ),
            // Succeeds: expected 0xE9.
            rmw(
                Some(9),
                loc,
                RmwKind::Cas { expected: c(0xE9) },
                c(60),
                acc(Relaxed, Some(Gpu)),
            ),
            // Without destination: red for add, atom with a scratch for exch.
            rmw(None, loc, RmwKind::Add, c(1), acc(Relaxed, Some(Gpu))), // 61
            rmw(None, loc, RmwKind::Sub, c(3), acc(Release, Some(Gpu))), // 58
            rmw(None, loc, RmwKind::Exch, c(70), acc(Relaxed, Some(Gpu))), // 70
            rmw(None, loc, RmwKind::Cas { expected: c(70) }, c(71), weak()), // 71
            ld(10, loc, weak()),
        ]
    };
    let spec = spec(
        "rmws",
        vec![global("x", 3), shared("s", 3)],
        vec![
            thread("G", &[0; 11], vec![vec![exit(seq(0))]]),
            thread("S", &[0; 11], vec![vec![exit(seq(1))]]),
        ],
    );
    let olds = [3, 10, 15, -5, -9, 6, 0x36, 0x16, 0xE9, 0xE9, 71];
    let mut rows = Rows::new(64, spec.row_words());
    rows.thread(40, 0, 0, &[2, 1]);
    rows.thread(3, 1, 13, &[2, 1]);
    let mut expect = record(STATUS_DONE, 0, &olds);
    expect.extend(record(STATUS_DONE, 0, &olds));
    Scenario {
        name: "rmws".into(),
        spec,
        cfg: cfg(64, 2),
        workgroups: 1,
        mem: vec![0, 0, 3],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(0),
        shared_io: vec![0, 3],
        expect_results: expect,
        expect_mem: Some(vec![0, 0, 71]),
        expect_shared_io: Some(vec![0, 71]),
        message_passing: false,
    }
}

/// The spin loop runs out of fuel (status 2 after `fuel` back edges, its
/// later store skipped); the counting loop finishes within it.
pub fn fuel() -> Scenario {
    let spec = specs::loops_with_fuel();
    let mut rows = Rows::new(32, spec.row_words());
    rows.thread(0, 0, 0, &[0]);
    rows.thread(31, 1, 3, &[0]);
    let mut expect = record(STATUS_OUT_OF_FUEL, 10, &[0]);
    expect.extend(record(STATUS_DONE, 3, &[4]));
    Scenario {
        name: "fuel".into(),
        spec,
        cfg: cfg(32, 0),
        workgroups: 1,
        mem: vec![0],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(10),
        shared_io: vec![],
        expect_results: expect,
        expect_mem: Some(vec![0]),
        expect_shared_io: None,
        message_passing: false,
    }
}

/// Indexed accesses: in bounds, past the end, negative; out of bounds wins
/// over nothing but loses to out of fuel.
pub fn indexed() -> Scenario {
    let load_at = |dst: usize, index: Value| Op::Load {
        dst,
        addr: Address::Indexed {
            index,
            cells: vec![0, 1, 2],
        },
        access: weak(),
    };
    let store_at = |index: Value, value: Value| Op::Store {
        addr: Address::Indexed {
            index,
            cells: vec![0, 1, 2],
        },
        value,
        access: weak(),
    };
    let spec = spec(
        "indexed",
        vec![
            global("a0", 0),
            global("a1", 0),
            global("a2", 0),
            global("f", 0),
        ],
        vec![
            // In bounds: loads a[2], stores to a[1] through a register index.
            thread(
                "in",
                &[2, -1, 1],
                vec![vec![exit(vec![load_at(1, r(0)), store_at(r(2), c(55))])]],
            ),
            // Past the end (3) and negative (-1): loads give 0, the store
            // does nothing, status out of bounds.
            thread(
                "out",
                &[3, 9, 9],
                vec![vec![exit(vec![
                    load_at(1, r(0)),
                    load_at(2, c(-1)),
                    store_at(c(3), c(66)),
                    // No cells at all: every index is out of bounds.
                    Op::Rmw {
                        dst: Some(0),
                        addr: Address::Indexed {
                            index: c(0),
                            cells: vec![],
                        },
                        op: RmwKind::Add,
                        value: c(1),
                        access: weak(),
                    },
                ])]],
            ),
            // Out of bounds, then out of fuel: fuel wins.
            thread(
                "both",
                &[0],
                vec![vec![
                    block(vec![load_at(0, c(7))], End::Goto(1)),
                    block(vec![], branch(CmpOp::Eq, c(0), c(0), 1, 1)),
                ]],
            ),
        ],
    );
    let mut rows = Rows::new(32, spec.row_words());
    // a0..a2 at mem[4..7], f at mem[0].
    rows.thread(1, 0, 0, &[4, 5, 6, 0]);
    rows.thread(2, 1, 5, &[4, 5, 6, 0]);
    rows.thread(3, 2, 10, &[4, 5, 6, 0]);
    let mut expect = record(STATUS_DONE, 0, &[2, 33, 1]);
    expect.extend(record(STATUS_OUT_OF_BOUNDS, 0, &[0, 0, 0]));
    expect.extend(record(STATUS_OUT_OF_FUEL, 2, &[0]));
    Scenario {
        name: "indexed".into(),
        spec,
        cfg: cfg(32, 0),
        workgroups: 1,
        mem: vec![0, 0, 0, 0, 11, 22, 33, 0],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(2),
        shared_io: vec![],
        expect_results: expect,
        expect_mem: Some(vec![0, 0, 0, 0, 11, 55, 33, 0]),
        expect_shared_io: None,
        message_passing: false,
    }
}

/// Two phases with `barrier.sync 1`, one instance per CTA in 4 CTAs: each
/// P1 reads its own CTA's shared `x` after the barrier; a thread out of
/// fuel in phase 0 still takes the barrier and skips phase 1.
pub fn phases() -> Scenario {
    let mut spec = specs::two_phases();
    spec.threads.push(thread(
        "stuck",
        &[5],
        vec![
            vec![block(vec![], End::Goto(0))],
            vec![exit(vec![local(0, gpumc_core::ir::BinOp::Add, r(0), c(1))])],
        ],
    ));
    let wg = 64usize;
    let workgroups = 4;
    let mut rows = Rows::new(wg * workgroups, spec.row_words());
    let mut expect = vec![];
    for w in 0..workgroups {
        let base = (w * 6) as u32;
        rows.thread(w * wg + 7, 0, u32::MAX, &[0]);
        rows.thread(w * wg + 50, 1, base, &[0]);
        rows.thread(w * wg + 33, 2, base + 3, &[0]);
        expect.extend(record(STATUS_DONE, 0, &[42]));
        expect.extend(record(STATUS_OUT_OF_FUEL, 4, &[5]));
    }
    Scenario {
        name: "phases".into(),
        spec,
        cfg: cfg(wg as u32, 1),
        workgroups: workgroups as u32,
        mem: vec![0],
        table: rows.words,
        results_words: expect.len(),
        sync_words: 1,
        stress_words: 1,
        params: params(4),
        shared_io: vec![0; workgroups],
        expect_results: expect,
        expect_mem: None,
        expect_shared_io: Some(vec![42; workgroups]),
        message_passing: false,
    }
}

/// Message passing instances in many CTAs, with stress rows of every
/// pattern, pre-stress, the start barrier, and DISCARD shadows that run a
/// thread on dummy addresses without writing results.
pub fn harness() -> Scenario {
    let spec = specs::mp_release_acquire_shared();
    let wg = 64usize;
    let workgroups = 8usize;
    let mut rows = Rows::new(wg * workgroups, spec.row_words());
    let mem = vec![0u32; 2 * workgroups];
    let mut expect = vec![];
    let mut expect_mem = mem.clone();
    for w in 0..workgroups {
        let x = (w * 2) as u32;
        let dummy = x + 1;
        let base = w * wg;
        let result = (w * 4) as u32;
        // The writer and reader of instance w, both taking the start
        // barrier on counter w; the writer pre-stressed.
        rows.thread(base + 3, 0, u32::MAX, &[x, 0])
            .sync(base + 3, w as u32, 2)
            .flags(base + 3, FLAG_PRE_STRESS);
        rows.thread(base + 40, 1, result, &[x, 0])
            .sync(base + 40, w as u32, 2);
        // A shadow of the writer on the dummy word and shared word 1.
        rows.thread(base + 41, 0, DISCARD, &[dummy, 1]);
        // Stress rows.
        for s in 0..8 {
            rows.role(base + 10 + s, ROLE_STRESS);
        }
        // The reader runs after or before the writer: r0 = 1 implies r1 = 1
        // on hardware, but order is not fixed; read back only the final
        // memory, and the record's header.
        expect.extend([Some(STATUS_DONE), Some(0), None, None]);
        expect_mem[x as usize] = 1;
        expect_mem[dummy as usize] = 1;
    }
    let mut p = params(0);
    p[P_STRESS_ITERS] = 20;
    p[P_STRESS_PATTERN] = 1;
    p[P_STRESS_LINE_WORDS] = 4;
    p[P_STRESS_LINES] = 8;
    p[P_STRESS_OFFSET] = 3;
    p[P_PRE_ITERS] = 10;
    p[P_PRE_PATTERN] = 2;
    p[P_SPIN_LIMIT] = 100_000;
    Scenario {
        name: "harness".into(),
        spec,
        cfg: cfg(wg as u32, 2),
        workgroups: workgroups as u32,
        mem,
        table: rows.words,
        results_words: expect.len(),
        sync_words: workgroups,
        stress_words: 64,
        params: p,
        shared_io: vec![0; 2 * workgroups],
        expect_results: expect,
        expect_mem: Some(expect_mem),
        // Both the writer and its shadow store 1 to their shared word.
        expect_shared_io: Some(vec![1; 2 * workgroups]),
        message_passing: true,
    }
}

/// A row whose role names a thread the spec does not have: `abi` does not
/// say what it means; the PTX kernel treats it as idle (it must not index
/// past its threads), so the record of the real thread is unaffected.
pub fn role_without_thread() -> Scenario {
    let mut s = fuel();
    s.name = "role_without_thread".into();
    let row_words = s.spec.row_words();
    for slot in [5, 6, 30] {
        s.table[slot * row_words + ROW_ROLE] = ROLE_THREAD0 + 2 + slot as u32;
        s.table[slot * row_words + ROW_RESULT] = 0;
    }
    s
}

pub fn all() -> Vec<Scenario> {
    vec![
        binops(),
        loads_and_stores(),
        rmws(),
        fuel(),
        indexed(),
        phases(),
        harness(),
        role_without_thread(),
    ]
}

/// Compiles and launches `s` on `backend`; the records, memory and shared
/// memory must be exactly as expected. Registers a scenario cannot predict
/// (`None`) must be 0 or 1, and consistent with message passing where the
/// scenario says so.
pub fn run(backend: &mut dyn Backend, s: &Scenario) -> Result<(), String> {
    let kernel = backend
        .compile(&s.spec, &s.cfg)
        .map_err(|e| format!("{}: compile: {e}", s.name))?;
    let out = backend
        .launch(
            kernel,
            &Launch {
                workgroups: s.workgroups,
                mem: &s.mem,
                table: &s.table,
                results_words: s.results_words,
                sync_words: s.sync_words,
                stress_words: s.stress_words,
                params: &s.params,
                shared_io: &s.shared_io,
            },
            Duration::from_secs(20),
        )
        .map_err(|e| format!("{}: launch: {e}", s.name))?;
    backend.release(kernel);
    let mut problems = vec![];
    if out.results.len() != s.expect_results.len() {
        problems.push(format!(
            "{} result words, expected {}",
            out.results.len(),
            s.expect_results.len()
        ));
    }
    for (k, (got, want)) in out.results.iter().zip(&s.expect_results).enumerate() {
        match want {
            None if *got > 1 => problems.push(format!("results[{k}] = {got}, expected 0 or 1")),
            Some(want) if got != want => problems.push(format!(
                "results[{k}] = {} ({got:#x}), expected {} ({want:#x})",
                *got as i32, *want as i32
            )),
            _ => {}
        }
    }
    if s.message_passing {
        for rec in out.results.chunks(4) {
            if rec.len() == 4 && rec[2] == 1 && rec[3] != 1 {
                problems.push(format!("message passing violated: {rec:?}"));
            }
        }
    }
    if let Some(m) = &s.expect_mem {
        if &out.mem != m {
            problems.push(format!("mem = {:?}, expected {m:?}", out.mem));
        }
    }
    if let Some(sh) = &s.expect_shared_io {
        if &out.shared_io != sh {
            problems.push(format!("shared_io = {:?}, expected {sh:?}", out.shared_io));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n  {}", s.name, problems.join("\n  ")))
    }
}
