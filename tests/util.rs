//! Helpers shared by the integration tests: running `hsg`, locating levels,
//! reading reports and fingerprinting store files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A bundled level file.
pub fn level(name: &str) -> PathBuf {
    root().join("levels").join(name)
}

/// The `hsg` binary under test.
pub fn hsg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hsg"))
}

/// Runs `hsg` with `args` and returns its output.
pub fn run(args: &[&str]) -> Output {
    hsg().args(args).output().expect("hsg runs")
}

/// Runs `hsg` and asserts success.
pub fn ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "hsg {args:?} failed with {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Explores `level` into `store` with extra flags, asserting success.
pub fn explore(level: &Path, store: &Path, extra: &[&str]) {
    let mut args = vec![
        "explore",
        level.to_str().expect("utf-8 path"),
        "--store",
        store.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    ok(&args);
}

/// The JSON report of a store.
pub fn report(store: &Path) -> serde_json::Value {
    let out = ok(&["report", store.to_str().expect("utf-8 path"), "--json"]);
    serde_json::from_slice(&out.stdout).expect("report is JSON")
}

/// The `exploration` object of `hsg report --json --no-analysis`: what the explorer
/// wrote, without analysing the run (the resume tests check hundreds of stores).
pub fn exploration(store: &Path) -> serde_json::Value {
    let path = store.to_str().expect("utf-8 path");
    let out = ok(&["report", path, "--json", "--no-analysis"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report is JSON");
    report["exploration"].clone()
}

/// The content of a store: every data file's name and bytes, leaving out
/// what legitimately differs between two runs of the same exploration (the
/// manifest's timings and progress, the sled database, the lock, scratch).
pub fn store_content(store: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(store).expect("store is a directory") {
        let entry = entry.expect("directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let skip = ["MANIFEST", "meta.sled", "LOCK", "scratch", "hsg"];
        if entry.path().is_dir() || skip.iter().any(|s| name.starts_with(s)) {
            continue;
        }
        files.push((name, std::fs::read(entry.path()).expect("readable")));
    }
    files.sort();
    files
}

/// Asserts that two stores hold the same files with the same bytes.
pub fn assert_same_content(a: &Path, b: &Path) {
    let (ca, cb) = (store_content(a), store_content(b));
    let names = |c: &[(String, Vec<u8>)]| c.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ca), names(&cb), "different file sets");
    for ((name, x), (_, y)) in ca.iter().zip(&cb) {
        assert!(x == y, "{name} differs ({} vs {} bytes)", x.len(), y.len());
    }
}

/// A path as a command-line argument.
pub fn path_arg(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}
