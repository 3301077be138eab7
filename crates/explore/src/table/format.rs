//! How the table lays an entry out in its slot: two words (tag and id) for
//! any key, or one word for short exact keys, by quotienting.
//!
//! **Wide** slots are `[tag, id + 1]`, and an entry's home is the top bits of
//! `mix(tag)`.
//!
//! **Packed** slots hold an exact key of at most [`MOST_PACKED_BITS`] bits in
//! one word. The key is first scrambled by a bijection `h` of its
//! `key_bits`-bit range ([`mix_bits`]); its home is the top `log2(slots)`
//! bits of `h`, so only the other bits (the quotient's remainder) need
//! storing: two keys with the same home and remainder have the same `h`, so
//! they are the same key. Beside the remainder, a slot keeps its distance
//! from its home (linear probing moves entries past it) and the id:
//!
//! ```text
//! | remainder: key_bits - log2 | displacement: 64 - key_bits | id + 1: log2 |
//! ```
//!
//! The id fits in `log2(slots)` bits because in memory every stored state is
//! in the table, and the table never holds as many entries as it has slots.
//! An entry that would break either bound (an id too large, or a probe
//! sequence longer than the displacement field counts) goes to the table's
//! overflow list instead, so the layout never limits what the table holds.
//!
//! Entries apart from their slots are `(key, id + 1)` pairs, where the key is
//! the tag for wide slots and `h` for packed ones: that is what the doubling
//! moves, since both give the home in a table of any size.

/// Widest key a packed slot takes, in bits: it leaves 16 bits of
/// displacement, far more than linear probing needs below the load limit.
pub const MOST_PACKED_BITS: u32 = 48;

/// Narrowest key width a packed table scrambles over: a table of more than
/// `2^key_bits` slots would have no remainder left, and 2^40 slots are more
/// than any budget gives.
const LEAST_PACKED_BITS: u32 = 40;

/// An entry apart from its slot: its key (see the module's docs) and id + 1,
/// or [`PROVISIONAL`].
pub type Entry = (u64, u64);

/// The `id + 1` of a packed entry claimed by a lookup whose id the merge has
/// not given yet (see [`crate::table::Table::lookup_or_claim_key`]). In a slot it
/// is the id field with every bit set, which no id reaches: ids stay below
/// the table's capacity, under its slot count.
pub const PROVISIONAL: u64 = u64::MAX;

/// The slot layout of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Two words a slot, `[tag, id + 1]`.
    Wide,
    /// One word a slot, for exact keys scrambled over `key_bits` bits.
    Packed {
        /// Width of the scrambled key.
        key_bits: u32,
    },
    /// Entries narrower than a word in cache-line buckets, for exact keys
    /// scrambled over `key_bits` bits (see [`super::compact`]). A slot is a
    /// bucket.
    Compact {
        /// Width of the scrambled key.
        key_bits: u32,
    },
}

/// Scrambles a tag into a well-spread hash (the murmur3 finaliser): narrow
/// tags are raw state bytes, whose low bits alone hash badly.
#[inline]
pub fn mix(tag: u64) -> u64 {
    let mut h = tag;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A bijection of `0..2^bits` (for `bits < 64`) that spreads keys as
/// [`mix`] does: every step (a shift folded into the low bits, a product by
/// an odd number modulo `2^bits`) can be undone, so distinct keys stay
/// distinct, and the top bits depend on every bit of the key.
#[inline]
pub fn mix_bits(key: u64, bits: u32) -> u64 {
    let mask = (1u64 << bits) - 1;
    let half = bits / 2;
    let mut h = key & mask;
    h ^= h >> half;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd) & mask;
    h ^= h >> half;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53) & mask;
    h ^ (h >> half)
}

impl Format {
    /// The packed format for exact keys of `key_bytes` bytes, when they fit.
    pub fn packed_for(key_bytes: usize) -> Option<Format> {
        let bits = u32::try_from(key_bytes * 8).ok()?;
        (bits <= MOST_PACKED_BITS).then_some(Format::Packed {
            key_bits: bits.max(LEAST_PACKED_BITS),
        })
    }

    /// The compact format for exact keys of `key_bytes` bytes, when they fit
    /// (the widths of [`Format::packed_for`]).
    pub fn compact_for(key_bytes: usize) -> Option<Format> {
        match Format::packed_for(key_bytes)? {
            Format::Packed { key_bits } => Some(Format::Compact { key_bits }),
            other => Some(other),
        }
    }

    /// Words a slot takes (a compact slot is a bucket of one cache line).
    #[inline]
    pub const fn words(self) -> usize {
        match self {
            Format::Wide => 2,
            Format::Packed { .. } => 1,
            Format::Compact { .. } => super::compact::LINE_WORDS,
        }
    }

    /// Most slots a table of this format may have.
    pub fn most_slots(self) -> usize {
        match self {
            Format::Wide => usize::MAX / 4 + 1,
            Format::Packed { key_bits } => 1usize << key_bits.min(usize::BITS - 2),
            // Every size keeps a remainder of two bits or more.
            Format::Compact { key_bits } => 1usize << (key_bits - 2).min(usize::BITS - 8),
        }
    }

    /// The key of an entry for `tag`.
    #[inline]
    pub fn key(self, tag: u64) -> u64 {
        match self {
            Format::Wide => tag,
            Format::Packed { key_bits } | Format::Compact { key_bits } => mix_bits(tag, key_bits),
        }
    }

    /// The home of `key` in a table of `2^log2` slots (tables have at least
    /// 32, so `log2` is never 0). Compact tables find homes by their bucket
    /// count instead ([`super::compact::home_of`]).
    #[inline]
    pub fn home(self, key: u64, log2: u32) -> usize {
        match self {
            Format::Wide => (mix(key) >> (64 - log2)) as usize,
            Format::Packed { key_bits } | Format::Compact { key_bits } => {
                (key >> (key_bits - log2)) as usize
            }
        }
    }

    /// Bits of a packed slot's displacement field.
    #[inline]
    pub const fn displacement_bits(key_bits: u32) -> u32 {
        64 - key_bits
    }

    /// True when `slot` (its words) holds no entry.
    #[inline]
    pub fn is_empty(self, slot: &[u64]) -> bool {
        match self {
            Format::Wide => slot[1] == 0,
            Format::Packed { .. } | Format::Compact { .. } => slot[0] == 0,
        }
    }

    /// The entry in `slot` (its words), slot number `at` of a table of
    /// `2^log2` slots, or `None` when it is empty.
    #[inline]
    pub fn read(self, slot: &[u64], at: usize, log2: u32) -> Option<Entry> {
        match self {
            Format::Wide => (slot[1] != 0).then_some((slot[0], slot[1])),
            // A compact bucket is read by its own code.
            Format::Compact { .. } => None,
            Format::Packed { key_bits } => {
                let word = slot[0];
                if word == 0 {
                    return None;
                }
                let fields = Fields::of(key_bits, word, at, log2);
                let key = ((fields.home as u64) << (key_bits - log2)) | fields.remainder;
                Some((key, fields.id1))
            }
        }
    }

    /// Writes `entry` into `slot`, slot number `at` of a table of `2^log2`
    /// slots. Returns false, writing nothing, when a packed slot cannot
    /// say it: the id or the distance from home is past its field.
    #[inline]
    pub fn write(self, slot: &mut [u64], at: usize, log2: u32, (key, id1): Entry) -> bool {
        match self {
            Format::Wide => {
                slot[0] = key;
                slot[1] = id1;
                true
            }
            Format::Compact { .. } => false,
            Format::Packed { .. } => match self.packed_word(key, id1, at, log2) {
                Some(word) => {
                    slot[0] = word;
                    true
                }
                None => false,
            },
        }
    }

    /// The packed word of `(key, id1)` at slot `at`, if the fields hold it.
    #[inline]
    pub fn packed_word(self, key: u64, id1: u64, at: usize, log2: u32) -> Option<u64> {
        let Format::Packed { key_bits } = self else {
            return None;
        };
        let home = self.home(key, log2);
        let disp = (at.wrapping_sub(home) & (low_mask(log2) as usize)) as u64;
        let fields = Fields {
            home,
            remainder: key & low_mask(key_bits - log2),
            id1,
        };
        fields.word(key_bits, disp, log2)
    }
}

/// A packed entry's fields apart from its slot: its home, the key's bits
/// below the home, and its `id + 1` (or [`PROVISIONAL`]). The doubling moves
/// entries as fields, without rebuilding their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fields {
    /// The home slot in a table of `2^log2` slots.
    pub home: usize,
    /// The key's `key_bits - log2` bits below the home.
    pub remainder: u64,
    /// `id + 1`, or [`PROVISIONAL`].
    pub id1: u64,
}

impl Fields {
    /// The fields of the non-empty packed `word` at slot `at` of a table of
    /// `2^log2` slots.
    #[inline]
    pub fn of(key_bits: u32, word: u64, at: usize, log2: u32) -> Fields {
        let id1 = match word & low_mask(log2) {
            field if field == low_mask(log2) => PROVISIONAL,
            field => field,
        };
        let upper = word >> log2;
        let disp_bits = Format::displacement_bits(key_bits);
        let disp = (upper & low_mask(disp_bits)) as usize;
        Fields {
            home: at.wrapping_sub(disp) & (low_mask(log2) as usize),
            remainder: upper >> disp_bits,
            id1,
        }
    }

    /// The word holding these fields `disp` slots past the home, if its
    /// fields can say the distance and the id.
    #[inline]
    pub fn word(self, key_bits: u32, disp: u64, log2: u32) -> Option<u64> {
        let disp_bits = Format::displacement_bits(key_bits);
        let id1 = match self.id1 {
            PROVISIONAL => low_mask(log2),
            id1 if id1 < low_mask(log2) => id1,
            _ => return None,
        };
        if disp > low_mask(disp_bits) {
            return None;
        }
        Some((((self.remainder << disp_bits) | disp) << log2) | id1)
    }

    /// The fields in the table of twice the slots: the home takes the
    /// remainder's top bit. (A doubled table has `log2 + 1 <= key_bits`.)
    #[inline]
    pub fn doubled(self, key_bits: u32, log2: u32) -> Fields {
        let remainder_bits = key_bits - log2;
        Fields {
            home: 2 * self.home + (self.remainder >> (remainder_bits - 1)) as usize,
            remainder: self.remainder & low_mask(remainder_bits - 1),
            id1: self.id1,
        }
    }
}

/// The `bits` low bits set (all of them for 64).
#[inline]
pub const fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_narrow_scramble_is_a_bijection() {
        // Over a small width every value can be checked.
        for bits in [8u32, 12, 16] {
            let mut seen = vec![false; 1 << bits];
            for k in 0..1u64 << bits {
                let h = mix_bits(k, bits) as usize;
                assert!(!seen[h], "{bits} bits: two keys give {h}");
                seen[h] = true;
            }
        }
    }

    #[test]
    fn keys_past_the_packed_width_stay_wide() {
        assert_eq!(Format::packed_for(5), Some(Format::Packed { key_bits: 40 }));
        assert_eq!(Format::packed_for(6), Some(Format::Packed { key_bits: 48 }));
        assert_eq!(Format::packed_for(1), Some(Format::Packed { key_bits: 40 }));
        assert_eq!(Format::packed_for(7), None);
    }

    proptest! {
        #[test]
        fn a_packed_entry_reads_back_as_written(
            key in any::<u64>(),
            id1 in 1u64..1 << 20,
            log2 in 20u32..40,
            shift in 0usize..5000,
        ) {
            let format = Format::Packed { key_bits: 40 };
            let key = key & low_mask(40);
            let at = (format.home(key, log2) + shift) & (low_mask(log2) as usize);
            let mut slot = [0u64];
            prop_assert!(format.write(&mut slot, at, log2, (key, id1)));
            prop_assert_eq!(format.read(&slot, at, log2), Some((key, id1)));
            prop_assert!(format.write(&mut slot, at, log2, (key, PROVISIONAL)));
            prop_assert_eq!(format.read(&slot, at, log2), Some((key, PROVISIONAL)));
        }

        #[test]
        fn doubled_fields_are_those_of_the_key_in_the_doubled_table(
            key in any::<u64>(),
            id1 in 1u64..1 << 20,
            log2 in 20u32..39,
            shift in 0usize..5000,
        ) {
            let format = Format::Packed { key_bits: 40 };
            let key = key & low_mask(40);
            let at = (format.home(key, log2) + shift) & (low_mask(log2) as usize);
            let word = format.packed_word(key, id1, at, log2).unwrap();
            let doubled = Fields::of(40, word, at, log2).doubled(40, log2);
            prop_assert_eq!(doubled.home, format.home(key, log2 + 1));
            let new_at = doubled.home + 1;
            let word2 = doubled.word(40, 1, log2 + 1).unwrap();
            prop_assert_eq!(format.read(&[word2], new_at, log2 + 1), Some((key, id1)));
        }

        #[test]
        fn a_packed_slot_refuses_what_its_fields_cannot_hold(key in any::<u64>(), log2 in 4u32..20) {
            // 62-bit keys leave two bits of displacement.
            let format = Format::Packed { key_bits: 62 };
            let key = key & low_mask(62);
            let home = format.home(key, log2);
            let mask = low_mask(log2) as usize;
            let mut slot = [0u64];
            prop_assert!(format.write(&mut slot, (home + 3) & mask, log2, (key, 1)));
            prop_assert!(!format.write(&mut slot, (home + 4) & mask, log2, (key, 1)));
            prop_assert!(!format.write(&mut slot, home, log2, (key, 1 << log2)));
            // The all-ones field is the provisional mark, not an id.
            prop_assert!(!format.write(&mut slot, home, log2, (key, (1 << log2) - 1)));
        }
    }
}
