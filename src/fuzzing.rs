//! One fuzz input of each input format, written once for the libFuzzer
//! targets (`fuzz/fuzz_targets/`, one per [`Format`]) and for the
//! in-process fuzz test that CI runs (`tests/fuzz_smoke.rs`), so that an
//! input one of them finds reproduces in the other.
//!
//! [`one`] parses the input with the format's front-end and, where that is
//! cheap, goes on as far as the command line would: a parsed program is
//! checked (bound 1, a short deadline and a memory budget from the
//! resource guard, so that a slow input ends as `UNKNOWN` rather than
//! stalling the fuzzer), a parsed model checks small fixed programs, a
//! parsed mapping compiles small C tests, a parsed AXB test is decided
//! and exported. Any error is a fine answer; a crash is any panic. Nothing
//! here reads or writes a file, whatever the input names.

use crate::compile::mapping::{Mapping, Target};
use crate::driver::{self, Config, Engine, ModelCache, Property};
use crate::engine::{races, safety, symbolic, Options};
use crate::frontend::ptx::launch::{self, Launch};
use crate::guard::{self, Guard, Limits};
use crate::ir::{Arch, Program};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Instant;

/// An input format with its own fuzz target and seed corpus
/// (`fuzz/seeds/<name>/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Litmus tests in Dat3M's PTX dialect.
    LitmusPtx,
    /// Litmus tests in Dat3M's Vulkan dialect.
    LitmusVulkan,
    /// herd7's `GPU_PTX` dialect.
    LitmusGpuPtx,
    /// herd7's `C` dialect (scoped C), also compiled with the built-in
    /// mappings.
    LitmusC,
    /// A `.cat` model.
    Cat,
    /// SPIR-V assembly (`.spvasm`).
    Spirv,
    /// A PTX module (`.ptx`), launched.
    PtxKernel,
    /// A mapping file (`.map`).
    Mapping,
    /// A progress test (AXB, either text form).
    Axb,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::LitmusPtx,
        Format::LitmusVulkan,
        Format::LitmusGpuPtx,
        Format::LitmusC,
        Format::Cat,
        Format::Spirv,
        Format::PtxKernel,
        Format::Mapping,
        Format::Axb,
    ];

    /// The fuzz target's name, which is also its seed folder's.
    pub fn name(self) -> &'static str {
        match self {
            Format::LitmusPtx => "litmus_ptx",
            Format::LitmusVulkan => "litmus_vulkan",
            Format::LitmusGpuPtx => "litmus_gpu_ptx",
            Format::LitmusC => "litmus_c",
            Format::Cat => "cat",
            Format::Spirv => "spirv",
            Format::PtxKernel => "ptx_kernel",
            Format::Mapping => "mapping",
            Format::Axb => "axb",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How far an input got: whether the format's front-end accepted it. The
/// in-process fuzzer keeps accepted mutants as new seeds (libFuzzer has
/// coverage for that; this is the cheap stand-in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Rejected,
    Accepted,
}

/// The limits of every check an input starts: short, so that one input
/// costs at most a few seconds, and a budget far below what a fuzzer's
/// process may hold (libFuzzer's default `-rss_limit_mb` is 2048).
pub const LIMITS: Limits = Limits {
    timeout_s: Some(0.5),
    max_memory_mb: Some(256),
    resident: false,
};

/// At most this many states of an AXB test's graph are explored (the
/// command line allows 2,000,000: seconds per input).
const AXB_MAX_STATES: usize = 20_000;

/// Runs one input of `format`; panics only where gpumc has a bug.
pub fn one(format: Format, data: &[u8]) -> Outcome {
    // The command line reads files as UTF-8 and refuses other bytes; the
    // lossy text lets the parsers see what follows a bad byte as well.
    let text = String::from_utf8_lossy(data);
    match format {
        Format::LitmusPtx | Format::LitmusVulkan | Format::LitmusGpuPtx | Format::LitmusC => {
            litmus(&text)
        }
        Format::Cat => cat(&text),
        Format::Spirv => spirv_kernel(&text),
        Format::PtxKernel => ptx_kernel(&text),
        Format::Mapping => mapping(&text),
        Format::Axb => axb(&text),
    }
}

/// Models are parsed once per process: they are fixed text, not input.
fn models() -> &'static ModelCache {
    static CACHE: OnceLock<ModelCache> = OnceLock::new();
    CACHE.get_or_init(ModelCache::default)
}

/// Checks a program text as `gpumc check` would: safety under `auto`
/// (the explicit engine for small programs, the symbolic one otherwise,
/// and the fallback between them), races with the symbolic engine and
/// liveness with the explicit one, so that both engines see most inputs;
/// each check under [`LIMITS`].
fn program(src: &str, name: &str, launch: Launch) -> Outcome {
    let name = Path::new(name);
    let Ok(p) = driver::parse_program_launched(src, name, &launch) else {
        return Outcome::Rejected;
    };
    let base = Config {
        limits: LIMITS,
        launch,
        max_states: Some(8),
        max_races: 8,
        ..Config::default()
    };
    for (property, engine) in [
        (Property::Safety, Engine::Auto),
        (Property::Races, Engine::Symbolic),
        (Property::Liveness, Engine::Explicit),
    ] {
        if property == Property::Liveness && !has_loop(&p) {
            // Nothing can spin: the check would only repeat the safety
            // enumeration.
            continue;
        }
        let cfg = Config {
            property,
            engine,
            ..base.clone()
        };
        let _ = driver::check_source(src, name, &cfg, models());
    }
    Outcome::Accepted
}

/// Whether some thread can jump backwards (a spinloop or other loop).
fn has_loop(p: &Program) -> bool {
    use crate::ir::InstrKind;
    p.threads.iter().any(|t| {
        let at = |label: &str| {
            t.instrs
                .iter()
                .position(|i| matches!(&i.kind, InstrKind::Label(l) if l == label))
        };
        t.instrs.iter().enumerate().any(|(k, i)| match &i.kind {
            InstrKind::Branch { target, .. } | InstrKind::Goto(target) => {
                at(target).is_some_and(|to| to <= k)
            }
            _ => false,
        })
    })
}

/// A litmus test: checked, printed back by the compiler's printers, and a
/// C test compiled with both built-in mappings.
fn litmus(src: &str) -> Outcome {
    let Ok(p) = crate::frontend::litmus::parse(src, Path::new("fuzz.litmus")) else {
        return Outcome::Rejected;
    };
    if p.arch == Arch::C {
        compile_with(&p, &builtin_mappings()[..]);
    } else {
        let _ = crate::compile::print::litmus(&p, &[]);
    }
    program(src, "fuzz.litmus", Launch::default())
}

/// The built-in mappings, parsed once.
fn builtin_mappings() -> &'static [Mapping; 2] {
    static MAPPINGS: OnceLock<[Mapping; 2]> = OnceLock::new();
    MAPPINGS.get_or_init(|| [Target::Ptx, Target::Vulkan].map(Mapping::default_for))
}

/// Compiles a C program with each mapping and prints the result (the
/// printer parses its own output again and compares).
fn compile_with(p: &Program, mappings: &[Mapping]) {
    for m in mappings {
        if let Ok(c) = crate::compile::compile(p, m, m.target) {
            let _ = crate::compile::print::litmus(&c.program, &[]);
        }
    }
}

/// A PTX module. Without a launch in the file (a `// gpumc-launch:` line)
/// nothing could be checked, so a small one is supplied: one block of two
/// threads, as far as the file does not say otherwise.
fn ptx_kernel(src: &str) -> Outcome {
    let mut launch = Launch::empty();
    if let Ok(header) = launch::from_header(src) {
        if header.grid.is_none() {
            launch.grid = Some([1, 1, 1]);
        }
        if header.block.is_none() {
            launch.block = Some([2, 1, 1]);
        }
    }
    program(src, "fuzz.ptx", launch)
}

/// A SPIR-V test: the generic translation and the parametric engine's
/// race and safety checks (any grid it takes), then as [`program`].
fn spirv_kernel(src: &str) -> Outcome {
    let name = Path::new("fuzz.spvasm");
    if crate::frontend::spirv::parse_generic(src, name).is_ok() {
        for property in [Property::Races, Property::Safety] {
            let cfg = Config {
                property,
                engine: Engine::Parametric,
                limits: LIMITS,
                max_races: 8,
                ..Config::default()
            };
            let _ = driver::check_source(src, name, &cfg, models());
        }
    }
    program(src, "fuzz.spvasm", Launch::default())
}

/// Small programs of every architecture that a fuzzed model judges.
fn model_programs() -> &'static [Program] {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        [
            (
                "MP.litmus",
                include_str!("../examples/ptx-asplos19/MP.litmus"),
            ),
            (
                "mp-vulkan.litmus",
                include_str!("../examples/mp-vulkan.litmus"),
            ),
            ("C-MP.litmus", include_str!("../examples/c/MP.litmus")),
        ]
        .iter()
        .map(|(name, text)| {
            crate::frontend::litmus::parse(text, Path::new(name))
                .unwrap_or_else(|e| panic!("example {name} does not parse: {e}"))
        })
        .collect()
    })
}

/// A `.cat` model: parsed (includes only from the embedded files, see
/// `models::parse_text`), then asked about a small program of each
/// architecture by both engines, races included (`flag` axioms).
fn cat(src: &str) -> Outcome {
    let Ok(model) = crate::models::parse_text(src, Path::new("")) else {
        return Outcome::Rejected;
    };
    let opts = Options {
        max_states: Some(8),
        max_races: 8,
        ..Options::default()
    };
    for p in model_programs() {
        let _scope = guard::enter(Guard::new(&LIMITS, Instant::now()));
        let _ = safety::check(p, &model, &opts);
        let _ = races::check(p, &model, &opts);
        let _ = symbolic::check_safety(p, &model, &opts);
    }
    Outcome::Accepted
}

/// C tests that a fuzzed mapping compiles: every kind of access, fences,
/// RMWs and scopes between them.
fn mapping_programs() -> &'static [Program] {
    static PROGRAMS: OnceLock<Vec<Program>> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        [
            ("MP.litmus", include_str!("../tests/compile/MP.litmus")),
            (
                "MP-fences.litmus",
                include_str!("../tests/compile/MP-fences.litmus"),
            ),
            (
                "ISA2-rmw-sc.litmus",
                include_str!("../tests/compile/ISA2-rmw-sc.litmus"),
            ),
            (
                "SB-sc.litmus",
                include_str!("../tests/compile/SB-sc.litmus"),
            ),
        ]
        .iter()
        .map(|(name, text)| {
            crate::frontend::litmus::parse(text, Path::new(name))
                .unwrap_or_else(|e| panic!("test {name} does not parse: {e}"))
        })
        .collect()
    })
}

/// A mapping file: parsed (each template through the litmus front-end),
/// described, and used to compile and print small C tests.
fn mapping(src: &str) -> Outcome {
    let Ok(m) = Mapping::parse(src, Path::new("fuzz.map")) else {
        return Outcome::Rejected;
    };
    let _ = m.describe();
    let _ = m.uncovered();
    for p in mapping_programs() {
        compile_with(p, std::slice::from_ref(&m));
    }
    Outcome::Accepted
}

/// A progress test: decided under every progress model (its state graph
/// capped), printed in both forms, which must read back as the same test,
/// and exported to both litmus dialects, which our front-end must read.
fn axb(src: &str) -> Outcome {
    use crate::progress::{export, lts, oracle, parse, print, Base, Model};
    let Ok(test) = parse::parse(src) else {
        return Outcome::Rejected;
    };
    // The parser reports every structural limit itself; the state graph
    // relies on it.
    if let Err(e) = test.validate() {
        panic!("the parser accepted an invalid test: {e}");
    }
    for base in Base::ALL {
        if let Ok(graph) = lts::explore_bounded(&test, base, AXB_MAX_STATES, usize::MAX) {
            for m in Model::ALL.into_iter().filter(|m| m.base == base) {
                let _ = oracle::verdict_on(&graph, m);
            }
        }
    }
    for printed in [print::to_txt(&test), print::to_simple(&test)] {
        match parse::parse(&printed) {
            Ok(back) => assert_eq!(back, test, "printed as\n{printed}"),
            Err(e) => panic!("the printed test does not parse again ({e}):\n{printed}"),
        }
    }
    for dialect in [export::Dialect::Ptx, export::Dialect::Vulkan] {
        let text = export::to_litmus(&test, dialect, "fuzz", "fuzz input");
        if let Err(e) = crate::frontend::litmus::parse(&text, Path::new("fuzz.litmus")) {
            panic!("the exported test does not parse ({e}):\n{text}");
        }
    }
    Outcome::Accepted
}
