//! The merges that keep the disk phase's runs logarithmic: after a round,
//! its new states and the newest runs, while together at least as large as
//! the run before them, become one in a single pass (a binary counter of run sizes, as in a
//! log-structured merge tree). Merged two at a time, a cascade rewrote the
//! newest states once for every step of it.
//!
//! The merge runs in the round's tail, beside the stream of the round's
//! pending edges into the store (see `DiskDedup::finish_layer`), after the
//! resolution's buffers have peaked, not beside the next round: there its
//! run's filter and read buffers stood beside the inputs' filters through
//! the next round's peak, and room4's peak RSS under `--mem 128M` went
//! 6.5 MiB past the budget.

use super::files::Merge;
use super::probe::Summary;
use super::{io_err, DiskDedup, VisitedRun, IO_BUF};
use crate::ExploreError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

impl DiskDedup {
    /// Adds the run of a round's new states, `memory` (sorted entries: a
    /// record and its id), and merges it at once with the newest runs while
    /// together they are at least as large as the run before them, all of
    /// them in one pass. Sizes then at least double from the newest run to
    /// the oldest, so a candidate meets O(log) runs and a state is rewritten
    /// O(log) times. The new states go into the merge from memory: written
    /// as a run of their own first, then read back by the merge, about half
    /// the rounds' new states were written, read and summarised twice.
    pub(super) fn add_run(&mut self, memory: &[u8]) -> Result<(), ExploreError> {
        let count = (memory.len() / (self.width + 8)) as u64;
        if count == 0 {
            return Ok(());
        }
        let n = self.runs.len();
        let mut first = n;
        let mut entries = count;
        while first > 0 && self.runs[first - 1].entries <= entries {
            first -= 1;
            entries += self.runs[first].entries;
        }
        let inputs: Vec<(PathBuf, u64)> = self.runs[first..]
            .iter()
            .map(|r| (r.path.clone(), r.entries))
            .collect();
        let replaced: Vec<PathBuf> = inputs.iter().map(|(p, _)| p.clone()).collect();
        let bits = self.filter_bits(entries, &replaced);
        let summary = Summary::new(self.width, entries, bits);
        let path = self.new_path("run");
        let run = merge_runs(&inputs, memory, path, summary, self.width)?;
        self.replace_runs(first, n - first, run)
    }

    /// Puts `run` in place of the runs `first..first + count`, which go at
    /// once when no checkpoint names them (none was taken since they were
    /// written: checkpoints sync what they name), else once the next
    /// checkpoint no longer does.
    fn replace_runs(
        &mut self,
        first: usize,
        count: usize,
        run: VisitedRun,
    ) -> Result<(), ExploreError> {
        let old: Vec<VisitedRun> = self.runs.splice(first..first + count, [run]).collect();
        for old in old {
            match old.synced {
                true => self.garbage.push(old.path),
                false => std::fs::remove_file(&old.path).map_err(io_err(&old.path))?,
            }
        }
        Ok(())
    }
}

/// Merges the sorted runs `inputs` and the sorted entries `memory` into a
/// new run at `path`, summarised on the way into `summary`.
pub(super) fn merge_runs(
    inputs: &[(PathBuf, u64)],
    memory: &[u8],
    path: PathBuf,
    mut summary: Summary,
    width: usize,
) -> Result<VisitedRun, ExploreError> {
    let in_memory = (memory.len() / (width + 8)) as u64;
    let entries: u64 = inputs.iter().map(|(_, n)| n).sum::<u64>() + in_memory;
    let file = File::create(&path).map_err(io_err(&path))?;
    let mut out = BufWriter::with_capacity(IO_BUF, file);
    let mut merge = Merge::new(inputs, memory, width + 8)?;
    while let Some(e) = merge.next_entry()? {
        summary.push(&e[..width]);
        out.write_all(e).map_err(io_err(&path))?;
    }
    out.flush().map_err(io_err(&path))?;
    Ok(VisitedRun {
        path,
        entries,
        summary: summary.finish(),
        synced: false,
    })
}
