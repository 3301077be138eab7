//! Small fixed-width values packed in one word: the position lists of a
//! narrow state (see [`super::positions`]), read and written with shifts and
//! masks only.

/// The word of up to eight little-endian bytes (zero padded), without a copy call.
#[inline]
pub fn load(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .rev()
        .fold(0u64, |acc, &b| acc << 8 | u64::from(b))
}

/// Writes the low bytes of `word` back into `bytes` (at most eight).
#[inline]
pub fn store(word: u64, bytes: &mut [u8]) {
    for (k, b) in bytes.iter_mut().take(8).enumerate() {
        *b = (word >> (8 * k)) as u8;
    }
}

/// A mask of the low `nbits` bits (all 64 included).
#[inline]
pub fn low_bits(nbits: u32) -> u64 {
    1u64.checked_shl(nbits).map_or(u64::MAX, |b| b - 1)
}

/// The `nbits`-bit value at bit `offset` of `word`.
#[inline]
pub fn get(word: u64, offset: u32, nbits: u32) -> u64 {
    word.checked_shr(offset).unwrap_or(0) & low_bits(nbits)
}

/// Writes the `nbits`-bit `value` at bit `offset` of `word`.
#[inline]
pub fn put(word: &mut u64, offset: u32, nbits: u32, value: u64) {
    let mask = low_bits(nbits).checked_shl(offset).unwrap_or(0);
    *word = (*word & !mask) | (value.checked_shl(offset).unwrap_or(0) & mask);
}

/// A set of cells of one layer, a bit per cell (`u64` or `u128`).
pub trait CellSet:
    Copy
    + PartialEq
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// The empty set.
    const ZERO: Self;
    /// The set of cell `i` (taken modulo the width).
    fn bit(i: u64) -> Self;
    /// The lowest cell of a non-empty set.
    fn lowest(self) -> u32;
    /// The set without its lowest cell.
    fn drop_lowest(self) -> Self;
}

macro_rules! cell_set {
    ($t:ty) => {
        impl CellSet for $t {
            const ZERO: Self = 0;
            #[inline]
            fn bit(i: u64) -> Self {
                1 << (i % <$t>::BITS as u64)
            }
            #[inline]
            fn lowest(self) -> u32 {
                self.trailing_zeros()
            }
            #[inline]
            fn drop_lowest(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}
cell_set!(u64);
cell_set!(u128);

/// The bits of a state's fields: one word when they take at most eight
/// bytes (a narrow state, read and written with shifts only), else the bytes.
pub struct Window(Option<u64>);

impl Window {
    /// The window over `fields`.
    #[inline]
    pub fn load(fields: &[u8]) -> Window {
        Window((fields.len() <= 8).then(|| load(fields)))
    }

    /// The `nbits`-bit value at bit `offset`.
    #[inline]
    pub fn get(&self, fields: &[u8], offset: u32, nbits: u32) -> u64 {
        match self.0 {
            Some(word) => get(word, offset, nbits),
            None => read_field(fields, offset, nbits),
        }
    }

    /// Writes the `nbits`-bit `value` at bit `offset` (into the word, or
    /// straight into `fields`).
    #[inline]
    pub fn set(&mut self, fields: &mut [u8], offset: u32, nbits: u32, value: u64) {
        match &mut self.0 {
            Some(word) => {
                let mask = low_bits(nbits).checked_shl(offset).unwrap_or(0);
                *word = (*word & !mask) | (value.checked_shl(offset).unwrap_or(0) & mask);
            }
            None => write_field(fields, offset, nbits, value),
        }
    }

    /// Writes the word back into `fields` (nothing to do for bytes).
    #[inline]
    pub fn store(&self, fields: &mut [u8]) {
        if let Some(word) = self.0 {
            store(word, fields);
        }
    }
}

/// Reads the `nbits`-bit value at bit `offset` of `bytes` (little endian).
pub(super) fn read_field(bytes: &[u8], offset: u32, nbits: u32) -> u64 {
    let at = (offset / 8) as usize;
    // Fields away from the end: one eight-byte load.
    if let Some(word) = bytes
        .get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
    {
        return (u64::from_le_bytes(word) >> (offset % 8)) & ((1u64 << nbits.min(32)) - 1);
    }
    let mut window = [0u8; 8];
    for (k, slot) in window.iter_mut().enumerate().take(5) {
        *slot = bytes.get(at + k).copied().unwrap_or(0);
    }
    let value = u64::from_le_bytes(window) >> (offset % 8);
    value & ((1u64 << nbits.min(32)) - 1)
}

/// Writes the `nbits`-bit `value` at bit `offset` of `bytes` (little endian).
pub(super) fn write_field(bytes: &mut [u8], offset: u32, nbits: u32, value: u64) {
    let at = (offset / 8) as usize;
    let shift = offset % 8;
    let mask = ((1u64 << nbits.min(32)) - 1) << shift;
    let value = (value << shift) & mask;
    // Fields away from the end: one eight-byte load and store.
    if let Some(window) = bytes.get_mut(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(window);
        let word = (u64::from_le_bytes(word) & !mask) | value;
        window.copy_from_slice(&word.to_le_bytes());
        return;
    }
    for (k, b) in bytes.iter_mut().skip(at).take(5).enumerate() {
        let (m, v) = ((mask >> (8 * k)) as u8, (value >> (8 * k)) as u8);
        *b = (*b & !m) | v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_put_and_got_without_touching_their_neighbours() {
        let mut word = 0b101u64;
        for (k, v) in [40u64, 7, 63, 0, 22].into_iter().enumerate() {
            put(&mut word, 3 + 6 * k as u32, 6, v);
        }
        let got: Vec<u64> = (0..5).map(|k| get(word, 3 + 6 * k, 6)).collect();
        assert_eq!(got, vec![40, 7, 63, 0, 22]);
        assert_eq!(word & 0b111, 0b101);
        put(&mut word, 58, 6, 0x3f);
        assert_eq!(get(word, 58, 6), 0x3f);
        assert_eq!(get(word, 64, 6), 0, "past the word");
        let mut bytes = [0u8; 8];
        store(word, &mut bytes);
        assert_eq!(load(&bytes), word);
        let mut short = [0u8; 3];
        store(0x00ab_cdef, &mut short);
        assert_eq!(load(&short), 0x00ab_cdef);
    }
}
