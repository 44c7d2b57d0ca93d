//! PTX instructions and their tags (`docs/EVENTS.md`, "Tags from the PTX
//! litmus front-end").
//!
//! | form | kind |
//! |---|---|
//! | `ld{.order}{.scope} r, x` | `Load` (`ld r, 1` / `ld r, r2`: register assignment) |
//! | `st{.order}{.scope} x, v` | `Store` |
//! | `atom{.order}{.scope}.op r, x, v` (`.cas r, x, expected, new`) | `Rmw` |
//! | `red{.order}{.scope}.op x, v` | `Rmw` with no destination |
//! | `suld.weak r, s` / `sust.weak s, v` / `tld.weak r, t` / `cold.weak r, c` | `Load` / `Store` through the surface, texture, constant proxy |
//! | `fence.sc.scope`, `fence.acq_rel.scope`, `membar.{cta,gl,sys}` | `Fence` |
//! | `fence.proxy.{alias,surface,texture,constant}` | `Fence` |
//! | `bar{.cta}.{sync,arrive} id` / `a, id` / `a, id, count` | `Barrier` |
//!
//! Orders: `.weak`, `.relaxed` (`.rlx`), `.acquire` (`.acq`), `.release`
//! (`.rel`), `.acq_rel`, and `.sc` (fences only). Scopes: `.cta`, `.gpu`,
//! `.sys`. `ld`/`st` default to `.weak`; non-weak `ld`/`st` and fences need a
//! scope; `atom`/`red` default to `.relaxed` and (as in the PTX ISA) to
//! `.gpu` scope.

use super::instr::{assign, barrier_operands, common, Arg, Cx, Opnd, Tags};
use crate::diag::Result;
use crate::ir::{InstrKind, RmwOp};

/// Mnemonic heads this dialect knows (used to word "missing `;`" errors).
pub(super) const HEADS: &[&str] = &[
    "ld", "st", "atom", "red", "suld", "sust", "tld", "cold", "fence", "membar", "bar", "barrier",
    "add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "mov", "beq", "bne",
    "blt", "ble", "bgt", "bge", "goto",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    Weak,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Sc,
}

impl Order {
    fn parse(q: &str) -> Option<Order> {
        Some(match q {
            "weak" => Order::Weak,
            "relaxed" | "rlx" => Order::Relaxed,
            "acquire" | "acq" => Order::Acquire,
            "release" | "rel" => Order::Release,
            "acq_rel" => Order::AcqRel,
            "sc" => Order::Sc,
            _ => return None,
        })
    }

    pub(super) fn tags(self) -> &'static [&'static str] {
        match self {
            Order::Weak => &["WEAK"],
            Order::Relaxed => &["RLX"],
            Order::Acquire => &["ACQ"],
            Order::Release => &["REL"],
            Order::AcqRel => &["ACQ_REL", "ACQ", "REL"],
            Order::Sc => &["SC", "ACQ_REL", "ACQ", "REL"],
        }
    }
}

pub(super) fn scope_tag(q: &str) -> Option<&'static str> {
    match q {
        "cta" => Some("CTA"),
        "gpu" => Some("GPU"),
        "sys" => Some("SYS"),
        _ => None,
    }
}

/// RMW operations by name (`cas` gets its expected value later).
fn rmw_op(q: &str) -> Option<RmwOp> {
    Some(match q {
        "exch" => RmwOp::Exch,
        "add" => RmwOp::Add,
        "sub" => RmwOp::Sub,
        "and" => RmwOp::And,
        "or" => RmwOp::Or,
        "xor" => RmwOp::Xor,
        "min" => RmwOp::Min,
        "max" => RmwOp::Max,
        "cas" => RmwOp::Cas {
            expected: crate::ir::Operand::Const(0),
        },
        _ => return None,
    })
}

pub(super) fn instr(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    match parts[0] {
        "ld" | "st" | "atom" | "red" => memory(cx, parts, args),
        "suld" | "sust" | "tld" | "cold" => proxy_access(cx, parts, args),
        "fence" => fence(cx, parts, args),
        "membar" => membar(cx, parts, args),
        "bar" | "barrier" => barrier(cx, parts, args),
        _ => common(cx, parts, args),
    }
}

/// `ld`, `st`, `atom`, `red` through the generic proxy.
fn memory(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    let head = parts[0];
    let is_rmw = matches!(head, "atom" | "red");
    let mut order: Option<(Order, &str)> = None;
    let mut scope: Option<(&'static str, &str)> = None;
    let mut op: Option<(RmwOp, &str)> = None;
    for &q in &parts[1..] {
        if let Some(o) = Order::parse(q) {
            if order.is_some() {
                return Err(cx.qual_syntax(
                    q,
                    format!("more than one memory order in `{}`", cx.mnemonic),
                ));
            }
            order = Some((o, q));
        } else if let Some(s) = scope_tag(q) {
            if scope.is_some() {
                return Err(cx.qual_syntax(q, format!("more than one scope in `{}`", cx.mnemonic)));
            }
            scope = Some((s, q));
        } else if let (true, Some(o)) = (is_rmw, rmw_op(q)) {
            if op.is_some() {
                return Err(
                    cx.qual_syntax(q, format!("more than one operation in `{}`", cx.mnemonic))
                );
            }
            op = Some((o, q));
        } else {
            return Err(cx.qual_unsupported(q));
        }
    }
    let allowed: &[Order] = match head {
        "ld" => &[Order::Weak, Order::Relaxed, Order::Acquire],
        "st" => &[Order::Weak, Order::Relaxed, Order::Release],
        _ => &[
            Order::Relaxed,
            Order::Acquire,
            Order::Release,
            Order::AcqRel,
        ],
    };
    let order = match order {
        Some((o, q)) if !allowed.contains(&o) => {
            return Err(cx.qual_syntax(
                q,
                format!("`.{q}` is not a valid memory order for `{head}`"),
            ));
        }
        Some((o, _)) => o,
        None if is_rmw => Order::Relaxed,
        None => Order::Weak,
    };
    let scope = match (order, scope) {
        (Order::Weak, Some((_, q))) => {
            return Err(cx.qual_syntax(q, "weak accesses take no scope"));
        }
        (Order::Weak, None) => None,
        (_, Some((s, _))) => Some(s),
        (_, None) if is_rmw => Some("GPU"),
        (_, None) => {
            return Err(cx.syntax(format!(
                "`{}` needs a scope (`.cta`, `.gpu` or `.sys`)",
                cx.mnemonic
            )));
        }
    };
    let mut tags = Tags::default();
    tags.extend(order.tags());
    if let Some(s) = scope {
        tags.add(s);
    }
    tags.add("GEN");
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
                // `ld r0, 1`: register assignment, no event.
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
            let Some((op, q)) = op else {
                return Err(cx.syntax(format!(
                    "`{}` needs an operation (`.add`, `.exch`, `.cas`, …)",
                    cx.mnemonic
                )));
            };
            let is_cas = matches!(op, RmwOp::Cas { .. });
            if head == "red" && (is_cas || op == RmwOp::Exch) {
                return Err(cx.qual_syntax(q, format!("`red` cannot perform `.{q}`")));
            }
            let (dst, rest) = if head == "atom" {
                cx.arity(args, if is_cas { &[4] } else { &[3] })?;
                (Some(cx.reg(&args[0])?), &args[1..])
            } else {
                cx.arity(args, &[2])?;
                (None, args)
            };
            let addr = cx.loc(&rest[0])?.into();
            let (op, operand) = if is_cas {
                (
                    RmwOp::Cas {
                        expected: cx.val(&rest[1])?,
                    },
                    cx.val(&rest[2])?,
                )
            } else {
                (op, cx.val(&rest[1])?)
            };
            InstrKind::Rmw {
                dst,
                addr,
                op,
                operand,
            }
        }
    };
    Ok((kind, tags.into_vec()))
}

/// `suld.weak`, `sust.weak`, `tld.weak`, `cold.weak`: weak accesses through
/// a non-generic proxy.
fn proxy_access(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    for &q in &parts[1..] {
        if q != "weak" || parts.len() > 2 {
            return Err(cx.qual_unsupported(q));
        }
    }
    let proxy = match parts[0] {
        "suld" | "sust" => "SUR",
        "tld" => "TEX",
        _ => "CON",
    };
    cx.arity(args, &[2])?;
    let kind = if parts[0] == "sust" {
        InstrKind::Store {
            addr: cx.loc(&args[0])?.into(),
            value: cx.val(&args[1])?,
        }
    } else {
        InstrKind::Load {
            dst: cx.reg(&args[0])?,
            addr: cx.loc(&args[1])?.into(),
        }
    };
    Ok((kind, vec!["WEAK".to_string(), proxy.to_string()]))
}

fn fence(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    cx.arity(args, &[0])?;
    let mut tags = Tags::default();
    tags.add("F");
    if parts.get(1) == Some(&"proxy") {
        let Some(&kind) = parts.get(2) else {
            return Err(cx.syntax(
                "`fence.proxy` needs a kind (`.alias`, `.surface`, `.texture` or `.constant`)",
            ));
        };
        if let Some(q) = parts.get(3) {
            return Err(cx.qual_unsupported(q));
        }
        match kind {
            "alias" => tags.add("ALIAS"),
            "surface" => tags.extend(&["PROXY", "SUR"]),
            "texture" => tags.extend(&["PROXY", "TEX"]),
            "constant" => tags.extend(&["PROXY", "CON"]),
            _ => return Err(cx.qual_unsupported(kind)),
        }
        return Ok((InstrKind::Fence, tags.into_vec()));
    }
    let mut order = None;
    let mut scope = None;
    for &q in &parts[1..] {
        match (Order::parse(q), scope_tag(q)) {
            (Some(o @ (Order::Sc | Order::AcqRel)), _) if order.is_none() => order = Some(o),
            (_, Some(s)) if scope.is_none() => scope = Some(s),
            (Some(_), _) | (_, Some(_)) => {
                return Err(cx.qual_syntax(q, format!("unexpected `.{q}` in `{}`", cx.mnemonic)));
            }
            _ => return Err(cx.qual_unsupported(q)),
        }
    }
    let (Some(order), Some(scope)) = (order, scope) else {
        return Err(cx.syntax(format!(
            "`{}` needs an order (`.sc` or `.acq_rel`) and a scope (`.cta`, `.gpu` or `.sys`)",
            cx.mnemonic
        )));
    };
    tags.extend(order.tags());
    tags.add(scope);
    tags.add("GEN");
    Ok((InstrKind::Fence, tags.into_vec()))
}

/// `membar.{cta,gl,sys}`: the legacy spelling of `fence.sc.{cta,gpu,sys}`.
fn membar(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    cx.arity(args, &[0])?;
    let scope = match parts.get(1..) {
        Some(["cta"]) => "CTA",
        Some(["gl"]) => "GPU",
        Some(["sys"]) => "SYS",
        Some([q, ..]) => return Err(cx.qual_unsupported(q)),
        _ => return Err(cx.syntax("`membar` needs a level (`.cta`, `.gl` or `.sys`)")),
    };
    let mut tags = Tags::default();
    tags.add("F");
    tags.extend(Order::Sc.tags());
    tags.extend(&[scope, "GEN"]);
    Ok((InstrKind::Fence, tags.into_vec()))
}

/// `bar.cta.sync`, `bar.cta.arrive` (also without `.cta`).
fn barrier(cx: &mut Cx, parts: &[&str], args: &[Arg]) -> Result<(InstrKind, Vec<String>)> {
    let mode = match &parts[1..] {
        ["cta", mode] | [mode] => *mode,
        [] => return Err(cx.syntax(format!("`{}` needs `.sync` or `.arrive`", cx.mnemonic))),
        [_, _, q, ..] | [q, _] => return Err(cx.qual_unsupported(q)),
    };
    let arrive = match mode {
        "sync" => false,
        "arrive" => true,
        q => return Err(cx.qual_unsupported(q)),
    };
    let (id, count) = barrier_operands(cx, args)?;
    let mut tags = Tags::default();
    tags.extend(&["B", "CBAR", "CTA"]);
    if arrive {
        tags.add("ARRIVE");
    }
    tags.add("GEN");
    Ok((InstrKind::Barrier { id, count, arrive }, tags.into_vec()))
}
