//! Exploration end to end: counts from `hsg report --json` against the
//! oracle, thread-count independence, limits and identity checks.

use crate::oracle;
use crate::util::{assert_same_content, exploration, explore, level, report, run};

/// Small bundled levels whose whole space the oracle can count quickly.
pub const SMALL: [&str; 4] = [
    "sokoban/tiny.xsb",
    "sokoban/corridor.xsb",
    "sokoban/twoboxes.xsb",
    "sokoban/nowin.xsb",
];

#[test]
fn counts_match_the_oracle_on_small_levels() {
    for name in SMALL {
        let path = level(name);
        let text = std::fs::read_to_string(&path).expect("level readable");
        let expected = oracle::sokoban(&text);
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("run");
        explore(&path, &store, &["--threads", "1"]);
        let r = report(&store);
        let e = &r["exploration"];
        assert_eq!(r["schema"], "hyperstate.report/1");
        assert_eq!(e["complete"], true, "{name}");
        assert_eq!(e["states"], expected.states, "{name}: states");
        assert_eq!(
            e["transitions"], expected.transitions,
            "{name}: transitions"
        );
        assert_eq!(e["outcomes"]["win"], expected.wins, "{name}: wins");
        assert_eq!(e["max_depth"], expected.max_depth, "{name}: depth");
    }
}

#[test]
fn thread_count_and_memory_budget_do_not_change_the_store() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    let disk = dir.path().join("disk");
    explore(&path, &one, &["--threads", "1"]);
    explore(&path, &two, &["--threads", "2"]);
    // An index far smaller than the level forces disk-based duplicate detection.
    explore(&path, &disk, &["--threads", "2", "--index-limit", "300"]);
    assert_same_content(&one, &two);
    assert_same_content(&one, &disk);
}

#[test]
fn depth_limit_makes_a_partial_run() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&path, &store, &["--max-depth", "3"]);
    let e = exploration(&store);
    assert_eq!(e["complete"], false);
    assert_eq!(e["status"], "partial");
    assert_eq!(e["max_depth"], 3);
    assert!(e["expanded"].as_u64() < e["states"].as_u64());
}

#[test]
fn state_limit_stops_at_a_parent_boundary() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&path, &store, &["--max-states", "50"]);
    let e = exploration(&store);
    assert_eq!(e["complete"], false);
    let states = e["states"].as_u64().unwrap_or(0);
    // At most one parent's successors (four moves) beyond the limit.
    assert!((50..=54).contains(&states), "{states} states");
}

#[test]
fn another_level_on_the_same_store_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let other = level("sokoban/corridor.xsb");
    let out = run(&[
        "explore",
        other.to_str().unwrap_or_default(),
        "--store",
        store.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--force-new"), "{err}");
    explore(&other, &store, &["--force-new"]);
    assert_eq!(exploration(&store)["complete"], true);
}
