//! A structural checker for the PTX this generator writes (no ptxas
//! needed): the module header, one entry with the seven `.u64` buffer
//! parameters of `abi`, balanced braces, every register declared once and
//! declared before the body, every register and branch target used
//! defined, predicates guarding with `.pred` registers, global accesses
//! through 64-bit addresses, every statement closed by `;`, and `ret` at
//! the end. Tests run it on every emitted kernel; it is public so a later
//! stage (the lowering's corpus test) can use it too.

use crate::abi::BUFFERS;
use std::collections::{HashMap, HashSet};

/// PTX special registers the generator may read.
const SPECIAL: [&str; 6] = ["tid", "ntid", "ctaid", "nctaid", "laneid", "warpid"];

/// The problems found in `text`, each with its 1-based line number; empty
/// when the kernel passes.
pub fn check(text: &str) -> Vec<String> {
    let mut c = Checker::default();
    for (n, line) in text.lines().enumerate() {
        c.line(n + 1, line);
    }
    c.finish()
}

#[derive(Default)]
struct Checker {
    problems: Vec<String>,
    header: Vec<&'static str>,
    entries: usize,
    params: Vec<String>,
    in_params: bool,
    depth: i32,
    regs: HashMap<String, String>,
    shared_vars: HashSet<String>,
    labels: HashSet<String>,
    branches: Vec<(usize, String)>,
    uses: Vec<(usize, String)>,
    preds_used: Vec<(usize, String)>,
    global_addrs: Vec<(usize, String)>,
    body_started: bool,
    last_instruction: String,
}

impl Checker {
    fn problem(&mut self, n: usize, what: impl AsRef<str>) {
        self.problems.push(format!("line {n}: {}", what.as_ref()));
    }

    fn line(&mut self, n: usize, raw: &str) {
        let line = match raw.find("//") {
            Some(k) => &raw[..k],
            None => raw,
        }
        .trim();
        if line.is_empty() {
            return;
        }
        for ch in line.chars() {
            match ch {
                '{' => self.depth += 1,
                '}' => {
                    self.depth -= 1;
                    if self.depth < 0 {
                        self.problem(n, "'}' without '{'");
                        self.depth = 0;
                    }
                }
                _ => {}
            }
        }
        if line == "{" || line == "}" {
            return;
        }
        if self.depth == 0 {
            self.top_level(n, line);
            return;
        }
        if let Some(label) = line.strip_suffix(':') {
            if !is_identifier(label) {
                self.problem(n, format!("bad label {label:?}"));
            } else if !self.labels.insert(label.to_string()) {
                self.problem(n, format!("label {label} defined twice"));
            }
            self.body_started = true;
            return;
        }
        let Some(statement) = line.strip_suffix(';') else {
            self.problem(n, format!("statement without ';': {line}"));
            return;
        };
        if let Some(decl) = statement.strip_prefix(".reg ") {
            if self.body_started {
                self.problem(n, "register declared after the first instruction");
            }
            self.declare(n, decl);
            return;
        }
        if let Some(decl) = statement.strip_prefix(".shared ") {
            let name = decl.split_whitespace().last().unwrap_or("");
            let name = name.split('[').next().unwrap_or("");
            self.shared_vars.insert(name.to_string());
            return;
        }
        self.body_started = true;
        self.instruction(n, statement);
    }

    fn top_level(&mut self, n: usize, line: &str) {
        if self.in_params {
            if line == ")" {
                self.in_params = false;
                return;
            }
            let decl = line.trim_end_matches(',');
            match decl.strip_prefix(".param .u64 ") {
                Some(name) if is_identifier(name) => self.params.push(name.to_string()),
                _ => self.problem(n, format!("parameter is not '.param .u64 NAME': {line}")),
            }
            return;
        }
        let directive = line.split_whitespace().next().unwrap_or("");
        match directive {
            ".version" | ".target" | ".address_size" => {
                let expected = [".version", ".target", ".address_size"];
                let at = self.header.len();
                if expected.get(at) != Some(&directive) {
                    self.problem(n, format!("{directive} out of order"));
                }
                self.header.push(match directive {
                    ".version" => ".version",
                    ".target" => ".target",
                    _ => ".address_size",
                });
                if directive == ".address_size" && line != ".address_size 64" {
                    self.problem(n, "not .address_size 64");
                }
            }
            ".visible" => {
                let Some(rest) = line.strip_prefix(".visible .entry ") else {
                    self.problem(n, format!("not an entry: {line}"));
                    return;
                };
                let name = rest.trim_end_matches('(');
                if !is_identifier(name) || !rest.ends_with('(') {
                    self.problem(n, format!("bad entry declaration: {line}"));
                }
                if self.header.len() != 3 {
                    self.problem(n, "entry before .version/.target/.address_size");
                }
                self.entries += 1;
                self.in_params = true;
            }
            _ => self.problem(n, format!("unexpected top-level line: {line}")),
        }
    }

    fn declare(&mut self, n: usize, decl: &str) {
        let mut parts = decl.splitn(2, ' ');
        let ty = parts.next().unwrap_or("").to_string();
        if ![".pred", ".b32", ".b64", ".u32", ".u64", ".s32"].contains(&ty.as_str()) {
            self.problem(n, format!("unknown register type {ty}"));
        }
        for name in parts.next().unwrap_or("").split(',') {
            let name = name.trim();
            let Some(id) = name.strip_prefix('%') else {
                self.problem(n, format!("register name without '%': {name}"));
                continue;
            };
            if !is_identifier(id) {
                self.problem(n, format!("bad register name {name}"));
            } else if SPECIAL.contains(&id) {
                self.problem(n, format!("register {name} shadows the special register"));
            } else if self.regs.insert(name.to_string(), ty.clone()).is_some() {
                self.problem(n, format!("register {name} declared twice"));
            }
        }
    }

    fn instruction(&mut self, n: usize, statement: &str) {
        let mut rest = statement;
        if let Some(guarded) = rest.strip_prefix('@') {
            let (guard, tail) = guarded.split_once(' ').unwrap_or((guarded, ""));
            self.preds_used
                .push((n, guard.trim_start_matches('!').to_string()));
            rest = tail.trim();
        }
        let (opcode, operands) = rest.split_once(' ').unwrap_or((rest, ""));
        if opcode.is_empty()
            || !opcode
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase())
        {
            self.problem(n, format!("bad opcode in: {statement}"));
        }
        self.last_instruction = opcode.to_string();
        if opcode == "bra" || opcode == "bra.uni" {
            self.branches.push((n, operands.trim().to_string()));
            return;
        }
        if opcode.starts_with("setp") {
            if let Some(dst) = operands.split(',').next() {
                self.preds_used.push((n, dst.trim().to_string()));
            }
        }
        if opcode == "ld.param.u64" {
            if let Some(name) = between(operands, '[', ']') {
                if !self.params.iter().any(|p| p == name) {
                    self.problem(n, format!("ld.param of unknown parameter {name}"));
                }
            }
            self.collect_registers(n, operands.split(',').next().unwrap_or(""));
            return;
        }
        if opcode.starts_with("mov") {
            if let Some(src) = operands.split(',').nth(1) {
                let src = src.trim();
                if is_identifier(src) && !self.shared_vars.contains(src) {
                    self.problem(n, format!("mov of unknown variable {src}"));
                }
            }
        }
        let is_memory = ["ld.", "st.", "atom.", "red."]
            .iter()
            .any(|p| opcode.starts_with(p));
        if is_memory && opcode.split('.').any(|q| q == "global") {
            if let Some(addr) = between(operands, '[', ']') {
                let reg = addr.split('+').next().unwrap_or("").trim();
                self.global_addrs.push((n, reg.to_string()));
            }
        }
        self.collect_registers(n, operands);
    }

    fn collect_registers(&mut self, n: usize, operands: &str) {
        let bytes: Vec<char> = operands.chars().collect();
        let mut k = 0;
        while k < bytes.len() {
            if bytes[k] == '%' {
                let start = k + 1;
                let mut end = start;
                while end < bytes.len()
                    && (bytes[end].is_ascii_alphanumeric()
                        || bytes[end] == '_'
                        || bytes[end] == '$')
                {
                    end += 1;
                }
                let name: String = bytes[start..end].iter().collect();
                let special = SPECIAL.contains(&name.as_str()) && bytes.get(end) == Some(&'.');
                if !special {
                    self.uses.push((n, format!("%{name}")));
                }
                k = end;
            } else {
                k += 1;
            }
        }
    }

    fn finish(mut self) -> Vec<String> {
        if self.depth != 0 {
            self.problems.push(format!(
                "unbalanced braces (depth {} at the end)",
                self.depth
            ));
        }
        if self.header.len() != 3 {
            self.problems
                .push("missing .version, .target or .address_size".into());
        }
        if self.entries != 1 {
            self.problems
                .push(format!("{} entries; expected 1", self.entries));
        }
        if self.params.len() != BUFFERS as usize {
            self.problems.push(format!(
                "{} parameters; abi has {} buffers",
                self.params.len(),
                BUFFERS
            ));
        }
        let distinct: HashSet<_> = self.params.iter().collect();
        if distinct.len() != self.params.len() {
            self.problems.push("duplicate parameter names".into());
        }
        if self.last_instruction != "ret" {
            self.problems.push(format!(
                "last instruction is {:?}, not ret",
                self.last_instruction
            ));
        }
        for (n, target) in std::mem::take(&mut self.branches) {
            if !self.labels.contains(&target) {
                self.problem(n, format!("branch to undefined label {target}"));
            }
        }
        for (n, reg) in std::mem::take(&mut self.uses) {
            if !self.regs.contains_key(&reg) {
                self.problem(n, format!("register {reg} is not declared"));
            }
        }
        for (n, reg) in std::mem::take(&mut self.preds_used) {
            match self.regs.get(&reg).map(String::as_str) {
                Some(".pred") => {}
                Some(ty) => {
                    let ty = ty.to_string();
                    self.problem(n, format!("{reg} is {ty}, used as a predicate"));
                }
                None => self.problem(n, format!("predicate {reg} is not declared")),
            }
        }
        for (n, reg) in std::mem::take(&mut self.global_addrs) {
            match self.regs.get(&reg).map(String::as_str) {
                Some(".b64" | ".u64") => {}
                other => {
                    let other = other.unwrap_or("undeclared").to_string();
                    self.problem(n, format!("global address {reg} is {other}, not 64-bit"));
                }
            }
        }
        self.problems
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn between(s: &str, open: char, close: char) -> Option<&str> {
    let start = s.find(open)? + 1;
    let end = start + s[start..].find(close)?;
    Some(&s[start..end])
}

#[cfg(test)]
mod tests {
    use super::check;

    const GOOD: &str = "\
.version 6.0
.target sm_70
.address_size 64

.visible .entry k(
\t.param .u64 a,
\t.param .u64 b,
\t.param .u64 c,
\t.param .u64 d,
\t.param .u64 e,
\t.param .u64 f,
\t.param .u64 g
)
{
\t.reg .pred %p;
\t.reg .b32 %r;
\t.reg .b64 %m;
\tld.param.u64 %m, [a];
\tmov.u32 %r, %tid.x;
\tsetp.eq.u32 %p, %r, 0;
\t@%p bra $done;
\tst.global.u32 [%m+4], %r;
$done:
\tret;
}
";

    #[test]
    fn a_well_formed_kernel_passes() {
        assert_eq!(check(GOOD), Vec::<String>::new());
    }

    fn breaks(from: &str, to: &str, expect: &str) {
        let bad = GOOD.replacen(from, to, 1);
        assert_ne!(bad, GOOD, "{from} not in the sample");
        let problems = check(&bad);
        assert!(
            problems.iter().any(|p| p.contains(expect)),
            "replacing {from:?} by {to:?}: expected {expect:?} in {problems:?}"
        );
    }

    #[test]
    fn each_kind_of_defect_is_reported() {
        breaks("\t.reg .b32 %r;\n", "", "register %r is not declared");
        breaks(
            "@%p bra $done",
            "@%p bra $elsewhere",
            "undefined label $elsewhere",
        );
        breaks("\tret;\n}\n", "\tret;\n", "unbalanced braces");
        breaks("\t.param .u64 g\n", "", "6 parameters");
        breaks("st.global.u32 [%m+4]", "st.global.u32 [%r+4]", "not 64-bit");
        breaks("@%p bra", "@%r bra", "used as a predicate");
        breaks("\tret;\n", "\tret\n", "without ';'");
        breaks("\tret;\n", "", "not ret");
        breaks(".address_size 64\n", "", "missing .version");
        breaks("[a]", "[zz]", "unknown parameter zz");
        breaks(
            "\t.reg .b64 %m;\n",
            "\t.reg .b64 %m;\n\t.reg .b32 %r;\n",
            "declared twice",
        );
        breaks("$done:\n", "$done:\n$done:\n", "defined twice");
        breaks(
            ".reg .b32 %r;",
            ".reg .b32 %r, %tid;",
            "shadows the special register",
        );
        breaks(
            "\tret;\n",
            "\t.reg .b32 %late;\n\tret;\n",
            "after the first instruction",
        );
    }
}
