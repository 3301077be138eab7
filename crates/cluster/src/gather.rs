//! `hsg gather`: the parts of a distributed run merged by id into one
//! ordinary store, byte for byte the store a single machine writes.
//!
//! Each part's states, rows and terminals are in increasing id order, and
//! ids are dense over the whole run, so a k-way merge that always takes the
//! part whose next record has the next id appends exactly what the
//! single-machine explorer appends, in the same order.

use crate::checked::CheckedReader;
use crate::part::reader;
use crate::part_manifest::{PartManifest, Point, PointStatus};
use crate::ClusterError;
use std::path::{Path, PathBuf};
use std::time::Instant;
use store::{Edge, OpenMode, Progress, RunStatus, RunWriter, StateId, MAX_STATE_ID};

/// What a gather did.
#[derive(Clone, Debug)]
pub struct GatherSummary {
    /// States in the gathered store.
    pub states: u64,
    /// Transitions in it.
    pub transitions: u64,
    /// True when the store already held this finished run.
    pub already_done: bool,
}

/// One part, checked, with its last commit point.
struct Source {
    dir: PathBuf,
    manifest: PartManifest,
    point: Point,
}

/// Merges the parts in `dirs` (in any order) into the store `out`.
pub fn gather(
    dirs: &[PathBuf],
    out: &Path,
    force_new: bool,
) -> Result<GatherSummary, ClusterError> {
    let sources = check_parts(dirs)?;
    let first = &sources[0];
    let point = first.point;
    let mode = if force_new {
        OpenMode::ForceNew
    } else {
        OpenMode::ResumeOrCreate
    };
    let (mut writer, checkpoint) = RunWriter::open(out, first.manifest.identity.clone(), mode)?;
    let last_layer = first.manifest.layers.last().copied().unwrap_or(0);
    if checkpoint.is_some() {
        if matches!(writer.status(), RunStatus::Complete | RunStatus::Partial) {
            return Ok(GatherSummary {
                states: writer.state_count(),
                transitions: writer.transition_count(),
                already_done: true,
            });
        }
        return Err(ClusterError::Gather(format!(
            "{} holds an unfinished exploration of this run; gather into another directory or use --force-new",
            out.display()
        )));
    }
    let started = Instant::now();
    let slot = first.manifest.identity.state_slot as usize;
    merge_states(&sources, &mut writer, last_layer, slot)?;
    merge_rows(
        &sources,
        &mut writer,
        point.expanded,
        first.manifest.identity.has_chance,
    )?;
    merge_terminals(&sources, &mut writer)?;
    writer.set_layers(&first.manifest.layers);
    let status = match point.status {
        PointStatus::Complete => RunStatus::Complete,
        _ => RunStatus::Partial,
    };
    let (states, transitions) = (writer.state_count(), writer.transition_count());
    let elapsed = started.elapsed().as_secs_f64();
    let progress = Progress {
        states,
        expanded: point.expanded,
        transitions,
        depth: first.manifest.layers.len().saturating_sub(2) as u32,
        states_per_sec: states as f64 / elapsed.max(1e-9),
        elapsed_secs: elapsed,
        updated_unix_ms: 0,
        pid: std::process::id(),
        disk_bytes: writer.disk_bytes(),
        phase: "gathered".into(),
        live_hsg: None,
    };
    writer.finish(status, progress)?;
    Ok(GatherSummary {
        states,
        transitions,
        already_done: false,
    })
}

/// Reads every part's manifest and checks that they make one finished run:
/// the same identity, process count, layer table and last point, each
/// process once. Returns them in process order.
fn check_parts(dirs: &[PathBuf]) -> Result<Vec<Source>, ClusterError> {
    let mut sources: Vec<Source> = Vec::new();
    for dir in dirs {
        // A folder without a PART file is not a part: say that, not "no such file".
        if !dir.join(crate::part_manifest::PART).is_file() {
            return Err(ClusterError::Gather(format!(
                "{}: not a part of a distributed exploration (it has no PART file)",
                dir.display()
            )));
        }
        let manifest = PartManifest::read(dir)?;
        let Some(&point) = manifest.last() else {
            return Err(ClusterError::Gather(format!(
                "{}: the part has committed nothing yet",
                dir.display()
            )));
        };
        if point.status == PointStatus::Running {
            return Err(ClusterError::Gather(format!(
                "{}: the exploration has not finished (last committed depth {}); run the same explore commands again to finish it",
                dir.display(),
                point.layer_count.saturating_sub(2)
            )));
        }
        sources.push(Source {
            dir: dir.clone(),
            manifest,
            point,
        });
    }
    sources.sort_by_key(|s| s.manifest.process);
    let n = dirs.len();
    for (k, s) in sources.iter().enumerate() {
        let m = &s.manifest;
        if m.processes != n {
            return Err(ClusterError::Gather(format!(
                "{} is a part of a run of {} processes, but {n} parts were given",
                s.dir.display(),
                m.processes
            )));
        }
        if m.process != k {
            return Err(ClusterError::Gather(format!(
                "the part of process {k} is missing (or given twice: {})",
                s.dir.display()
            )));
        }
        let first = &sources[0];
        let diff = first.manifest.identity.differences(&m.identity);
        if !diff.is_empty() {
            return Err(ClusterError::Gather(format!(
                "{} and {} are parts of different runs: {}",
                first.dir.display(),
                s.dir.display(),
                diff.join("; ")
            )));
        }
        if m.layers != first.manifest.layers || s.point.expanded != first.point.expanded {
            return Err(ClusterError::Gather(format!(
                "{} and {} stopped at different layers",
                first.dir.display(),
                s.dir.display()
            )));
        }
    }
    Ok(sources)
}

/// The next record of each part's file, by id.
struct Heads {
    readers: Vec<CheckedReader>,
    ids: Vec<Option<u64>>,
    scratch: Vec<u8>,
}

impl Heads {
    fn open(sources: &[Source], which: usize) -> Result<Heads, ClusterError> {
        let mut readers = Vec::new();
        for s in sources {
            match reader(&s.dir, &s.manifest, which)? {
                Some(r) => readers.push(r),
                None => {
                    return Err(ClusterError::Gather(format!(
                        "{}: nothing committed",
                        s.dir.display()
                    )))
                }
            }
        }
        let mut heads = Heads {
            ids: vec![None; readers.len()],
            readers,
            scratch: Vec::new(),
        };
        for k in 0..heads.readers.len() {
            heads.advance(k)?;
        }
        Ok(heads)
    }

    /// Reads part `k`'s next id (the first word of its next record).
    fn advance(&mut self, k: usize) -> Result<(), ClusterError> {
        let r = &mut self.readers[k];
        self.ids[k] = match r.at_end() {
            true => None,
            false => Some(r.u64(&mut self.scratch)?),
        };
        Ok(())
    }

    /// The part whose next record has id `id`.
    fn holding(&self, id: u64, what: &str) -> Result<usize, ClusterError> {
        self.ids
            .iter()
            .position(|&h| h == Some(id))
            .ok_or_else(|| ClusterError::Gather(format!("no part holds {what} {id}")))
    }

    fn leftover(&self, what: &str) -> Result<(), ClusterError> {
        match self.ids.iter().position(Option::is_some) {
            None => Ok(()),
            Some(k) => Err(crate::error::corrupt(
                self.readers[k].path(),
                format!("{what} past the end of the run"),
            )),
        }
    }
}

fn merge_states(
    sources: &[Source],
    writer: &mut RunWriter,
    states: u64,
    slot: usize,
) -> Result<(), ClusterError> {
    let mut heads = Heads::open(sources, 0)?;
    let mut record = Vec::with_capacity(slot);
    for id in 0..states {
        let k = heads.holding(id, "state")?;
        record.clear();
        heads.readers[k].take(slot, &mut record)?;
        writer.append_state(&record)?;
        heads.advance(k)?;
    }
    heads.leftover("states")
}

fn merge_rows(
    sources: &[Source],
    writer: &mut RunWriter,
    expanded: u64,
    chance: bool,
) -> Result<(), ClusterError> {
    let mut heads = Heads::open(sources, 1)?;
    let mut edges = Vec::new();
    let mut probs = Vec::new();
    let mut bytes = Vec::new();
    for parent in 0..expanded {
        let k = heads.holding(parent, "the row of state")?;
        let r = &mut heads.readers[k];
        bytes.clear();
        r.take(4, &mut bytes)?;
        let count = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        edges.clear();
        probs.clear();
        for _ in 0..count {
            edges.push(Edge::unpack(r.u64(&mut bytes)?));
        }
        if chance {
            for _ in 0..count {
                let w = r.u64(&mut bytes)?;
                probs.push(((w >> 32) as u32, w as u32));
            }
        }
        writer.append_edges(parent as StateId, &edges, chance.then_some(&probs[..]))?;
        heads.advance(k)?;
    }
    heads.leftover("rows")
}

fn merge_terminals(sources: &[Source], writer: &mut RunWriter) -> Result<(), ClusterError> {
    let mut heads = Heads::open(sources, 2)?;
    loop {
        let next = heads
            .ids
            .iter()
            .enumerate()
            .filter_map(|(k, h)| h.map(|w| (w & MAX_STATE_ID, k, w)))
            .min();
        let Some((id, k, word)) = next else {
            return Ok(());
        };
        writer.mark_terminal(id, (word >> 48) as u16)?;
        heads.advance(k)?;
    }
}
