//! Explicit vs symbolic engine on randomly generated litmus tests (PTX and
//! Vulkan): loads, stores, RMWs, fences, barriers, forward branches,
//! bounded loops and spinloops, filters, every quantifier; safety (verdict,
//! every reachable final state, herd's observation, whether the bound cut
//! an execution) and races.
//! The `*_indexed` variants turn some accesses into run-time addresses
//! (`ir::Addr::Indexed`, which no litmus dialect writes) indexed by a
//! register loaded earlier, out of bounds for some values. The `*_ub`
//! variants divide by loaded values (zero for some) and put `Unreachable`
//! behind branches on them: undefined behaviour (docs/SEMANTICS.md), on
//! which both engines must agree as on everything else. The `*_assumed`
//! variants put `Infeasible` behind such branches (assumptions on the
//! values read: the executions that fail one do not exist).
//!
//! `GPUMC_GEN_TESTS=N` sets the number of tests per (arch, property)
//! (default: 300, a few seconds in a debug build); `GPUMC_GEN_SEED` the
//! seed. `GPUMC_TEST_VULKAN_CAT` overrides the Vulkan model with a file.

use gpumc::engine::safety::{Observation, SafetyResult, Verdict};
use gpumc::engine::{races, safety, symbolic, Options};
use gpumc::ir::{Addr, Arch, BinOp, CmpOp, Indexed, Instr, InstrKind, Operand, Program};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
}

struct Gen {
    arch: Arch,
    threads: usize,
    locs: Vec<&'static str>,
    /// Every thread runs one code in one scope instance, and conditions
    /// read locations only: the symbolic engine's symmetry reduction
    /// applies (docs/SYMBOLIC.md, "Symmetry").
    symmetric: bool,
    /// Threads may take a test-and-set lock on location `l` (an exchange
    /// loop, whose failed attempts are futile iterations) and release it.
    lock_loops: bool,
}

impl Gen {
    fn scope(&self, r: &mut Rng) -> &'static str {
        match self.arch {
            Arch::Ptx | Arch::C => r.pick(&["cta", "gpu", "sys"]),
            Arch::Vulkan => r.pick(&["wg", "dv", "qf"]),
        }
    }

    /// One memory or fence instruction; `reg` is the register a read uses.
    fn instr(&self, r: &mut Rng, reg: &str, loc: &str, allow_barrier: bool) -> String {
        let v = 1 + r.below(2);
        let s = self.scope(r);
        let k = r.below(if allow_barrier { 11 } else { 10 });
        match self.arch {
            Arch::Ptx | Arch::C => match k {
                0..=2 => match r.below(3) {
                    0 => format!("st.weak {loc}, {v}"),
                    1 => format!("st.relaxed.{s} {loc}, {v}"),
                    _ => format!("st.release.{s} {loc}, {v}"),
                },
                3..=5 => match r.below(3) {
                    0 => format!("ld.weak {reg}, {loc}"),
                    1 => format!("ld.relaxed.{s} {reg}, {loc}"),
                    _ => format!("ld.acquire.{s} {reg}, {loc}"),
                },
                6 | 7 => {
                    let o = r.pick(&["relaxed", "acquire", "release", "acq_rel"]);
                    match r.below(3) {
                        0 => format!("atom.{o}.{s}.add {reg}, {loc}, {v}"),
                        1 => format!("atom.{o}.{s}.exch {reg}, {loc}, {v}"),
                        _ => format!("atom.{o}.{s}.cas {reg}, {loc}, {}, {v}", r.below(2)),
                    }
                }
                8 | 9 => format!("fence.{}.{s}", r.pick(&["sc", "acq_rel"])),
                _ => "bar.cta.sync 0".to_string(),
            },
            Arch::Vulkan => {
                let sem = if r.chance(50) { ".semsc0" } else { "" };
                match k {
                    0..=2 => match r.below(4) {
                        0 => format!("st.sc0 {loc}, {v}"),
                        1 => format!("st.av.{s}.sc0 {loc}, {v}"),
                        2 => format!("st.atom.{s}.sc0 {loc}, {v}"),
                        _ => format!("st.atom.rel.{s}.sc0{sem} {loc}, {v}"),
                    },
                    3..=5 => match r.below(4) {
                        0 => format!("ld.sc0 {reg}, {loc}"),
                        1 => format!("ld.vis.{s}.sc0 {reg}, {loc}"),
                        2 => format!("ld.atom.{s}.sc0 {reg}, {loc}"),
                        _ => format!("ld.atom.acq.{s}.sc0{sem} {reg}, {loc}"),
                    },
                    6 | 7 => {
                        let o = r.pick(&["", ".acq", ".rel", ".acq_rel"]);
                        let sem = if o.is_empty() { "" } else { sem };
                        if r.chance(50) {
                            format!("rmw.atom{o}.{s}.sc0{sem}.add {reg}, {loc}, {v}")
                        } else {
                            format!("rmw.atom{o}.{s}.sc0{sem} {reg}, {loc}, {v}")
                        }
                    }
                    8 | 9 => format!(
                        "membar.{}.{s}.semsc0{}",
                        r.pick(&["rel", "acq", "acq_rel"]),
                        r.pick(&["", ".semav", ".semvis"])
                    ),
                    _ => "cbar.acq_rel.wg.semsc0 0".to_string(),
                }
            }
        }
    }

    fn thread(&self, r: &mut Rng, t: usize, barrier: bool) -> Vec<String> {
        let mut out = Vec::new();
        let len = 1 + r.below(3);
        let mut regs = 0;
        let mut label = 0;
        let mut i = 0;
        while i < len {
            let reg = format!("r{regs}");
            let loc = r.pick(&self.locs);
            let shape = r.below(10);
            if shape == 0 && regs > 0 {
                // Forward branch over the next instruction.
                let l = format!("LC{t}{label}");
                label += 1;
                let rr = format!("r{}", r.below(regs));
                out.push(format!("bne {rr}, {}, {l}", r.below(2)));
                let reg2 = format!("r{regs}");
                regs += 1;
                out.push(self.instr(r, &reg2, loc, false));
                out.push(format!("{l}:"));
            } else if (shape == 2 || shape == 3) && self.lock_loops {
                let loc = "l";
                // Test-and-test-and-set: a failed exchange writes the
                // value it read (docs/SEMANTICS.md, "Futile iterations").
                let l = format!("LK{t}{label}");
                label += 1;
                let (ra, rb) = (format!("r{regs}"), format!("r{}", regs + 1));
                regs += 2;
                let s = if r.chance(80) { "gpu" } else { self.scope(r) };
                out.push(format!("{l}:"));
                match self.arch {
                    Arch::Ptx | Arch::C => {
                        out.push(format!("ld.relaxed.gpu {ra}, {loc}"));
                        out.push(format!("bne {ra}, 0, {l}"));
                        out.push(format!("atom.acquire.{s}.exch {rb}, {loc}, 1"));
                        out.push(format!("bne {rb}, 0, {l}"));
                        if r.chance(70) {
                            out.push(format!("st.release.gpu {loc}, 0"));
                        }
                    }
                    Arch::Vulkan => {
                        let s = if s == "gpu" { "dv" } else { s };
                        out.push(format!("ld.atom.dv.sc0 {ra}, {loc}"));
                        out.push(format!("bne {ra}, 0, {l}"));
                        out.push(format!("rmw.atom.acq.{s}.sc0.semsc0 {rb}, {loc}, 1"));
                        out.push(format!("bne {rb}, 0, {l}"));
                        if r.chance(70) {
                            out.push(format!("st.atom.rel.dv.sc0.semsc0 {loc}, 0"));
                        }
                    }
                }
            } else if shape == 1 {
                // A loop: spinloop (a load) or a bounded loop with a store.
                let l = format!("LC{t}{label}");
                label += 1;
                out.push(format!("{l}:"));
                let v = r.below(2);
                match self.arch {
                    Arch::Ptx | Arch::C => out.push(format!("ld.relaxed.gpu {reg}, {loc}")),
                    Arch::Vulkan => out.push(format!("ld.atom.dv.sc0 {reg}, {loc}")),
                }
                if r.chance(40) {
                    let loc2 = r.pick(&self.locs);
                    match self.arch {
                        Arch::Ptx | Arch::C => out.push(format!("st.relaxed.gpu {loc2}, 2")),
                        Arch::Vulkan => out.push(format!("st.atom.dv.sc0 {loc2}, 2")),
                    }
                }
                out.push(format!("bne {reg}, {v}, {l}"));
                regs += 1;
            } else {
                let allow = barrier && r.chance(30);
                out.push(self.instr(r, &reg, loc, allow));
                regs += 1;
            }
            i += 1;
        }
        out
    }

    fn program(&self, r: &mut Rng) -> (String, Vec<(usize, usize)>) {
        let barrier = r.chance(15);
        let cols: Vec<Vec<String>> = if self.symmetric {
            let body = self.thread(r, 0, barrier);
            vec![body; self.threads]
        } else {
            (0..self.threads)
                .map(|t| self.thread(r, t, barrier))
                .collect()
        };
        let mut regs = Vec::new();
        for (t, c) in cols.iter().enumerate() {
            let n = c.iter().filter(|s| s.contains(" r")).count();
            for k in 0..n.min(3) {
                // Registers of interchangeable threads are not observed.
                if !self.symmetric {
                    regs.push((t, k));
                }
            }
        }
        let head = match self.arch {
            Arch::Ptx | Arch::C => "PTX",
            Arch::Vulkan => "Vulkan",
        };
        let mut s = format!("{head} gen\n{{\n");
        for l in &self.locs {
            s.push_str(&format!("{l}={}; ", if r.chance(15) { 1 } else { 0 }));
        }
        if self.lock_loops {
            s.push_str("l=0; ");
        }
        s.push_str("\n}\n");
        let table: Vec<Vec<String>> = cols
            .iter()
            .enumerate()
            .map(|(t, c)| {
                let mut col = vec![match (self.arch, self.symmetric) {
                    (Arch::Ptx | Arch::C, true) => format!("P{t}@cta 0,gpu 0"),
                    (Arch::Vulkan, true) => format!("P{t}@sg 0,wg 0,qf 0"),
                    (Arch::Ptx | Arch::C, false) => format!("P{t}@cta {},gpu 0", r.below(2)),
                    (Arch::Vulkan, false) => {
                        format!("P{t}@sg {},wg {},qf 0", r.below(2), r.below(2))
                    }
                }];
                col.extend(c.iter().cloned());
                col
            })
            .collect();
        s.push_str(&gpumc::gen::columns(&table));
        (s, regs)
    }

    fn atom(&self, r: &mut Rng, regs: &[(usize, usize)]) -> String {
        let v = r.below(3);
        let op = r.pick(&["==", "!="]);
        if !regs.is_empty() && r.chance(60) {
            let (t, k) = r.pick(regs);
            format!("P{t}:r{k} {op} {v}")
        } else {
            format!("{} {op} {v}", r.pick(&self.locs))
        }
    }

    fn cond(&self, r: &mut Rng, regs: &[(usize, usize)]) -> String {
        let n = 1 + r.below(3);
        let parts: Vec<String> = (0..n).map(|_| self.atom(r, regs)).collect();
        parts.join(if r.chance(70) { " /\\ " } else { " \\/ " })
    }

    fn test(&self, r: &mut Rng) -> String {
        let (mut s, regs) = self.program(r);
        if r.chance(20) {
            s.push_str(&format!("filter ({})\n", self.atom(r, &regs)));
        }
        let q = r.pick(&["exists", "~exists", "forall"]);
        s.push_str(&format!("{q} ({})\n", self.cond(r, &regs)));
        s
    }
}

fn model(arch: Arch) -> Option<gpumc::cat::Model> {
    let name = match arch {
        Arch::Ptx | Arch::C => "ptx-v7.5".to_string(),
        Arch::Vulkan => std::env::var("GPUMC_TEST_VULKAN_CAT").unwrap_or_else(|_| "vulkan".into()),
    };
    match gpumc::models::load(&name) {
        Ok(m) => Some(m),
        Err(e) => {
            eprintln!("skipped: model {name} does not load: {e}");
            None
        }
    }
}

/// Keeps the explicit engine's enumeration small: few path combinations
/// and few writes per location.
fn small_enough(p: &gpumc::ir::Program, bound: u32) -> bool {
    use gpumc::engine::paths::{thread_paths, value_domains, PathEventKind};
    let Ok(dom) = value_domains(p, bound) else {
        return false;
    };
    let mut combos = 1usize;
    let mut writes = vec![0usize; p.locations.len()];
    for t in 0..p.threads.len() {
        let Ok(ps) = thread_paths(p, t, bound, &dom) else {
            return false;
        };
        combos = combos.saturating_mul(ps.len().max(1));
        for (l, w) in writes.iter_mut().enumerate() {
            *w += ps
                .iter()
                .map(|x| {
                    x.events
                        .iter()
                        .filter(|e| e.kind == PathEventKind::Write && e.loc == Some(l))
                        .count()
                })
                .max()
                .unwrap_or(0);
        }
    }
    // Partial orders per number of writes (the explicit engine's co).
    const POSETS: [usize; 6] = [1, 1, 3, 19, 219, 4231];
    let co: usize = writes
        .iter()
        .map(|&w| POSETS.get(w).copied().unwrap_or(usize::MAX))
        .fold(1usize, |a, b| a.saturating_mul(b));
    combos.saturating_mul(co) <= 20_000
}

/// Turns about a third of the memory accesses of `p` into run-time
/// addresses over one or two of its locations (in either order), indexed
/// by a register some earlier instruction loaded (it holds 0 until then)
/// or by a constant. Index values reach 2, so some accesses go out of
/// bounds: undefined behaviour, which both engines must find alike.
fn index_some(p: &mut Program, r: &mut Rng) {
    let nloc = p.locations.len();
    for t in &mut p.threads {
        let mut loaded: Vec<String> = Vec::new();
        for ins in &mut t.instrs {
            let dst = match &ins.kind {
                InstrKind::Load { dst, .. } => Some(dst.clone()),
                InstrKind::Rmw { dst, .. } => dst.clone(),
                _ => None,
            };
            if let (Some(Addr::Fixed(l)), true) = (ins.kind.addr(), r.chance(35)) {
                let mut cells = vec![*l];
                if nloc > 1 && r.chance(60) {
                    cells.push((*l + 1) % nloc);
                }
                if r.chance(50) {
                    cells.reverse();
                }
                let index = if !loaded.is_empty() && r.chance(80) {
                    Operand::Reg(loaded[r.below(loaded.len())].clone())
                } else {
                    Operand::Const(r.below(2) as i64)
                };
                let a = Addr::Indexed(Box::new(Indexed {
                    index,
                    cells,
                    array: "a".into(),
                }));
                match &mut ins.kind {
                    InstrKind::Load { addr, .. }
                    | InstrKind::Store { addr, .. }
                    | InstrKind::Rmw { addr, .. } => *addr = a,
                    _ => {}
                }
            }
            loaded.extend(dst);
        }
    }
}

/// How a generated test is changed after parsing, into what no litmus
/// dialect writes.
#[derive(Clone, Copy, PartialEq)]
enum Mutate {
    None,
    /// [`index_some`].
    Indexed,
    /// [`undefine_some`].
    Undefined,
    /// [`assume_some`].
    Assumed,
}

/// Rewrites `p`: after each load or RMW with a destination register, the
/// instructions `after` returns for that register and instruction index.
fn after_reads(p: &mut Program, mut after: impl FnMut(&str, usize) -> Vec<InstrKind>) {
    for t in &mut p.threads {
        let mut out: Vec<Instr> = Vec::new();
        for (k, ins) in std::mem::take(&mut t.instrs).into_iter().enumerate() {
            let dst = match &ins.kind {
                InstrKind::Load { dst, .. } => Some(dst.clone()),
                InstrKind::Rmw { dst, .. } => dst.clone(),
                _ => None,
            };
            let (pos, text) = (ins.pos, ins.text.clone());
            out.push(ins);
            if let Some(d) = dst {
                let new = |kind| Instr::new(kind, vec![], pos, text.clone());
                out.extend(after(&d, k).into_iter().map(new));
            }
        }
        t.instrs = out;
    }
}

/// `if r != value goto skip; kind; skip:` (`kind` reached when `r` is
/// `value`).
fn when_equal(r: &str, value: i64, kind: InstrKind, skip: String) -> Vec<InstrKind> {
    vec![
        InstrKind::Branch {
            op: CmpOp::Ne,
            a: Operand::Reg(r.to_string()),
            b: Operand::Const(value),
            target: skip.clone(),
        },
        kind,
        InstrKind::Label(skip),
    ]
}

/// After about a third of the loads and RMWs of `p`, divides a constant
/// by the value read (`r := k / r`, signed or unsigned, quotient or
/// remainder: undefined behaviour when `r` is 0, which the initial value
/// of every location is), and after some others reaches `Unreachable`
/// when the value read is one value (a branch around it otherwise).
fn undefine_some(p: &mut Program, r: &mut Rng) {
    after_reads(p, |d, k| {
        if r.chance(35) {
            let op = r.pick(&[BinOp::Div, BinOp::Rem, BinOp::Udiv, BinOp::Urem]);
            vec![InstrKind::Local {
                dst: d.to_string(),
                op,
                a: Operand::Const(1 + r.below(4) as i64),
                b: Operand::Reg(d.to_string()),
            }]
        } else if r.chance(15) {
            let v = r.below(3) as i64;
            when_equal(
                d,
                v,
                InstrKind::Unreachable { cause: None },
                format!("UBskip{k}"),
            )
        } else {
            vec![]
        }
    });
}

/// After about a quarter of the loads and RMWs of `p`, assumes that the
/// value read is not one value (`Infeasible` when it is), and after some
/// others reaches `Unreachable` the same way: executions ruled out, next
/// to undefined behaviour.
fn assume_some(p: &mut Program, r: &mut Rng) {
    after_reads(p, |d, k| {
        let kind = if r.chance(25) {
            InstrKind::Infeasible
        } else if r.chance(10) {
            InstrKind::Unreachable { cause: None }
        } else {
            return vec![];
        };
        let v = r.below(3) as i64;
        when_equal(d, v, kind, format!("Askip{k}"))
    });
}

/// What both engines must agree on.
#[derive(Debug, PartialEq)]
struct Outcome {
    verdict: Verdict,
    /// Undefined behaviour decided the verdict.
    ub: bool,
    /// Safety, where the list is complete: every reachable final state.
    states: Option<Vec<Vec<i64>>>,
    observation: Option<Observation>,
    /// Safety without undefined behaviour: some execution was cut.
    bound_hit: Option<bool>,
    /// Races, where the list is complete: the racing instruction pairs,
    /// by flag and positions.
    races: Option<std::collections::BTreeSet<(String, String, String)>>,
}

impl Outcome {
    fn verdict(verdict: Verdict, ub: bool) -> Outcome {
        Outcome {
            verdict,
            ub,
            states: None,
            observation: None,
            bound_hit: None,
            races: None,
        }
    }

    fn races(x: races::RaceResult) -> Outcome {
        let pairs = x
            .races
            .iter()
            .map(|r| {
                let (a, b) = &r.positions;
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                (r.flag.clone(), a.clone(), b.clone())
            })
            .collect();
        Outcome {
            races: x.races_complete.then_some(pairs),
            ..Outcome::verdict(x.verdict, x.note.is_some())
        }
    }

    fn safety(x: SafetyResult) -> Outcome {
        let ub = x.note.is_some();
        Outcome {
            verdict: x.verdict,
            ub,
            states: x.states_incomplete.is_none().then_some(x.states),
            observation: x.observation,
            bound_hit: (!ub).then_some(x.bound_hit),
            races: None,
        }
    }
}

fn run(arch: Arch, property_races: bool, seed_salt: u64) {
    run_with(arch, property_races, seed_salt, Mutate::None);
}

fn run_with(arch: Arch, property_races: bool, seed_salt: u64, mutate: Mutate) {
    run_gen(arch, property_races, seed_salt, mutate, false);
}

/// `GPUMC_GEN_TESTS` (default 300) and `GPUMC_GEN_SEED`.
fn tests_and_seed() -> (usize, u64) {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse().ok());
    (
        var("GPUMC_GEN_TESTS").unwrap_or(300) as usize,
        var("GPUMC_GEN_SEED").unwrap_or(0x5eed),
    )
}

fn run_gen(arch: Arch, property_races: bool, seed_salt: u64, mutate: Mutate, symmetric: bool) {
    let Some(model) = model(arch) else { return };
    let (n, seed) = tests_and_seed();
    let mut r = Rng((seed ^ seed_salt).max(1));
    let (mut checked, mut skipped, mut mismatches, mut undefined) = (0, 0, 0, 0);
    let mut reduced = 0;
    // Safety: tests in which no execution is left (every one assumed away).
    let mut vacuous = 0;
    let mut disagree = Vec::new();
    for i in 0..n {
        let threads = 2 + r.below(2);
        let locs = if r.chance(50) {
            vec!["x", "y"]
        } else {
            vec!["x"]
        };
        let g = Gen {
            arch,
            threads,
            locs,
            symmetric,
            lock_loops: false,
        };
        let src = g.test(&mut r);
        let path = std::path::Path::new("gen.litmus");
        let Ok(mut p) = gpumc::frontend::litmus::parse(&src, path) else {
            skipped += 1;
            continue;
        };
        match mutate {
            Mutate::None => {}
            Mutate::Indexed => index_some(&mut p, &mut r),
            Mutate::Undefined => undefine_some(&mut p, &mut r),
            Mutate::Assumed => assume_some(&mut p, &mut r),
        }
        let opts = Options {
            bound: 1 + r.below(2) as u32,
            // Every state (the explicit engine lists them all).
            max_states: Some(1 << 20),
            ..Options::default()
        };
        if !small_enough(&p, opts.bound) {
            skipped += 1;
            continue;
        }
        let kept = if property_races {
            vec![]
        } else {
            gpumc::engine::safety::observables(&p)
        };
        reduced += usize::from(!gpumc::engine::symmetry::groups(&p, &kept).is_empty());
        let t0 = std::time::Instant::now();
        // Verdicts, and whether undefined behaviour decided them.
        let (e, s) = if property_races {
            (
                races::check(&p, &model, &opts).map(Outcome::races),
                symbolic::check_races_stats(&p, &model, &opts).map(|(x, st)| {
                    mismatches += st.mismatches;
                    Outcome::races(x)
                }),
            )
        } else {
            (
                safety::check(&p, &model, &opts).map(Outcome::safety),
                symbolic::check_safety_stats(&p, &model, &opts).map(|(x, st)| {
                    mismatches += st.mismatches;
                    Outcome::safety(x)
                }),
            )
        };
        if std::env::var_os("GPUMC_GEN_VERBOSE").is_some() && t0.elapsed().as_secs_f64() > 1.0 {
            eprintln!("#{i} took {:?} (bound {})\n{src}", t0.elapsed(), opts.bound);
        }
        match (e, s) {
            (Ok(a), Ok(b)) => {
                checked += 1;
                undefined += usize::from(a.ub);
                vacuous += usize::from(!a.ub && a.states.as_ref().is_some_and(|s| s.is_empty()));
                if a != b {
                    disagree.push(format!(
                        "#{i} (bound {}): explicit {a:?}, symbolic {b:?}\n{src}{}",
                        opts.bound,
                        if mutate != Mutate::None {
                            format!("\n{p:#?}")
                        } else {
                            String::new()
                        }
                    ));
                }
            }
            (Err(_), Err(_)) => skipped += 1,
            (a, b) => disagree.push(format!("#{i}: explicit {a:?}, symbolic {b:?}\n{src}")),
        }
    }
    eprintln!(
        "{arch:?} {}{}{}: {checked} agree-checked ({undefined} undefined behaviour, {reduced} with interchangeable threads), {skipped} skipped, {} disagree",
        if property_races { "races" } else { "safety" },
        match mutate {
            Mutate::None => "",
            Mutate::Indexed => " indexed",
            Mutate::Undefined => " undefined",
            Mutate::Assumed => " assumed",
        },
        if symmetric { " symmetric" } else { "" },
        disagree.len()
    );
    if symmetric {
        assert!(reduced > checked / 2, "{reduced} of {checked} reduced");
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    assert_eq!(mismatches, 0, "solver models rejected by the evaluator");
    assert!(checked > n / 2, "too many generated tests skipped");
    if mutate == Mutate::Assumed && !property_races {
        // Assumptions rule out every execution of some tests, not all.
        assert!(
            vacuous > 0 && vacuous < checked,
            "{vacuous} of {checked} without an execution"
        );
    }
    if matches!(mutate, Mutate::Indexed | Mutate::Undefined) {
        // Undefined behaviour is exercised, and not everywhere.
        assert!(
            undefined > 0 && undefined < checked,
            "{undefined} of {checked}"
        );
    }
}

/// Races in programs with lock loops: the symbolic engine drops futile
/// iterations (docs/SEMANTICS.md, "Futile iterations"); the explicit
/// engine counts them. Where the explicit engine decides, both agree;
/// the reduced verdict never contradicts the unreduced symbolic one at a
/// bound two higher; and the reduction decides tests the bound leaves
/// open without it.
fn run_futile(arch: Arch, seed_salt: u64) {
    let Some(model) = model(arch) else { return };
    let (n, seed) = tests_and_seed();
    let mut r = Rng((seed ^ seed_salt).max(1));
    let (mut checked, mut decided_more, mut skipped) = (0, 0, 0);
    let mut disagree = Vec::new();
    for i in 0..n {
        let g = Gen {
            arch,
            threads: 2 + r.below(2),
            locs: if r.chance(50) {
                vec!["x", "y"]
            } else {
                vec!["x"]
            },
            symmetric: false,
            lock_loops: true,
        };
        let src = g.test(&mut r);
        let Ok(p) = gpumc::frontend::litmus::parse(&src, std::path::Path::new("gen.litmus")) else {
            skipped += 1;
            continue;
        };
        let bound = 1 + r.below(2) as u32;
        if !small_enough(&p, bound) {
            skipped += 1;
            continue;
        }
        let opts = |bound, futile_drop| Options {
            bound,
            futile_drop,
            ..Options::default()
        };
        let explicit = races::check(&p, &model, &opts(bound, false)).map(Outcome::races);
        let reduced = symbolic::check_races(&p, &model, &opts(bound, true)).map(Outcome::races);
        let higher = symbolic::check_races(&p, &model, &opts(bound + 2, false)).map(Outcome::races);
        let (Ok(e), Ok(s), Ok(h)) = (explicit, reduced, higher) else {
            skipped += 1;
            continue;
        };
        checked += 1;
        let open = |o: &Outcome| o.verdict == Verdict::Unknown;
        let contradicts = |a: &Outcome, b: &Outcome| {
            matches!(
                (a.verdict, b.verdict),
                (Verdict::Pass, Verdict::Fail) | (Verdict::Fail, Verdict::Pass)
            )
        };
        if (!open(&e) && e != s) || contradicts(&s, &h) {
            disagree.push(format!(
                "#{i} (bound {bound}): explicit {e:?}, reduced {s:?}, unreduced at bound {} {h:?}\n{src}",
                bound + 2
            ));
        }
        decided_more += usize::from(open(&e) && !open(&s));
    }
    eprintln!(
        "{arch:?} races with lock loops: {checked} checked, {decided_more} decided only with futile iterations dropped, {skipped} skipped, {} disagree",
        disagree.len()
    );
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    assert!(checked > n / 2, "too many generated tests skipped");
    assert!(decided_more > 0, "the reduction never decided an open test");
}

#[test]
fn generated_ptx_races_futile() {
    run_futile(Arch::Ptx, 11);
}

#[test]
fn generated_vulkan_races_futile() {
    run_futile(Arch::Vulkan, 12);
}

#[test]
fn generated_ptx_safety() {
    run(Arch::Ptx, false, 1);
}

#[test]
fn generated_ptx_races() {
    run(Arch::Ptx, true, 2);
}

#[test]
fn generated_vulkan_safety() {
    run(Arch::Vulkan, false, 3);
}

#[test]
fn generated_vulkan_races() {
    run(Arch::Vulkan, true, 4);
}

#[test]
fn generated_vulkan_safety_indexed() {
    run_with(Arch::Vulkan, false, 5, Mutate::Indexed);
}

#[test]
fn generated_ptx_races_indexed() {
    run_with(Arch::Ptx, true, 6, Mutate::Indexed);
}

#[test]
fn generated_vulkan_races_indexed() {
    run_with(Arch::Vulkan, true, 7, Mutate::Indexed);
}

#[test]
fn generated_symmetric_ptx_races() {
    run_gen(Arch::Ptx, true, 8, Mutate::None, true);
}

#[test]
fn generated_symmetric_ptx_safety() {
    run_gen(Arch::Ptx, false, 9, Mutate::None, true);
}

#[test]
fn generated_symmetric_vulkan_races() {
    run_gen(Arch::Vulkan, true, 10, Mutate::None, true);
}

#[test]
fn generated_symmetric_vulkan_safety() {
    run_gen(Arch::Vulkan, false, 11, Mutate::None, true);
}

#[test]
fn generated_ptx_safety_ub() {
    run_with(Arch::Ptx, false, 12, Mutate::Undefined);
}

#[test]
fn generated_ptx_races_ub() {
    run_with(Arch::Ptx, true, 13, Mutate::Undefined);
}

#[test]
fn generated_vulkan_safety_ub() {
    run_with(Arch::Vulkan, false, 14, Mutate::Undefined);
}

#[test]
fn generated_vulkan_races_ub() {
    run_with(Arch::Vulkan, true, 15, Mutate::Undefined);
}

#[test]
fn generated_ptx_safety_assumed() {
    run_with(Arch::Ptx, false, 16, Mutate::Assumed);
}

#[test]
fn generated_vulkan_safety_assumed() {
    run_with(Arch::Vulkan, false, 17, Mutate::Assumed);
}

#[test]
fn generated_ptx_races_assumed() {
    run_with(Arch::Ptx, true, 18, Mutate::Assumed);
}

#[test]
fn generated_vulkan_races_assumed() {
    run_with(Arch::Vulkan, true, 19, Mutate::Assumed);
}

/// A test whose threads may spin with RMWs that store back what they
/// read (`atom.add r, x, 0`), between random instructions.
fn spinning_rmw_test(g: &Gen, r: &mut Rng) -> String {
    let cols: Vec<Vec<String>> = (0..g.threads)
        .map(|t| {
            let mut c = Vec::new();
            let loc = r.pick(&g.locs);
            if r.chance(50) {
                let l = r.pick(&g.locs);
                c.push(g.instr(r, "r0", l, false));
            }
            if r.chance(70) {
                let s = g.scope(r);
                c.push(format!("LC{t}0:"));
                c.push(match g.arch {
                    Arch::Ptx | Arch::C => format!("atom.relaxed.{s}.add r1, {loc}, 0"),
                    Arch::Vulkan => format!("rmw.atom.{s}.sc0.add r1, {loc}, 0"),
                });
                c.push(format!("bne r1, {}, LC{t}0", 1 + r.below(2)));
            }
            let l = r.pick(&g.locs);
            c.push(g.instr(r, "r2", l, false));
            c
        })
        .collect();
    let table: Vec<Vec<String>> = cols
        .into_iter()
        .enumerate()
        .map(|(t, c)| {
            let mut col = vec![match g.arch {
                Arch::Ptx | Arch::C => format!("P{t}@cta {},gpu 0", r.below(2)),
                Arch::Vulkan => format!("P{t}@sg {},wg {},qf 0", r.below(2), r.below(2)),
            }];
            col.extend(c);
            col
        })
        .collect();
    let head = match g.arch {
        Arch::Ptx | Arch::C => "PTX",
        Arch::Vulkan => "Vulkan",
    };
    format!(
        "{head} spin\n{{ x=0; y=0; }}\n{}exists (x == 9)\n",
        gpumc::gen::columns(&table)
    )
}

/// The race verdicts `engine::bound_free` decides for every bound, held
/// against larger bounds: a generated test whose race check at bound 1
/// found no race but cut an execution, and which that module declares
/// bound-free, shows no race at bounds 2 and 3 either (explicit engine).
#[test]
fn bound_free_race_verdicts_hold_at_larger_bounds() {
    let n: usize = std::env::var("GPUMC_GEN_TESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    for arch in [Arch::Ptx, Arch::Vulkan] {
        let Some(model) = model(arch) else { return };
        let mut r = Rng(0xb0_0d ^ n as u64);
        let (mut decided, mut checked, mut unknown) = (0, 0, 0);
        for _ in 0..n {
            let g = Gen {
                arch,
                threads: 2 + r.below(2),
                locs: vec!["x", "y"],
                symmetric: false,
                lock_loops: false,
            };
            let src = spinning_rmw_test(&g, &mut r);
            let p = gpumc::frontend::litmus::parse(&src, std::path::Path::new("g.litmus"))
                .unwrap_or_else(|e| panic!("{e}\n{src}"));
            if !small_enough(&p, 3) {
                continue;
            }
            let at = |bound| {
                let o = Options {
                    bound,
                    ..Options::default()
                };
                races::check(&p, &model, &o)
            };
            let Ok(first) = at(1) else { continue };
            if first.verdict != Verdict::Unknown {
                continue;
            }
            unknown += 1;
            let Ok(Some(_)) = gpumc::engine::bound_free::races_bound_free(&p, &model) else {
                continue;
            };
            decided += 1;
            for bound in [2, 3] {
                if let Ok(x) = at(bound) {
                    checked += 1;
                    assert_ne!(x.verdict, Verdict::Fail, "bound {bound}:\n{src}");
                }
            }
        }
        eprintln!(
            "{arch:?}: {unknown} race checks cut at bound 1, {decided} declared bound-free, {checked} re-checks at bounds 2 and 3"
        );
        assert!(decided > 0 && checked > 0, "{decided} {checked}");
    }
}
