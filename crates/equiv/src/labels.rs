//! The names a game gives to its actions, outcomes and simultaneous decisions,
//! and each edge's decision for each player (Definition 8's legal choices).

use crate::EquivError;
use model::Game;
use std::collections::HashMap;

/// The outcome of a leaf that is not terminal but has no legal move (a stuck
/// state); it compares like any other outcome, and is named as stuck.
pub const NO_OUTCOME: u16 = u16::MAX;

/// The null decision of a player who has no choice on an edge.
pub(crate) const NULL_CHOICE: u64 = u64::MAX;

/// Labels of one game, kept with its tree.
#[derive(Clone, Debug)]
pub struct Labels {
    /// The game's title, for messages.
    pub title: String,
    /// Number of players.
    pub players: u8,
    /// Action labels, by action id.
    pub actions: Vec<String>,
    /// Outcome names, by outcome id.
    pub outcomes: Vec<String>,
    /// For actions that are simultaneous decision tuples: each player's decision
    /// (an index into `decisions`, `None` for a null decision).
    tuples: Vec<Option<Vec<Option<u32>>>>,
    /// Names of the decisions appearing in tuples.
    decisions: Vec<String>,
}

impl Labels {
    /// Reads the labels of `game`, checking that every decision tuple has one
    /// entry per player.
    pub fn of(game: &dyn Game, title: &str) -> Result<Labels, EquivError> {
        let actions = game.action_labels();
        let players = game.players();
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut decisions = Vec::new();
        let mut tuples = Vec::with_capacity(actions.len());
        for (a, label) in actions.iter().enumerate() {
            let Some(tuple) = game.decision_tuple(a as u16) else {
                tuples.push(None);
                continue;
            };
            if tuple.len() != usize::from(players) {
                return Err(EquivError::BadTuple {
                    game: title.to_string(),
                    action: label.clone(),
                    len: tuple.len(),
                    players,
                });
            }
            let ids = tuple
                .into_iter()
                .map(|d| {
                    d.map(|name| {
                        let next = decisions.len() as u32;
                        *names.entry(name.clone()).or_insert_with(|| {
                            decisions.push(name);
                            next
                        })
                    })
                })
                .collect();
            tuples.push(Some(ids));
        }
        Ok(Labels {
            title: title.to_string(),
            players,
            actions,
            outcomes: game.outcome_names(),
            tuples,
            decisions,
        })
    }

    /// The label of action `a`.
    pub fn action(&self, a: u16) -> String {
        self.actions
            .get(usize::from(a))
            .cloned()
            .unwrap_or_else(|| format!("#{a}"))
    }

    /// The name of outcome `o`.
    pub fn outcome(&self, o: u16) -> String {
        if o == NO_OUTCOME {
            return "(stuck: no move, no outcome)".to_string();
        }
        self.outcomes
            .get(usize::from(o))
            .cloned()
            .unwrap_or_else(|| format!("outcome #{o}"))
    }

    /// The display name of player `p` (games do not name their players).
    pub fn player(p: u8) -> String {
        format!("player {}", u32::from(p) + 1)
    }

    /// The choice of player `p` on an edge taken by `mover` with `action`:
    /// a key equal for equal decisions, [`NULL_CHOICE`] for the null decision.
    pub(crate) fn choice(&self, action: u16, mover: u8, p: u8) -> u64 {
        match self.tuples.get(usize::from(action)) {
            Some(Some(tuple)) => match tuple.get(usize::from(p)) {
                Some(Some(d)) => (1 << 32) | u64::from(*d),
                _ => NULL_CHOICE,
            },
            _ if p == mover => u64::from(action),
            _ => NULL_CHOICE,
        }
    }

    /// The name of a decision from a tuple, for messages.
    pub fn decision(&self, d: u32) -> &str {
        self.decisions.get(d as usize).map_or("?", String::as_str)
    }
}
