//! `hsg html` in headless Chromium: the page loads offline without script errors, a
//! screenshot is taken, and every figure marked `data-metric` equals `hsg report --json`.

use crate::util::{explore, level, ok, path_arg, report};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Debian's Chromium, or `None` (the test is skipped outside CI, where `.ci/run`
/// installs it, and fails in CI).
fn chromium() -> Option<&'static str> {
    let found = Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing (.ci/run installs it)"
        );
        eprintln!("chromium is not installed: the browser test is skipped");
        return None;
    }
    Some("chromium")
}

/// Runs headless Chromium on `page` with `extra` flags, a fresh profile and no network
/// services, and returns its standard output and error (killed after two minutes).
/// Both go to files: a pipe nobody reads while waiting would stall the browser.
fn browse(browser: &str, page: &Path, profile: &Path, extra: &[&str]) -> (String, String) {
    let url = format!("file://{}", page.display());
    let out_path = profile.with_extension("out");
    let err_path = profile.with_extension("err");
    let file = |p: &Path| std::fs::File::create(p).expect("log file");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url)
        .stdout(file(&out_path))
        .stderr(file(&err_path))
        .spawn()
        .expect("chromium starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).expect("log")).into_owned();
    (read(&out_path), read(&err_path))
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every `data-metric="P" data-value="V"` pair of the dumped DOM.
fn metrics(dom: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for chunk in dom.split("data-metric=\"").skip(1) {
        let Some((pointer, rest)) = chunk.split_once('"') else {
            continue;
        };
        let Some(value) = rest
            .strip_prefix(" data-value=\"")
            .and_then(|r| r.split_once('"'))
        else {
            continue;
        };
        pairs.push((pointer.to_string(), unescape(value.0)));
    }
    pairs
}

#[test]
fn the_report_page_loads_offline_and_shows_the_reports_numbers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("twoboxes");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    let page = dir.path().join("report.html");
    ok(&["html", path_arg(&store), "-o", path_arg(&page)]);
    let html = std::fs::read_to_string(&page).expect("page");
    // Self-contained: nothing to fetch (the SVG namespace is a name, not a request).
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for fetch in ["http://", "https://", "<link", " src="] {
        assert!(!without_ns.contains(fetch), "the page refers to {fetch}");
    }
    let Some(browser) = chromium() else {
        return;
    };
    let (dom, log) = browse(
        browser,
        &page,
        &dir.path().join("profile1"),
        &["--dump-dom"],
    );
    assert!(
        dom.contains("data-ready=\"yes\""),
        "scripts did not run: {log}"
    );
    assert!(!dom.contains("data-errors="), "script errors in the page");
    assert!(!log.contains("Uncaught"), "console errors: {log}");
    assert!(
        dom.contains("data-nodes=\"59\""),
        "every hyperstate is on the map"
    );
    let report = report(&store);
    let pairs = metrics(&dom);
    assert!(pairs.len() >= 30, "only {} figures marked", pairs.len());
    for (pointer, value) in &pairs {
        let shown: Value = serde_json::from_str(value).expect("data-value is JSON");
        let want = report.pointer(pointer).cloned().unwrap_or(Value::Null);
        assert_eq!(shown, want, "{pointer}");
    }
    let shot = dir.path().join("report.png");
    let flag = format!("--screenshot={}", shot.display());
    browse(
        browser,
        &page,
        &dir.path().join("profile2"),
        &[&flag, "--window-size=1280,2000"],
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000);
}

#[test]
fn a_large_graph_says_how_much_of_it_the_map_shows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("twoboxes");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    let page = dir.path().join("report.html");
    ok(&[
        "html",
        path_arg(&store),
        "-o",
        path_arg(&page),
        "--max-hyperstates",
        "10",
    ]);
    let html = std::fs::read_to_string(&page).expect("page");
    assert!(html.contains("Showing 10 of 59 hyperstates"));
    assert!(html.matches("<a href=\"#h-").count() >= 10);
    assert_eq!(html.matches("<details id=\"h-").count(), 10);
    // The shortest solution is the LURD `hsg path` prints.
    let lurd = ok(&["path", path_arg(&store), "--to", "win"]);
    let lurd = String::from_utf8_lossy(&lurd.stdout).trim().to_string();
    assert!(html.contains(&format!("data-solution-length=\"{}\"", lurd.len())));
}
