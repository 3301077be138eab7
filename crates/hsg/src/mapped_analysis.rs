//! [`MappedAnalysis`]: the analysis saved under `DIR/hsg/` read in place from its
//! mapped files. Opening it reads the summary, the ideal path and the six headers
//! (milliseconds, where [`crate::load`] reads gigabytes on a billion-state run), and
//! [`MappedAnalysis::verify_watched`] then checks every checksum and every value the
//! way `load` does, in one pass, with progress and a way to stop: the workbench shows
//! the analysis at once and verifies it in the background.

use crate::binfile::{check_header, u64_at, RecordHeader, HEADER_LEN};
use crate::error::HsgError;
use crate::persist::{
    decode_hyperstate, read_u64s, u32_le, HyperstateInfo, COMPONENT, EDGES, EDGES_IDX, FOLDER,
    HYPERSTATES, HYPERSTATE_WIDTH, IDEAL_PATH, MEMBERS, MEMBERS_IDX,
};
use crate::saved_view::{range_of, SavedEdge, SavedView};
use crate::summary::HsgSummary;
use crate::tags::Tag;
use std::ops::Range;
use std::path::{Path, PathBuf};
use store::FileMap;
use xxhash_rust::xxh3::Xxh3;

/// One mapped file of records, its header checked.
struct RecordMap {
    map: FileMap,
    header: RecordHeader,
}

impl RecordMap {
    fn open(dir: &Path, (name, kind): (&str, &[u8; 8]), widths: &[u32]) -> Result<Self, HsgError> {
        let path = dir.join(name);
        let map = FileMap::open(&path).map_err(|e| HsgError::Store(e.to_string()))?;
        let bytes = map.bytes();
        let mut head = [0u8; HEADER_LEN];
        if let Some(h) = bytes.get(..HEADER_LEN) {
            head.copy_from_slice(h);
        }
        let header = check_header(&path, &head, bytes.len() as u64, kind, widths)?;
        Ok(RecordMap { map, header })
    }

    fn path(&self) -> &Path {
        self.map.path()
    }

    fn count(&self) -> u64 {
        self.header.count
    }

    /// The records' bytes (the header's count matched the file's length at open).
    fn data(&self) -> &[u8] {
        self.map.bytes().get(HEADER_LEN..).unwrap_or(&[])
    }

    fn record(&self, i: u64) -> Option<&[u8]> {
        let w = self.header.width;
        let start = usize::try_from(i).ok()?.checked_mul(w)?;
        self.data().get(start..start.checked_add(w)?)
    }

    /// Record `i` of a file of 4- or 8-byte words.
    fn word(&self, i: u64) -> Option<u64> {
        let b = self.record(i)?;
        Some(match b.len() {
            4 => u64::from(u32_le(b)),
            _ => u64_at(b, 0),
        })
    }

    /// Checks the checksum of the data and, in the same pass, its values: `check` is
    /// given each chunk of whole records with the index of its first record and says
    /// what is wrong, if anything. `tick` as for [`MappedAnalysis::verify_watched`].
    fn scan(
        &self,
        tick: &mut dyn FnMut(&Path, u64) -> bool,
        mut check: impl FnMut(u64, &[u8]) -> Option<String>,
    ) -> Result<bool, HsgError> {
        // A multiple of every record width (4, 8, 16 and 32 bytes).
        const CHUNK: usize = 1 << 20;
        let data = self.data();
        let mut hasher = Xxh3::new();
        let mut problem = None;
        for (n, chunk) in data.chunks(CHUNK).enumerate() {
            hasher.update(chunk);
            if problem.is_none() {
                problem = check((n * CHUNK / self.header.width) as u64, chunk);
            }
            if !tick(self.path(), chunk.len() as u64) {
                return Ok(false);
            }
        }
        // Damage is named as such before what it made of the values.
        if hasher.digest() != self.header.checksum {
            return Err(HsgError::corrupt(
                self.path(),
                format!(
                    "checksum mismatch: the data after byte 64 is damaged (the file keeps one \
                     checksum for its bytes 64..{}, so the damage may lie anywhere in them)",
                    HEADER_LEN + data.len()
                ),
            ));
        }
        match problem {
            Some(what) => Err(HsgError::corrupt(self.path(), what)),
            None => Ok(true),
        }
    }
}

/// A saved analysis read in place (see the module's documentation).
pub struct MappedAnalysis {
    folder: PathBuf,
    summary: HsgSummary,
    component: RecordMap,
    member_offsets: RecordMap,
    members: RecordMap,
    edge_offsets: RecordMap,
    edges: RecordMap,
    hyperstates: RecordMap,
    ideal_path: Vec<u64>,
}

impl MappedAnalysis {
    /// Maps the analysis saved in `run_dir`: the summary (its checksum verified),
    /// the ideal path (read whole and verified: it is short) and the headers of the
    /// other files, whose counts must agree with the summary. Their data is verified
    /// by [`MappedAnalysis::verify_watched`].
    pub fn open(run_dir: &Path) -> Result<MappedAnalysis, HsgError> {
        let folder = run_dir.join(FOLDER);
        let summary = crate::persist::load_summary(run_dir)?;
        let ideal_path = read_u64s(&folder, IDEAL_PATH)?;
        let h = summary.hyperstates;
        let m = MappedAnalysis {
            component: RecordMap::open(&folder, COMPONENT, &[4, 8])?,
            member_offsets: RecordMap::open(&folder, MEMBERS_IDX, &[8])?,
            members: RecordMap::open(&folder, MEMBERS, &[4, 8])?,
            edge_offsets: RecordMap::open(&folder, EDGES_IDX, &[8])?,
            edges: RecordMap::open(&folder, EDGES, &[16])?,
            hyperstates: RecordMap::open(&folder, HYPERSTATES, &[HYPERSTATE_WIDTH])?,
            folder,
            summary,
            ideal_path,
        };
        let expect = |file: &RecordMap, count: Option<u64>, what: &str| {
            if Some(file.count()) == count {
                return Ok(());
            }
            Err(HsgError::corrupt(
                file.path(),
                format!("{} records, but summary.json counts {what}", file.count()),
            ))
        };
        let states = format!("{} states", m.summary.states);
        expect(&m.component, Some(m.summary.states), &states)?;
        let offsets = format!("{h} hyperstates (one more offset than hyperstates)");
        expect(&m.member_offsets, h.checked_add(1), &offsets)?;
        expect(&m.edge_offsets, h.checked_add(1), &offsets)?;
        expect(&m.hyperstates, Some(h), &format!("{h} hyperstates"))?;
        if m.ideal_path.iter().any(|&x| x >= h) {
            return Err(HsgError::corrupt(
                m.folder.join(IDEAL_PATH.0),
                format!("a hyperstate of the ideal path is past the {h} hyperstates"),
            ));
        }
        Ok(m)
    }

    /// The folder the analysis was mapped from (`DIR/hsg/`).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The files read by [`MappedAnalysis::verify_watched`], in its order.
    fn files(&self) -> [&RecordMap; 6] {
        [
            &self.hyperstates,
            &self.member_offsets,
            &self.edge_offsets,
            &self.edges,
            &self.component,
            &self.members,
        ]
    }

    /// The work [`MappedAnalysis::verify_watched`] reports in all: the data bytes of
    /// the mapped files.
    pub fn verify_work(&self) -> u64 {
        self.files().iter().map(|f| f.data().len() as u64).sum()
    }

    /// Verifies every checksum and checks every value as [`crate::load`] does (ids
    /// below their counts, offsets increasing from 0 to their list's length, known
    /// tags), calling `tick(file, bytes)` as it goes; `tick` returning false stops it
    /// (`Ok(false)`: nothing was found wrong in what was read). The first damage found
    /// is the error, naming the file.
    pub fn verify_watched(
        &self,
        tick: &mut dyn FnMut(&Path, u64) -> bool,
    ) -> Result<bool, HsgError> {
        let h = self.summary.hyperstates;
        let states = self.summary.states;
        let (cw, mw) = (self.component.header.width, self.members.header.width);
        Ok(self.hyperstates.scan(tick, known_tags)?
            && scan_offsets(&self.member_offsets, self.members.count(), tick)?
            && scan_offsets(&self.edge_offsets, self.edges.count(), tick)?
            && self
                .edges
                .scan(tick, |first, c| edge_targets_below(first, c, h))?
            && self.component.scan(tick, |first, c| {
                ids_below(first, c, cw, h).map(|i| {
                    let x = word_at(c, cw, i - first);
                    format!("state {i} is in hyperstate {x}, past the {h} hyperstates")
                })
            })?
            && self.members.scan(tick, |first, c| {
                ids_below(first, c, mw, states).map(|i| {
                    let x = word_at(c, mw, i - first);
                    format!("member {i} is state {x}, past the {states} states")
                })
            })?)
    }
}

/// The word of width `w` at record `k` of `chunk`.
fn word_at(chunk: &[u8], w: usize, k: u64) -> u64 {
    let at = k as usize * w;
    match w {
        4 => u64::from(u32_le(&chunk[at..])),
        _ => u64_at(chunk, at),
    }
}

/// The index of the first word of `chunk` (words of width `w`, the first one number
/// `first`) that is not below `limit`.
fn ids_below(first: u64, chunk: &[u8], w: usize, limit: u64) -> Option<u64> {
    (0..(chunk.len() / w) as u64)
        .find(|&k| word_at(chunk, w, k) >= limit)
        .map(|k| first + k)
}

fn known_tags(first: u64, chunk: &[u8]) -> Option<String> {
    let w = HYPERSTATE_WIDTH as usize;
    chunk.chunks_exact(w).enumerate().find_map(|(k, b)| {
        Tag::from_code(b[0]).is_none().then(|| {
            let i = first + k as u64;
            format!(
                "unknown tag {} at byte {}",
                b[0],
                HEADER_LEN as u64 + i * w as u64
            )
        })
    })
}

fn edge_targets_below(first: u64, chunk: &[u8], h: u64) -> Option<String> {
    chunk.chunks_exact(16).enumerate().find_map(|(k, b)| {
        let target = u64_at(b, 0) & ((1 << 48) - 1);
        (target >= h).then(|| {
            format!(
                "edge {} targets hyperstate {target}, past the {h} hyperstates",
                first + k as u64
            )
        })
    })
}

/// Offsets that start at 0, never decrease and end at `total`.
fn scan_offsets(
    file: &RecordMap,
    total: u64,
    tick: &mut dyn FnMut(&Path, u64) -> bool,
) -> Result<bool, HsgError> {
    let mut previous = 0u64;
    let mut last = None;
    let whole = file.scan(tick, |first, chunk| {
        for (k, b) in chunk.chunks_exact(8).enumerate() {
            let x = u64_at(b, 0);
            let i = first + k as u64;
            if (i == 0 && x != 0) || x < previous {
                return Some(format!(
                    "offset {i} is {x}: expected increasing offsets from 0 to {total}"
                ));
            }
            previous = x;
            last = Some(x);
        }
        None
    })?;
    if whole && last != Some(total) {
        return Err(HsgError::corrupt(
            file.path(),
            format!(
                "the last offset is {}: expected increasing offsets from 0 to {total}",
                last.map_or("missing".to_string(), |x| x.to_string())
            ),
        ));
    }
    Ok(whole)
}

impl SavedView for MappedAnalysis {
    fn summary(&self) -> &HsgSummary {
        &self.summary
    }

    fn hyperstate_count(&self) -> u64 {
        self.hyperstates.count()
    }

    fn state_count(&self) -> u64 {
        self.component.count()
    }

    fn component(&self, s: u64) -> Option<u64> {
        self.component.word(s)
    }

    fn member_range(&self, h: u64) -> Range<u64> {
        let o = &self.member_offsets;
        let len = self.members.count();
        range_of(o.word(h), h.checked_add(1).and_then(|n| o.word(n)), len)
    }

    fn member(&self, i: u64) -> Option<u64> {
        self.members.word(i)
    }

    fn edge_range(&self, h: u64) -> Range<u64> {
        let o = &self.edge_offsets;
        let len = self.edges.count();
        range_of(o.word(h), h.checked_add(1).and_then(|n| o.word(n)), len)
    }

    fn edge_count(&self) -> u64 {
        self.edges.count()
    }

    fn edge(&self, i: u64) -> Option<SavedEdge> {
        let b = self.edges.record(i)?;
        let word = u64_at(b, 0);
        Some(SavedEdge {
            target: word & ((1 << 48) - 1),
            action: (word >> 48) as u16,
            multiplicity: u64_at(b, 8),
        })
    }

    fn hyperstate(&self, h: u64) -> Option<HyperstateInfo> {
        decode_hyperstate(self.hyperstates.record(h)?)
    }

    fn ideal_path(&self) -> &[u64] {
        &self.ideal_path
    }
}

#[cfg(test)]
#[path = "mapped_analysis_tests.rs"]
mod tests;
