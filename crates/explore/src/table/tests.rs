//! Tests of the visited table: both layouts, growth, overflow and the
//! layout rules for what threads share.

use super::*;

/// The layouts: wide, packed, and packed with a two-bit displacement
/// field, which sends long probe sequences to the overflow list.
const FORMATS: [Format; 3] = [
    Format::Wide,
    Format::Packed { key_bits: 40 },
    Format::Packed { key_bits: 62 },
];

#[test]
fn finds_what_it_stored_and_grows() {
    for format in FORMATS {
        let mut t = Table::new(format, 4, 1 << 12).unwrap();
        for k in 0..1000u64 {
            if t.len() >= t.capacity() {
                t.grow_to(t.capacity() * 2, 1).unwrap();
            }
            assert_eq!(t.get_or_insert(k * 7, k, |_| true), Err(k));
        }
        for k in 0..1000u64 {
            assert_eq!(t.get(k * 7, |_| true), Some(k), "{format:?}");
            assert_eq!(t.get_or_insert(k * 7, 5000, |_| true), Ok(k));
        }
        assert_eq!(t.get(3, |_| true), None);
        assert_eq!(t.len(), 1000);
    }
}

#[test]
fn a_table_grows_at_half_load_and_fills_its_last_size_further() {
    for format in FORMATS {
        // Room to double twice: 64 slots grow at 32 entries, 128 at 64, and
        // the whole reservation of 256 takes 179 before it is full.
        let mut t = Table::new(format, 20, 179).unwrap();
        assert_eq!((t.slots, t.reserved_slots()), (64, 256), "{format:?}");
        assert_eq!(t.capacity(), 32);
        for k in 0..179u64 {
            if t.len() >= t.capacity() {
                t.grow_to(t.len() + 1, 1).unwrap();
            }
            assert_eq!(t.get_or_insert(k * 13, k, |_| true), Err(k));
            let load = t.len() * 10 / t.slots;
            let last = t.slots == t.reserved_slots();
            assert!(
                load <= if last { 7 } else { 5 },
                "{format:?}: {} in {}",
                t.len(),
                t.slots
            );
        }
        assert_eq!((t.slots, t.capacity()), (256, 179));
        assert_eq!(t.reserved_capacity(), 179);
        // A table sized for its whole reservation starts at the last size.
        let full = Table::new(format, 100, 100).unwrap();
        assert_eq!((full.slots, full.capacity()), (256, 179));
    }
}

#[test]
fn a_packed_reservation_stops_at_the_slots_its_layout_numbers() {
    // A budget of 2^64 bytes sizes the reservation for 2^40 states, past
    // the 2^40 slots a packed slot numbers: the reservation stops there
    // rather than the table being refused.
    let packed = Format::packed_for(5).unwrap();
    let t = Table::new(packed, 1 << 16, 1 << 40).unwrap();
    assert_eq!(t.words.len(), 1 << 40);
    assert!(Table::new(packed, 1 << 40, 1 << 40).is_err());
}

#[test]
fn a_packed_table_halves_the_bytes_of_a_wide_one() {
    let packed = Format::packed_for(5).unwrap();
    assert_eq!(
        2 * Table::bytes_for(1 << 20, packed),
        Table::bytes_for(1 << 20, Format::Wide)
    );
    let t = Table::new(packed, 1 << 10, 1 << 10).unwrap();
    assert_eq!(t.bytes(), t.slots as u64 * 8);
}

#[test]
fn entries_a_packed_slot_cannot_hold_overflow_and_are_still_found() {
    // A two-bit displacement overflows at once on a crowded table, and
    // ids past the table's slots never fit a packed slot.
    let mut t = Table::new(Format::Packed { key_bits: 62 }, 16, 1 << 12).unwrap();
    let big = 1u64 << 40;
    for k in 0..20u64 {
        assert_eq!(t.get_or_insert(k, big + k, |_| true), Err(big + k));
    }
    assert!(t.overflowed.load(Ordering::Relaxed) > 0);
    assert!((0..20).all(|k| t.get(k, |_| true) == Some(big + k)));
    // Keys never put anywhere stay absent, filter or no filter.
    assert!((20..5000).all(|k| t.get(k, |_| true).is_none()));
    t.grow_to(1000, 2).unwrap();
    assert!((0..20).all(|k| t.get(k, |_| true) == Some(big + k)));
    assert!((20..5000).all(|k| t.get(k, |_| true).is_none()));
    assert_eq!(t.len(), 20);
    t.clear();
    assert_eq!(t.get(3, |_| true), None);
    assert_eq!(t.overflowed.load(Ordering::Relaxed), 0);
}

#[test]
fn counters_never_share_a_cache_line_with_what_probes_read() {
    use std::mem::offset_of;
    // Pairs of lines, since the adjacent-line prefetch moves them together.
    let pair = |offset: usize| offset / 128;
    let read = [
        offset_of!(Table, words),
        offset_of!(Table, slots),
        offset_of!(Table, log2),
        offset_of!(Table, format),
        offset_of!(Table, overflowed),
    ];
    let written = [
        offset_of!(Table, len),
        offset_of!(Table, faulted),
        offset_of!(Table, overflow),
        offset_of!(Table, claims),
    ];
    for counter in written {
        assert!(read.iter().all(|&r| pair(r) != pair(counter)));
    }
    assert!(crate::on_lines_of_its_own::<Table>());
}

#[test]
fn confirmation_separates_equal_tags() {
    // Two different states with one fingerprint: the confirmation callback
    // decides, so both get their own entry.
    let t = Table::with_capacity(8).unwrap();
    assert_eq!(t.get_or_insert(42, 0, |id| id == 99), Err(0));
    assert_eq!(t.get_or_insert(42, 1, |id| id == 1), Err(1));
    assert_eq!(t.get(42, |id| id == 1), Some(1));
    assert_eq!(t.get(42, |id| id == 0), Some(0));
}

#[test]
fn growing_past_the_reservation_moves_to_a_larger_one() {
    let mut t = Table::with_room(16, 32).unwrap();
    for k in 0..200u64 {
        t.grow_to(k as usize + 1, 2).unwrap();
        assert_eq!(t.get_or_insert(k, k, |_| true), Err(k));
    }
    assert!((0..200).all(|k| t.get(k, |_| true) == Some(k)));
    assert!(t.reserved_capacity() >= 200);
}

#[test]
fn lookups_run_while_one_thread_inserts() {
    for format in FORMATS {
        lookups_run_while_one_thread_inserts_in(format);
    }
}

fn lookups_run_while_one_thread_inserts_in(format: Format) {
    let t = Table::new(format, 1 << 16, 1 << 16).unwrap();
    for k in 0..1000u64 {
        t.insert_absent(k, k);
    }
    let t = &t;
    std::thread::scope(|s| {
        s.spawn(move || {
            for k in 1000..40_000u64 {
                assert_eq!(t.get_or_insert(k, k, |_| true), Err(k));
            }
        });
        for _ in 0..20 {
            for k in (0..40_000u64).step_by(7) {
                // An entry is either not yet seen or seen whole.
                if let Some(id) = t.get(k, |_| true) {
                    assert_eq!(id, k);
                } else {
                    assert!(k >= 1000);
                }
            }
        }
    });
}

#[test]
fn threads_share_the_prefault_and_the_doubling_keeps_every_entry() {
    let mut t = Table::with_room(1 << 16, 1 << 20).unwrap();
    for k in 0..(t.capacity() as u64) {
        t.insert_absent(k, k);
    }
    let end = t.words_for(t.capacity() * 4);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| t.prefault(end));
        }
    });
    assert_eq!(t.faulted.0.load(Ordering::Relaxed), end);
    // A second call finds the work done and leaves the rest untouched.
    t.prefault(end);
    assert_eq!(t.faulted.0.load(Ordering::Relaxed), end);
    let len = t.len();
    t.grow_to(len * 4, 2).unwrap();
    assert!((0..len as u64).all(|k| t.get(k, |_| true) == Some(k)));
}
