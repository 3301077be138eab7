//! The live HSG (`--live-hsg`) and the HSG depth limit (`--hsg-depth`): the figures an
//! exploration maintains agree with the batch analysis, and a depth-limited run is as
//! deterministic as any other.

use crate::util::{assert_same_content, exploration, explore, level, ok, path_arg, report};
use std::path::Path;

/// The `live HSG:` line's numbers: hyperstates, depth, winning, dead states, dead
/// hyperstates.
fn live_line(level: &Path, store: &Path, extra: &[&str]) -> Vec<u64> {
    let mut args = vec!["explore", path_arg(level), "--store", path_arg(store)];
    args.extend_from_slice(extra);
    let out = ok(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let line = stderr
        .lines()
        .find(|l| l.starts_with("live HSG:"))
        .unwrap_or_else(|| panic!("no live HSG line in {stderr}"));
    // Counts are grouped by thousands for people (`2,477`).
    line.replace(',', "")
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// States in hyperstates tagged fail or implicitly failed, from the SSG export.
fn states_that_cannot_win(store: &Path) -> u64 {
    let out = ok(&[
        "export",
        path_arg(store),
        "--graph",
        "ssg",
        "--format",
        "jsonl",
    ]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("\"kind\":\"node\""))
        .filter(|l| l.contains("\"tag\":\"fail\"") || l.contains("\"tag\":\"implicitly_failed\""))
        .count() as u64
}

#[test]
fn live_figures_match_the_batch_analysis() {
    for name in [
        "sokoban/twoboxes.xsb",
        "sokoban/tiny.xsb",
        "sokoban/nowin.xsb",
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("run");
        let live = live_line(&level(name), &store, &["--live-hsg", "--analyze"]);
        let hsg = &report(&store)["hsg"];
        assert_eq!(
            live[0],
            hsg["hyperstates"].as_u64().unwrap(),
            "{name}: hyperstates"
        );
        assert_eq!(
            live[2],
            hsg["tags"]["win"].as_u64().unwrap(),
            "{name}: winning"
        );
        assert_eq!(
            live[3],
            states_that_cannot_win(&store),
            "{name}: dead states"
        );
        let dead_tags = hsg["tags"]["fail"].as_u64().unwrap()
            + hsg["tags"]["implicitly_failed"].as_u64().unwrap();
        assert_eq!(live[4], dead_tags, "{name}: dead hyperstates");
    }
}

#[test]
fn a_generous_depth_limit_changes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (plain, limited) = (dir.path().join("plain"), dir.path().join("limited"));
    let path = level("sokoban/twoboxes.xsb");
    explore(&path, &plain, &[]);
    explore(&path, &limited, &["--hsg-depth", "1000"]);
    assert_same_content(&plain, &limited);
    assert_eq!(exploration(&limited)["status"], "complete");
}

#[test]
fn a_tight_depth_limit_holds_states_back_and_leaves_their_tags_unknown() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let live = live_line(
        &level("sokoban/twoboxes.xsb"),
        &store,
        &["--hsg-depth", "1", "--analyze"],
    );
    let full = dir.path().join("full");
    explore(&level("sokoban/twoboxes.xsb"), &full, &[]);
    let limited = report(&store);
    assert_eq!(limited["exploration"]["status"], "partial");
    let hsg = &limited["hsg"];
    assert!(hsg["provisional"].as_bool().unwrap());
    assert!(hsg["open_states"].as_u64().unwrap() > 0);
    assert!(hsg["states"].as_u64().unwrap() < report(&full)["hsg"]["states"].as_u64().unwrap());
    // Nothing expanded lies deeper than one critical action past the limit.
    assert!(live[1] <= 2, "live depth {live:?}");
    assert_eq!(hsg["tags"]["fail"], 0, "held-back states are never fail");
}

#[test]
fn depth_limited_ids_do_not_depend_on_threads_or_the_index() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = level("sokoban/room3.xsb");
    // A BFS depth bound rather than a state count: on disk, states are only known at the
    // end of a layer, so a state-count limit stops elsewhere.
    let limit = ["--hsg-depth", "3", "--max-depth", "27"];
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    let disk = dir.path().join("disk");
    explore(&path, &one, &[&limit[..], &["--threads", "1"]].concat());
    explore(&path, &two, &[&limit[..], &["--threads", "2"]].concat());
    explore(
        &path,
        &disk,
        &[&limit[..], &["--index-limit", "50000"]].concat(),
    );
    assert_same_content(&one, &two);
    assert_same_content(&one, &disk);
}

#[test]
fn diff_names_the_merges_a_depth_limit_prevented() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = level("sokoban/twoboxes.xsb");
    let (limited, full) = (dir.path().join("limited"), dir.path().join("full"));
    explore(&path, &limited, &["--hsg-depth", "1"]);
    explore(&path, &full, &[]);
    let out = ok(&["diff", path_arg(&limited), path_arg(&full), "--json"]);
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(c["missing_states"], 0);
    assert_eq!(c["merged_only_in_limited"], 0);
    assert_eq!(c["states"]["full"], 2887);
    assert!(c["split_hyperstates"].as_u64().unwrap() > 0, "{c}");
    assert_eq!(c["hyperstates"]["full"], 59);
    // Runs of two different levels are refused with both names.
    let other = dir.path().join("other");
    explore(&level("sokoban/tiny.xsb"), &other, &[]);
    let out = crate::util::run(&["diff", path_arg(&other), path_arg(&full)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different levels"));
}

#[test]
fn flipping_tokens_doubles_the_states_but_not_the_hyperstates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = level("sokoban/twoboxes.xsb");
    let mut sizes = Vec::new();
    for k in ["0", "1", "2"] {
        let store = dir.path().join(format!("k{k}"));
        explore(&path, &store, &["--flip-tokens", k]);
        let hsg = &report(&store)["hsg"];
        sizes.push((
            hsg["states"].as_u64().unwrap(),
            hsg["hyperstates"].as_u64().unwrap(),
            hsg["hsg_edges"].as_u64().unwrap(),
            hsg["tags"].clone(),
        ));
    }
    assert_eq!(sizes[0].0, 2887);
    // Terminal states carry no tokens (a game over clears them), so every other
    // state doubles per token.
    assert_eq!((sizes[1].0, sizes[2].0), (5772, 11542));
    for s in &sizes[1..] {
        assert_eq!((s.1, s.2, &s.3), (sizes[0].1, sizes[0].2, &sizes[0].3));
    }
}

/// Regression (issue 37): the last progress line of a `--live-hsg` run paired the
/// final state count with the HSG of an earlier graph (the figures of the last layer's
/// start). Its hyperstates, depth and dead states are the final ones, as the `live HSG:`
/// line and the batch analysis give them; so are the figures the manifest keeps.
#[test]
fn the_last_progress_line_pairs_the_final_counts_with_the_final_hsg() {
    for name in ["sokoban/twoboxes.xsb", "sokoban/nowin.xsb"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("run");
        let out = ok(&[
            "explore",
            path_arg(&level(name)),
            "--store",
            path_arg(&store),
            "--live-hsg",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Counts are grouped by thousands in human output (`2,477`).
        let numbers = |line: &str| -> Vec<u64> {
            line.replace(',', "")
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect()
        };
        let last = stderr
            .lines()
            .rfind(|l| l.starts_with('[') && l.contains("hyperstates"))
            .unwrap_or_else(|| panic!("no progress line in {stderr}"));
        let (_, hsg_part) = last.split_once("; ").expect("live figures in the line");
        let progress = numbers(hsg_part);
        let live = numbers(
            stderr
                .lines()
                .find(|l| l.starts_with("live HSG:"))
                .expect("a live HSG line"),
        );
        // hyperstates, HSG depth, states that can no longer win
        assert_eq!(progress, [live[0], live[1], live[3]], "{name}: {last}");
        let states = report(&store)["hsg"]["states"].as_u64().unwrap();
        assert!(
            last.replace(',', "")
                .contains(&format!("] {states} states")),
            "{name}: {last}"
        );
        // The manifest: a 32-byte header, then JSON.
        let bytes = std::fs::read(store.join("MANIFEST")).expect("manifest");
        let m: serde_json::Value = serde_json::from_slice(&bytes[32..]).expect("manifest body");
        let kept = &m["progress"]["live_hsg"];
        assert_eq!(
            kept["hyperstates"].as_u64(),
            Some(live[0]),
            "{name}: {kept}"
        );
        assert_eq!(
            kept["dead_states"].as_u64(),
            Some(live[3]),
            "{name}: {kept}"
        );
    }
}
