//! What the in-memory index holds between the disk phase's rounds, for exact
//! keys: the states the next parents will meet again.
//!
//! A breadth-first search meets old states mostly in the layer before the
//! parents' (each state's way back to the state that found it, in a game whose
//! moves can be undone) and in the layer being built (a state found by several
//! parents). The layer before is also ordered: the parents' ids follow the order
//! of the states that found them, so the next parents' finders lie in a window
//! of that layer that moves forward as the parents do. After every round the
//! cache is filled with that window (three quarters) and the newest stored
//! states, up to half its size; the rest takes the next round's placeholders
//! (a state met again within the round is sorted once). (Filled
//! with the newest states alone, it held the layer being built and the end of
//! the parents' layer, and room4 under `--mem 128M` found 27 M of its 47.8 M
//! candidates in the runs.)
//!
//! Where the window starts is read off the rounds of the layer before: each
//! round notes its first new id and its first parent, and the finder of a
//! parent is interpolated between those points. Which states the cache holds
//! changes which successors become candidates, never an id.

use super::layer::Fresh;
use super::REFILL_SLICE;
use crate::keys::Keys;
use crate::table::Table;
use crate::ExploreError;
use store::RunWriter;

/// The window's share of the states the cache is filled with; the newest
/// states take the rest. On room4 under `--mem 128M` (candidates found in the
/// runs, out of all candidates): a half, 12.2 M of 33.4 M; three quarters,
/// 8.8 M of 29.9 M; nine tenths, 7.2 M of 28.2 M, but no less time.
const WINDOW_NUM: u64 = 3;
const WINDOW_DEN: u64 = 4;

/// Records fetched ahead of the one inserted when the cache is filled (the
/// table is larger than the processor's caches).
const FILL_AHEAD: usize = 16;

/// Where the search stands when a round ends.
#[derive(Clone, Copy, Debug)]
pub struct Frontier {
    /// The first state of the layer before the parents'.
    pub grand_start: u64,
    /// The first state of the parents' layer.
    pub parents_start: u64,
    /// The end of the parents' layer; `None` when the round ended a layer and
    /// the next parents are the states it found (they end at the stored count).
    pub parents_end: Option<u64>,
    /// The next parent to expand.
    pub next_parent: u64,
}

/// Points `(first new id, first parent)` of the rounds: the states numbered
/// from the new id on were found by parents from that parent on.
#[derive(Default)]
pub struct Finders {
    points: Vec<(u64, u64)>,
}

impl Finders {
    /// Notes a round that numbered new states from `first_new`, found by
    /// parents from `first_parent` on.
    pub fn note(&mut self, first_new: u64, first_parent: u64) {
        self.points.push((first_new, first_parent));
    }

    /// Forgets the points of states before `id` (older than any layer the
    /// cache is filled from again).
    fn forget_before(&mut self, id: u64) {
        self.points.retain(|&(new, _)| new >= id);
    }

    /// The estimated finder of state `n`, of the layer `parents`, whose
    /// finders are the layer starting at `grand_start`: interpolated between
    /// the nearest points around `n`, the layers' bounds being points too.
    fn finder(&self, n: u64, grand_start: u64, parents: (u64, u64)) -> u64 {
        let (start, end) = parents;
        let mut lo = (start, grand_start);
        let mut hi = (end, start);
        for &(new, parent) in &self.points {
            if new < start || new >= end || parent < grand_start || parent > start {
                continue;
            }
            if new <= n && new >= lo.0 {
                lo = (new, parent);
            } else if new > n && new < hi.0 {
                hi = (new, parent);
            }
        }
        let (span, reach) = (hi.0.saturating_sub(lo.0), hi.1.saturating_sub(lo.1));
        if span == 0 {
            return lo.1;
        }
        let step = u128::from(n.saturating_sub(lo.0)) * u128::from(reach) / u128::from(span);
        lo.1 + step as u64
    }
}

/// What the disk phase knows of its cache between rounds: which states the
/// index holds and where the rounds' new states were found. Apart from the
/// rest of [`super::DiskDedup`], so that a round's refill of the index runs
/// beside the write and the merges of its runs (see
/// `DiskDedup::finish_layer`), which touch only the runs.
#[derive(Default)]
pub struct Cache {
    /// Bytes a record takes.
    pub width: usize,
    /// The index (and the key arena) ends before this id (fingerprints only).
    pub table_end: u64,
    /// Where the rounds' new states were found, for the cache's window.
    pub finders: Finders,
}

impl Cache {
    /// Empties the index and fills it, up to half its capacity, with a window
    /// of the layer before the parents' starting at the next parents' finders
    /// and with the newest of the `end` stored states (see the module's
    /// documentation). Exact keys only: they need no arena.
    pub(super) fn refill_around(
        &mut self,
        writer: &mut RunWriter,
        (table, keys): (&mut Table, &Keys),
        end: u64,
        at: Frontier,
    ) -> Result<(), ExploreError> {
        debug_assert!(
            keys.exact(),
            "a window of states needs no arena only with exact keys"
        );
        table.clear();
        let keep = (table.capacity() / 2) as u64;
        let parents_start = at.parents_start.min(end);
        let grand_start = at.grand_start.min(parents_start);
        let parents_end = at.parents_end.unwrap_or(end).max(parents_start);
        let next = at.next_parent.clamp(parents_start, parents_end);
        let finder = self
            .finders
            .finder(next, grand_start, (parents_start, parents_end))
            .clamp(grand_start, parents_start);
        let window = (keep / WINDOW_DEN * WINDOW_NUM).min(parents_start - grand_start);
        // A little before the estimate, which may be late; past it the
        // finders of the round's parents and their other neighbours.
        let stop = (finder.saturating_sub(window / 16) + window).min(parents_start);
        let start = stop.saturating_sub(window).max(grand_start);
        self.fill(writer, (table, keys), start, stop)?;
        let newest = end.saturating_sub(keep - (stop - start)).max(stop);
        self.fill(writer, (table, keys), newest, end)?;
        self.table_end = end;
        self.finders.forget_before(grand_start);
        Ok(())
    }

    /// Keeps the index a cache of the newest states across rounds, with
    /// fingerprints (exact keys are refilled by [`Cache::refill_around`]):
    /// the new states join the index while the key arena stays contiguous.
    /// When the index is too full to take the next round's candidates, it is
    /// rebuilt from the store with the newest states, the layer being built
    /// and the end of the parents' (the arena holds one range of ids).
    pub(super) fn refresh_table(
        &mut self,
        (fresh, rank, base): (&Fresh, &[u32], u64),
        writer: &mut RunWriter,
        table: &mut Table,
        keys: &mut Keys,
    ) -> Result<(), ExploreError> {
        let n = rank.len();
        let end = base + n as u64;
        let mut complete = true;
        if self.table_end == base && table.len() + n <= table.capacity() {
            let mut by_id = vec![0u32; n];
            for (i, &r) in rank.iter().enumerate() {
                by_id[r as usize] = i as u32;
            }
            for (k, &i) in by_id.iter().enumerate() {
                let rec = fresh.record(i as usize);
                let id = base + k as u64;
                // A record the arena cannot take leaves its state out of the
                // cache: it becomes a candidate and the runs resolve it.
                if !keys.put(id, rec) {
                    complete = false;
                    break;
                }
                table.insert_absent(keys.tag(rec), id);
                self.table_end = id + 1;
            }
        } else {
            complete = false;
        }
        if !complete || table.len() > table.capacity() / 4 * 3 {
            self.refill_newest(writer, table, keys, end)?;
        }
        Ok(())
    }

    /// Empties the index and fills it with the newest stored states, up to
    /// half its capacity, leaving the other half to the next round's
    /// placeholders and new states. Read from the store a slice at a time.
    fn refill_newest(
        &mut self,
        writer: &mut RunWriter,
        table: &mut Table,
        keys: &mut Keys,
        end: u64,
    ) -> Result<(), ExploreError> {
        table.clear();
        let keep = (table.capacity() / 2).min(keys.capacity()) as u64;
        let first = end.saturating_sub(keep);
        keys.reset(first);
        let mut records = Vec::new();
        let mut id = first;
        'slices: while id < end {
            let count = (end - id).min(REFILL_SLICE);
            writer.read_states(id, count as usize, &mut records)?;
            for rec in records.chunks_exact(self.width) {
                if !keys.put(id, rec) {
                    break 'slices;
                }
                table.insert_absent(keys.tag(rec), id);
                id += 1;
            }
        }
        self.table_end = id;
        Ok(())
    }

    /// Fills the index as after a round, for the search standing at `at`: at
    /// the switch to disk, so that the first round meets the states the
    /// later ones do. With fingerprints the cache starts empty.
    pub(super) fn prime(
        &mut self,
        writer: &mut RunWriter,
        (table, keys): (&mut Table, &Keys),
        at: Frontier,
    ) -> Result<(), ExploreError> {
        if !keys.exact() {
            return Ok(());
        }
        let end = writer.state_count();
        self.refill_around(writer, (table, keys), end, at)
    }

    /// Inserts the stored states `from..to` into the index (exact keys).
    fn fill(
        &self,
        writer: &mut RunWriter,
        (table, keys): (&Table, &Keys),
        from: u64,
        to: u64,
    ) -> Result<(), ExploreError> {
        let mut records = Vec::new();
        let mut id = from;
        while id < to {
            let count = (to - id).min(REFILL_SLICE);
            writer.read_states(id, count as usize, &mut records)?;
            let mut ahead = records.chunks_exact(self.width).skip(FILL_AHEAD);
            for rec in records.chunks_exact(self.width) {
                if let Some(later) = ahead.next() {
                    table.prefetch_key(table.key(keys.tag(later)));
                }
                table.insert_absent(keys.tag(rec), id);
                id += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DiskBudget, DiskDedup};
    use super::*;
    use store::OpenMode;

    /// After a round the index holds a window of the parents' finders' layer,
    /// from a little before the next parent's finder, and the newest states,
    /// half its capacity in all; nothing else, and every id right.
    #[test]
    fn the_cache_holds_the_next_parents_finders_and_the_newest_states() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (mut writer, _) = RunWriter::open(
            &dir.path().join("run"),
            crate::tests_power_loss::identity(),
            OpenMode::ResumeOrCreate,
        )
        .expect("open");
        let record = |id: u64| (id as u32 * 7 + 1).to_le_bytes();
        for id in 0..100_000u64 {
            writer.append_state(&record(id)).expect("append");
        }
        let opts = DiskBudget {
            scratch_dir: &dir.path().join("scratch"),
            mem_budget: 64 << 20,
            round_limit: None,
            threads: 1,
        };
        let dedup = DiskDedup::empty(opts.scratch_dir.to_path_buf(), 4, 1 << 16, 0, &opts);
        let mut cache = dedup.cache;
        let keys = Keys::new(4, 0).expect("keys");
        let mut table = Table::with_capacity(40_000).expect("table");
        let keep = table.capacity() as u64 / 2;
        // Layers 10,000..50,000 (the finders) and 50,000..90,000 (the
        // parents), the next parent half-way: its finder is near 30,000.
        let at = Frontier {
            grand_start: 10_000,
            parents_start: 50_000,
            parents_end: Some(90_000),
            next_parent: 70_000,
        };
        cache
            .refill_around(&mut writer, (&mut table, &keys), 100_000, at)
            .expect("refill");
        let held: Vec<u64> = (0..100_000u64)
            .filter(|&id| table.get(keys.tag(&record(id)), |_| true) == Some(id))
            .collect();
        assert_eq!(held.len() as u64, keep);
        assert_eq!(table.len() as u64, keep);
        let window = held.iter().filter(|&&id| id < 50_000).count() as u64;
        assert_eq!(window, keep / WINDOW_DEN * WINDOW_NUM);
        assert!(
            held[0] < 30_000 && held[0] > 30_000 - keep / 4,
            "{}",
            held[0]
        );
        assert_eq!(*held.last().unwrap(), 99_999);
        assert!(held
            .iter()
            .all(|&id| id < 50_000 || id >= 100_000 - (keep - window)));
    }

    /// With no rounds noted, the finder of a parent is proportional; noted
    /// rounds bend the estimate through their points.
    #[test]
    fn finders_are_interpolated_between_the_rounds_points() {
        let mut finders = Finders::default();
        // Layer before: 100..200; parents' layer 200..400.
        assert_eq!(finders.finder(200, 100, (200, 400)), 100);
        assert_eq!(finders.finder(300, 100, (200, 400)), 150);
        assert_eq!(finders.finder(399, 100, (200, 400)), 199);
        // The first half of the parents' layer was found by the first tenth
        // of the layer before.
        finders.note(300, 110);
        assert_eq!(finders.finder(250, 100, (200, 400)), 105);
        assert_eq!(finders.finder(300, 100, (200, 400)), 110);
        assert_eq!(finders.finder(350, 100, (200, 400)), 155);
        // Points of other layers are ignored, and forgotten.
        finders.note(450, 300);
        assert_eq!(finders.finder(350, 100, (200, 400)), 155);
        finders.forget_before(400);
        assert_eq!(finders.points, vec![(450, 300)]);
    }
}
