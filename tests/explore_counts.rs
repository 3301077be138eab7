//! Exploration end to end: counts from `hsg report --json` against the
//! oracle, thread-count independence, limits and identity checks.

use crate::oracle;
use crate::util::{assert_same_content, exploration, explore, level, report, run};

/// Small bundled levels whose whole space the oracle can count quickly.
pub const SMALL: [&str; 4] = [
    "sokoban/tiny.xsb",
    "sokoban/corridor.xsb",
    "sokoban/twoboxes.xsb",
    "sokoban/nowin.xsb",
];

#[test]
fn counts_match_the_oracle_on_small_levels() {
    for name in SMALL {
        let path = level(name);
        let text = std::fs::read_to_string(&path).expect("level readable");
        let expected = oracle::sokoban(&text);
        let dir = tempfile::tempdir().expect("temp dir");
        let store = dir.path().join("run");
        explore(&path, &store, &["--threads", "1"]);
        let r = report(&store);
        let e = &r["exploration"];
        assert_eq!(r["schema"], "hyperstate.report/1");
        assert_eq!(e["complete"], true, "{name}");
        assert_eq!(e["states"], expected.states, "{name}: states");
        assert_eq!(
            e["transitions"], expected.transitions,
            "{name}: transitions"
        );
        assert_eq!(e["outcomes"]["win"], expected.wins, "{name}: wins");
        assert_eq!(e["max_depth"], expected.max_depth, "{name}: depth");
    }
}

#[test]
fn thread_count_and_memory_budget_do_not_change_the_store() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let one = dir.path().join("one");
    let two = dir.path().join("two");
    let disk = dir.path().join("disk");
    explore(&path, &one, &["--threads", "1"]);
    explore(&path, &two, &["--threads", "2"]);
    // An index far smaller than the level forces disk-based duplicate detection.
    explore(&path, &disk, &["--threads", "2", "--index-limit", "300"]);
    assert_same_content(&one, &two);
    assert_same_content(&one, &disk);
}

/// A level big enough for the index to double a few times from its first
/// size, so that the doubling's bands move on several threads (and the
/// chunks, cut into parts the merging thread may take over, are full size).
#[test]
fn doublings_on_two_threads_keep_the_ids_of_one() {
    let limit = ["--max-states", "400000"];
    one_and_two_threads_agree("sokoban/room3.xsb", &limit, &limit);
}

/// Explores the bundled level `name` on one thread with `one` and on two
/// with `two` (further flags), and checks that the stores are identical.
fn one_and_two_threads_agree(name: &str, one: &[&str], two: &[&str]) {
    let path = level(name);
    let dir = tempfile::tempdir().expect("temp dir");
    let (a, b) = (dir.path().join("one"), dir.path().join("two"));
    explore(&path, &a, &[&["--threads", "1"][..], one].concat());
    explore(&path, &b, &[&["--threads", "2"][..], two].concat());
    assert_same_content(&a, &b);
}

/// The overlapped merge (the next chunk expanded and looked up while the
/// current one merges) must give the ids of a one-thread run. Tiny chunks give
/// small levels many chunks per layer, so the overlap, the lookups racing
/// the inserts and the layer ends are all exercised: on narrow states
/// (Sokoban, exact tags), wide ones (tic-tac-toe, whose fingerprints are
/// confirmed against the key arena) and a game with chance (Pig).
#[test]
fn the_overlapped_merge_gives_the_ids_of_one_thread() {
    let cases = [
        "sokoban/twoboxes.xsb",
        "grammar/tictactoe.game",
        "grammar/pig.game",
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    for name in cases {
        let path = level(name);
        let one = dir.path().join(format!("{name}-one").replace('/', "-"));
        explore(&path, &one, &["--threads", "1"]);
        for (threads, chunk) in [("2", "1"), ("2", "7"), ("3", "5")] {
            let other = dir
                .path()
                .join(format!("{name}-{threads}-{chunk}").replace('/', "-"));
            explore(
                &path,
                &other,
                &["--threads", threads, "--chunk-parents", chunk],
            );
            assert_same_content(&one, &other);
        }
    }
}

/// The disk phase resolves its candidates in rounds when a layer has more of
/// them than the budget allows at once; the states a round finds new must
/// take the ids of a one-pass search. Rounds end at chunk boundaries, so
/// chunks of two parents and rounds of 1 to 40 candidates cut every layer of
/// these small levels many times over, on narrow and wide states and with
/// chance. Each round sorts and looks up its candidates in one range a
/// thread: three threads cut rounds in three.
#[test]
fn mid_layer_rounds_on_disk_give_the_ids_of_an_in_memory_run() {
    let cases = [
        ("sokoban/twoboxes.xsb", "300"),
        ("grammar/tictactoe.game", "500"),
        ("grammar/pig.game", "300"),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, index) in cases {
        let path = level(name);
        let one = dir.path().join(format!("{name}-mem").replace('/', "-"));
        explore(&path, &one, &["--threads", "1"]);
        for (threads, round) in [("1", "1"), ("2", "7"), ("1", "40"), ("3", "40")] {
            let other = dir
                .path()
                .join(format!("{name}-{threads}-{round}").replace('/', "-"));
            let flags = [
                "--index-limit",
                index,
                "--round-candidates",
                round,
                "--chunk-parents",
                "2",
            ];
            explore(
                &path,
                &other,
                &[&["--threads", threads][..], &flags].concat(),
            );
            assert_same_content(&one, &other);
        }
    }
}

#[test]
fn a_state_limit_inside_an_overlapped_chunk_stops_where_one_thread_does() {
    let limited = ["--max-states", "150", "--chunk-parents", "3"];
    one_and_two_threads_agree("sokoban/twoboxes.xsb", &limited[..2], &limited);
}

#[test]
fn depth_limit_makes_a_partial_run() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&path, &store, &["--max-depth", "3"]);
    let e = exploration(&store);
    assert_eq!(e["complete"], false);
    assert_eq!(e["status"], "partial");
    assert_eq!(e["max_depth"], 3);
    assert!(e["expanded"].as_u64() < e["states"].as_u64());
}

#[test]
fn state_limit_stops_at_a_parent_boundary() {
    let path = level("sokoban/twoboxes.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&path, &store, &["--max-states", "50"]);
    let e = exploration(&store);
    assert_eq!(e["complete"], false);
    let states = e["states"].as_u64().unwrap_or(0);
    // At most one parent's successors (four moves) beyond the limit.
    assert!((50..=54).contains(&states), "{states} states");
}

#[test]
fn another_level_on_the_same_store_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("run");
    explore(&level("sokoban/tiny.xsb"), &store, &[]);
    let other = level("sokoban/corridor.xsb");
    let out = run(&[
        "explore",
        other.to_str().unwrap_or_default(),
        "--store",
        store.to_str().unwrap_or_default(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--force-new"), "{err}");
    explore(&other, &store, &["--force-new"]);
    assert_eq!(exploration(&store)["complete"], true);
}

/// The smallest `--mem` (50M) sends room4 to the disk phase at about 164
/// thousand states, so that its first 24 layers (1,049,468 states) go through
/// many rounds: the base run, the runs' filters and block searches, their
/// compaction and the index kept as a cache across rounds. The store must be
/// byte for byte the one of the default budget, on one thread and on two.
#[test]
fn the_smallest_budget_goes_to_disk_and_keeps_the_store_of_the_default_one() {
    let path = level("sokoban/room4.xsb");
    let dir = tempfile::tempdir().expect("temp dir");
    let depth = ["--max-depth", "24"];
    let reference = dir.path().join("default");
    explore(
        &path,
        &reference,
        &[&depth[..], &["--threads", "2"]].concat(),
    );
    for threads in ["1", "2"] {
        let store = dir.path().join(format!("mem-{threads}"));
        let args = [
            "explore",
            path.to_str().expect("utf-8 path"),
            "--store",
            store.to_str().expect("utf-8 path"),
            "--mem",
            "50M",
            "--threads",
            threads,
        ];
        let out = crate::util::ok(&[&args[..], &depth].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("duplicates detected on disk"), "{err}");
        assert_same_content(&reference, &store);
    }
}
