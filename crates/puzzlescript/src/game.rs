//! One level of a PuzzleScript game as a [`model::Game`].

/// Placeholder until the explorer's game lands.
pub struct PuzzleScriptGame;
