//! A compact table's sizes and its growth: bucket counts that use a budget
//! whole, and the doubling in place.
//!
//! A reservation of `m * 2^s` buckets with `64 <= m <= 128` is cut by less than
//! a sixty-fourth from what the budget allows, and every size below it is
//! that count halved, so that each growth is a doubling: a home `h` becomes
//! `2h` or `2h + 1` ([`super::compact`]).
//!
//! The doubling sweeps the old buckets backwards. The entries of bucket `i`
//! belong at `2(i - d)` or after, above `i` for all but the first few
//! buckets, where every bucket is either new or swept already; each goes to
//! the first bucket with room from its new home on, which keeps the probing
//! invariant (every bucket between an entry's home and its bucket is full),
//! since the new table only gains entries. An entry whose new place would
//! reach back to `i` or wrap around the end waits aside and is placed at the
//! end. Cost: one read and one write of each entry, `O(buckets)`, and one
//! 128-bit division per entry to rebuild its key.

use super::compact::{
    decode, entry_at, floor_log2, place_in, Geometry, Shape, GROW_LOAD_TENTHS, LAST_LOAD_TENTHS,
    LINE_WORDS,
};
use super::format::Entry;
use super::Table;
use store::{AtomicWords, StoreError};

/// Fewest buckets a compact table has.
pub(super) const LEAST_BUCKETS: usize = 64;

/// Entries a compact table of `buckets` buckets in a reservation of
/// `reserved` takes before it must grow.
pub(super) fn compact_capacity(buckets: usize, reserved: usize, per_line: usize) -> usize {
    let tenths = match buckets.saturating_mul(2) <= reserved {
        true => GROW_LOAD_TENTHS,
        false => LAST_LOAD_TENTHS,
    };
    buckets * per_line * tenths / 10
}

/// The reservation in buckets for `most` entries: the fewest of the form
/// `m * 2^s` (`64 <= m <= 128`) whose last load holds them.
pub(super) fn reserved_buckets(most: usize, per_line: usize) -> usize {
    let lines = most
        .saturating_mul(10)
        .div_ceil(per_line * LAST_LOAD_TENTHS)
        .max(LEAST_BUCKETS);
    let shift = floor_log2(lines).saturating_sub(6);
    lines.div_ceil(1 << shift) << shift
}

/// The overflow list's share of a reservation of `reserved` buckets (see
/// [`super::overflow`]).
pub(super) fn overflow_share(reserved: usize, per_line: usize) -> usize {
    super::overflow::Overflow::share_for(compact_capacity(reserved, reserved, per_line))
}

/// The smallest size of a reservation of `reserved` buckets that holds
/// `states` entries (the reservation itself when none does).
pub(super) fn buckets_within(states: usize, reserved: usize, per_line: usize) -> usize {
    let mut buckets = reserved;
    while buckets.is_multiple_of(2)
        && buckets / 2 >= LEAST_BUCKETS
        && compact_capacity(buckets / 2, reserved, per_line) >= states
    {
        buckets /= 2;
    }
    buckets
}

impl Table {
    /// A compact table for `states` entries, growing in place to `most`.
    pub(super) fn new_compact(
        key_bits: u32,
        states: usize,
        most: usize,
    ) -> Result<Table, StoreError> {
        let geometry = Geometry::for_key_bits(key_bits);
        let format = super::Format::Compact { key_bits };
        let per_line = geometry.per_line;
        let most_buckets = format.most_slots();
        let reserved = reserved_buckets(most.max(states), per_line).min(most_buckets);
        if compact_capacity(reserved, reserved, per_line) < states {
            return Err(StoreError::Misuse(format!(
                "a visited index of {states} states is past what its layout numbers"
            )));
        }
        let buckets = buckets_within(states, reserved, per_line);
        let share = overflow_share(reserved, per_line);
        let mut table = Table::empty(format, AtomicWords::reserve(LINE_WORDS * reserved)?, share);
        table.geometry = geometry;
        table.slots = buckets;
        table.log2 = floor_log2(buckets);
        Ok(table)
    }

    /// Grows a compact table to room for `states` entries: doubling in
    /// place inside the reservation, or into a new one past it.
    pub(super) fn grow_compact(&mut self, key_bits: u32, states: usize) -> Result<(), StoreError> {
        let per_line = self.geometry.per_line;
        let reserved = self.reserved_slots();
        let states = states.max(self.len());
        if states > compact_capacity(reserved, reserved, per_line) {
            let mut bigger = Table::new_compact(key_bits, states, states)?;
            let mut entries = self.compact_entries(key_bits);
            entries.extend(self.take_overflow());
            for entry in entries {
                bigger.place_compact(key_bits, entry);
            }
            *bigger.len.0.get_mut() = self.len();
            *self = bigger;
            return Ok(());
        }
        let wanted = buckets_within(states, reserved, per_line);
        while self.slots < wanted {
            self.double_compact(key_bits);
        }
        Ok(())
    }

    /// Doubles a compact table in place (see the module's docs).
    fn double_compact(&mut self, key_bits: u32) {
        let geometry = self.geometry;
        let old = self.slots;
        let new = 2 * old;
        let (from, to) = (
            Shape::of(key_bits, geometry, old),
            Shape::of(key_bits, geometry, new),
        );
        self.slots = new;
        self.log2 = floor_log2(new);
        let mut words = &mut self.words.as_mut_slice()[..LINE_WORDS * new];
        let mut aside: Vec<Entry> = Vec::new();
        for i in (0..old).rev() {
            let slice = &mut words[i * LINE_WORDS..(i + 1) * LINE_WORDS];
            let line: [u64; LINE_WORDS] = (&*slice).try_into().expect("a line is eight words");
            slice.fill(0);
            for j in 0..geometry.per_line {
                let entry = entry_at(&line, j, from.widths.entry());
                if entry == 0 {
                    break;
                }
                let entry = decode(entry, i, from.widths, key_bits, old);
                // Only the buckets above the sweep belong to the new table.
                let left = match to.home(entry.0) > i {
                    true => place_in(&mut words, to, entry, &(i + 1..new)),
                    false => Some(entry),
                };
                aside.extend(left);
            }
        }
        aside.extend(self.take_overflow());
        for entry in aside {
            self.place_compact(key_bits, entry);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::compact::tests::assert_robin_hood_order;
    use crate::table::format::low_mask;
    use crate::table::Format;
    use proptest::prelude::*;

    #[test]
    fn a_reservation_uses_the_budget_within_a_sixty_fourth() {
        for most in [1usize, 1000, 123_456, 1 << 24, 1_540_652_835] {
            let reserved = reserved_buckets(most, 9);
            let tight = (most * 10).div_ceil(9 * 9).max(LEAST_BUCKETS);
            assert!(
                reserved >= tight && reserved <= tight + tight / 64 + 1,
                "{most}"
            );
            assert!(compact_capacity(reserved, reserved, 9) >= most);
        }
    }

    #[test]
    fn a_full_compact_table_takes_at_most_eight_bytes_a_state() {
        for key_bits in [40u32, 48] {
            let g = Geometry::for_key_bits(key_bits);
            let reserved = reserved_buckets(1_540_652_835, g.per_line);
            let bytes = (reserved * 64) as f64;
            let states = compact_capacity(reserved, reserved, g.per_line) as f64;
            assert!(bytes / states <= 8.0, "{key_bits}: {}", bytes / states);
        }
    }

    proptest! {
        #[test]
        fn a_compact_table_keeps_every_entry_through_its_growth(
            keys in prop::collection::vec(prop_oneof![0u64..512, any::<u64>()], 1..2000),
            key_bits in prop_oneof![Just(40u32), Just(48)],
            most in 100usize..5000,
        ) {
            let format = Format::Compact { key_bits };
            let mut t = Table::new(format, 16, most).unwrap();
            let mut want = std::collections::HashMap::new();
            for key in keys {
                let tag = key & low_mask(key_bits);
                if t.len() >= t.capacity() {
                    let cap = t.capacity();
                    t.grow_to(cap + 1, 1).unwrap();
                }
                let next = want.len() as u64;
                let got = t.get_or_insert(tag, next, |_| true);
                let id = *want.entry(tag).or_insert(next);
                prop_assert_eq!(got.unwrap_or_else(|e| e), id);
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
            prop_assert_eq!(t.len(), want.len());
            for (&tag, &id) in &want {
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
            assert_robin_hood_order(&mut t, key_bits);
            // Past the reservation, into a new one.
            let len = t.len();
            t.grow_to(len * 8 + 10_000, 1).unwrap();
            for (&tag, &id) in &want {
                prop_assert_eq!(t.get(tag, |_| true), Some(id));
            }
            assert_robin_hood_order(&mut t, key_bits);
        }
    }
}
