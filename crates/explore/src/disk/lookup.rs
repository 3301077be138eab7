//! The round's distinct candidates looked up in the visited runs a batch at a
//! time. A batch first checks the filter of every visited state
//! ([`super::seen`]): the candidates it rules out are new, and no run is
//! asked about them. Each run's filter is a table of megabytes, laid out in
//! the run's order (see [`super::probe`]): the batch then checks every run's
//! filter for the candidates left, one run after the other, so that each filter is read
//! forward, a few lines apart; then it searches the blocks of the runs whose
//! filters let a candidate through, newest run first (a state met again is
//! most often one of the last layers', and a state is in one run only).
//! (Checked one candidate after the other, between the block searches,
//! filters placed by the hash alone cost a cache miss a check: two thirds of
//! the probe's time on room4 under `--mem 128M`.)

use super::probe::{record_hash, record_word, RunProbe, Summary};
use super::seen::Seen;
use crate::ExploreError;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Per record: its [`record_word`].
    words: Vec<u64>,
    /// The records the filter of every visited state lets through, by
    /// index (the others are new).
    live: Vec<usize>,
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
            words: Vec::with_capacity(BATCH),
            live: Vec::with_capacity(BATCH),
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
        if n > 0 && same_bytes(self.record(n - 1), record) {
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

    /// Looks every record of the batch up in `probes` (oldest run first),
    /// after `seen`, the filter of every state they hold, and hands each
    /// occurrence to `settle` with the record's id when a run holds it and
    /// whether it is the record's first occurrence (every occurrence of a
    /// record is in one batch); then empties the batch. (The index is filled
    /// anew after the round, so the placeholders it took for old states
    /// need no ids.)
    pub fn look_up(
        &mut self,
        probes: &mut [RunProbe<'_>],
        seen: &Seen,
        mut settle: impl FnMut(&[u8], u64, Option<u64>, bool),
    ) -> Result<(), ExploreError> {
        self.check_seen(seen);
        self.check_filters(probes);
        self.search_runs(probes)?;
        let mut last = usize::MAX;
        for &(i, seq) in &self.seqs {
            settle(self.record(i), seq, self.found[i], i != last);
            last = i;
        }
        self.records.clear();
        self.seqs.clear();
        Ok(())
    }

    /// Hashes every record and keeps in `live` those that `seen` lets
    /// through: the others are new, and no run is asked about them. Every
    /// line is prefetched before any is checked, so that their misses
    /// overlap.
    fn check_seen(&mut self, seen: &Seen) {
        let n = self.len();
        self.hashes.clear();
        self.words.clear();
        for i in 0..n {
            let hash = record_hash(self.record(i));
            seen.prefetch(hash);
            self.hashes.push(hash);
            self.words.push(record_word(self.record(i)));
        }
        self.live.clear();
        let hashes = &self.hashes;
        self.live
            .extend((0..n).filter(|&i| seen.may_contain(hashes[i])));
    }

    /// Notes, for every live record, the runs whose filters may hold it:
    /// run by run, so that each filter is read forward (see the module's
    /// documentation). The live records are listed apart, not skipped in a
    /// pass over the batch: which ones `seen` let through is random, and
    /// the skip's branch missed about a third of the time.
    fn check_filters(&mut self, probes: &mut [RunProbe<'_>]) {
        self.masks.clear();
        self.masks.resize(self.len(), 0);
        for (r, probe) in probes.iter_mut().enumerate() {
            for &i in &self.live {
                let record = &self.records[i * self.width..(i + 1) * self.width];
                if probe.may_hold(record, self.words[i], self.hashes[i]) {
                    self.masks[i] |= 1 << r.min(63);
                }
            }
        }
    }

    /// Searches the blocks of the runs whose filters let a live record
    /// through, newest run first, until one holds it.
    fn search_runs(&mut self, probes: &mut [RunProbe<'_>]) -> Result<(), ExploreError> {
        self.found.clear();
        self.found.resize(self.len(), None);
        for &i in &self.live {
            for r in (0..probes.len()).rev() {
                if self.masks[i] & (1 << r.min(63)) == 0 {
                    continue;
                }
                let record = &self.records[i * self.width..(i + 1) * self.width];
                self.found[i] = probes[r].find_unfiltered(record, self.words[i])?;
                if self.found[i].is_some() {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// True when `a` and `b` hold the same bytes. Records are a few bytes long,
/// and a slice comparison is a call to `memcmp` (a twentieth of the disk
/// phase's time on room4 under `--mem 128M`, from this module): up to 16
/// bytes they are compared as two overlapping fixed-size loads.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| -> u64 {
        s.get(at..at + 8)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u64::from_ne_bytes)
    };
    let half = |s: &[u8], at: usize| -> u32 {
        s.get(at..at + 4)
            .and_then(|w| w.try_into().ok())
            .map_or(0, u32::from_ne_bytes)
    };
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => a == b,
    }
}

/// Cuts `n` sorted entries (`entry` bytes each, a `width`-byte record first)
/// into `parts` ranges of about equal length, each cut moved forward to where
/// the record changes, so that every occurrence of a record falls in one
/// range. Returns the ranges' bounds, `parts + 1` entry offsets.
pub fn cut_ranges(entries: &[u8], entry: usize, width: usize, parts: usize) -> Vec<usize> {
    let n = entries.len() / entry;
    let record = |i: usize| &entries[i * entry..i * entry + width];
    let mut bounds = vec![0];
    for p in 1..parts.max(1) {
        let mut cut = (n * p / parts).max(bounds[p - 1]);
        while cut > 0 && cut < n && record(cut) == record(cut - 1) {
            cut += 1;
        }
        bounds.push(cut);
    }
    bounds.push(n);
    bounds
}

/// Resolves one range of a round's sorted candidate entries (a record, then
/// its big-endian sequence number): looks each distinct record up in `runs`
/// (oldest first) after `seen`, the filter of every state they hold, and stores, for every occurrence, the record's id or
/// `fresh(i)` for the range's `i`-th new record at `resolved[seq]`. Returns
/// the range's new records, in order. Ranges run side by side, each with its
/// own probes (reading at most `max_span` blocks at a time).
pub fn resolve_range(
    (runs, seen): (&[(&Path, &Summary)], &Seen),
    entries: &[u8],
    width: usize,
    max_span: u64,
    fresh: impl Fn(u64) -> u64,
    resolved: &[AtomicU64],
) -> Result<Vec<u8>, ExploreError> {
    let mut probes = runs
        .iter()
        .map(|(path, summary)| RunProbe::open(path, summary, max_span))
        .collect::<Result<Vec<_>, _>>()?;
    let entry = width + 8;
    // Room for every candidate being new: pages never written cost address
    // space, not memory, and the vector never grows by doubling.
    let mut records = Vec::with_capacity(entries.len() / entry * width);
    let mut count = 0u64;
    let mut settle = |record: &[u8], seq: u64, found: Option<u64>, first: bool| {
        let value = match found {
            Some(id) => id,
            // Occurrences come in record order: a new record's later
            // occurrences follow its first. (Told apart by comparing the
            // record with the last one kept, that load waited for the copy
            // just stored, itself behind this round's scattered stores to
            // `resolved`: a sixth of the lookups' time on room4 under
            // `--mem 128M`.)
            None if !first => fresh(count - 1),
            None => {
                records.extend_from_slice(record);
                count += 1;
                fresh(count - 1)
            }
        };
        if let Some(slot) = resolved.get(seq as usize) {
            slot.store(value, Ordering::Relaxed);
        }
    };
    let mut batch = Batch::new(width);
    for e in entries.chunks_exact(entry) {
        let (record, seq) = e.split_at(width);
        let seq = u64::from_be_bytes(seq.try_into().unwrap_or([0; 8]));
        if !batch.add(record, seq) {
            batch.look_up(&mut probes, seen, &mut settle)?;
            batch.add(record, seq);
        }
    }
    batch.look_up(&mut probes, seen, &mut settle)?;
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::super::probe::{Summary, MAX_SPAN};
    use super::*;
    use std::collections::BTreeMap;

    /// Candidates with repeats, across batches, against two runs: every
    /// occurrence gets the id of the run holding its record, or none, and
    /// is told whether it is its record's first.
    #[test]
    fn a_batch_finds_each_occurrence_in_the_run_that_holds_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let width = 4;
        let rec = |v: u32| v.to_be_bytes().to_vec();
        let mut runs = Vec::new();
        let mut all = BTreeMap::new();
        // Half a byte a stored state: many false positives, so that both
        // what it rules out and what it lets through are looked up.
        let mut seen = Seen::new(1_000);
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
                seen.insert_records(std::iter::once(&k[..]));
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
            .map(|(p, s)| RunProbe::open(p, s, MAX_SPAN).expect("open"))
            .collect();
        let mut asked = Vec::new();
        for v in (0..3_000u32).step_by(2) {
            for _ in 0..1 + v % 3 {
                asked.push((rec(v), asked.len() as u64));
            }
        }
        let mut got = Vec::new();
        let mut batch = Batch::new(width);
        let mut settle = |k: &[u8], seq: u64, id: Option<u64>, first: bool| {
            got.push((k.to_vec(), seq, id, first));
        };
        for (k, seq) in &asked {
            if !batch.add(k, *seq) {
                batch
                    .look_up(&mut probes, &seen, &mut settle)
                    .expect("look up");
                assert!(batch.add(k, *seq));
            }
        }
        batch
            .look_up(&mut probes, &seen, &mut settle)
            .expect("look up");
        // A record's first occurrence is the one after another record's.
        let expected: Vec<_> = asked
            .iter()
            .enumerate()
            .map(|(j, (k, seq))| {
                let first = j == 0 || asked[j - 1].0 != *k;
                (k.clone(), *seq, all.get(k).copied(), first)
            })
            .collect();
        assert_eq!(got, expected);
    }

    proptest::proptest! {
        /// A round's candidates resolved in 1 to 4 ranges side by side give
        /// what a plain map gives: every occurrence the id of the run that
        /// holds its record, or the rank of its record among the round's new
        /// records in record order; and the new records in order. The filter
        /// of every stored state is empty (it rules nothing out) or one to
        /// three lines (it rules some out, with many false positives).
        #[test]
        fn ranges_resolve_as_a_map_does(
            stored in proptest::collection::btree_set(0u16..400, 0..200),
            asked in proptest::collection::vec(0u16..400, 0..300),
            parts in 1usize..5,
            seen_lines in 0u64..4,
        ) {
            let dir = tempfile::tempdir().expect("temp dir");
            let width = 2;
            let rec = |v: u16| v.to_be_bytes().to_vec();
            // Two runs: the even values stored, and the odd ones.
            let mut runs = Vec::new();
            let mut seen = Seen::new(seen_lines * 64);
            for parity in [0u16, 1] {
                let values: Vec<u16> = stored.iter().copied().filter(|v| v % 2 == parity).collect();
                let mut summary = Summary::new(width, values.len() as u64, 4);
                let mut bytes = Vec::new();
                for &v in &values {
                    summary.push(&rec(v));
                    seen.insert_records(std::iter::once(&rec(v)[..]));
                    bytes.extend_from_slice(&rec(v));
                    bytes.extend_from_slice(&(u64::from(v) * 3).to_le_bytes());
                }
                let path = dir.path().join(format!("run-{parity}"));
                std::fs::write(&path, bytes).expect("write run");
                runs.push((path, summary.finish()));
            }
            let runs: Vec<(&Path, &Summary)> = runs.iter().map(|(p, s)| (p.as_path(), s)).collect();
            let mut entries: Vec<(Vec<u8>, u64)> =
                asked.iter().enumerate().map(|(seq, &v)| (rec(v), seq as u64)).collect();
            entries.sort();
            let sorted: Vec<u8> = entries
                .iter()
                .flat_map(|(r, seq)| r.iter().copied().chain(seq.to_be_bytes()))
                .collect();
            let bounds = cut_ranges(&sorted, width + 8, width, parts);
            let resolved: Vec<AtomicU64> = asked.iter().map(|_| AtomicU64::new(u64::MAX)).collect();
            let mut new_records = Vec::new();
            let mut offsets = Vec::new();
            for p in 0..parts {
                let range = &sorted[bounds[p] * (width + 8)..bounds[p + 1] * (width + 8)];
                let fresh = |local: u64| (1 << 62) | (p as u64) << 40 | local;
                offsets.push((new_records.len() / width) as u64);
                let got = resolve_range((&runs, &seen), range, width, 2, fresh, &resolved).expect("resolve");
                new_records.extend(got);
            }
            let news: Vec<u16> = asked
                .iter()
                .copied()
                .filter(|v| !stored.contains(v))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            let expected_records: Vec<u8> = news.iter().flat_map(|&v| rec(v)).collect();
            proptest::prop_assert_eq!(&new_records, &expected_records);
            for (seq, &v) in asked.iter().enumerate() {
                let value = resolved[seq].load(Ordering::Relaxed);
                let got = if value & (1 << 62) != 0 {
                    let part = ((value & !(1 << 62)) >> 40) as usize;
                    Err(offsets[part] + (value & ((1 << 40) - 1)))
                } else {
                    Ok(value)
                };
                let expected = match stored.contains(&v) {
                    true => Ok(u64::from(v) * 3),
                    false => Err(news.binary_search(&v).expect("a new value") as u64),
                };
                proptest::prop_assert_eq!(got, expected, "value {} at {}", v, seq);
            }
        }
    }

    proptest::proptest! {
        /// Compared by their loads, slices are the same exactly when their
        /// bytes are.
        #[test]
        fn same_bytes_is_slice_equality(
            a in proptest::collection::vec(0u8..3, 0..24),
            b in proptest::collection::vec(0u8..3, 0..24),
        ) {
            let n = a.len().min(b.len());
            proptest::prop_assert_eq!(same_bytes(&a[..n], &b[..n]), a[..n] == b[..n]);
            proptest::prop_assert_eq!(same_bytes(&a, &b), a == b);
        }
    }

    /// Cuts fall where the record changes, never inside a record's run of
    /// occurrences, and cover every entry once.
    #[test]
    fn ranges_are_cut_between_records() {
        let width = 1;
        let values = [1u8, 1, 1, 1, 2, 3, 3, 3, 3, 3, 4];
        let sorted: Vec<u8> = values
            .iter()
            .enumerate()
            .flat_map(|(seq, &v)| std::iter::once(v).chain((seq as u64).to_be_bytes()))
            .collect();
        assert_eq!(cut_ranges(&sorted, 9, width, 1), vec![0, 11]);
        assert_eq!(cut_ranges(&sorted, 9, width, 2), vec![0, 5, 11]);
        assert_eq!(cut_ranges(&sorted, 9, width, 4), vec![0, 4, 5, 10, 11]);
        assert_eq!(cut_ranges(&[], 9, width, 3), vec![0, 0, 0, 0]);
    }
}
