//! Our CUDA race suite (`examples/cuda/*.cu`, and the sample-style kernels
//! of `examples/cuda/scale/*.cu` at their small launches), compiled to PTX
//! by clang's NVPTX back-end at -O0 and -O1 (`examples/cuda/compile.sh`),
//! each kernel checked with `gpumc check --property races`: the verdict and
//! the set of racing CUDA line pairs must be the annotated ones
//! (`examples/cuda/README.md`, "Annotations").
//!
//! Without clang the test says so and skips; CI installs it and sets
//! `GPUMC_REQUIRE_CLANG=1`, which makes a missing clang a failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One annotated kernel of a `.cu` file.
#[derive(Debug)]
struct Kernel {
    name: String,
    /// Launch options, with CUDA argument names turned into positions.
    launch: Vec<String>,
    options: Vec<String>,
    /// Expected racing line pairs at -O0 and -O1 (`None`: "no race").
    expect: [BTreeSet<(u32, u32)>; 2],
    /// The CUDA names of the arguments.
    args: Vec<String>,
    /// The `gpumc-scale:` lines, as written.
    scale: Vec<String>,
}

fn pair(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// The CUDA names of a kernel's arguments, from `(int *p, unsigned n)`.
fn arg_names(sig: &str) -> Vec<String> {
    let inner = sig
        .split_once('(')
        .and_then(|(_, r)| r.rsplit_once(')'))
        .map_or("", |(a, _)| a);
    inner
        .split(',')
        .filter(|a| !a.trim().is_empty())
        .map(|a| {
            let last = a.split_whitespace().last().unwrap_or("");
            last.trim_start_matches('*').to_string()
        })
        .collect()
}

/// The annotated kernels of a file.
fn kernels(cu: &Path) -> Vec<Kernel> {
    let text = std::fs::read_to_string(cu).unwrap();
    let mut out = Vec::new();
    let mut notes: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.starts_with("// gpumc-") || line.starts_with("// why:") {
            notes.push(line);
            continue;
        }
        if !line.contains("__global__") {
            if !line.trim().is_empty() {
                notes.clear();
            }
            continue;
        }
        let name = line
            .split("void")
            .nth(1)
            .and_then(|r| r.split('(').next())
            .map(str::trim)
            .unwrap_or_else(|| panic!("{}: no kernel name in `{line}`", cu.display()))
            .to_string();
        let args = arg_names(line);
        let field = |key: &str| -> Vec<&str> {
            notes
                .iter()
                .filter_map(|l| l.strip_prefix(&format!("// {key}:")))
                .map(str::trim)
                .collect()
        };
        let launch_lines = field("gpumc-launch");
        assert_eq!(
            launch_lines.len(),
            1,
            "{}: kernel {name}: one gpumc-launch line",
            cu.display()
        );
        let mut launch: Vec<String> = launch_lines[0]
            .split_whitespace()
            .map(String::from)
            .collect();
        for i in 0..launch.len() {
            if launch[i] == "--param" {
                let (k, v) = launch[i + 1].split_once('=').expect("NAME=VALUE");
                if let Some(pos) = args.iter().position(|a| a == k) {
                    launch[i + 1] = format!("{pos}={v}");
                }
            }
        }
        let options = field("gpumc-options")
            .iter()
            .flat_map(|l| l.split_whitespace().map(String::from))
            .collect();
        let parse = |lines: Vec<&str>| -> BTreeSet<(u32, u32)> {
            let mut set = BTreeSet::new();
            for l in lines {
                let w: Vec<&str> = l.split_whitespace().collect();
                match w.as_slice() {
                    ["no", "race"] => {}
                    ["race", a, b] => {
                        set.insert(pair(a.parse().unwrap(), b.parse().unwrap()));
                    }
                    _ => panic!("{}: kernel {name}: bad expectation `{l}`", cu.display()),
                }
            }
            set
        };
        let plain = field("gpumc-expect");
        let level = |lvl: &str| {
            let own = field(&format!("gpumc-expect-{lvl}"));
            assert!(
                !own.is_empty() || !plain.is_empty(),
                "{}: kernel {name}: no expectation for -{lvl}",
                cu.display()
            );
            parse(if own.is_empty() { plain.clone() } else { own })
        };
        out.push(Kernel {
            name: name.clone(),
            launch,
            options,
            expect: [level("O0"), level("O1")],
            scale: field("gpumc-scale").iter().map(|l| l.to_string()).collect(),
            args,
        });
        notes.clear();
    }
    out
}

/// The `.cu` files of a folder, sorted.
fn cu_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    files
}

fn clang() -> Option<String> {
    let c = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let ok = Command::new(&c)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(c)
}

/// The line of a `file:line:col` source position (0 when unknown).
fn source_line(v: &serde_json::Value) -> u32 {
    v.as_str()
        .and_then(|s| s.rsplit(':').nth(1))
        .and_then(|l| l.parse().ok())
        .unwrap_or(0)
}

#[test]
fn every_kernel_gets_its_verdict_and_racing_lines_at_o0_and_o1() {
    let Some(clang) = clang() else {
        assert!(
            std::env::var_os("GPUMC_REQUIRE_CLANG").is_none(),
            "GPUMC_REQUIRE_CLANG is set but clang was not found"
        );
        eprintln!("skipping: clang (with the NVPTX back-end) not found; install it to compile examples/cuda");
        return;
    };
    let dir = std::env::temp_dir().join(format!("gpumc-cuda-test-{}", std::process::id()));
    // examples/cuda and examples/cuda/scale, each compiled into a folder of
    // its own (both have a reduction.cu).
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for sub in ["", "scale"] {
        let out = dir.join(if sub.is_empty() { "top" } else { sub });
        let cus = cu_files(&root().join("examples/cuda").join(sub));
        let st = Command::new("sh")
            .arg(root().join("examples/cuda/compile.sh"))
            .arg("-o")
            .arg(&out)
            .args(&cus)
            .env("CLANG", &clang)
            .output()
            .unwrap();
        assert!(
            st.status.success(),
            "compile.sh failed:\n{}{}",
            String::from_utf8_lossy(&st.stdout),
            String::from_utf8_lossy(&st.stderr)
        );
        files.extend(cus.into_iter().map(|cu| (cu, out.clone())));
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for (cu, out_dir) in &files {
        let stem = cu.file_stem().unwrap().to_str().unwrap();
        for k in kernels(cu) {
            for (li, lvl) in ["O0", "O1"].iter().enumerate() {
                let ptx = out_dir.join(format!("{stem}.{lvl}.ptx"));
                let out = Command::new(env!("CARGO_BIN_EXE_gpumc"))
                    .args([
                        "check",
                        "--property",
                        "races",
                        "--json",
                        "--kernel",
                        &k.name,
                    ])
                    .args(&k.launch)
                    .args(&k.options)
                    .arg(&ptx)
                    .output()
                    .unwrap();
                checked += 1;
                let stdout = String::from_utf8_lossy(&out.stdout);
                let Ok(r) =
                    serde_json::from_str::<serde_json::Value>(stdout.lines().next().unwrap_or(""))
                else {
                    failures.push(format!(
                        "{stem}/{} -{lvl}: no report: {}",
                        k.name,
                        String::from_utf8_lossy(&out.stderr)
                    ));
                    continue;
                };
                let verdict = r["verdict"].as_str().unwrap_or("");
                let got: BTreeSet<(u32, u32)> = r["races"]
                    .as_array()
                    .map(|v| {
                        v.iter()
                            .map(|x| {
                                pair(source_line(&x["source"][0]), source_line(&x["source"][1]))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let want = &k.expect[li];
                let want_verdict = if want.is_empty() { "PASS" } else { "FAIL" };
                if verdict != want_verdict || &got != want || r["races_complete"] == false {
                    failures.push(format!(
                        "{stem}/{} -{lvl}: {verdict} with racing lines {got:?}, expected {want_verdict} with {want:?} ({})",
                        k.name,
                        r["message"].as_str().unwrap_or("")
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        checked >= 180,
        "only {checked} kernel checks: annotations lost?"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} checks differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn annotations_are_read_as_written() {
    let ks = kernels(&root().join("examples/cuda/basic_shared.cu"));
    let k = ks.iter().find(|k| k.name == "shared_no_barrier").unwrap();
    assert_eq!(
        k.launch,
        ["--grid", "2", "--block", "4", "--param", "0=buf:32", "--param", "1=buf:32"]
    );
    assert_eq!(k.expect[0], BTreeSet::from([(17, 18)]));
    assert_eq!(k.expect[1], k.expect[0]);
    let ks = kernels(&root().join("examples/cuda/basic_global.cu"));
    let k = ks.iter().find(|k| k.name == "branch_two_writers").unwrap();
    assert_ne!(k.expect[0], k.expect[1], "an -O1 override");
    let ks = kernels(&root().join("examples/cuda/atomics.cu"));
    let k = ks
        .iter()
        .find(|k| k.name == "atomic_cas_loop_volatile")
        .unwrap();
    assert_eq!(k.options, ["--bound", "3"]);
}

/// The `gpumc-scale:` lines of `examples/cuda/scale` (read by
/// `bench/kernels_at_scale.sh`, not run here): every kernel has one at
/// least, each a grid and a block within CUDA's limits, `--param`s that name
/// the kernel's arguments with integer expressions of GX, GY, GZ, and one
/// launch of 262,144 threads or more.
#[test]
fn scale_kernels_have_real_launches() {
    let files = cu_files(&root().join("examples/cuda/scale"));
    assert!(files.len() >= 6, "examples/cuda/scale: {files:?}");
    for cu in &files {
        for k in kernels(cu) {
            let here = format!("{}: {}", cu.display(), k.name);
            assert!(!k.scale.is_empty(), "{here}: no gpumc-scale line");
            let mut largest = 0u64;
            for line in &k.scale {
                let w: Vec<&str> = line.split_whitespace().collect();
                let dims = |flag: &str| -> u64 {
                    let i = w
                        .iter()
                        .position(|x| *x == flag)
                        .unwrap_or_else(|| panic!("{here}: `{line}` has no {flag}"));
                    w[i + 1]
                        .split(',')
                        .map(|d| d.parse::<u64>().unwrap())
                        .product()
                };
                let (grid, block) = (dims("--grid"), dims("--block"));
                assert!(
                    (1..=1024).contains(&block),
                    "{here}: block of {block} threads"
                );
                largest = largest.max(grid * block);
                for (i, x) in w.iter().enumerate() {
                    if *x != "--param" {
                        continue;
                    }
                    let (name, value) = w[i + 1].split_once('=').expect("NAME=VALUE");
                    assert!(
                        k.args.iter().any(|a| a == name),
                        "{here}: no argument `{name}`"
                    );
                    let expr = value.rsplit(':').next().unwrap();
                    assert!(
                        !expr.is_empty()
                            && expr
                                .chars()
                                .all(|c| c.is_ascii_digit() || "GXYZ+-*/()".contains(c)),
                        "{here}: `{value}` is not an expression of GX, GY, GZ"
                    );
                }
            }
            assert!(
                largest >= 262_144,
                "{here}: the largest launch has {largest} threads"
            );
        }
    }
}
