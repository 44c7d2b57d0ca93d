//! Mapping files: the built-in mappings rule by rule (Lustig et al.,
//! ASPLOS'19 Fig. 11 for PTX), coverage, specificity, and errors with
//! `file:line:col`.

use gpumc_compile::{print, Key, Mapping, OpKind, Order, Scope, Target};
use gpumc_core::ir::Program;
use std::path::Path;

/// The target texts of an operation's sequence (placeholder operands:
/// `r0`, `x`, `1`).
fn seq(m: &Mapping, kind: OpKind, order: Order, scope: Option<Scope>) -> Vec<String> {
    let steps = m
        .lookup(&Key { kind, order, scope })
        .unwrap_or_else(|| panic!("no rule for {kind:?} {order:?} {scope:?}"));
    let mut p = Program {
        kernel: false,
        name: String::new(),
        arch: m.target.arch(),
        threads: Vec::new(),
        locations: vec![gpumc_core::ir::Location {
            name: "x".into(),
            phys: 0,
            virt: 0,
            init: 0,
            init_arbitrary: None,
            space: None,
        }],
        ssw: Vec::new(),
        filter: None,
        assertion: None,
        observed: Vec::new(),
        inputs: Vec::new(),
        source_map: Default::default(),
        assumptions: Vec::new(),
        header: Vec::new(),
        default_model: None,
    };
    p.threads.clear();
    steps
        .iter()
        .map(|s| {
            let t = print::instr_text(&p, &s.instr).unwrap();
            // Mnemonics only.
            t.split_whitespace().next().unwrap().to_string()
        })
        .collect()
}

fn err(text: &str) -> String {
    Mapping::parse(text, Path::new("m.map"))
        .unwrap_err()
        .to_string()
}

/// Fig. 11 of Lustig et al., ASPLOS'19, row by row (at every scope).
#[test]
fn the_ptx_mapping_is_fig_11() {
    let m = Mapping::builtin("ptx").unwrap();
    assert_eq!(m.target, Target::Ptx);
    assert!(m.uncovered().is_empty(), "{:?}", m.uncovered());
    use OpKind::*;
    use Order::*;
    assert_eq!(seq(&m, Load, Na, None), ["ld.weak"]);
    assert_eq!(seq(&m, Store, Na, None), ["st.weak"]);
    for s in Scope::ALL {
        let w = s.name();
        let sc = Some(s);
        let f = |x: &str| x.replace("S", w);
        assert_eq!(seq(&m, Load, Rlx, sc), [f("ld.relaxed.S")]);
        assert_eq!(seq(&m, Load, Acq, sc), [f("ld.acquire.S")]);
        assert_eq!(seq(&m, Load, Sc, sc), [f("fence.sc.S"), f("ld.acquire.S")]);
        assert_eq!(seq(&m, Store, Rlx, sc), [f("st.relaxed.S")]);
        assert_eq!(seq(&m, Store, Rel, sc), [f("st.release.S")]);
        assert_eq!(seq(&m, Store, Sc, sc), [f("fence.sc.S"), f("st.release.S")]);
        assert_eq!(seq(&m, Rmw, Rlx, sc), [f("atom.relaxed.S.add")]);
        assert_eq!(seq(&m, Rmw, Acq, sc), [f("atom.acquire.S.add")]);
        assert_eq!(seq(&m, Rmw, Rel, sc), [f("atom.release.S.add")]);
        assert_eq!(seq(&m, Rmw, AcqRel, sc), [f("atom.acq_rel.S.add")]);
        assert_eq!(
            seq(&m, Rmw, Sc, sc),
            [f("fence.sc.S"), f("atom.acq_rel.S.add")]
        );
        // fence.acquire / fence.release of Fig. 11 are fence.acq_rel in PTX 6.0.
        assert_eq!(seq(&m, Fence, Acq, sc), [f("fence.acq_rel.S")]);
        assert_eq!(seq(&m, Fence, Rel, sc), [f("fence.acq_rel.S")]);
        assert_eq!(seq(&m, Fence, AcqRel, sc), [f("fence.acq_rel.S")]);
        assert_eq!(seq(&m, Fence, Sc, sc), [f("fence.sc.S")]);
        assert!(seq(&m, Fence, Rlx, sc).is_empty());
    }
}

#[test]
fn the_vulkan_mapping_is_complete_and_scopes_widen() {
    let m = Mapping::builtin("vulkan").unwrap();
    assert_eq!(m.target, Target::Vulkan);
    assert!(m.uncovered().is_empty(), "{:?}", m.uncovered());
    assert_eq!(m.scope_word(Scope::Cta), "wg");
    assert_eq!(m.scope_word(Scope::Gpu), "qf");
    assert_eq!(m.scope_word(Scope::Sys), "dv");
    use OpKind::*;
    use Order::*;
    assert_eq!(seq(&m, Load, Na, None), ["ld.nonpriv.sc0"]);
    assert_eq!(
        seq(&m, Store, Rel, Some(Scope::Gpu)),
        ["st.atom.rel.qf.sc0.semsc0.semav"]
    );
    // seq_cst compiles to its acquire / release parts.
    assert_eq!(
        seq(&m, Load, Sc, Some(Scope::Sys)),
        seq(&m, Load, Acq, Some(Scope::Sys))
    );
    assert_eq!(
        seq(&m, Rmw, Sc, Some(Scope::Cta)),
        ["rmw.atom.acq_rel.wg.sc0.semsc0.semav.semvis.add"]
    );
    assert_eq!(
        seq(&m, Fence, Sc, Some(Scope::Cta)),
        ["membar.acq_rel.wg.semsc0.semav.semvis"]
    );
}

#[test]
fn the_flawed_example_differs_from_fig_11_in_the_sc_rmw_only() {
    let path = gpumc_testutil::repo_root().join("examples/mappings/ptx-rmw-sc-no-release.map");
    let flawed = Mapping::load(path.to_str().unwrap()).unwrap();
    let good = Mapping::builtin("ptx").unwrap();
    for k in Key::all() {
        let (a, b) = (
            seq(&good, k.kind, k.order, k.scope),
            seq(&flawed, k.kind, k.order, k.scope),
        );
        if k.kind == OpKind::Rmw && k.order == Order::Sc {
            let w = k.scope.unwrap().name();
            assert_eq!(
                b,
                [format!("fence.sc.{w}"), format!("atom.acquire.{w}.add")]
            );
        } else {
            assert_eq!(a, b, "{k}");
        }
    }
}

#[test]
fn coverage_lists_every_missing_operation() {
    let m = Mapping::parse(
        "target ptx\nload na -> ld.weak\nload * $s -> ld.relaxed.$s\nstore * gpu -> st.relaxed.gpu\n",
        Path::new("partial.map"),
    )
    .unwrap();
    let missing: Vec<String> = m.uncovered().iter().map(ToString::to_string).collect();
    assert_eq!(Key::all().len(), 50);
    // load: all 10 covered; store: na, and rlx/rel/sc at cta and sys
    // missing; rmw 15 and fence 15 missing.
    assert_eq!(missing.len(), 7 + 15 + 15, "{missing:?}");
    assert!(missing.contains(&"store na".to_string()));
    assert!(missing.contains(&"store rel cta".to_string()));
    assert!(!missing.contains(&"store rel gpu".to_string()));
    assert!(missing.contains(&"fence sc sys".to_string()));
}

#[test]
fn a_more_specific_rule_wins() {
    let m = Mapping::parse(
        "target ptx\nload * * -> ld.relaxed.$s\nload acq * -> ld.acquire.$s\nload acq cta -> fence.sc.cta ; ld.acquire.gpu\n",
        Path::new("m.map"),
    )
    .unwrap();
    assert_eq!(
        seq(&m, OpKind::Load, Order::Sc, Some(Scope::Sys)),
        ["ld.relaxed.sys"]
    );
    assert_eq!(
        seq(&m, OpKind::Load, Order::Acq, Some(Scope::Gpu)),
        ["ld.acquire.gpu"]
    );
    assert_eq!(
        seq(&m, OpKind::Load, Order::Acq, Some(Scope::Cta)),
        ["fence.sc.cta", "ld.acquire.gpu"]
    );
    // `*` orders are the atomic ones: plain loads stay uncovered.
    assert!(m.uncovered().contains(&Key {
        kind: OpKind::Load,
        order: Order::Na,
        scope: None
    }));
    let r = m
        .rule(&Key {
            kind: OpKind::Load,
            order: Order::Acq,
            scope: Some(Scope::Cta),
        })
        .unwrap();
    assert_eq!(r.line, 4);
    assert_eq!(r.sequence(), "fence.sc.cta ; ld.acquire.gpu");
}

#[test]
fn scope_lines_change_what_dollar_s_means() {
    let m = Mapping::parse(
        "target vulkan\nscope gpu = dv  # stronger than the default qf\nload rlx $s -> ld.atom.$s.sc0\n",
        Path::new("m.map"),
    )
    .unwrap();
    assert_eq!(
        seq(&m, OpKind::Load, Order::Rlx, Some(Scope::Gpu)),
        ["ld.atom.dv.sc0"]
    );
    assert_eq!(
        seq(&m, OpKind::Load, Order::Rlx, Some(Scope::Cta)),
        ["ld.atom.wg.sc0"]
    );
}

#[test]
fn errors_have_file_line_and_column() {
    let cases: &[(&str, &str)] = &[
        ("load na -> ld.weak\n", "m.map:1:1: a mapping starts with a `target ptx`"),
        ("", "m.map: a mapping needs a `target ptx` or `target vulkan` line"),
        ("target arm\n", "m.map:1:8: unknown target `arm`"),
        ("target ptx\ntarget ptx\n", "m.map:2:1: a second `target` line"),
        ("target ptx\n  lod na -> ld.weak\n", "m.map:2:3: unknown operation `lod`"),
        ("target ptx\nload cst gpu -> ld.weak\n", "m.map:2:6: unknown memory order `cst`"),
        ("target ptx\nload rel gpu -> ld.weak\n", "m.map:2:6: a C load has no order `rel`"),
        ("target ptx\nload acq blk -> ld.weak\n", "m.map:2:10: unknown scope `blk`"),
        ("target ptx\nload na gpu -> ld.weak\n", "m.map:2:9: non-atomic accesses have no scope"),
        ("target ptx\nload acq gpu\n", "m.map:2:13: missing `->`"),
        // Nothing before the arrow (this panicked).
        ("target ptx\n->\n", "m.map:2:1: missing the operation before `->`"),
        ("target ptx\n  -> ld.weak\n", "m.map:2:3: missing the operation before `->`"),
        // Columns count characters.
        ("target ptx\nload é -> ld.weak\n", "m.map:2:6: unknown memory order `é`"),
        // No-break spaces (two bytes each) separate words.
        (
            "target ptx\nload\u{a0}rlx\u{a0}->\u{a0}ld.relaxed.gpu;\n",
            "m.map:2:28: missing target instruction",
        ),
        (
            "target ptx\nload acq $s -> ld.acquire.$s;ld.é\n",
            "m.map:2:33: unexpected `é` in target instruction `ld.é`",
        ),
        ("target ptx\nload acq gpu -> \n", "m.map:2:17: missing target instruction"),
        ("target ptx\nload acq gpu -> fence.sc.gpu ;\n", "m.map:2:31: missing target instruction"),
        (
            "target ptx\nload acq $s -> ld.aquire.$s\n",
            "m.map:2:18: unsupported: in target instruction `ld.aquire.$s`: qualifier `.aquire`",
        ),
        (
            "target ptx\nload acq $s -> ld.acquire.$x\n",
            "m.map:2:27: unknown `$` variable",
        ),
        (
            "target ptx\nload na -> ld.weak.$s\n",
            "m.map:2:20: `$s` in a rule for non-atomic accesses",
        ),
        (
            "target ptx\nload acq $s -> ld.acquire.$s r0, x\n",
            "m.map:2:29: target instruction `ld.acquire.$s r0, x` has operands",
        ),
        (
            "target ptx\nload acq $s -> fence.sc.$s\n",
            "m.map:2:16: a load rule compiles to exactly one target memory access (found 0)",
        ),
        (
            "target ptx\nload acq $s -> ld.acquire.$s ; ld.acquire.$s\n",
            "m.map:2:32: a load rule compiles to exactly one target memory access (found 2)",
        ),
        (
            "target ptx\nload acq $s -> st.release.$s\n",
            "m.map:2:16: a load rule needs a target load here",
        ),
        (
            "target ptx\nfence acq $s -> ld.acquire.$s\n",
            "m.map:2:17: a fence rule compiles to fences only",
        ),
        ("target ptx\nload acq $s -> nop\n", "m.map:2:16: a load compiles to exactly one target access, not `nop`"),
        (
            "target ptx\nrmw acq $s -> atom.acquire.$s.exch\n",
            "m.map:2:31: the operation `.exch` comes from the source instruction",
        ),
        (
            "target ptx\nrmw acq $s -> red.acquire.$s\n",
            "m.map:2:15: an RMW that discards the old value (`red`)",
        ),
        (
            "target ptx\nfence sc $s -> bar.cta.sync\n",
            "m.map:2:16: `bar.cta.sync` is neither a memory access nor a fence",
        ),
        (
            "target ptx\nload acq * -> ld.acquire.gpu\nload acq $s -> ld.acquire.sys\n",
            "m.map:3:1: this rule and the rule at line 2 both cover `load acq cta`",
        ),
        (
            "target vulkan\nstore rel $s -> st.rel.$s.sc0\n",
            "m.map:2:19: in target instruction `st.rel.$s.sc0`: `.rel` needs `.atom`",
        ),
        ("target vulkan\nscope blk = wg\n", "m.map:2:7: unknown source scope `blk`"),
        ("target vulkan\nscope cta wg\n", "m.map:2:1: expected `scope cta|gpu|sys = WORD`"),
        (
            "target vulkan\nscope cta = xx\nload acq cta -> ld.atom.acq.$s.sc0.semsc0\n",
            "m.map:3:28: unsupported: in target instruction `ld.atom.acq.$s.sc0.semsc0`: qualifier `.xx`",
        ),
    ];
    for (text, want) in cases {
        let got = err(text);
        assert!(
            got.starts_with(want),
            "for {text:?}:\n got {got}\nwant {want}"
        );
    }
}

/// The tables of docs/MAPPING.md say what the built-in mappings do, row
/// by row, at every scope.
#[test]
fn the_documented_tables_are_the_builtin_mappings() {
    let doc = std::fs::read_to_string(gpumc_testutil::repo_root().join("docs/MAPPING.md")).unwrap();
    for (name, section, var) in [
        ("ptx", "## The built-in `ptx` mapping", "<sco>"),
        ("vulkan", "## The built-in `vulkan` mapping", "S"),
    ] {
        let m = Mapping::builtin(name).unwrap();
        let start = doc.find(section).unwrap();
        let body = &doc[start..];
        let end = body[3..].find("\n## ").map_or(body.len(), |e| e + 3);
        let mut rows = 0;
        for line in body[..end].lines() {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let is_rule = ["`load ", "`store ", "`rmw ", "`fence "]
                .iter()
                .any(|k| cells.get(1).is_some_and(|c| c.starts_with(k)));
            if cells.len() < 4 || !is_rule {
                continue;
            }
            let ops: Vec<&str> = cells[1].split(", ").map(|c| c.trim_matches('`')).collect();
            let target: Vec<String> = if cells[2] == "nothing" {
                Vec::new()
            } else {
                cells[2]
                    .trim_matches('`')
                    .split(';')
                    .map(|s| s.trim().to_string())
                    .collect()
            };
            for op in ops {
                let mut w = op.split_whitespace();
                let kind = match w.next().unwrap() {
                    "load" => OpKind::Load,
                    "store" => OpKind::Store,
                    "rmw" => OpKind::Rmw,
                    _ => OpKind::Fence,
                };
                let order_word = w.next().unwrap();
                let order = Order::ALL
                    .into_iter()
                    .find(|o| o.name() == order_word)
                    .unwrap();
                let scopes: Vec<Option<Scope>> = if order == Order::Na {
                    vec![None]
                } else {
                    Scope::ALL.into_iter().map(Some).collect()
                };
                for s in scopes {
                    let word = s.map_or("", |s| m.scope_word(s));
                    let want: Vec<String> = target.iter().map(|t| t.replace(var, word)).collect();
                    let got: Vec<String> = seq(&m, kind, order, s)
                        .into_iter()
                        .map(|t| t.trim_end_matches(".add").to_string())
                        .collect();
                    assert_eq!(got, want, "{name}: {op} at {s:?}");
                }
                rows += 1;
            }
        }
        assert_eq!(
            rows, 18,
            "{name}: the table covers every order of every kind"
        );
    }
}

/// The example mappings of docs/MAPPING.md load.
#[test]
fn the_documented_examples_load() {
    let doc = std::fs::read_to_string(gpumc_testutil::repo_root().join("docs/MAPPING.md")).unwrap();
    let mut n = 0;
    for block in doc.split("```text").skip(1) {
        let text: String = block
            .split("```")
            .next()
            .unwrap()
            .lines()
            .map(str::trim_start)
            .collect::<Vec<_>>()
            .join("\n");
        if !text.contains("target ") {
            continue;
        }
        let m =
            Mapping::parse(&text, Path::new("doc.map")).unwrap_or_else(|e| panic!("{e}\n{text}"));
        n += 1;
        if text.contains("fence * $s") {
            assert!(m.uncovered().is_empty(), "{:?}", m.uncovered());
        }
    }
    assert_eq!(n, 2);
}

/// Damaged mapping files are errors with a position (or load), never a
/// panic.
/// Found by fuzzing: every word's column was counted from the line
/// start, so a 1.2 MB line of words took over 30 s, and one of 400,000
/// instructions over 10 s. Columns are now counted once along the line.
/// (The bound is generous: quadratic would be minutes; speed belongs to
/// benchmarks.)
#[test]
fn long_lines_are_read_in_linear_time() {
    let words = format!("target ptx\n{}\n", "a ".repeat(600_000));
    let pieces = format!("target ptx\nload rlx -> {}ld\n", "ld;".repeat(400_000));
    for (text, want) in [
        (words, "m.map:2:1: unknown operation `a`"),
        (pieces, "m.map:2:16: a load rule compiles to exactly one"),
    ] {
        let start = std::time::Instant::now();
        let got = err(&text);
        let took = start.elapsed();
        assert!(got.starts_with(want), "{got}");
        assert!(took.as_secs_f64() < 5.0, "{took:?}");
    }
}

/// An error quotes a long word short (a 5 MB word was echoed whole).
#[test]
fn long_words_are_quoted_short() {
    let long = "x".repeat(5_000_000);
    for text in [
        format!("target ptx\n{long}\n"),
        format!("target ptx\nload rlx -> {long}\n"),
        format!("target {long}\n"),
        format!("target ptx\nload acq $s -> ld.acquire.$s {long}\n"),
    ] {
        let got = err(&text);
        assert!(got.len() < 400, "{}: {}", got.len(), &got[..400]);
        assert!(got.contains("xxxx…`"), "{got}");
    }
}

#[test]
fn damaged_mappings_never_panic() {
    let alphabet = b"$;#->.*\n loadstrmwfenceacqrelsc_ptxvulkanscope=ctagpusys0";
    let mut errors = 0;
    for (name, text) in gpumc_compile::BUILTIN {
        for bytes in gpumc_testutil::damaged_copies(text.as_bytes(), alphabet, 400, 7, 0x5eed) {
            let text = String::from_utf8_lossy(&bytes);
            let r = std::panic::catch_unwind(|| Mapping::parse(&text, Path::new("d.map")));
            match r {
                Err(_) => panic!("{name}: panic on\n{text}"),
                Ok(Err(e)) => {
                    assert!(e.file.is_some(), "{e}");
                    errors += 1;
                }
                Ok(Ok(_)) => {}
            }
        }
    }
    assert!(errors > 100, "{errors}");
}
