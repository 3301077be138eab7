//! The workbench's threads, independent of any terminal: the loader, the job workers and
//! the poller of an exploring process' progress, all reporting to the UI thread as
//! [`Event`]s on one channel. The terminal loop and the latency benchmark both drive an
//! [`App`] through a [`Runtime`], so the benchmark measures the real machinery.

use crate::app::{execute, verify_now, App, Event, Job, VerifyStatus};
use crate::data::Overview;
use crate::error::TuiError;
use crate::Workbench;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How often the spinner turns while work runs.
pub const TICK: Duration = Duration::from_millis(100);
/// How often the published progress of an exploring process is re-read.
const PROGRESS_EVERY: Duration = Duration::from_secs(1);
/// Worker threads for jobs (the machine this was written for has two cores).
const WORKERS: usize = 2;

/// What a loader tells the UI while it works.
pub enum Report {
    /// What it is doing now, for the loading screen.
    Phase(String),
    /// The overview, known before the rest of the data (drawn while loading goes on).
    Overview(Box<Overview>),
}

/// Something that opens the data, telling the UI how it goes through the callback.
pub type Loader =
    Box<dyn FnOnce(&dyn Fn(Report)) -> Result<Arc<dyn Workbench>, TuiError> + Send + 'static>;

/// What waiting for the next event gave.
pub enum Next {
    /// An event to apply.
    Event(Event),
    /// Nothing happened and nothing runs: there is no need to redraw.
    Idle,
    /// Every sender is gone.
    Closed,
}

/// The loader, the workers and the channel they report on.
pub struct Runtime {
    tx: Sender<Event>,
    rx: Receiver<Event>,
    jobs: Sender<(Arc<dyn Workbench>, Job)>,
    stop: Arc<AtomicBool>,
    polling: bool,
    /// Stops the verification running, when a newer one starts.
    verifying: Option<Arc<AtomicBool>>,
    /// Makes the loader again when the user asks for a reload (none: nothing to reload).
    reloader: Option<Reloader>,
}

/// Makes a fresh loader of the same data (for the reload key).
pub type Reloader = Box<dyn Fn() -> Loader>;

impl Runtime {
    /// Starts the workers and the loader, which begins opening the data at once.
    pub fn start(loader: Loader) -> Runtime {
        let (tx, rx) = channel::<Event>();
        spawn_loader(tx.clone(), loader);
        let jobs = spawn_workers(tx.clone());
        Runtime {
            tx,
            rx,
            jobs,
            stop: Arc::new(AtomicBool::new(false)),
            polling: false,
            verifying: None,
            reloader: None,
        }
    }

    /// Lets the reload key run the loader again, made by `reloader`.
    pub fn set_reloader(&mut self, reloader: Reloader) {
        self.reloader = Some(reloader);
    }

    /// A sender for events from elsewhere (the terminal's input thread).
    pub fn sender(&self) -> Sender<Event> {
        self.tx.clone()
    }

    /// Set when the workbench closes, for threads that should end with it.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Waits up to `timeout` for the next event; a timeout while `app` is busy is a
    /// [`Event::Tick`], which turns the spinner.
    pub fn next(&self, app: &App, timeout: Duration) -> Next {
        match self.rx.recv_timeout(timeout) {
            Ok(e) => Next::Event(e),
            Err(RecvTimeoutError::Timeout) if app.busy() => Next::Event(Event::Tick),
            Err(RecvTimeoutError::Timeout) => Next::Idle,
            Err(RecvTimeoutError::Disconnected) => Next::Closed,
        }
    }

    /// Hands the jobs `app` queued to the workers, and starts polling the progress of
    /// an exploring process once the data is known to be live. Called after each event.
    pub fn dispatch(&mut self, app: &mut App) {
        if app.take_reload() {
            self.reload(app);
        }
        let Some(bench) = app.bench.clone() else {
            return;
        };
        while let Some(job) = app.take_job() {
            let _ = self.jobs.send((bench.clone(), job));
        }
        if let Some(gen) = app.take_verification() {
            if let Some(old) = self.verifying.take() {
                old.store(true, Ordering::Relaxed);
            }
            let own = Arc::new(AtomicBool::new(false));
            self.verifying = Some(own.clone());
            spawn_verifier(
                bench.clone(),
                gen,
                self.tx.clone(),
                [self.stop.clone(), own],
            );
        }
        if !self.polling && bench.is_live() {
            self.polling = true;
            spawn_progress_poller(bench, self.tx.clone(), self.stop.clone());
        }
    }
}

impl Runtime {
    /// Runs the loader again (the verification of the old data stops), or tells `app`
    /// that there is nothing to reload.
    fn reload(&mut self, app: &mut App) {
        let Some(make) = &self.reloader else {
            app.on_event(Event::Loaded(Err(
                "nothing to reload: this workbench was not opened on a run directory".into(),
            )));
            return;
        };
        if let Some(old) = self.verifying.take() {
            old.store(true, Ordering::Relaxed);
        }
        spawn_loader(self.tx.clone(), make());
    }
}

/// Verifies `bench` on a thread of its own (see [`crate::app::integrity`]); it ends
/// early when either stop flag is set.
fn spawn_verifier(
    bench: Arc<dyn Workbench>,
    gen: u64,
    tx: Sender<Event>,
    stops: [Arc<AtomicBool>; 2],
) {
    thread::spawn(move || {
        let stop = || stops.iter().any(|s| s.load(Ordering::Relaxed));
        let mut send = |e: Event| drop(tx.send(e));
        let ran = catch_unwind(AssertUnwindSafe(|| {
            verify_now(bench.as_ref(), gen, &stop, &mut send)
        }));
        if let Err(panic) = ran {
            let status = VerifyStatus::Failed(panic_message(&panic));
            let _ = tx.send(Event::Verify { gen, status });
        }
    });
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn spawn_loader(tx: Sender<Event>, loader: Loader) {
    thread::spawn(move || {
        let report_tx = tx.clone();
        let report = move |r: Report| {
            let _ = report_tx.send(match r {
                Report::Phase(p) => Event::Phase(p),
                Report::Overview(o) => Event::Preview(o),
            });
        };
        let loaded = catch_unwind(AssertUnwindSafe(|| loader(&report)));
        let message = match loaded {
            Ok(Ok(bench)) => return drop(tx.send(Event::Loaded(Ok(bench)))),
            Ok(Err(e)) => e.to_string(),
            Err(panic) => format!("the loader failed: {}", panic_message(&panic)),
        };
        let _ = tx.send(Event::Loaded(Err(message)));
    });
}

/// Starts the job workers; jobs are sent with the workbench they run against. The
/// workers end when the runtime (the only job sender) is dropped.
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

/// The message of a caught panic.
pub fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
