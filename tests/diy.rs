//! `gpumc diy` regenerates the tests of Sorensen's thesis (chapter 5)
//! from their cycles: for every test of `examples/thesis/` in the three
//! basic configurations whose family is a cycle (MP, LB — the thesis's
//! LD —, SB, S, R, 2+2W, IRIW), the cycle its name describes is
//! generated with the directory's placement and region, and must equal
//! the file up to renaming (threads, registers, locations) and get the
//! verdicts `examples/thesis/expected.txt` records for it.

use std::collections::BTreeMap;
use std::path::Path;

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

/// Families by the thesis's name, as cycles of plain program-order edges
/// (one per thread that has one, in thread order).
const FAMILIES: &[(&str, &str)] = &[
    ("MP", "PodWW Rfe PodRR Fre"),
    ("LD", "PodRW Rfe PodRW Rfe"),
    ("SB", "PodWR Fre PodWR Fre"),
    ("S", "PodWW Rfe PodRW Wse"),
    ("R", "PodWW Wse PodWR Fre"),
    ("2+2W", "PodWW Wse PodWW Wse"),
    ("IRIW", "Rfe PodRR Fre Rfe PodRR Fre"),
];

/// The cycle a thesis name describes (`MP+membar.cta+addr`), or `None`
/// for the tests that are not cycles of this vocabulary.
fn cycle_of(name: &str) -> Option<String> {
    let mut parts = name.split('+');
    let mut base = parts.next()?.to_string();
    // `2+2W` holds a `+`.
    if base == "2" {
        base = format!("2+{}", parts.next()?);
    }
    let (_, template) = FAMILIES.iter().find(|(f, _)| *f == base)?;
    let labels: Vec<&str> = parts.collect();
    let mut edges: Vec<String> = template.split(' ').map(str::to_string).collect();
    let pos: Vec<usize> = (0..edges.len())
        .filter(|&k| edges[k].starts_with("Pod"))
        .collect();
    let per_thread: Vec<&str> = match labels.as_slice() {
        [] => vec!["po"; pos.len()],
        [one] if pos.len() > 1 && one.ends_with('s') => vec![&one[..one.len() - 1]; pos.len()],
        many => many.to_vec(),
    };
    if per_thread.len() != pos.len() {
        return None;
    }
    for (&k, label) in pos.iter().zip(per_thread) {
        let dirs = &edges[k][3..];
        edges[k] = match label {
            "po" => format!("Pod{dirs}"),
            "membar.cta" => format!("Membar.ctad{dirs}"),
            "membar.gl" => format!("Membar.gld{dirs}"),
            "addr" => format!("DpAddrd{}", &dirs[1..]),
            "data" => format!("DpDatad{}", &dirs[1..]),
            _ => return None,
        };
    }
    Some(edges.join(" "))
}

/// A litmus test reduced to what renaming cannot change, for one order
/// of its threads: each thread's code with address registers replaced
/// by their location and other registers numbered by first use, the
/// scope tree, the memory map and the condition's conjuncts (sorted),
/// locations numbered by first use.
struct Parsed {
    threads: Vec<Vec<String>>,
    bindings: Vec<BTreeMap<String, String>>,
    tree: String,
    regions: BTreeMap<String, String>,
    cond: Vec<(Option<usize>, String, String)>,
}

fn parse(text: &str) -> Parsed {
    let open = text.find('{').unwrap();
    let close = text.find('}').unwrap();
    let mut bindings: Vec<BTreeMap<String, String>> = Vec::new();
    for line in text[open + 1..close].lines() {
        let line = line.trim().trim_end_matches(';');
        let Some((t, decl)) = line.split_once(':') else {
            continue;
        };
        let Ok(t) = t.trim().parse::<usize>() else {
            continue;
        };
        if let Some((lhs, loc)) = decl.split_once('=') {
            let reg = lhs.split_whitespace().last().unwrap().to_string();
            while bindings.len() <= t {
                bindings.push(BTreeMap::new());
            }
            bindings[t].insert(reg, loc.trim().to_string());
        }
    }
    let rest = &text[close + 1..];
    let tree_at = rest.find("ScopeTree").unwrap();
    let mut threads: Vec<Vec<String>> = Vec::new();
    for line in rest[..tree_at].lines() {
        let line = line.trim();
        if !line.ends_with(';') {
            continue;
        }
        let cells: Vec<&str> = line
            .trim_end_matches(';')
            .split('|')
            .map(str::trim)
            .collect();
        if cells.first().is_some_and(|c| *c == "T0") {
            threads = vec![Vec::new(); cells.len()];
            continue;
        }
        for (t, c) in cells.iter().enumerate() {
            if !c.is_empty() {
                threads[t].push(c.to_string());
            }
        }
    }
    while bindings.len() < threads.len() {
        bindings.push(BTreeMap::new());
    }
    let tail: Vec<&str> = rest[tree_at..]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let tree = tail[1].to_string();
    let regions = tail[2]
        .split(',')
        .map(|p| {
            let (l, r) = p.split_once(':').unwrap();
            (l.trim().to_string(), r.trim().to_string())
        })
        .collect();
    let cond_text: String = tail[3..].join(" ");
    let inner = cond_text
        .trim_start_matches("exists")
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')');
    let cond = inner
        .split("/\\")
        .map(|c| {
            let (lhs, v) = c.trim().split_once('=').unwrap();
            match lhs.split_once(':') {
                Some((t, r)) => (Some(t.parse().unwrap()), r.to_string(), v.to_string()),
                None => (None, lhs.to_string(), v.to_string()),
            }
        })
        .collect();
    Parsed {
        threads,
        bindings,
        tree,
        regions,
        cond,
    }
}

fn canonical(p: &Parsed, order: &[usize]) -> String {
    let mut locs: BTreeMap<String, String> = BTreeMap::new();
    let loc_name = |l: &str, locs: &mut BTreeMap<String, String>| {
        let n = locs.len();
        locs.entry(l.to_string())
            .or_insert_with(|| format!("L{n}"))
            .clone()
    };
    let mut out = String::new();
    let mut reg_maps = Vec::new();
    for (new, &t) in order.iter().enumerate() {
        let mut regs: BTreeMap<String, String> = BTreeMap::new();
        out.push_str(&format!("T{new}:"));
        for ins in &p.threads[t] {
            let toks: Vec<String> = ins
                .split([',', ' ', '[', ']'])
                .filter(|s| !s.is_empty())
                .map(|tok| {
                    if let Some(l) = p.bindings[t].get(tok) {
                        format!("@{}", loc_name(l, &mut locs))
                    } else if tok.starts_with('r') && tok[1..].chars().all(|c| c.is_ascii_digit()) {
                        let n = regs.len();
                        regs.entry(tok.to_string())
                            .or_insert_with(|| format!("%{n}"))
                            .clone()
                    } else {
                        tok.to_string()
                    }
                })
                .collect();
            out.push_str(&format!(" {};", toks.join(" ")));
        }
        out.push('\n');
        reg_maps.push(regs);
    }
    // The scope tree, threads renamed.
    let mut tree = p.tree.clone();
    for (new, &t) in order.iter().enumerate() {
        tree = tree.replace(&format!("T{t})"), &format!("#{new})"));
    }
    out.push_str(&format!("{tree}\n"));
    let mut regions: Vec<String> = p
        .regions
        .iter()
        .map(|(l, r)| format!("{}:{r}", locs.get(l).cloned().unwrap_or_else(|| l.clone())))
        .collect();
    regions.sort();
    out.push_str(&format!("{}\n", regions.join(",")));
    let mut cond: Vec<String> = p
        .cond
        .iter()
        .map(|(t, r, v)| match t {
            Some(t) => {
                let new = order.iter().position(|x| x == t).unwrap();
                let reg = reg_maps[new].get(r).cloned().unwrap_or_else(|| r.clone());
                format!("{new}:{reg}={v}")
            }
            None => format!("{}={v}", locs.get(r).cloned().unwrap_or_else(|| r.clone())),
        })
        .collect();
    cond.sort();
    out.push_str(&cond.join(" & "));
    out
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut all = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            all.push(q);
        }
    }
    all
}

/// The least canonical form of a test over the orders of its threads:
/// equal for two tests exactly when they are equal up to renaming.
fn invariant(text: &str) -> String {
    let p = parse(text);
    permutations(p.threads.len())
        .iter()
        .map(|o| canonical(&p, o))
        .min()
        .unwrap_or_default()
}

/// Whether two tests are equal up to renaming threads, registers and
/// locations.
fn same_up_to_renaming(a: &str, b: &str) -> bool {
    let (pa, pb) = (parse(a), parse(b));
    if pa.threads.len() != pb.threads.len() {
        return false;
    }
    let ident: Vec<usize> = (0..pa.threads.len()).collect();
    let ca = canonical(&pa, &ident);
    permutations(pb.threads.len())
        .iter()
        .any(|o| canonical(&pb, o) == ca)
}

/// Every thesis test of `sub` (`""` or `"vulkan"`) in the three basic
/// configurations whose name is a cycle, generated by `gpumc diy` with
/// `extra` options and compared by `same`; then each model's verdict
/// against `expected.txt` (its PASS — the outcome is reachable — is
/// Allowed). Returns how many were regenerated.
fn regenerate_thesis(
    sub: &str,
    extra: &[&str],
    models: &[&str],
    same: impl Fn(&str, &str) -> bool,
) -> usize {
    let root = Path::new("examples/thesis");
    let expected = std::fs::read_to_string(root.join("expected.txt")).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (dir, placement, region) in [
        ("D-warp_S-cta-Shared", "warp", "shared"),
        ("D-warp_S-cta-Global", "warp", "global"),
        ("D-cta_S-ker-Global", "cta", "global"),
    ] {
        let at = root.join(sub).join(dir);
        let mut files: Vec<_> = std::fs::read_dir(&at)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_stem().unwrap().to_str().unwrap().to_string();
            let Some(cycle) = cycle_of(&name) else {
                continue;
            };
            let mut args = vec![
                "diy",
                "--cycle",
                &cycle,
                "--placement",
                placement,
                "--region",
                region,
            ];
            args.extend_from_slice(extra);
            let (code, out, err) = gpumc(&args);
            assert_eq!(code, 0, "{dir}/{name} ({cycle}): {err}");
            let theirs = std::fs::read_to_string(&f).unwrap();
            if !same(&out, &theirs) {
                failures.push(format!("{sub}/{dir}/{name}: `{cycle}` gives\n{out}"));
                continue;
            }
            for model in models {
                let file = Path::new(sub).join(dir).join(format!("{name}.litmus"));
                let key = format!("{} {model} ", file.display());
                let line = expected.lines().find(|l| l.starts_with(&key)).unwrap();
                let want = if line[key.len()..].starts_with("PASS") {
                    "Allowed"
                } else {
                    "Forbidden"
                };
                if !out.contains(&format!("Verdict={model} {want}\n")) {
                    failures.push(format!("{key}: not {want}\n{out}"));
                }
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

#[test]
fn the_thesis_chapter_5_tests_are_regenerated_from_their_cycles() {
    let models = ["ptx-v6.0", "ptx-v7.5"];
    let extra = ["--model", "ptx-v6.0", "--model", "ptx-v7.5"];
    let checked = regenerate_thesis("", &extra, &models, same_up_to_renaming);
    // Seven families in three configurations, with their fence and
    // dependency variants.
    assert!(checked >= 60, "only {checked} tests regenerated");
    eprintln!("{checked} thesis tests regenerated from their cycles");
}

#[test]
fn renaming_does_not_hide_a_different_test() {
    // The comparison itself can fail: MP is not SB, and MP with the
    // fence in the other thread is not MP+membar.cta+addr.
    let root = Path::new("examples/thesis/D-warp_S-cta-Global");
    let mp = std::fs::read_to_string(root.join("MP.litmus")).unwrap();
    let sb = std::fs::read_to_string(root.join("SB.litmus")).unwrap();
    let mp_fenced = std::fs::read_to_string(root.join("MP+membar.cta+addr.litmus")).unwrap();
    assert!(same_up_to_renaming(&mp, &mp));
    assert!(!same_up_to_renaming(&mp, &sb));
    let (_, swapped, _) = gpumc(&["diy", "--cycle", "PodWW Rfe Membar.ctadRR Fre"]);
    assert!(!same_up_to_renaming(&swapped, &mp_fenced));
}

#[test]
fn bad_cycles_and_options_exit_with_status_2() {
    for (args, says) in [
        (
            vec!["diy", "--cycle", "PodWW Rfe Podx Fre"],
            "1:11: unknown edge `Podx`",
        ),
        (
            vec!["diy", "--cycle", "PodWW Rfe PodWR Fre"],
            "starts at a write",
        ),
        (
            vec![
                "diy",
                "--cycle",
                "PodWW Rfe PodRR Fre",
                "--placement",
                "grid",
            ],
            "--placement",
        ),
        (
            vec![
                "diy",
                "--cycle",
                "PodWW Rfe PodRR Fre",
                "--placement",
                "cta",
                "--region",
                "shared",
            ],
            "shared memory belongs to one CTA",
        ),
        (
            vec![
                "diy",
                "--cycle",
                "PodWW Rfe PodRR Fre",
                "--region",
                "q=shared",
            ],
            "no location `q`",
        ),
        (
            vec![
                "diy",
                "--cycle",
                "FencedWW Rfe PodRR Fre",
                "--fence",
                "mfence",
            ],
            "unknown fence",
        ),
        // Options of the other mode are refused, not ignored.
        (
            vec![
                "diy",
                "--enumerate",
                "--out",
                "/nonexistent",
                "--placement",
                "cta",
            ],
            "cannot be used with",
        ),
        (
            vec!["diy", "--cycle", "PodWW Rfe PodRR Fre", "--max-edges", "6"],
            "--enumerate",
        ),
    ] {
        let (code, out, err) = gpumc(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn json_and_out_give_the_verdicts_and_the_file() {
    let dir = std::env::temp_dir().join(format!("gpumc-diy-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (code, out, err) = gpumc(&[
        "diy",
        "--cycle",
        "Membar.gldWR Fre Membar.gldWR Fre",
        "--placement",
        "cta",
        "--out",
        d,
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["name"], "SB+membar.gls");
    assert_eq!(v["verdicts"][0]["model"], "ptx-v7.5");
    assert_eq!(v["verdicts"][0]["verdict"], "Forbidden");
    let file = v["file"].as_str().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains("Verdict=ptx-v7.5 Forbidden"));
    // The file checks as it says.
    let (code, out, _) = gpumc(&["check", file]);
    assert_eq!(code, 0);
    assert!(out.contains(": FAIL"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Enumerates into a fresh directory; returns the index rows and the
/// tests' texts.
fn enumerate(extra: &[&str]) -> (Vec<Vec<String>>, Vec<String>) {
    let dir = std::env::temp_dir().join(format!(
        "gpumc-diy-enum-{}-{}",
        std::process::id(),
        extra.join("")
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let mut args = vec!["diy", "--enumerate", "--out", d, "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = gpumc(&args);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(0), "{out}");
    let index = std::fs::read_to_string(dir.join("index.tsv")).unwrap();
    let rows: Vec<Vec<String>> = index
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let texts = rows
        .iter()
        .map(|r| std::fs::read_to_string(dir.join(&r[1]).join(format!("{}.litmus", r[2]))).unwrap())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    (rows, texts)
}

#[test]
fn enumeration_gives_every_critical_cycle_once_verified() {
    let (rows, texts) = enumerate(&[]);
    // Every test verified (the index has the model's word), each once up
    // to renaming of threads, registers and locations.
    assert!(rows
        .iter()
        .all(|r| r[3] == "Allowed" || r[3] == "Forbidden"));
    let mut seen = std::collections::BTreeMap::new();
    for (r, t) in rows.iter().zip(&texts) {
        if let Some(other) = seen.insert(invariant(t), format!("{}/{}", r[1], r[2])) {
            panic!("{}/{} and {other} are one test", r[1], r[2]);
        }
    }
    // The six two-thread families, in both basic placements and with
    // mixed regions (the thesis's Table 6.1 configuration).
    for f in ["MP", "SB", "LB", "S", "R", "2+2W"] {
        assert!(
            rows.iter().any(|r| r[2] == f && r[1] == "cta-01_reg-gg"),
            "{f}"
        );
    }
    // Symmetry: SB's "x shared, y global" is its "x global, y shared":
    // one of the two.
    let mixed = rows
        .iter()
        .filter(|r| r[2] == "SB" && (r[1] == "cta-00_reg-gs" || r[1] == "cta-00_reg-sg"))
        .count();
    assert_eq!(mixed, 1);
    // MP's are two tests (the writer's location shared, or the reader's
    // first).
    let mixed = rows
        .iter()
        .filter(|r| r[2] == "MP" && (r[1] == "cta-00_reg-gs" || r[1] == "cta-00_reg-sg"))
        .count();
    assert_eq!(mixed, 2);
    // A generated test says what the model says when checked as a file:
    // MP with membar.cta in both threads of one CTA is forbidden, in two
    // CTAs allowed.
    let find = |config: &str, name: &str| {
        rows.iter()
            .position(|r| r[1] == config && r[2] == name)
            .map(|i| rows[i][3].clone())
    };
    assert_eq!(
        find("cta-00_reg-gg", "MP+membar.ctas").as_deref(),
        Some("Forbidden")
    );
    assert_eq!(
        find("cta-01_reg-gg", "MP+membar.ctas").as_deref(),
        Some("Allowed")
    );
}

#[test]
fn six_edge_cycles_reach_three_and_four_threads() {
    let (rows, texts) = enumerate(&[
        "--max-edges",
        "6",
        "--basic-placements",
        "--global-only",
        "--orderings",
        "po,membar.gl",
    ]);
    for f in ["IRIW", "WRC", "ISA2", "RWC", "W+RWC", "3.SB", "3.LB"] {
        assert!(rows.iter().any(|r| r[2].starts_with(f)), "{f}");
    }
    let mut seen = std::collections::BTreeSet::new();
    for (r, t) in rows.iter().zip(&texts) {
        assert!(seen.insert(invariant(t)), "{}/{} twice", r[1], r[2]);
    }
}

/// A Vulkan test's threads, registers written `r` (each thread's lines
/// in order; the threads sorted), and its condition's conjuncts sorted.
fn vulkan_shape(text: &str) -> (Vec<Vec<String>>, Vec<String>) {
    let norm = |s: &str| -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(c);
            if c == 'r' {
                let prev = out.chars().rev().nth(1);
                if prev.is_none_or(|p| !p.is_ascii_alphanumeric()) {
                    while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                        chars.next();
                    }
                }
            }
        }
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let mut threads: Vec<Vec<String>> = Vec::new();
    let mut cond = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with("P0@") {
            in_code = true;
            threads = vec![Vec::new(); l.split('|').count()];
            continue;
        }
        if l.starts_with("exists") {
            in_code = false;
            continue;
        }
        if in_code && l.ends_with(';') {
            for (t, c) in l.trim_end_matches(';').split('|').enumerate() {
                if !c.trim().is_empty() {
                    threads[t].push(norm(c.trim()));
                }
            }
        } else if l.starts_with('(') {
            cond = l
                .trim_matches(|c| c == '(' || c == ')')
                .split("/\\")
                .map(|c| norm(c.trim()))
                .collect();
            cond.sort();
        }
    }
    threads.sort();
    (threads, cond)
}

#[test]
fn the_thesis_vulkan_translations_are_regenerated_with_their_verdicts() {
    let same = |a: &str, b: &str| vulkan_shape(a) == vulkan_shape(b);
    let checked = regenerate_thesis("vulkan", &["--arch", "vulkan"], &["vulkan"], same);
    assert!(checked >= 50, "only {checked} Vulkan tests regenerated");
    eprintln!("{checked} thesis Vulkan translations regenerated from their cycles");
}

/// The index of an enumeration: (cycle, configuration) → verdicts.
fn index_verdicts(
    rows: &[Vec<String>],
) -> std::collections::BTreeMap<(String, String), Vec<String>> {
    rows.iter()
        .map(|r| ((r[0].clone(), r[1].clone()), r[3..].to_vec()))
        .collect()
}

#[test]
fn herd_and_dat3m_ptx_dialects_get_the_same_verdicts() {
    // One set of cycles written in both PTX dialects (`.cg` accesses and
    // `membar` in herd's, `.weak` and `fence.sc` in Dat3M's) must get one
    // verdict per model: the printers, not the models, are tested.
    let common = [
        "--max-edges",
        "6",
        "--max-threads",
        "3",
        "--basic-placements",
        "--global-only",
        "--orderings",
        "po,membar.cta,membar.gl",
        "--model",
        "ptx-v7.5",
        "--model",
        "ptx-v6.0",
    ];
    let (herd, _) = enumerate(&[&common[..], &["--arch", "ptx"]].concat());
    let (dat3m, texts) = enumerate(&[&common[..], &["--arch", "ptx-dat3m"]].concat());
    assert!(texts.iter().all(|t| t.starts_with("PTX ")));
    assert!(herd.len() > 200, "{}", herd.len());
    assert_eq!(index_verdicts(&herd), index_verdicts(&dat3m));
}

#[test]
fn scoped_c_tests_follow_the_papers_examples() {
    // Fig. 6 of Lustig et al., ASPLOS'19 (examples/c/SB+fences.ctas):
    // work-group fences in two CTAs do not forbid store buffering;
    // device-scope ones do.
    let verdict = |args: &[&str]| {
        let (code, out, err) = gpumc(&[&["diy", "--arch", "c"][..], args].concat());
        assert_eq!(code, 0, "{err}");
        out.lines()
            .find(|l| l.starts_with("Verdict="))
            .unwrap_or("")
            .to_string()
    };
    let sb_cta = [
        "--cycle",
        "Membar.ctadWR Fre Membar.ctadWR Fre",
        "--placement",
        "cta",
    ];
    assert_eq!(verdict(&sb_cta), "Verdict=scoped-c11 Allowed");
    let sb_gl = [
        "--cycle",
        "Membar.gldWR Fre Membar.gldWR Fre",
        "--placement",
        "cta",
    ];
    assert_eq!(verdict(&sb_gl), "Verdict=scoped-c11 Forbidden");
    // Load buffering with data dependencies: scoped C11 (no No-Thin-Air)
    // allows it, scoped RC11 forbids it (examples/c/LB+datas).
    let (_, out, _) = gpumc(&[
        "diy",
        "--arch",
        "c",
        "--cycle",
        "DpDatadW Rfe DpDatadW Rfe",
        "--model",
        "scoped-c11",
        "--model",
        "scoped-rc11",
    ]);
    assert!(
        out.contains("Verdict=scoped-c11 Allowed\nVerdict=scoped-rc11 Forbidden\n"),
        "{out}"
    );
    // What the dialect does not have is refused, not approximated.
    for (args, says) in [
        (
            vec!["--cycle", "PodWW Rfe DpAddrdR Fre"],
            "address dependency",
        ),
        (
            vec!["--cycle", "PodWW Rfe PodRR Fre", "--region", "shared"],
            "shared memory",
        ),
    ] {
        let (code, _, err) = gpumc(&[&["diy", "--arch", "c"][..], &args].concat());
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(says), "{err}");
    }
    let (code, _, err) = gpumc(&[
        "diy",
        "--arch",
        "ptx-dat3m",
        "--cycle",
        "DpDatadW Rfe DpDatadW Rfe",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("data and control dependencies"), "{err}");
}
