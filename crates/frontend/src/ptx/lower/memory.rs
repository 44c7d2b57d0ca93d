//! Memory of a kernel launch: buffers (what a pointer can point into)
//! and their cells, the IR locations.
//!
//! * A pointer kernel argument points to a global buffer of its own (no
//!   two arguments alias); `--param a=buf:BYTES` gives its size,
//!   otherwise only the cells the kernel reaches at offsets known while
//!   translating exist. Module `.global` variables are global buffers.
//! * `.shared` variables have one copy per block; every `.extern
//!   .shared` array is the block's dynamic shared memory.
//! * `.const` variables are read-only memory (folded where the offset
//!   and the initialiser are known).
//! * `.local` arrays and the `.param` variables of call sequences are
//!   private to a thread: the translation keeps their contents (no IR
//!   memory, no events).
//!
//! A cell is the bytes one access touches (offset and size); its IR
//! location is created when first accessed. Accesses of different sizes
//! to overlapping bytes are supported only while none of them writes.

use super::value::BufId;
use crate::diag::{Error, Result};
use crate::ir::{LocId, Location, Pos, ValueType};
use std::collections::{BTreeMap, HashMap};

pub use crate::generic::{BufKind, Buffer, Contents};

/// A cell of one copy of a buffer.
#[derive(Clone, Copy)]
struct Cell {
    loc: LocId,
    /// Some thread writes it.
    written: bool,
    /// Where it was first accessed.
    pos: Pos,
}

/// The cells of one copy of a buffer, by `(offset, size)`.
#[derive(Default)]
struct Copy {
    cells: BTreeMap<(i64, u32), Cell>,
}

pub struct Memory {
    pub buffers: Vec<Buffer>,
    /// Named module and function variables (`.global`, `.shared`,
    /// `.const`) already made buffers.
    pub named: HashMap<String, BufId>,
    copies: HashMap<(BufId, u32), Copy>,
    pub locations: Vec<Location>,
    /// Blocks in the launch: shared cells are named `s[3]@b1` when > 1.
    pub blocks: u32,
    /// The first size a buffer was accessed with: its element size in
    /// location names.
    elem: HashMap<BufId, u32>,
    /// Bytes of dynamic shared memory per block (`--shared-bytes`).
    pub dynamic_shared: Option<u64>,
    /// Module variables gpumc cannot model, by name: the error, reported
    /// if a kernel uses one.
    pub broken: HashMap<String, Error>,
    /// The address of each function of the module, by name (an
    /// initialiser may store one).
    pub fn_addrs: HashMap<String, i64>,
    /// The alignment a variable was declared with (`.align N`): its
    /// address is a multiple of it.
    pub align: HashMap<BufId, u32>,
}

/// The most cells a run-time index may choose between.
pub const MAX_CELLS: u64 = 4096;

impl Memory {
    pub fn new(blocks: u32, dynamic_shared: Option<u64>) -> Memory {
        Memory {
            buffers: Vec::new(),
            named: HashMap::new(),
            copies: HashMap::new(),
            locations: Vec::new(),
            blocks,
            elem: HashMap::new(),
            dynamic_shared,
            broken: HashMap::new(),
            fn_addrs: HashMap::new(),
            align: HashMap::new(),
        }
    }

    /// The name of the cell of `size` bytes at `off` (`a[3]`, `a+2:1`).
    pub fn cell_name(&mut self, buf: BufId, off: i64, size: u32) -> String {
        let elem = *self.elem.entry(buf).or_insert(size);
        let b = &self.buffers[buf];
        if off % i64::from(size) == 0 && size == elem {
            format!("{}[{}]", b.name, off / i64::from(size))
        } else {
            format!("{}+{}:{}", b.name, off, size)
        }
    }

    pub fn add(&mut self, b: Buffer) -> BufId {
        self.buffers.push(b);
        self.buffers.len() - 1
    }

    /// The IR location of bytes `[off, off+size)` of buffer `buf` (copy
    /// `copy`: the block, for shared memory; 0 otherwise).
    pub fn cell(
        &mut self,
        buf: BufId,
        copy: u32,
        off: i64,
        size: u32,
        write: bool,
        pos: Pos,
    ) -> LocId {
        if let Some(e) = self
            .copies
            .get_mut(&(buf, copy))
            .and_then(|c| c.cells.get_mut(&(off, size)))
        {
            e.written |= write;
            return e.loc;
        }
        let mut name = self.cell_name(buf, off, size);
        let c = self.copies.entry((buf, copy)).or_default();
        let b = &self.buffers[buf];
        if b.kind == BufKind::Shared && self.blocks > 1 {
            name = format!("{name}@b{copy}");
        }
        let (init, init_arbitrary) = match &b.contents {
            Contents::Arbitrary => (0, Some(ValueType::Int(size * 8))),
            Contents::Zero => (0, None),
            Contents::Bytes(bytes) => (read_le(bytes, off, size), None),
        };
        let id = self.locations.len();
        self.locations.push(Location {
            name,
            phys: id,
            virt: id,
            init,
            init_arbitrary,
            space: Some(b.space().to_string()),
        });
        c.cells.insert(
            (off, size),
            Cell {
                loc: id,
                written: write,
                pos,
            },
        );
        id
    }

    /// Every cell of `size` bytes of the buffer, in order (a run-time
    /// index chooses one); an error when the size is unknown or the
    /// buffer has too many cells.
    pub fn array(
        &mut self,
        buf: BufId,
        copy: u32,
        size: u32,
        write: bool,
        pos: Pos,
    ) -> Result<Vec<LocId>> {
        let b = &self.buffers[buf];
        let Some(bytes) = b.size else {
            let hint = b.size_hint.clone().unwrap_or_default();
            return Err(Error::unsupported(
                pos,
                format!(
                    "an address into `{}` computed at run time needs the buffer's size{hint}",
                    b.name
                ),
            )
            .of_scale());
        };
        let n = bytes / u64::from(size);
        if n > MAX_CELLS {
            return Err(Error::unsupported(
                pos,
                format!(
                    "an address into `{}` computed at run time chooses between {n} cells (at most {MAX_CELLS})",
                    b.name
                ),
            )
            .of_scale());
        }
        Ok((0..n as i64)
            .map(|k| self.cell(buf, copy, k * i64::from(size), size, write, pos))
            .collect())
    }

    /// The value of bytes `[off, off+size)` of a read-only buffer, when
    /// its contents are known.
    pub fn known(&self, buf: BufId, off: i64, size: u32) -> Option<i64> {
        match &self.buffers[buf].contents {
            Contents::Zero => Some(0),
            Contents::Bytes(b) => Some(read_le(b, off, size)),
            Contents::Arbitrary => None,
        }
    }

    /// Refuses overlapping cells of different sizes of which one is
    /// written: the value one reads would be made of another's bytes,
    /// which the IR's whole-location accesses do not model.
    pub fn check_mixed_sizes(&self) -> Result<()> {
        let mut keys: Vec<&(BufId, u32)> = self.copies.keys().collect();
        keys.sort();
        for k in keys {
            // By offset: a cell overlaps only those that start before it ends.
            let cells: Vec<(i64, u32, Cell)> = self.copies[k]
                .cells
                .iter()
                .map(|(&(o, z), c)| (o, z, *c))
                .collect();
            for (i, &(o1, z1, c1)) in cells.iter().enumerate() {
                for &(o2, z2, c2) in &cells[i + 1..] {
                    if o2 >= o1 + i64::from(z1) {
                        break;
                    }
                    if c1.written || c2.written {
                        return Err(Error::unsupported(
                            c2.pos,
                            format!(
                                "mixed-size access: {z2}-byte access at offset {o2} of `{}` overlaps a {z1}-byte access at offset {o1}, and one of them writes",
                                self.buffers[k.0].name
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

pub use crate::generic::read_le;

#[cfg(test)]
mod tests {
    use super::*;

    fn mem() -> (Memory, BufId) {
        let mut m = Memory::new(2, None);
        let b = m.add(Buffer {
            name: "s".into(),
            kind: BufKind::Shared,
            size: Some(16),
            contents: Contents::Arbitrary,
            decl: None,
            size_hint: None,
            pointers: Vec::new(),
        });
        (m, b)
    }

    #[test]
    fn cells_are_named_by_element_and_block() {
        let (mut m, b) = mem();
        let p = Pos::default();
        let a = m.cell(b, 1, 8, 4, true, p);
        assert_eq!(m.locations[a].name, "s[2]@b1");
        assert_eq!(m.cell(b, 1, 8, 4, false, p), a);
        assert_ne!(m.cell(b, 0, 8, 4, false, p), a);
        let c = m.cell(b, 0, 2, 2, false, p);
        assert_eq!(m.locations[c].name, "s+2:2@b0");
        assert_eq!(m.locations[a].init_arbitrary, Some(ValueType::Int(32)));
        assert_eq!(m.locations[a].space.as_deref(), Some("shared"));
    }

    #[test]
    fn arrays_need_a_size() {
        let (mut m, b) = mem();
        assert_eq!(m.array(b, 0, 4, false, Pos::default()).unwrap().len(), 4);
        let g = m.add(Buffer {
            name: "param_0".into(),
            kind: BufKind::Global,
            size: None,
            contents: Contents::Arbitrary,
            decl: None,
            size_hint: Some(" (give it with `--param 0=buf:BYTES`)".into()),
            pointers: Vec::new(),
        });
        let e = m.array(g, 0, 4, false, Pos::default()).unwrap_err();
        assert!(e.message.contains("--param 0=buf:BYTES"), "{}", e.message);
    }

    #[test]
    fn mixed_sizes_only_refused_when_written() {
        let (mut m, b) = mem();
        let p = Pos::default();
        m.cell(b, 0, 0, 4, false, p);
        m.cell(b, 0, 0, 8, false, p);
        assert!(m.check_mixed_sizes().is_ok());
        m.cell(b, 0, 4, 4, true, p);
        let e = m.check_mixed_sizes().unwrap_err();
        assert!(e.message.contains("mixed-size"), "{}", e.message);
    }

    #[test]
    fn little_endian_initialisers() {
        let le = |b: &[u8]| match Contents::bytes(b) {
            Contents::Bytes(m) => m,
            _ => unreachable!(),
        };
        assert_eq!(
            read_le(&le(&[1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]), 4, 4),
            -1
        );
        assert_eq!(read_le(&le(&[1, 2]), 0, 4), 0x0201);
        assert_eq!(read_le(&le(&[1, 2]), 8, 4), 0);
        assert_eq!(read_le(&le(&[1, 2]), -1, 2), 0x0100);
        // Far into a large array: nothing the size of the offset is built.
        let far = BTreeMap::from([(1u64 << 40, 7u8)]);
        assert_eq!(read_le(&far, 1 << 40, 4), 7);
    }
}
