//! Tests of headroom: hand-computed shares, and sketches against exact sets.

use super::*;
use crate::condense::condense;
use crate::mem::MemGraph;
use crate::tags::tag_hyperstates;

const WIN: u16 = 0;

fn setup(g: &MemGraph) -> (Condensation, Tagging) {
    let c = condense(g);
    let t = tag_hyperstates(g, &c, WIN);
    (c, t)
}

#[test]
fn hand_computed_shares() {
    // Root {0,1} -> 2 (win) and -> 3 (stuck); 3 is a fail leaf.
    let edges = [(0, 0, 1), (1, 0, 0), (0, 1, 2), (1, 1, 3)];
    let g = MemGraph::new(4, &edges, &[(2, WIN)]).unwrap();
    let (c, t) = setup(&g);
    let hr = compute_headroom(&c, &t, 1 << 20).unwrap();
    assert_eq!(hr.method, HeadroomMethod::Exact);
    let root = c.hyperstate_of(0) as usize;
    // Reach set {root, win, fail}: 2 of 3 hyperstates, 3 of 4 states winnable.
    assert!((hr.hyperstates[root] - 2.0 / 3.0).abs() < 1e-6);
    assert!((hr.states[root] - 0.75).abs() < 1e-6);
    assert!((hr.one_step[root] - 0.5).abs() < 1e-6);
    let win = c.hyperstate_of(2) as usize;
    assert_eq!(hr.hyperstates[win], 1.0);
    assert!(hr.one_step[win].is_nan());
    assert_eq!(hr.hyperstates[c.hyperstate_of(3) as usize], 0.0);
}

#[test]
fn sketches_agree_with_exact_sets_within_the_error_bound() {
    // A wide layered DAG: 40 layers of 30 states; each state links to three in the
    // next layer; wins in the last layer at even positions.
    let (layers, width) = (40u64, 30u64);
    let mut edges = Vec::new();
    for l in 0..layers - 1 {
        for i in 0..width {
            for k in 0..3 {
                edges.push((
                    l * width + i,
                    k as u16,
                    (l + 1) * width + (i * 7 + k * 11) % width,
                ));
            }
        }
    }
    let last = (layers - 1) * width;
    let wins: Vec<_> = (0..width).step_by(2).map(|i| (last + i, WIN)).collect();
    let g = MemGraph::new(layers * width, &edges, &wins).unwrap();
    let (c, t) = setup(&g);
    let exact = compute_headroom(&c, &t, u64::MAX).unwrap();
    let sketched = compute_headroom_sketched(&c, &t, 12);
    let HeadroomMethod::HyperLogLog {
        relative_standard_error,
        ..
    } = sketched.method
    else {
        panic!("expected sketches, got {:?}", sketched.method);
    };
    // A share is a ratio of two estimates: allow four standard errors on each.
    let bound = 8.0 * relative_standard_error as f32;
    for h in 0..c.hyperstate_count() as usize {
        assert!(
            (exact.hyperstates[h] - sketched.hyperstates[h]).abs() <= bound,
            "h = {h}"
        );
        assert!(
            (exact.states[h] - sketched.states[h]).abs() <= bound,
            "h = {h}"
        );
    }
}

#[test]
fn too_small_a_budget_is_reported() {
    let g = MemGraph::new(3, &[(0, 0, 1), (0, 1, 2)], &[]).unwrap();
    let (c, t) = setup(&g);
    let err = compute_headroom(&c, &t, 8).unwrap_err();
    assert!(err.contains("budget"), "{err}");
}

#[test]
fn exact_counting_past_the_work_budget_is_sketched() {
    let g = MemGraph::new(4, &[(0, 0, 1), (1, 0, 2), (2, 0, 3)], &[(3, 0)]).unwrap();
    let (c, t) = setup(&g);
    let exact = super::compute_headroom_within(&c, &t, u64::MAX, u64::MAX).unwrap();
    assert_eq!(exact.method, HeadroomMethod::Exact);
    let sketched = super::compute_headroom_within(&c, &t, u64::MAX, 1).unwrap();
    assert!(
        matches!(sketched.method, HeadroomMethod::HyperLogLog { precision, .. } if precision == crate::hll::MIN_PRECISION),
        "{:?}",
        sketched.method
    );
    assert!(super::sketch_reason(&c, u64::MAX).contains("time budget"));
    assert!(super::sketch_reason(&c, 1).contains("memory budget"));
}
