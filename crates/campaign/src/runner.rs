//! One test on one backend: read, lower, plan, compile, launch, judge.

use crate::conform::{state_names, state_terms, Judgement, ModelJudge, Verdicts};
use crate::report::{
    judgement_name, state_text, Entry, Observation, Status, TestReport, Violation,
};
use gpumc_core::cat::Model;
use gpumc_core::diag::{Error, ErrorKind};
use gpumc_core::guard::Limits;
use gpumc_core::ir::{Program, Quantifier, Term};
use gpumc_hw::backend::{Backend, LaunchError};
use gpumc_hw::lower::lower;
use gpumc_hw::params::Params;
use gpumc_hw::plan::Plan;
use gpumc_hw::run::{run, RunConfig};
use gpumc_verify::driver::ModelCache;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

/// Everything a test run needs besides the file and the backend.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Model name or `.cat` path; `None`: the dialect's default.
    pub model: Option<String>,
    /// Launches per test.
    pub iterations: u64,
    pub params: Params,
    /// Where the parameters came from (`parallel`, `sorensen`, a file).
    pub preset: String,
    /// The campaign's seed; each test's seed derives from it and the file.
    pub seed: u64,
    pub watchdog: Duration,
    /// Limits of each model check.
    pub model_limits: Limits,
    /// Largest loop bound the model check unrolls to.
    pub max_bound: u32,
    /// Write each test's generated kernel into this directory
    /// (`<name>.spv` for Vulkan, `<name>.ptx` for PTX, for the lowest
    /// PTX target; the CUDA backend compiles for its device's).
    pub emit: Option<std::path::PathBuf>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            model: None,
            iterations: 100,
            params: Params::default(),
            preset: "parallel".into(),
            seed: 0,
            watchdog: Duration::from_secs(10),
            model_limits: Limits {
                timeout_s: Some(30.0),
                max_memory_mb: Some(2048),
                ..Limits::none()
            },
            max_bound: 4,
            emit: None,
        }
    }
}

/// The seed of one test in a campaign: independent of the order tests
/// run in, so a resumed campaign repeats exactly what an uninterrupted
/// one does (FNV-1a of the file name, mixed with the campaign's seed).
pub fn test_seed(campaign: u64, file: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ campaign.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in file.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn status_of(e: &Error) -> Status {
    if e.kind == ErrorKind::Unsupported {
        Status::Unsupported
    } else {
        Status::Error
    }
}

/// Where a test's observed states are judged against the model: in this
/// process ([`InProcess`]), or where a failure of the model check (an
/// abort out of memory) cannot take the campaign with it (the CLI's
/// worker processes).
pub trait Judging {
    /// The model's verdicts on `states` (values of the state terms, loop
    /// back edges) of test `p`, read from `file`, under `model`
    /// (`model_name`). `Err`: why no verdict could be had; the run's
    /// observed states are still reported.
    fn verdicts(
        &self,
        file: &str,
        p: &Program,
        model: (&Model, &str),
        opts: &RunOptions,
        states: &[(Vec<i64>, u32)],
    ) -> Result<Verdicts, String>;
}

/// Judges in this process.
pub struct InProcess;

impl Judging for InProcess {
    fn verdicts(
        &self,
        _file: &str,
        p: &Program,
        model: (&Model, &str),
        opts: &RunOptions,
        states: &[(Vec<i64>, u32)],
    ) -> Result<Verdicts, String> {
        Ok(ModelJudge::new(p, model.0, opts.model_limits, opts.max_bound).judge_all(states))
    }
}

/// Runs a parsed test; `file` names it in the report. The observed
/// states are judged by `judging`.
pub fn run_program(
    file: &str,
    p: &Program,
    backend: &mut dyn Backend,
    opts: &RunOptions,
    cache: &ModelCache,
    judging: &dyn Judging,
    progress: &mut dyn FnMut(u64),
) -> TestReport {
    let located = |e: Error| e.in_file(Path::new(file));
    let fail = |e: Error| TestReport::failed(file, status_of(&e), located(e).to_string());
    let model_name = opts
        .model
        .clone()
        .unwrap_or_else(|| p.arch.default_model().to_string());
    let model = match cache.get(&model_name) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let (terms, nobs) = state_terms(p);
    let lowered = match lower(p, &terms) {
        Ok(l) => l,
        Err(e) => return fail(e),
    };
    let plan = match Plan::new(&lowered, &opts.params, backend.info()) {
        Ok(pl) => pl,
        Err(e) => return fail(e),
    };
    if let Some(dir) = &opts.emit {
        if let Err(e) = emit_kernel(dir, p, &lowered.spec, &plan.config) {
            return fail(e);
        }
    }
    let kernel = match backend.compile(&lowered.spec, &plan.config) {
        Ok(k) => k,
        Err(e) => return fail(e),
    };
    let seed = test_seed(opts.seed, file);
    let cfg = RunConfig {
        launches: opts.iterations,
        seed,
        watchdog: opts.watchdog,
    };
    let result = run(backend, kernel, &lowered, &plan, &cfg, progress);
    // The backend must be recreated before the next test; its kernels are
    // gone with it. A reset that fails is reported with this test (the
    // next tests on the backend fail with the same reason).
    let reset_failed = match &result.error {
        Some(LaunchError::Timeout(_)) | Some(LaunchError::DeviceLost(_)) => backend.reset().err(),
        _ => {
            backend.release(kernel);
            None
        }
    };
    let info = backend.info().clone();
    let names = state_names(p, &terms[..nobs]);
    let mut r = TestReport::failed(file, Status::Ok, String::new());
    r.message = None;
    r.name = p.name.clone();
    r.backend = info.backend.clone();
    r.device = info.name.clone();
    r.model = model_name.clone();
    r.iterations = result.launches;
    r.instances = result.instances_per_launch as u64;
    r.unfinished = result.counts.unfinished;
    r.out_of_bounds = result.counts.out_of_bounds;
    r.lost = result.counts.lost;
    r.rate_per_s = result.rate();
    r.elapsed_s = result.elapsed.as_secs_f64();
    r.device_time_s = result.device_time.map(|d| d.as_secs_f64());
    r.preset = opts.preset.clone();
    r.params = Some(plan.params().clone());
    r.seed = opts.seed;
    let assertion = p.assertion.as_ref();
    let (mut pos, mut neg) = (0u64, 0u64);
    let mut seen: BTreeSet<Vec<i64>> = BTreeSet::new();
    let asked: Vec<(Vec<i64>, u32)> = result
        .counts
        .states
        .keys()
        .map(|s| {
            let back = result.counts.back_edges.get(s).copied().unwrap_or(0);
            (s.clone(), back)
        })
        .collect();
    let verdicts = judging.verdicts(file, p, (&model, &model_name), opts, &asked);
    let judgements: Vec<Judgement> = match &verdicts {
        Ok(v) => v.judgements.clone(),
        Err(_) => vec![Judgement::Unknown; asked.len()],
    };
    for ((state, &count), &j) in result.counts.states.iter().zip(&judgements) {
        let proj = &state[..nobs];
        let text = state_text(&names, proj);
        let val = |t: &Term| match t {
            Term::Const(c) => *c,
            _ => terms.iter().position(|x| x == t).map_or(0, |k| state[k]),
        };
        let cond = assertion.is_some_and(|a| a.cond.eval(&val));
        match j {
            Judgement::Filtered => {
                r.filtered += count;
                continue;
            }
            Judgement::Forbidden => r.violations.push(Violation {
                state: text.clone(),
                count,
            }),
            Judgement::Undefined => r.undefined += count,
            Judgement::Unknown => r.undecided += count,
            Judgement::Allowed => {}
        }
        if cond {
            pos += count;
        } else {
            neg += count;
        }
        seen.insert(proj.to_vec());
        // States differing only in filter-only terms merge.
        match r.histogram.iter_mut().find(|e| e.values == proj) {
            Some(e) => e.count += count,
            None => r.histogram.push(Entry {
                state: text,
                values: proj.to_vec(),
                count,
                allowed: match j {
                    Judgement::Allowed => Some(true),
                    Judgement::Forbidden | Judgement::Undefined => Some(false),
                    Judgement::Unknown | Judgement::Filtered => None,
                },
                judgement: judgement_name(j).to_string(),
                condition: cond,
            }),
        }
    }
    if let Ok(Verdicts {
        allowed: Some((allowed, complete)),
        ..
    }) = &verdicts
    {
        r.unseen = allowed
            .iter()
            .filter(|s| !seen.contains(*s))
            .map(|s| state_text(&names, s))
            .collect();
        r.unseen_complete = *complete;
        if *complete {
            if let Some(a) = assertion.filter(|a| a.quantifier != Quantifier::Forall) {
                r.forbidden_unseen =
                    forbidden_condition_states(&a.cond, &terms[..nobs], allowed, &seen)
                        .iter()
                        .map(|s| state_text(&names, s))
                        .collect();
            }
        }
    }
    if let Some(a) = assertion {
        let q = match a.quantifier {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        };
        r.condition = Some(format!("{q} ({})", cond_text(p, &a.cond)));
        r.validated = Some(match a.quantifier {
            Quantifier::Exists => pos > 0,
            Quantifier::NotExists => pos == 0,
            Quantifier::Forall => neg == 0,
        });
        r.observation = Some(Observation {
            kind: if pos == 0 {
                "Never"
            } else if neg == 0 {
                "Always"
            } else {
                "Sometimes"
            }
            .into(),
            positive: pos,
            negative: neg,
        });
    }
    if !r.violations.is_empty() {
        r.status = Status::Violation;
    }
    if let Some(e) = result.error {
        r.status = Status::Error;
        let after = match reset_failed {
            Some(why) => format!("; the reset that followed failed: {why}"),
            None => String::new(),
        };
        r.message = Some(format!(
            "stopped after {} of {} launches: {e}{after}",
            result.launches, opts.iterations
        ));
    } else {
        match &verdicts {
            Err(why) => {
                r.status = Status::Error;
                r.message = Some(format!(
                    "the model could not judge the observed states ({why}); they are listed unjudged"
                ));
            }
            Ok(Verdicts {
                refusal: Some(why), ..
            }) => {
                r.message = Some(format!(
                    "the explicit engine could not list the model's states ({why}); each observed state was checked alone"
                ));
            }
            Ok(_) => {}
        }
    }
    r
}

/// Combinations of values tried at most for [`forbidden_condition_states`].
const MAX_CONDITION_STATES: usize = 4096;

/// The states over `terms` that satisfy `cond`, are not in the model's
/// complete list `allowed`, and were not observed (`seen`): each term
/// ranging over the values it has in an allowed or observed state and the
/// constants the condition compares with. Empty when the condition reads
/// a term outside `terms` or the combinations are too many to list.
fn forbidden_condition_states(
    cond: &gpumc_core::ir::Cond,
    terms: &[Term],
    allowed: &[Vec<i64>],
    seen: &BTreeSet<Vec<i64>>,
) -> Vec<Vec<i64>> {
    use gpumc_core::ir::Cond;
    fn constants(c: &Cond, out: &mut BTreeSet<i64>, terms: &mut Vec<Term>) {
        match c {
            Cond::Cmp(_, a, b) => {
                for t in [a, b] {
                    match t {
                        Term::Const(k) => {
                            out.insert(*k);
                        }
                        t => terms.push(t.clone()),
                    }
                }
            }
            Cond::Not(x) => constants(x, out, terms),
            Cond::And(x, y) | Cond::Or(x, y) => {
                constants(x, out, terms);
                constants(y, out, terms);
            }
            Cond::True | Cond::False => {}
        }
    }
    let mut consts = BTreeSet::new();
    let mut read = Vec::new();
    constants(cond, &mut consts, &mut read);
    if read.iter().any(|t| !terms.contains(t)) {
        return Vec::new();
    }
    let domains: Vec<Vec<i64>> = (0..terms.len())
        .map(|k| {
            let mut d: BTreeSet<i64> = allowed.iter().chain(seen.iter()).map(|s| s[k]).collect();
            d.extend(consts.iter().copied());
            d.into_iter().collect()
        })
        .collect();
    let total = domains
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(d.len().max(1)));
    if total.is_none_or(|n| n > MAX_CONDITION_STATES) {
        return Vec::new();
    }
    let allowed: BTreeSet<&Vec<i64>> = allowed.iter().collect();
    let mut out = Vec::new();
    let mut state: Vec<i64> = domains
        .iter()
        .map(|d| d.first().copied().unwrap_or(0))
        .collect();
    let mut index = vec![0usize; terms.len()];
    loop {
        let val = |t: &Term| match t {
            Term::Const(c) => *c,
            _ => terms.iter().position(|x| x == t).map_or(0, |k| state[k]),
        };
        if cond.eval(&val) && !allowed.contains(&state) && !seen.contains(&state) {
            out.push(state.clone());
        }
        // The next combination (odometer).
        let mut k = terms.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < domains[k].len() {
                state[k] = domains[k][index[k]];
                break;
            }
            index[k] = 0;
            state[k] = domains[k].first().copied().unwrap_or(0);
        }
    }
}

/// Writes the kernel `gpumc run` generates for a test (`--emit DIR`).
fn emit_kernel(
    dir: &Path,
    p: &Program,
    spec: &gpumc_hw::spec::KernelSpec,
    cfg: &gpumc_hw::abi::KernelConfig,
) -> Result<(), Error> {
    use gpumc_hw::spec::Dialect;
    let name: String = p
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "+-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let (file, bytes) = match spec.dialect {
        Dialect::Vulkan => (
            dir.join(format!("{name}.spv")),
            gpumc_hw::spirv::emit(spec, cfg)?
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        ),
        Dialect::Ptx => (
            dir.join(format!("{name}.ptx")),
            gpumc_hw::ptx::emit(spec, cfg, &gpumc_hw::ptx::PtxTarget::default())?.into_bytes(),
        ),
    };
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&file, bytes))
        .map_err(|e| Error::io(&file, e))
}

/// A condition in the test's own terms.
fn cond_text(p: &Program, c: &gpumc_core::ir::Cond) -> String {
    use gpumc_core::ir::Cond;
    let term = |t: &Term| match t {
        Term::Const(v) => v.to_string(),
        t => gpumc_verify::engine::safety::term_name(p, t),
    };
    match c {
        Cond::True => "true".into(),
        Cond::False => "false".into(),
        Cond::Cmp(op, a, b) => format!("{} {} {}", term(a), op.symbol(), term(b)),
        Cond::Not(x) => format!("~({})", cond_text(p, x)),
        Cond::And(a, b) => format!("{} /\\ {}", cond_text(p, a), cond_text(p, b)),
        Cond::Or(a, b) => format!("({} \\/ {})", cond_text(p, a), cond_text(p, b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpumc_hw::abi::KernelConfig;
    use gpumc_hw::backend::{DeviceInfo, KernelId, Launch, LaunchOutput};
    use gpumc_hw::interp::Interp;
    use gpumc_hw::spec::KernelSpec;

    /// The interpreter, except that its first launches fail as a hung or
    /// lost GPU would.
    struct Faulty {
        inner: Interp,
        failures: Vec<LaunchError>,
        resets: usize,
        /// What every reset fails with (a driver that cannot recover).
        reset_error: Option<String>,
    }

    impl Backend for Faulty {
        fn info(&self) -> &DeviceInfo {
            self.inner.info()
        }
        fn compile(
            &mut self,
            s: &KernelSpec,
            c: &KernelConfig,
        ) -> gpumc_core::diag::Result<KernelId> {
            self.inner.compile(s, c)
        }
        fn launch(
            &mut self,
            k: KernelId,
            l: &Launch<'_>,
            w: Duration,
        ) -> Result<LaunchOutput, LaunchError> {
            match self.failures.pop() {
                Some(e) => Err(e),
                None => self.inner.launch(k, l, w),
            }
        }
        fn release(&mut self, k: KernelId) {
            self.inner.release(k)
        }
        fn reset(&mut self) -> Result<(), String> {
            self.resets += 1;
            match &self.reset_error {
                Some(e) => Err(e.clone()),
                None => self.inner.reset(),
            }
        }
    }

    const SB: &str = r#"Vulkan SB
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | st.atom.dv.sc0 y, 1  ;
 ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

    #[test]
    fn a_hung_or_lost_device_fails_the_test_resets_the_backend_and_the_next_test_runs() {
        let p = gpumc_frontend::litmus::parse(SB, Path::new("sb.litmus")).unwrap();
        let mut b = Faulty {
            inner: Interp::new(0),
            failures: vec![
                LaunchError::DeviceLost("VK_ERROR_DEVICE_LOST".into()),
                LaunchError::Timeout(Duration::from_secs(1)),
            ],
            resets: 0,
            reset_error: None,
        };
        let opts = RunOptions {
            iterations: 3,
            ..RunOptions::default()
        };
        let cache = ModelCache::default();
        let r = run_program(
            "sb.litmus",
            &p,
            &mut b,
            &opts,
            &cache,
            &InProcess,
            &mut |_| {},
        );
        assert_eq!(r.status, Status::Error);
        assert!(
            r.message.as_deref().unwrap().contains("watchdog"),
            "{:?}",
            r.message
        );
        assert_eq!(b.resets, 1);
        let r = run_program(
            "sb.litmus",
            &p,
            &mut b,
            &opts,
            &cache,
            &InProcess,
            &mut |_| {},
        );
        assert_eq!(r.status, Status::Error);
        assert!(
            r.message.as_deref().unwrap().contains("device lost"),
            "{:?}",
            r.message
        );
        assert_eq!(b.resets, 2);
        let r = run_program(
            "sb.litmus",
            &p,
            &mut b,
            &opts,
            &cache,
            &InProcess,
            &mut |_| {},
        );
        assert_eq!(r.status, Status::Ok);
        assert_eq!(r.total(), 3 * r.instances);
    }

    #[test]
    fn a_reset_that_fails_is_reported_with_the_test_that_lost_the_device() {
        let p = gpumc_frontend::litmus::parse(SB, Path::new("sb.litmus")).unwrap();
        let mut b = Faulty {
            inner: Interp::new(0),
            failures: vec![LaunchError::DeviceLost("CUDA_ERROR_ILLEGAL_ADDRESS".into())],
            resets: 0,
            reset_error: Some("no context can be made again".into()),
        };
        let opts = RunOptions {
            iterations: 2,
            ..RunOptions::default()
        };
        let r = run_program(
            "sb.litmus",
            &p,
            &mut b,
            &opts,
            &ModelCache::default(),
            &InProcess,
            &mut |_| {},
        );
        assert_eq!(r.status, Status::Error);
        let m = r.message.unwrap();
        assert!(
            m.ends_with(
                "CUDA_ERROR_ILLEGAL_ADDRESS; the reset that followed failed: no context can be made again"
            ),
            "{m}"
        );
        assert_eq!(b.resets, 1);
    }

    #[test]
    fn test_seeds_depend_on_the_campaign_seed_and_the_file_only() {
        assert_eq!(test_seed(1, "a.litmus"), test_seed(1, "a.litmus"));
        assert_ne!(test_seed(1, "a.litmus"), test_seed(2, "a.litmus"));
        assert_ne!(test_seed(1, "a.litmus"), test_seed(1, "b.litmus"));
    }
}
