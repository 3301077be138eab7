//! Tests of Fling! levels through the crate's loader: format detection, the
//! canonical text round trip, the shipped HOG2 files and the game's states.

use super::*;
use crate::test_support::census;
use model::{Game, Successors};

fn fixture(name: &str) -> String {
    let path = format!("{}/../../levels/fling/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn txt_files_dispatch_to_fling_and_reload_from_their_canonical_text() {
    let text = fixture("level3.txt");
    let levels = crate::list_levels("level3.txt", &text).unwrap();
    assert!(levels.len() > 1);
    for (index, title) in levels {
        let level = crate::load("level3.txt", &text, &LevelSelector::Index(index)).unwrap();
        assert_eq!(level.game.kind(), "fling");
        assert_eq!(level.title, title);
        let again = crate::load("level.fling", &level.text, &LevelSelector::First).unwrap();
        assert_eq!(again.text, level.text);
        assert_eq!(again.game.initial_states(), level.game.initial_states());
    }
    let by_title = crate::load(
        "level3.txt",
        &text,
        &LevelSelector::Title("level3 #2".into()),
    );
    assert_eq!(by_title.unwrap().index, 2);
}

#[test]
fn boards_are_titled_after_their_file_and_number() {
    let several = fixture("level10.txt");
    let titles = crate::list_levels("levels/fling/level10.txt", &several).unwrap();
    assert_eq!(titles[0], (1, "level10 #1".to_string()));
    assert_eq!(titles[6], (7, "level10 #7".to_string()));
    let third = crate::load("level10.txt", &several, &LevelSelector::Index(3)).unwrap();
    assert_eq!(third.title, "level10 #3");
    // A file of one board is titled by its name alone.
    let single = crate::load("dir/corner.txt", &third.text, &LevelSelector::First).unwrap();
    assert_eq!(single.title, "corner");
}

#[test]
fn every_state_removes_a_piece_and_one_piece_wins() {
    let text = fixture("level10.txt");
    let level = crate::load("level10.txt", &text, &LevelSelector::First).unwrap();
    let game = level.game.as_ref();
    let start = game.initial_states().remove(0);
    let pieces = decode(&start).unwrap().pieces();
    let mut out = Successors::new();
    game.successors(&start, &mut out);
    assert!(!out.is_empty());
    for (mv, child) in out.iter() {
        assert_eq!(decode(child).unwrap().pieces(), pieces - 1);
        assert!(game.action_labels()[usize::from(mv.action)].contains(','));
    }
    let found = census(game, 1_000_000).unwrap();
    assert!(found.terminals > 0 && found.states > found.terminals);
    assert_eq!(
        game.terminal(&encode(Board::from_mask(1 << 20).unwrap())),
        Some(0)
    );
    assert_eq!(
        game.terminal(&encode(Board::from_mask(0b1001 << 7 | 1).unwrap())),
        None
    );
    assert_eq!(
        game.terminal(&encode(Board::from_mask(1 | 1 << 8).unwrap())),
        Some(1)
    );
}

#[test]
fn render_and_projection() {
    let game = Fling::new(Board::from_mask(0b11 | 1 << 55).unwrap());
    let state = game.initial_states().remove(0);
    assert!(game.render(&state).starts_with("oo.....\n"));
    assert_eq!(game.features().len(), CELLS);
    let mut projected = Vec::new();
    game.project(&state, &[0, 55], &mut projected);
    assert_eq!(decode(&projected).unwrap().mask(), 0b10);
}

#[test]
fn a_file_without_boards_is_an_error() {
    let err = load("empty.fling", "----\n", &LevelSelector::First).unwrap_err();
    assert!(err.to_string().contains("no Fling! board"), "{err}");
}
