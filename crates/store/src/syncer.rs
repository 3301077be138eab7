//! The background thread that makes checkpoints durable: it syncs the data
//! files a checkpoint covers and only then writes the manifest naming them,
//! while the explorer goes on appending.
//!
//! A checkpoint's `fsync` waits for the disk, a few hundred milliseconds
//! every two seconds when the explorer writes fast, and the explorer's
//! threads would idle through it. Here the writer hands the checkpoint over
//! (the commits of its files, taken after its buffers reached the kernel) and
//! carries on. Appending to a file while it is synced is sound: the sync
//! covers at least every byte written before it started, hence every byte the
//! checkpoint names. The invariant of the store is unchanged: the manifest on
//! disk only ever names synced data, so a crash at any moment leaves the last
//! completed checkpoint to resume from.
//!
//! Every write of the manifest goes through this thread, in order, so that
//! progress published for readers never overtakes a checkpoint still being
//! synced: progress is written into the last *durable* manifest. At most one
//! checkpoint is in flight; the next one waits for it. A failure is kept and
//! returned by every later call, so nothing is ever committed after it.

use crate::append::SyncFile;
use crate::error::{io, StoreError};
use crate::manifest::{Manifest, Progress, RunStatus};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

enum Job {
    /// Sync these files, then record this manifest as the durable one.
    Checkpoint {
        files: Vec<SyncFile>,
        manifest: Box<Manifest>,
    },
    /// Write the durable manifest with this progress and status, for readers.
    Progress(Box<Progress>, RunStatus),
}

#[derive(Default)]
struct State {
    /// Jobs sent and not yet done.
    pending: usize,
    /// Checkpoints sent and not yet done.
    checkpoints: usize,
    /// The first failure, until a call returns it.
    error: Option<StoreError>,
    /// Set once a failure happened: every later call fails.
    failed: bool,
}

type Shared = Arc<(Mutex<State>, Condvar)>;

/// The handle the writer keeps on its background thread.
pub(crate) struct Syncer {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    shared: Shared,
    dir: PathBuf,
}

impl Syncer {
    /// Starts the thread for the run in `dir`, whose durable manifest is
    /// `durable` (already on disk).
    pub fn start(dir: &Path, durable: Manifest) -> Result<Syncer, StoreError> {
        let (jobs, inbox) = channel::<Job>();
        let shared: Shared = Arc::default();
        let worker = Worker {
            dir: dir.to_path_buf(),
            durable,
            shared: shared.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("hsg-sync".into())
            .spawn(move || {
                let mut worker = worker;
                let _exit = Exit(worker.shared.clone());
                for job in inbox {
                    worker.run(job);
                }
            })
            .map_err(io(dir))?;
        Ok(Syncer {
            jobs: Some(jobs),
            thread: Some(thread),
            shared,
            dir: dir.to_path_buf(),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A poisoned lock means the thread panicked, which the join reports;
        // the state itself stays consistent (it is only ever set whole).
        self.shared.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits while `busy` holds, then returns the failure, if any.
    fn wait_until(&self, busy: impl Fn(&State) -> bool) -> Result<(), StoreError> {
        let mut state = self.state();
        while busy(&state) && !state.failed {
            state = self.shared.1.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        self.failure(&mut state)
    }

    fn failure(&self, state: &mut State) -> Result<(), StoreError> {
        if !state.failed {
            return Ok(());
        }
        Err(state.error.take().unwrap_or_else(|| StoreError::Poisoned {
            path: self.dir.join(crate::manifest::MANIFEST),
        }))
    }

    fn send(&self, job: Job, checkpoint: bool) -> Result<(), StoreError> {
        {
            let mut state = self.state();
            state.pending += 1;
            state.checkpoints += usize::from(checkpoint);
        }
        let sent = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        if !sent {
            let mut state = self.state();
            state.pending -= 1;
            state.checkpoints -= usize::from(checkpoint);
            return Err(StoreError::Misuse("the checkpoint thread is gone".into()));
        }
        Ok(())
    }

    /// Hands over a checkpoint: `files` are synced, then `manifest` is
    /// written. Waits first for the previous checkpoint to be durable.
    pub fn checkpoint(&self, files: Vec<SyncFile>, manifest: Manifest) -> Result<(), StoreError> {
        self.wait_until(|s| s.checkpoints > 0)?;
        let manifest = Box::new(manifest);
        self.send(Job::Checkpoint { files, manifest }, true)
    }

    /// Publishes progress and status into the durable manifest.
    pub fn progress(&self, progress: Progress, status: RunStatus) -> Result<(), StoreError> {
        self.failure(&mut self.state())?;
        self.send(Job::Progress(Box::new(progress), status), false)
    }

    /// Waits until every job handed over is done.
    pub fn wait_idle(&self) -> Result<(), StoreError> {
        self.wait_until(|s| s.pending > 0)
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        // Closing the channel ends the thread once its queue is done, so a
        // writer dropped after an error still leaves consistent files.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Marks the run failed if the thread ends with work pending (it can only
/// panic), so that no caller waits for it forever.
struct Exit(Shared);

impl Drop for Exit {
    fn drop(&mut self) {
        let (lock, done) = &*self.0;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        if state.pending > 0 {
            state.failed = true;
            state.error.get_or_insert(StoreError::Misuse(
                "the checkpoint thread stopped with work pending".into(),
            ));
        }
        done.notify_all();
    }
}

/// What the background thread owns.
struct Worker {
    dir: PathBuf,
    durable: Manifest,
    shared: Shared,
}

impl Worker {
    fn run(&mut self, job: Job) {
        let failed = self.shared.0.lock().map_or(true, |s| s.failed);
        let (result, checkpoint) = match (failed, job) {
            // After a failure nothing more is written.
            (true, job) => (Ok(()), matches!(job, Job::Checkpoint { .. })),
            (false, Job::Checkpoint { files, manifest }) => (self.commit(&files, *manifest), true),
            (false, Job::Progress(progress, status)) => (self.publish(*progress, status), false),
        };
        let (lock, done) = &*self.shared;
        let mut state = lock.lock().unwrap_or_else(|e| e.into_inner());
        state.pending -= 1;
        state.checkpoints -= usize::from(checkpoint);
        if let Err(e) = result {
            state.failed = true;
            state.error.get_or_insert(e);
        }
        done.notify_all();
    }

    /// Syncs the files, then makes `manifest` the durable one. A failed sync
    /// may have lost dirty pages, so the manifest is not written after it.
    fn commit(&mut self, files: &[SyncFile], manifest: Manifest) -> Result<(), StoreError> {
        for (file, path) in files {
            crate::durability::sync_data(file, path)?;
        }
        manifest.write(&self.dir)?;
        self.durable = manifest;
        Ok(())
    }

    /// Rewrites the durable manifest with new progress for readers.
    fn publish(&mut self, progress: Progress, status: RunStatus) -> Result<(), StoreError> {
        self.durable.progress = progress;
        self.durable.status = status;
        self.durable.write(&self.dir)
    }
}
