//! Key-sequence tests on the fixture: navigation, history, search, sorting, paths and
//! bookmarks persisted across reopening.

use super::{Overlay, Pane, Screen};
use crate::data::{SortKey, Tag};
use crate::test_support::{fixture_app, press, UNICODE};

const SIZE: (u16, u16) = (80, 24);

fn tag_of(app: &super::App, h: u64) -> Tag {
    app.bench.as_ref().unwrap().row(h).unwrap().tag
}

#[test]
fn table_navigation_moves_the_selection_without_history() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    let root = app.selected;
    press(&mut app, "2");
    assert_eq!(app.screen, Screen::Browser);
    assert_eq!(app.table.cursor, root);
    press(&mut app, "g");
    assert_eq!((app.table.cursor, app.selected), (0, 0));
    press(&mut app, "jj");
    assert_eq!(app.selected, 2);
    press(&mut app, "G");
    let last = app.table.order.len() - 1;
    assert_eq!(app.selected, last);
    press(&mut app, "<PgUp>");
    assert!(app.selected < last);
    assert!(app.back.is_empty(), "cursor moves are not jumps");
}

#[test]
fn enter_follows_the_selected_action_and_history_goes_back_and_forward() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    let root = app.selected;
    let outs: Vec<u64> = app
        .focus
        .as_ref()
        .unwrap()
        .out
        .items
        .iter()
        .map(|a| a.other)
        .collect();
    assert!(outs.len() >= 2);
    press(&mut app, ".<Enter>");
    assert_eq!(app.selected, outs[1]);
    press(&mut app, "<Bksp>");
    assert_eq!(app.selected, root);
    press(&mut app, "]");
    assert_eq!(app.selected, outs[1]);
    press(&mut app, "[[");
    assert_eq!(app.selected, root);
    assert!(app.status.contains("no earlier"), "{}", app.status);
    press(&mut app, "r");
    assert_eq!(app.selected, root);
}

#[test]
fn incoming_pane_enter_goes_to_the_source() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "<Enter>");
    let child = app.selected;
    press(&mut app, "2ll");
    assert_eq!(app.pane, Pane::In);
    let source = app.focus.as_ref().unwrap().inc.items[app.in_cursor].other;
    press(&mut app, "<Enter>");
    assert_eq!(app.selected, source);
    assert_ne!(app.selected, child);
}

#[test]
fn nearest_win_fail_and_ideal_steps() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    let root = app.selected;
    press(&mut app, "w");
    assert_eq!(tag_of(&app, app.selected), Tag::Win);
    press(&mut app, "r");
    press(&mut app, "f");
    assert!(tag_of(&app, app.selected).is_lost());
    press(&mut app, "r");
    let ideal = app.bench.as_ref().unwrap().ideal_path();
    press(&mut app, "i");
    assert_eq!(app.selected, ideal[1]);
    press(&mut app, "ii");
    assert_eq!(app.selected, *ideal.last().unwrap());
    assert!(app.status.contains("end of the ideal path"));
    assert_eq!(app.back.first(), Some(&root));
}

#[test]
fn search_by_number_state_tag_and_text_with_next() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "/51<Enter>");
    assert_eq!(app.selected, 51);
    press(&mut app, "/s0<Enter>");
    assert_eq!(app.selected, app.bench.as_ref().unwrap().root());
    press(&mut app, "/win<Enter>");
    let first = app.selected;
    assert_eq!(tag_of(&app, first), Tag::Win);
    press(&mut app, "n");
    assert_eq!(tag_of(&app, app.selected), Tag::Win);
    assert_ne!(app.selected, first);
    // A box on a goal is drawn `*` by the Sokoban renderer.
    press(&mut app, "/*<Enter>");
    assert!(app.status.contains("shows"), "{}", app.status);
    press(&mut app, "/9999<Enter>");
    assert!(app.status.contains("no hyperstate 9999"), "{}", app.status);
    press(&mut app, "/xy<Bksp>z<Esc>");
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn sorting_and_filtering_reorder_the_table() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "2s");
    assert_eq!(app.table.sort, SortKey::Depth);
    let bench = app.bench.clone().unwrap();
    let depth_at = |app: &super::App, i| bench.row(app.table.order.at(i).unwrap()).unwrap().depth;
    assert_eq!(depth_at(&app, 0), Some(0));
    press(&mut app, "S");
    assert!(depth_at(&app, 0) >= depth_at(&app, 1));
    press(&mut app, "t");
    assert_eq!(app.table.filter, Some(Tag::Win));
    assert_eq!(app.table.order.len(), 2);
    press(&mut app, "g");
    assert_eq!(tag_of(&app, app.selected), Tag::Win);
}

#[test]
fn stepping_along_a_path_moves_the_selection_but_keeps_the_anchor() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    let root = app.selected;
    press(&mut app, "3");
    assert!(app.paths.ready);
    assert_eq!(app.paths.anchor, Some(root));
    press(&mut app, "lj");
    assert_eq!(app.selected, app.paths.lists[1][1]);
    assert_eq!(app.paths.anchor, Some(root));
    press(&mut app, "w");
    assert_eq!(app.paths.anchor, Some(app.selected), "a jump re-anchors");
}

#[test]
fn graph_keys_zoom_pan_and_reset() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "4");
    assert!(app.graph.data.is_some());
    press(&mut app, "++l");
    assert!(app.graph.zoom > 1.5);
    assert!(app.graph.pan.0 > 0.0);
    press(&mut app, "0");
    assert_eq!((app.graph.zoom, app.graph.pan), (1.0, (0.0, 0.0)));
}

#[test]
fn play_or_the_bookmark_list_asked_for_while_loading_opens_once_loaded() {
    // Regression: `'` pressed while the preview showed was dropped, and the tmux test
    // `bookmarks_survive_closing_and_reopening` timed out on it under load.
    use super::{App, Event, Overlay};
    use crate::Workbench;
    use std::sync::Arc;
    let bench: Arc<dyn Workbench> = Arc::new(crate::data::fixture::two_boxes(None).unwrap());
    for (key, opened) in [("'", "the bookmark list"), ("p", "play mode")] {
        let mut app = App::new(UNICODE, SIZE);
        app.on_event(Event::Preview(Box::new(bench.overview())));
        press(&mut app, key);
        app.on_event(Event::Loaded(Ok(bench.clone())));
        crate::test_support::run_jobs(&mut app);
        let open = app.overlay == Overlay::Bookmarks(0) || app.play.is_some();
        assert!(open, "{opened} is not open");
    }
}

#[test]
fn a_screen_key_pressed_while_loading_opens_its_screen_once_loaded() {
    // Regression: the overview's preview shows before the workbench has
    // loaded, and a `2` pressed then was dropped, so the browser never came
    // (the tmux test `ascii_and_no_colour_draw_plain_text` timed out on it
    // under load).
    use super::{App, Event};
    use crate::Workbench;
    use std::sync::Arc;
    let bench: Arc<dyn Workbench> = Arc::new(crate::data::fixture::two_boxes(None).unwrap());
    let mut app = App::new(UNICODE, SIZE);
    app.on_event(Event::Preview(Box::new(bench.overview())));
    press(&mut app, "3j2");
    assert_eq!(
        app.screen,
        Screen::Overview,
        "the screen waits for the data"
    );
    app.on_event(Event::Loaded(Ok(bench)));
    crate::test_support::run_jobs(&mut app);
    assert_eq!(app.screen, Screen::Browser, "the last screen asked for");
    assert_eq!(
        app.selected,
        app.bench.as_ref().unwrap().root(),
        "other keys are not replayed"
    );
}

#[test]
fn help_opens_and_any_key_closes_it_and_q_quits() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "?");
    assert_eq!(app.overlay, Overlay::Help(0));
    press(&mut app, "jjk");
    assert_eq!(app.overlay, Overlay::Help(1));
    press(&mut app, "q");
    assert_eq!(app.overlay, Overlay::None);
    assert!(!app.quit);
    press(&mut app, "q");
    assert!(app.quit);
}

/// Escape then `q` read together arrive as Alt-q: the help closes and the workbench quits,
/// as the two keys would (regression: the workbench ignored the pair, and a test waited
/// for an exit that never came).
#[test]
fn an_unbound_alt_key_is_escape_then_the_key() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut app = fixture_app(UNICODE, SIZE, None);
    press(&mut app, "2?");
    assert_eq!(app.overlay, Overlay::Help(0));
    let alt = |ch| super::Event::Key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::ALT));
    app.on_event(alt('3'));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(
        app.screen,
        Screen::Paths,
        "the 3 after the Escape went to the screen"
    );
    app.on_event(alt('q'));
    assert!(app.quit);
}

#[test]
fn bookmarks_persist_across_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = fixture_app(UNICODE, SIZE, Some(dir.path()));
    press(&mut app, "w");
    let win = app.selected;
    press(&mut app, "bsolved<Enter>");
    assert!(app.status.contains("bookmarked"), "{}", app.status);
    drop(app);
    let mut again = fixture_app(UNICODE, SIZE, Some(dir.path()));
    assert_eq!(again.bookmarks.items().len(), 1);
    assert_eq!(again.bookmarks.items()[0].note, "solved");
    press(&mut again, "'<Enter>");
    assert_eq!(again.selected, win);
    press(&mut again, "'d<Esc>");
    assert!(again.bookmarks.items().is_empty());
}

#[test]
fn why_selects_where_a_lost_hyperstate_was_lost_and_refuses_a_winnable_one() {
    let mut app = fixture_app(UNICODE, SIZE, None);
    let root = app.selected;
    press(&mut app, "y");
    assert_eq!(app.selected, root);
    assert!(app.status.contains("can still win"), "{}", app.status);
    press(&mut app, "f");
    let lost = app.selected;
    assert!(tag_of(&app, lost).is_lost());
    press(&mut app, "y");
    assert!(
        app.status.starts_with("why: lost by critical action"),
        "{}",
        app.status
    );
    // The selection can still win, and one of its critical actions leads into a lost
    // hyperstate on the root's path to the explained one.
    assert!(!tag_of(&app, app.selected).is_lost());
    let bench = app.bench.clone().unwrap();
    let path = bench.path_from_root(lost);
    let k = path.iter().position(|&h| h == app.selected).unwrap();
    assert!(tag_of(&app, path[k + 1]).is_lost());
}
