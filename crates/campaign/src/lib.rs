//! gpumc-campaign: litmus tests on GPU hardware, judged by the model.
//!
//! [`runner`] runs one test on a `gpumc_hw` backend and judges every
//! observed final state with [`conform`] (the explicit and symbolic
//! engines of `gpumc_verify`); [`report`] is the result, as text (litmus7's
//! histogram, herd's `Observation` line) and JSON. The rest builds on it:
//! resumable campaigns over many tests, the mutation score of a harness
//! (Levine et al., ASPLOS 2023), parameter tuning.

pub mod conform;
pub mod journal;
pub mod mutants;
pub mod report;
pub mod runner;
pub mod store;
pub mod tune;
