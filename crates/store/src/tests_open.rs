//! What opening a run refuses: a run with nothing committed yet (not damage), and a
//! damaged run an explorer is about to resume (its states would become wrong ids); and
//! what it must never leave behind when killed while it starts a run over.

use crate::tests_run::{graph, identity, write};
use crate::*;

#[test]
fn a_run_before_its_first_checkpoint_has_nothing_committed_and_is_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let (mut w, _) = RunWriter::open(dir.path(), identity(3), OpenMode::CreateNew).unwrap();
    for s in 0..300_000u32 {
        w.append_state(&s.to_le_bytes()[..3]).unwrap();
    }
    w.publish_progress(Progress::default()).unwrap();
    w.sync_manifest().unwrap();
    for open in [Run::open, Run::open_unverified] {
        let e = open(dir.path()).err().map(|e| e.to_string());
        let e = e.unwrap_or_default();
        assert!(e.contains("running, nothing committed yet"), "{e}");
        assert!(!e.contains("checksum"), "{e}");
    }
    drop(w);
    let e = Run::open(dir.path()).err().map(|e| e.to_string());
    assert!(e.unwrap_or_default().contains("nothing committed yet"));
    // Exploring again starts over.
    let (w, checkpoint) =
        RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    assert!(checkpoint.is_none());
    assert_eq!(w.state_count(), 0);
}

#[test]
fn resuming_an_unfinished_run_checks_every_block_it_will_read() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(500_000);
    drop(write(dir.path(), &g, Some(400_000)));
    let path = dir.path().join("states-00000.seg");
    let good = std::fs::read(&path).unwrap();
    assert!(good.len() > (1 << 20) + 64);
    let mut bad = good.clone();
    bad[64 + 1000] ^= 4;
    std::fs::write(&path, &bad).unwrap();
    let e = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("states-00000.seg: checksum mismatch in block 0"),
        "{e}"
    );
    std::fs::write(&path, &good).unwrap();
    let (_, checkpoint) =
        RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    assert_eq!(checkpoint.map(|c| c.expanded), Some(400_001));
}

/// Regression (the resume test's rare "a resumed run failed: exit 1"): a run killed before
/// its first checkpoint is started over by the next `explore`, which deletes its files;
/// killed in the middle of those deletions, it must leave a directory that the `explore`
/// after it starts over again. The manifest used to be deleted among the data files, in
/// directory order: a kill just after it left the run's files without a manifest, which
/// opening refuses as damage ("missing, but the directory holds a run's files").
#[test]
fn a_fresh_start_killed_at_any_deletion_leaves_a_run_the_next_open_starts_over() {
    let mut deletions = 0;
    loop {
        let dir = tempfile::tempdir().unwrap();
        before_first_checkpoint(dir.path());
        crate::layout::killed_here::after(Some(deletions));
        let killed = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).is_err();
        crate::layout::killed_here::after(None);
        let (w, checkpoint) = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate)
            .unwrap_or_else(|e| panic!("killed after {deletions} deletions: {e}"));
        assert!(checkpoint.is_none());
        assert_eq!(w.state_count(), 0);
        drop(w);
        if !killed {
            // Every deletion was reached once: no moment is left to kill at.
            assert!(deletions > 10, "only {deletions} deletions");
            break;
        }
        deletions += 1;
    }
}

/// Leaves in `dir` what a run killed before its first checkpoint leaves: a manifest that
/// commits nothing beside data files that hold some bytes.
fn before_first_checkpoint(dir: &std::path::Path) {
    let (mut w, _) = RunWriter::open(dir, identity(3), OpenMode::CreateNew).unwrap();
    for s in 0..1000u32 {
        w.append_state(&s.to_le_bytes()[..3]).unwrap();
    }
    drop(w);
    assert!(Manifest::read(dir).unwrap().nothing_committed());
}
