//! MP / SB / LB / IRIW with N = 2 … 64 threads under PTX v7.5 and Vulkan:
//! the symbolic engine's verdicts (checked against the explicit engine
//! where it is feasible) and running times.
//!
//! The tests are generated here (string building):
//! * MP-N: P0 stores x then releases y; P1..: acquire y, read x;
//!   `~exists` some reader sees y = 1 and x = 0.
//! * SB-N: a ring; Pi stores x_i, reads x_{i+1}; `exists` all read 0.
//! * LB-N: a ring; Pi reads x_i, stores x_{i+1}; `exists` all read 1.
//! * IRIW-N: N/2 writers of x_j, N/2 readers of two locations each.
//!
//! Timing is asserted (< 2 s at N = 64) only with `GPUMC_TIMING=1` in a
//! release build; otherwise it is printed.

use gpumc::cat::Model;
use gpumc::engine::{safety, symbolic, Options};
use gpumc::ir::Arch;
use std::time::Instant;

pub fn generate(kind: &str, n: usize, arch: Arch) -> String {
    assert!(
        arch != Arch::C,
        "the scaling families are PTX and Vulkan tests"
    );
    let place = |i: usize| match arch {
        Arch::Ptx | Arch::C => format!("P{i}@cta {},gpu 0", i % 4),
        Arch::Vulkan => format!("P{i}@sg {i},wg {},qf 0", i % 4),
    };
    let st = |l: &str, v: i64, rel: bool| match arch {
        Arch::Ptx | Arch::C => format!(
            "st.{}.gpu {l}, {v}",
            if rel { "release" } else { "relaxed" }
        ),
        Arch::Vulkan => {
            if rel {
                format!("st.atom.rel.dv.sc0.semsc0 {l}, {v}")
            } else {
                format!("st.atom.dv.sc0 {l}, {v}")
            }
        }
    };
    let ld = |r: &str, l: &str, acq: bool| match arch {
        Arch::Ptx | Arch::C => format!(
            "ld.{}.gpu {r}, {l}",
            if acq { "acquire" } else { "relaxed" }
        ),
        Arch::Vulkan => {
            if acq {
                format!("ld.atom.acq.dv.sc0.semsc0 {r}, {l}")
            } else {
                format!("ld.atom.dv.sc0 {r}, {l}")
            }
        }
    };
    let mut cols: Vec<Vec<String>> = Vec::new();
    let locs: Vec<String>;
    let (quant, cond);
    match kind {
        "mp" => {
            locs = vec!["x".into(), "y".into()];
            cols.push(vec![st("x", 1, false), st("y", 1, true)]);
            for _ in 1..n {
                cols.push(vec![ld("r0", "y", true), ld("r1", "x", false)]);
            }
            quant = "~exists";
            cond = (1..n)
                .map(|i| format!("(P{i}:r0 == 1 /\\ P{i}:r1 == 0)"))
                .collect::<Vec<_>>()
                .join(" \\/ ");
        }
        "sb" | "lb" => {
            locs = (0..n).map(|i| format!("x{i}")).collect();
            for i in 0..n {
                let (a, b) = (format!("x{i}"), format!("x{}", (i + 1) % n));
                cols.push(if kind == "sb" {
                    vec![st(&a, 1, false), ld("r0", &b, false)]
                } else {
                    vec![ld("r0", &a, false), st(&b, 1, false)]
                });
            }
            quant = "exists";
            let v = if kind == "sb" { 0 } else { 1 };
            cond = (0..n)
                .map(|i| format!("P{i}:r0 == {v}"))
                .collect::<Vec<_>>()
                .join(" /\\ ");
        }
        _ => {
            let k = (n / 2).max(1);
            locs = (0..k).map(|j| format!("x{j}")).collect();
            for j in 0..k {
                cols.push(vec![st(&format!("x{j}"), 1, false)]);
            }
            for i in 0..n - k {
                let (a, b) = (format!("x{}", i % k), format!("x{}", (i + 1) % k));
                cols.push(vec![ld("r0", &a, true), ld("r1", &b, true)]);
            }
            quant = "exists";
            let mut c = vec![format!("P{k}:r0 == 1"), format!("P{k}:r1 == 0")];
            if n - k > 1 {
                c.push(format!("P{}:r0 == 1", k + 1));
                c.push(format!("P{}:r1 == 0", k + 1));
            }
            cond = c.join(" /\\ ");
        }
    }
    let head = match arch {
        Arch::Ptx | Arch::C => "PTX",
        Arch::Vulkan => "Vulkan",
    };
    let mut s = format!("{head} {}-{n}\n{{\n", kind.to_uppercase());
    for l in &locs {
        s.push_str(&format!("{l}=0; "));
    }
    s.push_str("\n}\n");
    let table: Vec<Vec<String>> = cols
        .iter()
        .enumerate()
        .map(|(t, c)| std::iter::once(place(t)).chain(c.iter().cloned()).collect())
        .collect();
    s.push_str(&gpumc::gen::columns(&table));
    s.push_str(&format!("{quant} ({cond})\n"));
    s
}

fn model(arch: Arch) -> Option<gpumc::cat::Model> {
    let name = match arch {
        Arch::Ptx | Arch::C => "ptx-v7.5".to_string(),
        Arch::Vulkan => std::env::var("GPUMC_TEST_VULKAN_CAT").unwrap_or_else(|_| "vulkan".into()),
    };
    match gpumc::models::load(&name) {
        Ok(m) => Some(m),
        Err(e) => {
            eprintln!("skipped: model {name} does not load: {e}");
            None
        }
    }
}

/// Checks `src` (`label`, N = `n`) on the symbolic engine: no re-check
/// mismatch, the explicit engine's verdict up to N = `compare_to`, and
/// under 2 s at N = 64 when timing is asserted.
fn check_one(label: &str, src: &str, n: usize, m: &Model, compare_to: usize) {
    let strict = std::env::var_os("GPUMC_TIMING").is_some() && !cfg!(debug_assertions);
    let p = gpumc::frontend::litmus::parse(src, std::path::Path::new("gen.litmus"))
        .unwrap_or_else(|e| panic!("{e}\n{src}"));
    let opts = Options::default();
    let t = Instant::now();
    let (r, stats) = symbolic::check_safety_stats(&p, m, &opts).expect("symbolic");
    let dt = t.elapsed();
    eprintln!(
        "{label}-{n}: {} in {dt:?} ({} events, {} vars, {} clauses)",
        r.verdict, stats.events, stats.vars, stats.clauses
    );
    assert_eq!(stats.mismatches, 0);
    if n <= compare_to {
        let e = safety::check(&p, m, &opts).expect("explicit");
        assert_eq!(e.verdict, r.verdict, "{label}-{n}");
    }
    if strict && n == 64 {
        assert!(dt.as_secs_f64() < 2.0, "{label}-64 took {dt:?}");
    }
}

/// The sizes checked: up to 64 in release builds, 16 in debug ones.
fn sizes() -> impl Iterator<Item = usize> {
    let max_n = if cfg!(debug_assertions) { 16 } else { 64 };
    [2usize, 4, 8, 16, 32, 64]
        .into_iter()
        .filter(move |&n| n <= max_n)
}

fn scale(kind: &str, arch: Arch) {
    let Some(m) = model(arch) else { return };
    for n in sizes() {
        check_one(
            &format!("{kind} {arch:?}"),
            &generate(kind, n, arch),
            n,
            &m,
            4,
        );
    }
}

#[test]
fn mp_ptx() {
    scale("mp", Arch::Ptx);
}

#[test]
fn sb_ptx() {
    scale("sb", Arch::Ptx);
}

#[test]
fn lb_ptx() {
    scale("lb", Arch::Ptx);
}

#[test]
fn iriw_ptx() {
    scale("iriw", Arch::Ptx);
}

#[test]
fn mp_vulkan() {
    scale("mp", Arch::Vulkan);
}

#[test]
fn sb_vulkan() {
    scale("sb", Arch::Vulkan);
}

#[test]
fn lb_vulkan() {
    scale("lb", Arch::Vulkan);
}

#[test]
fn iriw_vulkan() {
    scale("iriw", Arch::Vulkan);
}

/// The `gpumc gen` families (Tong et al., ASPLOS'24 Fig. 15; IRIW readers read every
/// location, so a reader has 2^(N/2) read-value combinations).
fn gen_family(f: gpumc::gen::Family, arch: gpumc::gen::GenArch, march: Arch) {
    let Some(m) = model(march) else { return };
    for n in sizes() {
        let Ok(src) = gpumc::gen::family(f, n, arch) else {
            continue;
        };
        check_one(&format!("gen {f:?} {march:?}"), &src, n, &m, 8);
    }
}

#[test]
fn gen_families() {
    use gpumc::gen::{Family, GenArch};
    for f in [Family::Mp, Family::Sb, Family::Lb, Family::Iriw] {
        gen_family(f, GenArch::Ptx, Arch::Ptx);
        gen_family(f, GenArch::Vulkan, Arch::Vulkan);
    }
}

/// A program of more than 256 events (relations stored as row bands, see
/// `gpumc::rel`) with few executions: a writer of 150 locations, release
/// last, and a reader of the last and the first. Both engines list the
/// same final states and give the same verdict, under both models.
#[test]
fn a_long_writer_lists_the_same_states_in_both_engines() {
    let writes = 150;
    for arch in [Arch::Ptx, Arch::Vulkan] {
        let Some(m) = model(arch) else { return };
        let (place, st, st_rel, ld_acq, ld) = match arch {
            Arch::Vulkan => (
                ["P0@sg 0,wg 0,qf 0", "P1@sg 0,wg 1,qf 0"],
                "st.atom.dv.sc0",
                "st.atom.rel.dv.sc0.semsc0",
                "ld.atom.acq.dv.sc0.semsc0",
                "ld.atom.dv.sc0",
            ),
            _ => (
                ["P0@cta 0,gpu 0", "P1@cta 1,gpu 0"],
                "st.relaxed.gpu",
                "st.release.gpu",
                "ld.acquire.gpu",
                "ld.relaxed.gpu",
            ),
        };
        let mut p0 = vec![place[0].to_string()];
        for i in 0..writes {
            let op = if i + 1 == writes { st_rel } else { st };
            p0.push(format!("{op} x{i}, 1"));
        }
        let p1 = vec![
            place[1].to_string(),
            format!("{ld_acq} r0, x{}", writes - 1),
            format!("{ld} r1, x0"),
        ];
        let head = if arch == Arch::Vulkan {
            "Vulkan"
        } else {
            "PTX"
        };
        let mut src = format!("{head} LONG-WRITER\n{{\n");
        for i in 0..writes {
            src.push_str(&format!("x{i}=0; "));
        }
        src.push_str("\n}\n");
        src.push_str(&gpumc::gen::columns(&[p0, p1]));
        src.push_str("exists (P1:r0 == 1 /\\ P1:r1 == 0)\n");
        let p = gpumc::frontend::litmus::parse(&src, std::path::Path::new("long.litmus"))
            .unwrap_or_else(|e| panic!("{e}"));
        let opts = Options {
            max_states: Some(16),
            ..Options::default()
        };
        let (s, stats) = symbolic::check_safety_stats(&p, &m, &opts).expect("symbolic");
        assert!(
            stats.events > gpumc::rel::ALL_WORDS_UP_TO,
            "{}",
            stats.events
        );
        assert_eq!(stats.mismatches, 0);
        let e = safety::check(&p, &m, &opts).expect("explicit");
        assert_eq!(e.verdict, s.verdict, "{arch:?}");
        let (mut es, mut ss) = (e.states.clone(), s.states.clone());
        es.sort();
        ss.sort();
        assert_eq!(es, ss, "{arch:?}");
        // r0 = 1, r1 = 0 is forbidden (message passing); the other three are not.
        assert_eq!(ss.len(), 3, "{arch:?}: {ss:?}");
    }
}
