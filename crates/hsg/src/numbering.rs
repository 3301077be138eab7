//! The two-cycle pass's classes numbered on every core: the union-find's parents
//! (distances down to a smaller state, 0 at a root) replaced in place by class numbers,
//! the classes in the order of their smallest member (their root), the same numbers
//! whatever the thread count.
//!
//! # Why
//! Numbered on one thread, in state order, each state reads its parent's word, which
//! lies anywhere before it: on room5 (1.54 G states, a 6 GB union-find) that pass took
//! 52 s on one core while the other waited.
//!
//! # Algorithm
//! Three passes over ranges of states, one thread a range. (1) Every state's parent
//! becomes its root (the distance to it), and each root is marked in a bitset; a parent
//! in the thread's own range is already direct, one in an earlier range is followed to
//! its root (other threads only ever replace a parent by an ancestor, so the walk ends
//! at the same root whatever they do). (2) The roots are counted before every block of
//! [`BLOCK_WORDS`] words of the bitset. (3) Every state takes its root's number: the
//! count before the root's block plus the roots marked before it in the block. Each
//! state's word is written by its own range's thread only, and the third pass reads
//! only the bitset and the counts, so no thread reads a word another is rewriting.
//!
//! # Cost
//! Two reads at random a state (its parent's word, then its root's bit), as the serial
//! numbering's one, on every core; memory: a bit a state and a count a 512 states
//! ([`number_serially`] when that does not fit).

use crate::ids::{AtomicWord, Word};
use crate::parallel::map_ranges;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// Words of the roots' bitset whose roots are counted together (512 states).
const BLOCK_WORDS: usize = 8;

/// States ahead of a pass whose words are fetched, so that the cache misses overlap.
const AHEAD: u64 = 16;

/// Bytes [`number_in_place`] allocates for `n` states (the bitset and the counts).
pub(crate) fn bytes_needed(n: u64) -> u64 {
    let words = n.div_ceil(64);
    words * 8 + words.div_ceil(BLOCK_WORDS as u64) * 8
}

/// Replaces the union-find `up` (parents as distances, roots 0) by class numbers on
/// `threads` threads, and returns the number of classes.
pub(crate) fn number_in_place<W: Word>(up: &mut [W], threads: usize) -> u64 {
    let n = up.len() as u64;
    let roots: Vec<AtomicU64> = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
    {
        let shared = W::atomic(up);
        map_ranges(n, threads, |range| point_at_roots(shared, &roots, range));
    }
    let roots: Vec<u64> = roots.into_iter().map(AtomicU64::into_inner).collect();
    let (before, count) = count_blocks(&roots);
    let shared = W::atomic(up);
    map_ranges(n, threads, |range| {
        for s in range.clone() {
            if s + AHEAD < range.end {
                let ahead = s + AHEAD;
                let root = ahead - shared[ahead as usize].get();
                store::prefetch(&roots, (root / 64) as usize);
            }
            let root = s - shared[s as usize].get();
            shared[s as usize].put(number_of(&roots, &before, root));
        }
    });
    count
}

/// The same numbers on one thread with no memory beyond `up`: parents point to smaller
/// ids, so when `s` is reached its parent already holds its class number, and the
/// parent of the state [`AHEAD`] on is fetched, so that the cache misses overlap.
pub(crate) fn number_serially<W: Word>(up: &mut [W]) -> u64 {
    let mut count = 0u64;
    for s in 0..up.len() {
        if let Some(d) = up.get(s + AHEAD as usize).map(|w| w.to_u64()) {
            store::prefetch(up, s + AHEAD as usize - d as usize);
        }
        let d = up[s].to_u64();
        up[s] = if d == 0 {
            count += 1;
            W::from_u64(count - 1)
        } else {
            up[s - d as usize]
        };
    }
    count
}

/// Pass (1) over `range`: each state's word becomes its distance to its root, and the
/// roots are marked in `roots`.
fn point_at_roots<A: AtomicWord>(up: &[A], roots: &[AtomicU64], range: std::ops::Range<u64>) {
    for s in range.clone() {
        if s + AHEAD < range.end {
            let ahead = s + AHEAD;
            store::prefetch(up, (ahead - up[ahead as usize].get()) as usize);
        }
        let d = up[s as usize].get();
        if d == 0 {
            roots[(s / 64) as usize].fetch_or(1 << (s % 64), Relaxed);
            continue;
        }
        let parent = s - d;
        let root = if parent >= range.start {
            // Already pointed at its root by this thread.
            parent - up[parent as usize].get()
        } else {
            root_of(up, parent)
        };
        up[s as usize].put(s - root);
    }
}

/// The root of `x`, following parents without changing them.
fn root_of<A: AtomicWord>(up: &[A], mut x: u64) -> u64 {
    loop {
        let d = up[x as usize].get();
        if d == 0 {
            return x;
        }
        x -= d;
    }
}

/// The roots marked before each block of [`BLOCK_WORDS`] words, and all of them.
fn count_blocks(roots: &[u64]) -> (Vec<u64>, u64) {
    let mut before = Vec::with_capacity(roots.len().div_ceil(BLOCK_WORDS));
    let mut count = 0u64;
    for block in roots.chunks(BLOCK_WORDS) {
        before.push(count);
        count += block.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
    }
    (before, count)
}

/// The number of the class whose root is `root`: the roots before it.
#[inline]
fn number_of(roots: &[u64], before: &[u64], root: u64) -> u64 {
    let word = (root / 64) as usize;
    let block = word / BLOCK_WORDS;
    let mut number = before[block];
    for w in &roots[block * BLOCK_WORDS..word] {
        number += u64::from(w.count_ones());
    }
    let below = (1u64 << (root % 64)) - 1;
    number + u64::from((roots[word] & below).count_ones())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::two_cycles::union;
    use proptest::prelude::*;

    /// The serial numbering: each state takes its parent's number, given before it.
    fn serial(up: &[u32]) -> (Vec<u32>, u64) {
        let mut out = up.to_vec();
        let mut count = 0u64;
        for s in 0..out.len() {
            out[s] = match up[s] {
                0 => {
                    count += 1;
                    (count - 1) as u32
                }
                d => out[s - d as usize],
            };
        }
        (out, count)
    }

    proptest! {
        #[test]
        fn every_thread_count_numbers_as_the_serial_pass(
            n in 1u64..3000,
            pairs in proptest::collection::vec((0u64..3000, 0u64..3000), 0..3000),
            threads in 1usize..6,
        ) {
            let mut up = vec![0u32; n as usize];
            {
                let shared = u32::atomic(&mut up);
                for &(a, b) in &pairs {
                    union(shared, a % n, b % n);
                }
            }
            let expected = serial(&up);
            let mut alone = up.clone();
            prop_assert_eq!(number_serially(&mut alone), expected.1);
            prop_assert_eq!(&alone, &expected.0);
            let count = number_in_place(&mut up, threads);
            prop_assert_eq!((up, count), expected);
        }
    }

    #[test]
    fn a_chain_across_the_ranges_is_one_class() {
        // Every state's parent is the state before: the walk crosses every range.
        let mut up = vec![1u32; 1000];
        up[0] = 0;
        assert_eq!(number_in_place(&mut up, 4), 1);
        assert!(up.iter().all(|&c| c == 0));
        assert_eq!(bytes_needed(1000), 16 * 8 + 2 * 8);
    }
}
