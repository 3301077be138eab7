//! Tests of the Sokoban game: moves, pushes, wins, encoding, state counts.

use model::{Game, Successors};

use super::*;
use crate::sokoban::split_levels;
use crate::test_support::census;

fn level(text: &str) -> Sokoban {
    let raw = split_levels("g.xsb", text).unwrap();
    Sokoban::from_raw("g.xsb", &raw[0]).unwrap()
}

/// The successors of `state` as (action label, rendered state).
fn moves(game: &Sokoban, state: &[u8]) -> Vec<(String, String)> {
    let labels = game.action_labels();
    let mut out = Successors::new();
    game.successors(state, &mut out);
    out.iter()
        .map(|(m, s)| (labels[usize::from(m.action)].clone(), game.render(s)))
        .collect()
}

#[test]
fn walks_pushes_and_stops_at_walls() {
    let game = level("######\n#    #\n# @$ #\n#   .#\n######\n");
    let start = &game.initial_states()[0];
    let got = moves(&game, start);
    let expect = [
        ("up", "######\n# @  #\n#  $ #\n#   .#\n######\n"),
        ("down", "######\n#    #\n#  $ #\n# @ .#\n######\n"),
        ("left", "######\n#    #\n#@ $ #\n#   .#\n######\n"),
        ("right", "######\n#    #\n#  @$#\n#   .#\n######\n"),
    ];
    let expect: Vec<(String, String)> = expect
        .iter()
        .map(|(a, s)| (a.to_string(), s.to_string()))
        .collect();
    assert_eq!(got, expect);
}

#[test]
fn blocked_pushes_and_walls_give_no_move() {
    // Up: wall; left: box against a wall; right: box against a box.
    let game = level("#######\n#$@$$ #\n#  #  #\n#######\n");
    let labels: Vec<String> = moves(&game, &game.initial_states()[0])
        .into_iter()
        .map(|m| m.0)
        .collect();
    assert_eq!(labels, vec!["down"]);
}

#[test]
fn a_push_onto_the_last_goal_wins() {
    let game = level("#####\n#@$.#\n#####\n");
    let start = game.initial_states()[0].clone();
    assert_eq!(game.terminal(&start), None);
    let mut out = Successors::new();
    game.successors(&start, &mut out);
    let (mv, won) = out.get(0).unwrap();
    assert_eq!(mv.action, 3);
    assert_eq!(won, &[1, 2]);
    assert_eq!(game.terminal(won), Some(0));
    assert_eq!(game.outcome_names()[0], "win");
    assert_eq!(game.outcome_names(), vec!["win", "fail"]);
}

#[test]
fn level_without_boxes_is_won_at_once() {
    let game = level("####\n#@.#\n####\n");
    assert_eq!(game.terminal(&game.initial_states()[0]), Some(0));
}

#[test]
fn encoding_is_player_then_sorted_boxes() {
    let game = level("#######\n#.$ @ #\n# $$. #\n#  .  #\n#######\n");
    assert_eq!(game.state_width(), model::StateWidth::Fixed(4));
    // Region: row 1 cells 0..=4, row 2 cells 5..=9, row 3 cells 10..=14.
    assert_eq!(game.initial_states(), vec![vec![3, 1, 6, 7]]);
    assert_eq!(game.render(&[3, 1, 6, 7]), game.canonical_text());
    assert_eq!(
        game.render(&[0, 1, 6, 7]),
        "#######\n#+$   #\n# $$. #\n#  .  #\n#######\n"
    );
    assert!(game.render(&[1, 2]).starts_with("<not a state"));
}

#[test]
fn push_keeps_boxes_sorted() {
    // Region rows: cells 0..=4, 5..=9 (boxes 6 and 8), 10..=14, 15..=19.
    let game = level("#######\n#@    #\n# $ $ #\n#  .. #\n#     #\n#######\n");
    assert_eq!(game.initial_states(), vec![vec![0, 6, 8]]);
    let succ = |state: &[u8]| {
        let mut out = Successors::new();
        game.successors(state, &mut out);
        out.iter()
            .map(|(m, s)| (m.action, s.to_vec()))
            .collect::<Vec<_>>()
    };
    // Down from 1 pushes box 6 to 11, past box 8.
    assert!(succ(&[1, 6, 8]).contains(&(1, vec![6, 8, 11])));
    // Up from 16 pushes box 11 back to 6, before box 8.
    assert!(succ(&[16, 8, 11]).contains(&(0, vec![11, 6, 8])));
    // Between the boxes: both pushes, and two walks.
    assert_eq!(
        succ(&[7, 6, 8]),
        vec![
            (0, vec![2, 6, 8]),
            (1, vec![12, 6, 8]),
            (2, vec![6, 5, 8]),
            (3, vec![8, 6, 9])
        ]
    );
}

#[test]
fn wide_regions_use_two_bytes_per_cell() {
    let mut text = String::from("#####################\n");
    for r in 0..15 {
        let row = match r {
            0 => "#@$                .#".to_string(),
            _ => format!("#{}#", " ".repeat(19)),
        };
        text.push_str(&row);
        text.push('\n');
    }
    text.push_str("#####################\n");
    let game = level(&text);
    assert_eq!(game.region_cells(), 285);
    assert_eq!(game.state_width(), model::StateWidth::Fixed(4));
    assert_eq!(game.initial_states(), vec![vec![0, 0, 1, 0]]);
    let mut out = Successors::new();
    game.successors(&[0, 0, 1, 0], &mut out);
    let got: Vec<_> = out.iter().map(|(m, s)| (m.action, s.to_vec())).collect();
    assert_eq!(got, vec![(1, vec![19, 0, 1, 0]), (3, vec![1, 0, 2, 0])]);
    assert_eq!(game.render(&game.initial_states()[0]), text);
}

#[test]
fn state_count_of_a_tiny_level_matches_a_hand_count() {
    // Box at 1 with the player on any of the 5 other cells; box pushed to
    // the corner 0 with the player on any of 5 cells; the single winning
    // push. Every other push is blocked by a wall: 5 + 5 + 1 = 11 states.
    let game = level("#####\n#@$.#\n#   #\n#####\n");
    let c = census(&game, 1000).unwrap();
    assert_eq!((c.states, c.terminals), (11, 1));
    // The same with the wide rules.
    let c = census(&game.with_wide_rules(), 1000).unwrap();
    assert_eq!((c.states, c.terminals), (11, 1));
}

#[test]
fn unwinnable_levels_are_explored_in_full() {
    // Two boxes, one goal, never won. Boxes {1,3} with the player on 0;
    // one push gives boxes {2,3}, stuck together, with the player on 1 or
    // 0: three states, none terminal.
    let game = level("########\n#@$ $. #\n########\n");
    let c = census(&game, 1000).unwrap();
    assert_eq!((c.states, c.terminals), (3, 0));
}

#[test]
fn projections_blank_the_ignored_features() {
    let game = level("#####\n#@$.#\n#   #\n#####\n");
    assert_eq!(game.features(), vec!["player", "boxes"]);
    let state = game.initial_states().remove(0);
    let project = |ignored: &[usize]| {
        let mut out = vec![7];
        game.project(&state, ignored, &mut out);
        out
    };
    // The projection is appended to what the buffer already holds.
    assert_eq!(project(&[]), [vec![7], state.clone()].concat());
    assert_eq!(project(&[0]), vec![7, 0xff, state[1]]);
    assert_eq!(project(&[1]), vec![7, state[0], 0xff]);
    assert_eq!(project(&[0, 1]), vec![7, 0xff, 0xff]);
    // Two states that differ only in the player's cell project alike.
    let mut moved = state.clone();
    moved[0] = 4;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    game.project(&state, &[0], &mut a);
    game.project(&moved, &[0], &mut b);
    assert_eq!(a, b);
}
