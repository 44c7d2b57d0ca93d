//! Graphviz DOT text of an execution.

use super::picture::{css_name, Picture};
use super::GraphOptions;
use crate::engine::witness::Witness;
use std::fmt::Write;

/// A DOT string literal's contents.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o
}

/// Text inside a Graphviz HTML-like label.
fn html(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The execution `w` as a Graphviz `digraph`: a cluster per scope
/// instance and per thread, the initial writes on one rank at the top,
/// the k-th events of all threads on one rank, one colour per relation
/// (with a legend node), the violated axiom's cycle thick and red (edge
/// `class="cycle"`, which `dot -Tsvg` copies into the SVG).
pub fn dot(w: &Witness, o: &GraphOptions) -> String {
    let p = Picture::new(w, o);
    let mut s = String::new();
    let mut label = p.title.clone();
    if !p.caption.is_empty() {
        label.push('\n');
        label.push_str(&p.caption);
    }
    let _ = writeln!(s, "digraph \"{}\" {{", esc(&p.title));
    let _ = writeln!(
        s,
        "  graph [label=\"{}\", labelloc=t, fontname=\"Helvetica\", fontsize=14, newrank=true, nodesep=0.5, ranksep=0.6];",
        esc(&label)
    );
    let _ = writeln!(
        s,
        "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Courier\", fontsize=10];"
    );
    let _ = writeln!(s, "  edge [fontname=\"Helvetica\", fontsize=9];");
    let node_line = |s: &mut String, n: &super::picture::Node, indent: &str| {
        let text = n.lines().join("\n");
        let extra = if n.in_cycle {
            ", color=\"#d50000\", penwidth=2"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "{indent}e{} [label=\"{}\", class=\"event {}\"{extra}];",
            n.id,
            esc(&text),
            n.class
        );
    };
    // Initial writes on one rank, above the threads.
    if !p.init.is_empty() {
        let _ = writeln!(s, "  subgraph init {{");
        let _ = writeln!(s, "    rank=same;");
        for n in &p.init {
            node_line(&mut s, n, "    ");
        }
        let _ = writeln!(s, "  }}");
    }
    // Scope boxes and thread columns, nested.
    let mut open: Vec<usize> = Vec::new();
    for (ci, c) in p.columns.iter().enumerate() {
        // Close the boxes that end before this column, open those that
        // start here (outermost first).
        while let Some(&g) = open.last() {
            if p.groups[g].last < ci {
                open.pop();
                let _ = writeln!(s, "{}}}", "  ".repeat(open.len() + 1));
            } else {
                break;
            }
        }
        for (gi, g) in p.groups.iter().enumerate() {
            if g.first == ci {
                let ind = "  ".repeat(open.len() + 1);
                let _ = writeln!(
                    s,
                    "{ind}subgraph cluster_s{gi} {{ label=\"{}\"; style=\"rounded\"; color=\"#9e9e9e\"; fontname=\"Helvetica\"; fontsize=11;",
                    esc(&g.label)
                );
                open.push(gi);
            }
        }
        let ind = "  ".repeat(open.len() + 1);
        let head = if c.scope.is_empty() {
            c.name.clone()
        } else {
            format!("{}\n{}", c.name, c.scope)
        };
        let _ = writeln!(
            s,
            "{ind}subgraph cluster_t{ci} {{ label=\"{}\"; style=\"filled,rounded\"; fillcolor=\"#f5f5f5\"; color=\"#bdbdbd\"; fontname=\"Helvetica-Bold\"; fontsize=12;",
            esc(&head)
        );
        for n in &c.nodes {
            node_line(&mut s, n, &format!("{ind}  "));
        }
        let _ = writeln!(s, "{ind}}}");
    }
    while open.pop().is_some() {
        let _ = writeln!(s, "{}}}", "  ".repeat(open.len() + 1));
    }
    // Rows: the k-th event of every thread on one rank; the initial
    // writes above the first row.
    let rows = p.columns.iter().map(|c| c.nodes.len()).max().unwrap_or(0);
    for k in 0..rows {
        let ids: Vec<String> = p
            .columns
            .iter()
            .filter_map(|c| c.nodes.get(k))
            .map(|n| format!("e{}", n.id))
            .collect();
        if ids.len() > 1 {
            let _ = writeln!(s, "  {{ rank=same; {}; }}", ids.join("; "));
        }
    }
    if let Some(i) = p.init.first() {
        for c in &p.columns {
            if let Some(n) = c.nodes.first() {
                let _ = writeln!(s, "  e{} -> e{} [style=invis];", i.id, n.id);
            }
        }
    }
    for e in &p.edges {
        let l = &p.legend[e.style];
        let mut attrs = format!(
            "label=\"{}\", color=\"{}\", fontcolor=\"{}\", class=\"edge rel-{}{}\"",
            esc(&e.rel),
            l.colour,
            l.colour,
            css_name(&e.rel),
            if e.cycle { " cycle" } else { "" }
        );
        if e.cycle {
            attrs.push_str(", penwidth=3.5, style=bold");
        }
        if e.rel == "po" {
            attrs.push_str(", weight=10");
        } else {
            attrs.push_str(", constraint=false");
        }
        let _ = writeln!(s, "  e{} -> e{} [{attrs}];", e.from, e.to);
    }
    // The legend, as one HTML-like table.
    let mut rows = String::new();
    for l in &p.legend {
        let note = if l.note.is_empty() {
            String::new()
        } else {
            format!(" ({})", html(&l.note))
        };
        let _ = write!(
            rows,
            "<tr><td align=\"left\"><font color=\"{}\">{}</font></td><td align=\"left\">{}{note}</td></tr>",
            l.colour,
            if l.cycle { "&#9473;&#9473;&#9473;" } else { "&#8212;&#8594;" },
            html(&l.rel)
        );
    }
    let _ = writeln!(
        s,
        "  legend [shape=plaintext, style=\"\", fontname=\"Helvetica\", fontsize=10, label=<<table border=\"1\" color=\"#bdbdbd\" cellborder=\"0\" cellspacing=\"2\">{rows}</table>>];"
    );
    let _ = writeln!(s, "}}");
    s
}
