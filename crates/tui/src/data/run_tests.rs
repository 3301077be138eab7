//! Tests of the store backend: the fixture level written into a real run directory
//! with `store::RunWriter`, opened (analysed on first open), exported, and watched
//! while a writer is still exploring it.

use super::fixture::{explore, TWO_BOXES};
use super::run::{open_store, preview};
use super::{LiveFigures, RunState, Workbench};
use model::StateWidth;
use std::collections::BTreeMap;
use std::path::Path;
use store::{Edge, OpenMode, Progress, RunIdentity, RunStatus, RunWriter};

/// Writes the fixture level into `dir`; with `finish` false the run stays "running"
/// after a checkpoint of its first `stop_at` expanded states, and the writer is returned.
pub(super) fn write_store(dir: &Path, finish: bool, stop_at: u64) -> Option<RunWriter> {
    write_store_of_kind(dir, finish, stop_at, "sokoban")
}

/// [`write_store`] with the identity naming the game kind `kind`.
fn write_store_of_kind(dir: &Path, finish: bool, stop_at: u64, kind: &str) -> Option<RunWriter> {
    let level = games::load("l.xsb", TWO_BOXES, &games::LevelSelector::First).unwrap();
    let game = level.game;
    let x = explore(game.as_ref(), 100_000);
    let width = game.state_width();
    let identity = RunIdentity::new(
        kind.to_string(),
        level.title.clone(),
        level.text.clone(),
        BTreeMap::from([("max_states".to_string(), "100000".to_string())]),
        width.max_len() as u32 + if width.fixed().is_some() { 0 } else { 2 },
        matches!(width, StateWidth::Variable { .. }),
        game.action_labels(),
        game.outcome_names(),
        1,
        false,
    );
    let (mut w, _) = RunWriter::open(dir, identity, OpenMode::CreateNew).unwrap();
    let expanded = if finish { x.expanded } else { stop_at };
    let edges_of = edges_of(&x);
    // States known after expanding the first `expanded` states.
    let known = if finish {
        x.records.len() as u64
    } else {
        1 + edges_of[..expanded as usize]
            .iter()
            .flatten()
            .map(|e| e.target)
            .max()
            .unwrap_or(0)
    };
    for r in &x.records[..known as usize] {
        w.append_state(r).unwrap();
    }
    for (s, row) in edges_of.iter().enumerate().take(expanded as usize) {
        w.append_edges(s as u64, row, None).unwrap();
    }
    for &(s, o) in x.terminals.iter().filter(|t| t.0 < known) {
        w.mark_terminal(s, o).unwrap();
    }
    w.set_layers(&layers_of(&x, known));
    let progress = Progress {
        states: known,
        expanded,
        phase: "exploring".into(),
        ..Progress::default()
    };
    if finish {
        w.finish(RunStatus::Complete, progress).unwrap();
        None
    } else {
        w.checkpoint(serde_json::json!({}), progress).unwrap();
        w.sync_manifest().unwrap();
        Some(w)
    }
}

/// The rows of the fixture's edges, by source.
fn edges_of(x: &super::fixture::Explored) -> Vec<Vec<Edge>> {
    let mut edges_of: Vec<Vec<Edge>> = vec![Vec::new(); x.expanded as usize];
    for &(s, action, target) in &x.edges {
        edges_of[s as usize].push(Edge { action, target });
    }
    edges_of
}

/// The start of every BFS layer among the first `known` states.
fn layers_of(x: &super::fixture::Explored, known: u64) -> Vec<u64> {
    let mut layers = vec![0u64];
    for (id, pair) in x.depths[..known as usize].windows(2).enumerate() {
        if pair[1] != pair[0] {
            layers.push(id as u64 + 1);
        }
    }
    layers
}

/// Explores the rest of the fixture level into the run `w` left running by
/// [`write_store`] and finishes it: the run is complete.
pub(super) fn complete_store(mut w: RunWriter) {
    let level = games::load("l.xsb", TWO_BOXES, &games::LevelSelector::First).unwrap();
    let x = explore(level.game.as_ref(), 100_000);
    let known = w.state_count();
    for r in &x.records[known as usize..] {
        w.append_state(r).unwrap();
    }
    let rows = edges_of(&x);
    for s in w.expanded_count()..x.expanded {
        w.append_edges(s, &rows[s as usize], None).unwrap();
    }
    for &(s, o) in x.terminals.iter().filter(|t| t.0 >= known) {
        w.mark_terminal(s, o).unwrap();
    }
    let all = x.records.len() as u64;
    w.set_layers(&layers_of(&x, all));
    let progress = Progress {
        states: all,
        expanded: x.expanded,
        phase: "done".into(),
        ..Progress::default()
    };
    w.finish(RunStatus::Complete, progress).unwrap();
}

#[test]
fn a_store_without_analysis_is_analysed_on_open_and_matches_the_fixture() {
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    let phases = std::cell::RefCell::new(Vec::new());
    let bench = open_store(dir.path(), &|p| phases.borrow_mut().push(p.to_string())).unwrap();
    assert!(phases.borrow().iter().any(|p| p.contains("analysing")));
    assert!(dir.path().join("hsg/summary.json").exists());
    let fixture = super::fixture::two_boxes(None).unwrap();
    let (o, f) = (bench.overview(), fixture.overview());
    assert_eq!(
        (o.states, o.hyperstates, o.tags),
        (f.states, f.hyperstates, f.tags)
    );
    assert_eq!(o.run_state, RunState::Complete);
    assert_eq!(o.bfs_depths, f.bfs_depths);
    assert_eq!(o.stale_note, None);
    let root = bench.root();
    assert_eq!(bench.member(root, 0), fixture.member(root, 0));
    assert_eq!(bench.critical_in(5, 10), fixture.critical_in(5, 10));
    assert!(!bench.is_live());

    let again = open_store(dir.path(), &|p| assert!(!p.contains("analysing"))).unwrap();
    assert_eq!(again.hyperstate_count(), bench.hyperstate_count());
}

#[test]
fn the_preview_is_the_overview_of_the_opened_store() {
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    assert_eq!(preview(dir.path()), None, "no analysis saved yet");
    let bench = open_store(dir.path(), &|_| {}).unwrap();
    assert_eq!(preview(dir.path()), Some(bench.overview()));
}

#[test]
fn svg_export_of_a_store_writes_the_picture_and_caches_the_layout() {
    let dir = tempfile::tempdir().unwrap();
    write_store(dir.path(), true, 0);
    let out = dir.path().join("graph.svg");
    let stats = crate::export_svg(dir.path(), &out).unwrap();
    assert!(stats.whole && stats.nodes > 10);
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with("<svg"));
    let cached = std::fs::read_dir(dir.path().join("hsg"))
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("tui-layout-"));
    assert!(cached);
    // The second export reads the cached layout and draws the same picture.
    crate::export_svg(dir.path(), &out).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), svg);
}

#[cfg(test)]
#[path = "loader_tests.rs"]
mod loader_tests;

#[test]
fn a_running_store_is_live_and_its_progress_is_reread() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = write_store(dir.path(), false, 200).unwrap();
    let bench = open_store(dir.path(), &|_| {}).unwrap();
    assert!(bench.is_live());
    let o = bench.overview();
    assert_eq!(o.run_state, RunState::Running);
    assert!(
        o.open_states > 0,
        "a partial exploration leaves open states"
    );
    let first = bench.live_progress().unwrap();
    assert_eq!(first.expanded, 200);
    writer
        .publish_progress(Progress {
            states: 5000,
            expanded: 4000,
            states_per_sec: 123.0,
            ..Progress::default()
        })
        .unwrap();
    writer.sync_manifest().unwrap();
    let later = bench.live_progress().unwrap();
    assert_eq!((later.states, later.expanded), (5000, 4000));
    assert_eq!(later.state, Some(RunState::Running));
    assert_eq!(later.live_hsg, None);
    writer
        .publish_progress(Progress {
            states: 6000,
            live_hsg: Some(
                LiveFigures {
                    hsg: hsg::LiveHsg {
                        hyperstates: 42,
                        depth: 3,
                        winning: 1,
                        dead_states: 700,
                        dead_hyperstates: 9,
                    },
                    depth_limit: Some(4),
                    held_back: 0,
                }
                .to_json()
                .unwrap(),
            ),
            ..Progress::default()
        })
        .unwrap();
    writer.sync_manifest().unwrap();
    let live = bench.live_progress().unwrap().live_hsg.unwrap().unwrap();
    assert_eq!(
        (live.hsg.hyperstates, live.hsg.depth, live.hsg.winning),
        (42, 3, 1)
    );
    assert_eq!((live.hsg.dead_states, live.hsg.dead_hyperstates), (700, 9));
    assert_eq!(live.depth_limit, Some(4));
    writer
        .publish_progress(Progress {
            live_hsg: Some(serde_json::json!({"hyperstates": 42, "depth": 3})),
            ..Progress::default()
        })
        .unwrap();
    writer.sync_manifest().unwrap();
    let unreadable = bench.live_progress().unwrap().live_hsg.unwrap();
    let err = unreadable.unwrap_err();
    assert!(err.contains("missing field"), "{err}");
}

#[test]
fn a_directory_that_is_not_a_store_gives_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = open_store(dir.path(), &|_| {}).err().unwrap().to_string();
    assert!(err.contains("MANIFEST"), "{err}");
}

#[test]
fn a_game_that_does_not_rebuild_is_named_in_the_member_pane() {
    let dir = tempfile::tempdir().unwrap();
    write_store_of_kind(dir.path(), true, 0, "chess");
    let bench = open_store(dir.path(), &|_| {}).unwrap();
    let text = bench.state_text(0).unwrap();
    assert!(text.contains("does not rebuild"), "{text}");
    assert!(text.contains("\"chess\""), "{text}");
    assert!(text.contains("state bytes: "), "{text}");
}
