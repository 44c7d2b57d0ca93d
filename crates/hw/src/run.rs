//! Launch a planned test again and again and turn the result records into
//! a histogram of final states (the part of litmus7 after compilation).

use crate::abi;
use crate::backend::{Backend, KernelId, Launch, LaunchError};
use crate::lower::{Lowered, Source};
use crate::plan::{LaunchData, LocAt, Plan};
use crate::rng::Rng;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How long and how a run goes.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Launches (each runs `Plan::instances` instances).
    pub launches: u64,
    /// Seed of every random choice.
    pub seed: u64,
    /// Longest a single launch may take before it is abandoned.
    pub watchdog: Duration,
}

/// What the instances of a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Final states (values of the terms given to `lower`, in order) of
    /// the instances whose threads all finished.
    pub states: BTreeMap<Vec<i64>, u64>,
    /// Per state, the most loop back edges a thread of an instance in it
    /// took (how far the model must unroll loops to explain it).
    pub back_edges: BTreeMap<Vec<i64>, u32>,
    /// Instances where some thread ran out of fuel in a loop.
    pub unfinished: u64,
    /// Instances where some thread indexed out of bounds (undefined
    /// behaviour in the model: no final state to judge).
    pub out_of_bounds: u64,
    /// Instances where some thread never wrote its result record although
    /// the launch completed: the driver stopped it (seen on lavapipe,
    /// with long spin loops across workgroups; docs/HARDWARE.md). No final
    /// state to judge.
    pub lost: u64,
}

impl Counts {
    /// Every instance counted.
    pub fn total(&self) -> u64 {
        self.states.values().sum::<u64>() + self.unfinished + self.out_of_bounds + self.lost
    }

    pub fn add(&mut self, other: &Counts) {
        for (s, n) in &other.states {
            *self.states.entry(s.clone()).or_default() += n;
        }
        for (s, &b) in &other.back_edges {
            let e = self.back_edges.entry(s.clone()).or_default();
            *e = (*e).max(b);
        }
        self.unfinished += other.unfinished;
        self.out_of_bounds += other.out_of_bounds;
        self.lost += other.lost;
    }
}

/// A run's result.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub counts: Counts,
    /// Launches completed.
    pub launches: u64,
    pub instances_per_launch: usize,
    /// Wall-clock time of the launches (planning, upload, run, readback).
    pub elapsed: Duration,
    /// Device time summed over launches, when the backend measures it.
    pub device_time: Option<Duration>,
    /// Why the run stopped before `RunConfig::launches` (a watchdog or a
    /// lost device); the counts hold what finished before.
    pub error: Option<LaunchError>,
}

impl RunResult {
    /// Instances per second of wall-clock time.
    pub fn rate(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.counts.total() as f64 / s
        } else {
            0.0
        }
    }
}

/// Runs `kernel` (compiled from `lowered.spec` with `plan.config`)
/// `cfg.launches` times. `progress(done)` is called after each launch.
pub fn run(
    backend: &mut dyn Backend,
    kernel: KernelId,
    lowered: &Lowered,
    plan: &Plan,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(u64),
) -> RunResult {
    let mut rng = Rng::new(cfg.seed);
    let mut result = RunResult {
        counts: Counts::default(),
        launches: 0,
        instances_per_launch: plan.instances(),
        elapsed: Duration::ZERO,
        device_time: None,
        error: None,
    };
    let start = Instant::now();
    for _ in 0..cfg.launches {
        let data = plan.launch(&lowered.spec, &mut rng);
        let launch = Launch {
            workgroups: plan.workgroups,
            mem: &data.mem,
            table: &data.table,
            results_words: plan.results_words,
            sync_words: plan.instances().max(1),
            stress_words: plan.stress_words,
            params: &data.params,
            shared_io: &data.shared_io,
        };
        match backend.launch(kernel, &launch, cfg.watchdog) {
            Ok(out) => {
                if let Some(t) = out.device_time {
                    result.device_time = Some(result.device_time.unwrap_or_default() + t);
                }
                match decode(lowered, plan, &data, &out.results, &out.mem, &out.shared_io) {
                    Ok(c) => result.counts.add(&c),
                    Err(e) => {
                        result.error = Some(LaunchError::Failed(e));
                        break;
                    }
                }
                result.launches += 1;
                progress(result.launches);
            }
            Err(e) => {
                result.error = Some(e);
                break;
            }
        }
    }
    result.elapsed = start.elapsed();
    // One launch that lost every record happens on lavapipe now and then
    // (docs/HARDWARE.md); every launch losing every record is the
    // harness's own failure.
    if result.error.is_none()
        && result.launches > 0
        && plan.instances() > 0
        && result.counts.lost == result.counts.total()
    {
        result.error = Some(LaunchError::Failed(format!(
            "no thread of any instance wrote its result record in {} launch(es) (a harness failure)",
            result.launches
        )));
    }
    result
}

/// Reads the instances of one launch. An instance with a result record
/// that was never written (status 0) is counted as lost ([`run`] reports
/// a run in which every record of every launch was lost as an error).
pub fn decode(
    lowered: &Lowered,
    plan: &Plan,
    data: &LaunchData,
    results: &[u32],
    mem: &[u32],
    shared_io: &[u32],
) -> Result<Counts, String> {
    let mut counts = Counts::default();
    let shared_words = plan.config.shared_words;
    let word = |v: &[u32], i: usize| -> Result<u32, String> {
        v.get(i).copied().ok_or_else(|| {
            format!(
                "the launch returned too few words (index {i} of {})",
                v.len()
            )
        })
    };
    for i in 0..plan.instances() {
        let base = plan.result_base(i);
        let mut fuel = false;
        let mut oob = false;
        let mut lost = false;
        let mut edges = 0u32;
        for (t, &b) in base.iter().enumerate() {
            edges = edges.max(word(results, b as usize + abi::RES_BACK_EDGES)?);
            match word(results, b as usize + abi::RES_STATUS)? {
                abi::STATUS_DONE => {}
                abi::STATUS_OUT_OF_FUEL => fuel = true,
                abi::STATUS_OUT_OF_BOUNDS => oob = true,
                0 => lost = true,
                s => {
                    return Err(format!(
                        "thread {} of instance {i} wrote status {s}",
                        lowered.spec.threads[t].name
                    ))
                }
            }
        }
        if lost {
            counts.lost += 1;
            continue;
        }
        if oob {
            counts.out_of_bounds += 1;
            continue;
        }
        if fuel {
            counts.unfinished += 1;
            continue;
        }
        let mut state = Vec::with_capacity(lowered.sources.len());
        for s in &lowered.sources {
            let v = match s {
                Source::Const(c) => *c,
                Source::Reg { thread, slot } => {
                    let w = word(results, base[*thread] as usize + abi::RES_REGS + slot)?;
                    i64::from(w as i32)
                }
                Source::Loc(l) => {
                    let w = match data.locs[i][*l] {
                        LocAt::Mem(a) => word(mem, a as usize)?,
                        LocAt::Shared { wg, word: a } => {
                            word(shared_io, (wg * shared_words + a) as usize)?
                        }
                    };
                    i64::from(w as i32)
                }
            };
            state.push(v);
        }
        let e = counts.back_edges.entry(state.clone()).or_default();
        *e = (*e).max(edges);
        *counts.states.entry(state).or_default() += 1;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests;
