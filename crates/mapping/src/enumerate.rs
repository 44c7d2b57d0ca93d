//! Every source program up to a number of events, once per symmetry class.
//!
//! A source program's threads are loads, stores, read-modify-writes (two
//! events: a read and a write) and fences, each access of a location, each
//! atomic with a memory order and a scope, each thread placed in a CTA of a
//! GPU; an instruction that reads may be followed by a branch on the value
//! it read, which the rest of its thread depends on (a control dependency). Two programs that differ only by the
//! order of their threads, the names of their locations or the names of
//! their CTAs and GPUs are the same program; [`programs`] yields one of
//! them (the canonical one, [`is_canonical`]).
//!
//! The event count is the paper's bound (Lustig et al., ASPLOS'19, Fig. 17:
//! "Bound = N Events", Alloy's bound on the source `Event` signature):
//! reads, writes and fences each count one, an RMW counts two (its read and
//! its write), initial writes do not count.

use std::cmp::Ordering;

/// The kind of a source instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    Load,
    Store,
    Rmw,
    Fence,
    /// A compare-exchange whose comparison fails: its read alone, with
    /// its failure order (C11 7.17.7.4), which is also its success order
    /// here (the expected value is one no write writes).
    CasFail,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Load, Op::Store, Op::Rmw, Op::Fence, Op::CasFail];

    /// The kind of a shape's slot that stands for this kind (the symbolic
    /// search leaves the rest open): a failing compare-exchange is a read,
    /// so a load slot stands for it too and the shapes do not multiply.
    pub fn shape_kind(self) -> Op {
        match self {
            Op::CasFail => Op::Load,
            k => k,
        }
    }

    /// Whether the instruction reads (a branch may test what it read).
    pub fn reads(self) -> bool {
        matches!(self, Op::Load | Op::Rmw | Op::CasFail)
    }

    /// Events the instruction produces (the paper's bound counts them).
    pub fn events(self) -> usize {
        match self {
            Op::Rmw => 2,
            _ => 1,
        }
    }

    /// The memory orders the scoped C11 model gives this kind (Lustig et
    /// al., ASPLOS'19, Fig. 10a; RMWs as in its Fig. 11). A relaxed fence
    /// is no fence; `memory_order_consume` is an acquire.
    pub fn orders(self) -> &'static [MemOrder] {
        use MemOrder::*;
        match self {
            Op::Load => &[Na, Rlx, Acq, Sc],
            Op::Store => &[Na, Rlx, Rel, Sc],
            Op::Rmw => &[Rlx, Acq, Rel, AcqRel, Sc],
            Op::Fence => &[Acq, Rel, AcqRel, Sc],
            // A failure order is never release or acq_rel (C11 7.17.7.4).
            Op::CasFail => &[Rlx, Acq, Sc],
        }
    }
}

/// A C11 memory order; `Na` is a plain (non-atomic) access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemOrder {
    Na,
    Rlx,
    Acq,
    Rel,
    AcqRel,
    Sc,
}

impl MemOrder {
    /// The tag of docs/EVENTS.md (C section).
    pub fn tag(self) -> &'static str {
        match self {
            MemOrder::Na => "NA",
            MemOrder::Rlx => "RLX",
            MemOrder::Acq => "ACQ",
            MemOrder::Rel => "REL",
            MemOrder::AcqRel => "ACQ_REL",
            MemOrder::Sc => "SC",
        }
    }

    /// The C spelling (`memory_order_acquire`).
    pub fn c_name(self) -> &'static str {
        match self {
            MemOrder::Na => "na",
            MemOrder::Rlx => "memory_order_relaxed",
            MemOrder::Acq => "memory_order_acquire",
            MemOrder::Rel => "memory_order_release",
            MemOrder::AcqRel => "memory_order_acq_rel",
            MemOrder::Sc => "memory_order_seq_cst",
        }
    }
}

/// The scope of an atomic or fence: the threads of its CTA, of its GPU,
/// or of the system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Cta,
    Gpu,
    Sys,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

    /// The tag of docs/EVENTS.md.
    pub fn tag(self) -> &'static str {
        match self {
            Scope::Cta => "CTA",
            Scope::Gpu => "GPU",
            Scope::Sys => "SYS",
        }
    }
}

/// A branch after an instruction that reads: the rest of the thread runs
/// only if the value read equals the branch's value (`if (r0 == 1) { … }`);
/// every later event of the thread is control-dependent on the read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Branch {
    /// The value the execution at hand reads: a program with such a branch
    /// stands for every program whose branch names one value, and is
    /// checked as the family (an execution in which the branch is taken is
    /// an execution of the member that names the value read). A
    /// counterexample is always reported with [`Branch::Value`].
    AnyValue,
    Value(i64),
}

/// One source instruction. `loc` is meaningless for a fence (0);
/// `scope` is `None` exactly for plain accesses; `branch` only follows an
/// instruction that reads ([`Op::reads`]) and is not its thread's last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub op: Op,
    pub order: MemOrder,
    pub scope: Option<Scope>,
    pub loc: u8,
    pub branch: Option<Branch>,
}

impl Instr {
    /// A plain instruction of the given kind, order, scope and location,
    /// without a branch.
    pub fn new(op: Op, order: MemOrder, scope: Option<Scope>, loc: u8) -> Instr {
        Instr {
            op,
            order,
            scope,
            loc,
            branch: None,
        }
    }

    /// A small number that orders instructions, given the (renamed)
    /// location. (A branch's value is not part of it: the enumeration only
    /// makes [`Branch::AnyValue`].)
    fn code(&self, loc: u8) -> u32 {
        let scope = self.scope.map_or(0, |s| s as u32 + 1);
        let kind = ((self.op as u32 * 6 + self.order as u32) * 4 + scope) * 2
            + self.branch.is_some() as u32;
        (kind << 8) | loc as u32
    }
}

/// A thread: its place (GPU and CTA numbers; a CTA number names one CTA
/// of the whole program) and its instructions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    pub gpu: u8,
    pub cta: u8,
    pub instrs: Vec<Instr>,
}

impl Thread {
    pub fn events(&self) -> usize {
        self.instrs.iter().map(|i| i.op.events()).sum()
    }
}

/// A source program of the enumeration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    pub threads: Vec<Thread>,
}

impl Source {
    pub fn events(&self) -> usize {
        self.threads.iter().map(Thread::events).sum()
    }

    /// Number of distinct locations.
    pub fn locations(&self) -> usize {
        self.threads
            .iter()
            .flat_map(|t| &t.instrs)
            .filter(|i| i.op != Op::Fence)
            .map(|i| i.loc as usize + 1)
            .max()
            .unwrap_or(0)
    }
}

/// What to enumerate.
#[derive(Clone, Debug)]
pub struct Space {
    /// At most this many events (the paper's bound).
    pub events: usize,
    /// The paper's "de-scoped" models: every atomic and fence at system
    /// scope, every thread in its own CTA of one GPU (placement then does
    /// not matter).
    pub descoped: bool,
    /// Give an atomic only the smallest scope among those that contain the
    /// same threads (a CTA scope and a GPU scope are the same when the
    /// thread's GPU holds no other CTA with a thread). Sound only when the
    /// models see scopes through scope inclusion alone and the mapping
    /// treats every scope alike (`crate::check` decides).
    pub normalize_scopes: bool,
    /// Instruction kinds to use (all five by default).
    pub ops: Vec<Op>,
    /// Enumerate shapes only: each instruction gets one placeholder order
    /// (its kind's first) and no scope; the symbolic search leaves orders
    /// and scopes open, and whether a load is a failing compare-exchange.
    pub shapes: bool,
    /// One placement per program (every thread its own CTA of one GPU):
    /// the symbolic search leaves placement open.
    pub open_placement: bool,
    /// Branches on read values (control dependencies): each instruction
    /// that reads and is not its thread's last is also enumerated with a
    /// [`Branch::AnyValue`] after it; in shapes the branch is left open
    /// (the symbolic search). Only worth it when a model reads `ctrl`
    /// ([`crate::uses_ctrl`]): otherwise a taken branch changes nothing
    /// the models see.
    pub branches: bool,
    /// Seq_cst loads and stores (RMWs and fences keep `SC` either way).
    /// Without them the space is the one of Lustig et al.'s Alloy model,
    /// whose reads are NA, RLX or ACQ and writes NA, RLX or REL: their
    /// Theorem 3 first rewrites an SC access as an SC fence and an
    /// acquire or release access.
    pub sc_accesses: bool,
}

impl Space {
    /// The orders an instruction kind takes in this space.
    pub fn orders(&self, op: Op) -> Vec<MemOrder> {
        op.orders()
            .iter()
            .copied()
            .filter(|&o| {
                self.sc_accesses || o != MemOrder::Sc || !matches!(op, Op::Load | Op::Store)
            })
            .collect()
    }
}

impl Space {
    pub fn new(events: usize) -> Space {
        Space {
            events,
            descoped: false,
            normalize_scopes: false,
            ops: Op::ALL.to_vec(),
            shapes: false,
            open_placement: false,
            branches: false,
            sc_accesses: true,
        }
    }
}

/// Calls `f` with every canonical source program of `space` (with 1 to
/// `space.events` events), in a fixed order; stops when `f` returns false.
/// Returns false if stopped.
pub fn programs(space: &Space, f: &mut dyn FnMut(&Source) -> bool) -> bool {
    for_each_size_vector(space.events, &mut |sizes| {
        let single = space.descoped || space.open_placement;
        for_each_placement(sizes.len(), single, &mut |place| {
            let mut g = Gen {
                space,
                sizes,
                place,
                threads: Vec::new(),
                next_loc: 0,
                f,
            };
            g.thread(0)
        })
    })
}

/// Non-increasing vectors of thread sizes (events per thread, each at
/// least 1) with a sum of at most `max`, smaller sums first (so the first
/// counterexample a search finds is one of the fewest events).
fn for_each_size_vector(max: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    fn go(
        left: usize,
        cap: usize,
        cur: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if left == 0 {
            return f(cur);
        }
        for s in (1..=cap.min(left)).rev() {
            cur.push(s);
            let ok = go(left - s, s, cur, f);
            cur.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    (1..=max).all(|total| go(total, total, &mut Vec::new(), f))
}

/// A callback over placements ((gpu, cta) per thread); false stops.
type PlacementFn<'a> = dyn FnMut(&[(u8, u8)]) -> bool + 'a;

/// Placements of `k` threads: (gpu, cta) per thread with GPUs and CTAs
/// numbered in order of first appearance (a CTA lies in one GPU); with
/// `single`, one: every thread its own CTA of GPU 0.
fn for_each_placement(k: usize, single: bool, f: &mut PlacementFn<'_>) -> bool {
    if single {
        let p: Vec<(u8, u8)> = (0..k).map(|t| (0, t as u8)).collect();
        return f(&p);
    }
    fn go(
        k: usize,
        cur: &mut Vec<(u8, u8)>,
        cta_gpu: &mut Vec<u8>,
        gpus: u8,
        f: &mut PlacementFn<'_>,
    ) -> bool {
        if cur.len() == k {
            return f(cur);
        }
        // An existing CTA, or a new CTA in an existing or a new GPU.
        for c in 0..cta_gpu.len() {
            cur.push((cta_gpu[c], c as u8));
            let ok = go(k, cur, cta_gpu, gpus, f);
            cur.pop();
            if !ok {
                return false;
            }
        }
        for g in 0..=gpus {
            let c = cta_gpu.len() as u8;
            cta_gpu.push(g);
            cur.push((g, c));
            let ok = go(k, cur, cta_gpu, gpus.max(g + 1), f);
            cur.pop();
            cta_gpu.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    go(k, &mut Vec::new(), &mut Vec::new(), 0, f)
}

struct Gen<'a, 'f> {
    space: &'a Space,
    sizes: &'a [usize],
    place: &'a [(u8, u8)],
    threads: Vec<Thread>,
    next_loc: u8,
    f: &'f mut dyn FnMut(&Source) -> bool,
}

impl Gen<'_, '_> {
    /// The scopes an atomic of thread `t` may take.
    fn scopes(&self, t: usize) -> Vec<Scope> {
        if self.space.descoped {
            return vec![Scope::Sys];
        }
        if !self.space.normalize_scopes {
            return Scope::ALL.to_vec();
        }
        // The threads each scope contains, as bit sets; keep the smallest
        // scope of each distinct set.
        let (g, c) = self.place[t];
        let set = |s: Scope| -> u32 {
            self.place
                .iter()
                .enumerate()
                .filter(|(_, &(g2, c2))| match s {
                    Scope::Cta => c2 == c,
                    Scope::Gpu => g2 == g,
                    Scope::Sys => true,
                })
                .fold(0, |m, (i, _)| m | 1 << i)
        };
        let mut out = vec![Scope::Cta];
        if set(Scope::Gpu) != set(Scope::Cta) {
            out.push(Scope::Gpu);
        }
        if set(Scope::Sys) != set(Scope::Gpu) {
            out.push(Scope::Sys);
        }
        out
    }

    fn thread(&mut self, t: usize) -> bool {
        if t == self.sizes.len() {
            let p = Source {
                threads: self.threads.clone(),
            };
            if is_canonical(&p) {
                return (self.f)(&p);
            }
            return true;
        }
        let (gpu, cta) = self.place[t];
        self.threads.push(Thread {
            gpu,
            cta,
            instrs: Vec::new(),
        });
        let scopes = self.scopes(t);
        let ok = self.instr(t, self.sizes[t], &scopes);
        self.threads.pop();
        ok
    }

    fn instr(&mut self, t: usize, left: usize, scopes: &[Scope]) -> bool {
        if left == 0 {
            return self.thread(t + 1);
        }
        for &op in &self.space.ops.clone() {
            // A shape has slots of the kinds that stand for others
            // (`Op::shape_kind`) only.
            if op.events() > left || (self.space.shapes && op.shape_kind() != op) {
                continue;
            }
            let locs: Vec<u8> = if op == Op::Fence {
                vec![0]
            } else {
                (0..=self.next_loc).collect()
            };
            let mut orders = self.space.orders(op);
            if self.space.shapes {
                orders.truncate(1);
            }
            for order in orders {
                let sc: Vec<Option<Scope>> = if order == MemOrder::Na || self.space.shapes {
                    vec![None]
                } else {
                    scopes.iter().map(|&s| Some(s)).collect()
                };
                // A branch after a read that is not the thread's last
                // (shapes leave it open).
                let branches: &[Option<Branch>] = if self.space.branches
                    && !self.space.shapes
                    && op.reads()
                    && left > op.events()
                {
                    &[None, Some(Branch::AnyValue)]
                } else {
                    &[None]
                };
                for &scope in &sc {
                    for &loc in &locs {
                        for &branch in branches {
                            let saved = self.next_loc;
                            if op != Op::Fence && loc == self.next_loc {
                                self.next_loc += 1;
                            }
                            self.threads[t].instrs.push(Instr {
                                branch,
                                ..Instr::new(op, order, scope, loc)
                            });
                            let ok = self.instr(t, left - op.events(), scopes);
                            self.threads[t].instrs.pop();
                            self.next_loc = saved;
                            if !ok {
                                return false;
                            }
                        }
                    }
                }
            }
        }
        true
    }
}

/// The renaming of locations, GPUs and CTAs built along a thread order.
#[derive(Clone)]
struct Renaming {
    loc: [u8; 16],
    next_loc: u8,
    gpu: [u8; 16],
    next_gpu: u8,
    cta: [u8; 16],
    next_cta: u8,
}

const UNSET: u8 = u8::MAX;

impl Renaming {
    fn new() -> Renaming {
        Renaming {
            loc: [UNSET; 16],
            next_loc: 0,
            gpu: [UNSET; 16],
            next_gpu: 0,
            cta: [UNSET; 16],
            next_cta: 0,
        }
    }

    fn name(map: &mut [u8; 16], next: &mut u8, x: u8) -> u8 {
        if map[x as usize] == UNSET {
            map[x as usize] = *next;
            *next += 1;
        }
        map[x as usize]
    }

    /// The code of thread `th` under this renaming (extending it):
    /// larger threads first, then placement, then instructions.
    fn code(&mut self, th: &Thread, out: &mut Vec<u32>) {
        out.clear();
        out.push(u32::MAX - th.events() as u32);
        let g = Self::name(&mut self.gpu, &mut self.next_gpu, th.gpu);
        let c = Self::name(&mut self.cta, &mut self.next_cta, th.cta);
        out.push((g as u32) << 8 | c as u32);
        out.push(th.instrs.len() as u32);
        for i in &th.instrs {
            let l = if i.op == Op::Fence {
                0
            } else {
                Self::name(&mut self.loc, &mut self.next_loc, i.loc)
            };
            out.push(i.code(l));
        }
    }
}

/// Whether `p` is the least of its symmetry class: no order of its
/// threads, with locations, GPUs and CTAs renamed in order of first
/// appearance, gives a smaller code. `p` itself must be named in order of
/// first appearance (as [`programs`] builds it).
pub fn is_canonical(p: &Source) -> bool {
    let k = p.threads.len();
    // p's own code, thread by thread.
    let mut own = Vec::with_capacity(k);
    let mut r = Renaming::new();
    for th in &p.threads {
        let mut c = Vec::new();
        r.code(th, &mut c);
        own.push(c);
    }
    // Search for a thread order with a smaller code.
    fn smaller(p: &Source, own: &[Vec<u32>], used: u32, depth: usize, r: &Renaming) -> bool {
        if depth == own.len() {
            return false;
        }
        let mut buf = Vec::new();
        for (t, th) in p.threads.iter().enumerate() {
            if used >> t & 1 == 1 {
                continue;
            }
            let mut r2 = r.clone();
            r2.code(th, &mut buf);
            match buf.cmp(&own[depth]) {
                Ordering::Less => return true,
                Ordering::Greater => {}
                Ordering::Equal => {
                    if smaller(p, own, used | 1 << t, depth + 1, &r2) {
                        return true;
                    }
                }
            }
        }
        false
    }
    !smaller(p, &own, 0, 0, &Renaming::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn all(space: &Space) -> Vec<Source> {
        let mut v = Vec::new();
        programs(space, &mut |p| {
            v.push(p.clone());
            true
        });
        v
    }

    /// Canonical form by brute force: the least code over all thread
    /// permutations.
    fn brute_canon(p: &Source) -> Vec<Vec<u32>> {
        let k = p.threads.len();
        let mut perm: Vec<usize> = (0..k).collect();
        let mut best: Option<Vec<Vec<u32>>> = None;
        fn heap(perm: &mut Vec<usize>, i: usize, p: &Source, best: &mut Option<Vec<Vec<u32>>>) {
            if i == perm.len() {
                let mut r = Renaming::new();
                let code: Vec<Vec<u32>> = perm
                    .iter()
                    .map(|&t| {
                        let mut c = Vec::new();
                        r.code(&p.threads[t], &mut c);
                        c
                    })
                    .collect();
                if best.as_ref().is_none_or(|b| code < *b) {
                    *best = Some(code);
                }
                return;
            }
            for j in i..perm.len() {
                perm.swap(i, j);
                heap(perm, i + 1, p, best);
                perm.swap(i, j);
            }
        }
        heap(&mut perm, 0, p, &mut best);
        best.unwrap()
    }

    #[test]
    fn each_class_once_and_every_class() {
        // Small space: 3 events, loads and stores only.
        let mut space = Space::new(3);
        space.ops = vec![Op::Load, Op::Store];
        let progs = all(&space);
        let mut seen = HashSet::new();
        for p in &progs {
            assert!(p.events() <= 3 && p.events() >= 1);
            assert!(
                seen.insert(brute_canon(p)),
                "two programs of one class: {p:?}"
            );
        }
        // Every class is reached: enumerate raw programs of two threads
        // (sizes 2 and 1) by brute force and check their classes appear.
        let mut raw = 0;
        for a in [Op::Load, Op::Store] {
            for b in [Op::Load, Op::Store] {
                for c in [Op::Load, Op::Store] {
                    for la in 0..2u8 {
                        for lc in 0..3u8 {
                            for place in [[(0, 0), (0, 0)], [(0, 0), (0, 1)], [(0, 0), (1, 1)]] {
                                let mk =
                                    |op, loc| Instr::new(op, MemOrder::Rlx, Some(Scope::Sys), loc);
                                let p = Source {
                                    threads: vec![
                                        Thread {
                                            gpu: place[0].0,
                                            cta: place[0].1,
                                            instrs: vec![mk(a, 0), mk(b, la)],
                                        },
                                        Thread {
                                            gpu: place[1].0,
                                            cta: place[1].1,
                                            instrs: vec![mk(c, lc)],
                                        },
                                    ],
                                };
                                raw += 1;
                                assert!(seen.contains(&brute_canon(&p)), "missing {p:?}");
                            }
                        }
                    }
                }
            }
        }
        assert!(raw > 0);
    }

    #[test]
    fn branches_follow_reads_that_are_not_last_each_class_once() {
        let mut space = Space::new(3);
        space.ops = vec![Op::Load, Op::Store, Op::Rmw];
        let plain = all(&space);
        space.branches = true;
        let with = all(&space);
        let mut seen = HashSet::new();
        let mut branched = 0;
        for p in &with {
            assert!(
                seen.insert(brute_canon(p)),
                "two programs of one class: {p:?}"
            );
            for th in &p.threads {
                for (k, i) in th.instrs.iter().enumerate() {
                    if let Some(b) = i.branch {
                        assert!(i.op.reads() && k + 1 < th.instrs.len(), "{p:?}");
                        assert_eq!(b, Branch::AnyValue);
                        branched += 1;
                    }
                }
            }
        }
        // Every straight-line program is still there, and some branch.
        for p in &plain {
            assert!(seen.contains(&brute_canon(p)), "missing {p:?}");
        }
        assert!(branched > 0 && with.len() > plain.len());
    }

    #[test]
    fn descoped_and_normalized_are_smaller() {
        let count = |s: &Space| all(s).len();
        let full = Space::new(3);
        let mut norm = Space::new(3);
        norm.normalize_scopes = true;
        let mut de = Space::new(3);
        de.descoped = true;
        let (f, n, d) = (count(&full), count(&norm), count(&de));
        assert!(d < n && n < f, "{d} {n} {f}");
    }
}
