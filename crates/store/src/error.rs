//! The store's single error type: every message names the file (or run
//! directory) concerned and says what is wrong with it.

use std::io;
use std::path::PathBuf;

use crate::manifest::RunStatus;

/// Everything that can go wrong when writing or reading a run.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An operating-system call failed (ENOSPC, permissions, ...).
    #[error("{}: I/O error while {op}: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// What the store was doing.
        op: &'static str,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file does not start with the store's magic bytes.
    #[error("{}: bad magic: not a hyperstate store file", path.display())]
    BadMagic {
        /// The file concerned.
        path: PathBuf,
    },
    /// The file was written by another format version.
    #[error("{}: wrong format version {found} (this build reads version {expected})", path.display())]
    UnsupportedVersion {
        /// The file concerned.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this build reads and writes.
        expected: u32,
    },
    /// A valid store file that does not belong here (other kind, other run, other layout).
    #[error("{}: foreign file: {what}", path.display())]
    ForeignFile {
        /// The file concerned.
        path: PathBuf,
        /// How it differs from what was expected.
        what: String,
    },
    /// The 64-byte header is damaged.
    #[error("{}: bad header: {what}", path.display())]
    BadHeader {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The file is shorter than the checkpoint (or its header) says.
    #[error("{}: file is {actual} bytes, shorter than the {expected} bytes the checkpoint says (truncated or torn)", path.display())]
    Truncated {
        /// The file concerned.
        path: PathBuf,
        /// Its length on disk.
        actual: u64,
        /// The length it must have at least.
        expected: u64,
    },
    /// A block's xxh3 differs from the recorded one.
    #[error("{}: checksum mismatch in block {block} (file bytes {offset}..{end})", path.display())]
    ChecksumMismatch {
        /// The file concerned.
        path: PathBuf,
        /// Index of the block within the file's data.
        block: u64,
        /// File offset of the block's first byte.
        offset: u64,
        /// File offset just past the block.
        end: u64,
    },
    /// The MANIFEST (or its sled copy) is missing, damaged or inconsistent.
    #[error("{}: {what}", path.display())]
    Manifest {
        /// The manifest file concerned.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// Checksums pass but the content breaks an invariant of the format.
    #[error("{}: corrupt data: {what}", path.display())]
    Corrupt {
        /// The file concerned.
        path: PathBuf,
        /// The broken invariant, with positions.
        what: String,
    },
    /// The directory holds a run of something else.
    #[error("{}: holds a different run ({}); use --force-new to replace it (this deletes the run's files)", dir.display(), differences.join("; "))]
    IdentityMismatch {
        /// The run directory.
        dir: PathBuf,
        /// One line per differing identity field.
        differences: Vec<String>,
    },
    /// Another writer holds the run's LOCK.
    #[error("{}: locked by another writer ({holder}); two explorations cannot write one run", dir.display())]
    Locked {
        /// The run directory.
        dir: PathBuf,
        /// What the LOCK file says about its holder.
        holder: String,
    },
    /// The directory has content that the store did not write.
    #[error("{}: not empty and not a hyperstate run (found {entry:?}); refusing to touch it", dir.display())]
    NotAStore {
        /// The directory.
        dir: PathBuf,
        /// One entry that is not a store file.
        entry: String,
    },
    /// `OpenMode::CreateNew` on a directory that already holds this run.
    #[error("{}: already holds this run; resume it or use --force-new to start over", dir.display())]
    AlreadyExists {
        /// The run directory.
        dir: PathBuf,
    },
    /// Resuming a run that has already finished.
    #[error("{}: the run is already finished (status {status:?}); use --force-new to explore it again", dir.display())]
    AlreadyFinished {
        /// The run directory.
        dir: PathBuf,
        /// Its final status.
        status: RunStatus,
    },
    /// The sled metadata database failed.
    #[error("{}: sled metadata database: {source}", path.display())]
    Sled {
        /// The `meta.sled` directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: sled::Error,
    },
    /// The caller broke the writer's or reader's contract (order of ids, widths, ...).
    #[error("invalid use of the store: {0}")]
    Usage(String),
    /// A write failed earlier; the writer refuses to go on so that no
    /// checkpoint can ever describe data that was not written.
    #[error("{}: an earlier write to this file failed; reopen the run to resume from the last checkpoint", path.display())]
    Poisoned {
        /// The file whose write failed.
        path: PathBuf,
    },
}

impl StoreError {
    /// Builds the closure that wraps an `io::Error` with a path and an operation.
    pub(crate) fn io(
        path: &std::path::Path,
        op: &'static str,
    ) -> impl FnOnce(io::Error) -> StoreError {
        let path = path.to_path_buf();
        move |source| StoreError::Io { path, op, source }
    }
}
