//! Claims: lookups that insert the states they miss, provisionally, so that
//! the merge does not search the table a second time for each new state.
//!
//! With several threads, the threads expanding the next chunk look its
//! successors up while the merge inserts the current chunk's new states. A
//! lookup that misses has walked to the empty slot where the state would
//! go; the merge would then walk there again to insert it, and on room4
//! that second search of every new state cost the two-thread run a third of
//! its extra CPU time. So a lookup that misses *claims* the slot: it writes
//! the state's key with the id field all ones ([`PROVISIONAL`](super::format::PROVISIONAL)) by a
//! compare-and-swap, and hands the merge the slot's number. The merge, the
//! only thread that gives ids, settles the claim in parent order, so ids are
//! what they would be without claims.
//!
//! Why this is sound:
//! - A lookup fills an empty slot by compare-and-swap only, and a claimed
//!   slot becomes final only by the merge's store; nothing empties a slot
//!   while lookups run (doubling takes the table whole). So every inserter of
//!   a key meets the same first empty slot, and a lookup that loses the swap
//!   finds the key there. The merge fills an empty slot with a plain store,
//!   which may overwrite a claim made at the same moment: that claim is lost,
//!   its state is simply missing from the table again, and the merge's check
//!   below sends the claimed successor back to an ordinary search. A key is
//!   never entered twice, and a lost claim only leaves the entry count one too
//!   high, which errs on the side of room.
//! - A slot number is only good until the table moves its entries. The
//!   search turns the claims of its pending chunk back into unresolved
//!   successors whenever the table grows or is replaced, and the merge checks
//!   that the slot still holds the successor's key before it trusts it.
//! - Claims are counted as entries, and the lookups may claim only what the
//!   search allows ([`Table::allow_claims`]), which leaves room for the merge
//!   beside them: the load stays under the limit.
//!
//! Only packed tables take claims: a wide entry is confirmed against its
//! record in the key arena, which holds only the states the merge has stored.

use super::format::{low_mask, Format};
use super::{Probe, Table};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The claim counters: how many claims the lookups may still make, and how
/// many they made.
#[derive(Default)]
pub struct Claims {
    left: AtomicUsize,
    pub(super) made: AtomicUsize,
}

/// What a lookup learnt of a successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The state's id.
    Id(u64),
    /// The state is claimed (by this lookup or another) in this slot and
    /// waits for the merge to give it an id.
    Claimed(usize),
    /// Not found, and not claimed.
    Missing,
}

impl Table {
    /// Lets lookups claim slots until the table holds `most` entries.
    /// Does nothing for a wide table.
    pub fn allow_claims(&self, most: usize) {
        if let Format::Packed { .. } = self.format {
            let left = most.saturating_sub(self.len());
            self.claims.0.left.store(left, Ordering::Relaxed);
        }
    }

    /// Stops the claims [`Table::allow_claims`] allowed.
    pub fn stop_claims(&self) {
        self.claims.0.left.store(0, Ordering::Relaxed);
    }

    /// [`Table::lookup_or_claim_key`] for a tag, for tests.
    #[cfg(test)]
    pub fn lookup_or_claim(&self, tag: u64, same: impl FnMut(u64) -> bool) -> Lookup {
        self.lookup_or_claim_key(self.key(tag), same)
    }

    /// Looks `key` (a tag's [`Table::key`], which the caller computed to
    /// prefetch its slot) up and, on a packed table that allows claims,
    /// claims its slot when it is missing. `same` confirms a wide table's
    /// matches. Safe beside other lookups and the merge's inserts.
    #[inline]
    pub fn lookup_or_claim_key(&self, key: u64, same: impl FnMut(u64) -> bool) -> Lookup {
        let key_bits = match self.format {
            Format::Packed { key_bits } => key_bits,
            // Compact lines take no claims (see `compact`).
            Format::Compact { key_bits } => {
                let id = self.get_compact::<true>(key_bits, key);
                return id.map_or(Lookup::Missing, Lookup::Id);
            }
            // A wide key is the tag itself.
            Format::Wide => return self.get(key, same).map_or(Lookup::Missing, Lookup::Id),
        };
        loop {
            match self.probe_packed(key_bits, key) {
                Probe::Found(i, word) => {
                    return self.final_id(word).map_or(Lookup::Claimed(i), Lookup::Id);
                }
                Probe::Vacant(i, upper) if self.overflowed.load(Ordering::Acquire) == 0 => {
                    let claims = &self.claims.0;
                    if claims.left.load(Ordering::Relaxed) == 0 {
                        return Lookup::Missing;
                    }
                    let word = (upper << self.log2) | low_mask(self.log2);
                    let swapped = self.atoms()[i].compare_exchange(
                        0,
                        word,
                        Ordering::Release,
                        Ordering::Acquire,
                    );
                    if swapped.is_ok() {
                        // Several lookups may pass the check at once: the
                        // limit is passed by at most one claim each.
                        let _ =
                            claims
                                .left
                                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                                    n.checked_sub(1)
                                });
                        claims.made.fetch_add(1, Ordering::Relaxed);
                        return Lookup::Claimed(i);
                    }
                    // Someone filled the slot first: look again from home.
                }
                _ => return self.overflow_get(key).map_or(Lookup::Missing, Lookup::Id),
            }
        }
    }

    /// Starts loading the line of `slot` (a claimed successor's).
    #[inline]
    pub fn prefetch_slot(&self, slot: usize) {
        store::prefetch(self.atoms(), slot * self.format.words());
    }

    /// For the merge: the id of the state `tag` claimed in `slot`, giving it
    /// `new_id` (`Err(new_id)`) when the claim is still open. `None` when the
    /// slot does not hold `tag`'s entry (the table moved since the claim):
    /// the caller then resolves the successor as unresolved.
    #[inline]
    pub fn settle(&self, slot: usize, tag: u64, new_id: u64) -> Option<Result<u64, u64>> {
        let Format::Packed { key_bits } = self.format else {
            return None;
        };
        let key = super::format::mix_bits(tag, key_bits);
        // The upper bits (remainder and distance) the key's word would have
        // in this slot; `None` when the slot is too far from its home.
        let want = self.format.packed_word(key, 1, slot, self.log2)? >> self.log2;
        let word = self.atoms().get(slot)?.load(Ordering::Acquire);
        if word == 0 || word >> self.log2 != want {
            return None;
        }
        Some(self.settle_word(slot, word, new_id))
    }

    /// The id in `word`, found in `slot`; a claim there gets `new_id`
    /// (`Err(new_id)`). Only the merge calls this.
    #[inline]
    pub(super) fn settle_word(&self, slot: usize, word: u64, new_id: u64) -> Result<u64, u64> {
        if let Some(id) = self.final_id(word) {
            return Ok(id);
        }
        // Ids stay below the capacity, under the all-ones field (see
        // `PROVISIONAL`), and nobody else writes a claimed slot.
        debug_assert!(new_id + 1 < low_mask(self.log2));
        let settled = (word & !low_mask(self.log2)) | (new_id + 1);
        self.atoms()[slot].store(settled, Ordering::Release);
        Err(new_id)
    }
}

/// Marks a successor's id as "claimed in this slot" in a part's ids.
pub const CLAIMED: u64 = 1 << 62;

/// The slot of a claimed successor's marked id (bits 63 and 62 are `01`; an
/// unresolved successor is all ones, a disk-phase placeholder `10`).
#[inline]
pub fn claimed_slot(id: u64) -> Option<usize> {
    (id >> 62 == 1).then_some((id & !CLAIMED) as usize)
}

#[cfg(test)]
mod tests {
    use super::super::format::PROVISIONAL;
    use super::*;

    #[test]
    fn provisional_is_the_whole_id_field() {
        assert_eq!(PROVISIONAL, u64::MAX);
        assert_eq!(claimed_slot(CLAIMED | 7), Some(7));
        assert_eq!(claimed_slot(u64::MAX), None);
        assert_eq!(claimed_slot((1 << 63) | 7), None);
        assert_eq!(claimed_slot(7), None);
    }

    #[test]
    fn a_claim_is_settled_by_the_merge_in_its_order() {
        let t = Table::new(Format::Packed { key_bits: 40 }, 1 << 10, 1 << 10).unwrap();
        assert_eq!(t.lookup_or_claim(5, |_| true), Lookup::Missing);
        t.allow_claims(t.capacity());
        let Lookup::Claimed(slot) = t.lookup_or_claim(5, |_| true) else {
            panic!("not claimed");
        };
        // Claimed once, found claimed by every later lookup.
        assert_eq!(t.lookup_or_claim(5, |_| true), Lookup::Claimed(slot));
        assert_eq!(t.get(5, |_| true), None);
        assert_eq!(t.len(), 1);
        // The merge meets another state first, then settles the claim.
        assert_eq!(t.get_or_insert(9, 0, |_| true), Err(0));
        assert_eq!(t.settle(slot, 5, 1), Some(Err(1)));
        assert_eq!(t.settle(slot, 5, 2), Some(Ok(1)));
        assert_eq!(t.settle(slot, 6, 2), None);
        assert_eq!(t.lookup_or_claim(5, |_| true), Lookup::Id(1));
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn the_merge_settles_a_claim_it_meets_by_probing() {
        let t = Table::new(Format::Packed { key_bits: 40 }, 1 << 10, 1 << 10).unwrap();
        t.allow_claims(t.capacity());
        assert!(matches!(t.lookup_or_claim(5, |_| true), Lookup::Claimed(_)));
        t.stop_claims();
        assert_eq!(t.lookup_or_claim(6, |_| true), Lookup::Missing);
        assert_eq!(t.get_or_insert(5, 0, |_| true), Err(0));
        assert_eq!(t.get_or_insert(5, 1, |_| true), Ok(0));
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn claims_stop_at_the_allowed_load() {
        let t = Table::new(Format::Packed { key_bits: 40 }, 1 << 10, 1 << 10).unwrap();
        t.allow_claims(3);
        let claimed = (0..10u64)
            .filter(|&k| matches!(t.lookup_or_claim(k, |_| true), Lookup::Claimed(_)))
            .count();
        assert_eq!(claimed, 3);
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn claims_survive_doubling_and_are_settled_after_it() {
        let mut t = Table::new(Format::Packed { key_bits: 40 }, 16, 1 << 12).unwrap();
        t.allow_claims(t.capacity());
        for k in 0..10u64 {
            assert!(matches!(t.lookup_or_claim(k, |_| true), Lookup::Claimed(_)));
        }
        t.grow_to(1000, 2).unwrap();
        assert_eq!(t.len(), 10);
        for k in 0..10u64 {
            assert_eq!(t.get_or_insert(k, k, |_| true), Err(k));
        }
        assert!((0..10).all(|k| t.get(k, |_| true) == Some(k)));
    }

    #[test]
    fn racing_claims_and_inserts_give_each_state_one_id() {
        // Two threads claim while the merge inserts and settles in its own
        // order: every key ends with exactly one id, the merge's.
        let t = Table::new(Format::Packed { key_bits: 40 }, 1 << 16, 1 << 16).unwrap();
        t.allow_claims(t.capacity() / 2);
        let keys: Vec<u64> = (0..20_000u64).map(|k| k * 7919 % 30_011).collect();
        let t = &t;
        let ids = std::thread::scope(|s| {
            for half in [0, 1] {
                let keys = &keys;
                s.spawn(move || {
                    for &k in keys.iter().skip(half).step_by(2) {
                        let _ = t.lookup_or_claim(k, |_| true);
                    }
                });
            }
            let mut ids = std::collections::HashMap::new();
            for &k in &keys {
                let next = ids.len() as u64;
                let got = t.get_or_insert(k, next, |_| true).unwrap_or_else(|e| e);
                assert_eq!(*ids.entry(k).or_insert(next), got);
            }
            ids
        });
        for (&k, &id) in &ids {
            assert_eq!(t.get(k, |_| true), Some(id));
        }
        // Each key in one slot. A claim the merge overwrote at the same
        // moment is lost and leaves the count a little high, never low.
        let filled = t.atoms()[..t.slots].iter();
        let filled = filled.filter(|w| w.load(Ordering::Relaxed) != 0).count();
        assert_eq!(filled, ids.len());
        assert!(
            t.len() >= ids.len() && t.len() < ids.len() + 100,
            "{}",
            t.len()
        );
    }
}
