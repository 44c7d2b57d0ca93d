//! HTML escaping. Every piece of text that comes from a report (file and
//! test names, instruction text, messages, state labels) goes through
//! [`esc`] before it is written into the page, in element content and in
//! attribute values alike (attributes are always double-quoted).

use std::fmt;

/// `s` with `&`, `<`, `>`, `"` and `'` replaced by character references,
/// safe in element content, double- or single-quoted attribute values and
/// SVG text.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab and newline have no place
            // in a page; show them as the replacement character.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A `Display` wrapper that escapes while formatting: `format!("{}", E(s))`.
pub struct E<'a>(pub &'a str);

impl fmt::Display for E<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&esc(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped() {
        assert_eq!(
            esc(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(E("a<b").to_string(), "a&lt;b");
        assert_eq!(esc("tab\tnl\nbell\u{7}"), "tab\tnl\nbell\u{fffd}");
        assert_eq!(esc("P1:r0=1; ∀"), "P1:r0=1; ∀");
    }
}
