//! Program IR: what every front-end produces and every engine consumes.
//!
//! A [`Program`] is a set of threads, each placed in the GPU scope hierarchy,
//! each a list of [`Instr`]uctions with labels and jumps. Memory is a set of
//! *virtual addresses* ([`Location`]), each mapped to a *physical* location
//! (aliases share a physical location; `vloc` relates same virtual address,
//! `loc` same physical one). Instructions carry their memory-model tags as
//! strings (see `docs/EVENTS.md` for the vocabulary), so a new model needs no
//! Rust change unless it needs a new base tag.

mod addr;
mod cond;
pub use addr::{Addr, Indexed, RegionAddr, RegionBound};
pub use cond::{CmpOp, Cond, Term};

use std::collections::BTreeMap;
use std::fmt;

/// A position in a source file, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Architecture (litmus dialect) a program was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Arch {
    Ptx,
    Vulkan,
    /// herd7's `C` litmus dialect with scopes (OpenCL C / CUDA spellings):
    /// scoped C/C++ atomics, checked under `scoped-c11` (docs/C.md).
    C,
}

/// How coherence (`co`) orders the writes to one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Coherence {
    /// A strict total order per location (initial write first).
    Total,
    /// Any strict partial order per location with the initial write first.
    Partial,
}

impl Arch {
    /// The architecture's coherence: partial for PTX (overlapping morally
    /// weak writes need not be ordered; Lustig et al., ASPLOS 2019,
    /// sec. 3.5.1; Dat3M treats PTX the same way), total for Vulkan (the
    /// spec's location order; a model may override it, docs/MODELS.md) and
    /// for C (the modification order of C/C++, total per location).
    pub fn coherence(self) -> Coherence {
        match self {
            Arch::Ptx => Coherence::Partial,
            Arch::Vulkan | Arch::C => Coherence::Total,
        }
    }

    /// Whether a program with a data race (as the model's `flag` axioms
    /// define races) has undefined behaviour in this language: yes for
    /// Vulkan (its memory model requires race freedom; Tong et al., ASPLOS
    /// 2024, sec. 3.5) and for C (a data race is undefined behaviour in
    /// C/C++; Lahav et al., PLDI 2017), no for PTX (the PTX model gives racy
    /// programs consistent-execution semantics; Lustig et al., ASPLOS 2019). The
    /// hardware conformance check reports a state the model forbids in a
    /// racy Vulkan test as undefined behaviour rather than as a violation.
    pub fn races_are_undefined(self) -> bool {
        matches!(self, Arch::Vulkan | Arch::C)
    }

    /// The model used when the user names none.
    pub fn default_model(self) -> &'static str {
        match self {
            Arch::Ptx => "ptx-v7.5",
            Arch::Vulkan => "vulkan",
            Arch::C => "scoped-c11",
        }
    }

    /// The word that opens a litmus test of this dialect.
    pub fn litmus_header(self) -> &'static str {
        match self {
            Arch::Ptx => "PTX",
            Arch::Vulkan => "VULKAN",
            Arch::C => "C",
        }
    }
}

/// Index of a thread in [`Program::threads`].
pub type ThreadId = usize;
/// Index of a virtual address in [`Program::locations`].
pub type LocId = usize;

/// A thread's place in the scope hierarchy. Each entry is the index of the
/// scope instance at that level, innermost first:
/// PTX: `[cta, gpu]`; Vulkan: `[sg, wg, qf]`. Threads share a scope instance
/// at level `k` iff their indices agree at levels `k..` (a CTA is identified
/// by its number *and* its GPU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    pub ids: Vec<i64>,
    /// The warp (subgroup) a dialect places the thread in when the model
    /// has no such scope level (herd7's `GPU_PTX` scope trees: threads in
    /// one CTA, different warps). Models never see it; hardware runs
    /// honour it. `None`: any warp.
    pub warp: Option<i64>,
}

/// A shared-memory virtual address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub name: String,
    /// Physical location: the `LocId` of the root of its alias chain
    /// (itself when it aliases nothing).
    pub phys: LocId,
    /// Virtual address this name denotes: itself, except for a PTX proxy
    /// synonym (`s @ surface|texture|constant aliases y`), which names
    /// `y`'s virtual address seen through another proxy (mixed-proxy
    /// "virtual synonym"); `y @ generic aliases x` and Vulkan `b aliases a`
    /// are distinct virtual addresses of one physical location.
    pub virt: LocId,
    /// Initial value (of the physical location; aliases repeat the root's).
    pub init: i64,
    /// `Some(ty)`: the initial value is an arbitrary value of type `ty`
    /// (uninitialised SPIR-V memory); `init` is then meaningless.
    pub init_arbitrary: Option<ValueType>,
    /// Proxy / storage-class annotation from the declaration, if any
    /// (`y @ surface aliases x` gives `Some("surface")`).
    pub space: Option<String>,
}

/// The values an arbitrary (free) value ranges over, in the canonical
/// forms front-ends keep values in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum ValueType {
    /// 0 or 1.
    Bool,
    /// A `w`-bit integer (`w` in 1..=64), kept sign-extended in an `i64`
    /// (so signedness never matters: `-1` is the all-ones pattern).
    Int(u32),
}

impl ValueType {
    /// Any 64-bit value.
    pub const I64: ValueType = ValueType::Int(64);

    /// The least and the greatest value (signed order).
    pub fn range(self) -> (i64, i64) {
        match self {
            ValueType::Bool => (0, 1),
            ValueType::Int(w) if w >= 64 => (i64::MIN, i64::MAX),
            ValueType::Int(w) => {
                let w = w.max(1);
                (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1)
            }
        }
    }

    /// Number of values.
    pub fn count(self) -> u128 {
        let (lo, hi) = self.range();
        (i128::from(hi) - i128::from(lo) + 1) as u128
    }

    pub fn contains(self, v: i64) -> bool {
        let (lo, hi) = self.range();
        lo <= v && v <= hi
    }
}

/// A free input of a program: one value per run of the program, the same
/// for every thread that reads it (a kernel argument or push constant the
/// harness leaves unset). Threads read it with [`InstrKind::Input`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The source name (kernel argument, block member, or variable and
    /// index path), shown in witnesses.
    pub name: String,
    pub ty: ValueType,
    /// `None`: arbitrary. `Some(v)`: fixed to `v` — the explicit engine
    /// checks a program once per valuation of its inputs
    /// (`engine::inputs`).
    pub value: Option<i64>,
}

/// An instruction operand: a register or a constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Reg(String),
    Const(i64),
}

/// Read-modify-write operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RmwOp {
    /// Store the operand, return the old value.
    Exch,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
    /// Unsigned minimum / maximum of the 64-bit patterns (values of a
    /// narrower width are kept sign-extended, which keeps their unsigned
    /// order).
    UMin,
    UMax,
    /// PTX `atom.inc`: `old >= operand (unsigned) ? 0 : old + 1`.
    Inc,
    /// PTX `atom.dec`: `old == 0 || old > operand (unsigned) ? operand :
    /// old - 1`.
    Dec,
    /// Compare-and-swap: if old == expected, store new.
    Cas {
        expected: Operand,
    },
}

impl RmwOp {
    /// The value an RMW other than compare-and-swap stores, from the old
    /// value and the operand (wrapping 64-bit arithmetic). The one
    /// definition every engine uses.
    pub fn apply(&self, old: i64, v: i64) -> i64 {
        match self {
            RmwOp::Exch | RmwOp::Cas { .. } => v,
            RmwOp::Add => old.wrapping_add(v),
            RmwOp::Sub => old.wrapping_sub(v),
            RmwOp::And => old & v,
            RmwOp::Or => old | v,
            RmwOp::Xor => old ^ v,
            RmwOp::Min => old.min(v),
            RmwOp::Max => old.max(v),
            RmwOp::UMin => (old as u64).min(v as u64) as i64,
            RmwOp::UMax => (old as u64).max(v as u64) as i64,
            RmwOp::Inc => {
                if old as u64 >= v as u64 {
                    0
                } else {
                    old.wrapping_add(1)
                }
            }
            RmwOp::Dec => {
                if old == 0 || old as u64 > v as u64 {
                    v
                } else {
                    old.wrapping_sub(1)
                }
            }
        }
    }
}

/// Local (register-only) operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    /// Arithmetic (sign-propagating) right shift.
    Shr,
    /// Logical right shift of the 64-bit pattern.
    Lshr,
    /// Unsigned division / remainder of the 64-bit patterns.
    Udiv,
    Urem,
    /// Signed comparisons: 1 if the relation holds, else 0.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned comparisons of the 64-bit patterns: 1 or 0.
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl BinOp {
    /// Every operation (for tests that sweep them all).
    pub const ALL: [BinOp; 23] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Lshr,
        BinOp::Udiv,
        BinOp::Urem,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Ult,
        BinOp::Ule,
        BinOp::Ugt,
        BinOp::Uge,
    ];

    /// The value of `a op b` on 64-bit integers (wrapping; unsigned
    /// variants reinterpret the bits; comparisons give 0 or 1); `None` for
    /// division by zero. The one definition every engine and front-end uses.
    pub fn eval(self, a: i64, b: i64) -> Option<i64> {
        Some(match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => a.checked_div(b)?,
            BinOp::Rem => a.checked_rem(b)?,
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => a.wrapping_shl(b as u32),
            BinOp::Shr => a.wrapping_shr(b as u32),
            BinOp::Lshr => (a as u64).wrapping_shr(b as u32) as i64,
            BinOp::Udiv => (a as u64).checked_div(b as u64)? as i64,
            BinOp::Urem => (a as u64).checked_rem(b as u64)? as i64,
            BinOp::Eq => i64::from(a == b),
            BinOp::Ne => i64::from(a != b),
            BinOp::Lt => i64::from(a < b),
            BinOp::Le => i64::from(a <= b),
            BinOp::Gt => i64::from(a > b),
            BinOp::Ge => i64::from(a >= b),
            BinOp::Ult => i64::from((a as u64) < (b as u64)),
            BinOp::Ule => i64::from((a as u64) <= (b as u64)),
            BinOp::Ugt => i64::from((a as u64) > (b as u64)),
            BinOp::Uge => i64::from((a as u64) >= (b as u64)),
        })
    }
}

/// The prefix of locations a front-end makes for its own modelling (the
/// exchange slots of warp collectives): never shown in final states.
pub const HIDDEN_PREFIX: &str = "$gpumc_";

/// The kernel front-ends give the barriers of a warp (`bar.warp.sync`,
/// `__syncwarp`) or subgroup (a SPIR-V control barrier of Subgroup scope)
/// ids from `WARP_BARRIER_IDS + (warp << 20)` up, one per arrival, so that
/// they never meet a block's or workgroup's barriers (ids below).
pub const WARP_BARRIER_IDS: i64 = 1 << 40;

/// Instruction kinds. Memory-model annotations live in `tags`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstrKind {
    /// `dst := [addr]`
    Load { dst: String, addr: Addr },
    /// `[addr] := value`
    Store { addr: Addr, value: Operand },
    /// Atomic read-modify-write; `dst` receives the old value (`None` for
    /// PTX `red`, which discards it).
    Rmw {
        dst: Option<String>,
        addr: Addr,
        op: RmwOp,
        operand: Operand,
    },
    /// A fence / memory barrier (also proxy fences, avdevice, visdevice).
    Fence,
    /// A control barrier. `id` may be a register (PTX). `count` is the
    /// number of threads expected (quorum); `None` means every thread of
    /// the barrier's scope instance. `arrive` barriers do not wait. Ids at
    /// or above [`WARP_BARRIER_IDS`] are barriers of one warp or subgroup.
    Barrier {
        id: Operand,
        count: Option<Operand>,
        arrive: bool,
    },
    /// `dst := a op b` (register assignment `ld r, 1` is `Add` with 0).
    Local {
        dst: String,
        op: BinOp,
        a: Operand,
        b: Operand,
    },
    /// A jump target.
    Label(String),
    /// `if cmp(a, b) goto target`.
    Branch {
        op: CmpOp,
        a: Operand,
        b: Operand,
        target: String,
    },
    /// `goto target`.
    Goto(String),
    /// `dst := ` an arbitrary value of type `ty`, a fresh one each time it
    /// runs (SPIR-V `OpUndef`, reads of uninitialised variables; tagged
    /// [`UNDEFINED_VALUE`]), or a value gpumc does not compute (floating
    /// point: an over-approximation).
    Havoc { dst: String, ty: ValueType },
    /// `dst := ` the value of the program's free input `input` (an index
    /// into [`Program::inputs`]): the same in every thread, every time.
    Input { dst: String, input: usize },
    /// Reaching this instruction is undefined behaviour: every property
    /// fails on an execution that does. `cause`: `None` for the program's
    /// own `unreachable` (SPIR-V `OpUnreachable`); otherwise what a
    /// front-end found undefined there, for the report (`atom.inc.u32 at
    /// 19:2 accesses 4 bytes of x, which has 1 byte`).
    Unreachable { cause: Option<String> },
    /// No execution reaches this instruction: one that would is not an
    /// execution of the program at all (an assumption that fails:
    /// GPUVerify's `__assume`, a kernel's `__requires`). Front-ends place
    /// it behind a branch on the assumed condition.
    Infeasible,
}

impl InstrKind {
    /// The address of a memory instruction.
    pub fn addr(&self) -> Option<&Addr> {
        match self {
            InstrKind::Load { addr, .. }
            | InstrKind::Store { addr, .. }
            | InstrKind::Rmw { addr, .. } => Some(addr),
            _ => None,
        }
    }
}

/// One instruction with its source position and model tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub kind: InstrKind,
    /// Base tags for the events this instruction produces (besides the
    /// kind-derived `R`/`W`/`F`/`M`/`RMW`/`B`), e.g. `["ACQ", "GPU", "GEN"]`.
    pub tags: Vec<String>,
    /// Tags only one event of an `Rmw` carries, on top of `tags`: an
    /// acquire RMW's write is relaxed, its read alone is visible, ...
    /// (`frontend::halves`, docs/EVENTS.md). Empty for other kinds.
    pub halves: HalfTags,
    /// A compare-and-swap whose failure has an order of its own (C's
    /// failure order, SPIR-V's `Unequal` semantics) different from the
    /// read part of its success order: all the tags of its read event when
    /// the comparison fails (it then writes nothing). `None`: the read
    /// carries the same tags either way.
    pub failed: Option<Vec<String>>,
    pub pos: Pos,
    /// The instruction as written (for witnesses and error messages).
    pub text: String,
}

/// The tags of an RMW that belong to its read or to its write only.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HalfTags {
    pub read: Vec<String>,
    pub write: Vec<String>,
}

impl Instr {
    /// An instruction with no half-specific tags.
    pub fn new(kind: InstrKind, tags: Vec<String>, pos: Pos, text: String) -> Instr {
        Instr {
            kind,
            tags,
            halves: HalfTags::default(),
            failed: None,
            pos,
            text,
        }
    }

    /// The tags of this instruction's write event (`write`) or of its
    /// other event (a read, fence or barrier).
    pub fn event_tags(&self, write: bool) -> impl Iterator<Item = &str> {
        let half = if write {
            &self.halves.write
        } else {
            &self.halves.read
        };
        self.tags.iter().chain(half).map(String::as_str)
    }

    /// The tags of the read event of a compare-and-swap whose comparison
    /// failed (the read alone happens); [`Instr::event_tags`] otherwise.
    pub fn failed_read_tags(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.failed {
            Some(t) => Box::new(t.iter().map(String::as_str)),
            None => Box::new(self.event_tags(false)),
        }
    }

    /// Every tag any event of this instruction carries.
    pub fn all_tags(&self) -> impl Iterator<Item = &str> {
        self.tags
            .iter()
            .chain(&self.halves.read)
            .chain(&self.halves.write)
            .chain(self.failed.iter().flatten())
            .map(String::as_str)
    }
}

/// A thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub name: String,
    pub placement: Placement,
    pub instrs: Vec<Instr>,
    /// Initial register values (unlisted registers start at 0).
    pub init_regs: Vec<(String, i64)>,
}

/// Kind of final-state assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Quantifier {
    /// `exists c`: holds iff some allowed execution satisfies `c`.
    Exists,
    /// `~exists c` / `not exists c`: holds iff none does.
    NotExists,
    /// `forall c`: holds iff every allowed execution satisfies `c`.
    Forall,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assertion {
    pub quantifier: Quantifier,
    pub cond: Cond,
}

/// A parsed test or kernel, ready for unrolling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The threads are the invocations of one kernel (a PTX kernel, a
    /// SPIR-V entry point), not the columns of a litmus test: the threads
    /// of one block or workgroup must pass the same barriers (barrier
    /// divergence is undefined behaviour, docs/SEMANTICS.md).
    pub kernel: bool,
    pub name: String,
    pub arch: Arch,
    pub threads: Vec<Thread>,
    pub locations: Vec<Location>,
    /// Vulkan `ssw i j` pairs (thread indices, as declared).
    pub ssw: Vec<(ThreadId, ThreadId)>,
    pub filter: Option<Cond>,
    pub assertion: Option<Assertion>,
    /// `locations [...]` clause: extra observables to print in final states.
    pub observed: Vec<Term>,
    /// Free inputs (read by [`InstrKind::Input`]).
    pub inputs: Vec<Input>,
    /// Where instructions came from in the source the program was
    /// compiled from, by the line of their [`Instr::pos`]: the CUDA lines
    /// a PTX kernel's `.loc` directives name. Empty for litmus tests.
    pub source_map: BTreeMap<u32, SourceLoc>,
    /// What the front-end assumed where the source leaves something open,
    /// one sentence each, without repetitions, for the report ("calls to
    /// `nondet` (no body in this file) return arbitrary values and touch
    /// no shared memory"). Empty for litmus tests.
    pub assumptions: Vec<String>,
    /// The `Key=Value` lines of a litmus test's header, in order, as
    /// herdtools' generators write them (`Generator=diy7 …`, `Com=Rf Fr`,
    /// `Hash=…`); herd's output repeats `Hash=`.
    pub header: Vec<(String, String)>,
    /// The model a program of this source language is checked under when
    /// none is named, where the architecture's default does not fit
    /// (`opencl` for SPIR-V compiled from OpenCL C); `None`: the
    /// architecture's ([`Arch::default_model`]).
    pub default_model: Option<String>,
}

/// A position in the source a program was compiled from (a CUDA file
/// and line, from a PTX kernel's debug lines).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SourceLoc {
    pub file: String,
    pub line: u32,
    /// 0: no column.
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            // DWARF's line 0: code no single source line produced (the
            // compiler merged several lines, or generated it).
            (0, _) => write!(
                f,
                "{} (line 0: code the compiler merged from several lines or generated)",
                self.file
            ),
            (l, 0) => write!(f, "{}:{l}", self.file),
            (l, c) => write!(f, "{}:{l}:{c}", self.file),
        }
    }
}

/// The tag of a [`InstrKind::Havoc`] whose value is arbitrary in the
/// program's own semantics (an undefined value, an uninitialised
/// variable), not an over-approximation of a value computed some way gpumc
/// does not model: any value it takes is a real behaviour, so an engine
/// that over-approximates other threads may still confirm what depends
/// on it.
pub const UNDEFINED_VALUE: &str = "undefined-value";

impl Program {
    /// The source position an instruction was compiled from, if known.
    pub fn source_of(&self, i: &Instr) -> Option<&SourceLoc> {
        self.source_map.get(&i.pos.line)
    }

    /// A cause of undefined behaviour at `i`, with the source position
    /// it was compiled from when that is known (the cause already quotes
    /// the compiled line).
    pub fn cause_at(&self, cause: &str, i: &Instr) -> String {
        match self.source_of(i) {
            Some(src) => format!("{cause} at {src}"),
            None => cause.to_string(),
        }
    }

    pub fn location_id(&self, name: &str) -> Option<LocId> {
        self.locations.iter().position(|l| l.name == name)
    }

    /// Whether some value of the program is arbitrary: an uninitialised
    /// location, an undefined value (`Havoc`) or an input not fixed.
    pub fn has_free_values(&self) -> bool {
        self.locations.iter().any(|l| l.init_arbitrary.is_some())
            || self.inputs.iter().any(|i| i.value.is_none())
            || self
                .threads
                .iter()
                .flat_map(|t| &t.instrs)
                .any(|i| matches!(i.kind, InstrKind::Havoc { .. }))
    }

    /// Whether the program assumes something (`Infeasible`): some
    /// executions may be ruled out, all of them even.
    pub fn has_assumptions(&self) -> bool {
        (self.threads.iter().flat_map(|t| &t.instrs))
            .any(|i| matches!(i.kind, InstrKind::Infeasible))
    }

    /// Scope-level names, innermost first, for this architecture.
    pub fn scope_levels(&self) -> &'static [&'static str] {
        match self.arch {
            Arch::Ptx | Arch::C => &["cta", "gpu"],
            Arch::Vulkan => &["sg", "wg", "qf"],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SourceLoc;

    #[test]
    fn source_line_zero_is_explained() {
        let at = |line, col| {
            SourceLoc {
                file: "k.cu".into(),
                line,
                col,
            }
            .to_string()
        };
        assert_eq!(at(12, 3), "k.cu:12:3");
        assert_eq!(at(12, 0), "k.cu:12");
        assert!(at(0, 0).starts_with("k.cu (line 0: code the compiler merged"));
    }
}
