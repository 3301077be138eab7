//! Game trees and game equivalence after Riggins & McPherson, "Formal Game
//! Grammar and Equivalence": trees by Algorithm 2 (decision, chance and
//! terminal nodes), equivalence up to relabeling (Definitions 4 to 11),
//! agency equivalence after the four reductions (Definitions 12 to 15),
//! similarity by sampling partial trees (section V), and the tree written as
//! a store so the rest of the pipeline can read it.
//!
//! Subtrees are put in canonical form bottom-up and interned in an xxh3-keyed
//! table, so two trees of hundreds of thousands of nodes compare in the time it
//! takes to build them; `docs/equivalence.md` describes the algorithms.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod canon;
mod compare;
mod diff;
mod error;
pub mod examples;
mod feature_map;
mod labels;
mod matrix;
mod ratio;
mod relabel;
mod sample;
mod side;
mod similarity;
mod store_out;
mod tree;

pub use canon::Mode;
pub use compare::{compare, Comparison, Pair, TreeSummary, Witness};
pub use diff::Difference;
pub use error::EquivError;
pub use feature_map::FeatureMap;
pub use labels::{Labels, NO_OUTCOME};
pub use ratio::Ratio;
pub use similarity::{similarity, Similarity, SimilarityOptions};
pub use store_out::{write_store, LevelInfo, WrittenTree};
pub use tree::{GameTree, NodeKind, TreeOptions};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
