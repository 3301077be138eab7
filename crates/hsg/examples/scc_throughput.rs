//! Measures SCC and condensation throughput on a synthetic game-like graph and compares
//! with petgraph's `kosaraju_scc` on the same graph in RAM.
//!
//! Usage: `cargo run --release -p hsg --example scc_throughput [STATES]`.
//! The graph: rooms of 64 states joined in both directions along a line (reversible
//! moves), plus a one-way "push" from each room to a later room (critical actions).

use hsg::{condense, strongly_connected_components, MemGraph};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(Ok(2_000_000), |a| a.parse())?;
    let mut edges = Vec::with_capacity(n as usize * 3);
    for s in 0..n {
        let room = s / 64;
        let first = room * 64;
        let last = (first + 63).min(n - 1);
        edges.push((s, 0u16, if s == last { first } else { s + 1 }));
        edges.push((s, 1u16, if s == first { last } else { s - 1 }));
        if s % 16 == 0 {
            let jump = (s.wrapping_mul(2654435761) % 1000 + 1) * 64;
            if s + jump < n {
                edges.push((s, 2u16, s + jump));
            }
        }
    }
    let g = MemGraph::new(n, &edges, &[])?;
    let e = edges.len() as f64;

    let t = Instant::now();
    let c = strongly_connected_components(&g);
    let scc = t.elapsed().as_secs_f64();
    println!(
        "states {n}, transitions {}, components {}: SCC {:.3} s, {:.1} M transitions/s",
        edges.len(),
        c.count,
        scc,
        e / scc / 1e6
    );
    let t = Instant::now();
    let cond = condense(&g);
    let full = t.elapsed().as_secs_f64();
    println!(
        "SCC + condensation {:.3} s ({} critical actions, {} HSG edges)",
        full, cond.critical_actions, cond.edges.pair_count
    );

    let mut pg = petgraph::Graph::<(), ()>::with_capacity(n as usize, edges.len());
    let nodes: Vec<_> = (0..n).map(|_| pg.add_node(())).collect();
    for &(s, _, t) in &edges {
        pg.add_edge(nodes[s as usize], nodes[t as usize], ());
    }
    let t = Instant::now();
    let k = petgraph::algo::kosaraju_scc(&pg);
    let pet = t.elapsed().as_secs_f64();
    println!(
        "petgraph kosaraju_scc {:.3} s ({} components): ours is {:.2}x its speed",
        pet,
        k.len(),
        pet / scc
    );
    Ok(())
}
