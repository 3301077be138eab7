//! Benchmark of the analysis on a real stored run: SCC and condensation throughput over
//! the memory-mapped rows, each later step's time, the anonymous (non-file) memory the
//! analysis holds per state, and petgraph's `kosaraju_scc` on the same graph in RAM.
//!
//! Usage: `cargo bench -p hsg --bench analysis -- RUN_DIR [REPEATS] [--no-petgraph] [--scc-only]`
//! (build the run first with `hsg explore LEVEL --store RUN_DIR`). Without a run
//! directory it prints this usage and exits, so that a bare `cargo bench` passes.
//! Timings are medians over REPEATS (default 3); the machine is shared, so compare the
//! ratios printed by one invocation rather than figures from different ones.

use hsg::{condense, strongly_connected_components, RunGraph, StateGraph};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The process's resident anonymous memory in bytes (heap and anonymous maps, not the
/// mapped store files), from `/proc/self/status`.
fn rss_anon() -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    text.lines()
        .find(|l| l.starts_with("RssAnon:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Samples [`rss_anon`] every few milliseconds and keeps the peak, so that short-lived
/// allocations inside a step are seen.
struct PeakSampler {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl PeakSampler {
    fn start() -> PeakSampler {
        let peak = Arc::new(AtomicU64::new(rss_anon()));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(rss_anon(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        PeakSampler {
            peak,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops sampling and returns the peak in bytes.
    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::Relaxed).max(rss_anon())
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// CPU seconds the calling thread has run (Linux), to tell the work's own cost from
/// waiting for a core on a busy machine.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

/// Median CPU seconds of the last [`timed`] call.
static LAST_CPU: AtomicU64 = AtomicU64::new(0);

/// Runs `f` `repeats` times and returns the median wall seconds and the last result
/// (the median CPU seconds go to [`LAST_CPU`]).
fn timed<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let (mut secs, mut cpus) = (Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let (t, c) = (Instant::now(), cpu_seconds());
        let out = f();
        secs.push(t.elapsed().as_secs_f64());
        cpus.push(cpu_seconds() - c);
        last = Some(out);
    }
    LAST_CPU.store(median(cpus).to_bits(), Ordering::Relaxed);
    match last {
        Some(out) => (median(secs), out),
        None => unreachable!("at least one repeat runs"),
    }
}

fn last_cpu() -> f64 {
    f64::from_bits(LAST_CPU.load(Ordering::Relaxed))
}

/// Touches every page of the mapped rows so that the first timed pass does not pay
/// for reading the files from disk.
fn warm(g: &RunGraph) -> u64 {
    let mut sum = 0u64;
    for s in 0..g.expanded_count() {
        for e in g.edge_range(s) {
            sum = sum.wrapping_add(g.edge(e).1);
        }
    }
    sum
}

fn petgraph_kosaraju(g: &RunGraph, repeats: usize) -> (f64, usize, u64) {
    let before = rss_anon();
    let mut pg =
        petgraph::Graph::<(), ()>::with_capacity(g.state_count() as usize, g.edge_count() as usize);
    let nodes: Vec<_> = (0..g.state_count()).map(|_| pg.add_node(())).collect();
    for s in 0..g.expanded_count() {
        for e in g.edge_range(s) {
            let t = g.edge(e).1;
            pg.add_edge(nodes[s as usize], nodes[t as usize], ());
        }
    }
    drop(nodes);
    let in_ram = rss_anon().saturating_sub(before);
    let (secs, comps) = timed(repeats, || petgraph::algo::kosaraju_scc(&pg).len());
    let _ = secs;
    (last_cpu(), comps, in_ram)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let Some(dir) = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err())
    else {
        println!("usage: cargo bench -p hsg --bench analysis -- RUN_DIR [REPEATS] [--no-petgraph] [--scc-only]");
        return Ok(());
    };
    let repeats = args
        .iter()
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(3);
    let run = store::Run::open_unverified(std::path::Path::new(dir))?;
    let g = RunGraph::new(&run)?;
    let (n, e) = (g.state_count(), g.edge_count());
    println!("run {dir}: {n} states, {e} transitions, {repeats} repeats (medians)");
    let base = rss_anon();
    let _ = warm(&g);

    let sampler = PeakSampler::start();
    let (scc_secs, comps) = timed(repeats, || strongly_connected_components(&g));
    let scc_peak = sampler.finish().saturating_sub(base);
    let scc_cpu = last_cpu();
    println!(
        "SCC (two-cycle contraction, then Pearce): {scc_secs:.3} s wall ({:.3} s CPU), {:.1} M transitions/s \
         ({:.1} M per CPU second), {} components, peak anon {:.1} bytes/state",
        last_cpu(),
        e as f64 / scc_secs / 1e6,
        e as f64 / last_cpu() / 1e6,
        comps.count,
        scc_peak as f64 / n as f64
    );
    drop(comps);

    // The search over the graph's own rows, without the two-cycle contraction, with its
    // dense copy of the rows, for the ratio.
    let sampler = PeakSampler::start();
    let (direct_secs, comps) = timed(repeats, || {
        hsg::scc::direct_components_in(&g, &hsg::state_arrays::Backing::Heap, u64::MAX)
    });
    let direct_peak = sampler.finish().saturating_sub(base);
    let comps = comps?;
    println!(
        "SCC without the contraction (dense copy): {direct_secs:.3} s wall ({:.3} s CPU), \
         {:.1} M transitions/s, {} components, peak anon {:.1} bytes/state; the contraction \
         takes {:.2}x its time",
        last_cpu(),
        e as f64 / direct_secs / 1e6,
        comps.count,
        direct_peak as f64 / n as f64,
        scc_secs / direct_secs
    );
    drop(comps);

    // The same search reading the rows in place (no dense copy), for the ratio.
    let (place_secs, comps) = timed(repeats, || {
        hsg::scc::direct_components_in(&g, &hsg::state_arrays::Backing::Heap, 0)
    });
    let comps = comps?;
    println!(
        "SCC without the contraction, reading rows in place: {place_secs:.3} s wall ({:.3} s \
         CPU), {:.1} M transitions/s, {} components; the dense copy takes {:.2}x its time",
        last_cpu(),
        e as f64 / place_secs / 1e6,
        comps.count,
        direct_secs / place_secs
    );
    drop(comps);

    // The fallback past `--analysis-mem`: the same search on mapped scratch files.
    let scratch_dir = std::path::Path::new(dir).join(hsg::run::SCRATCH_FOLDER);
    let scratch = hsg::state_arrays::Backing::Files(scratch_dir.clone());
    let sampler = PeakSampler::start();
    let (files_secs, comps) = timed(repeats, || {
        hsg::scc::strongly_connected_components_in(&g, &scratch, 0)
    });
    let files_peak = sampler.finish().saturating_sub(base);
    let comps = comps?;
    let _ = std::fs::remove_dir(&scratch_dir);
    println!(
        "SCC on scratch files: {files_secs:.3} s wall ({:.3} s CPU), {:.1} M transitions/s, \
         {} components, peak anon {:.1} bytes/state; heap/files time ratio {:.2}",
        last_cpu(),
        e as f64 / files_secs / 1e6,
        comps.count,
        files_peak as f64 / n as f64,
        scc_secs / files_secs
    );
    drop(comps);
    if args.iter().any(|a| a == "--scc-only") {
        return Ok(());
    }

    let sampler = PeakSampler::start();
    let (cond_secs, c) = timed(repeats, || condense(&g));
    let cond_peak = sampler.finish().saturating_sub(base);
    println!(
        "condensation (SCC + members + HSG edges): {cond_secs:.3} s ({:.3} s CPU), {:.1} M transitions/s, \
         {} hyperstates, {} HSG edges, peak anon {:.1} bytes/state",
        last_cpu(),
        e as f64 / cond_secs / 1e6,
        c.hyperstate_count(),
        c.edges.targets.len(),
        cond_peak as f64 / n as f64
    );
    drop(c);

    let labels = hsg::labels_of(&run);
    let opts = hsg::AnalyzeOptions::default();
    let sampler = PeakSampler::start();
    let (all_secs, a) = timed(1, || {
        hsg::analyze_graph(&g, &labels, &opts, hsg::source_of(&run))
    });
    let all_peak = sampler.finish().saturating_sub(base);
    let a = a?;
    println!(
        "whole analysis (tags, paths, headroom {}, spectrum): {all_secs:.3} s, peak anon {:.1} bytes/state",
        a.headroom
            .as_ref()
            .map_or("skipped".to_string(), |h| format!("{:?}", h.method)),
        all_peak as f64 / n as f64
    );
    let t = Instant::now();
    let h = hsg::headroom::compute_headroom(&a.condensation, &a.tagging, opts.mem_budget_bytes);
    println!(
        "  of which headroom alone: {:.3} s ({})",
        t.elapsed().as_secs_f64(),
        if h.is_ok() {
            "exact"
        } else {
            "sketched or refused"
        }
    );
    let t = Instant::now();
    let _ = hsg::spectrum::failure_spectrum(&a.condensation, &a.tagging, &a.win_distance, a.root);
    println!(
        "  of which failure spectrum alone: {:.3} s",
        t.elapsed().as_secs_f64()
    );
    drop(a);

    if !args.iter().any(|a| a == "--no-petgraph") {
        let (pg_secs, pg_comps, pg_ram) = petgraph_kosaraju(&g, repeats);
        println!(
            "petgraph kosaraju_scc (graph in RAM, {:.1} bytes/state): {pg_secs:.3} CPU s, {:.1} M \
             transitions per CPU second, {pg_comps} components; ours takes {:.2}x less CPU",
            pg_ram as f64 / n as f64,
            e as f64 / pg_secs / 1e6,
            pg_secs / scc_cpu
        );
    }
    Ok(())
}
