//! Tests of the token-flip wrapper: encoding, actions, state counts, projections and
//! the reload through [`wrap`].

use super::*;
use crate::test_support::census;
use crate::{load, LevelSelector};

const TINY: &str = "#####\n#@$.#\n#   #\n#####\n";

fn tiny(tokens: usize) -> Level {
    let level = load("tiny.xsb", TINY, &LevelSelector::First).unwrap();
    wrap(level, tokens).unwrap()
}

#[test]
fn every_token_doubles_the_non_terminal_states() {
    // The tiny level has 11 states, one of them the terminal win (see the Sokoban
    // tests): 10 non-terminal states times 2^K, plus the win without tokens.
    for k in 0..=3 {
        let c = census(tiny(k).game.as_ref(), 10_000).unwrap();
        assert_eq!(
            (c.states, c.terminals),
            (10 * (1 << k) + 1, 1),
            "{k} tokens"
        );
    }
    // Nine tokens take two bytes.
    let c = census(tiny(9).game.as_ref(), 100_000).unwrap();
    assert_eq!(c.states, 10 * 512 + 1);
}

#[test]
fn flips_are_extra_actions_after_the_inner_ones() {
    let game = tiny(2).game;
    assert_eq!(
        game.action_labels(),
        vec![
            "up",
            "down",
            "left",
            "right",
            "flip token 1",
            "flip token 2"
        ]
    );
    let start = game.initial_states().remove(0);
    assert_eq!(start.len(), 3);
    assert_eq!(start[2], 0);
    let mut out = Successors::new();
    game.successors(&start, &mut out);
    let flips: Vec<_> = out
        .iter()
        .filter(|(m, _)| m.action >= 4)
        .map(|(m, s)| (m.action, s.to_vec()))
        .collect();
    assert_eq!(
        flips,
        vec![
            (4, vec![start[0], start[1], 1]),
            (5, vec![start[0], start[1], 2])
        ]
    );
    assert!(game.render(&flips[1].1).ends_with("tokens: AB\n"));
}

#[test]
fn a_winning_push_clears_the_tokens() {
    let game = tiny(1).game;
    // Player on cell 0 with the box on 1 and token 1 up; pushing right wins.
    let state = vec![0, 1, 1];
    let mut out = Successors::new();
    game.successors(&state, &mut out);
    let win: Vec<_> = out
        .iter()
        .filter(|(_, s)| game.terminal(s).is_some())
        .map(|(_, s)| s.to_vec())
        .collect();
    assert_eq!(win, vec![vec![1, 2, 0]]);
    assert_eq!(game.terminal(&win[0]), Some(0));
}

#[test]
fn ignoring_the_tokens_projects_onto_the_inner_game() {
    let game = tiny(3).game;
    assert_eq!(game.features(), vec!["player", "boxes", TOKENS_FEATURE]);
    let project = |state: &[u8], ignored: &[usize]| {
        let mut out = Vec::new();
        game.project(state, ignored, &mut out);
        out
    };
    assert_eq!(project(&[4, 1, 5], &[]), vec![4, 1, 5]);
    assert_eq!(project(&[4, 1, 5], &[2]), vec![4, 1, 0]);
    assert_eq!(project(&[4, 1, 5], &[0, 2]), vec![0xff, 1, 0]);
    assert_eq!(project(&[4, 1, 5], &[2]), project(&[4, 1, 2], &[2]));
}

#[test]
fn the_wrapped_level_reloads_from_its_kind_and_text() {
    let level = tiny(2);
    assert_eq!(level.game.kind(), "sokoban");
    let again = wrap(
        load("level.xsb", &level.text, &LevelSelector::First).unwrap(),
        2,
    )
    .unwrap();
    assert_eq!(again.game.initial_states(), level.game.initial_states());
    assert_eq!(again.game.action_labels(), level.game.action_labels());
    assert_eq!(again.text, level.text);
}

#[test]
fn zero_tokens_change_nothing_and_too_many_are_refused() {
    let plain = tiny(0);
    assert_eq!(plain.game.action_labels().len(), 4);
    let level = load("tiny.xsb", TINY, &LevelSelector::First).unwrap();
    let err = wrap(level, MAX_TOKENS + 1).unwrap_err();
    assert!(err.to_string().contains("at most 32 tokens"), "{err}");
}

#[test]
fn a_wrapper_inside_a_wrapper_expands_both() {
    let level = load("tiny.xsb", TINY, &LevelSelector::First).unwrap();
    let twice = wrap(wrap(level, 1).unwrap(), 1).unwrap();
    let c = census(twice.game.as_ref(), 10_000).unwrap();
    assert_eq!(c.states, 10 * 4 + 1);
}
