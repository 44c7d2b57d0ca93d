//! gpumc-hw: litmus tests on real GPUs, the `litmus7` side of gpumc.
//!
//! A test (`gpumc_core::ir::Program`) is lowered to a [`spec::KernelSpec`]
//! (`lower`), which a generator turns into a GPU kernel — SPIR-V for the
//! Vulkan backend ([`spirv`], [`vulkan`]), PTX for the CUDA backend
//! ([`ptx`], [`cuda`]). The host side is shared: [`plan`] places many test
//! instances in one launch (randomised thread and memory placement, stress
//! workgroups, bank-conflict shadows, the start barrier), [`run`] launches
//! and turns result records into a histogram of final states. Both
//! backends load their driver library at run time, so this crate builds
//! and runs without Vulkan or CUDA installed (`docs/HARDWARE.md`).

pub mod abi;
pub mod backend;
pub mod cuda;
pub mod interp;
pub mod lower;
pub mod params;
pub mod plan;
pub mod ptx;
pub mod rng;
pub mod run;
pub mod spec;
pub mod spirv;
pub mod vulkan;
