//! `hsg explore LEVEL --store DIR --local-processes N`: N processes of this
//! binary on 127.0.0.1, each writing its part to `DIR/cluster/part-I`, then
//! their parts gathered into the store `DIR` and removed.
//!
//! When a process fails, the others end too (a lost peer ends a process),
//! and the command exits non-zero; running it again resumes every part from
//! the last layer all of them committed.

use crate::cluster_cmd::{refuse_unsupported, CHILD, KEY_ENV, KEY_FILE_ENV};
use crate::explore_cmd::{analyze_if_asked, identity, load_level, store_dir, ExploreArgs};
use anyhow::{bail, Context, Result};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode};
use std::time::{Duration, Instant};
use store::{Manifest, RunStatus};

/// How long the other processes get to end by themselves once one failed.
const GRACE: Duration = Duration::from_secs(20);

/// Runs the local cluster, gathers it into the store and, with `--analyze`, analyses it.
pub fn run(args: &ExploreArgs) -> Result<ExitCode> {
    explore(args)?;
    analyze_if_asked(args)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the local cluster and gathers it into the store.
fn explore(args: &ExploreArgs) -> Result<()> {
    refuse_unsupported(args)?;
    let n = args
        .local_processes
        .context("--local-processes N is required")?;
    let dir = store_dir(args)?.to_path_buf();
    let root = dir.join("cluster");
    if args.force_new && root.exists() {
        std::fs::remove_dir_all(&root)
            .with_context(|| format!("cannot remove {}", root.display()))?;
    }
    if !args.force_new && finished_here(args, &dir)? {
        return Ok(());
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
    let children = parts
        .iter()
        .enumerate()
        .map(|(i, part)| spawn(args, &hosts, i, part, &key))
        .collect::<Result<Vec<_>>>()?;
    wait_all(children, &root)?;
    let summary = cluster::gather(&parts, &dir, args.force_new)?;
    std::fs::remove_dir_all(&root).with_context(|| format!("cannot remove {}", root.display()))?;
    eprintln!(
        "gathered {n} parts into {}: {} states, {} transitions, {:.1} s in all",
        dir.display(),
        summary.states,
        summary.transitions,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// True (and said) when `dir` already holds this run, finished.
fn finished_here(args: &ExploreArgs, dir: &Path) -> Result<bool> {
    if !dir.join("MANIFEST").exists() {
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
/// by themselves and are then killed. Fails naming the processes that failed.
fn wait_all(mut children: Vec<Child>, root: &Path) -> Result<()> {
    let mut status: Vec<Option<std::process::ExitStatus>> = vec![None; children.len()];
    let mut failed_at: Option<Instant> = None;
    while status.iter().any(Option::is_none) {
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
        return Ok(());
    }
    bail!(
        "{} failed; the parts in {} are resumable from the last layer every process committed: run the same command again",
        failed.join(", "),
        root.display()
    )
}
