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
}

impl Witness {
    pub fn from_candidate(c: &Candidate<'_, '_>, state: Vec<(String, i64)>) -> Self {
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
        }
    }
}
