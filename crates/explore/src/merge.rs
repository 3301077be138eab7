//! The merge: the one sequential step of the search, which gives new states
//! their ids in parent order and writes states, transitions and terminals.
//!
//! It reads the visited table and the key arena through shared references,
//! so that the expansion of the next chunk may look states up on other
//! threads while the merge inserts (see [`crate::table`] for why that is
//! sound and what a racing lookup may miss).

use crate::disk::DiskDedup;
use crate::expand::{ParentInfo, Part, LOOKAHEAD, UNRESOLVED};
use crate::keys::Keys;
use crate::table::{claimed_slot, Table};
use crate::ExploreError;
use store::{Edge, RunWriter};

/// Everything the merge of a part touches, borrowed from the search.
pub struct Merge<'a> {
    /// The visited index; only this merge inserts while it runs.
    pub table: &'a Table,
    /// Tags and the record arena.
    pub keys: &'a Keys,
    /// The store being written.
    pub writer: &'a mut RunWriter,
    /// Disk-based duplicate detection, once the index has outgrown the budget.
    pub disk: &'a mut Option<DiskDedup>,
    /// The next parent to merge; advanced by one per merged parent.
    pub next_parent: &'a mut u64,
    /// Scratch for one parent's edges.
    pub edges: &'a mut Vec<Edge>,
    /// Scratch for one parent's probabilities.
    pub probs: &'a mut Vec<(u32, u32)>,
    /// Whether the game has chance.
    pub chance: bool,
    /// Stop at the first parent boundary with at least this many states.
    pub max_states: Option<u64>,
    /// The table keys of the successors prefetched ahead.
    pub keys_ahead: KeysAhead,
}

/// The table keys of the last [`LOOKAHEAD`] successors whose slots the merge
/// prefetched, by successor index in the part: the probe of a successor
/// then reuses the key its prefetch computed (the scramble of a packed key
/// is a tenth of the merge's own work) instead of computing it again.
pub struct KeysAhead {
    /// `(index + 1, key)` by index modulo the ring's length; 0 is empty.
    ring: [(usize, u64); KeysAhead::LEN],
}

impl Default for KeysAhead {
    fn default() -> Self {
        KeysAhead {
            ring: [(0, 0); KeysAhead::LEN],
        }
    }
}

// A key must outlive the lookahead, between its prefetch and its probe.
const _: () = assert!(KeysAhead::LEN > LOOKAHEAD);

impl KeysAhead {
    /// A power of two past [`LOOKAHEAD`], so that an entry lives until its
    /// successor is probed.
    const LEN: usize = LOOKAHEAD.next_power_of_two() * 2;

    /// Remembers the key of successor `index`.
    #[inline]
    fn put(&mut self, index: usize, key: u64) {
        self.ring[index % Self::LEN] = (index + 1, key);
    }

    /// The key of successor `index`, if it was put and not yet overwritten.
    #[inline]
    fn get(&self, index: usize) -> Option<u64> {
        let (at, key) = self.ring[index % Self::LEN];
        (at == index + 1).then_some(key)
    }

    /// Forgets every key, for a new part (whose indices start again at 0).
    pub fn clear(&mut self) {
        self.ring.fill((0, 0));
    }
}

impl Merge<'_> {
    /// True once the state limit is reached.
    pub fn limit_reached(&self) -> bool {
        self.max_states
            .is_some_and(|max| self.writer.state_count() >= max)
    }

    /// Merges the parts in order. Returns false when a limit stopped the
    /// merge before the end.
    pub fn parts<'p>(
        &mut self,
        parts: impl IntoIterator<Item = &'p Part>,
        width: usize,
    ) -> Result<bool, ExploreError> {
        for part in parts {
            if !self.part(part, width)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Merges one expanded part in parent order. Returns false when a limit
    /// stopped the merge before the part's end.
    pub fn part(&mut self, part: &Part, width: usize) -> Result<bool, ExploreError> {
        self.keys_ahead.clear();
        let mut begin = 0usize;
        for (k, info) in part.infos.iter().enumerate() {
            let parent = part.first + k as u64;
            debug_assert_eq!(parent, *self.next_parent);
            self.edges.clear();
            self.probs.clear();
            match *info {
                // On disk nothing reaches the store before the layer ends
                // (so that an interrupted layer leaves no trace): the
                // outcome is queued with the row below.
                ParentInfo::Terminal(outcome) => {
                    if self.disk.is_none() {
                        self.writer.mark_terminal(parent, outcome)?;
                    }
                }
                ParentInfo::Expanded(end) => {
                    let end = end as usize;
                    self.successors(part, begin, end, width)?;
                    begin = end;
                }
            }
            let probs = self.chance.then_some(&self.probs[..]);
            match (self.disk.as_mut(), info) {
                (Some(disk), ParentInfo::Terminal(outcome)) => {
                    disk.push_terminal(parent, *outcome)?
                }
                (Some(disk), _) => disk.push_parent(parent, self.edges, probs)?,
                (None, _) => self.writer.append_edges(parent, self.edges, probs)?,
            }
            *self.next_parent += 1;
            if self.limit_reached() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Resolves the successors `begin..end` of a part into edges.
    fn successors(
        &mut self,
        part: &Part,
        begin: usize,
        end: usize,
        width: usize,
    ) -> Result<(), ExploreError> {
        for s in begin..end {
            // Prefetch the slot a few successors ahead so that its cache
            // miss overlaps with this one's work.
            let ahead = s + LOOKAHEAD;
            if ahead < part.len() {
                match part.id(ahead) {
                    UNRESOLVED => {
                        let key = self.table.key(part.tag(ahead, self.keys, width));
                        self.keys_ahead.put(ahead, key);
                        self.table.prefetch_key(key);
                    }
                    id => {
                        if let Some(slot) = claimed_slot(id) {
                            self.table.prefetch_slot(slot);
                        }
                    }
                }
            }
            let target = self.resolve(part, s, width)?;
            self.edges.push(Edge {
                action: part.actions[s],
                target,
            });
        }
        if self.chance {
            self.probs.extend_from_slice(&part.probs[begin..end]);
        }
        Ok(())
    }

    /// The id of a successor: known from the lookup during expansion, found
    /// or inserted in the index, or (on disk) a placeholder resolved at the
    /// end of the layer.
    #[inline]
    fn resolve(&mut self, part: &Part, s: usize, width: usize) -> Result<u64, ExploreError> {
        let record = &part.records[s * width..(s + 1) * width];
        // The tag is read only where it is needed: a successor the lookups
        // resolved needs none, and one whose key was prefetched needs its key.
        let tag = || part.tag(s, self.keys, width);
        let known = part.id(s);
        if known != UNRESOLVED {
            let Some(slot) = claimed_slot(known) else {
                return Ok(known);
            };
            // A lookup claimed the slot: settle it, unless the table moved
            // since, and then resolve the successor as if unresolved.
            let next = self.writer.state_count();
            match self.table.settle(slot, tag(), next) {
                Some(Ok(id)) => return Ok(id),
                Some(Err(new)) => {
                    self.writer.append_state(record)?;
                    return Ok(new);
                }
                None => {}
            }
        }
        if let Some(disk) = self.disk.as_mut() {
            let key = self
                .keys_ahead
                .get(s)
                .unwrap_or_else(|| self.table.key(tag()));
            return disk.lookup_or_candidate(self.table, self.keys, (key, tag), record);
        }
        let next = self.writer.state_count();
        // The record goes into the arena before the table can publish its
        // id, so that a lookup on another thread never finds the id without
        // it.
        if !self.keys.put(next, record) {
            return Err(ExploreError::ArenaTooSmall(next));
        }
        let keys = self.keys;
        let key = self
            .keys_ahead
            .get(s)
            .unwrap_or_else(|| self.table.key(tag()));
        match self
            .table
            .get_or_insert_key(key, next, |id| keys.same(id, record))
        {
            Ok(id) => Ok(id),
            Err(new) => {
                self.writer.append_state(record)?;
                Ok(new)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_ahead_is_found_until_the_ring_wraps_onto_it() {
        let mut ahead = KeysAhead::default();
        assert_eq!(ahead.get(0), None);
        for s in 0..200 {
            ahead.put(s, 1000 + s as u64);
            // Every key of the last ring's length is still there.
            for back in 0..KeysAhead::LEN.min(s + 1) {
                assert_eq!(ahead.get(s - back), Some(1000 + (s - back) as u64));
            }
            // A key put one ring's length earlier is overwritten, not returned
            // as that of another successor.
            assert_eq!(ahead.get(s + KeysAhead::LEN), None);
            if s >= KeysAhead::LEN {
                assert_eq!(ahead.get(s - KeysAhead::LEN), None);
            }
        }
        ahead.clear();
        assert_eq!(ahead.get(199), None);
    }
}
