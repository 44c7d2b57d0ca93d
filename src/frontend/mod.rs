//! Front-ends: source text → [`crate::ir::Program`].

pub mod litmus;
pub mod spirv;
pub mod tagging;
