//! The standard library (`stdlib.cat`): the names herd7 and Dat3M give
//! every model, in one place, and the standard include files that resolve
//! to it.
//!
//! The compiler consults it for a free name that the model does not bind
//! (before asking the engine for a base name), so a model's own `let`
//! shadows a library name, and a library definition only sees the base
//! names and the library definitions written above it. Definitions are
//! compiled on first use only: a model that never says `rfe` gets no `rf`
//! input from the library.

use super::ast::{Binding, Stmt};
use super::parser::parse_file;
use std::sync::OnceLock;

/// The library source, written by us (see its header).
pub const TEXT: &str = include_str!("stdlib.cat");

/// Where library positions point (errors inside it are reported at the
/// model's use site, naming the definition).
pub const FILE: &str = "<built-in>/stdlib.cat";

/// herd7 and Dat3M include files whose definitions are all in the library:
/// `include` of one of them (when no such file is next to the model)
/// resolves to the library, which is already in scope, and adds nothing.
pub const STANDARD_INCLUDES: &[&str] = &["stdlib.cat", "cos.cat", "basic.cat", "filters.cat"];

/// Built-in names of herd7 or Dat3M that gpumc does not provide, with the
/// reason (reported as `unsupported:` instead of "unknown identifier").
const NOT_PROVIDED: &[(&str, &str)] = &[
    (
        "classes-loc",
        "herd7's sets of event classes (no set-of-sets values)",
    ),
    (
        "partition",
        "herd7's sets of event classes (no set-of-sets values)",
    ),
    (
        "linearisations",
        "herd7's order enumeration (`with ... from`)",
    ),
    (
        "generate_cos",
        "herd7's coherence enumeration (`with ... from`)",
    ),
    ("tag2events", "herd7's tag values"),
    ("tag2instrs", "herd7's tag values"),
    ("fromto", "herd7's instruction-level relations"),
    ("iico", "herd7's intra-instruction order"),
    ("iico_data", "herd7's intra-instruction order"),
    ("iico_ctrl", "herd7's intra-instruction order"),
    ("casdep", "Dat3M's compare-and-swap dependency"),
    ("allocptr", "Dat3M's allocation relations"),
    ("allocmem", "Dat3M's allocation relations"),
    ("rcu-rscs", "Dat3M's RCU critical sections"),
    ("sdv", "Dat3M's same-device relation (gpumc has one device)"),
];

/// The parsed library: its `let` bindings in file order.
pub struct Prelude {
    defs: Vec<Binding>,
}

impl Prelude {
    /// The definition of `name` among the first `before` bindings, with its
    /// index (a definition sees only the ones above it).
    pub fn get(&self, name: &str, before: usize) -> Option<(usize, &Binding)> {
        self.defs[..before.min(self.defs.len())]
            .iter()
            .enumerate()
            .rev()
            .find(|(_, b)| b.name == name)
    }

    /// Every name the library defines, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.defs.iter().map(|b| b.name.as_str())
    }
}

/// The library, parsed once.
pub fn prelude() -> &'static Prelude {
    static P: OnceLock<Prelude> = OnceLock::new();
    P.get_or_init(|| {
        // The text is ours and fixed; `tests::stdlib_*` keeps it parsing,
        // compiling and made of `let`s only, so a failure here is a build
        // defect.
        let file = parse_file(TEXT).expect("the built-in stdlib.cat parses");
        let defs = file
            .stmts
            .into_iter()
            .filter_map(|s| match s {
                Stmt::Let(bs) => Some(bs),
                _ => None,
            })
            .flatten()
            .collect();
        Prelude { defs }
    })
}

/// Whether `include "name"` names a standard herd7/Dat3M library file.
pub fn is_standard_include(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    STANDARD_INCLUDES.contains(&base)
}

/// Why a herd7/Dat3M built-in name is not available, if it is one.
pub fn not_provided(name: &str) -> Option<&'static str> {
    NOT_PROVIDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}
