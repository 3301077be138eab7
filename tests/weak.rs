//! Weak equivalence end to end: `hsg weak` and `hsg features` on explored Sokoban
//! levels, checked against a quotient built here from the stored states (a state is the
//! player's cell then the box cells, one byte each on these levels) and condensed by
//! the oracle's own SCC.

use crate::oracle;
use crate::util::{explore, level, ok, path_arg, report, run};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn weak_json(store: &Path, ignore: &[&str]) -> Value {
    let mut args = vec!["weak", path_arg(store), "--json"];
    for feature in ignore {
        args.extend_from_slice(&["--ignore", feature]);
    }
    serde_json::from_slice(&ok(&args).stdout).expect("weak report is JSON")
}

/// The quotient ignoring the player, by brute force: (classes, hyperstates).
fn quotient_without_player(store: &Path) -> (u64, u64) {
    let run = store::Run::open(store).expect("store opens");
    let mut class_of_boxes: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
    let mut class = Vec::new();
    for id in 0..run.state_count() {
        let boxes = run.state(id)[1..].to_vec();
        let next = class_of_boxes.len() as u32;
        class.push(*class_of_boxes.entry(boxes).or_insert(next));
    }
    let mut edges = BTreeSet::new();
    for id in 0..run.state_count() {
        for e in run.out_edges(id) {
            edges.insert((class[id as usize], 0u8, class[e.target as usize]));
        }
    }
    let edges: Vec<_> = edges.into_iter().collect();
    let (_, hyperstates) = oracle::components(class_of_boxes.len(), &edges);
    (class_of_boxes.len() as u64, hyperstates as u64)
}

#[test]
fn ignoring_the_player_matches_a_brute_force_quotient() {
    for name in ["tiny.xsb", "twoboxes.xsb"] {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("run");
        explore(&level(&format!("sokoban/{name}")), &store, &[]);
        let exact = report(&store)["hsg"]["hyperstates"].as_u64().unwrap();
        let w = weak_json(&store, &["player"]);
        let c = &w["comparison"];
        let (classes, hyperstates) = quotient_without_player(&store);
        assert_eq!(c["quotient_states"].as_u64(), Some(classes), "{name}");
        assert_eq!(c["hyperstates"].as_u64(), Some(hyperstates), "{name}");
        assert_eq!(w["hsg"]["hyperstates"].as_u64(), Some(hyperstates));
        assert_eq!(c["exact_hyperstates"].as_u64(), Some(exact));
        assert!(hyperstates < exact, "{name}: {hyperstates} vs {exact}");
        assert_eq!(w["ignored"], serde_json::json!(["player"]));
    }
}

#[test]
fn ignoring_every_feature_leaves_one_state() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let w = weak_json(&store, &["player", "boxes"]);
    let c = &w["comparison"];
    assert_eq!(c["quotient_states"].as_u64(), Some(1));
    assert_eq!(c["hyperstates"].as_u64(), Some(1));
    // The one class holds the win: a leaf with a target state.
    assert_eq!(c["root_tag"], "win");
    assert_eq!(c["conflicting_classes"].as_u64(), Some(1));
    let text =
        String::from_utf8(ok(&["weak", path_arg(&store), "--ignore", "boxes"]).stdout).unwrap();
    assert!(text.contains("ignoring boxes:"), "{text}");
    assert!(text.contains("impact"), "{text}");
}

#[test]
fn features_are_ranked_by_score() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("run");
    explore(&level("sokoban/twoboxes.xsb"), &store, &[]);
    let out = ok(&["features", path_arg(&store), "--json"]);
    let f: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exact = report(&store)["hsg"]["hyperstates"].as_u64().unwrap();
    assert_eq!(f["exact_hyperstates"].as_u64(), Some(exact));
    let ranks = f["features"].as_array().unwrap();
    let names: BTreeSet<_> = ranks
        .iter()
        .map(|r| r["feature"].as_str().unwrap())
        .collect();
    assert_eq!(names, BTreeSet::from(["player", "boxes"]));
    let scores: Vec<f64> = ranks
        .iter()
        .map(|r| r["comparison"]["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    // The player's line is the same weak HSG as `hsg weak --ignore player`.
    let player = ranks.iter().find(|r| r["feature"] == "player").unwrap();
    let w = weak_json(&store, &["player"]);
    assert_eq!(player["comparison"], w["comparison"]);
    let text = String::from_utf8(ok(&["features", path_arg(&store)]).stdout).unwrap();
    assert!(text.contains("player") && text.contains("boxes"), "{text}");
}

#[test]
fn an_unknown_feature_is_refused_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let out = run(&["weak", path_arg(&store), "--ignore", "timer"]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"timer\"") && err.contains("player, boxes"),
        "{err}"
    );
}
