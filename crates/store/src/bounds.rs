//! Checks of a manifest against the format's limits, made before any file is mapped:
//! a store from someone else may carry a manifest with a valid checksum and absurd
//! fields (counts that overflow, more labels than an id can name, a segment size the
//! format does not have), and these must be errors, never an overflow, a truncated id
//! or an allocation sized by a forged number. Counts are checked against the files
//! themselves afterwards (`structure.rs`), so every bound here is one the format
//! states, not a guess at what is plausible.

use crate::error::{corrupt, StoreError};
use crate::layout::SEGMENT_STATES;
use crate::manifest::Manifest;
use crate::{CUT_OUTCOME, MAX_STATE_ID};
use std::path::Path;

/// Action labels a run may declare: an action id is 16 bits.
const MAX_ACTIONS: usize = 1 << 16;
/// Outcome names a run may declare: an outcome id is 16 bits, and the largest one
/// marks a state held back ([`CUT_OUTCOME`]).
const MAX_OUTCOMES: usize = CUT_OUTCOME as usize;

/// Checks the manifest of `dir` before its files are opened.
pub fn check_manifest(dir: &Path, m: &Manifest) -> Result<(), StoreError> {
    let path = dir.join(crate::manifest::MANIFEST);
    let bad = |what: String| Err(corrupt(&path, what));
    let id = &m.identity;
    if id.action_labels.len() > MAX_ACTIONS {
        return bad(format!(
            "{} action labels, at most {MAX_ACTIONS} can be stored",
            id.action_labels.len()
        ));
    }
    if id.outcome_names.len() > MAX_OUTCOMES {
        return bad(format!(
            "{} outcome names, at most {MAX_OUTCOMES} can be stored",
            id.outcome_names.len()
        ));
    }
    if m.segment_states != SEGMENT_STATES {
        return bad(format!(
            "segments of {} states, the format's are {SEGMENT_STATES}",
            m.segment_states
        ));
    }
    if m.states > MAX_STATE_ID + 1 || m.expanded > m.states || m.terminals > m.states {
        return bad(format!(
            "{} states, {} expanded, {} terminal: not counts of one run",
            m.states, m.expanded, m.terminals
        ));
    }
    let segments = m.states.div_ceil(SEGMENT_STATES);
    if m.files.states.len() as u64 != segments {
        return bad(format!(
            "{} state segments for {} states, {segments} expected",
            m.files.states.len(),
            m.states
        ));
    }
    if m.layers.len() as u64 > m.states.saturating_add(1) {
        return bad(format!("{} layers for {} states", m.layers.len(), m.states));
    }
    if m.files.trans_prob.is_some() != id.has_chance {
        return bad(format!(
            "the game {} chance but trans.prob is {}",
            if id.has_chance { "has" } else { "has no" },
            if m.files.trans_prob.is_some() {
                "committed"
            } else {
                "missing"
            }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_limits_are_the_ids_widths() {
        assert_eq!(MAX_ACTIONS - 1, crate::ActionId::MAX as usize);
        assert_eq!(MAX_OUTCOMES, crate::OutcomeId::MAX as usize);
    }
}
