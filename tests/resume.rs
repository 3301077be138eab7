//! Resume: runs killed with SIGKILL at random moments, and stopped with
//! SIGINT, finish into stores identical to an uninterrupted run's.

use crate::util::{assert_same_content, exploration, explore, hsg, level};
use rand::{Rng, SeedableRng};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Levels with the flags that make each run last a fraction of a second.
const CASES: [(&str, &[&str]); 4] = [
    ("sokoban/room3.xsb", &["--max-states", "600000"]),
    (
        "sokoban/room4.xsb",
        &["--max-states", "400000", "--threads", "2"],
    ),
    (
        "sokoban/room3.xsb",
        &[
            "--max-depth",
            "40",
            "--index-limit",
            "200000",
            "--round-candidates",
            "50000",
        ],
    ),
    // The HSG depth limit's decisions must survive a kill: a resume replays the
    // stored layers to the live analysis before it continues.
    (
        "sokoban/room3.xsb",
        &["--hsg-depth", "3", "--max-states", "400000"],
    ),
];

const KILLS_PER_CASE: usize = 7;

fn explore_args<'a>(level: &'a Path, store: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "explore",
        level.to_str().unwrap_or_default(),
        "--store",
        store.to_str().unwrap_or_default(),
        "--checkpoint-secs",
        "0.05",
    ];
    args.extend_from_slice(extra);
    args
}

/// Kills runs of one case at random moments, resuming each time, until
/// `KILLS_PER_CASE` kills landed; then the last resume runs to its end. Every
/// run that completes after a kill is compared with the reference; a fresh run
/// that completes before its kill is simply started afresh. Returns the kills.
///
/// Regression: the kills used to go on until a resumed run happened to finish
/// before its random deadline. A resume first rebuilds its index, so at some
/// seeds that took many minutes; now the test is bounded.
fn kill_and_resume(
    level: &Path,
    store: &Path,
    reference: &Path,
    extra: &[&str],
    typical: Duration,
    rng: &mut impl Rng,
) -> usize {
    let mut kills = 0;
    let mut since_fresh = 0;
    loop {
        // The last run's messages, for the assertion below: a resume that
        // fails says why (seen once at opt-level 1, not reproduced since).
        let messages = store.with_extension("err");
        let err_file = std::fs::File::create(&messages).expect("messages file");
        let mut child = hsg()
            .args(explore_args(level, store, extra))
            .stdout(Stdio::null())
            .stderr(Stdio::from(err_file))
            .spawn()
            .expect("hsg starts");
        // Early kills land in start-up and resume; later ones mid-search or
        // while the store is being finished.
        let wait = typical.mul_f64(rng.gen_range(0.05..0.6)) + Duration::from_millis(5);
        if kills < KILLS_PER_CASE {
            std::thread::sleep(wait);
            if child.try_wait().expect("child status").is_none() {
                child.kill().expect("SIGKILL");
                child.wait().expect("reaped");
                kills += 1;
                since_fresh += 1;
                continue;
            }
        }
        let status = child.wait().expect("reaped");
        assert!(
            status.success(),
            "a resumed run failed: {status:?} (case {extra:?}, after {kills} kills): {}",
            std::fs::read_to_string(&messages).unwrap_or_default()
        );
        if since_fresh > 0 {
            assert_same_content(reference, store);
            assert_eq!(exploration(reference), exploration(store));
        }
        if kills >= KILLS_PER_CASE {
            return kills;
        }
        std::fs::remove_dir_all(store).expect("store removed");
        since_fresh = 0;
    }
}

#[test]
fn sigkill_at_random_moments_then_resume_gives_the_same_store() {
    let seed: u64 = std::env::var("HSG_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(7, |d| d.as_nanos() as u64)
        });
    eprintln!("resume test seed {seed} (set HSG_TEST_SEED to replay)");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut total = 0;
    for (name, extra) in CASES {
        let path = level(name);
        let dir = tempfile::tempdir().expect("temp dir");
        let reference = dir.path().join("reference");
        let started = Instant::now();
        explore(&path, &reference, extra);
        let typical = started.elapsed();
        let store = dir.path().join("killed");
        total += kill_and_resume(&path, &store, &reference, extra, typical, &mut rng);
    }
    assert!(total >= 20, "only {total} kills landed");
}

#[test]
fn sigint_checkpoints_and_says_how_to_resume() {
    sigint_then_resume(&["--max-states", "1500000"]);
}

#[test]
fn sigint_during_disk_based_detection_resumes_at_a_layer_boundary() {
    // Regression: an interrupt in the middle of a disk layer used to record
    // a position the store had not reached, and the resume refused it.
    sigint_then_resume(&["--max-depth", "40", "--index-limit", "100000"]);
}

#[test]
fn a_disk_phase_resumed_with_a_larger_budget_goes_back_to_memory() {
    let first = ["--max-depth", "40", "--index-limit", "100000"];
    let (interrupted, store, dir) = sigint_then_resume_with(&first, &["--max-depth", "40"]);
    if interrupted.contains("disk-based duplicate detection") && interrupted.contains("resume") {
        let resumed = std::fs::read_to_string(dir.path().join("resumed.err")).unwrap_or_default();
        assert!(resumed.contains("in memory again"), "{resumed}");
    }
    assert!(!store.join("scratch").exists(), "scratch runs left behind");
}

fn sigint_then_resume(extra: &[&str]) {
    sigint_then_resume_with(extra, extra);
}

/// Interrupts a run of room3 with `extra`, resumes it with `resume_extra` and
/// compares the result with an uninterrupted run's. Returns what the
/// interrupted run printed, the store and the directory that holds it (and
/// the resumed run's messages, in `resumed.err`).
fn sigint_then_resume_with(
    extra: &[&str],
    resume_extra: &[&str],
) -> (String, std::path::PathBuf, tempfile::TempDir) {
    let path = level("sokoban/room3.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let reference = dir.path().join("reference");
    explore(&path, &reference, extra);
    let child = hsg()
        .args(explore_args(&path, &store, extra))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hsg starts");
    std::thread::sleep(Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let out = child.wait_with_output().expect("hsg ends");
    let err = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(130) {
        assert!(err.contains("resume"), "{err}");
        assert_eq!(exploration(&store)["status"], "interrupted");
    } else {
        // The machine was fast enough to finish before the signal.
        assert!(out.status.success(), "{err}");
    }
    let resumed = hsg()
        .args(explore_args(&path, &store, resume_extra))
        .output()
        .expect("hsg runs");
    let resumed_err = String::from_utf8_lossy(&resumed.stderr).into_owned();
    assert!(resumed.status.success(), "{resumed_err}");
    std::fs::write(dir.path().join("resumed.err"), &resumed_err).expect("write");
    assert_same_content(&reference, &store);
    (err.into_owned(), store, dir)
}

/// Regression (issue 37): after `kill -9`, `hsg info` said "status running". It says
/// that no process holds the store, that the run is resumable, and the command that
/// resumes it, `hsg explore --store DIR` with no level file; that command resumes the
/// run (with its options, from the store) to the same store as an uninterrupted run.
#[test]
fn after_sigkill_info_says_stopped_and_its_command_resumes_the_run() {
    let path = level("sokoban/room3.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let extra = ["--max-states", "600000"];
    let reference = dir.path().join("reference");
    explore(&path, &reference, &extra);
    let store = dir.path().join("run");
    let store_arg = store.to_str().unwrap_or_default();
    let mut child = hsg()
        .args(explore_args(&path, &store, &extra))
        .args(["--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("hsg starts");
    let started = Instant::now();
    let running = loop {
        let info = crate::util::run(&["info", store_arg]);
        let text = String::from_utf8_lossy(&info.stdout).into_owned();
        if text.contains("status      running (pid") {
            break true;
        }
        if child.try_wait().expect("try_wait").is_some() {
            break false;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "{text}");
        std::thread::sleep(Duration::from_millis(20));
    };
    if !running {
        eprintln!("the run finished before its kill: nothing to check");
        return;
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let info = crate::util::ok(&["info", store_arg]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains("status      stopped: no process holds the store"),
        "{text}"
    );
    assert!(text.contains("resumable"), "{text}");
    let command = text
        .lines()
        .find_map(|l| l.strip_prefix("resume      "))
        .unwrap_or_else(|| panic!("no resume command in {text}"));
    assert_eq!(
        command,
        format!("{} explore --store {store_arg}", env!("CARGO_BIN_EXE_hsg"))
    );
    let words: Vec<&str> = command.split_whitespace().collect();
    let resumed = std::process::Command::new(words[0])
        .args(&words[1..])
        .output()
        .expect("the command runs");
    let err = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{err}");
    assert!(err.contains("resuming at"), "{err}");
    assert_same_content(&reference, &store);
    let info = crate::util::ok(&["info", store_arg]);
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains("status      partial") || text.contains("status      complete"),
        "{text}"
    );
    assert!(!text.contains("resume "), "{text}");
}

/// `hsg explore --store DIR` alone refuses a directory that holds no run, and `--level`
/// without a level file, saying what to name.
#[test]
fn explore_without_a_level_file_needs_a_run_to_resume() {
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = dir.path().join("empty");
    let out = crate::util::run(&["explore", "--store", empty.to_str().unwrap_or_default()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("holds no run to resume"), "{err}");
    assert!(!empty.exists(), "nothing made");
    let out = crate::util::run(&["explore", "--store", "x", "--level", "2"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("name the file"), "{err}");
}
