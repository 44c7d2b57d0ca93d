//! Running hand-built specs on lavapipe (or whatever Vulkan device is
//! there): opening the backend (or printing why the test skips), table
//! rows, one launch with checks that every module also validates.
#![allow(dead_code)]

use gpumc_hw::abi::{self, KernelConfig, PARAM_WORDS};
use gpumc_hw::backend::{Backend, Launch, LaunchOutput};
use gpumc_hw::spec::KernelSpec;
use gpumc_hw::vulkan::VulkanBackend;
use std::time::Duration;

/// The backend, or `None` after printing why the test skips.
pub fn backend() -> Option<VulkanBackend> {
    match VulkanBackend::new(None) {
        Ok(b) => Some(b),
        Err(e) => {
            // CI installs lavapipe and sets this: skipping would hide it.
            assert!(
                std::env::var_os("GPUMC_REQUIRE_VULKAN").is_none(),
                "GPUMC_REQUIRE_VULKAN is set but no Vulkan device: {e}"
            );
            eprintln!("SKIP: no Vulkan device to run on: {e}");
            None
        }
    }
}

/// A table row: header then address words.
pub fn row(role: u32, result: u32, sync: u32, sync_n: u32, flags: u32, locs: &[u32]) -> Vec<u32> {
    let mut r = vec![0; abi::ROW_LOC0];
    r[abi::ROW_ROLE] = role;
    r[abi::ROW_RESULT] = result;
    r[abi::ROW_SYNC] = sync;
    r[abi::ROW_SYNC_N] = sync_n;
    r[abi::ROW_FLAGS] = flags;
    r.extend_from_slice(locs);
    r
}

/// Test thread `t`'s row, no start barrier, no pre-stress.
pub fn thread_row(t: u32, result: u32, locs: &[u32]) -> Vec<u32> {
    row(abi::ROLE_THREAD0 + t, result, 0, 0, 0, locs)
}

/// An idle row for a spec with `n_locs` locations.
pub fn idle_row(n_locs: usize) -> Vec<u32> {
    row(abi::ROLE_IDLE, abi::DISCARD, 0, 0, 0, &vec![0; n_locs])
}

/// Parameters: no stress, the given fuel, spin limit 1000.
pub fn params(fuel: u32) -> [u32; PARAM_WORDS] {
    let mut p = [0; PARAM_WORDS];
    p[abi::P_FUEL] = fuel;
    p[abi::P_SPIN_LIMIT] = 1000;
    p
}

pub struct Run<'a> {
    pub spec: &'a KernelSpec,
    pub cfg: KernelConfig,
    pub workgroups: u32,
    /// Rows by slot; missing slots are idle.
    pub rows: Vec<(usize, Vec<u32>)>,
    pub mem: Vec<u32>,
    pub shared_io: Vec<u32>,
    pub results_words: usize,
    pub params: [u32; PARAM_WORDS],
}

impl<'a> Run<'a> {
    pub fn new(spec: &'a KernelSpec, cfg: KernelConfig) -> Self {
        Run {
            spec,
            cfg,
            workgroups: 1,
            rows: Vec::new(),
            mem: vec![0; 64],
            shared_io: if spec.uses_shared() {
                vec![0; cfg.shared_words as usize]
            } else {
                Vec::new()
            },
            results_words: 64,
            params: params(100),
        }
    }

    /// The table for workgroups of `size` invocations (at least the
    /// scenario's): the scenario's slot `s` keeps its workgroup and its
    /// local index, the invocations added to each workgroup are idle.
    pub fn table(&self, size: u32) -> Vec<u32> {
        let n_locs = self.spec.locations.len();
        let (wanted, size) = (self.cfg.workgroup_size as usize, size as usize);
        let slots = self.workgroups as usize * size;
        let mut table = Vec::with_capacity(slots * self.spec.row_words());
        for slot in 0..slots {
            let (group, local) = (slot / size, slot % size);
            let scenario_slot = (local < wanted).then_some(group * wanted + local);
            match self.rows.iter().find(|(s, _)| Some(*s) == scenario_slot) {
                Some((_, r)) => table.extend(r),
                None => table.extend(idle_row(n_locs)),
            }
        }
        table
    }

    /// Validates the module, compiles, launches once. The scenarios are
    /// written for workgroups of a few invocations; a device whose
    /// subgroups are larger (NVIDIA's 32) gets workgroups of whole
    /// subgroups with the added invocations idle.
    pub fn launch(&self, b: &mut VulkanBackend) -> LaunchOutput {
        let subgroup = b.info().subgroup_size.max(1);
        let mut cfg = self.cfg;
        cfg.workgroup_size = cfg.workgroup_size.div_ceil(subgroup) * subgroup;
        let words = gpumc_hw::spirv::emit(self.spec, &cfg).expect("emit");
        if let Err(e) = crate::spirv_support::spirv_val(&words) {
            if crate::spirv_support::have_tool("spirv-val") {
                panic!("spirv-val rejects {}: {e}", self.spec.name);
            }
        }
        let k = b.compile(self.spec, &cfg).expect("compile");
        let table = self.table(cfg.workgroup_size);
        let l = Launch {
            workgroups: self.workgroups,
            mem: &self.mem,
            table: &table,
            results_words: self.results_words,
            sync_words: 16,
            stress_words: 4096,
            params: &self.params,
            shared_io: &self.shared_io,
        };
        let out = b.launch(k, &l, Duration::from_secs(20)).expect("launch");
        b.release(k);
        out
    }
}

/// The result record at `base` of `n` registers.
pub fn record(out: &LaunchOutput, base: usize, n: usize) -> Vec<u32> {
    out.results[base..base + abi::RES_REGS + n].to_vec()
}
