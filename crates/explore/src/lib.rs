//! Streaming breadth-first exploration of a game's state space into a store.
//!
//! The explorer expands states layer by layer in id order, writes every new
//! state and every transition to a [`store::RunWriter`] as it goes, and
//! checkpoints every few seconds so that a killed run resumes where it was.
//! States get dense ids in discovery order: the order in which a sequential
//! breadth-first search, expanding parents in id order and their moves in
//! the game's order, first meets them. Threads only expand parents and look
//! them up; a sequential merge in parent order assigns ids, so ids do not
//! depend on the thread count, the memory budget or the interruptions.
//!
//! While the visited index fits the memory budget it is an in-memory hash
//! table (`table`). Beyond that the explorer switches to delayed duplicate
//! detection on disk (`disk`): unresolved successors of a layer are sorted
//! and merged against sorted runs of the visited states once per layer, with
//! sequential I/O only.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod bfs;
mod disk;
mod error;
mod expand;
mod keys;
mod merge;
mod options;
mod slot;
mod table;
#[cfg(test)]
mod tests_back_to_memory;
#[cfg(test)]
mod tests_power_loss;
#[cfg(test)]
mod tests_wide;
mod watch;

pub use bfs::{explore, explore_watched, least_budget};
pub use error::ExploreError;
pub use options::{Ending, ExploreOptions, IndexFigures, ProgressSink, Summary, PARENTS_PER_PART};
pub use slot::Slot;
pub use watch::Watcher;

/// True when no neighbour in an array or a struct can share a pair of cache
/// lines with a `T`: the layout rule for what threads touch side by side.
#[cfg(test)]
pub(crate) fn on_lines_of_its_own<T>() -> bool {
    std::mem::align_of::<T>() >= 128 && std::mem::size_of::<T>().is_multiple_of(128)
}
