//! puzzlegraph levels: placeholder until the game lands; the loader refuses its files.

use crate::{GamesError, Level, LevelSelector};

/// True when `text` looks like a file of this format (used for `.txt` files).
pub fn looks_like(_text: &str) -> bool {
    false
}

/// Loads the selected level of a file of this format.
pub fn load(file_name: &str, _text: &str, _selector: &LevelSelector) -> Result<Level, GamesError> {
    Err(GamesError::Unsupported {
        file: file_name.to_string(),
        what: "puzzlegraph".to_string(),
    })
}

/// Lists the levels of a file of this format as (1-based number, title).
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    load(file_name, text, &LevelSelector::First).map(|l| vec![(1, l.title)])
}
