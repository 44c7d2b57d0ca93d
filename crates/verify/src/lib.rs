//! gpumc-verify: events and candidate executions of a program, checked
//! against a `.cat` model by the explicit or the SAT engine ([`engine`]),
//! the properties (safety, races, liveness), the library front door that
//! checks a file ([`driver`]) and the text/JSON reports ([`report`]).

pub mod driver;
pub mod engine;
pub mod kernel_scale;
pub mod report;

// The modules of the crates below under their usual names, so that paths
// read `crate::ir::…`, `crate::frontend::…` as they did in the single crate.
use gpumc_core::{cat, diag, guard, ir, models, rel};
use gpumc_frontend as frontend;
