//! The SVG graphs of `gpumc check --graph svg` in a real browser
//! (headless Chromium): they parse, the browser's DOM has the thread
//! labels, the po/rf/co/fr edges and the violated axiom's cycle, every
//! edge has a length, every event's text fits its box (our layout
//! estimates text widths), and a screenshot is not blank.
//!
//! Skipped with a message when no Chromium is installed, unless
//! `GPUMC_REQUIRE_CHROMIUM=1` (CI sets it), which makes its absence a
//! failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BROWSERS: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The Chromium executable, or `None` (the test then skips, or fails
/// under `GPUMC_REQUIRE_CHROMIUM=1`).
fn chromium() -> Option<&'static str> {
    let found = BROWSERS.into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    });
    if found.is_none() {
        if std::env::var("GPUMC_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1") {
            panic!("GPUMC_REQUIRE_CHROMIUM=1 but none of {BROWSERS:?} runs");
        }
        eprintln!(
            "skipped: no headless Chromium ({BROWSERS:?}); install chromium to run this test"
        );
    }
    found
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-chromium-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the browser headless on `url` with `args`; its stdout. Killed
/// after a minute.
fn browse(exe: &str, profile: &Path, args: &[&str], url: &str) -> String {
    let mut child = Command::new(exe)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.display()),
        ])
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 60 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

fn url(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// Writes the graphs of `tests` into a fresh directory.
fn graphs(name: &str, tests: &[&str]) -> PathBuf {
    let dir = scratch(name);
    let mut args = vec!["check"];
    args.extend(tests);
    args.extend(["--graph", "svg", "--graph-out", dir.to_str().unwrap()]);
    let out = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    dir
}

/// PNG width and height from its IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn browser_dom_has_threads_edges_and_the_cycle() {
    let Some(exe) = chromium() else { return };
    let dir = graphs(
        "dom",
        &["examples/MP-weak.litmus", "examples/MP-relacq.litmus"],
    );
    let profile = dir.join("profile");
    for (file, cycle) in [("MP-weak.svg", false), ("MP-relacq.svg", true)] {
        let dom = browse(exe, &profile, &["--dump-dom"], &url(&dir.join(file)));
        assert!(
            !dom.contains("parsererror"),
            "{file}: the browser could not parse it"
        );
        assert!(
            dom.contains("<svg"),
            "{file}: no SVG in the DOM: {dom:.300}"
        );
        for needle in [
            "class=\"thread-label\"",
            ">P0</text>",
            ">P1</text>",
            "class=\"edge rel-po",
            "class=\"edge rel-rf",
            "class=\"edge rel-co",
            "class=\"edge rel-fr",
            "class=\"legend\"",
        ] {
            assert!(dom.contains(needle), "{file}: no `{needle}` in the DOM");
        }
        assert_eq!(dom.contains(" cycle\""), cycle, "{file}: cycle class");
    }
}

#[test]
fn rendered_geometry_edges_have_length_and_text_fits() {
    let Some(exe) = chromium() else { return };
    let dir = graphs(
        "geometry",
        &[
            "examples/MP-weak.litmus",
            "examples/MP-relacq.litmus",
            "examples/mp-vulkan.litmus",
        ],
    );
    let profile = dir.join("profile");
    for file in ["MP-weak.svg", "MP-relacq.svg", "mp-vulkan.svg"] {
        let svg = std::fs::read_to_string(dir.join(file)).unwrap();
        // The SVG inline in a page whose script measures it as rendered.
        let page = format!(
            "<!DOCTYPE html><html><body>{svg}<pre id=\"result\"></pre><script>
const r = [];
const edges = document.querySelectorAll('.edge path');
let short = 0; edges.forEach(p => {{ if (!(p.getTotalLength() > 1)) short++; }});
r.push('edges=' + edges.length, 'short=' + short);
let over = 0;
document.querySelectorAll('.event').forEach(g => {{
  const box = g.querySelector('rect').getBBox();
  g.querySelectorAll('text').forEach(t => {{
    const b = t.getBBox();
    if (b.width < 1 || b.x + b.width > box.x + box.width + 4) over++;
  }});
}});
r.push('overflow=' + over);
document.getElementById('result').textContent = r.join(' ');
</script></body></html>"
        );
        let html = dir.join(format!("{file}.html"));
        std::fs::write(&html, page).unwrap();
        let dom = browse(exe, &profile, &["--dump-dom"], &url(&html));
        let result = dom
            .split("<pre id=\"result\">")
            .nth(1)
            .and_then(|s| s.split('<').next())
            .unwrap_or_else(|| panic!("{file}: the page script did not run: {dom:.400}"));
        let field = |k: &str| -> usize {
            result
                .split_whitespace()
                .find_map(|f| f.strip_prefix(&format!("{k}=")))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{file}: no {k} in `{result}`"))
        };
        assert!(field("edges") >= 6, "{file}: {result}");
        assert_eq!(field("short"), 0, "{file}: edges without length: {result}");
        assert_eq!(
            field("overflow"),
            0,
            "{file}: text outside its box: {result}"
        );
    }
}

#[test]
fn screenshot_is_not_blank() {
    let Some(exe) = chromium() else { return };
    let dir = graphs("shot", &["examples/MP-relacq.litmus"]);
    let profile = dir.join("profile");
    // A blank page of the same size, for comparison.
    let blank = dir.join("blank.svg");
    std::fs::write(
        &blank,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\"></svg>",
    )
    .unwrap();
    let shot = |src: &Path, png: &Path| {
        browse(
            exe,
            &profile,
            &[
                &format!("--screenshot={}", png.display()),
                "--window-size=1200,900",
            ],
            &url(src),
        );
        std::fs::read(png).unwrap_or_else(|e| panic!("{}: {e}", png.display()))
    };
    let empty = shot(&blank, &dir.join("blank.png"));
    let graph = shot(&dir.join("MP-relacq.svg"), &dir.join("MP-relacq.png"));
    assert_eq!(png_size(&graph), (1200, 900));
    // Boxes, text and curves compress far worse than a white page.
    assert!(
        graph.len() > 4 * empty.len() && graph.len() > 20_000,
        "screenshot of {} bytes (blank page: {} bytes)",
        graph.len(),
        empty.len()
    );
}
