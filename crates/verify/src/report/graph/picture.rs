//! The picture of one execution, before any layout: which boxes, which
//! edges, which colours. Both renderers start from here.

use super::GraphOptions;
use crate::engine::witness::{ScopeId, Witness, WitnessEvent};

/// The colours of the base relations and the cycle.
pub const PO: &str = "#6b6b6b";
pub const RF: &str = "#2e7d32";
pub const CO: &str = "#1565c0";
pub const FR: &str = "#e65100";
pub const CYCLE: &str = "#d50000";
/// Colours of the named relations, in the order they are shown.
const PALETTE: [&str; 8] = [
    "#8e24aa", "#00838f", "#6d4c41", "#c2185b", "#558b2f", "#3949ab", "#f9a825", "#5d4037",
];

/// The legend's first entries: `po`, `rf`, `co`, `fr`.
const BASE: usize = 4;

/// At most this many pairs of one named relation are drawn.
pub const MAX_PAIRS: usize = 256;

/// One event box.
#[derive(Clone, Debug)]
pub struct Node {
    /// The event id (`e3`).
    pub id: usize,
    /// `e3  W flag=1`.
    pub head: String,
    /// The instruction (empty for initial writes).
    pub instr: String,
    /// Order, scope and other tags (`REL GPU`), possibly empty.
    pub tags: String,
    /// `init`, `read`, `write`, `fence` or `barrier`.
    pub class: &'static str,
    /// On the violated axiom's cycle.
    pub in_cycle: bool,
}

impl Node {
    /// The text lines of the box.
    pub fn lines(&self) -> Vec<&str> {
        [&self.head, &self.instr, &self.tags]
            .into_iter()
            .filter(|l| !l.is_empty())
            .map(String::as_str)
            .collect()
    }
}

/// A thread's column.
#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    /// `gpu 0 / cta 1` (empty when the witness has no placement).
    pub scope: String,
    /// Its scope instances, outermost first.
    pub scopes: Vec<ScopeId>,
    pub nodes: Vec<Node>,
}

/// A box around the columns `first..last` (inclusive) that share a scope
/// instance; `depth` 0 is the outermost level.
#[derive(Clone, Debug)]
pub struct Group {
    pub label: String,
    pub level: String,
    pub depth: usize,
    pub first: usize,
    pub last: usize,
}

/// One edge.
#[derive(Clone, Debug)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// The relation's name (the label).
    pub rel: String,
    /// Index into [`Picture::legend`].
    pub style: usize,
    /// An edge of the violated axiom's cycle.
    pub cycle: bool,
}

/// A legend entry: the relation, its colour, a remark.
#[derive(Clone, Debug)]
pub struct Legend {
    pub rel: String,
    pub colour: &'static str,
    pub note: String,
    pub cycle: bool,
}

/// Everything to draw.
#[derive(Clone, Debug)]
pub struct Picture {
    pub title: String,
    pub caption: String,
    /// `axiom `x` (acyclic): cycle e1 -> e2 -> e1`, for a rejected
    /// candidate.
    pub violation: Option<String>,
    pub init: Vec<Node>,
    /// Threads in display order: those sharing a scope instance adjacent.
    pub columns: Vec<Column>,
    pub groups: Vec<Group>,
    pub edges: Vec<Edge>,
    pub legend: Vec<Legend>,
}

fn node(e: &WitnessEvent, in_cycle: bool) -> Node {
    let what = match (&e.location, e.value) {
        (Some(l), Some(v)) => format!("{} {l}={v}", e.kind),
        (Some(l), None) => format!("{} {l}", e.kind),
        _ => e.kind.clone(),
    };
    let class = match e.kind.as_str() {
        "IW" => "init",
        "R" => "read",
        "W" | "RMW" => "write",
        "F" => "fence",
        _ => "barrier",
    };
    Node {
        id: e.id,
        head: format!("e{}  {what}", e.id),
        instr: shorten(&e.instr, MAX_INSTR),
        tags: e.tags.join(" "),
        class,
        in_cycle,
    }
}

/// Instructions longer than this many characters are cut (SPIR-V
/// instructions can be long); the full text is in the witness.
const MAX_INSTR: usize = 56;

/// `s`, cut to `max` characters with an ellipsis.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max - 1).collect();
    t.push('…');
    t
}

/// A class-name-safe form of a relation name (`po-loc` ↦ `po_loc`).
pub fn css_name(rel: &str) -> String {
    rel.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl Picture {
    pub fn new(w: &Witness, o: &GraphOptions) -> Picture {
        let cycle_events: Vec<usize> = w
            .violation
            .as_ref()
            .map(|v| v.cycle.clone())
            .unwrap_or_default();
        // Initial writes of cells no thread touches are left out (a
        // kernel's buffers have many).
        let touched: std::collections::HashSet<&str> = w
            .events
            .iter()
            .filter(|e| e.thread != "init")
            .filter_map(|e| e.location.as_deref())
            .collect();
        let init: Vec<Node> = w
            .events
            .iter()
            .filter(|e| e.thread == "init")
            .filter(|e| {
                cycle_events.contains(&e.id)
                    || e.location.as_deref().is_none_or(|l| touched.contains(l))
            })
            .map(|e| node(e, cycle_events.contains(&e.id)))
            .collect();
        // Threads: the witness's list (program order) or, without
        // placement, the order of first appearance.
        let mut names: Vec<String> = w.threads.iter().map(|t| t.name.clone()).collect();
        for e in &w.events {
            if e.thread != "init" && !names.contains(&e.thread) {
                names.push(e.thread.clone());
            }
        }
        let mut columns: Vec<Column> = names
            .iter()
            .map(|n| {
                let t = w.threads.iter().find(|t| &t.name == n);
                Column {
                    name: n.clone(),
                    scope: t.map(|t| t.scope_path()).unwrap_or_default(),
                    scopes: t.map(|t| t.scopes.clone()).unwrap_or_default(),
                    nodes: w
                        .events
                        .iter()
                        .filter(|e| &e.thread == n)
                        .map(|e| node(e, cycle_events.contains(&e.id)))
                        .collect(),
                }
            })
            .collect();
        // Threads of one scope instance side by side (stable: program
        // order otherwise).
        columns.sort_by_key(|c| c.scopes.iter().map(|s| s.id).collect::<Vec<_>>());
        let groups = groups(&columns);

        let mut legend = vec![
            Legend {
                rel: "po".into(),
                colour: PO,
                note: "immediate".into(),
                cycle: false,
            },
            Legend {
                rel: "rf".into(),
                colour: RF,
                note: String::new(),
                cycle: false,
            },
            Legend {
                rel: "co".into(),
                colour: CO,
                note: "immediate".into(),
                cycle: false,
            },
            Legend {
                rel: "fr".into(),
                colour: FR,
                note: "to the immediate co-successor".into(),
                cycle: false,
            },
        ];
        let mut edges = Vec::new();
        for c in &columns {
            for pair in c.nodes.windows(2) {
                edges.push(Edge {
                    from: pair[0].id,
                    to: pair[1].id,
                    rel: "po".into(),
                    style: 0,
                    cycle: false,
                });
            }
        }
        let mut push = |pairs: &mut dyn Iterator<Item = (usize, usize)>, rel: &str, style| {
            for (a, b) in pairs {
                edges.push(Edge {
                    from: a,
                    to: b,
                    rel: rel.into(),
                    style,
                    cycle: false,
                });
            }
        };
        push(&mut w.rf.iter().copied(), "rf", 1);
        push(&mut w.co.iter().copied(), "co", 2);
        let mut fr: Vec<(usize, usize)> =
            w.rf.iter()
                .flat_map(|&(src, r)| {
                    w.co.iter()
                        .filter(move |&&(a, _)| a == src)
                        .map(move |&(_, b)| (r, b))
                })
                .collect();
        fr.sort_unstable();
        fr.dedup();
        push(&mut fr.into_iter(), "fr", 3);
        let shown = w
            .relations
            .iter()
            .filter(|r| o.show.as_ref().is_none_or(|s| s.contains(&r.name)));
        for (k, r) in shown.enumerate() {
            let style = legend.len();
            let total = r.pairs.len();
            legend.push(Legend {
                rel: r.name.clone(),
                colour: PALETTE[k % PALETTE.len()],
                note: if total > MAX_PAIRS {
                    format!("first {MAX_PAIRS} of {total} pairs")
                } else {
                    String::new()
                },
                cycle: false,
            });
            push(&mut r.pairs.iter().copied().take(MAX_PAIRS), &r.name, style);
        }
        let mut violation = None;
        if let Some(v) = &w.violation {
            let style = legend.len();
            legend.push(Legend {
                rel: v.axiom.clone(),
                colour: CYCLE,
                note: match v.kind.as_str() {
                    super::focus::RACE => "the racing pair".into(),
                    super::focus::FOREVER => "the steps that repeat forever".into(),
                    _ => format!("violated axiom ({}): {}", v.kind, v.describe()),
                },
                cycle: true,
            });
            // The cycle through named relations where the axiom could be
            // followed, else the axiom's own pairs.
            let steps: Vec<(usize, usize, String)> = if v.steps.is_empty() {
                v.edges
                    .iter()
                    .map(|&(a, b)| (a, b, v.axiom.clone()))
                    .collect()
            } else {
                v.steps
                    .iter()
                    .map(|s| (s.from, s.to, s.rel.clone()))
                    .collect()
            };
            for (a, b, rel) in steps {
                edges.push(Edge {
                    from: a,
                    to: b,
                    rel,
                    style,
                    cycle: true,
                });
            }
            violation = Some(match v.kind.as_str() {
                super::focus::RACE => format!(
                    "data race (flag `{}`): e{} and e{} conflict and nothing orders them",
                    v.axiom,
                    v.cycle.first().copied().unwrap_or(0),
                    v.cycle.get(1).copied().unwrap_or(0)
                ),
                super::focus::FOREVER => super::focus::forever_text(v),
                _ => format!(
                    "axiom `{}` ({}) violated: {}",
                    v.axiom,
                    v.kind,
                    v.describe()
                ),
            });
        }
        // Edges between events not drawn are dropped (initial writes left
        // out; a hand-edited or truncated witness).
        let known: std::collections::HashSet<usize> = init
            .iter()
            .chain(columns.iter().flat_map(|c| &c.nodes))
            .map(|n| n.id)
            .collect();
        edges.retain(|e| known.contains(&e.from) && known.contains(&e.to));
        // The legend names only what is drawn.
        let mut used = vec![false; legend.len()];
        for e in &edges {
            used[e.style] = true;
        }
        let mut renumber = vec![0; legend.len()];
        let mut kept = Vec::new();
        for (k, mut l) in legend.into_iter().enumerate() {
            // Base relations only when drawn; relations asked for with
            // `--show` always (with a note when this execution has none).
            if used[k] || l.cycle || k >= BASE {
                if !used[k] && !l.cycle && l.note.is_empty() {
                    l.note = "none in this execution".into();
                }
                renumber[k] = kept.len();
                kept.push(l);
            }
        }
        let legend = kept;
        for e in &mut edges {
            e.style = renumber[e.style];
        }
        Picture {
            title: o.title.clone(),
            caption: o.caption.clone(),
            violation,
            init,
            columns,
            groups,
            edges,
            legend,
        }
    }

    /// The caption's lines (none for an empty caption).
    pub fn caption_lines(&self) -> impl Iterator<Item = &str> {
        self.caption.lines().filter(|l| !l.is_empty())
    }

    /// The deepest scope nesting of any column.
    pub fn depth(&self) -> usize {
        self.columns
            .iter()
            .map(|c| c.scopes.len())
            .max()
            .unwrap_or(0)
    }

    /// Every node, initial writes first.
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.init
            .iter()
            .chain(self.columns.iter().flat_map(|c| &c.nodes))
    }
}

/// The scope boxes: at each level, each maximal run of adjacent columns
/// that agree on every level down to this one.
fn groups(columns: &[Column]) -> Vec<Group> {
    let mut out = Vec::new();
    let depth = columns.iter().map(|c| c.scopes.len()).max().unwrap_or(0);
    for d in 0..depth {
        let mut start = 0;
        while start < columns.len() {
            let key = |c: &Column| c.scopes.get(..=d).map(<[ScopeId]>::to_vec);
            let k = key(&columns[start]);
            let mut end = start;
            while end + 1 < columns.len() && key(&columns[end + 1]) == k {
                end += 1;
            }
            if let Some(path) = k {
                let s = &path[d];
                out.push(Group {
                    label: format!("{} {}", s.level, s.id),
                    level: s.level.clone(),
                    depth: d,
                    first: start,
                    last: end,
                });
            }
            start = end + 1;
        }
    }
    out
}
