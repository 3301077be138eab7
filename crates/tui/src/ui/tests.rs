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
