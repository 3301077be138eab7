//! Zeroed arrays of plain words kept in a scratch file and mapped into memory: the
//! analysis's fallback when its per-state arrays do not fit the memory budget. The
//! kernel keeps in RAM the pages in use and writes the others back to the file, so the
//! arrays cost page cache, which it can reclaim, instead of anonymous memory, which it
//! cannot without swap.
//!
//! The file's blocks are allocated when the array is made, so a full disk is an error
//! then, not a fault on a later write; and the file is unlinked as soon as it is
//! mapped, so nothing is left behind, whatever way the process ends.

use crate::error::{io, StoreError};
use memmap2::{Advice, MmapMut, MmapOptions};
use std::fs::OpenOptions;
use std::marker::PhantomData;
use std::os::fd::AsRawFd;
use std::path::Path;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A word type for which every bit pattern is a valid value and zero bytes are zero.
pub trait PlainWord: sealed::Sealed + Copy + Default + 'static {}
impl PlainWord for u32 {}
impl PlainWord for u64 {}

/// A `[T]` of fixed length in a mapped, already unlinked scratch file.
pub struct FileArray<T: PlainWord> {
    map: Option<MmapMut>,
    len: usize,
    word: PhantomData<T>,
}

impl<T: PlainWord> FileArray<T> {
    /// `len` zeros in a new file at `path` (which must not exist), removed from the
    /// directory at once. Fails with the path when the file cannot be made or its
    /// blocks cannot be allocated (a full disk).
    pub fn zeroed(path: &Path, len: usize) -> Result<FileArray<T>, StoreError> {
        if len == 0 {
            return Ok(FileArray::from_map(None, len));
        }
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| io(path)(std::io::Error::other("array too large")))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(io(path))?;
        let made = allocate(&file, bytes).and_then(|()| {
            // SAFETY: the file was just created by this process with `create_new` and is
            // unlinked below, so no other process or handle can truncate or write it
            // while it is mapped; its length covers the mapping.
            unsafe { MmapOptions::new().len(bytes).map_mut(&file) }
        });
        let removed = std::fs::remove_file(path);
        let map = made.map_err(io(path))?;
        removed.map_err(io(path))?;
        let _ = map.advise(Advice::Random);
        Ok(FileArray::from_map(Some(map), len))
    }

    /// The array of `len` words a map of at least `len * size_of::<T>()` bytes holds
    /// (or of no words, without a map). Also the body of [`crate::HugeArray`].
    pub(crate) fn from_map(map: Option<MmapMut>, len: usize) -> FileArray<T> {
        debug_assert!(map
            .as_ref()
            .map_or(len == 0, |m| m.len() >= len * std::mem::size_of::<T>()));
        FileArray {
            map,
            len,
            word: PhantomData,
        }
    }

    /// The words.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.map {
            // SAFETY: the map is page aligned (so aligned for `T`), holds exactly `len`
            // words, and every bit pattern is a valid `T` (`PlainWord` is sealed to
            // unsigned integers).
            Some(m) => unsafe { std::slice::from_raw_parts(m.as_ptr().cast::<T>(), self.len) },
            None => &[],
        }
    }

    /// The words, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.map {
            // SAFETY: as in `as_slice`; the borrow is exclusive.
            Some(m) => unsafe {
                std::slice::from_raw_parts_mut(m.as_mut_ptr().cast::<T>(), self.len)
            },
            None => &mut [],
        }
    }
}

/// Gives the file its blocks now, so that running out of disk is reported here.
fn allocate(file: &std::fs::File, bytes: usize) -> std::io::Result<()> {
    let len = libc::off_t::try_from(bytes).map_err(std::io::Error::other)?;
    // SAFETY: `posix_fallocate` only reads its integer arguments and acts on a file
    // descriptor this function borrows for the duration of the call.
    let code = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
    if code == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_zeroed_keeps_writes_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scratch");
        let mut a = FileArray::<u32>::zeroed(&path, 10_000).unwrap();
        assert!(!path.exists(), "the file is unlinked once mapped");
        assert!(a.as_slice().iter().all(|&x| x == 0));
        a.as_mut_slice()[9_999] = 7;
        a.as_mut_slice()[0] = u32::MAX;
        assert_eq!(a.as_slice()[9_999], 7);
        assert_eq!(a.as_slice()[0], u32::MAX);
        assert_eq!(a.as_slice().len(), 10_000);
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_file() {
        let err = FileArray::<u64>::zeroed(Path::new("/nonexistent/dir/scratch"), 8)
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("/nonexistent/dir/scratch"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_array_needs_no_file() {
        let a = FileArray::<u64>::zeroed(Path::new("/nonexistent/x"), 0).unwrap();
        assert!(a.as_slice().is_empty());
    }
}
