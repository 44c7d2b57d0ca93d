//! Parser for both corpus forms of an AXB test.
//!
//! Instruction form (`<id>.txt`):
//! ```text
//! THREAD0
//! atomic_exch_branch(0,1,0,0)      // (loc, chk, exch, tgt)
//! atomic_chk_branch(0,0,END)       // (loc, chk, tgt)
//! atomic_store(0,1)                // (loc, val)
//! ```
//! Pseudo-code form (`<id>_simple.txt`):
//! ```text
//! THREAD 0
//! 0: if (Exch(Mem[0],0) == 1) goto 0;
//! 1: if (Mem[0] == 0) goto END;
//! 2: Mem[0] = 1;
//! ```
//! Blank lines, spaces and `\r` are ignored; both forms may be mixed. Every
//! error carries `line:col` (1-based).

use super::ast::{Axb, Test, MAX_INSTRS, MAX_LOCS, MAX_THREADS};
use crate::diag::{Error, Result};
use crate::ir::Pos;
use std::path::Path;

/// Parses a test from text.
pub fn parse(text: &str) -> Result<Test> {
    Parser::default().run(text)
}

/// Reads and parses a test file; errors carry the file name.
pub fn parse_file(path: &Path) -> Result<Test> {
    let text = crate::diag::read_text(path)?;
    parse(&text).map_err(|e| e.in_file(path))
}

/// A target as written, checked once the thread's length is known.
struct PendingTarget {
    thread: usize,
    index: usize,
    value: Option<u32>, // None = END
    pos: Pos,
}

#[derive(Default)]
struct Parser {
    threads: Vec<Vec<Axb>>,
    headers: Vec<Pos>,
    pending: Vec<PendingTarget>,
}

impl Parser {
    fn run(mut self, text: &str) -> Result<Test> {
        let mut last_line = 1;
        for (n, raw) in text.split('\n').enumerate() {
            let line_no = n as u32 + 1;
            last_line = line_no;
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let mut cur = Cursor::new(line, line_no);
            cur.skip_ws();
            if cur.at_end() {
                continue;
            }
            if cur.rest().starts_with("THREAD") {
                self.header(&mut cur)?;
            } else {
                self.instruction(&mut cur)?;
            }
            cur.skip_ws();
            if !cur.at_end() {
                return Err(Error::syntax(
                    cur.pos(),
                    format!("unexpected `{}`", cur.rest()),
                ));
            }
        }
        if self.threads.is_empty() {
            return Err(Error::syntax(
                Pos {
                    line: last_line,
                    col: 1,
                },
                "no `THREAD` block: not a progress test",
            ));
        }
        for (t, thread) in self.threads.iter().enumerate() {
            if thread.is_empty() {
                return Err(Error::syntax(
                    self.headers[t],
                    format!("thread {t} has no instructions"),
                ));
            }
        }
        for p in &self.pending {
            let len = self.threads[p.thread].len();
            let target = match p.value {
                None => len,
                Some(v) if (v as usize) <= len => v as usize,
                Some(v) => {
                    return Err(Error::syntax(
                        p.pos,
                        format!(
                            "branch target {v} is out of range: thread {} has {len} instruction(s) \
                             (use END to terminate)",
                            p.thread
                        ),
                    ))
                }
            };
            self.threads[p.thread][p.index].target = target as u8;
        }
        Ok(Test {
            threads: self.threads,
        })
    }

    fn header(&mut self, cur: &mut Cursor) -> Result<()> {
        let pos = cur.pos();
        cur.expect("THREAD")?;
        cur.skip_ws();
        let id_pos = cur.pos();
        let id = cur.number()?;
        if id as usize != self.threads.len() {
            return Err(Error::syntax(
                id_pos,
                format!("expected THREAD {}, found THREAD {id}", self.threads.len()),
            ));
        }
        if self.threads.len() >= MAX_THREADS {
            return Err(Error::unsupported(
                pos,
                format!("more than {MAX_THREADS} threads"),
            ));
        }
        self.threads.push(Vec::new());
        self.headers.push(pos);
        Ok(())
    }

    fn instruction(&mut self, cur: &mut Cursor) -> Result<()> {
        let pos = cur.pos();
        let Some(thread) = self.threads.len().checked_sub(1) else {
            return Err(Error::syntax(
                pos,
                "instruction before the first `THREAD` header",
            ));
        };
        let index = self.threads[thread].len();
        if index >= MAX_INSTRS {
            return Err(Error::unsupported(
                pos,
                format!("more than {MAX_INSTRS} instructions in one thread"),
            ));
        }
        let starts_with_digit = cur.peek().is_some_and(|c| c.is_ascii_digit());
        let (ins, target) = if starts_with_digit {
            simple_instruction(cur, index)?
        } else {
            txt_instruction(cur, index)?
        };
        if let Some((value, tpos)) = target {
            self.pending.push(PendingTarget {
                thread,
                index,
                value,
                pos: tpos,
            });
        }
        self.threads[thread].push(ins);
        Ok(())
    }
}

/// A target still to be resolved: `None` = END, with its position.
type Target = Option<(Option<u32>, Pos)>;

/// `atomic_store(l,v)`, `atomic_chk_branch(l,c,t)`, `atomic_exch_branch(l,c,x,t)`.
fn txt_instruction(cur: &mut Cursor, index: usize) -> Result<(Axb, Target)> {
    let pos = cur.pos();
    let word = cur.word();
    match word {
        "atomic_store" => {
            cur.punct("(")?;
            let loc = cur.loc()?;
            cur.punct(",")?;
            let val = cur.value()?;
            cur.punct(")")?;
            Ok((Axb::store(index, loc, val), None))
        }
        "atomic_chk_branch" => {
            cur.punct("(")?;
            let loc = cur.loc()?;
            cur.punct(",")?;
            let check = cur.value()?;
            cur.punct(",")?;
            let target = cur.target()?;
            cur.punct(")")?;
            let ins = Axb {
                loc,
                check,
                exch: None,
                target: 0,
            };
            Ok((ins, Some(target)))
        }
        "atomic_exch_branch" => {
            cur.punct("(")?;
            let loc = cur.loc()?;
            cur.punct(",")?;
            let check = cur.value()?;
            cur.punct(",")?;
            let exch = cur.value()?;
            cur.punct(",")?;
            let target = cur.target()?;
            cur.punct(")")?;
            let ins = Axb {
                loc,
                check,
                exch: Some(exch),
                target: 0,
            };
            Ok((ins, Some(target)))
        }
        "" => Err(Error::syntax(
            pos,
            format!("expected an instruction, found `{}`", cur.rest()),
        )),
        other => Err(Error::syntax(
            pos,
            format!(
                "unknown instruction `{other}` (expected atomic_store, atomic_chk_branch or \
                 atomic_exch_branch)"
            ),
        )),
    }
}

/// `i: Mem[l] = v;`, `i: if (Mem[l] == c) goto t;`,
/// `i: if (Exch(Mem[l],x) == c) goto t;`.
fn simple_instruction(cur: &mut Cursor, index: usize) -> Result<(Axb, Target)> {
    let idx_pos = cur.pos();
    let idx = cur.number()?;
    if idx as usize != index {
        return Err(Error::syntax(
            idx_pos,
            format!("expected instruction label {index}, found {idx}"),
        ));
    }
    cur.punct(":")?;
    cur.skip_ws();
    let pos = cur.pos();
    match cur.word() {
        "Mem" => {
            let loc = mem_ref_tail(cur)?;
            cur.punct("=")?;
            let val = cur.value()?;
            cur.punct(";")?;
            Ok((Axb::store(index, loc, val), None))
        }
        "if" => {
            cur.punct("(")?;
            cur.skip_ws();
            let wpos = cur.pos();
            let (loc, exch) = match cur.word() {
                "Mem" => (mem_ref_tail(cur)?, None),
                "Exch" => {
                    cur.punct("(")?;
                    cur.skip_ws();
                    cur.keyword("Mem")?;
                    let loc = mem_ref_tail(cur)?;
                    cur.punct(",")?;
                    let exch = cur.value()?;
                    cur.punct(")")?;
                    (loc, Some(exch))
                }
                _ => {
                    return Err(Error::syntax(
                        wpos,
                        "expected `Mem[...]` or `Exch(Mem[...],...)`",
                    ))
                }
            };
            cur.punct("==")?;
            let check = cur.value()?;
            cur.punct(")")?;
            cur.skip_ws();
            cur.keyword("goto")?;
            let target = cur.target()?;
            cur.punct(";")?;
            let ins = Axb {
                loc,
                check,
                exch,
                target: 0,
            };
            Ok((ins, Some(target)))
        }
        _ => Err(Error::syntax(
            pos,
            "expected `Mem[...] = ...;` or `if (...) goto ...;`",
        )),
    }
}

/// `[l]` after `Mem`.
fn mem_ref_tail(cur: &mut Cursor) -> Result<u8> {
    cur.punct("[")?;
    let loc = cur.loc()?;
    cur.punct("]")?;
    Ok(loc)
}

/// A position-tracking cursor over one line.
struct Cursor<'a> {
    line: &'a str,
    off: usize,
    line_no: u32,
}

impl<'a> Cursor<'a> {
    fn new(line: &'a str, line_no: u32) -> Self {
        Cursor {
            line,
            off: 0,
            line_no,
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line_no,
            col: self.line[..self.off].chars().count() as u32 + 1,
        }
    }

    fn rest(&self) -> &'a str {
        &self.line[self.off..]
    }

    fn at_end(&self) -> bool {
        self.off >= self.line.len()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' {
                self.off += 1;
            } else {
                break;
            }
        }
    }

    /// An identifier (ASCII letters, digits, `_`), possibly empty.
    fn word(&mut self) -> &'a str {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        self.off += len;
        &rest[..len]
    }

    fn describe_next(&self) -> String {
        match self.peek() {
            None => "end of line".to_string(),
            Some(_) => {
                let snippet: String = self.rest().chars().take(12).collect();
                format!("`{snippet}`")
            }
        }
    }

    fn expect(&mut self, s: &str) -> Result<()> {
        if self.rest().starts_with(s) {
            self.off += s.len();
            Ok(())
        } else {
            Err(Error::syntax(
                self.pos(),
                format!("expected `{s}`, found {}", self.describe_next()),
            ))
        }
    }

    /// Punctuation, after optional blanks.
    fn punct(&mut self, s: &str) -> Result<()> {
        self.skip_ws();
        self.expect(s)
    }

    /// A whole keyword (not the prefix of a longer word).
    fn keyword(&mut self, s: &str) -> Result<()> {
        let pos = self.pos();
        let save = self.off;
        let w = self.word();
        if w == s {
            Ok(())
        } else {
            self.off = save;
            Err(Error::syntax(
                pos,
                format!("expected `{s}`, found {}", self.describe_next()),
            ))
        }
    }

    /// A decimal number, after optional blanks.
    fn number(&mut self) -> Result<u32> {
        self.skip_ws();
        let pos = self.pos();
        let rest = self.rest();
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(Error::syntax(
                pos,
                format!("expected a number, found {}", self.describe_next()),
            ));
        }
        let n = rest[..len]
            .parse::<u32>()
            .map_err(|_| Error::syntax(pos, format!("number `{}` is too large", &rest[..len])))?;
        self.off += len;
        Ok(n)
    }

    fn loc(&mut self) -> Result<u8> {
        self.skip_ws();
        let pos = self.pos();
        let n = self.number()?;
        if n as usize >= MAX_LOCS {
            return Err(Error::unsupported(
                pos,
                format!("location {n} (locations are 0..{})", MAX_LOCS - 1),
            ));
        }
        Ok(n as u8)
    }

    fn value(&mut self) -> Result<u8> {
        self.skip_ws();
        let pos = self.pos();
        let n = self.number()?;
        u8::try_from(n)
            .map_err(|_| Error::unsupported(pos, format!("value {n} (values are 0..255)")))
    }

    /// A branch target: a number or `END`.
    fn target(&mut self) -> Result<(Option<u32>, Pos)> {
        self.skip_ws();
        let pos = self.pos();
        if self.peek().is_some_and(|c| c.is_ascii_digit()) {
            Ok((Some(self.number()?), pos))
        } else {
            self.keyword("END").map_err(|_| {
                Error::syntax(
                    pos,
                    format!(
                        "expected a branch target (number or END), found {}",
                        self.describe_next()
                    ),
                )
            })?;
            Ok((None, pos))
        }
    }
}
