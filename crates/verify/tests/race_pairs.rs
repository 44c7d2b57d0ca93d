//! Racing instruction pairs (`--property races`): one entry per pair of
//! static instructions, its kind, its order, where it came from, and the
//! cap, on small hand-written tests whose races each have one possible
//! kind (a filter fixes what a read sees), checked with both engines.

use gpumc_core::ir::{Program, SourceLoc};
use gpumc_verify::engine::races::{self, RacePair, RaceResult};
use gpumc_verify::engine::safety::Verdict;
use gpumc_verify::engine::{symbolic, Options};
use std::path::Path;

fn litmus(src: &str) -> Program {
    gpumc_frontend::litmus::parse(src, Path::new("t.litmus")).expect("test parses")
}

/// The explicit and the symbolic engine's results, with at most
/// `max_races` pairs.
fn both(p: &Program, max_races: usize) -> [RaceResult; 2] {
    let model = gpumc_core::models::load(p.arch.default_model()).expect("model loads");
    let opts = Options {
        max_races,
        ..Options::default()
    };
    let (e, s) = (
        races::check(p, &model, &opts).expect("explicit"),
        symbolic::check_races_stats(p, &model, &opts).map(|(r, st)| {
            assert_eq!(st.mismatches, 0, "solver models rejected by the evaluator");
            r
        }),
    );
    [e, s.expect("symbolic")]
}

/// The only racing pair of each engine's result (and the result).
fn only_pair(p: &Program) -> Vec<(RacePair, RaceResult)> {
    both(p, races::DEFAULT_MAX_RACES)
        .into_iter()
        .map(|r| {
            assert_eq!(r.verdict, Verdict::Fail);
            assert!(r.races_complete, "{:?}", r.races_note);
            assert_eq!(r.races.len(), 1, "{:?}", r.races);
            (r.races[0].clone(), r)
        })
        .collect()
}

/// The `line:col` of the first occurrence of `needle` in `src`: an
/// instruction's position found by its text, so that the tests below do
/// not hard-code columns.
fn pos_of(src: &str, needle: &str) -> String {
    let (i, line) = src
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the test"));
    let col = line.find(needle).unwrap() + 1;
    format!("{}:{col}", i + 1)
}

const PTX_HEAD: &str = "PTX t\n{ x=0; y=0; f=0; }\n P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n";

#[test]
fn two_weak_stores_race_as_waw_lower_event_first() {
    let src = format!("{PTX_HEAD} st.weak x, 1 | st.weak x, 2 ;\nexists (x == 1)\n");
    for (r, _) in only_pair(&litmus(&src)) {
        assert_eq!(r.kind, "WAW");
        assert_eq!(r.threads, ("P0".to_string(), "P1".to_string()));
        assert!(r.events.0 < r.events.1);
        assert_eq!(
            r.positions,
            (pos_of(&src, "st.weak x, 1"), pos_of(&src, "st.weak x, 2"))
        );
        assert_eq!(r.location.as_deref(), Some("x"));
        assert!(r.in_witness);
        assert_eq!(r.source, (None, None), "a litmus test has no source map");
    }
}

#[test]
fn a_read_that_reads_the_write_is_raw_write_first() {
    let src = format!(
        "{PTX_HEAD} ld.weak r0, x | st.weak x, 1 ;\nfilter (P0:r0 == 1)\nexists (x == 1)\n"
    );
    for (r, res) in only_pair(&litmus(&src)) {
        assert_eq!(r.kind, "RAW");
        assert_eq!(r.threads, ("P1".to_string(), "P0".to_string()));
        assert_eq!(r.instrs.0, "st.weak x, 1");
        // The witness shows the read reading from the write.
        let w = res.witness.expect("a racy execution");
        assert!(w.rf.contains(&r.events));
        assert_eq!(w.events[r.events.0].kind, "W");
        assert_eq!(w.events[r.events.1].kind, "R");
    }
}

#[test]
fn a_read_that_saw_an_older_value_is_war_read_first() {
    let src = format!(
        "{PTX_HEAD} st.weak x, 1 | ld.weak r0, x ;\nfilter (P1:r0 == 0)\nexists (x == 1)\n"
    );
    for (r, res) in only_pair(&litmus(&src)) {
        assert_eq!(r.kind, "WAR");
        assert_eq!(r.threads, ("P1".to_string(), "P0".to_string()));
        assert_eq!(r.instrs, ("ld.weak r0, x".into(), "st.weak x, 1".into()));
        let w = res.witness.expect("a racy execution");
        assert!(!w.rf.contains(&(r.events.1, r.events.0)));
    }
}

#[test]
fn an_atomic_write_half_is_a_write() {
    // The load saw the initial value: it races with the RMW's write
    // half (its read half does not conflict with a read).
    let src = format!(
        "{PTX_HEAD} atom.relaxed.gpu.add r1, x, 1 | ld.weak r0, x ;\nfilter (P1:r0 == 0)\nexists (x == 1)\n"
    );
    for (r, res) in only_pair(&litmus(&src)) {
        assert_eq!(r.kind, "WAR");
        assert_eq!(r.threads, ("P1".to_string(), "P0".to_string()));
        let w = res.witness.expect("a racy execution");
        assert_eq!(w.events[r.events.1].kind, "W", "the RMW's write half");
    }
    // Against a store, the RMW races through both halves; the pair is
    // listed once, as the write-write conflict.
    let src =
        format!("{PTX_HEAD} atom.relaxed.gpu.add r1, x, 1 | st.weak x, 5 ;\nexists (x == 1)\n");
    for (r, res) in only_pair(&litmus(&src)) {
        assert_eq!(r.kind, "WAW");
        let w = res.witness.expect("a racy execution");
        assert_eq!(w.events[r.events.0].kind, "W");
        assert_eq!(w.events[r.events.1].kind, "W");
        assert_eq!(w.events[r.events.0].instr, "atom.relaxed.gpu.add r1, x, 1");
    }
}

#[test]
fn vulkan_kinds() {
    let head = "VULKAN t\n{ x=0; y=0; }\n P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 1, qf 0 ;\n";
    let src = format!("{head} st.sc0 x, 1 | st.sc0 x, 2 ;\nexists (x == 1)\n");
    for (r, _) in only_pair(&litmus(&src)) {
        assert_eq!((r.kind.as_str(), r.flag.as_str()), ("WAW", "dr"));
    }
    // Message passing whose payload is neither available nor visible:
    // the flag synchronises, the payload still races; the filter fixes
    // what the payload read sees.
    let mp = |r1: i64| {
        format!(
            "{head} st.sc0 x, 1 | ld.atom.acq.dv.sc0.semsc0 r0, y ;\n st.atom.rel.dv.sc0.semsc0 y, 1 | ld.sc0 r1, x ;\nfilter (P1:r0 == 1 /\\ P1:r1 == {r1})\nexists (x == 1)\n"
        )
    };
    for (r, _) in only_pair(&litmus(&mp(1))) {
        assert_eq!(r.kind, "RAW");
        assert_eq!(r.instrs, ("st.sc0 x, 1".into(), "ld.sc0 r1, x".into()));
    }
    for (r, _) in only_pair(&litmus(&mp(0))) {
        assert_eq!(r.kind, "WAR");
        assert_eq!(r.instrs, ("ld.sc0 r1, x".into(), "st.sc0 x, 1".into()));
    }
}

/// P0 stores to `x` or to `y`, never both, depending on the flag it
/// reads; P1 stores to both. Each pair races in some execution, none in
/// all: the first racy execution shows one of them.
const TWO_PATHS: &str = "PTX two-paths
{ x=0; y=0; f=0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0      ;
 ld.relaxed.gpu r0, f | st.relaxed.gpu f, 1 ;
 beq r0, 0, LC00      | st.weak x, 2        ;
 st.weak x, 1         | st.weak y, 2        ;
 goto LC01            |                     ;
 LC00:                |                     ;
 st.weak y, 1         |                     ;
 LC01:                |                     ;
exists (x == 1)
";

#[test]
fn pairs_that_race_in_different_executions_are_all_listed() {
    for r in both(&litmus(TWO_PATHS), races::DEFAULT_MAX_RACES) {
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.races_complete);
        let mut locs: Vec<&str> = r
            .races
            .iter()
            .filter_map(|x| x.location.as_deref())
            .collect();
        locs.sort_unstable();
        assert_eq!(locs, ["x", "y"], "{:?}", r.races);
        assert!(r.races.iter().all(|x| x.kind == "WAW"));
        // The witness's pair first; the other one from another execution.
        assert!(r.races[0].in_witness && !r.races[1].in_witness);
        let w = r.witness.expect("a racy execution");
        let e = &w.events[r.races[0].events.0];
        assert_eq!(e.location, r.races[0].location);
    }
}

#[test]
fn the_cap_stops_the_list_and_says_so() {
    let p = litmus(TWO_PATHS);
    for r in both(&p, 1) {
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(r.races.len(), 1);
        assert!(!r.races_complete);
        assert_eq!(
            r.races_note.as_deref(),
            Some("the search stopped at --max-races 1")
        );
    }
    // Exactly as many as there are: complete.
    for r in both(&p, 2) {
        assert_eq!(r.races.len(), 2);
        assert!(r.races_complete, "{:?}", r.races_note);
        assert_eq!(r.races_note, None);
    }
    // None listed: the verdict and the witness stand.
    for r in both(&p, 0) {
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.races.is_empty() && r.witness.is_some() && !r.races_complete);
    }
}

#[test]
fn race_free_tests_pass_with_no_pair_and_a_complete_list() {
    let src = format!(
        "{PTX_HEAD} st.weak x, 1 | ld.acquire.gpu r0, f ;\n st.release.gpu f, 1 | ld.weak r1, x ;\nfilter (P1:r0 == 1)\nexists (P1:r1 == 0)\n"
    );
    for r in both(&litmus(&src), races::DEFAULT_MAX_RACES) {
        assert_eq!(r.verdict, Verdict::Pass);
        assert!(r.races.is_empty() && r.races_complete && r.races_note.is_none());
    }
}

#[test]
fn threads_of_one_instruction_race_once() {
    // Four invocations store to the same cell from one SPIR-V
    // instruction: six pairs of events, one pair of instructions.
    let src =
        std::fs::read_to_string(gpumc_testutil::repo_root().join("examples/race-if-n.spvasm"))
            .expect("example");
    let src = src.replace("; @Config: 2, 1, 1", "; @Config: 4, 1, 1");
    assert!(src.contains("@Config: 4, 1, 1"));
    let p = gpumc_frontend::spirv::parse(&src, Path::new("k.spvasm")).expect("kernel parses");
    assert_eq!(p.threads.len(), 4);
    for (r, _) in only_pair(&p) {
        assert_eq!(r.kind, "WAW");
        assert_eq!(r.positions.0, r.positions.1);
        assert_eq!(r.instrs.0, "OpStore %o0 %c1");
        assert_ne!(r.threads.0, r.threads.1);
        assert_eq!(r.space.as_deref(), Some("StorageBuffer"));
    }
}

#[test]
fn source_positions_and_spaces_come_from_the_program() {
    let src = format!(
        "{PTX_HEAD} st.weak x, 1 | ld.weak r0, x ;\nfilter (P1:r0 == 1)\nexists (x == 1)\n"
    );
    let mut p = litmus(&src);
    // What the kernel front-end will set: the CUDA line of the store, no
    // source for the load, and the location's state space.
    let line = p.threads[0].instrs[0].pos.line;
    p.source_map.insert(
        line,
        SourceLoc {
            file: "k.cu".into(),
            line: 5,
            col: 8,
        },
    );
    let x = p.location_id("x").expect("x");
    p.locations[x].space = Some("shared".into());
    // P1's load is on the same litmus line: give it its own line.
    p.threads[1].instrs[0].pos.line = line + 100;
    for (r, _) in only_pair(&p) {
        assert_eq!(r.kind, "RAW");
        assert_eq!(r.source, (Some("k.cu:5:8".to_string()), None));
        assert_eq!(r.space.as_deref(), Some("shared"));
        assert_eq!(r.lines, (line, line + 100));
    }
}

/// `flag empty r` fires when `r` is empty: a race with no pair to name.
/// Both engines FAIL (the verdict follows the flag, not the list).
#[test]
fn a_flag_that_fires_on_an_empty_relation_is_a_race_without_a_pair() {
    let p = litmus(&format!(
        "{PTX_HEAD} st.weak x, 1 | ld.weak r0, y ;\nexists (x == 1)\n"
    ));
    let none = |_: &str, _: &Path| -> Option<(std::path::PathBuf, String)> { None };
    let base = |n: &str| gpumc_verify::engine::exec::base_kind(n, None);
    let m = gpumc_core::cat::Model::parse(
        "e\n// gpumc: total-co\nacyclic po | rf | co\nflag empty (((W * W) & loc & ext) \\ ((IW * _) | (_ * IW))) as lonely\n",
        Path::new("e.cat"),
        &none,
        &base,
    )
    .expect("model parses");
    let opts = Options::default();
    let e = races::check(&p, &m, &opts).expect("explicit");
    let s = symbolic::check_races(&p, &m, &opts).expect("symbolic");
    for r in [e, s] {
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.races.is_empty() && r.witness.is_some());
    }
    // Two threads that write `x`: the relation is not empty, no flag.
    let p = litmus(&format!(
        "{PTX_HEAD} st.weak x, 1 | st.weak x, 2 ;\nexists (x == 1)\n"
    ));
    let e = races::check(&p, &m, &opts).expect("explicit");
    let s = symbolic::check_races(&p, &m, &opts).expect("symbolic");
    for r in [e, s] {
        assert_eq!(r.verdict, Verdict::Pass);
    }
}
