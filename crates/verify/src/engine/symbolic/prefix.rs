//! Race prefixes: the constraints that make a futile iteration go on only
//! when some event that a race needs reads one of its writes
//! (docs/SEMANTICS.md, "Futile iterations", has the argument).

use super::encode::Enc;
use super::sat::{Lit, FALSE};
use crate::cat::Model;
use crate::diag::Result;
use std::collections::HashMap;

/// For every futile iteration that goes on (its `on` literal), one of its
/// writes is read by an executed event outside every stop iteration, or
/// inside one that holds an event of a flagged pair.
pub fn encode_justification(enc: &mut Enc<'_>, model: &Model, flags: &[usize]) -> Result<()> {
    let mut stops: Vec<(Lit, Vec<usize>)> = Vec::new();
    let mut justify: Vec<(Lit, Vec<usize>)> = Vec::new();
    for t in &enc.u.threads {
        if let Some(pre) = t.guarded.as_ref().and_then(|g| g.prefix.as_ref()) {
            stops.extend(pre.stops.iter().cloned());
            justify.extend(pre.justify.iter().cloned());
        }
    }
    if justify.is_empty() {
        return Ok(());
    }
    // Per event, the literals "it is in a flagged pair".
    let mut flagged: HashMap<usize, Vec<Lit>> = HashMap::new();
    for &i in flags {
        for (a, b, l) in enc.flag_entries(model, i)? {
            flagged.entry(a).or_default().push(l);
            flagged.entry(b).or_default().push(l);
        }
    }
    // Per event, the stops whose iteration it is in, each with "the stop
    // happens and its iteration holds no flagged event".
    let mut idle_stops: HashMap<usize, Vec<Lit>> = HashMap::new();
    for (stop, evs) in &stops {
        let lits: Vec<Lit> = evs
            .iter()
            .flat_map(|e| flagged.get(e).into_iter().flatten().copied())
            .collect();
        let part = enc.sat.or(&lits);
        let idle = enc.sat.and2(*stop, -part);
        if idle == FALSE {
            continue;
        }
        for &e in evs {
            idle_stops.entry(e).or_default().push(idle);
        }
    }
    let mut readers: HashMap<usize, Vec<(usize, Lit)>> = HashMap::new();
    for &(w, r, x) in &enc.rf {
        readers.entry(w).or_default().push((r, x));
    }
    for (on, writes) in justify {
        let mut why = Vec::new();
        for w in writes {
            for &(r, x) in readers.get(&w).map_or(&[][..], |v| &v[..]) {
                let idle: Vec<Lit> = idle_stops.get(&r).cloned().unwrap_or_default();
                let idle = enc.sat.or(&idle);
                why.push(enc.sat.and2(x, -idle));
            }
        }
        let some = enc.sat.or(&why);
        enc.sat.implies(on, some);
    }
    Ok(())
}
