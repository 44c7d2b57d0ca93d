//! A deterministic column layout of a [`Picture`]: no Graphviz, no
//! search. Threads are columns (in the picture's order), the k-th event
//! of every thread on row k, the initial writes in a row on top, scope
//! boxes padded around their columns, edges as quadratic curves bent to
//! one side (so that opposite edges between two events separate) with
//! their endpoints on the boxes' borders.

use super::picture::{Edge, Picture};

pub const MARGIN: f64 = 20.0;
/// Width of one character of the event text (11px monospace).
pub const CHAR_W: f64 = 6.7;
pub const LINE_H: f64 = 14.0;
/// Padding of a scope box around what it holds, and its label's height.
pub const PAD: f64 = 12.0;
pub const LABEL_H: f64 = 16.0;
pub const HEADER_H: f64 = 34.0;
const COL_GAP: f64 = 80.0;
const ROW_GAP: f64 = 46.0;
const INIT_GAP: f64 = 30.0;
/// The initial writes wrap at the columns' width, or at this width.
const INIT_ROW_W: f64 = 900.0;
const MIN_NODE_W: f64 = 150.0;
const LEGEND_LINE: f64 = 20.0;

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Rect {
    pub fn cx(&self) -> f64 {
        self.x + self.w / 2.0
    }
    pub fn cy(&self) -> f64 {
        self.y + self.h / 2.0
    }
    /// Where the ray from the centre towards `(tx, ty)` leaves the box.
    fn border(&self, tx: f64, ty: f64) -> (f64, f64) {
        let (dx, dy) = (tx - self.cx(), ty - self.cy());
        if dx == 0.0 && dy == 0.0 {
            return (self.cx(), self.y);
        }
        let sx = if dx == 0.0 {
            f64::INFINITY
        } else {
            (self.w / 2.0) / dx.abs()
        };
        let sy = if dy == 0.0 {
            f64::INFINITY
        } else {
            (self.h / 2.0) / dy.abs()
        };
        let s = sx.min(sy);
        (self.cx() + dx * s, self.cy() + dy * s)
    }
}

/// An edge's path (SVG `d`) and where its label goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub d: String,
    pub label: (f64, f64),
}

/// Where everything goes.
#[derive(Clone, Debug)]
pub struct Layout {
    pub width: f64,
    pub height: f64,
    /// Baselines of the title, caption and violation lines.
    pub title_y: f64,
    /// Per event id: its box.
    pub nodes: std::collections::HashMap<usize, Rect>,
    /// Per column: its box (header and events) and the header's centre.
    pub columns: Vec<Rect>,
    /// Per group of the picture: its box.
    pub groups: Vec<Rect>,
    /// Per edge of the picture: its curve.
    pub edges: Vec<Curve>,
    /// Legend entries: top-left of each entry.
    pub legend: Vec<(f64, f64)>,
}

fn text_w(s: &str, per_char: f64) -> f64 {
    s.chars().count() as f64 * per_char
}

/// The width of a legend entry.
pub fn legend_w(rel: &str, note: &str) -> f64 {
    let text = if note.is_empty() {
        rel.to_string()
    } else {
        format!("{rel} ({note})")
    };
    36.0 + text_w(&text, 6.4) + 22.0
}

/// Lays `p` out.
pub fn layout(p: &Picture) -> Layout {
    let node_size = |n: &super::picture::Node| {
        let lines = n.lines();
        let w = lines
            .iter()
            .map(|l| text_w(l, CHAR_W) + 16.0)
            .fold(MIN_NODE_W, f64::max);
        (w, lines.len() as f64 * LINE_H + 10.0)
    };
    let mut nodes = std::collections::HashMap::new();
    // Title block.
    let mut y = MARGIN;
    let title_y = y + 16.0;
    y += 22.0;
    // One line per caption line (a race's caption names both
    // instructions, each on its own line).
    y += 18.0 * p.caption_lines().count() as f64;
    if p.violation.is_some() {
        y += 18.0;
    }
    y += 14.0;
    let title_w = p
        .caption_lines()
        .map(|c| text_w(c, 6.6))
        .fold(text_w(&p.title, 8.6), f64::max)
        .max(p.violation.as_deref().map_or(0.0, |v| text_w(v, 6.6)));

    // Columns: widths, x positions.
    let depth = p.depth();
    let col_w: Vec<f64> = p
        .columns
        .iter()
        .map(|c| {
            c.nodes
                .iter()
                .map(|n| node_size(n).0)
                .fold(MIN_NODE_W, f64::max)
                .max(text_w(&c.name, 8.4) + 16.0)
                .max(text_w(&c.scope, 6.6) + 16.0)
                + 16.0
        })
        .collect();
    let mut col_x = Vec::new();
    let mut x = MARGIN + depth as f64 * PAD;
    for (i, c) in p.columns.iter().enumerate() {
        if i > 0 {
            let prev = &p.columns[i - 1];
            let same = prev
                .scopes
                .iter()
                .zip(&c.scopes)
                .take_while(|(a, b)| a == b)
                .count();
            let changed = prev.scopes.len().max(c.scopes.len()) - same;
            x += COL_GAP + 2.0 * PAD * changed as f64;
        }
        col_x.push(x);
        x += col_w[i];
    }
    let columns_right = x;

    // The initial writes in rows on top, each row centred over the
    // columns and no wider than they are (at least INIT_ROW_W).
    let init_sizes: Vec<(f64, f64)> = p.init.iter().map(node_size).collect();
    let span = (columns_right - MARGIN).max(INIT_ROW_W);
    let mut init_right = 0.0f64;
    let mut k = 0;
    while k < p.init.len() {
        // As many as fit on this row (at least one).
        let mut end = k + 1;
        let mut used = init_sizes[k].0;
        while end < p.init.len() && used + INIT_GAP + init_sizes[end].0 <= span {
            used += INIT_GAP + init_sizes[end].0;
            end += 1;
        }
        let mut ix = MARGIN + ((columns_right - MARGIN - used) / 2.0).max(0.0);
        let h = init_sizes[k..end].iter().map(|s| s.1).fold(0.0, f64::max);
        for (n, (w, nh)) in p.init[k..end].iter().zip(&init_sizes[k..end]) {
            nodes.insert(
                n.id,
                Rect {
                    x: ix,
                    y,
                    w: *w,
                    h: *nh,
                },
            );
            ix += w + INIT_GAP;
        }
        init_right = init_right.max(ix - INIT_GAP);
        y += h + 14.0;
        k = end;
    }
    if !p.init.is_empty() {
        y += 42.0;
    }

    // Rows.
    let groups_top = y;
    let header_top = groups_top + depth as f64 * (PAD + LABEL_H);
    let rows = p.columns.iter().map(|c| c.nodes.len()).max().unwrap_or(0);
    let row_h: Vec<f64> = (0..rows)
        .map(|k| {
            p.columns
                .iter()
                .filter_map(|c| c.nodes.get(k))
                .map(|n| node_size(n).1)
                .fold(0.0, f64::max)
        })
        .collect();
    let mut row_y = Vec::new();
    let mut ry = header_top + HEADER_H + 12.0;
    for h in &row_h {
        row_y.push(ry);
        ry += h + ROW_GAP;
    }
    let rows_bottom = ry - ROW_GAP + 10.0;
    let mut columns = Vec::new();
    for (i, c) in p.columns.iter().enumerate() {
        // Every event of a column as wide as the column.
        for (k, n) in c.nodes.iter().enumerate() {
            let h = node_size(n).1;
            nodes.insert(
                n.id,
                Rect {
                    x: col_x[i] + 8.0,
                    y: row_y[k] + (row_h[k] - h) / 2.0,
                    w: col_w[i] - 16.0,
                    h,
                },
            );
        }
        columns.push(Rect {
            x: col_x[i],
            y: header_top,
            w: col_w[i],
            h: rows_bottom - header_top,
        });
    }
    let groups: Vec<Rect> = p
        .groups
        .iter()
        .map(|g| {
            let inner = |ci: usize| p.columns[ci].scopes.len().saturating_sub(g.depth) as f64;
            let left = col_x[g.first] - PAD * inner(g.first);
            let right = col_x[g.last] + col_w[g.last] + PAD * inner(g.last);
            let top = groups_top + g.depth as f64 * (PAD + LABEL_H);
            let bottom = rows_bottom + PAD * (depth - g.depth) as f64;
            Rect {
                x: left,
                y: top,
                w: right - left,
                h: bottom - top,
            }
        })
        .collect();
    let content_bottom = rows_bottom + PAD * depth as f64;

    // Legend, wrapped to the width.
    let mut width = (columns_right + depth as f64 * PAD + MARGIN)
        .max(init_right + MARGIN)
        .max(title_w + 2.0 * MARGIN);
    let mut legend = Vec::new();
    let (mut lx, mut ly) = (MARGIN, content_bottom + 26.0);
    for l in &p.legend {
        let w = legend_w(&l.rel, &l.note);
        if lx > MARGIN && lx + w > width - MARGIN {
            lx = MARGIN;
            ly += LEGEND_LINE;
        }
        legend.push((lx, ly));
        lx += w;
    }
    if let Some(&(x, _)) = legend.last() {
        let l = p.legend.last().expect("an entry");
        width = width.max(x + legend_w(&l.rel, &l.note) + MARGIN);
    }
    let height = ly + LEGEND_LINE + MARGIN;
    let edges = curves(p, &nodes);
    Layout {
        width: width.ceil(),
        height: height.ceil(),
        title_y,
        nodes,
        columns,
        groups,
        edges,
        legend,
    }
}

/// The curve of every edge.
fn curves(p: &Picture, nodes: &std::collections::HashMap<usize, Rect>) -> Vec<Curve> {
    let mut seen: std::collections::HashMap<(usize, usize), usize> = Default::default();
    let column_of = |id: usize| {
        p.columns
            .iter()
            .position(|c| c.nodes.iter().any(|n| n.id == id))
    };
    let consecutive = |e: &Edge| {
        p.columns.iter().any(|c| {
            c.nodes
                .windows(2)
                .any(|w| w[0].id == e.from && w[1].id == e.to)
        })
    };
    p.edges
        .iter()
        .map(|e| {
            let key = (e.from.min(e.to), e.from.max(e.to));
            let k = *seen.entry(key).and_modify(|k| *k += 1).or_insert(0);
            let (a, b) = (nodes[&e.from], nodes[&e.to]);
            if e.from == e.to {
                let r = a.x + a.w;
                let out = 40.0 + 18.0 * k as f64;
                return Curve {
                    d: format!(
                        "M {:.1} {:.1} C {:.1} {:.1} {:.1} {:.1} {:.1} {:.1}",
                        r,
                        a.cy() - 6.0,
                        r + out,
                        a.cy() - 34.0,
                        r + out,
                        a.cy() + 34.0,
                        r,
                        a.cy() + 6.0
                    ),
                    label: (r + out * 0.75 + 4.0, a.cy()),
                };
            }
            if k == 0 && consecutive(e) {
                let (x1, y1) = (a.cx(), a.y + a.h);
                let (x2, y2) = (b.cx(), b.y);
                return Curve {
                    d: format!("M {x1:.1} {y1:.1} L {x2:.1} {y2:.1}"),
                    label: (x1 + 6.0, (y1 + y2) / 2.0 + 4.0),
                };
            }
            let (c1x, c1y, c2x, c2y) = (a.cx(), a.cy(), b.cx(), b.cy());
            let same_column = column_of(e.from).is_some() && column_of(e.from) == column_of(e.to);
            let (cx, cy) = if same_column {
                // Out to the right of the column, further per parallel edge.
                let right = a.x.max(b.x) + a.w.max(b.w);
                let sign = if e.from < e.to { 1.0 } else { 1.4 };
                (right + (36.0 + 22.0 * k as f64) * sign, (c1y + c2y) / 2.0)
            } else {
                let (dx, dy) = (c2x - c1x, c2y - c1y);
                let len = (dx * dx + dy * dy).sqrt().max(1.0);
                let off = 18.0 + 26.0 * k as f64;
                (
                    (c1x + c2x) / 2.0 - dy / len * off,
                    (c1y + c2y) / 2.0 + dx / len * off,
                )
            };
            let (sx, sy) = a.border(cx, cy);
            let (ex, ey) = b.border(cx, cy);
            Curve {
                d: format!("M {sx:.1} {sy:.1} Q {cx:.1} {cy:.1} {ex:.1} {ey:.1}"),
                label: (
                    0.25 * sx + 0.5 * cx + 0.25 * ex,
                    0.25 * sy + 0.5 * cy + 0.25 * ey + 4.0,
                ),
            }
        })
        .collect()
}
