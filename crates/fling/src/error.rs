//! The one error type of the `fling` crate; every message names the file or
//! the table concerned.

use std::path::PathBuf;

/// Everything that can go wrong building or reading Fling! tables.
#[derive(Debug, thiserror::Error)]
pub enum FlingError {
    /// A bit table could not be created, written or opened.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// An operating-system error on a file or directory.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The tables' manifest cannot be read or holds nonsense.
    #[error("{path}: {message}")]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A piece count outside what the tables support.
    #[error("{pieces} pieces: {why}")]
    Pieces {
        /// The piece count asked for.
        pieces: usize,
        /// Why it cannot be used.
        why: String,
    },
    /// The tables for a piece count are not in the directory.
    #[error("{dir}: no finished tables for {pieces} pieces (build them with `hsg fling tables --max-pieces {pieces} --out {dir}`)")]
    MissingTables {
        /// The tables directory.
        dir: PathBuf,
        /// The piece count.
        pieces: usize,
    },
}

/// Wraps an I/O error with the path it concerns.
pub(crate) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> FlingError + '_ {
    move |source| FlingError::Io {
        path: path.to_path_buf(),
        source,
    }
}
