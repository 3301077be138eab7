//! Verifying an opened run in steps, with progress and a way to stop: the checks
//! [`Run::open`] makes at once (every block checksum, then every row, edge, terminal
//! and probability), for a reader that opened the run with [`Run::open_lazy`] to show
//! it at once and verifies it in the background (the workbench).

use crate::error::StoreError;
use crate::reader::Run;
use std::path::Path;

impl Run {
    /// The work [`Run::verify_watched`] reports in all: one unit per committed data
    /// byte (checksums), then one per row, edge, terminal and probability (structure).
    pub fn verify_work(&self) -> u64 {
        let bytes: u64 = self.data_files().iter().map(|(_, c)| c.len).sum();
        bytes + crate::structure::content_values(self)
    }

    /// Verifies every block checksum of every data file, then the structure that
    /// [`Run::open_lazy`] left unchecked, calling `tick(file, units)` as it goes (the
    /// file being read and the units of [`Run::verify_work`] just done). `tick`
    /// returning false stops the verification: `Ok(false)`, nothing was found wrong in
    /// what was read. The first damage found is the error, naming the file and, for a
    /// checksum, the block and its byte offsets.
    pub fn verify_watched(
        &self,
        tick: &mut dyn FnMut(&Path, u64) -> bool,
    ) -> Result<bool, StoreError> {
        for (file, commit) in self.data_files() {
            let path = file.path();
            if !file.verify_watched(commit, &mut |n| tick(path, n))? {
                return Ok(false);
            }
        }
        let manifest = self.dir().join(crate::manifest::MANIFEST);
        crate::structure::check_contents(self, &mut |n| tick(&manifest, n))
    }
}

#[cfg(test)]
mod tests {
    use crate::tests_run::{graph, write};
    use crate::Run;

    #[test]
    fn a_lazy_open_accepts_a_flipped_bit_that_the_watched_verification_names() {
        let dir = tempfile::tempdir().unwrap();
        drop(write(dir.path(), &graph(300_000), None));
        let path = dir.path().join("edges.bits");
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[64 + 5000] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let run = Run::open_lazy(dir.path()).unwrap();
        let total = run.verify_work();
        let mut done = 0;
        let e = run
            .verify_watched(&mut |_, n| {
                done += n;
                true
            })
            .unwrap_err()
            .to_string();
        assert!(done < total, "{done} of {total}");
        assert!(
            e.contains("edges.bits: checksum mismatch in block 0 (data bytes 0..")
                && e.contains("file offset 64)"),
            "{e}"
        );
        assert!(Run::open(dir.path()).is_err());
    }

    #[test]
    fn the_watched_verification_counts_all_its_work_and_can_be_stopped() {
        let dir = tempfile::tempdir().unwrap();
        drop(write(dir.path(), &graph(300_000), None));
        let run = Run::open_lazy(dir.path()).unwrap();
        let mut done = 0;
        let whole = run.verify_watched(&mut |_, n| {
            done += n;
            true
        });
        assert!(whole.unwrap());
        assert_eq!(done, run.verify_work());
        let mut calls = 0;
        let stopped = run.verify_watched(&mut |_, _| {
            calls += 1;
            calls < 2
        });
        assert!(!stopped.unwrap());
        assert_eq!(calls, 2);
    }

    #[test]
    fn the_watched_verification_finds_what_the_structure_check_finds() {
        // Rows out of order and a terminal past the states, behind valid checksums (a
        // buggy or hand-made writer): `open` refuses them, `open_lazy` does not, and
        // the background verification names them as `open` does.
        for (name, at, bytes) in [
            ("rows.bits", 0, [0xff; 8]),
            ("terminals", 0, (1u64 << 40).to_le_bytes()),
        ] {
            let dir = tempfile::tempdir().unwrap();
            drop(write(dir.path(), &graph(700), None));
            crate::tests_forged::damage_behind_checksums(dir.path(), name, at, &bytes);
            let full = Run::open(dir.path()).err().map(|e| e.to_string());
            let run = Run::open_lazy(dir.path()).unwrap();
            let e = run
                .verify_watched(&mut |_, _| true)
                .unwrap_err()
                .to_string();
            assert_eq!(Some(e), full);
        }
    }
}
