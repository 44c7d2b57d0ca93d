//! The kernel's declarations (buffers, built-ins, workgroup array) and
//! its top-level structure, steps 1–6 of [`crate::abi`]'s kernel
//! structure, in that order.

use super::builder::Builder;
use super::{op, usage};
use crate::abi::{self, KernelConfig};
use crate::spec::{KernelSpec, PhaseBarrier, Region};
use gpumc_core::diag::Result;

/// Block index meaning "the phase is left" in a thread's `cur` variable.
pub const EXIT_BLOCK: u32 = u32::MAX;

/// Everything the parts of the generator share while writing `main`.
pub struct Kernel<'a> {
    pub b: Builder,
    pub spec: &'a KernelSpec,
    pub cfg: &'a KernelConfig,
    main: u32,
    /// Storage-buffer variables, indexed by `abi::BIND_*`.
    buffers: Vec<u32>,
    /// The workgroup array (only when the spec uses shared memory).
    pub shared: Option<u32>,
    builtins: Vec<u32>,
    /// Values computed in the entry block (they dominate all code).
    pub local: u32,
    pub workgroup: u32,
    pub role: u32,
    row: u32,
    /// The address word of each location, from the row.
    pub loc_words: Vec<u32>,
    pub fuel: u32,
    /// Per test thread: its registers' variables.
    pub regs: Vec<Vec<u32>>,
    /// The running thread's status, back-edge count and current block.
    pub status: u32,
    pub back_edges: u32,
    pub cur: u32,
}

/// Checks the parts of the spec the generator relies on everywhere.
pub fn check_shape(spec: &KernelSpec, cfg: &KernelConfig) -> Result<()> {
    if cfg.workgroup_size == 0 {
        return Err(usage("workgroup size 0"));
    }
    if spec.uses_shared() && cfg.shared_words == 0 {
        return Err(usage(format!(
            "{}: a location lives in shared memory but the config gives 0 shared words",
            spec.name
        )));
    }
    if spec.threads.len() > (u32::MAX - abi::ROLE_THREAD0) as usize {
        return Err(usage("too many threads"));
    }
    for t in &spec.threads {
        if t.phases.len() != spec.barriers.len() + 1 {
            return Err(usage(format!(
                "{}: thread {} has {} phases but the spec has {} barriers (want barriers + 1)",
                spec.name,
                t.name,
                t.phases.len(),
                spec.barriers.len()
            )));
        }
        if let Some(&r) = t.recorded.iter().find(|&&r| r >= t.regs.len()) {
            return Err(usage(format!(
                "{}: thread {} records register {r} of {}",
                spec.name,
                t.name,
                t.regs.len()
            )));
        }
    }
    Ok(())
}

impl<'a> Kernel<'a> {
    pub fn new(spec: &'a KernelSpec, cfg: &'a KernelConfig) -> Self {
        Kernel {
            b: Builder::new(),
            spec,
            cfg,
            main: 0,
            buffers: Vec::new(),
            shared: None,
            builtins: Vec::new(),
            local: 0,
            workgroup: 0,
            role: 0,
            row: 0,
            loc_words: Vec::new(),
            fuel: 0,
            regs: Vec::new(),
            status: 0,
            back_edges: 0,
            cur: 0,
        }
    }

    pub fn emit(mut self) -> Result<Vec<u32>> {
        self.declare();
        self.prologue();
        let uses_shared = self.spec.uses_shared();
        if uses_shared {
            self.copy_shared_in();
        }
        self.roles()?;
        for k in 0..self.spec.barriers.len() {
            self.phase_barrier(k)?;
            self.phase_of_every_thread(k + 1)?;
        }
        self.write_results();
        if uses_shared {
            self.copy_shared_out();
        }
        Ok(self.b.finish(self.main))
    }

    /// Capabilities, memory model, entry point, buffers, built-ins.
    fn declare(&mut self) {
        let b = &mut self.b;
        for cap in [
            op::CAP_SHADER,
            op::CAP_GROUP_NON_UNIFORM,
            op::CAP_VULKAN_MEMORY_MODEL,
            op::CAP_VULKAN_MEMORY_MODEL_DEVICE_SCOPE,
        ] {
            super::words::inst(&mut b.m.capabilities, op::CAPABILITY, &[cap]);
        }
        super::words::inst(
            &mut b.m.memory_model,
            op::MEMORY_MODEL,
            &[op::ADDRESSING_LOGICAL, op::MEMORY_MODEL_VULKAN],
        );

        // Every buffer is `struct { uint words[]; }`, a Block.
        let u32_ = b.t.u32_;
        let words = b.global(op::TYPE_RUNTIME_ARRAY, &[], &[u32_]);
        b.decorate(words, &[op::DEC_ARRAY_STRIDE, 4]);
        let block = b.global(op::TYPE_STRUCT, &[], &[words]);
        b.decorate(block, &[op::DEC_BLOCK]);
        super::words::inst(
            &mut b.m.annotations,
            op::MEMBER_DECORATE,
            &[block, 0, op::DEC_OFFSET, 0],
        );
        let ptr_block = b.global(op::TYPE_POINTER, &[], &[op::SC_STORAGE_BUFFER, block]);
        let names = [
            "mem",
            "table",
            "results",
            "sync",
            "stress",
            "params",
            "shared_io",
        ];
        for (binding, name) in names.iter().enumerate() {
            let v = b.global(op::VARIABLE, &[ptr_block], &[op::SC_STORAGE_BUFFER]);
            b.decorate(v, &[op::DEC_DESCRIPTOR_SET, 0]);
            b.decorate(v, &[op::DEC_BINDING, binding as u32]);
            b.name(v, name);
            self.buffers.push(v);
        }

        if self.spec.uses_shared() {
            let len = b.c(self.cfg.shared_words);
            let array = b.global(op::TYPE_ARRAY, &[], &[u32_, len]);
            let ptr = b.global(op::TYPE_POINTER, &[], &[op::SC_WORKGROUP, array]);
            let v = b.global(op::VARIABLE, &[ptr], &[op::SC_WORKGROUP]);
            b.name(v, "shared");
            self.shared = Some(v);
        }

        let (pv3, pu) = (b.t.ptr_input_v3u32, b.t.ptr_input_u32);
        for (ty, builtin, name) in [
            (pv3, op::BUILTIN_WORKGROUP_ID, "workgroup_id"),
            (pu, op::BUILTIN_SUBGROUP_ID, "subgroup_id"),
            (pu, op::BUILTIN_SUBGROUP_SIZE, "subgroup_size"),
            (
                pu,
                op::BUILTIN_SUBGROUP_LOCAL_INVOCATION_ID,
                "subgroup_local_id",
            ),
        ] {
            let v = b.global(op::VARIABLE, &[ty], &[op::SC_INPUT]);
            b.decorate(v, &[op::DEC_BUILT_IN, builtin]);
            b.name(v, name);
            self.builtins.push(v);
        }

        self.main = b.id();
        b.name(self.main, "main");
        let mut entry = vec![op::EXECUTION_MODEL_GL_COMPUTE, self.main];
        entry.extend(super::words::string("main"));
        // SPIR-V 1.4+: the interface lists every global variable used.
        entry.extend(&self.buffers);
        entry.extend(self.shared);
        entry.extend(&self.builtins);
        super::words::inst(&mut b.m.entry_points, op::ENTRY_POINT, &entry);
        super::words::inst(
            &mut b.m.execution_modes,
            op::EXECUTION_MODE,
            &[
                self.main,
                op::EXECUTION_MODE_LOCAL_SIZE,
                self.cfg.workgroup_size,
                1,
                1,
            ],
        );
    }

    /// A pointer to `buffer[index]` (`buffer` an `abi::BIND_*`).
    pub fn buf_ptr(&mut self, buffer: u32, index: u32) -> u32 {
        let (ty, var, zero) = (
            self.b.t.ptr_buffer_u32,
            self.buffers[buffer as usize],
            self.b.c(0),
        );
        self.b.val(op::ACCESS_CHAIN, ty, &[var, zero, index])
    }

    /// A plain load of `buffer[index]`.
    pub fn buf_load(&mut self, buffer: u32, index: u32) -> u32 {
        let p = self.buf_ptr(buffer, index);
        self.b.load(p)
    }

    /// A plain load of `buffer[constant]`.
    fn buf_load_at(&mut self, buffer: u32, index: usize) -> u32 {
        let i = self.b.c(index as u32);
        self.buf_load(buffer, i)
    }

    /// A pointer to the workgroup array's word `index`.
    pub fn shared_ptr(&mut self, index: u32) -> Option<u32> {
        let var = self.shared?;
        let ty = self.b.t.ptr_workgroup_u32;
        Some(self.b.val(op::ACCESS_CHAIN, ty, &[var, index]))
    }

    /// A pointer to word `word` of `region`.
    pub fn region_ptr(&mut self, region: Region, word: u32) -> Result<u32> {
        match region {
            Region::Global => Ok(self.buf_ptr(abi::BIND_MEM, word)),
            Region::Shared => self
                .shared_ptr(word)
                .ok_or_else(|| usage("a shared access in a kernel without shared memory")),
        }
    }

    /// Step 1: slot, row, the row's words and the parameters, all in the
    /// entry block; the per-thread variables.
    fn prologue(&mut self) {
        let b = &mut self.b;
        let (u32_, v3) = (b.t.u32_, b.t.v3u32);
        let wg_id = b.val(op::LOAD, v3, &[self.builtins[0]]);
        self.workgroup = b.val(op::COMPOSITE_EXTRACT, u32_, &[wg_id, 0]);
        let sg_id = b.load(self.builtins[1]);
        let sg_size = b.load(self.builtins[2]);
        let sg_local = b.load(self.builtins[3]);
        let first = b.u(op::I_MUL, &[sg_id, sg_size]);
        self.local = b.u(op::I_ADD, &[first, sg_local]);
        let wg_size = b.c(self.cfg.workgroup_size);
        let wg_first = b.u(op::I_MUL, &[self.workgroup, wg_size]);
        let slot = b.u(op::I_ADD, &[wg_first, self.local]);
        let row_words = b.c(self.spec.row_words() as u32);
        self.row = b.u(op::I_MUL, &[slot, row_words]);
        b.name(self.local, "local");
        b.name(slot, "slot");

        self.role = self.row_word(abi::ROW_ROLE);
        self.b.name(self.role, "role");
        self.loc_words = (0..self.spec.locations.len())
            .map(|l| self.row_word(abi::ROW_LOC0 + l))
            .collect();
        self.fuel = self.buf_load_at(abi::BIND_PARAMS, abi::P_FUEL);
        self.b.name(self.fuel, "fuel");

        self.status = self.b.var(abi::STATUS_DONE, "status");
        self.back_edges = self.b.var(0, "back_edges");
        self.cur = self.b.var(0, "cur");
        let spec = self.spec;
        self.regs = spec
            .threads
            .iter()
            .map(|t| {
                t.regs
                    .iter()
                    .map(|r| self.b.var(r.init as u32, &format!("{}_{}", t.name, r.name)))
                    .collect()
            })
            .collect();
    }

    /// Word `k` of this invocation's row.
    pub fn row_word(&mut self, k: usize) -> u32 {
        let k = self.b.c(k as u32);
        let i = self.b.u(op::I_ADD, &[self.row, k]);
        self.buf_load(abi::BIND_TABLE, i)
    }

    /// Whether this invocation is a test thread (`ROLE_THREAD0 + t`, `t`
    /// a thread of the spec).
    pub fn is_test_thread(&mut self) -> u32 {
        let first = self.b.c(abi::ROLE_THREAD0);
        let n = self.b.c(self.spec.threads.len() as u32);
        // Unsigned: roles below ROLE_THREAD0 wrap around to large values.
        let t = self.b.u(op::I_SUB, &[self.role, first]);
        self.b.b(op::U_LESS_THAN, &[t, n])
    }

    /// Step 3: the stress role's loop; a test thread's pre-stress and
    /// start barrier; then phase 0 of each thread.
    fn roles(&mut self) -> Result<()> {
        let stress = self.b.c(abi::ROLE_STRESS);
        let is_stress = self.b.b(op::I_EQUAL, &[self.role, stress]);
        let mut i = self.b.begin_if(is_stress);
        self.stress_loop(&crate::spirv::stress::MAIN);
        self.b.begin_else(&mut i);
        let is_thread = self.is_test_thread();
        let j = self.b.begin_if(is_thread);
        let flags = self.row_word(abi::ROW_FLAGS);
        let pre_bit = self.b.c(abi::FLAG_PRE_STRESS);
        let pre = self.b.u(op::BITWISE_AND, &[flags, pre_bit]);
        let zero = self.b.c(0);
        let wants_pre = self.b.b(op::I_NOT_EQUAL, &[pre, zero]);
        let p = self.b.begin_if(wants_pre);
        self.stress_loop(&crate::spirv::stress::PRE);
        self.b.end_if(p);
        self.start_barrier();
        self.b.end_if(j);
        self.b.end_if(i);
        self.phase_of_every_thread(0)
    }

    /// Step 4: phase barrier `k`, at the top level, every invocation.
    fn phase_barrier(&mut self, k: usize) -> Result<()> {
        match &self.spec.barriers[k] {
            PhaseBarrier::Vulkan {
                execution,
                memory,
                semantics,
            } => {
                super::rules::control_barrier(*execution, *memory, *semantics)
                    .map_err(|rule| super::unsupported(format!("phase barrier {k}: {rule}")))?;
                let ops = [
                    self.b.c(*execution as u32),
                    self.b.c(*memory as u32),
                    self.b.c(super::rules::encoded(*semantics)),
                ];
                self.b.op(op::CONTROL_BARRIER, &ops);
                Ok(())
            }
            PhaseBarrier::Ptx { .. } => Err(usage(format!(
                "{}: phase barrier {k} is a PTX barrier in a Vulkan spec",
                self.spec.name
            ))),
        }
    }

    /// Phase `k` of whichever test thread this invocation is; from phase
    /// 1 on, only while the thread has not run out of fuel.
    fn phase_of_every_thread(&mut self, k: usize) -> Result<()> {
        let spec = self.spec;
        let literals: Vec<u32> = (0..spec.threads.len() as u32)
            .map(|t| abi::ROLE_THREAD0 + t)
            .collect();
        let mut s = self.b.begin_switch(self.role, &literals);
        for t in 0..spec.threads.len() {
            self.b.case(&mut s);
            if spec.threads[t].phases[k].blocks.is_empty() {
                continue;
            }
            if k == 0 {
                self.phase(t, k)?;
            } else {
                let status = self.b.load(self.status);
                let stopped = self.b.c(abi::STATUS_OUT_OF_FUEL);
                let running = self.b.b(op::I_NOT_EQUAL, &[status, stopped]);
                let i = self.b.begin_if(running);
                self.phase(t, k)?;
                self.b.end_if(i);
            }
        }
        self.b.end_switch(s);
        Ok(())
    }
}
