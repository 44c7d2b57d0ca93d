//! Process isolation, the last line of defence behind the resource guards
//! (`crate::guard`): the CLI checks each test in a worker process, so
//! that what cannot be caught in Rust — an allocation failure inside
//! CaDiCaL (a C++ exception that aborts the process), the out-of-memory
//! killer, a crash, code that never reaches a guard check — ends that
//! test's check with an `ERROR`/`UNKNOWN` line while the others go on.
//!
//! A [`Pool`] keeps one worker per parallel check (the same binary,
//! re-executed as the hidden `gpumc worker`), so the cost is one process
//! start and one model load per worker, not per test. Each request is one
//! JSON line on the worker's stdin (file and configuration), each answer
//! one JSON line on its stdout (the report, rendered). Before each check
//! the worker lowers its address-space limit (`RLIMIT_AS`) to what it has
//! mapped plus the memory budget; the parent kills a worker that has not
//! answered shortly after the deadline. A dead worker is replaced.
//! `gpumc run` judges each test's observed states in a worker the same way
//! ([`Judging`] for [`Pool`]).

use crate::driver::{self, Config, Engine, FileReport, ModelCache, Property};
use crate::guard::Limits;
use crate::ir::Program;
use gpumc_campaign::conform::{ModelJudge, Verdicts};
use gpumc_campaign::runner::{InProcess, Judging, RunOptions};
use gpumc_core::cat::Model;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hidden subcommand that runs a worker.
pub const WORKER_COMMAND: &str = "worker";

/// Stderr lines of a worker kept to explain how it died.
const STDERR_TAIL: usize = 16;

/// A report as the CLI prints it, computed where the check ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rendered {
    pub file: String,
    pub verdict: String,
    pub message: Option<String>,
    pub time_ms: f64,
    /// Human text (`report::text`).
    pub text: String,
    /// One JSON object (`report::json`).
    pub json: String,
    /// herd7's result block (`report::herd`).
    pub herd: String,
    /// The execution graphs to write (`--graph`), drawn by the parent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drawings: Vec<crate::report::graph::Drawing>,
}

impl Rendered {
    /// The report `r` of a check under `cfg`: with its drawings when
    /// `cfg` asks for graphs.
    pub fn of(r: &FileReport, cfg: &Config) -> Rendered {
        Rendered {
            file: r.file.clone(),
            verdict: r.verdict.clone(),
            message: r.message.clone(),
            time_ms: r.time_ms,
            text: crate::report::text(r),
            json: crate::report::json(r),
            herd: crate::report::herd(r),
            drawings: cfg
                .graph
                .as_ref()
                .map(|g| crate::report::graph::drawings_with(r, g.all, g.full))
                .unwrap_or_default(),
        }
    }
}

/// A check request: the file and its configuration.
#[derive(Serialize, Deserialize)]
struct Request {
    path: PathBuf,
    /// The name the report and error positions use, when not `path`
    /// (`<stdin>` for standard input spooled to a temporary file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<PathBuf>,
    model: Option<String>,
    bound: u32,
    property: Property,
    ignore_filter: bool,
    /// `ProgressSpec::text`, parsed again by the worker.
    progress: String,
    engine: Engine,
    limits: Limits,
    max_states: Option<u64>,
    #[serde(default)]
    states_time_s: Option<f64>,
    #[serde(default)]
    graph: Option<crate::engine::witness::GraphRequest>,
    #[serde(default)]
    launch: crate::frontend::ptx::launch::Launch,
    max_races: usize,
    #[serde(default = "yes")]
    symmetry: bool,
    #[serde(default = "yes")]
    futile_drop: bool,
    #[serde(default = "yes")]
    split_scopes: bool,
    #[serde(default)]
    max_bound: Option<u32>,
    #[serde(default)]
    flags: bool,
    #[serde(default)]
    co: Option<crate::ir::Coherence>,
}

fn yes() -> bool {
    true
}

impl Request {
    fn new(path: &Path, name: &Path, cfg: &Config) -> Request {
        Request {
            path: path.to_path_buf(),
            name: (name != path).then(|| name.to_path_buf()),
            model: cfg.model.clone(),
            bound: cfg.bound,
            property: cfg.property,
            ignore_filter: cfg.ignore_filter,
            progress: cfg.progress.text.clone(),
            engine: cfg.engine,
            limits: Limits {
                resident: true,
                ..cfg.limits
            },
            max_states: cfg.max_states,
            states_time_s: cfg.states_time_s,
            graph: cfg.graph.clone(),
            launch: cfg.launch.clone(),
            max_races: cfg.max_races,
            symmetry: cfg.symmetry,
            futile_drop: cfg.futile_drop,
            split_scopes: cfg.split_scopes,
            max_bound: cfg.max_bound,
            flags: cfg.flags,
            co: cfg.co,
        }
    }

    fn config(&self) -> Result<Config, String> {
        Ok(Config {
            model: self.model.clone(),
            bound: self.bound,
            property: self.property,
            ignore_filter: self.ignore_filter,
            progress: crate::engine::liveness::ProgressSpec::parse(&self.progress)?,
            engine: self.engine,
            limits: self.limits,
            max_states: self.max_states,
            states_time_s: self.states_time_s,
            graph: self.graph.clone(),
            launch: self.launch.clone(),
            max_races: self.max_races,
            symmetry: self.symmetry,
            futile_drop: self.futile_drop,
            split_scopes: self.split_scopes,
            max_bound: self.max_bound,
            flags: self.flags,
            co: self.co,
        })
    }
}

/// A request to judge the observed states of a `gpumc run` test
/// ([`gpumc_campaign::runner::Judging`]): the worker reads the test from
/// `path` again, as the parent did.
#[derive(Serialize, Deserialize)]
struct JudgeRequest {
    judge: JudgeBody,
}

#[derive(Serialize, Deserialize)]
struct JudgeBody {
    path: PathBuf,
    model: String,
    limits: Limits,
    max_bound: u32,
    states: Vec<(Vec<i64>, u32)>,
}

/// The judgement in the worker.
fn judge_here(b: &JudgeBody, cache: &ModelCache) -> Result<Verdicts, String> {
    limit_address_space(b.limits.max_memory_mb);
    let p = driver::load_program(&b.path).map_err(|e| e.to_string())?;
    let model = cache.get(&b.model).map_err(|e| e.to_string())?;
    Ok(ModelJudge::new(&p, &model, b.limits, b.max_bound).judge_all(&b.states))
}

/// `gpumc run` judges each test's observed states in a worker, so that a
/// model check that aborts (out of memory) loses that test's verdicts,
/// not the campaign's observations.
impl Judging for Pool {
    fn verdicts(
        &self,
        file: &str,
        p: &Program,
        model: (&Model, &str),
        opts: &RunOptions,
        states: &[(Vec<i64>, u32)],
    ) -> Result<Verdicts, String> {
        let path = Path::new(file);
        if !path.is_file() {
            // A generated test: nothing the worker could read again.
            return InProcess.verdicts(file, p, model, opts, states);
        }
        let request = JudgeRequest {
            judge: JudgeBody {
                path: path.to_path_buf(),
                model: model.1.to_string(),
                limits: Limits {
                    resident: true,
                    ..opts.model_limits
                },
                max_bound: opts.max_bound,
                states: states.to_vec(),
            },
        };
        let request = serde_json::to_string(&request).expect("serialisable");
        // Each model check of the judgement has the deadline; it makes a
        // few (listing, races, per bound) and at most one per state.
        let wait = opts
            .model_limits
            .timeout_s
            .map(|t| t * (2 * opts.max_bound as usize + 2 + states.len()) as f64);
        for _ in 0..2 {
            let Ok(mut w) = self.worker() else {
                return InProcess.verdicts(file, p, model, opts, states);
            };
            if w.send(&request).is_err() {
                continue;
            }
            return match w.answer(wait) {
                Answer::Line(line) => {
                    let r =
                        serde_json::from_str::<Result<Verdicts, String>>(&line).map_err(|e| {
                            format!("internal error: unreadable answer from the worker ({e})")
                        })?;
                    self.idle.lock().unwrap().push(w);
                    r
                }
                Answer::Late(waited) => Err(format!(
                    "timeout: no answer after {:.1} s; the check was stopped",
                    waited.as_secs_f64()
                )),
                Answer::Died(why) => Err(why),
            };
        }
        Err("internal error: the worker process does not accept requests".into())
    }
}

/// Worker processes that check one file at a time each.
pub struct Pool {
    exe: PathBuf,
    idle: Mutex<Vec<Worker>>,
}

impl Pool {
    /// A pool re-executing `exe` (normally `std::env::current_exe()`).
    pub fn new(exe: PathBuf) -> Pool {
        Pool {
            exe,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Checks `path` in a worker. Never fails: a worker that runs out of
    /// memory or past the deadline yields an `UNKNOWN` report, one that
    /// dies otherwise an `ERROR`; a worker
    /// that cannot be started at all, the check in this process.
    pub fn check(&self, path: &Path, cfg: &Config, cache: &ModelCache) -> Rendered {
        self.check_as(path, path, cfg, cache)
    }

    /// [`Pool::check`] of the program in `file`, reported under `name`
    /// (`driver::check_file_as`).
    pub fn check_as(&self, file: &Path, name: &Path, cfg: &Config, cache: &ModelCache) -> Rendered {
        let path = name;
        let request = serde_json::to_string(&Request::new(file, name, cfg)).expect("serialisable");
        // A request that cannot be written: one retry with a fresh worker.
        for _ in 0..2 {
            let mut w = match self.worker() {
                Ok(w) => w,
                Err(e) => {
                    eprintln!("gpumc: cannot start a worker process ({e}); checking in-process");
                    return Rendered::of(&driver::check_file_as(file, name, cfg, cache), cfg);
                }
            };
            let start = Instant::now();
            if w.send(&request).is_err() {
                continue;
            }
            match w.answer(cfg.limits.timeout_s) {
                Answer::Line(line) => match serde_json::from_str::<Rendered>(&line) {
                    Ok(r) => {
                        self.idle.lock().unwrap().push(w);
                        return r;
                    }
                    Err(e) => {
                        let msg =
                            format!("internal error: unreadable answer from the worker ({e})");
                        return failed(path, cfg, "ERROR", msg, start);
                    }
                },
                Answer::Late(waited) => {
                    let msg = format!(
                        "timeout: no answer after {:.1} s (--timeout {} s); the check was stopped",
                        waited.as_secs_f64(),
                        cfg.limits.timeout_s.unwrap_or(0.0)
                    );
                    return failed(path, cfg, "UNKNOWN", msg, start);
                }
                // Running out of memory is a resource limit, as when the
                // engines' own estimates stop a check: the verdict is
                // unknown, not the input wrong.
                Answer::Died(why) if why.starts_with("out of memory") => {
                    let msg =
                        format!("{why}; a smaller --bound or a larger --max-memory may decide it");
                    return failed(path, cfg, "UNKNOWN", msg, start);
                }
                Answer::Died(why) => return failed(path, cfg, "ERROR", why, start),
            }
        }
        let msg = "internal error: the worker process does not accept requests".to_string();
        failed(path, cfg, "ERROR", msg, Instant::now())
    }
}

impl Pool {
    /// An idle worker, or a new one. One that died while idle is dropped
    /// here, not blamed for the next test.
    fn worker(&self) -> std::io::Result<Worker> {
        loop {
            let idle = self.idle.lock().unwrap().pop();
            match idle {
                Some(mut w) => {
                    if matches!(w.child.try_wait(), Ok(None)) {
                        return Ok(w);
                    }
                }
                None => return Worker::spawn(&self.exe),
            }
        }
    }
}

/// The report of a check that ended without the worker's answer.
fn failed(path: &Path, cfg: &Config, verdict: &str, message: String, start: Instant) -> Rendered {
    let mut r = FileReport::new(path, cfg);
    r.verdict = verdict.to_string();
    r.message = Some(message);
    r.time_ms = start.elapsed().as_secs_f64() * 1e3;
    Rendered::of(&r, cfg)
}

enum Answer {
    Line(String),
    /// No answer by the deadline (plus grace): killed.
    Late(Duration),
    /// The worker ended; why, for the report.
    Died(String),
}

struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Worker {
    fn spawn(exe: &Path) -> std::io::Result<Worker> {
        let mut child = Command::new(exe)
            .arg(WORKER_COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // The worker's stderr (debug output, panics) is passed on, and its
        // last lines kept to explain a crash.
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let t = tail.clone();
        let stderr_reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                eprintln!("{line}");
                keep_line(&mut t.lock().unwrap(), line);
            }
        });
        Ok(Worker {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: tail,
            stderr_reader: Some(stderr_reader),
        })
    }

    fn send(&mut self, request: &str) -> std::io::Result<()> {
        self.stderr.lock().unwrap().clear();
        let stdin = self.stdin.as_mut().ok_or(std::io::ErrorKind::BrokenPipe)?;
        stdin.write_all(request.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// Waits for the answer: until the worker's own guard should have
    /// stopped the check (`timeout_s`), plus a grace period.
    fn answer(&mut self, timeout_s: Option<f64>) -> Answer {
        let wait = timeout_s
            .filter(|t| t.is_finite() && *t > 0.0)
            // A time too long to represent is no limit (as in the guard).
            .and_then(|t| Duration::try_from_secs_f64(t + 1.0 + t / 10.0).ok());
        let got = match wait {
            Some(d) => self.lines.recv_timeout(d),
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        match got {
            Ok(line) => Answer::Line(line),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Answer::Late(wait.unwrap_or_default())
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait();
                if let Some(h) = self.stderr_reader.take() {
                    let _ = h.join();
                }
                let tail: Vec<String> = self.stderr.lock().unwrap().iter().cloned().collect();
                Answer::Died(match status {
                    Ok(s) => death_reason(&s, &tail),
                    Err(e) => format!("internal error: the worker process was lost ({e})"),
                })
            }
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Idle workers only (a busy one is waited for in `answer`): closing
        // stdin ends their loop.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Stderr text that says how a process died: an allocation failure, a
/// panic.
const OOM_MARKERS: [&str; 4] = [
    "memory allocation of",
    "bad_alloc",
    "cannot catch foreign exceptions",
    "out of memory",
];

fn telling(line: &str) -> bool {
    line.contains("panicked at") || OOM_MARKERS.iter().any(|m| line.contains(m))
}

/// Adds a stderr line to the last [`STDERR_TAIL`] ones kept, evicting the
/// oldest line that does not tell how the process died (nor is a panic's
/// message): with
/// `RUST_BACKTRACE` set, a backtrace would otherwise push the
/// `memory allocation of … failed` or `panicked at` line out.
fn keep_line(tail: &mut VecDeque<String>, line: String) {
    if tail.len() >= STDERR_TAIL {
        // A panic's message is the line after `panicked at`: kept too.
        let after_panic = |i: usize| i > 0 && tail[i - 1].contains("panicked at");
        let evictable = |i: usize| !(telling(&tail[i]) || after_panic(i));
        match (0..tail.len()).find(|&i| evictable(i)) {
            Some(i) => {
                tail.remove(i);
            }
            None => {
                tail.pop_front();
            }
        }
    }
    tail.push_back(line);
}

/// Why a worker ended without answering, from its exit status and last
/// stderr lines.
fn death_reason(status: &std::process::ExitStatus, tail: &[String]) -> String {
    let text = tail.join("\n");
    let oom_text = OOM_MARKERS.iter().any(|m| text.contains(m));
    // The line to quote: the allocation failure, else the last one.
    let last = tail
        .iter()
        .rev()
        .find(|l| OOM_MARKERS.iter().any(|m| l.contains(m)))
        .or_else(|| tail.iter().rev().find(|l| !l.trim().is_empty()))
        .map(|l| format!(": {}", l.trim()))
        .unwrap_or_default();
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    #[cfg(unix)]
    let killed = signal == Some(libc::SIGKILL);
    #[cfg(not(unix))]
    let killed = false;
    if oom_text {
        format!("out of memory: the check exceeded its memory limit (--max-memory){last}")
    } else if killed {
        "out of memory: the check was killed (SIGKILL, as the system's out-of-memory killer does)"
            .to_string()
    } else if status.code() == Some(101) {
        let panic = tail
            .iter()
            .position(|l| l.contains("panicked at"))
            .map(|i| {
                tail[i..]
                    .iter()
                    .take(2)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| last.trim_start_matches(": ").to_string());
        format!("internal error: the check panicked: {panic}")
    } else {
        let how = match signal {
            Some(s) => format!("signal {s}"),
            None => format!("{status}"),
        };
        format!("internal error: the checking process ended ({how}){last}")
    }
}

/// The worker's main loop (`gpumc worker`): one request per stdin line,
/// one answer per stdout line, until stdin closes. Returns the exit status.
pub fn worker_main() -> u8 {
    let mut out = match private_stdout() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gpumc worker: {e}");
            return 2;
        }
    };
    let cache = ModelCache::default();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if let Ok(j) = serde_json::from_str::<JudgeRequest>(&line) {
            let answer =
                serde_json::to_string(&judge_here(&j.judge, &cache)).expect("serialisable");
            if writeln!(out, "{answer}")
                .and_then(|()| out.flush())
                .is_err()
            {
                break;
            }
            continue;
        }
        let rendered = match serde_json::from_str::<Request>(&line) {
            Ok(req) => match req.config() {
                Ok(cfg) => {
                    limit_address_space(cfg.limits.max_memory_mb);
                    let name = req.name.as_deref().unwrap_or(&req.path);
                    Rendered::of(&driver::check_file_as(&req.path, name, &cfg, &cache), &cfg)
                }
                Err(e) => {
                    let cfg = Config::default();
                    let name = req.name.as_deref().unwrap_or(&req.path);
                    failed(name, &cfg, "ERROR", e, Instant::now())
                }
            },
            Err(e) => {
                eprintln!("gpumc worker: bad request ({e})");
                return 2;
            }
        };
        let answer = serde_json::to_string(&rendered).expect("serialisable");
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
        crate::guard::release_freed_memory();
    }
    0
}

/// The protocol's channel: the original stdout, with file descriptor 1
/// pointed at stderr so that nothing else printed can corrupt it.
#[cfg(unix)]
fn private_stdout() -> std::io::Result<std::fs::File> {
    use std::os::unix::io::FromRawFd;
    std::io::stdout().flush()?;
    // SAFETY: plain descriptor duplication; the new descriptor is owned
    // by the returned File alone.
    unsafe {
        let fd = libc::dup(1);
        if fd < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn private_stdout() -> std::io::Result<std::fs::File> {
    Err(std::io::Error::other(
        "process isolation needs a Unix system",
    ))
}

/// Lowers the soft address-space limit to what is mapped now plus the
/// budget and an eighth (the guard's estimates and resident-size checks
/// trip at the budget; this limit catches what they miss). Never raises
/// it above the hard limit.
fn limit_address_space(max_memory_mb: Option<u64>) {
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `r` is a valid rlimit to write to.
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 {
            return;
        }
        let want = match max_memory_mb {
            Some(mb) => {
                let budget = mb.saturating_mul(1 << 20);
                let mapped = crate::guard::mapped_bytes().unwrap_or(0);
                mapped.saturating_add(budget).saturating_add(budget / 8) as libc::rlim_t
            }
            None => libc::RLIM_INFINITY,
        };
        r.rlim_cur = if r.rlim_max == libc::RLIM_INFINITY {
            want
        } else {
            want.min(r.rlim_max)
        };
        // SAFETY: as above; lowering (or restoring up to the hard limit)
        // the soft limit of this process only.
        unsafe {
            libc::setrlimit(libc::RLIMIT_AS, &r);
        }
    }
    #[cfg(not(unix))]
    let _ = max_memory_mb;
}

#[cfg(all(test, unix))]
mod tests {
    use super::death_reason;
    use std::os::unix::process::ExitStatusExt;
    use std::process::ExitStatus;

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn allocation_failures_are_out_of_memory() {
        let abort = ExitStatus::from_raw(libc::SIGABRT);
        let rust = lines(&["memory allocation of 4294967296 bytes failed"]);
        assert!(death_reason(&abort, &rust).starts_with("out of memory:"));
        // CaDiCaL's std::bad_alloc crossing the FFI boundary.
        let cxx = lines(&["fatal runtime error: Rust cannot catch foreign exceptions"]);
        assert!(death_reason(&abort, &cxx).starts_with("out of memory:"));
        let killed = ExitStatus::from_raw(libc::SIGKILL);
        assert!(death_reason(&killed, &[]).contains("SIGKILL"));
    }

    /// With `RUST_BACKTRACE=1` the worker prints a backtrace after the
    /// allocation failure; the failure must still be what is reported.
    #[test]
    fn a_backtrace_does_not_hide_an_allocation_failure() {
        let mut tail = std::collections::VecDeque::new();
        super::keep_line(
            &mut tail,
            "memory allocation of 5368709120 bytes failed".into(),
        );
        super::keep_line(&mut tail, "stack backtrace:".into());
        for i in 0..40 {
            super::keep_line(&mut tail, format!("  {i}: gpumc::engine::paths::explore"));
        }
        super::keep_line(&mut tail, "note: Some details are omitted".into());
        assert_eq!(tail.len(), super::STDERR_TAIL);
        let tail: Vec<String> = tail.into_iter().collect();
        let why = death_reason(&ExitStatus::from_raw(libc::SIGABRT), &tail);
        assert_eq!(
            why,
            "out of memory: the check exceeded its memory limit (--max-memory): memory allocation of 5368709120 bytes failed"
        );
        // Nor a panic and its message.
        let mut tail = std::collections::VecDeque::new();
        super::keep_line(&mut tail, "thread 'main' panicked at src/x.rs:1:2:".into());
        super::keep_line(&mut tail, "index out of bounds".into());
        for i in 0..40 {
            super::keep_line(&mut tail, format!("  {i}: gpumc::f"));
        }
        let tail: Vec<String> = tail.into_iter().collect();
        let why = death_reason(&ExitStatus::from_raw(101 << 8), &tail);
        assert!(why.contains("src/x.rs:1:2: index out of bounds"), "{why}");
    }

    #[test]
    fn panics_and_crashes_are_internal_errors() {
        let panic = ExitStatus::from_raw(101 << 8);
        let tail = lines(&[
            "thread 'main' panicked at src/x.rs:1:2:",
            "index out of bounds",
        ]);
        let why = death_reason(&panic, &tail);
        assert!(
            why.starts_with("internal error: the check panicked"),
            "{why}"
        );
        assert!(why.contains("index out of bounds"), "{why}");
        let segv = ExitStatus::from_raw(libc::SIGSEGV);
        let why = death_reason(&segv, &[]);
        assert!(why.contains(&format!("signal {}", libc::SIGSEGV)), "{why}");
    }
}
