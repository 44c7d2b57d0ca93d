//! One phase of one test thread: its blocks as labelled PTX, control flow
//! with fuel on back edges (`spec::End`).

use super::asm::Asm;
use super::local::{self, branch_compare};
use super::memory::{self, value};
use crate::abi::{ROLE_THREAD0, STATUS_DONE, STATUS_OUT_OF_FUEL};
use crate::spec::{BlockIdx, End, KernelSpec, Op, Phase};
use gpumc_core::diag::Result;

/// Labels of phase `k` of thread `t`.
struct Labels {
    prefix: String,
}

impl Labels {
    fn block(&self, b: BlockIdx) -> String {
        format!("{}_b{b}", self.prefix)
    }
    fn end(&self) -> String {
        format!("{}_end", self.prefix)
    }
    fn out_of_fuel(&self) -> String {
        format!("{}_out_of_fuel", self.prefix)
    }
}

/// Phase `k` of thread `t`, run only by the invocation whose role is
/// thread `t` and only while its status is still `STATUS_DONE` (a thread
/// out of fuel skips its later phases).
pub(crate) fn emit_phase(
    asm: &mut Asm,
    spec: &KernelSpec,
    t: usize,
    k: usize,
    phase: &Phase,
) -> Result<()> {
    let name = &spec.threads[t].name;
    if phase.blocks.is_empty() {
        asm.comment(format!("thread {t} ({name}), phase {k}: nothing to do"));
        return Ok(());
    }
    let labels = Labels {
        prefix: format!("$t{t}_p{k}"),
    };
    asm.comment(format!("thread {t} ({name}), phase {k}"));
    let role = asm.b32("role");
    let status = asm.b32("status");
    let skip = asm.pred("p");
    let role_t = ROLE_THREAD0 as usize + t;
    asm.ins(format!("setp.ne.u32 {skip}, {role}, {role_t}"));
    asm.ins(format!("@{skip} bra {}", labels.end()));
    asm.ins(format!("setp.ne.u32 {skip}, {status}, {STATUS_DONE}"));
    asm.ins(format!("@{skip} bra {}", labels.end()));
    let mut uses_fuel = false;
    for (b, block) in phase.blocks.iter().enumerate() {
        asm.label(&labels.block(b));
        for op in &block.ops {
            emit_op(asm, spec, t, op).map_err(|mut e| {
                e.message = format!("{} (thread {name}, phase {k}, block {b})", e.message);
                e
            })?;
        }
        match &block.end {
            End::Exit => asm.ins(format!("bra {}", labels.end())),
            End::Goto(to) => {
                uses_fuel |= End::is_back(b, *to);
                edge(asm, &labels, b, *to);
            }
            End::Branch {
                cmp,
                a,
                b: rhs,
                then,
                otherwise,
            } => {
                let a = value(asm, t, a, "v_cmp_a");
                let rhs = value(asm, t, rhs, "v_cmp_b");
                let taken = asm.pred("p_branch");
                asm.ins(format!(
                    "setp.{}.s32 {taken}, {a}, {rhs}",
                    branch_compare(*cmp)
                ));
                if End::is_back(b, *then) {
                    // The taken edge needs its fuel check first.
                    let stub = asm.fresh_label("back_edge");
                    asm.ins(format!("@{taken} bra {stub}"));
                    edge(asm, &labels, b, *otherwise);
                    asm.label(&stub);
                    edge(asm, &labels, b, *then);
                } else {
                    asm.ins(format!("@{taken} bra {}", labels.block(*then)));
                    edge(asm, &labels, b, *otherwise);
                }
                uses_fuel |= End::is_back(b, *then) || End::is_back(b, *otherwise);
            }
        }
    }
    if uses_fuel {
        asm.label(&labels.out_of_fuel());
        asm.ins(format!("mov.u32 {status}, {STATUS_OUT_OF_FUEL}"));
    }
    asm.label(&labels.end());
    Ok(())
}

/// An unconditional jump from block `from` to `to`; a back edge first
/// spends one unit of fuel, or stops the thread when none is left.
fn edge(asm: &mut Asm, labels: &Labels, from: BlockIdx, to: BlockIdx) {
    if End::is_back(from, to) {
        let back_edges = asm.b32("back_edges");
        let fuel = asm.b32("fuel");
        let empty = asm.pred("p_fuel");
        asm.ins(format!("setp.ge.u32 {empty}, {back_edges}, {fuel}"));
        asm.ins(format!("@{empty} bra {}", labels.out_of_fuel()));
        asm.ins(format!("add.u32 {back_edges}, {back_edges}, 1"));
    }
    asm.ins(format!("bra {}", labels.block(to)));
}

fn emit_op(asm: &mut Asm, spec: &KernelSpec, t: usize, op: &Op) -> Result<()> {
    match op {
        Op::Load { dst, addr, access } => memory::load(asm, spec, t, *dst, addr, access),
        Op::Store {
            addr,
            value: v,
            access,
        } => memory::store(asm, spec, t, addr, v, access),
        Op::Rmw {
            dst,
            addr,
            op,
            value: v,
            access,
        } => memory::rmw(asm, spec, t, *dst, addr, op, v, access),
        Op::Fence(f) => memory::fence(asm, f),
        Op::Local { dst, op, a, b } => {
            let a = value(asm, t, a, "v_a");
            let b = value(asm, t, b, "v_b");
            let d = memory::thread_reg(asm, t, *dst);
            local::emit(asm, *op, &d, &a, &b);
            Ok(())
        }
    }
}
