//! The HTML reports (`--html`) of `gpumc suite`, `check` and `run`, loaded
//! in a real browser: headless Chromium's `--dump-dom` gives the document
//! after the page's script ran, `--screenshot` a picture of it. Checked:
//! one row per test, the header's totals against what the command printed,
//! sorting and filtering from the URL (`#sort=-time`, `#v=verdict:FAIL`),
//! the outcome bars of a hardware run coloured by the model's judgement,
//! and that test names and file names cannot inject markup.
//!
//! Skipped with a message without Chromium, unless GPUMC_REQUIRE_CHROMIUM=1
//! (CI), where that fails. The suite part runs a fast subset of the corpus
//! CSVs; GPUMC_HTML_ALL_CSVS=1 runs every CSV of `../shared/corpus`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn gpumc(args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gpumc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("gpumc runs");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpumc-html-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The browser, or `None` (with a message) where there is none.
fn chromium() -> Option<PathBuf> {
    let candidates = ["chromium", "chromium-browser", "google-chrome"];
    let found = std::env::var_os("GPUMC_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .flat_map(|d| candidates.iter().map(move |c| d.join(c)))
                .find(|p| p.is_file())
        });
    if found.is_none() {
        if std::env::var("GPUMC_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
            panic!("GPUMC_REQUIRE_CHROMIUM=1 but no chromium on PATH");
        }
        eprintln!(
            "skipping the browser checks of the HTML reports: no chromium on PATH (set GPUMC_REQUIRE_CHROMIUM=1 to make this an error)"
        );
    }
    found
}

/// Runs headless Chromium on `file#hash` with `args` and returns its
/// stdout; a fresh profile each time, killed after two minutes.
fn browse(exe: &Path, file: &Path, hash: &str, args: &[&str]) -> String {
    static PROFILES: AtomicUsize = AtomicUsize::new(0);
    let profile = tmp(&format!(
        "profile-{}",
        PROFILES.fetch_add(1, Ordering::Relaxed)
    ));
    let url = format!(
        "file://{}{}",
        std::fs::canonicalize(file).unwrap().display(),
        hash
    );
    let mut child = Command::new(exe)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).ok();
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish with {url} in 120 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = reader.join().unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    out
}

/// The document after the page's script ran.
fn dom(exe: &Path, file: &Path, hash: &str) -> Dom {
    let text = browse(exe, file, hash, &["--dump-dom"]);
    assert!(
        text.contains("data-ready=\"1\""),
        "the page's script did not run on {}{hash}:\n{}",
        file.display(),
        &text[..text.len().min(2000)]
    );
    Dom(text)
}

/// A screenshot of the page at 1400x1000: a PNG of that size with more
/// than a blank page in it.
fn assert_screenshot(exe: &Path, file: &Path, dir: &Path) {
    let png = dir.join("shot.png");
    let _ = std::fs::remove_file(&png);
    browse(
        exe,
        file,
        "",
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1400,1000",
            "--hide-scrollbars",
        ],
    );
    let bytes = std::fs::read(&png).expect("chromium wrote the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1400, 1000), "IHDR size");
    // A blank 1400x1000 page compresses to a few KiB; text and tables do not.
    assert!(
        bytes.len() > 30_000,
        "screenshot of {} is only {} bytes",
        file.display(),
        bytes.len()
    );
}

struct Dom(String);

/// One row of the table, in document order.
struct RowTag {
    tag: String,
}

impl RowTag {
    fn attr(&self, name: &str) -> Option<&str> {
        let key = format!(" {name}=\"");
        let i = self.tag.find(&key)? + key.len();
        let j = self.tag[i..].find('"')? + i;
        Some(&self.tag[i..j])
    }
    fn hidden(&self) -> bool {
        self.tag.contains(" hidden")
    }
    fn num(&self, name: &str) -> Option<f64> {
        self.attr(name).and_then(|s| s.parse().ok())
    }
}

impl Dom {
    fn rows(&self) -> Vec<RowTag> {
        self.0
            .match_indices("<details class=\"test")
            .map(|(i, _)| {
                let end = self.0[i..].find('>').unwrap() + i;
                RowTag {
                    tag: self.0[i..end].to_string(),
                }
            })
            .collect()
    }
    fn total(&self, key: &str) -> usize {
        let pat = format!("data-total=\"{key}\"><b>");
        let i = self
            .0
            .find(&pat)
            .unwrap_or_else(|| panic!("no total {key}"))
            + pat.len();
        let j = self.0[i..].find('<').unwrap() + i;
        self.0[i..j].parse().unwrap()
    }
    fn has_total(&self, key: &str) -> bool {
        self.0.contains(&format!("data-total=\"{key}\""))
    }
    fn container_attr(&self, name: &str) -> String {
        let i = self.0.find("id=\"tests\"").expect("the table");
        let end = self.0[i..].find('>').unwrap() + i;
        RowTag {
            tag: format!(" {}", &self.0[i..end]),
        }
        .attr(name)
        .unwrap_or_default()
        .to_string()
    }
}

/// Rows sorted by a numeric key, descending: missing values last.
fn assert_sorted_desc(rows: &[RowTag], key: &str) {
    let vals: Vec<Option<f64>> = rows.iter().map(|r| r.num(key)).collect();
    let present = vals.iter().take_while(|v| v.is_some()).count();
    assert!(
        vals[present..].iter().all(Option::is_none),
        "rows without {key} are not last"
    );
    for w in vals[..present].windows(2) {
        assert!(
            w[0] >= w[1],
            "not sorted by -{key}: {:?} before {:?}",
            w[0],
            w[1]
        );
    }
}

/// Checks the sort the URL asked for moved the rows (unless the input was
/// in that order already).
fn assert_moved(before: &[RowTag], after: &[RowTag], key: &str) {
    let vals: Vec<Option<f64>> = before.iter().map(|r| r.num(key)).collect();
    let already = vals.windows(2).all(|w| match (w[0], w[1]) {
        (Some(a), Some(b)) => a >= b,
        (_, None) => true,
        (None, Some(_)) => false,
    });
    let order: Vec<usize> = after
        .iter()
        .map(|r| r.num("data-i").unwrap() as usize)
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(sorted, (0..after.len()).collect::<Vec<_>>(), "rows lost");
    if !already {
        assert_ne!(order, sorted, "#sort=-{key} left the input order");
    }
}

/// `N rows in`, and `P passed, F failed[, M skipped]` from `gpumc suite`.
fn suite_counts(out: &str) -> (usize, usize, usize, usize) {
    let rows = out
        .lines()
        .find_map(|l| {
            let (_, rest) = l.split_once(".csv: ")?;
            rest.split_whitespace().next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no row count in {out}"));
    let last = out.lines().last().unwrap();
    let n = |word: &str| -> usize {
        last.split(", ")
            .find_map(|p| p.strip_suffix(word)?.trim().parse().ok())
            .unwrap_or(0)
    };
    (rows, n(" passed"), n(" failed"), n(" skipped"))
}

/// The options each corpus CSV is run with (../shared/corpus/README).
const CSVS: &[(&str, &[&str])] = &[
    ("PTXv7_5-expected.csv", &["--model", "ptx-v7.5"]),
    (
        "VULKAN-DR-expected.csv",
        &["--model", "vulkan", "--property", "races"],
    ),
    (
        "PTXv7_5-Liveness-expected.csv",
        &["--model", "ptx-v7.5", "--property", "liveness"],
    ),
    ("PTXv6_0-expected.csv", &["--model", "ptx-v6.0"]),
    ("VULKAN-expected.csv", &["--model", "vulkan"]),
    (
        "VULKAN-NOCHAINS-expected.csv",
        &["--model", "vulkan-nochains"],
    ),
    (
        "VULKAN-DR-NOCHAINS-expected.csv",
        &["--model", "vulkan-nochains", "--property", "races"],
    ),
    (
        "PTXv6_0-Liveness-expected.csv",
        &["--model", "ptx-v6.0", "--property", "liveness"],
    ),
    (
        "VULKAN-Liveness-Fair-expected.csv",
        &[
            "--model",
            "vulkan",
            "--property",
            "liveness",
            "--bound",
            "4",
            "--progress",
            "fair",
        ],
    ),
    (
        "VULKAN-Liveness-HSA-expected.csv",
        &[
            "--model",
            "vulkan",
            "--property",
            "liveness",
            "--bound",
            "4",
            "--progress",
            "hsa",
        ],
    ),
    (
        "VULKAN-Liveness-OBE-expected.csv",
        &[
            "--model",
            "vulkan",
            "--property",
            "liveness",
            "--bound",
            "4",
            "--progress",
            "obe",
        ],
    ),
    (
        "VULKAN-Liveness-HSA_OBE-expected.csv",
        &[
            "--model",
            "vulkan",
            "--property",
            "liveness",
            "--bound",
            "4",
            "--progress",
            "hsa_obe",
        ],
    ),
    (
        "VULKAN-Liveness-LOBE-expected.csv",
        &[
            "--model",
            "vulkan",
            "--property",
            "liveness",
            "--bound",
            "4",
            "--progress",
            "lobe",
        ],
    ),
    ("SPIRV-VULKAN-expected.csv", &[]),
];

/// How many of `CSVS` the normal run covers: one per property.
const FAST_CSVS: usize = 3;

#[test]
fn suite_reports_of_the_corpus_csvs() {
    let Some(exe) = chromium() else { return };
    let corpus = gpumc_testutil::shared_corpus().join("dat3m/expected");
    if !corpus.is_dir() {
        eprintln!("skipping the suite HTML reports: ../shared/corpus is absent");
        return;
    }
    let all = std::env::var("GPUMC_HTML_ALL_CSVS").as_deref() == Ok("1");
    let csvs = if all { CSVS } else { &CSVS[..FAST_CSVS] };
    let dir = tmp("suite");
    for (k, (csv, opts)) in csvs.iter().enumerate() {
        let html = dir.join(format!("r{k}.html"));
        let csv_path = corpus.join(csv);
        let mut args = vec![
            "suite",
            "--expected",
            csv_path.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ];
        args.extend_from_slice(opts);
        let (code, out) = gpumc(&args);
        let (rows, passed, failed, missing) = suite_counts(&out);
        // A CSV naming files the corpus lacks exits 2 (nothing a user asked
        // for is silently skipped), the rest are still checked and reported.
        let want = if missing > 0 { 2 } else { u8::from(failed > 0) };
        assert_eq!(code, Some(want.into()), "{csv}: {out}");
        assert_eq!(passed + failed + missing, rows, "{csv}: {out}");

        let raw = Dom(std::fs::read_to_string(&html).unwrap());
        let d = dom(&exe, &html, "#sort=-time");
        let rs = d.rows();
        assert_eq!(rs.len(), rows, "{csv}: one row per CSV row");
        assert_eq!(d.container_attr("data-shown"), rows.to_string(), "{csv}");
        assert_eq!(d.total("agree"), passed, "{csv}");
        assert_eq!(d.total("disagree"), failed, "{csv}");
        let missing_total = if d.has_total("MISSING") {
            d.total("MISSING")
        } else {
            0
        };
        assert_eq!(missing_total, missing, "{csv}");
        let verdicts: usize = ["PASS", "FAIL", "UNKNOWN", "ERROR"]
            .iter()
            .map(|v| d.total(v))
            .sum();
        assert_eq!(verdicts + missing_total, rows, "{csv}: verdict totals");
        for v in ["PASS", "FAIL", "UNKNOWN", "ERROR"] {
            let n = rs
                .iter()
                .filter(|r| r.attr("data-verdict") == Some(v))
                .count();
            assert_eq!(n, d.total(v), "{csv}: rows with verdict {v}");
        }
        assert_eq!(d.container_attr("data-sorted"), "-time", "{csv}");
        assert_sorted_desc(&rs, "data-time");
        assert_moved(&raw.rows(), &rs, "data-time");

        if k == 0 {
            // Filtered by verdict and sorted by executions, from the URL.
            let d = dom(&exe, &html, "#sort=-executions&v=verdict:FAIL");
            let rs = d.rows();
            let shown: Vec<&RowTag> = rs.iter().filter(|r| !r.hidden()).collect();
            assert_eq!(shown.len(), d.total("FAIL"), "{csv}: FAIL filter");
            assert!(
                !shown.is_empty() && shown.len() < rows,
                "{csv}: a real filter"
            );
            assert!(shown.iter().all(|r| r.attr("data-verdict") == Some("FAIL")));
            assert_eq!(d.container_attr("data-shown"), shown.len().to_string());
            assert_sorted_desc(&rs, "data-executions");
            // The text box, from the URL: a word of some test names that
            // the corpus's own path does not contain (a clone under /tmp
            // would match `mp` everywhere).
            let under = csv_path.display().to_string().to_lowercase();
            let q = ["mp", "sb", "iriw", "lb", "corr"]
                .into_iter()
                .find(|q| !under.contains(q))
                .expect("a query word outside the corpus path");
            let d = dom(&exe, &html, &format!("#q={q}"));
            let rs = d.rows();
            let shown = rs.iter().filter(|r| !r.hidden()).count();
            assert!(shown > 0 && shown < rows, "{csv}: `{q}` matches some rows");
            assert!(rs
                .iter()
                .all(|r| r.hidden() != r.attr("data-search").unwrap().contains(q)));
            assert_screenshot(&exe, &html, &dir);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_report_of_the_examples() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("check");
    let html = dir.join("check.html");
    let (code, out) = gpumc(&[
        "check",
        "--json",
        "examples/",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let reports: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(reports.len() > 100);
    let raw = Dom(std::fs::read_to_string(&html).unwrap());
    let d = dom(&exe, &html, "#sort=-time");
    let rs = d.rows();
    assert_eq!(rs.len(), reports.len(), "one row per test");
    for v in ["PASS", "FAIL", "UNKNOWN", "ERROR"] {
        let n = reports.iter().filter(|r| r["verdict"] == v).count();
        assert_eq!(d.total(v), n, "total {v}");
    }
    assert!(!d.0.contains("data-key=\"agrees\""), "no suite columns");
    assert_sorted_desc(&rs, "data-time");
    assert_moved(&raw.rows(), &rs, "data-time");
    // Every witness is in its row, as a table.
    let witnesses = reports
        .iter()
        .filter(|r| r.get("witness").is_some())
        .count();
    assert_eq!(d.0.matches("<h3>Witness execution</h3>").count(), witnesses);
    // Every checked test has its execution graph (the witness, or the
    // rejected candidate of a forbidden outcome with its violated cycle)
    // drawn by our own SVG layout, each with its own marker ids.
    let drawn = reports.iter().filter(|r| r["verdict"] != "ERROR").count();
    assert_eq!(d.0.matches("<figure class=\"graph\"><svg").count(), drawn);
    let relacq = reports
        .iter()
        .filter(|r| {
            r["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("MP-relacq.litmus"))
        })
        .count();
    assert_eq!(relacq, 1);
    assert!(
        d.0.contains(" in-cycle\"") && d.0.contains(" cycle\""),
        "MP-relacq's graph shows the violated axiom's cycle"
    );
    let ids: Vec<&str> =
        d.0.match_indices("<marker id=\"")
            .map(|(i, _)| {
                let rest = &d.0[i + 12..];
                &rest[..rest.find('"').unwrap()]
            })
            .collect();
    let unique: std::collections::BTreeSet<&&str> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "marker ids are unique in the page");
    assert_screenshot(&exe, &html, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Liveness and race rows draw what their verdict says (issue: a liveness
/// FAIL was drawn as "nothing to draw"): an interleaving lasso's
/// repeating steps and a stuck execution's repeating iteration in red; a
/// race's pair as a red edge with its kind, the list of racing pairs
/// before the picture.
#[test]
fn liveness_and_race_rows_draw_their_answer() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("answers");
    // An interleaving that runs forever (P0 never scheduled again under
    // OBE) and a spin in a side-effect-free loop (a stuck execution).
    std::fs::write(
        dir.join("wait-for-exchange.litmus"),
        "VULKAN wait-for-exchange\n{ Mem0=0; }\n P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 0, qf 0 ;\n LC00: | LC10: ;\n rmw.atom.wg.sc0 r0, Mem0, 1 | ld.atom.wg.sc0 r1, Mem0 ;\n bne r0, 0, LC00 | beq r1, 0, LC10 ;\nexists (0 == 0)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("spin.litmus"),
        "PTX spin\n{ flag=0; }\n P0@cta 0,gpu 0 ;\n L: ;\n ld.relaxed.gpu r0, flag ;\n beq r0, 0, L ;\nexists (0 == 0)\n",
    )
    .unwrap();
    let html = dir.join("liveness.html");
    let (code, out) = gpumc(&[
        "check",
        dir.join("wait-for-exchange.litmus").to_str().unwrap(),
        dir.join("spin.litmus").to_str().unwrap(),
        "--property",
        "liveness",
        "--progress",
        "obe",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2 tests: 0 PASS, 2 FAIL"), "{out}");
    let d = dom(&exe, &html, "");
    assert_eq!(d.0.matches("<figure class=\"graph\"><svg").count(), 2);
    assert!(!d.0.contains("Nothing to draw"), "a FAIL has its picture");
    assert_eq!(
        d.0.matches("Liveness violation: ").count(),
        2,
        "each picture's caption says what never ends"
    );
    assert!(d.0.contains(">repeat<"), "the lasso's cycle closes");
    assert!(
        d.0.contains(">repeats forever<"),
        "the stuck iteration loops"
    );
    assert!(d.0.matches(" in-cycle\"").count() >= 2);
    assert_screenshot(&exe, &html, &dir);

    std::fs::write(
        dir.join("racy.litmus"),
        "VULKAN racy\n{\nx=0;\n}\n P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 1, qf 0 ;\n st.sc0 x, 1 | ld.sc0 r0, x ;\nexists (P1:r0 == 1)\n",
    )
    .unwrap();
    let html = dir.join("race.html");
    let (code, out) = gpumc(&[
        "check",
        dir.join("racy.litmus").to_str().unwrap(),
        "--property",
        "races",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let d = dom(&exe, &html, "");
    let list = d.0.find("<h3>Data races (1)</h3>").expect("the race list");
    let figure = d.0.find("<figure class=\"graph\">").expect("the picture");
    assert!(list < figure, "the racing pairs come before the picture");
    assert!(
        d.0.contains(">race RAW<"),
        "the pair's edge carries its kind"
    );
    assert!(d.0.contains("edge rel-race_RAW cycle"), "in red");
    assert!(!d.0.contains("<dd>null</dd>"), "no nulls for absent fields");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `N tests: A conform, V with violations, U unsupported, E errors; …`
fn run_counts(out: &str) -> [usize; 5] {
    let line = out
        .lines()
        .find(|l| l.contains(" tests: "))
        .unwrap_or_else(|| panic!("no totals in {out}"));
    let mut n = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap());
    [
        n.next().unwrap(),
        n.next().unwrap(),
        n.next().unwrap(),
        n.next().unwrap(),
        n.next().unwrap(),
    ]
}

#[test]
fn run_report_on_the_interpreter() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("run");
    let html = dir.join("run.html");
    let (code, out) = gpumc(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--seed",
        "3",
        "--skip-unsupported",
        "examples/",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let [tests, ok, viol, unsup, err] = run_counts(&out);
    let raw = Dom(std::fs::read_to_string(&html).unwrap());
    let d = dom(&exe, &html, "#sort=-instances");
    let rs = d.rows();
    assert_eq!(rs.len(), tests);
    assert_eq!(
        [
            d.total("ok"),
            d.total("violation"),
            d.total("unsupported"),
            d.total("error")
        ],
        [ok, viol, unsup, err]
    );
    assert_sorted_desc(&rs, "data-instances");
    assert_moved(&raw.rows(), &rs, "data-instances");
    assert!(d.0.contains("<dt>backend</dt><dd>interp</dd>"));
    assert!(d.0.contains("<dt>seed</dt><dd>3</dd>"));
    // One bar per observed state of every test that ran, all allowed (the
    // interpreter is sequentially consistent).
    let states: usize = rs
        .iter()
        .filter_map(|r| r.num("data-states"))
        .map(|n| n as usize)
        .sum();
    assert!(states > tests);
    assert_eq!(d.0.matches("data-judgement=\"allowed\"").count(), states);
    assert!(!d.0.contains("data-judgement=\"forbidden\""));
    assert_screenshot(&exe, &html, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

const SB: &str = r#"Vulkan SB
{ x=0; y=0; }
 P0@sg 0, wg 0, qf 0  | P1@sg 0,wg 1, qf 0   ;
 st.atom.dv.sc0 x, 1  | st.atom.dv.sc0 y, 1  ;
 ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, x ;
exists (P0:r0 == 0 /\ P1:r1 == 0)
"#;

#[test]
fn run_report_colours_violations() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("viol");
    let sb = dir.join("sb.litmus");
    std::fs::write(&sb, SB).unwrap();
    // No thread may read another's write: every state but r0=r1=0 is a
    // violation.
    let cat = dir.join("isolated.cat");
    std::fs::write(&cat, "isolated\nempty rf & ext as isolated\n").unwrap();
    let html = dir.join("viol.html");
    let (code, out) = gpumc(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--seed",
        "1",
        "--model",
        cat.to_str().unwrap(),
        sb.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(1), "{out}");
    let d = dom(&exe, &html, "");
    assert_eq!(d.rows().len(), 1);
    assert_eq!(d.total("violation"), 1);
    assert!(d.rows()[0].tag.contains("class=\"test bad\""));
    let forbidden = d.0.matches("data-judgement=\"forbidden\"").count();
    assert!(forbidden >= 2, "{forbidden} forbidden bars");
    assert_eq!(
        d.0.matches("<rect class=\"j-forbidden\"").count(),
        // The bar in the chart and its segment in the row's strip.
        2 * forbidden
    );
    assert!(d.0.contains("VIOLATION") || d.0.contains("forbidden: a violation"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The serialised document without its attribute values, where some
/// Chromium versions leave `<` unescaped: what is left of `<` is markup.
fn markup(dom: &str) -> String {
    let (mut in_tag, mut in_value) = (false, false);
    dom.chars()
        .filter(|&c| {
            match (in_tag, in_value, c) {
                (false, _, '<') => in_tag = true,
                (true, false, '>') => in_tag = false,
                (true, _, '"') => {
                    in_value = !in_value;
                    return true;
                }
                _ => {}
            }
            !in_value
        })
        .collect()
}

#[test]
fn names_cannot_inject_markup() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("evil");
    let name = "a<img src=x onerror=document.body.setAttribute('data-pwned',1)>.litmus";
    let test = SB.replace(
        "Vulkan SB",
        "Vulkan SB<script>document.body.setAttribute(\"data-pwned\",\"2\")</script>",
    );
    std::fs::write(dir.join(name), test).unwrap();
    let d_str = dir.to_str().unwrap();
    for (cmd, extra) in [
        ("check", &[][..]),
        ("run", &["--backend", "interp", "--iterations", "1"][..]),
    ] {
        let html = dir.join(format!("{cmd}.html"));
        let mut args = vec![cmd, d_str, "--html", html.to_str().unwrap()];
        args.extend_from_slice(extra);
        let (code, out) = gpumc(&args);
        assert_eq!(code, Some(0), "{out}");
        let d = dom(&exe, &html, "");
        assert_eq!(d.rows().len(), 1);
        let tags = markup(&d.0);
        assert_eq!(
            tags.matches("<script").count(),
            1,
            "{cmd}: only the page's script"
        );
        assert!(
            !tags.contains("<img"),
            "{cmd}: an image element was injected"
        );
        assert!(!d.0.contains("data-pwned=\""), "{cmd}: injected code ran");
        assert!(
            d.0.contains("&lt;img src=x onerror="),
            "{cmd}: the name is shown"
        );
        if cmd == "run" {
            assert!(
                d.0.contains("SB&lt;script&gt;document.body"),
                "the test name is shown"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn markup_drops_attribute_values_only() {
    assert_eq!(
        markup("<a title=\"x<img>\">t &lt;img&gt;</a><img src=\"y\">"),
        "<a title=\"\">t &lt;img&gt;</a><img src=\"\">"
    );
}

#[test]
fn an_unwritable_report_is_a_usage_error_before_any_work() {
    let (code, out) = gpumc(&[
        "check",
        "examples/MP-relacq.litmus",
        "--html",
        "/nonexistent-dir/r.html",
    ]);
    assert_eq!(code, Some(2));
    assert!(out.is_empty(), "nothing was checked: {out}");
}

/// `gpumc results --html`: the results database as one table, a row per
/// test family and a column per device, each cell the share of instances
/// that showed the weak outcome and the violations.
#[test]
fn results_page_compares_the_devices() {
    let Some(exe) = chromium() else { return };
    let dir = tmp("results");
    let tests = dir.join("tests");
    let (code, out) = gpumc(&[
        "diy",
        "--arch",
        "vulkan",
        "--enumerate",
        "--max-edges",
        "4",
        "--basic-placements",
        "--global-only",
        "--orderings",
        "po",
        "--out",
        tests.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    let db = dir.join("r.db");
    let (d, t) = (db.to_str().unwrap(), tests.to_str().unwrap());
    let mut devices = 1;
    let (code, out) = gpumc(&[
        "run",
        "--backend",
        "interp",
        "--iterations",
        "2",
        "--db",
        d,
        t,
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (code, list) = gpumc(&["devices", "--backend", "vulkan", "--json"]);
    if code == Some(0) && !list.trim().is_empty() {
        let (code, out) = gpumc(&[
            "run",
            "--backend",
            "vulkan",
            "--iterations",
            "2",
            "--db",
            d,
            t,
        ]);
        assert_eq!(code, Some(0), "{out}");
        devices += 1;
    }
    let html = dir.join("results.html");
    let (code, out) = gpumc(&[
        "results",
        "--db",
        d,
        "--by",
        "family",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{out}");
    // (a page without the test table's script: the document as parsed)
    let page = Dom(browse(&exe, &html, "", &["--dump-dom"]));
    assert!(page.0.contains("<table class=\"compare\">"), "{}", page.0);
    // A column per device, a row per family (the six two-thread ones).
    assert_eq!(page.0.matches("<th data-device=").count(), devices);
    for f in ["MP", "SB", "LB", "S", "R", "2+2W"] {
        assert!(page.0.contains(&format!("<tr data-test=\"{f}\">")), "{f}");
    }
    assert_eq!(page.0.matches("<tr data-test=").count(), 6);
    assert_eq!(page.0.matches("<td data-device=").count(), 6 * devices);
    // The interpreter is sequentially consistent: its cells show no weak
    // outcome and nothing forbidden.
    assert!(page
        .0
        .contains("data-device=\"interp gpumc reference interpreter"));
    assert!(!page.0.contains("class=\"violation\""));
    assert_screenshot(&exe, &html, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}
