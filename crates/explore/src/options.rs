//! What an exploration is asked to do and what it reports back: its
//! options, the progress sink, how it ended and its summary.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use store::Progress;

/// Parents expanded per thread between two merges, unless the options say.
///
/// Every chunk starts its expanding threads anew, and a new thread starts
/// running on this project's machine 90 µs after it is asked for, and now
/// and then only after milliseconds, when it lands behind the merge on the
/// same core: with 16,384 parents a part, room4's two-thread run lost 0.25 s
/// of the other core that way in 997 chunks. Twice as many halve that, and
/// took room4's two-thread run from 5.06 to 4.96 s (medians of five,
/// interleaved); 65,536 were no faster, and 131,072 slower. The successors
/// of a chunk stay within the search's byte budget for a chunk (8 MiB)
/// whatever this says.
pub const PARENTS_PER_PART: usize = 32 * 1024;

/// How to explore.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Bytes of RAM the explorer may use for its index and buffers.
    pub mem_budget: u64,
    /// Worker threads for expansion; at least one.
    pub threads: usize,
    /// Stop at the first parent boundary with at least this many states.
    pub max_states: Option<u64>,
    /// States at this BFS depth are stored but not expanded.
    pub max_depth: Option<u32>,
    /// Time between two checkpoints.
    pub checkpoint_every: Duration,
    /// Time between two progress reports.
    pub progress_every: Duration,
    /// Set (by a signal handler) to stop at the next parent boundary.
    pub stop: Arc<AtomicBool>,
    /// Where disk-based duplicate detection keeps its scratch files.
    pub scratch_dir: PathBuf,
    /// Most states the in-memory index may hold whatever the budget (for
    /// tests of the disk path on small levels); `None` for no such cap.
    pub index_limit: Option<usize>,
    /// Most candidates one disk-phase resolution takes (for tests of the
    /// mid-layer rounds on small levels); `None` to derive it from the budget.
    pub round_limit: Option<u64>,
    /// Parents each thread expands between two merges ([`PARENTS_PER_PART`]
    /// normally; tests make it small so that small levels have many chunks
    /// per layer and exercise the overlapped merge).
    pub parents_per_part: usize,
}

/// Receives progress while an exploration runs.
pub trait ProgressSink {
    /// Called every [`ExploreOptions::progress_every`] and at the end.
    fn progress(&mut self, progress: &Progress);
    /// A one-line message worth telling the user (switching to disk, ...).
    fn note(&mut self, message: &str);
}

/// How an exploration ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every reachable state was expanded.
    Complete,
    /// A limit stopped the search; the store is marked partial.
    Partial,
    /// A stop request ended the run after a checkpoint; it can be resumed.
    Interrupted,
}

/// What an exploration did.
#[derive(Clone, Debug)]
pub struct Summary {
    /// How it ended.
    pub ending: Ending,
    /// States stored.
    pub states: u64,
    /// States expanded.
    pub expanded: u64,
    /// Transitions stored.
    pub transitions: u64,
    /// Deepest BFS layer holding a state.
    pub max_depth: u32,
    /// Wall time of this invocation.
    pub elapsed: Duration,
    /// True when the run resumed from a checkpoint.
    pub resumed: bool,
    /// True when the index outgrew the budget and duplicates went to disk.
    pub used_disk: bool,
    /// The in-memory visited index at its largest size.
    pub index: IndexFigures,
}

/// The in-memory visited index at its largest size: its memory and the
/// states it holds at that size when full, so that `bytes / full_states` is
/// what a state costs at its fullest (the key arena of wide states included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexFigures {
    /// Bytes of the table (and key arena) at that size.
    pub bytes: u64,
    /// States the table takes at that size before it must grow.
    pub full_states: u64,
    /// Entries the table's slots could not say (a probe past its displacement
    /// field), kept in the overflow list beside it, outside `bytes`: about 34
    /// bytes each in the list's hash map.
    pub overflow: u64,
}

impl IndexFigures {
    /// Bytes a state at the fullest (0 for an index never sized).
    pub fn bytes_per_state(&self) -> f64 {
        match self.full_states {
            0 => 0.0,
            n => self.bytes as f64 / n as f64,
        }
    }
}
