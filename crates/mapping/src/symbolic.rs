//! The symbolic search: one SAT query per program *shape* (threads, their
//! placement, the kind and location of each instruction), with the memory
//! order and scope of every instruction left open, and (with
//! [`Space::branches`]) whether a branch on its value follows each read
//! that is not its thread's last: a literal that puts the read in `ctrl`
//! before every later event of the thread, in both programs.
//!
//! The formula holds both executions: the source program's under the
//! source model, with the chosen axiom violated and no race flag firing,
//! and the compiled program's under the target model, every consistency
//! axiom asserted, linked as the explicit search lifts them (the same rf;
//! coherence inside the source's modification order). The compiled
//! program is laid out once per shape: per source instruction, the fences
//! the mapping puts before and after its access for some order and scope
//! are optional events, present for those orders and scopes only; every
//! tag of every event is the disjunction of the order/scope choices that
//! give it. The per-choice sequences and tags come from compiling one
//! instruction at a time ([`Table`]), which assumes the mapping compiles
//! each instruction on its own (a table mapping such as Lustig et al.,
//! ASPLOS'19, Fig. 11); every answer is rebuilt as a concrete program,
//! compiled as a whole and re-checked by the explicit search, so a mapping
//! that is not per-instruction cannot produce a false counterexample.

use crate::engine::exec::{EventKind, Skeleton};
use crate::engine::explicit::Prepared;
use crate::engine::symbolic::open::{encode, Formula, Lit, OpenEvent, OpenStructure, LIT_TRUE};
use crate::enumerate::{Branch, Instr, MemOrder, Op, Scope, Source, Space, Thread};
use crate::explicit::{self, covers, Counterexample, Setup, Stats};
use crate::{source, CompileFn, Result};
use gpumc_core::diag::{Error, ErrorKind};
use std::collections::BTreeMap;

/// Where a target event stands relative to the access it was compiled
/// with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// The k-th of the fences before the access (counted back from it).
    Pre(usize),
    /// The j-th event of the access itself.
    Access(usize),
    /// The k-th fence after the access.
    Post(usize),
}

/// One order/scope choice of an instruction kind.
#[derive(Clone, Debug)]
struct Choice {
    /// The instruction kind the choice makes: the shape's own, or for a
    /// load slot also a failing compare-exchange ([`Op::CasFail`]: a read
    /// too, so one slot holds both and the shapes do not multiply).
    op: Op,
    order: MemOrder,
    scope: Option<Scope>,
    /// Tags of the source events (read, write or fence), in order.
    source: Vec<Vec<String>>,
    /// The target events with their tags and roles.
    target: Vec<(EventKind, Vec<String>, Role)>,
}

/// Per instruction kind: its choices and the layout of its target code.
#[derive(Clone, Debug)]
struct KindTable {
    choices: Vec<Choice>,
    /// Source event kinds.
    kinds: Vec<EventKind>,
    pre: usize,
    post: usize,
}

/// How two threads can be placed relative to each other.
const RELATIONS: [(u8, u8); 3] = [
    // same CTA
    (0, 0),
    // same GPU, another CTA
    (0, 1),
    // another GPU
    (1, 1),
];

/// The choices of every instruction kind, and the placement levels the
/// source and the compiled program share for each relative placement of
/// two threads (`RELATIONS`).
pub struct Table {
    kinds: BTreeMap<Op, KindTable>,
    /// `[relation][level]`: the two threads share their instance.
    source_levels: Vec<Vec<bool>>,
    target_levels: Vec<Vec<bool>>,
    /// Orders and scopes left open, but not placement.
    descoped: bool,
    /// Whether a branch may follow each read that is not its thread's
    /// last (left open per slot: [`Space::branches`]).
    branches: bool,
}

/// Per scope level of `p` (innermost first), whether threads 0 and 1
/// share their instance.
fn shared_levels(p: &crate::ir::Program) -> Vec<bool> {
    let (a, b) = (&p.threads[0].placement.ids, &p.threads[1].placement.ids);
    (0..p.scope_levels().len())
        .map(|k| {
            let l = k.min(a.len()).min(b.len());
            a[l..] == b[l..]
        })
        .collect()
}

fn tag_names(sk: &Skeleton<'_>, prep: &Prepared<'_>, e: usize) -> Vec<String> {
    sk.events[e]
        .tags
        .iter()
        .map(|&t| prep.vocab().tags[t].clone())
        .collect()
}

fn unsupported(msg: String) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported mapping: {msg}"),
    )
}

impl Table {
    /// Compiles every instruction kind with every order and scope (of
    /// `descoped`: system scope only) alone in a thread.
    pub fn new(setup: &Setup<'_>, compile: &CompileFn<'_>, space: &Space) -> Result<Table> {
        let descoped = space.descoped;
        let mut kinds = BTreeMap::new();
        for slot in Op::ALL.into_iter().filter(|&o| o.shape_kind() == o) {
            let mut choices = Vec::new();
            let mut src_kinds = Vec::new();
            // A slot's choices: every kind it stands for (a load slot: a
            // load or a failing compare-exchange), each order, each scope.
            let members: Vec<(Op, MemOrder)> = Op::ALL
                .into_iter()
                .filter(|&m| m.shape_kind() == slot && (m == slot || space.ops.contains(&m)))
                .flat_map(|m| space.orders(m).into_iter().map(move |o| (m, o)))
                .collect();
            for (op, order) in members {
                let scopes: Vec<Option<Scope>> = if order == MemOrder::Na {
                    vec![None]
                } else if descoped {
                    vec![Some(Scope::Sys)]
                } else {
                    Scope::ALL.iter().map(|&s| Some(s)).collect()
                };
                for scope in scopes {
                    let src = Source {
                        threads: vec![Thread {
                            gpu: 0,
                            cta: 0,
                            instrs: vec![Instr::new(op, order, scope, 0)],
                        }],
                    };
                    let sp = source::to_program(&src, setup.source_arch, "probe");
                    let spaths = source::paths(&sp);
                    let srefs: Vec<_> = spaths.iter().collect();
                    let ssk = Skeleton::new(&sp, setup.source.vocab(), &srefs);
                    let sevs: Vec<usize> = ssk.thread_events[0].clone();
                    src_kinds = sevs.iter().map(|&e| ssk.events[e].kind).collect();
                    let lowered = compile(&sp)?;
                    let tp = &lowered.program;
                    if !covers(&setup.target, tp) {
                        return Err(unsupported(
                            "a compiled tag is missing from the target vocabulary".into(),
                        ));
                    }
                    let tpaths = source::paths(tp);
                    let trefs: Vec<_> = tpaths.iter().collect();
                    let tsk = Skeleton::new(tp, setup.target.vocab(), &trefs);
                    let tevs: Vec<usize> = tsk.thread_events.first().cloned().unwrap_or_default();
                    // Split into fences, the access, fences.
                    let mem: Vec<usize> = tevs
                        .iter()
                        .copied()
                        .filter(|&e| {
                            matches!(tsk.events[e].kind, EventKind::Read | EventKind::Write)
                        })
                        .collect();
                    let text = || {
                        tp.threads
                            .iter()
                            .flat_map(|t| &t.instrs)
                            .map(|i| i.text.clone())
                            .collect::<Vec<_>>()
                            .join("; ")
                    };
                    let mkinds: Vec<EventKind> = mem.iter().map(|&e| tsk.events[e].kind).collect();
                    if mkinds
                        != src_kinds
                            .iter()
                            .copied()
                            .filter(|k| *k != EventKind::Fence)
                            .collect::<Vec<_>>()
                    {
                        return Err(unsupported(format!(
                            "`{}` compiles to `{}`: not one access of the same kind plus fences",
                            sp.threads[0].instrs[0].text,
                            text()
                        )));
                    }
                    let first = tevs.iter().position(|e| mem.first() == Some(e));
                    let mut target = Vec::new();
                    let npre = first.unwrap_or(tevs.len());
                    for (k, &e) in tevs.iter().enumerate() {
                        let ev = &tsk.events[e];
                        let role = match first {
                            Some(f) if k >= f && k < f + mem.len() => Role::Access(k - f),
                            Some(f) if k >= f + mem.len() => Role::Post(k - f - mem.len()),
                            _ => Role::Pre(npre - 1 - k),
                        };
                        if !matches!(role, Role::Access(_)) && ev.kind != EventKind::Fence {
                            return Err(unsupported(format!(
                                "`{}` compiles to `{}`: only fences may surround the access",
                                sp.threads[0].instrs[0].text,
                                text()
                            )));
                        }
                        target.push((ev.kind, tag_names(&tsk, &setup.target, e), role));
                    }
                    choices.push(Choice {
                        op,
                        order,
                        scope,
                        source: sevs
                            .iter()
                            .map(|&e| tag_names(&ssk, &setup.source, e))
                            .collect(),
                        target,
                    });
                }
            }
            let count = |f: &dyn Fn(&Role) -> bool, c: &Choice| {
                c.target.iter().filter(|(_, _, r)| f(r)).count()
            };
            let pre = choices
                .iter()
                .map(|c| count(&|r| matches!(r, Role::Pre(_)), c))
                .max()
                .unwrap_or(0);
            let post = choices
                .iter()
                .map(|c| count(&|r| matches!(r, Role::Post(_)), c))
                .max()
                .unwrap_or(0);
            kinds.insert(
                slot,
                KindTable {
                    choices,
                    kinds: src_kinds,
                    pre,
                    post,
                },
            );
        }
        let mut source_levels = Vec::new();
        let mut target_levels = Vec::new();
        for &(gpu, cta) in &RELATIONS {
            let load = |gpu, cta| Thread {
                gpu,
                cta,
                instrs: vec![Instr::new(Op::Load, MemOrder::Na, None, 0)],
            };
            let probe = Source {
                threads: vec![load(0, 0), load(gpu, cta)],
            };
            let sp = source::to_program(&probe, setup.source_arch, "probe");
            let tp = compile(&sp)?.program;
            if tp.threads.len() != 2 {
                return Err(unsupported(
                    "compilation changes the number of threads".into(),
                ));
            }
            source_levels.push(shared_levels(&sp));
            target_levels.push(shared_levels(&tp));
        }
        Ok(Table {
            kinds,
            source_levels,
            target_levels,
            descoped,
            branches: space.branches,
        })
    }
}

/// Accumulates tag literals per event.
#[derive(Default)]
struct Tags(BTreeMap<String, Vec<Lit>>);

impl Tags {
    fn add(&mut self, names: &[String], l: Lit) {
        for t in names {
            self.0.entry(t.clone()).or_default().push(l);
        }
    }

    fn finish(self, f: &mut Formula) -> Vec<(String, Lit)> {
        self.0.into_iter().map(|(t, ls)| (t, f.or(&ls))).collect()
    }
}

fn init_event(l: usize) -> OpenEvent {
    OpenEvent {
        thread: None,
        instr: None,
        kind: EventKind::Init,
        loc: Some(l),
        exec: LIT_TRUE,
        tags: ["IW", "I", "W", "M"]
            .iter()
            .map(|t| (t.to_string(), LIT_TRUE))
            .collect(),
    }
}

/// The result of one shape's query.
pub enum ShapeResult {
    /// No choice of orders and scopes gives a counterexample.
    Sound,
    Counterexample(Box<Counterexample>),
}

/// Effort of the symbolic search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SymStats {
    pub shapes: u64,
    pub solver_calls: u64,
    pub vars: u64,
    pub clauses: u64,
    /// Solver answers the explicit re-check did not confirm (0 unless the
    /// mapping is not per-instruction or an encoding is wrong).
    pub mismatches: u64,
}

impl SymStats {
    pub fn add(&mut self, o: &SymStats) {
        self.shapes += o.shapes;
        self.solver_calls += o.solver_calls;
        self.vars += o.vars;
        self.clauses += o.clauses;
        self.mismatches += o.mismatches;
    }
}

/// The most re-check failures tolerated on one shape before giving up.
const MAX_MISMATCHES: u64 = 16;

/// Checks one shape: is there an order and scope for every instruction
/// that makes the program a counterexample?
pub fn check_shape(
    setup: &Setup<'_>,
    table: &Table,
    compile: &CompileFn<'_>,
    shape: &Source,
    stats: &mut SymStats,
    xstats: &mut Stats,
) -> Result<ShapeResult> {
    stats.shapes += 1;
    let mut f = Formula::new();
    // One variable per order/scope choice of each instruction.
    let mut sel: Vec<Vec<Vec<Lit>>> = Vec::new();
    for th in &shape.threads {
        let mut row = Vec::new();
        for i in &th.instrs {
            let kt = &table.kinds[&i.op];
            let vars: Vec<Lit> = kt.choices.iter().map(|_| f.var()).collect();
            f.exactly_one(&vars);
            row.push(vars);
        }
        sel.push(row);
    }
    // Per instruction that reads and is not its thread's last, whether a
    // branch on its value follows (every later event of the thread then
    // depends on the read).
    let branch: Vec<Vec<Option<Lit>>> = shape
        .threads
        .iter()
        .map(|th| {
            let n = th.instrs.len();
            th.instrs
                .iter()
                .enumerate()
                .map(|(k, i)| (table.branches && i.op.reads() && k + 1 < n).then(|| f.var()))
                .collect()
        })
        .collect();
    // Placement: per pair of threads, the relation (same CTA, same GPU,
    // other GPU), left open unless de-scoped.
    let k = shape.threads.len();
    let placement = if table.descoped {
        None
    } else {
        let mut cta = vec![vec![LIT_TRUE; k]; k];
        let mut gpu = vec![vec![LIT_TRUE; k]; k];
        for t in 0..k {
            for u in t + 1..k {
                let (c, g) = (f.var(), f.var());
                f.clause(&[-c, g]);
                cta[t][u] = c;
                cta[u][t] = c;
                gpu[t][u] = g;
                gpu[u][t] = g;
            }
        }
        for rel in [&cta, &gpu] {
            for t in 0..k {
                for u in 0..k {
                    for v in 0..k {
                        if t != u && u != v && t != v {
                            f.clause(&[-rel[t][u], -rel[u][v], rel[t][v]]);
                        }
                    }
                }
            }
        }
        // Per relation of RELATIONS, its literal.
        let mut rels = vec![vec![vec![LIT_TRUE; k]; k]; 3];
        for t in 0..k {
            for u in 0..k {
                if t != u {
                    rels[0][t][u] = cta[t][u];
                    rels[1][t][u] = f.and(&[gpu[t][u], -cta[t][u]]);
                    rels[2][t][u] = -gpu[t][u];
                }
            }
        }
        let mut shares = |levels: &[Vec<bool>]| -> Vec<Vec<Vec<Lit>>> {
            (0..levels[0].len())
                .map(|lv| {
                    (0..k)
                        .map(|t| {
                            (0..k)
                                .map(|u| {
                                    if t == u {
                                        return LIT_TRUE;
                                    }
                                    let ls: Vec<Lit> = (0..3)
                                        .filter(|&r| levels[r][lv])
                                        .map(|r| rels[r][t][u])
                                        .collect();
                                    f.or(&ls)
                                })
                                .collect()
                        })
                        .collect()
                })
                .collect()
        };
        let s = shares(&table.source_levels);
        let t = shares(&table.target_levels);
        Some((cta, gpu, s, t))
    };
    // A concrete program of the shape (each instruction its first choice)
    // gives placement and locations.
    let mut first = shape.clone();
    for th in &mut first.threads {
        for i in &mut th.instrs {
            let c = &table.kinds[&i.op].choices[0];
            i.op = c.op;
            i.order = c.order;
            i.scope = c.scope;
        }
    }
    let sp = source::to_program(&first, setup.source_arch, "shape");
    let lowered = compile(&sp)?;
    let tp = &lowered.program;
    // Source structure.
    let nloc = sp.locations.len();
    let mut sev: Vec<OpenEvent> = (0..nloc).map(init_event).collect();
    let mut srmw = Vec::new();
    // (thread, instruction, access index) -> source event.
    let mut src_access: BTreeMap<(usize, usize, usize), usize> = BTreeMap::new();
    // (thread, instruction) -> its source events, its target events.
    let mut src_of: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    let mut tgt_of: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    for (t, th) in shape.threads.iter().enumerate() {
        for (k, i) in th.instrs.iter().enumerate() {
            let kt = &table.kinds[&i.op];
            let first = sev.len();
            src_of.insert((t, k), (first..first + kt.kinds.len()).collect());
            let mut acc = 0;
            for (j, &kind) in kt.kinds.iter().enumerate() {
                let mut tags = Tags::default();
                for (c, ch) in kt.choices.iter().enumerate() {
                    tags.add(&ch.source[j], sel[t][k][c]);
                }
                if kind != EventKind::Fence {
                    src_access.insert((t, k, acc), sev.len());
                    acc += 1;
                }
                sev.push(OpenEvent {
                    thread: Some(t),
                    instr: Some(k),
                    kind,
                    loc: (kind != EventKind::Fence).then_some(i.loc as usize),
                    exec: LIT_TRUE,
                    tags: tags.finish(&mut f),
                });
            }
            if i.op == Op::Rmw {
                srmw.push((first, first + 1));
            }
        }
    }
    // Target structure: the compiled program's locations by name.
    let tloc: Vec<usize> = (0..nloc)
        .map(|l| {
            tp.location_id(&sp.locations[l].name)
                .map(|x| tp.locations[x].phys)
                .ok_or_else(|| unsupported("a location disappears in compilation".into()))
        })
        .collect::<Result<_>>()?;
    let mut tev: Vec<OpenEvent> = Vec::new();
    let mut down: BTreeMap<usize, usize> = BTreeMap::new();
    for (l, &tl) in tloc.iter().enumerate() {
        down.insert(l, tev.len());
        tev.push(init_event(tl));
    }
    if tp.threads.len() != shape.threads.len() {
        return Err(unsupported(
            "compilation changes the number of threads".into(),
        ));
    }
    let mut trmw = Vec::new();
    for (t, th) in shape.threads.iter().enumerate() {
        for (k, i) in th.instrs.iter().enumerate() {
            let kt = &table.kinds[&i.op];
            let nacc = kt.kinds.iter().filter(|k| **k != EventKind::Fence).count();
            let roles: Vec<Role> = (0..kt.pre)
                .rev()
                .map(Role::Pre)
                .chain((0..nacc).map(Role::Access))
                .chain((0..kt.post).map(Role::Post))
                .collect();
            let mut access_events = Vec::new();
            for role in roles {
                let mut tags = Tags::default();
                let mut present = Vec::new();
                let mut kind = EventKind::Fence;
                for (c, ch) in kt.choices.iter().enumerate() {
                    if let Some((ek, names, _)) = ch.target.iter().find(|(_, _, r)| *r == role) {
                        tags.add(names, sel[t][k][c]);
                        present.push(sel[t][k][c]);
                        kind = *ek;
                    }
                }
                if present.is_empty() {
                    continue;
                }
                let exec = match role {
                    Role::Access(_) => LIT_TRUE,
                    _ => f.or(&present),
                };
                if let Role::Access(j) = role {
                    down.insert(src_access[&(t, k, j)], tev.len());
                    access_events.push(tev.len());
                }
                tgt_of.entry((t, k)).or_default().push(tev.len());
                tev.push(OpenEvent {
                    thread: Some(t),
                    instr: None,
                    kind,
                    loc: matches!(role, Role::Access(_)).then(|| tloc[i.loc as usize]),
                    exec,
                    tags: tags.finish(&mut f),
                });
            }
            if i.op == Op::Rmw {
                trmw.push((access_events[0], access_events[1]));
            }
        }
    }
    let up: BTreeMap<usize, usize> = down.iter().map(|(&s, &t)| (t, s)).collect();
    // Control dependencies: from a branch's read to every event of the
    // later instructions of its thread (in the compiled program the
    // branch follows the read's whole code, its fences after it included).
    let (mut sctrl, mut tctrl) = (Vec::new(), Vec::new());
    for (t, th) in shape.threads.iter().enumerate() {
        for (j, b) in branch[t].iter().enumerate() {
            let Some(b) = *b else { continue };
            let read = src_access[&(t, j, 0)];
            let tread = down[&read];
            for k in j + 1..th.instrs.len() {
                sctrl.extend(src_of[&(t, k)].iter().map(|&e| (read, e, b)));
                tctrl.extend(
                    tgt_of
                        .get(&(t, k))
                        .into_iter()
                        .flatten()
                        .map(|&e| (tread, e, b)),
                );
            }
        }
    }
    let s_struct = OpenStructure {
        program: &sp,
        events: sev,
        rmw: srmw,
        ctrl: sctrl,
        shares: placement.as_ref().map(|p| p.2.clone()),
    };
    let t_struct = OpenStructure {
        program: tp,
        events: tev,
        rmw: trmw,
        ctrl: tctrl,
        shares: placement.as_ref().map(|p| p.3.clone()),
    };
    let mut tests = vec![(setup.axiom, false)];
    tests.extend(setup.races.iter().map(|&r| (r, false)));
    let se = encode(&mut f, &s_struct, setup.source.model(), false, &tests)?;
    let te = encode(&mut f, &t_struct, setup.target.model(), true, &[])?;
    for &l in &se.tests {
        f.clause(&[l]);
    }
    // rf: the same pairs.
    let mut srf: BTreeMap<(usize, usize), Lit> = BTreeMap::new();
    for &(w, r, l) in &se.rf {
        srf.insert((w, r), l);
    }
    let mut linked = 0;
    for &(w, r, l) in &te.rf {
        let pair = up.get(&w).zip(up.get(&r));
        match pair.and_then(|(sw, sr)| srf.get(&(*sw, *sr))) {
            Some(&x) => {
                f.clause(&[-l, x]);
                f.clause(&[l, -x]);
                linked += 1;
            }
            None => f.clause(&[-l]),
        }
    }
    if linked != se.rf.len() {
        // A source rf pair without a target counterpart: never chosen.
        let tpairs: std::collections::BTreeSet<(usize, usize)> = te
            .rf
            .iter()
            .filter_map(|&(w, r, _)| Some((*up.get(&w)?, *up.get(&r)?)))
            .collect();
        for &(w, r, l) in &se.rf {
            if !tpairs.contains(&(w, r)) {
                f.clause(&[-l]);
            }
        }
    }
    // co inside mo.
    let mut sco: BTreeMap<(usize, usize), Lit> = BTreeMap::new();
    for &(a, b, l) in &se.co {
        sco.insert((a, b), l);
    }
    for &(a, b, l) in &te.co {
        let x = up
            .get(&a)
            .zip(up.get(&b))
            .and_then(|(sa, sb)| sco.get(&(*sa, *sb)).copied());
        match x {
            Some(x) => f.clause(&[-l, x]),
            None => f.clause(&[-l]),
        }
    }
    stats.vars += f.num_vars() as u64;
    stats.clauses += f.num_clauses() as u64;
    let mut mismatches = 0;
    loop {
        stats.solver_calls += 1;
        if !f.solve()? {
            return Ok(ShapeResult::Sound);
        }
        // The concrete program.
        let mut concrete = shape.clone();
        let mut assignment = Vec::new();
        if let Some((cta, gpu, _, _)) = &placement {
            // Number CTAs and GPUs in order of first appearance.
            let (mut ctas, mut gpus): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
            for t in 0..k {
                let c = (0..t).find(|&u| f.value(cta[t][u]));
                let g = (0..t).find(|&u| f.value(gpu[t][u]));
                let cn = c.map_or_else(|| ctas.iter().max().map_or(0, |m| m + 1), |u| ctas[u]);
                let gn = g.map_or_else(|| gpus.iter().max().map_or(0, |m| m + 1), |u| gpus[u]);
                ctas.push(cn);
                gpus.push(gn);
                concrete.threads[t].cta = cn as u8;
                concrete.threads[t].gpu = gn as u8;
                for u in 0..t {
                    assignment.push(if f.value(cta[t][u]) {
                        cta[t][u]
                    } else {
                        -cta[t][u]
                    });
                    assignment.push(if f.value(gpu[t][u]) {
                        gpu[t][u]
                    } else {
                        -gpu[t][u]
                    });
                }
            }
        }
        for (t, th) in concrete.threads.iter_mut().enumerate() {
            for (k, i) in th.instrs.iter_mut().enumerate() {
                let kt = &table.kinds[&i.op];
                let c = (0..kt.choices.len())
                    .find(|&c| f.value(sel[t][k][c]))
                    .expect("one choice holds");
                i.op = kt.choices[c].op;
                i.order = kt.choices[c].order;
                i.scope = kt.choices[c].scope;
                assignment.push(sel[t][k][c]);
                if let Some(b) = branch[t][k] {
                    let taken = f.value(b);
                    i.branch = taken.then_some(Branch::AnyValue);
                    assignment.push(if taken { b } else { -b });
                }
            }
        }
        if let Some(cx) = explicit::check_program(setup, compile, &concrete, xstats)? {
            return Ok(ShapeResult::Counterexample(Box::new(cx)));
        }
        stats.mismatches += 1;
        mismatches += 1;
        if mismatches >= MAX_MISMATCHES {
            return Err(Error::new(
                ErrorKind::Semantic,
                "internal: the symbolic search keeps proposing programs the explicit re-check rejects",
            ));
        }
        let block: Vec<Lit> = assignment.iter().map(|&l| -l).collect();
        f.clause(&block);
    }
}
