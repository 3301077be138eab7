//! The one error type of the workbench: every failure says what was being opened,
//! read or written.

use std::path::PathBuf;

/// Everything that can stop the workbench or an export.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The run directory could not be opened as a store.
    #[error("{0}")]
    Store(#[from] store::StoreError),

    /// The saved analysis could not be read or computed.
    #[error("analysis: {0}")]
    Analysis(#[from] hsg::HsgError),

    /// The analysis saved in a run directory is damaged.
    #[error("{source}; `hsg analyze {}` computes the analysis again", path.display())]
    SavedAnalysis {
        /// The run directory.
        path: PathBuf,
        /// What is damaged, naming the file.
        source: hsg::HsgError,
    },

    /// A fixture level could not be explored.
    #[error("fixture: {0}")]
    Fixture(String),

    /// A file of the workbench (bookmarks, layout cache, export) failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// A file of the workbench holds something unreadable.
    #[error("{path}: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },

    /// The workbench's database of the user's own data (bookmarks) could not be
    /// opened, read or written; another workbench may hold it.
    #[error("{path}: {what}")]
    Database {
        /// The database directory.
        path: PathBuf,
        /// What went wrong, naming the bookmark where one is concerned.
        what: String,
    },

    /// The terminal could not be set up, drawn to or restored.
    #[error("terminal: {0}")]
    Terminal(std::io::Error),

    /// The background loader stopped without an answer.
    #[error("the loader thread stopped: {0}")]
    Worker(String),
}

impl TuiError {
    /// Wraps an I/O error with the file it concerns.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> TuiError {
        TuiError::Io {
            path: path.into(),
            source,
        }
    }
}
