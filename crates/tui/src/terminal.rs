//! The event loop on a real terminal: raw mode and the alternate screen (always
//! restored: on quit, on error and on panic), an input thread, worker threads for jobs,
//! a loader thread, and a poller that re-reads the progress an exploring process
//! publishes. Only this module touches the terminal.

use crate::app::{execute, App, Event, Job, ViewOptions};
use crate::error::TuiError;
use crate::ui;
use crate::Workbench;
use crossterm::event::{self as term_event, Event as TermEvent, KeyEventKind};
use crossterm::{cursor, execute as term_execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use std::io::{stdout, Stdout};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, Once};
use std::thread::{self, ThreadId};
use std::time::Duration;

/// How often the spinner turns while work runs.
const TICK: Duration = Duration::from_millis(100);
/// How often the published progress of an exploring process is re-read.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// Worker threads for jobs (the machine this was written for has two cores).
const WORKERS: usize = 2;

/// Something that opens the data, told what it is doing through the callback.
pub type Loader =
    Box<dyn FnOnce(&dyn Fn(&str)) -> Result<Arc<dyn Workbench>, TuiError> + Send + 'static>;

/// The thread that owns the terminal while the workbench runs: the panic hook restores
/// the terminal only for panics on that thread (workers' panics are caught and shown).
static UI_THREAD: Mutex<Option<ThreadId>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// Leaves raw mode and the alternate screen and shows the cursor (idempotent).
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = term_execute!(stdout(), terminal::LeaveAlternateScreen, cursor::Show);
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
        let entered = term_execute!(stdout(), terminal::EnterAlternateScreen, cursor::Hide);
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

/// Runs the workbench on the terminal until the user quits.
pub fn run_with_loader(view: ViewOptions, loader: Loader) -> Result<(), TuiError> {
    let mut session = Session::enter()?;
    let size = session.terminal.size().map_err(TuiError::Terminal)?;
    let mut app = App::new(view, (size.width, size.height));
    let (tx, rx) = channel::<Event>();
    let stop = Arc::new(AtomicBool::new(false));
    spawn_input(tx.clone(), stop.clone());
    spawn_loader(tx.clone(), loader);
    let jobs = spawn_workers(tx.clone());
    let result = event_loop(&mut session, &mut app, &rx, &jobs, (&tx, &stop));
    stop.store(true, Ordering::Relaxed);
    result
}

fn event_loop(
    session: &mut Session,
    app: &mut App,
    rx: &Receiver<Event>,
    jobs: &Sender<(Arc<dyn Workbench>, Job)>,
    (tx, stop): (&Sender<Event>, &Arc<AtomicBool>),
) -> Result<(), TuiError> {
    let mut polling = false;
    loop {
        session
            .terminal
            .draw(|f| ui::draw(f, app))
            .map_err(TuiError::Terminal)?;
        let event = match rx.recv_timeout(TICK) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) if app.busy() => Event::Tick,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Ok(()),
        };
        app.on_event(event);
        if let Some(bench) = app.bench.clone() {
            while let Some(job) = app.take_job() {
                let _ = jobs.send((bench.clone(), job));
            }
            if !polling && bench.is_live() {
                polling = true;
                spawn_progress_poller(bench, tx.clone(), stop.clone());
            }
        }
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
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(event).is_err() {
                return;
            }
        }
    });
}

fn spawn_loader(tx: Sender<Event>, loader: Loader) {
    thread::spawn(move || {
        let phase_tx = tx.clone();
        let phase = move |p: &str| {
            let _ = phase_tx.send(Event::Phase(p.to_string()));
        };
        let loaded = catch_unwind(AssertUnwindSafe(|| loader(&phase)));
        let message = match loaded {
            Ok(Ok(bench)) => return drop(tx.send(Event::Loaded(Ok(bench)))),
            Ok(Err(e)) => e.to_string(),
            Err(panic) => format!("the loader failed: {}", panic_message(&panic)),
        };
        let _ = tx.send(Event::Loaded(Err(message)));
    });
}

/// Starts the job workers; jobs are sent with the workbench they run against.
fn spawn_workers(tx: Sender<Event>) -> Sender<(Arc<dyn Workbench>, Job)> {
    let (jobs_tx, jobs_rx) = channel::<(Arc<dyn Workbench>, Job)>();
    let jobs_rx = Arc::new(Mutex::new(jobs_rx));
    for _ in 0..WORKERS {
        let (rx, tx) = (jobs_rx.clone(), tx.clone());
        thread::spawn(move || loop {
            let next = match rx.lock() {
                Ok(r) => r.recv(),
                Err(_) => return,
            };
            let Ok((bench, job)) = next else { return };
            let done = catch_unwind(AssertUnwindSafe(|| execute(bench.as_ref(), job)));
            let event = match done {
                Ok(d) => Event::Done(d),
                Err(panic) => Event::Failed(panic_message(&panic)),
            };
            if tx.send(event).is_err() {
                return;
            }
        });
    }
    jobs_tx
}

fn spawn_progress_poller(bench: Arc<dyn Workbench>, tx: Sender<Event>, stop: Arc<AtomicBool>) {
    thread::spawn(move || {
        // Reading MANIFEST never blocks the explorer: it is replaced atomically.
        while !stop.load(Ordering::Relaxed) {
            let Some(p) = bench.live_progress() else {
                return;
            };
            let running = p.state == Some(crate::data::RunState::Running);
            if tx.send(Event::Progress(p)).is_err() || !running {
                return;
            }
            thread::sleep(PROGRESS_EVERY);
        }
    });
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
