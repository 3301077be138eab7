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
