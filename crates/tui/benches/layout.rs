//! Benchmark of the graph view's spring layout on HSG-like graphs of up to 2,000 nodes
//! (target: at most one second for 2,000). Run with `cargo bench -p tui --bench layout`.

use std::time::Instant;
use tui::layout::spring_layout;

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

fn main() {
    for n in [100u32, 500, 1000, 2000] {
        let edges = hsg_like(n);
        let start = Instant::now();
        let layout = spring_layout(n as usize, &edges);
        let secs = start.elapsed().as_secs_f64();
        println!(
            "layout n={n:5} edges={:5} sweeps={:3} time={:.3} s",
            edges.len(),
            layout.sweeps,
            secs
        );
    }
}
