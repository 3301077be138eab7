//! The points at which data becomes durable (a file's sync, a rename, a directory's
//! sync), announced to an observer when the feature `sync-observer` is on, so that a
//! test can rebuild a directory as a power cut at any of these points would leave it
//! (see `docs/store-format.md`, "What each sync protects"). Without the feature,
//! [`note`] is an empty function and release builds pay nothing.
//!
//! The analysis (`hsg::save`) announces its own syncs through the same function, so one
//! observer sees a whole run directory.

use std::path::Path;

/// One durability point.
#[derive(Clone, Copy, Debug)]
pub enum SyncEvent<'a> {
    /// `fsync`/`fdatasync` of a file is about to start: every byte it holds now is
    /// durable once the matching [`SyncEvent::Synced`] is announced.
    Syncing(&'a Path),
    /// The sync of this file returned successfully.
    Synced(&'a Path),
    /// A rename returned (durable once its directory is synced).
    Renamed {
        /// The old name.
        from: &'a Path,
        /// The new name.
        to: &'a Path,
    },
    /// The sync of a directory returned: its entries (creations, renames, removals)
    /// are durable.
    DirSynced(&'a Path),
}

/// Announces `event` to the observer, if one is set (feature `sync-observer`).
#[inline(always)]
pub fn note(event: SyncEvent<'_>) {
    #[cfg(feature = "sync-observer")]
    observer::call(event);
    #[cfg(not(feature = "sync-observer"))]
    let _ = event;
}

#[cfg(feature = "sync-observer")]
pub use observer::set_observer;

#[cfg(feature = "sync-observer")]
mod observer {
    use super::SyncEvent;
    use std::sync::Mutex;

    type Observer = Box<dyn FnMut(SyncEvent<'_>) + Send>;

    static OBSERVER: Mutex<Option<Observer>> = Mutex::new(None);

    /// Sets (or with `None` removes) the observer every durability point of every
    /// thread is announced to, in order. It runs while the announcing thread waits,
    /// so it sees the files as they are at that point.
    pub fn set_observer(observer: Option<Observer>) {
        *OBSERVER.lock().unwrap_or_else(|e| e.into_inner()) = observer;
    }

    pub(super) fn call(event: SyncEvent<'_>) {
        let mut observer = OBSERVER.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(observe) = observer.as_mut() {
            observe(event);
        }
    }
}

/// `fdatasync` of `file`, announced before and after.
pub(crate) fn sync_data(file: &std::fs::File, path: &Path) -> Result<(), crate::StoreError> {
    note(SyncEvent::Syncing(path));
    file.sync_data().map_err(crate::error::io(path))?;
    note(SyncEvent::Synced(path));
    Ok(())
}
