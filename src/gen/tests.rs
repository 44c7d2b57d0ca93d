use super::*;
use std::path::Path;

fn parses(src: &str) -> crate::ir::Program {
    crate::frontend::litmus::parse(src, Path::new("gen.litmus"))
        .unwrap_or_else(|e| panic!("generated test does not parse: {e}\n{src}"))
}

#[test]
fn families_parse_with_expected_shape() {
    for arch in [GenArch::Ptx, GenArch::Vulkan] {
        for f in [Family::Mp, Family::Sb, Family::Lb, Family::Iriw] {
            for n in [4, 8] {
                let p = parses(&family(f, n, arch).unwrap());
                assert_eq!(p.threads.len(), n, "{f:?}-{n}");
                // Every thread in its own CTA / workgroup.
                let mut blocks: Vec<_> =
                    p.threads.iter().map(|t| t.placement.ids.clone()).collect();
                blocks.dedup();
                assert_eq!(blocks.len(), n);
            }
        }
    }
    assert!(family(Family::Iriw, 3, GenArch::Ptx).is_err());
    assert!(family(Family::Mp, 1, GenArch::Ptx).is_err());
}

#[test]
fn random_tests_parse_and_are_deterministic() {
    for seed in 0..300 {
        for arch in [GenArch::Ptx, GenArch::Vulkan] {
            let a = random_test(seed, arch);
            assert_eq!(a, random_test(seed, arch));
            parses(&a);
        }
    }
    assert_ne!(random_test(1, GenArch::Ptx), random_test(2, GenArch::Ptx));
}
