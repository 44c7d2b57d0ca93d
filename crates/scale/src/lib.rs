//! gpumc-scale: work too big for one machine, split into deterministic
//! shards that run on existing engines (Slurm job arrays, Kubernetes
//! Indexed Jobs) and merged afterwards (docs/SCALE-OUT.md).
//!
//! A batch command lists its items (tests, CSV rows, program shapes) in a
//! fixed order with a cost estimate each; [`assign`] gives every item to
//! one of N shards, the same way on every machine; shard K does its items
//! and appends one record per item to its [`journal`] (a re-run resumes
//! after the records already there); [`merge`] reads every shard's journal
//! back in item order, or says which shards are missing or unfinished.
//! This crate knows nothing of what a record holds: the command that
//! wrote the records renders the merged output.

pub mod assign;
pub mod journal;
pub mod merge;
pub mod shard;

pub use assign::{assign, select};
pub use journal::{Header, Journal};
pub use merge::{merge, merge_dir, Merged};
pub use shard::Shard;
