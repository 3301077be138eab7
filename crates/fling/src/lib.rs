//! Fling! level design at scale, after Sturtevant's "Using Large Scale
//! Search for Game Design": retrograde tables of every board of up to K
//! pieces (bit tables indexed by combinatorial rank, in memory-mapped
//! files), the analysis of one board, and the selection of uniquely
//! solvable boards whose solution an expert finds far faster than a novice.

mod analysis;
mod error;
mod manifest;
mod rank;
mod search;
mod select;
mod tables;

pub use analysis::{analyze, status, Analysis, Edit};
pub use error::FlingError;
pub use manifest::{LevelStats, MANIFEST};
pub use rank::{binomial, boards, next_combination, rank, unrank, MAX_PIECES};
pub use search::{classify_with, pruned_size, Space};
pub use select::{select, Candidate, Selection};
pub use tables::{build, table_path, Built, Level, Progress, Tables, MAX_TABLE_PIECES};
