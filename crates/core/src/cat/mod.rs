//! The `.cat` language: parser and evaluator (herd / Dat3M dialect).
//!
//! # Pipeline
//!
//! [`lexer`] → [`parser`] (one file, with positions) → `load` (inlines
//! `include`s, detects cycles) → `compile` (scoping, set/relation typing,
//! function expansion, `let rec` fixpoints) → a flat program of *units*
//! over numbered *value slots* → [`Evaluator`].
//!
//! # Why slots and dirty tracking
//!
//! The engine checks thousands of candidate executions of one test against
//! one model. Between two candidates only a few base relations change (`rf`,
//! `co`, `fr`, `sync_fence`, `sync_barrier`, `syncbar`); everything derived
//! only from the static ones (`po`, `loc`, tags, scopes …) is the same every
//! time. So the model is compiled once into units — one operation writing
//! one slot, or one fixpoint writing a group of slots — in dependency order,
//! with identical sub-expressions shared. Each [`Evaluator`] owns one
//! preallocated bit buffer per slot and a *valid* bit per unit:
//!
//! * [`Evaluator::set_input`] compares the new value with the old one and,
//!   only if it differs, clears the valid bit of the units that depend on
//!   that input (the list is precomputed).
//! * [`Evaluator::first_violation`] walks the consistency axioms in file
//!   order. For each it runs the units the axiom needs (precomputed, minus
//!   those already needed by earlier axioms) that are not valid, then tests
//!   it, and stops at the first violated axiom — later axioms and the
//!   bindings only they need are not computed at all.
//!
//! Evaluation allocates nothing after the evaluator is built: the bit
//! kernels write into the slots' buffers in place.
//!
//! # Language summary
//!
//! See [`parser`] for the grammar and operator precedence. A free name
//! that no `let` in scope binds is looked up in the standard library
//! ([`prelude`]: herd7's and Dat3M's `po-loc`, `rfe`, `fencerel`, …, written
//! over the base names), then is an *input*, resolved through the `base`
//! callback of [`Model::parse`]; `id`, `0` and `_` are built in, as are the
//! functions `domain(r)`, `range(r)` and `toid(s)` (= `[s]`).
//!
//! Semantics worth knowing:
//!
//! * `let` shadows lexically: `let co = co+` reads the base `co` (an input)
//!   and later uses see the closure. `let a = e and b = f` is simultaneous.
//! * `let rec` groups are least fixpoints, iterated from the empty value;
//!   recursion must be monotone (checked at compile time).
//! * `let f(x, y) = e` (or `let f x = e`) defines a non-recursive function,
//!   expanded at each call in the scope of its definition.
//! * `r*` and `r?` are reflexive over all events; `_` is all events (all
//!   pairs in a relation context); `0` is empty; both adapt to their context.
//! * `flag` axioms are not consistency conditions: they *fire* when their
//!   test holds (`flag ~empty dr` fires when `dr` is not empty).
//! * `undefined_unless TEST e` (herd7's definedness check) is a flag that
//!   fires where the test fails, marked [`Axiom::undefined`]: the
//!   executions it fires in stay, and are undefined.
//! * `{% … %}` blocks (documentation) are skipped like comments.
//! * `show` / `unshow` are parsed and ignored. Includes are inlined (their
//!   header is skipped), looked up next to the including file first; the
//!   standard files `stdlib.cat`, `cos.cat`, `basic.cat` and `filters.cat`
//!   otherwise resolve to the built-in library, already in scope.
//! * Coherence is total or partial as the program's architecture says
//!   unless a line comment `// gpumc: partial-co` or `// gpumc: total-co`
//!   overrides it ([`Model::partial_co`]).
//!
//! Unsupported (reported as such, with a position): `procedure`, `call`,
//! `forall`, `with … from`, `enum`, `match`, `debug`, `requires`,
//! `let … in`, `fun`, `if`, `try`, tuples, tag literals
//! `'t`, explicit sets `{…}`, `++`, recursive functions, non-monotone
//! recursion, `~acyclic` / `~irreflexive`, and the herd7/Dat3M built-ins
//! gpumc does not provide (`classes-loc`, `linearisations`, `sdv`, …).

pub mod ast;
mod compile;
mod eval;
pub mod kernel;
pub mod lexer;
mod load;
mod monotone;
pub mod parser;
pub mod prelude;
mod restrict;

#[cfg(test)]
mod stdlib_tests;
#[cfg(test)]
mod tests;

pub use compile::{Fix, Op, OpCode, Slot, Unit, NONE};
pub use eval::Evaluator;

use crate::diag::Result;
use crate::ir::{Arch, Coherence, Pos};
use crate::rel::{EventSet, Relation};
use compile::{Prog, Val};
use std::path::{Path, PathBuf};

/// Whether a base name denotes a set of events or a relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BaseKind {
    Set,
    Relation,
}

/// A set or relation value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Set(EventSet),
    Rel(Relation),
}

impl Value {
    pub fn kind(&self) -> BaseKind {
        match self {
            Value::Set(_) => BaseKind::Set,
            Value::Rel(_) => BaseKind::Relation,
        }
    }

    pub fn universe(&self) -> usize {
        match self {
            Value::Set(s) => s.universe(),
            Value::Rel(r) => r.universe(),
        }
    }

    fn words(&self) -> std::borrow::Cow<'_, [u64]> {
        match self {
            Value::Set(s) => std::borrow::Cow::Borrowed(s.words()),
            Value::Rel(r) => r.words(),
        }
    }
}

/// The test an axiom performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AxiomKind {
    /// `empty e`: holds when `e` is empty.
    Empty,
    /// `~empty e`: holds when `e` is not empty.
    NotEmpty,
    /// `irreflexive e`
    Irreflexive,
    /// `acyclic e`
    Acyclic,
}

/// One axiom of the model, in file order (includes inlined).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axiom {
    /// The `as` name, or else the expression's source text.
    pub name: String,
    pub kind: AxiomKind,
    /// A `flag` axiom: not a consistency condition; it *fires* when its
    /// test holds (`flag ~empty dr` fires when `dr` is not empty).
    pub flag: bool,
    /// An `undefined_unless` check, kept as a flag that fires where the
    /// check fails (its `kind` is the failing test: `undefined_unless
    /// empty dr` is `NotEmpty`; `irreflexive r` and `acyclic r` are
    /// rewritten to tests of `r & id` and `r+ & id`). An execution it
    /// fires in is undefined: herd7 prints `Undef` and `Flag *undef*`.
    pub undefined: bool,
    /// Where the axiom starts (`file` says in which file).
    pub pos: Pos,
    /// The file the axiom was written in (the model file or an include).
    pub file: PathBuf,
}

/// Where the coherence a model is checked with comes from
/// ([`Model::coherence_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoSource {
    /// The program's architecture ([`Arch::coherence`]), as Dat3M decides:
    /// our embedded models.
    Architecture,
    /// The model's `// gpumc: partial-co` or `// gpumc: total-co` line.
    Directive,
    /// herd7's: total per location, for a model read from a file that
    /// does not say otherwise.
    Herd,
    /// The command line (`--co`).
    CommandLine,
}

impl CoSource {
    /// Why, in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            CoSource::Architecture => "the architecture's",
            CoSource::Directive => "the model's `// gpumc:` line",
            CoSource::Herd => "herd7's, for a model given as a file",
            CoSource::CommandLine => "--co",
        }
    }
}

/// A parsed and compiled model.
#[derive(Clone, Debug)]
pub struct Model {
    name: String,
    inputs: Vec<(String, BaseKind)>,
    axioms: Vec<Axiom>,
    axiom_slots: Vec<Slot>,
    /// The model's `// gpumc:` coherence line.
    coherence: Option<Coherence>,
    /// The coherence set over it ([`Model::set_coherence`]).
    co_set: Option<(Coherence, CoSource)>,
    /// Read C programs' events as herd7 tags them ([`Model::herd_events`]).
    herd_events: bool,
    prog: Prog,
    /// Top-level value bindings (last definition wins on lookup).
    bindings: Vec<(String, Val)>,
    /// Per axiom, the units to run before testing it, in order: for a
    /// consistency axiom only those not already needed by an earlier
    /// consistency axiom; for a flag, all of them.
    axiom_units: Vec<Vec<u32>>,
    /// Per input, the units that depend on it (transitively).
    input_dependents: Vec<Vec<u32>>,
    /// Per unit, the units it reads from.
    deps: Vec<Vec<u32>>,
}

impl Model {
    /// The name a top-level `let` gives to `slot`, if any (diagnostics).
    pub fn slot_name(&self, slot: u32) -> Option<&str> {
        self.bindings
            .iter()
            .rev()
            .find(|(_, v)| matches!(v, Val::Slot(s) if *s == slot))
            .map(|(n, _)| n.as_str())
    }

    /// Parses and compiles a model.
    ///
    /// `resolve_include(name, including_file)` supplies an included file
    /// (its path and text) when it is not found next to the including
    /// file. `base(name)` says whether a free identifier is a base set or
    /// relation the engine provides; `None` makes it an "unknown
    /// identifier" error. Errors carry `file:line:col`.
    #[allow(clippy::type_complexity)]
    pub fn parse(
        src: &str,
        file: &Path,
        resolve_include: &dyn Fn(&str, &Path) -> Option<(PathBuf, String)>,
        base: &dyn Fn(&str) -> Option<BaseKind>,
    ) -> Result<Model> {
        let loaded = load::load(src, file, resolve_include)?;
        let compiled = compile::compile(&loaded.stmts, &loaded.files, base)?;
        let name = loaded.name.unwrap_or_else(|| {
            file.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let mut axioms = Vec::new();
        let mut axiom_slots = Vec::new();
        for a in compiled.axioms {
            axioms.push(Axiom {
                name: a.name,
                kind: a.kind,
                flag: a.flag,
                undefined: a.undefined,
                pos: a.pos,
                file: loaded.files[a.file].clone(),
            });
            axiom_slots.push(a.slot);
        }
        let prog = compiled.prog;
        let deps = unit_deps(&prog);
        let mut axiom_units = Vec::new();
        let mut seen = vec![false; prog.units.len()];
        let mut flag_units = 0u64;
        for (a, &slot) in axioms.iter().zip(&axiom_slots) {
            crate::guard::check()?;
            let root = prog.producer[slot as usize];
            if a.flag {
                // Every flag keeps all of its units: many flags over a
                // long chain of definitions are quadratic in memory, so
                // their size is held to the budget as it grows.
                let mut own = vec![false; prog.units.len()];
                let units = closure(&deps, root, &mut own);
                flag_units += units.len() as u64;
                crate::guard::check_estimate(
                    flag_units * std::mem::size_of::<u32>() as u64,
                    "listing the units of the model's flag axioms",
                )?;
                axiom_units.push(units);
            } else {
                axiom_units.push(closure(&deps, root, &mut seen));
            }
        }
        let input_dependents = dependents(&prog, &deps)?;
        Ok(Model {
            name,
            inputs: compiled.inputs,
            axioms,
            axiom_slots,
            coherence: loaded.coherence.map(|c| c.0),
            co_set: None,
            herd_events: false,
            prog,
            bindings: compiled.bindings,
            axiom_units,
            input_dependents,
            deps,
        })
    }

    /// The model's name: its header, or else the file stem.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Base names the model uses, each with its kind: the engine supplies
    /// values in this order (index `i` for [`Evaluator::set_input`]).
    pub fn inputs(&self) -> &[(String, BaseKind)] {
        &self.inputs
    }

    /// The names a relation is known by in this model: its top-level
    /// `let` bindings of relations (the standard library's included) and
    /// its relation inputs, sorted, each once. These are what
    /// [`Evaluator::binding`] answers with a relation.
    pub fn relation_names(&self) -> Vec<&str> {
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<&str> = Vec::new();
        // The last definition of a name is the one `binding` reads.
        for (n, v) in self.bindings.iter().rev() {
            if seen.insert(n.as_str()) {
                let rel = match v {
                    Val::Slot(s) => self.prog.kinds[*s as usize] == BaseKind::Relation,
                    Val::Konst(_) => true,
                };
                if rel {
                    out.push(n);
                }
            }
        }
        for (n, k) in &self.inputs {
            if *k == BaseKind::Relation && seen.insert(n.as_str()) {
                out.push(n);
            }
        }
        out.sort_unstable();
        out
    }

    /// Whether some axiom (a consistency axiom or a flag) reads input
    /// `name`: an input only bindings nobody tests use is not read, and an
    /// engine need not enumerate its values (herd7 counts executions
    /// without them).
    pub fn axioms_read(&self, name: &str) -> bool {
        let Some(i) = self.input_index(name) else {
            return false;
        };
        self.axiom_units
            .iter()
            .flatten()
            .any(|&u| matches!(self.prog.units[u as usize], Unit::Input(j) if j == i))
    }

    /// The index of an input by name.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|(n, _)| n == name)
    }

    pub fn axioms(&self) -> &[Axiom] {
        &self.axioms
    }

    /// The coherence the model states with a `// gpumc: partial-co` or
    /// `// gpumc: total-co` line comment (in the file or an include), if any.
    /// Whether C programs are checked with their events tagged as herd7
    /// tags them: a read-modify-write's order on both its events, where
    /// our embedded models read it split (docs/EVENTS.md, "RMW halves").
    /// Set for a model given as a file that does not say it is written
    /// for gpumc (docs/MODELS.md).
    pub fn herd_events(&self) -> bool {
        self.herd_events
    }

    pub fn set_herd_events(&mut self, on: bool) {
        self.herd_events = on;
    }

    pub fn coherence_override(&self) -> Option<Coherence> {
        self.coherence
    }

    /// Sets the coherence the model is checked with, whatever it says
    /// (`source`: why, for reports).
    pub fn set_coherence(&mut self, co: Coherence, source: CoSource) {
        self.co_set = Some((co, source));
    }

    /// The coherence for a program of `arch`, and where it comes from: the
    /// one set ([`Model::set_coherence`]) or the model's directive, else
    /// the architecture's ([`Arch::coherence`]: partial for PTX, total for
    /// Vulkan and C).
    pub fn coherence_for(&self, arch: Arch) -> (Coherence, CoSource) {
        match (self.co_set, self.coherence) {
            (Some(set), _) => set,
            (None, Some(c)) => (c, CoSource::Directive),
            (None, None) => (arch.coherence(), CoSource::Architecture),
        }
    }

    /// Whether `co` is enumerated as partial orders for a program of
    /// `arch` ([`Model::coherence_for`]).
    pub fn partial_co(&self, arch: Arch) -> bool {
        self.coherence_for(arch).0 == Coherence::Partial
    }

    /// A fresh evaluator for executions of `n` events.
    pub fn evaluator(&self, n: usize) -> Evaluator<'_> {
        Evaluator::new(self, n)
    }

    /// The compiled units, in dependency order (read-only; for engines
    /// that encode the model instead of evaluating it).
    pub fn units(&self) -> &[Unit] {
        &self.prog.units
    }

    /// The kind of every value slot.
    pub fn slot_kinds(&self) -> &[BaseKind] {
        &self.prog.kinds
    }

    /// The slot holding input `i` (an index into [`Model::inputs`]).
    pub fn input_slot(&self, i: usize) -> Slot {
        self.prog.input_slots[i]
    }

    /// The unit that computes `slot`.
    pub fn producer(&self, slot: Slot) -> &Unit {
        &self.prog.units[self.prog.producer[slot as usize] as usize]
    }

    /// The slot holding axiom `i`'s expression.
    pub fn axiom_slot(&self, i: usize) -> Slot {
        self.axiom_slots[i]
    }

    /// Number of value slots and of units (for diagnostics and tests).
    pub fn size(&self) -> (usize, usize) {
        (self.prog.kinds.len(), self.prog.units.len())
    }
}

/// The units each unit reads from.
fn unit_deps(prog: &Prog) -> Vec<Vec<u32>> {
    prog.units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let mut d: Vec<u32> = match unit {
                Unit::Input(_) => Vec::new(),
                Unit::Op(op) => op.operands().map(|s| prog.producer[s as usize]).collect(),
                Unit::Fix(f) => f
                    .body
                    .iter()
                    .flat_map(|op| op.operands())
                    .chain(f.results.iter().copied())
                    .map(|s| prog.producer[s as usize])
                    .filter(|&p| p as usize != u)
                    .collect(),
            };
            d.sort_unstable();
            d.dedup();
            d
        })
        .collect()
}

/// Units needed to compute unit `root` that are not yet marked in `seen`,
/// in increasing (dependency) order; marks them.
fn closure(deps: &[Vec<u32>], root: u32, seen: &mut [bool]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(u) = stack.pop() {
        if std::mem::replace(&mut seen[u as usize], true) {
            continue;
        }
        out.push(u);
        stack.extend(deps[u as usize].iter().filter(|&&d| !seen[d as usize]));
    }
    out.sort_unstable();
    out
}

/// For each input, the non-input units depending on it.
fn dependents(prog: &Prog, deps: &[Vec<u32>]) -> Result<Vec<Vec<u32>>> {
    let ni = prog.input_slots.len();
    let words = ni.div_ceil(64);
    let mut reach = vec![0u64; prog.units.len() * words];
    for (u, unit) in prog.units.iter().enumerate() {
        if u.is_multiple_of(4096) {
            crate::guard::check()?;
        }
        if let Unit::Input(i) = unit {
            reach[u * words + i / 64] |= 1 << (i % 64);
        }
        for &d in &deps[u] {
            for k in 0..words {
                let v = reach[d as usize * words + k];
                reach[u * words + k] |= v;
            }
        }
    }
    let mut out = vec![Vec::new(); ni];
    for (u, unit) in prog.units.iter().enumerate() {
        if matches!(unit, Unit::Input(_)) {
            continue;
        }
        for (i, list) in out.iter_mut().enumerate() {
            if reach[u * words + i / 64] >> (i % 64) & 1 == 1 {
                list.push(u as u32);
            }
        }
    }
    Ok(out)
}
