//! Incremental evaluation of a compiled model on one execution size.
//!
//! Executions of litmus-test size keep every slot as a plain bit buffer and
//! run the word kernels of [`super::kernel`]; executions of more than
//! [`crate::rel::ALL_WORDS_UP_TO`] events (thousands, in the symbolic
//! engine's re-check of a large program's model) keep every slot as a
//! [`Value`] whose relations store only the non-zero band of each row, so
//! that a relation such as the identity is not megabytes.

use super::compile::{Op, OpCode, Slot, Unit, Val};
use super::kernel::{self, DfsScratch};
use super::{AxiomKind, BaseKind, Model, Value};
use crate::rel::{EventSet, Relation};

/// Evaluates a [`Model`] on executions of `n` events, caching every unit
/// whose inputs did not change (see the module documentation).
#[derive(Debug)]
pub struct Evaluator<'m> {
    model: &'m Model,
    n: usize,
    /// One buffer per slot: `w` words for a set, `n * w` for a relation
    /// (empty for executions of many events, which use `big`).
    vals: Vec<Vec<u64>>,
    /// One value per slot, for executions of many events.
    big: Option<Vec<Value>>,
    valid: Vec<bool>,
    dfs: DfsScratch,
    units_run: u64,
}

impl<'m> Evaluator<'m> {
    pub(super) fn new(model: &'m Model, n: usize) -> Self {
        Self::with_storage(model, n, n > crate::rel::ALL_WORDS_UP_TO)
    }

    /// An evaluator that keeps its slots as values (`banded`) or as bit
    /// buffers, whatever `n` (the tests compare the two).
    pub(super) fn with_storage(model: &'m Model, n: usize, banded: bool) -> Self {
        let w = kernel::words(n);
        let vals = model
            .prog
            .kinds
            .iter()
            .map(|k| match k {
                _ if banded => Vec::new(),
                BaseKind::Set => vec![0u64; w],
                BaseKind::Relation => vec![0u64; n * w],
            })
            .collect();
        let big = banded.then(|| {
            model
                .prog
                .kinds
                .iter()
                .map(|k| match k {
                    BaseKind::Set => Value::Set(EventSet::empty(n)),
                    BaseKind::Relation => Value::Rel(Relation::empty(n)),
                })
                .collect()
        });
        let valid = model
            .prog
            .units
            .iter()
            .map(|u| matches!(u, Unit::Input(_)))
            .collect();
        Evaluator {
            model,
            n,
            vals,
            big,
            valid,
            dfs: DfsScratch::default(),
            units_run: 0,
        }
    }

    /// How many units (operations or fixpoints) this evaluator has computed
    /// so far: a measure of how much caching saved.
    pub fn units_run(&self) -> u64 {
        self.units_run
    }

    /// The model this evaluator evaluates.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The number of events this evaluator works on.
    pub fn universe(&self) -> usize {
        self.n
    }

    /// Sets input `i` (an index into [`Model::inputs`]; inputs start out
    /// empty). Marks the units depending on it dirty, unless the value is
    /// unchanged.
    ///
    /// # Panics
    /// If `v` is of the wrong kind or ranges over a different number of
    /// events than the evaluator (a bug in the caller).
    pub fn set_input(&mut self, i: usize, v: Value) {
        self.set_input_ref(i, &v);
    }

    /// Like [`Evaluator::set_input`], without taking ownership.
    pub fn set_input_ref(&mut self, i: usize, v: &Value) {
        let (name, kind) = &self.model.inputs[i];
        assert!(
            v.kind() == *kind && v.universe() == self.n,
            "input `{name}`: expected a {kind:?} over {} events, got a {:?} over {}",
            self.n,
            v.kind(),
            v.universe()
        );
        let slot = self.model.prog.input_slots[i] as usize;
        if let Some(big) = &mut self.big {
            if big[slot] == *v {
                return;
            }
            big[slot] = v.clone();
            for &u in &self.model.input_dependents[i] {
                self.valid[u as usize] = false;
            }
            return;
        }
        let dst = &mut self.vals[slot];
        let words = v.words();
        if dst.as_slice() == &*words {
            return;
        }
        dst.copy_from_slice(&words);
        for &u in &self.model.input_dependents[i] {
            self.valid[u as usize] = false;
        }
    }

    /// Evaluates the consistency (non-flag) axioms in file order and
    /// returns the index (into [`Model::axioms`]) of the first violated
    /// one, or `None` if the execution is consistent. Only what the axioms
    /// up to the violation need is computed, and only if its inputs
    /// changed since it was last computed.
    pub fn first_violation(&mut self) -> Option<usize> {
        let model = self.model;
        for (k, ax) in model.axioms.iter().enumerate() {
            if ax.flag {
                continue;
            }
            self.run(&model.axiom_units[k]);
            if !self.holds(k) {
                return Some(k);
            }
        }
        None
    }

    /// Evaluates flag axiom `axiom` (an index into [`Model::axioms`]):
    /// `Some(value of its expression)` when the flag fires, i.e. when its
    /// test holds (`flag ~empty e` fires when `e` is not empty).
    pub fn flag(&mut self, axiom: usize) -> Option<Value> {
        let model = self.model;
        if axiom >= model.axioms.len() {
            return None;
        }
        self.run(&model.axiom_units[axiom]);
        if !model.axioms[axiom].flag {
            // Consistency axioms share units with earlier ones; make sure
            // everything is computed.
            self.ensure_slot(model.axiom_slots[axiom]);
        }
        if self.holds(axiom) {
            Some(self.value(model.axiom_slots[axiom]))
        } else {
            None
        }
    }

    /// Whether axiom `axiom`'s test holds on the current inputs (for a
    /// consistency axiom: it is satisfied; for a flag: it fires).
    pub fn test(&mut self, axiom: usize) -> bool {
        let Some(&slot) = self.model.axiom_slots.get(axiom) else {
            return false;
        };
        self.ensure_slot(slot);
        self.holds(axiom)
    }

    /// The value of axiom `axiom`'s expression on the current inputs.
    pub fn axiom_value(&mut self, axiom: usize) -> Option<Value> {
        let slot = *self.model.axiom_slots.get(axiom)?;
        self.ensure_slot(slot);
        Some(self.value(slot))
    }

    /// The value of slot `slot` on the current inputs (computing what it
    /// needs).
    pub fn slot_value(&mut self, slot: Slot) -> Value {
        self.ensure_slot(slot);
        self.value(slot)
    }

    /// The value of a named top-level binding (its last definition), or of
    /// an input of that name if no `let` binds it.
    pub fn binding(&mut self, name: &str) -> Option<Value> {
        let model = self.model;
        let v = model
            .bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .or_else(|| {
                let i = model.input_index(name)?;
                Some(Val::Slot(model.prog.input_slots[i]))
            })?;
        match v {
            Val::Konst(full) => Some(Value::Rel(if full {
                Relation::identity(self.n)
                    .complement()
                    .union(&Relation::identity(self.n))
            } else {
                Relation::empty(self.n)
            })),
            Val::Slot(s) => {
                self.ensure_slot(s);
                Some(self.value(s))
            }
        }
    }

    fn ensure_slot(&mut self, slot: Slot) {
        let model = self.model;
        let root = model.prog.producer[slot as usize];
        if self.valid[root as usize] {
            return;
        }
        let mut seen = vec![false; model.prog.units.len()];
        let units = super::closure(&model.deps, root, &mut seen);
        self.run(&units);
    }

    fn value(&self, slot: Slot) -> Value {
        if let Some(big) = &self.big {
            return big[slot as usize].clone();
        }
        let v = &self.vals[slot as usize];
        match self.model.prog.kinds[slot as usize] {
            BaseKind::Set => Value::Set(EventSet::from_words(self.n, v.clone())),
            BaseKind::Relation => {
                let w = kernel::words(self.n);
                let mut r = Relation::empty(self.n);
                for i in 0..self.n {
                    for j in 0..self.n {
                        if v[i * w + j / 64] >> (j % 64) & 1 == 1 {
                            r.insert(i, j);
                        }
                    }
                }
                Value::Rel(r)
            }
        }
    }

    fn holds(&mut self, axiom: usize) -> bool {
        let model = self.model;
        if let Some(big) = &self.big {
            let v = &big[model.axiom_slots[axiom] as usize];
            let empty = match v {
                Value::Set(s) => s.is_empty(),
                Value::Rel(r) => r.is_empty(),
            };
            return match (model.axioms[axiom].kind, v) {
                (AxiomKind::Empty, _) => empty,
                (AxiomKind::NotEmpty, _) => !empty,
                (AxiomKind::Irreflexive, Value::Rel(r)) => r.is_irreflexive(),
                (AxiomKind::Acyclic, Value::Rel(r)) => r.is_acyclic(),
                // Kinds are checked when the model is compiled.
                (_, Value::Set(_)) => empty,
            };
        }
        let v = &self.vals[model.axiom_slots[axiom] as usize];
        match model.axioms[axiom].kind {
            AxiomKind::Empty => kernel::is_zero(v),
            AxiomKind::NotEmpty => !kernel::is_zero(v),
            AxiomKind::Irreflexive => kernel::is_irreflexive(self.n, v),
            AxiomKind::Acyclic => kernel::is_acyclic(self.n, v, &mut self.dfs),
        }
    }

    fn run(&mut self, units: &[u32]) {
        let model = self.model;
        for &u in units {
            if self.valid[u as usize] {
                continue;
            }
            match &model.prog.units[u as usize] {
                Unit::Input(_) => {}
                Unit::Op(op) => self.exec(op),
                Unit::Fix(fix) if self.big.is_some() => {
                    let n = self.n;
                    let big = self.big.as_mut().expect("checked");
                    for &v in &fix.vars {
                        big[v as usize] = match big[v as usize] {
                            Value::Set(_) => Value::Set(EventSet::empty(n)),
                            Value::Rel(_) => Value::Rel(Relation::empty(n)),
                        };
                    }
                    loop {
                        for op in &fix.body {
                            self.exec(op);
                        }
                        let big = self.big.as_mut().expect("checked");
                        let mut changed = false;
                        for (&v, &r) in fix.vars.iter().zip(&fix.results) {
                            if v != r && big[v as usize] != big[r as usize] {
                                changed = true;
                                big[v as usize] = big[r as usize].clone();
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                }
                Unit::Fix(fix) => {
                    for &v in &fix.vars {
                        kernel::zero(&mut self.vals[v as usize]);
                    }
                    loop {
                        for op in &fix.body {
                            self.exec(op);
                        }
                        let mut changed = false;
                        for (&v, &r) in fix.vars.iter().zip(&fix.results) {
                            if v != r && self.vals[v as usize] != self.vals[r as usize] {
                                changed = true;
                                let src = std::mem::take(&mut self.vals[r as usize]);
                                self.vals[v as usize].copy_from_slice(&src);
                                self.vals[r as usize] = src;
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                }
            }
            self.valid[u as usize] = true;
            self.units_run += 1;
        }
    }

    fn exec(&mut self, op: &Op) {
        if let Some(big) = &mut self.big {
            let v = exec_banded(self.n, big, op);
            big[op.dst as usize] = v;
            return;
        }
        use OpCode::*;
        let n = self.n;
        let mut out = std::mem::take(&mut self.vals[op.dst as usize]);
        {
            let a = || self.vals[op.a as usize].as_slice();
            let b = || self.vals[op.b as usize].as_slice();
            match op.code {
                EmptySet | EmptyRel => kernel::zero(&mut out),
                FullSet => kernel::full_set(n, &mut out),
                FullRel => kernel::full_rel(n, &mut out),
                Id => kernel::identity(n, &mut out),
                SetUnion | RelUnion => kernel::or(a(), b(), &mut out),
                SetInter | RelInter => kernel::and(a(), b(), &mut out),
                SetDiff | RelDiff => kernel::andnot(a(), b(), &mut out),
                SetCompl => kernel::compl_set(n, a(), &mut out),
                RelCompl => kernel::compl_rel(n, a(), &mut out),
                Seq => kernel::compose(n, a(), b(), &mut out),
                Inv => kernel::inverse(n, a(), &mut out),
                Plus => kernel::plus(n, a(), &mut out),
                Star => {
                    kernel::plus(n, a(), &mut out);
                    kernel::add_diag(n, &mut out);
                }
                Opt => {
                    out.copy_from_slice(a());
                    kernel::add_diag(n, &mut out);
                }
                IdOn => kernel::id_on(n, a(), &mut out),
                Prod => kernel::product(n, a(), b(), &mut out),
                Domain => kernel::domain(n, a(), &mut out),
                Range => kernel::range(n, a(), &mut out),
            }
        }
        self.vals[op.dst as usize] = out;
    }
}

/// `op` on values whose relations store only their rows' bands (see the
/// module documentation); the same semantics as the word kernels.
fn exec_banded(n: usize, vals: &[Value], op: &Op) -> Value {
    use OpCode::*;
    let set = |s: Slot| match &vals[s as usize] {
        Value::Set(x) => x,
        Value::Rel(_) => unreachable!("a relation slot read as a set"),
    };
    let rel = |s: Slot| match &vals[s as usize] {
        Value::Rel(r) => r,
        Value::Set(_) => unreachable!("a set slot read as a relation"),
    };
    let full = || EventSet::full(n);
    match op.code {
        EmptySet => Value::Set(EventSet::empty(n)),
        EmptyRel => Value::Rel(Relation::empty(n)),
        FullSet => Value::Set(full()),
        FullRel => Value::Rel(Relation::product(&full(), &full())),
        Id => Value::Rel(Relation::identity(n)),
        SetUnion => Value::Set(set(op.a).union(set(op.b))),
        SetInter => Value::Set(set(op.a).intersection(set(op.b))),
        SetDiff => Value::Set(set(op.a).difference(set(op.b))),
        SetCompl => Value::Set(set(op.a).complement()),
        RelUnion => Value::Rel(rel(op.a).union(rel(op.b))),
        RelInter => Value::Rel(rel(op.a).intersection(rel(op.b))),
        RelDiff => Value::Rel(rel(op.a).difference(rel(op.b))),
        RelCompl => Value::Rel(rel(op.a).complement()),
        Seq => Value::Rel(rel(op.a).compose(rel(op.b))),
        Inv => Value::Rel(rel(op.a).inverse()),
        Plus => Value::Rel(rel(op.a).transitive_closure()),
        Star => Value::Rel(rel(op.a).reflexive_transitive_closure()),
        Opt => Value::Rel(rel(op.a).reflexive_closure()),
        IdOn => Value::Rel(Relation::identity_on(set(op.a))),
        Prod => Value::Rel(Relation::product(set(op.a), set(op.b))),
        Domain => Value::Set(rel(op.a).domain()),
        Range => Value::Set(rel(op.a).range()),
    }
}
