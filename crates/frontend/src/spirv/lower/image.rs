//! OpenCL images (`image1d_t`, `image2d_t`, `image3d_t` arguments), as
//! races see them.
//!
//! An image argument is a buffer of its own (`kernel_args.rs`), of
//! 16-byte texels: texel `(x, y, z)` at byte `16 · (x + 2^16 · (y + 2^16
//! · z))`, so that distinct coordinates below 2^16 (above every device's
//! image size limit we know of) are distinct texels. `write_imagef` and
//! its kin (`OpImageWrite`) store the texel there, a plain store that
//! races with another work-item's write of the same texel. Reads of a
//! `read_only` image (`OpImageRead`, `OpImageSampleExplicitLod`,
//! `OpImageFetch`) are free values: nothing in the kernel writes that
//! image (OpenCL forbids it), so they race with nothing, and gpumc does
//! not compute filtering or formats; image queries (`get_image_width`, …)
//! are free values too. Reads of `write_only` or `read_write` images are
//! refused by name (a `read_write` image needs the accesses' order, which
//! this does not model).

use super::super::module::Type;
use super::super::value::{DynPtr, Ptr, Val};
use super::address::PtrArg;
use super::{Lowerer, State, R};
use crate::diag::Error;
use crate::ir::{BinOp, Instr};
use std::rc::Rc;

/// Bytes per texel in the image's buffer.
const TEXEL: u64 = 16;
/// Coordinates below this are distinct texels.
const SPAN: i64 = 1 << 16;

impl Lowerer<'_, '_> {
    /// The access qualifier (`ReadOnly`, `WriteOnly`, `ReadWrite`) of the
    /// image or sampled image operand `k` of line `li`.
    fn image_access(&self, li: usize, k: usize) -> R<String> {
        let m = self.m;
        let pos = m.arg_pos(li, k);
        let mut ty = m.type_of(m.arg_id(li, k)?, pos)?;
        for _ in 0..2 {
            let Some(dl) = m.def.get(ty as usize).copied().flatten() else {
                break;
            };
            match m.line(dl).opcode.as_str() {
                "OpTypeSampledImage" => ty = m.arg_id(dl, 0)?,
                // (OpenCL images always carry the qualifier; without one,
                // as in Vulkan, the image is taken as read-only)
                "OpTypeImage" => {
                    return Ok(m.arg_word(dl, 7).unwrap_or_else(|_| "ReadOnly".into()))
                }
                _ => break,
            }
        }
        Err(Error::semantic(pos, "expected an image").into())
    }

    /// The image instructions (see the module docs).
    pub(super) fn image_op(
        &mut self,
        st: &mut State,
        li: usize,
        op: &str,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let m = self.m;
        match op {
            // The image stands for its sampled image (the sampler selects
            // what reads return, which is not computed).
            "OpSampledImage" => {
                let v = self.arg(st, li, 1)?;
                self.bind(st, li, v)
            }
            "OpImageRead" | "OpImageSampleExplicitLod" | "OpImageFetch" => {
                let access = self.image_access(li, 1)?;
                if access != "ReadOnly" {
                    return Err(Error::unsupported(
                        self.pos(),
                        format!("a read of a `{access}` image (only `read_only` images are read)"),
                    )
                    .into());
                }
                self.free_result(st, li, out)
            }
            "OpImageWrite" => {
                if self.image_access(li, 0)? == "ReadOnly" {
                    return Err(Error::semantic(self.pos(), "a write to a read-only image").into());
                }
                let PtrArg::Static(base) = self.ptr_any(st, li, 0)? else {
                    return Err(
                        Error::unsupported(self.pos(), "an image chosen at run time").into(),
                    );
                };
                let coord = self.arg(st, li, 1)?;
                let texel = self.arg(st, li, 2)?;
                let ty = m.type_of(m.arg_id(li, 2)?, m.arg_pos(li, 2))?;
                if m.size_of(ty, self.pos())? > TEXEL {
                    return Err(Error::unsupported(self.pos(), "a texel over 16 bytes").into());
                }
                let p = self.texel_ptr(base, coord, out)?;
                let tags = self.access_tags(st, li, m.nargs(li), base.region, true)?;
                self.store(st, p, ty, texel, tags, out)
            }
            // Queries: free values.
            _ => {
                let rty = m.arg_id(li, 0)?;
                if matches!(&*m.ty(rty, self.pos())?, Type::Void) {
                    return Ok(());
                }
                self.free_result(st, li, out)
            }
        }
    }

    /// The texel at `coord` (an integer or a vector of 2 to 4; a fourth
    /// component, an array layer's, is ignored beyond the third) of the
    /// image whose buffer starts at `base`.
    fn texel_ptr(&mut self, base: Ptr, coord: Val, out: &mut Vec<Instr>) -> R<PtrArg> {
        let comps: Vec<Val> = match coord {
            Val::Comp(xs) => xs.iter().take(3).cloned().collect(),
            v => vec![v],
        };
        // x + SPAN · (y + SPAN · z), from the last component in.
        let mut index = Val::Int(0);
        for c in comps.iter().rev() {
            let t = self.fresh_tmp();
            let scaled = self.local(out, &t, BinOp::Mul, &index, &Val::Int(SPAN))?;
            let t = self.fresh_tmp();
            index = self.local(out, &t, BinOp::Add, &scaled, c)?;
        }
        match index {
            Val::Int(k) => Ok(PtrArg::Static(Ptr {
                region: base.region,
                offset: base.offset.wrapping_add((k as u64).wrapping_mul(TEXEL)),
            })),
            Val::Reg(r) if self.generic.is_some() => Ok(PtrArg::Dyn(Rc::new(DynPtr {
                index: r,
                targets: Rc::from(vec![base]),
                step: Some(TEXEL),
                region: base.region,
                what: Rc::from(format!("%{}", self.m.display(base.region.var()))),
                bounds: Rc::from(Vec::new()),
            }))),
            _ => Err(Error::unsupported(
                self.pos(),
                "an image coordinate computed at run time from memory (the concrete translation)",
            )
            .into()),
        }
    }
}
