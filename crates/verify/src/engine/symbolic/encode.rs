//! The formula: well-formed executions (rf, co, `sync_fence`, barriers),
//! the model (every unit of the compiled `.cat` program, eagerly, over
//! symbolic sets and relations), axioms, final states and conditions.

use super::acyclic;
use super::bv::{self, Bv};
use super::demand::{self, Mask};
use super::rel::{Ctx, RelAcc, SymRel, SymSet, SymVal};
use super::sat::{Lit, Polarity, Sat, FALSE, TRUE};
use super::unroll::{init_reg, Unrolled};
use crate::cat::{AxiomKind, BaseKind, Model, Op, OpCode, Unit, NONE};
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::exec::{base_kind, EventKind};
use crate::ir::{Arch, Cond, Term};
use crate::rel::{EventSet, Relation};
use std::collections::HashMap;

/// Bound on the symbolic iterations of one `let rec` fixpoint.
const MAX_FIX_ROUNDS: usize = 4096;

/// The most clauses vertex elimination may add for one component of an
/// acyclicity axiom; beyond, ranks (far fewer clauses, weaker
/// propagation).
const ELIMINATION_BUDGET: usize = 400_000;

pub struct Enc<'p> {
    pub sat: Sat,
    pub u: Unrolled<'p>,
    pub ctx: Ctx,
    /// rf as (write, read, literal); the literal implies both executed.
    pub rf: Vec<(usize, usize, Lit)>,
    pub rf_rel: SymRel,
    pub co_rel: SymRel,
    /// Non-initial same-location write pairs with their co literal.
    pub co_pairs: Vec<(usize, usize, Lit)>,
    pub sf_rel: SymRel,
    pub bar_rel: SymRel,
    /// Some group of barriers lacks its quorum: threads wait forever.
    pub bar_stuck: Lit,
    /// Values of the model's slots (after `encode_model`).
    slots: Vec<Option<SymVal>>,
    /// The demand on the result of the operator being encoded.
    mask: Option<Relation>,
    /// Its (first) operand is contained in a strict order in every
    /// execution (see [`demand::sub_orders`]).
    ordered: bool,
    /// Model inputs given by the caller instead of computed from the
    /// unrolling (`open`: symbolic tags and scope relations).
    pub overrides: HashMap<String, SymVal>,
}

fn kind_err(msg: &str) -> Error {
    Error::new(ErrorKind::Unsupported, format!("unsupported: {msg}"))
}

impl<'p> Enc<'p> {
    pub fn new(mut sat: Sat, u: Unrolled<'p>, partial_co: bool) -> Self {
        let ctx = Ctx::new(u.exec());
        let n = u.n();
        let mut e = Enc {
            sat,
            u,
            ctx,
            rf: vec![],
            rf_rel: SymRel::empty(n),
            co_rel: SymRel::empty(n),
            co_pairs: vec![],
            sf_rel: SymRel::empty(n),
            bar_rel: SymRel::empty(n),
            bar_stuck: FALSE,
            slots: vec![],
            mask: None,
            ordered: false,
            overrides: HashMap::new(),
        };
        e.encode_rf();
        e.encode_co(partial_co);
        e.encode_barriers();
        sat = std::mem::take(&mut e.sat);
        e.sat = sat;
        e
    }

    fn exec(&self, e: usize) -> Lit {
        self.u.events[e].exec
    }

    /// The formula, once the encoding is done with it.
    pub fn into_sat(self) -> Sat {
        self.sat
    }

    fn encode_rf(&mut self) {
        let n = self.u.n();
        let mut acc = RelAcc::new(n);
        let reads = self.u.reads.clone();
        for r in reads {
            let Some(ph) = self.u.events[r].ev.phys else {
                continue;
            };
            let cands: Vec<usize> = self.u.init_of[ph]
                .iter()
                .chain(&self.u.writes[ph])
                .copied()
                .collect();
            let er = self.exec(r);
            let mut lits = Vec::new();
            if !self.u.events[r].bits.is_empty() {
                for w in cands {
                    if self.exec(w) == FALSE {
                        continue;
                    }
                    let (rb, wb) = (&self.u.events[r].bits, &self.u.events[w].bits);
                    // Bits known on both sides that differ: never.
                    if rb
                        .iter()
                        .zip(wb)
                        .any(|(&a, &b)| a == -b && (a == TRUE || a == FALSE))
                    {
                        continue;
                    }
                    let pairs: Vec<(Lit, Lit)> =
                        rb.iter().copied().zip(wb.iter().copied()).collect();
                    let x = self.sat.var();
                    let ew = self.exec(w);
                    self.sat.implies(x, ew);
                    self.sat.implies(x, er);
                    for (a, b) in pairs {
                        if a != b {
                            self.sat.clause(&[-x, -a, b]);
                            self.sat.clause(&[-x, a, -b]);
                        }
                    }
                    lits.push(x);
                    self.rf.push((w, r, x));
                    acc.add(w, r, x);
                }
                self.reads_exactly_one(er, &lits);
                continue;
            }
            for w in cands {
                let wv = self.u.events[w].values.clone();
                let compatible = wv
                    .iter()
                    .any(|&(v, _)| self.u.events[r].value_lit(v) != FALSE);
                if !compatible || self.exec(w) == FALSE {
                    continue;
                }
                let x = self.sat.var();
                let ew = self.exec(w);
                self.sat.implies(x, ew);
                self.sat.implies(x, er);
                for (v, lw) in wv {
                    let lr = self.u.events[r].value_lit(v);
                    self.sat.clause(&[-x, -lw, lr]);
                }
                lits.push(x);
                self.rf.push((w, r, x));
                acc.add(w, r, x);
            }
            self.reads_exactly_one(er, &lits);
        }
        self.rf_rel = acc.finish(&mut self.sat);
    }

    /// An executed read reads from exactly one of its candidates `lits`.
    fn reads_exactly_one(&mut self, er: Lit, lits: &[Lit]) {
        let mut c = lits.to_vec();
        c.push(-er);
        self.sat.clause(&c);
        self.sat.at_most_one(lits);
    }

    fn encode_co(&mut self, partial: bool) {
        let n = self.u.n();
        let mut sure = Relation::empty(n);
        let mut acc_pairs: Vec<(usize, usize, Lit)> = Vec::new();
        let nloc = self.u.writes.len();
        for ph in 0..nloc {
            let ws = self.u.writes[ph].clone();
            if let Some(i) = self.u.init_of[ph] {
                for &w in &ws {
                    sure.insert(i, w);
                }
            }
            let m = ws.len();
            if m < 2 {
                continue;
            }
            // ord[a][b]: a before b.
            let mut ord = vec![FALSE; m * m];
            if partial {
                for a in 0..m {
                    for b in 0..m {
                        if a != b {
                            ord[a * m + b] = self.sat.var();
                        }
                    }
                }
                for a in 0..m {
                    for b in a + 1..m {
                        self.sat.clause(&[-ord[a * m + b], -ord[b * m + a]]);
                    }
                }
                for a in 0..m {
                    for b in 0..m {
                        for c in 0..m {
                            if a != b && b != c && a != c {
                                self.sat.clause(&[
                                    -ord[a * m + b],
                                    -ord[b * m + c],
                                    ord[a * m + c],
                                ]);
                            }
                        }
                    }
                }
            } else {
                self.total_order(&mut ord, m);
            }
            for a in 0..m {
                for b in 0..m {
                    if a != b {
                        acc_pairs.push((ws[a], ws[b], ord[a * m + b]));
                    }
                }
            }
        }
        let mut acc = RelAcc::with_sure(sure);
        for &(a, b, l) in &acc_pairs {
            acc.add(a, b, l);
        }
        self.co_rel = acc.finish(&mut self.sat);
        self.co_pairs = acc_pairs;
    }

    /// A strict total order on `m` elements: one variable per unordered
    /// pair, no 3-cycles (which makes it transitive).
    fn total_order(&mut self, ord: &mut [Lit], m: usize) {
        for a in 0..m {
            for b in a + 1..m {
                let x = self.sat.var();
                ord[a * m + b] = x;
                ord[b * m + a] = -x;
            }
        }
        for a in 0..m {
            for b in a + 1..m {
                for c in b + 1..m {
                    let (ab, bc, ac) = (ord[a * m + b], ord[b * m + c], ord[a * m + c]);
                    self.sat.clause(&[-ab, -bc, ac]);
                    self.sat.clause(&[ab, bc, -ac]);
                }
            }
        }
    }

    /// `sync_fence`: the orientation, by a total order of all SC fences,
    /// of the `sr`-related pairs.
    pub fn encode_sync_fence(&mut self) {
        let n = self.u.n();
        let Some(sc) = self.u.vocab.index("SC") else {
            return;
        };
        let fences: Vec<usize> = (0..n)
            .filter(|&i| {
                self.u.events[i].ev.kind == EventKind::Fence
                    && self.u.events[i].ev.tags.contains(&sc)
            })
            .collect();
        let m = fences.len();
        if m < 2 {
            return;
        }
        let sk = self.u.pseudo_skeleton();
        let Some(sr) = sk.static_relation("sr", &self.u.vocab) else {
            return;
        };
        let mut ord = vec![FALSE; m * m];
        self.total_order(&mut ord, m);
        let mut acc = RelAcc::new(n);
        for a in 0..m {
            for b in 0..m {
                if a != b && sr.contains(fences[a], fences[b]) {
                    acc.add(fences[a], fences[b], ord[a * m + b]);
                }
            }
        }
        self.sf_rel = acc.finish(&mut self.sat);
    }

    /// Barrier matching (docs/SEMANTICS.md), per group of potential
    /// members (same scope instance, same runtime id).
    fn encode_barriers(&mut self) {
        let n = self.u.n();
        let level = match self.u.program.arch {
            Arch::Ptx | Arch::C => 0,
            Arch::Vulkan => 1,
        };
        type GroupKey = (Vec<i64>, i64);
        let mut groups: Vec<(GroupKey, Vec<(usize, Lit)>)> = Vec::new();
        for b in 0..n {
            let e = &self.u.events[b];
            if e.ev.kind != EventKind::Barrier {
                continue;
            }
            let Some(t) = e.ev.thread else { continue };
            let pl = &self.u.program.threads[t].placement.ids;
            let key = pl[level.min(pl.len())..].to_vec();
            for &(id, lid) in &e.barrier_ids.clone() {
                let ex = self.exec(b);
                let m = self.sat.and2(ex, lid);
                if m == FALSE {
                    continue;
                }
                let k = (key.clone(), id);
                match groups.iter_mut().find(|(gk, _)| *gk == k) {
                    Some(g) => g.1.push((b, m)),
                    None => groups.push((k, vec![(b, m)])),
                }
            }
        }
        let mut acc = RelAcc::new(n);
        let mut stuck_all = Vec::new();
        let program = self.u.program;
        for ((key, id), members) in groups {
            // No member can have a quorum: every arrival is released with
            // the others, no member waits forever — the pairs are those of
            // members that arrive, without a choice (a sure relation where
            // they surely arrive).
            let no_quorum = members.iter().all(|&(b, _)| {
                self.u.events[b]
                    .barrier_counts
                    .iter()
                    .all(|(c, _)| c.is_none())
            });
            if no_quorum {
                // In a kernel, released once every thread of its block (or
                // warp) has arrived or exited, and until then every arrival
                // waits (docs/SEMANTICS.md, "Barriers"); in a litmus test,
                // always.
                let released = match super::super::exec::waits_for_block(program) {
                    true => self.all_arrived_or_done(&key, id, &members),
                    false => TRUE,
                };
                let mut waiting = Vec::new();
                for &(b, m) in &members {
                    let s = self.u.events[b].stuck;
                    self.sat.clause(&[-m, released, s]);
                    if s != FALSE {
                        self.sat.clause(&[-m, -released, -s]);
                        waiting.push(self.sat.and2(m, s));
                    }
                }
                stuck_all.push(self.sat.or(&waiting));
                for &(a, ma) in &members {
                    for &(b, mb) in &members {
                        if a != b && !self.u.events[b].arrive {
                            let l = self.sat.and(&[ma, mb, released]);
                            acc.add(a, b, l);
                        }
                    }
                }
                continue;
            }
            let mlits: Vec<Lit> = members.iter().map(|&(_, m)| m).collect();
            // Quorum: the count of the first member that has one.
            let mut earlier_hc: Vec<Lit> = Vec::new();
            let mut q: Vec<(i64, Vec<Lit>)> = Vec::new();
            for &(b, m) in &members {
                let counts = self.u.events[b].barrier_counts.clone();
                let has: Vec<Lit> = counts
                    .iter()
                    .filter(|(c, _)| c.is_some())
                    .map(|&(_, l)| l)
                    .collect();
                let has = self.sat.or(&has);
                let hc = self.sat.and2(m, has);
                let mut f = vec![hc];
                f.extend(earlier_hc.iter().map(|&l| -l));
                let first = self.sat.and(&f);
                earlier_hc.push(hc);
                for (c, lc) in counts {
                    if let Some(c) = c {
                        let l = self.sat.and2(first, lc);
                        match q.iter_mut().find(|(x, _)| *x == c) {
                            Some(e) => e.1.push(l),
                            None => q.push((c, vec![l])),
                        }
                    }
                }
            }
            let no_q = -self.sat.or(&earlier_hc);
            let mut st = Vec::new();
            for &(b, m) in &members {
                let s = self.u.events[b].stuck;
                st.push(self.sat.and2(m, s));
            }
            let any_stuck = self.sat.or(&st);
            let rel: Vec<Lit> = members.iter().map(|_| self.sat.var()).collect();
            for (i, &(_, m)) in members.iter().enumerate() {
                self.sat.implies(rel[i], m);
                self.sat.clause(&[-no_q, -m, rel[i]]);
            }
            self.sat.clause(&[-no_q, -any_stuck]);
            let msize = members.len();
            for (c, ls) in q {
                let qc = self.sat.or(&ls);
                let need = c.max(0) as usize;
                let ge = if need == 0 {
                    TRUE
                } else if need > msize {
                    FALSE
                } else {
                    let cnt = self.sat.at_least(&mlits, need);
                    cnt[need - 1]
                };
                let short = self.sat.and2(qc, -ge);
                let ok = self.sat.and2(qc, ge);
                for (i, &(b, m)) in members.iter().enumerate() {
                    if !self.u.events[b].arrive {
                        let s = self.u.events[b].stuck;
                        self.sat.clause(&[-short, -m, s]);
                    }
                    self.sat.clause(&[-short, -rel[i]]);
                }
                stuck_all.push(short);
                self.sat.clause(&[-ok, -any_stuck]);
                let cnt = self.sat.at_least(&rel, (need + 1).min(msize));
                if need >= 1 {
                    if need <= cnt.len() {
                        self.sat.clause(&[-ok, cnt[need - 1]]);
                    } else {
                        self.sat.clause(&[-ok]);
                    }
                }
                if need < cnt.len() {
                    self.sat.clause(&[-ok, -cnt[need]]);
                }
            }
            for (i, &(a, _)) in members.iter().enumerate() {
                for &(b, mb) in &members {
                    if a != b && !self.u.events[b].arrive {
                        let l = self.sat.and2(rel[i], mb);
                        acc.add(a, b, l);
                    }
                }
            }
        }
        // A member waiting forever must be explained by its group.
        for b in 0..n {
            let e = &self.u.events[b];
            if e.ev.kind == EventKind::Barrier && e.stuck != FALSE && e.barrier_ids.is_empty() {
                let s = e.stuck;
                self.sat.clause(&[-s]);
            }
        }
        self.bar_stuck = self.sat.or(&stuck_all);
        self.bar_rel = acc.finish(&mut self.sat);
    }

    /// Whether every thread a kernel's barrier group (`key`, `id`) waits
    /// for has arrived (one of `members`: event, membership literal) or run
    /// to its end.
    fn all_arrived_or_done(&mut self, key: &[i64], id: i64, members: &[(usize, Lit)]) -> Lit {
        let mut arrived: HashMap<usize, Vec<Lit>> = HashMap::new();
        for &(b, m) in members {
            if let Some(t) = self.u.events[b].ev.thread {
                arrived.entry(t).or_default().push(m);
            }
        }
        let mut ok = Vec::new();
        for v in super::super::exec::barrier_threads(self.u.program, key, id) {
            let mut ways = arrived.remove(&v).unwrap_or_default();
            ways.push(self.u.threads[v].done);
            ok.push(self.sat.or(&ways));
        }
        self.sat.and(&ok)
    }

    /// `fr = rf^-1 ; co` (the base relation).
    fn fr(&mut self) -> SymRel {
        let inv = self.rf_rel.inv();
        inv.seq(&self.co_rel, &self.ctx, &mut self.sat, None)
    }

    /// The events tagged `t`: `success`, the events whose tags say so
    /// (a compare-and-swap's read: when it succeeds), corrected for the
    /// reads of compare-and-swaps with failure tags of their own, which
    /// carry `t` under their outcome's literal.
    fn tag_set(&self, t: usize, success: EventSet) -> SymSet {
        let mut set = SymSet::sure(success);
        let mut sym = Vec::new();
        for (e, ev) in self.u.events.iter().enumerate() {
            let Some((failed, tags)) = &ev.failed else {
                continue;
            };
            let lit = match (set.sure.contains(e), tags.contains(&t)) {
                (true, true) | (false, false) => continue,
                (true, false) => -*failed,
                (false, true) => *failed,
            };
            // (The sets keep constants out of `sym`.)
            match lit {
                TRUE => set.sure.insert(e),
                FALSE => set.sure.remove(e),
                _ => {
                    set.sure.remove(e);
                    sym.push((e as u32, lit));
                }
            }
        }
        sym.sort_unstable();
        set.sym = sym;
        set
    }

    fn input(&mut self, name: &str, kind: BaseKind) -> Result<SymVal> {
        if let Some(v) = self.overrides.get(name) {
            return Ok(v.clone());
        }
        let n = self.u.n();
        let sk = self.u.pseudo_skeleton();
        Ok(match (name, kind) {
            (_, BaseKind::Set) => SymVal::Set(match self.u.vocab.index(name) {
                Some(t) => self.tag_set(t, sk.tagged(t)),
                None => SymSet::sure(EventSet::empty(n)),
            }),
            ("rf", _) => SymVal::Rel(self.rf_rel.clone()),
            ("co", _) => SymVal::Rel(self.co_rel.clone()),
            ("fr", _) => SymVal::Rel(self.fr()),
            ("po", _) => SymVal::Rel(self.u.po.clone()),
            ("addr", _) => SymVal::Rel(self.u.addr.clone()),
            ("data", _) => SymVal::Rel(self.u.data.clone()),
            ("ctrl", _) => SymVal::Rel(self.u.ctrl.clone()),
            ("rmw", _) => SymVal::Rel(self.u.rmw.clone()),
            ("sync_fence", _) => {
                if self.sf_rel.may_len() == 0 {
                    self.encode_sync_fence();
                }
                SymVal::Rel(self.sf_rel.clone())
            }
            ("sync_barrier" | "syncbar", _) => SymVal::Rel(self.bar_rel.clone()),
            (other, _) => match sk.static_relation(other, &self.u.vocab) {
                Some(r) => SymVal::Rel(SymRel::sure(r)),
                None => {
                    return Err(Error::new(
                        ErrorKind::Semantic,
                        format!("model input `{other}` is not provided by the engine"),
                    ))
                }
            },
        })
    }

    /// Encodes every unit of the model that one of `needed` (axiom
    /// indices) depends on.
    pub fn encode_model(&mut self, model: &Model, needed: &[usize]) -> Result<()> {
        self.encode_model_wants(model, needed, None)
    }

    /// [`Enc::encode_model`], with the direction each needed axiom's test
    /// is used in (`wants[k]`: true if the test must hold — a consistency
    /// axiom satisfied, a flag firing — false if it must fail); `None`:
    /// consistency axioms hold and flags are read both ways.
    pub fn encode_model_wants(
        &mut self,
        model: &Model,
        needed: &[usize],
        wants: Option<&[bool]>,
    ) -> Result<()> {
        for (name, kind) in model.inputs() {
            if base_kind(name, Some(&self.u.vocab)) != Some(*kind) {
                return Err(Error::new(
                    ErrorKind::Semantic,
                    format!("model input `{name}` is not provided by the engine"),
                ));
            }
        }
        let units = model.units();
        let kinds = model.slot_kinds();
        // Which units are needed: walk back from the axioms' slots.
        let mut producer: Vec<usize> = vec![usize::MAX; kinds.len()];
        for (ui, u) in units.iter().enumerate() {
            match u {
                Unit::Input(i) => producer[model.input_slot(*i) as usize] = ui,
                Unit::Op(op) => producer[op.dst as usize] = ui,
                Unit::Fix(f) => {
                    for &v in &f.vars {
                        producer[v as usize] = ui;
                    }
                    for op in &f.body {
                        producer[op.dst as usize] = ui;
                    }
                }
            }
        }
        let mut need_unit = vec![false; units.len()];
        let mut stack: Vec<usize> = needed
            .iter()
            .map(|&a| producer[model.axiom_slot(a) as usize])
            .collect();
        while let Some(ui) = stack.pop() {
            if ui == usize::MAX || std::mem::replace(&mut need_unit[ui], true) {
                continue;
            }
            for s in unit_reads(&units[ui]) {
                let pu = producer[s as usize];
                if pu != ui {
                    stack.push(pu);
                }
            }
        }
        let pol = polarities(model, needed, wants, &need_unit);
        self.slots = vec![None; kinds.len()];
        let trace = std::env::var("GPUMC_SYMBOLIC_DEBUG").is_ok_and(|v| v == "2");
        // The inputs first: their supports start the demand analysis.
        let n = self.u.n();
        let mut input_masks: Vec<Option<(Mask, Mask)>> = vec![None; kinds.len()];
        for (ui, unit) in units.iter().enumerate() {
            if let (true, Unit::Input(i)) = (need_unit[ui], unit) {
                let (name, kind) = &model.inputs()[*i];
                let v = self.input(name, *kind)?;
                let s = model.input_slot(*i) as usize;
                input_masks[s] = Some(match &v {
                    SymVal::Set(x) => (Mask::Set(x.support()), Mask::Set(x.sure.clone())),
                    SymVal::Rel(r) => (Mask::Rel(r.support()), Mask::Rel(r.sure.clone())),
                });
                self.slots[s] = Some(v);
            }
        }
        let may = demand::may_values(model, &need_unit, input_masks, n);
        let orders = demand::sub_orders(model, &need_unit);
        let mut dem = demand::demands(model, needed, &need_unit, &may, n);
        drop(may);
        // Values (dense n×n relations each) are dropped after their last
        // reader: only the axioms' slots are read after this function.
        let last_read = last_reads(model, units, &need_unit);
        let mut keep = vec![false; kinds.len()];
        for i in 0..model.axioms().len() {
            keep[model.axiom_slot(i) as usize] = true;
        }
        let restrict = |v: SymVal, d: &Option<Mask>| -> SymVal {
            match (v, d) {
                (SymVal::Set(x), Some(Mask::Set(m))) => SymVal::Set(x.restrict_to(m)),
                (SymVal::Rel(r), Some(Mask::Rel(m))) => SymVal::Rel(r.restrict_to(m)),
                (SymVal::Set(_), None) => SymVal::Set(SymSet::empty(n)),
                (SymVal::Rel(_), None) => SymVal::Rel(SymRel::empty(n)),
                (v, _) => v,
            }
        };
        for (ui, unit) in units.iter().enumerate() {
            if !need_unit[ui] {
                continue;
            }
            self.sat.check()?;
            match unit {
                Unit::Input(i) => {
                    let s = model.input_slot(*i) as usize;
                    let v = self.slots[s].take().expect("input encoded above");
                    self.slots[s] = Some(restrict(v, &dem[s].take()));
                }
                Unit::Op(op) if dem[op.dst as usize].is_none() => {
                    // Nothing of it is demanded: it would be computed only
                    // to be dropped.
                    self.slots[op.dst as usize] = Some(empty_of(kinds[op.dst as usize], n));
                }
                Unit::Op(op) => {
                    let (t0, v0, c0) = (
                        std::time::Instant::now(),
                        self.sat.num_vars(),
                        self.sat.num_clauses(),
                    );
                    self.mask = dem[op.dst as usize].as_ref().and_then(|m| m.rel()).cloned();
                    self.ordered = op.a != NONE && orders[op.a as usize].is_some();
                    self.sat.polarity = match pol[op.dst as usize] {
                        Polarity::NONE => Polarity::BOTH,
                        p => p,
                    };
                    let v = self.op(op, kinds);
                    self.sat.polarity = Polarity::BOTH;
                    self.mask = None;
                    self.ordered = false;
                    let v = restrict(v?, &dem[op.dst as usize].take());
                    if trace {
                        let size = match &v {
                            SymVal::Rel(r) => (r.sure.len(), r.sym.len()),
                            SymVal::Set(x) => (x.sure.len(), x.sym.len()),
                        };
                        eprintln!(
                            "  {:?}({} {}) -> slot {} {} {:?}: sure {} sym {}; +{} vars +{} clauses, {:?}",
                            op.code,
                            op.a,
                            op.b,
                            op.dst,
                            model.slot_name(op.dst).unwrap_or(""),
                            pol[op.dst as usize],
                            size.0,
                            size.1,
                            self.sat.num_vars() - v0,
                            self.sat.num_clauses() - c0,
                            t0.elapsed()
                        );
                    }
                    self.slots[op.dst as usize] = Some(v);
                }
                Unit::Fix(f) => {
                    let n = self.u.n();
                    for &v in &f.vars {
                        self.slots[v as usize] = Some(empty_of(kinds[v as usize], n));
                    }
                    let mut rounds = 0usize;
                    loop {
                        self.sat.check()?;
                        for op in &f.body {
                            let v = self.op(op, kinds)?;
                            self.slots[op.dst as usize] = Some(v);
                        }
                        let mut changed = false;
                        for (&v, &r) in f.vars.iter().zip(&f.results) {
                            if v != r && self.slots[v as usize] != self.slots[r as usize] {
                                changed = true;
                                self.slots[v as usize] = self.slots[r as usize].clone();
                            }
                        }
                        rounds += 1;
                        if !changed {
                            break;
                        }
                        if rounds > MAX_FIX_ROUNDS {
                            return Err(kind_err(
                                "a `let rec` fixpoint too deep for the symbolic engine",
                            ));
                        }
                    }
                }
            }
            for s in unit_slots(unit) {
                let s = s as usize;
                if !keep[s] && last_read[s].is_none_or(|r| r <= ui) {
                    self.slots[s] = None;
                }
            }
        }
        Ok(())
    }

    fn slot(&self, s: u32) -> Result<&SymVal> {
        self.slots
            .get(s as usize)
            .and_then(|v| v.as_ref())
            .ok_or_else(|| kind_err("model slot used before it is computed"))
    }

    fn rel(&self, s: u32) -> Result<SymRel> {
        match self.slot(s)? {
            SymVal::Rel(r) => Ok(r.clone()),
            SymVal::Set(_) => Err(kind_err("a set where a relation was expected")),
        }
    }

    fn set(&self, s: u32) -> Result<SymSet> {
        match self.slot(s)? {
            SymVal::Set(r) => Ok(r.clone()),
            SymVal::Rel(_) => Err(kind_err("a relation where a set was expected")),
        }
    }

    fn op(&mut self, op: &Op, _kinds: &[BaseKind]) -> Result<SymVal> {
        use OpCode::*;
        let n = self.u.n();
        let a = op.a;
        let b = op.b;
        Ok(match op.code {
            EmptySet => SymVal::Set(SymSet::empty(n)),
            FullSet => SymVal::Set(SymSet::sure(EventSet::full(n))),
            EmptyRel => SymVal::Rel(SymRel::empty(n)),
            FullRel => SymVal::Rel(SymRel::sure(Relation::product(
                &EventSet::full(n),
                &EventSet::full(n),
            ))),
            Id => SymVal::Rel(SymRel::sure(Relation::identity(n))),
            SetUnion => SymVal::Set(self.set(a)?.union(&self.set(b)?, &mut self.sat)),
            SetInter => SymVal::Set(self.set(a)?.inter(&self.set(b)?, &mut self.sat)),
            SetDiff => SymVal::Set(self.set(a)?.diff(&self.set(b)?, &mut self.sat)),
            SetCompl => SymVal::Set(self.set(a)?.compl()),
            RelUnion => SymVal::Rel(self.rel(a)?.union(&self.rel(b)?, &mut self.sat)),
            RelInter => SymVal::Rel(self.rel(a)?.inter(&self.rel(b)?, &mut self.sat)),
            RelDiff => SymVal::Rel(self.rel(a)?.diff(&self.rel(b)?, &mut self.sat)),
            RelCompl => SymVal::Rel(self.rel(a)?.compl()),
            Seq => {
                let (x, y) = (self.rel(a)?, self.rel(b)?);
                SymVal::Rel(x.seq(&y, &self.ctx, &mut self.sat, self.mask.as_ref()))
            }
            Inv => SymVal::Rel(self.rel(a)?.inv()),
            Plus => {
                let x = self.rel(a)?;
                SymVal::Rel(x.plus(&self.ctx, &mut self.sat, self.mask.as_ref(), self.ordered))
            }
            Star => {
                let x = self.rel(a)?;
                let p = x.plus(&self.ctx, &mut self.sat, self.mask.as_ref(), self.ordered);
                SymVal::Rel(p.add_identity(&mut self.sat))
            }
            Opt => SymVal::Rel(self.rel(a)?.add_identity(&mut self.sat)),
            IdOn => SymVal::Rel(SymRel::id_on(&self.set(a)?)),
            Prod => SymVal::Rel(SymRel::prod(&self.set(a)?, &self.set(b)?, &mut self.sat)),
            Domain => {
                let x = self.rel(a)?;
                SymVal::Set(x.domain(&self.ctx, &mut self.sat))
            }
            Range => {
                let x = self.rel(a)?;
                SymVal::Set(x.range(&self.ctx, &mut self.sat))
            }
        })
    }

    /// The literals "element is present" (execution conjoined) of a value.
    fn present(&mut self, v: &SymVal) -> Vec<(usize, usize, Lit)> {
        match v {
            SymVal::Set(s) => s
                .entries()
                .into_iter()
                .map(|(a, l)| {
                    let ea = self.ctx.exec[a];
                    (a, a, self.sat.and2(ea, l))
                })
                .collect(),
            SymVal::Rel(r) => r
                .entries()
                .into_iter()
                .map(|(a, b, l)| {
                    let (ea, eb) = (self.ctx.exec[a], self.ctx.exec[b]);
                    (a, b, self.sat.and(&[ea, eb, l]))
                })
                .collect(),
        }
    }

    /// Asserts consistency axiom `i`.
    pub fn assert_axiom(&mut self, model: &Model, i: usize) -> Result<()> {
        let ax = &model.axioms()[i];
        let v = self.slot(model.axiom_slot(i))?.clone();
        match ax.kind {
            AxiomKind::Empty => {
                for (_, _, l) in self.present(&v) {
                    self.sat.clause(&[-l]);
                }
            }
            AxiomKind::NotEmpty => {
                let ls: Vec<Lit> = self.present(&v).into_iter().map(|x| x.2).collect();
                self.sat.clause(&ls);
            }
            AxiomKind::Irreflexive => {
                if let SymVal::Rel(r) = &v {
                    for (a, b, l) in r.entries() {
                        if a == b {
                            let ea = self.ctx.exec[a];
                            self.sat.clause(&[-ea, -l]);
                        }
                    }
                }
            }
            AxiomKind::Acyclic => {
                if let SymVal::Rel(r) = &v {
                    self.acyclic(r);
                }
            }
        }
        Ok(())
    }

    /// A literal that holds iff flag axiom `i` fires.
    pub fn flag_fires(&mut self, model: &Model, i: usize) -> Result<Lit> {
        let ax = &model.axioms()[i];
        let v = self.slot(model.axiom_slot(i))?.clone();
        let ls: Vec<Lit> = self.present(&v).into_iter().map(|x| x.2).collect();
        let some = self.sat.or(&ls);
        Ok(match ax.kind {
            AxiomKind::NotEmpty => some,
            AxiomKind::Empty => -some,
            _ => FALSE,
        })
    }

    /// The entries of flag axiom `i`'s relation (a set's members as
    /// loops), each with the literal "present in an executed pair": what
    /// [`Enc::flag_fires`] ORs. Empty for a flag that fires on an empty
    /// relation (`flag empty`), which has no pair to name.
    pub fn flag_entries(&mut self, model: &Model, i: usize) -> Result<Vec<(usize, usize, Lit)>> {
        if model.axioms()[i].kind != AxiomKind::NotEmpty {
            return Ok(vec![]);
        }
        let v = self.slot(model.axiom_slot(i))?.clone();
        Ok(self.present(&v))
    }

    /// A literal that implies that the test of axiom `i` holds (`holds`)
    /// or fails, given the direction it was encoded in
    /// ([`Enc::encode_model_wants`]). A failing acyclicity test is a cycle
    /// of the relation's transitive closure.
    pub fn test_lit(&mut self, model: &Model, i: usize, holds: bool) -> Result<Lit> {
        let ax = &model.axioms()[i];
        let v = self.slot(model.axiom_slot(i))?.clone();
        let present = |enc: &mut Self, v: &SymVal| -> Lit {
            let ls: Vec<Lit> = enc.present(v).into_iter().map(|x| x.2).collect();
            enc.sat.or(&ls)
        };
        let diagonal = |enc: &mut Self, r: &SymRel| -> Lit {
            let ls: Vec<Lit> = r
                .entries()
                .into_iter()
                .filter(|(a, b, _)| a == b)
                .map(|(a, _, l)| {
                    let ea = enc.ctx.exec[a];
                    enc.sat.and2(ea, l)
                })
                .collect();
            enc.sat.or(&ls)
        };
        let saved = self.sat.polarity;
        // The gates below follow the direction the slot was encoded in.
        let up = match ax.kind {
            AxiomKind::NotEmpty => !holds,
            _ => holds,
        };
        self.sat.polarity = if up { Polarity::UP } else { Polarity::DOWN };
        let lit = match (ax.kind, &v) {
            (AxiomKind::Empty, _) => {
                let some = present(self, &v);
                if holds {
                    -some
                } else {
                    some
                }
            }
            (AxiomKind::NotEmpty, _) => {
                let some = present(self, &v);
                if holds {
                    some
                } else {
                    -some
                }
            }
            (AxiomKind::Irreflexive, SymVal::Rel(r)) => {
                let d = diagonal(self, r);
                if holds {
                    -d
                } else {
                    d
                }
            }
            (AxiomKind::Acyclic, SymVal::Rel(r)) => {
                let p = r.plus(&self.ctx, &mut self.sat, None, false);
                let d = diagonal(self, &p);
                if holds {
                    -d
                } else {
                    d
                }
            }
            _ => {
                self.sat.polarity = saved;
                return Err(kind_err(
                    "an axiom over a set where a relation was expected",
                ));
            }
        };
        self.sat.polarity = saved;
        Ok(lit)
    }

    /// Acyclicity, per non-trivial strongly connected component of the
    /// may-graph: by vertex elimination ([`acyclic`]) where its fill-in is
    /// small, otherwise by ranks (binary counters) that every present edge
    /// inside the component must increase.
    fn acyclic(&mut self, r: &SymRel) {
        let n = r.n();
        let entries = r.entries();
        let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(a, b, l) in &entries {
            if a == b {
                let ea = self.ctx.exec[a];
                self.sat.clause(&[-ea, -l]);
            } else {
                adj[a].push(b);
            }
        }
        let comp = scc(&adj);
        let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
        for (e, &c) in comp.iter().enumerate() {
            members.entry(c).or_default().push(e);
        }
        let mut by_comp: HashMap<usize, Vec<(usize, usize, Lit)>> = HashMap::new();
        for &(a, b, l) in &entries {
            if a != b && comp[a] == comp[b] {
                by_comp.entry(comp[a]).or_default().push((a, b, l));
            }
        }
        let debug = std::env::var_os("GPUMC_SYMBOLIC_DEBUG").is_some();
        let mut comps: Vec<usize> = by_comp.keys().copied().collect();
        comps.sort_unstable();
        for c in comps {
            let nodes = &members[&c];
            let edges = &by_comp[&c];
            let m = nodes.len();
            let mut idx = HashMap::new();
            for (i, &e) in nodes.iter().enumerate() {
                idx.insert(e, i);
            }
            // Effective edges (present, both ends executed), each a fresh
            // variable that only has to be at least the edge: elimination
            // forces edge variables true along paths, which must not
            // constrain the relation's own literals.
            let mut mat = vec![FALSE; m * m];
            for &(a, b, l) in edges {
                let (ea, eb) = (self.ctx.exec[a], self.ctx.exec[b]);
                let e = self.sat.var();
                self.sat.clause(&[-l, -ea, -eb, e]);
                mat[idx[&a] * m + idx[&b]] = e;
            }
            let order = acyclic::elimination_order(m, &mat, ELIMINATION_BUDGET);
            if debug {
                eprintln!(
                    "symbolic: acyclic component of {m} nodes, {} edges: {}",
                    edges.len(),
                    if order.is_some() {
                        "vertex elimination"
                    } else {
                        "ranks"
                    }
                );
            }
            match order {
                Some(order) => acyclic::eliminate(&mut self.sat, m, mat, &order),
                None => acyclic::ranks(&mut self.sat, m, &mat),
            }
        }
    }

    /// Per physical location, the write whose value is final: a co-maximal
    /// executed write. `first`: the first such write in event order (the
    /// races observer's reading); otherwise any of them (a free choice:
    /// each co-maximal write gives a final state).
    pub fn final_writes(&mut self, ph: usize, first: bool) -> Vec<(usize, Lit)> {
        let (ws, comax): (Vec<usize>, Vec<Lit>) = self.co_maximal(ph).into_iter().unzip();
        if first {
            let mut out = Vec::new();
            let mut before: Vec<Lit> = Vec::new();
            for (i, &w) in ws.iter().enumerate() {
                let mut parts = vec![comax[i]];
                parts.extend(before.iter().map(|&l| -l));
                out.push((w, self.sat.and(&parts)));
                before.push(comax[i]);
            }
            out
        } else {
            let sel: Vec<Lit> = ws.iter().map(|_| self.sat.var()).collect();
            self.sat.exactly_one(&sel);
            for (i, &s) in sel.iter().enumerate() {
                self.sat.implies(s, comax[i]);
            }
            ws.into_iter().zip(sel).collect()
        }
    }

    /// The writes of physical location `ph` (the initial one first), each
    /// with "executed and co-maximal".
    pub fn co_maximal(&mut self, ph: usize) -> Vec<(usize, Lit)> {
        let ws: Vec<usize> = self.u.init_of[ph]
            .iter()
            .chain(&self.u.writes[ph])
            .copied()
            .collect();
        let mut out = Vec::new();
        for &w in &ws {
            let mut parts = vec![self.exec(w)];
            for &x in &self.u.writes[ph] {
                if x != w {
                    let c = self.co_rel.get(w, x);
                    let ex = self.exec(x);
                    parts.push(-self.sat.and2(ex, c));
                }
            }
            out.push((w, self.sat.and(&parts)));
        }
        out
    }

    /// Liveness: a thread stopping in a spinning iteration repeats it
    /// forever only if the iteration's reads read co-maximal writes (the
    /// final values, which every later iteration reads again).
    pub fn encode_spinning(&mut self) {
        let mut spins: Vec<(Lit, Vec<usize>)> = Vec::new();
        for t in &self.u.threads {
            if let Some(live) = t.guarded.as_ref().and_then(|g| g.live.as_ref()) {
                spins.extend(live.spins.iter().cloned());
            }
        }
        if spins.is_empty() {
            return;
        }
        let mut final_of: HashMap<usize, Lit> = HashMap::new();
        for ph in 0..self.u.writes.len() {
            for (w, l) in self.co_maximal(ph) {
                final_of.insert(w, l);
            }
        }
        let mut rf_of: HashMap<usize, Vec<(usize, Lit)>> = HashMap::new();
        for &(w, r, x) in &self.rf {
            rf_of.entry(r).or_default().push((w, x));
        }
        for (stop, reads) in spins {
            for r in reads {
                for &(w, x) in rf_of.get(&r).map_or(&[][..], |v| &v[..]) {
                    let f = final_of.get(&w).copied().unwrap_or(FALSE);
                    self.sat.clause(&[-stop, -x, f]);
                }
            }
        }
    }

    /// Whether values are bit-vectors (a guarded unrolling).
    pub fn bits_mode(&self) -> bool {
        self.u.threads.iter().any(|t| t.guarded.is_some())
    }

    /// The value of a term in the final state.
    pub fn term(
        &mut self,
        t: &Term,
        finals: &mut HashMap<usize, Vec<(usize, Lit)>>,
        first: bool,
    ) -> TermVal {
        if self.bits_mode() {
            return TermVal::Bits(self.term_bits(t, finals, first));
        }
        match t {
            Term::Const(c) => TermVal::Cases(vec![(*c, TRUE)]),
            Term::Reg(th, r) => {
                let fb = if first {
                    0
                } else {
                    init_reg(self.u.program, *th, r)
                };
                TermVal::Cases(self.u.final_reg(*th, r, fb, &mut self.sat))
            }
            Term::Loc(l) => {
                let Some(loc) = self.u.program.locations.get(*l) else {
                    return TermVal::Cases(vec![(0, TRUE)]);
                };
                let fw = self.finals_of(loc.phys, finals, first);
                let mut items = Vec::new();
                for (w, s) in fw {
                    for &(v, lv) in &self.u.events[w].values.clone() {
                        let l = self.sat.and2(s, lv);
                        items.push((v, l));
                    }
                }
                let mut groups: Vec<(i64, Vec<Lit>)> = Vec::new();
                for (v, l) in items {
                    match groups.iter_mut().find(|(x, _)| *x == v) {
                        Some(g) => g.1.push(l),
                        None => groups.push((v, vec![l])),
                    }
                }
                TermVal::Cases(
                    groups
                        .into_iter()
                        .map(|(v, ls)| {
                            let l = self.sat.or(&ls);
                            (v, l)
                        })
                        .collect(),
                )
            }
        }
    }

    fn finals_of(
        &mut self,
        ph: usize,
        finals: &mut HashMap<usize, Vec<(usize, Lit)>>,
        first: bool,
    ) -> Vec<(usize, Lit)> {
        if let std::collections::hash_map::Entry::Vacant(slot) = finals.entry(ph) {
            slot.insert(self.final_writes(ph, first));
        }
        finals[&ph].clone()
    }

    /// A term's final value as a bit-vector (guarded unrolling).
    fn term_bits(
        &mut self,
        t: &Term,
        finals: &mut HashMap<usize, Vec<(usize, Lit)>>,
        first: bool,
    ) -> Bv {
        match t {
            Term::Const(c) => bv::constant(*c),
            Term::Reg(th, r) => {
                let fb = if first {
                    0
                } else {
                    init_reg(self.u.program, *th, r)
                };
                self.u
                    .threads
                    .get(*th)
                    .and_then(|t| t.guarded.as_ref())
                    .and_then(|g| g.regs.iter().find(|(n, _)| n == r))
                    .map_or_else(|| bv::constant(fb), |(_, v)| v.clone())
            }
            Term::Loc(l) => {
                let Some(loc) = self.u.program.locations.get(*l) else {
                    return bv::constant(0);
                };
                let fw = self.finals_of(loc.phys, finals, first);
                // Exactly one final write is selected: OR of (selected ∧ bit).
                let mut out = Vec::with_capacity(bv::WIDTH);
                for k in 0..bv::WIDTH {
                    let parts: Vec<Lit> = fw
                        .iter()
                        .map(|&(w, s)| {
                            let b = self.u.events[w].bits[k];
                            self.sat.and2(s, b)
                        })
                        .collect();
                    out.push(self.sat.or(&parts));
                }
                out
            }
        }
    }

    /// A literal equivalent to condition `c` on the final state.
    pub fn cond(
        &mut self,
        c: &Cond,
        finals: &mut HashMap<usize, Vec<(usize, Lit)>>,
        first: bool,
    ) -> Lit {
        match c {
            Cond::True => TRUE,
            Cond::False => FALSE,
            Cond::Not(x) => -self.cond(x, finals, first),
            Cond::And(x, y) => {
                let a = self.cond(x, finals, first);
                let b = self.cond(y, finals, first);
                self.sat.and2(a, b)
            }
            Cond::Or(x, y) => {
                let a = self.cond(x, finals, first);
                let b = self.cond(y, finals, first);
                self.sat.or2(a, b)
            }
            Cond::Cmp(op, x, y) => {
                let (a, b) = match (self.term(x, finals, first), self.term(y, finals, first)) {
                    (TermVal::Cases(a), TermVal::Cases(b)) => (a, b),
                    (a, b) => {
                        let a = a.bits(&mut self.sat);
                        let b = b.bits(&mut self.sat);
                        return bv::cmp(&mut self.sat, *op, &a, &b);
                    }
                };
                let mut ls = Vec::new();
                for &(va, la) in &a {
                    for &(vb, lb) in &b {
                        if op.eval(va, vb) {
                            ls.push(self.sat.and2(la, lb));
                        }
                    }
                }
                self.sat.or(&ls)
            }
        }
    }
}

/// A final value: one literal per possible value, or a bit-vector.
pub enum TermVal {
    Cases(Vec<(i64, Lit)>),
    Bits(Bv),
}

impl TermVal {
    pub fn bits(self, sat: &mut Sat) -> Bv {
        match self {
            TermVal::Bits(b) => b,
            TermVal::Cases(cases) => (0..bv::WIDTH)
                .map(|k| {
                    let on: Vec<Lit> = cases
                        .iter()
                        .filter(|(v, _)| (v >> k) & 1 == 1)
                        .map(|(_, l)| *l)
                        .collect();
                    sat.or(&on)
                })
                .collect(),
        }
    }

    /// Literals whose disjunction says that the term's value is not `v`
    /// (a blocking clause's part for this term).
    pub fn differs(&self, v: i64, sat: &mut Sat) -> Vec<Lit> {
        match self {
            TermVal::Bits(b) => b
                .iter()
                .enumerate()
                .map(|(k, &l)| if (v >> k) & 1 == 1 { -l } else { l })
                .collect(),
            TermVal::Cases(c) => {
                let same: Vec<Lit> = c.iter().filter(|(x, _)| *x == v).map(|(_, l)| *l).collect();
                vec![-sat.or(&same)]
            }
        }
    }

    /// The value under the solver's model.
    pub fn value(&self, sat: &Sat) -> i64 {
        match self {
            TermVal::Bits(b) => bv::value(sat, b),
            TermVal::Cases(c) => c.iter().find(|(_, l)| sat.value(*l)).map_or(0, |(v, _)| *v),
        }
    }
}

/// The polarity each slot's encoding needs (see [`Polarity`]): a
/// consistency axiom forbids (its relation may be over-approximated:
/// `up`), a flag must fire for real on the model (`down`; `up` for
/// `flag empty`), a non-emptiness requirement needs `down`; operands of
/// monotone operators inherit their result's polarity, the subtracted
/// operand of a difference and the operand of a complement the flipped
/// one, and `let rec` fixpoints are encoded exactly.
fn polarities(
    model: &Model,
    needed: &[usize],
    wants: Option<&[bool]>,
    need_unit: &[bool],
) -> Vec<Polarity> {
    let units = model.units();
    let mut pol = vec![Polarity::NONE; model.slot_kinds().len()];
    for (k, &a) in needed.iter().enumerate() {
        let ax = &model.axioms()[a];
        let p = match (wants.map(|w| w[k]), ax.flag, ax.kind) {
            // The test must hold: `~empty` needs its members for real,
            // the others only an upper bound; failing is the reverse.
            (Some(true), _, AxiomKind::NotEmpty) => Polarity::DOWN,
            (Some(true), _, _) => Polarity::UP,
            (Some(false), _, AxiomKind::NotEmpty) => Polarity::UP,
            (Some(false), _, _) => Polarity::DOWN,
            (None, _, AxiomKind::NotEmpty) => Polarity::DOWN,
            (None, false, _) | (None, true, AxiomKind::Empty) => Polarity::UP,
            (None, true, _) => Polarity::BOTH,
        };
        let s = model.axiom_slot(a) as usize;
        pol[s] = pol[s].union(p);
    }
    for (ui, unit) in units.iter().enumerate().rev() {
        if !need_unit[ui] {
            continue;
        }
        match unit {
            Unit::Input(_) => {}
            Unit::Op(op) => {
                let p = pol[op.dst as usize];
                let (pa, pb) = match op.code {
                    OpCode::SetDiff | OpCode::RelDiff => (p, p.flip()),
                    OpCode::SetCompl | OpCode::RelCompl => (p.flip(), p.flip()),
                    _ => (p, p),
                };
                for (s, q) in [(op.a, pa), (op.b, pb)] {
                    if s != NONE {
                        pol[s as usize] = pol[s as usize].union(q);
                    }
                }
            }
            Unit::Fix(f) => {
                for op in &f.body {
                    for s in op.operands().chain([op.dst]) {
                        pol[s as usize] = Polarity::BOTH;
                    }
                }
                for &s in f.vars.iter().chain(&f.results) {
                    pol[s as usize] = Polarity::BOTH;
                }
            }
        }
    }
    pol
}

fn empty_of(k: BaseKind, n: usize) -> SymVal {
    match k {
        BaseKind::Set => SymVal::Set(SymSet::empty(n)),
        BaseKind::Relation => SymVal::Rel(SymRel::empty(n)),
    }
}

/// Strongly connected components (iterative Tarjan); returns a component
/// id per node.
fn scc(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < adj[v].len() {
                let w = adj[v][*i];
                *i += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(p, _)) = call.last() {
                    low[p] = low[p].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// The slots a unit reads or writes.
fn unit_slots(unit: &Unit) -> Vec<u32> {
    let mut slots = unit_reads(unit);
    match unit {
        Unit::Input(_) => {}
        Unit::Op(op) => slots.push(op.dst),
        Unit::Fix(f) => slots.extend(f.vars.iter().chain(f.body.iter().map(|op| &op.dst))),
    }
    slots
}

/// The slots a unit reads (a fixpoint: its body's operands and results).
fn unit_reads(unit: &Unit) -> Vec<u32> {
    match unit {
        Unit::Input(_) => vec![],
        Unit::Op(op) => op.operands().collect(),
        Unit::Fix(f) => f
            .body
            .iter()
            .flat_map(|op| op.operands())
            .chain(f.results.iter().copied())
            .collect(),
    }
}

/// Per slot, the last needed unit that reads it (`None`: none does).
fn last_reads(model: &Model, units: &[Unit], need_unit: &[bool]) -> Vec<Option<usize>> {
    let mut last = vec![None; model.slot_kinds().len()];
    for (ui, unit) in units.iter().enumerate() {
        if !need_unit[ui] {
            continue;
        }
        for s in unit_reads(unit) {
            last[s as usize] = Some(ui);
        }
    }
    last
}
