//! The parametric engine against the concrete one on generated kernels
//! (docs/PTX-KERNELS.md, "Any launch size"): small PTX kernels with
//! global and shared accesses at indices computed from the thread and
//! block ids (or from a value read), guarded by the thread id, with
//! barriers and atomics, checked at a launch the concrete engine takes.
//! The parametric engine must never say PASS where the concrete engine
//! finds a race, every pair it reports must be one the concrete engine
//! finds, and when it lists its pairs as complete they must be all.
//! Its safety check (undefined behaviour: indices past the shared array,
//! division by values that may be zero) must agree with the concrete
//! engine's the same way.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a generated kernel may contain besides plain accesses.
#[derive(Clone, Copy, Default)]
struct Draw {
    /// Indices past the shared array, divisions.
    ub: bool,
    /// Loops that wait.
    waits: bool,
    /// Loads and stores of 1, 2 and 4 bytes (each at a multiple of its
    /// size), so accesses overlap without being equal.
    mixed: bool,
    /// Reads of a second buffer nobody writes (its two words are the
    /// launch's inputs): as indices, where two reads of one word must
    /// agree, and as stored values, where they need not.
    inputs: bool,
    /// Warp barriers (`bar.warp.sync`) and threads that exit early, at a
    /// launch of two warps (one of 32 threads, one of 2).
    warps: bool,
    /// Indices read from an initialised `.global` table nobody writes
    /// (its contents known: the parametric engine reads them by value).
    table: bool,
}

/// The PTX text of a kernel of `n` statements; with `ub`, some indices
/// reach past the shared array and some statements divide; with `waits`,
/// some statements are loops that wait: for a word read (one nobody
/// writes, or one the accesses may write) to be non-zero, or for ever
/// where the thread id is small; with `mixed`, plain accesses of several
/// sizes.
fn kernel(rng: &mut Rng, n: usize, draw: Draw) -> String {
    let Draw {
        ub,
        waits,
        mixed,
        inputs,
        warps,
        table,
    } = draw;
    let mut body = Vec::new();
    let mut r = 10; // next free %r
    let mut rd = 10; // next free %rd
    let mut p = 1; // next free %p
    for w in 0..n {
        if waits && rng.below(3) == 0 {
            body.push(format!("$Lw{w}:"));
            match rng.below(3) {
                // For ever where the thread id is below a word nobody
                // writes (the buffer's contents are arbitrary: some
                // executions have every thread pass).
                0 => {
                    body.push(format!("\tld.global.u32 \t%r{r}, [%rd2+64];"));
                    body.push(format!("\tsetp.lt.u32 \t%p{p}, %r1, %r{r};"));
                    r += 1;
                }
                // Until a word is non-zero: one nobody writes, or one at
                // an index the other statements' accesses may write.
                kind => {
                    let v = r;
                    r += 1;
                    let load = if kind == 1 {
                        format!("\tld.global.u32 \t%r{v}, [%rd2+64];")
                    } else {
                        let (space, base) = if rng.below(2) == 0 {
                            ("shared", "%rd3")
                        } else {
                            ("global", "%rd2")
                        };
                        let mask = if rng.below(2) == 0 { 7 } else { 1 };
                        body.push(format!("\tand.b32 \t%r{v}, %r1, {mask};"));
                        body.push(format!("\tmul.wide.u32 \t%rd{rd}, %r{v}, 4;"));
                        body.push(format!("\tadd.s64 \t%rd{}, {base}, %rd{rd};", rd + 1));
                        rd += 2;
                        format!("\tld.{space}.u32 \t%r{v}, [%rd{}];", rd - 1)
                    };
                    body.push(load);
                    body.push(format!("\tsetp.eq.u32 \t%p{p}, %r{v}, 0;"));
                }
            }
            body.push(format!("\t@%p{p} bra \t$Lw{w};"));
            p += 1;
            continue;
        }
        if ub && rng.below(5) == 0 {
            // 100 / (tid - k): zero for one thread, or 100 / a value read.
            let (d, q) = (r, r + 1);
            r += 2;
            if rng.below(2) == 0 {
                body.push(format!("\tld.global.u32 \t%r{d}, [%rd2+68];"));
            } else {
                body.push(format!("\tsub.s32 \t%r{d}, %r1, {};", rng.below(6)));
            }
            body.push(format!("\tdiv.u32 \t%r{q}, 100, %r{d};"));
            body.push(format!("\tst.global.u32 \t[%rd2+72], %r{q};"));
            continue;
        }
        let mask = if ub && rng.below(2) == 0 { 15 } else { 7 };
        match rng.below(10) {
            // (No block barrier with exits: that is barrier divergence,
            // where the concrete engine lists no races.)
            0 if !warps => body.push("\tbar.sync \t0;".to_string()),
            0..=2 if warps => body.push("\tbar.warp.sync \t-1;".to_string()),
            3 if warps => {
                // One thread of either warp stops here.
                let k = [0, 1, 32, 33][rng.below(4) as usize];
                body.push(format!("\tsetp.eq.u32 \t%p{p}, %r1, {k};"));
                body.push(format!("\t@%p{p} bra \t$Lend;"));
                p += 1;
            }
            _ => {
                let shared = rng.below(2) == 0;
                let base = if shared { "%rd3" } else { "%rd2" };
                let space = if shared { "shared" } else { "global" };
                // The index: a·tid + b·ctaid + c, or a value read (from
                // global memory, or from the block's shared memory, which
                // starts arbitrary in each block), masked.
                let idx = r;
                r += 1;
                if table && rng.below(2) == 0 {
                    // tab[(a·tid + c) & 7]
                    let (a, c) = (rng.below(3), rng.below(8));
                    body.push(format!("\tmul.lo.s32 \t%r{idx}, %r1, {a};"));
                    body.push(format!("\tadd.s32 \t%r{idx}, %r{idx}, {c};"));
                    body.push(format!("\tand.b32 \t%r{idx}, %r{idx}, 7;"));
                    body.push(format!("\tmul.wide.u32 \t%rd{rd}, %r{idx}, 4;"));
                    body.push(format!("\tmov.u64 \t%rd{}, tab;", rd + 1));
                    body.push(format!(
                        "\tadd.s64 \t%rd{}, %rd{}, %rd{rd};",
                        rd + 1,
                        rd + 1
                    ));
                    body.push(format!("\tld.global.u32 \t%r{idx}, [%rd{}];", rd + 1));
                    rd += 2;
                } else if inputs && rng.below(3) == 0 {
                    // in[1 + (in[0] & 1)] + c: every thread reads one
                    // word, chosen at run time (not a constant offset,
                    // which would make it a launch input), so two
                    // statements with different c never meet.
                    let c = rng.below(3);
                    body.push(format!("\tld.global.u32 \t%r{idx}, [%rd4];"));
                    body.push(format!("\tand.b32 \t%r{idx}, %r{idx}, 1;"));
                    body.push(format!("\tmul.wide.u32 \t%rd{rd}, %r{idx}, 4;"));
                    body.push(format!("\tadd.s64 \t%rd{}, %rd4, %rd{rd};", rd + 1));
                    body.push(format!("\tld.global.u32 \t%r{idx}, [%rd{}+4];", rd + 1));
                    body.push(format!("\tadd.s32 \t%r{idx}, %r{idx}, {c};"));
                    rd += 2;
                } else if rng.below(6) == 0 {
                    if rng.below(2) == 0 {
                        body.push(format!("\tld.global.u32 \t%r{idx}, [%rd2+64];"));
                    } else {
                        body.push(format!("\tld.shared.u32 \t%r{idx}, [%rd3+28];"));
                    }
                } else {
                    let (a, b, c) = (rng.below(3), rng.below(3), rng.below(8));
                    body.push(format!("\tmul.lo.s32 \t%r{idx}, %r1, {a};"));
                    body.push(format!("\tmad.lo.s32 \t%r{idx}, %r2, {b}, %r{idx};"));
                    body.push(format!("\tadd.s32 \t%r{idx}, %r{idx}, {c};"));
                }
                body.push(format!("\tand.b32 \t%r{idx}, %r{idx}, {mask};"));
                // (atomics: words only)
                let op = rng.below(3);
                let bytes = if mixed && op < 2 {
                    [1, 2, 4][rng.below(3) as usize]
                } else {
                    4
                };
                body.push(format!("\tmul.wide.u32 \t%rd{rd}, %r{idx}, {bytes};"));
                body.push(format!("\tadd.s64 \t%rd{}, {base}, %rd{rd};", rd + 1));
                let addr = format!("[%rd{}]", rd + 1);
                rd += 2;
                let guard = if rng.below(3) == 0 {
                    let k = rng.below(4);
                    body.push(format!("\tsetp.lt.u32 \t%p{p}, %r1, {k};"));
                    p += 1;
                    format!("@%p{} ", p - 1)
                } else {
                    String::new()
                };
                let v = r;
                r += 1;
                let bits = 8 * bytes;
                // (a stored value read from the inputs)
                let stored = if inputs && rng.below(2) == 0 {
                    body.push(format!("\tand.b32 \t%r{v}, %r1, 1;"));
                    body.push(format!("\tmul.wide.u32 \t%rd{rd}, %r{v}, 4;"));
                    body.push(format!("\tadd.s64 \t%rd{}, %rd4, %rd{rd};", rd + 1));
                    body.push(format!("\tld.global.u32 \t%r{v}, [%rd{}+4];", rd + 1));
                    rd += 2;
                    format!("%r{v}")
                } else {
                    "%r1".to_string()
                };
                body.push(match op {
                    0 => format!("\t{guard}st.{space}.u{bits} \t{addr}, {stored};"),
                    1 => format!("\t{guard}ld.{space}.u{bits} \t%r{v}, {addr};"),
                    _ => format!("\t{guard}atom.{space}.add.u32 \t%r{v}, {addr}, 1;"),
                });
            }
        }
    }
    // The table's contents: small values, some repeated.
    // (drawn only for tables: the other draws' kernels stay as they were)
    let tab: Vec<String> = (0..8)
        .map(|_| if table { rng.below(8) } else { 0 }.to_string())
        .collect();
    format!(
        ".version 6.0
.target sm_70
.address_size 64

.global .align 4 .u32 tab[8] = {{{}}};

.visible .entry k(
\t.param .u64 k_param_0,
\t.param .u64 k_param_1
)
{{
\t.reg .pred \t%p<{p}>;
\t.reg .b32 \t%r<{r}>;
\t.reg .b64 \t%rd<{rd}>;
\t.shared .align 4 .b8 s[32];
\tld.param.u64 \t%rd1, [k_param_0];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tld.param.u64 \t%rd5, [k_param_1];
\tcvta.to.global.u64 \t%rd4, %rd5;
\tmov.u64 \t%rd3, s;
\tmov.u32 \t%r1, %tid.x;
\tmov.u32 \t%r2, %ctaid.x;
{}
$Lend:
\tret;
}}
",
        tab.join(", "),
        body.join("\n")
    )
}

struct Answer {
    verdict: String,
    engine: String,
    pairs: BTreeSet<(String, String)>,
    complete: bool,
}

/// The launch of the generated kernels: 2 blocks of 4 threads, or one
/// block of two warps.
fn launch(draw: Draw) -> [&'static str; 2] {
    if draw.warps {
        ["1", "34"]
    } else {
        ["2", "4"]
    }
}

fn check(ptx: &PathBuf, engine: &str, draw: Draw) -> Answer {
    check_property(ptx, engine, "races", launch(draw))
}

fn check_property(ptx: &PathBuf, engine: &str, property: &str, [grid, block]: [&str; 2]) -> Answer {
    let out = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args([
            "check",
            "--property",
            property,
            "--json",
            "--grid",
            grid,
            "--block",
            block,
            "--param",
            "0=buf:96",
            "--param",
            "1=buf:12",
            "--max-races",
            "1000",
            "--engine",
            engine,
            // (the verdict is decided before states are listed)
            "--max-states",
            "1",
        ])
        .arg(ptx)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let r: serde_json::Value = serde_json::from_str(text.lines().next().unwrap_or(""))
        .unwrap_or_else(|_| panic!("{engine}: {text}{}", String::from_utf8_lossy(&out.stderr)));
    let pairs = r["races"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|x| {
                    let a = x["positions"][0].as_str().unwrap().to_string();
                    let b = x["positions"][1].as_str().unwrap().to_string();
                    if a <= b {
                        (a, b)
                    } else {
                        (b, a)
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Answer {
        verdict: r["verdict"].as_str().unwrap_or("").to_string(),
        engine: r["engine"].as_str().unwrap_or("").to_string(),
        pairs,
        complete: r["races_complete"] == true,
    }
}

#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_generated_kernels() {
    races_agree("gen", 0x9E37_79B9_7F4A_7C15, 150, Draw::default());
}

/// Accesses of 1, 2 and 4 bytes: overlapping ranges that are not equal
/// offsets (the engine compares equal offsets only where both accesses
/// have one size and are aligned to it).
#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_accesses_of_mixed_sizes() {
    let draw = Draw {
        mixed: true,
        ..Draw::default()
    };
    races_agree("mixed", 0x6A09_E667_F3BC_C908, 150, draw);
}

/// Kernels with loops that wait (spinning iterations stop a path of the
/// parametric engine where no barrier waits for the thread).
#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_kernels_that_wait() {
    let draw = Draw {
        waits: true,
        ..Draw::default()
    };
    races_agree("wait", 0xD1B5_4A32_D192_ED03, 100, draw);
}

/// Indices and stored values read from a buffer nobody writes: the
/// parametric engine keeps two reads of one word equal only where the
/// value can decide an index, a branch or a barrier.
#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_kernels_reading_inputs() {
    let draw = Draw {
        inputs: true,
        ..Draw::default()
    };
    races_agree("inputs", 0xA54F_F53A_5F1D_36F1, 100, draw);
}

/// Warp barriers order two threads of one warp only, and only where the
/// first goes on to the barrier the second passed (an exited thread does
/// not hold the others up).
#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_warp_barriers() {
    let draw = Draw {
        warps: true,
        ..Draw::default()
    };
    races_agree("warps", 0x3C6E_F372_FE94_F82B, 40, draw);
}

/// Indices read from a table with known contents (an initialised
/// `.global` array nobody writes): the parametric engine reads its
/// elements by value, and must agree with the concrete engine.
#[test]
fn the_parametric_engine_agrees_with_the_concrete_one_on_kernels_reading_tables() {
    let draw = Draw {
        table: true,
        ..Draw::default()
    };
    races_agree("table", 0x510E_527F_ADE6_82D1, 100, draw);
}

fn races_agree(tag: &str, seed: u64, default_total: u64, draw: Draw) {
    let dir = std::env::temp_dir().join(format!("gpumc-param-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(seed);
    let (mut own, mut failures) = (0, Vec::new());
    let (mut passes, mut fails) = (0u64, 0u64);
    // More with GPUMC_GEN_KERNELS=N (docs/TESTING.md).
    let total: u64 = std::env::var("GPUMC_GEN_KERNELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_total);
    let mut total_comparable = total;
    for t in 0..total as usize {
        // (Two warps are 34 threads: fewer statements.)
        let n = 2 + rng.below(if draw.warps { 4 } else { 5 }) as usize;
        let text = kernel(&mut rng, n, draw);
        let f = dir.join(format!("k{t}.ptx"));
        std::fs::write(&f, &text).unwrap();
        let concrete = check(&f, "symbolic", draw);
        let param = check(&f, "parametric", draw);
        if param.engine != "parametric" {
            continue; // handed to the concrete engine
        }
        // The concrete engines refuse a write overlapping an access of
        // another size: nothing to compare with.
        if concrete.verdict == "ERROR" {
            assert!(draw.mixed, "k{t}: the concrete engine refused it\n{text}");
            total_comparable -= 1;
            continue;
        }
        own += 1;
        passes += u64::from(param.verdict == "PASS");
        fails += u64::from(param.verdict == "FAIL");
        let wrong = match param.verdict.as_str() {
            "PASS" => concrete.verdict != "PASS",
            "FAIL" => {
                concrete.verdict != "FAIL"
                    || !param.pairs.is_subset(&concrete.pairs)
                    || (param.complete && param.pairs != concrete.pairs)
            }
            _ => false,
        };
        if wrong {
            failures.push(format!(
                "k{t}: parametric {} {:?} (complete: {}), concrete {} {:?}\n{text}",
                param.verdict, param.pairs, param.complete, concrete.verdict, concrete.pairs
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{tag}: the parametric engine decided {own} of {total_comparable} generated kernels the concrete engine takes ({passes} PASS, {fails} FAIL; {total} generated)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        own * 2 >= total_comparable && total_comparable * 3 >= total,
        "only {own} of {total_comparable} decided"
    );
    // Both answers occur, or the comparison proves little.
    assert!(
        passes * 10 >= own && fails * 10 >= own,
        "{passes} PASS, {fails} FAIL"
    );
}

/// Undefined behaviour: a kernel the parametric engine finds free of it
/// (`NONE`) has none for the concrete engine either, and undefined
/// behaviour it reports (confirmed) the concrete engine finds too.
#[test]
fn the_parametric_safety_check_agrees_with_the_concrete_one() {
    let dir = std::env::temp_dir().join(format!("gpumc-param-ub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut own, mut failures) = (0, Vec::new());
    let (mut clean, mut ub) = (0u64, 0u64);
    // (The concrete safety check takes about a second each.)
    let total: u64 = std::env::var("GPUMC_GEN_KERNELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for t in 0..total as usize {
        let n = 2 + rng.below(5) as usize;
        let draw = Draw {
            ub: true,
            ..Draw::default()
        };
        let text = kernel(&mut rng, n, draw);
        let f = dir.join(format!("u{t}.ptx"));
        std::fs::write(&f, &text).unwrap();
        let concrete = check_property(&f, "symbolic", "safety", launch(draw));
        let param = check_property(&f, "parametric", "safety", launch(draw));
        if param.engine != "parametric" {
            continue; // handed to the concrete engine
        }
        own += 1;
        clean += u64::from(param.verdict == "NONE");
        ub += u64::from(param.verdict == "FAIL");
        let wrong = match param.verdict.as_str() {
            "NONE" => concrete.verdict == "FAIL",
            "FAIL" => concrete.verdict != "FAIL",
            _ => false,
        };
        if wrong {
            failures.push(format!(
                "u{t}: parametric {}, concrete {}\n{text}",
                param.verdict, concrete.verdict
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "the parametric safety check decided {own} of {total} generated kernels ({clean} without undefined behaviour, {ub} with)"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(own * 2 >= total, "only {own} of {total} decided");
    assert!(
        clean * 10 >= own && ub * 10 >= own,
        "{clean} without undefined behaviour, {ub} with"
    );
}
