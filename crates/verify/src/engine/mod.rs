//! Engines: programs → candidate executions → verdicts.
//!
//! [`explicit`] enumerates candidate executions and reports each one the
//! model accepts to an [`Observer`]; the observers in [`safety`] turn them
//! into verdicts, final states and witnesses. See `docs/SEMANTICS.md` for
//! loops, barriers and the meaning of each verdict.

pub mod bound_free;
pub mod divergence;
pub mod exec;
pub mod explicit;
pub mod inputs;
pub mod liveness;
pub mod loops;
pub mod orders;
pub mod parametric;
pub mod paths;
pub mod races;
pub mod safety;
pub mod slice;
pub mod split;
pub mod symbolic;
pub mod symmetry;
pub mod witness;

use crate::cat::Evaluator;
use exec::Skeleton;
use paths::ThreadPath;

/// What to check and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Loop bound: a loop body runs at most this many times.
    pub bound: u32,
    /// Report every combination of thread paths to the observer, those
    /// with a thread stopped in a spinning iteration included (liveness);
    /// otherwise only those that can matter for a final state.
    pub liveness: bool,
    /// Ignore the test's `filter`.
    pub ignore_filter: bool,
    /// The explicit engine refuses programs with more combinations of
    /// thread paths than this.
    pub max_combinations: u64,
    /// Safety: how many final states the symbolic engine enumerates
    /// (blocking clauses, docs/SYMBOLIC.md), after deciding herd's
    /// observation and whether the bound cut an execution; `None`: none of
    /// this, the verdict's queries only. The explicit engine lists every
    /// state whatever this says.
    pub max_states: Option<u64>,
    /// Safety: stop listing final states after this many seconds of
    /// listing (the verdict is decided first; at least one state is
    /// listed); `None`: only `max_states` caps the list.
    pub states_time_s: Option<f64>,
    /// What to record for execution graphs (`None`: nothing, at no cost).
    pub graph: Option<witness::GraphRequest>,
    /// Races: the most racing instruction pairs listed (the verdict and
    /// the witness do not depend on it; the symbolic engine asks one more
    /// query per pair, so a caller that wants the verdict only sets 0).
    pub max_races: usize,
    /// Races: check this `flag` axiom (an index into the model's axioms)
    /// alone; `None`: every flag axiom of the model.
    pub only_flag: Option<usize>,
    /// The symbolic engine considers one execution per orbit of
    /// interchangeable threads and workgroups (`symmetry`); off: every
    /// execution (for comparison).
    pub symmetry: bool,
    /// Symbolic race checks: a futile iteration (its only writes are RMWs,
    /// not compare-and-swaps, writing the value they read) goes on only if an event a race needs
    /// reads one of its writes (docs/SEMANTICS.md, "Futile iterations");
    /// off: every iteration counts towards the bound (for comparison).
    pub futile_drop: bool,
    /// Symbolic race checks: a program whose threads of one code sit in
    /// different scope instances is first checked with every thread alone
    /// in its instances, where they are interchangeable, and a PASS there
    /// stands when the model only loosens as scope relations shrink
    /// (`engine::split`); off: the program as placed only.
    pub split_scopes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bound: 1,
            liveness: false,
            ignore_filter: false,
            max_combinations: 2_000_000,
            max_states: None,
            states_time_s: None,
            graph: None,
            max_races: races::DEFAULT_MAX_RACES,
            only_flag: None,
            symmetry: true,
            futile_drop: true,
            split_scopes: true,
        }
    }
}

/// A candidate execution the model's consistency axioms accept.
pub struct Candidate<'a, 'p> {
    pub skeleton: &'a Skeleton<'p>,
    /// The path of each thread.
    pub paths: &'a [&'a ThreadPath],
    pub rf: &'a crate::rel::Relation,
    pub co: &'a crate::rel::Relation,
    /// Some thread waits forever at a barrier.
    pub barrier_stuck: bool,
}

/// Receives consistent candidates from an engine.
pub trait Observer {
    /// Called once per consistent candidate; `ev` still holds its model
    /// values (for flags and witnesses).
    fn consistent(&mut self, c: &Candidate<'_, '_>, ev: &mut Evaluator<'_>);
    /// False once the observer has seen enough.
    fn wants_more(&self) -> bool {
        true
    }
    /// False once another execution cut by the bound would tell the
    /// observer nothing new (final-state questions need one cut to know
    /// the bound was hit); the explicit engine then skips combinations
    /// of paths that have nothing else to show.
    fn wants_cut(&self) -> bool {
        true
    }
    /// Whether prefixes in which some thread spins (and none is cut)
    /// tell the observer something by themselves: a race checker's do
    /// (docs/SEMANTICS.md, "Loops"), a final-state question's do not.
    fn wants_spinning(&self) -> bool {
        false
    }
    /// Whether the observer wants candidates the model rejects
    /// ([`Observer::inconsistent`]); false by default, so that engines
    /// spend nothing on them unless asked (execution graphs of forbidden
    /// outcomes).
    fn wants_inconsistent(&self) -> bool {
        false
    }
    /// Called with a candidate whose consistency axiom `axiom` (an index
    /// into `cat::Model::axioms`, the first violated one) fails, while
    /// [`Observer::wants_inconsistent`] says so; `ev` holds its values.
    fn inconsistent(&mut self, _c: &Candidate<'_, '_>, _ev: &mut Evaluator<'_>, _axiom: usize) {}
}
