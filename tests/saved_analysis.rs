//! The saved analysis (`DIR/hsg/`) as reports and `hsg verify` read it: the numbers of the
//! report that computed it are the numbers of every later one, and damage is named.

use crate::util::{explore, level, ok, run};
use std::path::Path;

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

/// `hsg report --json` on `store`, with its stderr.
fn report_json(store: &Path) -> (serde_json::Value, String) {
    let out = ok(&["report", path_arg(store), "--json"]);
    let json = serde_json::from_slice(&out.stdout).expect("report is JSON");
    (json, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Flips one byte in the middle of `path`.
fn flip_middle_byte(path: &Path) {
    let mut bytes = std::fs::read(path).expect("readable");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x20;
    std::fs::write(path, bytes).expect("write");
}

#[test]
fn the_report_that_runs_the_analysis_prints_cannot_reach_goal() {
    // Regression: the first `hsg report --json` printed `"cannot_reach_goal": null`
    // and the next one 2,477: the fresh summary's floats differed from the reloaded ones.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let (fresh, _) = report_json(&store);
    let (reloaded, _) = report_json(&store);
    assert_eq!(fresh["puzzlegraph_counters"]["cannot_reach_goal"], 2477);
    assert_eq!(
        fresh, reloaded,
        "floats changed between a fresh and a reloaded analysis"
    );
}

#[test]
fn a_damaged_saved_analysis_is_named_and_recomputed_by_report() {
    // Regression: with damaged files under DIR/hsg/, `report --json` exited 0 with
    // nothing on stderr and nulls in the counters.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &["--analyze"]);
    let (good, _) = report_json(&store);
    for file in [
        "edges.bin",
        "hyperstates.bin",
        "members.idx",
        "summary.json",
    ] {
        flip_middle_byte(&store.join("hsg").join(file));
        let (again, err) = report_json(&store);
        assert!(
            err.contains(file) && err.contains("analysing again"),
            "{file}: {err}"
        );
        assert_eq!(again, good, "{file}");
    }
}

#[test]
fn verify_checks_the_saved_analysis() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let out = ok(&["verify", path_arg(&store)]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("no saved analysis"));
    ok(&["analyze", path_arg(&store)]);
    let out = ok(&["verify", path_arg(&store)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("hyperstates, every checksum verified, matches the run"),
        "{text}"
    );
    flip_middle_byte(&store.join("hsg/hyperstates.bin"));
    let out = run(&["verify", path_arg(&store)]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("hyperstates.bin") && err.contains("damaged"),
        "{err}"
    );
}
