//! Statistics of an experiment: the five-number summary, mean and standard
//! deviation of each instance's best-of-run scores, their spread across
//! instances, and the seed's hardness and interestingness measures.

use games::sandbox::TokenKind;

use crate::experiment::Results;

/// Minimum, quartiles, maximum, mean and sample standard deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Smallest value.
    pub min: f64,
    /// First quartile.
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// Largest value.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1); 0 for fewer than two values.
    pub sd: f64,
}

impl Summary {
    /// The summary of `values` (all zero when empty). Quartiles interpolate
    /// linearly between order statistics (the usual "type 7" definition).
    pub fn of(values: &[f64]) -> Summary {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            return Summary {
                min: 0.0,
                q1: 0.0,
                median: 0.0,
                q3: 0.0,
                max: 0.0,
                mean: 0.0,
                sd: 0.0,
            };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Summary {
            min: v[0],
            q1: quantile(&v, 0.25),
            median: quantile(&v, 0.5),
            q3: quantile(&v, 0.75),
            max: v[n - 1],
            mean,
            sd: var.sqrt(),
        }
    }
}

/// The `q` quantile of sorted, non-empty values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// What the runs on one instance say about it.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceStats {
    /// 0-based instance.
    pub instance: usize,
    /// Summary of the best-of-run scores.
    pub summary: Summary,
    /// Hardness: the standard deviation of the best scores (the seed: it is
    /// "proportional to the variability of the best scores found").
    pub hardness: f64,
    /// Fraction of runs that reached the instance's top score.
    pub top_rate: f64,
    /// Interestingness: the top-to-bottom range of the best scores times the
    /// rarity of the top score (1 - top rate). Zero when every run agrees or
    /// every run finds the top; large when a wide range hides a rare top.
    pub interest: f64,
    /// Mean tokens of each kind picked up by the runs' best chromosomes.
    pub picked: [f64; 12],
}

/// The experiment as a whole.
#[derive(Clone, Debug, PartialEq)]
pub struct ExperimentStats {
    /// Per instance, in instance order.
    pub instances: Vec<InstanceStats>,
    /// Spread across instances of each instance's top score.
    pub top_scores: Summary,
    /// Spread across instances of each instance's mean best score.
    pub mean_scores: Summary,
    /// Instances whose runs all found the same best score.
    pub without_variation: usize,
    /// Mean hardness over instances.
    pub hardness: f64,
    /// Mean interestingness over instances.
    pub interest: f64,
    /// The instance with the highest mean best score.
    pub highest: usize,
    /// The instance with the lowest mean best score.
    pub lowest: usize,
    /// Mean tokens of each kind picked up by a run's best chromosome.
    pub picked: [f64; 12],
}

/// Computes the statistics of `results`.
pub fn analyse(results: &Results) -> ExperimentStats {
    let instances: Vec<InstanceStats> = (0..results.instances.len())
        .map(|i| instance_stats(results, i))
        .collect();
    let tops: Vec<f64> = instances.iter().map(|s| s.summary.max).collect();
    let means: Vec<f64> = instances.iter().map(|s| s.summary.mean).collect();
    let count = instances.len().max(1) as f64;
    let by_mean =
        |a: &&InstanceStats, b: &&InstanceStats| a.summary.mean.total_cmp(&b.summary.mean);
    let mut picked = [0.0; 12];
    for s in &instances {
        for (k, v) in picked.iter_mut().enumerate() {
            *v += s.picked[k] / count;
        }
    }
    ExperimentStats {
        top_scores: Summary::of(&tops),
        mean_scores: Summary::of(&means),
        without_variation: instances
            .iter()
            .filter(|s| s.summary.min == s.summary.max)
            .count(),
        hardness: instances.iter().map(|s| s.hardness).sum::<f64>() / count,
        interest: instances.iter().map(|s| s.interest).sum::<f64>() / count,
        highest: instances.iter().max_by(by_mean).map_or(0, |s| s.instance),
        lowest: instances.iter().min_by(by_mean).map_or(0, |s| s.instance),
        picked,
        instances,
    }
}

fn instance_stats(results: &Results, instance: usize) -> InstanceStats {
    let runs = results.of_instance(instance);
    let scores: Vec<f64> = runs.iter().map(|r| f64::from(r.best_score)).collect();
    let summary = Summary::of(&scores);
    let n = runs.len().max(1) as f64;
    let top_rate = scores.iter().filter(|&&s| s == summary.max).count() as f64 / n;
    let mut picked = [0.0; 12];
    for r in runs {
        for (k, v) in picked.iter_mut().enumerate() {
            *v += f64::from(r.picked[k]) / n;
        }
    }
    InstanceStats {
        instance,
        summary,
        hardness: summary.sd,
        top_rate,
        interest: (summary.max - summary.min) * (1.0 - top_rate),
        picked,
    }
}

/// The kinds a specification uses that can be picked up (terrain tokens
/// stay on the board), for tables of picked-up tokens.
pub fn kinds_used(results: &Results) -> Vec<TokenKind> {
    TokenKind::ALL
        .into_iter()
        .filter(|k| !k.is_terrain())
        .filter(|k| {
            results.design.spec.count(*k) > 0
                || results.design.spec.hidden[usize::from(k.code())] > 0
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_matches_hand_computed_values() {
        let s = Summary::of(&[1.0, 2.0, 3.0, 4.0, 10.0]);
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 10.0)
        );
        assert!((s.mean - 4.0).abs() < 1e-12);
        assert!((s.sd - (50.0f64 / 4.0).sqrt()).abs() < 1e-12);
        let s = Summary::of(&[5.0, 5.0]);
        assert_eq!((s.sd, s.q1, s.q3), (0.0, 5.0, 5.0));
        assert_eq!(Summary::of(&[]).max, 0.0);
        let s = Summary::of(&[1.0, 2.0]);
        assert_eq!((s.q1, s.median, s.q3), (1.25, 1.5, 1.75));
    }
}
