//! Games described in the `.game` language (issue 7, after Riggins and
//! McPherson's game systems): players, substate tracks, initial conditions,
//! decisions with legality per player, consequences with chance and
//! simultaneous decision tuples, and outcomes on terminal states. The
//! language is documented in `docs/game-language.md`.
//!
//! A file is lexed ([`lexer`]), parsed ([`parser`]), checked and compiled
//! ([`check`]) into [`rules::Rules`], which [`game::GrammarGame`] interprets
//! as a [`model::Game`] over bit-packed states.

mod ast;
mod check;
mod check_expr;
mod check_stmt;
mod check_track;
mod diag;
mod diagnose;
mod exec;
mod game;
mod ir;
mod lexer;
mod pack;
mod parse_expr;
mod parser;
mod printer;
mod rules;
mod scratch;
mod spec;
mod turns;
mod view;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_games;
#[cfg(test)]
mod tests_props;

pub use game::{GrammarGame, RULE_ERROR};

use crate::{GamesError, Level, LevelSelector};

/// True when `text` looks like a `.game` file (a `players` declaration at
/// the start of a line and a `track`).
pub fn looks_like(text: &str) -> bool {
    let starts = |w: &str| text.lines().any(|l| l.trim_start().starts_with(w));
    starts("players ") && starts("track ")
}

/// Parses, checks and compiles `text` into the game and its canonical text.
pub fn compile(
    file_name: &str,
    text: &str,
) -> Result<(GrammarGame, String, Option<String>), GamesError> {
    let ast = parser::parse(text).map_err(|d| d.into_error(file_name, text))?;
    let rules = check::check(&ast).map_err(|d| d.into_error(file_name, text))?;
    let title = rules.title.clone();
    let game = GrammarGame::new(rules).map_err(|message| GamesError::Syntax {
        file: file_name.to_string(),
        line: 1,
        column: 1,
        message,
        excerpt: String::new(),
    })?;
    Ok((game, printer::print(&ast), title))
}

/// Loads the game of a `.game` file (one level per file).
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    let (game, mut canonical, title) = compile(file_name, text)?;
    let title = title.unwrap_or_else(|| {
        // The canonical text carries the title, so that a level reloaded
        // from it (as `level.grammar`) keeps its name.
        let title = default_title(file_name).replace('"', "'");
        canonical = format!("game \"{title}\"\n{canonical}");
        title
    });
    crate::select(file_name, &[title.as_str()], selector)?;
    Ok(Level {
        game: Box::new(game),
        title,
        text: canonical,
        index: 1,
        count: 1,
    })
}

/// Lists the levels of a `.game` file: the one game it describes.
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    load(file_name, text, &LevelSelector::First).map(|l| vec![(1, l.title)])
}

/// The file's stem, for games without a `game "title"` line.
fn default_title(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    base.split('.').next().unwrap_or(base).to_string()
}
