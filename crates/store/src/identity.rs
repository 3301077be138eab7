//! The identity of a run (what was explored, with which options) and the
//! comparison that refuses to mix two different runs in one directory.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;

/// The identity of a run: what was explored, with which options. Serde (JSON) inside MANIFEST.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// `Game::kind()`.
    pub game: String,
    /// The level's title.
    pub level_title: String,
    /// The level's full text.
    pub level_text: String,
    /// xxh3-64 of `level_text`, 16 lowercase hex digits ([`RunIdentity::level_hash_of`]).
    pub level_hash: String,
    /// Exploration options that change the result (max_depth, max_states, ...).
    pub options: BTreeMap<String, String>,
    /// Bytes per state record slot (including the 2-byte length if `variable_width`).
    pub state_slot: u32,
    /// If true, a slot is a 2-byte little-endian length followed by up to `state_slot - 2` bytes.
    pub variable_width: bool,
    /// Label of each action id.
    pub action_labels: Vec<String>,
    /// Name of each outcome id.
    pub outcome_names: Vec<String>,
    /// Number of players.
    pub players: u8,
    /// If true, a probability (num u32, den u32) is stored per transition.
    pub has_chance: bool,
}

impl RunIdentity {
    /// An identity for a level, with its hash computed; the other fields
    /// start empty and are filled in by the caller.
    pub fn new(
        game: impl Into<String>,
        level_title: impl Into<String>,
        level_text: impl Into<String>,
    ) -> RunIdentity {
        let level_text = level_text.into();
        RunIdentity {
            game: game.into(),
            level_title: level_title.into(),
            level_hash: RunIdentity::level_hash_of(&level_text),
            level_text,
            ..RunIdentity::default()
        }
    }

    /// The level hash of a level text: xxh3-64 as 16 lowercase hex digits.
    pub fn level_hash_of(level_text: &str) -> String {
        format!("{:016x}", xxh3_64(level_text.as_bytes()))
    }

    /// xxh3-64 of the identity's JSON; written in every file header so that a
    /// file of another run is recognised as foreign.
    pub fn fingerprint(&self) -> u64 {
        // Serialising plain strings, integers and a BTreeMap cannot fail and is deterministic.
        xxh3_64(&serde_json::to_vec(self).unwrap_or_default())
    }

    /// The longest record a slot holds.
    pub fn max_record_len(&self) -> usize {
        let slot = self.state_slot as usize;
        if self.variable_width {
            slot.saturating_sub(2)
        } else {
            slot
        }
    }

    /// Checks the fields the store relies on.
    pub(crate) fn validate(&self) -> Result<(), StoreError> {
        if self.state_slot == 0 {
            return Err(StoreError::Usage(
                "state_slot must be at least 1 byte".into(),
            ));
        }
        if self.variable_width && !(2..=65537).contains(&self.state_slot) {
            return Err(StoreError::Usage(format!(
                "a variable-width slot is a 2-byte length plus at most 65535 bytes, got state_slot {}",
                self.state_slot
            )));
        }
        let expected = RunIdentity::level_hash_of(&self.level_text);
        if self.level_hash != expected {
            return Err(StoreError::Usage(format!(
                "level_hash {:?} is not the hash of level_text ({expected}); build identities with RunIdentity::new",
                self.level_hash
            )));
        }
        Ok(())
    }

    /// One line per field that differs from `requested`, for `IdentityMismatch`.
    pub fn differences(&self, requested: &RunIdentity) -> Vec<String> {
        let mut out = Vec::new();
        let mut field = |name: &str, stored: String, wanted: String| {
            if stored != wanted {
                out.push(format!("{name}: stored {stored}, requested {wanted}"));
            }
        };
        field("game", quoted(&self.game), quoted(&requested.game));
        field(
            "level_title",
            quoted(&self.level_title),
            quoted(&requested.level_title),
        );
        if self.level_text != requested.level_text || self.level_hash != requested.level_hash {
            field(
                "level (hash)",
                self.level_hash.clone(),
                requested.level_hash.clone()
                    + if self.level_hash == requested.level_hash {
                        " (texts differ)"
                    } else {
                        ""
                    },
            );
        }
        field(
            "state_slot",
            self.state_slot.to_string(),
            requested.state_slot.to_string(),
        );
        field(
            "variable_width",
            self.variable_width.to_string(),
            requested.variable_width.to_string(),
        );
        field(
            "action_labels",
            format!("{:?}", self.action_labels),
            format!("{:?}", requested.action_labels),
        );
        field(
            "outcome_names",
            format!("{:?}", self.outcome_names),
            format!("{:?}", requested.outcome_names),
        );
        field(
            "players",
            self.players.to_string(),
            requested.players.to_string(),
        );
        field(
            "has_chance",
            self.has_chance.to_string(),
            requested.has_chance.to_string(),
        );
        let keys: std::collections::BTreeSet<&String> = self
            .options
            .keys()
            .chain(requested.options.keys())
            .collect();
        for key in keys {
            let show = |map: &BTreeMap<String, String>| {
                map.get(key).map_or("(unset)".to_string(), |v| quoted(v))
            };
            field(
                &format!("option {key}"),
                show(&self.options),
                show(&requested.options),
            );
        }
        out
    }
}

fn quoted(text: &str) -> String {
    format!("{text:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_computes_the_level_hash() {
        let identity = RunIdentity::new("sokoban", "one", "#####");
        assert_eq!(identity.level_hash.len(), 16);
        assert_eq!(identity.level_hash, RunIdentity::level_hash_of("#####"));
    }

    #[test]
    fn differences_list_each_field() {
        let mut a = RunIdentity::new("sokoban", "one", "#####");
        a.state_slot = 8;
        a.options.insert("max_depth".into(), "10".into());
        let mut b = RunIdentity::new("hanoi", "one", "##");
        b.state_slot = 8;
        b.options.insert("max_states".into(), "5".into());
        let diffs = b.differences(&a);
        assert_eq!(diffs.len(), 4, "{diffs:?}");
        assert!(diffs[0].starts_with("game: stored \"hanoi\", requested \"sokoban\""));
        assert!(diffs
            .iter()
            .any(|d| d == "option max_depth: stored (unset), requested \"10\""));
        assert!(a.differences(&a).is_empty());
        assert_ne!(a.fingerprint(), b.fingerprint());
    }

    #[test]
    fn validate_rejects_bad_slots_and_hashes() {
        let mut identity = RunIdentity::new("g", "t", "x");
        assert!(identity.validate().is_err());
        identity.state_slot = 4;
        identity.validate().unwrap();
        identity.level_hash = "0".into();
        assert!(identity.validate().is_err());
    }
}
