//! The abstract test in the two other dialects gpumc reads: scoped C
//! (docs/C.md; Lustig et al., ASPLOS'19) and Dat3M's PTX dialect. Both
//! write the thesis's weak accesses as the weakest accesses that do not
//! race — relaxed atomics at device scope in C (racing plain C accesses
//! are undefined), `.weak` accesses in Dat3M's PTX (which may race) —
//! and the PTX fences as the fences they are (`membar` is `fence.sc`).
//! Neither has shared memory or address dependencies, and Dat3M's PTX
//! has no register arithmetic, so no data dependency either: those are
//! refused, not approximated.

use crate::cycle::Test;
use crate::edge::{Dir, Via};
use crate::ptx::{code_table, header, loc_name};
use crate::{Layout, Region};
use gpumc_core::diag::{Error, ErrorKind, Result};

fn refuse(what: &str, dialect: &str) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported: {what} in a {dialect} test (the dialect has none)"),
    )
}

/// A PTX fence's order and scope: (`sc` or `acq_rel`, `cta`/`gpu`/`sys`).
fn fence_parts(f: &str) -> (&'static str, &'static str) {
    let order = if f.starts_with("fence.acq_rel") {
        "acq_rel"
    } else {
        "sc"
    };
    let scope = if f.ends_with("cta") {
        "cta"
    } else if f.ends_with("sys") {
        "sys"
    } else {
        "gpu"
    };
    (order, scope)
}

/// Refuses what neither dialect has: shared locations and address
/// dependencies; and (`data`: false) data and control dependencies.
fn check(test: &Test, regions: &[Region], data: bool, dialect: &str) -> Result<()> {
    if regions.contains(&Region::Shared) {
        return Err(refuse("shared memory", dialect));
    }
    for e in test.threads.iter().flatten() {
        match &e.via {
            Some(Via::Addr) => return Err(refuse("an address dependency", dialect)),
            Some(Via::Data | Via::Ctrl) if !data => {
                return Err(refuse(
                    "register arithmetic (data and control dependencies)",
                    dialect,
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The reads whose values the condition states, per thread: (register,
/// value), registers `r1`, `r2`, … numbered through the test.
fn registers(test: &Test) -> Vec<Vec<(usize, Option<i64>)>> {
    let mut next = 0;
    test.threads
        .iter()
        .map(|t| {
            t.iter()
                .map(|e| {
                    if e.dir == Dir::R {
                        next += 1;
                        (next, e.value)
                    } else {
                        (0, None)
                    }
                })
                .collect()
        })
        .collect()
}

fn condition(
    test: &Test,
    regs: &[Vec<(usize, Option<i64>)>],
    eq: &str,
    thread: &dyn Fn(usize) -> String,
) -> String {
    let mut conj: Vec<String> = test
        .finals
        .iter()
        .map(|(l, v)| format!("{} {eq} {v}", loc_name(*l)))
        .collect();
    for (t, rs) in regs.iter().enumerate() {
        for &(r, v) in rs {
            if let (true, Some(v)) = (r > 0, v) {
                conj.push(format!("{}:r{r} {eq} {v}", thread(t)));
            }
        }
    }
    conj.join(" /\\ ")
}

/// Scoped C: `atomic_*_explicit` relaxed at device scope, fences as
/// `atomic_thread_fence` with the PTX fence's order and scope.
pub fn render_c(test: &Test, layout: &Layout) -> Result<String> {
    let Layout {
        name,
        ctas,
        regions,
        fence: default_fence,
        extra,
    } = *layout;
    check(test, regions, true, "scoped C")?;
    let regs = registers(test);
    let mut out = header("C", test, name, extra);
    let init: Vec<String> = (0..test.locs)
        .map(|l| format!("{} = 0;", loc_name(l)))
        .collect();
    out.push_str(&format!("{{ {} }}\n", init.join(" ")));
    let params: Vec<String> = (0..test.locs)
        .map(|l| format!("atomic_int* {}", loc_name(l)))
        .collect();
    for (t, events) in test.threads.iter().enumerate() {
        out.push_str(&format!(
            "\nP{t}@cta {},gpu 0({}) {{\n",
            ctas[t],
            params.join(", ")
        ));
        let mut last = String::new();
        for (e, &(r, _)) in events.iter().zip(&regs[t]) {
            if let Some(Via::Fence(f)) = &e.via {
                let (order, scope) = fence_parts(f.as_deref().unwrap_or(default_fence));
                out.push_str(&format!(
                    "  atomic_thread_fence({}, {});\n",
                    match order {
                        "sc" => "memory_order_seq_cst",
                        _ => "memory_order_acq_rel",
                    },
                    match scope {
                        "cta" => "memory_scope_work_group",
                        "sys" => "memory_scope_all_svm_devices",
                        _ => "memory_scope_device",
                    }
                ));
            }
            let x = loc_name(e.loc);
            let v = e.value.unwrap_or(0);
            // A control dependency: the access inside a test of the high
            // bits (always true, for the tests' values).
            let ctrl = e.via == Some(Via::Ctrl);
            if ctrl {
                out.push_str(&format!("  if (({last} & 0xffff0000) == 0) {{\n  "));
            }
            match e.dir {
                Dir::R => {
                    out.push_str(&format!(
                        "  int r{r} = atomic_load_explicit({x}, memory_order_relaxed, memory_scope_device);\n"
                    ));
                    last = format!("r{r}");
                }
                Dir::W => {
                    let value = if e.via == Some(Via::Data) {
                        format!("({last} & 0xffff0000) + {v}")
                    } else {
                        v.to_string()
                    };
                    out.push_str(&format!(
                        "  atomic_store_explicit({x}, {value}, memory_order_relaxed, memory_scope_device);\n"
                    ));
                }
            }
            if ctrl {
                out.push_str("  }\n");
            }
        }
        out.push_str("}\n");
    }
    out.push_str(&format!(
        "\nexists ({})\n",
        condition(test, &regs, "=", &|t| t.to_string())
    ));
    Ok(out)
}

/// Dat3M's PTX dialect: `ld.weak`/`st.weak`, `membar` as the `fence.sc`
/// it is.
pub fn render_dat3m_ptx(test: &Test, layout: &Layout) -> Result<String> {
    let Layout {
        name,
        ctas,
        regions,
        fence: default_fence,
        extra,
    } = *layout;
    check(test, regions, false, "Dat3M PTX")?;
    let regs = registers(test);
    let mut out = header("PTX", test, name, extra);
    let init: Vec<String> = (0..test.locs)
        .map(|l| format!("{}=0;", loc_name(l)))
        .collect();
    out.push_str(&format!("{{\n{}\n}}\n", init.join(" ")));
    let mut columns: Vec<Vec<String>> = Vec::new();
    for (t, events) in test.threads.iter().enumerate() {
        let mut lines = Vec::new();
        for (e, &(r, _)) in events.iter().zip(&regs[t]) {
            if let Some(Via::Fence(f)) = &e.via {
                let (order, scope) = fence_parts(f.as_deref().unwrap_or(default_fence));
                lines.push(format!("fence.{order}.{scope}"));
            }
            let x = loc_name(e.loc);
            lines.push(match e.dir {
                Dir::R => format!("ld.weak r{r}, {x}"),
                Dir::W => format!("st.weak {x}, {}", e.value.unwrap_or(0)),
            });
        }
        columns.push(lines);
    }
    let heads: Vec<String> = (0..test.threads.len())
        .map(|t| format!("P{t}@cta {},gpu 0", ctas[t]))
        .collect();
    let lines: Vec<&[String]> = columns.iter().map(|c| c.as_slice()).collect();
    out.push_str(&code_table(&heads, &lines));
    out.push_str(&format!(
        "exists\n({})\n",
        condition(test, &regs, "==", &|t| format!("P{t}"))
    ));
    Ok(out)
}
