//! Enumerating every outcome of a turn's random choices: the turn is replayed
//! once per sequence of choices, in odometer order, and each result carries
//! the product of `1 / n` over its choices.

use crate::engine::Chooser;

/// A chooser that follows a prefix of fixed choices, picks 0 beyond it, and
/// records how many options each choice point had.
#[derive(Clone, Debug, Default)]
pub struct Enumerator {
    /// The choices of the current path.
    picks: Vec<usize>,
    /// The number of options at each choice point of the current path.
    arities: Vec<usize>,
    /// The next choice point to read.
    cursor: usize,
    /// The rule line of each choice point of the current path (0 unknown).
    lines: Vec<usize>,
}

impl Chooser for Enumerator {
    fn choose_for(&mut self, n: usize, line: usize) -> usize {
        if self.lines.len() <= self.cursor {
            self.lines.resize(self.cursor + 1, 0);
        }
        self.lines[self.cursor] = line;
        self.choose(n)
    }

    fn choose(&mut self, n: usize) -> usize {
        let n = n.max(1);
        let pick = if self.cursor < self.picks.len() {
            self.arities[self.cursor] = n;
            self.picks[self.cursor].min(n - 1)
        } else {
            self.picks.push(0);
            self.arities.push(n);
            0
        };
        self.cursor += 1;
        pick
    }
}

impl Enumerator {
    /// The rule line that made the most choices with more than one option
    /// on the current path (0 when none is known).
    pub fn busiest_line(&self) -> usize {
        let mut counts: std::collections::BTreeMap<usize, usize> = Default::default();
        for (i, &line) in self.lines.iter().enumerate().take(self.cursor) {
            if self.arities.get(i).is_some_and(|&n| n > 1) {
                *counts.entry(line).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .max_by_key(|&(line, n)| (n, std::cmp::Reverse(line)))
            .map_or(0, |(line, _)| line)
    }

    /// Starts the first path.
    pub fn reset(&mut self) {
        self.picks.clear();
        self.arities.clear();
        self.cursor = 0;
    }

    /// The probability of the path just run, as `(num, den)`; `None` when
    /// the denominator would not fit.
    pub fn probability(&self) -> Option<(u64, u64)> {
        let mut den: u64 = 1;
        for &n in &self.arities[..self.cursor] {
            den = den.checked_mul(n as u64)?;
        }
        (den <= u64::from(u32::MAX)).then_some((1, den))
    }

    /// Moves to the next path; false when every path has been run.
    pub fn advance(&mut self) -> bool {
        self.picks.truncate(self.cursor);
        self.arities.truncate(self.cursor);
        while let (Some(&last), Some(&n)) = (self.picks.last(), self.arities.last()) {
            if last + 1 < n {
                if let Some(l) = self.picks.last_mut() {
                    *l += 1;
                }
                self.cursor = 0;
                return true;
            }
            self.picks.pop();
            self.arities.pop();
        }
        false
    }

    /// True when the path just run made a random choice.
    pub fn chose(&self) -> bool {
        self.cursor > 0
    }

    /// Rewinds to the start of the current path (for a turn replayed in parts).
    pub fn rewind(&mut self) {
        self.cursor = 0;
    }
}

/// `a/b + c/d`, reduced.
///
/// Both denominators are at most 2^32, so their least common multiple fits in 64 bits;
/// the sum of the numerators is taken in 128 bits, so nothing overflows.
pub fn add(a: (u64, u64), c: (u64, u64)) -> (u64, u64) {
    let den = lcm(a.1, c.1);
    let num = u128::from(a.0) * u128::from(den / a.1) + u128::from(c.0) * u128::from(den / c.1);
    let g = gcd128(num, u128::from(den));
    // The sum of probabilities of one action is at most one, so `num / g <= den / g`.
    ((num / g) as u64, (u128::from(den) / g) as u64)
}

fn gcd128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerates_every_path_once() {
        let mut e = Enumerator::default();
        let mut seen = Vec::new();
        loop {
            e.rewind();
            let a = e.choose(2);
            let b = if a == 1 { e.choose(3) } else { 9 };
            seen.push((a, b, e.probability()));
            if !e.advance() {
                break;
            }
        }
        assert_eq!(
            seen,
            vec![
                (0, 9, Some((1, 2))),
                (1, 0, Some((1, 6))),
                (1, 1, Some((1, 6))),
                (1, 2, Some((1, 6)))
            ]
        );
        assert_eq!(add((1, 2), (1, 6)), (2, 3));
    }

    /// Regression: a path of 32 coin flips or more has a probability that 32 bits
    /// cannot hold; it is `None` (an error upstream), never a wrapped or zero value, and
    /// sums of the widest fractions do not overflow.
    #[test]
    fn probabilities_past_32_bits_are_named_not_wrapped() {
        let mut e = Enumerator::default();
        e.rewind();
        for _ in 0..31 {
            e.choose(2);
        }
        assert_eq!(e.probability(), Some((1, 1 << 31)));
        e.choose(2);
        assert_eq!(e.probability(), None);
        let big = u64::from(u32::MAX);
        assert_eq!(add((big - 1, big), (1, big)), (1, 1));
        assert_eq!(add((1, 1 << 31), (1, 1 << 31)), (1, 1 << 30));
    }
}
