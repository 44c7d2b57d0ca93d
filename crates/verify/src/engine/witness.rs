//! Witness executions in a printable, serialisable form.

use super::exec::EventKind;
use super::Candidate;
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct WitnessEvent {
    pub id: usize,
    /// `init` or the thread name.
    pub thread: String,
    /// Source line of the instruction (0 for initial writes).
    pub line: u32,
    pub instr: String,
    /// `R`, `W`, `F`, `B` or `IW`.
    pub kind: String,
    pub location: Option<String>,
    pub value: Option<i64>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Witness {
    pub events: Vec<WitnessEvent>,
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<(usize, usize)>,
    /// Final values of the observables, as `name = value`.
    pub state: Vec<(String, i64)>,
    /// The values this execution chose for the program's free values
    /// (docs/SEMANTICS.md): its inputs by source name, the arbitrary
    /// initial values it reads by location name, and its undefined values
    /// as `thread:register` (`#k` for the `k`-th of one instruction).
    /// Serialised as a JSON object.
    #[serde(serialize_with = "as_map", skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<(String, i64)>,
}

fn as_map<S: serde::Serializer>(v: &[(String, i64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(v.len()))?;
    for (k, x) in v {
        m.serialize_entry(k, x)?;
    }
    m.end()
}

impl Witness {
    pub fn from_candidate(c: &Candidate<'_, '_>, state: Vec<(String, i64)>) -> Self {
        Self::from_execution(c, state, &[])
    }

    /// [`Witness::from_candidate`], where `input_values` gives the
    /// value of each input of the program that the program does not fix.
    pub fn from_execution(
        c: &Candidate<'_, '_>,
        state: Vec<(String, i64)>,
        input_values: &[i64],
    ) -> Self {
        let sk = c.skeleton;
        let p = sk.program;
        let events = sk
            .events
            .iter()
            .enumerate()
            .map(|(id, e)| {
                let (thread, line, instr) = match (e.thread, e.instr) {
                    (Some(t), Some(i)) => {
                        let ins = &p.threads[t].instrs[i];
                        (p.threads[t].name.clone(), ins.pos.line, ins.text.clone())
                    }
                    _ => ("init".to_string(), 0, String::new()),
                };
                let kind = match e.kind {
                    EventKind::Init => "IW",
                    EventKind::Read => "R",
                    EventKind::Write => "W",
                    EventKind::Fence => "F",
                    EventKind::Barrier => "B",
                };
                WitnessEvent {
                    id,
                    thread,
                    line,
                    instr,
                    kind: kind.to_string(),
                    location: e.loc.map(|l| p.locations[l].name.clone()),
                    value: e.loc.map(|_| e.value),
                }
            })
            .collect();
        // co: only the covering edges keep the output short.
        let co_all: Vec<(usize, usize)> = c.co.pairs().collect();
        let co = co_all
            .iter()
            .copied()
            .filter(|&(a, b)| {
                !co_all
                    .iter()
                    .any(|&(x, y)| x == a && y != b && c.co.contains(y, b))
            })
            .collect();
        Witness {
            events,
            rf: c.rf.pairs().collect(),
            co,
            state,
            inputs: chosen_values(c, input_values),
        }
    }
}

/// The free values of the execution `c` (see [`Witness::inputs`]).
fn chosen_values(c: &Candidate<'_, '_>, input_values: &[i64]) -> Vec<(String, i64)> {
    let sk = c.skeleton;
    let p = sk.program;
    let mut out: Vec<(String, i64)> = p
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(k, i)| Some((i.name.clone(), i.value.or(input_values.get(k).copied())?)))
        .collect();
    for (ph, init) in sk.init_of.iter().enumerate() {
        let Some(init) = *init else { continue };
        if p.locations[ph].init_arbitrary.is_some() && c.rf.pairs().any(|(w, _)| w == init) {
            out.push((p.locations[ph].name.clone(), sk.events[init].value));
        }
    }
    for (th, path) in c.paths.iter().enumerate() {
        let t = &p.threads[th];
        let mut seen: std::collections::HashMap<usize, usize> = Default::default();
        for &(i, v) in &path.undefs {
            let dst = match &t.instrs[i].kind {
                crate::ir::InstrKind::Havoc { dst, .. } => dst.as_str(),
                _ => "?",
            };
            let k = seen.entry(i).or_insert(0);
            *k += 1;
            let name = match *k {
                1 => format!("{}:{dst}", t.name),
                k => format!("{}:{dst}#{k}", t.name),
            };
            out.push((name, v));
        }
    }
    out
}
