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

/// What the smoke tests of targets whose first byte picks what to do with the rest (which
/// file to replace, and how) share: writes the seeds to the folder `env_var` names, when it
/// is set (to refresh the target's corpus), then applies every seed and `count` mutants of
/// them, each keeping its seed's first byte, drawn with a generator seeded by `rng_seed`.
/// (The games' smoke test includes this file too and does not use it.)
#[allow(dead_code)]
pub fn seeds_then_mutants(
    seeds: &[Vec<u8>],
    env_var: &str,
    count: usize,
    rng_seed: u64,
    mut apply: impl FnMut(&[u8]),
) {
    if let Some(dir) = std::env::var_os(env_var) {
        for (i, seed) in seeds.iter().enumerate() {
            let path = std::path::Path::new(&dir).join(format!("seed-{i:02}"));
            std::fs::write(path, seed).expect("seed written");
        }
    }
    for seed in seeds {
        apply(seed);
    }
    let mut rng = Rng::new(rng_seed);
    for i in 0..count {
        let seed = &seeds[i % seeds.len()];
        let other = &seeds[rng.below(seeds.len())];
        let mut mutant = vec![seed[0]];
        mutant.extend(mutate(&mut rng, &seed[1..], &other[1..]));
        apply(&mutant);
    }
}
