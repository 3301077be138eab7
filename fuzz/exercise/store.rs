//! What the store-reader fuzz target and its smoke test do with one input: replace one
//! file of a small valid run directory and open it with `store::Run::open`, which must
//! return an error or a run whose every state, row, edge, outcome and probability reads
//! within its maps, and which the analysis can condense, never panic.
//!
//! Input: byte 0 picks the file (`% FILES.len()`) and how the rest is used (`/ FILES.len()
//! % 2`): raw (the whole file, header included), or *behind valid checksums*: for a data
//! file, the data after its original header, with its sidecar's block checksums and the
//! manifest's commit (length and tail checksum) recomputed; for `MANIFEST`, its JSON body
//! behind a valid prefix. So a mutant reaches the checks behind the checksums, as a store
//! from someone else (bit flips with valid checksums, forged manifests) would.

// A test binary that includes two of these harnesses includes this file twice.
#[allow(clippy::duplicate_mod)]
#[path = "checksums.rs"]
mod checksums;

use checksums::{block_sums, manifest_bytes, recommit, write, CommitAt, HEADER, MANIFEST_PREFIX};
use std::collections::BTreeMap;
use std::path::PathBuf;
use store::{Edge, OpenMode, Progress, Run, RunIdentity, RunStatus, RunWriter};

/// The files of the run: name, and where its commit sits in the manifest (`None` for the
/// manifest itself and the checksum sidecars, which have no commit).
pub const FILES: [(&str, Option<CommitAt>); 15] = [
    ("MANIFEST", None),
    ("states-00000.seg", Some(("states", Some(0)))),
    ("rows.idx", Some(("rows", Some(0)))),
    ("rows.bits", Some(("rows", Some(1)))),
    ("edges.idx", Some(("edges", Some(0)))),
    ("edges.bits", Some(("edges", Some(1)))),
    ("trans.prob", Some(("trans_prob", None))),
    ("terminals", Some(("terminals", None))),
    ("states-00000.seg.sum", None),
    ("rows.idx.sum", None),
    ("rows.bits.sum", None),
    ("edges.idx.sum", None),
    ("edges.bits.sum", None),
    ("trans.prob.sum", None),
    ("terminals.sum", None),
];

/// States of the base run: more than two frames of rows (256 each) and a tail.
const STATES: u64 = 700;

/// A run directory holding a small valid run, and the bytes of its files.
pub struct Base {
    _dir: tempfile::TempDir,
    /// The run directory.
    pub run_dir: PathBuf,
    /// The original bytes of each of [`FILES`].
    pub files: Vec<Vec<u8>>,
}

/// The base run's game: three actions, two outcomes, chance on every other state.
fn identity() -> RunIdentity {
    RunIdentity::new(
        "fuzz".into(),
        "base".into(),
        "a small graph".into(),
        BTreeMap::new(),
        3,
        false,
        ["a", "b", "c"].map(String::from).to_vec(),
        ["win", "fail"].map(String::from).to_vec(),
        1,
        true,
    )
}

/// The edges of state `s` with their probabilities (sum 1 when there are any).
fn row(s: u64) -> (Vec<Edge>, Vec<(u32, u32)>) {
    if s % 7 == 3 {
        return (Vec::new(), Vec::new());
    }
    let targets = [(s * 5 + 1) % STATES, (s + 1) % STATES, s / 2];
    let n = 1 + (s % 3) as usize;
    let edges = (0..n)
        .map(|k| Edge {
            action: k as u16,
            target: targets[k],
        })
        .collect();
    (edges, vec![(1, n as u32); n])
}

impl Base {
    /// Writes the base run in a temporary directory.
    pub fn new() -> Base {
        let dir = tempfile::tempdir().expect("temp dir");
        let run_dir = dir.path().join("run");
        let (mut w, _) =
            RunWriter::open(&run_dir, identity(), OpenMode::CreateNew).expect("writer");
        for s in 0..STATES {
            w.append_state(&(s as u32).to_le_bytes()[..3])
                .expect("state");
        }
        for s in 0..STATES - 40 {
            let (edges, probs) = row(s);
            w.append_edges(s, &edges, Some(&probs)).expect("row");
            if s % 7 == 3 {
                w.mark_terminal(s, (s % 2) as u16).expect("terminal");
            }
        }
        w.set_layers(&[0, 1, 3, 40, 300]);
        w.finish(RunStatus::Partial, Progress::default())
            .expect("finished");
        let files = FILES
            .iter()
            .map(|(name, _)| std::fs::read(run_dir.join(name)).expect("run file"))
            .collect();
        Base {
            _dir: dir,
            run_dir,
            files,
        }
    }

    /// Seeds for a corpus: each file raw and behind valid checksums.
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        let n = FILES.len();
        let mut seeds = Vec::new();
        for (i, bytes) in self.files.iter().enumerate() {
            let skip = if i == 0 { MANIFEST_PREFIX } else { HEADER };
            seeds.push([&[i as u8][..], bytes].concat());
            seeds.push([&[(i + n) as u8][..], &bytes[skip.min(bytes.len())..]].concat());
        }
        seeds
    }

    /// Writes `data`'s file, opens the run, reads all of it, and puts the files back.
    pub fn apply(&self, data: &[u8]) {
        let Some((&pick, payload)) = data.split_first() else {
            return;
        };
        let index = usize::from(pick) % FILES.len();
        let valid = usize::from(pick) / FILES.len() % 2 == 1;
        let (name, commit) = FILES[index];
        let path = self.run_dir.join(name);
        let manifest = self.run_dir.join("MANIFEST");
        match (valid, index, commit) {
            (false, _, _) => write(&path, payload),
            (true, 0, _) => write(&path, &manifest_bytes(&self.files[0], payload)),
            (true, _, None) => write(&path, &[&self.files[index][..HEADER], payload].concat()),
            (true, _, Some(at)) => {
                write(&path, &[&self.files[index][..HEADER], payload].concat());
                let sums = self.run_dir.join(format!("{name}.sum"));
                write(
                    &sums,
                    &block_sums(&self.files[index + 7][..HEADER], payload),
                );
                let body = recommit(&self.files[0], at, payload);
                write(&manifest, &manifest_bytes(&self.files[0], &body));
            }
        }
        if let Ok(run) = Run::open(&self.run_dir) {
            read_everything(&run);
        }
        // Puts back what was written: the file, and its sidecar and the manifest.
        let mut changed = vec![index];
        if valid && commit.is_some() {
            changed.extend([index + 7, 0]);
        }
        for i in changed {
            write(&self.run_dir.join(FILES[i].0), &self.files[i]);
        }
    }
}

impl Default for Base {
    fn default() -> Base {
        Base::new()
    }
}

/// Reads every state, row, edge, outcome and probability of an opened run, derives its
/// in-edges and fingerprints, and analyses it: what readers do, which must stay within
/// the maps whatever the files said.
fn read_everything(run: &Run) {
    let states = run.state_count();
    let mut edges = 0u64;
    for id in 0..states {
        let _ = run.slot(id);
        let _ = run.depth(id);
        let _ = run.outcome(id);
        let start = run.out_edge_start(id);
        for (k, e) in run.out_edges(id).enumerate() {
            assert!(e.target < states, "edge to {} of {states} states", e.target);
            let _ = run.prob(start + k as u64);
            edges += 1;
        }
    }
    assert!(edges <= run.transition_count());
    let out = run.edges();
    out.for_each(0..out.len(), |_, e| assert!(e.target < states));
    for id in (0..states).step_by(97) {
        let _ = run.in_edges(id).count();
        let state = run.state(id).to_vec();
        if let Some(found) = run.find_state(&state) {
            assert_eq!(run.slot(found), run.slot(id));
        }
    }
    let _ = run.terminals().count();
    let _ = hsg::analyze_unsaved(run, &hsg::AnalyzeOptions::default());
}
