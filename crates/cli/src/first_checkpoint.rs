//! Waiting for a run's first checkpoint: `hsg tui DIR` on a run whose explorer has not
//! committed anything yet waits for it (bounded, with a message, SIGINT ending the wait)
//! instead of failing with advice that would start the run over.

use anyhow::{bail, Result};
use std::path::Path;
use std::time::{Duration, Instant};
use store::Manifest;

/// How long `hsg tui` waits for a first checkpoint: the explorer checkpoints every two
/// seconds unless told otherwise, so a minute is ample and still ends a forgotten wait.
pub const WAIT: Duration = Duration::from_secs(60);

/// How often the manifest and the lock are looked at while waiting.
const POLL: Duration = Duration::from_millis(100);

/// Returns once the run in `dir` has committed a checkpoint. While a process holds the
/// store and nothing is committed, waits (saying so once on standard error) for at most
/// `limit`; fails when no process holds the store (nothing will ever be committed) or
/// the limit passes. SIGINT ends the process as usual: nothing is held while waiting.
pub fn wait_for_first(dir: &Path, limit: Duration) -> Result<()> {
    let started = Instant::now();
    let mut said = false;
    loop {
        // The holder first: a manifest read after it that still has nothing committed
        // while no process holds the store will never have anything.
        let holder = store::layout::lock_holder(dir)?;
        if !Manifest::read(dir)?.nothing_committed() {
            return Ok(());
        }
        let Some(pid) = holder else {
            bail!(
                "{}: the exploration stopped before its first checkpoint (no process holds \
                 the store, nothing was committed), so there is nothing to open; start it \
                 over with:\n  {}",
                dir.display(),
                crate::stored_run::resume_command(dir)
            );
        };
        if started.elapsed() >= limit {
            bail!(
                "{}: the exploration (pid {pid}) has not reached its first checkpoint after \
                 {} s (it checkpoints every --checkpoint-secs); run `hsg tui` on it again later",
                dir.display(),
                limit.as_secs()
            );
        }
        if !said {
            eprintln!(
                "{}: the exploration (pid {pid}) has not reached its first checkpoint yet; \
                 waiting for it (at most {} s, Ctrl-C stops waiting)",
                dir.display(),
                limit.as_secs()
            );
            said = true;
        }
        std::thread::sleep(POLL);
    }
}
