//! Strategic headroom of every hyperstate (paper section IV-A).
//!
//! For a hyperstate `h` with reach set `R(h)` (every hyperstate reachable from `h`,
//! `h` included, as the paper's reflexive closure `a*`):
//! - *headroom in hyperstates*: the share of `R(h)` that is winnable (tag `win` or
//!   `eventually_winnable`);
//! - *headroom in states*: the same share weighted by member states;
//! - *one-step headroom*: the share of `h`'s labelled critical actions (distinct
//!   `(target, action)` pairs) whose target is winnable; none for leaves.
//!
//! Reach sets are built in increasing hyperstate number (successors first) as the union
//! of the successors' sets, and a set is freed as soon as its last predecessor has used
//! it. A first pass simulates this to find the peak number of live sets, which decides
//! the method within the memory budget: exact bitsets (`H / 8` bytes a set, counting
//! costs `O(|R(h)|)` per hyperstate) or, when they do not fit, four HyperLogLog sketches
//! a set (hyperstates, winnable hyperstates, states, winnable states) with the largest
//! precision that fits. Estimated shares carry the sketches' relative standard error.

use crate::condense::Condensation;
use crate::hll;
use crate::tags::Tagging;
use serde::{Deserialize, Serialize};

/// How the reach sets were counted.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum HeadroomMethod {
    /// Exact bitsets.
    Exact,
    /// HyperLogLog sketches with `2^precision` registers.
    HyperLogLog {
        /// Register-count exponent.
        precision: u8,
        /// Relative standard error of every reach-set size.
        relative_standard_error: f64,
    },
}

/// Headroom values of every hyperstate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Headroom {
    /// Share of the reach set that is winnable, in hyperstates.
    pub hyperstates: Vec<f32>,
    /// Share of the reach set that is winnable, in member states.
    pub states: Vec<f32>,
    /// Share of labelled critical actions leading to winnable hyperstates; NaN for leaves.
    pub one_step: Vec<f32>,
    /// How reach sets were counted.
    pub method: HeadroomMethod,
}

/// Word operations exact counting may take by default: about ten seconds of one core.
/// Past it the reach sets are sketched, whatever memory is left: a 4.9 M-state store
/// once spent twenty minutes on exact headroom after a one-second analysis.
pub const EXACT_WORK_BUDGET: u64 = 1 << 34;

/// What exact counting costs on `c`: bytes of the live bitsets at their peak, and word
/// operations (every HSG edge and hyperstate touches a whole bitset of `H / 64` words).
pub fn exact_cost(c: &Condensation) -> (u64, u64) {
    let words = c.hyperstate_count().div_ceil(64);
    let bytes = peak_live_sets(c).saturating_mul(words * 8);
    let work = (c.edges.len() + c.hyperstate_count()).saturating_mul(words);
    (bytes, work)
}

/// Computes headroom within `budget_bytes` and [`EXACT_WORK_BUDGET`], or says why it
/// cannot.
pub fn compute_headroom(
    c: &Condensation,
    tagging: &Tagging,
    budget_bytes: u64,
) -> Result<Headroom, String> {
    compute_headroom_within(c, tagging, budget_bytes, EXACT_WORK_BUDGET)
}

/// Computes headroom exactly when its bitsets fit `budget_bytes` and its work
/// `work_budget` word operations, else with the most precise sketches that fit both
/// (at least the least precise ones), or says why it cannot.
pub fn compute_headroom_within(
    c: &Condensation,
    tagging: &Tagging,
    budget_bytes: u64,
    work_budget: u64,
) -> Result<Headroom, String> {
    let peak = peak_live_sets(c);
    let (exact_bytes, exact_work) = exact_cost(c);
    let one_step = one_step_headroom(c, tagging);
    if exact_bytes <= budget_bytes && exact_work <= work_budget {
        let (hyperstates, states) = exact_shares(c, tagging);
        return Ok(Headroom {
            hyperstates,
            states,
            one_step,
            method: HeadroomMethod::Exact,
        });
    }
    let sketch_work = |p: u8| (c.edges.len() + c.hyperstate_count()).saturating_mul(4 << p);
    let precision = (hll::MIN_PRECISION..=hll::MAX_PRECISION)
        .rev()
        .find(|&p| {
            peak.saturating_mul(4 << p) <= budget_bytes
                && (p == hll::MIN_PRECISION || sketch_work(p) <= work_budget)
        })
        .ok_or_else(|| {
            format!(
                "{peak} reach sets are live at once; even {} bytes of sketches each exceed the budget of {budget_bytes} bytes",
                4 << hll::MIN_PRECISION
            )
        })?;
    Ok(sketched_headroom(c, tagging, precision, one_step))
}

/// Why headroom was sketched rather than exact, for the summary's note.
pub fn sketch_reason(c: &Condensation, budget_bytes: u64) -> String {
    let (bytes, work) = exact_cost(c);
    if bytes > budget_bytes {
        format!("sketched: exact reach sets need {bytes} bytes, past the memory budget of {budget_bytes}")
    } else {
        format!(
            "sketched: exact reach sets need about {work} word operations, past the time budget of {EXACT_WORK_BUDGET}"
        )
    }
}

/// Computes headroom with HyperLogLog sketches of precision `precision` (clamped to the
/// supported range), whatever the budget; for tests and comparisons.
pub fn compute_headroom_sketched(c: &Condensation, tagging: &Tagging, precision: u8) -> Headroom {
    let p = precision.clamp(hll::MIN_PRECISION, hll::MAX_PRECISION);
    sketched_headroom(c, tagging, p, one_step_headroom(c, tagging))
}

fn sketched_headroom(c: &Condensation, tagging: &Tagging, p: u8, one_step: Vec<f32>) -> Headroom {
    let (hyperstates, states) = sketched_shares(c, tagging, p);
    let method = HeadroomMethod::HyperLogLog {
        precision: p,
        relative_standard_error: hll::relative_standard_error(p),
    };
    Headroom {
        hyperstates,
        states,
        one_step,
        method,
    }
}

/// Number of distinct predecessors of every hyperstate (saturating).
fn in_degrees(c: &Condensation) -> Vec<u32> {
    let mut indeg = vec![0u32; c.hyperstate_count() as usize];
    for h in 0..c.hyperstate_count() {
        c.edges.for_each_successor(h, |s| {
            let d = &mut indeg[s as usize];
            *d = d.saturating_add(1);
        });
    }
    indeg
}

/// The largest number of reach sets alive at once under the freeing rule.
fn peak_live_sets(c: &Condensation) -> u64 {
    let mut remaining = in_degrees(c);
    let (mut live, mut peak) = (0u64, 0u64);
    for h in 0..c.hyperstate_count() {
        live += 1;
        peak = peak.max(live);
        c.edges.for_each_successor(h, |s| {
            remaining[s as usize] -= 1;
            live -= u64::from(remaining[s as usize] == 0);
        });
        live -= u64::from(remaining[h as usize] == 0);
    }
    peak
}

fn one_step_headroom(c: &Condensation, tagging: &Tagging) -> Vec<f32> {
    (0..c.hyperstate_count())
        .map(|h| {
            let row = c.edges.row(h);
            let total = row.end - row.start;
            let good = row
                .filter(|&i| tagging.tag(c.edges.targets.at(i)).is_winnable())
                .count();
            if total == 0 {
                f32::NAN
            } else {
                (good as f64 / total as f64) as f32
            }
        })
        .collect()
}

fn share(part: f64, whole: f64) -> f32 {
    if whole > 0.0 {
        (part / whole).clamp(0.0, 1.0) as f32
    } else {
        0.0
    }
}

/// Runs the successor-first sweep with one value of type `S` per live reach set:
/// `seed` makes `h`'s own contribution, `union` merges a successor's set into it, and
/// `shares` turns a finished set into the two headroom shares.
fn sweep<S>(
    c: &Condensation,
    seed: impl Fn(u64) -> S,
    union: impl Fn(&mut S, &S),
    shares: impl Fn(&S) -> (f32, f32),
) -> (Vec<f32>, Vec<f32>) {
    let n = c.hyperstate_count() as usize;
    let mut remaining = in_degrees(c);
    let mut sets: Vec<Option<S>> = (0..n).map(|_| None).collect();
    let (mut by_hyperstate, mut by_state) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for h in 0..n as u64 {
        let mut set = seed(h);
        c.edges.for_each_successor(h, |s| {
            if let Some(other) = &sets[s as usize] {
                union(&mut set, other);
            }
            remaining[s as usize] -= 1;
            if remaining[s as usize] == 0 {
                sets[s as usize] = None;
            }
        });
        let (a, b) = shares(&set);
        by_hyperstate.push(a);
        by_state.push(b);
        if remaining[h as usize] > 0 {
            sets[h as usize] = Some(set);
        }
    }
    (by_hyperstate, by_state)
}

fn exact_shares(c: &Condensation, tagging: &Tagging) -> (Vec<f32>, Vec<f32>) {
    let words = c.hyperstate_count().div_ceil(64) as usize;
    sweep(
        c,
        |h| {
            let mut bits = vec![0u64; words];
            bits[(h / 64) as usize] |= 1 << (h % 64);
            bits
        },
        |set, other| {
            for (a, b) in set.iter_mut().zip(other) {
                *a |= b;
            }
        },
        |set| {
            let (mut all, mut win, mut all_states, mut win_states) = (0u64, 0u64, 0u64, 0u64);
            for (w, &word) in set.iter().enumerate() {
                let mut rest = word;
                while rest != 0 {
                    let x = w as u64 * 64 + u64::from(rest.trailing_zeros());
                    rest &= rest - 1;
                    let size = c.size(x);
                    all += 1;
                    all_states += size;
                    if tagging.tag(x).is_winnable() {
                        win += 1;
                        win_states += size;
                    }
                }
            }
            (
                share(win as f64, all as f64),
                share(win_states as f64, all_states as f64),
            )
        },
    )
}

fn sketched_shares(c: &Condensation, tagging: &Tagging, p: u8) -> (Vec<f32>, Vec<f32>) {
    let m = 1usize << p;
    sweep(
        c,
        |h| {
            // Registers: [hyperstates | winnable hyperstates | states | winnable states].
            let mut regs = vec![0u8; 4 * m];
            let winnable = tagging.tag(h).is_winnable();
            let (hs, st) = regs.split_at_mut(2 * m);
            let hash = hll::hash64(h);
            hll::insert(&mut hs[..m], p, hash);
            if winnable {
                hll::insert(&mut hs[m..], p, hash);
            }
            for state in c.members_of(h) {
                let hash = hll::hash64(state);
                hll::insert(&mut st[..m], p, hash);
                if winnable {
                    hll::insert(&mut st[m..], p, hash);
                }
            }
            regs
        },
        |set, other| hll::merge(set, other),
        |set| {
            let est = |i: usize| hll::estimate(&set[i * m..(i + 1) * m]);
            (share(est(1), est(0)), share(est(3), est(2)))
        },
    )
}

#[cfg(test)]
#[path = "headroom_tests.rs"]
mod tests;
