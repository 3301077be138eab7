//! Reading the text files a user names (levels, specifications, feature maps) with a
//! size limit, so that `hsg explore /dev/zero` is an error instead of a process that
//! grows until it runs out of memory.

use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::Path;

/// The largest text file read: far beyond any level (the largest bundled one is a few
/// kilobytes), small enough to hold in memory several times over.
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// Reads the text file `path`, a `what` (`level file`, `map file`...), refusing one of
/// more than [`MAX_TEXT_BYTES`]. A regular file is measured before it is read; anything
/// else (a device, a pipe) is read through a bounded reader.
pub fn read_text(path: &Path, what: &str) -> Result<String> {
    read_text_limited(path, what, MAX_TEXT_BYTES)
}

fn read_text_limited(path: &Path, what: &str, limit: u64) -> Result<String> {
    let cannot_read = || format!("cannot read {what} {}", path.display());
    let too_large = || {
        format!(
            "{}: the {what} is larger than {} MiB, the most hsg reads",
            path.display(),
            limit >> 20
        )
    };
    let file = std::fs::File::open(path).with_context(cannot_read)?;
    let meta = file.metadata().with_context(cannot_read)?;
    if meta.is_dir() {
        bail!("{}: the {what} is a directory", path.display());
    }
    if meta.is_file() && meta.len() > limit {
        bail!(too_large());
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .with_context(cannot_read)?;
    if bytes.len() as u64 > limit {
        bail!(too_large());
    }
    String::from_utf8(bytes)
        .with_context(|| format!("{}: the {what} is not UTF-8 text", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_of_endless_zeros_is_refused_with_its_name() {
        let err = read_text(Path::new("/dev/zero"), "level file").unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("/dev/zero"), "{text}");
        assert!(text.contains("larger than 64 MiB"), "{text}");
    }

    #[test]
    fn files_past_the_limit_are_refused_before_reading() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("big.xsb");
        std::fs::write(&path, vec![b'#'; 2048]).expect("writable");
        let err = read_text_limited(&path, "level file", 1024).unwrap_err();
        assert!(format!("{err:#}").contains("big.xsb"));
        assert_eq!(
            read_text_limited(&path, "level file", 4096)
                .expect("fits")
                .len(),
            2048
        );
        let err = read_text(dir.path(), "level file").unwrap_err();
        assert!(format!("{err:#}").contains("directory"), "{err:#}");
    }
}
