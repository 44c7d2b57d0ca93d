//! Liveness (`--property liveness`): can some thread be stuck forever?
//!
//! NOT IMPLEMENTED YET: `check` reports the property as unsupported. The
//! types below are the interface the driver and CLI use.

use super::safety::Verdict;
use super::Options;
use crate::cat::Model;
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Program;
use serde::Serialize;

/// Progress model per scope level (seed 003 §4; Dat3M's FAIR, HSA, OBE,
/// HSA_OBE, LOBE, UNFAIR).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgressSpec {
    /// The original text, for reports.
    pub text: String,
}

impl ProgressSpec {
    /// Parses `obe` or `default=FAIR;QF=OBE;SG=UNFAIR`.
    pub fn parse(s: &str) -> std::result::Result<ProgressSpec, String> {
        Ok(ProgressSpec {
            text: s.to_string(),
        })
    }
}

/// What a liveness violation looks like.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct LivenessViolation {
    pub description: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LivenessResult {
    pub verdict: Verdict,
    pub executions: u64,
    pub violation: Option<LivenessViolation>,
}

pub fn check(
    _p: &Program,
    _model: &Model,
    _opts: &Options,
    _progress: &ProgressSpec,
) -> Result<LivenessResult> {
    Err(Error::new(
        ErrorKind::Unsupported,
        "unsupported: --property liveness is not implemented yet",
    ))
}
