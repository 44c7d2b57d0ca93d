//! Execution graphs (`report::graph`): what the engines record for them,
//! and golden DOT/SVG files of the examples.
//!
//! The golden files are `tests/golden/graphs/<example>.{dot,svg}`. After
//! an intended change of the pictures, regenerate them with
//!
//! ```text
//! GPUMC_BLESS=1 cargo test --release -p gpumc-verify --test graphs
//! ```
//!
//! and look at the new SVGs before committing them.

use gpumc_verify::driver::{check_file, Config, Engine, FileReport, ModelCache, Property};
use gpumc_verify::engine::witness::{GraphRequest, Witness};
use gpumc_verify::report::graph::{dot, drawings, svg, GraphOptions};
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    gpumc_testutil::repo_root().join("examples").join(name)
}

fn request(relations: &[&str], all: bool, max: usize) -> GraphRequest {
    GraphRequest {
        relations: relations.iter().map(|s| s.to_string()).collect(),
        all,
        max,
        full: false,
    }
}

fn check(path: &Path, engine: Engine, graph: Option<GraphRequest>) -> FileReport {
    let cfg = Config {
        engine,
        graph,
        ..Config::default()
    };
    let r = check_file(path, &cfg, &ModelCache::default());
    assert_ne!(r.verdict, "ERROR", "{}: {:?}", path.display(), r.message);
    r
}

/// Compares `text` with the golden file `name`, or writes it with
/// `GPUMC_BLESS=1`.
fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/graphs")
        .join(name);
    if std::env::var_os("GPUMC_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (regenerate with GPUMC_BLESS=1 cargo test --release -p gpumc-verify --test graphs)",
            path.display()
        )
    });
    if want != text {
        let line = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .map_or(want.lines().count().min(text.lines().count()), |k| k);
        panic!(
            "{} differs from the rendering at line {}:\n  golden: {:?}\n  now:    {:?}\n(regenerate with GPUMC_BLESS=1 if the change is intended)",
            path.display(),
            line + 1,
            want.lines().nth(line),
            text.lines().nth(line)
        );
    }
}

/// The one drawing of an example (witness or rejected candidate), with
/// the explicit engine.
fn drawing(name: &str) -> gpumc_verify::report::graph::Drawing {
    let r = check(
        &example(name),
        Engine::Explicit,
        Some(request(&[], false, 64)),
    );
    let mut d = drawings(&r, false);
    assert_eq!(d.len(), 1, "{name}: {d:?}");
    d.remove(0)
}

#[test]
fn golden_mp_weak_allowed_ptx() {
    let d = drawing("MP-weak.litmus");
    assert!(d.witness.violation.is_none());
    assert_eq!(d.suffix, "");
    let s = svg(&d.witness, &d.options);
    // The thread columns, scope boxes and all four base relations.
    for needle in [
        "class=\"thread-label\"",
        ">P0<",
        ">P1<",
        "data-scope=\"cta 1\"",
        "data-scope=\"gpu 0\"",
        "edge rel-po",
        "edge rel-rf",
        "edge rel-co",
        "edge rel-fr",
    ] {
        assert!(s.contains(needle), "no `{needle}` in the SVG");
    }
    assert!(!s.contains("cycle\""), "an allowed execution has no cycle");
    golden("MP-weak.svg", &s);
    golden("MP-weak.dot", &dot(&d.witness, &d.options));
}

#[test]
fn golden_mp_relacq_forbidden_ptx() {
    let d = drawing("MP-relacq.litmus");
    let v = d.witness.violation.as_ref().expect("a rejected candidate");
    assert_eq!(v.axiom, "causality");
    assert_eq!(v.kind, "irreflexive");
    // irreflexive (rf | fr); cause: the stale read's fr to the payload
    // write, which causes it (release/acquire through the flag).
    let rels: Vec<&str> = v.steps.iter().map(|s| s.rel.as_str()).collect();
    assert_eq!(rels, ["fr", "cause"], "{v:?}");
    let e = |id: usize| &d.witness.events[id];
    assert_eq!(e(v.steps[0].from).kind, "R");
    assert_eq!(e(v.steps[0].to).kind, "W");
    assert_eq!(e(v.steps[0].to).location.as_deref(), Some("x"));
    assert_eq!(d.suffix, "");
    assert_eq!(
        d.witness.state,
        [("P1:r0".to_string(), 1), ("P1:r1".to_string(), 0)]
    );
    let s = svg(&d.witness, &d.options);
    assert!(s.contains("edge rel-fr cycle"), "the cycle's fr edge");
    assert!(s.contains("edge rel-cause cycle"), "the cycle's cause edge");
    assert!(s.contains("in-cycle"));
    let t = dot(&d.witness, &d.options);
    assert!(t.contains("class=\"edge rel-cause cycle\""));
    golden("MP-relacq.svg", &s);
    golden("MP-relacq.dot", &t);
}

#[test]
fn golden_mp_vulkan_forbidden() {
    let d = drawing("mp-vulkan.litmus");
    let v = d.witness.violation.as_ref().expect("a rejected candidate");
    assert_eq!(
        (v.axiom.as_str(), v.kind.as_str()),
        ("consistency", "acyclic")
    );
    assert!(v.cycle.len() >= 2, "{v:?}");
    // The cycle closes.
    assert_eq!(v.steps.first().unwrap().from, v.steps.last().unwrap().to);
    // Vulkan placement: queue family / workgroup / subgroup.
    let scopes: Vec<String> = d.witness.threads.iter().map(|t| t.scope_path()).collect();
    assert_eq!(scopes, ["qf 0 / wg 0 / sg 0", "qf 0 / wg 1 / sg 0"]);
    let s = svg(&d.witness, &d.options);
    assert!(s.contains("data-scope=\"wg 1\""));
    assert!(s.contains(" cycle\""));
    golden("mp-vulkan.svg", &s);
    golden("mp-vulkan.dot", &dot(&d.witness, &d.options));
}

#[test]
fn event_tags_and_placement_only_with_a_graph() {
    let plain = check(&example("MP-relacq.litmus"), Engine::Explicit, None);
    assert!(plain.graph.is_none());
    let json = gpumc_verify::report::json(&plain);
    for key in [
        "\"tags\"",
        "\"threads\"",
        "\"relations\"",
        "\"violation\"",
        "\"graph\"",
    ] {
        assert!(!json.contains(key), "{key} without a graph request: {json}");
    }
    let r = check(
        &example("MP-weak.litmus"),
        Engine::Explicit,
        Some(request(&[], false, 64)),
    );
    let w = r.witness.as_ref().unwrap();
    let tags = |line: u32, thread: &str| {
        w.events
            .iter()
            .find(|e| e.line == line && e.thread == thread)
            .map(|e| e.tags.clone())
            .unwrap()
    };
    assert!(tags(9, "P0").contains(&"WEAK".to_string()));
    assert_eq!(w.threads[1].scope_path(), "gpu 0 / cta 1");
    let r = check(
        &example("MP-relacq.litmus"),
        Engine::Explicit,
        Some(request(&[], false, 64)),
    );
    let w = r.graph.as_ref().unwrap().rejected.as_ref().unwrap();
    let tags = |line: u32, thread: &str| {
        w.events
            .iter()
            .find(|e| e.line == line && e.thread == thread)
            .map(|e| e.tags.clone())
            .unwrap()
    };
    assert!(tags(10, "P0").contains(&"REL".to_string()));
    assert!(tags(10, "P0").contains(&"GPU".to_string()));
    assert!(tags(9, "P1").contains(&"ACQ".to_string()));
}

#[test]
fn shown_relations_and_json_round_trip() {
    let r = check(
        &example("MP-relacq.litmus"),
        Engine::Explicit,
        Some(request(&["cause", "sw"], true, 64)),
    );
    let g = r.graph.as_ref().unwrap();
    assert_eq!(g.executions.len(), 3, "three allowed executions");
    assert!(!g.capped);
    for w in g.executions.iter().chain(&g.rejected) {
        let names: Vec<&str> = w.relations.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["cause", "sw"]);
    }
    // The rejected candidate: its `cause` holds the cycle's second step.
    let rej = g.rejected.as_ref().unwrap();
    let cause = &rej.relations[0].pairs;
    let v = rej.violation.as_ref().unwrap();
    assert!(cause.contains(&(v.steps[1].from, v.steps[1].to)));
    // Witnesses cross process boundaries as JSON (worker processes, the
    // HTML report).
    let json = gpumc_verify::report::json(&r);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let back: gpumc_verify::engine::witness::GraphData =
        serde_json::from_value(value["graph"].clone()).unwrap();
    assert_eq!(&back, g);
    // A whole report read back draws the same pictures (the HTML report
    // reads reports from JSON lines).
    let reread: FileReport = serde_json::from_str(&json).unwrap();
    assert_eq!(drawings(&reread, true), drawings(&r, true));
    let all = drawings(&r, true);
    let suffixes: Vec<&str> = all.iter().map(|d| d.suffix.as_str()).collect();
    assert_eq!(suffixes, ["-1", "-2", "-3", "-rejected"]);
    // A drawing's named relations are drawn, one legend entry each.
    let s = svg(&all[0].witness, &all[0].options);
    assert!(s.contains("legend-entry rel-cause"));
    assert!(s.contains("legend-entry rel-sw"));
    // Only those asked for, with `GraphOptions::show`.
    let only = GraphOptions {
        show: Some(vec!["sw".into()]),
        ..all[0].options.clone()
    };
    assert!(!svg(&all[0].witness, &only).contains("legend-entry rel-cause"));
}

#[test]
fn witness_with_inputs_round_trips() {
    let w = Witness {
        inputs: vec![("n".into(), 3), ("a".into(), -1)],
        ..Witness::default()
    };
    let s = serde_json::to_string(&w).unwrap();
    assert!(s.contains("\"inputs\":{\"n\":3,\"a\":-1}"), "{s}");
    let back: Witness = serde_json::from_str(&s).unwrap();
    assert_eq!(back, w);
}

#[test]
fn graph_max_caps_the_executions() {
    let r = check(
        &example("MP-weak.litmus"),
        Engine::Explicit,
        Some(request(&[], true, 2)),
    );
    let g = r.graph.as_ref().unwrap();
    assert_eq!(g.executions.len(), 2);
    assert!(g.capped);
    assert!(gpumc_verify::report::text(&r).contains("--graph-max cut the rest"));
    let d = drawings(&r, true);
    assert_eq!(d.len(), 2);
    assert!(d[0].options.caption.contains("cut by --graph-max"));
}

#[test]
fn symbolic_engine_records_the_same_pictures() {
    for name in ["MP-weak.litmus", "MP-relacq.litmus", "mp-vulkan.litmus"] {
        let req = Some(request(&["po"], true, 64));
        let e = check(&example(name), Engine::Explicit, req.clone());
        let s = check(&example(name), Engine::Symbolic, req);
        let (ge, gs) = (e.graph.unwrap(), s.graph.unwrap());
        assert_eq!(
            ge.executions.len(),
            gs.executions.len(),
            "{name}: allowed executions"
        );
        let axiom = |g: &gpumc_verify::engine::witness::GraphData| {
            g.rejected
                .as_ref()
                .map(|w| w.violation.as_ref().unwrap().axiom.clone())
        };
        assert_eq!(axiom(&ge), axiom(&gs), "{name}: violated axiom");
        if let Some(w) = &gs.rejected {
            assert!(!w.threads.is_empty() && !w.relations.is_empty());
        }
        if let Some(w) = &s.witness {
            assert!(!w.threads.is_empty(), "{name}: symbolic witness placement");
            assert_eq!(w.relations[0].name, "po");
        }
    }
}

#[test]
fn unknown_shown_relation_is_a_usage_error_listing_the_names() {
    let cfg = Config {
        graph: Some(request(&["no_such_rel"], false, 64)),
        ..Config::default()
    };
    let r = check_file(&example("MP-weak.litmus"), &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "ERROR");
    let m = r.message.unwrap();
    assert!(m.contains("`no_such_rel`"), "{m}");
    for known in ["cause", "rf", "sw", "po"] {
        assert!(m.contains(&format!(" {known}")), "{m}");
    }
    assert_eq!(r.error.unwrap().kind, gpumc_core::diag::ErrorKind::Usage);
}

#[test]
fn races_and_liveness_witnesses_carry_placement() {
    let dir = std::env::temp_dir().join(format!("gpumc-graphs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let racy = dir.join("racy.litmus");
    std::fs::write(
        &racy,
        "VULKAN racy\n{\nx=0;\n}\n P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 1, qf 0 ;\n st.sc0 x, 1 | ld.sc0 r0, x ;\nexists (P1:r0 == 1)\n",
    )
    .unwrap();
    let cfg = Config {
        property: Property::Races,
        graph: Some(request(&[], false, 64)),
        ..Config::default()
    };
    let r = check_file(&racy, &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    let w = r.witness.as_ref().unwrap();
    assert_eq!(w.threads.len(), 2);
    let d = drawings(&r, false);
    assert!(
        d[0].options
            .caption
            .starts_with("Data race (RAW) on x, flag dr:"),
        "{:?}",
        d[0].options
    );
    // The reported pair is the marked one, with its kind on the edge.
    let pair = r.races[0].events;
    let v = d[0].witness.violation.as_ref().expect("the pair marked");
    assert_eq!((v.kind.as_str(), v.edges.as_slice()), ("race", &[pair][..]));
    let s = svg(&d[0].witness, &d[0].options);
    assert!(s.contains(&format!(
        "class=\"edge rel-race_RAW cycle\" data-rel=\"race RAW\" data-from=\"e{}\" data-to=\"e{}\"",
        pair.0, pair.1
    )));
    let spin = dir.join("spin.litmus");
    std::fs::write(
        &spin,
        "PTX spin\n{ flag=0; }\n P0@cta 0,gpu 0 ;\n L: ;\n ld.relaxed.gpu r0, flag ;\n beq r0, 0, L ;\nexists (0 == 0)\n",
    )
    .unwrap();
    let cfg = Config {
        property: Property::Liveness,
        graph: Some(request(&[], false, 64)),
        ..Config::default()
    };
    let r = check_file(&spin, &cfg, &ModelCache::default());
    assert_eq!(r.verdict, "FAIL", "{:?}", r.message);
    let w = r.witness.as_ref().unwrap();
    assert_eq!(w.threads[0].scope_path(), "gpu 0 / cta 0");
    let back: FileReport = serde_json::from_str(&gpumc_verify::report::json(&r)).unwrap();
    assert_eq!(back.liveness, r.liveness);
    // The picture marks the iteration that repeats: the spin's read.
    let d = drawings(&r, false);
    let v = d[0]
        .witness
        .violation
        .as_ref()
        .expect("the stuck read marked");
    let read = w.events.iter().rfind(|e| e.kind == "R").unwrap().id;
    assert_eq!(v.edges, [(read, read)]);
    assert!(d[0]
        .options
        .caption
        .starts_with("Liveness violation: a thread spins forever"));
    assert!(w.events.iter().any(|e| e.tags.contains(&"RLX".to_string())));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn nothing_to_draw_still_gives_a_picture() {
    let dir = std::env::temp_dir().join(format!("gpumc-graphs-n-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("noconflict.litmus");
    // A value no write produces: no candidate reaches the state.
    std::fs::write(
        &f,
        "PTX noconflict\n{\nx=0;\n}\n P0@cta 0,gpu 0 ;\n ld.weak r0, x ;\nexists (P0:r0 == 7)\n",
    )
    .unwrap();
    let r = check(&f, Engine::Explicit, Some(request(&[], false, 64)));
    assert_eq!(r.verdict, "FAIL");
    let d = drawings(&r, false);
    assert_eq!(d.len(), 1);
    // No witness, no rejected candidate: one allowed execution.
    assert!(d[0]
        .options
        .caption
        .contains("An execution the model allows"));
    assert!(!d[0].witness.events.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
