//! gpumc: verification of concurrent GPU code against axiomatic memory
//! models and GPU progress models.
//!
//! The crate follows the analysis pipeline (see `ARCHITECTURE.md`):
//! front-ends ([`frontend`]) → program IR ([`ir`]) → events and candidate
//! executions ([`engine`]) → models in the `.cat` language ([`cat`],
//! [`models`]) → verdicts and reports ([`report`]). The progress-model
//! toolkit ([`progress`]) stands beside it.

pub mod cat;
pub mod diag;
pub mod driver;
pub mod engine;
pub mod frontend;
pub mod gen;
pub mod guard;
pub mod ir;
pub mod isolate;
pub mod models;
pub mod progress;
pub mod rel;
pub mod report;
