//! The harness's own loops: the stress loop (`abi`, "The stress loop") and
//! the start barrier (`abi`, kernel structure step 3b).

use super::asm::Asm;
use crate::abi::{P_SPIN_LIMIT, P_STRESS_LINES, P_STRESS_LINE_WORDS, P_STRESS_OFFSET};

/// The stress loop with its iteration count and pattern read from
/// `params[iters_param]` and `params[pattern_param]`. Accesses are
/// `.volatile` so ptxas keeps every one of them.
pub(crate) fn stress_loop(asm: &mut Asm, name: &str, iters_param: usize, pattern_param: usize) {
    let params = asm.b64("params");
    let stress = asm.b64("stress");
    let tid = asm.b32("local_id");
    let iters = asm.b32("stress_iters");
    let pattern = asm.b32("stress_pattern");
    let line_words = asm.b32("stress_line_words");
    let lines = asm.b32("stress_lines");
    let offset = asm.b32("stress_offset");
    let i = asm.b32("stress_i");
    let acc = asm.b32("stress_acc");
    let column = asm.b32("stress_column");
    let word = asm.b32("stress_word");
    let loaded = asm.b32("stress_loaded");
    let addr = asm.b64("stress_addr");
    let p = asm.pred("p");
    let first_store = asm.pred("p_first_store");
    let second_store = asm.pred("p_second_store");
    let top = format!("$stress_{name}_loop");
    let done = format!("$stress_{name}_done");

    asm.comment(format!(
        "stress loop ({name}): params[{iters_param}] iterations, pattern params[{pattern_param}]"
    ));
    asm.ins(format!(
        "ld.global.u32 {iters}, [{params}+{}]",
        4 * iters_param
    ));
    asm.ins(format!(
        "ld.global.u32 {pattern}, [{params}+{}]",
        4 * pattern_param
    ));
    asm.ins(format!(
        "ld.global.u32 {line_words}, [{params}+{}]",
        4 * P_STRESS_LINE_WORDS
    ));
    asm.ins(format!(
        "ld.global.u32 {lines}, [{params}+{}]",
        4 * P_STRESS_LINES
    ));
    asm.ins(format!(
        "ld.global.u32 {offset}, [{params}+{}]",
        4 * P_STRESS_OFFSET
    ));
    for n in [&iters, &lines, &line_words] {
        asm.ins(format!("setp.eq.u32 {p}, {n}, 0"));
        asm.ins(format!("@{p} bra {done}"));
    }
    // Pattern bit 1 clear: the first access stores; bit 0 clear: the
    // second does (0 store-store, 1 store-load, 2 load-store, 3 load-load).
    asm.ins(format!("and.b32 {word}, {pattern}, 2"));
    asm.ins(format!("setp.eq.u32 {first_store}, {word}, 0"));
    asm.ins(format!("and.b32 {word}, {pattern}, 1"));
    asm.ins(format!("setp.eq.u32 {second_store}, {word}, 0"));
    asm.ins(format!("rem.u32 {column}, {tid}, {line_words}"));
    asm.ins(format!("mov.u32 {i}, 0"));
    asm.ins(format!("mov.u32 {acc}, 0"));
    asm.label(&top);
    // w = ((offset + i) % lines) * line_words + tid % line_words
    asm.ins(format!("add.u32 {word}, {offset}, {i}"));
    asm.ins(format!("rem.u32 {word}, {word}, {lines}"));
    asm.ins(format!("mad.lo.u32 {word}, {word}, {line_words}, {column}"));
    asm.ins(format!("mul.wide.u32 {addr}, {word}, 4"));
    asm.ins(format!("add.u64 {addr}, {stress}, {addr}"));
    for store in [&first_store, &second_store] {
        asm.ins(format!("@{store} st.volatile.global.u32 [{addr}], {i}"));
        asm.ins(format!(
            "@!{store} ld.volatile.global.u32 {loaded}, [{addr}]"
        ));
        asm.ins(format!("@!{store} add.u32 {acc}, {acc}, {loaded}"));
    }
    asm.ins(format!("add.u32 {i}, {i}, 1"));
    asm.ins(format!("setp.lt.u32 {p}, {i}, {iters}"));
    asm.ins(format!("@{p} bra {top}"));
    // Keeps the loads alive: their sum is observable (almost never stored).
    asm.ins(format!("setp.eq.u32 {p}, {acc}, 0x7FFFFFFF"));
    asm.ins(format!("@{p} st.volatile.global.u32 [{stress}], {acc}"));
    asm.label(&done);
}

/// The start barrier: one relaxed gpu-scope atomic add to
/// `sync[row[ROW_SYNC]]`, then relaxed gpu-scope loads of it until it
/// reaches `row[ROW_SYNC_N]` or `params[P_SPIN_LIMIT]` loads were made. No
/// fence: the barrier must not order the test's own accesses.
pub(crate) fn start_barrier(asm: &mut Asm) {
    let params = asm.b64("params");
    let sync = asm.b64("sync");
    let sync_idx = asm.b32("sync_index");
    let sync_n = asm.b32("sync_n");
    let addr = asm.b64("sync_addr");
    let limit = asm.b32("spin_limit");
    let spins = asm.b32("spins");
    let seen = asm.b32("sync_seen");
    let p = asm.pred("p");
    let spin = "$start_barrier_spin";
    let done = "$start_barrier_done";
    asm.comment("start barrier");
    asm.ins(format!("setp.eq.u32 {p}, {sync_n}, 0"));
    asm.ins(format!("@{p} bra {done}"));
    asm.ins(format!("mul.wide.u32 {addr}, {sync_idx}, 4"));
    asm.ins(format!("add.u64 {addr}, {sync}, {addr}"));
    asm.ins(format!(
        "atom.relaxed.gpu.global.add.u32 {seen}, [{addr}], 1"
    ));
    asm.ins(format!(
        "ld.global.u32 {limit}, [{params}+{}]",
        4 * P_SPIN_LIMIT
    ));
    asm.ins(format!("mov.u32 {spins}, 0"));
    asm.label(spin);
    asm.ins(format!("setp.ge.u32 {p}, {spins}, {limit}"));
    asm.ins(format!("@{p} bra {done}"));
    asm.ins(format!("ld.relaxed.gpu.global.u32 {seen}, [{addr}]"));
    asm.ins(format!("add.u32 {spins}, {spins}, 1"));
    asm.ins(format!("setp.lt.u32 {p}, {seen}, {sync_n}"));
    asm.ins(format!("@{p} bra {spin}"));
    asm.label(done);
}
