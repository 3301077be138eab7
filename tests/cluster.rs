//! Distributed exploration on loopback: `--local-processes` and `--cluster`
//! processes give a gathered store identical to the single-machine store,
//! resume after one process is killed with SIGKILL, refuse mismatched
//! processes, and never hang on a lost or missing peer.

use crate::util::{assert_same_content, hsg, level, ok, path_arg, run};
use std::io::{Read, Write};
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

/// The cluster key the tests' processes prove, unless a test says otherwise.
const KEY: &str = "a test key, not a secret: 0123456789";

/// `hsg`, with `key` as its cluster key (through the environment) and none
/// of the caller's own cluster key settings.
fn hsg_with_key(key: Option<&str>) -> std::process::Command {
    let mut cmd = hsg();
    cmd.env_remove("HSG_CLUSTER_KEY_FILE")
        .env_remove("HSG_CLUSTER_KEY");
    if let Some(key) = key {
        cmd.env("HSG_CLUSTER_KEY", key);
    }
    cmd
}

/// Starts process `i` of a cluster exploring `level` into `parts/part-i`.
fn start(level: &Path, parts: &Path, hosts: &Path, i: usize, extra: &[&str]) -> Child {
    start_with_key(level, parts, hosts, i, extra, Some(KEY))
}

/// [`start`] with `key` as the cluster key (and, unless `extra` gives one,
/// a connection timeout of 30 seconds).
fn start_with_key(
    level: &Path,
    parts: &Path,
    hosts: &Path,
    i: usize,
    extra: &[&str],
    key: Option<&str>,
) -> Child {
    let part = parts.join(format!("part-{i}"));
    let timeout: &[&str] = match extra.contains(&"--connect-timeout") {
        true => &[],
        false => &["--connect-timeout", "30"],
    };
    hsg_with_key(key)
        .args(["explore", path_arg(level), "--store", path_arg(&part)])
        .args(["--cluster", path_arg(hosts), "--process", &i.to_string()])
        .args(timeout)
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
    let out = hsg_with_key(Some(KEY))
        .args(["explore", path_arg(&level), "--store", path_arg(&lonely)])
        .args(["--cluster", path_arg(&hosts3), "--process", "2"])
        .args(["--connect-timeout", "1"])
        .output()
        .expect("hsg runs");
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

#[test]
fn a_cluster_process_without_a_good_key_is_refused_before_it_starts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let hosts = hosts_file(tmp.path(), 2);
    let part = tmp.path().join("part");
    let explore = |key: Option<&str>, extra: &[&str]| {
        let out = hsg_with_key(key)
            .args(["explore", path_arg(&level), "--store", path_arg(&part)])
            .args(["--cluster", path_arg(&hosts), "--process", "0"])
            .args(extra)
            .output()
            .expect("hsg runs");
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = explore(None, &[]);
    assert!(
        said.contains("--cluster-key FILE") && said.contains("HSG_CLUSTER_KEY"),
        "{said}"
    );
    let said = explore(Some("too short"), &[]);
    assert!(said.contains("at least 16 bytes"), "{said}");
    // A key file others may read is refused, as ssh refuses such a private key.
    let key = tmp.path().join("cluster.key");
    std::fs::write(&key, KEY).expect("key file");
    set_mode(&key, 0o644);
    let said = explore(None, &["--cluster-key", path_arg(&key)]);
    assert!(said.contains("chmod 600"), "{said}");
    // Two keys in the environment: which one is meant is not clear.
    let out = hsg_with_key(Some(KEY))
        .env("HSG_CLUSTER_KEY_FILE", &key)
        .args(["explore", path_arg(&level), "--store", path_arg(&part)])
        .args(["--cluster", path_arg(&hosts), "--process", "0"])
        .output()
        .expect("hsg runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("both"));
    assert!(
        !part.exists(),
        "nothing is written before the key is checked"
    );
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn processes_given_different_keys_refuse_each_other() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let parts = tmp.path().join("parts");
    let hosts = hosts_file(tmp.path(), 2);
    let timeout = ["--connect-timeout", "8"];
    let zero = start_with_key(&level, &parts, &hosts, 0, &timeout, Some(KEY));
    let one = start_with_key(
        &level,
        &parts,
        &hosts,
        1,
        &timeout,
        Some("another key, just as long as the first"),
    );
    let (success, said) = finish(one, Duration::from_secs(60));
    assert!(!success);
    assert!(said.contains("different keys"), "{said}");
    let (success, said) = finish(zero, Duration::from_secs(60));
    assert!(!success);
    assert!(
        said.contains("did not prove the cluster key") && said.contains("not every process"),
        "{said}"
    );
    assert!(committed(&parts.join("part-0")) <= 1, "nothing explored");
}

/// Connects to `address` once something listens there.
fn connect_when_up(address: &str) -> std::net::TcpStream {
    let started = Instant::now();
    loop {
        match std::net::TcpStream::connect(address) {
            Ok(s) => return s,
            Err(_) if started.elapsed() < Duration::from_secs(60) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(e) => panic!("{address} never listened: {e}"),
        }
    }
}

#[test]
fn strangers_are_refused_and_the_right_process_still_joins() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let single = reference(tmp.path(), &level, &[]);
    let parts = tmp.path().join("parts");
    let hosts = hosts_file(tmp.path(), 2);
    let text = std::fs::read_to_string(&hosts).expect("hosts");
    let address = text.lines().next().expect("a line");
    let zero = start(&level, &parts, &hosts, 0, &[]);
    // A client of another protocol.
    let mut foreign = connect_when_up(address);
    foreign
        .write_all(&[b"GET / HTTP/1.1\r\n".as_slice(), &[b' '; 96]].concat())
        .expect("send");
    // One that follows the handshake (a greeting as process 1 of 2) but
    // holds no key: its proof is made up.
    let mut mimic = connect_when_up(address);
    let mut hello = b"HSGCLU01".to_vec();
    hello.extend_from_slice(&1u32.to_le_bytes());
    hello.extend_from_slice(&2u32.to_le_bytes());
    hello.extend_from_slice(&[7u8; 96]);
    mimic.write_all(&hello).expect("greeting");
    let mut theirs = [0u8; 112];
    mimic
        .read_exact(&mut theirs)
        .expect("the listener's greeting");
    assert_eq!(&theirs[..8], b"HSGCLU01");
    mimic.write_all(&[9u8; 32]).expect("a made-up proof");
    let mut answer = Vec::new();
    mimic.read_to_end(&mut answer).expect("the answer");
    assert_eq!(answer, [0], "refused, and nothing proved to the stranger");
    let strangers = [foreign.local_addr(), mimic.local_addr()].map(|a| a.expect("address"));
    let one = start(&level, &parts, &hosts, 1, &[]);
    let (success, said) = finish(one, Duration::from_secs(120));
    assert!(success, "{said}");
    let (success, said) = finish(zero, Duration::from_secs(120));
    assert!(success, "{said}");
    for stranger in strangers {
        assert!(
            said.contains(&format!("refused a connection from {stranger}")),
            "{said}"
        );
    }
    assert!(said.contains("not an hsg cluster process"), "{said}");
    assert!(said.contains("did not prove the cluster key"), "{said}");
    let out = tmp.path().join("gathered");
    gather(&part_dirs(&parts, 2), &out);
    assert_same_store(&single, &out);
}

#[test]
fn a_port_in_use_names_the_address_and_the_host_file_line() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let level = level("sokoban/twoboxes.xsb");
    let held = TcpListener::bind("127.0.0.1:0").expect("a port");
    let taken = held.local_addr().expect("address").to_string();
    let free = TcpListener::bind("127.0.0.1:0")
        .expect("a port")
        .local_addr()
        .expect("address")
        .to_string();
    let hosts = tmp.path().join("hosts.txt");
    std::fs::write(&hosts, format!("# the cluster\n\n{taken}\n{free}\n")).expect("hosts");
    let (success, said) = finish(
        start(&level, &tmp.path().join("parts"), &hosts, 0, &[]),
        Duration::from_secs(60),
    );
    assert!(!success);
    assert!(
        said.contains(&format!("{} line 3", hosts.display()))
            && said.contains(&format!("cannot listen on {taken}"))
            && said.contains("already listens on that port"),
        "{said}"
    );
}

/// The commands of `docs/distributed.md`'s two-machine recipe: each line of
/// its section that starts with `machine-a$` or `machine-b$`, with the
/// machine's name and the command.
fn recipe() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string(crate::util::root().join("docs/distributed.md"))
        .expect("docs/distributed.md");
    let start = doc
        .find("## Two machines, step by step")
        .expect("the recipe's section");
    let section = &doc[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |e| e + 3);
    section[..end]
        .lines()
        .filter_map(|l| {
            let (machine, command) = l.trim().split_once("$ ")?;
            machine
                .starts_with("machine-")
                .then(|| (machine.to_string(), command.to_string()))
        })
        .collect()
}

/// Runs the two-machine recipe of the docs as written, two directories
/// standing for the two machines: the documentation addresses become two
/// free ports of 127.0.0.1, `hsg` is the binary under test, and `scp`
/// copies between the directories (`machine-b:part` is `machine-b/part`).
/// The `hsg explore` lines of the two machines run at once, as the recipe
/// asks; every other line runs to its end before the next starts. The
/// gathered store must be the single machine's, file for file.
#[test]
fn the_two_machine_recipe_of_the_docs_runs_as_written() {
    let steps = recipe();
    assert!(steps.len() >= 8, "{steps:?}");
    let tmp = tempfile::tempdir().expect("tempdir");
    for machine in ["machine-a", "machine-b"] {
        std::fs::create_dir(tmp.path().join(machine)).expect("a machine's directory");
    }
    std::fs::copy(
        level("sokoban/room3.xsb"),
        tmp.path().join("machine-a/room3.xsb"),
    )
    .expect("the level on machine A");
    let ports: Vec<String> = (0..2)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a port"))
        .collect::<Vec<_>>()
        .iter()
        .map(|l| l.local_addr().expect("address").to_string())
        .collect();
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_hsg"));
    let path = format!(
        "{}:{}",
        bin.parent().expect("the binary's directory").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scp = format!(
        r#"scp() {{ local a=(); for x in "$@"; do case "$x" in -*) ;; *:*) a+=("{root}/${{x%%:*}}/${{x#*:}}") ;; *) a+=("$x") ;; esac; done; cp -rp "${{a[@]}}"; }}; "#,
        root = tmp.path().display()
    );
    let shell = |machine: &str, command: &str| {
        let command = command
            .replace("192.0.2.10:7100", &ports[0])
            .replace("192.0.2.11:7100", &ports[1]);
        let mut cmd = std::process::Command::new("bash");
        cmd.arg("-c")
            .arg(format!("{scp}{command}"))
            .current_dir(tmp.path().join(machine))
            .env("PATH", &path)
            .env_remove("HSG_CLUSTER_KEY")
            .env_remove("HSG_CLUSTER_KEY_FILE")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    };
    let mut running: Vec<(String, Child)> = Vec::new();
    let wait_all = |running: &mut Vec<(String, Child)>| {
        for (what, child) in running.drain(..) {
            let (success, said) = finish(child, Duration::from_secs(600));
            assert!(success, "{what}: {said}");
        }
    };
    for (machine, command) in &steps {
        let what = format!("{machine}$ {command}");
        let mut cmd = shell(machine, command);
        if command.contains("--cluster ") {
            running.push((what, cmd.spawn().expect("bash starts")));
            continue;
        }
        wait_all(&mut running);
        let out = cmd.output().expect("bash runs");
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    wait_all(&mut running);
    let a = tmp.path().join("machine-a");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(tmp.path().join("machine-b/cluster.key"))
            .expect("the key on machine B")
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600, "the key stays private on machine B");
    assert_same_store(&a.join("single"), &a.join("room3"));
}
