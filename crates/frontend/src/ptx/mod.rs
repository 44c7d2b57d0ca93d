//! PTX kernels: the text `nvcc -ptx` and `clang --cuda-device-only -S`
//! write (`*.ptx`), as opposed to the PTX litmus dialect of
//! `crate::litmus`. `ast` is the syntax tree, `launch` the launch
//! configuration, `lower` the translation of a kernel and a launch to an
//! IR program; see docs/PTX-KERNELS.md.

pub mod ast;
pub mod launch;
pub mod lower;
