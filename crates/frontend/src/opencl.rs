//! OpenCL C kernels (`.cl`) in: compiled by clang to LLVM IR for SPIR
//! (`-target spir64 -cl-std=CL2.0`, package `clang`), translated to
//! SPIR-V by `llvm-spirv-14` (package `llvm-spirv-14`), disassembled by
//! `spirv-dis` (package `spirv-tools`) and read by the SPIR-V front-end
//! ([`crate::spirv`]), whose `kernel_args` pass turns the kernel's
//! arguments into buffers and free inputs. Unoptimised (`-O0`), then
//! only `opt -passes=mem2reg` (package `llvm-14`: local variables become
//! SSA values): a data race is a property of the source, and an optimiser
//! may delete a racy access (a load whose value is unused) precisely
//! because a race is undefined behaviour; `mem2reg` deletes no access to
//! memory but gives loops the form the translation unrolls cheaply (at
//! plain `-O0` a counter kept in memory made the generic translation of a
//! tree reduction grow eightfold per loop iteration). Line tables
//! (`-gline-tables-only`) become `OpLine`s, so every report shows the
//! kernel's lines; `-cl-kernel-arg-info` keeps the arguments' names.
//!
//! Our header (`examples/opencl/gpumc_opencl.h`) is included first: it
//! gives OpenCL 1.x atomic functions the device scope OpenCL gives them
//! and reads GPUVerify's annotations (see the header).
//!
//! The launch: `--block N` (GPUVerify's `--local_size=N`) work-items per
//! work-group, default the kernel's `reqd_work_group_size`; `--grid G`
//! (`--num_groups=G`) work-groups, default 1; up to three dimensions
//! (`--local_size=16,16`). Written as the `; @Config: N, 1, G` header (a
//! work-group is one sub-group; N and G the products), `; @Dims` for a
//! launch of several dimensions, and
//! `; @Kernel: NAME` (`--kernel`, needed when the file has several).
//! `--param NAME=INT` gives a scalar argument a value (`; @Input:`).
//!
//! The tools are `$CLANG`, `$LLVM_OPT` (else `opt-14`), `$LLVM_SPIRV`
//! (else `llvm-spirv-14`) and `$SPIRV_DIS`; `$GPUMC_OPENCL_FLAGS` adds clang flags after ours.

use crate::diag::{Error, ErrorKind, Result};
use crate::ptx::launch::{Launch, ParamValue};
use crate::scratch::{disassemble, run_tool, run_tool_ok, Scratch, Tool};
use std::path::Path;

/// Our OpenCL header, included before the kernel.
pub const HEADER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../examples/opencl/gpumc_opencl.h"
));

/// The clang flags every compilation gets (before `$GPUMC_OPENCL_FLAGS`).
pub const FLAGS: &[&str] = &[
    "-c",
    "-target",
    "spir64",
    "-cl-std=CL2.0",
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-gline-tables-only",
    "-cl-kernel-arg-info",
    "-emit-llvm",
    "-Xclang",
    "-finclude-default-header",
];

/// Whether `name` is an OpenCL C source, by extension.
pub fn is_opencl(name: &Path) -> bool {
    name.extension().is_some_and(|e| e == "cl")
}

/// Compiles the OpenCL C source `src`, named `name`, for `launch`, to
/// SPIR-V assembly with `; @…` headers.
pub fn compile(src: &str, name: &Path, launch: &Launch) -> Result<String> {
    if launch.shared_bytes.is_some() {
        return Err(Error::new(
            ErrorKind::Usage,
            "--shared-bytes is for CUDA kernels (an OpenCL kernel declares its local memory, or takes a `local` pointer argument)",
        )
        .in_file(name));
    }
    let dir = Scratch::new("opencl")?;
    let copy = dir.copy_of(name, "kernel.cl");
    let header = dir.path().join("gpumc_opencl.h");
    let bc = dir.path().join("kernel.bc");
    let spv = dir.path().join("kernel.spv");
    for (path, text) in [(&copy, src), (&header, HEADER)] {
        std::fs::write(path, text).map_err(|e| Error::io(path, e))?;
    }
    let s = |p: &Path| p.display().to_string();
    let (copy_s, header_s, bc_s, spv_s) = (s(&copy), s(&header), s(&bc), s(&spv));
    let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
    args.extend(["-include".into(), header_s]);
    if let Some(parent) = name.parent().filter(|p| !p.as_os_str().is_empty()) {
        args.extend(["-I".into(), s(parent)]);
    }
    if let Ok(extra) = std::env::var("GPUMC_OPENCL_FLAGS") {
        args.extend(extra.split_whitespace().map(str::to_string));
    }
    args.extend([copy_s.clone(), "-o".into(), bc_s.clone()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let clang = Tool {
        env_var: "CLANG",
        default: "clang",
        package: "clang",
    };
    let out = run_tool("OpenCL C", &clang, &argv, name)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(crate::cuda::clang_error(
            &stderr,
            &copy,
            name,
            "the OpenCL C source",
        ));
    }
    let ssa = dir.path().join("kernel.ssa.bc");
    let ssa_s = s(&ssa);
    let opt = Tool {
        env_var: "LLVM_OPT",
        default: "opt-14",
        package: "llvm-14",
    };
    let args = ["-passes=mem2reg", &bc_s, "-o", &ssa_s];
    run_tool_ok("OpenCL C", &opt, &args, name, ErrorKind::Io, "opt failed")?;
    let translator = Tool {
        env_var: "LLVM_SPIRV",
        default: "llvm-spirv-14",
        package: "llvm-spirv-14",
    };
    run_tool_ok(
        "OpenCL C",
        &translator,
        &[&ssa_s, "-o", &spv_s],
        name,
        ErrorKind::Unsupported,
        "unsupported: llvm-spirv could not translate the kernel to SPIR-V",
    )?;
    let asm = disassemble("OpenCL C", &spv_s, name)?.replace(&copy_s, &name.display().to_string());
    let headers = launch_headers(&asm, launch).map_err(|e| e.in_file(name))?;
    Ok(headers + &asm)
}

/// The `; @Kernel`, `; @Config` and `; @Input` headers for `launch` of
/// the module `asm`.
fn launch_headers(asm: &str, launch: &Launch) -> Result<String> {
    let kernels = kernel_names(asm);
    let kernel = match (&launch.kernel, kernels.as_slice()) {
        (Some(k), _) => {
            if !kernels.contains(k) {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!(
                        "no kernel `{}` in the file (its kernels: {})",
                        crate::diag::excerpt(k),
                        listed(&kernels)
                    ),
                ));
            }
            k.clone()
        }
        (None, [only]) => only.clone(),
        (None, []) => {
            return Err(Error::new(
                ErrorKind::Semantic,
                "the file defines no kernel (`kernel void …`)",
            ))
        }
        (None, several) => {
            return Err(Error::new(
                ErrorKind::Usage,
                format!(
                    "the file defines several kernels ({}): choose one with --kernel NAME",
                    listed(several)
                ),
            ))
        }
    };
    let local = match launch.block {
        Some(b) => b,
        None => match required_size(asm, &kernel) {
            Some(b) => b,
            None => {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!("kernel `{kernel}` needs a work-group size: --block N (or GPUVerify's --local_size=N)"),
                ))
            }
        },
    };
    let groups = launch.grid.unwrap_or([1, 1, 1]);
    let mut h = format!(
        "; @Kernel: {kernel}\n{}",
        crate::spirv::launch_headers(local, groups)?
    );
    let args = kernel_args(asm, &kernel);
    for (given, v) in &launch.params {
        // By name, or by position (`0`, `1`, …).
        let arg = args
            .iter()
            .find(|a| a.name == *given)
            .or_else(|| given.parse::<usize>().ok().and_then(|k| args.get(k)))
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Usage,
                    format!(
                        "--param {}: kernel `{kernel}` has no such argument (its arguments: {})",
                        crate::diag::excerpt(given),
                        listed(&args.iter().map(|a| a.name.clone()).collect::<Vec<_>>())
                    ),
                )
            })?;
        let name = &arg.name;
        match (v, arg.pointee_bytes) {
            (ParamValue::Int(v), None) => h.push_str(&format!("; @Input: %{name} = {v}\n")),
            (ParamValue::Buffer { bytes, zero: true }, Some(e)) if bytes % e == 0 && bytes / e <= MAX_ZERO_ELEMENTS => {
                let zeros = vec!["0"; (bytes / e) as usize].join(", ");
                h.push_str(&format!("; @Input: %{name} = {{{zeros}}}\n"));
            }
            (ParamValue::Buffer { zero: true, .. }, Some(e)) => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("unsupported: --param {name}=zeros:BYTES must be a multiple of its {e}-byte elements, at most {MAX_ZERO_ELEMENTS} of them"),
                ))
            }
            (ParamValue::Buffer { zero: false, .. }, Some(_)) => {
                return Err(Error::new(
                    ErrorKind::Unsupported,
                    format!("unsupported: --param {name}=buf:BYTES for an OpenCL kernel (a pointer argument has arbitrary contents already; zeros:BYTES gives zero-filled ones of that size)"),
                ))
            }
            (ParamValue::Int(_), Some(_)) => {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!("--param {name}: a pointer argument takes zeros:BYTES, not an integer"),
                ))
            }
            (ParamValue::Buffer { .. }, None) => {
                return Err(Error::new(
                    ErrorKind::Usage,
                    format!("--param {name}: not a pointer argument of scalars (an integer value, or nothing)"),
                ))
            }
        }
    }
    Ok(h)
}

/// The most elements a `zeros:BYTES` argument is written out with.
const MAX_ZERO_ELEMENTS: u64 = 1 << 16;

/// A kernel argument: its name (`-cl-kernel-arg-info`) and, for a pointer
/// to integers or floats, their size in bytes.
struct KernelArg {
    name: String,
    pointee_bytes: Option<u64>,
}

/// The arguments of `kernel`, from its entry function's parameters.
fn kernel_args(asm: &str, kernel: &str) -> Vec<KernelArg> {
    let words: Vec<Vec<&str>> = asm
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let def = |id: &str| {
        words
            .iter()
            .find(|w| w.first() == Some(&id) && w.get(1) == Some(&"="))
    };
    let names: std::collections::HashMap<&str, String> = words
        .iter()
        .filter(|w| w.first() == Some(&"OpName") && w.len() >= 3)
        .map(|w| (w[1], w[2].trim_matches('"').to_string()))
        .collect();
    let Some(entry) = entry_id(asm, kernel) else {
        return Vec::new();
    };
    let Some(start) = words
        .iter()
        .position(|w| w.first() == Some(&entry) && w.get(2) == Some(&"OpFunction"))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, w) in words[start + 1..]
        .iter()
        .take_while(|w| w.get(2) == Some(&"OpFunctionParameter"))
        .enumerate()
    {
        let pointee_bytes = w.get(3).and_then(|ty| def(ty)).and_then(|t| {
            (t.get(2) == Some(&"OpTypePointer"))
                .then(|| t.get(4).copied())
                .flatten()
        });
        let pointee_bytes = pointee_bytes.and_then(&def).and_then(|t| match t.get(2) {
            Some(&"OpTypeInt") | Some(&"OpTypeFloat") => {
                t.get(3)?.parse::<u64>().ok().map(|b| b / 8)
            }
            _ => None,
        });
        out.push(KernelArg {
            name: names
                .get(w[0])
                .cloned()
                .unwrap_or_else(|| format!("arg{k}")),
            pointee_bytes,
        });
    }
    out
}

fn listed(names: &[String]) -> String {
    names.join(", ")
}

/// The module's `Kernel` entry points: (function id as written, name).
fn kernel_entries(asm: &str) -> impl Iterator<Item = (&str, &str)> {
    asm.lines().filter_map(|l| {
        let rest = l.trim_start().strip_prefix("OpEntryPoint Kernel ")?;
        let (id, rest) = rest.split_once(char::is_whitespace)?;
        let name = rest.trim_start().strip_prefix('"')?;
        Some((id, &name[..name.find('"')?]))
    })
}

/// The names of the module's `Kernel` entry points.
fn kernel_names(asm: &str) -> Vec<String> {
    kernel_entries(asm).map(|(_, n)| n.to_string()).collect()
}

/// The function id (`%20`) of the entry point named `kernel`.
fn entry_id<'a>(asm: &'a str, kernel: &str) -> Option<&'a str> {
    kernel_entries(asm)
        .find(|&(_, n)| n == kernel)
        .map(|(id, _)| id)
}

/// The `reqd_work_group_size` of `kernel` (`OpExecutionMode %f LocalSize
/// X Y Z` on its entry point).
fn required_size(asm: &str, kernel: &str) -> Option<[u32; 3]> {
    let entry = entry_id(asm, kernel)?;
    let line = asm.lines().find(|l| {
        let mut w = l.split_whitespace();
        w.next() == Some("OpExecutionMode")
            && w.next() == Some(entry)
            && w.next() == Some("LocalSize")
    })?;
    let mut n = line
        .split_whitespace()
        .skip(3)
        .map(|x| x.parse::<u32>().ok());
    Some([n.next()??, n.next()??, n.next()??])
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASM: &str = "OpEntryPoint Kernel %10 \"a\" %gid\nOpEntryPoint Kernel %20 \"b\"\nOpExecutionMode %20 LocalSize 64 1 1\n";

    #[test]
    fn kernels_are_found_and_one_must_be_chosen() {
        assert_eq!(kernel_names(ASM), ["a", "b"]);
        assert_eq!(required_size(ASM, "b"), Some([64, 1, 1]));
        assert_eq!(required_size(ASM, "a"), None);
        let mut l = Launch::empty();
        let e = launch_headers(ASM, &l).unwrap_err();
        assert!(e.to_string().contains("several kernels (a, b)"), "{e}");
        l.kernel = Some("b".into());
        l.grid = Some([4, 1, 1]);
        assert_eq!(
            launch_headers(ASM, &l).unwrap(),
            "; @Kernel: b\n; @Config: 64, 1, 4\n"
        );
        l.kernel = Some("a".into());
        let e = launch_headers(ASM, &l).unwrap_err();
        assert!(e.to_string().contains("needs a work-group size"), "{e}");
        // Several dimensions: the products, and the extents.
        l.block = Some([8, 8, 1]);
        l.grid = Some([2, 3, 1]);
        assert_eq!(
            launch_headers(ASM, &l).unwrap(),
            "; @Kernel: a\n; @Config: 64, 1, 6\n; @Dims: 8, 8, 1, 2, 3, 1\n"
        );
        l.grid = Some([u32::MAX, 2, 1]);
        let e = launch_headers(ASM, &l).unwrap_err();
        assert!(e.to_string().contains("is too large"), "{e}");
    }
}
