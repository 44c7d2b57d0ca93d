//! Tag conventions every front-end of an architecture shares, as Dat3M's
//! front-ends apply them (docs/EVENTS.md, "Dat3M's tags"), so that a model
//! written against Dat3M's events reads ours the same way.
//!
//! * A read-modify-write's order is split over its two events (Dat3M's
//!   `loadMO` / `storeMO`): the read is the acquire, the write the release.
//!
//!   | arch | read event | write event |
//!   |---|---|---|
//!   | PTX | `ACQ` (`.acquire`, `.acq_rel`), else `RLX` | `REL` (`.release`, `.acq_rel`), else `RLX` |
//!   | Vulkan | `ACQ` (`.acq`, `.acq_rel`); `VIS`; `SEMVIS`; the `SEMSCn` of an acquire | `REL` (`.rel`, `.acq_rel`); `AV`; `SEMAV`; the `SEMSCn` of a release |
//!
//!   `ACQ_REL` is on neither event (a memory event is an acquire or a
//!   release); scope, proxy, storage class, `ATOM`, `A`, `NONPRIV` stay on
//!   both.
//! * A C atomic access (not a fence, not a plain `NA` access) carries `A`,
//!   herd7's set of atomic accesses; every C event also the `opencl`
//!   model's region and `SEQCST` tags ([`opencl_tags`]).
//! * Vulkan atomics are implicitly available (writes) and visible (reads)
//!   at their scope (Vulkan spec, appendix "Memory Model", Availability
//!   and Visibility: "atomic operations implicitly have availability /
//!   visibility operations"): an atomic load carries `VIS`, an atomic store
//!   `AV`, an RMW one each (above).

use crate::ir::{Arch, HalfTags, Instr, InstrKind};

/// Applies the conventions to an instruction whose `tags` the front-end
/// has just set.
pub fn finish(arch: Arch, ins: &mut Instr) {
    let atomic = ins.tags.iter().any(|t| t == "ATOM");
    // herd7's C set `A`: the atomic accesses (herd's `rc11.cat` excludes
    // `A * A` from its data races).
    if arch == Arch::C
        && ins.kind.addr().is_some()
        && ins.tags.iter().any(|t| C_ORDERS.contains(&t.as_str()))
    {
        add(&mut ins.tags, "A");
    }
    if arch == Arch::C {
        opencl_tags(ins);
    }
    match (&ins.kind, arch) {
        (InstrKind::Rmw { .. }, _) => split_rmw(arch, ins),
        (InstrKind::Load { .. }, Arch::Vulkan) if atomic => add(&mut ins.tags, "VIS"),
        (InstrKind::Store { .. }, Arch::Vulkan) if atomic => add(&mut ins.tags, "AV"),
        _ => {}
    }
}

/// Sets the tags of a compare-and-swap's read when it fails (`failed`:
/// the tags a front-end gives a load with the failure order), kept only
/// where they differ from the read of a successful one.
pub fn set_failed(arch: Arch, cas: &mut Instr, failed: Vec<String>) {
    let InstrKind::Rmw { dst, addr, .. } = &cas.kind else {
        return;
    };
    let load = InstrKind::Load {
        dst: dst.clone().unwrap_or_default(),
        addr: addr.clone(),
    };
    let mut read = Instr::new(load, failed, cas.pos, String::new());
    finish(arch, &mut read);
    let mut fail = read.tags;
    fail.sort();
    fail.dedup();
    let mut success: Vec<String> = cas.event_tags(false).map(str::to_string).collect();
    success.sort();
    success.dedup();
    cas.failed = (fail != success).then_some(fail);
}

/// The tags the `opencl` model reads on C events besides C's own
/// (docs/C.md, "OpenCL tests"): an access's region — `SC1` when the
/// front-end marked it local, else `SC0` (global) —, `SEQCST` beside
/// `SC`, and a fence without region flags (`atomic_thread_fence`) orders
/// both regions (`SEMSC0`, `SEMSC1`).
fn opencl_tags(ins: &mut Instr) {
    let has = |tags: &[String], t: &str| tags.iter().any(|x| x == t);
    if ins.kind.addr().is_some() && !has(&ins.tags, "SC1") {
        add(&mut ins.tags, "SC0");
    }
    if has(&ins.tags, "SC") {
        add(&mut ins.tags, "SEQCST");
    }
    if matches!(ins.kind, InstrKind::Fence)
        && !has(&ins.tags, "SEMSC0")
        && !has(&ins.tags, "SEMSC1")
    {
        add(&mut ins.tags, "SEMSC0");
        add(&mut ins.tags, "SEMSC1");
    }
}

fn add(tags: &mut Vec<String>, t: &str) {
    if !tags.iter().any(|x| x == t) {
        tags.push(t.to_string());
    }
}

fn is_class_semantics(t: &str) -> bool {
    t.strip_prefix("SEMSC")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Moves the order (and, for Vulkan, availability / visibility and
/// storage-class semantics) of an RMW onto the event each belongs to.
fn split_rmw(arch: Arch, ins: &mut Instr) {
    let has = |t: &str| ins.tags.iter().any(|x| x == t);
    let (acq, rel) = (has("ACQ"), has("REL"));
    let mut read: Vec<String> = Vec::new();
    let mut write: Vec<String> = Vec::new();
    let moved: fn(&str) -> bool = match arch {
        Arch::C => {
            // Each event gets exactly one order (RC11's RMW order pairs,
            // Lahav et al., PLDI 2017): seq_cst on both, acq_rel split.
            let (r, w) = if has("SC") {
                ("SC", "SC")
            } else {
                let acq_rel = has("ACQ_REL");
                (
                    if acq || acq_rel { "ACQ" } else { "RLX" },
                    if rel || acq_rel { "REL" } else { "RLX" },
                )
            };
            read.push(r.into());
            write.push(w.into());
            |t| matches!(t, "RLX" | "ACQ" | "REL" | "ACQ_REL" | "SC")
        }
        Arch::Ptx => {
            read.push(if acq { "ACQ" } else { "RLX" }.into());
            write.push(if rel { "REL" } else { "RLX" }.into());
            |t| matches!(t, "RLX" | "ACQ" | "REL" | "ACQ_REL")
        }
        Arch::Vulkan => {
            let sem: Vec<String> = ins
                .tags
                .iter()
                .filter(|t| is_class_semantics(t))
                .cloned()
                .collect();
            if acq {
                read.push("ACQ".into());
                read.extend(sem.iter().cloned());
            }
            read.push("VIS".into());
            if has("SEMVIS") {
                read.push("SEMVIS".into());
            }
            if rel {
                write.push("REL".into());
                write.extend(sem);
            }
            write.push("AV".into());
            if has("SEMAV") {
                write.push("SEMAV".into());
            }
            |t| {
                matches!(
                    t,
                    "ACQ" | "REL" | "ACQ_REL" | "AV" | "VIS" | "SEMAV" | "SEMVIS"
                ) || is_class_semantics(t)
            }
        }
    };
    ins.tags.retain(|t| !moved(t));
    ins.halves = HalfTags { read, write };
}

/// The C orders, as tags (docs/EVENTS.md, "Tags from the C litmus
/// front-end").
const C_ORDERS: [&str; 5] = ["RLX", "ACQ", "REL", "ACQ_REL", "SC"];

/// The order a C instruction was written with (`RLX`, `ACQ`, `REL`,
/// `ACQ_REL`, `SC`; `memory_order_consume` reads `ACQ`), an RMW's split
/// undone; `None` for a plain access (`NA`) and for non-C instructions
/// without one of these tags.
pub fn c_order(ins: &Instr) -> Option<&'static str> {
    let find = |tags: &[String]| {
        C_ORDERS
            .iter()
            .copied()
            .find(|o| tags.iter().any(|t| t == o))
    };
    if let Some(o) = find(&ins.tags) {
        return Some(o);
    }
    Some(match (find(&ins.halves.read)?, find(&ins.halves.write)?) {
        ("SC", _) | (_, "SC") => "SC",
        ("ACQ", "REL") => "ACQ_REL",
        ("ACQ", _) => "ACQ",
        (_, "REL") => "REL",
        _ => "RLX",
    })
}

/// herd7's tags on a C program's events: a read-modify-write's order on
/// both its events (herd7 gives each event the operation's
/// `memory_order`), instead of split over them as our models read it
/// (above). A failed compare-exchange keeps its failure order.
pub fn herd_rmw_orders(p: &mut crate::ir::Program) {
    for ins in p.threads.iter_mut().flat_map(|t| &mut t.instrs) {
        if !matches!(ins.kind, InstrKind::Rmw { .. }) {
            continue;
        }
        let Some(order) = c_order(ins) else {
            continue;
        };
        let success: Vec<String> = ins.event_tags(false).map(str::to_string).collect();
        for half in [&mut ins.halves.read, &mut ins.halves.write] {
            half.retain(|t| !C_ORDERS.contains(&t.as_str()));
        }
        add(&mut ins.tags, order);
        // A compare-exchange's failure order equal to the split read part
        // was left implicit: the failed read keeps it.
        let cas = matches!(
            ins.kind,
            InstrKind::Rmw {
                op: crate::ir::RmwOp::Cas { .. },
                ..
            }
        );
        if cas && ins.failed.is_none() {
            let mut same = success;
            same.sort();
            if ins.event_tags(false).any(|t| !same.iter().any(|s| s == t)) {
                ins.failed = Some(same);
            }
        }
    }
}

/// The scope tag of a C atomic access or fence (`CTA`, `GPU`, `SYS`);
/// `None` for a plain access.
pub fn c_scope(ins: &Instr) -> Option<&'static str> {
    ["CTA", "GPU", "SYS"]
        .into_iter()
        .find(|s| ins.tags.iter().any(|t| t == s))
}
