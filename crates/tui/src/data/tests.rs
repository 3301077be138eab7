//! Tests of the data layer on the in-memory fixture.

use super::fixture::two_boxes;
use super::*;

#[test]
fn fixture_has_wins_fails_and_reversible_moves() {
    let f = two_boxes(None).unwrap();
    let o = f.overview();
    eprintln!("{o:#?}");
    assert!(o.tags[Tag::Win as usize] > 0);
    assert!(o.tags[Tag::Fail as usize] > 0);
    assert!(o.hyperstates < o.states);
    let root = f.root();
    let d = f.details(root).unwrap();
    eprintln!("{d:#?}");
    let m = f.member(root, 0).unwrap();
    eprintln!("{}", m.text);
    assert!(m.moves.iter().any(|mv| mv.target_hyperstate == root));
}

#[test]
fn orders_sort_filter_and_invert_consistently() {
    let f = two_boxes(None).unwrap();
    let o = f.order(SortKey::Size, true, None);
    assert_eq!(o.len(), f.hyperstate_count());
    let sizes: Vec<u64> = (0..o.len())
        .map(|i| f.row(o.at(i).unwrap()).unwrap().size)
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    for i in 0..o.len() {
        assert_eq!(o.position(o.at(i).unwrap()), Some(i));
    }
    let wins = f.order(SortKey::Id, false, Some(Tag::Win));
    assert_eq!(wins.len(), f.overview().tags[Tag::Win as usize]);
    let not_win = (0..f.hyperstate_count()).find(|&h| f.row(h).unwrap().tag != Tag::Win);
    assert_eq!(wins.position(not_win.unwrap()), None);
    assert_eq!(Order::identity(5).position(7), None);
}

#[test]
fn paths_follow_depths_and_distances() {
    let f = two_boxes(None).unwrap();
    for h in 0..f.hyperstate_count() {
        let row = f.row(h).unwrap();
        let p = f.path_from_root(h);
        match row.depth {
            Some(d) => {
                assert_eq!(p.len() as u32, d + 1);
                assert_eq!((p[0], *p.last().unwrap()), (f.root(), h));
            }
            None => assert!(p.is_empty()),
        }
        let win = f.path_to_win(h);
        assert_eq!(win.len() as u32, row.win_distance.map_or(0, |d| d + 1));
        if let Some(&end) = win.last() {
            assert!(f.details(end).unwrap().contains_target);
        }
        let loss = f.path_to_loss(h);
        if let Some(&end) = loss.last() {
            assert!(f.row(end).unwrap().tag.is_lost());
        }
    }
}

#[test]
fn neighbourhoods_grow_both_ways_and_respect_the_cap() {
    let f = two_boxes(None).unwrap();
    let center = 55;
    let n = f.neighbourhood(center, 1, 1000);
    let mut expected = vec![center];
    f.for_each_successor(center, &mut |s| expected.push(s));
    f.for_each_predecessor(center, &mut |p| expected.push(p));
    expected.sort_unstable();
    expected.dedup();
    let mut got = n.nodes.clone();
    got.sort_unstable();
    assert_eq!(got, expected);
    assert!(n
        .edges
        .iter()
        .all(|&(a, b)| (a as usize) < n.nodes.len() && (b as usize) < n.nodes.len()));
    let capped = f.neighbourhood(f.root(), u32::MAX, 10);
    assert_eq!(capped.nodes.len(), 10);
    assert!(capped.truncated);
    let whole = f.neighbourhood(f.root(), u32::MAX, 1000);
    assert_eq!(whole.nodes.len() as u64, f.hyperstate_count());
}

#[test]
fn search_understands_numbers_states_tags_and_text() {
    let f = two_boxes(None).unwrap();
    let found = |q: &str, from| match f.search(q, from) {
        SearchHit::Found { hyperstate, .. } => Some(hyperstate),
        SearchHit::NotFound(_) => None,
    };
    assert_eq!(found("12", 0), Some(12));
    assert_eq!(found("h12", 0), Some(12));
    assert_eq!(found("#0", 3), Some(f.root()));
    assert_eq!(found("s99999", 0), None);
    let w = found("win", 0).unwrap();
    assert_eq!(f.row(w).unwrap().tag, Tag::Win);
    assert_ne!(
        found("win", w),
        Some(w),
        "the next match is another hyperstate"
    );
    assert_eq!(
        found("eventually", 58).map(|h| f.row(h).unwrap().tag),
        Some(Tag::EventuallyWinnable)
    );
    assert!(found("*", f.root()).is_some());
    assert_eq!(found("no such board", 0), None);
    assert_eq!(found("  ", 0), None);
}

/// A saved view that counts the edges read through it.
struct CountingView {
    inner: hsg::SavedAnalysis,
    edges_read: std::sync::atomic::AtomicU64,
}

impl hsg::SavedView for CountingView {
    fn summary(&self) -> &hsg::summary::HsgSummary {
        self.inner.summary()
    }
    fn hyperstate_count(&self) -> u64 {
        self.inner.hyperstate_count()
    }
    fn state_count(&self) -> u64 {
        self.inner.state_count()
    }
    fn component(&self, s: u64) -> Option<u64> {
        self.inner.component(s)
    }
    fn member_range(&self, h: u64) -> std::ops::Range<u64> {
        self.inner.member_range(h)
    }
    fn member(&self, i: u64) -> Option<u64> {
        self.inner.member(i)
    }
    fn edge_range(&self, h: u64) -> std::ops::Range<u64> {
        self.inner.edge_range(h)
    }
    fn edge_count(&self) -> u64 {
        self.inner.edge_count()
    }
    fn edge(&self, i: u64) -> Option<hsg::SavedEdge> {
        use std::sync::atomic::Ordering;
        self.edges_read.fetch_add(1, Ordering::Relaxed);
        self.inner.edge(i)
    }
    fn hyperstate(&self, h: u64) -> Option<hsg::HyperstateInfo> {
        self.inner.hyperstate(h)
    }
    fn ideal_path(&self) -> &[u64] {
        self.inner.ideal_path()
    }
}

#[test]
fn overlapping_rows_of_an_unverified_analysis_are_read_once() {
    // Regression: the in-edges built at load walked every hyperstate's row, so damaged
    // edge offsets alternating 0, E, 0, E (each row valid alone) read all E edges once
    // per second hyperstate before the first screen, quadratic in the run's size.
    let edges: Vec<(u64, u16, u64)> = (0..40).map(|s| (s, 0, s + 1)).collect();
    let graph = hsg::MemGraph::new(41, &edges, &[(40, 0)]).unwrap();
    let labels = hsg::Labels {
        actions: vec!["go".into()],
        outcomes: vec!["win".into()],
    };
    let a = hsg::analyze_graph(&graph, &labels, &Default::default(), Default::default());
    let mut saved = hsg::SavedAnalysis::from_analysis(&a.unwrap());
    let (h, e) = (saved.hyperstates.len(), saved.edges.len());
    assert!(h > 20 && e > 20, "{h} hyperstates, {e} edges");
    saved.edges.offsets = (0..=h as u64)
        .map(|i| if i % 2 == 1 { e } else { 0 })
        .collect();
    let view = CountingView {
        inner: saved,
        edges_read: Default::default(),
    };
    drop(analysis::reverse_edges(&view));
    let read = view.edges_read.into_inner();
    assert!(read <= 2 * e, "{read} edge reads for {e} edges");
}
