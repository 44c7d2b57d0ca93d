//! SPIRV-VULKAN-expected.csv: every row with its own property
//! (`program_spec`, `cat_spec`, `termination`), bound, progress model and
//! options, the `--engine auto` choice, and the known-differences lists of
//! docs/KNOWN-DIFFERENCES.md. Skipped (with a message) without the corpus.

mod common;

use common::run_csv;
use gpumc_verify::driver::Config;

#[test]
fn spirv_vulkan_rows() {
    run_csv("SPIRV-VULKAN-expected.csv", &Config::default(), false);
}

/// The full CSV format carries each row's settings.
#[test]
fn full_format_rows_carry_their_settings() {
    use gpumc_verify::driver::{parse_expected_csv, Property};
    use gpumc_verify::engine::safety::Verdict;
    let src = "path,property,bound,progress,expected,model,options\n\
               a.spvasm,cat_spec,4,default=FAIR;QF=OBE,UNKNOWN,vulkan.cat,encoding.ignoreFilterSpecification=true\n\
               b.spvasm,termination,1,fair,PASS,vulkan.cat,\n";
    let rows = parse_expected_csv(src, std::path::Path::new("x.csv")).expect("parses");
    assert_eq!(rows.len(), 2);
    let c = rows[0].config(&Config::default());
    assert_eq!(rows[0].expected, Verdict::Unknown);
    assert_eq!(c.property, Property::Races);
    assert_eq!(c.bound, 4);
    assert!(c.ignore_filter);
    assert_eq!(c.model.as_deref(), Some("vulkan"));
    let c = rows[1].config(&Config::default());
    assert_eq!(c.property, Property::Liveness);
    assert!(!c.ignore_filter);
    let bad = "path,property,bound,progress,expected,model,options\nz.spvasm,bogus,1,fair,PASS,vulkan.cat,\n";
    assert!(parse_expected_csv(bad, std::path::Path::new("x.csv")).is_err());
}
