//! The kernel skeleton of `abi` ("Kernel structure"): parameters, slot and
//! row, shared memory in and out, roles, phases with their barriers, and
//! result records. Test code itself comes from [`super::thread`].

use super::asm::{comment_safe, imm32, Asm};
use super::memory::{loc_reg, thread_reg};
use super::stress::{start_barrier, stress_loop};
use super::target::PtxTarget;
use super::{entry_name, thread};
use crate::abi::*;
use crate::spec::{KernelSpec, PhaseBarrier, Region};
use gpumc_core::diag::Result;
use std::fmt::Write;

/// Kernel parameters in binding order (`abi::BIND_*`), and the register
/// each pointer is kept in (converted to the global window).
const PARAMS: [(&str, u32); BUFFERS as usize] = [
    ("mem", BIND_MEM),
    ("table", BIND_TABLE),
    ("results", BIND_RESULTS),
    ("sync", BIND_SYNC),
    ("stress", BIND_STRESS),
    ("params", BIND_PARAMS),
    ("shared_io", BIND_SHARED_IO),
];

/// The name of the shared-memory array.
const SHARED: &str = "shared_words";

pub(crate) fn emit(spec: &KernelSpec, cfg: &KernelConfig, target: &PtxTarget) -> Result<String> {
    let mut asm = Asm::default();
    let shared = spec.uses_shared();
    prologue(&mut asm, spec);
    if shared {
        copy_shared(&mut asm, cfg.shared_words, true);
    }
    roles(&mut asm, spec);
    asm.blank();
    for k in 0..=spec.barriers.len() {
        for (t, code) in spec.threads.iter().enumerate() {
            if let Some(phase) = code.phases.get(k) {
                thread::emit_phase(&mut asm, spec, t, k, phase)?;
                asm.blank();
            }
        }
        if let Some(PhaseBarrier::Ptx { id }) = spec.barriers.get(k) {
            asm.comment(format!("phase barrier {k}: every invocation of the CTA"));
            asm.ins(format!("barrier.sync {id}"));
            asm.blank();
        }
    }
    results(&mut asm, spec);
    if shared {
        copy_shared(&mut asm, cfg.shared_words, false);
    }
    asm.ins("ret");

    let (decls, body) = asm.finish();
    let mut text = String::new();
    let _ = writeln!(text, "//");
    let _ = writeln!(
        text,
        "// gpumc: litmus test {} as a PTX kernel (generated; abi.rs describes its structure)",
        comment_safe(&spec.name)
    );
    let _ = writeln!(text, "//");
    let _ = writeln!(text, ".version {}.{}", target.isa_major, target.isa_minor);
    let _ = writeln!(text, ".target sm_{}", target.sm);
    let _ = writeln!(text, ".address_size 64");
    let _ = writeln!(text);
    let _ = writeln!(text, ".visible .entry {}(", entry_name(spec));
    for (k, (name, _)) in PARAMS.iter().enumerate() {
        let sep = if k + 1 < PARAMS.len() { "," } else { "" };
        let _ = writeln!(text, "\t.param .u64 param_{name}{sep}");
    }
    let _ = writeln!(text, ")");
    let _ = writeln!(text, "{{");
    if shared {
        let _ = writeln!(
            text,
            "\t.shared .align 4 .b32 {SHARED}[{}];",
            cfg.shared_words
        );
    }
    text.push_str(&decls);
    text.push('\n');
    text.push_str(&body);
    let _ = writeln!(text, "}}");
    Ok(text)
}

/// Buffer pointers, slot, the row's header and location addresses, the
/// fuel, and every test register at its initial value.
fn prologue(asm: &mut Asm, spec: &KernelSpec) {
    asm.comment("buffer pointers, in the global window");
    for (name, _) in PARAMS {
        let r = asm.b64(name);
        asm.ins(format!("ld.param.u64 {r}, [param_{name}]"));
        asm.ins(format!("cvta.to.global.u64 {r}, {r}"));
    }
    let tid = asm.b32("local_id");
    let ntid = asm.b32("cta_size");
    let ctaid = asm.b32("cta");
    let slot = asm.b32("slot");
    let row = asm.b64("row");
    let table = asm.b64("table");
    asm.comment("slot = %ctaid.x * %ntid.x + %tid.x; its row of the table");
    asm.ins(format!("mov.u32 {tid}, %tid.x"));
    asm.ins(format!("mov.u32 {ntid}, %ntid.x"));
    asm.ins(format!("mov.u32 {ctaid}, %ctaid.x"));
    asm.ins(format!("mad.lo.u32 {slot}, {ctaid}, {ntid}, {tid}"));
    asm.ins(format!(
        "mul.wide.u32 {row}, {slot}, {}",
        4 * spec.row_words()
    ));
    asm.ins(format!("add.u64 {row}, {table}, {row}"));
    for (word, name) in [
        (ROW_ROLE, "role"),
        (ROW_RESULT, "result"),
        (ROW_SYNC, "sync_index"),
        (ROW_SYNC_N, "sync_n"),
        (ROW_FLAGS, "flags"),
    ] {
        let r = asm.b32(name);
        asm.ins(format!("ld.global.u32 {r}, [{row}+{}]", 4 * word));
    }
    if !spec.locations.is_empty() {
        asm.blank();
        asm.comment(
            "location addresses: mem + 4 * word (global), shared array + 4 * word (shared)",
        );
    }
    let word = asm.b32("word");
    let mem = asm.b64("mem");
    for (l, loc) in spec.locations.iter().enumerate() {
        let r = loc_reg(asm, l, loc.region);
        asm.ins(format!(
            "ld.global.u32 {word}, [{row}+{}]",
            4 * (ROW_LOC0 + l)
        ));
        match loc.region {
            Region::Global => {
                asm.ins(format!("mul.wide.u32 {r}, {word}, 4"));
                asm.ins(format!("add.u64 {r}, {mem}, {r}"));
            }
            Region::Shared => {
                let base = asm.b32("shared_base");
                asm.ins(format!("mov.u32 {base}, {SHARED}"));
                asm.ins(format!("shl.b32 {r}, {word}, 2"));
                asm.ins(format!("add.u32 {r}, {base}, {r}"));
            }
        }
    }
    let params = asm.b64("params");
    let status = asm.b32("status");
    let back_edges = asm.b32("back_edges");
    let oob = asm.b32("oob");
    let fuel = asm.b32("fuel");
    asm.blank();
    asm.comment("thread state: status, back edges taken, fuel, out-of-bounds flag");
    asm.ins(format!("mov.u32 {status}, {STATUS_DONE}"));
    asm.ins(format!("mov.u32 {back_edges}, 0"));
    asm.ins(format!("mov.u32 {oob}, 0"));
    asm.ins(format!("ld.global.u32 {fuel}, [{params}+{}]", 4 * P_FUEL));
    for (t, code) in spec.threads.iter().enumerate() {
        if code.regs.is_empty() {
            continue;
        }
        asm.comment(format!("registers of thread {t} ({})", code.name));
        for (r, reg) in code.regs.iter().enumerate() {
            let name = thread_reg(asm, t, r);
            asm.ins(format!("mov.b32 {name}, {}", imm32(reg.init)));
        }
    }
}

/// Shared memory in from `shared_io` (then a barrier), or out to it (after
/// a barrier): words `tid, tid + ntid, …` below `words` of this CTA's part.
fn copy_shared(asm: &mut Asm, words: u32, copy_in: bool) {
    asm.blank();
    let dir = if copy_in { "in" } else { "out" };
    let tid = asm.b32("local_id");
    let ntid = asm.b32("cta_size");
    let ctaid = asm.b32("cta");
    let io = asm.b64("shared_io");
    let base = asm.b32("shared_base");
    let part = asm.b64("shared_part");
    let k = asm.b32("shared_k");
    let v = asm.b32("shared_value");
    let global = asm.b64("shared_global_addr");
    let local = asm.b32("shared_local_addr");
    let p = asm.pred("p");
    let top = format!("$shared_{dir}_loop");
    let done = format!("$shared_{dir}_done");
    if copy_in {
        asm.comment(
            "shared memory in: shared_io[ctaid * shared_words + k] for k = tid, tid + ntid, ...",
        );
    } else {
        asm.comment("shared memory out, once every invocation is done with it");
        asm.ins("barrier.sync 0");
    }
    asm.ins(format!("mov.u32 {base}, {SHARED}"));
    asm.ins(format!(
        "mul.wide.u32 {part}, {ctaid}, {}",
        4 * u64::from(words)
    ));
    asm.ins(format!("add.u64 {part}, {io}, {part}"));
    asm.ins(format!("mov.u32 {k}, {tid}"));
    asm.label(&top);
    asm.ins(format!("setp.ge.u32 {p}, {k}, {words}"));
    asm.ins(format!("@{p} bra {done}"));
    asm.ins(format!("mul.wide.u32 {global}, {k}, 4"));
    asm.ins(format!("add.u64 {global}, {part}, {global}"));
    asm.ins(format!("shl.b32 {local}, {k}, 2"));
    asm.ins(format!("add.u32 {local}, {base}, {local}"));
    if copy_in {
        asm.ins(format!("ld.global.u32 {v}, [{global}]"));
        asm.ins(format!("st.shared.u32 [{local}], {v}"));
    } else {
        asm.ins(format!("ld.shared.u32 {v}, [{local}]"));
        asm.ins(format!("st.global.u32 [{global}], {v}"));
    }
    asm.ins(format!("add.u32 {k}, {k}, {ntid}"));
    asm.ins(format!("bra {top}"));
    asm.label(&done);
    if copy_in {
        asm.ins("barrier.sync 0");
    }
}

/// Step 3 of the kernel structure: stress invocations run the stress loop;
/// test-thread invocations run the pre-stress loop (if flagged) and take
/// the start barrier (if their row says so).
fn roles(asm: &mut Asm, spec: &KernelSpec) {
    asm.blank();
    let role = asm.b32("role");
    let flags = asm.b32("flags");
    let thread = asm.b32("thread");
    let p = asm.pred("p");
    asm.comment("role: stress");
    asm.ins(format!("setp.ne.u32 {p}, {role}, {ROLE_STRESS}"));
    asm.ins(format!("@{p} bra $role_stress_done"));
    stress_loop(asm, "main", P_STRESS_ITERS, P_STRESS_PATTERN);
    asm.label("$role_stress_done");
    asm.comment("role: a test thread (role - ROLE_THREAD0 < threads)");
    asm.ins(format!("sub.u32 {thread}, {role}, {ROLE_THREAD0}"));
    asm.ins(format!("setp.ge.u32 {p}, {thread}, {}", spec.threads.len()));
    asm.ins(format!("@{p} bra $role_test_done"));
    asm.ins(format!("and.b32 {thread}, {flags}, {FLAG_PRE_STRESS}"));
    asm.ins(format!("setp.eq.u32 {p}, {thread}, 0"));
    asm.ins(format!("@{p} bra $pre_stress_done"));
    stress_loop(asm, "pre", P_PRE_ITERS, P_PRE_PATTERN);
    asm.label("$pre_stress_done");
    start_barrier(asm);
    asm.label("$role_test_done");
}

/// Step 5: each test-thread invocation whose row keeps its results writes
/// status, back edges and its recorded registers.
fn results(asm: &mut Asm, spec: &KernelSpec) {
    let role = asm.b32("role");
    let result = asm.b32("result");
    let status = asm.b32("status");
    let oob = asm.b32("oob");
    let back_edges = asm.b32("back_edges");
    let results = asm.b64("results");
    let addr = asm.b64("result_addr");
    let p = asm.pred("p");
    let q = asm.pred("q");
    asm.comment("result record (unless DISCARD)");
    // Out of bounds only reports when nothing else (out of fuel) did.
    asm.ins(format!("setp.eq.u32 {p}, {status}, {STATUS_DONE}"));
    asm.ins(format!("setp.ne.u32 {q}, {oob}, 0"));
    asm.ins(format!("and.pred {p}, {p}, {q}"));
    asm.ins(format!("@{p} mov.u32 {status}, {STATUS_OUT_OF_BOUNDS}"));
    asm.ins(format!("setp.eq.u32 {p}, {result}, 0x{DISCARD:08X}"));
    asm.ins(format!("@{p} bra $results_done"));
    asm.ins(format!("mul.wide.u32 {addr}, {result}, 4"));
    asm.ins(format!("add.u64 {addr}, {results}, {addr}"));
    for (t, code) in spec.threads.iter().enumerate() {
        let end = format!("$results_t{t}_done");
        asm.comment(format!("thread {t} ({})", code.name));
        asm.ins(format!(
            "setp.ne.u32 {p}, {role}, {}",
            ROLE_THREAD0 as usize + t
        ));
        asm.ins(format!("@{p} bra {end}"));
        asm.ins(format!(
            "st.global.u32 [{addr}+{}], {status}",
            4 * RES_STATUS
        ));
        asm.ins(format!(
            "st.global.u32 [{addr}+{}], {back_edges}",
            4 * RES_BACK_EDGES
        ));
        for (k, r) in code.recorded.iter().enumerate() {
            let reg = thread_reg(asm, t, *r);
            asm.ins(format!(
                "st.global.u32 [{addr}+{}], {reg}",
                4 * (RES_REGS + k)
            ));
        }
        asm.label(&end);
    }
    asm.label("$results_done");
}

#[cfg(test)]
mod tests {
    #[test]
    fn parameters_are_in_binding_order() {
        for (k, (_, binding)) in super::PARAMS.iter().enumerate() {
            assert_eq!(*binding as usize, k);
        }
    }
}
