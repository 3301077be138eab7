//! Small games in the style of real ones (an animation that ends where it
//! began, a cut-scene won by its start rules, slides on ice made of `again`
//! turns, a fuse that burns for 16,384 `again` turns), explored through
//! `model::Game`, give the state and transition counts of the reference
//! engine's breadth-first driver (`shared/puzzlescript-reference/bfs.js`,
//! whose figures are quoted here; `tests/puzzlescript.rs` runs it again
//! when node is installed).

use crate::game::explore;
use model::Game;
use puzzlescript::{compile, PuzzleScriptGame};

fn bundled(file: &str, level: usize) -> PuzzleScriptGame {
    let path = format!(
        "{}/../../levels/puzzlescript/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let compiled = compile(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    PuzzleScriptGame::new(compiled, level).unwrap_or_else(|e| panic!("{e}"))
}

/// `node bfs.js wave-and-push.txt 0` and `1`: the wave (`action`) is an
/// `again` animation that ends on the grid it started from, which is no
/// transition.
#[test]
fn an_again_chain_back_to_its_start_is_no_transition() {
    let game = bundled("wave-and-push.txt", 1);
    assert_eq!(explore(&game), (1_350, 3_724, 2));
    assert_eq!(game.again_loops(), 0);
    assert_eq!(explore(&bundled("wave-and-push.txt", 2)), (2, 1, 1));
}

/// `node bfs.js curtain-call.txt 0`: the start rules' `again` turns win, so
/// the level is one won state without transitions.
#[test]
fn a_level_won_by_its_start_rules_is_one_won_state() {
    let game = bundled("curtain-call.txt", 1);
    let initial = game.initial_states();
    assert_eq!(initial.len(), 1);
    assert!(game.terminal(&initial[0]).is_some(), "the cut-scene wins");
    assert!(game.render(&initial[0]).contains("(won)"));
    assert_eq!(explore(&game), (1, 0, 1));
    assert_eq!(explore(&bundled("curtain-call.txt", 2)), (8, 18, 1));
}

/// `node bfs.js slippery-crates.txt 0`: slides are `again` turns.
#[test]
fn slides_made_of_again_turns_match_the_reference() {
    assert_eq!(
        explore(&bundled("slippery-crates.txt", 1)),
        (1_918, 5_274, 4)
    );
}

/// `node bfs.js long-fuse.txt 0 --max-again 100000`: every first input
/// lights a fuse that burns for 16,384 `again` turns and then halts; a
/// chain that long ends and is a transition (no step cap decides it).
#[test]
fn a_long_again_chain_that_ends_is_followed_to_its_end() {
    let game = bundled("long-fuse.txt", 1);
    assert_eq!(explore(&game), (15, 31, 0));
    assert_eq!(game.again_loops(), 0);
}
