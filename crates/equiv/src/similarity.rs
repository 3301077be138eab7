//! Similarity by sampling (section V of the paper): sample states of A, map
//! each to a state of B with a user-given mapping, build the partial trees of
//! a given depth at both, and count how often they are equivalent (after the
//! reductions, in agency mode). The estimate comes with a 95% Wilson score
//! interval. Each sample may use its own player and outcome correspondence.

use crate::sample::{random_state, Rng, Rooted};
use crate::{compare, EquivError, GameTree, Mode, TreeOptions};
use model::{Game, Successors};
use serde::Serialize;

/// How to sample.
#[derive(Clone, Copy, Debug)]
pub struct SimilarityOptions {
    /// Depth of the partial trees compared (decisions and chance levels).
    pub depth: u32,
    /// States sampled.
    pub samples: u32,
    /// Seed of the sampler.
    pub seed: u64,
    /// The equivalence applied to the partial trees.
    pub mode: Mode,
    /// Longest random playout used to reach a sampled state.
    pub max_walk: u32,
    /// Largest partial tree built.
    pub max_nodes: usize,
}

impl Default for SimilarityOptions {
    fn default() -> SimilarityOptions {
        SimilarityOptions {
            depth: 2,
            samples: 200,
            seed: 1,
            mode: Mode::Agency,
            max_walk: 64,
            max_nodes: 5_000_000,
        }
    }
}

/// The estimate.
#[derive(Clone, Debug, Serialize)]
pub struct Similarity {
    /// Fraction of sampled states whose partial trees are equivalent.
    pub similarity: f64,
    /// Lower end of the 95% confidence interval.
    pub low: f64,
    /// Upper end of the 95% confidence interval.
    pub high: f64,
    /// States sampled.
    pub samples: u32,
    /// Samples with equivalent partial trees.
    pub matched: u32,
    /// Samples the mapping could not map (counted as different).
    pub unmapped: u32,
    /// Depth of the partial trees.
    pub depth: u32,
    /// The equivalence applied.
    pub mode: Mode,
    /// The seed.
    pub seed: u64,
    /// The first sampled state whose trees differ, rendered, with the difference.
    pub first_mismatch: Option<String>,
}

/// Estimates the similarity of `a` and `b` under the state mapping `map`.
pub fn similarity(
    a: &dyn Game,
    b: &dyn Game,
    map: &dyn Fn(&[u8]) -> Option<Vec<u8>>,
    opts: &SimilarityOptions,
) -> Result<Similarity, EquivError> {
    if opts.samples == 0 {
        return Err(EquivError::Sampling(
            "at least one sample is needed".to_string(),
        ));
    }
    let mut rng = Rng::new(opts.seed);
    let mut buf = Successors::new();
    let tree_opts = TreeOptions {
        max_nodes: opts.max_nodes,
        max_depth: Some(opts.depth),
    };
    let (mut matched, mut unmapped) = (0u32, 0u32);
    let mut first_mismatch = None;
    for _ in 0..opts.samples {
        let Some(s) = random_state(a, &mut rng, opts.max_walk, &mut buf) else {
            return Err(EquivError::Sampling(
                "the first game has no initial state".to_string(),
            ));
        };
        let Some(t) = map(&s) else {
            unmapped += 1;
            first_mismatch.get_or_insert_with(|| format!("state does not map:\n{}", a.render(&s)));
            continue;
        };
        let ta = GameTree::build(
            &Rooted {
                game: a,
                root: s.clone(),
            },
            "A",
            tree_opts,
        )?;
        let tb = GameTree::build(
            &Rooted {
                game: b,
                root: t.clone(),
            },
            "B",
            tree_opts,
        )?;
        let c = compare(&ta, &tb, opts.mode)?;
        if c.equivalent {
            matched += 1;
        } else if first_mismatch.is_none() {
            let why = c
                .difference
                .map(|d| format!("{} (path {:?} / {:?})", d.reason, d.path_a, d.path_b))
                .unwrap_or_default();
            first_mismatch = Some(format!(
                "A state:\n{}\nB state:\n{}\n{why}",
                a.render(&s),
                b.render(&t)
            ));
        }
    }
    let (low, high) = wilson(matched, opts.samples);
    Ok(Similarity {
        similarity: f64::from(matched) / f64::from(opts.samples),
        low,
        high,
        samples: opts.samples,
        matched,
        unmapped,
        depth: opts.depth,
        mode: opts.mode,
        seed: opts.seed,
        first_mismatch,
    })
}

/// The 95% Wilson score interval of `k` successes in `n` trials.
pub(crate) fn wilson(k: u32, n: u32) -> (f64, f64) {
    let n = f64::from(n.max(1));
    let p = f64::from(k) / n;
    let z2 = 1.96f64 * 1.96;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = 1.96 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_brackets_the_estimate() {
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5 && (0.5 - lo - (hi - 0.5)).abs() < 1e-9);
        let (lo, hi) = wilson(100, 100);
        assert!(lo > 0.95 && (hi - 1.0).abs() < 1e-12);
        assert_eq!(wilson(0, 10).0, 0.0);
    }
}
