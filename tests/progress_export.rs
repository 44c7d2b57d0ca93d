//! The Vulkan and PTX exports of every corpus test against the corpus
//! translations `dat3m/litmus/{VULKAN,PTX}/CADP/<cfg>/<id>_simple.litmus`.
//! Every file is byte-identical except for three documented deviations of
//! the corpus (docs/PROGRESS.md, "Export"):
//! * column padding in some PTX files whose loops were rewritten with a
//!   trampoline block (cells are compared with their padding trimmed);
//! * Vulkan 2t_4i #134 and #135 (no exchanges, a loop entered in its
//!   middle) were left in the direct loop style;
//! * PTX 2t_4i #84 has one wrong jump (`goto LC11`, the fall-through, where
//!   the self-loop needs the trampoline `LC12`).

#[path = "progress_util.rs"]
mod util;

use gpumc::progress::corpus::load;
use gpumc::progress::export::Dialect;
use gpumc::progress::export::{artifact_origin, to_litmus, to_litmus_with, LoopStyle};

/// The file with each table cell trimmed.
fn trim_cells(text: &str) -> String {
    text.lines()
        .map(|l| {
            let body = l.strip_suffix(';').filter(|_| l.contains('|')).unwrap_or(l);
            body.split('|').map(str::trim).collect::<Vec<_>>().join("|")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lines that differ, as (line number, ours, theirs), after trimming cells.
fn line_diff(ours: &str, theirs: &str) -> Vec<(usize, String, String)> {
    let (a, b) = (trim_cells(ours), trim_cells(theirs));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    if a.len() != b.len() {
        return vec![(
            0,
            format!("{} lines", a.len()),
            format!("{} lines", b.len()),
        )];
    }
    (0..a.len())
        .filter(|&k| a[k] != b[k])
        .map(|k| (k + 1, a[k].to_string(), b[k].to_string()))
        .collect()
}

#[test]
fn export_matches_corpus_translations() {
    let Some(root) = util::progress_corpus("export_matches_corpus_translations") else {
        return;
    };
    let Some(dat3m) = util::dat3m_corpus("export_matches_corpus_translations") else {
        return;
    };
    let tests = load(&[root]).unwrap();
    assert_eq!(tests.len(), 483);
    let mut identical = 0;
    let mut padding_only = Vec::new();
    let mut direct_loops = Vec::new();
    let mut one_line = Vec::new();
    let mut unexplained = Vec::new();
    for tf in &tests {
        let (t, i) = tf
            .config
            .expect("corpus tests sit in configuration directories");
        let cfg = tf
            .path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        let name = format!("{}_simple", tf.id);
        let origin = artifact_origin(t, i, &tf.id);
        for (arch, dir) in [(Dialect::Vulkan, "VULKAN"), (Dialect::Ptx, "PTX")] {
            let path = dat3m.join(format!("litmus/{dir}/CADP/{cfg}/{name}.litmus"));
            let key = format!("{dir} {cfg}/{}", tf.id);
            let expected = std::fs::read_to_string(&path).unwrap();
            let got = to_litmus(&tf.test, arch, &name, &origin);
            let diff = line_diff(&got, &expected);
            if got == expected {
                identical += 1;
            } else if diff.is_empty() {
                let has_trampoline =
                    to_litmus_with(&tf.test, arch, &name, &origin, LoopStyle::Direct) != got;
                assert!(
                    arch == Dialect::Ptx && has_trampoline,
                    "{key}: padding differs in an untouched file"
                );
                padding_only.push(key);
            } else if to_litmus_with(&tf.test, arch, &name, &origin, LoopStyle::Direct) == expected
            {
                direct_loops.push(key);
            } else if diff.len() == 1 {
                one_line.push((key, diff[0].1.clone(), diff[0].2.clone()));
            } else {
                unexplained.push(format!("{key}:\n--- export\n{got}\n--- corpus\n{expected}"));
            }
        }
    }
    assert!(unexplained.is_empty(), "{}", unexplained.join("\n\n"));
    eprintln!("{identical} identical; padding only: {padding_only:?}");
    assert_eq!(
        direct_loops,
        [
            "VULKAN 2_threads_4_instructions/134",
            "VULKAN 2_threads_4_instructions/135"
        ]
    );
    assert_eq!(
        one_line,
        [(
            "PTX 2_threads_4_instructions/84".to_string(),
            "goto LC00|goto LC12".to_string(),
            "goto LC00|goto LC11".to_string()
        )]
    );
    assert_eq!(identical + padding_only.len() + 3, 2 * 483);
}
