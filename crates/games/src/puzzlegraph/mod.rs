//! PuzzleGraph puzzles (Rune Skovbo Johansen, 2016): save files read unchanged,
//! with PuzzleGraph 1.1's rules for its 5 node and 9 edge kinds, players and
//! balls, triggers and receivers (`specs/puzzlegraph.md`, `docs/games.md`).
//!
//! A file holds one puzzle; its canonical text is the same save format, so a
//! level reloads from a store's manifest as `level.puzzlegraph`.

mod game;
mod parse;
mod puzzle;
mod render;
mod rules;
mod state;
mod text;

#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod rules_tests;
#[cfg(test)]
mod tests;

pub use game::PuzzleGraph;
pub use parse::parse;
pub use puzzle::{Container, Dynamic, Edge, EdgeKind, Node, NodeKind, Puzzle};
pub use state::State;

use crate::{GamesError, Level, LevelSelector};

/// True when `text` is meant to be a PuzzleGraph save file: a line after the name line
/// opens a `PuzzleNode` or a `PuzzleEdge`. Any such line counts, not only the first, so
/// that a damaged file gets PuzzleGraph's error and position rather than Sokoban's.
pub fn looks_like(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .skip(1)
        .map(str::trim_start)
        .any(|l| l.starts_with("PuzzleNode") || l.starts_with("PuzzleEdge"))
}

/// Loads the puzzle of a PuzzleGraph file (there is one per file).
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    let puzzle = parse(file_name, text)?;
    let title = puzzle.title.clone();
    crate::select(file_name, &[title.as_str()], selector)?;
    let game = PuzzleGraph::new(puzzle).ok_or_else(|| GamesError::Syntax {
        file: file_name.to_string(),
        line: 1,
        column: 1,
        message: "the puzzle needs more than 65,536 action labels".into(),
        excerpt: String::new(),
    })?;
    Ok(Level {
        text: game.canonical_text(),
        game: Box::new(game),
        title,
        index: 1,
        count: 1,
    })
}

/// Lists the level of a PuzzleGraph file: its name, from line 1.
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    parse::title_of(file_name, text).map(|t| vec![(1, t)])
}
