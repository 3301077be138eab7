//! The one error type of the crate: every failure names what was being read or written and where.

use std::path::PathBuf;

/// Everything that can go wrong while analysing a graph or reading a saved analysis.
#[derive(Debug, thiserror::Error)]
pub enum HsgError {
    /// The input graph breaks the CSR contract; the message says which state or edge.
    #[error("malformed state graph: {0}")]
    MalformedGraph(String),

    /// The requested target outcome is not one of the run's outcomes.
    #[error("unknown target outcome {name:?}; the run's outcomes are {available:?}")]
    UnknownOutcome {
        /// The name that was asked for.
        name: String,
        /// Every outcome the run knows.
        available: Vec<String>,
    },

    /// Reading or writing a file of a saved analysis failed.
    #[error("{path}: {source}")]
    Io {
        /// The file being read or written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// A saved analysis file is damaged or of another format.
    #[error("{path}: {what}")]
    Corrupt {
        /// The damaged file.
        path: PathBuf,
        /// What is wrong with it, including the byte position where it helps.
        what: String,
    },

    /// The summary of a saved analysis could not be encoded or decoded.
    #[error("{path}: {source}")]
    Json {
        /// The summary file.
        path: PathBuf,
        /// The underlying error, with line and column.
        #[source]
        source: serde_json::Error,
    },

    /// The live figures an exploration published with its progress could not be
    /// encoded or read back (a field missing, renamed or of the wrong type).
    #[error("live HSG figures: {0}")]
    LiveFigures(#[source] serde_json::Error),

    /// Opening or reading the run store failed.
    #[error("store: {0}")]
    Store(String),

    /// The analysis needs more memory than its budget allows.
    #[error(
        "the analysis of {states} states needs about {needed_mib} MiB for its strongly \
         connected components, more than the budget of {budget_mib} MiB; give it more \
         (`hsg analyze DIR --analysis-mem SIZE`, which the workbench then opens) or analyse \
         a smaller (depth-limited) run"
    )]
    OverBudget {
        /// States in the graph.
        states: u64,
        /// MiB the SCC needs.
        needed_mib: u64,
        /// MiB the budget allows.
        budget_mib: u64,
    },

    /// The hyperstates the SCC found need more memory than the budget allows.
    #[error(
        "the analysis of {hyperstates} hyperstates needs about {needed_mib} MiB after its \
         strongly connected components, more than the budget of {budget_mib} MiB; give it more \
         (`hsg analyze DIR --analysis-mem SIZE`, at most the RAM this machine can spare; the \
         workbench then opens the saved analysis) or analyse a smaller (depth-limited) run"
    )]
    HyperstatesOverBudget {
        /// Hyperstates found.
        hyperstates: u64,
        /// MiB the hyperstates' arrays need.
        needed_mib: u64,
        /// MiB the budget allows.
        budget_mib: u64,
    },
}

impl HsgError {
    /// Wraps an I/O error with the file it concerns.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> HsgError {
        HsgError::Io {
            path: path.into(),
            source,
        }
    }

    /// Reports a damaged saved file.
    pub(crate) fn corrupt(path: impl Into<PathBuf>, what: impl Into<String>) -> HsgError {
        HsgError::Corrupt {
            path: path.into(),
            what: what.into(),
        }
    }
}
