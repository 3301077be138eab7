//! The rules overlay (rule coverage and hangs) at 80x24 on small PuzzleScript games
//! explored in memory: a dead rule and one that fires only once the level is lost
//! (`levels/puzzlescript/pitfall.txt`), a hang (`stuck-switch.txt`), and another game.

use crate::app::{App, Event, Overlay, RulesView};
use crate::test_support::{press, render, run_jobs, ASCII, UNICODE};
use crate::Workbench;
use std::sync::Arc;

fn bundled(file: &str) -> String {
    let path = format!(
        "{}/../../levels/puzzlescript/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn app_on(file: &str, view: crate::app::ViewOptions) -> App {
    let bench = crate::data::fixture::fixture_of(file, &bundled(file), 1000, None).unwrap();
    let bench: Arc<dyn Workbench> = Arc::new(bench);
    let mut app = App::new(view, (80, 24));
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    app
}

#[test]
fn pitfall_shows_the_dead_rule_and_the_lost_only_rule() {
    let mut app = app_on("pitfall.txt", UNICODE);
    press(&mut app, "c");
    let RulesView::Ready(report) = &app.rules else {
        panic!("no report: {:?}", app.rules);
    };
    let notes: Vec<(usize, u64, u64, &str)> = report
        .rules
        .iter()
        .map(|r| (r.line, r.states, r.live, r.note))
        .collect();
    assert_eq!(
        notes,
        [(62, 1, 0, "lost only"), (63, 1, 1, ""), (64, 0, 0, "never")]
    );
    insta::assert_snapshot!("rules_pitfall_80x24", render(&app));
    let mut ascii = app_on("pitfall.txt", ASCII);
    press(&mut ascii, "c");
    insta::assert_snapshot!("rules_pitfall_ascii_80x24", render(&ascii));
    press(&mut app, "<Esc>");
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn stuck_switch_shows_its_hang_with_the_inputs_from_the_start() {
    let mut app = app_on("stuck-switch.txt", UNICODE);
    press(&mut app, "c");
    let RulesView::Ready(report) = &app.rules else {
        panic!("no report: {:?}", app.rules);
    };
    assert_eq!(report.hang_count, 1);
    assert_eq!(report.hangs[0].inputs, ["right", "right", "action"]);
    insta::assert_snapshot!("rules_stuck_switch_80x24", render(&app));
    // Scrolling stops at the last page; `c` closes.
    press(&mut app, "<Down><Down><Down>");
    assert_eq!(
        app.overlay,
        Overlay::Rules(0),
        "everything fits: no scrolling"
    );
    press(&mut app, "c");
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn another_game_says_rule_coverage_is_puzzlescripts() {
    let mut app = crate::test_support::fixture_app(UNICODE, (80, 24), None);
    press(&mut app, "c");
    assert!(matches!(app.rules, RulesView::Unavailable(_)));
    insta::assert_snapshot!("rules_sokoban_80x24", render(&app));
}
