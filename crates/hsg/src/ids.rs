//! Compact id arrays: `u32` words while every id fits, `u64` beyond, so that per-state
//! arrays cost four bytes a state on all but gigantic graphs.

use crate::error::HsgError;
use crate::state_arrays::{Backing, Words};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// An unsigned integer type used to store ids in large arrays.
pub trait Word:
    store::PlainWord + Copy + Default + Eq + Ord + Send + Sync + std::fmt::Debug + 'static
{
    /// The largest value the word can hold.
    const MAX_VALUE: u64;
    /// Narrows `value`, which the caller guarantees is at most [`Word::MAX_VALUE`].
    fn from_u64(value: u64) -> Self;
    /// Widens the word.
    fn to_u64(self) -> u64;
    /// The atomic of the same width.
    type Atomic: AtomicWord;
    /// `words` seen as atomics while borrowed, for updates from several threads.
    fn atomic(words: &mut [Self]) -> &[Self::Atomic];
}

/// The atomic operations the parallel passes use, on either word width (values are
/// narrowed and widened as by [`Word`]). Relaxed ordering throughout: each array is
/// only read after the threads that update it have been joined.
pub trait AtomicWord: Sync {
    /// The value.
    fn get(&self) -> u64;
    /// Replaces the value.
    fn put(&self, value: u64);
    /// Replaces `current` by `new`, or returns false when the value was not `current`.
    fn replace(&self, current: u64, new: u64) -> bool;
    /// Adds `delta` and returns the value before.
    fn add(&self, delta: u64) -> u64;
}

macro_rules! atomic_word {
    ($atomic:ty, $word:ty) => {
        impl AtomicWord for $atomic {
            #[inline]
            fn get(&self) -> u64 {
                self.load(Relaxed) as u64
            }
            #[inline]
            fn put(&self, value: u64) {
                self.store(value as $word, Relaxed)
            }
            #[inline]
            fn replace(&self, current: u64, new: u64) -> bool {
                self.compare_exchange(current as $word, new as $word, Relaxed, Relaxed)
                    .is_ok()
            }
            #[inline]
            fn add(&self, delta: u64) -> u64 {
                self.fetch_add(delta as $word, Relaxed) as u64
            }
        }
    };
}

atomic_word!(AtomicU32, u32);
atomic_word!(AtomicU64, u64);

impl Word for u32 {
    const MAX_VALUE: u64 = u32::MAX as u64;
    #[inline]
    fn from_u64(value: u64) -> Self {
        debug_assert!(value <= Self::MAX_VALUE);
        value as u32
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    type Atomic = AtomicU32;
    #[inline]
    fn atomic(words: &mut [u32]) -> &[AtomicU32] {
        store::atomic_u32(words)
    }
}

impl Word for u64 {
    const MAX_VALUE: u64 = u64::MAX;
    #[inline]
    fn from_u64(value: u64) -> Self {
        value
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    type Atomic = AtomicU64;
    #[inline]
    fn atomic(words: &mut [u64]) -> &[AtomicU64] {
        store::atomic_u64(words)
    }
}

/// A vector of ids stored in the narrowest word that holds them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdVec {
    /// Every id is below 2^32.
    U32(Words<u32>),
    /// Some id needs 64 bits.
    U64(Words<u64>),
}

impl IdVec {
    /// A vector of `len` zeros able to hold values up to `max_value`.
    pub fn zeros(len: usize, max_value: u64) -> IdVec {
        if max_value <= u32::MAX_VALUE {
            IdVec::U32(vec![0; len].into())
        } else {
            IdVec::U64(vec![0; len].into())
        }
    }

    /// As [`IdVec::zeros`], allocated as `backing` says.
    pub fn zeros_in(len: usize, max_value: u64, backing: &Backing) -> Result<IdVec, HsgError> {
        Ok(if max_value <= u32::MAX_VALUE {
            IdVec::U32(backing.zeroed(len)?)
        } else {
            IdVec::U64(backing.zeroed(len)?)
        })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            IdVec::U32(v) => v.len(),
            IdVec::U64(v) => v.len(),
        }
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per entry (4 or 8).
    pub fn width(&self) -> usize {
        match self {
            IdVec::U32(_) => 4,
            IdVec::U64(_) => 8,
        }
    }

    /// The entry at `index`, or `None` past the end.
    #[inline]
    pub fn get(&self, index: u64) -> Option<u64> {
        let i = usize::try_from(index).ok()?;
        match self {
            IdVec::U32(v) => v.get(i).map(|&x| u64::from(x)),
            IdVec::U64(v) => v.get(i).copied(),
        }
    }

    /// The entry at `index`; the caller guarantees it is in range (ids validated upstream).
    #[inline]
    pub(crate) fn at(&self, index: u64) -> u64 {
        match self {
            IdVec::U32(v) => u64::from(v[index as usize]),
            IdVec::U64(v) => v[index as usize],
        }
    }

    /// A hint that the entry at `index` will be read soon (see [`store::prefetch`]).
    #[inline]
    pub(crate) fn prefetch(&self, index: u64) {
        match self {
            IdVec::U32(v) => store::prefetch(&v[..], index as usize),
            IdVec::U64(v) => store::prefetch(&v[..], index as usize),
        }
    }

    /// The entries `range` as a fresh `Vec<u64>` (for small slices such as member lists).
    pub fn slice_u64(&self, range: std::ops::Range<u64>) -> Vec<u64> {
        let r = range.start as usize..range.end as usize;
        match self {
            IdVec::U32(v) => v
                .get(r)
                .unwrap_or(&[])
                .iter()
                .map(|&x| u64::from(x))
                .collect(),
            IdVec::U64(v) => v.get(r).unwrap_or(&[]).to_vec(),
        }
    }

    /// Every entry widened to `u64`.
    pub fn iter(&self) -> Box<dyn Iterator<Item = u64> + '_> {
        match self {
            IdVec::U32(v) => Box::new(v.iter().map(|&x| u64::from(x))),
            IdVec::U64(v) => Box::new(v.iter().copied()),
        }
    }

    /// True when the entries are in a scratch file rather than on the heap.
    pub fn is_file(&self) -> bool {
        match self {
            IdVec::U32(v) => v.is_file(),
            IdVec::U64(v) => v.is_file(),
        }
    }

    /// Heap bytes used: none when the array lives in a scratch file.
    pub fn heap_bytes(&self) -> u64 {
        match self.is_file() {
            true => 0,
            false => (self.len() * self.width()) as u64,
        }
    }
}

impl From<Words<u32>> for IdVec {
    fn from(v: Words<u32>) -> Self {
        IdVec::U32(v)
    }
}

impl From<Words<u64>> for IdVec {
    fn from(v: Words<u64>) -> Self {
        IdVec::U64(v)
    }
}

impl From<Vec<u32>> for IdVec {
    fn from(v: Vec<u32>) -> Self {
        IdVec::U32(v.into())
    }
}

impl From<Vec<u64>> for IdVec {
    fn from(v: Vec<u64>) -> Self {
        IdVec::U64(v.into())
    }
}
