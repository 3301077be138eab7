//! `.game` levels end to end: the real `hsg` explores and analyses games
//! described in the game language, and reports the well-known counts.

use crate::util::{explore, level, ok, run};

/// The JSON report of a store analysed against `target`.
fn report_with_target(store: &std::path::Path, target: &str) -> serde_json::Value {
    let path = store.to_str().expect("utf-8 path");
    let out = ok(&["report", path, "--json", "--target", target]);
    serde_json::from_slice(&out.stdout).expect("report is JSON")
}

#[test]
fn tictactoe_has_its_well_known_counts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    // Two-player games have no `win` outcome: the analysis targets X's win.
    explore(
        &level("grammar/tictactoe.game"),
        &store,
        &["--analyze", "--target", "x wins"],
    );
    let r = report_with_target(&store, "x wins");
    let e = &r["exploration"];
    assert_eq!(e["complete"], true);
    assert_eq!(e["states"], 5478);
    assert_eq!(e["transitions"], 16167);
    assert_eq!(e["max_depth"], 9);
    let layers: Vec<u64> = serde_json::from_value(e["layer_sizes"].clone()).unwrap();
    assert_eq!(layers, vec![1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78]);
    assert_eq!(e["outcomes"]["x wins"], 626);
    assert_eq!(e["outcomes"]["o wins"], 316);
    assert_eq!(e["outcomes"]["draw"], 16);
}

#[test]
fn puzzles_and_chance_games_explore_through_the_pipeline() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, states) in [("hanoi.game", 81), ("sliding-2x3.game", 360)] {
        let store = dir.path().join(name);
        explore(&level(&format!("grammar/{name}")), &store, &["--analyze"]);
        let r = report_with_target(&store, "win");
        assert_eq!(r["exploration"]["states"], states, "{name}");
        assert_eq!(r["exploration"]["outcomes"]["win"], 1, "{name}");
    }
    let store = dir.path().join("pig");
    explore(
        &level("grammar/pig.game"),
        &store,
        &["--analyze", "--target", "a wins"],
    );
    let r = report_with_target(&store, "a wins");
    assert_eq!(r["exploration"]["complete"], true);
    let store = dir.path().join("rps");
    explore(
        &level("grammar/rock-paper-scissors.game"),
        &store,
        &["--analyze", "--target", "a wins"],
    );
    let r = report_with_target(&store, "a wins");
    assert_eq!(r["exploration"]["states"], 10);
    assert_eq!(r["exploration"]["outcomes"]["draw"], 3);
}

#[test]
fn a_broken_game_file_is_named_with_line_column_and_caret() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("broken.game");
    std::fs::write(
        &file,
        "players X\ntrack t: 0..3 = 7\noutcome \"draw\" otherwise\n",
    )
    .unwrap();
    let store = dir.path().join("run");
    let out = run(&[
        "explore",
        file.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.game:2:17"), "{err}");
    assert!(
        err.contains("track t: 0..3 = 7\n                ^"),
        "{err}"
    );
}
