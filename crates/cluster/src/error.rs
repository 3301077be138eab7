//! The distributed explorer's one error type.

use std::path::PathBuf;

/// Everything that can stop a distributed exploration or a gather.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// The store crate refused a read or a write of a part or of the gathered run.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The single-machine explorer's building blocks refused (a state wider than declared).
    #[error(transparent)]
    Explore(#[from] explore::ExploreError),
    /// A file of a part could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A part's file is damaged or is not what its manifest says.
    #[error("{path}: {what}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A message from another process does not decode (a bug or a foreign peer).
    #[error("malformed message from process {from}: {what}")]
    Malformed {
        /// The sending process.
        from: usize,
        /// What is wrong with it.
        what: String,
    },
    /// The processes, or a process and its stored part, do not describe the same run.
    #[error("{0}")]
    Mismatch(String),
    /// The communication layer failed (a peer lost, a worker that panicked).
    #[error("communication failed: {0}")]
    Network(String),
    /// A process could not listen on its own address of the host list.
    #[error("process {process} cannot listen on {address}: {source}")]
    Listen {
        /// The process.
        process: usize,
        /// Its address, as the host list gives it.
        address: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The processes could not connect, or a connection was not authenticated.
    #[error("{0}")]
    Connect(String),
    /// The parts handed to a gather do not make one run.
    #[error("cannot gather: {0}")]
    Gather(String),
    /// An option the distributed explorer does not support was asked for.
    #[error("{0}")]
    Unsupported(String),
}

/// Wraps an I/O error with the path it concerns.
pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> ClusterError + '_ {
    move |source| ClusterError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A corruption error for `path`.
pub fn corrupt(path: &std::path::Path, what: impl Into<String>) -> ClusterError {
    ClusterError::Corrupt {
        path: path.to_path_buf(),
        what: what.into(),
    }
}
