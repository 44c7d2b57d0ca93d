//! The bounded search: every program of the space, in enumeration order,
//! checked in parallel batches; the first counterexample in that order
//! wins, so the answer does not depend on the number of threads.

use crate::cat::Model;
use crate::diag::{Error, ErrorKind};
use crate::engine::explicit::prepare;
use crate::enumerate::{self, MemOrder, Op, Scope, Source, Space, Thread};
use crate::explicit::{self, Counterexample, Setup, Stats};
use crate::ir::Arch;
use crate::symbolic::{self, ShapeResult, SymStats, Table};
use crate::{source, CompileFn, Result};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// The models and the axiom of one search.
pub struct Problem<'a> {
    pub source_model: &'a Model,
    pub target_model: &'a Model,
    pub source_arch: Arch,
    /// The source axiom to check (its `as` name).
    pub axiom: String,
    /// Stop the search at this time (`--timeout`): the outcome is then
    /// [`Outcome::timed_out`] unless a counterexample came first.
    pub deadline: Option<Instant>,
}

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Every program, every execution ([`crate::explicit`]).
    Explicit,
    /// One SAT query per shape ([`crate::symbolic`]).
    Symbolic,
}

/// The result of a search.
#[derive(Debug)]
pub struct Outcome {
    pub stats: Stats,
    pub sym: SymStats,
    pub counterexample: Option<Box<Counterexample>>,
    /// The counterexample's program (or shape) in the enumeration order of
    /// the whole space, counted from 0 (shards compare theirs by it).
    pub found_at: Option<u64>,
    pub elapsed: Duration,
    /// The search stopped at [`Problem::deadline`] before it went through
    /// the space, without a counterexample: nothing is claimed for the
    /// programs (or shapes) it did not reach.
    pub timed_out: bool,
}

/// Programs per parallel batch.
const BATCH: usize = 2048;

/// A program with every instruction kind, order and scope once (one
/// thread each): its tags are every tag a program of the space has, and
/// its compilation's every tag a compiled program has.
pub fn universal() -> Source {
    let mut threads = Vec::new();
    for op in Op::ALL {
        for &order in op.orders() {
            let scopes: Vec<Option<Scope>> = if order == MemOrder::Na {
                vec![None]
            } else {
                Scope::ALL.iter().map(|&s| Some(s)).collect()
            };
            for scope in scopes {
                let c = threads.len() as u8;
                threads.push(Thread {
                    gpu: 0,
                    cta: c,
                    instrs: vec![enumerate::Instr::new(op, order, scope, 0)],
                });
            }
        }
    }
    Source { threads }
}

/// The index of the source axiom named `name` (a consistency axiom).
pub fn axiom_index(model: &Model, name: &str) -> Result<usize> {
    model
        .axioms()
        .iter()
        .position(|a| !a.flag && a.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = model
                .axioms()
                .iter()
                .filter(|a| !a.flag)
                .map(|a| a.name.as_str())
                .collect();
            Error::new(
                ErrorKind::Usage,
                format!(
                    "model `{}` has no axiom `{name}` (its axioms: {})",
                    model.name(),
                    names.join(", ")
                ),
            )
        })
}

/// The source flags that make an execution racy: those named `race`, or
/// every flag if none is.
fn race_flags(model: &Model) -> Vec<usize> {
    let flags: Vec<usize> = (0..model.axioms().len())
        .filter(|&i| model.axioms()[i].flag)
        .collect();
    let named: Vec<usize> = flags
        .iter()
        .copied()
        .filter(|&i| model.axioms()[i].name == "race")
        .collect();
    if named.is_empty() {
        flags
    } else {
        named
    }
}

/// The space `engine` searches: shapes (symbolic: orders, scopes and
/// placement open) or programs.
pub fn searched(space: &Space, engine: Engine) -> Space {
    let mut s = space.clone();
    s.shapes = engine == Engine::Symbolic;
    s.open_placement = engine == Engine::Symbolic;
    s
}

/// How many programs (explicit) or shapes (symbolic) the search goes
/// through (for progress bars).
pub fn units(space: &Space, engine: Engine) -> u64 {
    let mut n = 0u64;
    enumerate::programs(&searched(space, engine), &mut |_| {
        n += 1;
        true
    });
    n
}

/// Runs the search over `space` with `engine`; `progress` is called after
/// each batch with the counts so far.
pub fn run(
    problem: &Problem<'_>,
    compile: &CompileFn<'_>,
    space: &Space,
    engine: Engine,
    progress: &(dyn Fn(&Stats, &SymStats) + Sync),
) -> Result<Outcome> {
    run_selected(problem, compile, space, engine, progress, &|_| true)
}

/// [`run`] over the programs (or shapes) whose index in the enumeration
/// order `keep` accepts: one shard's part of the space.
pub fn run_selected(
    problem: &Problem<'_>,
    compile: &CompileFn<'_>,
    space: &Space,
    engine: Engine,
    progress: &(dyn Fn(&Stats, &SymStats) + Sync),
    keep: &dyn Fn(u64) -> bool,
) -> Result<Outcome> {
    let searched = searched(space, engine);
    let mut next = 0u64;
    search(problem, compile, space, engine, progress, &mut |f| {
        enumerate::programs(&searched, &mut |p| {
            let i = next;
            next += 1;
            !keep(i) || f(i, p)
        });
    })
}

/// The estimated cost of each program (explicit) or shape (symbolic) of
/// the search, in enumeration order: 8 to the power of its events (the
/// search's cost grows about tenfold per event, docs/BENCHMARKS.md).
pub fn unit_costs(space: &Space, engine: Engine) -> Vec<u64> {
    let mut costs = Vec::new();
    enumerate::programs(&searched(space, engine), &mut |p| {
        costs.push(8u64.saturating_pow(p.events() as u32));
        true
    });
    costs
}

/// Checks the programs of `list` (explicit: each as it is; symbolic: each
/// as a shape, its orders, scopes and, unless `space` is de-scoped,
/// placement open) in order; `space` says which orders and scopes exist.
pub fn check_list(
    problem: &Problem<'_>,
    compile: &CompileFn<'_>,
    space: &Space,
    engine: Engine,
    list: &[Source],
) -> Result<Outcome> {
    search(problem, compile, space, engine, &|_, _| {}, &mut |f| {
        for (i, p) in list.iter().enumerate() {
            if !f(i as u64, p) {
                break;
            }
        }
    })
}

/// The models prepared once for every program of a search.
fn setup<'m>(problem: &Problem<'m>, compile: &CompileFn<'_>) -> Result<Setup<'m>> {
    let uni = source::to_program(&universal(), problem.source_arch, "universal");
    let tuni = compile(&uni)?.program;
    Ok(Setup {
        source: prepare(&uni, problem.source_model)?,
        target: prepare(&tuni, problem.target_model)?,
        source_arch: problem.source_arch,
        axiom: axiom_index(problem.source_model, &problem.axiom)?,
        races: race_flags(problem.source_model),
    })
}

/// For each program of `list` (explicit) or shape (symbolic), whether it
/// has a counterexample (differential tests of the two engines).
pub fn verdicts(
    problem: &Problem<'_>,
    compile: &CompileFn<'_>,
    space: &Space,
    engine: Engine,
    list: &[Source],
) -> Result<Vec<bool>> {
    let setup = setup(problem, compile)?;
    let table = match engine {
        Engine::Symbolic => Some(Table::new(&setup, compile, space)?),
        Engine::Explicit => None,
    };
    list.par_iter()
        .map(|p| {
            let mut s = Stats::default();
            let mut y = SymStats::default();
            match &table {
                None => Ok(explicit::check_program(&setup, compile, p, &mut s)?.is_some()),
                Some(t) => Ok(matches!(
                    symbolic::check_shape(&setup, t, compile, p, &mut y, &mut s)?,
                    ShapeResult::Counterexample(_)
                )),
            }
        })
        .collect()
}

/// Programs (or shapes) to check, each with its index in the enumeration
/// order, handed one by one to a callback that says whether to go on.
type Programs<'a> = dyn FnMut(&mut dyn FnMut(u64, &Source) -> bool) + 'a;

fn search(
    problem: &Problem<'_>,
    compile: &CompileFn<'_>,
    space: &Space,
    engine: Engine,
    progress: &(dyn Fn(&Stats, &SymStats) + Sync),
    programs: &mut Programs<'_>,
) -> Result<Outcome> {
    let start = Instant::now();
    let setup = setup(problem, compile)?;
    let table = match engine {
        Engine::Symbolic => Some(Table::new(&setup, compile, space)?),
        Engine::Explicit => None,
    };
    let mut st = Progress::default();
    let mut batch: Vec<(u64, Source)> = Vec::with_capacity(BATCH);
    let check = |p: &Source| -> (Stats, SymStats, Result<Option<Box<Counterexample>>>) {
        let mut s = Stats::default();
        let mut y = SymStats::default();
        let r = match &table {
            None => explicit::check_program(&setup, compile, p, &mut s).map(|o| o.map(Box::new)),
            Some(t) => {
                symbolic::check_shape(&setup, t, compile, p, &mut y, &mut s).map(|r| match r {
                    ShapeResult::Sound => None,
                    ShapeResult::Counterexample(c) => Some(c),
                })
            }
        };
        (s, y, r)
    };
    let deadline = problem.deadline;
    // Checks a batch in parallel; whether to go on.
    let flush = |batch: &mut Vec<(u64, Source)>, st: &mut Progress| {
        let results: Vec<_> = batch.par_iter().map(|(i, p)| (*i, check(p))).collect();
        batch.clear();
        for (i, (s, y, r)) in results {
            st.stats.add(&s);
            st.sym.add(&y);
            match r {
                Ok(Some(cx)) => {
                    st.found = Some((i, cx));
                    break;
                }
                Ok(None) => {}
                Err(e) => {
                    st.error = Some(e);
                    break;
                }
            }
        }
        progress(&st.stats, &st.sym);
        // Checked between batches: a batch is at most 64 shapes (a few
        // seconds at 6 events) or 2,048 programs.
        st.timed_out = st.found.is_none() && deadline.is_some_and(|d| Instant::now() >= d);
        st.going()
    };
    let batch_size = if engine == Engine::Symbolic {
        64
    } else {
        BATCH
    };
    programs(&mut |i, p| {
        batch.push((i, p.clone()));
        batch.len() < batch_size || flush(&mut batch, &mut st)
    });
    if st.going() && !batch.is_empty() {
        flush(&mut batch, &mut st);
    }
    if let Some(e) = st.error {
        return Err(e);
    }
    let (found_at, counterexample) = match st.found {
        Some((i, cx)) => (Some(i), Some(cx)),
        None => (None, None),
    };
    Ok(Outcome {
        stats: st.stats,
        sym: st.sym,
        counterexample,
        found_at,
        elapsed: start.elapsed(),
        timed_out: st.timed_out,
    })
}

/// A search's counts so far and why it stopped, if it did.
#[derive(Default)]
struct Progress {
    stats: Stats,
    sym: SymStats,
    found: Option<(u64, Box<Counterexample>)>,
    error: Option<Error>,
    timed_out: bool,
}

impl Progress {
    fn going(&self) -> bool {
        self.found.is_none() && self.error.is_none() && !self.timed_out
    }
}
