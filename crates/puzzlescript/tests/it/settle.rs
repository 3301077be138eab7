//! Groups that settle in one pass (`compile::settle`) change no successor:
//! every game of the shared conformance suite, explored with their
//! fixpoints ended after the first pass that changed the board and run to
//! the end, gives the same successors, state by state, in the same order.

use crate::no_match::{assert_level_unchanged, assert_suite_unchanged};
use puzzlescript::compile;

#[test]
fn settling_groups_change_no_successor() {
    assert_suite_unchanged(|g| g.set_settling(false));
}

/// A game that redraws its decoration and light on every turn with groups
/// that settle in one pass: a rule of two rows, a group clearing a layer
/// per rule, light placed at its sources then spread a step, and beside
/// them a group that must run to its fixpoint (a step spread before its
/// sources are placed).
const REDRAWN: &str = "title redrawn\nOBJECTS\nBackground\nblack\nWall\nblue\n\
    Lamp\nyellow\nFull\nwhite\nDim\ngray\nCoastL\ngreen\nCoastR\ngreen\nMark\npink\n\
    Player\nwhite\nCrate\nred\nLEGEND\n. = Background\n# = Wall\nP = Player\n* = Crate\n\
    L = Lamp\nm = Mark\nLight = Full or Dim\nCoast = CoastL or CoastR\nSOUNDS\n\
    COLLISIONLAYERS\nBackground\nMark\nLamp\nLight\nCoastL\nCoastR\nPlayer, Wall, Crate\nRULES\n\
    [ Light ] -> [ ]\n\
    [ Coast ] -> [ ]\n\
    [ > Player | Crate ] -> [ > Player | > Crate ]\n\
    late right [ Wall | no Wall ] -> [ Wall | CoastL ]\n\
    late left [ Wall | no Wall ] -> [ Wall | CoastR ]\n\
    late right [ Crate | Mark ] [ Player ] -> [ Crate | Mark ] [ Player CoastL ]\n\
    late [ Lamp ] -> [ Lamp Full ]\n\
    + late [ Crate ] -> [ Crate Full ]\n\
    + late [ Full | no Light no Wall ] -> [ Full | Dim ]\n\
    late [ Dim | no Light no Wall no Player ] -> [ Dim | Mark ]\n\
    + late [ Player ] -> [ Player Dim ]\n\
    WINCONDITIONS\nLEVELS\n\
    ##########\n#...#..L.#\n#.P.*..m.#\n#..##*...#\n#L*...m..#\n##########\n";

#[test]
fn a_redrawn_game_changes_no_successor_when_its_groups_settle() {
    let compiled = compile("case", REDRAWN).expect("the game compiles");
    let settled = |set: &puzzlescript::compile::RuleSet| {
        set.groups
            .iter()
            .zip(&set.settles)
            .filter(|(_, &s)| s)
            .map(|(g, _)| g[0].line)
            .collect::<Vec<_>>()
    };
    let (early, late) = (settled(&compiled.rules), settled(&compiled.late_rules));
    // Every group but the pushes and the spread before its sources.
    assert_eq!((early.len(), late.len()), (2, 4), "{early:?} {late:?}");
    assert_level_unchanged(REDRAWN, |g| g.set_settling(false), 100);
}
