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

/// Plain tic-tac-toe, built once for every test that needs it (debug builds are slow).
fn standard() -> &'static GameTree {
    static TREE: std::sync::OnceLock<GameTree> = std::sync::OnceLock::new();
    TREE.get_or_init(|| ttt(Variant::Standard))
}

#[test]
fn tictactoe_has_the_well_known_counts() {
    let t = standard();
    assert_eq!(t.len(), 549_946);
    assert_eq!(t.terminal_count(), 255_168);
    let levels: Vec<u64> = t.level_counts().iter().map(|l| l.iter().sum()).collect();
    assert_eq!(
        levels,
        vec![1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
}

#[test]
fn tictactoe_and_three_to_fifteen_are_equivalent_up_to_relabeling() {
    let c = compare(
        &ttt(Variant::Standard),
        &tree(&ThreeToFifteen, "15"),
        Mode::Tree,
    )
    .unwrap();
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
    let c = compare(standard(), &ttt(Variant::Misere), Mode::Tree).unwrap();
    assert!(c.equivalent, "{c:#?}");
    let w = c.witness.unwrap();
    assert!(w
        .outcomes
        .iter()
        .any(|p| p.a == "X wins" && p.b == "O wins"));
}

#[test]
fn variants_are_agency_equivalent_but_not_tree_equivalent() {
    let standard = standard();
    for v in [Variant::EndOfTurn, Variant::Restricted] {
        let other = ttt(v);
        let tree_mode = compare(standard, &other, Mode::Tree).unwrap();
        assert!(!tree_mode.equivalent, "{v:?} should differ as a tree");
        let agency = compare(standard, &other, Mode::Agency).unwrap();
        assert!(agency.equivalent, "{v:?}: {agency:#?}");
    }
}

#[test]
fn no_diagonals_differs_at_the_first_diagonal_win() {
    let c = compare(
        &ttt(Variant::Standard),
        &ttt(Variant::NoDiagonals),
        Mode::Tree,
    )
    .unwrap();
    assert!(!c.equivalent);
    let d = c.difference.unwrap();
    assert_eq!(d.path_a, ["X0", "O1", "X2", "O3", "X4", "O5", "X6"]);
    assert_eq!(d.path_b, d.path_a);
    assert!(
        d.reason.contains("terminal, outcome `X wins`"),
        "{}",
        d.reason
    );
    assert!(
        d.reason.contains("B: player 2 chooses among 2"),
        "{}",
        d.reason
    );
    let agency = compare(
        &ttt(Variant::Standard),
        &ttt(Variant::NoDiagonals),
        Mode::Agency,
    )
    .unwrap();
    assert!(!agency.equivalent);
}

#[test]
fn random_start_has_a_chance_node_and_differs_from_plain() {
    let t = ttt(Variant::RandomStart);
    assert_eq!(t.len(), 2 + 2 * 549_946);
    let c = compare(standard(), &t, Mode::Agency).unwrap();
    assert!(!c.equivalent);
    let d = c.difference.unwrap();
    assert!(
        d.reason.contains("chance node with 2 outcomes (1/2, 1/2)"),
        "{}",
        d.reason
    );
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
    let coordination = Simultaneous {
        table: [[1, 0, 0], [0, 1, 0], [0, 0, 2]],
        names: ["a", "b", "c"],
    };
    let c = compare(
        &tree(&rps, "rps"),
        &tree(&coordination, "coordination"),
        Mode::Tree,
    )
    .unwrap();
    assert!(!c.equivalent);
}

/// A coin flip, then the winner of the flip picks one of two outcomes.
struct CoinThenChoose;

impl Game for CoinThenChoose {
    fn kind(&self) -> &'static str {
        "coin-test"
    }
    fn players(&self) -> u8 {
        2
    }
    fn state_width(&self) -> model::StateWidth {
        model::StateWidth::Fixed(1)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![vec![0]]
    }
    fn action_labels(&self) -> Vec<String> {
        ["flip", "left", "right"].map(String::from).to_vec()
    }
    fn outcome_names(&self) -> Vec<String> {
        ["a", "b"].map(String::from).to_vec()
    }
    fn terminal(&self, s: &[u8]) -> Option<u16> {
        (s[0] >= 3).then(|| u16::from(s[0] - 3))
    }
    fn successors(&self, s: &[u8], out: &mut model::Successors) {
        let half = model::Prob { num: 1, den: 2 };
        if s[0] == 0 {
            out.push(
                model::Move {
                    action: 0,
                    player: 0,
                    prob: half,
                },
                &[1],
            );
            out.push(
                model::Move {
                    action: 0,
                    player: 0,
                    prob: half,
                },
                &[2],
            );
        } else {
            let player = s[0] - 1;
            out.push(
                model::Move {
                    action: 1,
                    player,
                    prob: model::Prob::ONE,
                },
                &[3],
            );
            out.push(
                model::Move {
                    action: 2,
                    player,
                    prob: model::Prob::ONE,
                },
                &[4],
            );
        }
    }
    fn render(&self, s: &[u8]) -> String {
        s[0].to_string()
    }
    fn has_chance(&self) -> bool {
        true
    }
}

#[test]
fn a_tree_is_written_as_a_store_with_chance_folded_into_edges() {
    let game = CoinThenChoose;
    let t = tree(&game, "coin");
    assert_eq!(t.len(), 1 + 1 + 2 + 4);
    let dir = tempfile::tempdir().unwrap();
    let level = crate::LevelInfo {
        title: "coin",
        text: "coin",
    };
    let written = crate::write_store(&t, &game, &level, dir.path(), false).unwrap();
    assert_eq!(
        (written.states, written.transitions, written.depth),
        (7, 6, 2)
    );
    let run = store::Run::open(dir.path()).unwrap();
    assert_eq!(run.state_count(), 7);
    assert_eq!(run.layers(), &[0, 1, 3]);
    let root: Vec<_> = run.out_edges(0).collect();
    assert_eq!(root.len(), 2);
    assert!(root.iter().all(|e| e.action == 0));
    assert_eq!(run.prob(0), Some((1, 2)));
    assert_eq!(run.terminals().count(), 4);
    assert_eq!(run.state(3), &[3]);
}

#[test]
fn chance_and_bookkeeping_reduce_away_in_agency_mode() {
    // Both flip results lead to equivalent choices (players differ), so the
    // flip is not symmetry-redundant under identical players: the reduced tree
    // keeps it, and the game differs from a plain choice.
    let coin = tree(&CoinThenChoose, "coin");
    let c = compare(&coin, &coin, Mode::Agency).unwrap();
    assert!(c.equivalent);
    assert_eq!(c.a.compared_nodes, 1 + 2 * 3);
}

#[test]
fn a_different_arrangement_of_the_same_outcomes_is_a_matrix_difference() {
    let rps = Simultaneous::rock_paper_scissors();
    // Same outcome counts, but player 1's choice alone decides.
    let dictator = Simultaneous {
        table: [[1, 1, 1], [2, 2, 2], [0, 0, 0]],
        names: ["a", "b", "c"],
    };
    let c = compare(&tree(&rps, "rps"), &tree(&dictator, "dictator"), Mode::Tree).unwrap();
    assert!(!c.equivalent);
    let d = c.difference.unwrap();
    assert!(
        d.reason.contains("arranged in different decision matrices"),
        "{}",
        d.reason
    );
    assert!(d.path_a.is_empty() && d.path_b.is_empty());
    // After the reductions player 2's choices are redundant in the dictator game.
    let c = compare(
        &tree(&rps, "rps"),
        &tree(&dictator, "dictator"),
        Mode::Agency,
    )
    .unwrap();
    assert!(!c.equivalent);
    assert!(c
        .difference
        .unwrap()
        .reason
        .contains("player 1 chooses among 3"));
}

#[test]
fn similarity_is_one_under_the_magic_square_and_lower_under_a_wrong_map() {
    // Tic-tac-toe cell i holds 3-to-15's number MAGIC[i]; its player 1 is X.
    const MAGIC: [usize; 9] = [2, 7, 6, 9, 5, 1, 4, 3, 8];
    let map = |magic: [usize; 9]| {
        move |s: &[u8]| {
            let mut t = vec![0u8; 10];
            for (cell, &n) in magic.iter().enumerate() {
                t[n - 1] = s[cell];
            }
            t[9] = s[9];
            (s[10] == 0).then_some(t)
        }
    };
    let opts = crate::SimilarityOptions {
        depth: 3,
        samples: 60,
        seed: 5,
        ..Default::default()
    };
    let (a, b) = (TicTacToe(Variant::Standard), ThreeToFifteen);
    let s = crate::similarity(&a, &b, &map(MAGIC), &opts).unwrap();
    assert_eq!((s.matched, s.similarity), (60, 1.0), "{s:#?}");
    assert!(s.low > 0.9 && s.high > 0.999);
    let again = crate::similarity(&a, &b, &map(MAGIC), &opts).unwrap();
    assert_eq!(again.matched, s.matched);
    let wrong = [7, 2, 6, 9, 5, 1, 4, 3, 8];
    let s = crate::similarity(&a, &b, &map(wrong), &opts).unwrap();
    assert!(s.similarity < 1.0, "{s:#?}");
    assert!(s.first_mismatch.is_some());
}

/// A counter that a player may step up or down between 0 and 3; 3 ends the game.
struct Counter;

impl Game for Counter {
    fn kind(&self) -> &'static str {
        "counter-test"
    }
    fn state_width(&self) -> model::StateWidth {
        model::StateWidth::Fixed(1)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![vec![0]]
    }
    fn action_labels(&self) -> Vec<String> {
        ["up", "down"].map(String::from).to_vec()
    }
    fn outcome_names(&self) -> Vec<String> {
        vec!["win".to_string()]
    }
    fn terminal(&self, s: &[u8]) -> Option<u16> {
        (s[0] == 3).then_some(0)
    }
    fn successors(&self, s: &[u8], out: &mut model::Successors) {
        out.push(model::Move::solo(0), &[s[0] + 1]);
        if s[0] > 0 {
            out.push(model::Move::solo(1), &[s[0] - 1]);
        }
    }
    fn render(&self, s: &[u8]) -> String {
        s[0].to_string()
    }
}

#[test]
fn cycles_and_oversized_trees_are_refused_with_their_reason() {
    let err = GameTree::build(&Counter, "counter", TreeOptions::default())
        .err()
        .unwrap();
    assert!(
        matches!(&err, crate::EquivError::Cycle { path, .. } if path == &["up", "down"]),
        "{err}"
    );
    let small = TreeOptions {
        max_nodes: 100,
        max_depth: None,
    };
    let err = GameTree::build(&TicTacToe(Variant::Standard), "ttt", small)
        .err()
        .unwrap();
    assert!(err.to_string().contains("exceeds 100 nodes"), "{err}");
    // A depth limit gives a partial tree with cut leaves instead.
    let partial = TreeOptions {
        max_nodes: 100,
        max_depth: Some(2),
    };
    let t = GameTree::build(&Counter, "counter", partial).unwrap();
    assert_eq!(t.len(), 1 + 1 + 2);
    assert!(t.children(1).all(|c| t.kind(c) == crate::NodeKind::Cut));
    // Partial trees may loop back to earlier states: the depth limit ends them.
    let deeper = TreeOptions {
        max_nodes: 100,
        max_depth: Some(4),
    };
    assert!(GameTree::build(&Counter, "counter", deeper).is_ok());
}
