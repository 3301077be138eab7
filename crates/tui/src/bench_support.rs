//! A headless copy of the terminal event loop for the latency benchmark: the real
//! [`Runtime`] (loader and worker threads), the real [`App`] and `ui::draw`, drawing on
//! a ratatui `TestBackend` instead of a terminal, with every step timed.

use crate::app::{App, Event, ViewOptions};
use crate::runtime::{Loader, Next, Runtime, TICK};
use crate::ui;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::{Duration, Instant};

/// The time one key took: applying it (and handing its jobs to the workers), then
/// drawing the frame that shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyTiming {
    /// `App::on_event` and the job hand-off.
    pub handle: Duration,
    /// `ui::draw` on the test backend, with the backend's diff and flush.
    pub draw: Duration,
    /// From the key until the jobs it queued came back and their frames were drawn
    /// (equal to `handle + draw` when it queued none).
    pub settled: Duration,
    /// Whether the key left background work running after its frame.
    pub queued_jobs: bool,
    /// The slowest frame drawn while its work ran and when its results came back.
    pub worst_result_frame: Duration,
}

impl KeyTiming {
    /// From the key to its frame on screen.
    pub fn total(&self) -> Duration {
        self.handle + self.draw
    }
}

/// Start-up times of one session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Startup {
    /// From start to the first frame drawn (the loading screen, usually).
    pub first_frame: Duration,
    /// From start to the first frame showing the overview's facts (read ahead of the
    /// rest of the data when the loader can).
    pub overview: Option<Duration>,
    /// From start to the first frame drawn with all the data loaded (every key works).
    pub loaded: Option<Duration>,
}

/// The workbench running headless.
pub struct Harness {
    /// The application state.
    pub app: App,
    terminal: Terminal<TestBackend>,
    runtime: Runtime,
}

impl Harness {
    /// Starts a session as `run` does (application, loader, workers, first frame) at
    /// `size`, then applies events until the data is loaded or `limit` passes.
    pub fn start(
        loader: Loader,
        view: ViewOptions,
        size: (u16, u16),
        limit: Duration,
    ) -> std::io::Result<(Harness, Startup)> {
        let start = Instant::now();
        let app = App::new(view, size);
        let runtime = Runtime::start(loader);
        let terminal = Terminal::new(TestBackend::new(size.0, size.1))?;
        let mut h = Harness {
            app,
            terminal,
            runtime,
        };
        h.draw()?;
        let first_frame = start.elapsed();
        let (mut overview, mut loaded) = (None, None);
        while start.elapsed() < limit && h.app.fatal.is_none() {
            let Next::Event(e) = h.runtime.next(&h.app, TICK) else {
                continue;
            };
            h.app.on_event(e);
            h.runtime.dispatch(&mut h.app);
            h.draw()?;
            if h.app.overview.is_some() && overview.is_none() {
                overview = Some(start.elapsed());
            }
            if h.app.bench.is_some() {
                loaded = Some(start.elapsed());
                break;
            }
        }
        let startup = Startup {
            first_frame,
            overview,
            loaded,
        };
        Ok((h, startup))
    }

    /// Applies events (drawing after each, as the event loop does) until the
    /// background verification of the data has ended or `limit` passes; the time it
    /// took, `None` if it is still running.
    pub fn await_verification(&mut self, limit: Duration) -> std::io::Result<Option<Duration>> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if !matches!(self.app.integrity, crate::app::Integrity::Verifying { .. }) {
                return Ok(Some(start.elapsed()));
            }
            if let Next::Event(e) = self.runtime.next(&self.app, TICK) {
                self.app.on_event(e);
                self.runtime.dispatch(&mut self.app);
                self.draw()?;
            }
        }
        Ok(None)
    }

    /// Lets the reload key run the loader again, made by `reloader`.
    pub fn set_reloader(&mut self, reloader: crate::runtime::Reloader) {
        self.runtime.set_reloader(reloader);
    }

    /// Draws one frame.
    pub fn draw(&mut self) -> std::io::Result<()> {
        let app = &self.app;
        self.terminal.draw(|f| ui::draw(f, app))?;
        Ok(())
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        self.terminal.backend().to_string()
    }

    /// Presses `key` and times it; then applies the events of the work it started,
    /// drawing a frame after each as the event loop does, until nothing runs (or
    /// `limit` passes).
    pub fn press(&mut self, key: KeyEvent, limit: Duration) -> std::io::Result<KeyTiming> {
        let start = Instant::now();
        self.app.on_event(Event::Key(key));
        self.runtime.dispatch(&mut self.app);
        let handle = start.elapsed();
        self.draw()?;
        let draw = start.elapsed() - handle;
        let queued_jobs = self.app.busy();
        let mut worst_result_frame = Duration::ZERO;
        while self.app.busy() && start.elapsed() < limit {
            let Next::Event(e) = self.runtime.next(&self.app, TICK) else {
                break;
            };
            let frame = Instant::now();
            self.app.on_event(e);
            self.runtime.dispatch(&mut self.app);
            self.draw()?;
            worst_result_frame = worst_result_frame.max(frame.elapsed());
        }
        Ok(KeyTiming {
            handle,
            draw,
            settled: start.elapsed(),
            queued_jobs,
            worst_result_frame,
        })
    }
}

/// Keys written as characters, with `<Enter>`, `<Esc>`, `<Bksp>`, `<Tab>`, `<BackTab>`,
/// `<Up>`, `<Down>`, `<Left>`, `<Right>`, `<PgDn>` and `<PgUp>` for special keys.
pub fn parse_keys(notation: &str) -> Result<Vec<KeyEvent>, String> {
    let mut keys = Vec::new();
    let mut rest = notation;
    while let Some(ch) = rest.chars().next() {
        let special = (ch == '<').then(|| rest.find('>')).flatten();
        let (code, len) = match special {
            Some(end) if end > 1 => (special_key(&rest[1..end])?, end + 1),
            _ => (KeyCode::Char(ch), ch.len_utf8()),
        };
        let mods = if code == KeyCode::BackTab {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        keys.push(KeyEvent::new(code, mods));
        rest = &rest[len..];
    }
    Ok(keys)
}

fn special_key(name: &str) -> Result<KeyCode, String> {
    Ok(match name {
        "Enter" => KeyCode::Enter,
        "Esc" => KeyCode::Esc,
        "Bksp" => KeyCode::Backspace,
        "Tab" => KeyCode::Tab,
        "BackTab" => KeyCode::BackTab,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "PgDn" => KeyCode::PageDown,
        "PgUp" => KeyCode::PageUp,
        other => return Err(format!("unknown key <{other}>")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_notation_reads_chars_and_named_keys() {
        let keys = parse_keys("j<PgDn><x").unwrap();
        let codes: Vec<KeyCode> = keys.iter().map(|k| k.code).collect();
        assert_eq!(
            codes,
            [
                KeyCode::Char('j'),
                KeyCode::PageDown,
                KeyCode::Char('<'),
                KeyCode::Char('x')
            ]
        );
        assert!(parse_keys("<Nope>").is_err());
    }
}
