//! Small helpers over bitsets stored as `u64` words: object sets (one bit per
//! object id) and movement sets (five bits per collision layer).
//!
//! Movement fields never straddle a word: each word holds twelve layers of
//! five bits, so a layer's field is `(word, shift)` from [`mov_pos`].

/// Layers whose five-bit movement fields fit in one word.
pub const LAYERS_PER_WORD: usize = 12;

/// The word and bit shift of a layer's movement field.
#[inline]
pub fn mov_pos(layer: usize) -> (usize, u32) {
    (
        layer / LAYERS_PER_WORD,
        ((layer % LAYERS_PER_WORD) * 5) as u32,
    )
}

/// Words needed for `bits` bits.
pub fn words_for(bits: usize) -> usize {
    bits.div_ceil(64).max(1)
}

/// Words needed for the movement fields of `layers` layers.
pub fn mov_words(layers: usize) -> usize {
    layers.div_ceil(LAYERS_PER_WORD).max(1)
}

/// Sets bit `i`.
#[inline]
pub fn set(v: &mut [u64], i: usize) {
    if let Some(w) = v.get_mut(i / 64) {
        *w |= 1 << (i % 64);
    }
}

/// Reads bit `i`.
#[inline]
pub fn get(v: &[u64], i: usize) -> bool {
    v.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// ORs the five-bit `value` into a layer's movement field.
#[inline]
pub fn mov_or(v: &mut [u64], layer: usize, value: u64) {
    let (w, s) = mov_pos(layer);
    if let Some(word) = v.get_mut(w) {
        *word |= (value & 0x1f) << s;
    }
}

/// A layer's five-bit movement field.
#[inline]
pub fn mov_get(v: &[u64], layer: usize) -> u64 {
    let (w, s) = mov_pos(layer);
    v.get(w).map_or(0, |word| (word >> s) & 0x1f)
}

/// `a |= b`.
#[inline]
pub fn or_into(a: &mut [u64], b: &[u64]) {
    if let ([x], [y]) = (&mut *a, b) {
        *x |= *y;
        return;
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x |= *y;
    }
}

/// `a &= !b`.
#[inline]
pub fn clear_into(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= !*y;
    }
}

/// True when every bit of `mask` is set in `v`.
#[inline]
pub fn contains(v: &[u64], mask: &[u64]) -> bool {
    // One word is the common case (at most 64 objects, 12 layers).
    if let ([x], [m]) = (v, mask) {
        return x & m == *m;
    }
    v.iter().zip(mask).all(|(x, m)| x & m == *m)
}

/// True when `a` and `b` share a bit.
#[inline]
pub fn intersects(a: &[u64], b: &[u64]) -> bool {
    if let ([x], [y]) = (a, b) {
        return x & y != 0;
    }
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

/// The number of bits set in both `a` and `b`.
pub fn ones_in(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x & y).count_ones()).sum()
}

/// True when no bit is set.
#[inline]
pub fn is_zero(v: &[u64]) -> bool {
    if let [x] = v {
        return *x == 0;
    }
    v.iter().all(|w| *w == 0)
}

/// The indices of the set bits, in increasing order.
pub fn ones(v: &[u64]) -> impl Iterator<Item = usize> + '_ {
    v.iter().enumerate().flat_map(|(wi, &w)| {
        let mut rest = w;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let b = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            Some(wi * 64 + b)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movement_fields_stay_in_their_word() {
        let mut v = vec![0u64; mov_words(13)];
        mov_or(&mut v, 11, 0x1f);
        mov_or(&mut v, 12, 2);
        assert_eq!(mov_get(&v, 11), 0x1f);
        assert_eq!(mov_get(&v, 12), 2);
        assert_eq!(v[1], 2);
    }

    #[test]
    fn ones_lists_bits_in_order() {
        let mut v = vec![0u64; 2];
        set(&mut v, 3);
        set(&mut v, 70);
        assert_eq!(ones(&v).collect::<Vec<_>>(), vec![3, 70]);
        assert!(get(&v, 70) && !get(&v, 4));
    }
}
