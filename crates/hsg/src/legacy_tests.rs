//! The analysis as it was before its passes ran on every core (issue 35), kept as the
//! oracle of the parallel one: the sequential two-cycle union-find, the row-by-row
//! reversibility count ([`count_reversibility`]), the single-accumulator HSG edges and the
//! single-pass validation. Random graphs must give the same components, numbering,
//! HSG edges, reversibility counts, validation errors and whole analysis, byte for byte,
//! whatever the thread count.

use crate::analysis::tests::labels;
use crate::analysis::{analyze_graph, budget_left, summarize, AnalyzeOptions};
use crate::condense::{condense_counting, member_lists_on, Condensation};
use crate::error::HsgError;
use crate::graph::{ActionId, OutcomeId, StateGraph};
use crate::hsg_edges::{csr, hsg_edges_from_list, hsg_edges_on, HsgEdges};
use crate::ids::IdVec;
use crate::mem::MemGraph;
use crate::one_way::OneWayFate;
use crate::one_way::{OneWayList, OneWays};
use crate::persist::SavedAnalysis;
use crate::progress::StepTimes;
use crate::reversibility::{count_reversibility, from_counts};
use crate::scc::{direct_components_in, Components};
use crate::scc_contract::{
    two_cycle_classes, two_cycle_classes_recording, ClassRows, Classes, WORTHWHILE_RATIO,
};
use crate::scc_search::components_over;
use crate::state_arrays::{Backing, Words};
use crate::summary::Source;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// True when `t` has an edge back to `s`.
fn has_edge_to<G: StateGraph + ?Sized>(g: &G, t: u64, s: u64) -> bool {
    g.edge_range(t).any(|position| g.edge(position).1 == s)
}

fn find(up: &mut [u32], mut x: u64) -> u64 {
    loop {
        let d = u64::from(up[x as usize]);
        if d == 0 {
            return x;
        }
        let parent = x - d;
        let d2 = u64::from(up[parent as usize]);
        if d2 == 0 {
            return parent;
        }
        let grandparent = parent - d2;
        up[x as usize] = (x - grandparent) as u32;
        x = grandparent;
    }
}

/// The sequential two-cycle classes, as before.
fn legacy_classes<G: StateGraph + ?Sized>(g: &G) -> Classes<u32> {
    let n = g.state_count();
    let mut up = vec![0u32; n as usize];
    for s in 0..g.expanded_count() {
        for position in g.edge_range(s) {
            let t = g.edge(position).1;
            if t <= s {
                continue;
            }
            let (rs, rt) = (find(&mut up, s), find(&mut up, t));
            if rs != rt && has_edge_to(g, t, s) {
                let (low, high) = (rs.min(rt), rs.max(rt));
                up[high as usize] = (high - low) as u32;
            }
        }
    }
    let mut count = 0u64;
    for s in 0..n as usize {
        let d = up[s] as usize;
        up[s] = if d == 0 {
            count += 1;
            (count - 1) as u32
        } else {
            up[s - d]
        };
    }
    Classes {
        of_state: Words::Heap(up),
        count,
    }
}

/// The components as before: sequential classes, then the search over them (or over the
/// states when the classes are too many).
fn legacy_components<G: StateGraph + ?Sized>(g: &G) -> Components {
    let n = g.state_count();
    let classes = legacy_classes(g);
    if classes.count * WORTHWHILE_RATIO > n {
        return direct_components_in(g, &Backing::Heap, u64::MAX).unwrap();
    }
    let rows = ClassRows::<u32>::build(g, &classes, &Backing::Heap, 1).unwrap();
    let of_class = components_over(&rows, classes.count, &Backing::Heap).unwrap();
    let of_state: Vec<u32> = classes
        .of_state
        .iter()
        .map(|&c| of_class.of_state.at(u64::from(c)) as u32)
        .collect();
    Components {
        of_state: IdVec::U32(of_state.into()),
        count: of_class.count,
    }
}

/// The labelled HSG edges by a plain map of every critical action.
fn legacy_hsg_edges<G: StateGraph + ?Sized>(g: &G, c: &Components) -> (HsgEdges, u64) {
    let mut map: BTreeMap<(u64, u64, ActionId), u64> = BTreeMap::new();
    let mut critical = 0;
    for s in 0..g.state_count() {
        for e in g.edge_range(s) {
            let (a, t) = g.edge(e);
            let (h, th) = (c.of_state.at(s), c.of_state.at(t));
            if h != th {
                critical += 1;
                *map.entry((h, th, a)).or_default() += 1;
            }
        }
    }
    let counted = map.into_iter().map(|((s, t, a), m)| (s, t, a, m)).collect();
    (csr(counted, c.count), critical)
}

/// The member lists by a plain scan of the states for every hyperstate's members.
fn legacy_member_lists(c: &Components) -> (Vec<u64>, IdVec) {
    let mut lists = vec![Vec::new(); c.count as usize];
    for s in 0..c.of_state.len() as u64 {
        lists[c.of_state.at(s) as usize].push(s as u32);
    }
    let mut offsets = vec![0u64];
    for list in &lists {
        offsets.push(offsets.last().unwrap() + list.len() as u64);
    }
    (offsets, IdVec::U32(lists.concat().into()))
}

/// Every transition without an edge back (self-loops go back), as `(source, target,
/// action)`, sorted.
fn legacy_one_way<G: StateGraph + ?Sized>(g: &G) -> Vec<(u64, u64, ActionId)> {
    let mut one_way = Vec::new();
    for s in 0..g.expanded_count() {
        for position in g.edge_range(s) {
            let (a, t) = g.edge(position);
            if t != s && !has_edge_to(g, t, s) {
                one_way.push((s, t, a));
            }
        }
    }
    one_way.sort_unstable();
    one_way
}

/// The entries of a recorded list, sorted.
fn entries(list: &OneWayList<u32>) -> Vec<(u64, u64, ActionId)> {
    let parts = list.map_parts(|it| {
        it.map(|e| (u64::from(e.source), u64::from(e.target), e.action))
            .collect::<Vec<_>>()
    });
    let mut all = parts.concat();
    all.sort_unstable();
    all
}

fn legacy_condense<G: StateGraph + ?Sized>(g: &G) -> Condensation {
    let components = legacy_components(g);
    let (member_offsets, members) = legacy_member_lists(&components);
    let (edges, critical_actions) = legacy_hsg_edges(g, &components);
    Condensation {
        components,
        member_offsets,
        members,
        edges,
        critical_actions,
    }
}

/// The whole analysis as before, for the default options (target `win`, outcome 0).
fn legacy_analysis<G: StateGraph + ?Sized>(g: &G) -> crate::Analysis {
    use crate::paths::{depths_from, distance_to};
    let opts = AnalyzeOptions::default();
    let target: OutcomeId = 0;
    crate::graph::validate(g).unwrap();
    let c = legacy_condense(g);
    let left = budget_left(&c, opts.mem_budget_bytes).unwrap();
    let tagging = crate::tags::tag_hyperstates(g, &c, target);
    let root = c.hyperstate_of(0);
    let depth = depths_from(&c, root);
    let win_distance = distance_to(&c, |h| tagging.contains_target(h));
    let spectrum = crate::spectrum::failure_spectrum(&c, &tagging, &win_distance, root);
    let (headroom, note) = match crate::headroom::compute_headroom(&c, &tagging, left) {
        Ok(h) => (Some(h), None),
        Err(why) => (None, Some(why)),
    };
    let mut a = crate::Analysis {
        summary: Default::default(),
        condensation: c,
        tagging,
        root,
        depth,
        win_distance,
        spectrum,
        headroom,
    };
    let rev = count_reversibility(g, &a.condensation);
    a.summary = summarize(
        g,
        &labels(),
        &a,
        (Source::default(), target, None),
        note,
        left / 8,
        (rev, &mut StepTimes::start()),
    );
    a.summary.target = "win".into();
    a
}

/// Random games with many two-cycles (most moves of most games go both ways), some
/// one-way edges, partial expansion and outcomes, and up to four actions.
fn arbitrary_game(max_states: u64) -> impl Strategy<Value = MemGraph> {
    (2u64..max_states).prop_flat_map(|n| {
        let edge = (0..n, 0u16..4, 0..n, any::<bool>());
        (
            Just(n),
            1..=n,
            proptest::collection::vec(edge, 0..(3 * n as usize)),
            proptest::collection::vec((0..n, 0u16..2), 0..4),
        )
            .prop_map(|(n, expanded, edges, terminals)| game(n, expanded, &edges, &terminals))
    })
}

fn game(
    n: u64,
    expanded: u64,
    edges: &[(u64, u16, u64, bool)],
    terminals: &[(u64, u16)],
) -> MemGraph {
    let terminal: std::collections::BTreeSet<u64> = terminals.iter().map(|t| t.0).collect();
    let mut all = Vec::new();
    for &(s, a, t, both) in edges {
        all.push((s, a, t));
        if both {
            all.push((t, (a + 1) % 4, s));
        }
    }
    // Only expanded, non-terminal states have transitions.
    all.retain(|e| e.0 < expanded && !terminal.contains(&e.0));
    MemGraph::partial(n, expanded, &all, terminals).unwrap()
}

/// The saved form of an analysis (NaN headroom values read as absent) and its summary
/// as JSON: what `hsg analyze` writes and `hsg report --json` prints.
fn saved(a: &crate::Analysis) -> (SavedAnalysis, String) {
    (
        SavedAnalysis::from_analysis(a),
        serde_json::to_string(&a.summary).unwrap(),
    )
}

proptest! {
    #[test]
    fn the_whole_analysis_is_the_legacy_one(g in arbitrary_game(40)) {
        let new = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
        prop_assert_eq!(saved(&new), saved(&legacy_analysis(&g)));
    }

    #[test]
    fn every_pass_on_several_threads_is_the_legacy_one(g in arbitrary_game(60), threads in 1usize..5) {
        let old = legacy_classes(&g);
        let (classes, pass) = two_cycle_classes::<_, u32>(&g, &Backing::Heap, threads).unwrap();
        prop_assert_eq!(&classes.of_state, &old.of_state);
        prop_assert_eq!(classes.count, old.count);
        let c = legacy_components(&g);
        let (edges, critical) = hsg_edges_on(&g, &c, threads);
        prop_assert_eq!((&edges, critical), (&legacy_hsg_edges(&g, &c).0, legacy_hsg_edges(&g, &c).1));
        let condensation = legacy_condense(&g);
        prop_assert_eq!(from_counts(&pass, &edges), count_reversibility(&g, &condensation));
        let rows = |t| {
            let r = ClassRows::<u32>::build(&g, &classes, &Backing::Heap, t).unwrap();
            (0..classes.count).map(|c| crate::scc_rows::Rows::row(&r, c).map(|p| crate::scc_rows::Rows::target(&r, p)).collect::<Vec<_>>()).collect::<Vec<_>>()
        };
        prop_assert_eq!(rows(threads), rows(1));
        prop_assert_eq!(crate::graph::check_rows_on(&g, g.state_count(), g.expanded_count(), threads).is_ok(), true);
        prop_assert_eq!(member_lists_on(&c, &Backing::Heap, threads).unwrap(), legacy_member_lists(&c));
    }

    #[test]
    fn the_recorded_one_way_transitions_replace_the_passes(g in arbitrary_game(60), threads in 1usize..5) {
        let (classes, pass, list) =
            two_cycle_classes_recording::<_, u32>(&g, &Backing::Heap, threads, crate::two_cycles::Rooms { list: Some(u64::MAX), buffers: None }, &mut StepTimes::start()).unwrap();
        let old = legacy_classes(&g);
        prop_assert_eq!(&classes.of_state, &old.of_state);
        prop_assert_eq!(&pass, &two_cycle_classes::<_, u32>(&g, &Backing::Heap, 1).unwrap().1);
        let list = list.expect("an unbounded room keeps the list");
        prop_assert_eq!(entries(&list), legacy_one_way(&g));
        let rows = |r: &ClassRows<u32>| (0..classes.count).map(|c| crate::scc_rows::Rows::row(r, c).map(|p| crate::scc_rows::Rows::target(r, p)).collect::<Vec<_>>()).collect::<Vec<_>>();
        let from_list = ClassRows::<u32>::from_list(&list, &classes, &Backing::Heap).unwrap();
        let by_rows = ClassRows::<u32>::build(&g, &classes, &Backing::Heap, 1).unwrap();
        prop_assert_eq!(rows(&from_list), rows(&by_rows));
        let c = legacy_components(&g);
        prop_assert_eq!(hsg_edges_from_list(&OneWays::from(list), &c), legacy_hsg_edges(&g, &c));
    }

    #[test]
    fn a_list_short_of_room_falls_back_to_the_passes(g in arbitrary_game(60), room in 0u64..400) {
        let (condensation, ..) = condense_counting(&g, &Backing::Heap, u64::MAX, Some(room)).unwrap();
        prop_assert_eq!(condensation, legacy_condense(&g));
    }
}

/// A graph whose rows can be anything, for the validation's errors.
#[derive(Debug)]
struct Broken {
    rows: Vec<std::ops::Range<u64>>,
    targets: Vec<u64>,
    expanded: u64,
}

impl StateGraph for Broken {
    fn state_count(&self) -> u64 {
        self.rows.len() as u64
    }
    fn expanded_count(&self) -> u64 {
        self.expanded
    }
    fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }
    fn edge_range(&self, state: u64) -> std::ops::Range<u64> {
        self.rows[state as usize].clone()
    }
    fn edge(&self, index: u64) -> (ActionId, u64) {
        (
            0,
            self.targets
                .get(index as usize)
                .copied()
                .unwrap_or(u64::MAX),
        )
    }
    fn outcome(&self, _: u64) -> Option<OutcomeId> {
        None
    }
    fn for_each_terminal(&self, _: &mut dyn FnMut(u64, OutcomeId)) {}
}

/// The validation in one sequential pass, as before (its messages verbatim).
fn legacy_check_rows(g: &Broken) -> Result<(), String> {
    let (n, expanded) = (g.state_count(), g.expanded_count());
    let mut next_start = 0;
    for state in 0..n {
        let row = g.edge_range(state);
        if state >= expanded {
            if !row.is_empty() {
                return Err(format!(
                    "state {state} was never expanded (expanded count {expanded}) but has edges"
                ));
            }
            continue;
        }
        if row.start != next_start || row.end < row.start || row.end > g.edge_count() {
            return Err(format!(
                "out-row of state {state} is {}..{}, expected to start at {next_start} and end by {}",
                row.start,
                row.end,
                g.edge_count()
            ));
        }
        for index in row.clone() {
            let target = g.edge(index).1;
            if target >= n {
                return Err(format!(
                    "edge {index} from state {state} targets state {target}, but only {n} states exist"
                ));
            }
        }
        next_start = row.end;
    }
    if next_start != g.edge_count() {
        return Err(format!(
            "rows cover {next_start} edges but the graph has {}",
            g.edge_count()
        ));
    }
    Ok(())
}

fn broken_graph() -> impl Strategy<Value = Broken> {
    (1usize..30).prop_flat_map(|n| {
        (
            proptest::collection::vec(0u64..4, n),
            proptest::collection::vec(0u64..(n as u64 + 1), 0..(4 * n)),
            0..=n as u64,
            proptest::collection::vec((0..n, 0u64..3, 0u64..3), 0..3),
        )
            .prop_map(|(degrees, targets, expanded, damage)| {
                let mut rows = Vec::new();
                let mut at = 0u64;
                for (s, d) in degrees.iter().enumerate() {
                    let d = if (s as u64) < expanded { *d } else { 0 };
                    rows.push(at..at + d);
                    at += d;
                }
                let mut targets = targets;
                targets.resize(at as usize, 0);
                // Shift some rows' ends to break their continuity.
                for (s, a, b) in damage {
                    rows[s] = rows[s].start + a..rows[s].end + b;
                }
                Broken {
                    rows,
                    targets,
                    expanded,
                }
            })
    })
}

proptest! {
    #[test]
    fn the_parallel_validation_reports_the_sequential_ones_first_error(g in broken_graph(), threads in 1usize..5) {
        let got = crate::graph::check_rows_on(&g, g.state_count(), g.expanded_count(), threads)
            .map(|_| ())
            .map_err(|e| match e {
                HsgError::MalformedGraph(m) => m,
                other => other.to_string(),
            });
        prop_assert_eq!(got, legacy_check_rows(&g));
    }
}

/// A graph large enough for every pass to run on several threads: a grid of rooms
/// walked both ways, one-way doors between them, dead ends and a win.
#[test]
fn a_large_game_is_analysed_as_before_on_every_core() {
    let n = 150_000u64;
    let mut edges = Vec::new();
    for s in 0..n - 1 {
        if s % 97 != 0 {
            edges.push((s, 0, s + 1));
            edges.push((s + 1, 1, s));
        } else {
            edges.push((s, 2, s + 1));
        }
        if s % 13 == 0 && s + 40 < n {
            edges.push((s, 3, s + 40));
        }
        if s % 29 == 0 && s + 5 < n {
            edges.push((s + 5, 2, s));
        }
    }
    edges.sort_by_key(|e| e.0);
    let g = MemGraph::new(n, &edges, &[(n - 1, 0), (n / 2, 1)]).unwrap();
    let new = analyze_graph(&g, &labels(), &AnalyzeOptions::default(), Source::default()).unwrap();
    assert_eq!(saved(&new), saved(&legacy_analysis(&g)));
    assert!(new.condensation.hyperstate_count() > 100);
    // The list of one-way transitions kept (unbounded), cut short in its second chunk,
    // or kept but leaving too little room for the search: the same condensation.
    let legacy = legacy_condense(&g);
    for room in [u64::MAX, 20_000, 200_000] {
        let (condensation, _, report) =
            condense_counting(&g, &Backing::Heap, u64::MAX, Some(room)).unwrap();
        let fate = report.fate;
        assert!(condensation == legacy, "room {room}");
        // What the analysis tells of the list names the case.
        let told = match fate {
            OneWayFate::Kept { .. } => u64::MAX,
            OneWayFate::Outgrew { room } => room,
            OneWayFate::LeftTooLittle { .. } => 200_000,
            other => panic!("{other}"),
        };
        assert_eq!(told, room, "{fate}");
    }
}

/// The oracle itself must catch a wrong count (a test that cannot fail is no test).
#[test]
fn the_oracle_sees_a_changed_count() {
    let g = game(4, 4, &[(0, 0, 1, true), (1, 1, 2, false)], &[(3, 0)]);
    let mut a = legacy_analysis(&g);
    assert_eq!(saved(&a), saved(&legacy_analysis(&g)));
    a.summary.immediately_reversible_actions += 1;
    assert_ne!(saved(&a), saved(&legacy_analysis(&g)));
}
