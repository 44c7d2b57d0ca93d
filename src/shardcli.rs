//! `--shard K/N --shard-out DIR` for the batch commands, and `gpumc
//! merge` (docs/SCALE-OUT.md). The split, the journals and the reading
//! back are `gpumc_scale`'s; here each command says what its items and
//! records are, and the merge hands the records back to the command's own
//! printer, so that the merged output is the unsharded one.

use gpumc_scale::{Header, Journal, Shard};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Mutex;

/// The options every sharded command takes.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ShardOpts {
    /// Do shard K of N (counted from 0) of the batch: a fixed part,
    /// balanced by estimated cost, the same on every machine; `auto`: K
    /// and N from a Slurm job array ($SLURM_ARRAY_TASK_ID,
    /// $SLURM_ARRAY_TASK_COUNT) or a Kubernetes Indexed Job
    /// ($JOB_COMPLETION_INDEX, $GPUMC_SHARDS). Needs --shard-out.
    #[arg(long, value_name = "K/N|auto")]
    pub shard: Option<String>,
    /// Where the shard's journal goes (DIR/shard-K-of-N.jsonl; run again,
    /// the shard resumes after the items it finished). `gpumc merge DIR`
    /// prints what the unsharded run would have. Alone: --shard auto.
    #[arg(long, value_name = "DIR")]
    pub shard_out: Option<PathBuf>,
}

/// A shard to do and where its journal goes.
pub struct Sharding {
    pub shard: Shard,
    pub dir: PathBuf,
}

impl ShardOpts {
    /// The shard asked for, if any.
    pub fn resolve(&self) -> Result<Option<Sharding>, String> {
        match (&self.shard, &self.shard_out) {
            (None, None) => Ok(None),
            (Some(_), None) => {
                Err("--shard needs --shard-out DIR (where the shard's journal goes)".into())
            }
            (s, Some(dir)) => Ok(Some(Sharding {
                shard: Shard::parse(s.as_deref().unwrap_or("auto"))?,
                dir: dir.clone(),
            })),
        }
    }
}

/// Options that change how or where results are shown, not what they
/// are: left out of a shard's fingerprint, so that the merge may print any
/// format and each shard may write its own files (`run --db`, `--out`).
const OUTPUT_OPTIONS: &[&str] = &[
    "--shard",
    "--shard-out",
    "--json",
    "--format",
    "--html",
    "--db",
    "--out",
    "--emit",
];
/// The same options that take no value.
const OUTPUT_FLAGS: &[&str] = &["--json"];

/// What decides a sharded run's results: its command line without the
/// sharding and output options (every shard must have been given the same).
pub fn fingerprint() -> Vec<String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let name = a.split('=').next().unwrap_or(a);
        if OUTPUT_OPTIONS.contains(&name) {
            let takes_value = !OUTPUT_FLAGS.contains(&name) && !a.contains('=');
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        out.push(a.clone());
        i += 1;
    }
    out
}

/// Runs this shard's part of `items` (`costs`: their estimates), each
/// item by `check`, its record appended to the journal as it finishes;
/// items the journal already holds are not run again. Returns the
/// shard's records, in item order.
pub fn run<T: Sync>(
    sharding: &Sharding,
    command: &str,
    context: Value,
    items: &[T],
    costs: &[u64],
    check: &(dyn Fn(usize, &T) -> Result<Value, String> + Sync),
) -> Result<Vec<(usize, Value)>, String> {
    let mine = gpumc_scale::select(costs, sharding.shard);
    run_items(sharding, command, context, items, mine, check)
}

/// [`run`] with the shard's items (`mine`, ascending) chosen by the
/// command rather than by the cost balance.
pub fn run_items<T: Sync>(
    sharding: &Sharding,
    command: &str,
    context: Value,
    items: &[T],
    mine: Vec<usize>,
    check: &(dyn Fn(usize, &T) -> Result<Value, String> + Sync),
) -> Result<Vec<(usize, Value)>, String> {
    use rayon::prelude::*;
    let start = std::time::Instant::now();
    let header = Header {
        command: command.to_string(),
        fingerprint: fingerprint(),
        shard: sharding.shard.index,
        shards: sharding.shard.count,
        items: items.len(),
        context,
    };
    let (journal, done) = Journal::open(&sharding.dir, &header)?;
    let todo: Vec<usize> = mine
        .iter()
        .copied()
        .filter(|i| !done.contains_key(i))
        .collect();
    if !done.is_empty() {
        eprintln!(
            "gpumc: shard {}: resuming, {} of its {} items already in {}",
            sharding.shard,
            mine.len() - todo.len(),
            mine.len(),
            journal.path().display()
        );
    }
    let journal = Mutex::new(journal);
    let failed: Mutex<Option<String>> = Mutex::new(None);
    // An item that fails is not journalled: a re-run does it again.
    let fresh: Vec<(usize, Value)> = todo
        .par_iter()
        .filter_map(|&i| {
            let record = check(i, &items[i])
                .and_then(|r| journal.lock().expect("journal").append(i, &r).map(|()| r));
            match record {
                Ok(r) => Some((i, r)),
                Err(e) => {
                    failed.lock().expect("error").get_or_insert(e);
                    None
                }
            }
        })
        .collect();
    if let Some(e) = failed.into_inner().expect("error") {
        return Err(e);
    }
    let mut journal = journal.into_inner().expect("journal");
    journal.finish(mine.len(), start.elapsed().as_secs_f64())?;
    let mut records: Vec<(usize, Value)> = done
        .into_iter()
        .filter(|(i, _)| mine.binary_search(i).is_ok())
        .chain(fresh)
        .collect();
    records.sort_by_key(|(i, _)| *i);
    Ok(records)
}

/// `gpumc merge`'s options.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Shard output directories (each `shard-K-of-N.jsonl` in them is
    /// read) or journal files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// JSON lines, as the command's --json.
    #[arg(long)]
    pub json: bool,
    /// Output format of `check`/`suite`: text | json | herd.
    #[arg(long, value_enum, default_value = "text")]
    pub format: crate::Format,
    /// Also write the command's HTML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// `mapping check`: write the counterexamples' litmus tests to DIR, as
    /// its --out does.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// `run`: add the reports of the tests the shards ran to this results
    /// database, as its --db does.
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
}

impl MergeArgs {
    pub fn format(&self) -> crate::Format {
        if self.json {
            crate::Format::Json
        } else {
            self.format
        }
    }
}

/// `gpumc merge`: the shards' records back to the command that wrote them.
pub fn merge(a: &MergeArgs) -> u8 {
    let merged = match gpumc_scale::merge(&a.paths) {
        Ok(m) => m,
        Err(e) => return crate::usage_error(&e),
    };
    match merged.header.command.as_str() {
        "check" => crate::merge_check(&merged, a),
        "suite" => crate::merge_suite(&merged, a),
        "mapping check" => crate::mappingcli::merge(&merged, a),
        "run" => crate::hwcli::merge_run(&merged, a),
        other => crate::usage_error(&format!(
            "{}: journals of `{other}`, which this gpumc cannot merge",
            a.paths[0].display()
        )),
    }
}
