//! What the saved-analysis fuzz target and the workspace's smoke test do with one input:
//! replace one file of a valid saved analysis and load it back with `hsg::load`, which
//! must return an error or an analysis whose arrays agree with each other, never panic.
//!
//! Input: byte 0 picks the file (`% 8`) and how the rest is used: raw (the whole file,
//! header included) or as the data behind a header (or a `summary.json.xxh3`) the harness
//! writes with a valid checksum, so that the structural checks behind the checksums are
//! reached: an analysis from someone else may be damaged with valid checksums.

// A test binary that includes two of these harnesses includes this file twice.
#[allow(clippy::duplicate_mod)]
#[path = "checksums.rs"]
mod checksums;

use checksums::{analysis_header, summary_sum, write, HEADER};
use std::path::{Path, PathBuf};

/// The files of a saved analysis: name, record width (0: JSON).
pub const FILES: [(&str, u32); 8] = [
    ("component.bin", 4),
    ("members.idx", 8),
    ("members.bin", 4),
    ("edges.idx", 8),
    ("edges.bin", 16),
    ("hyperstates.bin", 32),
    ("ideal_path.bin", 8),
    ("summary.json", 0),
];

/// A run directory holding a valid saved analysis of a small graph, and the bytes of its
/// files, made once per process.
pub struct Base {
    _dir: tempfile::TempDir,
    /// The run directory (the analysis is in its `hsg/`).
    pub run_dir: PathBuf,
    /// The original bytes of each of [`FILES`].
    pub files: Vec<Vec<u8>>,
}

impl Base {
    /// Analyses a small graph with every tag and saves it in a temporary directory.
    pub fn new() -> Base {
        let edges = [
            (0, 0, 1),
            (1, 1, 0),
            (1, 2, 2),
            (2, 0, 3),
            (3, 1, 2),
            (3, 3, 4),
            (0, 2, 5),
            (0, 3, 6),
            (6, 0, 7),
            (7, 1, 6),
        ];
        let graph = hsg::MemGraph::new(8, &edges, &[(4, 0), (5, 1)]).expect("graph");
        let labels = hsg::Labels {
            actions: ["up", "down", "left", "right"].map(String::from).to_vec(),
            outcomes: ["win", "fail"].map(String::from).to_vec(),
        };
        let opts = hsg::AnalyzeOptions::default();
        let analysis =
            hsg::analyze_graph(&graph, &labels, &opts, Default::default()).expect("analysis");
        let dir = tempfile::tempdir().expect("temp dir");
        let run_dir = dir.path().to_path_buf();
        hsg::save(&analysis, &run_dir).expect("saved");
        let files = FILES
            .iter()
            .map(|(name, _)| std::fs::read(folder(&run_dir).join(name)).expect("saved file"))
            .collect();
        Base {
            _dir: dir,
            run_dir,
            files,
        }
    }

    /// Seeds for a corpus: each file raw and as data, as [`Base::apply`] reads them.
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        let mut seeds = Vec::new();
        for (i, bytes) in self.files.iter().enumerate() {
            let data = if FILES[i].1 == 0 {
                bytes
            } else {
                &bytes[HEADER..]
            };
            seeds.push([&[i as u8][..], bytes].concat());
            seeds.push([&[(i + 8) as u8][..], data].concat());
        }
        seeds
    }

    /// Writes `data`'s file, loads the analysis, checks it, and puts the file back.
    pub fn apply(&self, data: &[u8]) {
        let Some((&pick, payload)) = data.split_first() else {
            return;
        };
        let index = usize::from(pick) % FILES.len();
        let (name, width) = FILES[index];
        let raw = pick / 8 % 2 == 0;
        let path = folder(&self.run_dir).join(name);
        let sum = folder(&self.run_dir).join("summary.json.xxh3");
        match (raw, width) {
            (true, _) => write(&path, payload),
            (false, 0) => {
                write(&path, payload);
                write(&sum, &summary_sum(payload));
            }
            (false, _) => {
                let header = analysis_header(&self.files[index], width, payload);
                write(&path, &[&header[..], payload].concat());
            }
        }
        if let Ok(saved) = hsg::load(&self.run_dir) {
            check(&saved);
        }
        write(&path, &self.files[index]);
        if width == 0 {
            write(&sum, &summary_sum(&self.files[index]));
        }
    }
}

impl Default for Base {
    fn default() -> Base {
        Base::new()
    }
}

fn folder(run_dir: &Path) -> PathBuf {
    run_dir.join(hsg::persist::FOLDER)
}

/// What a loaded analysis promises its readers: every offset, member, edge target and
/// path entry indexes within its arrays (the workbench and exports index with them).
fn check(saved: &hsg::SavedAnalysis) {
    let h = saved.summary.hyperstates;
    assert_eq!(saved.member_offsets.len() as u64, h + 1);
    assert_eq!(saved.hyperstates.len() as u64, h);
    assert!(saved.member_offsets.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        saved.member_offsets.last().copied(),
        Some(saved.members.len() as u64)
    );
    assert!(saved.members.iter().all(|m| m < saved.summary.states));
    assert!(saved.component.iter().all(|c| c < h));
    assert!(saved.edges.targets.iter().all(|t| t < h));
    assert!(saved.ideal_path.iter().all(|&p| p < h));
    let _ = hsg::bfs_counters::lost_states(saved);
}
