//! The authenticated connections between processes, as threads of one test
//! process on loopback: the right key connects and explores the store the
//! memory exchange gives; another key, a stranger, another host list or
//! another run is refused with a message that says which.

use crate::auth::{Hello, HELLO};
use crate::connect::connect_all;
use crate::tests_memory::{content, distributed, identity, level};
use crate::{gather, ClusterConfig, ClusterError, ClusterKey};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `n` loopback addresses that were free a moment ago.
fn addresses(n: usize) -> Vec<String> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    held.iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect()
}

fn key(s: &str) -> ClusterKey {
    ClusterKey::new(s.as_bytes()).unwrap()
}

/// The configuration of process `i`, its notices collected in `said`.
fn config(
    addresses: &[String],
    i: usize,
    key: Option<ClusterKey>,
    depth: Option<u32>,
    said: &Arc<Mutex<Vec<String>>>,
) -> ClusterConfig {
    let said = said.clone();
    ClusterConfig {
        addresses: addresses.to_vec(),
        process: i,
        key,
        identity: identity(&level("sokoban/twoboxes.xsb"), depth),
        connect_timeout: Duration::from_secs(5),
        notice: Arc::new(move |s: &str| said.lock().unwrap().push(s.to_string())),
    }
}

/// Runs `connect_all` for every configuration at once, one thread each.
fn connect_each(configs: Vec<ClusterConfig>) -> Vec<Result<usize, ClusterError>> {
    let threads: Vec<_> = configs
        .into_iter()
        .map(|c| std::thread::spawn(move || connect_all(&c).map(|s| s.iter().flatten().count())))
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

#[test]
fn processes_with_the_same_key_connect_to_every_other() {
    let a = addresses(3);
    let said = Arc::new(Mutex::new(Vec::new()));
    let k = key("a key of sufficient length");
    let configs = (0..3)
        .map(|i| config(&a, i, Some(k.clone()), None, &said))
        .collect();
    for result in connect_each(configs) {
        assert_eq!(result.unwrap(), 2);
    }
    assert!(said.lock().unwrap().is_empty());
}

#[test]
fn another_key_is_refused_on_both_sides() {
    let a = addresses(2);
    let said = Arc::new(Mutex::new(Vec::new()));
    let configs = vec![
        config(&a, 0, Some(key("the first key, long enough")), None, &said),
        config(&a, 1, Some(key("the second key, long enough")), None, &said),
    ];
    let results = connect_each(configs);
    let listener = results[0].as_ref().unwrap_err().to_string();
    let connector = results[1].as_ref().unwrap_err().to_string();
    assert!(connector.contains("different keys"), "{connector}");
    assert!(
        listener.contains("not every process connected"),
        "{listener}"
    );
    let notes = said.lock().unwrap().join("\n");
    assert!(notes.contains("did not prove the cluster key"), "{notes}");
}

#[test]
fn a_stranger_is_refused_and_the_right_process_still_connects() {
    let a = addresses(2);
    let said = Arc::new(Mutex::new(Vec::new()));
    let k = key("a key of sufficient length");
    let zero = config(&a, 0, Some(k.clone()), None, &said);
    let listening = std::thread::spawn(move || connect_all(&zero).map(|s| s.len()));
    let connect = || loop {
        if let Ok(s) = TcpStream::connect(&a[0]) {
            break s;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // One speaks another protocol; one follows this protocol without the key.
    let mut foreign = connect();
    foreign.write_all(&[b'G'; HELLO]).unwrap();
    let mut mimic = connect();
    let hello = Hello::new(1, 2, [0; 32], [0; 32]).unwrap();
    mimic.write_all(&hello.encode()).unwrap();
    let mut theirs = [0u8; HELLO];
    mimic.read_exact(&mut theirs).unwrap();
    mimic.write_all(&[7u8; 32]).unwrap();
    let mut answer = Vec::new();
    mimic.read_to_end(&mut answer).unwrap();
    assert_eq!(answer, [0], "a refusal, and nothing proved");
    let (mimic_at, foreign_at) = (mimic.local_addr().unwrap(), foreign.local_addr().unwrap());
    let one = config(&a, 1, Some(k), None, &said);
    assert_eq!(connect_all(&one).unwrap().iter().flatten().count(), 1);
    assert_eq!(listening.join().unwrap().unwrap(), 2);
    let notes = said.lock().unwrap().join("\n");
    assert!(notes.contains(&format!("from {mimic_at}")), "{notes}");
    assert!(notes.contains(&format!("from {foreign_at}")), "{notes}");
    assert!(notes.contains("not an hsg cluster process"), "{notes}");
}

#[test]
fn another_host_list_or_another_run_is_named() {
    let said = Arc::new(Mutex::new(Vec::new()));
    let k = key("a key of sufficient length");
    let a = addresses(2);
    let mut b = a.clone();
    b.push("127.0.0.1:9".into());
    let results = connect_each(vec![
        config(&a, 0, Some(k.clone()), None, &said),
        config(&b, 1, Some(k.clone()), None, &said),
    ]);
    for r in &results {
        let e = r.as_ref().unwrap_err().to_string();
        assert!(e.contains("different host lists"), "{e}");
    }
    let results = connect_each(vec![
        config(&a, 0, Some(k.clone()), Some(5), &said),
        config(&a, 1, Some(k), Some(6), &said),
    ]);
    for r in &results {
        let e = r.as_ref().unwrap_err().to_string();
        assert!(e.contains("another run") && e.contains("options"), "{e}");
    }
}

#[test]
fn a_port_in_use_names_the_process_and_the_address() {
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let mut a = addresses(1);
    a.insert(0, held.local_addr().unwrap().to_string());
    let said = Arc::new(Mutex::new(Vec::new()));
    let zero = config(&a, 0, Some(key("a key of sufficient length")), None, &said);
    match connect_all(&zero) {
        Err(ClusterError::Listen {
            process, address, ..
        }) => assert_eq!((process, address), (0, a[0].clone())),
        other => panic!("{:?}", other.map(|s| s.len())),
    }
}

#[test]
fn authenticated_processes_explore_the_memory_exchanges_store() {
    let lv = Arc::new(level("sokoban/twoboxes.xsb"));
    let tmp = tempfile::tempdir().unwrap();
    let want_dir = tmp.path().join("want");
    gather(
        &distributed(&lv, &tmp.path().join("memory"), 1, None),
        &want_dir,
        false,
    )
    .unwrap();
    let a = addresses(2);
    let said = Arc::new(Mutex::new(Vec::new()));
    let k = key("a key of sufficient length");
    let root = Arc::new(tmp.path().join("timely"));
    let threads: Vec<_> = (0..2)
        .map(|i| {
            let c = config(&a, i, Some(k.clone()), None, &said);
            let (lv, root) = (lv.clone(), root.clone());
            std::thread::spawn(move || {
                let id = c.identity.clone();
                crate::run_cluster(c, move |ex| {
                    let part = crate::Part::open(&root.join(format!("part-{i}")), &id, i, 2)?;
                    let opts = crate::ClusterOptions::default();
                    crate::explore_part(lv.game.as_ref(), &id, part, ex, &opts, &mut crate::Quiet)
                })
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap().unwrap();
    }
    let parts: Vec<_> = (0..2).map(|k| root.join(format!("part-{k}"))).collect();
    let got_dir = tmp.path().join("got");
    gather(&parts, &got_dir, false).unwrap();
    assert!(content(&got_dir) == content(&want_dir));
}
