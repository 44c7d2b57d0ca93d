//! Static facts about a thread's control flow, shared by every unroller:
//! labels, back-edges, loop headers and the registers live at each header.
//!
//! These facts define the loop semantics of docs/SEMANTICS.md:
//! - a jump to an earlier (or the same) instruction is a back-edge; its
//!   target is the loop's header;
//! - a loop (a header with its back-edges) may go round `bound - 1` times
//!   (its body runs at most `bound` times) per *entry*: arriving at a
//!   header other than through one of its back-edges starts the count
//!   afresh (so an inner loop gets `bound` iterations per outer iteration,
//!   as in Dat3M's unrolling); every back-edge to the header counts;
//! - an iteration that executed no write and no barrier, and left every
//!   register live at the header unchanged, is a *spinning* iteration: the
//!   next one would repeat it exactly, reading the same values or others.

use crate::diag::{Error, Result};
use crate::ir::{InstrKind, Operand, Program, RmwOp, Term};
use std::collections::{BTreeSet, HashMap};

pub struct Cfg {
    pub labels: HashMap<String, usize>,
    /// Back-edge instruction → its header (target) instruction.
    pub back_edges: HashMap<usize, usize>,
    /// Header → the back-edges that target it.
    pub headers: HashMap<usize, Vec<usize>>,
    /// Header → its last back-edge (the loop's body is `header..=end`).
    pub loop_end: HashMap<usize, usize>,
    /// Header → registers live there (sorted).
    pub live: HashMap<usize, Vec<String>>,
    /// Headers of the loops whose body `(header, end]` a jump from outside
    /// `[header, end]` enters (irreducible control flow): leaving such a
    /// body does not end the loop's entry, since the jump may come back
    /// without passing the header.
    pub open: BTreeSet<usize>,
    /// Header → per instruction, whether it can reach a back-edge to that
    /// header. Elsewhere the loop's count is never consulted again.
    pub reaches_back: HashMap<usize, Vec<bool>>,
}

/// Whether no thread of `p` has a back-edge: then the loop bound changes
/// nothing. (An unknown label counts as no back-edge; the unrollers report
/// it.)
pub fn loop_free(p: &Program) -> bool {
    p.threads.iter().all(|t| {
        let labels: HashMap<&str, usize> = (t.instrs.iter().enumerate())
            .filter_map(|(i, ins)| match &ins.kind {
                InstrKind::Label(l) => Some((l.as_str(), i)),
                _ => None,
            })
            .collect();
        t.instrs.iter().enumerate().all(|(i, ins)| match &ins.kind {
            InstrKind::Branch { target, .. } | InstrKind::Goto(target) => {
                labels.get(target.as_str()).is_none_or(|&ti| ti > i)
            }
            _ => true,
        })
    })
}

impl Cfg {
    pub fn new(p: &Program, th: usize) -> Result<Cfg> {
        let t = &p.threads[th];
        let mut labels = HashMap::new();
        for (i, ins) in t.instrs.iter().enumerate() {
            if let InstrKind::Label(l) = &ins.kind {
                labels.insert(l.clone(), i);
            }
        }
        let mut back_edges = HashMap::new();
        let mut headers: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, ins) in t.instrs.iter().enumerate() {
            let target = match &ins.kind {
                InstrKind::Branch { target, .. } | InstrKind::Goto(target) => target,
                _ => continue,
            };
            let Some(&ti) = labels.get(target) else {
                return Err(Error::semantic(
                    ins.pos,
                    format!("unknown label `{target}`"),
                ));
            };
            if ti <= i {
                back_edges.insert(i, ti);
                headers.entry(ti).or_default().push(i);
            }
        }
        let live_all = liveness(p, th, &labels);
        let live = headers
            .keys()
            .map(|&h| (h, live_all[h].iter().cloned().collect()))
            .collect();
        let loop_end: HashMap<usize, usize> = headers
            .iter()
            .map(|(&h, bes)| (h, bes.iter().copied().max().unwrap_or(h)))
            .collect();
        let mut open = BTreeSet::new();
        for (i, ins) in t.instrs.iter().enumerate() {
            let target = match &ins.kind {
                InstrKind::Branch { target, .. } | InstrKind::Goto(target) => labels[target],
                _ => continue,
            };
            for (&h, &end) in &loop_end {
                if h < target && target <= end && !(h <= i && i <= end) {
                    open.insert(h);
                }
            }
        }
        let reaches_back = headers
            .iter()
            .map(|(&h, bes)| (h, reaching(t, &labels, bes)))
            .collect();
        Ok(Cfg {
            labels,
            loop_end,
            back_edges,
            headers,
            live,
            open,
            reaches_back,
        })
    }
}

/// Per instruction of `t`, whether some path leads from it to one of
/// `targets`.
fn reaching(
    t: &crate::ir::Thread,
    labels: &HashMap<String, usize>,
    targets: &[usize],
) -> Vec<bool> {
    let n = t.instrs.len();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, ins) in t.instrs.iter().enumerate() {
        match &ins.kind {
            InstrKind::Branch { target, .. } => {
                preds[labels[target]].push(i);
                preds[i + 1].push(i);
            }
            InstrKind::Goto(target) => preds[labels[target]].push(i),
            InstrKind::Unreachable { .. } | InstrKind::Infeasible => {}
            _ => preds[i + 1].push(i),
        }
    }
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<usize> = targets.to_vec();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        stack.extend(preds[i].iter().copied().filter(|&p| !seen[p]));
    }
    seen.truncate(n);
    seen
}

fn reg_of(o: &Operand, out: &mut Vec<String>) {
    if let Operand::Reg(r) = o {
        out.push(r.clone());
    }
}

/// Registers an instruction reads and the one it writes.
pub fn uses_defs(k: &InstrKind) -> (Vec<String>, Option<String>) {
    let mut uses = Vec::new();
    if let Some(ix) = k.addr().and_then(|a| a.index()) {
        reg_of(ix, &mut uses);
    }
    let def = match k {
        InstrKind::Load { dst, .. } => Some(dst.clone()),
        InstrKind::Store { value, .. } => {
            reg_of(value, &mut uses);
            None
        }
        InstrKind::Rmw {
            dst, op, operand, ..
        } => {
            reg_of(operand, &mut uses);
            if let RmwOp::Cas { expected } = op {
                reg_of(expected, &mut uses);
            }
            dst.clone()
        }
        InstrKind::Barrier { id, count, .. } => {
            reg_of(id, &mut uses);
            if let Some(c) = count {
                reg_of(c, &mut uses);
            }
            None
        }
        InstrKind::Local { dst, a, b, .. } => {
            reg_of(a, &mut uses);
            reg_of(b, &mut uses);
            Some(dst.clone())
        }
        InstrKind::Branch { a, b, .. } => {
            reg_of(a, &mut uses);
            reg_of(b, &mut uses);
            None
        }
        InstrKind::Havoc { dst, .. } | InstrKind::Input { dst, .. } => Some(dst.clone()),
        InstrKind::Fence
        | InstrKind::Label(_)
        | InstrKind::Goto(_)
        | InstrKind::Unreachable { .. }
        | InstrKind::Infeasible => None,
    };
    (uses, def)
}

/// Registers of thread `th` the final state can observe.
fn observed_regs(p: &Program, th: usize) -> BTreeSet<String> {
    let mut terms: Vec<Term> = p.observed.clone();
    for c in p.filter.iter().chain(p.assertion.iter().map(|a| &a.cond)) {
        terms.extend(c.terms());
    }
    terms
        .into_iter()
        .filter_map(|t| match t {
            Term::Reg(x, r) if x == th => Some(r),
            _ => None,
        })
        .collect()
}

/// Live registers before each instruction (backward data flow; at the
/// end of the thread, the observed registers are live).
fn liveness(p: &Program, th: usize, labels: &HashMap<String, usize>) -> Vec<BTreeSet<String>> {
    let t = &p.threads[th];
    let n = t.instrs.len();
    let exit = observed_regs(p, th);
    let info: Vec<(Vec<String>, Option<String>)> =
        t.instrs.iter().map(|i| uses_defs(&i.kind)).collect();
    let succ = |i: usize| -> Vec<usize> {
        let tgt = |l: &String| labels.get(l).copied().unwrap_or(n);
        match &t.instrs[i].kind {
            InstrKind::Goto(l) => vec![tgt(l)],
            InstrKind::Branch { target, .. } => vec![i + 1, tgt(target)],
            InstrKind::Unreachable { .. } | InstrKind::Infeasible => vec![],
            _ => vec![i + 1],
        }
    };
    let mut live: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n + 1];
    live[n] = exit;
    loop {
        let mut changed = false;
        for i in (0..n).rev() {
            let mut out: BTreeSet<String> = BTreeSet::new();
            for s in succ(i) {
                out.extend(live[s.min(n)].iter().cloned());
            }
            let (uses, def) = &info[i];
            if let Some(d) = def {
                out.remove(d);
            }
            out.extend(uses.iter().cloned());
            if out != live[i] {
                live[i] = out;
                changed = true;
            }
        }
        if !changed {
            return live;
        }
    }
}
