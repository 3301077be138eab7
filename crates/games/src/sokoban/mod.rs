//! Sokoban: the level parser and the rules as a [`model::Game`].

mod board;
mod rows;
mod rules;
mod text;

pub use game::Sokoban;
pub(crate) use text::split_levels;

mod game;
