//! Which registers hold addresses, at each point of a thread.
//!
//! `GPU_PTX` tests address memory through registers (`[r1]` with `r1 =
//! x`), and the thesis's address dependencies compute an address at run
//! time (`add.s64 r5, r3, r4`, `r4` derived from a loaded value). The IR
//! has no pointers: a location is fixed, or one of a list of cells chosen
//! by an index register. So the front-end tracks statically which
//! location each address register points into (its *base*), while the IR
//! register keeps the run-time *offset* from that base (0 for `= x`). An
//! access `[r]` is then `base` when the offset is known to be 0, and
//! otherwise the cell list `[base]` indexed by `r`: offset 0 in bounds,
//! anything else out of bounds (undefined behaviour).
//!
//! The facts flow forward in program order. Labels join the facts of the
//! fall-through and of every jump already seen to them; a jump back to a
//! label already passed (a loop) must not change them (refused
//! otherwise), so one pass suffices.

use crate::diag::{Error, Result};
use crate::ir::{LocId, Pos};
use std::collections::{BTreeMap, HashMap};

/// What a register holds, when it holds an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fact {
    /// An address into `base`; `zero`: the offset is known to be 0.
    Addr { base: LocId, zero: bool },
    /// Different things on different paths (addresses of different
    /// locations, or an address on one path and a value on another).
    Mixed,
}

/// Facts for the registers that hold addresses (the others hold values).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Facts(BTreeMap<String, Fact>);

impl Facts {
    pub fn get(&self, reg: &str) -> Option<Fact> {
        self.0.get(reg).copied()
    }

    pub fn set(&mut self, reg: &str, fact: Option<Fact>) {
        match fact {
            Some(f) => {
                self.0.insert(reg.to_string(), f);
            }
            None => {
                self.0.remove(reg);
            }
        }
    }

    /// The facts that hold after either path.
    fn join(&self, other: &Facts) -> Facts {
        let mut out = BTreeMap::new();
        for reg in self.0.keys().chain(other.0.keys()) {
            let f = match (self.get(reg), other.get(reg)) {
                (
                    Some(Fact::Addr { base: a, zero: za }),
                    Some(Fact::Addr { base: b, zero: zb }),
                ) if a == b => Fact::Addr {
                    base: a,
                    zero: za && zb,
                },
                _ => Fact::Mixed,
            };
            out.insert(reg.clone(), f);
        }
        Facts(out)
    }
}

/// The facts along one thread, as its instructions are read in order.
pub(super) struct Flow {
    cur: Facts,
    /// False after an unconditional jump, until the next label.
    reachable: bool,
    /// Facts at labels already passed.
    at_label: HashMap<String, Facts>,
    /// Facts of forward jumps to labels not yet reached.
    pending: HashMap<String, Facts>,
}

impl Flow {
    pub fn new(start: Facts) -> Flow {
        Flow {
            cur: start,
            reachable: true,
            at_label: HashMap::new(),
            pending: HashMap::new(),
        }
    }

    /// The facts before the next instruction.
    pub fn facts(&self) -> &Facts {
        &self.cur
    }

    pub fn set(&mut self, reg: &str, fact: Option<Fact>) {
        self.cur.set(reg, fact);
    }

    /// Label `l` is next: the facts join those of the jumps to it.
    pub fn label(&mut self, l: &str) {
        if let Some(p) = self.pending.remove(l) {
            self.cur = if self.reachable { self.cur.join(&p) } else { p };
        }
        self.reachable = true;
        self.at_label.insert(l.to_string(), self.cur.clone());
    }

    /// A jump to `l` here (`always`: unconditional). A jump back must
    /// find the facts the label was read with.
    pub fn jump(&mut self, l: &str, always: bool, pos: Pos) -> Result<()> {
        if let Some(seen) = self.at_label.get(l) {
            if seen.join(&self.cur) != *seen {
                return Err(Error::unsupported(
                    pos,
                    format!(
                        "a register holds a different address when this jump returns to \
                         `{l}` (addresses must not change around a loop)"
                    ),
                ));
            }
        } else {
            let joined = match self.pending.get(l) {
                Some(p) => p.join(&self.cur),
                None => self.cur.clone(),
            };
            self.pending.insert(l.to_string(), joined);
        }
        if always {
            self.reachable = false;
        }
        Ok(())
    }
}
