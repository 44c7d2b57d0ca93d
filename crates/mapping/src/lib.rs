//! gpumc-mapping: bounded soundness of a compilation mapping (Lustig et
//! al., ASPLOS'19, sec. 5.2 and 6.1): every source program up to a number
//! of events ([`enumerate`]) is compiled, and every execution of the
//! compiled program that the target model accepts is lifted back to the
//! source; one that is well-formed, race-free and violates a source axiom
//! is a counterexample ([`explicit`]).

pub mod enumerate;
pub mod explicit;
pub mod search;
pub mod source;
pub mod symbolic;

use gpumc_core::{cat, diag, ir, rel};
use gpumc_frontend as frontend;
use gpumc_verify::engine;

pub use diag::Result;

/// A compiled program: `origin[t][k]` is the index of the source
/// instruction (of thread `t`) that target instruction `k` came from.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub program: ir::Program,
    pub origin: Vec<Vec<Option<usize>>>,
}

/// Compiles a source program (the mapping and target are fixed).
pub type CompileFn<'a> = dyn Fn(&ir::Program) -> Result<Lowered> + Sync + 'a;
