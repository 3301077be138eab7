//! A user's mapping between two games' features (tracks), read from a file of
//! lines `A-feature -> B-feature`, applied to states.
//!
//! Games expose their features only through [`Game::project`], which resets a
//! feature to a fixed value. The bits a feature occupies are found by probing:
//! over many sampled states, every bit that projecting the feature changes
//! belongs to it. A mapped state is B's first initial state with each mapped
//! feature's bits copied from A's state, so both games must encode a mapped
//! feature's values alike (the same set declaration, as `player? = none`
//! in two `.game` files).

use crate::sample::{random_state, Rng};
use crate::EquivError;
use model::{Game, Successors};

/// States probed to find each feature's bits.
const PROBES: u32 = 2_000;

/// The bits of each feature of one game.
struct Codec {
    masks: Vec<Vec<u8>>,
}

impl Codec {
    fn probe(game: &dyn Game, seed: u64) -> Codec {
        let features = game.features().len();
        let width = game.state_width().max_len();
        let mut masks = vec![vec![0u8; width]; features];
        let mut rng = Rng::new(seed);
        let mut buf = Successors::new();
        let mut projected = Vec::new();
        for _ in 0..PROBES {
            let Some(s) = random_state(game, &mut rng, 64, &mut buf) else {
                break;
            };
            for (f, mask) in masks.iter_mut().enumerate() {
                projected.clear();
                game.project(&s, &[f], &mut projected);
                for (k, (x, y)) in s.iter().zip(&projected).enumerate() {
                    if let Some(m) = mask.get_mut(k) {
                        *m |= x ^ y;
                    }
                }
            }
        }
        Codec { masks }
    }

    /// The value of feature `f`: its bits gathered, lowest first.
    fn value(&self, state: &[u8], f: usize) -> u64 {
        let mut v = 0u64;
        let mut bit = 0;
        for (k, &m) in self.masks[f].iter().enumerate() {
            for b in 0..8 {
                if m >> b & 1 == 1 {
                    let set = state.get(k).is_some_and(|&x| x >> b & 1 == 1);
                    v |= u64::from(set) << bit.min(63);
                    bit += 1;
                }
            }
        }
        v
    }

    /// Writes `value` into feature `f`'s bits; false when it does not fit.
    fn set(&self, state: &mut [u8], f: usize, value: u64) -> bool {
        let mut bit = 0u32;
        for (k, &m) in self.masks[f].iter().enumerate() {
            for b in 0..8 {
                if m >> b & 1 == 1 {
                    let on = bit < 64 && value >> bit & 1 == 1;
                    if let Some(x) = state.get_mut(k) {
                        *x = (*x & !(1 << b)) | (u8::from(on) << b);
                    }
                    bit += 1;
                }
            }
        }
        bit >= 64 || value >> bit == 0
    }
}

/// A parsed, probed feature mapping from A to B.
pub struct FeatureMap {
    pairs: Vec<(usize, usize)>,
    codec_a: Codec,
    codec_b: Codec,
    template: Vec<u8>,
}

impl FeatureMap {
    /// Reads `text` (from `file`): one `A-feature -> B-feature` per line, `#` comments.
    pub fn parse(
        file: &str,
        text: &str,
        a: &dyn Game,
        b: &dyn Game,
        seed: u64,
    ) -> Result<FeatureMap, EquivError> {
        let (fa, fb) = (a.features(), b.features());
        let err = |line: usize, message: String| EquivError::MapSyntax {
            file: file.to_string(),
            line,
            message,
        };
        let mut pairs = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let Some((left, right)) = line.split_once("->") else {
                return Err(err(
                    n + 1,
                    format!("expected `A-feature -> B-feature`, found `{line}`"),
                ));
            };
            let find = |names: &[String], name: &str, which: &str| {
                names.iter().position(|x| x == name).ok_or_else(|| {
                    err(
                        n + 1,
                        format!(
                            "the {which} game has no feature `{name}` (it has: {})",
                            names.join(", ")
                        ),
                    )
                })
            };
            pairs.push((
                find(&fa, left.trim(), "first")?,
                find(&fb, right.trim(), "second")?,
            ));
        }
        if pairs.is_empty() {
            return Err(err(1, "the mapping names no feature".to_string()));
        }
        let template = b
            .initial_states()
            .into_iter()
            .next()
            .ok_or_else(|| err(1, "the second game has no initial state".to_string()))?;
        Ok(FeatureMap {
            pairs,
            codec_a: Codec::probe(a, seed),
            codec_b: Codec::probe(b, seed),
            template,
        })
    }

    /// The state of B corresponding to A's `state`; `None` when a value does not fit.
    pub fn apply(&self, state: &[u8]) -> Option<Vec<u8>> {
        let mut out = self.template.clone();
        for &(fa, fb) in &self.pairs {
            let v = self.codec_a.value(state, fa);
            if !self.codec_b.set(&mut out, fb, v) {
                return None;
            }
        }
        Some(out)
    }
}
