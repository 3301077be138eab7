//! Path metrics over the HSG (a DAG whose edges go from higher to lower hyperstate
//! numbers) and shortest wins over the SSG.
//!
//! All HSG distances count critical actions and follow distinct successor hyperstates.
//! Every pass here is a single sweep in (reverse) hyperstate order: `O(H + HSG edges)`
//! time and one `u32` (distances) or `u128` (path counts) per hyperstate.

use crate::condense::Condensation;
use crate::graph::{StateGraph, StateId, TargetBounds};
pub use crate::layered_walk::Goal;
use crate::layered_walk::{nearest_goal, Hop, Nearest};
use crate::tags::Tagging;
use serde::{Deserialize, Serialize};

/// Marks "no such path" in distance arrays.
pub const UNREACHED: u32 = u32::MAX;

/// Shortest HSG depth (critical actions) of every hyperstate from `root`; hyperstates
/// the root cannot reach get [`UNREACHED`]. Predecessors have higher numbers, so a
/// sweep from the highest number down relaxes every edge after its source is final.
pub fn depths_from(c: &Condensation, root: u64) -> Vec<u32> {
    let mut depth = vec![UNREACHED; c.hyperstate_count() as usize];
    if let Some(d) = depth.get_mut(root as usize) {
        *d = 0;
    }
    for h in (0..c.hyperstate_count()).rev() {
        let d = depth[h as usize];
        if d == UNREACHED {
            continue;
        }
        c.edges.for_each_successor(h, |s| {
            let slot = &mut depth[s as usize];
            *slot = (*slot).min(d.saturating_add(1));
        });
    }
    depth
}

/// Fewest critical actions from every hyperstate to one where `goal` holds (0 for the
/// goal itself), or [`UNREACHED`].
pub fn distance_to(c: &Condensation, goal: impl Fn(u64) -> bool) -> Vec<u32> {
    let mut dist: Vec<u32> = Vec::with_capacity(c.hyperstate_count() as usize);
    for h in 0..c.hyperstate_count() {
        let mut best = if goal(h) { 0 } else { UNREACHED };
        c.edges.for_each_successor(h, |s| {
            let via = dist[s as usize];
            if via != UNREACHED {
                best = best.min(via.saturating_add(1));
            }
        });
        dist.push(best);
    }
    dist
}

/// Most critical actions on a path from every hyperstate to one where `goal` holds, or
/// [`UNREACHED`] when no goal is reachable.
pub fn longest_to(c: &Condensation, goal: impl Fn(u64) -> bool) -> Vec<u32> {
    let mut longest: Vec<u32> = Vec::with_capacity(c.hyperstate_count() as usize);
    for h in 0..c.hyperstate_count() {
        let mut best = if goal(h) { 0 } else { UNREACHED };
        c.edges.for_each_successor(h, |s| {
            let via = longest[s as usize];
            if via != UNREACHED {
                let len = via.saturating_add(1);
                best = if best == UNREACHED {
                    len
                } else {
                    best.max(len)
                };
            }
        });
        longest.push(best);
    }
    longest
}

/// The length of a walk: its actions and how many of them are critical.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WalkLength {
    /// Actions (SSG transitions).
    pub actions: u64,
    /// Actions between two hyperstates.
    pub critical: u32,
}

/// The shortest walk from `start` to a state where `goal` holds, measured: the very
/// walk [`crate::explain::shortest_walk`] finds and `hsg path` prints (breadth first in
/// stored edge order, every state reached from its first parent, the first goal of
/// the nearest layer), its critical actions counted by `hyperstate_of`. Both figures
/// describe that one walk: the fewest critical actions of any winning walk is another
/// walk's figure (the shortest HSG path, [`winning_path_lengths`]).
///
/// On a run numbered breadth first from state 0 (every stored run) the walk is rebuilt
/// from the layers without a search ([`crate::layered_walk`], which passes over the
/// blocks of rows that `bounds` rules out); otherwise it is searched for, as below.
///
/// Memory of the search: a visited bitset (1/8 byte per state) and two frontiers of
/// state ids, each with the critical actions of its walk, plus the candidates of one
/// block (below).
///
/// On every core: each layer's frontier is taken in blocks, whose pieces the threads
/// read at once (rows, hyperstates), listing the targets not yet visited when the block
/// starts; those lists are then visited in frontier order on one thread, so that every
/// state keeps its first parent and the walk is the one a single thread finds.
pub fn shortest_walk_length<G: StateGraph + ?Sized>(
    g: &G,
    start: StateId,
    hyperstate_of: impl Fn(StateId) -> u64 + Sync,
    (goal, bounds): (Goal, Option<&TargetBounds>),
) -> Option<WalkLength> {
    match nearest_goal(g, start, goal, bounds) {
        Nearest::Walk(hops) => return Some(length_of(&hops, &hyperstate_of)),
        Nearest::NoGoal => return None,
        Nearest::Search => {}
    }
    let is_target = |s: StateId| goal.holds(g, s);
    let threads = crate::parallel::threads_for(g.edge_count());
    shortest_walk_length_on(g, start, (&hyperstate_of, &is_target), threads, WALK_BLOCK)
}

/// The length of a walk given by its steps, its critical actions counted by
/// `hyperstate_of`.
fn length_of(hops: &[Hop], hyperstate_of: &impl Fn(StateId) -> u64) -> WalkLength {
    let critical = hops
        .iter()
        .filter(|&&(from, _, to)| hyperstate_of(from) != hyperstate_of(to))
        .count();
    WalkLength {
        actions: hops.len() as u64,
        critical: critical as u32,
    }
}

/// Frontier entries a thread reads in one block of the shortest-walk search: large
/// enough that starting the threads costs little beside the block's rows, small enough
/// that the candidates (16 bytes each) stay a few MiB.
const WALK_BLOCK: usize = 1 << 15;

/// One entry of the shortest walk's frontiers: a state and the critical actions of the
/// walk that reached it.
type Reached = (StateId, u32);

/// [`shortest_walk_length`] on `threads` threads, blocks of `block` entries a thread.
pub(crate) fn shortest_walk_length_on<G: StateGraph + ?Sized>(
    g: &G,
    start: StateId,
    (hyperstate_of, is_target): (
        &(dyn Fn(StateId) -> u64 + Sync),
        &(dyn Fn(StateId) -> bool + Sync),
    ),
    threads: usize,
    block: usize,
) -> Option<WalkLength> {
    let n = g.state_count();
    if start >= n {
        return None;
    }
    let mut visited = vec![0u64; n.div_ceil(64) as usize];
    visited[(start / 64) as usize] |= 1 << (start % 64);
    let mut frontier: Vec<Reached> = vec![(start, 0)];
    let mut next = Vec::new();
    let mut actions = 0;
    while !frontier.is_empty() {
        if let Some(critical) = first_target(&frontier, is_target, threads) {
            return Some(WalkLength { actions, critical });
        }
        let chunks: Vec<&[Reached]> = frontier.chunks(block.max(1) * threads.max(1)).collect();
        for (k, entries) in chunks.iter().enumerate() {
            // The next block's rows are read ahead while this one's are searched.
            if let Some(next) = chunks.get(k + 1) {
                let (first, last) = (next[0].0, next[next.len() - 1].0);
                if first <= last {
                    g.will_read(first..last + 1, true);
                }
            }
            // Small blocks (the first layers) stay on this thread.
            let threads = if entries.len() < block { 1 } else { threads };
            let lists = crate::parallel::map_ranges(entries.len() as u64, threads, |r| {
                let piece = &entries[r.start as usize..r.end as usize];
                unvisited_targets(g, piece, &visited, hyperstate_of)
            });
            for (t, critical) in lists.into_iter().flatten() {
                let (word, bit) = ((t / 64) as usize, 1u64 << (t % 64));
                if visited[word] & bit == 0 {
                    visited[word] |= bit;
                    next.push((t, critical));
                }
            }
        }
        std::mem::swap(&mut frontier, &mut next);
        next.clear();
        actions += 1;
    }
    None
}

/// The critical actions of the first entry of `frontier` (in order) that is a target.
fn first_target(
    frontier: &[Reached],
    is_target: &(dyn Fn(StateId) -> bool + Sync),
    threads: usize,
) -> Option<u32> {
    let threads = if frontier.len() < WALK_BLOCK {
        1
    } else {
        threads
    };
    let firsts = crate::parallel::map_ranges(frontier.len() as u64, threads, |r| {
        frontier[r.start as usize..r.end as usize]
            .iter()
            .find(|&&(s, _)| is_target(s))
            .map(|&(_, critical)| critical)
    });
    firsts.into_iter().flatten().next()
}

/// The targets of `piece`'s rows not in `visited`, in order (with repeats), each with
/// the critical actions of the walk through the entry that reached it.
fn unvisited_targets<G: StateGraph + ?Sized>(
    g: &G,
    piece: &[Reached],
    visited: &[u64],
    hyperstate_of: &(dyn Fn(StateId) -> u64 + Sync),
) -> Vec<Reached> {
    let mut found = Vec::new();
    for &(s, critical) in piece {
        let mut from = None;
        for i in g.edge_range(s) {
            let t = g.edge(i).1;
            if visited[(t / 64) as usize] >> (t % 64) & 1 == 0 {
                let h = *from.get_or_insert_with(|| hyperstate_of(s));
                found.push((t, critical + u32::from(hyperstate_of(t) != h)));
            }
        }
    }
    found
}

/// Number of distinct winning HSG paths: exact while it fits 128 bits, else only as a
/// base-2 logarithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PathCount {
    /// The exact count, when it fits in `u128` (serialised as a decimal string).
    #[serde(with = "opt_u128_string")]
    pub exact: Option<u128>,
    /// `log2` of the count (`-inf` is written as `null` for zero paths).
    pub log2: Option<f64>,
}

mod opt_u128_string {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<u128>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|x| x.to_string()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u128>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| t.parse().map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// Counts the winning HSG paths from `root`: sequences of hyperstates joined by HSG
/// edges (parallel labelled edges count once) that end in a hyperstate containing a
/// target state. A target hyperstate with successors ends one path and continues others.
pub fn count_winning_paths(c: &Condensation, tagging: &Tagging, root: u64) -> PathCount {
    if root >= c.hyperstate_count() {
        return PathCount {
            exact: Some(0),
            log2: None,
        };
    }
    if let Some(exact) = count_exact(c, tagging, root) {
        let log2 = (exact > 0).then(|| log2_u128(exact));
        return PathCount {
            exact: Some(exact),
            log2,
        };
    }
    PathCount {
        exact: None,
        log2: count_log2(c, tagging, root),
    }
}

fn count_exact(c: &Condensation, tagging: &Tagging, root: u64) -> Option<u128> {
    let mut paths: Vec<u128> = Vec::with_capacity(c.hyperstate_count() as usize);
    for h in 0..=root {
        let mut total = u128::from(tagging.contains_target(h));
        let mut overflow = false;
        c.edges
            .for_each_successor(h, |s| match total.checked_add(paths[s as usize]) {
                Some(t) => total = t,
                None => overflow = true,
            });
        if overflow {
            return None;
        }
        paths.push(total);
    }
    paths.get(root as usize).copied()
}

fn count_log2(c: &Condensation, tagging: &Tagging, root: u64) -> Option<f64> {
    let mut log: Vec<f64> = Vec::with_capacity(c.hyperstate_count() as usize);
    for h in 0..=root {
        let mut total = if tagging.contains_target(h) {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        c.edges
            .for_each_successor(h, |s| total = log2_add(total, log[s as usize]));
        log.push(total);
    }
    log.get(root as usize).copied().filter(|x| x.is_finite())
}

/// `log2(2^a + 2^b)` without leaving the logarithmic domain.
fn log2_add(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    hi + (1.0 + (lo - hi).exp2()).log2()
}

fn log2_u128(x: u128) -> f64 {
    // f64 keeps 53 significant bits, plenty for a logarithm.
    (x as f64).log2()
}

/// How many winning HSG paths from the root have each length in critical actions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LengthHistogram {
    /// Length of the shortest winning path (index 0 of `counts`).
    pub min: u32,
    /// Length of the longest winning path.
    pub max: u32,
    /// `counts[i]` paths have length `min + i`; `f64`, exact up to 2^53.
    pub counts: Vec<f64>,
    /// Mean length over all winning paths.
    pub mean: f64,
}

/// The length distribution of winning paths from `root`, or an explanation of why it
/// was not computed (no winning path, or more than `max_cells` counters needed).
///
/// Every hyperstate that the root reaches and that reaches a win keeps one counter per
/// length between its shortest and longest win: `sum (longest - shortest + 1)` counters
/// of 8 bytes, checked against `max_cells` before any is allocated.
pub fn winning_path_lengths(
    c: &Condensation,
    tagging: &Tagging,
    root: u64,
    max_cells: u64,
) -> Result<LengthHistogram, String> {
    let shortest = distance_to(c, |h| tagging.contains_target(h));
    let longest = longest_to(c, |h| tagging.contains_target(h));
    let depth = depths_from(c, root);
    let relevant = |h: u64| {
        depth.get(h as usize).is_some_and(|&d| d != UNREACHED) && shortest[h as usize] != UNREACHED
    };
    if !relevant(root) {
        return Err("no winning path from the root".into());
    }
    let cells: u64 = (0..c.hyperstate_count())
        .filter(|&h| relevant(h))
        .map(|h| u64::from(longest[h as usize] - shortest[h as usize]) + 1)
        .sum();
    if cells > max_cells {
        return Err(format!(
            "needs {cells} counters, over the budget of {max_cells}"
        ));
    }
    let mut hist: Vec<Vec<f64>> = vec![Vec::new(); c.hyperstate_count() as usize];
    for h in (0..=root).filter(|&h| relevant(h)) {
        let base = shortest[h as usize];
        let mut counts = vec![0.0; (longest[h as usize] - base) as usize + 1];
        if tagging.contains_target(h) {
            counts[0] += 1.0;
        }
        c.edges.for_each_successor(h, |s| {
            if shortest[s as usize] == UNREACHED {
                return;
            }
            let offset = (shortest[s as usize] + 1 - base) as usize;
            for (i, x) in hist[s as usize].iter().enumerate() {
                counts[offset + i] += x;
            }
        });
        hist[h as usize] = counts;
    }
    let counts = std::mem::take(&mut hist[root as usize]);
    let min = shortest[root as usize];
    let total: f64 = counts.iter().sum();
    let weighted: f64 = counts
        .iter()
        .enumerate()
        .map(|(i, x)| (f64::from(min) + i as f64) * x)
        .sum();
    if !total.is_finite() || !weighted.is_finite() {
        return Err("path counts exceed the range of f64".into());
    }
    Ok(LengthHistogram {
        min,
        max: longest[root as usize],
        counts,
        mean: weighted / total,
    })
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
