//! A stop requested while the index is rebuilt in the compact layout ends the
//! run at once (the rebuild takes minutes on a billion states) and merges
//! nothing into the incomplete index; the resumed run gives the same store.

use crate::tests_wide::{identity, options, Heap};
use crate::{explore, Ending, ProgressSink};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use store::{OpenMode, Progress, Run, RunWriter};

/// Keeps the notes and raises the stop flag when the compact rebuild starts.
struct StopAtRebuild {
    stop: Arc<AtomicBool>,
    armed: bool,
    notes: Vec<String>,
}

impl ProgressSink for StopAtRebuild {
    fn progress(&mut self, _progress: &Progress) {}
    fn note(&mut self, message: &str) {
        if self.armed && message.contains("rebuilding it in the compact layout") {
            self.stop.store(true, Ordering::SeqCst);
        }
        self.notes.push(message.to_string());
    }
}

/// Explores the heap into `run` under `budget`, stopping at the rebuild
/// when `armed`; returns the ending and the notes.
fn explore_once(dir: &Path, run: &Path, budget: u64, armed: bool) -> (Ending, Vec<String>) {
    let game = Heap {
        n: HEAP,
        wide: false,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut sink = StopAtRebuild {
        stop: stop.clone(),
        armed,
        notes: Vec::new(),
    };
    let (writer, checkpoint) =
        RunWriter::open(run, identity(&game), OpenMode::ResumeOrCreate).expect("open");
    let mut opts = options(dir, budget, stop);
    // Checkpoints on the way would be most of the time (each one syncs).
    opts.checkpoint_every = std::time::Duration::from_secs(3600);
    let summary = explore(&game, writer, checkpoint, &opts, &mut sink).expect("explore");
    (summary.ending, sink.notes)
}

const HEAP: u64 = 300_000;
const TIGHT: u64 = 51 << 20;

#[test]
fn a_stop_during_the_compact_rebuild_ends_the_run_before_it_finishes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reference = dir.path().join("reference");
    let (ending, notes) = explore_once(dir.path(), &reference, 256 << 20, false);
    assert_eq!(ending, Ending::Complete, "{notes:?}");
    let run = dir.path().join("run");
    let (ending, notes) = explore_once(dir.path(), &run, TIGHT, true);
    assert_eq!(ending, Ending::Interrupted, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("rebuilding it in the compact")),
        "the budget never made the index switch: {notes:?}"
    );
    assert!(
        !notes.iter().any(|n| n.contains("rebuilt in")),
        "the rebuild ran to its end after the stop: {notes:?}"
    );
    let (ending, notes) = explore_once(dir.path(), &run, TIGHT, false);
    assert_eq!(ending, Ending::Complete, "{notes:?}");
    let (a, b) = (
        Run::open(&reference).expect("a"),
        Run::open(&run).expect("b"),
    );
    assert_eq!(a.state_count(), HEAP);
    assert_eq!(a.state_count(), b.state_count());
    assert_eq!(a.transition_count(), b.transition_count());
    for id in 0..a.state_count() {
        assert_eq!(a.state(id), b.state(id), "state {id}");
    }
}
