//! gpumc: verification of concurrent GPU code against axiomatic memory
//! models and GPU progress models.
//!
//! This is the command-line crate of the workspace (see `ARCHITECTURE.md`).
//! Its library keeps the one-crate paths (`gpumc::driver`, `gpumc::ir`, …)
//! for library users and the tests, by re-exporting the pipeline crates:
//! front-ends ([`frontend`]) → program IR ([`ir`]) → events and candidate
//! executions ([`engine`]) → models in the `.cat` language ([`cat`],
//! [`models`]) → verdicts and reports ([`report`]). The progress-model
//! toolkit ([`progress`]) stands beside it. What is its own is the part
//! that needs clap or talks to processes: test generation with its option
//! enums ([`gen`]), the `gpumc progress` subcommands ([`progress::cli`]),
//! worker-process isolation ([`isolate`]), the progress bar ([`bar`]), one
//! fuzz input per input format for the fuzz targets and the tests
//! ([`fuzzing`]), and the HTML reports ([`html`]), which combine
//! verification reports and hardware runs.

pub use gpumc_compile as compile;
pub use gpumc_core::{cat, diag, guard, ir, models, rel, vocab};
pub use gpumc_diy as diy;
pub use gpumc_frontend as frontend;
pub use gpumc_mapping as mapping;
pub use gpumc_verify::{driver, engine, report};

pub mod bar;
pub mod fuzzing;
pub mod gen;
pub mod html;
pub mod isolate;

/// The progress-model toolkit (`gpumc-progress`) and its subcommands.
pub mod progress {
    pub use gpumc_progress::*;
    pub mod cli;
}
