//! The integration tests: each drives the real `hsg` binary on real levels (and
//! `layering` checks the crates' dependencies with `cargo metadata`).

mod advice;
mod analysis;
mod batch;
mod cluster;
mod compact_index;
mod compare;
mod corruption;
mod coverage;
mod errors;
mod explore_counts;
mod flags;
mod fling;
mod grammar;
mod html;
mod layering;
mod level_files;
mod live;
mod manual;
mod numbers;
mod oracle;
mod out_files;
mod paths;
mod play;
mod puzzlegraph;
mod puzzlescript;
mod resume;
mod sandbox;
mod saved_analysis;
mod uncommitted;
mod util;
mod ux;
mod weak;
mod workbench;
