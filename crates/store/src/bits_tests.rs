//! Tests of the bit tables: round trip, concurrent writers, refusal of
//! unfinished, mismatched and damaged files.

use super::*;
use proptest::prelude::*;

#[test]
fn bits_written_by_many_threads_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.bits");
    let table = BitTableWriter::create(&path, "test", 1000).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let table = &table;
            s.spawn(move || {
                for i in (t..1000).step_by(4).filter(|i| i % 3 == 0) {
                    table.set_atomic(i).unwrap();
                }
            });
        }
    });
    assert!(table.get(999) && !table.get(998) && !table.get(5000));
    assert!(table.set_atomic(1000).is_err());
    let table = table.finish().unwrap();
    assert_eq!(
        table.count_ones(),
        (0..1000).filter(|i| i % 3 == 0).count() as u64
    );
    let again = BitTable::open(&path, "test", true).unwrap();
    assert_eq!(again.len_bits(), 1000);
    assert!(again.get(0) && again.get(3) && !again.get(4) && !again.get(1000));
}

#[test]
fn whole_words_are_stored_and_stray_bits_past_the_end_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.bits");
    let table = BitTableWriter::create(&path, "w", 70).unwrap();
    table.store_word(0, u64::MAX).unwrap();
    table.store_word(1, 0b11_1111).unwrap();
    assert!(table.store_word(1, 1 << 6).is_err());
    assert!(table.store_word(2, 0).is_err());
    assert_eq!(table.finish().unwrap().count_ones(), 70);
}

#[test]
fn unfinished_mismatched_and_damaged_tables_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("u.bits");
    let table = BitTableWriter::create(&path, "kind-a", 128).unwrap();
    table.set_atomic(7).unwrap();
    assert!(BitTable::open(&path, "kind-a", false)
        .unwrap_err()
        .to_string()
        .contains("never finished"));
    table.finish().unwrap();
    let err = BitTable::open(&path, "kind-b", false)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("kind-a") && err.contains("u.bits"), "{err}");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[HEADER + 3] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert!(BitTable::open(&path, "kind-a", false).is_ok());
    let err = BitTable::open(&path, "kind-a", true)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("checksum"), "{err}");
    std::fs::write(&path, b"nonsense").unwrap();
    assert!(BitTable::open(&path, "kind-a", true)
        .err()
        .unwrap()
        .to_string()
        .contains("magic"));
    assert!(BitTableWriter::create(&path, &"k".repeat(33), 1).is_err());
}

#[test]
fn an_unfinished_table_resumes_with_its_words_and_others_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bits");
    let (table, resumed) = BitTableWriter::resume(&path, "r", 200).unwrap();
    assert!(!resumed);
    table.store_word(1, 0xdead_beef).unwrap();
    // Dropped unfinished, as a killed build leaves it.
    drop(table);
    let (table, resumed) = BitTableWriter::resume(&path, "r", 200).unwrap();
    assert!(resumed);
    assert_eq!(table.load_word(1), 0xdead_beef);
    assert_eq!(table.load_word(0), 0);
    assert!(BitTableWriter::resume(&path, "other", 200).is_err());
    assert!(BitTableWriter::resume(&path, "r", 201).is_err());
    let finished = table.finish().unwrap();
    assert_eq!(finished.words()[1], 0xdead_beef);
    let err = BitTableWriter::resume(&path, "r", 200)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("finished") && err.contains("r.bits"), "{err}");
    std::fs::write(&path, b"nonsense").unwrap();
    assert!(BitTableWriter::resume(&path, "r", 200).is_err());
}

proptest! {
    #[test]
    fn any_set_of_bits_round_trips(bits in 1u64..2000, picks in proptest::collection::vec(0u64..2000, 0..50)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.bits");
        let table = BitTableWriter::create(&path, "p", bits).unwrap();
        let picks: std::collections::BTreeSet<u64> = picks.into_iter().filter(|&i| i < bits).collect();
        for &i in &picks {
            table.set_atomic(i).unwrap();
        }
        let table = table.finish().unwrap();
        for i in 0..bits {
            prop_assert_eq!(table.get(i), picks.contains(&i));
        }
    }
}
