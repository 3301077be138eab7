//! Structural checks of an opened run: counts agree with file lengths,
//! indexes are monotone, every id points at a stored state. Checksums catch
//! damage; these checks catch a store that is consistent byte-wise but not
//! as a graph (a bug, a foreign or hand-edited file), so that no reader can
//! ever index out of bounds or report a wrong number.

use crate::error::{corrupt, StoreError};
use crate::manifest::Manifest;
use crate::mapped::Mapped;
use crate::out_edges::OutEdges;
use crate::packed::{frame_words, width_and_offset, FRAME};
use crate::{unpack_prob, unpack_terminal};
use std::path::Path;

/// Borrowed parts of a [`crate::Run`] to check.
pub struct Parts<'a> {
    pub dir: &'a Path,
    pub manifest: &'a Manifest,
    pub segments: &'a [Mapped],
    pub slot: usize,
    pub rows: &'a [Mapped; 2],
    pub edges: &'a [Mapped; 2],
    pub out: OutEdges<'a>,
    pub prob: Option<&'a Mapped>,
    pub terminals: &'a Mapped,
}

/// Runs every check.
pub fn check(run: &crate::Run) -> Result<(), StoreError> {
    check_shape(run)?;
    check_contents(run, &mut |_| true).map(|_| ())
}

/// The checks that read the manifest and the frame tables only (a few milliseconds
/// even for billions of states): counts against file lengths, frames that follow one
/// another and fill their bit files.
pub fn check_shape(run: &crate::Run) -> Result<(), StoreError> {
    let p = run.parts();
    check_states(&p)?;
    let m = p.manifest;
    let manifest = p.dir.join(crate::layout::MANIFEST);
    check_frames(p.rows, m.expanded, m.files.tails.rows.len(), &manifest)?;
    check_frames(p.edges, m.transitions, m.files.tails.edges.len(), &manifest)
}

/// Values the content checks read: one per row, edge, terminal and probability (what
/// [`check_contents`] reports to its `tick`).
pub fn content_values(run: &crate::Run) -> u64 {
    let m = run.manifest();
    let probs = if m.files.trans_prob.is_some() {
        m.transitions
    } else {
        0
    };
    m.expanded + m.transitions + m.terminals + probs
}

/// Values checked between two calls of a content check's `tick`.
const CHUNK: u64 = 1 << 20;

/// The checks that read every row, edge, terminal and probability (a pass over the
/// packed files), calling `tick` with the values checked as they go; `tick` returning
/// false stops them (`Ok(false)`).
pub fn check_contents(
    run: &crate::Run,
    tick: &mut dyn FnMut(u64) -> bool,
) -> Result<bool, StoreError> {
    let p = run.parts();
    Ok(check_rows(&p, tick)?
        && check_edges(&p, tick)?
        && check_terminals(&p, tick)?
        && check_probs(&p, tick)?)
}

/// Calls `f` with consecutive ranges of at most [`CHUNK`] values of `0..len`, telling
/// `tick` after each; false when `tick` asked to stop.
fn in_chunks(
    len: u64,
    tick: &mut dyn FnMut(u64) -> bool,
    mut f: impl FnMut(std::ops::Range<u64>),
) -> bool {
    let mut start = 0;
    while start < len {
        let end = len.min(start + CHUNK);
        f(start..end);
        if !tick(end - start) {
            return false;
        }
        start = end;
    }
    true
}

fn check_states(p: &Parts) -> Result<(), StoreError> {
    let m = p.manifest;
    let manifest = p.dir.join(crate::layout::MANIFEST);
    if p.slot == 0 || (m.identity.variable_width && p.slot < 2) {
        return Err(corrupt(
            &manifest,
            format!("state slot of {} bytes", p.slot),
        ));
    }
    let per = m.segment_states;
    if per == 0 {
        return Err(corrupt(&manifest, "segments of zero states"));
    }
    let mut left = m.states;
    for seg in p.segments {
        let want = left.min(per);
        if Some(seg.data().len() as u64) != want.checked_mul(p.slot as u64) {
            return Err(corrupt(
                seg.path(),
                format!(
                    "{} data bytes, {want} states of {} bytes expected",
                    seg.data().len(),
                    p.slot
                ),
            ));
        }
        left -= want;
    }
    if left > 0 || m.expanded > m.states {
        return Err(corrupt(
            &manifest,
            format!("{} states but the segments hold fewer", m.states),
        ));
    }
    let layers = &m.layers;
    let ordered = layers.windows(2).all(|w| w[0] <= w[1]);
    if layers.first() != Some(&0) || !ordered || layers.last().is_some_and(|&l| l > m.states) {
        return Err(corrupt(
            &manifest,
            "the layer table is not a partition of the states",
        ));
    }
    Ok(())
}

/// A packed sequence of `count` values: whole entries whose frames follow
/// one another in the bit file and fill it, and a tail of the values after
/// them.
fn check_frames(
    files: &[Mapped; 2],
    count: u64,
    tail: usize,
    manifest: &Path,
) -> Result<(), StoreError> {
    let [index, bits] = files;
    let entries = index.words();
    if !index.data().len().is_multiple_of(16) || entries.len() * 8 != index.data().len() {
        return Err(corrupt(index.path(), "not a whole number of frame entries"));
    }
    let frames = entries.len() as u64 / 2;
    if frames * FRAME as u64 + tail as u64 != count || tail >= FRAME {
        return Err(corrupt(
            manifest,
            format!(
                "{} holds {frames} frames and the manifest {tail} more values, {count} expected",
                index.path().display()
            ),
        ));
    }
    let mut next = 0u64;
    for (f, entry) in entries.chunks_exact(2).enumerate() {
        let (width, offset) = width_and_offset([entry[0], entry[1]]);
        if width > 64 || offset != next {
            return Err(corrupt(
                index.path(),
                format!("frame {f} has width {width} at word {offset}, expected word {next}"),
            ));
        }
        next += frame_words(width);
    }
    if next * 8 != bits.data().len() as u64 || bits.words().len() as u64 != next {
        return Err(corrupt(
            bits.path(),
            format!("{} bytes, the frames need {}", bits.data().len(), next * 8),
        ));
    }
    Ok(())
}

/// The first row of `range` (from the first, whose predecessor ended at `prev`) that
/// ends before the row before it, or starts a frame whose base is not where the row
/// before it ended; and the end of the range's last row.
fn first_row_out_of_order(
    rows: &crate::packed::Packed,
    range: std::ops::Range<u64>,
    mut prev: u64,
) -> (Option<u64>, u64) {
    let mut bad = None;
    rows.for_each(range, |i, end| {
        let frame = (i / FRAME as u64) as usize;
        let starts_frame = i % FRAME as u64 == 0 && frame < rows.frames();
        if bad.is_none() && (end < prev || (starts_frame && rows.entry(frame)[0] != prev)) {
            bad = Some(i);
        }
        prev = end;
    });
    (bad, prev)
}

fn row_out_of_order(p: &Parts, row: u64) -> StoreError {
    corrupt(p.rows[0].path(), format!("row {row} is out of order"))
}

/// Row ends never decrease, a frame starts where the row before it ended,
/// and the last row ends at the last edge.
fn check_rows(p: &Parts, tick: &mut dyn FnMut(u64) -> bool) -> Result<bool, StoreError> {
    let rows = p.out.rows;
    let mut prev = 0u64;
    let mut bad = None;
    let whole = in_chunks(rows.len(), tick, |range| {
        let (found, end) = first_row_out_of_order(&rows, range, prev);
        bad = bad.or(found);
        prev = end;
    });
    if !whole && bad.is_none() {
        return Ok(false);
    }
    if let Some(row) = bad {
        return Err(row_out_of_order(p, row));
    }
    if prev != p.manifest.transitions {
        return Err(corrupt(
            p.rows[0].path(),
            format!(
                "rows end at {prev}, the manifest counts {} transitions",
                p.manifest.transitions
            ),
        ));
    }
    Ok(true)
}

/// The checks of [`check_rows`] on the rows of `range` only, the row before it
/// included (for a reader verifying a run range by range, see [`crate::deferred`]).
pub(crate) fn check_row_range(
    run: &crate::Run,
    range: std::ops::Range<u64>,
) -> Result<(), StoreError> {
    let p = run.parts();
    let rows = p.out.rows;
    let prev = match range.start {
        0 => 0,
        s => rows.get(s - 1),
    };
    match first_row_out_of_order(&rows, range, prev).0 {
        Some(row) => Err(row_out_of_order(&p, row)),
        None => Ok(()),
    }
}

/// Every edge names a stored state and a declared action.
fn check_edges(p: &Parts, tick: &mut dyn FnMut(u64) -> bool) -> Result<bool, StoreError> {
    let mut bad = None;
    let whole = in_chunks(p.out.len(), tick, |range| {
        if bad.is_none() {
            bad = first_bad_edge(p, range);
        }
    });
    match bad {
        Some((i, e)) => Err(bad_edge(p, i, e)),
        None => Ok(whole),
    }
}

/// The checks of [`check_edges`] on the edges at the positions `range` only (see
/// [`check_row_range`]).
pub(crate) fn check_edge_range(
    run: &crate::Run,
    range: std::ops::Range<u64>,
) -> Result<(), StoreError> {
    let p = run.parts();
    match first_bad_edge(&p, range) {
        Some((i, e)) => Err(bad_edge(&p, i, e)),
        None => Ok(()),
    }
}

/// The first edge of `range` that names no stored state or an undeclared action.
fn first_bad_edge(p: &Parts, range: std::ops::Range<u64>) -> Option<(u64, crate::Edge)> {
    let labels = p.manifest.identity.action_labels.len() as u64;
    let states = p.manifest.states;
    let mut bad = None;
    p.out.for_each(range, |i, e| {
        if bad.is_none() && (e.target >= states || u64::from(e.action) >= labels) {
            bad = Some((i, e));
        }
    });
    bad
}

fn bad_edge(p: &Parts, i: u64, e: crate::Edge) -> StoreError {
    corrupt(
        p.edges[0].path(),
        format!(
            "edge {i} (to state {}, action {}) names no stored state or an undeclared action",
            e.target, e.action
        ),
    )
}

fn check_terminals(p: &Parts, tick: &mut dyn FnMut(u64) -> bool) -> Result<bool, StoreError> {
    check_terminal_words(p)?;
    Ok(tick(p.terminals.words().len() as u64))
}

/// Every terminal entry names a stored state, in increasing order, and a declared
/// outcome (or the cut), and there are as many as the manifest counts.
pub(crate) fn check_terminal_entries(run: &crate::Run) -> Result<(), StoreError> {
    check_terminal_words(&run.parts())
}

fn check_terminal_words(p: &Parts) -> Result<(), StoreError> {
    let words = p.terminals.words();
    let outcomes = p.manifest.identity.outcome_names.len() as u16;
    if words.len() as u64 != p.manifest.terminals {
        return Err(corrupt(
            p.terminals.path(),
            format!("{} entries, {} expected", words.len(), p.manifest.terminals),
        ));
    }
    let mut prev: Option<u64> = None;
    for (i, &w) in words.iter().enumerate() {
        let (id, outcome) = unpack_terminal(w);
        if id >= p.manifest.states
            || prev.is_some_and(|q| id <= q)
            || (outcome >= outcomes && outcome != crate::CUT_OUTCOME)
        {
            return Err(corrupt(
                p.terminals.path(),
                format!("entry {i} (state {id}, outcome {outcome}) is invalid"),
            ));
        }
        prev = Some(id);
    }
    Ok(())
}

fn check_probs(p: &Parts, tick: &mut dyn FnMut(u64) -> bool) -> Result<bool, StoreError> {
    let Some(prob) = p.prob else { return Ok(true) };
    let words = prob.words();
    if words.len() as u64 != p.manifest.transitions {
        return Err(corrupt(
            prob.path(),
            "one probability per transition expected",
        ));
    }
    if let Some(i) = words.iter().position(|&w| {
        let (n, d) = unpack_prob(w);
        d == 0 || n > d
    }) {
        return Err(corrupt(
            prob.path(),
            format!("entry {i} is not a probability"),
        ));
    }
    Ok(tick(words.len() as u64))
}
