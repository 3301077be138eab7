//! Helpers shared by the unit tests: an application on the fixture with its jobs run
//! inline, key presses from a compact notation, and rendering to a test backend.

use crate::app::{execute, App, Event, ViewOptions};
use crate::data::fixture::two_boxes;
use crate::Workbench;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::path::Path;
use std::sync::Arc;

/// The application on the two-boxes fixture, loaded, at `size`.
pub fn fixture_app(view: ViewOptions, size: (u16, u16), dir: Option<&Path>) -> App {
    let bench: Arc<dyn Workbench> = Arc::new(two_boxes(dir).unwrap());
    let mut app = App::new(view, size);
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    app
}

/// The application on the synthetic fixture with 7-digit figures (complete, or
/// `partial` with a state never expanded), loaded, at `size`. The fixture is built
/// once per process.
pub fn big_app(view: ViewOptions, size: (u16, u16), partial: bool) -> App {
    use std::sync::OnceLock;
    static COMPLETE: OnceLock<Arc<dyn Workbench>> = OnceLock::new();
    static PARTIAL: OnceLock<Arc<dyn Workbench>> = OnceLock::new();
    let cell = if partial { &PARTIAL } else { &COMPLETE };
    let bench = cell
        .get_or_init(|| Arc::new(crate::data::big_fixture::big(partial).unwrap()))
        .clone();
    let mut app = App::new(view, size);
    app.on_event(Event::Loaded(Ok(bench)));
    run_jobs(&mut app);
    app
}

/// Runs every queued job inline, as the worker threads would, and the verification
/// the application asked for, as the runtime's verifier would.
pub fn run_jobs(app: &mut App) {
    while let Some(job) = app.take_job() {
        let bench = app.bench.clone().unwrap();
        let done = execute(bench.as_ref(), job);
        app.on_event(Event::Done(done));
    }
    if let Some(gen) = app.take_verification() {
        let bench = app.bench.clone().unwrap();
        let mut events = Vec::new();
        crate::app::verify_now(bench.as_ref(), gen, &|| false, &mut |e| events.push(e));
        for e in events {
            app.on_event(e);
        }
    }
}

/// Presses keys written as characters, with `<Enter>`, `<Esc>`, `<Bksp>`, `<Tab>`,
/// `<Up>`, `<Down>`, `<Left>`, `<Right>`, `<PgDn>`, `<PgUp>` for special keys; runs
/// the jobs after each key.
pub fn press(app: &mut App, keys: &str) {
    let mut rest = keys;
    while let Some(ch) = rest.chars().next() {
        let (code, len) = if ch == '<' && rest.len() > 1 && rest[1..].contains('>') {
            let end = rest.find('>').unwrap();
            let code = match &rest[1..end] {
                "Enter" => KeyCode::Enter,
                "Esc" => KeyCode::Esc,
                "Bksp" => KeyCode::Backspace,
                "Tab" => KeyCode::Tab,
                "Up" => KeyCode::Up,
                "Down" => KeyCode::Down,
                "Left" => KeyCode::Left,
                "Right" => KeyCode::Right,
                "PgDn" => KeyCode::PageDown,
                "PgUp" => KeyCode::PageUp,
                other => panic!("unknown key <{other}>"),
            };
            (code, end + 1)
        } else {
            (KeyCode::Char(ch), ch.len_utf8())
        };
        app.on_event(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
        run_jobs(app);
        rest = &rest[len..];
    }
}

/// The screen as text.
pub fn render(app: &App) -> String {
    let (w, h) = app.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| crate::ui::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

/// Plain, colourless views for the snapshot variants.
pub const UNICODE: ViewOptions = ViewOptions {
    ascii: false,
    colour: true,
};
/// The `--ascii` view.
pub const ASCII: ViewOptions = ViewOptions {
    ascii: true,
    colour: true,
};
