//! The explorer's one error type.

use std::path::PathBuf;

/// Everything that can stop an exploration.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    /// The store refused a read or a write.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A scratch file of the disk-based duplicate detection failed.
    #[error("{path}: {source}")]
    Scratch {
        /// The scratch file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The game produced a state that does not fit the width it declared.
    #[error("the game produced a {len}-byte state but declared at most {max} bytes")]
    StateTooWide {
        /// Length of the offending encoding.
        len: usize,
        /// The declared maximum.
        max: usize,
    },
    /// The checkpoint in the store was written by an incompatible explorer.
    #[error("the store's checkpoint cannot be resumed: {0}")]
    BadCheckpoint(String),
    /// The memory budget cannot hold even the smallest working set.
    #[error("--mem {budget} bytes is too small: at least {needed} bytes are needed")]
    BudgetTooSmall {
        /// The budget given.
        budget: u64,
        /// The least that works.
        needed: u64,
    },
    /// The key arena does not reach a state the index is about to hold, a
    /// sizing bug: going on would store that state twice.
    #[error("internal error: the key arena does not reach state {0}")]
    ArenaTooSmall(u64),
    /// The operating system refused a worker thread (too many asked for the memory or
    /// the process limit): the search stops at its last checkpoint, resumable with fewer.
    #[error("cannot start {threads} worker threads: {source}; resume with fewer (--threads)")]
    Threads {
        /// The threads asked for.
        threads: usize,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The live analysis watching the exploration failed.
    #[error("live analysis: {0}")]
    Watcher(String),
    /// A stop was asked for while the states left unexpanded were being
    /// classified, which the game may then have cut short: nothing of it is
    /// committed, and the same command resumes from the last checkpoint.
    #[error(
        "stopped while classifying the states left unexpanded; run the same command again \
         to resume from the last checkpoint"
    )]
    StoppedWhileFinishing,
}
