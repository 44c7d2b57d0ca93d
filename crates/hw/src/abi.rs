//! The contract between the host (`plan`, `run`) and every generated
//! kernel, whatever the backend: the buffers, the layout of the per-
//! invocation table, the run-time parameters and the result records.
//!
//! # Buffers
//!
//! All buffers are arrays of 32-bit words. Vulkan binds them as storage
//! buffers of descriptor set 0 at the binding numbers below; CUDA passes
//! them as `.u64` pointer parameters in this order.
//!
//! | binding | name | contents |
//! |---|---|---|
//! | [`BIND_MEM`] | `mem` | test memory: every `Global` location of every instance, plus padding |
//! | [`BIND_TABLE`] | `table` | one row of [`KernelSpec::row_words`] words per invocation |
//! | [`BIND_RESULTS`] | `results` | result records (zeroed before each launch) |
//! | [`BIND_SYNC`] | `sync` | start-barrier counters (zeroed before each launch) |
//! | [`BIND_STRESS`] | `stress` | scratch memory for the stress loops |
//! | [`BIND_PARAMS`] | `params` | [`PARAM_WORDS`] run-time parameters (`P_*`) |
//! | [`BIND_SHARED_IO`] | `shared_io` | `shared_words` words per workgroup: initial values of workgroup memory in, final values out |
//!
//! # Kernel structure
//!
//! One compute kernel, workgroups of `KernelConfig::workgroup_size`
//! invocations (1-D). Each invocation:
//!
//! 1. computes its **slot**: `workgroup_id * workgroup_size + local`, where
//!    `local` is `subgroup_id * subgroup_size + subgroup_local_id` (Vulkan,
//!    from the built-ins) or `%tid.x` (CUDA, where warp = `%tid.x / 32`),
//!    and reads its row `table[slot * row_words ..]`;
//! 2. if the kernel uses workgroup memory (`KernelSpec::uses_shared`):
//!    copies `shared_io[workgroup_id * shared_words + k]` into the shared
//!    array for `k = local, local + workgroup_size, …` below
//!    `shared_words`, then a workgroup control barrier (acquire-release,
//!    workgroup memory);
//! 3. by its row's [`ROW_ROLE`]: [`ROLE_STRESS`] runs the stress loop
//!    (below) with `P_STRESS_*`; [`ROLE_IDLE`] does nothing;
//!    `ROLE_THREAD0 + t` is test thread `t`, which
//!    (a) if `ROW_FLAGS & FLAG_PRE_STRESS`, runs the stress loop with
//!    `P_PRE_*`; (b) if `ROW_SYNC_N != 0`, takes the start barrier: one
//!    relaxed device-scope atomic add of 1 to `sync[ROW_SYNC]`, then spins
//!    on relaxed device-scope atomic loads of it until the value is at
//!    least `ROW_SYNC_N` or `P_SPIN_LIMIT` loads have been made (no fence:
//!    the barrier must not order the test's accesses); (c) runs phase 0 of
//!    thread `t`'s code, with its location `l` at address word
//!    `row[ROW_LOC0 + l]` (a word index into `mem` for `Global`, into the
//!    shared array for `Shared`);
//! 4. for each phase barrier `k` of the spec: the barrier (every
//!    invocation, top level), then every test-thread invocation runs
//!    phase `k + 1` of its thread (unless it has stopped, see
//!    `spec::End`);
//! 5. a test-thread invocation whose `ROW_RESULT` is not [`DISCARD`] writes
//!    its result record at `results[ROW_RESULT ..]`: [`RES_STATUS`],
//!    [`RES_BACK_EDGES`], then its recorded registers;
//! 6. if the kernel uses workgroup memory: a workgroup control barrier,
//!    then the shared array is copied back to `shared_io` as in step 2.
//!
//! # The stress loop
//!
//! For `i` in `0..iterations`: `line = (P_STRESS_OFFSET + i) % lines`,
//! `w = line * line_words + local % line_words`, then two accesses to
//! `stress[w]` by `pattern`: 0 store-store, 1 store-load, 2 load-store,
//! 3 load-load. Stores write `i`; loads are added into an accumulator that
//! is stored to `stress[0]` after the loop if it equals `0x7fff_ffff`, so
//! the loads cannot be removed. Accesses are plain but must not be
//! optimised away (PTX: `.volatile`; SPIR-V: the accumulator suffices).
//! `iterations == 0` or `lines == 0` or `line_words == 0`: no loop.
//!
//! [`KernelSpec::row_words`]: crate::spec::KernelSpec::row_words

/// Storage-buffer bindings (Vulkan) / parameter order (CUDA).
pub const BIND_MEM: u32 = 0;
pub const BIND_TABLE: u32 = 1;
pub const BIND_RESULTS: u32 = 2;
pub const BIND_SYNC: u32 = 3;
pub const BIND_STRESS: u32 = 4;
pub const BIND_PARAMS: u32 = 5;
pub const BIND_SHARED_IO: u32 = 6;
/// Number of buffers.
pub const BUFFERS: u32 = 7;

/// Row header words.
pub const ROW_ROLE: usize = 0;
pub const ROW_RESULT: usize = 1;
pub const ROW_SYNC: usize = 2;
pub const ROW_SYNC_N: usize = 3;
pub const ROW_FLAGS: usize = 4;
/// First address word (location 0).
pub const ROW_LOC0: usize = 5;

/// Roles.
pub const ROLE_IDLE: u32 = 0;
pub const ROLE_STRESS: u32 = 1;
/// Test thread `t` has role `ROLE_THREAD0 + t`; a role naming no thread
/// of the kernel is idle.
pub const ROLE_THREAD0: u32 = 2;

/// `ROW_FLAGS` bits.
pub const FLAG_PRE_STRESS: u32 = 1;

/// `ROW_RESULT` of an invocation whose results are thrown away (a
/// bank-conflict shadow running a thread's code on dummy addresses).
pub const DISCARD: u32 = u32::MAX;

/// Result record words.
pub const RES_STATUS: usize = 0;
pub const RES_BACK_EDGES: usize = 1;
/// First recorded register.
pub const RES_REGS: usize = 2;

/// `RES_STATUS` values. 0 means the record was never written.
pub const STATUS_DONE: u32 = 1;
pub const STATUS_OUT_OF_FUEL: u32 = 2;
pub const STATUS_OUT_OF_BOUNDS: u32 = 3;

/// Run-time parameters (`params` buffer).
pub const P_STRESS_ITERS: usize = 0;
pub const P_STRESS_PATTERN: usize = 1;
pub const P_STRESS_LINE_WORDS: usize = 2;
pub const P_STRESS_LINES: usize = 3;
pub const P_STRESS_OFFSET: usize = 4;
pub const P_PRE_ITERS: usize = 5;
pub const P_PRE_PATTERN: usize = 6;
pub const P_SPIN_LIMIT: usize = 7;
pub const P_FUEL: usize = 8;
pub const PARAM_WORDS: usize = 16;

/// What a kernel is compiled for (fixed per compiled kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelConfig {
    /// Invocations per workgroup (a multiple of the subgroup size).
    pub workgroup_size: u32,
    /// Words of workgroup memory per workgroup (0 if the spec uses none).
    pub shared_words: u32,
}
