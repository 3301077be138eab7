//! Stores from someone else: manifests forged with valid checksums (absurd counts, more
//! labels than ids can name, commits past the files) and data damaged behind valid
//! checksums are refused at open with an error naming the file, never a panic, an
//! allocation sized by a forged number, or a read past a map.

use crate::manifest::Manifest;
use crate::tests_run::{graph, write};
use crate::*;
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Opens a copy of a valid run whose manifest `forge` rewrote (with a valid checksum)
/// and returns the error.
fn open_forged(forge: impl FnOnce(&mut Manifest)) -> String {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &graph(700), None);
    let mut m = Manifest::read(dir.path()).unwrap();
    forge(&mut m);
    m.write(dir.path()).unwrap();
    let e = Run::open(dir.path()).err().map(|e| e.to_string());
    e.unwrap_or_else(|| "opened".into())
}

fn assert_refused(e: &str, names: &str) {
    assert!(e.contains(names), "expected an error naming {names}: {e}");
}

#[test]
fn forged_counts_are_refused() {
    let huge = u64::MAX - 3;
    assert_refused(&open_forged(|m| m.states = huge), "MANIFEST");
    assert_refused(&open_forged(|m| m.states = 1 << 40), "MANIFEST");
    assert_refused(&open_forged(|m| m.expanded = m.states + 1), "MANIFEST");
    assert_refused(&open_forged(|m| m.terminals = huge), "MANIFEST");
    assert_refused(&open_forged(|m| m.terminals += 1), "terminals");
    assert_refused(&open_forged(|m| m.transitions = huge), "MANIFEST");
    assert_refused(&open_forged(|m| m.transitions -= 1), "MANIFEST");
    assert_refused(&open_forged(|m| m.segment_states = 1), "MANIFEST");
    assert_refused(&open_forged(|m| m.segment_states = 0), "MANIFEST");
    assert_refused(&open_forged(|m| m.layers = vec![0; 5000]), "MANIFEST");
    assert_refused(&open_forged(|m| m.layers = vec![0, 800]), "MANIFEST");
    assert_refused(
        &open_forged(|m| m.identity.state_slot = u32::MAX),
        "states-00000.seg",
    );
    assert_refused(
        &open_forged(|m| m.identity.state_slot = 0),
        "states-00000.seg",
    );
    assert_refused(&open_forged(|m| m.identity.has_chance = true), "MANIFEST");
}

#[test]
fn forged_identities_are_refused() {
    let labels = |n: usize| (0..n).map(|i| format!("l{i}")).collect::<Vec<_>>();
    assert_refused(
        &open_forged(|m| m.identity.action_labels = labels(70_000)),
        "MANIFEST",
    );
    assert_refused(
        &open_forged(|m| m.identity.outcome_names = labels(65_536)),
        "MANIFEST",
    );
    // One label fewer: the edges name an undeclared action.
    assert_refused(
        &open_forged(|m| m.identity.action_labels.truncate(1)),
        "edges.idx",
    );
    // No outcome: the terminals name an undeclared one.
    assert_refused(
        &open_forged(|m| m.identity.outcome_names.clear()),
        "terminals",
    );
}

#[test]
fn forged_commits_are_refused() {
    let huge = u64::MAX - 10;
    assert_refused(
        &open_forged(|m| m.files.states[0].len = huge),
        "states-00000.seg",
    );
    assert_refused(&open_forged(|m| m.files.edges[1].len = huge), "edges.bits");
    assert_refused(&open_forged(|m| m.files.rows[0].len -= 16), "rows.idx");
    assert_refused(
        &open_forged(|m| m.files.states.push(m.files.states[0])),
        "MANIFEST",
    );
    assert_refused(&open_forged(|m| m.files.states.clear()), "MANIFEST");
    assert_refused(
        &open_forged(|m| m.files.tails.rows.push(u64::MAX)),
        "MANIFEST",
    );
    assert_refused(
        &open_forged(|m| m.files.tails.edges = vec![7; 300]),
        "MANIFEST",
    );
    let e = open_forged(|m| {
        if let Some(t) = m.files.tails.edges.first_mut() {
            *t = u64::MAX;
        }
    });
    assert_refused(&e, "edges.idx");
}

#[test]
fn an_oversized_manifest_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("MANIFEST")).unwrap();
    file.set_len(manifest::MAX_MANIFEST_BYTES + 1).unwrap();
    let e = Run::open(dir.path()).err().map(|e| e.to_string());
    assert_refused(&e.unwrap_or_default(), "larger than 256 MiB");
}

/// Replaces `len` bytes at data offset `at` of `name` and recomputes the checksum the
/// manifest keeps for the file's last block, so that only the structure check can tell.
pub(crate) fn damage_behind_checksums(dir: &Path, name: &str, at: usize, bytes: &[u8]) {
    let path = dir.join(name);
    let mut data = std::fs::read(&path).unwrap();
    data[64 + at..64 + at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(&path, &data).unwrap();
    let tail = xxh3_64(&data[64..]);
    let mut m = Manifest::read(dir).unwrap();
    let commit = match name {
        "rows.idx" => &mut m.files.rows[0],
        "rows.bits" => &mut m.files.rows[1],
        "edges.idx" => &mut m.files.edges[0],
        "edges.bits" => &mut m.files.edges[1],
        "terminals" => &mut m.files.terminals,
        _ => &mut m.files.states[0],
    };
    commit.tail = tail;
    m.write(dir).unwrap();
}

#[test]
fn data_damaged_behind_valid_checksums_is_refused() {
    let frame_width_255 = (255u64 | 1 << 8).to_le_bytes();
    let cases: [(&str, usize, &[u8], &str); 6] = [
        // A frame entry claiming 255-bit values at another offset.
        ("edges.idx", 8, &frame_width_255, "edges.idx"),
        // A frame's base far beyond every state.
        ("edges.idx", 16, &u64::MAX.to_le_bytes(), "edges.idx"),
        // Row ends out of order.
        ("rows.idx", 16, &u64::MAX.to_le_bytes(), "rows.idx"),
        ("rows.bits", 0, &[0xff; 8], "rows.idx"),
        // A terminal past the states, and one out of order.
        ("terminals", 0, &(1u64 << 40).to_le_bytes(), "terminals"),
        ("terminals", 8, &0u64.to_le_bytes(), "terminals"),
    ];
    for (name, at, bytes, named) in cases {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &graph(700), None);
        damage_behind_checksums(dir.path(), name, at, bytes);
        let e = Run::open(dir.path()).err().map(|e| e.to_string());
        assert_refused(
            &e.unwrap_or_else(|| format!("{name} at {at}: opened")),
            named,
        );
    }
}
