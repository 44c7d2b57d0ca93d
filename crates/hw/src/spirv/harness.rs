//! The harness code around the test's own: workgroup memory copied in
//! from and out to `shared_io` (steps 2 and 6 of [`crate::abi`]), the
//! bounded start barrier (step 3b) and the result record (step 5).

use super::kernel::Kernel;
use super::op;
use crate::abi;
use crate::spec::semantics as sem;

/// The harness's own workgroup barrier around the shared-memory copies:
/// workgroup execution and memory scope, acquire-release on workgroup
/// memory with availability and visibility, so the copied words (written
/// and read with `NonPrivatePointer`) are visible across it.
const COPY_BARRIER_SEMANTICS: u32 =
    sem::ACQUIRE_RELEASE | sem::WORKGROUP_MEMORY | sem::MAKE_AVAILABLE | sem::MAKE_VISIBLE;

impl Kernel<'_> {
    fn copy_barrier(&mut self) {
        let wg = self.b.c(op::SCOPE_WORKGROUP);
        let s = self.b.c(COPY_BARRIER_SEMANTICS);
        self.b.op(op::CONTROL_BARRIER, &[wg, wg, s]);
    }

    /// `for k in (local..shared_words).step_by(workgroup_size)`, calling
    /// `body(k, shared_io index of k)`.
    fn for_each_shared_word(&mut self, body: impl Fn(&mut Self, u32, u32)) {
        let words = self.b.c(self.cfg.shared_words);
        let step = self.b.c(self.cfg.workgroup_size);
        let base = self.b.u(op::I_MUL, &[self.workgroup, words]);
        let k_var = self.b.var(0, "shared_k");
        self.b.store(k_var, self.local);
        let l = self.b.begin_loop();
        let k = self.b.load(k_var);
        let more = self.b.b(op::U_LESS_THAN, &[k, words]);
        self.b.loop_test(&l, more);
        let io = self.b.u(op::I_ADD, &[base, k]);
        body(self, k, io);
        self.b.loop_continue(&l);
        let k = self.b.load(k_var);
        let next = self.b.u(op::I_ADD, &[k, step]);
        self.b.store(k_var, next);
        self.b.end_while(l);
    }

    /// The non-private memory operand, so the copy barrier orders the
    /// copies with the test's accesses.
    fn non_private() -> u32 {
        op::MA_NON_PRIVATE_POINTER
    }

    /// Step 2: `shared[k] = shared_io[workgroup * shared_words + k]`.
    pub fn copy_shared_in(&mut self) {
        self.for_each_shared_word(|k, word, io| {
            let v = k.buf_load(abi::BIND_SHARED_IO, io);
            if let Some(p) = k.shared_ptr(word) {
                k.b.op(op::STORE, &[p, v, Self::non_private()]);
            }
        });
        self.copy_barrier();
    }

    /// Step 6: the barrier, then `shared_io[…] = shared[k]`.
    pub fn copy_shared_out(&mut self) {
        self.copy_barrier();
        self.for_each_shared_word(|k, word, io| {
            if let Some(p) = k.shared_ptr(word) {
                let u32_ = k.b.t.u32_;
                let v = k.b.val(op::LOAD, u32_, &[p, Self::non_private()]);
                let out = k.buf_ptr(abi::BIND_SHARED_IO, io);
                k.b.store(out, v);
            }
        });
    }

    /// Step 3b: when `ROW_SYNC_N != 0`, one relaxed device-scope atomic
    /// increment of `sync[ROW_SYNC]`, then relaxed device-scope atomic
    /// loads of it until it reaches `ROW_SYNC_N` or `P_SPIN_LIMIT` loads
    /// were made. Relaxed (semantics 0) and no fence: the barrier must
    /// not order the test's accesses.
    pub fn start_barrier(&mut self) {
        let n = self.row_word(abi::ROW_SYNC_N);
        let zero = self.b.c(0);
        let wanted = self.b.b(op::I_NOT_EQUAL, &[n, zero]);
        let i = self.b.begin_if(wanted);
        let counter = self.row_word(abi::ROW_SYNC);
        let limit_at = self.b.c(abi::P_SPIN_LIMIT as u32);
        let limit = self.buf_load(abi::BIND_PARAMS, limit_at);
        let p = self.buf_ptr(abi::BIND_SYNC, counter);
        let (device, relaxed, one) = (self.b.c(op::SCOPE_DEVICE), zero, self.b.c(1));
        self.b.u(op::ATOMIC_I_ADD, &[p, device, relaxed, one]);
        let seen = self.b.var(0, "sync_seen");
        let loads = self.b.var(0, "sync_loads");
        let l = self.b.begin_loop();
        let made = self.b.load(loads);
        let under_limit = self.b.b(op::U_LESS_THAN, &[made, limit]);
        let value = self.b.load(seen);
        let short = self.b.b(op::U_LESS_THAN, &[value, n]);
        let spin = self.b.b(op::LOGICAL_AND, &[under_limit, short]);
        self.b.loop_test(&l, spin);
        let v = self.b.u(op::ATOMIC_LOAD, &[p, device, relaxed]);
        self.b.store(seen, v);
        self.b.loop_continue(&l);
        let made = self.b.load(loads);
        let made = self.b.u(op::I_ADD, &[made, one]);
        self.b.store(loads, made);
        self.b.end_while(l);
        self.b.end_if(i);
    }

    /// Step 5: a test thread whose `ROW_RESULT` is not `DISCARD` writes
    /// status, back edges and its recorded registers.
    pub fn write_results(&mut self) {
        let is_thread = self.is_test_thread();
        let base = self.row_word(abi::ROW_RESULT);
        let discard = self.b.c(abi::DISCARD);
        let kept = self.b.b(op::I_NOT_EQUAL, &[base, discard]);
        let write = self.b.b(op::LOGICAL_AND, &[is_thread, kept]);
        let i = self.b.begin_if(write);
        let status = self.b.load(self.status);
        self.result_word(base, abi::RES_STATUS, status);
        let edges = self.b.load(self.back_edges);
        self.result_word(base, abi::RES_BACK_EDGES, edges);
        let spec = self.spec;
        let literals: Vec<u32> = (0..spec.threads.len() as u32)
            .map(|t| abi::ROLE_THREAD0 + t)
            .collect();
        let mut s = self.b.begin_switch(self.role, &literals);
        for (t, thread) in spec.threads.iter().enumerate() {
            self.b.case(&mut s);
            for (k, &r) in thread.recorded.iter().enumerate() {
                let v = self.b.load(self.regs[t][r]);
                self.result_word(base, abi::RES_REGS + k, v);
            }
        }
        self.b.end_switch(s);
        self.b.end_if(i);
    }

    fn result_word(&mut self, base: u32, k: usize, value: u32) {
        let k = self.b.c(k as u32);
        let at = self.b.u(op::I_ADD, &[base, k]);
        let p = self.buf_ptr(abi::BIND_RESULTS, at);
        self.b.store(p, value);
    }
}
