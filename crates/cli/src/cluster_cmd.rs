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
use cluster::{
    ClusterConfig, ClusterEnding, ClusterKey, ClusterOptions, ClusterProgress, Part, ProgressSink,
};
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

/// One line of a host file: its number (from 1) and the `host:port` it gives.
struct Host {
    line: usize,
    address: String,
}

/// Reads a host file: one `host:port` a line; blank lines and `#` comments skipped.
fn read_hosts(path: &Path) -> Result<Vec<Host>> {
    let text = crate::text_file::read_text(path, "host file")?;
    let hosts: Vec<Host> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(line, l)| Host {
            line,
            address: l.to_string(),
        })
        .collect();
    if hosts.is_empty() {
        return Err(usage(format!("{}: no host:port line", path.display())));
    }
    if let Some(h) = hosts
        .iter()
        .find(|h| h.address.contains(char::is_whitespace))
    {
        return Err(usage(format!(
            "{} line {}: \"{}\" is not one host:port (one address a line)",
            path.display(),
            h.line,
            h.address
        )));
    }
    Ok(hosts)
}

/// The environment variable that holds the cluster key itself.
pub const KEY_ENV: &str = "HSG_CLUSTER_KEY";

/// The environment variable that names the cluster key's file.
pub const KEY_FILE_ENV: &str = "HSG_CLUSTER_KEY_FILE";

/// How to make a key, for the messages that ask for one.
const MAKE_KEY: &str = "make one with: (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > cluster.key), \
     and copy that file to every machine";

/// The cluster key: `--cluster-key FILE`, else the file that
/// `HSG_CLUSTER_KEY_FILE` names, else `HSG_CLUSTER_KEY` itself.
fn cluster_key(args: &ExploreArgs) -> Result<ClusterKey> {
    let from_file = |path: &Path| -> Result<ClusterKey> {
        let bytes = read_key_file(path)?;
        ClusterKey::new(&bytes).map_err(|e| usage(format!("{}: {e}", path.display())))
    };
    if let Some(path) = &args.cluster_key {
        return from_file(path);
    }
    let file = std::env::var_os(KEY_FILE_ENV).filter(|v| !v.is_empty());
    let secret = std::env::var_os(KEY_ENV).filter(|v| !v.is_empty());
    match (file, secret) {
        (Some(_), Some(_)) => Err(usage(format!(
            "both {KEY_FILE_ENV} and {KEY_ENV} are set: unset one, so that it is clear which key this process proves"
        ))),
        (Some(path), None) => from_file(Path::new(&path)),
        (None, Some(secret)) => {
            use std::os::unix::ffi::OsStrExt;
            ClusterKey::new(secret.as_bytes()).map_err(|e| usage(format!("{KEY_ENV}: {e}")))
        }
        (None, None) => Err(usage(format!(
            "a cluster needs a key that every process proves before it may join: give \
             --cluster-key FILE (the same file on every machine), or set {KEY_FILE_ENV}=FILE \
             or {KEY_ENV}=SECRET in the environment; {MAKE_KEY}"
        ))),
    }
}

/// A key file's bytes, refused when other users may read it (as ssh does)
/// or when it is not a small regular file.
fn read_key_file(path: &Path) -> Result<Vec<u8>> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read the cluster key {}", path.display()))?;
    if !meta.is_file() || meta.len() > 4096 {
        return Err(usage(format!(
            "{}: a cluster key is a regular file of at most 4096 bytes",
            path.display()
        )));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(usage(format!(
            "{}: the cluster key may be read by other users (mode {mode:03o}): run chmod 600 {}",
            path.display(),
            path.display()
        )));
    }
    std::fs::read(path).with_context(|| format!("cannot read the cluster key {}", path.display()))
}

/// Says which line of the host file an error of the cluster concerns.
fn explain(err: cluster::ClusterError, hosts_file: &Path, hosts: &[Host]) -> anyhow::Error {
    match err {
        cluster::ClusterError::Listen {
            process,
            address,
            source,
        } => {
            let line = hosts.get(process).map_or(0, |h| h.line);
            let hint = match source.kind() {
                std::io::ErrorKind::AddrInUse => format!(
                    "another program (or another hsg) already listens on that port: end it, or \
                     give process {process} a free port on that line of every machine's host file"
                ),
                std::io::ErrorKind::AddrNotAvailable => format!(
                    "that address is not one of this machine's: process {process} runs on the \
                     machine that line names, and listens on that address"
                ),
                _ => format!("process {process} listens on the address of its own line"),
            };
            anyhow::anyhow!(
                "{} line {line}: process {process} cannot listen on {address}: {source}; {hint}",
                hosts_file.display()
            )
        }
        cluster::ClusterError::Connect(what) => {
            anyhow::anyhow!("{}: {what}", hosts_file.display())
        }
        other => other.into(),
    }
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
    let key = match hosts.len() {
        1 => None,
        _ => Some(cluster_key(args)?),
    };
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
    exit_on_lost_peer(&dir, process);
    let part = Mutex::new(Some(part));
    let level = Arc::new(level);
    let config = ClusterConfig {
        addresses: hosts.iter().map(|h| h.address.clone()).collect(),
        process,
        key,
        identity: identity.clone(),
        connect_timeout: Duration::from_secs_f64(args.connect_timeout),
        notice: Arc::new(move |what: &str| eprintln!("hsg: process {process}: {what}")),
    };
    let run = cluster::run_cluster(config, move |ex| {
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
    });
    let summary = run.map_err(|e| explain(e, hosts_file, &hosts))??;
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

/// The cluster's progress, on process 0: the shared display, a live line on a
/// terminal, elsewhere a line per layer at most every five seconds.
struct Display {
    shown: Option<crate::progress::Progress>,
}

impl Display {
    fn new(shown: bool) -> Display {
        Display {
            shown: shown.then(|| crate::progress::Progress::status(Duration::from_secs(5))),
        }
    }

    fn done(&self) {
        if let Some(shown) = &self.shown {
            shown.finish();
        }
    }
}

impl ProgressSink for Display {
    fn layer(&mut self, p: &ClusterProgress) {
        let Some(shown) = &self.shown else { return };
        let line = format!(
            "cluster: {} states, {} transitions, depth {}, {} states/s, {} sent ({:.1} B/state)",
            model::numbers::grouped(p.states),
            model::numbers::grouped(p.transitions),
            p.depth,
            model::numbers::grouped(p.states_per_sec.round() as u64),
            human(p.bytes_sent),
            p.bytes_sent as f64 / p.states.max(1) as f64
        );
        shown.update(p.elapsed.as_secs_f64(), line);
    }
}
