//! The test-harness headers: comment lines `; @Input:`, `; @Output:`,
//! `; @Filter:` and `; @Config:` (anywhere in the file, usually on top).
//!
//! ```text
//! ; @Input: %v1 = 7, %buf = {{0, 0}, {1, 2}}   initial values (nested braces
//!                                               follow the variable's type)
//! ; @Output: forall (%buf[0][1] == 2 and %v1 != 0)
//! ; @Output: exists (...)  /  not exists (...)  /  ~exists (...)
//! ; @Filter: %buf[0][0] == 1
//! ; @Config: 2, 1, 3    threads per subgroup, subgroups per workgroup,
//!                       workgroups per queue family (default 1, 1, 1)
//! ; @Kernel: name       the entry point checked (default: the first)
//! ; @Dims: 8, 8, 1, 4, 2, 1   a workgroup of 8 × 8 × 1 invocations, a grid
//!                       of 4 × 2 × 1 workgroups (the @Config sizes are
//!                       their products; ids are numbered x first)
//! ```
//!
//! Conditions: comparisons `== != < <= > >=` (also `=`) between terms
//! (`%name[i][j]…` or integers), combined with `and`/`/\`/`&&`,
//! `or`/`\/`/`||`, `not`/`!`/`~`, parentheses, `true`, `false`.

use crate::diag::{Error, Result};
use crate::ir::{CmpOp, Pos, Quantifier};

/// An initial value: an integer or a brace list (one entry per member /
/// element / component).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HValue {
    Int(i128, Pos),
    List(Vec<HValue>, Pos),
}

impl HValue {
    pub fn pos(&self) -> Pos {
        match self {
            HValue::Int(_, p) | HValue::List(_, p) => *p,
        }
    }
}

/// A term of a condition.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HTerm {
    /// `%name[i][j]`: a variable (without `%`) and its index path.
    Var {
        name: String,
        path: Vec<u64>,
        pos: Pos,
    },
    Int(i128, Pos),
}

/// A condition as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum HCond {
    True,
    False,
    Cmp(CmpOp, HTerm, HTerm),
    Not(Box<HCond>),
    And(Box<HCond>, Box<HCond>),
    Or(Box<HCond>, Box<HCond>),
}

/// `%name = value` of an `@Input` line.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Assign {
    pub name: String,
    pub pos: Pos,
    pub value: HValue,
}

/// The grid of `@Config`, with the dimensions of `@Dims`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Grid {
    pub threads_per_sg: u32,
    pub sgs_per_wg: u32,
    pub wgs: u32,
    /// `@Dims`: a workgroup's extent and the workgroups' extent in x, y,
    /// z (their products are the `@Config` workgroup size and count).
    /// Invocations and workgroups are numbered x first. `None`: one
    /// dimension.
    pub dims: Option<([u32; 3], [u32; 3])>,
}

impl Default for Grid {
    fn default() -> Self {
        Grid {
            threads_per_sg: 1,
            sgs_per_wg: 1,
            wgs: 1,
            dims: None,
        }
    }
}

/// `n`, a number of x-first order, as (x, y, z) coordinates in `extent`.
pub(super) fn coordinates(n: u32, extent: [u32; 3]) -> [u32; 3] {
    let [x, y, _] = extent.map(|e| e.max(1));
    [n % x, (n / x) % y, n / (x * y)]
}

impl Grid {
    pub fn wg_size(&self) -> u32 {
        self.threads_per_sg * self.sgs_per_wg
    }
    /// Invocations in all (a grid of several dimensions may have more
    /// than `u32` counts; [`grid_within`] bounds what each translation
    /// takes).
    pub fn threads(&self) -> u64 {
        u64::from(self.wg_size()) * u64::from(self.wgs)
    }
}

/// Everything the headers say.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Headers {
    pub inputs: Vec<Assign>,
    pub outputs: Vec<(Quantifier, HCond, Pos)>,
    pub filters: Vec<(HCond, Pos)>,
    pub config: Option<(Grid, Pos)>,
    /// `@Dims`: workgroup extent, grid extent.
    pub dims: Option<([u32; 3], [u32; 3], Pos)>,
    /// `@Kernel`: the entry point to check, by name.
    pub kernel: Option<String>,
}

/// Largest grid the concrete translation accepts (threads in total).
pub(super) const MAX_THREADS: u32 = 1024;
/// Largest id the generic translation accepts: ids stay below 2^31, so
/// their sign-extended 32-bit values are non-negative.
pub(super) const MAX_GENERIC_ID: u128 = (1 << 31) - 1;

/// What a translation can take of a grid.
#[derive(Clone, Copy, Debug)]
pub(super) enum GridLimit {
    /// The concrete translation: one thread per invocation, so a bound
    /// on the invocations in all.
    Invocations(u128),
    /// The generic translation: one symbolic invocation, so a bound on
    /// each id it computes — the local and workgroup ids, and the global
    /// id in each dimension (a grid of several dimensions may have more
    /// invocations in all: its linear id is a 64-bit value, as OpenCL's
    /// `size_t` is).
    Ids(u128),
}

/// The grid's invocations in total (three u32 factors cannot wrap in
/// u128; in u64 they could, to a total under the limit).
pub(super) fn total(g: &Grid) -> u128 {
    u128::from(g.threads_per_sg) * u128::from(g.sgs_per_wg) * u128::from(g.wgs)
}

/// The grid of `h`, refused where it is larger than `limit`.
pub(super) fn grid_within(h: &Headers, limit: GridLimit) -> crate::diag::Result<Grid> {
    let too_large = |pos: Pos, what: String| Err(Error::unsupported(pos, what).of_scale());
    let (mut g, config_pos) = match h.config {
        Some((g, pos)) => (g, pos),
        None => (Grid::default(), Pos::default()),
    };
    let wg_size = u128::from(g.threads_per_sg) * u128::from(g.sgs_per_wg);
    match limit {
        // (one dimension: the global id is the invocation's number)
        GridLimit::Invocations(max) | GridLimit::Ids(max)
            if total(&g) > max
                && (matches!(limit, GridLimit::Invocations(_)) || h.dims.is_none()) =>
        {
            return too_large(
                config_pos,
                format!("grid of {} invocations (at most {max})", total(&g)),
            )
        }
        GridLimit::Ids(max) if wg_size > max || u128::from(g.wgs) > max => {
            return too_large(
                config_pos,
                format!(
                    "workgroups of {wg_size} invocations or {} workgroups (at most {max} each)",
                    g.wgs
                ),
            )
        }
        _ => {}
    }
    if let Some((local, groups, pos)) = h.dims {
        let product = |d: [u32; 3]| d.iter().map(|&x| u128::from(x)).product::<u128>();
        if product(local) != u128::from(g.wg_size()) || product(groups) != u128::from(g.wgs) {
            return Err(Error::semantic(
                pos,
                format!(
                    "`@Dims` ({} × {} × {} invocations, {} × {} × {} workgroups) does not match `@Config` ({} invocations per workgroup, {} workgroups)",
                    local[0], local[1], local[2], groups[0], groups[1], groups[2], g.wg_size(), g.wgs
                ),
            ));
        }
        if let GridLimit::Ids(max) = limit {
            for d in 0..3 {
                let extent = u128::from(local[d]) * u128::from(groups[d]);
                if extent > max {
                    return too_large(
                        pos,
                        format!("global ids of extent {extent} in dimension {d} (at most {max})"),
                    );
                }
            }
        }
        g.dims = Some((local, groups));
    }
    Ok(g)
}

/// Reads every `; @…` comment line of `src`.
pub(super) fn parse_headers(src: &str) -> Result<Headers> {
    let mut h = Headers::default();
    for (i, text) in src.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let chars: Vec<char> = text.chars().collect();
        let mut k = 0;
        while k < chars.len() && chars[k].is_whitespace() {
            k += 1;
        }
        if k >= chars.len() || chars[k] != ';' {
            continue;
        }
        k += 1;
        while k < chars.len() && chars[k].is_whitespace() {
            k += 1;
        }
        if k >= chars.len() || chars[k] != '@' {
            continue;
        }
        let mut c = Cursor {
            chars: &chars,
            i: k + 1,
            line,
        };
        let tag_pos = c.pos_at(k);
        let tag = c.word();
        c.skip_ws();
        if !c.eat(':') {
            return Err(Error::syntax(
                c.pos(),
                format!("expected `:` after `@{tag}`"),
            ));
        }
        match tag.as_str() {
            "Input" => {
                loop {
                    h.inputs.push(c.assign()?);
                    c.skip_ws();
                    if c.eat(',') {
                        continue;
                    }
                    break;
                }
                c.end()?;
            }
            "Output" => {
                let q = c.quantifier()?;
                let cond = c.cond()?;
                c.end()?;
                h.outputs.push((q, cond, tag_pos));
            }
            "Filter" => {
                let cond = c.cond()?;
                c.end()?;
                h.filters.push((cond, tag_pos));
            }
            "Config" => {
                if h.config.is_some() {
                    return Err(Error::semantic(tag_pos, "more than one `@Config` line"));
                }
                let v: [u32; 3] = c.sizes(
                    "`@Config: <threads per subgroup>, <subgroups per workgroup>, <workgroups>`",
                )?;
                c.end()?;
                let g = Grid {
                    threads_per_sg: v[0],
                    sgs_per_wg: v[1],
                    wgs: v[2],
                    dims: None,
                };
                h.config = Some((g, tag_pos));
            }
            "Dims" => {
                if h.dims.is_some() {
                    return Err(Error::semantic(tag_pos, "more than one `@Dims` line"));
                }
                let v: [u32; 6] = c.sizes(
                    "`@Dims: <workgroup x>, <y>, <z>, <workgroups x>, <y>, <z>`",
                )?;
                c.end()?;
                h.dims = Some(([v[0], v[1], v[2]], [v[3], v[4], v[5]], tag_pos));
            }
            "Kernel" => {
                if h.kernel.is_some() {
                    return Err(Error::semantic(tag_pos, "more than one `@Kernel` line"));
                }
                c.skip_ws();
                let p = c.pos();
                let name = c.word();
                if name.is_empty() {
                    return Err(Error::syntax(p, "expected the entry point's name"));
                }
                c.end()?;
                h.kernel = Some(name);
            }
            _ => {
                return Err(Error::unsupported(
                    tag_pos,
                    format!(
                    "harness header `@{tag}` (known: @Input, @Output, @Filter, @Config, @Dims, @Kernel)"
                ),
                ))
            }
        }
    }
    Ok(h)
}

/// Parses a standalone condition (used by tests).
#[cfg(test)]
pub(super) fn parse_cond(text: &str) -> Result<HCond> {
    let chars: Vec<char> = text.chars().collect();
    let mut c = Cursor {
        chars: &chars,
        i: 0,
        line: 1,
    };
    let cond = c.cond()?;
    c.end()?;
    Ok(cond)
}

struct Cursor<'a> {
    chars: &'a [char],
    i: usize,
    line: u32,
}

impl Cursor<'_> {
    fn pos_at(&self, i: usize) -> Pos {
        Pos {
            line: self.line,
            col: u32::try_from(i + 1).unwrap_or(u32::MAX),
        }
    }
    fn pos(&self) -> Pos {
        self.pos_at(self.i)
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn eat_str(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        if self.i + n <= self.chars.len()
            && self.chars[self.i..self.i + n].iter().copied().eq(s.chars())
        {
            self.i += n;
            true
        } else {
            false
        }
    }
    /// An identifier-like word (possibly empty).
    fn word(&mut self) -> String {
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.i += 1;
        }
        self.chars[start..self.i].iter().collect()
    }
    /// Peeks a keyword without consuming it.
    fn at_keyword(&self, kw: &str) -> bool {
        let n = kw.chars().count();
        self.i + n <= self.chars.len()
            && self.chars[self.i..self.i + n]
                .iter()
                .copied()
                .eq(kw.chars())
            && !self
                .chars
                .get(self.i + n)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    }
    fn end(&mut self) -> Result<()> {
        self.skip_ws();
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(Error::syntax(self.pos(), format!("unexpected `{c}`"))),
        }
    }
    /// `N` positive sizes separated by commas (`usage` shows the form).
    fn sizes<const N: usize>(&mut self, usage: &str) -> Result<[u32; N]> {
        let mut v = [0u32; N];
        for (n, slot) in v.iter_mut().enumerate() {
            if n > 0 {
                self.skip_ws();
                if !self.eat(',') {
                    return Err(Error::syntax(self.pos(), format!("expected `,` ({usage})")));
                }
            }
            self.skip_ws();
            let p = self.pos();
            let x = self.int()?;
            *slot = u32::try_from(x)
                .ok()
                .filter(|&x| x >= 1)
                .ok_or_else(|| Error::semantic(p, "grid sizes must be positive"))?;
        }
        Ok(v)
    }

    fn int(&mut self) -> Result<i128> {
        self.skip_ws();
        let p = self.pos();
        let start = self.i;
        if matches!(self.peek(), Some('-') | Some('+')) {
            self.i += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.i += 1;
        }
        let w: String = self.chars[start..self.i].iter().collect();
        if w.is_empty() {
            return Err(Error::syntax(p, "expected an integer"));
        }
        super::lex::parse_int(&w).ok_or_else(|| {
            Error::syntax(
                p,
                format!("malformed integer `{}`", crate::diag::excerpt(&w)),
            )
        })
    }
    fn name(&mut self) -> Result<(String, Pos)> {
        self.skip_ws();
        let p = self.pos();
        if !self.eat('%') {
            return Err(Error::syntax(p, "expected `%name`"));
        }
        let start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        {
            self.i += 1;
        }
        if self.i == start {
            return Err(Error::syntax(p, "expected a name after `%`"));
        }
        Ok((self.chars[start..self.i].iter().collect(), p))
    }
    fn assign(&mut self) -> Result<Assign> {
        let (name, pos) = self.name()?;
        self.skip_ws();
        if !self.eat('=') {
            return Err(Error::syntax(self.pos(), "expected `=` in `@Input`"));
        }
        let value = self.value(0)?;
        Ok(Assign { name, pos, value })
    }
    fn value(&mut self, depth: usize) -> Result<HValue> {
        self.skip_ws();
        let p = self.pos();
        if depth > 32 {
            return Err(Error::unsupported(p, "initial value nested deeper than 32"));
        }
        if self.eat('{') {
            let mut items = Vec::new();
            self.skip_ws();
            if self.eat('}') {
                return Ok(HValue::List(items, p));
            }
            loop {
                items.push(self.value(depth + 1)?);
                self.skip_ws();
                if self.eat(',') {
                    continue;
                }
                if self.eat('}') {
                    return Ok(HValue::List(items, p));
                }
                return Err(Error::syntax(self.pos(), "expected `,` or `}`"));
            }
        }
        Ok(HValue::Int(self.int()?, p))
    }
    fn quantifier(&mut self) -> Result<Quantifier> {
        self.skip_ws();
        let p = self.pos();
        if self.eat('~') {
            self.skip_ws();
            if self.word() == "exists" {
                return Ok(Quantifier::NotExists);
            }
            return Err(Error::syntax(p, "expected `~exists`"));
        }
        match self.word().as_str() {
            "forall" => Ok(Quantifier::Forall),
            "exists" => Ok(Quantifier::Exists),
            "not" => {
                self.skip_ws();
                if self.word() == "exists" {
                    Ok(Quantifier::NotExists)
                } else {
                    Err(Error::syntax(p, "expected `not exists`"))
                }
            }
            _ => Err(Error::syntax(
                p,
                "expected `forall`, `exists`, `not exists` or `~exists`",
            )),
        }
    }
    fn cond(&mut self) -> Result<HCond> {
        self.cond_depth(0)
    }
    fn cond_depth(&mut self, depth: usize) -> Result<HCond> {
        if depth > 64 {
            return Err(Error::unsupported(
                self.pos(),
                "condition nested deeper than 64",
            ));
        }
        let mut a = self.conj(depth)?;
        loop {
            self.skip_ws();
            if self.at_keyword("or") {
                self.i += 2;
            } else if !(self.eat_str("\\/") || self.eat_str("||")) {
                return Ok(a);
            }
            let b = self.conj(depth)?;
            a = HCond::Or(Box::new(a), Box::new(b));
        }
    }
    fn conj(&mut self, depth: usize) -> Result<HCond> {
        let mut a = self.unary(depth)?;
        loop {
            self.skip_ws();
            if self.at_keyword("and") {
                self.i += 3;
            } else if !(self.eat_str("/\\") || self.eat_str("&&")) {
                return Ok(a);
            }
            let b = self.unary(depth)?;
            a = HCond::And(Box::new(a), Box::new(b));
        }
    }
    fn unary(&mut self, depth: usize) -> Result<HCond> {
        self.skip_ws();
        if depth > 64 {
            return Err(Error::unsupported(
                self.pos(),
                "condition nested deeper than 64",
            ));
        }
        if self.at_keyword("not") {
            self.i += 3;
            return Ok(HCond::Not(Box::new(self.unary(depth + 1)?)));
        }
        if self.peek() == Some('!') && self.chars.get(self.i + 1) != Some(&'=')
            || self.peek() == Some('~')
        {
            self.i += 1;
            return Ok(HCond::Not(Box::new(self.unary(depth + 1)?)));
        }
        if self.at_keyword("true") {
            self.i += 4;
            return Ok(HCond::True);
        }
        if self.at_keyword("false") {
            self.i += 5;
            return Ok(HCond::False);
        }
        if self.eat('(') {
            let c = self.cond_depth(depth + 1)?;
            self.skip_ws();
            if !self.eat(')') {
                return Err(Error::syntax(self.pos(), "expected `)`"));
            }
            return Ok(c);
        }
        let a = self.term()?;
        self.skip_ws();
        let p = self.pos();
        let op = if self.eat_str("==") {
            CmpOp::Eq
        } else if self.eat_str("!=") {
            CmpOp::Ne
        } else if self.eat_str("<=") {
            CmpOp::Le
        } else if self.eat_str(">=") {
            CmpOp::Ge
        } else if self.eat('<') {
            CmpOp::Lt
        } else if self.eat('>') {
            CmpOp::Gt
        } else if self.eat('=') {
            CmpOp::Eq
        } else {
            return Err(Error::syntax(
                p,
                "expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)",
            ));
        };
        let b = self.term()?;
        Ok(HCond::Cmp(op, a, b))
    }
    fn term(&mut self) -> Result<HTerm> {
        self.skip_ws();
        let p = self.pos();
        match self.peek() {
            Some('%') => {
                let (name, pos) = self.name()?;
                let mut path = Vec::new();
                loop {
                    self.skip_ws();
                    if !self.eat('[') {
                        break;
                    }
                    let ip = self.pos();
                    let v = self.int()?;
                    let v = u64::try_from(v)
                        .map_err(|_| Error::semantic(ip, "index must be non-negative"))?;
                    self.skip_ws();
                    if !self.eat(']') {
                        return Err(Error::syntax(self.pos(), "expected `]`"));
                    }
                    path.push(v);
                }
                Ok(HTerm::Var { name, path, pos })
            }
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => Ok(HTerm::Int(self.int()?, p)),
            Some(c) => Err(Error::syntax(
                p,
                format!("expected `%name` or an integer, found `{c}`"),
            )),
            None => Err(Error::syntax(p, "expected `%name` or an integer")),
        }
    }
}
