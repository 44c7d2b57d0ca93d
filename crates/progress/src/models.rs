//! The progress models of Sorensen et al., OOPSLA'21 §4 as executable semantics.
//!
//! A progress model tracks, along an execution, the set `F` of live threads
//! that are guaranteed fair execution at each point (the paper's LNT
//! processes of Figs 4, 13–17). Every model here keeps one bitset of
//! auxiliary state, `aux`, beside the pcs and the memory:
//!
//! | base    | `F` in a state                               | `aux` after thread `t` steps |
//! |---------|----------------------------------------------|------------------------------|
//! | unfair  | ∅                                            | –                            |
//! | fair    | live                                         | –                            |
//! | HSA     | {min live}                                   | –                            |
//! | OBE     | aux ∩ live (threads that have stepped)       | aux ∪ {t}                    |
//! | HSA+OBE | (aux ∩ live) ∪ {min live}                    | aux ∪ {t}                    |
//! | LOBE    | aux ∩ live                                   | aux ∪ {0..=t}                |
//!
//! `aux` is kept intersected with the live threads (a terminated thread
//! leaves `F` for ever, as in the LNT `Terminate` branches). The five
//! non-unfair bases each come in a weak and a strong variant, which differ
//! only in how the oracle reads the state graph ([`super::oracle`]).

use serde::Serialize;
use std::fmt;

/// The six base models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Base {
    Unfair,
    Fair,
    Hsa,
    Obe,
    HsaObe,
    Lobe,
}

impl Base {
    pub const ALL: [Base; 6] = [
        Base::Unfair,
        Base::Fair,
        Base::Hsa,
        Base::Obe,
        Base::HsaObe,
        Base::Lobe,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Base::Unfair => "unfair",
            Base::Fair => "fair",
            Base::Hsa => "hsa",
            Base::Obe => "obe",
            Base::HsaObe => "hsa-obe",
            Base::Lobe => "lobe",
        }
    }

    /// Whether the model's `F` depends on `aux` (threads that have stepped).
    pub fn uses_aux(self) -> bool {
        matches!(self, Base::Obe | Base::HsaObe | Base::Lobe)
    }

    /// `aux` after thread `tid` takes a step (before intersecting with the
    /// live threads).
    #[inline]
    pub fn on_step(self, aux: u8, tid: usize) -> u8 {
        match self {
            Base::Obe | Base::HsaObe => aux | (1 << tid),
            Base::Lobe => aux | (((1u16 << (tid + 1)) - 1) as u8),
            Base::Unfair | Base::Fair | Base::Hsa => 0,
        }
    }

    /// The fair set `F` of a state with live threads `live` and `aux`.
    #[inline]
    pub fn fair_set(self, live: u8, aux: u8) -> u8 {
        let lowest = live & live.wrapping_neg();
        match self {
            Base::Unfair => 0,
            Base::Fair => live,
            Base::Hsa => lowest,
            Base::Obe | Base::Lobe => aux & live,
            Base::HsaObe => (aux & live) | lowest,
        }
    }
}

/// Weak or strong fairness (Sorensen et al., OOPSLA'21 §2.2, §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Fairness {
    Weak,
    Strong,
}

/// One of the 11 progress models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Model {
    pub base: Base,
    /// `None` exactly for the unfair model.
    pub fairness: Option<Fairness>,
}

impl Model {
    pub const UNFAIR: Model = Model {
        base: Base::Unfair,
        fairness: None,
    };

    pub const fn weak(base: Base) -> Model {
        Model {
            base,
            fairness: Some(Fairness::Weak),
        }
    }

    pub const fn strong(base: Base) -> Model {
        Model {
            base,
            fairness: Some(Fairness::Strong),
        }
    }

    /// The 11 models in a fixed order (the index order of
    /// [`super::oracle::Verdicts`]).
    pub const ALL: [Model; 11] = [
        Model::UNFAIR,
        Model::weak(Base::Fair),
        Model::strong(Base::Fair),
        Model::weak(Base::Hsa),
        Model::strong(Base::Hsa),
        Model::weak(Base::Obe),
        Model::strong(Base::Obe),
        Model::weak(Base::HsaObe),
        Model::strong(Base::HsaObe),
        Model::weak(Base::Lobe),
        Model::strong(Base::Lobe),
    ];

    /// Index in [`Model::ALL`].
    pub fn index(self) -> usize {
        Model::ALL.iter().position(|&m| m == self).unwrap_or(0)
    }

    /// The canonical name: `unfair`, `weak-fair`, `strong-hsa-obe`, ...
    /// (lower case, words joined by `-`; the base as the liveness check's
    /// `--progress` spells it).
    pub fn name(self) -> String {
        match self.fairness {
            None => "unfair".to_string(),
            Some(Fairness::Weak) => format!("weak-{}", self.base.name()),
            Some(Fairness::Strong) => format!("strong-{}", self.base.name()),
        }
    }

    /// Parses a model name: the canonical name ([`Model::name`]) or an
    /// alias — any case; `_`, `+` or nothing for `-` (`weak_hsa_obe`,
    /// `WEAK-HSA+OBE`, `weak-hsaobe`); and a base without `weak-`/`strong-`
    /// (`obe`, Dat3M's `HSA_OBE`) is the weak variant, the fairness of
    /// `gpumc check --property liveness --progress`.
    pub fn from_name(name: &str) -> Option<Model> {
        let squash = |s: &str| -> String {
            s.chars()
                .filter(|c| !matches!(c, '-' | '_' | '+'))
                .flat_map(char::to_lowercase)
                .collect()
        };
        let n = squash(name.trim());
        if n.is_empty() {
            return None;
        }
        let weak_default = |m: &Model| m.fairness != Some(Fairness::Strong);
        Model::ALL
            .into_iter()
            .find(|m| squash(&m.name()) == n || (weak_default(m) && squash(m.base.name()) == n))
    }

    /// All CLI names, comma-separated (for messages).
    pub fn all_names() -> String {
        Model::ALL
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl Serialize for Model {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}
