//! Vulkan instructions and their tags (`docs/EVENTS.md`, "Tags from the
//! Vulkan litmus front-end").
//!
//! | form | kind |
//! |---|---|
//! | `ld.<flags> r, x` | `Load` (`ld.sc0 r, 1` / `ld r, r2`: register assignment) |
//! | `st.<flags> x, v` | `Store` |
//! | `rmw.<flags>[.op] r, x, v` (op: `exch` (default), `add`, `sub`, `and`, `or`, `xor`, `min`, `max`; `cas r, x, expected, new`) | `Rmw` |
//! | `membar.<flags>` | `Fence` |
//! | `cbar.<flags> id` / `a, id` / `a, id, count` | `Barrier` |
//! | `avdevice`, `visdevice` | `Fence` |
//!
//! Flags: `atom`; orders `acq rel acq_rel`; scopes `sg wg qf dv`; storage
//! classes `sc0`–`sc3`; semantics `semsc0`–`semsc3 semav semvis`; `av vis
//! nonpriv`. Tags follow the flags in the order written. Checked: at most
//! one order / scope / storage class; an order needs `.atom` on memory
//! accesses (loads cannot release, stores cannot acquire); `rmw` needs
//! `.atom`; atomics, `av`/`vis`, `membar` and `cbar` need a scope; `membar`
//! needs an order; `membar`/`cbar` take no `atom`, storage class, `av`,
//! `vis` or `nonpriv`.

use super::instr::{assign, barrier_operands, common, Arg, Cx, Opnd, Tags};
use crate::diag::Result;
use crate::ir::{InstrKind, Operand, RmwOp};

/// Mnemonic heads this dialect knows (used to word "missing `;`" errors).
pub(super) const HEADS: &[&str] = &[
    "ld",
    "st",
    "rmw",
    "membar",
    "cbar",
    "avdevice",
    "visdevice",
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "and",
    "or",
    "xor",
    "shl",
    "shr",
    "mov",
    "beq",
    "bne",
    "blt",
    "ble",
    "bgt",
    "bge",
    "goto",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    Acq,
    Rel,
    AcqRel,
}

/// The flags of one instruction.
#[derive(Default)]
struct Flags<'a> {
    tags: Tags,
    atom: Option<&'a str>,
    order: Option<(Order, &'a str)>,
    scope: Option<&'a str>,
    class: Option<&'a str>,
    av: Option<&'a str>,
    vis: Option<&'a str>,
    nonpriv: Option<&'a str>,
    semav: Option<&'a str>,
    semvis: Option<&'a str>,
    op: Option<(RmwOp, &'a str)>,
}

/// `n` in `prefixN` for N in 0..=3.
fn class_index<'q>(q: &'q str, prefix: &str) -> Option<&'q str> {
    q.strip_prefix(prefix)
        .filter(|n| matches!(*n, "0" | "1" | "2" | "3"))
}

fn parse_flags<'a>(cx: &Cx, parts: &[&'a str], rmw: bool) -> Result<Flags<'a>> {
    let mut f = Flags::default();
    let mut seen: Vec<&str> = Vec::new();
    for &q in &parts[1..] {
        if seen.contains(&q) {
            return Err(cx.qual_syntax(q, format!("duplicate flag `.{q}` in `{}`", cx.mnemonic)));
        }
        seen.push(q);
        let conflict =
            |what: &str| cx.qual_syntax(q, format!("more than one {what} in `{}`", cx.mnemonic));
        match q {
            "atom" => {
                f.atom = Some(q);
                f.tags.extend(&["ATOM", "A", "NONPRIV"]);
            }
            "acq" | "rel" | "acq_rel" => {
                if f.order.is_some() {
                    return Err(conflict("memory order"));
                }
                let (o, tags): (Order, &[&str]) = match q {
                    "acq" => (Order::Acq, &["ACQ"]),
                    "rel" => (Order::Rel, &["REL"]),
                    _ => (Order::AcqRel, &["ACQ", "REL", "ACQ_REL"]),
                };
                f.order = Some((o, q));
                f.tags.extend(tags);
            }
            "sg" | "wg" | "qf" | "dv" => {
                if f.scope.is_some() {
                    return Err(conflict("scope"));
                }
                f.scope = Some(q);
                f.tags.add(&q.to_ascii_uppercase());
            }
            "av" | "vis" => {
                if q == "av" {
                    f.av = Some(q);
                } else {
                    f.vis = Some(q);
                }
                f.tags.extend(&[&q.to_ascii_uppercase(), "NONPRIV"]);
            }
            "semav" | "semvis" => {
                if q == "semav" {
                    f.semav = Some(q);
                } else {
                    f.semvis = Some(q);
                }
                f.tags.add(&q.to_ascii_uppercase());
            }
            "nonpriv" => {
                f.nonpriv = Some(q);
                f.tags.add("NONPRIV");
            }
            _ if class_index(q, "semsc").is_some() => f.tags.add(&q.to_ascii_uppercase()),
            _ if class_index(q, "sc").is_some() => {
                if f.class.is_some() {
                    return Err(conflict("storage class"));
                }
                f.class = Some(q);
                f.tags.add(&q.to_ascii_uppercase());
            }
            _ => {
                let op = match q {
                    "exch" => RmwOp::Exch,
                    "add" => RmwOp::Add,
                    "sub" => RmwOp::Sub,
                    "and" => RmwOp::And,
                    "or" => RmwOp::Or,
                    "xor" => RmwOp::Xor,
                    "min" => RmwOp::Min,
                    "max" => RmwOp::Max,
                    "cas" => RmwOp::Cas {
                        expected: Operand::Const(0),
                    },
                    _ => return Err(cx.qual_unsupported(q)),
                };
                if !rmw {
                    return Err(cx.qual_unsupported(q));
                }
                if f.op.is_some() {
                    return Err(conflict("operation"));
                }
                f.op = Some((op, q));
            }
        }
    }
    Ok(f)
}

pub(super) fn instr(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    match parts[0] {
        "ld" | "st" | "rmw" => access(cx, parts, args),
        "membar" | "cbar" => barrier(cx, parts, args),
        "avdevice" | "visdevice" => {
            if let Some(q) = parts.get(1) {
                return Err(cx.qual_unsupported(q));
            }
            cx.arity(args, &[0])?;
            Ok((InstrKind::Fence, vec![parts[0].to_ascii_uppercase()]))
        }
        _ => common(cx, parts, args),
    }
}

fn access(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    let head = parts[0];
    let f = parse_flags(cx, parts, head == "rmw")?;
    let m = cx.mnemonic;
    if let Some((o, q)) = f.order {
        let bad = match head {
            "ld" => o != Order::Acq,
            "st" => o != Order::Rel,
            _ => false,
        };
        if bad {
            return Err(cx.qual_syntax(q, format!("`.{q}` is not allowed on `{head}`")));
        }
        if f.atom.is_none() {
            return Err(cx.qual_syntax(q, format!("`.{q}` needs `.atom` (in `{m}`)")));
        }
    }
    let wrong_side = match head {
        "ld" => f.av.or(f.semav),
        "st" => f.vis.or(f.semvis),
        _ => None,
    };
    if let Some(q) = wrong_side {
        return Err(cx.qual_syntax(q, format!("`.{q}` is not allowed on `{head}`")));
    }
    if head == "rmw" && f.atom.is_none() {
        return Err(cx.syntax(format!("`{m}` needs `.atom`")));
    }
    if f.scope.is_none() {
        if let Some(q) = f.atom.or(f.av).or(f.vis) {
            return Err(cx.qual_syntax(
                q,
                format!("`.{q}` needs a scope (`.sg`, `.wg`, `.qf` or `.dv`) in `{m}`"),
            ));
        }
    }
    let tags = f.tags.into_vec();
    let kind = match head {
        "ld" => {
            cx.arity(args, &[2])?;
            let dst = cx.reg(&args[0])?;
            if let Opnd::Name(_) = args[1].v {
                InstrKind::Load {
                    dst,
                    addr: cx.loc(&args[1])?.into(),
                }
            } else {
                // `ld.sc0 r3, 1`: register assignment, no event.
                return Ok((assign(dst, cx.val(&args[1])?), Vec::new()));
            }
        }
        "st" => {
            cx.arity(args, &[2])?;
            InstrKind::Store {
                addr: cx.loc(&args[0])?.into(),
                value: cx.val(&args[1])?,
            }
        }
        _ => {
            let op = f.op.map_or(RmwOp::Exch, |(op, _)| op);
            let is_cas = matches!(op, RmwOp::Cas { .. });
            cx.arity(args, if is_cas { &[4] } else { &[3] })?;
            let dst = Some(cx.reg(&args[0])?);
            let addr = cx.loc(&args[1])?.into();
            let (op, operand) = if is_cas {
                (
                    RmwOp::Cas {
                        expected: cx.val(&args[2])?,
                    },
                    cx.val(&args[3])?,
                )
            } else {
                (op, cx.val(&args[2])?)
            };
            InstrKind::Rmw {
                dst,
                addr,
                op,
                operand,
            }
        }
    };
    Ok((kind, tags))
}

/// `membar.<flags>` and `cbar.<flags> operands`.
fn barrier(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    let head = parts[0];
    let f = parse_flags(cx, parts, false)?;
    let m = cx.mnemonic;
    if let Some(q) = f.atom.or(f.class).or(f.av).or(f.vis).or(f.nonpriv) {
        return Err(cx.qual_syntax(q, format!("`.{q}` is not allowed on `{head}`")));
    }
    if f.scope.is_none() {
        return Err(cx.syntax(format!(
            "`{m}` needs a scope (`.sg`, `.wg`, `.qf` or `.dv`)"
        )));
    }
    let mut tags = Tags::default();
    if head == "membar" {
        if f.order.is_none() {
            return Err(cx.syntax(format!(
                "`{m}` needs a memory order (`.acq`, `.rel` or `.acq_rel`)"
            )));
        }
        cx.arity(args, &[0])?;
        tags.add("F");
        tags.append(f.tags);
        return Ok((InstrKind::Fence, tags.into_vec()));
    }
    let (id, count) = barrier_operands(cx, args)?;
    tags.extend(&["B", "CBAR"]);
    if f.order.is_some() {
        tags.add("F");
    }
    tags.append(f.tags);
    Ok((
        InstrKind::Barrier {
            id,
            count,
            arrive: false,
        },
        tags.into_vec(),
    ))
}
