//! Hyperstate space graph analysis (Cook and Raad): condenses a state space graph into
//! its strongly connected components ("hyperstates"), tags them, classifies actions by
//! reversibility and computes the metrics of `docs/metrics.md`.
//!
//! The algorithms read any [`StateGraph`]; [`MemGraph`] is the in-memory implementation
//! used by tests and small graphs.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod bfs_counters;
mod binfile;
pub mod condense;
pub mod currency;
pub mod depth_compare;
pub mod error;
pub mod explain;
pub mod export;
pub mod graph;
pub mod headroom;
pub mod hll;
mod hsg_edges;
pub mod ids;
pub mod incremental;
pub mod layered_walk;
pub mod live_figures;
pub mod mapped_analysis;
pub mod mem;
pub mod metrics;
mod one_way;
mod pair_union;
mod parallel;
pub mod paths;
pub mod persist;
pub mod progress;
mod readahead;
pub mod report;
pub mod reversibility;
pub mod run;
pub mod saved_view;
pub mod scc;
mod scc_contract;
mod scc_rows;
mod scc_search;
pub mod spectrum;
pub mod state_arrays;
pub mod summary;
pub mod tags;
pub mod target;
mod target_bounds;
mod two_cycles;
mod two_cycles_layered;
pub mod weak;

pub use analysis::{analyze_graph, Analysis, AnalyzeOptions};
pub use bfs_counters::{bfs_counters, BfsCounters};
pub use condense::{condense, Condensation, HsgEdges};
pub use currency::{currency, Currency};
pub use error::HsgError;
pub use export::{export_hsg, export_ssg, ExportFormat, ExportStats, GraphKind};
pub use graph::{validate, ActionId, Labels, OutcomeId, StateGraph, StateId};
pub use ids::IdVec;
pub use incremental::{Incremental, LiveHsg};
pub use live_figures::LiveFigures;
pub use mapped_analysis::MappedAnalysis;
pub use mem::MemGraph;
pub use persist::{load, load_summary, save, HyperstateInfo, SavedAnalysis};
pub use report::summary_markdown;
pub use reversibility::{classify, count_reversibility, Reversibility, ReversibilityCounts};
pub use run::{
    analyze, analyze_unsaved, currency_of, is_current, labels_of, may_save, source_of,
    source_of_manifest, RunGraph,
};
pub use saved_view::{SavedEdge, SavedView};
pub use scc::{strongly_connected_components, Components};
pub use summary::HsgSummary;
pub use tags::{tag_hyperstates, Tag, Tagging};
pub use target::resolve_target;

#[cfg(test)]
mod legacy_tests;
#[cfg(test)]
mod oracle_tests;
