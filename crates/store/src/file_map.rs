//! [`FileMap`]: a whole file mapped read-only, for readers outside the store that read
//! large files of their own in place rather than into memory (the saved analysis
//! under `DIR/hsg/`, which the workbench reads this way to open a billion-state run
//! in seconds).

use crate::error::{io, StoreError};
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// A file mapped read-only, whole.
pub struct FileMap {
    path: PathBuf,
    map: Option<Mmap>,
}

impl FileMap {
    /// Maps `path` whole (an empty file maps to no bytes).
    pub fn open(path: &Path) -> Result<FileMap, StoreError> {
        let file = File::open(path).map_err(io(path))?;
        let size = file.metadata().map_err(io(path))?.len();
        let map = if size == 0 {
            None
        } else {
            // SAFETY: the map is read-only, and the files mapped this way are
            // written whole under another name and renamed into place (the saved
            // analysis: `DIR/hsg.tmp/` becomes `DIR/hsg/`), never changed in place;
            // a file replaced or removed while mapped stays readable through the
            // map until it is dropped.
            Some(unsafe { Mmap::map(&file) }.map_err(io(path))?)
        };
        Ok(FileMap {
            path: path.to_path_buf(),
            map,
        })
    }

    /// The file's bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_maps_whole_and_an_empty_one_to_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"hello").unwrap();
        assert_eq!(FileMap::open(&path).unwrap().bytes(), b"hello");
        std::fs::write(&path, b"").unwrap();
        assert!(FileMap::open(&path).unwrap().bytes().is_empty());
        let e = FileMap::open(&dir.path().join("none")).err().unwrap();
        assert!(e.to_string().contains("none"), "{e}");
    }
}
