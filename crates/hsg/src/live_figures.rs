//! The figures an exploration's live hyperstate analysis publishes with its progress:
//! one type, written by the explorer's watcher (in `cli`) into the manifest's progress
//! and read back from it by the CLI's progress line and the workbench's overview.
//!
//! The store keeps them as an opaque JSON object (it sits below the analysis), so the
//! type owns both directions: a renamed or missing field is a decoding error that the
//! readers show, never a figure read as zero.

use crate::error::HsgError;
use crate::incremental::LiveHsg;
use serde::{Deserialize, Serialize};

/// What `--live-hsg` (or `--hsg-depth`) publishes with the progress.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveFigures {
    /// Hyperstates, HSG depth, winning and dead components of the graph so far.
    #[serde(flatten)]
    pub hsg: LiveHsg,
    /// The HSG depth limit of the exploration, if it has one.
    pub depth_limit: Option<u32>,
    /// States held back so far because their hyperstate lies deeper than the limit.
    pub held_back: u64,
}

impl LiveFigures {
    /// The JSON object the manifest's progress carries.
    pub fn to_json(&self) -> Result<serde_json::Value, HsgError> {
        serde_json::to_value(self).map_err(HsgError::LiveFigures)
    }

    /// Reads the JSON object of a manifest's progress; an object that lacks a figure
    /// or has one of the wrong type is an error.
    pub fn from_json(value: &serde_json::Value) -> Result<LiveFigures, HsgError> {
        LiveFigures::deserialize(value).map_err(HsgError::LiveFigures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> LiveFigures {
        LiveFigures {
            hsg: LiveHsg {
                hyperstates: 42,
                depth: 3,
                winning: 1,
                dead_states: 700,
                dead_hyperstates: 9,
            },
            depth_limit: Some(4),
            held_back: 12,
        }
    }

    #[test]
    fn figures_read_back_what_was_written() {
        let json = figures().to_json().unwrap();
        assert_eq!(json["hyperstates"], 42);
        assert_eq!(json["held_back"], 12);
        assert_eq!(LiveFigures::from_json(&json).unwrap(), figures());
        let unlimited = LiveFigures {
            depth_limit: None,
            ..figures()
        };
        let json = unlimited.to_json().unwrap();
        assert_eq!(LiveFigures::from_json(&json).unwrap(), unlimited);
    }

    #[test]
    fn a_missing_or_mistyped_figure_is_an_error_not_a_zero() {
        let mut json = figures().to_json().unwrap();
        json.as_object_mut().unwrap().remove("dead_states");
        let err = LiveFigures::from_json(&json).unwrap_err().to_string();
        assert!(err.contains("dead_states"), "{err}");
        let mut json = figures().to_json().unwrap();
        json["depth"] = serde_json::json!("three");
        assert!(LiveFigures::from_json(&json).is_err());
        assert!(LiveFigures::from_json(&serde_json::json!(null)).is_err());
    }
}
