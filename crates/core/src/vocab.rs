//! The names a model may use without defining them: the base sets and
//! relations every execution provides (docs/EVENTS.md), and the tag
//! vocabulary of one program. They live here, below both the model loader
//! and the engines, so that a model can be type-checked without an engine.

use crate::ir::Program;

/// Base names the engine provides (docs/EVENTS.md).
pub const BASE_RELATIONS: &[&str] = &[
    "id",
    "po",
    "int",
    "ext",
    "loc",
    "vloc",
    "rf",
    "co",
    "fr",
    "rmw",
    "addr",
    "data",
    "ctrl",
    "sr",
    "scta",
    "ssg",
    "swg",
    "sqf",
    "ssw",
    "sync_barrier",
    "syncbar",
    "sync_fence",
];

/// Tag names every program provides (empty when no event carries them).
pub const BASE_TAGS: &[&str] = &[
    "R",
    "W",
    "M",
    "F",
    "B",
    "IW",
    "I",
    "RMW",
    "WEAK",
    "RLX",
    "ACQ",
    "REL",
    "ACQ_REL",
    "SC",
    "CTA",
    "GPU",
    "SYS",
    "GEN",
    "SUR",
    "TEX",
    "CON",
    "ALIAS",
    "PROXY",
    "CBAR",
    "ARRIVE",
    "ATOM",
    "A",
    "NONPRIV",
    "SG",
    "WG",
    "QF",
    "DV",
    "SC0",
    "SC1",
    "SC2",
    "SC3",
    "SEMSC0",
    "SEMSC1",
    "SEMSC2",
    "SEMSC3",
    "AV",
    "VIS",
    "SEMAV",
    "SEMVIS",
    "AVDEVICE",
    "VISDEVICE",
    // SPIR-V SequentiallyConsistent semantics (also ACQ and REL): the
    // `opencl` model's memory_order_seq_cst.
    "SEQCST",
    // The GPU_PTX front-end: `.volatile`, and the cache operators of weak
    // `ld`/`st` (docs/EVENTS.md), so that a model can tell them apart.
    "VOLATILE",
    "CA",
    "CG",
    "CS",
    "CV",
    "LU",
    "WB",
    "WT",
    // The C front-end: a non-atomic (plain) access (docs/EVENTS.md).
    "NA",
];

/// Tag names interned per program.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    pub tags: Vec<String>,
}

impl Vocabulary {
    pub fn for_program(p: &Program) -> Self {
        let mut v = Vocabulary::default();
        for t in BASE_TAGS {
            v.intern(t);
        }
        for th in &p.threads {
            for ins in &th.instrs {
                for t in ins.all_tags() {
                    v.intern(t);
                }
            }
        }
        v
    }

    pub fn intern(&mut self, t: &str) -> usize {
        if let Some(i) = self.index(t) {
            return i;
        }
        self.tags.push(t.to_string());
        self.tags.len() - 1
    }

    pub fn index(&self, t: &str) -> Option<usize> {
        self.tags.iter().position(|x| x == t)
    }
}

/// Whether `name` is a base set or relation the engine provides.
pub fn base_kind(name: &str, vocab: Option<&Vocabulary>) -> Option<crate::cat::BaseKind> {
    if BASE_RELATIONS.contains(&name) {
        Some(crate::cat::BaseKind::Relation)
    } else if BASE_TAGS.contains(&name) || vocab.is_some_and(|v| v.index(name).is_some()) {
        Some(crate::cat::BaseKind::Set)
    } else {
        None
    }
}
