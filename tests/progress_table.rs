//! `gpumc progress table` on the 483 corpus tests reproduces Sorensen et al., OOPSLA'21
//! Table 4 exactly, with the per-configuration buckets of the artifact's
//! `mk_table_4.py` (our reading notes on Sorensen et al., OOPSLA'21, §7.3).

#[path = "progress_util.rs"]
mod util;

use gpumc::progress::cli::{decide_paths, run_captured, ProgressArgs, ProgressCmd};
use gpumc::progress::table::{classify, format_table, Classification};
use gpumc::progress::{Base, Model, Verdicts};

fn rows(c: &Classification) -> Vec<(&str, usize, usize, usize, usize)> {
    c.rows
        .iter()
        .map(|r| (r.model, r.weak_d, r.weak_c, r.strong_d, r.strong_c))
        .collect()
}

#[test]
fn table4_exact() {
    let Some(root) = util::progress_corpus("table4_exact") else {
        return;
    };
    let decided = decide_paths(&[root]).unwrap();
    let verdicts: Vec<Verdicts> = decided.iter().map(|(_, v)| *v).collect();
    let c = classify(&verdicts);
    assert_eq!(
        (c.total, c.weak_tests, c.strong_tests, c.neither),
        (483, 323, 160, 0)
    );
    assert_eq!(
        rows(&c),
        [
            ("HSA", 90, 90, 94, 94),
            ("OBE", 12, 12, 0, 0),
            ("LOBE", 20, 122, 16, 110),
            ("full", 201, 323, 50, 160),
        ]
    );
    assert!(c.hierarchy_violations.is_empty());
    // Literal pass counts beside the table.
    let lit: Vec<(usize, usize)> = c
        .rows
        .iter()
        .map(|r| (r.weak_pass, r.strong_pass))
        .collect();
    assert_eq!(lit, [(90, 184), (24, 113), (122, 232), (323, 483)]);
    assert_eq!(c.pass_count(Model::UNFAIR), 0);
    // Dat3M's HSA_OBE file: 111 of the 483 tests terminate under weak HSA+OBE.
    assert_eq!(c.pass_count(Model::weak(Base::HsaObe)), 111);

    // The printed table carries the same numbers, row by row.
    let text = format_table(&c);
    for (model, wd, wc, sd, sc) in rows(&c) {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(model))
            .unwrap_or_else(|| panic!("no {model} row in\n{text}"));
        let nums: Vec<String> = line
            .split_whitespace()
            .skip(1)
            .take(4)
            .map(str::to_string)
            .collect();
        assert_eq!(nums, [wd, wc, sd, sc].map(|n| n.to_string()), "{line}");
    }
}

/// (config, weak/strong split, weak D and strong D for HSA/OBE/LOBE/full).
type ConfigRow = (&'static str, (usize, usize), [usize; 4], [usize; 4]);

#[test]
fn table4_per_configuration() {
    let Some(root) = util::progress_corpus("table4_per_configuration") else {
        return;
    };
    let expected: [ConfigRow; 5] = [
        (
            "2_threads_2_instructions",
            (6, 2),
            [3, 0, 0, 3],
            [2, 0, 0, 0],
        ),
        (
            "2_threads_3_instructions",
            (84, 92),
            [40, 10, 0, 34],
            [86, 0, 0, 6],
        ),
        (
            "2_threads_4_instructions",
            (110, 63),
            [24, 2, 6, 78],
            [6, 0, 16, 41],
        ),
        (
            "3_threads_3_instructions",
            (21, 0),
            [5, 0, 2, 14],
            [0, 0, 0, 0],
        ),
        (
            "3_threads_4_instructions",
            (102, 3),
            [18, 0, 12, 72],
            [0, 0, 0, 3],
        ),
    ];
    for (cfg, split, weak, strong) in expected {
        let decided = decide_paths(&[root.join(cfg)]).unwrap();
        let verdicts: Vec<Verdicts> = decided.iter().map(|(_, v)| *v).collect();
        let c = classify(&verdicts);
        assert_eq!((c.weak_tests, c.strong_tests), split, "{cfg}");
        let wd: Vec<usize> = c.rows.iter().map(|r| r.weak_d).collect();
        let sd: Vec<usize> = c.rows.iter().map(|r| r.strong_d).collect();
        assert_eq!(
            (wd.as_slice(), sd.as_slice()),
            (&weak[..], &strong[..]),
            "{cfg}"
        );
    }
}

/// The `table` subcommand itself prints the table.
#[test]
fn table_subcommand_output() {
    let Some(root) = util::progress_corpus("table_subcommand_output") else {
        return;
    };
    let args = ProgressArgs {
        cmd: ProgressCmd::Table {
            json: false,
            per_config: false,
            paths: vec![root],
        },
    };
    let (status, text) = run_captured(&args);
    assert_eq!(status, 0);
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| {
            ["HSA ", "OBE ", "LOBE ", "full "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(|l| l.split_whitespace().filter(|w| *w != "|").collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["HSA", "90", "90", "94", "94", "90", "184"],
            ["OBE", "12", "12", "0", "0", "24", "113"],
            ["LOBE", "20", "122", "16", "110", "122", "232"],
            ["full", "201", "323", "50", "160", "323", "483"],
        ]
    );
}
