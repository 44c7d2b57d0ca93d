//! The parser of PTX kernel text (`nvcc -ptx`, `clang --cuda-device-only
//! -S`) into the syntax tree of [`super::ast`].
//!
//! It checks the grammar only: opcodes and their modifiers are kept as
//! words and operands follow one generic grammar, so that every
//! instruction the compilers write parses and the lowering decides what
//! it means. Directives are the other way round: each one we know is read
//! into the tree, each one we do not is refused as unsupported, so that
//! nothing in a kernel is dropped without a word. The exceptions are the
//! DWARF `.section .debug_* { … }` blocks, which are skipped whole (they
//! describe the source, not the program; `.loc` and `.file` carry what we
//! need of it), and a module-level `.pragma`, which has nowhere to go.
//!
//! The parser never panics and always ends: every loop consumes a token
//! or stops, and nesting (blocks, initialiser lists) is bounded by
//! [`MAX_DEPTH`].

use super::ast::*;
use super::lex::{lex, Kind, Tok};
use crate::diag::{Error, Result};
use crate::ir::Pos;
use std::collections::{HashMap, HashSet};

/// How deep `{ … }` blocks and initialiser lists may nest; far more than
/// compilers write, few enough that recursion cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// Linkage directives, written before a variable or function.
const LINKAGE: [&str; 4] = ["visible", "extern", "weak", "common"];

/// Directives only a module's top level may hold.
const MODULE_ONLY: [&str; 7] = [
    "entry",
    "func",
    "version",
    "target",
    "address_size",
    "file",
    "section",
];

/// Performance-tuning directives allowed between a function's header and
/// its body.
const PERF: [&str; 9] = [
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "noreturn",
    "explicitcluster",
    "reqnctapercluster",
    "maxclusterrank",
];

/// Parses a whole `.ptx` file.
pub fn parse_module(src: &str) -> Result<Module> {
    let mut p = Parser {
        src,
        toks: lex(src),
        i: 0,
        loc: None,
        regs: Vec::new(),
        depth: 0,
    };
    p.module()
}

/// The names one scope declares with `.reg`: plain names
/// (`temp_param_reg`) and ranges (`r<10>`: `r0` … `r9`), hashed so that
/// a body with many declarations still parses in linear time.
#[derive(Default)]
struct RegScope {
    plain: HashSet<String>,
    ranges: HashMap<String, u32>,
}

impl RegScope {
    fn declare(&mut self, name: &str, range: Option<u32>) {
        match range {
            None => self.plain.insert(name.to_string()),
            Some(n) => self.ranges.insert(name.to_string(), n).is_some(),
        };
    }

    /// Whether `name` is declared here: as written, or as a range's
    /// prefix followed by an index below its count (`r12` from `r<20>`
    /// or from `r1<5>`, so every split of the trailing digits is tried).
    fn covers(&self, name: &str) -> bool {
        if self.plain.contains(name) {
            return true;
        }
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let stem = name.len() - digits;
        (stem..name.len()).any(|cut| {
            let index = &name[cut..];
            let canonical = index == "0" || !index.starts_with('0');
            canonical
                && index
                    .parse::<u32>()
                    .is_ok_and(|k| self.ranges.get(&name[..cut]).is_some_and(|&n| k < n))
        })
    }

    /// A range whose prefix `name` has but whose count its index is not
    /// below (`%rd99` against `%rd<13>`): the range, `(prefix, count)`.
    fn beyond(&self, name: &str) -> Option<(&str, u32)> {
        let digits = name.bytes().rev().take_while(u8::is_ascii_digit).count();
        let stem = name.len() - digits;
        (stem..name.len()).find_map(|cut| {
            let (prefix, n) = self.ranges.get_key_value(&name[..cut])?;
            name[cut..]
                .parse::<u32>()
                .is_ok_and(|k| k >= *n)
                .then_some((prefix.as_str(), *n))
        })
    }
}

/// A number's value, as operands and initialisers keep it.
enum Number {
    Int(i64),
    Float { bits: u64, double: bool },
}

/// The qualifiers of a declaration or parameter, before its name:
/// `.shared .align 4 .b8`, `.param .u64 .ptr .global .align 4`.
#[derive(Default)]
struct Quals {
    space: Option<Space>,
    align: Option<u32>,
    vector: Option<u32>,
    ty: Option<Type>,
    ptr: Option<(Option<Space>, Option<u32>)>,
}

struct Parser<'a> {
    src: &'a str,
    /// Never empty: the lexer ends it with `Eof`.
    toks: Vec<Tok>,
    i: usize,
    /// The `.loc` in force.
    loc: Option<SrcLoc>,
    /// Names declared with `.reg`, innermost scope last: an operand that
    /// names one is a register even without a `%`.
    regs: Vec<RegScope>,
    /// Current nesting of blocks and initialiser lists.
    depth: usize,
}

// Token access.
impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let last = self.toks.len().saturating_sub(1);
        &self.toks[(self.i + k).min(last)]
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if t.kind != Kind::Eof {
            self.i += 1;
        }
        t
    }

    /// The token as written (a directive without its dot).
    fn text(&self, t: &Tok) -> &'a str {
        let s = self.src.get(t.start..t.end).unwrap_or("");
        match t.kind {
            Kind::Dir => s.strip_prefix('.').unwrap_or(s),
            _ => s,
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek().kind == Kind::Punct(c)
    }

    fn is_dir(&self, name: &str) -> bool {
        self.peek().kind == Kind::Dir && self.text(self.peek()) == name
    }

    fn eat_punct(&mut self, c: char) -> Option<Pos> {
        self.is_punct(c).then(|| self.bump().pos)
    }

    fn expect_punct(&mut self, c: char) -> Result<Pos> {
        match self.eat_punct(c) {
            Some(p) => Ok(p),
            None => Err(self.unexpected(&format!("`{c}`"))),
        }
    }

    /// The error for the next token when `what` was expected; a token the
    /// lexer could not read reports its own reason.
    fn unexpected(&self, what: &str) -> Error {
        let t = self.peek();
        let found = match &t.kind {
            Kind::Bad(msg) => return Error::syntax(t.pos, msg.clone()),
            Kind::Eof => "the end of the input".to_string(),
            Kind::Str(_) => "a string".to_string(),
            _ => format!(
                "`{}`",
                crate::diag::excerpt(self.src.get(t.start..t.end).unwrap_or(""))
            ),
        };
        Error::syntax(t.pos, format!("expected {what}, found {found}"))
    }

    /// A plain name (no `.` suffix): a variable, function, label or
    /// register being declared.
    fn name(&mut self, what: &str) -> Result<(String, Pos)> {
        let t = self.peek().clone();
        let s = self.text(&t);
        if t.kind != Kind::Word || s.contains('.') || s == "_" {
            return Err(self.unexpected(what));
        }
        self.bump();
        Ok((s.to_string(), t.pos))
    }

    fn expect_num(&mut self, what: &str) -> Result<Tok> {
        if self.peek().kind == Kind::Num {
            Ok(self.bump())
        } else {
            Err(self.unexpected(what))
        }
    }

    /// A non-negative integer: an alignment, a size, an index.
    fn uint(&mut self, what: &str) -> Result<u64> {
        let t = self.expect_num(what)?;
        int_value(self.text(&t)).map_err(|m| Error::syntax(t.pos, m))
    }

    fn uint32(&mut self, what: &str) -> Result<u32> {
        let pos = self.peek().pos;
        let v = self.uint(what)?;
        u32::try_from(v).map_err(|_| Error::syntax(pos, format!("{v} is too large for {what}")))
    }

    /// A number with an optional leading `-`: an operand or initialiser.
    fn signed_number(&mut self) -> Result<(Number, Pos)> {
        let minus = self.eat_punct('-');
        let t = self.expect_num("a number")?;
        let n = number_value(self.text(&t)).map_err(|m| Error::syntax(t.pos, m))?;
        let n = match (minus, n) {
            (None, n) => n,
            (Some(_), Number::Int(v)) => Number::Int(v.wrapping_neg()),
            (Some(_), Number::Float { bits, double }) => Number::Float {
                bits: bits ^ if double { 1 << 63 } else { 1 << 31 },
                double,
            },
        };
        Ok((n, minus.unwrap_or(t.pos)))
    }

    /// `+N`, `+-N` or `-N` after a base address or symbol; 0 if absent.
    fn offset(&mut self) -> Result<i64> {
        let negate = if self.eat_punct('+').is_some() {
            self.eat_punct('-').is_some()
        } else if self.eat_punct('-').is_some() {
            true
        } else {
            return Ok(0);
        };
        let t = self.expect_num("an integer offset")?;
        let v = int_value(self.text(&t)).map_err(|m| Error::syntax(t.pos, m))? as i64;
        Ok(if negate { v.wrapping_neg() } else { v })
    }
}

// The module level.
impl<'a> Parser<'a> {
    fn module(&mut self) -> Result<Module> {
        let mut m = Module::default();
        loop {
            match self.peek().kind {
                Kind::Eof => return Ok(m),
                Kind::Dir => self.module_directive(&mut m)?,
                _ => return Err(self.unexpected("a directive such as `.entry` or `.global`")),
            }
        }
    }

    fn module_directive(&mut self, m: &mut Module) -> Result<()> {
        let t = self.peek().clone();
        match self.text(&t) {
            "version" => m.version = Some(self.version()?),
            "target" => m.target = self.target()?,
            "address_size" => {
                self.bump();
                m.address_size = Some(self.uint32("an address size")?);
            }
            "file" => m.files.push(self.file()?),
            "loc" => self.loc()?,
            "section" => self.skip_section()?,
            "pragma" => {
                self.pragma()?;
            }
            _ => self.module_item(m)?,
        }
        Ok(())
    }

    /// `.version 7.8`: read from the number's text, which the lexer keeps
    /// whole.
    fn version(&mut self) -> Result<(u32, u32)> {
        self.bump();
        let t = self.expect_num("a version such as `7.8`")?;
        let s = self.text(&t);
        let parsed = s
            .split_once('.')
            .and_then(|(a, b)| Some((digits_u32(a)?, digits_u32(b)?)));
        parsed.ok_or_else(|| Error::syntax(t.pos, format!("malformed version `{s}`")))
    }

    /// `.target sm_70, debug`.
    fn target(&mut self) -> Result<Vec<String>> {
        self.bump();
        let mut words = vec![self.name("a target such as `sm_70`")?.0];
        while self.eat_punct(',').is_some() {
            words.push(self.name("a target option")?.0);
        }
        Ok(words)
    }

    /// `.file 1 "k.cu"`, possibly followed by `, timestamp, size`, which
    /// we drop.
    fn file(&mut self) -> Result<(u32, String)> {
        self.bump();
        let index = self.uint32("a file index")?;
        let Kind::Str(name) = self.peek().kind.clone() else {
            return Err(self.unexpected("a file name string"));
        };
        self.bump();
        while self.eat_punct(',').is_some() {
            self.uint("a file timestamp or size")?;
        }
        Ok((index, name))
    }

    /// `.loc FILE LINE COL`, possibly followed by `, function_name LABEL
    /// [+N], inlined_at FILE LINE COL` (newer LLVM), which we drop: the
    /// innermost position is the one a witness should show.
    fn loc(&mut self) -> Result<()> {
        self.bump();
        let file = self.uint32("a file index")?;
        let line = self.uint32("a line number")?;
        let col = self.uint32("a column number")?;
        if self.is_punct(',') && self.text(self.peek_at(1)) == "function_name" {
            self.bump();
            self.bump();
            self.name("a label")?;
            self.offset()?;
            self.expect_punct(',')?;
            if self.text(self.peek()) != "inlined_at" {
                return Err(self.unexpected("`inlined_at`"));
            }
            self.bump();
            for what in ["a file index", "a line number", "a column number"] {
                self.uint(what)?;
            }
        }
        self.loc = Some(SrcLoc { file, line, col });
        Ok(())
    }

    /// `.section .debug_info { … }`: skipped to the matching brace,
    /// whatever is inside (DWARF bytes, labels, label arithmetic).
    fn skip_section(&mut self) -> Result<()> {
        self.bump();
        if self.peek().kind != Kind::Dir {
            return Err(self.unexpected("a section name such as `.debug_info`"));
        }
        self.bump();
        let open = self.expect_punct('{')?;
        let mut depth = 1usize;
        while depth > 0 {
            let t = self.bump();
            match t.kind {
                Kind::Punct('{') => depth += 1,
                Kind::Punct('}') => depth -= 1,
                Kind::Eof => {
                    return Err(Error::syntax(
                        t.pos,
                        format!("section opened at {open} is not closed"),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `.pragma "nounroll";` (a list of strings, joined by `, `).
    fn pragma(&mut self) -> Result<Stmt> {
        let pos = self.bump().pos;
        let mut parts = Vec::new();
        loop {
            let Kind::Str(s) = self.peek().kind.clone() else {
                return Err(self.unexpected("a pragma string"));
            };
            self.bump();
            parts.push(s);
            if self.eat_punct(',').is_none() {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(Stmt::Pragma {
            text: parts.join(", "),
            pos,
        })
    }

    /// A function or a module-scope variable, after any linkage.
    fn module_item(&mut self, m: &mut Module) -> Result<()> {
        let linkage = self.linkage();
        if self.is_dir("entry") || self.is_dir("func") {
            let f = self.function(linkage)?;
            m.functions.push(f);
        } else {
            m.vars.extend(self.decls(linkage)?);
        }
        Ok(())
    }

    fn linkage(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while self.peek().kind == Kind::Dir && LINKAGE.contains(&self.text(self.peek())) {
            let t = self.bump();
            out.push(self.text(&t).to_string());
        }
        out
    }
}

// Functions.
impl<'a> Parser<'a> {
    /// `.entry name(params) directives { body }` or `.func (rets)
    /// name(params) directives { body }`; `;` instead of a body for a
    /// prototype.
    fn function(&mut self, linkage: Vec<String>) -> Result<Function> {
        let kw = self.bump();
        let kind = if self.text(&kw) == "entry" {
            FnKind::Entry
        } else {
            FnKind::Func
        };
        let rets = if kind == FnKind::Func && self.is_punct('(') {
            self.params()?
        } else {
            Vec::new()
        };
        let (name, pos) = self.name("a function name")?;
        let params = if self.is_punct('(') {
            self.params()?
        } else {
            Vec::new()
        };
        let directives = self.perf_directives()?;
        let body = if self.eat_punct(';').is_some() {
            None
        } else {
            Some(self.body(rets.iter().chain(&params))?)
        };
        Ok(Function {
            name,
            pos,
            kind,
            linkage,
            rets,
            params,
            directives,
            body,
        })
    }

    /// `.maxntid 256, 1, 1`, `.noreturn`, … up to the body or `;`.
    fn perf_directives(&mut self) -> Result<Vec<(String, Vec<u64>, Pos)>> {
        let mut out = Vec::new();
        while self.peek().kind == Kind::Dir {
            let t = self.peek().clone();
            let name = self.text(&t);
            if !PERF.contains(&name) {
                return Err(Error::unsupported(t.pos, format!("directive `.{name}`")));
            }
            self.bump();
            let mut args = Vec::new();
            if self.peek().kind == Kind::Num {
                args.push(self.uint("a number")?);
                while self.eat_punct(',').is_some() {
                    args.push(self.uint("a number")?);
                }
            }
            out.push((name.to_string(), args, t.pos));
        }
        Ok(out)
    }

    /// `( param, … )`, possibly empty.
    fn params(&mut self) -> Result<Vec<Param>> {
        self.params_with(false)
    }

    /// `( param, … )`; `anon`: the names may be `_` (a prototype's).
    fn params_with(&mut self, anon: bool) -> Result<Vec<Param>> {
        self.expect_punct('(')?;
        let mut out = Vec::new();
        if self.eat_punct(')').is_some() {
            return Ok(out);
        }
        loop {
            out.push(self.param(anon)?);
            if self.eat_punct(')').is_some() {
                return Ok(out);
            }
            if self.eat_punct(',').is_none() {
                return Err(self.unexpected("`,` or `)`"));
            }
        }
    }

    /// `.param .u64 name`, `.param .align 8 .b8 name[16]`, `.param .u64
    /// .ptr .global .align 4 name`, `.reg .b32 name`.
    fn param(&mut self, anon: bool) -> Result<Param> {
        let first = self.peek().pos;
        let q = self.quals()?;
        let space = match q.space {
            Some(s @ (Space::Param | Space::Reg)) => s,
            _ => return Err(Error::syntax(first, "expected `.param` or `.reg`")),
        };
        if q.vector.is_some() {
            return Err(Error::unsupported(first, "vector parameters (`.v2`/`.v4`)"));
        }
        let ty = self.need_type(&q)?;
        let sink = self.peek().clone();
        let (name, pos) = if anon && sink.kind == Kind::Word && self.text(&sink) == "_" {
            self.bump();
            ("_".to_string(), sink.pos)
        } else {
            self.name("a parameter name")?
        };
        let mut array = None;
        if self.eat_punct('[').is_some() {
            array = Some(self.uint("an array size")?);
            self.expect_punct(']')?;
            if self.is_punct('[') {
                let p = self.peek().pos;
                return Err(Error::unsupported(p, "multi-dimensional parameter arrays"));
            }
        }
        Ok(Param {
            name,
            pos,
            space,
            ty,
            array,
            align: q.align,
            ptr: q.ptr,
        })
    }

    /// `{ statements }`, with the `.reg` return values and parameters in
    /// scope and no `.loc` in force yet (compilers restate it at the top
    /// of each body).
    fn body<'p>(&mut self, params: impl Iterator<Item = &'p Param>) -> Result<Vec<Stmt>> {
        self.expect_punct('{')?;
        self.loc = None;
        let mut scope = RegScope::default();
        for p in params.filter(|p| p.space == Space::Reg) {
            scope.declare(&p.name, None);
        }
        self.regs = vec![scope];
        let body = self.stmts();
        self.regs.clear();
        body
    }
}

// Declarations.
impl<'a> Parser<'a> {
    /// Qualifier directives up to the name. After `.ptr`, a state space
    /// and an alignment belong to the pointer attribute.
    fn quals(&mut self) -> Result<Quals> {
        let mut q = Quals::default();
        while self.peek().kind == Kind::Dir {
            let t = self.peek().clone();
            let w = self.text(&t);
            self.bump();
            if w == "align" {
                let a = Some(self.uint32("an alignment")?);
                match &mut q.ptr {
                    Some(ptr) => set_once(&mut ptr.1, a, t.pos, "alignment")?,
                    None => set_once(&mut q.align, a, t.pos, "alignment")?,
                }
            } else if w == "ptr" {
                set_once(&mut q.ptr, Some((None, None)), t.pos, "`.ptr`")?;
            } else if let Some(n) = vector_width(w) {
                set_once(&mut q.vector, Some(n), t.pos, "vector width")?;
            } else if let Some(s) = Space::from_word(w) {
                match &mut q.ptr {
                    Some(ptr) => set_once(&mut ptr.0, Some(s), t.pos, "pointer space")?,
                    None => set_once(&mut q.space, Some(s), t.pos, "state space")?,
                }
            } else if let Some(ty) = Type::from_word(w) {
                set_once(&mut q.ty, Some(ty), t.pos, "type")?;
            } else {
                return Err(Error::unsupported(t.pos, format!("directive `.{w}`")));
            }
        }
        Ok(q)
    }

    fn need_type(&self, q: &Quals) -> Result<Type> {
        q.ty.ok_or_else(|| self.unexpected("a type such as `.u32`"))
    }

    /// `.space quals name[<N>][dims][= init], …;`: one declaration per
    /// name.
    fn decls(&mut self, linkage: Vec<String>) -> Result<Vec<VarDecl>> {
        let first = self.peek().pos;
        let q = self.quals()?;
        let Some(space) = q.space else {
            return Err(Error::syntax(
                first,
                "expected a state space such as `.global`",
            ));
        };
        if q.ptr.is_some() {
            return Err(Error::syntax(
                first,
                "`.ptr` is only allowed on kernel parameters",
            ));
        }
        let ty = self.need_type(&q)?;
        let mut out = Vec::new();
        loop {
            let (name, pos) = self.name("a variable name")?;
            let range = if self.eat_punct('<').is_some() {
                let n = self.uint32("a register count")?;
                self.expect_punct('>')?;
                Some(n)
            } else {
                None
            };
            let dims = self.dims()?;
            let init = if self.eat_punct('=').is_some() {
                Some(self.init()?)
            } else {
                None
            };
            if space == Space::Reg {
                self.declare_reg(&name, range);
            }
            out.push(VarDecl {
                space,
                linkage: linkage.clone(),
                align: q.align,
                vector: q.vector,
                ty,
                name,
                range,
                dims,
                init,
                pos,
            });
            if self.eat_punct(';').is_some() {
                return Ok(out);
            }
            if self.eat_punct(',').is_none() {
                return Err(self.unexpected("`,` or `;`"));
            }
        }
    }

    /// `[N]…` or `[]`.
    fn dims(&mut self) -> Result<Vec<Option<u64>>> {
        let mut dims = Vec::new();
        while self.eat_punct('[').is_some() {
            if self.eat_punct(']').is_some() {
                dims.push(None);
            } else {
                dims.push(Some(self.uint("an array size")?));
                self.expect_punct(']')?;
            }
        }
        Ok(dims)
    }

    fn declare_reg(&mut self, name: &str, range: Option<u32>) {
        if let Some(scope) = self.regs.last_mut() {
            scope.declare(name, range);
        }
    }

    /// `5`, `-1`, `0f3F800000`, `sym`, `sym+4`, `generic(sym)`, `{…}`.
    fn init(&mut self) -> Result<Init> {
        match self.peek().kind {
            Kind::Punct('{') => self.nested(Self::init_list),
            Kind::Punct('-') | Kind::Num => Ok(match self.signed_number()?.0 {
                Number::Int(v) => Init::Int(v),
                Number::Float { bits, double } => Init::Float { bits, double },
            }),
            Kind::Word => self.init_addr(),
            _ => Err(self.unexpected("an initial value")),
        }
    }

    fn init_list(&mut self) -> Result<Init> {
        self.expect_punct('{')?;
        let mut items = Vec::new();
        if self.eat_punct('}').is_some() {
            return Ok(Init::List(items));
        }
        loop {
            items.push(self.init()?);
            if self.eat_punct('}').is_some() {
                return Ok(Init::List(items));
            }
            if self.eat_punct(',').is_none() {
                return Err(self.unexpected("`,` or `}`"));
            }
        }
    }

    /// `sym[+N]` or `generic(sym[+N])[+N]`.
    fn init_addr(&mut self) -> Result<Init> {
        let generic =
            self.text(self.peek()) == "generic" && self.peek_at(1).kind == Kind::Punct('(');
        let (sym, mut offset) = if generic {
            self.bump();
            self.bump();
            let (sym, _) = self.name("a variable name")?;
            let off = self.offset()?;
            self.expect_punct(')')?;
            (sym, off)
        } else {
            (self.name("a variable name")?.0, 0)
        };
        offset = offset.wrapping_add(self.offset()?);
        Ok(Init::Addr {
            sym,
            offset,
            generic,
        })
    }

    /// Runs `f` one level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            let pos = self.peek().pos;
            return Err(Error::unsupported(
                pos,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }
}

// Statements and instructions.
impl<'a> Parser<'a> {
    /// Statements up to and including the closing `}`.
    fn stmts(&mut self) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            let t = self.peek().clone();
            match t.kind {
                Kind::Punct('}') => {
                    self.bump();
                    return Ok(out);
                }
                Kind::Punct('{') => out.push(self.nested(Self::block)?),
                Kind::Punct('@') => out.push(Stmt::Instr(self.instr()?)),
                Kind::Word
                    if self.peek_at(1).kind == Kind::Punct(':')
                        && self.peek_at(2).kind == Kind::Dir
                        && matches!(
                            self.text(self.peek_at(2)),
                            "callprototype" | "calltargets"
                        ) =>
                {
                    out.push(Stmt::CallSpec(self.call_spec()?));
                }
                Kind::Word if self.peek_at(1).kind == Kind::Punct(':') => {
                    let (name, pos) = self.name("a label name")?;
                    self.bump();
                    out.push(Stmt::Label { name, pos });
                }
                Kind::Word => out.push(Stmt::Instr(self.instr()?)),
                Kind::Dir => self.body_directive(&mut out)?,
                _ => return Err(self.unexpected("an instruction, a label, a declaration or `}`")),
            }
        }
    }

    /// `name: .callprototype [(rets)] _ [(params)] [.noreturn];` or
    /// `name: .calltargets f, g, …;`.
    fn call_spec(&mut self) -> Result<CallSpec> {
        let (name, pos) = self.name("a prototype label")?;
        self.expect_punct(':')?;
        let dir = self.bump();
        let kind = if self.text(&dir) == "calltargets" {
            let mut targets = vec![self.name("a function name")?];
            while self.eat_punct(',').is_some() {
                targets.push(self.name("a function name")?);
            }
            CallSpecKind::Targets(targets)
        } else {
            let rets = if self.is_punct('(') {
                self.params_with(true)?
            } else {
                Vec::new()
            };
            let t = self.peek().clone();
            if t.kind != Kind::Word || self.text(&t) != "_" {
                return Err(self.unexpected("`_` (the function of a `.callprototype`)"));
            }
            self.bump();
            let params = if self.is_punct('(') {
                self.params_with(true)?
            } else {
                Vec::new()
            };
            let mut noreturn = false;
            while self.peek().kind == Kind::Dir {
                let d = self.peek().clone();
                if self.text(&d) != "noreturn" {
                    let w = self.text(&d).to_string();
                    return Err(Error::unsupported(
                        d.pos,
                        format!("directive `.{w}` in a `.callprototype`"),
                    ));
                }
                self.bump();
                noreturn = true;
            }
            CallSpecKind::Prototype {
                rets,
                params,
                noreturn,
            }
        };
        self.expect_punct(';')?;
        Ok(CallSpec { name, pos, kind })
    }

    fn block(&mut self) -> Result<Stmt> {
        let pos = self.expect_punct('{')?;
        self.regs.push(RegScope::default());
        let body = self.stmts();
        self.regs.pop();
        Ok(Stmt::Block { body: body?, pos })
    }

    fn body_directive(&mut self, out: &mut Vec<Stmt>) -> Result<()> {
        let t = self.peek().clone();
        let w = self.text(&t);
        if let Some(d) = self.module_only_ahead() {
            let msg = format!("`.{d}` inside a function body (a missing `}}`?)");
            return Err(Error::syntax(t.pos, msg));
        }
        if w == "loc" {
            self.loc()
        } else if w == "pragma" {
            out.push(self.pragma()?);
            Ok(())
        } else if LINKAGE.contains(&w) || Space::from_word(w).is_some() {
            let linkage = self.linkage();
            out.extend(self.decls(linkage)?.into_iter().map(Stmt::Var));
            Ok(())
        } else {
            Err(Error::unsupported(t.pos, format!("directive `.{w}`")))
        }
    }

    /// The directive after any linkage at the next token, if it may only
    /// appear at module scope: text that reads as the next function or a
    /// module header is a body left open, not an unknown directive.
    fn module_only_ahead(&self) -> Option<&'a str> {
        let mut k = 0;
        while self.peek_at(k).kind == Kind::Dir && LINKAGE.contains(&self.text(self.peek_at(k))) {
            k += 1;
        }
        let t = self.peek_at(k);
        let w = self.text(t);
        (t.kind == Kind::Dir && MODULE_ONLY.contains(&w)).then_some(w)
    }

    /// `[@[!]pred] opcode[.mod…] [operand, …];`
    fn instr(&mut self) -> Result<Instr> {
        let guard = self.guard()?;
        let op = self.peek().clone();
        let word = self.text(&op);
        if op.kind != Kind::Word || !word.starts_with(|c: char| c.is_ascii_alphabetic()) {
            return Err(self.unexpected("an opcode such as `ld.global.u32`"));
        }
        self.bump();
        let mut parts = word.split('.').map(str::to_string);
        let opcode = parts.next().unwrap_or_default();
        let mods: Vec<String> = parts.collect();
        let first_operand = self.i;
        let mut operands = Vec::new();
        if !self.is_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.is_punct(';') {
                    break;
                }
                if self.eat_punct(',').is_none() {
                    return Err(self.unexpected("`,` or `;`"));
                }
            }
        }
        let text = self.render(&guard, word, first_operand, self.i);
        self.bump();
        Ok(Instr {
            pos: guard.as_ref().map_or(op.pos, |g| g.pos),
            guard,
            opcode,
            mods,
            operands,
            src: self.loc,
            text,
        })
    }

    /// `@%p` / `@!%p`, or nothing.
    fn guard(&mut self) -> Result<Option<Guard>> {
        let Some(pos) = self.eat_punct('@') else {
            return Ok(None);
        };
        let negated = self.eat_punct('!').is_some();
        // A guard must name a register, so that `@ bra L;` is not read
        // as predicate `bra` guarding opcode `L`.
        let reg = match self.reg_name() {
            Ok((reg, _)) => reg,
            Err(_) => return Err(self.unexpected("a predicate register")),
        };
        Ok(Some(Guard { reg, negated, pos }))
    }

    /// The instruction on one line: the guard, the opcode, then the
    /// operand tokens as written, with a space after each comma only.
    fn render(&self, guard: &Option<Guard>, opcode: &str, from: usize, to: usize) -> String {
        let mut s = String::new();
        if let Some(g) = guard {
            s.push('@');
            if g.negated {
                s.push('!');
            }
            s.push_str(&g.reg);
            s.push(' ');
        }
        s.push_str(opcode);
        if from < to {
            s.push(' ');
        }
        for t in self.toks.get(from..to).unwrap_or(&[]) {
            s.push_str(self.src.get(t.start..t.end).unwrap_or(""));
            if t.kind == Kind::Punct(',') {
                s.push(' ');
            }
        }
        s
    }

    fn operand(&mut self) -> Result<Operand> {
        match self.peek().kind {
            Kind::Punct('[') => self.address(),
            Kind::Punct('{') => {
                let (elems, pos) = self.elems('{', '}')?;
                Ok(Operand::Vector { elems, pos })
            }
            Kind::Punct('(') => {
                let (elems, pos) = self.elems('(', ')')?;
                Ok(Operand::List { elems, pos })
            }
            _ => self.simple(),
        }
    }

    /// `{a, b, …}` or `(a, …)` (possibly empty) of simple operands.
    fn elems(&mut self, open: char, close: char) -> Result<(Vec<Operand>, Pos)> {
        let pos = self.expect_punct(open)?;
        let mut elems = Vec::new();
        if self.eat_punct(close).is_some() {
            return Ok((elems, pos));
        }
        loop {
            elems.push(self.simple()?);
            if self.eat_punct(close).is_some() {
                return Ok((elems, pos));
            }
            if self.eat_punct(',').is_none() {
                return Err(self.unexpected(&format!("`,` or `{close}`")));
            }
        }
    }

    /// `[base]`, `[base+N]`, `[base+-N]`, `[base-N]`, `[N]`.
    fn address(&mut self) -> Result<Operand> {
        let pos = self.expect_punct('[')?;
        let base = self.atom()?;
        if !matches!(
            base,
            Operand::Reg { .. } | Operand::Sym { .. } | Operand::Imm { .. }
        ) {
            return Err(Error::syntax(
                base.pos(),
                "expected a register, a name or an integer as an address",
            ));
        }
        if self.is_punct(',') {
            let p = self.peek().pos;
            return Err(Error::unsupported(
                p,
                "texture and surface operands (`[tex, …]`)",
            ));
        }
        let offset = self.offset()?;
        self.expect_punct(']')?;
        Ok(Operand::Mem {
            base: Box::new(base),
            offset,
            pos,
        })
    }

    /// A register, a predicate pair, `!%p`, a number, `_`, a symbol or
    /// `sym+N`.
    fn simple(&mut self) -> Result<Operand> {
        if let Some(pos) = self.eat_punct('!') {
            let (reg, _) = self.reg_name()?;
            return Ok(Operand::Not { reg, pos });
        }
        let a = self.atom()?;
        match a {
            Operand::Reg { name, pos } if self.eat_punct('|').is_some() => {
                let (b, _) = self.reg_name()?;
                Ok(Operand::PredPair { a: name, b, pos })
            }
            Operand::Sym { name, pos } if self.is_punct('+') || self.is_punct('-') => {
                let offset = self.offset()?;
                Ok(Operand::SymOffset { name, offset, pos })
            }
            a => Ok(a),
        }
    }

    /// A register, `_`, a symbol or a (signed) number.
    fn atom(&mut self) -> Result<Operand> {
        let t = self.peek().clone();
        match t.kind {
            Kind::Num | Kind::Punct('-') => Ok(match self.signed_number()? {
                (Number::Int(value), pos) => Operand::Imm { value, pos },
                (Number::Float { bits, double }, pos) => Operand::Float { bits, double, pos },
            }),
            Kind::Word if self.text(&t) == "_" => {
                self.bump();
                Ok(Operand::Sink { pos: t.pos })
            }
            Kind::Word if self.is_reg(self.text(&t)) => {
                let (name, pos) = self.reg_name()?;
                Ok(Operand::Reg { name, pos })
            }
            Kind::Word => {
                let (name, pos) = self.name("an operand")?;
                Ok(Operand::Sym { name, pos })
            }
            _ => Err(self.unexpected("an operand")),
        }
    }

    /// A register operand, keeping a special register's component
    /// (`%tid.x`) or a vector register's element (`%v.x`) in the name.
    fn reg_name(&mut self) -> Result<(String, Pos)> {
        let t = self.peek().clone();
        if t.kind != Kind::Word || !self.is_reg(self.text(&t)) {
            return Err(self.unexpected("a register"));
        }
        self.bump();
        let name = self.text(&t).to_string();
        // A `%` register past the count of the range that names its kind
        // is undeclared (a hand-edited kernel); other `%` names may be
        // special registers, which need no declaration.
        let base = name.split('.').next().unwrap_or(&name);
        if !self.regs.iter().any(|r| r.covers(base)) {
            if let Some((prefix, n)) = self.regs.iter().rev().find_map(|r| r.beyond(base)) {
                return Err(Error::semantic(
                    t.pos,
                    format!(
                        "register `{base}` is not declared: `{prefix}<{n}>` declares {prefix}0 … {prefix}{}",
                        n.saturating_sub(1)
                    ),
                ));
            }
        }
        Ok((name, t.pos))
    }

    /// Whether a word names a register: `%…` always (PTX reserves `%`
    /// for registers), other names when a `.reg` in scope declares them.
    fn is_reg(&self, word: &str) -> bool {
        let base = word.split('.').next().unwrap_or(word);
        base.starts_with('%') || self.regs.iter().any(|r| r.covers(base))
    }
}

fn set_once<T>(slot: &mut Option<T>, v: Option<T>, pos: Pos, what: &str) -> Result<()> {
    if slot.is_some() {
        return Err(Error::syntax(pos, format!("{what} given twice")));
    }
    *slot = v;
    Ok(())
}

/// `v2` → 2, `v4` → 4, `v8` → 8.
fn vector_width(w: &str) -> Option<u32> {
    match w {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    }
}

fn digits_u32(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An integer literal: decimal, `0x` hex, `0b` binary, `0…` octal, with
/// an optional `U` suffix.
fn int_value(text: &str) -> std::result::Result<u64, String> {
    let s = text.strip_suffix(['U', 'u']).unwrap_or(text);
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Err(format!("malformed integer `{text}`"));
    }
    u64::from_str_radix(digits, radix)
        .map_err(|_| format!("integer `{text}` does not fit in 64 bits"))
}

/// Any numeric literal: `0f` + 8 hex digits (f32 bits), `0d` + 16 hex
/// digits (f64 bits), a decimal with `.` or an exponent (f64), or an
/// integer (its 64-bit pattern).
fn number_value(text: &str) -> std::result::Result<Number, String> {
    let malformed = || format!("malformed number `{text}`");
    let hex_bits = |h: &str, n: usize| {
        (h.len() == n && h.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u64::from_str_radix(h, 16).ok())
            .flatten()
    };
    if let Some(h) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
        let bits = hex_bits(h, 8).ok_or_else(malformed)?;
        return Ok(Number::Float {
            bits,
            double: false,
        });
    }
    if let Some(h) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
        let bits = hex_bits(h, 16).ok_or_else(malformed)?;
        return Ok(Number::Float { bits, double: true });
    }
    let hex = text.starts_with("0x") || text.starts_with("0X");
    if !hex && text.contains(['.', 'e', 'E']) {
        let v: f64 = text.parse().map_err(|_| malformed())?;
        return Ok(Number::Float {
            bits: v.to_bits(),
            double: true,
        });
    }
    Ok(Number::Int(int_value(text)? as i64))
}
