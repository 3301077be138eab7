//! What the search does on a timer: checkpoints (with the explorer's resume
//! data) and progress reports.

use super::{Bfs, Resume, RESUME_VERSION};
use crate::disk::DiskDedup;
use crate::options::ProgressSink;
use crate::ExploreError;
use std::time::Instant;
use store::Progress;

impl<'g> Bfs<'g> {
    /// Checkpoints and reports progress when their time has come.
    pub(super) fn tick(&mut self, sink: &mut dyn ProgressSink) -> Result<(), ExploreError> {
        let now = Instant::now();
        if self.index.disk.is_none() && self.checkpoint_due() {
            self.checkpoint()?;
        }
        if now - self.clock.last_progress >= self.opts.progress_every {
            self.clock.last_progress = now;
            let progress = self.progress("exploring");
            self.writer.publish_progress(progress.clone())?;
            sink.progress(&progress);
        }
        Ok(())
    }

    /// True once `checkpoint_every` has passed since the last checkpoint.
    pub(super) fn checkpoint_due(&self) -> bool {
        self.clock.last_checkpoint.elapsed() >= self.opts.checkpoint_every
    }

    pub(super) fn resume_blob(&self) -> serde_json::Value {
        // On disk the store holds only whole layers (or the switch point):
        // a resumed run redoes the layer from the last parent it recorded.
        let next_parent = match self.index.disk {
            Some(_) => self.writer.expanded_count(),
            None => self.next_parent,
        };
        let resume = Resume {
            version: RESUME_VERSION,
            next_parent,
            layers: self.layers.clone(),
            disk: self.index.disk.as_ref().map(DiskDedup::resume_point),
        };
        serde_json::to_value(resume).unwrap_or(serde_json::Value::Null)
    }

    pub(super) fn checkpoint(&mut self) -> Result<(), ExploreError> {
        if let Some(disk) = self.index.disk.as_mut() {
            disk.sync_runs()?;
        }
        let blob = self.resume_blob();
        let progress = self.progress("exploring");
        self.writer.checkpoint(blob, progress)?;
        if let Some(disk) = self.index.disk.as_mut() {
            // The files the checkpoint leaves behind may only go once a
            // crash can no longer resume from the previous one, which
            // names them.
            self.writer.sync_manifest()?;
            disk.after_checkpoint();
        } else if self.stale_scratch {
            self.writer.sync_manifest()?;
            super::remove_scratch(&self.opts.scratch_dir)?;
            self.stale_scratch = false;
        }
        self.clock.last_checkpoint = Instant::now();
        Ok(())
    }

    pub(super) fn progress(&self, phase: &str) -> Progress {
        let elapsed = self.clock.started.elapsed().as_secs_f64();
        let new_states = self.writer.state_count() - self.clock.states_at_start;
        Progress {
            states: self.writer.state_count(),
            expanded: self.next_parent,
            transitions: self.writer.transition_count(),
            depth: (self.layers.len() - 2) as u32,
            states_per_sec: if elapsed > 0.0 {
                new_states as f64 / elapsed
            } else {
                0.0
            },
            elapsed_secs: elapsed,
            updated_unix_ms: unix_ms(),
            pid: std::process::id(),
            disk_bytes: self.writer.disk_bytes(),
            phase: phase.to_string(),
            live_hsg: self.watching.as_ref().and_then(|w| w.live.clone()),
        }
    }
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}
