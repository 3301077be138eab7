//! The stop flag handed to the game (`model::Game::interrupt_on`): what a game
//! answers once it is raised may be cut short, so nothing of it is committed,
//! and the resumed run matches an uninterrupted one (issue 20, item 7).

use crate::tests_wide::Quiet;
use crate::{explore, Ending, ExploreError, ExploreOptions};
use model::{Game, Move, OutcomeId, StateWidth, Successors};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{OpenMode, RunIdentity, RunWriter};

/// Counters `0..=LAST` stepping by one or two; `LAST` is terminal. Once
/// `trip` is set, the game raises the stop flag when asked about that state,
/// and then answers wrongly, as a game cut short would.
struct Tripwire {
    stop: Mutex<Option<Arc<AtomicBool>>>,
    trip: Option<u32>,
}

const LAST: u32 = 400;

impl Tripwire {
    fn raised(&self, s: u32) -> bool {
        let flag = self.stop.lock().map(|f| f.clone()).ok().flatten();
        let Some(flag) = flag else { return false };
        if self.trip == Some(s) {
            flag.store(true, Ordering::SeqCst);
        }
        flag.load(Ordering::SeqCst)
    }
}

fn counter(state: &[u8]) -> u32 {
    u32::from_le_bytes(state.try_into().unwrap_or([0; 4]))
}

impl Game for Tripwire {
    fn kind(&self) -> &'static str {
        "tripwire-test"
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(4)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![0u32.to_le_bytes().to_vec()]
    }
    fn action_labels(&self) -> Vec<String> {
        vec!["one".into(), "two".into()]
    }
    fn outcome_names(&self) -> Vec<String> {
        vec!["win".into(), "wrong".into()]
    }
    fn terminal(&self, state: &[u8]) -> Option<OutcomeId> {
        let s = counter(state);
        if self.raised(s) {
            return Some(1);
        }
        (s == LAST).then_some(0)
    }
    fn successors(&self, state: &[u8], out: &mut Successors) {
        let s = counter(state);
        let cut = self.raised(s);
        for step in [1, 2] {
            let next = if cut { LAST } else { (s + step).min(LAST) };
            out.push(Move::solo(step as u16 - 1), &next.to_le_bytes());
        }
    }
    fn render(&self, state: &[u8]) -> String {
        counter(state).to_string()
    }
    fn interrupt_on(&self, stop: Arc<AtomicBool>) {
        if let Ok(mut flag) = self.stop.lock() {
            *flag = Some(stop);
        }
    }
}

/// Explores the tripwire game into `dir` (resuming what is there).
fn run(dir: &Path, trip: Option<u32>, max_states: u64) -> Result<Ending, ExploreError> {
    let game = Tripwire {
        stop: Mutex::new(None),
        trip,
    };
    let identity = RunIdentity::new(
        game.kind().to_string(),
        "tripwire".into(),
        "tripwire".into(),
        BTreeMap::new(),
        4,
        false,
        game.action_labels(),
        game.outcome_names(),
        1,
        false,
    );
    let (writer, checkpoint) = RunWriter::open(dir, identity, OpenMode::ResumeOrCreate)?;
    let opts = ExploreOptions {
        mem_budget: 64 << 20,
        threads: 2,
        max_states: Some(max_states),
        max_depth: None,
        checkpoint_every: Duration::from_secs(3600),
        progress_every: Duration::from_secs(3600),
        stop: Arc::new(AtomicBool::new(false)),
        scratch_dir: dir.join("scratch"),
        index_limit: None,
        round_limit: None,
        parents_per_part: 4,
    };
    explore(&game, writer, checkpoint, &opts, &mut Quiet).map(|s| s.ending)
}

/// Every data file of a store (the manifest, with its timings, left out).
fn content(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, _)| !["MANIFEST", "LOCK"].iter().any(|s| n.starts_with(s)))
        .map(|(n, p)| (n, std::fs::read(p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn a_chunk_cut_short_by_the_stop_flag_is_discarded_and_resumed() {
    let reference = tempfile::tempdir().unwrap();
    assert_eq!(
        run(reference.path(), None, 1 << 20).unwrap(),
        Ending::Complete
    );
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), Some(150), 1 << 20).unwrap(),
        Ending::Interrupted
    );
    assert_eq!(run(dir.path(), None, 1 << 20).unwrap(), Ending::Complete);
    assert_eq!(content(reference.path()), content(dir.path()));
}

#[test]
fn a_stop_while_classifying_unexpanded_states_commits_nothing_of_it() {
    // The run ends partial at 100 states; the states left unexpanded are then
    // asked whether they are terminal, and the flag rises at one of them.
    let reference = tempfile::tempdir().unwrap();
    assert_eq!(run(reference.path(), None, 100).unwrap(), Ending::Partial);
    let dir = tempfile::tempdir().unwrap();
    let stopped = run(dir.path(), Some(99), 100);
    assert!(
        matches!(stopped, Err(ExploreError::StoppedWhileFinishing)),
        "{stopped:?}"
    );
    assert_eq!(run(dir.path(), None, 100).unwrap(), Ending::Partial);
    assert_eq!(content(reference.path()), content(dir.path()));
}
