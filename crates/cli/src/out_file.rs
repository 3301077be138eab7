//! Output files written whole or not at all: the data goes to a hidden temporary file
//! beside the destination, renamed over it once everything is written; a failure (or an
//! early return) removes the temporary file and leaves the destination as it was.
//!
//! Regression: a failed `hsg export -o FILE` (an SVG of the SSG, a damaged store) left
//! an empty FILE behind, which looked like a picture that failed to render.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file being written to a temporary name until [`OutFile::commit`].
pub struct OutFile {
    dest: PathBuf,
    temp: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl OutFile {
    /// Starts writing `dest`: creates `.NAME.partial-PID` in its folder.
    pub fn create(dest: &Path) -> Result<OutFile> {
        let name = dest
            .file_name()
            .with_context(|| format!("{}: not a file name", dest.display()))?;
        let temp_name = format!(".{}.partial-{}", name.to_string_lossy(), std::process::id());
        let temp = dest.with_file_name(temp_name);
        let file =
            File::create(&temp).with_context(|| format!("cannot create {}", dest.display()))?;
        Ok(OutFile {
            dest: dest.to_path_buf(),
            temp,
            writer: Some(BufWriter::new(file)),
        })
    }

    /// Flushes the data and renames the temporary file to the destination.
    pub fn commit(mut self) -> Result<()> {
        let cannot_write = || format!("cannot write {}", self.dest.display());
        if let Some(writer) = self.writer.take() {
            let file = writer
                .into_inner()
                .map_err(|e| e.into_error())
                .with_context(cannot_write)?;
            file.sync_all().with_context(cannot_write)?;
        }
        std::fs::rename(&self.temp, &self.dest).with_context(cannot_write)
    }
}

impl Write for OutFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.writer {
            Some(w) => w.write(buf),
            None => Err(std::io::Error::other("the output file is closed")),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.writer {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for OutFile {
    fn drop(&mut self) {
        // Not committed: the temporary file is all that exists; remove it. (After a
        // commit the temporary name no longer exists and this does nothing.)
        self.writer.take();
        let _ = std::fs::remove_file(&self.temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_committed_file_appears_whole_and_a_dropped_one_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("graph.svg");
        let mut out = OutFile::create(&dest).unwrap();
        out.write_all(b"<svg/>").unwrap();
        assert!(
            !dest.exists(),
            "nothing at the destination before the commit"
        );
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"<svg/>");
        let mut failed = OutFile::create(&dest).unwrap();
        failed.write_all(b"half").unwrap();
        drop(failed);
        assert_eq!(
            std::fs::read(&dest).unwrap(),
            b"<svg/>",
            "the old file stays"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }
}
