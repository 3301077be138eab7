//! Movement fields for the layers that can move alone (`compile::move_slots`)
//! change no successor: games compiled with them and with a field for every
//! layer give the same successors, state by state, in the same order.

use crate::no_match::{compare_games, compare_suite_by};
use puzzlescript::compile::compile_every_layer_moving;
use puzzlescript::{compile, PuzzleScriptGame};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Compares level `level` of `source` compiled both ways.
fn compare_slots(
    source: &str,
    level: usize,
    budget: Duration,
    stop: &Arc<AtomicBool>,
) -> Option<usize> {
    let with = PuzzleScriptGame::new(compile("case", source).ok()?, level).ok()?;
    let every = compile_every_layer_moving("case", source).ok()?;
    let without = PuzzleScriptGame::new(every, level).ok()?;
    compare_games(&with, &without, source, level, budget, stop)
}

#[test]
fn movement_slots_change_no_successor_in_the_suite() {
    let Some((games, states)) = compare_suite_by(|_| true, &compare_slots) else {
        return;
    };
    assert!(
        games >= 10 && states >= 1_000,
        "{games} games, {states} states compared"
    );
}

/// Fourteen layers of which two can move (the player's and crates', and
/// one filler the player pushes): a crate's appearance tests a movement of
/// marks, which never move (the dead slot); a light tests that marks are
/// stationary; fillers are removed (their layers' movements cleared).
const STILL_LAYERS: &str = "title still layers\nOBJECTS\nBackground\nblack\nPlayer\nwhite\n\
    Crate\nred\nWall\nblue\nMark\ngreen\nLight\nyellow\nF0\ngrey\nF1\ngrey\nF2\ngrey\nF3\ngrey\n\
    F4\ngrey\nF5\ngrey\nF6\ngrey\nF7\ngrey\nF8\ngrey\nF9\ngrey\n\
    LEGEND\n. = Background\nP = Player\n* = Crate\n# = Wall\nm = Mark\n0 = F0\n1 = F1\n2 = F2\n\
    SOUNDS\nCOLLISIONLAYERS\nBackground\nMark\nLight\nF0\nF1\nF2\nF3\nF4\nF5\nF6\nF7\nF8\nF9\n\
    Player, Wall, Crate\nRULES\n\
    [ > Player | Crate ] -> [ > Player | > Crate ]\n\
    [ > Player | F1 ] -> [ > Player | > F1 ]\n\
    [ moving Mark ] -> [ Crate ]\n\
    [ stationary Mark | Player ] -> [ Mark Light | Player ]\n\
    [ Player F0 ] -> [ Player ]\n\
    [ Player F2 ] -> [ Player F3 ]\n\
    WINCONDITIONS\nLEVELS\n\
    #########\n#.P.*.m.#\n#.1.0.*.#\n#.m..2..#\n#########\n";

#[test]
fn still_layers_keep_no_field_and_change_no_successor() {
    let g = compile("case", STILL_LAYERS).expect("compiles");
    let every = compile_every_layer_moving("case", STILL_LAYERS).expect("compiles");
    assert_eq!((g.mov_words, every.mov_words), (1, 2));
    let stop = Arc::new(AtomicBool::new(false));
    let budget = Duration::from_secs(20);
    let states = compare_slots(STILL_LAYERS, 1, budget, &stop);
    assert!(
        states.is_some_and(|n| n >= 100),
        "{states:?} states compared"
    );
}
