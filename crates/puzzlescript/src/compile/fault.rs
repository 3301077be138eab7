//! A compile error before it is given its file: the message and, as data,
//! the line and column it is about (so that no caller parses them back out
//! of the text).

/// What went wrong, and where when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// One-based line of the game text.
    pub line: Option<usize>,
    /// One-based column (in characters) on that line.
    pub column: Option<usize>,
    /// What is wrong, without the position.
    pub message: String,
}

impl Fault {
    /// A fault on `line`, column unknown.
    pub fn at(line: usize, message: String) -> Fault {
        Fault {
            line: Some(line),
            column: None,
            message,
        }
    }
}

impl From<String> for Fault {
    fn from(message: String) -> Fault {
        Fault {
            line: None,
            column: None,
            message,
        }
    }
}

impl From<&str> for Fault {
    fn from(message: &str) -> Fault {
        Fault::from(message.to_string())
    }
}
