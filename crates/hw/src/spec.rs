//! What a kernel generator consumes: one litmus test lowered to the
//! operations a GPU runs (`lower` builds it from the IR's tags), with no
//! knowledge of how the harness places test instances — that arrives at
//! run time through the tables of [`crate::abi`].
//!
//! Values are 32-bit: registers and memory words are `u32` bit patterns of
//! `i32` values; the host sign-extends them when it reads results
//! (`docs/HARDWARE.md`, "Values"). Every operation below says exactly what
//! the generated code must do; a generator that cannot do it reports
//! `unsupported` instead of approximating.

use gpumc_core::ir::{BinOp, CmpOp};

/// The dialect a kernel is generated for: decides which access
/// descriptors appear ([`Access::Vulkan`] or [`Access::Ptx`]) and which
/// backend runs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// SPIR-V with the Vulkan memory model, run by the Vulkan backend.
    Vulkan,
    /// PTX (sm_70+ memory model), JIT-compiled by the CUDA driver.
    Ptx,
}

/// One litmus test, ready for a kernel generator.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSpec {
    /// The test's name (for kernel names and messages).
    pub name: String,
    pub dialect: Dialect,
    /// Address slots: one per location the threads access. [`LocIdx`] `l`
    /// is the `l`-th address word of a table row (`abi::ROW_LOC0 + l`).
    pub locations: Vec<LocSlot>,
    pub threads: Vec<ThreadCode>,
    /// Control barriers between phases, executed by **every invocation of
    /// every workgroup**, in uniform control flow at the kernel's top
    /// level: every thread's code is split into `barriers.len() + 1`
    /// [`Phase`]s, and phase `k` of all threads is followed by
    /// `barriers[k]`.
    pub barriers: Vec<PhaseBarrier>,
}

impl KernelSpec {
    /// Whether some location lives in workgroup (shared) memory, so the
    /// kernel copies shared memory in from and out to `shared_io`.
    pub fn uses_shared(&self) -> bool {
        self.locations.iter().any(|l| l.region == Region::Shared)
    }

    /// Words per table row (`abi::ROW_LOC0` header words, then one address
    /// word per location).
    pub fn row_words(&self) -> usize {
        crate::abi::ROW_LOC0 + self.locations.len()
    }

    /// Number of registers a thread's result record holds after its
    /// header (`abi::RES_REGS`).
    pub fn result_words(&self, thread: usize) -> usize {
        crate::abi::RES_REGS + self.threads[thread].recorded.len()
    }
}

/// Index of a location slot in [`KernelSpec::locations`].
pub type LocIdx = usize;
/// Index of a register in [`ThreadCode::regs`].
pub type RegIdx = usize;
/// Index of a block in [`Phase::blocks`].
pub type BlockIdx = usize;

/// One memory location of the test, as the hardware holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocSlot {
    /// Name in the test (`x`).
    pub name: String,
    pub region: Region,
    /// Initial value; the host writes it before each launch.
    pub init: i32,
}

/// Where a location lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Region {
    /// Device memory (`abi::BIND_MEM`; SPIR-V `StorageBuffer`, PTX
    /// `.global`). The address word is a word index into that buffer.
    Global,
    /// Workgroup memory (SPIR-V `Workgroup`, PTX `.shared`): one array of
    /// `KernelConfig::shared_words` words per workgroup. The address word
    /// is a word index into it.
    Shared,
}

/// The code of one thread of the test.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadCode {
    /// Name in the test (`P0`, `T1`).
    pub name: String,
    /// Registers (function-local variables), each set to `init` when the
    /// thread starts.
    pub regs: Vec<Reg>,
    /// `barriers.len() + 1` phases (see [`KernelSpec::barriers`]).
    pub phases: Vec<Phase>,
    /// Registers written to the result record after the header, in this
    /// order (`abi::RES_REGS + k` holds `recorded[k]`).
    pub recorded: Vec<RegIdx>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reg {
    pub name: String,
    pub init: i32,
}

/// The code of a thread between two phase barriers: a control-flow graph
/// whose entry is `blocks[0]` (no blocks: nothing to do). Leaving the phase
/// ([`End::Exit`]) continues with the next phase after the barrier.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Phase {
    pub blocks: Vec<Block>,
}

/// Straight-line operations, then one way out.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub ops: Vec<Op>,
    pub end: End,
}

/// How a block ends. Targets are blocks of the same phase.
///
/// **Fuel.** Every edge to a block whose index is at most the current
/// block's index (a back edge, [`End::is_back`]) costs one unit of fuel and
/// is counted in the thread's result record (`abi::RES_BACK_EDGES`). When
/// the thread has taken `params[abi::P_FUEL]` back edges and is about to
/// take another, it stops instead: status `abi::STATUS_OUT_OF_FUEL`, the
/// rest of its code (all later phases) is skipped, but it still takes part
/// in the phase barriers. So every generated kernel terminates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    Goto(BlockIdx),
    /// `if a <cmp> b` (signed 32-bit comparison) `then` else `otherwise`.
    Branch {
        cmp: CmpOp,
        a: Value,
        b: Value,
        then: BlockIdx,
        otherwise: BlockIdx,
    },
    /// Leave the phase.
    Exit,
}

impl End {
    /// Whether the edge from block `from` to block `to` is a back edge
    /// (costs fuel).
    pub fn is_back(from: BlockIdx, to: BlockIdx) -> bool {
        to <= from
    }
}

/// A register or a constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Reg(RegIdx),
    Const(i32),
}

/// The location a memory operation accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Address {
    Fixed(LocIdx),
    /// `cells[index]`, the index computed at run time (an address
    /// dependency). An index outside `0..cells.len()` is undefined
    /// behaviour in the model: the generated code must not perform the
    /// access (a load then yields 0), sets the thread's status to
    /// `abi::STATUS_OUT_OF_BOUNDS` (if it is still `STATUS_DONE` at the
    /// end) and otherwise carries on.
    Indexed {
        index: Value,
        cells: Vec<LocIdx>,
    },
}

/// One operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `dst := [addr]`
    Load {
        dst: RegIdx,
        addr: Address,
        access: Access,
    },
    /// `[addr] := value`
    Store {
        addr: Address,
        value: Value,
        access: Access,
    },
    /// Atomic read-modify-write; `dst` (if any) receives the old value.
    /// Always an atomic instruction, whatever `access` says about order.
    Rmw {
        dst: Option<RegIdx>,
        addr: Address,
        op: RmwKind,
        /// The operand (for `Cas`: the new value).
        value: Value,
        access: Access,
    },
    /// A memory fence.
    Fence(Fence),
    /// `dst := a op b` on 32-bit values. As [`BinOp::eval`] on the
    /// sign-extended operands, truncated to 32 bits, except: division and
    /// remainder by zero give 0; shifts by 32 or more give 0 (`Shl`,
    /// `Lshr`) or the sign (`Shr`: 0 or -1); `Lshr`, `Udiv`, `Urem` and the
    /// unsigned comparisons work on the 32-bit patterns.
    Local {
        dst: RegIdx,
        op: BinOp,
        a: Value,
        b: Value,
    },
}

/// Read-modify-write operations (`Min`/`Max` signed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmwKind {
    Exch,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
    /// Compare-and-swap: if old == `expected`, store the operand.
    Cas {
        expected: Value,
    },
}

/// How an access is performed, in the dialect's own terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    Vulkan(VkAccess),
    Ptx(PtxAccess),
}

/// SPIR-V memory scopes (the values are SPIR-V's `Scope` enumerants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VkScope {
    Device = 1,
    Workgroup = 2,
    Subgroup = 3,
    QueueFamily = 5,
}

/// SPIR-V `MemorySemantics` bits used here.
pub mod semantics {
    pub const ACQUIRE: u32 = 0x2;
    pub const RELEASE: u32 = 0x4;
    pub const ACQUIRE_RELEASE: u32 = 0x8;
    /// The `StorageBuffer` class (SPIR-V calls it uniform memory).
    pub const UNIFORM_MEMORY: u32 = 0x40;
    pub const WORKGROUP_MEMORY: u32 = 0x100;
    pub const MAKE_AVAILABLE: u32 = 0x2000;
    pub const MAKE_VISIBLE: u32 = 0x4000;
}

/// A Vulkan-dialect access. The storage class is the location's
/// [`Region`] (`Global`: `StorageBuffer`, `Shared`: `Workgroup`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VkAccess {
    /// `OpAtomicLoad`/`OpAtomicStore`/`OpAtomic*` (always true for
    /// [`Op::Rmw`]); otherwise `OpLoad`/`OpStore`.
    pub atomic: bool,
    /// Atomics: their memory scope. Non-atomic accesses: the scope of
    /// `MakePointerAvailable`/`MakePointerVisible` (present iff one of
    /// them is).
    pub scope: Option<VkScope>,
    /// Atomics: the `MemorySemantics` operand (for a compare-exchange, the
    /// `Equal` semantics), [`semantics`] bits; 0 is relaxed.
    pub semantics: u32,
    /// Compare-exchange only: the `Unequal` semantics (the equal ones
    /// without release and without `MAKE_AVAILABLE`).
    pub unequal_semantics: u32,
    /// Non-atomic accesses: the `MemoryAccess` operands
    /// `MakePointerAvailable` (stores), `MakePointerVisible` (loads) and
    /// `NonPrivatePointer`. (Availability/visibility imply non-private.)
    pub make_available: bool,
    pub make_visible: bool,
    pub non_private: bool,
}

/// A PTX-dialect access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxAccess {
    pub sem: PtxSem,
    /// Required for `Relaxed`/`Acquire`/`Release`/`AcqRel` (and for
    /// atomics); `None` for `Weak` and `Volatile`.
    pub scope: Option<PtxScope>,
    /// Cache operator of a weak `ld`/`st` (`ca`, `cg`, `cs`, `cv`, `lu`,
    /// `wb`, `wt`), written as the test wrote it; `None`: the default.
    pub cache: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxSem {
    /// Plain `ld`/`st` (`.weak`).
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    /// `ld.volatile`/`st.volatile`.
    Volatile,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtxScope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl PtxScope {
    pub fn suffix(self) -> &'static str {
        match self {
            PtxScope::Cta => "cta",
            PtxScope::Cluster => "cluster",
            PtxScope::Gpu => "gpu",
            PtxScope::Sys => "sys",
        }
    }
}

/// A fence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `OpMemoryBarrier(scope, semantics)`.
    Vulkan { scope: VkScope, semantics: u32 },
    /// `fence.sc.<scope>` / `fence.acq_rel.<scope>`.
    PtxFence { sc: bool, scope: PtxScope },
    /// `membar.cta` / `membar.gl` / `membar.sys` (as the test wrote it;
    /// sm_70+ treats it as `fence.sc` at that scope).
    PtxMembar { scope: PtxScope },
}

/// A control barrier at a phase boundary (see [`KernelSpec::barriers`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PhaseBarrier {
    /// `OpControlBarrier(execution, memory, semantics)`.
    Vulkan {
        execution: VkScope,
        memory: VkScope,
        semantics: u32,
    },
    /// `barrier.sync <id>` (every thread of the CTA).
    Ptx { id: u32 },
}
