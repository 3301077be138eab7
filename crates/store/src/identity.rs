//! What makes a run the run it is: the level, the game's vocabulary and the
//! options that change the result.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_64;

/// The identity of a run, kept in its manifest. Two explorations with equal
/// identities produce identical stores.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The game family (`Game::kind`).
    pub game: String,
    /// The level's title.
    pub level_title: String,
    /// The level's canonical text.
    pub level_text: String,
    /// xxh3-64 of `level_text`, 16 hex digits.
    pub level_hash: String,
    /// Exploration options that change the result (depth and state limits, ...).
    pub options: BTreeMap<String, String>,
    /// Bytes per state record slot.
    pub state_slot: u32,
    /// When true a slot is a 2-byte little-endian length, the state, and padding.
    pub variable_width: bool,
    /// Action labels, indexed by action id.
    pub action_labels: Vec<String>,
    /// Outcome names, indexed by outcome id.
    pub outcome_names: Vec<String>,
    /// Number of players.
    pub players: u8,
    /// When true a probability is stored per transition.
    pub has_chance: bool,
}

impl RunIdentity {
    /// An identity; the level hash is computed from the text.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        game: String,
        level_title: String,
        level_text: String,
        options: BTreeMap<String, String>,
        state_slot: u32,
        variable_width: bool,
        action_labels: Vec<String>,
        outcome_names: Vec<String>,
        players: u8,
        has_chance: bool,
    ) -> RunIdentity {
        RunIdentity {
            level_hash: format!("{:016x}", xxh3_64(level_text.as_bytes())),
            game,
            level_title,
            level_text,
            options,
            state_slot,
            variable_width,
            action_labels,
            outcome_names,
            players,
            has_chance,
        }
    }

    /// The fields in which `self` (the stored run) and `other` differ.
    pub fn differences(&self, other: &RunIdentity) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, a: String, b: String| {
            if a != b {
                out.push(format!("{name} is {a} in the store, {b} now"));
            }
        };
        field("game", self.game.clone(), other.game.clone());
        field("level", self.level_hash.clone(), other.level_hash.clone());
        field(
            "title",
            format!("{:?}", self.level_title),
            format!("{:?}", other.level_title),
        );
        field(
            "options",
            format!("{:?}", self.options),
            format!("{:?}", other.options),
        );
        field(
            "state slot",
            self.state_slot.to_string(),
            other.state_slot.to_string(),
        );
        field(
            "actions",
            format!("{:?}", self.action_labels),
            format!("{:?}", other.action_labels),
        );
        field(
            "outcomes",
            format!("{:?}", self.outcome_names),
            format!("{:?}", other.outcome_names),
        );
        field(
            "players",
            self.players.to_string(),
            other.players.to_string(),
        );
        field(
            "chance",
            self.has_chance.to_string(),
            other.has_chance.to_string(),
        );
        field(
            "variable width",
            self.variable_width.to_string(),
            other.variable_width.to_string(),
        );
        out
    }
}
