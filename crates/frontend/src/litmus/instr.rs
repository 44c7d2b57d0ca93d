//! Instruction cells: labels, mnemonics, operands, and the instructions both
//! dialects share (register arithmetic, branches, `goto`).

use super::source::{is_ident, is_register, parse_i64, Source};
use super::{ptx, vulkan, Locs};
use crate::diag::{Error, Result};
use crate::ir::{Arch, BinOp, CmpOp, Instr, InstrKind, LocId, Operand};

/// One parsed operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opnd<'a> {
    Int(i64),
    /// `r<digits>`
    Reg(&'a str),
    /// Any other identifier: a location or a label.
    Name(&'a str),
}

/// An operand with its text and offset.
#[derive(Clone, Copy, Debug)]
pub(super) struct Arg<'a> {
    pub v: Opnd<'a>,
    pub off: usize,
    pub text: &'a str,
}

/// Base tags in insertion order, without repeats.
#[derive(Default)]
pub(super) struct Tags(Vec<String>);

impl Tags {
    pub fn add(&mut self, tag: &str) {
        if !self.0.iter().any(|t| t == tag) {
            self.0.push(tag.to_string());
        }
    }

    pub fn extend(&mut self, tags: &[&str]) {
        for t in tags {
            self.add(t);
        }
    }

    pub fn append(&mut self, other: Tags) {
        for t in other.0 {
            self.add(&t);
        }
    }

    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

/// What an instruction parser needs: the source (for positions), the
/// location table (locations used but not declared are added), and the
/// instruction being parsed.
pub(super) struct Cx<'a, 's> {
    pub src: &'s Source<'a>,
    pub locs: &'s mut Locs,
    pub arch: Arch,
    /// The mnemonic as written, e.g. `ld.acquire.gpu`.
    pub mnemonic: &'a str,
    /// Offset of the instruction.
    pub off: usize,
}

impl Cx<'_, '_> {
    /// Checks the operand count.
    pub fn arity(&self, args: &[Arg], allowed: &[usize]) -> Result<()> {
        if allowed.contains(&args.len()) {
            return Ok(());
        }
        let expected = match allowed {
            [0] => "no".to_string(),
            [n] => n.to_string(),
            [init @ .., last] => format!(
                "{} or {last}",
                init.iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            [] => "no".to_string(),
        };
        let plural = if allowed == [1] { "" } else { "s" };
        Err(self.src.err_syntax(
            self.off,
            format!(
                "`{}` takes {expected} operand{plural}, found {}",
                self.mnemonic,
                args.len()
            ),
        ))
    }

    pub fn reg(&self, a: &Arg) -> Result<String> {
        match a.v {
            Opnd::Reg(r) => Ok(r.to_string()),
            _ => Err(self.src.err_syntax(
                a.off,
                format!("expected a register (`r0`, `r1`, …), found `{}`", a.text),
            )),
        }
    }

    pub fn loc(&mut self, a: &Arg) -> Result<LocId> {
        match a.v {
            Opnd::Name(n) => Ok(self.locs.use_loc(n)),
            Opnd::Reg(_) => Err(self.src.err_syntax(
                a.off,
                format!("expected a memory location, found register `{}`", a.text),
            )),
            Opnd::Int(_) => Err(self.src.err_syntax(
                a.off,
                format!("expected a memory location, found `{}`", a.text),
            )),
        }
    }

    pub fn val(&self, a: &Arg) -> Result<Operand> {
        match a.v {
            Opnd::Int(n) => Ok(Operand::Const(n)),
            Opnd::Reg(r) => Ok(Operand::Reg(r.to_string())),
            Opnd::Name(_) => Err(self.src.err_syntax(
                a.off,
                format!("expected a register or an integer, found `{}`", a.text),
            )),
        }
    }

    pub fn label(&self, a: &Arg) -> Result<String> {
        match a.v {
            Opnd::Name(n) => Ok(n.to_string()),
            _ => Err(self
                .src
                .err_syntax(a.off, format!("expected a label, found `{}`", a.text))),
        }
    }

    /// Error at a qualifier (a slice of the mnemonic).
    pub fn qual_syntax(&self, qual: &str, msg: impl Into<String>) -> Error {
        self.src.err_syntax(self.qual_off(qual), msg)
    }

    /// `unsupported: ...` naming a qualifier of this instruction.
    pub fn qual_unsupported(&self, qual: &str) -> Error {
        self.src.err_unsupported(
            self.qual_off(qual),
            format!(
                "qualifier `.{}` in {} instruction `{}`",
                crate::diag::excerpt(qual),
                arch_name(self.arch),
                crate::diag::excerpt(self.mnemonic)
            ),
        )
    }

    /// `unsupported: ...` naming this instruction.
    pub fn unsupported(&self) -> Error {
        self.src.err_unsupported(
            self.off,
            format!(
                "{} instruction `{}`",
                arch_name(self.arch),
                crate::diag::excerpt(self.mnemonic)
            ),
        )
    }

    pub fn syntax(&self, msg: impl Into<String>) -> Error {
        self.src.err_syntax(self.off, msg)
    }

    fn qual_off(&self, qual: &str) -> usize {
        // Qualifiers are slices of the mnemonic; point at the dot before.
        self.src.offset_of(qual).saturating_sub(1).max(self.off)
    }
}

pub(super) fn arch_name(arch: Arch) -> &'static str {
    match arch {
        Arch::Ptx => "PTX",
        Arch::Vulkan => "Vulkan",
        Arch::C => "C",
    }
}

/// Parses one non-empty, trimmed cell: optional labels `L:` then at most one
/// instruction.
pub(super) fn parse_cell(
    src: &Source,
    locs: &mut Locs,
    arch: Arch,
    mut text: &str,
) -> Result<Vec<Instr>> {
    let mut out = Vec::new();
    while !text.is_empty() {
        let off = src.offset_of(text);
        let id_len = text
            .bytes()
            .position(|b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .unwrap_or(text.len());
        let after_id = &text[id_len..];
        let after_ws = after_id.trim_start();
        if id_len > 0 && is_ident(&text[..id_len]) && after_ws.starts_with(':') {
            let label_len = text.len() - after_ws.len() + 1;
            out.push(Instr::new(
                InstrKind::Label(text[..id_len].to_string()),
                Vec::new(),
                src.pos(off),
                text[..label_len].to_string(),
            ));
            text = text[label_len..].trim();
            continue;
        }
        out.push(parse_instr(src, locs, arch, text)?);
        break;
    }
    Ok(out)
}

/// Parses a single instruction (`text` is trimmed and non-empty).
fn parse_instr(src: &Source, locs: &mut Locs, arch: Arch, text: &str) -> Result<Instr> {
    let off = src.offset_of(text);
    let mn_len = text.find(|c: char| c.is_whitespace()).unwrap_or(text.len());
    let mnemonic = &text[..mn_len];
    if let Some(bad) = mnemonic
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
    {
        return Err(src.err_syntax(
            off + bad.0,
            format!(
                "unexpected character `{}` in instruction `{}`",
                bad.1,
                crate::diag::excerpt(mnemonic)
            ),
        ));
    }
    let parts: Vec<&str> = mnemonic.split('.').collect();
    if let Some(i) = parts.iter().position(|p| p.is_empty()) {
        let at = if i == 0 {
            off
        } else {
            src.offset_of(parts[i]).saturating_sub(1)
        };
        return Err(src.err_syntax(at, format!("malformed mnemonic `{mnemonic}`")));
    }
    let args = parse_args(src, &text[mn_len..])?;
    let mut cx = Cx {
        src,
        locs,
        arch,
        mnemonic,
        off,
    };
    let (kind, tags) = match arch {
        Arch::Ptx => ptx::instr(&mut cx, &parts, &args)?,
        Arch::Vulkan => vulkan::instr(&mut cx, &parts, &args)?,
        // C tests have their own parser (`litmus::c`); no row cell is C.
        Arch::C => return Err(cx.src.err_unsupported(off, "a C statement in a litmus row")),
    };
    let mut ins = Instr::new(kind, tags, src.pos(off), text.to_string());
    crate::tagging::finish(arch, &mut ins);
    Ok(ins)
}

/// Splits the operand list at commas and classifies each operand.
fn parse_args<'a>(src: &Source<'a>, rest: &'a str) -> Result<Vec<Arg<'a>>> {
    if rest.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut args = Vec::new();
    for part in rest.split(',') {
        let text = part.trim();
        let off = src.offset_of(text);
        if text.is_empty() {
            return Err(src.err_syntax(off, "missing operand"));
        }
        let digits = text.strip_prefix('-').unwrap_or(text);
        let v = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            Opnd::Int(parse_i64(src, off, text)?)
        } else if is_register(text) {
            Opnd::Reg(text)
        } else if is_ident(text) {
            Opnd::Name(text)
        } else {
            return Err(src.err_syntax(off, format!("invalid operand `{text}`")));
        };
        args.push(Arg { v, off, text });
    }
    Ok(args)
}

/// Instructions both dialects share: register arithmetic (`add r, a, b`;
/// also `sub mul div rem and or xor shl shr`, and `mov r, a`), conditional
/// branches (`beq bne blt ble bgt bge a, b, L`) and `goto L`.
pub(super) fn common(
    cx: &mut Cx,
    parts: &[&str],
    args: &[Arg],
) -> Result<(InstrKind, Vec<String>)> {
    let head = parts[0];
    let binop = match head {
        "add" => Some(BinOp::Add),
        "sub" => Some(BinOp::Sub),
        "mul" => Some(BinOp::Mul),
        "div" => Some(BinOp::Div),
        "rem" => Some(BinOp::Rem),
        "and" => Some(BinOp::And),
        "or" => Some(BinOp::Or),
        "xor" => Some(BinOp::Xor),
        "shl" => Some(BinOp::Shl),
        "shr" => Some(BinOp::Shr),
        _ => None,
    };
    let cmp = match head {
        "beq" => Some(CmpOp::Eq),
        "bne" => Some(CmpOp::Ne),
        "blt" => Some(CmpOp::Lt),
        "ble" => Some(CmpOp::Le),
        "bgt" => Some(CmpOp::Gt),
        "bge" => Some(CmpOp::Ge),
        _ => None,
    };
    let known = binop.is_some() || cmp.is_some() || matches!(head, "mov" | "goto");
    if !known {
        return Err(cx.unsupported());
    }
    if let Some(q) = parts.get(1) {
        return Err(cx.qual_unsupported(q));
    }
    let kind = if let Some(op) = binop {
        cx.arity(args, &[3])?;
        InstrKind::Local {
            dst: cx.reg(&args[0])?,
            op,
            a: cx.val(&args[1])?,
            b: cx.val(&args[2])?,
        }
    } else if let Some(op) = cmp {
        cx.arity(args, &[3])?;
        InstrKind::Branch {
            op,
            a: cx.val(&args[0])?,
            b: cx.val(&args[1])?,
            target: cx.label(&args[2])?,
        }
    } else if head == "mov" {
        cx.arity(args, &[2])?;
        assign(cx.reg(&args[0])?, cx.val(&args[1])?)
    } else {
        cx.arity(args, &[1])?;
        InstrKind::Goto(cx.label(&args[0])?)
    };
    Ok((kind, Vec::new()))
}

/// Register assignment `dst := value` (as `dst := value + 0`).
pub(super) fn assign(dst: String, value: Operand) -> InstrKind {
    InstrKind::Local {
        dst,
        op: BinOp::Add,
        a: value,
        b: Operand::Const(0),
    }
}

/// The three barrier operand forms shared by `bar.cta.*` and `cbar`:
/// `id`; `a, id` (the first operand is ignored); `a, id, count`.
pub(super) fn barrier_operands(cx: &Cx, args: &[Arg]) -> Result<(Operand, Option<Operand>)> {
    cx.arity(args, &[1, 2, 3])?;
    let vals = args.iter().map(|a| cx.val(a)).collect::<Result<Vec<_>>>()?;
    Ok(match vals.as_slice() {
        [id] => (id.clone(), None),
        [_, id] => (id.clone(), None),
        [_, id, count] => (id.clone(), Some(count.clone())),
        _ => return Err(cx.syntax("malformed barrier operands")),
    })
}
