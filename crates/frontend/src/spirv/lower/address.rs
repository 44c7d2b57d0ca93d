//! Pointers and addresses: access chains, and pointers chosen at run time.
//!
//! An index known while translating moves a pointer's byte offset, as
//! before. An index held in an IR register (a value loaded from shared
//! memory, or computed from one) makes a [`DynPtr`]: the candidate
//! pointers, one per element of the indexed array, and the register that
//! chooses among them. An access through it becomes an IR access with an
//! [`Addr::Indexed`] address: cell `k` for index `k`, any other index out
//! of bounds (undefined behaviour, reported by the engines). The bounds
//! are the array's: its length, a vector's component count, or — for a
//! runtime array, whose length is the buffer's — the elements `@Input`
//! gives. `OpSelect` between two pointers on a register condition is a
//! `DynPtr` with two targets.
//!
//! In the generic translation (`super::super::parse_generic`) a shared
//! access is an [`Addr::Region`]: the byte offset into its variable, a
//! term over registers; a run-time index is not expanded into candidates
//! (the `DynPtr` keeps the element index 0 denotes), and each index into
//! an array of known length carries that length as a bound of the access
//! (undefined behaviour past it). A runtime array without `@Input`
//! contents is large enough: no bound.

use super::super::layout::ADDR_MASK;
use super::super::module::{Id, Module, Type};
use super::super::value::{DynPtr, Ptr, Region, Val};
use super::{Lowerer, State, R};
use crate::diag::Error;
use crate::ir::{Addr, BinOp, Indexed, Instr, Operand, Pos, RegionAddr, RegionBound};
use std::rc::Rc;

/// Whether `ty` has a runtime array anywhere (its size is not the
/// object's).
fn contains_runtime_array(m: &Module, ty: Id, pos: Pos) -> bool {
    match m.ty(ty, pos).as_deref() {
        Ok(Type::RuntimeArray { .. }) => true,
        Ok(Type::Struct { members }) => members.iter().any(|&t| contains_runtime_array(m, t, pos)),
        Ok(Type::Array { elem, .. }) => contains_runtime_array(m, *elem, pos),
        _ => false,
    }
}

/// How a run-time index moves a pointer.
#[derive(Clone, Copy)]
enum Indexing {
    /// Into an array of the pointee's type (`a[i]`) in an in-bounds
    /// chain: bounded by the array's length where it is known, whatever
    /// the index (as the concrete translation checks a known index).
    InType,
    /// As a pointer's element offset (`OpPtrAccessChain`'s `Element`, or
    /// an index into a runtime array), `shift_by` elements past it:
    /// bounded by the memory's length; an index computed from the ids
    /// alone only in an in-bounds chain (elsewhere the concrete
    /// translation moves the byte offset by it, unchecked).
    Element { shift_by: i64, in_bounds: bool },
}

/// Candidate cells one run-time index may choose among.
const MAX_TARGETS: u64 = 4096;

/// A pointer operand: known, or chosen at run time.
pub(super) enum PtrArg {
    Static(Ptr),
    Dyn(Rc<DynPtr>),
}

impl PtrArg {
    /// A region of the pointee's storage class.
    pub fn region(&self) -> Region {
        match self {
            PtrArg::Static(p) => p.region,
            PtrArg::Dyn(d) => d.region,
        }
    }
}

/// An access chain's pointer while its indices are applied.
enum Cur {
    Static(Ptr),
    Dyn {
        index: Val,
        targets: Vec<Ptr>,
        step: Option<u64>,
        region: Region,
        what: Rc<str>,
        /// (generic translation) indices and the lengths they must stay
        /// below.
        bounds: Vec<(Val, u64)>,
    },
}

fn shift(p: Ptr, by: u64) -> Ptr {
    Ptr {
        region: p.region,
        offset: p.offset.wrapping_add(by) & ADDR_MASK,
    }
}

impl Lowerer<'_, '_> {
    /// Pointer operand `k` of line `li`.
    pub(super) fn ptr_any(&self, st: &State, li: usize, k: usize) -> R<PtrArg> {
        match self.arg(st, li, k)? {
            Val::Ptr(p) => Ok(PtrArg::Static(p)),
            Val::DynPtr(d) => Ok(PtrArg::Dyn(d)),
            // A pointer held as an integer (see `address_val`).
            Val::Int(_) | Val::Reg(_) => Err(Error::unsupported(
                self.m.arg_pos(li, k),
                "an access through a pointer read from shared memory or an argument's field (gpumc follows pointers only to the variables it names)",
            )
            .into()),
            _ => Err(Error::semantic(self.m.arg_pos(li, k), "expected a pointer").into()),
        }
    }

    /// The IR address of the `w`-bit scalar `rel` bytes past `p`.
    pub(super) fn mem_addr(
        &mut self,
        p: &PtrArg,
        rel: u64,
        w: u32,
        out: &mut Vec<Instr>,
    ) -> R<Addr> {
        if self.generic.is_some() {
            return self.region_addr(p, rel, w, out);
        }
        match p {
            PtrArg::Static(p) => Ok(Addr::Fixed(self.mem.cell(
                p.region,
                p.offset.wrapping_add(rel) & ADDR_MASK,
                w,
            ))),
            PtrArg::Dyn(d) => {
                if !matches!(d.region, Region::Shared { .. }) {
                    return Err(self.not_shared(d.region));
                }
                let cells = d
                    .targets
                    .iter()
                    .map(|t| self.mem.cell(t.region, shift(*t, rel).offset, w))
                    .collect();
                Ok(Addr::Indexed(Box::new(Indexed {
                    index: Operand::Reg(d.index.to_string()),
                    cells,
                    array: d.what.to_string(),
                })))
            }
        }
    }

    /// The generic translation's address of the `w`-bit scalar `rel`
    /// bytes past `p`: a byte offset into the variable's region.
    fn region_addr(&mut self, p: &PtrArg, rel: u64, w: u32, out: &mut Vec<Instr>) -> R<Addr> {
        let var = p.region().var();
        let Some(&region) = self.generic.and_then(|g| g.get(&var)) else {
            return Err(self.not_shared(p.region()));
        };
        let (offset, bounds) = match p {
            PtrArg::Static(p) => (
                Val::Int((p.offset.wrapping_add(rel) & ADDR_MASK) as i64),
                Vec::new(),
            ),
            PtrArg::Dyn(d) => {
                let index = Val::Reg(d.index.clone());
                // (one array's element, or an `OpSelect` of two pointers
                // into one variable: index 0 or 1)
                let spacing = d.spacing(|t| t.offset as i64);
                let Some((base, step)) = spacing.filter(|_| d.one_variable()) else {
                    return Err(Error::unsupported(
                        self.pos(),
                        "a pointer chosen at run time among several variables (in the generic translation)",
                    )
                    .into());
                };
                let t = self.fresh_tmp();
                let scaled = if step > 0 && (step as u64).is_power_of_two() {
                    let k = i64::from((step as u64).trailing_zeros());
                    self.local(out, &t, BinOp::Shl, &index, &Val::Int(k))?
                } else {
                    self.local(out, &t, BinOp::Mul, &index, &Val::Int(step))?
                };
                let t2 = self.fresh_tmp();
                let at = base.wrapping_add(rel as i64);
                let sum = self.local(out, &t2, BinOp::Add, &scaled, &Val::Int(at))?;
                // Byte offsets are taken modulo 2^32, as in the concrete
                // translation, unless addresses have 64 bits (OpenCL's
                // Physical64: a buffer may be larger than 4 GiB).
                let off = if self.m.physical64 {
                    sum
                } else {
                    let t3 = self.fresh_tmp();
                    self.local(out, &t3, BinOp::And, &sum, &Val::Int(ADDR_MASK as i64))?
                };
                let bounds = d
                    .bounds
                    .iter()
                    .map(|(ix, len)| RegionBound {
                        index: Operand::Reg(ix.to_string()),
                        len: *len,
                        array: d.what.to_string(),
                    })
                    .collect();
                (off, bounds)
            }
        };
        Ok(Addr::Region(Box::new(RegionAddr {
            region,
            offset: self.opnd(&offset)?,
            bytes: super::bytes(w) as u32,
            bounds,
        })))
    }

    /// Invocation-private and read-only memory live in the translator, not
    /// in IR locations: an index chosen at run time cannot address them.
    pub(super) fn not_shared(&self, r: Region) -> super::Flow {
        let class = self.class_of(r);
        Error::unsupported(
            self.pos(),
            format!(
                "`%{}` ({} storage) indexed by a value computed at run time",
                self.m.name(r.var()),
                class.name()
            ),
        )
        .into()
    }

    /// `OpAccessChain`, `OpInBoundsAccessChain`, `OpPtrAccessChain`,
    /// `OpInBoundsPtrAccessChain`.
    pub(super) fn access_chain(
        &mut self,
        st: &mut State,
        li: usize,
        op: &str,
        out: &mut Vec<Instr>,
    ) -> R<()> {
        let m = self.m;
        let pos = m.line(li).pos();
        let mut cur = match self.ptr_any(st, li, 1)? {
            PtrArg::Static(p) => Cur::Static(p),
            PtrArg::Dyn(d) => Cur::Dyn {
                index: Val::Reg(d.index.clone()),
                targets: d.targets.to_vec(),
                step: d.step,
                region: d.region,
                what: d.what.clone(),
                bounds: d
                    .bounds
                    .iter()
                    .map(|(r, n)| (Val::Reg(r.clone()), *n))
                    .collect(),
            },
        };
        let mut ty = self.pointee(li, 1)?;
        let mut k = 2;
        // `OpInBounds…AccessChain`: the result lies within the base object
        // (SPIR-V 3.42.8); out of it is undefined behaviour.
        let in_bounds = op.starts_with("OpInBounds");
        if op.contains("Ptr") {
            let base_ty = m.type_of(m.arg_id(li, 1)?, m.arg_pos(li, 1))?;
            let stride = match m.deco_lit(base_ty, "ArrayStride") {
                Some(s) => u64::try_from(s).unwrap_or(0),
                None => m.stride(base_ty, pos)?,
            };
            let e = self.index_operand(st, li, k, out)?;
            cur = self.element(cur, e, stride, in_bounds, out)?;
            k += 1;
        }
        while k < m.nargs(li) {
            let ipos = m.arg_pos(li, k);
            let (elem, stride, len) = match &*m.ty(ty, ipos)? {
                Type::Struct { members } => {
                    let i = self.known(st, li, k, "struct member index")?;
                    let ix = usize::try_from(i).unwrap_or(usize::MAX);
                    let Some(&mt) = members.get(ix) else {
                        return Err(
                            Error::semantic(ipos, format!("struct has no member {i}")).into()
                        );
                    };
                    let off = m.member_offset(ty, ix, ipos)?;
                    cur = Self::offset(cur, off);
                    ty = mt;
                    k += 1;
                    continue;
                }
                Type::Vector { elem, n } => (*elem, m.size_of(*elem, ipos)?, Some(u64::from(*n))),
                Type::Array { elem, len } => (*elem, m.stride(ty, ipos)?, Some(*len)),
                Type::RuntimeArray { elem } => (*elem, m.stride(ty, ipos)?, None),
                other => {
                    return Err(Error::semantic(
                        ipos,
                        format!("cannot index into {}", m.describe(other)),
                    )
                    .into())
                }
            };
            cur = match (self.index_operand(st, li, k, out)?, cur) {
                (Val::Int(i), cur) => {
                    // A known index past its array in an in-bounds chain:
                    // undefined behaviour, as the generic translation bounds
                    // the same index computed at run time.
                    if let Some(n) = len.filter(|&n| in_bounds && (i < 0 || i as u64 >= n)) {
                        let cause = Some(format!(
                            "index {i} is past the {n} elements of the array (`{}`)",
                            crate::diag::excerpt(&m.line(li).text)
                        ));
                        self.push(out, crate::ir::InstrKind::Unreachable { cause }, vec![])?;
                    }
                    Self::offset(cur, (i as u64).wrapping_mul(stride))
                }
                (ix, Cur::Static(p)) => {
                    let count = match len {
                        Some(n) => Some(n),
                        None => self.runtime_length(p, stride),
                    };
                    let how = match len {
                        Some(_) if in_bounds => Indexing::InType,
                        _ => Indexing::Element {
                            shift_by: 0,
                            in_bounds,
                        },
                    };
                    self.dynamic(p, how, count, stride, ix, out)?
                }
                // The generic translation: `a[i][j]` is element
                // `i · (outer stride / inner stride) + j` of the inner stride.
                (
                    ix,
                    Cur::Dyn {
                        index,
                        targets,
                        step: Some(s),
                        region,
                        what,
                        mut bounds,
                    },
                ) if self.generic.is_some()
                    && targets.len() == 1
                    && stride > 0
                    && s % stride == 0 =>
                {
                    let t = self.fresh_tmp();
                    let scaled =
                        self.local(out, &t, BinOp::Mul, &index, &Val::Int((s / stride) as i64))?;
                    let ix = self.snapshot(out, ix)?;
                    if let (Some(n), Val::Reg(_)) = (len, &ix) {
                        bounds.push((ix.clone(), n));
                    }
                    let t = self.fresh_tmp();
                    let index = self.local(out, &t, BinOp::Add, &scaled, &ix)?;
                    Cur::Dyn {
                        index,
                        targets,
                        step: Some(stride),
                        region,
                        what,
                        bounds,
                    }
                }
                (_, Cur::Dyn { .. }) => {
                    return Err(Error::unsupported(
                        ipos,
                        "a second index computed at run time in one address",
                    )
                    .into())
                }
            };
            ty = elem;
            k += 1;
        }
        if let (true, Cur::Static(p)) = (in_bounds, &cur) {
            self.check_in_object(*p, ty, li, out)?;
        }
        let v = match cur {
            Cur::Static(p) => Val::Ptr(p),
            Cur::Dyn {
                index,
                targets,
                step,
                region,
                what,
                bounds,
            } => {
                let Val::Reg(index) = index else {
                    return Err(Error::semantic(pos, "internal: a known run-time index").into());
                };
                let mut regs = Vec::new();
                for (ix, n) in bounds {
                    // (a known index has no bound: it moved the offset)
                    if let Val::Reg(r) = ix {
                        regs.push((r, n));
                    }
                }
                Val::DynPtr(Rc::new(DynPtr {
                    index,
                    targets: targets.into(),
                    step,
                    region,
                    what,
                    bounds: regs.into(),
                }))
            }
        };
        self.bind(st, li, v)
    }

    /// An index operand: known, or a register (copied out of a loop's
    /// fixed register, which later iterations overwrite).
    fn index_operand(&mut self, st: &State, li: usize, k: usize, out: &mut Vec<Instr>) -> R<Val> {
        match self.arg(st, li, k)? {
            v @ Val::Int(_) => Ok(v),
            v @ Val::Reg(_) => self.snapshot(out, v),
            _ => Err(Error::semantic(self.m.arg_pos(li, k), "index must be an integer").into()),
        }
    }

    /// Adds a known byte offset to every candidate.
    fn offset(cur: Cur, by: u64) -> Cur {
        match cur {
            Cur::Static(p) => Cur::Static(shift(p, by)),
            Cur::Dyn {
                index,
                targets,
                step,
                region,
                what,
                bounds,
            } => Cur::Dyn {
                index,
                targets: targets.into_iter().map(|t| shift(t, by)).collect(),
                step,
                region,
                what,
                bounds,
            },
        }
    }

    /// The `Element` operand of a pointer access chain: `e` elements of
    /// `stride` bytes past the pointer.
    fn element(
        &mut self,
        cur: Cur,
        e: Val,
        stride: u64,
        in_bounds: bool,
        out: &mut Vec<Instr>,
    ) -> R<Cur> {
        match (e, cur) {
            (Val::Int(i), Cur::Static(p)) => {
                Ok(Cur::Static(shift(p, (i as u64).wrapping_mul(stride))))
            }
            (Val::Int(0), cur) => Ok(cur),
            (e, Cur::Static(p)) => {
                // The candidates are the elements of `stride` bytes in the
                // whole variable, numbered from the one `p` points to.
                let size = self.extent(p.region);
                let stride = stride.max(1);
                let before = p.offset / stride;
                let first = p.offset % stride;
                let count = size.map(|size| size.saturating_sub(first).div_ceil(stride));
                self.dynamic(
                    Ptr {
                        region: p.region,
                        offset: first,
                    },
                    Indexing::Element {
                        shift_by: before as i64,
                        in_bounds,
                    },
                    count,
                    stride,
                    e,
                    out,
                )
            }
            (
                e,
                Cur::Dyn {
                    index,
                    targets,
                    step: Some(s),
                    region,
                    what,
                    mut bounds,
                },
            ) if s == stride => {
                // Moving along the array the index chose: add to the index
                // (which its bound then constrains).
                let dst = self.fresh_tmp();
                let moved = self.local(out, &dst, BinOp::Add, &index, &e)?;
                for b in &mut bounds {
                    if b.0 == index {
                        b.0 = moved.clone();
                    }
                }
                Ok(Cur::Dyn {
                    index: moved,
                    targets,
                    step: Some(s),
                    region,
                    what,
                    bounds,
                })
            }
            _ => Err(Error::unsupported(
                self.pos(),
                "pointer arithmetic on a pointer chosen at run time (other than along its array)",
            )
            .into()),
        }
    }

    /// A pointer to element `index + shift` of the `count` elements of
    /// `stride` bytes from `base` (`shift`: the element `index` 0 denotes).
    /// An in-bounds access chain's result, known while translating, past
    /// its variable (`L[30]` of a `local int L[25]`, each work-item its own
    /// index): undefined behaviour where it is reached. A variable of no
    /// known size (a runtime array) is not checked.
    fn check_in_object(&mut self, p: Ptr, ty: Id, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let var = p.region.var();
        let Some(&(_, pointee)) = self.vars.get(&var) else {
            return Ok(());
        };
        let pos = m.line(li).pos();
        let object = m.size_of(pointee, pos)?;
        let elem = m.size_of(ty, pos).unwrap_or(0);
        if object == 0 || contains_runtime_array(m, pointee, pos) {
            return Ok(());
        }
        if p.offset.saturating_add(elem) > object {
            let cause = Some(format!(
                "`{}` points {} bytes into `%{}`, which has {object}",
                crate::diag::excerpt(&m.line(li).text),
                p.offset,
                m.display(var)
            ));
            self.push(out, crate::ir::InstrKind::Unreachable { cause }, vec![])?;
        }
        Ok(())
    }

    fn dynamic(
        &mut self,
        base: Ptr,
        how: Indexing,
        count: Option<u64>,
        stride: u64,
        index: Val,
        out: &mut Vec<Instr>,
    ) -> R<Cur> {
        let (shift_by, index_in_chain) = match how {
            Indexing::InType => (0, true),
            Indexing::Element {
                shift_by,
                in_bounds,
            } => (shift_by, in_bounds),
        };
        let what: Rc<str> = match base.region {
            Region::Null => Rc::from("the null pointer"),
            Region::Undefined => Rc::from("an undefined pointer"),
            r => Rc::from(format!("%{}", self.m.display(r.var()))),
        };
        // Off the null pointer: no object, so no bound; an access through
        // the result is undefined behaviour whatever the index.
        if self.generic.is_some() || base.region.is_dangling() {
            // One target, the element index 0 denotes; the index bounded
            // by the array's length where it is known.
            let index = if shift_by == 0 {
                index
            } else {
                let dst = self.fresh_tmp();
                self.local(out, &dst, BinOp::Add, &index, &Val::Int(shift_by))?
            };
            // An index computed from the ids alone is known to the concrete
            // translation, which checks it only in an in-bounds chain
            // (`index_in_chain`: per array, and the result within its
            // variable, `check_in_object`); elsewhere it moves the byte
            // offset there, without a bound.
            let bounds = match count {
                Some(n) if index_in_chain || !self.id_derived(&index) => {
                    vec![(index.clone(), n)]
                }
                _ => Vec::new(),
            };
            return Ok(Cur::Dyn {
                index,
                targets: vec![base],
                step: Some(stride),
                region: base.region,
                what,
                bounds,
            });
        }
        let Some(count) = count else {
            return Err(self.unknown_length(base.region));
        };
        if count > MAX_TARGETS {
            return Err(Error::unsupported(
                self.pos(),
                format!(
                    "an index computed at run time into `%{}` choosing among more than {MAX_TARGETS} elements",
                    self.m.name(base.region.var())
                ),
            )
            .of_scale()
            .into());
        }
        let index = if shift_by == 0 {
            index
        } else {
            let dst = self.fresh_tmp();
            self.local(out, &dst, BinOp::Add, &index, &Val::Int(shift_by))?
        };
        let targets = (0..count)
            .map(|k| shift(base, k.wrapping_mul(stride)))
            .collect();
        Ok(Cur::Dyn {
            index,
            targets,
            step: Some(stride),
            region: base.region,
            what,
            bounds: Vec::new(),
        })
    }

    /// Elements of a runtime array at `p` in its buffer: those `@Input`
    /// gives (the buffer's contents decide its length).
    /// (`None`: unknown, no `@Input` contents.)
    fn runtime_length(&self, p: Ptr, stride: u64) -> Option<u64> {
        let size = self.extent(p.region)?;
        Some(size.saturating_sub(p.offset).div_ceil(stride.max(1)))
    }

    fn unknown_length(&self, r: Region) -> super::Flow {
        Error::unsupported(
            self.pos(),
            format!(
                "`%{}` is indexed at run time but its length is unknown (a runtime array without `@Input` contents)",
                self.m.name(r.var())
            ),
        )
        .of_scale()
        .into()
    }

    /// The bytes of the variable of region `r`: its type's size, or up to
    /// the last initial value given when it ends in a runtime array.
    pub(super) fn extent(&self, r: Region) -> Option<u64> {
        let var: Id = r.var();
        let (_, pointee) = self.vars.get(&var)?;
        let pos = self.pos();
        let sized = self.m.size_of(*pointee, pos).ok()?;
        let init = self.init_end.get(&var).copied();
        if has_runtime_array(self.m, *pointee, pos) {
            init.map(|e| e.max(sized))
        } else {
            Some(sized)
        }
    }

    /// The address a pointer converts to (`OpConvertPtrToU`): the null
    /// pointer's offset from 0, otherwise the offset from a base of the
    /// variable's own, never 0 (GPUVerify's null-pointer tests compare
    /// pointers with 0). Bases are 2^32 apart with 64-bit addresses; with
    /// 32-bit ones 2^24 apart, repeating every 255 variables, so two
    /// pointers into different objects may then compare equal. Pointers
    /// into different objects compare in a fixed, arbitrary order, which
    /// C leaves unspecified anyway.
    fn address(&self, p: Ptr) -> u64 {
        let base = match p.region {
            Region::Null | Region::Undefined => 0,
            r if self.m.physical64 => (u64::from(r.var()) + 1) << 32,
            r => (u64::from(r.var() % 255) + 1) << 24,
        };
        base.wrapping_add(p.offset)
    }

    /// `OpConvertPtrToU`: a pointer's address as an integer.
    pub(super) fn ptr_to_int(&mut self, st: &mut State, li: usize, out: &mut Vec<Instr>) -> R<()> {
        let m = self.m;
        let (w, _) = self.elem_width(m.arg_id(li, 0)?, self.pos())?;
        let v = self.arg(st, li, 1)?;
        let dst = self.fresh(m.result(li)?);
        let v = self.address_val(v, w, &dst, out)?;
        self.bind(st, li, v)
    }

    /// The address `v` (a pointer, or a pointer already held as an
    /// integer: loaded from memory, an argument's pointer field) converts
    /// to, as a `w`-bit integer computed into `dst` where it is not known.
    pub(super) fn address_val(
        &mut self,
        v: Val,
        w: u32,
        dst: &Rc<str>,
        out: &mut Vec<Instr>,
    ) -> R<Val> {
        Ok(match v {
            // An undefined pointer's address: arbitrary.
            Val::Ptr(p) if p.region == Region::Undefined => {
                self.undefined(out, dst, crate::ir::ValueType::Int(w))?;
                Val::Reg(dst.clone())
            }
            Val::Ptr(p) => Val::Int(super::super::value::sext(self.address(p) as i64, w)),
            Val::DynPtr(d) => {
                if d.region == Region::Undefined {
                    return Err(Error::unsupported(
                        self.pos(),
                        "the address of an undefined pointer moved by a value computed at run time",
                    )
                    .into());
                }
                let Some((base, step)) = d.spacing(|t| self.address(*t) as i64) else {
                    return Err(Error::unsupported(
                        self.pos(),
                        "the address of a pointer chosen at run time among unevenly spaced targets",
                    )
                    .into());
                };
                let index = Val::Reg(d.index.clone());
                let t = self.fresh_tmp();
                let scaled = self.local(out, &t, BinOp::Mul, &index, &Val::Int(step))?;
                let sum = self.local(out, dst, BinOp::Add, &scaled, &Val::Int(base))?;
                self.sext_v(out, dst, sum, w)?
            }
            v @ Val::Int(_) => v,
            v @ Val::Reg(_) => self.sext_v(out, dst, v, w)?,
            Val::Comp(_) => return Err(Error::semantic(self.pos(), "expected a pointer").into()),
        })
    }

    /// `OpConvertUToPtr`: only 0 (the null pointer) has a meaning here; no
    /// integer names a variable.
    pub(super) fn int_to_ptr(&mut self, st: &mut State, li: usize) -> R<()> {
        match self.arg(st, li, 1)? {
            Val::Int(0) => self.bind(
                st,
                li,
                Val::Ptr(Ptr {
                    region: Region::Null,
                    offset: 0,
                }),
            ),
            _ => Err(Error::unsupported(
                self.pos(),
                "an integer other than 0 converted to a pointer (`OpConvertUToPtr`)",
            )
            .into()),
        }
    }

    /// `OpSelect` between two pointers on a register condition `c`.
    pub(super) fn select_ptr(&mut self, out: &mut Vec<Instr>, c: &Val, a: &Val, b: &Val) -> R<Val> {
        let (Val::Ptr(a), Val::Ptr(b)) = (a, b) else {
            return Err(Error::unsupported(
                self.pos(),
                "pointer selected at run time between pointers that are not both known",
            )
            .into());
        };
        if self.class_of(a.region) != self.class_of(b.region) {
            return Err(Error::unsupported(
                self.pos(),
                "pointer selected at run time between different storage classes",
            )
            .into());
        }
        // Target 1 when the condition holds (booleans are 0 or 1; `!= 0`
        // also makes an undefined condition choose one of the two).
        let dst = self.fresh_tmp();
        let Val::Reg(index) = self.local(out, &dst, BinOp::Ne, c, &Val::Int(0))? else {
            return Err(Error::semantic(self.pos(), "internal: a known select condition").into());
        };
        let name = |p: &Ptr| format!("%{}", self.m.display(p.region.var()));
        let what = if a.region.var() == b.region.var() {
            name(a)
        } else {
            format!("{} or {}", name(b), name(a))
        };
        Ok(Val::DynPtr(Rc::new(DynPtr {
            index,
            targets: Rc::from(vec![*b, *a]),
            step: None,
            region: a.region,
            what: Rc::from(what),
            bounds: Rc::from(Vec::new()),
        })))
    }
}

/// Whether `ty` (or its last struct member, recursively) is a runtime
/// array.
pub(in super::super) fn has_runtime_array(m: &Module, ty: Id, pos: Pos) -> bool {
    let mut ty = ty;
    for _ in 0..64 {
        match m.ty(ty, pos).as_deref() {
            Ok(Type::RuntimeArray { .. }) => return true,
            Ok(Type::Struct { members }) => match members.last() {
                Some(&last) => ty = last,
                None => return false,
            },
            _ => return false,
        }
    }
    false
}
