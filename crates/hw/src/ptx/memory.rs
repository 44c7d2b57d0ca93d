//! Memory operations of test code: loads, stores, read-modify-writes and
//! fences, with fixed or run-time-indexed addresses.

use super::access;
use super::asm::{imm32, Asm};
use crate::spec::{Access, Address, Fence, KernelSpec, Region, RmwKind, Value};
use gpumc_core::diag::Result;

/// Register `r` of test thread `t`.
pub(crate) fn thread_reg(asm: &mut Asm, t: usize, r: usize) -> String {
    asm.b32(&format!("t{t}_r{r}"))
}

/// The register holding location `l`'s address: `.b64` into the global
/// window for `Global`, `.b32` into the shared window for `Shared`.
pub(crate) fn loc_reg(asm: &mut Asm, l: usize, region: Region) -> String {
    match region {
        Region::Global => asm.b64(&format!("loc{l}")),
        Region::Shared => asm.b32(&format!("loc{l}")),
    }
}

/// A value as a `.b32` register: thread `t`'s register, or the constant
/// moved into the scratch register `%<scratch>`.
pub(crate) fn value(asm: &mut Asm, t: usize, v: &Value, scratch: &str) -> String {
    match v {
        Value::Reg(r) => thread_reg(asm, t, *r),
        Value::Const(c) => {
            let s = asm.b32(scratch);
            asm.ins(format!("mov.b32 {s}, {}", imm32(*c)));
            s
        }
    }
}

/// The register to access and the region of `addr`'s location(s).
/// `Indexed`: checks the index first; out of bounds, sets `%oob`, moves 0
/// into `oob_dst` if given and skips `access` (see `spec::Address`).
fn with_address(
    asm: &mut Asm,
    spec: &KernelSpec,
    t: usize,
    addr: &Address,
    oob_dst: Option<&str>,
    access: impl FnOnce(&mut Asm, &str, Region) -> Result<()>,
) -> Result<()> {
    match addr {
        Address::Fixed(l) => {
            let region = spec.locations[*l].region;
            let reg = loc_reg(asm, *l, region);
            access(asm, &reg, region)
        }
        Address::Indexed { index, cells } => {
            let idx = value(asm, t, index, "v_index");
            let oob = asm.pred("p_oob");
            let out = asm.fresh_label("oob");
            let done = asm.fresh_label("indexed_done");
            // Unsigned: a negative index is out of bounds too.
            asm.ins(format!("setp.ge.u32 {oob}, {idx}, {}", cells.len()));
            asm.ins(format!("@{oob} bra {out}"));
            if cells.is_empty() {
                // Every index is out of bounds: no access to emit.
                out_of_bounds(asm, &out, &done, oob_dst);
                return Ok(());
            }
            let region = spec.locations[cells[0]].region;
            let selected = match region {
                Region::Global => asm.b64("ad"),
                Region::Shared => asm.b32("as"),
            };
            let ty = if region == Region::Global {
                "b64"
            } else {
                "b32"
            };
            // The address is selected by predicated moves: a data (address)
            // dependency on the index, not a branch per cell.
            let is = asm.pred("p_cell");
            for (k, l) in cells.iter().enumerate() {
                let cell = loc_reg(asm, *l, region);
                if k == 0 {
                    asm.ins(format!("mov.{ty} {selected}, {cell}"));
                } else {
                    asm.ins(format!("setp.eq.u32 {is}, {idx}, {k}"));
                    asm.ins(format!("@{is} mov.{ty} {selected}, {cell}"));
                }
            }
            access(asm, &selected, region)?;
            asm.ins(format!("bra {done}"));
            out_of_bounds(asm, &out, &done, oob_dst);
            Ok(())
        }
    }
}

/// The out-of-bounds path at label `out`: the flag set, the destination
/// (if any) 0, then `done`.
fn out_of_bounds(asm: &mut Asm, out: &str, done: &str, oob_dst: Option<&str>) {
    asm.label(out);
    let oob_flag = asm.b32("oob");
    asm.ins(format!("mov.u32 {oob_flag}, 1"));
    if let Some(d) = oob_dst {
        asm.ins(format!("mov.b32 {d}, 0"));
    }
    asm.label(done);
}

pub(crate) fn load(
    asm: &mut Asm,
    spec: &KernelSpec,
    t: usize,
    dst: usize,
    addr: &Address,
    acc: &Access,
) -> Result<()> {
    let d = thread_reg(asm, t, dst);
    with_address(asm, spec, t, addr, Some(&d), |asm, a, region| {
        let opcode = access::load(acc, region)?;
        asm.ins(format!("{opcode}.u32 {d}, [{a}]"));
        Ok(())
    })
}

pub(crate) fn store(
    asm: &mut Asm,
    spec: &KernelSpec,
    t: usize,
    addr: &Address,
    v: &Value,
    acc: &Access,
) -> Result<()> {
    let src = value(asm, t, v, "v_value");
    with_address(asm, spec, t, addr, None, |asm, a, region| {
        let opcode = access::store(acc, region)?;
        asm.ins(format!("{opcode}.u32 [{a}], {src}"));
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn rmw(
    asm: &mut Asm,
    spec: &KernelSpec,
    t: usize,
    dst: Option<usize>,
    addr: &Address,
    op: &RmwKind,
    v: &Value,
    acc: &Access,
) -> Result<()> {
    let mut operand = value(asm, t, v, "v_value");
    if *op == RmwKind::Sub {
        let neg = asm.b32("v_negated");
        asm.ins(format!("neg.s32 {neg}, {operand}"));
        operand = neg;
    }
    let expected = match op {
        RmwKind::Cas { expected } => Some(value(asm, t, expected, "v_expected")),
        _ => None,
    };
    let d = dst.map(|r| thread_reg(asm, t, r));
    with_address(asm, spec, t, addr, d.as_deref(), |asm, a, region| {
        let (opcode, is_red) = access::rmw(acc, region, op, d.is_some())?;
        let (suffix, _) = access::rmw_op(op);
        if is_red {
            asm.ins(format!("{opcode}.{suffix} [{a}], {operand}"));
            return Ok(());
        }
        // atom always has a destination; an unwanted old value goes to a
        // scratch register.
        let old = match &d {
            Some(d) => d.clone(),
            None => asm.b32("old_discarded"),
        };
        match &expected {
            Some(e) => asm.ins(format!("{opcode}.{suffix} {old}, [{a}], {e}, {operand}")),
            None => asm.ins(format!("{opcode}.{suffix} {old}, [{a}], {operand}")),
        }
        Ok(())
    })
}

pub(crate) fn fence(asm: &mut Asm, f: &Fence) -> Result<()> {
    let text = access::fence(f)?;
    asm.ins(text);
    Ok(())
}
