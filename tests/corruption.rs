//! Damaged stores: a flipped byte or a truncation in any file is reported
//! as an error naming that file, never as a panic or a wrong number.

use crate::util::{explore, level, run};
use std::path::Path;

fn copy_store(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
}

/// Files a reader depends on (the sled database is the writer's alone).
fn data_files(store: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(store)
        .expect("list")
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK" && !n.ends_with(".tmp"))
        .collect();
    names.sort();
    names
}

fn assert_reported(store: &Path, name: &str, what: &str) {
    let out = run(&["info", store.to_str().unwrap_or_default()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what} {name} not detected: {err}"
    );
    assert!(
        err.contains(name.split('.').next().unwrap_or(name)),
        "{what} {name}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn flipped_bytes_and_truncation_in_every_file_are_reported() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = dir.path().join("good");
    explore(&level("sokoban/twoboxes.xsb"), &good, &[]);
    let files = data_files(&good);
    assert!(files.len() >= 5, "{files:?}");
    for name in &files {
        let len = std::fs::metadata(good.join(name)).expect("stat").len();
        for (what, at) in [
            ("flip", len / 2),
            ("flip", len.saturating_sub(1)),
            ("flip", 3),
        ] {
            if len == 0 {
                continue;
            }
            let bad = dir.path().join(format!("{what}-{at}-{name}"));
            copy_store(&good, &bad);
            let path = bad.join(name);
            let mut bytes = std::fs::read(&path).expect("read");
            bytes[at as usize] ^= 0x20;
            std::fs::write(&path, bytes).expect("write");
            assert_reported(&bad, name, what);
        }
        for keep in [len / 2, len.saturating_sub(1)] {
            if keep == len {
                continue;
            }
            let bad = dir.path().join(format!("cut-{keep}-{name}"));
            copy_store(&good, &bad);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(bad.join(name))
                .expect("open");
            file.set_len(keep).expect("truncate");
            assert_reported(&bad, name, "truncation");
        }
    }
}

/// Replaces the manifest's JSON body by `edit`'s version of it, with a valid checksum:
/// a forged manifest, which only the store's own consistency checks can catch.
pub fn forge_manifest(store: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = store.join("MANIFEST");
    let bytes = std::fs::read(&path).expect("read the manifest");
    let mut body: serde_json::Value = serde_json::from_slice(&bytes[32..]).expect("JSON body");
    edit(&mut body);
    let body = serde_json::to_vec(&body).expect("serialises");
    let mut out = bytes[..16].to_vec();
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    std::fs::write(&path, out).expect("write the manifest");
}

/// Issue 20, item 11: `hsg explore` on a finished store checks it before saying there is
/// nothing to do. Damage the resume never reads (a full block's bytes, a forged edge in
/// the manifest's tail) is named, with a non-zero exit.
#[test]
fn exploring_a_damaged_finished_store_names_the_damage() {
    let dir = tempfile::tempdir().expect("temp dir");
    let level = level("sokoban/room3.xsb");
    let good = dir.path().join("good");
    let flags = ["--max-states", "300000"];
    explore(&level, &good, &flags);
    let explore_again = |store: &Path| {
        let mut args = vec![
            "explore",
            level.to_str().unwrap_or_default(),
            "--store",
            store.to_str().unwrap_or_default(),
        ];
        args.extend_from_slice(&flags);
        run(&args)
    };
    let out = explore_again(&good);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("every checksum verified") && err.contains("nothing to do"),
        "{err}"
    );
    for (name, at) in [("states-00000.seg", 64 + 1000), ("edges.bits", 64 + 4096)] {
        let bad = dir.path().join(format!("flip-{name}"));
        copy_store(&good, &bad);
        let path = bad.join(name);
        let mut bytes = std::fs::read(&path).expect("read");
        assert!(bytes.len() > (1 << 20) + 64, "{name} has no full block");
        bytes[at] ^= 0x20;
        std::fs::write(&path, bytes).expect("write");
        let out = explore_again(&bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(name) && err.contains("damaged"), "{err}");
        assert!(
            !err.contains("nothing to do") && !err.contains("panicked"),
            "{err}"
        );
    }
    let bad = dir.path().join("forged");
    copy_store(&good, &bad);
    forge_manifest(&bad, |m| {
        m["files"]["tails"]["edges"][0] = serde_json::json!(u64::MAX >> 8);
    });
    let out = explore_again(&bad);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("edges.idx") && err.contains("no stored state"),
        "{err}"
    );
}

/// `hsg analyze` verifies the files it reads (the rows, the edges, their frame tables
/// and checksums, the terminals) in its first pass over them rather than at open: a
/// flipped byte in any of them still ends it with an error naming the file (and the
/// block, for a checksum), exit code 1 and no analysis saved. The state records, which
/// the analysis never reads, are left to the commands that do (`hsg info` names them).
#[test]
fn analysing_a_damaged_store_names_the_damage_and_saves_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let good = dir.path().join("good");
    explore(&level("sokoban/twoboxes.xsb"), &good, &[]);
    let read = [
        "edges.bits",
        "edges.bits.sum",
        "edges.idx",
        "edges.idx.sum",
        "rows.bits",
        "rows.bits.sum",
        "rows.idx",
        "rows.idx.sum",
        "terminals",
        "terminals.sum",
    ];
    for name in data_files(&good) {
        let len = std::fs::metadata(good.join(&name)).expect("stat").len();
        if name == "MANIFEST" || len <= 64 {
            continue;
        }
        let bad = dir.path().join(format!("analyse-{name}"));
        copy_store(&good, &bad);
        let path = bad.join(&name);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[(64 + len as usize) / 2] ^= 0x20;
        std::fs::write(&path, bytes).expect("write");
        let out = run(&["analyze", bad.to_str().unwrap_or_default()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{name}: {err}");
        let saved = bad.join("hsg").exists();
        if read.contains(&name.as_str()) {
            assert_eq!(out.status.code(), Some(1), "{name} not detected: {err}");
            let file = name.trim_end_matches(".sum");
            assert!(err.contains(file), "{name}: {err}");
            if name == "edges.bits" || name == "rows.bits" {
                assert!(
                    err.contains("checksum mismatch in block 0"),
                    "{name}: {err}"
                );
            }
            assert!(!saved, "{name}: an analysis of damaged data was saved");
        } else if name.starts_with("states") {
            assert_eq!(out.status.code(), Some(0), "{name}: {err}");
            assert_reported(&bad, &name, "flip");
        }
    }
}
