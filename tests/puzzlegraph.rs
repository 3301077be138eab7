//! PuzzleGraph puzzles through the real binary: every sample and the project's own
//! puzzles explored, analysed and reported, with PuzzleGraph's own counters; a depth
//! cap like PuzzleGraph's; malformed files named by line.

use crate::util::{explore, level, report, run};
use serde_json::{json, Value};

/// File, found states, goal states, goal path, longest path, states that cannot reach a
/// goal, transitions.
const PUZZLES: [(&str, u64, u64, u64, u64, u64, u64); 13] = [
    ("Ball Track.txt", 17, 1, 6, 9, 0, 31),
    ("Bridge Go Round.txt", 134, 2, 23, 29, 0, 322),
    ("Detour.txt", 31, 2, 8, 9, 0, 97),
    ("Door And Toggle.txt", 7, 1, 3, 3, 0, 13),
    ("Hanoi 3.txt", 37, 1, 15, 15, 0, 85),
    ("Hanoi 4.txt", 77, 1, 31, 31, 0, 181),
    ("Hazard Only Safe With Ball.txt", 18, 2, 9, 10, 0, 32),
    ("State Space Tester.txt", 6, 1, 1, 2, 3, 11),
    ("ball-track-lock.puzzlegraph", 21, 1, 4, 4, 4, 46),
    ("chinese-rings-8.puzzlegraph", 2305, 1, 340, 340, 0, 5117),
    (
        "chinese-rings-10.puzzlegraph",
        11265,
        1,
        1364,
        1364,
        0,
        24573,
    ),
    ("plate-relay.puzzlegraph", 58, 1, 8, 15, 6, 115),
    ("two-players.puzzlegraph", 74, 6, 4, 8, 0, 249),
];

fn explored(file: &str, extra: &[&str]) -> (tempfile::TempDir, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level(&format!("puzzlegraph/{file}")), &store, extra);
    let r = report(&store);
    (dir, r)
}

#[test]
fn every_puzzle_gives_puzzlegraphs_counters() {
    for (file, states, goals, goal_path, longest, stuck, transitions) in PUZZLES {
        let (_dir, r) = explored(file, &["--analyze"]);
        assert_eq!(r["game"], "puzzlegraph", "{file}");
        let e = &r["exploration"];
        assert_eq!(e["states"], states, "{file}");
        assert_eq!(e["transitions"], transitions, "{file}");
        assert_eq!(e["outcomes"]["win"], goals, "{file}");
        assert_eq!(
            r["puzzlegraph_counters"],
            json!({
                "explored_all": true,
                "found_states": states,
                "goal_states": goals,
                "goal_path": goal_path,
                "longest_path": longest,
                "cannot_reach_goal": stuck,
            }),
            "{file}"
        );
        assert_eq!(r["hsg"]["shortest_win"]["actions"], goal_path, "{file}");
    }
}

#[test]
fn a_depth_cap_like_puzzlegraphs_leaves_the_rings_unsolved() {
    let (_dir, r) = explored(
        "chinese-rings-8.puzzlegraph",
        &["--max-depth", "200", "--analyze"],
    );
    let c = &r["puzzlegraph_counters"];
    assert_eq!(c["explored_all"], false);
    assert_eq!(c["goal_states"], 0);
    assert_eq!(c["goal_path"], Value::Null);
    assert_eq!(c["longest_path"], 200);
    assert_eq!(c["cannot_reach_goal"], Value::Null);
}

#[test]
fn the_markdown_report_has_the_counters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(
        &level("puzzlegraph/State Space Tester.txt"),
        &store,
        &["--analyze"],
    );
    let out = run(&["report", store.to_str().expect("utf-8"), "--format", "md"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("## PuzzleGraph counters"), "{md}");
    assert!(
        md.contains("| states that cannot reach a goal | 3 |"),
        "{md}"
    );
}

#[test]
fn malformed_puzzles_name_the_line() {
    let cases = [
        (
            "Bad\nPuzzleNode A { pos:0,0 }\nPuzzleEdge A-Z {  }\n",
            "bad.txt:3:14",
            "no node `Z`",
        ),
        (
            "Bad\nPuzzleNode A { pos:0,0 }\nPuzzleSpring A {  }\n",
            "bad.txt:3:1",
            "unknown element",
        ),
        (
            "Bad\nPuzzleNode A { pos:0,0 notify:X }\nPuzzleToggle A { off }\n",
            "bad.txt:2:31",
            "no node or edge",
        ),
        (
            "Bad\nPuzzleNode A { pos:0,0 }\nPuzzleNode B pos:1,0\n",
            "bad.txt:3:",
            "expected",
        ),
    ];
    for (text, position, words) in cases {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("bad.txt");
        std::fs::write(&path, text).expect("writable");
        let store = dir.path().join("run");
        let out = run(&[
            "explore",
            path.to_str().expect("utf-8"),
            "--store",
            store.to_str().expect("utf-8"),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(position) && err.contains(words),
            "{position} {words}: {err}"
        );
    }
}
