//! When is the interleaving graph exact? When every execution the model
//! allows is sequentially consistent. We establish that for programs whose
//! memory accesses all go to one location through accesses the
//! architecture keeps coherent (docs/LIVENESS.md, "Exactness"):
//!
//! * with a single location, po ∪ rf ∪ co ∪ fr restricted to memory
//!   events is po-loc ∪ rf ∪ co ∪ fr, so a coherent execution is SC;
//! * Vulkan keeps *mutually ordered atomics* coherent (atomic accesses to
//!   the same reference, each in the other's scope instance: the `moa`
//!   relation with the `coherence` and `consistency` axioms of
//!   vulkan-common.cat, spec "Scoped Modification Order" and
//!   "Location-Ordered");
//! * PTX keeps *morally strong* accesses coherent (strong accesses of the
//!   generic proxy, each in the other's scope: `sc_per_location` and
//!   `coherence_ms` of ptx-v6.0.cat / ptx-v7.5.cat, PTX ISA "Memory
//!   Consistency Model").
//!
//! The premise is a property of the architectures that our embedded models
//! formalise; it is used only with those models.

use crate::cat::Model;
use crate::ir::{Arch, InstrKind, Program};

/// Names (first lines) of the embedded models the premise is checked for.
const MODELS: [&str; 4] = ["PTX v6.0", "PTX v7.5", "Vulkan", "Vulkan-nochains"];

/// `Ok(())` if every execution of `p` under `model` is SC by the argument
/// above; otherwise the reason it does not apply.
pub fn single_location_coherent(p: &Program, model: &Model) -> Result<(), String> {
    let mut locs: Vec<usize> = accesses(p, None).iter().map(|a| a.1).collect();
    locs.sort_unstable();
    locs.dedup();
    if locs.len() > 1 {
        return Err("the program accesses several locations".into());
    }
    match locs.first() {
        Some(&l) => coherent_location(p, model, l),
        None => Ok(()),
    }
}

type Access<'a> = (usize, usize, &'a [String], bool, &'a str);

/// Every access (thread, virtual location, tags, is an RMW, text), to the
/// physical location `phys` if given.
fn accesses(p: &Program, phys: Option<usize>) -> Vec<Access<'_>> {
    let mut out = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        for ins in &th.instrs {
            let Some(addr) = ins.kind.addr() else {
                continue;
            };
            let rmw = matches!(ins.kind, InstrKind::Rmw { .. });
            for &loc in addr.cells() {
                if phys.is_some_and(|x| p.locations[loc].phys != x) {
                    continue;
                }
                out.push((t, loc, ins.tags.as_slice(), rmw, ins.text.as_str()));
            }
        }
    }
    out
}

/// `Ok(())` if the model keeps all accesses to the physical location
/// `phys` coherent (one virtual address, pairwise mutually ordered
/// atomics / morally strong accesses): their writes are totally ordered by
/// co and every execution restricted to them is SC.
pub fn coherent_location(p: &Program, model: &Model, phys: usize) -> Result<(), String> {
    if !MODELS.contains(&model.name()) {
        return Err(format!(
            "the coherence premise is only established for the embedded models, not `{}`",
            model.name()
        ));
    }
    let accesses = accesses(p, Some(phys));
    let Some(&(_, loc0, _, _, _)) = accesses.first() else {
        return Ok(());
    };
    if accesses.iter().any(|a| a.1 != loc0) {
        return Err("a location is accessed through several addresses".into());
    }
    let has = |tags: &[String], t: &str| tags.iter().any(|x| x == t);
    let scope = |tags: &[String], names: &[&str]| -> Option<usize> {
        names.iter().position(|n| has(tags, n))
    };
    let ids = |t: usize| &p.threads[t].placement.ids;
    // Do threads a and b share the scope instance at `level`?
    let same = |a: usize, b: usize, level: usize| {
        let (x, y) = (ids(a), ids(b));
        let l = level.min(x.len()).min(y.len());
        x[l..] == y[l..]
    };
    match p.arch {
        Arch::C => {
            return Err("the coherence premise is not established for C programs".into());
        }
        Arch::Vulkan => {
            let names = ["SG", "WG", "QF", "DV"];
            for (_, _, tags, rmw, text) in &accesses {
                if !*rmw && !has(tags, "A") {
                    return Err(format!("`{text}` is not atomic"));
                }
                if scope(tags, &names).is_none() {
                    return Err(format!("`{text}` has no scope"));
                }
            }
            for a in &accesses {
                for b in &accesses {
                    let (sa, sb) = (scope(a.2, &names).unwrap(), scope(b.2, &names).unwrap());
                    // inscope: both DV, or they share the instance of the
                    // smaller of their scopes.
                    let lv = sa.min(sb);
                    let ok = lv == 3 || same(a.0, b.0, lv);
                    if !ok {
                        return Err(format!(
                            "`{}` and `{}` are not in each other's scope",
                            a.4, b.4
                        ));
                    }
                }
            }
        }
        Arch::Ptx => {
            let names = ["CTA", "GPU", "SYS"];
            for (_, _, tags, rmw, text) in &accesses {
                let strong = *rmw
                    || has(tags, "RLX")
                    || has(tags, "ACQ")
                    || has(tags, "REL")
                    || has(tags, "SC");
                if !strong || has(tags, "WEAK") {
                    return Err(format!("`{text}` is not a strong access"));
                }
                if ["SUR", "TEX", "CON"].iter().any(|x| has(tags, x)) {
                    return Err(format!("`{text}` does not use the generic proxy"));
                }
                if scope(tags, &names).is_none() {
                    return Err(format!("`{text}` has no scope"));
                }
            }
            for a in &accesses {
                for b in &accesses {
                    let (sa, sb) = (scope(a.2, &names).unwrap(), scope(b.2, &names).unwrap());
                    // Morally strong: each thread in the other's scope.
                    let ok = (sa == 2 || same(a.0, b.0, sa)) && (sb == 2 || same(a.0, b.0, sb));
                    if !ok {
                        return Err(format!(
                            "`{}` and `{}` are not in each other's scope",
                            a.4, b.4
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
