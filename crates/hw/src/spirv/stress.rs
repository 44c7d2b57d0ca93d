//! The stress loop of [`crate::abi`]: `iterations` rounds of two accesses
//! to a line of the `stress` buffer chosen by the round, in one of four
//! store/load patterns.

use super::kernel::Kernel;
use super::op;
use crate::abi;

/// Which parameters drive a stress loop.
pub struct StressParams {
    iterations: usize,
    pattern: usize,
    name: &'static str,
}

/// The stress role's loop.
pub const MAIN: StressParams = StressParams {
    iterations: abi::P_STRESS_ITERS,
    pattern: abi::P_STRESS_PATTERN,
    name: "stress",
};

/// A test thread's pre-stress.
pub const PRE: StressParams = StressParams {
    iterations: abi::P_PRE_ITERS,
    pattern: abi::P_PRE_PATTERN,
    name: "pre_stress",
};

/// The accumulator value that makes the loop store it (never reached in
/// practice; it keeps the loads live).
const ACC_SENTINEL: u32 = 0x7fff_ffff;

impl Kernel<'_> {
    fn param(&mut self, p: usize) -> u32 {
        let i = self.b.c(p as u32);
        self.buf_load(abi::BIND_PARAMS, i)
    }

    /// One stress loop with `params`' iteration count and pattern (the
    /// line geometry and offset are shared by all stress loops).
    pub fn stress_loop(&mut self, params: &StressParams) {
        let iters = self.param(params.iterations);
        let pattern = self.param(params.pattern);
        let line_words = self.param(abi::P_STRESS_LINE_WORDS);
        let lines = self.param(abi::P_STRESS_LINES);
        let offset = self.param(abi::P_STRESS_OFFSET);
        let zero = self.b.c(0);
        // No loop when any of them is 0 (also keeps `% 0` out).
        let mut go = self.b.bool_const(true);
        for v in [iters, lines, line_words] {
            let nonzero = self.b.b(op::I_NOT_EQUAL, &[v, zero]);
            go = self.b.b(op::LOGICAL_AND, &[go, nonzero]);
        }
        let i_outer = self.b.begin_if(go);

        // Pattern bit 1 set: the first access loads; bit 0: the second.
        let (one, two) = (self.b.c(1), self.b.c(2));
        let first_bit = self.b.u(op::BITWISE_AND, &[pattern, two]);
        let first_store = self.b.b(op::I_EQUAL, &[first_bit, zero]);
        let second_bit = self.b.u(op::BITWISE_AND, &[pattern, one]);
        let second_store = self.b.b(op::I_EQUAL, &[second_bit, zero]);
        let column = self.b.u(op::U_MOD, &[self.local, line_words]);

        let acc = self.b.var(0, &format!("{}_acc", params.name));
        let i_var = self.b.var(0, &format!("{}_i", params.name));
        let l = self.b.begin_loop();
        let i = self.b.load(i_var);
        let more = self.b.b(op::U_LESS_THAN, &[i, iters]);
        self.b.loop_test(&l, more);
        let i = self.b.load(i_var);
        let round = self.b.u(op::I_ADD, &[offset, i]);
        let line = self.b.u(op::U_MOD, &[round, lines]);
        let first = self.b.u(op::I_MUL, &[line, line_words]);
        let w = self.b.u(op::I_ADD, &[first, column]);
        let p = self.buf_ptr(abi::BIND_STRESS, w);
        for is_store in [first_store, second_store] {
            self.stress_access(is_store, p, i, acc);
        }
        self.b.loop_continue(&l);
        let i = self.b.load(i_var);
        let next = self.b.u(op::I_ADD, &[i, one]);
        self.b.store(i_var, next);
        self.b.end_while(l);

        let total = self.b.load(acc);
        let sentinel = self.b.c(ACC_SENTINEL);
        let hit = self.b.b(op::I_EQUAL, &[total, sentinel]);
        let h = self.b.begin_if(hit);
        let p0 = self.buf_ptr(abi::BIND_STRESS, zero);
        self.b.store(p0, total);
        self.b.end_if(h);
        self.b.end_if(i_outer);
    }

    /// `*p = i` or `acc += *p`, volatile so neither is merged or removed.
    fn stress_access(&mut self, is_store: u32, p: u32, i: u32, acc: u32) {
        let mut s = self.b.begin_if(is_store);
        self.b.op(op::STORE, &[p, i, op::MA_VOLATILE]);
        self.b.begin_else(&mut s);
        let u32_ = self.b.t.u32_;
        let v = self.b.val(op::LOAD, u32_, &[p, op::MA_VOLATILE]);
        let a = self.b.load(acc);
        let sum = self.b.u(op::I_ADD, &[a, v]);
        self.b.store(acc, sum);
        self.b.end_if(s);
    }
}
