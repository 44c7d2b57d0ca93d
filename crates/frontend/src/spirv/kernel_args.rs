//! OpenCL kernel entry points: arguments become module variables.
//!
//! A `Kernel` entry point (what `llvm-spirv` makes of an OpenCL C
//! `kernel void k(global int *a, int n)`) is a function with parameters,
//! which the runtime binds at launch (`clSetKernelArg`). The rest of the
//! front-end translates an entry point without parameters over module
//! variables, so this pass rewrites the module's lines before anything
//! else reads them:
//!
//! * a pointer argument to `CrossWorkgroup` (`global`), `Workgroup`
//!   (`local`) or `UniformConstant` (`constant`) memory points to the
//!   first element of a variable of its own in that storage class, a
//!   runtime array of the pointee (`global`: one buffer; `local`: one per
//!   work-group; `constant`: read-only). Distinct arguments never alias,
//!   as GPUVerify (Betts et al., OOPSLA'12) assumes; their contents are
//!   arbitrary and their sizes unknown;
//! * any other argument (a scalar, a vector, a struct passed by value) is
//!   read from a `UniformConstant` variable of its type: one arbitrary
//!   value for the whole launch, a free input of the program named after
//!   the argument (`OpName`, which `clang -cl-kernel-arg-info` keeps); a
//!   struct passed by value is copied into a `Function` variable of the
//!   invocation, the pointer the kernel gets (it may write it);
//! * an image is a `CrossWorkgroup` buffer of its own, of 16-byte texels
//!   (`lower/image.rs` addresses them by coordinates), and a sampler the
//!   constant 0 (what it selects is not computed).
//!
//! The entry function is replaced by a wrapper without parameters that
//! computes each argument so and calls the original with them; the
//! wrapper's lines take the line number of the entry's `OpFunction`, so
//! an error in them points there. Only the chosen entry point stays (the
//! first, unless `kernel` names another); the lines of the others are
//! dropped.

use super::lex::{self, Kind, Line};
use crate::diag::{Error, Result};
use crate::ir::Pos;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Prefix of every id this pass makes (never one a tool prints: `%` ids
/// from `spirv-dis` are names or numbers).
const PREFIX: &str = "gpumc.arg";

/// Rewrites `lines` when the entry point (`kernel`, else the first) takes
/// parameters; otherwise returns them with only that entry point kept.
pub(super) fn adapt(mut lines: Vec<Line>, kernel: Option<&str>) -> Result<Vec<Line>> {
    let entries: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].opcode == "OpEntryPoint")
        .collect();
    let chosen = match kernel {
        None => entries.first().copied(),
        Some(name) => {
            let found = entries
                .iter()
                .copied()
                .find(|&i| entry_name(&lines[i]) == Some(name));
            if found.is_none() {
                let names: Vec<&str> = entries
                    .iter()
                    .filter_map(|&i| entry_name(&lines[i]))
                    .collect();
                return Err(Error::new(
                    crate::diag::ErrorKind::Usage,
                    format!(
                        "no kernel `{name}` in the module (its entry points: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                ));
            }
            found
        }
    };
    let Some(chosen) = chosen else {
        return Ok(lines);
    };
    if entries.len() > 1 {
        let keep = chosen;
        let mut k = 0;
        lines.retain(|l| {
            let i = k;
            k += 1;
            l.opcode != "OpEntryPoint" || i == keep
        });
    }
    let entry = lines
        .iter()
        .find(|l| l.opcode == "OpEntryPoint")
        .expect("kept above");
    let Some(Kind::Id(func)) = entry.args.get(1).map(|t| t.kind.clone()) else {
        return Ok(lines);
    };
    let Some(start) = lines
        .iter()
        .position(|l| l.opcode == "OpFunction" && l.result.as_ref().is_some_and(|r| r.0 == func))
    else {
        return Ok(lines);
    };
    let params: Vec<(String, String, Pos)> = lines[start + 1..]
        .iter()
        .take_while(|l| l.opcode == "OpFunctionParameter")
        .filter_map(|l| {
            let res = l.result.as_ref()?.0.clone();
            match l.args.first().map(|t| &t.kind) {
                Some(Kind::Id(ty)) => Some((res, ty.clone(), l.pos())),
                _ => None,
            }
        })
        .collect();
    if params.is_empty() {
        return Ok(lines);
    }
    // (a function without an end is the module scan's error to report)
    if !lines[start..].iter().any(|l| l.opcode == "OpFunctionEnd") {
        return Ok(lines);
    }
    let defs: HashMap<&str, &Line> = lines
        .iter()
        .filter_map(|l| Some((l.result.as_ref()?.0.as_str(), l)))
        .collect();
    let ret_ty = match lines[start].args.first().map(|t| &t.kind) {
        Some(Kind::Id(t)) => t.clone(),
        _ => {
            return Err(Error::syntax(
                lines[start].pos(),
                "expected the return type",
            ))
        }
    };
    let names: HashMap<String, String> = param_names(&lines)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut text = String::new();
    let mut call_args = Vec::new();
    let mut body = String::new();
    // (Function variables first in the entry block, as SPIR-V wants.)
    let mut vars = String::new();
    let _ = writeln!(text, "%{PREFIX}.fn = OpTypeFunction %{ret_ty}");
    let _ = writeln!(text, "%{PREFIX}.u32 = OpTypeInt 32 0");
    let _ = writeln!(text, "%{PREFIX}.zero = OpConstant %{PREFIX}.u32 0");
    for (k, (id, ty, pos)) in params.iter().enumerate() {
        let var = format!("{PREFIX}.{k}");
        let name = names.get(id).cloned().unwrap_or_else(|| format!("arg{k}"));
        let _ = writeln!(text, "OpName %{var} \"{}\"", name.replace('"', ""));
        let value = format!("{PREFIX}.{k}.value");
        match pointer_of(&defs, ty) {
            Some((class, pointee)) => {
                let class = match class.as_str() {
                    "CrossWorkgroup" | "Workgroup" | "UniformConstant" => class,
                    "Function" => {
                        // A struct passed by value (`ByVal`): contents of
                        // its own, like a scalar argument, copied into a
                        // variable of the invocation, which the kernel
                        // may write as C lets it write its parameters.
                        let _ = writeln!(
                            text,
                            "%{var}.ptr = OpTypePointer UniformConstant %{pointee}"
                        );
                        let _ = writeln!(text, "%{var} = OpVariable %{var}.ptr UniformConstant");
                        let _ = writeln!(vars, "%{value} = OpVariable %{ty} Function");
                        let _ = writeln!(body, "%{var}.contents = OpLoad %{pointee} %{var}");
                        let _ = writeln!(body, "OpStore %{value} %{var}.contents");
                        call_args.push(value);
                        continue;
                    }
                    other => {
                        return Err(Error::unsupported(
                            *pos,
                            format!("a kernel argument pointing to `{other}` memory"),
                        ))
                    }
                };
                let _ = writeln!(text, "%{var}.array = OpTypeRuntimeArray %{pointee}");
                let _ = writeln!(text, "%{var}.ptr = OpTypePointer {class} %{var}.array");
                let _ = writeln!(text, "%{var} = OpVariable %{var}.ptr {class}");
                let _ = writeln!(body, "%{value} = OpAccessChain %{ty} %{var} %{PREFIX}.zero");
            }
            None if opaque(&defs, ty) == Some("OpTypeImage") => {
                // An image: a buffer of its own of 16-byte texels (see
                // `lower/image.rs`), its contents arbitrary.
                let _ = writeln!(text, "%{var}.u32x4 = OpTypeVector %{PREFIX}.u32 4");
                let _ = writeln!(text, "%{var}.array = OpTypeRuntimeArray %{var}.u32x4");
                let _ = writeln!(
                    text,
                    "%{var}.ptr = OpTypePointer CrossWorkgroup %{var}.array"
                );
                let _ = writeln!(text, "%{var} = OpVariable %{var}.ptr CrossWorkgroup");
                call_args.push(var);
                continue;
            }
            None if opaque(&defs, ty) == Some("OpTypeSampler") => {
                // A sampler: how reads of a read-only image filter, which
                // gpumc does not compute (those reads are free values).
                call_args.push(format!("{PREFIX}.zero"));
                continue;
            }
            None => {
                if let Some(op) = opaque(&defs, ty) {
                    let what = op.trim_start_matches("OpType");
                    return Err(Error::unsupported(
                        *pos,
                        format!("a kernel argument of type `{what}`"),
                    ));
                }
                let _ = writeln!(text, "%{var}.ptr = OpTypePointer UniformConstant %{ty}");
                let _ = writeln!(text, "%{var} = OpVariable %{var}.ptr UniformConstant");
                let _ = writeln!(body, "%{value} = OpLoad %{ty} %{var}");
            }
        }
        call_args.push(value);
    }
    let inner = format!("{PREFIX}.kernel");
    let _ = writeln!(text, "%{func} = OpFunction %{ret_ty} None %{PREFIX}.fn");
    let _ = writeln!(text, "%{PREFIX}.entry = OpLabel");
    text.push_str(&vars);
    text.push_str(&body);
    let args: String = call_args.iter().map(|a| format!(" %{a}")).collect();
    let _ = writeln!(
        text,
        "%{PREFIX}.call = OpFunctionCall %{ret_ty} %{inner}{args}"
    );
    let _ = writeln!(text, "OpReturn");
    let _ = writeln!(text, "OpFunctionEnd");
    // The original entry function keeps its body under a new name.
    let line_no = lines[start].line;
    if let Some(r) = lines[start].result.as_mut() {
        r.0 = inner.clone();
    }
    // The parameters' ids (and their `OpName`s, decorations) move out of
    // the way: the argument's name is the variable's display name.
    let mut renamed: HashMap<String, String> = params
        .iter()
        .enumerate()
        .map(|(k, (id, _, _))| (id.clone(), format!("{PREFIX}.{k}.param")))
        .collect();
    // An id spelled as an argument's name (another kernel's parameter
    // `%n`) would keep that name from being the variable's display name.
    for n in params.iter().filter_map(|(id, _, _)| names.get(id)) {
        let defined = lines
            .iter()
            .any(|l| l.result.as_ref().is_some_and(|r| r.0 == *n));
        if defined && !renamed.contains_key(n) {
            renamed.insert(n.clone(), format!("{PREFIX}.other.{n}"));
        }
    }
    // Other kernels' parameters of the same names would make the names
    // ambiguous (debug names only: dropped).
    let arg_names: Vec<String> = params
        .iter()
        .filter_map(|(id, _, _)| names.get(id).cloned())
        .collect();
    lines.retain(|l| {
        let target_renamed = matches!(l.args.first().map(|t| &t.kind), Some(Kind::Id(id)) if renamed.contains_key(id));
        let same_name = matches!(l.args.get(1).map(|t| &t.kind), Some(Kind::Str(n)) if arg_names.contains(n));
        !(l.opcode == "OpName" && (target_renamed || same_name))
    });
    // (the dropped lines may lie anywhere: find the entry's end again)
    let Some(end) = lines
        .iter()
        .position(|l| l.opcode == "OpFunction" && l.result.as_ref().is_some_and(|r| r.0 == inner))
        .and_then(|f| {
            lines[f..]
                .iter()
                .position(|l| l.opcode == "OpFunctionEnd")
                .map(|k| f + k)
        })
    else {
        return Ok(lines);
    };
    for l in &mut lines {
        if let Some(r) = l.result.as_mut() {
            if let Some(n) = renamed.get(&r.0) {
                r.0 = n.clone();
            }
        }
        for t in &mut l.args {
            if let Kind::Id(id) = &mut t.kind {
                if let Some(n) = renamed.get(id.as_str()) {
                    *id = n.clone();
                }
            }
        }
    }
    let mut extra = lex::lex(&text)?;
    for l in &mut extra {
        l.line = line_no;
    }
    lines.splice(end + 1..end + 1, extra);
    Ok(lines)
}

/// The name an `OpEntryPoint` line gives its entry point.
fn entry_name(l: &Line) -> Option<&str> {
    match l.args.get(2).map(|t| &t.kind) {
        Some(Kind::Str(s)) => Some(s),
        _ => None,
    }
}

/// `OpName`s of ids (the arguments' source names).
fn param_names(lines: &[Line]) -> HashMap<&str, String> {
    lines
        .iter()
        .filter(|l| l.opcode == "OpName")
        .filter_map(|l| {
            match (
                l.args.first().map(|t| &t.kind),
                l.args.get(1).map(|t| &t.kind),
            ) {
                (Some(Kind::Id(id)), Some(Kind::Str(n))) => Some((id.as_str(), n.clone())),
                _ => None,
            }
        })
        .collect()
}

/// Storage class and pointee of pointer type `ty`.
fn pointer_of(defs: &HashMap<&str, &Line>, ty: &str) -> Option<(String, String)> {
    let l = defs.get(ty)?;
    if l.opcode != "OpTypePointer" {
        return None;
    }
    match (
        l.args.first().map(|t| &t.kind),
        l.args.get(1).map(|t| &t.kind),
    ) {
        (Some(Kind::Word(c)), Some(Kind::Id(p))) => Some((c.clone(), p.clone())),
        _ => None,
    }
}

/// The opcode of argument type `ty` where no free value can stand for it
/// (images, samplers, events, queues, pipes).
fn opaque<'a>(defs: &HashMap<&str, &'a Line>, ty: &str) -> Option<&'a str> {
    let l = defs.get(ty)?;
    match l.opcode.as_str() {
        op @ ("OpTypeImage" | "OpTypeSampler" | "OpTypeSampledImage" | "OpTypeEvent"
        | "OpTypeDeviceEvent" | "OpTypeQueue" | "OpTypePipe" | "OpTypeReserveId"
        | "OpTypeOpaque") => Some(op),
        _ => None,
    }
}
