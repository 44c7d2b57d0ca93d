//! A small PTX text writer: instructions, labels and comments of the
//! kernel body, plus the registers the body uses, declared once each in
//! the order they were first asked for (so the text is deterministic and
//! every register it names is declared).

use std::collections::HashSet;
use std::fmt::Write;

/// PTX register types used by the generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegType {
    Pred,
    B32,
    B64,
}

impl RegType {
    fn keyword(self) -> &'static str {
        match self {
            RegType::Pred => ".pred",
            RegType::B32 => ".b32",
            RegType::B64 => ".b64",
        }
    }
}

#[derive(Default)]
pub(crate) struct Asm {
    body: String,
    regs: Vec<(RegType, String)>,
    declared: HashSet<String>,
    next_label: u32,
}

impl Asm {
    /// Declares `%name` of type `ty` (once) and returns `%name`.
    pub fn reg(&mut self, ty: RegType, name: &str) -> String {
        let full = format!("%{name}");
        if self.declared.insert(full.clone()) {
            self.regs.push((ty, full.clone()));
        }
        full
    }

    pub fn b32(&mut self, name: &str) -> String {
        self.reg(RegType::B32, name)
    }

    pub fn b64(&mut self, name: &str) -> String {
        self.reg(RegType::B64, name)
    }

    pub fn pred(&mut self, name: &str) -> String {
        self.reg(RegType::Pred, name)
    }

    /// One instruction (the `;` is added).
    pub fn ins(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t{};", text.as_ref());
    }

    pub fn label(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
    }

    /// A comment line; control characters of the text (test names are
    /// arbitrary) are replaced so the comment stays on its line.
    pub fn comment(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t// {}", comment_safe(text.as_ref()));
    }

    pub fn blank(&mut self) {
        self.body.push('\n');
    }

    /// A fresh label `$<hint>_<n>` for the generator's own control flow.
    pub fn fresh_label(&mut self, hint: &str) -> String {
        self.next_label += 1;
        format!("$L_{hint}_{}", self.next_label)
    }

    /// The register declarations (grouped by type, one line each) followed
    /// by the body.
    pub fn finish(self) -> (String, String) {
        let mut decls = String::new();
        for ty in [RegType::Pred, RegType::B32, RegType::B64] {
            for (t, name) in &self.regs {
                if *t == ty {
                    let _ = writeln!(decls, "\t.reg {} {name};", ty.keyword());
                }
            }
        }
        (decls, self.body)
    }
}

/// `text` with control characters replaced by spaces and anything beyond
/// ASCII by `?` (PTX source is ASCII).
pub(crate) fn comment_safe(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            c if c.is_control() => ' ',
            c if !c.is_ascii() => '?',
            c => c,
        })
        .collect()
}

/// A 32-bit immediate as PTX reads it for a `.b32` operand: decimal when
/// non-negative, the bit pattern in hex otherwise (a negative decimal
/// literal is a 64-bit value PTX would have to truncate).
pub(crate) fn imm32(value: i32) -> String {
    if value >= 0 {
        value.to_string()
    } else {
        format!("0x{:08X}", value as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_are_declared_once_in_first_use_order() {
        let mut a = Asm::default();
        let x = a.b32("x");
        a.ins(format!("mov.b32 {x}, 1"));
        a.b32("x");
        a.pred("p");
        a.b64("q");
        let (decls, body) = a.finish();
        assert_eq!(
            decls,
            "\t.reg .pred %p;\n\t.reg .b32 %x;\n\t.reg .b64 %q;\n"
        );
        assert_eq!(body, "\tmov.b32 %x, 1;\n");
    }

    #[test]
    fn immediates_and_comments() {
        assert_eq!(imm32(5), "5");
        assert_eq!(imm32(-1), "0xFFFFFFFF");
        assert_eq!(imm32(i32::MIN), "0x80000000");
        assert_eq!(comment_safe("a\nb\tc"), "a b c");
        assert_eq!(comment_safe("x→y"), "x?y");
    }
}
