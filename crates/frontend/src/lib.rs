//! gpumc-frontend: source text → [`gpumc_core::ir::Program`] — the Dat3M
//! PTX and Vulkan litmus dialects ([`litmus`]) and SPIR-V assembly
//! ([`spirv`]), PTX modules ([`ptx`]) and CUDA sources compiled to PTX by
//! clang ([`cuda`]), GLSL compute shaders compiled to SPIR-V by glslang
//! ([`glsl`]), with the tag conventions they share ([`tagging`]).

// The core modules under their usual names, so that paths read
// `crate::ir::…` as they did in the single crate.
use gpumc_core::{diag, ir};

pub mod cuda;
pub mod cuda_params;
pub mod generic;
pub mod glsl;
pub mod litmus;
pub mod opencl;
pub mod ptx;
mod scratch;
pub mod spirv;
pub mod tagging;
