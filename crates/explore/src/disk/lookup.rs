//! The round's distinct candidates looked up in the visited runs a batch at a
//! time. Each run's filter is a table of megabytes read at a random line per
//! candidate: checked one candidate after the other, between the block
//! searches, every check waited for its cache miss (two thirds of the probe's
//! time on room4 under `--mem 128M`). A batch first checks every filter for
//! all its candidates, loads that do not depend on each other, so that the
//! processor overlaps their misses; then it searches the blocks of the runs
//! whose filters let a candidate through, newest run first (a state met again
//! is most often one of the last layers', and a state is in one run only).

use super::probe::{record_hash, RunProbe};
use crate::ExploreError;

/// Distinct candidates a batch takes.
const BATCH: usize = 64;

/// Distinct candidates in increasing order, with every occurrence of each.
pub struct Batch {
    width: usize,
    /// The distinct records, in order.
    records: Vec<u8>,
    /// Per occurrence: the index of its record in the batch and its sequence
    /// number (the first occurrence of a record comes first).
    seqs: Vec<(usize, u64)>,
    /// Per record: its [`record_hash`].
    hashes: Vec<u64>,
    /// Per record: the runs whose filters may hold it (bit `r` for run `r`,
    /// bit 63 for every run from 63 on).
    masks: Vec<u64>,
    /// Per record: its id when a run holds it.
    found: Vec<Option<u64>>,
}

impl Batch {
    /// An empty batch of `width`-byte records.
    pub fn new(width: usize) -> Batch {
        Batch {
            width,
            records: Vec::with_capacity(BATCH * width),
            seqs: Vec::new(),
            hashes: Vec::with_capacity(BATCH),
            masks: Vec::with_capacity(BATCH),
            found: Vec::with_capacity(BATCH),
        }
    }

    fn len(&self) -> usize {
        self.records.len() / self.width
    }

    fn record(&self, i: usize) -> &[u8] {
        &self.records[i * self.width..(i + 1) * self.width]
    }

    /// Adds an occurrence of `record` (entries come sorted by record, then
    /// by sequence number). Returns false, adding nothing, when `record` is
    /// new and the batch is full: the caller settles the batch first.
    pub fn add(&mut self, record: &[u8], seq: u64) -> bool {
        let n = self.len();
        if n > 0 && self.record(n - 1) == record {
            self.seqs.push((n - 1, seq));
            return true;
        }
        if n == BATCH {
            return false;
        }
        self.records.extend_from_slice(record);
        self.seqs.push((n, seq));
        true
    }

    /// Looks every record of the batch up in `probes` (oldest run first)
    /// and hands each occurrence to `settle` with the record's id when a run
    /// holds it; then empties the batch. (The index is filled anew after the
    /// round, so the placeholders it took for old states need no ids.)
    pub fn look_up(
        &mut self,
        probes: &mut [RunProbe<'_>],
        mut settle: impl FnMut(&[u8], u64, Option<u64>),
    ) -> Result<(), ExploreError> {
        let n = self.len();
        // Every line the batch will read is asked for first: the checks
        // below exit early and depend on each other through their branches,
        // which kept the processor from overlapping their misses (the filter
        // checks were two thirds of the batch's time on room4 under
        // `--mem 128M`).
        self.hashes.clear();
        for i in 0..n {
            let hash = record_hash(self.record(i));
            probes.iter().for_each(|p| p.prefetch(hash));
            self.hashes.push(hash);
        }
        self.masks.clear();
        for i in 0..n {
            let hash = self.hashes[i];
            let mut mask = 0u64;
            for (r, probe) in probes.iter().enumerate() {
                if probe.may_hold(hash) {
                    mask |= 1 << r.min(63);
                }
            }
            self.masks.push(mask);
        }
        self.found.clear();
        for i in 0..n {
            let mut found = None;
            for r in (0..probes.len()).rev() {
                if self.masks[i] & (1 << r.min(63)) == 0 {
                    continue;
                }
                found = probes[r].find_unfiltered(self.record(i))?;
                if found.is_some() {
                    break;
                }
            }
            self.found.push(found);
        }
        for &(i, seq) in &self.seqs {
            settle(self.record(i), seq, self.found[i]);
        }
        self.records.clear();
        self.seqs.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::probe::Summary;
    use super::*;
    use std::collections::BTreeMap;

    /// Candidates with repeats, across batches, against two runs: every
    /// occurrence gets the id of the run holding its record, or none.
    #[test]
    fn a_batch_finds_each_occurrence_in_the_run_that_holds_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let width = 4;
        let rec = |v: u32| v.to_be_bytes().to_vec();
        let mut runs = Vec::new();
        let mut all = BTreeMap::new();
        for (r, step) in [(0u64, 3u32), (1, 7)] {
            let map: BTreeMap<Vec<u8>, u64> = (0..2_000u32)
                .map(|i| i * step + r as u32)
                .filter(|v| r == 0 || v % 3 != 0)
                .map(|v| (rec(v), u64::from(v) * 2 + r))
                .collect();
            let mut summary = Summary::new(width, map.len() as u64, 8);
            let mut bytes = Vec::new();
            for (k, id) in &map {
                summary.push(k);
                bytes.extend_from_slice(k);
                bytes.extend_from_slice(&id.to_le_bytes());
            }
            let path = dir.path().join(format!("run-{r}"));
            std::fs::write(&path, bytes).expect("write run");
            runs.push((path, summary.finish()));
            all.extend(map);
        }
        let mut probes: Vec<RunProbe> = runs
            .iter()
            .map(|(p, s)| RunProbe::open(p, s).expect("open"))
            .collect();
        let mut asked = Vec::new();
        for v in (0..3_000u32).step_by(2) {
            for _ in 0..1 + v % 3 {
                asked.push((rec(v), asked.len() as u64));
            }
        }
        let mut got = Vec::new();
        let mut batch = Batch::new(width);
        let mut settle = |k: &[u8], seq: u64, id: Option<u64>| got.push((k.to_vec(), seq, id));
        for (k, seq) in &asked {
            if !batch.add(k, *seq) {
                batch.look_up(&mut probes, &mut settle).expect("look up");
                assert!(batch.add(k, *seq));
            }
        }
        batch.look_up(&mut probes, &mut settle).expect("look up");
        let expected: Vec<_> = asked
            .iter()
            .map(|(k, seq)| (k.clone(), *seq, all.get(k).copied()))
            .collect();
        assert_eq!(got, expected);
    }
}
