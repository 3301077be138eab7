//! Summary statistics over the per-hyperstate results: size distribution, branching,
//! depth, headroom and failure-spectrum summaries (definitions in `docs/metrics.md`).

use crate::condense::Condensation;
use crate::graph::{out_degree, StateGraph};
use crate::headroom::Headroom;
use crate::paths::UNREACHED;
use crate::spectrum::FailureSpectrum;
use crate::summary::{
    Branching, Bucket, DepthSummary, HeadroomSummary, SizeDistribution, SpectrumSummary,
};
use crate::tags::Tagging;

/// Sizes of hyperstates in power-of-two buckets.
pub fn size_distribution(c: &Condensation) -> SizeDistribution {
    let h = c.hyperstate_count();
    let mut buckets = vec![0u64; 65];
    let (mut singletons, mut max, mut total) = (0, 0, 0u64);
    for x in 0..h {
        let size = c.size(x);
        singletons += u64::from(size == 1);
        max = max.max(size);
        total += size;
        buckets[63 - size.max(1).leading_zeros() as usize] += 1;
    }
    let histogram = buckets
        .iter()
        .enumerate()
        .filter(|(_, &count)| count > 0)
        .map(|(b, &count)| Bucket {
            from: 1 << b,
            to: (1u64 << b).saturating_mul(2) - 1,
            count,
        })
        .collect();
    SizeDistribution {
        singletons,
        max,
        mean: if h == 0 { 0.0 } else { total as f64 / h as f64 },
        histogram,
    }
}

/// Mean and largest branching in the SSG (states with edges) and HSG (non-leaves).
pub fn branching<G: StateGraph + ?Sized>(g: &G, c: &Condensation) -> Branching {
    // Sums, counts and maxima of ranges of states, on every core (the same whatever the
    // ranges).
    let threads = crate::parallel::threads_for(g.expanded_count());
    let parts = crate::parallel::map_ranges(g.expanded_count(), threads, |range| {
        let (mut states, mut edges, mut max) = (0u64, 0u64, 0u64);
        // The row ends only: their edges are not read.
        let mut ahead = crate::readahead::Ahead::new(g, range.end, false);
        for s in range {
            ahead.at(s);
            let d = out_degree(g, s);
            if d > 0 {
                states += 1;
                edges += d;
                max = max.max(d);
            }
        }
        (states, edges, max)
    });
    let (mut states, mut edges, mut ssg_max) = (0u64, 0u64, 0u64);
    for (k, e, m) in parts {
        states += k;
        edges += e;
        ssg_max = ssg_max.max(m);
    }
    let (mut nonleaves, mut successors, mut hsg_max) = (0u64, 0u64, 0u64);
    for h in 0..c.hyperstate_count() {
        let d = c.edges.successor_count(h);
        if d > 0 {
            nonleaves += 1;
            successors += d;
            hsg_max = hsg_max.max(d);
        }
    }
    let mean = |sum: u64, n: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
    Branching {
        ssg_mean: mean(edges, states),
        ssg_max,
        hsg_mean: mean(successors, nonleaves),
        hsg_max,
    }
}

/// Reachable count, deepest shortest depth and depth histogram.
pub fn depth_summary(depth: &[u32]) -> DepthSummary {
    let mut histogram: Vec<u64> = Vec::new();
    for &d in depth.iter().filter(|&&d| d != UNREACHED) {
        let d = d as usize;
        if histogram.len() <= d {
            histogram.resize(d + 1, 0);
        }
        histogram[d] += 1;
    }
    DepthSummary {
        reachable_hyperstates: histogram.iter().sum(),
        max: histogram.len().saturating_sub(1) as u32,
        histogram,
    }
}

fn decile(x: f32) -> usize {
    ((x * 10.0).floor() as usize).min(9)
}

/// Headroom statistics over the hyperstates the root reaches (`depth` finite).
pub fn headroom_summary(
    c: &Condensation,
    tagging: &Tagging,
    hr: &Headroom,
    depth: &[u32],
    root: u64,
) -> HeadroomSummary {
    let (mut n, mut sum_h, mut sum_s) = (0u64, 0.0f64, 0.0f64);
    let (mut n1, mut sum_1) = (0u64, 0.0f64);
    let (mut hist_h, mut hist_s, mut hist_1) = (vec![0u64; 10], vec![0u64; 10], vec![0u64; 10]);
    let (mut full, mut single) = (0u64, 0u64);
    for h in (0..c.hyperstate_count()).filter(|&h| depth[h as usize] != UNREACHED) {
        let i = h as usize;
        n += 1;
        sum_h += f64::from(hr.hyperstates[i]);
        sum_s += f64::from(hr.states[i]);
        hist_h[decile(hr.hyperstates[i])] += 1;
        hist_s[decile(hr.states[i])] += 1;
        full += u64::from(hr.hyperstates[i] >= 1.0);
        let one = hr.one_step[i];
        if !one.is_nan() {
            n1 += 1;
            sum_1 += f64::from(one);
            hist_1[decile(one)] += 1;
            let row = c.edges.row(h);
            let winning = row
                .clone()
                .filter(|&e| tagging.tag(c.edges.targets.at(e)).is_winnable())
                .count();
            single += u64::from(row.end - row.start >= 2 && winning == 1);
        }
    }
    let r = root as usize;
    let mean = |s: f64, k: u64| if k == 0 { 0.0 } else { s / k as f64 };
    HeadroomSummary {
        method: hr.method,
        root_hyperstates: f64::from(hr.hyperstates[r]),
        root_states: f64::from(hr.states[r]),
        root_one_step: (!hr.one_step[r].is_nan()).then(|| f64::from(hr.one_step[r])),
        mean_hyperstates: mean(sum_h, n),
        mean_states: mean(sum_s, n),
        mean_one_step: (n1 > 0).then(|| sum_1 / n1 as f64),
        histogram_hyperstates: hist_h,
        histogram_states: hist_s,
        histogram_one_step: hist_1,
        full_headroom: full,
        single_winning_choice: single,
    }
}

/// Failure-spectrum statistics over the hyperstates the root reaches.
pub fn spectrum_summary(fs: &FailureSpectrum, tagging: &Tagging, depth: &[u32]) -> SpectrumSummary {
    let mut histogram: Vec<u64> = Vec::new();
    let mut no_loss = 0;
    for (i, &ld) in fs.loss_distance.iter().enumerate() {
        if depth[i] == UNREACHED {
            continue;
        }
        if ld == UNREACHED {
            no_loss += 1;
            continue;
        }
        if histogram.len() <= ld as usize {
            histogram.resize(ld as usize + 1, 0);
        }
        histogram[ld as usize] += 1;
    }
    SpectrumSummary {
        root_loss_distance: fs.profile.first().copied().flatten(),
        ideal_path_profile: fs.profile.clone(),
        breadth: fs.breadth,
        narrowest: fs.narrowest,
        ideal_path_end: fs.ideal_path.last().map(|&h| tagging.tag(h)),
        loss_distance_histogram: histogram,
        no_loss_reachable: no_loss,
    }
}
