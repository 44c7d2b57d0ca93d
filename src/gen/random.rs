//! Random litmus tests for differential testing: classic shapes (MP, SB,
//! LB, IRIW, 2+2W, WRC, CoRR, S, R) with random orders, scopes, fences and
//! placement. Deterministic in the seed.

use super::{render, Access, GenArch, Order, Scope, Thread};

/// splitmix64: small, deterministic, good enough for test generation
/// (also the generators of our differential tests).
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// Abstract access of a shape.
#[derive(Clone, Copy)]
enum Abs {
    W(&'static str, i64),
    R(&'static str),
}

struct Shape {
    name: &'static str,
    threads: &'static [&'static [Abs]],
    /// Condition on registers (thread, nth read of that thread, value)…
    regs: &'static [(usize, usize, i64)],
    /// …and on final memory.
    mem: &'static [(&'static str, i64)],
}

use Abs::{R, W};

const SHAPES: &[Shape] = &[
    Shape {
        name: "MP",
        threads: &[&[W("x", 1), W("y", 1)], &[R("y"), R("x")]],
        regs: &[(1, 0, 1), (1, 1, 0)],
        mem: &[],
    },
    Shape {
        name: "SB",
        threads: &[&[W("x", 1), R("y")], &[W("y", 1), R("x")]],
        regs: &[(0, 0, 0), (1, 0, 0)],
        mem: &[],
    },
    Shape {
        name: "LB",
        threads: &[&[R("x"), W("y", 1)], &[R("y"), W("x", 1)]],
        regs: &[(0, 0, 1), (1, 0, 1)],
        mem: &[],
    },
    Shape {
        name: "IRIW",
        threads: &[
            &[W("x", 1)],
            &[W("y", 1)],
            &[R("x"), R("y")],
            &[R("y"), R("x")],
        ],
        regs: &[(2, 0, 1), (2, 1, 0), (3, 0, 1), (3, 1, 0)],
        mem: &[],
    },
    Shape {
        name: "2+2W",
        threads: &[&[W("x", 1), W("y", 2)], &[W("y", 1), W("x", 2)]],
        regs: &[],
        mem: &[("x", 1), ("y", 1)],
    },
    Shape {
        name: "WRC",
        threads: &[&[W("x", 1)], &[R("x"), W("y", 1)], &[R("y"), R("x")]],
        regs: &[(1, 0, 1), (2, 0, 1), (2, 1, 0)],
        mem: &[],
    },
    Shape {
        name: "CoRR",
        threads: &[&[W("x", 1)], &[R("x"), R("x")]],
        regs: &[(1, 0, 1), (1, 1, 0)],
        mem: &[],
    },
    Shape {
        name: "S",
        threads: &[&[W("x", 2), W("y", 1)], &[R("y"), W("x", 1)]],
        regs: &[(1, 0, 1)],
        mem: &[("x", 2)],
    },
    Shape {
        name: "R",
        threads: &[&[W("x", 1), W("y", 1)], &[W("y", 2), R("x")]],
        regs: &[(1, 0, 0)],
        mem: &[("y", 2)],
    },
];

/// A random test for `seed`: a shape, random orders and scopes per access,
/// fences between accesses with probability 1/4, threads placed in one
/// of two CTAs / workgroups.
pub fn random_test(seed: u64, arch: GenArch) -> String {
    let mut rng = Rng(seed);
    let shape = &SHAPES[rng.below(SHAPES.len() as u64) as usize];
    let scopes = [Scope::Block, Scope::Device];
    let mut threads = Vec::new();
    let mut locs: Vec<String> = Vec::new();
    for accs in shape.threads {
        let mut out = Vec::new();
        let mut reg = 0;
        for (k, a) in accs.iter().enumerate() {
            if k > 0 && rng.below(4) == 0 {
                let o = match arch {
                    GenArch::Ptx => rng.pick(&[Order::Sc, Order::AcqRel]),
                    GenArch::Vulkan => rng.pick(&[Order::Acquire, Order::Release, Order::AcqRel]),
                };
                out.push((Access::Fence(o), rng.pick(&scopes)));
            }
            let acc = match *a {
                W(loc, value) => {
                    if !locs.iter().any(|l| l == loc) {
                        locs.push(loc.to_string());
                    }
                    Access::Store {
                        loc: loc.to_string(),
                        value,
                        order: rng.pick(&[Order::Plain, Order::Relaxed, Order::Release]),
                    }
                }
                R(loc) => {
                    if !locs.iter().any(|l| l == loc) {
                        locs.push(loc.to_string());
                    }
                    reg += 1;
                    Access::Load {
                        reg: reg - 1,
                        loc: loc.to_string(),
                        order: rng.pick(&[Order::Plain, Order::Relaxed, Order::Acquire]),
                    }
                }
            };
            out.push((acc, rng.pick(&scopes)));
        }
        threads.push(Thread {
            block: rng.below(2) as usize,
            accesses: out,
        });
    }
    let mut conds: Vec<String> = shape
        .regs
        .iter()
        .map(|(t, r, v)| format!("P{t}:r{r} == {v}"))
        .collect();
    conds.extend(shape.mem.iter().map(|(l, v)| format!("{l} == {v}")));
    let name = format!("{}-rand{seed}", shape.name);
    render(arch, &name, &threads, &locs, &conds.join(" /\\ "))
}
