//! The source position of each instruction, from the module's `OpLine`
//! debug instructions (glslang `-g`, clspv and the LLVM translator write
//! them): `%f = OpString "file"` names a file, `OpLine %f LINE COL` gives
//! the position of the instructions after it, until `OpNoLine`, the next
//! `OpLine`, or the end of the block (SPIR-V spec, 2.15 "Debug
//! Instructions": an `OpLine` does not outlive its block). The result is
//! keyed by the assembly line, as [`crate::ir::Program::source_map`] is.

use crate::ir::SourceLoc;
use std::collections::{BTreeMap, HashMap};

/// Every instruction line under an `OpLine`, with that position.
pub fn source_lines(src: &str) -> BTreeMap<u32, SourceLoc> {
    let mut strings: HashMap<&str, String> = HashMap::new();
    let mut current: Option<SourceLoc> = None;
    let mut out = BTreeMap::new();
    for (k, raw) in src.lines().enumerate() {
        let line = code_part(raw).trim();
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        // `%id = OpX …` or `OpX …`.
        let (result, op, args) = match words.as_slice() {
            [id, "=", op, args @ ..] => (Some(*id), *op, args),
            [op, args @ ..] => (None, *op, args),
            [] => continue,
        };
        match op {
            "OpString" => {
                if let (Some(id), Some(start)) = (result, line.find('"')) {
                    let text = line[start + 1..].trim_end_matches('"');
                    strings.insert(id, text.to_string());
                }
            }
            "OpLine" => {
                let file = args.first().and_then(|f| strings.get(f)).cloned();
                let num = |i: usize| args.get(i).and_then(|v| v.parse::<u32>().ok());
                current = match (file, num(1)) {
                    (Some(file), Some(l)) if l > 0 => Some(SourceLoc {
                        file,
                        line: l,
                        col: num(2).unwrap_or(0),
                    }),
                    _ => None,
                };
            }
            "OpNoLine" | "OpLabel" | "OpFunction" | "OpFunctionEnd" => current = None,
            _ => {
                if let Some(loc) = &current {
                    out.insert(u32::try_from(k + 1).unwrap_or(u32::MAX), loc.clone());
                }
                // A block's terminator ends it, and the position with it.
                if matches!(
                    op,
                    "OpReturn"
                        | "OpReturnValue"
                        | "OpBranch"
                        | "OpBranchConditional"
                        | "OpSwitch"
                        | "OpKill"
                        | "OpUnreachable"
                        | "OpTerminateInvocation"
                ) {
                    current = None;
                }
            }
        }
    }
    out
}

/// The line before its `;` comment, a `;` inside a string literal (an
/// `OpString` file name) being no comment.
fn code_part(line: &str) -> &str {
    let (mut quoted, mut escaped) = (false, false);
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opline_positions_last_to_the_end_of_their_block() {
        let src = "%1 = OpString \"k.comp\"\n\
                   %2 = OpString \"dir;x/b.comp\" ; a comment\n\
                   %main = OpFunction %void None %fn\n\
                   %entry = OpLabel\n\
                   OpLine %1 7 3\n\
                   %v = OpLoad %uint %x\n\
                   OpStore %y %v ; comment\n\
                   OpNoLine\n\
                   OpStore %y %c0\n\
                   OpLine %1 9 0\n\
                   OpBranch %next\n\
                   %next = OpLabel\n\
                   OpReturn\n\
                   OpLine %2 4 4\n\
                   OpReturn\n\
                   %f2 = OpFunction %void None %fn\n\
                   %e2 = OpLabel\n\
                   OpLine %2 5 1\n\
                   OpReturn\n";
        let m = source_lines(src);
        let shown: Vec<(u32, String)> = m.iter().map(|(l, s)| (*l, s.to_string())).collect();
        assert_eq!(
            shown,
            [
                (6, "k.comp:7:3".to_string()),
                (7, "k.comp:7:3".to_string()),
                (11, "k.comp:9".to_string()),
                (15, "dir;x/b.comp:4:4".to_string()),
                (19, "dir;x/b.comp:5:1".to_string())
            ]
        );
    }
}
