//! Mutants of conformance tests, for the mutation score of a testing
//! harness (Levine et al., "MC Mutants", ASPLOS 2023): a conformance test
//! has a weak outcome the model forbids; a mutant weakens the test by one
//! edit — drops a fence, weakens an order, narrows a scope, drops an
//! availability/visibility operation — so that the model *allows* that
//! outcome. Whether it does is decided by our verifier, never by hand. A
//! harness *kills* a mutant when the hardware shows the weak outcome; the
//! fraction killed measures how good the harness (and its parameters) is
//! at exposing weak behaviour on a device.
//!
//! Mutants are edits of the litmus text (so they can be written out, read
//! and run again): the instruction at its source position is replaced.

use crate::conform::reachable;
use gpumc_core::cat::Model;
use gpumc_core::guard::Limits;
use gpumc_core::ir::{Arch, Cond, InstrKind, Program, Quantifier};
use std::path::Path;

/// One mutant.
#[derive(Clone, Debug)]
pub struct Mutant {
    /// `<test>-m<k>`.
    pub name: String,
    /// What was changed, e.g. "drop `membar.rel.dv.semsc0` (P1, 7:2)".
    pub change: String,
    /// The mutant's litmus text.
    pub text: String,
    pub program: Program,
    /// The weak outcome: the original forbids it, the mutant allows it.
    pub weak: Cond,
}

/// The weak outcome a test's condition names: the state `exists`/`~exists`
/// ask about, or a state violating `forall`.
pub fn weak_outcome(p: &Program) -> Option<Cond> {
    let a = p.assertion.as_ref()?;
    Some(match a.quantifier {
        Quantifier::Exists | Quantifier::NotExists => a.cond.clone(),
        Quantifier::Forall => Cond::Not(Box::new(a.cond.clone())),
    })
}

/// Candidate one-step weakenings of an instruction's text.
fn edits(arch: Arch, text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let (head, rest) = match text.find(char::is_whitespace) {
        Some(i) => (&text[..i], &text[i..]),
        None => (text, ""),
    };
    let quals: Vec<&str> = head.split('.').collect();
    let mnemonic = quals[0];
    let rebuild = |qs: &[&str]| format!("{}{}", qs.join("."), rest);
    let fence = matches!(mnemonic, "membar" | "fence");
    if fence {
        out.push((String::new(), format!("drop `{text}`")));
    }
    let mut push = |qs: Vec<&str>, what: String| {
        let t = rebuild(&qs);
        if t != text && !out.iter().any(|(x, _)| *x == t) {
            out.push((t, what));
        }
    };
    fn replaced<'q>(quals: &[&'q str], from: &str, to: Option<&'q str>) -> Vec<&'q str> {
        quals
            .iter()
            .filter_map(|&q| if q == from { to } else { Some(q) })
            .collect()
    }
    match arch {
        // A C test runs on hardware only once compiled (gpumc compile);
        // its mutants are those of the compiled test.
        Arch::C => {}
        Arch::Vulkan => {
            let atomic = quals.contains(&"atom");
            for (from, tos) in [
                ("acq_rel", &["acq", "rel"][..]),
                ("acq", &[][..]),
                ("rel", &[][..]),
            ] {
                if !quals.contains(&from) {
                    continue;
                }
                for to in tos {
                    push(
                        replaced(&quals, from, Some(to)),
                        format!("weaken `.{from}` to `.{to}` in `{text}`"),
                    );
                }
                // An atomic may lose its order altogether (with the
                // semantics that only mean something with one).
                if atomic && tos.is_empty() {
                    let qs: Vec<&str> = quals
                        .iter()
                        .copied()
                        .filter(|&q| {
                            q != from && !q.starts_with("semsc") && q != "semav" && q != "semvis"
                        })
                        .collect();
                    push(qs, format!("drop `.{from}` from `{text}`"));
                }
            }
            for (from, to) in [("dv", "wg"), ("qf", "wg"), ("wg", "sg")] {
                if quals.contains(&from) && mnemonic != "cbar" {
                    push(
                        replaced(&quals, from, Some(to)),
                        format!("narrow `.{from}` to `.{to}` in `{text}`"),
                    );
                }
            }
            if !atomic {
                for q in ["av", "vis"] {
                    if quals.contains(&q) {
                        push(
                            replaced(&quals, q, None),
                            format!("drop `.{q}` from `{text}`"),
                        );
                    }
                }
            }
        }
        Arch::Ptx => {
            if mnemonic == "fence" && quals.contains(&"sc") {
                push(
                    replaced(&quals, "sc", Some("acq_rel")),
                    format!("weaken `fence.sc` to `fence.acq_rel` in `{text}`"),
                );
            }
            if !fence {
                for from in ["acquire", "release", "acq_rel", "acq", "rel"] {
                    if quals.contains(&from) {
                        push(
                            replaced(&quals, from, Some("relaxed")),
                            format!("weaken `.{from}` to `.relaxed` in `{text}`"),
                        );
                    }
                }
                if quals.contains(&"acq_rel") {
                    for to in ["acquire", "release"] {
                        push(
                            replaced(&quals, "acq_rel", Some(to)),
                            format!("weaken `.acq_rel` to `.{to}` in `{text}`"),
                        );
                    }
                }
                if quals.contains(&"volatile") {
                    push(
                        replaced(&quals, "volatile", None),
                        format!("drop `.volatile` from `{text}`"),
                    );
                }
            }
            for (from, to) in [("sys", "gpu"), ("gpu", "cta"), ("gl", "cta")] {
                if quals.contains(&from) {
                    push(
                        replaced(&quals, from, Some(to)),
                        format!("narrow `.{from}` to `.{to}` in `{text}`"),
                    );
                }
            }
        }
    }
    out
}

/// Replaces the instruction `old` that starts at 1-based `line:col` of
/// `src` by `new` (padded to keep the columns); `None` if it is not there.
fn splice(src: &str, line: u32, col: u32, old: &str, new: &str) -> Option<String> {
    let mut lines: Vec<String> = src.split('\n').map(str::to_string).collect();
    let l = lines.get_mut(line.checked_sub(1)? as usize)?;
    let start = col.checked_sub(1)? as usize;
    if l.get(start..start + old.len())? != old {
        return None;
    }
    let padded = format!("{new:<width$}", width = old.len());
    l.replace_range(start..start + old.len(), &padded);
    Some(lines.join("\n"))
}

/// Rewrites `~exists` into `exists` (the mutant asks whether the weak
/// outcome shows) and names the mutant in a comment after the header.
fn retitle(src: &str, name: &str, change: &str) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    if let Some(first) = lines.first_mut() {
        let mut words: Vec<&str> = first.split_whitespace().collect();
        if words.len() >= 2 {
            words[1] = name;
        }
        *first = words.join(" ");
    }
    lines.insert(1, format!("\"gpumc mutant: {}\"", change.replace('"', "'")));
    for l in &mut lines {
        let t = l.trim_start();
        let rest = ["~exists", "not exists"]
            .iter()
            .find_map(|q| t.strip_prefix(q))
            .map(str::to_string);
        if let Some(rest) = rest {
            *l = format!("exists{rest}");
        }
    }
    lines.join("\n") + "\n"
}

/// Whether a test can run on hardware at all (`gpumc_hw::lower`).
fn runnable(p: &Program) -> bool {
    let terms = gpumc_verify::engine::safety::observables(p);
    gpumc_hw::lower::lower(p, &terms).is_ok()
}

/// The mutants of the test `src` (read from `path`) whose weak outcome
/// the model forbids in the original and allows in the mutant, and that
/// hardware can run. Returns nothing for a test whose weak outcome the
/// model already allows (not a conformance test) or that hardware cannot
/// run.
pub fn mutants(path: &Path, src: &str, model: &Model, limits: Limits) -> Vec<Mutant> {
    let Ok(p) = gpumc_frontend::litmus::parse(src, path) else {
        return Vec::new();
    };
    let Some(weak) = weak_outcome(&p) else {
        return Vec::new();
    };
    if !runnable(&p) {
        return Vec::new();
    }
    if reachable(&p, model, &weak, limits) != Some(false) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in &p.threads {
        for ins in &t.instrs {
            if matches!(
                ins.kind,
                InstrKind::Label(_) | InstrKind::Goto(_) | InstrKind::Branch { .. }
            ) {
                continue;
            }
            for (new, change) in edits(p.arch, ins.text.trim()) {
                let Some(text) = splice(src, ins.pos.line, ins.pos.col, ins.text.trim(), &new)
                else {
                    continue;
                };
                let name = format!("{}-m{}", p.name, out.len() + 1);
                let change = format!("{change} ({}, {})", t.name, ins.pos);
                let text = retitle(&text, &name, &change);
                let Ok(mp) = gpumc_frontend::litmus::parse(&text, path) else {
                    continue;
                };
                if !runnable(&mp) {
                    continue;
                }
                if reachable(&mp, model, &weak, limits) == Some(true) {
                    out.push(Mutant {
                        name,
                        change,
                        text,
                        program: mp,
                        weak: weak.clone(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MP: &str = r#"VULKAN mp
{ x=0; y=0; }
 P0@sg 0,wg 0, qf 0               | P1@sg 0,wg 1, qf 0               ;
 st.av.dv.sc0 x, 1                | ld.atom.acq.dv.sc0.semsc0 r0, y  ;
 st.atom.rel.dv.sc0.semsc0 y, 1   | ld.vis.dv.sc0 r1, x              ;
~exists
(P1:r0 == 1 /\ P1:r1 == 0)
"#;

    #[test]
    fn message_passing_mutants_each_allow_the_weak_outcome() {
        let model = gpumc_core::models::load("vulkan").unwrap();
        let ms = mutants(Path::new("mp.litmus"), MP, &model, Limits::none());
        assert!(
            ms.len() >= 4,
            "{:?}",
            ms.iter().map(|m| &m.change).collect::<Vec<_>>()
        );
        let changes: Vec<&str> = ms.iter().map(|m| m.change.as_str()).collect();
        assert!(
            changes.iter().any(|c| c.contains("drop `.rel`")),
            "{changes:?}"
        );
        assert!(
            changes.iter().any(|c| c.contains("drop `.acq`")),
            "{changes:?}"
        );
        assert!(
            changes.iter().any(|c| c.contains("narrow `.dv` to `.wg`")),
            "{changes:?}"
        );
        for m in &ms {
            assert!(m.text.contains("\nexists"), "{}", m.text);
            assert!(m.text.contains("gpumc mutant:"), "{}", m.text);
            assert!(m.text.starts_with(&format!("VULKAN {}", m.name)));
            assert_eq!(
                reachable(&m.program, &model, &m.weak, Limits::none()),
                Some(true)
            );
        }
    }

    #[test]
    fn a_test_whose_weak_outcome_is_allowed_has_no_mutants() {
        let model = gpumc_core::models::load("vulkan").unwrap();
        let relaxed = MP.replace(
            "st.atom.rel.dv.sc0.semsc0 y, 1",
            "st.atom.dv.sc0 y, 1           ",
        );
        assert!(mutants(Path::new("mp.litmus"), &relaxed, &model, Limits::none()).is_empty());
    }

    #[test]
    fn ptx_edits_weaken_orders_fences_and_scopes() {
        let e = edits(Arch::Ptx, "fence.sc.gpu");
        let t: Vec<&str> = e.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, vec!["", "fence.acq_rel.gpu", "fence.sc.cta"]);
        let e = edits(Arch::Ptx, "ld.acquire.sys r0, x");
        let t: Vec<&str> = e.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(t, vec!["ld.relaxed.sys r0, x", "ld.acquire.gpu r0, x"]);
        let e = edits(Arch::Ptx, "membar.gl");
        assert!(e.iter().any(|(t, _)| t == "membar.cta"));
    }

    #[test]
    fn splicing_keeps_columns_and_checks_the_text() {
        let s = "a\n st.x y | ld z ;\n";
        assert_eq!(
            splice(s, 2, 2, "st.x y", "st y").unwrap(),
            "a\n st y   | ld z ;\n"
        );
        assert!(splice(s, 2, 2, "ld z", "x").is_none());
        assert!(splice(s, 9, 1, "a", "b").is_none());
    }
}
