//! End-to-end tests of [`analyze_graph`] and its JSON summary.

use super::*;
use crate::error::HsgError;
use crate::graph::{Labels, StateGraph};
use crate::mem::MemGraph;
use crate::tags::Tag;

pub(crate) fn labels() -> Labels {
    Labels {
        actions: ["up", "down", "left", "right"].map(String::from).to_vec(),
        outcomes: ["win", "fail"].map(String::from).to_vec(),
    }
}

/// Root {0,1} (0 <-> 1), 1 -> 2 <-> 3 ring -> 4 win; 0 -> 5 loss terminal;
/// 0 -> 6 <-> 7 sink cycle (fail leaf).
pub(crate) fn sample() -> MemGraph {
    let edges = [
        (0, 0, 1),
        (1, 1, 0),
        (1, 2, 2),
        (2, 0, 3),
        (3, 1, 2),
        (3, 3, 4),
        (0, 2, 5),
        (0, 3, 6),
        (6, 0, 7),
        (7, 1, 6),
    ];
    MemGraph::new(8, &edges, &[(4, 0), (5, 1)]).unwrap()
}

#[test]
fn summary_of_a_small_game() {
    let a = analyze_graph(
        &sample(),
        &labels(),
        &AnalyzeOptions::default(),
        Source::default(),
    )
    .unwrap();
    let s = &a.summary;
    assert_eq!(s.hyperstates, 5);
    assert!((s.compression - (1.0 - 5.0 / 8.0)).abs() < 1e-12);
    assert_eq!(s.critical_actions, 4);
    assert_eq!(s.hsg_edges, 4);
    assert_eq!(s.tags.win, 1);
    assert_eq!(s.tags.fail, 2);
    assert_eq!(s.tags.eventually_winnable, 2);
    assert_eq!(s.root_tag, Tag::EventuallyWinnable);
    assert_eq!(s.immediately_reversible_actions, 6);
    assert_eq!(s.eventually_reversible_actions, 0);
    assert_eq!(s.shortest_win.actions, Some(4));
    assert_eq!(s.shortest_win.critical_actions, Some(2));
    assert_eq!(s.winning_paths.count.exact, Some(1));
    assert_eq!(s.failure_spectrum.root_loss_distance, Some(1));
    assert_eq!(
        s.failure_spectrum.ideal_path_profile,
        vec![Some(1), None, None]
    );
    assert!(!s.provisional);
    let hr = s.headroom.as_ref().unwrap();
    assert!((hr.root_one_step.unwrap() - 1.0 / 3.0).abs() < 1e-6);
}

#[test]
fn json_has_the_keys_the_report_promises() {
    let a = analyze_graph(
        &sample(),
        &labels(),
        &AnalyzeOptions::default(),
        Source::default(),
    )
    .unwrap();
    let v = serde_json::to_value(&a.summary).unwrap();
    for key in [
        "hyperstates",
        "critical_actions",
        "hsg_edges",
        "compression",
        "tags",
        "root_tag",
        "immediately_reversible_actions",
        "eventually_reversible_actions",
        "headroom",
        "failure_spectrum",
        "shortest_win",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for tag in [
        "win",
        "fail",
        "eventually_winnable",
        "implicitly_failed",
        "unknown",
    ] {
        assert!(v["tags"].get(tag).is_some(), "missing tags.{tag}");
    }
    assert_eq!(v["root_tag"], "eventually_winnable");
    assert!(v["shortest_win"].get("critical_actions").is_some());
    let back: HsgSummary = serde_json::from_value(v).unwrap();
    assert_eq!(back, a.summary);
}

#[test]
fn unknown_target_names_the_available_outcomes() {
    let opts = AnalyzeOptions {
        target: Some("draw".into()),
        ..AnalyzeOptions::default()
    };
    let err = analyze_graph(&sample(), &labels(), &opts, Source::default()).unwrap_err();
    assert!(
        err.to_string().contains("draw") && err.to_string().contains("fail"),
        "{err}"
    );
}

#[test]
fn a_budget_too_small_for_the_scc_is_refused_with_the_figures() {
    let g = sample();
    let needed = (g.state_count() as f64 * crate::scc::bytes_per_state(g.state_count())) as u64;
    let tight = AnalyzeOptions {
        mem_budget_bytes: needed.saturating_sub(1),
        ..AnalyzeOptions::default()
    };
    let err = analyze_graph(&g, &labels(), &tight, Source::default()).unwrap_err();
    assert!(matches!(err, HsgError::OverBudget { .. }), "{err}");
    assert!(err.to_string().contains("--analysis-mem"), "{err}");
    let enough = AnalyzeOptions {
        mem_budget_bytes: needed + hyperstate_bytes(&g),
        ..AnalyzeOptions::default()
    };
    assert!(analyze_graph(&g, &labels(), &enough, Source::default()).is_ok());
}

/// What the analysis of `g` holds after its SCC with the per-state arrays in files.
fn hyperstate_bytes(g: &MemGraph) -> u64 {
    let a = analyze_graph(g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
    let c = &a.condensation;
    condensation_bytes(c) - c.components.of_state.heap_bytes() - c.members.heap_bytes()
        + LATER_BYTES_PER_HYPERSTATE * c.hyperstate_count()
}

/// A game tree: state `s` leads to `2s + 1` and `2s + 2`; every state is a hyperstate.
fn tree(n: u64) -> MemGraph {
    let edges: Vec<(u64, u16, u64)> = (0..n)
        .flat_map(|s| [(s, 0, 2 * s + 1), (s, 1, 2 * s + 2)])
        .filter(|e| e.2 < n)
        .collect();
    MemGraph::new(n, &edges, &[(n - 1, 0)]).unwrap()
}

#[test]
fn hyperstates_past_the_budget_are_refused_after_the_scc_with_the_figures() {
    // Regression: `exp2.sandbox` (232 M states, each its own hyperstate) passed the
    // SCC's check under the default budget and was then killed for want of memory.
    let g = tree(20_000);
    let scc = scc_bytes_needed(g.state_count());
    let tight = AnalyzeOptions {
        mem_budget_bytes: 2 * scc,
        ..AnalyzeOptions::default()
    };
    let err = analyze_graph(&g, &labels(), &tight, Source::default()).unwrap_err();
    assert!(
        matches!(
            err,
            HsgError::HyperstatesOverBudget {
                hyperstates: 20_000,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("--analysis-mem"), "{err}");
    let enough = AnalyzeOptions {
        mem_budget_bytes: scc + 2 * hyperstate_bytes(&g),
        ..AnalyzeOptions::default()
    };
    assert!(analyze_graph(&g, &labels(), &enough, Source::default()).is_ok());
}

/// A deterministic jumble of `n` states and `e` edges, mostly local (so that it has
/// cycles of every size) with a few wins and losses.
fn scrambled(n: u64, e: usize) -> MemGraph {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let terminals: Vec<(u64, u16)> = (0..n)
        .filter(|s| s % 97 == 5)
        .map(|s| (s, (s % 2) as u16))
        .collect();
    let edges: Vec<(u64, u16, u64)> = (0..e)
        .map(|_| {
            let s = next() % n;
            let t = if next() % 4 == 0 {
                next() % n
            } else {
                (s + next() % 9) % n
            };
            (s, (next() % 4) as u16, t)
        })
        .filter(|e| e.0 % 97 != 5)
        .collect();
    MemGraph::new(n, &edges, &terminals).unwrap()
}

/// `g` with a ring through its non-terminal states added: most of them then form one
/// hyperstate.
fn cyclic(g: &MemGraph) -> MemGraph {
    let n = g.state_count();
    let terminals: Vec<(u64, u16)> = (0..n)
        .filter_map(|s| g.outcome(s).map(|o| (s, o)))
        .collect();
    let mut edges: Vec<(u64, u16, u64)> = Vec::new();
    for s in (0..n).filter(|&s| g.outcome(s).is_none()) {
        edges.extend(g.edge_range(s).map(|i| {
            let (action, target) = g.edge(i);
            (s, action, target)
        }));
        edges.push((s, 0, (s + 1) % n));
    }
    MemGraph::new(n, &edges, &terminals).unwrap()
}

#[test]
fn short_of_memory_the_analysis_moves_to_scratch_files_and_agrees() {
    let dir = tempfile::tempdir().unwrap();
    // Graphs with few hyperstates for their states, so that theirs fit the budget.
    for g in [
        cyclic(&scrambled(3_000, 9_000)),
        cyclic(&scrambled(600, 1_500)),
    ] {
        let in_ram = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default());
        // Below the SCC's arrays, but room for the hyperstates' own.
        let budget = hyperstate_bytes(&g);
        assert!(budget < scc_bytes_needed(g.state_count()), "{budget}");
        let short = AnalyzeOptions {
            mem_budget_bytes: budget,
            scratch_dir: Some(dir.path().join("scratch")),
            ..AnalyzeOptions::default()
        };
        let on_files = analyze_graph(&g, &labels(), &short, Source::default()).unwrap();
        assert!(on_files.condensation.components.of_state.is_file());
        assert!(on_files.condensation.members.is_file());
        // Headroom and the path-length histogram follow the budget; the rest must agree.
        let in_ram = in_ram.unwrap();
        assert_eq!(on_files.condensation, in_ram.condensation);
        assert_eq!(on_files.tagging, in_ram.tagging);
        assert_eq!(on_files.depth, in_ram.depth);
        assert_eq!(on_files.win_distance, in_ram.win_distance);
        assert_eq!(on_files.spectrum, in_ram.spectrum);
        assert_eq!(on_files.summary.hyperstates, in_ram.summary.hyperstates);
    }
    let left = std::fs::read_dir(dir.path().join("scratch"))
        .unwrap()
        .count();
    assert_eq!(left, 0, "scratch files are unlinked once mapped");
}

#[test]
fn partial_exploration_is_provisional() {
    let g = MemGraph::partial(3, 1, &[(0, 0, 1), (0, 1, 2)], &[(2, 1)]).unwrap();
    let a = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
    assert!(a.summary.provisional);
    assert_eq!(a.summary.open_states, 1);
    assert_eq!(a.summary.tags.unknown, 2);
    assert_eq!(a.summary.root_tag, Tag::Unknown);
}
