//! `hsg compare` and `hsg tree` on the `.game` levels: the paper's equivalences
//! between tic-tac-toe and its variants, the first difference of a genuinely
//! different game, similarity by sampling, and a game tree read back as a store.

use crate::util::{level, ok, path_arg, run};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn game(name: &str) -> PathBuf {
    level(&format!("grammar/{name}.game"))
}

/// `hsg compare A B --equivalence MODE --json` as JSON, asserting exit code 0.
fn compare(a: &Path, b: &Path, mode: &str) -> Value {
    let out = ok(&[
        "compare",
        path_arg(a),
        path_arg(b),
        "--equivalence",
        mode,
        "--json",
    ]);
    serde_json::from_slice(&out.stdout).expect("compare prints JSON")
}

#[test]
fn tictactoe_and_three_to_fifteen_are_equivalent_up_to_relabeling() {
    let c = compare(&game("tictactoe"), &game("three-to-fifteen"), "tree");
    assert_eq!(c["equivalent"], true, "{c:#}");
    let depths: Vec<u64> = c["witness"]["nodes_per_depth"]
        .as_array()
        .expect("per-depth counts")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert_eq!(
        depths,
        [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
    assert_eq!(c["a"]["nodes"], 549_946);
    assert_eq!(c["a"]["terminals"], 255_168);
    assert_eq!(c["witness"]["players"].as_array().map(Vec::len), Some(2));
}

#[test]
fn misere_is_equivalent_up_to_relabeling_outcomes() {
    let c = compare(&game("tictactoe"), &game("tictactoe-misere"), "tree");
    assert_eq!(c["equivalent"], true, "{c:#}");
    let outcomes = c["witness"]["outcomes"].as_array().expect("outcome pairs");
    assert!(
        outcomes
            .iter()
            .any(|p| p["a"] == "x wins" && p["b"] != "x wins"),
        "{outcomes:?}"
    );
}

#[test]
fn end_of_turn_and_restricted_opening_are_agency_equivalent_only() {
    for variant in ["tictactoe-end-of-turn", "tictactoe-restricted"] {
        let agency = compare(&game("tictactoe"), &game(variant), "agency");
        assert_eq!(agency["equivalent"], true, "{variant}: {agency:#}");
        let tree = compare(&game("tictactoe"), &game(variant), "tree");
        assert_eq!(tree["equivalent"], false, "{variant}");
    }
}

#[test]
fn a_game_without_diagonals_differs_at_the_first_diagonal_win() {
    let text = std::fs::read_to_string(game("tictactoe")).expect("tictactoe.game");
    let changed = text.replace("  or line(p, 0, 4, 8) or line(p, 2, 4, 6)", "");
    assert_ne!(
        changed, text,
        "the diagonal rule is where the test expects it"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let variant = dir.path().join("no-diagonals.game");
    std::fs::write(&variant, changed).expect("written");
    let c = compare(&game("tictactoe"), &variant, "tree");
    assert_eq!(c["equivalent"], false);
    let expected: Vec<String> = (0..7).map(|i| format!("place({i})")).collect();
    assert_eq!(c["difference"]["path_a"], serde_json::json!(expected));
    assert_eq!(c["difference"]["path_b"], serde_json::json!(expected));
    let reason = c["difference"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("A: terminal, outcome `x wins`; B: player 2 chooses among 2"),
        "{reason}"
    );
    // The human form names the path too, and a difference is not a failure.
    let out = ok(&["compare", path_arg(&game("tictactoe")), path_arg(&variant)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("are not game tree equivalent"), "{text}");
    assert!(text.contains("place(0) > place(1)"), "{text}");
}

#[test]
fn random_start_is_not_agency_equivalent_to_a_fixed_start() {
    let c = compare(
        &game("tictactoe"),
        &game("tictactoe-random-start"),
        "agency",
    );
    assert_eq!(c["equivalent"], false);
    let reason = c["difference"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("chance node with 2 outcomes (1/2, 1/2)"),
        "{reason}"
    );
}

#[test]
fn similarity_by_sampling_is_one_under_the_magic_square_and_reproducible() {
    let dir = tempfile::tempdir().expect("temp dir");
    let map = dir.path().join("magic.map");
    let magic = [2, 7, 6, 9, 5, 1, 4, 3, 8];
    let mut lines = vec!["turn -> turn".to_string()];
    lines.extend(
        magic
            .iter()
            .enumerate()
            .map(|(cell, n)| format!("board[{cell}] -> owner[{n}]")),
    );
    std::fs::write(&map, lines.join("\n")).expect("written");
    let args = |seed: &str| {
        let (a, b) = (game("tictactoe"), game("three-to-fifteen"));
        let out = ok(&[
            "compare",
            path_arg(&a),
            path_arg(&b),
            "--similarity",
            "--map",
            path_arg(&map),
            "--depth",
            "2",
            "--samples",
            "40",
            "--seed",
            seed,
            "--json",
        ]);
        serde_json::from_slice::<Value>(&out.stdout).expect("JSON")
    };
    let s = args("3");
    assert_eq!(s["similarity"], 1.0, "{s:#}");
    assert_eq!(s["matched"], 40);
    assert!(s["low"].as_f64().is_some_and(|l| l > 0.9 && l < 1.0));
    assert_eq!(args("3"), s);
    // Swapping two cells' numbers breaks the correspondence for some states.
    let swapped = lines
        .join("\n")
        .replace("owner[2]", "owner[X]")
        .replace("owner[7]", "owner[2]")
        .replace("owner[X]", "owner[7]");
    std::fs::write(&map, swapped).expect("written");
    let s = args("3");
    assert!(s["similarity"].as_f64().is_some_and(|x| x < 1.0), "{s:#}");
}

#[test]
fn a_game_tree_is_a_store_the_pipeline_reads() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("rps");
    ok(&[
        "tree",
        path_arg(&game("rock-paper-scissors")),
        "--store",
        path_arg(&store),
    ]);
    // The analysis runs on the tree like on an exploration (targeting one outcome).
    let out = ok(&["report", path_arg(&store), "--json", "--target", "a wins"]);
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(r["exploration"]["states"], 10, "{r:#}");
    assert_eq!(r["exploration"]["transitions"], 9);
    assert_eq!(r["exploration"]["options"]["game_tree"], "true");
    assert_eq!(r["game"], "grammar");
    let store = dir.path().join("ttt");
    ok(&[
        "tree",
        path_arg(&game("tictactoe")),
        "--store",
        path_arg(&store),
    ]);
    let out = ok(&["report", path_arg(&store), "--json", "--no-analysis"]);
    let r: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let e = &r["exploration"];
    assert_eq!(e["states"], 549_946);
    assert_eq!(e["outcomes"]["x wins"], 131_184);
    assert_eq!(e["outcomes"]["o wins"], 77_904);
    assert_eq!(e["outcomes"]["draw"], 46_080);
}

#[test]
fn an_infinite_or_huge_tree_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("t");
    let out = run(&["tree", path_arg(&game("pig")), "--store", path_arg(&store)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("returns to a state it passed through"),
        "{err}"
    );
    let (a, b) = (game("tictactoe"), game("three-to-fifteen"));
    let out = run(&[
        "compare",
        path_arg(&a),
        path_arg(&b),
        "--max-nodes",
        "1000",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exceeds 1000 nodes"), "{err}");
}
