//! A HyperLogLog cardinality sketch (Flajolet et al. 2007) with the small-range
//! (linear counting) correction; used for headroom when exact reach sets do not fit.
//!
//! With `m = 2^p` one-byte registers the relative standard error of an estimate is
//! `1.04 / sqrt(m)`. 64-bit hashes make the large-range correction unnecessary.
//! Sketches merge by taking the register-wise maximum, so the sketch of a union is the
//! merge of the sketches, whatever the overlap.

/// Smallest supported precision (16 registers).
pub const MIN_PRECISION: u8 = 4;
/// Largest supported precision (16384 registers).
pub const MAX_PRECISION: u8 = 14;

/// Relative standard error of a sketch with precision `p`.
pub fn relative_standard_error(p: u8) -> f64 {
    1.04 / f64::from(1u32 << p).sqrt()
}

/// A 64-bit mix of `x` (SplitMix64's finaliser): cheap, deterministic and well spread.
#[inline]
pub fn hash64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Adds the item with hash `hash` to the registers `regs` (length `2^p`).
#[inline]
pub fn insert(regs: &mut [u8], p: u8, hash: u64) {
    let index = (hash >> (64 - p)) as usize;
    // The remaining 64 - p bits, shifted up; a sentinel bit bounds the rank.
    let rest = (hash << p) | (1u64 << (p - 1));
    let rank = rest.leading_zeros() as u8 + 1;
    if let Some(r) = regs.get_mut(index) {
        *r = (*r).max(rank);
    }
}

/// Merges `other` into `regs` (the union of both sets).
#[inline]
pub fn merge(regs: &mut [u8], other: &[u8]) {
    for (r, &o) in regs.iter_mut().zip(other) {
        *r = (*r).max(o);
    }
}

/// The estimated number of distinct items added to `regs`.
pub fn estimate(regs: &[u8]) -> f64 {
    let m = regs.len() as f64;
    let alpha = match regs.len() {
        16 => 0.673,
        32 => 0.697,
        64 => 0.709,
        _ => 0.7213 / (1.0 + 1.079 / m),
    };
    let sum: f64 = regs.iter().map(|&r| (-f64::from(r)).exp2()).sum();
    let raw = alpha * m * m / sum;
    let zeros = regs.iter().filter(|&&r| r == 0).count();
    if raw <= 2.5 * m && zeros > 0 {
        m * (m / zeros as f64).ln()
    } else {
        raw
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(p: u8, items: impl Iterator<Item = u64>) -> Vec<u8> {
        let mut regs = vec![0u8; 1 << p];
        for x in items {
            insert(&mut regs, p, hash64(x));
        }
        regs
    }

    #[test]
    fn estimates_stay_within_four_standard_errors() {
        let p = 10;
        let bound = 4.0 * relative_standard_error(p);
        for n in [10u64, 1000, 100_000] {
            let e = estimate(&sketch(p, 0..n));
            assert!((e / n as f64 - 1.0).abs() < bound, "n = {n}, estimate {e}");
        }
    }

    #[test]
    fn merge_is_the_sketch_of_the_union() {
        let p = 8;
        let mut a = sketch(p, 0..500);
        let b = sketch(p, 250..1000);
        merge(&mut a, &b);
        assert_eq!(a, sketch(p, 0..1000));
        assert_eq!(estimate(&vec![0u8; 1 << p]), 0.0);
    }
}
