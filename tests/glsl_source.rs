//! GLSL compute shaders checked directly (`gpumc check shader.comp`):
//! compiled by glslang under the Vulkan memory model and disassembled by
//! spirv-dis, launched as `local_size_x` × `--grid`, races reported at the
//! shader's lines; compile errors at their line; missing tools named with
//! their package. Skips without glslang and spirv-dis unless
//! `GPUMC_REQUIRE_GLSLANG` is set (CI sets it).

fn gpumc(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    gpumc_testutil::run_env(env!("CARGO_BIN_EXE_gpumc"), args, env)
}

fn have_tools() -> bool {
    gpumc_testutil::tools_or_skip(
        &["glslangValidator", "spirv-dis"],
        "GPUMC_REQUIRE_GLSLANG",
        "the `glslang-tools` and `spirv-tools` packages",
    )
}

fn races(file: &str) -> String {
    let (code, out, err) = gpumc(&["check", "--property", "races", file, "--grid", "2"], &[]);
    assert_eq!(code, 0, "{file}: {err}");
    out
}

#[test]
fn shaders_get_the_verdicts_their_comments_argue_at_their_lines() {
    if !have_tools() {
        return;
    }
    let d = "tests/data/glsl";
    let out = races(&format!("{d}/histogram.comp"));
    assert!(out.contains(": FAIL "), "{out}");
    assert!(
        out.contains(", tests/data/glsl/histogram.comp:10)"),
        "{out}"
    );
    let out = races(&format!("{d}/histogram-atomic.comp"));
    assert!(out.contains(": PASS "), "{out}");
    // The barrier orders the shared accesses (GLSL's `shared` is coherent:
    // non-private under the Vulkan memory model); without it they race.
    let out = races(&format!("{d}/shared-reverse.comp"));
    assert!(out.contains(": PASS "), "{out}");
    let out = races(&format!("{d}/shared-reverse-race.comp"));
    assert!(out.contains(": FAIL "), "{out}");
    assert!(out.contains("shared-reverse-race.comp:10)"), "{out}");
    assert!(out.contains("shared-reverse-race.comp:11)"), "{out}");
}

#[test]
fn shader_errors_and_missing_tools_are_clear() {
    if !have_tools() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("gpumc-glsl-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.comp");
    std::fs::write(
        &bad,
        "#version 450\nlayout(local_size_x = 2) in;\nvoid main() {\n  undeclared = 1;\n}\n",
    )
    .unwrap();
    let bad = bad.display().to_string();
    let (code, out, _) = gpumc(&["check", "--property", "races", &bad], &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("bad.comp:4:1: glslang: 'undeclared' : undeclared identifier"),
        "{out}"
    );
    let (code, out, _) = gpumc(
        &["check", "--property", "races", &bad],
        &[("GLSLANG", "/nonexistent/glslangValidator")],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("install the `glslang-tools` package"), "{out}");
    // Options a shader does not take are refused, not ignored.
    let (code, out, _) = gpumc(
        &[
            "check",
            "--property",
            "races",
            "tests/data/glsl/histogram.comp",
            "--block",
            "8",
        ],
        &[],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("a GLSL shader takes only --grid"), "{out}");
    // Two dimensions: ids numbered x first, in both engines.
    let ids = "tests/data/glsl/ids-2d.comp";
    let (code, out, _) = gpumc(&["check", ids, "--grid", "1,2"], &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("%_[0][0]=0; %_[0][1]=0; %_[0][2]=100; %_[0][3]=100; %_[0][4]=10; %_[0][5]=10; %_[0][6]=110; %_[0][7]=110;"),
        "{out}"
    );
    for engine in ["parametric", "symbolic"] {
        let (code, out, _) = gpumc(
            &[
                "check",
                "--property",
                "races",
                "--engine",
                engine,
                ids,
                "--grid",
                "1,2",
            ],
            &[],
        );
        assert_eq!(code, 0, "{out}");
        assert!(out.contains(": PASS "), "{engine}: {out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
