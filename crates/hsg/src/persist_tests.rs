//! Round trips and damage detection of saved analyses.

use super::*;
use crate::analysis::tests::{labels, sample};
use crate::analysis::{analyze_graph, AnalyzeOptions};
use crate::summary::Source;

fn analysed() -> Analysis {
    analyze_graph(
        &sample(),
        &labels(),
        &AnalyzeOptions::default(),
        Source::default(),
    )
    .unwrap()
}

#[test]
fn round_trip_and_idempotent_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let a = analysed();
    save(&a, dir.path()).unwrap();
    let first = fs::read(dir.path().join("hsg/hyperstates.bin")).unwrap();
    save(&a, dir.path()).unwrap();
    assert_eq!(
        fs::read(dir.path().join("hsg/hyperstates.bin")).unwrap(),
        first
    );
    assert!(!dir.path().join("hsg.tmp").exists() && !dir.path().join("hsg.old").exists());

    let s = load(dir.path()).unwrap();
    assert_eq!(s.summary, a.summary);
    assert_eq!(s.component, a.condensation.components.of_state);
    assert_eq!(s.members, a.condensation.members);
    assert_eq!(s.member_offsets, a.condensation.member_offsets);
    assert_eq!(s.edges, a.condensation.edges);
    assert_eq!(s.ideal_path, a.spectrum.ideal_path);
    let root = &s.hyperstates[a.root as usize];
    assert_eq!(root.tag, a.tagging.tag(a.root));
    assert_eq!(root.depth, Some(0));
    assert_eq!(root.loss_distance, Some(1));
    assert!(root.headroom_hyperstates.is_some());
    assert_eq!(load_summary(dir.path()).unwrap(), a.summary);
    assert_eq!(SavedAnalysis::from_analysis(&a), s);
}

#[test]
fn damage_is_detected_and_named() {
    let dir = tempfile::tempdir().unwrap();
    save(&analysed(), dir.path()).unwrap();
    let path = dir.path().join("hsg/edges.bin");
    let mut bytes = fs::read(&path).unwrap();
    bytes[70] ^= 1;
    fs::write(&path, bytes).unwrap();
    let err = load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("edges.bin") && err.contains("checksum"),
        "{err}"
    );

    let path = dir.path().join("hsg/summary.json");
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"hyperstates\": 5", "\"hyperstates\": 6");
    fs::write(&path, text).unwrap();
    let err = load_summary(dir.path()).unwrap_err().to_string();
    assert!(err.contains("summary.json"), "{err}");
}

#[test]
fn truncated_file_is_reported_with_its_length() {
    let dir = tempfile::tempdir().unwrap();
    save(&analysed(), dir.path()).unwrap();
    let path = dir.path().join("hsg/component.bin");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    let err = load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("component.bin") && err.contains("records"),
        "{err}"
    );
}

#[test]
fn floats_of_a_reloaded_summary_equal_the_fresh_ones() {
    // Regression: JSON floats were read back a bit off (serde_json's fast parser), so a
    // reloaded summary differed from the fresh one and `hsg report --json` printed
    // `"cannot_reach_goal": null` on the run that computed the analysis.
    let dir = tempfile::tempdir().unwrap();
    let mut a = analysed();
    let mut x = 0.1f64;
    for _ in 0..200 {
        x = (x * 7.3 + 0.123_456_789_012_345_67).fract();
        a.summary.compression = x;
        if let Some(h) = a.summary.headroom.as_mut() {
            h.mean_states = x / 3.0;
            h.root_hyperstates = 2477.0 / (x + 1e-9);
        }
        save(&a, dir.path()).unwrap();
        let loaded = load(dir.path()).unwrap();
        assert_eq!(loaded.summary, a.summary, "{x:e}");
    }
}

#[test]
fn edge_offsets_past_the_edges_are_an_error_even_behind_a_valid_checksum() {
    // Found by fuzzing: a damaged edges.idx with a valid checksum made read_edges slice
    // the edge targets out of range (a panic).
    let dir = tempfile::tempdir().unwrap();
    let a = analysed();
    save(&a, dir.path()).unwrap();
    let offsets: Vec<u64> = (0..a.condensation.edges.offsets.len() as u64)
        .map(|i| i << 52)
        .collect();
    write_u64s(
        &dir.path().join("hsg").join(EDGES_IDX.0),
        EDGES_IDX.1,
        &offsets,
    )
    .unwrap();
    let err = load(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("edges.idx") && err.contains("offsets"),
        "{err}"
    );
}
