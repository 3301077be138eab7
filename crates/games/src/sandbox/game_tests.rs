//! Unit tests of the sandbox files and game: level text round trips, the
//! generator, errors, and the game as the explorer sees it.

use super::tests::{board, EMPTY5};
use super::*;
use crate::test_support::census;
use model::Game;

#[test]
fn instance_text_round_trips_through_the_loader() {
    let spec = preset("exp6").unwrap();
    let inst = generate(&spec, 7, 3).unwrap();
    let text = instance_text(&inst);
    let level = crate::load("x.sandbox", &text, &crate::LevelSelector::First).unwrap();
    assert_eq!(level.text, text);
    let again = crate::load("level.sandbox", &level.text, &crate::LevelSelector::First).unwrap();
    assert_eq!(again.text, level.text);
    assert_eq!(level.game.kind(), "sandbox");
    assert_eq!(again.game.initial_states(), level.game.initial_states());
}

#[test]
fn every_token_kind_survives_the_text() {
    let mut spec = Spec::empty("all", 11);
    for kind in TokenKind::ALL {
        spec.counts[usize::from(kind.code())] = 2;
    }
    spec.hidden[0] = 3;
    spec.walls = 4;
    spec.rules.toroidal = true;
    let inst = generate(&spec, 1, 0).unwrap();
    let back = load_instances("a.sandbox", &instance_text(&inst)).unwrap();
    assert_eq!(back, vec![inst]);
    let spec_back = load_spec("s.sandbox", &spec_text(&spec)).unwrap();
    assert_eq!(spec_back, spec);
}

#[test]
fn generation_is_reproducible_and_avoids_the_centre() {
    let spec = preset("exp3").unwrap();
    let a = generate(&spec, 42, 5).unwrap();
    assert_eq!(a, generate(&spec, 42, 5).unwrap());
    assert_ne!(a, generate(&spec, 42, 6).unwrap());
    assert_eq!(a.tokens.len(), 15);
    let centre = Instance::centre(11);
    assert!(a
        .tokens
        .iter()
        .all(|t| t.cell != centre && (1..=6).contains(&t.value)));
    let mut cells: Vec<u8> = a.tokens.iter().map(|t| t.cell).collect();
    cells.sort();
    cells.dedup();
    assert_eq!(cells.len(), 15);
}

#[test]
fn a_spec_loads_as_its_first_instance() {
    let text = spec_text(&preset("exp2").unwrap());
    let level = crate::load("e.sandbox", &text, &crate::LevelSelector::First).unwrap();
    assert!(level.title.ends_with("#1"));
    assert_eq!(list_levels("e.sandbox", &text).unwrap().len(), 1);
}

#[test]
fn bad_files_name_the_line() {
    let text = "sandbox instance\ntitle t\nside 3\nboard\n.. .. ..\n.. @@ Q1\n.. .. ..\n";
    let err = crate::load("bad.sandbox", text, &crate::LevelSelector::First).unwrap_err();
    assert!(err.to_string().starts_with("bad.sandbox:6:"), "{err}");
    let text = "sandbox spec\nside 4\n";
    let err = crate::load("bad.sandbox", text, &crate::LevelSelector::First).unwrap_err();
    assert!(err.to_string().contains("odd"), "{err}");
    let err = crate::load(
        "bad.sandbox",
        "sandbox spec\nside 3\nrule fly yes\n",
        &crate::LevelSelector::First,
    )
    .unwrap_err();
    assert!(err.to_string().contains("bad.sandbox:3:"), "{err}");
}

#[test]
fn the_game_ends_with_its_score_as_outcome() {
    let b = board(&[".. B1 ..", ".. @@ ..", ".. .. .."], 2);
    let game = SandboxGame::new(b);
    let names = game.outcome_names();
    assert_eq!(names.first().map(String::as_str), Some("score 0"));
    let census = census(&game, 10_000).unwrap();
    assert!(census.terminals > 0);
    // Every terminal reached by exhaustive play carries a score within the names.
    let mut out = model::Successors::new();
    let init = game.initial_states().remove(0);
    assert_eq!(game.terminal(&init), None);
    game.successors(&init, &mut out);
    assert_eq!(out.len(), 4);
}

#[test]
fn states_decode_to_what_was_encoded() {
    let inst = generate(&preset("exp6").unwrap(), 3, 0).unwrap();
    let game = SandboxGame::new(Board::new(&inst).unwrap());
    let mut state = game.initial_states().remove(0);
    let mut out = model::Successors::new();
    for _ in 0..10 {
        out.clear();
        game.successors(&state, &mut out);
        let Some((_, next)) = out.get(out.len() - 1) else {
            break;
        };
        let next = next.to_vec();
        let p = game.decode(&next).unwrap();
        let mut again = Vec::new();
        game.project(&next, &[], &mut again);
        assert_eq!(again, next);
        assert!(usize::from(p.pos) < 121);
        state = next;
    }
}

#[test]
fn projection_forgets_the_ignored_features() {
    let b = board(&EMPTY5, 9);
    let game = SandboxGame::new(b);
    let mut a = model::Successors::new();
    let init = game.initial_states().remove(0);
    game.successors(&init, &mut a);
    let (first, second) = (a.get(0).unwrap().1.to_vec(), a.get(1).unwrap().1.to_vec());
    let project = |s: &[u8], ignored: &[usize]| {
        let mut out = Vec::new();
        game.project(s, ignored, &mut out);
        out
    };
    assert_ne!(project(&first, &[]), project(&second, &[]));
    assert_eq!(project(&first, &[2, 3, 7]), project(&second, &[2, 3, 7]));
    assert_eq!(game.features()[0], "score");
}

#[test]
fn small_boards_explore_exhaustively() {
    let inst = generate(
        &preset("exp2")
            .unwrap()
            .with(TokenKind::Blue, 1)
            .with(TokenKind::Red, 1),
        1,
        0,
    )
    .unwrap();
    let game = SandboxGame::new(Board::new(&inst).unwrap());
    let census = census(&game, 2_000_000).expect("a 7x7 board with a short ration is small");
    assert!(census.states > 100);
}

#[test]
fn txt_files_are_recognised_by_their_content() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../levels/sandbox/tiny.sandbox"
    ))
    .unwrap();
    let level = crate::load("tiny.txt", &text, &crate::LevelSelector::First).unwrap();
    assert_eq!(level.game.kind(), "sandbox");
    assert!(level
        .game
        .render(&level.game.initial_states()[0])
        .contains("@@"));
}

#[test]
fn foreign_bytes_are_not_states() {
    let b = board(&EMPTY5, 9);
    let game = SandboxGame::new(b);
    let mut state = game.initial_states().remove(0);
    state[10] = 3; // forced moves left
    state[9] = 200; // with an impossible direction
    assert!(game.decode(&state).is_none());
    assert!(game.render(&state).starts_with("<not a state"));
    let mut out = model::Successors::new();
    game.successors(&state, &mut out);
    assert!(out.is_empty());
    assert_eq!(game.terminal(&[1, 2, 3]), None);
}
