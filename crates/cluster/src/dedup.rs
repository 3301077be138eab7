//! Step 2 of a round, at the successors' owner: the successors it already
//! knows are answered with their ids, the others are grouped by content and
//! the smallest key of each group, its first occurrence, goes to the ranker
//! of its parent's slice of the round.

use crate::budget::{bytes, nested};
use crate::node::Node;
use crate::round::Span;
use crate::wire::{Put, Reader};
use crate::{ClusterError, Exchange};

/// How many successors ahead the owner prefetches its index.
const LOOKAHEAD: usize = 16;

/// The new states an owner found in step 2, waiting for their ranks.
#[derive(Default)]
pub struct Candidates {
    /// Slot bytes of every unknown successor received.
    pub records: Vec<u8>,
    /// Per unknown successor: (parent, index, sender, place in the sender's rows).
    pub keys: Vec<(u64, u32, u32, u32)>,
    /// Per unknown successor: its fingerprint.
    pub hashes: Vec<u64>,
    /// The successors in (content, key) order.
    pub order: Vec<u32>,
    /// Per new state: where its occurrences start and end in `order`, its
    /// ranker and its position in the keys sent to that ranker.
    pub groups: Vec<(usize, usize, u32, u32)>,
}

impl Candidates {
    /// Bytes the candidates occupy.
    pub fn bytes(&self) -> u64 {
        bytes(&self.records)
            + bytes(&self.keys)
            + bytes(&self.hashes)
            + bytes(&self.order)
            + bytes(&self.groups)
    }

    /// The slot of unknown successor `i`.
    pub fn record(&self, i: u32, width: usize) -> &[u8] {
        &self.records[i as usize * width..(i as usize + 1) * width]
    }
}

impl<X: Exchange> Node<'_, X> {
    /// Step 2 at the owner: known successors answered, new ones grouped by
    /// content and their smallest keys sent to the rankers. The message to
    /// process `k` is a count of answers, the answers, then the keys.
    /// `resident` is what the round's carried buffers occupy, for the measure.
    pub(crate) fn sort_out(
        &mut self,
        inbox: Vec<Vec<u8>>,
        span: &Span,
        resident: u64,
    ) -> Result<(Candidates, Vec<Vec<u8>>), ClusterError> {
        let peers = self.ex.peers();
        let width = self.slot.width();
        let mut answers = vec![Vec::new(); peers];
        let mut cands = Candidates::default();
        let size = width + 16;
        for (from, bytes) in inbox.iter().enumerate() {
            let mut r = Reader::new(bytes, from);
            // Fingerprints are computed a few successors ahead and their table
            // slots prefetched: a probe of a large index is a cache miss.
            let hash_of = |k: usize| {
                bytes
                    .get(k * size..k * size + width)
                    .map(crate::index::fingerprint)
            };
            let mut ahead: Vec<u64> = (0..LOOKAHEAD).filter_map(hash_of).collect();
            ahead.iter().for_each(|&h| self.index.prefetch(h));
            let mut k = 0;
            while !r.is_empty() {
                let record = r.bytes(width)?;
                let (parent, j, place) = (r.u64()?, r.u32()?, r.u32()?);
                if !(span.start..span.end).contains(&parent) {
                    return Err(r.malformed(format!("parent {parent} outside the round")));
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
        self.measure(
            resident
                + nested(&inbox)
                + nested(&answers)
                + cands.bytes()
                + bytes(&sorted)
                + bytes(&order),
        );
        drop(sorted);
        drop(inbox);
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
            let ranker = span.ranker(parent, peers);
            let to: &mut Vec<u8> = &mut keys[ranker];
            to.put_u64(parent);
            to.put_u32(j);
            cands.groups.push((at, end, ranker as u32, counts[ranker]));
            counts[ranker] += 1;
        }
        cands.order = order;
        let out: Vec<Vec<u8>> = answers
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
        self.measure(resident + cands.bytes() + bytes(&runs) + nested(&out));
        Ok((cands, out))
    }
}
