//! The `.game` language (issue 7, after Riggins and McPherson's game
//! systems): players, substate tracks, initial conditions, decisions with
//! legality per player, consequences with chance and simultaneous decision
//! tuples, and outcomes on terminal states. The language is documented in
//! `docs/game-language.md`.
//!
//! A file is lexed (`lexer`), parsed (`parser`), checked and compiled
//! (`check`) into `rules::Rules`, which [`GrammarGame`] interprets as a
//! [`model::Game`] over bit-packed states. The interpreter (`game`, `exec`,
//! `ir`, `spec`) never calls the checker. This crate depends on `model` only
//! and opens no files: [`compile`] takes the file's name (for errors) and
//! its text; the `games` crate wraps it as one more level format.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod ast;
mod check;
mod check_expr;
mod check_steps;
mod check_stmt;
mod check_track;
mod diag;
mod diagnose;
mod error;
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
mod shape;
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
mod tests_limits;
#[cfg(test)]
mod tests_props;

pub use error::GamelangError;
pub use game::{GrammarGame, RULE_ERROR};

/// The game a `.game` file describes, with its canonical text and title.
#[derive(Debug)]
pub struct Compiled {
    /// The game, ready to explore.
    pub game: GrammarGame,
    /// The file printed back in canonical form (see `docs/game-language.md`):
    /// it reloads to the same game.
    pub canonical: String,
    /// The `game "title"` of the file, when it has one.
    pub title: Option<String>,
}

/// True when `text` looks like a `.game` file (a `players` declaration at
/// the start of a line and a `track`).
pub fn looks_like(text: &str) -> bool {
    let starts = |w: &str| text.lines().any(|l| l.trim_start().starts_with(w));
    starts("players ") && starts("track ")
}

/// The stack of the thread that compiles a file: the parser, the checker and
/// the folding passes recurse over expressions up to
/// `shape::MAX_EVAL_HEIGHT` deep, several frames a level, which a debug
/// build's 2 MiB threads cannot hold (900 levels took between 8 and 16 MiB
/// there; a release build needs far less). It is reserved, not allocated:
/// only the pages a file's depth touches are ever used.
const COMPILER_STACK: usize = 64 << 20;

/// Parses, checks and compiles `text` into the game and its canonical text;
/// `file_name` only names the file in errors.
pub fn compile(file_name: &str, text: &str) -> Result<Compiled, GamelangError> {
    std::thread::scope(|scope| {
        let compiler = std::thread::Builder::new()
            .name("gamelang compiler".to_string())
            .stack_size(COMPILER_STACK)
            .spawn_scoped(scope, || compile_here(file_name, text));
        match compiler {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(e) => Err(GamelangError::NoThread {
                file: file_name.to_string(),
                reason: e.to_string(),
            }),
        }
    })
}

fn compile_here(file_name: &str, text: &str) -> Result<Compiled, GamelangError> {
    let ast = parser::parse(text).map_err(|d| d.into_error(file_name, text))?;
    let rules = check::check(&ast).map_err(|d| d.into_error(file_name, text))?;
    let title = rules.title.clone();
    let game = GrammarGame::new(rules).map_err(|message| GamelangError::Syntax {
        file: file_name.to_string(),
        line: 1,
        column: 1,
        message,
        excerpt: String::new(),
    })?;
    Ok(Compiled {
        game,
        canonical: printer::print(&ast),
        title,
    })
}
