//! A termination proof that holds for every memory model with fair memory
//! ("eventual values"), used for loops with side effects.
//!
//! Memory fairness: in an infinite execution, if only finitely many writes
//! to `x` happen, all but finitely many reads of `x` return the value of a
//! co-maximal write; if infinitely many happen, all but finitely many
//! reads of `x` return values of writes that happen infinitely often. Each
//! thread of a non-terminating execution ends up in one of four modes:
//! terminated, looping forever, blocked at a barrier, or never scheduled
//! again (paused). For every assignment of modes allowed by the progress
//! model, we over-approximate the writes that exist and the values reads
//! eventually return, and shrink each looping thread's possible cycles to
//! those its eventual reads allow, to a fixpoint. If every assignment
//! leaves some looping thread without a cycle, no fair non-terminating
//! execution exists, whatever the memory model. See docs/LIVENESS.md.

use super::interp::{Code, Local, Op, Opnd, RmwKind, DIVERGED};
use super::progress::{Hierarchy, ProgressSpec};
use crate::diag::Result;
use crate::ir::Program;
use std::collections::{BTreeSet, HashMap, VecDeque};

const MAX_NODES: usize = 20_000;
const MAX_VALUES: usize = 64;
const MAX_ASSIGNMENTS: usize = 50_000;

/// A thread's local state graph: nodes are states at a visible
/// instruction (or terminated / diverged); an edge executes one visible
/// instruction with one read value.
struct Graph {
    nodes: Vec<Local>,
    /// (from, to, location read with value, location written with value)
    edges: Vec<GEdge>,
    out: Vec<Vec<usize>>,
    terminal: Vec<bool>,
    barrier: Vec<bool>,
}

#[derive(Clone, Copy)]
struct GEdge {
    from: usize,
    to: usize,
    read: Option<(usize, i64)>,
    write: Option<(usize, i64)>,
}

/// `None` when the graph is too large or a local computation fails on
/// some over-approximated value (e.g. a division by zero).
fn build(code: &Code, dom: &[BTreeSet<i64>], rel_regs: &[bool]) -> Option<Graph> {
    // Registers that never influence control flow or a relevant write are
    // set to 0, so that their values do not multiply the states.
    let canon = |mut l: Local| {
        for (r, v) in l.regs.iter_mut().enumerate() {
            if !rel_regs[r] {
                *v = 0;
            }
        }
        l
    };
    let mut start = code.init.clone();
    code.run_local(&mut start).ok()?;
    let start = canon(start);
    let mut index: HashMap<Local, usize> = HashMap::new();
    let mut g = Graph {
        nodes: vec![],
        edges: vec![],
        out: vec![],
        terminal: vec![],
        barrier: vec![],
    };
    let mut add = |g: &mut Graph, l: Local, q: &mut VecDeque<usize>| -> Option<usize> {
        if let Some(&i) = index.get(&l) {
            return Some(i);
        }
        if g.nodes.len() >= MAX_NODES {
            return None;
        }
        let i = g.nodes.len();
        index.insert(l.clone(), i);
        g.terminal.push(code.terminated(&l));
        g.barrier
            .push(l.pc < code.len() && matches!(code.ops[l.pc], Op::Barrier));
        g.nodes.push(l);
        g.out.push(vec![]);
        q.push_back(i);
        Some(i)
    };
    let mut q = VecDeque::new();
    add(&mut g, start, &mut q)?;
    while let Some(i) = q.pop_front() {
        let l = g.nodes[i].clone();
        if code.terminated(&l) {
            continue;
        }
        if l.pc == DIVERGED {
            let e = g.edges.len();
            g.edges.push(GEdge {
                from: i,
                to: i,
                read: None,
                write: None,
            });
            g.out[i].push(e);
            continue;
        }
        let values: Vec<Option<i64>> = match code.read_loc(l.pc) {
            Some(loc) => dom[loc].iter().map(|v| Some(*v)).collect(),
            None => vec![None],
        };
        for v in values {
            let mut l2 = l.clone();
            let eff = code.exec(&mut l2, |_| v.unwrap_or(0));
            code.run_local(&mut l2).ok()?;
            let j = add(&mut g, canon(l2), &mut q)?;
            let e = g.edges.len();
            g.edges.push(GEdge {
                from: i,
                to: j,
                read: eff.loc.zip(eff.read),
                write: eff.loc.zip(eff.written),
            });
            g.out[i].push(e);
        }
    }
    Some(g)
}

/// Non-trivial strongly connected components of the subgraph of `g` made
/// of the nodes in `keep` and the edges `ok` accepts: per node its
/// component (or `None`), and the list of internal edges.
fn cycles(
    g: &Graph,
    keep: &[bool],
    ok: &dyn Fn(&GEdge) -> bool,
) -> (Vec<Option<usize>>, Vec<usize>) {
    let n = g.nodes.len();
    let succ = |v: usize| -> Vec<usize> {
        g.out[v]
            .iter()
            .filter(|&&e| keep[g.edges[e].to] && ok(&g.edges[e]))
            .map(|&e| g.edges[e].to)
            .collect()
    };
    // Iterative Tarjan.
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut comp = vec![UNSEEN; n];
    let mut stack = vec![];
    let mut next = 0;
    let mut nc = 0;
    for r in 0..n {
        if !keep[r] || index[r] != UNSEEN {
            continue;
        }
        let mut call: Vec<(usize, Vec<usize>, usize)> = vec![(r, succ(r), 0)];
        index[r] = next;
        low[r] = next;
        next += 1;
        stack.push(r);
        on[r] = true;
        while let Some((v, ss, i)) = call.last_mut() {
            let v = *v;
            if *i < ss.len() {
                let w = ss[*i];
                *i += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    let sw = succ(w);
                    call.push((w, sw, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some((u, _, _)) = call.last() {
                    let u = *u;
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on[w] = false;
                        comp[w] = nc;
                        if w == v {
                            break;
                        }
                    }
                    nc += 1;
                }
            }
        }
    }
    let mut internal = vec![];
    let mut nontrivial = vec![false; nc];
    for (i, e) in g.edges.iter().enumerate() {
        if keep[e.from] && keep[e.to] && ok(e) && comp[e.from] == comp[e.to] {
            internal.push(i);
            nontrivial[comp[e.from]] = true;
        }
    }
    let c = (0..n)
        .map(|v| (keep[v] && nontrivial[comp[v]]).then_some(comp[v]))
        .collect();
    (c, internal)
}

/// Nodes from which some node in `target` is reachable (including them).
fn ancestors(g: &Graph, target: &[bool]) -> Vec<bool> {
    ancestors_via(g, &vec![true; g.nodes.len()], target, &|_| true)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Term,
    Loop,
    Block,
    PauseEmpty,
    PauseSome,
}

struct ThreadInfo {
    g: Graph,
    /// Values written on edges into nodes that can reach termination.
    term_writes: Vec<(usize, i64)>,
    /// Locations written on every path to termination.
    term_must: Vec<usize>,
    can_term: bool,
    /// Values written on edges into nodes that can reach a barrier.
    block_writes: Vec<(usize, i64)>,
    can_block: bool,
    all_writes: Vec<(usize, i64)>,
    can_loop: bool,
}

/// `Ok(None)`: termination is proved for every execution under `spec`;
/// `Ok(Some(why))`: not proved.
/// `total_co[x]`: coherence orders all writes to physical location `x`
/// (otherwise a read may keep returning a write that no later write is
/// ordered after).
pub fn proves_termination(
    p: &Program,
    codes: &[Code],
    hier: &Hierarchy,
    spec: &ProgressSpec,
    total_co: &[bool],
) -> Result<Option<String>> {
    let nloc = p.locations.len();
    let (rel_loc, rel_regs) = relevance(codes, nloc);
    if let Some(l) = (0..nloc).find(|&l| rel_loc[l] && p.locations[l].init_arbitrary.is_some()) {
        return Ok(Some(format!(
            "`{}` has an arbitrary initial value",
            p.locations[l].name
        )));
    }
    // Value domains: a fixpoint over the local graphs. Irrelevant
    // locations keep their initial value only (what reads of them return
    // influences nothing that matters).
    let mut dom: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); nloc];
    for (i, l) in p.locations.iter().enumerate() {
        if l.phys == i {
            dom[i].insert(l.init);
        }
    }
    let graphs =
        loop {
            let mut gs = Vec::with_capacity(codes.len());
            for (t, c) in codes.iter().enumerate() {
                match build(c, &dom, &rel_regs[t]) {
                    Some(g) => gs.push(g),
                    None => return Ok(Some(
                        "a local state graph is too large or fails on an over-approximated value"
                            .into(),
                    )),
                }
            }
            let mut next = dom.clone();
            for g in &gs {
                for e in &g.edges {
                    if let Some((l, v)) = e.write {
                        if rel_loc[l] {
                            next[l].insert(v);
                        }
                    }
                }
            }
            if next.iter().any(|s| s.len() > MAX_VALUES) {
                return Ok(Some(format!(
                    "a location may take more than {MAX_VALUES} values"
                )));
            }
            if next == dom {
                break gs;
            }
            dom = next;
        };
    let n = codes.len();
    let mut infos = Vec::with_capacity(n);
    for g in graphs {
        let nn = g.nodes.len();
        let all = vec![true; nn];
        let to_term = ancestors(&g, &g.terminal);
        let to_block = ancestors(&g, &g.barrier);
        let writes_into = |mask: &[bool]| -> Vec<(usize, i64)> {
            g.edges
                .iter()
                .filter(|e| mask[e.to])
                .filter_map(|e| e.write)
                .collect()
        };
        let term_writes = writes_into(&to_term);
        // Must-write: x is written on every path to termination iff no
        // terminal node is reachable when edges writing x are removed.
        let mut term_must = vec![];
        let can_term = to_term[0];
        if can_term {
            for x in 0..nloc {
                let mut seen = vec![false; nn];
                seen[0] = true;
                let mut q = VecDeque::from([0usize]);
                let mut reach = false;
                while let Some(v) = q.pop_front() {
                    if g.terminal[v] {
                        reach = true;
                        break;
                    }
                    for &e in &g.out[v] {
                        let ed = &g.edges[e];
                        if ed.write.is_some_and(|(l, _)| l == x) || seen[ed.to] {
                            continue;
                        }
                        seen[ed.to] = true;
                        q.push_back(ed.to);
                    }
                }
                if !reach {
                    term_must.push(x);
                }
            }
        }
        let (c, _) = cycles(&g, &all, &|_| true);
        let can_loop = c.iter().any(Option::is_some);
        infos.push(ThreadInfo {
            term_writes,
            term_must,
            can_term,
            block_writes: writes_into(&to_block),
            can_block: to_block[0] && g.barrier.iter().any(|b| *b),
            all_writes: g.edges.iter().filter_map(|e| e.write).collect(),
            can_loop,
            g,
        });
    }
    let starve = spec.may_starve(p.arch);
    let starve_started = spec.may_starve_started(p.arch);
    let choices: Vec<Vec<Mode>> = infos
        .iter()
        .map(|i| {
            let mut v = vec![];
            if i.can_term {
                v.push(Mode::Term);
            }
            if i.can_loop {
                v.push(Mode::Loop);
            }
            if i.can_block {
                v.push(Mode::Block);
            }
            if starve {
                v.push(Mode::PauseEmpty);
            }
            if starve_started {
                v.push(Mode::PauseSome);
            }
            v
        })
        .collect();
    let total = choices.iter().fold(1f64, |a, c| a * c.len() as f64);
    if total > MAX_ASSIGNMENTS as f64 {
        return Ok(Some("too many threads for the analysis".into()));
    }
    if choices.iter().any(Vec::is_empty) {
        return Ok(None);
    }
    let init_val: Vec<i64> = (0..nloc)
        .map(|l| p.locations[p.locations[l].phys].init)
        .collect();
    let mut pick = vec![0usize; n];
    loop {
        let modes: Vec<Mode> = (0..n).map(|t| choices[t][pick[t]]).collect();
        if feasible(&modes, &infos, hier, &init_val, &rel_loc, total_co) {
            let looping: Vec<&str> = (0..n)
                .filter(|&t| modes[t] == Mode::Loop)
                .map(|t| p.threads[t].name.as_str())
                .collect();
            return Ok(Some(if looping.is_empty() {
                "the threads might wait at barriers forever".into()
            } else {
                format!(
                    "the values reads eventually return would let {} loop forever",
                    looping.join(", ")
                )
            }));
        }
        let mut i = n;
        loop {
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
            pick[i] += 1;
            if pick[i] < choices[i].len() {
                break;
            }
            pick[i] = 0;
        }
    }
}

/// Can the mode assignment describe a fair non-terminating execution?
fn feasible(
    modes: &[Mode],
    infos: &[ThreadInfo],
    hier: &Hierarchy,
    init_val: &[i64],
    rel_loc: &[bool],
    total_co: &[bool],
) -> bool {
    let nloc = rel_loc.len();
    let n = modes.len();
    let mut stepped = 0u64;
    let mut terminated = 0u64;
    for (t, m) in modes.iter().enumerate() {
        if *m != Mode::PauseEmpty {
            stepped |= 1 << t;
        }
        if *m == Mode::Term {
            terminated |= 1 << t;
        }
    }
    let of = |want: Mode| {
        (0..n)
            .filter(|&t| modes[t] == want)
            .fold(0u64, |a, t| a | 1 << t)
    };
    if !hier.fair_ok(stepped, terminated, of(Mode::Loop), of(Mode::Block)) {
        return false;
    }
    if of(Mode::Loop) == 0 {
        // A deadlock at barriers.
        return true;
    }
    // Finite writes of the non-looping threads.
    let mut fin: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); nloc];
    let mut must = vec![false; nloc];
    for (t, m) in modes.iter().enumerate() {
        let i = &infos[t];
        let ws: &[(usize, i64)] = match m {
            Mode::Term => {
                for &x in &i.term_must {
                    must[x] = true;
                }
                &i.term_writes
            }
            Mode::Block => &i.block_writes,
            Mode::PauseSome => &i.all_writes,
            Mode::PauseEmpty | Mode::Loop => &[],
        };
        for &(x, v) in ws {
            fin[x].insert(v);
        }
    }
    // Looping threads: candidate nodes, shrinking; `ev`: values reads
    // eventually return; `exist`: values of writes that exist at all
    // (`None`: any value). All three only shrink, and each stays a
    // superset of what a real execution with these modes has.
    let mut keep: Vec<Vec<bool>> = infos.iter().map(|i| vec![true; i.g.nodes.len()]).collect();
    let mut ev: Vec<Option<BTreeSet<i64>>> = vec![None; nloc];
    let mut exist: Vec<Option<BTreeSet<i64>>> = vec![None; nloc];
    let allows = |s: &Option<BTreeSet<i64>>, v: i64| s.as_ref().is_none_or(|s| s.contains(&v));
    loop {
        let mut winf: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); nloc];
        let mut prefix: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); nloc];
        let mut must_inf = vec![false; nloc];
        let mut new_keep = keep.clone();
        for t in 0..n {
            if modes[t] != Mode::Loop {
                continue;
            }
            let g = &infos[t].g;
            let eventual_ok = |e: &GEdge| e.read.is_none_or(|(x, v)| allows(&ev[x], v));
            let exist_ok = |e: &GEdge| e.read.is_none_or(|(x, v)| allows(&exist[x], v));
            let fwd = forward(g, &exist_ok);
            let allowed: Vec<bool> = keep[t].iter().zip(&fwd).map(|(a, b)| *a && *b).collect();
            let (c, internal) = cycles(g, &allowed, &eventual_ok);
            let region: Vec<bool> = c.iter().map(Option::is_some).collect();
            if !region.iter().any(|b| *b) {
                return false;
            }
            for &e in &internal {
                if let Some((x, v)) = g.edges[e].write {
                    winf[x].insert(v);
                }
            }
            // x is written infinitely often if every cycle of the region
            // writes it; then, with a total coherence order, every finite
            // write is followed by infinitely many, and reads eventually
            // return only values written infinitely often.
            for (x, mi) in must_inf.iter_mut().enumerate() {
                if !total_co[x] {
                    continue;
                }
                if *mi
                    || !internal
                        .iter()
                        .any(|&e| g.edges[e].write.is_some_and(|(l, _)| l == x))
                {
                    continue;
                }
                let no_x = |e: &GEdge| eventual_ok(e) && e.write.is_none_or(|(l, _)| l != x);
                let (c2, _) = cycles(g, &region, &no_x);
                if c2.iter().all(Option::is_none) {
                    *mi = true;
                }
            }
            // Writes before the thread settles in its region.
            let anc = ancestors_via(g, &fwd, &region, &exist_ok);
            for e in &g.edges {
                if anc[e.to] && anc[e.from] && exist_ok(e) {
                    if let Some((x, v)) = e.write {
                        prefix[x].insert(v);
                    }
                }
            }
            new_keep[t] = region;
        }
        let mut new_ev = Vec::with_capacity(nloc);
        let mut new_exist = Vec::with_capacity(nloc);
        for x in 0..nloc {
            let mut finals: BTreeSet<i64> = fin[x].union(&prefix[x]).copied().collect();
            if !must[x] || finals.is_empty() {
                finals.insert(init_val[x]);
            }
            let e: BTreeSet<i64> = if must_inf[x] {
                winf[x].clone()
            } else {
                winf[x].union(&finals).copied().collect()
            };
            let mut ex: BTreeSet<i64> = finals.union(&winf[x]).copied().collect();
            ex.insert(init_val[x]);
            if rel_loc[x] {
                new_ev.push(Some(e));
                new_exist.push(Some(ex));
            } else {
                // Reads of an irrelevant location return a placeholder.
                new_ev.push(None);
                new_exist.push(None);
            }
        }
        if new_keep == keep && new_ev == ev && new_exist == exist {
            return true;
        }
        keep = new_keep;
        ev = new_ev;
        exist = new_exist;
    }
}

/// Nodes reachable from the initial node (node 0) along edges `ok`
/// accepts.
fn forward(g: &Graph, ok: &dyn Fn(&GEdge) -> bool) -> Vec<bool> {
    let n = g.nodes.len();
    let mut fwd = vec![false; n];
    fwd[0] = true;
    let mut q = VecDeque::from([0usize]);
    while let Some(v) = q.pop_front() {
        for &e in &g.out[v] {
            let ed = &g.edges[e];
            if ok(ed) && !fwd[ed.to] {
                fwd[ed.to] = true;
                q.push_back(ed.to);
            }
        }
    }
    fwd
}

/// Nodes reachable from the start (`fwd`) from which some node in
/// `target` is reachable along edges `ok` accepts.
fn ancestors_via(
    g: &Graph,
    fwd: &[bool],
    target: &[bool],
    ok: &dyn Fn(&GEdge) -> bool,
) -> Vec<bool> {
    let n = g.nodes.len();
    let mut pred: Vec<Vec<usize>> = vec![vec![]; n];
    for e in &g.edges {
        if ok(e) && fwd[e.from] {
            pred[e.to].push(e.from);
        }
    }
    let mut seen: Vec<bool> = (0..n).map(|v| target[v] && fwd[v]).collect();
    let mut q: VecDeque<usize> = (0..n).filter(|&v| seen[v]).collect();
    while let Some(v) = q.pop_front() {
        for &u in &pred[v] {
            if !seen[u] {
                seen[u] = true;
                q.push_back(u);
            }
        }
    }
    seen
}

/// Which locations and registers can influence control flow (branches,
/// whether a CAS writes) or the value of a relevant write: a fixpoint from
/// the registers that branches test.
fn relevance(codes: &[Code], nloc: usize) -> (Vec<bool>, Vec<Vec<bool>>) {
    let mut loc = vec![false; nloc];
    let mut regs: Vec<Vec<bool>> = codes
        .iter()
        .map(|c| vec![false; c.reg_names.len()])
        .collect();
    let mark = |r: &mut Vec<bool>, o: &Opnd, changed: &mut bool| {
        if let Opnd::Reg(x) = o {
            if !r[*x] {
                r[*x] = true;
                *changed = true;
            }
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for (t, c) in codes.iter().enumerate() {
            for op in &c.ops {
                let r = &mut regs[t];
                match op {
                    Op::Branch { a, b, .. } => {
                        mark(r, a, &mut changed);
                        mark(r, b, &mut changed);
                    }
                    Op::Local { dst, a, b, .. } if r[*dst] => {
                        mark(r, a, &mut changed);
                        mark(r, b, &mut changed);
                    }
                    Op::Load { dst, loc: x } if r[*dst] && !loc[*x] => {
                        loc[*x] = true;
                        changed = true;
                    }
                    Op::Store { loc: x, val } if loc[*x] => {
                        mark(r, val, &mut changed);
                    }
                    Op::Rmw {
                        dst,
                        loc: x,
                        kind,
                        operand,
                    } => {
                        if dst.is_some_and(|d| r[d]) && !loc[*x] {
                            loc[*x] = true;
                            changed = true;
                        }
                        if loc[*x] {
                            mark(r, operand, &mut changed);
                            if let RmwKind::Cas(e) = kind {
                                mark(r, e, &mut changed);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (loc, regs)
}
