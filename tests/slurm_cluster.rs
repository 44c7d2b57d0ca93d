//! `scale/slurm/` end to end on a real Slurm cluster: starts a single-node
//! cluster on localhost (`scale/slurm/local-cluster.sh`), submits sharded
//! gpumc commands with `scale/slurm/submit.sh` (a job array, then a merge
//! job that depends on it), and checks that the merged output is what the
//! unsharded command prints (times masked), with the same exit status.
//!
//! Needs root and Debian's `slurm-wlm` and `munge` packages; without
//! `slurmctld` it prints `SKIPPED: …` and passes, unless
//! `GPUMC_REQUIRE_SLURM` is set (CI sets it where it installs them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const GPUMC: &str = env!("CARGO_BIN_EXE_gpumc");
const REQUIRE: &str = "GPUMC_REQUIRE_SLURM";
/// How long one sharded command may take, from submission to merge.
const WAIT: Duration = Duration::from_secs(120);

/// Skips (returns false) with a message, or fails when Slurm is required.
fn skip(why: &str) -> bool {
    assert!(
        std::env::var_os(REQUIRE).is_none(),
        "{REQUIRE} is set but {why}"
    );
    eprintln!("SKIPPED: {why} (set {REQUIRE} to make this a failure)");
    false
}

fn slurm_available() -> bool {
    let runs = |prog: &str, arg: &str| {
        Command::new(prog)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !runs("slurmctld", "-V") {
        return skip("slurmctld is not installed (apt-get install slurm-wlm munge)");
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if !root {
        return skip("a local Slurm cluster needs root (slurmd runs jobs as their user)");
    }
    true
}

/// A running local cluster; stopped when dropped, also when a check fails.
struct Cluster {
    state: PathBuf,
    conf: PathBuf,
}

impl Cluster {
    fn start(state: &Path) -> Cluster {
        std::fs::create_dir_all(state).unwrap();
        // A port of our own, so that a cluster that already runs on the
        // default port (6817) is not disturbed.
        let port = 20_000 + (std::process::id() % 4_000) * 2;
        let out = Command::new(script("local-cluster.sh"))
            .arg("start")
            .arg(state)
            .env("GPUMC_SLURM_PORT", port.to_string())
            .output()
            .expect("run local-cluster.sh");
        // Stop whatever did start, even when the start failed.
        let cluster = Cluster {
            state: state.to_path_buf(),
            conf: state.join("slurm.conf"),
        };
        assert!(
            out.status.success(),
            "local-cluster.sh start failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    /// A Slurm client or script run against this cluster, in the
    /// repository root.
    fn command(&self, prog: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(prog);
        c.env("SLURM_CONF", &self.conf)
            .env("GPUMC", GPUMC)
            .current_dir(gpumc_testutil::repo_root());
        c
    }

    /// Submits `gpumc ARGS` in `shards` shards with submit.sh; the merge
    /// job's id.
    fn submit(&self, shards: usize, out: &Path, args: &[&str]) -> String {
        let o = self
            .command(script("submit.sh"))
            .arg("--shards")
            .arg(shards.to_string())
            .arg("--time")
            .arg("10")
            .arg("--out")
            .arg(out)
            .arg("--")
            .args(args)
            .output()
            .expect("run submit.sh");
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "submit.sh {args:?} failed:\n{stdout}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let id = |key: &str| {
            stdout
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
                .unwrap_or_else(|| panic!("submit.sh printed no {key}ID:\n{stdout}"))
                .to_string()
        };
        id("array_job=");
        id("merge_job=")
    }

    /// Waits for the merge job's `merged.rc` in `out`; merge's standard
    /// output and exit status.
    fn wait_merged(&self, merge_job: &str, out: &Path) -> (String, i32) {
        let rc_file = out.join("merged.rc");
        let start = Instant::now();
        let mut gone_since: Option<Instant> = None;
        loop {
            if let Ok(rc) = std::fs::read_to_string(&rc_file) {
                let rc = rc
                    .trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{} holds {rc:?}", rc_file.display()));
                let merged = std::fs::read_to_string(out.join("merged.out")).unwrap();
                return (merged, rc);
            }
            // The merge job ended without writing merged.rc: fail now
            // rather than at the timeout (a short grace for the file).
            let state = self.job_state(merge_job);
            let ended = !matches!(
                state.as_str(),
                "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED"
            );
            if ended {
                let since = *gone_since.get_or_insert_with(Instant::now);
                assert!(
                    since.elapsed() < Duration::from_secs(5),
                    "merge job {merge_job} ended ({state:?}) without {}\n{}",
                    rc_file.display(),
                    self.diagnostics(out)
                );
            }
            assert!(
                start.elapsed() < WAIT,
                "no {} after {WAIT:?} (merge job {merge_job}: {state:?})\n{}",
                rc_file.display(),
                self.diagnostics(out)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The job's state as squeue tells it (empty once Slurm forgot it).
    fn job_state(&self, job: &str) -> String {
        self.command("squeue")
            .args(["-h", "-t", "all", "-o", "%T", "-j", job])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default()
    }

    /// The queue, the jobs' logs and the controller's log, for a failure.
    fn diagnostics(&self, out: &Path) -> String {
        let mut d = String::new();
        if let Ok(o) = self.command("squeue").args(["-t", "all"]).output() {
            d += &format!("squeue -t all:\n{}\n", String::from_utf8_lossy(&o.stdout));
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(out)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        let logs = files.iter().filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("slurm-") || name.starts_with("merged.")
        });
        for f in logs.chain([&self.state.join("slurmctld.log")]) {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(20)..];
            d += &format!("--- {}:\n{}\n", f.display(), tail.join("\n"));
        }
        d
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        match Command::new(script("local-cluster.sh"))
            .arg("stop")
            .arg(&self.state)
            .output()
        {
            Ok(o) if o.status.success() => {}
            Ok(o) => eprintln!(
                "local-cluster.sh stop {} failed:\n{}",
                self.state.display(),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => eprintln!("local-cluster.sh stop: {e}"),
        }
    }
}

fn script(name: &str) -> PathBuf {
    gpumc_testutil::repo_root().join("scale/slurm").join(name)
}

/// `text` with every time replaced by `#`: a number followed by `s`,
/// `ms`, `us` or `µs` (after an optional space) and then no letter or
/// digit — `0.01 s wall`, `1.85 ms per test`, `0.1 s)`, `3s` — but not the
/// `206` of `206 shapes`.
fn mask_times(text: &str) -> String {
    fn is_time_unit(rest: &str) -> bool {
        let r = rest.strip_prefix(' ').unwrap_or(rest);
        ["ms", "us", "µs", "s"].iter().any(|u| {
            r.strip_prefix(u)
                .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric()))
        })
    }
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let starts_number = c.is_ascii_digit()
            && !prev.is_some_and(|p| p.is_alphanumeric() || p == '.' || p == '_');
        if starts_number {
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let (number, after) = rest.split_at(end);
            out.push_str(if is_time_unit(after) { "#" } else { number });
            prev = number.chars().last();
            rest = after;
        } else {
            out.push(c);
            prev = Some(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

#[test]
fn mask_times_masks_times_only() {
    assert_eq!(
        mask_times("suite x.csv: 6 rows in 0.01 s wall, median 1.85 ms per test"),
        "suite x.csv: 6 rows in # s wall, median # ms per test"
    );
    assert_eq!(
        mask_times("coherence: none up to 3 events (206 shapes, 206 SAT queries; 0.1 s)"),
        "coherence: none up to 3 events (206 shapes, 206 SAT queries; # s)"
    );
    assert_eq!(
        mask_times("took 12ms, then 3s; v1.5 x2 5 sets"),
        "took #ms, then #s; v1.5 x2 5 sets"
    );
    assert_eq!(mask_times("2.5 µs\n7 s"), "# µs\n# s");
}

/// Runs `gpumc ARGS` unsharded in the repository root: stdout, status.
fn unsharded(args: &[&str]) -> (String, i32) {
    let (code, out, _) = gpumc_testutil::run(GPUMC, args, None);
    (out, code)
}

/// The Dat3M CSV with the fewest rows (then the shortest path), if the
/// shared corpus is there.
fn smallest_dat3m_csv() -> Option<PathBuf> {
    let mut best: Option<(usize, PathBuf)> = None;
    let root = gpumc_testutil::shared_corpus().join("dat3m");
    for p in gpumc_testutil::files_with_extension(&root, "csv") {
        let rows = std::fs::read_to_string(&p)
            .map(|t| t.lines().filter(|l| !l.trim().is_empty()).count())
            .unwrap_or(0);
        let better = best
            .as_ref()
            .is_none_or(|(r, b)| (rows, p.as_os_str().len(), &p) < (*r, b.as_os_str().len(), b));
        if rows > 0 && better {
            best = Some((rows, p));
        }
    }
    best.map(|(_, p)| p)
}

/// A sharded command submitted to the cluster, and what to compare it with.
struct Case {
    name: &'static str,
    args: Vec<String>,
    shards: usize,
    out: PathBuf,
    merge_job: String,
}

#[test]
fn sharded_commands_on_a_local_slurm_cluster_print_what_unsharded_ones_do() {
    if !slurm_available() {
        return;
    }
    let t0 = Instant::now();
    let tmp = std::env::temp_dir().join(format!("gpumc-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let cluster = Cluster::start(&tmp.join("cluster"));
    eprintln!("cluster up after {:.1?}", t0.elapsed());

    let mut cases = Vec::new();
    match smallest_dat3m_csv() {
        Some(csv) => cases.push((
            "suite",
            vec![
                "suite".to_string(),
                "--expected".to_string(),
                csv.to_string_lossy().into_owned(),
            ],
            3,
        )),
        None => eprintln!(
            "skipping the sharded suite: no CSV under {}",
            gpumc_testutil::shared_corpus().join("dat3m").display()
        ),
    }
    cases.push((
        "mapping",
        ["mapping", "check", "--to", "ptx-v7.5", "--events", "3"]
            .map(String::from)
            .to_vec(),
        4,
    ));

    // Submit everything first: the cluster runs the cases side by side.
    let cases: Vec<Case> = cases
        .into_iter()
        .map(|(name, args, shards)| {
            let out = tmp.join(name);
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            let merge_job = cluster.submit(shards, &out, &a);
            Case {
                name,
                args,
                shards,
                out,
                merge_job,
            }
        })
        .collect();

    for case in &cases {
        let a: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let (expected, expected_rc) = unsharded(&a);
        assert!(
            expected_rc == 0 || expected_rc == 1,
            "unsharded gpumc {a:?} exited {expected_rc}:\n{expected}"
        );
        let (merged, rc) = cluster.wait_merged(&case.merge_job, &case.out);
        eprintln!(
            "{}: {} shards merged after {:.1?}",
            case.name,
            case.shards,
            t0.elapsed()
        );
        for k in 0..case.shards {
            let journal = case.out.join(format!("shard-{k}-of-{}.jsonl", case.shards));
            assert!(
                journal.is_file(),
                "{}: no {}\n{}",
                case.name,
                journal.display(),
                cluster.diagnostics(&case.out)
            );
        }
        let want: Vec<String> = expected.lines().map(mask_times).collect();
        let got: Vec<String> = merged.lines().map(mask_times).collect();
        assert_eq!(
            got,
            want,
            "{}: `gpumc merge` printed otherwise than gpumc {a:?}\n{}",
            case.name,
            cluster.diagnostics(&case.out)
        );
        assert_eq!(
            rc,
            expected_rc,
            "{}: merge exited {rc}, gpumc {a:?} exited {expected_rc}\n{}",
            case.name,
            cluster.diagnostics(&case.out)
        );
    }
    drop(cluster);
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!("done after {:.1?}", t0.elapsed());
}
