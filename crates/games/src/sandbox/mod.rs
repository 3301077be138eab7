//! The Affordance Sandbox (Ashlock and Montgomery): an agent on an odd square
//! grid scores for each new square it enters, may never re-enter one, and
//! picks up tokens (affordances) that change its ration, its board or its
//! scoring. See `docs/games.md` for every rule and token.
//!
//! [`Board`] and [`Play`] are the fast simulator (bit masks, no allocation
//! per move) that the evolutionary solver plays millions of times;
//! [`SandboxGame`] wraps it as a [`model::Game`] for exploration.

mod board;
mod draw;
mod game;
mod generate;
mod level;
mod play;
mod rules;
mod text;

pub use board::Board;
pub use draw::{draw_instance, draw_play};
pub use game::{collected_counts, SandboxGame};
pub use generate::{generate, preset, SplitMix, PRESETS};
pub use level::{default_moves, HiddenToken, Instance, Spec, Token, MAX_SIDE, MAX_VALUE};
pub use play::Play;
pub use rules::{
    Dir, Rules, TokenKind, ValueKind, ARROW_GLYPHS, DIR_NAMES, DOWN, LEFT, NO_DIR, RIGHT, UP,
};
pub use text::{instance_text, parse, spec_text, token_code, Block};

use crate::{GamesError, Level, LevelSelector};

/// True when `text` looks like a sandbox file (used for `.txt` files).
pub fn looks_like(text: &str) -> bool {
    text::looks_like(text)
}

/// Loads the selected level of a sandbox file. An instance is played as
/// written; a specification is played as its first generated instance
/// (from the specification's own seed).
pub fn load(file_name: &str, text: &str, selector: &LevelSelector) -> Result<Level, GamesError> {
    let blocks = parse(file_name, text)?;
    let titles: Vec<&str> = blocks.iter().map(Block::title).collect();
    let index = crate::select(file_name, &titles, selector)?;
    let (instance, line) = match &blocks[index - 1] {
        Block::Instance(instance, line) => (instance.clone(), *line),
        Block::Spec(spec, line) => {
            let instance = generate(spec, spec.seed, 0).map_err(|m| syntax(file_name, *line, m))?;
            (instance, *line)
        }
    };
    let board = Board::new(&instance).map_err(|m| syntax(file_name, line, m))?;
    let game = SandboxGame::new(board);
    Ok(Level {
        text: game.canonical_text(),
        title: instance.title.clone(),
        game: Box::new(game),
        index,
        count: blocks.len(),
    })
}

/// Lists the levels of a sandbox file as (1-based number, title).
pub fn list_levels(file_name: &str, text: &str) -> Result<Vec<(usize, String)>, GamesError> {
    let blocks = parse(file_name, text)?;
    Ok(blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (i + 1, b.title().to_string()))
        .collect())
}

/// Reads one specification from a file (its first spec block).
pub fn load_spec(file_name: &str, text: &str) -> Result<Spec, GamesError> {
    parse(file_name, text)?
        .into_iter()
        .find_map(|b| match b {
            Block::Spec(spec, _) => Some(spec),
            Block::Instance(..) => None,
        })
        .ok_or_else(|| {
            syntax(
                file_name,
                1,
                "the file holds no `sandbox spec` block".to_string(),
            )
        })
}

/// Reads every instance of a file.
pub fn load_instances(file_name: &str, text: &str) -> Result<Vec<Instance>, GamesError> {
    Ok(parse(file_name, text)?
        .into_iter()
        .filter_map(|b| match b {
            Block::Instance(instance, _) => Some(instance),
            Block::Spec(..) => None,
        })
        .collect())
}

fn syntax(file: &str, line: usize, message: String) -> GamesError {
    GamesError::Syntax {
        file: file.to_string(),
        line,
        column: 1,
        message,
        excerpt: String::new(),
    }
}

#[cfg(test)]
mod game_tests;
#[cfg(test)]
mod tests;
