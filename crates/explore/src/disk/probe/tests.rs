//! The block-skipping lookup against a plain map of the run, and its reads.

use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Writes `map` as a sorted run of `(record, id)` entries and summarises it.
fn write_run(dir: &Path, width: usize, map: &BTreeMap<Vec<u8>, u64>, bits: u64) -> Summary {
    let mut bytes = Vec::new();
    let mut summary = Summary::new(width, map.len() as u64, bits);
    for (record, id) in map {
        bytes.extend_from_slice(record);
        bytes.extend_from_slice(&id.to_le_bytes());
        summary.push(record);
    }
    std::fs::write(dir.join("run"), bytes).expect("write run");
    summary.finish()
}

/// The record of `value`: its low bytes, big-endian, after zeros for
/// records wider than a word.
fn record(value: u64, width: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; width.saturating_sub(8)];
    bytes.extend_from_slice(&value.to_be_bytes()[8usize.saturating_sub(width)..]);
    bytes
}

/// Every candidate, in increasing order, looked up with the probe.
fn probe_all(dir: &Path, summary: &Summary, candidates: &[Vec<u8>]) -> (Vec<Option<u64>>, u64) {
    probe_spanning(dir, summary, candidates, MAX_SPAN)
}

/// The same with reads of at most `span` blocks.
fn probe_spanning(
    dir: &Path,
    summary: &Summary,
    candidates: &[Vec<u8>],
    span: u64,
) -> (Vec<Option<u64>>, u64) {
    let path = dir.join("run");
    let mut probe = RunProbe::open(&path, summary, span).expect("open");
    let found = candidates
        .iter()
        .map(|c| probe.find(c, record_hash(c)).expect("find"))
        .collect();
    (found, probe.bytes_read)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The probe finds exactly what a map of the run finds, whatever the
    /// density of the candidates, the record width, the filter and the
    /// longest read.
    #[test]
    fn the_probe_finds_what_the_run_holds(
        width in 1usize..=12,
        states in proptest::collection::btree_set(0u64..50_000, 0..4_000),
        asked in proptest::collection::btree_set(0u64..50_000, 0..3_000),
        bits in 0u64..12,
        span in prop_oneof![Just(MAX_SPAN), 1u64..8],
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mask = if width >= 8 { u64::MAX } else { (1u64 << (8 * width)) - 1 };
        let map: BTreeMap<Vec<u8>, u64> = states
            .iter()
            .enumerate()
            .map(|(i, &s)| (record(s & mask, width), i as u64 * 7 + 3))
            .collect();
        let summary = write_run(dir.path(), width, &map, bits);
        let mut candidates: Vec<Vec<u8>> = asked.iter().map(|&a| record(a & mask, width)).collect();
        candidates.sort();
        candidates.dedup();
        let (found, _) = probe_spanning(dir.path(), &summary, &candidates, span);
        let expected: Vec<Option<u64>> = candidates.iter().map(|c| map.get(c).copied()).collect();
        prop_assert_eq!(found, expected);
    }

    /// Galloping from any start finds the partition point past it.
    #[test]
    fn galloping_finds_the_partition_point(
        mut values in proptest::collection::vec(0u32..1_000, 0..500),
        pivot in 0u32..1_000,
        start in 0usize..500,
    ) {
        values.sort_unstable();
        let point = values.partition_point(|&v| v < pivot);
        let start = start.min(point);
        prop_assert_eq!(gallop(start, values.len(), |i| values[i] < pivot), point);
    }
}

/// A few candidates among many states read a few blocks, not the run; dense
/// ones read it once, in large reads.
#[test]
fn sparse_candidates_read_few_blocks_and_dense_ones_the_run_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let width = 6;
    let map: BTreeMap<Vec<u8>, u64> = (0..200_000u64).map(|i| (record(i * 3, width), i)).collect();
    let run_bytes = map.len() as u64 * 14;
    // No filter: the reads come from the sparse index alone.
    let summary = write_run(dir.path(), width, &map, 0);
    let sparse: Vec<Vec<u8>> = (0..50u64).map(|i| record(i * 12_000, width)).collect();
    let (found, read) = probe_all(dir.path(), &summary, &sparse);
    assert!(found.iter().all(Option::is_some));
    assert!(read <= 50 * 4096, "{read} bytes read for 50 candidates");
    let dense: Vec<Vec<u8>> = (0..200_000u64).map(|i| record(i * 3 + 1, width)).collect();
    let (found, read) = probe_all(dir.path(), &summary, &dense);
    assert!(found.iter().all(Option::is_none));
    assert_eq!(
        read, run_bytes,
        "dense candidates read the run exactly once"
    );
}

/// Absent candidates are mostly ruled out by the filter, without a read.
#[test]
fn the_filter_saves_the_reads_of_most_absent_candidates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let width = 5;
    let map: BTreeMap<Vec<u8>, u64> = (0..100_000u64).map(|i| (record(i * 2, width), i)).collect();
    let summary = write_run(dir.path(), width, &map, 8);
    let absent: Vec<Vec<u8>> = (0..2_000u64).map(|i| record(i * 100 + 1, width)).collect();
    let (found, read) = probe_all(dir.path(), &summary, &absent);
    assert!(found.iter().all(Option::is_none));
    // A 4 KiB block per false positive: at 8 bits a key, well under one in ten.
    assert!(read < 200 * 4096, "{read} bytes read");
}

/// Keys a block of the filter tests' runs holds.
const TEST_BLOCK: u64 = 100;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A folded filter still holds every key it was given, and rules out
    /// about as many others as a filter built that small would.
    #[test]
    fn a_folded_filter_keeps_its_keys(
        keys in proptest::collection::btree_set(any::<u64>(), 1..3_000),
        bits in 4u64..=10,
        folds in 1usize..3,
    ) {
        let n = keys.len() as u64;
        let mut filter = Filter::new(n, bits, n.div_ceil(TEST_BLOCK));
        let lines = filter.lines.len();
        for (i, &k) in keys.iter().enumerate() {
            filter.insert(i as u64 / TEST_BLOCK, record_hash(&k.to_le_bytes()));
        }
        for _ in 0..folds {
            if !filter.fold() {
                break;
            }
        }
        prop_assert!(filter.lines.len() < lines || lines % 2 == 1);
        for (i, &k) in keys.iter().enumerate() {
            prop_assert!(filter.may_contain(i as u64 / TEST_BLOCK, record_hash(&k.to_le_bytes())));
        }
    }

    /// Keys of later blocks fall on later lines (or the same), whatever
    /// their hashes, and every line is one of the filter's: sorted
    /// candidates read a filter forward.
    #[test]
    fn a_filter_is_laid_out_in_block_order(
        entries in 1u64..5_000_000,
        bits in 1u64..=10,
        per_block in 1u64..500,
        a in any::<u64>(),
        b in any::<u64>(),
        hashes in (any::<u64>(), any::<u64>()),
        folds in 0usize..4,
    ) {
        let blocks = entries.div_ceil(per_block);
        let mut filter = Filter::new(entries, bits, blocks);
        for _ in 0..folds {
            filter.fold();
        }
        let (a, b) = (a % blocks, b % blocks);
        let (lo, hi) = (a.min(b), a.max(b));
        let line_lo = filter.at(lo, hashes.0).0;
        let line_hi = filter.at(hi, hashes.1).0;
        prop_assert!(lo == hi || line_lo <= line_hi, "{} {} -> {} {}", lo, hi, line_lo, line_hi);
        prop_assert!(line_hi < filter.lines.len());
    }
}

/// Folding halves a filter's memory; its false positives stay those of a
/// filter of half the bits a key (10 bits a key folded once: well under a
/// fifth of absent keys let through).
#[test]
fn folding_halves_a_filter_and_keeps_it_useful() {
    let n = 100_000u64;
    let blocks = n.div_ceil(TEST_BLOCK);
    let mut filter = Filter::new(n, 10, blocks);
    for k in 0..n {
        filter.insert(k / TEST_BLOCK, record_hash(&k.to_le_bytes()));
    }
    let bytes = filter.bytes();
    assert!(filter.fold());
    assert_eq!(filter.bytes() * 2, bytes);
    assert!((0..n).all(|k| filter.may_contain(k / TEST_BLOCK, record_hash(&k.to_le_bytes()))));
    // Absent keys spread over the same blocks.
    let passed = (n..2 * n)
        .filter(|k| filter.may_contain((k - n) / TEST_BLOCK, record_hash(&k.to_le_bytes())))
        .count() as u64;
    assert!(passed < n / 5, "{passed} of {n} absent keys pass");
}
