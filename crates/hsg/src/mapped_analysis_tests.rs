//! The mapped analysis against the loaded one, and its background verification
//! against damage.

use super::*;
use crate::analysis::tests::{labels, sample};
use crate::analysis::{analyze_graph, Analysis, AnalyzeOptions};
use crate::persist::{load, save, SavedAnalysis};
use crate::summary::Source;
use std::fs;

fn saved() -> (tempfile::TempDir, Analysis) {
    let dir = tempfile::tempdir().unwrap();
    let a = analyze_graph(
        &sample(),
        &labels(),
        &AnalyzeOptions::default(),
        Source::default(),
    )
    .unwrap();
    save(&a, dir.path()).unwrap();
    (dir, a)
}

/// Everything a view answers, item by item, including one past every end.
fn answers(v: &dyn SavedView) -> String {
    let mut out = format!(
        "{:?} {} {} {} {:?}\n",
        v.summary(),
        v.hyperstate_count(),
        v.state_count(),
        v.edge_count(),
        v.ideal_path()
    );
    for s in 0..=v.state_count() {
        out.push_str(&format!("c{s}={:?} ", v.component(s)));
    }
    for h in 0..=v.hyperstate_count() {
        out.push_str(&format!(
            "\nh{h} {:?} m{:?} e{:?}",
            v.hyperstate(h),
            v.member_range(h),
            v.edge_range(h)
        ));
    }
    for i in 0..=v.state_count() {
        out.push_str(&format!(" m{i}={:?}", v.member(i)));
    }
    for i in 0..=v.edge_count() {
        out.push_str(&format!(" e{i}={:?}", v.edge(i)));
    }
    out
}

fn verify(m: &MappedAnalysis) -> (Result<bool, HsgError>, u64) {
    let mut done = 0;
    let r = m.verify_watched(&mut |_, n| {
        done += n;
        true
    });
    (r, done)
}

#[test]
fn the_mapped_analysis_answers_as_the_loaded_one_and_verifies() {
    let (dir, a) = saved();
    let m = MappedAnalysis::open(dir.path()).unwrap();
    let loaded = load(dir.path()).unwrap();
    assert_eq!(answers(&m), answers(&loaded));
    assert_eq!(answers(&m), answers(&SavedAnalysis::from_analysis(&a)));
    let (r, done) = verify(&m);
    assert!(r.unwrap());
    assert_eq!(done, m.verify_work());
    let mut calls = 0;
    let stopped = m.verify_watched(&mut |_, _| {
        calls += 1;
        false
    });
    assert!(!stopped.unwrap());
    assert_eq!(calls, 1);
}

#[test]
fn a_flipped_bit_in_any_file_opens_and_is_named_by_the_verification() {
    for name in [
        "component.bin",
        "members.idx",
        "members.bin",
        "edges.idx",
        "edges.bin",
        "hyperstates.bin",
    ] {
        let (dir, _) = saved();
        let path = dir.path().join("hsg").join(name);
        let mut bytes = fs::read(&path).unwrap();
        bytes[64] ^= 0x10;
        fs::write(&path, &bytes).unwrap();
        let m = MappedAnalysis::open(dir.path()).unwrap();
        // Reading the unverified view never panics, whatever it answers.
        let _ = answers(&m);
        let e = verify(&m).0.unwrap_err().to_string();
        assert!(
            e.contains(name) && e.contains("checksum mismatch") && e.contains("bytes 64.."),
            "{name}: {e}"
        );
    }
}

#[test]
fn values_wrong_behind_a_valid_checksum_are_named_by_the_verification() {
    let (dir, a) = saved();
    let offsets: Vec<u64> = (0..a.condensation.edges.offsets.len() as u64)
        .map(|i| i << 52)
        .collect();
    crate::persist::write_u64s(
        &dir.path().join("hsg").join(EDGES_IDX.0),
        EDGES_IDX.1,
        &offsets,
    )
    .unwrap();
    let m = MappedAnalysis::open(dir.path()).unwrap();
    let _ = answers(&m);
    let e = verify(&m).0.unwrap_err().to_string();
    assert!(e.contains("edges.idx") && e.contains("offset"), "{e}");
    assert!(load(dir.path()).is_err());
}

#[test]
fn counts_that_disagree_with_the_summary_are_refused_at_open() {
    let (dir, _) = saved();
    let path = dir.path().join("hsg/component.bin");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    let e = MappedAnalysis::open(dir.path()).err().unwrap().to_string();
    assert!(e.contains("component.bin") && e.contains("records"), "{e}");
}

#[test]
fn offsets_past_the_list_give_empty_ranges_before_the_verification() {
    // Regression: the workbench's graph screen walked `edge_range` of an unverified
    // analysis whose edges.idx (behind a valid checksum) ended at 2^60, and spun through
    // positions that all answered `None`.
    let (dir, a) = saved();
    let c = &a.condensation;
    let past = 1u64 << 60;
    let mut edge_offsets = c.edges.offsets.clone();
    *edge_offsets.last_mut().unwrap() = past;
    let mut member_offsets = c.member_offsets.clone();
    *member_offsets.last_mut().unwrap() = past;
    let folder = dir.path().join("hsg");
    crate::persist::write_u64s(&folder.join(EDGES_IDX.0), EDGES_IDX.1, &edge_offsets).unwrap();
    crate::persist::write_u64s(&folder.join(MEMBERS_IDX.0), MEMBERS_IDX.1, &member_offsets)
        .unwrap();
    let m = MappedAnalysis::open(dir.path()).unwrap();
    for h in 0..m.hyperstate_count() {
        assert!(
            m.edge_range(h).end <= m.edge_count(),
            "h{h}: {:?}",
            m.edge_range(h)
        );
        assert!(
            m.member_range(h).end <= m.state_count(),
            "h{h}: {:?}",
            m.member_range(h)
        );
    }
    assert!(verify(&m).0.is_err());
}
