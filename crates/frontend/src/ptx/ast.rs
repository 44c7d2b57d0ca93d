//! The syntax tree of a PTX module as `nvcc -ptx` and `clang
//! --cuda-device-only -S` write it: directives, declarations and
//! instructions, with positions. Nothing here is interpreted; the parser
//! (`parse.rs`) only checks the grammar, the lowering (`lower/`) gives it
//! meaning.

use crate::ir::{BinOp, Pos};

/// A whole `.ptx` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `.version MAJOR.MINOR`.
    pub version: Option<(u32, u32)>,
    /// `.target sm_70, debug` → `["sm_70", "debug"]`.
    pub target: Vec<String>,
    /// `.address_size 32|64`.
    pub address_size: Option<u32>,
    /// The debug file table: `.file N "name"` (any extra fields, such as
    /// a timestamp and size, are dropped).
    pub files: Vec<(u32, String)>,
    /// Module-scope variables (`.global`, `.const`, `.shared`, …).
    pub vars: Vec<VarDecl>,
    /// Kernels (`.entry`) and device functions (`.func`), prototypes too.
    pub functions: Vec<Function>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// `.visible .entry name(params) { body }`, `.func (rets) name(params) …`.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// Position of the name.
    pub pos: Pos,
    pub kind: FnKind,
    /// `.visible`, `.extern`, `.weak`: linkage directives written before
    /// `.entry`/`.func`, without the dot.
    pub linkage: Vec<String>,
    /// Return parameters of a `.func` (`(.param .b32 func_retval0)`).
    pub rets: Vec<Param>,
    pub params: Vec<Param>,
    /// Performance directives between the header and the body, such as
    /// `.maxntid 256, 1, 1` → `("maxntid", [256, 1, 1])`, and
    /// `.noreturn` → `("noreturn", [])`.
    pub directives: Vec<(String, Vec<u64>, Pos)>,
    /// The statements of the body; `None` for a prototype (`;` instead of
    /// a body).
    pub body: Option<Vec<Stmt>>,
}

/// A kernel or function parameter: `.param .u64 name`,
/// `.param .align 8 .b8 name[16]`, `.param .u64 .ptr .global .align 4 name`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub pos: Pos,
    /// `.param` for `.entry`/`.func` parameters; `.reg` for the register
    /// parameters `.func` may declare (`.reg .b32 x`).
    pub space: Space,
    pub ty: Type,
    /// `name[N]`: a byte array parameter (structs passed by value).
    pub array: Option<u64>,
    pub align: Option<u32>,
    /// `.ptr .global .align 4`: the state space (`None`: generic `.ptr`)
    /// and alignment the pointer attribute names.
    pub ptr: Option<(Option<Space>, Option<u32>)>,
}

/// State spaces (PTX ISA "State Spaces").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    /// `.shared` and `.shared::cta`.
    Shared,
    /// `.shared::cluster`.
    SharedCluster,
    Tex,
}

impl Space {
    /// The space a qualifier word names (without the dot): `global`,
    /// `shared`, `shared::cta`, `shared::cluster`, `local`, `const`,
    /// `param`, `reg`, `sreg`, `tex`.
    pub fn from_word(w: &str) -> Option<Space> {
        Some(match w {
            "reg" => Space::Reg,
            "sreg" => Space::Sreg,
            "const" => Space::Const,
            "global" => Space::Global,
            "local" => Space::Local,
            "param" => Space::Param,
            "shared" | "shared::cta" => Space::Shared,
            "shared::cluster" => Space::SharedCluster,
            "tex" => Space::Tex,
            _ => return None,
        })
    }

    pub fn word(self) -> &'static str {
        match self {
            Space::Reg => "reg",
            Space::Sreg => "sreg",
            Space::Const => "const",
            Space::Global => "global",
            Space::Local => "local",
            Space::Param => "param",
            Space::Shared => "shared",
            Space::SharedCluster => "shared::cluster",
            Space::Tex => "tex",
        }
    }
}

/// What a fundamental type's bits mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `.b8` … `.b128`: untyped bits.
    Bits,
    /// `.u8` … `.u64`.
    Unsigned,
    /// `.s8` … `.s64`.
    Signed,
    /// `.f16`, `.f16x2`, `.bf16`, `.bf16x2`, `.tf32`, `.f32`, `.f64`
    /// (`bits` is the width of the whole value: 32 for `.f16x2`).
    Float,
    /// `.pred`.
    Pred,
}

/// A fundamental type: `.u32` is `{ kind: Unsigned, bits: 32 }`;
/// `.pred` is `{ kind: Pred, bits: 1 }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    pub kind: TypeKind,
    pub bits: u32,
}

impl Type {
    /// The type a qualifier word names (without the dot): `u32`, `b64`,
    /// `pred`, `f16x2`, … .
    pub fn from_word(w: &str) -> Option<Type> {
        let (kind, bits) = match w {
            "pred" => (TypeKind::Pred, 1),
            "f16" | "bf16" => (TypeKind::Float, 16),
            "f16x2" | "bf16x2" | "tf32" | "f32" => (TypeKind::Float, 32),
            "f64" => (TypeKind::Float, 64),
            _ => {
                let (k, n) = w.split_at(1);
                let kind = match k {
                    "b" => TypeKind::Bits,
                    "u" => TypeKind::Unsigned,
                    "s" => TypeKind::Signed,
                    _ => return None,
                };
                let bits: u32 = n.parse().ok()?;
                let ok = match kind {
                    TypeKind::Bits => matches!(bits, 8 | 16 | 32 | 64 | 128),
                    _ => matches!(bits, 8 | 16 | 32 | 64),
                };
                if !ok {
                    return None;
                }
                (kind, bits)
            }
        };
        Some(Type { kind, bits })
    }

    /// Size in bytes (a predicate takes 1).
    pub fn bytes(self) -> u32 {
        self.bits.div_ceil(8)
    }
}

/// A variable declaration: `.reg .b32 %r<10>;`,
/// `.shared .align 4 .b8 _ZZ1kPiE1s[256];`,
/// `.global .align 4 .u32 counter = 0;`, `.extern .shared .b8 sdata[];`,
/// `.local .align 8 .b8 __local_depot0[40];`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub space: Space,
    /// `.extern`, `.visible`, `.weak`, `.common` (without the dot).
    pub linkage: Vec<String>,
    pub align: Option<u32>,
    /// `.v2` / `.v4` vector variables: the number of elements.
    pub vector: Option<u32>,
    pub ty: Type,
    pub name: String,
    /// `%r<10>`: ten registers `%r0` … `%r9`.
    pub range: Option<u32>,
    /// Array dimensions, outermost first; `None` for `[]` (an unsized
    /// array: `.extern .shared` dynamic shared memory, or sized by its
    /// initialiser).
    pub dims: Vec<Option<u64>>,
    pub init: Option<Init>,
    pub pos: Pos,
}

/// An initialiser: `= 5`, `= {1, 2, 3}`, `= {{1, 2}, {3, 4}}`,
/// `= {sym, generic(sym2)}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    Int(i64),
    /// A floating-point constant, as its bits (`0f3F800000`, `1.0`).
    Float {
        bits: u64,
        double: bool,
    },
    /// The address of a variable, `sym`, `sym+4` or `generic(sym)`.
    Addr {
        sym: String,
        offset: i64,
        generic: bool,
    },
    List(Vec<Init>),
}

/// A statement of a function body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `LBB0_2:` / `$L__BB0_2:`.
    Label {
        name: String,
        pos: Pos,
    },
    Instr(Instr),
    /// A declaration inside the body (`.reg`, `.shared`, `.local`,
    /// `.param` for call arguments).
    Var(VarDecl),
    /// `{ … }`: a nested scope (clang's call sequences).
    Block {
        body: Vec<Stmt>,
        pos: Pos,
    },
    /// `.pragma "nounroll";`.
    Pragma {
        text: String,
        pos: Pos,
    },
    /// `name: .callprototype …;` or `name: .calltargets …;`: what an
    /// indirect call names as its last operand.
    CallSpec(CallSpec),
}

/// The label of an indirect call's prototype or target list.
#[derive(Clone, Debug, PartialEq)]
pub struct CallSpec {
    pub name: String,
    /// Position of the name.
    pub pos: Pos,
    pub kind: CallSpecKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CallSpecKind {
    /// `.callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _)`:
    /// the return and argument parameters of the functions the call may
    /// reach (names are `_` or ignored); `noreturn` for `.noreturn`.
    Prototype {
        rets: Vec<Param>,
        params: Vec<Param>,
        noreturn: bool,
    },
    /// `.calltargets f, g`: the functions the call may reach.
    Targets(Vec<(String, Pos)>),
}

/// A `.loc FILE LINE COL` debug position (file index into
/// [`Module::files`]; line 0 means "no source line").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrcLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// `@%p` / `@!%p`; `pos` is the `@`'s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    pub reg: String,
    pub negated: bool,
    pub pos: Pos,
}

/// One instruction: `@!%p1 ld.global.cg.u32 %r1, [%rd2+4];`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub guard: Option<Guard>,
    /// `ld`.
    pub opcode: String,
    /// The dot-separated words after the opcode, without dots, in order:
    /// `["global", "cg", "u32"]`. `::` stays inside a word
    /// (`shared::cta`).
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
    /// Position of the instruction's first token: the guard's `@` when
    /// there is a guard, the opcode otherwise.
    pub pos: Pos,
    /// The `.loc` in force when the instruction was read.
    pub src: Option<SrcLoc>,
    /// The instruction as written (guard, opcode and operands), on one
    /// line with single spaces, without the `;`.
    pub text: String,
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register, `%r1`, `%SP`, or a special register with its
    /// component, `%tid.x`, `%ctaid.y`, `%laneid`.
    Reg { name: String, pos: Pos },
    /// An integer constant (decimal, `0x…` hex, `0…` octal, `0b…`
    /// binary, optionally `U`-suffixed; negative with a leading `-`).
    /// Values that do not fit `i64` keep their 64-bit pattern.
    Imm { value: i64, pos: Pos },
    /// A floating-point constant: `0f3F800000` (f32 bits), `0d…` (f64
    /// bits) or a decimal `1.5` (f64 bits).
    Float { bits: u64, double: bool, pos: Pos },
    /// A name that is not a register: a variable, parameter, label or
    /// function.
    Sym { name: String, pos: Pos },
    /// `sym+4` outside brackets (`mov.u64 %rd1, arr+8;`).
    SymOffset { name: String, offset: i64, pos: Pos },
    /// `[base]`, `[base+imm]`, `[base+-imm]`, `[base-imm]`, `[imm]`:
    /// `base` is a `Reg`, a `Sym` or an `Imm`.
    Mem {
        base: Box<Operand>,
        offset: i64,
        pos: Pos,
    },
    /// `{%r1, %r2, _, %r4}`: a vector operand.
    Vector { elems: Vec<Operand>, pos: Pos },
    /// `(a, b)`: a call's argument or return list.
    List { elems: Vec<Operand>, pos: Pos },
    /// `!%p`: a negated predicate source operand.
    Not { reg: String, pos: Pos },
    /// `%p|%q`: `setp`'s two predicate destinations.
    PredPair { a: String, b: String, pos: Pos },
    /// `_`: a sink.
    Sink { pos: Pos },
}

impl Operand {
    pub fn pos(&self) -> Pos {
        match self {
            Operand::Reg { pos, .. }
            | Operand::Imm { pos, .. }
            | Operand::Float { pos, .. }
            | Operand::Sym { pos, .. }
            | Operand::SymOffset { pos, .. }
            | Operand::Mem { pos, .. }
            | Operand::Vector { pos, .. }
            | Operand::List { pos, .. }
            | Operand::Not { pos, .. }
            | Operand::PredPair { pos, .. }
            | Operand::Sink { pos } => *pos,
        }
    }
}

/// The integer comparison a `setp`/`set` comparison word names, for
/// operands of that signedness: `lt` is signed on `.s` types and unsigned
/// otherwise; `lo`, `ls`, `hi`, `hs` are always unsigned. `None` for the
/// floating-point comparisons (`equ`, `num`, …) and unknown words.
pub fn int_compare(word: &str, signed: bool) -> Option<BinOp> {
    Some(match (word, signed) {
        ("eq", _) => BinOp::Eq,
        ("ne", _) => BinOp::Ne,
        ("lt", true) => BinOp::Lt,
        ("le", true) => BinOp::Le,
        ("gt", true) => BinOp::Gt,
        ("ge", true) => BinOp::Ge,
        ("lt", false) | ("lo", _) => BinOp::Ult,
        ("le", false) | ("ls", _) => BinOp::Ule,
        ("gt", false) | ("hi", _) => BinOp::Ugt,
        ("ge", false) | ("hs", _) => BinOp::Uge,
        _ => return None,
    })
}
