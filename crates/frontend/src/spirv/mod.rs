//! SPIR-V assembly front-end (the text form printed by `spirv-dis`,
//! files `*.spvasm`), for clspv and glslang compute shaders with Dat3M's
//! test-harness headers. See `docs/SPIRV.md` for the full description.
//!
//! ```text
//! ; @Input: %buf = {{0, 0}}             initial memory (optional)
//! ; @Output: forall (%buf[0][1] == 1)   assertion (optional)
//! ; @Filter: %buf[0][0] == 0            filter (optional)
//! ; @Config: 2, 1, 2                    threads per subgroup, subgroups
//!                                       per workgroup, workgroups
//! ; SPIR-V
//!                OpCapability Shader
//!                OpMemoryModel Logical Vulkan
//!                OpEntryPoint GLCompute %main "main" …
//! ```
//!
//! The result is an [`Arch::Vulkan`] program with one thread `P<i>` per
//! invocation of the grid, placed at `[subgroup, workgroup, 0]`.
//!
//! * **Memory.** Variables in StorageBuffer, Uniform, Output and
//!   CrossWorkgroup storage are shared (one copy); Workgroup variables have
//!   one copy per workgroup. Their scalar cells (after flattening structs,
//!   arrays and vectors by byte offset) are the IR locations, named by the
//!   type path (`%buf[0][3]`); without an initial value their contents
//!   are arbitrary. Private and Function variables live in registers;
//!   Input (built-ins), PushConstant and UniformConstant variables are
//!   read-only and known while translating, except scalars no one gives a
//!   value: those are the program's free inputs (`inputs.rs`).
//! * **Translation** is a partial evaluation per invocation (see
//!   `lower.rs`): everything that does not depend on a value loaded from
//!   shared memory is folded. An address indexed by a value computed at
//!   run time is an IR [`crate::ir::Addr::Indexed`] over the cells of the
//!   indexed array (`lower/address.rs`).
//! * **Values** of `w`-bit integer types are kept sign-extended in `i64`;
//!   constants in conditions are reduced to the width of the location they
//!   are compared with (`-1` = `4294967295` for 32 bits).
//! * **Tags** of atomics, barriers and non-atomic accesses: `tags.rs`.

mod header;
mod inputs;
mod kernel_args;
mod layout;
mod lex;
mod lower;
mod module;
mod source_lines;
mod tags;
#[cfg(test)]
mod tests;
mod value;

use crate::diag::{Error, Result};
use crate::generic::{
    BufKind, Buffer, Contents, GenericId, GenericParts, Naming, SPIRV_SG, SPIRV_SG_LOCAL, SPIRV_WG,
};
use crate::ir::{
    Addr, Arch, Assertion, Cond, InstrKind, Location, Operand, Placement, Pos, Program, Quantifier,
    RmwOp, Term, Thread, ValueType,
};
use header::{HCond, HTerm, HValue};
use layout::{bytes, Memory};
use lower::{Invocation, Shared};
use module::{Class, Id, Module, Type};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use value::{canon_lit, Region, Val};

/// What the translation computes as free values (`lower.rs`,
/// `free_result`), for the report's assumptions: floating-point
/// operations and the OpenCL functions it does not compute.
fn free_values_note(m: &Module) -> Option<String> {
    let mut ops: Vec<String> = Vec::new();
    for l in &m.lines {
        let what = if module::FLOAT_OPS.contains(&l.opcode.as_str()) {
            l.opcode.clone()
        } else if l.opcode == "OpExtInst" {
            let set = l.args.get(1).and_then(|t| match &t.kind {
                lex::Kind::Id(s) => m.lookup(s),
                _ => None,
            });
            let opencl = set
                .and_then(|s| m.ext_imports.get(&s))
                .is_some_and(|n| n == "OpenCL.std");
            match l.args.get(2).map(|t| &t.kind) {
                Some(lex::Kind::Word(w))
                    if opencl && !lower::OPENCL_EXACT.iter().any(|(cl, _)| cl == w) =>
                {
                    format!("OpenCL `{w}`")
                }
                _ => continue,
            }
        } else {
            continue;
        };
        if !ops.contains(&what) {
            ops.push(what);
        }
    }
    if ops.is_empty() {
        return None;
    }
    let shown: Vec<&str> = ops.iter().take(6).map(String::as_str).collect();
    Some(format!(
        "results of {}{} are free values (gpumc computes no floating point): a race or failure that depends on them may not happen",
        shown.join(", "),
        if ops.len() > 6 { ", …" } else { "" }
    ))
}

/// The functions without a body the module calls (see `lower.rs`,
/// `call`), for the report's assumptions.
fn bodiless_note(m: &Module) -> Option<String> {
    let mut names: Vec<&str> = Vec::new();
    for l in m.lines.iter().filter(|l| l.opcode == "OpFunctionCall") {
        let Some(f) = l.args.get(1).and_then(|t| match &t.kind {
            lex::Kind::Id(s) => m.lookup(s),
            _ => None,
        }) else {
            continue;
        };
        let bodiless = m
            .func_of
            .get(&f)
            .is_some_and(|&fi| m.functions[fi].blocks.is_empty());
        let name = m.linkage_name(f);
        if bodiless && !lower::ANNOTATIONS.contains(&name) && !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        return None;
    }
    Some(format!(
        "{} no body: {} result is free and {} assumed to access no memory",
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
            + if names.len() == 1 { " has" } else { " have" },
        if names.len() == 1 {
            "its"
        } else {
            "each one's"
        },
        if names.len() == 1 {
            "it is"
        } else {
            "they are"
        },
    ))
}

/// Whether the module calls our header's bodiless function `name`.
fn calls_marker(m: &Module, name: &str) -> bool {
    (m.lines.iter().filter(|l| l.opcode == "OpFunctionCall")).any(|l| {
        matches!(l.args.get(1).map(|t| &t.kind), Some(lex::Kind::Id(s))
            if m.lookup(s).is_some_and(|f| m.linkage_name(f) == name))
    })
}

/// Proof hints of GPUVerify's annotations the module carries (our
/// header's calls of `__gpumc_unchecked`), which gpumc does not check.
fn unchecked_note(m: &Module) -> Option<String> {
    calls_marker(m, lower::UNCHECKED).then(|| {
        "GPUVerify's loop invariants, barrier invariants and postconditions (`__invariant`, `__ensures`, …) are not checked: gpumc explores the executions within its loop bound instead".to_string()
    })
}

/// How our header writes out OpenCL's asynchronous copies (its calls of
/// `__gpumc_async_copy`; `examples/opencl/gpumc_opencl.h`).
fn async_copy_note(m: &Module) -> Option<String> {
    calls_marker(m, lower::ASYNC_COPY).then(|| {
        "an `async_work_group_copy` is done at its call, each element moved by another work-item of the work-group, and orders nothing until a barrier: a copy still in flight after a barrier that comes before its `wait_group_events` is taken as done".to_string()
    })
}

/// SPIR-V compiled from OpenCL C (`OpMemoryModel … OpenCL`) is checked
/// under our `opencl` model unless the user names another.
fn opencl_model(m: &Module) -> Option<String> {
    m.opencl.then(|| "opencl".to_string())
}

/// The report's assumptions about the module's translation.
fn assumptions(m: &Module) -> Vec<String> {
    free_values_note(m)
        .into_iter()
        .chain(bodiless_note(m))
        .chain(unchecked_note(m))
        .chain(async_copy_note(m))
        .collect()
}

/// Parses a SPIR-V assembly test.
///
/// Errors carry `path` and `line:col`: [`Error::syntax`] for malformed
/// text, [`Error::unsupported`] (message `unsupported: …`) for well-formed
/// constructs gpumc does not handle (opcodes are named), and
/// [`Error::semantic`] for inconsistent input (undefined ids, type
/// mismatches).
pub fn parse(src: &str, path: &Path) -> Result<Program> {
    parse_inner(src, path).map_err(|e| at_source(e.in_file(path), src, path))
}

/// An error at a line of a module compiled from `path` itself (an OpenCL
/// or GLSL source: its `OpLine`s name `path`) is reported at the source
/// line that instruction came from, the SPIR-V instruction quoted: the
/// user never saw the assembly.
fn at_source(mut e: Error, src: &str, path: &Path) -> Error {
    let Some(p) = e.pos else {
        return e;
    };
    let shown = path.display().to_string();
    let map = source_lines::source_lines(src);
    let Some(loc) = map.get(&p.line).filter(|l| l.file == shown) else {
        return e;
    };
    let text = src
        .lines()
        .nth(p.line as usize - 1)
        .map(str::trim)
        .unwrap_or("");
    e.message = format!(
        "{} (in the compiled SPIR-V: `{}`)",
        e.message,
        crate::diag::excerpt(text)
    );
    e.pos = Some(Pos {
        line: loc.line,
        col: loc.col.max(1),
    });
    e
}

/// The headers and the module of `src`, for a grid of at most
/// `max_threads` invocations (both translations start so).
fn module(src: &str, limit: header::GridLimit) -> Result<(header::Headers, Module)> {
    let h = header::parse_headers(src)?;
    let lines = kernel_args::adapt(lex::lex(src)?, h.kernel.as_deref())?;
    let grid = header::grid_within(&h, limit)?;
    let lines = lower::collective::declare_exchange(lines, grid.wg_size())?;
    let spec_names: Vec<(String, i128, Pos)> = h
        .inputs
        .iter()
        .filter_map(|a| match a.value {
            HValue::Int(v, _) => Some((a.name.clone(), v, a.pos)),
            HValue::List(..) => None,
        })
        .collect();
    let m = Module::build(lines, grid, &spec_names)?;
    Ok((h, m))
}

fn parse_inner(src: &str, path: &Path) -> Result<Program> {
    let (h, m) = module(
        src,
        header::GridLimit::Invocations(u128::from(header::MAX_THREADS)),
    )?;
    let grid = m.settings.grid;
    let mut b = Builder::new(&m)?;
    b.initialisers()?;
    for a in &h.inputs {
        b.input(&a.name, a.pos, &a.value)?;
    }
    // The runtime's push constants (global size, …) win over `@Input`.
    b.reflection()?;
    b.make_init_cells()?;
    // Assertion and filter first create their cells (so a location named
    // only in a condition still exists).
    let mut outputs = Vec::new();
    for (q, c, pos) in &h.outputs {
        outputs.push((*q, b.cond(c)?, *pos));
    }
    let mut filter: Option<Cond> = None;
    for (c, _) in &h.filters {
        let c = b.cond(c)?;
        filter = Some(match filter {
            None => c,
            Some(f) => Cond::And(Box::new(f), Box::new(c)),
        });
    }
    let assertion = combine_outputs(outputs)?;
    // Threads.
    let mut threads = Vec::new();
    let mut shared = Shared {
        m: &m,
        mem: std::mem::take(&mut b.mem),
        vars: b.vars.clone(),
        ro: std::mem::take(&mut b.ro),
        private_init: std::mem::take(&mut b.private_init),
        inputs: Default::default(),
        init_end: b.init_ends(),
        generic: None,
    };
    let wg_size = grid.wg_size();
    // At most `MAX_THREADS` invocations (`module`), so every id is a u32.
    for t in 0..grid.wgs * wg_size {
        let local = t % wg_size;
        let inv = Invocation {
            global: t,
            local,
            wg: t / wg_size,
            sg: local / grid.threads_per_sg,
            sg_local: local % grid.threads_per_sg,
        };
        let instrs = lower::lower_thread(&mut shared, &inv)?;
        threads.push(Thread {
            name: format!("P{t}"),
            placement: Placement {
                ids: vec![i64::from(inv.sg), i64::from(inv.wg), 0],
                warp: None,
            },
            instrs,
            init_regs: Vec::new(),
        });
    }
    b.mem = shared.mem;
    let pointees: HashMap<Id, Id> = b.vars.iter().map(|(&v, &(_, t))| (v, t)).collect();
    let inputs = used_inputs(shared.inputs.to_ir(&m, &pointees), &mut threads);
    b.finish_cells(&threads)?;
    // Locations in declaration order.
    let order: HashMap<Id, usize> = m.globals.iter().enumerate().map(|(i, &g)| (g, i)).collect();
    let key = |c: &layout::Cell| -> (usize, u32, u64) {
        match c.region {
            Region::Shared { var, copy } => (
                order.get(&var).copied().unwrap_or(usize::MAX),
                copy,
                c.offset,
            ),
            r => (
                order.get(&r.var()).copied().unwrap_or(usize::MAX),
                0,
                c.offset,
            ),
        }
    };
    let mut idx: Vec<usize> = (0..b.mem.cells.len()).collect();
    idx.sort_by_key(|&i| key(&b.mem.cells[i]));
    let mut remap = vec![0usize; idx.len()];
    let mut locations = Vec::new();
    for (new, &old) in idx.iter().enumerate() {
        remap[old] = new;
        let c = &b.mem.cells[old];
        let var = c.region.var();
        let class = b.vars.get(&var).map(|v| v.0);
        locations.push(Location {
            name: b.cell_name(c),
            phys: new,
            virt: new,
            init: c.init,
            init_arbitrary: c.uninit.then(|| value::value_type(c.width)),
            space: class.map(|c| c.name().to_string()),
        });
        let _ = var;
    }
    for t in &mut threads {
        for i in &mut t.instrs {
            match &mut i.kind {
                InstrKind::Load { addr, .. }
                | InstrKind::Store { addr, .. }
                | InstrKind::Rmw { addr, .. } => addr.map(|l| remap[l]),
                _ => {}
            }
        }
    }
    let remap_cond = |c: Cond| remap_cond(c, &remap);
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("spirv")
        .to_string();
    Ok(Program {
        kernel: true,
        name,
        arch: Arch::Vulkan,
        threads,
        locations,
        ssw: Vec::new(),
        filter: filter.map(remap_cond),
        assertion: assertion.map(|a| Assertion {
            quantifier: a.quantifier,
            cond: remap_cond(a.cond),
        }),
        observed: Vec::new(),
        inputs,
        source_map: source_lines::source_lines(src),
        assumptions: assumptions(&m),
        header: Vec::new(),
        default_model: opencl_model(&m),
    })
}

/// Translates the entry point once, for the *generic invocation* of the
/// grid (docs/SPIRV.md, "Any launch size"): its ids (subgroup-local,
/// subgroup, workgroup; the local and global ids follow) are program
/// inputs, and every access to shared memory is an
/// [`crate::ir::Addr::Region`] into its variable, at a byte offset
/// computed at run time. A runtime array without `@Input` contents is
/// large enough; an index into an array of known length (a sized array,
/// a runtime array whose contents `@Input` gives) carries that length as
/// a bound. `@Output` and `@Filter` are not read (they are about final
/// states, which the parametric engine does not compute). Grids of up to
/// 2^31 invocations are accepted.
pub fn parse_generic(src: &str, path: &Path) -> Result<(Program, GenericParts)> {
    parse_generic_inner(src, path).map_err(|e| at_source(e.in_file(path), src, path))
}

/// The `; @Config` header of a launch of `local` invocations per
/// workgroup and `groups` workgroups (one subgroup per workgroup; sizes
/// as their products), and `; @Dims` when it has several dimensions. A
/// product past `u32` is a usage error.
pub fn launch_headers(local: [u32; 3], groups: [u32; 3]) -> Result<String> {
    let flat = |d: [u32; 3], what: &str| {
        d.iter()
            .try_fold(1u32, |a, &x| a.checked_mul(x))
            .ok_or_else(|| {
                Error::new(
                    crate::diag::ErrorKind::Usage,
                    format!("a {what} of {} × {} × {} is too large", d[0], d[1], d[2]),
                )
            })
    };
    let mut h = format!(
        "; @Config: {}, 1, {}\n",
        flat(local, "workgroup")?,
        flat(groups, "grid of workgroups")?
    );
    if local[1..] != [1, 1] || groups[1..] != [1, 1] {
        let ([lx, ly, lz], [gx, gy, gz]) = (local, groups);
        h.push_str(&format!("; @Dims: {lx}, {ly}, {lz}, {gx}, {gy}, {gz}\n"));
    }
    Ok(h)
}

/// Whether `e`, an error of [`parse`], is one the generic translation
/// does not have: a grid too large, a runtime array of unknown length
/// indexed at run time, or an index choosing among too many cells (the
/// generic translation computes an offset instead). Those refusals are
/// marked [`Error::scale`] where they are made.
pub fn generic_may_take(e: &Error) -> bool {
    e.scale
}

/// Whether the test's headers give a condition (`@Output`, `@Filter`);
/// headers that do not parse count as one (the concrete translation
/// reports them).
pub fn has_condition(src: &str) -> bool {
    header::parse_headers(src).map_or(true, |h| !h.outputs.is_empty() || !h.filters.is_empty())
}

fn parse_generic_inner(src: &str, path: &Path) -> Result<(Program, GenericParts)> {
    let (h, m) = module(src, header::GridLimit::Ids(header::MAX_GENERIC_ID))?;
    let grid = m.settings.grid;
    let mut b = Builder::new(&m)?;
    b.initialisers()?;
    for a in &h.inputs {
        b.input(&a.name, a.pos, &a.value)?;
    }
    b.reflection()?;
    // One region per shared variable, in declaration order.
    let init_end = b.init_ends();
    let mut regions: HashMap<Id, usize> = HashMap::new();
    let mut buffers = Vec::new();
    let mut arrays = Vec::new();
    for &g in &m.globals {
        let Some(&(class, pointee)) = b.vars.get(&g) else {
            continue;
        };
        if !class.is_shared() {
            continue;
        }
        let pos = m.line(m.def_line(g, Pos::default())?).pos();
        let sized = m.size_of(pointee, pos)?;
        let size = if lower::address::has_runtime_array(&m, pointee, pos) {
            init_end.get(&g).map(|&e| e.max(sized))
        } else {
            Some(sized)
        };
        let mut init: Vec<(u64, u32, i64)> = b
            .init
            .iter()
            .filter(|(k, _)| k.0 == Region::Shared { var: g, copy: 0 })
            .map(|(k, &(w, v))| (k.1, w, v))
            .collect();
        init.sort();
        let contents = if init.is_empty() {
            Contents::Arbitrary
        } else {
            // Only the bytes given, by offset: an initialiser may sit far
            // into a large array.
            let mut bytes_v = BTreeMap::new();
            for &(o, w, v) in &init {
                for k in 0..bytes(w) {
                    let byte = (v >> (8 * k)) as u8;
                    match o.checked_add(k) {
                        Some(at) if byte != 0 => {
                            bytes_v.insert(at, byte);
                        }
                        Some(at) => {
                            bytes_v.remove(&at);
                        }
                        None => {}
                    }
                }
            }
            if bytes_v.is_empty() {
                Contents::Zero
            } else {
                Contents::Bytes(bytes_v)
            }
        };
        // Cells by element of the array the variable is or ends in.
        let mut ty = pointee;
        let mut start = 0u64;
        let mut path = format!("%{}", m.display(g));
        let mut array = None;
        for _ in 0..8 {
            match &*m.ty(ty, pos)? {
                Type::Struct { members } if !members.is_empty() => {
                    let k = members.len() - 1;
                    start += m.member_offset(ty, k, pos)?;
                    path.push_str(&format!("[{k}]"));
                    ty = members[k];
                }
                Type::Array { .. } | Type::RuntimeArray { .. } => {
                    array = Some((start, m.stride(ty, pos)?, path.clone()));
                    break;
                }
                _ => break,
            }
        }
        arrays.push(array);
        regions.insert(g, buffers.len());
        buffers.push(Buffer {
            name: format!("%{}", m.display(g)),
            kind: if class == module::Class::Workgroup {
                BufKind::Shared
            } else {
                BufKind::Global
            },
            size,
            contents,
            size_hint: None,
            decl: None,
            pointers: Vec::new(),
        });
    }
    let mut shared = Shared {
        m: &m,
        mem: std::mem::take(&mut b.mem),
        vars: b.vars.clone(),
        ro: std::mem::take(&mut b.ro),
        private_init: std::mem::take(&mut b.private_init),
        inputs: Default::default(),
        init_end,
        generic: Some(regions),
    };
    let inv = Invocation {
        global: 0,
        local: 0,
        wg: 0,
        sg: 0,
        sg_local: 0,
    };
    let mut instrs = lower::lower_thread(&mut shared, &inv)?;
    let pointees: HashMap<Id, Id> = b.vars.iter().map(|(&v, &(_, t))| (v, t)).collect();
    let mut all = shared.inputs.to_ir(&m, &pointees);
    // The ids: inputs after the free ones (then only those read remain).
    let base = all.len();
    let ids_spec = [
        (SPIRV_SG_LOCAL, grid.threads_per_sg, 0),
        (SPIRV_SG, grid.sgs_per_wg, 1),
        (SPIRV_WG, grid.wgs, 2),
    ];
    for (name, _, _) in ids_spec {
        all.push(crate::ir::Input {
            name: name.to_string(),
            ty: ValueType::Int(32),
            value: None,
        });
    }
    for i in &mut instrs {
        if let InstrKind::Input { input, .. } = &mut i.kind {
            if *input >= lower::GENERIC_ID_INPUT {
                *input = base + (*input - lower::GENERIC_ID_INPUT);
            }
        }
    }
    let mut threads = vec![Thread {
        name: "t".into(),
        placement: Placement {
            ids: vec![0, 0, 0],
            warp: None,
        },
        instrs,
        init_regs: Vec::new(),
    }];
    let inputs = used_inputs(all, &mut threads);
    let mut ids: Vec<GenericId> = Vec::new();
    for i in &threads[0].instrs {
        let InstrKind::Input { dst, input } = &i.kind else {
            continue;
        };
        let k = match dst.as_str() {
            lower::GENERIC_SG_LOCAL => 0,
            lower::GENERIC_SG => 1,
            lower::GENERIC_WG => 2,
            _ => continue,
        };
        let (name, extent, level) = ids_spec[k];
        if !ids.iter().any(|g| g.input == *input) {
            ids.push(GenericId {
                input: *input,
                name: name.to_string(),
                extent,
                level,
            });
        }
    }
    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("spirv")
        .to_string();
    let wg = grid.wg_size();
    let dims = ids_spec
        .iter()
        .filter(|&&(_, extent, _)| extent > 1)
        .map(|&(name, extent, level)| (name.to_string(), extent, level))
        .collect();
    let parts = GenericParts {
        ids,
        dims,
        buffers,
        grid: [grid.wgs, 1, 1],
        block: [wg, 1, 1],
        block_level: 2,
        placement_len: 3,
        block_threads: u64::from(wg),
        size_hint: "a runtime array without `@Input` contents has no length; `@Input` contents give it one and make out-of-bounds accesses checked".into(),
        naming: Naming::Spirv {
            per_sg: grid.threads_per_sg,
            per_wg: wg,
        },
        arrays,
    };
    let program = Program {
        kernel: true,
        name,
        arch: Arch::Vulkan,
        threads,
        locations: Vec::new(),
        ssw: Vec::new(),
        filter: None,
        assertion: None,
        observed: Vec::new(),
        inputs,
        source_map: source_lines::source_lines(src),
        assumptions: assumptions(&m),
        header: Vec::new(),
        default_model: opencl_model(&m),
    };
    Ok((program, parts))
}

/// The inputs some thread reads (a value read but never used, or read
/// only by an abandoned translation, is no input), renumbered.
fn used_inputs(all: Vec<crate::ir::Input>, threads: &mut [Thread]) -> Vec<crate::ir::Input> {
    let mut remap: Vec<Option<usize>> = vec![None; all.len()];
    let mut out = Vec::new();
    for t in threads.iter_mut() {
        for i in &mut t.instrs {
            if let InstrKind::Input { input, .. } = &mut i.kind {
                let k = *remap[*input].get_or_insert_with(|| {
                    out.push(all[*input].clone());
                    out.len() - 1
                });
                *input = k;
            }
        }
    }
    out
}

fn remap_cond(c: Cond, remap: &[usize]) -> Cond {
    let t = |t: Term| match t {
        Term::Loc(i) => Term::Loc(remap[i]),
        t => t,
    };
    match c {
        Cond::Cmp(op, a, b) => Cond::Cmp(op, t(a), t(b)),
        Cond::Not(x) => Cond::Not(Box::new(remap_cond(*x, remap))),
        Cond::And(a, b) => Cond::And(
            Box::new(remap_cond(*a, remap)),
            Box::new(remap_cond(*b, remap)),
        ),
        Cond::Or(a, b) => Cond::Or(
            Box::new(remap_cond(*a, remap)),
            Box::new(remap_cond(*b, remap)),
        ),
        c => c,
    }
}

/// Several `@Output` lines: `forall`s and `exists`s conjoin their
/// conditions, `not exists` lines disjoin them; mixing is unsupported.
fn combine_outputs(outputs: Vec<(Quantifier, Cond, Pos)>) -> Result<Option<Assertion>> {
    let mut it = outputs.into_iter();
    let Some((q, mut cond, _)) = it.next() else {
        return Ok(None);
    };
    for (q2, c, pos) in it {
        if q2 != q {
            return Err(Error::unsupported(
                pos,
                "`@Output` lines with different quantifiers",
            ));
        }
        cond = match q {
            Quantifier::NotExists => Cond::Or(Box::new(cond), Box::new(c)),
            _ => Cond::And(Box::new(cond), Box::new(c)),
        };
    }
    Ok(Some(Assertion {
        quantifier: q,
        cond,
    }))
}

/// Shared state while assembling the program.
struct Builder<'m> {
    m: &'m Module,
    vars: HashMap<Id, (Class, Id)>,
    mem: Memory,
    /// Initial values of shared cells: (region, offset) → (width, value).
    init: HashMap<(Region, u64), (u32, i64)>,
    init_order: Vec<(Region, u64)>,
    ro: HashMap<(Id, u64), (u32, i64)>,
    private_init: lower::PrivateInit,
}

impl<'m> Builder<'m> {
    fn new(m: &'m Module) -> Result<Self> {
        let mut vars = HashMap::new();
        for &g in &m.globals {
            let li = m.def_line(g, Pos::default())?;
            let pos = m.line(li).pos();
            let pty = m.arg_id(li, 0)?;
            let pointee = match &*m.ty(pty, m.arg_pos(li, 0))? {
                Type::Pointer { pointee, .. } => *pointee,
                other => {
                    return Err(Error::semantic(
                        m.arg_pos(li, 0),
                        format!("a variable needs a pointer type, not {}", m.describe(other)),
                    ))
                }
            };
            let class = m.arg_word(li, 1)?;
            let class = match class.as_str() {
                "UniformConstant" => Class::UniformConstant,
                "Input" => Class::Input,
                "Uniform" => Class::Uniform,
                "Output" => Class::Output,
                "Workgroup" => Class::Workgroup,
                "CrossWorkgroup" => Class::CrossWorkgroup,
                "Private" => Class::Private,
                "PushConstant" => Class::PushConstant,
                "StorageBuffer" => Class::StorageBuffer,
                other => {
                    return Err(Error::unsupported(
                        m.arg_pos(li, 1),
                        format!("storage class `{other}`"),
                    ))
                }
            };
            if class == Class::Input && m.builtin(g).is_some() && m.nargs(li) > 2 {
                return Err(Error::semantic(
                    pos,
                    "a built-in variable cannot have an initialiser",
                ));
            }
            vars.insert(g, (class, pointee));
        }
        Ok(Builder {
            m,
            vars,
            mem: Memory::default(),
            init: HashMap::new(),
            init_order: Vec::new(),
            ro: HashMap::new(),
            private_init: Vec::new(),
        })
    }

    fn copies(&self, class: Class) -> u32 {
        if class == Class::Workgroup {
            self.m.settings.grid.wgs
        } else {
            1
        }
    }

    /// Records scalar initial values of variable `var`.
    fn set_values(&mut self, var: Id, vals: Vec<(u64, u32, Val)>, pos: Pos) -> Result<()> {
        let (class, _) = self.vars[&var];
        if class.is_shared() {
            for copy in 0..self.copies(class) {
                for (off, w, v) in &vals {
                    let x = match v {
                        Val::Int(x) => x,
                        // An `OpUndef` initialiser: as uninitialised shared
                        // memory (an arbitrary initial value).
                        Val::Reg(r) if self.m.undef_line(r).is_some() => continue,
                        _ => return Err(Error::semantic(pos, "initial value must be a constant")),
                    };
                    let key = (Region::Shared { var, copy }, *off);
                    if self.init.insert(key, (*w, *x)).is_none() {
                        self.init_order.push(key);
                    }
                }
            }
        } else if class == Class::Private {
            match self.private_init.iter_mut().find(|(v, _)| *v == var) {
                Some((_, cells)) => {
                    for (off, w, v) in vals {
                        cells.retain(|c| c.0 != off);
                        cells.push((off, w, v));
                    }
                }
                None => self.private_init.push((var, vals)),
            }
        } else {
            if class == Class::Input && self.m.builtin(var).is_some() {
                return Err(Error::semantic(
                    pos,
                    "built-in variables cannot be given values",
                ));
            }
            for (off, w, v) in vals {
                let x = match v {
                    Val::Int(x) => x,
                    Val::Reg(r) if self.m.undef_line(&r).is_some() => {
                        return Err(Error::unsupported(
                            pos,
                            format!(
                                "undefined (`OpUndef`) initial value of {} memory",
                                class.name()
                            ),
                        ))
                    }
                    _ => return Err(Error::semantic(pos, "initial value must be a constant")),
                };
                self.ro.insert((var, off), (w, x));
            }
        }
        Ok(())
    }

    /// `OpVariable … %init` initialisers.
    fn initialisers(&mut self) -> Result<()> {
        let m = self.m;
        for &g in &m.globals {
            let li = m.def_line(g, Pos::default())?;
            if m.nargs(li) <= 2 {
                continue;
            }
            let init_id = m.arg_id(li, 2)?;
            let ipos = m.arg_pos(li, 2);
            let v = m.constant(init_id, ipos)?;
            let (_, pointee) = self.vars[&g];
            let mut vals = Vec::new();
            layout::flatten_val(m, pointee, &v, 0, ipos, &mut vals, 0)?;
            self.set_values(g, vals, ipos)?;
        }
        Ok(())
    }

    /// clspv push-constant regions (global size, region offset, …).
    fn reflection(&mut self) -> Result<()> {
        let m = self.m;
        let g = m.settings.grid;
        for r in &m.reflection {
            if !r.name.starts_with("PushConstant") {
                continue;
            }
            let pos = m.line(r.line).pos();
            let v: [u32; 3] = match r.name.as_str() {
                "PushConstantGlobalOffset"
                | "PushConstantRegionOffset"
                | "PushConstantRegionGroupOffset" => [0, 0, 0],
                "PushConstantGlobalSize" => match u32::try_from(g.threads()) {
                    Ok(n) => [n, 1, 1],
                    Err(_) => {
                        return Err(Error::unsupported(
                            pos,
                            format!(
                                "a global size of {} invocations in clspv's 32-bit push constant",
                                g.threads()
                            ),
                        ))
                    }
                },
                "PushConstantEnqueuedLocalSize" => [g.wg_size(), 1, 1],
                "PushConstantNumWorkgroups" => [g.wgs, 1, 1],
                other => {
                    return Err(Error::unsupported(
                        pos,
                        format!("clspv reflection `{other}`"),
                    ))
                }
            };
            let lit = |k: usize| -> Result<u64> {
                let id = m.arg_id(r.line, k)?;
                let c = m.constant(id, m.arg_pos(r.line, k))?;
                c.int()
                    .and_then(|x| u64::try_from(x).ok())
                    .ok_or_else(|| Error::semantic(m.arg_pos(r.line, k), "expected a constant"))
            };
            let (offset, size) = (lit(3)?, lit(4)?);
            let push = m
                .globals
                .iter()
                .copied()
                .find(|v| self.vars.get(v).is_some_and(|c| c.0 == Class::PushConstant))
                .ok_or_else(|| Error::semantic(pos, "no PushConstant variable"))?;
            for (i, x) in v.iter().enumerate().take((size / 4).min(3) as usize) {
                self.ro
                    .insert((push, offset + 4 * i as u64), (32, i64::from(*x)));
            }
        }
        Ok(())
    }

    /// One `@Input` assignment.
    fn input(&mut self, name: &str, pos: Pos, value: &HValue) -> Result<()> {
        let m = self.m;
        let id = m
            .lookup(name)
            .filter(|&id| m.def.get(id as usize).copied().flatten().is_some())
            .or_else(|| m.lookup_display(name))
            .ok_or_else(|| Error::semantic(pos, format!("`%{name}` is not defined")))?;
        if m.is_constant(id) {
            let li = m.def_line(id, pos)?;
            if !m.line(li).opcode.starts_with("OpSpecConstant")
                || m.line(li).opcode == "OpSpecConstantComposite"
            {
                return Err(Error::semantic(
                    pos,
                    format!("`%{name}` is not a scalar specialisation constant or a variable"),
                ));
            }
            if let HValue::List(..) = value {
                return Err(Error::semantic(
                    pos,
                    "a specialisation constant takes an integer",
                ));
            }
            return Ok(()); // applied by the module
        }
        let Some(&(_, pointee)) = self.vars.get(&id) else {
            return Err(Error::semantic(
                pos,
                format!("`%{name}` is not a global variable or a specialisation constant"),
            ));
        };
        let mut vals = Vec::new();
        layout::flatten_input(m, pointee, value, 0, &mut vals, 0)?;
        let vals = vals
            .into_iter()
            .map(|(o, w, x)| (o, w, Val::Int(x)))
            .collect();
        self.set_values(id, vals, pos)
    }

    /// Per shared variable with initial values, the end of the last one.
    fn init_ends(&self) -> HashMap<Id, u64> {
        let mut out: HashMap<Id, u64> = HashMap::new();
        for (&(r, off), &(w, _)) in &self.init {
            if let Region::Shared { var, .. } = r {
                let e = out.entry(var).or_insert(0);
                *e = (*e).max(off + bytes(w));
            }
        }
        out
    }

    /// Creates the cells of initialised shared memory.
    fn make_init_cells(&mut self) -> Result<()> {
        for key in self.init_order.clone() {
            let (w, v) = self.init[&key];
            let c = self.mem.cell(key.0, key.1, w);
            self.mem.cells[c].init = v;
        }
        Ok(())
    }

    /// Initial values of every cell (assembled from the initial bytes it
    /// covers) and the mixed-size check: cells sharing bytes must not be
    /// written.
    fn finish_cells(&mut self, threads: &[Thread]) -> Result<()> {
        let mut by_region: HashMap<Region, std::collections::BTreeMap<u64, (u32, i64)>> =
            HashMap::new();
        for (&(r, off), &v) in &self.init {
            by_region.entry(r).or_default().insert(off, v);
        }
        for c in &mut self.mem.cells {
            c.init = by_region
                .get(&c.region)
                .map_or(0, |init| layout::compose_init(init, c.offset, c.width));
            // Shared memory (buffers and Workgroup memory) the harness
            // gives no contents starts arbitrary (as in Dat3M for buffers;
            // the spec leaves Workgroup memory undefined too).
            c.uninit =
                matches!(c.region, Region::Shared { .. }) && !by_region.contains_key(&c.region);
        }
        let overlaps = self.mem.overlaps();
        if overlaps.is_empty() {
            return Ok(());
        }
        let mut writer: HashMap<usize, Pos> = HashMap::new();
        for t in threads {
            for i in &t.instrs {
                if let InstrKind::Store { addr, .. } | InstrKind::Rmw { addr, .. } = &i.kind {
                    for &c in addr.cells() {
                        writer.entry(c).or_insert(i.pos);
                    }
                }
            }
        }
        for (a, b) in overlaps {
            for (w, other) in [(a, b), (b, a)] {
                if let Some(&pos) = writer.get(&w) {
                    let (cw, co) = (&self.mem.cells[w], &self.mem.cells[other]);
                    return Err(Error::unsupported(
                        pos,
                        format!(
                            "mixed-size access: this write to `{}` ({} bytes) overlaps `{}` ({} bytes)",
                            self.cell_name(cw),
                            bytes(cw.width),
                            self.cell_name(co),
                            bytes(co.width)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn cell_name(&self, c: &layout::Cell) -> String {
        let m = self.m;
        let (var, copy) = match c.region {
            Region::Shared { var, copy } => (var, copy),
            r => (r.var(), 0),
        };
        let mut s = match m
            .name(var)
            .strip_prefix(lower::collective::HIDDEN_ID_PREFIX)
        {
            // gpumc's own slots: hidden from final states
            Some(rest) => format!("{}exchange_{rest}", crate::ir::HIDDEN_PREFIX),
            None => format!("%{}", m.display(var)),
        };
        let pointee = self.vars.get(&var).map(|v| v.1);
        match pointee.and_then(|t| layout::path_of(m, t, c.offset, bytes(c.width), Pos::default()))
        {
            Some(path) => {
                for i in path {
                    let _ = write!(s, "[{i}]");
                }
            }
            None => {
                let _ = write!(s, "+{}", c.offset);
            }
        }
        if self.m.settings.grid.wgs > 1
            && self.vars.get(&var).is_some_and(|v| v.0 == Class::Workgroup)
        {
            let _ = write!(s, "@wg{copy}");
        }
        s
    }

    fn cond(&mut self, c: &HCond) -> Result<Cond> {
        Ok(match c {
            HCond::True => Cond::True,
            HCond::False => Cond::False,
            HCond::Not(x) => Cond::Not(Box::new(self.cond(x)?)),
            HCond::And(a, b) => Cond::And(Box::new(self.cond(a)?), Box::new(self.cond(b)?)),
            HCond::Or(a, b) => Cond::Or(Box::new(self.cond(a)?), Box::new(self.cond(b)?)),
            HCond::Cmp(op, a, b) => {
                let ra = self.term(a)?;
                let rb = self.term(b)?;
                let w = ra.1.or(rb.1).unwrap_or(64);
                let fix = |t: (Option<Term>, Option<u32>, i128)| match t.0 {
                    Some(term) => term,
                    None => Term::Const(canon_lit(t.2, w)),
                };
                Cond::Cmp(*op, fix(ra), fix(rb))
            }
        })
    }

    /// A condition term: (location term, width) or a literal.
    fn term(&mut self, t: &HTerm) -> Result<(Option<Term>, Option<u32>, i128)> {
        match t {
            HTerm::Int(v, _) => Ok((None, None, *v)),
            HTerm::Var { name, path, pos } => {
                let m = self.m;
                let id = m
                    .lookup(name)
                    .or_else(|| m.lookup_display(name))
                    .ok_or_else(|| Error::semantic(*pos, format!("`%{name}` is not defined")))?;
                let Some(&(class, pointee)) = self.vars.get(&id) else {
                    return Err(Error::semantic(
                        *pos,
                        format!("`%{name}` is not a global variable"),
                    ));
                };
                if !class.is_shared() {
                    return Err(Error::semantic(
                        *pos,
                        format!(
                            "`%{name}` is in {} storage, not in shared memory",
                            class.name()
                        ),
                    ));
                }
                if class == Class::Workgroup && self.m.settings.grid.wgs > 1 {
                    return Err(Error::unsupported(
                        *pos,
                        format!("`%{name}` has one copy per workgroup; conditions cannot name it with several workgroups"),
                    ));
                }
                let (off, sty) = layout::offset_of_path(m, pointee, path, *pos)?;
                let w = m.scalar_width(sty, *pos)?;
                let cell = self.mem.cell(Region::Shared { var: id, copy: 0 }, off, w);
                Ok((Some(Term::Loc(cell)), Some(w), 0))
            }
        }
    }
}

/// A canonical text rendering of a program (for golden tests and
/// debugging): locations, then each thread's instructions with their
/// tags, then the filter and the assertion.
pub fn render(p: &Program) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "program {} ({:?})", p.name, p.arch);
    for (i, l) in p.locations.iter().enumerate() {
        if l.init_arbitrary.is_some() {
            let _ = write!(s, "loc {i} {} = undef", l.name);
        } else {
            let _ = write!(s, "loc {i} {} = {}", l.name, l.init);
        }
        if let Some(sp) = &l.space {
            let _ = write!(s, " [{sp}]");
        }
        s.push('\n');
    }
    for (k, i) in p.inputs.iter().enumerate() {
        let _ = writeln!(s, "input {k} {} : {}", i.name, type_name(i.ty));
    }
    let op = |o: &Operand| match o {
        Operand::Reg(r) => r.clone(),
        Operand::Const(c) => c.to_string(),
    };
    let name = |i: usize| p.locations.get(i).map_or("?", |l| l.name.as_str());
    let loc = |a: &Addr| match a {
        Addr::Fixed(l) => name(*l).to_string(),
        Addr::Indexed(x) => {
            let cells: Vec<&str> = x.cells.iter().map(|&c| name(c)).collect();
            format!("{}[{}: {}]", x.array, op(&x.index), cells.join(" "))
        }
        Addr::Region(r) => format!("region{}[{}]", r.region, op(&r.offset)),
    };
    for t in &p.threads {
        let _ = write!(s, "thread {} @ {:?}", t.name, t.placement.ids);
        if let Some(w) = t.placement.warp {
            let _ = write!(s, " warp {w}");
        }
        s.push('\n');
        for i in &t.instrs {
            let body = match &i.kind {
                InstrKind::Label(l) => {
                    let _ = writeln!(s, "  {l}:");
                    continue;
                }
                InstrKind::Load { dst, addr } => format!("load {dst} = {}", loc(addr)),
                InstrKind::Store { addr, value } => format!("store {} = {}", loc(addr), op(value)),
                InstrKind::Rmw {
                    dst,
                    addr,
                    op: rop,
                    operand,
                } => {
                    let d = dst.clone().unwrap_or_else(|| "_".into());
                    match rop {
                        RmwOp::Cas { expected } => format!(
                            "rmw.cas {d} = {}, expected {}, new {}",
                            loc(addr),
                            op(expected),
                            op(operand)
                        ),
                        other => format!(
                            "rmw.{} {d} = {}, {}",
                            format!("{other:?}").to_lowercase(),
                            loc(addr),
                            op(operand)
                        ),
                    }
                }
                InstrKind::Fence => "fence".to_string(),
                InstrKind::Barrier { id, count, arrive } => format!(
                    "barrier id {}{}{}",
                    op(id),
                    count
                        .as_ref()
                        .map_or(String::new(), |c| format!(" count {}", op(c))),
                    if *arrive { " arrive" } else { "" }
                ),
                InstrKind::Local { dst, op: bop, a, b } => {
                    if *bop == crate::ir::BinOp::Add && *b == Operand::Const(0) {
                        format!("{dst} := {}", op(a))
                    } else {
                        format!("{dst} := {:?} {} {}", bop, op(a), op(b))
                    }
                }
                InstrKind::Branch {
                    op: c,
                    a,
                    b,
                    target,
                } => format!("if {} {} {} goto {target}", op(a), c, op(b)),
                InstrKind::Goto(t) => format!("goto {t}"),
                InstrKind::Havoc { dst, ty } => format!("{dst} := undef {}", type_name(*ty)),
                InstrKind::Input { dst, input } => format!(
                    "{dst} := input {}",
                    p.inputs.get(*input).map_or("?", |i| i.name.as_str())
                ),
                InstrKind::Unreachable { .. } => "unreachable".to_string(),
                InstrKind::Infeasible => "infeasible".to_string(),
            };
            let _ = write!(s, "    {body}");
            if !i.tags.is_empty() {
                let _ = write!(s, "  {{{}}}", i.tags.join(" "));
            }
            for (side, half) in [("read", &i.halves.read), ("write", &i.halves.write)] {
                if !half.is_empty() {
                    let _ = write!(s, " {side} {{{}}}", half.join(" "));
                }
            }
            let _ = writeln!(s, "  ; line {}", i.pos.line);
        }
    }
    let cond = |c: &Cond| render_cond(c, p);
    if let Some(f) = &p.filter {
        let _ = writeln!(s, "filter {}", cond(f));
    }
    if let Some(a) = &p.assertion {
        let q = match a.quantifier {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        };
        let _ = writeln!(s, "{q} {}", cond(&a.cond));
    }
    s
}

fn type_name(t: ValueType) -> String {
    match t {
        ValueType::Bool => "bool".into(),
        ValueType::Int(w) => format!("int{w}"),
    }
}

fn render_cond(c: &Cond, p: &Program) -> String {
    let t = |t: &Term| match t {
        Term::Loc(i) => p.locations.get(*i).map_or("?".into(), |l| l.name.clone()),
        Term::Reg(th, r) => format!("P{th}:{r}"),
        Term::Const(v) => v.to_string(),
    };
    match c {
        Cond::True => "true".into(),
        Cond::False => "false".into(),
        Cond::Cmp(op, a, b) => format!("{} {} {}", t(a), op, t(b)),
        Cond::Not(x) => format!("not ({})", render_cond(x, p)),
        Cond::And(a, b) => format!("({} /\\ {})", render_cond(a, p), render_cond(b, p)),
        Cond::Or(a, b) => format!("({} \\/ {})", render_cond(a, p), render_cond(b, p)),
    }
}
