//! Play mode end to end: the real `hsg tui` in tmux plays room3 into a dead end (the
//! losing move marked before it is made, the loss dated after), restarts, and plays
//! the shortest solution `hsg path` prints to a win.

use crate::util::{explore, hsg, level, path_arg};
use crate::workbench::{hsg_cmd, quoted, Tmux};
use std::path::Path;
use std::time::{Duration, Instant};

/// Room3 has 2.2 M states: loading its analysis and searching the nearest win take
/// seconds in a release build, longer in a debug one.
const LONG_PATIENCE: Duration = Duration::from_secs(240);

/// The action labels of `hsg path DIR --to WHERE`.
fn path_actions(store: &Path, to: &str) -> Vec<String> {
    let out = hsg()
        .args(["path", path_arg(store), "--to", to, "--format", "actions"])
        .output()
        .expect("hsg path runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    first.split_whitespace().map(str::to_string).collect()
}

/// The tmux key for a Sokoban action label; every other move goes by WASD, so that
/// both sets of keys are played.
fn key_for(label: &str, i: usize) -> &'static str {
    match (label, i % 2) {
        ("up", 0) => "Up",
        ("down", 0) => "Down",
        ("left", 0) => "Left",
        ("right", 0) => "Right",
        ("up", _) => "w",
        ("down", _) => "s",
        ("left", _) => "a",
        ("right", _) => "d",
        (other, _) => panic!("not a Sokoban action: {other}"),
    }
}

/// Waits up to [`LONG_PATIENCE`] for the screen to hold every one of `words`.
fn wait_long(tmux: &Tmux, words: &[&str]) -> String {
    wait_long_for(tmux, &format!("{words:?}"), |s| {
        words.iter().all(|w| s.contains(w))
    })
}

/// Waits up to [`LONG_PATIENCE`] for `ready` to hold of the screen.
fn wait_long_for(tmux: &Tmux, what: &str, ready: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let screen = tmux.screen(false);
        if ready(&screen) {
            return screen;
        }
        assert!(
            start.elapsed() < LONG_PATIENCE,
            "timed out waiting for {what}; screen:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The header line (tabs, then the hyperstate on show and its tag), without the
/// spaces tmux leaves out at its end anyway.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default().trim_end()
}

/// The line of the moves pane that lists `label`.
fn move_line<'a>(screen: &'a str, label: &str) -> &'a str {
    let pattern = format!(" {label} ");
    screen
        .lines()
        .find(|l| {
            l.split('│')
                .nth(3)
                .is_some_and(|pane| pane.contains(&pattern) && pane.contains(" h"))
        })
        .unwrap_or_else(|| panic!("no move {label} on screen:\n{screen}"))
}

#[test]
fn play_mode_plays_room3_into_a_dead_end_and_to_a_win() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("room3");
    explore(&level("sokoban/room3.xsb"), &store, &["--analyze"]);
    let win = path_actions(&store, "win");
    let dead = path_actions(&store, "dead");
    assert!(!win.is_empty() && !dead.is_empty());

    let command = format!("{} tui {}", hsg_cmd(), quoted(&store));
    let tmux = Tmux::start(&command, dir.path());
    // The header names the selection once the analysis has loaded.
    wait_long_for(&tmux, "the root's tag in the header", |s| {
        header(s).ends_with(" e-win")
    });
    tmux.keys(&["p"]);
    let shortest = format!("win in {} actions", win.len());
    wait_long(&tmux, &["Play: room3", "still winnable", &shortest]);

    // Into the dead end: every move but the last keeps the level winnable.
    let (fatal, before) = dead.split_last().expect("a path");
    for (i, label) in before.iter().enumerate() {
        tmux.keys(&[key_for(label, i)]);
    }
    let screen = wait_long(
        &tmux,
        &[&format!("Move {}", before.len()), "still winnable"],
    );
    let line = move_line(&screen, fatal);
    assert!(
        line.contains('✗'),
        "the losing move is not marked:\n{screen}"
    );
    tmux.keys(&[key_for(fatal, 0)]);
    let lost = format!("LOST since move {}", dead.len());
    let screen = wait_long(
        &tmux,
        &[&lost, "critical (irreversible)", "no win reachable"],
    );
    assert!(!screen.contains("still winnable"), "{screen}");

    // Undo the fatal move, then restart.
    tmux.keys(&["z"]);
    wait_long(
        &tmux,
        &[&format!("Move {}", before.len()), "still winnable"],
    );
    tmux.keys(&["r"]);
    wait_long(&tmux, &["Move 0 ", "still winnable", &shortest]);

    // The shortest solution, key by key, wins.
    for (i, label) in win.iter().enumerate() {
        tmux.keys(&[key_for(label, i)]);
    }
    let won = format!("Move {}", win.len());
    wait_long(&tmux, &[&won, "GAME OVER: win", "this is a win"]);
    // Escape must be read before `q` is sent: the two bytes in one read are Alt-q, which
    // the workbench ignores, and the test would wait for an exit that never comes.
    tmux.keys(&["Escape"]);
    tmux.wait_for("the workbench at the win", |s| {
        header(s).ends_with(" win") && !s.contains("Play: room3")
    });
    tmux.quit_cleanly();
}
