//! One round of a breadth-first layer across the cluster, in four
//! all-to-all steps; a layer is one round or, when its buffers would outgrow
//! `--mem`, several, each over a contiguous range of its parents:
//!
//! 1. every process expands the parents it owns, from where the last round
//!    stopped, until its share of the round fills its room in the budget,
//!    and sends each successor `(slot, parent, index, place)` to the
//!    successor's owner, after the id of the first parent it did not
//!    expand (its *proposal*). The round's parents end at the smallest
//!    proposal: every process computes it from the same messages;
//! 2. each owner answers the successors of the round it already knows with
//!    their ids (to the parent's owner), sorts the others by content, and
//!    sends the smallest key `(parent, index)` of each new state to the
//!    *ranker* of that parent's slice of the round ([`crate::dedup`]);
//! 3. each ranker sorts the keys it received, sends every key's rank back to
//!    its owner, and broadcasts its count (with its byte and transition
//!    counts, for progress); the counts' prefix sums turn a rank into an id;
//! 4. each owner stores its new states and answers every occurrence of them
//!    to the parents' owners, which then write the rows of the round's
//!    parents ([`crate::rank`] for steps 3 and 4).
//!
//! A new state's smallest key is its first occurrence in the order a single
//! machine merges successors (parents in id order, successors in the game's
//! order), and parent slices are contiguous, so `layer end + states found by
//! the layer's earlier rounds + base of the ranker + rank` is the id the
//! single-machine explorer gives it: a state met in an earlier round is in
//! the index (or its runs on disk) by the next, and every key of a round is
//! larger than every key of the rounds before it.
//!
//! A process that expanded past the round's end keeps those parents' rows
//! for the next round, and the owners keep the successors they received of
//! those parents: a place numbers a successor among all its sender's
//! successors of the layer, so neither side renumbers anything.

use crate::budget::nested;
use crate::index::fingerprint;
use crate::layer::{LayerWork, Rows};
use crate::node::Node;
use crate::wire::{Put, Reader};
use crate::{ClusterError, Exchange};
use model::Successors;
use store::Edge;

/// One round's parents, `start..end`, and the id its first new state takes.
pub struct Span {
    /// The round's first parent.
    pub start: u64,
    /// One past its last parent.
    pub end: u64,
    /// The id of the round's first new state.
    pub first_id: u64,
}

impl Span {
    /// The first parent of ranker `r`'s slice.
    fn slice_start(&self, r: usize, peers: usize) -> u64 {
        let len = u128::from(self.end - self.start);
        self.start + (len * r as u128 / peers as u128) as u64
    }

    /// The ranker of `parent`: the process whose slice holds it.
    pub fn ranker(&self, parent: u64, peers: usize) -> usize {
        let len = u128::from((self.end - self.start).max(1));
        let mut r = (u128::from(parent - self.start) * peers as u128 / len) as usize;
        r = r.min(peers - 1);
        while r + 1 < peers && self.slice_start(r + 1, peers) <= parent {
            r += 1;
        }
        while r > 0 && self.slice_start(r, peers) > parent {
            r -= 1;
        }
        r
    }
}

/// What a round tells the caller.
pub struct RoundResult {
    /// New states the round found, cluster-wide.
    pub new_states: u64,
    /// Transitions stored by the whole cluster after this round.
    pub transitions: u64,
    /// Bytes sent by the whole cluster so far (this invocation).
    pub bytes_sent: u64,
}

impl<X: Exchange> Node<'_, X> {
    /// Runs the next round of `work`: its new owned states are appended to
    /// the part and the rows of its owned parents written.
    pub fn round(&mut self, work: &mut LayerWork) -> Result<RoundResult, ClusterError> {
        let out = self.expand(work)?;
        self.measure(work.resident() + nested(&out));
        let inbox = self.send(out)?;
        let (span, inbox) = self.split(work, inbox)?;
        let (cands, out) = self.sort_out(inbox, &span, work.resident())?;
        let inbox = self.send(out)?;
        let k = work.rows.before(span.end);
        let round_transitions = work.rows.end_of(k) - work.rows.base;
        let transitions = self.part.local_transitions() + round_transitions;
        let out = self.rank(&mut work.rows, inbox, &span, transitions)?;
        let inbox = self.send(out)?;
        let (result, out) = self.place(&cands, &inbox, &span, work.resident())?;
        drop(cands);
        let inbox = self.send(out)?;
        self.answers(&mut work.rows, &inbox)?;
        self.write_rows(&mut work.rows, k)?;
        work.from = span.end;
        work.found += result.new_states;
        self.rounds += 1;
        Ok(result)
    }

    /// Exchanges one step, counting the bytes that leave this process.
    pub(crate) fn send(&mut self, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, ClusterError> {
        let me = self.ex.index();
        let sent: usize = out
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != me)
            .map(|(_, b)| b.len())
            .sum();
        self.bytes_sent += sent as u64;
        self.ex.exchange(out)
    }

    /// Step 1: owned parents expanded until the round's room is full, each
    /// successor to its owner after this process's proposal.
    fn expand(&mut self, work: &mut LayerWork) -> Result<Vec<Vec<u8>>, ClusterError> {
        let peers = self.ex.peers();
        let room = self.budget.round_room(self.index_reserve());
        let mut out = vec![vec![0u8; 8]; peers];
        let rows = &mut work.rows;
        let mut succ = Successors::default();
        let mut record = Vec::with_capacity(self.slot.width());
        while let Some(id) = work.frontier.peek() {
            // At least one parent, so that every round makes progress.
            let cost = self
                .budget
                .window_cost(rows.parents.len(), rows.actions.len());
            let full = cost >= room || rows.actions.len() as u64 >= self.round_limit;
            if !rows.parents.is_empty() && full {
                break;
            }
            let state = self.slot.decode(work.frontier.record());
            let outcome = self.game.terminal(state);
            if outcome.is_none() {
                succ.clear();
                self.game.successors(state, &mut succ);
                for (j, (mv, next)) in succ.iter().enumerate() {
                    let place = rows.next_place();
                    if place >= u64::from(u32::MAX) {
                        return Err(ClusterError::Unsupported(
                            "more than 2^32 successors in one process's share of a layer".into(),
                        ));
                    }
                    record.clear();
                    self.slot.encode(next, &mut record)?;
                    let to = &mut out[(fingerprint(&record) % peers as u64) as usize];
                    to.extend_from_slice(&record);
                    to.put_u64(id);
                    to.put_u32(j as u32);
                    to.put_u32(place as u32);
                    rows.actions.push(mv.action);
                    rows.targets.push(u64::MAX);
                    if self.chance {
                        rows.probs.push((mv.prob.num, mv.prob.den));
                    }
                }
            }
            rows.parents.push(id);
            rows.terminal.push(outcome);
            rows.ends.push(rows.next_place());
            work.frontier.advance()?;
        }
        let proposal = work.frontier.peek().unwrap_or(work.end);
        for msg in out.iter_mut() {
            msg[..8].copy_from_slice(&proposal.to_le_bytes());
        }
        Ok(out)
    }

    /// After step 1: the round ends at the smallest proposal; the successors
    /// received of later parents are held for the rounds to come, and those
    /// held from earlier rounds join this one's when their parents do.
    fn split(
        &mut self,
        work: &mut LayerWork,
        inbox: Vec<Vec<u8>>,
    ) -> Result<(Span, Vec<Vec<u8>>), ClusterError> {
        let width = self.slot.width();
        let size = width + 16;
        let mut end = work.end;
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            let proposal = r.u64()?;
            if proposal <= work.from || proposal > work.end {
                return Err(r.malformed(format!(
                    "a round ending at parent {proposal}, outside {}..={}",
                    work.from + 1,
                    work.end
                )));
            }
            if (bytes.len() - 8) % size != 0 {
                return Err(r.malformed(format!(
                    "{} bytes of {size}-byte successors",
                    bytes.len() - 8
                )));
            }
            end = end.min(proposal);
        }
        let mut now = Vec::with_capacity(inbox.len());
        for (from, mut bytes) in inbox.into_iter().enumerate() {
            let held = &mut work.held[from];
            let mut all = if held.is_empty() {
                bytes.drain(..8);
                bytes
            } else {
                let mut all = std::mem::take(held);
                all.extend_from_slice(&bytes[8..]);
                all
            };
            // Each sender's successors come in parent order: this round's first.
            let parent = |i: usize| {
                let at = i * size + width;
                let mut w = [0u8; 8];
                w.copy_from_slice(&all[at..at + 8]);
                u64::from_le_bytes(w)
            };
            let (mut lo, mut hi) = (0, all.len() / size);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if parent(mid) < end {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            *held = all[lo * size..].to_vec();
            all.truncate(lo * size);
            now.push(all);
        }
        let span = Span {
            start: work.from,
            end,
            first_id: work.end + work.found,
        };
        Ok((span, now))
    }

    /// After step 4 at the parent owner: the ids of the new successors.
    fn answers(&mut self, rows: &mut Rows, inbox: &[Vec<u8>]) -> Result<(), ClusterError> {
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            while !r.is_empty() {
                let (place, id) = (r.u32()?, r.u64()?);
                rows.fill(place, id, &r)?;
            }
        }
        Ok(())
    }

    /// The rows of the window's first `k` parents (the round's), in id
    /// order, and their terminals; then they leave the window.
    fn write_rows(&mut self, rows: &mut Rows, k: usize) -> Result<(), ClusterError> {
        let mut edges = Vec::new();
        let mut start = 0;
        for p in 0..k {
            let parent = rows.parents[p];
            let end = (rows.ends[p] - rows.base) as usize;
            if let Some(outcome) = rows.terminal[p] {
                self.part.append_terminal(parent, outcome)?;
            }
            edges.clear();
            for at in start..end {
                let target = rows.targets[at];
                if target == u64::MAX {
                    return Err(ClusterError::Malformed {
                        from: self.ex.index(),
                        what: format!("no answer for successor {} of {parent}", at - start),
                    });
                }
                edges.push(Edge {
                    action: rows.actions[at],
                    target,
                });
            }
            let probs = self.chance.then(|| &rows.probs[start..end]);
            self.part.append_row(parent, &edges, probs)?;
            start = end;
        }
        rows.drain(k);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_round_in_order() {
        for peers in 1..6 {
            for (start, end) in [(0u64, 1u64), (3, 4), (10, 17), (5, 1000)] {
                let span = Span {
                    start,
                    end,
                    first_id: end,
                };
                let mut last = 0;
                for p in start..end {
                    let r = span.ranker(p, peers);
                    assert!(r >= last, "slices must be contiguous");
                    assert!(span.slice_start(r, peers) <= p);
                    last = r;
                }
            }
        }
    }
}
