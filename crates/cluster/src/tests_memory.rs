//! The protocol against the single-machine explorer: 1 to 4 processes as
//! threads over the in-memory exchange, their parts gathered, every file
//! compared with a single-machine run's.

use crate::{explore_part, gather, ClusterOptions, ClusterSummary, MemoryExchange, Part, Quiet};
use explore::{ExploreOptions, ProgressSink};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use store::{OpenMode, Progress, RunIdentity, RunWriter};

pub(crate) fn level(name: &str) -> games::Level {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../levels")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    games::load(name, &text, &games::LevelSelector::First).unwrap()
}

pub(crate) fn identity(level: &games::Level, max_depth: Option<u32>) -> RunIdentity {
    let game = level.game.as_ref();
    let slot = explore::Slot::for_width(game.state_width());
    let mut options = BTreeMap::new();
    if let Some(d) = max_depth {
        options.insert("max_depth".to_string(), d.to_string());
    }
    RunIdentity::new(
        game.kind().into(),
        level.title.clone(),
        level.text.clone(),
        options,
        slot.width() as u32,
        slot.is_variable(),
        game.action_labels(),
        game.outcome_names(),
        game.players(),
        game.has_chance(),
    )
}

struct NoSink;
impl ProgressSink for NoSink {
    fn progress(&mut self, _: &Progress) {}
    fn note(&mut self, _: &str) {}
}

pub(crate) fn single(level: &games::Level, dir: &Path, max_depth: Option<u32>) {
    let (writer, cp) =
        RunWriter::open(dir, identity(level, max_depth), OpenMode::CreateNew).unwrap();
    let opts = ExploreOptions {
        mem_budget: 256 << 20,
        threads: 1,
        max_states: None,
        max_depth,
        checkpoint_every: std::time::Duration::from_secs(1000),
        progress_every: std::time::Duration::from_secs(1000),
        stop: Default::default(),
        scratch_dir: dir.join("scratch"),
        index_limit: None,
        round_limit: None,
        parents_per_part: explore::PARENTS_PER_PART,
    };
    explore::explore(level.game.as_ref(), writer, cp, &opts, &mut NoSink).unwrap();
}

pub(crate) fn distributed(
    level: &games::Level,
    root: &Path,
    peers: usize,
    max_depth: Option<u32>,
) -> Vec<PathBuf> {
    distributed_within(level, root, peers, max_depth, None)
}

/// [`distributed`] with each process's index limited to `mem_budget` bytes.
fn distributed_within(
    level: &games::Level,
    root: &Path,
    peers: usize,
    max_depth: Option<u32>,
    mem_budget: Option<u64>,
) -> Vec<PathBuf> {
    distributed_runs(level, root, peers, max_depth, mem_budget).0
}

/// [`distributed_within`], with every process's summary.
pub(crate) fn distributed_runs(
    level: &games::Level,
    root: &Path,
    peers: usize,
    max_depth: Option<u32>,
    mem_budget: Option<u64>,
) -> (Vec<PathBuf>, Vec<ClusterSummary>) {
    let opts = ClusterOptions {
        max_depth,
        mem_budget,
        round_limit: None,
    };
    distributed_with(level, root, peers, &opts)
}

/// Explores `level` with `peers` threads under `opts`, each writing its part
/// under `root`; returns the parts and every process's summary.
pub(crate) fn distributed_with(
    level: &games::Level,
    root: &Path,
    peers: usize,
    opts: &ClusterOptions,
) -> (Vec<PathBuf>, Vec<ClusterSummary>) {
    let id = identity(level, opts.max_depth);
    let dirs: Vec<PathBuf> = (0..peers).map(|k| root.join(format!("part-{k}"))).collect();
    let summaries = std::thread::scope(|s| {
        let handles: Vec<_> = MemoryExchange::group(peers)
            .into_iter()
            .zip(&dirs)
            .map(|(ex, dir)| {
                let id = &id;
                let game = level.game.as_ref();
                s.spawn(move || {
                    let k = crate::Exchange::index(&ex);
                    let part = Part::open(dir, id, k, peers).unwrap();
                    explore_part(game, id, part, ex, opts, &mut Quiet).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    (dirs, summaries)
}

/// True when every process's index went to disk.
fn all_on_disk(summaries: &[ClusterSummary]) -> bool {
    summaries.iter().all(|s| s.used_disk)
}

/// The store's files with their bytes, and the manifest's fields that do not
/// depend on timing (progress, the explorer's resume data, checkpoint count).
pub(crate) fn content(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() || name == "LOCK" {
            continue;
        }
        let mut bytes = std::fs::read(entry.path()).unwrap();
        if name == "MANIFEST" {
            let mut m: serde_json::Value = serde_json::from_slice(&bytes[32..]).unwrap();
            for field in ["progress", "explorer", "checkpoint_seq"] {
                m.as_object_mut().unwrap().remove(field);
            }
            bytes = serde_json::to_vec(&m).unwrap();
        }
        files.push((name, bytes));
    }
    files.sort();
    files
}

fn check(name: &str, max_depth: Option<u32>) {
    let level = level(name);
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("single");
    single(&level, &reference, max_depth);
    let want = content(&reference);
    for peers in 1..=4 {
        let root = tmp.path().join(format!("n{peers}"));
        let parts = distributed(&level, &root, peers, max_depth);
        let out = root.join("gathered");
        gather(&parts, &out, false).unwrap();
        let got = content(&out);
        assert_eq!(
            got.iter().map(|f| &f.0).collect::<Vec<_>>(),
            want.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        for ((file, a), (_, b)) in got.iter().zip(&want) {
            assert!(a == b, "{name}, {peers} processes: {file} differs");
        }
    }
}

#[test]
fn gathered_stores_equal_the_single_machine_store() {
    check("sokoban/twoboxes.xsb", None);
    check("sokoban/corridor.xsb", None);
}

#[test]
fn chance_several_initial_states_and_other_games_too() {
    check("grammar/pig.game", None);
    check("grammar/tictactoe-random-start.game", None);
    check("puzzlegraph/Hanoi 3.txt", None);
}

#[test]
fn a_depth_limit_gives_the_same_partial_store() {
    check("sokoban/twoboxes.xsb", Some(7));
    check("sokoban/twoboxes.xsb", Some(0));
}

/// Cuts the part in `dir` back by `points` commit points, leaving the files'
/// later bytes behind as a process killed mid-layer leaves them.
pub(crate) fn forget(dir: &Path, points: usize) {
    let mut m = crate::PartManifest::read(dir).unwrap();
    let keep = m.history.len() - points;
    m.history.truncate(keep);
    m.layers.truncate(m.history.last().unwrap().layer_count);
    m.write(dir).unwrap();
}

#[test]
fn a_restart_resumes_from_the_last_layer_every_process_committed() {
    let level = level("sokoban/twoboxes.xsb");
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("single");
    single(&level, &reference, None);
    for peers in [2, 3] {
        let root = tmp.path().join(format!("n{peers}"));
        let parts = distributed(&level, &root, peers, None);
        // Process 0 lost its last three layers, process 1 one, the others none.
        forget(&parts[0], 3);
        forget(&parts[1], 1);
        let again = distributed(&level, &root, peers, None);
        let out = root.join("gathered");
        gather(&again, &out, false).unwrap();
        assert!(content(&out) == content(&reference), "{peers} processes");
    }
}

#[test]
fn parts_of_another_arrangement_are_refused() {
    let level = level("sokoban/corridor.xsb");
    let tmp = tempfile::tempdir().unwrap();
    let parts = distributed(&level, tmp.path(), 2, None);
    let id = identity(&level, None);
    let err = Part::open(&parts[0], &id, 0, 3).err().unwrap().to_string();
    assert!(
        err.contains("process 0 of 2") && err.contains("process 0 of 3"),
        "{err}"
    );
    let other = identity(&level, Some(3));
    let err = Part::open(&parts[1], &other, 1, 2)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("options"), "{err}");
    let err = gather(&parts[..1], &tmp.path().join("out"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("2 processes"), "{err}");
    let twice = [parts[0].clone(), parts[0].clone()];
    let err = gather(&twice, &tmp.path().join("out"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing"), "{err}");
    // A folder that is not a part is named as such, not as a missing file.
    let not_a_part = [parts[0].clone(), tmp.path().to_path_buf()];
    let err = gather(&not_a_part, &tmp.path().join("out"), false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("not a part of a distributed exploration"),
        "{err}"
    );
    forget(&parts[1], 2);
    let err = gather(&parts, &tmp.path().join("out"), false)
        .unwrap_err()
        .to_string();
    assert!(err.contains("has not finished"), "{err}");
}

#[test]
fn an_index_on_disk_gives_the_same_store_and_resumes() {
    let level = level("sokoban/twoboxes.xsb");
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("single");
    single(&level, &reference, None);
    for peers in [1, 3] {
        let root = tmp.path().join(format!("n{peers}"));
        // A budget smaller than the first table: the index goes to disk at once.
        let (parts, summaries) = distributed_runs(&level, &root, peers, None, Some(1));
        assert!(all_on_disk(&summaries), "every index went to disk");
        assert!(
            parts.iter().all(|p| !p.join("scratch").exists()),
            "scratch removed at the end"
        );
        forget(&parts[0], 4);
        let (again, summaries) = distributed_runs(&level, &root, peers, None, Some(1));
        assert!(
            all_on_disk(&summaries),
            "the resumed indexes went to disk too"
        );
        let out = root.join("gathered");
        gather(&again, &out, false).unwrap();
        assert!(content(&out) == content(&reference), "{peers} processes");
    }
}
