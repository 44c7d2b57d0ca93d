//! docs/JSON.md is complete and true: every command with `--json` is run
//! on small inputs, its output must be JSON lines of the documented shape,
//! and every field it emits must have a row in that command's table, with
//! a JSON type the row allows.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One `## \`gpumc … --json\`` section of docs/JSON.md.
#[derive(Default, Debug)]
struct Section {
    /// `true`: exactly one line; `false`: any number of lines.
    one_line: bool,
    /// Field path → (type column, meaning column).
    fields: BTreeMap<String, (String, String)>,
    /// `every field of \`gpumc check --json\``: that section's rows too.
    includes: Vec<String>,
}

fn backticked(s: &str) -> Vec<String> {
    s.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn parse_doc() -> BTreeMap<String, Section> {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/JSON.md")).expect("docs/JSON.md");
    let mut out: BTreeMap<String, Section> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## ") {
            current = backticked(rest)
                .into_iter()
                .next()
                .filter(|c| c.starts_with("gpumc "));
            if let Some(c) = &current {
                assert!(
                    out.insert(c.clone(), Section::default()).is_none(),
                    "{c} twice"
                );
            }
            continue;
        }
        let Some(sec) = current.as_ref().and_then(|c| out.get_mut(c)) else {
            continue;
        };
        if let Some(shape) = line.strip_prefix("Shape: ") {
            sec.one_line = shape.starts_with("one JSON line");
            assert!(
                sec.one_line || shape.starts_with("JSON lines"),
                "unknown shape: {line}"
            );
        }
        if line.contains("every field of `gpumc ") {
            sec.includes.extend(
                backticked(line)
                    .into_iter()
                    .filter(|c| c.starts_with("gpumc ")),
            );
        }
        if line.starts_with("| `") {
            let cols: Vec<&str> = line.split(" | ").collect();
            assert!(
                cols.len() >= 3,
                "a field row needs field, type, meaning: {line}"
            );
            let field = cols[0]
                .trim_start_matches("| ")
                .trim_matches('`')
                .to_string();
            // A field in two tables of a section (the per-test objects
            // and the last line) may have either row's type.
            let meaning = cols[2..].join(" | ");
            let ty = cols[1].trim().to_string();
            let row = sec.fields.entry(field).or_default();
            row.0 = if row.0.is_empty() {
                ty
            } else {
                format!("{} or {ty}", row.0)
            };
            row.1.push_str(&meaning);
        }
    }
    out
}

/// The JSON types a type column allows.
fn allowed(ty: &str) -> BTreeSet<&'static str> {
    ty.split(" or ")
        .map(|alt| {
            let alt = alt.trim();
            let first = alt.split_whitespace().next().unwrap_or("");
            match first {
                _ if alt.starts_with('[') => "array",
                "array" => "array",
                "map" | "object" => "object",
                "string" => "string",
                "integer" => "integer",
                "number" => "number",
                "boolean" => "boolean",
                "null" => "null",
                other => panic!("unknown type `{other}` in `{ty}`"),
            }
        })
        .collect()
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

struct Doc(BTreeMap<String, Section>);

impl Doc {
    /// The type column of `path` in `section`, following `includes`, maps
    /// (whose keys are data) and `the same fields as \`x\`` rows.
    fn lookup(&self, section: &str, path: &str) -> Result<Option<String>, String> {
        let sec = self
            .0
            .get(section)
            .ok_or_else(|| format!("no section `{section}`"))?;
        if let Some((t, _)) = sec.fields.get(path) {
            return Ok(Some(t.clone()));
        }
        for inc in &sec.includes {
            if let Ok(Some(t)) = self.lookup(inc, path) {
                return Ok(Some(t));
            }
        }
        // An ancestor that is a map, or has the fields of another.
        let mut cut = path.len();
        while let Some(i) = path[..cut].rfind(['.', '[']) {
            let (head, rest) = (&path[..i], &path[i..]);
            cut = i;
            let Some((t, meaning)) = sec.fields.get(head) else {
                continue;
            };
            if t.starts_with("map") {
                return Ok(None);
            }
            if let Some(after) = meaning.split("the same fields as `").nth(1) {
                let target = after.split('`').next().unwrap_or("");
                let other = after
                    .split("of `")
                    .nth(1)
                    .and_then(|x| x.split('`').next())
                    .unwrap_or(section);
                return self.lookup(other, &format!("{target}{rest}"));
            }
        }
        Err(format!("`{path}` is not documented under `{section}`"))
    }
}

/// Every field path of `v` below `prefix`, with its value.
fn paths<'a>(v: &'a Value, prefix: &str, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.push((p.clone(), x));
                paths(x, &p, out);
            }
        }
        Value::Array(xs) => {
            for x in xs {
                paths(x, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn gpumc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::null())
        .output()
        .expect("run gpumc");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpumc-json-doc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Checks one run's output against its section; returns the fields seen.
fn check_output(doc: &Doc, section: &str, args: &[&str], out: &str, seen: &mut BTreeSet<String>) {
    let sec = &doc.0[section];
    let lines: Vec<&str> = out.lines().collect();
    assert!(!lines.is_empty(), "gpumc {args:?}: no output");
    if sec.one_line {
        assert_eq!(
            lines.len(),
            1,
            "gpumc {args:?}: documented as one line:\n{out}"
        );
    }
    for l in lines {
        let v: Value = serde_json::from_str(l)
            .unwrap_or_else(|e| panic!("gpumc {args:?}: not a JSON line ({e}):\n{l}"));
        assert!(
            v.is_object(),
            "gpumc {args:?}: a line is not an object: {l}"
        );
        let mut ps = Vec::new();
        paths(&v, "", &mut ps);
        for (p, x) in ps {
            match doc.lookup(section, &p) {
                Ok(Some(ty)) => {
                    let ok = allowed(&ty);
                    let t = type_of(x);
                    assert!(
                        ok.contains(t) || (t == "integer" && ok.contains("number")),
                        "gpumc {args:?}: `{p}` is {t}, documented as `{ty}`"
                    );
                    seen.insert(p);
                }
                Ok(None) => {}
                Err(e) => panic!("gpumc {args:?}: {e} (docs/JSON.md)"),
            }
        }
    }
}

#[test]
fn every_json_field_is_documented() {
    let doc = Doc(parse_doc());
    let dir = scratch();
    let d = |p: &Path| p.display().to_string();
    // Inputs: a PTX test with a witness, a racy kernel with a free input,
    // a spinloop, a bad file, a test the bound cuts.
    let spin = dir.join("spin.litmus");
    std::fs::write(
        &spin,
        "PTX spin\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n ld.relaxed.gpu r0, x ;\n beq r0, 0, LC00 ;\nexists\n(x == 0)\n",
    )
    .unwrap();
    let bad = dir.join("bad.litmus");
    std::fs::write(&bad, "PTX bad\n{\n").unwrap();
    let count = dir.join("count.litmus");
    std::fs::write(
        &count,
        "PTX count\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n LC00: ;\n atom.relaxed.gpu.add r0, x, 1 ;\n bne r0, 0, LC01 ;\n goto LC00 ;\n LC01: ;\nexists\n(x == 2)\n",
    )
    .unwrap();
    let csv = dir.join("rows.csv");
    std::fs::write(
        &csv,
        "examples/MP-weak.litmus,1\nexamples/MP-relacq.litmus,1\nexamples/not-there.litmus,0\n",
    )
    .unwrap();
    let axb = dir.join("axb");
    std::fs::create_dir_all(&axb).unwrap();
    std::fs::write(
        axb.join("0.txt"),
        "THREAD0\natomic_exch_branch(0,1,0,0)\n\nTHREAD1\natomic_exch_branch(0,0,1,0)\n",
    )
    .unwrap();
    std::fs::write(axb.join("1.txt"), "THREAD0\natomic_chk_branch(0,1,0)\n").unwrap();
    let export = dir.join("export");
    let graphs = d(&dir.join("graphs"));
    let (spin, bad, count, csv, axb, export) =
        (d(&spin), d(&bad), d(&count), d(&csv), d(&axb), d(&export));
    let progress_corpus = gpumc_testutil::shared_corpus().join("progress");
    let compare = progress_corpus.is_dir().then(|| d(&progress_corpus));
    let diy_dir = d(&dir.join("diy"));
    // A check split in two shards, for `gpumc merge --json`.
    let shards = d(&dir.join("shards"));
    for k in ["0/2", "1/2"] {
        let (code, _, err) = gpumc(&[
            "check",
            "examples/thesis/D-cta_S-ker-Global",
            "--shard",
            k,
            "--shard-out",
            &shards,
        ]);
        assert_eq!(code, 0, "shard {k}: {err}");
    }
    // Results of a run on the interpreter, for the results database.
    let results_db = d(&dir.join("results.db"));
    let results_jsonl = d(&dir.join("results.jsonl"));
    let (_, run_json, _) = gpumc(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "1",
        "--json",
        "examples/thesis/vulkan/D-cta_S-ker-Global/SB.litmus",
    ]);
    std::fs::write(&results_jsonl, run_json).unwrap();

    let mut runs: Vec<(&str, Vec<&str>)> = vec![
        ("gpumc merge --json", vec!["merge", "--json", &shards]),
        (
            "gpumc diy --json",
            vec![
                "diy",
                "--json",
                "--cycle",
                "PodWW Rfe PodRR Fre",
                "--model",
                "ptx-v6.0",
            ],
        ),
        (
            "gpumc diy --json",
            vec!["diy", "--json", "--enumerate", "--out", &diy_dir],
        ),
        (
            "gpumc results --json",
            vec![
                "results",
                "--json",
                "--db",
                &results_db,
                "--import",
                &results_jsonl,
            ],
        ),
        (
            "gpumc mapping check --json",
            vec![
                "mapping",
                "check",
                "--json",
                "--to",
                "ptx-v6.0",
                "--events",
                "4",
                "--mapping",
                "examples/mappings/ptx-rmw-sc-no-release.map",
            ],
        ),
        (
            "gpumc check --json",
            vec![
                "check",
                "--json",
                "examples/MP-weak.litmus",
                "examples/MP-relacq.litmus",
                &bad,
            ],
        ),
        (
            "gpumc check --json",
            vec![
                "check",
                "--json",
                "--property",
                "races",
                "examples/race-if-n.spvasm",
            ],
        ),
        (
            "gpumc check --json",
            vec!["check", "--json", "--property", "liveness", &spin],
        ),
        (
            // Graph data: every execution, a rejected candidate with its
            // violated axiom, a --show relation.
            "gpumc check --json",
            vec![
                "check",
                "--json",
                "--graph",
                "svg",
                "--graph-all",
                "--graph-out",
                &graphs,
                "--show",
                "cause",
                "examples/MP-weak.litmus",
                "examples/MP-relacq.litmus",
            ],
        ),
        (
            "gpumc check --json",
            vec!["check", "--json", "--bound", "1", &count],
        ),
        (
            "gpumc suite --json",
            vec!["suite", "--json", "--expected", &csv, "--root", ROOT],
        ),
        (
            "gpumc progress check --json",
            vec!["progress", "check", "--json", &axb],
        ),
        (
            "gpumc progress table --json",
            vec!["progress", "table", "--json", "--per-config", &axb],
        ),
        (
            "gpumc progress synth --json",
            vec![
                "progress",
                "synth",
                "--json",
                "--threads",
                "2",
                "--instructions",
                "2",
            ],
        ),
        (
            "gpumc progress export --json",
            vec!["progress", "export", "--json", "--out", &export, &axb],
        ),
        (
            "gpumc progress print --json",
            vec!["progress", "print", "--json", &axb],
        ),
        (
            "gpumc run --json",
            vec![
                "run",
                "--json",
                "--backend",
                "interp",
                "--iterations",
                "2",
                "--seed",
                "1",
                "examples/MP-weak.litmus",
                &bad,
            ],
        ),
        (
            "gpumc devices --json",
            vec!["devices", "--json", "--backend", "interp"],
        ),
        (
            "gpumc tune --json",
            vec![
                "tune",
                "--json",
                "--backend",
                "interp",
                "--iterations",
                "1",
                "--trials",
                "1",
                "--seed",
                "1",
                "examples/MP-weak.litmus",
            ],
        ),
        (
            "gpumc mutants --json",
            vec![
                "mutants",
                "--json",
                "--backend",
                "interp",
                "--iterations",
                "1",
                "--seed",
                "1",
                "examples/MP-relacq.litmus",
            ],
        ),
    ];
    if let Some(c) = &compare {
        runs.push((
            "gpumc progress synth --json",
            vec![
                "progress",
                "synth",
                "--json",
                "--threads",
                "2",
                "--instructions",
                "2",
                "--compare",
                c,
            ],
        ));
    } else {
        eprintln!("skipped `progress synth --compare`: ../shared/corpus is absent");
    }
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (section, args) in &runs {
        let (code, out, err) = gpumc(args);
        assert!(
            code == 0 || code == 1 || code == 2,
            "gpumc {args:?}: {code} {err}"
        );
        check_output(&doc, section, args, &out, seen.entry(section).or_default());
    }
    // Every section was exercised, and the rows of each are not stale:
    // most documented fields appeared (optional ones may not).
    for (name, sec) in &doc.0 {
        let got = seen
            .get(name.as_str())
            .unwrap_or_else(|| panic!("`{name}` is not run here"));
        assert!(
            got.len() * 2 >= sec.fields.len(),
            "`{name}`: only {} of {} documented fields seen: {got:?}",
            got.len(),
            sec.fields.len()
        );
    }
}

/// Every (sub)command whose help offers `--json` has a section.
#[test]
fn every_json_command_has_a_section() {
    let doc = parse_doc();
    let mut todo: Vec<Vec<String>> = vec![vec![]];
    let mut with_json = Vec::new();
    while let Some(cmd) = todo.pop() {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.push("--help");
        let (_, text, _) = gpumc(&args);
        if text.contains("--json") {
            with_json.push(format!("gpumc {} --json", cmd.join(" ")));
        }
        let subs = text
            .split("Commands:\n")
            .nth(1)
            .map(|r| r.split("\n\n").next().unwrap_or(""))
            .unwrap_or("");
        for line in subs.lines() {
            let name = line.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && name != "help" {
                let mut sub = cmd.clone();
                sub.push(name.to_string());
                todo.push(sub);
            }
        }
    }
    assert!(with_json.len() >= 10, "{with_json:?}");
    for c in &with_json {
        assert!(doc.contains_key(c), "`{c}` has no section in docs/JSON.md");
    }
}
