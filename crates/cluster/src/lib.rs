//! Distributed breadth-first exploration: several processes, on one machine
//! or many, explore one level together and each writes its own *part*; a
//! gather merges the parts into the store a single machine would have
//! written, byte for byte.
//!
//! States are owned by a hash of their slot (xxh3 modulo the process count).
//! A breadth-first layer is one or more rounds of four bulk-synchronous
//! all-to-all steps ([`round`]), as many as keep each process's buffers and
//! index within `--mem` ([`budget`]), carried by the narrow [`Exchange`] trait: over timely
//! dataflow between processes ([`TimelyExchange`]), in memory between
//! threads for tests ([`MemoryExchange`]). Ids are assigned as the
//! single-machine explorer assigns them, whatever the process count; each
//! finished layer is committed to every part, and a restart of all
//! processes resumes from the last layer every one of them committed.
//! The design and its costs: `docs/distributed.md`.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod agree;
mod auth;
mod budget;
mod checked;
mod connect;
mod dedup;
mod error;
mod exchange;
mod frontier;
mod gather;
mod index;
mod layer;
mod node;
mod part;
mod part_manifest;
mod rank;
mod round;
mod sealed;
mod spill;
#[cfg(test)]
mod tests_connect;
#[cfg(test)]
mod tests_memory;
#[cfg(test)]
mod tests_rounds;
mod timely_exchange;
mod wire;

pub use auth::ClusterKey;
pub use error::ClusterError;
pub use exchange::{Exchange, MemoryExchange};
pub use gather::{gather, GatherSummary};
pub use node::{
    explore_part, ClusterEnding, ClusterOptions, ClusterProgress, ClusterSummary, MemoryFigures,
    ProgressSink, Quiet,
};
pub use part::{remove_part, Part};
pub use part_manifest::{PartManifest, PointStatus};
pub use timely_exchange::{run_cluster, ClusterConfig};
