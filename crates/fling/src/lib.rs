//! Fling! level design at scale, after Sturtevant's "Using Large Scale
//! Search for Game Design": retrograde tables of every board of up to K
//! pieces (bit tables indexed by combinatorial rank, in memory-mapped
//! files), the analysis of one board, and the selection of uniquely
//! solvable boards whose solution an expert finds far faster than a novice.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod above;
mod analysis;
mod children;
mod chunk;
mod crosscheck;
mod error;
mod estimate;
mod layout;
mod lists;
mod lookup;
mod manifest;
mod rank;
mod ring;
mod sample;
mod search;
mod select;
mod step;
mod symmetric;
mod table_check;
mod table_layout;
mod tables;
mod unique_list;
mod walk;

pub use analysis::{analyze, is_solvable, status, Analysis, Edit};
pub use crosscheck::{cross_check, CrossCheck};
pub use error::FlingError;
pub use estimate::{estimate, Estimate};
pub use layout::Layout;
pub use lists::{build_lists, check_reach, BuiltList, DEFAULT_FULL_TABLES};
pub use lookup::{Level, Tables, UniqueBoards};
pub use manifest::{LevelStats, ListStats, MANIFEST};
pub use rank::{binomial, boards, next_combination, rank, unrank, MAX_PIECES};
pub use sample::{sample_rate, Sample, Sampling};
pub use search::{classify_with, pruned_size, solvable, Space};
pub use select::{select, Candidate, Selection};
pub use step::Step;
pub use table_check::{table_check, TableCheck};
pub use table_layout::{table_path, MAX_TABLE_PIECES};
pub use tables::{
    build, build_with_budget, build_with_layout, build_with_step, Built, Progress, COPY_BUDGET,
};
pub use unique_list::{list_path, UniqueList};
