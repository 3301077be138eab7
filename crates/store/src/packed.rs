//! Frames of 256 bit-packed integers: how the out-edges and their row index
//! are stored compactly and still read in constant time by position.
//!
//! A sequence of u64 values is cut into frames of [`FRAME`] values. A full
//! frame is stored as an entry of two words in an index file, `base` and
//! `offset << 8 | width`, and `4 * width` words in a bit file holding the 256
//! values `value - base` in `width` bits each: value `k` occupies bits
//! `k * width .. (k + 1) * width` of the frame's bit string, bit `i` of which
//! is bit `i % 64` of word `offset + i / 64`. Every full frame takes exactly
//! `4 * width` words, so the offsets follow from the widths and an entry
//! locates any value with one shift. The index is small (16 bytes for 256
//! values: 2 MB for room4's rows, 7 MB for its edges), so that it mostly stays
//! in the cache and a value costs one miss, in the bit file. The values after
//! the last full frame (fewer than 256) are not in the files: they travel in
//! the manifest (the *tail*),
//! so that a checkpoint at any moment commits whole frames only and the
//! files of a run are the same whatever its checkpoints.
//!
//! The caller chooses `base`, at most every value of the frame: the row
//! index uses the end of the row before the frame (so the first row of a
//! frame starts at `base`), the edges the smallest edge word of the frame
//! with its action bits cleared.

/// Values per frame.
pub const FRAME: usize = 256;

/// Bit words a full frame of `width`-bit values takes.
#[inline]
pub fn frame_words(width: u32) -> u64 {
    u64::from(width) * FRAME as u64 / 64
}

/// Words an entry of the frame index takes.
pub const ENTRY_WORDS: usize = 2;

/// Bits needed to hold `v` (0 for 0).
#[inline]
pub fn bits_for(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Packs the [`FRAME`] values of `values` above `base` into `out` (appending
/// `width` words) and returns the frame's entry for a frame starting at word
/// `offset` of the bit file.
///
/// The values stream through a 128-bit accumulator, a word leaving it
/// whenever 64 bits are full, rather than being or-ed into place one by
/// one: a frame is packed for every 256 edges a search writes.
pub fn pack_frame(values: &[u64], base: u64, offset: u64, out: &mut Vec<u64>) -> [u64; 2] {
    debug_assert_eq!(values.len(), FRAME);
    // The widest value sets the width, and the or of all values has the
    // same highest bit.
    let width = bits_for(values.iter().fold(0, |all, &v| all | v.wrapping_sub(base)));
    out.reserve(frame_words(width) as usize);
    if width > 0 {
        let mut acc = 0u128;
        let mut filled = 0u32;
        for &v in values {
            acc |= u128::from(v.wrapping_sub(base)) << filled;
            filled += width;
            if filled >= 64 {
                out.push(acc as u64);
                acc >>= 64;
                filled -= 64;
            }
        }
        // 256 values of any width fill whole words.
        debug_assert_eq!(filled, 0);
    }
    [base, offset << 8 | u64::from(width)]
}

/// Value `k` of the frame described by `entry` in `bits`. Out-of-range words
/// read as zero, so a damaged store yields a wrong value, never a panic; the
/// structure check at open rules that out.
#[inline]
pub fn value(entry: [u64; 2], bits: &[u64], k: usize) -> u64 {
    let width = (entry[1] & 0xff) as u32;
    let bit = (entry[1] >> 8) as usize * 64 + k * width as usize;
    let (at, shift) = (bit / 64, (bit % 64) as u32);
    let low = bits.get(at).copied().unwrap_or(0) >> shift;
    let v = if shift + width <= 64 {
        low
    } else {
        low | bits.get(at + 1).copied().unwrap_or(0) << (64 - shift)
    };
    // A width of 0 masks everything (a frame of equal values), 64 nothing.
    let mask = match width {
        0 => 0,
        w => u64::MAX >> (64 - w.min(64)),
    };
    entry[0].wrapping_add(v & mask)
}

/// The width of a frame entry, and its first word in the bit file.
#[inline]
pub fn width_and_offset(entry: [u64; 2]) -> (u32, u64) {
    ((entry[1] & 0xff) as u32, entry[1] >> 8)
}

/// A packed sequence seen in memory: the frame index, the bit words and the
/// tail of values after the last full frame.
#[derive(Clone, Copy)]
pub struct Packed<'a> {
    /// Two words per full frame.
    pub entries: &'a [u64],
    /// The frames' bit words.
    pub bits: &'a [u64],
    /// Values after the last full frame.
    pub tail: &'a [u64],
}

impl Packed<'_> {
    /// Number of full frames.
    #[inline]
    pub fn frames(&self) -> usize {
        self.entries.len() / ENTRY_WORDS
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        (self.frames() * FRAME + self.tail.len()) as u64
    }

    /// The entry of frame `f` (zeros past the end).
    #[inline]
    pub fn entry(&self, f: usize) -> [u64; 2] {
        match self.entries.get(f * 2..f * 2 + 2) {
            Some(e) => [e[0], e[1]],
            None => [0, 0],
        }
    }

    /// Value number `i` (zero past the end).
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        let f = (i / FRAME as u64) as usize;
        if f < self.frames() {
            value(self.entry(f), self.bits, (i % FRAME as u64) as usize)
        } else {
            let at = i - (self.frames() * FRAME) as u64;
            self.tail.get(at as usize).copied().unwrap_or(0)
        }
    }

    /// Hints that value `i` will be read soon: reads its frame's entry (the
    /// index is small enough to be mostly cached) and prefetches the word of
    /// the bit file that holds the value.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        let f = (i / FRAME as u64) as usize;
        if f < self.frames() {
            let [_, packed] = self.entry(f);
            let bit = (packed >> 8) * 64 + (i % FRAME as u64) * (packed & 0xff);
            crate::prefetch(self.bits, (bit / 64) as usize);
        }
    }

    /// The bytes of the bit file that hold the values of `range` (none for the values
    /// of the tail, which the manifest holds), found from the frame index alone.
    pub fn bit_bytes(&self, range: std::ops::Range<u64>) -> std::ops::Range<u64> {
        let frames = self.frames() as u64;
        let first = range.start / FRAME as u64;
        let end = range.end.div_ceil(FRAME as u64).min(frames);
        if range.is_empty() || first >= end {
            return 0..0;
        }
        let start = width_and_offset(self.entry(first as usize)).1;
        let (width, offset) = width_and_offset(self.entry(end as usize - 1));
        start * 8..(offset + frame_words(width)) * 8
    }

    /// Calls `f` with every value of `range`, in order (decoding frame by
    /// frame rather than value by value).
    pub fn for_each(&self, range: std::ops::Range<u64>, mut f: impl FnMut(u64, u64)) {
        let mut i = range.start;
        while i < range.end {
            let frame = (i / FRAME as u64) as usize;
            if frame >= self.frames() {
                f(i, self.get(i));
                i += 1;
                continue;
            }
            let entry = self.entry(frame);
            let stop = range.end.min((frame as u64 + 1) * FRAME as u64);
            while i < stop {
                f(i, value(entry, self.bits, (i % FRAME as u64) as usize));
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pack_all(values: &[u64], base_of: impl Fn(&[u64]) -> u64) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let (mut entries, mut bits) = (Vec::new(), Vec::new());
        let full = values.len() / FRAME * FRAME;
        for frame in values[..full].chunks(FRAME) {
            let e = pack_frame(frame, base_of(frame), bits.len() as u64, &mut bits);
            entries.extend(e);
        }
        (entries, bits, values[full..].to_vec())
    }

    /// The frame packed value by value into its place, as the format
    /// states it.
    fn pack_by_place(values: &[u64], base: u64) -> Vec<u64> {
        let width = values
            .iter()
            .map(|&v| bits_for(v - base))
            .max()
            .unwrap_or(0);
        let mut words = vec![0u64; frame_words(width) as usize];
        for (k, &v) in values.iter().enumerate() {
            for b in 0..width as usize {
                let bit = k * width as usize + b;
                words[bit / 64] |= ((v - base) >> b & 1) << (bit % 64);
            }
        }
        words
    }

    proptest! {
        #[test]
        fn a_frame_is_packed_bit_by_bit_as_specified(values in prop::collection::vec(any::<u64>(), FRAME), shift in 0u32..64) {
            let values: Vec<u64> = values.iter().map(|v| v >> shift).collect();
            let base = values.iter().copied().min().unwrap_or(0);
            let mut out = vec![7];
            let entry = pack_frame(&values, base, 3, &mut out);
            prop_assert_eq!(&out[1..], &pack_by_place(&values, base)[..]);
            prop_assert_eq!(entry, [base, 3 << 8 | u64::from(bits_for(values.iter().map(|v| v - base).max().unwrap_or(0)))]);
        }

        #[test]
        fn any_values_read_back(values in prop::collection::vec(any::<u64>(), 0..1200), shift in 0u32..64) {
            let values: Vec<u64> = values.iter().map(|v| v >> shift).collect();
            let (entries, bits, tail) = pack_all(&values, |f| f.iter().copied().min().unwrap_or(0));
            let packed = Packed { entries: &entries, bits: &bits, tail: &tail };
            prop_assert_eq!(packed.len(), values.len() as u64);
            for (i, &v) in values.iter().enumerate() {
                prop_assert_eq!(packed.get(i as u64), v);
            }
            let mut seen = Vec::new();
            packed.for_each(0..values.len() as u64, |i, v| seen.push((i, v)));
            prop_assert_eq!(seen, values.iter().enumerate().map(|(i, &v)| (i as u64, v)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_frame_takes_four_words_a_bit_of_width() {
        let values: Vec<u64> = (0..FRAME as u64).map(|k| 1000 + k * 3).collect();
        let mut bits = Vec::new();
        let entry = pack_frame(&values, 1000, 0, &mut bits);
        assert_eq!(width_and_offset(entry), (10, 0));
        assert_eq!(bits.len() as u64, frame_words(10));
        assert_eq!(value(entry, &bits, FRAME - 1), 1000 + 3 * 255);
        let constant = vec![5u64; FRAME];
        let entry = pack_frame(&constant, 5, bits.len() as u64, &mut bits);
        assert_eq!(width_and_offset(entry).0, 0);
        assert_eq!(value(entry, &bits, FRAME - 1), 5);
    }
}
