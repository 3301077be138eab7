//! `Run::verify`: the full pass that `Run::open` makes. Checksums first
//! (they name the damaged block), then the invariants that accessors and
//! callers rely on: monotone indexes ending at the log lengths, every id in
//! range, terminals and fingerprints sorted, record lengths within the slot.

use xxhash_rust::xxh3::xxh3_64;

use crate::error::StoreError;
use crate::finish::record_payload;
use crate::mapped::MappedFile;
use crate::reader::Run;
use crate::{unpack_prob, unpack_terminal, Edge, InEdge};

impl Run {
    /// Verifies every block checksum and structural invariant of the run.
    pub fn verify(&self) -> Result<(), StoreError> {
        for file in self.all_files() {
            file.verify(&self.dir)?;
        }
        let states = self.state_count();
        check_index(&self.trans_idx, self.transition_count())?;
        check_ids(&self.trans_log, states, "edge target", |w| {
            Edge::unpack(w).target
        })?;
        if let Some(prob) = &self.trans_prob {
            check_probs(prob)?;
        }
        check_terminals(&self.terminals, states)?;
        if let (Some(idx), Some(log)) = (&self.in_idx, &self.in_log) {
            if idx.words().len() as u64 != states {
                return Err(corrupt(
                    idx,
                    format!("{} entries for {states} states", idx.words().len()),
                ));
            }
            check_index(idx, self.transition_count())?;
            check_ids(log, self.expanded_count(), "in-edge source", |w| {
                InEdge::unpack(w).source
            })?;
        }
        self.check_records()?;
        if let Some(fp_idx) = &self.fp_idx {
            self.check_fingerprints(fp_idx)?;
        }
        Ok(())
    }

    fn all_files(&self) -> impl Iterator<Item = &MappedFile> {
        self.segments
            .iter()
            .chain([&self.trans_idx, &self.trans_log, &self.terminals])
            .chain(self.trans_prob.iter())
            .chain(self.in_idx.iter())
            .chain(self.in_log.iter())
            .chain(self.fp_idx.iter())
    }

    /// Variable-width slots must hold a length that fits the slot.
    fn check_records(&self) -> Result<(), StoreError> {
        if !self.manifest.identity.variable_width {
            return Ok(());
        }
        let max = self.manifest.identity.max_record_len();
        for segment in &self.segments {
            for (i, slot) in segment.bytes().chunks_exact(self.slot.max(1)).enumerate() {
                let len = match slot {
                    [lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
                    _ => 0,
                };
                if len > max {
                    return Err(corrupt(
                        segment,
                        format!("record {i} has length {len}, the slot holds {max}"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// `fp.idx` must be strictly sorted (fp, id) pairs, each fp the hash of its record.
    fn check_fingerprints(&self, fp_idx: &MappedFile) -> Result<(), StoreError> {
        let mut previous: Option<(u64, u64)> = None;
        for (i, pair) in fp_idx.words().chunks_exact(2).enumerate() {
            let (fp, id) = (pair[0], pair[1]);
            if previous.is_some_and(|p| p >= (fp, id)) {
                return Err(corrupt(fp_idx, format!("pair {i} is out of order")));
            }
            let record = self.try_state(id).ok_or_else(|| {
                corrupt(
                    fp_idx,
                    format!("pair {i} names state {id}, past the state count"),
                )
            })?;
            if xxh3_64(record) != fp {
                return Err(corrupt(
                    fp_idx,
                    format!("pair {i}: fingerprint is not the hash of state {id}"),
                ));
            }
            previous = Some((fp, id));
        }
        Ok(())
    }
}

fn corrupt(file: &MappedFile, what: String) -> StoreError {
    StoreError::Corrupt {
        path: file.path().to_path_buf(),
        what,
    }
}

/// A CSR index of end offsets: non-decreasing and ending at the log length.
fn check_index(index: &MappedFile, log_len: u64) -> Result<(), StoreError> {
    let mut previous = 0u64;
    for (i, &end) in index.words().iter().enumerate() {
        if end < previous || end > log_len {
            return Err(corrupt(
                index,
                format!("entry {i} = {end} is outside {previous}..={log_len}"),
            ));
        }
        previous = end;
    }
    let last = index.words().last().copied().unwrap_or(0);
    if last != log_len {
        return Err(corrupt(
            index,
            format!("ends at {last}, but the log holds {log_len} entries"),
        ));
    }
    Ok(())
}

fn check_ids(
    file: &MappedFile,
    bound: u64,
    what: &str,
    id_of: impl Fn(u64) -> u64,
) -> Result<(), StoreError> {
    match file
        .words()
        .iter()
        .enumerate()
        .find(|(_, &w)| id_of(w) >= bound)
    {
        Some((i, &w)) => Err(corrupt(
            file,
            format!("{what} {} at entry {i} is not below {bound}", id_of(w)),
        )),
        None => Ok(()),
    }
}

fn check_probs(file: &MappedFile) -> Result<(), StoreError> {
    match file.words().iter().position(|&w| {
        let (num, den) = unpack_prob(w);
        den == 0 || num > den
    }) {
        Some(i) => Err(corrupt(file, format!("entry {i} is not a probability"))),
        None => Ok(()),
    }
}

fn check_terminals(file: &MappedFile, states: u64) -> Result<(), StoreError> {
    let mut previous: Option<u64> = None;
    for (i, &word) in file.words().iter().enumerate() {
        let (id, _) = unpack_terminal(word);
        if id >= states || previous.is_some_and(|p| p >= id) {
            return Err(corrupt(
                file,
                format!("entry {i} (state {id}) is out of order or past {states} states"),
            ));
        }
        previous = Some(id);
    }
    Ok(())
}
