//! A campaign over a generated set: `gpumc diy` writes Vulkan tests,
//! `gpumc run --db` runs them on two devices (Mesa's lavapipe and the
//! `interp` reference interpreter) into one results database, and
//! `gpumc results` sums it per device, family and test, imports earlier
//! JSON results, and draws the cross-device page (its browser check is
//! in `html_chromium.rs`). Without a Vulkan device the lavapipe half is
//! skipped with a message (CI sets GPUMC_REQUIRE_VULKAN).

use std::path::PathBuf;

fn gpumc(args: &[&str]) -> (i32, String, String) {
    gpumc_testutil::run(env!("CARGO_BIN_EXE_gpumc"), args, None)
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-results-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn have_vulkan() -> bool {
    let (code, out, _) = gpumc(&["devices", "--backend", "vulkan", "--json"]);
    if code != 0 || out.trim().is_empty() {
        assert!(
            std::env::var_os("GPUMC_REQUIRE_VULKAN").is_none(),
            "GPUMC_REQUIRE_VULKAN is set but no Vulkan device"
        );
        eprintln!("SKIP: no Vulkan device (install mesa-vulkan-drivers for lavapipe)");
        return false;
    }
    true
}

fn rows(db: &str, by: &str) -> Vec<serde_json::Value> {
    let (code, out, err) = gpumc(&["results", "--db", db, "--by", by, "--json"]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Writes the generated set: SB, MP and LB between two workgroups and
/// within one, with and without fences.
fn generated_set(dir: &std::path::Path) -> usize {
    let (code, out, err) = gpumc(&[
        "diy",
        "--arch",
        "vulkan",
        "--enumerate",
        "--max-edges",
        "4",
        "--basic-placements",
        "--global-only",
        "--orderings",
        "po,membar.gl",
        "--out",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    v["tests"].as_u64().unwrap() as usize
}

#[test]
fn a_generated_campaign_fills_the_database_for_two_devices() {
    let dir = tmp("campaign");
    let tests = dir.join("tests");
    let n = generated_set(&tests);
    assert!(n >= 30, "{n} tests");
    let db = dir.join("r.db");
    let d = db.to_str().unwrap();
    let t = tests.to_str().unwrap();
    let mut devices = vec!["interp"];
    if have_vulkan() {
        devices.push("vulkan");
    }
    // One campaign over the devices, resumable per device.
    let journal = dir.join("journal");
    let list = devices.join(",");
    let run = || {
        gpumc(&[
            "run",
            "--backends",
            &list,
            "--iterations",
            "3",
            "--seed",
            "7",
            "--db",
            d,
            "--out",
            journal.to_str().unwrap(),
            t,
        ])
    };
    let (code, out, err) = run();
    assert_eq!(code, 0, "{out}{err}");
    for b in &devices {
        let lines = std::fs::read_to_string(journal.join(b).join("results.jsonl")).unwrap();
        assert!(lines.lines().count() >= n, "{b}");
    }
    // Per device: every test once, every instance counted.
    let by_device = rows(d, "device");
    assert_eq!(by_device.len(), devices.len());
    for r in &by_device {
        assert_eq!(r["runs"].as_u64(), Some(n as u64), "{r}");
        assert!(r["instances"].as_u64().unwrap() > 0);
        // The generated tests are judged by the model: no device breaks it.
        assert_eq!(r["violations"].as_u64(), Some(0), "{r}");
    }
    // The interpreter is sequentially consistent: no weak outcome of a
    // cycle test can show there.
    let interp = by_device
        .iter()
        .find(|r| r["device"].as_str().unwrap().starts_with("interp"))
        .unwrap();
    assert_eq!(interp["weak"].as_u64(), Some(0));
    // Running the campaign again resumes from the journals: nothing is
    // run twice, so nothing is added to the database.
    let (code, _, err) = run();
    assert_eq!(code, 0, "{err}");
    assert_eq!(rows(d, "device"), by_device);
    // Per family and device; one test across devices.
    let fam = rows(d, "family");
    for f in ["MP", "SB", "LB", "S", "R", "2+2W"] {
        assert_eq!(
            fam.iter().filter(|r| r["group"] == f).count(),
            devices.len(),
            "{f}"
        );
    }
    // One test (a cycle in one configuration) on each device.
    let (code, out, _) = gpumc(&[
        "results",
        "--db",
        d,
        "--by",
        "test",
        "--only",
        "SB@cta-01_reg-gg",
        "--json",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), devices.len(), "{out}");
    assert!(out.lines().all(|l| l.contains("\"runs\":1")), "{out}");
    // Importing earlier JSON results adds them as runs of their device.
    let (code, json, _) = gpumc(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--json",
        t,
    ]);
    assert_eq!(code, 0);
    let earlier = dir.join("earlier.jsonl");
    std::fs::write(&earlier, json).unwrap();
    let (code, out, err) = gpumc(&[
        "results",
        "--db",
        d,
        "--import",
        earlier.to_str().unwrap(),
        "--driver",
        "imported",
        "--date",
        "2026-01-01 00:00 UTC",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("{n} runs imported")), "{out}");
    assert_eq!(rows(d, "device").len(), devices.len() + 1);
    // A line that is not a report is an error naming it.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"file\": 1}\n").unwrap();
    let (code, _, err) = gpumc(&["results", "--db", d, "--import", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.jsonl:1:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
