//! Mapping files: how each scoped C/C++ memory operation compiles to a
//! target (PTX or Vulkan) instruction sequence, as editable data
//! (`docs/MAPPING.md`).
//!
//! ```text
//! # comments run from `#` to the end of the line
//! target ptx                                 # or: target vulkan
//! scope gpu = gpu                            # what `$s` stands for (optional)
//! load  na        -> ld.weak
//! load  sc   $s   -> fence.sc.$s ; ld.acquire.$s
//! rmw   *    cta  -> atom.acq_rel.cta        # `*`: every atomic order
//! fence rlx  *    -> nop                     # compiles to nothing
//! ```
//!
//! A rule is `KIND ORDER [SCOPE] -> SEQUENCE`: kind `load store rmw fence`;
//! order `na rlx acq rel acq_rel sc` (long names `plain relaxed acquire
//! release seq_cst` too) or `*`; scope `cta gpu sys`, or `*` / `$s` for
//! every scope (also when left out). A sequence is target instructions
//! without operands, separated by `;`: exactly one memory access of the
//! rule's kind (the source access's operands are filled in; an RMW's
//! operation too) and any number of fences; a fence rule only fences, or
//! `nop`. `$s` stands for the source operation's scope, spelled as the
//! `scope` lines say (defaults: PTX `cta gpu sys`; Vulkan `wg qf dv`).
//! When several rules cover an operation the more specific one (more
//! fields given) wins; two equally specific ones are an error.
//!
//! Every template is checked at load time by our own litmus front-end (so
//! a typo is an error at its `file:line:col`, and the compiled program has
//! exactly the tags a hand-written test would have).

use crate::diag::{excerpt, Error, ErrorKind, Result};
use crate::ir::{Arch, Instr, InstrKind, Pos};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The built-in mappings by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("ptx", include_str!("../mappings/ptx.map")),
    ("vulkan", include_str!("../mappings/vulkan.map")),
];

/// A compilation target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Ptx,
    Vulkan,
}

impl Target {
    pub fn parse(s: &str) -> Option<Target> {
        match s.to_ascii_lowercase().as_str() {
            "ptx" => Some(Target::Ptx),
            "vulkan" => Some(Target::Vulkan),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Ptx => "ptx",
            Target::Vulkan => "vulkan",
        }
    }

    pub fn arch(self) -> Arch {
        match self {
            Target::Ptx => Arch::Ptx,
            Target::Vulkan => Arch::Vulkan,
        }
    }

    /// The litmus header word.
    fn header(self) -> &'static str {
        match self {
            Target::Ptx => "PTX",
            Target::Vulkan => "VULKAN",
        }
    }

    /// What `$s` stands for when the file has no `scope` line.
    fn default_scopes(self) -> [&'static str; 3] {
        match self {
            Target::Ptx => ["cta", "gpu", "sys"],
            Target::Vulkan => ["wg", "qf", "dv"],
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Kinds of source memory operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    Load,
    Store,
    Rmw,
    Fence,
}

impl OpKind {
    pub const ALL: [OpKind; 4] = [OpKind::Load, OpKind::Store, OpKind::Rmw, OpKind::Fence];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Load => "load",
            OpKind::Store => "store",
            OpKind::Rmw => "rmw",
            OpKind::Fence => "fence",
        }
    }

    fn parse(s: &str) -> Option<OpKind> {
        OpKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The orders a C operation of this kind can have (C11 7.17.7; a
    /// relaxed fence is a no-op, still an operation a test may write).
    pub fn orders(self) -> &'static [Order] {
        match self {
            OpKind::Load => &[Order::Na, Order::Rlx, Order::Acq, Order::Sc],
            OpKind::Store => &[Order::Na, Order::Rlx, Order::Rel, Order::Sc],
            OpKind::Rmw | OpKind::Fence => {
                &[Order::Rlx, Order::Acq, Order::Rel, Order::AcqRel, Order::Sc]
            }
        }
    }
}

/// Memory orders of scoped C/C++ (`Na`: a plain, non-atomic access).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Order {
    Na,
    Rlx,
    Acq,
    Rel,
    AcqRel,
    Sc,
}

impl Order {
    pub const ALL: [Order; 6] = [
        Order::Na,
        Order::Rlx,
        Order::Acq,
        Order::Rel,
        Order::AcqRel,
        Order::Sc,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Order::Na => "na",
            Order::Rlx => "rlx",
            Order::Acq => "acq",
            Order::Rel => "rel",
            Order::AcqRel => "acq_rel",
            Order::Sc => "sc",
        }
    }

    fn parse(s: &str) -> Option<Order> {
        Some(match s {
            "na" | "plain" => Order::Na,
            "rlx" | "relaxed" => Order::Rlx,
            "acq" | "acquire" => Order::Acq,
            "rel" | "release" => Order::Rel,
            "acq_rel" => Order::AcqRel,
            "sc" | "seq_cst" => Order::Sc,
            _ => return None,
        })
    }

    /// The tag of this order on a C event (`docs/EVENTS.md`).
    pub fn tag(self) -> &'static str {
        match self {
            Order::Na => "NA",
            Order::Rlx => "RLX",
            Order::Acq => "ACQ",
            Order::Rel => "REL",
            Order::AcqRel => "ACQ_REL",
            Order::Sc => "SC",
        }
    }
}

/// Scopes of scoped C/C++ (OpenCL work-group / device / all SVM devices,
/// CUDA block / device / system).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Cta,
    Gpu,
    Sys,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Cta, Scope::Gpu, Scope::Sys];

    pub fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }

    fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|k| k.name() == s)
    }

    pub fn tag(self) -> &'static str {
        match self {
            Scope::Cta => "CTA",
            Scope::Gpu => "GPU",
            Scope::Sys => "SYS",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One source operation a mapping must cover: kind, order and (for
/// atomics) scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub kind: OpKind,
    pub order: Order,
    /// `None` exactly for non-atomic accesses.
    pub scope: Option<Scope>,
}

impl Key {
    /// Every operation a complete mapping covers (50 of them).
    pub fn all() -> Vec<Key> {
        let mut out = Vec::new();
        for kind in OpKind::ALL {
            for &order in kind.orders() {
                if order == Order::Na {
                    out.push(Key {
                        kind,
                        order,
                        scope: None,
                    });
                } else {
                    for s in Scope::ALL {
                        out.push(Key {
                            kind,
                            order,
                            scope: Some(s),
                        });
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.name(), self.order.name())?;
        if let Some(s) = self.scope {
            write!(f, " {}", s.name())?;
        }
        Ok(())
    }
}

/// A rule as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// 1-based line in the mapping file.
    pub line: u32,
    pub kind: OpKind,
    /// `None`: `*` (every atomic order of the kind).
    pub order: Option<Order>,
    /// `None`: every scope (`*`, `$s` or left out).
    pub scope: Option<Scope>,
    /// The target sequence as written (`nop`: empty).
    pub templates: Vec<Template>,
}

impl Rule {
    fn covers(&self, k: &Key) -> bool {
        self.kind == k.kind
            && match self.order {
                Some(o) => o == k.order,
                None => k.order != Order::Na,
            }
            && (self.scope.is_none() || self.scope == k.scope)
    }

    fn specificity(&self) -> u8 {
        u8::from(self.order.is_some()) + u8::from(self.scope.is_some())
    }

    /// The sequence as written, `nop` when empty.
    pub fn sequence(&self) -> String {
        if self.templates.is_empty() {
            "nop".to_string()
        } else {
            self.templates
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ; ")
        }
    }
}

/// One target instruction of a rule, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    pub text: String,
    pub pos: Pos,
}

/// One target instruction of a resolved sequence: the instruction our
/// front-end made of the template (tags, halves; operands are
/// placeholders the compiler replaces), and whether it is the access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub instr: Instr,
    pub access: bool,
}

/// A loaded mapping.
#[derive(Clone, Debug)]
pub struct Mapping {
    /// The built-in name, or the file as given.
    pub name: String,
    /// The file, for a mapping read from one.
    pub path: Option<PathBuf>,
    pub target: Target,
    scopes: [String; 3],
    rules: Vec<Rule>,
    /// Every covered operation: its rule and the resolved sequence.
    table: BTreeMap<Key, (usize, Vec<Step>)>,
}

impl Mapping {
    /// A built-in mapping (`ptx`, `vulkan`).
    pub fn builtin(name: &str) -> Option<Mapping> {
        let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        let mut m = Mapping::parse(text, Path::new(&format!("<builtin {n}.map>")))
            .unwrap_or_else(|e| panic!("built-in mapping {n} does not load: {e}"));
        m.name = n.to_string();
        m.path = None;
        Some(m)
    }

    /// The default mapping of a target (the built-in of its name).
    pub fn default_for(t: Target) -> Mapping {
        Mapping::builtin(t.name()).expect("every target has a built-in mapping")
    }

    /// A built-in name, else a file path.
    pub fn load(name_or_path: &str) -> Result<Mapping> {
        if let Some(m) = Mapping::builtin(name_or_path) {
            return Ok(m);
        }
        let path = Path::new(name_or_path);
        let bytes = std::fs::read(path).map_err(|e| {
            let names: Vec<&str> = BUILTIN.iter().map(|(n, _)| *n).collect();
            Error::new(
                ErrorKind::Io,
                format!(
                    "{e} (a mapping is a built-in name: {}, or a .map file)",
                    names.join(", ")
                ),
            )
            .in_file(path)
        })?;
        let text = crate::diag::text(bytes).map_err(|e| e.in_file(path))?;
        Mapping::parse(&text, path)
    }

    /// Parses a mapping file; errors carry `path:line:col`.
    pub fn parse(text: &str, path: &Path) -> Result<Mapping> {
        Parser::default()
            .run(text)
            .map(|(target, scopes, rules, table)| Mapping {
                name: path.display().to_string(),
                path: Some(path.to_path_buf()),
                target,
                scopes,
                rules,
                table,
            })
            .map_err(|e| e.in_file(path))
    }

    /// The rules as written.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// What `$s` stands for, per source scope.
    pub fn scope_word(&self, s: Scope) -> &str {
        &self.scopes[s.index()]
    }

    /// The resolved sequence of an operation (`None`: no rule covers it).
    pub fn lookup(&self, k: &Key) -> Option<&[Step]> {
        self.table.get(k).map(|(_, s)| s.as_slice())
    }

    /// The rule that covers an operation.
    pub fn rule(&self, k: &Key) -> Option<&Rule> {
        self.table.get(k).map(|(r, _)| &self.rules[*r])
    }

    /// The operations of [`Key::all`] no rule covers (empty: the mapping
    /// is complete).
    pub fn uncovered(&self) -> Vec<Key> {
        Key::all()
            .into_iter()
            .filter(|k| !self.table.contains_key(k))
            .collect()
    }

    /// A short description for headers: `ptx (built-in)` or the file.
    pub fn describe(&self) -> String {
        match &self.path {
            None => format!("{} (built-in)", self.name),
            Some(p) => p.display().to_string(),
        }
    }
}

type Parsed = (
    Target,
    [String; 3],
    Vec<Rule>,
    BTreeMap<Key, (usize, Vec<Step>)>,
);

/// A word of a line with its 1-based column.
#[derive(Clone, Copy)]
struct Word<'a> {
    text: &'a str,
    col: u32,
}

fn words(s: &str, col0: u32) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    // The start of the current word: byte offset and column. Columns are
    // counted along the way: counting each from the line start made a
    // line of many words quadratic (a 1.2 MB line took half a minute).
    let mut start: Option<(usize, u32)> = None;
    let mut col = col0;
    for (i, c) in s.char_indices().chain([(s.len(), ' ')]) {
        if c.is_whitespace() {
            if let Some((b, at)) = start.take() {
                out.push(Word {
                    text: &s[b..i],
                    col: at,
                });
            }
        } else if start.is_none() {
            start = Some((i, col));
        }
        col = col.saturating_add(1);
    }
    out
}

/// Columns count characters.
fn col_of(s: &str, byte: usize) -> u32 {
    u32::try_from(s[..byte].chars().count()).unwrap_or(u32::MAX)
}

/// The columns of byte offsets of one line, asked in increasing order:
/// each character is counted once (see [`words`]).
struct Columns<'a> {
    line: &'a str,
    byte: usize,
    /// Characters before `byte`.
    chars: u32,
}

impl<'a> Columns<'a> {
    fn new(line: &'a str) -> Columns<'a> {
        Columns {
            line,
            byte: 0,
            chars: 0,
        }
    }

    /// The 1-based column of byte `byte` (a character boundary).
    fn at(&mut self, byte: usize) -> u32 {
        if byte < self.byte {
            // Asked out of order: count again from the start.
            *self = Columns::new(self.line);
        }
        self.chars = self
            .chars
            .saturating_add(col_of(&self.line[self.byte..], byte - self.byte));
        self.byte = byte;
        self.chars.saturating_add(1)
    }
}

#[derive(Default)]
struct Parser {
    line: u32,
    target: Option<Target>,
    scopes: Option<[Option<String>; 3]>,
}

impl Parser {
    fn pos(&self, col: u32) -> Pos {
        Pos {
            line: self.line,
            col,
        }
    }

    fn syntax(&self, col: u32, msg: impl Into<String>) -> Error {
        Error::syntax(self.pos(col), msg)
    }

    fn run(mut self, text: &str) -> Result<Parsed> {
        let mut rules = Vec::new();
        for (k, raw) in text.lines().enumerate() {
            self.line = u32::try_from(k + 1).unwrap_or(u32::MAX);
            let body = raw.split('#').next().unwrap_or("");
            let ws = words(body, 1);
            let Some(first) = ws.first() else { continue };
            match first.text {
                "target" => self.target_line(&ws)?,
                "scope" => self.scope_line(&ws)?,
                _ => rules.push(self.rule_line(body)?),
            }
        }
        let Some(target) = self.target else {
            return Err(Error::new(
                ErrorKind::Syntax,
                "a mapping needs a `target ptx` or `target vulkan` line",
            ));
        };
        let defaults = target.default_scopes();
        let given = self.scopes.take().unwrap_or_default();
        let scopes: [String; 3] =
            std::array::from_fn(|k| given[k].clone().unwrap_or(defaults[k].to_string()));
        let table = resolve(target, &scopes, &rules)?;
        Ok((target, scopes, rules, table))
    }

    fn target_line(&mut self, ws: &[Word]) -> Result<()> {
        // The line's first word (`target`; the caller found it).
        let at = ws.first().map_or(1, |w| w.col);
        if self.target.is_some() {
            return Err(self.syntax(at, "a second `target` line"));
        }
        let Some(w) = ws.get(1) else {
            return Err(self.syntax(at, "`target` needs `ptx` or `vulkan`"));
        };
        let Some(t) = Target::parse(w.text) else {
            return Err(self.syntax(
                w.col,
                format!(
                    "unknown target `{}` (expected `ptx` or `vulkan`)",
                    excerpt(w.text)
                ),
            ));
        };
        if let Some(extra) = ws.get(2) {
            return Err(self.syntax(extra.col, format!("unexpected `{}`", excerpt(extra.text))));
        }
        self.target = Some(t);
        Ok(())
    }

    /// `scope cta = wg`
    fn scope_line(&mut self, ws: &[Word]) -> Result<()> {
        // The line's first word (`scope`; the caller found it).
        let at = ws.first().map_or(1, |w| w.col);
        if self.target.is_none() {
            return Err(self.syntax(at, "`scope` lines come after the `target` line"));
        }
        let [_, from, eq, to] = ws else {
            let col = ws.get(4).map_or(at, |w| w.col);
            return Err(self.syntax(col, "expected `scope cta|gpu|sys = WORD`"));
        };
        let Some(s) = Scope::parse(from.text) else {
            return Err(self.syntax(
                from.col,
                format!(
                    "unknown source scope `{}` (expected `cta`, `gpu` or `sys`)",
                    excerpt(from.text)
                ),
            ));
        };
        if eq.text != "=" && eq.text != "->" {
            return Err(self.syntax(
                eq.col,
                format!("expected `=`, found `{}`", excerpt(eq.text)),
            ));
        }
        if !to
            .text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            return Err(self.syntax(
                to.col,
                format!(
                    "`{}` is not a scope qualifier of the target",
                    excerpt(to.text)
                ),
            ));
        }
        let slots = self.scopes.get_or_insert_with(Default::default);
        if slots[s.index()].is_some() {
            return Err(self.syntax(from.col, format!("scope `{}` is given twice", s.name())));
        }
        slots[s.index()] = Some(to.text.to_string());
        Ok(())
    }

    fn rule_line(&mut self, body: &str) -> Result<Rule> {
        let mut cols = Columns::new(body);
        let first_col = words(body, 1).first().map_or(1, |w| w.col);
        let Some(arrow) = body.find("->") else {
            let ws = words(body, 1);
            if let Some(w) = ws.first().filter(|w| OpKind::parse(w.text).is_none()) {
                return Err(self.syntax(
                    w.col,
                    format!(
                        "unknown operation `{}` (expected `load`, `store`, `rmw`, `fence`, `target` or `scope`)",
                        excerpt(w.text)
                    ),
                ));
            }
            return Err(self.syntax(
                cols.at(body.trim_end().len()),
                "missing `->` and the target sequence",
            ));
        };
        if self.target.is_none() {
            return Err(self.syntax(
                first_col,
                "a mapping starts with a `target ptx` or `target vulkan` line",
            ));
        }
        let lhs = words(&body[..arrow], 1);
        let arrow_col = cols.at(arrow);
        // A line `->` (nothing before the arrow) once indexed past `lhs`.
        let Some(&kind_w) = lhs.first() else {
            return Err(self.syntax(
                arrow_col,
                "missing the operation before `->` (`load`, `store`, `rmw` or `fence`)",
            ));
        };
        let Some(kind) = OpKind::parse(kind_w.text) else {
            return Err(self.syntax(
                kind_w.col,
                format!(
                    "unknown operation `{}` (expected `load`, `store`, `rmw` or `fence`)",
                    excerpt(kind_w.text)
                ),
            ));
        };
        let Some(order_w) = lhs.get(1) else {
            return Err(self.syntax(
                arrow_col,
                format!("missing the memory order of this `{}` rule", kind.name()),
            ));
        };
        let order = if order_w.text == "*" {
            None
        } else {
            let Some(o) = Order::parse(order_w.text) else {
                return Err(self.syntax(
                    order_w.col,
                    format!(
                        "unknown memory order `{}` (expected `na`, `rlx`, `acq`, `rel`, `acq_rel`, `sc` or `*`)",
                        excerpt(order_w.text)
                    ),
                ));
            };
            if !kind.orders().contains(&o) {
                let valid: Vec<&str> = kind.orders().iter().map(|o| o.name()).collect();
                return Err(self.syntax(
                    order_w.col,
                    format!(
                        "a C {} has no order `{}` (it has {})",
                        kind.name(),
                        o.name(),
                        valid.join(", ")
                    ),
                ));
            }
            Some(o)
        };
        let scope = match lhs.get(2) {
            None => None,
            Some(w) if matches!(w.text, "*" | "$s") => None,
            Some(w) => match Scope::parse(w.text) {
                Some(s) => Some(s),
                None => {
                    return Err(self.syntax(
                        w.col,
                        format!(
                            "unknown scope `{}` (expected `cta`, `gpu`, `sys`, `*` or `$s`)",
                            excerpt(w.text)
                        ),
                    ))
                }
            },
        };
        if let (Some(Order::Na), Some(w)) = (order, lhs.get(2)) {
            return Err(self.syntax(w.col, "non-atomic accesses have no scope"));
        }
        if let Some(w) = lhs.get(3) {
            return Err(self.syntax(
                w.col,
                format!("unexpected `{}` before `->`", excerpt(w.text)),
            ));
        }
        // The sequence.
        let rhs_off = arrow + 2;
        let rhs = &body[rhs_off..];
        let mut templates = Vec::new();
        let mut start = 0;
        for piece in rhs.split(';') {
            let trimmed = piece.trim();
            let lead = piece.len() - piece.trim_start().len();
            let col = cols.at(rhs_off + start + lead);
            start += piece.len() + 1;
            if trimmed.is_empty() {
                return Err(self.syntax(
                    col,
                    "missing target instruction (sequences are `a ; b`, or `nop`)",
                ));
            }
            if let Some(bad) = trimmed
                .char_indices()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$')))
            {
                let shown = excerpt(trimmed);
                let msg = if bad.1.is_whitespace() || bad.1 == ',' {
                    format!(
                        "target instruction `{shown}` has operands: write the mnemonic only (the operands are the source instruction's)"
                    )
                } else {
                    format!("unexpected `{}` in target instruction `{shown}`", bad.1)
                };
                return Err(self.syntax(col.saturating_add(col_of(trimmed, bad.0)), msg));
            }
            templates.push(Template {
                text: trimmed.to_string(),
                pos: self.pos(col),
            });
        }
        if templates.len() == 1 && templates[0].text == "nop" {
            if kind != OpKind::Fence {
                return Err(Error::syntax(
                    templates[0].pos,
                    format!(
                        "a {} compiles to exactly one target access, not `nop`",
                        kind.name()
                    ),
                ));
            }
            templates.clear();
        } else if let Some(t) = templates.iter().find(|t| t.text == "nop") {
            return Err(Error::syntax(t.pos, "`nop` stands alone"));
        }
        if order == Some(Order::Na) {
            for t in &templates {
                if let Some(i) = t.text.find("$s") {
                    return Err(Error::syntax(
                        Pos {
                            line: t.pos.line,
                            col: t.pos.col.saturating_add(col_of(&t.text, i)),
                        },
                        "`$s` in a rule for non-atomic accesses, which have no scope",
                    ));
                }
            }
        }
        Ok(Rule {
            line: self.line,
            kind,
            order,
            scope,
            templates,
        })
    }
}

/// Picks the rule of every operation and resolves its sequence.
fn resolve(
    target: Target,
    scopes: &[String; 3],
    rules: &[Rule],
) -> Result<BTreeMap<Key, (usize, Vec<Step>)>> {
    let mut table = BTreeMap::new();
    // (template text, scope) → step: each template is probed once per word.
    let mut cache: BTreeMap<(String, Option<usize>), Step> = BTreeMap::new();
    for key in Key::all() {
        let mut best: Option<usize> = None;
        for (r, rule) in rules.iter().enumerate() {
            if !rule.covers(&key) {
                continue;
            }
            match best {
                None => best = Some(r),
                Some(b) if rules[b].specificity() < rule.specificity() => best = Some(r),
                Some(b) if rules[b].specificity() == rule.specificity() => {
                    return Err(Error::syntax(
                        Pos {
                            line: rule.line,
                            col: 1,
                        },
                        format!(
                            "this rule and the rule at line {} both cover `{key}`, equally specifically",
                            rules[b].line
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        let Some(r) = best else { continue };
        let rule = &rules[r];
        let word = key.scope.map(|s| s.index());
        let mut steps = Vec::new();
        for t in &rule.templates {
            let ck = (t.text.clone(), word);
            let step = match cache.get(&ck) {
                Some(s) => s.clone(),
                None => {
                    let s = probe(target, t, word.map(|w| scopes[w].as_str()))?;
                    cache.insert(ck, s.clone());
                    s
                }
            };
            steps.push(step);
        }
        check_roles(rule, &key, &steps)?;
        table.insert(key, (r, steps));
    }
    Ok(table)
}

/// Exactly one access of the rule's kind (none for fences), the rest fences.
fn check_roles(rule: &Rule, key: &Key, steps: &[Step]) -> Result<()> {
    let accesses: Vec<usize> = (0..steps.len()).filter(|&k| steps[k].access).collect();
    let want = match key.kind {
        OpKind::Fence => 0,
        _ => 1,
    };
    if accesses.len() != want {
        let at = accesses
            .get(want)
            .map_or(rule.templates.first().map(|t| t.pos), |&k| {
                Some(rule.templates[k].pos)
            })
            .unwrap_or(Pos {
                line: rule.line,
                col: 1,
            });
        let msg = if want == 0 {
            "a fence rule compiles to fences only (no memory access)".to_string()
        } else {
            format!(
                "a {} rule compiles to exactly one target memory access (found {})",
                key.kind.name(),
                accesses.len()
            )
        };
        return Err(Error::syntax(at, msg));
    }
    if let Some(&k) = accesses.first() {
        let ok = matches!(
            (key.kind, &steps[k].instr.kind),
            (OpKind::Load, InstrKind::Load { .. })
                | (OpKind::Store, InstrKind::Store { .. })
                | (OpKind::Rmw, InstrKind::Rmw { .. })
        );
        if !ok {
            return Err(Error::syntax(
                rule.templates[k].pos,
                format!(
                    "a {} rule needs a target {} here, not `{}`",
                    key.kind.name(),
                    match key.kind {
                        OpKind::Load => "load",
                        OpKind::Store => "store",
                        _ => "read-modify-write",
                    },
                    excerpt(&rule.templates[k].text)
                ),
            ));
        }
    }
    Ok(())
}

/// RMW operation qualifiers (they come from the source instruction).
const RMW_OPS: &[&str] = &[
    "exch", "add", "sub", "and", "or", "xor", "min", "max", "cas",
];

/// Parses one template (with `$s` replaced by `word`) through our litmus
/// front-end; errors point into the mapping file.
fn probe(target: Target, t: &Template, word: Option<&str>) -> Result<Step> {
    // Substitute `$s`, remembering each output byte's template offset.
    let mut text = String::new();
    let mut origin: Vec<usize> = Vec::new();
    let mut i = 0;
    let src = t.text.as_str();
    while i < src.len() {
        if src[i..].starts_with("$s") {
            let Some(w) = word else {
                return Err(Error::syntax(
                    shift(t.pos, src, i),
                    "`$s` in a rule for non-atomic accesses, which have no scope",
                ));
            };
            text.push_str(w);
            origin.extend(std::iter::repeat_n(i, w.len()));
            i += 2;
        } else if src[i..].starts_with('$') {
            return Err(Error::syntax(
                shift(t.pos, src, i),
                "unknown `$` variable (only `$s`, the source scope)",
            ));
        } else {
            let c = src[i..].chars().next().unwrap_or(' ');
            text.push(c);
            origin.extend(std::iter::repeat_n(i, c.len_utf8()));
            i += c.len_utf8();
        }
    }
    let parts: Vec<&str> = text.split('.').collect();
    let head = parts[0];
    let rmw_head = matches!(
        (target, head),
        (Target::Ptx, "atom" | "red") | (Target::Vulkan, "rmw")
    );
    if rmw_head {
        if let Some(q) = parts[1..].iter().find(|q| RMW_OPS.contains(q)) {
            let at = text.find(&format!(".{q}")).map_or(0, |k| k + 1);
            return Err(Error::syntax(
                shift(t.pos, src, origin.get(at).copied().unwrap_or(0)),
                format!("the operation `.{q}` comes from the source instruction; leave it out of the template"),
            ));
        }
    }
    let heads: &[&str] = match target {
        Target::Ptx => &[
            "ld", "st", "atom", "red", "suld", "sust", "tld", "cold", "fence", "membar",
        ],
        Target::Vulkan => &["ld", "st", "rmw", "membar", "avdevice", "visdevice"],
    };
    if !heads.contains(&head) {
        return Err(Error::syntax(
            t.pos,
            format!(
                "`{}` is neither a memory access nor a fence of the {} dialect (a mapping emits {})",
                excerpt(&t.text),
                target.name(),
                heads.join(", ")
            ),
        ));
    }
    let operands = match (target, head) {
        (_, "ld") => " r0, x",
        (_, "st") => " x, 1",
        (Target::Ptx, "atom") | (Target::Vulkan, "rmw") => ".add r0, x, 1",
        (Target::Ptx, "red") => ".add x, 1",
        (Target::Ptx, "suld" | "tld" | "cold") => " r0, x",
        (Target::Ptx, "sust") => " x, 1",
        _ => "",
    };
    let litmus = format!(
        "{} probe\n{{ x=0; }}\n P0 ;\n {text}{operands} ;\n",
        target.header()
    );
    let parsed = gpumc_frontend::litmus::parse(&litmus, Path::new("<mapping>")).map_err(|e| {
        // Line 4, the instruction from column 2.
        let pos = match e.pos {
            Some(p) if p.line == 4 && p.col >= 2 => {
                let off = (p.col - 2) as usize;
                match origin.get(off) {
                    Some(&o) => shift(t.pos, src, o),
                    None => t.pos,
                }
            }
            _ => t.pos,
        };
        let shown = excerpt(&t.text);
        let message = match e.message.strip_prefix("unsupported: ") {
            Some(rest) => format!("unsupported: in target instruction `{shown}`: {rest}"),
            None => format!("in target instruction `{shown}`: {}", e.message),
        };
        Error::new(e.kind, message).at(pos)
    })?;
    let instrs = parsed.threads.first().map_or(&[][..], |th| &th.instrs);
    let [ins] = instrs else {
        return Err(Error::syntax(
            t.pos,
            format!("`{}` is not one target instruction", excerpt(&t.text)),
        ));
    };
    let access = match &ins.kind {
        InstrKind::Load { .. } | InstrKind::Store { .. } => true,
        InstrKind::Rmw { dst: Some(_), .. } => true,
        InstrKind::Rmw { dst: None, .. } => {
            return Err(Error::syntax(
                t.pos,
                "an RMW that discards the old value (`red`) cannot compile a C read-modify-write; use `atom`",
            ))
        }
        InstrKind::Fence => false,
        _ => {
            return Err(Error::syntax(
                t.pos,
                format!(
                    "`{}` is neither a memory access nor a fence (a mapping emits only those)",
                    excerpt(&t.text)
                ),
            ))
        }
    };
    let mut instr = ins.clone();
    instr.pos = t.pos;
    Ok(Step { instr, access })
}

/// The position of byte `off` of a template.
fn shift(p: Pos, text: &str, off: usize) -> Pos {
    Pos {
        line: p.line,
        col: p.col.saturating_add(col_of(text, off.min(text.len()))),
    }
}
