//! The Kubernetes manifests of scale/k8s (scale/k8s/README.md), read as
//! YAML and checked against each other and against the sharding interface
//! of the `gpumc` command: the Indexed Job runs one shard per completion
//! index (`--shard auto`) with as many shards as indexes, writes the
//! journals to the shared results volume, and the merge Job reads the same
//! directory of the same claim; the helper pod mounts the Job's volumes;
//! the Dockerfile puts `gpumc` where the manifests call it. Where `kubectl`
//! is installed, it must accept every manifest too: `kubectl apply
//! --dry-run=client` when a cluster answers, else an offline parse
//! (`kubectl label --local`; client-side dry runs need the API server).

use std::path::{Component, Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

const INDEXED: &str = "gpumc-indexed-job.yaml";
const MERGE: &str = "gpumc-merge-job.yaml";
const SHELL: &str = "gpumc-shell.yaml";
/// The claim of the shards' journals and the merged result.
const RESULTS_CLAIM: &str = "gpumc-results";
const IMAGE: &str = "gpumc:latest";

fn k8s_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scale/k8s")
}

/// Every document of a manifest file (empty documents, which kubectl
/// skips, left out).
fn load(name: &str) -> Vec<Yaml> {
    let path = k8s_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let docs = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not YAML: {e}", path.display()));
    let docs: Vec<Yaml> = docs
        .into_iter()
        .filter(|d| !matches!(d, Yaml::Null | Yaml::BadValue))
        .collect();
    for d in &docs {
        for key in ["apiVersion", "kind"] {
            assert!(
                d[key].as_str().is_some(),
                "{name}: a document without {key}"
            );
        }
        assert!(
            d["metadata"]["name"].as_str().is_some(),
            "{name}: a {} without metadata.name",
            kind(d)
        );
    }
    docs
}

fn kind(doc: &Yaml) -> &str {
    doc["kind"].as_str().unwrap_or("?")
}

fn name(doc: &Yaml) -> &str {
    doc["metadata"]["name"].as_str().unwrap_or("?")
}

fn of_kind<'a>(docs: &'a [Yaml], k: &str) -> Vec<&'a Yaml> {
    docs.iter().filter(|d| kind(d) == k).collect()
}

/// The one document of kind `k` in `file`.
fn the<'a>(docs: &'a [Yaml], k: &str, file: &str) -> &'a Yaml {
    let found = of_kind(docs, k);
    assert_eq!(
        found.len(),
        1,
        "{file}: expected one {k}, found {}",
        found.len()
    );
    found[0]
}

fn seq(y: &Yaml) -> &[Yaml] {
    y.as_vec().map(Vec::as_slice).unwrap_or(&[])
}

/// The pod spec of a Job, or a Pod's own spec.
fn pod_spec(doc: &Yaml) -> &Yaml {
    match kind(doc) {
        "Pod" => &doc["spec"],
        _ => &doc["spec"]["template"]["spec"],
    }
}

/// The `gpumc` container of a pod spec (the only container).
fn container(doc: &Yaml) -> &Yaml {
    let cs = seq(&pod_spec(doc)["containers"]);
    assert_eq!(cs.len(), 1, "{}: expected one container", name(doc));
    &cs[0]
}

fn env<'a>(c: &'a Yaml, var: &str) -> Option<&'a Yaml> {
    seq(&c["env"])
        .iter()
        .find(|e| e["name"].as_str() == Some(var))
        .map(|e| &e["value"])
}

fn strings(y: &Yaml) -> Vec<String> {
    seq(y)
        .iter()
        .map(|s| {
            s.as_str()
                .expect("command and args are strings")
                .to_string()
        })
        .collect()
}

/// The words of the `gpumc` command a container runs: its `command` and
/// `args` themselves, or, through `sh -c SCRIPT`, the script's simple
/// command that starts with `gpumc` (quotes removed; `;`, `&&`, `||`, `|`
/// and new lines end a command). The words start with `gpumc`.
fn gpumc_argv(c: &Yaml) -> Vec<String> {
    let mut argv = strings(&c["command"]);
    argv.extend(strings(&c["args"]));
    let is_shell = argv
        .first()
        .is_some_and(|a| matches!(a.as_str(), "sh" | "/bin/sh" | "bash" | "/bin/bash"));
    let commands: Vec<Vec<String>> = if is_shell {
        let i = argv.iter().position(|a| a == "-c").expect("sh -c SCRIPT");
        let script = argv.get(i + 1).expect("the script of sh -c");
        script
            .replace("&&", ";")
            .replace("||", ";")
            .replace(['|', '\n'], ";")
            .split(';')
            .map(|cmd| {
                cmd.split_whitespace()
                    .map(|w| w.replace(['"', '\''], ""))
                    .collect()
            })
            .collect()
    } else {
        vec![argv.clone()]
    };
    let found: Vec<Vec<String>> = commands
        .into_iter()
        .filter(|cmd| {
            cmd.first()
                .is_some_and(|w| Path::new(w).file_name().is_some_and(|f| f == "gpumc"))
        })
        .collect();
    assert_eq!(found.len(), 1, "expected one gpumc command in {argv:?}");
    found.into_iter().next().unwrap()
}

/// The value of `--opt V` or `--opt=V`.
fn opt(argv: &[String], name: &str) -> Option<String> {
    let eq = format!("{name}=");
    argv.iter().enumerate().find_map(|(i, a)| {
        if a == name {
            argv.get(i + 1).cloned()
        } else {
            a.strip_prefix(&eq).map(str::to_string)
        }
    })
}

/// Where the command's standard output goes (`> FILE`, `>FILE`).
fn stdout_file(argv: &[String]) -> Option<String> {
    argv.iter().enumerate().find_map(|(i, a)| match a.as_str() {
        ">" | "1>" => argv.get(i + 1).cloned(),
        _ => a.strip_prefix('>').map(str::to_string),
    })
}

/// `path` without `.` and `..` (lexically).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// A path as a container sees it, as (claim, path inside the claim's
/// volume), through the volume mount with the longest mountPath that holds
/// it (subPath included); also whether that mount is read-only. Panics
/// unless the path is on a PersistentVolumeClaim.
fn on_claim(doc: &Yaml, path: &str) -> (String, PathBuf, bool) {
    let path = normal(Path::new(path));
    assert!(
        path.is_absolute(),
        "{}: {} is not absolute",
        name(doc),
        path.display()
    );
    let c = container(doc);
    let mount = seq(&c["volumeMounts"])
        .iter()
        .filter(|m| {
            m["mountPath"]
                .as_str()
                .is_some_and(|p| path.starts_with(normal(Path::new(p))))
        })
        .max_by_key(|m| {
            normal(Path::new(m["mountPath"].as_str().unwrap()))
                .components()
                .count()
        })
        .unwrap_or_else(|| panic!("{}: {} is on no volume", name(doc), path.display()));
    let vol_name = mount["name"].as_str().expect("volumeMounts[].name");
    let vol = seq(&pod_spec(doc)["volumes"])
        .iter()
        .find(|v| v["name"].as_str() == Some(vol_name))
        .unwrap_or_else(|| panic!("{}: no volume {vol_name}", name(doc)));
    let claim = vol["persistentVolumeClaim"]["claimName"]
        .as_str()
        .unwrap_or_else(|| panic!("{}: volume {vol_name} is not a PVC", name(doc)));
    let inside = path
        .strip_prefix(normal(Path::new(mount["mountPath"].as_str().unwrap())))
        .unwrap();
    let inside = normal(&Path::new(mount["subPath"].as_str().unwrap_or("")).join(inside));
    let read_only = mount["readOnly"].as_bool() == Some(true)
        || vol["persistentVolumeClaim"]["readOnly"].as_bool() == Some(true);
    (claim.to_string(), inside, read_only)
}

/// Every claim a pod spec mounts.
fn claims(doc: &Yaml) -> Vec<String> {
    seq(&pod_spec(doc)["volumes"])
        .iter()
        .filter_map(|v| v["persistentVolumeClaim"]["claimName"].as_str())
        .map(str::to_string)
        .collect()
}

fn int(y: &Yaml, what: &str) -> i64 {
    y.as_i64()
        .unwrap_or_else(|| panic!("{what} is not an integer: {y:?}"))
}

/// The Indexed Job's shard directory, on its claim.
fn shard_out() -> (String, PathBuf) {
    let docs = load(INDEXED);
    let job = the(&docs, "Job", INDEXED);
    let argv = gpumc_argv(container(job));
    let dir = opt(&argv, "--shard-out").expect("--shard-out");
    let (claim, inside, _) = on_claim(job, &dir);
    (claim, inside)
}

#[test]
fn indexed_job_runs_one_shard_per_index() {
    let docs = load(INDEXED);
    let job = the(&docs, "Job", INDEXED);
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"].as_str(), Some("Indexed"));

    // N three times: completions, parallelism, GPUMC_SHARDS.
    let completions = int(&spec["completions"], "spec.completions");
    let parallelism = int(&spec["parallelism"], "spec.parallelism");
    assert!(completions > 0, "completions {completions}");
    assert_eq!(completions, parallelism, "completions and parallelism");
    let c = container(job);
    let shards = env(c, "GPUMC_SHARDS").expect("env GPUMC_SHARDS");
    // Kubernetes takes env values as strings only: `"8"`, not `8`.
    let shards = shards
        .as_str()
        .unwrap_or_else(|| panic!("GPUMC_SHARDS must be a quoted string, not {shards:?}"));
    assert_eq!(
        shards.parse::<i64>().ok(),
        Some(completions),
        "GPUMC_SHARDS {shards} and completions {completions}"
    );

    // Retries: per index (with restartPolicy Never, which it requires) or
    // for the whole Job.
    let per_index = &spec["backoffLimitPerIndex"];
    assert!(
        !per_index.is_badvalue() || !spec["backoffLimit"].is_badvalue(),
        "neither backoffLimitPerIndex nor backoffLimit"
    );
    if !per_index.is_badvalue() {
        assert!(int(per_index, "backoffLimitPerIndex") >= 0);
    }
    assert_eq!(pod_spec(job)["restartPolicy"].as_str(), Some("Never"));

    assert_eq!(c["image"].as_str(), Some(IMAGE));
    let req = &c["resources"]["requests"];
    assert_eq!(req["cpu"].as_str(), Some("2"), "requests.cpu");
    assert_eq!(req["memory"].as_str(), Some("4Gi"), "requests.memory");

    // gpumc suite --shard auto --shard-out DIR, DIR on the results claim.
    let argv = gpumc_argv(c);
    assert_eq!(argv.get(1).map(String::as_str), Some("suite"), "{argv:?}");
    assert_eq!(opt(&argv, "--shard").as_deref(), Some("auto"), "{argv:?}");
    let dir = opt(&argv, "--shard-out").expect("--shard-out DIR");
    let (claim, _, read_only) = on_claim(job, &dir);
    assert_eq!(claim, RESULTS_CLAIM, "--shard-out {dir}");
    assert!(!read_only, "--shard-out {dir} is on a read-only mount");

    // The inputs on a volume too.
    let csv = opt(&argv, "--expected").expect("--expected CSV");
    let (data_claim, _, _) = on_claim(job, &csv);
    if let Some(root) = opt(&argv, "--root") {
        assert_eq!(
            on_claim(job, &root).0,
            data_claim,
            "--root {root} and --expected {csv}"
        );
    }

    // Every claim the Job mounts is defined in the same file.
    let pvcs: Vec<&str> = of_kind(&docs, "PersistentVolumeClaim")
        .into_iter()
        .map(name)
        .collect();
    for claim in claims(job) {
        assert!(
            pvcs.contains(&claim.as_str()),
            "claim {claim} is not in {INDEXED}: {pvcs:?}"
        );
    }
}

#[test]
fn results_claim_is_read_write_many() {
    let docs = load(INDEXED);
    let pvc = of_kind(&docs, "PersistentVolumeClaim")
        .into_iter()
        .find(|d| name(d) == RESULTS_CLAIM)
        .unwrap_or_else(|| panic!("{INDEXED}: no PersistentVolumeClaim {RESULTS_CLAIM}"));
    assert_eq!(pvc["apiVersion"].as_str(), Some("v1"));
    let modes: Vec<&str> = seq(&pvc["spec"]["accessModes"])
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(modes.contains(&"ReadWriteMany"), "accessModes {modes:?}");
    assert!(
        pvc["spec"]["resources"]["requests"]["storage"]
            .as_str()
            .is_some(),
        "{RESULTS_CLAIM}: no storage request"
    );
}

/// The label that `kubectl apply -l` uses to create the claims before the
/// Job (scale/k8s/README.md: the inputs are copied in between).
const STORAGE: (&str, &str) = ("app.kubernetes.io/component", "storage");

#[test]
fn storage_selector_picks_the_claims_only() {
    let docs = load(INDEXED);
    for d in &docs {
        let label = d["metadata"]["labels"][STORAGE.0].as_str();
        if kind(d) == "PersistentVolumeClaim" {
            assert_eq!(
                label,
                Some(STORAGE.1),
                "{} {}: label {STORAGE:?}",
                kind(d),
                name(d)
            );
        } else {
            assert_ne!(
                label,
                Some(STORAGE.1),
                "{} {}: label {STORAGE:?}",
                kind(d),
                name(d)
            );
        }
    }
}

#[test]
fn merge_job_reads_the_shards_directory() {
    let docs = load(MERGE);
    let job = the(&docs, "Job", MERGE);
    assert_eq!(job["apiVersion"].as_str(), Some("batch/v1"));
    let spec = &job["spec"];
    assert!(
        matches!(spec["completionMode"].as_str(), None | Some("NonIndexed")),
        "the merge is one pod"
    );
    assert!(spec["completions"].as_i64().unwrap_or(1) == 1);
    assert!(matches!(
        pod_spec(job)["restartPolicy"].as_str(),
        Some("Never" | "OnFailure")
    ));
    let c = container(job);
    assert_eq!(c["image"].as_str(), Some(IMAGE));

    // gpumc merge DIR > DIR/merged.out, DIR the shards' directory.
    let argv = gpumc_argv(c);
    assert_eq!(argv.get(1).map(String::as_str), Some("merge"), "{argv:?}");
    let dir = argv
        .get(2)
        .filter(|a| !a.starts_with('-') && !a.starts_with('>'))
        .unwrap_or_else(|| panic!("gpumc merge DIR: {argv:?}"));
    let (claim, inside, _) = on_claim(job, dir);
    assert_eq!((claim.clone(), inside.clone()), shard_out(), "merge {dir}");
    assert_eq!(claim, RESULTS_CLAIM);

    let out = stdout_file(&argv).unwrap_or_else(|| panic!("merge's output to a file: {argv:?}"));
    let (out_claim, out_inside, read_only) = on_claim(job, &out);
    assert_eq!(out_claim, RESULTS_CLAIM, "> {out}");
    assert_eq!(
        out_inside.parent(),
        Some(inside.as_path()),
        "> {out} beside the journals"
    );
    assert!(!read_only, "> {out} is on a read-only mount");
}

#[test]
fn shell_pod_mounts_the_jobs_volumes() {
    let docs = load(SHELL);
    let pod = the(&docs, "Pod", SHELL);
    let mounted = claims(pod);
    let indexed = load(INDEXED);
    for claim in claims(the(&indexed, "Job", INDEXED)) {
        assert!(
            mounted.contains(&claim),
            "{SHELL} does not mount {claim}: {mounted:?}"
        );
    }
    // Writable, to copy the inputs in.
    for m in seq(&container(pod)["volumeMounts"]) {
        assert_ne!(
            m["readOnly"].as_bool(),
            Some(true),
            "{SHELL}: {m:?} is read-only"
        );
    }
}

#[test]
fn dockerfile_builds_the_binary_the_manifests_run() {
    let path = k8s_dir().join("Dockerfile");
    let text = std::fs::read_to_string(&path).expect("scale/k8s/Dockerfile");
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let froms: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("FROM "))
        .collect();
    assert_eq!(froms.len(), 2, "a builder and a runtime stage: {froms:?}");
    assert!(froms[0].starts_with("FROM rust:"), "{}", froms[0]);
    assert!(froms[1].starts_with("FROM debian:"), "{}", froms[1]);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("RUN cargo build --release")),
        "no cargo build --release"
    );
    // The binary lands in a directory on the default PATH, where the
    // manifests' `gpumc` finds it.
    let copy = lines
        .iter()
        .find(|l| l.starts_with("COPY --from="))
        .expect("the runtime stage copies the binary");
    assert!(copy.contains("target/release/gpumc"), "{copy}");
    assert!(
        copy.ends_with(" /usr/local/bin/gpumc") || copy.ends_with(" /usr/local/bin/"),
        "{copy}"
    );

    // The build context keeps what the binary embeds (examples/, tests/).
    let ignore = std::fs::read_to_string(k8s_dir().join("Dockerfile.dockerignore"))
        .expect("scale/k8s/Dockerfile.dockerignore");
    let patterns: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert!(patterns.contains(&"target"), "target/ in the build context");
    for kept in [
        "src",
        "crates",
        "examples",
        "tests",
        "Cargo.toml",
        "Cargo.lock",
    ] {
        assert!(
            !patterns.contains(&kept),
            "{kept} left out of the build context"
        );
    }
}

/// kubectl's answer on one manifest: (exit status, stdout + stderr).
fn kubectl(args: &[&str]) -> (bool, String) {
    let out = Command::new("kubectl")
        .args(args)
        .output()
        .expect("run kubectl");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn kubectl_accepts_the_manifests() {
    if Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .output()
        .is_err()
    {
        eprintln!(
            "kubectl is not installed: the manifests were checked by this test's parser only"
        );
        return;
    }
    let cluster = kubectl(&["version", "--request-timeout=10s"]).0;
    if !cluster {
        eprintln!(
            "kubectl: no cluster answers; `kubectl apply --dry-run=client` needs one (even with \
             --validate=false), so the manifests are parsed offline (kubectl label --local)"
        );
    }
    for file in [INDEXED, MERGE, SHELL] {
        let path = k8s_dir().join(file);
        let path = path.to_str().unwrap();
        let (ok, out) = if cluster {
            kubectl(&[
                "apply",
                "--dry-run=client",
                "--request-timeout=30s",
                "-f",
                path,
            ])
        } else {
            // Objects read from the file and printed back, no server.
            kubectl(&[
                "label",
                "--local",
                "-o",
                "name",
                "-f",
                path,
                "gpumc.check/manifest=ok",
            ])
        };
        assert!(ok, "kubectl rejects {file}:\n{out}");
        let docs = load(file);
        for d in &docs {
            // kubectl prints kind(.group)/name per object.
            let k = kind(d).to_lowercase();
            let n = name(d);
            assert!(
                out.lines()
                    .any(|l| l.starts_with(&k) && l.contains(&format!("/{n}"))),
                "kubectl did not see {k} {n} of {file}:\n{out}"
            );
        }
        eprintln!("kubectl: {file}: {} objects", docs.len());
    }
}
