//! `hsg explore --cluster HOSTS --process I` (one process of a distributed
//! exploration, writing its part) and `hsg gather` (the parts into one
//! store). The processes talk through timely dataflow; this file wires the
//! level, the part and the progress display, and turns a lost peer or a peer
//! that never connects into a clean error instead of a hang.

use crate::explore_cmd::{identity, load_level, store_dir, ExploreArgs};
use crate::sizes::human;
use crate::usage::usage;
use anyhow::{Context, Result};
use clap::Args;
use cluster::{ClusterConfig, ClusterEnding, ClusterOptions, ClusterProgress, Part, ProgressSink};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Arguments of `hsg gather`.
#[derive(Args, Debug)]
pub struct GatherArgs {
    /// The part directories of every process (the --store of each `hsg explore --cluster`).
    #[arg(required = true, num_args = 1..)]
    pub parts: Vec<PathBuf>,
    /// The store to write: byte for byte the store a single machine would have written.
    #[arg(long)]
    pub store: PathBuf,
    /// Replace whatever run the store directory holds.
    #[arg(long)]
    pub force_new: bool,
}

/// Runs `hsg gather`.
pub fn gather(args: GatherArgs) -> Result<ExitCode> {
    let summary = cluster::gather(&args.parts, &args.store, args.force_new)?;
    match summary.already_done {
        true => eprintln!(
            "{} already holds this finished run ({} states); nothing to do",
            args.store.display(),
            summary.states
        ),
        false => eprintln!(
            "gathered {} parts into {}: {} states, {} transitions",
            args.parts.len(),
            args.store.display(),
            summary.states,
            summary.transitions
        ),
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses, with every offender named, the options a distributed run does not support.
pub fn refuse_unsupported(args: &ExploreArgs) -> Result<()> {
    let mut bad = Vec::new();
    let mut refuse = |given: bool, what: &str| {
        if given {
            bad.push(what.to_string());
        }
    };
    refuse(
        args.threads.is_some(),
        "--threads (each process runs one worker thread)",
    );
    refuse(
        args.max_states.is_some(),
        "--max-states (a distributed run stops at layer boundaries only: use --max-depth)",
    );
    refuse(
        args.live_hsg || args.hsg_depth.is_some(),
        "--live-hsg and --hsg-depth (analyse the gathered store instead)",
    );
    refuse(
        args.checkpoint_secs != 2.0,
        "--checkpoint-secs (a distributed run commits once per layer)",
    );
    refuse(
        args.index_limit.is_some()
            || args.round_candidates.is_some()
            || args.chunk_parents.is_some(),
        "the single-machine explorer's testing aids",
    );
    refuse(
        args.analyze && args.cluster.is_some(),
        "--analyze with --cluster (gather the parts, then run hsg analyze on the store)",
    );
    if bad.is_empty() {
        return Ok(());
    }
    Err(usage(format!(
        "the distributed explorer does not support {}",
        bad.join(", ")
    )))
}

/// Reads a host file: one `host:port` a line; blank lines and `#` comments skipped.
fn read_hosts(path: &Path) -> Result<Vec<String>> {
    let text = crate::text_file::read_text(path, "host file")?;
    let hosts: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if hosts.is_empty() {
        return Err(usage(format!("{}: no host:port line", path.display())));
    }
    Ok(hosts)
}

/// `hsg explore LEVEL --store PART --cluster HOSTS --process I`.
pub fn run_process(args: &ExploreArgs) -> Result<ExitCode> {
    refuse_unsupported(args)?;
    let hosts_file = args
        .cluster
        .as_deref()
        .context("--cluster HOSTS is required")?;
    let hosts = read_hosts(hosts_file)?;
    let process = args
        .process
        .context("--process I is required with --cluster")?;
    if process >= hosts.len() {
        return Err(usage(format!(
            "--process {process}: {} lists {} processes (0 to {})",
            hosts_file.display(),
            hosts.len(),
            hosts.len() - 1
        )));
    }
    let dir = store_dir(args)?.to_path_buf();
    let w = &args.which;
    let mut level = load_level(&w.level_file, w.level, w.title.as_deref())?;
    level = crate::explore_cmd::puzzlescript_options(level, args)?;
    if let Some(k) = args.flip_tokens.filter(|&k| k > 0) {
        level = games::flip::wrap(level, k as usize)?;
    }
    let identity = identity(&level, args);
    if args.force_new {
        cluster::remove_part(&dir)?;
    }
    let part = Part::open(&dir, &identity, process, hosts.len())?;
    let opts = ClusterOptions {
        max_depth: args.max_depth,
        mem_budget: Some(args.mem.unwrap_or_else(crate::sizes::default_budget)),
        round_limit: None,
    };
    let budget = opts.mem_budget;
    let connected = Arc::new(AtomicBool::new(false));
    watch_connection(connected.clone(), args.connect_timeout, hosts_file, process);
    exit_on_lost_peer(&dir, process);
    let part = Mutex::new(Some(part));
    let level = Arc::new(level);
    let config = ClusterConfig {
        addresses: hosts.clone(),
        process,
    };
    let summary = cluster::run_cluster(config, move |ex| {
        connected.store(true, Ordering::SeqCst);
        let part = part.lock().ok().and_then(|mut p| p.take());
        let part =
            part.ok_or_else(|| cluster::ClusterError::Network("one worker per process".into()))?;
        let mut display = Display::new(process == 0);
        let done = cluster::explore_part(
            level.game.as_ref(),
            &identity,
            part,
            ex,
            &opts,
            &mut display,
        );
        display.done();
        done
    })??;
    FINISHED.store(true, Ordering::SeqCst);
    let p = &summary.progress;
    let how = match summary.ending {
        ClusterEnding::Complete => "complete",
        ClusterEnding::Partial => "partial",
    };
    if process == 0 {
        let words = if summary.already_done {
            "the parts already hold this finished run; nothing to do".to_string()
        } else {
            format!(
                "{how}: {} states, {} transitions, depth {}, in {:.1} s ({:.0} states/s), {} sent ({:.1} bytes a state)",
                p.states,
                p.transitions,
                p.depth,
                p.elapsed.as_secs_f64(),
                p.states_per_sec,
                human(p.bytes_sent),
                p.bytes_sent as f64 / p.states.max(1) as f64
            ) + if summary.used_disk {
                ", index on disk"
            } else {
                ""
            }
        };
        eprintln!("{words}");
        if summary.resumed_from > 0 && !summary.already_done {
            eprintln!(
                "(resumed from depth {}, the last layer every process had committed)",
                summary.resumed_depth
            );
        }
        if args.local_processes.is_none() && std::env::var_os(CHILD).is_none() {
            eprintln!(
                "gather the {} parts into one store with:\n  hsg gather PART_0 ... PART_{} --store OUT",
                hosts.len(),
                hosts.len() - 1
            );
        }
    }
    if !summary.already_done {
        // One write of the whole line: processes started together share the
        // parent's stderr, and `eprintln!` writes the newline apart, so two
        // lines once ran into each other ("...MiBprocess 0: ...").
        let line = format!("{}\n", memory_line(process, &summary, budget));
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
    }
    Ok(ExitCode::SUCCESS)
}

/// What a process's memory did: its rounds, the measured peak of its index
/// and round buffers against `--mem`, and its peak resident set where the
/// system tells it (Linux's `VmHWM`).
fn memory_line(process: usize, summary: &cluster::ClusterSummary, budget: Option<u64>) -> String {
    let m = &summary.memory;
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", peak RSS {}", human(kib << 10)))
        })
        .unwrap_or_default();
    format!(
        "process {process}: {} rounds in {} layers, index and round buffers at most {} (--mem {}){rss}",
        m.rounds,
        m.layers,
        human(m.peak_bytes),
        budget.map_or("unbounded".to_string(), human),
    )
}

/// Set in the environment of the processes `--local-processes` starts, which
/// gathers their parts itself.
pub const CHILD: &str = "HSG_CLUSTER_CHILD";

/// True once this process's part is finished: a communication thread failing
/// after that (a peer already gone) is no longer a failure.
static FINISHED: AtomicBool = AtomicBool::new(false);

/// Timely's communication threads panic when a peer's connection breaks, and
/// its worker would then wait forever: any panic during the exploration ends
/// the process at once, with an error saying the part is resumable.
fn exit_on_lost_peer(dir: &Path, process: usize) {
    let dir = dir.display().to_string();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if FINISHED.load(Ordering::SeqCst) {
            return previous(info);
        }
        let what = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("a panic");
        eprintln!(
            "hsg: error: process {process} lost the cluster ({what}); its part in {dir} is \
             resumable from its last committed layer: run the same command on every process again"
        );
        std::process::exit(1);
    }));
}

/// Timely retries connecting forever: a process that does not see every
/// other within `secs` seconds gives up with an error.
fn watch_connection(connected: Arc<AtomicBool>, secs: f64, hosts: &Path, process: usize) {
    let hosts = hosts.display().to_string();
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs_f64(secs);
        while std::time::Instant::now() < deadline {
            if connected.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        if !connected.load(Ordering::SeqCst) {
            eprintln!(
                "hsg: error: process {process}: not every process of {hosts} connected within {secs} s; \
                 start every process with the same host file"
            );
            std::process::exit(1);
        }
    });
}

/// The cluster's progress, on process 0: a live line on a terminal, a line
/// per layer elsewhere.
struct Display {
    shown: bool,
    bar: Option<ProgressBar>,
    /// When the last line was printed (in a pipe, one every few seconds).
    last: Option<std::time::Instant>,
}

impl Display {
    fn new(shown: bool) -> Display {
        let bar = (shown && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Display {
            shown,
            bar,
            last: None,
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl ProgressSink for Display {
    fn layer(&mut self, p: &ClusterProgress) {
        if !self.shown {
            return;
        }
        let line = format!(
            "cluster: {} states, {} transitions, depth {}, {:.0} states/s, {} sent ({:.1} B/state)",
            p.states,
            p.transitions,
            p.depth,
            p.states_per_sec,
            human(p.bytes_sent),
            p.bytes_sent as f64 / p.states.max(1) as f64
        );
        match &self.bar {
            Some(bar) => bar.set_message(line),
            None => {
                if self
                    .last
                    .is_some_and(|t| t.elapsed() < Duration::from_secs(5))
                {
                    return;
                }
                self.last = Some(std::time::Instant::now());
                eprintln!("[{:>7.1}s] {line}", p.elapsed.as_secs_f64());
            }
        }
    }
}
