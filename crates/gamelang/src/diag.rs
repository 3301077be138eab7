//! Positions in a `.game` file and the errors that point at them with a
//! caret under the offending column.

use crate::GamelangError;

/// A 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

/// An error at a place in the file, before the file name is known to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// Where the error is.
    pub pos: Pos,
    /// What is wrong, in a full sentence without the position.
    pub message: String,
}

impl Diag {
    /// An error at `pos`.
    pub fn new(pos: Pos, message: String) -> Diag {
        Diag { pos, message }
    }

    /// The crate's error, quoting the line of `text` with a caret under the column.
    pub fn into_error(self, file: &str, text: &str) -> GamelangError {
        let line_text = text
            .lines()
            .nth(self.pos.line.saturating_sub(1) as usize)
            .unwrap_or("");
        let pad = " ".repeat(self.pos.col.saturating_sub(1) as usize);
        GamelangError::Syntax {
            file: file.to_string(),
            line: self.pos.line as usize,
            column: self.pos.col as usize,
            message: self.message,
            excerpt: format!("\n{line_text}\n{pad}^"),
        }
    }
}
