//! Numeric flags out of range: each is a usage error (exit code 2) with a message saying
//! what is allowed, read before any work starts, never a panic or a hang.

use crate::util::{level, run};

/// Runs `hsg` with `args` and asserts a usage error whose message contains `word`.
fn assert_usage_error(args: &[&str], word: &str) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.contains(word), "{args:?}: expected `{word}` in: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
}

#[test]
fn checkpoint_secs_inf_nan_and_1e300_are_usage_errors() {
    // Regression: `inf` and `1e300` panicked in `Duration::from_secs_f64`; `NaN` was accepted.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let lvl = level("sokoban/twoboxes.xsb");
    for bad in ["inf", "1e300", "NaN", "-1", "soon"] {
        let flag = format!("--checkpoint-secs={bad}");
        let args = [
            "explore",
            lvl.to_str().expect("utf-8 path"),
            "--store",
            store.to_str().expect("utf-8 path"),
            &flag,
        ];
        assert_usage_error(&args, "--checkpoint-secs");
    }
    assert!(!store.exists(), "a usage error must not create the store");
}

#[test]
fn mem_of_2_to_the_64_bytes_is_refused_when_read() {
    // Regression: `--mem 16777216T` looped forever in the explorer's memory sizing and
    // ignored SIGINT and SIGTERM.
    let lvl = level("sokoban/twoboxes.xsb");
    let lvl = lvl.to_str().expect("utf-8 path");
    for (flag, size) in [("--mem", "16777216T"), ("--mem", "1e300"), ("--mem", "0")] {
        assert_usage_error(&["explore", lvl, "--store", "d", flag, size], flag);
    }
    assert_usage_error(&["analyze", "d", "--analysis-mem", "16777216T"], "1024T");
    assert_usage_error(&["open", lvl, "--mem", "2000T"], "1024T");
}

#[test]
fn every_numeric_flag_refuses_values_out_of_range() {
    let lvl = level("sokoban/twoboxes.xsb");
    let lvl = lvl.to_str().expect("utf-8 path");
    let cases: [&[&str]; 18] = [
        &["explore", lvl, "--store", "d", "--threads", "0"],
        &["explore", lvl, "--store", "d", "--threads", "100000"],
        &["explore", lvl, "--store", "d", "--level", "0"],
        &["explore", lvl, "--store", "d", "--max-states=-1"],
        &["explore", lvl, "--store", "d", "--hsg-depth", "x"],
        &["open", lvl, "--threads", "0"],
        &["export", "d", "--format", "dot", "--max-nodes", "0"],
        &["compare", lvl, lvl, "--max-nodes", "0"],
        &["tree", lvl, "--store", "d", "--max-nodes", "0"],
        &["fling", "tables", "--max-pieces", "99", "--out", "d"],
        &["fling", "select", "--pieces", "1", "-o", "x"],
        &["fling", "select", "--pieces", "3", "--top", "0", "-o", "x"],
        &["sandbox", "generate", "exp2", "--instances", "0"],
        &["sandbox", "experiment", "exp2", "--out", "d", "--runs", "0"],
        &[
            "sandbox",
            "experiment",
            "exp2",
            "--out",
            "d",
            "--threads",
            "0",
        ],
        // Regression: these two panicked with a capacity overflow.
        &[
            "sandbox",
            "experiment",
            "exp2",
            "--out",
            "d",
            "--population",
            "18446744073709551615",
        ],
        &[
            "sandbox",
            "experiment",
            "exp2",
            "--out",
            "d",
            "--genes",
            "18446744073709551615",
        ],
        &[
            "sandbox",
            "experiment",
            "exp2",
            "--out",
            "d",
            "--updates=-5",
        ],
    ];
    for args in cases {
        assert_usage_error(args, "invalid value");
    }
}

#[test]
fn a_population_times_genes_beyond_memory_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().join("out");
    let args = [
        "sandbox",
        "experiment",
        "exp2",
        "--out",
        out_dir.to_str().expect("utf-8 path"),
        "--instances",
        "1",
        "--runs",
        "1",
        "--population",
        "10000000",
        "--genes",
        "100000",
    ];
    let out = run(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "a usage error: {err}");
    assert!(err.contains("population"), "{err}");
}

/// Runs `hsg args` in a shell whose address space is limited to about 1 GB, so that a
/// thousand thread stacks (2 MiB each) cannot all be created.
fn run_limited(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1000000 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_hsg"))
        .args(args)
        .output()
        .expect("sh runs")
}

#[test]
fn threads_the_system_refuses_are_an_error_not_a_panic() {
    // Regression: `--threads 100000` under a memory limit panicked in `thread::scope`.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    let lvl = level("sokoban/twoboxes.xsb");
    let store_arg = store.to_str().expect("utf-8 path");
    let lvl_arg = lvl.to_str().expect("utf-8 path");
    let out = run_limited(&[
        "explore",
        lvl_arg,
        "--store",
        store_arg,
        "--threads",
        "1000",
        "--mem",
        "64M",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot start 1000 worker threads"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // The store stays resumable with fewer threads.
    let out = run(&["explore", lvl_arg, "--store", store_arg, "--threads", "2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The sandbox's workers share their runs: the ones the system grants do them all.
    let out_dir = dir.path().join("experiment");
    let out = run_limited(&[
        "sandbox",
        "experiment",
        "exp2",
        "--instances",
        "2",
        "--runs",
        "2",
        "--updates",
        "10",
        "--threads",
        "1000",
        "--out",
        out_dir.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
}
