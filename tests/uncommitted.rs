//! A store whose explorer has not reached its first checkpoint (still running, or
//! killed before it) reads as "running, nothing committed yet", never as damaged
//! (issue 20, item 1).

use crate::util::{hsg, level, run};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Kills the exploration when the test ends, whatever happens in between.
struct Explorer(Child);

impl Drop for Explorer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts an exploration that will not checkpoint for a long time and waits until
/// its first state records have reached the segment file.
fn start_without_checkpoint(store: &Path) -> Explorer {
    start_checkpointing_after(store, "1000000")
}

/// Starts an exploration of room4 whose first checkpoint comes after `secs` seconds
/// and waits until its first state records have reached the segment file.
fn start_checkpointing_after(store: &Path, secs: &str) -> Explorer {
    let child = hsg()
        .args([
            "explore",
            level("sokoban/room4.xsb").to_str().unwrap_or_default(),
            "--store",
            store.to_str().unwrap_or_default(),
            "--checkpoint-secs",
            secs,
            "--max-states",
            "5000000",
            "--threads",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("hsg starts");
    let explorer = Explorer(child);
    let segment = store.join("states-00000.seg");
    let started = Instant::now();
    while std::fs::metadata(&segment).map_or(0, |m| m.len()) <= 64 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the exploration wrote no state"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    explorer
}

/// `info` says so and succeeds (while the explorer runs, that it runs; once it was
/// killed, that no process holds the store and how to start it over); `report`,
/// `analyze` and `verify` cannot do their job and fail with the same words; none calls
/// the store damaged. (`tui` waits for the first checkpoint: see below.)
fn assert_reads_as_uncommitted(store: &Path, running: bool) {
    let dir = store.to_str().unwrap_or_default();
    let info = run(&["info", dir]);
    let stdout = String::from_utf8_lossy(&info.stdout);
    assert!(info.status.success(), "info failed: {info:?}");
    if running {
        assert!(
            stdout.contains("running, nothing committed yet (pid"),
            "{stdout}"
        );
    } else {
        assert!(
            stdout.contains("stopped, nothing committed: no process holds the store"),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!(
                "start over {} explore --store {dir}",
                env!("CARGO_BIN_EXE_hsg")
            )),
            "{stdout}"
        );
    }
    for args in [
        vec!["report", dir, "--json"],
        vec!["report", dir, "--json", "--no-analysis"],
        vec!["analyze", dir],
        vec!["verify", dir],
    ] {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("running, nothing committed yet"),
            "{args:?}: {err}"
        );
        for word in ["checksum", "damaged", "mismatch", "panicked"] {
            assert!(!err.contains(word), "{args:?}: {err}");
        }
    }
}

#[test]
fn a_store_before_its_first_checkpoint_reads_as_running_with_nothing_committed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let mut explorer = start_without_checkpoint(&store);
    // While the exploration runs.
    assert_reads_as_uncommitted(&store, true);
    // After kill -9, with data written but never committed.
    explorer.0.kill().expect("SIGKILL");
    explorer.0.wait().expect("reaped");
    assert_reads_as_uncommitted(&store, false);
    // Nothing will ever be committed: `tui` says so at once, with the command that
    // starts the run over.
    let dir_arg = store.to_str().unwrap_or_default();
    let started = Instant::now();
    let tui = run(&["tui", dir_arg]);
    let err = String::from_utf8_lossy(&tui.stderr);
    assert_eq!(tui.status.code(), Some(1), "{err}");
    assert!(err.contains("stopped before its first checkpoint"), "{err}");
    assert!(err.contains(&format!("explore --store {dir_arg}")), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10), "no wait");
}

/// Regression (issue 37): `hsg tui DIR` before the run's first checkpoint exited with
/// advice that would have started the run over; it waits for the checkpoint instead
/// (here it then needs a terminal, which the test has not, and says that).
#[test]
fn tui_waits_for_the_first_checkpoint_of_a_running_exploration() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let _explorer = start_checkpointing_after(&store, "6");
    let dir_arg = store.to_str().unwrap_or_default();
    let tui = run(&["tui", dir_arg]);
    let err = String::from_utf8_lossy(&tui.stderr);
    assert!(
        err.contains("has not reached its first checkpoint yet; waiting for it"),
        "{err}"
    );
    assert!(
        err.contains("needs a terminal"),
        "waited, then went on: {err}"
    );
    assert!(!err.contains("starts it over"), "{err}");
}
