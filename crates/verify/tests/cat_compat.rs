//! herd7 / Dat3M `.cat` compatibility (docs/EVENTS.md "Standard library"
//! and "Dat3M's tags", docs/MODELS.md "Coherence"):
//!
//! * our PTX v6.0 and Vulkan models rewritten in the herd/Dat3M style
//!   (`tests/models/`: standard-library names, standard includes, Dat3M's
//!   tag names, no coherence directive) give the embedded models' verdicts
//!   on every litmus test of the corpus (skipped without the corpus);
//! * the tags a Dat3M-style model relies on are there;
//! * herd/Dat3M constructs gpumc does not support are reported with
//!   `file:line:col: unsupported: …`, display directives are accepted.

use gpumc_core::cat::Model;
use gpumc_core::diag::ErrorKind;
use gpumc_core::ir::Arch;
use gpumc_verify::driver::{self, Config, Engine, ModelCache, Property};
use gpumc_verify::engine::safety::{self, Verdict};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;

fn style_model(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
        .display()
        .to_string()
}

fn config(model: &str, property: Property) -> Config {
    Config {
        model: Some(model.to_string()),
        bound: 1,
        property,
        ignore_filter: false,
        progress: Default::default(),
        engine: Engine::Auto,
        // The herd-style models spell release sequences in a way the
        // futile-iteration check does not recognise (docs/SEMANTICS.md,
        // "Futile iterations"): both sides count every iteration, so that
        // what is compared is the models, not how far each one reaches.
        futile_drop: false,
        ..Config::default()
    }
}

/// Checks every litmus file under `litmus/<dir>` with the embedded model
/// and with the style model; verdicts (and allowed final states, and error
/// messages) must be identical.
fn agree_on_corpus(dir: &str, embedded: &str, style: &str, property: Property) {
    let Some(root) = common::corpus() else { return };
    let files = driver::expand_paths(&[root.join("litmus").join(dir)]).expect("corpus lists");
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "litmus"))
        .collect();
    assert!(files.len() > 100, "{dir}: only {} files", files.len());
    let style = style_model(style);
    let cache = ModelCache::default();
    let (a, mut b) = (config(embedded, property), config(&style, property));
    // A model file gets herd7's total `co`; the style models are written
    // for the architecture's, as ours are, so they ask for it as a user
    // would (`--co partial` on PTX).
    if dir == "PTX" {
        b.co = Some(gpumc_core::ir::Coherence::Partial);
    }
    let results: Vec<(String, Option<String>)> = files
        .par_iter()
        .map(|f| {
            let x = driver::check_file(f, &a, &cache);
            let y = driver::check_file(f, &b, &cache);
            let same = x.verdict == y.verdict && x.states == y.states && x.message == y.message;
            let diff = (!same).then(|| {
                format!(
                    "{}: {embedded} {} {:?} / style {} {:?}",
                    f.display(),
                    x.verdict,
                    x.message,
                    y.verdict,
                    y.message
                )
            });
            (x.verdict, diff)
        })
        .collect();
    let count = |v: &str| results.iter().filter(|r| r.0 == v).count();
    let diffs: Vec<&String> = results.iter().filter_map(|r| r.1.as_ref()).collect();
    eprintln!(
        "{dir}, {embedded} vs {style} ({property:?}): {} files (PASS {}, FAIL {}, UNKNOWN {}, ERROR {}), {} differ",
        files.len(),
        count("PASS"),
        count("FAIL"),
        count("UNKNOWN"),
        count("ERROR"),
        diffs.len()
    );
    // Agreeing on undecided or one-sided verdicts would prove little.
    assert!(count("PASS") > 0 && count("FAIL") > 0);
    assert!(count("PASS") + count("FAIL") >= files.len() / 3);
    assert!(
        diffs.is_empty(),
        "{} differences (first 20):\n{}",
        diffs.len(),
        diffs
            .iter()
            .take(20)
            .map(|d| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn ptx_v6_0_herd_style_agrees_on_every_ptx_test() {
    agree_on_corpus(
        "PTX",
        "ptx-v6.0",
        "ptx-v6.0-herd-style.cat",
        Property::Safety,
    );
}

#[test]
fn vulkan_herd_style_agrees_on_every_vulkan_test() {
    agree_on_corpus(
        "VULKAN",
        "vulkan",
        "vulkan-herd-style.cat",
        Property::Safety,
    );
}

#[test]
fn vulkan_herd_style_agrees_on_races_of_every_vulkan_test() {
    agree_on_corpus("VULKAN", "vulkan", "vulkan-herd-style.cat", Property::Races);
}

#[test]
fn style_models_use_no_directive_and_the_library() {
    for f in ["ptx-v6.0-herd-style.cat", "vulkan-herd-style.cat"] {
        let m = gpumc_core::models::load(&style_model(f)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.coherence_override(), None, "{f}");
        // Library names are not engine inputs: they compile to base names.
        for (name, _) in m.inputs() {
            assert!(
                gpumc_verify::engine::exec::base_kind(name, None).is_some(),
                "{f}: input {name}"
            );
        }
    }
    // Loaded from a file, without a directive: herd7's total `co`, even
    // for PTX programs (the PTX comparison above asks for partial).
    let ptx = gpumc_core::models::load(&style_model("ptx-v6.0-herd-style.cat")).unwrap();
    assert!(!ptx.partial_co(Arch::Ptx));
    assert_eq!(
        ptx.coherence_for(Arch::Ptx).1,
        gpumc_core::cat::CoSource::Herd
    );
    let vk = gpumc_core::models::load(&style_model("vulkan-herd-style.cat")).unwrap();
    assert!(!vk.partial_co(Arch::Vulkan));
}

// ---------------------------------------------------------------------------
// Tags a Dat3M-style model relies on, seen through a one-axiom model: the
// test's outcome is reachable iff no event is in the set `forbidden`.

fn reachable(test: &str, forbidden: &str) -> bool {
    let src = format!("t\nempty [{forbidden}] as no-such-event\n");
    let none = |_: &str, _: &Path| -> Option<(PathBuf, String)> { None };
    let base = |n: &str| gpumc_verify::engine::exec::base_kind(n, None);
    let m = Model::parse(&src, Path::new("t.cat"), &none, &base).expect("model");
    let p = gpumc_frontend::litmus::parse(test, Path::new("t.litmus")).expect("test");
    let r = safety::check(&p, &m, &Default::default()).expect("check");
    r.verdict == Verdict::Pass
}

fn ptx_rmw(order: &str) -> String {
    format!(
        "PTX t\n{{ x=0; }}\n P0@cta 0,gpu 0 ;\n atom{order}.gpu.add r0, x, 1 ;\nexists (x == 1)\n"
    )
}

#[test]
fn ptx_rmw_halves_carry_dat3m_orders() {
    // (order, tags the read must lack, tags the write must lack)
    for (order, not_read, not_write) in [
        (".acquire", "RLX | REL", "ACQ | REL"),
        (".release", "ACQ | REL", "RLX | ACQ"),
        (".acq_rel", "RLX | REL", "RLX | ACQ"),
        (".relaxed", "ACQ | REL", "ACQ | REL"),
        ("", "ACQ | REL", "ACQ | REL"),
    ] {
        let t = ptx_rmw(order);
        assert!(reachable(&t, &format!("R & ({not_read})")), "{order} read");
        assert!(
            reachable(&t, &format!("W & ({not_write})")),
            "{order} write"
        );
        // ... and the halves do carry an order; ACQ_REL is on no memory event.
        assert!(!reachable(&t, "R & (RLX | ACQ)"), "{order}");
        assert!(!reachable(&t, "W & (RLX | REL)"), "{order}");
        assert!(reachable(&t, "M & ACQ_REL"), "{order}");
    }
}

/// A one-instruction Vulkan test whose outcome holds in every execution.
fn vulkan(cell: &str) -> String {
    let x = if cell.starts_with("ld") { 0 } else { 1 };
    format!("VULKAN t\n{{ x=0; }}\n P0@sg 0,wg 0,qf 0 ;\n {cell} ;\nexists (x == {x})\n")
}

#[test]
fn vulkan_atomics_are_implicitly_available_and_visible() {
    assert!(!reachable(
        &vulkan("st.atom.wg.sc0 x, 1"),
        "W & ATOM & AV & NONPRIV & WG"
    ));
    assert!(!reachable(
        &vulkan("ld.atom.dv.sc0 r0, x"),
        "R & ATOM & VIS & NONPRIV & DV"
    ));
    // A plain access is neither.
    assert!(reachable(&vulkan("st.sc0 x, 1"), "AV | VIS | ATOM"));
    // An RMW: the read is visible and the acquire, the write available and
    // the release; each carries the semantics of its side only.
    let rmw = vulkan("rmw.atom.acq_rel.wg.sc0.semsc0.semav.semvis r0, x, 1");
    assert!(!reachable(&rmw, "R & ATOM & VIS & ACQ & SEMSC0 & SEMVIS"));
    assert!(!reachable(&rmw, "W & ATOM & AV & REL & SEMSC0 & SEMAV"));
    assert!(reachable(
        &rmw,
        "(R & (AV | REL | SEMAV)) | (W & (VIS | ACQ | SEMVIS))"
    ));
    assert!(reachable(&rmw, "M & ACQ_REL"));
}

// ---------------------------------------------------------------------------
// Language: what is rejected, and where; what is accepted.

fn load_file(text: &str) -> Result<Model, gpumc_core::diag::Error> {
    // One file per call: tests run in parallel threads.
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("gpumc-cat-compat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("m{}.cat", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&path, text).unwrap();
    let r = gpumc_core::models::load(&path.display().to_string());
    let _ = std::fs::remove_file(&path);
    r
}

#[test]
fn unsupported_herd_and_dat3m_constructs_name_their_position() {
    for (src, line, col, what) in [
        ("m\nprocedure p() = acyclic po end\n", 2, 1, "`procedure`"),
        ("m\nlet x = po\ncall p(x)\n", 3, 1, "`call`"),
        ("m\nwith co from generate_cos(0)\n", 2, 1, "`with`"),
        ("m\nenum Scopes = 'a || 'b\n", 2, 1, "`enum`"),
        ("m\ninstructions R[x]\n", 2, 1, "`instructions`"),
        ("m\nif \"cos-opt\" include \"x.cat\" end\n", 2, 1, "`if`"),
        ("m\nlet x = match po with || {} -> 0 end\n", 2, 9, "`match`"),
        ("m\nacyclic classes-loc(loc)\n", 2, 9, "classes-loc"),
        ("m\n\n  acyclic sdv\n", 3, 11, "sdv"),
    ] {
        let e = load_file(src).expect_err(src);
        assert_eq!(e.kind, ErrorKind::Unsupported, "{src}: {e}");
        let shown = e.to_string();
        let at = format!(".cat:{line}:{col}: unsupported: ");
        assert!(shown.contains(&at), "{src}: {shown}");
        assert!(shown.contains(what), "{src}: {shown}");
    }
}

#[test]
fn display_directives_and_dat3m_idioms_are_accepted() {
    // A model as Dat3M users write it: po-loc and friends without a
    // definition, show/unshow, a named flag, cos.cat included.
    let src = "PTX \"dat3m-like\"\ninclude \"cos.cat\"\n\
               let com = rfe | coe | fre\n\
               show com\nunshow po as program-order\n\
               acyclic po-loc | rf | co | fr as sc-per-location\n\
               acyclic (po | com) \\ (W * R) as tso\n\
               flag ~empty fencerel(F) as has-fences\n";
    let m = load_file(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.name(), "dat3m-like");
    let names: Vec<_> = m.axioms().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["sc-per-location", "tso", "has-fences"]);
    // A file that is really missing is still an error with its position.
    let e = load_file("m\n\ninclude \"nowhere.cat\"\n").expect_err("missing include");
    assert!(
        e.to_string()
            .contains(".cat:3:1: cannot find included file"),
        "{e}"
    );
}

#[test]
fn a_model_file_gets_herds_total_coherence_unless_it_asks() {
    // Tong et al., ASPLOS'24 Fig. 6: two writers, two readers disagreeing on their order.
    let fig6 = "PTX fig6\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 0 | P2@cta 0,gpu 0 | P3@cta 0,gpu 0 ;\n st.weak x, 1 | st.weak x, 2 | ld.weak r0, x | ld.weak r2, x ;\n | | ld.weak r1, x | ld.weak r3, x ;\nexists (P2:r0 == 1 /\\ P2:r1 == 2 /\\ P3:r2 == 2 /\\ P3:r3 == 1)\n";
    let dir = std::env::temp_dir().join(format!("gpumc-cat-compat-co-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let test = dir.join("fig6.litmus");
    std::fs::write(&test, fig6).unwrap();
    let coherent = "coh\nacyclic po-loc | rf | co | fr\n";
    let check = |model: &str, co: Option<gpumc_core::ir::Coherence>| {
        let m = dir.join(format!("m{}.cat", model.len()));
        std::fs::write(&m, model).unwrap();
        let cfg = Config {
            co,
            ..config(&m.display().to_string(), Property::Safety)
        };
        driver::check_file(&test, &cfg, &ModelCache::default())
    };
    // herd7's total `co` for a model file, said in the report: the two
    // readers cannot disagree on the order of the writes.
    let r = check(coherent, None);
    assert_eq!(r.verdict, "FAIL", "a model file: total");
    assert_eq!(r.co, Some(gpumc_core::ir::Coherence::Total));
    assert_eq!(
        r.co_note.as_deref(),
        Some("herd7's, for a model given as a file")
    );
    // Partial where the model asks, or the command line.
    let partial = format!("{coherent}// gpumc: partial-co\n");
    let r = check(&partial, None);
    assert_eq!(r.verdict, "PASS", "the model asks for partial");
    assert_eq!(r.co_note.as_deref(), Some("the model's `// gpumc:` line"));
    let r = check(coherent, Some(gpumc_core::ir::Coherence::Partial));
    assert_eq!(r.verdict, "PASS", "--co partial");
    assert_eq!(r.co_note.as_deref(), Some("--co"));
    // `--co` over the model's line.
    let r = check(&partial, Some(gpumc_core::ir::Coherence::Total));
    assert_eq!(r.verdict, "FAIL", "--co total over the line");
    // Our embedded PTX model keeps the architecture's partial `co`; the
    // text report says nothing then.
    let r = check_embedded(&test);
    assert_eq!(r.co, Some(gpumc_core::ir::Coherence::Partial));
    assert_eq!(r.co_note, None);
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_embedded(test: &Path) -> driver::FileReport {
    driver::check_file(
        test,
        &config("ptx-v7.5", Property::Safety),
        &ModelCache::default(),
    )
}

/// A model given as a file reads a C RMW's order on both its events, as
/// herd7 tags them; our embedded models read it split (docs/EVENTS.md,
/// "RMW halves"). A failed compare-exchange reads with its failure order.
#[test]
fn a_model_file_reads_c_rmw_orders_as_herd_does() {
    let dir = std::env::temp_dir().join(format!("gpumc-cat-compat-rmw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let test = |name: &str, body: &str| {
        let t = dir.join(format!("{name}.litmus"));
        let src = format!(
            "C {name}\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n  {body}\n}}\nexists (x = 1)\n"
        );
        std::fs::write(&t, src).unwrap();
        t
    };
    // Fires when some read carries ACQ_REL / some write carries ACQ.
    let model = dir.join("orders.cat");
    std::fs::write(
        &model,
        "orders\nacyclic po | rf as causality\nflag ~empty [R & ACQ_REL] as acq-rel-read\nflag ~empty [W & ACQ] as acquire-write\nflag ~empty [R & ACQ] as acquire-read\n",
    )
    .unwrap();
    let flags = |t: &Path, model: &str| {
        let cfg = Config {
            flags: true,
            ..config(model, Property::Safety)
        };
        let r = driver::check_file(t, &cfg, &ModelCache::default());
        assert!(r.verdict != "ERROR", "{:?}", r.message);
        let mut f = r.flags.clone();
        f.sort();
        f
    };
    let file = model.display().to_string();
    let add = test(
        "add",
        "int r = atomic_fetch_add_explicit(x, 1, memory_order_acq_rel);",
    );
    assert_eq!(flags(&add, &file), ["acq-rel-read"]);
    let acq = test(
        "acq",
        "int r = atomic_fetch_add_explicit(x, 1, memory_order_acquire);",
    );
    assert_eq!(flags(&acq, &file), ["acquire-read", "acquire-write"]);
    // acq_rel on success, acquire (its split read part) on failure: the
    // failed read is an acquire, not acq_rel, in herd's reading too.
    let cas = test(
        "cas",
        "int e = 1; int ok = atomic_compare_exchange_strong_explicit(x, &e, 1, memory_order_acq_rel, memory_order_acquire);",
    );
    assert_eq!(flags(&cas, &file), ["acquire-read"]);
    // The same flags in a model that says it is written for gpumc: split.
    let gpumc_model = dir.join("orders-gpumc.cat");
    std::fs::write(
        &gpumc_model,
        "orders\n// gpumc: total-co\nacyclic po | rf as causality\nflag ~empty [R & ACQ_REL] as acq-rel-read\nflag ~empty [W & ACQ] as acquire-write\nflag ~empty [R & ACQ] as acquire-read\n",
    )
    .unwrap();
    assert_eq!(
        flags(&add, &gpumc_model.display().to_string()),
        ["acquire-read"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every flag that fires is listed (herd7's `Flag` lines), however many
/// racing pairs an earlier flag has: the list of pairs is capped
/// (`--max-races`), the list of flags is not.
#[test]
fn every_firing_flag_is_listed_past_the_race_cap() {
    let dir = std::env::temp_dir().join(format!("gpumc-cat-compat-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Twelve instructions: 144 pairs in `everything`, over the cap.
    let body: String = (0..12)
        .map(|k| format!("  int r{k} = atomic_load_explicit(x, memory_order_relaxed);\n"))
        .collect();
    let t = dir.join("loads.litmus");
    std::fs::write(
        &t,
        format!("C loads\n{{ x = 0; }}\nP0 (atomic_int* x) {{\n{body}  atomic_store_explicit(x, 1, memory_order_relaxed);\n}}\nexists (x = 1)\n"),
    )
    .unwrap();
    let model = dir.join("flags.cat");
    std::fs::write(
        &model,
        "flags\nacyclic po | rf as causality\nflag ~empty (M * M) as everything\nflag ~empty [W & ~IW] as writes\nundefined_unless empty [W & ~IW] as no-writes\n",
    )
    .unwrap();
    for engine in [Engine::Explicit, Engine::Symbolic] {
        let cfg = Config {
            flags: true,
            engine,
            max_races: 4,
            ..config(&model.display().to_string(), Property::Safety)
        };
        let r = driver::check_file(&t, &cfg, &ModelCache::default());
        assert!(r.verdict != "ERROR", "{engine:?}: {:?}", r.message);
        assert_eq!(r.flags, ["everything", "writes"], "{engine:?}");
        assert_eq!(r.undefined_unless, ["no-writes"], "{engine:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
