//! Tests of the groups that settle in one pass (`compile::settle`): the
//! analysis's verdicts on typical rules, and on many pseudo-random boards a
//! settling group run once leaves nothing for another run to change.

use super::rules::apply_group;
use super::{Board, FirstChoice, Scratch};
use crate::compile::{Compiled, Rule};
use crate::test_rng::xorshift;

const GAME: &str = "OBJECTS\nBackground\nblack\nPlayer\nwhite\nCrate\nred\nWall\nblue\n\
    Target\ngreen\nEdge\nyellow\nMark\norange\nN\ngray\nS\npink\n\
    LEGEND\n. = Background\nP = Player\nDir = N or S\nSOUNDS\nCOLLISIONLAYERS\nBackground\n\
    Target\nPlayer, Wall, Crate\nEdge\nMark\nN\nS\nRULES\n\
    late up [ Wall | no Wall ] -> [ Wall Edge | ]\n\
    [ Dir ] -> []\n\
    [ Target ] -> [ Target Mark ] \n+ [ Wall ] -> [ Wall no Mark ]\n\
    right [ Crate | no Crate ] -> [ Crate | Crate ]\n\
    right [ Player | Target ] -> [ Player Edge | Target ]\n\
    [ Edge | Crate ] -> [ Edge | Crate N ] \n+ [ N ] -> [ Edge ]\n\
    right [ Crate | Wall ] -> [ Crate | ]\n\
    [ Crate Target ] -> [ Target ]\n\
    right [ Target | no Crate ] -> [ | ]\n\
    right [ Mark | no Mark ] -> [ | Mark ]\n\
    [ Player | Crate ] -> [ Player | Crate Mark ] \n+ [ Wall | Target ] -> [ Wall | Target S ]\n\
    WINCONDITIONS\nLEVELS\n.P.\n";

/// Every group of the game, main then late, with its verdict.
fn groups(g: &Compiled) -> Vec<(&[Rule], bool)> {
    [&g.rules, &g.late_rules]
        .into_iter()
        .flat_map(|set| {
            set.groups
                .iter()
                .zip(&set.settles)
                .map(|(group, &settles)| (&group[..], settles))
        })
        .collect()
}

/// The verdict on the group whose first rule is written on the line that
/// starts with `text`.
fn settles(g: &Compiled, text: &str) -> bool {
    let line = GAME
        .lines()
        .position(|l| l.starts_with(text))
        .map(|l| l + 1);
    let found: Vec<bool> = groups(g)
        .into_iter()
        .filter(|(group, _)| Some(group[0].line) == line)
        .map(|(_, settles)| settles)
        .collect();
    assert_eq!(found.len(), 1, "one group on the line of {text:?}");
    found[0]
}

#[test]
fn the_analysis_accepts_redraws_and_rejects_what_a_second_pass_changes() {
    let g = crate::compile("t", GAME).expect("compiles");
    assert!(settles(&g, "late up [ Wall | no Wall ]"), "a redraw");
    assert!(
        settles(&g, "[ Dir ] -> []"),
        "one-cell clears of one property"
    );
    assert!(settles(&g, "right [ Player | Target ]"));
    assert!(settles(&g, "[ Crate Target ] -> [ Target ]"));
    assert!(settles(&g, "[ Player | Crate ]"), "rules writing apart");
    // Its writes only undo matches.
    assert!(settles(&g, "right [ Target | no Crate ]"));
    // One rule sets Mark where the other clears it.
    assert!(!settles(&g, "[ Target ] -> [ Target Mark ]"));
    // A flood, and a rule writing what the other tests.
    assert!(!settles(&g, "right [ Crate | no Crate ]"));
    assert!(!settles(&g, "[ Edge | Crate ]"));
    // It moves its match along the row.
    assert!(!settles(&g, "right [ Mark | no Mark ]"));
    // Its writes only undo matches, its own among them.
    assert!(settles(&g, "right [ Crate | Wall ]"));
}

/// Fills every cell with at most one object of each layer (as every cell
/// of this game holds) and Background, without movements.
fn fill(g: &Compiled, board: &mut Board, next: &mut impl FnMut() -> u64) {
    for c in 0..board.cells() {
        let mut cell = 1;
        for layer in g.names.layer_masks.iter().skip(1) {
            let ids: Vec<usize> = crate::bits::ones(layer).collect();
            let pick = next() as usize % (ids.len() + 2);
            if let Some(&id) = ids.get(pick) {
                cell |= 1 << id;
            }
        }
        board.objects[c] = cell;
        board.movements[c] = 0;
    }
    board.moving.clear();
}

/// Runs `group` once on `board` as the engine does; true when it changed it.
fn run(g: &Compiled, board: &mut Board, group: &[Rule], settles: bool) -> bool {
    board.summarize(g.obj_words, g.mov_words);
    let mut scratch = Scratch::default();
    apply_group(
        g,
        board,
        group,
        settles,
        usize::MAX,
        &mut scratch,
        &mut FirstChoice,
    )
}

/// On many pseudo-random boards, a group said to settle, once stopped after
/// its first pass that changed something, changes nothing when run again
/// (its second pass would have changed nothing). The groups said not to
/// settle show that the check can fail: run to their fixpoint, some of them
/// change boards that one pass left behind.
#[test]
fn a_settling_group_stopped_after_one_pass_leaves_nothing_to_change() {
    let g = crate::compile("t", GAME).expect("compiles");
    assert!(g.one_per_layer, "the game keeps one object a layer");
    let mut board = Board::empty(&g, 6, 5);
    let mut next = xorshift(0x5e77_1e5a_0ce0_0002);
    let (mut changed, mut second_passes) = (0, 0);
    for _ in 0..400 {
        for (group, settles) in groups(&g) {
            fill(&g, &mut board, &mut next);
            changed += usize::from(run(&g, &mut board, group, true));
            let before = board.clone();
            let again = run(&g, &mut board, group, false);
            if settles {
                assert!(!again, "line {}: a second run changed", group[0].line);
                assert_eq!(board.objects, before.objects, "line {}", group[0].line);
            } else {
                second_passes += usize::from(again);
            }
        }
    }
    assert!(changed > 1_000, "{changed} first runs changed the board");
    assert!(
        second_passes > 100,
        "{second_passes} runs of unsettled groups"
    );
}
