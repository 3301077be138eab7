//! The verification of the data on show: the workbench opens a run without reading it
//! through and verifies every checksum on a thread of its own while the user browses
//! ([`crate::runtime`] runs it, [`verify_now`] is its body). The screens say that it
//! runs and how far it got, and when it is done; damage found drops every figure of
//! the run for a screen that names the damage in full.

use super::{App, Event, GraphView, Overlay, PathsView};
use crate::data::{Damage, Order, Workbench};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Where the verification of the data on show stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Integrity {
    /// Nothing to verify (data in memory), or nothing loaded yet.
    NothingToVerify,
    /// Verifying: `done` of `total` units (bytes and values), reading `file`.
    Verifying {
        /// Units done.
        done: u64,
        /// Units in all.
        total: u64,
        /// The file being read.
        file: PathBuf,
    },
    /// Every checksum and value was verified.
    Verified,
    /// Damage was found: nothing of the run is shown any more.
    Damaged(Damage),
    /// The verification itself failed (a bug: the message of its panic).
    Failed(String),
}

impl Integrity {
    /// The percentage done while verifying.
    pub fn percent(&self) -> Option<u64> {
        match self {
            Integrity::Verifying { done, total, .. } => {
                Some((u128::from(*done) * 100 / u128::from((*total).max(1))).min(100) as u64)
            }
            _ => None,
        }
    }
}

/// What the verifier reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyStatus {
    /// How far it got.
    Progress {
        /// Units done.
        done: u64,
        /// Units in all.
        total: u64,
        /// The file being read.
        file: PathBuf,
    },
    /// Everything verified.
    Verified,
    /// Damage found.
    Damaged(Damage),
    /// The verification panicked (a bug).
    Failed(String),
}

/// Least time between two progress reports (each redraws the screen).
const REPORT_EVERY: Duration = Duration::from_millis(250);

/// Verifies `bench`, reporting to `send` as [`Event::Verify`] events of generation
/// `gen`: progress at most every [`REPORT_EVERY`], then the outcome. Stops without an
/// outcome as soon as `stop` says so.
pub fn verify_now(
    bench: &dyn Workbench,
    gen: u64,
    stop: &dyn Fn() -> bool,
    send: &mut dyn FnMut(Event),
) {
    let total = bench.verify_work();
    let mut done = 0u64;
    let mut last: Option<Instant> = None;
    let mut report = |status| send(Event::Verify { gen, status });
    let outcome = bench.verify(&mut |file, n| {
        done += n;
        if last.is_none_or(|t| t.elapsed() >= REPORT_EVERY) {
            last = Some(Instant::now());
            report(VerifyStatus::Progress {
                done,
                total,
                file: file.to_path_buf(),
            });
        }
        !stop()
    });
    match outcome {
        Ok(true) => report(VerifyStatus::Verified),
        Ok(false) => {}
        Err(damage) => report(VerifyStatus::Damaged(damage)),
    }
}

impl App {
    /// Asks for the verification of the data just loaded (when it has anything to
    /// verify); the runtime starts it.
    pub(super) fn want_verification(&mut self, bench: &dyn Workbench) {
        self.verify_gen += 1;
        let total = bench.verify_work();
        if total == 0 {
            self.integrity = Integrity::NothingToVerify;
            return;
        }
        self.integrity = Integrity::Verifying {
            done: 0,
            total,
            file: PathBuf::new(),
        };
        self.verify_wanted = Some(self.verify_gen);
    }

    /// The verification to start, by generation, if one is wanted.
    pub fn take_verification(&mut self) -> Option<u64> {
        self.verify_wanted.take()
    }

    pub(super) fn on_verify(&mut self, gen: u64, status: VerifyStatus) {
        if gen != self.verify_gen {
            return;
        }
        self.integrity = match status {
            VerifyStatus::Progress { done, total, file } => {
                Integrity::Verifying { done, total, file }
            }
            VerifyStatus::Verified => Integrity::Verified,
            VerifyStatus::Failed(why) => Integrity::Failed(why),
            VerifyStatus::Damaged(damage) => return self.on_damage(damage),
        };
    }

    /// Drops every figure of the run: the screens show the damage instead, and
    /// results of work still running are ignored.
    fn on_damage(&mut self, damage: Damage) {
        self.integrity = Integrity::Damaged(damage);
        self.bench = None;
        self.overview = None;
        self.live = None;
        self.focus = None;
        self.table.order = std::sync::Arc::new(Order::identity(0));
        self.paths = PathsView::default();
        self.graph = GraphView {
            data: None,
            wanted: None,
            ..self.graph.clone()
        };
        self.jobs.clear();
        self.pending = 0;
        if !matches!(self.overlay, Overlay::Help(_)) {
            self.overlay = Overlay::None;
        }
        self.status.clear();
    }

    /// Starts over on the run as it is now (a newer checkpoint, a new analysis): the
    /// state of this load is dropped (results of work still running are ignored, as
    /// are reports of its verification) and the runtime runs the loader again.
    pub(super) fn reload(&mut self) {
        let mut fresh = App::new(self.view, self.size);
        fresh.verify_gen = self.verify_gen;
        // Results of jobs still running carry the current generations: past them.
        let g = self.gens;
        fresh.gens = super::Generations {
            order: g.order + 1,
            paths: g.paths + 1,
            search: g.search + 1,
            graph: g.graph + 1,
            play: g.play + 1,
            rules: g.rules + 1,
        };
        fresh.screen_asked = Some(self.screen.index() as u8);
        fresh.phase = "reloading the run".into();
        fresh.reload_wanted = true;
        fresh.pending = self.pending;
        *self = fresh;
    }

    /// True once when the user asked for a reload (the runtime runs the loader).
    pub fn take_reload(&mut self) -> bool {
        std::mem::take(&mut self.reload_wanted)
    }

    /// The damage found, if any.
    pub fn damage(&self) -> Option<&Damage> {
        match &self.integrity {
            Integrity::Damaged(d) => Some(d),
            _ => None,
        }
    }
}
