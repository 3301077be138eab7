//! Runs of cell-local groups applied in one pass over the cells
//! (`compile::cell_runs`) change no successor: every game of the shared
//! conformance suite, and a game that redraws marks and decoration with
//! rules of one cell, explored with the runs on and off, give the same
//! successors, state by state, in the same order.

use crate::no_match::{assert_level_unchanged, assert_suite_unchanged};
use puzzlescript::compile;

#[test]
fn cell_runs_change_no_successor() {
    assert_suite_unchanged(|g| g.set_cell_runs(false));
}

/// Ten late rules of one cell: marks redrawn at the player and the crates
/// on every turn (never recorded), decoration that changes nothing once
/// drawn (recorded across the inputs, then applied at the written cells
/// alone: a crate pushed off a target leaves a glow to clear), and a seed
/// that sprouts on the first turn away from the player (its cell, written
/// then, is among those a record keeps).
const MARKED: &str = "title marked\nOBJECTS\nBackground\nblack\nWall\nblue\nTarget\ngreen\n\
    Player\nwhite\nCrate\nred\nMark\npink\nDot\ngray\nGlow\nyellow\nRing\norange\nSpark\npurple\nSeed\nbrown\nLeaf\nlightgreen\n\
    LEGEND\n. = Background\n# = Wall and Dot\nP = Player\n* = Crate and Ring\nT = Target\nS = Seed\nSOUNDS\nCOLLISIONLAYERS\n\
    Background\nTarget\nPlayer, Wall, Crate\nMark\nDot\nGlow\nRing\nSpark\nSeed, Leaf\nRULES\n\
    [ > Player | Crate ] -> [ > Player | > Crate ]\n\
    late [ Mark ] -> [ ]\n\
    late [ Player ] -> [ Player Mark ]\n\
    late [ Wall no Dot ] -> [ Wall Dot ]\n\
    late [ Crate Target ] -> [ Crate Target Glow ]\n\
    late [ Glow no Crate ] -> [ ]\n\
    late [ Crate no Ring ] -> [ Crate Ring ]\n\
    late [ Ring no Crate ] -> [ ]\n\
    late [ Spark ] -> [ ]\n\
    late [ Seed ] -> [ Leaf ]\n\
    late [ Player Target ] -> [ Player Target Spark ]\n\
    WINCONDITIONS\nLEVELS\n\
    ################\n#S.............#\n#.P.*.T........#\n#..*T..........#\n\
    #.....*T.......#\n#..............#\n#..............#\n#..............#\n\
    ################\n";

#[test]
fn a_marked_game_changes_no_successor_with_its_run() {
    let compiled = compile("case", MARKED).expect("the game compiles");
    assert_eq!(
        compiled.late_rules.cell_runs.first(),
        Some(&10),
        "one run of the ten late groups"
    );
    assert_level_unchanged(MARKED, |g| g.set_cell_runs(false), 100);
}
