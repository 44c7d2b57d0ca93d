//! The events of one combination of thread paths, and the base sets and
//! relations that do not depend on rf/co/barrier/fence choices.

use super::paths::{PathEnd, PathEventKind, ThreadPath};
use crate::ir::{Arch, LocId, Program};
use crate::rel::{EventSet, Relation};
pub use gpumc_core::vocab::{base_kind, Vocabulary, BASE_RELATIONS, BASE_TAGS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Init,
    Read,
    Write,
    Fence,
    Barrier,
}

/// An event of a candidate execution.
#[derive(Clone, Debug)]
pub struct Event {
    /// `None` for initial writes.
    pub thread: Option<usize>,
    /// Index in the thread path (initial writes: index of the location).
    pub index: usize,
    /// Producing instruction (`None` for initial writes).
    pub instr: Option<usize>,
    pub kind: EventKind,
    /// Virtual address (initial writes: the physical location).
    pub loc: Option<LocId>,
    /// Physical location.
    pub phys: Option<LocId>,
    pub value: i64,
    /// Indices into [`Vocabulary::tags`].
    pub tags: Vec<usize>,
    /// Barrier: runtime id, quorum, arrive-only; and whether the thread
    /// waits here forever in this path.
    pub barrier: Option<(i64, Option<i64>, bool)>,
    pub stuck: bool,
}

/// Whether event `k` of `path` is a read that no write of the path
/// completes (the write of an RMW comes right after its read): for a
/// compare-and-swap, one that failed. (True of plain loads too; only a
/// compare-and-swap has failure tags of its own.)
pub fn failed_cas(path: &ThreadPath, k: usize) -> bool {
    path.events[k].kind == PathEventKind::Read
        && path.events.get(k + 1).is_none_or(|w| w.rmw_read != Some(k))
}

/// The scope instance whose barriers thread `th` synchronises with (PTX:
/// its CTA; Vulkan: its workgroup), as its placement's ids from that
/// level up.
pub fn barrier_instance(p: &Program, th: usize) -> Vec<i64> {
    instance_ids(p, th).to_vec()
}

/// [`barrier_instance`], borrowed.
fn instance_ids(p: &Program, th: usize) -> &[i64] {
    let level = match p.arch {
        Arch::Ptx | Arch::C => 0,
        Arch::Vulkan => 1,
    };
    let ids = &p.threads[th].placement.ids;
    &ids[level.min(ids.len())..]
}

/// Whether a barrier of `p` without a thread count waits for every
/// thread of its block (a warp barrier: of its warp) that has not exited:
/// in a kernel (PTX `bar.sync`, `bar.warp.sync`: "wait for non-exited
/// threads … to arrive"; an exiting thread releases a barrier it alone
/// held up). A litmus test's barrier releases the threads that arrive
/// (Dat3M's reading, docs/SEMANTICS.md "Barriers").
pub fn waits_for_block(p: &Program) -> bool {
    p.kernel
}

/// The threads a kernel's barrier group (`key`: the scope instance of
/// [`barrier_instance`]; `id`: the arrival's runtime id) waits for: the
/// block's, or for a warp barrier ([`crate::ir::WARP_BARRIER_IDS`]) the
/// warp's.
pub fn barrier_threads(p: &Program, key: &[i64], id: i64) -> Vec<usize> {
    let warp =
        (id >= crate::ir::WARP_BARRIER_IDS).then(|| (id - crate::ir::WARP_BARRIER_IDS) >> 20);
    (0..p.threads.len())
        .filter(|&t| {
            instance_ids(p, t) == key
                && warp.is_none_or(|w| p.threads[t].placement.warp.is_none_or(|tw| tw == w))
        })
        .collect()
}

impl Event {
    /// The initial write of physical location `li` (tags `IW I W M`).
    pub fn init(li: usize, value: i64, tags: Vec<usize>) -> Event {
        Event {
            thread: None,
            index: li,
            instr: None,
            kind: EventKind::Init,
            loc: Some(li),
            phys: Some(li),
            value,
            tags,
            barrier: None,
            stuck: false,
        }
    }
}

/// Events of one path combination plus its static relations.
pub struct Skeleton<'p> {
    pub program: &'p Program,
    pub events: Vec<Event>,
    /// Per physical location: its initial write.
    pub init_of: Vec<Option<usize>>,
    /// Per physical location: the non-initial writes.
    pub writes: Vec<Vec<usize>>,
    /// Reads with their candidate writes (same location and value).
    pub reads: Vec<(usize, Vec<usize>)>,
    /// RMW pairs (read, write).
    pub rmw: Vec<(usize, usize)>,
    /// (event, thread path index) per thread, in program order.
    pub thread_events: Vec<Vec<usize>>,
    /// How each thread's path ended (all `Done` in a pseudo-skeleton):
    /// a kernel's barrier waits for the threads that have not exited.
    pub ends: Vec<PathEnd>,
    pub po: Relation,
    pub addr: Relation,
    pub data: Relation,
    pub ctrl: Relation,
}

impl<'p> Skeleton<'p> {
    pub fn new(p: &'p Program, vocab: &Vocabulary, paths: &[&ThreadPath]) -> Self {
        let mut events = Vec::new();
        let nloc = p.locations.len();
        let mut init_of = vec![None; nloc];
        let (iw, i, w, m) = (
            vocab.index("IW").unwrap(),
            vocab.index("I").unwrap(),
            vocab.index("W").unwrap(),
            vocab.index("M").unwrap(),
        );
        for (li, l) in p.locations.iter().enumerate() {
            if l.phys == li {
                init_of[li] = Some(events.len());
                events.push(Event::init(li, l.init, vec![iw, i, w, m]));
            }
        }
        let tag = |t: &str| vocab.index(t).expect("base tag");
        let (r, rmw_tag) = (tag("R"), tag("RMW"));
        let mut thread_events = Vec::new();
        let mut rmw = Vec::new();
        for (ti, path) in paths.iter().enumerate() {
            let th = &p.threads[ti];
            let base = events.len();
            let mut ids = Vec::new();
            for (k, e) in path.events.iter().enumerate() {
                let ins = &th.instrs[e.instr];
                let write = e.kind == PathEventKind::Write;
                let mut tags: Vec<usize> = if failed_cas(path, k) {
                    ins.failed_read_tags().map(tag).collect()
                } else {
                    ins.event_tags(write).map(tag).collect()
                };
                let is_rmw = matches!(ins.kind, crate::ir::InstrKind::Rmw { .. });
                let kind = match e.kind {
                    PathEventKind::Read => {
                        tags.extend([r, m]);
                        EventKind::Read
                    }
                    PathEventKind::Write => {
                        tags.extend([w, m]);
                        EventKind::Write
                    }
                    PathEventKind::Fence => EventKind::Fence,
                    PathEventKind::Barrier { .. } => EventKind::Barrier,
                };
                if is_rmw {
                    tags.push(rmw_tag);
                }
                tags.sort_unstable();
                tags.dedup();
                if let Some(rd) = e.rmw_read {
                    rmw.push((base + rd, base + k));
                }
                let barrier = match e.kind {
                    PathEventKind::Barrier { id, count, arrive } => Some((id, count, arrive)),
                    _ => None,
                };
                ids.push(events.len());
                events.push(Event {
                    thread: Some(ti),
                    index: k,
                    instr: Some(e.instr),
                    kind,
                    loc: e.loc,
                    phys: e.loc.map(|l| p.locations[l].phys),
                    value: e.value,
                    tags,
                    barrier,
                    stuck: path.end == PathEnd::Stuck && k + 1 == path.events.len(),
                });
            }
            thread_events.push(ids);
        }
        let n = events.len();
        let mut writes = vec![Vec::new(); nloc];
        for (ei, e) in events.iter().enumerate() {
            if e.kind == EventKind::Write {
                writes[e.phys.unwrap()].push(ei);
            }
        }
        let mut reads = Vec::new();
        for (ei, e) in events.iter().enumerate() {
            if e.kind == EventKind::Read {
                let ph = e.phys.unwrap();
                let cands = init_of[ph]
                    .iter()
                    .chain(&writes[ph])
                    .copied()
                    .filter(|&wi| events[wi].value == e.value)
                    .collect();
                reads.push((ei, cands));
            }
        }
        let mut po = Relation::empty(n);
        let mut addr = Relation::empty(n);
        let mut data = Relation::empty(n);
        let mut ctrl = Relation::empty(n);
        for (ti, ids) in thread_events.iter().enumerate() {
            for (a, &ea) in ids.iter().enumerate() {
                for &eb in &ids[a + 1..] {
                    po.insert(ea, eb);
                }
                let pe = &paths[ti].events[a];
                for &d in &pe.addr_deps {
                    addr.insert(ids[d], ea);
                }
                for &d in &pe.data_deps {
                    data.insert(ids[d], ea);
                }
                for &d in &pe.ctrl_deps {
                    ctrl.insert(ids[d], ea);
                }
            }
        }
        Skeleton {
            program: p,
            events,
            init_of,
            writes,
            reads,
            rmw,
            thread_events,
            ends: paths.iter().map(|x| x.end).collect(),
            po,
            addr,
            data,
            ctrl,
        }
    }

    pub fn n(&self) -> usize {
        self.events.len()
    }

    /// Events carrying tag index `t`.
    pub fn tagged(&self, t: usize) -> EventSet {
        EventSet::from_iter(
            self.n(),
            self.events
                .iter()
                .enumerate()
                .filter(|(_, e)| e.tags.contains(&t))
                .map(|(i, _)| i),
        )
    }

    /// The pairs `f` relates, where `f` depends only on the classes of
    /// its events under `class` (events without a class are related to
    /// nothing): `f` is asked once per pair of classes, not per pair of
    /// events (n² grows to millions in kernels of hundreds of threads).
    fn pairs_by<K: std::hash::Hash + Eq>(
        &self,
        class: impl Fn(&Event) -> Option<K>,
        f: impl Fn(&Event, &Event) -> bool,
    ) -> Relation {
        let n = self.n();
        let mut index: std::collections::HashMap<K, usize> = Default::default();
        // (a representative event, the members)
        let mut classes: Vec<(usize, EventSet)> = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            let Some(k) = class(e) else { continue };
            let c = *index.entry(k).or_insert_with(|| {
                classes.push((i, EventSet::empty(n)));
                classes.len() - 1
            });
            classes[c].1.insert(i);
        }
        let mut r = Relation::empty(n);
        for (ra, ma) in &classes {
            for (rb, mb) in &classes {
                if f(&self.events[*ra], &self.events[*rb]) {
                    r.insert_product(ma, mb);
                }
            }
        }
        r
    }

    /// Class of an event for the relations that depend only on its thread
    /// (initial writes: each one alone).
    fn thread_class(e: &Event) -> Option<(Option<usize>, usize)> {
        Some((e.thread, if e.thread.is_none() { e.index } else { 0 }))
    }

    /// The placement ids of an event's thread (`None` for initial writes).
    fn placement(&self, e: &Event) -> Option<&[i64]> {
        e.thread
            .map(|t| self.program.threads[t].placement.ids.as_slice())
    }

    /// Threads of `a` and `b` share the scope instance at `level`.
    fn same_instance(&self, a: &Event, b: &Event, level: usize) -> bool {
        match (self.placement(a), self.placement(b)) {
            (Some(pa), Some(pb)) => {
                let l = level.min(pa.len()).min(pb.len());
                pa[l..] == pb[l..]
            }
            _ => false,
        }
    }

    /// The scope level of an event's scope tag, if any (PTX: CTA 0, GPU 1,
    /// SYS 2, as for C; Vulkan: SG 0, WG 1, QF 2, DV 3).
    pub fn scope_level(&self, e: &Event, vocab: &Vocabulary) -> Option<usize> {
        let names: &[&str] = match self.program.arch {
            Arch::Ptx | Arch::C => &["CTA", "GPU", "SYS"],
            Arch::Vulkan => &["SG", "WG", "QF", "DV"],
        };
        names
            .iter()
            .position(|s| vocab.index(s).is_some_and(|t| e.tags.contains(&t)))
    }

    /// Static base relations by name (`None` for the dynamic ones).
    pub fn static_relation(&self, name: &str, vocab: &Vocabulary) -> Option<Relation> {
        let n = self.n();
        let is_mem = |e: &Event| e.loc.is_some();
        Some(match name {
            "id" => Relation::identity(n),
            "po" => self.po.clone(),
            "int" => self.pairs_by(Self::thread_class, |a, b| {
                a.thread == b.thread && (a.thread.is_some() || a.index == b.index)
            }),
            "ext" => self.pairs_by(Self::thread_class, |a, b| {
                a.thread != b.thread || (a.thread.is_none() && a.index != b.index)
            }),
            "loc" => self.pairs_by(|e| e.phys.filter(|_| is_mem(e)), |a, b| a.phys == b.phys),
            "vloc" => {
                let virt = |e: &Event| e.loc.map(|l| self.program.locations[l].virt);
                self.pairs_by(
                    |e| is_mem(e).then(|| (e.phys, virt(e), e.kind == EventKind::Init)),
                    |a, b| {
                        a.phys == b.phys
                            && (virt(a) == virt(b)
                                || a.kind == EventKind::Init
                                || b.kind == EventKind::Init)
                    },
                )
            }
            "rmw" => Relation::from_pairs(n, self.rmw.iter().copied()),
            "addr" => self.addr.clone(),
            "data" => self.data.clone(),
            "ctrl" => self.ctrl.clone(),
            "sr" => self.pairs_by(
                |e| {
                    self.scope_level(e, vocab)
                        .map(|l| (Self::thread_class(e), l))
                },
                |a, b| match (self.scope_level(a, vocab), self.scope_level(b, vocab)) {
                    (Some(la), Some(lb)) => self.within(a, b, la) && self.within(b, a, lb),
                    _ => false,
                },
            ),
            "scta" | "ssg" => self.pairs_by(Self::thread_class, |a, b| self.same_instance(a, b, 0)),
            "swg" => self.pairs_by(Self::thread_class, |a, b| self.same_instance(a, b, 1)),
            "sqf" => self.pairs_by(Self::thread_class, |a, b| self.same_instance(a, b, 2)),
            "ssw" => {
                let ssw = &self.program.ssw;
                self.pairs_by(Self::thread_class, |a, b| match (a.thread, b.thread) {
                    (Some(x), Some(y)) => ssw.contains(&(x, y)),
                    _ => false,
                })
            }
            _ => return None,
        })
    }

    /// `b`'s thread lies within the scope instance (at `level`) around `a`'s thread.
    pub fn within(&self, a: &Event, b: &Event, level: usize) -> bool {
        let top = self.program.scope_levels().len();
        level >= top || self.same_instance(a, b, level)
    }
}
