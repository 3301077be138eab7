//! Exact fractions' one arithmetic helper: the greatest common divisor, and
//! a fraction in lowest terms. The `.game` language's chance and the game
//! trees' probabilities both keep fractions exact with it.

/// The greatest common divisor of `a` and `b` (Euclid's algorithm);
/// `gcd(0, 0)` is 0.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `num / den` in lowest terms. A zero fraction reduces to `0 / 1` when
/// `den` is non-zero; `0 / 0` is returned unchanged, since no divisor helps.
pub fn reduce(num: u128, den: u128) -> (u128, u128) {
    let g = gcd(num, den).max(1);
    (num / g, den / g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcd_and_lowest_terms() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(0, 5), 5);
        assert_eq!(gcd(7, 0), 7);
        assert_eq!(gcd(0, 0), 0);
        assert_eq!(reduce(6, 8), (3, 4));
        assert_eq!(reduce(0, 8), (0, 1));
        assert_eq!(reduce(0, 0), (0, 0));
        assert_eq!(reduce(u128::MAX, u128::MAX), (1, 1));
    }
}
