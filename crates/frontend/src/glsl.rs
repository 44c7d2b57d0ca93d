//! GLSL compute shaders (`.comp`) in: compiled to SPIR-V by glslang
//! (`glslangValidator -V -g`, package `glslang-tools`), disassembled by
//! `spirv-dis` (package `spirv-tools`) and read by the SPIR-V front-end
//! ([`crate::spirv`]), with the shader's lines in every report (from the
//! module's `OpLine`s).
//!
//! The shader is compiled under the Vulkan memory model (see
//! `under_vulkan_model`), which our `vulkan` model is.
//!
//! The launch: a workgroup is the shader's `local_size_x` × `_y` × `_z`
//! invocations (one subgroup), `--grid N` (or `X,Y,Z`) workgroups
//! (default 1); written as the `; @Config:` header the SPIR-V front-end
//! reads, and `; @Dims` for a launch of several dimensions. Lines of the shader
//! that start with `// @` (`// @Input: …`, `// @Output: …`, `// @Config:
//! …`) become those headers, so a shader can carry its test conditions
//! and a launch of its own (its `@Config` then wins).
//!
//! The compilers are `$GLSLANG` (else `glslangValidator`) and
//! `$SPIRV_DIS` (else `spirv-dis`).

use crate::diag::{Error, ErrorKind, Result};
use crate::ir::Pos;
use crate::ptx::launch::Launch;
use crate::scratch::{disassemble, run_tool, Scratch, Tool};
use std::path::Path;

/// Whether `name` is a GLSL compute shader, by extension.
pub fn is_glsl(name: &Path) -> bool {
    name.extension().is_some_and(|e| e == "comp")
}

/// Compiles the shader `src`, named `name`, for `launch`, to SPIR-V
/// assembly with `; @…` headers.
pub fn compile(src: &str, name: &Path, launch: &Launch) -> Result<String> {
    if launch.block.is_some()
        || launch.kernel.is_some()
        || !launch.params.is_empty()
        || launch.shared_bytes.is_some()
    {
        return Err(Error::new(
            ErrorKind::Usage,
            "a GLSL shader takes only --grid (workgroups); its workgroup size is its `layout(local_size_x = …)`, its buffers are its own",
        )
        .in_file(name));
    }
    let grid = launch.grid.unwrap_or([1, 1, 1]);
    let dir = Scratch::new("glsl")?;
    let copy = dir.copy_of(name, "shader.comp");
    let spv = dir.path().join("shader.spv");
    std::fs::write(&copy, under_vulkan_model(src)).map_err(|e| Error::io(&copy, e))?;
    let (copy_s, spv_s) = (copy.display().to_string(), spv.display().to_string());
    let out = run_tool(
        "GLSL",
        &Tool {
            env_var: "GLSLANG",
            default: "glslangValidator",
            package: "glslang-tools",
        },
        &[
            "-V",
            "--target-env",
            "vulkan1.2",
            "-g",
            "-o",
            &spv_s,
            &copy_s,
        ],
        name,
    )?;
    if !out.status.success() {
        // glslang reports on standard output: `ERROR: FILE:LINE: message`.
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        return Err(compile_error(&text, &copy_s, name));
    }
    let asm = disassemble("GLSL", &spv_s, name)?;
    let asm = without_source_text(&asm).replace(&copy_s, &name.display().to_string());
    let mut headers: Vec<String> = src
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("// @"))
        .map(|h| format!("; @{h}"))
        .collect();
    if !headers.iter().any(|h| h.starts_with("; @Config:")) {
        let local = local_size(&asm).ok_or_else(|| {
            Error::new(
                ErrorKind::Semantic,
                "the shader has no `LocalSize` execution mode",
            )
            .in_file(name)
        })?;
        let launch = crate::spirv::launch_headers(local, grid).map_err(|e| e.in_file(name))?;
        headers.extend(launch.lines().map(str::to_string));
    }
    Ok(headers.join("\n") + "\n" + &asm)
}

/// The shader compiled under the Vulkan memory model, which our `vulkan`
/// model is (glslang's `#pragma use_vulkan_memory_model`, with
/// `GL_KHR_memory_scope_semantics`): GLSL's coherence (`shared` variables,
/// `coherent` buffers) then becomes the model's non-private accesses with
/// availability and visibility, as glslang translates it. The two lines go
/// after `#version`, followed by a `#line` that keeps the shader's line
/// numbers. A shader that asks for the model itself, or has no
/// `#version`, is compiled as it is.
fn under_vulkan_model(src: &str) -> String {
    if src.contains("use_vulkan_memory_model") {
        return src.to_string();
    }
    let lines: Vec<&str> = src.lines().collect();
    let Some(v) = lines
        .iter()
        .position(|l| l.trim_start().starts_with("#version"))
    else {
        return src.to_string();
    };
    let mut out: Vec<String> = lines[..=v].iter().map(|l| l.to_string()).collect();
    out.push("#pragma use_vulkan_memory_model".into());
    out.push("#extension GL_KHR_memory_scope_semantics : require".into());
    out.push(format!("#line {}", v + 2));
    out.extend(lines[v + 1..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// The `OpExecutionMode … LocalSize X Y Z` of the module.
fn local_size(asm: &str) -> Option<[u32; 3]> {
    let line = asm
        .lines()
        .find(|l| l.contains("OpExecutionMode") && l.contains("LocalSize "))?;
    let mut words = line
        .split_whitespace()
        .skip_while(|w| *w != "LocalSize")
        .skip(1);
    let mut next = || words.next()?.parse::<u32>().ok();
    Some([next()?, next()?, next()?])
}

/// The module without the shader's text that `-g` puts in `OpSource` (a
/// string over many lines, which tells a reader nothing the file does
/// not).
fn without_source_text(asm: &str) -> String {
    let mut out = String::with_capacity(asm.len());
    let mut rest = asm;
    while let Some(at) = rest.find("OpSource ") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let line_end = from.find('\n').unwrap_or(from.len());
        match from[..line_end].find('"') {
            None => {
                out.push_str(&from[..line_end]);
                rest = &from[line_end..];
            }
            Some(q) => {
                out.push_str(from[..q].trim_end());
                // Skip the string, escapes included.
                let bytes = from.as_bytes();
                let mut k = q + 1;
                while k < bytes.len() && bytes[k] != b'"' {
                    k += if bytes[k] == b'\\' { 2 } else { 1 };
                }
                rest = from.get(k + 1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

/// glslang's first error (`ERROR: FILE:LINE: message`) at its line.
fn compile_error(text: &str, copy: &str, name: &Path) -> Error {
    let prefix = format!("ERROR: {copy}:");
    for line in text.lines() {
        let Some(rest) = line.strip_prefix(&prefix) else {
            continue;
        };
        let Some((l, msg)) = rest.split_once(':') else {
            continue;
        };
        if let Ok(l) = l.trim().parse::<u32>() {
            return Error::syntax(Pos { line: l, col: 1 }, format!("glslang: {}", msg.trim()))
                .in_file(name);
        }
    }
    let head: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .collect();
    Error::new(
        ErrorKind::Syntax,
        format!("glslang could not compile the shader: {}", head.join(" / ")),
    )
    .in_file(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vulkan_memory_model_is_asked_for_after_version_keeping_lines() {
        assert_eq!(
            under_vulkan_model("// c\n#version 450\nvoid main() {}\n"),
            "// c\n#version 450\n#pragma use_vulkan_memory_model\n#extension GL_KHR_memory_scope_semantics : require\n#line 3\nvoid main() {}\n"
        );
        let own = "#version 450\n#pragma use_vulkan_memory_model\n";
        assert_eq!(under_vulkan_model(own), own);
    }

    #[test]
    fn the_shader_text_is_dropped_from_opsource() {
        let asm = "OpCapability Shader\n%1 = OpString \"k.comp\"\nOpSource GLSL 450 %1 \"#version 450\nvoid main() { \\\"x\\\" }\n\"\nOpName %main \"main\"\nOpSource GLSL 450\n";
        assert_eq!(
            without_source_text(asm),
            "OpCapability Shader\n%1 = OpString \"k.comp\"\nOpSource GLSL 450 %1\nOpName %main \"main\"\nOpSource GLSL 450\n"
        );
        assert_eq!(
            local_size("OpExecutionMode %main LocalSize 64 1 1\n"),
            Some([64, 1, 1])
        );
    }
}
