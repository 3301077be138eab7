//! Tests of the verification deferred to the reader's pass: what it finds, where, and
//! that it finds what `Run::open` finds in the files it covers.

use crate::tests_run::{graph, write};
use crate::Run;
use std::path::Path;

/// Verifies every row of `run` in ranges of `step` rows, then finishes.
fn verify_all(run: &Run, step: u64) -> Result<(), String> {
    let rows = run.expanded_count();
    let mut start = 0;
    while start < rows {
        let end = rows.min(start + step);
        run.verify_rows(start..end).map_err(|e| e.to_string())?;
        start = end;
    }
    run.finish_verification().map_err(|e| e.to_string())
}

fn flip(dir: &Path, name: &str, at: usize) {
    let path = dir.join(name);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[64 + at] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
}

#[test]
fn a_sound_run_passes_in_any_ranges_and_reads_as_opened() {
    let dir = tempfile::tempdir().unwrap();
    let g = graph(300_000);
    drop(write(dir.path(), &g, None));
    for step in [1_000, 77_777, 1 << 40] {
        let run = Run::open_deferred(dir.path()).unwrap();
        verify_all(&run, step).unwrap();
        let opened = Run::open(dir.path()).unwrap();
        for s in [0, 1, 4_999, 299_999] {
            let edges: Vec<_> = run.out_edges(s).collect();
            assert_eq!(edges, opened.out_edges(s).collect::<Vec<_>>());
        }
    }
}

#[test]
fn a_flipped_bit_in_the_edges_is_named_by_the_range_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), &graph(300_000), None));
    // Past the first block of 1 MiB: the rows of the first half do not reach it.
    flip(dir.path(), "edges.bits", (1 << 20) + 5000);
    let run = Run::open_deferred(dir.path()).unwrap();
    run.verify_rows(0..1_000).unwrap();
    let e = verify_all(&run, 10_000).unwrap_err();
    assert!(
        e.contains("edges.bits: checksum mismatch in block 1 (data bytes 1048576..")
            && e.contains("file offset 1048640)"),
        "{e}"
    );
    assert!(Run::open(dir.path()).is_err());
}

#[test]
fn blocks_no_range_reached_are_verified_at_the_finish() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), &graph(300_000), None));
    flip(dir.path(), "edges.bits", (1 << 20) + 5000);
    let run = Run::open_deferred(dir.path()).unwrap();
    run.verify_rows(0..1_000).unwrap();
    let e = run.finish_verification().unwrap_err().to_string();
    assert!(
        e.contains("edges.bits: checksum mismatch in block 1"),
        "{e}"
    );
}

#[test]
fn the_small_files_are_verified_at_open_and_the_states_not_at_all() {
    for (name, refused) in [
        ("rows.idx", true),
        ("edges.idx", true),
        ("terminals", true),
        ("states.0", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        drop(write(dir.path(), &graph(3_000), None));
        let name = match name {
            "states.0" => crate::layout::segment(dir.path(), 0),
            other => dir.path().join(other),
        };
        if std::fs::metadata(&name).unwrap().len() <= 64 {
            continue;
        }
        flip(dir.path(), name.file_name().unwrap().to_str().unwrap(), 0);
        let opened = Run::open_deferred(dir.path());
        assert_eq!(opened.is_err(), refused, "{}", name.display());
        if let Err(e) = opened {
            let file = name.file_name().unwrap().to_str().unwrap();
            assert!(e.to_string().contains(file), "{e}");
        }
    }
}

#[test]
fn damage_behind_valid_checksums_is_named_as_open_names_it() {
    // Rows out of order, and a frame's base far beyond every state, with checksums
    // that match.
    for (name, at, bytes) in [("rows.bits", 0, [0xff; 8]), ("edges.idx", 16, [0xff; 8])] {
        let dir = tempfile::tempdir().unwrap();
        drop(write(dir.path(), &graph(700), None));
        crate::tests_forged::damage_behind_checksums(dir.path(), name, at, &bytes);
        let full = Run::open(dir.path()).err().map(|e| e.to_string());
        assert!(full.is_some(), "{name}");
        let run = Run::open_deferred(dir.path()).unwrap();
        assert_eq!(verify_all(&run, 100).err(), full, "{name}");
    }
}

#[test]
fn a_run_opened_otherwise_has_nothing_left_to_verify() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), &graph(3_000), None));
    flip(dir.path(), "edges.bits", 10);
    let run = Run::open_lazy(dir.path()).unwrap();
    run.verify_rows(0..3_000).unwrap();
    run.finish_verification().unwrap();
}
