//! Checks that need the whole test: the memory map covers every location,
//! `.global`/`.shared` qualifiers agree with it, and shared memory is
//! only shared within a CTA.

use super::super::source::Source;
use super::super::Locs;
use super::instr::ThreadState;
use super::memory_instrs;
use super::scope::MemoryMap;
use crate::diag::{Error, Result};
use crate::ir::{LocId, Placement, Pos};
use std::collections::HashMap;

/// Sets each location's `space` from the map (all `global` without one);
/// with a map, a location missing from it is an error at its first use.
pub(super) fn memory_map(
    src: &Source,
    locs: &mut Locs,
    map: Option<&MemoryMap>,
    threads: &[ThreadState],
) -> Result<()> {
    let Some(map) = map else {
        for l in &mut locs.list {
            l.space = Some("global".into());
        }
        return Ok(());
    };
    for &(name, _, region) in &map.entries {
        let id = locs.use_loc(name);
        locs.list[id].space = Some(region.into());
    }
    match locs.list.iter().position(|l| l.space.is_none()) {
        None => Ok(()),
        Some(id) => Err(Error::semantic(
            first_use(threads, id).unwrap_or_else(|| src.pos(map.off)),
            format!(
                "location `{}` is not in the memory map (add `{}: global` or `{}: shared`)",
                locs.list[id].name, locs.list[id].name, locs.list[id].name
            ),
        )),
    }
}

fn first_use(threads: &[ThreadState], id: LocId) -> Option<Pos> {
    threads
        .iter()
        .flat_map(|th| memory_instrs(&th.instrs))
        .find(|(_, cells)| cells.contains(&id))
        .map(|(i, _)| i.pos)
}

/// State-space qualifiers match the map, and no shared location is
/// accessed from two CTAs (shared memory is per CTA: such a test has no
/// meaning on a GPU).
pub(super) fn regions(
    locs: &Locs,
    threads: &[ThreadState],
    placements: &[Placement],
    names: &[String],
) -> Result<()> {
    let region = |id: LocId| locs.list[id].space.as_deref().unwrap_or("global");
    for th in threads {
        for &(i, space) in &th.spaces {
            let ins = &th.instrs[i];
            let cells = ins.kind.addr().map_or(&[][..], |a| a.cells());
            if let Some(&c) = cells.iter().find(|&&c| region(c) != space) {
                return Err(Error::semantic(
                    ins.pos,
                    format!(
                        "`.{space}` access to `{}`, which the memory map puts in {} memory",
                        locs.list[c].name,
                        region(c)
                    ),
                ));
            }
        }
    }
    let mut owner: HashMap<LocId, (usize, i64)> = HashMap::new();
    for (t, th) in threads.iter().enumerate() {
        let cta = placements[t].ids[0];
        for (ins, cells) in memory_instrs(&th.instrs) {
            for &c in cells.iter().filter(|&&c| region(c) == "shared") {
                let (t0, cta0) = *owner.entry(c).or_insert((t, cta));
                if cta0 != cta {
                    return Err(Error::semantic(
                        ins.pos,
                        format!(
                            "shared location `{}` is accessed by `{}` (CTA {cta0}) and by `{}` \
                             (CTA {cta}): shared memory belongs to one CTA",
                            locs.list[c].name, names[t0], names[t]
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
