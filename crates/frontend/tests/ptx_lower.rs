//! The PTX kernel translation (`gpumc_frontend::ptx`): one thread per
//! thread of the launch, folding what the launch decides, loops unrolled
//! or kept, memory as cells, errors with positions, never a panic.

use gpumc_core::ir::{Addr, InstrKind, Program};
use gpumc_frontend::ptx::launch::{Launch, ParamValue};
use gpumc_frontend::ptx::parse_kernel;
use std::path::{Path, PathBuf};

fn launch(grid: [u32; 3], block: [u32; 3]) -> Launch {
    Launch {
        grid: Some(grid),
        block: Some(block),
        ..Launch::default()
    }
}

fn kernel(body: &str, params: &str) -> String {
    format!(
        ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k({params})\n{{\n\t.reg .pred %p<8>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<32>;\n{body}\n\tret;\n}}\n"
    )
}

fn lower(src: &str, l: &Launch) -> Program {
    parse_kernel(src, Path::new("k.ptx"), l).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

fn kinds(p: &Program, t: usize) -> Vec<&InstrKind> {
    p.threads[t].instrs.iter().map(|i| &i.kind).collect()
}

fn stores(p: &Program, t: usize) -> Vec<String> {
    kinds(p, t)
        .into_iter()
        .filter_map(|k| match k {
            InstrKind::Store {
                addr: Addr::Fixed(l),
                ..
            } => Some(p.locations[*l].name.clone()),
            _ => None,
        })
        .collect()
}

/// One pointer argument `a`; each thread stores to `a[tid.x]`.
const STORE_TID: &str = "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tst.global.u32 [%rd4], %r1;";

#[test]
fn one_thread_per_thread_of_the_launch_named_and_placed() {
    let src = kernel(STORE_TID, ".param .u64 k_param_0");
    let p = lower(&src, &launch([2, 1, 1], [40, 1, 1]));
    assert_eq!(p.threads.len(), 80);
    assert_eq!(p.threads[0].name, "t0@b0");
    assert_eq!(p.threads[41].name, "t1@b1");
    assert_eq!(p.threads[41].placement.ids, vec![1, 0]);
    assert_eq!(
        p.threads[33].placement.warp,
        Some(1),
        "thread 33 of a block is in warp 1"
    );
    assert_eq!(stores(&p, 41), ["param_0[1]"]);
    let p = lower(&src, &launch([1, 2, 1], [2, 2, 1]));
    assert_eq!(p.threads[7].name, "t(1,1)@b(0,1)");
}

#[test]
fn loops_decided_by_the_launch_are_unrolled() {
    // for (i = tid; i < 12; i += ntid) a[i] = i;
    let body = "\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ntid.x;\nL1:\n\tsetp.ge.u32 %p1, %r1, 12;\n\t@%p1 bra L2;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tst.global.u32 [%rd4], %r1;\n\tadd.s32 %r1, %r1, %r2;\n\tbra.uni L1;\nL2:";
    let p = lower(
        &kernel(body, ".param .u64 k_param_0"),
        &launch([1, 1, 1], [4, 1, 1]),
    );
    assert_eq!(stores(&p, 1), ["param_0[1]", "param_0[5]", "param_0[9]"]);
    assert!(
        !kinds(&p, 1)
            .iter()
            .any(|k| matches!(k, InstrKind::Branch { .. })),
        "no run-time branch is left"
    );
}

#[test]
fn a_spin_loop_stays_a_loop() {
    // while (volatile load of flag == 0) {}
    let body = "\tld.param.u64 %rd1, [k_param_0];\nL1:\n\tld.volatile.global.u32 %r1, [%rd1];\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra L1;\n\tst.global.u32 [%rd1+4], 1;";
    let p = lower(
        &kernel(body, ".param .u64 k_param_0"),
        &launch([1, 1, 1], [1, 1, 1]),
    );
    let instrs = &p.threads[0].instrs;
    let label_at = |l: &str| {
        instrs
            .iter()
            .position(|i| matches!(&i.kind, InstrKind::Label(x) if x == l))
    };
    let back = instrs.iter().enumerate().any(|(k, i)| match &i.kind {
        InstrKind::Branch { target, .. } | InstrKind::Goto(target) => {
            label_at(target).is_some_and(|t| t < k)
        }
        _ => false,
    });
    assert!(back, "a backward jump: {instrs:#?}");
    let ld = instrs
        .iter()
        .find(|i| matches!(i.kind, InstrKind::Load { .. }))
        .unwrap();
    for t in ["RLX", "SYS", "VOLATILE", "GEN"] {
        assert!(ld.tags.iter().any(|x| x == t), "{:?}", ld.tags);
    }
}

#[test]
fn arguments_given_fold_and_free_ones_are_inputs() {
    // if (tid < n) a[tid] = tid;
    let body = "\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u32 %r5, [k_param_1];\n\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, %r5;\n\t@%p1 bra L9;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tst.global.u32 [%rd4], %r1;\nL9:";
    let src = kernel(body, ".param .u64 k_param_0, .param .u32 k_param_1");
    let mut l = launch([1, 1, 1], [4, 1, 1]);
    l.params = vec![("1".into(), ParamValue::Int(2))];
    let p = lower(&src, &l);
    assert_eq!(stores(&p, 1), ["param_0[1]"]);
    assert!(
        stores(&p, 3).is_empty(),
        "thread 3 skips the store when n = 2"
    );
    assert!(p.inputs.is_empty());
    let p = lower(&src, &launch([1, 1, 1], [4, 1, 1]));
    assert_eq!(p.inputs.len(), 1, "n is free: {:?}", p.inputs);
    assert_eq!(p.inputs[0].name, "param_1");
    assert!(kinds(&p, 3)
        .iter()
        .any(|k| matches!(k, InstrKind::Input { .. })));
    assert!(kinds(&p, 3)
        .iter()
        .any(|k| matches!(k, InstrKind::Branch { .. })));
}

#[test]
fn read_only_globals_fold_and_out_of_bounds_is_undefined() {
    // .global table = {5, 6}; a[0] = table[tid]; a[table[0]] = 1 (index 5
    // of a 4-element buffer: out of bounds).
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.global .align 4 .b8 table[8] = {5, 0, 0, 0, 6, 0, 0, 0};\n.visible .entry k(.param .u64 k_param_0)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [k_param_0];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tmov.u64 %rd3, table;\n\tadd.s64 %rd4, %rd3, %rd2;\n\tld.global.u32 %r2, [%rd4];\n\tst.global.u32 [%rd1], %r2;\n\tld.global.u32 %r3, [table];\n\tmul.wide.u32 %rd5, %r3, 4;\n\tadd.s64 %rd6, %rd1, %rd5;\n\tst.global.u32 [%rd6], 1;\n\tret;\n}\n";
    let mut l = launch([1, 1, 1], [2, 1, 1]);
    l.params = vec![(
        "0".into(),
        ParamValue::Buffer {
            bytes: 16,
            zero: false,
        },
    )];
    let p = lower(src, &l);
    let k = kinds(&p, 1);
    assert!(
        !k.iter().any(|k| matches!(k, InstrKind::Load { .. })),
        "table is folded: {k:?}"
    );
    assert!(
        k.iter().any(|k| matches!(
            k,
            InstrKind::Store {
                value: gpumc_core::ir::Operand::Const(6),
                ..
            }
        )),
        "{k:?}"
    );
    let cause = causes(&p, 1)
        .into_iter()
        .next()
        .expect("undefined behaviour with its cause");
    assert_eq!(
        cause,
        "out-of-bounds access: `st.global.u32 [%rd6], 1` at 19:2 reaches bytes 20..24 of `param_0`, which has 16 bytes (.global)"
    );
}

#[test]
fn an_access_wider_than_its_variable_names_both_sizes() {
    // `atomicInc((unsigned *)&c, 10)` on `__device__ char c`.
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .global .align 1 .u8 c;\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<5>;\n\tmov.u64 %rd3, c;\n\tcvta.global.u64 %rd4, %rd3;\n\tatom.inc.u32 %r1, [%rd4], 10;\n\tret;\n}\n";
    let p = lower(src, &launch([1, 1, 1], [1, 1, 1]));
    let cause = causes(&p, 0)
        .into_iter()
        .next()
        .expect("undefined behaviour with its cause");
    assert_eq!(
        cause,
        "`atom.inc.u32 %r1, [%rd4], 10` at 11:2 accesses 4 bytes of `c`, which has 1 byte (.global .u8 c)"
    );
}

#[test]
fn shared_memory_has_a_copy_per_block_and_barriers_count_instances() {
    let body = "\t.shared .align 4 .b8 s[16];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd1, %r1, 4;\n\tmov.u64 %rd2, s;\n\tadd.s64 %rd3, %rd2, %rd1;\n\tst.shared.u32 [%rd3], %r1;\n\tbar.sync 0;\n\tbar.sync 0;";
    let p = lower(&kernel(body, ""), &launch([2, 1, 1], [2, 1, 1]));
    assert_eq!(stores(&p, 0), ["s[0]@b0"]);
    assert_eq!(stores(&p, 3), ["s[1]@b1"]);
    let ids: Vec<_> = kinds(&p, 0)
        .into_iter()
        .filter_map(|k| match k {
            InstrKind::Barrier {
                id,
                count: None,
                arrive: false,
            } => Some(id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        ids,
        [
            gpumc_core::ir::Operand::Const(0),
            gpumc_core::ir::Operand::Const(1)
        ]
    );
}

#[test]
fn mixed_size_writes_and_unknown_instructions_are_refused_with_positions() {
    let body = "\tld.param.u64 %rd1, [k_param_0];\n\tst.global.u32 [%rd1], 1;\n\tld.global.u8 %r1, [%rd1+1];";
    let e = parse_kernel(
        &kernel(body, ".param .u64 k_param_0"),
        Path::new("k.ptx"),
        &launch([1, 1, 1], [1, 1, 1]),
    )
    .unwrap_err();
    assert!(e.message.contains("mixed-size"), "{e}");
    assert!(e.pos.is_some(), "{e}");
    let body = "\tmov.u32 %r1, %tid.x;\n\tfrobnicate.b32 %r2, %r1;";
    let e = parse_kernel(
        &kernel(body, ""),
        Path::new("k.ptx"),
        &launch([1, 1, 1], [1, 1, 1]),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("unsupported: instruction `frobnicate.b32`"),
        "{e}"
    );
    assert_eq!(e.pos.map(|p| p.line), Some(10), "{e}");
    assert_eq!(e.file.as_deref(), Some(Path::new("k.ptx")));
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/ptx")
        .join(name)
}

#[test]
fn every_compiled_test_kernel_translates_or_is_refused_as_unsupported() {
    for f in std::fs::read_dir(data("")).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        let src = std::fs::read_to_string(&f).unwrap();
        let names: Vec<String> = src
            .lines()
            .filter_map(|l| l.split(".entry ").nth(1))
            .map(|r| r.split('(').next().unwrap().trim().to_string())
            .collect();
        for k in names {
            let mut l = launch([2, 1, 1], [2, 1, 1]);
            l.kernel = Some(k.clone());
            l.shared_bytes = Some(64);
            match parse_kernel(&src, &f, &l) {
                Ok(p) => assert_eq!(p.threads.len(), 4),
                Err(e) => assert!(
                    e.message.starts_with("unsupported:") && e.pos.is_some(),
                    "{}: {k}: {e}",
                    f.display()
                ),
            }
        }
    }
}

/// A `Launch` built in code is held to CUDA's limits too, and its thread
/// count never wraps (2^64 threads once counted as 0).
#[test]
fn launches_past_cudas_limits_are_usage_errors() {
    let src = kernel(STORE_TID, ".param .u64 k_param_0");
    for (grid, block) in [
        ([65536, 65536, 1], [65536, 65536, 1]),
        ([1, 1, 1], [2048, 1, 1]),
        ([u32::MAX, 1, 1], [1, 1, 1]),
    ] {
        let e = parse_kernel(&src, Path::new("k.ptx"), &launch(grid, block)).unwrap_err();
        assert_eq!(e.kind, gpumc_core::diag::ErrorKind::Usage, "{e}");
        assert!(e.message.contains("CUDA allows"), "{e}");
    }
    // Within CUDA's limits but past ours: 2^73 threads, counted exactly.
    let e = parse_kernel(
        &src,
        Path::new("k.ptx"),
        &launch([(1 << 31) - 1, 65535, 65535], [1024, 1, 1]),
    )
    .unwrap_err();
    assert!(e.message.contains("at most 4096"), "{e}");
    // A refusal about size: the parametric engine may take the launch.
    assert!(e.scale, "{e}");
    // A variable whose declared size overflows (2^32 · 2^32 · 4 bytes is 0
    // in u64): refused where it is used, not wrapped.
    let big = kernel(
        "\tmov.u32 %r1, 7;\n\tst.global.u32 [g], %r1;",
        ".param .u64 k_param_0",
    )
    .replace(
        ".visible .entry",
        ".global .align 4 .b32 g[4294967296][4294967296];\n.visible .entry",
    );
    let e = parse_kernel(&big, Path::new("k.ptx"), &launch([1, 1, 1], [1, 1, 1])).unwrap_err();
    assert!(e.message.contains("1 TiB"), "{e}");
    assert!(!e.scale, "{e}");
}

#[test]
fn damaged_kernels_never_panic() {
    let src = std::fs::read(data("kernels-O0.ptx")).unwrap();
    let alphabet = b" \n\t.;,[]{}()%@!+-0123456789abcdefgprsuvxyz_";
    let mut l = launch([1, 1, 1], [2, 1, 1]);
    l.kernel = Some("_Z8shared_kPii".into());
    l.shared_bytes = Some(64);
    for copy in gpumc_testutil::damaged_copies(&src, alphabet, 300, 7, 0x5eed) {
        let text = String::from_utf8_lossy(&copy);
        if let Err(e) = parse_kernel(&text, Path::new("d.ptx"), &l) {
            assert!(e.file.is_some(), "{e}");
        }
    }
}

#[test]
fn misaligned_accesses_are_undefined_with_their_cause() {
    // A 4-byte store at byte offset 2 of an argument buffer (known
    // offset), and one at an offset read from memory (run time: the
    // check is a branch to undefined behaviour).
    let src = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 k_param_0)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [k_param_0];\n\tst.global.u32 [%rd1+2], 1;\n\tld.global.u32 %r1, [%rd1];\n\tcvt.u64.u32 %rd2, %r1;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], 7;\n\tret;\n}\n";
    let mut l = launch([1, 1, 1], [1, 1, 1]);
    l.params = vec![(
        "0".into(),
        ParamValue::Buffer {
            bytes: 16,
            zero: false,
        },
    )];
    let p = lower(src, &l);
    let causes = causes(&p, 0);
    assert_eq!(
        causes.first().map(String::as_str),
        Some("misaligned access: `st.global.u32 [%rd1+2], 1` at 9:2 accesses 4 bytes at offset 2 of `param_0`"),
        "{causes:?}"
    );
}

/// The causes of the `Unreachable` instructions of thread `th`, in order.
fn causes(p: &gpumc_core::ir::Program, th: usize) -> Vec<String> {
    p.threads[th]
        .instrs
        .iter()
        .filter_map(|i| match &i.kind {
            InstrKind::Unreachable { cause } => cause.clone(),
            _ => None,
        })
        .collect()
}
