//! Steps 3 and 4 of a round: each ranker numbers the first occurrences of
//! its slice of the round's parents, and each owner turns ranks into ids,
//! stores its new states and answers every occurrence of them.

use crate::budget::{bytes, nested};
use crate::dedup::Candidates;
use crate::index::fingerprint;
use crate::layer::Rows;
use crate::node::Node;
use crate::round::{RoundResult, Span};
use crate::wire::{Put, Reader};
use crate::{ClusterError, Exchange};

impl<X: Exchange> Node<'_, X> {
    /// Step 3 at the ranker (and the parent owner): known answers filled in,
    /// the keys of this slice ranked. The message to `k` is this ranker's
    /// count, bytes sent and transitions, then the ranks of `k`'s keys in
    /// the order `k` sent them.
    pub(crate) fn rank(
        &mut self,
        rows: &mut Rows,
        inbox: Vec<Vec<u8>>,
        span: &Span,
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
                rows.fill(place, id, &r)?;
            }
            while !r.is_empty() {
                let (parent, j) = (r.u64()?, r.u32()?);
                if !(span.start..span.end).contains(&parent) || span.ranker(parent, peers) != me {
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

    /// Step 4 at the owner: ids from ranks, the new states stored (in the
    /// index or as a run on disk, so that later rounds know them, and in
    /// the part, where the next layer reads them), every occurrence
    /// answered. `resident` is what the round's carried buffers occupy.
    pub(crate) fn place(
        &mut self,
        cands: &Candidates,
        inbox: &[Vec<u8>],
        span: &Span,
        resident: u64,
    ) -> Result<(RoundResult, Vec<Vec<u8>>), ClusterError> {
        let peers = self.ex.peers();
        let width = self.slot.width();
        let mut readers: Vec<Reader> = inbox
            .iter()
            .enumerate()
            .map(|(from, b)| Reader::new(b, from))
            .collect();
        let mut base = Vec::with_capacity(peers);
        let (mut total, mut bytes_sent, mut transitions) = (0u64, 0u64, 0u64);
        for r in readers.iter_mut() {
            base.push(total);
            total += r.u64()?;
            bytes_sent += r.u64()?;
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
            let id = span.first_id + base[ranker] + rank;
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
            spilled.add_run(
                fresh
                    .iter()
                    .map(|&(id, i)| (cands.hashes[i as usize], cands.record(i, width), id)),
            )?;
        }
        fresh.sort_unstable();
        for &(id, i) in &fresh {
            let record = cands.record(i, width);
            if id >= span.first_id + total {
                return Err(ClusterError::Malformed {
                    from: 0,
                    what: format!("id {id} beyond the round's {total} new states"),
                });
            }
            if self.spilled.is_none() {
                self.index.insert(record, fingerprint(record), id)?;
            }
            self.part.append_state(id, record)?;
        }
        self.measure(
            resident
                + cands.bytes()
                + nested(inbox)
                + nested(&ranks)
                + bytes(&fresh)
                + nested(&out),
        );
        let result = RoundResult {
            new_states: total,
            transitions,
            bytes_sent,
        };
        Ok((result, out))
    }
}
