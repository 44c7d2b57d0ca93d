//! Execution graphs: a witness (or any recorded execution) as a picture,
//! in the style of herd7's `-show`/`-o` graphs.
//!
//! [`dot`] writes Graphviz text; [`svg`] lays the picture out itself
//! (`layout`), so no Graphviz is needed: events boxed per thread in
//! columns, threads nested in boxes per scope instance (PTX `gpu`/`cta`,
//! Vulkan `qf`/`wg`/`sg`), the initial writes in a row on top, edges `po`
//! (immediate), `rf`, `co` (immediate), `fr` and the model relations the
//! witness carries (`--show`), one colour each with a legend, and the
//! violated axiom's cycle of a rejected candidate in thick red (CSS class
//! `cycle`). Both renderers are pure functions of the witness and the
//! [`GraphOptions`]; [`drawings`] says what a report's graphs are.

mod dot;
mod focus;
mod layout;
mod picture;
mod svg;

pub use dot::dot;
pub use svg::svg;

use crate::driver::FileReport;
use crate::engine::witness::Witness;
use serde::{Deserialize, Serialize};

/// How to draw one execution.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GraphOptions {
    /// First line: test, model, verdict.
    pub title: String,
    /// Second line: what this execution is.
    pub caption: String,
    /// The witness's named relations to draw; `None`: all it carries.
    pub show: Option<Vec<String>>,
    /// Prefix of the SVG's element ids (arrowhead markers), so that
    /// several pictures can be inlined in one HTML page; empty: `gpumc`.
    pub id_prefix: String,
}

/// One picture of a report: the file name suffix (`""`, `-1`, …,
/// `-rejected`), the execution (an empty witness when there is nothing
/// to draw, the caption saying why) and how to draw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drawing {
    pub suffix: String,
    pub witness: Witness,
    pub options: GraphOptions,
}

/// The pictures of a checked file: its witness, else the rejected
/// candidate of a forbidden outcome, else one allowed execution; with
/// `all` (`--graph-all`), every recorded execution (`-1`, `-2`, …) and
/// the rejected candidate (`-rejected`). Never empty for a report that
/// is not an `ERROR`: when no execution can be drawn, one empty picture
/// whose caption says why.
pub fn drawings(r: &FileReport, all: bool) -> Vec<Drawing> {
    drawings_with(r, all, false)
}

/// [`drawings`], where `full` (`--graph-full`) draws a kernel's race
/// witness with every thread instead of only the two racing ones.
///
/// A race's picture marks its first racing pair (red, with the kind of
/// conflict); a liveness violation's shows what never ends: the repeating
/// steps of an interleaving, or each spinning thread's last iteration
/// ([`focus`]).
pub fn drawings_with(r: &FileReport, all: bool, full: bool) -> Vec<Drawing> {
    if r.verdict == "ERROR" {
        return vec![];
    }
    use crate::driver::Property;
    let focused = match r.property {
        Property::Races => focus::race_picture(r, !full && focus::is_kernel(r)),
        Property::Liveness => focus::liveness_picture(r),
        _ => None,
    };
    let file = std::path::Path::new(&r.file)
        .file_name()
        .map_or(r.file.clone(), |f| f.to_string_lossy().into_owned());
    let title = format!("{file} · model {} · {}", r.model, r.verdict);
    let opts = |caption: String| GraphOptions {
        title: title.clone(),
        caption,
        show: None,
        id_prefix: String::new(),
    };
    let state = |w: &Witness| {
        if w.state.is_empty() {
            String::new()
        } else {
            let s: Vec<String> = w.state.iter().map(|(n, v)| format!("{n}={v}")).collect();
            format!("; final {}", s.join(" "))
        }
    };
    let rejected = r.graph.as_ref().and_then(|g| g.rejected.as_ref());
    let rejected_drawing = |w: &Witness, suffix: &str| {
        Drawing {
            suffix: suffix.into(),
            witness: w.clone(),
            options: opts(format!(
                "Forbidden outcome: a candidate execution reaching the condition's state, which the model rejects{}",
                state(w)
            )),
        }
    };
    let mut out = Vec::new();
    let executions = r.graph.as_ref().map_or(&[][..], |g| &g.executions[..]);
    if all {
        let n = executions.len();
        let capped = r.graph.as_ref().is_some_and(|g| g.capped);
        for (k, w) in executions.iter().enumerate() {
            let cut = if capped {
                " (more were cut by --graph-max)"
            } else {
                ""
            };
            out.push(Drawing {
                suffix: format!("-{}", k + 1),
                witness: w.clone(),
                options: opts(format!(
                    "Execution {} of {n}{cut} allowed by the model{}",
                    k + 1,
                    state(w)
                )),
            });
        }
        if let (true, Some((w, caption))) = (executions.is_empty(), &focused) {
            out.push(Drawing {
                suffix: "-1".into(),
                witness: w.clone(),
                options: opts(caption.clone()),
            });
        } else if let (true, Some(w)) = (executions.is_empty(), &r.witness) {
            // Races and liveness record no executions: their witness.
            out.push(Drawing {
                suffix: "-1".into(),
                witness: w.clone(),
                options: opts(format!("Witness{}", state(w))),
            });
        }
        if let Some(w) = rejected {
            out.push(rejected_drawing(w, "-rejected"));
        }
    } else if let Some((w, caption)) = &focused {
        out.push(Drawing {
            suffix: String::new(),
            witness: w.clone(),
            options: opts(caption.clone()),
        });
    } else if let Some(w) = &r.witness {
        let what = match (r.property, r.verdict.as_str()) {
            (_, "FAIL") if r.message.is_some() => {
                format!("Witness: {}", r.message.as_deref().unwrap_or(""))
            }
            (crate::driver::Property::Races, _) => "Witness: an execution with a data race".into(),
            (crate::driver::Property::Liveness, _) => {
                "Witness: the execution of the liveness violation".into()
            }
            _ => "Witness: an execution the model allows".into(),
        };
        out.push(Drawing {
            suffix: String::new(),
            witness: w.clone(),
            options: opts(format!("{what}{}", state(w))),
        });
    } else if let Some(w) = rejected {
        out.push(rejected_drawing(w, ""));
    } else if let Some(w) = executions.first() {
        out.push(Drawing {
            suffix: String::new(),
            witness: w.clone(),
            options: opts(format!(
                "An execution the model allows (no witness to draw){}",
                state(w)
            )),
        });
    }
    if out.is_empty() {
        let why = match (r.verdict.as_str(), &r.message, r.property) {
            ("UNKNOWN", Some(m), _) => {
                format!("the check ended before it found an execution to draw ({m})")
            }
            (_, _, Property::Safety) => {
                "no complete execution, allowed or rejected, reaches a final state to draw".into()
            }
            (_, _, Property::Races) => "no data race: there is no witness to draw".into(),
            (_, _, Property::Liveness) => {
                "no liveness violation: there is no witness to draw".into()
            }
        };
        let suffix = if all { "-1" } else { "" };
        out.push(Drawing {
            suffix: suffix.into(),
            witness: Witness::default(),
            options: opts(format!("Nothing to draw: {why}")),
        });
    }
    out
}
