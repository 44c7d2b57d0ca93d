//! gpumc-progress: the progress-model toolkit (Sorensen et al., OOPSLA'21).
//!
//! * [`ast`]: the AXB language (one instruction, `ATOMIC_EXCH_BRANCH`);
//! * [`parse`] / [`print`]: the two corpus text forms (`<id>.txt` and
//!   `<id>_simple.txt`), read into one representation and printed back;
//! * [`models`]: the 11 progress models (unfair; fair, HSA, OBE, HSA+OBE and
//!   LOBE, each under weak and strong fairness);
//! * [`lts`]: the product state graph of a test and a progress model;
//! * [`oracle`]: the termination oracle (SCCs for weak fairness, backward
//!   reachability for strong fairness, a plain cycle check for unfair);
//! * [`table`]: distinguishing / conformance classification (Sorensen et al., OOPSLA'21 Table 4);
//! * [`synth`]: exhaustive synthesis of the paper's test space;
//! * [`export`]: translation to Dat3M Vulkan / PTX litmus tests with spinloops;
//! * [`corpus`]: loading test files and directories;
//!
//! The `gpumc progress ...` subcommands live in the `gpumc` crate
//! (`gpumc::progress::cli`), which owns all argument parsing.
//!
//! `docs/PROGRESS.md` gives the precise semantics implemented here.

pub mod ast;
pub mod corpus;
pub mod export;
pub mod lts;
pub mod models;
pub mod oracle;
pub mod parse;
pub mod print;
pub mod synth;
pub mod table;

pub use ast::{Axb, Test};
pub use models::{Base, Fairness, Model};
pub use oracle::{decide, decide_all, Verdict, Verdicts};

// The core modules under their usual names (`crate::ir::…`).
use gpumc_core::{diag, ir};
