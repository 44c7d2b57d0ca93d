//! The AXB language (Sorensen et al., OOPSLA'21 §3): threads are lists of `ATOMIC_EXCH_BRANCH`
//! instructions over a global memory of small integer locations, all
//! initially 0. A thread's only local state is its program counter.

use serde::Serialize;

/// Most threads a test may have (thread sets are `u8` bitsets).
pub const MAX_THREADS: usize = 8;
/// Most instructions one thread may have (a pc fits in 4 bits, END included).
pub const MAX_INSTRS: usize = 15;
/// Locations are `0..MAX_LOCS` (the paper's LNT memory has 10 cells).
pub const MAX_LOCS: usize = 10;

/// One `ATOMIC_EXCH_BRANCH(loc, check, target, exch.is_some(), exch)`:
/// atomically, `pc := (mem[loc] == check) ? target : pc + 1`, then, when
/// `exch` is present, `mem[loc] := exch`. The comparison reads the old value.
///
/// `target` is an instruction index of the same thread; the thread's length
/// stands for `END` (terminate).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Axb {
    pub loc: u8,
    pub check: u8,
    pub exch: Option<u8>,
    pub target: u8,
}

/// The surface shape of an instruction at index `idx` (for printing and
/// export). All shapes have the same [`Axb`] semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `atomic_store(loc, val)` / `Mem[loc] = val;`: both branches go to the
    /// next instruction, comparison value 0, with an exchange.
    Store { loc: u8, val: u8 },
    /// `atomic_chk_branch(loc, chk, tgt)` / `if (Mem[loc] == chk) goto tgt;`.
    ChkBranch { loc: u8, check: u8, target: u8 },
    /// `atomic_exch_branch(loc, chk, exch, tgt)` /
    /// `if (Exch(Mem[loc],exch) == chk) goto tgt;`.
    ExchBranch {
        loc: u8,
        check: u8,
        exch: u8,
        target: u8,
    },
}

impl Axb {
    /// A plain store at index `idx`.
    pub fn store(idx: usize, loc: u8, val: u8) -> Axb {
        Axb {
            loc,
            check: 0,
            exch: Some(val),
            target: idx as u8 + 1,
        }
    }

    /// True when both branch outcomes lead to the same place (the paper's
    /// "store-like" instructions, `po = branch_target`).
    pub fn is_store_like(&self, idx: usize) -> bool {
        self.target as usize == idx + 1
    }

    /// The surface form used by the corpus converter: a store-like
    /// instruction with an exchange and comparison value 0 prints as a store.
    pub fn shape(&self, idx: usize) -> Shape {
        match self.exch {
            Some(val) if self.is_store_like(idx) && self.check == 0 => {
                Shape::Store { loc: self.loc, val }
            }
            Some(exch) => Shape::ExchBranch {
                loc: self.loc,
                check: self.check,
                exch,
                target: self.target,
            },
            None => Shape::ChkBranch {
                loc: self.loc,
                check: self.check,
                target: self.target,
            },
        }
    }
}

/// A progress litmus test: thread `t` runs `threads[t]`; thread ids order
/// the threads for HSA and LOBE.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Test {
    pub threads: Vec<Vec<Axb>>,
}

impl Test {
    pub fn num_threads(&self) -> usize {
        self.threads.len()
    }

    /// Total number of instructions over all threads.
    pub fn num_instructions(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// Distinct locations used, sorted.
    pub fn locations(&self) -> Vec<u8> {
        let mut locs: Vec<u8> = self.threads.iter().flatten().map(|i| i.loc).collect();
        locs.sort_unstable();
        locs.dedup();
        locs
    }

    /// Checks the structural limits ([`MAX_THREADS`], [`MAX_INSTRS`],
    /// [`MAX_LOCS`], targets within the thread). The parser reports the same
    /// conditions with positions; this is for tests built in code.
    pub fn validate(&self) -> Result<(), String> {
        if self.threads.is_empty() {
            return Err("a test needs at least one thread".into());
        }
        if self.threads.len() > MAX_THREADS {
            return Err(format!("at most {MAX_THREADS} threads are supported"));
        }
        for (t, thread) in self.threads.iter().enumerate() {
            if thread.is_empty() {
                return Err(format!("thread {t} has no instructions"));
            }
            if thread.len() > MAX_INSTRS {
                return Err(format!(
                    "thread {t}: at most {MAX_INSTRS} instructions are supported"
                ));
            }
            for (i, ins) in thread.iter().enumerate() {
                if ins.loc as usize >= MAX_LOCS {
                    return Err(format!(
                        "thread {t} instruction {i}: location {} out of range",
                        ins.loc
                    ));
                }
                if ins.target as usize > thread.len() {
                    return Err(format!(
                        "thread {t} instruction {i}: target {} out of range",
                        ins.target
                    ));
                }
            }
        }
        Ok(())
    }

    /// The test with locations renumbered in order of first use (thread
    /// order, then instruction order). This is the canonical form under the
    /// location-renaming symmetry (values are not symmetric: memory starts
    /// at 0; threads are not: ids matter to HSA and LOBE).
    pub fn canonical_locations(&self) -> Test {
        let mut map = [u8::MAX; 256];
        let mut next = 0u8;
        let threads = self
            .threads
            .iter()
            .map(|thread| {
                thread
                    .iter()
                    .map(|ins| {
                        if map[ins.loc as usize] == u8::MAX {
                            map[ins.loc as usize] = next;
                            next += 1;
                        }
                        Axb {
                            loc: map[ins.loc as usize],
                            ..*ins
                        }
                    })
                    .collect()
            })
            .collect();
        Test { threads }
    }
}
