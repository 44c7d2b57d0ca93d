//! Free inputs: read-only memory (push constants, UniformConstant) that
//! neither `@Input` nor an initialiser nor the runtime (clspv's grid push
//! constants) gives a value.
//!
//! Such a scalar is an *input* of the program (`ir::Program::inputs`): one
//! arbitrary value per run, the same for every invocation, as a kernel
//! argument is. While translating, a read of it is a register (`%var+off`,
//! never an id: ids have no `+`); each invocation that uses the register
//! assigns it with `InstrKind::Input` at its start. Witnesses name inputs
//! by their source name: the clspv kernel argument
//! (`ArgumentPodPushConstant` reflection), the block member
//! (`OpMemberName`), or the variable and index path.

use super::layout::{self, bytes};
use super::module::{Id, Module, Type};
use super::value::value_type;
use crate::diag::{Error, Result};
use crate::ir::{Input, Pos};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

/// The inputs met so far, shared by every invocation's translation.
#[derive(Default)]
pub(super) struct FreeInputs {
    /// Per input: variable, byte offset, width.
    pub cells: Vec<(Id, u64, u32)>,
    regs: HashMap<Rc<str>, usize>,
}

impl FreeInputs {
    /// The register of the input at (`var`, `off`) of width `w`, created
    /// on first use; `None` for an access that overlaps another input or
    /// a byte of the variable with a value (`known` offsets and widths):
    /// a mixed-size access.
    pub fn register(
        &mut self,
        m: &Module,
        var: Id,
        off: u64,
        w: u32,
        known: impl Iterator<Item = (u64, u32)>,
    ) -> Option<Rc<str>> {
        let overlaps = |o: u64, cw: u32| o < off + bytes(w) && off < o + bytes(cw);
        if let Some(k) = self
            .cells
            .iter()
            .position(|&(v, o, cw)| v == var && (o, cw) == (off, w))
        {
            return Some(self.reg(m, k));
        }
        if self
            .cells
            .iter()
            .any(|&(v, o, cw)| v == var && overlaps(o, cw))
        {
            return None;
        }
        for (o, cw) in known {
            if overlaps(o, cw) {
                return None;
            }
        }
        self.cells.push((var, off, w));
        Some(self.reg(m, self.cells.len() - 1))
    }

    fn reg(&mut self, m: &Module, k: usize) -> Rc<str> {
        let (var, off, _) = self.cells[k];
        let r: Rc<str> = Rc::from(format!("%{}+{off}", m.display(var)));
        self.regs.insert(r.clone(), k);
        r
    }

    /// The input whose register `r` is.
    pub fn input_of(&self, r: &str) -> Option<usize> {
        self.regs.get(r).copied()
    }

    /// The program's inputs, named (see the module docs).
    pub fn to_ir(&self, m: &Module, pointee: &HashMap<Id, Id>) -> Vec<Input> {
        if self.cells.is_empty() {
            return Vec::new();
        }
        let args = pod_arguments(m);
        let mut out = Vec::with_capacity(self.cells.len());
        for &(var, off, w) in &self.cells {
            let name = args
                .iter()
                .find(|a| a.var == var && a.offset <= off && off < a.offset + a.size)
                .map(|a| match off - a.offset {
                    0 if bytes(w) == a.size => a.name.clone(),
                    d => format!("{}+{d}", a.name),
                })
                .or_else(|| member_name(m, pointee.get(&var).copied()?, off, w))
                .unwrap_or_else(|| path_name(m, var, pointee.get(&var).copied(), off, w));
            out.push(Input {
                name,
                ty: value_type(w),
                value: None,
            });
        }
        out
    }
}

/// A clspv plain-old-data kernel argument passed in a push constant.
struct PodArgument {
    var: Id,
    offset: u64,
    size: u64,
    name: String,
}

/// The `ArgumentPodPushConstant` reflection instructions: `%kernel
/// %ordinal %offset %size %info`, `%info` an `ArgumentInfo %name`. Names
/// are debug information: a malformed entry is skipped, never an error.
fn pod_arguments(m: &Module) -> Vec<PodArgument> {
    let mut out = Vec::new();
    let push = m.globals.iter().copied().find(|&g| {
        m.def_line(g, Pos::default())
            .and_then(|li| m.arg_word(li, 1))
            .is_ok_and(|c| c == "PushConstant")
    });
    let Some(push) = push else {
        return out;
    };
    for r in &m.reflection {
        if r.name != "ArgumentPodPushConstant" {
            continue;
        }
        if let Ok(a) = pod_argument(m, push, r.line) {
            out.push(a);
        }
    }
    out
}

fn pod_argument(m: &Module, push: Id, li: usize) -> Result<PodArgument> {
    let lit = |k: usize| -> Result<u64> {
        let id = m.arg_id(li, k)?;
        m.constant(id, m.arg_pos(li, k))?
            .int()
            .and_then(|x| u64::try_from(x).ok())
            .ok_or_else(|| Error::semantic(m.arg_pos(li, k), "expected a constant"))
    };
    let (offset, size) = (lit(5)?, lit(6)?);
    // `ArgumentInfo %name`, `%name = OpString "…"`.
    let info = m.def_line(m.arg_id(li, 7)?, m.arg_pos(li, 7))?;
    let string = m.def_line(m.arg_id(info, 3)?, m.arg_pos(info, 3))?;
    Ok(PodArgument {
        var: push,
        offset,
        size,
        name: m.arg_string(string, 0)?,
    })
}

/// `member[i]…` when the variable's type is a struct whose member holding
/// the cell has an `OpMemberName`.
fn member_name(m: &Module, ty: Id, off: u64, w: u32) -> Option<String> {
    if !matches!(&*m.ty(ty, Pos::default()).ok()?, Type::Struct { .. }) {
        return None;
    }
    let path = layout::path_of(m, ty, off, bytes(w), Pos::default())?;
    let mut s = m
        .member_name(ty, usize::try_from(*path.first()?).ok()?)
        .filter(|s| !s.is_empty())?;
    for i in &path[1..] {
        let _ = write!(s, "[{i}]");
    }
    Some(s)
}

/// `%var[i][j]…` (or `%var+offset`), as locations are named.
fn path_name(m: &Module, var: Id, ty: Option<Id>, off: u64, w: u32) -> String {
    let mut s = format!("%{}", m.display(var));
    match ty.and_then(|t| layout::path_of(m, t, off, bytes(w), Pos::default())) {
        Some(path) => {
            for i in path {
                let _ = write!(s, "[{i}]");
            }
        }
        None => {
            let _ = write!(s, "+{off}");
        }
    }
    s
}
