//! Output files (`-o DEST`) written whole or not at all, and never at the expense of
//! what DEST is. A regular file (or a name not yet taken) is written to a hidden
//! temporary file beside it, renamed over it once everything is written; a failure (or
//! an early return) removes the temporary file and leaves the destination as it was.
//! Anything else is written through: a character device (`/dev/null`, `/dev/full`, a
//! terminal) or a FIFO gets the bytes, never a rename over its node; a symbolic link
//! stays a link and its target is written as above (beside the target, so the rename
//! stays within one folder). A directory, a block device or a socket is refused by name.
//!
//! Regressions: a failed `hsg export -o FILE` (an SVG of the SSG, a damaged store) left
//! an empty FILE behind, which looked like a picture that failed to render; as root,
//! `-o /dev/full` turned the device node into a regular file, a symbolic link was
//! replaced instead of its target written, and a FIFO's reader got nothing.

use anyhow::{bail, Context, Result};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The most symbolic links followed from DEST to what it names (Linux's own limit).
const MAX_LINKS: usize = 40;

/// How the data reaches the destination.
enum Target {
    /// Written to `temp`, renamed to `file` on commit (`file` is DEST, or the file a
    /// symbolic link DEST names).
    Replace { file: PathBuf, temp: PathBuf },
    /// Written straight into the device or FIFO DEST names.
    Through,
}

/// A file being written until [`OutFile::commit`].
pub struct OutFile {
    /// The destination as the user named it, for messages.
    dest: PathBuf,
    target: Target,
    writer: Option<BufWriter<File>>,
}

impl OutFile {
    /// Starts writing `dest`: creates `.NAME.partial-PID` beside the regular file it
    /// names, or opens the device or FIFO it names for writing.
    pub fn create(dest: &Path) -> Result<OutFile> {
        // A device or FIFO is asked of the kernel first, through every link: `/dev/stdout`
        // on a pipe is a chain of links ending in `/proc/self/fd/1`, whose target
        // (`pipe:[N]`) is no path, yet opening the name reaches the pipe.
        if let Ok(meta) = std::fs::metadata(dest) {
            if meta.file_type().is_char_device() || meta.file_type().is_fifo() {
                return Self::through(dest);
            }
        }
        let named = resolve(dest)?;
        match std::fs::metadata(&named) {
            Ok(meta) if meta.is_dir() => {
                bail!("{} is a directory: name a file to write", dest.display())
            }
            Ok(meta) if meta.file_type().is_char_device() || meta.file_type().is_fifo() => {
                Self::through(&named)
            }
            Ok(meta) if !meta.is_file() => bail!(
                "{} is {}: not written (name a regular file, a character device or a FIFO)",
                dest.display(),
                kind_of(&meta.file_type())
            ),
            Ok(meta) => Self::replacing(dest, &named, Some(meta.permissions())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Self::replacing(dest, &named, None)
            }
            Err(e) => Err(e).with_context(|| format!("cannot write {}", dest.display())),
        }
    }

    /// Writes straight into the device or FIFO `named` (DEST or what its links name).
    fn through(named: &Path) -> Result<OutFile> {
        let file = OpenOptions::new()
            .write(true)
            .open(named)
            .with_context(|| format!("cannot open {} for writing", named.display()))?;
        Ok(OutFile {
            dest: named.to_path_buf(),
            target: Target::Through,
            writer: Some(BufWriter::new(file)),
        })
    }

    /// Writes to a temporary file beside `file` (a regular file or a free name), with
    /// the permissions of the file it replaces.
    fn replacing(
        dest: &Path,
        file: &Path,
        permissions: Option<std::fs::Permissions>,
    ) -> Result<OutFile> {
        let name = file
            .file_name()
            .with_context(|| format!("{}: not a file name", dest.display()))?;
        let temp_name = format!(".{}.partial-{}", name.to_string_lossy(), std::process::id());
        let temp = file.with_file_name(temp_name);
        let created =
            File::create(&temp).with_context(|| format!("cannot create {}", dest.display()))?;
        let out = OutFile {
            dest: dest.to_path_buf(),
            target: Target::Replace {
                file: file.to_path_buf(),
                temp: temp.clone(),
            },
            writer: Some(BufWriter::new(created)),
        };
        if let Some(permissions) = permissions {
            // Dropping `out` on this error removes the temporary file.
            std::fs::set_permissions(&temp, permissions)
                .with_context(|| format!("cannot write {}", dest.display()))?;
        }
        Ok(out)
    }

    /// Flushes the data and, for a regular file, syncs it and renames the temporary
    /// file to the destination.
    pub fn commit(mut self) -> Result<()> {
        let dest = self.dest.clone();
        let cannot_write = || format!("cannot write {}", dest.display());
        let Some(writer) = self.writer.take() else {
            bail!("{}: the output file is closed", dest.display());
        };
        let file = writer
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(cannot_write)?;
        match &self.target {
            // A device or FIFO has nothing to sync or rename: the bytes went to it.
            Target::Through => Ok(()),
            Target::Replace { file: dest, temp } => {
                file.sync_all().with_context(cannot_write)?;
                std::fs::rename(temp, dest).with_context(cannot_write)
            }
        }
    }
}

/// What `dest` names once its symbolic links are followed: `dest` itself when it is not
/// a link (or does not exist), else the final target, which may not exist yet.
fn resolve(dest: &Path) -> Result<PathBuf> {
    let mut at = dest.to_path_buf();
    for _ in 0..MAX_LINKS {
        let is_link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(at);
        }
        let link = std::fs::read_link(&at)
            .with_context(|| format!("cannot read the symbolic link {}", at.display()))?;
        at = match at.parent() {
            Some(folder) => folder.join(link),
            None => link,
        };
    }
    bail!(
        "{}: more than {MAX_LINKS} symbolic links (a loop?)",
        dest.display()
    )
}

/// What a file type is, in words, for the refusal of one that is not written.
fn kind_of(kind: &std::fs::FileType) -> &'static str {
    if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
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
        // commit the temporary name no longer exists and this does nothing.) A device
        // or FIFO keeps what it was given: there is nothing to take back.
        self.writer.take();
        if let Target::Replace { temp, .. } = &self.target {
            let _ = std::fs::remove_file(temp);
        }
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

    #[test]
    fn a_link_stays_a_link_and_its_target_is_written_even_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let link = dir.path().join("out.dot");
        std::os::unix::fs::symlink("sub/real.dot", &link).unwrap();
        for text in [&b"first"[..], b"second"] {
            let mut out = OutFile::create(&link).unwrap();
            out.write_all(text).unwrap();
            out.commit().unwrap();
            assert!(std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read(sub.join("real.dot")).unwrap(), text);
        }
        assert_eq!(std::fs::read_dir(&sub).unwrap().count(), 1, "no temporary");
    }

    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        std::fs::write(&dest, b"old").unwrap();
        std::fs::set_permissions(&dest, std::fs::Permissions::from_mode(0o640)).unwrap();
        let mut out = OutFile::create(&dest).unwrap();
        out.write_all(b"new").unwrap();
        out.commit().unwrap();
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn directories_and_link_loops_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let err = OutFile::create(dir.path()).err().unwrap().to_string();
        assert!(err.contains("is a directory"), "{err}");
        let a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let err = OutFile::create(&a).err().unwrap().to_string();
        assert!(err.contains("symbolic links"), "{err}");
    }

    #[test]
    fn a_device_is_written_through_and_a_full_one_fails_the_commit() {
        let mut null = OutFile::create(Path::new("/dev/null")).unwrap();
        null.write_all(b"nothing").unwrap();
        null.commit().unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
        if Path::new("/dev/full").exists() {
            let mut full = OutFile::create(Path::new("/dev/full")).unwrap();
            full.write_all(b"too much").unwrap();
            let err = format!("{:#}", full.commit().unwrap_err());
            assert!(err.contains("/dev/full") && err.contains("space"), "{err}");
        }
    }
}
