//! Benchmark of the graph view's spring layout on HSG-like graphs of up to 2,000 nodes
//! (target: at most one second for 2,000). Run with `cargo bench -p tui --bench layout`.

use std::time::Instant;
use tui::spring_layout::spring_layout;

/// A layered, tree-like graph with a few cross links, like an HSG neighbourhood.
fn hsg_like(n: u32) -> Vec<(u32, u32)> {
    let mut edges = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 1..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        edges.push(((x % u64::from(i)) as u32, i));
        if i % 3 == 0 {
            edges.push((i, (x >> 20) as u32 % i));
        }
    }
    edges
}

/// CPU time this process has run, in seconds (Linux), to tell the layout's own cost
/// from waiting for a core on a busy machine.
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// A star: one hub and many leaves, the hardest case for the spring constant.
fn star(n: u32) -> Vec<(u32, u32)> {
    (1..n).map(|i| (0, i)).collect()
}

/// Builds the edge list of a test graph with `n` nodes.
type MakeGraph = fn(u32) -> Vec<(u32, u32)>;

fn main() {
    let cases: [(&str, MakeGraph); 2] = [("hsg-like", hsg_like), ("star", star)];
    for (name, make) in cases {
        for n in [100u32, 500, 1000, 2000] {
            let edges = make(n);
            let cpu = cpu_seconds();
            let start = Instant::now();
            let layout = spring_layout(n as usize, &edges);
            let wall = start.elapsed().as_secs_f64();
            let cpu = cpu.zip(cpu_seconds()).map_or(f64::NAN, |(a, b)| b - a);
            println!(
                "layout {name:8} n={n:5} edges={:5} sweeps={:3} wall={wall:.3} s cpu={cpu:.3} s",
                edges.len(),
                layout.sweeps,
            );
        }
    }
}
