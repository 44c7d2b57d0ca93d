//! A short fuzz run of every input format, in process and on the stable
//! toolchain, for CI (the libFuzzer targets in `fuzz/` need cargo-fuzz;
//! docs/TESTING.md). Each format's seed corpus (`fuzz/seeds/<target>/`) is
//! run as it is, then mutated by our own small mutator from a fixed seed,
//! so that a failure reproduces; every input goes through
//! `gpumc::fuzzing::one`, the function the libFuzzer targets call. Any
//! panic fails the test, with the input printed escaped and written under
//! `target/tmp/fuzz-crashes/` (to reproduce it, copy the file into the
//! seed folder: seeds run first, unmutated).
//!
//! `GPUMC_FUZZ_ITERS=N` runs N mutated inputs per format instead of the
//! default, `GPUMC_FUZZ_SEED=S` another sequence of them, and
//! `GPUMC_FUZZ_ONLY=cat,axb` only the formats named. A long run prints a
//! line every `GPUMC_FUZZ_PROGRESS` inputs (default 50,000), so that what
//! it has covered is known before it ends.

use gpumc::fuzzing::{one, Format, Outcome};
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// Mutated inputs per format in a default (CI) run, chosen from the rates
/// of docs/TESTING.md so that the whole test takes about half a minute on
/// two cores in release.
fn default_iters(format: Format) -> u64 {
    match format {
        Format::Axb | Format::Mapping => 20_000,
        Format::LitmusPtx | Format::LitmusC | Format::Spirv => 4000,
        Format::LitmusVulkan | Format::LitmusGpuPtx | Format::Cat => 2000,
        Format::PtxKernel => 1000,
    }
}

/// An input running this long is a hang: every check `one` starts has a
/// deadline of half a second, parsing has none.
const HANG: Duration = Duration::from_secs(60);

/// Inputs slower than this are listed (they are no failure: parsing is
/// not guarded, and some known inputs parse slowly).
const SLOW: Duration = Duration::from_secs(2);

/// Mutants grow to at most this many bytes (libFuzzer's `-max_len` plays
/// this part for the fuzz targets).
const MAX_LEN: usize = 32 * 1024;

/// Accepted mutants kept as further seeds, at most.
const POOL: usize = 512;

/// An accepted mutant that took longer than this is not kept as a seed:
/// its checks ran into their deadlines, and a pool of such mutants makes
/// every later input as slow (libFuzzer likewise prefers the faster of
/// two inputs that reach the same code). It still counts as run.
const POOL_SLOW: Duration = Duration::from_millis(250);

// ---------------------------------------------------------------------
// The mutator.

/// splitmix64: small, fast, and the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 for an empty range).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Tokens that break parsers: numbers at and past every integer width,
/// the punctuation of our formats, bytes that are not UTF-8 (alone, and a
/// truncated multi-byte sequence), control characters.
const TOKENS: &[&[u8]] = &[
    b"18446744073709551615",
    b"18446744073709551616",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"4294967296",
    b"2147483648",
    b"-2147483649",
    b"99999999999999999999999999999",
    b"0x",
    b"0xffffffffffffffffff",
    b"-0",
    b"-1",
    b"0",
    b"1e999",
    b"->",
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b";",
    b"|",
    b":",
    b",",
    b"=",
    b"==",
    b"%",
    b"@",
    b"\"",
    b"//",
    b"/*",
    b"*/",
    b"(*",
    b"*)",
    b"^-1",
    b"\\/",
    b"/\\",
    b"~",
    b"\n",
    b"\r\n",
    b"\t",
    b"\0",
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\xe2\x82\xac",
];

/// The words of the seeds, a dictionary for the mutator (libFuzzer finds
/// such words through comparisons; ours are given).
fn words(seeds: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut w: Vec<Vec<u8>> = seeds
        .iter()
        .flat_map(|s| s.split(|b| b.is_ascii_whitespace()))
        .filter(|w| !w.is_empty() && w.len() <= 40)
        .map(<[u8]>::to_vec)
        .collect();
    w.sort();
    w.dedup();
    w
}

/// A random range `[a, b)` of `len` bytes, at most `max` long.
fn range(rng: &mut Rng, len: usize, max: usize) -> (usize, usize) {
    let a = rng.below(len + 1);
    let b = a + rng.below((len - a).min(max) + 1);
    (a, b)
}

/// Line boundaries of `b`: each line's `[start, end)` with its newline.
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in b.iter().enumerate() {
        if c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

/// One mutation of `b` in place; `other` is another input to splice from.
fn mutate_once(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8], dict: &[Vec<u8>]) {
    let len = b.len();
    match rng.below(12) {
        // Flip one bit.
        0 if len > 0 => {
            let i = rng.below(len);
            b[i] ^= 1 << rng.below(8);
        }
        // Overwrite a byte with a random or an interesting one.
        1 if len > 0 => {
            let i = rng.below(len);
            let random = rng.next() as u8;
            b[i] = *rng.pick(&[0, 0xff, 0x7f, 0x80, b'\n', b' ', b'0', b'9', random]);
        }
        // Insert a few random bytes.
        2 => {
            let i = rng.below(len + 1);
            let n = 1 + rng.below(4);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            b.splice(i..i, bytes);
        }
        // Delete a range.
        3 => {
            let (a, e) = range(rng, len, 64);
            b.drain(a..e);
        }
        // Repeat a chunk a few to many times (deep nesting, long lists).
        4 => {
            let (a, e) = range(rng, len, 64);
            let copies = *rng.pick(&[1, 2, 3, 8, 64]);
            let chunk = b[a..e].repeat(copies);
            b.splice(e..e, chunk);
        }
        // Splice: this input's head on the other's tail.
        5 => {
            let cut = rng.below(len + 1);
            let from = rng.below(other.len() + 1);
            b.truncate(cut);
            b.extend_from_slice(&other[from..]);
        }
        // Insert a chunk of the other input.
        6 => {
            let (a, e) = range(rng, other.len(), 256);
            let i = rng.below(len + 1);
            b.splice(i..i, other[a..e].iter().copied());
        }
        // Insert an interesting token or a word of the seeds.
        7 | 8 => {
            let token: &[u8] = if rng.below(2) == 0 || dict.is_empty() {
                TOKENS[rng.below(TOKENS.len())]
            } else {
                rng.pick(dict).as_slice()
            };
            let i = rng.below(len + 1);
            b.splice(i..i, token.iter().copied());
        }
        // Replace a number by an interesting token.
        9 => {
            let digits: Vec<usize> = (0..len).filter(|&i| b[i].is_ascii_digit()).collect();
            if digits.is_empty() {
                return;
            }
            let a = *rng.pick(&digits);
            let e = (a..len).find(|&i| !b[i].is_ascii_digit()).unwrap_or(len);
            let token = rng.pick(&TOKENS[..14]);
            b.splice(a..e, token.iter().copied());
        }
        // Delete, duplicate or swap whole lines.
        10 => {
            let ls = lines(b);
            if ls.is_empty() {
                return;
            }
            let (a, e) = *rng.pick(&ls);
            match rng.below(3) {
                0 => {
                    b.drain(a..e);
                }
                1 => {
                    let line = b[a..e].to_vec();
                    b.splice(a..a, line);
                }
                _ => {
                    let (c, d) = *rng.pick(&ls);
                    if (c, d) != (a, e) {
                        let (first, second) = if a < c {
                            ((a, e), (c, d))
                        } else {
                            ((c, d), (a, e))
                        };
                        let x = b[first.0..first.1].to_vec();
                        let y = b[second.0..second.1].to_vec();
                        b.splice(second.0..second.1, x);
                        b.splice(first.0..first.1, y);
                    }
                }
            }
        }
        // Truncate.
        _ => {
            let at = rng.below(len + 1);
            b.truncate(at);
        }
    }
}

/// A mutant of `base`: one to four stacked mutations, at most `MAX_LEN`
/// bytes.
fn mutate(rng: &mut Rng, base: &[u8], other: &[u8], dict: &[Vec<u8>]) -> Vec<u8> {
    let mut b = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        mutate_once(rng, &mut b, other, dict);
    }
    b.truncate(MAX_LEN);
    b
}

// ---------------------------------------------------------------------
// Running inputs.

thread_local! {
    /// While `Some`, a panic on this thread is recorded here (message,
    /// position and backtrace) instead of printed.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once per process) a panic hook that records the panics of
/// the threads that run inputs and leaves every other panic, such as a
/// failing assertion of this test, to the default hook.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let recorded = CAUGHT.with(|c| match c.borrow_mut().as_mut() {
                Some(slot) => {
                    let bt = std::backtrace::Backtrace::force_capture().to_string();
                    *slot = format!("{info}\n{}", own_frames(&bt));
                    true
                }
                None => false,
            });
            if !recorded {
                default(info);
            }
        }));
    });
}

/// Runs one input; `Err` with the panic's report if it panicked.
fn run(format: Format, input: &[u8]) -> Result<Outcome, String> {
    CAUGHT.with(|c| *c.borrow_mut() = Some(String::new()));
    let r = panic::catch_unwind(AssertUnwindSafe(|| one(format, input)));
    let report = CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or_default();
    r.map_err(|_| report)
}

/// Panics that a known defect explains, which is being fixed apart from
/// this test (docs/TESTING.md): the test counts and prints them and does
/// not fail on them. TEMPORARY: each entry goes with its fix. An entry:
/// the format, fragments its panic's report contains (all of them), the
/// defect.
const KNOWN: &[(Format, &[&str], &str)] = &[];

fn known(format: Format, report: &str) -> Option<&'static str> {
    KNOWN
        .iter()
        .find(|(f, fragments, _)| *f == format && fragments.iter().all(|x| report.contains(x)))
        .map(|(_, _, defect)| *defect)
}

/// The frames of a backtrace that are gpumc's own (the panic machinery,
/// the standard library and this test's harness say nothing).
fn own_frames(bt: &str) -> String {
    let lines: Vec<&str> = bt.lines().collect();
    let mut out = String::new();
    for (k, l) in lines.iter().enumerate() {
        let name = l.trim_start().split_once(": ").map_or("", |(_, n)| n);
        if name.starts_with("gpumc") {
            out.push_str(l);
            out.push('\n');
            if let Some(at) = lines
                .get(k + 1)
                .filter(|n| n.trim_start().starts_with("at "))
            {
                out.push_str(at);
                out.push('\n');
            }
        }
    }
    out
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

fn seed_files(format: Format) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(format.name());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, b)
        })
        .collect()
}

/// Writes a crashing (or hanging) input where it can be picked up.
fn save(format: Format, what: &str, index: u64, input: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-crashes");
    std::fs::create_dir_all(&dir).expect("crash folder");
    let path = dir.join(format!("{}-{what}-{index}", format.name()));
    std::fs::write(&path, input).expect("write the input");
    path
}

/// The input being run, for the hang watchdog.
type Current = Arc<Mutex<Option<(Instant, u64, Vec<u8>)>>>;

/// Aborts the process when one input runs longer than [`HANG`], after
/// saving it: a hang would otherwise stall CI without saying where.
fn watchdog(format: Format, current: Current, done: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        while !done.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            let cur = current.lock().unwrap();
            if let Some((since, index, input)) = cur.as_ref() {
                if since.elapsed() > HANG {
                    let path = save(format, "hang", *index, input);
                    eprintln!(
                        "{}: input {index} has run for {:?} (a hang); saved as {}:\n{}",
                        format.name(),
                        since.elapsed(),
                        path.display(),
                        input.escape_ascii()
                    );
                    std::process::abort();
                }
            }
        }
    });
}

struct Stats {
    inputs: u64,
    accepted: u64,
    slowest: (Duration, Vec<u8>),
    slow: u64,
}

/// Runs every seed, then `GPUMC_FUZZ_ITERS` mutants, of `format`; fails
/// on any panic but those [`KNOWN`] explains.
fn fuzz(format: Format) {
    if let Ok(only) = std::env::var("GPUMC_FUZZ_ONLY") {
        if !only.split(',').any(|n| n.trim() == format.name()) {
            return;
        }
    }
    install_hook();
    let iters = env_u64("GPUMC_FUZZ_ITERS").unwrap_or_else(|| default_iters(format));
    let progress_every = env_u64("GPUMC_FUZZ_PROGRESS").unwrap_or(50_000).max(1);
    let rng_seed = env_u64("GPUMC_FUZZ_SEED").unwrap_or(0x6770_756d_6300) ^ format as u64;
    let files = seed_files(format);
    assert!(files.len() >= 3, "{}: too few seeds", format.name());
    let seeds: Vec<Vec<u8>> = files.iter().map(|(_, b)| b.clone()).collect();
    let dict = words(&seeds);
    let mut pool = seeds.clone();
    let mut rng = Rng(rng_seed);
    let mut stats = Stats {
        inputs: 0,
        accepted: 0,
        slowest: (Duration::ZERO, Vec::new()),
        slow: 0,
    };
    let mut crashes = Vec::new();
    let mut known_hits: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut known_count = 0u64;
    let current: Current = Arc::new(Mutex::new(None));
    let done = Arc::new(AtomicBool::new(false));
    watchdog(format, current.clone(), done.clone());
    let start = Instant::now();
    let mut seeds_rejected = Vec::new();
    for index in 0..files.len() as u64 + iters {
        let input = match files.get(index as usize) {
            Some((_, b)) => b.clone(),
            None => {
                let base = rng.pick(&pool).clone();
                let other = rng.pick(&pool).clone();
                mutate(&mut rng, &base, &other, &dict)
            }
        };
        *current.lock().unwrap() = Some((Instant::now(), index, input.clone()));
        let t = Instant::now();
        let r = run(format, &input);
        let took = t.elapsed();
        *current.lock().unwrap() = None;
        stats.inputs += 1;
        if took > stats.slowest.0 {
            stats.slowest = (took, input.clone());
        }
        if took > SLOW {
            stats.slow += 1;
            if stats.slow <= 10 {
                let path = save(format, "slow", index, &input);
                eprintln!(
                    "  input {index} took {:.2} s; saved as {}",
                    took.as_secs_f64(),
                    path.display()
                );
            }
        }
        match r {
            Ok(Outcome::Accepted) => {
                stats.accepted += 1;
                if (index as usize) < files.len() || took > POOL_SLOW {
                    // A seed is in the pool already; a slow mutant stays out.
                } else if pool.len() < POOL {
                    pool.push(input);
                } else {
                    // Seeds stay; a random earlier mutant makes room.
                    let k = seeds.len() + rng.below(POOL - seeds.len());
                    pool[k] = input;
                }
            }
            Ok(Outcome::Rejected) => {
                if let Some((path, _)) = files.get(index as usize) {
                    seeds_rejected.push(path.file_name().unwrap().to_string_lossy().into_owned());
                }
            }
            Err(report) => match known(format, &report) {
                Some(defect) => {
                    known_count += 1;
                    // The shortest input per defect is the one to report.
                    match known_hits.iter_mut().find(|(d, _)| *d == defect) {
                        Some((_, shortest)) if shortest.len() <= input.len() => {}
                        Some((_, shortest)) => *shortest = input,
                        None => known_hits.push((defect, input)),
                    }
                }
                None => {
                    let path = save(format, "crash", index, &input);
                    crashes.push(format!(
                        "input {index} (saved as {}):\n\"{}\"\n{report}",
                        path.display(),
                        input.escape_ascii()
                    ));
                }
            },
        }
        if crashes.len() >= 5 {
            break;
        }
        if stats.inputs.is_multiple_of(progress_every) {
            eprintln!(
                "{}: {} inputs, {} accepted, {:.0} s, slowest {:.2} s, {} crashes so far",
                format.name(),
                stats.inputs,
                stats.accepted,
                start.elapsed().as_secs_f64(),
                stats.slowest.0.as_secs_f64(),
                crashes.len()
            );
        }
    }
    done.store(true, Ordering::Relaxed);
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{}: {} inputs ({} seeds, {} of them rejected; {} accepted in all) in {secs:.1} s, {:.0}/s; slowest {:.2} s; {} over {:?}; {} known-defect panics",
        format.name(),
        stats.inputs,
        files.len(),
        seeds_rejected.len(),
        stats.accepted,
        stats.inputs as f64 / secs,
        stats.slowest.0.as_secs_f64(),
        stats.slow,
        SLOW,
        known_count,
    );
    if !seeds_rejected.is_empty() {
        eprintln!("  rejected seeds: {}", seeds_rejected.join(" "));
    }
    if stats.slowest.0 > SLOW {
        let s = &stats.slowest.1;
        eprintln!(
            "  slowest input ({} bytes): \"{}\"",
            s.len(),
            s[..s.len().min(400)].escape_ascii()
        );
    }
    for (defect, input) in &known_hits {
        eprintln!(
            "  known defect ({defect}), shortest input ({} bytes): \"{}\"",
            input.len(),
            input[..input.len().min(600)].escape_ascii()
        );
    }
    assert!(
        crashes.is_empty(),
        "{}: {} crashing inputs:\n{}",
        format.name(),
        crashes.len(),
        crashes.join("\n\n")
    );
    // The seeds are meant to reach past the front-end: a seed folder whose
    // files no longer parse would fuzz only the parser's error paths.
    assert!(
        seeds_rejected.len() * 4 <= files.len(),
        "{}: {} of {} seeds do not parse: {}",
        format.name(),
        seeds_rejected.len(),
        files.len(),
        seeds_rejected.join(" ")
    );
}

#[test]
fn fuzz_litmus_ptx() {
    fuzz(Format::LitmusPtx);
}

#[test]
fn fuzz_litmus_vulkan() {
    fuzz(Format::LitmusVulkan);
}

#[test]
fn fuzz_litmus_gpu_ptx() {
    fuzz(Format::LitmusGpuPtx);
}

#[test]
fn fuzz_litmus_c() {
    fuzz(Format::LitmusC);
}

#[test]
fn fuzz_cat() {
    fuzz(Format::Cat);
}

#[test]
fn fuzz_spirv() {
    fuzz(Format::Spirv);
}

#[test]
fn fuzz_ptx_kernel() {
    fuzz(Format::PtxKernel);
}

#[test]
fn fuzz_mapping() {
    fuzz(Format::Mapping);
}

#[test]
fn fuzz_axb() {
    fuzz(Format::Axb);
}

/// The run above is only as good as the mutants: they must be
/// reproducible, mostly new, of every size, and include bytes that are
/// not UTF-8.
#[test]
fn mutants_are_reproducible_and_varied() {
    let seeds = vec![
        b"PTX MP\n{ x=0; y=0; }\n P0 | P1 ;\n st.weak x, 1 | ld.weak r0, y ;\nexists (P1:r0 == 1)\n"
            .to_vec(),
        b"THREAD0\natomic_store(0,1)\n".to_vec(),
    ];
    let dict = words(&seeds);
    let batch = |seed: u64| {
        let mut rng = Rng(seed);
        (0..2000)
            .map(|_| mutate(&mut rng, &seeds[0], &seeds[1], &dict))
            .collect::<Vec<_>>()
    };
    let a = batch(7);
    assert_eq!(a, batch(7), "the same seed gives the same mutants");
    assert_ne!(a, batch(8), "another seed gives other mutants");
    let unchanged = a.iter().filter(|m| **m == seeds[0]).count();
    assert!(unchanged < a.len() / 20, "{unchanged} mutants unchanged");
    assert!(a.iter().any(|m| std::str::from_utf8(m).is_err()));
    assert!(a.iter().any(|m| m.len() > seeds[0].len() * 2));
    assert!(a.iter().any(|m| m.len() < seeds[0].len() / 2));
    assert!(a.iter().any(|m| m.windows(2).any(|w| w == b"->")));
    let distinct: std::collections::BTreeSet<_> = a.iter().collect();
    assert!(distinct.len() > a.len() * 9 / 10);
}

/// Every format has its target in `fuzz/` and its seeds, and the targets
/// call the shared function.
#[test]
fn every_format_has_a_fuzz_target_and_seeds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("fuzz/Cargo.toml")).expect("fuzz manifest");
    for f in Format::ALL {
        assert_eq!(Format::from_name(f.name()), Some(f));
        let target = root.join(format!("fuzz/fuzz_targets/{}.rs", f.name()));
        let src = std::fs::read_to_string(&target)
            .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        assert!(
            src.contains(&format!("one(Format::{f:?}, ")),
            "{} does not call fuzzing::one(Format::{f:?}, …)",
            target.display()
        );
        assert!(
            manifest.contains(&format!("name = \"{}\"", f.name())),
            "fuzz/Cargo.toml has no [[bin]] {}",
            f.name()
        );
        assert!(!seed_files(f).is_empty());
    }
}
