//! A run stopped in its disk phase and resumed with a budget that holds every state it
//! stored goes back to the in-memory index: the same store as a run that never left
//! memory, and no scratch runs left behind once no checkpoint names them.

use crate::tests_power_loss::{content, identity, options, run_to_end, Mode, Walk};
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
