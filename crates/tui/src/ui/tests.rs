//! Snapshots of every screen and overlay on the fixture, at 80x24 and 160x48, in
//! Unicode and in ASCII.

use crate::app::ViewOptions;
use crate::test_support::{fixture_app, press, render, ASCII, UNICODE};

const SMALL: (u16, u16) = (80, 24);
const LARGE: (u16, u16) = (160, 48);

fn shot(view: ViewOptions, size: (u16, u16), keys: &str) -> String {
    let mut app = fixture_app(view, size, None);
    press(&mut app, keys);
    render(&app)
}

macro_rules! screens {
    ($($name:ident: $keys:expr;)*) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_80x24"),
                    shot(UNICODE, SMALL, $keys)
                );
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_160x48"),
                    shot(UNICODE, LARGE, $keys)
                );
                insta::assert_snapshot!(
                    concat!(stringify!($name), "_ascii_80x24"),
                    shot(ASCII, SMALL, $keys)
                );
            }
        )*
    };
}

screens! {
    overview: "";
    browser: "2";
    browser_members_focused: "2lll";
    paths: "3";
    graph: "4";
    help: "?";
    bookmark_list: "b<Enter>'";
    search_prompt: "/win";
}

#[test]
fn loading_and_error_screens() {
    let mut app = crate::app::App::new(UNICODE, SMALL);
    app.phase = "opening the store".into();
    insta::assert_snapshot!("loading_80x24", render(&app));
    app.on_event(crate::app::Event::Loaded(Err(
        "DIR: no MANIFEST file".into()
    )));
    insta::assert_snapshot!("error_80x24", render(&app));
}

#[test]
fn the_overview_read_ahead_is_drawn_while_the_rest_loads() {
    use crate::app::{App, Event, Screen};
    use crate::Workbench;
    let fixture = crate::data::fixture::two_boxes(None).unwrap();
    let mut app = App::new(UNICODE, SMALL);
    app.on_event(Event::Phase("loading the analysis".into()));
    app.on_event(Event::Preview(Box::new(fixture.overview())));
    press(&mut app, "2");
    assert_eq!(app.screen, Screen::Overview, "keys wait for the data");
    insta::assert_snapshot!("overview_preview_80x24", render(&app));
}

#[test]
fn no_colour_means_no_colour_anywhere() {
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;
    use ratatui::Terminal;
    let view = ViewOptions {
        ascii: false,
        colour: false,
    };
    for keys in ["", "2", "3", "4", "?"] {
        let mut app = fixture_app(view, SMALL, None);
        press(&mut app, keys);
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        terminal.draw(|f| crate::ui::draw(f, &app)).unwrap();
        let buffer = terminal.backend().buffer();
        assert!(
            buffer
                .content
                .iter()
                .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
            "colour on screen {keys:?}"
        );
    }
}

#[test]
fn every_screen_survives_tiny_and_odd_sizes() {
    for size in [(1, 1), (10, 3), (20, 6), (33, 11), (81, 25)] {
        for keys in ["", "2", "2lll", "3", "4", "?", "'", "/x"] {
            let mut app = fixture_app(UNICODE, size, None);
            press(&mut app, keys);
            let _ = render(&app);
            app.on_event(crate::app::Event::Resize(size.0 + 7, size.1 + 3));
            let _ = render(&app);
        }
    }
}

#[test]
fn a_large_partial_run_shows_a_neighbourhood_that_follows_the_selection() {
    use crate::app::{App, Event};
    use crate::Workbench;
    use std::sync::Arc;
    let level = "\
##########
#@       #
#        #
#  $  $  #
#   ##   #
#        #
#  $     #
#      . #
#     .. #
##########
";
    let bench = crate::data::fixture::fixture(level, 3000, None).unwrap();
    assert!(bench.hyperstate_count() > crate::app::jobs::WHOLE_GRAPH_MAX);
    let mut app = App::new(UNICODE, SMALL);
    app.on_event(Event::Loaded(Ok(Arc::new(bench))));
    press(&mut app, "4");
    let first = app.graph.data.clone().unwrap();
    assert_eq!(first.hood.center, app.selected);
    assert_eq!(first.hood.radius, crate::DEFAULT_RADIUS);
    assert!(first.hood.nodes.len() <= crate::app::jobs::NEIGHBOURHOOD_MAX);
    press(&mut app, "<Enter>");
    let second = app.graph.data.clone().unwrap();
    assert_eq!(second.hood.center, app.selected);
    assert_ne!(second.hood.center, first.hood.center);
    press(&mut app, "{");
    assert_eq!(
        app.graph.data.as_ref().unwrap().hood.radius,
        crate::DEFAULT_RADIUS - 1
    );
    insta::assert_snapshot!("graph_neighbourhood_80x24", render(&app));
}

#[test]
fn the_overview_of_a_running_exploration_shows_its_live_hyperstates() {
    use crate::app::Event;
    use crate::data::{LiveFigures, LiveProgress, RunState};
    let mut app = fixture_app(UNICODE, LARGE, None);
    app.on_event(Event::Progress(LiveProgress {
        state: Some(RunState::Running),
        states: 5000,
        expanded: 4000,
        transitions: 12000,
        depth: 20,
        states_per_sec: 250000.0,
        elapsed_secs: 3.0,
        phase: "exploring".into(),
        live_hsg: Some(Ok(LiveFigures {
            hsg: hsg::LiveHsg {
                hyperstates: 61,
                depth: 4,
                winning: 1,
                dead_states: 2400,
                dead_hyperstates: 50,
            },
            depth_limit: Some(5),
            held_back: 0,
        })),
    }));
    let screen = render(&app);
    assert!(
        screen.contains("so far 61 hyperstates, HSG depth 4 (limit 5)"),
        "{screen}"
    );
    insta::assert_snapshot!("overview_live_160x48", screen);
}
