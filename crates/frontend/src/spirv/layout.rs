//! Memory layout: byte offsets of members, elements and components, the
//! scalar cells of shared memory (IR locations), their names, and initial
//! values.
//!
//! Every variable is a block of bytes; an access chain yields a byte
//! offset (offset arithmetic wraps modulo 2^32, like 32-bit addressing),
//! and each scalar access reads or writes the *cell* at that offset. A
//! shared cell becomes one IR location, named after the type path that
//! reaches it (`%buf[0][3]`), or `%buf+<offset>` when no member, element or
//! component starts there (padding, out-of-range vector components).
//! Workgroup variables have one copy per workgroup; with more than one
//! workgroup their cells are suffixed `@wg<k>`. Accesses of different
//! sizes to overlapping bytes are distinct cells; that is only sound when
//! none of them is written, which is checked once every invocation is
//! translated (see [`Memory::check_overlaps`]); the initial value of a cell
//! is assembled from the initial bytes it covers (little-endian).

use super::header::HValue;
use super::module::{Id, Module, Type};
use super::value::{canon_lit, Region, Val};
use crate::diag::{Error, Result};
use crate::ir::Pos;
use std::collections::{BTreeMap, HashMap};

/// Byte offsets wrap modulo 2^32.
pub(super) const ADDR_MASK: u64 = 0xFFFF_FFFF;

/// A scalar cell of shared memory.
#[derive(Clone, Debug)]
pub(super) struct Cell {
    pub region: Region,
    pub offset: u64,
    /// Width in bits (1 for booleans).
    pub width: u32,
    pub init: i64,
    /// No initial value was given for any byte of its variable.
    pub uninit: bool,
}

/// Shared memory: the cells used so far.
#[derive(Clone, Debug, Default)]
pub(super) struct Memory {
    pub cells: Vec<Cell>,
    index: HashMap<(Region, u64, u64), usize>,
}

/// Bytes a scalar of `width` bits occupies.
pub(super) fn bytes(width: u32) -> u64 {
    if width <= 1 {
        4
    } else {
        u64::from(width.div_ceil(8))
    }
}

impl Memory {
    /// Number of cells (for rollback after an aborted translation).
    pub fn checkpoint(&self) -> usize {
        self.cells.len()
    }

    /// Forgets the cells created after `n`.
    pub fn rollback(&mut self, n: usize) {
        while self.cells.len() > n {
            let c = self.cells.pop().expect("non-empty");
            self.index.remove(&(c.region, c.offset, bytes(c.width)));
        }
    }

    /// The cell of `width` bits at `offset` (created if new).
    pub fn cell(&mut self, region: Region, offset: u64, width: u32) -> usize {
        let key = (region, offset, bytes(width));
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.cells.len();
        self.cells.push(Cell {
            region,
            offset,
            width,
            init: 0,
            uninit: false,
        });
        self.index.insert(key, i);
        i
    }

    /// Pairs of distinct cells sharing bytes.
    pub fn overlaps(&self) -> Vec<(usize, usize)> {
        let mut by_region: BTreeMap<Region, Vec<usize>> = BTreeMap::new();
        for (i, c) in self.cells.iter().enumerate() {
            by_region.entry(c.region).or_default().push(i);
        }
        let mut out = Vec::new();
        for (_, mut v) in by_region {
            v.sort_by_key(|&i| (self.cells[i].offset, bytes(self.cells[i].width)));
            for (k, &i) in v.iter().enumerate() {
                let end = self.cells[i].offset + bytes(self.cells[i].width);
                for &j in &v[k + 1..] {
                    if self.cells[j].offset >= end {
                        break;
                    }
                    out.push((i, j));
                }
            }
        }
        out
    }
}

/// The initial value of `width` bits at `offset` assembled from the
/// initial scalars `init` (offset → (width, value)), little-endian;
/// bytes nobody initialised are 0.
pub(super) fn compose_init(init: &BTreeMap<u64, (u32, i64)>, offset: u64, width: u32) -> i64 {
    if let Some(&(w, v)) = init.get(&offset) {
        if bytes(w) == bytes(width) {
            return v;
        }
    }
    let n = bytes(width).min(8);
    let mut acc: u64 = 0;
    for b in 0..n {
        let at = offset + b;
        if let Some((&o, &(w, v))) = init.range(..=at).next_back() {
            if at < o + bytes(w) {
                let shift = 8 * (at - o);
                let byte = if shift < 64 {
                    ((v as u64) >> shift) & 0xFF
                } else {
                    0
                };
                acc |= byte << (8 * b);
            }
        }
    }
    if width <= 1 {
        i64::from(acc != 0)
    } else {
        super::value::sext(acc as i64, width.min(64))
    }
}

/// The type path (indices) of the scalar of `size` bytes at `offset` in
/// a value of type `ty`, if a member/element/component starts there.
pub(super) fn path_of(m: &Module, ty: Id, offset: u64, size: u64, pos: Pos) -> Option<Vec<u64>> {
    let mut out = Vec::new();
    let mut ty = ty;
    let mut off = offset;
    for _ in 0..64 {
        let t = m.ty(ty, pos).ok()?;
        match &*t {
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                return (off == 0 && m.size_of(ty, pos).ok()? == size).then_some(out);
            }
            Type::Vector { elem, n } => {
                let es = m.size_of(*elem, pos).ok()?.max(1);
                let i = off / es;
                if i >= u64::from(*n) {
                    return None;
                }
                out.push(i);
                off -= i * es;
                ty = *elem;
            }
            Type::Array { elem, len } => {
                let st = m.stride(ty, pos).ok()?.max(1);
                let i = off / st;
                if i >= *len {
                    return None;
                }
                out.push(i);
                off -= i * st;
                ty = *elem;
            }
            Type::RuntimeArray { elem } => {
                let st = m.stride(ty, pos).ok()?.max(1);
                let i = off / st;
                out.push(i);
                off -= i * st;
                ty = *elem;
            }
            Type::Struct { members } => {
                let mut found = None;
                for (k, &mt) in members.iter().enumerate() {
                    let mo = m.member_offset(ty, k, pos).ok()?;
                    let unbounded = matches!(&*m.ty(mt, pos).ok()?, Type::RuntimeArray { .. });
                    let ms = m.size_of(mt, pos).ok()?;
                    if off >= mo && (unbounded || off < mo + ms) {
                        found = Some((k, mo, mt));
                    }
                }
                let (k, mo, mt) = found?;
                out.push(k as u64);
                off -= mo;
                ty = mt;
            }
            _ => return None,
        }
    }
    None
}

/// Byte offset and scalar type reached by an index path (as written in a
/// condition: `%buf[0][2]`).
pub(super) fn offset_of_path(m: &Module, ty: Id, path: &[u64], pos: Pos) -> Result<(u64, Id)> {
    let mut ty = ty;
    let mut off = 0u64;
    for &i in path {
        match &*m.ty(ty, pos)? {
            Type::Vector { elem, .. } => {
                off = off.wrapping_add(i.wrapping_mul(m.size_of(*elem, pos)?));
                ty = *elem;
            }
            Type::Array { elem, .. } | Type::RuntimeArray { elem } => {
                off = off.wrapping_add(i.wrapping_mul(m.stride(ty, pos)?));
                ty = *elem;
            }
            Type::Struct { members } => {
                let k = usize::try_from(i).unwrap_or(usize::MAX);
                let Some(&mt) = members.get(k) else {
                    return Err(Error::semantic(
                        pos,
                        format!("member {i} of a struct with {} members", members.len()),
                    ));
                };
                off = off.wrapping_add(m.member_offset(ty, k, pos)?);
                ty = mt;
            }
            Type::Bool | Type::Int { .. } | Type::Float { .. } => {
                return Err(Error::semantic(pos, "too many indices (this is a scalar)"));
            }
            other => {
                return Err(Error::unsupported(
                    pos,
                    format!("indexing into {}", m.describe(other)),
                ))
            }
        }
    }
    match &*m.ty(ty, pos)? {
        Type::Bool | Type::Int { .. } | Type::Float { .. } => Ok((off & ADDR_MASK, ty)),
        other => Err(Error::semantic(
            pos,
            format!("not a scalar ({}); add indices", m.describe(other)),
        )),
    }
}

/// Scalars of an initial value: `(offset, width, value)`.
pub(super) fn flatten_input(
    m: &Module,
    ty: Id,
    v: &HValue,
    base: u64,
    out: &mut Vec<(u64, u32, i64)>,
    depth: u32,
) -> Result<()> {
    let pos = v.pos();
    if depth > 64 || out.len() > 1 << 16 {
        return Err(Error::unsupported(pos, "initial value too large"));
    }
    let t = m.ty(ty, pos)?;
    let items = |v: &'_ HValue| -> Result<Vec<HValue>> {
        match v {
            HValue::List(items, _) => Ok(items.clone()),
            HValue::Int(..) => Err(Error::semantic(
                pos,
                format!("expected `{{…}}` for {}", m.describe(&t)),
            )),
        }
    };
    match &*t {
        Type::Bool | Type::Int { .. } | Type::Float { .. } => {
            let HValue::Int(x, _) = v else {
                return Err(Error::semantic(pos, "expected an integer for a scalar"));
            };
            let w = m.scalar_width(ty, pos)?;
            let x = if w == 1 {
                i64::from(*x != 0)
            } else {
                canon_lit(*x, w)
            };
            out.push((base & ADDR_MASK, w, x));
        }
        Type::Vector { elem, n } => {
            let xs = items(v)?;
            if xs.len() != *n as usize {
                return Err(Error::semantic(
                    pos,
                    format!("expected {n} components, found {}", xs.len()),
                ));
            }
            let es = m.size_of(*elem, pos)?;
            for (i, x) in xs.iter().enumerate() {
                flatten_input(m, *elem, x, base + i as u64 * es, out, depth + 1)?;
            }
        }
        Type::Array { elem, len } => {
            let xs = items(v)?;
            if xs.len() as u64 != *len {
                return Err(Error::semantic(
                    pos,
                    format!("expected {len} elements, found {}", xs.len()),
                ));
            }
            let st = m.stride(ty, pos)?;
            for (i, x) in xs.iter().enumerate() {
                flatten_input(m, *elem, x, base + i as u64 * st, out, depth + 1)?;
            }
        }
        Type::RuntimeArray { elem } => {
            let xs = items(v)?;
            let st = m.stride(ty, pos)?;
            for (i, x) in xs.iter().enumerate() {
                flatten_input(m, *elem, x, base + i as u64 * st, out, depth + 1)?;
            }
        }
        Type::Struct { members } => {
            let xs = items(v)?;
            if xs.len() != members.len() {
                return Err(Error::semantic(
                    pos,
                    format!("expected {} members, found {}", members.len(), xs.len()),
                ));
            }
            for (k, (x, &mt)) in xs.iter().zip(members.iter()).enumerate() {
                let mo = m.member_offset(ty, k, pos)?;
                flatten_input(m, mt, x, base + mo, out, depth + 1)?;
            }
        }
        other => {
            return Err(Error::unsupported(
                pos,
                format!("initial value for {}", m.describe(other)),
            ))
        }
    }
    Ok(())
}

/// Scalars of a translation-time value of type `ty`: `(offset, width, value)`.
pub(super) fn flatten_val(
    m: &Module,
    ty: Id,
    v: &Val,
    base: u64,
    pos: Pos,
    out: &mut Vec<(u64, u32, Val)>,
    depth: u32,
) -> Result<()> {
    if depth > 64 || out.len() > 1 << 16 {
        return Err(Error::unsupported(pos, "value too large"));
    }
    let t = m.ty(ty, pos)?;
    match (&*t, v) {
        (Type::Bool | Type::Int { .. } | Type::Float { .. }, Val::Int(_) | Val::Reg(_)) => {
            out.push((base & ADDR_MASK, m.scalar_width(ty, pos)?, v.clone()));
        }
        // An event handle: a 64-bit value (`Module::size_of`).
        (Type::Opaque(op), Val::Int(_) | Val::Reg(_)) if op == "OpTypeEvent" => {
            out.push((base & ADDR_MASK, 64, v.clone()));
        }
        (Type::Vector { elem, n }, Val::Comp(xs)) if xs.len() == *n as usize => {
            let es = m.size_of(*elem, pos)?;
            for (i, x) in xs.iter().enumerate() {
                flatten_val(m, *elem, x, base + i as u64 * es, pos, out, depth + 1)?;
            }
        }
        (Type::Array { elem, len }, Val::Comp(xs)) if xs.len() as u64 == *len => {
            let st = m.stride(ty, pos)?;
            for (i, x) in xs.iter().enumerate() {
                flatten_val(m, *elem, x, base + i as u64 * st, pos, out, depth + 1)?;
            }
        }
        (Type::Struct { members }, Val::Comp(xs)) if xs.len() == members.len() => {
            for (k, (x, &mt)) in xs.iter().zip(members.iter()).enumerate() {
                let mo = m.member_offset(ty, k, pos)?;
                flatten_val(m, mt, x, base + mo, pos, out, depth + 1)?;
            }
        }
        // A pointer is one 64-bit cell (Physical64 addressing): a pointer
        // value in Function and Private variables, its address (an
        // integer) in shared memory (the stores convert it); an integer
        // where the pointer came from memory or from an argument.
        (Type::Pointer { .. }, Val::Ptr(_) | Val::DynPtr(_) | Val::Int(_) | Val::Reg(_)) => {
            out.push((base & ADDR_MASK, 64, v.clone()));
        }
        (Type::Pointer { .. }, _) | (_, Val::Ptr(_) | Val::DynPtr(_)) => {
            return Err(Error::unsupported(pos, "pointers stored in memory"));
        }
        (other, _) => {
            return Err(Error::semantic(
                pos,
                format!("value does not match {}", m.describe(other)),
            ))
        }
    }
    Ok(())
}

/// Builds the value of type `ty` at `base` from scalar reads.
pub(super) fn gather(
    m: &Module,
    ty: Id,
    base: u64,
    pos: Pos,
    read: &mut dyn FnMut(u64, u32) -> Result<Val>,
    depth: u32,
) -> Result<Val> {
    if depth > 64 {
        return Err(Error::unsupported(pos, "type nested too deeply"));
    }
    let t = m.ty(ty, pos)?;
    Ok(match &*t {
        Type::Bool | Type::Int { .. } | Type::Float { .. } => {
            read(base & ADDR_MASK, m.scalar_width(ty, pos)?)?
        }
        Type::Pointer { .. } => read(base & ADDR_MASK, 64)?,
        Type::Opaque(op) if op == "OpTypeEvent" => read(base & ADDR_MASK, 64)?,
        Type::Vector { elem, n } => {
            let es = m.size_of(*elem, pos)?;
            let mut xs = Vec::new();
            for i in 0..u64::from(*n) {
                xs.push(gather(m, *elem, base + i * es, pos, read, depth + 1)?);
            }
            Val::Comp(xs.into())
        }
        Type::Array { elem, len } => {
            if *len > 4096 {
                return Err(Error::unsupported(
                    pos,
                    "loading or storing arrays of more than 4096 elements at once",
                ));
            }
            let st = m.stride(ty, pos)?;
            let mut xs = Vec::new();
            for i in 0..*len {
                xs.push(gather(m, *elem, base + i * st, pos, read, depth + 1)?);
            }
            Val::Comp(xs.into())
        }
        Type::Struct { members } => {
            let mut xs = Vec::new();
            for (k, &mt) in members.iter().enumerate() {
                let mo = m.member_offset(ty, k, pos)?;
                xs.push(gather(m, mt, base + mo, pos, read, depth + 1)?);
            }
            Val::Comp(xs.into())
        }
        other => {
            return Err(Error::unsupported(
                pos,
                format!("loading {}", m.describe(other)),
            ))
        }
    })
}
