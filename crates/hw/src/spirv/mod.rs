//! SPIR-V generation for the Vulkan backend: one compute shader per
//! [`KernelSpec`], structured exactly as [`crate::abi`] describes, using
//! the Vulkan memory model (`OpMemoryModel Logical Vulkan`).
//!
//! The module is encoded directly ([`words`]); the parts are: the
//! declarations and the kernel's top-level structure ([`kernel`]), the
//! harness around the test ([`harness`], [`stress`]), a thread's phases as
//! structured control flow with fuel ([`thread`]), memory operations
//! ([`access`]), register arithmetic ([`local`]), and the Vulkan
//! validation rules a stated access can break ([`rules`]).

mod access;
mod builder;
mod harness;
mod kernel;
mod local;
mod op;
pub mod rules;
mod stress;
mod thread;
mod words;

use crate::abi::KernelConfig;
use crate::spec::{Dialect, KernelSpec};
use gpumc_core::diag::{Error, ErrorKind, Result};

/// The SPIR-V module (1.5 words) running `spec` with `cfg`.
///
/// A `Dialect::Ptx` spec, or one whose indices or sizes do not fit
/// together, is a usage error; an access, fence or barrier the Vulkan
/// environment rejects (see [`rules`]) is `unsupported`, naming the rule.
pub fn emit(spec: &KernelSpec, cfg: &KernelConfig) -> Result<Vec<u32>> {
    if spec.dialect != Dialect::Vulkan {
        return Err(usage(format!(
            "{}: the SPIR-V generator takes Vulkan-dialect specs, not {:?}",
            spec.name, spec.dialect
        )));
    }
    kernel::check_shape(spec, cfg)?;
    kernel::Kernel::new(spec, cfg).emit()
}

/// A spec that contradicts itself or the config (a bug in whoever built it).
fn usage(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Usage, message)
}

/// Something valid the Vulkan environment cannot express.
fn unsupported(message: impl Into<String>) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        format!("unsupported: {}", message.into()),
    )
}
