//! gpumc-mapping: bounded soundness of a compilation mapping (Lustig et
//! al., ASPLOS'19, sec. 5.2 and 6.1): every source program up to a number
//! of events ([`enumerate`]) is compiled, and every execution of the
//! compiled program that the target model accepts is lifted back to the
//! source; one that is well-formed, race-free and violates a source axiom
//! is a counterexample ([`explicit`]).

pub mod enumerate;
pub mod explicit;
pub mod report;
pub mod search;
pub mod source;
pub mod symbolic;

use gpumc_core::{cat, diag, ir, rel};
use gpumc_frontend as frontend;
use gpumc_verify::engine;

pub use diag::Result;

pub use gpumc_compile::Compiled;

/// Compiles a source program (the mapping and target are fixed).
pub type CompileFn<'a> = dyn Fn(&ir::Program) -> Result<Compiled> + Sync + 'a;

/// Whether a model reads the `ctrl` relation: only then can a branch on a
/// read value change what it allows (a taken branch adds control
/// dependencies and nothing else the model sees), so only then are the
/// searched programs given branches ([`enumerate::Space::branches`]).
pub fn uses_ctrl(model: &cat::Model) -> bool {
    model.inputs().iter().any(|(name, _)| name == "ctrl")
}

/// The axioms `spec` names in the source model: one name, or `all` — every
/// consistency axiom but `no-thin-air`, which the scoped model of Lustig
/// et al., ASPLOS'19 (sec. 4.1) drops and PTX does not give (load
/// buffering).
pub fn axioms(model: &cat::Model, spec: &str) -> Result<Vec<String>> {
    if spec == "all" {
        return Ok(model
            .axioms()
            .iter()
            .filter(|a| !a.flag && a.name != "no-thin-air")
            .map(|a| a.name.clone())
            .collect());
    }
    search::axiom_index(model, spec)?;
    Ok(vec![spec.to_string()])
}

/// Checks `mapping` for one source axiom: every program of `space`
/// compiled with it, lifted from the target model to the source model.
pub fn check_axiom(
    models: Models<'_>,
    mapping: &gpumc_compile::Mapping,
    axiom: &str,
    space: &enumerate::Space,
    engine: search::Engine,
    progress: &(dyn Fn(&explicit::Stats, &symbolic::SymStats) + Sync),
) -> Result<search::Outcome> {
    check_axiom_selected(
        models,
        mapping,
        axiom,
        space,
        engine,
        progress,
        &|_| true,
        None,
    )
}

/// [`check_axiom`] over the programs (or shapes) whose index in the
/// enumeration order `keep` accepts (one shard's part; the indices and
/// their costs: [`search::unit_costs`]), stopping at `deadline`
/// (`--timeout`; [`search::Outcome::timed_out`]).
#[allow(clippy::too_many_arguments)]
pub fn check_axiom_selected(
    models: Models<'_>,
    mapping: &gpumc_compile::Mapping,
    axiom: &str,
    space: &enumerate::Space,
    engine: search::Engine,
    progress: &(dyn Fn(&explicit::Stats, &symbolic::SymStats) + Sync),
    keep: &dyn Fn(u64) -> bool,
    deadline: Option<std::time::Instant>,
) -> Result<search::Outcome> {
    let target = mapping.target;
    let compile = move |p: &ir::Program| gpumc_compile::compile(p, mapping, target);
    let mut problem = models.problem(axiom);
    problem.deadline = deadline;
    search::run_selected(&problem, &compile, space, engine, progress, keep)
}

/// The source (C) and target models of a check.
#[derive(Clone, Copy)]
pub struct Models<'a> {
    pub source: &'a cat::Model,
    pub target: &'a cat::Model,
}

impl<'a> Models<'a> {
    fn problem(&self, axiom: &str) -> search::Problem<'a> {
        search::Problem {
            source_model: self.source,
            target_model: self.target,
            source_arch: ir::Arch::C,
            axiom: axiom.to_string(),
            deadline: None,
        }
    }
}

/// [`check_axiom`] on the given programs only (explicit: each as it is;
/// symbolic: each as a shape), e.g. a known test such as Lustig et al.,
/// ASPLOS'19, Fig. 12.
pub fn check_programs(
    models: Models<'_>,
    mapping: &gpumc_compile::Mapping,
    axiom: &str,
    space: &enumerate::Space,
    engine: search::Engine,
    programs: &[enumerate::Source],
) -> Result<search::Outcome> {
    let target = mapping.target;
    let compile = move |p: &ir::Program| gpumc_compile::compile(p, mapping, target);
    search::check_list(&models.problem(axiom), &compile, space, engine, programs)
}

/// For each program (explicit) or shape (symbolic) of `programs`, whether
/// it has a counterexample.
pub fn verdicts(
    models: Models<'_>,
    mapping: &gpumc_compile::Mapping,
    axiom: &str,
    space: &enumerate::Space,
    engine: search::Engine,
    programs: &[enumerate::Source],
) -> Result<Vec<bool>> {
    let target = mapping.target;
    let compile = move |p: &ir::Program| gpumc_compile::compile(p, mapping, target);
    search::verdicts(&models.problem(axiom), &compile, space, engine, programs)
}
