//! `hsg path` and `hsg why` on bundled Sokoban levels: the printed LURD, replayed by the
//! game itself, wins; `why` names a real critical action and refuses a winnable state.

use crate::util::{explore, level, ok, path_arg, report, run};
use serde_json::Value;
use std::path::Path;

/// Plays `lurd` from the level's initial state with the game's own successors and
/// returns the outcome name of the state it ends in (if terminal), asserting that every
/// letter is a legal move and that upper case letters (and only they) push a box.
fn replay(level_file: &Path, lurd: &str) -> Option<String> {
    let text = std::fs::read_to_string(level_file).expect("level file");
    let name = level_file.display().to_string();
    let loaded = games::load(&name, &text, &games::LevelSelector::First).expect("level loads");
    let game = loaded.game;
    let labels = game.action_labels();
    let mut state = game.initial_states().remove(0);
    let mut next = model::Successors::new();
    for (i, letter) in lurd.chars().enumerate() {
        let action = labels
            .iter()
            .position(|l| l.starts_with(letter.to_ascii_lowercase()))
            .expect("a direction letter") as u16;
        next.clear();
        game.successors(&state, &mut next);
        let after = (0..next.len())
            .filter_map(|k| next.get(k))
            .find(|(mv, _)| mv.action == action)
            .map(|(_, s)| s.to_vec())
            .unwrap_or_else(|| panic!("move {i} `{letter}` is not legal"));
        let boxes = |s: &[u8]| {
            game.render(s)
                .chars()
                .filter(|&c| c == '$' || c == '*')
                .count()
        };
        let pushed = game.render(&state).replace('@', " ").replace('+', ".")
            != game.render(&after).replace('@', " ").replace('+', ".");
        assert_eq!(boxes(&state), boxes(&after));
        assert_eq!(letter.is_ascii_uppercase(), pushed, "move {i} `{letter}`");
        state = after;
    }
    game.terminal(&state)
        .map(|o| game.outcome_names()[usize::from(o)].clone())
}

fn explored(name: &str, dir: &Path) -> std::path::PathBuf {
    let store = dir.join(name);
    explore(
        &level(&format!("sokoban/{name}.xsb")),
        &store,
        &["--analyze"],
    );
    store
}

#[test]
fn the_lurd_path_wins_when_the_game_replays_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["tiny", "twoboxes"] {
        let store = explored(name, dir.path());
        let out = ok(&["path", path_arg(&store), "--to", "win"]);
        let lurd = String::from_utf8(out.stdout).expect("utf-8");
        let lurd = lurd.trim();
        let shortest = report(&store)["hsg"]["shortest_win"]["actions"].as_u64();
        assert_eq!(Some(lurd.len() as u64), shortest, "{name}: {lurd}");
        let outcome = replay(&level(&format!("sokoban/{name}.xsb")), lurd);
        assert_eq!(outcome.as_deref(), Some("win"), "{name}: {lurd}");
    }
}

#[test]
fn the_json_path_lists_states_actions_and_critical_steps() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored("twoboxes", dir.path());
    let out = ok(&["path", path_arg(&store), "--to", "win", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let n = v["length"].as_u64().expect("length") as usize;
    assert_eq!(v["states"].as_array().expect("states").len(), n + 1);
    assert_eq!(v["actions"].as_array().expect("actions").len(), n);
    assert_eq!(v["end_tag"], "win");
    let hyper = v["hyperstates"].as_array().expect("hyperstates");
    let critical: Vec<u64> = v["critical_steps"]
        .as_array()
        .expect("critical steps")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    // A step is critical exactly when it changes hyperstate.
    for i in 0..n {
        assert_eq!(critical.contains(&(i as u64)), hyper[i] != hyper[i + 1]);
    }
    let shortest = &report(&store)["hsg"]["shortest_win"];
    assert_eq!(v["length"], shortest["actions"]);
    // The shortest path in actions need not be shortest in critical actions.
    assert!(v["critical_actions"].as_u64() >= shortest["critical_actions"].as_u64());
    let actions = ok(&[
        "path",
        path_arg(&store),
        "--to",
        "win",
        "--format",
        "actions",
    ]);
    let words = String::from_utf8(actions.stdout).expect("utf-8");
    assert_eq!(words.split_whitespace().count(), n);
}

#[test]
fn why_names_the_critical_action_that_lost_the_game() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored("twoboxes", dir.path());
    let out = ok(&["path", path_arg(&store), "--to", "fail", "--format", "json"]);
    let path: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let lost = path["end_state"]
        .as_u64()
        .expect("a fail state")
        .to_string();
    let out = ok(&["why", path_arg(&store), &lost, "--json"]);
    let why: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(why["tag"], "fail");
    let step = why["fatal_step"].as_u64().expect("a fatal step") as usize;
    let fatal = &why["fatal_action"];
    assert_eq!(fatal["from_tag"], "eventually_winnable");
    assert!(["fail", "implicitly_failed"].contains(&fatal["to_tag"].as_str().unwrap()));
    let steps = &why["path"];
    assert!(steps["critical_steps"]
        .as_array()
        .unwrap()
        .contains(&Value::from(step)));
    assert_eq!(steps["states"][step], fatal["from"]);
    assert_eq!(steps["states"][step + 1], fatal["to"]);
    // The action is a real transition of the store: the path to its target from its
    // source is that one action.
    let from = fatal["from"].to_string();
    let to = fatal["to"].to_string();
    let out = ok(&[
        "path",
        path_arg(&store),
        "--from",
        &from,
        "--to",
        &to,
        "--format",
        "actions",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        fatal["action"].as_str().unwrap()
    );
    // The text form draws both boards.
    let text = ok(&["why", path_arg(&store), &lost]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("the losing action is step"), "{text}");
    assert!(text.contains(&format!("before (state {from})")), "{text}");
    assert_eq!(text.matches("#######").count(), 4, "{text}");
}

#[test]
fn why_refuses_a_state_that_can_still_win_and_bad_input_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = explored("tiny", dir.path());
    let out = run(&["why", path_arg(&store), "0"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state 0 can still win"), "{err}");
    for args in [
        vec!["why", path_arg(&store), "123456"],
        vec!["path", path_arg(&store), "--to", "somewhere"],
        vec!["path", path_arg(&store), "--to", "win", "--from", "99999"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    // A level that cannot be won: the path to a win does not exist.
    let nowin = dir.path().join("nowin");
    explore(&level("sokoban/nowin.xsb"), &nowin, &["--analyze"]);
    let out = run(&["path", path_arg(&nowin), "--to", "win"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no win is reachable"));
}

/// Regression (issue 37): "shortest win: 39 actions, 2 critical" on room3 mixed two
/// walks: the actions of the walk `hsg path --to win` prints and the fewest critical
/// actions of any winning walk (that walk has 3). Both figures describe the printed walk.
/// On the first Boxoban level the walk has 50 actions and 9 critical ones, while a win
/// with 7 critical actions exists (the shortest HSG path, a figure of its own).
#[test]
fn the_shortest_win_figures_describe_the_walk_that_path_prints() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    crate::util::explore(
        &crate::util::level("sokoban/boxoban-hard-000-first20.txt"),
        &store,
        &["--analyze"],
    );
    let store_arg = store.to_str().expect("utf-8");
    let out = crate::util::ok(&["path", store_arg, "--to", "win", "--format", "json"]);
    let walk: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let hsg = &crate::util::report(&store)["hsg"];
    let shortest = &hsg["shortest_win"];
    assert_eq!(shortest["actions"], walk["length"], "{shortest} {walk}");
    assert_eq!(
        shortest["critical_actions"], walk["critical_actions"],
        "{shortest}"
    );
    // The level tells the two figures apart: the fewest critical actions of a win.
    let fewest = &hsg["winning_paths"]["lengths"]["min"];
    assert!(
        fewest.as_u64() < walk["critical_actions"].as_u64(),
        "{fewest} {walk}"
    );
    let outline = crate::util::ok(&["analyze", store_arg]);
    let text = String::from_utf8_lossy(&outline.stdout);
    let said = format!(
        "shortest win: {} actions, {} critical",
        walk["length"], walk["critical_actions"]
    );
    assert!(text.contains(&said), "{text}");
}
