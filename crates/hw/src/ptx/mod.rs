//! PTX generator: one [`KernelSpec`] becomes one `.visible .entry` kernel
//! implementing the structure of [`crate::abi`] (slot and row, shared
//! memory in/out, roles, stress, the start barrier, phases separated by
//! `barrier.sync`, fuel on back edges, result records).
//!
//! The text is plain PTX that the CUDA driver JIT-compiles
//! ([`crate::cuda`]); nothing here needs CUDA. Accesses are emitted exactly
//! as the test states them ([`access`]); what PTX cannot express is
//! refused as `unsupported`, never approximated.

mod access;
mod asm;
mod kernel;
pub mod lint;
mod local;
mod memory;
mod stress;
pub(crate) mod target;
mod thread;
mod validate;

pub use target::{driver_max_isa, needs_cluster, PtxTarget, KNOWN_TARGETS};

use crate::abi::KernelConfig;
use crate::spec::KernelSpec;
use gpumc_core::diag::{Error, ErrorKind, Result};

/// Generates the PTX module for `spec`, compiled for `cfg`, targeting
/// `target`. The kernel's entry point is [`entry_name`]`(spec)`.
pub fn emit(spec: &KernelSpec, cfg: &KernelConfig, target: &PtxTarget) -> Result<String> {
    validate::spec(spec, cfg)?;
    target.check(spec)?;
    kernel::emit(spec, cfg, target)
}

/// The name of the kernel's entry point: `gpumc_` and the test's name with
/// every character PTX identifiers do not allow replaced by `_`.
pub fn entry_name(spec: &KernelSpec) -> String {
    const MAX_NAME: usize = 120;
    let mut name = String::from("gpumc_");
    name.extend(spec.name.chars().take(MAX_NAME).map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    }));
    name
}

/// An `unsupported` error without a source position (a spec has none).
pub(crate) fn unsupported(message: impl Into<String>) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported: {}", message.into()),
    )
}

/// A malformed spec (an index out of range, a phase count that does not
/// match the barriers): a bug in whoever built it.
pub(crate) fn malformed(message: impl Into<String>) -> Error {
    Error::new(
        ErrorKind::Semantic,
        format!("malformed kernel spec: {}", message.into()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Dialect;

    #[test]
    fn entry_names_are_ptx_identifiers() {
        let spec = KernelSpec {
            name: "MP+rel-acq (x,y)".into(),
            dialect: Dialect::Ptx,
            locations: vec![],
            threads: vec![],
            barriers: vec![],
        };
        assert_eq!(entry_name(&spec), "gpumc_MP_rel_acq__x_y_");
    }
}
