//! Tests of the spring layout: distances, convergence on simple shapes, determinism.

use super::*;

fn length(l: &Layout, a: usize, b: usize) -> f32 {
    let (p, q) = (l.positions[a], l.positions[b]);
    ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt()
}

#[test]
fn distances_ignore_direction_and_separate_components() {
    let d = Distances::new(4, &[(0, 1), (2, 1)]);
    assert_eq!(d.get(0, 2), 2);
    assert_eq!(d.get(2, 0), 2);
    // Node 3 is alone: one more than the largest finite distance.
    assert_eq!(d.get(0, 3), 3);
}

#[test]
fn a_chain_is_laid_out_straight_with_unit_springs() {
    let edges: Vec<(u32, u32)> = (0..5).map(|i| (i, i + 1)).collect();
    let l = spring_layout(6, &edges);
    for i in 0..5 {
        assert!((length(&l, i, i + 1) - 1.0).abs() < 0.05, "{l:?}");
    }
    assert!((length(&l, 0, 5) - 5.0).abs() < 0.2, "{l:?}");
}

#[test]
fn a_cycle_keeps_neighbours_close_and_opposites_apart() {
    let edges: Vec<(u32, u32)> = (0..8).map(|i| (i, (i + 1) % 8)).collect();
    let l = spring_layout(8, &edges);
    for i in 0..8 {
        let near = length(&l, i, (i + 1) % 8);
        let far = length(&l, i, (i + 4) % 8);
        assert!(near < far, "{l:?}");
        assert!(near > 0.5 && near < 1.6, "{l:?}");
    }
}

#[test]
fn layout_is_deterministic_and_finite() {
    let edges: Vec<(u32, u32)> = (0..60u32).map(|i| (i, (i * 7 + 3) % 61)).collect();
    let a = spring_layout(61, &edges);
    let b = spring_layout(61, &edges);
    assert_eq!(a, b);
    assert!(a
        .positions
        .iter()
        .all(|p| p.0.is_finite() && p.1.is_finite()));
    assert!(a.sweeps <= MAX_SWEEPS);
}

#[test]
fn tiny_graphs_need_no_sweep() {
    assert!(spring_layout(0, &[]).positions.is_empty());
    assert_eq!(spring_layout(1, &[]).positions, vec![(0.0, 0.0)]);
    let two = spring_layout(2, &[(0, 1)]);
    assert!((length(&two, 0, 1) - 1.0).abs() < 0.05, "{two:?}");
}

#[test]
fn a_star_with_many_leaves_stays_finite_and_converges() {
    let edges: Vec<(u32, u32)> = (1..280).map(|i| (0, i)).collect();
    let l = spring_layout(280, &edges);
    assert!(
        l.positions
            .iter()
            .all(|p| p.0.is_finite() && p.1.is_finite()),
        "{:?}",
        &l.positions[..5]
    );
    assert!(l.sweeps < MAX_SWEEPS, "{} sweeps", l.sweeps);
}
