//! Round trips of whole runs: write, reopen, resume after a simulated crash,
//! identity and lock refusals, corruption of every file.

use crate::*;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

pub(crate) fn identity(slot: u32) -> RunIdentity {
    RunIdentity::new(
        "test".into(),
        "t".into(),
        "level".into(),
        BTreeMap::new(),
        slot,
        false,
        vec!["a".into(), "b".into()],
        vec!["win".into(), "fail".into()],
        1,
        false,
    )
}

/// Writes a graph: `edges[s]` are the targets of state s (all states expanded).
pub(crate) fn write(
    dir: &Path,
    edges: &[Vec<u64>],
    crash_after: Option<usize>,
) -> Option<RunWriter> {
    let (mut w, _) = RunWriter::open(dir, identity(3), OpenMode::ResumeOrCreate).unwrap();
    let start = w.expanded_count() as usize;
    while w.state_count() < edges.len() as u64 {
        let id = w.state_count() as u32;
        w.append_state(&id.to_le_bytes()[..3]).unwrap();
    }
    for (s, targets) in edges.iter().enumerate().skip(start) {
        let row: Vec<Edge> = targets
            .iter()
            .enumerate()
            .map(|(i, &t)| Edge {
                action: (i % 2) as u16,
                target: t,
            })
            .collect();
        w.append_edges(s as u64, &row, None).unwrap();
        if s % 3 == 0 {
            w.mark_terminal(s as u64, 0).unwrap();
        }
        if crash_after == Some(s) {
            w.checkpoint(serde_json::json!({"at": s}), Progress::default())
                .unwrap();
            return Some(w);
        }
    }
    w.set_layers(&[0, 1]);
    w.finish(RunStatus::Complete, Progress::default()).unwrap();
    None
}

/// The message of a checkpoint that must fail.
fn failed_checkpoint(w: &mut RunWriter) -> String {
    w.checkpoint(serde_json::Value::Null, Progress::default())
        .unwrap_err()
        .to_string()
}

fn check_graph(dir: &Path, edges: &[Vec<u64>]) {
    let run = Run::open(dir).unwrap();
    assert_eq!(run.state_count(), edges.len() as u64);
    let mut incoming = vec![Vec::new(); edges.len()];
    for (s, targets) in edges.iter().enumerate() {
        let got: Vec<u64> = run.out_edges(s as u64).map(|e| e.target).collect();
        assert_eq!(&got, targets);
        for &t in targets {
            incoming[t as usize].push(s as u64);
        }
        assert_eq!(
            run.find_state(&(s as u32).to_le_bytes()[..3]),
            Some(s as u64)
        );
        assert_eq!(run.outcome(s as u64), (s % 3 == 0).then_some(0));
    }
    for (t, sources) in incoming.iter().enumerate() {
        let got: Vec<u64> = run.in_edges(t as u64).map(|e| e.source).collect();
        assert_eq!(&got, sources);
    }
}

pub(crate) fn graph(n: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|s| vec![(s as u64 * 7 + 1) % n as u64, (s as u64 * 3) % n as u64])
        .collect()
}

#[test]
fn a_written_run_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(5000);
    write(dir.path(), &g, None);
    check_graph(dir.path(), &g);
    let run = Run::open(dir.path()).unwrap();
    assert_eq!(run.depth(0), 0);
    assert_eq!(run.depth(4999), 1);
    assert_eq!(run.status(), RunStatus::Complete);
}

#[test]
fn a_crash_after_a_checkpoint_resumes_to_the_same_files() {
    let g = graph(3000);
    let a = tempfile::tempdir().unwrap();
    write(a.path(), &g, None);
    let b = tempfile::tempdir().unwrap();
    let mut w = write(b.path(), &g, Some(1200)).unwrap();
    // Work after the checkpoint that the crash loses.
    w.append_edges(
        1201,
        &[Edge {
            action: 0,
            target: 5,
        }],
        None,
    )
    .unwrap();
    for file in w
        .files
        .rows
        .files_mut()
        .into_iter()
        .chain(w.files.edges.files_mut())
    {
        file.flush().unwrap();
    }
    drop(w);
    let (w, cp) = RunWriter::open(b.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    let cp = cp.unwrap();
    assert_eq!(cp.expanded, 1201);
    assert_eq!(cp.explorer["at"], 1200);
    drop(w);
    write(b.path(), &g, None);
    for name in [
        "states-00000.seg",
        "rows.idx",
        "rows.bits",
        "edges.idx",
        "edges.bits",
        "terminals",
    ] {
        let x = std::fs::read(a.path().join(name)).unwrap();
        let y = std::fs::read(b.path().join(name)).unwrap();
        assert!(x == y, "{name} differs");
    }
}

#[test]
fn another_identity_and_a_second_writer_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    let e = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate)
        .err()
        .unwrap();
    assert!(matches!(e, StoreError::Locked { .. }), "{e}");
    drop(w);
    let e = RunWriter::open(dir.path(), identity(4), OpenMode::ResumeOrCreate)
        .err()
        .unwrap();
    assert!(e.to_string().contains("--force-new"), "{e}");
    RunWriter::open(dir.path(), identity(4), OpenMode::ForceNew).unwrap();
}

#[test]
fn a_foreign_directory_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("thesis.tex"), "precious").unwrap();
    for mode in [OpenMode::ResumeOrCreate, OpenMode::ForceNew] {
        let e = RunWriter::open(dir.path(), identity(3), mode)
            .err()
            .unwrap();
        assert!(e.to_string().contains("thesis.tex"), "{e}");
    }
    assert!(dir.path().join("thesis.tex").exists());
    assert!(
        !dir.path().join("LOCK").exists(),
        "no LOCK left in a foreign directory"
    );
}

#[test]
fn force_new_deletes_only_the_runs_own_files() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &graph(50), None);
    std::fs::write(dir.path().join("trans.csv"), "mine").unwrap();
    let (w, cp) = RunWriter::open(dir.path(), identity(3), OpenMode::ForceNew).unwrap();
    assert!(cp.is_none());
    assert_eq!(w.state_count(), 0);
    assert!(dir.path().join("trans.csv").exists());
    let fresh = std::fs::metadata(dir.path().join("edges.idx"))
        .unwrap()
        .len();
    assert_eq!(fresh, 64, "a new, empty edges.idx");
}

#[test]
fn a_full_disk_keeps_the_last_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(400);
    let mut w = write(dir.path(), &g, Some(199)).unwrap();
    let [_, bits] = w.files.edges.files_mut();
    let committed = bits.len();
    bits.fail_after = Some(committed);
    for s in 200..400u64 {
        let row = [Edge {
            action: 0,
            target: 1,
        }; 2];
        // Buffered appends succeed; the failure shows when data is written.
        if w.append_edges(s, &row, None).is_err() {
            break;
        }
    }
    let e = failed_checkpoint(&mut w);
    assert!(
        e.contains("edges.bits") && e.contains("No space left"),
        "{e}"
    );
    let e = failed_checkpoint(&mut w);
    assert!(
        e.contains("edges.bits") && e.contains("earlier write failed"),
        "{e}"
    );
    w.publish_progress(Progress::default()).unwrap();
    drop(w);
    let run = Run::open(dir.path()).unwrap();
    assert_eq!(run.expanded_count(), 200);
    drop(run);
    let (_, cp) = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    assert_eq!(cp.unwrap().explorer["at"], 199);
}

#[test]
fn a_checkpoint_that_cannot_be_made_durable_fails_every_later_call() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(100);
    let mut w = write(dir.path(), &g, Some(49)).unwrap();
    let before = w.checkpoint_history().unwrap();
    w.publish_progress(Progress::default()).unwrap();
    w.sync_manifest().unwrap();
    // A directory where the manifest's temporary file goes makes the
    // background thread fail after it synced the data files.
    std::fs::create_dir(dir.path().join("MANIFEST.tmp")).unwrap();
    w.checkpoint(serde_json::json!({"at": 50}), Progress::default())
        .unwrap();
    let e = w.sync_manifest().unwrap_err().to_string();
    assert!(e.contains("MANIFEST.tmp"), "{e}");
    let e = failed_checkpoint(&mut w);
    assert!(
        e.contains("MANIFEST") && e.contains("earlier write failed"),
        "{e}"
    );
    assert!(w.publish_progress(Progress::default()).is_err());
    assert!(w.checkpoint_history().is_err());
    drop(w);
    std::fs::remove_dir(dir.path().join("MANIFEST.tmp")).unwrap();
    let (w, cp) = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate).unwrap();
    assert_eq!(cp.unwrap().explorer["at"], 49);
    assert_eq!(w.checkpoint_history().unwrap(), before);
}

#[test]
fn damage_inside_a_block_or_its_checksum_is_located() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &graph(500_000), None);
    let log = dir.path().join("edges.bits");
    let sums = dir.path().join("edges.bits.sum");
    for (path, at) in [(&log, 64 + (1 << 20) + 5), (&sums, 64 + 8 + 3)] {
        let good = std::fs::read(path).unwrap();
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(path, &bad).unwrap();
        let e = Run::open(dir.path()).err().unwrap().to_string();
        assert!(
            e.contains("edges.bits: checksum mismatch in block 1"),
            "{e}"
        );
        assert!(
            e.contains("file offset 1048640") && e.contains("edges.bits.sum"),
            "{e}"
        );
        std::fs::write(path, &good).unwrap();
    }
    Run::open(dir.path()).unwrap();
}

#[test]
fn every_damaged_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(2000);
    write(dir.path(), &g, None);
    let files: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK")
        .collect();
    assert!(files.len() >= 13, "{files:?}");
    for name in files {
        let path = dir.path().join(&name);
        let good = std::fs::read(&path).unwrap();
        for at in [3, good.len() / 2, good.len() - 1] {
            let mut bad = good.clone();
            bad[at] ^= 1;
            std::fs::write(&path, &bad).unwrap();
            let e = Run::open(dir.path())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(e.contains(&name), "flip at {at} of {name}: {e}");
        }
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        let e = Run::open(dir.path())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains(&name), "truncated {name}: {e}");
        std::fs::write(&path, &good).unwrap();
    }
    Run::open(dir.path()).unwrap();
}

#[test]
fn a_store_of_the_old_format_is_refused_with_a_way_out() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &graph(10), None);
    let path = dir.path().join("MANIFEST");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let e = Run::open(dir.path()).err().unwrap().to_string();
    assert!(
        e.contains("format version 1") && e.contains("explore the level again"),
        "{e}"
    );
    let e = RunWriter::open(dir.path(), identity(3), OpenMode::ResumeOrCreate)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("--force-new"), "{e}");
    RunWriter::open(dir.path(), identity(3), OpenMode::ForceNew).unwrap();
}

#[test]
fn edges_far_apart_and_many_actions_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let labels: Vec<String> = (0..300).map(|a| format!("a{a}")).collect();
    let mut id = identity(3);
    id.action_labels = labels;
    let (mut w, _) = RunWriter::open(dir.path(), id, OpenMode::CreateNew).unwrap();
    let n = 1000u64;
    for s in 0..n {
        w.append_state(&(s as u32).to_le_bytes()[..3]).unwrap();
    }
    let row = |s: u64| -> Vec<Edge> {
        (0..(s % 5))
            .map(|k| Edge {
                action: ((s * 7 + k) % 300) as u16,
                target: (s * 997 + k * 131) % n,
            })
            .collect()
    };
    for s in 0..n {
        w.append_edges(s, &row(s), None).unwrap();
    }
    w.finish(RunStatus::Complete, Progress::default()).unwrap();
    let run = Run::open(dir.path()).unwrap();
    for s in 0..n {
        assert_eq!(run.out_edges(s).collect::<Vec<_>>(), row(s), "state {s}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_graphs_round_trip(n in 1usize..300, seed in any::<u64>()) {
        let g: Vec<Vec<u64>> = (0..n)
            .map(|s| {
                let k = (seed.wrapping_mul(s as u64 + 1) >> 60) as usize % 4;
                (0..k).map(|j| seed.wrapping_add((s * 31 + j * 17) as u64) % n as u64).collect()
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &g, None);
        check_graph(dir.path(), &g);
    }
}

/// Regression: every full state segment kept two megabytes of buffers to the
/// end of the run, 184 MiB over room5's 92 segments, and the run went past
/// `--mem`. Only the segment being filled may hold buffers.
#[test]
fn full_segments_give_back_their_buffers() {
    use crate::layout::SEGMENT_STATES;
    let dir = tempfile::tempdir().unwrap();
    let (mut w, _) = RunWriter::open(dir.path(), identity(1), OpenMode::ResumeOrCreate).unwrap();
    for id in 0..2 * SEGMENT_STATES + 5 {
        w.append_state(&[id as u8]).unwrap();
    }
    let buffers = w.segment_buffer_bytes();
    assert_eq!(buffers.len(), 3);
    assert_eq!(&buffers[..2], &[0, 0], "{buffers:?}");
    assert!(buffers[2] > 0, "{buffers:?}");
    let mut back = Vec::new();
    w.read_states(SEGMENT_STATES - 1, 3, &mut back).unwrap();
    assert_eq!(back, vec![255, 0, 1]);
}
