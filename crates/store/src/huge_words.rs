//! Large zeroed arrays of words backed by anonymous memory with transparent
//! huge pages requested: the explorer's hash table lives in one, because a
//! table of gigabytes probed at random spends most of its time in TLB misses
//! with 4 KiB pages. It sits in the store because it is an `mmap`, and the
//! store is the one crate that may contain `unsafe`.
//!
//! An array can be *reserved* larger than it is used: the kernel gives
//! memory to a page only when it is first written, so a table that grows in
//! place inside its reservation costs only the pages it has reached, and
//! growing never needs the old and the new table at once. The words can also
//! be seen as atomics, so that one thread may write while others read.

use crate::error::StoreError;
use memmap2::{Advice, MmapMut, MmapOptions};
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A zero-initialised `[u64]` of fixed length.
pub struct Words {
    map: Option<MmapMut>,
}

impl Words {
    /// `len` zero words; huge pages are requested (and silently not used
    /// where the kernel refuses them).
    pub fn zeroed(len: usize) -> Result<Words, StoreError> {
        if len == 0 {
            return Ok(Words { map: None });
        }
        let map = MmapMut::map_anon(len * 8).map_err(|e| StoreError::Io {
            path: "anonymous memory".into(),
            source: e,
        })?;
        let _ = map.advise(Advice::HugePage);
        Ok(Words { map: Some(map) })
    }

    /// The words.
    #[inline]
    pub fn as_slice(&self) -> &[u64] {
        match &self.map {
            // SAFETY: the map is page aligned (so 8-aligned), its length is a
            // multiple of 8, and every bit pattern is a valid u64.
            Some(m) => unsafe { m.align_to::<u64>().1 },
            None => &[],
        }
    }

    /// Asks the processor to start loading the cache line of word `index`.
    /// Unlike a load, a prefetch retires at once, so many misses overlap.
    #[inline]
    pub fn prefetch(&self, index: usize) {
        prefetch(self.as_slice(), index);
    }

    /// The words, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u64] {
        match &mut self.map {
            // SAFETY: as in `as_slice`; the borrow is exclusive.
            Some(m) => unsafe { m.align_to_mut::<u64>().1 },
            None => &mut [],
        }
    }
}

/// A zero-initialised `[AtomicU64]` of fixed length, reserved rather than
/// allocated: one thread may write while others read, and pages get memory
/// only when first written.
pub struct AtomicWords {
    map: Option<MmapMut>,
}

impl AtomicWords {
    /// `len` zero words of address space, no memory: a page is given memory
    /// when it is first written, and no swap is reserved for the untouched
    /// rest. Huge pages are requested as in [`Words::zeroed`].
    pub fn reserve(len: usize) -> Result<AtomicWords, StoreError> {
        if len == 0 {
            return Ok(AtomicWords { map: None });
        }
        let map = MmapOptions::new()
            .len(len * 8)
            .no_reserve_swap()
            .map_anon()
            .map_err(|e| StoreError::Io {
                path: "anonymous memory".into(),
                source: e,
            })?;
        let _ = map.advise(Advice::HugePage);
        Ok(AtomicWords { map: Some(map) })
    }

    /// Number of words.
    pub fn len(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.len() / 8)
    }

    /// True when there are no words.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The words, for one writer and many readers at once.
    #[inline]
    pub fn as_atomic(&self) -> &[AtomicU64] {
        match &self.map {
            // SAFETY: `AtomicU64` has the size and alignment of `u64`; the map
            // is page aligned and a multiple of 8 bytes long. A shared
            // reference only ever sees the words as atomics, and the plain
            // view below needs `&mut self`, so no plain access overlaps an
            // atomic one.
            Some(m) => unsafe {
                std::slice::from_raw_parts(m.as_ptr().cast::<AtomicU64>(), m.len() / 8)
            },
            None => &[],
        }
    }

    /// The words, writable without atomics while nobody else can see them.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u64] {
        match &mut self.map {
            // SAFETY: as in `Words::as_slice`; the borrow is exclusive.
            Some(m) => unsafe { m.align_to_mut::<u64>().1 },
            None => &mut [],
        }
    }
}

// The views below rely on the atomics having their integers' alignment (size and bit
// validity are the same by definition); a target where they differ fails to build.
const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());

/// `words` seen as atomics for as long as they are borrowed, so that several threads
/// may update one array in place (the analysis's concurrent union-find and row fills).
#[inline]
pub fn atomic_u32(words: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: `AtomicU32` has the size, bit validity and (checked above) alignment of
    // `u32`; the exclusive borrow means no plain access overlaps the atomic view while
    // it lives.
    unsafe { std::slice::from_raw_parts(words.as_mut_ptr().cast::<AtomicU32>(), words.len()) }
}

/// As [`atomic_u32`], for 64-bit words.
#[inline]
pub fn atomic_u64(words: &mut [u64]) -> &[AtomicU64] {
    // SAFETY: as in `atomic_u32`, with `AtomicU64` and `u64`.
    unsafe { std::slice::from_raw_parts(words.as_mut_ptr().cast::<AtomicU64>(), words.len()) }
}

/// Asks the processor to start loading the cache line of `items[index]` (nothing
/// happens when `index` is out of bounds). Unlike a load, a prefetch retires at once,
/// so the misses of many prefetches overlap; the analysis uses it on the arrays and
/// mapped rows it reads at random.
#[inline]
pub fn prefetch<T>(items: &[T], index: usize) {
    if let Some(item) = items.get(index) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch is only a hint; it never faults and reads
            // nothing observable, and the address is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(item).cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = item;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_start_zeroed_and_keep_writes() {
        let mut w = Words::zeroed(1 << 20).unwrap();
        assert!(w.as_slice().iter().all(|&x| x == 0));
        w.as_mut_slice()[12345] = 7;
        assert_eq!(w.as_slice()[12345], 7);
        assert_eq!(w.as_slice().len(), 1 << 20);
        assert!(Words::zeroed(0).unwrap().as_slice().is_empty());
    }

    #[test]
    fn reserved_words_are_zero_and_shared_writes_are_seen() {
        use std::sync::atomic::Ordering;
        let w = AtomicWords::reserve(1 << 24).unwrap();
        assert_eq!(w.len(), 1 << 24);
        let a = w.as_atomic();
        assert_eq!(a[(1 << 24) - 1].load(Ordering::Relaxed), 0);
        std::thread::scope(|s| {
            s.spawn(|| a[5].store(9, Ordering::Release));
        });
        assert_eq!(a[5].load(Ordering::Acquire), 9);
        assert!(AtomicWords::reserve(0).unwrap().is_empty());
    }

    #[test]
    fn plain_words_seen_as_atomics_keep_their_values_and_take_shared_writes() {
        use std::sync::atomic::Ordering;
        let mut small = vec![1u32, 2, 3];
        let mut wide = vec![4u64, 5];
        std::thread::scope(|s| {
            let (a, b) = (atomic_u32(&mut small), atomic_u64(&mut wide));
            assert_eq!(a[2].load(Ordering::Relaxed), 3);
            s.spawn(|| a[0].fetch_add(10, Ordering::Relaxed));
            s.spawn(|| b[1].store(50, Ordering::Relaxed));
        });
        assert_eq!((small, wide), (vec![11, 2, 3], vec![4, 50]));
    }
}
