//! Checks an interleaving lasso against the model: the execution of its
//! prefix followed by two turns of its cycle, with rf and co taken from
//! the interleaving, must be consistent.

use super::interp::{Code, Op, Opnd, RmwKind};
use super::sc::{Lasso, Step};
use crate::cat::Model;
use crate::diag::Result;
use crate::engine::explicit;
use crate::engine::paths::{PathEnd, PathEvent, PathEventKind, ThreadPath};
use crate::ir::Program;
use crate::rel::Relation;

/// A write in the interleaving: the initial write of a location, or event
/// `k` of thread `t`'s path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum W {
    Init(usize),
    Ev(usize, usize),
}

fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = a.iter().chain(b).copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Path indices of the read and the write event a step produced.
type StepEvents = (Option<usize>, Option<usize>);

/// Builds each thread's path from its steps in `steps` (in order),
/// re-executing the thread to recover dependencies. Returns the paths and,
/// per step, the path indices of the read and write events it produced.
fn paths_of(
    p: &Program,
    codes: &[Code],
    steps: &[&Step],
) -> Option<(Vec<ThreadPath>, Vec<StepEvents>)> {
    let n = codes.len();
    let mut per: Vec<Vec<usize>> = vec![vec![]; n];
    for (i, s) in steps.iter().enumerate() {
        per[s.thread].push(i);
    }
    let mut out_ids = vec![(None, None); steps.len()];
    let mut paths = Vec::with_capacity(n);
    for t in 0..n {
        let code = &codes[t];
        let th = &p.threads[t];
        let mut l = code.init.clone();
        let mut taint: Vec<Vec<usize>> = vec![vec![]; code.reg_names.len()];
        let mut ctrl: Vec<usize> = vec![];
        let mut events: Vec<PathEvent> = vec![];
        let deps = |taint: &[Vec<usize>], o: &Opnd| match o {
            Opnd::Reg(r) => taint[*r].clone(),
            Opnd::Const(_) => vec![],
        };
        let mut k = 0usize;
        let mut guard = 0usize;
        while k < per[t].len() {
            guard += 1;
            if guard > 10_000_000 || l.pc >= code.len() {
                return None;
            }
            let pc = l.pc;
            let op = &code.ops[pc];
            if !op.visible() {
                if let Op::Branch { a, b, .. } = op {
                    ctrl = union(&ctrl, &union(&deps(&taint, a), &deps(&taint, b)));
                }
                if let Op::Local { dst, a, b, .. } = op {
                    taint[*dst] = union(&deps(&taint, a), &deps(&taint, b));
                }
                code.step_local(&mut l).ok()?;
                continue;
            }
            let si = per[t][k];
            let step = steps[si];
            if step.instr != Some(pc) {
                return None;
            }
            // Liveness programs have fixed addresses (`Code::compile`
            // refuses the others).
            let loc = th.instrs[pc].kind.addr().and_then(crate::ir::Addr::fixed);
            let ev = |kind, value| PathEvent {
                kind,
                instr: pc,
                loc,
                value,
                rmw_read: None,
                addr_deps: vec![],
                data_deps: vec![],
                ctrl_deps: ctrl.clone(),
                spinning: false,
            };
            let eff = code.exec(&mut l, |_| step.effect.read.unwrap_or(0));
            match op {
                Op::Load { dst, .. } => {
                    events.push(ev(PathEventKind::Read, eff.read?));
                    out_ids[si].0 = Some(events.len() - 1);
                    taint[*dst] = vec![events.len() - 1];
                }
                Op::Store { val, .. } => {
                    let mut e = ev(PathEventKind::Write, eff.written?);
                    e.data_deps = deps(&taint, val);
                    events.push(e);
                    out_ids[si].1 = Some(events.len() - 1);
                }
                Op::Rmw {
                    dst, kind, operand, ..
                } => {
                    let mut opd = deps(&taint, operand);
                    if let RmwKind::Cas(e) = kind {
                        opd = union(&opd, &deps(&taint, e));
                    }
                    events.push(ev(PathEventKind::Read, eff.read?));
                    let r = events.len() - 1;
                    out_ids[si].0 = Some(r);
                    if let Some(w) = eff.written {
                        let mut e = ev(PathEventKind::Write, w);
                        e.rmw_read = Some(r);
                        e.data_deps = opd;
                        events.push(e);
                        out_ids[si].1 = Some(events.len() - 1);
                    }
                    if let Some(d) = dst {
                        taint[*d] = vec![r];
                    }
                }
                Op::Fence => events.push(ev(PathEventKind::Fence, 0)),
                _ => return None,
            }
            k += 1;
        }
        paths.push(ThreadPath {
            events,
            regs: vec![],
            undefs: vec![],
            end: PathEnd::Paused,
            ub: None,
        });
    }
    Some((paths, out_ids))
}

/// Is the lasso's unrolling (prefix, then the cycle twice) a consistent
/// execution of the model, with rf and co as in the interleaving?
pub fn lasso_consistent(p: &Program, model: &Model, codes: &[Code], l: &Lasso) -> Result<bool> {
    let steps: Vec<&Step> = l
        .prefix
        .iter()
        .chain(&l.cycle)
        .chain(&l.cycle)
        .filter(|s| s.instr.is_some())
        .collect();
    let Some((paths, ids)) = paths_of(p, codes, &steps) else {
        return Ok(false);
    };
    // rf and co in interleaving order.
    let nloc = p.locations.len();
    let mut last: Vec<W> = (0..nloc).map(W::Init).collect();
    let mut rf: Vec<(W, (usize, usize))> = vec![];
    let mut co: Vec<Vec<W>> = (0..nloc).map(|l| vec![W::Init(l)]).collect();
    for (si, s) in steps.iter().enumerate() {
        let Some(loc) = s.effect.loc else { continue };
        if let Some(r) = ids[si].0 {
            rf.push((last[loc], (s.thread, r)));
        }
        if let Some(w) = ids[si].1 {
            last[loc] = W::Ev(s.thread, w);
            co[loc].push(W::Ev(s.thread, w));
        }
    }
    let prep = explicit::prepare(p, model)?;
    let refs: Vec<&ThreadPath> = paths.iter().collect();
    explicit::consistent_with(p, &prep, &refs, &|sk| {
        let id = |w: W| match w {
            W::Init(l) => sk.init_of[l],
            W::Ev(t, k) => Some(sk.thread_events[t][k]),
        };
        let n = sk.n();
        let mut rfr = Relation::empty(n);
        for &(w, (t, k)) in &rf {
            if let Some(w) = id(w) {
                rfr.insert(w, sk.thread_events[t][k]);
            }
        }
        let mut cor = Relation::empty(n);
        for ws in &co {
            let ids: Vec<usize> = ws.iter().filter_map(|&w| id(w)).collect();
            for a in 0..ids.len() {
                for b in a + 1..ids.len() {
                    cor.insert(ids[a], ids[b]);
                }
            }
        }
        (rfr, cor)
    })
}
