//! The pass by layers against the pass by sources, its oracle: the same classes, counts
//! and one-way transitions on random graphs, breadth-first numbered or not, whatever the
//! threads and the chunk size, and the fallback when its buffers have no room.

use super::*;
use crate::graph::validate;
use crate::mem::MemGraph;
use crate::one_way::OneWayList;
use crate::progress::StepTimes;
use crate::state_arrays::{Backing, Words};
use crate::two_cycles::{two_cycle_classes_recording, Classes, Rooms};
use proptest::prelude::*;

/// Random edges `(source, action, target, both ways)` over `n` states, the first
/// `expanded` of them expanded.
fn raw_edges(n: u64) -> impl Strategy<Value = (u64, Vec<(u64, u16, u64, bool)>)> {
    let edge = (0..n, 0u16..4, 0..n, any::<bool>());
    (1..=n, proptest::collection::vec(edge, 0..(4 * n as usize)))
}

/// The edges (each repeated back when asked), kept from expanded sources only.
fn edges_of(expanded: u64, raw: &[(u64, u16, u64, bool)]) -> Vec<(u64, u16, u64)> {
    let mut all = Vec::new();
    for &(s, a, t, both) in raw {
        all.push((s, a, t));
        if both {
            all.push((t, (a + 1) % 4, s));
        }
    }
    all.retain(|e| e.0 < expanded);
    all
}

/// Random graphs in any numbering, with many two-cycles and repeated edges.
fn any_graph(max_states: u64) -> impl Strategy<Value = MemGraph> {
    (1u64..max_states).prop_flat_map(|n| {
        raw_edges(n).prop_map(move |(expanded, raw)| {
            MemGraph::partial(n, expanded, &edges_of(expanded, &raw), &[]).unwrap()
        })
    })
}

/// Random graphs numbered breadth-first: random layer sizes, and edges that go at most
/// one layer forward (a target past that is moved back into the next layer).
fn layered_graph(max_states: u64) -> impl Strategy<Value = MemGraph> {
    (1u64..max_states).prop_flat_map(|n| {
        (raw_edges(n), proptest::collection::vec(1u64..6, 1..20)).prop_map(
            move |((expanded, raw), sizes)| {
                let mut layers = vec![0u64];
                while *layers.last().unwrap() + sizes[layers.len() % sizes.len()] < n {
                    let next = *layers.last().unwrap() + sizes[layers.len() % sizes.len()];
                    layers.push(next);
                }
                let bound = |s: u64| {
                    let l = layers.partition_point(|&f| f <= s);
                    layers.get(l + 1).copied().unwrap_or(n)
                };
                // A forward edge is brought within the layer after its source's.
                let raw: Vec<_> = raw
                    .iter()
                    .map(|&(s, a, t, both)| {
                        let (low, high) = (s.min(t), s.max(t));
                        let high = low + (high - low) % (bound(low) - low);
                        match s <= t {
                            true => (low, a, high, both),
                            false => (high, a, low, both),
                        }
                    })
                    .collect();
                MemGraph::partial(n, expanded, &edges_of(expanded, &raw), &[])
                    .unwrap()
                    .with_layers(Some(layers))
            },
        )
    })
}

/// The classes, counts and sorted one-way entries of a pass.
type Outcome = (Vec<u32>, u64, PairCounts, Option<Vec<(u64, u64, ActionId)>>);

fn outcome(pass: crate::two_cycles::Pass<u32>) -> Outcome {
    let (Classes { of_state, count }, counts, list) = pass;
    (of_state.to_vec(), count, counts, list.map(|l| entries(&l)))
}

fn entries(list: &OneWayList<u32>) -> Vec<(u64, u64, ActionId)> {
    let parts = list.map_parts(|it| {
        it.map(|e| (u64::from(e.source), u64::from(e.target), e.action))
            .collect::<Vec<_>>()
    });
    let mut all = parts.concat();
    all.sort_unstable();
    all
}

/// The pass by sources: the oracle.
fn by_sources<G: StateGraph + ?Sized>(g: &G, threads: usize) -> Outcome {
    let rooms = Rooms {
        list: Some(u64::MAX),
        buffers: None,
    };
    let pass = two_cycle_classes_recording::<G, u32>(
        g,
        &Backing::Heap,
        threads,
        rooms,
        &mut StepTimes::start(),
    );
    outcome(pass.unwrap())
}

/// The pass by layers alone (with `layers` or without), in chunks of `1 << bits`
/// states, and its classes numbered as the pass gives them.
fn layered<G: StateGraph + ?Sized>(
    g: &G,
    (threads, layers, bits): (usize, Option<&[u64]>, u32),
    buffers: u64,
) -> Option<Outcome> {
    let list = Room::new(u64::MAX);
    let mut up: Words<u32> = Backing::Heap.zeroed(g.state_count() as usize).unwrap();
    let parts = {
        let shared = u32::atomic(&mut up);
        crate::two_cycles::by_layers(
            g,
            shared,
            (threads, layers, bits),
            Some(&list),
            &Room::new(buffers),
        )?
    };
    let (counts, list) = crate::two_cycles::gather(parts, Some(&list));
    let pass = crate::two_cycles::number_classes(up, counts, list, &mut StepTimes::start());
    Some(outcome(pass.unwrap()))
}

proptest! {
    #[test]
    fn by_layers_is_by_sources_on_breadth_first_graphs(
        g in layered_graph(80),
        threads in 1usize..5,
        bits in 0u32..5,
    ) {
        prop_assert!(validate(&g).is_ok());
        let layers = g.layer_starts().unwrap().to_vec();
        let new = layered(&g, (threads, Some(&layers), bits), u64::MAX).expect("room enough");
        prop_assert_eq!(new, by_sources(&g, 1));
    }

    #[test]
    fn by_layers_without_layers_is_by_sources_on_any_graph(
        g in any_graph(60),
        threads in 1usize..5,
        bits in 0u32..5,
    ) {
        let new = layered(&g, (threads, None, bits), u64::MAX).expect("room enough");
        prop_assert_eq!(new, by_sources(&g, 1));
    }

    #[test]
    fn the_pass_falls_back_to_sources_when_its_buffers_have_no_room(
        g in layered_graph(80),
        threads in 1usize..4,
        buffers in 0u64..2000,
    ) {
        let rooms = Rooms { list: Some(u64::MAX / 2), buffers: Some(buffers) };
        let pass = two_cycle_classes_recording::<_, u32>(
            &g, &Backing::Heap, threads, rooms, &mut StepTimes::start(),
        ).unwrap();
        prop_assert_eq!(outcome(pass), by_sources(&g, 1));
    }
}

#[test]
fn a_tiny_room_gives_up_and_a_large_one_does_not() {
    // A ring of two-cycles across ten layers of 40 states.
    let n = 400u64;
    let mut edges = Vec::new();
    for s in 0..n {
        let t = (s + 40).min(n - 1);
        edges.push((s, 0u16, t));
        edges.push((t, 1u16, s));
    }
    let g = MemGraph::new(n, &edges, &[])
        .unwrap()
        .with_layers(Some((0..10).map(|l| l * 40).collect()));
    assert!(validate(&g).is_ok());
    let layers = g.layer_starts().unwrap().to_vec();
    assert!(layered(&g, (2, Some(&layers), 3), 64).is_none());
    let done = layered(&g, (2, Some(&layers), 3), 1 << 20).expect("room enough");
    assert_eq!(done, by_sources(&g, 2));
}

#[test]
fn warm_up_starts_at_the_layer_before() {
    let layers = [0u64, 1, 3, 6, 10];
    assert_eq!(warm_from(Some(&layers), 0), 0);
    assert_eq!(warm_from(Some(&layers), 2), 0);
    assert_eq!(warm_from(Some(&layers), 3), 1);
    assert_eq!(warm_from(Some(&layers), 7), 3);
    assert_eq!(warm_from(Some(&layers), 12), 6);
    assert_eq!(warm_from(None, 12), 0);
}
