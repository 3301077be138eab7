//! `.game` levels end to end: the real `hsg` explores and analyses games
//! described in the game language, and reports the well-known counts.

use crate::util::{assert_same_content, exploration, explore, hsg, level, ok, run};
use std::process::Stdio;
use std::time::Duration;

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

/// Regression (issue 20, item 7): SIGINT was only seen between chunks, so a
/// `.game` rule in a long loop could only be stopped with `kill -9`. Now the
/// loop sees the stop flag, the explorer discards the chunk it cut short, and
/// the resumed run matches an uninterrupted one.
#[test]
fn sigint_stops_a_game_inside_a_long_loop_and_the_resume_is_identical() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("slow.game");
    std::fs::write(
        &file,
        "players solo\ntrack c: 0..20 = 0\ntrack s: 0..1 = 0\n\
         decision step when c < 20 { for i in 0..299999 { s := 0 } c := c + 1 }\n\
         outcome \"win\" when c == 20\noutcome \"end\" otherwise\n",
    )
    .unwrap();
    let reference = dir.path().join("reference");
    explore(&file, &reference, &[]);
    let store = dir.path().join("run");
    let args = [
        "explore",
        file.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ];
    let child = hsg()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hsg starts");
    std::thread::sleep(Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("hsg ends");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(130) {
        assert!(err.contains("resume"), "{err}");
        assert_eq!(exploration(&store)["status"], "interrupted");
    } else {
        // The machine was fast enough to finish before the signal.
        assert!(out.status.success(), "{err}");
    }
    explore(&file, &store, &[]);
    assert_same_content(&reference, &store);
    assert_eq!(exploration(&store)["outcomes"]["win"], 1);
}

/// Regression (issue 20, item 5): about 4,900 `+` terms made `hsg explore`
/// die of a stack overflow (SIGABRT); now the file is refused at its place.
#[test]
fn a_long_operator_chain_is_refused_not_a_stack_overflow() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("chain.game");
    let chain = vec!["t"; 5_000].join(" + ");
    std::fs::write(
        &file,
        format!("players X\ntrack t: 0..1 = 0\noutcome \"a\" when {chain} == 0\n"),
    )
    .unwrap();
    let store = dir.path().join("run");
    let out = run(&[
        "explore",
        file.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("chain.game:3:"), "{err}");
    assert!(err.contains("more than 1000 operators deep"), "{err}");
}
