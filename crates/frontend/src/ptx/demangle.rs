//! The source names of C++ kernels, from their Itanium-ABI mangled names
//! (what clang gives a `__global__` function that is not `extern "C"`):
//! `_Z6kernelPi` is `kernel`, `_ZN2ns5scaleEPff` is `ns::scale`,
//! `_Z6reduceILi256EEvPKiPi` is `reduce<256>`. Only the function's name is
//! read — plain, nested in namespaces or classes, with template arguments
//! that are integers or built-in types; anything else (substitutions,
//! `std::`, class-type arguments) gives `None`, and the mangled name is
//! then the only one.

/// A kernel's qualified name with its template arguments (`ns::scale`,
/// `reduce<256>`) and its unqualified name (`scale`, `reduce`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceName {
    pub full: String,
    pub base: String,
}

/// The source name of a mangled function name, when this reading follows it.
pub fn source_name(mangled: &str) -> Option<SourceName> {
    let mut r = Reader {
        s: mangled.strip_prefix("_Z")?.as_bytes(),
    };
    let mut parts: Vec<String> = Vec::new();
    let mut args = None;
    if r.eat(b'N') {
        // Nested: `N` components [template arguments] `E`; qualifiers of
        // member functions (`K`) are not kernels' and not read.
        while !r.eat(b'E') {
            if r.peek() == Some(b'I') {
                args = Some(r.template_args()?);
            } else {
                parts.push(r.source_name()?);
            }
        }
    } else {
        parts.push(r.source_name()?);
        if r.peek() == Some(b'I') {
            args = Some(r.template_args()?);
        }
    }
    let base = parts.last()?.clone();
    let mut full = parts.join("::");
    if let Some(a) = args {
        full.push('<');
        full.push_str(&a.join(", "));
        full.push('>');
    }
    Some(SourceName { full, base })
}

struct Reader<'a> {
    s: &'a [u8],
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.first().copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.s = &self.s[1..];
            true
        } else {
            false
        }
    }

    /// `<length><identifier>`.
    fn source_name(&mut self) -> Option<String> {
        let digits = self.s.iter().take_while(|c| c.is_ascii_digit()).count();
        let len: usize = std::str::from_utf8(&self.s[..digits]).ok()?.parse().ok()?;
        let id = self.s.get(digits..digits.checked_add(len)?)?;
        self.s = &self.s[digits + len..];
        String::from_utf8(id.to_vec()).ok()
    }

    /// `I <argument>+ E`.
    fn template_args(&mut self) -> Option<Vec<String>> {
        if !self.eat(b'I') {
            return None;
        }
        let mut out = Vec::new();
        while !self.eat(b'E') {
            out.push(self.template_arg()?);
        }
        Some(out)
    }

    /// An integer literal (`Li256E`, `Lin1E`, `Lb1E`) or a type.
    fn template_arg(&mut self) -> Option<String> {
        if self.eat(b'L') {
            let ty = self.builtin()?;
            let neg = self.eat(b'n');
            let digits = self.s.iter().take_while(|c| c.is_ascii_digit()).count();
            let n = std::str::from_utf8(&self.s[..digits]).ok()?.to_string();
            self.s = &self.s[digits..];
            if !self.eat(b'E') || n.is_empty() {
                return None;
            }
            return Some(match (ty, n.as_str()) {
                ("bool", "0") => "false".into(),
                ("bool", _) => "true".into(),
                _ if neg => format!("-{n}"),
                _ => n,
            });
        }
        self.ty()
    }

    /// A type: built-in, pointer (`P`), const (`K`), or a class name.
    fn ty(&mut self) -> Option<String> {
        if self.eat(b'P') {
            return Some(format!("{}*", self.ty()?));
        }
        if self.eat(b'K') {
            return Some(format!("const {}", self.ty()?));
        }
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            return self.source_name();
        }
        self.builtin().map(str::to_string)
    }

    fn builtin(&mut self) -> Option<&'static str> {
        let name = match self.peek()? {
            b'v' => "void",
            b'b' => "bool",
            b'c' => "char",
            b'a' => "signed char",
            b'h' => "unsigned char",
            b's' => "short",
            b't' => "unsigned short",
            b'i' => "int",
            b'j' => "unsigned int",
            b'l' => "long",
            b'm' => "unsigned long",
            b'x' => "long long",
            b'y' => "unsigned long long",
            b'f' => "float",
            b'd' => "double",
            _ => return None,
        };
        self.s = &self.s[1..];
        Some(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(m: &str) -> Option<(String, String)> {
        source_name(m).map(|n| (n.full, n.base))
    }

    #[test]
    fn plain_nested_and_template_names() {
        let n = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(names("_Z6kernelPi"), n("kernel", "kernel"));
        assert_eq!(names("_ZN2ns5scaleEPff"), n("ns::scale", "scale"));
        assert_eq!(names("_ZN1a1b1cEv"), n("a::b::c", "c"));
        assert_eq!(names("_Z6reduceILi256EEvPKiPi"), n("reduce<256>", "reduce"));
        assert_eq!(names("_Z3maxIfLin3EEvPT_"), n("max<float, -3>", "max"));
        assert_eq!(
            names("_ZN2ns3sumIjLb1EEEvPj"),
            n("ns::sum<unsigned int, true>", "sum")
        );
        assert_eq!(names("_Z1kI4pairEvv"), n("k<pair>", "k"));
    }

    #[test]
    fn what_is_not_read_is_none() {
        assert_eq!(names("kernel"), None);
        assert_eq!(names("_ZNSt6vectorIiE4sizeEv"), None);
        assert_eq!(names("_Z1kIS_Evv"), None);
        assert_eq!(names("_Z99short"), None);
    }
}
