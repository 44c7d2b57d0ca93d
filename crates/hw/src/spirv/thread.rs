//! A test thread's phase as structured control flow. A phase that is one
//! block leaving the phase is emitted as straight-line code; any other
//! is a loop around a switch on the current block (`cur`), each case
//! running one block and choosing the next, with fuel charged on back
//! edges exactly as `spec::End` says.

use super::kernel::{Kernel, EXIT_BLOCK};
use super::{op, usage};
use crate::abi;
use crate::spec::{Block, BlockIdx, End};
use gpumc_core::diag::Result;

impl Kernel<'_> {
    /// Phase `k` of thread `t`.
    pub fn phase(&mut self, t: usize, k: usize) -> Result<()> {
        let spec = self.spec;
        let blocks = &spec.threads[t].phases[k].blocks;
        if let [only] = blocks.as_slice() {
            if only.end == End::Exit {
                return self.ops(t, only);
            }
        }
        let zero = self.b.c(0);
        self.b.store(self.cur, zero);
        let l = self.b.begin_loop();
        self.b.loop_body(&l);
        let cur = self.b.load(self.cur);
        let literals: Vec<u32> = (0..blocks.len() as u32).collect();
        let mut s = self.b.begin_switch(cur, &literals);
        for (i, block) in blocks.iter().enumerate() {
            self.b.case(&mut s);
            self.ops(t, block)?;
            self.block_end(t, k, i, &block.end)?;
        }
        self.b.end_switch(s);
        self.b.loop_continue(&l);
        let cur = self.b.load(self.cur);
        let exit = self.b.c(EXIT_BLOCK);
        let again = self.b.b(op::I_NOT_EQUAL, &[cur, exit]);
        self.b.end_do_while(l, again);
        Ok(())
    }

    fn ops(&mut self, t: usize, block: &Block) -> Result<()> {
        for o in &block.ops {
            self.operation(t, o)?;
        }
        Ok(())
    }

    /// Sets `cur` to the block `end` leads to from block `from`.
    fn block_end(&mut self, t: usize, k: usize, from: BlockIdx, end: &End) -> Result<()> {
        let n = self.spec.threads[t].phases[k].blocks.len();
        let check = |to: BlockIdx| {
            if to < n {
                Ok(to)
            } else {
                Err(usage(format!(
                    "{}: thread {} phase {k} block {from} jumps to block {to} of {n}",
                    self.spec.name, self.spec.threads[t].name
                )))
            }
        };
        match end {
            End::Exit => {
                let exit = self.b.c(EXIT_BLOCK);
                self.b.store(self.cur, exit);
            }
            End::Goto(to) => {
                let to = check(*to)?;
                let target = self.b.c(to as u32);
                let back = End::is_back(from, to);
                let back = self.b.bool_const(back);
                self.take_edge(target, back, End::is_back(from, to));
            }
            End::Branch {
                cmp,
                a,
                b,
                then,
                otherwise,
            } => {
                let (then, otherwise) = (check(*then)?, check(*otherwise)?);
                let (a, b) = (self.value(t, a)?, self.value(t, b)?);
                let cond = self.compare(*cmp, a, b);
                let (tc, oc) = (self.b.c(then as u32), self.b.c(otherwise as u32));
                let target = self.b.select(cond, tc, oc);
                let (tb, ob) = (End::is_back(from, then), End::is_back(from, otherwise));
                let back = match (tb, ob) {
                    (true, true) => self.b.bool_const(true),
                    (false, false) => self.b.bool_const(false),
                    (true, false) => cond,
                    (false, true) => self.b.b(op::LOGICAL_NOT, &[cond]),
                };
                self.take_edge(target, back, tb || ob);
            }
        }
        Ok(())
    }

    /// Goes to block `target`; when `back` holds, pays one unit of fuel
    /// first, or stops the thread (`STATUS_OUT_OF_FUEL`, leaves the
    /// phase) when `P_FUEL` back edges were already taken. `may_be_back`
    /// is false when `back` is the constant false (no fuel code then).
    fn take_edge(&mut self, target: u32, back: u32, may_be_back: bool) {
        if !may_be_back {
            self.b.store(self.cur, target);
            return;
        }
        let taken = self.b.load(self.back_edges);
        let empty = self.b.b(op::U_GREATER_THAN_EQUAL, &[taken, self.fuel]);
        let out = self.b.b(op::LOGICAL_AND, &[back, empty]);
        let not_out = self.b.b(op::LOGICAL_NOT, &[out]);
        let pay = self.b.b(op::LOGICAL_AND, &[back, not_out]);
        let one = self.b.c(1);
        let more = self.b.u(op::I_ADD, &[taken, one]);
        let edges = self.b.select(pay, more, taken);
        self.b.store(self.back_edges, edges);
        let exit = self.b.c(EXIT_BLOCK);
        let next = self.b.select(out, exit, target);
        self.b.store(self.cur, next);
        let status = self.b.load(self.status);
        let stopped = self.b.c(abi::STATUS_OUT_OF_FUEL);
        let status = self.b.select(out, stopped, status);
        self.b.store(self.status, status);
    }
}
