//! Tests of the bookmarks database: reopening, run identities, the JSON import.

use super::*;

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
fn a_damaged_record_is_reported_with_the_database_and_the_state() {
    let dir = tempfile::tempdir().unwrap();
    let k = key("00000000000000aa", "10");
    let mut b = Bookmarks::open(Some((dir.path(), &k))).unwrap();
    b.add(4, "fine".into()).unwrap();
    let saved = b.saved.clone().unwrap();
    saved.tree.insert(8u64.to_be_bytes(), &[0xff; 3]).unwrap();
    drop((b, saved));
    let err = Bookmarks::open(Some((dir.path(), &k)))
        .unwrap_err()
        .to_string();
    assert!(err.contains(DATABASE) && err.contains("state 8"), "{err}");
}

#[test]
fn without_a_place_they_live_in_memory() {
    let mut b = Bookmarks::open(None).unwrap();
    b.add(1, "kept in memory".into()).unwrap();
    assert_eq!(b.items().len(), 1);
    assert_eq!(b.path(), None);
}
