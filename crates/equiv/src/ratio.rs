//! Exact probabilities as reduced fractions of 64-bit integers, so that chance
//! edges compare exactly and merged or chained probabilities never round.

use crate::EquivError;
use serde::Serialize;

/// A probability `num / den` in lowest terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Ratio {
    /// Numerator.
    pub num: u64,
    /// Denominator, never zero.
    pub den: u64,
}

impl Ratio {
    /// Certainty.
    pub const ONE: Ratio = Ratio { num: 1, den: 1 };

    /// `num / den` in lowest terms; a zero denominator is treated as certainty's
    /// denominator so that a malformed input cannot divide by zero later.
    pub fn new(num: u64, den: u64) -> Ratio {
        Ratio::reduce(u128::from(num), u128::from(den.max(1))).unwrap_or(Ratio::ONE)
    }

    fn reduce(num: u128, den: u128) -> Result<Ratio, EquivError> {
        let (num, den) = model::ratio::reduce(num, den);
        match (u64::try_from(num), u64::try_from(den)) {
            (Ok(num), Ok(den)) => Ok(Ratio { num, den }),
            _ => Err(EquivError::ProbabilityOverflow(format!("{num}/{den}"))),
        }
    }

    /// The product of two probabilities.
    pub fn checked_mul(self, other: Ratio) -> Result<Ratio, EquivError> {
        let num = u128::from(self.num) * u128::from(other.num);
        let den = u128::from(self.den) * u128::from(other.den);
        Ratio::reduce(num, den)
    }

    /// The sum of two probabilities (may exceed one: callers check sums).
    pub fn checked_add(self, other: Ratio) -> Result<Ratio, EquivError> {
        let num = u128::from(self.num) * u128::from(other.den)
            + u128::from(other.num) * u128::from(self.den);
        let den = u128::from(self.den) * u128::from(other.den);
        Ratio::reduce(num, den)
    }

    /// True for probability one.
    pub fn is_one(self) -> bool {
        self.num == self.den
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_and_products_stay_exact() {
        let half = Ratio::new(2, 4);
        assert_eq!(half, Ratio { num: 1, den: 2 });
        assert!(half.checked_add(half).unwrap().is_one());
        assert_eq!(
            half.checked_mul(Ratio::new(1, 3)).unwrap(),
            Ratio::new(1, 6)
        );
        assert_eq!(
            Ratio::new(1, 3).checked_add(Ratio::new(1, 6)).unwrap(),
            half
        );
    }

    #[test]
    fn overflow_is_an_error_not_a_wrong_number() {
        let tiny = Ratio::new(1, u64::MAX);
        assert!(tiny.checked_mul(tiny).is_err());
    }
}
