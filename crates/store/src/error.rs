//! The store's one error type. Every message names the file and what is wrong.

use std::path::PathBuf;

/// Everything that can go wrong reading or writing a run directory.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An operating-system error on a file (full disk, permissions, ...).
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file's content is not what the format says it must be.
    #[error("{path}: {what}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What is wrong, with the byte offset when one is known.
        what: String,
    },
    /// The directory holds something that is not a hyperstate store.
    #[error("{path}: not a hyperstate store ({why})")]
    NotAStore {
        /// The directory.
        path: PathBuf,
        /// Why it was not recognised.
        why: String,
    },
    /// The directory holds a run of another level or other options.
    #[error("{path} holds another run: {differences}; use --force-new to replace it")]
    IdentityMismatch {
        /// The directory.
        path: PathBuf,
        /// The fields that differ, with both values.
        differences: String,
    },
    /// Another process writes this store.
    #[error("{path}: another process (pid {pid}) is writing this directory (it holds the lock)")]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// The pid written in the lock file, or `?`.
        pid: String,
    },
    /// An earlier write to this file failed (e.g. the disk was full); the
    /// writer refuses to go on so that no checkpoint names unwritten data.
    #[error("{path}: an earlier write failed; reopen the run to resume from its last checkpoint")]
    Poisoned {
        /// The file whose write failed.
        path: PathBuf,
    },
    /// The store was written in an older format this build no longer reads.
    #[error("{path}: this store was written in format version {version}, which this build no longer reads; explore the level again (hsg explore ... --force-new) to rebuild it")]
    OldFormat {
        /// The manifest.
        path: PathBuf,
        /// The version it was written in.
        version: u32,
    },
    /// The run has not committed anything yet: its explorer is still before its first
    /// checkpoint, or was stopped (killed, out of disk) before reaching it. Not damage:
    /// the data files hold only what a checkpoint has yet to commit.
    #[error("{path}: running, nothing committed yet (the exploration has not reached its first checkpoint, or stopped before it; running `hsg explore` on it again starts it over)")]
    NothingCommitted {
        /// The run directory.
        path: PathBuf,
    },
    /// A caller broke the writer's contract (a bug, reported rather than panicking).
    #[error("store misuse: {0}")]
    Misuse(String),
}

/// Wraps an I/O error with the path it concerns.
pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A corruption error for `path`.
pub fn corrupt(path: &std::path::Path, what: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        path: path.to_path_buf(),
        what: what.into(),
    }
}
