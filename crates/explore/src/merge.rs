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
            match part.ids.get(ahead).copied() {
                Some(UNRESOLVED) => self.table.prefetch(part.tags[ahead]),
                Some(id) => {
                    if let Some(slot) = claimed_slot(id) {
                        self.table.prefetch_slot(slot);
                    }
                }
                None => {}
            }
            let record = &part.records[s * width..(s + 1) * width];
            let target = self.resolve(part.ids[s], part.tags[s], record)?;
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
    fn resolve(&mut self, known: u64, tag: u64, record: &[u8]) -> Result<u64, ExploreError> {
        if known != UNRESOLVED {
            let Some(slot) = claimed_slot(known) else {
                return Ok(known);
            };
            // A lookup claimed the slot: settle it, unless the table moved
            // since, and then resolve the successor as if unresolved.
            let next = self.writer.state_count();
            match self.table.settle(slot, tag, next) {
                Some(Ok(id)) => return Ok(id),
                Some(Err(new)) => {
                    self.writer.append_state(record)?;
                    return Ok(new);
                }
                None => {}
            }
        }
        if let Some(disk) = self.disk.as_mut() {
            return disk.lookup_or_candidate(self.table, self.keys, tag, record);
        }
        let next = self.writer.state_count();
        // The record goes into the arena before the table can publish its
        // id, so that a lookup on another thread never finds the id without
        // it.
        if !self.keys.put(next, record) {
            return Err(ExploreError::ArenaTooSmall(next));
        }
        let keys = self.keys;
        match self
            .table
            .get_or_insert(tag, next, |id| keys.same(id, record))
        {
            Ok(id) => Ok(id),
            Err(new) => {
                self.writer.append_state(record)?;
                Ok(new)
            }
        }
    }
}
