//! Symbolic sets and relations: the value of a `.cat` expression over all
//! potential events, as a *sure* part (a bitset) and a *symbolic* part
//! (sorted pairs with a SAT literal).
//!
//! # Relative semantics
//!
//! A pair's literal says whether the pair is in the relation *provided both
//! events are executed* (for a set: provided the event is executed). Pairs
//! absent from both parts are never in it. Static relations (`po` on one
//! path, `loc`, tags…) are therefore constant `true` — the sure part — no
//! matter which events execute, which is what keeps the encoding small.
//! Union, intersection, difference, complement (with the universe being
//! the executed events), inverse, products and identities commute with
//! this reading; composition, closures, `domain` and `range` must
//! conjoin the execution literal of the *intermediate* event, which they
//! do (an intermediate event equal to an end needs nothing).
//!
//! The sure part is the relation analysis' lower bound and sure ∪ symbolic
//! its upper bound (Dartagnan's may/must sets), computed as a by-product.

use super::sat::{Lit, Polarity, Sat, FALSE, TRUE};
use crate::rel::{EventSet, Relation};
use std::collections::HashMap;

/// What the relational operations need to know about events.
pub struct Ctx {
    /// Per event: "is executed".
    pub exec: Vec<Lit>,
    /// Events executed in every execution.
    pub ae: EventSet,
}

impl Ctx {
    pub fn new(exec: Vec<Lit>) -> Self {
        let n = exec.len();
        let ae = EventSet::from_iter(n, (0..n).filter(|&i| exec[i] == TRUE));
        Ctx { exec, ae }
    }

    #[inline]
    fn mid(&self, m: usize, x: usize, z: usize) -> Lit {
        if m == x || m == z {
            TRUE
        } else {
            self.exec[m]
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymSet {
    pub sure: EventSet,
    /// Sorted by event, disjoint from `sure`, literals never constant.
    pub sym: Vec<(u32, Lit)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymRel {
    pub sure: Relation,
    /// Sorted by pair, disjoint from `sure`, literals never constant.
    pub sym: Vec<(u32, u32, Lit)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymVal {
    Set(SymSet),
    Rel(SymRel),
}

/// Collects disjuncts per pair; `finish` ORs them. A disjunct is a
/// conjunction of literals; under [`Polarity::UP`] it becomes one clause
/// `conj ⇒ pair` with no gate of its own (only the up direction of the
/// sum of products is needed).
pub struct RelAcc {
    sure: Relation,
    /// Per pair, its disjuncts, each a conjunction ended by a 0.
    map: HashMap<(u32, u32), Vec<Lit>>,
}

impl RelAcc {
    pub fn new(n: usize) -> Self {
        RelAcc::with_sure(Relation::empty(n))
    }

    pub fn with_sure(sure: Relation) -> Self {
        RelAcc {
            sure,
            map: HashMap::new(),
        }
    }

    #[inline]
    pub fn add(&mut self, a: usize, b: usize, l: Lit) {
        self.add_and(a, b, &[l]);
    }

    /// Adds the disjunct `⋀ lits` to pair `(a, b)`.
    pub fn add_and(&mut self, a: usize, b: usize, lits: &[Lit]) {
        if self.sure.contains(a, b) || lits.contains(&FALSE) {
            return;
        }
        if lits.iter().all(|&l| l == TRUE) {
            self.sure.insert(a, b);
            self.map.remove(&(a as u32, b as u32));
            return;
        }
        let v = self.map.entry((a as u32, b as u32)).or_default();
        v.extend(lits.iter().copied().filter(|&l| l != TRUE));
        v.push(0);
    }

    pub fn finish(self, sat: &mut Sat) -> SymRel {
        let mut sure = self.sure;
        let mut sym = Vec::with_capacity(self.map.len());
        let direct = sat.polarity == Polarity::UP;
        // In pair order: the formula (and so the solver's run) must not
        // depend on the hash map's per-process seed.
        let mut pairs: Vec<((u32, u32), Vec<Lit>)> = self.map.into_iter().collect();
        pairs.sort_unstable_by_key(|p| p.0);
        for ((a, b), flat) in pairs {
            if sure.contains(a as usize, b as usize) {
                continue;
            }
            let terms = flat.split(|&l| l == 0).filter(|t| !t.is_empty());
            let l = if direct && terms.clone().count() > 1 {
                sat.sum_of_products_up(terms)
            } else {
                let lits: Vec<Lit> = terms.map(|t| sat.and(t)).collect();
                sat.or(&lits)
            };
            if l == TRUE {
                sure.insert(a as usize, b as usize);
            } else if l != FALSE {
                sym.push((a, b, l));
            }
        }
        sym.sort_unstable();
        SymRel { sure, sym }
    }
}

pub struct SetAcc {
    sure: EventSet,
    map: HashMap<u32, Vec<Lit>>,
}

impl SetAcc {
    pub fn new(n: usize) -> Self {
        SetAcc {
            sure: EventSet::empty(n),
            map: HashMap::new(),
        }
    }

    pub fn add(&mut self, a: usize, l: Lit) {
        if l == FALSE || self.sure.contains(a) {
            return;
        }
        if l == TRUE {
            self.sure.insert(a);
            self.map.remove(&(a as u32));
            return;
        }
        self.map.entry(a as u32).or_default().push(l);
    }

    pub fn finish(self, sat: &mut Sat) -> SymSet {
        let mut sure = self.sure;
        let mut sym = Vec::with_capacity(self.map.len());
        let mut items: Vec<(u32, Vec<Lit>)> = self.map.into_iter().collect();
        items.sort_unstable_by_key(|p| p.0);
        for (a, lits) in items {
            if sure.contains(a as usize) {
                continue;
            }
            let l = sat.or(&lits);
            if l == TRUE {
                sure.insert(a as usize);
            } else if l != FALSE {
                sym.push((a, l));
            }
        }
        sym.sort_unstable();
        SymSet { sure, sym }
    }
}

impl SymSet {
    /// The elements in `m` only.
    pub fn restrict_to(&self, m: &EventSet) -> SymSet {
        SymSet {
            sure: self.sure.intersection(m),
            sym: self
                .sym
                .iter()
                .copied()
                .filter(|&(a, _)| m.contains(a as usize))
                .collect(),
        }
    }

    /// The elements that may be present.
    pub fn support(&self) -> EventSet {
        let mut r = self.sure.clone();
        for &(a, _) in &self.sym {
            r.insert(a as usize);
        }
        r
    }

    pub fn empty(n: usize) -> Self {
        SymSet {
            sure: EventSet::empty(n),
            sym: vec![],
        }
    }

    pub fn sure(s: EventSet) -> Self {
        SymSet {
            sure: s,
            sym: vec![],
        }
    }

    pub fn get(&self, a: usize) -> Lit {
        if self.sure.contains(a) {
            return TRUE;
        }
        match self.sym.binary_search_by_key(&(a as u32), |&(x, _)| x) {
            Ok(i) => self.sym[i].1,
            Err(_) => FALSE,
        }
    }

    /// Every element that may be in the set, with its literal.
    pub fn entries(&self) -> Vec<(usize, Lit)> {
        let mut v: Vec<(usize, Lit)> = self.sure.iter().map(|a| (a, TRUE)).collect();
        v.extend(self.sym.iter().map(|&(a, l)| (a as usize, l)));
        v
    }

    pub fn union(&self, o: &SymSet, sat: &mut Sat) -> SymSet {
        let mut acc = SetAcc {
            sure: self.sure.union(&o.sure),
            map: HashMap::new(),
        };
        for &(a, l) in self.sym.iter().chain(&o.sym) {
            acc.add(a as usize, l);
        }
        acc.finish(sat)
    }

    pub fn inter(&self, o: &SymSet, sat: &mut Sat) -> SymSet {
        let mut acc = SetAcc {
            sure: self.sure.intersection(&o.sure),
            map: HashMap::new(),
        };
        for &(a, l) in &self.sym {
            let lo = o.get(a as usize);
            acc.add(a as usize, sat.and2(l, lo));
        }
        for &(a, l) in &o.sym {
            if self.sure.contains(a as usize) {
                acc.add(a as usize, l);
            }
        }
        acc.finish(sat)
    }

    pub fn diff(&self, o: &SymSet, sat: &mut Sat) -> SymSet {
        let mut sure = self.sure.difference(&o.sure);
        let mut acc_items = Vec::new();
        for &(a, lo) in &o.sym {
            if sure.contains(a as usize) {
                sure.remove(a as usize);
                acc_items.push((a as usize, -lo));
            }
        }
        let mut acc = SetAcc {
            sure,
            map: HashMap::new(),
        };
        for (a, l) in acc_items {
            acc.add(a, l);
        }
        for &(a, l) in &self.sym {
            let lo = o.get(a as usize);
            acc.add(a as usize, sat.and2(l, -lo));
        }
        acc.finish(sat)
    }

    pub fn compl(&self) -> SymSet {
        let mut sure = self.sure.complement();
        for &(a, _) in &self.sym {
            sure.remove(a as usize);
        }
        SymSet {
            sure,
            sym: self.sym.iter().map(|&(a, l)| (a, -l)).collect(),
        }
    }
}

impl SymRel {
    pub fn empty(n: usize) -> Self {
        SymRel {
            sure: Relation::empty(n),
            sym: vec![],
        }
    }

    pub fn sure(r: Relation) -> Self {
        SymRel {
            sure: r,
            sym: vec![],
        }
    }

    pub fn n(&self) -> usize {
        self.sure.universe()
    }

    pub fn get(&self, a: usize, b: usize) -> Lit {
        if self.sure.contains(a, b) {
            return TRUE;
        }
        match self
            .sym
            .binary_search_by_key(&(a as u32, b as u32), |&(x, y, _)| (x, y))
        {
            Ok(i) => self.sym[i].2,
            Err(_) => FALSE,
        }
    }

    /// Every pair that may be in the relation, with its literal.
    pub fn entries(&self) -> Vec<(usize, usize, Lit)> {
        let mut v: Vec<(usize, usize, Lit)> =
            self.sure.pairs().map(|(a, b)| (a, b, TRUE)).collect();
        v.extend(
            self.sym
                .iter()
                .map(|&(a, b, l)| (a as usize, b as usize, l)),
        );
        v
    }

    /// Number of pairs that may be in the relation.
    pub fn may_len(&self) -> usize {
        self.sure.len() + self.sym.len()
    }

    pub fn union(&self, o: &SymRel, sat: &mut Sat) -> SymRel {
        let mut acc = RelAcc::with_sure(self.sure.union(&o.sure));
        for &(a, b, l) in self.sym.iter().chain(&o.sym) {
            acc.add(a as usize, b as usize, l);
        }
        acc.finish(sat)
    }

    pub fn inter(&self, o: &SymRel, sat: &mut Sat) -> SymRel {
        let mut acc = RelAcc::with_sure(self.sure.intersection(&o.sure));
        for &(a, b, l) in &self.sym {
            let lo = o.get(a as usize, b as usize);
            if lo != FALSE {
                acc.add(a as usize, b as usize, sat.and2(l, lo));
            }
        }
        for &(a, b, l) in &o.sym {
            if self.sure.contains(a as usize, b as usize) {
                acc.add(a as usize, b as usize, l);
            }
        }
        acc.finish(sat)
    }

    pub fn diff(&self, o: &SymRel, sat: &mut Sat) -> SymRel {
        let mut sure = self.sure.difference(&o.sure);
        let mut items = Vec::new();
        for &(a, b, lo) in &o.sym {
            if sure.contains(a as usize, b as usize) {
                sure.remove(a as usize, b as usize);
                items.push((a as usize, b as usize, -lo));
            }
        }
        let mut acc = RelAcc::with_sure(sure);
        for (a, b, l) in items {
            acc.add(a, b, l);
        }
        for &(a, b, l) in &self.sym {
            let lo = o.get(a as usize, b as usize);
            acc.add(a as usize, b as usize, sat.and2(l, -lo));
        }
        acc.finish(sat)
    }

    pub fn compl(&self) -> SymRel {
        let mut sure = self.sure.complement();
        for &(a, b, _) in &self.sym {
            sure.remove(a as usize, b as usize);
        }
        SymRel {
            sure,
            sym: self.sym.iter().map(|&(a, b, l)| (a, b, -l)).collect(),
        }
    }

    /// The pairs in `m` only.
    pub fn restrict_to(&self, m: &Relation) -> SymRel {
        SymRel {
            sure: self.sure.intersection(m),
            sym: self
                .sym
                .iter()
                .copied()
                .filter(|&(a, b, _)| m.contains(a as usize, b as usize))
                .collect(),
        }
    }

    /// The pairs that may be present.
    pub fn support(&self) -> Relation {
        let mut r = self.sure.clone();
        for &(a, b, _) in &self.sym {
            r.insert(a as usize, b as usize);
        }
        r
    }

    pub fn inv(&self) -> SymRel {
        let mut sym: Vec<(u32, u32, Lit)> = self.sym.iter().map(|&(a, b, l)| (b, a, l)).collect();
        sym.sort_unstable();
        SymRel {
            sure: self.sure.inverse(),
            sym,
        }
    }

    /// Per row, the symbolic successors.
    fn sym_rows(&self) -> Vec<Vec<(u32, Lit)>> {
        let mut rows = vec![Vec::new(); self.n()];
        for &(a, b, l) in &self.sym {
            rows[a as usize].push((b, l));
        }
        rows
    }

    /// `self ; o`, conjoining the execution of the intermediate event;
    /// with a `mask`, only the pairs in it.
    pub fn seq(&self, o: &SymRel, ctx: &Ctx, sat: &mut Sat, mask: Option<&Relation>) -> SymRel {
        let n = self.n();
        let want = |x: usize, z: usize| mask.is_none_or(|m| m.contains(x, z));
        // Sure part: through always-executed events, or through an end.
        let mut sure = self
            .sure
            .restrict(&EventSet::full(n), &ctx.ae)
            .compose(&o.sure);
        for m in 0..n {
            if ctx.ae.contains(m) {
                continue;
            }
            if self.sure.contains(m, m) {
                for z in o.sure.successors_iter(m) {
                    sure.insert(m, z);
                }
            }
            if o.sure.contains(m, m) {
                for x in 0..n {
                    if self.sure.contains(x, m) {
                        sure.insert(x, m);
                    }
                }
            }
        }
        let mut acc = RelAcc::with_sure(sure);
        let o_rows = o.sym_rows();
        // (i) symbolic first step.
        for &(x, m, la) in &self.sym {
            let (x, m) = (x as usize, m as usize);
            for z in o.sure.successors_iter(m) {
                if want(x, z) {
                    let em = ctx.mid(m, x, z);
                    acc.add_and(x, z, &[la, em]);
                }
            }
            for &(z, lb) in &o_rows[m] {
                let z = z as usize;
                if want(x, z) {
                    let em = ctx.mid(m, x, z);
                    acc.add_and(x, z, &[la, em, lb]);
                }
            }
        }
        // (ii) sure first step, symbolic second step.
        if !o.sym.is_empty() {
            let a_inv = self.sure.inverse();
            for &(m, z, lb) in &o.sym {
                let (m, z) = (m as usize, z as usize);
                for x in a_inv.successors_iter(m) {
                    if want(x, z) {
                        let em = ctx.mid(m, x, z);
                        acc.add_and(x, z, &[em, lb]);
                    }
                }
            }
        }
        // (iii) both sure, conditionally executed intermediate event.
        let cond: Vec<usize> = (0..n).filter(|&m| !ctx.ae.contains(m)).collect();
        if !cond.is_empty() {
            let a_inv = self.sure.inverse();
            for m in cond {
                let em = ctx.exec[m];
                if em == FALSE {
                    continue;
                }
                let succ: Vec<usize> = o.sure.successors_iter(m).filter(|&z| z != m).collect();
                if succ.is_empty() {
                    continue;
                }
                for x in a_inv.successors_iter(m) {
                    if x == m {
                        continue;
                    }
                    for &z in &succ {
                        if want(x, z) {
                            acc.add(x, z, em);
                        }
                    }
                }
            }
        }
        acc.finish(sat)
    }

    /// `self+` (exact: Warshall's algorithm over literals; an upper bound
    /// under [`Polarity::UP`], on the columns of `mask` only; `ordered`:
    /// `self` is contained in a strict order in every execution, so the
    /// one-step recursion has no circular solutions and is exact).
    pub fn plus(&self, ctx: &Ctx, sat: &mut Sat, mask: Option<&Relation>, ordered: bool) -> SymRel {
        let n = self.n();
        let mut involved = EventSet::empty(n);
        for (a, b) in self.sure.pairs() {
            involved.insert(a);
            involved.insert(b);
        }
        for &(a, b, _) in &self.sym {
            involved.insert(a as usize);
            involved.insert(b as usize);
        }
        if self.sym.is_empty() && involved.iter().all(|e| ctx.ae.contains(e)) {
            return SymRel::sure(self.sure.transitive_closure());
        }
        // A static relation over events some of which may not execute
        // (a store under a data-dependent branch): a path through such
        // an event needs its execution, but where every wanted pair of
        // the closure also has a path through events that always
        // execute, the closure is that static relation (`po?; sw; po?`
        // of a barrier-synchronised kernel: `po` passes by the
        // conditional store, barriers always execute).
        if self.sym.is_empty() {
            let through = self.sure.closure_through(&ctx.ae);
            let mut missing = self.sure.transitive_closure();
            missing.subtract(&through);
            if let Some(m) = mask {
                missing.intersect_with(m);
            }
            if missing.is_empty() {
                return SymRel::sure(through);
            }
        }
        let nodes: Vec<usize> = involved.iter().collect();
        let m = nodes.len();
        let mut idx = vec![usize::MAX; n];
        for (i, &e) in nodes.iter().enumerate() {
            idx[e] = i;
        }
        let mut mat = vec![FALSE; m * m];
        for (a, b, l) in self.entries() {
            mat[idx[a] * m + idx[b]] = l;
        }
        if sat.polarity == Polarity::UP || ordered {
            let wanted = mask.map(|m| m.range());
            let cols: Vec<bool> = nodes
                .iter()
                .map(|&e| wanted.as_ref().is_none_or(|w| w.contains(e)))
                .collect();
            return plus_fixpoint(&nodes, &mat, &cols, ctx, sat);
        }
        let mut preds = Vec::with_capacity(m);
        let mut succs = Vec::with_capacity(m);
        for k in 0..m {
            let ek = ctx.exec[nodes[k]];
            if ek == FALSE {
                continue;
            }
            preds.clear();
            succs.clear();
            for i in 0..m {
                if i != k && mat[i * m + k] != FALSE {
                    preds.push(i);
                }
                if i != k && mat[k * m + i] != FALSE {
                    succs.push(i);
                }
            }
            for &i in &preds {
                let lik = mat[i * m + k];
                for &j in &succs {
                    let cur = mat[i * m + j];
                    if cur == TRUE {
                        continue;
                    }
                    let t = sat.and(&[lik, ek, mat[k * m + j]]);
                    if t == FALSE {
                        continue;
                    }
                    mat[i * m + j] = sat.or2(cur, t);
                }
            }
        }
        let mut acc = RelAcc::new(n);
        for i in 0..m {
            for j in 0..m {
                acc.add(nodes[i], nodes[j], mat[i * m + j]);
            }
        }
        acc.finish(sat)
    }

    pub fn add_identity(&self, sat: &mut Sat) -> SymRel {
        let n = self.n();
        self.union(&SymRel::sure(Relation::identity(n)), sat)
    }

    pub fn id_on(s: &SymSet) -> SymRel {
        SymRel {
            sure: Relation::identity_on(&s.sure),
            sym: s.sym.iter().map(|&(a, l)| (a, a, l)).collect(),
        }
    }

    pub fn prod(s: &SymSet, t: &SymSet, sat: &mut Sat) -> SymRel {
        let mut acc = RelAcc::with_sure(Relation::product(&s.sure, &t.sure));
        let t_all = t.entries();
        for &(x, lx) in &s.sym {
            for &(y, ly) in &t_all {
                acc.add_and(x as usize, y, &[lx, ly]);
            }
        }
        for x in s.sure.iter() {
            for &(y, ly) in &t.sym {
                acc.add(x, y as usize, ly);
            }
        }
        acc.finish(sat)
    }

    /// `domain(self)`: events with some executed successor.
    pub fn domain(&self, ctx: &Ctx, sat: &mut Sat) -> SymSet {
        let n = self.n();
        let mut acc = SetAcc::new(n);
        for x in 0..n {
            for y in self.sure.successors_iter(x) {
                acc.add(x, ctx.mid(y, x, x));
            }
        }
        for &(x, y, l) in &self.sym {
            let e = ctx.mid(y as usize, x as usize, x as usize);
            acc.add(x as usize, sat.and2(l, e));
        }
        acc.finish(sat)
    }

    pub fn range(&self, ctx: &Ctx, sat: &mut Sat) -> SymSet {
        self.inv().domain(ctx, sat)
    }
}

/// `r+` as the one-step recursion `x(i,j) = r(i,j) ∨ ⋁k r(i,k) ∧
/// exec(k) ∧ x(k,j)` over the pairs of the may-closure in the wanted
/// columns, in the directions of the current polarity. Its up direction
/// makes every solution contain the closure (its least solution, which is
/// one of them). Its down direction is exact only where `r` is acyclic in
/// every model (no circular justification); otherwise only the up
/// direction is asked for. No chains of gates as in Warshall's encoding.
fn plus_fixpoint(nodes: &[usize], mat: &[Lit], cols: &[bool], ctx: &Ctx, sat: &mut Sat) -> SymRel {
    let m = nodes.len();
    let n = ctx.exec.len();
    // May-reachability (plain bits): the closure of the may-edges.
    let edges = Relation::from_pairs(
        m,
        (0..m).flat_map(|i| {
            (0..m)
                .filter(move |&j| mat[i * m + j] != FALSE)
                .map(move |j| (i, j))
        }),
    );
    let closure = edges.transitive_closure();
    let reach: Vec<EventSet> = (0..m).map(|i| closure.successors(i)).collect();
    // x(i,j) for the wanted columns j: x(i,j) ⇐ r(i,j), and
    // x(i,j) ⇐ r(i,k) ∧ exec(k) ∧ x(k,j).
    let mut x = vec![FALSE; m * m];
    for i in 0..m {
        for j in reach[i].iter().filter(|&j| cols[j]) {
            x[i * m + j] = sat.var();
        }
    }
    // Up only: each way of deriving x(i,j) implies it. Otherwise x(i,j)
    // is linked to the gate of its definition.
    let pol = sat.polarity;
    // The ways of deriving each x(i,j), kept only when x(i,j) must imply
    // one of them (an m × m table of lists would be gigabytes for m in the
    // thousands).
    let mut terms: HashMap<usize, Vec<Lit>> = HashMap::new();
    let mut derive = |sat: &mut Sat, at: usize, why: &[Lit]| {
        if pol.down {
            let t = sat.and(why);
            terms.entry(at).or_default().push(t);
        } else {
            let mut c: Vec<Lit> = why.iter().map(|&l| -l).collect();
            c.push(x[at]);
            sat.clause(&c);
        }
    };
    for i in 0..m {
        for k in 0..m {
            let r = mat[i * m + k];
            if r == FALSE {
                continue;
            }
            if cols[k] {
                derive(sat, i * m + k, &[r]);
            }
            let ek = ctx.exec[nodes[k]];
            if ek == FALSE {
                continue;
            }
            for j in reach[k].iter().filter(|&j| cols[j]) {
                derive(sat, i * m + j, &[r, ek, x[k * m + j]]);
            }
        }
    }
    if pol.down {
        for i in 0..m {
            for j in reach[i].iter().filter(|&j| cols[j]) {
                let d = sat.or(terms.get(&(i * m + j)).map_or(&[][..], |t| &t[..]));
                if pol.up {
                    sat.implies(d, x[i * m + j]);
                }
                sat.implies(x[i * m + j], d);
            }
        }
    }
    let mut acc = RelAcc::new(n);
    for i in 0..m {
        for j in reach[i].iter().filter(|&j| cols[j]) {
            acc.add(nodes[i], nodes[j], x[i * m + j]);
        }
    }
    acc.finish(sat)
}
