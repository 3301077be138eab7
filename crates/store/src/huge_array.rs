//! Zeroed arrays of plain words in anonymous memory with transparent huge pages
//! requested: the analysis's per-state arrays when they fit its budget.
//!
//! The strongly connected components read their per-state arrays at random, once
//! per transition. On the heap (`vec!`) they get 4 KiB pages whenever the kernel
//! gives huge pages only on request (`madvise` mode, the common default), and on
//! room4's 32 M states nearly every read is then a TLB miss. Here the pages are
//! requested huge, so one TLB entry covers 2 MiB.

use crate::error::StoreError;
use crate::file_array::{FileArray, PlainWord};
use memmap2::{Advice, MmapMut};

/// A zero-initialised `[T]` of fixed length in anonymous huge-page memory. It reads and
/// writes like a [`FileArray`], whose mapped-array body it reuses.
pub struct HugeArray<T: PlainWord>(FileArray<T>);

impl<T: PlainWord> HugeArray<T> {
    /// `len` zeros. Fails when the address space cannot be had (the caller may
    /// then fall back to the heap); huge pages are requested and silently not
    /// used where the kernel refuses them.
    pub fn zeroed(len: usize) -> Result<HugeArray<T>, StoreError> {
        let map = match len.checked_mul(std::mem::size_of::<T>()) {
            Some(0) => None,
            Some(bytes) => {
                let map = MmapMut::map_anon(bytes).map_err(anonymous)?;
                let _ = map.advise(Advice::HugePage);
                Some(map)
            }
            None => return Err(anonymous(std::io::Error::other("array too large"))),
        };
        Ok(HugeArray(FileArray::from_map(map, len)))
    }

    /// The words.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        self.0.as_slice()
    }

    /// The words, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.0.as_mut_slice()
    }
}

fn anonymous(source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: "anonymous memory".into(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_zeroed_and_keeps_writes() {
        let mut a = HugeArray::<u32>::zeroed(3 << 20).unwrap();
        assert_eq!(a.as_slice().len(), 3 << 20);
        assert!(a.as_slice().iter().all(|&x| x == 0));
        a.as_mut_slice()[(3 << 20) - 1] = 7;
        assert_eq!(a.as_slice()[(3 << 20) - 1], 7);
        assert!(HugeArray::<u64>::zeroed(0).unwrap().as_slice().is_empty());
        assert!(HugeArray::<u64>::zeroed(usize::MAX).is_err());
    }
}
