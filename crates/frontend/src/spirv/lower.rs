//! Lowering one invocation's entry point to IR by partial evaluation.
//!
//! Every value known while translating (constants, specialisation
//! constants, built-ins, push constants, pointers, and everything computed
//! from them) is folded; values loaded from shared memory live in IR
//! registers. Control flow is specialised: a *spec* is a program point
//! (function, block, instruction) together with the translation state
//! (live SSA values, Private/Function memory, call stack, barrier
//! counters, enclosing loops). Branches on known conditions are resolved;
//! branches on registers become IR branches to the specs of both targets.
//! Reaching a spec with the same state again reuses it, which closes IR
//! loops. Calls are inlined.
//!
//! Loops. A loop whose iterations are decided by known values (no branch
//! on a register leaves the loop from inside the iteration) is unrolled
//! while translating, so loop counters stay known and addresses stay
//! static (an index in a register makes a run-time address, see
//! [`address`]). When a branch on a register may leave the loop, the iteration
//! must lead back to the same header spec: the parts of the state that
//! differ (phis of the header, Private/Function cells, barrier counters)
//! are *generalised* into fixed registers and the invocation is translated
//! again; the result is an IR loop, unrolled by the engine under
//! `--bound`. Known-decided loops with more than [`UNROLL_LIMIT`]
//! iterations are generalised the same way.
//!
//! Phis become register moves on the incoming edges (parallel copies).
//! Control barriers count their dynamic instances per invocation: the
//! `k`-th workgroup barrier of every invocation has id `k` (subgroup
//! barriers: `2^40 + sg·2^20 + k`), quorum = the workgroup (subgroup)
//! size, so a barrier not reached by every invocation deadlocks.
//!
//! Undefined values: an `OpUndef` scalar is a register (see
//! `Module::undef`) assigned by a `Havoc` at the start of the invocation
//! (`Lowerer::free_defs`); a read of a never-written Private/Function
//! cell is a `Havoc` at the read. `OpUnreachable` is `Unreachable`.
//! Read-only memory without a value is a free input (`inputs.rs`): a
//! register assigned by an `Input` at the start of the invocation.
//!
//! Layout: specs are laid out in reverse post-order of the spec graph, so
//! every jump to an earlier label is a loop back-edge (the engine's
//! definition of a loop) and every other jump goes forward.

pub(super) mod access_log;
pub(super) mod address;
pub(super) mod collective;
pub(super) mod image;

use super::inputs::FreeInputs;
use super::layout::{self, bytes, Memory};
use super::module::{Class, Id, Module, Type};
use super::tags::{self, Access, Tags};
use super::value::{fold, sext, value_type, Ptr, Region, Val};
use crate::diag::{Error, Result};
use crate::ir::{BinOp, CmpOp, Instr, InstrKind, Operand, Pos, RmwOp, ValueType};
use address::PtrArg;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Iterations of one loop header unrolled per invocation before its
/// state is generalised into registers.
pub(super) const UNROLL_LIMIT: usize = 2048;
/// Specs per invocation.
const MAX_SPECS: usize = 50_000;
/// IR instructions per invocation.
const MAX_INSTRS: usize = 4_000_000;
/// Re-translations of one invocation (each generalises more state).
const MAX_RESTARTS: usize = 256;
/// Call depth.
const MAX_DEPTH: usize = 32;

/// Where one invocation sits in the grid.
#[derive(Clone, Copy, Debug)]
pub(super) struct Invocation {
    pub global: u32,
    pub local: u32,
    pub wg: u32,
    pub sg: u32,
    pub sg_local: u32,
}

/// Initial cells (offset, width, value) of each Private variable.
pub(super) type PrivateInit = Vec<(Id, Vec<(u64, u32, Val)>)>;

/// What every invocation's translation shares.
pub(super) struct Shared<'m> {
    pub m: &'m Module,
    pub mem: Memory,
    /// Storage class and pointee type of each global variable.
    pub vars: HashMap<Id, (Class, Id)>,
    /// Contents of read-only variables (push constants, UniformConstant,
    /// Input variables with initialisers): `(var, offset)` → (width, value).
    pub ro: HashMap<(Id, u64), (u32, i64)>,
    /// Initial cells of Private variables.
    pub private_init: PrivateInit,
    /// Read-only scalars without a value: the program's free inputs.
    pub inputs: FreeInputs,
    /// Per shared variable given initial values: the end of the last one
    /// (the length of a buffer ending in a runtime array).
    pub init_end: HashMap<Id, u64>,
    /// The generic translation (`super::parse_generic`): the region of
    /// each shared variable. `None`: one invocation of the grid.
    pub generic: Option<HashMap<Id, usize>>,
}

/// Registers of the generic invocation's ids (`Input`s of the program,
/// numbered from [`GENERIC_ID_INPUT`] until `super::parse_generic`
/// renumbers them) and of the ids computed from them.
pub(super) const GENERIC_SG_LOCAL: &str = "inv.sg_local";
pub(super) const GENERIC_SG: &str = "inv.sg";
pub(super) const GENERIC_WG: &str = "inv.wg";
const GENERIC_LOCAL: &str = "inv.local";
const GENERIC_GLOBAL: &str = "inv.global";
/// The input number of the first generic id before renumbering.
pub(super) const GENERIC_ID_INPUT: usize = 1 << 40;

/// The generic invocation's ids: subgroup-local, subgroup, workgroup,
/// local, global — a register, or 0 where the grid's extent is 1.
fn generic_ids(g: super::header::Grid) -> [Val; 5] {
    let reg = |r: &str, extent: u64| {
        if extent > 1 {
            Val::Reg(Rc::from(r))
        } else {
            Val::Int(0)
        }
    };
    let sgl = reg(GENERIC_SG_LOCAL, g.threads_per_sg.into());
    let sg = reg(GENERIC_SG, g.sgs_per_wg.into());
    let wg = reg(GENERIC_WG, g.wgs.into());
    let local = reg(GENERIC_LOCAL, g.wg_size().into());
    let global = reg(GENERIC_GLOBAL, g.threads());
    [sgl, sg, wg, local, global]
}

/// The register of the generic invocation's linear global id
/// (`GlobalLinearId`) in a grid of several dimensions.
const GENERIC_GLOBAL_LINEAR: &str = "inv.global.linear";

/// The extent of the global ids in each dimension of `@Dims` (`local`
/// and `groups` extents), saturating.
fn global_extent(local: [u32; 3], groups: [u32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|d| local[d].saturating_mul(groups[d]))
}

/// The register of coordinate `d` of a generic id (`inv.local.1`), or 0
/// where the extent in that dimension is 1.
fn generic_coordinate(id: &str, d: usize, extent: u32) -> Val {
    if extent > 1 {
        Val::Reg(Rc::from(format!("{id}.{d}")))
    } else {
        Val::Int(0)
    }
}

/// Built-in values of the generic invocation: ids are registers
/// ([`generic_ids`], their coordinates for a grid of several dimensions);
/// the others as for any invocation.
fn generic_builtin(name: &str, m: &Module) -> Option<Val> {
    let [sgl, sg, wg, local, global] = generic_ids(m.settings.grid);
    if let Some((l, g)) = m.settings.grid.dims {
        let coords = |id: &str, extent: [u32; 3]| {
            let xs: Vec<Val> = (0..3)
                .map(|d| generic_coordinate(id, d, extent[d]))
                .collect();
            Val::Comp(xs.into())
        };
        match name {
            "GlobalInvocationId" => return Some(coords(GENERIC_GLOBAL, global_extent(l, g))),
            "LocalInvocationId" => return Some(coords(GENERIC_LOCAL, l)),
            "WorkgroupId" => return Some(coords(GENERIC_WG, g)),
            "GlobalLinearId" => return Some(Val::Reg(Rc::from(GENERIC_GLOBAL_LINEAR))),
            _ => {}
        }
    }
    let v3 = |x: Val| Val::Comp(vec![x, Val::Int(0), Val::Int(0)].into());
    let zero = Invocation {
        global: 0,
        local: 0,
        wg: 0,
        sg: 0,
        sg_local: 0,
    };
    Some(match name {
        "GlobalInvocationId" => v3(global),
        "LocalInvocationId" => v3(local),
        "WorkgroupId" => v3(wg),
        "LocalInvocationIndex" => local,
        "GlobalLinearId" => global,
        "SubgroupId" => sg,
        "SubgroupLocalInvocationId" => sgl,
        other => return builtin_value(other, &zero, m),
    })
}

/// State that may be generalised into a fixed register.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Slot {
    /// A phi (function, result id).
    Phi(usize, Id),
    /// A Private/Function cell (variable, offset, width).
    Cell(Id, u64, u32),
    /// A barrier counter (0: workgroup, 1: subgroup).
    Bar(usize),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct LoopEntry {
    header: usize,
    /// Spec of the current iteration's header.
    spec: Option<usize>,
    /// A branch on a register may leave the loop in this iteration.
    exit_unknown: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Frame {
    func: usize,
    block: usize,
    idx: usize,
    env: BTreeMap<Id, Val>,
    loops: Vec<LoopEntry>,
    /// Result id of the call in the caller.
    ret: Option<Id>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    frames: Vec<Frame>,
    /// Private/Function memory: (variable, offset) → (width, value).
    cells: BTreeMap<(Id, u64), (u32, Val)>,
    /// Barrier counters: workgroup, subgroup.
    bar: [Val; 2],
}

impl State {
    fn top(&self) -> &Frame {
        self.frames.last().expect("a frame")
    }
    fn top_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }
}

struct Spec {
    state: State,
    chunk: Vec<Instr>,
    succs: Vec<usize>,
    /// Layout preference: line of the first instruction, then creation.
    order: (usize, usize),
}

enum Flow {
    Err(Error),
    Restart(Vec<Slot>),
}

impl From<Error> for Flow {
    fn from(e: Error) -> Self {
        Flow::Err(e)
    }
}

type R<T> = std::result::Result<T, Flow>;

enum Target {
    Inline(State),
    Spec(usize),
}

enum Cont {
    Inline(State),
    Done,
}

const END: &str = "END";

fn label(k: usize) -> String {
    format!("L{k}")
}

/// Translates one invocation.
pub(super) fn lower_thread(sh: &mut Shared<'_>, inv: &Invocation) -> Result<Vec<Instr>> {
    let mut slots: HashSet<Slot> = HashSet::new();
    for _ in 0..MAX_RESTARTS {
        let cp = sh.mem.checkpoint();
        let lw = Lowerer::new(sh, inv, &slots)?;
        match lw.run() {
            Ok(v) => return Ok(v),
            Err(Flow::Err(e)) => {
                sh.mem.rollback(cp);
                return Err(e);
            }
            Err(Flow::Restart(new)) => {
                sh.mem.rollback(cp);
                let before = slots.len();
                slots.extend(new);
                if slots.len() == before {
                    return Err(Error::unsupported(
                        sh.m.line(sh.m.entry.1).pos(),
                        "a loop whose state does not converge",
                    ));
                }
            }
        }
    }
    Err(Error::unsupported(
        sh.m.line(sh.m.entry.1).pos(),
        "loops needing too many generalisation rounds",
    ))
}

/// OpenCL's integer functions gpumc computes exactly: (OpenCL.std name,
/// the GLSL.std.450 name `ext_inst` computes it under). Every other
/// OpenCL function gives a free value (`free_result`).
pub(super) const OPENCL_EXACT: &[(&str, &str)] = &[
    ("u_min", "UMin"),
    ("u_max", "UMax"),
    ("s_min", "SMin"),
    ("s_max", "SMax"),
    ("s_abs", "SAbs"),
];

/// OpenCL functions with a second result written through their pointer
/// argument (`sincos`'s cosine, `fract`'s floor, …): a store of a free
/// value there. Other functions with pointers (`vload4`, …) are refused.
pub(super) const OPENCL_OUT_POINTER: &[&str] =
    &["sincos", "fract", "modf", "frexp", "lgamma_r", "remquo"];

/// The function our OpenCL header calls where a GPUVerify `__assert`
/// fails (`examples/opencl/gpumc_opencl.h`).
pub(super) const ASSERTION_FAILS: &str = "__gpumc_assertion_fails";
/// Our OpenCL header's `__assume(c)`: executions in which `c` is 0 there
/// are not executions of the program.
pub(super) const ASSUME: &str = "__gpumc_assume";
/// Our OpenCL header's `__requires(c)`: a precondition. The kernel's own is assumed (its caller, the launch, is
/// not checked); a called function's is checked at the call, as
/// GPUVerify checks a procedure's preconditions at its call sites.
pub(super) const REQUIRES: &str = "__gpumc_requires";
/// Our header's `__global_requires(c)`: the kernel's is assumed; in a
/// called function GPUVerify makes it hold for the threads that do not
/// call the function too, which has no meaning in an execution: refused.
pub(super) const GLOBAL_REQUIRES: &str = "__gpumc_global_requires";
/// Our header's mark of a proof hint gpumc does not check (a loop
/// invariant, a postcondition): the call does nothing; the report says
/// such hints are not checked.
pub(super) const UNCHECKED: &str = "__gpumc_unchecked";
/// Our header's mark of an asynchronous work-group copy, which it writes
/// out as done at the call: the call does nothing; the report says how
/// the copy is modelled.
pub(super) const ASYNC_COPY: &str = "__gpumc_async_copy";
/// The bodiless functions our header calls for GPUVerify's annotations
/// and OpenCL's asynchronous copies.
pub(super) const ANNOTATIONS: [&str; 7] = [
    access_log::ACCESS_LOG,
    ASSERTION_FAILS,
    ASSUME,
    REQUIRES,
    GLOBAL_REQUIRES,
    UNCHECKED,
    ASYNC_COPY,
];

/// Built-in values for an invocation (as scalars or 3-vectors).
pub(super) fn builtin_value(name: &str, inv: &Invocation, m: &Module) -> Option<Val> {
    let g = m.settings.grid;
    if let Some((l, n)) = g.dims {
        use super::header::coordinates;
        let vec3 = |x: [u32; 3]| Val::Comp(x.map(|c| Val::Int(i64::from(c))).to_vec().into());
        let local = coordinates(inv.local, l);
        let wg = coordinates(inv.wg, n);
        let global = [0, 1, 2].map(|d| wg[d] * l[d] + local[d]);
        let size = global_extent(l, n);
        let linear = (u64::from(global[2]) * u64::from(size[1]) + u64::from(global[1]))
            * u64::from(size[0])
            + u64::from(global[0]);
        let dims = (0..3)
            .rev()
            .find(|&d| l[d] > 1 || n[d] > 1)
            .map_or(1, |d| d + 1);
        match name {
            "GlobalInvocationId" => return Some(vec3(global)),
            "LocalInvocationId" => return Some(vec3(local)),
            "WorkgroupId" => return Some(vec3(wg)),
            "NumWorkgroups" => return Some(vec3(n)),
            "WorkgroupSize" | "EnqueuedWorkgroupSize" => return Some(vec3(l)),
            "GlobalSize" => return Some(vec3(size)),
            "GlobalLinearId" => return Some(Val::Int(linear as i64)),
            "WorkDim" => return Some(Val::Int(dims as i64)),
            _ => {}
        }
    }
    let v3 = |x: u32| Val::Comp(vec![Val::Int(i64::from(x)), Val::Int(0), Val::Int(0)].into());
    let v3_1 = |x: u32| Val::Comp(vec![Val::Int(i64::from(x)), Val::Int(1), Val::Int(1)].into());
    Some(match name {
        "GlobalInvocationId" => v3(inv.global),
        "LocalInvocationId" => v3(inv.local),
        "WorkgroupId" => v3(inv.wg),
        "NumWorkgroups" => v3_1(g.wgs),
        "WorkgroupSize" | "EnqueuedWorkgroupSize" => v3_1(g.wg_size()),
        "GlobalSize" => {
            Val::Comp(vec![Val::Int(g.threads() as i64), Val::Int(1), Val::Int(1)].into())
        }
        "GlobalOffset" => v3(0),
        "LocalInvocationIndex" => Val::Int(i64::from(inv.local)),
        "GlobalLinearId" => Val::Int(i64::from(inv.global)),
        "SubgroupId" => Val::Int(i64::from(inv.sg)),
        "SubgroupLocalInvocationId" => Val::Int(i64::from(inv.sg_local)),
        "SubgroupSize" | "SubgroupMaxSize" => Val::Int(i64::from(g.threads_per_sg)),
        "NumSubgroups" | "NumEnqueuedSubgroups" => Val::Int(i64::from(g.sgs_per_wg)),
        "DeviceIndex" => Val::Int(0),
        // OpenCL's `get_work_dim()`: launches are one-dimensional.
        "WorkDim" => Val::Int(1),
        _ => return None,
    })
}

struct Lowerer<'a, 'm> {
    m: &'m Module,
    mem: &'a mut Memory,
    vars: &'a HashMap<Id, (Class, Id)>,
    ro: &'a HashMap<(Id, u64), (u32, i64)>,
    private_init: &'a PrivateInit,
    inputs: &'a mut FreeInputs,
    init_end: &'a HashMap<Id, u64>,
    inv: Invocation,
    slots: &'a HashSet<Slot>,
    /// The kernel asks for GPUVerify's access records (`access_log`).
    logs: bool,
    /// Read-only contents specific to this invocation (built-ins).
    ro_inv: HashMap<(Id, u64), (u32, i64)>,
    /// The generic invocation's built-ins held in registers.
    ro_gen: HashMap<(Id, u64), (u32, Val)>,
    /// The region of each shared variable in the generic translation.
    generic: Option<&'a HashMap<Id, usize>>,
    /// (generic translation) Registers computed from the ids alone, and
    /// registers that are not (`note_id_derived`).
    id_derived: HashSet<String>,
    not_id_derived: HashSet<String>,
    specs: Vec<Spec>,
    memo: HashMap<State, usize>,
    work: Vec<usize>,
    header_count: HashMap<(usize, usize), usize>,
    counters: HashMap<Id, u32>,
    reserved: HashSet<Rc<str>>,
    tmp: u32,
    edges: u32,
    cmp_origin: HashMap<Rc<str>, (CmpOp, Val, Val)>,
    prologue: Vec<Instr>,
    ninstrs: usize,
    cur: usize,
    cur_succs: Vec<usize>,
}

impl<'a, 'm> Lowerer<'a, 'm> {
    fn new(sh: &'a mut Shared<'m>, inv: &Invocation, slots: &'a HashSet<Slot>) -> Result<Self> {
        let m = sh.m;
        let mut ro_inv = HashMap::new();
        let mut ro_gen = HashMap::new();
        for (&var, &(class, pointee)) in &sh.vars {
            if class != Class::Input {
                continue;
            }
            let Some(b) = m.builtin(var) else { continue };
            let pos = m.line(m.def[var as usize].unwrap_or(0)).pos();
            let v = match sh.generic {
                Some(_) => generic_builtin(&b, m),
                None => builtin_value(&b, inv, m),
            }
            .ok_or_else(|| Error::unsupported(pos, format!("built-in `{b}`")))?;
            let v = match (&*m.ty(pointee, pos)?, &v) {
                // A scalar variable for a vector built-in: its first component.
                (Type::Int { .. }, Val::Comp(xs)) => xs[0].clone(),
                _ => v,
            };
            let mut out = Vec::new();
            layout::flatten_val(m, pointee, &v, 0, pos, &mut out, 0)?;
            for (off, w, x) in out {
                match x {
                    Val::Int(x) => {
                        ro_inv.insert((var, off), (w, x));
                    }
                    x @ Val::Reg(_) => {
                        ro_gen.insert((var, off), (w, x));
                    }
                    _ => {}
                }
            }
        }
        let mut reserved = HashSet::new();
        for s in slots {
            match s {
                Slot::Phi(_, id) => {
                    reserved.insert(Rc::from(format!("%{}", m.display(*id))));
                }
                Slot::Cell(var, off, _) => {
                    reserved.insert(Rc::from(format!("%{}+{off}", m.display(*var))));
                }
                Slot::Bar(i) => {
                    reserved.insert(Rc::from(bar_name(*i)));
                }
            }
        }
        Ok(Lowerer {
            m,
            mem: &mut sh.mem,
            vars: &sh.vars,
            ro: &sh.ro,
            private_init: &sh.private_init,
            inputs: &mut sh.inputs,
            init_end: &sh.init_end,
            inv: *inv,
            slots,
            ro_inv,
            ro_gen,
            generic: sh.generic.as_ref(),
            id_derived: HashSet::new(),
            not_id_derived: HashSet::new(),
            specs: Vec::new(),
            memo: HashMap::new(),
            work: Vec::new(),
            header_count: HashMap::new(),
            counters: HashMap::new(),
            reserved,
            tmp: 0,
            edges: 0,
            cmp_origin: HashMap::new(),
            prologue: Vec::new(),
            ninstrs: 0,
            cur: m.entry.1,
            cur_succs: Vec::new(),
            logs: access_log::logs_accesses(m),
        })
    }

    fn pos(&self) -> Pos {
        self.m.line(self.cur).pos()
    }

    fn instr(&self, kind: InstrKind, tags: Vec<String>) -> Instr {
        let l = self.m.line(self.cur);
        let mut ins = Instr::new(kind, tags, l.pos(), l.text.clone());
        crate::tagging::finish(crate::ir::Arch::Vulkan, &mut ins);
        ins
    }

    fn push(&mut self, out: &mut Vec<Instr>, kind: InstrKind, tags: Vec<String>) -> R<()> {
        self.ninstrs += 1;
        if self.ninstrs > MAX_INSTRS {
            return Err(Error::unsupported(
                self.pos(),
                format!("translation larger than {MAX_INSTRS} instructions per invocation"),
            )
            .into());
        }
        if self.generic.is_some() {
            self.note_id_derived(&kind);
        }
        out.push(self.instr(kind, tags));
        Ok(())
    }

    /// (generic translation) Keeps `id_derived` up to date with the
    /// register `kind` assigns: computed from the ids and constants alone
    /// (a value the concrete translation of any one invocation knows), or
    /// not — once not, never again.
    fn note_id_derived(&mut self, kind: &InstrKind) {
        let derived = |o: &Operand, set: &HashSet<String>| match o {
            Operand::Const(_) => true,
            Operand::Reg(r) => set.contains(r),
        };
        let (dst, ok) = match kind {
            InstrKind::Input { dst, .. } => (
                dst,
                [GENERIC_SG_LOCAL, GENERIC_SG, GENERIC_WG].contains(&dst.as_str()),
            ),
            InstrKind::Local { dst, a, b, .. } => (
                dst,
                derived(a, &self.id_derived) && derived(b, &self.id_derived),
            ),
            InstrKind::Load { dst, .. } | InstrKind::Havoc { dst, .. } => (dst, false),
            InstrKind::Rmw { dst: Some(dst), .. } => (dst, false),
            _ => return,
        };
        // A loop's fixed register is not (its value changes around the
        // loop), nor one that once was not.
        let once_not = self.not_id_derived.contains(dst.as_str());
        if ok && !once_not && !self.reserved.contains(dst.as_str()) {
            self.id_derived.insert(dst.clone());
        } else {
            self.id_derived.remove(dst.as_str());
            self.not_id_derived.insert(dst.clone());
        }
    }

    /// (generic translation) Whether `v` is known to the concrete
    /// translation of every invocation: a constant, or a register computed
    /// from the ids alone.
    pub(super) fn id_derived(&self, v: &Val) -> bool {
        match v {
            Val::Int(_) => true,
            Val::Reg(r) => self.id_derived.contains(&**r),
            _ => false,
        }
    }

    // ----- names ---------------------------------------------------------

    fn fresh(&mut self, id: Id) -> Rc<str> {
        loop {
            let n = self.counters.entry(id).or_insert(0);
            let name: Rc<str> = if *n == 0 {
                Rc::from(format!("%{}", self.m.display(id)))
            } else {
                Rc::from(format!("%{}#{}", self.m.display(id), n))
            };
            *n += 1;
            if !self.reserved.contains(&name) {
                return name;
            }
        }
    }

    fn fresh_tmp(&mut self) -> Rc<str> {
        self.tmp += 1;
        Rc::from(format!("tmp#{}", self.tmp))
    }

    fn is_slot_reg(&self, v: &Val) -> bool {
        match v {
            Val::Reg(r) => self.reserved.contains(r),
            Val::Comp(xs) => xs.iter().any(|x| self.is_slot_reg(x)),
            _ => false,
        }
    }

    // ----- emission helpers -------------------------------------------------

    fn opnd(&self, v: &Val) -> R<Operand> {
        match v {
            Val::Int(x) => Ok(Operand::Const(*x)),
            Val::Reg(r) => Ok(Operand::Reg(r.to_string())),
            Val::Comp(_) => {
                Err(Error::semantic(self.pos(), "expected a scalar, found a composite").into())
            }
            Val::Ptr(_) | Val::DynPtr(_) => {
                Err(Error::unsupported(self.pos(), "pointer used as an integer").into())
            }
        }
    }

    /// `dst := a op b`, folded when both are known.
    fn local(
        &mut self,
        out: &mut Vec<Instr>,
        dst: &Rc<str>,
        op: BinOp,
        a: &Val,
        b: &Val,
    ) -> R<Val> {
        if let (Val::Int(x), Val::Int(y)) = (a, b) {
            // A constant division by zero is left to the engines: it is
            // undefined behaviour only in the executions that reach it.
            if let Some(v) = fold(op, *x, *y) {
                return Ok(Val::Int(v));
            }
        }
        let (oa, ob) = (self.opnd(a)?, self.opnd(b)?);
        self.push(
            out,
            InstrKind::Local {
                dst: dst.to_string(),
                op,
                a: oa,
                b: ob,
            },
            vec![],
        )?;
        let cmp = match op {
            BinOp::Eq => Some(CmpOp::Eq),
            BinOp::Ne => Some(CmpOp::Ne),
            BinOp::Lt => Some(CmpOp::Lt),
            BinOp::Le => Some(CmpOp::Le),
            BinOp::Gt => Some(CmpOp::Gt),
            BinOp::Ge => Some(CmpOp::Ge),
            _ => None,
        };
        match cmp {
            Some(c)
                if !self.is_slot_reg(a)
                    && !self.is_slot_reg(b)
                    && a != &Val::Reg(dst.clone())
                    && b != &Val::Reg(dst.clone()) =>
            {
                self.cmp_origin
                    .insert(dst.clone(), (c, a.clone(), b.clone()));
            }
            _ => {
                self.cmp_origin.remove(dst);
            }
        }
        Ok(Val::Reg(dst.clone()))
    }

    fn mov(&mut self, out: &mut Vec<Instr>, dst: &Rc<str>, v: &Val) -> R<()> {
        let o = self.opnd(v)?;
        self.cmp_origin.remove(dst);
        self.push(
            out,
            InstrKind::Local {
                dst: dst.to_string(),
                op: BinOp::Add,
                a: o,
                b: Operand::Const(0),
            },
            vec![],
        )
    }

    /// `dst := ` an arbitrary value of type `ty` (an over-approximation:
    /// a value gpumc does not compute).
    fn havoc(&mut self, out: &mut Vec<Instr>, dst: &Rc<str>, ty: ValueType) -> R<()> {
        self.havoc_tagged(out, dst, ty, vec![])
    }

    /// `dst := ` an undefined value of type `ty` (arbitrary in the
    /// program's semantics: [`crate::ir::UNDEFINED_VALUE`]).
    fn undefined(&mut self, out: &mut Vec<Instr>, dst: &Rc<str>, ty: ValueType) -> R<()> {
        let tags = vec![crate::ir::UNDEFINED_VALUE.to_string()];
        self.havoc_tagged(out, dst, ty, tags)
    }

    fn havoc_tagged(
        &mut self,
        out: &mut Vec<Instr>,
        dst: &Rc<str>,
        ty: ValueType,
        tags: Vec<String>,
    ) -> R<()> {
        self.cmp_origin.remove(dst);
        let dst = dst.to_string();
        self.push(out, InstrKind::Havoc { dst, ty }, tags)
    }

    fn sext_v(&mut self, out: &mut Vec<Instr>, dst: &Rc<str>, v: Val, w: u32) -> R<Val> {
        if w >= 64 || w <= 1 {
            return Ok(v);
        }
        if let Val::Int(x) = v {
            return Ok(Val::Int(sext(x, w)));
        }
        let s = Val::Int(i64::from(64 - w));
        let t = self.local(out, dst, BinOp::Shl, &v, &s)?;
        self.local(out, dst, BinOp::Shr, &t, &s)
    }

    fn zext_v(&mut self, out: &mut Vec<Instr>, dst: &Rc<str>, v: Val, w: u32) -> R<Val> {
        if w >= 64 {
            return Ok(v);
        }
        let mask = Val::Int((1i64 << w) - 1);
        self.local(out, dst, BinOp::And, &v, &mask)
    }

    /// Copies any fixed (slot) register inside `v` into fresh registers.
    fn snapshot(&mut self, out: &mut Vec<Instr>, v: Val) -> R<Val> {
        match v {
            Val::Reg(ref r) if self.reserved.contains(r) => {
                let t = self.fresh_tmp();
                self.mov(out, &t, &v)?;
                Ok(Val::Reg(t))
            }
            Val::Comp(xs) => {
                let mut ys = Vec::with_capacity(xs.len());
                for x in xs.iter() {
                    ys.push(self.snapshot(out, x.clone())?);
                }
                Ok(Val::Comp(ys.into()))
            }
            // A pointer kept in a Function variable (OpenCL at -O0): its
            // run-time index is a value like any other.
            Val::DynPtr(d) if self.reserved.contains(&d.index) => {
                let t = self.fresh_tmp();
                self.mov(out, &t, &Val::Reg(d.index.clone()))?;
                let mut d = (*d).clone();
                d.index = t;
                Ok(Val::DynPtr(Rc::new(d)))
            }
            v => Ok(v),
        }
    }

    // ----- values -------------------------------------------------------

    fn global_ptr(&self, id: Id) -> Option<Val> {
        let &(class, _) = self.vars.get(&id)?;
        let region = if class.is_shared() {
            Region::Shared {
                var: id,
                copy: if class == Class::Workgroup {
                    self.inv.wg
                } else {
                    0
                },
            }
        } else if class.is_local() {
            Region::Local { var: id }
        } else {
            Region::ReadOnly { var: id }
        };
        Some(Val::Ptr(Ptr { region, offset: 0 }))
    }

    fn get(&self, st: &State, id: Id, pos: Pos) -> R<Val> {
        if let Some(v) = st.top().env.get(&id) {
            return Ok(v.clone());
        }
        if self.m.is_constant(id) {
            return Ok(self.m.constant(id, pos)?);
        }
        if let Some(p) = self.global_ptr(id) {
            return Ok(p);
        }
        if self.m.def.get(id as usize).copied().flatten().is_none() {
            return Err(
                Error::semantic(pos, format!("`{}` is not defined", self.m.show(id))).into(),
            );
        }
        if self.m.func_of.contains_key(&id) {
            return Err(Error::unsupported(pos, "functions used as values").into());
        }
        Err(Error::semantic(
            pos,
            format!(
                "`{}` is not available here (used outside the blocks its definition dominates)",
                self.m.show(id)
            ),
        )
        .into())
    }

    fn arg(&self, st: &State, li: usize, k: usize) -> R<Val> {
        let id = self.m.arg_id(li, k)?;
        self.get(st, id, self.m.arg_pos(li, k))
    }

    /// What a register operand that must be known depends on.
    fn origin(&self, r: &str) -> &'static str {
        if self.m.undef_line(r).is_some() {
            "an undefined value (`OpUndef`)"
        } else if self.inputs.input_of(r).is_some() {
            "a free input (read-only memory no `@Input` sets)"
        } else {
            "a loaded value"
        }
    }

    fn known(&self, st: &State, li: usize, k: usize, what: &str) -> R<i64> {
        match self.arg(st, li, k)? {
            Val::Int(v) => Ok(v),
            Val::Reg(r) => Err(Error::unsupported(
                self.m.arg_pos(li, k),
                format!("{what} that depends on {}", self.origin(&r)),
            )
            .into()),
            _ => Err(
                Error::semantic(self.m.arg_pos(li, k), format!("{what} must be an integer")).into(),
            ),
        }
    }

    /// The pointee type of the pointer-typed value `id`.
    fn pointee(&self, li: usize, k: usize) -> R<Id> {
        let id = self.m.arg_id(li, k)?;
        let pos = self.m.arg_pos(li, k);
        let t = self.m.type_of(id, pos)?;
        match &*self.m.ty(t, pos)? {
            Type::Pointer { pointee, .. } => Ok(*pointee),
            other => Err(Error::semantic(
                pos,
                format!("expected a pointer, found {}", self.m.describe(other)),
            )
            .into()),
        }
    }

    fn bind(&mut self, st: &mut State, li: usize, v: Val) -> R<()> {
        let id = self.m.result(li)?;
        st.top_mut().env.insert(id, v);
        Ok(())
    }

    /// Scalar width of a result type (vector: of its components).
    fn elem_width(&self, ty: Id, pos: Pos) -> R<(u32, Option<u32>)> {
        match &*self.m.ty(ty, pos)? {
            Type::Vector { elem, n } => Ok((self.m.scalar_width(*elem, pos)?, Some(*n))),
            _ => Ok((self.m.scalar_width(ty, pos)?, None)),
        }
    }

    // ----- driver -----------------------------------------------------

    fn run(mut self) -> R<Vec<Instr>> {
        let init = self.initial_state()?;
        let first = self.spec_for(init)?;
        debug_assert_eq!(first, 0);
        while let Some(k) = self.work.pop() {
            self.process(k)?;
        }
        Ok(self.finish())
    }

    fn initial_state(&mut self) -> R<State> {
        let m = self.m;
        let (entry, _) = m.entry;
        let mut st = State {
            frames: vec![Frame {
                func: entry,
                block: 0,
                idx: 0,
                env: BTreeMap::new(),
                loops: entry_loops(m, entry),
                ret: None,
            }],
            cells: BTreeMap::new(),
            bar: [Val::Int(0), Val::Int(0)],
        };
        if m.functions[entry].blocks.is_empty() {
            return Err(Error::semantic(self.pos(), "the entry point has no body").into());
        }
        if !m.functions[entry].params.is_empty() {
            return Err(Error::semantic(self.pos(), "the entry point takes parameters").into());
        }
        let mut pro = Vec::new();
        for (var, cells) in self.private_init {
            for (off, w, v) in cells {
                st.cells.insert((*var, *off), (*w, v.clone()));
            }
        }
        let private: Vec<Id> = m
            .globals
            .iter()
            .copied()
            .filter(|v| self.vars.get(v).is_some_and(|c| c.0 == Class::Private))
            .collect();
        for var in private {
            if let Some(li) = m.def.get(var as usize).copied().flatten() {
                self.cur = li;
            }
            self.materialize_cells(&mut st, var, &mut pro)?;
        }
        self.cur = m.entry.1;
        if self.generic.is_some() {
            self.generic_prologue(&mut pro)?;
        }
        for i in 0..2 {
            if self.slots.contains(&Slot::Bar(i)) {
                let r: Rc<str> = Rc::from(bar_name(i));
                self.mov(&mut pro, &r, &Val::Int(0))?;
                st.bar[i] = Val::Reg(r);
            }
        }
        self.prologue = pro;
        Ok(st)
    }

    /// The generic invocation's ids: an `Input` each, and the local and
    /// global ids computed from them (`local = sg · X + sg_local`,
    /// `global = wg · W + local`).
    fn generic_prologue(&mut self, out: &mut Vec<Instr>) -> R<()> {
        let g = self.m.settings.grid;
        let [sgl, sg, wg, local, global] = generic_ids(g);
        for (k, v) in [&sgl, &sg, &wg].into_iter().enumerate() {
            if let Val::Reg(r) = v {
                self.push(
                    out,
                    InstrKind::Input {
                        dst: r.to_string(),
                        input: GENERIC_ID_INPUT + k,
                    },
                    vec![],
                )?;
            }
        }
        for (dst, hi, size, lo) in [
            (&local, &sg, g.threads_per_sg, &sgl),
            (&global, &wg, g.wg_size(), &local),
        ] {
            if let Val::Reg(d) = dst {
                let t = self.fresh_tmp();
                let scaled = self.local(out, &t, BinOp::Mul, hi, &Val::Int(i64::from(size)))?;
                self.local(out, d, BinOp::Add, &scaled, lo)?;
            }
        }
        if let Some((l, n)) = g.dims {
            self.generic_coordinates(out, &local, &wg, l, n)?;
        }
        Ok(())
    }

    /// The coordinates of the generic invocation's ids in a grid of
    /// several dimensions (`@Dims`), numbered x first: `inv.local.0` =
    /// local mod X, `inv.local.1` = (local / X) mod Y, …; the global id's
    /// `wg.d · L_d + local.d`, and its linear id (`inv.global.linear`).
    fn generic_coordinates(
        &mut self,
        out: &mut Vec<Instr>,
        local: &Val,
        wg: &Val,
        l: [u32; 3],
        n: [u32; 3],
    ) -> R<()> {
        let mut coords = |me: &mut Self, id: &str, flat: &Val, extent: [u32; 3]| -> R<[Val; 3]> {
            let mut xs = [Val::Int(0), Val::Int(0), Val::Int(0)];
            let mut below = 1i64;
            for d in 0..3 {
                let Val::Reg(r) = generic_coordinate(id, d, extent[d]) else {
                    below *= i64::from(extent[d]);
                    continue;
                };
                let t = me.fresh_tmp();
                let shifted = me.local(out, &t, BinOp::Udiv, flat, &Val::Int(below))?;
                xs[d] = if d < 2 {
                    me.local(
                        out,
                        &r,
                        BinOp::Urem,
                        &shifted,
                        &Val::Int(i64::from(extent[d])),
                    )?
                } else {
                    me.mov(out, &r, &shifted)?;
                    Val::Reg(r)
                };
                below *= i64::from(extent[d]);
            }
            Ok(xs)
        };
        let lc = coords(self, GENERIC_LOCAL, local, l)?;
        let wc = coords(self, GENERIC_WG, wg, n)?;
        let size = global_extent(l, n);
        let mut global = Vec::new();
        for d in 0..3 {
            let Val::Reg(r) = generic_coordinate(GENERIC_GLOBAL, d, size[d]) else {
                global.push(Val::Int(0));
                continue;
            };
            let t = self.fresh_tmp();
            let scaled = self.local(out, &t, BinOp::Mul, &wc[d], &Val::Int(i64::from(l[d])))?;
            global.push(self.local(out, &r, BinOp::Add, &scaled, &lc[d])?);
        }
        // Linear: (z · SY + y) · SX + x.
        let t = self.fresh_tmp();
        let zy = self.local(
            out,
            &t,
            BinOp::Mul,
            &global[2],
            &Val::Int(i64::from(size[1])),
        )?;
        let t = self.fresh_tmp();
        let zy = self.local(out, &t, BinOp::Add, &zy, &global[1])?;
        let t = self.fresh_tmp();
        let zyx = self.local(out, &t, BinOp::Mul, &zy, &Val::Int(i64::from(size[0])))?;
        let linear: Rc<str> = Rc::from(GENERIC_GLOBAL_LINEAR);
        let sum = self.local(out, &linear, BinOp::Add, &zyx, &global[0])?;
        if sum != Val::Reg(linear.clone()) {
            self.mov(out, &linear, &sum)?;
        }
        Ok(())
    }

    /// Moves generalised cells of `var` into their registers.
    fn materialize_cells(&mut self, st: &mut State, var: Id, out: &mut Vec<Instr>) -> R<()> {
        let mut gen: Vec<(u64, u32)> = self
            .slots
            .iter()
            .filter_map(|s| match s {
                Slot::Cell(v, off, w) if *v == var => Some((*off, *w)),
                _ => None,
            })
            .collect();
        gen.sort_unstable();
        for (off, w) in gen {
            let r: Rc<str> = Rc::from(format!("%{}+{off}", self.m.display(var)));
            match st.cells.get(&(var, off)) {
                Some(c) => {
                    let cur = c.1.clone();
                    self.mov(out, &r, &cur)?;
                }
                // Never written: an arbitrary value.
                None => self.undefined(out, &r, value_type(w))?,
            }
            st.cells.insert((var, off), (w, Val::Reg(r)));
        }
        Ok(())
    }

    fn spec_for(&mut self, st: State) -> R<usize> {
        if let Some(&k) = self.memo.get(&st) {
            return Ok(k);
        }
        let k = self.specs.len();
        if k >= MAX_SPECS {
            return Err(Error::unsupported(
                self.pos(),
                format!("translation needing more than {MAX_SPECS} specialised blocks"),
            )
            .into());
        }
        let fr = st.top();
        let f = &self.m.functions[fr.func];
        if f.cfg.is_header(fr.block) {
            *self.header_count.entry((fr.func, fr.block)).or_insert(0) += 1;
        }
        let blk = &f.blocks[fr.block];
        let line = blk.body.get(fr.idx).copied().unwrap_or(blk.line);
        self.memo.insert(st.clone(), k);
        self.specs.push(Spec {
            state: st,
            chunk: Vec::new(),
            succs: Vec::new(),
            order: (line, k),
        });
        self.work.push(k);
        Ok(k)
    }

    fn process(&mut self, k: usize) -> R<()> {
        let mut st = self.specs[k].state.clone();
        self.cur_succs.clear();
        {
            let fr = st.top_mut();
            let f = &self.m.functions[fr.func];
            self.cur = f.blocks[fr.block].line;
            if fr.idx == 0 && f.cfg.is_header(fr.block) {
                if let Some(e) = fr.loops.last_mut() {
                    if e.header == fr.block && e.spec.is_none() {
                        e.spec = Some(k);
                    }
                }
            }
        }
        let mut chunk = vec![self.instr(InstrKind::Label(label(k)), vec![])];
        while let Cont::Inline(ns) = self.run_block(st, &mut chunk)? {
            st = ns;
        }
        self.specs[k].chunk = chunk;
        self.specs[k].succs = std::mem::take(&mut self.cur_succs);
        Ok(())
    }

    fn goto(&mut self, out: &mut Vec<Instr>, k: usize) -> R<()> {
        self.cur_succs.push(k);
        self.push(out, InstrKind::Goto(label(k)), vec![])
    }

    /// A call of our header's `__gpumc_assume(c)` or `__gpumc_requires(c)`:
    /// when `c` is 0, the execution does not exist (an assumption, or the
    /// kernel's own precondition) or is undefined behaviour (a called
    /// function's precondition, checked at the call).
    fn assumption(
        &mut self,
        st: &mut State,
        li: usize,
        resume: usize,
        what: &str,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let cond = self.arg(st, li, 2)?;
        let cond = self.opnd(&cond)?;
        let m = self.m;
        let name = |fi: usize| {
            (m.func_of.iter())
                .find(|&(_, &i)| i == fi)
                .map_or("?", |(&id, _)| m.linkage_name(id))
        };
        let caller = name(st.top().func);
        // The call is made from the kernel itself: from the entry point,
        // or from the function of the kernel's name (llvm-spirv makes the
        // entry point a wrapper that calls it; C names are unique).
        let entry_name = match m.line(m.entry.1).args.get(2).map(|t| &t.kind) {
            Some(super::lex::Kind::Str(s)) => s.as_str(),
            _ => "",
        };
        let kernel = st.frames.len() == 1 || caller == entry_name;
        if what == GLOBAL_REQUIRES && !kernel {
            return Err(Error::unsupported(
                self.pos(),
                format!("GPUVerify's `__global_requires` in a called function (`{caller}`): a precondition on threads that do not call it"),
            )
            .into());
        }
        st.top_mut().idx = resume;
        self.edges += 1;
        let holds = format!("E{}", self.edges);
        let branch = InstrKind::Branch {
            op: CmpOp::Ne,
            a: cond,
            b: Operand::Const(0),
            target: holds.clone(),
        };
        self.push(out, branch, vec![])?;
        let fails = if what == ASSUME || kernel {
            InstrKind::Infeasible
        } else {
            let cause = format!("a precondition of `{caller}` fails at a call (`__requires`)");
            InstrKind::Unreachable { cause: Some(cause) }
        };
        self.push(out, fails, vec![])?;
        self.push(out, InstrKind::Label(holds), vec![])
    }

    /// Runs the top frame from its position to the block's terminator.
    fn run_block(&mut self, mut st: State, out: &mut Vec<Instr>) -> R<Cont> {
        'frames: loop {
            let (fi, b, idx) = {
                let fr = st.top();
                (fr.func, fr.block, fr.idx)
            };
            let body = &self.m.functions[fi].blocks[b].body;
            let n = body.len();
            let mut i = idx;
            while i < n {
                let li = body[i];
                self.cur = li;
                if i + 1 == n {
                    return self.terminator(st, li, out);
                }
                match self.m.line(li).opcode.as_str() {
                    "OpPhi" => {}
                    "OpFunctionCall" => {
                        self.call(&mut st, li, i + 1, out)?;
                        continue 'frames;
                    }
                    _ => self.exec(&mut st, li, out)?,
                }
                i += 1;
            }
            return Err(Error::semantic(self.pos(), "block without a terminator").into());
        }
    }

    fn call(&mut self, st: &mut State, li: usize, resume: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let f = m.arg_id(li, 1)?;
        let fi = *m.func_of.get(&f).ok_or_else(|| {
            Error::semantic(
                m.arg_pos(li, 1),
                format!("`{}` is not a function", m.show(f)),
            )
        })?;
        if st.frames.iter().any(|fr| fr.func == fi) {
            return Err(Error::unsupported(self.pos(), "recursive function calls").into());
        }
        if st.frames.len() >= MAX_DEPTH {
            return Err(Error::unsupported(self.pos(), "calls nested deeper than 32").into());
        }
        let params = &m.functions[fi].params;
        let nargs = m.nargs(li) - 2;
        if nargs != params.len() {
            return Err(Error::semantic(
                self.pos(),
                format!(
                    "`{}` takes {} arguments, {} given",
                    m.show(f),
                    params.len(),
                    nargs
                ),
            )
            .into());
        }
        if m.functions[fi].blocks.is_empty() {
            let name = m.linkage_name(f);
            if name == ASSERTION_FAILS {
                // `__assert(c)` of GPUVerify's annotations, through our
                // OpenCL header: reaching the call fails the check.
                st.top_mut().idx = resume;
                let cause = Some("assertion fails (`__assert`)".to_string());
                return self.push(out, InstrKind::Unreachable { cause }, vec![]);
            }
            if [ASSUME, REQUIRES, GLOBAL_REQUIRES].contains(&name) {
                return self.assumption(st, li, resume, name, out);
            }
            if name == access_log::ACCESS_LOG {
                st.top_mut().idx = resume;
                return self.log_query(st, li, out);
            }
            // A function without a body (declared, never defined, as
            // GPUVerify's `nondet()` idiom): its result is free and it is
            // assumed to touch no memory (the report says so, see
            // `bodiless_note` in `mod.rs`). Under that stated assumption
            // every result is a behaviour, so what depends on it may be
            // confirmed.
            st.top_mut().idx = resume;
            let rty = m.arg_id(li, 0)?;
            if matches!(&*m.ty(rty, self.pos())?, Type::Void) {
                return Ok(());
            }
            return self.arbitrary_result(st, li, true, out);
        }
        let mut env = BTreeMap::new();
        for (k, &p) in params.iter().enumerate() {
            env.insert(p, self.arg(st, li, k + 2)?);
        }
        let rid = m.result(li)?;
        st.top_mut().idx = resume;
        st.frames.push(Frame {
            func: fi,
            block: 0,
            idx: 0,
            env,
            loops: entry_loops(m, fi),
            ret: Some(rid),
        });
        Ok(())
    }

    // ----- control flow ------------------------------------------------

    fn block_index(&self, st: &State, li: usize, k: usize) -> R<usize> {
        let id = self.m.arg_id(li, k)?;
        let f = &self.m.functions[st.top().func];
        f.block_of.get(&id).copied().ok_or_else(|| {
            Flow::Err(Error::semantic(
                self.m.arg_pos(li, k),
                format!("`{}` is not a block of this function", self.m.show(id)),
            ))
        })
    }

    fn terminator(&mut self, st: State, li: usize, out: &mut Vec<Instr>) -> R<Cont> {
        let op = self.m.line(li).opcode.clone();
        match op.as_str() {
            "OpBranch" => {
                let t = self.block_index(&st, li, 0)?;
                self.jump(st, t, out)
            }
            "OpBranchConditional" => {
                let c = self.arg(&st, li, 0)?;
                let t = self.block_index(&st, li, 1)?;
                let f = self.block_index(&st, li, 2)?;
                match c {
                    Val::Int(x) => self.jump(st, if x != 0 { t } else { f }, out),
                    Val::Reg(r) => {
                        if t == f {
                            return self.jump(st, t, out);
                        }
                        let (op, a, b) = match self.cmp_origin.get(&r) {
                            Some((op, a, b)) => (*op, self.opnd(a)?, self.opnd(b)?),
                            None => (CmpOp::Ne, Operand::Reg(r.to_string()), Operand::Const(0)),
                        };
                        let st = self.mark_unknown_exit(st, &[t, f]);
                        let cases = vec![(op, a, b, t)];
                        self.multiway(st, cases, f, out)
                    }
                    _ => Err(
                        Error::semantic(self.m.arg_pos(li, 0), "condition must be a boolean")
                            .into(),
                    ),
                }
            }
            "OpSwitch" => {
                let sel = self.arg(&st, li, 0)?;
                let pos0 = self.m.arg_pos(li, 0);
                let sel_ty = self.m.type_of(self.m.arg_id(li, 0)?, pos0)?;
                let w = self.m.scalar_width(sel_ty, pos0)?;
                let default = self.block_index(&st, li, 1)?;
                let mut cases = Vec::new();
                let mut k = 2;
                while k < self.m.nargs(li) {
                    let lit = super::value::canon_lit(self.m.arg_lit(li, k)?, w);
                    let t = self.block_index(&st, li, k + 1)?;
                    cases.push((lit, t));
                    k += 2;
                }
                match sel {
                    Val::Int(x) => {
                        let t = cases.iter().find(|(l, _)| *l == x).map_or(default, |c| c.1);
                        self.jump(st, t, out)
                    }
                    Val::Reg(r) => {
                        let mut targets: Vec<usize> = cases.iter().map(|c| c.1).collect();
                        targets.push(default);
                        let st = self.mark_unknown_exit(st, &targets);
                        let cases = cases
                            .into_iter()
                            .map(|(l, t)| {
                                (CmpOp::Eq, Operand::Reg(r.to_string()), Operand::Const(l), t)
                            })
                            .collect();
                        self.multiway(st, cases, default, out)
                    }
                    _ => Err(Error::semantic(pos0, "selector must be an integer").into()),
                }
            }
            "OpReturn" | "OpReturnValue" => {
                let v = if op == "OpReturnValue" {
                    let v = self.arg(&st, li, 0)?;
                    Some(self.snapshot(out, v)?)
                } else {
                    None
                };
                self.ret(st, v, out)
            }
            "OpUnreachable" => {
                self.push(out, InstrKind::Unreachable { cause: None }, vec![])?;
                Ok(Cont::Done)
            }
            _ => Err(Error::unsupported(
                self.pos(),
                format!("opcode `{}`", crate::diag::excerpt(&op)),
            )
            .into()),
        }
    }

    fn ret(&mut self, mut st: State, v: Option<Val>, out: &mut Vec<Instr>) -> R<Cont> {
        let fr = st.frames.pop().expect("a frame");
        let callee = &self.m.functions[fr.func];
        st.cells.retain(|(var, _), _| !callee.vars.contains(var));
        if st.frames.is_empty() {
            self.push(out, InstrKind::Goto(END.into()), vec![])?;
            return Ok(Cont::Done);
        }
        if let (Some(rid), Some(v)) = (fr.ret, v) {
            st.top_mut().env.insert(rid, v);
        }
        Ok(Cont::Inline(st))
    }

    /// Flags enclosing loops that a branch to `targets` may leave.
    fn mark_unknown_exit(&self, mut st: State, targets: &[usize]) -> State {
        let fr = st.top_mut();
        let cfg = &self.m.functions[fr.func].cfg;
        for e in fr.loops.iter_mut() {
            if targets.iter().any(|&t| !cfg.in_loop(e.header, t)) {
                e.exit_unknown = true;
            }
        }
        st
    }

    fn jump(&mut self, st: State, t: usize, out: &mut Vec<Instr>) -> R<Cont> {
        match self.transfer(&st, t, out, false)? {
            Target::Inline(ns) => Ok(Cont::Inline(ns)),
            Target::Spec(k) => {
                self.goto(out, k)?;
                Ok(Cont::Done)
            }
        }
    }

    /// `if cmp goto t_i` for each case, else `default`.
    fn multiway(
        &mut self,
        st: State,
        cases: Vec<(CmpOp, Operand, Operand, usize)>,
        default: usize,
        out: &mut Vec<Instr>,
    ) -> R<Cont> {
        let line = self.cur;
        let mut tails: Vec<(String, Vec<Instr>, usize)> = Vec::new();
        for (op, a, b, t) in cases {
            let mut edge = Vec::new();
            let k = self.forced(&st, t, &mut edge)?;
            self.cur = line;
            let target = if edge.is_empty() {
                self.cur_succs.push(k);
                label(k)
            } else {
                self.edges += 1;
                let l = format!("E{}", self.edges);
                tails.push((l.clone(), edge, k));
                l
            };
            self.push(out, InstrKind::Branch { op, a, b, target }, vec![])?;
        }
        let mut edge = Vec::new();
        let k = self.forced(&st, default, &mut edge)?;
        self.cur = line;
        out.extend(edge);
        self.goto(out, k)?;
        for (l, edge, k) in tails {
            self.push(out, InstrKind::Label(l), vec![])?;
            out.extend(edge);
            self.goto(out, k)?;
        }
        Ok(Cont::Done)
    }

    /// The spec of an edge target (never inlined).
    fn forced(&mut self, st: &State, t: usize, edge: &mut Vec<Instr>) -> R<usize> {
        match self.transfer(st, t, edge, true)? {
            Target::Spec(k) => Ok(k),
            Target::Inline(_) => {
                Err(Error::semantic(self.pos(), "internal: edge not specialised").into())
            }
        }
    }

    /// Moves the top frame from its block to block `t` (phis, loops,
    /// pruning), emitting edge moves into `edge`.
    fn transfer(&mut self, st: &State, t: usize, edge: &mut Vec<Instr>, force: bool) -> R<Target> {
        let m = self.m;
        let fr = st.top();
        let fi = fr.func;
        let f = &m.functions[fi];
        let cfg = &f.cfg;
        let s = fr.block;
        let s_label = f.blocks[s].label;
        // Phi values along this edge.
        let mut phis = Vec::new();
        for &pli in &cfg.phis[t] {
            let pid = m.result(pli)?;
            let mut found = None;
            let mut k = 1;
            while k + 1 < m.nargs(pli) {
                let pred = m.arg_id(pli, k + 1)?;
                if pred == s_label {
                    let vid = m.arg_id(pli, k)?;
                    found = Some(self.get(st, vid, m.arg_pos(pli, k))?);
                    break;
                }
                k += 2;
            }
            let v = found.ok_or_else(|| {
                Error::semantic(
                    m.line(pli).pos(),
                    format!("`OpPhi` has no value for predecessor `{}`", m.show(s_label)),
                )
            })?;
            phis.push((pid, v, pli));
        }
        let mut ns = st.clone();
        let nf = ns.top_mut();
        nf.block = t;
        nf.idx = 0;
        nf.env.retain(|id, _| {
            f.params.contains(id)
                || cfg
                    .def_block
                    .get(id)
                    .is_some_and(|&d| cfg.strictly_dominates(d, t))
        });
        let mut moves: Vec<(Rc<str>, Val, usize)> = Vec::new();
        for (pid, v, pli) in phis {
            if self.slots.contains(&Slot::Phi(fi, pid)) {
                let base = format!("%{}", m.display(pid));
                let sv = slot_val(&base, &v, m.line(pli).pos())?;
                collect_moves(&sv, &v, pli, &mut moves);
                nf.env.insert(pid, sv);
            } else {
                nf.env.insert(pid, v);
            }
        }
        // Parallel copy.
        if !moves.is_empty() {
            let dsts: HashSet<&str> = moves.iter().map(|(d, _, _)| &**d).collect();
            let clash = moves
                .iter()
                .any(|(_, v, _)| matches!(v, Val::Reg(r) if dsts.contains(&**r)));
            if clash {
                let mut tmps = Vec::new();
                for (_, v, pli) in &moves {
                    self.cur = *pli;
                    let tmp = self.fresh_tmp();
                    self.mov(edge, &tmp, v)?;
                    tmps.push(Val::Reg(tmp));
                }
                for ((d, _, pli), tv) in moves.iter().zip(tmps) {
                    self.cur = *pli;
                    self.mov(edge, d, &tv)?;
                }
            } else {
                for (d, v, pli) in &moves {
                    self.cur = *pli;
                    self.mov(edge, d, v)?;
                }
            }
        }
        // Loops.
        let back =
            cfg.is_header(t) && cfg.in_loop(t, s) && nf.loops.last().is_some_and(|e| e.header == t);
        while let Some(e) = nf.loops.last() {
            if cfg.in_loop(e.header, t) {
                break;
            }
            nf.loops.pop();
        }
        if cfg.is_header(t) && !back {
            nf.loops.push(LoopEntry {
                header: t,
                spec: None,
                exit_unknown: false,
            });
        }
        if back {
            let e = nf.loops.last_mut().expect("loop entry");
            let (hk, flag) = (e.spec, e.exit_unknown);
            e.spec = None;
            e.exit_unknown = false;
            let over = self.header_count.get(&(fi, t)).copied().unwrap_or(0) > UNROLL_LIMIT;
            if flag || over {
                let Some(hk) = hk else {
                    return Ok(Target::Spec(self.spec_for(ns)?));
                };
                if self.specs[hk].state == ns {
                    return Ok(Target::Spec(hk));
                }
                let diff = self.diff(&self.specs[hk].state, &ns, fi, t);
                if diff.is_empty() {
                    return Err(Error::unsupported(
                        m.line(f.blocks[t].line).pos(),
                        "a loop whose state cannot be generalised",
                    )
                    .into());
                }
                return Err(Flow::Restart(diff));
            }
            return Ok(Target::Spec(self.spec_for(ns)?));
        }
        if force || cfg.join[t] {
            Ok(Target::Spec(self.spec_for(ns)?))
        } else {
            Ok(Target::Inline(ns))
        }
    }

    /// State differences between two entries of loop header `t`.
    fn diff(&self, a: &State, b: &State, fi: usize, t: usize) -> Vec<Slot> {
        let mut out = Vec::new();
        let cfg = &self.m.functions[fi].cfg;
        let (fa, fb) = (a.top(), b.top());
        for &pli in &cfg.phis[t] {
            if let Ok(pid) = self.m.result(pli) {
                if fa.env.get(&pid) != fb.env.get(&pid) {
                    out.push(Slot::Phi(fi, pid));
                }
            }
        }
        let keys: std::collections::BTreeSet<&(Id, u64)> =
            a.cells.keys().chain(b.cells.keys()).collect();
        for key in keys {
            let (ca, cb) = (a.cells.get(key), b.cells.get(key));
            if ca != cb {
                let w = ca.or(cb).map_or(32, |c| c.0);
                out.push(Slot::Cell(key.0, key.1, w));
            }
        }
        for i in 0..2 {
            if a.bar[i] != b.bar[i] {
                out.push(Slot::Bar(i));
            }
        }
        out.retain(|s| !self.slots.contains(s));
        out
    }

    // ----- instructions ---------------------------------------------

    fn exec(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let op = m.line(li).opcode.clone();
        let pos = m.line(li).pos();
        match op.as_str() {
            "OpVariable" => {
                // Function-storage variable (globals never reach here).
                let var = m.result(li)?;
                let pty = m.arg_id(li, 0)?;
                let pointee = match &*m.ty(pty, pos)? {
                    Type::Pointer { pointee, .. } => *pointee,
                    _ => {
                        return Err(
                            Error::semantic(m.arg_pos(li, 0), "expected a pointer type").into()
                        )
                    }
                };
                st.cells.retain(|(v, _), _| *v != var);
                if m.nargs(li) > 2 {
                    let init = self.arg(st, li, 2)?;
                    let mut cells = Vec::new();
                    layout::flatten_val(m, pointee, &init, 0, pos, &mut cells, 0)?;
                    for (off, w, v) in cells {
                        st.cells.insert((var, off), (w, v));
                    }
                }
                self.materialize_cells(st, var, out)?;
                st.top_mut().env.insert(
                    var,
                    Val::Ptr(Ptr {
                        region: Region::Local { var },
                        offset: 0,
                    }),
                );
                Ok(())
            }
            "OpAccessChain"
            | "OpInBoundsAccessChain"
            | "OpPtrAccessChain"
            | "OpInBoundsPtrAccessChain" => self.access_chain(st, li, &op, out),
            "OpLoad" => {
                let rid = m.result(li)?;
                let rty = m.arg_id(li, 0)?;
                let p = self.ptr_any(st, li, 1)?;
                let tags = self.access_tags(st, li, 2, p.region(), false)?;
                let v = self.load(st, p, rty, tags, rid, out)?;
                self.bind(st, li, v)
            }
            "OpStore" => {
                let p = self.ptr_any(st, li, 0)?;
                let ty = self.pointee(li, 0)?;
                let v = self.arg(st, li, 1)?;
                let tags = self.access_tags(st, li, 2, p.region(), true)?;
                self.store(st, p, ty, v, tags, out)
            }
            // OpenCL's generic pointers: a cast keeps the pointer (the
            // region it points into decides the access's storage class).
            "OpCopyObject" | "OpPtrCastToGeneric" | "OpGenericCastToPtr" => {
                let v = self.arg(st, li, 1)?;
                self.bind(st, li, v)
            }
            "OpConvertPtrToU" => self.ptr_to_int(st, li, out),
            "OpSampledImage"
            | "OpImageRead"
            | "OpImageWrite"
            | "OpImageSampleExplicitLod"
            | "OpImageFetch"
            | "OpImageQuerySize"
            | "OpImageQuerySizeLod"
            | "OpImageQueryFormat"
            | "OpImageQueryOrder"
            | "OpImageQueryLevels" => self.image_op(st, li, &op, out),
            "OpConvertUToPtr" => self.int_to_ptr(st, li),
            // Lifetime markers of `Function` variables: no behaviour.
            "OpLifetimeStart" | "OpLifetimeStop" => Ok(()),
            "OpCopyMemorySized" => self.copy_memory(st, li, out),
            "OpAtomicLoad"
            | "OpAtomicStore"
            | "OpAtomicExchange"
            | "OpAtomicCompareExchange"
            | "OpAtomicIIncrement"
            | "OpAtomicIDecrement"
            | "OpAtomicIAdd"
            | "OpAtomicISub"
            | "OpAtomicSMin"
            | "OpAtomicSMax"
            | "OpAtomicUMin"
            | "OpAtomicUMax"
            | "OpAtomicAnd"
            | "OpAtomicOr"
            | "OpAtomicXor" => self.atomic(st, li, &op, out),
            "OpControlBarrier" => self.control_barrier(st, li, out),
            "OpMemoryBarrier" => {
                let scope = self.known(st, li, 0, "memory scope")?;
                let bits = self.known(st, li, 1, "memory semantics")?;
                let sem = tags::semantics(bits, m.arg_pos(li, 1))?;
                let mut t = Tags::default();
                t.add("F");
                tags::order_tags(&mut t, sem, Access::Fence);
                if let Some(s) = tags::scope_tag(scope, m.arg_pos(li, 0))? {
                    t.add(s);
                }
                tags::sem_tags(&mut t, sem);
                self.push(out, InstrKind::Fence, t.0)
            }
            "OpExtInst" => self.ext_inst(st, li, out),
            _ if collective::OPS.contains(&op.as_str()) => self.group_op(st, li, &op, out),
            _ if super::module::FLOAT_OPS.contains(&op.as_str()) => self.free_result(st, li, out),
            "OpCompositeExtract" => {
                let mut v = self.arg(st, li, 1)?;
                for k in 2..m.nargs(li) {
                    let i = m.arg_lit(li, k)?;
                    v = match v {
                        Val::Comp(xs) if i >= 0 && (i as usize) < xs.len() => {
                            xs[i as usize].clone()
                        }
                        _ => {
                            return Err(
                                Error::semantic(m.arg_pos(li, k), "index out of range").into()
                            )
                        }
                    };
                }
                self.bind(st, li, v)
            }
            "OpCompositeInsert" => {
                let object = self.arg(st, li, 1)?;
                let composite = self.arg(st, li, 2)?;
                let mut path = Vec::new();
                for k in 3..m.nargs(li) {
                    path.push((m.arg_lit(li, k)?, m.arg_pos(li, k)));
                }
                let v = insert(object, &path, composite)?;
                self.bind(st, li, v)
            }
            "OpCompositeConstruct" => {
                let rty = m.arg_id(li, 0)?;
                let is_vec = matches!(&*m.ty(rty, pos)?, Type::Vector { .. });
                let mut xs = Vec::new();
                for k in 1..m.nargs(li) {
                    match self.arg(st, li, k)? {
                        Val::Comp(ys) if is_vec => xs.extend(ys.iter().cloned()),
                        v => xs.push(v),
                    }
                }
                self.bind(st, li, Val::Comp(xs.into()))
            }
            "OpVectorShuffle" => {
                let a = self.arg(st, li, 1)?;
                let b = self.arg(st, li, 2)?;
                let mut all: Vec<Val> = Vec::new();
                for v in [a, b] {
                    match v {
                        Val::Comp(xs) => all.extend(xs.iter().cloned()),
                        _ => return Err(Error::semantic(pos, "expected vectors").into()),
                    }
                }
                let mut xs = Vec::new();
                let mut base: Option<Rc<str>> = None;
                for k in 3..m.nargs(li) {
                    let i = m.arg_lit(li, k)?;
                    if i == 0xFFFF_FFFF {
                        // An undefined component: an arbitrary value.
                        let b = match &base {
                            Some(b) => b.clone(),
                            None => {
                                let b = self.fresh(m.result(li)?);
                                base = Some(b.clone());
                                b
                            }
                        };
                        let r: Rc<str> = Rc::from(format!("{b}.{}", k - 3));
                        let (w, _) = self.elem_width(m.arg_id(li, 0)?, pos)?;
                        self.undefined(out, &r, value_type(w))?;
                        xs.push(Val::Reg(r));
                    } else {
                        let v = usize::try_from(i)
                            .ok()
                            .and_then(|i| all.get(i))
                            .cloned()
                            .ok_or_else(|| {
                                Error::semantic(m.arg_pos(li, k), "component index out of range")
                            })?;
                        xs.push(v);
                    }
                }
                self.bind(st, li, Val::Comp(xs.into()))
            }
            "OpVectorExtractDynamic" => {
                let v = self.arg(st, li, 1)?;
                let i = self.index(st, li, 2)?;
                let x = match v {
                    Val::Comp(xs) => usize::try_from(i).ok().and_then(|i| xs.get(i).cloned()),
                    _ => None,
                }
                .ok_or_else(|| Error::semantic(m.arg_pos(li, 2), "component index out of range"))?;
                self.bind(st, li, x)
            }
            "OpVectorInsertDynamic" => {
                let v = self.arg(st, li, 1)?;
                let c = self.arg(st, li, 2)?;
                let i = self.index(st, li, 3)?;
                let v = insert(c, &[(i as i128, m.arg_pos(li, 3))], v)?;
                self.bind(st, li, v)
            }
            "OpSelect" => {
                let rid = m.result(li)?;
                let c = self.arg(st, li, 1)?;
                let a = self.arg(st, li, 2)?;
                let b = self.arg(st, li, 3)?;
                let dst = self.fresh(rid);
                let v = self.select(out, &dst, &c, &a, &b, 0)?;
                self.bind(st, li, v)
            }
            "OpUConvert" | "OpSConvert" | "OpBitcast" => self.convert(st, li, &op, out),
            _ => self.arith(st, li, &op, out),
        }
    }

    /// A known component index (of a vector value in registers).
    fn index(&self, st: &State, li: usize, k: usize) -> R<i64> {
        match self.arg(st, li, k)? {
            Val::Int(v) => Ok(v),
            Val::Reg(r) => {
                let why = if self.reserved.contains(&r) {
                    " (a loop counter of a loop that a loaded value may leave)"
                } else {
                    ""
                };
                Err(Error::unsupported(
                    self.m.arg_pos(li, k),
                    format!(
                        "vector component index that depends on {}{why}",
                        self.origin(&r)
                    ),
                )
                .into())
            }
            _ => Err(Error::semantic(self.m.arg_pos(li, k), "index must be an integer").into()),
        }
    }

    fn select(
        &mut self,
        out: &mut Vec<Instr>,
        dst: &Rc<str>,
        c: &Val,
        a: &Val,
        b: &Val,
        depth: u32,
    ) -> R<Val> {
        if depth > 16 {
            return Err(
                Error::unsupported(self.pos(), "select of deeply nested composites").into(),
            );
        }
        match (c, a, b) {
            (Val::Int(x), _, _) => Ok(if *x != 0 { a.clone() } else { b.clone() }),
            (_, _, _) if a == b => Ok(a.clone()),
            (Val::Comp(cs), Val::Comp(xs), Val::Comp(ys))
                if cs.len() == xs.len() && xs.len() == ys.len() =>
            {
                let mut zs = Vec::new();
                for (i, ((c, x), y)) in cs.iter().zip(xs.iter()).zip(ys.iter()).enumerate() {
                    let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                    zs.push(self.select(out, &d, c, x, y, depth + 1)?);
                }
                Ok(Val::Comp(zs.into()))
            }
            (Val::Reg(_), Val::Comp(xs), Val::Comp(ys)) if xs.len() == ys.len() => {
                let mut zs = Vec::new();
                for (i, (x, y)) in xs.iter().zip(ys.iter()).enumerate() {
                    let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                    zs.push(self.select(out, &d, c, x, y, depth + 1)?);
                }
                Ok(Val::Comp(zs.into()))
            }
            (Val::Reg(_), Val::Int(_) | Val::Reg(_), Val::Int(_) | Val::Reg(_)) => {
                // b + (a - b) * c, exact in wrapping arithmetic.
                let d = self.local(out, dst, BinOp::Sub, a, b)?;
                let d = self.local(out, dst, BinOp::Mul, &d, c)?;
                self.local(out, dst, BinOp::Add, &d, b)
            }
            (Val::Reg(_), Val::Ptr(_) | Val::DynPtr(_), _)
            | (Val::Reg(_), _, Val::Ptr(_) | Val::DynPtr(_)) => self.select_ptr(out, c, a, b),
            _ => Err(Error::semantic(self.pos(), "operands of a select do not match").into()),
        }
    }

    // ----- memory ---------------------------------------------------------

    /// `what` through the null or an undefined pointer (`r`): undefined
    /// behaviour where it is reached (GPUVerify reports a possible null
    /// pointer access).
    fn null_access(&mut self, out: &mut Vec<Instr>, what: &str, r: Region) -> R<()> {
        let which = match r {
            Region::Undefined => "an undefined",
            _ => "a null",
        };
        let cause = Some(format!(
            "{what} through {which} pointer (`{}`)",
            crate::diag::excerpt(&self.m.line(self.cur).text)
        ));
        self.push(out, InstrKind::Unreachable { cause }, vec![])
    }

    fn class_of(&self, r: Region) -> Class {
        let var = r.var();
        self.vars.get(&var).map_or(Class::Function, |c| c.0)
    }

    /// Tags of a non-atomic access from its memory operands (starting at
    /// operand `k`): `SCn`, and `AV`/`VIS`/`NONPRIV` with the scope.
    fn access_tags(
        &self,
        st: &State,
        li: usize,
        k: usize,
        region: Region,
        store: bool,
    ) -> R<Vec<String>> {
        let m = self.m;
        let mut t = Tags::default();
        let mut av = None;
        let mut vis = None;
        let mut nonpriv = false;
        if k < m.nargs(li) {
            let mask_pos = m.arg_pos(li, k);
            let word = m.arg_word(li, k)?;
            let mut bits: Vec<String> = Vec::new();
            if let Ok(n) = word.parse::<i64>() {
                for (b, name) in [
                    (0x1, "Volatile"),
                    (0x2, "Aligned"),
                    (0x4, "Nontemporal"),
                    (0x8, "MakePointerAvailable"),
                    (0x10, "MakePointerVisible"),
                    (0x20, "NonPrivatePointer"),
                ] {
                    if n & b != 0 {
                        bits.push(name.to_string());
                    }
                }
                if n & !0x3F != 0 {
                    return Err(Error::unsupported(
                        mask_pos,
                        format!("memory operand bits {n:#x}"),
                    )
                    .into());
                }
            } else {
                bits = word.split('|').map(str::to_string).collect();
            }
            let mut next = k + 1;
            for b in &bits {
                match b.as_str() {
                    "None" | "Volatile" | "Nontemporal" => {}
                    "Aligned" => {
                        m.arg_lit(li, next)?;
                        next += 1;
                    }
                    "MakePointerAvailable" | "MakePointerAvailableKHR" => {
                        if !store {
                            return Err(Error::semantic(
                                mask_pos,
                                "`MakePointerAvailable` on a load",
                            )
                            .into());
                        }
                        av = Some(self.known(st, li, next, "availability scope")?);
                        next += 1;
                    }
                    "MakePointerVisible" | "MakePointerVisibleKHR" => {
                        if store {
                            return Err(Error::semantic(
                                mask_pos,
                                "`MakePointerVisible` on a store",
                            )
                            .into());
                        }
                        vis = Some(self.known(st, li, next, "visibility scope")?);
                        next += 1;
                    }
                    "NonPrivatePointer" | "NonPrivatePointerKHR" => nonpriv = true,
                    other => {
                        return Err(Error::unsupported(
                            mask_pos,
                            format!("memory operand `{other}`"),
                        )
                        .into())
                    }
                }
            }
            if next < m.nargs(li) {
                return Err(Error::syntax(m.arg_pos(li, next), "unexpected operand").into());
            }
        }
        if !matches!(region, Region::Shared { .. }) {
            return Ok(Vec::new());
        }
        let scope = av.or(vis);
        if let Some(s) = scope {
            if let Some(tag) = tags::scope_tag(s, m.arg_pos(li, k))? {
                t.add(tag);
            }
        }
        t.add(tags::class_tag(self.class_of(region)));
        if av.is_some() {
            t.extend(&["AV", "NONPRIV"]);
        }
        if vis.is_some() {
            t.extend(&["VIS", "NONPRIV"]);
        }
        if nonpriv {
            t.add("NONPRIV");
        }
        Ok(t.0)
    }

    /// Reads read-only memory: its value, or (none set) a free input.
    fn ro_read(&mut self, var: Id, off: u64, w: u32) -> R<Val> {
        if let Some((cw, v)) = self.ro_gen.get(&(var, off)) {
            if bytes(*cw) != bytes(w) {
                return Err(Error::unsupported(
                    self.pos(),
                    "mixed-size access to read-only memory",
                )
                .into());
            }
            return Ok(v.clone());
        }
        let hit = self
            .ro_inv
            .get(&(var, off))
            .or_else(|| self.ro.get(&(var, off)));
        let pos = self.pos();
        let mixed = || Error::unsupported(pos, "mixed-size access to read-only memory");
        match hit {
            Some(&(cw, v)) if bytes(cw) == bytes(w) => Ok(Val::Int(v)),
            Some(_) => Err(mixed().into()),
            None => {
                if self.class_of(Region::ReadOnly { var }) == Class::Input {
                    return Err(Error::unsupported(
                        pos,
                        format!(
                            "a read of the `Input` variable `{}`, which is no built-in and has no value",
                            self.m.show(var)
                        ),
                    )
                    .into());
                }
                let known = self
                    .ro
                    .iter()
                    .filter(|(k, _)| k.0 == var)
                    .map(|(k, v)| (k.1, v.0));
                match self.inputs.register(self.m, var, off, w, known) {
                    Some(r) => Ok(Val::Reg(r)),
                    None => Err(mixed().into()),
                }
            }
        }
    }

    /// Reads a Private/Function cell. A cell never written (no
    /// initialiser, no store yet in this invocation) holds an arbitrary
    /// value: it is assigned to `dst` (or a temporary) by a `Havoc`, and
    /// the cell keeps it, so later reads agree.
    fn local_read(
        &mut self,
        st: &mut State,
        var: Id,
        off: u64,
        w: u32,
        dst: Option<Rc<str>>,
        out: &mut Vec<Instr>,
    ) -> R<Val> {
        match st.cells.get(&(var, off)) {
            Some((cw, v)) => {
                if bytes(*cw) != bytes(w) {
                    return Err(Error::unsupported(
                        self.pos(),
                        "mixed-size access to a Private/Function variable",
                    )
                    .into());
                }
                let v = v.clone();
                self.snapshot(out, v)
            }
            None => {
                self.check_local_overlap(st, var, off, w)?;
                let r = match dst {
                    Some(r) => r,
                    None => self.fresh_tmp(),
                };
                self.undefined(out, &r, value_type(w))?;
                let v = Val::Reg(r);
                st.cells.insert((var, off), (w, v.clone()));
                Ok(v)
            }
        }
    }

    fn check_local_overlap(&self, st: &State, var: Id, off: u64, w: u32) -> R<()> {
        let lo = off.saturating_sub(16);
        let hi = off + bytes(w);
        for (&(_, o), (cw, _)) in st.cells.range((var, lo)..(var, hi)) {
            if o != off && o < hi && o + bytes(*cw) > off {
                return Err(Error::unsupported(
                    self.pos(),
                    "mixed-size access to a Private/Function variable",
                )
                .into());
            }
        }
        Ok(())
    }

    fn local_write(
        &mut self,
        st: &mut State,
        var: Id,
        off: u64,
        w: u32,
        v: Val,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        if let Some((cw, _)) = st.cells.get(&(var, off)) {
            if bytes(*cw) != bytes(w) {
                return Err(Error::unsupported(
                    self.pos(),
                    "mixed-size access to a Private/Function variable",
                )
                .into());
            }
        } else {
            self.check_local_overlap(st, var, off, w)?;
        }
        if self.slots.contains(&Slot::Cell(var, off, w)) {
            let r: Rc<str> = Rc::from(format!("%{}+{off}", self.m.display(var)));
            self.mov(out, &r, &v)?;
            st.cells.insert((var, off), (w, Val::Reg(r)));
        } else {
            let v = self.snapshot(out, v)?;
            st.cells.insert((var, off), (w, v));
        }
        Ok(())
    }

    /// `OpCopyMemorySized dst src size` of a known size into an
    /// invocation-private variable, from read-only or invocation-private
    /// memory (what OpenCL C's array initialisers and copies of private
    /// arrays and structs compile to): every scalar cell of the source
    /// within the copied bytes is read and written at the same distance
    /// from the destination, at its own width.
    fn copy_memory(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let pos = self.pos();
        let dst = self.ptr_any(st, li, 0)?;
        let src = self.ptr_any(st, li, 1)?;
        let size = self.known(st, li, 2, "the size of a memory copy")?;
        let size = u64::try_from(size)
            .map_err(|_| Error::semantic(pos, "a memory copy of negative size"))?;
        let (PtrArg::Static(d), PtrArg::Static(s)) = (&dst, &src) else {
            return Err(Error::unsupported(
                pos,
                "a memory copy (`OpCopyMemorySized`) through a pointer chosen at run time",
            )
            .into());
        };
        let (d, s) = (*d, *s);
        if let Some(r) = [d.region, s.region].into_iter().find(|r| r.is_dangling()) {
            return self.null_access(out, "a memory copy", r);
        }
        let Region::Local { var: dvar } = d.region else {
            return Err(Error::unsupported(
                pos,
                "a memory copy (`OpCopyMemorySized`) into memory other than a Private/Function variable",
            )
            .into());
        };
        let end = s.offset + size;
        let inside = |v: Id, x: Id, o: u64| x == v && (s.offset..end).contains(&o);
        let mut cells: Vec<(u64, u32)> = match s.region {
            Region::ReadOnly { var } => self
                .ro
                .iter()
                .chain(self.ro_inv.iter())
                .filter(|((x, o), _)| inside(var, *x, *o))
                .map(|((_, o), (w, _))| (*o, *w))
                .chain(
                    self.ro_gen
                        .iter()
                        .filter(|((x, o), _)| inside(var, *x, *o))
                        .map(|((_, o), (w, _))| (*o, *w)),
                )
                .collect(),
            Region::Local { var } => st
                .cells
                .range((var, s.offset)..(var, end))
                .map(|(&(_, o), (w, _))| (o, *w))
                .collect(),
            Region::Shared { .. } => {
                return Err(Error::unsupported(
                    pos,
                    "a memory copy (`OpCopyMemorySized`) from shared memory",
                )
                .into())
            }
            Region::Null | Region::Undefined => unreachable!("handled above"),
        };
        cells.sort_unstable();
        cells.dedup();
        if cells.is_empty() && size > 0 && matches!(s.region, Region::ReadOnly { .. }) {
            return Err(Error::unsupported(
                pos,
                "a memory copy (`OpCopyMemorySized`) from read-only memory whose contents are not known while translating",
            )
            .into());
        }
        for (o, w) in cells {
            if o + bytes(w) > end {
                return Err(Error::unsupported(
                    pos,
                    "a memory copy (`OpCopyMemorySized`) that ends inside a scalar",
                )
                .into());
            }
            let v = match s.region {
                Region::ReadOnly { var } => self.ro_read(var, o, w)?,
                Region::Local { var } => self.local_read(st, var, o, w, None, out)?,
                Region::Shared { .. } | Region::Null | Region::Undefined => {
                    unreachable!("refused above")
                }
            };
            let at = d.offset.wrapping_add(o - s.offset) & layout::ADDR_MASK;
            self.local_write(st, dvar, at, w, v, out)?;
        }
        Ok(())
    }

    fn load(
        &mut self,
        st: &mut State,
        p: PtrArg,
        ty: Id,
        tags: Vec<String>,
        rid: Id,
        out: &mut Vec<Instr>,
    ) -> R<Val> {
        let m = self.m;
        let pos = self.pos();
        if p.region().is_dangling() {
            self.null_access(out, "a load", p.region())?;
            return Ok(self.m.zero(ty, pos, 0)?);
        }
        let base = self.fresh(rid);
        let scalar = matches!(
            &*m.ty(ty, pos)?,
            Type::Bool | Type::Int { .. } | Type::Float { .. }
        );
        // Scalars at offsets relative to the pointer.
        let mut scalars: Vec<(u64, u32)> = Vec::new();
        layout::gather(
            m,
            ty,
            0,
            pos,
            &mut |off, w| {
                scalars.push((off, w));
                Ok(Val::Int(0))
            },
            0,
        )?;
        let mut vals = Vec::new();
        for (i, (off, w)) in scalars.into_iter().enumerate() {
            let dst: Rc<str> = if scalar {
                base.clone()
            } else {
                Rc::from(format!("{base}.{i}"))
            };
            let v = match (&p, p.region()) {
                (PtrArg::Static(sp), Region::ReadOnly { var }) => {
                    self.ro_read(var, sp.offset.wrapping_add(off) & layout::ADDR_MASK, w)?
                }
                (PtrArg::Static(sp), Region::Local { var }) => {
                    let at = sp.offset.wrapping_add(off) & layout::ADDR_MASK;
                    self.local_read(st, var, at, w, Some(dst), out)?
                }
                (PtrArg::Dyn(_), r @ (Region::ReadOnly { .. } | Region::Local { .. })) => {
                    return Err(self.not_shared(r))
                }
                (_, Region::Null | Region::Undefined) => unreachable!("handled above"),
                // (a pointer loaded from shared memory is an integer, its
                // address: `address_val`)
                (_, Region::Shared { .. }) => {
                    self.log_access(st, &p, off, false, out)?;
                    let addr = self.mem_addr(&p, off, w, out)?;
                    self.cmp_origin.remove(&dst);
                    self.push(
                        out,
                        InstrKind::Load {
                            dst: dst.to_string(),
                            addr,
                        },
                        tags.clone(),
                    )?;
                    Val::Reg(dst)
                }
            };
            vals.push(v);
        }
        let mut it = vals.into_iter();
        Ok(layout::gather(
            m,
            ty,
            0,
            pos,
            &mut |_, _| Ok(it.next().unwrap_or(Val::Int(0))),
            0,
        )?)
    }

    fn store(
        &mut self,
        st: &mut State,
        p: PtrArg,
        ty: Id,
        v: Val,
        tags: Vec<String>,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let m = self.m;
        let pos = self.pos();
        if p.region().is_dangling() {
            return self.null_access(out, "a store", p.region());
        }
        // Scalars at offsets relative to the pointer.
        let mut cells = Vec::new();
        layout::flatten_val(m, ty, &v, 0, pos, &mut cells, 0)?;
        for (off, w, x) in cells {
            match (&p, p.region()) {
                (_, Region::ReadOnly { .. }) => {
                    return Err(Error::semantic(pos, "store to read-only memory").into());
                }
                (PtrArg::Static(sp), Region::Local { var }) => {
                    let at = sp.offset.wrapping_add(off) & layout::ADDR_MASK;
                    self.local_write(st, var, at, w, x, out)?
                }
                (PtrArg::Dyn(_), r @ Region::Local { .. }) => return Err(self.not_shared(r)),
                (_, Region::Null | Region::Undefined) => unreachable!("handled above"),
                (_, Region::Shared { .. }) => {
                    // A pointer is stored as its address.
                    let x = match x {
                        x @ (Val::Ptr(_) | Val::DynPtr(_)) => {
                            let t = self.fresh_tmp();
                            self.address_val(x, w, &t, out)?
                        }
                        x => x,
                    };
                    self.log_access(st, &p, off, true, out)?;
                    let addr = self.mem_addr(&p, off, w, out)?;
                    let value = self.opnd(&x)?;
                    self.push(out, InstrKind::Store { addr, value }, tags.clone())?;
                }
            }
        }
        Ok(())
    }

    fn atomic(&mut self, st: &mut State, li: usize, op: &str, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let store = op == "OpAtomicStore";
        // Operand positions: stores have no result type.
        let (pk, sk) = if store { (0, 1) } else { (1, 2) };
        let pa = self.ptr_any(st, li, pk)?;
        let ty = self.pointee(li, pk)?;
        let pos = self.pos();
        let w = m.scalar_width(ty, m.arg_pos(li, pk))?;
        let scope = self.known(st, li, sk, "memory scope")?;
        let bits = self.known(st, li, sk + 1, "memory semantics")?;
        let sem = tags::semantics(bits, m.arg_pos(li, sk + 1))?;
        let acc = match op {
            "OpAtomicLoad" => Access::Load,
            "OpAtomicStore" => Access::Store,
            _ => Access::Rmw,
        };
        tags::check_access(bits, acc, m.arg_pos(li, sk + 1))?;
        let mut t = Tags::default();
        t.extend(&["ATOM", "A", "NONPRIV"]);
        tags::order_tags(&mut t, sem, acc);
        if let Some(s) = tags::scope_tag(scope, m.arg_pos(li, sk))? {
            t.add(s);
        }
        t.add(tags::class_tag(self.class_of(pa.region())));
        tags::sem_tags(&mut t, sem);
        // Operation and operand.
        let mut failed = None;
        let (rop, operand): (Option<RmwOp>, Option<Val>) = match op {
            "OpAtomicLoad" => (None, None),
            "OpAtomicStore" => (None, Some(self.arg(st, li, 3)?)),
            "OpAtomicExchange" => (Some(RmwOp::Exch), Some(self.arg(st, li, 4)?)),
            "OpAtomicCompareExchange" => {
                // `Unequal`: the semantics of the read alone, when the
                // comparison fails (a load's: no release).
                let neq = self.known(st, li, 4, "memory semantics")?;
                if neq & (0x4 | 0x8) != 0 {
                    return Err(Error::semantic(
                        m.arg_pos(li, 4),
                        "a compare-exchange's Unequal semantics cannot be Release or AcquireRelease",
                    )
                    .into());
                }
                let nsem = tags::semantics(neq, m.arg_pos(li, 4))?;
                let mut f = Tags::default();
                f.extend(&["ATOM", "A", "NONPRIV"]);
                tags::order_tags(&mut f, nsem, Access::Load);
                if let Some(s) = tags::scope_tag(scope, m.arg_pos(li, sk))? {
                    f.add(s);
                }
                f.add(tags::class_tag(self.class_of(pa.region())));
                tags::sem_tags(&mut f, nsem);
                failed = Some(f.0);
                let value = self.arg(st, li, 5)?;
                let cmp = self.arg(st, li, 6)?;
                (
                    Some(RmwOp::Cas {
                        expected: self.opnd(&cmp)?,
                    }),
                    Some(value),
                )
            }
            "OpAtomicIIncrement" => (Some(RmwOp::Add), Some(Val::Int(1))),
            "OpAtomicIDecrement" => (Some(RmwOp::Sub), Some(Val::Int(1))),
            "OpAtomicIAdd" => (Some(RmwOp::Add), Some(self.arg(st, li, 4)?)),
            "OpAtomicISub" => (Some(RmwOp::Sub), Some(self.arg(st, li, 4)?)),
            "OpAtomicSMin" => (Some(RmwOp::Min), Some(self.arg(st, li, 4)?)),
            "OpAtomicSMax" => (Some(RmwOp::Max), Some(self.arg(st, li, 4)?)),
            "OpAtomicAnd" => (Some(RmwOp::And), Some(self.arg(st, li, 4)?)),
            "OpAtomicOr" => (Some(RmwOp::Or), Some(self.arg(st, li, 4)?)),
            "OpAtomicXor" => (Some(RmwOp::Xor), Some(self.arg(st, li, 4)?)),
            // (Unsigned order of the sign-extended canonical values is
            // that of the narrower patterns: `RmwOp::UMin` compares the
            // 64-bit patterns.)
            "OpAtomicUMin" => (Some(RmwOp::UMin), Some(self.arg(st, li, 4)?)),
            "OpAtomicUMax" => (Some(RmwOp::UMax), Some(self.arg(st, li, 4)?)),
            _ => {
                return Err(Error::unsupported(
                    pos,
                    format!("opcode `{}`", crate::diag::excerpt(op)),
                )
                .into())
            }
        };
        let rid = if store { None } else { Some(m.result(li)?) };
        match pa.region() {
            Region::ReadOnly { .. } => {
                Err(Error::semantic(pos, "atomic on read-only memory").into())
            }
            r @ (Region::Null | Region::Undefined) => {
                self.null_access(out, "an atomic operation", r)?;
                match rid {
                    Some(_) => {
                        let rty = m.arg_id(li, 0)?;
                        let z = m.zero(rty, pos, 0)?;
                        self.bind(st, li, z)
                    }
                    None => Ok(()),
                }
            }
            Region::Shared { .. } => {
                let addr = self.mem_addr(&pa, 0, w, out)?;
                match (op, rop) {
                    ("OpAtomicLoad", _) => {
                        let dst = self.fresh(rid.expect("result"));
                        self.cmp_origin.remove(&dst);
                        self.push(
                            out,
                            InstrKind::Load {
                                dst: dst.to_string(),
                                addr,
                            },
                            t.0,
                        )?;
                        self.bind(st, li, Val::Reg(dst))
                    }
                    ("OpAtomicStore", _) => {
                        let value = self.opnd(&operand.expect("value"))?;
                        self.push(out, InstrKind::Store { addr, value }, t.0)
                    }
                    (_, Some(rop)) => {
                        let dst = self.fresh(rid.expect("result"));
                        self.cmp_origin.remove(&dst);
                        let operand = self.opnd(&operand.expect("operand"))?;
                        self.push(
                            out,
                            InstrKind::Rmw {
                                dst: Some(dst.to_string()),
                                addr,
                                op: rop,
                                operand,
                            },
                            t.0,
                        )?;
                        if let (Some(f), Some(cas)) = (failed, out.last_mut()) {
                            crate::tagging::set_failed(crate::ir::Arch::Vulkan, cas, f);
                        }
                        self.bind(st, li, Val::Reg(dst))
                    }
                    _ => Err(Error::unsupported(
                        pos,
                        format!("opcode `{}`", crate::diag::excerpt(op)),
                    )
                    .into()),
                }
            }
            r @ Region::Local { var } => {
                // Invocation-private memory: computed in registers.
                let PtrArg::Static(p) = pa else {
                    return Err(self.not_shared(r));
                };
                let old = self.local_read(st, var, p.offset, w, None, out)?;
                if op == "OpAtomicLoad" {
                    return self.bind(st, li, old);
                }
                let x = operand.expect("operand");
                if store {
                    return self.local_write(st, var, p.offset, w, x, out);
                }
                let rid = rid.expect("result");
                let dst = self.fresh(rid);
                let new = match op {
                    "OpAtomicExchange" => x,
                    "OpAtomicCompareExchange" => {
                        let cmp = self.arg(st, li, 6)?;
                        let eq = self.local(out, &dst, BinOp::Eq, &old, &cmp)?;
                        let d2 = self.fresh(rid);
                        self.select(out, &d2, &eq, &x, &old, 0)?
                    }
                    "OpAtomicIIncrement" | "OpAtomicIAdd" => {
                        self.scalar2(out, &dst, Op2::IAdd, &old, &x, w)?
                    }
                    "OpAtomicIDecrement" | "OpAtomicISub" => {
                        self.scalar2(out, &dst, Op2::ISub, &old, &x, w)?
                    }
                    "OpAtomicSMin" => self.scalar2(out, &dst, Op2::SMin, &old, &x, w)?,
                    "OpAtomicSMax" => self.scalar2(out, &dst, Op2::SMax, &old, &x, w)?,
                    "OpAtomicUMin" => self.scalar2(out, &dst, Op2::UMin, &old, &x, w)?,
                    "OpAtomicUMax" => self.scalar2(out, &dst, Op2::UMax, &old, &x, w)?,
                    "OpAtomicAnd" => self.scalar2(out, &dst, Op2::And, &old, &x, w)?,
                    "OpAtomicOr" => self.scalar2(out, &dst, Op2::Or, &old, &x, w)?,
                    "OpAtomicXor" => self.scalar2(out, &dst, Op2::Xor, &old, &x, w)?,
                    _ => {
                        return Err(Error::unsupported(
                            pos,
                            format!("opcode `{}`", crate::diag::excerpt(op)),
                        )
                        .into())
                    }
                };
                self.local_write(st, var, p.offset, w, new, out)?;
                self.bind(st, li, old)
            }
        }
    }

    fn control_barrier(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        self.log_barrier(st, out)?;
        let exec = self.known(st, li, 0, "execution scope")?;
        let scope = self.known(st, li, 1, "memory scope")?;
        let bits = self.known(st, li, 2, "memory semantics")?;
        let sem = tags::semantics(bits, m.arg_pos(li, 2))?;
        let g = m.settings.grid;
        let (level, quorum) = match exec {
            2 => (0, g.wg_size()),
            3 => (1, g.threads_per_sg),
            _ => {
                return Err(Error::unsupported(
                    m.arg_pos(li, 0),
                    format!("control barrier with execution scope {exec} (Workgroup and Subgroup are supported)"),
                )
                .into())
            }
        };
        let mut t = Tags::default();
        t.extend(&["B", "CBAR"]);
        if sem.ordered() {
            t.add("F");
        }
        tags::order_tags(&mut t, sem, Access::Fence);
        if let Some(s) = tags::scope_tag(scope, m.arg_pos(li, 1))? {
            t.add(s);
        }
        tags::sem_tags(&mut t, sem);
        self.barrier_instance(st, level, quorum, t.0, out)
    }

    /// The next instance of scope `level`'s barrier (0: workgroup, 1:
    /// subgroup) for `quorum` invocations, with `tags`: its id is the
    /// scope's counter (a subgroup's offset by its index), which then
    /// counts one more.
    fn barrier_instance(
        &mut self,
        st: &mut State,
        level: usize,
        quorum: u32,
        tags: Vec<String>,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let counter = st.bar[level].clone();
        let id = if level == 0 {
            counter.clone()
        } else {
            let offset = Val::Int(crate::ir::WARP_BARRIER_IDS + (i64::from(self.inv.sg) << 20));
            let tmp = self.fresh_tmp();
            self.local(out, &tmp, BinOp::Add, &counter, &offset)?
        };
        let id = self.opnd(&id)?;
        self.push(
            out,
            InstrKind::Barrier {
                id,
                count: Some(Operand::Const(i64::from(quorum))),
                arrive: false,
            },
            tags,
        )?;
        st.bar[level] = match counter {
            Val::Int(k) => Val::Int(k + 1),
            Val::Reg(r) => {
                self.local(out, &r, BinOp::Add, &Val::Reg(r.clone()), &Val::Int(1))?;
                Val::Reg(r)
            }
            _ => return Err(Error::semantic(self.pos(), "bad barrier counter").into()),
        };
        Ok(())
    }

    fn convert(&mut self, st: &mut State, li: usize, op: &str, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let pos = self.pos();
        let rid = m.result(li)?;
        let rty = m.arg_id(li, 0)?;
        let src = m.arg_id(li, 1)?;
        let sty = m.type_of(src, m.arg_pos(li, 1))?;
        let v = self.arg(st, li, 1)?;
        let pointee = |t: Id| -> R<Option<Id>> {
            Ok(match &*m.ty(t, pos)? {
                Type::Pointer { pointee, .. } => Some(*pointee),
                _ => None,
            })
        };
        match (pointee(sty)?, pointee(rty)?) {
            (None, None) => {}
            // A pointer cast (OpenCL's `(uchar *)p`, lifetime markers):
            // the pointer is a byte offset, which stays; only arithmetic
            // on a pointer chosen at run time depends on the element's
            // size, so that must not change.
            (Some(a), Some(b)) if op == "OpBitcast" => {
                let same_size = m.size_of(a, pos).ok() == m.size_of(b, pos).ok();
                if matches!(v, Val::Ptr(_)) || same_size {
                    return self.bind(st, li, v);
                }
                return Err(Error::unsupported(
                    pos,
                    "`OpBitcast` of a pointer chosen at run time to another element size",
                )
                .into());
            }
            _ => return Err(Error::unsupported(pos, format!("`{op}` of pointers")).into()),
        }
        let (ws, ns) = self.elem_width(sty, m.arg_pos(li, 1))?;
        let (wd, nd) = self.elem_width(rty, pos)?;
        if ns != nd {
            return Err(Error::unsupported(
                pos,
                format!("`{op}` between vectors of different sizes"),
            )
            .into());
        }
        if op == "OpBitcast" && ws != wd {
            return Err(Error::unsupported(pos, "`OpBitcast` between different widths").into());
        }
        let dst = self.fresh(rid);
        let one = |this: &mut Self, out: &mut Vec<Instr>, d: &Rc<str>, x: Val| -> R<Val> {
            match op {
                "OpBitcast" => Ok(x),
                "OpSConvert" => {
                    if wd >= ws {
                        Ok(x)
                    } else {
                        this.sext_v(out, d, x, wd)
                    }
                }
                _ => {
                    if wd > ws {
                        this.zext_v(out, d, x, ws)
                    } else if wd < ws {
                        this.sext_v(out, d, x, wd)
                    } else {
                        Ok(x)
                    }
                }
            }
        };
        let r = match v {
            Val::Comp(xs) => {
                let mut ys = Vec::new();
                for (i, x) in xs.iter().enumerate() {
                    let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                    ys.push(one(self, out, &d, x.clone())?);
                }
                Val::Comp(ys.into())
            }
            x => one(self, out, &dst, x)?,
        };
        self.bind(st, li, r)
    }

    fn arith(&mut self, st: &mut State, li: usize, op: &str, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let pos = self.pos();
        let bin = match op {
            "OpIAdd" => Some(Op2::IAdd),
            "OpISub" => Some(Op2::ISub),
            "OpIMul" => Some(Op2::IMul),
            "OpUDiv" => Some(Op2::UDiv),
            "OpSDiv" => Some(Op2::SDiv),
            "OpUMod" => Some(Op2::UMod),
            "OpSRem" => Some(Op2::SRem),
            "OpShiftLeftLogical" => Some(Op2::Shl),
            "OpShiftRightLogical" => Some(Op2::ShrL),
            "OpShiftRightArithmetic" => Some(Op2::ShrA),
            "OpBitwiseAnd" | "OpLogicalAnd" => Some(Op2::And),
            "OpBitwiseOr" | "OpLogicalOr" => Some(Op2::Or),
            "OpBitwiseXor" => Some(Op2::Xor),
            "OpIEqual" | "OpLogicalEqual" => Some(Op2::Cmp(BinOp::Eq)),
            "OpINotEqual" | "OpLogicalNotEqual" => Some(Op2::Cmp(BinOp::Ne)),
            "OpULessThan" => Some(Op2::Cmp(BinOp::Ult)),
            "OpULessThanEqual" => Some(Op2::Cmp(BinOp::Ule)),
            "OpUGreaterThan" => Some(Op2::Cmp(BinOp::Ugt)),
            "OpUGreaterThanEqual" => Some(Op2::Cmp(BinOp::Uge)),
            "OpSLessThan" => Some(Op2::Cmp(BinOp::Lt)),
            "OpSLessThanEqual" => Some(Op2::Cmp(BinOp::Le)),
            "OpSGreaterThan" => Some(Op2::Cmp(BinOp::Gt)),
            "OpSGreaterThanEqual" => Some(Op2::Cmp(BinOp::Ge)),
            _ => None,
        };
        let un = match op {
            "OpSNegate" => Some(Op1::SNeg),
            "OpNot" => Some(Op1::Not),
            "OpLogicalNot" => Some(Op1::LNot),
            "OpBitCount" => Some(Op1::BitCount),
            _ => None,
        };
        if bin.is_none() && un.is_none() {
            if op == "OpSMod" {
                return Err(Error::unsupported(pos, "opcode `OpSMod`").into());
            }
            return Err(
                Error::unsupported(pos, format!("opcode `{}`", crate::diag::excerpt(op))).into(),
            );
        }
        let rid = m.result(li)?;
        let dst = self.fresh(rid);
        // Operand width: of the first operand's type.
        let a_id = m.arg_id(li, 1)?;
        let aty = m.type_of(a_id, m.arg_pos(li, 1))?;
        let (w, _) = self.elem_width(aty, m.arg_pos(li, 1))?;
        let a = self.arg(st, li, 1)?;
        let r = if let Some(b2) = bin {
            let b = self.arg(st, li, 2)?;
            match (&a, &b) {
                (Val::Comp(xs), Val::Comp(ys)) if xs.len() == ys.len() => {
                    let mut zs = Vec::new();
                    for (i, (x, y)) in xs.iter().zip(ys.iter()).enumerate() {
                        let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                        zs.push(self.scalar2(out, &d, b2, x, y, w)?);
                    }
                    Val::Comp(zs.into())
                }
                (Val::Comp(_), _) | (_, Val::Comp(_)) => {
                    return Err(Error::semantic(pos, "operands of different shapes").into())
                }
                _ => self.scalar2(out, &dst, b2, &a, &b, w)?,
            }
        } else {
            let u = un.expect("unary");
            match &a {
                Val::Comp(xs) => {
                    let mut zs = Vec::new();
                    for (i, x) in xs.iter().enumerate() {
                        let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                        zs.push(self.scalar1(out, &d, u, x, w)?);
                    }
                    Val::Comp(zs.into())
                }
                _ => self.scalar1(out, &dst, u, &a, w)?,
            }
        };
        self.bind(st, li, r)
    }

    fn scalar2(
        &mut self,
        out: &mut Vec<Instr>,
        d: &Rc<str>,
        op: Op2,
        a: &Val,
        b: &Val,
        w: u32,
    ) -> R<Val> {
        Ok(match op {
            Op2::IAdd => {
                let t = self.local(out, d, BinOp::Add, a, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::ISub => {
                let t = self.local(out, d, BinOp::Sub, a, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::IMul => {
                let t = self.local(out, d, BinOp::Mul, a, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::SDiv => {
                let t = self.local(out, d, BinOp::Div, a, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::SRem => self.local(out, d, BinOp::Rem, a, b)?,
            Op2::UDiv | Op2::UMod => {
                let (i, u) = if op == Op2::UDiv {
                    (BinOp::Div, BinOp::Udiv)
                } else {
                    (BinOp::Rem, BinOp::Urem)
                };
                if w >= 64 {
                    self.local(out, d, u, a, b)?
                } else {
                    let x = self.zext_v(out, d, a.clone(), w)?;
                    let t = self.fresh_tmp();
                    let y = self.zext_v(out, &t, b.clone(), w)?;
                    let q = self.local(out, d, i, &x, &y)?;
                    self.sext_v(out, d, q, w)?
                }
            }
            Op2::Shl => {
                let t = self.local(out, d, BinOp::Shl, a, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::ShrL => {
                let x = self.zext_v(out, d, a.clone(), w)?;
                let t = self.local(out, d, BinOp::Lshr, &x, b)?;
                self.sext_v(out, d, t, w)?
            }
            Op2::ShrA => self.local(out, d, BinOp::Shr, a, b)?,
            Op2::And => self.local(out, d, BinOp::And, a, b)?,
            Op2::Or => self.local(out, d, BinOp::Or, a, b)?,
            Op2::Xor => self.local(out, d, BinOp::Xor, a, b)?,
            Op2::Cmp(c) => self.local(out, d, c, a, b)?,
            Op2::SMin | Op2::SMax | Op2::UMin | Op2::UMax => {
                let c = match op {
                    Op2::SMin => BinOp::Lt,
                    Op2::SMax => BinOp::Gt,
                    Op2::UMin => BinOp::Ult,
                    _ => BinOp::Ugt,
                };
                let t = self.fresh_tmp();
                let cv = self.local(out, &t, c, a, b)?;
                self.select(out, d, &cv, a, b, 0)?
            }
        })
    }

    fn scalar1(&mut self, out: &mut Vec<Instr>, d: &Rc<str>, op: Op1, a: &Val, w: u32) -> R<Val> {
        Ok(match op {
            Op1::SNeg => {
                let t = self.local(out, d, BinOp::Sub, &Val::Int(0), a)?;
                self.sext_v(out, d, t, w)?
            }
            Op1::Not => self.local(out, d, BinOp::Xor, a, &Val::Int(-1))?,
            Op1::LNot => self.local(out, d, BinOp::Xor, a, &Val::Int(1))?,
            Op1::BitCount => {
                let x = self.zext_v(out, d, a.clone(), w)?;
                self.popcount(out, d, x)?
            }
            Op1::FindILsb => {
                // k = popcount((x & -x) - 1) for x != 0; -1 for x == 0.
                let t = self.fresh_tmp();
                let neg = self.local(out, &t, BinOp::Sub, &Val::Int(0), a)?;
                let y = self.local(out, &t, BinOp::And, a, &neg)?;
                let y = self.local(out, &t, BinOp::Sub, &y, &Val::Int(1))?;
                let y = self.zext_v(out, &t, y, w)?;
                let pc = self.popcount(out, &t, y)?;
                let z = self.fresh_tmp();
                let isz = self.local(out, &z, BinOp::Eq, a, &Val::Int(0))?;
                let adj = self.local(out, &z, BinOp::Mul, &isz, &Val::Int(i64::from(w) + 1))?;
                self.local(out, d, BinOp::Sub, &pc, &adj)?
            }
        })
    }

    /// Population count of a non-negative 64-bit pattern.
    fn popcount(&mut self, out: &mut Vec<Instr>, d: &Rc<str>, x: Val) -> R<Val> {
        if let Val::Int(v) = x {
            return Ok(Val::Int(i64::from((v as u64).count_ones())));
        }
        let c = |v: u64| Val::Int(v as i64);
        let t = self.fresh_tmp();
        // x - ((x >> 1) & 0x55..)
        let a = self.local(out, &t, BinOp::Lshr, &x, &Val::Int(1))?;
        let a = self.local(out, &t, BinOp::And, &a, &c(0x5555_5555_5555_5555))?;
        let x = self.local(out, d, BinOp::Sub, &x, &a)?;
        // (x & 0x33..) + ((x >> 2) & 0x33..)
        let a = self.local(out, &t, BinOp::Lshr, &x, &Val::Int(2))?;
        let a = self.local(out, &t, BinOp::And, &a, &c(0x3333_3333_3333_3333))?;
        let x = self.local(out, d, BinOp::And, &x, &c(0x3333_3333_3333_3333))?;
        let x = self.local(out, d, BinOp::Add, &x, &a)?;
        // (x + (x >> 4)) & 0x0F..
        let a = self.local(out, &t, BinOp::Lshr, &x, &Val::Int(4))?;
        let x = self.local(out, d, BinOp::Add, &x, &a)?;
        let x = self.local(out, d, BinOp::And, &x, &c(0x0F0F_0F0F_0F0F_0F0F))?;
        // (x * 0x0101..) >> 56
        let x = self.local(out, d, BinOp::Mul, &x, &c(0x0101_0101_0101_0101))?;
        self.local(out, d, BinOp::Lshr, &x, &Val::Int(56))
    }

    fn ext_inst(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let pos = self.pos();
        let set = m.arg_id(li, 1)?;
        let set_name = m.ext_imports.get(&set).cloned().ok_or_else(|| {
            Error::semantic(
                m.arg_pos(li, 1),
                format!("`{}` is not an imported instruction set", m.show(set)),
            )
        })?;
        if super::module::is_debug_info(&set_name) {
            return Ok(());
        }
        if set_name != "GLSL.std.450" && set_name != "OpenCL.std" {
            return Err(
                Error::unsupported(pos, format!("extended instruction set `{set_name}`")).into(),
            );
        }
        let name = m.arg_word(li, 2)?;
        let exact = OPENCL_EXACT.iter().find(|(cl, _)| *cl == name);
        let name = match (set_name.as_str(), exact) {
            ("OpenCL.std", Some((_, glsl))) => glsl.to_string(),
            // Every other OpenCL function (floating point, bit counts,
            // saturation, …): a free value (see `free_result`) — unless
            // it reads or writes memory through a pointer (`vload4`,
            // `sincos`'s second result, `fract`, …), which a free value
            // would lose.
            ("OpenCL.std", None) => {
                for k in 3..m.nargs(li) {
                    let ty = m.type_of(m.arg_id(li, k)?, m.arg_pos(li, k))?;
                    if let (true, Type::Pointer { pointee, .. }) = (
                        OPENCL_OUT_POINTER.contains(&name.as_str()),
                        &*m.ty(ty, pos)?,
                    ) {
                        // A second result written through the pointer: a
                        // store of a free value there.
                        let p = self.ptr_any(st, li, k)?;
                        let v = self.free_value(*pointee, out)?;
                        let tags = self.access_tags(st, li, m.nargs(li), p.region(), true)?;
                        self.store(st, p, *pointee, v, tags, out)?;
                        continue;
                    }
                    if matches!(&*m.ty(ty, pos)?, Type::Pointer { .. }) {
                        return Err(Error::unsupported(
                            pos,
                            format!(
                                "OpenCL function `{}` with a pointer argument (it accesses memory)",
                                crate::diag::excerpt(&name)
                            ),
                        )
                        .into());
                    }
                }
                return self.free_result(st, li, out);
            }
            _ => name,
        };
        let rid = m.result(li)?;
        let dst = self.fresh(rid);
        let a_pos = m.arg_pos(li, 3);
        let aty = m.type_of(m.arg_id(li, 3)?, a_pos)?;
        let (w, _) = self.elem_width(aty, a_pos)?;
        let a = self.arg(st, li, 3)?;
        let b = if m.nargs(li) > 4 {
            Some(self.arg(st, li, 4)?)
        } else {
            None
        };
        let two = || {
            b.clone()
                .ok_or_else(|| Flow::Err(Error::syntax(pos, "missing operand")))
        };
        let r = match name.as_str() {
            "UMin" | "UMax" | "SMin" | "SMax" | "38" | "41" | "39" | "42" => {
                let op = match name.as_str() {
                    "UMin" | "38" => Op2::UMin,
                    "UMax" | "41" => Op2::UMax,
                    "SMin" | "39" => Op2::SMin,
                    _ => Op2::SMax,
                };
                let b = two()?;
                self.map2(out, &dst, op, &a, &b, w)?
            }
            "FindILsb" | "73" => self.map1(out, &dst, Op1::FindILsb, &a, w)?,
            "SAbs" | "5" => {
                let z = self.map2(out, &dst, Op2::ISub, &zero_like(&a), &a, w)?;
                let t = self.fresh_tmp();
                let neg = self.map2(out, &t, Op2::Cmp(BinOp::Lt), &a, &zero_like(&a), w)?;
                self.select(out, &dst, &neg, &z, &a, 0)?
            }
            other => {
                return Err(
                    Error::unsupported(pos, format!("GLSL.std.450 instruction `{other}`")).into(),
                )
            }
        };
        self.bind(st, li, r)
    }

    /// Floating point: a result computed by floating-point arithmetic (or
    /// converted from or to floating point, or a test of a float) is a
    /// free value of its type, a fresh one each time: gpumc has no
    /// floating-point semantics, and for races only addresses and
    /// control flow matter, which a free value over-approximates. Loads,
    /// stores and copies of floats keep their bit patterns exactly.
    fn free_result(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        self.arbitrary_result(st, li, false, out)
    }

    /// A free value of the scalar or vector type `ty` (as `free_result`).
    fn free_value(&mut self, ty: Id, out: &mut Vec<Instr>) -> R<Val> {
        let dst = self.fresh_tmp();
        self.arbitrary_value(ty, dst, false, out)
    }

    /// The result of line `li`, a scalar or vector, arbitrary: fresh each
    /// time, an over-approximation (`free_result`) or, `exact`, arbitrary
    /// in the semantics gpumc states (a function without a body:
    /// [`crate::ir::UNDEFINED_VALUE`]).
    fn arbitrary_result(
        &mut self,
        st: &mut State,
        li: usize,
        exact: bool,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let m = self.m;
        let rid = m.result(li)?;
        let rty = m.arg_id(li, 0)?;
        if exact && matches!(&*m.ty(rty, self.pos())?, Type::Pointer { .. }) {
            return Err(Error::unsupported(
                self.pos(),
                "a pointer returned by a function without a body (gpumc cannot name what it points to)",
            )
            .into());
        }
        let dst = self.fresh(rid);
        let v = self.arbitrary_value(rty, dst, exact, out)?;
        self.bind(st, li, v)
    }

    /// An arbitrary value of the scalar or vector type `ty` in the
    /// register `dst` (components `dst.0`, `dst.1`, …): an
    /// over-approximation, or `exact` (see `arbitrary_result`).
    fn arbitrary_value(
        &mut self,
        ty: Id,
        dst: Rc<str>,
        exact: bool,
        out: &mut Vec<Instr>,
    ) -> R<Val> {
        let (w, n) = self.elem_width(ty, self.pos())?;
        let mut one = |s: &mut Self, d: &Rc<str>| match exact {
            true => s.undefined(out, d, value_type(w)),
            false => s.havoc(out, d, value_type(w)),
        };
        Ok(match n {
            None => {
                one(self, &dst)?;
                Val::Reg(dst)
            }
            Some(n) => {
                let mut xs = Vec::new();
                for i in 0..n {
                    let d: Rc<str> = Rc::from(format!("{dst}.{i}"));
                    one(self, &d)?;
                    xs.push(Val::Reg(d));
                }
                Val::Comp(xs.into())
            }
        })
    }

    fn map2(
        &mut self,
        out: &mut Vec<Instr>,
        d: &Rc<str>,
        op: Op2,
        a: &Val,
        b: &Val,
        w: u32,
    ) -> R<Val> {
        match (a, b) {
            (Val::Comp(xs), Val::Comp(ys)) if xs.len() == ys.len() => {
                let mut zs = Vec::new();
                for (i, (x, y)) in xs.iter().zip(ys.iter()).enumerate() {
                    let di: Rc<str> = Rc::from(format!("{d}.{i}"));
                    zs.push(self.scalar2(out, &di, op, x, y, w)?);
                }
                Ok(Val::Comp(zs.into()))
            }
            _ => self.scalar2(out, d, op, a, b, w),
        }
    }

    fn map1(&mut self, out: &mut Vec<Instr>, d: &Rc<str>, op: Op1, a: &Val, w: u32) -> R<Val> {
        match a {
            Val::Comp(xs) => {
                let mut zs = Vec::new();
                for (i, x) in xs.iter().enumerate() {
                    let di: Rc<str> = Rc::from(format!("{d}.{i}"));
                    zs.push(self.scalar1(out, &di, op, x, w)?);
                }
                Ok(Val::Comp(zs.into()))
            }
            _ => self.scalar1(out, d, op, a, w),
        }
    }

    // ----- layout -------------------------------------------------------

    fn finish(mut self) -> Vec<Instr> {
        let n = self.specs.len();
        // Reverse post-order, exploring later-positioned successors first
        // so that the earliest one is laid out right after its source.
        let mut visited = vec![false; n];
        let mut post = Vec::with_capacity(n);
        let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
        if n > 0 {
            visited[0] = true;
            stack.push((0, self.sorted_succs(0)));
        }
        while let Some((b, succs)) = stack.last_mut() {
            if let Some(s) = succs.pop() {
                if !visited[s] {
                    visited[s] = true;
                    let ss = self.sorted_succs(s);
                    stack.push((s, ss));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        let mut out = std::mem::take(&mut self.prologue);
        for k in post {
            out.append(&mut self.specs[k].chunk);
        }
        let end_line = self.m.functions[self.m.entry.0].end_line;
        self.cur = end_line;
        out.push(self.instr(InstrKind::Label(END.into()), vec![]));
        let out = tidy(out);
        let mut defs = self.free_defs(&out);
        defs.extend(out);
        defs
    }

    /// The definitions, at the start of the invocation, of the free
    /// registers that `code` reads: an `Input` for each free input, then
    /// a `Havoc` for each `OpUndef` scalar (one arbitrary value per
    /// invocation).
    fn free_defs(&self, code: &[Instr]) -> Vec<Instr> {
        let mut inputs: Vec<(usize, String)> = Vec::new();
        let mut regs: Vec<(usize, String)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut note = |o: &Operand| {
            if let Operand::Reg(r) = o {
                if let Some(li) = self.m.undef_line(r) {
                    if seen.insert(r.clone()) {
                        regs.push((li, r.clone()));
                    }
                } else if let Some(k) = self.inputs.input_of(r) {
                    if seen.insert(r.clone()) {
                        inputs.push((k, r.clone()));
                    }
                }
            }
        };
        for x in code {
            if let Some(a) = x.kind.addr() {
                for ix in a.index().into_iter().chain(a.bound_indices()) {
                    note(ix);
                }
            }
            match &x.kind {
                InstrKind::Store { value, .. } => note(value),
                InstrKind::Rmw { op, operand, .. } => {
                    note(operand);
                    if let RmwOp::Cas { expected } = op {
                        note(expected);
                    }
                }
                InstrKind::Branch { a, b, .. } | InstrKind::Local { a, b, .. } => {
                    note(a);
                    note(b);
                }
                InstrKind::Barrier { id, count, .. } => {
                    note(id);
                    if let Some(c) = count {
                        note(c);
                    }
                }
                _ => {}
            }
        }
        inputs.sort();
        regs.sort();
        let mut out = Vec::new();
        for (k, r) in inputs {
            let var = self.inputs.cells[k].0;
            let l = self
                .m
                .line(self.m.def[var as usize].unwrap_or(self.m.entry.1));
            out.push(Instr::new(
                InstrKind::Input { dst: r, input: k },
                vec![],
                l.pos(),
                l.text.clone(),
            ));
        }
        for (li, r) in regs {
            let l = self.m.line(li);
            let ty = self.m.undef_type(&r).unwrap_or(ValueType::I64);
            out.push(Instr::new(
                InstrKind::Havoc { dst: r, ty },
                vec![crate::ir::UNDEFINED_VALUE.to_string()],
                l.pos(),
                l.text.clone(),
            ));
        }
        out
    }

    /// Successors of spec `k`, sorted so that popping yields the one
    /// positioned last first.
    fn sorted_succs(&self, k: usize) -> Vec<usize> {
        let mut s = self.specs[k].succs.clone();
        s.sort_by_key(|&x| self.specs[x].order);
        s.dedup();
        s
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op2 {
    IAdd,
    ISub,
    IMul,
    UDiv,
    SDiv,
    UMod,
    SRem,
    Shl,
    ShrL,
    ShrA,
    And,
    Or,
    Xor,
    Cmp(BinOp),
    SMin,
    SMax,
    UMin,
    UMax,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op1 {
    SNeg,
    Not,
    LNot,
    BitCount,
    FindILsb,
}

/// Loop entries for a function's first block (a loop header when the
/// function body starts with a loop).
fn entry_loops(m: &Module, fi: usize) -> Vec<LoopEntry> {
    if m.functions[fi].cfg.is_header(0) {
        vec![LoopEntry {
            header: 0,
            spec: None,
            exit_unknown: false,
        }]
    } else {
        Vec::new()
    }
}

fn bar_name(i: usize) -> String {
    if i == 0 {
        "bar.wg".into()
    } else {
        "bar.sg".into()
    }
}

fn zero_like(v: &Val) -> Val {
    match v {
        Val::Comp(xs) => Val::Comp(xs.iter().map(zero_like).collect::<Vec<_>>().into()),
        _ => Val::Int(0),
    }
}

/// The fixed registers holding a generalised value shaped like `v`.
fn slot_val(base: &str, v: &Val, pos: Pos) -> Result<Val> {
    match v {
        Val::Int(_) | Val::Reg(_) => Ok(Val::Reg(Rc::from(base))),
        Val::Comp(xs) => {
            let mut ys = Vec::new();
            for (i, x) in xs.iter().enumerate() {
                ys.push(slot_val(&format!("{base}.{i}"), x, pos)?);
            }
            Ok(Val::Comp(ys.into()))
        }
        Val::Ptr(_) | Val::DynPtr(_) => Err(Error::unsupported(
            pos,
            "pointer-valued phi carried around a loop",
        )),
    }
}

fn collect_moves(slot: &Val, v: &Val, pli: usize, out: &mut Vec<(Rc<str>, Val, usize)>) {
    match (slot, v) {
        (Val::Reg(d), x) if x != slot => out.push((d.clone(), x.clone(), pli)),
        (Val::Reg(_), _) => {}
        (Val::Comp(ds), Val::Comp(xs)) => {
            for (d, x) in ds.iter().zip(xs.iter()) {
                collect_moves(d, x, pli, out);
            }
        }
        _ => {}
    }
}

/// `OpCompositeInsert`: replaces the part of `obj` at `path` by `comp`.
fn insert(comp: Val, path: &[(i128, Pos)], obj: Val) -> Result<Val> {
    let Some(&(i, pos)) = path.first() else {
        return Ok(comp);
    };
    match obj {
        Val::Comp(xs) if i >= 0 && (i as usize) < xs.len() => {
            let mut ys: Vec<Val> = xs.to_vec();
            let k = i as usize;
            ys[k] = insert(comp, &path[1..], ys[k].clone())?;
            Ok(Val::Comp(ys.into()))
        }
        _ => Err(Error::semantic(pos, "index out of range")),
    }
}

/// Peephole clean-up: drops jumps to the next instruction, unused labels
/// and register computations whose result nobody reads.
fn tidy(mut v: Vec<Instr>) -> Vec<Instr> {
    loop {
        let before = v.len();
        // Goto to the immediately following label.
        let mut out: Vec<Instr> = Vec::with_capacity(v.len());
        for i in 0..v.len() {
            if let InstrKind::Goto(t) = &v[i].kind {
                if matches!(v.get(i + 1).map(|x| &x.kind), Some(InstrKind::Label(l)) if l == t) {
                    continue;
                }
            }
            out.push(v[i].clone());
        }
        v = out;
        // Unused labels.
        let used: HashSet<String> = v
            .iter()
            .filter_map(|x| match &x.kind {
                InstrKind::Goto(t) | InstrKind::Branch { target: t, .. } => Some(t.clone()),
                _ => None,
            })
            .collect();
        v.retain(|x| !matches!(&x.kind, InstrKind::Label(l) if !used.contains(l)));
        // Dead register computations.
        let mut live: HashSet<String> = HashSet::new();
        let reg = |o: &Operand, live: &mut HashSet<String>| {
            if let Operand::Reg(r) = o {
                live.insert(r.clone());
            }
        };
        for x in &v {
            if let Some(a) = x.kind.addr() {
                for ix in a.index().into_iter().chain(a.bound_indices()) {
                    reg(ix, &mut live);
                }
            }
            match &x.kind {
                InstrKind::Store { value, .. } => reg(value, &mut live),
                InstrKind::Rmw { op, operand, .. } => {
                    reg(operand, &mut live);
                    if let RmwOp::Cas { expected } = op {
                        reg(expected, &mut live);
                    }
                }
                InstrKind::Branch { a, b, .. } => {
                    reg(a, &mut live);
                    reg(b, &mut live);
                }
                InstrKind::Barrier { id, count, .. } => {
                    reg(id, &mut live);
                    if let Some(c) = count {
                        reg(c, &mut live);
                    }
                }
                _ => {}
            }
        }
        loop {
            let n = live.len();
            for x in &v {
                if let InstrKind::Local { dst, a, b, .. } = &x.kind {
                    if live.contains(dst) {
                        reg(a, &mut live);
                        reg(b, &mut live);
                    }
                }
            }
            if live.len() == n {
                break;
            }
        }
        v.retain(|x| {
            !matches!(&x.kind, InstrKind::Local { dst, .. } | InstrKind::Havoc { dst, .. }
                if !live.contains(dst))
        });
        if v.len() == before {
            return v;
        }
    }
}
