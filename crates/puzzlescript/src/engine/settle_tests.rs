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

/// The group's verdict by its definition: each rule settles alone, and
/// each pair of an earlier and a later rule settles as a group of two (the
/// later one's writes only turn the earlier one's tests off and keep what
/// it wrote).
fn settles_by_pairs(rules: &[Rule], layers: Option<&[Vec<u64>]>) -> bool {
    let (alone, _) = crate::compile::settle::settles(rules, layers);
    alone.iter().all(|&a| a)
        && (0..rules.len()).all(|i| {
            (i + 1..rules.len()).all(|j| {
                let pair = [rules[i].clone(), rules[j].clone()];
                crate::compile::settle::settles(&pair, layers).1
            })
        })
}

/// The analysis, which checks each rule against the union of the later
/// rules' writes before comparing pairs, gives the verdict of comparing
/// every pair, on many pseudo-random sequences of the rules of the test
/// game (each taken from anywhere in it, in any order, repeats allowed).
#[test]
fn the_unions_of_later_writes_give_the_pairs_verdict() {
    let g = crate::compile("t", GAME).expect("compiles");
    let layers = g.one_per_layer.then_some(&g.names.layer_masks[..]);
    let pool: Vec<&Rule> = g
        .rules
        .groups
        .iter()
        .chain(&g.late_rules.groups)
        .flatten()
        .collect();
    let mut next = xorshift(0x0a11_7ea1_5e77_1e00);
    let (mut settled, mut unsettled) = (0, 0);
    for _ in 0..3_000 {
        let len = 2 + next() as usize % 5;
        let rules: Vec<Rule> = (0..len)
            .map(|_| pool[next() as usize % pool.len()].clone())
            .collect();
        let verdict = crate::compile::settle::settles(&rules, layers).1;
        assert_eq!(
            verdict,
            settles_by_pairs(&rules, layers),
            "lines {:?}",
            rules.iter().map(|r| r.line).collect::<Vec<_>>()
        );
        if verdict {
            settled += 1;
        } else {
            unsettled += 1;
        }
    }
    assert!(
        settled > 100 && unsettled > 100,
        "{settled} settled, {unsettled} not"
    );
}

/// A game whose groups expand to more rules than are compared pair by
/// pair: `[ moving Player Lamp ] [ stationary Part ]` over 60 parts in
/// nine layers and five movements (300 rules, as a distant sunset's
/// apparatus follows its player), which the unions of later writes settle;
/// and the same rules followed by one that lights the player's cell, which
/// the earlier rules require and never write: that group must run to its
/// fixpoint.
fn large_game() -> String {
    let parts: Vec<String> = (0..60).map(|k| format!("Part{k}")).collect();
    let objects: String = parts.iter().map(|p| format!("{p}\ngrey\n")).collect();
    let follow =
        "[ moving Player Lamp ] [ stationary Part ] -> [ moving Player Lamp ] [ moving Part ]";
    format!(
        "OBJECTS\nBackground\nblack\nPlayer\nwhite\nLamp\nyellow\n{objects}\
         LEGEND\n. = Background\nP = Player\nPart = {}\nSOUNDS\nCOLLISIONLAYERS\n\
         Background\nPlayer\nLamp\n{}\nRULES\n{follow}\n{follow}\n+ [ Player ] -> [ Player Lamp ]\n\
         WINCONDITIONS\nLEVELS\n.P.\n",
        parts.join(" or "),
        // Layers of seven parts: moving a property of several layers
        // expands the rule over its objects.
        parts
            .chunks(7)
            .map(|layer| layer.join(", "))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The large group that follows its player settles, and run once on many
/// pseudo-random boards (with the player moving) leaves nothing for a
/// second run to change; the same group followed by the rule lighting the
/// player is not said to settle, and its second runs change some boards.
#[test]
fn a_large_group_settles_by_the_unions_of_later_writes() {
    let source = large_game();
    let g = crate::compile("t", &source).expect("compiles");
    let found = groups(&g);
    assert_eq!(found.len(), 2);
    let ((follow, follows_settle), (placing, placing_settles)) = (found[0], found[1]);
    assert_eq!((follow.len(), placing.len()), (300, 301));
    assert!(follows_settle, "the group following the player settles");
    assert!(!placing_settles, "the group lighting the player does not");
    let mut board = Board::empty(&g, 6, 5);
    let (player, lamp) = (g.names.objects["player"].0, g.names.objects["lamp"].0);
    let mut next = xorshift(0x1a56_e000_0000_0211);
    let (mut changed, mut second_passes) = (0, 0);
    for _ in 0..200 {
        for (group, settles) in [(follow, true), (placing, false)] {
            fill(&g, &mut board, &mut next);
            // The player, in its own cell, moves one way in most rounds,
            // lit in half of them.
            let at = next() as usize % board.cells();
            board.objects[at * g.obj_words..(at + 1) * g.obj_words].fill(0);
            crate::bits::set(&mut board.objects[at * g.obj_words..], player);
            crate::bits::set(&mut board.objects[at * g.obj_words..], 0);
            if next().is_multiple_of(2) {
                crate::bits::set(&mut board.objects[at * g.obj_words..], lamp);
            }
            let layer = g.names.id_layer[player];
            let slot = g.names.move_slots.slot(layer).expect("the player moves");
            crate::bits::mov_or(
                &mut board.movements[at * g.mov_words..(at + 1) * g.mov_words],
                slot,
                (1 << (next() % 6)) & 0x1f,
            );
            board.moving = vec![at];
            changed += usize::from(run(&g, &mut board, group, true));
            let before = board.clone();
            let again = run(&g, &mut board, group, false);
            if settles {
                assert!(!again, "a second run changed");
                assert_eq!(board.objects, before.objects);
                assert_eq!(board.movements, before.movements);
            } else {
                second_passes += usize::from(again);
            }
        }
    }
    assert!(changed > 200, "{changed} first runs changed the board");
    assert!(second_passes > 20, "{second_passes} second runs changed");
}
