//! Shared by the `ptx_*` and `cuda_*` tests: hand-built kernel specs
//! (`specs`), the scenarios that run them with known results
//! (`scenarios`), and finding `ptxas`.
#![allow(dead_code)]

pub mod build;
pub mod interp;
pub mod ptxas;
pub mod scenarios;
pub mod specs;
