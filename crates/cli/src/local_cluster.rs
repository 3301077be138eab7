//! `hsg explore LEVEL --store DIR --local-processes N`: N processes of this
//! binary on 127.0.0.1, each writing its part to `DIR/cluster/part-I`, then
//! their parts gathered into the store `DIR` and removed.
//!
//! The parent holds the store's lock from the start to the gather, so that a second
//! exploration into `DIR` is refused while the processes run. When a process fails,
//! the others end too (a lost peer ends a process), and the command exits non-zero;
//! SIGINT or SIGTERM ends them all (between two starts too). Running the command
//! again resumes every part from the last layer all of them committed.

use crate::cluster_cmd::{refuse_unsupported, CHILD, KEY_ENV, KEY_FILE_ENV};
use crate::explore_cmd::{
    analyze_if_asked, identity, load_level, stop_flag, store_dir, ExploreArgs, Explored, EXPLORING,
};
use anyhow::{bail, Context, Result};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use store::{Manifest, RunStatus};

/// How long the other processes get to end by themselves once one failed.
const GRACE: Duration = Duration::from_secs(20);

/// Runs the local cluster, gathers it into the store and, with `--analyze`, analyses it.
pub fn run(args: &ExploreArgs) -> Result<ExitCode> {
    EXPLORING.store(true, Ordering::SeqCst);
    let explored = explore(args);
    EXPLORING.store(false, Ordering::SeqCst);
    if explored? == Explored::Interrupted {
        return Ok(ExitCode::from(130));
    }
    analyze_if_asked(args)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the local cluster and gathers it into the store.
fn explore(args: &ExploreArgs) -> Result<Explored> {
    refuse_unsupported(args)?;
    let n = args
        .local_processes
        .context("--local-processes N is required")?;
    let stop = stop_flag()?;
    let dir = store_dir(args)?.to_path_buf();
    let lock = hold(&dir)?;
    let root = dir.join(store::layout::CLUSTER);
    if args.force_new && root.exists() {
        std::fs::remove_dir_all(&root)
            .with_context(|| format!("cannot remove {}", root.display()))?;
    }
    if !args.force_new && finished_here(args, &dir)? {
        return Ok(Explored::Finished);
    }
    std::fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    let hosts = root.join("hosts.txt");
    std::fs::write(&hosts, free_ports(n)?.join("\n") + "\n")
        .with_context(|| format!("cannot write {}", hosts.display()))?;
    let parts: Vec<PathBuf> = (0..n).map(|i| root.join(format!("part-{i}"))).collect();
    let started = Instant::now();
    // A fresh key for this run's processes, passed through their
    // environment (never their command line, which every user can read).
    let key = cluster::ClusterKey::fresh_hex().map_err(anyhow::Error::msg)?;
    let mut children = Vec::with_capacity(n);
    for (i, part) in parts.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            return interrupted(children, &root);
        }
        match spawn(args, &hosts, i, part, &key) {
            Ok(child) => children.push(child),
            Err(err) => {
                end_all(&mut children);
                return Err(err);
            }
        }
    }
    if wait_all(children, &root, &stop)? == Explored::Interrupted {
        return Ok(Explored::Interrupted);
    }
    // The gather takes the store's lock itself (a second lock in one process conflicts
    // with the first).
    drop(lock);
    let summary = cluster::gather(&parts, &dir, args.force_new)?;
    std::fs::remove_dir_all(&root).with_context(|| format!("cannot remove {}", root.display()))?;
    eprintln!(
        "gathered {n} parts into {}: {} states, {} transitions, {:.1} s in all",
        dir.display(),
        summary.states,
        summary.transitions,
        started.elapsed().as_secs_f64()
    );
    Ok(Explored::Finished)
}

/// Creates the store directory if needed and takes its writer's lock, held while the
/// processes run. A directory holding anything but a store is refused before a lock
/// file is left in it, as a single-process exploration refuses it.
fn hold(dir: &Path) -> Result<std::fs::File> {
    if dir.exists() && !dir.is_dir() {
        bail!(
            "{} is a file, not a directory; name a directory for the store",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let foreign = store::layout::foreign_entries(dir)?;
    if !foreign.is_empty() {
        bail!(
            "{} is not a store: it holds other files ({}); refusing to write there",
            dir.display(),
            foreign.join(", ")
        );
    }
    Ok(store::lock_dir(dir)?)
}

/// Ends the processes started so far after SIGINT or SIGTERM, and says how to resume.
fn interrupted(mut children: Vec<Child>, root: &Path) -> Result<Explored> {
    end_all(&mut children);
    eprintln!(
        "interrupted; the parts in {} are resumable from the last layer every process \
         committed; to resume, run:\n  {}",
        root.display(),
        crate::stored_run::this_command_resumed()
    );
    Ok(Explored::Interrupted)
}

/// Kills and reaps every process still running (a part commits a layer at a time, so
/// a killed process loses only its layer in progress).
fn end_all(children: &mut [Child]) {
    for child in children.iter_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// True (and said) when `dir` already holds this run, finished.
fn finished_here(args: &ExploreArgs, dir: &Path) -> Result<bool> {
    if !dir.join(store::layout::MANIFEST).exists() {
        return Ok(false);
    }
    let w = &args.which;
    let mut level = load_level(&w.level_file, w.level, w.title.as_deref())?;
    if let Some(k) = args.flip_tokens.filter(|&k| k > 0) {
        level = games::flip::wrap(level, k as usize)?;
    }
    let m = Manifest::read(dir)?;
    let diff = m.identity.differences(&identity(&level, args));
    if !diff.is_empty() {
        bail!(
            "{} holds another run: {}; use --force-new to replace it",
            dir.display(),
            diff.join("; ")
        );
    }
    let done = matches!(m.status, RunStatus::Complete | RunStatus::Partial);
    if done {
        eprintln!(
            "{} already holds this finished run ({} states); nothing to do",
            dir.display(),
            m.states
        );
    }
    Ok(done)
}

/// `n` ports on 127.0.0.1 that were free a moment ago (the listeners are
/// closed before the processes bind them).
fn free_ports(n: usize) -> Result<Vec<String>> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").context("cannot find a free port on 127.0.0.1"))
        .collect::<Result<Vec<_>>>()?;
    listeners
        .iter()
        .map(|l| Ok(format!("127.0.0.1:{}", l.local_addr()?.port())))
        .collect()
}

/// Starts process `i` of the cluster on this machine.
fn spawn(args: &ExploreArgs, hosts: &Path, i: usize, part: &Path, key: &str) -> Result<Child> {
    let exe = std::env::current_exe().context("cannot find the hsg binary to start")?;
    let mut cmd = Command::new(exe);
    cmd.arg("explore")
        .arg(&args.which.level_file)
        .arg("--store")
        .arg(part)
        .arg("--cluster")
        .arg(hosts)
        .arg("--process")
        .arg(i.to_string())
        .arg("--connect-timeout")
        .arg(args.connect_timeout.to_string())
        .env(CHILD, "1")
        .env(KEY_ENV, key)
        .env_remove(KEY_FILE_ENV)
        // Timely prints its connection attempts on standard output.
        .stdout(std::process::Stdio::null());
    if let Some(n) = args.which.level {
        cmd.arg("--level").arg(n.to_string());
    }
    if let Some(t) = &args.which.title {
        cmd.arg("--title").arg(t);
    }
    if let Some(d) = args.max_depth {
        cmd.arg("--max-depth").arg(d.to_string());
    }
    if let Some(k) = args.flip_tokens {
        cmd.arg("--flip-tokens").arg(k.to_string());
    }
    if let Some(m) = args.mem {
        cmd.arg("--mem").arg(m.to_string());
    }
    cmd.spawn()
        .with_context(|| format!("cannot start process {i}"))
}

/// Waits for every process; once one fails, the others get [`GRACE`] to end
/// by themselves and are then killed. Fails naming the processes that failed;
/// after SIGINT or SIGTERM ends them all and says how to resume.
fn wait_all(mut children: Vec<Child>, root: &Path, stop: &AtomicBool) -> Result<Explored> {
    let mut status: Vec<Option<std::process::ExitStatus>> = vec![None; children.len()];
    let mut failed_at: Option<Instant> = None;
    while status.iter().any(Option::is_none) {
        if stop.load(Ordering::SeqCst) {
            return interrupted(children, root);
        }
        for (i, child) in children.iter_mut().enumerate() {
            if status[i].is_none() {
                status[i] = child
                    .try_wait()
                    .with_context(|| format!("waiting for process {i}"))?;
                if status[i].is_some_and(|s| !s.success()) && failed_at.is_none() {
                    failed_at = Some(Instant::now());
                }
            }
        }
        if failed_at.is_some_and(|t| t.elapsed() > GRACE) {
            for (i, child) in children.iter_mut().enumerate() {
                if status[i].is_none() {
                    let _ = child.kill();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let failed: Vec<String> = status
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_some_and(|s| !s.success()))
        .map(|(i, s)| format!("process {i} ({})", s.map_or("?".into(), |s| s.to_string())))
        .collect();
    if failed.is_empty() {
        return Ok(Explored::Finished);
    }
    bail!(
        "{} failed; the parts in {} are resumable from the last layer every process committed; to resume, run:\n  {}",
        failed.join(", "),
        root.display(),
        crate::stored_run::this_command_resumed()
    )
}
