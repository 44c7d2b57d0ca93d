//! PTX kernels: the text `nvcc -ptx` and `clang --cuda-device-only -S`
//! write (`*.ptx`), as opposed to the PTX litmus dialect of
//! `crate::litmus`. `ast` is the syntax tree; see docs/PTX-KERNELS.md.

pub mod ast;
mod lex;
pub mod parse;
#[cfg(test)]
mod parse_tests;
