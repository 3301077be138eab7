//! The crate's one error type: every failure names the file and, for bad
//! input, the line and column where it was found.

use thiserror::Error;

/// Everything that can go wrong while reading, compiling or replaying a game.
#[derive(Debug, Error)]
pub enum Error {
    /// The game text is malformed at a known place.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The source name given to [`crate::compile`].
        file: String,
        /// One-based line number.
        line: usize,
        /// One-based column (in characters).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The game text parses but cannot be compiled (undefined names, bad layers...).
    #[error("{file}{}: {message}", position(*line, *column))]
    Compile {
        /// The source name given to [`crate::compile`].
        file: String,
        /// One-based line, when the fault is on one.
        line: Option<usize>,
        /// One-based column (in characters), when known.
        column: Option<usize>,
        /// What is wrong, without the position.
        message: String,
    },
    /// A level number or index that the game does not have.
    #[error("{file}: {message}")]
    Level {
        /// The source name.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A conformance file that cannot be read or decoded.
    #[error("{file}:{line}: {message}")]
    Cases {
        /// The cases file.
        file: String,
        /// One-based line of the case.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A survey of stored states ([`crate::coverage`]) was interrupted.
    #[error("interrupted")]
    Interrupted,
    /// A survey of stored states met a turn past a bound of the engine (the
    /// message names the file and the rule's line).
    #[error("{0}")]
    Survey(String),
    /// An I/O failure on a named file.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// `:LINE` or `:LINE:COLUMN`, or nothing.
fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}
