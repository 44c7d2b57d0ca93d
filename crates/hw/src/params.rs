//! The testing parameters one run uses — the same set for every backend —
//! and the presets. The knobs are those of the GPU litmus-testing
//! literature: many instances per launch with randomised thread and
//! memory placement and tuned stress (Levine et al., MC Mutants / GPUHarbor,
//! ASPLOS 2023), and the "incantations" of Sorensen's one-instance harness
//! (MS thesis, University of Utah, 2014): memory stress by non-testing
//! workgroups, general bank conflicts, randomised thread ids, a start
//! barrier. `docs/HARDWARE.md` explains each.

use crate::backend::DeviceInfo;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};

/// One parameter set. Every field is a knob of `gpumc run`/`gpumc tune`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Params {
    /// Invocations per workgroup (rounded up to whole subgroups).
    pub workgroup_size: u32,
    /// Workgroups that host test threads (at least the test's workgroup
    /// count).
    pub testing_workgroups: u32,
    /// Further workgroups whose invocations only stress memory.
    pub stress_workgroups: u32,
    /// At most this many test instances per launch; 0: as many as fit.
    pub max_instances: u32,
    /// Every launch, randomise which workgroups test and which subgroups
    /// and lanes run the test threads (keeping the test's placement).
    pub shuffle_threads: bool,
    /// Every launch, randomise which memory words hold each instance's
    /// locations.
    pub permute_memory: bool,
    /// Words between neighbouring instances' copies of a location (1:
    /// packed; 32: one per bank/line word).
    pub mem_stride: u32,
    /// Chance (percent) that an instance's threads wait for each other at
    /// the start barrier.
    pub barrier_pct: u32,
    /// Sorensen's general bank conflicts: the free lanes of a testing
    /// subgroup run a test thread's code on dummy addresses next to its
    /// locations — same bank (conflict), neighbouring words (parallel) or,
    /// for locations the thread only reads, the same word (broadcast),
    /// drawn per location and launch.
    pub bank_conflicts: bool,
    /// Stress loop iterations per stressing invocation (0: no stress).
    pub stress_iterations: u32,
    /// 0 store-store, 1 store-load, 2 load-store, 3 load-load, 4: drawn
    /// per launch.
    pub stress_pattern: u32,
    /// Words per stressed line.
    pub stress_line_words: u32,
    /// Lines the stress loops cycle through (its footprint).
    pub stress_lines: u32,
    /// Chance (percent) that a test thread stresses memory before its test.
    pub pre_stress_pct: u32,
    pub pre_stress_iterations: u32,
    /// As `stress_pattern`.
    pub pre_stress_pattern: u32,
    /// Most loads a thread spends waiting at the start barrier.
    pub spin_limit: u32,
    /// Most back edges (loop iterations) a test thread takes before it
    /// gives up (its instance is then reported as not finished).
    pub fuel: u32,
}

impl Default for Params {
    fn default() -> Params {
        Preset::Parallel.base()
    }
}

/// Named parameter sets (`--preset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Many instances per launch, every incantation on: the default.
    Parallel,
    /// Sorensen's harness: one instance per launch, memory stress by
    /// non-testing workgroups, bank-conflict shadows, randomised thread
    /// placement, start barrier.
    Sorensen,
    /// Many instances, no incantation at all: the baseline that shows what
    /// the incantations add.
    Plain,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Parallel, Preset::Sorensen, Preset::Plain];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Parallel => "parallel",
            Preset::Sorensen => "sorensen",
            Preset::Plain => "plain",
        }
    }

    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The preset before it is fitted to a device.
    pub fn base(self) -> Params {
        let parallel = Params {
            workgroup_size: 64,
            testing_workgroups: 64,
            stress_workgroups: 16,
            max_instances: 0,
            shuffle_threads: true,
            permute_memory: true,
            mem_stride: 4,
            barrier_pct: 100,
            bank_conflicts: false,
            stress_iterations: 64,
            stress_pattern: 4,
            stress_line_words: 64,
            stress_lines: 4,
            pre_stress_pct: 50,
            pre_stress_iterations: 16,
            pre_stress_pattern: 4,
            spin_limit: 1024,
            fuel: 1000,
        };
        match self {
            Preset::Parallel => parallel,
            Preset::Sorensen => Params {
                workgroup_size: 64,
                testing_workgroups: 1,
                stress_workgroups: 8,
                max_instances: 1,
                mem_stride: 1,
                bank_conflicts: true,
                stress_iterations: 256,
                pre_stress_pct: 0,
                ..parallel
            },
            Preset::Plain => Params {
                stress_workgroups: 0,
                shuffle_threads: false,
                permute_memory: false,
                mem_stride: 1,
                barrier_pct: 0,
                stress_iterations: 0,
                pre_stress_pct: 0,
                ..parallel
            },
        }
    }

    /// The preset fitted to `device`: workgroup sizes within its limits,
    /// stress workgroups scaled to its compute units when it says how many.
    pub fn for_device(self, device: &DeviceInfo) -> Params {
        let mut p = self.base();
        if let Some(cu) = device.compute_units {
            if p.stress_workgroups > 0 {
                p.stress_workgroups = p.stress_workgroups.max(cu.min(256));
            }
        }
        p.fit(device);
        p
    }
}

impl Params {
    /// Clamps every knob into what `device` and the harness allow.
    pub fn fit(&mut self, device: &DeviceInfo) {
        let s = device.subgroup_size.max(1);
        let max_wg = device.max_workgroup_size.max(s);
        self.workgroup_size = self.workgroup_size.clamp(s, max_wg).div_ceil(s) * s;
        if self.workgroup_size > max_wg {
            self.workgroup_size = max_wg / s * s;
        }
        self.testing_workgroups = self.testing_workgroups.max(1);
        self.mem_stride = self.mem_stride.max(1);
        self.barrier_pct = self.barrier_pct.min(100);
        self.pre_stress_pct = self.pre_stress_pct.min(100);
        self.stress_pattern = self.stress_pattern.min(4);
        self.pre_stress_pattern = self.pre_stress_pattern.min(4);
        self.stress_line_words = self.stress_line_words.max(1);
        self.stress_lines = self.stress_lines.max(1);
        self.fuel = self.fuel.max(1);
    }

    /// A random parameter set for `gpumc tune` (then fitted to the device).
    pub fn random(rng: &mut Rng, device: &DeviceInfo) -> Params {
        let pow2 = |rng: &mut Rng, lo: u32, hi: u32| 1u32 << rng.range(lo, hi);
        let mut p = Params {
            workgroup_size: pow2(rng, 5, 8),
            testing_workgroups: pow2(rng, 1, 7),
            stress_workgroups: if rng.percent(70) { pow2(rng, 0, 6) } else { 0 },
            max_instances: 0,
            shuffle_threads: rng.percent(70),
            permute_memory: rng.percent(70),
            mem_stride: pow2(rng, 0, 6),
            barrier_pct: [0, 50, 100][rng.below(3) as usize],
            bank_conflicts: rng.percent(30),
            stress_iterations: pow2(rng, 2, 10),
            stress_pattern: rng.range(0, 4),
            stress_line_words: pow2(rng, 2, 8),
            stress_lines: pow2(rng, 0, 6),
            pre_stress_pct: [0, 50, 100][rng.below(3) as usize],
            pre_stress_iterations: pow2(rng, 2, 8),
            pre_stress_pattern: rng.range(0, 4),
            spin_limit: 1024,
            fuel: 1000,
        };
        p.fit(device);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn lavapipe_like() -> DeviceInfo {
        DeviceInfo {
            backend: "vulkan".into(),
            name: "test device".into(),
            driver: "test".into(),
            subgroup_size: 8,
            max_workgroup_size: 1024,
            max_workgroups: 65535,
            compute_units: None,
            max_shared_words: 8192,
            loop_limit: None,
        }
    }

    #[test]
    fn presets_have_names_and_fit_the_device() {
        let d = lavapipe_like();
        for p in Preset::ALL {
            assert_eq!(Preset::parse(p.name()), Some(p));
            let q = p.for_device(&d);
            assert_eq!(q.workgroup_size % d.subgroup_size, 0);
            assert!(q.workgroup_size <= d.max_workgroup_size);
        }
        assert_eq!(Preset::Sorensen.base().max_instances, 1);
        assert!(Preset::Sorensen.base().bank_conflicts);
        assert_eq!(Preset::Plain.base().stress_iterations, 0);
        assert_eq!(Preset::parse("nope"), None);
    }

    #[test]
    fn fit_rounds_workgroups_to_subgroups_and_clamps() {
        let d = lavapipe_like();
        let mut p = Params {
            workgroup_size: 13,
            barrier_pct: 300,
            stress_pattern: 9,
            mem_stride: 0,
            ..Params::default()
        };
        p.fit(&d);
        assert_eq!(p.workgroup_size, 16);
        assert_eq!(p.barrier_pct, 100);
        assert_eq!(p.stress_pattern, 4);
        assert_eq!(p.mem_stride, 1);
        let mut big = Params {
            workgroup_size: 5000,
            ..Params::default()
        };
        big.fit(&d);
        assert_eq!(big.workgroup_size, 1024);
    }

    #[test]
    fn random_parameters_are_valid_and_vary() {
        let d = lavapipe_like();
        let mut rng = Rng::new(3);
        let a = Params::random(&mut rng, &d);
        let b = Params::random(&mut rng, &d);
        assert_ne!(a, b);
        for p in [a, b] {
            let mut q = p.clone();
            q.fit(&d);
            assert_eq!(p, q, "random parameters are already fitted");
        }
    }

    #[test]
    fn parameters_round_trip_through_json_and_missing_fields_default() {
        let p = Preset::Sorensen.base();
        let s = serde_json::to_string(&p).unwrap();
        let q: Params = serde_json::from_str(&s).unwrap();
        assert_eq!(p, q);
        let partial: Params = serde_json::from_str(r#"{"fuel": 7}"#).unwrap();
        assert_eq!(partial.fuel, 7);
        assert_eq!(partial.workgroup_size, Params::default().workgroup_size);
    }
}
