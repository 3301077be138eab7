//! Play mode's state on the two-boxes fixture: moves, undo, restart, since which move
//! the level is lost, whether the last move was critical, the nearest win, and the keys.

use super::*;
use crate::data::fixture::{fixture, two_boxes, TWO_BOXES};
use crate::test_support::{fixture_app, press, render, UNICODE};
use std::collections::{HashMap, VecDeque};

/// The shortest sequence of move indices from `start` to a state where `goal` holds,
/// found over the workbench's own moves.
fn route(bench: &dyn Workbench, start: u64, goal: impl Fn(&Play) -> bool) -> Vec<usize> {
    let mut parent: HashMap<u64, (u64, usize)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(s) = queue.pop_front() {
        let play = Play::new(bench, s).unwrap();
        if goal(&play) {
            let mut moves = Vec::new();
            let mut at = s;
            while at != start {
                let (from, index) = parent[&at];
                moves.push(index);
                at = from;
            }
            moves.reverse();
            return moves;
        }
        for (i, m) in play.here.member.moves.iter().enumerate() {
            if m.target_state != start && !parent.contains_key(&m.target_state) {
                parent.insert(m.target_state, (s, i));
                queue.push_back(m.target_state);
            }
        }
    }
    panic!("no state of the fixture meets the goal");
}

fn first_move(play: &Play, verdict: Verdict) -> Option<usize> {
    (0..play.here.member.moves.len()).find(|&i| play.verdict(i) == Some(verdict))
}

#[test]
fn moves_undo_and_restart_walk_the_stored_graph() {
    let bench = two_boxes(None).unwrap();
    let mut play = Play::new(&bench, 0).unwrap();
    assert!(!play.undo(&bench), "nothing to undo at the start");
    let first = play.here.member.moves[0].clone();
    assert!(play.make(&bench, 0));
    assert_eq!(play.state(), first.target_state);
    assert_eq!(play.steps.len(), 1);
    assert_eq!(play.steps[0].action, first.action);
    assert!(play.make(&bench, 0));
    let second = play.state();
    assert!(!play.make(&bench, 99), "no move 100");
    assert_eq!(play.state(), second);
    assert!(play.undo(&bench));
    assert_eq!(play.state(), first.target_state);
    assert_eq!(play.steps.len(), 1);
    play.restart(&bench);
    assert_eq!(play.state(), 0);
    assert!(play.steps.is_empty());
    assert_eq!(play.here, Play::new(&bench, 0).unwrap().here);
}

#[test]
fn a_losing_move_is_marked_before_and_dates_the_loss_after() {
    let bench = two_boxes(None).unwrap();
    let path = route(&bench, 0, |p| first_move(p, Verdict::Loses).is_some());
    let mut play = Play::new(&bench, 0).unwrap();
    for &i in &path {
        assert_ne!(play.verdict(i), Some(Verdict::Loses));
        play.make(&bench, i);
        assert_eq!(play.lost_since(), None, "still winnable on the way");
    }
    let fatal = first_move(&play, Verdict::Loses).unwrap();
    let target_tag = play.here.member.moves[fatal].target_tag;
    assert!(target_tag.is_lost());
    play.make(&bench, fatal);
    let k = path.len() + 1;
    assert_eq!(play.lost_since(), Some(k));
    assert_eq!(
        play.last_critical(),
        Some(true),
        "a loss leaves the hyperstate"
    );
    assert!(play.here.tag().is_lost());
    // Every move from a lost state keeps it lost, and the loss keeps its date.
    if !play.here.member.moves.is_empty() {
        play.make(&bench, 0);
        assert_eq!(play.lost_since(), Some(k));
    }
    while play.steps.len() >= k {
        play.undo(&bench);
    }
    assert_eq!(
        play.lost_since(),
        None,
        "undoing the fatal move wins it back"
    );
}

#[test]
fn reversible_moves_are_not_critical_and_a_lost_start_is_lost_from_move_0() {
    let bench = two_boxes(None).unwrap();
    let mut play = Play::new(&bench, 0).unwrap();
    assert_eq!(play.last_critical(), None);
    let path = route(&bench, 0, |p| first_move(p, Verdict::Reversible).is_some());
    for &i in &path {
        play.make(&bench, i);
    }
    let critical_before = play.critical_count();
    play.make(&bench, first_move(&play, Verdict::Reversible).unwrap());
    assert_eq!(play.last_critical(), Some(false));
    assert_eq!(play.critical_count(), critical_before);

    let lost = route(&bench, 0, |p| p.here.tag().is_lost());
    let mut walk = Play::new(&bench, 0).unwrap();
    for &i in &lost {
        walk.make(&bench, i);
    }
    let from_lost = Play::new(&bench, walk.state()).unwrap();
    assert_eq!(from_lost.lost_since(), Some(0));
}

#[test]
fn the_nearest_win_from_the_start_is_the_shortest_win() {
    let bench = two_boxes(None).unwrap();
    let shortest = bench.overview().shortest_win_actions.unwrap();
    assert_eq!(
        bench.actions_to_win(0, WIN_SEARCH_BUDGET),
        WinSearch::Actions(shortest)
    );
    assert!(matches!(
        bench.actions_to_win(0, 3),
        WinSearch::Beyond { budget: 3, .. }
    ));
    let lost = route(&bench, 0, |p| p.here.tag().is_lost());
    let mut play = Play::new(&bench, 0).unwrap();
    for &i in &lost {
        play.make(&bench, i);
    }
    assert_eq!(
        bench.actions_to_win(play.state(), WIN_SEARCH_BUDGET),
        WinSearch::Unreachable
    );
}

#[test]
fn a_state_never_expanded_has_no_moves_and_says_so() {
    let bench = fixture(TWO_BOXES, 40, None).unwrap();
    let path = route(&bench, 0, |p| p.here.open);
    let mut play = Play::new(&bench, 0).unwrap();
    for &i in &path {
        play.make(&bench, i);
    }
    assert!(play.here.open);
    assert!(play.here.member.moves.is_empty());
    assert_eq!(play.here.tag(), Tag::Unknown);
    assert!(play.undo(&bench), "undo leaves it");
}

#[test]
fn the_keys_open_play_make_moves_and_leave_at_the_state_reached() {
    let mut app = fixture_app(UNICODE, (80, 24), None);
    press(&mut app, "p");
    let play = app.play.as_ref().expect("p opens play mode");
    assert_eq!(play.state(), 0);
    let shortest = app.overview.as_ref().unwrap().shortest_win_actions.unwrap();
    assert_eq!(play.win, WinDistance::Known(WinSearch::Actions(shortest)));
    let up = play.moves_for(Input::Up);
    let expected = play.here.member.moves[up[0]].target_state;
    press(&mut app, "w");
    assert_eq!(app.play.as_ref().unwrap().state(), expected);
    press(&mut app, "z");
    assert_eq!(app.play.as_ref().unwrap().state(), 0);
    press(&mut app, "<Up>1r");
    let play = app.play.as_ref().unwrap();
    assert_eq!((play.state(), play.steps.len()), (0, 0));
    // `r` restarts here; `1`-`4` play rather than switch screens.
    press(&mut app, "<Up><Up>");
    let reached = app.play.as_ref().unwrap().here.hyperstate();
    press(&mut app, "<Esc>");
    assert!(app.play.is_none());
    assert_eq!(app.selected, reached);
    assert!(render(&app).contains("Overview"));
}

#[test]
fn a_stale_search_is_dropped_unrun() {
    let mut app = fixture_app(UNICODE, (80, 24), None);
    // Three moves without running the jobs queue three searches; only the last runs.
    for key in ["p", "d", "a"] {
        let code = crossterm::event::KeyCode::Char(key.chars().next().unwrap());
        let ev = crossterm::event::KeyEvent::new(code, crossterm::event::KeyModifiers::NONE);
        app.on_event(crate::app::Event::Key(ev));
    }
    let mut ran = 0;
    while let Some(job) = app.take_job() {
        ran += 1;
        let done = crate::app::execute(app.bench.clone().unwrap().as_ref(), job);
        app.on_event(crate::app::Event::Done(done));
    }
    assert_eq!(ran, 1);
    assert_eq!(app.pending, 0);
    assert!(matches!(
        app.play.as_ref().unwrap().win,
        WinDistance::Known(_)
    ));
}
