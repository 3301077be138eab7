//! One breadth-first layer across the cluster, in four all-to-all steps:
//!
//! 1. every process expands the parents of the layer it owns and sends each
//!    successor `(slot, parent, index)` to the successor's owner;
//! 2. each owner answers the successors it already knows with their ids
//!    (to the parent's owner), sorts the others by content, and sends the
//!    smallest key `(parent, index)` of each new state to the *ranker* of
//!    that parent's slice of the layer;
//! 3. each ranker sorts the keys it received, sends every key's rank back to
//!    its owner, and broadcasts its count (with its byte and transition
//!    counts, for progress); the counts' prefix sums turn a rank into an id;
//! 4. each owner stores its new states and answers every occurrence of them
//!    to the parents' owners, which then write their parents' rows.
//!
//! A new state's smallest key is its first occurrence in the order a single
//! machine merges successors (parents in id order, successors in the game's
//! order), and parent slices are contiguous, so `layer end + base of the
//! ranker + rank` is the id the single-machine explorer gives it.

use crate::index::fingerprint;
use crate::node::{Frontier, Node};
use crate::wire::{Put, Reader};
use crate::{ClusterError, Exchange};
use model::Successors;
use store::Edge;

/// How many successors ahead the owner prefetches its index.
const LOOKAHEAD: usize = 16;

/// What a process keeps of its own parents while their successors are away.
#[derive(Default)]
pub struct Rows {
    /// Per parent: the end of its successors in the arrays below.
    ends: Vec<usize>,
    /// Per parent: its outcome if terminal.
    terminal: Vec<Option<u16>>,
    actions: Vec<u16>,
    probs: Vec<(u32, u32)>,
    /// Filled in by the answers; `u64::MAX` until then.
    targets: Vec<u64>,
}

/// The new states an owner found in step 2, waiting for their ranks.
#[derive(Default)]
struct Candidates {
    /// Slot bytes of every unknown successor received.
    records: Vec<u8>,
    /// Per unknown successor: (parent, index, sender, place in the sender's rows).
    keys: Vec<(u64, u32, u32, u32)>,
    /// Per unknown successor: its fingerprint.
    hashes: Vec<u64>,
    /// The successors in (content, key) order.
    order: Vec<u32>,
    /// Per new state: where its occurrences start and end in `order`, its
    /// ranker and its position in the keys sent to that ranker.
    groups: Vec<(usize, usize, u32, u32)>,
}

/// Layer-wide facts every process agrees on.
pub struct Layer {
    /// The first id of the layer being expanded.
    pub start: u64,
    /// One past its last id.
    pub end: u64,
}

impl Layer {
    /// The first parent of ranker `r`'s slice.
    fn slice_start(&self, r: usize, peers: usize) -> u64 {
        let len = u128::from(self.end - self.start);
        self.start + (len * r as u128 / peers as u128) as u64
    }

    /// The ranker of `parent`: the process whose slice holds it.
    fn ranker(&self, parent: u64, peers: usize) -> usize {
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
    /// New states of the next layer, cluster-wide.
    pub new_states: u64,
    /// Transitions stored by the whole cluster after this round.
    pub transitions: u64,
    /// Bytes sent by the whole cluster so far (this invocation).
    pub bytes_sent: u64,
}

impl<X: Exchange> Node<'_, X> {
    /// Expands the current layer across the cluster; the new owned states
    /// become the frontier, the rows of the owned parents are appended.
    pub fn round(&mut self) -> Result<RoundResult, ClusterError> {
        let layer = Layer {
            start: self.layers[self.layers.len() - 2],
            end: self.layers[self.layers.len() - 1],
        };
        let (rows, out) = self.expand()?;
        let inbox = self.send(out)?;
        let (mut rows, cands, out) = self.sort_out(rows, inbox, &layer)?;
        let inbox = self.send(out)?;
        let transitions = self.part.local_transitions() + rows.actions.len() as u64;
        let out = self.rank(&mut rows, inbox, &layer, transitions)?;
        let inbox = self.send(out)?;
        let (result, out) = self.place(&cands, &inbox, &layer)?;
        let inbox = self.send(out)?;
        self.answers(&mut rows, &inbox)?;
        self.write_rows(&rows)?;
        Ok(result)
    }

    /// Exchanges one step, counting the bytes that leave this process.
    fn send(&mut self, out: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, ClusterError> {
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

    /// Step 1: the owned parents' successors, each to its owner.
    fn expand(&mut self) -> Result<(Rows, Vec<Vec<u8>>), ClusterError> {
        let peers = self.ex.peers();
        let width = self.slot.width();
        let mut out = vec![Vec::new(); peers];
        let mut rows = Rows::default();
        let mut succ = Successors::default();
        let mut record = Vec::with_capacity(width);
        for (k, parent) in self.frontier.records.chunks_exact(width).enumerate() {
            let id = self.frontier.ids[k];
            let state = self.slot.decode(parent);
            let outcome = self.game.terminal(state);
            rows.terminal.push(outcome);
            if outcome.is_none() {
                succ.clear();
                self.game.successors(state, &mut succ);
                for (j, (mv, next)) in succ.iter().enumerate() {
                    record.clear();
                    self.slot.encode(next, &mut record)?;
                    let to = &mut out[(fingerprint(&record) % peers as u64) as usize];
                    to.extend_from_slice(&record);
                    to.put_u64(id);
                    to.put_u32(j as u32);
                    to.put_u32(rows.actions.len() as u32);
                    rows.actions.push(mv.action);
                    if self.chance {
                        rows.probs.push((mv.prob.num, mv.prob.den));
                    }
                }
            }
            rows.ends.push(rows.actions.len());
        }
        if rows.actions.len() >= u32::MAX as usize {
            return Err(ClusterError::Unsupported(
                "more than 2^32 successors in one process's share of a layer".into(),
            ));
        }
        rows.targets = vec![u64::MAX; rows.actions.len()];
        Ok((rows, out))
    }

    /// Step 2 at the owner: known successors answered, new ones grouped by
    /// content and their smallest keys sent to the rankers. The message to
    /// process `k` is a count of answers, the answers, then the keys.
    #[allow(clippy::type_complexity)]
    fn sort_out(
        &mut self,
        rows: Rows,
        inbox: Vec<Vec<u8>>,
        layer: &Layer,
    ) -> Result<(Rows, Candidates, Vec<Vec<u8>>), ClusterError> {
        let peers = self.ex.peers();
        let width = self.slot.width();
        let mut answers = vec![Vec::new(); peers];
        let mut cands = Candidates::default();
        let size = width + 16;
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            if bytes.len() % size != 0 {
                return Err(r.malformed(format!("{} bytes of {size}-byte successors", bytes.len())));
            }
            // Fingerprints are computed a few successors ahead and their table
            // slots prefetched: a probe of a large index is a cache miss.
            let hash_of = |k: usize| bytes.get(k * size..k * size + width).map(fingerprint);
            let mut ahead: Vec<u64> = (0..LOOKAHEAD).filter_map(hash_of).collect();
            ahead.iter().for_each(|&h| self.index.prefetch(h));
            let mut k = 0;
            while !r.is_empty() {
                let record = r.bytes(width)?;
                let (parent, j, place) = (r.u64()?, r.u32()?, r.u32()?);
                if !(layer.start..layer.end).contains(&parent) {
                    return Err(r.malformed(format!("parent {parent} outside the layer")));
                }
                let hash = ahead[k % LOOKAHEAD];
                if let Some(next) = hash_of(k + LOOKAHEAD) {
                    self.index.prefetch(next);
                    ahead[k % LOOKAHEAD] = next;
                }
                k += 1;
                match self.index.get(record, hash) {
                    Some(id) => {
                        let a = &mut answers[from];
                        a.put_u32(place);
                        a.put_u64(id);
                    }
                    None => {
                        cands.records.extend_from_slice(record);
                        cands.keys.push((parent, j, from as u32, place));
                        cands.hashes.push(hash);
                    }
                }
            }
        }
        // Equal states meet in (fingerprint, content) order, the smallest key
        // first; the order between different states does not matter. Sorting
        // by (fingerprint, key) is a sort of plain integers; only a run of
        // equal fingerprints whose contents differ (a collision) is sorted
        // again, stably, by content.
        let records = &cands.records;
        let rec = |i: u32| &records[i as usize * width..(i as usize + 1) * width];
        let hashes = &cands.hashes;
        let mut sorted: Vec<(u64, u64, u32, u32)> = cands
            .keys
            .iter()
            .zip(hashes)
            .enumerate()
            .map(|(i, (k, &h))| (h, k.0, k.1, i as u32))
            .collect();
        sorted.sort_unstable();
        let mut order: Vec<u32> = sorted.iter().map(|t| t.3).collect();
        drop(sorted);
        let mut start = 0;
        while start < order.len() {
            let h = hashes[order[start] as usize];
            let mut end = start + 1;
            while end < order.len() && hashes[order[end] as usize] == h {
                end += 1;
            }
            let run = &mut order[start..end];
            if run.iter().any(|&i| rec(i) != rec(run[0])) {
                run.sort_by(|&a, &b| rec(a).cmp(rec(b)));
            }
            start = end;
        }
        let mut runs = Vec::new();
        let mut at = 0;
        while at < order.len() {
            let first = order[at];
            let mut end = at + 1;
            while end < order.len()
                && hashes[order[end] as usize] == hashes[first as usize]
                && rec(order[end]) == rec(first)
            {
                end += 1;
            }
            runs.push((at, end));
            at = end;
        }
        // On disk, the states the table no longer holds are found by one pass
        // over the sorted runs; their occurrences are answered now.
        let known = match self.spilled.as_mut() {
            None => vec![None; runs.len()],
            Some(spilled) => {
                let wanted: Vec<(u64, &[u8])> = runs
                    .iter()
                    .map(|&(a, _)| (hashes[order[a] as usize], rec(order[a])))
                    .collect();
                spilled.lookup(&wanted)?
            }
        };
        let mut keys = vec![Vec::new(); peers];
        let mut counts = vec![0u32; peers];
        for (&(at, end), found) in runs.iter().zip(known) {
            if let Some(id) = found {
                for &i in &order[at..end] {
                    let (_, _, from, place) = cands.keys[i as usize];
                    answers[from as usize].put_u32(place);
                    answers[from as usize].put_u64(id);
                }
                continue;
            }
            let (parent, j, _, _) = cands.keys[order[at] as usize];
            let ranker = layer.ranker(parent, peers);
            let to: &mut Vec<u8> = &mut keys[ranker];
            to.put_u64(parent);
            to.put_u32(j);
            cands.groups.push((at, end, ranker as u32, counts[ranker]));
            counts[ranker] += 1;
        }
        cands.order = order;
        let out = answers
            .into_iter()
            .zip(keys)
            .map(|(a, k)| {
                let mut msg = Vec::with_capacity(8 + a.len() + k.len());
                msg.put_u64((a.len() / 12) as u64);
                msg.extend_from_slice(&a);
                msg.extend_from_slice(&k);
                msg
            })
            .collect();
        Ok((rows, cands, out))
    }

    /// Step 3 at the ranker (and the parent owner): known answers filled in,
    /// the keys of this slice ranked. The message to `k` is this ranker's
    /// count, bytes sent and transitions, then the ranks of `k`'s keys in
    /// the order `k` sent them.
    fn rank(
        &mut self,
        rows: &mut Rows,
        inbox: Vec<Vec<u8>>,
        layer: &Layer,
        transitions: u64,
    ) -> Result<Vec<Vec<u8>>, ClusterError> {
        let peers = self.ex.peers();
        let me = self.ex.index();
        let mut keys: Vec<(u64, u32, u32, u32)> = Vec::new();
        let mut received = vec![0u32; peers];
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            let known = r.u64()?;
            for _ in 0..known {
                let (place, id) = (r.u32()?, r.u64()?);
                fill(rows, place, id, &r)?;
            }
            while !r.is_empty() {
                let (parent, j) = (r.u64()?, r.u32()?);
                if !(layer.start..layer.end).contains(&parent) || layer.ranker(parent, peers) != me
                {
                    return Err(
                        r.malformed(format!("key of parent {parent} sent to the wrong ranker"))
                    );
                }
                keys.push((parent, j, from as u32, received[from]));
                received[from] += 1;
            }
        }
        keys.sort_unstable();
        let mut ranks: Vec<Vec<u64>> = received.iter().map(|&n| vec![0; n as usize]).collect();
        for (rank, &(_, _, from, pos)) in keys.iter().enumerate() {
            ranks[from as usize][pos as usize] = rank as u64;
        }
        let out = ranks
            .into_iter()
            .map(|list| {
                let mut msg = Vec::with_capacity(24 + 8 * list.len());
                msg.put_u64(keys.len() as u64);
                msg.put_u64(self.bytes_sent);
                msg.put_u64(transitions);
                for rank in list {
                    msg.put_u64(rank);
                }
                msg
            })
            .collect();
        Ok(out)
    }

    /// Step 4 at the owner: ids from ranks, the new states stored and made
    /// the next frontier, every occurrence answered.
    fn place(
        &mut self,
        cands: &Candidates,
        inbox: &[Vec<u8>],
        layer: &Layer,
    ) -> Result<(RoundResult, Vec<Vec<u8>>), ClusterError> {
        let peers = self.ex.peers();
        let width = self.slot.width();
        let mut readers: Vec<Reader> = inbox
            .iter()
            .enumerate()
            .map(|(from, b)| Reader::new(b, from))
            .collect();
        let mut base = Vec::with_capacity(peers);
        let (mut total, mut bytes, mut transitions) = (0u64, 0u64, 0u64);
        for r in readers.iter_mut() {
            base.push(total);
            total += r.u64()?;
            bytes += r.u64()?;
            transitions += r.u64()?;
        }
        let mut ranks: Vec<Vec<u64>> = Vec::with_capacity(peers);
        for r in readers.iter_mut() {
            let mut list = Vec::new();
            while !r.is_empty() {
                list.push(r.u64()?);
            }
            ranks.push(list);
        }
        let mut out = vec![Vec::new(); peers];
        let mut fresh: Vec<(u64, u32)> = Vec::with_capacity(cands.groups.len());
        for &(at, until, ranker, pos) in &cands.groups {
            let ranker = ranker as usize;
            let Some(&rank) = ranks[ranker].get(pos as usize) else {
                return Err(readers[ranker].malformed("fewer ranks than keys sent"));
            };
            let id = layer.end + base[ranker] + rank;
            for &i in &cands.order[at..until] {
                let (_, _, from, place) = cands.keys[i as usize];
                let to = &mut out[from as usize];
                to.put_u32(place);
                to.put_u64(id);
            }
            fresh.push((id, cands.order[at]));
        }
        if let Some(spilled) = self.spilled.as_mut() {
            // The groups are in (fingerprint, content) order: a run as it is.
            let rec = |i: u32| &cands.records[i as usize * width..(i as usize + 1) * width];
            spilled.add_run(
                fresh
                    .iter()
                    .map(|&(id, i)| (cands.hashes[i as usize], rec(i), id)),
            )?;
        }
        fresh.sort_unstable();
        let mut frontier = Frontier::default();
        for &(id, i) in &fresh {
            let record = &cands.records[i as usize * width..(i as usize + 1) * width];
            if id >= layer.end + total {
                return Err(ClusterError::Malformed {
                    from: 0,
                    what: format!("id {id} beyond the layer's {total} new states"),
                });
            }
            if self.spilled.is_none() {
                self.index.insert(record, fingerprint(record), id)?;
            }
            self.part.append_state(id, record)?;
            frontier.records.extend_from_slice(record);
            frontier.ids.push(id);
        }
        self.next_frontier = frontier;
        let result = RoundResult {
            new_states: total,
            transitions,
            bytes_sent: bytes,
        };
        Ok((result, out))
    }

    /// After step 4 at the parent owner: the ids of the new successors.
    fn answers(&mut self, rows: &mut Rows, inbox: &[Vec<u8>]) -> Result<(), ClusterError> {
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            while !r.is_empty() {
                let (place, id) = (r.u32()?, r.u64()?);
                fill(rows, place, id, &r)?;
            }
        }
        Ok(())
    }

    /// The rows of the owned parents, in id order, and their terminals.
    fn write_rows(&mut self, rows: &Rows) -> Result<(), ClusterError> {
        let mut edges = Vec::new();
        let mut start = 0;
        for (k, &end) in rows.ends.iter().enumerate() {
            let parent = self.frontier.ids[k];
            if let Some(outcome) = rows.terminal[k] {
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
        Ok(())
    }
}

/// Records that the successor at `place` of this process's rows is state `id`.
fn fill(rows: &mut Rows, place: u32, id: u64, r: &Reader) -> Result<(), ClusterError> {
    match rows.targets.get_mut(place as usize) {
        Some(target) => {
            *target = id;
            Ok(())
        }
        None => Err(r.malformed(format!(
            "an answer for successor {place}, beyond this layer's"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_layer_in_order() {
        for peers in 1..6 {
            for (start, end) in [(0u64, 1u64), (3, 4), (10, 17), (5, 1000)] {
                let layer = Layer { start, end };
                let mut last = 0;
                for p in start..end {
                    let r = layer.ranker(p, peers);
                    assert!(r >= last, "slices must be contiguous");
                    assert!(layer.slice_start(r, peers) <= p);
                    last = r;
                }
            }
        }
    }
}
