//! The test table: a header of sortable columns, a text box and a tag
//! filter, and one `<details class="test">` per test whose summary is the
//! row and whose body is the expanded view. Each row carries its sort keys
//! as `data-KEY` attributes, its input position as `data-i`, its filter
//! tags as `data-tags` and the text the box searches as `data-search`;
//! the page's script (page.rs) sorts and filters on those.

use super::escape::{esc, E};
use std::fmt::Write;

pub struct Column {
    /// The `data-` attribute holding the sort key: lowercase ASCII letters.
    pub key: &'static str,
    pub label: &'static str,
    /// Sorted as a number (missing values last), right-aligned.
    pub numeric: bool,
    /// A CSS grid track, e.g. `minmax(18em,3fr)` or `6em`.
    pub width: &'static str,
}

/// One cell: its HTML and its sort key.
pub struct Cell {
    pub html: String,
    pub sort: String,
}

impl Cell {
    /// Text shown and sorted as is.
    pub fn text(s: &str) -> Cell {
        Cell {
            html: esc(s),
            sort: s.to_string(),
        }
    }

    /// A number shown as `shown`, sorted by `x` (`None`: empty, sorted last).
    pub fn num(x: Option<f64>, shown: &str) -> Cell {
        Cell {
            html: esc(shown),
            sort: x
                .filter(|x| x.is_finite())
                .map(|x| x.to_string())
                .unwrap_or_default(),
        }
    }

    /// A coloured word (verdict, status, yes/no).
    pub fn word(s: &str) -> Cell {
        Cell {
            html: format!("<b class=\"v {}\">{}</b>", super::page::class_name(s), E(s)),
            sort: s.to_string(),
        }
    }

    /// A file name shown without the directory `prefix` the table states
    /// once; sorted (and titled) by the whole name.
    pub fn file(name: &str, prefix: &str) -> Cell {
        Cell {
            html: esc(name.strip_prefix(prefix).unwrap_or(name)),
            sort: name.to_string(),
        }
    }

    /// HTML made by us (already escaped), sorted by `sort`.
    pub fn html(html: String, sort: String) -> Cell {
        Cell { html, sort }
    }
}

pub struct Row {
    /// One per column.
    pub cells: Vec<Cell>,
    /// Filter tags, `name:value` (no spaces).
    pub tags: Vec<String>,
    /// What the text box matches (lowercased here).
    pub search: String,
    /// Highlighted (a disagreement, a violation).
    pub bad: bool,
    /// The expanded view (HTML, already escaped).
    pub body: String,
}

/// An entry of the tag filter.
pub struct Filter {
    pub tag: String,
    pub label: String,
}

/// The controls and the table.
pub fn render(columns: &[Column], rows: &[Row], filters: &[Filter]) -> String {
    let mut s = String::new();
    s.push_str(
        "<div class=\"controls\">\n<input id=\"q\" type=\"search\" placeholder=\"filter: file, verdict, message…\" aria-label=\"filter text\">\n<select id=\"v\" aria-label=\"filter by verdict\">\n<option value=\"\">all tests</option>\n",
    );
    for f in filters {
        let count = rows.iter().filter(|r| r.tags.contains(&f.tag)).count();
        let _ = writeln!(
            s,
            "<option value=\"{}\">{} ({count})</option>",
            esc(&f.tag),
            E(&f.label)
        );
    }
    let _ = write!(
        s,
        "</select>\n<button type=\"button\" id=\"expand\">expand all</button>\
         <button type=\"button\" id=\"collapse\">collapse all</button>\n\
         <span id=\"shown\">{n} of {n} shown</span>\n</div>\n",
        n = rows.len()
    );
    let cols: Vec<&str> = columns.iter().map(|c| c.width).collect();
    let _ = write!(
        s,
        "<div id=\"tests\" class=\"tests\" data-rows=\"{}\" data-sorted=\"\" style=\"--cols:{}\">\n<div class=\"row head\">",
        rows.len(),
        esc(&cols.join(" "))
    );
    for c in columns {
        let _ = write!(
            s,
            "<button type=\"button\" data-key=\"{}\" data-num=\"{}\" aria-sort=\"none\"{}>{}</button>",
            c.key,
            u8::from(c.numeric),
            if c.numeric { " class=\"num\"" } else { "" },
            E(c.label)
        );
    }
    s.push_str("</div>\n");
    for (i, r) in rows.iter().enumerate() {
        let _ = write!(
            s,
            "<details class=\"test{}\" data-i=\"{i}\" data-tags=\"{}\" data-search=\"{}\"",
            if r.bad { " bad" } else { "" },
            esc(&r.tags.join(" ")),
            esc(&r.search.to_lowercase())
        );
        for (c, cell) in columns.iter().zip(&r.cells) {
            let _ = write!(s, " data-{}=\"{}\"", c.key, esc(&cell.sort));
        }
        s.push_str(">\n<summary class=\"row\">");
        for (k, (c, cell)) in columns.iter().zip(&r.cells).enumerate() {
            let class = match (k, c.numeric) {
                (0, _) => " class=\"file\"",
                (_, true) => " class=\"num\"",
                _ => "",
            };
            let title = if k == 0 {
                format!(" title=\"{}\"", esc(&cell.sort))
            } else {
                String::new()
            };
            let _ = write!(s, "<span{class}{title}>{}</span>", cell.html);
        }
        s.push_str("</summary>\n<div class=\"body\">\n");
        s.push_str(&r.body);
        s.push_str("</div>\n</details>\n");
    }
    s.push_str("</div>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_sort_keys_tags_and_escaped_text() {
        let cols = [
            Column {
                key: "file",
                label: "file",
                numeric: false,
                width: "1fr",
            },
            Column {
                key: "time",
                label: "time",
                numeric: true,
                width: "5em",
            },
        ];
        let rows = [Row {
            cells: vec![
                Cell::text("a<script>x</script>.litmus"),
                Cell::num(Some(1.5), "1.50"),
            ],
            tags: vec!["verdict:PASS".into()],
            search: "A<b".into(),
            bad: false,
            body: "<p>x</p>".into(),
        }];
        let filters = [Filter {
            tag: "verdict:PASS".into(),
            label: "PASS".into(),
        }];
        let h = render(&cols, &rows, &filters);
        assert!(!h.contains("<script"), "{h}");
        assert!(h.contains("data-file=\"a&lt;script&gt;x&lt;/script&gt;.litmus\""));
        assert!(h.contains("data-time=\"1.5\""));
        assert!(h.contains("data-tags=\"verdict:PASS\""));
        assert!(h.contains("data-search=\"a&lt;b\""));
        assert!(h.contains("<option value=\"verdict:PASS\">PASS (1)</option>"));
        assert!(h.contains("data-rows=\"1\""));
        assert_eq!(h.matches("<details class=\"test").count(), 1);
        assert!(h.contains("1 of 1 shown"));
    }

    #[test]
    fn missing_numbers_have_an_empty_sort_key() {
        assert_eq!(Cell::num(None, "–").sort, "");
        assert_eq!(Cell::num(Some(f64::NAN), "–").sort, "");
    }
}
