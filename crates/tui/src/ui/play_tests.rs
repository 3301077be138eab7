//! Snapshots of play mode at 80x24 (and one at 160x48): the start of the two-boxes
//! fixture, the screen after a losing move, a state a partial run never expanded, a
//! PuzzleScript level with the action key, and Fling, whose actions are a numbered list.

use crate::app::{App, Event, ViewOptions};
use crate::data::fixture::{fixture, fixture_of, TWO_BOXES};
use crate::play::{Play, Verdict};
use crate::test_support::{fixture_app, press, render, run_jobs, ASCII, UNICODE};
use crate::Workbench;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

const SMALL: (u16, u16) = (80, 24);

/// The application on `bench`, loaded, at `size`.
fn app_on(bench: Arc<dyn Workbench>, view: ViewOptions, size: (u16, u16)) -> App {
    let mut app = App::new(view, size);
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    app
}

/// The number keys that play from state 0 to the nearest state where `goal` holds.
fn keys_to(bench: &dyn Workbench, goal: impl Fn(&Play) -> bool) -> String {
    let mut parent: HashMap<u64, (u64, usize)> = HashMap::new();
    let mut queue = VecDeque::from([0u64]);
    while let Some(s) = queue.pop_front() {
        let play = Play::new(bench, s).unwrap();
        if goal(&play) {
            let mut keys = Vec::new();
            let mut at = s;
            while at != 0 {
                let (from, index) = parent[&at];
                assert!(index < 9, "a move past the number keys");
                keys.push(char::from(b'1' + index as u8));
                at = from;
            }
            return keys.into_iter().rev().collect();
        }
        for (i, m) in play.here.member.moves.iter().enumerate() {
            if m.target_state != 0 && !parent.contains_key(&m.target_state) {
                parent.insert(m.target_state, (s, i));
                queue.push_back(m.target_state);
            }
        }
    }
    panic!("no state meets the goal");
}

fn has_losing_move(p: &Play) -> bool {
    (0..p.here.member.moves.len()).any(|i| p.verdict(i) == Some(Verdict::Loses))
}

#[test]
fn play_mode_at_the_start() {
    for (name, view, size) in [
        ("play_start_80x24", UNICODE, SMALL),
        ("play_start_ascii_80x24", ASCII, SMALL),
        ("play_start_160x48", UNICODE, (160, 48)),
    ] {
        let mut app = fixture_app(view, size, None);
        press(&mut app, "p");
        insta::assert_snapshot!(name, render(&app));
    }
}

#[test]
fn play_mode_after_a_losing_move() {
    let bench: Arc<dyn Workbench> = Arc::new(crate::data::fixture::two_boxes(None).unwrap());
    let keys = keys_to(bench.as_ref(), has_losing_move);
    let mut app = app_on(bench, UNICODE, SMALL);
    press(&mut app, "p");
    press(&mut app, &keys);
    let screen = render(&app);
    assert!(screen.contains('✗'), "a losing move is marked:\n{screen}");
    insta::assert_snapshot!("play_before_the_loss_80x24", screen);
    let play = app.play.as_ref().unwrap();
    let fatal = (0..play.here.member.moves.len())
        .find(|&i| play.verdict(i) == Some(Verdict::Loses))
        .unwrap();
    press(&mut app, &(fatal + 1).to_string());
    let screen = render(&app);
    let since = format!("LOST since move {}", keys.len() + 1);
    assert!(screen.contains(&since), "{since}:\n{screen}");
    assert!(screen.contains("critical (irreversible)"), "{screen}");
    insta::assert_snapshot!("play_lost_80x24", screen);
}

#[test]
fn play_mode_on_a_state_never_expanded() {
    let bench: Arc<dyn Workbench> = Arc::new(fixture(TWO_BOXES, 40, None).unwrap());
    let keys = keys_to(bench.as_ref(), |p| p.here.open);
    let mut app = app_on(bench, UNICODE, SMALL);
    press(&mut app, "p");
    press(&mut app, &keys);
    let screen = render(&app);
    assert!(screen.contains("never expanded"), "{screen}");
    insta::assert_snapshot!("play_partial_80x24", screen);
}

/// A PuzzleScript level with an action: the X key plays it.
const ACTION_GAME: &str = "\
title lamp
========
OBJECTS
========
Background
black
Wall
brown
Player
white
Lamp
yellow
Lit
orange
=======
LEGEND
=======
. = Background
# = Wall
P = Player
L = Lamp
=======
SOUNDS
=======
================
COLLISIONLAYERS
================
Background
Player, Wall, Lamp, Lit
======
RULES
======
[ action Player | Lamp ] -> [ Player | Lit ]
==============
WINCONDITIONS
==============
No Lamp
=======
LEVELS
=======
#####
#P.L#
#####
";

#[test]
fn play_mode_on_puzzlescript_plays_the_action_key() {
    let bench = fixture_of("lamp.txt", ACTION_GAME, 1000, None).unwrap();
    let mut app = app_on(Arc::new(bench), UNICODE, SMALL);
    press(&mut app, "p");
    insta::assert_snapshot!("play_puzzlescript_80x24", render(&app));
    // Right to the lamp, then the action key lights it: the level is won.
    press(&mut app, "d");
    let play = app.play.as_ref().unwrap();
    assert_eq!(play.moves_for(crate::play::Input::Action).len(), 1);
    press(&mut app, " ");
    let screen = render(&app);
    assert!(screen.contains("GAME OVER: win"), "{screen}");
    insta::assert_snapshot!("play_puzzlescript_won_80x24", screen);
}

#[test]
fn play_mode_on_fling_numbers_the_actions() {
    let level = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../levels/fling/level1.txt"
    ))
    .unwrap();
    let bench = fixture_of("level1.txt", &level, 100_000, None).unwrap();
    let mut app = app_on(Arc::new(bench), UNICODE, SMALL);
    press(&mut app, "p");
    let before = app.play.as_ref().unwrap().state();
    // Arrows move the cursor in a game without directions; Enter plays.
    press(&mut app, "j");
    assert_eq!(app.play.as_ref().unwrap().cursor, 1);
    let screen = render(&app);
    insta::assert_snapshot!("play_fling_80x24", screen);
    press(&mut app, "<Enter>");
    assert_ne!(app.play.as_ref().unwrap().state(), before);
}

/// Seven-digit hyperstate sizes and state ids fit the side panel whole.
#[test]
fn play_mode_with_seven_digit_figures() {
    for (name, partial) in [("play_big_80x24", false), ("play_big_partial_80x24", true)] {
        let mut app = crate::test_support::big_app(UNICODE, SMALL, partial);
        press(&mut app, "p");
        let screen = render(&app);
        assert!(screen.contains("1,396,152"), "{screen}");
        insta::assert_snapshot!(name, screen);
    }
}
