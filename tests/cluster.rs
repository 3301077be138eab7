//! Distributed exploration on loopback: `--local-processes` and `--cluster`
//! processes give a gathered store identical to the single-machine store,
//! resume after one process is killed with SIGKILL, refuse mismatched
//! processes, and never hang on a lost or missing peer.

use crate::util::{assert_same_content, hsg, level, ok, path_arg, run};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The manifest's fields that do not depend on timing: all but the progress, the
/// explorer's resume data and the checkpoint count.
fn manifest_fields(store: &Path) -> serde_json::Value {
    let bytes = std::fs::read(store.join("MANIFEST")).expect("manifest");
    let mut m: serde_json::Value = serde_json::from_slice(&bytes[32..]).expect("manifest body");
    for field in ["progress", "explorer", "checkpoint_seq"] {
        m.as_object_mut().expect("object").remove(field);
    }
    m
}

/// Asserts that two stores are the same run, file for file.
fn assert_same_store(a: &Path, b: &Path) {
    assert_same_content(a, b);
    assert_eq!(manifest_fields(a), manifest_fields(b), "MANIFEST differs");
}

/// A single-machine store of `level` with `extra` flags.
fn reference(dir: &Path, level: &Path, extra: &[&str]) -> PathBuf {
    let store = dir.join("single");
    let mut args = vec!["explore", path_arg(level), "--store", path_arg(&store)];
    args.extend_from_slice(extra);
    ok(&args);
    store
}

#[test]
fn local_processes_gather_the_single_machine_store() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // (level, flags of both runs, flags of the distributed run only)
    let cases: [(&str, &[&str], &[&str]); 3] = [
        ("sokoban/twoboxes.xsb", &[], &[]),
        ("sokoban/room3.xsb", &["--max-depth", "20"], &[]),
        // Each process's index goes to disk after the first layers.
        (
            "sokoban/room3.xsb",
            &["--max-depth", "19"],
            &["--mem", "64K"],
        ),
    ];
    for (name, extra, ours) in cases {
        let level = level(name);
        let case = tmp
            .path()
            .join(format!("{}{}", name.replace('/', "-"), ours.len()));
        let single = reference(&case, &level, extra);
        for n in ["1", "2", "4"] {
            let store = case.join(format!("n{n}"));
            let mut args = vec!["explore", path_arg(&level), "--store", path_arg(&store)];
            args.extend_from_slice(extra);
            args.extend_from_slice(ours);
            args.extend_from_slice(&["--local-processes", n]);
            let out = ok(&args);
            if !ours.is_empty() {
                let said = String::from_utf8_lossy(&out.stderr);
                assert!(said.contains("index on disk"), "{said}");
                let (rounds, layers) = rounds_and_layers(&said);
                assert!(rounds > layers, "{said}");
            }
            assert_same_store(&single, &store);
            assert!(
                !store.join("cluster").exists(),
                "the parts are removed once gathered"
            );
            let again = ok(&args);
            let said = String::from_utf8_lossy(&again.stderr);
            assert!(said.contains("nothing to do"), "{said}");
        }
    }
}

/// Process 0's `R rounds in L layers`, as it reports them at the end.
fn rounds_and_layers(said: &str) -> (u64, u64) {
    let line = said
        .lines()
        .find(|l| l.starts_with("process 0: "))
        .unwrap_or_else(|| panic!("no memory line in {said}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |k: usize| words[k].parse::<u64>().expect("a count");
    assert_eq!((words[3], words[4]), ("rounds", "in"), "{line}");
    (number(2), number(5))
}

/// `n` addresses on 127.0.0.1 that were free a moment ago, written as a host file.
fn hosts_file(dir: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let lines: Vec<String> = listeners
        .iter()
        .map(|l| format!("127.0.0.1:{}", l.local_addr().expect("address").port()))
        .collect();
    let path = dir.join(format!("hosts-{n}.txt"));
    std::fs::write(&path, lines.join("\n")).expect("host file");
    path
}

/// Starts process `i` of a cluster exploring `level` into `parts/part-i`.
fn start(level: &Path, parts: &Path, hosts: &Path, i: usize, extra: &[&str]) -> Child {
    let part = parts.join(format!("part-{i}"));
    hsg()
        .args(["explore", path_arg(level), "--store", path_arg(&part)])
        .args(["--cluster", path_arg(hosts), "--process", &i.to_string()])
        .args(["--connect-timeout", "30"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hsg starts")
}

/// Waits for a process, failing the test if it runs past `limit` (a hang).
fn finish(mut child: Child, limit: Duration) -> (bool, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let out = child.wait_with_output().expect("output");
            return (
                status.success(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("a process still ran after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Commit points the part in `dir` holds (0 before its manifest exists).
fn committed(dir: &Path) -> usize {
    let Ok(bytes) = std::fs::read(dir.join("PART")) else {
        return 0;
    };
    let body: serde_json::Value = serde_json::from_slice(&bytes[24..]).unwrap_or_default();
    body["history"].as_array().map_or(0, Vec::len)
}

fn part_dirs(parts: &Path, n: usize) -> Vec<PathBuf> {
    (0..n).map(|i| parts.join(format!("part-{i}"))).collect()
}

fn gather(parts: &[PathBuf], out: &Path) {
    let mut args = vec!["gather"];
    args.extend(parts.iter().map(|p| path_arg(p)));
    args.extend_from_slice(&["--store", path_arg(out)]);
    ok(&args);
}

#[test]
fn a_process_killed_mid_run_loses_no_more_than_its_layer() {
    killed_and_resumed(&[], &[(2, 14), (4, 17)]);
}

/// Layers in many rounds (each process's budget a small fraction of its
/// share of a layer) survive a kill mid-run as one round a layer does.
#[test]
fn a_process_killed_mid_run_under_a_small_budget_resumes_to_the_same_store() {
    killed_and_resumed(&["--mem", "1M"], &[(2, 14)]);
}

/// Explores room3 to depth 22 with `n` processes and `ours` flags, kills
/// process 1 once its part committed `points` layers, resumes every
/// process, and compares the gathered store with the single machine's.
fn killed_and_resumed(ours: &[&str], cases: &[(usize, usize)]) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/room3.xsb");
    let depth = ["--max-depth", "22"];
    let single = reference(tmp.path(), &level, &depth);
    let extra: Vec<&str> = depth.iter().chain(ours).copied().collect();
    for &(n, points) in cases {
        let parts = tmp.path().join(format!("parts-{n}"));
        let hosts = hosts_file(tmp.path(), n);
        let mut children: Vec<Child> = (0..n)
            .map(|i| start(&level, &parts, &hosts, i, &extra))
            .collect();
        // Killed once its part has committed some layers, long before the last.
        let victim_part = parts.join("part-1");
        let started = Instant::now();
        while committed(&victim_part) < points && started.elapsed() < Duration::from_secs(120) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let mut victim = children.remove(1);
        let killed = victim.try_wait().expect("wait").is_none();
        let _ = victim.kill();
        let _ = victim.wait();
        let limit = Duration::from_secs(60);
        for child in children {
            let (success, said) = finish(child, limit);
            if killed {
                assert!(!success, "a process whose peer was killed must fail");
                assert!(said.contains("resumable"), "{said}");
            }
        }
        let again: Vec<Child> = (0..n)
            .map(|i| start(&level, &parts, &hosts, i, &extra))
            .collect();
        for (i, child) in again.into_iter().enumerate() {
            let (success, said) = finish(child, Duration::from_secs(300));
            assert!(success, "{said}");
            if i == 0 && !ours.is_empty() {
                let (rounds, layers) = rounds_and_layers(&said);
                assert!(rounds > layers, "{said}");
            }
        }
        let out = tmp.path().join(format!("gathered-{n}"));
        gather(&part_dirs(&parts, n), &out);
        assert_same_store(&single, &out);
        assert!(
            killed,
            "the kill came after the run ended: make the run longer"
        );
    }
}

#[test]
fn mismatched_processes_are_refused_and_a_missing_one_does_not_hang() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let parts = tmp.path().join("parts");
    let hosts = hosts_file(tmp.path(), 2);
    let a = start(&level, &parts, &hosts, 0, &["--max-depth", "5"]);
    let b = start(&level, &parts, &hosts, 1, &["--max-depth", "6"]);
    for child in [a, b] {
        let (success, said) = finish(child, Duration::from_secs(60));
        assert!(!success);
        assert!(
            said.contains("another run") || said.contains("lost the cluster"),
            "{said}"
        );
    }
    // Parts of a two-process run, restarted as three processes.
    let parts = tmp.path().join("two");
    let hosts = hosts_file(tmp.path(), 2);
    let two: Vec<Child> = (0..2)
        .map(|i| start(&level, &parts, &hosts, i, &[]))
        .collect();
    for child in two {
        assert!(finish(child, Duration::from_secs(120)).0);
    }
    let hosts3 = hosts_file(tmp.path(), 3);
    let (success, said) = finish(
        start(&level, &parts, &hosts3, 0, &[]),
        Duration::from_secs(60),
    );
    assert!(!success);
    assert!(
        said.contains("process 0 of 2") && said.contains("process 0 of 3"),
        "{said}"
    );
    // A process whose peers never come gives up.
    let lonely = tmp.path().join("lonely");
    let out = run(&[
        "explore",
        path_arg(&level),
        "--store",
        path_arg(&lonely),
        "--cluster",
        path_arg(&hosts3),
        "--process",
        "2",
        "--connect-timeout",
        "1",
    ]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not every process"), "{said}");
}

#[test]
fn options_a_cluster_does_not_support_are_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let store = tmp.path().join("s");
    let out = run(&[
        "explore",
        path_arg(&level),
        "--store",
        path_arg(&store),
        "--local-processes",
        "2",
        "--threads",
        "2",
        "--max-states",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("--threads") && said.contains("--max-states"),
        "{said}"
    );
    assert!(!store.join("cluster").exists());
}

/// Regression (issue 37): `--local-processes` took any count (65536 spun binding ports,
/// 1000 started a thousand processes on two cores).
#[test]
fn local_process_counts_are_bounded() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let store = tmp.path().join("s");
    for n in ["0", "65", "1000", "65536"] {
        let out = run(&[
            "explore",
            path_arg(&level),
            "--store",
            path_arg(&store),
            "--local-processes",
            n,
        ]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{n}: {said}");
        assert!(said.contains("from 1 to 64"), "{n}: {said}");
        assert!(!store.exists(), "{n}: nothing made");
    }
}

/// Regression (issue 37): the `--local-processes` parent held no lock on the store, so a
/// second exploration into it was accepted and the gather then failed. It holds the
/// store's lock while its processes run, and SIGINT ends them all, resumably.
#[test]
fn the_local_cluster_holds_the_store_and_sigint_ends_it_resumably() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/room3.xsb");
    let extra = ["--max-depth", "22"];
    let single = reference(tmp.path(), &level, &extra);
    let store = tmp.path().join("cluster-run");
    let mut args = vec!["explore", path_arg(&level), "--store", path_arg(&store)];
    args.extend_from_slice(&extra);
    args.extend_from_slice(&["--local-processes", "2"]);
    let mut parent = Ended(
        hsg()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("hsg starts"),
    );
    let hosts = store.join("cluster").join("hosts.txt");
    let started = Instant::now();
    while !hosts.exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "no host file");
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut second = vec!["explore", path_arg(&level), "--store", path_arg(&store)];
    second.extend_from_slice(&extra);
    let second = run(&second);
    let said = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("another process (pid {})", parent.0.id())),
        "{said}"
    );
    let again = run(&args);
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "a second cluster too: {said}");
    assert!(said.contains("another process"), "{said}");
    let signal = std::process::Command::new("kill")
        .args(["-INT", &parent.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(signal.success());
    let ended = Instant::now();
    let status = parent.0.wait().expect("parent ends");
    assert!(ended.elapsed() < Duration::from_secs(30), "SIGINT honoured");
    let mut err = String::new();
    std::io::Read::read_to_string(parent.0.stderr.as_mut().expect("stderr piped"), &mut err)
        .expect("stderr");
    if status.code() == Some(130) {
        assert!(
            err.contains("interrupted") && err.contains("to resume, run:"),
            "{err}"
        );
        assert!(store.join("cluster").exists(), "the parts are kept");
    } else {
        assert!(status.success(), "finished before the signal: {err}");
    }
    ok(&args);
    assert_same_store(&single, &store);
}

/// Ends a process when the test ends, whatever happens in between.
struct Ended(Child);

impl Drop for Ended {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
