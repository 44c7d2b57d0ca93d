//! The state graph (LTS) of a test under a base progress model.
//!
//! A state is `(pcs, memory, aux)` packed into a `u128`: 4 bits of pc per
//! thread (bits 0..32), the model's `aux` bitset (bits 32..40) and one byte
//! per location (bits 40..120). Initially every pc and every location is 0
//! and `aux` is empty. In a state, every live thread `t` (pc < length) has
//! exactly one transition: it executes its instruction at pc; when the new
//! pc is the thread's length, the thread terminates in the same transition
//! (Sorensen et al., OOPSLA'21 §5.5: folding `Terminate` into the last step gives the same
//! verdicts as CADP's separate action, and a smaller graph). States with no
//! live thread are final.

use super::ast::{Axb, Test};
use super::models::Base;
use crate::diag::{Error, ErrorKind, Result};

/// Default cap on explored states for user-supplied tests.
pub const DEFAULT_STATE_LIMIT: usize = 2_000_000;

const AUX_SHIFT: u32 = 32;
const MEM_SHIFT: u32 = 40;

#[inline]
fn pc_of(s: u128, t: usize) -> usize {
    ((s >> (4 * t)) & 0xF) as usize
}

#[inline]
fn aux_of(s: u128) -> u8 {
    (s >> AUX_SHIFT) as u8
}

#[inline]
fn mem_of(s: u128, loc: u8) -> u8 {
    (s >> (MEM_SHIFT + 8 * loc as u32)) as u8
}

/// Packed states hash with the fast hasher (collision resistance is not
/// needed here).
pub use gpumc_core::fasthash::{FastHasher, FastMap};

/// The reachable state graph. Edges are stored per source state
/// (`edges[first[s]..first[s + 1]]`), each as `(destination, thread)`.
#[derive(Clone, Debug)]
pub struct Lts {
    pub base: Base,
    pub num_threads: usize,
    /// Packed states; state 0 is the initial state.
    pub states: Vec<u128>,
    /// Live (not terminated) threads of each state.
    pub live: Vec<u8>,
    /// The fair set `F` of each state (the model's `F` before the step).
    pub fair: Vec<u8>,
    pub first: Vec<u32>,
    pub edges: Vec<(u32, u8)>,
}

impl Lts {
    pub fn num_states(&self) -> usize {
        self.states.len()
    }

    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    /// The edges out of state `s`.
    pub fn succ(&self, s: usize) -> &[(u32, u8)] {
        &self.edges[self.first[s] as usize..self.first[s + 1] as usize]
    }

    /// Program counter of thread `t` in state `s`.
    pub fn pc(&self, s: usize, t: usize) -> usize {
        pc_of(self.states[s], t)
    }

    /// Value of location `loc` in state `s`.
    pub fn mem(&self, s: usize, loc: u8) -> u8 {
        mem_of(self.states[s], loc)
    }

    /// The `aux` bitset (threads that have stepped, for OBE-like models).
    pub fn aux(&self, s: usize) -> u8 {
        aux_of(self.states[s])
    }
}

/// Why exploration stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    States,
    Edges,
}

/// Explores the reachable graph of `test` under `base`, with at most
/// `max_states` states and `max_edges` edges.
pub fn explore_bounded(
    test: &Test,
    base: Base,
    max_states: usize,
    max_edges: usize,
) -> std::result::Result<Lts, Overflow> {
    let n = test.threads.len();
    debug_assert!(test.validate().is_ok());
    let lens: Vec<usize> = test.threads.iter().map(Vec::len).collect();
    let progs: Vec<&[Axb]> = test.threads.iter().map(Vec::as_slice).collect();
    let all_live: u8 = ((1u16 << n) - 1) as u8;

    let mut index: FastMap<u128, u32> = FastMap::default();
    let mut lts = Lts {
        base,
        num_threads: n,
        states: vec![0],
        live: vec![all_live],
        fair: vec![base.fair_set(all_live, 0)],
        first: vec![0],
        edges: Vec::new(),
    };
    index.insert(0, 0);
    let mut s = 0;
    while s < lts.states.len() {
        let st = lts.states[s];
        let live = lts.live[s];
        for t in 0..n {
            if live & (1 << t) == 0 {
                continue;
            }
            let pc = pc_of(st, t);
            let ins = progs[t][pc];
            let shift = MEM_SHIFT + 8 * ins.loc as u32;
            let old = (st >> shift) as u8;
            let new_pc = if old == ins.check {
                ins.target as usize
            } else {
                pc + 1
            };
            let mut next = st & !(0xFu128 << (4 * t)) | ((new_pc as u128) << (4 * t));
            if let Some(v) = ins.exch {
                next = next & !(0xFFu128 << shift) | ((v as u128) << shift);
            }
            let new_live = if new_pc == lens[t] {
                live & !(1 << t)
            } else {
                live
            };
            let aux = base.on_step(aux_of(st), t) & new_live;
            next = next & !(0xFFu128 << AUX_SHIFT) | ((aux as u128) << AUX_SHIFT);
            let id = match index.get(&next) {
                Some(&id) => id,
                None => {
                    if lts.states.len() >= max_states {
                        return Err(Overflow::States);
                    }
                    let id = lts.states.len() as u32;
                    index.insert(next, id);
                    lts.states.push(next);
                    lts.live.push(new_live);
                    lts.fair.push(base.fair_set(new_live, aux));
                    id
                }
            };
            if lts.edges.len() >= max_edges {
                return Err(Overflow::Edges);
            }
            lts.edges.push((id, t as u8));
        }
        lts.first.push(lts.edges.len() as u32);
        s += 1;
    }
    Ok(lts)
}

/// Explores with [`DEFAULT_STATE_LIMIT`]; an error when the test is
/// malformed or its graph is too large.
pub fn explore(test: &Test, base: Base) -> Result<Lts> {
    test.validate()
        .map_err(|m| Error::new(ErrorKind::Semantic, m))?;
    explore_bounded(test, base, DEFAULT_STATE_LIMIT, usize::MAX).map_err(|_| {
        Error::new(
            ErrorKind::Unsupported,
            format!("state graph exceeds {DEFAULT_STATE_LIMIT} states"),
        )
    })
}
