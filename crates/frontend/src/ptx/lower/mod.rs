//! A PTX kernel and a launch → an IR program with one thread per thread
//! of the launch, by partial evaluation (`tx.rs`): thread and block ids,
//! launch shape, argument values and everything computed from them are
//! folded while translating, so addresses are mostly fixed locations;
//! values loaded from memory, free arguments and arbitrary values live in
//! IR registers. See docs/PTX-KERNELS.md.

mod alu;
mod arith;
pub mod cfg;
mod collective;
mod instr;
mod memops;
pub mod memory;
mod tx;
pub mod value;

use super::ast::{
    FnKind, Function, Init, Instr, Module, Operand, Space, Stmt, Type, TypeKind, VarDecl,
};
use super::launch::{Launch, ParamValue, MAX_BUFFER_BYTES, MAX_THREADS};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{self, Arch, Placement, Pos, Program, SourceLoc, Thread};
use crate::ptx::demangle::{source_name, SourceName};
use cfg::Cfg;
use memory::{BufKind, Buffer, Contents, Memory};
use std::collections::{BTreeMap, HashMap, HashSet};
use tx::{Assume, TxErr};
use value::BufId;

/// A kernel argument as the translation sees it.
pub(super) struct ParamInfo {
    pub name: String,
    pub ty: Type,
    pub bytes: u64,
    pub given: Option<ParamValue>,
}

/// Where a thread is in the launch.
pub(super) struct ThreadCtx {
    pub tid: [u32; 3],
    pub ctaid: [u32; 3],
    pub ntid: [u32; 3],
    pub nctaid: [u32; 3],
    /// Linear index in its block, and of its block in the grid.
    pub linear: u32,
    pub cta: u32,
    pub shared_bytes: u64,
    /// The generic thread (`generic.rs`): `tid`, `ctaid`, `linear` and
    /// `cta` are not known; the ids are inputs (`Shared::ids`) and global
    /// and shared accesses are region addresses.
    pub generic: bool,
}

/// The code every thread runs.
pub(super) struct Code<'m> {
    pub funcs: HashMap<&'m str, &'m Function>,
    /// Every function the module declares, with a body or not.
    pub declared: HashSet<&'m str>,
    pub cfgs: HashMap<&'m str, Cfg<'m>>,
    pub kernel: &'m Function,
    /// Every function's first declaration (with a body or not), by name.
    pub decl_of: HashMap<&'m str, &'m Function>,
    /// The address of each function (`FN_ADDR_BASE + 16·k`), and back.
    pub fn_addr: HashMap<&'m str, i64>,
    pub fn_at: HashMap<i64, &'m str>,
    /// The functions whose address the module takes (a symbol operand
    /// other than a call's callee, or in an initialiser), in module
    /// order: the candidates of an indirect call.
    pub taken: Vec<&'m str>,
}

/// Function addresses are distinct constants from here on (positive in
/// 32 bits too, far from the small integers kernels compute with).
pub(super) const FN_ADDR_BASE: i64 = 0x7F00_0000;

/// What translations found out about the launch; each set only grows.
#[derive(Clone, Default)]
pub(super) struct Learned {
    /// Loops (function, header) that cannot be unrolled.
    pub dynamic_loops: HashSet<(String, cfg::BlockId)>,
    /// Arguments nobody gave that the kernel uses as integers, by
    /// (argument, byte offset): offset 0 of a pointer-sized argument, or
    /// a pointer-sized field of a struct argument.
    pub int_params: HashSet<(usize, i64)>,
    /// Of those, the ones the kernel calls: function pointers, which hold
    /// the address of a function whose address the module takes.
    pub fn_params: HashSet<(usize, i64)>,
    /// Global buffers (by name) that some thread writes, or indexes at
    /// run time: memory. The others are read-only for the whole launch,
    /// so their loads are folded (known contents) or free inputs.
    pub memory: HashSet<String>,
    /// Private arrays (function, declaration) indexed at run time: IR
    /// memory of their thread, not kept by the translation.
    pub local_memory: HashSet<(String, String)>,
}

/// What every thread's translation shares and adds to.
pub(super) struct Shared {
    pub mem: Memory,
    pub params: Vec<ParamInfo>,
    /// The parameter-space buffer of each kernel argument.
    pub kparam_buf: HashMap<BufId, usize>,
    /// The buffer a pointer argument points to (made on first use).
    pub param_buf: HashMap<usize, BufId>,
    /// The buffer a pointer-sized field (argument, byte offset) of a
    /// struct argument nobody gave points to (made on first use).
    pub field_buf: HashMap<(usize, i64), BufId>,
    /// Buffers of arguments (and their fields) nobody gave: treated as
    /// pointers until used as an integer (then `Assume::IntParam` and a
    /// new translation).
    pub free_ptr_param: HashMap<BufId, (usize, i64)>,
    pub inputs: Vec<ir::Input>,
    /// The input of bytes `[off, off+size)` of kernel argument `k`.
    pub input_of: HashMap<(usize, i64, u32), usize>,
    /// The input of a cell of a global buffer no thread writes.
    pub cell_input: HashMap<(BufId, i64, u32), usize>,
    /// The function and declaration of each private buffer.
    pub private_owner: HashMap<BufId, (String, String)>,
    pub learned: Learned,
    pub files: HashMap<u32, String>,
    pub source_map: BTreeMap<u32, SourceLoc>,
    pub address_bits: u32,
    /// The generic thread's id inputs (`%tid.x`, `%ctaid.y`, …), by name.
    pub ids: BTreeMap<String, usize>,
    /// What the translation assumed (`Program::assumptions`).
    pub assumptions: Vec<String>,
    /// The hidden exchange buffer of each group that warp collectives
    /// and `bar.red` exchange values in (`collective.rs`).
    pub exchange: Vec<(collective::Group, BufId)>,
}

/// The functions whose address `module` takes, in module order: named by
/// an operand other than a call's callee and prototype, or by a variable's
/// initialiser.
fn address_taken(module: &Module) -> Vec<&str> {
    fn init_syms<'a>(i: &'a Init, out: &mut Vec<&'a str>) {
        match i {
            Init::Addr { sym, .. } => out.push(sym),
            Init::List(v) => v.iter().for_each(|x| init_syms(x, out)),
            Init::Int(_) | Init::Float { .. } => {}
        }
    }
    fn stmts<'a>(body: &'a [Stmt], out: &mut Vec<&'a str>) {
        for s in body {
            match s {
                Stmt::Instr(i) => {
                    let ops: &[Operand] = if i.opcode == "call" { &[] } else { &i.operands };
                    for o in ops {
                        match o {
                            Operand::Sym { name, .. } | Operand::SymOffset { name, .. } => {
                                out.push(name)
                            }
                            Operand::Mem { base, .. } => {
                                if let Operand::Sym { name, .. } = &**base {
                                    out.push(name);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                Stmt::Var(v) => {
                    if let Some(i) = &v.init {
                        init_syms(i, out);
                    }
                }
                Stmt::Block { body, .. } => stmts(body, out),
                Stmt::Label { .. } | Stmt::Pragma { .. } | Stmt::CallSpec(_) => {}
            }
        }
    }
    let mut syms = Vec::new();
    for v in &module.vars {
        if let Some(i) = &v.init {
            init_syms(i, &mut syms);
        }
    }
    for f in &module.functions {
        if let Some(b) = &f.body {
            stmts(b, &mut syms);
        }
    }
    let syms: HashSet<&str> = syms.into_iter().collect();
    let mut out: Vec<&str> = Vec::new();
    for f in &module.functions {
        if syms.contains(f.name.as_str()) && !out.contains(&f.name.as_str()) {
            out.push(&f.name);
        }
    }
    out
}

/// Translates kernel `launch.kernel` of `module` for `launch`.
pub fn lower(module: &Module, launch: &Launch) -> Result<Program> {
    Ok(translate_launch(module, launch, false)?.0)
}

pub use crate::generic::GenericParts;

/// Translates kernel `launch.kernel` once, for a thread whose ids are not
/// known (inputs named after their special registers): the *generic
/// thread* every thread of the launch runs. Its global and shared
/// accesses are region addresses (`ir::Addr::Region`) whose offsets are
/// computed at run time from the ids; a buffer of unknown size is large
/// enough. Any launch within CUDA's limits is accepted.
pub fn lower_generic(module: &Module, launch: &Launch) -> Result<(Program, GenericParts)> {
    translate_launch(module, launch, true)
}

fn translate_launch(
    module: &Module,
    launch: &Launch,
    generic: bool,
) -> Result<(Program, GenericParts)> {
    let kernel = choose_kernel(module, launch)?;
    let (grid, block) = match (launch.grid, launch.block) {
        (g, Some(b)) => (g.unwrap_or([1, 1, 1]), b),
        (_, None) => {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "kernel `{}` needs a launch configuration: give at least `--block X[,Y[,Z]]` (and `--grid`), on the command line or in a `// gpumc-launch:` line",
                    kernel.name
                ),
            )
            .at(kernel.pos))
        }
    };
    launch
        .check_limits()
        .map_err(|e| Error::new(ErrorKind::Usage, e).at(kernel.pos))?;
    let threads = super::launch::thread_count(grid, block);
    if threads > u128::from(MAX_THREADS) && !generic {
        // (checked before anything is built)
        return Err(Error::new(
            ErrorKind::Unsupported,
            format!(
                "unsupported: a launch of {threads} threads (at most {MAX_THREADS}: every thread is checked)"
            ),
        )
        .of_scale());
    }
    // Both fit in u32 now (at most MAX_THREADS); the generic thread's
    // memory has one copy of the shared variables.
    let blocks = if generic {
        1
    } else {
        super::launch::thread_count(grid, [1; 3]) as u32
    };
    let mut code = Code {
        declared: module.functions.iter().map(|f| f.name.as_str()).collect(),
        funcs: HashMap::new(),
        cfgs: HashMap::new(),
        kernel,
        decl_of: HashMap::new(),
        fn_addr: HashMap::new(),
        fn_at: HashMap::new(),
        taken: address_taken(module),
    };
    for f in &module.functions {
        if !code.decl_of.contains_key(f.name.as_str()) {
            let a = FN_ADDR_BASE + 16 * code.decl_of.len() as i64;
            code.decl_of.insert(&f.name, f);
            code.fn_addr.insert(&f.name, a);
            code.fn_at.insert(a, &f.name);
        }
    }
    for f in &module.functions {
        if let Some(body) = &f.body {
            code.funcs.insert(&f.name, f);
            code.cfgs.insert(&f.name, cfg::build(body)?);
        }
    }
    let mut learned = Learned::default();
    // A translation that finds a launch-wide assumption wrong (an argument
    // used as an integer, a buffer some thread writes) starts again.
    for _ in 0..10_000 {
        let mut sh = Shared {
            mem: Memory::new(blocks, launch.shared_bytes),
            params: Vec::new(),
            kparam_buf: HashMap::new(),
            param_buf: HashMap::new(),
            field_buf: HashMap::new(),
            free_ptr_param: HashMap::new(),
            inputs: Vec::new(),
            input_of: HashMap::new(),
            cell_input: HashMap::new(),
            private_owner: HashMap::new(),
            learned,
            files: module.files.iter().cloned().collect(),
            source_map: BTreeMap::new(),
            address_bits: module.address_size.unwrap_or(64),
            ids: BTreeMap::new(),
            assumptions: Vec::new(),
            exchange: Vec::new(),
        };
        let groups = collective::groups(code.funcs.values().copied());
        for (g, b) in collective::buffers(&groups, block.iter().product()) {
            let id = sh.mem.add(b);
            sh.exchange.push((g, id));
        }
        sh.mem.fn_addrs = code
            .fn_addr
            .iter()
            .map(|(n, a)| (n.to_string(), *a))
            .collect();
        bind_params(&mut sh, kernel, launch)?;
        for v in &module.vars {
            // A variable gpumc cannot model is an error only if used.
            if let Err(e) = declare_var(&mut sh.mem, v) {
                sh.mem.broken.insert(v.name.clone(), e);
            }
        }
        let translated = if generic {
            translate_generic(&code, &mut sh, grid, block, launch).map(|t| vec![t])
        } else {
            translate_all(&code, &mut sh, grid, block, launch)
        };
        match translated {
            Ok(threads) => {
                if !generic {
                    sh.mem.check_mixed_sizes()?;
                }
                let ids = std::mem::take(&mut sh.ids)
                    .into_iter()
                    .map(|(name, input)| {
                        let d = match name.rsplit('.').next() {
                            Some("y") => 1,
                            Some("z") => 2,
                            _ => 0,
                        };
                        let thread = name.starts_with("%tid");
                        crate::generic::GenericId {
                            input,
                            extent: if thread { block[d] } else { grid[d] },
                            level: if thread { 0 } else { 1 },
                            name,
                        }
                    })
                    .collect();
                let mut dims = Vec::new();
                for (base, level, ext) in [("%tid", 0, block), ("%ctaid", 1, grid)] {
                    for (d, c) in ["x", "y", "z"].iter().enumerate() {
                        if ext[d] > 1 {
                            dims.push((format!("{base}.{c}"), ext[d], level));
                        }
                    }
                }
                let parts = GenericParts {
                    ids,
                    dims,
                    buffers: sh.mem.buffers.clone(),
                    grid,
                    block,
                    block_level: 1,
                    placement_len: 2,
                    block_threads: block.iter().map(|&b| u64::from(b)).product(),
                    size_hint: "no size given: `--param NAME=buf:BYTES` makes out-of-bounds accesses checked".into(),
                    naming: crate::generic::Naming::Ptx,
                    arrays: Vec::new(),
                };
                let program = Program {
                    kernel: true,
                    name: kernel.name.clone(),
                    arch: Arch::Ptx,
                    threads,
                    locations: sh.mem.locations,
                    ssw: Vec::new(),
                    filter: None,
                    assertion: None,
                    observed: Vec::new(),
                    inputs: sh.inputs,
                    source_map: sh.source_map,
                    assumptions: sh.assumptions,
                    header: Vec::new(),
                    default_model: None,
                };
                return Ok((program, parts));
            }
            Err(TxErr::Error(e)) => return Err(e),
            Err(TxErr::Restart(a)) => {
                learned = sh.learned;
                match a {
                    Assume::IntParam(k, o) => learned.int_params.insert((k, o)),
                    Assume::FnParam(k, o) => {
                        learned.fn_params.insert((k, o));
                        learned.int_params.insert((k, o))
                    }
                    Assume::Memory(name) => learned.memory.insert(name),
                    Assume::DynamicLoop(f, b) => learned.dynamic_loops.insert((f, b)),
                    Assume::LocalMemory(f, v) => learned.local_memory.insert((f, v)),
                };
            }
        }
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        "unsupported: the translation did not settle (please report this kernel)",
    ))
}

/// Every thread of the launch, block by block.
fn translate_all(
    code: &Code,
    sh: &mut Shared,
    grid: [u32; 3],
    block: [u32; 3],
    launch: &Launch,
) -> std::result::Result<Vec<Thread>, TxErr> {
    let per_block = block[0] * block[1] * block[2];
    let blocks = grid[0] * grid[1] * grid[2];
    let mut threads = Vec::new();
    for cta in 0..blocks {
        let ctaid = unlinear(cta, grid);
        for linear in 0..per_block {
            let th = ThreadCtx {
                tid: unlinear(linear, block),
                ctaid,
                ntid: block,
                nctaid: grid,
                linear,
                cta,
                shared_bytes: launch.shared_bytes.unwrap_or(0),
                generic: false,
            };
            threads.push(translate_thread(code, sh, &th)?);
        }
    }
    Ok(threads)
}

/// The generic thread (see [`lower_generic`]).
fn translate_generic(
    code: &Code,
    sh: &mut Shared,
    grid: [u32; 3],
    block: [u32; 3],
    launch: &Launch,
) -> std::result::Result<Thread, TxErr> {
    let th = ThreadCtx {
        tid: [0; 3],
        ctaid: [0; 3],
        ntid: block,
        nctaid: grid,
        linear: 0,
        cta: 0,
        shared_bytes: launch.shared_bytes.unwrap_or(0),
        generic: true,
    };
    let mut t = translate_thread(code, sh, &th)?;
    t.name = "t".into();
    Ok(t)
}

/// Translates one thread, again after each loop the translation found
/// it cannot unroll (the translation of the other threads stays exact).
fn translate_thread(
    code: &Code,
    sh: &mut Shared,
    th: &ThreadCtx,
) -> std::result::Result<Thread, TxErr> {
    loop {
        match tx::translate(code, sh, th) {
            Ok(instrs) => {
                return Ok(Thread {
                    name: thread_name(th),
                    placement: Placement {
                        ids: vec![i64::from(th.cta), 0],
                        warp: Some(i64::from(th.linear / 32)),
                    },
                    instrs,
                    init_regs: Vec::new(),
                })
            }
            // Each restart adds a loop to a finite set.
            Err(TxErr::Restart(Assume::DynamicLoop(f, b))) => {
                sh.learned.dynamic_loops.insert((f, b));
            }
            Err(e) => return Err(e),
        }
    }
}

/// `t3@b1`, `t(1,2)@b(0,1)`: ids in as many dimensions as the launch has.
pub(super) fn thread_name(th: &ThreadCtx) -> String {
    fn ids(v: [u32; 3], shape: [u32; 3]) -> String {
        let dims = if shape[2] > 1 {
            3
        } else if shape[1] > 1 {
            2
        } else {
            1
        };
        if dims == 1 {
            v[0].to_string()
        } else {
            let s: Vec<String> = v[..dims].iter().map(u32::to_string).collect();
            format!("({})", s.join(","))
        }
    }
    format!("t{}@b{}", ids(th.tid, th.ntid), ids(th.ctaid, th.nctaid))
}

fn unlinear(k: u32, shape: [u32; 3]) -> [u32; 3] {
    [
        k % shape[0],
        (k / shape[0]) % shape[1],
        k / (shape[0] * shape[1]),
    ]
}

/// A kernel's name for a list: a mangled one with its source name first.
fn shown_name(name: &str) -> String {
    match source_name(name) {
        Some(n) => format!("{} ({name})", n.full),
        None => name.to_string(),
    }
}

fn choose_kernel<'m>(module: &'m Module, launch: &Launch) -> Result<&'m Function> {
    let entries: Vec<&Function> = module
        .functions
        .iter()
        .filter(|f| f.kind == FnKind::Entry && f.body.is_some())
        .collect();
    match &launch.kernel {
        Some(k) => {
            // A C++ kernel's name is mangled (`_Z6kernelPi`): its source
            // name (`ns::scale`, `reduce<256>`) or its unqualified name
            // (`scale`, `reduce`) chooses it when that is unambiguous.
            let source: Vec<Option<SourceName>> =
                entries.iter().map(|f| source_name(&f.name)).collect();
            let named = |pick: &dyn Fn(usize) -> bool| -> Vec<&'m Function> {
                (0..entries.len())
                    .filter(|&i| pick(i))
                    .map(|i| entries[i])
                    .collect()
            };
            // Template arguments as the user spells them: `scatter<2,3,int>`
            // names clang's `scatter<2, 3, int>`.
            let spaceless = |s: &str| s.split_whitespace().collect::<String>();
            let k_tight = spaceless(k);
            let matches = [
                named(&|i| entries[i].name == *k),
                named(&|i| {
                    source[i]
                        .as_ref()
                        .is_some_and(|n| n.full == *k || spaceless(&n.full) == k_tight)
                }),
                named(&|i| source[i].as_ref().is_some_and(|n| n.base == *k)),
            ];
            let list = |fs: &[&Function]| -> String {
                let names: Vec<String> = fs.iter().map(|f| shown_name(&f.name)).collect();
                names.join(", ")
            };
            match matches.into_iter().find(|v| !v.is_empty()).as_deref() {
                Some([f]) => Ok(*f),
                Some(many) => Err(Error::new(
                    ErrorKind::Usage,
                    format!(
                        "`{k}` names {} kernels in this file: {}; choose one by its mangled name",
                        many.len(),
                        list(many)
                    ),
                )),
                None => Err(Error::new(
                    ErrorKind::Usage,
                    format!(
                        "no kernel `{k}` in this file (kernels: {})",
                        if entries.is_empty() {
                            "none".to_string()
                        } else {
                            list(&entries)
                        }
                    ),
                )),
            }
        }
        None => match entries.as_slice() {
            [f] => Ok(f),
            [] => Err(Error::new(
                ErrorKind::Semantic,
                "the file defines no kernel (`.entry` with a body)",
            )),
            many => {
                let names: Vec<String> = many.iter().map(|f| shown_name(&f.name)).collect();
                Err(Error::new(
                    ErrorKind::Usage,
                    format!(
                        "the file defines {} kernels ({}): choose one with `--kernel NAME`",
                        many.len(),
                        names.join(", ")
                    ),
                ))
            }
        },
    }
}

/// Matches `--param` names to the kernel's parameters: a position, the
/// PTX name, or the PTX name without the `KERNEL_` prefix.
fn bind_params(sh: &mut Shared, k: &Function, launch: &Launch) -> Result<()> {
    let prefix = format!("{}_", k.name);
    for p in &k.params {
        let bytes = byte_size(p.array, u64::from(p.ty.bytes()), p.pos, &p.name)?;
        sh.params.push(ParamInfo {
            name: p.name.clone(),
            ty: p.ty,
            bytes,
            given: None,
        });
        let b = sh.mem.add(Buffer {
            name: display_param(&p.name, &prefix),
            kind: BufKind::Param,
            size: Some(bytes),
            contents: Contents::Arbitrary,
            decl: None,
            size_hint: None,
            pointers: Vec::new(),
        });
        sh.kparam_buf.insert(b, sh.params.len() - 1);
        sh.mem.named.insert(p.name.clone(), b);
    }
    for (key, v) in &launch.params {
        let idx = key
            .parse::<usize>()
            .ok()
            .filter(|&i| i < k.params.len())
            .or_else(|| {
                k.params.iter().position(|p| {
                    p.name == *key || p.name.strip_prefix(&prefix) == Some(key.as_str())
                })
            });
        let Some(idx) = idx else {
            let names: Vec<String> = k
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{i}: {}", p.name))
                .collect();
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "kernel `{}` has no parameter `{key}` (parameters: {})",
                    k.name,
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                ),
            ));
        };
        if let ParamValue::Buffer { bytes, zero } = v {
            let name = display_param(&sh.params[idx].name, &prefix);
            let b = sh.mem.add(Buffer {
                name,
                kind: BufKind::Global,
                size: Some(*bytes),
                contents: if *zero {
                    Contents::Zero
                } else {
                    Contents::Arbitrary
                },
                decl: None,
                size_hint: None,
                pointers: Vec::new(),
            });
            sh.param_buf.insert(idx, b);
        }
        sh.params[idx].given = Some(v.clone());
    }
    Ok(())
}

/// `k_param_1` → `param_1`.
pub(super) fn display_param(name: &str, prefix: &str) -> String {
    name.strip_prefix(prefix).unwrap_or(name).to_string()
}

/// `_ZZ4kernPiE4tile` → `tile` (a function-local static's own name).
pub(super) fn display_var(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("_ZZ") {
        if let Some(e) = rest.rfind('E') {
            let tail = &rest[e + 1..];
            let digits = tail.chars().take_while(char::is_ascii_digit).count();
            if let Ok(n) = tail[..digits].parse::<usize>() {
                let id = &tail[digits..];
                if id.len() == n && n > 0 {
                    return id.to_string();
                }
            }
        }
    }
    name.to_string()
}

/// Makes a module- or function-scope `.global`, `.shared` or `.const`
/// variable a buffer (once per name); other spaces are not memory.
pub(super) fn declare_var(mem: &mut Memory, v: &VarDecl) -> Result<Option<BufId>> {
    if let Some(&b) = mem.named.get(&v.name) {
        return Ok(Some(b));
    }
    let kind = match v.space {
        Space::Global => BufKind::Global,
        Space::Shared => BufKind::Shared,
        Space::Const => BufKind::Const,
        Space::SharedCluster => return Err(Error::unsupported(v.pos, "`.shared::cluster` memory")),
        _ => return Ok(None),
    };
    let extern_ = v.linkage.iter().any(|l| l == "extern");
    let elem = u64::from(v.ty.bytes()) * u64::from(v.vector.unwrap_or(1));
    let size = if v.dims.contains(&None) {
        match (&v.init, kind) {
            (Some(init), _) => Some(byte_size([count_init(init)], elem, v.pos, &v.name)?),
            // Dynamic shared memory: `--shared-bytes`, decided per launch.
            (None, BufKind::Shared) if extern_ => mem.dynamic_shared,
            _ => {
                return Err(Error::unsupported(
                    v.pos,
                    format!("`{}`: an array without a size or initialiser", v.name),
                ))
            }
        }
    } else {
        Some(byte_size(
            v.dims.iter().flatten().copied(),
            elem,
            v.pos,
            &v.name,
        )?)
    };
    let mut pointers = Vec::new();
    let contents = match (&v.init, kind) {
        (Some(init), _) => {
            let mut bytes = Vec::new();
            init_bytes(init, v.ty, &mut bytes, &mut pointers, v.pos, &mem.fn_addrs)?;
            Contents::bytes(&bytes)
        }
        // PTX zero-initialises `.global` and `.const` variables without
        // an initialiser; shared memory starts undefined. An `.extern`
        // global or constant is set by the host: arbitrary.
        (None, BufKind::Global | BufKind::Const) if !extern_ => Contents::Zero,
        _ => Contents::Arbitrary,
    };
    let b = mem.add(Buffer {
        name: if extern_ && kind == BufKind::Shared {
            "dynamic_smem".to_string()
        } else {
            display_var(&v.name)
        },
        kind,
        size,
        contents,
        decl: Some(declaration(v)),
        size_hint: (kind == BufKind::Shared && extern_)
            .then(|| " (give the dynamic shared memory with `--shared-bytes N`)".to_string()),
        pointers,
    });
    if let Some(a) = v.align {
        mem.align.insert(b, a);
    }
    if extern_ && kind == BufKind::Shared {
        // Every `.extern .shared` array is the same memory.
        if let Some(&first) = mem.named.get("$dynamic_smem") {
            mem.named.insert(v.name.clone(), first);
            return Ok(Some(first));
        }
        mem.named.insert("$dynamic_smem".to_string(), b);
    }
    mem.named.insert(v.name.clone(), b);
    Ok(Some(b))
}

/// The bytes of an array of `dims` elements of `elem` bytes each: the
/// sizes the file declares multiply, so the product is checked, and kept
/// within [`MAX_BUFFER_BYTES`] (offsets into it then never overflow).
fn byte_size(dims: impl IntoIterator<Item = u64>, elem: u64, pos: Pos, name: &str) -> Result<u64> {
    dims.into_iter()
        .try_fold(elem, u64::checked_mul)
        .filter(|&n| n <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            Error::unsupported(
                pos,
                format!(
                    "`{}`: an array of more than {MAX_BUFFER_BYTES} bytes (1 TiB)",
                    crate::diag::excerpt(name)
                ),
            )
        })
}

fn count_init(i: &Init) -> u64 {
    match i {
        Init::List(v) => v.iter().map(count_init).sum(),
        _ => 1,
    }
}

/// The bytes of an initialiser; the addresses in it go to `pointers`
/// (their bytes are 0).
fn init_bytes(
    i: &Init,
    ty: Type,
    out: &mut Vec<u8>,
    pointers: &mut Vec<(i64, u32, String, i64)>,
    pos: Pos,
    fn_addrs: &HashMap<String, i64>,
) -> Result<()> {
    match i {
        Init::List(v) => {
            for x in v {
                init_bytes(x, ty, out, pointers, pos, fn_addrs)?;
            }
        }
        // A function's address is a number (`Code::fn_addr`).
        Init::Addr { sym, offset, .. } if fn_addrs.contains_key(sym) => {
            let a = fn_addrs[sym].wrapping_add(*offset).to_le_bytes();
            out.extend((0..ty.bytes() as usize).map(|k| a.get(k).copied().unwrap_or(0)));
        }
        Init::Int(v) => out.extend_from_slice(&v.to_le_bytes()[..ty.bytes() as usize]),
        Init::Float { bits, double } => {
            let bytes = if *double || ty.bits == 64 {
                bits.to_le_bytes().to_vec()
            } else {
                (*bits as u32).to_le_bytes().to_vec()
            };
            out.extend_from_slice(&bytes[..(ty.bytes() as usize).min(bytes.len())]);
        }
        Init::Addr { sym, offset, .. } => {
            pointers.push((out.len() as i64, ty.bytes(), sym.clone(), *offset));
            out.extend(std::iter::repeat_n(0, ty.bytes() as usize));
        }
    }
    if ty.kind == TypeKind::Pred {
        return Err(Error::unsupported(pos, "a predicate variable in memory"));
    }
    Ok(())
}

impl Shared {
    /// Records the source line (`.loc`) of a PTX instruction.
    pub fn note_source(&mut self, i: &Instr) {
        let Some(src) = i.src else { return };
        if src.line == 0 {
            return;
        }
        let file = self
            .files
            .get(&src.file)
            .cloned()
            .unwrap_or_else(|| format!("file{}", src.file));
        self.source_map.entry(i.pos.line).or_insert(SourceLoc {
            file,
            line: src.line,
            col: src.col,
        });
    }

    /// A fresh private buffer for a `.local` or call `.param` variable.
    pub fn private_buffer(&mut self, d: &VarDecl) -> Result<BufId> {
        let elem = u64::from(d.ty.bytes()) * u64::from(d.vector.unwrap_or(1));
        if d.dims.contains(&None) {
            return Err(Error::unsupported(
                d.pos,
                format!("`{}`: a private array without a size", d.name),
            ));
        }
        let size = byte_size(d.dims.iter().flatten().copied(), elem, d.pos, &d.name)?;
        let b = self.mem.add(Buffer {
            name: d.name.clone(),
            kind: BufKind::Private,
            size: Some(size),
            contents: Contents::Arbitrary,
            decl: None,
            size_hint: None,
            pointers: Vec::new(),
        });
        if let Some(a) = d.align {
            self.mem.align.insert(b, a);
        }
        Ok(b)
    }
}

/// A variable's declaration as PTX writes it, for messages:
/// `.global .u8 c`, `.shared .b32 s[64]`.
fn declaration(v: &crate::ptx::ast::VarDecl) -> String {
    use crate::ptx::ast::TypeKind;
    let ty = match v.ty.kind {
        TypeKind::Bits => format!("b{}", v.ty.bits),
        TypeKind::Unsigned => format!("u{}", v.ty.bits),
        TypeKind::Signed => format!("s{}", v.ty.bits),
        TypeKind::Float => format!("f{}", v.ty.bits),
        TypeKind::Pred => "pred".to_string(),
    };
    let dims: String = v
        .dims
        .iter()
        .map(|d| d.map_or("[]".to_string(), |n| format!("[{n}]")))
        .collect();
    format!(".{} .{ty} {}{dims}", v.space.word(), v.name)
}
