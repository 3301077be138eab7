//! Cheap deterministic mutations for the stable smoke tests that stand in for the fuzz
//! targets in CI: the byte flips, insertions, deletions and splices libFuzzer starts with,
//! without its coverage guidance.

/// A xorshift generator: deterministic, so a failing mutant is found again.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// The next number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Bytes that matter to the parsers: board characters, separators, digits, extremes.
const INTERESTING: &[u8] = b"#@+$*. -_|\n\r\t0123456789{}()[]:;,=<>\"'\xff\x00";

/// A mutant of `seed`: one to four edits, sometimes a splice with `other`.
pub fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if at < bytes.len() => bytes[at] ^= 1 << rng.below(8),
            1 => bytes.insert(at, INTERESTING[rng.below(INTERESTING.len())]),
            2 if at < bytes.len() => {
                let end = (at + 1 + rng.below(16)).min(bytes.len());
                bytes.drain(at..end);
            }
            3 if at < bytes.len() => bytes[at] = INTERESTING[rng.below(INTERESTING.len())],
            4 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(64)).min(other.len());
                bytes.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                // Repeats a slice: long runs, deep nesting, many levels.
                let end = (at + 1 + rng.below(8)).min(bytes.len());
                let piece = bytes[at.min(end)..end].to_vec();
                for _ in 0..rng.below(64) {
                    bytes.splice(at..at, piece.iter().copied());
                }
            }
        }
    }
    bytes
}
