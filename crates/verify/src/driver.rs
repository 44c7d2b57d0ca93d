//! The library's front door: check one file, or a suite of files, with a
//! configuration. The CLI is a thin layer over this.

use crate::cat::Model;
use crate::diag::{Error, ErrorKind, Result};
use crate::engine::safety::{self, Observation, Verdict};
use crate::engine::witness::{GraphData, GraphRequest, Witness};
use crate::engine::Options;
use crate::frontend::ptx::launch::Launch;
use crate::guard::{Guard, Limits};
use crate::ir::Program;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which property to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// Final-state assertion (Dat3M: `program_spec`).
    Safety,
    /// The model's `flag ~empty` axioms (Dat3M: `cat_spec`).
    Races,
    /// Non-termination of spinloops and barriers (Dat3M: `liveness`, `termination`).
    Liveness,
}

impl Property {
    /// Parses a property name, accepting Dat3M's names as aliases.
    pub fn parse(s: &str) -> Option<Property> {
        match s {
            "safety" | "program_spec" => Some(Property::Safety),
            "races" | "cat_spec" => Some(Property::Races),
            "liveness" | "termination" => Some(Property::Liveness),
            _ => None,
        }
    }
}

/// Which engine checks safety and races.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// Enumerate every candidate execution (`engine::explicit`).
    Explicit,
    /// Bounded model checking to SAT (`engine::symbolic`).
    Symbolic,
    /// The explicit engine for small tests, the symbolic one otherwise.
    #[default]
    Auto,
    /// PTX kernels' races for any launch size, from two symbolic threads
    /// (`engine::parametric`).
    Parametric,
}

impl Engine {
    pub fn parse(s: &str) -> Option<Engine> {
        match s {
            "explicit" => Some(Engine::Explicit),
            "symbolic" => Some(Engine::Symbolic),
            "auto" => Some(Engine::Auto),
            "parametric" => Some(Engine::Parametric),
            _ => None,
        }
    }

    /// The engine to run on `p`: `Auto` picks the symbolic engine when
    /// the explicit enumeration is likely to be large (docs/SYMBOLIC.md).
    pub fn resolve(self, p: &Program) -> Engine {
        match self {
            Engine::Auto => {
                if crate::engine::symbolic::prefer_symbolic(p) {
                    Engine::Symbolic
                } else {
                    Engine::Explicit
                }
            }
            e => e,
        }
    }

    /// The engine `auto` falls back to.
    fn other(self) -> Engine {
        match self {
            Engine::Explicit => Engine::Symbolic,
            _ => Engine::Explicit,
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Explicit => "explicit",
            Engine::Symbolic => "symbolic",
            Engine::Auto => "auto",
            Engine::Parametric => "parametric",
        })
    }
}

/// Everything a check needs besides the file.
#[derive(Clone, Debug)]
pub struct Config {
    /// Model name (embedded) or `.cat` path; `None`: the dialect's default.
    pub model: Option<String>,
    pub bound: u32,
    pub property: Property,
    pub ignore_filter: bool,
    /// Progress model for liveness (`fair`, `obe`, … or a per-scope spec).
    pub progress: crate::engine::liveness::ProgressSpec,
    /// Engine (for liveness: the stuck-configuration search; loops with
    /// side effects use the interleaving method on either engine).
    pub engine: Engine,
    /// Deadline and memory budget per check (none by default; the CLI
    /// sets `--timeout` and `--max-memory`).
    pub limits: Limits,
    /// Safety: the most final states the symbolic engine lists (`Some(0)`:
    /// none, but whether any is reachable, the observation and whether the
    /// bound cut an execution are still asked; `None`: the verdict's
    /// queries only). The explicit engine lists them all.
    pub max_states: Option<u64>,
    /// Safety: the symbolic engine stops listing states after this many
    /// seconds of listing (`None`: `max_states` alone caps the list).
    /// `gpumc check` sets [`DEFAULT_STATES_TIME_S`] unless `--max-states`
    /// is given, so that a large test's verdict is not dominated by its
    /// list.
    pub states_time_s: Option<f64>,
    /// Record what execution graphs need (`gpumc check --graph`); `None`:
    /// nothing is computed for them.
    pub graph: Option<GraphRequest>,
    /// How PTX kernels (`*.ptx`) are launched: kernel, grid, block,
    /// arguments (over each file's `// gpumc-launch:` lines).
    pub launch: Launch,
    /// Races: the most racing instruction pairs listed (`--max-races`).
    pub max_races: usize,
    /// The symbolic engine's symmetry reduction (`--no-symmetry` turns it
    /// off, for comparison).
    pub symmetry: bool,
    /// Symbolic race checks drop futile iterations nothing needs
    /// (`--no-futile-drop` counts them, for comparison).
    pub futile_drop: bool,
    /// Symbolic race checks try the program with its scope instances split
    /// first (`--no-scope-split` checks it as placed only, for comparison).
    pub split_scopes: bool,
    /// Raise the loop bound, one at a time from `bound` up to this, while
    /// an execution cut by the bound leaves the verdict `UNKNOWN`
    /// (`--max-bound`); `None`: `bound` only.
    pub max_bound: Option<u32>,
    /// Safety: also evaluate the model's `flag` axioms, as herd7 does for
    /// its `Flag` lines (`--format herd` sets it; C tests always get it,
    /// since C makes a data race undefined behaviour).
    pub flags: bool,
    /// Coherence over the model's and the architecture's (`--co`).
    pub co: Option<crate::ir::Coherence>,
}

/// The symbolic engine's default cap on listed final states
/// (`--max-states`).
pub const DEFAULT_MAX_STATES: u64 = 100;

/// How long the symbolic engine lists states by default (without an
/// explicit `--max-states`), in seconds of listing after the verdict.
pub const DEFAULT_STATES_TIME_S: f64 = 1.0;

/// The default cap on listed racing instruction pairs (`--max-races`).
pub use crate::engine::races::DEFAULT_MAX_RACES;

impl Default for Config {
    fn default() -> Self {
        Config {
            model: None,
            bound: 1,
            property: Property::Safety,
            ignore_filter: false,
            progress: Default::default(),
            engine: Engine::Auto,
            limits: Limits::none(),
            max_states: Some(DEFAULT_MAX_STATES),
            states_time_s: None,
            graph: None,
            launch: Launch::default(),
            max_races: DEFAULT_MAX_RACES,
            symmetry: true,
            futile_drop: true,
            split_scopes: true,
            max_bound: None,
            flags: false,
            co: None,
        }
    }
}

/// The result of checking one file (read back from its JSON by
/// `serde_json`; the `error` it came from is not serialised).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileReport {
    pub file: String,
    /// The test's name (its header line; a kernel's file stem); empty when
    /// the file could not be read.
    pub test: String,
    /// `PASS`, `FAIL`, `UNKNOWN` or `ERROR`; `NONE` for a safety check of
    /// a test without a condition (`exists`, `~exists`, `forall`): its
    /// states are listed and nothing is claimed.
    pub verdict: String,
    pub model: String,
    /// The engine that decided (absent when none ran to the end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// Why `--engine auto` used its second choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_note: Option<String>,
    pub property: Property,
    pub time_ms: f64,
    /// Executions the engine counted: the explicit engine's consistent
    /// complete executions that pass the filter (races: consistent
    /// executions; liveness: executions examined, or interleaving states
    /// explored); `None` (JSON `null`): not counted, as by the symbolic
    /// engine, which never enumerates executions.
    pub executions: Option<u64>,
    pub observables: Vec<String>,
    /// Reachable final states, values aligned with `observables`.
    pub states: Vec<Vec<i64>>,
    /// Whether `states` lists every final state of the complete executions
    /// within the loop bound (see `bound_hit` for longer ones); false for
    /// properties other than safety.
    pub states_complete: bool,
    /// Why `states` is not complete (safety).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub states_note: Option<String>,
    /// Some consistent execution was cut by the loop bound (safety, races;
    /// herd's `Loop`): executions longer than the bound are not covered.
    pub bound_hit: bool,
    /// The loop bound of the check reported.
    #[serde(default)]
    pub bound: u32,
    /// How `--max-bound` raised the bound, or the attempt at bound 1
    /// decided, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_note: Option<String>,
    /// The program checked has no loop, so its bound changed nothing (not
    /// reported: it only spares a loop-free program the note of
    /// `bound_one_first`).
    #[serde(skip)]
    pub loop_free: bool,
    /// The test's condition with its quantifier, in herd's syntax
    /// (`exists (P1:r0=1 /\ P1:r1=0)`); `None` without one.
    pub condition: Option<String>,
    /// herd's `Observation`: whether the condition's proposition holds in
    /// no (`Never`), some (`Sometimes`) or every (`Always`) reachable
    /// final state; `None` without a condition or when undecided.
    pub observation: Option<Observation>,
    /// Executions whose final state satisfies the proposition, and those
    /// whose state does not (herd's counts); `None` where executions are
    /// not counted (the symbolic engine) or there is no condition.
    pub positive: Option<u64>,
    pub negative: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub witness: Option<Witness>,
    /// With a graph request: the executions to draw besides the witness
    /// (`--graph-all`), and the rejected candidate of a forbidden outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphData>,
    /// Racing pairs of static instructions (`--property races`), one
    /// per pair, each with one execution in which it races.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<crate::engine::races::RacePair>,
    /// Safety: the model's `flag` axioms that fire in some execution
    /// (herd7's `Flag` lines), when they were evaluated (`Config::flags`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// A flagged execution has undefined behaviour (a race in C).
    #[serde(skip)]
    pub flags_undefined: bool,
    /// Why the launch options given were not applied to this file (a
    /// SPIR-V or litmus test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_note: Option<String>,
    /// The coherence the model was checked with (`total`, `partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub co: Option<crate::ir::Coherence>,
    /// Where `co` came from when not from the program's architecture:
    /// the model's `// gpumc:` line, herd7's default for a model file,
    /// `--co`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub co_note: Option<String>,
    /// Safety: the model's `undefined_unless` checks that fail in some
    /// consistent execution, which is then undefined (herd7's `Undef`),
    /// by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undefined_unless: Vec<String>,
    /// Races: whether `races` lists every racing instruction pair (within
    /// the loop bound); `None` for the other properties and errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub races_complete: Option<bool>,
    /// Why `races` may be incomplete (`--max-races`, a limit, undefined
    /// behaviour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub races_note: Option<String>,
    /// Races: the operations whose results decide nothing a race depends
    /// on and were not computed (`engine::slice`), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values_note: Option<String>,
    /// The program's assumptions (`Infeasible`: GPUVerify's `__assume`, a
    /// kernel's `__requires`) leave no execution: every property holds
    /// vacuously. In words; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vacuous: Option<String>,
    /// What the front-end assumed where the program leaves something open
    /// (a PTX kernel's calls to functions without a body), one sentence
    /// each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assumptions: Vec<String>,
    /// Liveness violation details (`--property liveness`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness: Option<crate::engine::liveness::LivenessViolation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip)]
    pub error: Option<Error>,
    /// What herd7's output needs besides (`report::herd`).
    #[serde(skip)]
    pub herd: Option<HerdNames>,
}

/// What herd7's result block needs besides the report: names as herd7
/// prints them (registers by thread index, `1:r0`), the test's kind and
/// condition (`Required`, `forall (true)` for a test without one, as
/// herd7 reads it).
#[derive(Clone, Debug, Default)]
pub struct HerdNames {
    pub observables: Vec<String>,
    /// `Allowed` (`exists`), `Forbidden` (`~exists`), `Required` (`forall`).
    pub kind: &'static str,
    pub condition: String,
    /// Listed states whose values satisfy the proposition, and the others.
    pub state_counts: (u64, u64),
    /// Undefined behaviour decided the verdict (herd's `Undef`).
    pub undefined: bool,
    /// The test's `Hash=` header line, which herd repeats.
    pub hash: Option<String>,
}

impl HerdNames {
    fn of(p: &Program) -> HerdNames {
        use crate::ir::Quantifier;
        HerdNames {
            observables: safety::observables(p)
                .iter()
                .map(|t| safety::herd_term_name(p, t))
                .collect(),
            kind: match p.assertion.as_ref().map(|a| a.quantifier) {
                Some(Quantifier::Exists) => "Allowed",
                Some(Quantifier::NotExists) => "Forbidden",
                Some(Quantifier::Forall) | None => "Required",
            },
            condition: p.assertion.as_ref().map_or_else(
                || "forall (true)".to_string(),
                |a| safety::condition_text(p, a, true),
            ),
            state_counts: (0, 0),
            undefined: false,
            hash: p
                .header
                .iter()
                .find(|(k, _)| k == "Hash")
                .map(|(_, v)| v.clone()),
        }
    }
}

impl FileReport {
    /// The report of `path` before it is checked: verdict `ERROR`, no
    /// message.
    pub fn new(path: &Path, cfg: &Config) -> FileReport {
        FileReport {
            file: path.display().to_string(),
            test: String::new(),
            verdict: "ERROR".into(),
            model: cfg.model.clone().unwrap_or_default(),
            engine: None,
            engine_note: None,
            property: cfg.property,
            time_ms: 0.0,
            executions: None,
            observables: vec![],
            states: vec![],
            states_complete: false,
            states_note: None,
            bound_hit: false,
            bound: cfg.bound,
            bound_note: None,
            loop_free: false,
            condition: None,
            observation: None,
            positive: None,
            negative: None,
            witness: None,
            graph: None,
            races: vec![],
            flags: vec![],
            flags_undefined: false,
            undefined_unless: Vec::new(),
            co: None,
            co_note: None,
            launch_note: None,
            races_complete: None,
            races_note: None,
            values_note: None,
            vacuous: None,
            assumptions: vec![],
            liveness: None,
            message: None,
            error: None,
            herd: None,
        }
    }

    pub fn verdict(&self) -> Option<Verdict> {
        match self.verdict.as_str() {
            "PASS" => Some(Verdict::Pass),
            "FAIL" => Some(Verdict::Fail),
            "UNKNOWN" => Some(Verdict::Unknown),
            _ => None,
        }
    }
}

/// Loaded models, shared between threads of a suite run.
#[derive(Default, Clone)]
pub struct ModelCache {
    models: Arc<Mutex<HashMap<String, Arc<Model>>>>,
}

impl ModelCache {
    pub fn get(&self, name: &str) -> Result<Arc<Model>> {
        if let Some(m) = self.models.lock().unwrap().get(name) {
            return Ok(m.clone());
        }
        let m = Arc::new(crate::models::load(name)?);
        self.models
            .lock()
            .unwrap()
            .insert(name.to_string(), m.clone());
        Ok(m)
    }

    /// The model `name` checked with coherence `co` (`--co`).
    pub fn get_with_co(&self, name: &str, co: crate::ir::Coherence) -> Result<Arc<Model>> {
        // Not a name a model can have: a line break.
        let key = format!("{name}\n{co:?}");
        if let Some(m) = self.models.lock().unwrap().get(&key) {
            return Ok(m.clone());
        }
        let mut m = (*self.get(name)?).clone();
        m.set_coherence(co, crate::cat::CoSource::CommandLine);
        let m = Arc::new(m);
        self.models.lock().unwrap().insert(key, m.clone());
        Ok(m)
    }
}

/// The name a program read from standard input (`gpumc check -`) goes by
/// in reports and error positions (`<stdin>:3:7`).
pub const STDIN_NAME: &str = "<stdin>";

/// Parses a program file, choosing the front-end by extension (or, for a
/// file without one, by content: see [`parse_program`]).
pub fn load_program(path: &Path) -> Result<Program> {
    load_program_as(path, path)
}

/// Parses the program in `file` under the name `name`: the front-end and
/// every error position go by `name` (the spooled standard input of
/// `gpumc check -` is read from a temporary file but named `<stdin>`).
pub fn load_program_as(file: &Path, name: &Path) -> Result<Program> {
    load_program_launched(file, name, &Launch::default())
}

/// [`load_program_as`], a PTX kernel launched as `launch` says (over the
/// file's own `// gpumc-launch:` lines).
pub fn load_program_launched(file: &Path, name: &Path, launch: &Launch) -> Result<Program> {
    let bytes = std::fs::read(file).map_err(|e| Error::io(name, e))?;
    let src = crate::diag::text(bytes).map_err(|e| e.in_file(name))?;
    parse_program_launched(&src, name, launch)
}

/// The front-ends a source text can be read by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    Litmus,
    Spirv,
    /// A PTX module (`nvcc -ptx`, `clang --cuda-device-only -S` output).
    PtxKernel,
}

impl SourceFormat {
    /// By content: SPIR-V assembly starts with `;` comments (Dat3M's
    /// `; @Input`/`; @Config` headers, `; SPIR-V`), an instruction
    /// (`OpCapability`) or a result id (`%1 = …`); everything else is read
    /// as a litmus test, whose first word names the dialect (`PTX`,
    /// `VULKAN`, `GPU_PTX`) and whose parser explains what it expected.
    pub fn sniff(src: &str) -> SourceFormat {
        let first = src.split_whitespace().next().unwrap_or("");
        if crate::frontend::ptx::looks_like_ptx(src) {
            SourceFormat::PtxKernel
        } else if first.starts_with(';') || first.starts_with("Op") || first.starts_with('%') {
            SourceFormat::Spirv
        } else {
            SourceFormat::Litmus
        }
    }
}

/// Parses a program text named `name`: `.litmus` and `.spvasm` choose the
/// front-end; a name without an extension (`<stdin>`) is read by content
/// ([`SourceFormat::sniff`]).
pub fn parse_program(src: &str, name: &Path) -> Result<Program> {
    parse_program_launched(src, name, &Launch::default())
}

/// [`parse_program`], a PTX kernel launched as `launch` says.
pub fn parse_program_launched(src: &str, name: &Path, launch: &Launch) -> Result<Program> {
    let format = match name.extension().and_then(|e| e.to_str()) {
        Some("litmus") => SourceFormat::Litmus,
        Some("spvasm") => SourceFormat::Spirv,
        Some("ptx") => SourceFormat::PtxKernel,
        Some("cu") => {
            let ptx = crate::frontend::cuda::compile(src, name, launch.kernel.as_deref())?;
            return crate::frontend::ptx::parse_kernel(&ptx, name, launch);
        }
        Some("comp") => {
            let asm = crate::frontend::glsl::compile(src, name, launch)?;
            return crate::frontend::spirv::parse(&asm, name);
        }
        Some("cl") => {
            let asm = crate::frontend::opencl::compile(src, name, launch)?;
            return crate::frontend::spirv::parse(&asm, name);
        }
        None => SourceFormat::sniff(src),
        Some(other) => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                "unsupported: input format `{other}` (expected a .litmus, .spvasm, .ptx, .cu, .cl or .comp file)"
            ),
            )
            .in_file(name))
        }
    };
    match format {
        SourceFormat::Litmus => {
            crate::frontend::litmus::parse(src, name).map_err(|e| e.in_file(name))
        }
        SourceFormat::Spirv => {
            crate::frontend::spirv::parse(src, name).map_err(|e| e.in_file(name))
        }
        SourceFormat::PtxKernel => crate::frontend::ptx::parse_kernel(src, name, launch),
    }
}

/// Checks one file. Errors are reported inside the [`FileReport`]; a
/// tripped resource guard (`cfg.limits`) is verdict `UNKNOWN` with the
/// reason. Under `--engine auto`, an engine that refuses the test (an
/// `unsupported` engine limit, or a tripped guard) hands it to the other
/// engine, which gets the rest of the time; the report names the engine
/// that decided.
pub fn check_file(path: &Path, cfg: &Config, cache: &ModelCache) -> FileReport {
    check_file_as(path, path, cfg, cache)
}

/// [`check_file`] of the program in `file`, reported under the name
/// `name` (see [`load_program_as`]).
pub fn check_file_as(file: &Path, name: &Path, cfg: &Config, cache: &ModelCache) -> FileReport {
    check_input(Input::File(file), name, cfg, cache)
}

/// [`check_file`] of a program given as text, named `name` (its
/// extension chooses the front-end, as [`parse_program`] says): for
/// callers that hold the text already, such as the fuzz targets, which
/// must not touch the file system.
pub fn check_source(src: &str, name: &Path, cfg: &Config, cache: &ModelCache) -> FileReport {
    check_input(Input::Text(src), name, cfg, cache)
}

/// Where a checked program comes from: read at each attempt (a file is
/// read again when `--max-bound` raises the bound, as it always was).
#[derive(Clone, Copy)]
enum Input<'a> {
    File(&'a Path),
    Text(&'a str),
}

impl Input<'_> {
    /// The text of the input when it is a kernel the parametric engine
    /// takes: a PTX kernel, or a SPIR-V one (by extension, or by content
    /// for a name without one) — for a SPIR-V test with a condition
    /// (`@Output`, `@Filter`) only under `--property races`, since the
    /// engine computes no final state.
    fn kernel_text(
        self,
        name: &Path,
        property: Property,
        launch: &Launch,
    ) -> Result<Option<(String, crate::kernel_scale::Kernel)>> {
        use crate::kernel_scale::Kernel;
        let mut compiled = None;
        let spirv = match name.extension().and_then(|e| e.to_str()) {
            Some("spvasm") => true,
            Some("comp") => {
                let src = self.text(name)?;
                compiled = Some(crate::frontend::glsl::compile(&src, name, launch)?);
                true
            }
            Some("cl") => {
                let src = self.text(name)?;
                compiled = Some(crate::frontend::opencl::compile(&src, name, launch)?);
                true
            }
            Some("ptx") => false,
            Some("cu") => {
                let src = self.text(name)?;
                return Ok(Some((
                    crate::frontend::cuda::compile(&src, name, launch.kernel.as_deref())?,
                    Kernel::Ptx,
                )));
            }
            Some(_) => return Ok(None),
            None => {
                let src = self.text(name)?;
                match SourceFormat::sniff(&src) {
                    SourceFormat::PtxKernel => return Ok(Some((src, Kernel::Ptx))),
                    SourceFormat::Spirv => true,
                    SourceFormat::Litmus => return Ok(None),
                }
            }
        };
        let src = match compiled {
            Some(asm) => asm,
            None => self.text(name)?,
        };
        if !spirv {
            return Ok(Some((src, Kernel::Ptx)));
        }
        if property != Property::Races && crate::frontend::spirv::has_condition(&src) {
            return Ok(None);
        }
        Ok(Some((src, Kernel::Spirv)))
    }

    fn text(self, name: &Path) -> Result<String> {
        match self {
            Input::File(file) => {
                let bytes = std::fs::read(file).map_err(|e| Error::io(name, e))?;
                crate::diag::text(bytes).map_err(|e| e.in_file(name))
            }
            Input::Text(src) => Ok(src.to_string()),
        }
    }

    fn load(self, name: &Path, launch: &Launch) -> Result<Program> {
        match self {
            Input::File(file) => load_program_launched(file, name, launch),
            Input::Text(src) => parse_program_launched(src, name, launch),
        }
    }
}

fn check_input(input: Input<'_>, name: &Path, cfg: &Config, cache: &ModelCache) -> FileReport {
    let start = Instant::now();
    if let Some(report) = bound_one_first(input, name, cfg, cache, start) {
        return report;
    }
    let mut c = cfg.clone();
    loop {
        let mut report = check_at_bound(input, name, &c, cache, start);
        let undecided = report.verdict == "UNKNOWN" && report.bound_hit && report.error.is_none();
        match cfg.max_bound {
            Some(max) if undecided && c.bound < max => {
                // Every attempt shares the one deadline (from `start`).
                crate::guard::release_freed_memory();
                c.bound += 1;
            }
            _ => {
                if c.bound > cfg.bound {
                    report.bound_note = Some(format!(
                        "raised from --bound {} to {} (--max-bound {}): every smaller bound cut an execution that could decide the verdict",
                        cfg.bound,
                        c.bound,
                        cfg.max_bound.unwrap_or(c.bound)
                    ));
                }
                return report;
            }
        }
    }
}

/// The share of the time limit a first attempt at bound 1 may take before
/// the check at the asked `--bound` starts, and its cap in seconds.
const BOUND_ONE_SHARE: f64 = 0.1;
const BOUND_ONE_CAP_S: f64 = 5.0;

/// A safety or race check asked at `--bound B > 1` is first tried at
/// bound 1, for a short share of the time. Its answer is the answer at
/// bound B whenever it is decided and no execution was cut: then bound 1
/// covered every execution, and bound B has the same ones — the same
/// states, races and verdict (docs/SEMANTICS.md, "A smaller bound
/// first"). Many spin loops
/// are decided there (a futile iteration stops its thread as spinning
/// rather than counting towards the bound), in a formula a fraction of the
/// size. `None`: the check at bound B decides.
fn bound_one_first(
    input: Input<'_>,
    name: &Path,
    cfg: &Config,
    cache: &ModelCache,
    start: Instant,
) -> Option<FileReport> {
    if cfg.bound <= 1 || !matches!(cfg.property, Property::Safety | Property::Races) {
        return None;
    }
    let share = cfg.limits.timeout_s.map_or(BOUND_ONE_CAP_S, |t| {
        (t * BOUND_ONE_SHARE).min(BOUND_ONE_CAP_S)
    });
    let first = Config {
        bound: 1,
        max_bound: None,
        limits: Limits {
            timeout_s: Some(share),
            ..cfg.limits
        },
        ..cfg.clone()
    };
    let mut report = check_at_bound(input, name, &first, cache, start);
    // (A race or a state found where the bound cut an execution is one of
    // bound B's too, but bound B may find more: not the same report.)
    let decided = report.error.is_none()
        && report.verdict != Verdict::Unknown.to_string()
        && !report.bound_hit;
    if !decided {
        crate::guard::release_freed_memory();
        return None;
    }
    if report.loop_free {
        report.bound = cfg.bound;
    } else {
        report.bound_note = Some(format!(
            "decided at bound 1 (asked: --bound {}): no execution reaches the loop bound there, so a larger bound adds none",
            cfg.bound
        ));
    }
    Some(report)
}

/// Why the launch options do not apply to the file `name` (a SPIR-V test
/// or a litmus test), when some were given: said in the report rather
/// than ignored in silence. (A run over a folder may give them for the
/// PTX kernels in it, so this is no error.)
fn launch_ignored(name: &Path, launch: &Launch) -> Option<String> {
    if *launch == Launch::default() {
        return None;
    }
    let what = match name.extension().and_then(|e| e.to_str()) {
        Some("spvasm") => "a SPIR-V test is launched as its `; @Config:` line says",
        Some("litmus") => "a litmus test's threads are its columns",
        _ => return None,
    };
    Some(format!(
        "--grid, --block, --kernel, --param and --shared-bytes launch PTX kernels (not applied here: {what})"
    ))
}

/// One check of `input` at `cfg.bound`, its time limit counted from
/// `start`.
fn check_at_bound(
    input: Input<'_>,
    name: &Path,
    cfg: &Config,
    cache: &ModelCache,
    start: Instant,
) -> FileReport {
    let path = name;
    let guard = Guard::new(&cfg.limits, start);
    let mut report = FileReport::new(path, cfg);
    report.launch_note = launch_ignored(path, &cfg.launch);
    let outcome = (|| -> Result<()> {
        // Reading the program and the model (both the user's, of any
        // length) keeps the deadline too; each engine enters its own share.
        let _reading = crate::guard::enter(guard.clone());
        let concrete_cfg;
        let mut cfg = cfg;
        // A PTX kernel's race check goes to the parametric engine first;
        // its text is read once, for both.
        let mut ptx = None;
        let parametric_first = cfg.property == Property::Races
            && matches!(cfg.engine, Engine::Parametric | Engine::Auto)
            || cfg.property == Property::Safety && cfg.engine == Engine::Parametric;
        if parametric_first {
            ptx = input.kernel_text(name, cfg.property, &cfg.launch)?;
        }
        if let Some((src, kind)) = &ptx {
            match crate::kernel_scale::check(src, name, *kind, cfg, cache, &mut report, None)? {
                crate::kernel_scale::Step::Decided => return Ok(()),
                crate::kernel_scale::Step::Concrete(note) => {
                    report.engine_note = note;
                    // What the parametric engine left open, the others decide.
                    concrete_cfg = Config {
                        engine: Engine::Auto,
                        ..cfg.clone()
                    };
                    cfg = &concrete_cfg;
                }
            }
        }
        if cfg.engine == Engine::Parametric {
            return Err(Error::new(
                ErrorKind::Usage,
                "--engine parametric checks races and safety of kernels (`--property races` or `safety` on a `.ptx` file or a `.spvasm` file without `@Output`/`@Filter`)",
            ));
        }
        let mut program = match &ptx {
            // (a CUDA source's text here is its compiled PTX, a GLSL
            // shader's its SPIR-V assembly)
            Some((src, kind)) => match parse_kernel_text(src, *kind, name, cfg) {
                Ok(p) => p,
                // The concrete translation refuses what the parametric
                // engine left open (an address into a buffer of unknown
                // size): its answer stands, with the refusal as the
                // reason the launch is not checked concretely.
                Err(e) if parametric_first && e.kind == ErrorKind::Unsupported => {
                    report.engine_note = None;
                    return parametric_after_refusal(src, *kind, name, cfg, cache, &mut report, e);
                }
                Err(e) => return Err(e),
            },
            None => {
                // A CUDA, OpenCL or GLSL source is compiled once: its output serves
                // the concrete front-end and, after a size refusal, the
                // parametric engine.
                let from_source = matches!(
                    name.extension().and_then(|e| e.to_str()),
                    Some("cu" | "comp" | "cl")
                );
                let mut compiled = match from_source {
                    true => input.kernel_text(name, cfg.property, &cfg.launch)?,
                    false => None,
                };
                let loaded = match &compiled {
                    Some((src, kind)) => parse_kernel_text(src, *kind, name, cfg),
                    None => input.load(name, &cfg.launch),
                };
                match loaded {
                    Ok(p) => p,
                    // A kernel the concrete engine refuses (a launch too large,
                    // an address into a buffer of unknown size) may still be
                    // free of undefined behaviour for every thread.
                    Err(e)
                        if e.scale
                            && cfg.property == Property::Safety
                            && cfg.engine == Engine::Auto =>
                    {
                        let text = match compiled.take() {
                            Some(t) => Some(t),
                            None => input.kernel_text(name, cfg.property, &cfg.launch)?,
                        };
                        let Some((src, kind)) = text else {
                            return Err(e);
                        };
                        return parametric_after_refusal(
                            &src,
                            kind,
                            name,
                            cfg,
                            cache,
                            &mut report,
                            e,
                        );
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        report.test = program.name.clone();
        report.assumptions = program.assumptions.clone();
        if cfg.property == Property::Races {
            let (sliced, n) = crate::engine::slice::for_races(&program);
            if n > 0 {
                program = sliced;
                report.values_note = Some(format!(
                    "{n} operation{} whose results decide no control flow, address, barrier or compare-and-swap {} not computed: witness values derived from them are placeholders",
                    if n == 1 { "" } else { "s" },
                    if n == 1 { "was" } else { "were" },
                ));
            }
        }
        report.herd = Some(HerdNames::of(&program));
        report.loop_free = crate::engine::loops::loop_free(&program);
        if cfg.property == Property::Safety {
            report.condition = program
                .assertion
                .as_ref()
                .map(|a| safety::condition_text(&program, a, false));
        }
        let model = load_model(cfg, &program, cache, &mut report)?;
        if model.herd_events() && program.arch == crate::ir::Arch::C {
            gpumc_frontend::tagging::herd_rmw_orders(&mut program);
        }
        if let Some(g) = &cfg.graph {
            check_shown(&model, &g.relations)?;
        }
        let first = cfg.engine.resolve(&program);
        if cfg.engine != Engine::Auto {
            return run_engine(first, &program, &model, cfg, guard, &mut report).map_err(
                |e| match e.kind {
                    ErrorKind::Limit => {
                        Error::new(e.kind, format!("{first} engine: {}", e.message))
                    }
                    _ => e.in_file(path),
                },
            );
        }
        // When the explicit engine cannot take the program at all (free
        // values it cannot enumerate), the symbolic engine gets the whole
        // budget and there is no fallback to wait for.
        // (Liveness fixes free inputs per valuation on either engine: its
        // refusals are shared, reported once below.)
        if first == Engine::Symbolic && cfg.property != Property::Liveness {
            if let Some(refused) = crate::engine::inputs::explicit_refusal(&program).map(|mut e| {
                // The symbolic engine is the one that runs: its advice is noise.
                e.message = e.message.replace(crate::engine::paths::USE_SYMBOLIC, "");
                at_source(e, &program)
            }) {
                return run_engine(first, &program, &model, cfg, guard, &mut report).map_err(
                    |e| match e.kind {
                        ErrorKind::Limit => Error::new(
                            e.kind,
                            format!("symbolic engine: {} (the explicit engine cannot take this program: {refused})", e.message),
                        ),
                        ErrorKind::Unsupported => Error::new(
                            e.kind,
                            format!("unsupported by both engines (symbolic engine: {e}; explicit engine: {refused})"),
                        )
                        .in_file(path),
                        _ => e.in_file(path),
                    },
                );
            }
        }
        // The first choice gets half the time, so that a fallback has some.
        let g = guard.share(0.5);
        let refused = match run_engine(first, &program, &model, cfg, g, &mut report) {
            Err(e) if refusal(&e) => e,
            other => return other.map_err(|e| e.in_file(path)),
        };
        crate::guard::release_freed_memory();
        let second = first.other();
        match run_engine(
            second,
            &program,
            &model,
            cfg,
            guard.restarted(),
            &mut report,
        ) {
            Ok(()) => {
                report.engine_note = Some(format!(
                    "the {first} engine gave up ({refused}); the {second} engine decided"
                ));
                Ok(())
            }
            // Both gave up for the same reason (a liveness refusal both
            // share): that reason, once, with its position.
            Err(e) if refusal(&e) && e.message == refused.message && e.pos == refused.pos => {
                Err(e.in_file(path))
            }
            Err(e) if refusal(&e) => {
                // Both gave up: a tripped guard (UNKNOWN) wins over a refusal.
                let both = format!("{first} engine: {refused}; {second} engine: {e}");
                Err(
                    if ErrorKind::Limit == e.kind || ErrorKind::Limit == refused.kind {
                        Error::new(ErrorKind::Limit, both)
                    } else {
                        Error::new(
                            ErrorKind::Unsupported,
                            format!("unsupported by both engines ({both})"),
                        )
                        .in_file(path)
                    },
                )
            }
            Err(e) => Err(e.in_file(path)),
        }
    })();
    if let Err(e) = outcome {
        if e.kind == ErrorKind::Limit {
            report.verdict = Verdict::Unknown.to_string();
            report.message = Some(e.message.clone());
        } else {
            report.message = Some(e.to_string());
        }
        report.error = Some(e);
    }
    report.time_ms = start.elapsed().as_secs_f64() * 1e3;
    report
}

/// The model of a check of `program` (`--model`, or its language's
/// default), its name noted in the report.
pub(crate) fn load_model(
    cfg: &Config,
    program: &Program,
    cache: &ModelCache,
    report: &mut FileReport,
) -> Result<Arc<Model>> {
    let arch = program.arch;
    let name = cfg
        .model
        .clone()
        .or_else(|| program.default_model.clone())
        .unwrap_or_else(|| arch.default_model().to_string());
    report.model = name.clone();
    let model = match cfg.co {
        Some(co) => cache.get_with_co(&name, co)?,
        None => cache.get(&name)?,
    };
    let (co, source) = model.coherence_for(arch);
    report.co = Some(co);
    if source != crate::cat::CoSource::Architecture {
        report.co_note = Some(source.describe().to_string());
    }
    Ok(model)
}

/// Checks that every relation `--show` names is one of the model's
/// (a usage error listing them otherwise).
fn check_shown(model: &Model, names: &[String]) -> Result<()> {
    let known = model.relation_names();
    let unknown: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !known.contains(n))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Usage,
        format!(
            "--show: model `{}` has no relation named {}; its relations: {}",
            model.name(),
            unknown
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", "),
            known.join(" ")
        ),
    ))
}

/// An engine declining a test the other engine may decide: an engine
/// limit or unsupported construct, or a tripped resource guard. Input
/// errors are final.
fn refusal(e: &Error) -> bool {
    matches!(e.kind, ErrorKind::Unsupported | ErrorKind::Limit)
}

/// The model's flag axioms that fire in some execution of `program`
/// (herd7's `Flag` lines), by a race check of the same engine: its pairs
/// name the flag that fires. A check that cannot finish says so in the
/// report's engine note rather than print no `Flag` line silently.
fn flags_of(
    program: &Program,
    model: &crate::cat::Model,
    opts: &Options,
    symbolic: bool,
    all_flags: bool,
    report: &mut FileReport,
) {
    // (`all_flags` false: the `undefined_unless` checks only.)
    // One check per flag axiom, each asking for one racing pair: a flag
    // is listed when it fires in some execution, however many pairs
    // another flag has (a shared cap could hide it), and an
    // `undefined_unless` check is told from a flag by its axiom, not its
    // name.
    for (i, axiom) in model.axioms().iter().enumerate() {
        if !axiom.flag || !(all_flags || axiom.undefined) {
            continue;
        }
        let opts = Options {
            max_states: None,
            graph: None,
            max_races: 1,
            only_flag: Some(i),
            ..opts.clone()
        };
        let r = if symbolic {
            crate::engine::symbolic::check_races(program, model, &opts)
        } else {
            crate::engine::races::check(program, model, &opts)
        };
        match r {
            Ok(r) if !r.races.is_empty() => {
                let list = if axiom.undefined {
                    &mut report.undefined_unless
                } else {
                    &mut report.flags
                };
                if !list.contains(&axiom.name) {
                    list.push(axiom.name.clone());
                }
            }
            Ok(_) => {}
            Err(e) => {
                report.engine_note.get_or_insert_with(|| {
                    format!("the model's flag axioms were not evaluated ({e})")
                });
                return;
            }
        }
    }
    if let (false, Some(h)) = (report.undefined_unless.is_empty(), &mut report.herd) {
        h.undefined = true;
    }
}

/// Runs one engine on a loaded program under `guard`, filling `report`
/// on success.
fn run_engine(
    engine: Engine,
    program: &Program,
    model: &crate::cat::Model,
    cfg: &Config,
    guard: Guard,
    report: &mut FileReport,
) -> Result<()> {
    run_engine_here(engine, program, model, cfg, guard, report).map_err(|e| at_source(e, program))
}

/// An engine's error at a line of a compiled program (the SPIR-V of an
/// OpenCL or GLSL source, the PTX of a CUDA one) is reported at the
/// source line that line came from, naming the compiled line too: the
/// compiled text is a scratch file the user never sees.
fn at_source(mut e: Error, program: &Program) -> Error {
    let Some(pos) = e.pos else { return e };
    if e.file.is_some() {
        return e;
    }
    if let Some(src) = program.source_map.get(&pos.line) {
        e.message = format!(
            "{} (at line {} of the compiled program)",
            e.message, pos.line
        );
        e.file = Some(std::path::PathBuf::from(&src.file));
        e.pos = Some(crate::ir::Pos {
            line: src.line,
            // (0: the compiler gave no column)
            col: src.col.max(1),
        });
    }
    e
}

fn run_engine_here(
    engine: Engine,
    program: &Program,
    model: &crate::cat::Model,
    cfg: &Config,
    guard: Guard,
    report: &mut FileReport,
) -> Result<()> {
    let _scope = crate::guard::enter(guard);
    if let Some(i) = program
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .find(|i| i.kind.addr().is_some_and(|a| a.is_region()))
    {
        // Only the parametric engine reads a generic thread's regions.
        return Err(Error::unsupported(
            i.pos,
            "an access into a region (a kernel's generic thread): the parametric engine checks those",
        ));
    }
    let opts = Options {
        bound: cfg.bound,
        liveness: cfg.property == Property::Liveness,
        ignore_filter: cfg.ignore_filter,
        max_states: cfg.max_states,
        states_time_s: cfg.states_time_s,
        graph: cfg.graph.clone(),
        max_races: cfg.max_races,
        symmetry: cfg.symmetry,
        futile_drop: cfg.futile_drop,
        split_scopes: cfg.split_scopes,
        ..Options::default()
    };
    let symbolic = engine == Engine::Symbolic;
    // The symbolic engine produces one execution at most: it counts none.
    let counted = |n: u64| (!symbolic).then_some(n);
    match cfg.property {
        Property::Safety => {
            let r = if symbolic {
                crate::engine::symbolic::check_safety(program, model, &opts)
            } else {
                safety::check(program, model, &opts)
            }?;
            report.verdict = r.verdict.to_string();
            report.executions = counted(r.executions);
            report.observables = r.observables;
            report.states = r.states;
            report.states_complete = r.states_incomplete.is_none();
            report.states_note = r.states_incomplete;
            report.bound_hit = r.bound_hit;
            report.observation = r.observation;
            report.positive = r.positive;
            report.negative = r.negative;
            report.witness = r.witness;
            report.graph = r.graph;
            if let Some(h) = &mut report.herd {
                h.undefined = r.note.is_some();
                let sat = report
                    .states
                    .iter()
                    .filter(|st| safety::state_satisfies(program, st))
                    .count() as u64;
                h.state_counts = (sat, report.states.len() as u64 - sat);
            }
            // An `undefined_unless` check changes the answer (herd7's
            // `Undef`): it is always evaluated; flags when asked, or on C
            // (a racy C program is undefined).
            let all_flags = cfg.flags || program.arch == crate::ir::Arch::C;
            if all_flags && model.axioms().iter().any(|a| a.flag)
                || model.axioms().iter().any(|a| a.undefined)
            {
                flags_of(program, model, &opts, symbolic, all_flags, report);
                report.flags_undefined = program.arch == crate::ir::Arch::C;
            }
            if program.assertion.is_none() && r.note.is_none() && r.bound_hit {
                // No undefined behaviour within the bound, but the bound
                // cut an execution that may reach some (a kernel's loop
                // whose trip count is read from memory): nothing is shown.
                report.verdict = Verdict::Unknown.to_string();
                report.message = bound_reason(Verdict::Unknown, true, cfg.bound)
                    .map(|b| format!("no undefined behaviour within the bound, but {b}"));
            } else if program.assertion.is_none() && r.note.is_none() {
                // Nothing to claim: the states are the result.
                report.verdict = NO_CONDITION.into();
                report.message = None;
            } else {
                report.message = r
                    .note
                    .or_else(|| bound_reason(r.verdict, r.bound_hit, cfg.bound));
            }
        }
        Property::Races => {
            let r = if symbolic {
                crate::engine::symbolic::check_races(program, model, &opts)
            } else {
                crate::engine::races::check(program, model, &opts)
            }?;
            let mut verdict = r.verdict;
            if verdict == Verdict::Unknown && r.bound_hit && r.note.is_none() {
                // No race at this bound: it may be decided for every bound.
                if let Some(why) = crate::engine::bound_free::races_bound_free(program, model)? {
                    verdict = Verdict::Pass;
                    report.bound_note = Some(why);
                }
            }
            report.verdict = verdict.to_string();
            report.executions = counted(r.executions);
            report.bound_hit = r.bound_hit;
            report.races = r.races;
            report.races_complete = Some(r.races_complete);
            report.races_note = r.races_note;
            report.witness = r.witness;
            report.message = r
                .note
                .or_else(|| bound_reason(verdict, r.bound_hit, cfg.bound));
        }
        Property::Liveness => {
            let r = crate::engine::liveness::check(program, model, &opts, &cfg.progress, symbolic)?;
            report.verdict = r.verdict.to_string();
            report.executions = counted(r.executions);
            report.liveness = r.violation;
            report.witness = r.witness;
            // The liveness engines build witnesses without a graph request:
            // their tags and placement come from the program.
            if let (Some(w), Some(_)) = (&mut report.witness, &cfg.graph) {
                w.add_program_info(program);
            }
            if r.verdict == Verdict::Unknown {
                report.message = r.note;
            }
        }
    }
    let passed = report.verdict == Verdict::Pass.to_string() || report.verdict == NO_CONDITION;
    if passed && vacuous(program, model, &opts, symbolic)? {
        report.vacuous = Some(VACUOUS.into());
    }
    report.engine = Some(engine);
    Ok(())
}

/// The concrete translation of a kernel's text (a CUDA source's compiled
/// PTX, a GLSL shader's SPIR-V assembly).
fn parse_kernel_text(
    src: &str,
    kind: crate::kernel_scale::Kernel,
    name: &Path,
    cfg: &Config,
) -> Result<Program> {
    match kind {
        crate::kernel_scale::Kernel::Ptx => {
            crate::frontend::ptx::parse_kernel(src, name, &cfg.launch)
        }
        crate::kernel_scale::Kernel::Spirv => crate::frontend::spirv::parse(src, name),
    }
}

/// The parametric engine's answer for a kernel whose concrete translation
/// refused it with `e` (which stands if that engine hands the launch back).
fn parametric_after_refusal(
    src: &str,
    kind: crate::kernel_scale::Kernel,
    name: &Path,
    cfg: &Config,
    cache: &ModelCache,
    report: &mut FileReport,
    e: Error,
) -> Result<()> {
    match crate::kernel_scale::check(src, name, kind, cfg, cache, report, Some(&e))? {
        crate::kernel_scale::Step::Decided => Ok(()),
        crate::kernel_scale::Step::Concrete(_) => Err(e),
    }
}

/// The report's words when assumptions leave no execution.
pub const VACUOUS: &str = "no execution satisfies the program's assumptions (`__assume`, the kernel's `__requires`): every property holds vacuously";

/// Whether the program has assumptions (`Infeasible`) and no execution
/// satisfies them: no final state, no execution cut by the bound, no
/// undefined behaviour. A safety check with one state at most answers.
fn vacuous(
    program: &Program,
    model: &crate::cat::Model,
    opts: &crate::engine::Options,
    symbolic: bool,
) -> Result<bool> {
    if !program.has_assumptions() {
        return Ok(false);
    }
    let opts = crate::engine::Options {
        max_states: Some(1),
        graph: None,
        ignore_filter: true,
        ..opts.clone()
    };
    let r = if symbolic {
        crate::engine::symbolic::check_safety(program, model, &opts)
    } else {
        safety::check(program, model, &opts)
    }?;
    Ok(r.states.is_empty() && r.note.is_none() && !r.bound_hit && r.states_incomplete.is_none())
}

/// The verdict of a safety check of a test without a condition.
pub const NO_CONDITION: &str = "NONE";

/// Why a verdict is `UNKNOWN` when the loop bound is the reason, so that
/// the report never says `UNKNOWN` without one.
pub(crate) fn bound_reason(verdict: Verdict, bound_hit: bool, bound: u32) -> Option<String> {
    (verdict == Verdict::Unknown && bound_hit).then(|| {
        format!(
            "the loop bound (--bound {bound}) cut an execution that could decide the verdict; a larger --bound may decide it"
        )
    })
}

/// Expands files and directories (recursively, `*.litmus`, `*.spvasm`,
/// `*.ptx`) in a stable order.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            let mut seen = std::collections::HashSet::new();
            walk(p, &mut found, &mut seen).map_err(|e| Error::io(p, e))?;
            found.sort();
            out.extend(found);
        } else {
            // A missing file stays in the list: its check reports the I/O
            // error as that file's ERROR, and the other files are still
            // checked (nothing a user asked for is lost to one bad path).
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// `seen`: the directories already walked, by canonical path, so that a
/// symbolic link back up the tree (`d/loop -> .`) is walked once, not
/// until the path grows too long.
fn walk(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    seen: &mut std::collections::HashSet<PathBuf>,
) -> std::io::Result<()> {
    if !seen.insert(std::fs::canonicalize(dir)?) {
        return Ok(());
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out, seen)?;
        } else if path.extension().is_some_and(|e| {
            // (A `.cu` file usually defines several kernels, each chosen
            // with `--kernel`: it is checked when named, not when a folder
            // holding it is walked.)
            ["litmus", "spvasm", "ptx", "comp"].iter().any(|x| e == *x)
        }) {
            out.push(path);
        }
    }
    Ok(())
}

/// One row of a Dat3M-style expectations CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRow {
    pub path: String,
    pub expected: Verdict,
    /// Line in the CSV (1-based).
    pub line: usize,
    /// A `; `-disabled row (Dat3M does not run it).
    pub disabled: bool,
    /// The full format's per-row settings.
    pub settings: Option<RowSettings>,
}

/// Per-row settings of a Dat3M "full" expectations CSV
/// (`path,property,bound,progress,expected,model,options`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSettings {
    pub property: Property,
    pub bound: u32,
    pub progress: crate::engine::liveness::ProgressSpec,
    /// The model column's embedded name (`vulkan.cat` ↦ `vulkan`).
    pub model: Option<String>,
    /// `encoding.ignoreFilterSpecification=true`.
    pub ignore_filter: bool,
}

impl ExpectedRow {
    /// The configuration for this row: `base` with the row's own settings.
    pub fn config(&self, base: &Config) -> Config {
        let mut c = base.clone();
        if let Some(s) = &self.settings {
            c.property = s.property;
            c.bound = s.bound;
            c.progress = s.progress.clone();
            c.ignore_filter = base.ignore_filter || s.ignore_filter;
            if base.model.is_none() {
                c.model = s.model.clone();
            }
        }
        c
    }
}

/// Parses an expectations CSV: Dat3M's `path,0|1` rows, or its full
/// format with a header `path,property,bound,progress,expected,model,options`
/// (expected `PASS`/`FAIL`/`UNKNOWN`). `//` comments and blank lines are
/// skipped, `; ` rows are returned with `disabled` set.
pub fn parse_expected_csv(src: &str, file: &Path) -> Result<Vec<ExpectedRow>> {
    let mut rows = Vec::new();
    let mut full = false;
    let err = |i: usize, msg: String| {
        Error::syntax(
            crate::ir::Pos {
                line: i as u32 + 1,
                col: 1,
            },
            msg,
        )
        .in_file(file)
    };
    for (i, raw) in src.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        if line.starts_with("path,property,bound") {
            full = true;
            continue;
        }
        let (disabled, body) = match line.strip_prefix(';') {
            Some(rest) => (true, rest.trim()),
            None => (false, line),
        };
        if full {
            match full_row(body) {
                Some((path, expected, settings)) => rows.push(ExpectedRow {
                    path,
                    expected,
                    line: i + 1,
                    disabled,
                    settings: Some(settings),
                }),
                None if disabled => {}
                None => {
                    return Err(err(
                        i,
                        format!(
                            "expected `path,property,bound,progress,PASS|FAIL|UNKNOWN,model,options`, found `{line}`"
                        ),
                    ))
                }
            }
            continue;
        }
        let mut parts = body.split(',').map(str::trim);
        let path = parts.next().unwrap_or("");
        let val = parts.next();
        let expected = match val {
            Some("1") => Verdict::Pass,
            Some("0") => Verdict::Fail,
            _ => {
                if disabled {
                    continue;
                }
                return Err(err(i, format!("expected `path,0|1`, found `{line}`")));
            }
        };
        rows.push(ExpectedRow {
            path: path.to_string(),
            expected,
            line: i + 1,
            disabled,
            settings: None,
        });
    }
    Ok(rows)
}

/// One row of the full format.
fn full_row(body: &str) -> Option<(String, Verdict, RowSettings)> {
    let cols: Vec<&str> = body.split(',').map(str::trim).collect();
    if cols.len() < 5 {
        return None;
    }
    let property = Property::parse(cols[1])?;
    let bound = cols[2].parse().ok()?;
    let progress = crate::engine::liveness::ProgressSpec::parse(cols[3]).ok()?;
    let expected = match cols[4] {
        "PASS" => Verdict::Pass,
        "FAIL" => Verdict::Fail,
        "UNKNOWN" => Verdict::Unknown,
        _ => return None,
    };
    let model = cols
        .get(5)
        .map(|m| m.trim_end_matches(".cat"))
        .filter(|m| !m.is_empty())
        .map(str::to_string);
    let options = cols.get(6..).map(|o| o.join(",")).unwrap_or_default();
    let ignore_filter = options.contains("encoding.ignoreFilterSpecification=true");
    Some((
        cols[0].to_string(),
        expected,
        RowSettings {
            property,
            bound,
            progress,
            model,
            ignore_filter,
        },
    ))
}
