//! Compares the HSG of a depth-limited (or otherwise partial) run with the HSG of the
//! exhaustive run of the same level: which states one merged and the other did not,
//! how tags moved, and the metrics side by side.
//!
//! The limited run's states are found in the exhaustive run by their encoding
//! (`store::Run::find_state`), so the two runs may number states differently. Every
//! edge of the limited run is an edge of the exhaustive one, so its strongly connected
//! components only ever split the exhaustive run's: a state pair merged in the limited
//! HSG is merged in the exhaustive one. The comparison checks that rather than assume
//! it, and counts the exhaustive hyperstates the limit split.
//!
//! Time `O(n log n)` for the `n` states of the limited run (one index lookup each);
//! memory `O(h)` for the `h` exhaustive hyperstates it touches.

use crate::error::HsgError;
use crate::persist::SavedAnalysis;
use crate::tags::Tag;
use serde::Serialize;
use std::collections::HashMap;

/// One metric in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pair<T> {
    /// In the limited run.
    pub limited: T,
    /// In the exhaustive run.
    pub full: T,
}

/// What [`compare_runs`] finds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunComparison {
    /// States of the limited run found in the exhaustive one.
    pub shared_states: u64,
    /// States of the limited run the exhaustive run does not have (zero for runs of the
    /// same level and rules).
    pub missing_states: u64,
    /// Exhaustive hyperstates whose states the limited run keeps in two or more
    /// hyperstates: merges the limit prevented.
    pub split_hyperstates: u64,
    /// Limited-run states in those split hyperstates.
    pub states_in_split_hyperstates: u64,
    /// Limited hyperstates whose states lie in different exhaustive hyperstates
    /// (impossible for a sub-run; non-zero means the runs are not comparable).
    pub merged_only_in_limited: u64,
    /// Up to five pairs of limited-run state ids merged in the exhaustive HSG only.
    pub examples: Vec<(u64, u64)>,
    /// `tag_moves[a][b]`: limited-run states tagged `a` whose exhaustive hyperstate is
    /// tagged `b` (tags in the order win, fail, eventually winnable, implicitly
    /// failed, unknown).
    pub tag_moves: [[u64; 5]; 5],
    /// States.
    pub states: Pair<u64>,
    /// Hyperstates.
    pub hyperstates: Pair<u64>,
    /// Compression.
    pub compression: Pair<f64>,
    /// Critical actions.
    pub critical_actions: Pair<u64>,
    /// HSG edges.
    pub hsg_edges: Pair<u64>,
    /// Deepest HSG depth.
    pub hsg_depth: Pair<u32>,
    /// Hyperstates per tag (same order as `tag_moves`).
    pub tags: Pair<[u64; 5]>,
    /// The root's tag.
    pub root_tag: Pair<String>,
    /// Shortest win in critical actions.
    pub shortest_win_critical: Pair<Option<u32>>,
}

/// Compares `limited` (with its saved analysis) against `full`; `find` maps a
/// limited-run state id to its id in the full run (by its encoding).
pub fn compare_runs(
    limited: &SavedAnalysis,
    full: &SavedAnalysis,
    find: impl Fn(u64) -> Option<u64>,
) -> Result<RunComparison, HsgError> {
    let n = limited.component.len() as u64;
    // Per exhaustive hyperstate: the first limited hyperstate and state met in it,
    // how many limited states lie in it, and whether it is split.
    let mut by_full: HashMap<u64, FullEntry> = HashMap::new();
    let mut full_of_limited: HashMap<u64, u64> = HashMap::new();
    let mut c = Counts::default();
    for s in 0..n {
        let Some(f) = find(s) else {
            c.missing += 1;
            continue;
        };
        c.shared += 1;
        let (hl, hf) = (limited.component.at(s), full.component.at(f));
        let (Some(li), Some(fi)) = (
            limited.hyperstates.get(hl as usize),
            full.hyperstates.get(hf as usize),
        ) else {
            return Err(HsgError::MalformedGraph(format!(
                "state {s}: hyperstate {hl} or {hf} is out of range of its analysis"
            )));
        };
        c.tag_moves[li.tag as usize][fi.tag as usize] += 1;
        if *full_of_limited.entry(hl).or_insert(hf) != hf {
            c.merged_only_in_limited += 1;
        }
        let entry = by_full.entry(hf).or_insert(FullEntry {
            first_hyperstate: hl,
            first_state: s,
            states: 0,
            split: false,
        });
        entry.states += 1;
        if entry.first_hyperstate != hl {
            entry.split = true;
            if c.examples.len() < 5 {
                c.examples.push((entry.first_state, s));
            }
        }
    }
    let split: Vec<&FullEntry> = by_full.values().filter(|e| e.split).collect();
    let states_in_split = split.iter().map(|e| e.states).sum();
    Ok(assemble(
        limited,
        full,
        c,
        split.len() as u64,
        states_in_split,
    ))
}

struct FullEntry {
    first_hyperstate: u64,
    first_state: u64,
    states: u64,
    split: bool,
}

#[derive(Default)]
struct Counts {
    shared: u64,
    missing: u64,
    merged_only_in_limited: u64,
    examples: Vec<(u64, u64)>,
    tag_moves: [[u64; 5]; 5],
}

fn assemble(
    l: &SavedAnalysis,
    f: &SavedAnalysis,
    c: Counts,
    split_hyperstates: u64,
    states_in_split: u64,
) -> RunComparison {
    let (ls, fs) = (&l.summary, &f.summary);
    let pair = |a, b| Pair {
        limited: a,
        full: b,
    };
    let tags = |s: &crate::summary::HsgSummary| {
        [
            s.tags.win,
            s.tags.fail,
            s.tags.eventually_winnable,
            s.tags.implicitly_failed,
            s.tags.unknown,
        ]
    };
    RunComparison {
        shared_states: c.shared,
        missing_states: c.missing,
        split_hyperstates,
        states_in_split_hyperstates: states_in_split,
        merged_only_in_limited: c.merged_only_in_limited,
        examples: c.examples,
        tag_moves: c.tag_moves,
        states: pair(ls.states, fs.states),
        hyperstates: pair(ls.hyperstates, fs.hyperstates),
        compression: Pair {
            limited: ls.compression,
            full: fs.compression,
        },
        critical_actions: pair(ls.critical_actions, fs.critical_actions),
        hsg_edges: pair(ls.hsg_edges, fs.hsg_edges),
        hsg_depth: Pair {
            limited: ls.depth.max,
            full: fs.depth.max,
        },
        tags: Pair {
            limited: tags(ls),
            full: tags(fs),
        },
        root_tag: Pair {
            limited: name(ls.root_tag),
            full: name(fs.root_tag),
        },
        shortest_win_critical: Pair {
            limited: ls.shortest_win.critical_actions,
            full: fs.shortest_win.critical_actions,
        },
    }
}

fn name(t: Tag) -> String {
    t.name().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze_graph, AnalyzeOptions};
    use crate::graph::Labels;
    use crate::mem::MemGraph;
    use crate::summary::Source;

    fn saved(g: &MemGraph) -> SavedAnalysis {
        let labels = Labels {
            actions: vec!["a".into()],
            outcomes: vec![model::WIN.into()],
        };
        let a = analyze_graph(g, &labels, &AnalyzeOptions::default(), Source::default()).unwrap();
        SavedAnalysis::from_analysis(&a)
    }

    #[test]
    fn a_cycle_closed_beyond_the_limit_is_a_split_hyperstate() {
        // Full: 0 <-> 1 <-> 2 -> 3 (win). Limited: 2 not expanded, numbered 1 here
        // (ids differ between the runs: limited 0, 1, 2 are full 0, 2, 1).
        let full = MemGraph::new(
            4,
            &[(0, 0, 1), (1, 0, 0), (1, 0, 2), (2, 0, 1), (2, 0, 3)],
            &[(3, 0)],
        )
        .unwrap();
        // Limited: only the root expanded; its targets 1 (full 2) and 2 (full 1) open.
        let limited = MemGraph::partial(3, 1, &[(0, 0, 2), (0, 0, 1)], &[]).unwrap();
        let to_full = [0u64, 2, 1];
        let c = compare_runs(&saved(&limited), &saved(&full), |s| {
            to_full.get(s as usize).copied()
        })
        .unwrap();
        assert_eq!((c.shared_states, c.missing_states), (3, 0));
        assert_eq!(c.merged_only_in_limited, 0);
        assert_eq!(c.split_hyperstates, 1);
        assert_eq!(c.states_in_split_hyperstates, 3);
        assert_eq!(
            c.hyperstates,
            Pair {
                limited: 3,
                full: 2
            }
        );
        assert_eq!(c.root_tag.full, "eventually_winnable");
        assert_eq!(c.root_tag.limited, "unknown");
        // Every limited state is unknown; in the full run three are eventually winnable.
        assert_eq!(
            c.tag_moves[Tag::Unknown as usize][Tag::EventuallyWinnable as usize],
            3
        );
    }

    #[test]
    fn runs_of_different_levels_show_as_missing_states() {
        let g = MemGraph::new(2, &[(0, 0, 1)], &[(1, 0)]).unwrap();
        let c = compare_runs(&saved(&g), &saved(&g), |_| None).unwrap();
        assert_eq!((c.shared_states, c.missing_states), (0, 2));
    }
}
