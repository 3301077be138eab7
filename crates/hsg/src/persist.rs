//! Saving an analysis into a run directory (`DIR/hsg/`, layout in
//! `docs/analysis-format.md`) and loading it back for the TUI and reports.
//!
//! A save writes every file into `DIR/hsg.tmp/`, fsyncs them, then swaps the folder in
//! (`hsg` -> `hsg.old`, `hsg.tmp` -> `hsg`, remove `hsg.old`), so readers see either the
//! old or the new analysis, and re-running gives the same bytes.

use crate::analysis::Analysis;
use crate::binfile::{
    read_records, u64_at, write_record_chunks, write_records, RecordStream, Records,
};
use crate::condense::HsgEdges;
use crate::error::HsgError;
use crate::ids::IdVec;
use crate::paths::UNREACHED;
use crate::summary::HsgSummary;
use crate::tags::Tag;
use std::fs;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// Name of the analysis folder inside a run directory (the run directory's names are
/// listed in `store::layout`).
pub const FOLDER: &str = store::layout::ANALYSIS;

pub(crate) const COMPONENT: (&str, &[u8; 8]) = ("component.bin", b"COMPONEN");
pub(crate) const MEMBERS_IDX: (&str, &[u8; 8]) = ("members.idx", b"MEMB-IDX");
pub(crate) const MEMBERS: (&str, &[u8; 8]) = ("members.bin", b"MEMBERS ");
pub(crate) const EDGES_IDX: (&str, &[u8; 8]) = ("edges.idx", b"EDGE-IDX");
pub(crate) const EDGES: (&str, &[u8; 8]) = ("edges.bin", b"HSGEDGES");
pub(crate) const HYPERSTATES: (&str, &[u8; 8]) = ("hyperstates.bin", b"HYPERST ");
pub(crate) const IDEAL_PATH: (&str, &[u8; 8]) = ("ideal_path.bin", b"IDEALPTH");
const SUMMARY: &str = store::layout::ANALYSIS_SUMMARY;
const SUMMARY_SUM: &str = "summary.json.xxh3";

/// Width of a hyperstate record in `hyperstates.bin`.
pub(crate) const HYPERSTATE_WIDTH: u32 = 32;

/// The per-hyperstate values stored in `hyperstates.bin`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyperstateInfo {
    /// Tag.
    pub tag: Tag,
    /// Flags (`tags::CONTAINS_TARGET`, `tags::OPEN`).
    pub flags: u8,
    /// Shortest depth from the root, in critical actions.
    pub depth: Option<u32>,
    /// Fewest critical actions to a target hyperstate.
    pub win_distance: Option<u32>,
    /// Fewest critical actions to a lost hyperstate.
    pub loss_distance: Option<u32>,
    /// Headroom in hyperstates (when computed).
    pub headroom_hyperstates: Option<f32>,
    /// Headroom in states (when computed).
    pub headroom_states: Option<f32>,
    /// One-step headroom (when computed and not a leaf).
    pub one_step_headroom: Option<f32>,
}

/// A saved analysis, loaded back.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedAnalysis {
    /// The summary.
    pub summary: HsgSummary,
    /// Hyperstate of every state.
    pub component: IdVec,
    /// Member offsets, `H + 1` entries.
    pub member_offsets: Vec<u64>,
    /// Member states, sorted within each hyperstate.
    pub members: IdVec,
    /// HSG edges.
    pub edges: HsgEdges,
    /// Per-hyperstate values.
    pub hyperstates: Vec<HyperstateInfo>,
    /// Hyperstates of the ideal path, root first.
    pub ideal_path: Vec<u64>,
}

impl SavedAnalysis {
    /// The same view of a fresh analysis, without going through files (copies arrays).
    pub fn from_analysis(a: &Analysis) -> SavedAnalysis {
        let c = &a.condensation;
        SavedAnalysis {
            summary: a.summary.clone(),
            component: c.components.of_state.clone(),
            member_offsets: c.member_offsets.clone(),
            members: c.members.clone(),
            edges: c.edges.clone(),
            hyperstates: (0..c.hyperstate_count() as usize)
                .map(|h| info_of(a, h))
                .collect(),
            ideal_path: a.spectrum.ideal_path.clone(),
        }
    }
}

fn info_of(a: &Analysis, h: usize) -> HyperstateInfo {
    let hr = a.headroom.as_ref();
    let pick = |v: Option<f32>| v.filter(|x| !x.is_nan());
    HyperstateInfo {
        tag: a.tagging.tags[h],
        flags: a.tagging.flags[h],
        depth: optional(a.depth[h]),
        win_distance: optional(a.win_distance[h]),
        loss_distance: optional(a.spectrum.loss_distance[h]),
        headroom_hyperstates: pick(hr.map(|r| r.hyperstates[h])),
        headroom_states: pick(hr.map(|r| r.states[h])),
        one_step_headroom: pick(hr.map(|r| r.one_step[h])),
    }
}

fn put_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn write_ids(path: &Path, kind: &[u8; 8], ids: &IdVec) -> Result<(), HsgError> {
    write_record_chunks(
        path,
        kind,
        ids.width() as u32,
        ids.len() as u64,
        |r, out| {
            let r = r.start as usize..r.end as usize;
            match ids {
                IdVec::U32(v) => out.extend(v[r].iter().flat_map(|x| x.to_le_bytes())),
                IdVec::U64(v) => out.extend(v[r].iter().flat_map(|x| x.to_le_bytes())),
            }
        },
    )
}

pub(crate) fn write_u64s(path: &Path, kind: &[u8; 8], values: &[u64]) -> Result<(), HsgError> {
    write_records(path, kind, 8, values.len() as u64, |i, out| {
        put_u64(out, values[i as usize])
    })
}

/// Saves `a` into `run_dir/hsg/`, replacing any earlier analysis.
pub fn save(a: &Analysis, run_dir: &Path) -> Result<PathBuf, HsgError> {
    let tmp = run_dir.join(store::layout::ANALYSIS_TMP);
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(|e| HsgError::io(&tmp, e))?;
    write_files(a, &tmp)?;
    // The folder's entries are durable before it takes the place of the old analysis:
    // its files were synced, their names in it were not.
    crate::binfile::sync_dir(&tmp).map_err(|e| HsgError::io(&tmp, e))?;
    let dest = run_dir.join(FOLDER);
    let old = run_dir.join(store::layout::ANALYSIS_OLD);
    let _ = fs::remove_dir_all(&old);
    let renamed = |from: &Path, to: &Path| {
        fs::rename(from, to).map_err(|e| HsgError::io(from, e))?;
        store::durability::note(store::durability::SyncEvent::Renamed { from, to });
        Ok::<(), HsgError>(())
    };
    if dest.exists() {
        renamed(&dest, &old)?;
    }
    renamed(&tmp, &dest)?;
    let _ = fs::remove_dir_all(&old);
    // Persist the renames; a failure here only risks the old analysis reappearing.
    let _ = crate::binfile::sync_dir(run_dir);
    Ok(dest)
}

/// Writes every file of `a` into `dir`: the two files of one id a state (most of the
/// bytes) each on a thread of its own, the rest on this one.
fn write_files(a: &Analysis, dir: &Path) -> Result<(), HsgError> {
    let c = &a.condensation;
    let (components, members, rest) = std::thread::scope(|scope| {
        let components =
            scope.spawn(|| write_ids(&dir.join(COMPONENT.0), COMPONENT.1, &c.components.of_state));
        let members = scope.spawn(|| write_ids(&dir.join(MEMBERS.0), MEMBERS.1, &c.members));
        let rest = write_small_files(a, dir);
        let join = |h: std::thread::ScopedJoinHandle<'_, Result<(), HsgError>>| {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        };
        (join(components), join(members), rest)
    });
    components.and(members).and(rest)
}

/// Every file but the two of one id a state.
fn write_small_files(a: &Analysis, dir: &Path) -> Result<(), HsgError> {
    let c = &a.condensation;
    write_u64s(&dir.join(MEMBERS_IDX.0), MEMBERS_IDX.1, &c.member_offsets)?;
    write_u64s(&dir.join(EDGES_IDX.0), EDGES_IDX.1, &c.edges.offsets)?;
    let e = &c.edges;
    write_records(&dir.join(EDGES.0), EDGES.1, 16, e.len(), |i, out| {
        put_u64(
            out,
            e.targets.at(i) | u64::from(e.actions[i as usize]) << 48,
        );
        put_u64(out, e.multiplicity[i as usize]);
    })?;
    write_records(
        &dir.join(HYPERSTATES.0),
        HYPERSTATES.1,
        HYPERSTATE_WIDTH,
        c.hyperstate_count(),
        |h, out| encode_hyperstate(a, h as usize, out),
    )?;
    write_u64s(
        &dir.join(IDEAL_PATH.0),
        IDEAL_PATH.1,
        &a.spectrum.ideal_path,
    )?;
    let json = serde_json::to_vec_pretty(&a.summary).map_err(|e| HsgError::Json {
        path: dir.join(SUMMARY),
        source: e,
    })?;
    write_synced(&dir.join(SUMMARY), &json)?;
    write_synced(
        &dir.join(SUMMARY_SUM),
        format!("{:016x}\n", xxh3_64(&json)).as_bytes(),
    )
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), HsgError> {
    use std::io::Write;
    let mut f = fs::File::create(path).map_err(|e| HsgError::io(path, e))?;
    f.write_all(bytes)
        .and_then(|_| crate::binfile::sync_file(&f, path))
        .map_err(|e| HsgError::io(path, e))
}

/// Record: tag u8, flags u8, 2 zero bytes, depth u32, win distance u32, loss distance
/// u32, headroom in hyperstates f32, in states f32, one-step f32, 4 zero bytes.
/// Missing distances are `u32::MAX`, missing headroom values NaN.
fn encode_hyperstate(a: &Analysis, h: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&[a.tagging.tags[h] as u8, a.tagging.flags[h], 0, 0]);
    put_u32(out, a.depth[h]);
    put_u32(out, a.win_distance[h]);
    put_u32(out, a.spectrum.loss_distance[h]);
    let (x, y, z) = a
        .headroom
        .as_ref()
        .map_or((f32::NAN, f32::NAN, f32::NAN), |hr| {
            (hr.hyperstates[h], hr.states[h], hr.one_step[h])
        });
    for v in [x, y, z] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    put_u32(out, 0);
}

/// Loads only the summary of the analysis saved in `run_dir` (cheap; for reports).
pub fn load_summary(run_dir: &Path) -> Result<HsgSummary, HsgError> {
    let dir = run_dir.join(FOLDER);
    let path = dir.join(SUMMARY);
    let bytes = fs::read(&path).map_err(|e| HsgError::io(&path, e))?;
    let sum_path = dir.join(SUMMARY_SUM);
    let recorded = fs::read_to_string(&sum_path).map_err(|e| HsgError::io(&sum_path, e))?;
    if recorded.trim() != format!("{:016x}", xxh3_64(&bytes)) {
        return Err(HsgError::corrupt(
            &path,
            "checksum mismatch with summary.json.xxh3",
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| HsgError::Json { path, source: e })
}

/// Loads and verifies the whole analysis saved in `run_dir`.
pub fn load(run_dir: &Path) -> Result<SavedAnalysis, HsgError> {
    let dir = run_dir.join(FOLDER);
    let summary = load_summary(run_dir)?;
    let component = read_ids(&dir, COMPONENT)?;
    let member_offsets = read_u64s(&dir, MEMBERS_IDX)?;
    let members = read_ids(&dir, MEMBERS)?;
    let offsets = read_u64s(&dir, EDGES_IDX)?;
    let edges = read_edges(&dir, offsets, summary.hyperstates)?;
    let hyperstates = read_hyperstates(&dir)?;
    let ideal_path = read_u64s(&dir, IDEAL_PATH)?;
    let saved = SavedAnalysis {
        summary,
        component,
        member_offsets,
        members,
        edges,
        hyperstates,
        ideal_path,
    };
    check_consistency(&saved, &dir)?;
    Ok(saved)
}

/// Reads a file of ids straight into its array, chunk by chunk (these files take one
/// id a state).
fn read_ids(dir: &Path, (name, kind): (&str, &[u8; 8])) -> Result<IdVec, HsgError> {
    let stream = RecordStream::open(&dir.join(name), kind, &[4, 8])?;
    let count = stream.count as usize;
    Ok(if stream.width == 4 {
        let mut ids = Vec::with_capacity(count);
        stream.for_each_chunk(|c| ids.extend(c.chunks_exact(4).map(u32_le)))?;
        IdVec::U32(ids.into())
    } else {
        let mut ids = Vec::with_capacity(count);
        stream.for_each_chunk(|c| ids.extend(c.chunks_exact(8).map(|b| u64_at(b, 0))))?;
        IdVec::U64(ids.into())
    })
}

pub(crate) fn u32_le(b: &[u8]) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[..4]);
    u32::from_le_bytes(x)
}

pub(crate) fn read_u64s(dir: &Path, (name, kind): (&str, &[u8; 8])) -> Result<Vec<u64>, HsgError> {
    let stream = RecordStream::open(&dir.join(name), kind, &[8])?;
    let mut values = Vec::with_capacity(stream.count as usize);
    stream.for_each_chunk(|c| values.extend(c.chunks_exact(8).map(|b| u64_at(b, 0))))?;
    Ok(values)
}

fn read_edges(dir: &Path, offsets: Vec<u64>, hyperstates: u64) -> Result<HsgEdges, HsgError> {
    let r: Records = read_records(&dir.join(EDGES.0), EDGES.1, &[16])?;
    let mut targets = Vec::with_capacity(r.count());
    let mut actions = Vec::with_capacity(r.count());
    let mut multiplicity = Vec::with_capacity(r.count());
    for i in 0..r.count() {
        let word = u64_at(r.record(i), 0);
        targets.push(word & ((1 << 48) - 1));
        actions.push((word >> 48) as u16);
        multiplicity.push(u64_at(r.record(i), 8));
    }
    // The rows are cut out of the targets below, so their offsets are checked first
    // (a damaged edges.idx behind a valid checksum made the slicing panic; found by fuzzing).
    let rows_fit = offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.last() == Some(&(targets.len() as u64));
    if !rows_fit {
        return Err(HsgError::corrupt(
            dir.join(EDGES_IDX.0),
            format!("expected increasing offsets from 0 to {}", targets.len()),
        ));
    }
    let mut pair_count = 0;
    for h in 0..offsets.len().saturating_sub(1) {
        let row = &targets[offsets[h] as usize..offsets[h + 1] as usize];
        pair_count +=
            row.windows(2).filter(|w| w[0] != w[1]).count() as u64 + u64::from(!row.is_empty());
    }
    let targets = if hyperstates <= u64::from(u32::MAX) {
        IdVec::U32(targets.iter().map(|&t| t as u32).collect())
    } else {
        IdVec::U64(targets.into())
    };
    Ok(HsgEdges {
        offsets,
        targets,
        actions,
        multiplicity,
        pair_count,
    })
}

fn optional(x: u32) -> Option<u32> {
    (x != UNREACHED).then_some(x)
}

fn optional_f32(b: &[u8]) -> Option<f32> {
    Some(f32::from_le_bytes([b[0], b[1], b[2], b[3]])).filter(|x| !x.is_nan())
}

fn read_hyperstates(dir: &Path) -> Result<Vec<HyperstateInfo>, HsgError> {
    let path = dir.join(HYPERSTATES.0);
    let r = read_records(&path, HYPERSTATES.1, &[HYPERSTATE_WIDTH])?;
    (0..r.count())
        .map(|i| {
            let b = r.record(i);
            decode_hyperstate(b).ok_or_else(|| {
                HsgError::corrupt(
                    &path,
                    format!("unknown tag {} at byte {}", b[0], 64 + i * 32),
                )
            })
        })
        .collect()
}

/// Decodes a record of `hyperstates.bin` (see `encode_hyperstate`); `None` when its
/// tag is unknown. `b` holds at least [`HYPERSTATE_WIDTH`] bytes.
pub(crate) fn decode_hyperstate(b: &[u8]) -> Option<HyperstateInfo> {
    Some(HyperstateInfo {
        tag: Tag::from_code(b[0])?,
        flags: b[1],
        depth: optional(u32_le(&b[4..])),
        win_distance: optional(u32_le(&b[8..])),
        loss_distance: optional(u32_le(&b[12..])),
        headroom_hyperstates: optional_f32(&b[16..]),
        headroom_states: optional_f32(&b[20..]),
        one_step_headroom: optional_f32(&b[24..]),
    })
}

/// Cross-checks file lengths against each other so later indexing cannot fail.
fn check_consistency(s: &SavedAnalysis, dir: &Path) -> Result<(), HsgError> {
    let h = s.summary.hyperstates;
    let bad = |name: &str, what: String| Err(HsgError::corrupt(dir.join(name), what));
    if s.component.len() as u64 != s.summary.states || s.component.iter().any(|x| x >= h) {
        return bad(
            COMPONENT.0,
            format!("expected {} hyperstate ids below {h}", s.summary.states),
        );
    }
    for (name, offsets, total) in [
        (MEMBERS_IDX.0, &s.member_offsets, s.members.len() as u64),
        (EDGES_IDX.0, &s.edges.offsets, s.edges.len()),
    ] {
        let monotone = offsets.windows(2).all(|w| w[0] <= w[1]);
        // `h` comes from summary.json and may be any u64: no `h + 1` that overflows.
        if Some(offsets.len() as u64) != h.checked_add(1)
            || !monotone
            || offsets.last() != Some(&total)
            || offsets.first() != Some(&0)
        {
            return bad(
                name,
                format!(
                    "expected {} increasing offsets from 0 to {total}",
                    h.saturating_add(1)
                ),
            );
        }
    }
    if s.members.iter().any(|m| m >= s.summary.states) {
        return bad(MEMBERS.0, "a member id is past the number of states".into());
    }
    if s.edges.targets.iter().any(|t| t >= h) {
        return bad(
            EDGES.0,
            "an edge targets a hyperstate past the count".into(),
        );
    }
    if s.hyperstates.len() as u64 != h || s.ideal_path.iter().any(|&x| x >= h) {
        return bad(
            HYPERSTATES.0,
            format!("expected {h} records and a valid ideal path"),
        );
    }
    Ok(())
}

#[cfg(test)]
#[path = "persist_tests.rs"]
mod tests;
