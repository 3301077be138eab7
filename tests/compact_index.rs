//! The compact visited index: a run whose word-layout index would outgrow its budget
//! rebuilds the index in the compact layout and stays in memory, with the same store as a
//! run that never ran short, through kills and resumes.

use crate::util::{assert_same_content, explore, hsg, level};
use std::process::Stdio;
use std::time::Duration;

/// room3's 2,231,030 states: under this budget the word layout holds about 1.47 million
/// states and the compact layout about 2.3 million.
const TIGHT: &str = "64M";

fn explore_args<'a>(level: &'a str, store: &'a str, mem: &'a str) -> Vec<&'a str> {
    vec![
        "explore",
        level,
        "--store",
        store,
        "--mem",
        mem,
        "--threads",
        "2",
    ]
}

#[test]
fn a_tight_budget_switches_to_the_compact_index_and_stays_in_memory() {
    let path = level("sokoban/room3.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let reference = dir.path().join("reference");
    explore(&path, &reference, &[]);
    let store = dir.path().join("tight");
    let (p, s) = (path.to_str().unwrap(), store.to_str().unwrap());
    let out = hsg()
        .args(explore_args(p, s, TIGHT))
        .output()
        .expect("hsg runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("compact layout"), "{err}");
    assert!(!err.contains("disk-based duplicate detection"), "{err}");
    assert!(!err.contains("duplicates detected on disk"), "{err}");
    let per_state: f64 = err
        .split("visited index: ")
        .nth(1)
        .and_then(|rest| rest.split(" bytes a state when full").next())
        .and_then(|rest| rest.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no index line in {err}"));
    assert!(per_state <= 8.0, "{per_state} bytes a state: {err}");
    assert_same_content(&reference, &store);
}

#[test]
fn kills_after_the_switch_resume_into_the_same_store() {
    let path = level("sokoban/room3.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let reference = dir.path().join("reference");
    explore(&path, &reference, &[]);
    let store = dir.path().join("killed");
    let (p, s) = (path.to_str().unwrap(), store.to_str().unwrap());
    for wait in [1500u64, 2500, 4000] {
        let mut child = hsg()
            .args(explore_args(p, s, TIGHT))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("hsg starts");
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().expect("SIGKILL");
        child.wait().expect("hsg ends");
    }
    let out = hsg()
        .args(explore_args(p, s, TIGHT))
        .output()
        .expect("hsg runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_same_content(&reference, &store);
}
