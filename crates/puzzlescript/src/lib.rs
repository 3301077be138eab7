//! A PuzzleScript engine for hyperstate.
//!
//! PuzzleScript games (the language of increpare's puzzlescript.net) are read,
//! compiled and run turn by turn exactly as the reference engine runs them,
//! so that any public game can be explored as a [`model::Game`].
//!
//! # Public API
//!
//! - [`compile`]`(source_name, text) -> Result<Compiled, Error>`: parse and
//!   compile a game; errors carry the line and column.
//! - [`list_levels`]: the playable levels, numbered from 1 (message levels skipped).
//! - [`Session`]: a player replaying inputs as the reference's test harness
//!   does: [`Session::input`], [`Session::undo`], [`Session::restart`],
//!   [`Session::tick`], and [`Session::text_form`] (the reference's level dump).
//! - [`conformance::run_file`] / [`conformance::run_text`]: replay a JSONL file
//!   of cases and report, per case, whether it passed and the first differing cell.
//! - [`PuzzleScriptGame::new`]`(compiled, level_number)`: one level as a
//!   [`model::Game`] (`kind() == "puzzlescript"`).
//! - [`coverage::survey`]: which rules fire in the states of an exploration,
//!   and which (state, input) pairs start an `again` chain that never ends.
//!
//! # Layout
//!
//! `parser/` reads the text, `compile/` resolves names and turns rules into
//! masks, `engine/` runs turns on a grid of bitsets, `rng.rs` is the
//! reference's seeded generator, `text_form.rs` its level dump.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bits;
pub mod compile;
pub mod conformance;
pub mod coverage;
#[cfg(test)]
mod coverage_tests;
pub mod engine;
mod error;
mod game;
pub mod parser;
pub mod rng;
#[cfg(test)]
mod test_rng;
mod text_form;

pub use compile::{compile, Compiled};
pub use engine::session::{Input, Session};
pub use error::Error;
pub use game::PuzzleScriptGame;
pub use text_form::text_form;

/// A playable level: its number (from 1, messages skipped) and its index
/// among all entries of LEVELS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelInfo {
    /// Number from 1 over playable levels.
    pub number: usize,
    /// Index among every LEVELS entry, messages included.
    pub index: usize,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

/// The playable levels of a game.
pub fn list_levels(game: &Compiled) -> Vec<LevelInfo> {
    game.levels
        .iter()
        .enumerate()
        .filter_map(|(index, l)| match l {
            compile::Level::Grid(g) => Some((index, g)),
            compile::Level::Message(_) => None,
        })
        .enumerate()
        .map(|(n, (index, g))| LevelInfo {
            number: n + 1,
            index,
            width: g.width,
            height: g.height,
        })
        .collect()
}
