//! CUDA sources checked directly (`gpumc check kernel.cu`): compiled by
//! clang's NVPTX back-end with our header, the kernel chosen by its CUDA
//! name, the source's launch lines applied, race reports at `.cu` lines,
//! compile errors at their `file:line:col`, a missing compiler named with
//! its package. Skips without clang unless `GPUMC_REQUIRE_CLANG` is set
//! (CI sets it).

fn gpumc(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    gpumc_testutil::run_env(env!("CARGO_BIN_EXE_gpumc"), args, env)
}

fn have_clang() -> bool {
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    gpumc_testutil::tools_or_skip(&[&clang], "GPUMC_REQUIRE_CLANG", "the `clang` package")
}

const HIST: &str = "tests/data/cuda/histogram.cu";

#[test]
fn a_cuda_histogram_is_checked_from_source_with_cuda_lines() {
    if !have_clang() {
        return;
    }
    let (code, out, err) = gpumc(
        &[
            "check",
            "--property",
            "races",
            "--json",
            HIST,
            "--kernel",
            "histogram",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let v = if v.is_array() { v[0].clone() } else { v };
    assert_eq!(v["verdict"], "FAIL", "{v}");
    // The launch line of the source: 4 blocks of 64 threads.
    assert_eq!(v["engine"], "parametric", "{v}");
    let lines: Vec<String> = v["races"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["source"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    assert!(
        !lines.is_empty()
            && lines
                .iter()
                .all(|s| s.starts_with("tests/data/cuda/histogram.cu:10:")),
        "{v}"
    );
    let (_, out, _) = gpumc(
        &[
            "check",
            "--property",
            "races",
            HIST,
            "--kernel",
            "histogram_atomic",
        ],
        &[],
    );
    assert!(out.contains(": PASS "), "{out}");
}

#[test]
fn cuda_sources_choose_kernels_by_name_and_report_errors_in_the_source() {
    if !have_clang() {
        return;
    }
    // Two kernels and no --kernel: both named, with their CUDA names.
    let (code, out, _) = gpumc(&["check", "--property", "races", HIST], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("histogram (_Z9histogramPKiPi)"), "{out}");
    // A compile error at its position in the .cu file.
    let dir = std::env::temp_dir().join(format!("gpumc-cuda-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.cu");
    std::fs::write(
        &bad,
        "__global__ void k(int *p) {\n  p[0] = undeclared;\n}\n",
    )
    .unwrap();
    let bad = bad.display().to_string();
    let (code, out, _) = gpumc(&["check", "--property", "races", &bad], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("bad.cu:2:10: clang: use of undeclared identifier 'undeclared'"),
        "{out}"
    );
    // No compiler: the package that provides one.
    let (code, out, _) = gpumc(
        &["check", "--property", "races", &bad],
        &[("CLANG", "/nonexistent/clang")],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("install the `clang` package"), "{out}");
    // A race check of kernel `src` written to `dir/name` at `launch`.
    let races_of = |name: &str, src: &str, launch: &[&str]| {
        let file = dir.join(name);
        std::fs::write(&file, src).unwrap();
        let file = file.display().to_string();
        let mut args = vec!["check", "--property", "races", &file];
        args.extend(launch);
        let (code, out, _) = gpumc(&args, &[]);
        (code, out)
    };
    // A kernel the translation refuses: at the CUDA line of the access,
    // naming the compiled line, not at the PTX line as if in the .cu file.
    let (code, out) = races_of(
        "unsized.cu",
        "extern \"C\" __global__ void k(int n, const int *x, int *y) {\n  for (int i = threadIdx.x; i < n; i += blockDim.x)\n    y[i] = x[i];\n}\n",
        &["--engine", "symbolic", "--grid", "1", "--block", "2"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("unsized.cu:3:"), "{out}");
    assert!(out.contains("needs the buffer's size"), "{out}");
    assert!(out.contains("of the compiled program)"), "{out}");
    // Dynamic shared memory of unknown size: assumed large enough, and the
    // note names the option that gives its size.
    let (code, out) = races_of(
        "dynamic.cu",
        "extern \"C\" __global__ void k(int *y) {\n  extern __shared__ int s[];\n  s[threadIdx.x] = 1;\n  __syncthreads();\n  y[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x ^ 1];\n}\n",
        &["--grid", "1024", "--block", "256"],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("PASS"), "{out}");
    assert!(
        out.contains("`dynamic_smem` is large enough for every access (give the dynamic shared memory with `--shared-bytes N`)"),
        "{out}"
    );
}

/// A folder given on the command line is walked for GLSL shaders too
/// (one entry point each), not for CUDA sources (several kernels each,
/// chosen by name).
#[test]
fn folders_are_walked_for_glsl_shaders_not_cuda_sources() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let files = gpumc::driver::expand_paths(&[root]).expect("tests/data is walked");
    for want in ["glsl/histogram.comp", "glsl/shared-reverse.comp"] {
        assert!(
            files.iter().any(|f| f.ends_with(want)),
            "{want} not in {files:?}"
        );
    }
    assert!(
        !files
            .iter()
            .any(|f| f.extension().is_some_and(|e| e == "cu")),
        "{files:?}"
    );
}

/// Barrier divergence (docs/SEMANTICS.md) is found in the kernels of
/// tests/data/cuda/barriers.cu whose comments say so, at the CUDA line of
/// the barrier, and not in the kernels whose barriers every thread of a
/// block passes alike.
#[test]
fn barrier_divergence_is_found_where_the_comments_say() {
    if !have_clang() {
        return;
    }
    const BARRIERS: &str = "tests/data/cuda/barriers.cu";
    for (kernel, divergent_at) in [
        ("half_block", Some("barriers.cu:12:5")),
        ("per_block", None),
        ("ragged_loop", Some("barriers.cu:34:5")),
        ("even_loop", None),
        ("first_warp_only", None),
        ("first_warp_loop", None),
    ] {
        let (code, out, err) = gpumc(
            &[
                "check", "--json", "--bound", "4", BARRIERS, "--kernel", kernel,
            ],
            &[],
        );
        assert_eq!(code, 0, "{kernel}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        let note = v["message"].as_str().unwrap_or_default().to_string();
        match divergent_at {
            Some(at) => {
                assert_eq!(v["verdict"], "FAIL", "{kernel}: {v}");
                assert!(
                    note.contains("barrier divergence") && note.contains(at),
                    "{kernel}: {note}"
                );
            }
            None => assert!(
                v["verdict"] != "FAIL" && !note.contains("divergence"),
                "{kernel}: {v}"
            ),
        }
    }
}

/// A barrier waits for the threads of its block that have not exited
/// (tests/data/cuda/handover.cu): a block that synchronises after one of
/// its threads waited for a flag is race-free, without that thread's
/// fence it races, and a race before a barrier that never opens is found
/// in the prefix where a thread waits there — in both engines.
#[test]
fn a_barrier_waits_for_the_thread_that_spins() {
    if !have_clang() {
        return;
    }
    const HANDOVER: &str = "tests/data/cuda/handover.cu";
    for (kernel, race) in [
        ("wait_then_sync", None),
        (
            "wait_then_sync_no_fence",
            Some(("handover.cu:34:", "handover.cu:44:")),
        ),
        (
            "race_then_wait",
            Some(("handover.cu:54:", "handover.cu:58:")),
        ),
    ] {
        for engine in ["symbolic", "explicit"] {
            let (code, out, err) = gpumc(
                &[
                    "check",
                    "--json",
                    "--property",
                    "races",
                    "--engine",
                    engine,
                    HANDOVER,
                    "--kernel",
                    kernel,
                ],
                &[],
            );
            assert_eq!(code, 0, "{kernel}: {err}");
            let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
            match race {
                None => assert_eq!(v["verdict"], "PASS", "{kernel} ({engine}): {v}"),
                Some((a, b)) => {
                    assert_eq!(v["verdict"], "FAIL", "{kernel} ({engine}): {v}");
                    let pair = v["races"][0].to_string();
                    assert!(
                        pair.contains(a) && pair.contains(b),
                        "{kernel} ({engine}): {pair}"
                    );
                }
            }
        }
    }
}

/// A CUDA source's kernel parameters go by their CUDA names: in
/// `--param` and in the reports (clang's PTX calls them `…_param_0`).
#[test]
fn cuda_parameters_go_by_their_source_names() {
    if !have_clang() {
        return;
    }
    let (code, out, err) = gpumc(
        &[
            "check",
            "--property",
            "races",
            HIST,
            "--kernel",
            "histogram",
            "--grid",
            "1",
            "--block",
            "4",
            "--engine",
            "symbolic",
            "--param",
            "keys=buf:16",
            "--param",
            "bins=buf:64",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(": FAIL ") && out.contains("on bins["), "{out}");
    assert!(out.contains("keys[0]=") && !out.contains("param_"), "{out}");
}

/// A launch line written just before a kernel (comment lines between,
/// nothing else) is that kernel's: examples/cuda/scale/reduction.cu gives
/// each of its kernels its own `--param` list, checked from the source.
#[test]
fn launch_lines_before_a_kernel_are_that_kernels() {
    if !have_clang() {
        return;
    }
    const RED: &str = "examples/cuda/scale/reduction.cu";
    for (kernel, verdict) in [
        ("reduce_block", "PASS"),
        ("reduce_block_missing_barrier", "FAIL"),
        ("reduce_block_atomic", "PASS"),
    ] {
        let (code, out, err) = gpumc(
            &[
                "check",
                "--property",
                "races",
                "--json",
                RED,
                "--kernel",
                kernel,
            ],
            &[],
        );
        assert_eq!(code, 0, "{kernel}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        assert_eq!(v["verdict"], verdict, "{kernel}: {v}");
    }
}

/// A `.cu` file written to a fresh temporary folder (removed on drop).
struct Source {
    dir: std::path::PathBuf,
    path: String,
}

impl Source {
    fn new(tag: &str, src: &str) -> Source {
        let dir = std::env::temp_dir().join(format!("gpumc-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join(format!("{tag}.cu"));
        std::fs::write(&f, src).unwrap();
        let path = f.to_str().unwrap().to_string();
        Source { dir, path }
    }

    /// `--property races` on `kernel` at `grid` x `block` with `extra`
    /// options: the exit status and stdout + stderr.
    fn check(&self, kernel: &str, grid: &str, block: &str, extra: &[&str]) -> (i32, String) {
        let mut args = vec![
            "check",
            "--property",
            "races",
            &self.path,
            "--kernel",
            kernel,
        ];
        args.extend(["--grid", grid, "--block", block]);
        args.extend(extra);
        let (code, out, err) = gpumc(&args, &[]);
        (code, out + &err)
    }
}

impl Drop for Source {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Atomics of two sizes on overlapping bytes are never morally strong
/// (they overlap in part); the parametric engine's judgement of a pair on
/// one location would call them race-free, so it refuses them, as the
/// concrete engines do: an error at the source line, never a PASS.
#[test]
fn atomics_overlapping_in_part_are_refused_not_passed() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "mixed",
        "extern \"C\" __global__ void mixed(unsigned long long *c) {\n  if (threadIdx.x == 0)\n    atomicAdd(c, 1ull);\n  else\n    atomicAdd((unsigned *)c + 1, 1u);\n}\n",
    );
    for engine in ["auto", "parametric"] {
        let (code, out) = src.check("mixed", "1", "2", &["--engine", engine]);
        assert_eq!(code, 2, "{engine}: {out}");
        assert!(out.contains("mixed-size access"), "{engine}: {out}");
    }
}

/// C++ kernels are chosen by their source names: a template instance
/// (`reduce<64>`), a kernel in a namespace (`ns::scale`, or `scale`), and
/// an overloaded name is an error that lists the candidates.
#[test]
fn cpp_kernels_are_chosen_by_qualified_and_template_names() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "cpp",
        "template <int B> __global__ void reduce(int *out) { out[blockIdx.x * B + threadIdx.x] = 1; }\n\
         template __global__ void reduce<64>(int *);\n\
         template __global__ void reduce<0>(int *);\n\
         namespace ns { __global__ void scale(float *x) { x[threadIdx.x] = 1.0f; } }\n\
         __global__ void twice(int *x) { x[0] = 1; }\n\
         __global__ void twice(float *x) { x[0] = 1.0f; }\n\
         template <int A, int B> __global__ void pair(int *o) { o[A * threadIdx.x + B] = 1; }\n\
         template __global__ void pair<1, 2>(int *);\n",
    );
    let verdict = |kernel: &str| src.check(kernel, "2", "64", &[]);
    // Template arguments spelled with or without clang's spaces.
    for name in ["pair<1, 2>", "pair<1,2>", "pair< 1,2 >"] {
        let (code, out) = verdict(name);
        assert!(code == 0 && out.contains("FAIL"), "{name}: {out}");
    }
    // reduce<64>: each thread its own word; reduce<0>: both blocks on one.
    let (code, out) = verdict("reduce<64>");
    assert!(code == 0 && out.contains("PASS"), "{out}");
    let (code, out) = verdict("reduce<0>");
    assert!(code == 0 && out.contains("FAIL"), "{out}");
    let (code, out) = verdict("reduce");
    assert!(code == 2 && out.contains("names 2 kernels"), "{out}");
    for name in ["ns::scale", "scale"] {
        let (code, out) = verdict(name);
        assert!(code == 0 && out.contains("FAIL"), "{name}: {out}");
    }
    let (code, out) = verdict("twice");
    assert!(code == 2 && out.contains("_Z5twicePi"), "{out}");
}

/// A kernel that includes system headers for its types and math (as CUDA
/// code does) compiles with our header: its typedefs agree with theirs,
/// and its math functions are device overloads beside the host ones.
#[test]
fn system_headers_and_math_functions_compile_beside_ours() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "sys",
        "#include <math.h>\n#include <stdint.h>\n\
         extern \"C\" __global__ void k(float *x, uint64_t *n) {\n\
           x[threadIdx.x] = sqrtf(fabsf(x[threadIdx.x]));\n\
           atomicAdd(n, (uint64_t)1);\n\
         }\n",
    );
    let (code, out) = src.check("k", "1", "4", &[]);
    assert!(code == 0 && out.contains("PASS"), "{out}");
}

/// A race's witness names the input cells the two threads read; the text
/// shows the first twelve and a count, JSON keeps every one (two threads
/// summing 20 cells each read 40).
#[test]
fn witness_inputs_are_capped_in_text_and_whole_in_json() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "rows",
        "extern \"C\" __global__ void rows(int *out, const int *a) {\n  int s = 0;\n  for (int i = 0; i < 20; i++)\n    s += a[threadIdx.x * 20 + i];\n  *out = s;\n}\n",
    );
    let (code, out) = src.check("rows", "1", "2", &[]);
    assert_eq!(code, 0, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("witness of the first race"))
        .unwrap_or_else(|| panic!("{out}"));
    assert_eq!(line.matches("]=").count(), 12, "{line}");
    assert!(line.contains("and 28 more input cells"), "{line}");
    let (code, json) = src.check("rows", "1", "2", &["--json"]);
    assert_eq!(code, 0, "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let inputs = v["races"][0]["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 40, "{json}");
    assert!(inputs.iter().any(|c| c == "a[39]=-1"), "{json}");
}

/// A shared-memory histogram at a small block: each thread zeroes every
/// eighth of 64 bins, so the zeroing loop needs bound 8, past the
/// parametric engine's first four; without `--max-bound` it goes on
/// raising the bound (within a small time budget) rather than handing
/// the launch to the concrete engine, for which the byte keys' addresses
/// are costly. The missing barrier's race is found with a witness whose
/// byte keys are shown in hexadecimal (a byte does not say whether it
/// is read as signed or unsigned: `0xfe`, not `-2`).
#[test]
fn a_tile_loop_at_a_small_block_is_checked_at_the_bound_it_needs() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "shist",
        "#define BINS 64\n\
         __global__ void shist(const unsigned char *keys, unsigned *hist, int n, int barrier) {\n\
         \x20 __shared__ unsigned h[BINS];\n\
         \x20 for (int b = threadIdx.x; b < BINS; b += blockDim.x) h[b] = 0;\n\
         \x20 if (barrier) __syncthreads();\n\
         \x20 for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n\
         \x20   atomicAdd(&h[keys[i] % BINS], 1u);\n\
         \x20 __syncthreads();\n\
         \x20 for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], h[b]);\n\
         }\n",
    );
    let params = [
        "--param",
        "n=64",
        "--param",
        "keys=buf:64",
        "--param",
        "hist=buf:256",
    ];
    let with = |barrier: &str| {
        let mut extra = params.to_vec();
        let b = format!("barrier={barrier}");
        extra.extend(["--param", &b, "--json"]);
        let (code, json) = src.check("shist", "2", "8", &extra);
        assert_eq!(code, 0, "{json}");
        serde_json::from_str::<serde_json::Value>(&json).unwrap_or_else(|e| panic!("{e}: {json}"))
    };
    let ok = with("1");
    assert_eq!(ok["verdict"], "PASS", "{ok}");
    assert_eq!(ok["engine"], "parametric", "{ok}");
    assert_eq!(ok["bound"], 8, "{ok}");
    let bad = with("0");
    assert_eq!(bad["verdict"], "FAIL", "{bad}");
    assert_eq!(bad["engine"], "parametric", "{bad}");
    let race = &bad["races"][0];
    assert!(
        race["source"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.as_str().unwrap().contains("shist.cu:4:")),
        "{race}"
    );
    // The racing bin is decided by a key: its witness value is a byte.
    let keys: Vec<&str> = race["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .filter(|c| c.starts_with("keys["))
        .collect();
    assert!(!keys.is_empty(), "{race}");
    for k in &keys {
        let v = k.split('=').nth(1).unwrap();
        let ok = match v.strip_prefix("0x") {
            Some(h) => u8::from_str_radix(h, 16).is_ok_and(|b| b >= 0x80),
            None => v.parse::<u8>().is_ok_and(|b| b < 0x80),
        };
        assert!(ok, "a byte key shown as {v}: {race}");
    }
    // With the bound capped at 4 (the engine's first bounds), the tile
    // loop is cut: the race check is not decided by the parametric engine.
    let mut capped = params.to_vec();
    capped.extend([
        "--param",
        "barrier=1",
        "--engine",
        "parametric",
        "--max-bound",
        "4",
    ]);
    let (_, out) = src.check("shist", "2", "8", &capped);
    assert!(out.contains(": UNKNOWN "), "{out}");
}

/// A byte field of a record written by one thread while another copies
/// the word around it: the race is named by both byte ranges, not by the
/// first access's element (which would read as a word index).
#[test]
fn a_race_between_a_field_and_the_word_around_it_names_both() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "records",
        "struct P { float x, y; int cell; short flags; char tag; };\n\
         __global__ void records(const P *in, P *out) {\n\
         \x20 __shared__ P sp[64];\n\
         \x20 unsigned t = threadIdx.x;\n\
         \x20 sp[t] = in[blockIdx.x * blockDim.x + t];\n\
         \x20 sp[(t + 1) % blockDim.x].tag = (char)t;\n\
         \x20 __syncthreads();\n\
         \x20 out[blockIdx.x * blockDim.x + t] = sp[t];\n\
         }\n",
    );
    let (code, out) = src.check("records", "1", "8", &["--engine", "parametric"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": FAIL "), "{out}");
    // Record k's `flags`/`tag` word is bytes 16k+12..16k+16; its `tag`
    // is byte 16k+14.
    let race = out
        .lines()
        .find(|l| l.contains("WAW on sp+"))
        .unwrap_or_else(|| panic!("{out}"));
    let on = race.split("WAW on ").nth(1).unwrap();
    let cells: Vec<(i64, u32)> = on
        .split(" (shared)")
        .next()
        .unwrap()
        .split(" and ")
        .map(|c| {
            let (off, size) = c.trim_start_matches("sp+").split_once(':').unwrap();
            (off.parse().unwrap(), size.parse().unwrap())
        })
        .collect();
    assert_eq!(cells.len(), 2, "{race}");
    let (word, byte) = if cells[0].1 == 1 {
        (cells[1], cells[0])
    } else {
        (cells[0], cells[1])
    };
    assert_eq!(byte.1, 1, "{race}");
    assert!(word.0 % 16 == 12 && byte.0 == word.0 + 2, "{race}");
}

/// Warp collectives and `__syncthreads_count`/`_or` whose results decide
/// which threads write (tests/data/cuda/warp_collectives.cu): each lane
/// gets the warp's ballot and its source lane's shuffled value, each
/// thread the block's reduction — so the race-free kernels pass at a
/// launch the concrete engines check, and no result is an arbitrary
/// value the report would have to assume. At a launch only the
/// parametric engine takes, the exchanged values are values other
/// threads wrote: a race that depends on them is not confirmed (UNKNOWN,
/// never a FAIL without a witness).
#[test]
fn warp_collectives_give_every_lane_the_same_answer() {
    if !have_clang() {
        return;
    }
    const WC: &str = "tests/data/cuda/warp_collectives.cu";
    let check = |kernel: &str, launch: [&str; 2], extra: &[&str]| {
        let mut args = vec![
            "check",
            "--property",
            "races",
            "--json",
            WC,
            "--kernel",
            kernel,
            "--grid",
            launch[0],
            "--block",
            launch[1],
        ];
        args.extend(extra);
        let (code, out, err) = gpumc(&args, &[]);
        assert_eq!(code, 0, "{kernel}: {out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        if v.is_array() {
            v[0].clone()
        } else {
            v
        }
    };
    let small = ["1", "8"];
    for (kernel, verdict, extra) in [
        ("ballot_leader", "PASS", &[][..]),
        ("ballot_all_write", "FAIL", &[]),
        (
            "aggregated_append",
            "PASS",
            &[
                "--param",
                "count=zeros:4",
                "--param",
                "out=buf:32",
                "--param",
                "in=buf:32",
            ][..],
        ),
        ("shfl_sum", "PASS", &[]),
        ("shfl_broadcast", "PASS", &[]),
        ("shfl_broadcast_bad", "FAIL", &[]),
        ("syncthreads_count", "PASS", &[]),
        ("syncthreads_or_loop", "PASS", &["--bound", "3"]),
        (
            "ballot_after_oob",
            "FAIL",
            &["--param", "out=buf:64", "--engine", "symbolic"],
        ),
    ] {
        let v = check(kernel, small, extra);
        assert_eq!(v["verdict"], verdict, "{kernel}: {v}");
        let assumed = v["assumptions"].to_string();
        assert!(
            !assumed.contains("arbitrary values in each thread"),
            "{kernel}: {v}"
        );
        if kernel == "ballot_after_oob" {
            let m = v["message"].as_str().unwrap_or_default();
            assert!(m.contains("out-of-bounds"), "{v}");
        }
    }
    for kernel in ["ballot_leader", "shfl_broadcast", "syncthreads_count"] {
        let v = check(kernel, ["1024", "256"], &[]);
        assert_ne!(v["verdict"], "FAIL", "{kernel}: {v}");
    }
    // The explicit engine too: its value domains take the exchanged
    // words, so the exchange is not vacuous there.
    let v = check(
        "syncthreads_count",
        small,
        &["--engine", "explicit", "--param", "out=zeros:64"],
    );
    assert_eq!(v["verdict"], "PASS", "{v}");
    assert!(v["vacuous"].is_null(), "{v}");
    assert!(v["executions"].as_u64().unwrap() >= 1, "{v}");
}

/// `popc`, `clz`, `brev` and `bfind` (`__ffs`) of values read from memory
/// are computed, not arbitrary: every state lists the input and the
/// results, which must be the intrinsics' definitions of that input.
#[test]
fn bit_intrinsics_of_run_time_values_are_computed() {
    if !have_clang() {
        return;
    }
    let (code, out, err) = gpumc(
        &[
            "check",
            "--property",
            "safety",
            "--json",
            "tests/data/cuda/bits.cu",
            "--kernel",
            "bits",
            "--grid",
            "1",
            "--block",
            "1",
            "--engine",
            "symbolic",
            "--max-states",
            "200",
        ],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let obs: Vec<String> = serde_json::from_value(v["observables"].clone()).unwrap();
    let states = v["states"].as_array().unwrap();
    assert!(states.len() >= 100, "{v}");
    for s in states {
        let s: Vec<i64> = serde_json::from_value(s.clone()).unwrap();
        let out = |k: usize| s[obs.iter().position(|o| *o == format!("out[{k}]")).unwrap()];
        let x = out(0) as u32;
        let y = out(5) as u64;
        let ffs = |z: u64| {
            if z == 0 {
                0
            } else {
                z.trailing_zeros() as i64 + 1
            }
        };
        let want = [
            i64::from(x.count_ones()),
            i64::from(x.leading_zeros()),
            i64::from(x.reverse_bits() as i32),
            ffs(u64::from(x)),
            out(5),
            i64::from(y.leading_zeros()),
            i64::from(y.count_ones()),
            ffs(y),
            31 - i64::from(x.leading_zeros()),
        ];
        let got: Vec<i64> = (1..10).map(out).collect();
        assert_eq!(got, want, "input {x:#x}, {y:#x}");
    }
}

/// A safety check whose loop bound cut an execution that may reach
/// undefined behaviour does not say "no undefined behaviour": it is
/// UNKNOWN with the reason, and `--max-bound` raises the bound until the
/// out-of-bounds store of the loop's second iteration is found.
#[test]
fn a_safety_check_cut_by_the_bound_is_not_a_pass() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "late_oob",
        "__global__ void late_oob(const int *in, int *out) {\n\
         \x20 int n = in[0];\n\
         \x20 for (int k = 0; k < n; ++k) {\n\
         \x20   if (k == 1) out[4] = k;\n\
         \x20   else out[k & 3] = k;\n\
         \x20 }\n\
         }\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "--property",
            "safety",
            "--json",
            &src.path,
            "--kernel",
            "late_oob",
            "--grid",
            "1",
            "--block",
            "1",
            "--param",
            "out=buf:16",
            "--engine",
            "symbolic",
        ];
        args.extend(extra);
        let (code, out, err) = gpumc(&args, &[]);
        assert_eq!(code, 0, "{out}{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let v = run(&[]);
    assert_eq!(v["verdict"], "UNKNOWN", "{v}");
    assert!(v["message"].as_str().unwrap().contains("--bound 1"), "{v}");
    let v = run(&["--max-bound", "4"]);
    assert_eq!(v["verdict"], "FAIL", "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("out-of-bounds"),
        "{v}"
    );
}

/// A device function's address passed as a kernel argument (the host got
/// it with `cudaMemcpyFromSymbol` of a `__device__` pointer): the call
/// reaches each function whose address the module takes, under an
/// assumption the report states — race-free when every one is, a race
/// when one of them races — rather than undefined behaviour for calling
/// "the address of a buffer".
#[test]
fn a_function_pointer_argument_calls_the_modules_functions() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "fparg",
        "typedef void (*op_t)(int *, const int *, int);\n\
         __device__ void op_copy(int *o, const int *in, int i) { o[i] = in[i]; }\n\
         __device__ void op_first(int *o, const int *in, int i) { o[0] = in[i]; }\n\
         __device__ op_t copy_ptr = op_copy;\n\
         __device__ op_t first_ptr = op_first;\n\
         __global__ void apply(int *o, const int *in, op_t f) {\n\
         \x20 f(o, in, blockIdx.x * blockDim.x + threadIdx.x);\n\
         }\n",
    );
    for (grid, block) in [("1", "4"), ("1024", "256")] {
        let (code, out) = src.check("apply", grid, block, &[]);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains(": FAIL "), "{out}");
        assert!(!out.contains("undefined behaviour"), "{out}");
        assert!(out.contains("WAW on o[0]"), "{out}");
        assert!(
            out.contains("the function pointer argument `f` holds the address of a function whose address the module takes (`op_copy`, `op_first`)"),
            "{out}"
        );
    }
}

/// A grid-stride loop whose trip count is an argument nobody gave, at a
/// launch the concrete engine could take but whose translation needs the
/// buffers' sizes: the parametric engine's UNKNOWN (with both reasons)
/// is the answer, not an ERROR that loses it.
#[test]
fn a_concrete_refusal_after_the_parametric_engine_keeps_its_answer() {
    if !have_clang() {
        return;
    }
    let src = Source::new(
        "saxpy",
        "__global__ void saxpy(const int *x, int *y, int a, int n) {\n\
         \x20 for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n\
         \x20   y[i] = a * x[i] + y[i];\n\
         }\n",
    );
    let (code, out) = src.check("saxpy", "1", "8", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": UNKNOWN "), "{out}");
    assert!(out.contains("parametric engine"), "{out}");
    assert!(out.contains("--param x=buf:BYTES"), "{out}");
    // Given the sizes and the trip count, it is decided.
    let (code, out) = src.check(
        "saxpy",
        "1",
        "8",
        &[
            "--param", "n=20", "--param", "x=buf:80", "--param", "y=buf:80",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(": PASS "), "{out}");
}

/// `__syncwarp()` orders the threads of one warp — at launches only the
/// parametric engine takes, too (tests/data/cuda/warp_sync.cu): the
/// warp-synchronous reduction passes at 1024 × 256, and without one of
/// its warp barriers fails with the two lines; two warps, or a lane that
/// exited before the barrier, are not ordered. The concrete engine gives
/// the same verdicts at one block of two warps.
#[test]
fn warp_barriers_order_the_threads_of_one_warp_at_any_launch() {
    if !have_clang() {
        return;
    }
    const WS: &str = "tests/data/cuda/warp_sync.cu";
    let check = |kernel: &str, launch: [&str; 2], engine: &str| {
        let args = [
            "check",
            "--property",
            "races",
            "--json",
            WS,
            "--kernel",
            kernel,
            "--grid",
            launch[0],
            "--block",
            launch[1],
            "--engine",
            engine,
        ];
        let (code, out, err) = gpumc(&args, &[]);
        assert_eq!(code, 0, "{kernel}: {out}{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    for (kernel, verdict) in [
        ("reduce_warp", "PASS"),
        ("reduce_warp_missing", "FAIL"),
        ("across_warps", "FAIL"),
        ("within_warp", "PASS"),
        ("exited_lane", "FAIL"),
    ] {
        let big = check(kernel, ["1024", "256"], "parametric");
        assert_eq!(big["verdict"], verdict, "{kernel}: {big}");
        let small = check(kernel, ["1", "64"], "symbolic");
        assert_eq!(small["verdict"], verdict, "{kernel}: {small}");
    }
    let v = check("reduce_warp_missing", ["1024", "256"], "parametric");
    let lines: Vec<String> = v["races"][0]["source"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().rsplit(':').nth(1).unwrap().to_string())
        .collect();
    assert_eq!(lines, ["55", "58"], "{v}");
}

/// Tables the module initialises and nobody writes (tests/data/cuda/
/// tables.cu) are read by value at every launch: a `__device__` table of
/// function pointers decides which function runs, a `__constant__`
/// permutation where each thread writes — so the parametric engine
/// passes the race-free kernels at 1024 × 256 (before, their contents
/// were arbitrary to it: an indirect call to any address, writes to any
/// cell) and finds the race of a table that is no permutation, with the
/// threads that collide. An index past the table is undefined behaviour.
#[test]
fn tables_initialised_in_the_module_are_read_by_value_at_any_launch() {
    if !have_clang() {
        return;
    }
    const T: &str = "tests/data/cuda/tables.cu";
    for (kernel, verdict) in [
        ("apply", "PASS"),
        ("apply_past_the_table", "FAIL"),
        ("permute", "PASS"),
        ("permute_bad", "FAIL"),
    ] {
        for (grid, block, engine) in [("1024", "256", "parametric"), ("2", "4", "symbolic")] {
            let args = [
                "check",
                "--property",
                "races",
                "--json",
                T,
                "--kernel",
                kernel,
                "--grid",
                grid,
                "--block",
                block,
                "--engine",
                engine,
            ];
            let (code, out, err) = gpumc(&args, &[]);
            assert_eq!(code, 0, "{kernel}: {out}{err}");
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["verdict"], verdict, "{kernel} {engine}: {v}");
            let m = v["message"].as_str().unwrap_or_default();
            assert_eq!(
                m.contains("out-of-bounds"),
                kernel == "apply_past_the_table",
                "{kernel} {engine}: {v}"
            );
            if kernel == "permute_bad" {
                let threads = v["races"][0]["threads"].to_string();
                let ids: Vec<u32> = threads
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|x| x.parse().ok())
                    .collect();
                // t<a>@b<x> and t<b>@b<y>: one block, lanes 0 and 2 of a
                // group of four.
                assert_eq!(ids[1], ids[3], "{threads}");
                let mut lanes = [ids[0] % 4, ids[2] % 4];
                lanes.sort();
                assert_eq!(lanes, [0, 2], "{threads}");
                assert_eq!(ids[0] / 4, ids[2] / 4, "{threads}");
            }
        }
    }
}
