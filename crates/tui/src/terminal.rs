//! The event loop on a real terminal: raw mode and the alternate screen (always
//! restored: on quit, on error and on panic) and the input thread. The loader, the
//! workers and the progress poller are in [`crate::runtime`]. Only this module touches
//! the terminal.

use crate::app::{App, Event, ViewOptions};
use crate::error::TuiError;
use crate::runtime::{Loader, Next, Reloader, Runtime, TICK};
use crate::ui;
use crossterm::event::{self as term_event, Event as TermEvent, KeyEventKind};
use crossterm::{cursor, execute as term_execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{stdout, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, Once};
use std::thread::{self, ThreadId};

/// The thread that owns the terminal while the workbench runs: the panic hook restores
/// the terminal only for panics on that thread (workers' panics are caught and shown).
static UI_THREAD: Mutex<Option<ThreadId>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// Leaves raw mode and the alternate screen and shows the cursor (idempotent).
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = term_execute!(
        stdout(),
        term_event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show
    );
}

fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let ui = UI_THREAD.lock().map(|t| *t).unwrap_or(None);
            match ui {
                Some(id) if id == thread::current().id() => {
                    restore();
                    previous(info);
                }
                // A worker's panic is caught and shown in the status line; printing
                // it over the screen would only garble the display.
                Some(_) => {}
                None => previous(info),
            }
        }));
    });
}

/// Raw mode and the alternate screen for as long as it lives.
struct Session {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl Session {
    fn enter() -> Result<Session, TuiError> {
        install_panic_hook();
        if let Ok(mut t) = UI_THREAD.lock() {
            *t = Some(thread::current().id());
        }
        terminal::enable_raw_mode().map_err(TuiError::Terminal)?;
        let entered = term_execute!(
            stdout(),
            terminal::EnterAlternateScreen,
            term_event::EnableMouseCapture,
            cursor::Hide
        );
        let terminal = entered.and_then(|_| Terminal::new(CrosstermBackend::new(stdout())));
        match terminal {
            Ok(terminal) => Ok(Session { terminal }),
            Err(e) => {
                restore();
                Err(TuiError::Terminal(e))
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        restore();
        if let Ok(mut t) = UI_THREAD.lock() {
            *t = None;
        }
    }
}

/// Runs the workbench on the terminal until the user quits; `reloader`, if given,
/// makes the loader again for the reload key.
pub fn run_with_loader(
    view: ViewOptions,
    loader: Loader,
    reloader: Option<Reloader>,
) -> Result<(), TuiError> {
    let mut session = Session::enter()?;
    let size = session.terminal.size().map_err(TuiError::Terminal)?;
    let mut app = App::new(view, (size.width, size.height));
    let mut runtime = Runtime::start(loader);
    if let Some(r) = reloader {
        runtime.set_reloader(r);
    }
    spawn_input(runtime.sender(), runtime.stop_flag());
    event_loop(&mut session, &mut app, &mut runtime)
}

fn event_loop(session: &mut Session, app: &mut App, runtime: &mut Runtime) -> Result<(), TuiError> {
    loop {
        session
            .terminal
            .draw(|f| ui::draw(f, app))
            .map_err(TuiError::Terminal)?;
        let event = match runtime.next(app, TICK) {
            Next::Event(e) => e,
            Next::Idle => continue,
            Next::Closed => return Ok(()),
        };
        app.on_event(event);
        runtime.dispatch(app);
        if app.quit {
            return Ok(());
        }
    }
}

fn spawn_input(tx: Sender<Event>, stop: Arc<AtomicBool>) {
    thread::spawn(move || {
        // Polling with a timeout lets the thread end when the workbench closes, so it
        // never steals input from whatever runs next in the same process.
        while !stop.load(Ordering::Relaxed) {
            match term_event::poll(TICK) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => return,
            }
            let event = match term_event::read() {
                Ok(TermEvent::Key(k)) if k.kind != KeyEventKind::Release => Event::Key(k),
                Ok(TermEvent::Resize(w, h)) => Event::Resize(w, h),
                Ok(TermEvent::Mouse(m)) if wanted(&m) => Event::Mouse(m),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    });
}

/// The mouse events the workbench reacts to (clicks and the wheel); moves and drags,
/// which come by the dozen, are not worth waking the event loop for.
fn wanted(m: &term_event::MouseEvent) -> bool {
    use term_event::{MouseButton, MouseEventKind as K};
    matches!(
        m.kind,
        K::ScrollUp | K::ScrollDown | K::Down(MouseButton::Left)
    )
}
