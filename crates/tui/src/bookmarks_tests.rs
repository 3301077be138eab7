//! Tests of the bookmarks database: reopening, run identities, the JSON import.

use super::*;
use crate::bookmarks_check::CHECK_FILE;

fn key(level_hash: &str, depth: &str) -> RunKey {
    RunKey {
        game: "sokoban".into(),
        level_hash: level_hash.into(),
        options: BTreeMap::from([("max_depth".to_string(), depth.to_string())]),
    }
}

#[test]
fn bookmarks_survive_reopening_and_renaming_keeps_one_entry() {
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    let place = Some((dir.path(), &k));
    let mut b = Bookmarks::open(place).unwrap();
    assert!(b.items().is_empty());
    b.add(9, "first".into()).unwrap();
    b.add(7, "second".into()).unwrap();
    b.add(9, "renamed".into()).unwrap();
    drop(b);
    let again = Bookmarks::open(place).unwrap();
    assert_eq!(again.items().len(), 2);
    assert_eq!(again.items()[0].note, "renamed");
    assert_eq!(again.items()[1].state, 7);
    let mut again = again;
    again.remove(0).unwrap();
    drop(again);
    assert_eq!(Bookmarks::open(place).unwrap().items()[0].state, 7);
}

#[test]
fn another_run_identity_sees_none_of_them_and_counts_them_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let first = key("00000000000000aa", "10");
    let mut b = Bookmarks::open(Some((dir.path(), &first))).unwrap();
    b.add(3, "deep end".into()).unwrap();
    drop(b);
    for other in [key("00000000000000bb", "10"), key("00000000000000aa", "11")] {
        let b = Bookmarks::open(Some((dir.path(), &other))).unwrap();
        assert!(b.items().is_empty());
        assert_eq!(b.hidden(), 1);
    }
    let back = Bookmarks::open(Some((dir.path(), &first))).unwrap();
    assert_eq!(back.items()[0].note, "deep end");
    assert_eq!(back.hidden(), 0);
}

#[test]
fn an_earlier_json_file_is_imported_once_then_removed() {
    let dir = tempfile::tempdir().unwrap();
    let json = r#"{"version": 1, "bookmarks": [
        {"state": 12, "note": "twelve"}, {"state": 5, "note": "five"}]}"#;
    std::fs::write(dir.path().join(FILE), json).unwrap();
    let k = key("00000000000000aa", "10");
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    let seen: Vec<(u64, &str)> = b.items().iter().map(|b| (b.state, &*b.note)).collect();
    assert_eq!(seen, [(12, "twelve"), (5, "five")]);
    assert!(!dir.path().join(FILE).exists());
    drop(b);
    let again = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert_eq!(again.items().len(), 2);
}

#[test]
fn a_damaged_file_is_reported_with_its_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(FILE), b"{nope").unwrap();
    let k = key("00000000000000aa", "10");
    let err = Bookmarks::open(Some((dir.path(), &k)))
        .unwrap_err()
        .to_string();
    assert!(err.contains(FILE), "{err}");
}

#[test]
fn a_damaged_record_is_named_with_its_state_and_the_database_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    let mut b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    b.add(4, "fine".into()).unwrap();
    let saved = b.saved.clone().unwrap();
    saved.tree.insert(8u64.to_be_bytes(), &[0xff; 3]).unwrap();
    drop((b, saved));
    // A database of an earlier version has no checksum file: the record itself tells.
    std::fs::remove_file(dir.path().join(DATABASE).join(CHECK_FILE)).unwrap();
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    let notice = b.notice().unwrap();
    assert!(
        notice.contains(DATABASE) && notice.contains("state 8"),
        "{notice}"
    );
    assert_eq!(b.items().len(), 1);
    assert_eq!(b.items()[0].note, "fine");
    assert!(dir.path().join(format!("{DATABASE}.damaged-1")).is_dir());
}

/// Five bookmarks saved in a database in `dir`; the bytes of its log file.
fn five(dir: &Path, k: &RunKey) -> Vec<u8> {
    let mut b = Bookmarks::open(Some((dir, k))).unwrap();
    for i in 0..5 {
        b.add(i, format!("note number {i}")).unwrap();
    }
    drop(b);
    std::fs::read(dir.join(DATABASE).join("db")).unwrap()
}

#[test]
fn a_damaged_database_is_named_moved_aside_unchanged_and_what_is_readable_kept() {
    // Regression: sled reads a damaged log up to the damage and drops the rest, so
    // the notes after it vanished without a word (and the next write went over them).
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    let mut bytes = five(dir.path(), &k);
    let at = bytes.len() * 3 / 4;
    bytes[at] ^= 0x55;
    std::fs::write(dir.path().join(DATABASE).join("db"), &bytes).unwrap();
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    let notice = b.notice().expect("the damage is told").to_string();
    assert!(
        notice.contains("is damaged") && notice.contains("where its checksum file records 5"),
        "{notice}"
    );
    let aside = dir.path().join(format!("{DATABASE}.damaged-1"));
    assert!(notice.contains(&aside.display().to_string()), "{notice}");
    assert_eq!(
        std::fs::read(aside.join("db")).unwrap(),
        bytes,
        "moved, not written"
    );
    let kept = b.items().len();
    assert!((1..5).contains(&kept), "{kept} readable bookmarks kept");
    drop(b);
    let again = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert_eq!((again.items().len(), again.notice()), (kept, None));
    drop(again);
    // A second damage goes to the next free name.
    let db = dir.path().join(DATABASE).join("db");
    let mut bytes = std::fs::read(&db).unwrap();
    // The log is preallocated: its first bytes hold the records.
    let used = bytes.len().min(4096);
    bytes[..used].iter_mut().for_each(|b| *b ^= 0x55);
    std::fs::write(&db, &bytes).unwrap();
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert!(b.notice().unwrap().contains(".damaged-2"));
    assert!(aside.join("db").exists());
}

#[test]
fn a_crash_between_the_checksum_file_and_the_database_is_not_damage() {
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    five(dir.path(), &k);
    let db_dir = dir.path().join(DATABASE);
    let r = read_recorded(&db_dir).unwrap().unwrap();
    // The checksum file written for a change the database never received.
    let ahead = Recorded {
        previous: r.current,
        current: Digest {
            records: 6,
            sum: 42,
        },
    };
    write_recorded(&db_dir, ahead).unwrap();
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert_eq!((b.items().len(), b.notice()), (5, None));
    drop(b);
    // A file that names neither is damage.
    let wrong = Recorded {
        previous: ahead.current,
        current: ahead.current,
    };
    write_recorded(&db_dir, wrong).unwrap();
    let b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert!(b.notice().is_some());
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[cfg(unix)]
#[test]
fn a_read_only_run_directory_shows_its_bookmarks_and_refuses_changes() {
    // Regression: they were hidden, and `b` reported a bookmark it never saved.
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    let bytes = five(dir.path(), &k);
    set_mode(dir.path(), 0o555);
    let mut b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    assert_eq!(b.items().len(), 5);
    assert!(b.notice().unwrap().contains("read-only"));
    let e = b.add(9, "new".into()).unwrap_err().to_string();
    assert!(
        e.contains("read-only") && e.contains("cannot be saved"),
        "{e}"
    );
    assert!(b.remove(0).is_err());
    assert_eq!(b.items().len(), 5);
    drop(b);
    assert_eq!(
        std::fs::read(dir.path().join(DATABASE).join("db")).unwrap(),
        bytes
    );
    let fresh = tempfile::tempdir().unwrap();
    set_mode(fresh.path(), 0o555);
    let mut none = Bookmarks::open(Some((fresh.path(), &k))).unwrap();
    assert!(none.items().is_empty() && none.add(1, "x".into()).is_err());
    assert!(!fresh.path().join(DATABASE).exists());
    set_mode(dir.path(), 0o755);
    set_mode(fresh.path(), 0o755);
}

#[test]
fn verify_reads_a_copy_and_names_a_damaged_database() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(verify(dir.path()).unwrap(), None);
    let k = key("00000000000000aa", "10");
    let mut bytes = five(dir.path(), &k);
    let ok = verify(dir.path()).unwrap().unwrap();
    assert!(
        ok.contains("5 bookmarks") && ok.contains("checksum verified"),
        "{ok}"
    );
    let at = bytes.len() / 2;
    bytes[at] ^= 0x55;
    let db = dir.path().join(DATABASE).join("db");
    std::fs::write(&db, &bytes).unwrap();
    let e = verify(dir.path()).unwrap_err().to_string();
    assert!(e.contains(DATABASE) && e.contains("damaged"), "{e}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "verify writes nothing");
}

#[test]
fn without_a_place_they_live_in_memory() {
    let mut b = Bookmarks::open(None).unwrap();
    b.add(1, "kept in memory".into()).unwrap();
    assert_eq!(b.items().len(), 1);
    assert_eq!(b.path(), None);
}
