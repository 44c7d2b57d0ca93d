//! Classification of tests into distinguishing and conformance tests
//! (Sorensen et al., OOPSLA'21 §5.6, Table 4).
//!
//! A test is *weak* if it passes weak fair, *strong* if it fails weak fair
//! but passes strong fair (and *neither* otherwise; the paper's constraints
//! exclude such tests). Table 4 partitions the tests: a weak test goes to the
//! first of HSA, OBE, LOBE, full (= fair) whose weak variant passes it, a
//! strong test to the first whose strong variant passes it. `D(m)` is the
//! size of `m`'s bucket; `C(HSA) = D(HSA)`, `C(OBE) = D(OBE)`,
//! `C(LOBE) = D(HSA) + D(OBE) + D(LOBE)` and `C(full)` is the sum of all
//! four. Because HSA comes first, `D(OBE)` is not the literal number of
//! tests passing OBE; the literal pass counts of all 11 models are reported
//! beside the table.

use super::models::{Base, Fairness, Model};
use super::oracle::Verdicts;
use serde::Serialize;
use std::fmt::Write;

/// Table 4's rows, in priority order.
pub const TABLE_BASES: [Base; 4] = [Base::Hsa, Base::Obe, Base::Lobe, Base::Fair];

/// The row label used by the paper.
pub fn row_label(base: Base) -> &'static str {
    match base {
        Base::Hsa => "HSA",
        Base::Obe => "OBE",
        Base::Lobe => "LOBE",
        Base::Fair => "full",
        Base::HsaObe => "HSA+OBE",
        Base::Unfair => "unfair",
    }
}

/// Which bucket a test falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bucket {
    pub fairness: Fairness,
    pub base: Base,
}

/// One row of Table 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub model: &'static str,
    pub weak_d: usize,
    pub weak_c: usize,
    pub strong_d: usize,
    pub strong_c: usize,
    /// Literal number of tests passing the weak / strong variant.
    pub weak_pass: usize,
    pub strong_pass: usize,
}

/// The classification of a set of tests.
#[derive(Clone, Debug, Serialize)]
pub struct Classification {
    pub total: usize,
    pub weak_tests: usize,
    pub strong_tests: usize,
    /// Tests that fail even strong fair (excluded from the table).
    pub neither: usize,
    pub rows: Vec<Row>,
    /// Literal pass count of each of the 11 models, in [`Model::ALL`] order.
    pub literal: Vec<(String, usize)>,
    /// The bucket of each input test.
    #[serde(skip)]
    pub buckets: Vec<Option<Bucket>>,
    /// Indices of tests that pass HSA and OBE (weak or strong) but fail the
    /// same variant of LOBE (the paper's script asserts there are none).
    pub hierarchy_violations: Vec<usize>,
}

impl Classification {
    /// The row of a base model.
    pub fn row(&self, base: Base) -> Option<&Row> {
        self.rows.iter().find(|r| r.model == row_label(base))
    }

    /// The literal pass count of a model.
    pub fn pass_count(&self, m: Model) -> usize {
        self.literal[m.index()].1
    }
}

fn variant(f: Fairness, base: Base) -> Model {
    match f {
        Fairness::Weak => Model::weak(base),
        Fairness::Strong => Model::strong(base),
    }
}

/// Classifies tests from their verdicts.
pub fn classify(verdicts: &[Verdicts]) -> Classification {
    let mut buckets = Vec::with_capacity(verdicts.len());
    let mut d = [[0usize; 4]; 2];
    let (mut weak_tests, mut strong_tests, mut neither) = (0, 0, 0);
    let mut hierarchy_violations = Vec::new();
    for (i, v) in verdicts.iter().enumerate() {
        for f in [Fairness::Weak, Fairness::Strong] {
            if v.pass(variant(f, Base::Hsa))
                && v.pass(variant(f, Base::Obe))
                && !v.pass(variant(f, Base::Lobe))
            {
                hierarchy_violations.push(i);
            }
        }
        let fairness = if v.pass(Model::weak(Base::Fair)) {
            weak_tests += 1;
            Fairness::Weak
        } else if v.pass(Model::strong(Base::Fair)) {
            strong_tests += 1;
            Fairness::Strong
        } else {
            neither += 1;
            buckets.push(None);
            continue;
        };
        let k = TABLE_BASES
            .iter()
            .position(|&b| v.pass(variant(fairness, b)))
            .unwrap_or(3);
        d[(fairness == Fairness::Strong) as usize][k] += 1;
        buckets.push(Some(Bucket {
            fairness,
            base: TABLE_BASES[k],
        }));
    }
    hierarchy_violations.dedup();
    let conformance = |d: &[usize; 4], k: usize| match k {
        0 | 1 => d[k],
        2 => d[0] + d[1] + d[2],
        _ => d.iter().sum(),
    };
    let count = |m: Model| verdicts.iter().filter(|v| v.pass(m)).count();
    let rows = TABLE_BASES
        .iter()
        .enumerate()
        .map(|(k, &b)| Row {
            model: row_label(b),
            weak_d: d[0][k],
            weak_c: conformance(&d[0], k),
            strong_d: d[1][k],
            strong_c: conformance(&d[1], k),
            weak_pass: count(Model::weak(b)),
            strong_pass: count(Model::strong(b)),
        })
        .collect();
    Classification {
        total: verdicts.len(),
        weak_tests,
        strong_tests,
        neither,
        rows,
        literal: Model::ALL.iter().map(|&m| (m.name(), count(m))).collect(),
        buckets,
        hierarchy_violations,
    }
}

/// Table 4 as text, with the literal pass counts beside it.
pub fn format_table(c: &Classification) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Table 4: distinguishing (D) and conformance (C) tests; {} tests: {} weak, {} strong{}",
        c.total,
        c.weak_tests,
        c.strong_tests,
        if c.neither > 0 {
            format!(", {} failing strong fair (not tabulated)", c.neither)
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        out,
        "{:<6} {:>7} {:>7} {:>9} {:>9}   | literal pass: {:>5} {:>7}",
        "model", "weak D", "weak C", "strong D", "strong C", "weak", "strong"
    );
    for r in &c.rows {
        let _ = writeln!(
            out,
            "{:<6} {:>7} {:>7} {:>9} {:>9}   |               {:>5} {:>7}",
            r.model, r.weak_d, r.weak_c, r.strong_d, r.strong_c, r.weak_pass, r.strong_pass
        );
    }
    let lit: Vec<String> = c.literal.iter().map(|(m, n)| format!("{m} {n}")).collect();
    let _ = writeln!(out, "literal pass counts: {}", lit.join(", "));
    if !c.hierarchy_violations.is_empty() {
        let _ = writeln!(
            out,
            "warning: {} test(s) pass HSA and OBE but fail LOBE",
            c.hierarchy_violations.len()
        );
    }
    out
}
