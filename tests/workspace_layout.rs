//! The crate map of ARCHITECTURE.md, checked against `cargo metadata`:
//! the workspace holds exactly the listed crates, every dependency between
//! them points down the pipeline (no cycle, nothing depends on the CLI),
//! and clap is reachable only from the `gpumc` command-line crate.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Layers of the pipeline: a crate may depend only on crates of a lower
/// layer (so the graph has no cycle). `gpumc-testutil` is test support: a
/// dev-dependency of any crate, a dependency of none.
const LAYERS: &[(&str, u32)] = &[
    ("gpumc-core", 0),
    ("gpumc-scale", 0),
    ("gpumc-frontend", 1),
    ("gpumc-progress", 1),
    ("gpumc-verify", 2),
    ("gpumc-hw", 2),
    ("gpumc-compile", 2),
    ("gpumc-campaign", 3),
    ("gpumc-mapping", 3),
    ("gpumc-diy", 3),
    ("gpumc", 4),
    ("gpumc-testutil", 0),
];

/// The only crate that may parse command lines.
const CLI: &str = "gpumc";

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

fn layer(name: &str) -> u32 {
    LAYERS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in the crate map"))
        .1
}

/// Workspace packages by name, with their declared dependencies
/// (name, kind: `None` normal, `Some("dev")`, `Some("build")`).
fn members(meta: &Value) -> BTreeMap<String, Vec<(String, Option<String>)>> {
    let ids: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| ids.contains(p["id"].as_str().unwrap()))
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| {
                    let kind = d["kind"].as_str().map(str::to_string);
                    (d["name"].as_str().unwrap().to_string(), kind)
                })
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

#[test]
fn the_workspace_holds_the_crates_of_the_map() {
    let names: BTreeSet<String> = members(&metadata()).into_keys().collect();
    let map: BTreeSet<String> = LAYERS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(names, map);
}

#[test]
fn dependencies_point_down_the_pipeline() {
    let members = members(&metadata());
    let mut bad = Vec::new();
    for (pkg, deps) in &members {
        for (dep, kind) in deps {
            if !members.contains_key(dep) {
                continue;
            }
            let ok = if dep == "gpumc-testutil" {
                kind.as_deref() == Some("dev")
            } else {
                dep != CLI && layer(dep) < layer(pkg)
            };
            if !ok {
                bad.push(format!(
                    "{pkg} -> {dep} ({})",
                    kind.as_deref().unwrap_or("normal")
                ));
            }
        }
    }
    assert!(bad.is_empty(), "edges against the crate map: {bad:?}");
}

#[test]
fn clap_is_reachable_only_from_the_cli() {
    let meta = metadata();
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    // Normal (non-dev, non-build) edges of the resolved graph.
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let from = node["id"].as_str().unwrap();
        for d in node["deps"].as_array().unwrap() {
            let normal = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null());
            if normal {
                edges
                    .entry(from)
                    .or_default()
                    .push(d["pkg"].as_str().unwrap());
            }
        }
    }
    let mut checked = 0;
    for id in meta["workspace_members"].as_array().unwrap() {
        let id = id.as_str().unwrap();
        if name_of[id] == CLI {
            continue;
        }
        let mut seen = BTreeSet::from([id]);
        let mut todo = vec![id];
        while let Some(n) = todo.pop() {
            for &d in edges.get(n).into_iter().flatten() {
                if seen.insert(d) {
                    todo.push(d);
                }
            }
        }
        // The terminal too: progress bars (indicatif) are drawn by the
        // CLI; the libraries report progress through callbacks.
        let clap: Vec<_> = seen
            .iter()
            .filter(|i| name_of[*i].starts_with("clap") || name_of[*i] == "indicatif")
            .collect();
        assert!(clap.is_empty(), "{} reaches {clap:?}", name_of[id]);
        checked += 1;
    }
    assert_eq!(checked, LAYERS.len() - 1);
    // And the check can see clap at all: the CLI does reach it.
    let cli = name_of.iter().find(|(_, n)| **n == CLI).unwrap().0;
    assert!(edges[cli].iter().any(|d| name_of[d] == "clap"));
    assert!(edges[cli].iter().any(|d| name_of[d] == "indicatif"));
}
