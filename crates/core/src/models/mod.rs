//! Our consistency models, embedded as `.cat` text, and the loader that
//! accepts either an embedded name or a path to a user `.cat` file.

use crate::cat::{CoSource, Model};
use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Coherence;
use std::path::{Path, PathBuf};

/// Embedded models: (name, file name, text). Written by us from the papers
/// (see docs/MODELS.md); every axiom names its source.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("ptx-v6.0", include_str!("../../models/ptx-v6.0.cat")),
    ("ptx-v7.5", include_str!("../../models/ptx-v7.5.cat")),
    ("vulkan", include_str!("../../models/vulkan.cat")),
    (
        "vulkan-nochains",
        include_str!("../../models/vulkan-nochains.cat"),
    ),
    ("scoped-c11", include_str!("../../models/scoped-c11.cat")),
    ("scoped-rc11", include_str!("../../models/scoped-rc11.cat")),
    ("opencl", include_str!("../../models/opencl.cat")),
];

/// Extra embedded files that models may `include`.
const INCLUDES: &[(&str, &str)] = &[(
    "vulkan-common",
    include_str!("../../models/vulkan-common.cat"),
)];

fn embedded(name: &str) -> Option<&'static str> {
    let stem = name.strip_suffix(".cat").unwrap_or(name);
    EMBEDDED
        .iter()
        .chain(INCLUDES)
        .find(|(n, _)| *n == stem)
        .map(|(_, t)| *t)
}

fn resolve_include(name: &str, _from: &Path) -> Option<(PathBuf, String)> {
    embedded(name).map(|t| (PathBuf::from(format!("<embedded>/{name}")), t.to_string()))
}

/// Parses a model's text as [`load`] does a model file at `path`: an
/// `include` is looked for next to `path`, then among the embedded files.
/// A path without a directory (the empty path) makes the embedded files
/// the only ones an `include` can reach (the fuzz targets, which must not
/// read whatever file an input names).
pub fn parse_text(text: &str, path: &Path) -> Result<Model> {
    let base = |n: &str| crate::vocab::base_kind(n, None);
    Model::parse(text, path, &resolve_include, &base)
}

/// Loads a model by embedded name or file path.
pub fn load(name: &str) -> Result<Model> {
    if let Some(text) = embedded(name) {
        let path = PathBuf::from(format!("<embedded>/{name}.cat"));
        return parse_text(text, &path);
    }
    let path = Path::new(name);
    if path.exists() {
        let text = crate::diag::read_text(path)?;
        let mut model = parse_text(&text, path)?;
        // A model from a file is read as herd7 reads it: total `co` per
        // location and herd's C events, unless it says it is written for
        // gpumc (docs/MODELS.md).
        if model.coherence_override().is_none() {
            model.set_coherence(Coherence::Total, CoSource::Herd);
            model.set_herd_events(true);
        }
        return Ok(model);
    }
    Err(Error::new(
        ErrorKind::Usage,
        format!(
            "unknown model `{}`: not an embedded model ({}) and no such file",
            crate::diag::excerpt(name),
            EMBEDDED
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}
