//! Which files a run has at a checkpoint, how long each must be and which
//! header each must carry, derived from the manifest alone. The writer (on
//! resume) and the reader (on open) both check a manifest against this.

use std::path::Path;

use crate::error::StoreError;
use crate::format::{
    segment_name, FileKind, Header, FP_IDX, IN_IDX, IN_LOG, TERMINALS, TRANS_IDX, TRANS_LOG,
    TRANS_PROB,
};
use crate::manifest::Manifest;

/// One file a checkpoint must list: its name, header and committed data length.
pub(crate) struct ExpectedFile {
    pub name: String,
    pub header: Header,
    pub len: u64,
}

/// The number of segment files holding `states` states (at least one).
pub(crate) fn segment_count(states: u64, segment_records: u64) -> u64 {
    states.div_ceil(segment_records.max(1)).max(1)
}

/// The header every file of this run carries, given its kind and `a` field.
pub(crate) fn header(manifest: &Manifest, kind: FileKind, a: u64) -> Header {
    let record_width = match kind {
        FileKind::States => manifest.identity.state_slot,
        FileKind::FpIdx => 16,
        _ => 8,
    };
    Header {
        kind,
        record_width,
        block_bytes: manifest.block_bytes,
        identity_hash: manifest.identity_hash,
        a,
        b: 0,
    }
}

/// The files the manifest's checkpoint must list, in a fixed order.
pub(crate) fn expected_files(manifest: &Manifest) -> Vec<ExpectedFile> {
    let cp = &manifest.checkpoint;
    let slot = u64::from(manifest.identity.state_slot);
    let per_segment = manifest.segment_records;
    let mut out = Vec::new();
    for index in 0..segment_count(cp.states, per_segment) {
        let first = index * per_segment;
        let records = cp.states.saturating_sub(first).min(per_segment);
        out.push(ExpectedFile {
            name: segment_name(index),
            header: header(manifest, FileKind::States, first),
            len: records * slot,
        });
    }
    let mut word_file = |name: &str, kind: FileKind, words: u64| {
        out.push(ExpectedFile {
            name: name.to_string(),
            header: header(manifest, kind, 0),
            len: words * 8,
        })
    };
    word_file(TRANS_IDX, FileKind::TransIdx, cp.expanded);
    word_file(TRANS_LOG, FileKind::TransLog, cp.transitions);
    if manifest.identity.has_chance {
        word_file(TRANS_PROB, FileKind::TransProb, cp.transitions);
    }
    word_file(TERMINALS, FileKind::Terminals, cp.terminals);
    if manifest.has_derived_files() {
        word_file(IN_IDX, FileKind::InIdx, cp.states);
        word_file(IN_LOG, FileKind::InLog, cp.transitions);
        word_file(FP_IDX, FileKind::FpIdx, 2 * cp.states);
    }
    out
}

/// What is wrong with a layer table for `states` states, if anything.
pub(crate) fn layers_problem(layers: &[u64], states: u64) -> Option<String> {
    match layers.first() {
        None if states > 0 => {
            return Some(
                "the layer table is empty but there are states (set_layers was never called)"
                    .into(),
            )
        }
        Some(&first) if first != 0 => {
            return Some(format!("the first layer starts at {first}, not 0"))
        }
        _ => {}
    }
    if let Some(k) = layers.windows(2).position(|w| w[1] < w[0]) {
        return Some(format!("layer {} starts before layer {k}", k + 1));
    }
    match layers.last() {
        Some(&last) if last > states => Some(format!(
            "the last layer starts at {last}, past the {states} states"
        )),
        _ => None,
    }
}

/// Checks a manifest's internal consistency: parameters, counts, layer
/// table, and that its file list is exactly the expected one with the
/// expected lengths.
pub(crate) fn validate(manifest: &Manifest, path: &Path) -> Result<(), StoreError> {
    let bad = |what: String| {
        Err(StoreError::Manifest {
            path: path.to_path_buf(),
            what: format!("inconsistent manifest: {what}"),
        })
    };
    if let Err(err) = manifest.identity.validate() {
        return bad(err.to_string());
    }
    if !manifest.segment_records.is_power_of_two() || manifest.block_bytes == 0 {
        return bad(format!(
            "segment_records {} must be a power of two and block_bytes {} positive",
            manifest.segment_records, manifest.block_bytes
        ));
    }
    let cp = &manifest.checkpoint;
    if cp.expanded > cp.states || cp.terminals > cp.states || cp.states > crate::MAX_STATE_ID {
        return bad(format!(
            "{} expanded and {} terminal states out of {} states",
            cp.expanded, cp.terminals, cp.states
        ));
    }
    if let Some(problem) = layers_problem(&cp.layers, cp.states) {
        return bad(problem);
    }
    let expected = expected_files(manifest);
    if expected.len() != cp.files.len() {
        return bad(format!(
            "the checkpoint lists {} files, the counts call for {}",
            cp.files.len(),
            expected.len()
        ));
    }
    for file in &expected {
        match cp.files.get(&file.name) {
            None => return bad(format!("{} is missing from the checkpoint", file.name)),
            Some(commit) if commit.len != file.len => {
                return bad(format!(
                    "{} has {} committed bytes, the counts call for {}",
                    file.name, commit.len, file.len
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_tables_are_checked() {
        assert!(layers_problem(&[], 0).is_none());
        assert!(layers_problem(&[0, 1, 1, 5], 5).is_none());
        assert!(layers_problem(&[], 3).unwrap().contains("set_layers"));
        assert!(layers_problem(&[1], 3).is_some());
        assert!(layers_problem(&[0, 4, 2], 5).is_some());
        assert!(layers_problem(&[0, 9], 5).is_some());
    }

    #[test]
    fn segments_are_counted() {
        assert_eq!(segment_count(0, 4), 1);
        assert_eq!(segment_count(4, 4), 1);
        assert_eq!(segment_count(5, 4), 2);
    }
}
