//! The abstract test as a herd `GPU_PTX` litmus test, written the way
//! Sorensen's thesis writes its tests (sec. 5.1, Fig. 3.2): every access
//! `.cg`, locations reached through `.b64` address registers, stored
//! values moved into a register first, and dependencies as Poetzl's
//! generator makes them robust against `ptxas` (sec. 5.1.1): the loaded
//! value's high bits (`and.b32 r8, r, 0xffff0000`, zero for the small
//! values the tests use, which the compiler cannot know) added to the
//! stored value (`data`) or, widened, to the address (`addr`), or
//! tested by the predicate of the access (`ctrl`: `setp.eq.u32 p0, r8,
//! 0` then `@p0 st…`, as the thesis's spin-lock tests guard theirs).

use crate::cycle::{Event, Test};
use crate::edge::{Dir, Via};
use crate::{Layout, Region};

/// The name of location `l`: x, y, z, then a, b, … (diy's order).
pub fn loc_name(l: usize) -> String {
    const NAMES: &[&str] = &["x", "y", "z", "a", "b", "c", "d", "e", "f", "g"];
    NAMES
        .get(l)
        .map(|s| s.to_string())
        .unwrap_or_else(|| format!("l{l}"))
}

/// The address register of location `l` (the thesis's `r6` = x, `r7` =
/// y).
fn addr_reg(l: usize) -> String {
    match l {
        0 => "r6".into(),
        1 => "r7".into(),
        _ => format!("r{}", 18 + l),
    }
}

/// The `k`-th load's destination register of a thread (skipping the
/// store register r3, the address registers and the dependency
/// registers r8, r9).
fn load_reg(k: usize) -> String {
    const FIRST: &[u32] = &[0, 1, 2, 4, 5, 10, 11, 12, 13, 14, 15, 16, 17];
    match FIRST.get(k) {
        Some(r) => format!("r{r}"),
        None => format!("r{}", 40 + k),
    }
}

/// One thread's code and the registers it declares, and its reads'
/// registers with the values the condition wants.
struct Code {
    lines: Vec<String>,
    decls: Vec<String>,
    reads: Vec<(String, i64)>,
}

fn thread_code(events: &[Event], fence: &str) -> Code {
    let mut lines = Vec::new();
    let mut loads = Vec::new();
    let (mut store, mut dep, mut ctrl) = (false, false, false);
    let mut locs: Vec<usize> = Vec::new();
    let mut reads = Vec::new();
    let mut last_load: Option<String> = None;
    for e in events {
        if !locs.contains(&e.loc) {
            locs.push(e.loc);
        }
        let a = addr_reg(e.loc);
        let via = e.via.clone().unwrap_or(Via::Plain);
        if let Via::Fence(f) = &via {
            lines.push(f.clone().unwrap_or_else(|| fence.to_string()));
        }
        // The dependency's source: the thread's previous event, a read.
        let src = last_load.clone().unwrap_or_else(|| "r0".into());
        let high = format!("and.b32 r8,{src},0xffff0000");
        let mut target = a.clone();
        if via == Via::Addr {
            dep = true;
            lines.push(high.clone());
            lines.push("cvt.u64.u32 r9,r8".into());
            lines.push(format!("add.s64 r9,{a},r9"));
            target = "r9".into();
        }
        // A control dependency: the access predicated on the high bits
        // being zero (always, for the tests' values).
        let guard = if via == Via::Ctrl {
            ctrl = true;
            lines.push(high.clone());
            lines.push("setp.eq.u32 p0,r8,0".into());
            "@p0 "
        } else {
            ""
        };
        let value = e.value.unwrap_or(0);
        match e.dir {
            Dir::W if via == Via::Data => {
                dep = true;
                lines.push(high);
                lines.push(format!("add.s32 r8,r8,{value}"));
                lines.push(format!("st.cg.s32 [{target}],r8"));
            }
            Dir::W => {
                store = true;
                lines.push(format!("mov.s32 r3,{value}"));
                lines.push(format!("{guard}st.cg.s32 [{target}],r3"));
            }
            Dir::R => {
                let r = load_reg(loads.len());
                lines.push(format!("{guard}ld.cg.s32 {r},[{target}]"));
                if let Some(v) = e.value {
                    reads.push((r.clone(), v));
                }
                loads.push(r.clone());
                last_load = Some(r);
            }
        }
    }
    let mut decls: Vec<String> = loads.iter().map(|r| format!(".reg .s32 {r}")).collect();
    if store {
        decls.push(".reg .s32 r3".into());
    }
    if dep || ctrl {
        decls.push(".reg .b32 r8".into());
    }
    if dep {
        decls.push(".reg .b64 r9".into());
    }
    if ctrl {
        decls.push(".reg .pred p0".into());
    }
    locs.sort();
    for l in locs {
        decls.push(format!(".reg .b64 {} = {}", addr_reg(l), loc_name(l)));
    }
    Code {
        lines,
        decls,
        reads,
    }
}

/// A test's first lines in every dialect: the dialect and name, the
/// cycle as the doc string, the `Key=value` lines.
pub fn header(dialect: &str, test: &Test, name: &str, extra: &[String]) -> String {
    let cycle: Vec<String> = test.cycle.iter().map(|e| e.name()).collect();
    let mut out = format!("{dialect} {name}\n\"{}\"\n", cycle.join(" "));
    for x in extra {
        out.push_str(x);
        out.push('\n');
    }
    out
}

/// The code table of a litmus test (the dialects but C write one): a column
/// per thread under its head, cells padded, ` | ` between, ` ;` after.
pub fn code_table(heads: &[String], lines: &[&[String]]) -> String {
    let rows = lines.iter().map(|l| l.len()).max().unwrap_or(0);
    let columns: Vec<Vec<String>> = heads
        .iter()
        .zip(lines)
        .map(|(h, l)| {
            let mut col = vec![h.clone()];
            col.extend(l.iter().cloned());
            col.resize(rows + 1, String::new());
            let w = col.iter().map(|s| s.len()).max().unwrap_or(0);
            col.iter().map(|s| format!("{s:<w$}")).collect()
        })
        .collect();
    let mut out = String::new();
    for r in 0..=rows {
        let cells: Vec<&str> = columns.iter().map(|c| c[r].as_str()).collect();
        out.push_str(&format!(" {} ;\n", cells.join(" | ")));
    }
    out
}

/// The scope tree of threads in the CTAs `ctas` gives (numbered by first
/// appearance), each in its own warp.
pub fn scope_tree(ctas: &[usize]) -> String {
    let n = ctas.iter().map(|c| c + 1).max().unwrap_or(0);
    let groups: Vec<String> = (0..n)
        .map(|c| {
            let warps: Vec<String> = (0..ctas.len())
                .filter(|&t| ctas[t] == c)
                .map(|t| format!("(warp T{t})"))
                .collect();
            format!("(cta {})", warps.join(" "))
        })
        .collect();
    format!("(device {})", groups.join(" "))
}

/// The test's text: header lines (`extra`: `Key=value` lines after the
/// doc string), initial state, code table, scope tree, memory map and
/// final condition.
pub fn render(test: &Test, layout: &Layout) -> String {
    let Layout {
        name,
        ctas,
        regions,
        fence,
        extra,
    } = *layout;
    let codes: Vec<Code> = test.threads.iter().map(|t| thread_code(t, fence)).collect();
    let mut out = header("GPU_PTX", test, name, extra);
    out.push_str("{\n");
    for l in 0..test.locs {
        out.push_str(&format!("{}=0;\n", loc_name(l)));
    }
    for (t, c) in codes.iter().enumerate() {
        for d in &c.decls {
            out.push_str(&format!("{t}: {d};\n"));
        }
    }
    out.push_str("}\n\n");
    let heads: Vec<String> = (0..codes.len()).map(|t| format!("T{t}")).collect();
    let lines: Vec<&[String]> = codes.iter().map(|c| c.lines.as_slice()).collect();
    out.push_str(&code_table(&heads, &lines));
    out.push_str(&format!("\nScopeTree\n{}\n\n", scope_tree(ctas)));
    let map: Vec<String> = (0..test.locs)
        .map(|l| {
            let r = regions.get(l).copied().unwrap_or(Region::Global);
            format!("{}: {}", loc_name(l), r.word())
        })
        .collect();
    out.push_str(&map.join(", "));
    out.push_str("\n\nexists\n(");
    let mut conj: Vec<String> = test
        .finals
        .iter()
        .map(|(l, v)| format!("{}={v}", loc_name(*l)))
        .collect();
    for (t, c) in codes.iter().enumerate() {
        for (r, v) in &c.reads {
            conj.push(format!("{t}:{r}={v}"));
        }
    }
    out.push_str(&conj.join(" /\\ "));
    out.push_str(")\n");
    out
}
