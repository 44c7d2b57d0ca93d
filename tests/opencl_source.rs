//! OpenCL C kernels checked directly (`gpumc check kernel.cl`): compiled
//! by clang, opt (mem2reg) and llvm-spirv-14, checked under our `opencl`
//! model, races reported at the kernel's lines. Our kernels
//! (`tests/data/opencl`) argue their verdicts in their comments. Skips
//! without the tools unless `GPUMC_REQUIRE_OPENCL` is set (CI sets it).

fn gpumc(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    gpumc_testutil::run_env(env!("CARGO_BIN_EXE_gpumc"), args, env)
}

fn have_tools() -> bool {
    gpumc_testutil::tools_or_skip(
        &["clang", "opt-14", "llvm-spirv-14", "spirv-dis"],
        "GPUMC_REQUIRE_OPENCL",
        "the `clang`, `llvm-14`, `llvm-spirv-14` and `spirv-tools` packages",
    )
}

const D: &str = "tests/data/opencl";

/// `gpumc check --property P FILE ARGS…`: the first line of its output.
fn check(property: &str, file: &str, args: &[&str]) -> String {
    let path = format!("{D}/{file}");
    let mut all = vec!["check", "--property", property, &path];
    all.extend_from_slice(args);
    let (code, out, err) = gpumc(&all, &[]);
    assert_eq!(code, 0, "{file} {args:?}: {out}{err}");
    out
}

fn verdict(out: &str) -> &str {
    ["PASS", "FAIL", "UNKNOWN"]
        .into_iter()
        .find(|v| {
            out.lines()
                .next()
                .unwrap_or("")
                .contains(&format!(": {v} "))
        })
        .unwrap_or("?")
}

/// `gpumc check --property races FILE --kernel KERNEL LAUNCH…` refuses
/// the kernel (exit status 2) with `message` in its output.
fn refused(file: &str, kernel: &str, launch: &[&str], message: &str) {
    let path = format!("{D}/{file}");
    let args = [
        &["check", "--property", "races", &path, "--kernel", kernel][..],
        launch,
    ]
    .concat();
    let (code, out, err) = gpumc(&args, &[]);
    assert_eq!(code, 2, "{kernel}: {out}{err}");
    assert!(
        (out.clone() + &err).contains(message),
        "{kernel}: {out}{err}"
    );
}

#[test]
fn kernels_get_the_verdicts_their_comments_argue_at_real_launch_sizes() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=1024"];
    let out = check("races", "reduce.cl", &big);
    assert_eq!(verdict(&out), "PASS", "{out}");
    assert!(out.contains("parametric engine"), "{out}");
    let out = check("races", "reduce-race.cl", &big);
    assert_eq!(verdict(&out), "FAIL", "{out}");
    // The racing pair at the kernel's lines, a concrete witness.
    assert!(out.contains("reduce-race.cl:12:"), "{out}");
    assert!(out.contains("reduce-race.cl:14:"), "{out}");
    assert!(
        out.contains("witness of the first race: threads P"),
        "{out}"
    );
    // OpenCL 1.x atomics are device-wide (our header), `++` is not.
    let out = check(
        "races",
        "counter.cl",
        &["--kernel", "count", "--block", "64", "--grid", "1024"],
    );
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = check(
        "races",
        "counter.cl",
        &["--kernel", "count_plain", "--block", "64", "--grid", "1024"],
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("on %n[0]"), "{out}");
    assert!(out.contains("counter.cl:10:"), "{out}");
    // Floating point: free values, said so.
    let out = check("races", "floats.cl", &["--block", "64", "--grid", "64"]);
    assert_eq!(verdict(&out), "PASS", "{out}");
    assert!(out.contains("are free values"), "{out}");
}

#[test]
fn barrier_flags_and_scopes_decide_as_the_opencl_model_says() {
    if !have_tools() {
        return;
    }
    let small = ["--block", "4", "--grid", "2"];
    let out = check(
        "races",
        "neighbour.cl",
        &[&["--kernel", "global_flag"][..], &small].concat(),
    );
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = check(
        "races",
        "neighbour.cl",
        &[&["--kernel", "local_flag"][..], &small].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("neighbour.cl:15:"), "{out}");
    assert!(out.contains("neighbour.cl:19:"), "{out}");
    // Message passing, litmus-style: (kernel, launch, verdict).
    for (kernel, launch, want) in [
        ("mp_device", ["--block", "1", "--grid", "2"], "PASS"),
        ("mp_device", ["--block", "2", "--grid", "1"], "PASS"),
        ("mp_relaxed", ["--block", "1", "--grid", "2"], "FAIL"),
        ("mp_relaxed", ["--block", "2", "--grid", "1"], "FAIL"),
        ("mp_work_group", ["--block", "1", "--grid", "2"], "FAIL"),
        ("mp_work_group", ["--block", "2", "--grid", "1"], "PASS"),
    ] {
        let args = [
            &["--kernel", kernel, "--param", "flag=zeros:4"][..],
            &launch,
        ]
        .concat();
        let out = check("races", "mp.cl", &args);
        assert_eq!(verdict(&out), want, "{kernel} {launch:?}: {out}");
        assert!(out.contains("model opencl"), "{out}");
    }
    // The flag's initial value unknown: the reader may see 1 unsynchronised.
    let out = check(
        "races",
        "mp.cl",
        &["--kernel", "mp_device", "--block", "1", "--grid", "2"],
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
}

#[test]
fn divergence_and_assertions_are_undefined_behaviour() {
    if !have_tools() {
        return;
    }
    let small = ["--block", "4", "--grid", "2"];
    let out = check(
        "safety",
        "divergence.cl",
        &[&["--kernel", "divergent"][..], &small].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("barrier divergence"), "{out}");
    assert!(out.contains("divergence.cl:7:"), "{out}");
    let out = check(
        "safety",
        "divergence.cl",
        &[&["--kernel", "uniform"][..], &small].concat(),
    );
    assert!(!out.contains("divergence:"), "{out}");
    assert!(out.contains("reachable state"), "{out}");
    let out = check("races", "assert.cl", &["--block", "1", "--grid", "2"]);
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("assertion fails (`__assert`)"), "{out}");
}

/// `async_work_group_copy` and `wait_group_events` as our header writes
/// them out: ordered by a barrier after the wait, racy without one (at a
/// launch the two-thread engine takes and at one the concrete engine
/// takes), divergent when part of a work-group copies; the report says
/// how the copy is modelled.
#[test]
fn asynchronous_copies_race_until_a_barrier_orders_them() {
    if !have_tools() {
        return;
    }
    for launch in [
        ["--block", "64", "--grid", "128"],
        ["--block", "4", "--grid", "2"],
    ] {
        let out = check(
            "races",
            "async.cl",
            &[&["--kernel", "waited"][..], &launch].concat(),
        );
        assert_eq!(verdict(&out), "PASS", "{launch:?}: {out}");
        assert!(
            out.contains("`async_work_group_copy` is done at its call"),
            "{out}"
        );
        let out = check(
            "races",
            "async.cl",
            &[&["--kernel", "no_barrier"][..], &launch].concat(),
        );
        assert_eq!(verdict(&out), "FAIL", "{launch:?}: {out}");
        assert!(out.contains("async.cl:26:"), "{out}");
    }
    let out = check(
        "safety",
        "async.cl",
        &["--kernel", "partial", "--block", "4", "--grid", "1"],
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("barrier divergence"), "{out}");
    // At a launch only the two-thread engine takes: the divergence
    // depends on ids alone, so it is confirmed.
    let out = check(
        "races",
        "async.cl",
        &["--kernel", "partial", "--block", "64", "--grid", "128"],
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("parametric engine"), "{out}");
    assert!(
        out.contains("undefined behaviour: threads") && out.contains("(barrier divergence)"),
        "{out}"
    );
}

#[test]
fn assumptions_rule_executions_out_and_preconditions_of_calls_are_checked() {
    if !have_tools() {
        return;
    }
    let launch = ["--local_size=4", "--num_groups=4"];
    let run = |kernel: &str, property: &str| {
        check(
            property,
            "assumptions.cl",
            &[&["--kernel", kernel][..], &launch].concat(),
        )
    };
    let out = run("strided", "races");
    assert_eq!(verdict(&out), "PASS", "{out}");
    assert!(!out.contains("Vacuous"), "{out}");
    let out = run("strided_any", "races");
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("assumptions.cl:13:"), "{out}");
    let out = run("assumed", "races");
    assert_eq!(verdict(&out), "PASS", "{out}");
    // A called function's precondition: undefined behaviour at the call.
    let out = run("calls", "races");
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(
        out.contains("a precondition of `store` fails at a call (`__requires`)"),
        "{out}"
    );
    // No execution left: said so, on every engine that decides it.
    for engine in ["auto", "symbolic"] {
        let out = check(
            "races",
            "assumptions.cl",
            &[&["--kernel", "vacuous", "--engine", engine][..], &launch].concat(),
        );
        assert!(
            out.contains("Vacuous: no execution satisfies"),
            "{engine}: {out}"
        );
    }
    let out = run("no_overflow", "safety");
    assert!(!out.contains("assertion fails"), "{out}");
    assert!(!out.contains("Vacuous"), "{out}");
    // GPUVerify's instrumentation predicates are refused by name.
    let dir = std::env::temp_dir().join(format!("gpumc-opencl-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("read.cl");
    std::fs::write(
        &f,
        "kernel void k(local int *a) {\n  __assert(__same_group);\n}\n",
    )
    .unwrap();
    let (code, out, _) = gpumc(&["check", &f.display().to_string(), "--block", "2"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("read.cl:2:"), "{out}");
    assert!(out.contains("two-thread predicate `__same_group`"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_dimensional_launches_number_work_items_x_first() {
    if !have_tools() {
        return;
    }
    // A million work-items in 64 × 64 work-groups of 16 × 16.
    let big = ["--local_size=16,16", "--num_groups=64,64"];
    let out = check(
        "races",
        "transpose.cl",
        &[&["--kernel", "transpose"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = check(
        "races",
        "transpose.cl",
        &[&["--kernel", "transpose_no_barrier"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("transpose.cl:24:"), "{out}");
    assert!(out.contains("transpose.cl:25:"), "{out}");
    // The two-thread engine's coordinates agree with the concrete ones.
    for kernel in ["transpose", "transpose_no_barrier"] {
        let verdicts: Vec<String> = ["parametric", "symbolic"]
            .iter()
            .map(|engine| {
                let args = [
                    "--kernel",
                    kernel,
                    "--engine",
                    engine,
                    "--local_size=2,2",
                    "--num_groups=2,2",
                    "--param",
                    "in=zeros:1024",
                    "--param",
                    "out=zeros:1024",
                ];
                verdict(&check("races", "transpose.cl", &args)).to_string()
            })
            .collect();
        assert_eq!(verdicts[0], verdicts[1], "{kernel}");
    }
    // The ids a device gives: local id 1, group id 1, work dimensions.
    let out = check(
        "safety",
        "transpose.cl",
        &[
            "--kernel",
            "ids",
            "--local_size=2,2",
            "--num_groups=1,2",
            "--param",
            "a=zeros:32",
        ],
    );
    assert!(
        out.contains(
            "%a[0]=2; %a[1]=2; %a[2]=102; %a[3]=102; %a[4]=12; %a[5]=12; %a[6]=112; %a[7]=112;"
        ),
        "{out}"
    );
}

#[test]
fn grids_beyond_two_to_the_31_work_items_are_checked_by_their_ids() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=64,64,64", "--num_groups=64,64,64"];
    let run = |kernel: &str| {
        check(
            "races",
            "cube.cl",
            &[&["--kernel", kernel][..], &big].concat(),
        )
    };
    let out = run("cube");
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = run("flat");
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("cube.cl:18:"), "{out}");
    let out = run("dims");
    assert_eq!(verdict(&out), "PASS", "{out}");
    // A dimension whose global ids reach 2^31 is refused, by its size.
    refused(
        "cube.cl",
        "cube",
        &["--local_size=1024", "--num_groups=2097152"],
        "invocations (at most 2147483647)",
    );
}

#[test]
fn errors_name_the_source_line_the_kernel_the_argument_or_the_package() {
    if !have_tools() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gpumc-opencl-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    // A compile error at clang's position.
    let bad = write(
        "bad.cl",
        "kernel void k(global int *p) {\n  undeclared = 1;\n}\n",
    );
    let (code, out, _) = gpumc(&["check", &bad, "--block", "2"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("bad.cl:2:3: clang: use of undeclared identifier"),
        "{out}"
    );
    // A refusal inside the compiled code, at the source line.
    let ptr = write(
        "vload.cl",
        "kernel void k(global float *a) {\n  a[0] = vload4(0,\n    a + 2).x;\n}\n",
    );
    let (code, out, _) = gpumc(&["check", &ptr, "--block", "2"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("vload.cl:2:"), "{out}");
    assert!(out.contains("`vloadn` with a pointer argument"), "{out}");
    // Several kernels: one must be chosen; a wrong name lists them.
    let mp = format!("{D}/mp.cl");
    let (code, out, _) = gpumc(&["check", &mp, "--block", "2"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("several kernels (mp_device, mp_relaxed, mp_work_group)"),
        "{out}"
    );
    let (code, out, _) = gpumc(&["check", &mp, "--block", "2", "--kernel", "mp"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no kernel `mp`"), "{out}");
    let (code, out, _) = gpumc(
        &[
            "check",
            &mp,
            "--block",
            "2",
            "--kernel",
            "mp_device",
            "--param",
            "nope=1",
        ],
        &[],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("its arguments: data, flag"), "{out}");
    // No launch size.
    let (code, out, _) = gpumc(&["check", &format!("{D}/floats.cl")], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("needs a work-group size"), "{out}");
    // A called function's `__global_requires` is refused, at its line.
    let pre = write(
        "pre.cl",
        "void f(int n) {\n  __global_requires(n == 4);\n}\nkernel void k(int n) {\n  f(n);\n}\n",
    );
    let (code, out, _) = gpumc(&["check", &pre, "--block", "2"], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("pre.cl:2:") && out.contains("`__global_requires` in a called function (`f`)"),
        "{out}"
    );
    // A missing translator names its package.
    let (code, out, _) = gpumc(
        &["check", &format!("{D}/floats.cl"), "--block", "2"],
        &[("LLVM_SPIRV", "/nonexistent/llvm-spirv-14")],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("install the `llvm-spirv-14` package"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn loops_that_only_wait_stop_as_spinning_and_loops_that_write_stay_cut() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=1024"];
    for (kernel, want) in [
        ("wait_then_own", "PASS"),
        ("wait_then_shared", "FAIL"),
        ("busy_wait", "PASS"),
        ("writing_wait", "UNKNOWN"),
    ] {
        let mut args = vec!["--kernel", kernel];
        args.extend_from_slice(&big);
        let out = check("races", "spin.cl", &args);
        assert_eq!(verdict(&out), want, "{kernel}: {out}");
        assert!(out.contains("parametric engine"), "{kernel}: {out}");
        if want == "FAIL" {
            assert!(out.contains("spin.cl:20:"), "{kernel}: {out}");
        }
        // The concrete engine agrees at a launch it takes.
        if want != "UNKNOWN" {
            let out = check(
                "races",
                "spin.cl",
                &[
                    "--kernel",
                    kernel,
                    "--engine",
                    "symbolic",
                    "--local_size=2",
                    "--num_groups=2",
                ],
            );
            assert_eq!(verdict(&out), want, "{kernel} concretely: {out}");
        }
    }
    // An engine's refusal names the kernel's line, not the compiled
    // SPIR-V's (a scratch file).
    let (code, out, err) = gpumc(
        &[
            "check",
            "--engine",
            "explicit",
            &format!("{D}/spin.cl"),
            "--kernel",
            "wait_then_own",
            "--local_size=2",
            "--num_groups=2",
        ],
        &[],
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.contains("spin.cl:9:12: unsupported: `%go[0]` is uninitialised"),
        "{out}{err}"
    );
    assert!(out.contains("of the compiled program)"), "{out}{err}");
}

/// `atomic_min`/`atomic_max` of unsigned values on local memory
/// (`OpAtomicUMin`/`OpAtomicUMax`) order the values as unsigned numbers.
#[test]
fn unsigned_atomic_minimum_and_maximum_on_local_memory() {
    if !have_tools() {
        return;
    }
    let small = ["--local_size=4", "--num_groups=1"];
    let out = check(
        "safety",
        "umin.cl",
        &[&["--kernel", "unsigned_order"][..], &small].concat(),
    );
    assert!(out.contains("1 reachable state"), "{out}");
    assert!(
        out.contains("%unsigned_order_lo=1; %unsigned_order_hi=-2147483648;"),
        "{out}"
    );
    let out = check(
        "safety",
        "umin.cl",
        &[&["--kernel", "signed_order"][..], &small].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("assertion fails (`__assert`)"), "{out}");
}

/// Private arrays and structs initialised from constants and copied
/// (`OpCopyMemorySized`) hold the copied values.
#[test]
fn memory_copies_into_private_variables_copy_the_values() {
    if !have_tools() {
        return;
    }
    let small = ["--local_size=2", "--num_groups=1"];
    let out = check(
        "safety",
        "copy.cl",
        &[&["--kernel", "copies_hold"][..], &small].concat(),
    );
    assert!(out.contains("1 reachable state"), "{out}");
    assert!(out.contains("%out[0]=3; %out[1]=5;"), "{out}");
    for launch in [&small[..], &["--local_size=256", "--num_groups=64"][..]] {
        let out = check(
            "safety",
            "copy.cl",
            &[&["--kernel", "copy_asserted_wrongly"][..], launch].concat(),
        );
        assert_eq!(verdict(&out), "FAIL", "{launch:?}: {out}");
        assert!(out.contains("assertion fails (`__assert`)"), "{out}");
    }
}

/// A struct argument passed by value is the work-item's own copy, which
/// the kernel may write.
#[test]
fn struct_arguments_are_private_copies_the_kernel_may_write() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=64"];
    let out = check(
        "races",
        "struct_arg.cl",
        &[&["--kernel", "own_copy"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = check(
        "safety",
        "struct_arg.cl",
        &[&["--kernel", "own_copy", "--local_size=2", "--num_groups=2"][..]].concat(),
    );
    assert!(!out.contains("FAIL"), "{out}");
    assert!(out.contains("reachable state"), "{out}");
    let out = check(
        "races",
        "struct_arg.cl",
        &[&["--kernel", "shared_index"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("struct_arg.cl:22:"), "{out}");
}

/// The null pointer (`NULL`, `OpConstantNull`) points to no object: an
/// access through it is undefined behaviour at its source line, and it
/// converts to the integer 0, which no other pointer does. Each engine
/// that takes the kernel agrees.
#[test]
fn null_pointers_compare_equal_to_zero_and_accesses_through_them_fail() {
    if !have_tools() {
        return;
    }
    let small = ["--local_size=2", "--num_groups=2"];
    let big = ["--local_size=256", "--num_groups=1024"];
    let cases = [
        ("maybe_null", "FAIL", Some("store through a null pointer")),
        ("compare_with_null", "PASS", None),
        ("null_chosen", "FAIL", None),
        (
            "null_plus_offset",
            "FAIL",
            Some("load through a null pointer"),
        ),
    ];
    let lines = [("maybe_null", ":12:"), ("null_plus_offset", ":45:")];
    for (kernel, want, ub) in cases {
        for (launch, engine) in [(&small, "symbolic"), (&big, "auto")] {
            let args = [&["--kernel", kernel, "--engine", engine][..], &launch[..]].concat();
            let out = check("races", "null.cl", &args);
            assert_eq!(verdict(&out), want, "{kernel} {engine}: {out}");
            if let Some(ub) = ub {
                assert!(out.contains(ub), "{kernel} {engine}: {out}");
                let line = lines.iter().find(|l| l.0 == kernel).unwrap().1;
                assert!(out.contains(&format!("null.cl{line}")), "{kernel}: {out}");
            }
        }
    }
    // The race of `null_chosen` is between the writes of out[0].
    let out = check(
        "races",
        "null.cl",
        &[
            &["--kernel", "null_chosen", "--engine", "symbolic"][..],
            &small,
        ]
        .concat(),
    );
    assert!(out.contains("null.cl:36:"), "{out}");
}

/// An uninitialised pointer is undefined: accesses through it are
/// undefined behaviour, and what it converts to is arbitrary, so an
/// assertion that it is null may fail — confirmed at a launch too large
/// for the concrete engines, as an undefined value really is arbitrary.
#[test]
fn undefined_pointers_are_arbitrary_and_point_nowhere() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=64"];
    let out = check(
        "races",
        "null.cl",
        &[&["--kernel", "undefined_pointer"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("assertion fails (`__assert`)"), "{out}");
    assert!(out.contains("null.cl:52:"), "{out}");
}

/// A pointer stored in shared memory is its address, a 64-bit value:
/// copies of pointers race or not like other values; following a pointer
/// read back from memory is refused at its line, not guessed.
#[test]
fn pointers_in_shared_memory_are_addresses_and_are_not_followed() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=64"];
    fn with<'a>(k: &'a str, big: &[&'a str]) -> Vec<&'a str> {
        [&["--kernel", k][..], big].concat()
    }
    let out = check("races", "ptr_in_memory.cl", &with("copy_own", &big));
    assert_eq!(verdict(&out), "PASS", "{out}");
    let out = check("races", "ptr_in_memory.cl", &with("store_shared", &big));
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("ptr_in_memory.cl:19:"), "{out}");
    refused(
        "ptr_in_memory.cl",
        "follow",
        &big,
        "ptr_in_memory.cl:27:8: unsupported: an access through a pointer read from shared memory",
    );
}

/// GPUVerify's access predicates (`__read`, `__write`, their offsets,
/// `__ptr_offset_bytes`): a work-item's accesses since its last barrier,
/// each recorded or not, the assertion checked for every choice — at a
/// small launch by the symbolic engine and at a large one by the
/// parametric engine, which agree.
#[test]
fn access_predicates_see_the_accesses_since_the_last_barrier() {
    if !have_tools() {
        return;
    }
    let cases = [
        ("read_then_none", Some(":9:")),
        ("own_offsets", None),
        ("barrier_clears", None),
        ("either_write", Some(":37:")),
        ("loop_writes", None),
    ];
    let small = ["--local_size=2", "--num_groups=2", "--engine", "symbolic"];
    let big = ["--local_size=256", "--num_groups=1024"];
    for (kernel, fails_at) in cases {
        for launch in [&small[..], &big[..]] {
            let args = [&["--kernel", kernel][..], launch].concat();
            let out = check("races", "access_log.cl", &args);
            match fails_at {
                Some(line) => {
                    assert_eq!(verdict(&out), "FAIL", "{kernel} {launch:?}: {out}");
                    assert!(out.contains("assertion fails (`__assert`)"), "{out}");
                    assert!(out.contains(&format!("access_log.cl{line}")), "{out}");
                }
                None => assert_eq!(verdict(&out), "PASS", "{kernel} {launch:?}: {out}"),
            }
        }
    }
}

/// A function without a body returns an arbitrary value (the report
/// states the assumption), so what depends on it is a real behaviour
/// under that assumption: a race through an arbitrary index and a
/// failing assertion are confirmed at a large launch. A pointer it
/// returns is refused, not guessed.
#[test]
fn results_of_bodiless_functions_are_arbitrary_and_confirmed() {
    if !have_tools() {
        return;
    }
    let big = ["--local_size=256", "--num_groups=1024"];
    let out = check(
        "races",
        "bodiless.cl",
        &[&["--kernel", "arbitrary_index"][..], &big].concat(),
    );
    assert_eq!(verdict(&out), "FAIL", "{out}");
    assert!(out.contains("bodiless.cl:10:"), "{out}");
    assert!(
        out.contains("`nondet`, `pick`, `locate` have no body"),
        "{out}"
    );
    for launch in [
        &["--local_size=2", "--num_groups=2", "--engine", "symbolic"][..],
        &big,
    ] {
        let args = [&["--kernel", "unknown_result"][..], launch].concat();
        let out = check("races", "bodiless.cl", &args);
        assert_eq!(verdict(&out), "FAIL", "{launch:?}: {out}");
        assert!(out.contains("bodiless.cl:19:"), "{out}");
    }
    refused(
        "bodiless.cl",
        "returned_pointer",
        &big,
        "bodiless.cl:25:21: unsupported: a pointer returned by a function without a body",
    );
}

/// Images: writes store texels addressed by their coordinates (rows and
/// columns apart), reads of read-only images are free values; the
/// symbolic engine at a small 2-D launch and the parametric engine at a
/// large one agree; a read of a read_write image is refused.
#[test]
fn image_writes_race_on_texels_and_read_only_reads_race_with_nothing() {
    if !have_tools() {
        return;
    }
    let small = [
        "--local_size=2,2",
        "--num_groups=2,2",
        "--engine",
        "symbolic",
    ];
    let big = ["--local_size=16,16", "--num_groups=64,64"];
    for (kernel, want) in [
        ("copy", "PASS"),
        ("overlap", "FAIL"),
        ("transpose_free", "PASS"),
    ] {
        for launch in [&small[..], &big[..]] {
            let args = [&["--kernel", kernel][..], launch].concat();
            let out = check("races", "image.cl", &args);
            assert_eq!(verdict(&out), want, "{kernel} {launch:?}: {out}");
            if want == "FAIL" {
                assert!(out.contains("image.cl:15:"), "{out}");
                assert!(out.contains("image.cl:16:"), "{out}");
            }
        }
    }
    refused(
        "image.cl",
        "rw_image",
        &small,
        "image.cl:32:16: unsupported: a read of a `ReadWrite` image",
    );
}

/// Local memory nobody writes is arbitrary but one copy per work-group:
/// rereading an element agrees with the first read (PASS), another
/// work-item's element may differ (FAIL, confirmed at a large launch as
/// at a small one).
#[test]
fn unwritten_local_memory_is_arbitrary_and_consistent_within_a_work_group() {
    if !have_tools() {
        return;
    }
    let small = ["--local_size=4", "--num_groups=2", "--engine", "symbolic"];
    let big = ["--local_size=256", "--num_groups=1024"];
    for launch in [&small[..], &big[..]] {
        let args = [&["--kernel", "reread"][..], launch].concat();
        let out = check("races", "local_contents.cl", &args);
        assert_eq!(verdict(&out), "PASS", "{launch:?}: {out}");
        let args = [&["--kernel", "neighbour"][..], launch].concat();
        let out = check("races", "local_contents.cl", &args);
        assert_eq!(verdict(&out), "FAIL", "{launch:?}: {out}");
        assert!(out.contains("local_contents.cl:16:"), "{out}");
    }
}

/// `sincos`, `fract` and the other OpenCL functions with a second result
/// store it through their pointer: a race where work-items pass one
/// location, none where each passes its own or a private variable.
#[test]
fn second_results_written_through_pointers_are_stores() {
    if !have_tools() {
        return;
    }
    let small = ["--local_size=2", "--num_groups=2", "--engine", "symbolic"];
    let big = ["--local_size=256", "--num_groups=1024"];
    for (kernel, want) in [
        ("own", "PASS"),
        ("shared_out", "FAIL"),
        ("private_out", "PASS"),
    ] {
        for launch in [&small[..], &big[..]] {
            let args = [&["--kernel", kernel][..], launch].concat();
            let out = check("races", "out_pointer.cl", &args);
            assert_eq!(verdict(&out), want, "{kernel} {launch:?}: {out}");
            if want == "FAIL" {
                assert!(out.contains("out_pointer.cl:14:"), "{out}");
            }
        }
    }
}

/// OpenCL C 2.0's work-group functions (tests/data/opencl/
/// work_group_functions.cl): every work-item gets the group's reduction,
/// scan and broadcast, so results that decide who writes are race-free
/// where they agree; they are no barrier (a race across one is found),
/// and a work-item that does not reach one is barrier divergence. Every
/// listed state of `values` shows the specification's results of its
/// inputs. At a launch only the parametric engine takes, the exchanged
/// values are other work-items' (a race that depends on them is not
/// confirmed: never a FAIL without a witness).
#[test]
fn work_group_functions_compute_the_groups_values() {
    if !have_tools() {
        return;
    }
    const F: &str = "tests/data/opencl/work_group_functions.cl";
    let run = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["check", F, "--json"];
        all.extend_from_slice(args);
        let (code, out, err) = gpumc(&all, &[]);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
        serde_json::from_str(out.lines().next().unwrap_or("")).unwrap()
    };
    let sized = ["--param", "in=zeros:32", "--param", "out=zeros:32"];
    for (kernel, verdict, extra) in [
        ("last_positive", "PASS", &[][..]),
        ("all_positive_write", "FAIL", &[]),
        ("broadcast_max", "PASS", &[]),
        ("scan_index", "PASS", &sized[..]),
        ("no_barrier", "FAIL", &[]),
        ("divergent", "FAIL", &[]),
        ("broadcast_outside", "FAIL", &[]),
    ] {
        for engine in ["auto", "symbolic"] {
            let mut args = vec![
                "--property",
                "races",
                "--kernel",
                kernel,
                "--grid",
                "2",
                "--block",
                "4",
                "--engine",
                engine,
            ];
            args.extend_from_slice(extra);
            let v = run(&args);
            assert_eq!(v["verdict"], verdict, "{kernel} {engine}: {v}");
            let m = v["message"].as_str().unwrap_or_default();
            assert_eq!(
                m.contains("barrier divergence"),
                kernel == "divergent",
                "{kernel} {engine}: {v}"
            );
            assert_eq!(
                m.contains("a broadcast from a local id outside"),
                kernel == "broadcast_outside",
                "{kernel} {engine}: {v}"
            );
        }
    }
    let v = run(&[
        "--property",
        "races",
        "--kernel",
        "last_positive",
        "--grid",
        "1024",
        "--block",
        "256",
    ]);
    assert_ne!(v["verdict"], "FAIL", "{v}");
    // The values, state by state, at a group of three.
    let v = run(&[
        "--kernel",
        "values",
        "--grid",
        "1",
        "--block",
        "3",
        "--max-states",
        "40",
    ]);
    let names: Vec<&str> = v["observables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(!names.iter().any(|n| n.contains("gpumc")), "{names:?}");
    let states = v["states"].as_array().unwrap();
    assert!(states.len() >= 20, "{v}");
    for s in states {
        let at = |name: &str| -> i32 {
            let k = names.iter().position(|n| *n == name).unwrap();
            s[k].as_i64().unwrap() as i32
        };
        let x: Vec<i32> = (0..3).map(|i| at(&format!("%in[{i}]"))).collect();
        for g in 0..3 {
            let want = [
                x.iter().fold(0i32, |a, &b| a.wrapping_add(b)),
                *x[..=g].iter().min().unwrap(),
                x[..g].iter().fold(0i32, |a, &b| a.wrapping_add(b)),
                *x.iter().max().unwrap(),
                x[1],
                i32::from(x.iter().all(|&v| v > 0)) + 2 * i32::from(x.iter().any(|&v| v > 0)),
                x[..g].iter().map(|&v| v as u32).max().unwrap_or(0) as i32,
            ];
            for (k, w) in want.iter().enumerate() {
                assert_eq!(at(&format!("%out[{}]", 7 * g + k)), *w, "g{g} k{k}: {s}");
            }
        }
    }
}
