//! Litmus printers: an `ir::Program` of the PTX or the Vulkan architecture
//! back to the Dat3M litmus dialect our front-end reads
//! (`crates/frontend/src/litmus/`), instruction mnemonics recovered from
//! the tags (`docs/EVENTS.md`).
//!
//! [`litmus`] checks its own output: the printed text is parsed again and
//! must give an [`equivalent`] program (same instructions, tags, halves,
//! locations, placement, conditions), so a program the dialect cannot
//! express (a GPU_PTX warp, a cache operator, a SPIR-V run-time address)
//! is refused with its position rather than printed wrongly.

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::{
    Addr, Arch, BinOp, CmpOp, Cond, Instr, InstrKind, Operand, Program, Quantifier, RmwOp, Term,
};
use std::collections::BTreeSet;
use std::path::Path;

/// The litmus text of `p` (PTX or Vulkan), with `comments` as the quoted
/// comment lines after the header. The text parses with our front-end to
/// a program [`equivalent`] to `p`; anything the dialect cannot express is
/// an `unsupported` error at the instruction's position.
pub fn litmus(p: &Program, comments: &[String]) -> Result<String> {
    let text = render(p, comments)?;
    let back = gpumc_frontend::litmus::parse(&text, Path::new("<printed>")).map_err(|e| {
        Error::new(
            ErrorKind::Unsupported,
            format!("unsupported: the printed litmus test does not parse again ({e})"),
        )
    })?;
    if let Some(diff) = difference(p, &back) {
        return Err(diff);
    }
    Ok(text)
}

/// Whether `a` and `b` are the same program up to source positions,
/// instruction texts and the order of tags: `None` if so, else the first
/// difference as an `unsupported` error (at the instruction's position in
/// `a` when it is an instruction).
pub fn difference(a: &Program, b: &Program) -> Option<Error> {
    let plain = |what: String| {
        Some(Error::new(
            ErrorKind::Unsupported,
            format!("unsupported: {what} cannot be printed faithfully in the litmus dialect"),
        ))
    };
    if a.arch != b.arch {
        return plain("the architecture".into());
    }
    if a.locations != b.locations {
        return plain("the locations (aliases, proxies or free initial values)".into());
    }
    if a.ssw != b.ssw {
        return plain("the ssw pairs".into());
    }
    if a.filter != b.filter || a.assertion != b.assertion || a.observed != b.observed {
        return plain("the final condition".into());
    }
    if !a.inputs.is_empty() || !b.inputs.is_empty() {
        return plain("free program inputs".into());
    }
    if a.threads.len() != b.threads.len() {
        return plain("the thread count".into());
    }
    for (ta, tb) in a.threads.iter().zip(&b.threads) {
        if ta.placement != tb.placement {
            return plain(format!("the placement of {}", ta.name));
        }
        let mut ra = ta.init_regs.clone();
        let mut rb = tb.init_regs.clone();
        ra.sort();
        rb.sort();
        if ra != rb {
            return plain(format!("the initial registers of {}", ta.name));
        }
        for (k, ia) in ta.instrs.iter().enumerate() {
            let same = tb.instrs.get(k).is_some_and(|ib| same_instr(ia, ib));
            if !same {
                return Some(Error::unsupported(
                    ia.pos,
                    format!(
                        "{} instruction `{}` ({}) cannot be printed faithfully in the {} litmus dialect",
                        ta.name,
                        ia.text,
                        describe_tags(ia),
                        dialect(a.arch)
                    ),
                ));
            }
        }
        if tb.instrs.len() != ta.instrs.len() {
            return plain(format!("the instructions of {}", ta.name));
        }
    }
    None
}

fn describe_tags(i: &Instr) -> String {
    let mut s = format!("tags {}", i.tags.join(","));
    if !i.halves.read.is_empty() || !i.halves.write.is_empty() {
        s += &format!(
            "; read {}; write {}",
            i.halves.read.join(","),
            i.halves.write.join(",")
        );
    }
    s
}

fn set(v: &[String]) -> BTreeSet<&str> {
    v.iter().map(String::as_str).collect()
}

fn same_instr(a: &Instr, b: &Instr) -> bool {
    a.kind == b.kind
        && set(&a.tags) == set(&b.tags)
        && set(&a.halves.read) == set(&b.halves.read)
        && set(&a.halves.write) == set(&b.halves.write)
}

fn dialect(arch: Arch) -> &'static str {
    match arch {
        Arch::Ptx => "PTX",
        Arch::Vulkan => "Vulkan",
        Arch::C => "C",
    }
}

/// Is `s` a litmus register name (`r` and digits)?
pub fn is_register(s: &str) -> bool {
    s.len() > 1 && s.starts_with('r') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Is `s` an identifier (letter or `_`, then letters, digits, `_`)?
pub fn is_ident(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Words the litmus front-end reads specially where a location name could
/// stand.
const RESERVED: &[&str] = &[
    "exists",
    "forall",
    "filter",
    "locations",
    "not",
    "true",
    "false",
    "aliases",
    "ssw",
];

fn err_at(i: &Instr, msg: String) -> Error {
    Error::unsupported(i.pos, msg)
}

fn operand(i: &Instr, o: &Operand) -> Result<String> {
    match o {
        Operand::Const(c) => Ok(c.to_string()),
        Operand::Reg(r) if is_register(r) => Ok(r.clone()),
        Operand::Reg(r) => Err(err_at(
            i,
            format!("register name `{r}` in a litmus test (registers are `r0`, `r1`, …)"),
        )),
    }
}

fn reg(i: &Instr, r: &str) -> Result<String> {
    operand(i, &Operand::Reg(r.to_string()))
}

fn label(i: &Instr, l: &str) -> Result<String> {
    if is_ident(l) && !is_register(l) {
        Ok(l.to_string())
    } else {
        Err(err_at(i, format!("label `{l}` in a litmus test")))
    }
}

fn loc(p: &Program, i: &Instr, a: &Addr) -> Result<String> {
    match a {
        Addr::Fixed(l) => Ok(p.locations[*l].name.clone()),
        Addr::Indexed(x) => Err(err_at(
            i,
            format!("a run-time address (`{}`) in a litmus test", x.array),
        )),
        Addr::Region(_) => Err(err_at(
            i,
            "an access into memory of unknown size in a litmus test".into(),
        )),
    }
}

fn has(i: &Instr, t: &str) -> bool {
    i.tags.iter().any(|x| x == t)
}

fn half(v: &[String], t: &str) -> bool {
    v.iter().any(|x| x == t)
}

fn rmw_op_name(op: &RmwOp) -> &'static str {
    match op {
        RmwOp::Exch => "exch",
        RmwOp::Add => "add",
        RmwOp::Sub => "sub",
        RmwOp::And => "and",
        RmwOp::Or => "or",
        RmwOp::Xor => "xor",
        RmwOp::Min => "min",
        RmwOp::Max => "max",
        // No litmus dialect spells these: the printed test fails the
        // printer's re-parse check, which refuses it.
        RmwOp::UMin => "umin",
        RmwOp::UMax => "umax",
        RmwOp::Inc => "inc",
        RmwOp::Dec => "dec",
        RmwOp::Cas { .. } => "cas",
    }
}

/// The operands of an RMW after its mnemonic: `r, x, v` / `r, x, e, v`
/// (`x, v` without a destination).
fn rmw_operands(p: &Program, i: &Instr) -> Result<String> {
    let InstrKind::Rmw {
        dst,
        addr,
        op,
        operand: v,
    } = &i.kind
    else {
        unreachable!("rmw_operands of a non-RMW");
    };
    let mut parts = Vec::new();
    if let Some(d) = dst {
        parts.push(reg(i, d)?);
    }
    parts.push(loc(p, i, addr)?);
    if let RmwOp::Cas { expected } = op {
        parts.push(operand(i, expected)?);
    }
    parts.push(operand(i, v)?);
    Ok(parts.join(", "))
}

/// The text of one instruction of `p` (PTX or Vulkan), from its kind and
/// tags. Labels print as `L:`.
pub fn instr_text(p: &Program, i: &Instr) -> Result<String> {
    match &i.kind {
        InstrKind::Label(l) => return Ok(format!("{}:", label(i, l)?)),
        InstrKind::Local { dst, op, a, b } => {
            let d = reg(i, dst)?;
            if *op == BinOp::Add && *b == Operand::Const(0) {
                return Ok(format!("mov {d}, {}", operand(i, a)?));
            }
            let m = match op {
                BinOp::Add => "add",
                BinOp::Sub => "sub",
                BinOp::Mul => "mul",
                BinOp::Div => "div",
                BinOp::Rem => "rem",
                BinOp::And => "and",
                BinOp::Or => "or",
                BinOp::Xor => "xor",
                BinOp::Shl => "shl",
                BinOp::Shr => "shr",
                other => {
                    return Err(err_at(
                        i,
                        format!("the register operation {other:?} in a litmus test"),
                    ))
                }
            };
            return Ok(format!("{m} {d}, {}, {}", operand(i, a)?, operand(i, b)?));
        }
        InstrKind::Branch { op, a, b, target } => {
            let m = match op {
                CmpOp::Eq => "beq",
                CmpOp::Ne => "bne",
                CmpOp::Lt => "blt",
                CmpOp::Le => "ble",
                CmpOp::Gt => "bgt",
                CmpOp::Ge => "bge",
            };
            return Ok(format!(
                "{m} {}, {}, {}",
                operand(i, a)?,
                operand(i, b)?,
                label(i, target)?
            ));
        }
        InstrKind::Goto(l) => return Ok(format!("goto {}", label(i, l)?)),
        InstrKind::Havoc { .. }
        | InstrKind::Input { .. }
        | InstrKind::Unreachable { .. }
        | InstrKind::Infeasible => {
            return Err(err_at(
                i,
                format!(
                    "`{}` (a free value or unreachable code) in a litmus test",
                    i.text
                ),
            ))
        }
        _ => {}
    }
    match p.arch {
        Arch::Ptx => ptx_text(p, i),
        Arch::Vulkan => vulkan_text(p, i),
        Arch::C => Err(err_at(
            i,
            "printing a C program (compile it to PTX or Vulkan first)".into(),
        )),
    }
}

fn ptx_scope(i: &Instr) -> Option<&'static str> {
    ["CTA", "GPU", "SYS"]
        .into_iter()
        .zip(["cta", "gpu", "sys"])
        .find(|(t, _)| has(i, t))
        .map(|(_, s)| s)
}

fn ptx_text(p: &Program, i: &Instr) -> Result<String> {
    let scope = ptx_scope(i);
    let scoped = |m: &str| match scope {
        Some(s) => format!("{m}.{s}"),
        None => m.to_string(),
    };
    let access_order = || {
        if has(i, "ACQ") {
            "acquire"
        } else if has(i, "REL") {
            "release"
        } else if has(i, "RLX") {
            "relaxed"
        } else {
            "weak"
        }
    };
    let proxy = ["SUR", "TEX", "CON"].into_iter().find(|t| has(i, t));
    Ok(match &i.kind {
        InstrKind::Load { dst, addr } => {
            let m = match proxy {
                Some("SUR") => "suld.weak".to_string(),
                Some("TEX") => "tld.weak".to_string(),
                Some(_) => "cold.weak".to_string(),
                None => scoped(&format!("ld.{}", access_order())),
            };
            format!("{m} {}, {}", reg(i, dst)?, loc(p, i, addr)?)
        }
        InstrKind::Store { addr, value } => {
            let m = match proxy {
                Some(_) => "sust.weak".to_string(),
                None => scoped(&format!("st.{}", access_order())),
            };
            format!("{m} {}, {}", loc(p, i, addr)?, operand(i, value)?)
        }
        InstrKind::Rmw { dst, op, .. } => {
            let acq = half(&i.halves.read, "ACQ");
            let rel = half(&i.halves.write, "REL");
            let order = match (acq, rel) {
                (true, true) => "acq_rel",
                (true, false) => "acquire",
                (false, true) => "release",
                (false, false) => "relaxed",
            };
            let head = if dst.is_some() { "atom" } else { "red" };
            format!(
                "{}.{} {}",
                scoped(&format!("{head}.{order}")),
                rmw_op_name(op),
                rmw_operands(p, i)?
            )
        }
        InstrKind::Fence => {
            if has(i, "ALIAS") {
                "fence.proxy.alias".to_string()
            } else if has(i, "PROXY") {
                match proxy {
                    Some("SUR") => "fence.proxy.surface".to_string(),
                    Some("TEX") => "fence.proxy.texture".to_string(),
                    _ => "fence.proxy.constant".to_string(),
                }
            } else if has(i, "SC") {
                scoped("fence.sc")
            } else {
                scoped("fence.acq_rel")
            }
        }
        InstrKind::Barrier { id, count, arrive } => {
            let m = if *arrive {
                "bar.cta.arrive"
            } else {
                "bar.cta.sync"
            };
            match count {
                None => format!("{m} {}", operand(i, id)?),
                Some(c) => format!("{m} 0, {}, {}", operand(i, id)?, operand(i, c)?),
            }
        }
        _ => unreachable!("handled by instr_text"),
    })
}

/// Vulkan flags in the corpus's order: `atom`, order, `av`/`vis`/`nonpriv`,
/// scope, storage class, storage-class semantics, `semav`, `semvis`.
fn vulkan_text(p: &Program, i: &Instr) -> Result<String> {
    let t = |x: &str| has(i, x);
    let r = |x: &str| half(&i.halves.read, x);
    let w = |x: &str| half(&i.halves.write, x);
    let any = |x: &str| t(x) || r(x) || w(x);
    let mut flags: Vec<String> = Vec::new();
    let atom = t("ATOM");
    let is_rmw = matches!(i.kind, InstrKind::Rmw { .. });
    if atom {
        flags.push("atom".into());
    }
    let (acq, rel) = if is_rmw {
        (r("ACQ"), w("REL"))
    } else {
        (t("ACQ"), t("REL"))
    };
    match (acq, rel) {
        (true, true) => flags.push("acq_rel".into()),
        (true, false) => flags.push("acq".into()),
        (false, true) => flags.push("rel".into()),
        (false, false) => {}
    }
    let is_access = matches!(
        i.kind,
        InstrKind::Load { .. } | InstrKind::Store { .. } | InstrKind::Rmw { .. }
    );
    // Atomics are implicitly available / visible (tagging.rs).
    let av = t("AV") && !(atom && is_access);
    let vis = t("VIS") && !(atom && is_access);
    if av {
        flags.push("av".into());
    }
    if vis {
        flags.push("vis".into());
    }
    if t("NONPRIV") && !atom && !av && !vis {
        flags.push("nonpriv".into());
    }
    for (tag, s) in [("SG", "sg"), ("WG", "wg"), ("QF", "qf"), ("DV", "dv")] {
        if t(tag) {
            flags.push(s.into());
        }
    }
    for n in 0..4 {
        if t(&format!("SC{n}")) {
            flags.push(format!("sc{n}"));
        }
    }
    for n in 0..4 {
        if any(&format!("SEMSC{n}")) {
            flags.push(format!("semsc{n}"));
        }
    }
    if any("SEMAV") {
        flags.push("semav".into());
    }
    if any("SEMVIS") {
        flags.push("semvis".into());
    }
    let dotted = |head: &str, extra: Option<&str>| {
        let mut s = head.to_string();
        for f in flags.iter().map(String::as_str).chain(extra) {
            s.push('.');
            s.push_str(f);
        }
        s
    };
    Ok(match &i.kind {
        InstrKind::Load { dst, addr } => {
            format!(
                "{} {}, {}",
                dotted("ld", None),
                reg(i, dst)?,
                loc(p, i, addr)?
            )
        }
        InstrKind::Store { addr, value } => format!(
            "{} {}, {}",
            dotted("st", None),
            loc(p, i, addr)?,
            operand(i, value)?
        ),
        InstrKind::Rmw { op, .. } => {
            let extra = (*op != RmwOp::Exch).then(|| rmw_op_name(op));
            format!("{} {}", dotted("rmw", extra), rmw_operands(p, i)?)
        }
        InstrKind::Fence if t("AVDEVICE") => "avdevice".to_string(),
        InstrKind::Fence if t("VISDEVICE") => "visdevice".to_string(),
        InstrKind::Fence => dotted("membar", None),
        InstrKind::Barrier { id, count, .. } => match count {
            None => format!("{} {}", dotted("cbar", None), operand(i, id)?),
            Some(c) => format!(
                "{} 0, {}, {}",
                dotted("cbar", None),
                operand(i, id)?,
                operand(i, c)?
            ),
        },
        _ => unreachable!("handled by instr_text"),
    })
}

fn term(p: &Program, t: &Term) -> Result<String> {
    Ok(match t {
        Term::Reg(th, r) => {
            if !is_register(r) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("unsupported: register name `{r}` in a litmus condition"),
                ));
            }
            format!("P{th}:{r}")
        }
        Term::Loc(l) => p.locations[*l].name.clone(),
        Term::Const(c) => c.to_string(),
    })
}

/// The leaves of a chain of one connective (`and`: `/\`).
fn chain(c: &Cond, and: bool, out: &mut Vec<Cond>) {
    match (c, and) {
        (Cond::And(a, b), true) | (Cond::Or(a, b), false) => {
            chain(a, and, out);
            chain(b, and, out);
        }
        _ => out.push(c.clone()),
    }
}

/// The tree the litmus parser builds from a chain `a /\ b /\ c …`
/// (pairs, then pairs of pairs: `cond.rs`).
fn balanced(mut items: Vec<Cond>, and: bool) -> Cond {
    while items.len() > 1 {
        let mut next = Vec::new();
        let mut it = items.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) if and => Cond::And(Box::new(a), Box::new(b)),
                Some(b) => Cond::Or(Box::new(a), Box::new(b)),
                None => a,
            });
        }
        items = next;
    }
    items.pop().unwrap_or(Cond::True)
}

/// A condition. A chain of one connective prints flat when the parser
/// rebuilds the same tree from it; any other compound operand is in
/// parentheses, so the text always parses back to `c`.
pub fn cond(p: &Program, c: &Cond) -> Result<String> {
    if let Cond::And(..) | Cond::Or(..) = c {
        let and = matches!(c, Cond::And(..));
        let mut leaves = Vec::new();
        chain(c, and, &mut leaves);
        if leaves.len() > 2 && balanced(leaves.clone(), and) == *c {
            let parts = leaves
                .iter()
                .map(|l| match l {
                    Cond::And(..) | Cond::Or(..) => Ok(format!("({})", cond(p, l)?)),
                    _ => cond(p, l),
                })
                .collect::<Result<Vec<_>>>()?;
            return Ok(parts.join(if and { " /\\ " } else { " \\/ " }));
        }
    }
    let sub = |c: &Cond| -> Result<String> {
        Ok(match c {
            Cond::And(..) | Cond::Or(..) => format!("({})", cond(p, c)?),
            _ => cond(p, c)?,
        })
    };
    Ok(match c {
        Cond::True => "true".into(),
        Cond::False => "false".into(),
        Cond::Cmp(op, a, b) => format!("{} {} {}", term(p, a)?, op.symbol(), term(p, b)?),
        Cond::Not(x) => match **x {
            Cond::Cmp(..) | Cond::True | Cond::False => format!("~({})", cond(p, x)?),
            _ => format!("~{}", sub(x)?),
        },
        Cond::And(a, b) => format!("{} /\\ {}", sub(a)?, sub(b)?),
        Cond::Or(a, b) => format!("{} \\/ {}", sub(a)?, sub(b)?),
    })
}

fn check_location_name(name: &str) -> Result<()> {
    if is_ident(name) && !is_register(name) && !RESERVED.contains(&name) {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::Unsupported,
            format!("unsupported: location name `{name}` in a litmus test"),
        ))
    }
}

/// Renders the columns of a litmus thread table: `rows[k][t]` is thread
/// `t`'s cell in row `k`; the header row comes first.
pub fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let n = header.len();
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (t, c) in r.iter().enumerate() {
            widths[t] = widths[t].max(c.len());
        }
    }
    let line = |cells: &[String]| {
        let mut s = String::new();
        for (t, w) in widths.iter().enumerate() {
            let c = cells.get(t).map_or("", String::as_str);
            s.push(' ');
            s.push_str(c);
            s.push_str(&" ".repeat(w - c.len() + 1));
            s.push(if t + 1 < n { '|' } else { ';' });
        }
        s.push('\n');
        s
    };
    let mut out = line(header);
    for r in rows {
        out += &line(r);
    }
    out
}

fn render(p: &Program, comments: &[String]) -> Result<String> {
    let head = match p.arch {
        Arch::Ptx => "PTX",
        Arch::Vulkan => "VULKAN",
        Arch::C => {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "unsupported: printing a C program as PTX or Vulkan litmus (compile it first)",
            ))
        }
    };
    if !p.inputs.is_empty() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "unsupported: free program inputs in a litmus test",
        ));
    }
    let name: String = p
        .name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let name = if name.trim().is_empty() {
        "test".to_string()
    } else {
        name.trim().to_string()
    };
    let mut out = format!("{head} {name}\n");
    for c in comments {
        // A comment string ends at a quote at the end of a line.
        let c: String = c
            .chars()
            .map(|ch| if ch == '"' { '\'' } else { ch })
            .collect();
        out += &format!("\"{c}\"\n");
    }
    // Initial state.
    out += "{\n";
    for (k, l) in p.locations.iter().enumerate() {
        check_location_name(&l.name)?;
        if l.init_arbitrary.is_some() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: location `{}` has no initial value (litmus tests initialise every location)",
                    l.name
                ),
            ));
        }
        if l.phys == k && l.virt == k {
            out += &format!("{}={};\n", l.name, l.init);
        } else {
            // A proxy synonym names its target's virtual address; another
            // alias names the root of its chain.
            let target = if l.virt != k { l.virt } else { l.phys };
            let proxy = match (&l.space, p.arch) {
                (Some(s), Arch::Ptx) => format!(" @ {s}"),
                _ => String::new(),
            };
            out += &format!("{}{proxy} aliases {};\n", l.name, p.locations[target].name);
        }
    }
    for (t, th) in p.threads.iter().enumerate() {
        for (r, v) in &th.init_regs {
            if !is_register(r) {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("unsupported: register name `{r}` in a litmus test"),
                ));
            }
            out += &format!("P{t}:{r}={v};\n");
        }
    }
    out += "}\n";
    if !p.ssw.is_empty() {
        if p.arch != Arch::Vulkan {
            return Err(Error::new(
                ErrorKind::Unsupported,
                "unsupported: ssw pairs outside a Vulkan test",
            ));
        }
        out += "{\n";
        for (a, b) in &p.ssw {
            out += &format!("ssw {a} {b};\n");
        }
        out += "}\n";
    }
    // Threads.
    let levels = p.scope_levels();
    let mut header = Vec::new();
    let mut columns: Vec<Vec<String>> = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        if th.placement.warp.is_some() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "unsupported: the warp placement of {} (herd7's GPU_PTX scope trees) in the PTX dialect",
                    th.name
                ),
            ));
        }
        if th.placement.ids.len() != levels.len() {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!("unsupported: the placement of {}", th.name),
            ));
        }
        let place: Vec<String> = levels
            .iter()
            .zip(&th.placement.ids)
            .map(|(l, v)| format!("{l} {v}"))
            .collect();
        header.push(format!("P{t}@{}", place.join(",")));
        let mut cells = Vec::new();
        let mut labels = String::new();
        for i in &th.instrs {
            let text = instr_text(p, i)?;
            if matches!(i.kind, InstrKind::Label(_)) {
                labels += &text;
                labels.push(' ');
            } else {
                cells.push(format!("{labels}{text}"));
                labels.clear();
            }
        }
        if !labels.is_empty() {
            cells.push(labels.trim_end().to_string());
        }
        columns.push(cells);
    }
    let n_rows = columns.iter().map(Vec::len).max().unwrap_or(0);
    let rows: Vec<Vec<String>> = (0..n_rows)
        .map(|k| {
            columns
                .iter()
                .map(|c| c.get(k).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    if header.is_empty() {
        return Err(Error::new(
            ErrorKind::Unsupported,
            "unsupported: a litmus test without threads",
        ));
    }
    out += &table(&header, &rows);
    if let Some(f) = &p.filter {
        out += &format!("filter ({})\n", cond(p, f)?);
    }
    if let Some(a) = &p.assertion {
        let q = match a.quantifier {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        };
        out += &format!("{q} ({})\n", cond(p, &a.cond)?);
    }
    if !p.observed.is_empty() {
        let terms = p
            .observed
            .iter()
            .map(|t| term(p, t))
            .collect::<Result<Vec<_>>>()?;
        out += &format!("locations [{};]\n", terms.join("; "));
    }
    Ok(out)
}
