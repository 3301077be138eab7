//! Fling! (Penguin Push): a 7x8 board of identical pieces flung into each
//! other until one is left. Reads HOG2 level files and plain 8-row boards;
//! the board and its moves are public for the retrograde tables of the
//! `fling` crate.

mod board;
mod game;
mod text;

pub use board::{
    action_id, action_label, action_parts, Board, Direction, ACTIONS, CELLS, DIRECTIONS, FULL,
    HEIGHT, WIDTH,
};
pub use game::{decode, encode, Fling};
pub use text::{hog2_block, hog2_file, parse, RawBoard};

use crate::{GamesError, Level, LevelSelector};

/// True when `text` looks like a HOG2 level file or a plain 8-row board
/// (used for `.txt` files).
pub fn looks_like(text: &str) -> bool {
    text::looks_like(text)
}

/// The title of the `index`-th (1-based) of `count` boards of the file `file_name`: the
/// file's name without its folder and extension (`level10`, the original game's level
/// numbering), with `#N` when the file holds several boards.
///
/// Regression: every board was titled `level {index}`, so each single-board file of the
/// original levels (`level10.txt`, `level35.txt`) was called `level 1`.
fn title(file_name: &str, index: usize, count: usize) -> String {
    let stem = std::path::Path::new(file_name)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or("board");
    if count == 1 {
        stem.to_string()
    } else {
        format!("{stem} #{index}")
    }
}

/// Loads the selected board of a HOG2 file or plain board.
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    let boards = parse(file_name, text)?;
    if boards.is_empty() {
        return Err(GamesError::Syntax {
            file: file_name.to_string(),
            line: 1,
            column: 1,
            message: "no Fling! board found (a board is 8 rows of 7 `o` or `.`)".to_string(),
            excerpt: String::new(),
        });
    }
    let count = boards.len();
    let titles: Vec<String> = (1..=count).map(|i| title(file_name, i, count)).collect();
    let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
    let index = crate::select(file_name, &refs, selector)?;
    let board =
        boards
            .get(index - 1)
            .map(|raw| raw.board)
            .ok_or_else(|| GamesError::EmptyFile {
                file: file_name.to_string(),
            })?;
    Ok(Level {
        game: Box::new(Fling::new(board)),
        title: title(file_name, index, count),
        text: hog2_block(board),
        index,
        count: boards.len(),
    })
}

/// Lists the boards of a file as (1-based number, title).
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    let count = parse(file_name, text)?.len();
    Ok((1..=count)
        .map(|i| (i, title(file_name, i, count)))
        .collect())
}

#[cfg(test)]
mod tests;
