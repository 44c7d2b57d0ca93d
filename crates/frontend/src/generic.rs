//! What a front-end's *generic-thread* translation gives the parametric
//! engine besides the program of one generic thread (docs/PTX-KERNELS.md,
//! "Any launch size"; docs/SPIRV.md, "Any launch size"): the inputs that
//! hold the thread's ids, the memory regions its accesses address, and the
//! shape of the launch. Shared by the PTX (`ptx::lower::lower_generic`)
//! and SPIR-V (`spirv::parse_generic`) front-ends, so the engine depends
//! on neither.
//!
//! Conventions of the generic thread's program, which both front-ends
//! follow:
//!
//! * every shared-memory access is an [`crate::ir::Addr::Region`] into
//!   `buffers[region]`, its offset a term over the ids and inputs;
//! * a barrier of every thread of a block (a PTX CTA, a Vulkan workgroup)
//!   is an `ir::InstrKind::Barrier` that is not arrive-only, whose `id` is
//!   below 2^40 and whose `count` is none or [`GenericParts::block_threads`];
//!   every other barrier (warp, subgroup, partial) has some other form.

use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufKind {
    /// Memory every thread shares (PTX global, SPIR-V StorageBuffer,
    /// Uniform, …).
    Global,
    /// One copy per block (PTX shared, SPIR-V Workgroup).
    Shared,
    /// Read-only memory every thread shares.
    Const,
    /// Private to one thread (`.local`, call `.param`s).
    Private,
    /// A kernel argument in the parameter space.
    Param,
    /// Private to one thread, but in IR memory: an address into it is
    /// computed at run time (`loc[i & 3]` of a local array).
    LocalMemory,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Anything (`cudaMalloc`'d memory, shared memory, a SPIR-V buffer
    /// without `@Input`).
    Arbitrary,
    Zero,
    /// From an initialiser: its non-zero bytes by offset; every other
    /// byte is 0. Sparse, because an initialiser may sit at an offset far
    /// into a large array (a SPIR-V constant at element 2^29).
    Bytes(BTreeMap<u64, u8>),
}

/// Little-endian value of `size` bytes at `off` of sparse contents
/// (bytes not given are 0), sign-extended.
pub fn read_le(bytes: &BTreeMap<u64, u8>, off: i64, size: u32) -> i64 {
    let mut v: u64 = 0;
    for k in (0..size.min(8)).rev() {
        let at = off + i64::from(k);
        let b = u64::try_from(at)
            .ok()
            .and_then(|i| bytes.get(&i))
            .copied()
            .unwrap_or(0);
        v = (v << 8) | u64::from(b);
    }
    let bits = size * 8;
    if bits >= 64 || bits == 0 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v as i64) << s) >> s
    }
}

impl Contents {
    /// The contents of little-endian `bytes` (0 where not given).
    pub fn bytes(bytes: &[u8]) -> Contents {
        Contents::Bytes(
            (0u64..)
                .zip(bytes.iter().copied())
                .filter(|&(_, b)| b != 0)
                .collect(),
        )
    }
}

#[derive(Clone, Debug)]
pub struct Buffer {
    /// For locations and messages (`param_0`, `s`, `flag`, `%buf`).
    pub name: String,
    pub kind: BufKind,
    /// Bytes; `None`: unknown (a pointer argument without `buf:BYTES`, a
    /// SPIR-V runtime array without `@Input` contents).
    pub size: Option<u64>,
    pub contents: Contents,
    /// How to make its size known, for the message when a run-time index
    /// needs it.
    pub size_hint: Option<String>,
    /// The declaration as written, for messages (`.global .u8 c`); `None`
    /// for buffers no declaration made (kernel arguments).
    pub decl: Option<String>,
    /// Addresses in the initial contents: byte offset, bytes, and the
    /// variable (or function) and offset whose address is stored there.
    pub pointers: Vec<(i64, u32, String, i64)>,
}

impl Buffer {
    pub fn space(&self) -> &'static str {
        match self.kind {
            BufKind::Global => "global",
            BufKind::Shared => "shared",
            BufKind::Const => "const",
            BufKind::Private => "local",
            BufKind::Param => "param",
            BufKind::LocalMemory => "local",
        }
    }
}

/// One id of the generic thread, held by a program input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenericId {
    /// The input (`ir::Program::inputs`) that holds it.
    pub input: usize,
    /// `%tid.x`, `%ctaid.y`, `SubgroupLocalInvocationId`, `WorkgroupId`.
    pub name: String,
    /// Its values are `0..extent`.
    pub extent: u32,
    /// 0: the thread within its innermost group (PTX `%tid`, SPIR-V
    /// subgroup-local id); `l ≥ 1`: the group at entry `l - 1` of
    /// `ir::Placement::ids` (PTX `%ctaid` at 1; SPIR-V subgroup at 1,
    /// workgroup at 2). Two threads are the same thread when every id
    /// agrees.
    pub level: usize,
}

/// How witnesses name a generic thread from its ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// `t3@b5`, `t(3,1)@b(5,0)`.
    Ptx,
    /// `P13@wg3`: the global invocation index (as the concrete engine's
    /// thread `P13`) and the workgroup, for `per_sg` invocations per
    /// subgroup and `per_wg` per workgroup.
    Spirv { per_sg: u32, per_wg: u32 },
}

/// What the generic translation gives the parametric engine besides the
/// program (module docs).
#[derive(Clone, Debug)]
pub struct GenericParts {
    /// The ids the thread reads (a dimension of extent 1 is the constant
    /// 0 and has none).
    pub ids: Vec<GenericId>,
    /// Every id dimension of the launch whose extent is above 1, read or
    /// not: name (as in [`GenericId::name`]), extent and level. Two threads
    /// are one thread only when all of them agree; a kernel that never
    /// reads `%tid.y` still has threads that differ only there.
    pub dims: Vec<(String, u32, usize)>,
    /// Every region, by [`crate::ir::RegionAddr::region`].
    pub buffers: Vec<Buffer>,
    /// The launch as grid × block (SPIR-V: `[workgroups, 1, 1]` ×
    /// `[workgroup size, 1, 1]`).
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The id level of blocks: threads whose ids at this level and above
    /// agree share `Shared` buffers and block barriers (PTX 1, SPIR-V 2).
    pub block_level: usize,
    /// Entries of a thread's `ir::Placement::ids`.
    pub placement_len: usize,
    /// Threads of one block: the quorum of a block barrier.
    pub block_threads: u64,
    /// How to make a buffer's size known, for the assumption the report
    /// states about buffers of unknown size.
    pub size_hint: String,
    pub naming: Naming,
    /// Per region, where its cells have a name by element: the array's
    /// byte offset, stride and name (`%out[0]` for a block whose member 0
    /// is the array: cells `%out[0][k]`, as the concrete translation
    /// names them). `None` (or an offset outside the array): `name[k]`
    /// for the `k`-th cell of the access's size.
    pub arrays: Vec<Option<(u64, u64, String)>>,
}

impl GenericParts {
    /// The name of the `bytes`-byte cell at `offset` of region `region`:
    /// by element where an array is known, else `name[k]` for the `k`-th
    /// cell of its size, or `name+offset:bytes` where it is not aligned.
    pub fn cell_name(&self, region: usize, offset: i64, bytes: u32) -> String {
        let b = &self.buffers[region];
        if let Some(Some((start, stride, name))) = self.arrays.get(region) {
            if let Some(rel) = u64::try_from(offset)
                .ok()
                .and_then(|o| o.checked_sub(*start))
            {
                let stride = (*stride).max(1);
                return if rel % stride == 0 {
                    format!("{name}[{}]", rel / stride)
                } else {
                    format!("{}+{offset}", b.name)
                };
            }
        }
        let size = i64::from(bytes.max(1));
        if offset % size == 0 {
            format!("{}[{}]", b.name, offset / size)
        } else {
            format!("{}+{offset}:{bytes}", b.name)
        }
    }

    /// The name of the thread whose id inputs have the values `value`
    /// gives (by input index).
    pub fn thread_name(&self, value: impl Fn(usize) -> i64) -> String {
        let by_name: BTreeMap<&str, i64> = self
            .ids
            .iter()
            .map(|g| (g.name.as_str(), value(g.input)))
            .collect();
        let get = |n: &str| by_name.get(n).copied().unwrap_or(0);
        match self.naming {
            Naming::Ptx => {
                let comp = |base: &str| -> String {
                    let vals: Vec<i64> = ["x", "y", "z"]
                        .iter()
                        .map(|c| get(&format!("{base}.{c}")))
                        .collect();
                    let used = self
                        .ids
                        .iter()
                        .filter(|g| g.name.starts_with(base))
                        .map(|g| match g.name.rsplit('.').next() {
                            Some("y") => 2,
                            Some("z") => 3,
                            _ => 1,
                        })
                        .max()
                        .unwrap_or(1);
                    if used == 1 {
                        vals[0].to_string()
                    } else {
                        let v: Vec<String> = vals[..used].iter().map(i64::to_string).collect();
                        format!("({})", v.join(","))
                    }
                };
                format!("t{}@b{}", comp("%tid"), comp("%ctaid"))
            }
            Naming::Spirv { per_sg, per_wg } => {
                let wg = get(SPIRV_WG);
                let global = wg * i64::from(per_wg)
                    + get(SPIRV_SG) * i64::from(per_sg)
                    + get(SPIRV_SG_LOCAL);
                format!("P{global}@wg{wg}")
            }
        }
    }
}

/// The names of the SPIR-V generic thread's id inputs.
pub const SPIRV_SG_LOCAL: &str = "SubgroupLocalInvocationId";
pub const SPIRV_SG: &str = "SubgroupId";
pub const SPIRV_WG: &str = "WorkgroupId.x";
