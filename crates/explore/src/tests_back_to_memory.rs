//! A run stopped in its disk phase and resumed with a budget that holds every state it
//! stored goes back to the in-memory index: the same store as a run that never left
//! memory, and no scratch runs left behind once no checkpoint names them.

use crate::tests_power_loss::{content, identity, options, run_to_end, Mode, Walk};
use crate::tests_wide::Quiet;
use crate::{explore, Ending, ExploreOptions, ProgressSink, Summary};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use store::{OpenMode, Progress, RunWriter};

/// Keeps the notes, and raises the stop flag when the disk phase starts.
struct StopAtDisk {
    stop: Arc<AtomicBool>,
    notes: Vec<String>,
}

impl ProgressSink for StopAtDisk {
    fn progress(&mut self, _progress: &Progress) {}
    fn note(&mut self, message: &str) {
        if message.contains("disk-based duplicate detection") {
            self.stop.store(true, Ordering::SeqCst);
        }
        self.notes.push(message.to_string());
    }
}

/// Opens `dir` (resuming when it holds a run) and explores it with `opts`.
fn run(dir: &Path, opts: &ExploreOptions) -> (Summary, Vec<String>) {
    let (writer, checkpoint) =
        RunWriter::open(dir, identity(), OpenMode::ResumeOrCreate).expect("open");
    let mut sink = StopAtDisk {
        stop: opts.stop.clone(),
        notes: Vec::new(),
    };
    let summary = explore(&Walk, writer, checkpoint, opts, &mut sink).expect("explore");
    (summary, sink.notes)
}

const HOUR: Duration = Duration::from_secs(3600);

/// A run that never left memory, and beside it a run of the same game stopped as
/// it moved to disk: (the reference, the stopped run).
fn reference_and_stopped_disk_run() -> (tempfile::TempDir, tempfile::TempDir) {
    let reference = tempfile::tempdir().expect("temp dir");
    assert_eq!(run_to_end(reference.path(), HOUR, Mode::Memory), Ok(false));
    let dir = tempfile::tempdir().expect("temp dir");
    let (first, _) = run(dir.path(), &options(dir.path(), HOUR, Mode::Disk));
    assert_eq!(first.ending, Ending::Interrupted);
    assert!(first.used_disk);
    assert!(
        scratch_files(dir.path()) > 0,
        "the disk phase wrote no runs"
    );
    (reference, dir)
}

fn scratch_files(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("scratch")).map_or(0, |entries| entries.count())
}

#[test]
fn a_disk_phase_resumed_with_room_for_every_state_ends_in_memory() {
    let (reference, dir) = reference_and_stopped_disk_run();
    let dir = dir.path();

    // Stopped at once: the new checkpoint names no runs, so they go.
    let stopped = options(dir, HOUR, Mode::Memory);
    stopped.stop.store(true, Ordering::SeqCst);
    let (second, notes) = run(dir, &stopped);
    assert_eq!(second.ending, Ending::Interrupted);
    assert!(!second.used_disk);
    assert!(
        notes.iter().any(|n| n.contains("in memory again")),
        "{notes:?}"
    );
    assert!(!dir.join("scratch").exists(), "stale scratch runs kept");

    let (last, _) = run(dir, &options(dir, HOUR, Mode::Memory));
    assert_eq!(last.ending, Ending::Complete);
    assert!(!last.used_disk);
    assert_eq!(content(dir), content(reference.path()));
}

#[test]
fn a_disk_phase_resumed_in_memory_and_finished_removes_its_scratch_runs() {
    let (reference, dir) = reference_and_stopped_disk_run();
    let dir = dir.path();
    let (resumed, _) = run(dir, &options(dir, HOUR, Mode::Memory));
    assert_eq!(resumed.ending, Ending::Complete);
    assert!(!resumed.used_disk);
    assert!(!dir.join("scratch").exists(), "stale scratch runs kept");
    assert_eq!(content(dir), content(reference.path()));
}

#[test]
fn a_disk_phase_resumed_under_the_same_budget_stays_on_disk() {
    let (reference, dir) = reference_and_stopped_disk_run();
    let dir = dir.path();
    let (resumed, notes) = run(dir, &options(dir, HOUR, Mode::Disk));
    assert_eq!(resumed.ending, Ending::Complete);
    assert!(resumed.used_disk);
    assert!(
        !notes.iter().any(|n| n.contains("in memory again")),
        "{notes:?}"
    );
    assert_eq!(content(dir), content(reference.path()));
}

/// Simulates `kill -9` soon after the search moves to disk a second time: the first
/// progress report after that note panics, which leaves the directory as it was then
/// (the store's thread finishes what it was handed, as a kill a moment later would).
struct KilledOnDiskAgain {
    back_in_memory: bool,
    moved: bool,
}

impl ProgressSink for KilledOnDiskAgain {
    fn progress(&mut self, _progress: &Progress) {
        assert!(!self.moved, "killed in the disk phase");
    }
    fn note(&mut self, message: &str) {
        self.back_in_memory |= message.contains("in memory again");
        self.moved |= message.contains("disk-based duplicate detection");
    }
}

/// Regression: a disk phase resumed in memory under a budget that holds twice its
/// states, but not the whole space, moved to disk again, and starting the new disk
/// phase deleted the scratch runs that the checkpoint it had resumed from still named
/// (no checkpoint had replaced it yet). Killed then, and resumed under the first budget,
/// the run could not resume: "scratch/run-000002: 16908 bytes, the checkpoint says 351
/// entries" (the new phase's run of the same name; had it had the same length, its
/// states would have been taken for the old one's). Now the resume into memory
/// checkpoints at once, and that checkpoint names no runs.
#[test]
fn a_run_back_in_memory_that_moves_to_disk_again_and_is_killed_resumes() {
    let (reference, dir) = reference_and_stopped_disk_run();
    let dir = dir.path();
    let named = scratch_files(dir);
    let mut opts = options(dir, HOUR, Mode::Disk);
    opts.index_limit = Some(1500);
    opts.progress_every = Duration::ZERO;
    let (writer, checkpoint) =
        RunWriter::open(dir, identity(), OpenMode::ResumeOrCreate).expect("open");
    let mut sink = KilledOnDiskAgain {
        back_in_memory: false,
        moved: false,
    };
    let killed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        explore(&Walk, writer, checkpoint, &opts, &mut sink)
    }));
    assert!(
        sink.back_in_memory && sink.moved,
        "never back in memory and on disk again"
    );
    assert!(killed.is_err(), "not killed");
    assert!(named > 0);
    let (writer, checkpoint) =
        RunWriter::open(dir, identity(), OpenMode::ResumeOrCreate).expect("open");
    // Resumed under the first budget, it goes on from its disk checkpoint's runs.
    let first = options(dir, HOUR, Mode::Disk);
    let last = explore(&Walk, writer, checkpoint, &first, &mut Quiet).expect("resumed");
    assert_eq!(last.ending, Ending::Complete);
    assert_eq!(content(dir), content(reference.path()));
}
