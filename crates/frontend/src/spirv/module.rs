//! The module: ids, types, constants, decorations, variables, functions
//! and their control-flow graphs, built from the lexed lines.
//!
//! Types and constants are evaluated lazily (and memoised), so forward
//! references and harness overrides of specialisation constants work
//! without a fixed evaluation order.

use super::header::Grid;
use super::lex::{Kind, Line, Tok};
use super::value::{canon_lit, value_type, Val};
use crate::diag::{Error, Result};
use crate::ir::{Pos, ValueType};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// An interned id (`%name` without the `%`).
pub(super) type Id = u32;

/// Storage classes gpumc distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Class {
    UniformConstant,
    Input,
    Uniform,
    Output,
    Workgroup,
    CrossWorkgroup,
    Private,
    Function,
    PushConstant,
    StorageBuffer,
    /// OpenCL's generic address space: pointers only (casts from and to
    /// the named classes keep the pointer; no variable lives there).
    Generic,
}

impl Class {
    fn parse(w: &str) -> Option<Class> {
        Some(match w {
            "UniformConstant" => Class::UniformConstant,
            "Input" => Class::Input,
            "Uniform" => Class::Uniform,
            "Output" => Class::Output,
            "Workgroup" => Class::Workgroup,
            "CrossWorkgroup" => Class::CrossWorkgroup,
            "Private" => Class::Private,
            "Function" => Class::Function,
            "PushConstant" => Class::PushConstant,
            "StorageBuffer" => Class::StorageBuffer,
            "Generic" => Class::Generic,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Class::UniformConstant => "UniformConstant",
            Class::Input => "Input",
            Class::Uniform => "Uniform",
            Class::Output => "Output",
            Class::Workgroup => "Workgroup",
            Class::CrossWorkgroup => "CrossWorkgroup",
            Class::Private => "Private",
            Class::Function => "Function",
            Class::PushConstant => "PushConstant",
            Class::StorageBuffer => "StorageBuffer",
            Class::Generic => "Generic",
        }
    }

    /// Memory shared between invocations (IR locations).
    pub fn is_shared(self) -> bool {
        matches!(
            self,
            Class::Uniform
                | Class::Output
                | Class::Workgroup
                | Class::CrossWorkgroup
                | Class::StorageBuffer
        )
    }

    /// Per-invocation memory (IR registers).
    pub fn is_local(self) -> bool {
        matches!(self, Class::Private | Class::Function)
    }
}

/// A SPIR-V type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Type {
    Void,
    Bool,
    Int {
        width: u32,
    },
    Float {
        width: u32,
    },
    Vector {
        elem: Id,
        n: u32,
    },
    Array {
        elem: Id,
        len: u64,
    },
    RuntimeArray {
        elem: Id,
    },
    Struct {
        members: Vec<Id>,
    },
    Pointer {
        class: Class,
        pointee: Id,
    },
    Function,
    /// Images, samplers, matrices, …: may be declared, not used.
    Opaque(String),
}

/// A decoration: its name, literal/id operands, and the line.
#[derive(Clone, Debug)]
pub(super) struct Deco {
    pub name: String,
    pub args: Vec<Tok>,
}

/// A basic block: its label and the lines of its instructions (without
/// `OpLabel`; the last one is the terminator).
#[derive(Clone, Debug)]
pub(super) struct Block {
    pub label: Id,
    pub line: usize,
    pub body: Vec<usize>,
}

/// Control-flow facts of one function.
#[derive(Clone, Debug, Default)]
pub(super) struct Cfg {
    pub succs: Vec<Vec<usize>>,
    /// Reachable predecessors.
    pub preds: Vec<Vec<usize>>,
    pub reachable: Vec<bool>,
    /// `doms[b][a]`: block `a` dominates block `b` (reachable blocks).
    pub doms: Vec<Vec<bool>>,
    /// Natural loop body of each loop header (header included).
    pub loop_body: Vec<Option<Vec<bool>>>,
    /// Blocks reached from more than one place (or loop headers).
    pub join: Vec<bool>,
    /// Block defining each result id of the function.
    pub def_block: HashMap<Id, usize>,
    /// Phi lines at the start of each block.
    pub phis: Vec<Vec<usize>>,
}

impl Cfg {
    pub fn strictly_dominates(&self, a: usize, b: usize) -> bool {
        a != b
            && self
                .doms
                .get(b)
                .is_some_and(|d| d.get(a).copied().unwrap_or(false))
    }
    pub fn in_loop(&self, header: usize, b: usize) -> bool {
        self.loop_body
            .get(header)
            .and_then(|x| x.as_ref())
            .is_some_and(|body| body.get(b).copied().unwrap_or(false))
    }
    pub fn is_header(&self, b: usize) -> bool {
        self.loop_body.get(b).is_some_and(Option::is_some)
    }
}

/// A function.
#[derive(Clone, Debug)]
pub(super) struct Func {
    pub end_line: usize,
    pub params: Vec<Id>,
    pub blocks: Vec<Block>,
    pub block_of: HashMap<Id, usize>,
    pub cfg: Cfg,
    /// `OpVariable … Function` result ids (one region each).
    pub vars: Vec<Id>,
}

/// A `NonSemantic.ClspvReflection` instruction: name and operands.
#[derive(Clone, Debug)]
pub(super) struct Reflection {
    pub name: String,
    pub line: usize,
}

/// Harness-level settings the module needs to evaluate constants.
#[derive(Clone, Debug, Default)]
pub(super) struct Settings {
    pub grid: Grid,
    /// `@Input` values for specialisation constants, by id.
    pub spec_values: HashMap<Id, (i128, Pos)>,
}

/// Opcodes with no effect on the program's behaviour.
const IGNORED: &[&str] = &[
    "OpNop",
    "OpSource",
    "OpSourceContinued",
    "OpSourceExtension",
    "OpName",
    "OpMemberName",
    "OpString",
    "OpLine",
    "OpNoLine",
    "OpModuleProcessed",
    "OpCapability",
    "OpExtension",
    "OpMemoryModel",
    "OpExecutionMode",
    "OpExecutionModeId",
    "OpSelectionMerge",
    "OpLoopMerge",
];

const TYPES: &[&str] = &[
    "OpTypeVoid",
    "OpTypeBool",
    "OpTypeInt",
    "OpTypeFloat",
    "OpTypeVector",
    "OpTypeMatrix",
    "OpTypeArray",
    "OpTypeRuntimeArray",
    "OpTypeStruct",
    "OpTypePointer",
    "OpTypeFunction",
    "OpTypeImage",
    "OpTypeSampler",
    "OpTypeSampledImage",
    "OpTypeEvent",
    "OpTypeDeviceEvent",
    "OpTypeReserveId",
    "OpTypeQueue",
    "OpTypePipe",
    "OpTypeOpaque",
];

const CONSTANTS: &[&str] = &[
    "OpConstant",
    "OpConstantTrue",
    "OpConstantFalse",
    "OpConstantComposite",
    "OpConstantNull",
    "OpConstantSampler",
    "OpSpecConstant",
    "OpSpecConstantTrue",
    "OpSpecConstantFalse",
    "OpSpecConstantComposite",
    "OpSpecConstantOp",
    "OpUndef",
];

/// Whether `op` is spelt like a SPIR-V opcode (`OpGroupIAdd`): `Op`, a
/// capital letter, then letters and digits.
fn is_opcode_name(op: &str) -> bool {
    op.strip_prefix("Op").is_some_and(|rest| {
        rest.starts_with(|c: char| c.is_ascii_uppercase())
            && rest.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// Opcodes the lowering understands inside function bodies.
pub(super) const BODY: &[&str] = &[
    "OpVariable",
    "OpLoad",
    "OpStore",
    "OpAccessChain",
    "OpInBoundsAccessChain",
    "OpPtrAccessChain",
    "OpInBoundsPtrAccessChain",
    "OpCopyObject",
    "OpPtrCastToGeneric",
    "OpGenericCastToPtr",
    "OpConvertPtrToU",
    "OpConvertUToPtr",
    "OpSampledImage",
    "OpImageRead",
    "OpImageWrite",
    "OpImageSampleExplicitLod",
    "OpImageFetch",
    "OpImageQuerySize",
    "OpImageQuerySizeLod",
    "OpImageQueryFormat",
    "OpImageQueryOrder",
    "OpImageQueryLevels",
    "OpLifetimeStart",
    "OpLifetimeStop",
    "OpCopyMemorySized",
    "OpAtomicLoad",
    "OpAtomicStore",
    "OpAtomicExchange",
    "OpAtomicCompareExchange",
    "OpAtomicIIncrement",
    "OpAtomicIDecrement",
    "OpAtomicIAdd",
    "OpAtomicISub",
    "OpAtomicSMin",
    "OpAtomicSMax",
    "OpAtomicUMin",
    "OpAtomicUMax",
    "OpAtomicAnd",
    "OpAtomicOr",
    "OpAtomicXor",
    "OpControlBarrier",
    "OpMemoryBarrier",
    "OpIAdd",
    "OpISub",
    "OpIMul",
    "OpUDiv",
    "OpSDiv",
    "OpUMod",
    "OpSRem",
    "OpSMod",
    "OpSNegate",
    "OpNot",
    "OpShiftLeftLogical",
    "OpShiftRightLogical",
    "OpShiftRightArithmetic",
    "OpBitwiseAnd",
    "OpBitwiseOr",
    "OpBitwiseXor",
    "OpBitCount",
    "OpIEqual",
    "OpINotEqual",
    "OpULessThan",
    "OpULessThanEqual",
    "OpUGreaterThan",
    "OpUGreaterThanEqual",
    "OpSLessThan",
    "OpSLessThanEqual",
    "OpSGreaterThan",
    "OpSGreaterThanEqual",
    "OpLogicalEqual",
    "OpLogicalNotEqual",
    "OpLogicalAnd",
    "OpLogicalOr",
    "OpLogicalNot",
    "OpSelect",
    "OpUConvert",
    "OpSConvert",
    "OpBitcast",
    "OpCompositeExtract",
    "OpCompositeInsert",
    "OpCompositeConstruct",
    "OpVectorShuffle",
    "OpVectorExtractDynamic",
    "OpVectorInsertDynamic",
    "OpExtInst",
    "OpPhi",
    "OpFunctionCall",
    "OpBranch",
    "OpBranchConditional",
    "OpSwitch",
    "OpReturn",
    "OpReturnValue",
    "OpUnreachable",
];

/// Floating-point arithmetic, conversions and tests: each result is a
/// free value of its type (see `lower.rs`, "Floating point").
pub(super) const FLOAT_OPS: &[&str] = &[
    "OpFNegate",
    "OpFAdd",
    "OpFSub",
    "OpFMul",
    "OpFDiv",
    "OpFRem",
    "OpFMod",
    "OpVectorTimesScalar",
    "OpDot",
    "OpConvertFToU",
    "OpConvertFToS",
    "OpConvertSToF",
    "OpConvertUToF",
    "OpFConvert",
    "OpQuantizeToF16",
    "OpFOrdEqual",
    "OpFUnordEqual",
    "OpFOrdNotEqual",
    "OpFUnordNotEqual",
    "OpFOrdLessThan",
    "OpFUnordLessThan",
    "OpFOrdGreaterThan",
    "OpFUnordGreaterThan",
    "OpFOrdLessThanEqual",
    "OpFUnordLessThanEqual",
    "OpFOrdGreaterThanEqual",
    "OpFUnordGreaterThanEqual",
    "OpIsNan",
    "OpIsInf",
    "OpIsFinite",
    "OpIsNormal",
    "OpSignBitSet",
    "OpOrdered",
    "OpUnordered",
];

const TERMINATORS: &[&str] = &[
    "OpBranch",
    "OpBranchConditional",
    "OpSwitch",
    "OpReturn",
    "OpReturnValue",
    "OpUnreachable",
    "OpKill",
    "OpTerminateInvocation",
];

/// Extended instruction sets with no effect on behaviour: non-semantic
/// sets and the OpenCL debug information `llvm-spirv` writes under `-g`.
pub(super) fn is_debug_info(set_name: &str) -> bool {
    set_name.starts_with("NonSemantic.") || set_name == "OpenCL.DebugInfo.100"
}

/// The bit pattern (sign-extended, as every value) of the floating-point
/// literal of `line`'s first operand after its type, for a `w`-bit float:
/// `spirv-dis` writes `1`, `-0.5`, `1e+10` or hexadecimal floats
/// (`0x1.8p+1`).
fn float_bits(line: &Line, w: u32, pos: Pos) -> Result<i64> {
    let text = match line.args.get(1).map(|t| &t.kind) {
        Some(Kind::Int(v)) => v.to_string(),
        Some(Kind::Float(t)) => t.clone(),
        _ => return Err(Error::syntax(pos, "expected a floating-point literal")),
    };
    let x = parse_float(&text).ok_or_else(|| {
        Error::syntax(
            pos,
            format!(
                "malformed floating-point literal `{}`",
                crate::diag::excerpt(&text)
            ),
        )
    })?;
    match w {
        32 => Ok(i64::from((x as f32).to_bits() as i32)),
        64 => Ok(x.to_bits() as i64),
        _ => Err(Error::unsupported(
            pos,
            format!("{w}-bit floating-point constants"),
        )),
    }
}

/// A decimal or hexadecimal (`-0x1.8p+1`) floating-point literal.
fn parse_float(t: &str) -> Option<f64> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let v = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        None => body.parse::<f64>().ok()?,
        Some(hex) => {
            let (mant, exp) = match hex.find(['p', 'P']) {
                Some(k) => (&hex[..k], hex[k + 1..].parse::<i32>().ok()?),
                None => (hex, 0),
            };
            let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
            let mut v = 0f64;
            for c in int.chars() {
                v = v * 16.0 + f64::from(c.to_digit(16)?);
            }
            let mut scale = 1.0 / 16.0;
            for c in frac.chars() {
                v += f64::from(c.to_digit(16)?) * scale;
                scale /= 16.0;
            }
            v * 2f64.powi(exp)
        }
    };
    Some(if neg { -v } else { v })
}

/// Largest explicit offset or stride.
const MAX_OFFSET: u64 = 1 << 32;

/// Largest number of blocks in one function.
const MAX_BLOCKS: usize = 4096;

/// The parsed module.
pub(super) struct Module {
    pub lines: Vec<Line>,
    pub names: Vec<String>,
    index: HashMap<String, Id>,
    /// Line of each id's definition.
    pub def: Vec<Option<usize>>,
    pub decos: HashMap<Id, Vec<Deco>>,
    pub member_decos: HashMap<(Id, u32), Vec<Deco>>,
    /// `OpMemberName` (debug names of struct members, for witnesses).
    member_names: HashMap<(Id, u32), String>,
    /// `OpName` debug names usable in place of the id in location and
    /// register names (see [`Module::display`]).
    display_names: HashMap<Id, String>,
    pub functions: Vec<Func>,
    pub func_of: HashMap<Id, usize>,
    /// The entry point's function index and the `OpEntryPoint` line.
    pub entry: (usize, usize),
    /// Global variables in declaration order.
    pub globals: Vec<Id>,
    /// `OpMemoryModel … OpenCL`: compiled from OpenCL C (the `opencl`
    /// model is its default).
    pub opencl: bool,
    /// `OpMemoryModel Physical64 …`: 64-bit addresses (byte offsets are
    /// not taken modulo 2^32).
    pub physical64: bool,
    pub ext_imports: HashMap<Id, String>,
    pub reflection: Vec<Reflection>,
    pub settings: Settings,
    types: RefCell<HashMap<Id, Rc<Type>>>,
    consts: RefCell<HashMap<Id, Val>>,
    /// The registers standing for the scalars of `OpUndef` values (see
    /// [`Module::undef`]), with the line of their `OpUndef` and their type.
    undef_regs: RefCell<HashMap<Rc<str>, (usize, ValueType)>>,
    /// SpecId → workgroup-size dimension (clspv `SpecConstantWorkgroupSize`).
    wg_spec_ids: RefCell<Option<HashMap<i64, usize>>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Global,
    Params(usize),
    Block(usize),
}

impl Module {
    /// Builds the module from lexed lines (`settings.spec_values` is keyed
    /// by name in `spec_names` and resolved here).
    pub fn build(
        lines: Vec<Line>,
        grid: Grid,
        spec_names: &[(String, i128, Pos)],
    ) -> Result<Module> {
        let mut m = Module {
            lines,
            names: Vec::new(),
            index: HashMap::new(),
            def: Vec::new(),
            decos: HashMap::new(),
            member_decos: HashMap::new(),
            member_names: HashMap::new(),
            display_names: HashMap::new(),
            functions: Vec::new(),
            func_of: HashMap::new(),
            entry: (0, 0),
            globals: Vec::new(),
            opencl: false,
            physical64: false,
            ext_imports: HashMap::new(),
            reflection: Vec::new(),
            settings: Settings {
                grid,
                spec_values: HashMap::new(),
            },
            types: RefCell::new(HashMap::new()),
            consts: RefCell::new(HashMap::new()),
            undef_regs: RefCell::new(HashMap::new()),
            wg_spec_ids: RefCell::new(None),
        };
        m.scan()?;
        m.choose_display_names();
        for (name, v, pos) in spec_names {
            let id = m.intern(name);
            m.settings.spec_values.insert(id, (*v, *pos));
        }
        for fi in 0..m.functions.len() {
            let cfg = m.analyse(fi)?;
            m.functions[fi].cfg = cfg;
        }
        Ok(m)
    }

    pub fn intern(&mut self, name: &str) -> Id {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        self.def.push(None);
        id
    }

    pub fn lookup(&self, name: &str) -> Option<Id> {
        self.index.get(name).copied()
    }

    /// The name a function is linked by (`LinkageAttributes`), else its
    /// id as written.
    pub fn linkage_name(&self, id: Id) -> &str {
        self.decos
            .get(&id)
            .and_then(|ds| ds.iter().find(|d| d.name == "LinkageAttributes"))
            .and_then(|d| match d.args.first().map(|t| &t.kind) {
                Some(Kind::Str(s)) => Some(s.as_str()),
                _ => None,
            })
            .unwrap_or_else(|| self.name(id))
    }

    pub fn name(&self, id: Id) -> &str {
        self.names.get(id as usize).map_or("?", String::as_str)
    }

    /// The name an id goes by in the program's locations and registers
    /// (witnesses, final states): its `OpName` when it has a usable one,
    /// else its id as written (`14` for `%14`). See
    /// [`Module::choose_display_names`].
    pub fn display(&self, id: Id) -> &str {
        self.display_names
            .get(&id)
            .map_or_else(|| self.name(id), String::as_str)
    }

    /// The id whose display name ([`Module::display`]) is `name`, when it is
    /// not also an id as written: headers may name a variable either way.
    pub fn lookup_display(&self, name: &str) -> Option<Id> {
        if self.index.contains_key(name) {
            return None;
        }
        self.display_names
            .iter()
            .find(|(_, n)| n.as_str() == name)
            .map(|(&id, _)| id)
    }

    /// Chooses the `OpName`s used as display names: only a name made of
    /// letters, digits and `_` (a name is printed after `%` and before
    /// `[i]`/`#n`), given to exactly one id, and not the written name of
    /// another id, so that display names stay unique and never mean
    /// another id's text.
    fn choose_display_names(&mut self) {
        let mut named: Vec<(Id, String)> = Vec::new();
        for li in 0..self.lines.len() {
            if self.lines[li].opcode != "OpName" {
                continue;
            }
            if let (Ok(id), Ok(name)) = (self.arg_id(li, 0), self.arg_string(li, 1)) {
                named.push((id, name));
            }
        }
        let mut uses: HashMap<&str, usize> = HashMap::new();
        for (_, n) in &named {
            *uses.entry(n.as_str()).or_default() += 1;
        }
        let mut chosen = HashMap::new();
        for (id, n) in &named {
            let usable = !n.is_empty()
                && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && uses[n.as_str()] == 1
                && self.index.get(n.as_str()).is_none_or(|&other| other == *id)
                && !chosen.contains_key(id);
            if usable && n != self.name(*id) {
                chosen.insert(*id, n.clone());
            }
        }
        self.display_names = chosen;
    }

    /// `%name` for messages.
    /// An id as errors quote it (its name short).
    pub fn show(&self, id: Id) -> String {
        format!("%{}", crate::diag::excerpt(self.name(id)))
    }

    pub fn line(&self, li: usize) -> &Line {
        &self.lines[li]
    }

    /// Position of operand `k` of line `li` (the opcode when absent).
    pub fn arg_pos(&self, li: usize, k: usize) -> Pos {
        let l = &self.lines[li];
        match l.args.get(k) {
            Some(t) => Pos {
                line: l.line,
                col: t.col,
            },
            None => l.pos(),
        }
    }

    fn scan(&mut self) -> Result<()> {
        let mut section = Section::Global;
        let mut entry: Option<(Id, usize)> = None;
        let n = self.lines.len();
        for li in 0..n {
            let op = self.lines[li].opcode.clone();
            let pos = self.lines[li].pos();
            // Intern every id operand (so lookups never fail on a known name).
            let arg_ids: Vec<String> = self.lines[li]
                .args
                .iter()
                .filter_map(|t| match &t.kind {
                    Kind::Id(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            for s in &arg_ids {
                self.intern(s);
            }
            if let Some((name, col)) = self.lines[li].result.clone() {
                let id = self.intern(&name);
                if let Some(prev) = self.def[id as usize] {
                    return Err(Error::semantic(
                        Pos {
                            line: self.lines[li].line,
                            col,
                        },
                        format!(
                            "`%{name}` is already defined on line {}",
                            self.lines[prev].line
                        ),
                    ));
                }
                self.def[id as usize] = Some(li);
            }
            let op = op.as_str();
            if op == "OpMemberName" {
                // Debug information: kept when well-formed, never an error.
                if let (Ok(ty), Ok(k), Ok(name)) = (
                    self.arg_id(li, 0),
                    self.arg_lit(li, 1),
                    self.arg_string(li, 2),
                ) {
                    if let Ok(k) = u32::try_from(k) {
                        self.member_names.insert((ty, k), name);
                    }
                }
            }
            if op == "OpMemoryModel" {
                self.opencl = matches!(
                    self.lines[li].args.get(1).map(|t| &t.kind),
                    Some(Kind::Word(w)) if w == "OpenCL"
                );
                self.physical64 = matches!(
                    self.lines[li].args.first().map(|t| &t.kind),
                    Some(Kind::Word(w)) if w == "Physical64"
                );
            }
            if IGNORED.contains(&op) {
                continue;
            }
            match op {
                "OpEntryPoint" => {
                    if entry.is_none() {
                        let f = self.arg_id(li, 1)?;
                        entry = Some((f, li));
                    }
                }
                "OpDecorate" | "OpDecorateId" | "OpDecorateString" => {
                    let target = self.arg_id(li, 0)?;
                    let name = self.arg_word(li, 1)?;
                    let args = self.lines[li].args[2..].to_vec();
                    self.decos
                        .entry(target)
                        .or_default()
                        .push(Deco { name, args });
                }
                "OpMemberDecorate" | "OpMemberDecorateString" => {
                    let target = self.arg_id(li, 0)?;
                    let member = self.arg_lit(li, 1)?;
                    let member = u32::try_from(member)
                        .map_err(|_| Error::semantic(self.arg_pos(li, 1), "bad member index"))?;
                    let name = self.arg_word(li, 2)?;
                    let args = self.lines[li].args[3..].to_vec();
                    self.member_decos
                        .entry((target, member))
                        .or_default()
                        .push(Deco { name, args });
                }
                "OpExtInstImport" => {
                    let id = self.result(li)?;
                    let name = match self.lines[li].args.first().map(|t| &t.kind) {
                        Some(Kind::Str(s)) => s.clone(),
                        _ => {
                            return Err(Error::syntax(
                                self.arg_pos(li, 0),
                                "expected the instruction-set name (a string)",
                            ))
                        }
                    };
                    self.ext_imports.insert(id, name);
                }
                "OpFunction" => {
                    if section != Section::Global {
                        return Err(Error::syntax(pos, "`OpFunction` inside a function"));
                    }
                    let id = self.result(li)?;
                    self.func_of.insert(id, self.functions.len());
                    self.functions.push(Func {
                        end_line: li,
                        params: Vec::new(),
                        blocks: Vec::new(),
                        block_of: HashMap::new(),
                        cfg: Cfg::default(),
                        vars: Vec::new(),
                    });
                    section = Section::Params(self.functions.len() - 1);
                }
                "OpFunctionParameter" => {
                    let Section::Params(fi) = section else {
                        return Err(Error::syntax(
                            pos,
                            "`OpFunctionParameter` outside a function header",
                        ));
                    };
                    let id = self.result(li)?;
                    self.functions[fi].params.push(id);
                }
                "OpLabel" => {
                    let fi = match section {
                        Section::Params(fi) => fi,
                        Section::Block(fi) => {
                            if !self.block_terminated(fi) {
                                return Err(Error::syntax(
                                    pos,
                                    "the previous block does not end with a terminator",
                                ));
                            }
                            fi
                        }
                        Section::Global => {
                            return Err(Error::syntax(pos, "`OpLabel` outside a function"))
                        }
                    };
                    let id = self.result(li)?;
                    let f = &mut self.functions[fi];
                    if f.blocks.len() >= MAX_BLOCKS {
                        return Err(Error::unsupported(
                            pos,
                            format!("function with more than {MAX_BLOCKS} blocks"),
                        ));
                    }
                    f.block_of.insert(id, f.blocks.len());
                    f.blocks.push(Block {
                        label: id,
                        line: li,
                        body: Vec::new(),
                    });
                    section = Section::Block(fi);
                }
                "OpFunctionEnd" => {
                    let fi = match section {
                        Section::Block(fi) => fi,
                        // A declaration (an imported function): kept
                        // without blocks; a call to it says what it is.
                        Section::Params(fi) => {
                            self.functions[fi].end_line = li;
                            section = Section::Global;
                            continue;
                        }
                        Section::Global => {
                            return Err(Error::syntax(pos, "`OpFunctionEnd` outside a function"))
                        }
                    };
                    if !self.block_terminated(fi) {
                        return Err(Error::syntax(
                            pos,
                            "the last block does not end with a terminator",
                        ));
                    }
                    self.functions[fi].end_line = li;
                    section = Section::Global;
                }
                _ if TYPES.contains(&op) || CONSTANTS.contains(&op) => {
                    self.result(li)?;
                }
                "OpVariable" => {
                    let id = self.result(li)?;
                    let class_word = self.arg_word(li, 1)?;
                    let class = Class::parse(&class_word).ok_or_else(|| {
                        Error::unsupported(
                            self.arg_pos(li, 1),
                            format!("storage class `{class_word}`"),
                        )
                    })?;
                    if class == Class::Function {
                        let Section::Block(fi) = section else {
                            return Err(Error::semantic(
                                pos,
                                "`Function` variables must be declared inside a function",
                            ));
                        };
                        self.functions[fi].vars.push(id);
                        self.push_body(fi, li)?;
                    } else {
                        if section != Section::Global {
                            return Err(Error::semantic(
                                pos,
                                format!(
                                    "`{}` variables must be declared outside functions",
                                    class.name()
                                ),
                            ));
                        }
                        self.globals.push(id);
                    }
                }
                "OpExtInst" if section == Section::Global => {
                    let set = self.arg_id(li, 1)?;
                    let set_name = self.ext_imports.get(&set).cloned().ok_or_else(|| {
                        Error::semantic(
                            self.arg_pos(li, 1),
                            format!("`{}` is not an imported instruction set", self.show(set)),
                        )
                    })?;
                    if set_name.starts_with("NonSemantic.ClspvReflection") {
                        let name = self.arg_word(li, 2)?;
                        self.reflection.push(Reflection { name, line: li });
                    } else if !is_debug_info(&set_name) {
                        return Err(Error::unsupported(
                            pos,
                            format!("`OpExtInst` of `{set_name}` outside a function"),
                        ));
                    }
                }
                // Debug information inside functions (`DebugScope`, …).
                "OpExtInst" if self.is_debug_ext_inst(li) => {}
                _ if BODY.contains(&op) || FLOAT_OPS.contains(&op) => match section {
                    Section::Block(fi) => self.push_instruction(fi, li)?,
                    _ => {
                        return Err(Error::syntax(
                            pos,
                            format!("`{op}` outside a function body"),
                        ))
                    }
                },
                // An opcode gpumc does not model, inside a function: the
                // lowering refuses it if the checked entry point reaches
                // it, so one kernel of a module using it does not make
                // the module's other kernels uncheckable. (A terminator
                // gpumc does not model, `OpKill`, ends the block: refused
                // here, since the block's extent depends on it.)
                _ => match section {
                    Section::Block(fi) if is_opcode_name(op) && !TERMINATORS.contains(&op) => {
                        self.push_instruction(fi, li)?
                    }
                    _ => {
                        return Err(Error::unsupported(
                            pos,
                            format!("opcode `{}`", crate::diag::excerpt(op)),
                        ));
                    }
                },
            }
        }
        if section != Section::Global {
            return Err(Error::syntax(
                Pos {
                    line: self.lines.last().map_or(1, |l| l.line),
                    col: 1,
                },
                "missing `OpFunctionEnd`",
            ));
        }
        let Some((f, li)) = entry else {
            return Err(Error::semantic(
                Pos { line: 1, col: 1 },
                "no `OpEntryPoint`",
            ));
        };
        let fi = *self.func_of.get(&f).ok_or_else(|| {
            Error::semantic(
                self.arg_pos(li, 1),
                format!("entry point `{}` is not a function", self.show(f)),
            )
        })?;
        self.entry = (fi, li);
        Ok(())
    }

    /// Whether line `li` is an `OpExtInst` of a debug-information set.
    fn is_debug_ext_inst(&self, li: usize) -> bool {
        self.arg_id(li, 1)
            .ok()
            .and_then(|set| self.ext_imports.get(&set))
            .is_some_and(|name| is_debug_info(name))
    }

    fn block_terminated(&self, fi: usize) -> bool {
        self.functions[fi]
            .blocks
            .last()
            .and_then(|b| b.body.last())
            .is_some_and(|&li| TERMINATORS.contains(&self.lines[li].opcode.as_str()))
    }

    /// Appends the body instruction at line `li` to function `fi`'s
    /// last block, which must not have ended.
    fn push_instruction(&mut self, fi: usize, li: usize) -> Result<()> {
        if self.block_terminated(fi) {
            return Err(Error::syntax(
                self.lines[li].pos(),
                "instruction after the block's terminator (missing `OpLabel`)",
            ));
        }
        self.push_body(fi, li)
    }

    fn push_body(&mut self, fi: usize, li: usize) -> Result<()> {
        match self.functions[fi].blocks.last_mut() {
            Some(b) => {
                b.body.push(li);
                Ok(())
            }
            None => Err(Error::syntax(
                self.lines[li].pos(),
                "instruction before the function's first `OpLabel`",
            )),
        }
    }

    // ----- operand access -------------------------------------------------

    pub fn result(&self, li: usize) -> Result<Id> {
        match &self.lines[li].result {
            Some((name, _)) => self
                .lookup(name)
                .ok_or_else(|| Error::semantic(self.lines[li].pos(), "unknown result id")),
            None => Err(Error::syntax(
                self.lines[li].pos(),
                format!("`{}` needs a result id", self.lines[li].opcode),
            )),
        }
    }

    fn missing(&self, li: usize, k: usize, what: &str) -> Error {
        let l = &self.lines[li];
        let pos = match l.args.last() {
            Some(t) if k > 0 => Pos {
                line: l.line,
                col: t.col,
            },
            _ => l.pos(),
        };
        Error::syntax(
            pos,
            format!("`{}` is missing operand {} ({what})", l.opcode, k + 1),
        )
    }

    pub fn arg_id(&self, li: usize, k: usize) -> Result<Id> {
        match self.lines[li].args.get(k).map(|t| &t.kind) {
            Some(Kind::Id(name)) => self
                .lookup(name)
                .ok_or_else(|| Error::semantic(self.arg_pos(li, k), "unknown id")),
            Some(_) => Err(Error::syntax(
                self.arg_pos(li, k),
                "expected an id (`%name`)",
            )),
            None => Err(self.missing(li, k, "an id")),
        }
    }

    pub fn arg_lit(&self, li: usize, k: usize) -> Result<i128> {
        match self.lines[li].args.get(k).map(|t| &t.kind) {
            Some(Kind::Int(v)) => Ok(*v),
            Some(Kind::Float(_)) => Err(Error::unsupported(
                self.arg_pos(li, k),
                "floating-point literals",
            )),
            Some(_) => Err(Error::syntax(
                self.arg_pos(li, k),
                "expected an integer literal",
            )),
            None => Err(self.missing(li, k, "an integer")),
        }
    }

    pub fn arg_word(&self, li: usize, k: usize) -> Result<String> {
        match self.lines[li].args.get(k).map(|t| &t.kind) {
            Some(Kind::Word(w)) => Ok(w.clone()),
            Some(Kind::Int(v)) => Ok(v.to_string()),
            Some(_) => Err(Error::syntax(self.arg_pos(li, k), "expected an enumerant")),
            None => Err(self.missing(li, k, "an enumerant")),
        }
    }

    pub fn arg_string(&self, li: usize, k: usize) -> Result<String> {
        match self.lines[li].args.get(k).map(|t| &t.kind) {
            Some(Kind::Str(s)) => Ok(s.clone()),
            Some(_) => Err(Error::syntax(self.arg_pos(li, k), "expected a string")),
            None => Err(self.missing(li, k, "a string")),
        }
    }

    /// The `OpMemberName` of member `k` of struct type `ty`, if any.
    pub fn member_name(&self, ty: Id, k: usize) -> Option<String> {
        let k = u32::try_from(k).ok()?;
        self.member_names.get(&(ty, k)).cloned()
    }

    pub fn nargs(&self, li: usize) -> usize {
        self.lines[li].args.len()
    }

    /// Line defining `id`, or a "not defined" error at `pos`.
    pub fn def_line(&self, id: Id, pos: Pos) -> Result<usize> {
        self.def
            .get(id as usize)
            .copied()
            .flatten()
            .ok_or_else(|| Error::semantic(pos, format!("`{}` is not defined", self.show(id))))
    }

    pub fn decos(&self, id: Id) -> &[Deco] {
        self.decos.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The integer operand of decoration `name` on `id`, if any.
    pub fn deco_lit(&self, id: Id, name: &str) -> Option<i128> {
        self.decos(id)
            .iter()
            .find(|d| d.name == name)
            .and_then(|d| match d.args.first().map(|t| &t.kind) {
                Some(Kind::Int(v)) => Some(*v),
                _ => None,
            })
    }

    /// The `BuiltIn` decoration of `id`.
    pub fn builtin(&self, id: Id) -> Option<String> {
        self.decos(id)
            .iter()
            .find(|d| d.name == "BuiltIn")
            .and_then(|d| match d.args.first().map(|t| &t.kind) {
                Some(Kind::Word(w)) => Some(w.clone()),
                _ => None,
            })
    }

    // ----- types -------------------------------------------------------

    /// The type `id` names.
    pub fn ty(&self, id: Id, pos: Pos) -> Result<Rc<Type>> {
        if let Some(t) = self.types.borrow().get(&id) {
            return Ok(t.clone());
        }
        let li = self.def_line(id, pos)?;
        let op = self.lines[li].opcode.as_str();
        let t = match op {
            "OpTypeVoid" => Type::Void,
            "OpTypeBool" => Type::Bool,
            "OpTypeInt" => {
                let w = self.arg_lit(li, 0)?;
                // Width 1 stands for booleans (`value_type`).
                if !(2..=64).contains(&w) {
                    return Err(Error::unsupported(
                        self.arg_pos(li, 0),
                        format!("integer width {w} (2 to 64 supported)"),
                    ));
                }
                Type::Int { width: w as u32 }
            }
            "OpTypeFloat" => Type::Float {
                width: u32::try_from(self.arg_lit(li, 0)?).unwrap_or(0),
            },
            "OpTypeVector" => {
                let elem = self.arg_id(li, 0)?;
                let n = self.arg_lit(li, 1)?;
                if !(1..=4096).contains(&n) {
                    return Err(Error::semantic(self.arg_pos(li, 1), "bad vector size"));
                }
                Type::Vector { elem, n: n as u32 }
            }
            "OpTypeArray" => {
                let elem = self.arg_id(li, 0)?;
                let lid = self.arg_id(li, 1)?;
                let len = self.constant(lid, self.arg_pos(li, 1))?;
                let len = len.int().filter(|&v| v >= 1).ok_or_else(|| {
                    Error::semantic(
                        self.arg_pos(li, 1),
                        "array length must be a positive constant",
                    )
                })?;
                Type::Array {
                    elem,
                    len: len as u64,
                }
            }
            "OpTypeRuntimeArray" => Type::RuntimeArray {
                elem: self.arg_id(li, 0)?,
            },
            "OpTypeStruct" => {
                let mut members = Vec::new();
                for k in 0..self.nargs(li) {
                    members.push(self.arg_id(li, k)?);
                }
                Type::Struct { members }
            }
            "OpTypePointer" => {
                let w = self.arg_word(li, 0)?;
                let class = Class::parse(&w).ok_or_else(|| {
                    Error::unsupported(self.arg_pos(li, 0), format!("storage class `{w}`"))
                })?;
                Type::Pointer {
                    class,
                    pointee: self.arg_id(li, 1)?,
                }
            }
            "OpTypeFunction" => Type::Function,
            _ if TYPES.contains(&op) => Type::Opaque(op.to_string()),
            _ => {
                return Err(Error::semantic(
                    pos,
                    format!("`{}` is not a type", self.show(id)),
                ))
            }
        };
        let t = Rc::new(t);
        self.types.borrow_mut().insert(id, t.clone());
        Ok(t)
    }

    /// Width of an integer type (1 for `bool`), or an error naming the type.
    pub fn scalar_width(&self, ty: Id, pos: Pos) -> Result<u32> {
        match &*self.ty(ty, pos)? {
            Type::Int { width } => Ok(*width),
            Type::Bool => Ok(1),
            // A floating-point value is its bit pattern: loads, stores
            // and copies keep it; arithmetic on it gives a free value
            // (`lower.rs`, "Floating point").
            Type::Float { width } => Ok(*width),
            Type::Opaque(op) if op == "OpTypeEvent" => Ok(64),
            other => Err(Error::semantic(
                pos,
                format!("expected a scalar type, found {}", self.describe(other)),
            )),
        }
    }

    pub fn describe(&self, t: &Type) -> String {
        match t {
            Type::Void => "void".into(),
            Type::Bool => "bool".into(),
            Type::Int { width } => format!("int{width}"),
            Type::Float { width } => format!("float{width}"),
            Type::Vector { n, .. } => format!("a {n}-component vector"),
            Type::Array { len, .. } => format!("an array of {len}"),
            Type::RuntimeArray { .. } => "a runtime array".into(),
            Type::Struct { .. } => "a struct".into(),
            Type::Pointer { class, .. } => format!("a {} pointer", class.name()),
            Type::Function => "a function type".into(),
            Type::Opaque(op) => format!("an `{op}` type"),
        }
    }

    /// Size in bytes (runtime arrays count as 0).
    pub fn size_of(&self, ty: Id, pos: Pos) -> Result<u64> {
        self.size_depth(ty, pos, 0)
    }

    fn size_depth(&self, ty: Id, pos: Pos, depth: u32) -> Result<u64> {
        if depth > 64 {
            return Err(Error::semantic(pos, "type nested too deeply (cyclic?)"));
        }
        Ok(match &*self.ty(ty, pos)? {
            Type::Bool => 4,
            Type::Int { width } | Type::Float { width } => u64::from(width.div_ceil(8)),
            Type::Vector { elem, n } => self
                .size_depth(*elem, pos, depth + 1)?
                .checked_mul(u64::from(*n))
                .filter(|&v| v < 1 << 40)
                .ok_or_else(|| Error::unsupported(pos, "vector larger than 2^40 bytes"))?,
            Type::Array { len, .. } => {
                let s = self.stride_depth(ty, pos, depth + 1)?;
                s.checked_mul(*len)
                    .filter(|&v| v < 1 << 40)
                    .ok_or_else(|| Error::unsupported(pos, "array larger than 2^40 bytes"))?
            }
            Type::RuntimeArray { .. } => 0,
            Type::Struct { members } => {
                let mut end = 0u64;
                for (i, &mt) in members.iter().enumerate() {
                    let off = self.member_offset_depth(ty, i, pos, depth + 1)?;
                    end = end.max(off.saturating_add(self.size_depth(mt, pos, depth + 1)?));
                }
                let a = self.align_depth(ty, pos, depth + 1)?;
                end.div_ceil(a).saturating_mul(a)
            }
            // An event (OpenCL's `event_t`, which gpumc's header makes
            // the null event) is an opaque handle the size of a pointer.
            Type::Pointer { .. } => 8,
            Type::Opaque(op) if op == "OpTypeEvent" => 8,
            other => {
                return Err(Error::unsupported(
                    pos,
                    format!("memory layout of {}", self.describe(other)),
                ))
            }
        })
    }

    fn align_depth(&self, ty: Id, pos: Pos, depth: u32) -> Result<u64> {
        if depth > 64 {
            return Err(Error::semantic(pos, "type nested too deeply (cyclic?)"));
        }
        Ok(match &*self.ty(ty, pos)? {
            Type::Vector { elem, .. } | Type::Array { elem, .. } | Type::RuntimeArray { elem } => {
                self.align_depth(*elem, pos, depth + 1)?
            }
            Type::Struct { members } => {
                let mut a = 1;
                for &mt in members {
                    a = a.max(self.align_depth(mt, pos, depth + 1)?);
                }
                a
            }
            _ => self.size_depth(ty, pos, depth + 1)?.max(1),
        })
    }

    /// Stride of an array type: `ArrayStride` or the padded element size.
    pub fn stride(&self, ty: Id, pos: Pos) -> Result<u64> {
        self.stride_depth(ty, pos, 0)
    }

    fn stride_depth(&self, ty: Id, pos: Pos, depth: u32) -> Result<u64> {
        if let Some(s) = self.deco_lit(ty, "ArrayStride") {
            return u64::try_from(s)
                .ok()
                .filter(|&s| s <= MAX_OFFSET)
                .ok_or_else(|| Error::unsupported(pos, format!("ArrayStride {s}")));
        }
        let elem = match &*self.ty(ty, pos)? {
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => *elem,
            Type::Pointer { pointee, .. } => *pointee,
            other => {
                return Err(Error::semantic(
                    pos,
                    format!("no stride for {}", self.describe(other)),
                ))
            }
        };
        let s = self.size_depth(elem, pos, depth + 1)?;
        let a = self.align_depth(elem, pos, depth + 1)?;
        Ok(s.div_ceil(a).saturating_mul(a))
    }

    /// Byte offset of member `i` of struct `ty`.
    pub fn member_offset(&self, ty: Id, i: usize, pos: Pos) -> Result<u64> {
        self.member_offset_depth(ty, i, pos, 0)
    }

    fn member_offset_depth(&self, ty: Id, i: usize, pos: Pos, depth: u32) -> Result<u64> {
        let members = match &*self.ty(ty, pos)? {
            Type::Struct { members } => members.clone(),
            other => {
                return Err(Error::semantic(
                    pos,
                    format!("member of {}", self.describe(other)),
                ))
            }
        };
        if i >= members.len() {
            return Err(Error::semantic(
                pos,
                format!("member {i} of a struct with {} members", members.len()),
            ));
        }
        let explicit = |k: usize| {
            self.member_decos
                .get(&(ty, k as u32))
                .and_then(|ds| ds.iter().find(|d| d.name == "Offset"))
                .and_then(|d| match d.args.first().map(|t| &t.kind) {
                    Some(Kind::Int(v)) => {
                        Some(u64::try_from(*v).unwrap_or(u64::MAX).min(MAX_OFFSET + 1))
                    }
                    _ => None,
                })
        };
        for k in 0..=i {
            if explicit(k).is_some_and(|o| o > MAX_OFFSET) {
                return Err(Error::unsupported(pos, "member offset above 2^32"));
            }
        }
        if let Some(off) = explicit(i) {
            return Ok(off);
        }
        // Natural layout: after the previous member, aligned.
        let mut off = 0u64;
        for (k, &mt) in members.iter().enumerate().take(i + 1) {
            if let Some(o) = explicit(k) {
                off = o;
            } else {
                let a = self.align_depth(mt, pos, depth + 1)?;
                off = off.div_ceil(a).saturating_mul(a);
            }
            if k == i {
                return Ok(off);
            }
            off = off.saturating_add(self.size_depth(mt, pos, depth + 1)?);
        }
        Ok(off)
    }

    // ----- constants -----------------------------------------------------

    /// Type id of a constant, variable, parameter or instruction result.
    pub fn type_of(&self, id: Id, pos: Pos) -> Result<Id> {
        let li = self.def_line(id, pos)?;
        let op = self.lines[li].opcode.as_str();
        if TYPES.contains(&op) || op == "OpLabel" || op == "OpExtInstImport" || op == "OpString" {
            return Err(Error::semantic(
                pos,
                format!("`{}` is not a value", self.show(id)),
            ));
        }
        self.arg_id(li, 0)
    }

    /// The value of constant `id` (after specialisation).
    pub fn constant(&self, id: Id, pos: Pos) -> Result<Val> {
        self.constant_depth(id, pos, 0)
    }

    pub fn is_constant(&self, id: Id) -> bool {
        self.def
            .get(id as usize)
            .copied()
            .flatten()
            .is_some_and(|li| CONSTANTS.contains(&self.lines[li].opcode.as_str()))
    }

    fn constant_depth(&self, id: Id, pos: Pos, depth: u32) -> Result<Val> {
        if let Some(v) = self.consts.borrow().get(&id) {
            return Ok(v.clone());
        }
        if depth > 64 {
            return Err(Error::semantic(pos, "constant nested too deeply (cyclic?)"));
        }
        let li = self.def_line(id, pos)?;
        let op = self.lines[li].opcode.clone();
        let lpos = self.lines[li].pos();
        if !CONSTANTS.contains(&op.as_str()) {
            return Err(Error::semantic(
                pos,
                format!("`{}` is not a constant", self.show(id)),
            ));
        }
        let ty = self.arg_id(li, 0)?;
        let mut v = match op.as_str() {
            "OpConstant" | "OpSpecConstant"
                if matches!(&*self.ty(ty, lpos)?, Type::Float { .. }) =>
            {
                let w = self.scalar_width(ty, lpos)?;
                Val::Int(float_bits(&self.lines[li], w, self.arg_pos(li, 1))?)
            }
            "OpConstant" | "OpSpecConstant" => {
                let w = self.scalar_width(ty, lpos)?;
                let lit = self.arg_lit(li, 1)?;
                Val::Int(if w == 1 {
                    i64::from(lit != 0)
                } else {
                    canon_lit(lit, w)
                })
            }
            "OpConstantTrue" | "OpSpecConstantTrue" => Val::Int(1),
            "OpConstantFalse" | "OpSpecConstantFalse" => Val::Int(0),
            "OpConstantComposite" | "OpSpecConstantComposite" => {
                let mut items = Vec::new();
                for k in 1..self.nargs(li) {
                    let c = self.arg_id(li, k)?;
                    items.push(self.constant_depth(c, self.arg_pos(li, k), depth + 1)?);
                }
                Val::Comp(items.into())
            }
            "OpConstantNull" => self.zero(ty, lpos, 0)?,
            // What a sampler selects is not computed (`lower/image.rs`).
            "OpConstantSampler" => Val::Int(0),
            "OpUndef" => self.undef(ty, format!("%{}", self.display(id)), li, 0)?,
            _ => {
                return Err(Error::unsupported(
                    lpos,
                    format!("opcode `{}`", crate::diag::excerpt(&op)),
                ));
            }
        };
        if op.starts_with("OpSpecConstant") {
            v = self.specialise(id, ty, v, lpos)?;
        }
        if self.builtin(id).as_deref() == Some("WorkgroupSize") {
            let g = self.settings.grid;
            v = Val::Comp(vec![Val::Int(i64::from(g.wg_size())), Val::Int(1), Val::Int(1)].into());
        }
        self.consts.borrow_mut().insert(id, v.clone());
        Ok(v)
    }

    /// Applies `@Input` and workgroup-size specialisation to a spec constant.
    fn specialise(&self, id: Id, ty: Id, v: Val, pos: Pos) -> Result<Val> {
        if let Some(&(lit, ipos)) = self.settings.spec_values.get(&id) {
            let w = self.scalar_width(ty, ipos)?;
            return Ok(Val::Int(if w == 1 {
                i64::from(lit != 0)
            } else {
                canon_lit(lit, w)
            }));
        }
        if let Some(spec_id) = self.deco_lit(id, "SpecId") {
            let dims = self.wg_spec_dims()?;
            if let Some(&d) = dims.get(&(spec_id as i64)) {
                let g = self.settings.grid;
                let _ = pos;
                return Ok(Val::Int(if d == 0 { i64::from(g.wg_size()) } else { 1 }));
            }
        }
        Ok(v)
    }

    /// SpecIds that clspv maps to the workgroup size (x, y, z).
    fn wg_spec_dims(&self) -> Result<HashMap<i64, usize>> {
        if let Some(d) = self.wg_spec_ids.borrow().as_ref() {
            return Ok(d.clone());
        }
        let mut dims = HashMap::new();
        for r in &self.reflection {
            if r.name != "SpecConstantWorkgroupSize" {
                continue;
            }
            for k in 0..3 {
                let li = r.line;
                let id = self.arg_id(li, 3 + k)?;
                // These operands are plain constants (not specialised).
                let dli = self.def_line(id, self.arg_pos(li, 3 + k))?;
                let lit = self.arg_lit(dli, 1)?;
                dims.insert(lit as i64, k);
            }
        }
        *self.wg_spec_ids.borrow_mut() = Some(dims.clone());
        Ok(dims)
    }

    /// The value of an `OpUndef` of type `ty` defined on line `li`: every
    /// scalar is a register (`%u`, components `%u[0]`, `%u[1][2]`, … — `[`
    /// never occurs in an id) that the lowering assigns with
    /// [`InstrKind::Havoc`](crate::ir::InstrKind::Havoc) at the start of
    /// each invocation that uses it (so a value is arbitrary, fixed per
    /// invocation).
    fn undef(&self, ty: Id, name: String, li: usize, depth: u32) -> Result<Val> {
        let pos = self.lines[li].pos();
        if depth > 64 {
            return Err(Error::semantic(pos, "type nested too deeply (cyclic?)"));
        }
        let t = self.ty(ty, pos)?;
        let items = |elem: Id, n: u64| -> Result<Val> {
            if n > 1 << 16 {
                return Err(Error::unsupported(
                    pos,
                    "undefined composites with more than 65536 elements",
                ));
            }
            let mut xs = Vec::new();
            for i in 0..n {
                xs.push(self.undef(elem, format!("{name}[{i}]"), li, depth + 1)?);
            }
            Ok(Val::Comp(xs.into()))
        };
        Ok(match &*t {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                let r: Rc<str> = Rc::from(name);
                let vt = value_type(self.scalar_width(ty, pos)?);
                self.undef_regs.borrow_mut().insert(r.clone(), (li, vt));
                Val::Reg(r)
            }
            Type::Pointer { .. } => Val::Ptr(super::value::Ptr {
                region: super::value::Region::Undefined,
                offset: 0,
            }),
            Type::Vector { elem, n } => items(*elem, u64::from(*n))?,
            Type::Array { elem, len } => items(*elem, *len)?,
            Type::Struct { members } => {
                let mut xs = Vec::new();
                for (i, &m) in members.iter().enumerate() {
                    xs.push(self.undef(m, format!("{name}[{i}]"), li, depth + 1)?);
                }
                Val::Comp(xs.into())
            }
            other => {
                return Err(Error::unsupported(
                    pos,
                    format!("undefined value (`OpUndef`) of {}", self.describe(other)),
                ))
            }
        })
    }

    /// The `OpUndef` line whose value register `r` is (see [`Module::undef`]).
    pub fn undef_line(&self, r: &str) -> Option<usize> {
        self.undef_regs.borrow().get(r).map(|x| x.0)
    }

    /// The type of the `OpUndef` scalar whose value register `r` is.
    pub fn undef_type(&self, r: &str) -> Option<ValueType> {
        self.undef_regs.borrow().get(r).map(|x| x.1)
    }

    /// The all-zero value of `ty`.
    pub fn zero(&self, ty: Id, pos: Pos, depth: u32) -> Result<Val> {
        if depth > 64 {
            return Err(Error::semantic(pos, "type nested too deeply (cyclic?)"));
        }
        Ok(match &*self.ty(ty, pos)? {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => Val::Int(0),
            Type::Opaque(op) if op == "OpTypeEvent" => Val::Int(0),
            Type::Pointer { .. } => Val::Ptr(super::value::Ptr {
                region: super::value::Region::Null,
                offset: 0,
            }),
            Type::Vector { elem, n } => {
                let z = self.zero(*elem, pos, depth + 1)?;
                Val::Comp(vec![z; *n as usize].into())
            }
            Type::Array { elem, len } => {
                if *len > 1 << 16 {
                    return Err(Error::unsupported(
                        pos,
                        "constant arrays with more than 65536 elements",
                    ));
                }
                let z = self.zero(*elem, pos, depth + 1)?;
                Val::Comp(vec![z; *len as usize].into())
            }
            Type::Struct { members } => {
                let mut items = Vec::new();
                for &m in members {
                    items.push(self.zero(m, pos, depth + 1)?);
                }
                Val::Comp(items.into())
            }
            other => {
                return Err(Error::unsupported(
                    pos,
                    format!("null value (`OpConstantNull`) of {}", self.describe(other)),
                ))
            }
        })
    }

    // ----- control flow --------------------------------------------------

    fn analyse(&self, fi: usize) -> Result<Cfg> {
        let f = &self.functions[fi];
        let n = f.blocks.len();
        let mut cfg = Cfg {
            succs: vec![Vec::new(); n],
            preds: vec![Vec::new(); n],
            reachable: vec![false; n],
            doms: vec![Vec::new(); n],
            loop_body: vec![None; n],
            join: vec![false; n],
            def_block: HashMap::new(),
            phis: vec![Vec::new(); n],
        };
        let target = |li: usize, k: usize| -> Result<usize> {
            let id = self.arg_id(li, k)?;
            f.block_of.get(&id).copied().ok_or_else(|| {
                Error::semantic(
                    self.arg_pos(li, k),
                    format!("`{}` is not a block of this function", self.show(id)),
                )
            })
        };
        for (b, blk) in f.blocks.iter().enumerate() {
            let mut in_phis = true;
            for &li in &blk.body {
                if let Some((name, _)) = &self.lines[li].result {
                    if let Some(id) = self.lookup(name) {
                        cfg.def_block.insert(id, b);
                    }
                }
                let op = self.lines[li].opcode.as_str();
                if op == "OpPhi" {
                    if !in_phis {
                        return Err(Error::semantic(
                            self.lines[li].pos(),
                            "`OpPhi` must come first in its block",
                        ));
                    }
                    cfg.phis[b].push(li);
                } else if !matches!(op, "OpLine" | "OpNoLine") {
                    in_phis = false;
                }
            }
            let Some(&term) = blk.body.last() else {
                continue;
            };
            let succ = match self.lines[term].opcode.as_str() {
                "OpBranch" => vec![target(term, 0)?],
                "OpBranchConditional" => vec![target(term, 1)?, target(term, 2)?],
                "OpSwitch" => {
                    let mut v = vec![target(term, 1)?];
                    let mut k = 3;
                    while k < self.nargs(term) {
                        v.push(target(term, k)?);
                        k += 2;
                    }
                    v
                }
                _ => vec![],
            };
            cfg.succs[b] = succ;
        }
        if n == 0 {
            return Ok(cfg);
        }
        // Reachability and reverse post-order.
        let mut order = Vec::new();
        let mut state = vec![0u8; n];
        let mut stack = vec![(0usize, 0usize)];
        state[0] = 1;
        while let Some(&mut (b, ref mut k)) = stack.last_mut() {
            if *k < cfg.succs[b].len() {
                let s = cfg.succs[b][*k];
                *k += 1;
                if state[s] == 0 {
                    state[s] = 1;
                    stack.push((s, 0));
                }
            } else {
                state[b] = 2;
                order.push(b);
                stack.pop();
            }
        }
        order.reverse();
        let mut rpo = vec![usize::MAX; n];
        for (i, &b) in order.iter().enumerate() {
            rpo[b] = i;
            cfg.reachable[b] = true;
        }
        for b in 0..n {
            if !cfg.reachable[b] {
                continue;
            }
            for &s in &cfg.succs[b] {
                if !cfg.preds[s].contains(&b) {
                    cfg.preds[s].push(b);
                }
            }
        }
        // Dominators (Cooper, Harvey, Kennedy).
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in &cfg.preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while rpo[x] > rpo[y] {
                                x = idom[x];
                            }
                            while rpo[y] > rpo[x] {
                                y = idom[y];
                            }
                        }
                        x
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        for &b in &order {
            let mut d = vec![false; n];
            let mut x = b;
            loop {
                d[x] = true;
                if x == 0 || idom[x] == usize::MAX {
                    break;
                }
                x = idom[x];
            }
            cfg.doms[b] = d;
        }
        // Loops: back edges s → h with h dominating s.
        for &s in &order {
            for &h in &cfg.succs[s] {
                if rpo[h] > rpo[s] {
                    continue;
                }
                if !cfg.doms[s][h] {
                    return Err(Error::unsupported(
                        self.lines[f.blocks[h].line].pos(),
                        "irreducible control flow",
                    ));
                }
                let body = cfg.loop_body[h].get_or_insert_with(|| vec![false; n]);
                body[h] = true;
                let mut work = vec![s];
                while let Some(x) = work.pop() {
                    if body[x] {
                        continue;
                    }
                    body[x] = true;
                    for &p in &cfg.preds[x] {
                        work.push(p);
                    }
                }
            }
        }
        for b in 0..n {
            cfg.join[b] = cfg.preds[b].len() > 1 || cfg.loop_body[b].is_some();
        }
        Ok(cfg)
    }
}
