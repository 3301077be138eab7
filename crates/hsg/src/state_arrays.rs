//! Per-state arrays on the heap, or in scratch files when the memory budget cannot
//! hold them: the analysis's out-of-core fallback.
//!
//! The strongly connected components need about 12 bytes a state at their peak, and the
//! member lists 4 more. When that exceeds `--analysis-mem`, these arrays go to files in
//! the run directory that are mapped into memory ([`store::FileArray`]): the kernel keeps
//! in RAM the pages in use and writes the rest back, and it can reclaim them under
//! pressure, which it cannot do for heap memory without swap. The call and component
//! stacks of the search are used from their top, so they page well; the component
//! numbers are read at random, once per transition, so a graph whose numbers alone
//! outgrow the machine's RAM pays a disk read per transition that misses.

use crate::error::HsgError;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use store::{FileArray, PlainWord};

/// Where the analysis puts its large per-state arrays.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Backing {
    /// On the heap.
    #[default]
    Heap,
    /// In scratch files in this directory (each unlinked as soon as it is mapped).
    Files(PathBuf),
}

/// The value of a computation whose arrays are all on the heap, which cannot fail:
/// heap arrays are allocated like `vec!`, which aborts rather than returning an error.
pub(crate) fn on_heap<T>(result: Result<T, HsgError>) -> T {
    match result {
        Ok(value) => value,
        Err(e) => unreachable!("heap arrays cannot fail: {e}"),
    }
}

/// Distinguishes the scratch files of one process.
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

impl Backing {
    /// `len` zeros, on the heap or in a new scratch file.
    pub fn zeroed<T: PlainWord>(&self, len: usize) -> Result<Words<T>, HsgError> {
        match self {
            Backing::Heap => Ok(in_memory(len)),
            Backing::Files(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| HsgError::io(dir, e))?;
                let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
                let path = dir.join(format!(".scratch-{}-{n}", std::process::id()));
                let array =
                    FileArray::zeroed(&path, len).map_err(|e| HsgError::Store(e.to_string()))?;
                Ok(Words::File(array))
            }
        }
    }
}

/// Arrays of at least this many bytes go to huge-page memory rather than the heap.
const HUGE_BYTES: usize = 2 << 20;

/// `len` zeros in memory: large arrays in huge pages (read at random, they would spend
/// their time in TLB misses with 4 KiB pages; see [`store::HugeArray`]), small ones
/// and any the kernel refuses an anonymous mapping on the heap.
fn in_memory<T: PlainWord>(len: usize) -> Words<T> {
    if len.saturating_mul(std::mem::size_of::<T>()) >= HUGE_BYTES {
        if let Ok(array) = store::HugeArray::zeroed(len) {
            return Words::Huge(array);
        }
    }
    Words::Heap(vec![T::default(); len])
}

/// A fixed-length array of words, on the heap or in a mapped scratch file.
pub enum Words<T: PlainWord> {
    /// On the heap.
    Heap(Vec<T>),
    /// In anonymous memory with huge pages.
    Huge(store::HugeArray<T>),
    /// In a mapped scratch file.
    File(FileArray<T>),
}

impl<T: PlainWord> Words<T> {
    /// True when the words are in a scratch file.
    pub fn is_file(&self) -> bool {
        matches!(self, Words::File(_))
    }
}

impl<T: PlainWord> Deref for Words<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Words::Heap(v) => v,
            Words::Huge(h) => h.as_slice(),
            Words::File(f) => f.as_slice(),
        }
    }
}

impl<T: PlainWord> DerefMut for Words<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Words::Heap(v) => v,
            Words::Huge(h) => h.as_mut_slice(),
            Words::File(f) => f.as_mut_slice(),
        }
    }
}

/// A copy is always on the heap (copies are made of small arrays, in tests).
impl<T: PlainWord> Clone for Words<T> {
    fn clone(&self) -> Self {
        Words::Heap(self.to_vec())
    }
}

impl<T: PlainWord + PartialEq> PartialEq for Words<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: PlainWord + Eq> Eq for Words<T> {}

impl<T: PlainWord + std::fmt::Debug> std::fmt::Debug for Words<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PlainWord> From<Vec<T>> for Words<T> {
    fn from(v: Vec<T>) -> Self {
        Words::Heap(v)
    }
}

impl<T: PlainWord> FromIterator<T> for Words<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Words::Heap(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_words_behave_like_heap_words() {
        let dir = tempfile::tempdir().unwrap();
        let files = Backing::Files(dir.path().join("scratch"));
        let mut a: Words<u64> = files.zeroed(1000).unwrap();
        let mut b: Words<u64> = Backing::Heap.zeroed(1000).unwrap();
        assert!(a.is_file() && !b.is_file());
        for i in 0..1000 {
            a[i] = (i * i) as u64;
            b[i] = (i * i) as u64;
        }
        assert_eq!(a, b);
        assert_eq!(a.clone(), b);
        assert_eq!(
            std::fs::read_dir(dir.path().join("scratch"))
                .unwrap()
                .count(),
            0
        );
    }

    #[test]
    fn large_arrays_in_memory_take_huge_pages_and_read_like_small_ones() {
        let mut big: Words<u32> = Backing::Heap.zeroed(1 << 20).unwrap();
        assert!(matches!(big, Words::Huge(_)));
        let mut small: Words<u32> = Backing::Heap.zeroed(1000).unwrap();
        assert!(matches!(small, Words::Heap(_)));
        big[999] = 5;
        small[999] = 5;
        assert_eq!(big[..1000], small[..]);
        assert!(!big.is_file());
    }

    #[test]
    fn an_unwritable_scratch_directory_is_an_error_naming_it() {
        let files = Backing::Files(PathBuf::from("/proc/no/such/dir"));
        let err = files.zeroed::<u32>(10).err().unwrap();
        assert!(err.to_string().contains("/proc/no/such/dir"), "{err}");
    }
}
