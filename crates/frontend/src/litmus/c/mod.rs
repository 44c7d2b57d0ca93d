//! herd7's `C` litmus dialect, with GPU scopes (docs/C.md):
//!
//! ```text
//! C MP+rel+acq                                header: `C` and the name
//! "optional doc string"  (* or comments *)
//! { x = 0; [y] = 0; atomic_int z = 1; }       initial state (also `{}`)
//! P0@cta 0,gpu 0(int* x, atomic_int* y) {     a thread: `P<k>`, placement
//!   *x = 1;                                   (optional), pointer params
//!   atomic_store_explicit(y, 1, memory_order_release, memory_scope_device);
//! }
//! P1(int* x, atomic_int* y) {
//!   int r0 = atomic_load_explicit(y, memory_order_acquire,
//!                                 cuda::thread_scope_device);
//!   int r1 = -1;
//!   if (r0 == 1) { r1 = *x; }
//! }
//! exists (1:r0 = 1 /\ 1:r1 = 0)               as the other dialects;
//! ```                                         registers are locals
//!
//! * Parameters are pointers (`atomic_int* x`, `int *y`, `volatile int*`,
//!   OpenCL's `global atomic_int* x`); a parameter names the location of
//!   that name (declared in the initial state, or 0). A location is
//!   reached only through a parameter of the thread.
//! * Statements: declarations `int r = e;` (locals start at 0), `r = e;`,
//!   `r op= e;`, `r++;`, `*x = e;`, atomic operations, `if`/`else`,
//!   blocks. Expressions: integers, locals, `*x` (a plain access),
//!   atomic operations, C's arithmetic, comparison and logical operators
//!   (`&&`/`||` short-circuit), casts to integer types.
//! * Atomic operations ([`names`]): `atomic_load`, `atomic_store`,
//!   `atomic_exchange`, `atomic_compare_exchange_strong`/`_weak` (weak is
//!   strong: no spurious failure), `atomic_fetch_add/sub/and/or/xor/min/max`,
//!   each also `_explicit` with its order(s) and then an optional scope
//!   (OpenCL C `memory_scope_*`, CUDA `cuda::thread_scope_*`);
//!   `atomic_thread_fence(order[, scope])`, OpenCL's
//!   `atomic_work_item_fence(flags, order, scope)` (flags ignored).
//! * Tags (docs/EVENTS.md): plain accesses `NA`; atomics and fences one
//!   order (`RLX ACQ REL ACQ_REL SC`) and one scope (`CTA GPU SYS`,
//!   default `SYS`); fences also `F`; RMW orders split over the halves
//!   (`tagging.rs`).
//! * Everything else C has (loops, jumps, pointers other than the
//!   parameters, pointer arithmetic, calls of other functions, the
//!   conditional operator, floating point) is `unsupported`, at its
//!   position.

mod ast;
mod lexer;
mod lower;
mod names;
mod parser;
#[cfg(test)]
mod tests;

mod regions;

use super::cond::Names;
use super::source::Source;
use super::Locs;
use crate::diag::Result;
use crate::ir::{Arch, Placement, Program, Thread};
use ast::Init;
use std::collections::{HashMap, HashSet};

/// Parses a C litmus test (the caller saw the header word `C`, `OpenCL`
/// or `OPENCL`). Errors carry the exact `line:col`; the caller adds the
/// file.
pub(super) fn parse(text: &str) -> Result<Program> {
    let src = Source::new(text);
    let test = parser::Parser::new(&src).test()?;
    let mut locs = Locs::default();
    let mut reg_inits = Vec::new();
    for init in &test.inits {
        match init {
            Init::Loc {
                name, off, value, ..
            } => {
                if locs.get(name).is_some() {
                    return Err(
                        src.err_semantic(*off, format!("location `{name}` is declared twice"))
                    );
                }
                locs.add(name, None, None, *value, None);
            }
            Init::Reg { .. } => reg_inits.push(init),
        }
    }
    let n = test.threads.len();
    let mut param_locs = Vec::with_capacity(n);
    for def in &test.threads {
        let mut params = HashMap::new();
        for p in &def.params {
            if params.insert(p.name, locs.use_loc(p.name)).is_some() {
                return Err(
                    src.err_semantic(p.off, format!("parameter `{}` is given twice", p.name))
                );
            }
        }
        param_locs.push(params);
    }
    let names: Vec<String> = (0..n).map(|i| format!("P{i}")).collect();
    let (tree, map, tail) = regions::scope_tree_and_map(&src, test.tail, &names)?;
    let env = lower::Env {
        shared: regions::regions(&src, &mut locs, &test, map.as_ref())?,
        opencl: test.opencl,
    };
    let mut threads = Vec::with_capacity(n);
    let mut locals: Vec<HashSet<String>> = Vec::with_capacity(n);
    for (i, (def, params)) in test.threads.iter().zip(param_locs).enumerate() {
        let name = names[i].clone();
        let mut th = lower::Thread::new(&src, &env, name.clone(), params);
        th.stmts(&def.body)?;
        locals.push(th.locals.clone());
        let placement = match (&tree, &def.placement) {
            (Some(_), Some(_)) => {
                return Err(src.err_semantic(
                    def.placement_off,
                    format!("`{name}` is placed twice: by `@` and by the scope tree"),
                ))
            }
            (Some(tree), None) => tree[i].clone(),
            // Default: every thread in its own CTA of one GPU.
            (None, p) => Placement {
                ids: p.clone().unwrap_or_else(|| vec![i as i64, 0]),
                warp: None,
            },
        };
        threads.push(Thread {
            name,
            placement,
            instrs: th.instrs,
            init_regs: Vec::new(),
        });
    }
    regions::check_local_memory(&locs, &threads)?;
    for init in reg_inits {
        let Init::Reg {
            thread,
            thread_off,
            name,
            off,
            value,
        } = init
        else {
            continue;
        };
        let Some(th) = threads.get_mut(*thread) else {
            return Err(src.err_semantic(
                *thread_off,
                format!(
                    "thread `P{thread}` does not exist (the test has {n} thread{})",
                    if n == 1 { "" } else { "s" }
                ),
            ));
        };
        if !locals[*thread].contains(*name) {
            return Err(src.err_semantic(
                *off,
                format!("thread `P{thread}` declares no local variable `{name}`"),
            ));
        }
        if th.init_regs.iter().any(|(r, _)| r == name) {
            return Err(src.err_semantic(*off, format!("`{thread}:{name}` is initialised twice")));
        }
        th.init_regs.push((name.to_string(), *value));
    }
    let (filter, assertion, observed) = super::tail(&src, &locs, tail, n, &Names::C(locals))?;
    Ok(Program {
        kernel: false,
        name: test.name,
        arch: Arch::C,
        threads,
        locations: locs.list,
        ssw: Vec::new(),
        filter,
        assertion,
        observed,
        inputs: Vec::new(),
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: test.header,
        // OpenCL tests are checked under OpenCL's model (docs/C.md).
        default_model: test.opencl.then(|| "opencl".to_string()),
    })
}
