//! End-to-end tests of the `.cat` front-end through its public API, with
//! the base names of `docs/EVENTS.md`.

use gpumc_core::cat::{AxiomKind, BaseKind, Model, Value};
use gpumc_core::ir::{Arch, Coherence};
use gpumc_core::rel::{EventSet, Relation};
use std::path::{Path, PathBuf};
use std::time::Instant;

const SETS: &[&str] = &[
    "R",
    "W",
    "M",
    "F",
    "B",
    "IW",
    "I",
    "RMW",
    "WEAK",
    "RLX",
    "ACQ",
    "REL",
    "ACQ_REL",
    "SC",
    "CTA",
    "GPU",
    "SYS",
    "GEN",
    "SUR",
    "TEX",
    "CON",
    "ALIAS",
    "PROXY",
    "CBAR",
    "ARRIVE",
    "ATOM",
    "A",
    "NONPRIV",
    "SG",
    "WG",
    "QF",
    "DV",
    "SC0",
    "SC1",
    "SEMSC0",
    "SEMSC1",
    "AV",
    "VIS",
    "SEMAV",
    "SEMVIS",
    "AVDEVICE",
    "VISDEVICE",
];
const RELS: &[&str] = &[
    "po",
    "int",
    "ext",
    "loc",
    "vloc",
    "rf",
    "co",
    "fr",
    "rmw",
    "addr",
    "data",
    "ctrl",
    "sr",
    "scta",
    "ssg",
    "swg",
    "sqf",
    "ssw",
    "sync_barrier",
    "syncbar",
    "sync_fence",
];

fn base(name: &str) -> Option<BaseKind> {
    if SETS.contains(&name) {
        Some(BaseKind::Set)
    } else if RELS.contains(&name) {
        Some(BaseKind::Relation)
    } else {
        None
    }
}

/// A PTX-flavoured model (written for these tests), split over two files.
const PROXIES: &str = r#""proxies"
(* Same-proxy pairs. *)
let same-proxy = GEN * GEN | SUR * SUR | TEX * TEX | CON * CON
let fence-to-mem = [F] ; (same-proxy & scta) ; [M]
"#;

const PTX_LIKE: &str = r#"PTX "ptx-like"
// gpumc: partial-co
include "proxies.cat"

let co = co+
let fr = rf^-1 ; co
let po-loc = po & loc

(* Morally strong pairs. *)
let strong = (M \ WEAK) | F
let ms = ((po | po^-1) | ([strong] ; sr ; [strong])) & same-proxy
         & (((M * M) & vloc) | ((_ * _) \ (M * M))) \ id

let release-pattern = [REL] ; po-loc? ; [W]
let acquire-pattern = [R] ; po-loc? ; [ACQ]
let obs = (ms & rf) | (ms & co)
let sw = release-pattern ; obs+ ; acquire-pattern
let rec cause = po | sw | (cause ; cause)

empty ([W] ; cause ; [W]) & loc \ co as coherence
empty (([F & SC] ; cause ; [F & SC]) \ sync_fence) as fence-sc
empty ((ms & fr) ; (ms & co)) & rmw as atomicity
acyclic rf | addr | data | ctrl as no-thin-air
irreflexive (rf | fr) ; cause as causality
"#;

/// A Vulkan-flavoured model (written for these tests) with a data-race flag.
const VULKAN_LIKE: &str = r#""Vulkan-like"
let inscope = (DV * DV) | (sqf & ((DV | QF) * (DV | QF)))
    | (swg & ((DV | QF | WG) * (DV | QF | WG)))
let mo-atomics = (loc & inscope & (A * A)) \ id
let asmo = co & ((A | IW) * A)
let fr = (rf^-1 ; asmo) | (([IW] ; rf)^-1 ; ((loc ; [W]) \ id))
let sw = inscope & ([REL & A] ; (rf & mo-atomics) ; [ACQ & A])
let ithb = (ssw | sw | po)+
let hb = ithb | po
let locord = loc & (hb & int & vloc | [R \ NONPRIV] ; hb ; [(R | W) \ NONPRIV])
let non-rmw-reads = (R \ RMW) * (R \ RMW)

empty ([A & W] ; mo-atomics ; [A & W]) \ (asmo | asmo^-1) as coherence
acyclic locord | rf | fr | asmo as consistency
empty rmw & (fr & ext ; (asmo & ext)) as atomicity

let wm = ((W * W) | (W * R) | (R * W)) \ ((IW * _) | (_ * IW))
let dr = loc & (wm \ mo-atomics \ id \ (locord | locord^-1))
flag ~empty dr as data-race
"#;

fn resolver(name: &str, _: &Path) -> Option<(PathBuf, String)> {
    (name == "proxies.cat").then(|| (PathBuf::from("models/proxies.cat"), PROXIES.to_string()))
}

fn load(src: &str) -> Model {
    Model::parse(src, Path::new("models/test.cat"), &resolver, &base)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A tiny deterministic pseudo-random generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn rel(&mut self, n: usize, density: u64) -> Relation {
        let mut r = Relation::empty(n);
        for i in 0..n {
            for j in 0..n {
                if self.next() % 1000 < density {
                    r.insert(i, j);
                }
            }
        }
        r
    }

    fn set(&mut self, n: usize) -> EventSet {
        EventSet::from_iter(n, (0..n).filter(|_| self.next().is_multiple_of(2)))
    }
}

fn random_inputs(m: &Model, n: usize, rng: &mut Lcg) -> Vec<Value> {
    m.inputs()
        .iter()
        .map(|(name, k)| match k {
            BaseKind::Set => Value::Set(rng.set(n)),
            BaseKind::Relation if name == "po" => Value::Rel(Relation::from_pairs(
                n,
                (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))),
            )),
            BaseKind::Relation => Value::Rel(rng.rel(n, 20)),
        })
        .collect()
}

#[test]
fn ptx_like_model_compiles_and_evaluates() {
    let m = load(PTX_LIKE);
    assert_eq!(m.name(), "ptx-like");
    assert_eq!(m.coherence_override(), Some(Coherence::Partial));
    assert!(m.partial_co(Arch::Vulkan));
    let names: Vec<_> = m.axioms().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "coherence",
            "fence-sc",
            "atomicity",
            "no-thin-air",
            "causality"
        ]
    );
    assert!(m.axioms().iter().all(|a| !a.flag));
    assert_eq!(m.axioms()[3].kind, AxiomKind::Acyclic);
    // Every input is a documented base name, with its kind.
    for (name, kind) in m.inputs() {
        assert_eq!(base(name), Some(*kind), "{name}");
    }
    let n = 24;
    let mut rng = Lcg(7);
    let inputs = random_inputs(&m, n, &mut rng);
    let mut ev = m.evaluator(n);
    for (i, v) in inputs.into_iter().enumerate() {
        ev.set_input(i, v);
    }
    let _ = ev.first_violation();
    // `cause` is a let rec: it contains po and is transitive.
    let cause = match ev.binding("cause") {
        Some(Value::Rel(r)) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(cause.compose(&cause).difference(&cause).len(), 0);
    let po = match ev.binding("po") {
        Some(Value::Rel(r)) => r,
        other => panic!("{other:?}"),
    };
    assert!(po.difference(&cause).is_empty());
}

#[test]
fn vulkan_like_model_flags_races() {
    let m = load(VULKAN_LIKE);
    assert_eq!(m.name(), "Vulkan-like");
    // No directive: the architecture decides.
    assert_eq!(m.coherence_override(), None);
    assert!(!m.partial_co(Arch::Vulkan));
    assert!(m.partial_co(Arch::Ptx));
    let flag = m.axioms().iter().position(|a| a.flag).expect("a flag");
    assert_eq!(m.axioms()[flag].name, "data-race");
    assert_eq!(m.axioms()[flag].kind, AxiomKind::NotEmpty);

    // Two plain writes to one location from two threads: a race.
    let n = 2;
    let mut ev = m.evaluator(n);
    let all = Relation::from_pairs(n, [(0, 0), (0, 1), (1, 0), (1, 1)]);
    for (i, (name, _)) in m.inputs().iter().enumerate() {
        let v = match name.as_str() {
            "W" => Value::Set(EventSet::full(n)),
            "loc" | "vloc" => Value::Rel(all.clone()),
            "ext" => Value::Rel(Relation::from_pairs(n, [(0, 1), (1, 0)])),
            "int" => Value::Rel(Relation::identity(n)),
            "co" => Value::Rel(Relation::from_pairs(n, [(0, 1)])),
            _ => continue,
        };
        ev.set_input(i, v);
    }
    assert_eq!(ev.first_violation(), None);
    match ev.flag(flag) {
        Some(Value::Rel(dr)) => assert!(dr.contains(0, 1) && dr.contains(1, 0)),
        other => panic!("expected a race, got {other:?}"),
    }
}

#[test]
fn repeated_checks_reuse_static_work() {
    let m = load(VULKAN_LIKE);
    let n = 40;
    let mut rng = Lcg(42);
    let inputs = random_inputs(&m, n, &mut rng);
    let dynamic = ["rf", "co"];
    let mut ev = m.evaluator(n);
    for (i, v) in inputs.iter().enumerate() {
        ev.set_input(i, v.clone());
    }
    let _ = ev.first_violation();
    let start = Instant::now();
    let before = ev.units_run();
    let rounds = 300;
    for _ in 0..rounds {
        for (i, (name, _)) in m.inputs().iter().enumerate() {
            if dynamic.contains(&name.as_str()) {
                ev.set_input(i, Value::Rel(rng.rel(n, 10)));
            }
        }
        let _ = ev.first_violation();
    }
    let per_round = (ev.units_run() - before) as f64 / rounds as f64;
    let (_, units) = m.size();
    // Static parts (inscope, mo-atomics, wm, …) are not recomputed.
    assert!(
        per_round < units as f64 * 0.8,
        "{per_round} of {units} units per round"
    );
    eprintln!(
        "{rounds} rounds on {n} events: {:?} ({per_round:.1} of {units} units per round)",
        start.elapsed()
    );
}

/// Found by fuzzing: each name was looked up through every definition
/// before it, so 160,000 `let`s took over 20 s. The bound is generous
/// (speed belongs to benchmarks): quadratic would be minutes.
#[test]
fn a_model_of_160000_lets_loads_in_linear_time() {
    const N: usize = 160_000;
    // Names of one length with a long common prefix: a scan compares
    // each whole (a linear scan per lookup takes a minute here).
    let name = |i: usize| format!("a_long_prefix_that_every_name_shares_{i:06}");
    let r0 = name(0);
    // Each definition reads the first one, the last a scan finds.
    let first: String = (1..N)
        .map(|i| format!("let {} = {r0} ; po\n", name(i)))
        .collect();
    // Each definition names a base relation: a lookup that fails.
    let free: String = (1..N).map(|i| format!("let {} = po\n", name(i))).collect();
    // One name, shadowed again and again.
    let shadowed: String = (1..N).map(|_| format!("let {r0} = {r0} ; po\n")).collect();
    for (what, body, last) in [
        ("first", first, name(N - 1)),
        ("free", free, name(N - 1)),
        ("shadowed", shadowed, r0.clone()),
    ] {
        let src = format!("\"lets\"\nlet {r0} = po\n{body}acyclic {last} as last\n");
        let start = Instant::now();
        let m = load(&src);
        let took = start.elapsed();
        assert!(took.as_secs_f64() < 10.0, "{what}: {took:?}");
        assert_eq!(m.axioms().len(), 1, "{what}");
        assert_eq!(m.inputs().len(), 1, "{what}: only `po` is an input");
    }
}

/// Loading a model keeps the deadline of the check (`--timeout`): the
/// lexer, the parser, the loader and the compiler test the guard.
#[test]
fn loading_a_model_keeps_the_deadline() {
    use gpumc_core::guard::{self, Guard, Limits};
    let src: String = std::iter::once("\"slow\"\nlet r0 = po\n".to_string())
        .chain((1..50_000).map(|i| format!("let r{i} = r{} ; po\n", i - 1)))
        .collect();
    let limits = Limits {
        timeout_s: Some(0.001),
        ..Limits::none()
    };
    {
        let _scope = guard::enter(Guard::new(&limits, Instant::now()));
        std::thread::sleep(std::time::Duration::from_millis(5));
        let e = Model::parse(&src, Path::new("slow.cat"), &resolver, &base).unwrap_err();
        assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Limit, "{e}");
        assert!(e.message.starts_with("timeout:"), "{e}");
    }
    // Without the guard it loads.
    load(&src);
}

#[test]
fn errors_carry_file_line_and_column() {
    let src = "\"m\"\nlet a = po\nlet b = a | W\n";
    let e = Model::parse(src, Path::new("models/m.cat"), &resolver, &base).unwrap_err();
    assert_eq!(
        e.to_string(),
        "models/m.cat:3:11: type error: `|` needs two sets or two relations, \
         but its left operand is a relation and its right operand a set"
    );
    let e = Model::parse("acyclic po | rff", Path::new("m.cat"), &resolver, &base).unwrap_err();
    assert_eq!(e.to_string(), "m.cat:1:14: unknown identifier `rff`");
}
