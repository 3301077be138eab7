//! Structural checks of an opened run: counts agree with file lengths,
//! indexes are monotone, every id points at a stored state. Checksums catch
//! damage; these checks catch a store that is consistent byte-wise but not
//! as a graph (a bug, a foreign or hand-edited file), so that no reader can
//! ever index out of bounds or report a wrong number.

use crate::error::{corrupt, StoreError};
use crate::manifest::Manifest;
use crate::mapped::Mapped;
use crate::{unpack_prob, unpack_terminal, Edge, InEdge};
use std::path::Path;

/// Borrowed parts of a [`crate::Run`] to check.
pub struct Parts<'a> {
    pub dir: &'a Path,
    pub manifest: &'a Manifest,
    pub segments: &'a [Mapped],
    pub slot: usize,
    pub out_idx: &'a Mapped,
    pub out_log: &'a Mapped,
    pub prob: Option<&'a Mapped>,
    pub terminals: &'a Mapped,
    pub in_idx: Option<&'a Mapped>,
    pub in_log: Option<&'a Mapped>,
    pub fp_idx: Option<&'a Mapped>,
}

/// Runs every check.
pub fn check(run: &crate::Run) -> Result<(), StoreError> {
    let p = run.parts();
    check_states(&p)?;
    check_csr(p.out_idx, p.out_log, p.manifest.expanded, &p, |w| {
        Edge::unpack(w).target
    })?;
    check_actions(&p)?;
    if let (Some(idx), Some(log)) = (p.in_idx, p.in_log) {
        check_csr(idx, log, p.manifest.states, &p, |w| {
            InEdge::unpack(w).source
        })?;
    }
    check_terminals(&p)?;
    check_probs(&p)?;
    check_fingerprints(&p)
}

fn check_states(p: &Parts) -> Result<(), StoreError> {
    let m = p.manifest;
    let manifest = p.dir.join("MANIFEST");
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
        if seg.data().len() as u64 != want * p.slot as u64 {
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

fn check_csr(
    idx: &Mapped,
    log: &Mapped,
    rows: u64,
    p: &Parts,
    id_of: impl Fn(u64) -> u64,
) -> Result<(), StoreError> {
    let words = idx.words();
    let edges = log.words();
    if words.len() as u64 != rows {
        return Err(corrupt(
            idx.path(),
            format!("{} rows, {rows} expected", words.len()),
        ));
    }
    if edges.len() as u64 != p.manifest.transitions || !log.data().len().is_multiple_of(8) {
        return Err(corrupt(
            log.path(),
            format!(
                "{} entries, {} transitions expected",
                edges.len(),
                p.manifest.transitions
            ),
        ));
    }
    let mut prev = 0;
    for (row, &end) in words.iter().enumerate() {
        if end < prev || end > edges.len() as u64 {
            return Err(corrupt(
                idx.path(),
                format!("row {row} ends at {end}, out of order or past the log"),
            ));
        }
        prev = end;
    }
    if prev != edges.len() as u64 {
        return Err(corrupt(
            idx.path(),
            format!("rows end at {prev}, the log has {}", edges.len()),
        ));
    }
    let states = p.manifest.states;
    if let Some(i) = edges.iter().position(|&w| id_of(w) >= states) {
        return Err(corrupt(
            log.path(),
            format!("entry {i} names state {}, beyond {states}", id_of(edges[i])),
        ));
    }
    Ok(())
}

fn check_actions(p: &Parts) -> Result<(), StoreError> {
    let labels = p.manifest.identity.action_labels.len() as u64;
    let log = p.out_log.words();
    if let Some(i) = log
        .iter()
        .position(|&w| u64::from(Edge::unpack(w).action) >= labels)
    {
        return Err(corrupt(
            p.out_log.path(),
            format!("entry {i} has an undeclared action"),
        ));
    }
    Ok(())
}

fn check_terminals(p: &Parts) -> Result<(), StoreError> {
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

fn check_probs(p: &Parts) -> Result<(), StoreError> {
    let Some(prob) = p.prob else { return Ok(()) };
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
    Ok(())
}

fn check_fingerprints(p: &Parts) -> Result<(), StoreError> {
    let Some(fp) = p.fp_idx else { return Ok(()) };
    let words = fp.words();
    if words.len() as u64 != 2 * p.manifest.states {
        return Err(corrupt(
            fp.path(),
            format!(
                "{} entries, {} expected",
                words.len() / 2,
                p.manifest.states
            ),
        ));
    }
    for i in 0..words.len() / 2 {
        let sorted = i == 0 || words[2 * i - 2] <= words[2 * i];
        if !sorted || words[2 * i + 1] >= p.manifest.states {
            return Err(corrupt(
                fp.path(),
                format!("entry {i} is out of order or names no state"),
            ));
        }
    }
    Ok(())
}
