//! Chunks are cut by bytes as well as by parents: a game with thousands of
//! successors a state keeps its expanded chunks within [`super::CHUNK_BYTES`].

use super::{Bfs, CHUNK_BYTES};
use crate::options::{Ending, ExploreOptions};
use crate::tests_wide::Quiet;
use model::{Game, Move, OutcomeId, StateWidth, Successors};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use store::{OpenMode, RunIdentity, RunWriter};

/// States `0..STATES`, each leading to `FAN` others: a layer's parents have
/// far more successors than a chunk may hold at the default parent count.
struct Fan;

const STATES: u32 = 3_000;
const FAN: u32 = 1_500;

impl Game for Fan {
    fn kind(&self) -> &'static str {
        "fan"
    }
    fn state_width(&self) -> StateWidth {
        StateWidth::Fixed(4)
    }
    fn initial_states(&self) -> Vec<Vec<u8>> {
        vec![0u32.to_le_bytes().to_vec()]
    }
    fn action_labels(&self) -> Vec<String> {
        vec!["step".into()]
    }
    fn outcome_names(&self) -> Vec<String> {
        vec!["win".into()]
    }
    fn terminal(&self, _state: &[u8]) -> Option<OutcomeId> {
        None
    }
    fn successors(&self, state: &[u8], out: &mut Successors) {
        let k = u32::from_le_bytes(state.try_into().unwrap_or([0; 4]));
        for i in 0..FAN {
            let next = (k.wrapping_mul(7).wrapping_add(i)) % STATES;
            out.push(Move::solo(0), &next.to_le_bytes());
        }
    }
    fn render(&self, state: &[u8]) -> String {
        format!("{state:?}")
    }
}

/// Regression: a `.game` file whose states have 46,656 successors each held a
/// whole layer's successors in one chunk, 17 GB under `--mem 2G`.
#[test]
fn chunks_of_parents_with_thousands_of_successors_stay_within_their_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let identity = RunIdentity::new(
        "fan".into(),
        "fan".into(),
        "fan".into(),
        BTreeMap::new(),
        4,
        false,
        Fan.action_labels(),
        Fan.outcome_names(),
        1,
        false,
    );
    let (writer, _) =
        RunWriter::open(&dir.path().join("run"), identity, OpenMode::ResumeOrCreate).expect("open");
    let opts = ExploreOptions {
        mem_budget: 256 << 20,
        threads: 2,
        max_states: None,
        max_depth: None,
        checkpoint_every: Duration::from_secs(3600),
        progress_every: Duration::from_secs(3600),
        stop: Arc::new(AtomicBool::new(false)),
        scratch_dir: dir.path().join("scratch"),
        index_limit: None,
        round_limit: None,
        parents_per_part: crate::PARENTS_PER_PART,
    };
    let mut bfs = Bfs::new(&Fan, writer, &opts).expect("new");
    bfs.seed().expect("seed");
    assert_eq!(bfs.run(&mut Quiet).expect("run"), Ending::Complete);
    assert_eq!(bfs.writer.state_count(), u64::from(STATES));
    let held: usize = [&bfs.chunks.parts, &bfs.chunks.ahead]
        .iter()
        .flat_map(|parts| parts.iter())
        .map(|(p, _)| {
            p.records.capacity()
                + 8 * (p.tags.capacity() + p.ids.capacity() + p.infos.capacity())
                + 2 * p.actions.capacity()
        })
        .sum();
    // Twice the cap (the chunk ahead), and the slack of vectors grown by doubling.
    assert!(held <= 4 * CHUNK_BYTES, "{held} bytes in the parts");
}
