//! Tests of trees and comparisons on the example games.

use crate::examples::{Simultaneous, ThreeToFifteen, TicTacToe, Variant};
use crate::{compare, GameTree, Mode, TreeOptions};
use model::Game;

fn tree(game: &dyn Game, title: &str) -> GameTree {
    GameTree::build(game, title, TreeOptions::default()).unwrap()
}

fn ttt(v: Variant) -> GameTree {
    tree(&TicTacToe(v), &format!("{v:?}"))
}

#[test]
fn tictactoe_has_the_well_known_counts() {
    let t = ttt(Variant::Standard);
    assert_eq!(t.len(), 549_946);
    assert_eq!(t.terminal_count(), 255_168);
    let levels: Vec<u64> = t.level_counts().iter().map(|l| l.iter().sum()).collect();
    assert_eq!(levels, vec![1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]);
}

#[test]
fn tictactoe_and_three_to_fifteen_are_equivalent_up_to_relabeling() {
    let c = compare(&ttt(Variant::Standard), &tree(&ThreeToFifteen, "15"), Mode::Tree).unwrap();
    assert!(c.equivalent, "{c:#?}");
    let w = c.witness.unwrap();
    assert_eq!(w.nodes_per_depth.iter().sum::<u64>(), 549_946);
    // X (player 1) moves first in tic-tac-toe, player 2 in this 3-to-15.
    assert_eq!(w.players[0].a, "player 1");
    assert_eq!(w.players[0].b, "player 2");
    let x_wins = w.outcomes.iter().find(|p| p.a == "X wins").unwrap();
    assert_eq!(x_wins.b, "first player wins");
}

#[test]
fn misere_is_equivalent_up_to_relabeling_of_outcomes() {
    let c = compare(&ttt(Variant::Standard), &ttt(Variant::Misere), Mode::Tree).unwrap();
    assert!(c.equivalent, "{c:#?}");
    let w = c.witness.unwrap();
    assert!(w.outcomes.iter().any(|p| p.a == "X wins" && p.b == "O wins"));
}

#[test]
fn variants_are_agency_equivalent_but_not_tree_equivalent() {
    let standard = ttt(Variant::Standard);
    for v in [Variant::EndOfTurn, Variant::Restricted] {
        let other = ttt(v);
        let tree_mode = compare(&standard, &other, Mode::Tree).unwrap();
        assert!(!tree_mode.equivalent, "{v:?} should differ as a tree");
        let agency = compare(&standard, &other, Mode::Agency).unwrap();
        assert!(agency.equivalent, "{v:?}: {agency:#?}");
    }
}

#[test]
fn no_diagonals_differs_at_the_first_diagonal_win() {
    let c = compare(&ttt(Variant::Standard), &ttt(Variant::NoDiagonals), Mode::Tree).unwrap();
    assert!(!c.equivalent);
    let d = c.difference.unwrap();
    assert_eq!(d.path_a, ["X0", "O1", "X2", "O3", "X4", "O5", "X6"]);
    assert_eq!(d.path_b, d.path_a);
    assert!(d.reason.contains("terminal, outcome `X wins`"), "{}", d.reason);
    assert!(d.reason.contains("B: player 2 chooses among 2"), "{}", d.reason);
    let agency = compare(&ttt(Variant::Standard), &ttt(Variant::NoDiagonals), Mode::Agency).unwrap();
    assert!(!agency.equivalent);
}

#[test]
fn random_start_has_a_chance_node_and_differs_from_plain() {
    let t = ttt(Variant::RandomStart);
    assert_eq!(t.len(), 2 + 2 * 549_946);
    let c = compare(&ttt(Variant::Standard), &t, Mode::Agency).unwrap();
    assert!(!c.equivalent);
    let d = c.difference.unwrap();
    assert!(d.reason.contains("chance node with 2 outcomes (1/2, 1/2)"), "{}", d.reason);
    assert!(compare(&t, &t, Mode::Tree).unwrap().equivalent);
}

#[test]
fn simultaneous_games_match_up_to_relabeling_choices() {
    let rps = Simultaneous::rock_paper_scissors();
    let mut renamed = Simultaneous::rock_paper_scissors();
    renamed.names = ["stone", "leaf", "blade"];
    // Player 2's choices listed in another order.
    renamed.table = [[2, 0, 1], [0, 1, 2], [1, 2, 0]];
    let c = compare(&tree(&rps, "rps"), &tree(&renamed, "renamed"), Mode::Tree).unwrap();
    assert!(c.equivalent, "{c:#?}");
    let coordination = Simultaneous { table: [[1, 0, 0], [0, 1, 0], [0, 0, 2]], names: ["a", "b", "c"] };
    let c = compare(&tree(&rps, "rps"), &tree(&coordination, "coordination"), Mode::Tree).unwrap();
    assert!(!c.equivalent);
}
