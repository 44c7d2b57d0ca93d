//! Pictures that answer a race or liveness verdict, built from the
//! report: the racing pair marked (and, for kernels, only the two racing
//! threads), and the behaviour that never ends (the repeating steps of an
//! interleaving lasso, or the iteration a stuck thread repeats).
//!
//! Both reuse the violated-axiom marking of [`Witness::violation`]: the
//! renderers draw its steps thick and red, so a race's pair and a lasso's
//! cycle look like a forbidden outcome's cycle, with their own legend.

use crate::driver::FileReport;
use crate::engine::liveness::LivenessViolation;
use crate::engine::races::RacePair;
use crate::engine::witness::{
    NamedRelation, Step, Violation, Witness, WitnessEvent, WitnessThread,
};
use std::collections::{HashMap, HashSet};

/// `Violation::kind` of a marked racing pair.
pub const RACE: &str = "race";
/// `Violation::kind` of a marked non-terminating behaviour.
pub const FOREVER: &str = "forever";

/// Whether the report's file is a kernel (PTX, SPIR-V, CUDA, OpenCL,
/// GLSL), whose race picture shows only the two racing threads by
/// default: its other threads run the same code on other cells.
pub fn is_kernel(r: &FileReport) -> bool {
    let ext = std::path::Path::new(&r.file)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    !matches!(ext.as_deref(), Some("litmus") | None)
}

/// The picture of the first racing pair and its caption: the report's
/// witness with the pair marked (only its two threads when `focus`), or,
/// when the pair's events are not the witness's (the parametric engine
/// records no execution), the two accesses alone.
pub fn race_picture(r: &FileReport, focus: bool) -> Option<(Witness, String)> {
    let pair = r.races.first()?;
    let (mut w, view) = match (&r.witness, pair.in_witness) {
        (Some(w), true) if focus => (
            only_threads(w, &[&pair.threads.0, &pair.threads.1], pair),
            View::TwoThreads,
        ),
        (Some(w), true) => (w.clone(), View::Full),
        _ => (two_accesses(pair), View::TwoAccesses),
    };
    let (a, b) = match view {
        View::TwoAccesses => (0, 1),
        View::Full | View::TwoThreads => pair.events,
    };
    let label = if pair.kind.is_empty() || pair.kind == "-" {
        "race".to_string()
    } else {
        format!("race {}", pair.kind)
    };
    w.violation = Some(Violation {
        axiom: pair.flag.clone(),
        kind: RACE.into(),
        cycle: vec![a, b],
        edges: vec![(a, b)],
        steps: vec![Step {
            from: a,
            to: b,
            rel: label,
        }],
    });
    Some((w, race_caption(r, pair, view)))
}

/// What a race picture shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    /// The whole witness execution.
    Full,
    /// The witness's two racing threads.
    TwoThreads,
    /// No execution was recorded: the two accesses.
    TwoAccesses,
}

/// `Data race (RAW) on x (shared), flag dr:` then one line per access,
/// then the inputs that enable it.
fn race_caption(r: &FileReport, p: &RacePair, view: View) -> String {
    let mut s = format!(
        "Data race{} on {}{}, flag {}{}:",
        match p.kind.as_str() {
            "" | "-" => String::new(),
            k => format!(" ({k})"),
        },
        p.location.as_deref().unwrap_or("a location"),
        p.space
            .as_deref()
            .map_or(String::new(), |s| format!(" ({s})")),
        p.flag,
        if r.races.len() > 1 {
            format!(" (the first of {} racing pairs)", r.races.len())
        } else {
            String::new()
        }
    );
    let access = |thread: &str, instr: &str, pos: &str, src: &Option<String>| {
        let from = src
            .as_deref()
            .map_or(String::new(), |s| format!(", from {s}"));
        format!("\nthread {thread}: `{instr}` at {pos}{from}")
    };
    s.push_str(&access(
        &p.threads.0,
        &p.instrs.0,
        &p.positions.0,
        &p.source.0,
    ));
    s.push_str(&access(
        &p.threads.1,
        &p.instrs.1,
        &p.positions.1,
        &p.source.1,
    ));
    let inputs: Vec<String> = if !p.inputs.is_empty() {
        p.inputs.clone()
    } else {
        r.witness
            .as_ref()
            .filter(|_| p.in_witness)
            .map(|w| w.inputs.iter().map(|(n, v)| format!("{n}={v}")).collect())
            .unwrap_or_default()
    };
    if !inputs.is_empty() {
        const SHOWN: usize = 12;
        let more = inputs.len().saturating_sub(SHOWN);
        s.push_str(&format!(
            "\nwith inputs {}{}",
            inputs[..inputs.len().min(SHOWN)].join(" "),
            if more > 0 {
                format!(" and {more} more (in the JSON report)")
            } else {
                String::new()
            }
        ));
    }
    match view {
        View::TwoThreads => {
            s.push_str("\n(only the two racing threads; --graph-full draws every thread)")
        }
        View::TwoAccesses => {
            s.push_str("\n(the two accesses: the engine that found the race records no execution)")
        }
        View::Full => {}
    }
    s
}

/// The two racing accesses as a two-event execution (no other event is
/// known: the parametric engine reasons about two symbolic threads).
fn two_accesses(p: &RacePair) -> Witness {
    let kinds = match p.kind.as_str() {
        "WAW" => ("W", "W"),
        "RAW" => ("W", "R"),
        "WAR" => ("R", "W"),
        "RAR" => ("R", "R"),
        _ => (access_kind(&p.instrs.0), access_kind(&p.instrs.1)),
    };
    let ev = |id: usize, thread: &str, line: u32, instr: &str, kind: &str| WitnessEvent {
        id,
        thread: thread.to_string(),
        line,
        instr: instr.to_string(),
        kind: kind.to_string(),
        location: p.location.clone(),
        value: None,
        tags: vec![],
    };
    // Two distinct columns even when both names agree (a thread racing
    // with itself does not happen; two unnamed symbolic threads might).
    let second = if p.threads.1 == p.threads.0 {
        format!("{} (another)", p.threads.1)
    } else {
        p.threads.1.clone()
    };
    Witness {
        events: vec![
            ev(0, &p.threads.0, p.lines.0, &p.instrs.0, kinds.0),
            ev(1, &second, p.lines.1, &p.instrs.1, kinds.1),
        ],
        threads: vec![
            WitnessThread {
                name: p.threads.0.clone(),
                scopes: vec![],
            },
            WitnessThread {
                name: second,
                scopes: vec![],
            },
        ],
        ..Witness::default()
    }
}

/// `R` or `W` from an instruction's text (stores, atomics and
/// reductions write; the rest read), for the parametric engine's `RW`.
fn access_kind(instr: &str) -> &'static str {
    let op = instr.split_whitespace().next().unwrap_or("");
    if ["st", "red", "atom", "OpStore", "OpAtomic"]
        .iter()
        .any(|p| op.starts_with(p))
    {
        "W"
    } else {
        "R"
    }
}

/// `w` restricted to the named threads: their events, the initial writes
/// they read from and those of the raced location; `rf` and `co` kept
/// between kept events (`co` re-linked across removed writes).
fn only_threads(w: &Witness, names: &[&str], pair: &RacePair) -> Witness {
    let rf_src: HashSet<usize> =
        w.rf.iter()
            .filter(|(_, r)| {
                w.events
                    .iter()
                    .any(|e| e.id == *r && names.contains(&e.thread.as_str()))
            })
            .map(|(s, _)| *s)
            .collect();
    let keep: HashSet<usize> = w
        .events
        .iter()
        .filter(|e| {
            names.contains(&e.thread.as_str())
                || (e.thread == "init"
                    && (rf_src.contains(&e.id)
                        || (e.location.is_some() && e.location == pair.location)))
        })
        .map(|e| e.id)
        .collect();
    Witness {
        events: w
            .events
            .iter()
            .filter(|e| keep.contains(&e.id))
            .cloned()
            .collect(),
        rf: w
            .rf
            .iter()
            .filter(|(a, b)| keep.contains(a) && keep.contains(b))
            .copied()
            .collect(),
        co: relink(&w.co, &keep),
        state: w.state.clone(),
        inputs: w.inputs.clone(),
        threads: w
            .threads
            .iter()
            .filter(|t| names.contains(&t.name.as_str()))
            .cloned()
            .collect(),
        relations: w
            .relations
            .iter()
            .map(|r| NamedRelation {
                name: r.name.clone(),
                pairs: r
                    .pairs
                    .iter()
                    .filter(|(a, b)| keep.contains(a) && keep.contains(b))
                    .copied()
                    .collect(),
            })
            .collect(),
        violation: None,
    }
}

/// The covering pairs `edges` (immediate `co`) between kept events: from
/// each kept event, the first kept events reached through removed ones.
fn relink(edges: &[(usize, usize)], keep: &HashSet<usize>) -> Vec<(usize, usize)> {
    let mut succ: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b) in edges {
        succ.entry(a).or_default().push(b);
    }
    let mut out = Vec::new();
    let mut starts: Vec<usize> = succ.keys().copied().filter(|a| keep.contains(a)).collect();
    starts.sort_unstable();
    for a in starts {
        let mut seen = HashSet::new();
        let mut stack = succ[&a].clone();
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            if keep.contains(&x) {
                out.push((a, x));
            } else if let Some(next) = succ.get(&x) {
                stack.extend(next);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The picture of a liveness violation and its caption: for an
/// interleaving lasso (no execution recorded), its steps as events, the
/// steps before the cycle linked in the order they run (`then`) and the
/// cycle's steps in red, the last leading back to the first (`repeat`);
/// for a stuck configuration, the report's witness with the iteration
/// each spinning thread repeats marked by a red loop.
pub fn liveness_picture(r: &FileReport) -> Option<(Witness, String)> {
    let v = r.liveness.as_ref()?;
    let first = v
        .description
        .lines()
        .next()
        .unwrap_or("")
        .trim_end_matches(':');
    if let Some(w) = &r.witness {
        let mut w = w.clone();
        let stuck = stuck_events(&w, v);
        if !stuck.is_empty() {
            w.violation = Some(Violation {
                axiom: "runs forever".into(),
                kind: FOREVER.into(),
                cycle: stuck.clone(),
                edges: stuck.iter().map(|&e| (e, e)).collect(),
                steps: stuck
                    .iter()
                    .map(|&e| Step {
                        from: e,
                        to: e,
                        rel: "repeats forever".into(),
                    })
                    .collect(),
            });
        }
        let caption = format!(
            "Liveness violation: {first}\nthe last iteration of each thread marked in red repeats forever"
        );
        return Some((w, caption));
    }
    if v.trace.is_empty() {
        return None;
    }
    let start = v.cycle_start.unwrap_or(0).min(v.trace.len() - 1);
    Some((
        lasso(v, start),
        format!("Liveness violation: {first}\nthe steps in red repeat forever, in the order of the red arrows"),
    ))
}

/// The red line of a non-terminating behaviour's picture.
pub fn forever_text(v: &Violation) -> String {
    if v.steps.iter().all(|s| s.from == s.to) {
        let evs: Vec<String> = v.cycle.iter().map(|e| format!("e{e}")).collect();
        return format!(
            "{}: {} {} forever",
            v.axiom,
            evs.join(", "),
            if evs.len() == 1 { "repeats" } else { "repeat" }
        );
    }
    format!("{}: {}", v.axiom, v.describe())
}

/// The events of each spinning thread's repeating iteration: its last
/// reads on the loop's line (else its last event).
fn stuck_events(w: &Witness, v: &LivenessViolation) -> Vec<usize> {
    let mut out = Vec::new();
    for t in v.threads.iter().filter(|t| t.state == "spinning") {
        let mine: Vec<&WitnessEvent> = w.events.iter().filter(|e| e.thread == t.thread).collect();
        let Some(last) = mine.last() else { continue };
        let line = t.line.unwrap_or(last.line);
        // The spinning iteration's events are the thread's last ones; of
        // those, the reads at or after the loop's line.
        let tail: Vec<usize> = mine
            .iter()
            .rev()
            .take_while(|e| e.line >= line)
            .filter(|e| e.kind == "R")
            .map(|e| e.id)
            .collect();
        if tail.is_empty() {
            out.push(last.id);
        } else {
            out.extend(tail.into_iter().rev());
        }
    }
    out
}

/// An interleaving lasso as an execution-like picture.
fn lasso(v: &LivenessViolation, start: usize) -> Witness {
    let events: Vec<WitnessEvent> = v
        .trace
        .iter()
        .enumerate()
        .map(|(k, st)| {
            let kind = match (st.read, st.written) {
                (Some(_), Some(_)) => "RMW",
                (Some(_), None) => "R",
                (None, Some(_)) => "W",
                (None, None) => "local",
            };
            let mut tags = vec![];
            if let (Some(r), Some(_)) = (st.read, st.written) {
                tags.push(format!("read {r}"));
            }
            if k >= start {
                tags.push("(repeats)".into());
            }
            WitnessEvent {
                id: k,
                thread: st.thread.clone(),
                line: st.line,
                instr: st.instr.clone(),
                kind: kind.into(),
                location: st.location.clone(),
                value: st.written.or(st.read),
                tags,
            }
        })
        .collect();
    let n = events.len();
    let then: Vec<(usize, usize)> = (1..=start).map(|k| (k - 1, k)).collect();
    let mut steps: Vec<Step> = (start + 1..n)
        .map(|k| Step {
            from: k - 1,
            to: k,
            rel: "then".into(),
        })
        .collect();
    steps.push(Step {
        from: n - 1,
        to: start,
        rel: "repeat".into(),
    });
    Witness {
        events,
        threads: v
            .threads
            .iter()
            .map(|t| WitnessThread {
                name: t.thread.clone(),
                scopes: vec![],
            })
            .collect(),
        relations: if then.is_empty() {
            vec![]
        } else {
            vec![NamedRelation {
                name: "then".into(),
                pairs: then,
            }]
        },
        violation: Some(Violation {
            axiom: "runs forever".into(),
            kind: FOREVER.into(),
            cycle: (start..n).collect(),
            edges: steps.iter().map(|s| (s.from, s.to)).collect(),
            steps,
        }),
        ..Witness::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coherence_is_relinked_across_removed_writes() {
        // init 0 -> 1 -> 2 -> 3 on one location; 1 and 2 left out.
        let keep: HashSet<usize> = [0, 3].into_iter().collect();
        assert_eq!(relink(&[(0, 1), (1, 2), (2, 3)], &keep), [(0, 3)]);
        // A kept middle write keeps both links.
        let keep: HashSet<usize> = [0, 2, 3].into_iter().collect();
        assert_eq!(relink(&[(0, 1), (1, 2), (2, 3)], &keep), [(0, 2), (2, 3)]);
    }

    #[test]
    fn a_pair_without_an_execution_is_drawn_as_its_two_accesses() {
        let p = RacePair {
            flag: "dr".into(),
            events: (0, 0),
            threads: ("t2@b1".into(), "t3@b1".into()),
            lines: (145, 181),
            instrs: (
                "st.shared.u32 [%rd4+4], %r9".into(),
                "ld.shared.u32 %r15, [%rd13]".into(),
            ),
            location: Some("temp[3]".into()),
            kind: "RW".into(),
            space: Some("shared".into()),
            source: (None, None),
            positions: ("145:2".into(), "181:2".into()),
            in_witness: false,
            inputs: vec!["in[7]=0".into()],
        };
        let w = two_accesses(&p);
        let kinds: Vec<&str> = w.events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["W", "R"]);
        assert_eq!(w.threads.len(), 2);
    }
}
