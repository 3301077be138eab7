//! Game rules and level parsers: turns the text of a level file into a
//! [`model::Game`] ready to explore.
//!
//! This crate does no file I/O: callers pass the file's name (for error
//! messages and format detection) and its text. [`load`] picks the game from
//! the file's extension and, for the shared `.txt` extension, its content:
//! Sokoban (XSB/SOK), PuzzleGraph save files, Fling! boards (HOG2 or plain),
//! Affordance Sandbox instances and `.game` descriptions; a PuzzleScript game
//! is recognised by its section headers whatever its extension.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod fling;
pub mod flip;
mod grammar;
pub mod puzzlegraph;
pub mod puzzlescript;
mod reload;
pub mod sandbox;
pub mod sokoban;

pub use error::GamesError;
pub use reload::{reload, KINDS};
pub use sokoban::Sokoban;

use model::Game;

/// Which level of a multi-level file to load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LevelSelector {
    /// The first level of the file.
    #[default]
    First,
    /// The level with this 1-based number.
    Index(usize),
    /// The first level with this title: exactly, else ignoring case, else
    /// matching the part of the title before its first `:` (so `room4`
    /// selects `room4: 10x10 room, 4 boxes`).
    Title(String),
}

/// One level of a file, bound to its rules.
pub struct Level {
    /// The game on this level.
    pub game: Box<dyn Game>,
    /// The level's title, from the file or `level N` when it has none.
    pub title: String,
    /// The level's board in canonical form (see [`Sokoban::canonical_text`]),
    /// the basis of the level's identity.
    pub text: String,
    /// The level's 1-based number in its file.
    pub index: usize,
    /// How many levels the file holds.
    pub count: usize,
}

impl std::fmt::Debug for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Level")
            .field("game", &self.game.kind())
            .field("title", &self.title)
            .field("text", &self.text)
            .field("index", &self.index)
            .field("count", &self.count)
            .finish()
    }
}

/// The level file formats this crate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// XSB/SOK Sokoban text; also the choice for unknown extensions.
    Sokoban,
    /// A PuzzleGraph save file.
    PuzzleGraph,
    /// Fling! boards: HOG2 level files or plain 8-row boards.
    Fling,
    /// An Affordance Sandbox instance or specification.
    Sandbox,
    /// A game described in the `.game` language.
    Grammar,
    /// A PuzzleScript game, whatever its extension.
    PuzzleScript,
    /// A feature map (`.map`) for `hsg compare --similarity --map`: not a level.
    FeatureMap,
}

/// Picks the format of a file from its extension, and from its content for
/// the `.txt` files that PuzzleGraph, HOG2 and Sokoban collections all use.
/// (A stored run's level is rebuilt by [`reload`], from its game kind.)
fn detect_format(file_name: &str, text: &str) -> Format {
    if puzzlescript::looks_like(text) {
        return Format::PuzzleScript;
    }
    let extension = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("puzzlegraph" | "pg") => Format::PuzzleGraph,
        Some("fling") => Format::Fling,
        Some("sandbox") => Format::Sandbox,
        Some("game") => Format::Grammar,
        Some("xsb" | "sok") => Format::Sokoban,
        Some("map") => Format::FeatureMap,
        _ if puzzlegraph::looks_like(text) => Format::PuzzleGraph,
        _ if fling::looks_like(text) => Format::Fling,
        _ if sandbox::looks_like(text) => Format::Sandbox,
        _ => Format::Sokoban,
    }
}

/// Loads the selected level of a level file; `file_name` only names the
/// file in errors and picks the format.
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    match detect_format(file_name, text) {
        Format::Sokoban => load_sokoban(file_name, text, selector),
        Format::PuzzleGraph => puzzlegraph::load(file_name, text, selector),
        Format::Fling => fling::load(file_name, text, selector),
        Format::Sandbox => sandbox::load(file_name, text, selector),
        Format::Grammar => grammar::load(file_name, text, selector),
        Format::PuzzleScript => puzzlescript::load(file_name, text, selector),
        Format::FeatureMap => Err(not_a_level(file_name)),
    }
}

/// The error for a feature map given where a level file belongs. Read as
/// Sokoban, it used to fail on its first comment line ("has no player").
fn not_a_level(file_name: &str) -> GamesError {
    GamesError::Syntax {
        file: file_name.to_string(),
        line: 1,
        column: 1,
        message: "this is a feature map for `hsg compare --similarity --map FILE`, not a level \
                  file: explore or compare the games it relates instead"
            .to_string(),
        excerpt: String::new(),
    }
}

/// Lists every level of a file as (1-based number, title). Only the file's
/// structure is checked (board rows, run lengths), not each level's rules.
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    match detect_format(file_name, text) {
        Format::PuzzleGraph => puzzlegraph::list_levels(file_name, text),
        Format::Fling => fling::list_levels(file_name, text),
        Format::Sandbox => sandbox::list_levels(file_name, text),
        Format::Grammar => grammar::list_levels(file_name, text),
        Format::PuzzleScript => puzzlescript::list_levels(file_name, text),
        Format::FeatureMap => Err(not_a_level(file_name)),
        Format::Sokoban => {
            let levels = sokoban::split_levels(file_name, text)?;
            Ok(levels
                .into_iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.title))
                .collect())
        }
    }
}

/// For each level of [`list_levels`], the message a player reads just before it
/// (PuzzleScript's `message` entries); empty for formats without messages.
pub fn level_messages(file_name: &str, text: &str) -> Result<Vec<Option<String>>, GamesError> {
    match detect_format(file_name, text) {
        Format::PuzzleScript => puzzlescript::level_messages(file_name, text),
        _ => Ok(Vec::new()),
    }
}

fn load_sokoban(
    file_name: &str,
    text: &str,
    selector: &LevelSelector,
) -> Result<Level, GamesError> {
    let levels = sokoban::split_levels(file_name, text)?;
    let titles: Vec<&str> = levels.iter().map(|l| l.title.as_str()).collect();
    let index = select(file_name, &titles, selector)?;
    let raw = &levels[index - 1];
    let game = Sokoban::from_raw(file_name, raw)?;
    Ok(Level {
        text: game.canonical_text(),
        game: Box::new(game),
        title: raw.title.clone(),
        index,
        count: levels.len(),
    })
}

/// The 1-based number of the selected level among levels titled `titles`.
pub(crate) fn select(
    file_name: &str,
    titles: &[&str],
    selector: &LevelSelector,
) -> Result<usize, GamesError> {
    let count = titles.len();
    match selector {
        LevelSelector::First if count > 0 => Ok(1),
        LevelSelector::First => Err(GamesError::EmptyFile {
            file: file_name.to_string(),
        }),
        LevelSelector::Index(n) if (1..=count).contains(n) => Ok(*n),
        LevelSelector::Index(n) => Err(GamesError::NoSuchIndex {
            file: file_name.to_string(),
            index: *n,
            count,
        }),
        LevelSelector::Title(wanted) => {
            find_title(titles, wanted).map(|i| i + 1).ok_or_else(|| {
                let mut known: Vec<String> =
                    titles.iter().take(5).map(|t| format!("{t:?}")).collect();
                if count > 5 {
                    known.push("...".to_string());
                }
                GamesError::NoSuchTitle {
                    file: file_name.to_string(),
                    title: wanted.clone(),
                    count,
                    known: known.join(", "),
                }
            })
        }
    }
}

/// The 0-based position of the best match for `wanted`: an exact title,
/// else one equal ignoring case, else one whose part before `:` matches.
fn find_title(titles: &[&str], wanted: &str) -> Option<usize> {
    let wanted = wanted.trim();
    let short = |t: &str| {
        t.split_once(':')
            .map_or(t, |(head, _)| head)
            .trim()
            .to_string()
    };
    titles
        .iter()
        .position(|t| *t == wanted)
        .or_else(|| titles.iter().position(|t| t.eq_ignore_ascii_case(wanted)))
        .or_else(|| {
            titles
                .iter()
                .position(|t| short(t).eq_ignore_ascii_case(wanted))
        })
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
