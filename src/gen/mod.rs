//! Test generation (the `diy` part of the toolbox): the scaling families
//! of Tong et al., ASPLOS'24 Fig. 15 and random litmus tests for differential testing.
//! Output is litmus text in the Dat3M PTX / Vulkan dialects, so every
//! generated test goes through the same front-end as the corpus.

pub mod random;
pub use random::random_test;

use std::fmt::Write;

/// Target dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GenArch {
    Ptx,
    Vulkan,
}

/// A scaling family (Tong et al., ASPLOS'24 Fig. 15).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Family {
    Mp,
    Sb,
    Lb,
    Iriw,
}

/// An access in a generated thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// Load into register `r{reg}` from location `loc`.
    Load {
        reg: usize,
        loc: String,
        order: Order,
    },
    /// Store constant to `loc`.
    Store {
        loc: String,
        value: i64,
        order: Order,
    },
    /// A fence.
    Fence(Order),
}

/// Memory order (and atomicity) of a generated access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// Non-atomic (`.weak` in PTX; plain, with av/vis at device scope in Vulkan).
    Plain,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    /// SC fence (PTX `fence.sc`).
    Sc,
}

/// Scope of a generated atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scope {
    /// PTX `.cta` / Vulkan `.wg`.
    Block,
    /// PTX `.gpu` / Vulkan `.dv`.
    Device,
}

pub(crate) struct Thread {
    /// CTA / workgroup index.
    pub block: usize,
    pub accesses: Vec<(Access, Scope)>,
}

/// Renders a test. `cond` is written after `exists`.
pub(crate) fn render(
    arch: GenArch,
    name: &str,
    threads: &[Thread],
    locs: &[String],
    cond: &str,
) -> String {
    let mut s = String::new();
    let head = match arch {
        GenArch::Ptx => "PTX",
        GenArch::Vulkan => "VULKAN",
    };
    let _ = writeln!(s, "{head} {name}");
    let _ = writeln!(s, "{{");
    for l in locs {
        let _ = writeln!(s, "{l}=0;");
    }
    let _ = writeln!(s, "}}");
    let cells: Vec<Vec<String>> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut col = vec![match arch {
                GenArch::Ptx => format!("P{i}@cta {},gpu 0", t.block),
                GenArch::Vulkan => format!("P{i}@sg 0,wg {}, qf 0", t.block),
            }];
            col.extend(t.accesses.iter().map(|(a, sc)| instr(arch, a, *sc)));
            col
        })
        .collect();
    s.push_str(&columns(&cells));
    let _ = writeln!(s, "exists\n({cond})");
    s
}

/// The thread table of a litmus test: one column per thread (its
/// placement header first, then its instructions), padded, `|` between
/// columns and `;` ending each row.
pub fn columns(cells: &[Vec<String>]) -> String {
    let mut s = String::new();
    let rows = cells.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = cells
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    for r in 0..rows {
        let row: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {:<w$} ", c.get(r).map_or("", String::as_str), w = w))
            .collect();
        let _ = writeln!(s, "{};", row.join("|"));
    }
    s
}

fn instr(arch: GenArch, a: &Access, sc: Scope) -> String {
    match arch {
        GenArch::Ptx => {
            let scope = match sc {
                Scope::Block => "cta",
                Scope::Device => "gpu",
            };
            match a {
                Access::Load { reg, loc, order } => match order {
                    Order::Plain => format!("ld.weak r{reg}, {loc}"),
                    Order::Acquire => format!("ld.acquire.{scope} r{reg}, {loc}"),
                    _ => format!("ld.relaxed.{scope} r{reg}, {loc}"),
                },
                Access::Store { loc, value, order } => match order {
                    Order::Plain => format!("st.weak {loc}, {value}"),
                    Order::Release => format!("st.release.{scope} {loc}, {value}"),
                    _ => format!("st.relaxed.{scope} {loc}, {value}"),
                },
                Access::Fence(o) => match o {
                    Order::Sc => format!("fence.sc.{scope}"),
                    _ => format!("fence.acq_rel.{scope}"),
                },
            }
        }
        GenArch::Vulkan => {
            let scope = match sc {
                Scope::Block => "wg",
                Scope::Device => "dv",
            };
            match a {
                Access::Load { reg, loc, order } => match order {
                    Order::Plain => format!("ld.vis.{scope}.sc0 r{reg}, {loc}"),
                    Order::Acquire => format!("ld.atom.acq.{scope}.sc0.semsc0 r{reg}, {loc}"),
                    _ => format!("ld.atom.{scope}.sc0 r{reg}, {loc}"),
                },
                Access::Store { loc, value, order } => match order {
                    Order::Plain => format!("st.av.{scope}.sc0 {loc}, {value}"),
                    Order::Release => format!("st.atom.rel.{scope}.sc0.semsc0 {loc}, {value}"),
                    _ => format!("st.atom.{scope}.sc0 {loc}, {value}"),
                },
                Access::Fence(o) => match o {
                    Order::Acquire => format!("membar.acq.{scope}.semsc0"),
                    Order::Release => format!("membar.rel.{scope}.semsc0"),
                    _ => format!("membar.acq_rel.{scope}.semsc0"),
                },
            }
        }
    }
}

fn load(reg: usize, loc: &str, order: Order) -> (Access, Scope) {
    (
        Access::Load {
            reg,
            loc: loc.to_string(),
            order,
        },
        Scope::Device,
    )
}

fn store(loc: &str, order: Order) -> (Access, Scope) {
    (
        Access::Store {
            loc: loc.to_string(),
            value: 1,
            order,
        },
        Scope::Device,
    )
}

/// Generates a scaling-family test with `n` threads (n ≥ 2), every thread
/// in its own CTA / workgroup, release/acquire at GPU / device scope.
///
/// * MP-n: P0 writes `x0` non-atomically then releases `x1`; each middle
///   thread acquires `x_i` then releases `x_{i+1}`; the last acquires
///   `x_{n-1}` then reads `x0`. exists: every acquire sees 1, the last read 0.
/// * SB-n: a ring; each P_i releases `x_i` then acquires `x_{i+1 mod n}`.
///   exists: every load sees 0.
/// * LB-n: the ring with loads first: P_i acquires `x_i` then releases
///   `x_{i+1 mod n}`. exists: every load sees 1.
/// * IRIW-n: n/2 writers of distinct locations, n/2 readers; reader j
///   acquires the locations in the order rotated by j. exists: every reader
///   sees its first location written and its last one not (the readers
///   disagree on the order of the writes). n must be even and ≥ 4.
pub fn family(f: Family, n: usize, arch: GenArch) -> Result<String, String> {
    if n < 2 {
        return Err("a family needs at least 2 threads".into());
    }
    let x = |i: usize| format!("x{i}");
    let mut threads = Vec::new();
    let mut conds = Vec::new();
    let (name, locs) = match f {
        Family::Mp => {
            for i in 0..n {
                let acc = if i == 0 {
                    vec![store(&x(0), Order::Plain), store(&x(1), Order::Release)]
                } else if i + 1 < n {
                    conds.push(format!("P{i}:r0 == 1"));
                    vec![
                        load(0, &x(i), Order::Acquire),
                        store(&x(i + 1), Order::Release),
                    ]
                } else {
                    conds.push(format!("P{i}:r0 == 1"));
                    conds.push(format!("P{i}:r1 == 0"));
                    vec![load(0, &x(i), Order::Acquire), load(1, &x(0), Order::Plain)]
                };
                threads.push(Thread {
                    block: i,
                    accesses: acc,
                });
            }
            (format!("MP-{n}"), (0..n).map(x).collect::<Vec<_>>())
        }
        Family::Sb | Family::Lb => {
            for i in 0..n {
                let next = x((i + 1) % n);
                let acc = if f == Family::Sb {
                    conds.push(format!("P{i}:r0 == 0"));
                    vec![store(&x(i), Order::Release), load(0, &next, Order::Acquire)]
                } else {
                    conds.push(format!("P{i}:r0 == 1"));
                    vec![load(0, &x(i), Order::Acquire), store(&next, Order::Release)]
                };
                threads.push(Thread {
                    block: i,
                    accesses: acc,
                });
            }
            let name = if f == Family::Sb { "SB" } else { "LB" };
            (format!("{name}-{n}"), (0..n).map(x).collect())
        }
        Family::Iriw => {
            if n < 4 || !n.is_multiple_of(2) {
                return Err("IRIW needs an even number of threads, at least 4".into());
            }
            let w = n / 2;
            for i in 0..w {
                threads.push(Thread {
                    block: i,
                    accesses: vec![store(&x(i), Order::Release)],
                });
            }
            for j in 0..w {
                let t = w + j;
                let acc: Vec<_> = (0..w)
                    .map(|k| load(k, &x((j + k) % w), Order::Acquire))
                    .collect();
                conds.push(format!("P{t}:r0 == 1"));
                conds.push(format!("P{t}:r{} == 0", w - 1));
                threads.push(Thread {
                    block: t,
                    accesses: acc,
                });
            }
            (format!("IRIW-{n}"), (0..w).map(x).collect())
        }
    };
    Ok(render(arch, &name, &threads, &locs, &conds.join(" /\\ ")))
}

#[cfg(test)]
mod tests;
