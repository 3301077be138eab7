//! The one error type of the `gamelang` crate: a `.game` file that cannot be
//! turned into a game, naming the file and the 1-based position.

use thiserror::Error;

/// A `.game` file that does not load.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GamelangError {
    /// A syntax, type or rule error at a place in the file; `message` says
    /// what is wrong in a full sentence and `excerpt` quotes the line with a
    /// caret under the column (or is empty).
    #[error("{file}:{line}:{column}: {message}{excerpt}")]
    Syntax {
        /// The file name as given by the caller.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (characters).
        column: usize,
        /// What is wrong.
        message: String,
        /// Empty, or a newline, the offending line and a caret line under the column.
        excerpt: String,
    },

    /// The thread that compiles a file (with a stack deep enough for any
    /// file the limits accept) could not be started.
    #[error("{file}: cannot start a thread to compile the game: {reason}")]
    NoThread {
        /// The file name as given by the caller.
        file: String,
        /// Why the system refused.
        reason: String,
    },
}
