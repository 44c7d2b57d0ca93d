//! GPUVerify's access predicates (`__read(p)`, `__write(p)`, their
//! negations, `__read_offset_bytes(p)`, `__write_offset_bytes(p)`) and
//! `__ptr_offset_bytes(p)`, as our OpenCL header writes them: calls of
//! [`ACCESS_LOG`]`(what, p)`.
//!
//! GPUVerify's instrumentation logs a thread's accesses to each array
//! nondeterministically: at each access it may or may not record that one
//! happened and its byte offset, and a barrier clears the records
//! (Betts et al., OOPSLA'12, sec. 4). `__read(A)` is "a read of `A` is
//! recorded", `__read_offset_bytes(A)` the recorded offset (arbitrary when
//! none is). An assertion over them holds when it holds for every choice
//! of what to record: `__assert(!__read(A))` fails after any read of `A`,
//! `__assert(__implies(__read(A), __read_offset_bytes(A) == 0))` fails
//! when some read since the last barrier is at another offset.
//!
//! The records are cells of a hidden invocation-private variable
//! ([`LOG_VAR`]), one flag and one offset per (array, kind), so they take
//! part in the lowering's specialisation and loop generalisation like a
//! `Function` variable; the choice to record is an undefined value
//! (really arbitrary: [`crate::ir::UNDEFINED_VALUE`]). Kernels that do
//! not call [`ACCESS_LOG`] get none of this.

use super::super::module::{Id, Module};
use super::super::value::{Ptr, Val};
use super::address::PtrArg;
use super::{Lowerer, State, R};
use crate::diag::Error;
use crate::ir::{BinOp, Instr, ValueType};
use std::rc::Rc;

/// Our header's `__gpumc_access_log(what, p)`: `what` is one of the
/// `LOG_*` codes below.
pub(in super::super) const ACCESS_LOG: &str = "__gpumc_access_log";
const LOG_READ: i64 = 0;
const LOG_WRITE: i64 = 1;
const LOG_READ_OFFSET: i64 = 2;
const LOG_WRITE_OFFSET: i64 = 3;
const LOG_PTR_OFFSET: i64 = 4;

/// The hidden variable holding the records (no SPIR-V id is this large).
const LOG_VAR: Id = u32::MAX - 1;

/// The record cell of `kind` (0 read flag, 1 write flag, 2 read offset,
/// 3 write offset) for the array `var`: 32 bits each.
fn cell(var: Id, kind: i64) -> u64 {
    u64::from(var) * 16 + (kind as u64) * 4
}

/// Whether the module asks for access records at all (our header's
/// function is declared only where a kernel calls it).
pub(super) fn logs_accesses(m: &Module) -> bool {
    m.func_of
        .iter()
        .any(|(&f, &fi)| m.functions[fi].blocks.is_empty() && m.linkage_name(f) == ACCESS_LOG)
}

impl Lowerer<'_, '_> {
    /// The variable `p` points into and the byte offset `rel` bytes past
    /// it, as a value (computed into registers when chosen at run time).
    fn var_offset(&mut self, p: &PtrArg, rel: u64, out: &mut Vec<Instr>) -> R<Option<(Id, Val)>> {
        let at = |t: &Ptr| t.offset.wrapping_add(rel) as i64;
        Ok(match p {
            PtrArg::Static(t) if t.region.is_dangling() => None,
            PtrArg::Static(t) => Some((t.region.var(), Val::Int(at(t)))),
            PtrArg::Dyn(d) if d.region.is_dangling() => None,
            PtrArg::Dyn(d) => {
                let spacing = d.spacing(at).filter(|_| d.one_variable());
                let Some((base, step)) = spacing else {
                    return Err(Error::unsupported(
                        self.pos(),
                        "GPUVerify's access predicates on a pointer chosen at run time among several arrays",
                    )
                    .into());
                };
                let index = Val::Reg(d.index.clone());
                let t = self.fresh_tmp();
                let scaled = self.local(out, &t, BinOp::Mul, &index, &Val::Int(step))?;
                let t = self.fresh_tmp();
                let off = self.local(out, &t, BinOp::Add, &scaled, &Val::Int(base))?;
                Some((d.targets[0].region.var(), off))
            }
        })
    }

    /// A non-atomic access of shared memory through `p`, `rel` bytes past
    /// it: may be recorded (see the module docs).
    pub(super) fn log_access(
        &mut self,
        st: &mut State,
        p: &PtrArg,
        rel: u64,
        write: bool,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        if !self.logs {
            return Ok(());
        }
        let Some((var, off)) = self.var_offset(p, rel, out)? else {
            return Ok(());
        };
        let (flag_kind, off_kind) = if write {
            (LOG_WRITE, LOG_WRITE_OFFSET)
        } else {
            (LOG_READ, LOG_READ_OFFSET)
        };
        let pick = self.fresh_tmp();
        self.undefined(out, &pick, ValueType::Bool)?;
        let pick = Val::Reg(pick);
        let flag = self.record(st, var, flag_kind, out)?;
        let t = self.fresh_tmp();
        let flag = self.local(out, &t, BinOp::Or, &flag, &pick)?;
        self.local_write(st, LOG_VAR, cell(var, flag_kind), 32, flag, out)?;
        let old = self.record(st, var, off_kind, out)?;
        let t = self.fresh_tmp();
        let new = self.select(out, &t, &pick, &off, &old, 0)?;
        self.local_write(st, LOG_VAR, cell(var, off_kind), 32, new, out)
    }

    /// The record of `kind` for `var`: a flag starts clear, an offset
    /// arbitrary.
    fn record(&mut self, st: &mut State, var: Id, kind: i64, out: &mut Vec<Instr>) -> R<Val> {
        let at = cell(var, kind);
        if let Some((_, v)) = st.cells.get(&(LOG_VAR, at)) {
            return Ok(v.clone());
        }
        let v = if kind == LOG_READ || kind == LOG_WRITE {
            Val::Int(0)
        } else {
            let r = self.fresh_tmp();
            self.undefined(out, &r, ValueType::Int(32))?;
            Val::Reg(r)
        };
        self.local_write(st, LOG_VAR, at, 32, v.clone(), out)?;
        Ok(v)
    }

    /// A barrier clears every record (GPUVerify resets its logs there).
    pub(super) fn log_barrier(&mut self, st: &mut State, out: &mut Vec<Instr>) -> R<()> {
        if !self.logs {
            return Ok(());
        }
        let flags: Vec<u64> = st
            .cells
            .range((LOG_VAR, 0)..=(LOG_VAR, u64::MAX))
            .map(|(&(_, at), _)| at)
            .filter(|at| at % 16 < 8)
            .collect();
        for at in flags {
            self.local_write(st, LOG_VAR, at, 32, Val::Int(0), out)?;
        }
        Ok(())
    }

    /// `__gpumc_access_log(what, p)` (call line `li`): binds its result.
    pub(super) fn log_query(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let what = self.known(st, li, 2, "the kind of access record")?;
        let p = self.ptr_any(st, li, 3)?;
        let v = match (what, self.var_offset(&p, 0, out)?) {
            (LOG_PTR_OFFSET, Some((_, off))) => off,
            (LOG_PTR_OFFSET, None) => match p {
                PtrArg::Static(t) => Val::Int(t.offset as i64),
                PtrArg::Dyn(_) => {
                    return Err(Error::unsupported(
                        self.pos(),
                        "`__ptr_offset_bytes` of a null pointer moved at run time",
                    )
                    .into())
                }
            },
            (LOG_READ..=LOG_WRITE_OFFSET, Some((var, _))) => self.record(st, var, what, out)?,
            // Nothing is recorded for the null pointer.
            (LOG_READ | LOG_WRITE, None) => Val::Int(0),
            (LOG_READ_OFFSET | LOG_WRITE_OFFSET, None) => {
                let r = self.fresh_tmp();
                self.undefined(out, &r, ValueType::Int(32))?;
                Val::Reg(r)
            }
            _ => {
                return Err(Error::semantic(
                    self.pos(),
                    format!("`{ACCESS_LOG}`: unknown record kind {what}"),
                )
                .into())
            }
        };
        let dst: Rc<str> = self.fresh(self.m.result(li)?);
        let v = self.sext_v(out, &dst, v, 32)?;
        self.bind(st, li, v)
    }
}
