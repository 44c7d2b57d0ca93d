//! CUDA parameter names for a compiled kernel's PTX parameters.
//!
//! clang names a kernel's PTX parameters `KERNEL_param_0`, `…_param_1`:
//! the source's names (`in`, `out`, `n`) are gone, yet they are what a
//! user writes in `--param in=buf:128` and wants to read in a witness. The
//! source's `__global__` signatures give them back: each parameter
//! `KERNEL_param_K` of a kernel whose CUDA name has one signature of that
//! many named parameters is renamed `KERNEL_NAME` in the PTX text, which
//! `--param NAME` (the PTX name without the `KERNEL_` prefix) and the
//! witnesses' buffer names then read. A kernel with overloads, unnamed
//! parameters or a signature this reading does not follow (templates)
//! keeps clang's names.

use std::collections::HashMap;

/// The PTX text with the kernels' parameters renamed after `cuda`'s
/// signatures.
pub fn rename(ptx: &str, cuda: &str) -> String {
    let sigs = signatures(&strip_comments(cuda));
    let mut renames: Vec<(String, String)> = Vec::new();
    for entry in entries(ptx) {
        let base = crate::ptx::cuda_name(&entry).unwrap_or_else(|| entry.clone());
        let Some(names) = sigs.get(&base).and_then(|v| match v.as_slice() {
            [one] => Some(one),
            _ => None,
        }) else {
            continue;
        };
        let count = (0..)
            .take_while(|k| contains_word(ptx, &format!("{entry}_param_{k}")))
            .count();
        if count != names.len() {
            continue;
        }
        for (k, name) in names.iter().enumerate() {
            if let Some(name) = name {
                let to = format!("{entry}_{name}");
                if !contains_word(ptx, &to) {
                    renames.push((format!("{entry}_param_{k}"), to));
                }
            }
        }
    }
    if renames.is_empty() {
        return ptx.to_string();
    }
    let map: HashMap<&str, &str> = renames
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    replace_words(ptx, &map)
}

/// The `.entry` names of a PTX module.
fn entries(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| {
            let rest = l
                .trim_start()
                .strip_prefix(".visible .entry ")
                .or_else(|| l.trim_start().strip_prefix(".entry "))?;
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Whether `word` occurs in `text` as a whole identifier.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// `text` with each whole identifier found in `map` replaced.
fn replace_words(text: &str, map: &HashMap<&str, &str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(map.get(word.as_str()).copied().unwrap_or(word));
        word.clear();
    };
    for c in text.chars() {
        if is_ident(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The source without its comments (string literals are left alone: a
/// kernel signature holds none).
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i = (i + 2).min(b.len());
            out.push(' ');
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Per kernel name, the parameter names of each `__global__` signature
/// (`None` for an unnamed parameter).
fn signatures(src: &str) -> HashMap<String, Vec<Vec<Option<String>>>> {
    let mut out: HashMap<String, Vec<Vec<Option<String>>>> = HashMap::new();
    for (at, _) in src.match_indices("__global__") {
        let rest = &src[at..];
        let Some(open) = rest.find('(') else { continue };
        let head = &rest[..open];
        if head.contains(';') || head.contains('{') {
            continue;
        }
        let Some(name) = declared_name(head) else {
            continue;
        };
        // The parameter list, to its matching parenthesis.
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let list = &rest[open + 1..end];
        out.entry(name).or_default().push(params(list));
    }
    out
}

/// The function a declaration's text up to its `(` declares: its last
/// identifier (`extern "C" __global__ void k` → `k`).
pub(crate) fn declared_name(head: &str) -> Option<String> {
    let head = head.trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_ident(c))
        .last()
        .map(|(i, _)| i)?;
    Some(head[start..].to_string())
}

/// The names of the parameters in a parameter list (`void` or empty: none).
fn params(list: &str) -> Vec<Option<String>> {
    if list.trim().is_empty() || list.trim() == "void" {
        return Vec::new();
    }
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
        .into_iter()
        .map(|p| {
            // `const int *__restrict__ in = 0`, `int a[4]`: the last
            // identifier before a default value or an array bound.
            let p = p.split('=').next().unwrap_or("");
            let p = p.split('[').next().unwrap_or("");
            let words: Vec<&str> = p
                .split(|c: char| !is_ident(c))
                .filter(|w| !w.is_empty())
                .collect();
            let last = *words.last()?;
            let keyword = matches!(
                last,
                "int"
                    | "unsigned"
                    | "signed"
                    | "char"
                    | "short"
                    | "long"
                    | "float"
                    | "double"
                    | "bool"
                    | "const"
                    | "volatile"
                    | "__restrict__"
                    | "size_t"
            );
            (words.len() >= 2 && !keyword && !last.starts_with(|c: char| c.is_ascii_digit()))
                .then(|| last.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_give_the_parameter_names() {
        let src = "// __global__ void commented(int *x)\n\
                   extern \"C\" __global__ void k(const int *__restrict__ in, int* out,\n unsigned n) {}\n\
                   __global__ void anon(int *, float a[4]) {}\n\
                   template <int N> __global__ void t(int *p) {}\n\
                   __global__ void none(void) {}\n";
        let s = signatures(&strip_comments(src));
        assert_eq!(
            s["k"],
            [vec![
                Some("in".into()),
                Some("out".into()),
                Some("n".into())
            ]]
        );
        assert_eq!(s["anon"], [vec![None, Some("a".into())]]);
        assert_eq!(s["none"], [Vec::<Option<String>>::new()]);
        assert!(!s.contains_key("commented"));
    }

    #[test]
    fn ptx_parameters_are_renamed_as_whole_words() {
        let ptx = ".visible .entry _Z1kPiS_(\n\t.param .u64 _Z1kPiS__param_0,\n\t.param .u64 _Z1kPiS__param_1\n)\n{\n\tld.param.u64 %rd1, [_Z1kPiS__param_1];\n\tld.param.u64 %rd2, [_Z1kPiS__param_0];\n}\n";
        let src = "__global__ void k(int *in, int *out) {}";
        let out = rename(ptx, src);
        assert!(
            out.contains("[_Z1kPiS__out]") && out.contains("[_Z1kPiS__in]"),
            "{out}"
        );
        assert!(!out.contains("_param_"), "{out}");
        // Overloads keep clang's names.
        let two =
            "__global__ void k(int *in, int *out) {}\n__global__ void k(float *a, float *b) {}";
        assert_eq!(rename(ptx, two), ptx);
    }
}
