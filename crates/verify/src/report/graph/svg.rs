//! SVG of an execution, from our own layout (`layout.rs`).

use super::layout::{self, layout, Rect};
use super::picture::{css_name, Picture};
use super::GraphOptions;
use crate::engine::witness::Witness;
use std::fmt::Write;

/// Text and attribute values.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "
.gpumc-graph text { font-family: Helvetica, Arial, sans-serif; }
.gpumc-graph .graph-title { font-size: 15px; font-weight: bold; }
.gpumc-graph .caption { font-size: 12px; fill: #424242; }
.gpumc-graph .violation { font-size: 12px; fill: #d50000; font-weight: bold; }
.gpumc-graph .scope rect { fill: none; stroke: #9e9e9e; stroke-dasharray: 5 3; }
.gpumc-graph .scope-label { font-size: 11px; fill: #616161; }
.gpumc-graph .headers text { paint-order: stroke; stroke: #ffffff; stroke-width: 4px; stroke-linejoin: round; }
.gpumc-graph .thread > rect { fill: #fafafa; stroke: #d0d0d0; }
.gpumc-graph .thread-label { font-size: 13px; font-weight: bold; }
.gpumc-graph .thread-scope { font-size: 11px; fill: #616161; }
.gpumc-graph .event rect { stroke: #424242; stroke-width: 1.2; }
.gpumc-graph .event.init rect { fill: #eceff1; }
.gpumc-graph .event.read rect { fill: #f1f8e9; }
.gpumc-graph .event.write rect { fill: #e3f2fd; }
.gpumc-graph .event.fence rect { fill: #fff8e1; }
.gpumc-graph .event.barrier rect { fill: #fce4ec; }
.gpumc-graph .event.in-cycle rect { stroke: #d50000; stroke-width: 2.5; }
.gpumc-graph .event text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 11px; }
.gpumc-graph .event .head { font-weight: bold; }
.gpumc-graph .event .tags { fill: #6a1b9a; }
.gpumc-graph .edge path { fill: none; stroke-width: 1.6; }
.gpumc-graph .edge.cycle path { stroke-width: 4; }
.gpumc-graph .edge-label { font-size: 11px; paint-order: stroke; stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; }
.gpumc-graph .edge-label.cycle { font-weight: bold; }
.gpumc-graph .legend text { font-size: 11px; }
";

fn rect(s: &mut String, r: &Rect, rx: f64, extra: &str) {
    let _ = write!(
        s,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"{rx}\"{extra}/>",
        r.x, r.y, r.w, r.h
    );
}

/// The execution `w` as a standalone SVG document laid out by gpumc
/// (no Graphviz): threads in columns nested in scope boxes, initial
/// writes on top, curved edges with arrowheads and labels, a legend and
/// a title. Deterministic: the same witness and options give the same
/// bytes. Elements carry classes for styling and tests: `thread`,
/// `thread-label`, `event` (+ `init`/`read`/`write`/`fence`/`barrier`,
/// `in-cycle`), `edge rel-<name>` (+ `cycle`), `legend`.
pub fn svg(w: &Witness, o: &GraphOptions) -> String {
    let p = Picture::new(w, o);
    let l = layout(&p);
    let prefix = if o.id_prefix.is_empty() {
        "gpumc"
    } else {
        o.id_prefix.as_str()
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gpumc-graph\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">",
        w = l.width,
        h = l.height
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&p.title));
    let _ = writeln!(s, "<style>{STYLE}</style>");
    // One arrowhead per legend entry (markers do not take the edge's
    // colour in SVG 1.1).
    let _ = write!(s, "<defs>");
    for (i, e) in p.legend.iter().enumerate() {
        let _ = write!(
            s,
            "<marker id=\"{prefix}-arrow-{i}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerUnits=\"userSpaceOnUse\" markerWidth=\"{m}\" markerHeight=\"{m}\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"{}\"/></marker>",
            e.colour,
            m = if e.cycle { 14 } else { 10 }
        );
    }
    let _ = writeln!(s, "</defs>");
    let _ = writeln!(
        s,
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
        l.width, l.height
    );
    // Title, caption, violation.
    let mut ty = l.title_y;
    let _ = writeln!(
        s,
        "<text class=\"graph-title\" x=\"{}\" y=\"{ty:.1}\">{}</text>",
        layout::MARGIN,
        esc(&p.title)
    );
    for line in p.caption_lines() {
        ty += 18.0;
        let _ = writeln!(
            s,
            "<text class=\"caption\" x=\"{}\" y=\"{ty:.1}\">{}</text>",
            layout::MARGIN,
            esc(line)
        );
    }
    if let Some(v) = &p.violation {
        ty += 18.0;
        let _ = writeln!(
            s,
            "<text class=\"violation\" x=\"{}\" y=\"{ty:.1}\">{}</text>",
            layout::MARGIN,
            esc(v)
        );
    }
    // Scope boxes.
    let _ = writeln!(s, "<g class=\"scopes\">");
    for (g, r) in p.groups.iter().zip(&l.groups) {
        let _ = write!(
            s,
            "<g class=\"scope scope-{}\" data-scope=\"{}\">",
            css_name(&g.level),
            esc(&g.label)
        );
        rect(&mut s, r, 10.0, "");
        let _ = writeln!(s, "</g>");
    }
    let _ = writeln!(s, "</g>");
    // Thread columns (their names go over the edges, below).
    let _ = writeln!(s, "<g class=\"threads\">");
    for (c, r) in p.columns.iter().zip(&l.columns) {
        let _ = write!(s, "<g class=\"thread\" data-thread=\"{}\">", esc(&c.name));
        rect(&mut s, r, 6.0, "");
        let _ = writeln!(s, "</g>");
    }
    let _ = writeln!(s, "</g>");
    // Edges under the events, their labels over them.
    let edge_class = |e: &super::picture::Edge| {
        format!(
            "edge rel-{}{}",
            css_name(&e.rel),
            if e.cycle { " cycle" } else { "" }
        )
    };
    let _ = writeln!(s, "<g class=\"edges\">");
    for (e, c) in p.edges.iter().zip(&l.edges) {
        let colour = p.legend[e.style].colour;
        let _ = writeln!(
            s,
            "<g class=\"{}\" data-rel=\"{}\" data-from=\"e{}\" data-to=\"e{}\"><path d=\"{}\" stroke=\"{colour}\" marker-end=\"url(#{prefix}-arrow-{})\"/></g>",
            edge_class(e),
            esc(&e.rel),
            e.from,
            e.to,
            c.d,
            e.style
        );
    }
    let _ = writeln!(s, "</g>");
    // Thread and scope names over the edges that cross them.
    let _ = writeln!(s, "<g class=\"headers\">");
    for (c, r) in p.columns.iter().zip(&l.columns) {
        let _ = write!(
            s,
            "<text class=\"thread-label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            r.cx(),
            r.y + 16.0,
            esc(&c.name)
        );
        if !c.scope.is_empty() {
            let _ = write!(
                s,
                "<text class=\"thread-scope\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                r.cx(),
                r.y + 30.0,
                esc(&c.scope)
            );
        }
        let _ = writeln!(s);
    }
    for (g, r) in p.groups.iter().zip(&l.groups) {
        let _ = writeln!(
            s,
            "<text class=\"scope-label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            r.x + 8.0,
            r.y + 13.0,
            esc(&g.label)
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "<g class=\"events\">");
    for n in p.nodes() {
        let r = l.nodes[&n.id];
        let _ = write!(
            s,
            "<g class=\"event {}{}\" id=\"{prefix}-e{}\" data-event=\"e{}\">",
            n.class,
            if n.in_cycle { " in-cycle" } else { "" },
            n.id,
            n.id
        );
        rect(&mut s, &r, 4.0, "");
        let mut y = r.y + 5.0 + layout::LINE_H - 3.0;
        for (k, line) in [&n.head, &n.instr, &n.tags].into_iter().enumerate() {
            if line.is_empty() {
                continue;
            }
            let class = ["head", "instr", "tags"][k];
            let _ = write!(
                s,
                "<text class=\"{class}\" x=\"{:.1}\" y=\"{y:.1}\">{}</text>",
                r.x + 8.0,
                esc(line)
            );
            y += layout::LINE_H;
        }
        let _ = writeln!(s, "</g>");
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "<g class=\"edge-labels\">");
    for (e, c) in p.edges.iter().zip(&l.edges) {
        let colour = p.legend[e.style].colour;
        let _ = writeln!(
            s,
            "<text class=\"edge-label rel-{}{}\" x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\" text-anchor=\"middle\">{}</text>",
            css_name(&e.rel),
            if e.cycle { " cycle" } else { "" },
            c.label.0,
            c.label.1,
            esc(&e.rel)
        );
    }
    let _ = writeln!(s, "</g>");
    // Legend.
    let _ = writeln!(s, "<g class=\"legend\">");
    for (i, (e, &(x, y))) in p.legend.iter().zip(&l.legend).enumerate() {
        let text = if e.note.is_empty() {
            e.rel.clone()
        } else {
            format!("{} ({})", e.rel, e.note)
        };
        let _ = writeln!(
            s,
            "<g class=\"legend-entry rel-{}{}\"><path d=\"M {x:.1} {:.1} L {:.1} {:.1}\" stroke=\"{}\" stroke-width=\"{}\" marker-end=\"url(#{prefix}-arrow-{i})\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            css_name(&e.rel),
            if e.cycle { " cycle" } else { "" },
            y + 6.0,
            x + 28.0,
            y + 6.0,
            e.colour,
            if e.cycle { 4 } else { 2 },
            x + 36.0,
            y + 10.0,
            esc(&text)
        );
    }
    let _ = writeln!(s, "</g>");
    let _ = writeln!(s, "</svg>");
    s
}
