//! Progress models (Sorensen et al., OOPSLA'21 §4) and which threads they guarantee to be
//! scheduled fairly, per scope level.
//!
//! A progress model decides, among sibling *entities* (threads of one
//! subgroup, subgroups of one workgroup, …), which ones are guaranteed
//! fair execution, from three facts about each entity: its id (its index
//! among the siblings), whether it has taken a step, and whether it has
//! terminated. See docs/LIVENESS.md for the exact definitions.

use crate::ir::{Arch, Program};
use std::fmt;

/// One of the six progress models of Sorensen et al., OOPSLA'21, as the
/// liveness check uses them (weakly fair; `gpumc progress` has the strong
/// variants too).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProgressModel {
    /// Every non-terminated entity is fair.
    Fair,
    /// The non-terminated entity with the lowest id is fair.
    Hsa,
    /// Entities that have taken a step (and not terminated) are fair.
    Obe,
    /// The union of HSA and OBE.
    HsaObe,
    /// Non-terminated entities whose id is at most the id of some entity
    /// that has taken a step.
    Lobe,
    /// No entity is guaranteed anything.
    Unfair,
}

impl ProgressModel {
    pub const ALL: [ProgressModel; 6] = [
        ProgressModel::Fair,
        ProgressModel::Hsa,
        ProgressModel::Obe,
        ProgressModel::HsaObe,
        ProgressModel::Lobe,
        ProgressModel::Unfair,
    ];

    /// Parses a model name: the canonical name ([`ProgressModel::name`]:
    /// `fair`, `hsa`, `obe`, `hsa-obe`, `lobe`, `unfair`) or an alias:
    /// any case, `_` or `+` for `-` or none (Dat3M's `HSA_OBE`, the
    /// paper's `HSA+OBE`, `hsaobe`), and the `weak-` prefix of
    /// `gpumc progress` (the liveness check's fairness is weak: `weak-obe`
    /// is `obe`). `strong-…` is not a model of the liveness check
    /// ([`ProgressModel::strong_hint`] says so).
    pub fn parse(s: &str) -> Option<ProgressModel> {
        let norm: String = s
            .trim()
            .chars()
            .filter(|c| *c != '_' && *c != '-' && *c != '+')
            .flat_map(char::to_lowercase)
            .collect();
        let norm = norm.strip_prefix("weak").unwrap_or(&norm);
        Some(match norm {
            "fair" => ProgressModel::Fair,
            "hsa" => ProgressModel::Hsa,
            "obe" => ProgressModel::Obe,
            "hsaobe" => ProgressModel::HsaObe,
            "lobe" => ProgressModel::Lobe,
            "unfair" => ProgressModel::Unfair,
            _ => return None,
        })
    }

    /// Why `s` is not a model of the liveness check when it names a
    /// strongly fair model of `gpumc progress` (`strong-obe`).
    pub fn strong_hint(s: &str) -> Option<String> {
        let lower = s.trim().to_ascii_lowercase();
        let base = lower.strip_prefix("strong")?;
        let base = base.trim_start_matches(['-', '_']);
        ProgressModel::parse(base).map(|m| {
            format!(
                "the liveness check decides weak fairness (`{m}` is `weak-{m}` of `gpumc progress`); strongly fair models are in `gpumc progress check --model strong-{m}`"
            )
        })
    }

    /// The canonical name: lower case, words joined by `-` (`hsa-obe`),
    /// as `gpumc progress` spells the base of its models (`weak-hsa-obe`).
    pub fn name(self) -> &'static str {
        match self {
            ProgressModel::Fair => "fair",
            ProgressModel::Hsa => "hsa",
            ProgressModel::Obe => "obe",
            ProgressModel::HsaObe => "hsa-obe",
            ProgressModel::Lobe => "lobe",
            ProgressModel::Unfair => "unfair",
        }
    }

    /// Does the model treat sibling entities alike whatever their ids
    /// (so exchanging two siblings maps fair schedules to fair schedules)?
    /// HSA and LOBE favour low ids.
    pub fn ignores_ids(self) -> bool {
        matches!(
            self,
            ProgressModel::Fair | ProgressModel::Obe | ProgressModel::Unfair
        )
    }

    /// Can an entity that has taken a step and has not terminated be
    /// denied fairness under this model?
    pub fn may_starve_started(self) -> bool {
        matches!(self, ProgressModel::Hsa | ProgressModel::Unfair)
    }

    /// Which of the sibling entities are fair. `stepped[i]`,
    /// `terminated[i]` describe sibling `i`; siblings are listed in id
    /// order.
    pub fn fair(self, stepped: &[bool], terminated: &[bool]) -> Vec<bool> {
        let n = stepped.len();
        let live = |i: usize| !terminated[i];
        let lowest_live = (0..n).find(|&i| live(i));
        let highest_stepped = (0..n).rev().find(|&i| stepped[i]);
        (0..n)
            .map(|i| {
                live(i)
                    && match self {
                        ProgressModel::Fair => true,
                        ProgressModel::Unfair => false,
                        ProgressModel::Hsa => lowest_live == Some(i),
                        ProgressModel::Obe => stepped[i],
                        ProgressModel::HsaObe => lowest_live == Some(i) || stepped[i],
                        ProgressModel::Lobe => highest_stepped.is_some_and(|h| i <= h),
                    }
            })
            .collect()
    }
}

impl fmt::Display for ProgressModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Scope levels a progress spec may name. The model given for a level
/// schedules the *children* of each instance of that level: `SG` the
/// threads of a subgroup, `WG` the subgroups of a workgroup, `QF` the
/// workgroups of a queue family, `DV` the queue families of the device;
/// for PTX `CTA` the threads of a CTA, `GPU` the CTAs of a GPU, `SYS` the
/// GPUs of the system.
const VULKAN_LEVELS: [&str; 4] = ["SG", "WG", "QF", "DV"];
const PTX_LEVELS: [&str; 3] = ["CTA", "GPU", "SYS"];

/// Progress model per scope level (Sorensen et al., OOPSLA'21 §4; Dat3M's
/// spellings FAIR, HSA, OBE, HSA_OBE, LOBE, UNFAIR are aliases).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgressSpec {
    /// The spec in canonical model names, for reports (`hsa-obe`,
    /// `default=fair;QF=obe`), whatever aliases it was given with.
    pub text: String,
    /// The model of every level not named in `levels`.
    pub default: ProgressModel,
    /// Per named level (upper case, e.g. `QF`), its model.
    pub levels: Vec<(String, ProgressModel)>,
}

impl Default for ProgressSpec {
    fn default() -> Self {
        ProgressSpec {
            text: "fair".into(),
            default: ProgressModel::Fair,
            levels: vec![],
        }
    }
}

fn model_list() -> String {
    ProgressModel::ALL
        .iter()
        .map(|m| m.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A model name of `--progress`, or why it is none.
fn parse_model(s: &str, what: &str) -> std::result::Result<ProgressModel, String> {
    ProgressModel::parse(s).ok_or_else(|| {
        ProgressModel::strong_hint(s).unwrap_or_else(|| {
            format!(
                "unknown progress model `{s}`{what} (expected one of {})",
                model_list()
            )
        })
    })
}

/// A spec in canonical names, as reports print it:
/// `default=fair;QF=obe;SG=unfair`.
fn canonical_text(default: ProgressModel, levels: &[(String, ProgressModel)]) -> String {
    let mut items = vec![format!("default={default}")];
    items.extend(levels.iter().map(|(l, m)| format!("{l}={m}")));
    items.join(";")
}

impl ProgressSpec {
    /// Parses `obe` (one model for every level) or
    /// `default=FAIR;QF=OBE;SG=UNFAIR` (a model per level, unnamed levels
    /// take the default, FAIR when no default is given).
    pub fn parse(s: &str) -> std::result::Result<ProgressSpec, String> {
        let text = s.trim();
        if text.is_empty() {
            return Err(format!(
                "empty progress model (expected one of {})",
                model_list()
            ));
        }
        if !text.contains('=') {
            if text.contains(';') {
                return Err("expected `LEVEL=MODEL` items separated by `;`".into());
            }
            return Ok(ProgressSpec::uniform(parse_model(text, "")?));
        }
        let mut default: Option<ProgressModel> = None;
        let mut levels: Vec<(String, ProgressModel)> = Vec::new();
        for (k, item) in text.split(';').enumerate() {
            let item = item.trim();
            if item.is_empty() {
                // Allow a trailing `;` only.
                if k + 1 == text.split(';').count() && k > 0 {
                    continue;
                }
                return Err(format!("empty item {} in `{text}`", k + 1));
            }
            let Some((key, val)) = item.split_once('=') else {
                return Err(format!("item `{item}` is not `LEVEL=MODEL`"));
            };
            let (key, val) = (key.trim(), val.trim());
            let m = parse_model(val, &format!(" for `{key}`"))?;
            if key.eq_ignore_ascii_case("default") {
                if default.is_some() {
                    return Err("`default` given twice".into());
                }
                default = Some(m);
                continue;
            }
            let upper = key.to_ascii_uppercase();
            if !VULKAN_LEVELS.contains(&upper.as_str()) && !PTX_LEVELS.contains(&upper.as_str()) {
                return Err(format!(
                    "unknown scope level `{key}` (Vulkan: {}; PTX: {}; or `default`)",
                    VULKAN_LEVELS.join(", "),
                    PTX_LEVELS.join(", ")
                ));
            }
            if levels.iter().any(|(l, _)| *l == upper) {
                return Err(format!("scope level `{upper}` given twice"));
            }
            levels.push((upper, m));
        }
        let vk = levels
            .iter()
            .any(|(l, _)| VULKAN_LEVELS.contains(&l.as_str()));
        let ptx = levels.iter().any(|(l, _)| PTX_LEVELS.contains(&l.as_str()));
        if vk && ptx {
            return Err(
                "mixes Vulkan (SG, WG, QF, DV) and PTX (CTA, GPU, SYS) scope levels".into(),
            );
        }
        let default = default.unwrap_or(ProgressModel::Fair);
        Ok(ProgressSpec {
            text: canonical_text(default, &levels),
            default,
            levels,
        })
    }

    /// The spec for one uniform model.
    pub fn uniform(m: ProgressModel) -> ProgressSpec {
        ProgressSpec {
            text: m.name().to_string(),
            default: m,
            levels: vec![],
        }
    }

    /// Checks that the named levels exist in programs of `arch`.
    pub fn check_arch(&self, arch: Arch) -> std::result::Result<(), String> {
        let names: &[&str] = match arch {
            Arch::Ptx | Arch::C => &PTX_LEVELS,
            Arch::Vulkan => &VULKAN_LEVELS,
        };
        for (l, _) in &self.levels {
            if !names.contains(&l.as_str()) {
                return Err(format!(
                    "--progress names scope level `{l}`, which {} programs do not have (levels: {})",
                    match arch {
                        Arch::Ptx => "PTX",
                        Arch::Vulkan => "Vulkan",
                        Arch::C => "C",
                    },
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// The models from the outermost level (the one scheduling the
    /// outermost groups) to the innermost (the one scheduling threads),
    /// for a program of `arch`.
    pub fn chain(&self, arch: Arch) -> Vec<ProgressModel> {
        let names: &[&str] = match arch {
            Arch::Ptx | Arch::C => &PTX_LEVELS,
            Arch::Vulkan => &VULKAN_LEVELS,
        };
        names
            .iter()
            .rev()
            .map(|n| {
                self.levels
                    .iter()
                    .find(|(l, _)| l == n)
                    .map_or(self.default, |(_, m)| *m)
            })
            .collect()
    }

    /// Is every level FAIR?
    pub fn all_fair(&self) -> bool {
        self.default == ProgressModel::Fair
            && self.levels.iter().all(|(_, m)| *m == ProgressModel::Fair)
    }

    /// Can a non-terminated thread be unfair at all (then a thread may be
    /// paused before its first step)?
    pub fn may_starve(&self, arch: Arch) -> bool {
        self.chain(arch).iter().any(|m| *m != ProgressModel::Fair)
    }

    /// Can a thread that has taken a step be unfair (then a thread may be
    /// paused anywhere)?
    pub fn may_starve_started(&self, arch: Arch) -> bool {
        self.chain(arch).iter().any(|m| m.may_starve_started())
    }
}

/// A parent scope instance and its children (child key, threads).
type Group = (Vec<i64>, Vec<(Vec<i64>, Vec<usize>)>);

/// The scope hierarchy of a program, compiled for fairness decisions.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    /// Models from the outermost level to the thread level.
    models: Vec<ProgressModel>,
    /// Per level (same order), the groups: each a list of child keys in
    /// id order, where a child key lists the threads it contains.
    levels: Vec<Vec<Vec<Vec<usize>>>>,
    /// Bit mask of all threads.
    all: u64,
}

impl Hierarchy {
    /// Builds the grouping of `p`'s threads. Placement ids are innermost
    /// first (`[sg, wg, qf]`, `[cta, gpu]`); a thread with fewer ids than
    /// the architecture has levels is treated as being in instance 0.
    pub fn new(p: &Program, spec: &ProgressSpec) -> Hierarchy {
        let models = spec.chain(p.arch);
        let depth = models.len(); // levels: outermost first
        let nids = depth - 1; // placement ids per thread
        let ids = |t: usize| -> Vec<i64> {
            let pl = &p.threads[t].placement.ids;
            (0..nids).map(|k| pl.get(k).copied().unwrap_or(0)).collect()
        };
        let mut levels = Vec::with_capacity(depth);
        // Level d (0 = outermost) schedules children keyed by the ids from
        // index nids-1-d downwards... concretely: the parent instance is
        // given by ids[nids-d..] and the child by ids[nids-1-d..]; at the
        // innermost level (d = nids) the children are the threads.
        for d in 0..depth {
            // (parent key, children as (child key, threads))
            let mut groups: Vec<Group> = Vec::new();
            for t in 0..p.threads.len() {
                let all = ids(t);
                let parent: Vec<i64> = all[nids - d..].to_vec();
                let child: Vec<i64> = if d == nids {
                    vec![t as i64]
                } else {
                    all[nids - 1 - d..].to_vec()
                };
                let g = match groups.iter().position(|(k, _)| *k == parent) {
                    Some(g) => g,
                    None => {
                        groups.push((parent, vec![]));
                        groups.len() - 1
                    }
                };
                match groups[g].1.iter_mut().find(|(k, _)| *k == child) {
                    Some(c) => c.1.push(t),
                    None => groups[g].1.push((child, vec![t])),
                }
            }
            let lv = groups
                .into_iter()
                .map(|(_, mut children)| {
                    // Id order: by the child's own id, then its parents'.
                    children.sort_by(|a, b| a.0.cmp(&b.0));
                    children.into_iter().map(|(_, ts)| ts).collect()
                })
                .collect();
            levels.push(lv);
        }
        let n = p.threads.len();
        let all = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        Hierarchy {
            models,
            levels,
            all,
        }
    }

    /// The entities guaranteed to be scheduled, as thread masks, given
    /// which threads have taken a step and which have terminated: the
    /// whole program (some thread always runs while one can), then, level
    /// by level, each child of a guaranteed entity that the level's model
    /// guarantees among its siblings. Also returns the guaranteed threads
    /// (the entities of the innermost level).
    pub fn fair_entities(&self, stepped: u64, terminated: u64) -> (Vec<u64>, u64) {
        let mut out = vec![self.all];
        let mut parents = vec![self.all];
        for (d, groups) in self.levels.iter().enumerate() {
            let model = self.models[d];
            let mut next = Vec::new();
            for children in groups {
                let masks: Vec<u64> = children.iter().map(|ts| mask(ts)).collect();
                let parent = masks.iter().fold(0, |a, m| a | m);
                if !parents.contains(&parent) {
                    continue;
                }
                let st: Vec<bool> = masks.iter().map(|m| m & stepped != 0).collect();
                let term: Vec<bool> = masks.iter().map(|m| m & !terminated == 0).collect();
                let f = model.fair(&st, &term);
                for (c, m) in masks.iter().enumerate() {
                    if f[c] {
                        next.push(*m);
                    }
                }
            }
            out.extend(next.iter().copied());
            parents = next;
        }
        let threads = parents.iter().fold(0u64, |a, m| a | m) & !terminated;
        (out, threads)
    }

    /// The set of fair threads (bit `t` = thread `t`).
    pub fn fair_set(&self, stepped: u64, terminated: u64) -> u64 {
        self.fair_entities(stepped, terminated).1
    }

    /// Does every guaranteed entity that has not terminated either keep
    /// running (one of its threads is in `active`: steps forever) or wait
    /// (all its live threads are in `blocked`)? A configuration where
    /// this fails is not a fair one: the scheduler would run one of the
    /// entity's threads.
    pub fn fair_ok(&self, stepped: u64, terminated: u64, active: u64, blocked: u64) -> bool {
        if terminated & self.all == self.all {
            return false;
        }
        self.fair_entities(stepped, terminated).0.iter().all(|&m| {
            let live = m & !terminated;
            live == 0 || m & active != 0 || live & !blocked == 0
        })
    }
}

fn mask(ts: &[usize]) -> u64 {
    ts.iter().fold(0u64, |a, &t| a | 1 << t)
}
