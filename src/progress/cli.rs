//! `gpumc progress ...`: check, table, synth, export, print.
//!
//! The binary embeds [`ProgressArgs`] as the `progress` subcommand and calls
//! [`run`]; the exit status is 0 on success and 2 on bad input (malformed
//! test files, unknown model names, unreadable paths), with errors on
//! stderr as `file:line:col: message`.

use super::corpus::{self, config_dir_name, config_label, TestFile};
use super::export::{
    arch_keyword, artifact_origin, corpus_loop_style, to_litmus_with, Dialect, LoopStyle,
};
use super::models::{Base, Fairness, Model};
use super::oracle::{decide, decide_all, Verdict, Verdicts};
use super::print::{one_line, to_simple, to_txt};
use super::synth::{self, Scope, PAPER_CONFIGS};
use super::table::{classify, format_table, Bucket, Classification};
use super::Test;
use crate::diag::{Error, ErrorKind, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use serde_json::json;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a panic.
fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

/// `write!` into the output buffer (writing to a `String` cannot fail).
macro_rules! out {
    ($buf:expr, $($t:tt)*) => {{ let _ = write!($buf, $($t)*); }};
}

/// `writeln!` into the output buffer.
macro_rules! outln {
    ($buf:expr, $($t:tt)*) => {{ let _ = writeln!($buf, $($t)*); }};
}

/// Arguments of `gpumc progress`.
#[derive(Args, Debug, Clone)]
pub struct ProgressArgs {
    #[command(subcommand)]
    pub cmd: ProgressCmd,
}

/// The `gpumc progress` subcommands.
#[derive(Subcommand, Debug, Clone)]
pub enum ProgressCmd {
    /// Decide whether AXB tests are guaranteed to terminate (PASS) under
    /// progress models.
    Check {
        /// A model name (unfair, weak-fair, strong-fair, weak-hsa,
        /// strong-hsa, weak-obe, strong-obe, weak-hsa-obe, strong-hsa-obe,
        /// weak-lobe, strong-lobe), a comma-separated list, or `all`. A
        /// base alone (`obe`) is its weak variant, as in
        /// `gpumc check --progress`.
        #[arg(long, default_value = "all")]
        model: String,
        /// JSON lines: one {file, model, verdict} object per (test, model).
        #[arg(long)]
        json: bool,
        /// Test files (`<id>.txt` or `<id>_simple.txt`), directories, or
        /// `-`: one test read from standard input.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Classify tests into distinguishing / conformance tests and print
    /// Sorensen et al., OOPSLA'21 Table 4 with the literal pass counts.
    Table {
        /// One JSON line: {table, per_config, tests}.
        #[arg(long)]
        json: bool,
        /// Also print the table of each `<T>_threads_<I>_instructions` group.
        #[arg(long)]
        per_config: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Enumerate every canonical test of the test space of Sorensen et
    /// al., OOPSLA'21 for a configuration and report the counts.
    Synth {
        /// Number of threads.
        #[arg(long, required_unless_present = "all")]
        threads: Option<usize>,
        /// Total number of instructions.
        #[arg(long, required_unless_present = "all")]
        instructions: Option<usize>,
        /// Run the paper's five configurations (2/2, 2/3, 2/4, 3/3, 3/4).
        #[arg(long, conflicts_with_all = ["threads", "instructions"])]
        all: bool,
        /// Write `<DIR>/<T>_threads_<I>_instructions/<id>.txt` and
        /// `<id>_simple.txt`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override the scope's bound on states.
        #[arg(long)]
        max_states: Option<usize>,
        /// Override the scope's bound on actions.
        #[arg(long)]
        max_actions: Option<usize>,
        /// Drop the paper's state/action bounds.
        #[arg(long)]
        unbounded: bool,
        /// A corpus root (holding `<T>_threads_<I>_instructions/`): report
        /// which published tests the synthesized set contains.
        #[arg(long)]
        compare: Option<PathBuf>,
        /// JSON lines: one report object per configuration.
        #[arg(long)]
        json: bool,
    },
    /// Export tests to Dat3M litmus tests with spinloops, written to
    /// `<OUT>/<VULKAN|PTX>/<parent directory>/<id>_simple.litmus`.
    Export {
        #[arg(long, value_enum, default_value_t = ExportArch::All)]
        arch: ExportArch,
        #[arg(long)]
        out: PathBuf,
        /// Second line of each file: the source path, or the
        /// AlloyForwardProgress URL used by the corpus translations (needs a
        /// `<T>_threads_<I>_instructions` parent directory).
        #[arg(long, value_enum, default_value_t = Origin::Path)]
        origin: Origin,
        /// Loop shape: as in the corpus translations, direct jumps, or one
        /// shared back edge per loop head.
        #[arg(long, value_enum, default_value_t = Loops::Corpus)]
        loops: Loops,
        /// JSON lines: one {file, arch, litmus} object per file written.
        #[arg(long)]
        json: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print tests in the instruction form, the pseudo-code form, or both.
    Print {
        #[arg(long, value_enum, default_value_t = Form::Txt)]
        form: Form,
        /// JSON lines: one {file, threads, txt, simple} object per test.
        #[arg(long)]
        json: bool,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportArch {
    Vulkan,
    Ptx,
    All,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loops {
    /// PTX: single back edges; Vulkan: single back edges unless the test
    /// has an exchange (as the corpus translations).
    Corpus,
    Direct,
    SingleBackEdge,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Path,
    Artifact,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `<id>.txt` (atomic_exch_branch(...)).
    Txt,
    /// `<id>_simple.txt` (if (Exch(Mem[0],1) == 0) goto 0;).
    Simple,
    /// Both forms.
    Both,
    /// One line per test.
    Oneline,
}

/// Runs a `gpumc progress` subcommand: output on stdout, errors on stderr
/// (`file:line:col: message`). Returns the exit status: 0, or 2 on bad input.
pub fn run(args: &ProgressArgs) -> i32 {
    let (status, output) = run_captured(args);
    emit(&output);
    status
}

/// Like [`run`], but returns the standard output instead of printing it
/// (errors still go to stderr).
pub fn run_captured(args: &ProgressArgs) -> (i32, String) {
    let mut out = String::new();
    let buf = &mut out;
    let result = match &args.cmd {
        ProgressCmd::Check { model, json, paths } => check(buf, model, *json, paths),
        ProgressCmd::Table {
            json,
            per_config,
            paths,
        } => table(buf, *json, *per_config, paths),
        ProgressCmd::Synth {
            threads,
            instructions,
            all,
            out,
            max_states,
            max_actions,
            unbounded,
            compare,
            json,
        } => {
            let configs = if *all {
                PAPER_CONFIGS.to_vec()
            } else {
                vec![(threads.unwrap_or(0), instructions.unwrap_or(0))]
            };
            let opts = SynthOpts {
                out: out.clone(),
                max_states: *max_states,
                max_actions: *max_actions,
                unbounded: *unbounded,
                compare: compare.clone(),
                bar: !*json,
            };
            synth_cmd(buf, &configs, &opts, *json)
        }
        ProgressCmd::Export {
            arch,
            out,
            origin,
            loops,
            json,
            paths,
        } => export(buf, *arch, out, *origin, *loops, *json, paths),
        ProgressCmd::Print { form, json, paths } => print(buf, *form, *json, paths),
    };
    match result {
        Ok(()) => (0, out),
        Err(e) => {
            eprintln!("{e}");
            (2, out)
        }
    }
}

/// The name a test read from standard input (`-`) goes by.
pub const STDIN_NAME: &str = "<stdin>";

/// Loads the tests under `paths` (files and directories, as
/// [`corpus::load`]); `-` reads one test from standard input, named
/// `<stdin>` in reports and error positions.
pub fn load_tests(paths: &[PathBuf]) -> Result<Vec<TestFile>> {
    let mut out = Vec::new();
    let mut stdin_read = false;
    for p in paths {
        if p.as_os_str() != "-" {
            out.extend(corpus::load(std::slice::from_ref(p))?);
            continue;
        }
        if stdin_read {
            return Err(usage("`-` (standard input) given more than once"));
        }
        stdin_read = true;
        let name = Path::new(STDIN_NAME);
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
            .map_err(|e| Error::io(name, e))?;
        let text = crate::diag::text(bytes).map_err(|e| e.in_file(name))?;
        let test = super::parse::parse(&text).map_err(|e| e.in_file(name))?;
        out.push(TestFile {
            path: name.to_path_buf(),
            test,
            config: None,
            id: "stdin".to_string(),
        });
    }
    Ok(out)
}

fn usage(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::Usage, msg)
}

/// Parses `--model`: a name or `all`.
pub fn parse_models(spec: &str) -> Result<Vec<Model>> {
    if spec.eq_ignore_ascii_case("all") {
        return Ok(Model::ALL.to_vec());
    }
    spec.split(',')
        .map(|name| {
            Model::from_name(name.trim()).ok_or_else(|| {
                usage(format!(
                    "unknown progress model `{name}` (expected all, {})",
                    Model::all_names()
                ))
            })
        })
        .collect()
}

/// One (test, model) verdict of `check --json`.
#[derive(Serialize, Debug, Clone)]
pub struct CheckRecord {
    pub file: String,
    pub model: Model,
    pub verdict: Verdict,
}

/// Decides `models` on every test under `paths` (the library form of
/// `gpumc progress check`).
pub fn check_paths(models: &[Model], paths: &[PathBuf]) -> Result<Vec<CheckRecord>> {
    let tests = load_tests(paths)?;
    let mut out = Vec::with_capacity(tests.len() * models.len());
    for tf in &tests {
        let verdicts: Vec<Verdict> = if models.len() == Model::ALL.len() {
            let v = decide_all(&tf.test).map_err(|e| e.in_file(&tf.path))?;
            models.iter().map(|&m| v.get(m)).collect()
        } else {
            models
                .iter()
                .map(|&m| decide(&tf.test, m).map_err(|e| e.in_file(&tf.path)))
                .collect::<Result<_>>()?
        };
        for (&model, verdict) in models.iter().zip(verdicts) {
            out.push(CheckRecord {
                file: tf.path.display().to_string(),
                model,
                verdict,
            });
        }
    }
    Ok(out)
}

fn check(buf: &mut String, model: &str, json: bool, paths: &[PathBuf]) -> Result<()> {
    let models = parse_models(model)?;
    let records = check_paths(&models, paths)?;
    if json {
        // One object per (test, model) per line, like `gpumc check --json`.
        for r in &records {
            outln!(buf, "{}", serde_json::to_string(r).unwrap_or_default());
        }
    } else {
        for chunk in records.chunks(models.len()) {
            let parts: Vec<String> = chunk
                .iter()
                .map(|r| format!("{} {}", r.model, r.verdict))
                .collect();
            outln!(buf, "{}: {}", chunk[0].file, parts.join(", "));
        }
    }
    Ok(())
}

/// Loads and decides every test under `paths`.
pub fn decide_paths(paths: &[PathBuf]) -> Result<Vec<(TestFile, Verdicts)>> {
    load_tests(paths)?
        .into_iter()
        .map(|tf| {
            let v = decide_all(&tf.test).map_err(|e| e.in_file(&tf.path))?;
            Ok((tf, v))
        })
        .collect()
}

fn bucket_name(b: Option<Bucket>) -> String {
    match b {
        None => "none".to_string(),
        Some(b) => {
            let m = match b.fairness {
                Fairness::Weak => Model::weak(b.base),
                Fairness::Strong => Model::strong(b.base),
            };
            m.name()
        }
    }
}

fn table(buf: &mut String, json: bool, per_config: bool, paths: &[PathBuf]) -> Result<()> {
    let decided = decide_paths(paths)?;
    let verdicts: Vec<Verdicts> = decided.iter().map(|(_, v)| *v).collect();
    let all = classify(&verdicts);
    let mut groups: Vec<(String, Classification)> = Vec::new();
    if per_config {
        let mut labels: Vec<String> = decided.iter().map(|(t, _)| t.config_label()).collect();
        labels.dedup();
        let mut seen = HashSet::new();
        labels.retain(|l| seen.insert(l.clone()));
        for label in labels {
            let vs: Vec<Verdicts> = decided
                .iter()
                .filter(|(t, _)| t.config_label() == label)
                .map(|(_, v)| *v)
                .collect();
            groups.push((label, classify(&vs)));
        }
    }
    if json {
        let tests: Vec<_> = decided
            .iter()
            .zip(&all.buckets)
            .map(|((tf, _), b)| json!({"file": tf.path.display().to_string(), "bucket": bucket_name(*b)}))
            .collect();
        let groups: Vec<_> = groups
            .iter()
            .map(|(l, c)| json!({"config": l, "table": c}))
            .collect();
        // One result: one JSON line.
        let v = json!({"table": all, "per_config": groups, "tests": tests});
        outln!(buf, "{v}");
    } else {
        out!(buf, "{}", format_table(&all));
        for (label, c) in &groups {
            outln!(buf, "\n[{label}]");
            out!(buf, "{}", format_table(c));
        }
    }
    Ok(())
}

/// Options of `gpumc progress synth`.
#[derive(Clone, Debug, Default)]
pub struct SynthOpts {
    pub out: Option<PathBuf>,
    pub max_states: Option<usize>,
    pub max_actions: Option<usize>,
    pub unbounded: bool,
    pub compare: Option<PathBuf>,
    /// Draw a progress bar on stderr (when it is a terminal).
    pub bar: bool,
}

/// What synthesis found for one configuration.
#[derive(Serialize, Debug, Clone)]
pub struct SynthReport {
    pub threads: usize,
    pub instructions: usize,
    pub scope: Scope,
    pub tests: usize,
    pub seconds: f64,
    /// Table 4 over the synthesized tests.
    pub table: Classification,
    /// Ids of strong-OBE distinguishing tests (the bucket the paper found empty).
    pub strong_obe_distinguishing: Vec<usize>,
    /// Ids of tests that pass weak HSA+OBE but neither weak HSA nor weak OBE.
    pub weak_hsa_obe_distinguishing: Vec<usize>,
    pub comparison: Option<Comparison>,
}

/// Published tests versus synthesized ones.
#[derive(Serialize, Debug, Clone)]
pub struct Comparison {
    pub published_files: usize,
    /// Distinct published tests up to location renaming.
    pub published_distinct: usize,
    pub contained: usize,
    /// Published tests not synthesized, with the first constraint they break.
    pub missing: Vec<(String, String)>,
    /// True when the two sets are equal (up to location renaming).
    pub identical: bool,
}

/// Compares published tests with a synthesized set.
pub fn compare(published: &[TestFile], synthesized: &[Test], scope: Scope) -> Comparison {
    let synth: HashSet<&Test> = synthesized.iter().collect();
    let mut distinct: HashSet<Test> = HashSet::new();
    let mut contained = 0;
    let mut missing = Vec::new();
    for tf in published {
        let canon = tf.test.canonical_locations();
        if !distinct.insert(canon.clone()) {
            continue;
        }
        if synth.contains(&canon) {
            contained += 1;
        } else {
            let why = match synth::check(&canon, scope) {
                Err(r) => r.describe().to_string(),
                Ok(()) => "accepted by the constraints but not enumerated".to_string(),
            };
            missing.push((tf.path.display().to_string(), why));
        }
    }
    Comparison {
        published_files: published.len(),
        published_distinct: distinct.len(),
        contained,
        identical: missing.is_empty() && distinct.len() == synthesized.len(),
        missing,
    }
}

/// Writes `tests` as `<dir>/<id>.txt` and `<dir>/<id>_simple.txt`.
pub fn write_tests(dir: &Path, tests: &[Test]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    for (id, t) in tests.iter().enumerate() {
        let p = dir.join(format!("{id}.txt"));
        std::fs::write(&p, to_txt(t)).map_err(|e| Error::io(&p, e))?;
        let p = dir.join(format!("{id}_simple.txt"));
        std::fs::write(&p, to_simple(t)).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// Synthesizes one configuration and analyses the result.
pub fn synth_report(
    threads: usize,
    instructions: usize,
    opts: &SynthOpts,
) -> Result<(SynthReport, Vec<Test>)> {
    if threads == 0 || threads > super::ast::MAX_THREADS {
        return Err(usage(format!(
            "--threads must be in 1..={}",
            super::ast::MAX_THREADS
        )));
    }
    if instructions < threads || instructions > threads * super::ast::MAX_INSTRS {
        return Err(usage(
            "--instructions must be at least --threads (every thread has an instruction)",
        ));
    }
    let mut scope = if opts.unbounded {
        Scope::UNBOUNDED
    } else {
        Scope::paper(threads, instructions)
    };
    if opts.max_states.is_some() {
        scope.max_states = opts.max_states;
    }
    if opts.max_actions.is_some() {
        scope.max_actions = opts.max_actions;
    }
    let (candidates, widest) = synth::search_size(threads, instructions);
    if candidates > synth::MAX_CANDIDATES || widest > synth::MAX_THREAD_PROGRAMS {
        return Err(usage(format!(
            "{threads} threads / {instructions} instructions: {candidates} candidate programs \
             (largest thread list {widest}) is beyond what synth enumerates \
             ({} candidates, {} programs per thread)",
            synth::MAX_CANDIDATES,
            synth::MAX_THREAD_PROGRAMS
        )));
    }
    let label = config_label(threads, instructions);
    let start = Instant::now();
    let bar = crate::bar::Bar::new(u64::try_from(candidates).unwrap_or(u64::MAX), opts.bar);
    bar.set_message(&format!("{label}: candidate programs"));
    let tests = synth::synthesize_observed(threads, instructions, scope, &|n| bar.inc_by(n));
    bar.finish();
    let seconds = start.elapsed().as_secs_f64();
    let bar = crate::bar::Bar::new(tests.len() as u64, opts.bar);
    bar.set_message(&format!("{label}: 11 models per test"));
    let verdicts: Vec<Verdicts> = tests
        .iter()
        .map(|t| {
            let v = decide_all(t);
            bar.inc();
            v
        })
        .collect::<Result<_>>()?;
    bar.finish();
    let table = classify(&verdicts);
    let ids_in = |b: Bucket| -> Vec<usize> {
        table
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, x)| **x == Some(b))
            .map(|(i, _)| i)
            .collect()
    };
    let strong_obe_distinguishing = ids_in(Bucket {
        fairness: Fairness::Strong,
        base: Base::Obe,
    });
    let weak_hsa_obe_distinguishing = verdicts
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            v.pass(Model::weak(Base::HsaObe))
                && !v.pass(Model::weak(Base::Hsa))
                && !v.pass(Model::weak(Base::Obe))
        })
        .map(|(i, _)| i)
        .collect();
    let comparison = match &opts.compare {
        None => None,
        Some(root) => {
            let dir = root.join(config_dir_name(threads, instructions));
            if !dir.is_dir() {
                return Err(usage(format!(
                    "{}: no such configuration directory",
                    dir.display()
                )));
            }
            let published = corpus::load(&[dir])?;
            Some(compare(&published, &tests, scope))
        }
    };
    if let Some(out) = &opts.out {
        write_tests(&out.join(config_dir_name(threads, instructions)), &tests)?;
    }
    Ok((
        SynthReport {
            threads,
            instructions,
            scope,
            tests: tests.len(),
            seconds,
            table,
            strong_obe_distinguishing,
            weak_hsa_obe_distinguishing,
            comparison,
        },
        tests,
    ))
}

fn synth_cmd(
    buf: &mut String,
    configs: &[(usize, usize)],
    opts: &SynthOpts,
    json: bool,
) -> Result<()> {
    for &(t, i) in configs {
        let (report, tests) = synth_report(t, i, opts)?;
        if json {
            // One JSON line per configuration.
            outln!(
                buf,
                "{}",
                serde_json::to_string(&report).unwrap_or_default()
            );
        } else {
            print_synth_report(buf, &report, &tests);
        }
    }
    Ok(())
}

fn bound(b: Option<usize>) -> String {
    b.map_or("unbounded".to_string(), |n| n.to_string())
}

fn print_synth_report(buf: &mut String, r: &SynthReport, tests: &[Test]) {
    outln!(
        buf,
        "{}: {} tests (states <= {}, actions <= {}) in {:.3} s",
        config_label(r.threads, r.instructions),
        r.tests,
        bound(r.scope.max_states),
        bound(r.scope.max_actions),
        r.seconds
    );
    let c = &r.table;
    let d = |f: fn(&super::table::Row) -> usize| -> String {
        c.rows
            .iter()
            .map(|row| format!("{} {}", row.model, f(row)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    outln!(
        buf,
        "  weak {} / strong {}{}",
        c.weak_tests,
        c.strong_tests,
        if c.neither > 0 {
            format!(" / failing strong fair {}", c.neither)
        } else {
            String::new()
        }
    );
    outln!(buf, "  Table 4 weak D: {}", d(|r| r.weak_d));
    outln!(buf, "  Table 4 strong D: {}", d(|r| r.strong_d));
    outln!(
        buf,
        "  strong-OBE distinguishing (none in Sorensen et al., OOPSLA'21): {}",
        r.strong_obe_distinguishing.len()
    );
    if let Some(&first) = r.strong_obe_distinguishing.first() {
        outln!(buf, "    e.g. #{first}: {}", one_line(&tests[first]));
    }
    outln!(
        buf,
        "  weak HSA+OBE distinguishing (pass weak HSA+OBE, fail weak HSA and weak OBE): {}",
        r.weak_hsa_obe_distinguishing.len()
    );
    if let Some(cmp) = &r.comparison {
        outln!(
            buf,
            "  published: {} files, {} distinct up to location renaming, {} synthesized, {} missing{}",
            cmp.published_files,
            cmp.published_distinct,
            cmp.contained,
            cmp.missing.len(),
            if cmp.identical { " (identical sets)" } else { "" }
        );
        for (file, why) in &cmp.missing {
            outln!(buf, "    missing {file}: {why}");
        }
    }
}

fn export(
    buf: &mut String,
    arch: ExportArch,
    out: &Path,
    origin: Origin,
    loops: Loops,
    json: bool,
    paths: &[PathBuf],
) -> Result<()> {
    let tests = load_tests(paths)?;
    let archs: &[Dialect] = match arch {
        ExportArch::Vulkan => &[Dialect::Vulkan],
        ExportArch::Ptx => &[Dialect::Ptx],
        ExportArch::All => &[Dialect::Vulkan, Dialect::Ptx],
    };
    let mut written = Vec::new();
    for tf in &tests {
        let origin_text = match origin {
            Origin::Path => tf.path.display().to_string(),
            Origin::Artifact => match tf.config {
                Some((t, i)) => artifact_origin(t, i, &tf.id),
                None => {
                    return Err(usage(format!(
                    "{}: --origin artifact needs a <T>_threads_<I>_instructions parent directory",
                    tf.path.display()
                )))
                }
            },
        };
        let name = format!("{}_simple", tf.id);
        let parent = tf
            .path
            .parent()
            .and_then(|p| p.file_name())
            .map(PathBuf::from);
        for &a in archs {
            let mut dir = out.join(arch_keyword(a));
            if let Some(p) = &parent {
                dir = dir.join(p);
            }
            std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            let file = dir.join(format!("{name}.litmus"));
            let style = match loops {
                Loops::Corpus => corpus_loop_style(a, &tf.test),
                Loops::Direct => LoopStyle::Direct,
                Loops::SingleBackEdge => LoopStyle::SingleBackEdge,
            };
            let text = to_litmus_with(&tf.test, a, &name, &origin_text, style);
            std::fs::write(&file, text).map_err(|e| Error::io(&file, e))?;
            written.push(json!({"file": tf.path.display().to_string(), "arch": arch_keyword(a), "litmus": file.display().to_string()}));
        }
    }
    if json {
        // One JSON line per file written.
        for w in &written {
            outln!(buf, "{w}");
        }
    } else {
        outln!(
            buf,
            "wrote {} litmus file(s) under {}",
            written.len(),
            out.display()
        );
    }
    Ok(())
}

fn print(buf: &mut String, form: Form, json: bool, paths: &[PathBuf]) -> Result<()> {
    let tests = load_tests(paths)?;
    if json {
        // One JSON line per test.
        for tf in &tests {
            let v = json!({
                "file": tf.path.display().to_string(),
                "threads": tf.test.threads,
                "txt": to_txt(&tf.test),
                "simple": to_simple(&tf.test),
            });
            outln!(buf, "{v}");
        }
        return Ok(());
    }
    let many = tests.len() > 1;
    for tf in &tests {
        match form {
            Form::Oneline => outln!(buf, "{}: {}", tf.path.display(), one_line(&tf.test)),
            Form::Txt | Form::Simple | Form::Both => {
                if many {
                    outln!(buf, "== {}", tf.path.display());
                }
                if matches!(form, Form::Txt | Form::Both) {
                    out!(buf, "{}", to_txt(&tf.test));
                }
                if matches!(form, Form::Simple | Form::Both) {
                    out!(buf, "{}", to_simple(&tf.test));
                }
            }
        }
    }
    Ok(())
}
